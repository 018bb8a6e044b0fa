// Batched gemm kernels for device-resident groups, and the host code that plans their
// launches. One templated kernel: a team of threads computes one TILE x TILE tile of C for
// one problem, each thread a TM x TN register block; a thread block holds PPB teams, all
// from one group. Tiny problems are one tile and one pass over k: every matrix is read once
// and written once, nothing stays in shared memory longer than the tile product needs.
// Larger problems loop over k in TILE steps and over tiles. All groups that use one shape
// go in one launch over a group table; the grid strides over 64-bit block indices.
#pragma once
#include "../device_types.cuh"
#include "gemm.hpp"
#include "gemm_tuning.hpp"

#include <blas_batched/blas_batched.h>
#include <cublas_v2.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <type_traits>
#include <vector>

namespace bb::cuda {

template <class S>
struct GemmDesc {
  using CT = typename dev<S>::C;
  int64_t block_begin;  // first block of the launch that works on this group
  int64_t problems;
  int m, n, k, lda, ldb, ldc, tiles_m, tiles_n;
  int ta, tb, read_ab, read_c;
  CT alpha, beta;
  const S *A, *B;
  S *C;
  int64_t sA, sB, sC;
  const S *const *Ap, *const *Bp;  // device pointer arrays, or null (strided)
  S *const *Cp;
  __device__ const S *a(int64_t p) const { return Ap ? Ap[p] : A + p * sA; }
  __device__ const S *b(int64_t p) const { return Bp ? Bp[p] : B + p * sB; }
  __device__ S *c(int64_t p) const { return Cp ? Cp[p] : C + p * sC; }
};

// The group of block vb: the last whose block_begin <= vb (groups are in launch order).
template <class S>
__device__ __forceinline__ const GemmDesc<S> &group_of(const GemmDesc<S> *groups, int count,
                                                       int64_t vb) {
  int lo = 0, hi = count - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (groups[mid].block_begin <= vb) lo = mid;
    else hi = mid - 1;
  }
  return groups[lo];
}

constexpr int kInlineGroups = 8;  // groups passed in the kernel's parameters, no upload

template <class S>
struct GemmLaunch {
  int groups;
  int64_t total_blocks;
  const GemmDesc<S> *table;  // in device memory when groups > kInlineGroups
  GemmDesc<S> inline_groups[kInlineGroups];
};

template <class S, int TILE_, int TM_, int TN_>
struct GemmShape {
  static constexpr int TILE = TILE_, TM = TM_, TN = TN_;
  static constexpr int TX = TILE / TM, TY = TILE / TN, TEAM = TX * TY;
  static constexpr int LD = TILE + 1;  // pad: transposed stores hit distinct banks
  static constexpr int team_smem = 2 * TILE * LD * int(sizeof(S));
  static constexpr int by_threads = 256 / TEAM > 0 ? 256 / TEAM : 1;
  static constexpr int by_smem = (40 * 1024) / team_smem > 0 ? (40 * 1024) / team_smem : 1;
  static constexpr int PPB = by_threads < by_smem ? by_threads : by_smem;
  static constexpr int THREADS = TEAM * PPB;
  static constexpr bool flat = false;
  static_assert(TEAM % TILE == 0, "a load pass covers whole columns of the tile");
};

// Problems whose matrices are each one contiguous, 16-byte aligned block (ld = rows, sizes a
// multiple of 16 bytes; the host checks) with at most MAXE elements: every matrix moves as
// 16-byte vectors, C included, and the product runs from shared memory.
// EXACT: the problem is exactly EXACT x EXACT x EXACT (EXACT^2 = MAXE), so the product loops
// unroll completely with constant shared-memory offsets; 0 is any shape that fits.
template <class S, int MAXE_, int EXACT_ = 0>
struct FlatShape {
  static constexpr int MAXE = MAXE_, EXACT = EXACT_;
  static_assert(EXACT == 0 || EXACT * EXACT == MAXE);
  static constexpr int VEC = 16 / int(sizeof(S));
  static constexpr int VM = MAXE / VEC > 0 ? MAXE / VEC : 1;  // vectors of a largest matrix
  static constexpr int TEAM = VM < 128 ? VM : 128;
  static constexpr int team_smem = 3 * MAXE * int(sizeof(S)) + 16;
  static constexpr int by_threads = 256 / TEAM;
  static constexpr int by_smem = (40 * 1024) / team_smem > 0 ? (40 * 1024) / team_smem : 1;
  static constexpr int PPB = by_threads < by_smem ? by_threads : by_smem;
  static constexpr int THREADS = TEAM * PPB;
  static constexpr int LOADS = (VM + TEAM - 1) / TEAM, OUTS = (MAXE + TEAM - 1) / TEAM;
  static constexpr int TILE = 1 << 30;  // one tile per problem
  static constexpr bool flat = true;
};

