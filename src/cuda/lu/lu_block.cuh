// What the one-problem-per-block LU kernels share: the matrix they work on, either staged in
// shared memory (compute type, column-major, odd leading dimension against bank conflicts) or
// in place in global memory (storage type, the caller's layout), and the staging itself.
#pragma once
#include "lu_common.cuh"

namespace bb::cuda {

// The leading dimension of a staged m-row matrix.
__host__ __device__ constexpr int lu_staged_ld(int m) { return m | 1; }

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
  __device__ __forceinline__ CT get(int i, int j) const { return widen(a[lu_index(row_major, ld, i, j)]); }
  __device__ __forceinline__ void set(int i, int j, CT v) const { a[lu_index(row_major, ld, i, j)] = narrow<S>(v); }
};

// Copies between the caller's m x n matrix and the staged one; the block's threads take
// consecutive elements in the caller's layout (coalesced reads and writes).
template <class S>
__device__ __forceinline__ void stage_in(const S *a, const LuSeg &G, int m, int n, const StagedMatrix<S> &M) {
  const int64_t total = int64_t(m) * n;
  for (int64_t e = threadIdx.x; e < total; e += blockDim.x) {
    const int i = G.row_major ? int(e / n) : int(e % m), j = G.row_major ? int(e % n) : int(e / m);
    M.set(i, j, widen(a[lu_index(G.row_major, G.A.ld, i, j)]));
  }
}
template <class S>
__device__ __forceinline__ void stage_out(S *a, const LuSeg &G, int m, int n, const StagedMatrix<S> &M) {
  const int64_t total = int64_t(m) * n;
  for (int64_t e = threadIdx.x; e < total; e += blockDim.x) {
    const int i = G.row_major ? int(e / n) : int(e % m), j = G.row_major ? int(e % n) : int(e / m);
    a[lu_index(G.row_major, G.A.ld, i, j)] = narrow<S>(M.get(i, j));
  }
}

}  // namespace bb::cuda
