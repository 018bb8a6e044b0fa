// cuBLAS for the vendor path: the typed batched routines for s, d, c, z, the Ex routines
// (float accumulation) for half; c16 has none.
#pragma once
#include "../device_types.cuh"

#include <cublas_v2.h>

namespace bb::cuda {

// The typed routines for s, d, c, z; the Ex routine (float accumulation) for half.
#define BB_VENDOR_TYPED(S, CU, X)                                                                 \
  inline cublasStatus_t vendor_strided(cublasHandle_t h, cublasOperation_t ta,                 \
                                       cublasOperation_t tb, int m, int n, int k, const S *alpha, \
                                       const S *A, int lda, long long sA, const S *B, int ldb,    \
                                       long long sB, const S *beta, S *C, int ldc, long long sC,  \
                                       int count) {                                               \
    return cublas##X##gemmStridedBatched(h, ta, tb, m, n, k, (const CU *)alpha, (const CU *)A,   \
                                         lda, sA, (const CU *)B, ldb, sB, (const CU *)beta,       \
                                         (CU *)C, ldc, sC, count);                                \
  }                                                                                               \
  inline cublasStatus_t vendor_arrays(cublasHandle_t h, cublasOperation_t ta,                  \
                                      cublasOperation_t tb, int m, int n, int k, const S *alpha,  \
                                      const S *const *A, int lda, const S *const *B, int ldb,     \
                                      const S *beta, S *const *C, int ldc, int count) {           \
    return cublas##X##gemmBatched(h, ta, tb, m, n, k, (const CU *)alpha, (const CU *const *)A,   \
                                  lda, (const CU *const *)B, ldb, (const CU *)beta,               \
                                  (CU *const *)C, ldc, count);                                    \
  }
BB_VENDOR_TYPED(float, float, S)
BB_VENDOR_TYPED(double, double, D)
BB_VENDOR_TYPED(cplx<float>, cuComplex, C)
BB_VENDOR_TYPED(cplx<double>, cuDoubleComplex, Z)
#undef BB_VENDOR_TYPED
inline cublasStatus_t vendor_strided(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                     int m, int n, int k, const float *alpha, const __half *A,
                                     int lda, long long sA, const __half *B, int ldb, long long sB,
                                     const float *beta, __half *C, int ldc, long long sC,
                                     int count) {
  return cublasGemmStridedBatchedEx(h, ta, tb, m, n, k, alpha, A, CUDA_R_16F, lda, sA, B,
                                    CUDA_R_16F, ldb, sB, beta, C, CUDA_R_16F, ldc, sC, count,
                                    CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}
inline cublasStatus_t vendor_arrays(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                    int m, int n, int k, const float *alpha,
                                    const __half *const *A, int lda, const __half *const *B,
                                    int ldb, const float *beta, __half *const *C, int ldc,
                                    int count) {
  return cublasGemmBatchedEx(h, ta, tb, m, n, k, alpha, (const void *const *)A, CUDA_R_16F, lda,
                             (const void *const *)B, CUDA_R_16F, ldb, beta, (void *const *)C,
                             CUDA_R_16F, ldc, count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

inline cublasOperation_t vendor_op(int t) {
  return t == 0 ? CUBLAS_OP_N : t == 1 ? CUBLAS_OP_T : CUBLAS_OP_C;
}

}  // namespace bb::cuda
