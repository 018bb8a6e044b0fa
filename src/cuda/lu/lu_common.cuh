// What the LU kernels share: the launch type and LAPACK's pivot rule as reductions.
#pragma once
#include "../factor_common.cuh"
#include "lu.hpp"
#include "lu_tuning.hpp"

#include <climits>

namespace bb::cuda {

// Row-major rows in 16-byte pieces: in the row-a-thread kernels each lane's row lies in its own
// cache lines, so an element-sized access costs the L1 a line per lane (s54, ncu: 3.7 times
// column-major's L1 sectors in r64 and c32, twice the L2 writes). A row moves so where its
// matrix's pointer and ld * sizeof(S) are multiples of 16 bytes (and a piece holds more than one
// element).
template <class S>
constexpr int kRowPiece = 16 / int(sizeof(S));
template <class S>
__device__ __forceinline__ bool row_in_pieces(const S *a, int ld) {
  static_assert(16 % int(sizeof(S)) == 0, "whole elements a 16-byte piece");
  return kLuRowPieces && kRowPiece<S> > 1 && (reinterpret_cast<uintptr_t>(a) | uintptr_t(int64_t(ld) * int(sizeof(S)))) % 16 == 0;
}
// A row's elements 0..K-1 from `in` (16 bytes aligned) to put(j, element), zeros from n on (n
// may be 0: all zeros, nothing read).
template <class S, int K, class Put>
__device__ __forceinline__ void load_row_pieces(const S *in, int n, Put &&put) {
  constexpr int PIECE = kRowPiece<S>;
#pragma unroll
  for (int c = 0; c < K; c += PIECE) {
    S e[PIECE];
    if (c + PIECE <= n) {
      const uint4 raw = *reinterpret_cast<const uint4 *>(in + c);
      memcpy(e, &raw, 16);
    } else {
#pragma unroll
      for (int k = 0; k < PIECE; ++k) e[k] = c + k < n ? in[c + k] : zero<S>();
    }
#pragma unroll
    for (int k = 0; k < PIECE && c + k < K; ++k) put(c + k, e[k]);
  }
}
// A row's elements 0..n-1 (n <= K) from get(j) to `out` (16 bytes aligned).
template <class S, int K, class Get>
__device__ __forceinline__ void store_row_pieces(S *out, int n, Get &&get) {
  constexpr int PIECE = kRowPiece<S>;
#pragma unroll
  for (int c = 0; c < K; c += PIECE) {
    if (c >= n) break;
    if (c + PIECE <= n) {
      S e[PIECE];
#pragma unroll
      for (int k = 0; k < PIECE; ++k) e[k] = narrow<S>(get(c + k));
      uint4 raw;
      memcpy(&raw, e, 16);
      *reinterpret_cast<uint4 *>(out + c) = raw;
    } else {
#pragma unroll
      for (int k = 0; k < PIECE; ++k)
        if (c + k < n) out[c + k] = narrow<S>(get(c + k));
    }
  }
}

// The pivot of LAPACK's rule (SPEC.md section 3) as a reduction key: the first NaN, else the
// first of largest |re| + |im|; "first" is the row's current position in LAPACK's order.
template <class R>
struct PivotKey {
  R value;    // |re| + |im|; -1 for rows that take no part
  int nan;    // 1: the value is NaN
  int row;    // current position; INT_MAX for rows that take no part
  __device__ __forceinline__ bool beats(const PivotKey &o) const {
    if (nan != o.nan) return nan > o.nan;
    if (!nan && value != o.value) return value > o.value;
    return row < o.row;
  }
};
template <class CT>
__device__ __forceinline__ PivotKey<real_t<CT>> pivot_key(CT x, int row) {
  const real_t<CT> v = abs1(x);
  if (v != v) return {real_t<CT>(0), 1, row};
  return {v, 0, row};
}
template <class R>
__device__ __forceinline__ PivotKey<R> no_pivot() {
  return {R(-1), 0, INT_MAX};
}
// The best key over the `width` lanes of a segment (every lane gets it).
template <int width, class R>
__device__ __forceinline__ PivotKey<R> segment_best(PivotKey<R> k) {
#pragma unroll
  for (int off = width / 2; off > 0; off /= 2) {
    PivotKey<R> o;
    o.value = __shfl_xor_sync(~0u, k.value, off, width);
    o.nan = __shfl_xor_sync(~0u, k.nan, off, width);
    o.row = __shfl_xor_sync(~0u, k.row, off, width);
    if (o.beats(k)) k = o;
  }
  return k;
}


// ---- the register kernels' pivot search: over the K lanes of one problem (a segment of the
// warp), with as few shuffles as the precision allows (they are the kernels' bottleneck).

// Largest 64-bit key over the segment (every lane gets it). One problem per warp: two
// warp reductions; else a butterfly.
template <int K>
__device__ __forceinline__ uint64_t segment_max(uint64_t key) {
  if constexpr (K == 32) {
    const unsigned hi = __reduce_max_sync(~0u, unsigned(key >> 32));
    const unsigned lo = __reduce_max_sync(~0u, unsigned(key >> 32) == hi ? unsigned(key) : 0u);
    return uint64_t(hi) << 32 | lo;
  } else {
#pragma unroll
    for (int off = K / 2; off > 0; off /= 2) {
      const uint64_t o = __shfl_xor_sync(~0u, key, off, K);
      key = o > key ? o : key;
    }
    return key;
  }
}
template <int K>
__device__ __forceinline__ int segment_min(int x) {
  if constexpr (K == 32) {
    return __reduce_min_sync(~0u, x);
  } else {
#pragma unroll
    for (int off = K / 2; off > 0; off /= 2) x = min(x, __shfl_xor_sync(~0u, x, off, K));
    return x;
  }
}

// Step i's pivot among a problem's rows (SPEC.md section 3: the first NaN, else the first of
// largest |re| + |im|, "first" in LAPACK's current order `cur`). `magnitude` is |re| + |im| of
// this lane's row, `take_part` whether the row is still below the diagonal. Returns the
// pivot's position (every lane); `is_pivot` tells its lane. Magnitudes become unsigned keys in
// the same order (non-negative IEEE numbers order as their bits; NaN above all; 0 for lanes
// that take no part); in single precision the key carries the position too, so one reduction
// decides ties.
template <int K>
__device__ __forceinline__ int pivot_row(float magnitude, bool take_part, int cur, bool &is_pivot) {
  const unsigned mk = magnitude != magnitude ? 0xffffffffu : __float_as_uint(magnitude) + 1u;
  const uint64_t key = take_part ? uint64_t(mk) << 32 | unsigned(~cur) : 0;
  const int row = int(~unsigned(segment_max<K>(key)));
  is_pivot = take_part && cur == row;
  return row;
}
template <int K>
__device__ __forceinline__ int pivot_row(double magnitude, bool take_part, int cur, bool &is_pivot) {
  const uint64_t mk = magnitude != magnitude ? ~0ull : uint64_t(__double_as_longlong(magnitude)) + 1;
  const uint64_t key = take_part ? mk : 0;
  const uint64_t best = segment_max<K>(key);  // every lane takes part in the reductions
  const bool candidate = take_part && key == best;
  const int row = segment_min<K>(candidate ? cur : INT_MAX);
  is_pivot = candidate && cur == row;
  return row;
}

// The pivot among a thread block's rows (getrf_panel.cuh): pivot_row's keys reduced in each
// warp by __reduce_*_sync, the warps' results through shared memory (keys[warp], and rows[warp]
// where the key does not carry the position), then reduced again by every warp. One block
// barrier; every thread of the block calls it and gets the pivot's position. Against the
// earlier PivotKey partials (a loop, or shuffles from 4 warps) blocked getrf's kernel time fell
// 4-23 % at 40..512 (H200, s44; bench/results/lu-panel-redux-ab-NVIDIA-H200-s44.txt).
__device__ __forceinline__ int block_pivot_row(float magnitude, bool take_part, int cur, uint64_t *keys, int *,
                                               int lane, int warp, int warps) {
  const unsigned mk = magnitude != magnitude ? 0xffffffffu : __float_as_uint(magnitude) + 1u;
  const uint64_t key = segment_max<32>(take_part ? uint64_t(mk) << 32 | unsigned(~cur) : 0);
  if (lane == 0) keys[warp] = key;
  __syncthreads();
  return int(~unsigned(segment_max<32>(lane < warps ? keys[lane] : 0)));
}
__device__ __forceinline__ int block_pivot_row(double magnitude, bool take_part, int cur, uint64_t *keys, int *rows,
                                               int lane, int warp, int warps) {
  const uint64_t mk = magnitude != magnitude ? ~0ull : uint64_t(__double_as_longlong(magnitude)) + 1;
  const uint64_t key = take_part ? mk : 0;
  const uint64_t best = segment_max<32>(key);
  const int row = segment_min<32>(take_part && key == best ? cur : INT_MAX);
  if (lane == 0) keys[warp] = best, rows[warp] = row;
  __syncthreads();
  const uint64_t warp_key = lane < warps ? keys[lane] : 0;
  const uint64_t block_best = segment_max<32>(warp_key);
  return segment_min<32>(lane < warps && warp_key == block_best ? rows[lane] : INT_MAX);
}

// The columns outside a panel that take its interchanges: the columns_left before it, then the
// columns_right after it. panel_outside_column: the t-th of them, relative to the panel.
__host__ __device__ inline int panel_outside_count(const FactorRun &G) { return G.columns_left + G.columns_right; }
__device__ inline int panel_outside_column(const FactorRun &G, int t) {
  return t < G.columns_left ? t - G.columns_left : G.n + (t - G.columns_left);
}

// A panel's interchanges (rows[i]: the row that went to row i, in order) on the columns outside
// it (panel_outside_column). A thread per column, the interchanges in
// LAPACK's order; the panel's pivots come from shared memory, never from ipiv (a NULL problem of
// device pointer arrays computes in scratch that ipiv shares).
template <class S>
__device__ void interchange_outside(S *a, const FactorRun &G, int steps, const int *rows) {
  const int outside = panel_outside_count(G);
  for (int t = threadIdx.x; t < outside; t += blockDim.x) {
    const int c = panel_outside_column(G, t);
    for (int i = 0; i < steps; ++i) {
      const int r = rows[i];
      if (r == i) continue;
      S &x = a[element_index(G.row_major, G.A.ld, i, c)], &y = a[element_index(G.row_major, G.A.ld, r, c)];
      const S keep = x;
      x = y, y = keep;
    }
  }
}

}  // namespace bb::cuda
