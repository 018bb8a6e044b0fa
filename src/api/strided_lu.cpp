// The strided entry points of getrf and getri: each fills its routine's one-group call and says where
// its operands are (api/strided.hpp does the rest). One file per family of routines, so that
// the build compiles them side by side.
#include "strided.hpp"

#include "export.hpp"

namespace bb {
namespace {

constexpr StridedSignature kGetrf{{5, 6, 0}, 2, 7};          // after A_ld, ipiv
constexpr StridedSignature kGetri{{4, 5, 0}, 2, 6};          // after A_ld, ipiv

template <class T>
int getrf(BLAS_Layout layout, int m, int n, T *A, int lda, int64_t sa, int *ipiv, int64_t sp, int batch, int *info) {
  GetrfCall<T> c{};
  c.layout = layout, c.m = &m, c.n = &n, c.A_ld = &lda;
  const StridedOperand ops[2] = {{A, sa, sizeof(T), true, matrix_extent(layout, m, n, lda)},
                                 {ipiv, sp, sizeof(int), true, std::max(std::min(m, n), 0)}};
  return run_strided<T>(c, kGetrf, ops, batch, info, [](GetrfCall<T> &c, void **const *a) {
    c.A = reinterpret_cast<T **>(a[0]), c.ipiv = reinterpret_cast<int **>(a[1]);
  });
}

template <class T>
int getri(BLAS_Layout layout, int n, T *A, int lda, int64_t sa, const int *ipiv, int64_t sp, int batch, int *info) {
  GetriCall<T> c{};
  c.layout = layout, c.n = &n, c.A_ld = &lda;
  const StridedOperand ops[2] = {{A, sa, sizeof(T), true, matrix_extent(layout, n, n, lda)},
                                 {ipiv, sp, sizeof(int), false}};
  return run_strided<T>(c, kGetri, ops, batch, info, [](GetriCall<T> &c, void **const *a) {
    c.A = reinterpret_cast<T **>(a[0]), c.ipiv = reinterpret_cast<int **>(a[1]);
  });
}

}  // namespace
}  // namespace bb

#define BB_STRIDED_LU(p, PublicT, T)                                                                \
  BB_EXPORT int BLAS_getrf_batched_strided_##p(BLAS_Layout layout, int m, int n, PublicT *A, int A_ld,     \
                                               int64_t A_stride, int *ipiv, int64_t ipiv_stride,           \
                                               int batch_count, int *info) {                               \
    return bb::getrf<T>(layout, m, n, BB_CAST(T *, A), A_ld, A_stride, ipiv, ipiv_stride, batch_count, info); \
  }                                                                                                        \
  BB_EXPORT int BLAS_getri_batched_strided_##p(BLAS_Layout layout, int n, PublicT *A, int A_ld,            \
                                               int64_t A_stride, const int *ipiv, int64_t ipiv_stride,     \
                                               int batch_count, int *info) {                               \
    return bb::getri<T>(layout, n, BB_CAST(T *, A), A_ld, A_stride, ipiv, ipiv_stride, batch_count, info);  \
  }
BB_FOR_EACH_PRECISION(BB_STRIDED_LU)
