// The strided entry points of potrf and geqrf: each fills its routine's one-group call and says where
// its operands are (api/strided.hpp does the rest). One file per family of routines, so that
// the build compiles them side by side.
#include "strided.hpp"

#include "export.hpp"

namespace bb {
namespace {

constexpr StridedSignature kPotrf{{5, 0, 0}, 1, 6};          // after A_ld
constexpr StridedSignature kGeqrf{{5, 6, 0}, 2, 7};          // after A_ld, tau

template <class T>
int potrf(BLAS_Layout layout, BLAS_Uplo uplo, int n, T *A, int lda, int64_t sa, int batch, int *info) {
  PotrfCall<T> c{};
  c.layout = layout, c.uplo = &uplo, c.n = &n, c.A_ld = &lda;
  const StridedOperand ops[1] = {{A, sa, sizeof(T), true, matrix_extent(layout, n, n, lda)}};
  return run_strided<T>(c, kPotrf, ops, batch, info,
                        [](PotrfCall<T> &c, void **const *a) { c.A = reinterpret_cast<T **>(a[0]); });
}

template <class T>
int geqrf(BLAS_Layout layout, int m, int n, T *A, int lda, int64_t sa, T *tau, int64_t st, int batch, int *info) {
  GeqrfCall<T> c{};
  c.layout = layout, c.m = &m, c.n = &n, c.A_ld = &lda;
  const StridedOperand ops[2] = {{A, sa, sizeof(T), true, matrix_extent(layout, m, n, lda)},
                                 {tau, st, sizeof(T), true, std::max(std::min(m, n), 0)}};
  return run_strided<T>(c, kGeqrf, ops, batch, info, [](GeqrfCall<T> &c, void **const *a) {
    c.A = reinterpret_cast<T **>(a[0]), c.tau = reinterpret_cast<T **>(a[1]);
  });
}

}  // namespace
}  // namespace bb

#define BB_STRIDED_FACTOR(p, PublicT, T)                                                            \
  BB_EXPORT int BLAS_potrf_batched_strided_##p(BLAS_Layout layout, BLAS_Uplo uplo, int n, PublicT *A,      \
                                               int A_ld, int64_t A_stride, int batch_count, int *info) {   \
    return bb::potrf<T>(layout, uplo, n, BB_CAST(T *, A), A_ld, A_stride, batch_count, info);              \
  }                                                                                                        \
  BB_EXPORT int BLAS_geqrf_batched_strided_##p(BLAS_Layout layout, int m, int n, PublicT *A, int A_ld,     \
                                               int64_t A_stride, PublicT *tau, int64_t tau_stride,         \
                                               int batch_count, int *info) {                               \
    return bb::geqrf<T>(layout, m, n, BB_CAST(T *, A), A_ld, A_stride, BB_CAST(T *, tau), tau_stride,       \
                        batch_count, info);                                                                \
  }
BB_FOR_EACH_PRECISION(BB_STRIDED_FACTOR)
