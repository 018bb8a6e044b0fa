// The device gemm's tuning table and the configurations each precision compiles: one place
// for the choice of kernel per precision and order, shared by planning and instantiation.
#pragma once
#include "gemm.hpp"

namespace bb::cuda {

struct TuningEntry {
  DevPrec prec;
  int max_order, config;
};
inline constexpr TuningEntry kGemmTuning[] = {
#include "gemm_tuning.inc"
};

constexpr int kFallbackConfig = 8;  // 32 x 32 tiles: any size, where cuBLAS has no routine
// A flat configuration needs contiguous, 16-byte aligned matrices that fit; otherwise the
// group takes the tiled configuration of the same size class.
constexpr int kFirstFlatConfig = 10, kFirstExactConfig = 14;
constexpr int kFlatMaxElements[] = {4, 16, 64, 256};
constexpr int kFlatExact[] = {2, 4, 8, 16};
constexpr int kFlatFallback[] = {0, 2, 4, 5};

// Whether precision p compiles configuration c: the ones its tuning table names, the flat
// family with its fallbacks, and the general fallback. Instantiating all 18 shapes for all
// six precisions would triple the build and compile shapes nobody runs (some of which spill
// registers); a tuning build (-DBLAS_BATCHED_GEMM_ALL_CONFIGS=ON) compiles every one.
constexpr bool gemm_config_built(DevPrec p, int c) {
#ifdef BB_GEMM_ALL_CONFIGS
  (void)p;
  return c >= 0 && c < kConfigCount;
#else
  if (c >= kFirstFlatConfig || c == kFallbackConfig) return c < kConfigCount;
  for (int f : kFlatFallback)
    if (c == f) return true;
  for (const TuningEntry &e : kGemmTuning)
    if (e.prec == p && e.config == c) return true;
  return false;
#endif
}

}  // namespace bb::cuda
