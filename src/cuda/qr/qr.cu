// Device QR entry points: the configuration per shape and one launch per configuration,
// every precision in this file.
#include "geqrf_block.cuh"
#include "geqrf_thread.cuh"

namespace bb::cuda {

bool qr_blocked(DevPrec p, int m, int n) {
  if (p == DevPrec::r16 || p == DevPrec::c16) return false;
  static const int forced = tuning_env("BLAS_BATCHED_QR_BLOCKED_MIN");
  return (m < n ? m : n) >= (forced ? forced : kQrBlockedMinSide);
}

int qr_config(DevPrec p, int m, int n) {
  const int side = m > n ? m : n;
  for (int c = 0; c < kQrFirstShared; ++c)
    if (side <= qr_register_side(c)) return c;
  const int tier = factor_shared_tier(int64_t(staged_ld(m)) * n, compute_bytes(p));
  return tier < 0 ? kQrGlobal : kQrFirstShared + tier;
}

int64_t qr_units(const FactorRun &r, int config) {
  if (r.m <= 0 || r.n <= 0) return 0;
  if (qr_is_register(config)) {
    const int per_warp = qr_problems_per_warp(config);
    return (r.problems + per_warp - 1) / per_warp;
  }
  return r.problems;
}

int qr_units_per_block(int config) { return qr_is_register(config) ? qr_warps_per_block(config) : 1; }

namespace {
template <class S>
int qr_launch_typed(Session &s, int config, const FactorRun *table_host, const FactorRun *table_device,
                    const int32_t *block_first, int count, int64_t units) {
  using CT = typename dev<S>::C;
  if (s.status() || units == 0 || count == 0) return s.status();
  FactorLaunch L;
  if (!make_launch(L, table_host, table_device, block_first, count, units)) return s.fail(BLAS_BATCHED_ERR_DEVICE);
  if (qr_is_register(config)) {
    int st = -1;  // every register side is compiled: the lambda runs
    with_side_among<2, 4, 8, 16, 24, 32>(qr_register_side(config), [&](auto side) {
      constexpr int K = decltype(side)::value, WPB = K <= kQrThreadMaxSide ? kQrThreadWarps : kQrRegisterWarps;
      const int64_t blocks = (units + WPB - 1) / WPB;
      if constexpr (K <= kQrThreadMaxSide)
        st = launch_kernel(s, geqrf_thread<S, K, qr_thread_stage(K * K * int(sizeof(S)))>, L, 32 * WPB, blocks, 0);
      else
        st = launch_kernel(s, geqrf_register<S, K>, L, 32 * WPB, blocks, geqrf_register_shared_bytes<S, K>());
    });
    return st == -1 ? s.fail(BLAS_BATCHED_ERR_DEVICE) : st;
  }
  if (qr_is_shared(config))
    return launch_kernel(s, geqrf_shared<S, true>, L, kFactorBlockThreads, units,
                         factor_tier_elements(config - kQrFirstShared) * int(sizeof(CT)));
  return launch_kernel(s, geqrf_shared<S, false>, L, kFactorBlockThreads, units, 0);
}
}  // namespace

int qr_launch(Session &s, DevPrec p, int config, const FactorRun *table_host, const FactorRun *table_device,
              const int32_t *block_first, int count, int64_t units) {
  return by_precision(p, [&](auto x) {
    return qr_launch_typed<decltype(x)>(s, config, table_host, table_device, block_first, count, units);
  });
}

}  // namespace bb::cuda
