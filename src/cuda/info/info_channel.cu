#include "info_channel.hpp"

#include <cuda_runtime.h>

#include <algorithm>

namespace bb::cuda {

namespace {

// One warp ballot per 32 problems: a single atomic per warp that holds a failure, none where
// every problem succeeded (the usual case), so the pass runs at the speed of reading codes.
// Entries past `capacity` are counted, not written (the caller then reads the codes themselves).
__global__ void collect_kernel(const int *codes, int64_t n, int32_t *length, InfoEntry *entries, int64_t capacity) {
  const int lane = threadIdx.x & 31;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i - lane < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const int code = i < n ? codes[i] : 0;
    const unsigned failed = __ballot_sync(0xffffffffu, code != 0);
    if (!failed) continue;
    int32_t at = 0;
    if (lane == 0) at = atomicAdd(length, __popc(failed));
    at = __shfl_sync(0xffffffffu, at, 0);
    const int32_t place = at + __popc(failed & ((1u << lane) - 1));
    if (code && place < capacity) entries[place] = InfoEntry{int32_t(i), code};
  }
}

__global__ void count_kernel(const int *info, int64_t n, unsigned long long *count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i - (threadIdx.x & 31) < n;
       i += int64_t(gridDim.x) * blockDim.x) {
    const unsigned failed = __ballot_sync(0xffffffffu, i < n && info[i] != 0);
    if (failed && (threadIdx.x & 31) == 0) atomicAdd(count, (unsigned long long)__popc(failed));
  }
}

__global__ void fill_kernel(int *info, int64_t n, int value) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    info[i] = value;
}

struct InlineCheckRuns {
  PointerCheckRun runs[kInlineCheckRuns];
};

__global__ void check_kernel(const __grid_constant__ InlineCheckRuns inline_runs, const PointerCheckRun *table,
                             int count, int64_t problems, int *codes, int *info) {
  const PointerCheckRun *runs = table ? table : inline_runs.runs;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < problems;
       i += int64_t(gridDim.x) * blockDim.x) {
    int lo = 0, hi = count - 1;  // the last run starting at or before i
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (runs[mid].chunk_pos <= i) lo = mid;
      else hi = mid - 1;
    }
    const PointerCheckRun &r = runs[lo];
    const int64_t j = i - r.chunk_pos;
    if (j >= r.count) continue;
    int code = 0;
    for (int a = kMaxPointerArgs - 1; a >= 0; --a)  // the lowest argument number wins
      if (r.position[a] && !r.arrays[a][j]) code = -r.position[a];
    if (r.copy[0])
      for (int a = 0; a < kMaxPointerArgs; ++a)
        if (r.copy[a]) r.copy[a][j] = code ? r.scratch : r.arrays[a][j];
    if (info) info[r.first + j] = code;  // every problem: a device info gets its 0 here
    if (code && codes) codes[i] = code;
  }
}

}  // namespace

int info_fill(Session &s, int *info, int64_t n, int value) {
  if (s.status() || n <= 0) return s.status();
  const auto st = static_cast<cudaStream_t>(s.stream());
  s.started();
  if (value == 0) return s.check(cudaMemsetAsync(info, 0, std::size_t(n) * sizeof(int), st));
  constexpr int kThreads = 256;
  const int64_t blocks = s.grid(n, kThreads);
  s.clear_stale_error();
  fill_kernel<<<unsigned(blocks), kThreads, 0, st>>>(info, n, value);
  return s.check_launch();
}

int info_count(Session &s, const int *info, int64_t n, uint64_t *count_device, uint64_t *count_host) {
  if (s.status()) return s.status();
  const auto st = static_cast<cudaStream_t>(s.stream());
  s.started();
  if (s.check(cudaMemsetAsync(count_device, 0, sizeof(uint64_t), st))) return s.status();
  if (n > 0) {
    constexpr int kThreads = 256;
    const int64_t blocks = s.grid(n, kThreads);
    s.clear_stale_error();
    count_kernel<<<unsigned(blocks), kThreads, 0, st>>>(info, n, reinterpret_cast<unsigned long long *>(count_device));
    if (s.check_launch()) return s.status();
  }
  return s.check(cudaMemcpyAsync(count_host, count_device, sizeof(uint64_t), cudaMemcpyDeviceToHost, st));
}

int check_pointers(Session &s, const PointerCheckRun *host_runs, const PointerCheckRun *device_runs, int count,
                   int64_t problems, int *codes, int *info, bool copies) {
  if (s.status() || problems <= 0 || count <= 0 || (!codes && !info && !copies)) return s.status();
  InlineCheckRuns in{};
  if (!device_runs)
    for (int i = 0; i < count && i < kInlineCheckRuns; ++i) in.runs[i] = host_runs[i];
  constexpr int kThreads = 256;
  const int64_t blocks = s.grid(problems, kThreads);
  s.started();
  s.clear_stale_error();
  check_kernel<<<unsigned(blocks), kThreads, 0, static_cast<cudaStream_t>(s.stream())>>>(in, device_runs, count,
                                                                                        problems, codes, info);
  return s.check_launch();
}

int info_clear(Session &s, int *codes, int64_t n, void *list_device) {
  if (s.status()) return s.status();
  const auto st = static_cast<cudaStream_t>(s.stream());
  s.started();
  if (n && s.check(cudaMemsetAsync(codes, 0, std::size_t(n) * sizeof(int), st))) return s.status();
  return s.check(cudaMemsetAsync(list_device, 0, 8, st));
}

int info_collect(Session &s, const int *codes, int64_t n, void *list_device, void *list_host, int64_t copied,
                 int64_t capacity) {
  if (s.status()) return s.status();
  const auto st = static_cast<cudaStream_t>(s.stream());
  auto *length = static_cast<int32_t *>(list_device);
  auto *entries = reinterpret_cast<InfoEntry *>(static_cast<char *>(list_device) + 8);
  if (n > 0) {
    constexpr int kThreads = 256;
    const int64_t blocks = s.grid(n, kThreads);
    s.clear_stale_error();
    collect_kernel<<<unsigned(blocks), kThreads, 0, st>>>(codes, n, length, entries, capacity);
    if (s.check_launch()) return s.status();
  }
  return s.check(cudaMemcpyAsync(list_host, list_device, info_list_bytes(std::min({copied, capacity, n})),
                                 cudaMemcpyDeviceToHost, st));
}

}  // namespace bb::cuda
