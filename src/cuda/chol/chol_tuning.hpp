// Device Cholesky tuning: the named kernel configurations of potrf and the choice per size.
#pragma once
#include "chol.hpp"

namespace bb::cuda {

// kCholRegister<K>: n <= K, K threads per problem (a row or a column each), 32 / K problems per
// warp. kCholRows64: 32 < n <= 64 in r16 and r32, one problem per warp, two rows per thread (96
// values in registers: r64 and the complex precisions would spill, so they take the block
// kernels).
// kCholShared<tier>: one block per problem, the triangle staged in a shared-memory area of the
// tier's capacity (factor_run.hpp). kCholGlobal: the same algorithm in place in global memory.
enum CholConfig : int {
  kCholRegister2, kCholRegister4, kCholRegister8, kCholRegister16, kCholRegister32, kCholRows64,
  kCholFirstShared,
  kCholGlobal = kCholFirstShared + kFactorSharedTiers,
  kCholDiag,  // the blocked algorithm's diagonal blocks (potrf_diag.cuh); never planned per run
  kCholConfigs
};
constexpr int kCholRegisterMax = 32;
constexpr int kCholRegisterWarps = 4;  // warps per block of the register kernels (not tuned yet)
// Columns per panel of the block kernels: the panel's diagonal block is one warp's serial work
// while the block waits, so narrower than a warp.
constexpr int kCholPanel = 16;
constexpr int chol_register_side(int config) { return 2 << config; }  // kCholRows64 included

constexpr bool chol_is_register(int config) { return config >= 0 && config < kCholFirstShared; }
constexpr bool chol_is_shared(int config) { return config >= kCholFirstShared && config < kCholGlobal; }

// potrf's blocked algorithm (potrf_blocked in chol.cu): left-looking by blocks of
// kCholBlockWidth columns; a diagonal block takes its left part's product off and factors in
// registers (potrf_diag.cuh), the rows below it come from the gemm core (A21 -= L20 L10^H) and
// the trsm core (A21 L11^-H). It replaces the one-block-per-problem kernels, which hold the
// whole triangle in one SM's shared memory and run its panel chain at one block per SM, from
// kCholBlockedMinSide up (r32 keeps kCholRows64 to 64). Half precisions stay unblocked: the
// blocked algorithm would round every block of L to 16 bits between steps.
constexpr int kCholBlockWidth = 32;
constexpr int kCholLeftChunk = 8;  // columns of the left part in shared memory at a time
constexpr int kCholBlockedMinSide = 33;
constexpr int chol_problems_per_warp(int config) {
  return config == kCholRows64 ? 1 : config == kCholDiag ? 32 / kCholBlockWidth : 32 / chol_register_side(config);
}
constexpr int chol_blocked_min_side(DevPrec p) {
  return p == DevPrec::r16 || p == DevPrec::c16 ? 1 << 30 : p == DevPrec::r32 ? 65 : kCholBlockedMinSide;
}

}  // namespace bb::cuda
