// One batched call from validated arguments to info: call-level checks, per-group checks,
// the choice of where each group runs, and the runs. Every routine and precision goes
// through run_call; a routine only describes its arguments (src/api/calls.hpp).
#pragma once
#include "../api/calls.hpp"
#include "../host/host_backend.hpp"
#include "backend.hpp"
#include "device_backend.hpp"
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

// info[0, count) = v; in parallel for the millions of problems a device call may have.
inline void fill_info(int *info, int64_t count, int v) {
#pragma omp parallel for if (count >= (int64_t(1) << 18))
  for (int64_t p = 0; p < count; ++p) info[p] = v;
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

  // Plan every group before touching anything: a call that cannot run returns untouched.
  std::vector<host::GroupPlan> host_plan;
  std::vector<DevicePlan> device_plan;
  const bool gpu = cuda::available();
  int64_t failures = 0, offset = 0;
  rec.groups.reserve(c.group_count);
  for (int g = 0; g < c.group_count; ++g) {
    const int64_t count = c.group_sizes[g];
    GroupRecord gr{0, Where::none, count};
    if (count > 0) {
      cuda::Residency res;
      int mixed = gpu ? group_residency(c, g, offset, count, res) : 0;
      if (!has_device_path<Call> && (mixed || res.device))
        return rec.result = BLAS_BATCHED_ERR_UNSUPPORTED;
      gr.code = c.check_group(g, offset, count);
      if (mixed && (!gr.code || mixed > gr.code)) gr.code = mixed;  // the lower argument number
      if (gr.code) {
        failures += count;
      } else if (c.order(g) > 0 && res.device) {
        DevicePlan d{g, offset, count, res.ordinal, Where::none, {}};
        if constexpr (has_device_path<Call>)
          for (int i = 0; i < 3; ++i) d.scan[i] = c.scan[i];
        device_plan.push_back(d);
      } else if (c.order(g) > 0) {
        gr.where = host_choice<T>(backend, Call::routine, c.order(g));
        host_plan.push_back({g, offset, count, c.order(g), gr.where});
      }
    }
    rec.groups.push_back(gr);
    offset += count;
  }
  // Skipped and empty groups: info is -k or 0 without any work.
  if (c.info) {
    offset = 0;
    for (int g = 0; g < c.group_count; ++g) {
      const int64_t count = c.group_sizes[g];
      const GroupRecord &gr = rec.groups[g];
      if (count > 0 && (gr.code || c.order(g) == 0)) fill_info(c.info + offset, count, gr.code);
      offset += count;
    }
  }
  // Device work is queued first, so host groups run while the GPU works.
  DeviceRun<T, Call> device(c, device_plan, backend);
  int device_status = device.start();
  // While the GPU works: device problems cannot fail one by one (their info is unspecified if
  // the device fails, SPEC.md section 5), and the host groups run.
  if (c.info)
    for (const DevicePlan &d : device_plan) fill_info(c.info + d.offset, d.count, 0);
  bool alloc_failed = false;
  failures += host::run(c, host_plan, backend == Backend::reference, alloc_failed);
  const int finished = device.finish(rec.device_ms);
  if (!device_status) device_status = finished;
  for (const DevicePlan &d : device_plan) rec.groups[d.group].where = d.where;
  if (device_status) return rec.result = device_status;
  if (alloc_failed) return rec.result = BLAS_BATCHED_ERR_ALLOC;
  rec.result = failures > std::numeric_limits<int>::max() ? std::numeric_limits<int>::max()
                                                          : int(failures);
  return rec.result;
}

}  // namespace bb
