// getrf with one thread block per problem (sizes above the register kernels where the blocked
// algorithm does not run, and its panels taller than 512 rows): LAPACK's unblocked
// right-looking xgetf2 (pivot search, row interchange, scaling, rank-1 update), the
// matrix staged in shared memory (kLuShared*), or in place in global memory (kLuGlobal) when it
// fits nowhere. Rows are interchanged in place, so positions are LAPACK's at every step.
#pragma once
#include "lu_common.cuh"

namespace bb::cuda {

// pivot_base: added to the pivots written (a panel's first row in the whole matrix); rows: where
// a panel records its pivots' positions for the interchanges outside it (or null).
template <class S, class Matrix>
__device__ void getrf_block(const Matrix &M, int m, int n, int *piv, int &info, int pivot_base, int *rows) {
  using CT = typename dev<S>::C;
  using R = real_t<CT>;
  __shared__ PivotKey<R> partial[kLuSharedThreads / 32];
  __shared__ int pivot_row;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, warps = blockDim.x / 32;
  const int mn = m < n ? m : n;
  const R sfmin = smallest_normal<R>();
  info = 0;
  for (int i = 0; i < mn; ++i) {
    PivotKey<R> best = no_pivot<R>();
    for (int r = i + tid; r < m; r += blockDim.x) {
      const PivotKey<R> k = pivot_key(M.get(r, i), r);
      if (k.beats(best)) best = k;
    }
    best = segment_best<32>(best);
    if (lane == 0) partial[warp] = best;
    __syncthreads();
    if (warp == 0) {
      best = lane < warps ? partial[lane] : no_pivot<R>();
      best = segment_best<32>(best);
      if (lane == 0) {
        pivot_row = best.row, piv[i] = best.row + 1 + pivot_base;
        if (rows) rows[i] = best.row;
      }
    }
    __syncthreads();
    const int pr = pivot_row;
    if (pr != i)
      for (int c = tid; c < n; c += blockDim.x) {
        const CT x = M.get(i, c);
        M.set(i, c, M.get(pr, c));
        M.set(pr, c, x);
      }
    __syncthreads();
    const CT d = M.get(i, i);
    // A zero pivot is not divided by, but its column still updates the rest (xgetf2).
    if (is_zero(d)) {
      if (!info) info = i + 1;
    } else {
      const bool reciprocal = abs1(d) >= sfmin;
      const CT rinv = divide(from_real<CT>(R(1)), d);
      for (int r = i + 1 + tid; r < m; r += blockDim.x)
        M.set(r, i, reciprocal ? mul(M.get(r, i), rinv) : divide(M.get(r, i), d));
      __syncthreads();
    }
    for (int c = i + 1 + warp; c < n; c += warps) {
      const CT u = M.get(i, c);
      for (int r = i + 1 + lane; r < m; r += 32) M.set(r, c, msub(M.get(r, c), M.get(r, i), u));
    }
    __syncthreads();
  }
}

template <class S, bool STAGED>
__global__ void __launch_bounds__(kLuSharedThreads, 1) getrf_shared(const __grid_constant__ FactorLaunch L) {
  using CT = typename dev<S>::C;
  extern __shared__ __align__(16) unsigned char lu_smem[];
  __shared__ int panel_rows[kLuPanelMax];
  for (int64_t u = blockIdx.x; u < L.total_units; u += gridDim.x) {
    const FactorRun &G = run_of<1>(L, u);
    const int64_t p = u - G.unit_begin;
    S *a = operand_at<S>(G.A, p);
    int *piv = operand_at<int>(G.ipiv, p);
    if (!a || !piv) continue;  // skipped: the whole block moves on
    const int m = G.m, n = G.n;
    int info = 0;
    if constexpr (STAGED) {
      const StagedMatrix<S> M{reinterpret_cast<CT *>(lu_smem), staged_ld(m)};
      stage_in(a, G, m, n, M);
      __syncthreads();
      getrf_block<S>(M, m, n, piv, info, G.panel_at, G.panel ? panel_rows : nullptr);
      stage_out(a, G, m, n, M);
    } else {
      getrf_block<S>(GlobalMatrix<S>{a, G.A.ld, G.row_major}, m, n, piv, info, G.panel_at,
                     G.panel ? panel_rows : nullptr);
    }
    __syncthreads();  // panel_rows complete; the next problem restages
    if (G.panel) {
      interchange_outside(a, G, m < n ? m : n, panel_rows);
      if (threadIdx.x == 0 && info) {
        if (G.codes && !G.codes[p]) G.codes[p] = info + G.panel_at;
        if (G.info && !G.info[p]) G.info[p] = info + G.panel_at;
      }
      __syncthreads();  // panel_rows are the next problem's
    } else if (threadIdx.x == 0) {
      if (info && G.codes) G.codes[p] = info;
      if (G.info) G.info[p] = info;
    }
  }
}

}  // namespace bb::cuda
