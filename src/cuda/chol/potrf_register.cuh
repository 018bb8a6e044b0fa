// potrf for n <= K (K = 2, 4, 8, 16, 24, 32) with the factor in registers: K threads per
// problem (24 in a warp of its own), each holding a row or a column of L (L = U^H for uplo
// Upper, read and written through the conjugate transpose, so both touch only their own
// triangle), whichever makes the loads coalesced; 32 / K problems per warp, no block barrier.
// Right-looking: at step j the column j is finished and handed to the others through shared
// memory, and the rest updates itself.
// No shuffles but one per step (the diagonal, which every thread checks for failure).
#pragma once
#include "chol_step.cuh"

namespace bb::cuda {

// The factorization of one problem's n x n matrix (n <= K) by its K lanes: lane c holds column
// c of L (rows c..K-1 meaningful, zeros below n), `first_lane` is the problem's lane 0,
// `column` K elements of shared memory of its own. Every lane returns info. Lanes from K on
// (side 24 in a warp of 32) hold zeros, take the shuffles and nothing else.
template <int K, class CT>
__device__ __forceinline__ int chol_columns(CT (&r)[K], int n, int c, int first_lane, CT *column) {
  using R = real_t<CT>;
  // The imaginary part of the diagonal is ignored (LAPACK).
#pragma unroll
  for (int i = 0; i < K; ++i)
    if (i == c) r[i] = from_real<CT>(real_of(r[i]));
  int info = 0;
#pragma unroll
  for (int j = 0; j < K; ++j) {
    if (j >= n) break;  // the same for the whole warp
    const R d = __shfl_sync(~0u, real_of(r[j]), first_lane + j);
    if (!info && !(d > R(0))) info = j + 1;  // also NaN: LAPACK leaves d on the diagonal
    if (!info) {
      if (c == j) {
        const CholPivot<CT> piv(d);
        r[j] = from_real<CT>(piv.root);
#pragma unroll
        for (int i = j + 1; i < K; ++i) r[i] = scale_by(r[i], piv.inverse_root), column[i] = r[i];
      }
    } else if (c == j && info == j + 1) {
      r[j] = from_real<CT>(d);
    }
    __syncwarp();
    if (!info && c > j && c < K) {
      const CT l = conj(column[c]);
#pragma unroll
      for (int i = j + 1; i < K; ++i) r[i] = msub(r[i], column[i], l);
    }
    __syncwarp();  // the next step's column overwrites this one
  }
  return info;
}

// The same by rows: lane t holds row t of L (columns 0..t meaningful), so that the loads of a
// column-major Lower (row-major Upper) matrix are coalesced. At step j every lane below j
// scales its own L(t, j) (no serial work in one lane) and passes it on through `column`;
// `rdiag`, if given, gets 1 / L(j, j) of each column done.
template <int K, class CT>
__device__ __forceinline__ int chol_rows(CT (&r)[K], int n, int t, int first_lane, CT *column,
                                         real_t<CT> *rdiag = nullptr) {
  using R = real_t<CT>;
#pragma unroll
  for (int i = 0; i < K; ++i)
    if (i == t) r[i] = from_real<CT>(real_of(r[i]));
  int info = 0;
#pragma unroll
  for (int j = 0; j < K; ++j) {
    if (j >= n) break;  // the same for the whole warp
    const R d = __shfl_sync(~0u, real_of(r[j]), first_lane + j);
    if (!info && !(d > R(0))) info = j + 1;
    if (!info) {
      const CholPivot<CT> piv(d);
      if (t == j) {
        r[j] = from_real<CT>(piv.root);
        if (rdiag) rdiag[j] = piv.inverse_root;
      }
      if (t > j && t < K) r[j] = scale_by(r[j], piv.inverse_root), column[t] = r[j];
    } else if (t == j && info == j + 1) {
      r[j] = from_real<CT>(d);
    }
    __syncwarp();
    if (!info && t > j && t < K) {
      const CT l = r[j];
#pragma unroll
      for (int c = j + 1; c < K; ++c) r[c] = msub(r[c], l, conj(column[c]));
    }
    __syncwarp();  // the next step's column overwrites this one
  }
  return info;
}

// chol_rows's and chol_columns's steps in a loop (ROLLED potrf_register, sides 24 and 32: the
// unrolled steps outgrow an SM's instruction caches, as getrf's did, bench/results/NOTES-lu.md):
// the same operations on each element in the same order. Register 0 of the lane's line holds the
// step's column (rows) or row (columns); a pair of steps, then the pair's two finished entries
// to fin (the lane's own, fin[j * stride]) and the line shifted down by two, narrowing by
// kCholRolledWidthStep registers as the steps left shrink. At the end r holds the line's entries
// below n again, as the unrolled steps leave them (those from n on: stale, never stored).
// `column` has 64 entries: the columns form's writes past K (up to n + 6) land past K, never
// read.
template <bool ROWS, int W, int K, class CT>
__device__ __forceinline__ void chol_rolled_steps(CT (&line)[K], int &j, int n, int lane, int first_lane, CT *column,
                                                  CT *fin, int stride, int &info) {
  using R = real_t<CT>;
  CT(&r)[W] = *reinterpret_cast<CT(*)[W]>(&line);
  constexpr int NEXT = W > kCholRolledWidthStep ? W - kCholRolledWidthStep : 0;
#pragma unroll 1
  for (; j < n && n - j > NEXT; j += 2) {
#pragma unroll
    for (int q = 0; q < 2; ++q) {
      const int s = j + q;  // the step; register q holds its column (rows) or row (columns)
      if (s >= n) break;    // the same for the whole warp
      const R d = __shfl_sync(~0u, real_of(r[q]), first_lane + s);
      if (!info && !(d > R(0))) info = s + 1;
      if (!info) {
        const CholPivot<CT> piv(d);
        if (lane == s) r[q] = from_real<CT>(piv.root);
        if constexpr (ROWS) {
          if (lane > s && lane < K) r[q] = scale_by(r[q], piv.inverse_root), column[lane] = r[q];
        } else if (lane == s) {
#pragma unroll
          for (int i = q + 1; i < W; ++i) r[i] = scale_by(r[i], piv.inverse_root), column[s + i - q] = r[i];
        }
      } else if (lane == s && info == s + 1) {
        r[q] = from_real<CT>(d);
      }
      __syncwarp();
      if (!info && lane > s && lane < K) {
        // Entries past K (dead: past the matrix) read column K - 1.
        if constexpr (ROWS) {
          const CT l = r[q];
#pragma unroll
          for (int c = q + 1; c < W; ++c) r[c] = msub(r[c], l, conj(column[min(s + c - q, K - 1)]));
        } else {
          const CT l = conj(column[lane]);
#pragma unroll
          for (int i = q + 1; i < W; ++i) r[i] = msub(r[i], column[min(s + i - q, K - 1)], l);
        }
      }
      __syncwarp();  // the next step's column overwrites this one
    }
    fin[j * stride] = r[0];
    fin[(j + 1) * stride] = r[1];  // j even, j + 1 <= K - 1; past n: never read
#pragma unroll
    for (int i = 0; i + 2 < W; ++i) r[i] = r[i + 2];
  }
  if constexpr (NEXT > 0) chol_rolled_steps<ROWS, NEXT>(line, j, n, lane, first_lane, column, fin, stride, info);
}

template <bool ROWS, int K, class CT>
__device__ __forceinline__ int chol_rolled(CT (&r)[K], int n, int lane, int first_lane, CT *column, CT *fin, int stride) {
#pragma unroll
  for (int i = 0; i < K; ++i)  // the imaginary part of the diagonal is ignored (LAPACK)
    if (i == lane) r[i] = from_real<CT>(real_of(r[i]));
  int info = 0, j = 0;
  chol_rolled_steps<ROWS, K>(r, j, n, lane, first_lane, column, fin, stride, info);
#pragma unroll
  for (int i = 0; i < K; ++i) r[i] = fin[i * stride];  // entries past n: never stored
  return info;
}

// The rolled form's shared memory a block: each lane's K finished entries.
template <class S, int K>
constexpr int potrf_rolled_bytes() { return K * 32 * kCholRegisterWarps * int(sizeof(typename dev<S>::C)); }

template <class S, int K, bool ROLLED = false>
__global__ void __launch_bounds__(32 * kCholRegisterWarps) potrf_register(const __grid_constant__ FactorLaunch L) {
  using CT = typename dev<S>::C;
  using R = real_t<CT>;
  // Lanes >= K of a problem (side 24) hold nothing and take no part past the shuffles.
  constexpr int Lanes = kRegisterLanes<K>, WPB = kCholRegisterWarps, PPW = 32 / Lanes;
  static_assert(!ROLLED || Lanes == 32, "the rolled form: one problem a warp");
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, q = lane / Lanes, c = lane % Lanes;
  __shared__ __align__(16) CT columns[WPB][ROLLED ? 64 : 32];
  CT *column = columns[warp] + q * Lanes;
  extern __shared__ __align__(16) unsigned char potrf_fin[];
  CT *fin = reinterpret_cast<CT *>(potrf_fin) + threadIdx.x;  // ROLLED: entry i at fin[i * 32 * WPB]
  for (int64_t u = int64_t(blockIdx.x) * WPB + warp; u < L.total_units; u += int64_t(gridDim.x) * WPB) {
    const FactorRun &G = run_of<WPB>(L, u);
    const int64_t p = (u - G.unit_begin) * PPW + q;
    const int n = G.n;
    const bool upper = !G.lower;
    S *a = p < G.problems ? operand_at<S>(G.A, p) : nullptr;
    const bool mine = a && c < n;  // this thread has a column
    CT r[K];
    // Lanes take rows of L where that makes the loads coalesced, else columns (SPEC's layouts
    // and both uplo: L(i, j) sits at A(i, j) or at A(j, i), row- or column-major).
    const bool by_rows = G.lower != G.row_major;
    FactorLine<S> line = factor_line(G, a, c, by_rows);
    if (by_rows) {
      const int t = c;
#pragma unroll
      for (int j = 0; j < K; ++j)
        r[j] = mine && j <= t ? conj_if(upper, widen(line[j])) : from_real<CT>(R(0));
      const int info = ROLLED ? chol_rolled<true>(r, n, t, q * Lanes, column, fin, 32 * WPB)
                              : chol_rows<K>(r, n, t, q * Lanes, column);
      line.forget();
      if (mine)
#pragma unroll
        for (int j = 0; j < K; ++j)
          if (j <= t && (!info || j < info)) line[j] = narrow<S>(conj_if(upper, r[j]));
      if (a && t == 0) {
        write_info(G, p, info);
      }
      continue;
    }
#pragma unroll
    for (int i = 0; i < K; ++i)
      r[i] = mine && i >= c && i < n ? conj_if(upper, widen(line[i])) : from_real<CT>(R(0));
    const int info = ROLLED ? chol_rolled<false>(r, n, c, q * Lanes, column, fin, 32 * WPB)
                            : chol_columns<K>(r, n, c, q * Lanes, column);
    line.forget();
    // Columns after a failure stay as they were (the host path's choice).
    if (mine && (!info || c < info))
#pragma unroll
      for (int i = 0; i < K; ++i)
        if (i >= c && i < n) line[i] = narrow<S>(conj_if(upper, r[i]));
    if (a && c == 0) {
      write_info(G, p, info);
    }
  }
}

// potrf for 32 < n <= 64 in r16 and r32: one problem per warp, lane t holding rows t and
// t + 32 of L (row t needs only columns below 32: 96 values), chol_rows's steps otherwise.
template <class S>
__global__ void __launch_bounds__(32 * kCholRegisterWarps) potrf_rows64(const __grid_constant__ FactorLaunch L) {
  using R = typename dev<S>::C;
  static_assert(!dev<S>::complex, "real precisions only");
  constexpr int WPB = kCholRegisterWarps, K = 64, H = 32;
  const int warp = threadIdx.x / 32, t0 = threadIdx.x % 32, t1 = t0 + H;
  __shared__ R columns[WPB][K];
  R *column = columns[warp];
  for (int64_t u = int64_t(blockIdx.x) * WPB + warp; u < L.total_units; u += int64_t(gridDim.x) * WPB) {
    const FactorRun &G = run_of<WPB>(L, u);
    const int64_t p = u - G.unit_begin;
    const int n = G.n;
    S *a = p < G.problems ? operand_at<S>(G.A, p) : nullptr;
    const bool has0 = a && t0 < n, has1 = a && t1 < n;
    R r0[H], r1[K];
    FactorLine<S> line0 = factor_line(G, a, t0, true), line1 = factor_line(G, a, t1, true);
#pragma unroll
    for (int j = 0; j < H; ++j) r0[j] = has0 && j <= t0 ? widen(line0[j]) : R(0);
#pragma unroll
    for (int j = 0; j < K; ++j) r1[j] = has1 && j <= t1 ? widen(line1[j]) : R(0);
    int info = 0;
#pragma unroll
    for (int j = 0; j < K; ++j) {
      if (j >= n) break;  // the same for the whole warp
      const R d = __shfl_sync(~0u, j < H ? r0[j & (H - 1)] : r1[j], j % H);
      if (!info && !(d > R(0))) info = j + 1;
      if (!info) {
        const CholPivot<R> piv(d);
        if (j < H) {
          if (t0 == j) r0[j & (H - 1)] = piv.root;
          if (t0 > j) r0[j & (H - 1)] *= piv.inverse_root, column[t0] = r0[j & (H - 1)];
        }
        if (t1 == j) r1[j] = piv.root;
        if (t1 > j) r1[j] *= piv.inverse_root, column[t1] = r1[j];
      } else if (info == j + 1) {
        if (j < H && t0 == j) r0[j & (H - 1)] = d;
        if (t1 == j) r1[j] = d;
      }
      __syncwarp();
      if (!info) {
        if (j < H && t0 > j) {
          const R l = r0[j & (H - 1)];
#pragma unroll
          for (int c = j + 1; c < H; ++c) r0[c] = msub(r0[c], l, column[c]);
        }
        if (t1 > j) {
          const R l = r1[j];
#pragma unroll
          for (int c = j + 1; c < K; ++c) r1[c] = msub(r1[c], l, column[c]);
        }
      }
      __syncwarp();  // the next step's column overwrites this one
    }
    // Columns after a failure stay as they were (the host path's choice).
    line0.forget(), line1.forget();
#pragma unroll
    for (int j = 0; j < H; ++j)
      if (has0 && j <= t0 && (!info || j < info)) line0[j] = narrow<S>(r0[j]);
#pragma unroll
    for (int j = 0; j < K; ++j)
      if (has1 && j <= t1 && (!info || j < info)) line1[j] = narrow<S>(r1[j]);
    if (a && t0 == 0) {
      write_info(G, p, info);
    }
  }
}

}  // namespace bb::cuda
