// Device Cholesky tuning: the named kernel configurations of potrf and the choice per size.
#pragma once
#include "chol.hpp"

#include <type_traits>

namespace bb::cuda {

// kCholRegister<K>: n <= K, K threads per problem (a row or a column each), 32 / K problems per
// warp (K = 24: a warp, its last 8 lanes idle). kCholRows64: 32 < n <= 64 in r16 and r32, one
// problem per warp, two rows per thread (96 values in registers: r64 and the complex
// precisions would spill, so they take the block
// kernels).
// kCholShared<tier>: one block per problem, the triangle staged in a shared-memory area of the
// tier's capacity (factor_run.hpp). kCholGlobal: the same algorithm in place in global memory.
enum CholConfig : int {
  kCholRegister2, kCholRegister4, kCholRegister8, kCholRegister16, kCholRegister24, kCholRegister32, kCholRows64,
  kCholFirstShared,
  kCholGlobal = kCholFirstShared + kFactorSharedTiers,
  kCholDiag,  // the blocked algorithm's diagonal blocks (potrf_diag.cuh); never planned per run
  kCholConfigs
};
// A step's 1 / sqrt(d) (CholPivot in chol_step.cuh) by rsqrt, beside the square root, or by a
// division after it. Measured on the H100 (register kernels, kernel % of bandwidth with
// rsqrt / division, device pointer arrays): r32 at n = 16 37.9 / 36.2, at 32 34.4 / 30.6; c32
// at 16 33.4 / 36.0, at 32 24.2 / 27.3 (both values live: 130 registers a thread at K = 32
// against 126, a block fewer per SM); r64 and c64 within 1-3 %, the division ahead. r16 computes
// in float as r32 does (not measured apart).
template <class CT> constexpr bool chol_pivot_by_rsqrt = std::is_same_v<CT, float>;
constexpr int kCholRegisterWarps = 4;  // warps per block of the register kernels (not tuned yet)
// Columns per panel of the block kernels: the panel's diagonal block is one warp's serial work
// while the block waits, so narrower than a warp.
constexpr int kCholPanel = 16;
// Side 24 (orders 17..24: FEM's 8-node hexahedra with 3 unknowns a node) runs 24 rows in a
// warp of 32 lanes: a quarter less work per step and fewer registers than side 32.
constexpr int chol_register_side(int config) {  // kCholRows64 included
  return config == kCholRegister24 ? 24 : config < kCholRegister24 ? 2 << config : 2 << (config - 1);
}

constexpr bool chol_is_register(int config) { return config >= 0 && config < kCholFirstShared; }

// potrf_register's rolled form (chol_rolled_steps: the steps in a loop by pairs, the line
// narrowing by kCholRolledWidthStep registers) for sides 24 and 32, as getrf's rolled kernel
// (lu_tuning.hpp: the unrolled c64 K = 32 potrf is 247 KB of SASS). NOT MEASURED YET (branch
// next/chol-rolled): taken only from BLAS_BATCHED_CHOL_ROLLED_MIN=<side> on, for the A/B.
constexpr int kCholRolledWidthStep = 8;
constexpr bool chol_rolled_takes(DevPrec, int) { return false; }
constexpr bool chol_is_shared(int config) { return config >= kCholFirstShared && config < kCholGlobal; }

// potrf's blocked algorithm (potrf_blocked in chol.cu): left-looking by blocks of
// chol_block_width columns; a diagonal block takes its left part's product off and factors in
// registers (potrf_diag.cuh), the rows below it come from the gemm core (A21 -= L20 L10^H) and
// the trsm core (A21 L11^-H). It replaces the one-block-per-problem kernels, which hold the
// whole triangle in one SM's shared memory and run its panel chain at one block per SM, from
// kCholBlockedMinSide up. Half precisions stay unblocked (chol_blocked): the blocked
// algorithm would round every block of L to 16 bits between steps.
// Every order above 32 blocks: measured on the H100 (tools/blocked_ab.sh, R=potrf), the
// blocked algorithm against the one-block kernels in r64 at 40..512 (0.98-2.27x cuSOLVER
// against 0.23-0.65x), and against r32's kCholRows64 at 36 / 40 / 44 / 56 / 64 (2.55 / 2.57 /
// 2.46 / 2.52 / 2.57x against 2.37 / 2.05 / 2.00 / 1.64 / 1.57x). bench/results/NOTES-factor.md.
// Blocks of 16 or 32 columns; the diagonal kernel's K is 16 for blocks of up to 16 columns (a
// narrow last block too), else 32.
// 32 leaves fewer steps to the gemm and trsm cores, 16 has half the diagonal chain per block and
// fewer registers (r64: 70 against 126 a thread; c64: 146 against 254). Measured on the H100,
// x cuSOLVER with blocks of 32 / 16 (tools/block_width_ab.sh): r64 at 48 1.77 / 2.42, 64 2.66 /
// 2.14, 128 1.73 / 1.34, 512 0.97 / 0.57; r32 at 48 2.07 / 2.60, 64 3.13 / 2.25; c64 at 48
// 1.19 / 2.51, 64 1.60 / 2.33, 128 1.19 / 1.40, 256 1.17 / 0.99; c32 at 48 1.67 / 2.12, 64
// 1.65 / 1.91, 96 1.31 / 1.41, 128 1.20 / 1.16, 256 0.95 / 0.82.
// potrf under the native backend hands the groups cuSOLVER potrfBatched takes (the column-major
// lower triangle, the row-major upper one: factor_vendor_ok) to it where it was measured faster
// than the blocked algorithm, as the vendor backend does (cuda/vendor, SPEC.md section 7), and
// a few problems to cuSOLVER's potrf one at a time (chol_solver_min_order below).
// Measured on the H100 (2026-11-27, `tools/gpu-check.sh cholgemm`, Lower, the gemm core's
// updates on cuBLAS from 2^16 of work in every precision; bench/results/cholgemm-*-H100-*-s16.csv), ms,
// blocked / potrfBatched through the library (the call as built where it took potrfBatched;
// called directly it is 0.03-0.08 ms faster below 512 and 2-7 % above) / per problem:
//   r64   4 problems: 256 0.35/0.33/0.44, 512 0.72/0.69/0.89, 1024 1.46/1.68/1.76, 2048 3.41/-/3.51
//         8: 256 0.30/0.32, 512 0.64/0.71, 1024 1.43/1.85;  16: 128 0.20/0.20, 256 0.39/0.32,
//         512 0.78/0.71, 1024 1.74/2.12, 2048 5.9/8.5;  64: 128 0.15/0.17, 256 0.33/0.34
//   r32 alike (8 of 512 0.69/0.68, 16 of 512 0.73/0.70, 8 of 1024 1.71/1.72, 32 of 2048 8.6/9.4)
//   c64  16 problems: 128 0.37/0.19, 512 1.18/0.97, 1024 3.91/3.33, 2048 12.9/16.7; 64: 512
//        1.90/1.68, 1024 6.5/8.5 (direct); 256: 256 1.14/1.12, 512 4.00/5.34 (direct). Complex
//        keeps the calls' rule for cuBLAS in the core (kCoreVendorMinWork, gemm_tuning.hpp):
//        below 64 problems its updates run slower than measured here (16 of 2048: 20.3 ms),
//        so potrfBatched keeps every order up to 32 problems.
//   c32  potrfBatched ahead up to 64 problems of 1024 (5.53/4.55), even at 64 of 2048 (25.7/26.4)
// Earlier, on the H200 with the updates on the library's tiles below 64 problems (s15), the
// blocked algorithm lost more of the few-problem calls; about 1 GB it wins everywhere (r64
// 30048 problems of 64: 1.27/3.09 ms, 1024: 3.70/6.10).
// potrfBatched where min_order <= n and, for a tier {up to `problems`, below `order`}, the
// call's problems and n fit the first tier that holds the count.
struct CholVendorTier {
  int64_t problems;
  int below_order;
};
struct CholVendorRule {
  int min_order;
  CholVendorTier tiers[3];
};
constexpr int kCholNoVendor = 1 << 30;
constexpr CholVendorRule chol_vendor_rule(DevPrec p) {
  switch (p) {
    case DevPrec::r64:
    case DevPrec::r32: return {64, {{256, 512}, {0, 0}, {0, 0}}};
    case DevPrec::c64: return {64, {{32, kCholNoVendor}, {128, 1024}, {256, 512}}};
    case DevPrec::c32: return {64, {{128, kCholNoVendor}, {0, 0}, {0, 0}}};
    default: return {kCholNoVendor, {}};  // r16, c16: no cuSOLVER routine
  }
}
constexpr bool chol_vendor_takes(DevPrec p, int n, int64_t problems) {
  const CholVendorRule r = chol_vendor_rule(p);
  if (n < r.min_order) return false;
  for (const CholVendorTier &t : r.tiers)
    if (problems <= t.problems) return n < t.below_order;
  return false;
}
// potrf of few problems under the native backend, from these orders: cuSOLVER's potrf one
// problem at a time (cuda/vendor). The triangle potrfBatched takes (`batched_takes`: column-major
// Lower, row-major Upper) has potrfBatched beside it; the other triangle only the blocked
// algorithm. Measured on the H100 (2026-11-27, `cholgemm`, Lower, ms, per problem / the better
// of potrfBatched through the library and the blocked algorithm):
//   1 problem:  64 r64 0.067/0.076, r32 0.065/0.076, c64 0.076/0.15, c32 0.084/0.15; 2048 r64
//               0.93/3.83
//   2 problems: 128 r64 0.147/0.154 (r32, c64 alike), c32 0.180/0.173, 1024 c32 1.54/1.55,
//               2048 c32 2.95/4.30
//   4 problems: r64 1024 1.76/1.46; r32 1024 1.45/1.54, 2048 2.82/4.49; c64 1024 2.10/2.22,
//               2048 4.63/7.93; c32 2048 5.93/5.34
//   8 problems: c64 2048 9.13/9.68; r64 2048 6.95/4.48
//   Upper (r64, H200, s15, before the updates on cuBLAS), 1 problem: 128 0.141/0.157, 2048
//   2.43/6.09; 2 problems: 1024 2.06/2.04, 2048 4.63/6.21; 4 problems: 2048 9.0/6.9
// Complex on the other triangle: not measured, the real rule.
constexpr int chol_solver_min_order(DevPrec p, int64_t problems, bool batched_takes) {
  if (p == DevPrec::r16 || p == DevPrec::c16) return kCholNoVendor;
  if (!batched_takes) return problems <= 1 ? 128 : problems <= 2 ? 2048 : kCholNoVendor;
  if (problems <= 1) return 64;
  switch (p) {
    case DevPrec::r64: return problems <= 2 ? 128 : kCholNoVendor;
    case DevPrec::r32: return problems <= 2 ? 128 : problems <= 4 ? 1024 : kCholNoVendor;
    case DevPrec::c64: return problems <= 2 ? 64 : problems <= 4 ? 1024 : problems <= 8 ? 2048 : kCholNoVendor;
    default: return problems <= 2 ? 2048 : kCholNoVendor;  // c32
  }
}
constexpr int kCholLeftChunk = 8;  // columns of the left part in shared memory at a time
// potrf_blocked from this order: each diagonal block's left product (L10 L10^H, or U01^H U01)
// by its block column's gemm call, a second segment into nb x nb of workspace per problem,
// which the diagonal kernel subtracts; below it (or without room for that workspace) the
// diagonal kernel reads the k columns to its left itself, one warp per problem (on one problem
// of 2048, one warp on the GPU at each of 64 steps). Measured on the H200 (`cholgemm`, r64,
// Lower, ms, by gemm / by the kernel): 1 problem of 2048 6.1/22.0, of 256 0.32/0.49; 64 of 1024
// 2.6/8.9; about 1 GB: 64 1.27/1.23, 128 1.37/1.49, 256 1.67/2.24, 1024 3.70/10.6; r32,
// c64, c32 alike (c64 about 1 GB of 128: 1.78/1.96).
constexpr int kCholDiagGemmMinOrder = 128;
constexpr int kCholBlockedMinSide = 33;
constexpr int chol_block_width(DevPrec p, int n) {
  const int narrow_up_to = p == DevPrec::c64 ? 128 : p == DevPrec::c32 ? 96 : 48;
  return n <= narrow_up_to ? 16 : 32;
}
constexpr int chol_diag_side(int block) { return block <= 16 ? 16 : 32; }
constexpr int chol_problems_per_warp(int config) {
  return config == kCholRows64 ? 1 : 32 / register_lanes(chol_register_side(config));
}

}  // namespace bb::cuda
