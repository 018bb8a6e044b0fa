// getrf_register with its step loop rolled (an experiment, BLAS_BATCHED_LU_ROLLED=1): the same
// threads, rows, pivot rule, lazy swaps and arithmetic, but a kernel of a few KB instead of
// getrf_register's fully unrolled steps (c64 K = 32: 229 KB of SASS, far past an SM's
// instruction caches; bench/results/NOTES-lu.md, thirtieth session). At each step a thread's
// register row starts at the step's column: the two columns of a pair of steps are finished
// into shared memory (column-major over the lanes: no bank conflict), and the row shifts by
// two. Every step updates all the row's remaining registers (the dead ones past the matrix hold
// zeros, as getrf_register's columns past n do): up to twice the multiply-adds, which these
// kernels can afford if they wait on instruction fetch.
#pragma once
#include "getrf_register.cuh"

namespace bb::cuda {

template <class S, int K>
struct GetrfRolledShape {
  using CT = typename dev<S>::C;
  using Base = GetrfRegisterShape<S, K>;
  static constexpr int WPB = Base::WPB, THREADS = Base::THREADS, MIN_BLOCKS = Base::MIN_BLOCKS;
  // The finished columns: K per thread, element j of lane l of warp w at [j][w * 32 + l].
  static constexpr int shared_bytes() { return K * THREADS * int(sizeof(CT)); }
};

// One step on the thread's row, whose register q holds the step's column i.
template <int K, int q, class CT>
__device__ __forceinline__ void rolled_step(CT (&r)[K], int i, int t, CT *pivot_row_buf, int &cur, bool &done,
                                            int &info, int &my_piv) {
  CT l;
  getrf_step_pivot<K>(r, q, i, t, pivot_row_buf, cur, done, info, my_piv, l);
  if (!done) update_row<K>(r, l, pivot_row_buf, q);
  __syncwarp();  // the next step's pivot row overwrites this one
}

template <class S, int K>
__global__ void __launch_bounds__(GetrfRolledShape<S, K>::THREADS, GetrfRolledShape<S, K>::MIN_BLOCKS)
    getrf_register_rolled(const __grid_constant__ FactorLaunch L) {
  using Shape = GetrfRolledShape<S, K>;
  using CT = typename dev<S>::C;
  constexpr int WPB = Shape::WPB, PPW = 32 / K, THREADS = Shape::THREADS;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, q = lane / K, t = lane % K;
  __shared__ __align__(16) CT pivot_rows[WPB][32];
  extern __shared__ __align__(16) unsigned char rolled_shared[];
  CT *finished = reinterpret_cast<CT *>(rolled_shared) + threadIdx.x;  // column j at finished[j * THREADS]
  CT *pivot_row_buf = pivot_rows[warp] + q * K;
  for (int64_t u = int64_t(blockIdx.x) * WPB + warp; u < L.total_units; u += int64_t(gridDim.x) * WPB) {
    const FactorRun &G = run_of<WPB>(L, u);
    const int64_t p = (u - G.unit_begin) * PPW + q;
    const int m = G.m, n = G.n, mn = m < n ? m : n, ld = G.A.ld;
    const bool rm = G.row_major;
    S *a = nullptr;
    int *piv = nullptr;
    if (p < G.problems) a = operand_at<S>(G.A, p), piv = operand_at<int>(G.ipiv, p);
    const bool active = a && piv;
    const bool has_row = active && t < m;
    const S *row = a + (rm ? int64_t(t) * ld : t);
    const int64_t step = rm ? 1 : ld;
    CT r[K];
#pragma unroll
    for (int j = 0; j < K; ++j) r[j] = has_row && j < n ? widen(row[j * step]) : widen(zero<S>());

    int cur = t, info = 0, my_piv = 0;
    bool done = !has_row;
    int i = 0;  // the column in r[0]
    // Every problem of the warp has the same mn (one run per warp): the loop is uniform.
#pragma unroll 1
    for (; i < mn; i += 2) {
      rolled_step<K, 0>(r, i, t, pivot_row_buf, cur, done, info, my_piv);
      if (i + 1 < mn) rolled_step<K, 1>(r, i + 1, t, pivot_row_buf, cur, done, info, my_piv);
      finished[i * THREADS] = r[0];
      finished[(i + 1) * THREADS] = r[1];  // i even, i + 1 <= K - 1 (an odd mn's column mn: unused when mn = n)
#pragma unroll
      for (int j = 0; j + 2 < K; ++j) r[j] = r[j + 2];
      r[K - 2] = r[K - 1] = widen(zero<S>());
    }
    // The columns right of the last step (wide problems): r[j] is column i + j.
#pragma unroll
    for (int j = 0; j < K; ++j)
      if (i + j < n) finished[(i + j) * THREADS] = r[j];

    S *out = a + (rm ? int64_t(cur) * ld : cur);
    if (has_row)
      for (int j = 0; j < n; ++j) out[j * step] = narrow<S>(finished[j * THREADS]);
    if (active && t < mn) piv[t] = my_piv;
    if (active && t == 0) {
      if (info && G.codes) G.codes[p] = info;
      if (G.info) G.info[p] = info;
    }
  }
}

}  // namespace bb::cuda
