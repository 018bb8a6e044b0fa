// The panel of the blocked getrf (getrf_blocked in lu.cu): an m x jb panel (m <= lu_panel_max_threads: 512, 256 for c64 at K = 32; jb <= K, K its width)
// with a row per thread of a block of as many warps as the rows need (short panels leave room
// for more blocks), each row's K entries in registers (K / 2 in HALVES, c64's panels of up to 128 rows). LAPACK's xgetf2 steps with two block
// barriers each: the pivot (LAPACK's rule as pivot_row's packed keys: warp reductions by
// __reduce_*_sync, then each warp over the warps' results the same way; block_pivot_row), then
// the pivot row's broadcast through shared memory. Rows never move during the steps: each
// thread follows its row's position under the interchanges and writes the row once, to its
// final place (as the register kernels do; rolled row-major panels read and write the rows
// through shared memory, K lanes along each row: lu_panel_rows_in_async); the columns
// outside the panel then get the same permutation, each column's reads before its writes (no
// chain of dependent swaps).
// Two forms (lu_panel_rolled_takes): every step unrolled, or the steps in loops over pairs with
// the finished columns in shared memory (a third of the code or less; H200 measurements in
// lu_tuning.hpp).
#pragma once
#include "../async_copy.cuh"
#include "lu_common.cuh"

