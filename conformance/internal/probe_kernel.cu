#include "probe_kernel.hpp"

#include "../../src/cuda/run_table.cuh"

#include <blas_batched/blas_batched.h>

#include <cuda_runtime.h>

#include <algorithm>

namespace probe {
namespace {

using Launch = bb::cuda::RunLaunch<ProbeRun, kProbeInline>;

// The driver's tables as the library's kernels read them (run_table.cuh).
__global__ void probe_kernel(const __grid_constant__ Launch L) {
  for (int64_t u = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; u < L.total_units;
       u += int64_t(gridDim.x) * blockDim.x) {
    const ProbeRun &r = bb::cuda::run_of<kProbeThreads>(L, u);
    const int64_t i = u - r.unit_begin;
    const double *c = bb::cuda::operand_at<double>(r.C, i);
    if (!c) continue;  // a problem the pointer pass skipped
    r.codes[i] = c[0] >= 1 ? int(c[0]) : 0;
  }
}

}  // namespace

int probe_launch(bb::cuda::Session &s, const ProbeRun *host, const ProbeRun *device, const int32_t *block_first,
                 int count, int64_t units) {
  if (s.status() || !units) return s.status();
  Launch L;
  if (!bb::cuda::make_launch(L, host, device, block_first, count, units)) return s.fail(BLAS_BATCHED_ERR_DEVICE);
  const unsigned grid = unsigned(std::min<int64_t>((units + kProbeThreads - 1) / kProbeThreads, 4096));
  s.started();
  s.clear_stale_error();
  probe_kernel<<<grid, kProbeThreads, 0, static_cast<cudaStream_t>(s.stream())>>>(L);
  return s.check_launch();
}

}  // namespace probe
