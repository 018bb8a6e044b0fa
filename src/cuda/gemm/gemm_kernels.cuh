// Batched gemm kernels on runs of problems (GemmSeg). A thread block holds several teams; each
// team looks up its own run, so one block may serve problems of different groups (a call with
// one problem per group fills its blocks like one large group). Tiled kernels: a team computes
// one TILE x TILE tile of C, each thread a TM x TN register block, looping over k in TILE
// steps. Flat kernels: a team moves a whole small problem with 16-byte vectors through shared
// memory; the exact-shape variants are fully unrolled, and where a thread's vectors of C hold
// the same rows of some columns, it computes them and C stays in registers. Every matrix is
// read once and written once.
#pragma once
#include "../device_types.cuh"
#include "../run_table.cuh"
#include "gemm.hpp"
#include "gemm_tuning.hpp"

#include <tuple>
#include <type_traits>

namespace bb::cuda {

using GemmLaunch = RunLaunch<GemmSeg, kInlineSegs>;
// The parts of a merged launch (gemm_merged), in block order.
struct GemmMergedLaunch {
  int parts;
  GemmLaunchPart part[kGemmConfigs];
};

// A NULL C, or a NULL A or B where the problem needs them (k > 0, even when alpha = 0 leaves
// them unread: SPEC.md section 4.2), in array form: a problem skipped, which the pass over the
// pointers (the host's, or the device's for pointer arrays in device memory) reported.
__device__ __forceinline__ bool missing_input(const GemmSeg &G, int64_t p) {
  if (G.k == 0) return false;
  return (G.A.array && !static_cast<const void *const *>(G.A.p)[p]) ||
         (G.B.array && !static_cast<const void *const *>(G.B.p)[p]);
}

template <class S, int TILE_, int TM_, int TN_>
struct TileShape {
  static constexpr int TILE = TILE_, TM = TM_, TN = TN_;
  static constexpr int TX = TILE / TM, TY = TILE / TN, TEAM = TX * TY;
  static constexpr int LD = TILE + 1;  // pad: transposed stores hit distinct banks
  static constexpr int team_elements = 2 * TILE * LD;  // A's tile, then B's
  static constexpr int team_smem = team_elements * int(sizeof(S));
  static constexpr int by_threads = 256 / TEAM > 0 ? 256 / TEAM : 1;
  static constexpr int by_smem = (40 * 1024) / team_smem > 0 ? (40 * 1024) / team_smem : 1;
  static constexpr int PPB = by_threads < by_smem ? by_threads : by_smem;
  static constexpr int THREADS = TEAM * PPB;
  static constexpr int smem_bytes = PPB * team_elements * int(sizeof(S));
  // Blocks per SM asked of ptxas: for real types 80 registers (3 blocks of 256 threads; 64
  // would spill, and without a hint the smallest tiles spill a little) except tile 16 2 x 2 at
  // 64 (4 blocks; r64 spills 48 bytes there, yet ran 16 % faster on the H100, ncu, strided
  // n = 16; the other shapes not measured), 128 for complex types (twice the accumulators).
  // Tiles of 64 (4 x 4 a thread, 256 threads): 128, two blocks an SM (r16 spilled 92 bytes at 80).
  // r32's 32-tiles of 4 x 4 spill 80 bytes at 80 and are still its fastest 32-tiles
  // (fallback_config in gemm_tuning.hpp). 32-tiles of 2 x 2 at 64: r64 spilled 48 bytes and
  // gained nothing (ncu, H200, 100k one-problem groups, n 2..32: 778 -> 793 us a call).
  static constexpr int REGS = dev<S>::complex || TILE == 64 ? 128 : TILE == 16 && TM == 2 && TN == 2 ? 64 : 80;
  static constexpr int MIN_BLOCKS = 65536 / (THREADS * REGS) > 0 ? 65536 / (THREADS * REGS) : 1;
  static constexpr bool flat = false;
  static constexpr int MAXE = 0, EXACT = 0;
  static_assert(TEAM % TILE == 0, "a load pass covers whole columns of the tile");
};

// Problems whose matrices are each one contiguous, 16-byte aligned block with at most MAXE
// elements: every matrix moves as 16-byte vectors, C included, and the product runs from
// shared memory. EXACT: exactly EXACT x EXACT x EXACT, loops fully unrolled.
template <class S, int MAXE_, int EXACT_ = 0>
struct FlatShape {
  static constexpr int MAXE = MAXE_, EXACT = EXACT_;
  static_assert(EXACT == 0 || EXACT * EXACT == MAXE);
  static constexpr int VEC = 16 / int(sizeof(S));
  static constexpr int VM = MAXE / VEC > 0 ? MAXE / VEC : 1;  // vectors of a largest matrix
  static constexpr int PER = EXACT > 0 ? flat_exact_vectors_per_thread(int(sizeof(S)), EXACT) : 1;  // vectors of C a thread
  static constexpr int TEAM = flat_team(VM, PER);
  static constexpr int team_smem = 3 * MAXE * int(sizeof(S)) + 16;
  // A team's shared memory, elements: A, B and C of up to MAXE elements (at least a vector each),
  // and 16 bytes more, so that the teams sharing a warp read different banks.
  static constexpr int M = MAXE < VEC ? VEC : MAXE;
  static constexpr int team_elements = 3 * M + VEC;
  static constexpr int by_threads = 256 / TEAM;
  static constexpr int by_smem = (40 * 1024) / team_smem > 0 ? (40 * 1024) / team_smem : 1;
  static constexpr int PPB = by_threads < by_smem ? by_threads : by_smem;
  static constexpr int THREADS = TEAM * PPB;
  static constexpr int smem_bytes = PPB * team_elements * int(sizeof(S));
  static constexpr int LOADS = (VM + TEAM - 1) / TEAM, OUTS = (MAXE + TEAM - 1) / TEAM;
  static constexpr int TILE = 1 << 30;  // one tile per problem
  static constexpr bool flat = true;
  // Exact shapes that keep C in registers (the rule planning uses, flat_exact_in_registers):
  // the whole problem in one thread (16 bytes a matrix), or each thread's vectors of C the same
  // rows of LOADS columns (flat_column_vectors).
  static constexpr bool keeps_c = EXACT > 0 && flat_exact_in_registers(int(sizeof(S)), EXACT);
  static constexpr bool in_registers = keeps_c && MAXE * sizeof(S) == 16;
  static constexpr bool column_vectors = keeps_c && !in_registers;
  static_assert(!column_vectors || (TEAM * LOADS == VM && TEAM * VEC % (EXACT > 0 ? EXACT : 1) == 0 && TEAM > 1),
                "a team's vectors of C are whole columns");
};

// The shapes of GemmConfig, in its order.
template <class S>
using GemmShapes =
    std::tuple<TileShape<S, 2, 1, 1>, TileShape<S, 4, 1, 1>, TileShape<S, 4, 2, 2>, TileShape<S, 8, 2, 1>,
               TileShape<S, 8, 2, 2>, TileShape<S, 16, 2, 2>, TileShape<S, 16, 4, 4>, TileShape<S, 32, 4, 4>,
               TileShape<S, 32, 2, 2>, TileShape<S, 32, 4, 2>, TileShape<S, 64, 4, 4>, FlatShape<S, 4>, FlatShape<S, 16>,
               FlatShape<S, 64>, FlatShape<S, 256>, FlatShape<S, 4, 2>, FlatShape<S, 16, 4>,
               FlatShape<S, 64, 8>, FlatShape<S, 256, 16>>;
static_assert(std::tuple_size_v<GemmShapes<float>> == kGemmConfigs);

// f(shape) for configuration `config` of precision S, if compiled; returns whether it was.
template <class S, int I = 0, class F>
bool with_shape(int config, F &&f) {
  if constexpr (I < kGemmConfigs) {
    if constexpr (gemm_config_built(dev_prec_of<S>(), I)) {
      if (config == I) {
        f(std::tuple_element_t<I, GemmShapes<S>>{});
        return true;
      }
    }
    return with_shape<S, I + 1>(config, f);
  }
  return false;
}

// f(TA, TB) with the problem's transposes as compile-time constants (0 N, 1 T, 2 C), for the
// fully unrolled exact-size products.
template <class F>
__device__ __forceinline__ void with_transposes(int ta, int tb, F &&f) {
  using I0 = std::integral_constant<int, 0>;
  using I1 = std::integral_constant<int, 1>;
  using I2 = std::integral_constant<int, 2>;
  switch (ta * 3 + tb) {
    case 0: f(I0{}, I0{}); break;
    case 1: f(I0{}, I1{}); break;
    case 2: f(I0{}, I2{}); break;
    case 3: f(I1{}, I0{}); break;
    case 4: f(I1{}, I1{}); break;
    case 5: f(I1{}, I2{}); break;
    case 6: f(I2{}, I0{}); break;
    case 7: f(I2{}, I1{}); break;
    default: f(I2{}, I2{}); break;
  }
}

// C = alpha op(A) op(B) + beta C for one EXACT-sized problem in shared memory; this thread's
// elements are t, t + TEAM, ...
template <class S, class Shape, int TA, int TB>
__device__ __forceinline__ void flat_exact(const S *sA, const S *sB, S *sC, int t, const GemmSeg &G,
                                           typename dev<S>::C alpha, typename dev<S>::C beta) {
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
    CT v = mul(alpha, acc);
    if (G.read_c) v = madd(v, beta, widen(sC[e]));
    sC[e] = narrow<S>(v);
  }
}

