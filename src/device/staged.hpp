// r128/c128 device groups (no GPU arithmetic) and the reference backend go through host memory:
// each adapter moves its own operands down and its outputs back (element-exact, padding
// untouched); what they share is here: batches of bounded host memory and the host backend's run
// of one batch as one group (a stored matrix's extent: matrix_extent, common/problem.hpp).
#pragma once
#include "../dispatch/backend.hpp"
#include "../dispatch/record.hpp"
#include "../host/host_backend.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace bb::device {

// Host memory of one staged batch, whatever the group's size (MoreThan65535Problems spans two).
constexpr std::size_t kStagedBytes = std::size_t(8) << 20;

// Problems per batch for a group of `count` problems of `bytes_per_problem` host bytes each.
inline int64_t staged_batch_size(int64_t count, std::size_t bytes_per_problem) {
  const std::size_t per = std::max<std::size_t>(bytes_per_problem, 1);
  return std::max<int64_t>(1, std::min<int64_t>(count, int64_t(kStagedBytes / per)));
}

// The host backend on one staged batch: h is the call reduced to one group of `count` problems
// on host pointers, computed where the backend would compute a host group of this order.
// Returns host::run's count of problems with non-zero info; alloc_failed as host::run sets it.
template <class T, class Call>
int64_t run_staged_batch(const Call &h, Routine routine, int64_t order, int64_t count, Backend backend,
                         bool &alloc_failed) {
  const Where where = host_choice<T>(backend, routine, order);
  const int64_t first[2] = {0, count};
  const GroupRecord group{0, where};
  const double o = double(order);
  const host::GroupTable table{first, &group, 1, double(count) * o * o * o, where == Where::host_lapack};
  alloc_failed = false;
  return host::run(h, table, backend == Backend::reference, alloc_failed);
}

}  // namespace bb::device
