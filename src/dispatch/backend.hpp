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

// Largest order the native backend gives its own host kernels (r32..c64); above it one
// OpenBLAS call per problem. A judgement, not yet a measured crossover (SPEC.md section 7).
constexpr int64_t kHostKernelMaxOrder = 32;

template <class T>
Where host_choice(Backend b, Routine r, int64_t order) {
  if (b == Backend::reference) return Where::reference;
  if (!lapack::available<T>) return Where::host_kernel;  // nothing else has these precisions
  if (b == Backend::vendor) return Where::host_lapack;
  return order <= kHostKernelMaxOrder ? Where::host_kernel : Where::host_lapack;
}

}  // namespace bb
