// getri for n <= K (K = 2, 4, ..., 32): K threads per problem, 32 / K problems per warp. The
// warp stages its problems' L and U in shared memory (thread t loads row t); thread c then
// computes column c of the inverse in registers, x = U \ (L \ (P^T e_c)), reading L and U as
// broadcasts, and the result leaves through shared memory row by row again, so each matrix is
// read once and written once. ipiv is checked here (the host never reads device memory): an
// entry outside 1..n or an exactly zero U(i,i) leaves the problem untouched, as LAPACK does.
// ROLLED (K = 32, lu_tuning.hpp): the two solves loop over the columns instead of being
// unrolled (the unrolled kernel's code outgrows the instruction caches, as getrf's does), x
// shifting through the registers and each finished entry waiting in shared memory; NR < K (orders
// 17..24, lu_rolled_narrow_takes): the matrix staged NR x NR and rows of NR registers.
#pragma once
#include "lu_common.cuh"

namespace bb::cuda {

// A problem's staged matrix in shared memory. ROLLED: column-major, NR x (NR + 1) (the pad
// spreads the problems of one warp over the banks). Unrolled: row-major, so that a thread stores
// its row and the solves read a row of L or U in vectors of V elements (lu_getri_row_vector):
// rows start aligned to a vector, an odd number of vectors apart (a quarter warp's accesses to
// its rows then fall on distinct banks), and where the problems of a warp would start on the
// same bank, K more elements between them (the inverse goes in one element a thread).
template <class S, int K, bool ROLLED, int NR>
struct GetriStage {
  using CT = typename dev<S>::C;
  static constexpr int V = ROLLED ? 1 : lu_getri_row_vector(dev_prec_of<S>(), K);
  static constexpr int ROUNDED = (NR + V - 1) / V * V;
  static constexpr int LDK = ROLLED ? NR + 1 : (ROUNDED / V) % 2 ? ROUNDED : ROUNDED + V;
  static constexpr int BARE = NR * LDK;
  static constexpr int SLAB = !ROLLED && 32 / K > 1 && BARE * int(sizeof(CT)) % 128 == 0 ? BARE + K : BARE;
};

// Shared memory of a warp: its 32 / K problems' slabs; ROLLED: and NR finished entries a lane.
// NR: the orders the kernel takes (K unless a narrower rolled form, one problem a warp, holds
// NR x NR).
template <class S, int K, bool ROLLED = false, int NR = K>
constexpr int getri_register_warp_bytes() {
  using CT = typename dev<S>::C;
  return ((32 / K) * GetriStage<S, K, ROLLED, NR>::SLAB + (ROLLED ? 32 * NR : 0)) * int(sizeof(CT));
}

// V elements in one shared-memory access.
template <int V, class CT>
struct alignas(V * sizeof(CT)) GetriVec {
  CT e[V];
};

// x = L \ x from column k on, L unit lower in column-major M (leading dimension LDK): x[j] is
// entry k + j (W >= n - k of them still live); each pair of columns' finished entries go to
// fin[k * stride] and the rest shift down by two. Rows past n read row K - 1 instead: entries
// past n are never finished.
template <int W, int K, int LDK, class CT>
__device__ __forceinline__ void getri_forward_rolled(CT (&row)[K], int &k, int n, const CT *M, CT *fin, int stride) {
  CT(&x)[W] = *reinterpret_cast<CT(*)[W]>(&row);
  constexpr int NEXT = W > kLuRolledWidthStep ? W - kLuRolledWidthStep : 0;
#pragma unroll 1
  for (; k < n && n - k > NEXT; k += 2) {
#pragma unroll
    for (int q = 0; q < 2; ++q) {
      const CT *column = M + (k + q) * LDK;
#pragma unroll
      for (int j = q + 1; j < W; ++j) x[j] = msub(x[j], column[min(k + j, K - 1)], x[q]);
    }
    fin[k * stride] = x[0];
    fin[(k + 1) * stride] = x[1];  // k + 1 <= K - 1; past n: never read
#pragma unroll
    for (int j = 0; j + 2 < W; ++j) x[j] = x[j + 2];
  }
  if constexpr (NEXT > 0) getri_forward_rolled<NEXT, K, LDK>(row, k, n, M, fin, stride);
}

// x = U \ x from row k down: x[j] is entry k - j (W >= k + 1 of them live), each finished entry
// to fin, the rest shifting down by two. Rows above 0 read row 0 instead (never finished).
template <int W, int K, int LDK, class CT>
__device__ __forceinline__ void getri_backward_rolled(CT (&row)[K], int &k, const CT *M, CT *fin, int stride) {
  CT(&x)[W] = *reinterpret_cast<CT(*)[W]>(&row);
  constexpr int NEXT = W > kLuRolledWidthStep ? W - kLuRolledWidthStep : 0;
#pragma unroll 1
  for (; k >= 0 && k + 1 > NEXT; k -= 2) {
#pragma unroll
    for (int q = 0; q < 2; ++q) {
      const CT *column = M + max(k - q, 0) * LDK;
      x[q] = divide(x[q], column[max(k - q, 0)]);
#pragma unroll
      for (int j = q + 1; j < W; ++j) x[j] = msub(x[j], column[max(k - j, 0)], x[q]);
    }
    fin[k * stride] = x[0];
    if (k >= 1) fin[(k - 1) * stride] = x[1];
#pragma unroll
    for (int j = 0; j + 2 < W; ++j) x[j] = x[j + 2];
  }
  if constexpr (NEXT > 0) getri_backward_rolled<NEXT, K, LDK>(row, k, M, fin, stride);
}

// Narrowed rows of compute types up to 8 bytes capped at 128 registers (16 one-warp blocks an SM),
// no spill: r64 166 -> 128 and c32 162 -> 128 (12 -> 16 warps an SM), r16 112 -> 96 (s53).
// ROW_PIECES: the instance for row-major runs with ld on 16 bytes (lu_getri_row_pieces_built),
// rows in 16-byte pieces where the problem's pointer is on 16 bytes too.
template <class S, int K, int WPB, bool ROLLED = false, int NR = K, bool ROW_PIECES = false>
__global__ void __launch_bounds__(32 * WPB, NR < K && sizeof(typename dev<S>::C) <= 8 ? 16 / WPB : 1)
    getri_register(const __grid_constant__ FactorLaunch L) {
  using CT = typename dev<S>::C;
  using R = real_t<CT>;
  using Stage = GetriStage<S, K, ROLLED, NR>;
  constexpr int PPW = 32 / K, LDK = Stage::LDK, V = Stage::V;
  using Vec = GetriVec<V, CT>;
  static_assert(NR == K || ROLLED, "narrower rows: the rolled form only");
  static_assert(ROLLED || K % V == 0, "rows of whole vectors");
  constexpr unsigned kSegment = K == 32 ? ~0u : (1u << K) - 1;
  extern __shared__ __align__(16) unsigned char lu_smem[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, q = lane / K, t = lane % K;
  CT *M = reinterpret_cast<CT *>(lu_smem) + (warp * PPW + q) * Stage::SLAB;
  // ROLLED (one problem a warp): entry i of lane l's x at fin[i * 32], after the warps' matrices.
  CT *fin = reinterpret_cast<CT *>(lu_smem) + WPB * PPW * Stage::SLAB + warp * 32 * NR + lane;
  for (int64_t u = int64_t(blockIdx.x) * WPB + warp; u < L.total_units; u += int64_t(gridDim.x) * WPB) {
    const FactorRun &G = run_of<WPB>(L, u);
    const int64_t p = (u - G.unit_begin) * PPW + q;
    S *a = nullptr;
    const int *piv = nullptr;
    if (p < G.problems) a = operand_at<S>(G.A, p), piv = operand_at<int>(G.ipiv, p);
    const bool active = a && piv;
    const int n = G.n, ld = G.A.ld;
    const bool rm = G.row_major, has_row = active && t < n;
    // The thread's row along a moving pointer: an add an element, not a 64-bit product.
    const int64_t step = rm ? 1 : ld;
    // Row-major rows on 16 bytes in and out in pieces (row_in_pieces), in the ROW_PIECES instance
    // only: in the one both layouts share, column-major lost 30-100 % (s55).
    const bool pieces = ROW_PIECES && rm && row_in_pieces(a, ld);
    if (has_row) {
      const S *in = a + (rm ? int64_t(t) * ld : t);
      if (pieces) {
        if constexpr (ROLLED) {
          load_row_pieces<S, NR>(in, n, [&](int j, S e) { M[t + j * LDK] = widen(e); });
        } else {
          CT row[K];
          load_row_pieces<S, K>(in, n, [&](int j, S e) { row[j] = widen(e); });
#pragma unroll
          for (int b = 0; b < K / V; ++b) {
            Vec v;
#pragma unroll
            for (int e = 0; e < V; ++e) v.e[e] = row[b * V + e];
            *reinterpret_cast<Vec *>(M + t * LDK + b * V) = v;
          }
        }
      } else if constexpr (ROLLED) {  // zeros past n too: measured faster than skipping them (c32 28 1.02 -> 0.93 ms, s40)
#pragma unroll
        for (int j = 0; j < NR; ++j, in += step) M[t + j * LDK] = j < n ? widen(*in) : from_real<CT>(R(0));
      } else {  // zeros right of n: the backward solve needs no test of k < n
#pragma unroll
        for (int b = 0; b < K / V; ++b) {
          Vec v;
#pragma unroll
          for (int e = 0; e < V; ++e, in += step) v.e[e] = b * V + e < n ? widen(*in) : from_real<CT>(R(0));
          *reinterpret_cast<Vec *>(M + t * LDK + b * V) = v;
        }
      }
    }
    const int my_piv = has_row ? piv[t] : 1;
    __syncwarp();
    const unsigned bad = (__ballot_sync(~0u, has_row && (my_piv < 1 || my_piv > n)) >> (q * K)) & kSegment;
    const unsigned zero_diag = (__ballot_sync(~0u, has_row && is_zero(M[ROLLED ? t + t * LDK : t * LDK + t])) >> (q * K)) & kSegment;
    const int code = bad ? G.bad_pivot_code : zero_diag ? __ffs(zero_diag) : 0;
    if (active && t == 0) {
      if (code && G.codes) G.codes[p] = code;
      if (G.info) G.info[p] = code;
    }
    const bool compute = has_row && code == 0;
    // Where P^T moves e_t: LAPACK's interchanges, in order (every lane shuffles).
    int pos = t;
#pragma unroll
    for (int i = 0; i < K; ++i) {
      const int pi = __shfl_sync(~0u, my_piv, i, K) - 1;
      if (i >= n) continue;
      if (pos == i) pos = pi;
      else if (pos == pi) pos = i;
    }
    CT x[NR];
    if constexpr (ROLLED) {
      static_assert(K == 32, "one problem a warp");
      if (compute) {
        const CT one = from_real<CT>(R(1)), zero_c = from_real<CT>(R(0));
#pragma unroll
        for (int j = 0; j < NR; ++j) x[j] = j == pos ? one : zero_c;
        int k = 0;
        getri_forward_rolled<NR, NR, LDK>(x, k, n, M, fin, 32);
#pragma unroll
        for (int j = 0; j < NR; ++j) x[j] = j < n ? fin[(n - 1 - j) * 32] : zero_c;
        k = n - 1;
        getri_backward_rolled<NR, NR, LDK>(x, k, M, fin, 32);
#pragma unroll
        for (int j = 0; j < NR; ++j) x[j] = fin[j * 32];
      }
    } else if (compute) {
      // Row by row, each row of L and U read in vectors: a shared-memory access for V
      // multiply-adds.
      const CT one = from_real<CT>(R(1)), zero_c = from_real<CT>(R(0));
#pragma unroll
      for (int i = 0; i < K; ++i) x[i] = zero_c;  // entries past n stay zeros
#pragma unroll
      for (int i = 0; i < K; ++i) {  // L (unit lower) \ e_pos
        if (i >= n) break;
        CT acc = i == pos ? one : zero_c;
#pragma unroll
        for (int b = 0; b * V < i; ++b) {
          const Vec l = *reinterpret_cast<const Vec *>(M + i * LDK + b * V);
#pragma unroll
          for (int e = 0; e < V; ++e)
            if (b * V + e < i) acc = msub(acc, l.e[e], x[b * V + e]);
        }
        x[i] = acc;
      }
#pragma unroll
      for (int i = K - 1; i >= 0; --i) {  // U \ that
        if (i >= n) continue;
        CT acc = x[i];
        // Past n, U's row i holds zeros and x zeros: acc - 0 * 0 is acc, bit for bit.
        const Vec diagonal = *reinterpret_cast<const Vec *>(M + i * LDK + i / V * V);
#pragma unroll
        for (int b = i / V; b < K / V; ++b) {
          const Vec u = b == i / V ? diagonal : *reinterpret_cast<const Vec *>(M + i * LDK + b * V);
#pragma unroll
          for (int e = 0; e < V; ++e)
            if (b * V + e > i) acc = msub(acc, u.e[e], x[b * V + e]);
        }
        x[i] = divide(acc, diagonal.e[i % V]);
      }
    }
    __syncwarp();
    if (compute)
#pragma unroll
      for (int i = 0; i < NR; ++i)  // column t of the inverse
        if (i < n) M[ROLLED ? i + t * LDK : i * LDK + t] = x[i];
    __syncwarp();
    if (compute) {
      S *out = a + (rm ? int64_t(t) * ld : t);
      if (pieces) {
        store_row_pieces<S, NR>(out, n, [&](int j) { return M[ROLLED ? t + j * LDK : t * LDK + j]; });
      } else if constexpr (ROLLED) {
#pragma unroll
        for (int j = 0; j < NR; ++j, out += step)
          if (j < n) *out = narrow<S>(M[t + j * LDK]);
      } else {
#pragma unroll
        for (int b = 0; b < K / V; ++b) {
          const Vec v = *reinterpret_cast<const Vec *>(M + t * LDK + b * V);
#pragma unroll
          for (int e = 0; e < V; ++e, out += step)
            if (b * V + e < n) *out = narrow<S>(v.e[e]);
        }
      }
    }
    __syncwarp();  // the next problems reuse M
  }
}

}  // namespace bb::cuda
