// The typed vendor routines for s, d, c, z behind one overloaded name each (vendor.cu picks by
// the storage type). cuSOLVER's potrfBatched and per-problem getrf only where the build links
// cuSOLVER.
#pragma once
#include "../device_types.cuh"

#include <cublas_v2.h>
#ifdef BB_HAVE_CUSOLVER
#include <cusolverDn.h>
#endif

namespace bb::cuda::vendor_calls {

#ifdef BB_HAVE_CUSOLVER
#define BB_VENDOR_POTRF(S, CU, X)                                                                      \
  inline cusolverStatus_t potrf(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, S *const *A, int lda, \
                                int *info, int count) {                                                \
    return cusolverDn##X##potrfBatched(h, uplo, n, (CU **)A, lda, info, count);                       \
  }                                                                                                    \
  inline cusolverStatus_t potrf_work(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, S *A, int lda,    \
                                     int *elements) {                                                  \
    return cusolverDn##X##potrf_bufferSize(h, uplo, n, (CU *)A, lda, elements);                        \
  }                                                                                                    \
  inline cusolverStatus_t potrf_one(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, S *A, int lda,     \
                                    S *work, int elements, int *info) {                                \
    return cusolverDn##X##potrf(h, uplo, n, (CU *)A, lda, (CU *)work, elements, info);                 \
  }                                                                                                    \
  inline cusolverStatus_t getrf_work(cusolverDnHandle_t h, int n, S *A, int lda, int *elements) {        \
    return cusolverDn##X##getrf_bufferSize(h, n, n, (CU *)A, lda, elements);                           \
  }                                                                                                    \
  inline cusolverStatus_t getrf_one(cusolverDnHandle_t h, int n, S *A, int lda, S *work, int *piv, int *info) { \
    return cusolverDn##X##getrf(h, n, n, (CU *)A, lda, (CU *)work, piv, info);                          \
  }
#else
#define BB_VENDOR_POTRF(S, CU, X)
#endif

#define BB_VENDOR_CALLS(S, CU, X)                                                                         \
  inline cublasStatus_t getrf(cublasHandle_t h, int n, S *const *A, int lda, int *piv, int *info, int count) { \
    return cublas##X##getrfBatched(h, n, (CU *const *)A, lda, piv, info, count);                          \
  }                                                                                                       \
  inline cublasStatus_t getri(cublasHandle_t h, int n, const S *const *A, int lda, const int *piv,         \
                              S *const *C, int ldc, int *info, int count) {                               \
    return cublas##X##getriBatched(h, n, (const CU *const *)A, lda, piv, (CU *const *)C, ldc, info, count); \
  }                                                                                                       \
  inline cublasStatus_t geqrf(cublasHandle_t h, int m, int n, S *const *A, int lda, S *const *tau,         \
                              int *info, int count) {                                                     \
    return cublas##X##geqrfBatched(h, m, n, (CU *const *)A, lda, (CU *const *)tau, info, count);          \
  }                                                                                                       \
  inline cublasStatus_t trsm(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,              \
                             cublasOperation_t trans, cublasDiagType_t diag, int m, int n, const S *alpha,  \
                             const S *const *A, int lda, S *const *B, int ldb, int count) {               \
    return cublas##X##trsmBatched(h, side, uplo, trans, diag, m, n, (const CU *)alpha, (const CU *const *)A, \
                                  lda, (CU *const *)B, ldb, count);                                       \
  }                                                                                                       \
  inline cublasStatus_t trmm_one(cublasHandle_t h, cublasSideMode_t side, cublasFillMode_t uplo,          \
                                 cublasOperation_t trans, cublasDiagType_t diag, int m, int n,            \
                                 const S *alpha, const S *A, int lda, const S *B, int ldb, S *C, int ldc) { \
    return cublas##X##trmm(h, side, uplo, trans, diag, m, n, (const CU *)alpha, (const CU *)A, lda,       \
                           (const CU *)B, ldb, (CU *)C, ldc);                                             \
  }                                                                                                       \
  BB_VENDOR_POTRF(S, CU, X)

BB_VENDOR_CALLS(float, float, S)
BB_VENDOR_CALLS(double, double, D)
BB_VENDOR_CALLS(cplx<float>, cuComplex, C)
BB_VENDOR_CALLS(cplx<double>, cuDoubleComplex, Z)
#undef BB_VENDOR_CALLS
#undef BB_VENDOR_POTRF

}  // namespace bb::cuda::vendor_calls
