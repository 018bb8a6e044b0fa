// Device gemm tuning: the named kernel configurations, the table that picks one per precision
// and order (measured by tools/tune_gemm.sh), and every crossover of the device gemm in one
// place. Shared by planning (host) and instantiation (the .cu files).
#pragma once
#include "gemm.hpp"

namespace bb::cuda {

// Kernel configurations. Tiles: a team computes a TILE x TILE tile of C, each thread an
// RM x RN register block (kTile<TILE>_<RM>x<RN>). Flat: one team per problem whose matrices
// are contiguous and 16-byte aligned, up to <MAXE> elements each (kFlat<MAXE>); exact: the flat
// kernel unrolled for n x n x n problems (kExact<n>), chosen at plan time for such runs.
enum GemmConfig : int {
  kTile2_1x1, kTile4_1x1, kTile4_2x2, kTile8_2x1, kTile8_2x2, kTile16_2x2, kTile16_4x4,
  kTile32_4x4, kTile32_2x2, kTile32_4x2, kTile64_4x4,
  kFlat4, kFlat16, kFlat64, kFlat256,
  kExact2, kExact4, kExact8, kExact16,
  kGemmConfigs
};
static_assert(kGemmConfigs == kGemmConfigCount);
constexpr int kFirstFlat = kFlat4, kFirstExact = kExact2;
constexpr int kFlatMaxElements[] = {4, 16, 64, 256};
constexpr int kFlatExact[] = {2, 4, 8, 16};
// A flat configuration whose run is not contiguous and aligned falls back to these tiles.
constexpr int kFlatFallback[] = {kTile2_1x1, kTile4_2x2, kTile8_2x2, kTile16_2x2};
// Vectors of C per thread in the exact flat kernels that keep C in registers: with one, the
// kernels were bound by shared-memory loads (ncu, H200, order 16: L1 83-89 % busy, DRAM 56-60 %);
// with two, one vector load of op(A)'s rows serves both. Measured (H200, 2026-11-28, strided,
// kernel % of copy bandwidth, one vector a thread -> two): order 16 r64 67 -> 90, r32 64 -> 83,
// c32 68 -> 79, r16 61 -> 68, c16 45 -> 48; order 8 r64 80 -> 93, r32 86 -> 95, c32 79 -> 87,
// c16 61 -> 72, r16 76 -> 76, but c64 79 -> 77 (one vector is one element there). Four at
// order 16 lost everywhere (r64 90 -> 83, c16 49 -> 36). More registers all the same (ptxas,
// order 16: r16 48 -> 80, c16 62 -> 100, r32 54 -> 80, c32 48 -> 66, r64 46 -> 62).
constexpr int flat_exact_vectors_per_thread(int elem_bytes, int n) {
  return n >= 16 || (n >= 8 && elem_bytes < 16) ? 2 : 1;
}
// A flat shape's team: the 16-byte vectors of its largest matrix, `per` to a thread, 1 to 128
// threads.
constexpr int flat_team(int vectors, int per) {
  return vectors / per < 1 ? 1 : vectors / per > 128 ? 128 : vectors / per;
}
// Exact orders whose flat kernel keeps C in registers: each thread's vectors of C hold the same
// rows of some columns (n >= the vector's elements, the team's vectors whole columns), or the
// whole problem is one thread's (16 bytes a matrix). Such a run takes that kernel over the
// table's tiles: it won at every such order measured (H200, 2026-11-28, strided, kernel % of
// copy bandwidth, exact flat against the table's tiles: r64 16 68/60, r32 2 53/26, c64 2 88/66,
// 4 84/54, 8 79/54, c32 16 68/42). Other orders keep the table's tiles (r64 12: flat 34, tiles
// 41; c64 3: 37/51; 6: 36/48). These figures are those of one vector a thread (two: above).
// c64 16 on the flat kernel was never measured: the table names cuBLAS there (83 %), and the
// rule then serves the runs cuBLAS does not take (fewer than 64 problems, alpha = 0).
constexpr bool flat_exact_in_registers(int elem_bytes, int n) {
  const int vec = 16 / elem_bytes, vectors = n * n / vec > 0 ? n * n / vec : 1;
  const int team = flat_team(vectors, flat_exact_vectors_per_thread(elem_bytes, n));
  const int loads = (vectors + team - 1) / team;
  return n * n * elem_bytes == 16 || (n >= vec && team * loads == vectors && team * vec % n == 0);
}
// Tiles of 64 hold 2 x 64 x 65 elements of shared memory: within the 48 KB of a static array
// only up to 4-byte elements (r16, c16, r32).
constexpr bool tile64_fits(DevPrec p) { return elem_bytes(p) <= 4; }
// Half precision where cuBLAS does not take the run (c16 always; r16 on pointer lists of
// sub-blocks, gemm_vendor_ok): 64-tiles instead of the 32-tiles of 2 x 2 wherever they cover
// m x n with no more padding. A thread's 4 x 4 block loads 8 values from shared memory (each
// widened to float) for 16 products, against 4 for 4. H200, 2026-11-29, kernel % of copy
// bandwidth, both forced, 32-tiles -> 64-tiles: c16 strided n = 48 / 64 / 128 / 256 5.1 / 7.7 /
// 4.6 / 2.6 -> 7.8 / 13.0 / 7.5 / 4.1 (48 keeps the table's flat entry, whose fallback is the
// 16-tiles: not compared), but 96 (a tile and a half) 5.8 -> 4.1 and 32 13.3 -> 3.1; r16 device
// pointer arrays (cuBLAS's where not sub-blocks) 64 / 128 / 256 9.2 / 5.6 / 3.2 -> 16.3 / 9.7 / 5.4.
constexpr bool half_precision(DevPrec p) { return p == DevPrec::r16 || p == DevPrec::c16; }
constexpr int64_t padded_area(int m, int n, int tile) {
  return int64_t((m + tile - 1) / tile) * tile * (int64_t((n + tile - 1) / tile) * tile);
}
// Any size, and the precisions without cuBLAS: also every run where cuBLAS does not pay
// (fewer than kVendorMinProblems problems of order 17 and up, one-problem groups among them).
// Forced, strided, kernel ms for about 1 GB (H200, 2026-11-29, tools/micro/fallback_sweep.sh):
// - r32 takes 4 x 4 a thread: orders 17 / 24 / 32 / 48 / 64 / 128 / 256, 2 x 2 -> 4 x 4:
//   2.18 / 1.15 / 0.71 / 1.98 / 1.19 / 2.02 / 3.69 -> 1.41 / 0.80 / 0.56 / 1.37 / 0.85 / 1.39 / 2.45.
//   r64's 4 x 4 spills (600 bytes) and lost (0.89 against 0.45 at 32).
// - 16-tiles where 32-tiles pad m x n by more: r64 by a quarter, r32 (whose 32-tiles do more a
//   thread) by a half. 16 / 32 (the 4 x 4 in r32): order 40 r64 1.02 / 1.64, r32 1.54 / 1.84;
//   48 r64 0.75 / 1.16, r32 1.12 / 1.37 (32-tiles pad by 78 %); 80 (44 %) r64 1.10 / 1.34, r32
//   1.69 / 1.53; 112 (31 %) r64 1.44 / 1.55, r32 2.25 / 1.75; equal padding (17..32, 64) kept
//   the 32-tiles (r64 at 24 0.93 / 0.67, at 64 0.93 / 0.71).
// The other precisions were not measured.
// The precisions whose fallback depends on the shape, and each precision's 32-tiles.
constexpr bool fallback_by_shape(DevPrec p) { return p == DevPrec::r32 || p == DevPrec::r64; }
constexpr int fallback_tiles32(DevPrec p) { return p == DevPrec::r32 ? kTile32_4x4 : kTile32_2x2; }
constexpr int fallback_config(DevPrec p, int m, int n) {
  const int64_t by32 = padded_area(m, n, 32), by16 = padded_area(m, n, 16);
  const bool pads_much = p == DevPrec::r64 ? by32 * 4 > by16 * 5 : by32 * 2 > by16 * 3;
  return fallback_by_shape(p) && pads_much ? kTile16_2x2 : fallback_tiles32(p);
}
// The configurations fallback_config names for p (built whatever the table says).
constexpr bool is_fallback_config(DevPrec p, int c) {
  return c == fallback_tiles32(p) || (fallback_by_shape(p) && c == kTile16_2x2);
}
constexpr int half_tiles(DevPrec p, int m, int n, int config) {
  return half_precision(p) && config == kTile32_2x2 && padded_area(m, n, 64) <= padded_area(m, n, 32) ? kTile64_4x4
                                                                                                        : config;
}
// Runs of fewer problems than this never go to cuBLAS: one call per run would cost more than
// the kernels lose on it (one problem per group is the proposal's way of varying sizes).
constexpr int64_t kVendorMinProblems = kVendorMinProblemsRun;
// ... unless the run is large enough on its own (m n k summed over its problems), where
// cuBLAS's large tiles beat the library's batched ones and a call costs little (the core's
// runs in complex and r16: trsm/trmm's recursion on one large problem, 4096 x 512 x 4096 at
// the top level for M = 8192; r32 and r64 have kCoreVendorMinWork below).
constexpr double kVendorMinWork = double(1 << 28);
inline bool vendor_pays(int m, int n, int k, int64_t problems, double min_work = kVendorMinWork) {
  return problems >= kVendorMinProblems || double(m) * n * k * double(problems) >= min_work;
}
// The core's runs (gemm() in gemm.hpp: blocked factorizations' updates, trsm/trmm's recursion)
// are few sub-blocks of large problems, one cuBLAS call each, where the library's tiles leave
// long K loops to a few blocks: cuBLAS from this much work (m n k x problems) at any count.
// Measured on the H100 (2026-11-27, `tools/gpu-check.sh corevendor`, ms, from 2^28 as the
// calls' rule / 2^16 / 1): potrf blocked r64 4 of 1024 2.09/1.35/1.37, 4 of 2048 6.88/3.28/3.30,
// 16 of 2048 10.0/5.81/5.75, 1 of 2048 6.13/4.57/4.59; c64 1 of 2048 10.6/5.01/4.95, 16 of
// 2048 20.3/12.8/12.9; trsm r64 16 of 1024 1.22/1.01/1.01, c64 16 of 512 0.93/0.75/0.77, the
// rest within noise; getrf (no per-problem cuSOLVER) r64 16 of 1024 18.2/15.9 (from 2^20).
constexpr double kCoreVendorMinWork = double(1 << 16);
// Real r32 and r64 only. Complex: cuBLAS's pointer-list and strided kernels give different
// bits (seen on the H200: potrf, getrf and geqrf with device pointer arrays against host ones,
// the inverse in one call against two), and more runs on cuBLAS would break section 9's
// promises of the same bits in more places; r16: cuBLAS's half kernels on pointer lists of
// sub-blocks (2-byte aligned) failed with a misaligned address (getrf, device pointer arrays).
constexpr bool core_vendor_min_work_applies(DevPrec p) { return p == DevPrec::r32 || p == DevPrec::r64; }
// Nor do the core's runs of one row or column with a short K go to cuBLAS (the table's order
// is K's there): potrf c64 of order 33 (blocks 16, 16, 1: the second block's update is
// 1 x 16 x 16 per problem, cuBLAS by the table's order-16 entry) took 4.39 ms for 55704
// problems, against 2.14 ms for order 34; on the library's tiles 3.20 ms (H200, 2026-11-27;
// cuSOLVER potrfBatched 6.08 ms). The only case measured: longer K keeps the rules above.
constexpr int kCoreSkinnyMaxK = 32;
constexpr bool core_skinny_run(int m, int n, int k) { return (m == 1 || n == 1) && k <= kCoreSkinnyMaxK; }

// Merged launches (gemm_launch_merged): a chunk's configurations of at most this many blocks
// per SM share one launch (at least two of them), the larger keep their own, whose registers
// and occupancy are their kernel's alone. H200, 100k one-problem groups of orders 2..32
// (tools/micro/one_problem_ab.sh): launches a call 70 -> 20 (r64), 77 -> 19 (r32); kernels
// 1202 -> 940 us (r64), 962 -> 657 us (r32); whole call 2.76 -> 2.52 ms, 2.37 -> 2.35 ms.
// 4 is a first guess that was not swept.
constexpr int kMergedBlocksPerSm = 4;
constexpr int kMergedThreads = 256;         // the configurations that take part: 256 threads
constexpr int kMergedSmemBytes = 48 * 1024;  // and a static shared array

struct TuningEntry {
  DevPrec prec;
  int max_order, config;
};
inline constexpr TuningEntry kGemmTuning[] = {
#include "gemm_tuning.inc"
};

// Whether precision p compiles configuration c: the ones its tuning table names, the flat
// family with its fallbacks, the general fallback, and the 64-tiles in r16 and c16 (half_tiles).
// Instantiating every shape for every precision would triple the build and compile shapes
// nobody runs (some of which spill registers); a tuning build (-DBLAS_BATCHED_GEMM_ALL_CONFIGS=ON)
// compiles every one that fits (the 64-tiles up to 4-byte elements).
constexpr bool gemm_config_built(DevPrec p, int c) {
  if (c < 0 || c >= kGemmConfigs) return false;
  if (c == kTile64_4x4 && !tile64_fits(p)) return false;
#ifdef BB_GEMM_ALL_CONFIGS
  return true;
#else
  if (c >= kFirstFlat || is_fallback_config(p, c)) return true;
  if (c == kTile64_4x4 && half_precision(p)) return true;
  for (int f : kFlatFallback)
    if (c == f) return true;
  for (const TuningEntry &e : kGemmTuning)
    if (e.prec == p && e.config == c) return true;
  return false;
#endif
}

}  // namespace bb::cuda
