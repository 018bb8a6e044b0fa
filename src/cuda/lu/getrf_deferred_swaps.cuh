// The interchanges blocked getrf leaves for the end (FactorRun::columns_left,
// lu_deferred_swaps_takes): a run's n columns take ipiv's first `interchanges` pivots
// (counted from row panel_at of the whole matrix; A and ipiv moved there), composed first into
// one gather per problem (row r takes row from[r]) so that each moved element is read and
// written once, where the panels moved it once per panel.
#pragma once
#include "lu_common.cuh"

namespace bb::cuda {

// A block a problem; dynamic shared memory of kLuDeferredThreads / 32 (column-major) or
// lu_deferred_stage_per_row (row-major) elements per row of the launch's tallest run (one launch
// takes several outer blocks' passes): in
// column-major a warp a column, its moved elements through the warp's m elements; in row-major
// the block along the moved rows, a chunk of columns at a time.
template <class S>
__global__ void __launch_bounds__(kLuDeferredThreads) getrf_deferred_swaps(const __grid_constant__ FactorLaunch L) {
  constexpr int kWarps = kLuDeferredThreads / 32;
  __shared__ int from[kLuDeferredMaxRows];
  __shared__ int pivot[kLuDeferredMaxRows];
  __shared__ int2 moves[kLuDeferredMaxRows];
  __shared__ int move_count;
  extern __shared__ __align__(16) unsigned char deferred_shared[];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int64_t u = blockIdx.x; u < L.total_units; u += gridDim.x) {
    const FactorRun &G = run_of<1>(L, u);
    const int64_t p = u - G.unit_begin;
    S *a = operand_at<S>(G.A, p);
    const int *piv = operand_at<int>(G.ipiv, p);
    if (!a || !piv) continue;  // the whole block moves on
    const int m = G.m < kLuDeferredMaxRows ? G.m : kLuDeferredMaxRows;
    const int steps = G.interchanges < m ? G.interchanges : m;
    for (int r = threadIdx.x; r < m; r += blockDim.x) {
      from[r] = r;
      if (r < steps) pivot[r] = int(int64_t(piv[r]) - 1 - G.panel_at);  // 64-bit: garbage without overflow
    }
    if (threadIdx.x == 0) move_count = 0;
    __syncthreads();
    if (threadIdx.x == 0)
      for (int i = 0; i < steps; ++i) {
        // A NULL problem of device pointer arrays computes in scratch: a pivot outside its rows is not followed.
        const int j = pivot[i];
        if (j <= i || j >= m) continue;
        const int t = from[i];
        from[i] = from[j], from[j] = t;
      }
    __syncthreads();
    for (int r = threadIdx.x; r < m; r += blockDim.x)
      if (from[r] != r) moves[atomicAdd(&move_count, 1)] = make_int2(r, from[r]);
    __syncthreads();
    const int count = move_count;
    if (G.row_major) {
      // Rows are contiguous: the block moves chunks of `width` columns (a power of two, no wider
      // than needed) of every moved row, lanes along the row, the chunk's reads in shared memory
      // before its writes (count <= m, so at least 32 bytes of a row fit in the stage).
      constexpr int kStagePerRow = lu_deferred_stage_per_row(int(sizeof(S)));
      S *stage = reinterpret_cast<S *>(deferred_shared);
      int width = 32;
      while (width > 1 && (width * count > kStagePerRow * m || width / 2 >= G.n)) width /= 2;
      const int shift = __ffs(width) - 1;
      for (int first = 0; count && first < G.n; first += width) {
        const int w = G.n - first < width ? G.n - first : width;
        for (int i = threadIdx.x; i < count * width; i += blockDim.x)
          if ((i & (width - 1)) < w) stage[i] = a[int64_t(moves[i >> shift].y) * G.A.ld + first + (i & (width - 1))];
        __syncthreads();
        for (int i = threadIdx.x; i < count * width; i += blockDim.x)
          if ((i & (width - 1)) < w) a[int64_t(moves[i >> shift].x) * G.A.ld + first + (i & (width - 1))] = stage[i];
        __syncthreads();
      }
    } else {  // column-major: a warp a column, through the warp's m elements
      S *buffer = reinterpret_cast<S *>(deferred_shared) + warp * m;
      for (int c = warp; c < G.n; c += kWarps) {
        S *line = a + int64_t(c) * G.A.ld;
        for (int k = lane; k < count; k += 32) buffer[k] = line[moves[k].y];
        __syncwarp();
        for (int k = lane; k < count; k += 32) line[moves[k].x] = buffer[k];
        __syncwarp();
      }
    }
    __syncthreads();  // shared memory is the next problem's
  }
}

}  // namespace bb::cuda