namespace bb::cuda {

// The panel's row permutation on the columns outside it (panel_outside_column: the columns_left before it and the
// columns_right after): moves[k] = {to, from}, count of them. Columns are disjoint, so each is
// handled by kLanes lanes of one warp that read all of its moved rows into registers before
// any is written (the moves form cycles): no block barrier. A lane reads the rows of kPasses
// columns, one per pass of the block over the columns, before it writes any
// (lu_panel_permute_passes). Row-major: lanes kLanes apart (one a column) read adjacent
// elements of a row.
// Lanes a column in both permutations, each with its share of the moved rows (a share of 32
// registers spilled under the 128 that 512 threads a block leave).
template <class S, int kMaxMoves>
struct PermuteLanes {
  static constexpr int kLaneBytes = lu_panel_permute_lane_bytes(int(sizeof(real_t<typename dev<S>::C>)));
  static constexpr int kColumnBytes = int(sizeof(S)) * kMaxMoves;
  static constexpr int kLanes = kColumnBytes > kLaneBytes ? kColumnBytes / kLaneBytes : 1, kShare = kMaxMoves / kLanes;
  static_assert(kMaxMoves % kLanes == 0 && 32 % kLanes == 0);
};

template <class S, int kMaxMoves, int kPasses>
__device__ void permute_outside(S *a, const FactorRun &G, const int2 *moves, int count) {
  // A lane holds kPasses shares.
  constexpr int kLanes = PermuteLanes<S, kMaxMoves>::kLanes, kShare = PermuteLanes<S, kMaxMoves>::kShare;
  const int outside = panel_outside_count(G), part = threadIdx.x % kLanes;
  const int64_t row_step = G.row_major ? G.A.ld : 1, column_step = G.row_major ? 1 : G.A.ld;
  const int per_pass = blockDim.x / kLanes;  // blockDim.x: whole warps
  for (int first = 0; first < outside; first += per_pass * kPasses) {
    S cell[kPasses][kShare];
    S *line[kPasses];
#pragma unroll
    for (int g = 0; g < kPasses; ++g) {
      const int t = first + g * per_pass + int(threadIdx.x) / kLanes;
      const int column = panel_outside_column(G, t);
      line[g] = t < outside ? a + column * column_step : nullptr;
#pragma unroll
      for (int c = 0; c < kShare; ++c) {
        const int k = c * kLanes + part;
        if (line[g] && k < count) cell[g][c] = line[g][moves[k].y * row_step];
      }
    }
    if constexpr (kLanes > 1) __syncwarp();
#pragma unroll
    for (int g = 0; g < kPasses; ++g)
#pragma unroll
      for (int c = 0; c < kShare; ++c) {
        const int k = c * kLanes + part;
        if (line[g] && k < count) line[g][moves[k].x * row_step] = cell[g][c];
      }
  }
}

// The same through shared memory (the rolled form's finished columns, free once the rows are
// written): each moved element an asynchronous copy into the thread's own kSlots slots (slot
// s at stage[s * blockDim.x]), so that as many passes as the slots hold have their reads in
// flight at once without registers; then the writes from there.
template <class S, int kMaxMoves, int kSlots>
__device__ void permute_outside_staged(S *a, const FactorRun &G, const int2 *moves, int count, S *stage) {
  constexpr int kLanes = PermuteLanes<S, kMaxMoves>::kLanes, kShare = PermuteLanes<S, kMaxMoves>::kShare;
  constexpr int kPasses = kSlots / kShare;
  static_assert(kPasses >= 1);
  const int outside = panel_outside_count(G), part = threadIdx.x % kLanes;
  const int64_t row_step = G.row_major ? G.A.ld : 1, column_step = G.row_major ? 1 : G.A.ld;
  const int per_pass = blockDim.x / kLanes, stride = blockDim.x;
  stage += threadIdx.x;
  for (int first = 0; first < outside; first += per_pass * kPasses) {
#pragma unroll
    for (int g = 0; g < kPasses; ++g) {
      const int t = first + g * per_pass + int(threadIdx.x) / kLanes;
      if (t >= outside) break;
      const S *line = a + panel_outside_column(G, t) * column_step;
#pragma unroll
      for (int c = 0; c < kShare; ++c) {
        const int k = c * kLanes + part;
        if (k < count) copy_async(stage + (g * kShare + c) * stride, line + moves[k].y * row_step);
      }
    }
    wait_async_copies();
    if constexpr (kLanes > 1) __syncwarp();
#pragma unroll
    for (int g = 0; g < kPasses; ++g) {
      const int t = first + g * per_pass + int(threadIdx.x) / kLanes;
      if (t >= outside) break;
      S *line = a + panel_outside_column(G, t) * column_step;
#pragma unroll
      for (int c = 0; c < kShare; ++c) {
        const int k = c * kLanes + part;
        if (k < count) line[moves[k].x * row_step] = stage[(g * kShare + c) * stride];
      }
    }
    // A lane's next copies land in its own slots only: its reads of them above stay before (the
    // copies' asm declares no memory).
    asm volatile("" ::: "memory");
  }
}

// What a panel step needs besides the thread's row: the block's shared areas, the thread's
// place, and the problem's pivots and first zero pivot.
template <class CT>
struct PanelStep {
  using Re = real_t<CT>;
  uint64_t *partial_key;  // a warp's best (block_pivot_row)
  int *partial_row;
  CT *pivot_line;         // the pivot row, indexed as the thread's row registers
  int *piv;
  int panel_at, tid, lane, warp, warps;
  bool has_row;
  Re sfmin;
  int pos;   // the row's current position in LAPACK's order
  int info;  // the first zero pivot (1-based), or 0
};

// Step i of xgetf2 (two block barriers): the thread's row holds column i in r[q] and the columns
// after it in r[q + 1 ..] (r[c] is column i - q + c). Both forms call it with q and the
// registers' indices known at compile time.
template <int W, class CT>
__device__ __forceinline__ void panel_step(CT (&r)[W], const int q, const int i, PanelStep<CT> &P) {
  using Re = real_t<CT>;
  // The pivot's position; row i's owner takes it.
  const int pr = block_pivot_row(abs1(r[q]), P.has_row && P.pos >= i, P.pos, P.partial_key, P.partial_row, P.lane,
                                 P.warp, P.warps);
  if (P.has_row && P.pos == pr) {
#pragma unroll
    for (int c = q; c < W; ++c) P.pivot_line[c] = r[c];
    P.pos = i;
  } else if (P.has_row && P.pos == i) {
    P.pos = pr;
  }
  if (P.tid == 0) P.piv[i] = pr + 1 + P.panel_at;
  __syncthreads();
  const CT d = P.pivot_line[q];
  // A zero pivot is not divided by, but its column still updates the rest (xgetf2).
  const bool zero = is_zero(d), reciprocal = abs1(d) >= P.sfmin;
  if (zero && !P.info) P.info = i + 1;
  if (P.has_row && P.pos > i) {
    CT l = r[q];
    if (!zero) l = reciprocal ? mul(l, divide(from_real<CT>(Re(1)), d)) : divide(l, d);
    r[q] = l;
#pragma unroll
    for (int c = q + 1; c < W; ++c) r[c] = msub(r[c], l, P.pivot_line[c]);
  }
}

// The rolled form's steps from column i on a row of W live registers (r[j]: column i + j): pairs
// of steps in a loop, the pair's two finished columns into the thread's slots of shared memory
// (column j at finished[j * stride]) and the row shifted by two; once the columns left fit the
// next width, its narrower loop goes on (as getrf_register_rolled.cuh does). jb is the block's:
// the loops and their barriers are uniform.
template <int W, int K, class CT>
__device__ __forceinline__ void panel_rolled_steps(CT (&row)[K], int &i, const int jb, CT *finished, const int stride,
                                                   PanelStep<CT> &P) {
  static_assert(W >= 2 && W <= K, "a pair of steps needs two registers");
  CT(&r)[W] = *reinterpret_cast<CT(*)[W]>(&row);
  constexpr int NEXT = W > kLuRolledWidthStep ? W - kLuRolledWidthStep : 0;
#pragma unroll 1
  for (; i < jb && jb - i > NEXT; i += 2) {
    panel_step(r, 0, i, P);
    if (i + 1 < jb) panel_step(r, 1, i + 1, P);
    finished[i * stride] = r[0];
    finished[(i + 1) * stride] = r[1];  // i + 1 <= K - 1: K even
#pragma unroll
    for (int j = 0; j + 2 < W; ++j) r[j] = r[j + 2];
    r[W - 2] = r[W - 1] = CT{};
  }
  if constexpr (NEXT > 0) panel_rolled_steps<NEXT>(row, i, jb, finished, stride, P);
}

// HALVES: after the left half's H steps, the right half's columns get those
// steps' updates in xgetf2's order, from the thread's own slots (columns H.. at finished[c *
// stride]) into the row's H registers. Rows stay with their threads, so round k's pivot row is
// the thread of final position k, which has had rounds < k; every row of final position > k
// was live at step k and holds its multiplier in slot k. Each element thus sees xgetf2's
// operations in xgetf2's order. Two lines, one barrier a round.
template <int H, class CT>
__device__ __forceinline__ void panel_right_half_rounds(CT (&r)[H], const CT *finished, const int stride, CT (*lines)[H],
                                                        const PanelStep<CT> &P) {
#pragma unroll
  for (int c = 0; c < H; ++c) r[c] = P.has_row ? finished[(H + c) * stride] : CT{};
#pragma unroll 1
  for (int k = 0; k < H; ++k) {
    CT *line = lines[k & 1];
    if (P.has_row && P.pos == k) {
#pragma unroll
      for (int c = 0; c < H; ++c) line[c] = r[c];
    }
    __syncthreads();  // this line's last readers (round k - 2) are past round k - 1's barrier
    if (P.has_row && P.pos > k) {
      const CT l = finished[k * stride];
#pragma unroll
      for (int c = 0; c < H; ++c) r[c] = msub(r[c], l, line[c]);
    }
  }
}

// ROLLED: the steps in loops over pairs (panel_rolled_steps; lu_panel_rolled_shared_bytes of
// dynamic shared memory hold the finished columns), else every step unrolled. PASSES: permute_outside's
// (lu_panel_permute_passes). STAGED (rolled only): permute_outside_staged instead (lu_panel_staged).
// ROW_MAJOR: whether row-major runs take their rows through the shared stage (false: c64's
// column-major instance, lu_panel_column_major_instance; a row-major run there still computes
// right, a thread a row, on less shared memory). HALVES (rolled only; lu_panel_halves): a row holds K / 2
// registers, the right half waiting in the thread's finished slots (panel_right_half_rounds).
template <class S, int K, bool ROLLED, int PASSES, bool STAGED = false, bool ROW_MAJOR = true, bool HALVES = false>
__global__ void __launch_bounds__(HALVES ? kLuPanelHalvesMaxThreads : lu_panel_max_threads(int(sizeof(typename dev<S>::C)), K),
                                  HALVES ? kLuPanelHalvesMinBlocks : 1)
    getrf_panel(const __grid_constant__ FactorLaunch L) {
  using CT = typename dev<S>::C;
  using Re = real_t<CT>;
  static_assert(K % 2 == 0, "pairs of steps");
  static_assert(!HALVES || (ROLLED && K % 4 == 0), "halves: rolled, pairs of steps in each");
  constexpr int kLive = HALVES ? K / 2 : K;  // a row's registers
  __shared__ CT half_lines[HALVES ? 2 : 1][kLive];
  constexpr int kMaxWarps = kLuPanelThreads / 32, kMaxMoves = 2 * K;
  static_assert(kMaxWarps <= 32, "block_pivot_row: a lane per warp's result");
  // A step writes each after the barrier that ends the previous step's reads of it.
  __shared__ uint64_t partial_key[kMaxWarps];
  __shared__ int partial_row[kMaxWarps];
  __shared__ CT pivot_line[K];
  __shared__ int2 moves[kMaxMoves];
  __shared__ int move_count;
  extern __shared__ __align__(16) unsigned char panel_shared[];
  CT *finished = reinterpret_cast<CT *>(panel_shared) + threadIdx.x;  // ROLLED: column j at finished[j * stride]
  const int tid = threadIdx.x;
  for (int64_t u = blockIdx.x; u < L.total_units; u += gridDim.x) {
    const FactorRun &G = run_of<1>(L, u);
    const int64_t p = u - G.unit_begin;
    S *a = operand_at<S>(G.A, p);
    int *piv = operand_at<int>(G.ipiv, p);
    if (!a || !piv) continue;  // skipped: the whole block moves on
    const int m = G.m, jb = G.n;
    PanelStep<CT> P{partial_key, partial_row, pivot_line, piv, G.panel_at, tid, tid % 32, tid / 32, int(blockDim.x / 32),
                    tid < m, smallest_normal<Re>(), tid, 0};
    CT v[kLive];
    const int64_t along = G.row_major ? 1 : G.A.ld;  // between a row's elements
    // ROLLED in row-major: the panel's rows in and out through the finished columns' shared
    // memory (finished == stage + tid), K lanes along each row (lu_panel_rows_in_async); column
    // j of thread t at stage[j * stride + t], padded so that a row's accesses fall in distinct banks.
    const bool rows_through_shared = ROLLED && ROW_MAJOR && G.row_major;
    const int stride = int(blockDim.x) + (rows_through_shared ? 1 : 0);
    CT *const stage = reinterpret_cast<CT *>(panel_shared);
    if (rows_through_shared) {
      if constexpr (lu_panel_rows_in_async(int(sizeof(S)), int(sizeof(CT)))) {
#pragma unroll 4
        for (int e = tid; e < m * K; e += blockDim.x) {
          const int t = e / K, c = e % K;
          if (c < jb) copy_async(reinterpret_cast<S *>(stage + c * stride + t), a + int64_t(t) * G.A.ld + c);
          else stage[c * stride + t] = CT{};
        }
        wait_async_copies();
      } else {
#pragma unroll 4
        for (int e = tid; e < m * K; e += blockDim.x) {
          const int t = e / K, c = e % K;
          stage[c * stride + t] = c < jb ? widen(a[int64_t(t) * G.A.ld + c]) : CT{};
        }
      }
      __syncthreads();
      // No barrier after: a thread's reads here are its own finished slots, which only it overwrites.
      // HALVES: the right half stays in the stage, which is the finished slots.
#pragma unroll
      for (int c = 0; c < kLive; ++c) v[c] = P.has_row ? stage[c * stride + tid] : CT{};
    } else {
      const S *in = a + (G.row_major ? int64_t(tid) * G.A.ld : tid);  // a moving pointer: no 64-bit product an element
      // HALVES: the right half into the thread's own slots (no barrier), by cp.async where the
      // stored type is the compute type (no registers held for it; waited for before its rounds).
      constexpr bool kRightAsync = HALVES && lu_panel_rows_in_async(int(sizeof(S)), int(sizeof(CT)));
#pragma unroll
      for (int c = 0; c < K; ++c, in += along) {
        if (c < kLive) {
          v[c] = P.has_row && c < jb ? widen(*in) : CT{};
        } else if constexpr (kRightAsync) {
          if (P.has_row && c < jb) copy_async(reinterpret_cast<S *>(finished + c * stride), in);
          else finished[c * stride] = CT{};
        } else {
          finished[c * stride] = P.has_row && c < jb ? widen(*in) : CT{};
        }
      }
    }
    if (tid == 0) move_count = 0;
    if constexpr (HALVES) {
      int i = 0;  // the column in v[0]
      panel_rolled_steps<kLive>(v, i, jb < kLive ? jb : kLive, finished, stride, P);
      if (jb > kLive) {  // i == kLive
        wait_async_copies();  // the thread's own right half (column-major)
        panel_right_half_rounds(v, finished, stride, half_lines, P);
        panel_rolled_steps<kLive>(v, i, jb, finished, stride, P);
      }
    } else if constexpr (ROLLED) {
      int i = 0;  // the column in v[0]
      panel_rolled_steps<K>(v, i, jb, finished, stride, P);
    } else {
#pragma unroll
      for (int i = 0; i < K; ++i)
        // A test, not a break: a loop with a barrier and a break stays rolled, and v would go
        // to local memory.
        if (i < jb) panel_step(v, i, i, P);
    }
    // After the stage: each row's final place (rows_through_shared).
    int *const row_place = reinterpret_cast<int *>(stage + K * stride);
    if (P.has_row) {
      if (rows_through_shared) {
        row_place[tid] = P.pos;
      } else {
        S *out = a + (G.row_major ? int64_t(P.pos) * G.A.ld : P.pos);
        if constexpr (HALVES) {
          // Not all K in flight: the halves' point is fewer registers.
#pragma unroll 4
          for (int c = 0; c < jb; ++c, out += along) *out = narrow<S>(finished[c * stride]);
        } else {
#pragma unroll
          for (int c = 0; c < K; ++c, out += along)
            if (c < jb) *out = narrow<S>(ROLLED ? finished[c * stride] : v[c]);
        }
      }
      if (P.pos != tid) moves[atomicAdd(&move_count, 1)] = make_int2(P.pos, tid);  // at most 2 jb rows move
    }
    if (rows_through_shared) {
      __syncthreads();
#pragma unroll 4
      for (int e = tid; e < m * K; e += blockDim.x) {
        const int t = e / K, c = e % K;
        if (c < jb) a[int64_t(row_place[t]) * G.A.ld + c] = narrow<S>(stage[c * stride + t]);
      }
    }
    __syncthreads();
    static_assert(!STAGED || ROLLED, "the staged permutation uses the finished columns' shared memory");
    static_assert(!STAGED || lu_panel_permute_staged(int(sizeof(S)), int(sizeof(CT))), "cp.async copies 8 or 16 bytes here");
    if constexpr (STAGED)
      permute_outside_staged<S, kMaxMoves, K * int(sizeof(CT) / sizeof(S))>(a, G, moves, move_count,
                                                                            reinterpret_cast<S *>(panel_shared));
    else
      permute_outside<S, kMaxMoves, PASSES>(a, G, moves, move_count);
    if (tid == 0 && P.info) {
      if (G.codes && !G.codes[p]) G.codes[p] = P.info + G.panel_at;
      if (G.info && !G.info[p]) G.info[p] = P.info + G.panel_at;
    }
    __syncthreads();  // shared memory is the next problem's
  }
}

}  // namespace bb::cuda
