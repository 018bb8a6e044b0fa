#include "probe_kernel.hpp"

#include <cuda_runtime.h>

#include <algorithm>

namespace probe {
namespace {

struct Launch {
  const ProbeRun *table;
  const int32_t *block_first;
  ProbeRun inline_runs[kProbeInline];
  int count;
  int64_t units;
};

__global__ void probe_kernel(Launch L) {
  for (int64_t u = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; u < L.units; u += int64_t(gridDim.x) * blockDim.x) {
    const ProbeRun *runs = L.table ? L.table : L.inline_runs;
    int lo = 0, hi = L.count - 1;  // the last run with unit_begin <= u
    if (L.block_first) {          // between this block's first run and the next block's
      const int64_t b = u / kProbeThreads;
      lo = L.block_first[b];
      if ((b + 1) * kProbeThreads < L.units) hi = L.block_first[b + 1];
    }
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (runs[mid].unit_begin <= u) lo = mid;
      else hi = mid - 1;
    }
    const ProbeRun &r = runs[lo];
    const int64_t i = u - r.unit_begin;
    const double *c;
    if (r.C.array) {
      c = static_cast<const double *const *>(r.C.p)[i];
      if (!c) continue;  // a problem the pointer pass skipped
      c += r.C.step;
    } else {
      c = static_cast<const double *>(r.C.p) + i * r.C.step;
    }
    r.codes[i] = c[0] >= 1 ? int(c[0]) : 0;
  }
}

}  // namespace

int probe_launch(bb::cuda::Session &s, const ProbeRun *host, const ProbeRun *device, const int32_t *block_first,
                 int count, int64_t units) {
  if (s.status() || !units) return s.status();
  Launch L{};
  L.table = device, L.block_first = device ? block_first : nullptr, L.count = count, L.units = units;
  if (!device) std::copy(host, host + count, L.inline_runs);
  const unsigned grid = unsigned(std::min<int64_t>((units + kProbeThreads - 1) / kProbeThreads, 4096));
  s.started();
  s.clear_stale_error();
  probe_kernel<<<grid, kProbeThreads, 0, static_cast<cudaStream_t>(s.stream())>>>(L);
  return s.check_launch();
}

}  // namespace probe