// The 16-byte vectors of C that thread t loaded (c, in place): rows i0 .. i0 + VEC - 1 of columns
// j0, j0 + STEP, ... of one EXACT-sized problem, computed from A and B in shared memory (columns
// LD elements apart). Against one element per thread (flat_exact), op(A)'s rows come as one
// vector load per k for all of the thread's vectors, and C stays in registers: the tiny kernels
// were bound by shared-memory wavefronts (ncu on the H200: L1 78-88 % busy, DRAM 44-58 %), not
// by DRAM.
template <class S, class Shape, int LD, int TA, int TB>
__device__ __forceinline__ void flat_column_vectors(const S *sA, const S *sB, uint4 (&c)[Shape::LOADS], int t,
                                                    const GemmSeg &G, typename dev<S>::C alpha,
                                                    typename dev<S>::C beta) {
  using CT = typename dev<S>::C;
  constexpr int N = Shape::EXACT, VEC = Shape::VEC, L = Shape::LOADS, STEP = Shape::TEAM * VEC / N;
  const int i0 = (t * VEC) % N, j0 = (t * VEC) / N;
  CT acc[L][VEC];
#pragma unroll
  for (int l = 0; l < L; ++l)
#pragma unroll
    for (int r = 0; r < VEC; ++r) acc[l][r] = widen(zero<S>());
  if (G.read_ab) {
#pragma unroll
    for (int kk = 0; kk < N; ++kk) {
      S a[VEC];
      if constexpr (TA == 0) {
        const uint4 v = *reinterpret_cast<const uint4 *>(sA + i0 + kk * LD);
        memcpy(a, &v, 16);
      } else {
#pragma unroll
        for (int r = 0; r < VEC; ++r) a[r] = TA == 2 ? conj(sA[kk + (i0 + r) * LD]) : sA[kk + (i0 + r) * LD];
      }
#pragma unroll
      for (int l = 0; l < L; ++l) {
        const int j = j0 + l * STEP;
        S b = TB == 0 ? sB[kk + j * LD] : sB[j + kk * LD];
        if (TB == 2) b = conj(b);
#pragma unroll
        for (int r = 0; r < VEC; ++r) acc[l][r] = madd(acc[l][r], widen(a[r]), widen(b));
      }
    }
  }
#pragma unroll
  for (int l = 0; l < L; ++l) {
    S cv[VEC];
    memcpy(cv, &c[l], 16);
#pragma unroll
    for (int r = 0; r < VEC; ++r) {
      CT v = mul(alpha, acc[l][r]);
      if (G.read_c) v = madd(v, beta, widen(cv[r]));
      cv[r] = narrow<S>(v);
    }
    memcpy(&c[l], cv, 16);
  }
}

