// getrf and getri for m, n <= K with K = 2 or 4: one thread per problem, the whole matrix in
// its registers. At these sizes a problem is a few dozen flops: lanes that cooperate on one
// matrix (the register kernels) would spend more on reductions and broadcasts than on the
// work, while a thread alone needs no communication at all. 32 problems per warp.
#pragma once
#include "lu_common.cuh"

namespace bb::cuda {

// A problem's m x n matrix (m, n <= K) into x[row][col] of the compute type (zeros beyond),
// and back: element (i, j) at a[i * rs + j * cs].
template <class S, int K>
__device__ __forceinline__ void thread_load(const S *a, int64_t rs, int64_t cs, int m, int n,
                                            typename dev<S>::C (&x)[K][K]) {
#pragma unroll
  for (int i = 0; i < K; ++i)
#pragma unroll
    for (int j = 0; j < K; ++j) x[i][j] = i < m && j < n ? widen(a[i * rs + j * cs]) : widen(zero<S>());
}
template <class S, int K>
__device__ __forceinline__ void thread_store(S *a, int64_t rs, int64_t cs, int m, int n,
                                             const typename dev<S>::C (&x)[K][K]) {
#pragma unroll
  for (int i = 0; i < K; ++i)
#pragma unroll
    for (int j = 0; j < K; ++j)
      if (i < m && j < n) a[i * rs + j * cs] = narrow<S>(x[i][j]);
}

// Where a thread's problem is read and written. A dense K x K matrix (ld = K) moves as whole
// 16- or 8-byte words when its address and size allow (a 2 x 2 in double is two 16-byte
// loads; the exact shape keeps every index a constant, so the words stay in registers), else
// element by element in the caller's layout.
template <class S, int K>
struct ThreadMatrix {
  S *a;
  int64_t rs, cs;  // element (i, j) at a[i * rs + j * cs]
  int words = 0;   // 16 or 8: the dense matrix moves in words of this many bytes
  __device__ ThreadMatrix(S *a_, const FactorRun &G, int m, int n) : a(a_) {
    const bool dense = m == K && n == K && G.A.ld == K;
    rs = G.row_major ? G.A.ld : 1, cs = G.row_major ? 1 : G.A.ld;
    const std::uintptr_t bits = reinterpret_cast<std::uintptr_t>(a) | std::uintptr_t(K * K * int(sizeof(S)));
    // Whole words only: a 2 x 2 in half (8 bytes) takes one 8-byte word, never a 16-byte one.
    if (dense) words = bits % 16 == 0 ? 16 : bits % 8 == 0 ? 8 : 0;
  }
  __device__ void load(typename dev<S>::C (&x)[K][K], int m, int n) const {
    if (!words) return thread_load<S, K>(a, rs, cs, m, n, x);
    alignas(16) S buf[K * K];  // moved as 16-byte words, also if it ever lives in local memory
    copy_words(buf, a);
    if (rs == 1) thread_load<S, K>(buf, 1, K, K, K, x);  // constant indices: buf stays in registers
    else thread_load<S, K>(buf, K, 1, K, K, x);
  }
  __device__ void store(const typename dev<S>::C (&x)[K][K], int m, int n) const {
    if (!words) return thread_store<S, K>(a, rs, cs, m, n, x);
    alignas(16) S buf[K * K];  // moved as 16-byte words, also if it ever lives in local memory
    if (rs == 1) thread_store<S, K>(buf, 1, K, K, K, x);
    else thread_store<S, K>(buf, K, 1, K, K, x);
    copy_words(a, buf);
  }

