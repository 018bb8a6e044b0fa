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
    static int potrf(BLAS_Layout l, const BLAS_Uplo *u, const int *n, T **A, const int *lda,     \
                     int gc, const int *gs, int *info) {                                         \
      return BLAS_potrf_batched_##p(l, u, n, P(A), lda, gc, gs, info);                           \
    }                                                                                             \
    static int geqrf(BLAS_Layout l, const int *m, const int *n, T **A, const int *lda, T **tau,  \
                     int gc, const int *gs, int *info) {                                         \
      return BLAS_geqrf_batched_##p(l, m, n, P(A), lda, P(tau), gc, gs, info);                   \
    }                                                                                             \
  };
BB_FOR_EACH_PRECISION(BB_TYPED_API)
#undef BB_TYPED_API

}  // namespace bb