// A 16-byte vector of a matrix: one load where the matrix is 16-byte aligned, else element by
// element (matrices behind device pointer arrays, whose addresses the host never saw).
template <class S>
__device__ __forceinline__ uint4 load_vector(const uint4 *p, bool aligned) {
  if (aligned) return *p;
  S e[16 / sizeof(S)];
  const S *s = reinterpret_cast<const S *>(p);
#pragma unroll
  for (int i = 0; i < int(16 / sizeof(S)); ++i) e[i] = s[i];
  uint4 v;
  memcpy(&v, e, 16);
  return v;
}
template <class S>
__device__ __forceinline__ void store_vector(uint4 *p, const uint4 &v, bool aligned) {
  if (aligned) {
    *p = v;
    return;
  }
  S e[16 / sizeof(S)];
  memcpy(e, &v, 16);
  S *s = reinterpret_cast<S *>(p);
#pragma unroll
  for (int i = 0; i < int(16 / sizeof(S)); ++i) s[i] = e[i];
}

// The whole EXACT-sized problem in one 16-byte vector per matrix, in registers (TEAM == 1).
template <class S, class Shape>
__device__ __forceinline__ void flat_registers(const uint4 *ra, const uint4 *rb, uint4 *rc, const GemmSeg &G,
                                               typename dev<S>::C alpha, typename dev<S>::C beta) {
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
    CT v = mul(alpha, acc);
    if (G.read_c) v = madd(v, beta, widen(c[e]));
    c[e] = narrow<S>(v);
  }
  memcpy(rc, c, 16);
}

