// Device gemm entry: precision switch and the tuned choice of kernel configuration.
#include "gemm_kernel.cuh"

#include <cstdlib>

namespace bb::cuda {

template <class S> int run_gemm(Session &, const GemmGroup *, int);
extern template int run_gemm<__half>(Session &, const GemmGroup *, int);
extern template int run_gemm<chalf>(Session &, const GemmGroup *, int);
extern template int run_gemm<float>(Session &, const GemmGroup *, int);
extern template int run_gemm<cplx<float>>(Session &, const GemmGroup *, int);
extern template int run_gemm<double>(Session &, const GemmGroup *, int);
extern template int run_gemm<cplx<double>>(Session &, const GemmGroup *, int);

namespace {

// BLAS_BATCHED_GEMM_CONFIG=<index> or "vendor" forces one configuration (tuning sweeps;
// read on every call so one process can sweep).
bool forced_config(int &config) {
  const char *s = std::getenv("BLAS_BATCHED_GEMM_CONFIG");
  if (!s || !*s) return false;
  config = !std::strcmp(s, "vendor") ? kConfigVendor : std::atoi(s);
  return config == kConfigVendor || (config >= 0 && config < kConfigCount);
}
}  // namespace

bool gemm_has_vendor(DevPrec p) { return p != DevPrec::c16; }

int gemm_config(DevPrec p, int m, int n, int k, bool vendor_backend) {
  const bool vendor_ok = gemm_has_vendor(p);
  if (vendor_backend && vendor_ok) return kConfigVendor;
  int config;
  if (forced_config(config) && (config >= 0 ? gemm_config_built(p, config) : vendor_ok)) return config;
  const int order = std::max({m, n, k});
  for (const TuningEntry &e : kGemmTuning)
    if (e.prec == p && order <= e.max_order) return e.config >= 0 || vendor_ok ? e.config : kFallbackConfig;
  return vendor_ok ? kConfigVendor : kFallbackConfig;
}

int gemm(Session &s, DevPrec p, const GemmGroup *groups, int count) {
  switch (p) {
    case DevPrec::r16: return run_gemm<__half>(s, groups, count);
    case DevPrec::c16: return run_gemm<chalf>(s, groups, count);
    case DevPrec::r32: return run_gemm<float>(s, groups, count);
    case DevPrec::c32: return run_gemm<cplx<float>>(s, groups, count);
    case DevPrec::r64: return run_gemm<double>(s, groups, count);
    case DevPrec::c64: return run_gemm<cplx<double>>(s, groups, count);
  }
  return s.fail(BLAS_BATCHED_ERR_DEVICE);
}

}  // namespace bb::cuda