// C = alpha op(A) op(B) + beta C for one EXACT-sized problem in shared memory; this thread's
// elements are t, t + TEAM, ...
template <class S, class Shape, int TA, int TB>
__device__ __forceinline__ void flat_exact(const S *sA, const S *sB, S *sC, int t,
                                           const GemmDesc<S> &G) {
  using CT = typename dev<S>::C;
  constexpr int N = Shape::EXACT;
#pragma unroll
  for (int o = 0; o < Shape::OUTS; ++o) {
    const int e = t + o * Shape::TEAM;
    if (Shape::OUTS * Shape::TEAM > N * N && e >= N * N) break;
    const int i = e % N, j = e / N;
    CT acc = widen(zero<S>());
    if (G.read_ab) {
#pragma unroll
      for (int kk = 0; kk < N; ++kk) {
        S a = TA == 0 ? sA[i + kk * N] : sA[kk + i * N];
        S b = TB == 0 ? sB[kk + j * N] : sB[j + kk * N];
        if (TA == 2) a = conj(a);
        if (TB == 2) b = conj(b);
        acc = madd(acc, widen(a), widen(b));
      }
    }
    CT v = mul(G.alpha, acc);
    if (G.read_c) v = madd(v, G.beta, widen(sC[e]));
    sC[e] = narrow<S>(v);
  }
}

// The whole EXACT-sized problem in one 16-byte vector per matrix, in registers (TEAM == 1).
template <class S, class Shape>
__device__ __forceinline__ void flat_registers(const uint4 *ra, const uint4 *rb, uint4 *rc,
                                               const GemmDesc<S> &G) {
  using CT = typename dev<S>::C;
  constexpr int N = Shape::EXACT;
  static_assert(N * N * sizeof(S) == 16, "one vector per matrix");
  S a[N * N], b[N * N], c[N * N];
  memcpy(a, ra, 16), memcpy(b, rb, 16), memcpy(c, rc, 16);
#pragma unroll
  for (int e = 0; e < N * N; ++e) {
    const int i = e % N, j = e / N;
    CT acc = widen(zero<S>());
    if (G.read_ab) {
#pragma unroll
      for (int kk = 0; kk < N; ++kk) {
        S x = G.ta == 0 ? a[i + kk * N] : a[kk + i * N];
        S y = G.tb == 0 ? b[kk + j * N] : b[j + kk * N];
        if (G.ta == 2) x = conj(x);
        if (G.tb == 2) y = conj(y);
        acc = madd(acc, widen(x), widen(y));
      }
    }
    CT v = mul(G.alpha, acc);
    if (G.read_c) v = madd(v, G.beta, widen(c[e]));
    c[e] = narrow<S>(v);
  }
  memcpy(rc, c, 16);
}

