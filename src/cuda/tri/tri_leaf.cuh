// trsm / trmm for a triangle of order <= K (K = 2..32, and 64 for 4-byte compute types): each
// lane holds one line of B in registers (a column of B for side Left, a row for Right: X op(A) = alpha B is solved as
// op(A)^T X^T = alpha B^T), the team's triangle M (op(A), or op(A)^T for Right) packed by rows
// in shared memory, read by every lane of the team at the same address (a broadcast). Side
// Right reads and writes its rows straight from registers (consecutive lanes on consecutive
// elements); side Left passes B's columns through shared memory so that global accesses run
// along them. Only the referenced triangle is read (the diagonal only for non-unit A); with
// alpha = 0, neither A nor B (BLAS). Teams of tri_team(K, lines) lanes, 32 / team per warp,
// 1-4 warps per block (tri_leaf_warps), no block barrier; at K = 64 a team of a warp.
#pragma once
#include "../async_copy.cuh"
#include "../run_table.cuh"
#include "../scalar.cuh"
#include "tri_tuning.hpp"

namespace bb::cuda {

using TriLaunch = RunLaunch<TriRun, kTriInlineRuns>;

// Element (i, k) of a team's triangle of order K, packed by rows: row i of a lower one holds
// k = 0..i from i (i + 1) / 2, of an upper one k = i..K-1 from i K - i (i - 1) / 2. The K
// reciprocals of the diagonal follow at K (K + 1) / 2 + i.
template <int K> __host__ __device__ constexpr int packed_at(bool lower, int i, int k) {
  return lower ? i * (i + 1) / 2 + k : i * K - i * (i - 1) / 2 + k - i;
}
template <int K> __host__ __device__ constexpr int reciprocal_at(int i) { return K * (K + 1) / 2 + i; }

// x_i = s / M(i, i) for solve: a multiply by the stored reciprocal on the dependent chain instead
// of a division, or, where that reciprocal would overflow (a subnormal diagonal; stored as 0),
// the division the host does.
template <int K, class CT>
__device__ __forceinline__ CT solved(CT s, const CT *m, bool lower, int i) {
  const CT r = m[reciprocal_at<K>(i)];
  return is_zero(r) ? divide(s, m[packed_at<K>(lower, i, i)]) : mul(s, r);
}

// x := M^-1 x (solve) or M x, M lower or upper of order n <= K, unit diagonal or M's own, in a
// team's packed triangle m. The line was scaled by alpha already.
template <int K, class CT>
__device__ __forceinline__ void tri_line(CT (&x)[K], const CT *m, int n, bool lower, bool unit, bool solve) {
  // The solve's rows depend on each other: a row's sum as two chains (even and odd k) halves
  // the wait of its products on the previous row (tri_leaf_solve_chains). The odd chain starts
  // at +0, so a row without odd products turns an x_i of -0 into +0 (no test compares zeros'
  // signs; -0 would keep it).
  constexpr int chains = tri_leaf_solve_chains(K, int(sizeof(CT)));
  if (solve && lower) {
#pragma unroll
    for (int i = 0; i < K; ++i) {
      if (i >= n) break;
      CT s[chains] = {x[i]};
#pragma unroll
      for (int k = 0; k < i; ++k) s[k % chains] = msub(s[k % chains], m[packed_at<K>(true, i, k)], x[k]);
      const CT total = chains == 2 ? sum_of(s[0], s[chains - 1]) : s[0];
      x[i] = unit ? total : solved<K>(total, m, true, i);
    }
  } else if (solve) {
#pragma unroll
    for (int i = K - 1; i >= 0; --i) {
      if (i >= n) continue;
      CT s[chains] = {x[i]};
#pragma unroll
      for (int k = i + 1; k < K; ++k)
        if (k < n) s[k % chains] = msub(s[k % chains], m[packed_at<K>(false, i, k)], x[k]);
      const CT total = chains == 2 ? sum_of(s[0], s[chains - 1]) : s[0];
      x[i] = unit ? total : solved<K>(total, m, false, i);
    }
  } else if (lower) {  // in place: row i needs the old x[k], k < i
#pragma unroll
    for (int i = K - 1; i >= 0; --i) {
      if (i >= n) continue;
      CT s = unit ? x[i] : mul(m[packed_at<K>(true, i, i)], x[i]);
#pragma unroll
      for (int k = 0; k < i; ++k) s = madd(s, m[packed_at<K>(true, i, k)], x[k]);
      x[i] = s;
    }
  } else {
#pragma unroll
    for (int i = 0; i < K; ++i) {
      if (i >= n) break;
      CT s = unit ? x[i] : mul(m[packed_at<K>(false, i, i)], x[i]);
#pragma unroll
      for (int k = i + 1; k < K; ++k)
        if (k < n) s = madd(s, m[packed_at<K>(false, i, k)], x[k]);
      x[i] = s;
    }
  }
}

// Staging without registers where the stored type is the compute type and 8 or 16 bytes (r64,
// c32, c64): each element an asynchronous copy from global into shared memory (cp.async, Ampere
// and later), so that a lane's whole share of A and B is in flight at once and costs no
// registers. H200, trsm kernel % of bandwidth at n = 4 / 8 / 16 / 32, register staging -> copies:
// c64 60 / 53 / 49 / 20 -> 67 / 78 / 71 / 27, c32 46 / 45 / 33 / 23 -> 50 / 59 / 53 / 37, r64
// 47 / 57 / 62 / 52 -> 49 / 60 / 63 / 60. r32 lost 3-10 points with copies (twice the copies per
// byte) and half precision widens, so both stage through registers (stage).
template <class S> constexpr bool kAsyncStaging = sizeof(S) == sizeof(typename dev<S>::C) && sizeof(S) >= 8;
// A lane's share of a staging pass over steps s = 0..K-1: the steps [begin, end), step s at
// global address at + s * step and at target(s) in shared memory. The address advances by one
// add per step: a product s * step per step was most of the leaf's instructions (ncu, r32
// n = 8: 1100 instructions a warp per unit, two thirds of them staging, the kernel issue-bound
// at 76 % of the SM's issue rate with DRAM at 34 %). Copies are raw; staging through registers
// conjugates where asked (the copies' conjugation is a pass of its own).
template <int K, int U, class S, class CT, class Target>
__device__ __forceinline__ void stage(int begin, int end, const S *at, int64_t step, Target &&target,
                                      bool conjugate = false) {
  if constexpr (kAsyncStaging<S>) {
#pragma unroll
    for (int s = 0; s < K; ++s) {
      if (s >= begin && s < end) copy_async(reinterpret_cast<S *>(target(s)), at);
      at += step;
    }
  } else {  // U steps' loads in flight before their stores (a plain loop waits on each load)
#pragma unroll
    for (int s0 = 0; s0 < K; s0 += U) {
      CT v[U];
#pragma unroll
      for (int j = 0; j < U; ++j, at += step)
        if (s0 + j >= begin && s0 + j < end) v[j] = widen(*at);
#pragma unroll
      for (int j = 0; j < U; ++j)
        if (s0 + j >= begin && s0 + j < end) *target(s0 + j) = conjugate ? conj(v[j]) : v[j];
    }
  }
}

// Two staging passes through registers, A's triangle and side Left's B (b_end = 0: none), with
// both passes' loads in flight at once, in batches of U steps each (tri_leaf_paired_staging).
template <int K, int U, class S, class CT, class TargetA, class TargetB>
__device__ __forceinline__ void stage_pair(int a_begin, int a_end, const S *a_at, int64_t a_step, TargetA &&a_target,
                                           bool conjugate, int b_end, const S *b_at, int64_t b_step,
                                           TargetB &&b_target) {
  static_assert(!kAsyncStaging<S>, "copies never wait on each other: stage one pass after the other");
#pragma unroll
  for (int s0 = 0; s0 < K; s0 += U) {
    CT va[U], vb[U];
#pragma unroll
    for (int j = 0; j < U; ++j, a_at += a_step)
      if (s0 + j >= a_begin && s0 + j < a_end) va[j] = widen(*a_at);
#pragma unroll
    for (int j = 0; j < U; ++j, b_at += b_step)
      if (s0 + j < b_end) vb[j] = widen(*b_at);
#pragma unroll
    for (int j = 0; j < U; ++j)
      if (s0 + j >= a_begin && s0 + j < a_end) *a_target(s0 + j) = conjugate ? conj(va[j]) : va[j];
#pragma unroll
    for (int j = 0; j < U; ++j)
      if (s0 + j < b_end) *b_target(s0 + j) = vb[j];
  }
}

// Steps s of a staging lane at columns c0 + s * per (per = 1 << per_log2) below `bound`:
// [0, ceil((bound - c0) / per)).
__device__ __forceinline__ int steps_below(int bound, int c0, int per_log2) {
  const int span = bound - c0;
  return span > 0 ? (span + (1 << per_log2) - 1) >> per_log2 : 0;
}

// The output passes start again from this pointer instead of keeping the input pass's
// addresses alive across the solve (registers the compiler would otherwise hold).
template <class T> __device__ __forceinline__ void keep_in_one_register(T *&p) { asm volatile("" : "+l"(p)); }

template <class S, int K>
__global__ void __launch_bounds__(32 * tri_leaf_warps(K, int(sizeof(typename dev<S>::C))),
                                  tri_leaf_min_blocks(K, int(sizeof(typename dev<S>::C)), !kAsyncStaging<S>))
    tri_leaf(const __grid_constant__ TriLaunch L) {
  using CT = typename dev<S>::C;
  constexpr int WARPS = tri_leaf_warps(K, int(sizeof(CT))), TEAM = tri_leaf_team_elements(K);
  constexpr int XS = 33;  // row stride of the lines' area
  // Staging batches (register staging: r32, r16, c16): 32 words of loads in flight per lane and
  // pass; 16 from K = 32 (8 for c16), whose leaf is held to 128 registers (170 at K = 64:
  // tri_leaf_min_blocks).
  // Where A's and B's passes go together (stage_pair), twice that. H200, r32 trsm kernel % of
  // bandwidth at n = 32 with batches of 8 / 16 / 32 words: 36.8 / 44.9 / 43.4 (one pass after
  // the other, before the branch-free targets).
  constexpr int words = int(sizeof(CT) / 4), batch_words = K >= 32 ? 16 / words : 32;
  constexpr int U = K < batch_words / words ? K : batch_words / words;
  extern __shared__ __align__(16) unsigned char tri_shared[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  CT *const area = reinterpret_cast<CT *>(tri_shared) + warp * tri_leaf_warp_elements(K);
  CT *const xs = area + tri_leaf_teams(K) * TEAM;  // side Left: element t of lane l's line at xs[t * XS + l]
  for (int64_t u = int64_t(blockIdx.x) * WARPS + warp; u < L.total_units; u += int64_t(gridDim.x) * WARPS) {
    const TriRun &G = run_of<WARPS>(L, u);
    const int n = G.order(), lines = G.lines();
    // Teams, chunks and staging columns are powers of two: shifts, not divisions.
    const int W = tri_team(K, lines), team_log2 = __ffs(W) - 1, q = lane >> team_log2, l = lane & (W - 1);
    const int chunks = (lines + W - 1) >> team_log2;
    const int64_t task = ((u - G.unit_begin) << (5 - team_log2)) + q, p = chunks == 1 ? task : task / chunks;
    const int first_line = chunks == 1 ? 0 : int(task - p * chunks) * W;
    // A NULL A or B in a pointer array: a skipped problem (host arrays come with B NULL). A
    // strided run with alpha = 0 may have no A at all (it is not read).
    S *b = p < G.problems ? operand_at<S>(G.B, p) : nullptr;
    const S *a = b && (G.A.array || !G.zero_alpha) ? operand_at<S>(G.A, p) : nullptr;
    if (G.A.array && !a) b = nullptr;
    const int count = b ? min(W, lines - first_line) : 0;  // the team's lines
    const bool compute = count && !G.zero_alpha;
    CT *const m = area + q * TEAM;
    // M(i, k) = A(i, k), or A(k, i) where M is A's transpose (side Left with A^T or A^H, side
    // Right with A), conjugated for A^H; M is lower where that makes A's triangle lower.
    const bool transposed = G.left ? G.trans != 0 : G.trans == 0, conjugated = G.trans == 2;
    const bool lower = G.lower != transposed;
    const int64_t lda = G.A.ld, ldb = G.B.ld;
    // Staging lanes: row r = l % R of an R-row tile (R = min(K, 32)), columns c0, c0 + per, ...
    // (consecutive lanes on consecutive stored rows: coalesced where columns are contiguous); at
    // K = 64 a lane stages rows l and l + 32 of every column.
    constexpr int R = K < 32 ? K : 32, ROWS = K / R;
    constexpr int R_log2 = R == 2 ? 1 : R == 4 ? 2 : R == 8 ? 3 : R == 16 ? 4 : 5;
    static_assert(1 << R_log2 == R && R * ROWS == K, "leaf sides are powers of two");
    const int r0 = l & (R - 1), c0 = l >> R_log2, per_log2 = team_log2 - R_log2;
    constexpr bool together = !kAsyncStaging<S> && tri_leaf_paired_staging(K, int(sizeof(CT)));
    S *pb_first = nullptr;  // row r0's B, as staged: the line's reads and the output start there
#pragma unroll
    for (int h = 0; h < ROWS; ++h) {
      const int r = r0 + h * R;
      // A's referenced triangle (the diagonal only for non-unit A) into M: the lane's columns c
      // of row r with c <= r - unit (lower) or r + unit <= c < n (upper), a range of its steps.
      int a_begin = 0, a_end = 0;
      if (compute && r < n) {
        const int unit = G.unit_diag ? 1 : 0;
        if (G.lower) {
          a_end = steps_below(r - unit + 1, c0, per_log2);
        } else {
          a_begin = steps_below(r + unit, c0, per_log2);
          a_end = steps_below(n, c0, per_log2);
        }
      }
      // M's packed index of A(r, c), M(r, c) or M(c, r), is tri(c) * t_tri + c * t_c + t_0 with
      // tri(c) = c (c + 1) / 2 (packed_at in each of the four cases): no branch per step.
      const int t_tri = transposed ? (lower ? 1 : -1) : 0, t_c = transposed ? (lower ? 0 : K) : 1;
      const int t_0 = transposed ? r : packed_at<K>(lower, r, 0);
      auto a_target = [&](int s) {
        const int c = c0 + (s << per_log2);
        return m + ((c * (c + 1)) >> 1) * t_tri + c * t_c + t_0;
      };
      if (compute && !together)
        stage<K, U, S, CT>(a_begin, a_end, a + r + c0 * lda, lda << per_log2, a_target, conjugated);
      // Side Left: B's columns come through the lines' area (lanes along a column in global
      // memory, a column per lane in registers); side Right reads rows straight into registers
      // (consecutive lanes on consecutive rows).
      S *const pb = G.left ? b + r + (first_line + c0) * ldb : b + first_line + l;
      const int64_t b_step = G.left ? ldb << per_log2 : ldb;
      if (h == 0) pb_first = pb;
      const int xs_first = r * XS + q * W + c0;
      const int b_end = G.left && r < n ? steps_below(count, c0, per_log2) : 0;  // side Left's staged steps
      auto b_target = [&](int s) { return xs + xs_first + (s << per_log2); };
      if constexpr (together) {
        if (compute)
          stage_pair<K, U, S, CT>(a_begin, a_end, a + r + c0 * lda, lda << per_log2, a_target, conjugated, b_end,
                                  pb, b_step, b_target);
      } else if (compute && G.left) {
        stage<K, U, S, CT>(0, b_end, pb, b_step, b_target);
      }
      if constexpr (kAsyncStaging<S>) {
        static_assert(ROWS == 1, "copies stage leaves of order <= 32");
        wait_async_copies();
        if (conjugated)  // A^H's conjugation on the lane's own copied elements
#pragma unroll
          for (int s = 0; s < K; ++s)
            if (s >= a_begin && s < a_end) *a_target(s) = conj(*a_target(s));
      }
    }
    S *const pb = pb_first;
    const int64_t b_step = G.left ? ldb << per_log2 : ldb;
    __syncwarp();
    // trsm: the reciprocals of M's diagonal, a lane per row, where they stay finite (a subnormal
    // diagonal's would overflow: 0 marks a row that divides; 1 / Inf = 0 divides too).
#pragma unroll
    for (int h = 0; h < ROWS; ++h)  // rows l (and l + 32 at K = 64)
      if (const int i = l + h * R; compute && G.solve && !G.unit_diag && i < n) {
        const CT d = m[packed_at<K>(lower, i, i)];
        m[reciprocal_at<K>(i)] = abs1(d) >= smallest_normal<real_t<CT>>() ? divide(from_real<CT>(1), d) : from_real<CT>(0);
      }
    __syncwarp();
    if (l < count) {
      const CT alpha = scalar_from<CT>(G.alpha);
      CT x[K];
#pragma unroll
      for (int t = 0; t < K; ++t) x[t] = from_real<CT>(0);
      if (!G.zero_alpha) {
        if (G.left) {
#pragma unroll
          for (int t = 0; t < K; ++t)
            if (t < n) x[t] = mul(alpha, xs[t * XS + lane]);
        } else {
          const S *in = pb;
#pragma unroll
          for (int t = 0; t < K; ++t, in += b_step)
            if (t < n) x[t] = mul(alpha, widen(*in));
        }
      }
      if (!G.zero_alpha) tri_line<K>(x, m, n, lower, G.unit_diag, G.solve);
      if (G.left) {
#pragma unroll
        for (int t = 0; t < K; ++t)
          if (t < n) xs[t * XS + lane] = x[t];
      } else {
        S *out = pb;
        keep_in_one_register(out);
#pragma unroll
        for (int t = 0; t < K; ++t, out += b_step)
          if (t < n) *out = narrow<S>(x[t]);
      }
    }
    __syncwarp();
    if (count && G.left) {
#pragma unroll
      for (int h = 0; h < ROWS; ++h) {
        const int r = r0 + h * R, xs_first = r * XS + q * W + c0;
        const int b_end = r < n ? steps_below(count, c0, per_log2) : 0;
        S *out = pb + h * R;
        keep_in_one_register(out);
#pragma unroll
        for (int s = 0; s < K; ++s, out += b_step)
          if (s < b_end) *out = narrow<S>(xs[xs_first + (s << per_log2)]);
      }
    }
    if (b && first_line == 0 && l == 0 && G.info) G.info[p] = 0;
    __syncwarp();  // the next unit overwrites the shared areas
  }
}

}  // namespace bb::cuda
