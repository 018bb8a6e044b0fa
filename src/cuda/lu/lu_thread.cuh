// getrf and getri for m, n <= K with K = 2 or 4: one thread per problem, the whole matrix in
// its registers. At these sizes a problem is a few dozen flops: lanes that cooperate on one
// matrix (the register kernels) would spend more on reductions and broadcasts than on the
// work, while a thread alone needs no communication at all. 32 problems per warp.
#pragma once
#include "../factor_thread.cuh"
#include "lu_common.cuh"

namespace bb::cuda {

// Each problem of the launch that this thread owns, with its ipiv (factor_thread.cuh); the
// warp's dense 128-byte matrices staged through shared memory where Stage (lu_thread_stage).
template <class S, int K, bool Stage, class F>
__device__ __forceinline__ void for_each_thread_problem(const FactorLaunch &L, F &&f) {
  thread_problems<S, int, K, Stage && lu_thread_stage(K * K * int(sizeof(S))), kLuThreadWarps>(L, &FactorRun::ipiv, f);
}

// xgetf2 on a thread's matrix: x becomes L and U, pv[i] the 0-based pivot row of step i
// (i < min(m, n)), info the first zero pivot (1-based) or 0.
template <int K, class CT>
__device__ __forceinline__ void thread_getrf(CT (&x)[K][K], int m, int n, int (&pv)[K], int &info) {
  using R = real_t<CT>;
  const int mn = m < n ? m : n;
  const R sfmin = smallest_normal<R>();
  info = 0;
#pragma unroll
  for (int i = 0; i < K; ++i) {
    pv[i] = i;
    if (i >= mn) continue;
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
    pv[i] = pr;
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
}

// inv(A) of an n x n matrix from its factors f (L and U, U's diagonal non-zero) and 0-based
// pivots pv: column c of inv(A) = U \ (L \ (P^T e_c)).
template <int K, class CT>
__device__ __forceinline__ void thread_getri(const CT (&f)[K][K], const int (&pv)[K], int n, CT (&inv)[K][K]) {
  using R = real_t<CT>;
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
}

template <class S, int K, bool Stage>
__global__ void __launch_bounds__(32 * kLuThreadWarps, lu_thread_min_blocks(std::is_same_v<S, cplx<float>>))
    getrf_thread(const __grid_constant__ FactorLaunch L) {
  using CT = typename dev<S>::C;
  for_each_thread_problem<S, K, Stage>(L, [&](const FactorRun &G, int64_t p, S *a, int *piv) {
    const int m = G.m, n = G.n, mn = m < n ? m : n;
    const ThreadMatrix<S, K> M(a, G, m, n);
    CT x[K][K];
    M.load(x, m, n);
    int pv[K], info;
    thread_getrf<K>(x, m, n, pv, info);
#pragma unroll
    for (int i = 0; i < K; ++i)
      if (i < mn) piv[i] = pv[i] + 1;
    M.store(x, m, n);
    if (info && G.codes) G.codes[p] = info;
    if (G.info) G.info[p] = info;
    return true;
  });
}

template <class S, int K, bool Stage>
__global__ void __launch_bounds__(32 * kLuThreadWarps) getri_thread(const __grid_constant__ FactorLaunch L) {
  using CT = typename dev<S>::C;
  for_each_thread_problem<S, K, Stage>(L, [&](const FactorRun &G, int64_t p, S *a, const int *piv) {
    const int n = G.n;
    const ThreadMatrix<S, K> M(a, G, n, n);
    CT f[K][K];
    M.load(f, n, n);
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
      return false;
    }
    CT inv[K][K];
    thread_getri<K>(f, pv, n, inv);
    M.store(inv, n, n);
    return true;
  });
}

// The inverse in one call (SPEC.md 9.4): getrf and getri on the matrix in registers, read once
// and written once; getri works on the unrounded factors, so info is getrf's. A singular
// problem stores its factors.
template <class S, int K, bool Stage>
__global__ void __launch_bounds__(32 * kLuThreadWarps) getrf_getri_thread(const __grid_constant__ FactorLaunch L) {
  using CT = typename dev<S>::C;
  for_each_thread_problem<S, K, Stage>(L, [&](const FactorRun &G, int64_t p, S *a, int *piv) {
    const int n = G.n;
    const ThreadMatrix<S, K> M(a, G, n, n);
    CT x[K][K];
    M.load(x, n, n);
    int pv[K], info;
    thread_getrf<K>(x, n, n, pv, info);
#pragma unroll
    for (int i = 0; i < K; ++i)
      if (i < n) piv[i] = pv[i] + 1;
    if (info) {
      M.store(x, n, n);
    } else {
      CT inv[K][K];
      thread_getri<K>(x, pv, n, inv);
      M.store(inv, n, n);
    }
    if (info && G.codes) G.codes[p] = info;
    if (G.info) G.info[p] = info;
    return true;
  });
}

}  // namespace bb::cuda