template <class S, class Shape>
__global__ void __launch_bounds__(Shape::THREADS)
    gemm_flat(const __grid_constant__ GemmLaunch<S> L) {
  using CT = typename dev<S>::C;
  constexpr int MAXE = Shape::MAXE, VEC = Shape::VEC, TEAM = Shape::TEAM;
  constexpr bool in_registers = TEAM == 1 && Shape::EXACT > 0 && MAXE * sizeof(S) == 16;
  // Teams sit 16 bytes further apart than their data needs, so the teams that share a warp
  // read different banks.
  constexpr int M = MAXE < VEC ? VEC : MAXE;
  __shared__ __align__(16) S smem[Shape::PPB][3 * M + VEC];
  const int team = threadIdx.x / TEAM, t = threadIdx.x % TEAM;
  S *sA = smem[team], *sB = sA + M, *sC = sB + M;
  const GemmDesc<S> *groups = L.table ? L.table : L.inline_groups;
  for (int64_t vb = blockIdx.x; vb < L.total_blocks; vb += gridDim.x) {
    const GemmDesc<S> &G = group_of(groups, L.groups, vb);
    const int m = G.m, n = G.n, k = G.k;
    const int64_t p = (vb - G.block_begin) * Shape::PPB + team;
    const bool active = p < G.problems;
    const int va = m * k / VEC, vbn = k * n / VEC, vc = m * n / VEC;
    uint4 ra[Shape::LOADS], rb[Shape::LOADS], rc[Shape::LOADS];
    uint4 *C = nullptr;
    if (active) {
      const uint4 *A = reinterpret_cast<const uint4 *>(G.a(p));
      const uint4 *B = reinterpret_cast<const uint4 *>(G.b(p));
      C = reinterpret_cast<uint4 *>(G.c(p));
#pragma unroll
      for (int l = 0; l < Shape::LOADS; ++l) {
        const int v = t + l * TEAM;
        if (G.read_ab && v < va) ra[l] = A[v];
        if (G.read_ab && v < vbn) rb[l] = B[v];
        if (G.read_c && v < vc) rc[l] = C[v];
      }
#pragma unroll
      for (int l = 0; l < Shape::LOADS && !in_registers; ++l) {
        const int v = t + l * TEAM;
        if (G.read_ab && v < va) reinterpret_cast<uint4 *>(sA)[v] = ra[l];
        if (G.read_ab && v < vbn) reinterpret_cast<uint4 *>(sB)[v] = rb[l];
        if (G.read_c && v < vc) reinterpret_cast<uint4 *>(sC)[v] = rc[l];
      }
    }
    if constexpr (in_registers) {
      // One thread owns the whole problem: it never leaves registers.
      if (active) {
        flat_registers<S, Shape>(ra, rb, rc, G);
        *C = rc[0];
      }
      continue;  // every thread of the block is here: no barrier is skipped by some
    }
    __syncthreads();
    if constexpr (Shape::EXACT > 0) {
      if (active) {
        switch (G.ta * 3 + G.tb) {
          case 0: flat_exact<S, Shape, 0, 0>(sA, sB, sC, t, G); break;
          case 1: flat_exact<S, Shape, 0, 1>(sA, sB, sC, t, G); break;
          case 2: flat_exact<S, Shape, 0, 2>(sA, sB, sC, t, G); break;
          case 3: flat_exact<S, Shape, 1, 0>(sA, sB, sC, t, G); break;
          case 4: flat_exact<S, Shape, 1, 1>(sA, sB, sC, t, G); break;
          case 5: flat_exact<S, Shape, 1, 2>(sA, sB, sC, t, G); break;
          case 6: flat_exact<S, Shape, 2, 0>(sA, sB, sC, t, G); break;
          case 7: flat_exact<S, Shape, 2, 1>(sA, sB, sC, t, G); break;
          default: flat_exact<S, Shape, 2, 2>(sA, sB, sC, t, G); break;
        }
      }
    } else if (active) {
#pragma unroll
      for (int o = 0; o < Shape::OUTS; ++o) {
        const int e = t + o * TEAM;
        if (e < m * n) {
          const int i = e % m, j = e / m;
          // op(A)(i, kk) = sA[i * ai + kk * ak], op(B)(kk, j) = sB[kk * bk + j * bj]: the
          // transposes become strides, so the k loop has no branches.
          const int ai = G.ta == 0 ? 1 : k, ak = G.ta == 0 ? m : 1;
          const int bk = G.tb == 0 ? 1 : n, bj = G.tb == 0 ? k : 1;
          const S *pa = sA + i * ai, *pb = sB + j * bj;
          CT acc = widen(zero<S>());
          const int kend = G.read_ab ? k : 0;
          if (G.ta == 2 || G.tb == 2) {
            for (int kk = 0; kk < kend; ++kk) {
              S a = pa[kk * ak], b = pb[kk * bk];
              if (G.ta == 2) a = conj(a);
              if (G.tb == 2) b = conj(b);
              acc = madd(acc, widen(a), widen(b));
            }
          } else {
#pragma unroll 4
            for (int kk = 0; kk < kend; ++kk) acc = madd(acc, widen(pa[kk * ak]), widen(pb[kk * bk]));
          }
          CT v = mul(G.alpha, acc);
          if (G.read_c) v = madd(v, G.beta, widen(sC[e]));
          sC[e] = narrow<S>(v);  // only this thread reads or writes element e
        }
      }
    }
    __syncthreads();
    if (active) {
#pragma unroll
      for (int l = 0; l < Shape::LOADS; ++l) {
        const int v = t + l * TEAM;
        if (v < vc) C[v] = reinterpret_cast<const uint4 *>(sC)[v];
      }
    }
    __syncthreads();  // the next problem reuses the shared memory
  }
}

