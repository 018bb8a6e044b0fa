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
// lower triangle, the row-major upper one: factor_vendor_ok) to it from these orders, as the
// vendor backend does (cuda/vendor, SPEC.md section 7): past a few hundred the blocked
// algorithm's chain of small gemm and trsm steps falls behind. Measured on the H100
// (`tools/gpu-check.sh largeab`, one call of about 1 GB, Lower), the blocked algorithm's time
// over cuSOLVER called directly at 384 / 512 / 640 / 768 / 1024:
//   r64 0.79 0.95 1.14 1.37 1.72      c64 1.01 1.25 1.46 1.73 2.31
//   r32 0.78 0.98 1.12 1.44 1.62      c32 1.04 1.20 1.37 1.61 2.01
// Through the library, cuSOLVER's path costs 1.06-1.10x the direct call (its pointer lists, and
// LAPACK's codes read off the factor's diagonal), which the crossovers include.
// The count of problems moves it (H200, 2026-11-27, `largeab` with LARGEBATCH, the blocked
// algorithm's time over potrfBatched's called directly, Lower, orders 128 / 256 / 384 / 512 /
// 640 / 768; bench/results/NOTES-factor.md):
//   4..256 problems: r64 0.83-1.47 / 1.36-2.0 / 1.44-2.52 / 1.40-2.83 / 1.31-3.16 / 1.24-3.43,
//                    r32 1.32-1.80 / 1.53-2.08 / 1.68-2.45 / 1.79-2.90 / 1.79-3.28 / 1.76-3.67
//   1024 problems:   r64 0.82 / 0.80 / 0.71 / 0.65 / 0.60 / 0.56, r32 0.94 / 1.08 / 1.06 / 0.98 / 0.92 / 0.87
// Few problems leave the blocked algorithm's chain of small steps latency-bound; many fill the
// GPU, where potrfBatched falls behind. Between 256 and 1024 problems not measured: the
// H100's 640 (about 1 GB: 100 to 300 problems) stays. Complex: the H100's, whatever the count.
constexpr int kCholNoVendor = 1 << 30;
constexpr int64_t kCholVendorFewProblems = 256, kCholVendorManyProblems = 1024;
constexpr int chol_vendor_min_order(DevPrec p, int64_t problems) {
  switch (p) {
    case DevPrec::r64:
    case DevPrec::r32:
      return problems <= kCholVendorFewProblems ? 256 : problems < kCholVendorManyProblems ? 640 : kCholNoVendor;
    case DevPrec::c64: return 512;
    case DevPrec::c32: return 512;
    default: return kCholNoVendor;  // r16, c16: no cuSOLVER routine
  }
}
// potrf of few problems under the native backend, from these orders: cuSOLVER's potrf one
// problem at a time (cuda/vendor), where the blocked algorithm is latency-bound. The triangle
// potrfBatched takes (`batched_takes`: column-major Lower, row-major Upper) has potrfBatched
// beside it, which wins from two problems at 256; the other triangle only the blocked
// algorithm. Measured on the H200 (`solverab`, SOLVERROUTINE=potrf; time over the per-problem
// path's at 256 / 512 / 768 / 1024 / 2048):
//   Lower, 1 problem:  blocked 2.4 / 4.4 / 2.1 / 2.3 / 3.2 (r64; from 640 potrfBatched),
//                      potrfBatched 1.17 / 1.53 / 1.77 / 2.00 / 2.91; 2 problems: 0.85 / 1.01 /
//                      1.16 / 1.29 / 1.82 (r64; r32 alike)
//   Upper (blocked):   1 problem 1.9 / 3.4 / 3.9 / 5.2 / 9.3 (r64; r32 alike); 4: 0.64 / 1.06 /
//                      1.26 / 1.74 / 3.35; 8: 0.38 / 0.64 / 0.69 / 0.93 / 2.01; 16: 0.20 / 0.32 /
//                      0.36 / 0.56 / 1.03 (r32: 0.92 at 2048)
constexpr int chol_solver_min_order(DevPrec p, int64_t problems, bool batched_takes) {
  if (p == DevPrec::r16 || p == DevPrec::c16) return kCholNoVendor;
  if (batched_takes) return problems <= 1 ? 256 : problems <= 2 ? 512 : kCholNoVendor;
  return problems <= 2 ? 256 : problems <= 4 ? 512 : problems <= 8 ? 2048 : kCholNoVendor;
}
constexpr int kCholLeftChunk = 8;  // columns of the left part in shared memory at a time
// potrf_blocked on a few problems: each diagonal block's left product (L10 L10^H, or U01^H U01)
// by its block column's gemm call, a second segment into nb x nb of workspace per problem,
// which the diagonal kernel subtracts; else that kernel reads the k columns to its left itself,
// one warp per problem (on one problem of 2048, one warp on the GPU at each of 64 steps).
// NOT MEASURED: off (0 problems) unless BLAS_BATCHED_CHOL_DIAG_GEMM gives the largest count it
// takes (`R=potrf LUPROFILE=r64:2048 LUBATCH=1 tools/gpu-check.sh luprofile` to compare).
constexpr int64_t kCholDiagGemmMaxProblems = 0;
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
