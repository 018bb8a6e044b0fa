// The public entry points typed by the internal element type (bb::half, bb::complex<float>,
// ...), so templated test and bench code can call BLAS_<routine>_batched_<prec> for any T.
#pragma once
#include <blas_batched/blas_batched.h>

#include "scalar.hpp"

namespace bb {
template <class T> struct Api;
#define BB_TYPED_API(p, PublicT, T)                                                                   \
  template <> struct Api<T> {                                                                     \
    static PublicT *P(T *x) { return reinterpret_cast<PublicT *>(x); }                           \
    static PublicT **P(T **x) { return reinterpret_cast<PublicT **>(x); }                        \
    static const PublicT *P(const T *x) { return reinterpret_cast<const PublicT *>(x); }         \
    static int gemm(BLAS_Layout l, const BLAS_Op *ta, const BLAS_Op *tb, const int *m,           \
                    const int *n, const int *k, const T *alpha, T **A, const int *lda, T **B,    \
                    const int *ldb, const T *beta, T **C, const int *ldc, int gc,                \
                    const int *gs, int *info) {                                                  \
      return BLAS_gemm_batched_##p(l, ta, tb, m, n, k, P(alpha), P(A), lda, P(B), ldb, P(beta),  \
                                   P(C), ldc, gc, gs, info);                                     \
    }                                                                                             \
    static int trsm(BLAS_Layout l, const BLAS_Side *s, const BLAS_Uplo *u, const BLAS_Op *t,     \
                    const BLAS_Diag *d, const int *m, const int *n, const T *alpha, T **A,       \
                    const int *lda, T **B, const int *ldb, int gc, const int *gs, int *info) {   \
      return BLAS_trsm_batched_##p(l, s, u, t, d, m, n, P(alpha), P(A), lda, P(B), ldb, gc, gs,  \
                                   info);                                                        \
    }                                                                                             \
    static int trmm(BLAS_Layout l, const BLAS_Side *s, const BLAS_Uplo *u, const BLAS_Op *t,     \
                    const BLAS_Diag *d, const int *m, const int *n, const T *alpha, T **A,       \
                    const int *lda, T **B, const int *ldb, int gc, const int *gs, int *info) {   \
      return BLAS_trmm_batched_##p(l, s, u, t, d, m, n, P(alpha), P(A), lda, P(B), ldb, gc, gs,  \
                                   info);                                                        \
    }                                                                                             \
    static int getrf(BLAS_Layout l, const int *m, const int *n, T **A, const int *lda,           \
                     int **ipiv, int gc, const int *gs, int *info) {                             \
      return BLAS_getrf_batched_##p(l, m, n, P(A), lda, ipiv, gc, gs, info);                     \
    }                                                                                             \
    static int getri(BLAS_Layout l, const int *n, T **A, const int *lda, int **ipiv, int gc,     \
                     const int *gs, int *info) {                                                 \
      return BLAS_getri_batched_##p(l, n, P(A), lda, ipiv, gc, gs, info);                        \
    }                                                                                             \
    static int getrf_getri(BLAS_Layout l, const int *n, T **A, const int *lda, int **ipiv, int gc, \
                           const int *gs, int *info) {                                            \
      return BLAS_getrf_getri_batched_##p(l, n, P(A), lda, ipiv, gc, gs, info);                   \
    }                                                                                             \
    static int potrf(BLAS_Layout l, const BLAS_Uplo *u, const int *n, T **A, const int *lda,     \
                     int gc, const int *gs, int *info) {                                         \
      return BLAS_potrf_batched_##p(l, u, n, P(A), lda, gc, gs, info);                           \
    }                                                                                             \
    static int geqrf(BLAS_Layout l, const int *m, const int *n, T **A, const int *lda, T **tau,  \
                     int gc, const int *gs, int *info) {                                         \
      return BLAS_geqrf_batched_##p(l, m, n, P(A), lda, P(tau), gc, gs, info);                   \
    }                                                                                             \
    /* strided batches */                                                                         \
    static int gemm_strided(BLAS_Layout l, BLAS_Op ta, BLAS_Op tb, int m, int n, int k,         \
                            const T *alpha, const T *A, int lda, int64_t sa, const T *B, int ldb, \
                            int64_t sb, const T *beta, T *C, int ldc, int64_t sc, int batch,     \
                            int *info) {                                                         \
      return BLAS_gemm_batched_strided_##p(l, ta, tb, m, n, k, P(alpha), P(A), lda, sa, P(B), ldb, \
                                           sb, P(beta), P(C), ldc, sc, batch, info);              \
    }                                                                                             \
    static int trsm_strided(BLAS_Layout l, BLAS_Side s, BLAS_Uplo u, BLAS_Op t, BLAS_Diag d,      \
                            int m, int n, const T *alpha, const T *A, int lda, int64_t sa, T *B, \
                            int ldb, int64_t sb, int batch, int *info) {                         \
      return BLAS_trsm_batched_strided_##p(l, s, u, t, d, m, n, P(alpha), P(A), lda, sa, P(B),   \
                                           ldb, sb, batch, info);                                \
    }                                                                                             \
    static int trmm_strided(BLAS_Layout l, BLAS_Side s, BLAS_Uplo u, BLAS_Op t, BLAS_Diag d,      \
                            int m, int n, const T *alpha, const T *A, int lda, int64_t sa, T *B, \
                            int ldb, int64_t sb, int batch, int *info) {                         \
      return BLAS_trmm_batched_strided_##p(l, s, u, t, d, m, n, P(alpha), P(A), lda, sa, P(B),   \
                                           ldb, sb, batch, info);                                \
    }                                                                                             \
    static int getrf_strided(BLAS_Layout l, int m, int n, T *A, int lda, int64_t sa, int *ipiv,  \
                             int64_t sp, int batch, int *info) {                                 \
      return BLAS_getrf_batched_strided_##p(l, m, n, P(A), lda, sa, ipiv, sp, batch, info);      \
    }                                                                                             \
    static int getri_strided(BLAS_Layout l, int n, T *A, int lda, int64_t sa, const int *ipiv,   \
                             int64_t sp, int batch, int *info) {                                 \
      return BLAS_getri_batched_strided_##p(l, n, P(A), lda, sa, ipiv, sp, batch, info);         \
    }                                                                                             \
    static int potrf_strided(BLAS_Layout l, BLAS_Uplo u, int n, T *A, int lda, int64_t sa,       \
                             int batch, int *info) {                                             \
      return BLAS_potrf_batched_strided_##p(l, u, n, P(A), lda, sa, batch, info);                \
    }                                                                                             \
    static int geqrf_strided(BLAS_Layout l, int m, int n, T *A, int lda, int64_t sa, T *tau,     \
                             int64_t st, int batch, int *info) {                                 \
      return BLAS_geqrf_batched_strided_##p(l, m, n, P(A), lda, sa, P(tau), st, batch, info);    \
    }                                                                                             \
  };
BB_FOR_EACH_PRECISION(BB_TYPED_API)
#undef BB_TYPED_API

}  // namespace bb