template <class S, class Shape>
__global__ void __launch_bounds__(Shape::THREADS)
    gemm_tiles(const __grid_constant__ GemmLaunch<S> L) {
  using CT = typename dev<S>::C;
  constexpr int TILE = Shape::TILE, TM = Shape::TM, TN = Shape::TN, TX = Shape::TX,
                TY = Shape::TY, TEAM = Shape::TEAM, LD = Shape::LD, PER = TM * TN,
                COLS = TEAM / TILE;
  __shared__ S smem[Shape::PPB][2][TILE][LD];
  const int team = threadIdx.x / TEAM, t = threadIdx.x % TEAM;
  const int tx = t % TX, ty = t / TX;
  const int r = t % TILE, c0 = t / TILE;  // load position: row r of columns c0, c0 + COLS, ...
  S(*sA)[LD] = smem[team][0];  // sA[kk][i] = op(A)(i, kk)
  S(*sB)[LD] = smem[team][1];  // sB[kk][j] = op(B)(kk, j)
  const GemmDesc<S> *groups = L.table ? L.table : L.inline_groups;

  for (int64_t vb = blockIdx.x; vb < L.total_blocks; vb += gridDim.x) {
    const GemmDesc<S> &G = group_of(groups, L.groups, vb);
    const int m = G.m, n = G.n, k = G.k;
    const int64_t tiles = int64_t(G.tiles_m) * G.tiles_n;
    const int64_t unit = (vb - G.block_begin) * Shape::PPB + team;
    const int64_t p = unit / tiles;
    const bool active = p < G.problems;
    const int tile = int(unit - p * tiles);
    const int i0 = (tile % G.tiles_m) * TILE, j0 = (tile / G.tiles_m) * TILE;
    const S *A = nullptr, *B = nullptr;
    S *C = nullptr;
    if (active) {
      A = G.a(p), B = G.b(p), C = G.c(p);
    }
    // C is loaded first so its latency hides behind A and B.
    S cv[TM][TN];
    if (active && G.read_c) {
#pragma unroll
      for (int q = 0; q < TM; ++q)
#pragma unroll
        for (int w = 0; w < TN; ++w) {
          const int i = i0 + tx + q * TX, j = j0 + ty + w * TY;
          if (i < m && j < n) cv[q][w] = C[i + int64_t(j) * G.ldc];
        }
    }
    CT acc[TM][TN];
#pragma unroll
    for (int q = 0; q < TM; ++q)
#pragma unroll
      for (int w = 0; w < TN; ++w) acc[q][w] = widen(zero<S>());

    const int kend = G.read_ab ? k : 0;  // block-uniform: the block is in one group
    for (int k0 = 0; k0 < kend; k0 += TILE) {
      S ra[PER], rb[PER];
#pragma unroll
      for (int e = 0; e < PER; ++e) {
        const int c = c0 + e * COLS;
        ra[e] = zero<S>(), rb[e] = zero<S>();
        if (active) {
          if (G.ta == 0) {  // op(A)(i, kk) = A[i + kk lda]: column-contiguous in i
            const int i = i0 + r, kk = k0 + c;
            if (i < m && kk < k) ra[e] = A[i + int64_t(kk) * G.lda];
          } else {          // op(A)(i, kk) = A[kk + i lda]
            const int kk = k0 + r, i = i0 + c;
            if (kk < k && i < m) {
              ra[e] = A[kk + int64_t(i) * G.lda];
              if (G.ta == 2) ra[e] = conj(ra[e]);
            }
          }
          if (G.tb == 0) {  // op(B)(kk, j) = B[kk + j ldb]
            const int kk = k0 + r, j = j0 + c;
            if (kk < k && j < n) rb[e] = B[kk + int64_t(j) * G.ldb];
          } else {          // op(B)(kk, j) = B[j + kk ldb]
            const int j = j0 + r, kk = k0 + c;
            if (j < n && kk < k) {
              rb[e] = B[j + int64_t(kk) * G.ldb];
              if (G.tb == 2) rb[e] = conj(rb[e]);
            }
          }
        }
      }
#pragma unroll
      for (int e = 0; e < PER; ++e) {
        const int c = c0 + e * COLS;
        if (G.ta == 0) sA[c][r] = ra[e];
        else sA[r][c] = ra[e];
        if (G.tb == 0) sB[r][c] = rb[e];
        else sB[c][r] = rb[e];
      }
      __syncthreads();
#pragma unroll
      for (int kk = 0; kk < TILE; ++kk) {
        CT a[TM], b[TN];
#pragma unroll
        for (int q = 0; q < TM; ++q) a[q] = widen(sA[kk][tx + q * TX]);
#pragma unroll
        for (int w = 0; w < TN; ++w) b[w] = widen(sB[kk][ty + w * TY]);
#pragma unroll
        for (int q = 0; q < TM; ++q)
#pragma unroll
          for (int w = 0; w < TN; ++w) acc[q][w] = madd(acc[q][w], a[q], b[w]);
      }
      __syncthreads();
    }
    if (active) {
#pragma unroll
      for (int q = 0; q < TM; ++q)
#pragma unroll
        for (int w = 0; w < TN; ++w) {
          const int i = i0 + tx + q * TX, j = j0 + ty + w * TY;
          if (i < m && j < n) {
            CT v = mul(G.alpha, acc[q][w]);
            if (G.read_c) v = madd(v, G.beta, widen(cv[q][w]));
            C[i + int64_t(j) * G.ldc] = narrow<S>(v);
          }
        }
    }
  }
}

