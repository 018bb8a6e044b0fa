// getrf_register with RPT rows a thread: K / RPT lanes a problem (lane t holds rows t, t + K / RPT,
// ...), 32 RPT / K problems a warp, a step's pivot search, reciprocal and warp control shared
// by RPT rows. Each row's arithmetic, the pivot rule and the lazy swaps are getrf_register's:
// the factors are its bits (and the thread kernel's: the same operations in the same order).
// Taken only where measured faster (lu_rows_config, lu_tuning.hpp).
#pragma once
#include "getrf_register.cuh"

namespace bb::cuda {

template <class S, int K, int RPT>
struct GetrfRowsShape {
  using CT = typename dev<S>::C;
  static constexpr int LANES = K / RPT;  // a problem's lanes
  static constexpr int PPW = 32 / LANES;  // problems a warp
  static constexpr int WPB = kLuRegisterWarps[lu_register_config(K)];
  static constexpr int THREADS = 32 * WPB;
  static constexpr int REGS = RPT * K * int(sizeof(CT)) / 4 + (std::is_same_v<CT, double> ? 64 : 80);
  static constexpr int MIN_BLOCKS = 65536 / (THREADS * (REGS < 255 ? REGS : 255)) > 0
                                        ? 65536 / (THREADS * (REGS < 255 ? REGS : 255)) : 1;
};

// Step i's pivot among the problem's rows, RPT of them in this lane (LAPACK's rule, as
// pivot_row): the lane's best key first, then the reduction over the problem's LANES lanes.
template <int LANES, int RPT>
__device__ __forceinline__ int pivot_row_rows(const float (&magnitude)[RPT], const bool (&take_part)[RPT],
                                              const int (&cur)[RPT], bool (&is_pivot)[RPT]) {
  uint64_t best = 0;
#pragma unroll
  for (int s = 0; s < RPT; ++s) {
    const unsigned mk = magnitude[s] != magnitude[s] ? 0xffffffffu : __float_as_uint(magnitude[s]) + 1u;
    const uint64_t key = take_part[s] ? uint64_t(mk) << 32 | unsigned(~cur[s]) : 0;
    best = key > best ? key : best;
  }
  const int row = int(~unsigned(segment_max<LANES>(best)));
#pragma unroll
  for (int s = 0; s < RPT; ++s) is_pivot[s] = take_part[s] && cur[s] == row;
  return row;
}
template <int LANES, int RPT>
__device__ __forceinline__ int pivot_row_rows(const double (&magnitude)[RPT], const bool (&take_part)[RPT],
                                              const int (&cur)[RPT], bool (&is_pivot)[RPT]) {
  uint64_t key[RPT], mine = 0;
#pragma unroll
  for (int s = 0; s < RPT; ++s) {
    const uint64_t mk = magnitude[s] != magnitude[s] ? ~0ull : uint64_t(__double_as_longlong(magnitude[s])) + 1;
    key[s] = take_part[s] ? mk : 0;
    mine = key[s] > mine ? key[s] : mine;
  }
  const uint64_t best = segment_max<LANES>(mine);
  int first = INT_MAX;
#pragma unroll
  for (int s = 0; s < RPT; ++s)
    if (take_part[s] && key[s] == best) first = min(first, cur[s]);
  const int row = segment_min<LANES>(first);
#pragma unroll
  for (int s = 0; s < RPT; ++s) is_pivot[s] = take_part[s] && key[s] == best && cur[s] == row;
  return row;
}

template <class S, int K, int RPT>
__global__ void __launch_bounds__(GetrfRowsShape<S, K, RPT>::THREADS, GetrfRowsShape<S, K, RPT>::MIN_BLOCKS)
    getrf_register_rows(const __grid_constant__ FactorLaunch L) {
  using Shape = GetrfRowsShape<S, K, RPT>;
  using CT = typename dev<S>::C;
  using R = real_t<CT>;
  constexpr int WPB = Shape::WPB, LANES = Shape::LANES, PPW = Shape::PPW;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, q = lane / LANES, t = lane % LANES;
  __shared__ __align__(16) CT pivot_rows[WPB][PPW * K];
  CT *pivot_row_buf = pivot_rows[warp] + q * K;
  for (int64_t u = int64_t(blockIdx.x) * WPB + warp; u < L.total_units; u += int64_t(gridDim.x) * WPB) {
    // Lane t's first row; the others follow LANES apart.
    const GetrfRowOfProblem<S, WPB, PPW> P(L, u, q, t);
    CT r[RPT][K];
    int cur[RPT], my_piv[RPT];
    bool done[RPT];
#pragma unroll
    for (int s = 0; s < RPT; ++s) {
      const int row = t + LANES * s;
      const bool has_row = P.active && row < P.m;
      const S *in = P.row(row);
#pragma unroll
      for (int j = 0; j < K; ++j, in += P.step) r[s][j] = has_row && j < P.n ? widen(*in) : widen(zero<S>());
      cur[s] = row, my_piv[s] = 0, done[s] = !has_row;
    }
    int info = 0;
#pragma unroll
    for (int i = 0; i < K; ++i) {
      if (i >= P.mn) break;  // the same for the whole warp
      R magnitude[RPT];
      bool take_part[RPT], is_pivot[RPT];
#pragma unroll
      for (int s = 0; s < RPT; ++s) magnitude[s] = abs1(r[s][i]), take_part[s] = !done[s];
      const int prow = pivot_row_rows<LANES, RPT>(magnitude, take_part, cur, is_pivot);
#pragma unroll
      for (int s = 0; s < RPT; ++s)
        if (is_pivot[s]) store_row<K>(pivot_row_buf, r[s], i);
      __syncwarp();
      const CT d = pivot_row_buf[i];
      const bool zero_pivot = is_zero(d);
      if (zero_pivot && !info) info = i + 1;
      // As getrf_step_pivot: 1 / d then a product where d is normal, else a division.
      const bool normal = abs1(d) >= smallest_normal<R>();
      const CT inverse = divide(from_real<CT>(R(1)), d);
#pragma unroll
      for (int s = 0; s < RPT; ++s) {
        if (t + LANES * s == i) my_piv[s] = prow + 1;
        // LAPACK swaps rows i and prow: the row now at i takes the pivot's place.
        if (is_pivot[s]) cur[s] = i, done[s] = true;
        else if (!done[s] && cur[s] == i) cur[s] = prow;
        if (!done[s]) {
          CT l = r[s][i];
          if (!zero_pivot) {
            l = normal ? mul(l, inverse) : divide(l, d);
            r[s][i] = l;
          }
          update_row<K>(r[s], l, pivot_row_buf, i);
        }
      }
      __syncwarp();  // the next step's pivot row overwrites this one
    }

    // Each row straight to its final place; ipiv and info as getrf_register's.
#pragma unroll
    for (int s = 0; s < RPT; ++s) {
      const int row = t + LANES * s;
      if (P.active && row < P.m) {
        S *out = P.row(cur[s]);
#pragma unroll
        for (int j = 0; j < K; ++j, out += P.step)
          if (j < P.n) *out = narrow<S>(r[s][j]);
      }
      if (P.active && row < P.mn) P.piv[row] = my_piv[s];
    }
    if (P.active && t == 0) {
      if (info && P.G.codes) P.G.codes[P.p] = info;
      if (P.G.info) P.G.info[P.p] = info;
    }
  }
}

}  // namespace bb::cuda
