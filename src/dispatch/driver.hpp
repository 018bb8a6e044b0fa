// One batched call from validated arguments to info: call-level checks, per-group checks,
// the choice of where each group runs, and the runs. Every routine and precision goes
// through run_call; a routine only describes its arguments (src/api/calls.hpp).
#pragma once
#include "../api/calls.hpp"
#include "../host/host_backend.hpp"
#include "backend.hpp"
#include "record.hpp"

#include <limits>
#include <vector>

namespace bb {

// The lowest-numbered invalid call-level argument, or 0.
template <class Call>
int check_call(const Call &c, int64_t &total) {
  int bad = 0;
  auto fail = [&](int pos) {
    if (!bad || pos < bad) bad = pos;
  };
  if (c.layout != BLAS_ColMajor && c.layout != BLAS_RowMajor) fail(1);
  if (c.group_count < 0) fail(Call::pos_group_count);
  total = 0;
  if (c.group_count > 0) {
    if (!c.group_sizes) fail(Call::pos_group_sizes);
    else
      for (int g = 0; g < c.group_count; ++g) {
        if (c.group_sizes[g] < 0) fail(Call::pos_group_sizes);
        else total += c.group_sizes[g];
      }
    for (const ArgRef &a : c.group_arrays())
      if (!a.ptr) fail(a.pos);
    if (total > 0)
      for (const ArgRef &a : c.pointer_arrays())
        if (!a.ptr) fail(a.pos);
  }
  return bad;
}

template <class T, class Call>
int run_call(const Call &c) {
  CallRecord &rec = last_call_record();
  rec.start(Call::routine, traits<T>::name());
  int64_t total = 0;
  if (int bad = check_call(c, total)) return rec.result = -bad;  // nothing touched
  Backend backend;
  if (!backend_from_env(backend)) return rec.result = BLAS_BATCHED_ERR_BACKEND;
  rec.backend = backend_name(backend);

  std::vector<host::GroupPlan> host_plan;
  int64_t failures = 0, offset = 0;
  rec.groups.reserve(c.group_count);
  for (int g = 0; g < c.group_count; ++g) {
    const int64_t count = c.group_sizes[g];
    GroupRecord gr{0, Where::none, count};
    if (count > 0) {
      gr.code = c.check_group(g, offset, count);
      if (gr.code) {  // the group is skipped; its problems report the argument
        if (c.info)
          for (int64_t p = offset; p < offset + count; ++p) c.info[p] = gr.code;
        failures += count;
      } else if (c.order(g) == 0) {  // zero-sized problems succeed without work
        if (c.info)
          for (int64_t p = offset; p < offset + count; ++p) c.info[p] = 0;
      } else {
        gr.where = host_choice<T>(backend, Call::routine, c.order(g));
        host_plan.push_back({g, offset, count, c.order(g), gr.where});
      }
    }
    rec.groups.push_back(gr);
    offset += count;
  }
  bool alloc_failed = false;
  failures += host::run(c, host_plan, backend == Backend::reference, alloc_failed);
  if (alloc_failed) return rec.result = BLAS_BATCHED_ERR_ALLOC;
  rec.result = failures > std::numeric_limits<int>::max() ? std::numeric_limits<int>::max()
                                                          : int(failures);
  return rec.result;
}

}  // namespace bb
