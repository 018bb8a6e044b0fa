// getrf for m, n <= K with each matrix row split over two threads: two warps per problem, warp
// `half` holding columns half * K/2 .. half * K/2 + K/2 - 1 of every row. In c64 at K = 32 a
// whole row is 64 registers of data, and getrf_register's one thread a row (202 registers) ran
// at an eighth of an SM's warps (lu_tuning.hpp, lu_split_register, says where this kernel is
// taken and what it gained). Half a row a thread doubles the warps an SM holds and halves each
// step's longest update chain.
//
// Steps 0 .. K/2-1: warp 0 owns column i: it searches the pivot (getrf_register_steps' rule
// and lazy swaps), computes the multipliers and hands the pivot's position and every row's
// multiplier to warp 1 through shared memory (double-buffered by the step's parity, so one
// barrier of the pair a step suffices); warp 1 applies them to its columns meanwhile warp 0
// updates its own. Steps K/2 .. : warp 1 alone (warp 0's columns are final); it records the
// pivots for warp 0, which replays them after one barrier to learn where its rows end. Both
// warps write their halves of each row straight to the final place, as getrf_register does.
#pragma once
#include "getrf_register.cuh"

namespace bb::cuda {

template <class S, int K>
struct GetrfSplitShape {
  using CT = typename dev<S>::C;
  static constexpr int H = K / 2;                                   // columns a thread holds
  static constexpr int PAIRS = lu_warps_per_block(lu_register_config(K));  // problems a block
  static constexpr int THREADS = 64 * PAIRS;
  // Data plus 64: c64 128, two blocks of eight warps an SM.
  static constexpr int REGS = H * int(sizeof(CT)) / 4 + 64;
  static constexpr int MIN_BLOCKS = 65536 / (THREADS * REGS) > 0 ? 65536 / (THREADS * REGS) : 1;
  static_assert(PAIRS <= 15 && THREADS <= 1024, "a named barrier per pair: ids 1..15");
};

// The two warps of pair `pair` meet (named barrier 1 + pair; 0 is __syncthreads').
__device__ __forceinline__ void pair_barrier(int pair) {
  asm volatile("bar.sync %0, 64;" ::"r"(pair + 1) : "memory");
}

template <class S, int K>
__global__ void __launch_bounds__(GetrfSplitShape<S, K>::THREADS, GetrfSplitShape<S, K>::MIN_BLOCKS)
    getrf_register_split(const __grid_constant__ FactorLaunch L) {
  using Shape = GetrfSplitShape<S, K>;
  using CT = typename dev<S>::C;
  static_assert(K == 32, "one problem per pair of warps: a row per lane");
  constexpr int H = Shape::H, PAIRS = Shape::PAIRS;
  const int warp = threadIdx.x / 32, pair = warp / 2, half = warp % 2, t = threadIdx.x % 32;
  __shared__ __align__(16) CT pivot_rows[PAIRS][2][H];  // each warp's half of the pivot row
  __shared__ CT multipliers[PAIRS][2][32];              // warp 0 -> warp 1, by step parity
  __shared__ int pivots[PAIRS][K];                      // the pivot's position of every step
  __shared__ int late_info[PAIRS];                      // warp 1's first zero pivot
  CT *pivot_row_buf = pivot_rows[pair][half];
  // A unit is one problem; both warps of the pair leave the loop together.
  for (int64_t u = int64_t(blockIdx.x) * PAIRS + pair; u < L.total_units; u += int64_t(gridDim.x) * PAIRS) {
    const FactorRun &G = run_of<PAIRS>(L, u);
    const int64_t p = u - G.unit_begin;
    const int m = G.m, n = G.n, mn = m < n ? m : n, ld = G.A.ld;
    const bool rm = G.row_major;
    S *a = nullptr;
    int *piv = nullptr;
    if (p < G.problems) a = operand_at<S>(G.A, p), piv = operand_at<int>(G.ipiv, p);
    const bool active = a && piv;
    const bool has_row = active && t < m;
    const int col0 = half * H;
    const int64_t step = rm ? 1 : ld;
    const S *row = a + (rm ? int64_t(t) * ld : t) + col0 * step;
    CT r[H];
#pragma unroll
    for (int j = 0; j < H; ++j) r[j] = has_row && col0 + j < n ? widen(row[j * step]) : widen(zero<S>());

    int cur = t, info = 0, my_piv = 0;
    bool done = !has_row;
    const int first_steps = mn < H ? mn : H;
#pragma unroll
    for (int i = 0; i < H; ++i) {
      if (i >= first_steps) break;  // the same for the whole pair
      const int slot = i & 1;
      if (half == 0) {
        CT l = r[i];  // what warp 1 reads for rows already done is never used
        const int prow = getrf_step_pivot<32>(r, i, i, t, pivot_row_buf, cur, done, info, my_piv, l);
        multipliers[pair][slot][t] = l;
        if (t == 0) pivots[pair][i] = prow;
        pair_barrier(pair);
        if (!done) update_row<H>(r, l, pivot_row_buf, i);
      } else {
        pair_barrier(pair);
        const int prow = pivots[pair][i];
        const bool is_pivot = !done && cur == prow;
        if (is_pivot) store_row<H>(pivot_row_buf, r, 0);
        __syncwarp();
        if (is_pivot) cur = i, done = true;
        else if (!done && cur == i) cur = prow;
        if (!done) {
          const CT l = multipliers[pair][slot][t];
          // Every column of this half lies right of column i.
#pragma unroll
          for (int j = 0; j < H; ++j) r[j] = msub(r[j], l, pivot_row_buf[j]);
        }
      }
      __syncwarp();  // the next step's pivot row overwrites this one
    }
    if (half == 1) {
#pragma unroll
      for (int ii = 0; ii < H; ++ii) {
        const int i = H + ii;
        if (i >= mn) break;
        CT l;
        const int prow = getrf_step_pivot<32>(r, ii, i, t, pivot_row_buf, cur, done, info, my_piv, l);
        if (t == 0) pivots[pair][i] = prow;
        if (!done) update_row<H>(r, l, pivot_row_buf, ii);
        __syncwarp();
      }
      if (t == 0) late_info[pair] = info;
    }
    pair_barrier(pair);
    if (half == 0) {
      // Warp 1's steps: where this warp's rows went, and their ipiv entries.
      for (int i = H; i < mn; ++i) {
        const int prow = pivots[pair][i];
        if (t == i) my_piv = prow + 1;
        if (!done && cur == prow) cur = i, done = true;
        else if (!done && cur == i) cur = prow;
      }
      if (!info) info = late_info[pair];
    }

    S *out = a + (rm ? int64_t(cur) * ld : cur) + col0 * step;
    if (has_row)
#pragma unroll
      for (int j = 0; j < H; ++j)
        if (col0 + j < n) out[j * step] = narrow<S>(r[j]);
    if (half == 0) {
      if (active && t < mn) piv[t] = my_piv;
      if (active && t == 0) {
        if (info && G.codes) G.codes[p] = info;
        if (G.info) G.info[p] = info;
      }
    }
    // A margin, not a need today: every problem has a step, whose barrier already keeps warp 1
    // from overwriting pivots[] and late_info before warp 0 has replayed them.
    pair_barrier(pair);
  }
}

}  // namespace bb::cuda
