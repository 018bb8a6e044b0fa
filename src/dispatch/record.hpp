// What the calling thread's last call did, per group: for blas_batched_last_call(), the demo
// and the routing tests. The same arrays are the call's plan while it runs (group offsets,
// codes, where each group goes), so a call allocates nothing per group beyond them, and
// after warm-up nothing at all: they only grow.
#pragma once
#include "../common/problem.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace bb {

// Where a group ran. New backends add entries here.
enum class Where : uint8_t {
  none,  // skipped (invalid) or nothing to compute
  reference, host_kernel, host_lapack,
  cuda_kernel,  // the library's GPU kernels
  cuda_vendor,  // cuBLAS
  cuda_solver,  // cuSOLVER
  cuda_staged   // device data computed on the host (precisions without a GPU path)
};
const char *where_name(Where w);
inline bool on_host(Where w) { return w == Where::reference || w == Where::host_kernel || w == Where::host_lapack; }
inline bool on_device(Where w) { return w >= Where::cuda_kernel; }

struct GroupRecord {
  int code;  // 0 or the group's -k
  Where where;
  int16_t ordinal = -1;  // the CUDA device of a device group
};

struct CallRecord {
  Routine routine = Routine::gemm;
  const char *name = "gemm";  // the routine's, or the extension's (getrf_getri)
  const char *precision = "";
  const char *backend = "";
  int result = 0;
  int group_count = 0;            // groups of the call that `groups` and `first` describe
  std::vector<GroupRecord> groups;
  std::vector<int64_t> first;     // first problem of each group; first[group_count] = total
  double device_ms = -1;  // with device timing on (blas_batched_set_device_timing)
  std::string text;  // formatted on request
  void start(Routine r, const char *routine_label, const char *prec) {
    routine = r, name = routine_label, precision = prec, backend = "", result = 0, device_ms = -1, group_count = 0;
  }
  int64_t problems(int g) const { return first[g + 1] - first[g]; }
};

CallRecord &last_call_record();

}  // namespace bb
