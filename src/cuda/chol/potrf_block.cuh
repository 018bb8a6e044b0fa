// potrf with one thread block per problem (n above the register kernels): right-looking
// unblocked Cholesky (LAPACK's xpotf2 order of columns) on L (L = U^H for Upper), the referenced
// triangle staged in shared memory (kCholShared*) or in place in global memory (kCholGlobal).
#pragma once
#include "potrf_register.cuh"

namespace bb::cuda {

// L of a problem in place in global memory, through the conjugate transpose for Upper.
template <class S>
struct GlobalFactor {
  using CT = typename dev<S>::C;
  S *a;
  const FactorRun *G;
  __device__ __forceinline__ CT get(int i, int j) const { return conj_if(!G->lower, widen(a[factor_index(*G, i, j)])); }
  __device__ __forceinline__ void set(int i, int j, CT v) const { a[factor_index(*G, i, j)] = narrow<S>(conj_if(!G->lower, v)); }
};

// Factors M's lower triangle; returns info (then column info-1 holds its failed diagonal and
// the columns after it are unspecified).
template <class Matrix>
__device__ int potrf_block(const Matrix &M, int n) {
  using CT = decltype(M.get(0, 0));
  using R = real_t<CT>;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, warps = blockDim.x / 32;
  for (int j = 0; j < n; ++j) {
    const R d = real_of(M.get(j, j));
    __syncthreads();  // everyone has read the diagonal before it changes
    if (!(d > R(0))) {
      if (tid == 0) M.set(j, j, from_real<CT>(d));
      return j + 1;
    }
    const R s = sqrt_of(d), rinv = R(1) / s;
    if (tid == 0) M.set(j, j, from_real<CT>(s));
    for (int i = j + 1 + tid; i < n; i += blockDim.x) M.set(i, j, scale_by(M.get(i, j), rinv));
    __syncthreads();
    for (int c = j + 1 + warp; c < n; c += warps) {
      const CT l = conj(M.get(c, j));
      for (int i = c + lane; i < n; i += 32) M.set(i, c, msub(M.get(i, c), M.get(i, j), l));
    }
    __syncthreads();
  }
  return 0;
}

template <class S, bool STAGED>
__global__ void __launch_bounds__(kFactorBlockThreads, 1) potrf_shared(const __grid_constant__ FactorLaunch L) {
  using CT = typename dev<S>::C;
  extern __shared__ __align__(16) unsigned char chol_smem[];
  for (int64_t u = blockIdx.x; u < L.total_units; u += gridDim.x) {
    const FactorRun &G = run_of<1>(L, u);
    const int64_t p = u - G.unit_begin;
    S *a = operand_at<S>(G.A, p);
    if (!a) continue;  // skipped: the whole block moves on
    const int n = G.n;
    int info;
    if constexpr (STAGED) {
      const StagedMatrix<S> M{reinterpret_cast<CT *>(chol_smem), staged_ld(n)};
      // The referenced triangle only, as L; the diagonal's imaginary part is ignored.
      for_each_element(G.row_major, n, n, [&](int i, int j) {
        if (G.lower ? i < j : i > j) return;
        const CT v = widen(a[element_index(G.row_major, G.A.ld, i, j)]);
        if (i == j) M.set(i, i, from_real<CT>(real_of(v)));
        else if (G.lower) M.set(i, j, v);
        else M.set(j, i, conj(v));
      });
      __syncthreads();
      info = potrf_block(M, n);
      __syncthreads();
      // Columns after a failure stay as they were (the host path's choice).
      const int columns = info ? info : n;
      for_each_element(G.row_major, n, n, [&](int i, int j) {
        if (G.lower ? (i < j || j >= columns) : (i > j || i >= columns)) return;
        a[element_index(G.row_major, G.A.ld, i, j)] = narrow<S>(G.lower ? M.get(i, j) : conj(M.get(j, i)));
      });
      __syncthreads();  // the next problem restages
    } else {
      info = potrf_block(GlobalFactor<S>{a, &G}, n);
      __syncthreads();
    }
    if (threadIdx.x == 0) {
      if (info && G.codes) G.codes[p] = info;
      if (G.info) G.info[p] = info;
    }
  }
}

}  // namespace bb::cuda
