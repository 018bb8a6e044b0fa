// potrf with one thread block per problem (n above the register kernels): blocked right-looking
// Cholesky on L (L = U^H for Upper), the referenced triangle staged in shared memory
// (kCholShared*) or in place in global memory (kCholGlobal).
#pragma once
#include "potrf_register.cuh"

namespace bb::cuda {

// L of a problem in place in global memory, through the conjugate transpose for Upper.
template <class S>
struct GlobalFactor {
  using CT = typename dev<S>::C;
  S *a;
  const FactorRun *G;
  __device__ __forceinline__ CT get(int i, int j) const { return conj_if(!G->lower, widen(a[factor_index(*G, i, j)])); }
  __device__ __forceinline__ void set(int i, int j, CT v) const { a[factor_index(*G, i, j)] = narrow<S>(conj_if(!G->lower, v)); }
};

// Factors M's lower triangle, blocked right-looking by panels of kCholPanel columns: warp 0
// factors the panel's diagonal block in registers (chol_rows), every thread then solves one
// row of the panel below it (L21 = A21 L11^-H), and the block updates the trailing lower
// triangle (A22 -= L21 L21^H) in 64 x 64 tiles, a 4 x 4 register tile per thread. Three
// barriers per panel instead of three per column. Returns info (then the failed diagonal holds
// its value, the columns of earlier panels are final, and the failing panel's rows below its
// diagonal block are not solved: unspecified, as SPEC.md allows).
template <class Matrix>
__device__ int potrf_block(const Matrix &M, int n) {
  using CT = decltype(M.get(0, 0));
  using R = real_t<CT>;
  constexpr int NB = kCholPanel;
  static_assert(kFactorBlockThreads == 256, "the trailing update maps 16 x 16 threads onto a tile");
  __shared__ __align__(16) CT column[32];
  __shared__ R rdiag[NB];
  __shared__ int failed;
  const int tid = threadIdx.x;
  for (int k = 0; k < n; k += NB) {
    const int nb = n - k < NB ? n - k : NB;
    if (tid < 32) {  // the diagonal block by rows (chol_rows); lanes NB.. work on zeros of their own
      const int q = tid / NB, t = tid % NB;
      const bool mine = q == 0 && t < nb;
      CT r[NB];
#pragma unroll
      for (int j = 0; j < NB; ++j) r[j] = mine && j <= t ? M.get(k + t, k + j) : from_real<CT>(R(0));
      const int info = chol_rows<NB>(r, nb, t, q * NB, column + q * NB, q == 0 ? rdiag : nullptr);
      if (mine)
#pragma unroll
        for (int j = 0; j < NB; ++j)
          if (j <= t && (!info || j < info)) M.set(k + t, k + j, r[j]);
      if (tid == 0) failed = info ? k + info : 0;
    }
    __syncthreads();
    if (failed) return failed;  // the same for every thread
    // One row of L21 per thread, right-looking so that a column's updates of the later ones
    // are independent (instruction-level parallelism instead of one chain of sums).
    for (int i = k + nb + tid; i < n; i += blockDim.x) {
      CT x[NB];
#pragma unroll
      for (int c = 0; c < NB; ++c) x[c] = c < nb ? M.get(i, k + c) : from_real<CT>(R(0));
#pragma unroll
      for (int c = 0; c < NB; ++c) {
        if (c >= nb) break;
        x[c] = scale_by(x[c], rdiag[c]);
#pragma unroll
        for (int c2 = c + 1; c2 < NB; ++c2)
          if (c2 < nb) x[c2] = msub(x[c2], x[c], conj(M.get(k + c2, k + c)));
      }
#pragma unroll
      for (int c = 0; c < NB; ++c)
        if (c < nb) M.set(i, k + c, x[c]);
    }
    __syncthreads();
    const int first = k + nb, tiles = (n - first + 63) / 64;
    const int tx = tid % 16, ty = tid / 16;
    for (int t = 0; t < tiles * (tiles + 1) / 2; ++t) {
      int bi = int((sqrtf(8.f * t + 1.f) - 1.f) * 0.5f);  // tile (bi, bj), bi >= bj
      while ((bi + 1) * (bi + 2) / 2 <= t) ++bi;
      while (bi * (bi + 1) / 2 > t) --bi;
      const int bj = t - bi * (bi + 1) / 2;
      const int i0 = first + 64 * bi + tx, j0 = first + 64 * bj + ty;
      CT acc[4][4];
#pragma unroll
      for (int a = 0; a < 4; ++a)
#pragma unroll
        for (int b = 0; b < 4; ++b) acc[a][b] = from_real<CT>(R(0));
      for (int p = 0; p < nb; ++p) {
        CT li[4], lj[4];
#pragma unroll
        for (int a = 0; a < 4; ++a) {
          const int i = i0 + 16 * a, j = j0 + 16 * a;
          li[a] = i < n ? M.get(i, k + p) : from_real<CT>(R(0));
          lj[a] = j < n ? conj(M.get(j, k + p)) : from_real<CT>(R(0));
        }
#pragma unroll
        for (int a = 0; a < 4; ++a)
#pragma unroll
          for (int b = 0; b < 4; ++b) acc[a][b] = madd(acc[a][b], li[a], lj[b]);
      }
#pragma unroll
      for (int a = 0; a < 4; ++a)
#pragma unroll
        for (int b = 0; b < 4; ++b) {
          const int i = i0 + 16 * a, j = j0 + 16 * b;
          if (i < n && j <= i) M.set(i, j, msub(M.get(i, j), from_real<CT>(R(1)), acc[a][b]));
        }
    }
    __syncthreads();
  }
  return 0;
}

template <class S, bool STAGED>
__global__ void __launch_bounds__(kFactorBlockThreads, 2) potrf_shared(const __grid_constant__ FactorLaunch L) {
  using CT = typename dev<S>::C;
  extern __shared__ __align__(16) unsigned char chol_smem[];
  for (int64_t u = blockIdx.x; u < L.total_units; u += gridDim.x) {
    const FactorRun &G = run_of<1>(L, u);
    const int64_t p = u - G.unit_begin;
    S *a = operand_at<S>(G.A, p);
    if (!a) continue;  // skipped: the whole block moves on
    const int n = G.n;
    int info;
    if constexpr (STAGED) {
      const StagedMatrix<S> M{reinterpret_cast<CT *>(chol_smem), staged_ld(n)};
      // The referenced triangle only, as L; the diagonal's imaginary part is ignored.
      for_each_element(G.row_major, n, n, [&](int i, int j) {
        if (G.lower ? i < j : i > j) return;
        const CT v = widen(a[element_index(G.row_major, G.A.ld, i, j)]);
        if (i == j) M.set(i, i, from_real<CT>(real_of(v)));
        else if (G.lower) M.set(i, j, v);
        else M.set(j, i, conj(v));
      });
      __syncthreads();
      info = potrf_block(M, n);
      __syncthreads();
      // Columns after a failure stay as they were (the host path's choice).
      const int columns = info ? info : n;
      for_each_element(G.row_major, n, n, [&](int i, int j) {
        if (G.lower ? (i < j || j >= columns) : (i > j || i >= columns)) return;
        a[element_index(G.row_major, G.A.ld, i, j)] = narrow<S>(G.lower ? M.get(i, j) : conj(M.get(j, i)));
      });
      __syncthreads();  // the next problem restages
    } else {
      info = potrf_block(GlobalFactor<S>{a, &G}, n);
      __syncthreads();
    }
    if (threadIdx.x == 0) write_info(G, p, info);
  }
}

}  // namespace bb::cuda
