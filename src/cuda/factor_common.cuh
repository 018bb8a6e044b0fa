// What the kernels of the dense factorizations (getrf, getri, potrf, geqrf) share: their launch
// type and, for the one-problem-per-block kernels, the matrix they work on, either staged in
// shared memory (compute type, column-major, odd leading dimension against bank conflicts) or
// in place in global memory (storage type, the caller's layout), the staging itself and a
// block-wide sum.
#pragma once
#include "factor_run.hpp"
#include "run_table.cuh"
#include "scalar.cuh"

namespace bb::cuda {

using FactorLaunch = RunLaunch<FactorRun, kFactorInlineRuns>;
template <int K> constexpr int kRegisterLanes = register_lanes(K);  // factor_run.hpp

template <class S>
struct StagedMatrix {
  using CT = typename dev<S>::C;
  CT *a;
  int ld;
  __device__ __forceinline__ CT get(int i, int j) const { return a[i + j * ld]; }
  __device__ __forceinline__ void set(int i, int j, CT v) const { a[i + j * ld] = v; }
};

template <class S>
struct GlobalMatrix {
  using CT = typename dev<S>::C;
  S *a;
  int ld;
  bool row_major;
  __device__ __forceinline__ CT get(int i, int j) const { return widen(a[element_index(row_major, ld, i, j)]); }
  __device__ __forceinline__ void set(int i, int j, CT v) const { a[element_index(row_major, ld, i, j)] = narrow<S>(v); }
};

// f(i, j) for every element of an m x n matrix, the block's threads taking consecutive
// elements in the caller's layout (coalesced reads and writes).
template <class F>
__device__ __forceinline__ void for_each_element(bool row_major, int m, int n, F &&f) {
  const int64_t total = int64_t(m) * n;
  for (int64_t e = threadIdx.x; e < total; e += blockDim.x) {
    const int i = row_major ? int(e / n) : int(e % m), j = row_major ? int(e % n) : int(e / m);
    f(i, j);
  }
}

// Copies between the caller's m x n matrix and the staged one.
template <class S>
__device__ __forceinline__ void stage_in(const S *a, const FactorRun &G, int m, int n, const StagedMatrix<S> &M) {
  for_each_element(G.row_major, m, n,
                   [&](int i, int j) { M.set(i, j, widen(a[element_index(G.row_major, G.A.ld, i, j)])); });
}
template <class S>
__device__ __forceinline__ void stage_out(S *a, const FactorRun &G, int m, int n, const StagedMatrix<S> &M) {
  for_each_element(G.row_major, m, n,
                   [&](int i, int j) { a[element_index(G.row_major, G.A.ld, i, j)] = narrow<S>(M.get(i, j)); });
}

// A warp-wide sum (every lane gets it), real or complex.
template <class CT>
__device__ __forceinline__ CT warp_sum(CT x) {
#pragma unroll
  for (int off = 16; off > 0; off /= 2) {
    if constexpr (dev_complex<CT>) {
      x.re += __shfl_xor_sync(~0u, x.re, off);
      x.im += __shfl_xor_sync(~0u, x.im, off);
    } else {
      x += __shfl_xor_sync(~0u, x, off);
    }
  }
  return x;
}

// A block-wide sum of one value per thread (every thread gets it); `partial` holds a value per
// warp. Two barriers: `partial` may be reused right after.
template <class R>
__device__ __forceinline__ R block_sum(R x, R *partial) {
  x = warp_sum(x);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = blockDim.x / 32;
  if (lane == 0) partial[warp] = x;
  __syncthreads();
  R total = 0;
  for (int w = 0; w < warps; ++w) total += partial[w];
  __syncthreads();
  return total;
}

// f(integral_constant<b>, integral_constant<e>) for the chunks [b, e) = [Begin, Begin + Chunk),
// ... of [Begin, End): loops whose bounds must stay compile-time constants, one copy per chunk.
template <int Begin, int End, int Chunk, class F>
__device__ __forceinline__ void static_chunks(F &&f) {
  if constexpr (Begin < End) {
    constexpr int Next = Begin + Chunk < End ? Begin + Chunk : End;
    f(std::integral_constant<int, Begin>{}, std::integral_constant<int, Next>{});
    static_chunks<Next, End, Chunk>(f);
  }
}

// Problem p's code: into the info channel when not 0, and into a device info (0 included).
__device__ __forceinline__ void write_info(const FactorRun &G, int64_t p, int info) {
  if (info && G.codes) G.codes[p] = info;
  if (G.info) G.info[p] = info;
}

}  // namespace bb::cuda
