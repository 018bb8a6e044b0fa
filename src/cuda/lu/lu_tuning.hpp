// Device LU tuning: the named kernel configurations of getrf and getri, the choice per shape,
// and every crossover of the device LU in one place. Shared by planning (host) and the kernels.
#pragma once
#include "lu.hpp"

namespace bb::cuda {

// Register kernels kLuRegister<K>: m, n <= K, K threads per problem (one row each), 32 / K
// problems per warp; for K <= kLuThreadMaxSide one thread per problem. Shared kernels kLuShared<E>: one block per problem whose m x n matrix
// (in the compute type) fits a shared-memory area of E elements; kLuGlobal: the same
// algorithm in place in global memory, for what fits nowhere.
enum LuConfig : int {
  kLuRegister2, kLuRegister4, kLuRegister8, kLuRegister16, kLuRegister32,
  kLuShared40, kLuShared48, kLuShared64, kLuShared80, kLuShared96, kLuShared112, kLuShared128,
  kLuShared160, kLuShared192, kLuShared224,
  kLuGlobal,
  kLuPanel,  // blocked getrf's panels (getrf_panel.cuh), kLuPanelWideWidth columns
  kLuPanelNarrow,  // the same, kLuPanelNarrowWidth columns (lu_blocked_panel_width, lu_panel_left_over_narrow)
  kLuRegisterRolled,  // side kLuRegisterMax in loops: getrf_register_rolled.cuh, getri_register's ROLLED form
  kLuRegisterRolledNarrow,  // the rolled getrf and getri with rows of kLuRolledNarrowRow registers
  kLuRegisterRolledShort,  // the rolled getrf with rows of kLuRolledShortRow registers (lu_rolled_short_takes)
  kLuRegisterRows8, kLuRegisterRows16,  // getrf of sides 8 and 16 with two rows a thread (getrf_register_rows.cuh)
  kLuRegisterRows4, kLuRegisterLanes4,   // getrf of side 4 on that kernel: two rows a thread, or one row
  kLuDeferredSwaps,  // blocked getrf's interchanges left for the end (getrf_deferred_swaps.cuh)
  kLuConfigs
};
constexpr int kLuRegisterMax = 32;
constexpr int kLuFirstShared = kLuShared40;
static_assert(kLuGlobal - kLuFirstShared == kFactorSharedTiers, "one shared configuration per tier");
constexpr int kLuSharedThreads = kFactorBlockThreads;

constexpr bool lu_is_rolled(int config) {
  return config == kLuRegisterRolled || config == kLuRegisterRolledNarrow || config == kLuRegisterRolledShort;
}
constexpr bool lu_is_rows(int config) {
  return config == kLuRegisterRows8 || config == kLuRegisterRows16 || config == kLuRegisterRows4 ||
         config == kLuRegisterLanes4;
}
constexpr int lu_register_side(int config) {  // lu_is_register(config)
  return lu_is_rolled(config) ? kLuRegisterMax
         : config == kLuRegisterRows8                                     ? 8
         : config == kLuRegisterRows16                                    ? 16
         : config == kLuRegisterRows4 || config == kLuRegisterLanes4      ? 4
                                                                          : 2 << config;
}
// Rows a thread of the register kernels: two in kLuRegisterRows<K>, else one.
constexpr int lu_rows_per_thread(int config) { return lu_is_rows(config) && config != kLuRegisterLanes4 ? 2 : 1; }
// Sides up to this run one problem per thread (lu_thread.cuh) instead of one row per thread:
// at K = 2 and 4 a problem's work is smaller than the lanes' communication would be.
constexpr int kLuThreadMaxSide = 4;
constexpr bool lu_is_thread(int config) {
  return config >= 0 && config <= kLuRegister32 && lu_register_side(config) <= kLuThreadMaxSide;
}
// Problems per unit of work (a warp's task).
constexpr int lu_problems_per_warp(int config) {
  return lu_is_thread(config) ? 32 : 32 * lu_rows_per_thread(config) / lu_register_side(config);
}
constexpr bool lu_is_register(int config) {
  return (config >= 0 && config <= kLuRegister32) || lu_is_rolled(config) || lu_is_rows(config);
}
constexpr bool lu_is_shared(int config) { return config >= kLuFirstShared && config < kLuGlobal; }
constexpr int lu_shared_elements(int config) {
  return factor_tier_elements(config - kLuFirstShared);
}

// Warps per block of the register kernels, per side K = 2, 4, ..., 32, and of the
// one-problem-per-thread kernels (not tuned yet: more warps per block only change occupancy
// granularity).
constexpr int kLuRegisterWarps[] = {4, 4, 4, 4, 4};
constexpr int kLuThreadWarps = 4;
// Blocks an SM the one-problem-per-thread getrf is compiled for (its launch bounds). 6 in c32
// caps it at 80 registers (the staged kernel, the default, used 109: 4 blocks of 4 warps an SM),
// and n = 4 ran 15 % faster, n = 3 (the same kernel) 2-3 % slower; r64 and r32 gained nothing
// (`bench/results/getrf-thread-bounds-ab-NVIDIA-H200-s34.log`, NOTES-lu.md). The others get 0,
// no bound: a bound of 1 emits `.minnctapersm 1`, which took r64's staged kernel from 96 to 104
// registers (5 blocks to 4) and n = 4 from 0.415 to 0.470 ms.
constexpr int lu_thread_min_blocks(bool single_complex) { return single_complex ? 6 : 0; }
// The rolled kernels (lu_is_rolled) run one problem a warp with
// shared memory a warp (getri: 33 KB in c64, 22 KB with rows of 24): blocks of one warp, so
// that an SM fills up to what registers and shared memory allow.
constexpr int kLuRolledWarps = 1;
// The unrolled row-a-thread getrf (getrf_register) moves row-major rows in 16-byte pieces where
// every row starts on 16 bytes (GetrfRowOfProblem): H200, s54, row-major, strided, about 1 GB,
// kernel ms elements / pieces: r64 8 0.587 / 0.431, 16 1.102 / 0.680, 32 1.124 / 0.710; r32 16
// 0.980 / 0.544, 32 2.082 / 0.777; c32 8 0.571 / 0.423, 16 1.143 / 0.722; r16 16 1.411 / 0.922, 32
// 2.973 / 1.120; c16 8 0.770 / 0.715; the same bits (bench/results/lu-s54-NVIDIA-H200.txt,
// section 4, call 5). Column-major and c64 (16-byte elements) never take them; the rolled
// getrf and getri_register only in their row-major instances (lu_rolled_row_pieces_built,
// lu_getri_row_pieces_built). false: element by element everywhere.
constexpr bool kLuRowPieces = true;
// The register configuration of side K, and the warps per block of a register configuration.
constexpr int lu_register_config(int K) { return K <= 2 ? 0 : 1 + lu_register_config(K / 2); }
constexpr int lu_warps_per_block(int config) {
  return lu_is_thread(config)                ? kLuThreadWarps
         : lu_is_rolled(config)                ? kLuRolledWarps
         : lu_is_rows(config)                  ? kLuRegisterWarps[lu_register_config(lu_register_side(config))]
         : lu_is_register(config)              ? kLuRegisterWarps[config]
                                               : 1;
}

// getrf on the rows kernel (getrf_register_rows.cuh) instead of one row a thread (sides 8, 16)
// or one problem a thread (side 4). kLuRegisterRows<K>: two rows a thread, half the lanes a
// problem, twice the problems a warp, a step's pivot search and reciprocal shared by two rows;
// kLuRegisterLanes4: a row a thread, 4 lanes a problem. H200, strided, about 1 GB, two runs
// each, thirty-eighth session (bench/results/lu-two-rows-ab-NVIDIA-H200-s38.txt), kernel ms:
// - against one row a thread, one -> two: c16 9 2.22 -> 1.97, 12 1.64 -> 1.46, 16 1.19 ->
//   1.08; r16 5 1.62 -> 1.41; r32 5 0.89 -> 0.82. Lost or even elsewhere: r32 8 0.52 -> 0.54,
//   16 0.55 -> 0.67; r64 8 0.40 -> 0.45, 16 0.52 -> 0.55; c32 8 0.43 -> 0.51, 16 0.57 -> 0.71;
//   c64 8 0.39 -> 0.52; r16 8 0.98 -> 1.05, 16 1.12 -> 1.40; c16 8 0.77 -> 0.84. The one-row
//   kernels are bound by the step's dependent chain more than by what two rows would share.
// - against a problem a thread at orders 3 and 4, kernel % of copy bandwidth (thread: two
//   runs): c64 4 36 / 36 -> 60 (a row a thread; two rows 55), c64 3 40 / 40 -> 44 (both forms);
//   r64 3 32 / 31 -> 49 / 46 (two rows; a row a thread 45), r32 3 31 / 31 -> 38 / 38 (two rows;
//   a row 29); c32 3, kernel ms, 0.78 / 0.77 -> 0.50 / 0.61 (two rows). The thread kernel kept
//   r64 4 (54 / 56 against 45), r32 4 (54 / 53 against 49), c32 4, c16 4; r16 and c16 at 3 were
//   too noisy to tell (one run with outliers).
// BLAS_BATCHED_LU_ROWS=0 switches all of it off (A/B).
constexpr int kLuNoRows = -1;
constexpr int lu_rows_config(DevPrec p, LuRoutine r, int order) {
  if (r != LuRoutine::getrf) return kLuNoRows;
  if (p == DevPrec::c16 && order > 8 && order <= 16) return kLuRegisterRows16;
  if ((p == DevPrec::r16 || p == DevPrec::r32) && order == 5) return kLuRegisterRows8;
  if (p == DevPrec::c64 && (order == 3 || order == 4)) return kLuRegisterLanes4;
  if ((p == DevPrec::r64 || p == DevPrec::r32 || p == DevPrec::c32) && order == 3) return kLuRegisterRows4;
  return kLuNoRows;
}

// getrf of orders 17..32 (register side 32) takes getrf_register_rolled.cuh
// (kLuRegisterRolled) where lu_rolled_takes says so, else getrf_register. Both have the same
// rows, pivot rule and lazy swaps; getrf_register unrolls every step, and in c64 and c32 its
// 229 and 171 KB of SASS outgrow an SM's instruction caches: under ncu (H200, c64 32) its warps
// waited on "no instruction" 5.5 of the 13.3 cycles between issues. The rolled kernel loops
// over pairs of steps (81 KB in c64, 62 KB in c32, 43 KB in r64; none waits on instruction
// fetch) and narrows the row it updates by kLuRolledWidthStep registers as the columns left
// shrink. Measured on the H200 (strided, about 1 GB, thirty-first session,
// bench/results/NOTES-lu.md), ms rolled / unrolled at 17 / 20 / 24 / 28 / 32:
//   c64 1.50 / 1.73, 1.29 / 1.85, 1.13 / 1.75, 1.05 / 1.68, 0.93 / 1.87
//   c32 1.24 / 1.58, 1.06 / 1.25, 0.92 / 1.02, 0.85 / 1.12, 0.81 / 1.46
//   c16 2.89 / 3.59, 2.51 / 3.05, 2.14 / 2.50, 1.93 / 2.38, 1.96 / 2.19
//   r64 1.04 / 1.22, 0.88 / 0.98, 0.75 / 0.77, 0.68 / 0.64, 0.63 / 0.56 (26: 0.72 / 0.71)
//   r32 1.35 / 1.51, 1.18 / 1.24, 0.97 / 0.96, 0.84 / 0.81, 0.75 / 0.69 (22: 1.07 / 1.11)
//   r16 3.28 / 3.40, 2.76 / 2.86, 2.46 / 2.29, 2.19 / 1.93, 1.85 / 1.71 (22: 2.59 / 2.56)
// The real precisions' unrolled kernels fit the caches (r64 96 KB) and do fewer operations
// (the rolled loop moves the row's registers by two every pair): they kept them from 26 (r64),
// 24 (r32) and 22 (r16) on. With rows of 24 (below) the rolled kernels take r32 and r16 up to 24
// (s53, H200, kernel ms rolled rows of 24 / unrolled: r16 22 2.01 / 2.41, 23 1.94 / 2.30, 24 1.89
// / 2.26, 25 (rows of 32) 2.21 / 2.12; r32 24 0.773 / 0.840, 25 (rows of 32) 0.855 / 0.801;
// r64 25 0.701 / 0.701, 26 0.665 / 0.656; bench/results/lu-s53-NVIDIA-H200.txt, section 3). (The split-row kernel of the thirtieth session, a c64 row over two threads,
// lost to both and is gone.) BLAS_BATCHED_LU_ROLLED_MIN=<order> instead takes the rolled kernels
// (getrf, getri and the inverse's pair) from that order on in every precision (33: nowhere), for
// tests and A/B runs.
constexpr int kLuRolledWidthStep = 8;  // rows of 32, 24, 16, 8 registers: a loop each
constexpr int kLuRolledNarrowRow = 24;  // rows at 17..24 (lu_rolled_narrow_takes)
//
// getri's rolled form (getri_register.cuh, ROLLED: both triangular solves in loops, x shifting
// through the registers) against the unrolled kernel, the same measurement (getri of the
// factors, strided), ms rolled / unrolled at 17 / 20 / 24 / 28 / 32:
//   c64 2.19 / 2.23, 1.78 / 2.06, 1.55 / 1.83, 1.37 / 1.63, 1.21 / 1.77
//   c32 2.03 / 2.24, 1.68 / 1.92, 1.43 / 1.62, 1.29 / 1.54, 1.10 / 1.52
//   c16 4.83 / 5.43, 3.96 / 4.72, 3.35 / 3.77, 3.00 / 3.18, 2.86 / 3.08
//   r64 1.68 / 1.83, 1.38 / 1.50, 1.16 / 1.23, 1.03 / 1.02, 0.90 / 0.87
//   r32 2.67 / 3.40, 2.22 / 2.77, 1.80 / 2.21, 1.54 / 1.73, 1.31 / 1.41
//   r16 4.71 / 7.46, 3.93 / 6.43, 3.35 / 5.34, 3.09 / 4.54, 2.74 / 3.79
// and the inverse in one call (device pointer arrays) as the rolled getrf then the rolled getri
// against what ran before (the one-pass kernel, lu_one_pass_inverse; in c16 and c32 the
// unrolled getrf then getri):
//   c64 3.73 / 3.43, 3.09 / 2.97, 2.62 / 2.46, 2.35 / 2.37, 2.09 / 2.66
//   c32 3.31 / 3.85, 2.78 / 3.24, 2.39 / 2.68, 2.16 / 2.68, 1.91 / 3.01
//   c16 7.68 / 9.16, 6.50 / 7.83, 5.61 / 6.26, 5.05 / 5.46, 4.96 / 5.09
//   r64 2.68 / 2.50 ... 1.48 / 1.21, r32 4.11 / 2.84 ... 2.07 / 1.34, r16 8.05 / 6.09 ... 4.51 / 2.89
// (Since s41 the inverse has its one-pass kernel at 17..32 in r32 and r16 only, lu_one_pass_inverse.)
// Where it has none (or BLAS_BATCHED_LU_ONE_PASS=0) lu_config applies getri's rule: the inverse
// stays bit for bit the two calls (SPEC.md 9.4; the rolled getrf's bits are the unrolled one's).
// Where it has one, the one-pass kernel: never the rolled kernels unless BLAS_BATCHED_LU_ROLLED_MIN.
constexpr bool lu_rolled_takes(DevPrec p, LuRoutine r, int order) {
  if (order <= kLuRegisterMax / 2 || order > kLuRegisterMax) return false;
  switch (r) {
    case LuRoutine::getrf:
      return p == DevPrec::r64 ? order <= 25 : p == DevPrec::r32 || p == DevPrec::r16 ? order <= 24 : true;
    case LuRoutine::getri: return p == DevPrec::r64 ? order <= 25 : true;
    case LuRoutine::getrf_getri: return false;  // where it has a one-pass kernel, that (lu_one_pass_inverse)
  }
  return false;
}
// getrf and getri of orders up to kLuRolledNarrowRow in c64: the rolled kernels with rows of 24
// registers. getrf: 161 registers instead of 205, 12 warps an SM instead of 8, a quarter fewer
// multiply-adds; getri: 22 KB of shared memory a warp instead of 33 and 192 registers instead
// of 240 (8 warps an SM instead of 6; capped at 168 registers it spills 108 bytes). Measured on
// the H200 (s32, strided, about 1 GB, ms rows of 24 / rows of 32 / cuBLAS) at 17, 18, 19, 20, 22, 24:
//   getrf 1.21 / 1.48 / 1.01, 1.11 / 1.39 / 0.96, 1.11 / 1.36 / 1.13, 1.05 / 1.27 / 0.90,
//         0.98 / 1.21 / 0.93, 0.92 / 1.10 / 0.95
//   getri 1.77 / 2.26, 1.61 / 2.03, 1.59 / 2.00, 1.45 / 1.81, 1.29 / 1.68, 1.19 / 1.53
// The inverse in one call takes that pair (lu_config: getri's choice) at 17..24, against its
// one-pass kernel (device pointer arrays, ms pair / one-pass at 17, 18, 20, 22, 24, 26, 27):
//   2.95 / 3.45, 2.69 / 3.32, 2.48 / 3.00, 2.29 / 2.64, 2.09 / 2.47; 26, 27 (rows of 32):
//   2.61 / 2.32, 2.55 / 2.35 (one-pass kept at 25..27 until s41: lu_one_pass_inverse).
// getrf's rows of 24 in the other precisions (s52, H200, strided, about 1 GB, kernel ms rows of
// 24 / rows of 32 at 17, 20, 22, 24; bench/results/lu-s52-NVIDIA-H200.txt, section 6):
//   r64 0.85 / 0.94, 0.73 / 0.80, 0.68 / 0.74, 0.64 / 0.69 (96 registers: 20 warps an SM, not 16)
//   r32 1.08 / 1.20, 0.91 / 1.01, 0.84 / 0.93 (rolled up to 23 then)
//   c32 1.16 / 1.19, 1.01 / 1.04, 0.95 / 0.97, 0.88 / 0.91
//   r16 2.63 / 3.08, 2.22 / 2.57, 21: 2.14 / 2.50 (rolled up to 21 then)
//   c16 2.72 / 2.78, 2.34 / 2.39, 2.17 / 2.32, 1.99 / 2.16
// The same bits either way (the bench's --digest).
// getri's rows of 24 in the other precisions (s53, the same measurement, kernel ms rows of 24 /
// rows of 32 at 17, 20, 24; narrowed rows of compute types up to 8 bytes capped at 128
// registers, getri_register; bench/results/lu-s53-NVIDIA-H200.txt, section 1):
//   r64 0.947 / 1.118, 0.773 / 0.913, 0.653 / 0.763    r32 1.375 / 1.518, 1.117 / 1.225, 0.941 / 1.019
//   c32 1.312 / 1.521, 1.095 / 1.222, 0.947 / 1.031    r16 3.64 / 4.47, 3.06 / 3.72, 2.62 / 3.17
//   c16 3.59 / 4.53, 3.02 / 3.83, 2.55 / 3.21
// and the inverse in one call (device pointer arrays; r64, c32 and c16 run the pair, which
// follows getri's choice), 17, 20, 24: r64 1.83 / 2.14, 1.53 / 1.76, 1.31 / 1.49;
// c32 2.51 / 2.77, 2.11 / 2.31, 1.83 / 1.97; c16 6.47 / 7.58, 5.48 / 6.37, 4.59 / 5.43. The same bits.
// BLAS_BATCHED_LU_ROLLED_NARROW=0 turns the rows of 24 off (getrf, getri and the inverse take
// the rolled kernels' rows of 32 there). lu_config asks lu_rolled first: orders that
// BLAS_BATCHED_LU_ROLLED_MIN makes rolled take rows of 24 too.
constexpr bool lu_rolled_narrow_takes(LuRoutine r, int order) {
  return r != LuRoutine::getrf_getri && order > kLuRegisterMax / 2 && order <= kLuRolledNarrowRow;
}
// getrf of orders up to kLuRolledShortRow, every precision: rows of 20 registers under a cap
// (GetrfRolledShape: c64 128, 20 bytes spilled; r64 80, 24 bytes; c32 and c16 96; r32 and r16
// 80), so that an SM holds more warps than with the rows of 24 (c64 16 instead of 12, r64 24
// instead of 20, c32 / c16 20 instead of 16, r32 / r16 24 instead of 20). c64 uncapped (156
// registers, 12 warps) gained 0-3 %; c64's rows of 24 capped at 128 spill 136 bytes and lose
// 12-15 %. Measured on the H200, strided, about 1 GB, kernel ms rows of 20 / rows of 24 at 17,
// 18, 19, 20 (s53 for c64, with cuBLAS getrfBatched third; s54 the rest):
//   c64 0.996 / 1.085 / 1.007, 0.927 / 1.017 / 0.957, 0.886 / 1.016 / 1.124, 0.830 / 0.954 / 0.903
//   r64 0.833 / 0.848, 0.768 / 0.790, 0.756 / 0.786, 0.695 / 0.728
//   r32 1.009 / 1.109, 0.934 / 1.028, 0.904 / 1.001, 0.841 / 0.943
//   c32 1.058 / 1.184, 0.982 / 1.098, 0.960 / 1.100, 0.892 / 1.024
//   r16 2.339 / 2.673, 2.154 / 2.501, 2.030 / 2.393, 1.893 / 2.252
//   c16 2.336 / 2.763, 2.162 / 2.578, 2.090 / 2.536, 1.945 / 2.371
// and row-major at 17, 20: r64 1 %, r32 4-5 %, c32 8-15 %, r16 5-7 %, c16 14-15 % faster; the
// inverse in one call (r64, c32 and c16 run the pair) at 17, 20: 2-8 % faster. The same bits
// (bench/results/lu-s53-NVIDIA-H200.txt section 5, lu-s54-NVIDIA-H200.txt section 1).
// BLAS_BATCHED_LU_ROLLED_SHORT=0 turns them off.
constexpr int kLuRolledShortRow = 20;
constexpr bool lu_rolled_short_takes(LuRoutine r, int order) {
  return r == LuRoutine::getrf && lu_rolled_narrow_takes(r, order) && order <= kLuRolledShortRow;
}
// Row-major problems of the rolled getrf in and out through shared memory in tiles
// (getrf_register_rolled.cuh) instead of a thread its row: c32 with rows of 32 only. Measured on
// the H200 (s53, row-major, strided, about 1 GB, kernel ms tiles / a thread its row at 17, 20,
// 24, 28, 32): c32 1.439 / 1.256, 1.284 / 1.180, 1.162 / 1.132, 1.064 / 1.277, 1.141 / 1.319
// (17..24: rows of 24); c64 1.191 / 1.066, 1.025 / 0.988, 1.086 / 1.054, 1.305 / 1.178, 1.183 /
// 1.111; r64 17..24 1.112 / 0.908, 0.992 / 0.846, 0.939 / 0.894 (bench/results/lu-s53-NVIDIA-H200.txt,
// section 6). The same bits either way (the same data moved). Compute types of 4 bytes would
// read a column a lane, what the thread-a-row loads do.
constexpr bool lu_rolled_stage_row_major(DevPrec p, int row_registers) {
  return p == DevPrec::c32 && row_registers == kLuRegisterMax;
}
// The rolled getrf's row-major rows in 16-byte pieces (GetrfRowOfProblem::pieces) live in an
// instance of their own, launched for runs that are all row-major with ld * sizeof on 16 bytes
// (lu_impl.cuh): with the pieces in the one instance both layouts share, its capped rows spilled
// more, column-major lost 5-8 % at 17..24 and row-major rows not on 16 bytes up to 42 % (s54).
// In an instance of their own (s55, H200, row-major, strided, about 1 GB, kernel ms elements /
// pieces): r64 18 0.855 / 0.779, 20 0.845 / 0.757, 24 0.902 / 0.733; r32 20 0.90 / 0.83, 24 0.96 /
// 0.77; c32 20 1.015 / 0.929, 24 1.14 / 0.95; r16 24 2.57 / 1.47; c16 24 1.97 / 1.83, 28 2.24 /
// 1.74, 32 2.43 / 1.63. Column-major and rows not on 16 bytes (odd orders) unchanged, the same bits
// (bench/results/lu-s55-NVIDIA-H200.txt, section 1). r64's rows of 20 spill 76 bytes there (24 in
// the shared instance); capped at 96 registers instead of 80 they do not, and measured the same.
// Built for the rows whose orders can start on 16 bytes: not c64 (a piece is an element), not
// the rows of 32 but c16's (c32's go through tiles, lu_rolled_stage_row_major; r64 takes them
// at 25 only, odd; r32 and r16 never, lu_rolled_takes).
constexpr bool lu_rolled_row_pieces_built(DevPrec p, int row_registers) {
  return kLuRowPieces && p != DevPrec::c64 && (row_registers < kLuRegisterMax || p == DevPrec::c16);
}
// getri_register's row-major rows in 16-byte pieces, the same way: an instance of their own (the
// pieces in the instance both layouts share cost column-major 30-100 %: s55 call 2, r64 16 0.33
// -> 0.69 ms, c32 8 0.37 -> 0.56). H200, s55 call 3, getri row-major, strided, about 1 GB, kernel
// ms elements / pieces: r64 8 0.539 / 0.422, 16 1.068 / 0.594, 28 1.094 / 0.774, 32 1.117 / 0.752;
// r32 16 0.808 / 0.449, 24 1.253 / 0.950, 32 2.179 / 1.017; c32 8 0.528 / 0.434, 16 1.084 / 0.683;
// r16 16 1.290 / 0.654, 32 3.129 / 1.643; c16 16 1.539 / 0.952, 32 3.293 / 1.877; column-major,
// c64 and odd orders unchanged, the same bits (bench/results/lu-s55-NVIDIA-H200.txt, section 3).
// Built for the getri orders that take the register kernel (above kLuThreadMaxSide), not c64;
// at side 32 the rolled rows of 32 but r64's (its order 25 only, odd, so never on 16 bytes where
// ld = n) and the unrolled kernel only in r64 (the others reach it only through
// BLAS_BATCHED_LU_ROLLED_MIN).
constexpr bool lu_getri_row_pieces_built(DevPrec p, int side, bool rolled, int row_registers) {
  return kLuRowPieces && p != DevPrec::c64 && side > kLuThreadMaxSide &&
         !(rolled && p == DevPrec::r64 && row_registers == kLuRegisterMax) &&
         (rolled || side < kLuRegisterMax || p == DevPrec::r64);
}
// The inverse's pair is the two calls' kernels (lu_config gives it getri's rolled and narrow
// choice and getrf's short one): its rolled orders are rolled in getri's call, getri's rolled
// narrow orders are rolled in getrf's call too, and getrf's short orders are rolled in both.
constexpr DevPrec kLuRolledPrecisions[] = {DevPrec::r16, DevPrec::c16, DevPrec::r32, DevPrec::c32, DevPrec::r64, DevPrec::c64};
constexpr bool lu_rolled_rules_agree() {
  for (const DevPrec p : kLuRolledPrecisions)
    for (int n = 1; n <= kLuRegisterMax; ++n) {
      if (lu_rolled_takes(p, LuRoutine::getrf_getri, n) && !lu_rolled_takes(p, LuRoutine::getri, n)) return false;
      if (lu_rolled_takes(p, LuRoutine::getri, n) && lu_rolled_narrow_takes(LuRoutine::getri, n) &&
          !(lu_rolled_takes(p, LuRoutine::getrf, n) && lu_rolled_narrow_takes(LuRoutine::getrf, n)))
        return false;
      if (lu_rolled_short_takes(LuRoutine::getrf, n) &&
          !(lu_rolled_takes(p, LuRoutine::getrf, n) && lu_rolled_takes(p, LuRoutine::getri, n) &&
            lu_rolled_narrow_takes(LuRoutine::getri, n)))
        return false;
    }
  return true;
}
static_assert(lu_rolled_rules_agree(), "the rolled rules of getrf, getri and the inverse agree");

// getri_register's unrolled kernel stages the matrix row-major and reads rows of L and U as
// vectors of this many elements (1: one element an access). H200, getri of the factors, strided,
// about 1 GB, kernel ms: the column-major staging before (one element an access) / row-major
// with 16-byte vectors everywhere / this rule (s40, bench/results/lu-register-ab-*-s40.txt):
//   r32 12 0.66 / 0.55 / 0.56, 16 0.45 / 0.37 / 0.37 (53 -> 63 % of copy bandwidth)
//   r16 12 1.90 / 1.19 / 1.20, 16 1.39 / 0.81 / 0.84
//   r64 8 0.32 / 0.30 / 0.32, 12 0.51 / 0.51 / 0.48, 16 0.35 / 0.37 / 0.34 (K = 16: one element),
//       28 0.64 / 0.60 / 0.63, 32 0.53 / 0.53 / 0.53
//   c32 with two elements a vector: within 3 % of one either way (5..16), so one; c64's element
//   is 16 bytes already. r32 and r16 at 5 lose up to 3 %.
constexpr int lu_getri_row_vector(DevPrec p, int K) {
  switch (p) {
    case DevPrec::r16: case DevPrec::r32: return 4;
    case DevPrec::r64: return K == 16 ? 1 : 2;
    default: return 1;
  }
}

// The inverse in one call (LuRoutine::getrf_getri) on a register configuration of side K: one
// kernel that reads the matrix once and writes its inverse once (K <= kLuThreadMaxSide:
// getrf_getri_thread in lu_thread.cuh; above: getrf_getri_register.cuh, a thread holding its
// row of A and of I, the I part in pivot order so that a thread's live values stay about K),
// where it beats getrf's kernel then getri's (lu_config then gives the inverse getri's
// configuration: rolled or not, as getri's call, and bit for bit the two calls). Measured on
// the H200 (s41, device pointer arrays, about 1 GB, two runs each, BLAS_BATCHED_LU_ONE_PASS=0
// for the pair; bench/results/lu-inverse-one-pass-ab-NVIDIA-H200-s41.txt), ms one-pass / pair:
// - K <= 8, one-pass faster everywhere but c16 5..8 (1-4 % behind): r64 4 0.70 / 1.11, 8 0.70 /
//   0.74; r32 8 0.76 / 1.02; c64 8 0.61 / 0.77; c32 8 0.74 / 0.80; r16 8 1.47 / 1.96.
// - K = 16: one-pass faster in r64 (10-13 %: 16 0.745 / 0.83) and c16 (6-15 %); r16 the pair
//   (10 2.6 / 2.6 ... 16 2.16 / 1.99); r32, c32 within 2.5 % either way; c64 one-pass at
//   10..13 (up to 6 %), the pair at 14..16 (16 1.14 / 1.08): kept on the one-pass kernel.
// - K = 32: the pair in r64 (18 2.32 / 1.95, 24 1.64 / 1.49, 32 1.195 / 1.05) and c64 (26
//   2.29 / 2.17; from 28 and at 17..24 it had it already); the one-pass kernel in r32 (26 1.69
//   / 1.81, 32 1.33 / 1.53) and r16 (32 2.88 / 4.37). c32 and c16 have no K = 32 one-pass kernel
//   (240 registers a thread; slower at 20 and 24 on the H100).
constexpr bool lu_one_pass_inverse(DevPrec p, int K) {
  if (K <= 8) return true;
  if (K <= 16) return p != DevPrec::r16;
  return K <= kLuRegisterMax && (p == DevPrec::r32 || p == DevPrec::r16);
}

// The one-problem-per-thread kernels (lu_thread.cuh) move a warp's dense matrices through
// shared memory (the warp copies 16-byte words at consecutive addresses together) where a
// matrix is 128 bytes: K = 4 in r64 and c32. Measured on the H100 (devptr, A/B in one run with
// BLAS_BATCHED_LU_STAGE=0, % of copy bandwidth): r64 getrf 37 -> 48, getri 37 -> 44, the inverse
// 38 -> 43; c32 37 -> 47, 35 -> 39, 35 -> 38. Elsewhere it lost or was even: c64 K = 4 (256
// bytes) getri 37 -> 30, the inverse 36 -> 29; r32 K = 4 (64 bytes) won in getrf only (43 -> 48;
// the inverse 47 -> 39); r16 up to 10 % slower, every K = 2 even or up to 16 % slower.
// geqrf's thread kernels follow the same rule (qr_tuning.hpp), not measured apart.
BB_HOST_DEVICE constexpr bool lu_thread_stage(int matrix_bytes) { return matrix_bytes == 128; }

// getri under the native backend hands column-major square groups of r32..c64 from these orders
// (where getri's blocked algorithm below does not take them: today c64 at 48..63 only) to cuBLAS
// getriBatched (out of place, then copied back: cuda/vendor, as under the vendor
// backend, SPEC.md section 7): above order 32 the library's getri is LAPACK's unblocked xgetri,
// one thread block per problem (getri_shared.cuh), and cuBLAS's overtakes it. Measured on the
// H200 (`tools/gpu-check.sh getricross`, one call of about 1 GB), time of the library's kernels
// over the vendor path's (above 1: cuBLAS faster), at 32 / 48 / 64 / 80 / 96 / 112 / 128 / 160 /
// 192 / 256:
//   r64 0.23 0.93 0.70 0.80 0.88 1.35 1.14 2.29 2.35 1.86
//   r32 0.28 1.27 0.92 0.84 0.70 0.80 0.87 1.25 1.03 2.18
//   c64 0.66 1.20 1.24 1.73 1.44 3.38 3.75 3.13 2.72 1.96
//   c32 0.40 1.09 0.84 0.89 0.97 1.47 1.25 2.08 2.35 1.82
// (r32 and c32 at 48 only: their kernels' shared-memory tier there is slower than at 64.) On the
// H100 against cuBLAS called directly, the same direction: r64 0.72 at 64, 1.20 at 128, 2.8 at
// 256; c64 1.23 at 64, 3.5 at 128.
constexpr int kLuGetriNoVendor = 1 << 30;
constexpr int lu_getri_vendor_min_order(DevPrec p) {
  switch (p) {
    case DevPrec::c64: return 48;
    case DevPrec::c32: return 112;
    case DevPrec::r64: return 112;
    case DevPrec::r32: return 160;
    default: return kLuGetriNoVendor;  // r16, c16: no cuBLAS getri
  }
}

// getri's blocked algorithm (getri_blocked.cu) in r32, c32, r64 and c64: inv(U) and inv(L) in
// place by a recursion of trsm core calls (the triangle split in two, each off-diagonal block
// solved from both sides), their diagonal blocks of kLuGetriLeaf inverted by one kernel, then
// inv(U) inv(L) in place by the mirror recursion (a gemm and two trmm core calls per split, a
// kernel per diagonal block), then the column interchanges by strips of rows: LAPACK's 4n^3/3
// flops, nearly all of them in the gemm and trsm/trmm cores, no workspace of the matrices' size.
// r16 and c16 keep the one-block kernels (every core call would round its block to half).
// Where it takes the order, the vendor crossover above does not. Measured on the H200
// (`tools/gpu-check.sh getriblocked`, one call of about 1 GB, strided; bench/results/NOTES-lu.md,
// twenty-first session), the whole call against cuBLAS getriBatched called directly (out of
// place plus the copy back), and against what ran before (the one-block kernels, or cuBLAS from
// lu_getri_vendor_min_order), at 33 / 48 / 64 / 96 / 128 / 192 / 256, with every order blocked:
//   x cuBLAS  r64 1.07 1.25 1.67 1.82 1.98 2.35 2.65    x before  r64 1.00 1.23 1.28 1.68 2.13 2.36 3.55
//             r32 1.17 1.22 1.62 1.88 2.03 2.34 2.95              r32 1.56 1.75 1.62 1.36 1.84 2.52 2.99
//             c64 0.79 0.91 1.09 1.20 1.38 1.54 2.05              c64 0.73 0.96 1.13 1.25 1.43 1.96 3.04
//             c32 0.92 1.08 1.40 1.42 1.56 1.69 1.85              c32 1.03 1.25 1.21 1.44 1.63 1.68 2.53
// so c64 takes it from 64 (below, the one-block kernel and cuBLAS from 48 are faster). The leaf's
// diagonal inverted once instead of at every step then gained 3-4 % (r64 64: 1.74x cuBLAS).
// Above 256 it takes every order: against cuBLAS getriBatched called directly (twenty-second
// session, H200, strided) r64 2.68 / 4.53 / 2.90 / 3.09 / 5.01 / 16.0x at 256 / 384 / 512 / 768 /
// 1024 / 2048 (about 1 GB a call) and 4.68 / 6.85 / 18.7x at 768 / 1024 / 2048 for 4 problems;
// c64 2.06 / 3.49 / 5.60 / 9.70 / 17.4 / 62.7x and 12.2 / 21.5 / 69.5x; r32 3.49 / 15.0x and
// c32 3.05 / 15.4x at 384 / 1024 (about 1 GB).
constexpr int kLuGetriLeaf = 32;
// Orders 33..kLuGetriLanesMax of r32 and r64, and 33..kLuGetriLanesMaxC32 of c32, take one
// kernel for the whole inverse instead of the recursion's dozen launches (getri_lanes in
// getri_blocked.cu: a lane per column of the inverse, its two triangular solves in registers;
// r64 and c32 168 registers, r32 128, no spills). c64 would need 256 registers a lane: it stays
// on the recursion. Measured on the H200 (`getriblocked` with
// GBBEFORE=BLAS_BATCHED_LU_GETRI_LANES=0, about 1 GB strided), x the recursion and (x cuBLAS
// getriBatched):
//   r64 at 33 / 48 / 64: 1.58 / 1.34 / 0.99 (1.70 / 1.69 / 1.74)    (twenty-second session)
//   r32 at 33 / 48 / 64: 1.56 / 1.53 / 1.34 (1.82 / 1.86 / 2.23)
//   c32 at 33 / 40 / 48 / 56 / 64: 1.57 / 1.37 / 1.16 / 0.93 / 0.82 (1.47 / 1.39 / 1.28 / 1.18 /
//   1.18)    (twenty-third session: four times the unrolled instructions of r32; above 48 the
//   recursion wins)
// BLAS_BATCHED_LU_GETRI_LANES=0 turns it off for comparisons.
constexpr int kLuGetriLanesMax = 64, kLuGetriLanesMaxC32 = 48;
constexpr bool lu_getri_lanes_takes(DevPrec p, int n) {
  const int most = p == DevPrec::r32 || p == DevPrec::r64 ? kLuGetriLanesMax
                   : p == DevPrec::c32                      ? kLuGetriLanesMaxC32
                                                            : 0;
  return n > kLuGetriLeaf && n <= most;
}
constexpr int kLuGetriNoBlocked = 1 << 30;
constexpr int lu_getri_blocked_min_order(DevPrec p) {
  switch (p) {
    case DevPrec::r32: case DevPrec::c32: case DevPrec::r64: return 33;
    case DevPrec::c64: return 64;
    default: return kLuGetriNoBlocked;  // r16, c16
  }
}

// getrf of few large problems under the native backend: cuSOLVER's getrf one problem after
// another (cuda/vendor) where the blocked algorithm below, whose panels take one thread block per
// problem, is latency-bound and cuSOLVER's single-matrix getrf beats it. Batched, the blocked
// algorithm wins: cuSOLVER's calls run one after the other. Column-major square r32 and r64
// only (cuSOLVER's complex pivot is not checked to be LAPACK's |re| + |im|; row-major pivots
// rows, not the transpose's), and only where the host knows each problem's addresses (host
// pointer arrays or strided operands: device pointer arrays would need a read-back).
// Measured on the H200 (`tools/gpu-check.sh solverab`, 2026-11-27), the whole call with
// cuSOLVER forced over the blocked algorithm alone (below 1: cuSOLVER faster), at
// 768 / 1024 / 1536 / 2048 / 3072 / 4096:
//   r64, 1 problem   0.50 0.52 0.51 0.56 0.56 0.52     r32, 1 problem   0.55 0.57 0.56 0.59 0.63 0.67
//   r64, 2 problems  0.70 0.68 0.68 0.69 0.60 0.96     r32, 2 problems  0.78 0.76 0.70 0.79 0.76 0.73
//   r64, 16 problems 2.73 2.25 2.09 2.24 2.58 4.59     r32, 16 problems 3.41 2.95 2.21 2.38 2.44 3.32
// and at 256 / 384 / 512 / 640: r64, 1 problem 0.47 0.49 0.48 0.51, 2 problems 0.74 0.74 0.70 0.73;
// r32, 1 problem 0.58 0.58 0.56 0.57, 2 problems 0.88 0.88 0.82 0.82;
// and with 4 problems at 512 / 768 / 1024 / 1536 / 2048: r64 1.16 1.08 1.01 0.86 0.80, r32 1.34
// 1.18 1.10 1.02 1.02; at about 1 GB per call (14-476 problems) 1.8-32x (r64 at 512: 225 against
// 10.9 ms, at 2048: 112 against 61).
constexpr int kLuNoSolver = 1 << 30;
// The problems cuSOLVER finds singular or holding NaN, Inf or subnormal numbers are factored
// again by the library's kernels: the unblocked kernel below this order (one launch, nothing
// when no problem needs it), the blocked algorithm from it (the unblocked kernel's one thread
// block per problem grows as n^3 on one SM; the blocked algorithm's launches on empty lists,
// about 3 per panel and 2 per outer block, cost a few percent of cuSOLVER's time there). Not measured.
constexpr int kLuSolverBlockedRedoMin = 1024;
constexpr int lu_solver_min_order(DevPrec p, int64_t problems) {
  if (p != DevPrec::r32 && p != DevPrec::r64) return kLuNoSolver;
  if (problems <= 2) return 256;  // not measured below 256
  if (p == DevPrec::r64 && problems <= 4) return 1536;
  return kLuNoSolver;
}

// getrf's blocked algorithm (getrf_blocked in lu.cu): for max(m, n) >= kLuBlockedMinSide,
// panels of nb columns inside outer blocks (lu_blocked_outer_width), each panel's interchanges
// applied across the whole row, the block rows of U by the trsm core, the updates below them by
// the gemm core. Panels of up to lu_panel_max_threads rows (kLuPanelRowsMax, 256 for c64's
// 32 columns) go to the register panel kernel (getrf_panel.cuh: a row per thread, nb columns in
// registers), taller ones to the shared or global kernel. The panel kernel is latency-bound
// (two barriers per column; one was no faster, s41), so its width trades occupancy against
// launches and passes of the trailing update: 32 columns (r16, r32, r64 and c64 from order 49, the
// 8-byte types up to order kLuPanelRowsMax, c64 up to 256: lu_panel_max_threads; the 1..16
// columns left over on the 16-wide kernel, lu_panel_left_over_narrow_takes), else 16. Every order above the
// register kernels' 32 takes it.
// 8-byte types 16 -> 32 wide (H200, s44, build A/B on the rolled panel, strided, about 1 GB,
// kernel ms at 33 / 40 / 64 / 128 / 256 / 512; bench/results/lu-panel-wide8-ab-NVIDIA-H200-s44.txt):
//   r64 1.94 -> 2.26, 1.61 -> 1.79, 1.59 -> 1.19, 2.55 -> 1.81, 4.38 -> 2.97, 7.26 -> 4.86
//   c32 2.20 -> 1.90, 1.72 -> 1.54, 1.83 -> 1.29, 2.76 -> 1.96, 4.77 -> 3.35, 8.07 -> 5.99
//   c16 5.68 -> 5.33, 4.61 -> 4.25, 5.06 -> 3.10, 11.39 -> 5.64, 20.87 -> 10.80, 38.75 -> 20.48
// (r64 below lu_panel_wide_min_order stays 16 wide).
constexpr int kLuBlockedMinSide = 33;
// Which runs of a chunk go blocked: factor_blocked_run (factor_run.hpp).
constexpr int kLuPanelMax = 32;
constexpr int kLuPanelThreads = 512;
constexpr int kLuPanelRowsMax = kLuPanelThreads;
constexpr int kLuPanelWideWidth = 32;  // kLuPanel's width, in every precision since s45
// Threads (rows) a panel kernel of K columns of that many bytes takes at most: c64's 32 columns
// are 128 registers of data, which only blocks of up to 256 threads can hold (255 registers a
// thread); so c64 is 32 wide only up to order 256 (lu_blocked_panel_width). c64 16 -> 32 wide
// (H200, s45, build A/B, strided, about 1 GB, kernel ms; bench/results/lu-panel-c64-wide-ab-NVIDIA-H200-s45.txt):
//   40 1.42 -> 1.66, 64 1.54 -> 1.49, 80 1.77 -> 1.91, 96 1.91 -> 1.92, 128 2.25 -> 2.11,
//   160 2.65 -> 2.61, 192 2.94 -> 2.79, 256 3.45 -> 3.11 (384: 16 wide in both, 4.51 / 4.50)
// so c64 32 wide from 97 (s46: from 49, lu_panel_wide_min_order).
BB_HOST_DEVICE constexpr int lu_panel_max_threads(int bytes, int K) { return bytes * K > 256 ? 256 : kLuPanelThreads; }
// The rolled panel in row-major reads and writes its rows through the finished columns' shared
// memory, K lanes along each row (a thread a row reads 32 rows ld apart a load), the rows in by
// cp.async where the stored type is the compute type (every load in flight, no registers; r16
// and c16 widen through registers, 4 loads a thread in flight). Build A/B, H200, s50, row-major,
// strided, about 1 GB, kernel ms (bench/results/lu-panel-row-major-ab-NVIDIA-H200-s50.txt),
// a thread a row -> through registers -> by cp.async:
//   r32 65 2.88 -> 2.63 -> 2.14, 96 2.71 -> 2.46 -> 1.97, 512 5.36 -> 4.87 -> 4.45
//   r64 65 2.10 -> 2.09 -> 1.73, 96 1.91 -> 1.73 -> 1.47, 512 3.81 -> 3.46 -> 3.27
//   c32 65 2.23 -> 2.18 -> 1.87, 96 2.25 -> 2.04 -> 1.82, 512 5.54 -> 5.21 -> 5.01
//   c64 65 1.99 -> 2.25 -> 1.90, 96 2.02 -> 2.23 -> 1.90, 512 4.64 -> 4.49 -> 4.38
//   r16 96 4.48 -> 4.06, 128 4.94 -> 4.16, 512 7.04 -> 6.33     c16 96 5.04 -> 4.81, 512 14.01 -> 13.54
BB_HOST_DEVICE constexpr bool lu_panel_rows_in_async(int stored_bytes, int compute_bytes) { return stored_bytes == compute_bytes; }
// c64's panel kernel with the row-major branch took 1-2 % more in column-major at 65..256 (its 248
// registers): a column-major instance of its own where the compute type has 16 bytes.
constexpr bool lu_panel_column_major_instance(int compute_bytes) { return compute_bytes == 16; }
// c64's 32-wide rolled panel as two 16-wide halves in one launch (getrf_panel's HALVES): a row
// holds 16 complex doubles in registers instead of 32 (156-168 registers against 218-252), so an
// SM holds more problems. Same bits as the whole panel (s52, the bench's --digest at 49..128);
// H200, kernel: 3-7 % faster at 64..112 in both layouts, 1-5 % at 128..160, even at 48, 192 and
// 256 (bench/results/lu-s52-NVIDIA-H200.txt). BLAS_BATCHED_LU_PANEL_HALVES=2: the whole panel.
constexpr bool lu_panel_halves_built(DevPrec p, int K) { return p == DevPrec::c64 && K == 32; }
// Panels of up to this many rows take the halves, at 3 blocks an SM or more (its launch bounds:
// at most 170 registers; 96 rows then fit 4 blocks an SM).
constexpr int kLuPanelHalvesMaxThreads = 128, kLuPanelHalvesMinBlocks = 3;
constexpr bool lu_panel_halves_takes(DevPrec p, int K, int threads) {
  return lu_panel_halves_built(p, K) && threads <= kLuPanelHalvesMaxThreads;
}
// The rolled panel's dynamic shared memory: K finished columns of every thread's row; in
// row-major a padded column and each row's final place too.
constexpr int lu_panel_rolled_shared_bytes(int K, int threads, int bytes, bool row_major) {
  return row_major ? K * (threads + 1) * bytes + threads * int(sizeof(int)) : K * threads * bytes;
}
static_assert(kLuPanelWideWidth <= kLuPanelMax, "panel pivots fit");
// Below an order of lu_panel_wide_min_order r32, r16, r64 and c64 take panels kLuPanelNarrowWidth
// wide (kLuPanelNarrow): in r32 fewer registers (70 against 102) and a quarter of the code.
// Panels 16 wide everywhere against 32 (H200, s41, strided, about 1 GB, ms): r32 64
// 2.50 -> 2.92, 96 3.29 -> 3.73, 512 9.63 -> 12.32; r16 64 5.25 -> 7.01. Below 64 only, 32 ->
// 16 wide (s42, bench/results/lu-panel-narrow-ab-NVIDIA-H200-s42.txt):
//   r32 33 5.30 -> 2.90, 40 4.30 -> 2.30, 48 3.16 -> 1.99, 52 3.01 -> 2.89, 56 2.75 -> 2.65,
//       63 2.77 -> 2.64, 64 2.41 -> 2.42
//   r16 33 13.36 -> 7.08, 40 8.81 -> 5.48, 48 6.61 -> 4.47, 52 6.02 -> 6.29, 56 5.56 -> 5.48,
//       60 5.20 -> 5.53, 63 5.03 -> 5.62
// so r32 below 64 and r16 up to 48 (49..51 not measured). Against the rolled wide panel
// (s43, bench/results/lu-panel-wide-min-ab-NVIDIA-H200-s43.txt, kernel ms, 16 -> 32 wide):
//   r32 44 2.18 -> 2.91, 48 1.96 -> 2.52, 49 2.99 -> 2.56, 56 2.64 -> 2.10, 63 2.66 -> 1.96
//   r16 48 4.45 -> 6.66, 49..64 the same (already wide)
// so both from 49 on. r64, once 32 wide (s44, bench/results/lu-panel-wide-min-ab-NVIDIA-H200-s44.txt,
// 16 -> 32 wide; r32 again with the s44 pivot):
//   r64 33 1.95 -> 2.28, 40 1.59 -> 1.81, 44 1.55 -> 1.63, 48 1.39 -> 1.46, 52 2.00 -> 1.42, 64 1.60 -> 1.20
//   r32 33 2.15 -> 2.23, 40 1.73 -> 1.79, 44 1.79 -> 1.76, 48 1.60 -> 1.60, 52 2.45 -> 1.66, 64 2.02 -> 1.37
// so r64 from 49 too (49..51 not measured). BLAS_BATCHED_LU_PANEL_WIDE_MIN (lu.cu) sets it for an A/B.
// c64 from 49 too, by an environment A/B, 16 -> 32 wide at every order (H200, s46, strided,
// about 1 GB, kernel ms; bench/results/lu-panel-c64-wide-ab-NVIDIA-H200-s46.txt):
//   41 1.54 -> 1.72, 48 1.30 -> 1.53 | 49 1.96 -> 1.67, 56 1.71 -> 1.56, 60 1.68 -> 1.52, 64 1.54 -> 1.47
//   65 2.20 -> 2.12, 66 2.13 -> 2.16, 72 1.91 -> 1.99, 76 1.92 -> 2.04, 80 1.78 -> 1.90
//   81 2.22 -> 2.09, 88 1.98 -> 1.93, 92 2.04 -> 1.92, 96 1.91 -> 1.90 | 97 .. 100 within 1 %
// The losses at 65..80 were the 1..16 columns left over on the 32-wide kernel, which now take the
// 16-wide one (lu_panel_left_over_narrow; s46 had c64 16 wide there instead).
constexpr int kLuPanelNarrowWidth = 16;
constexpr int lu_panel_wide_min_order(DevPrec p) {
  return p == DevPrec::r32 || p == DevPrec::r16 || p == DevPrec::r64 || p == DevPrec::c64 ? 49 : 0;
}
// The panel width of blocked getrf of this order (max(m, n)) in p (compute type of that many
// bytes; wide_min: lu_panel_wide_min_order(p), or an A/B's value). Above kLuPanelRowsMax the
// 8-byte types keep 16 columns, as before s44: panels taller than that go to the shared kernel,
// whose largest tier holds about 1600 rows at 16 columns and 800 at 32 (32 not measured there).
constexpr int lu_blocked_panel_width(DevPrec p, int bytes, int order, int wide_min) {
  if (order < wide_min && lu_panel_wide_min_order(p) > 0) return kLuPanelNarrowWidth;
  if (bytes == 8 && order > kLuPanelRowsMax) return kLuPanelNarrowWidth;
  // c64 above 256 (s45: a plain `order > max threads` also sent r32 and r16 above 512 to 16 columns, 14 % slower at 768)
  const int wide_rows = lu_panel_max_threads(bytes, kLuPanelWideWidth);
  if (wide_rows < kLuPanelRowsMax && order > wide_rows) return kLuPanelNarrowWidth;
  return kLuPanelWideWidth;
}
// getrf_panel's rolled form (its steps in loops over pairs, the finished columns in shared
// memory; static SASS, r32 at K = 32: 5456 instructions against 17839; c64 at 16: 4356 against
// 13613). H200, s42, strided, about 1 GB, kernel ms unrolled -> rolled at 64 / 128 / 512
// (bench/results/lu-panel-rolled-NVIDIA-H200-s42.csv, one run; the whole call 1-3 % above):
//   r32 (K = 32) 2.39 -> 1.82, 3.97 -> 2.60, 9.27 -> 7.64
//   c64 (K = 16) 2.23 -> 1.60, 3.03 -> 2.55, 8.33 -> 7.78
//   r64 (K = 16) 1.86 -> 1.77, 2.86 -> 2.75, 8.30 -> 8.05
// The rest (s43, bench/results/lu-panel-rolled-rest-ab-NVIDIA-H200-s43.txt) at 40 / 64 / 128 / 512:
//   c32 (K = 16) 2.17 -> 2.09, 2.38 -> 2.03, 3.45 -> 3.02, 9.60 -> 8.91
//   c16 (K = 16) 5.18 -> 5.13, 5.59 -> 5.43, 12.41 -> 11.79, 41.78 -> 40.20
//   r16 (K = 32 from 49) 64 4.75 -> 3.89, 128 6.01 -> 4.87, 512 14.95 -> 11.55
//   the narrow panels (K = 16 in r32, r16) 40: r32 2.30 -> 2.49, r16 5.47 -> 5.94; 48: r32
//   1.98 -> 2.04, r16 4.44 -> 4.67
// so every panel but r32's and r16's narrow ones (70 registers, a quarter of the wide panel's
// code; r64's narrow panel is the 16-wide one measured above).
constexpr bool lu_panel_rolled_takes(DevPrec p, int K) {
  return !(K == kLuPanelNarrowWidth && (p == DevPrec::r32 || p == DevPrec::r16));
}
// The unrolled form is built for 16 columns and for 32 in the 4-byte types only: a row of 32
// 8-byte entries unrolled is the largest code of all, and rolled won at 32 in r32 (above).
BB_HOST_DEVICE constexpr bool lu_panel_unrolled_built(int bytes, int K) { return K <= 16 || bytes <= 4; }
// Blocked getrf's narrower panel (min(m, n) modulo the width) first instead of last, so that
// every later panel and trailing update is a multiple of the width. H200, s43, strided, about
// 1 GB, kernel ms last -> first (bench/results/lu-panel-remainder-first-ab-NVIDIA-H200-s43.txt;
// r32 there on narrow panels below 64):
//   r32 33 2.90 -> 2.55, 65 3.52 -> 2.75, 100 3.52 -> 3.09, 129 3.84 -> 3.55, 200 4.55 -> 4.28
//   c32 33 2.68 -> 2.32, 65 3.26 -> 3.17, 100 3.76 -> 3.57, 129 4.31 -> 4.18, 200 5.26 -> 5.08
//   c64 33 2.46 -> 1.75, 49 2.29 -> 2.03, 57 1.85 -> 1.88, 129 3.14 -> 3.23, 200 3.88 -> 3.90
//   r64 33 2.26 -> 2.15, 49 2.28 -> 2.41, 65 2.41 -> 2.50, 81 2.69 -> 2.88, 129 3.35 -> 3.52
// so all but r64 then. With r64's panels 32 wide from 49 (s44,
// bench/results/lu-panel-remainder-first-ab-NVIDIA-H200-s44.txt, last -> first):
//   r64 40 1.60 -> 1.59, 65 1.99 -> 1.92, 80 1.63 -> 1.58, 100 2.11 -> 2.08, 129 2.43 -> 2.49,
//       200 2.89 -> 2.96, 300 3.96 -> 3.88, 400 4.38 -> 4.37 (a tie over the ten orders)
//   c32 40 2.19 -> 1.53, 65 2.57 -> 2.02, 129 2.89 -> 2.68, 400 5.15 -> 5.06; c16 40 5.85 -> 4.25
// so first everywhere (one rule).
constexpr bool lu_panel_remainder_first_takes(DevPrec) { return true; }
// Two-level blocking: the trailing matrix is updated once per outer block of this many columns
// (a multiple of the panel width), the outer block itself factored by panels of the panel width
// whose updates stay inside it: fewer, deeper passes of the gemm core over the trailing matrix.
// H200, s44, strided, about 1 GB, kernel ms, one level (outer = panel width) / 32 / 64 at
// 64 / 128 / 192 / 256 / 384 / 512 (bench/results/lu-outer-width-ab-NVIDIA-H200-s44.txt):
//   c64 1.53 / 1.50 / 1.54, 2.47 / 2.25 / 2.26, 3.40 / 3.03 / 2.93, 4.20 / 3.67 / 3.42, 5.81 / 4.92 / 4.48, 7.30 / 6.11 / 5.43
//   r64 1.20 / 1.20 / 1.18, 1.81 / 1.81 / 1.78, 2.40 / 2.39 / 2.28, 2.94 / 2.94 / 2.75, 4.08 / 4.06 / 3.74, 4.81 / 4.81 / 4.33
//   c32 1.28 / 1.28 / 1.28, 1.93 / 1.93 / 1.91, 2.66 / 2.65 / 2.60, 3.31 / 3.32 / 3.17, 4.80 / 4.82 / 4.58, 5.93 / 5.93 / 5.57
//   r32 1.38 / 1.37 / 1.37, 2.09 / 2.08 / 2.04, 2.85 / 2.88 / 2.72, 3.42 / 3.44 / 3.18, 4.93 / 4.94 / 4.45, 6.09 / 6.08 / 5.37
// (40: level within 0.6 %), so 64. Wider (s45, bench/results/lu-outer-width-ab-NVIDIA-H200-s45.txt,
// 64 / 128 / 192 / 256 at 256 / 384 / 512 / 768 / 1024; 256 from s45's first A/B):
//   r64 2.74 / 2.77 / - / -, 3.75 / 3.62 / 3.74 / 3.74, 4.33 / 4.13 / 4.18 / 4.26, 8.30 / 8.01 / 8.22 / 8.50, 11.73 / 11.22 / 11.51 / 11.69
//   r32 3.20 / 3.23 / - / -, 4.47 / 4.43 / 4.56 / 4.55, 5.40 / 5.24 / 5.34 / 5.48, 9.97 / 9.71 / 9.83 / 9.80, 12.66 / 12.26 / 12.35 / 12.29
//   c64 3.43 / 3.62 / - / -, 4.51 / 4.59 / 4.81 / 4.82, 5.45 / 5.39 / 5.53 / 5.90, 10.14 / 10.37 / 11.09 / 11.68, 14.50 / 14.66 / 15.33 / 15.78
//   c32 3.17 / 3.24 / - / -, 4.59 / 4.61 / 4.66 / 4.61, 5.58 / 5.61 / 5.62 / 5.63, 10.10 / 10.07 / 10.30 / 10.50, 15.00 / 15.75 / 16.41 / 17.63
// so 128 in the real types from order 384 (r16 computes in r32, not measured), else 64.
// BLAS_BATCHED_LU_OUTER_WIDTH (lu.cu) sets it for an A/B (1: one level).
constexpr int kLuOuterWideMinOrder = 384;
constexpr int lu_blocked_outer_width(DevPrec p, int order) {
  const bool real = p == DevPrec::r16 || p == DevPrec::r32 || p == DevPrec::r64;
  return real && order >= kLuOuterWideMinOrder ? 128 : 64;
}
// The panel's interchanges on the columns outside it (permute_outside in getrf_panel.cuh): a
// group of lanes a column, each lane holding this many bytes of the column's moved rows (their
// reads all in flight before its writes). Measured on the H200 (s41, strided, about 1 GB, ms,
// 64 bytes / 32 bytes at 40 / 64 / 128 / 256 / 512; bench/results/lu-panel-ab-NVIDIA-H200-s41.txt):
//   c32 2.38 / 2.18, 2.52 / 2.38, 3.81 / 3.41, 6.30 / 5.97, 9.84 / 9.59
//   r32 4.33 / 4.32, 2.50 / 2.38, 4.27 / 3.95, 6.47 / 6.05, 9.81 / 9.29
//   r64 1.91 / 1.95, 1.86 / 1.89, 2.86 / 2.78, 4.93 / 4.81, 8.33 / 8.28
//   c64 2.12 / 2.14, 2.24 / 2.26, 3.03 / 3.06, 4.97 / 5.03, 8.30 / 8.56
// so 32 where the compute type's real part has 4 bytes (r16, c16 not measured), else 64.
BB_HOST_DEVICE constexpr int lu_panel_permute_lane_bytes(int real_bytes) { return real_bytes <= 4 ? 32 : 64; }
// How many of its passes over the columns a lane of permute_outside reads before it writes
// (a short panel has few threads for many columns; each pass waited for its reads: long
// scoreboard at the write, a quarter of the c64 panel's stall samples at order 96, s46). Two in
// c64 and c32 at 32 columns. Measured on the H200 (s46, strided, about 1 GB, kernel ms, one pass
// / passes of up to 16 elements a lane / of up to 8; bench/results/lu-panel-permute-ab-NVIDIA-H200-s46.txt):
//   c64 (K = 32, then from 97: 4 / 2 passes)     128 2.10 / 2.01 / 1.97, 160 2.63 / 2.53 / 2.49, 256 3.10 / 3.06 / 3.00
//   c64 (K = 16: 4 / 2 passes, spills)            80 1.77 / 2.03 / 2.81, 512 5.44 / 6.06 / 6.64
//   c32 (K = 32: 4 / 2 passes)                    80 1.69 / 1.82 / 1.62, 128 1.91 / 2.31 / 1.88, 384 4.60 / 5.27 / 4.47
//   r64 (K = 32: 2 / 1 passes)                    96 1.52 / 2.12 / 1.52, 512 4.11 / 6.03 / 4.12
//   r32 (2 / 1 passes; K = 16 at 40, 32 from 49)  40 1.71 / 1.88 / 1.72, 96 1.76 / 1.71 / 1.75, 512 5.24 / 5.33 / 5.25
BB_HOST_DEVICE constexpr int lu_panel_permute_passes(DevPrec p, int K) {
  return (p == DevPrec::c64 || p == DevPrec::c32) && K == 32 ? 2 : 1;
}
// The rolled panel's permutation through shared memory by asynchronous copies
// (permute_outside_staged: every pass's reads in flight, no registers) where the stored type is
// the compute type and 8 or 16 bytes (r64, c32, c64; as the trsm leaf's staging,
// kAsyncStaging). Build A/B, H200, s46, strided, about 1 GB, kernel ms, registers
// (lu_panel_permute_passes) -> staged in every panel
// (bench/results/lu-panel-permute-ab-NVIDIA-H200-s46.txt):
//   c64 40 1.44 -> 1.30, 64 1.42 -> 1.38, 80 1.78 -> 1.68, 96 1.83 -> 1.78, 128 1.99 -> 1.94, 160 2.51 -> 2.46, 256 3.03 -> 3.08
//   r64 40 1.60 -> 1.59, 64 1.20 -> 1.13, 96 1.54 -> 1.46, 128 1.80 -> 1.73, 192 2.30 -> 2.32, 256 2.79 -> 2.93, 512 4.16 -> 4.71
//   c32 40 1.49 -> 1.42, 80 1.63 -> 1.61, 128 1.89 -> 1.86, 192 2.56 -> 2.61, 256 3.18 -> 3.32, 512 5.57 -> 5.95
// so only in panels of up to kLuPanelStagedMaxThreads threads (with many threads the register
// form has enough reads in flight), its own instantiation (a runtime branch in one kernel took
// the registers of both). That lost 1-2 % in r64 and c32 at 192..384, where r64 won at 160 and
// below and c32 at 128 and below (s47, bench/results/lu-panel-staged-ab-NVIDIA-H200-s47.txt, main -> staged up to 160
// threads): the same panels with more columns outside them, so r64 and c32 stage only up to
// lu_panel_staged_max_outside columns outside the panel (c64 at any count: it won there too):
//   c64 40 1.43 -> 1.31, 80 1.77 -> 1.67, 96 1.82 -> 1.78, 160 2.50 -> 2.47, 256 3.02 -> 3.02, 384 4.54 -> 4.44, 512 5.47 -> 5.30
//   r64 64 1.19 -> 1.14, 96 1.53 -> 1.46, 160 2.16 -> 2.13, 192 2.29 -> 2.32, 256 2.76 -> 2.80, 384 3.63 -> 3.65
//   c32 40 1.49 -> 1.44, 128 1.89 -> 1.87, 160 2.28 -> 2.33, 192 2.54 -> 2.60, 256 3.16 -> 3.20
// BLAS_BATCHED_LU_PANEL_STAGED_MAX_OUTSIDE (lu.cu) sets the column limit for an A/B.
constexpr int kLuPanelStagedMaxThreads = 160;
BB_HOST_DEVICE constexpr bool lu_panel_permute_staged(int stored_bytes, int compute_bytes) {
  return stored_bytes == compute_bytes && stored_bytes >= 8;
}
constexpr int lu_panel_staged_max_outside(DevPrec p) { return p == DevPrec::c64 ? 1 << 30 : p == DevPrec::r64 ? 128 : 96; }
constexpr bool lu_panel_staged_takes(int threads, int outside, int max_outside) {
  return threads <= kLuPanelStagedMaxThreads && outside <= max_outside;
}
// A panel of at most kLuPanelNarrowWidth columns in a run of 32-wide panels (the columns left
// over; or all of a matrix of at most 16 columns whose other side makes the run 32 wide, not
// measured) on the 16-wide kernel: half the registers and shared memory of a 32-wide kernel at
// least half empty. Environment A/B, H200, s47, strided, about 1 GB, kernel ms, the 32-wide kernel -> the
// 16-wide (bench/results/lu-panel-left-over-ab-NVIDIA-H200-s47.txt):
//   c64 65 1.97 -> 1.88, 72 1.83 -> 1.69, 80 1.74 -> 1.55, 100 2.08 -> 2.05, 144 2.35 -> 2.25
//   r32 65 2.30 -> 2.12, 72 2.00 -> 1.85, 100 2.45 -> 2.38, 257 4.21 -> 4.11
//   c32 40 1.43 -> 1.37, 72 1.69 -> 1.63, 129 2.53 -> 2.51, 257 3.91 -> 3.92
//   r64 65 1.81 -> 1.76, 100 1.93 -> 1.90, 144 2.14 -> 2.15, 257 3.49 -> 3.48
// so in every precision (BLAS_BATCHED_LU_PANEL_NARROW_LEFT_OVER=1 or 2 forces it on or off, lu.cu).
constexpr bool lu_panel_left_over_narrow_takes(DevPrec) { return true; }
// Blocked getrf's interchanges on the columns left of an outer block: in every later panel, or
// deferred to one pass per outer block at the end (getrf_deferred_swaps: each moved element read
// and written once). Measured on the H200 (s48, env A/B, strided, about 1 GB, kernel ms in panels
// / deferred; the narrower outer block first; bench/results/lu-deferred-swaps-ab-NVIDIA-H200-s48.txt):
//   c64 65 1.874 / 1.882, 72 1.681 / 1.698, 80 1.570 / 1.564, 96 1.773 / 1.775, 128 1.933 / 1.926,
//       192 2.640 / 2.604, 384 4.414 / 4.202, 512 5.298 / 5.132
//   r64 65 1.780 / 1.769, 80 1.502 / 1.459, 96 1.475 / 1.404, 192 2.304 / 2.126, 512 4.117 / 3.996
//   c32 65 1.839 / 1.878, 72 1.631 / 1.644, 96 1.561 / 1.544, 192 2.541 / 2.461, 512 5.517 / 5.346
//   r32 65 2.115 / 2.147, 72 1.845 / 1.874, 96 1.750 / 1.711, 192 2.739 / 2.557, 512 5.237 / 4.956
//   r16 65 3.933 / 3.971, 96 3.343 / 3.220, 256 5.530 / 4.795, 512 7.582 / 6.608
//   c16 65 6.341 / 6.428, 96 4.407 / 4.355, 256 8.113 / 7.861, 512 14.193 / 13.756
// (a first outer block of 1..16 columns, the narrower one, followed only by the last: its own pass
// costs more than the panels' did, but in r64, which gains at 80 too, 1.502 / 1.459; c64 at 96
// and 112 loses: 1.766 / 1.800, 1.773 / 1.775 and 1.776 / 1.794 over three runs at 96, 1.937 /
// 1.950 at 112), so deferred where the matrix has at least kLuDeferredMinColumns columns beyond
// one outer block's width, in c64 twice that. Row-major the same thresholds, though there the
// pass ties within about 1 % at the first orders it takes and wins from 192 (s49, the pass along
// the moved rows; lu-deferred-swaps-ab-NVIDIA-H200-s49.txt sections 5, 6): c32 96 2.303 / 2.242,
// 512 6.061 / 5.586; r64 96 1.911 / 1.933, 192 2.743 / 2.590, 512 4.163 / 3.872; c64 128 2.199 /
// 2.224, 512 5.078 / 4.726; r32 96 2.733 / 2.745, 256 4.271 / 4.069, 512 5.902 / 5.436; r16 96
// 4.464 / 4.513, 512 7.270 / 7.059; c16 512 14.659 / 14.120.
constexpr int kLuDeferredMinColumns = 32;
constexpr bool lu_deferred_swaps_takes(DevPrec p, int mn, int outer) {
  return mn - outer >= (p == DevPrec::c64 ? 2 : 1) * kLuDeferredMinColumns;
}
// getrf_deferred_swaps: threads a block, and the most rows getrf_blocked defers for (its gathers
// and moves in static shared memory).
constexpr int kLuDeferredThreads = 128;
constexpr int kLuDeferredMaxRows = 512;
// Its dynamic shared memory in row-major, elements per row of the run: a chunk of columns of
// every moved row, at least 32 bytes of each (a whole sector: with 16 bytes, 4 columns, r32 lost
// 1-4 % at 96..256, s49). Column-major launches take kLuDeferredThreads / 32 (a column a warp).
BB_HOST_DEVICE constexpr int lu_deferred_stage_per_row(int bytes) {
  return kLuDeferredThreads / 32 > 32 / bytes ? kLuDeferredThreads / 32 : 32 / bytes;
}
// The configuration of a panel of that many rows and columns on the panel kernel of width nb
// (blocked getrf's width, or kLuPanelNarrowWidth for the columns left over).
constexpr int lu_panel_config(int rows, int width, int bytes, int nb) {
  if (rows <= lu_panel_max_threads(bytes, nb)) return nb == kLuPanelWideWidth ? kLuPanel : kLuPanelNarrow;
  const int tier = factor_shared_tier(int64_t(staged_ld(rows)) * width, bytes);
  return tier < 0 ? kLuGlobal : kLuFirstShared + tier;
}

}  // namespace bb::cuda
