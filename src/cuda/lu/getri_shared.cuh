// getri with one thread block per problem (sizes above the register kernels): LAPACK's
// unblocked xgetri on the matrix staged in shared memory (kLuShared*), or in place in global
// memory (kLuGlobal): inv(U) in place (xtrti2), then inv(A) L = inv(U) solved column by column
// from the right, then the column interchanges undone. One work vector of n elements in shared
// memory holds each step's new column, so every step reads only old values.
#pragma once
#include "lu_common.cuh"

namespace bb::cuda {

// Largest n of a getri problem in global memory: its work vector lives in shared memory.
constexpr int kLuGlobalMaxN = 8192;

template <class S, class Matrix>
__device__ void getri_block(const Matrix &M, int n, const int *piv, typename dev<S>::C *w) {
  using CT = typename dev<S>::C;
  using R = real_t<CT>;
  const int tid = threadIdx.x, T = blockDim.x;
  for (int j = 0; j < n; ++j) {  // xtrti2: column j of inv(U) from the inverted columns before it
    const CT d = M.get(j, j);
    for (int i = tid; i < j; i += T) {
      CT acc = from_real<CT>(R(0));
      for (int k = i; k < j; ++k) acc = madd(acc, M.get(i, k), M.get(k, j));
      w[i] = acc;
    }
    __syncthreads();
    const CT rinv = divide(from_real<CT>(R(1)), d);
    const CT ajj = negate(rinv);
    for (int i = tid; i < j; i += T) M.set(i, j, mul(ajj, w[i]));
    if (tid == 0) M.set(j, j, rinv);
    __syncthreads();
  }
  for (int j = n - 1; j >= 0; --j) {  // column j of inv(A) = inv(U)(:, j) - inv(A)(:, j+1:) L(j+1:, j)
    for (int i = tid; i < n; i += T) {
      CT acc = i <= j ? M.get(i, j) : from_real<CT>(R(0));
      for (int k = j + 1; k < n; ++k) acc = msub(acc, M.get(i, k), M.get(k, j));
      w[i] = acc;
    }
    __syncthreads();
    for (int i = tid; i < n; i += T) M.set(i, j, w[i]);
    __syncthreads();
  }
  for (int j = n - 2; j >= 0; --j) {  // column interchanges, last first
    const int jp = piv[j] - 1;
    if (jp != j)
      for (int i = tid; i < n; i += T) {
        const CT x = M.get(i, j);
        M.set(i, j, M.get(i, jp));
        M.set(i, jp, x);
      }
    __syncthreads();
  }
}

template <class S, bool STAGED>
__global__ void __launch_bounds__(kLuSharedThreads, 1) getri_shared(const __grid_constant__ FactorLaunch L) {
  using CT = typename dev<S>::C;
  extern __shared__ __align__(16) unsigned char lu_smem[];
  __shared__ int bad, first_zero;
  for (int64_t u = blockIdx.x; u < L.total_units; u += gridDim.x) {
    const FactorRun &G = run_of<1>(L, u);
    const int64_t p = u - G.unit_begin;
    S *a = operand_at<S>(G.A, p);
    const int *piv = operand_at<int>(G.ipiv, p);
    if (!a || !piv) continue;  // skipped: the whole block moves on
    if (G.keep_codes && ((G.codes && G.codes[p] < 0) || (G.info && G.info[p] < 0))) continue;
    const int n = G.n;
    if (threadIdx.x == 0) bad = 0, first_zero = n;
    __syncthreads();
    // The checks read only ipiv and U's diagonal: a failed problem is left as it was.
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
      if (piv[i] < 1 || piv[i] > n) bad = 1;
      if (is_zero(widen(a[element_index(G.row_major, G.A.ld, i, i)]))) atomicMin(&first_zero, i);
    }
    __syncthreads();
    const int code = bad ? G.bad_pivot_code : first_zero < n ? first_zero + 1 : 0;
    if (threadIdx.x == 0) {
      if (code && G.codes && !(G.keep_codes && G.codes[p])) G.codes[p] = code;
      if (G.info && !(G.keep_codes && G.info[p])) G.info[p] = code;
    }
    if (code == 0) {
      if constexpr (STAGED) {
        const int ld = staged_ld(n);
        const StagedMatrix<S> M{reinterpret_cast<CT *>(lu_smem), ld};
        stage_in(a, G, n, n, M);
        __syncthreads();
        getri_block<S>(M, n, piv, M.a + int64_t(ld) * n);
        stage_out(a, G, n, n, M);
      } else {
        getri_block<S>(GlobalMatrix<S>{a, G.A.ld, G.row_major}, n, piv, reinterpret_cast<CT *>(lu_smem));
      }
    }
    __syncthreads();  // the next problem reuses shared memory and the flags
  }
}

}  // namespace bb::cuda
