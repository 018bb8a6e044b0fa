// getrf_register with its step loop rolled (lu_tuning.hpp: which orders take it): the same
// threads, rows, pivot rule, lazy swaps and arithmetic, in a kernel that fits an SM's
// instruction caches (getrf_register unrolls every step: c64 at K = 32 is 229 KB of SASS, and
// its warps wait on instruction fetch). At each step a thread's register row starts at the
// step's column: the two columns of a pair of steps are finished into shared memory
// (column-major over the lanes: no bank conflict) and the row shifts by two. Every step updates
// all the row's live registers, the dead ones past the matrix holding zeros as in
// getrf_register; the row narrows (32, 24, 16, 8 registers, a loop each) as the columns left
// shrink, so a 32-column factorization does 640 multiply-adds a thread, not 1024.
#pragma once
#include "getrf_register.cuh"

namespace bb::cuda {

// K lanes a problem (its rows), a row of NR registers (orders up to NR).
template <class S, int K, int NR = K>
struct GetrfRolledShape {
  using CT = typename dev<S>::C;
  static constexpr int WPB = kLuRolledWarps, THREADS = 32 * WPB;
  // Registers a thread: its row and 64 to 80 for the rest; 72 for a narrowed row but r64's (c64 at
  // NR = 24: 161 registers, no spill, 12 warps an SM instead of 8), 48 for a narrowed r64 row (96
  // registers, 8 bytes spilled, 20 warps an SM instead of 16: 7-10 % faster, s52); the rows of
  // kLuRolledShortRow capped lower (lu_rolled_short_takes): c64 128 (20 bytes spilled, 16
  // warps an SM instead of 12), c32 and c16 96 (20 instead of 16), r64 80 (24 bytes spilled, 24
  // instead of 20), r32 and r16 80 (24 instead of 20).
  static constexpr int REGS = NR == kLuRolledShortRow ? (sizeof(CT) == 16 ? 128 : sizeof(CT) == 8 && !std::is_same_v<CT, double> ? 96 : 80)
                              : NR * int(sizeof(CT)) / 4 + (std::is_same_v<CT, double> ? (NR < K ? 48 : 64) : NR < K ? 72 : 80);
  // An SM's warps are spread over its four register files (16384 registers each), so it holds
  // four times the warps one file holds (a bound of 9 one-warp blocks would cap the registers at
  // 3 warps a file: 168, and spill).
  static constexpr int MIN_BLOCKS = 4 * (16384 / (32 * (REGS < 255 ? REGS : 255))) / WPB;
  static_assert(MIN_BLOCKS > 0, "a block's warps fit the register files");
  // The finished columns: NR per thread, element j of lane l of warp w at [j][w * 32 + l].
  static constexpr int shared_bytes() { return NR * THREADS * int(sizeof(CT)); }
  static constexpr bool STAGE_ROW_MAJOR = lu_rolled_stage_row_major(dev_prec_of<S>(), NR);  // row-major in tiles
};

// One step on the thread's row, whose register q holds the step's column i (ROWS lanes a
// problem; W registers of the row still live).
template <int ROWS, int q, int W, class CT>
__device__ __forceinline__ void rolled_step(CT (&r)[W], int i, int t, CT *pivot_row_buf, int &cur, bool &done,
                                            int &info, int &my_piv) {
  CT l;
  getrf_step_pivot<ROWS>(r, q, i, t, pivot_row_buf, cur, done, info, my_piv, l);
  if (!done) update_row<W>(r, l, pivot_row_buf, q);
  __syncwarp();  // the next step's pivot row overwrites this one
}

// Pairs of steps from column i on a row of W live registers (r[j]: column i + j, W >= n - i),
// the pair's two finished columns into shared memory and the row shifted by two; once the
// columns left fit the next width, its narrower loop (fewer multiply-adds and moves a step) goes
// on. Every problem of the warp has the same m and n (one run per warp): the loops are uniform.
template <int ROWS, int W, int K, class CT>
__device__ __forceinline__ void rolled_steps(CT (&row)[K], int &i, int mn, int n, int t, CT *pivot_row_buf,
                                             CT *finished, int stride, int &cur, bool &done, int &info, int &my_piv) {
  static_assert(W >= 2 && W <= K, "a pair of steps needs two registers");
  CT(&r)[W] = *reinterpret_cast<CT(*)[W]>(&row);
  constexpr int NEXT = W > kLuRolledWidthStep ? W - kLuRolledWidthStep : 0;  // the next, narrower loop's width
#pragma unroll 1
  for (; i < mn && n - i > NEXT; i += 2) {
    rolled_step<ROWS, 0>(r, i, t, pivot_row_buf, cur, done, info, my_piv);
    if (i + 1 < mn) rolled_step<ROWS, 1>(r, i + 1, t, pivot_row_buf, cur, done, info, my_piv);
    finished[i * stride] = r[0];
    finished[(i + 1) * stride] = r[1];  // i even, i + 1 <= NR - 1 (an odd mn's column mn: unused when mn = n)
#pragma unroll
    for (int j = 0; j + 2 < W; ++j) r[j] = r[j + 2];
    r[W - 2] = r[W - 1] = from_real<CT>(real_t<CT>(0));
  }
  if constexpr (NEXT > 0) rolled_steps<ROWS, NEXT>(row, i, mn, n, t, pivot_row_buf, finished, stride, cur, done, info, my_piv);
}

// Row-major problems in and out through the finished-columns buffer (where
// lu_rolled_stage_row_major), the warp reading and writing tiles of ROWS rows x COLS columns:
// each column's ROWS entries one 128-byte shared-memory wavefront, each row's COLS entries
// contiguous in global memory, instead of each thread its own row.
template <class CT>
constexpr int kRolledStageRows = 128 / int(sizeof(CT)) < 32 ? 128 / int(sizeof(CT)) : 32;
template <class S, class P, class CT>
__device__ __forceinline__ void rolled_stage_in(const P &prob, CT *warp_cols, int stride, int lane) {
  constexpr int ROWS = kRolledStageRows<CT>, COLS = 32 / ROWS;
  const int dr = lane % ROWS, dc = lane / ROWS;
  __syncwarp();  // the previous problem's columns are read
  if (prob.active)
    for (int r0 = 0; r0 < prob.m; r0 += ROWS)
      for (int c0 = 0; c0 < prob.n; c0 += COLS) {
        const int r = r0 + dr, c = c0 + dc;
        if (r < prob.m && c < prob.n) warp_cols[c * stride + r] = widen(prob.a[int64_t(r) * prob.ld + c]);
      }
  __syncwarp();
}
template <class S, class P, class CT>
__device__ __forceinline__ void rolled_stage_out(const P &prob, const CT *warp_cols, int stride, const int *dest, int lane) {
  constexpr int ROWS = kRolledStageRows<CT>, COLS = 32 / ROWS;
  const int dr = lane % ROWS, dc = lane / ROWS;
  if (prob.active)
    for (int r0 = 0; r0 < prob.m; r0 += ROWS)
      for (int c0 = 0; c0 < prob.n; c0 += COLS) {
        const int r = r0 + dr, c = c0 + dc;
        if (r < prob.m && c < prob.n) prob.a[int64_t(dest[r]) * prob.ld + c] = narrow<S>(warp_cols[c * stride + r]);
      }
}

// ROW_PIECES: the instance for row-major runs with ld on 16 bytes (lu_rolled_row_pieces_built),
// rows in 16-byte pieces where the problem's pointer is on 16 bytes too.
template <class S, int K, int NR = K, bool ROW_PIECES = false>
__global__ void __launch_bounds__(GetrfRolledShape<S, K, NR>::THREADS, GetrfRolledShape<S, K, NR>::MIN_BLOCKS)
    getrf_register_rolled(const __grid_constant__ FactorLaunch L) {
  using Shape = GetrfRolledShape<S, K, NR>;
  using CT = typename dev<S>::C;
  constexpr int WPB = Shape::WPB, PPW = 32 / K, THREADS = Shape::THREADS;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, q = lane / K, t = lane % K;
  __shared__ __align__(16) CT pivot_rows[WPB][32];
  extern __shared__ __align__(16) unsigned char rolled_shared[];
  CT *finished = reinterpret_cast<CT *>(rolled_shared) + threadIdx.x;  // column j at finished[j * THREADS]
  CT *pivot_row_buf = pivot_rows[warp] + q * K;
  for (int64_t u = int64_t(blockIdx.x) * WPB + warp; u < L.total_units; u += int64_t(gridDim.x) * WPB) {
    const GetrfRowOfProblem<S, WPB, PPW> P(L, u, q, t);  // n <= NR (lu_config)
    CT r[NR];
    constexpr bool kStage = Shape::STAGE_ROW_MAJOR;
    static_assert(!kStage || (kRolledStageRows<CT> < 32 && PPW == 1), "tiles of whole wavefronts, a problem a warp");
    static_assert(!(kStage && ROW_PIECES), "row-major rows either in tiles or in pieces");
    CT *warp_cols = reinterpret_cast<CT *>(rolled_shared) + warp * 32;
    if (kStage && P.rm) {
      rolled_stage_in<S>(P, warp_cols, THREADS, lane);
#pragma unroll
      for (int j = 0; j < NR; ++j) r[j] = P.has_row && j < P.n ? warp_cols[j * THREADS + t] : from_real<CT>(real_t<CT>(0));
      __syncwarp();
    } else {
      // Element by element but in the ROW_PIECES instance: the pieces in the instance both layouts
      // share spilled its capped rows (lu_rolled_row_pieces_built).
      P.template load<NR, ROW_PIECES>(r);
    }
    int cur = t, info = 0, my_piv = 0;
    bool done = !P.has_row;
    int i = 0;  // the column in r[0]
    rolled_steps<K, NR>(r, i, P.mn, P.n, t, pivot_row_buf, finished, THREADS, cur, done, info, my_piv);
    // The columns right of the last step (wide problems): r[j] is column i + j.
#pragma unroll
    for (int j = 0; j < NR; ++j)
      if (i + j < P.n) finished[(i + j) * THREADS] = r[j];

    if (kStage && P.rm) {
      __shared__ int dest_rows[WPB][32];
      dest_rows[warp][lane] = cur;
      __syncwarp();
      rolled_stage_out<S>(P, warp_cols, THREADS, dest_rows[warp], lane);
      __syncwarp();  // the next problem's stage overwrites the columns
    } else if constexpr (ROW_PIECES) {
      P.template store<NR>(cur, [&](int j) { return finished[j * THREADS]; });
    } else {
      S *out = P.row(cur);
      if (P.has_row)
        for (int j = 0; j < P.n; ++j) out[j * P.step] = narrow<S>(finished[j * THREADS]);
    }
    P.finish(my_piv, info);
  }
}

}  // namespace bb::cuda