// The kernel shapes, indexed by GemmGroup::config (the tuning table refers to them by index).
template <class S>
using GemmShapes =
    std::tuple<GemmShape<S, 2, 1, 1>, GemmShape<S, 4, 1, 1>, GemmShape<S, 4, 2, 2>,
               GemmShape<S, 8, 2, 1>, GemmShape<S, 8, 2, 2>, GemmShape<S, 16, 2, 2>,
               GemmShape<S, 16, 4, 4>, GemmShape<S, 32, 4, 4>, GemmShape<S, 32, 2, 2>,
               GemmShape<S, 32, 4, 2>, FlatShape<S, 4>, FlatShape<S, 16>, FlatShape<S, 64>,
               FlatShape<S, 256>, FlatShape<S, 4, 2>, FlatShape<S, 16, 4>, FlatShape<S, 64, 8>,
               FlatShape<S, 256, 16>>;
static_assert(std::tuple_size_v<GemmShapes<float>> == kConfigCount);

template <class S> constexpr DevPrec dev_prec_of() {
  if constexpr (std::is_same_v<S, __half>) return DevPrec::r16;
  else if constexpr (std::is_same_v<S, chalf>) return DevPrec::c16;
  else if constexpr (std::is_same_v<S, float>) return DevPrec::r32;
  else if constexpr (std::is_same_v<S, cplx<float>>) return DevPrec::c32;
  else if constexpr (std::is_same_v<S, double>) return DevPrec::r64;
  else return DevPrec::c64;
}

// f(shape) for configuration `config` of precision S; only compiled configurations exist
// (planning never picks another one).
template <class S, int I, class F>
void with_shape(int config, F &&f) {
  if constexpr (I < kConfigCount) {
    if constexpr (gemm_config_built(dev_prec_of<S>(), I)) {
      if (config == I) return f(std::tuple_element_t<I, GemmShapes<S>>{});
    }
    with_shape<S, I + 1>(config, f);
  }
}