 private:
  // The K x K elements between a register buffer and memory, in words.
  template <class D, class Src>
  __device__ void copy_words(D *dst, const Src *src) const {
    constexpr int kBytes = K * K * int(sizeof(S));
    if (words == 16) {
#pragma unroll
      for (int w = 0; w < kBytes / 16; ++w) reinterpret_cast<uint4 *>(dst)[w] = reinterpret_cast<const uint4 *>(src)[w];
    } else {
#pragma unroll
      for (int w = 0; w < kBytes / 8; ++w) reinterpret_cast<uint2 *>(dst)[w] = reinterpret_cast<const uint2 *>(src)[w];
    }
  }
};

// f(G, p, a, piv) for each problem of the launch this thread owns (not past a run's end, not
// skipped for a NULL pointer): 32 problems per warp, kLuThreadWarps warps per block. f returns
// whether it wrote the matrix. With Stage, a warp whose problems are dense K x K matrices
// (ld = K) on 16-byte boundaries, of the size lu_thread_stage takes, moves them through shared memory:
// the warp reads and writes 16-byte words of consecutive addresses together (a thread alone
// reads its matrix's words 128 bytes or more apart from its neighbours', which costs the L2
// twice the sectors), and f works on the thread's copy there.
template <class S, int K, bool Stage, class F>
__device__ __forceinline__ void for_each_thread_problem(const FactorLaunch &L, F &&f) {
  constexpr int WPB = kLuThreadWarps, PPW = 32;
  constexpr int kBytes = K * K * int(sizeof(S)), W = kBytes / 16;  // words per matrix
  constexpr bool kCanStage = Stage && lu_thread_stage(kBytes);
  constexpr int kRow = W + 1;  // words per staged matrix: odd strides spread the banks
  __shared__ uint4 stage[kCanStage ? WPB * PPW * kRow : 1];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  uint4 *mine = stage + (warp * PPW + lane) * kRow, *base = stage + warp * PPW * kRow;
  for (int64_t u = int64_t(blockIdx.x) * WPB + warp; u < L.total_units; u += int64_t(gridDim.x) * WPB) {
    const FactorRun &G = run_of<WPB>(L, u);  // the same run for the whole warp
    const int64_t p = (u - G.unit_begin) * PPW + lane;
    S *a = nullptr;
    int *piv = nullptr;
    if (p < G.problems) a = operand_at<S>(G.A, p), piv = operand_at<int>(G.ipiv, p);
    const bool active = a && piv;
    bool staged = false;
    if constexpr (kCanStage) {
      const bool dense = G.m == K && G.n == K && G.A.ld == K;
      staged = dense && __all_sync(~0u, !active || reinterpret_cast<std::uintptr_t>(a) % 16 == 0);
    }
    S *work = a;  // f's copy of the matrix: the caller's, or the staged one (one call of f: one copy of its code)
    if (staged) {
      const S *from = active ? a : nullptr;
#pragma unroll
      for (int k = 0; k < W; ++k) {  // word k * 32 + lane of the warp's matrices
        const int idx = k * 32 + lane, prob = idx / W, word = idx % W;
        const S *src = reinterpret_cast<const S *>(__shfl_sync(~0u, reinterpret_cast<unsigned long long>(from), prob));
        if (src) base[prob * kRow + word] = reinterpret_cast<const uint4 *>(src)[word];
      }
      __syncwarp();
      work = reinterpret_cast<S *>(mine);
    }
    const bool wrote = active && f(G, p, work, piv);
    if (!staged) continue;
    const unsigned written = __ballot_sync(~0u, wrote);
    __syncwarp();
#pragma unroll
    for (int k = 0; k < W; ++k) {
      const int idx = k * 32 + lane, prob = idx / W, word = idx % W;
      S *dst = reinterpret_cast<S *>(__shfl_sync(~0u, reinterpret_cast<unsigned long long>(a), prob));
      if (written >> prob & 1u) reinterpret_cast<uint4 *>(dst)[word] = base[prob * kRow + word];
    }
    __syncwarp();  // the next problems' words overwrite the stage
  }
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
__global__ void __launch_bounds__(32 * kLuThreadWarps) getrf_thread(const __grid_constant__ FactorLaunch L) {
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
