// Device LU entry points: the precision switch and the choice of configuration per shape.
#include "lu_impl.cuh"

namespace bb::cuda {

#define BB_LU_EXTERN(S) BB_LU_DECLARE(S, extern)
BB_DEVICE_PRECISIONS(BB_LU_EXTERN)

int lu_config(DevPrec p, LuRoutine r, int m, int n) {
  const int side = std::max(m, n);
  for (int c = 0; c <= kLuRegister32; ++c)
    if (side <= lu_register_side(c)) return c;
  // Staged: the matrix with its odd leading dimension, and getri's work vector.
  const int64_t need = int64_t(staged_ld(m)) * n + (r == LuRoutine::getri ? n : 0);
  const int tier = factor_shared_tier(need, compute_bytes(p));
  return tier < 0 ? kLuGlobal : kLuFirstShared + tier;
}

bool lu_supported(LuRoutine r, int n) { return r == LuRoutine::getrf || n <= kLuGlobalMaxN; }

int64_t lu_units(const FactorRun &s, int config) {
  if (s.m <= 0 || s.n <= 0) return 0;
  if (lu_is_register(config)) {
    const int per_warp = lu_problems_per_warp(config);
    return (s.problems + per_warp - 1) / per_warp;
  }
  return s.problems;
}

int lu_units_per_block(DevPrec, LuRoutine, int config) {
  return lu_warps_per_block(config);
}

int lu_launch(Session &s, DevPrec p, LuRoutine r, int config, const FactorRun *table_host, const FactorRun *table_device,
              const int32_t *block_first, int count, int64_t units) {
  return by_precision(p, [&](auto x) {
    return lu_launch_typed<decltype(x)>(s, r, config, table_host, table_device, block_first, count, units);
  });
}

}  // namespace bb::cuda