// A flat kernel's work from block `first` in steps of `step` (the blocks of its launch, or of
// its part of a merged launch) over the runs of L; smem: Shape::smem_bytes, 16-byte aligned.
template <class S, class Shape>
__device__ __forceinline__ void gemm_flat_blocks(const RunTable<GemmSeg> &L, int64_t first, int64_t step, S *smem) {
  using CT = typename dev<S>::C;
  constexpr int VEC = Shape::VEC, TEAM = Shape::TEAM;
  constexpr bool in_registers = Shape::in_registers, column_vectors = Shape::column_vectors;
  // There, A's and B's columns sit VEC elements further apart than N: the threads of a warp
  // read one element of several columns, and columns a multiple of 32 words apart would all
  // hit one bank (4-way conflicts at r64 n = 8, 16 and r32 n = 16).
  constexpr int N = Shape::EXACT > 0 ? Shape::EXACT : 1;
  constexpr int LD = column_vectors && N >= 2 * VEC ? N + VEC : N;
  // Teams sit 16 bytes further apart than their data needs, so the teams that share a warp
  // read different banks.
  constexpr int M = Shape::M;
  const int team = threadIdx.x / TEAM, t = threadIdx.x % TEAM;
  static_assert(!column_vectors || 2 * N * LD <= Shape::team_elements, "padded A and B fit the team's space");
  S *sA = smem + team * Shape::team_elements, *sB = sA + (column_vectors ? N * LD : M), *sC = sB + M;
  for (int64_t vb = first; vb * Shape::PPB < L.total_units; vb += step) {
    const int64_t u = vb * Shape::PPB + team;
    const bool in_launch = u < L.total_units;
    const GemmSeg &G = run_of<Shape::PPB>(L, in_launch ? u : L.total_units - 1);
    const int m = G.m, n = G.n, k = G.k;
    const int64_t p = u - G.unit_begin;
    uint4 *C = in_launch ? reinterpret_cast<uint4 *>(operand_at<S>(G.C, p)) : nullptr;
    const bool active = C && !missing_input(G, p);
    if (active && G.info && t == 0) G.info[p] = 0;
    const uint4 *A = active && G.read_ab ? reinterpret_cast<const uint4 *>(operand_at<S>(G.A, p)) : nullptr;
    const uint4 *B = active && G.read_ab ? reinterpret_cast<const uint4 *>(operand_at<S>(G.B, p)) : nullptr;
    const CT alpha = scalar_from<CT>(G.alpha), beta = scalar_from<CT>(G.beta);
    const int va = m * k / VEC, vbn = k * n / VEC, vc = m * n / VEC;
    // Runs the host planned are 16-byte aligned; device pointer arrays may not be.
    const bool aligned = ((reinterpret_cast<std::uintptr_t>(A) | reinterpret_cast<std::uintptr_t>(B) |
                           reinterpret_cast<std::uintptr_t>(C)) & 15) == 0;
    uint4 ra[Shape::LOADS], rb[Shape::LOADS], rc[Shape::LOADS];
    if (active) {
#pragma unroll
      for (int l = 0; l < Shape::LOADS; ++l) {
        const int v = t + l * TEAM;
        if (G.read_ab && v < va) ra[l] = load_vector<S>(A + v, aligned);
        if (G.read_ab && v < vbn) rb[l] = load_vector<S>(B + v, aligned);
        if (G.read_c && v < vc) rc[l] = load_vector<S>(C + v, aligned);
      }
      if constexpr (column_vectors) {  // into padded columns
#pragma unroll
        for (int l = 0; l < Shape::LOADS; ++l) {
          const int v = t + l * TEAM, at = (v * VEC) / N * LD + (v * VEC) % N;
          if (G.read_ab) {
            *reinterpret_cast<uint4 *>(sA + at) = ra[l];
            *reinterpret_cast<uint4 *>(sB + at) = rb[l];
          }
        }
      } else {
#pragma unroll
        for (int l = 0; l < Shape::LOADS && !in_registers; ++l) {
          const int v = t + l * TEAM;
          if (G.read_ab && v < va) reinterpret_cast<uint4 *>(sA)[v] = ra[l];
          if (G.read_ab && v < vbn) reinterpret_cast<uint4 *>(sB)[v] = rb[l];
          if (G.read_c && v < vc) reinterpret_cast<uint4 *>(sC)[v] = rc[l];
        }
      }
    }
    if constexpr (in_registers) {
      // One thread owns the whole problem: it never leaves registers.
      if (active) {
        flat_registers<S, Shape>(ra, rb, rc, G, alpha, beta);
        store_vector<S>(C, rc[0], aligned);
      }
      continue;  // every thread of the block is here: no barrier is skipped by some
    }
    __syncthreads();
    if constexpr (column_vectors) {
      if (active) {
        with_transposes(G.ta, G.tb, [&](auto ta, auto tb) {
          flat_column_vectors<S, Shape, LD, decltype(ta)::value, decltype(tb)::value>(sA, sB, rc, t, G, alpha, beta);
        });
#pragma unroll
        for (int l = 0; l < Shape::LOADS; ++l) store_vector<S>(C + t + l * TEAM, rc[l], aligned);
      }
      __syncthreads();  // the next problem reuses the shared memory
      continue;
    } else if constexpr (Shape::EXACT > 0) {
      if (active) {
        with_transposes(G.ta, G.tb, [&](auto ta, auto tb) {
          flat_exact<S, Shape, decltype(ta)::value, decltype(tb)::value>(sA, sB, sC, t, G, alpha, beta);
        });
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
          CT v = mul(alpha, acc);
          if (G.read_c) v = madd(v, beta, widen(sC[e]));
          sC[e] = narrow<S>(v);  // only this thread reads or writes element e
        }
      }
    }
    __syncthreads();
    if (active) {
#pragma unroll
      for (int l = 0; l < Shape::LOADS; ++l) {
        const int v = t + l * TEAM;
        if (v < vc) store_vector<S>(C + v, reinterpret_cast<const uint4 *>(sC)[v], aligned);
      }
    }
    __syncthreads();  // the next problem reuses the shared memory
  }
}