// ---- cuBLAS, the vendor path ----------------------------------------------------------------
// The typed routines for s, d, c, z; the Ex routine (float accumulation) for half.
#define BB_VENDOR_TYPED(S, CU, X)                                                                 \
  inline cublasStatus_t vendor_strided(cublasHandle_t h, cublasOperation_t ta,                 \
                                       cublasOperation_t tb, int m, int n, int k, const S *alpha, \
                                       const S *A, int lda, long long sA, const S *B, int ldb,    \
                                       long long sB, const S *beta, S *C, int ldc, long long sC,  \
                                       int count) {                                               \
    return cublas##X##gemmStridedBatched(h, ta, tb, m, n, k, (const CU *)alpha, (const CU *)A,   \
                                         lda, sA, (const CU *)B, ldb, sB, (const CU *)beta,       \
                                         (CU *)C, ldc, sC, count);                                \
  }                                                                                               \
  inline cublasStatus_t vendor_arrays(cublasHandle_t h, cublasOperation_t ta,                  \
                                      cublasOperation_t tb, int m, int n, int k, const S *alpha,  \
                                      const S *const *A, int lda, const S *const *B, int ldb,     \
                                      const S *beta, S *const *C, int ldc, int count) {           \
    return cublas##X##gemmBatched(h, ta, tb, m, n, k, (const CU *)alpha, (const CU *const *)A,   \
                                  lda, (const CU *const *)B, ldb, (const CU *)beta,               \
                                  (CU *const *)C, ldc, count);                                    \
  }
