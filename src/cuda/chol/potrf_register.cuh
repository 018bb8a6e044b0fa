// potrf for n <= K (K = 2, 4, ..., 32) with the factor in registers: K threads per problem,
// thread c holding column c of L (L = U^H for uplo Upper, read and written through the
// conjugate transpose, so both touch only their own triangle); 32 / K problems per warp, no
// block barrier. Right-looking: at step j, thread j finishes column j alone (square root,
// scaling) and hands it to the others through shared memory; each later column updates itself.
// No shuffles but one per step (the diagonal, which every thread checks for failure).
#pragma once
#include "../factor_common.cuh"
#include "chol_tuning.hpp"

namespace bb::cuda {

// Where L(i, j) (i >= j) of a problem lives: A(i, j) for Lower, conj of A(j, i) for Upper.
__device__ __forceinline__ int64_t factor_index(const FactorRun &G, int i, int j) {
  return G.lower ? element_index(G.row_major, G.A.ld, i, j) : element_index(G.row_major, G.A.ld, j, i);
}
template <class CT> __device__ __forceinline__ CT conj_if(bool c, CT x) { return c ? conj(x) : x; }

// The factorization of one problem's n x n matrix (n <= K) by its K lanes: lane c holds column
// c of L (rows c..K-1 meaningful, zeros below n), `first_lane` is the problem's lane 0,
// `column` K elements of shared memory of its own. Every lane returns info; `rdiag`, if given,
// gets 1 / L(j, j) of each column done.
template <int K, class CT>
__device__ __forceinline__ int chol_columns(CT (&r)[K], int n, int c, int first_lane, CT *column,
                                            real_t<CT> *rdiag = nullptr) {
  using R = real_t<CT>;
  // The imaginary part of the diagonal is ignored (LAPACK).
#pragma unroll
  for (int i = 0; i < K; ++i)
    if (i == c) r[i] = from_real<CT>(real_of(r[i]));
  int info = 0;
#pragma unroll
  for (int j = 0; j < K; ++j) {
    if (j >= n) break;  // the same for the whole warp
    const R d = __shfl_sync(~0u, real_of(r[j]), first_lane + j);
    if (!info && !(d > R(0))) info = j + 1;  // also NaN: LAPACK leaves d on the diagonal
    if (!info) {
      if (c == j) {
        const R s = sqrt_of(d), rinv = R(1) / s;
        r[j] = from_real<CT>(s);
        if (rdiag) rdiag[j] = rinv;
#pragma unroll
        for (int i = j + 1; i < K; ++i) r[i] = scale_by(r[i], rinv), column[i] = r[i];
      }
    } else if (c == j && info == j + 1) {
      r[j] = from_real<CT>(d);
    }
    __syncwarp();
    if (!info && c > j) {
      const CT l = conj(column[c]);
#pragma unroll
      for (int i = j + 1; i < K; ++i) r[i] = msub(r[i], column[i], l);
    }
    __syncwarp();  // the next step's column overwrites this one
  }
  return info;
}

template <class S, int K>
__global__ void __launch_bounds__(32 * kCholRegisterWarps) potrf_register(const __grid_constant__ FactorLaunch L) {
  using CT = typename dev<S>::C;
  using R = real_t<CT>;
  constexpr int WPB = kCholRegisterWarps, PPW = 32 / K;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, q = lane / K, c = lane % K;
  __shared__ __align__(16) CT columns[WPB][32];
  CT *column = columns[warp] + q * K;
  for (int64_t u = int64_t(blockIdx.x) * WPB + warp; u < L.total_units; u += int64_t(gridDim.x) * WPB) {
    const FactorRun &G = run_of<WPB>(L, u);
    const int64_t p = (u - G.unit_begin) * PPW + q;
    const int n = G.n;
    const bool upper = !G.lower;
    S *a = p < G.problems ? operand_at<S>(G.A, p) : nullptr;
    const bool mine = a && c < n;  // this thread has a column
    CT r[K];
#pragma unroll
    for (int i = 0; i < K; ++i) {
      r[i] = from_real<CT>(R(0));
      if (mine && i >= c && i < n) r[i] = conj_if(upper, widen(a[factor_index(G, i, c)]));
    }
    const int info = chol_columns<K>(r, n, c, q * K, column);
    // Columns after a failure stay as they were (the host path's choice).
    if (mine && (!info || c < info))
#pragma unroll
      for (int i = 0; i < K; ++i)
        if (i >= c && i < n) a[factor_index(G, i, c)] = narrow<S>(conj_if(upper, r[i]));
    if (a && c == 0) {
      if (info && G.codes) G.codes[p] = info;
      if (G.info) G.info[p] = info;
    }
  }
}

}  // namespace bb::cuda
