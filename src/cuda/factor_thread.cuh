// The frame of the one-problem-per-thread kernels of the factorizations (lu/lu_thread.cuh,
// qr/geqrf_thread.cuh): a thread's whole K x K matrix (K <= 4) in its registers, loaded and
// stored in either layout or as whole words, and the loop over a launch's problems, 32 per
// warp, with the warp's matrices optionally staged through shared memory.
#pragma once
#include "factor_common.cuh"

namespace bb::cuda {

// A problem's m x n matrix (m, n <= K) into x[row][col] of the compute type (zeros beyond),
// and back: element (i, j) at a[i * rs + j * cs].
template <class S, int K>
__device__ __forceinline__ void thread_load(const S *a, int64_t rs, int64_t cs, int m, int n,
                                            typename dev<S>::C (&x)[K][K]) {
  // Along moving pointers: an add an element, not 64-bit products.
  const S *row = a;
#pragma unroll
  for (int i = 0; i < K; ++i, row += rs) {
    const S *e = row;
#pragma unroll
    for (int j = 0; j < K; ++j, e += cs) x[i][j] = i < m && j < n ? widen(*e) : widen(zero<S>());
  }
}
template <class S, int K>
__device__ __forceinline__ void thread_store(S *a, int64_t rs, int64_t cs, int m, int n,
                                             const typename dev<S>::C (&x)[K][K]) {
  S *row = a;
#pragma unroll
  for (int i = 0; i < K; ++i, row += rs) {
    S *e = row;
#pragma unroll
    for (int j = 0; j < K; ++j, e += cs)
      if (i < m && j < n) *e = narrow<S>(x[i][j]);
  }
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

// f(G, p, a, vec) for each problem of the launch this thread owns (not past a run's end, not
// skipped for a NULL pointer), vec its per-problem vector (G.*vector: ipiv's ints, tau's
// scalars): 32 problems per warp, WPB warps per block. f returns whether it wrote the matrix.
// With Stage, a warp whose problems are dense K x K matrices (ld = K) on 16-byte boundaries
// moves them through shared memory: the warp reads and writes 16-byte words of consecutive
// addresses together (a thread alone reads its matrix's words 128 bytes or more apart from its
// neighbours', which costs the L2 twice the sectors), and f works on the thread's copy there.
template <class S, class V, int K, bool Stage, int WPB, class F>
__device__ __forceinline__ void thread_problems(const FactorLaunch &L, DevOperand FactorRun::*vector, F &&f) {
  constexpr int PPW = 32;
  constexpr int kBytes = K * K * int(sizeof(S));
  constexpr bool kCanStage = Stage && kBytes % 16 == 0;
  constexpr int W = kCanStage ? kBytes / 16 : 1;  // words per matrix (1 where nothing is staged)
  constexpr int kRow = W + 1;  // words per staged matrix: odd strides spread the banks
  __shared__ uint4 stage[kCanStage ? WPB * PPW * kRow : 1];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  uint4 *mine = stage + (warp * PPW + lane) * kRow, *base = stage + warp * PPW * kRow;
  for (int64_t u = int64_t(blockIdx.x) * WPB + warp; u < L.total_units; u += int64_t(gridDim.x) * WPB) {
    const FactorRun &G = run_of<WPB>(L, u);  // the same run for the whole warp
    const int64_t p = (u - G.unit_begin) * PPW + lane;
    S *a = nullptr;
    V *vec = nullptr;
    if (p < G.problems) a = operand_at<S>(G.A, p), vec = operand_at<V>(G.*vector, p);
    const bool active = a && vec;
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
    const bool wrote = active && f(G, p, work, vec);
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

}  // namespace bb::cuda
