// Device QR tuning: the named kernel configurations of geqrf and the choice per shape.
#pragma once
#include "qr.hpp"

#include <type_traits>

namespace bb::cuda {

// kQrRegister<K>: m, n <= K, K threads per problem (one column each), 32 / K problems per warp
// (K = 24: a warp, its last 8 lanes idle);
// for K <= kQrThreadMaxSide one thread per problem, 32 per warp (geqrf_thread.cuh).
// kQrShared<tier>: one block per problem, the matrix staged in a shared-memory area of the
// tier's capacity (factor_run.hpp). kQrGlobal: the same algorithm in place in global memory.
enum QrConfig : int {
  kQrRegister2, kQrRegister4, kQrRegister8, kQrRegister16, kQrRegister24, kQrRegister32,
  kQrFirstShared,
  kQrGlobal = kQrFirstShared + kFactorSharedTiers,
  kQrConfigs
};
constexpr int kQrRegisterMax = 32;
constexpr int kQrRegisterWarps = 4;  // warps per block of the register kernels (not tuned yet)
// Register configurations of side up to this run one problem per thread (geqrf_thread.cuh),
// 32 problems per warp, as getrf's (lu_tuning.hpp); their warps' dense matrices of 128 bytes
// (K = 4 in r64 and c32) go through shared memory, by getrf's measurement (lu_thread_stage).
constexpr int kQrThreadMaxSide = 4;
constexpr int kQrThreadWarps = kQrRegisterWarps;
constexpr bool qr_thread_stage(int matrix_bytes) { return matrix_bytes == 128; }
// Register kernels up to this side unroll their column steps (above, full unrolling took the
// earlier one-lane-reflector kernel from 122 to 230 registers in r64 at K = 32, and c64
// spilled); above, the steps run in chunks of kQrStepChunk, each copy of the step with
// compile-time row bounds (geqrf_register.cuh). Measured on the H200 (tools/variants.sh,
// strided, kernel % of copy bandwidth, n = 16 / 24 / 32): r64 one chunk 12.2 / 5.2 / 6.9,
// chunks of 8 15.0 / 7.5 / 9.6 with xlapy3's norm and 17.3 / 9.1 / 11.4 with larfg's one
// root, chunks of 4 (one root) 18.0 / 10.4 / 12.4; c64 16.6 / 4.7 / 6.4, 19.3 / 7.9 / 10.5,
// 21.2 / 8.6 / 11.6, 20.2 / 9.6 / 10.6; c32 at 16 chunks of 8 18.1, of 4 15.7. More copies
// hold more registers (r64 K = 32: 120, 144, 150); c64 at K = 16 and 32 spills 4-8 bytes
// with chunks of 8.
constexpr int kQrUnrolledMaxSide = 8;
// Register kernels up to this side load and store a column-major matrix by rows through shared
// memory (geqrf_register.cuh). Measured on the H200 (strided, kernel % of copy bandwidth,
// staged against direct): n = 8 r64 29.1 / 27.4, r32 23.1 / 17.4, c64 30.6 / 29.1, c32
// 25.9 / 24.8; but n = 16 c64 16.3 / 21.3, n = 24 r64 7.7 / 10.3, n = 32 r64 12.1 / 12.4, c64
// 10.6 / 11.8 (the larger sides are bound by their steps, and staging costs them registers
// and barriers).
constexpr int kQrStagedMaxSide = 8;
template <class S> constexpr int kQrStepChunk = std::is_same_v<S, double> ? 4 : 8;
// Side 24 (orders 17..24: FEM's 8-node hexahedra with 3 unknowns a node) runs 24 rows in a
// warp of 32 lanes: a quarter fewer rows per step and fewer registers than side 32. (The
// n = 24 rows measured for kQrStepChunk and kQrStagedMaxSide ran the side-32 kernel; side 24's
// chunk is not measured yet.)
constexpr int qr_register_side(int config) { return config == kQrRegister24 ? 24 : config < kQrRegister24 ? 2 << config : 32; }

constexpr bool qr_is_register(int config) { return config >= 0 && config < kQrFirstShared; }
constexpr int qr_warps_per_block(int config) {
  return qr_register_side(config) <= kQrThreadMaxSide ? kQrThreadWarps : kQrRegisterWarps;
}
constexpr int qr_problems_per_warp(int config) {
  return qr_register_side(config) <= kQrThreadMaxSide ? 32 : 32 / register_lanes(qr_register_side(config));
}
constexpr bool qr_is_shared(int config) { return config >= kQrFirstShared && config < kQrGlobal; }

// geqrf's blocked algorithm (geqrf_blocked.cu): panels of qr_block_width columns factored by
// the kernels above, the columns to their right updated through the gemm core (larft, larfb).
// It replaces the one-block-per-problem kernels, whose panel chain runs at one block per SM,
// where min(m, n) >= kQrBlockedMinSide. Half precisions stay unblocked (qr_blocked): the
// gemm updates would round every block to 16 bits between panels.
// Measured on the H100 (tools/blocked_ab.sh R=geqrf, strided, square; ms blocked /
// unblocked): panels of 32 lose at 33 (r32 17.22 / 13.81, c64 10.15 / 6.78, c32 13.20 / 9.90)
// and at 40 in r32 (12.98 / 12.78) and c64 (7.63 / 6.37); panels of 16 win at 40 (r64 6.47 / 7.89, r32 9.05 / 12.67, c64
// 6.02 / 6.35, c32 7.75 / 9.14) and 44; 33..39 with panels of 16 not timed.
// Panels of 16 against 32 (tools/block_width_ab.sh R=geqrf, ms): r64 at 48 5.12 / 6.71, 64
// 4.96 / 5.16, 128 4.87 / 4.64, 256 5.91 / 4.80; r32 at 64 7.00 / 7.15, 128 6.69 / 6.38; c64 at
// 64 4.70 / 5.16, 128 4.71 / 5.09, 256 6.60 / 5.65; c32 at 64 5.99 / 5.85, 128 6.00 / 5.60.
// bench/results/NOTES-factor.md.
constexpr int kQrBlockedMinSide = 40;
constexpr int qr_block_width(DevPrec p, int m, int n) {
  const int narrow_up_to = p == DevPrec::c64 ? 128 : 64;
  return (m < n ? m : n) <= narrow_up_to ? 16 : 32;
}

}  // namespace bb::cuda
