// trsm / trmm for a triangle of order <= K (K = 2..32): each lane holds one line of B in
// registers (a column of B for side Left, a row for Right: X op(A) = alpha B is solved as
// op(A)^T X^T = alpha B^T), the team's triangle M (op(A), or op(A)^T for Right) staged in shared
// memory, read by every lane of the team at the same address (a broadcast). B comes in and goes
// out through shared memory so that global accesses follow its contiguous direction whatever
// the side. Only the referenced triangle is read (the diagonal only for non-unit A); with
// alpha = 0, neither A nor B (BLAS). Teams of tri_team(K, lines) lanes, 32 / team per warp, no
// block barrier.
#pragma once
#include "../run_table.cuh"
#include "../scalar.cuh"
#include "tri_tuning.hpp"

namespace bb::cuda {

using TriLaunch = RunLaunch<TriRun, kTriInlineRuns>;

// x := M^-1 x (solve) or M x, M lower or upper of order n <= K, unit diagonal or M's own;
// M(i, k) at m[i * MS + k]. For solve, m[i * MS + K] (the row's padding) holds 1 / M(i, i), a
// multiply on the dependent chain instead of a division, or 0 where that reciprocal would
// overflow (a subnormal diagonal) and the row divides as the host does. The line was scaled by
// alpha already.
template <int K, class CT>
__device__ __forceinline__ CT solved(CT s, const CT *row, int i) {
  const CT r = row[K];
  return is_zero(r) ? divide(s, row[i]) : mul(s, r);
}

template <int K, int MS, class CT>
__device__ __forceinline__ void tri_line(CT (&x)[K], const CT *m, int n, bool lower, bool unit, bool solve) {
  if (solve && lower) {
#pragma unroll
    for (int i = 0; i < K; ++i) {
      if (i >= n) break;
      CT s = x[i];
#pragma unroll
      for (int k = 0; k < i; ++k) s = msub(s, m[i * MS + k], x[k]);
      x[i] = unit ? s : solved<K>(s, m + i * MS, i);
    }
  } else if (solve) {
#pragma unroll
    for (int i = K - 1; i >= 0; --i) {
      if (i >= n) continue;
      CT s = x[i];
#pragma unroll
      for (int k = i + 1; k < K; ++k)
        if (k < n) s = msub(s, m[i * MS + k], x[k]);
      x[i] = unit ? s : solved<K>(s, m + i * MS, i);
    }
  } else if (lower) {  // in place: row i needs the old x[k], k < i
#pragma unroll
    for (int i = K - 1; i >= 0; --i) {
      if (i >= n) continue;
      CT s = unit ? x[i] : mul(m[i * MS + i], x[i]);
#pragma unroll
      for (int k = 0; k < i; ++k) s = madd(s, m[i * MS + k], x[k]);
      x[i] = s;
    }
  } else {
#pragma unroll
    for (int i = 0; i < K; ++i) {
      if (i >= n) break;
      CT s = unit ? x[i] : mul(m[i * MS + i], x[i]);
#pragma unroll
      for (int k = i + 1; k < K; ++k)
        if (k < n) s = madd(s, m[i * MS + k], x[k]);
      x[i] = s;
    }
  }
}

// Visits the elements of a rows x cols block (rows <= W) with a team's W lanes, consecutive
// lanes on consecutive rows (coalesced where rows are contiguous in memory): lane l takes row
// l % rows of columns l / rows, l / rows + W / rows, ... (the lanes past a multiple of rows
// idle), U loads in flight before their stores (a plain loop waits for each load before
// issuing the next), and no division per element. load(r, c, v) says whether (r, c) is read.
template <int U, class CT, class Load, class Store>
__device__ __forceinline__ void block_copy(int rows, int cols, int l, int W, Load &&load, Store &&store) {
  const int per = W / rows, r = l % rows, c0 = l / rows;
  if (c0 >= per) return;
  for (int c = c0; c < cols; c += U * per) {
    CT v[U];
    bool read[U];
#pragma unroll
    for (int j = 0; j < U; ++j) read[j] = c + j * per < cols && load(r, c + j * per, v[j]);
#pragma unroll
    for (int j = 0; j < U; ++j)
      if (read[j]) store(r, c + j * per, v[j]);
  }
}

template <class S, int K>
__global__ void __launch_bounds__(32 * kTriWarps) tri_leaf(const __grid_constant__ TriLaunch L) {
  using CT = typename dev<S>::C;
  constexpr int MS = K + 1, XS = 33;  // row strides of the triangles and of the lines' area
  extern __shared__ __align__(16) unsigned char tri_shared[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  CT *const area = reinterpret_cast<CT *>(tri_shared) + warp * tri_leaf_warp_elements(K);
  CT *const xs = area + 32 * MS;  // element t of lane l's line at xs[t * XS + l]
  for (int64_t u = int64_t(blockIdx.x) * kTriWarps + warp; u < L.total_units; u += int64_t(gridDim.x) * kTriWarps) {
    const TriRun &G = run_of<kTriWarps>(L, u);
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
    CT *const m = area + q * K * MS;
    // M(i, k) = A(i, k), or A(k, i) where M is A's transpose (side Left with A^T or A^H, side
    // Right with A), conjugated for A^H; M is lower where that makes A's triangle lower.
    const bool transposed = G.left ? G.trans != 0 : G.trans == 0, conjugated = G.trans == 2;
    const bool lower = G.lower != transposed;
    const int64_t lda = G.A.ld, ldb = G.B.ld;
    // B(t, j), element t of line j: column j of B for Left (t contiguous), row j for Right.
    auto b_at = [&](int t, int j) {
      return G.left ? t + (first_line + j) * ldb : (first_line + j) + t * ldb;
    };
    constexpr int U = K < 8 ? K : 8;
    if (count && !G.zero_alpha) {
      // Consecutive lanes on consecutive stored rows; only the referenced triangle.
      block_copy<U, CT>(
          n, n, l, W,
          [&](int r, int c, CT &v) {
            const int i = transposed ? c : r, k = transposed ? r : c;
            if (!(lower ? k < i : k > i) && !(k == i && !G.unit_diag)) return false;
            v = conjugated ? conj(widen(a[r + c * lda])) : widen(a[r + c * lda]);
            return true;
          },
          [&](int r, int c, CT v) {
            const int i = transposed ? c : r, k = transposed ? r : c;
            m[i * MS + k] = v;
            if (i == k && G.solve)  // the reciprocal where it stays finite (1 / Inf = 0 divides too)
              m[i * MS + K] = abs1(v) >= smallest_normal<real_t<CT>>() ? divide(from_real<CT>(1), v) : from_real<CT>(0);
          });
      // Lanes along B's contiguous direction: t for Left, j for Right.
      auto load = [&](int t, int j, CT &v) {
        v = widen(b[b_at(t, j)]);
        return true;
      };
      auto store = [&](int t, int j, CT v) { xs[t * XS + q * W + j] = v; };
      if (G.left) block_copy<U, CT>(n, count, l, W, load, store);
      else block_copy<U, CT>(count, n, l, W, [&](int j, int t, CT &v) { return load(t, j, v); },
                             [&](int j, int t, CT v) { store(t, j, v); });
    }
    __syncwarp();
    if (l < count) {
      const CT alpha = scalar_from<CT>(G.alpha);
      CT x[K];
#pragma unroll
      for (int t = 0; t < K; ++t) x[t] = t < n && !G.zero_alpha ? mul(alpha, xs[t * XS + lane]) : from_real<CT>(0);
      if (!G.zero_alpha) tri_line<K, MS>(x, m, n, lower, G.unit_diag, G.solve);
#pragma unroll
      for (int t = 0; t < K; ++t)
        if (t < n) xs[t * XS + lane] = x[t];
    }
    __syncwarp();
    if (count) {
      auto load = [&](int t, int j, CT &v) {
        v = xs[t * XS + q * W + j];
        return true;
      };
      auto store = [&](int t, int j, CT v) { b[b_at(t, j)] = narrow<S>(v); };
      if (G.left) block_copy<U, CT>(n, count, l, W, load, store);
      else block_copy<U, CT>(count, n, l, W, [&](int j, int t, CT &v) { return load(t, j, v); },
                             [&](int j, int t, CT v) { store(t, j, v); });
    }
    if (b && first_line == 0 && l == 0 && G.info) G.info[p] = 0;
    __syncwarp();  // the next unit overwrites the shared areas
  }
}

}  // namespace bb::cuda
