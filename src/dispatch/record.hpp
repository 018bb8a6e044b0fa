// What the calling thread's last call did, per group: for blas_batched_last_call(), the demo
// and the routing tests. Kept compact; formatted only when asked for.
#pragma once
#include "../common/problem.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace bb {

// Where a group ran. New backends add entries here.
enum class Where : uint8_t {
  none, reference, host_kernel, host_lapack,
  cuda_kernel,  // the library's GPU kernels
  cuda_vendor,  // cuBLAS
  cuda_staged   // device data computed on the host (precisions without a GPU path)
};
const char *where_name(Where w);

struct GroupRecord {
  int code;  // 0 or the group's -k
  Where where;
  int64_t problems;
};

struct CallRecord {
  Routine routine = Routine::gemm;
  const char *precision = "";
  const char *backend = "";
  int result = 0;
  std::vector<GroupRecord> groups;
  double device_ms = -1;  // with BLAS_BATCHED_DEVICE_TIMING=1
  std::string text;  // formatted on request
  void start(Routine r, const char *prec) {
    routine = r, precision = prec, backend = "", result = 0, device_ms = -1;
    groups.clear();
  }
};

CallRecord &last_call_record();

}  // namespace bb
