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
// than the blocked algorithm, as the vendor backend does (cuda/vendor, SPEC.md section 7).
// With the diagonal blocks' products by gemm (kCholDiagGemmMinOrder) the blocked algorithm
// wins wherever the call fills the GPU; potrfBatched keeps the few-problem calls, which the
// blocked algorithm's chain of small steps leaves latency-bound. Measured on the H200
// (2026-11-27, `tools/gpu-check.sh cholgemm`, Lower; bench/results/cholgemm-*-s15.csv), ms,
// blocked / potrfBatched called directly:
//   r64  4 problems:  64 0.079/0.051, 256 0.31/0.24, 1024 2.06/1.50, 2048 6.7/4.9
//       16 problems: 128 0.15/0.13, 512 0.80/0.67, 2048 9.4/8.3;  29 of 2048: 11.2/11.7
//       64 problems:  64 0.092/0.054, 256 0.36/0.30, 512 0.78/0.89, 1024 2.6/3.8
//      256 problems: 128 0.17/0.16, 256 0.47/0.49, 512 1.54/2.12, 1024 6.3/12.1
//      about 1 GB:   64 1.27/3.09 (30048 problems), 256 1.67/2.94, 512 2.26/3.83, 1024 3.70/6.10
//   r32 alike (64 of 512: 0.78/0.75; 59 of 2048: 13.5/13.5).
//   c64 16 problems: 128 0.31/0.15, 1024 5.4/3.2, 2048 19.8/16.0; 64: 512 1.67/1.54, 1024
//       5.8/8.1; about 1 GB: 128 1.78/2.95, 256 2.28/3.37, 512 3.37/4.65 (237 problems)
//   c32 64 problems: 512 1.40/0.97, 1024 5.4/4.3, 2048 25.4/25.0; 119 of 1024: 7.6/7.0;
//       about 1 GB: 475 of 512 4.13/4.30, 256 2.71/3.21
// Through the library, cuSOLVER's path costs 1.06-1.10x the direct call (its pointer lists, and
// LAPACK's codes read off the factor's diagonal). Orders below min_order not measured (blocked).
struct CholVendorRule {
  int min_order;              // from this order
  int64_t any_order_up_to;    // problems: potrfBatched at every order
  int64_t some_up_to;         // problems: potrfBatched below below_order
  int below_order;
};
constexpr int kCholNoVendor = 1 << 30;
constexpr CholVendorRule chol_vendor_rule(DevPrec p) {
  switch (p) {
    case DevPrec::r64:
    case DevPrec::r32: return {64, 32, 256, 512};
    case DevPrec::c64: return {128, 16, 128, 1024};
    case DevPrec::c32: return {128, 128, 0, 0};
    default: return {kCholNoVendor, 0, 0, 0};  // r16, c16: no cuSOLVER routine
  }
}
constexpr bool chol_vendor_takes(DevPrec p, int n, int64_t problems) {
  const CholVendorRule r = chol_vendor_rule(p);
  return n >= r.min_order && (problems <= r.any_order_up_to || (problems <= r.some_up_to && n < r.below_order));
}
// potrf of few problems under the native backend, from these orders: cuSOLVER's potrf one
// problem at a time (cuda/vendor). The triangle potrfBatched takes (`batched_takes`: column-major
// Lower, row-major Upper) has potrfBatched beside it; the other triangle only the blocked
// algorithm. Measured on the H200 (2026-11-27, `cholgemm`, ms, per problem / the better of
// potrfBatched and the blocked algorithm with its products by gemm):
//   Lower, 1 problem: 128 0.107/0.110, 256 0.18/0.24, 2048 1.30/3.78 (r32 alike); 2 problems:
//          per problem over potrfBatched 1.01-1.82 from 512 (`solverab`, 2026-11-27, s14);
//          4 problems: 1024 1.96/1.50, 2048 4.28/4.90 (r32 3.27/4.33, c64 5.38/7.90, c32
//          6.58/5.25)
//   Upper (r64), 1 problem: 128 0.141/0.157, 2048 2.43/6.09; 2 problems: 1024 2.06/2.04, 2048
//          4.63/6.21; 4 problems: 2048 9.0/6.9
// Complex on the other triangle: not measured, the real rule.
constexpr int chol_solver_min_order(DevPrec p, int64_t problems, bool batched_takes) {
  if (p == DevPrec::r16 || p == DevPrec::c16) return kCholNoVendor;
  if (batched_takes)
    return problems <= 1 ? 256 : problems <= 2 ? 512 : problems <= 4 && p != DevPrec::c32 ? 2048 : kCholNoVendor;
  return problems <= 1 ? 128 : problems <= 2 ? 2048 : kCholNoVendor;
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
