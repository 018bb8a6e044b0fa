// A stand-in device routine for the device layer's own tests: one thread per problem reads the
// first element of its C and reports it as the problem's info code when it is >= 1 (as a
// factorization reports a zero pivot), 0 otherwise. It exercises the driver's info channel
// before the factorizations that need it exist.
#pragma once
#include "../../src/cuda/gemm/gemm.hpp"

#include <cstdint>

namespace probe {

struct ProbeRun {
  int64_t unit_begin = 0, problems = 0;
  bb::cuda::DevOperand C;  // r64 matrices
  int *codes = nullptr;    // the run's info codes on the device
  uint32_t flags = 0;      // what ProbeAdapter::run_flags reports (the driver's AND per launch)
};
constexpr int kProbeInline = 4, kProbeThreads = 256;
// One launch over `count` runs (host table when count <= kProbeInline, else device table with
// the driver's first run of each block of kProbeThreads units, as the gemm kernels use it).
int probe_launch(bb::cuda::Session &s, const ProbeRun *host, const ProbeRun *device, const int32_t *block_first,
                 int count, int64_t units);

}  // namespace probe
