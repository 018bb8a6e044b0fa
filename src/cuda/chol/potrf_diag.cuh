// The diagonal blocks of the blocked potrf (potrf_blocked in chol.cu, left-looking). A run is
// the n x n diagonal block (n <= K) at row and column panel_at of each problem's matrix (A
// moved there), the panel_at columns of L to its left final. The block's K lanes take
// L(block, left) L(block, left)^H off their row or column of the block, then factor it with
// potrf_register's steps. That product comes from potrf_blocked's gemm call (FactorRun::tau,
// from kCholDiagGemmMinOrder) or, without it, from the left part itself, passed through shared
// memory kCholLeftChunk columns at a time, read in the order that coalesces in the caller's
// layout, never leaving the `uplo` triangle: L(i, l) with l < panel_at <= i.
#pragma once
#include "potrf_register.cuh"

namespace bb::cuda {

// Rows: lanes hold rows of the block (the run's lower != row_major, as potrf_register decides),
// else columns; a template argument, so that each kernel holds one variant's registers.
template <class S, int K, bool Rows>
__global__ void __launch_bounds__(32 * kCholRegisterWarps) potrf_diag(const __grid_constant__ FactorLaunch L) {
  using CT = typename dev<S>::C;
  using R = real_t<CT>;
  constexpr int WPB = kCholRegisterWarps, PPW = 32 / K, C = kCholLeftChunk;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, q = lane / K, c = lane % K;
  __shared__ __align__(16) CT columns[WPB][32];
  __shared__ CT left_part[WPB][C][33];  // [l][lane]: L(q K + i, l) for the warp's problems; 33: no bank conflicts
  CT *column = columns[warp] + q * K;
  for (int64_t u = int64_t(blockIdx.x) * WPB + warp; u < L.total_units; u += int64_t(gridDim.x) * WPB) {
    const FactorRun &G = run_of<WPB>(L, u);
    const int64_t p = (u - G.unit_begin) * PPW + q;
    const int n = G.n, at = G.panel_at;
    const bool upper = !G.lower;
    constexpr bool rows = Rows;
    S *a = p < G.problems ? operand_at<S>(G.A, p) : nullptr;
    const bool mine = a && c < n;
    // Lane c: row c of the block (r[j] = L(c, j), j <= c) or its column c (r[i] = L(i, c), i >= c).
    CT r[K];
    FactorLine<S> line = factor_line(G, a, c, rows);
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const bool held = mine && (rows ? j <= c : j >= c && j < n);
      r[j] = held ? conj_if(upper, widen(line[j])) : from_real<CT>(R(0));
    }
    // The left product as potrf_blocked's gemm computed it (FactorRun::tau, nb x nb per
    // problem), or none: the loop below reads the left part itself. The gemm works on V (A, or
    // A^T for row-major), so for row-major its P is the conjugate of the loop's M = X X^H, that
    // is M's transpose: the index follows the caller's triangle, not `rows`.
    const S *product = G.tau.p && a ? operand_at<S>(G.tau, p) : nullptr;
    const int left = G.tau.p ? 0 : at;
    if (product && c < n) {
#pragma unroll
      for (int j = 0; j < K; ++j)
        if (j < n) r[j] = msub(r[j], widen(product[G.lower ? c + j * G.tau.ld : j + c * G.tau.ld]), from_real<CT>(R(1)));
    }
    for (int l0 = 0; l0 < left; l0 += C) {  // left is the warp's: the barriers below are safe
#pragma unroll
      for (int e = c; e < C * K; e += K) {
        const int i = rows ? e % K : e / C, l = rows ? e / K : e % C;
        CT v = from_real<CT>(R(0));
        if (a && i < n && l0 + l < left) v = conj_if(upper, widen(a[factor_index(G, i, l0 + l - at)]));
        left_part[warp][l][q * K + i] = v;
      }
      __syncwarp();
#pragma unroll
      for (int l = 0; l < C; ++l) {
        const CT own = left_part[warp][l][q * K + c];
        if constexpr (rows) {
#pragma unroll
          for (int j = 0; j < K; ++j) r[j] = msub(r[j], own, conj(left_part[warp][l][q * K + j]));
        } else {
          const CT own_conj = conj(own);
#pragma unroll
          for (int i = 0; i < K; ++i) r[i] = msub(r[i], left_part[warp][l][q * K + i], own_conj);
        }
      }
      __syncwarp();  // the next chunk overwrites this one
    }
    int info;
    if constexpr (rows) info = chol_rows<K>(r, n, c, q * K, column);
    else info = chol_columns<K>(r, n, c, q * K, column);
    // Columns after a failure stay as they were (with the left part not taken off: SPEC.md
    // leaves a failed problem's triangle unspecified).
    line.forget();
    if (mine)
#pragma unroll
      for (int j = 0; j < K; ++j) {
        const bool held = rows ? j <= c : j >= c && j < n;
        const bool done = !info || (rows ? j : c) < info;
        if (held && done) line[j] = narrow<S>(conj_if(upper, r[j]));
      }
    // Codes count from the matrix's first column and go only where none is yet (an earlier
    // block's, or a NULL problem's -k on device pointer arrays).
    if (a && c == 0 && info) {
      if (G.codes && !G.codes[p]) G.codes[p] = info + at;
      if (G.info && !G.info[p]) G.info[p] = info + at;
    }
  }
}

}  // namespace bb::cuda
