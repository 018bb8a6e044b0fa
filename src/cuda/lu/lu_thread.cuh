// getrf and getri for m, n <= K with K = 2 or 4: one thread per problem, the whole matrix in
// its registers. At these sizes a problem is a few dozen flops: lanes that cooperate on one
// matrix (the register kernels) would spend more on reductions and broadcasts than on the
// work, while a thread alone needs no communication at all. 32 problems per warp.
#pragma once
#include "lu_common.cuh"

namespace bb::cuda {

template <class S, int K>
struct LuThreadShape {
  static constexpr int WPB = 4, THREADS = 32 * WPB, PPW = 32;
};

// A problem's m x n matrix (m, n <= K) into a[row][col] of the compute type, zeros beyond.
template <class S, int K>
__device__ __forceinline__ void thread_load(const S *a, const LuSeg &G, int m, int n,
                                            typename dev<S>::C (&x)[K][K]) {
#pragma unroll
  for (int i = 0; i < K; ++i)
#pragma unroll
    for (int j = 0; j < K; ++j)
      x[i][j] = i < m && j < n ? widen(a[lu_index(G.row_major, G.A.ld, i, j)]) : widen(zero<S>());
}
template <class S, int K>
__device__ __forceinline__ void thread_store(S *a, const LuSeg &G, int m, int n,
                                             const typename dev<S>::C (&x)[K][K]) {
#pragma unroll
  for (int i = 0; i < K; ++i)
#pragma unroll
    for (int j = 0; j < K; ++j)
      if (i < m && j < n) a[lu_index(G.row_major, G.A.ld, i, j)] = narrow<S>(x[i][j]);
}

template <class S, int K>
__global__ void __launch_bounds__(LuThreadShape<S, K>::THREADS) getrf_thread(const __grid_constant__ LuLaunch L) {
  using CT = typename dev<S>::C;
  using R = real_t<CT>;
  constexpr int WPB = LuThreadShape<S, K>::WPB, PPW = 32;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int64_t u = int64_t(blockIdx.x) * WPB + warp; u < L.total_units; u += int64_t(gridDim.x) * WPB) {
    const LuSeg &G = run_of<WPB>(L, u);
    const int64_t p = (u - G.unit_begin) * PPW + lane;
    if (p >= G.problems) continue;
    S *a = operand_at<S>(G.A, p);
    int *piv = operand_at<int>(G.ipiv, p);
    if (!a || !piv) continue;  // skipped (a NULL pointer)
    const int m = G.m, n = G.n, mn = m < n ? m : n;
    CT x[K][K];
    thread_load<S, K>(a, G, m, n, x);
    int info = 0;
    const R sfmin = smallest_normal<R>();
#pragma unroll
    for (int i = 0; i < K; ++i) {
      if (i >= mn) break;
      // LAPACK's pivot: the first NaN, else the first of largest |re| + |im| (rows i..m-1).
      int pr = i;
      R best = abs1(x[i][i]);
      bool nan = best != best;
#pragma unroll
      for (int r = i + 1; r < K; ++r) {
        if (r >= m || nan) break;
        const R v = abs1(x[r][i]);
        if (v != v) nan = true, pr = r;
        else if (v > best) best = v, pr = r;
      }
      piv[i] = pr + 1;
#pragma unroll
      for (int r = i + 1; r < K; ++r)  // rows i and pr trade places (selects: no dynamic index)
        if (r == pr)
#pragma unroll
          for (int j = 0; j < K; ++j) {
            const CT t = x[i][j];
            x[i][j] = x[r][j], x[r][j] = t;
          }
      const CT d = x[i][i];
      // A zero pivot is not divided by, but its column still updates the rest (xgetf2).
      const bool zero_pivot = is_zero(d);
      if (zero_pivot && !info) info = i + 1;
      const CT rinv = zero_pivot ? d : divide(from_real<CT>(R(1)), d);
      const bool reciprocal = abs1(d) >= sfmin;
#pragma unroll
      for (int r = i + 1; r < K; ++r) {
        if (!zero_pivot) x[r][i] = reciprocal ? mul(x[r][i], rinv) : divide(x[r][i], d);
#pragma unroll
        for (int j = i + 1; j < K; ++j) x[r][j] = msub(x[r][j], x[r][i], x[i][j]);
      }
    }
    thread_store<S, K>(a, G, m, n, x);
    if (info && G.codes) G.codes[p] = info;
    if (G.info) G.info[p] = info;
  }
}

template <class S, int K>
__global__ void __launch_bounds__(LuThreadShape<S, K>::THREADS) getri_thread(const __grid_constant__ LuLaunch L) {
  using CT = typename dev<S>::C;
  using R = real_t<CT>;
  constexpr int WPB = LuThreadShape<S, K>::WPB, PPW = 32;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int64_t u = int64_t(blockIdx.x) * WPB + warp; u < L.total_units; u += int64_t(gridDim.x) * WPB) {
    const LuSeg &G = run_of<WPB>(L, u);
    const int64_t p = (u - G.unit_begin) * PPW + lane;
    if (p >= G.problems) continue;
    S *a = operand_at<S>(G.A, p);
    const int *piv = operand_at<int>(G.ipiv, p);
    if (!a || !piv) continue;  // skipped (a NULL pointer)
    const int n = G.n;
    CT f[K][K];
    thread_load<S, K>(a, G, n, n, f);
    int pv[K], code = 0;
#pragma unroll
    for (int i = 0; i < K; ++i) {
      pv[i] = i < n ? piv[i] - 1 : i;
      if (i < n && (pv[i] < 0 || pv[i] >= n)) code = G.bad_pivot_code;
    }
#pragma unroll
    for (int i = K - 1; i >= 0; --i)  // the first zero on U's diagonal
      if (i < n && is_zero(f[i][i]) && code >= 0) code = i + 1;
    if (G.info) G.info[p] = code;
    if (code) {  // left as it was
      if (G.codes) G.codes[p] = code;
      continue;
    }
    // Column c of inv(A) = U \ (L \ (P^T e_c)).
    CT inv[K][K];
    const CT one = from_real<CT>(R(1)), zero_c = from_real<CT>(R(0));
#pragma unroll
    for (int c = 0; c < K; ++c) {
      int pos = c;
#pragma unroll
      for (int i = 0; i < K; ++i) {
        if (i >= n) break;
        if (pos == i) pos = pv[i];
        else if (pos == pv[i]) pos = i;
      }
      CT x[K];
#pragma unroll
      for (int i = 0; i < K; ++i) {
        CT acc = i == pos ? one : zero_c;
#pragma unroll
        for (int k = 0; k < i; ++k) acc = msub(acc, f[i][k], x[k]);
        x[i] = acc;
      }
#pragma unroll
      for (int i = K - 1; i >= 0; --i) {
        if (i >= n) {
          x[i] = zero_c;
          continue;
        }
        CT acc = x[i];
#pragma unroll
        for (int k = i + 1; k < K; ++k) acc = msub(acc, f[i][k], x[k]);
        x[i] = divide(acc, f[i][i]);
      }
#pragma unroll
      for (int i = 0; i < K; ++i) inv[i][c] = x[i];
    }
    thread_store<S, K>(a, G, n, n, inv);
  }
}

}  // namespace bb::cuda
