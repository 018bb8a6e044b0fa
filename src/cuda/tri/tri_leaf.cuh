// trsm / trmm for a triangle of order <= K (K = 2..32): each lane holds one line of B in
// registers (a column of B for side Left, a row for Right: X op(A) = alpha B is solved as
// op(A)^T X^T = alpha B^T), the team's triangle M (op(A), or op(A)^T for Right) packed by rows
// in shared memory, read by every lane of the team at the same address (a broadcast). Side
// Right reads and writes its rows straight from registers (consecutive lanes on consecutive
// elements); side Left passes B's columns through shared memory so that global accesses run
// along them. Only the referenced triangle is read (the diagonal only for non-unit A); with
// alpha = 0, neither A nor B (BLAS). Teams of tri_team(K, lines) lanes, 32 / team per warp,
// 1-4 warps per block (tri_leaf_warps), no block barrier.
#pragma once
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
  if (solve && lower) {
#pragma unroll
    for (int i = 0; i < K; ++i) {
      if (i >= n) break;
      CT s = x[i];
#pragma unroll
      for (int k = 0; k < i; ++k) s = msub(s, m[packed_at<K>(true, i, k)], x[k]);
      x[i] = unit ? s : solved<K>(s, m, true, i);
    }
  } else if (solve) {
#pragma unroll
    for (int i = K - 1; i >= 0; --i) {
      if (i >= n) continue;
      CT s = x[i];
#pragma unroll
      for (int k = i + 1; k < K; ++k)
        if (k < n) s = msub(s, m[packed_at<K>(false, i, k)], x[k]);
      x[i] = unit ? s : solved<K>(s, m, false, i);
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

// A team's staging pass over steps s = 0..K-1 (each lane one element per step), U steps' loads
// in flight before their stores (a plain loop waits for each load before issuing the next).
// load(s, v) says whether step s has an element for this lane. Fully unrolled: the step's
// offsets are products of a constant and a per-lane stride, no division, no index tests beyond
// the bounds.
template <int K, int U, class CT, class Load, class Store>
__device__ __forceinline__ void staged_steps(Load &&load, Store &&store) {
#pragma unroll
  for (int s0 = 0; s0 < K; s0 += U) {
    CT v[U];
    bool read[U];
#pragma unroll
    for (int j = 0; j < U; ++j) read[j] = load(s0 + j, v[j]);
#pragma unroll
    for (int j = 0; j < U; ++j)
      if (read[j]) store(s0 + j, v[j]);
  }
}

// Staging without registers where the stored type is the compute type and 8 or 16 bytes (r64,
// c32, c64): each element an asynchronous copy from global into shared memory (cp.async, Ampere
// and later), so that a lane's whole share of A and B is in flight at once and costs no
// registers. H200, trsm kernel % of bandwidth at n = 4 / 8 / 16 / 32, register staging -> copies:
// c64 60 / 53 / 49 / 20 -> 67 / 78 / 71 / 27, c32 46 / 45 / 33 / 23 -> 50 / 59 / 53 / 37, r64
// 47 / 57 / 62 / 52 -> 49 / 60 / 63 / 60. r32 lost 3-10 points with copies (twice the copies per
// byte) and half precision widens, so both stage through registers (staged_steps).
template <class S> constexpr bool kAsyncStaging = sizeof(S) == sizeof(typename dev<S>::C) && sizeof(S) >= 8;
template <class S> __device__ __forceinline__ void copy_async(S *shared, const S *global) {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(unsigned(__cvta_generic_to_shared(shared))),
               "l"(global), "n"(int(sizeof(S))));
#else
  *shared = *global;
#endif
}
__device__ __forceinline__ void wait_async_copies() {
#if __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}
// A team's staging pass over steps s = 0..K-1: has(s) whether step s has an element for this
// lane, at(s) its address, target(s) its place in shared memory. Copies are raw; staging through
// registers conjugates where asked (the copies' conjugation is a pass of its own).
template <int K, int U, class S, class CT, class Has, class At, class Target>
__device__ __forceinline__ void stage(Has &&has, At &&at, Target &&target, bool conjugate = false) {
  if constexpr (kAsyncStaging<S>) {
#pragma unroll
    for (int s = 0; s < K; ++s)
      if (has(s)) copy_async(reinterpret_cast<S *>(target(s)), at(s));
  } else {
    staged_steps<K, U, CT>(
        [&](int s, CT &v) {
          if (!has(s)) return false;
          v = widen(*at(s));
          if (conjugate) v = conj(v);
          return true;
        },
        [&](int s, CT v) { *target(s) = v; });
  }
}

// The output pass recomputes its addresses from this pointer instead of keeping the input
// pass's K addresses alive across the solve (registers the compiler would otherwise hold).
template <class T> __device__ __forceinline__ void keep_in_one_register(T *&p) { asm volatile("" : "+l"(p)); }

template <class S, int K>
__global__ void __launch_bounds__(32 * tri_leaf_warps(K, int(sizeof(typename dev<S>::C))),
                                  tri_leaf_min_blocks(K, int(sizeof(typename dev<S>::C)), !kAsyncStaging<S>))
    tri_leaf(const __grid_constant__ TriLaunch L) {
  using CT = typename dev<S>::C;
  constexpr int WARPS = tri_leaf_warps(K, int(sizeof(CT))), TEAM = tri_leaf_team_elements(K);
  constexpr int XS = 33;  // row stride of the lines' area
  // Staging batches: about 64 registers of loads in flight per lane.
  constexpr int U = K < 32 / int(sizeof(CT) / 4) ? K : 32 / int(sizeof(CT) / 4);
  extern __shared__ __align__(16) unsigned char tri_shared[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  CT *const area = reinterpret_cast<CT *>(tri_shared) + warp * tri_leaf_warp_elements(K);
  CT *const xs = area + 32 / K * TEAM;  // side Left: element t of lane l's line at xs[t * XS + l]
  for (int64_t u = int64_t(blockIdx.x) * WARPS + warp; u < L.total_units; u += int64_t(gridDim.x) * WARPS) {
    const TriRun &G = run_of<WARPS>(L, u);
    const int n = G.order(), lines = G.lines();
    const int W = tri_team(K, lines), q = lane / W, l = lane % W;
    const int chunks = (lines + W - 1) / W;
    const int64_t task = (u - G.unit_begin) * (32 / W) + q, p = chunks == 1 ? task : task / chunks;
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
    // Staging lanes: row r = l % K of a K-row tile, columns c0, c0 + per, ... (consecutive lanes
    // on consecutive stored rows: coalesced where columns are contiguous).
    const int r = l % K, c0 = l / K, per = W / K;
    // A's referenced triangle (the diagonal only for non-unit A) into M.
    const S *const pa = a + r + c0 * lda;
    const int64_t a_step = per * lda;
    auto a_has = [&](int s) {
      const int d = r - (c0 + s * per);
      const bool referenced = d == 0 ? !G.unit_diag : G.lower ? d > 0 : d < 0;
      return compute && r < n && c0 + s * per < n && referenced;
    };
    auto a_target = [&](int s) {
      const int c = c0 + s * per;
      return m + (transposed ? packed_at<K>(lower, c, r) : packed_at<K>(lower, r, c));
    };
    if (compute) stage<K, U, S, CT>(a_has, [&](int s) { return pa + s * a_step; }, a_target, conjugated);
    // Side Left: B's columns come through the lines' area (lanes along a column in global
    // memory, a column per lane in registers); side Right reads rows straight into registers
    // (consecutive lanes on consecutive rows).
    S *const pb = G.left ? b + r + (first_line + c0) * ldb : b + first_line + l;
    const int64_t b_step = G.left ? per * ldb : ldb;
    const int xs_first = r * XS + q * W + c0;
    if (compute && G.left)
      stage<K, U, S, CT>([&](int s) { return r < n && c0 + s * per < count; }, [&](int s) { return pb + s * b_step; },
                         [&](int s) { return xs + xs_first + s * per; });
    if constexpr (kAsyncStaging<S>) {
      wait_async_copies();
      if (conjugated)  // A^H's conjugation on the lane's own copied elements
#pragma unroll
        for (int s = 0; s < K; ++s)
          if (a_has(s)) *a_target(s) = conj(*a_target(s));
    }
    __syncwarp();
    // trsm: the reciprocals of M's diagonal, a lane per row, where they stay finite (a subnormal
    // diagonal's would overflow: 0 marks a row that divides; 1 / Inf = 0 divides too).
    if (compute && G.solve && !G.unit_diag && l < n) {
      const CT d = m[packed_at<K>(lower, l, l)];
      m[reciprocal_at<K>(l)] = abs1(d) >= smallest_normal<real_t<CT>>() ? divide(from_real<CT>(1), d) : from_real<CT>(0);
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
#pragma unroll
          for (int t = 0; t < K; ++t)
            if (t < n) x[t] = mul(alpha, widen(pb[t * b_step]));
        }
      }
      if (!G.zero_alpha) tri_line<K>(x, m, n, lower, G.unit_diag, G.solve);
      S *out = pb;
      keep_in_one_register(out);
      if (G.left) {
#pragma unroll
        for (int t = 0; t < K; ++t)
          if (t < n) xs[t * XS + lane] = x[t];
      } else {
#pragma unroll
        for (int t = 0; t < K; ++t)
          if (t < n) out[t * b_step] = narrow<S>(x[t]);
      }
    }
    __syncwarp();
    if (count && G.left) {
      S *out = pb;
      keep_in_one_register(out);
      staged_steps<K, U, CT>([&](int s, CT &v) {
            if (!(r < n && c0 + s * per < count)) return false;
            v = xs[xs_first + s * per];
            return true;
          },
          [&](int s, CT v) { out[s * b_step] = narrow<S>(v); });
    }
    if (b && first_line == 0 && l == 0 && G.info) G.info[p] = 0;
    __syncwarp();  // the next unit overwrites the shared areas
  }
}

}  // namespace bb::cuda
