// Device Cholesky entry points: the configuration per size and one launch per configuration,
// every precision in this file (the kernels are small).
#include "potrf_block.cuh"

namespace bb::cuda {

int chol_config(DevPrec p, int n) {
  const bool rows64 = p == DevPrec::r16 || p == DevPrec::r32;
  for (int c = 0; c < kCholFirstShared; ++c)
    if (n <= chol_register_side(c) && (c != kCholRows64 || rows64)) return c;
  const int tier = factor_shared_tier(int64_t(staged_ld(n)) * n, compute_bytes(p));
  return tier < 0 ? kCholGlobal : kCholFirstShared + tier;
}

int64_t chol_units(const FactorRun &r, int config) {
  if (r.n <= 0) return 0;
  if (chol_is_register(config)) {
    const int per_warp = chol_problems_per_warp(config);
    return (r.problems + per_warp - 1) / per_warp;
  }
  return r.problems;
}

int chol_units_per_block(int config) { return chol_is_register(config) ? kCholRegisterWarps : 1; }

namespace {
template <class S>
int chol_launch_typed(Session &s, int config, const FactorRun *table_host, const FactorRun *table_device,
                      const int32_t *block_first, int count, int64_t units) {
  using CT = typename dev<S>::C;
  if (s.status() || units == 0 || count == 0) return s.status();
  FactorLaunch L;
  if (!make_launch(L, table_host, table_device, block_first, count, units)) return s.fail(BLAS_BATCHED_ERR_DEVICE);
  if (config == kCholRows64) {
    if constexpr (dev<S>::complex || sizeof(CT) > 4) return s.fail(BLAS_BATCHED_ERR_DEVICE);  // never planned
    else return launch_kernel(s, potrf_rows64<S>, L, 32 * kCholRegisterWarps,
                              (units + kCholRegisterWarps - 1) / kCholRegisterWarps, 0);
  }
  if (chol_is_register(config)) {
    int st = -1;  // every register side is compiled: the lambda runs
    with_register_side<2, kCholRegisterMax>(chol_register_side(config), [&](auto side) {
      const int64_t blocks = (units + kCholRegisterWarps - 1) / kCholRegisterWarps;
      st = launch_kernel(s, potrf_register<S, decltype(side)::value>, L, 32 * kCholRegisterWarps, blocks, 0);
    });
    return st == -1 ? s.fail(BLAS_BATCHED_ERR_DEVICE) : st;
  }
  if (chol_is_shared(config))
    return launch_kernel(s, potrf_shared<S, true>, L, kFactorBlockThreads, units,
                         factor_tier_elements(config - kCholFirstShared) * int(sizeof(CT)));
  return launch_kernel(s, potrf_shared<S, false>, L, kFactorBlockThreads, units, 0);
}
}  // namespace

int chol_launch(Session &s, DevPrec p, int config, const FactorRun *table_host, const FactorRun *table_device,
                const int32_t *block_first, int count, int64_t units) {
  return by_precision(p, [&](auto x) {
    return chol_launch_typed<decltype(x)>(s, config, table_host, table_device, block_first, count, units);
  });
}

}  // namespace bb::cuda
