// The device info channel: how numerical codes (LAPACK's info > 0: a zero pivot, a minor that
// is not positive definite) travel from device kernels to the caller's info array.
//
// Kernels write a dense int per problem (`codes`, zeroed before they run; 0 = success). After
// them, one collect kernel compacts the non-zero codes into a list {problem, code} with its
// length, and the length plus the first `copied` entries go back to pinned host memory in the
// same stream. Failures are rare, so what crosses PCIe is a few bytes per span of chunks
// (device/device_run.hpp) however many problems it holds; when info is NULL the length alone
// is the count the call returns, reduced on the device. Plain C++: the kernel lives in info_channel.cu.
#pragma once
#include "../session.hpp"

#include <cstddef>
#include <cstdint>

namespace bb::cuda {

struct InfoEntry {
  int32_t problem;  // index into the codes the kernels wrote
  int32_t code;
};

// Bytes of a list for `problems` problems: its length (8 bytes, keeps entries aligned) and at
// most one entry per problem.
constexpr std::size_t info_list_bytes(int64_t problems) {
  return 8 + std::size_t(problems) * sizeof(InfoEntry);
}
// The length a list holds (its first 4 bytes) and its entries.
inline int32_t info_list_length(const void *list) { return *static_cast<const int32_t *>(list); }
inline const InfoEntry *info_list_entries(const void *list) {
  return reinterpret_cast<const InfoEntry *>(static_cast<const char *>(list) + 8);
}

// Zeroes `codes` (n ints) and the list's length; ordered on the session's stream before the
// kernels that write codes.
int info_clear(Session &s, int *codes, int64_t n, void *list_device);
// Enqueues the compaction of codes[0, n) into list_device, then the copy of its length and
// first `copied` entries to list_host (pinned). n < 2^31. The list holds at most `capacity`
// entries; its length counts every failure (more than capacity: read the codes instead).
int info_collect(Session &s, const int *codes, int64_t n, void *list_device, void *list_host, int64_t copied,
                 int64_t capacity);

// Enqueues the count of non-zero entries of info[0, n) (device memory) into *count_device, then
// its copy into *count_host (pinned): a call whose kernels wrote every code into a device info
// learns how many failed without the per-chunk channel.
int info_count(Session &s, const int *info, int64_t n, uint64_t *count_device, uint64_t *count_host);

// Writes `value` into info[0, n) of device memory, on the session's stream (0 by a memset).
int info_fill(Session &s, int *info, int64_t n, int value);

// ---- pointer arrays in device memory (SPEC.md section 9.2): the host never reads them, so
// their NULL entries are found on the device, before the routine's kernels (which skip a
// problem with a NULL pointer they need).
constexpr int kMaxPointerArgs = 3;
struct PointerCheckRun {
  const void *const *arrays[kMaxPointerArgs] = {};  // at the run's first problem
  int32_t position[kMaxPointerArgs] = {};  // argument numbers, ascending; 0: not needed
  int64_t count = 0;
  int64_t chunk_pos = 0;  // its first problem among the chunk's (codes)
  int64_t first = 0;      // its first problem in the call (info)
  // A run for the vendor library, which cannot skip a problem: a copy of its arrays where a
  // problem with a NULL pointer points every operand at `scratch` instead (null: no copy).
  const void **copy[kMaxPointerArgs] = {};
  void *scratch = nullptr;
};
constexpr int kInlineCheckRuns = 8;
// Problem i of a run gets -position of its first NULL needed pointer, written to codes
// (chunk order, zeroed before) and to info (call order, device memory: 0 for the others too)
// where they are not null; runs with a copy get it written. Runs by value (count <= kInlineCheckRuns: `host_runs`) or a table in
// device memory sorted by chunk_pos (`device_runs`). `problems`: the chunk's. `copies`: some
// run has a copy to write.
int check_pointers(Session &s, const PointerCheckRun *host_runs, const PointerCheckRun *device_runs, int count,
                   int64_t problems, int *codes, int *info, bool copies);

}  // namespace bb::cuda
