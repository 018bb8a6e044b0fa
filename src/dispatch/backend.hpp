// Backend selection (BLAS_BATCHED_BACKEND) and the per-group choice of how a problem runs.
#pragma once
#include "../common/lapack_calls.hpp"
#include "../common/problem.hpp"
#include "record.hpp"

namespace bb {

enum class Backend { native, vendor, reference };

// auto (or unset) means native. Returns false for a name that is no backend.
bool backend_from_env(Backend &b);
const char *backend_name(Backend b);

// Largest order at which the host kernels beat one OpenBLAS call per problem (measured with
// bench/, r64 and r32; see SPEC.md "Host backend").
inline int host_kernel_limit(Routine r) {
  switch (r) {
    case Routine::gemm: return 32;
    case Routine::trsm:
    case Routine::trmm: return 32;
    default: return 32;
  }
}

template <class T>
Where host_choice(Backend b, Routine r, int64_t order) {
  if (b == Backend::reference) return Where::reference;
  if (!lapack::available<T>) return Where::host_kernel;  // nothing else has these precisions
  if (b == Backend::vendor) return Where::host_lapack;
  return order <= host_kernel_limit(r) ? Where::host_kernel : Where::host_lapack;
}

}  // namespace bb
