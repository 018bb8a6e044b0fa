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
  kCholConfigs
};
constexpr int kCholRegisterMax = 32;
constexpr int kCholRegisterWarps = 4;  // warps per block of the register kernels (not tuned yet)
// Columns per panel of the block kernels: the panel's diagonal block is one warp's serial work
// while the block waits, so narrower than a warp.
constexpr int kCholPanel = 16;
constexpr int chol_register_side(int config) { return 2 << config; }  // kCholRows64 included
constexpr int chol_problems_per_warp(int config) { return config == kCholRows64 ? 1 : 32 / chol_register_side(config); }
constexpr bool chol_is_register(int config) { return config >= 0 && config < kCholFirstShared; }
constexpr bool chol_is_shared(int config) { return config >= kCholFirstShared && config < kCholGlobal; }

}  // namespace bb::cuda
