// The strided entry points of gemm, trsm and trmm: each fills its routine's one-group call and says where
// its operands are (api/strided.hpp does the rest). One file per family of routines, so that
// the build compiles them side by side.
#include "strided.hpp"

#include "export.hpp"

namespace bb {
namespace {

constexpr StridedSignature kGemm{{9, 11, 14}, 3, 15};      // after A_ld, B_ld, C_ld
constexpr StridedSignature kTriangular{{10, 12, 0}, 2, 13};  // after A_ld, B_ld

template <class T>
int gemm(BLAS_Layout layout, BLAS_Op ta, BLAS_Op tb, int m, int n, int k, const T *alpha, const T *A, int lda,
         int64_t sa, const T *B, int ldb, int64_t sb, const T *beta, T *C, int ldc, int64_t sc, int batch, int *info) {
  GemmCall<T> c{};
  c.layout = layout, c.A_trans = &ta, c.B_trans = &tb, c.m = &m, c.n = &n, c.k = &k;
  c.alpha = alpha, c.beta = beta, c.A_ld = &lda, c.B_ld = &ldb, c.C_ld = &ldc;
  const StridedOperand ops[3] = {{A, sa, sizeof(T), false}, {B, sb, sizeof(T), false},
                                 {C, sc, sizeof(T), true, matrix_extent(layout, m, n, ldc)}};
  return run_strided<T>(c, kGemm, ops, batch, info, [](GemmCall<T> &c, void **const *a) {
    c.A = reinterpret_cast<T **>(a[0]), c.B = reinterpret_cast<T **>(a[1]), c.C = reinterpret_cast<T **>(a[2]);
  });
}

template <class T, Routine R>
int triangular(BLAS_Layout layout, BLAS_Side side, BLAS_Uplo uplo, BLAS_Op ta, BLAS_Diag diag, int m, int n,
               const T *alpha, const T *A, int lda, int64_t sa, T *B, int ldb, int64_t sb, int batch, int *info) {
  TriangularCall<T, R> c{};
  c.layout = layout, c.side = &side, c.uplo = &uplo, c.A_trans = &ta, c.diag = &diag, c.m = &m, c.n = &n;
  c.alpha = alpha, c.A_ld = &lda, c.B_ld = &ldb;
  const StridedOperand ops[2] = {{A, sa, sizeof(T), false}, {B, sb, sizeof(T), true, matrix_extent(layout, m, n, ldb)}};
  return run_strided<T>(c, kTriangular, ops, batch, info, [](TriangularCall<T, R> &c, void **const *a) {
    c.A = reinterpret_cast<T **>(a[0]), c.B = reinterpret_cast<T **>(a[1]);
  });
}

}  // namespace
}  // namespace bb

// trsm and trmm take the same arguments and differ only in the routine tag.
#define BB_STRIDED_TRIANGULAR(name, p, PublicT, T)                                                         \
  BB_EXPORT int BLAS_##name##_batched_strided_##p(                                                         \
      BLAS_Layout layout, BLAS_Side side, BLAS_Uplo uplo, BLAS_Op A_trans, BLAS_Diag diag, int m, int n,   \
      const PublicT *alpha, const PublicT *A, int A_ld, int64_t A_stride, PublicT *B, int B_ld,            \
      int64_t B_stride, int batch_count, int *info) {                                                      \
    return bb::triangular<T, bb::Routine::name>(layout, side, uplo, A_trans, diag, m, n,                   \
                                                BB_CAST(const T *, alpha), BB_CAST(const T *, A), A_ld,    \
                                                A_stride, BB_CAST(T *, B), B_ld, B_stride, batch_count, info); \
  }
#define BB_STRIDED_BLAS(p, PublicT, T)                                                              \
  BB_EXPORT int BLAS_gemm_batched_strided_##p(                                                             \
      BLAS_Layout layout, BLAS_Op A_trans, BLAS_Op B_trans, int m, int n, int k, const PublicT *alpha,     \
      const PublicT *A, int A_ld, int64_t A_stride, const PublicT *B, int B_ld, int64_t B_stride,          \
      const PublicT *beta, PublicT *C, int C_ld, int64_t C_stride, int batch_count, int *info) {           \
    return bb::gemm<T>(layout, A_trans, B_trans, m, n, k, BB_CAST(const T *, alpha), BB_CAST(const T *, A), \
                       A_ld, A_stride, BB_CAST(const T *, B), B_ld, B_stride, BB_CAST(const T *, beta),    \
                       BB_CAST(T *, C), C_ld, C_stride, batch_count, info);                               \
  }                                                                                                        \
  BB_STRIDED_TRIANGULAR(trsm, p, PublicT, T)                                                               \
  BB_STRIDED_TRIANGULAR(trmm, p, PublicT, T)
BB_FOR_EACH_PRECISION(BB_STRIDED_BLAS)
