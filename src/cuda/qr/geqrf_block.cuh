// geqrf with one thread block per problem (above the register kernels, tall panels included):
// LAPACK's unblocked xgeqr2, the matrix staged in shared memory (kQrShared*) or in place in
// global memory (kQrGlobal). One warp per trailing column computes v^H A(:, c) and applies the
// reflector to that column, so a step needs no barrier between the two.
#pragma once
#include "geqrf_register.cuh"

namespace bb::cuda {

template <class S, class Matrix>
__device__ void geqrf_block(const Matrix &M, int m, int n, S *tau) {
  using CT = typename dev<S>::C;
  using R = real_t<CT>;
  __shared__ R partial[kFactorBlockThreads / 32];
  __shared__ CT step_ctau, step_factor;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, warps = blockDim.x / 32;
  const int mn = m < n ? m : n;
  for (int j = 0; j < mn; ++j) {
    R mine = 0;
    for (int i = j + 1 + tid; i < m; i += blockDim.x) mine += abs2(M.get(i, j));
    const R ssq = block_sum(mine, partial);
    if (tid == 0) {
      auto each = [&](auto &&f) {  // the rare scaled paths only: serial
        for (int i = j + 1; i < m; ++i) {
          CT x = M.get(i, j);
          f(x);
          M.set(i, j, x);
        }
      };
      const Reflector<CT> h = larfg(M.get(j, j), ssq, each);
      const S stored = narrow<S>(h.tau);  // later steps apply the stored tau, as xorgqr will
      tau[j] = stored;
      step_ctau = conj(widen(stored));
      step_factor = h.factor;
      M.set(j, j, from_real<CT>(h.beta));
    }
    __syncthreads();
    const CT ctau = step_ctau, factor = step_factor;
    for (int i = j + 1 + tid; i < m; i += blockDim.x) M.set(i, j, mul(M.get(i, j), factor));
    __syncthreads();
    if (!is_zero(ctau))
      for (int c = j + 1 + warp; c < n; c += warps) {
        CT w = lane == 0 ? M.get(j, c) : from_real<CT>(R(0));
        for (int i = j + 1 + lane; i < m; i += 32) w = madd(w, conj(M.get(i, j)), M.get(i, c));
        const CT f = mul(ctau, warp_sum(w));
        if (lane == 0) M.set(j, c, msub(M.get(j, c), from_real<CT>(R(1)), f));
        for (int i = j + 1 + lane; i < m; i += 32) M.set(i, c, msub(M.get(i, c), M.get(i, j), f));
      }
    __syncthreads();
  }
}

template <class S, bool STAGED>
__global__ void __launch_bounds__(kFactorBlockThreads, 1) geqrf_shared(const __grid_constant__ FactorLaunch L) {
  using CT = typename dev<S>::C;
  extern __shared__ __align__(16) unsigned char qr_smem[];
  for (int64_t u = blockIdx.x; u < L.total_units; u += gridDim.x) {
    const FactorRun &G = run_of<1>(L, u);
    const int64_t p = u - G.unit_begin;
    S *a = operand_at<S>(G.A, p), *tau = operand_at<S>(G.tau, p);
    if (!a || !tau) continue;  // skipped: the whole block moves on
    const int m = G.m, n = G.n;
    if constexpr (STAGED) {
      const StagedMatrix<S> M{reinterpret_cast<CT *>(qr_smem), staged_ld(m)};
      stage_in(a, G, m, n, M);
      __syncthreads();
      geqrf_block<S>(M, m, n, tau);
      stage_out(a, G, m, n, M);
      __syncthreads();  // the next problem restages
    } else {
      geqrf_block<S>(GlobalMatrix<S>{a, G.A.ld, G.row_major}, m, n, tau);
    }
    if (threadIdx.x == 0 && G.info) G.info[p] = 0;
  }
}

}  // namespace bb::cuda
