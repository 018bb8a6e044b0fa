// The panel of the blocked getrf (getrf_blocked in lu.cu): an m x jb panel (m <= 512, jb <= K, K its width)
// with a row per thread of a block of as many warps as the rows need (short panels leave room
// for more blocks), each row's K entries in registers. LAPACK's xgetf2 steps with two block
// barriers each: the pivot (LAPACK's rule: warp reductions, then every thread over the warps'
// partials), then the pivot row's broadcast through shared memory. Rows never move during the
// steps: each thread follows its row's position under the interchanges and writes the row once,
// to its final place (as the register kernels do); the columns outside the panel then get the
// same permutation, each column's reads before its writes (no chain of dependent swaps).
#pragma once
#include "lu_common.cuh"

namespace bb::cuda {

// The panel's row permutation on the columns outside it (the panel_at before it and the
// columns_right after): moves[k] = {to, from}, count of them. Columns are disjoint, so each is
// handled by kLanes lanes of one warp that read all of its moved rows into registers before
// any is written (the moves form cycles): no block barrier, and a lane's loads all in flight at
// once (through a generic pointer they could not pass a store to shared memory). Row-major:
// lanes kLanes apart (one a column) read adjacent elements of a row.
template <class S, int kMaxMoves>
__device__ void permute_outside(S *a, const FactorRun &G, const int2 *moves, int count) {
  // Lanes a column, each with its share of the moved rows (a share of 32 registers spilled under
  // the 128 that 512 threads a block leave).
  constexpr int kLaneBytes = lu_panel_permute_lane_bytes(int(sizeof(real_t<typename dev<S>::C>)));
  constexpr int kColumnBytes = int(sizeof(S)) * kMaxMoves;
  constexpr int kLanes = kColumnBytes > kLaneBytes ? kColumnBytes / kLaneBytes : 1, kShare = kMaxMoves / kLanes;
  static_assert(kMaxMoves % kLanes == 0 && 32 % kLanes == 0);
  const int outside = G.panel_at + G.columns_right, part = threadIdx.x % kLanes;
  const int64_t row_step = G.row_major ? G.A.ld : 1, column_step = G.row_major ? 1 : G.A.ld;
  const int per_pass = blockDim.x / kLanes;  // blockDim.x: whole warps
  for (int first = 0; first < outside; first += per_pass) {
    const int t = first + int(threadIdx.x) / kLanes;
    const bool mine = t < outside;
    const int column = t < G.panel_at ? t - G.panel_at : G.n + (t - G.panel_at);  // relative to the panel
    S *line = a + column * column_step;
    S cell[kShare];
#pragma unroll
    for (int c = 0; c < kShare; ++c) {
      const int k = c * kLanes + part;
      if (mine && k < count) cell[c] = line[moves[k].y * row_step];
    }
    if constexpr (kLanes > 1) __syncwarp();
#pragma unroll
    for (int c = 0; c < kShare; ++c) {
      const int k = c * kLanes + part;
      if (mine && k < count) line[moves[k].x * row_step] = cell[c];
    }
  }
}

template <class S, int K>
__global__ void __launch_bounds__(kLuPanelThreads, 1) getrf_panel(const __grid_constant__ FactorLaunch L) {
  using CT = typename dev<S>::C;
  using Re = real_t<CT>;
  constexpr int kMaxWarps = kLuPanelThreads / 32, kMaxMoves = 2 * K;
  // A step writes each after the barrier that ends the previous step's reads of it.
  __shared__ PivotKey<Re> partial[kMaxWarps];
  __shared__ CT pivot_line[K];
  __shared__ int2 moves[kMaxMoves];
  __shared__ int move_count;
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, warps = blockDim.x / 32;
  const Re sfmin = smallest_normal<Re>();
  for (int64_t u = blockIdx.x; u < L.total_units; u += gridDim.x) {
    const FactorRun &G = run_of<1>(L, u);
    const int64_t p = u - G.unit_begin;
    S *a = operand_at<S>(G.A, p);
    int *piv = operand_at<int>(G.ipiv, p);
    if (!a || !piv) continue;  // skipped: the whole block moves on
    const int m = G.m, jb = G.n;
    const bool has_row = tid < m;
    int pos = tid;  // the row's current position in LAPACK's order
    CT v[K];
    const int64_t along = G.row_major ? 1 : G.A.ld;  // between a row's elements
    {
      const S *in = a + (G.row_major ? int64_t(tid) * G.A.ld : tid);  // a moving pointer: no 64-bit product an element
#pragma unroll
      for (int c = 0; c < K; ++c, in += along) v[c] = has_row && c < jb ? widen(*in) : CT{};
    }
    if (tid == 0) move_count = 0;
    int info = 0;
#pragma unroll
    for (int i = 0; i < K; ++i) {
      // A test, not a break: a loop with a barrier and a break stays rolled, and v would go
      // to local memory.
      if (i < jb) {
        PivotKey<Re> best = has_row && pos >= i ? pivot_key(v[i], pos) : no_pivot<Re>();
        best = segment_best<32>(best);
        if (lane == 0) partial[warp] = best;
        __syncthreads();
        best = partial[0];
        for (int w = 1; w < warps; ++w)
          if (partial[w].beats(best)) best = partial[w];
        const int pr = best.row;  // the pivot's position; row i's owner takes it
        if (has_row && pos == pr) {
#pragma unroll
          for (int c = i; c < K; ++c) pivot_line[c] = v[c];
          pos = i;
        } else if (has_row && pos == i) {
          pos = pr;
        }
        if (tid == 0) piv[i] = pr + 1 + G.panel_at;
        __syncthreads();
        const CT d = pivot_line[i];
        // A zero pivot is not divided by, but its column still updates the rest (xgetf2).
        const bool zero = is_zero(d), reciprocal = abs1(d) >= sfmin;
        if (zero && !info) info = i + 1;
        if (has_row && pos > i) {
          CT l = v[i];
          if (!zero) l = reciprocal ? mul(l, divide(from_real<CT>(Re(1)), d)) : divide(l, d);
          v[i] = l;
#pragma unroll
          for (int c = i + 1; c < K; ++c) v[c] = msub(v[c], l, pivot_line[c]);
        }
      }
    }
    if (has_row) {
      S *out = a + (G.row_major ? int64_t(pos) * G.A.ld : pos);
#pragma unroll
      for (int c = 0; c < K; ++c, out += along)
        if (c < jb) *out = narrow<S>(v[c]);
      if (pos != tid) moves[atomicAdd(&move_count, 1)] = make_int2(pos, tid);  // at most 2 jb rows move
    }
    __syncthreads();
    permute_outside<S, kMaxMoves>(a, G, moves, move_count);
    if (tid == 0 && info) {
      if (G.codes && !G.codes[p]) G.codes[p] = info + G.panel_at;
      if (G.info && !G.info[p]) G.info[p] = info + G.panel_at;
    }
    __syncthreads();  // shared memory is the next problem's
  }
}

}  // namespace bb::cuda
