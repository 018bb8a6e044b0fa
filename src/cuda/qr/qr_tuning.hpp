// Device QR tuning: the named kernel configurations of geqrf and the choice per shape.
#pragma once
#include "qr.hpp"

namespace bb::cuda {

// kQrRegister<K>: m, n <= K, K threads per problem (one column each), 32 / K problems per warp.
// kQrShared<tier>: one block per problem, the matrix staged in a shared-memory area of the
// tier's capacity (factor_run.hpp). kQrGlobal: the same algorithm in place in global memory.
enum QrConfig : int {
  kQrRegister2, kQrRegister4, kQrRegister8, kQrRegister16, kQrRegister32,
  kQrFirstShared,
  kQrGlobal = kQrFirstShared + kFactorSharedTiers,
  kQrConfigs
};
constexpr int kQrRegisterMax = 32;
constexpr int kQrRegisterWarps = 4;  // warps per block of the register kernels (not tuned yet)
// Register kernels up to this side unroll their column steps (above: the registers grow from
// 122 to 230 in r64 at K = 32, and c64 spills).
constexpr int kQrUnrolledMaxSide = 8;
constexpr int qr_register_side(int config) { return 2 << config; }
constexpr bool qr_is_register(int config) { return config >= 0 && config < kQrFirstShared; }
constexpr bool qr_is_shared(int config) { return config >= kQrFirstShared && config < kQrGlobal; }

}  // namespace bb::cuda