BB_VENDOR_TYPED(float, float, S)
BB_VENDOR_TYPED(double, double, D)
BB_VENDOR_TYPED(cplx<float>, cuComplex, C)
BB_VENDOR_TYPED(cplx<double>, cuDoubleComplex, Z)
#undef BB_VENDOR_TYPED
inline cublasStatus_t vendor_strided(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                     int m, int n, int k, const float *alpha, const __half *A,
                                     int lda, long long sA, const __half *B, int ldb, long long sB,
                                     const float *beta, __half *C, int ldc, long long sC,
                                     int count) {
  return cublasGemmStridedBatchedEx(h, ta, tb, m, n, k, alpha, A, CUDA_R_16F, lda, sA, B,
                                    CUDA_R_16F, ldb, sB, beta, C, CUDA_R_16F, ldc, sC, count,
                                    CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}
inline cublasStatus_t vendor_arrays(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
                                    int m, int n, int k, const float *alpha,
                                    const __half *const *A, int lda, const __half *const *B,
                                    int ldb, const float *beta, __half *const *C, int ldc,
                                    int count) {
  return cublasGemmBatchedEx(h, ta, tb, m, n, k, alpha, (const void *const *)A, CUDA_R_16F, lda,
                             (const void *const *)B, CUDA_R_16F, ldb, beta, (void *const *)C,
                             CUDA_R_16F, ldc, count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}

inline cublasOperation_t vendor_op(int t) {
  return t == 0 ? CUBLAS_OP_N : t == 1 ? CUBLAS_OP_T : CUBLAS_OP_C;
}

template <class S>
int vendor_gemm(Session &s, const GemmGroup &g, const void *const *Ap, const void *const *Bp,
                void *const *Cp) {
  if constexpr (std::is_same_v<S, chalf>) {
    return s.fail(BLAS_BATCHED_ERR_DEVICE);  // never planned: gemm_has_vendor(c16) is false
  } else {
    using CT = typename dev<S>::C;
    auto h = static_cast<cublasHandle_t>(s.cublas());
    if (!h) return s.status();
    const CT alpha = scalar_from<CT>(g.alpha), beta = scalar_from<CT>(g.beta);
    s.started();
    cublasStatus_t st;
    if (!Ap)
      st = vendor_strided(h, vendor_op(g.ta), vendor_op(g.tb), g.m, g.n, g.k, &alpha,
                          static_cast<const S *>(g.A), g.lda, g.sA, static_cast<const S *>(g.B),
                          g.ldb, g.sB, &beta, static_cast<S *>(g.C), g.ldc, g.sC,
                          int(g.problems));
    else
      st = vendor_arrays(h, vendor_op(g.ta), vendor_op(g.tb), g.m, g.n, g.k, &alpha,
                         reinterpret_cast<const S *const *>(Ap), g.lda,
                         reinterpret_cast<const S *const *>(Bp), g.ldb, &beta,
                         reinterpret_cast<S *const *>(Cp), g.ldc, int(g.problems));
    // cuBLAS's status is the whole answer: the runtime's last-error slot may hold errors that
    // cuBLAS provoked and handled itself.
    if (st != CUBLAS_STATUS_SUCCESS) {
      if (std::getenv("BLAS_BATCHED_DEBUG"))
        std::fprintf(stderr, "blas_batched: cuBLAS gemm status %d (m %d n %d k %d lda %d ldb %d ldc %d ta %d tb %d %s)\n",
                     int(st), g.m, g.n, g.k, g.lda, g.ldb, g.ldc, g.ta, g.tb, Ap ? "arrays" : "strided");
      return s.fail(st == CUBLAS_STATUS_ALLOC_FAILED ? BLAS_BATCHED_ERR_DEVICE_ALLOC
                                                     : BLAS_BATCHED_ERR_DEVICE);
    }
    return s.status();
  }
}

inline bool flat_eligible(const GemmGroup &g, std::size_t elem, int max_elements) {
  const int ar = g.ta == 0 ? g.m : g.k, br = g.tb == 0 ? g.k : g.n;
  if (g.lda != ar || g.ldb != br || g.ldc != g.m) return false;
  const int64_t ea = int64_t(g.m) * g.k, eb = int64_t(g.k) * g.n, ec = int64_t(g.m) * g.n;
  if (ea > max_elements || eb > max_elements || ec > max_elements) return false;
  if ((ea * elem) % 16 || (eb * elem) % 16 || (ec * elem) % 16) return false;
  return g.align16;
}

// ---- planning and launching -----------------------------------------------------------------
template <class S>
int run_gemm(Session &s, const GemmGroup *groups, int count) {
  using Desc = GemmDesc<S>;
  using CT = typename dev<S>::C;
  constexpr std::size_t kPtr = sizeof(void *);
  // A group needs its pointer arrays on the device unless its matrices are evenly strided
  // (the dispatcher detected that); cuBLAS and the kernels both take either form.
  std::size_t bytes = 0;
  std::vector<std::size_t> ptr_offset(count, 0);
  for (int i = 0; i < count; ++i)
    if (groups[i].Ap) {
      ptr_offset[i] = bytes;
      bytes += 3 * kPtr * std::size_t(groups[i].problems);
    }
  // Groups by kernel configuration, and the table space of configurations with many groups.
  std::vector<std::vector<int>> by_config(kConfigCount);
  for (int i = 0; i < count; ++i) {
    int c = groups[i].config;
    if (c >= kFirstFlatConfig) {
      const int f = (c - kFirstFlatConfig) % 4;
      const GemmGroup &g = groups[i];
      if (!flat_eligible(g, sizeof(S), kFlatMaxElements[f])) c = kFlatFallback[f];
      else if (g.m == kFlatExact[f] && g.n == kFlatExact[f] && g.k == kFlatExact[f])
        c = kFirstExactConfig + f;  // the same flat kernel, fully unrolled for this shape
      else c = kFirstFlatConfig + f;
    }
    if (c >= 0 && !gemm_config_built(dev_prec_of<S>(), c)) c = kFallbackConfig;
    if (c >= 0) by_config[c].push_back(i);
  }
  std::vector<std::size_t> table_offset(kConfigCount, 0);
  for (int c = 0; c < kConfigCount; ++c)
    if (by_config[c].size() > std::size_t(kInlineGroups)) {
      bytes = (bytes + alignof(Desc) - 1) / alignof(Desc) * alignof(Desc);
      table_offset[c] = bytes;
      bytes += by_config[c].size() * sizeof(Desc);
    }
  char *host = nullptr, *device = nullptr;
  if (bytes) {
    host = s.staging(bytes);
    device = s.device_buffer(bytes);
    if (!host || !device) return s.status();
    for (int i = 0; i < count; ++i)
      if (groups[i].Ap) {
        const std::size_t n = std::size_t(groups[i].problems) * kPtr;
        std::memcpy(host + ptr_offset[i], groups[i].Ap, n);
        std::memcpy(host + ptr_offset[i] + n, groups[i].Bp, n);
        std::memcpy(host + ptr_offset[i] + 2 * n, groups[i].Cp, n);
      }
  }
  auto device_ptrs = [&](int i, int which) -> void *const * {
    if (!groups[i].Ap) return nullptr;
    return reinterpret_cast<void *const *>(device + ptr_offset[i] +
                                           which * std::size_t(groups[i].problems) * kPtr);
  };

  // Launch parameters per configuration; tables go into the staging area before the upload.
  std::vector<GemmLaunch<S>> launches(kConfigCount);
  for (int c = 0; c < kConfigCount; ++c) {
    if (by_config[c].empty()) continue;
    GemmLaunch<S> &L = launches[c];
    std::memset(&L, 0, sizeof L);
    const bool in_table = by_config[c].size() > std::size_t(kInlineGroups);
    Desc *out = in_table ? reinterpret_cast<Desc *>(host + table_offset[c]) : L.inline_groups;
    int64_t blocks = 0;
    with_shape<S, 0>(c, [&](auto shape) {
      using Shape = decltype(shape);
      for (std::size_t j = 0; j < by_config[c].size(); ++j) {
        const int i = by_config[c][j];
        const GemmGroup &g = groups[i];
        Desc d;
        std::memset(&d, 0, sizeof d);
        d.block_begin = blocks;
        d.problems = g.problems;
        d.m = g.m, d.n = g.n, d.k = g.k, d.lda = g.lda, d.ldb = g.ldb, d.ldc = g.ldc;
        d.tiles_m = int((int64_t(g.m) + Shape::TILE - 1) / Shape::TILE);
        d.tiles_n = int((int64_t(g.n) + Shape::TILE - 1) / Shape::TILE);
        d.ta = g.ta, d.tb = g.tb;
        d.read_ab = !g.alpha_zero && g.k > 0;
        d.read_c = !g.beta_zero;
        d.alpha = scalar_from<CT>(g.alpha), d.beta = scalar_from<CT>(g.beta);
        d.A = static_cast<const S *>(g.A), d.B = static_cast<const S *>(g.B);
        d.C = static_cast<S *>(g.C);
        d.sA = g.sA, d.sB = g.sB, d.sC = g.sC;
        d.Ap = reinterpret_cast<const S *const *>(device_ptrs(i, 0));
        d.Bp = reinterpret_cast<const S *const *>(device_ptrs(i, 1));
        d.Cp = reinterpret_cast<S *const *>(device_ptrs(i, 2));
        const int64_t units = g.problems * int64_t(d.tiles_m) * d.tiles_n;
        blocks += (units + Shape::PPB - 1) / Shape::PPB;
        out[j] = d;
      }
    });
    L.groups = int(by_config[c].size());
    L.total_blocks = blocks;
    L.table = in_table ? reinterpret_cast<const Desc *>(device + table_offset[c]) : nullptr;
  }
  if (s.upload(bytes)) return s.status();

  auto stream = static_cast<cudaStream_t>(s.stream());
  for (int c = 0; c < kConfigCount; ++c) {
    if (by_config[c].empty() || launches[c].total_blocks == 0) continue;
    with_shape<S, 0>(c, [&](auto shape) {
      using Shape = decltype(shape);
      // Enough blocks to fill the GPU many times over; the grid strides over the rest.
      const int64_t cap = int64_t(s.sm_count()) * 2048;
      const unsigned grid = unsigned(std::min<int64_t>(launches[c].total_blocks, cap));
      s.started();
      s.clear_stale_error();
      if constexpr (Shape::flat)
        gemm_flat<S, Shape><<<grid, Shape::THREADS, 0, stream>>>(launches[c]);
      else
        gemm_tiles<S, Shape><<<grid, Shape::THREADS, 0, stream>>>(launches[c]);
      s.check_launch();
    });
    if (s.status()) return s.status();
  }
  for (int i = 0; i < count; ++i)
    if (groups[i].config == kConfigVendor)
      if (vendor_gemm<S>(s, groups[i], device_ptrs(i, 0), device_ptrs(i, 1), device_ptrs(i, 2)))
        return s.status();
  return s.status();
}

}  // namespace bb::cuda
