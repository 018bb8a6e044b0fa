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
// M(i, k) at m[i * MS + k]. The line was scaled by alpha already.
template <int K, int MS, class CT>
__device__ __forceinline__ void tri_line(CT (&x)[K], const CT *m, int n, bool lower, bool unit, bool solve) {
  if (solve && lower) {
#pragma unroll
    for (int i = 0; i < K; ++i) {
      if (i >= n) break;
      CT s = x[i];
#pragma unroll
      for (int k = 0; k < i; ++k) s = msub(s, m[i * MS + k], x[k]);
      x[i] = unit ? s : divide(s, m[i * MS + i]);
    }
  } else if (solve) {
#pragma unroll
    for (int i = K - 1; i >= 0; --i) {
      if (i >= n) continue;
      CT s = x[i];
#pragma unroll
      for (int k = i + 1; k < K; ++k)
        if (k < n) s = msub(s, m[i * MS + k], x[k]);
      x[i] = unit ? s : divide(s, m[i * MS + i]);
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
    const int64_t task = (u - G.unit_begin) * (32 / W) + q, p = task / chunks;
    const int first_line = int(task % chunks) * W;
    // A NULL A or B (device pointer arrays; host ones come with B NULL): a skipped problem.
    S *b = p < G.problems ? operand_at<S>(G.B, p) : nullptr;
    const S *a = b ? operand_at<S>(G.A, p) : nullptr;
    if (!a) b = nullptr;
    const int count = b ? min(W, lines - first_line) : 0;  // the team's lines
    CT *const m = area + q * K * MS;
    // M(i, k) = A(i, k), or A(k, i) where M is A's transpose (side Left with A^T or A^H, side
    // Right with A), conjugated for A^H; M is lower where that makes A's triangle lower.
    const bool transposed = G.left ? G.trans != 0 : G.trans == 0, conjugated = G.trans == 2;
    const bool lower = G.lower != transposed;
    const int64_t lda = G.A.ld, ldb = G.B.ld;
    if (count && !G.zero_alpha) {
      // Consecutive lanes on consecutive stored rows (coalesced); only the referenced triangle.
      for (int e = l; e < n * n; e += W) {
        const int r = e % n, c = e / n, i = transposed ? c : r, k = transposed ? r : c;
        if (lower ? k < i : k > i) m[i * MS + k] = conjugated ? conj(widen(a[r + c * lda])) : widen(a[r + c * lda]);
        else if (k == i && !G.unit_diag) m[i * MS + i] = conjugated ? conj(widen(a[r + c * lda])) : widen(a[r + c * lda]);
      }
      for (int e = l; e < n * count; e += W) {
        // Element t of line j: B(t, j) for Left (t contiguous), B(j, t) for Right (j contiguous).
        const int t = G.left ? e % n : e / count, j = G.left ? e / n : e % count;
        const int64_t at = G.left ? t + (first_line + j) * ldb : (first_line + j) + t * ldb;
        xs[t * XS + q * W + j] = widen(b[at]);
      }
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
    for (int e = l; e < n * count; e += W) {
      const int t = G.left ? e % n : e / count, j = G.left ? e / n : e % count;
      const int64_t at = G.left ? t + (first_line + j) * ldb : (first_line + j) + t * ldb;
      b[at] = narrow<S>(xs[t * XS + q * W + j]);
    }
    if (b && first_line == 0 && l == 0 && G.info) G.info[p] = 0;
    __syncwarp();  // the next unit overwrites the shared areas
  }
}

}  // namespace bb::cuda