// A tiled kernel's work from block `first` in steps of `step` over the runs of L (as
// gemm_flat_blocks).
template <class S, class Shape>
__device__ __forceinline__ void gemm_tiles_blocks(const RunTable<GemmSeg> &L, int64_t first, int64_t step, S *smem) {
  using CT = typename dev<S>::C;
  constexpr int TILE = Shape::TILE, TM = Shape::TM, TN = Shape::TN, TX = Shape::TX,
                TY = Shape::TY, TEAM = Shape::TEAM, LD = Shape::LD, PER = TM * TN,
                COLS = TEAM / TILE;
  const int team = threadIdx.x / TEAM, t = threadIdx.x % TEAM;
  const int tx = t % TX, ty = t / TX;
  const int r = t % TILE, c0 = t / TILE;  // load position: row r of columns c0, c0 + COLS, ...
  S(*sA)[LD] = reinterpret_cast<S(*)[LD]>(smem + team * Shape::team_elements);  // sA[kk][i] = op(A)(i, kk)
  S(*sB)[LD] = sA + TILE;                                                       // sB[kk][j] = op(B)(kk, j)

  for (int64_t vb = first; vb * Shape::PPB < L.total_units; vb += step) {
    const int64_t u = vb * Shape::PPB + team;
    const bool in_launch = u < L.total_units;
    const GemmSeg &G = run_of<Shape::PPB>(L, in_launch ? u : L.total_units - 1);
    // Positions inside a matrix are 32-bit unsigned (orders are ints, and a position plus a
    // tile cannot wrap); only offsets (position x ld) and tile counts need 64 bits. Fewer
    // 64-bit values keep the kernel near 64 registers.
    const unsigned m = G.m, n = G.n, k = G.k;
    const unsigned tiles_m = (m + TILE - 1) / TILE, tiles_n = (n + TILE - 1) / TILE;
    const int64_t local = u - G.unit_begin;
    int64_t p;
    unsigned i0, j0;
    if (tiles_m == 1 && tiles_n == 1) {  // the common case: one tile per problem, no division
      p = local, i0 = 0, j0 = 0;
    } else {
      const int64_t tiles = int64_t(tiles_m) * tiles_n;
      p = local / tiles;
      const int64_t tile = local - p * tiles;
      i0 = unsigned(tile % tiles_m) * TILE, j0 = unsigned(tile / tiles_m) * TILE;
    }
    S *C = in_launch ? operand_at<S>(G.C, p) : nullptr;
    const bool active = C && !missing_input(G, p);
    if (active && G.info && t == 0 && i0 == 0 && j0 == 0) G.info[p] = 0;  // once per problem
    const S *A = active && G.read_ab ? operand_at<S>(G.A, p) : nullptr;
    const S *B = active && G.read_ab ? operand_at<S>(G.B, p) : nullptr;
    const int lda = G.A.ld, ldb = G.B.ld, ldc = G.C.ld;  // widened where multiplied
    // C is loaded first so its latency hides behind A and B.
    S cv[TM][TN];
    if (active && G.read_c) {
#pragma unroll
      for (int q = 0; q < TM; ++q)
#pragma unroll
        for (int w = 0; w < TN; ++w) {
          const unsigned i = i0 + tx + q * TX, j = j0 + ty + w * TY;
          if (i < m && j < n) cv[q][w] = C[i + int64_t(j) * ldc];
        }
    }
    CT acc[TM][TN];
#pragma unroll
    for (int q = 0; q < TM; ++q)
#pragma unroll
      for (int w = 0; w < TN; ++w) acc[q][w] = widen(zero<S>());

    // Teams of one block may belong to different runs: the block loops as long as any team
    // has k left (__syncthreads_or), the others idle through the barriers.
    const unsigned kend = active && G.read_ab ? k : 0;
    for (unsigned k0 = 0; __syncthreads_or(k0 < kend); k0 += TILE) {
      const bool work = k0 < kend;
      S ra[PER], rb[PER];
#pragma unroll
      for (int e = 0; e < PER; ++e) {
        const int c = c0 + e * COLS;
        ra[e] = zero<S>(), rb[e] = zero<S>();
        if (work) {
          if (G.ta == 0) {  // op(A)(i, kk) = A[i + kk lda]: column-contiguous in i
            const unsigned i = i0 + r, kk = k0 + c;
            if (i < m && kk < k) ra[e] = A[i + int64_t(kk) * lda];
          } else {          // op(A)(i, kk) = A[kk + i lda]
            const unsigned kk = k0 + r, i = i0 + c;
            if (kk < k && i < m) {
              ra[e] = A[kk + int64_t(i) * lda];
              if (G.ta == 2) ra[e] = conj(ra[e]);
            }
          }
          if (G.tb == 0) {  // op(B)(kk, j) = B[kk + j ldb]
            const unsigned kk = k0 + r, j = j0 + c;
            if (kk < k && j < n) rb[e] = B[kk + int64_t(j) * ldb];
          } else {          // op(B)(kk, j) = B[j + kk ldb]
            const unsigned j = j0 + r, kk = k0 + c;
            if (j < n && kk < k) {
              rb[e] = B[j + int64_t(kk) * ldb];
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
      if (work) {
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
      }
    }
    if (active) {
      const CT alpha = scalar_from<CT>(G.alpha), beta = scalar_from<CT>(G.beta);
#pragma unroll
      for (int q = 0; q < TM; ++q)
#pragma unroll
        for (int w = 0; w < TN; ++w) {
          const unsigned i = i0 + tx + q * TX, j = j0 + ty + w * TY;
          if (i < m && j < n) {
            CT v = mul(alpha, acc[q][w]);
            if (G.read_c) v = madd(v, beta, widen(cv[q][w]));
            C[i + int64_t(j) * ldc] = narrow<S>(v);
          }
        }
    }
  }
}

template <class S, class Shape>
__global__ void __launch_bounds__(Shape::THREADS) gemm_flat(const __grid_constant__ GemmLaunch L) {
  __shared__ __align__(16) S smem[Shape::PPB * Shape::team_elements];
  gemm_flat_blocks<S, Shape>(run_table(L), blockIdx.x, gridDim.x, smem);
}

template <class S, class Shape>
__global__ void __launch_bounds__(Shape::THREADS, Shape::MIN_BLOCKS) gemm_tiles(const __grid_constant__ GemmLaunch L) {
  __shared__ __align__(16) S smem[Shape::PPB * Shape::team_elements];
  gemm_tiles_blocks<S, Shape>(run_table(L), blockIdx.x, gridDim.x, smem);
}

// Merged launches: the runs of several configurations in one launch, each configuration's
// blocks after the previous one's (GemmMergedLaunch). A chunk of one-problem groups of many
// sizes launched about ten kernels of a few blocks each, every one paying a launch on the
// host (about 5 us on the H200 machine's) and a ramp on the GPU. The configurations that take
// part: those built with 256 threads a block whose shared memory fits a static array.
template <class S, int I>
struct Merged {
  using Shape = std::tuple_element_t<I, GemmShapes<S>>;
  static constexpr bool value = gemm_config_built(dev_prec_of<S>(), I) && Shape::THREADS == kMergedThreads &&
                                Shape::smem_bytes <= kMergedSmemBytes;
};
template <class S, int I = 0>
constexpr int merged_smem_bytes() {
  if constexpr (I == kGemmConfigs) return 16;
  else {
    constexpr int rest = merged_smem_bytes<S, I + 1>();
    if constexpr (Merged<S, I>::value) return Merged<S, I>::Shape::smem_bytes > rest ? Merged<S, I>::Shape::smem_bytes : rest;
    else return rest;
  }
}
// The fewest blocks an SM that the tiled configurations among them ask for (their registers).
template <class S, int I = 0>
constexpr int merged_min_blocks() {
  if constexpr (I == kGemmConfigs) return 8;
  else {
    constexpr int rest = merged_min_blocks<S, I + 1>();
    using Shape = typename Merged<S, I>::Shape;
    if constexpr (Merged<S, I>::value && !Shape::flat) return Shape::MIN_BLOCKS < rest ? Shape::MIN_BLOCKS : rest;
    else return rest;
  }
}
// (As constants: device code may not call host constexpr functions.)
template <class S>
struct MergedKernel {
  static constexpr int smem_bytes = merged_smem_bytes<S>(), min_blocks = merged_min_blocks<S>();
};
template <class S, int I = 0>
constexpr bool merged_config(int config) {
  if constexpr (I == kGemmConfigs) return false;
  else return (config == I && Merged<S, I>::value) || merged_config<S, I + 1>(config);
}

// Each configuration's work as a function of its own: inlined into one kernel, the bodies'
// registers were allocated together and spilled (r64: 536 bytes at 80 registers, where each
// body alone needs no spill).
// The launch's dynamic shared memory, named here rather than passed: a pointer argument of a
// noinline function is generic, and its accesses would not compile to shared-memory ones.
template <class S, class Shape>
__device__ __noinline__ void merged_part(const RunTable<GemmSeg> L, int64_t first, int64_t step) {
  extern __shared__ __align__(16) unsigned char gemm_merged_smem[];
  S *smem = reinterpret_cast<S *>(gemm_merged_smem);
  if constexpr (Shape::flat) gemm_flat_blocks<S, Shape>(L, first, step, smem);
  else gemm_tiles_blocks<S, Shape>(L, first, step, smem);
}

template <class S, int I = 0>
__device__ __forceinline__ void merged_blocks(int config, const RunTable<GemmSeg> &L, int64_t first, int64_t step) {
  if constexpr (I < kGemmConfigs) {
    if constexpr (Merged<S, I>::value) {
      using Shape = typename Merged<S, I>::Shape;
      if (config == I) return merged_part<S, Shape>(L, first, step);
    }
    merged_blocks<S, I + 1>(config, L, first, step);
  }
}

template <class S>
__global__ void __launch_bounds__(kMergedThreads, MergedKernel<S>::min_blocks) gemm_merged(const __grid_constant__ GemmMergedLaunch M) {
  int q = 0;  // this block's part: a few parts, in block order
  while (q + 1 < M.parts && M.part[q + 1].block_begin <= int64_t(blockIdx.x)) ++q;
  const GemmLaunchPart &P = M.part[q];
  const RunTable<GemmSeg> L{static_cast<const GemmSeg *>(P.table), P.block_first, P.count, P.units};
  const int64_t blocks = (q + 1 < M.parts ? M.part[q + 1].block_begin : int64_t(gridDim.x)) - P.block_begin;
  merged_blocks<S>(P.config, L, int64_t(blockIdx.x) - P.block_begin, blocks);
}

}  // namespace bb::cuda
