// One batched call from validated arguments to info: call-level checks, per-group checks,
// the choice of where each group runs, and the runs. Every routine and precision goes
// through run_call; a routine only describes its arguments (src/api/calls.hpp).
#pragma once
#include "../api/calls.hpp"
#include "../device/device_run.hpp"
#include "../device/residency.hpp"
#include "../host/host_backend.hpp"
#include "backend.hpp"
#include "record.hpp"

#include <limits>
#include <memory>
#include <vector>

namespace bb {

// Groups validated in parallel from this many on (below, waking a team costs more).
constexpr int kParallelGroups = 4096;

// The lowest-numbered invalid call-level argument, or 0. Fills `first` (group offsets, sized
// group_count + 1 by the caller) as it sums group_sizes.
template <class Call>
int check_call(const Call &c, int64_t *first) {
  int bad = 0;
  auto fail = [&](int pos) {
    if (!bad || pos < bad) bad = pos;
  };
  if (c.layout != BLAS_ColMajor && c.layout != BLAS_RowMajor) fail(1);
  if (c.group_count < 0) fail(Call::pos_group_count);
  int64_t total = 0;
  if (c.group_count > 0) {
    if (!c.group_sizes) fail(Call::pos_group_sizes);
    else
      for (int g = 0; g < c.group_count; ++g) {
        first[g] = total;
        if (c.group_sizes[g] < 0) fail(Call::pos_group_sizes);
        else total += c.group_sizes[g];
      }
    for (const ArgRef &a : c.group_arrays())
      if (!a.ptr) fail(a.pos);
    if (total > 0 && c.addressing != Addressing::strided)  // strided: the bases, checked per group
      for (const ArgRef &a : c.pointer_arrays())
        if (!a.ptr) fail(a.pos);
  }
  if (first) first[c.group_count > 0 ? c.group_count : 0] = total;
  return bad;
}

// Where a call's pointer arrays and info live (SPEC.md section 9.2): one query per non-NULL
// pointer array and one for info. Pointer arrays in device memory switch the call to
// Addressing::device_arrays; managed memory, which the host reads, stays host memory here.
// Returns 0, -k for the first pointer array whose kind differs from the first one's, or
// BLAS_BATCHED_ERR_DEVICE when the runtime cannot tell.
template <class Call>
int locate_arrays(Call &c, device::ResidencyCache &cache, int &array_device, int &info_device) {
  array_device = info_device = -1;
  cuda::PointerInfo r;
  if (c.info) {
    if (int st = cache.query(c.info, r)) return st;
    if (r.device && !r.managed) info_device = r.ordinal;
  }
  if (c.addressing != Addressing::host_arrays) return 0;
  bool have = false, device = false;
  for (const ArgRef &a : c.pointer_arrays()) {
    if (!a.ptr) continue;
    if (int st = cache.query(a.ptr, r)) return st;
    const bool on_device = r.device && !r.managed;
    if (!have) have = true, device = on_device, array_device = on_device ? r.ordinal : -1;
    else if (on_device != device || (device && r.ordinal != array_device)) return -a.pos;
  }
  if (device) c.addressing = Addressing::device_arrays;
  return 0;
}

// Info in device memory, written on the device for the groups the device run does not
// compute: the group's -k, or 0 (nothing to compute); ranges of equal codes in one operation
// each. The device run writes its groups' (kernels, the pointer check pass, or a memset).
inline int write_group_info(cuda::Session &s, int *info, const int64_t *first, const GroupRecord *groups, int G) {
  int64_t from = 0;
  int value = 0;
  bool open = false;  // a range [from, first[g]) of `value` waits to be written
  for (int g = 0; g <= G; ++g) {
    const bool end = g == G;
    if (!end && first[g + 1] == first[g]) continue;  // no problems
    const bool skip = !end && on_device(groups[g].where);
    if (open && (end || skip || groups[g].code != value)) {
      if (cuda::info_fill(s, info + from, first[g] - from, value)) return s.status();
      open = false;
    }
    if (!end && !skip && !open) from = first[g], value = groups[g].code, open = true;
  }
  return s.status();
}

template <class T, class Call>
int run_call_unguarded(const Call &caller, CallRecord &rec) {
  Call c = caller;  // its addressing and info change below
  rec.start(Call::routine, Call::kFactorFirst ? "getrf_getri" : routine_name(Call::routine), traits<T>::name());
  // The record's arrays are the plan; sizing them is the call's only allocation per group,
  // done before anything is touched.
  const int G = c.group_count > 0 ? c.group_count : 0;
  if (rec.first.size() < std::size_t(G) + 1) rec.first.resize(std::size_t(G) + 1);
  if (rec.groups.size() < std::size_t(G)) rec.groups.resize(G);
  if (int bad = check_call(c, rec.first.data())) return rec.result = -bad;  // nothing touched
  Backend backend;
  if (!backend_from_env(backend)) {
    rec.backend = "invalid BLAS_BATCHED_BACKEND";
    return rec.result = BLAS_BATCHED_ERR_BACKEND;
  }
  rec.backend = backend_name(backend);
  rec.group_count = G;
  const int64_t *first = rec.first.data();
  GroupRecord *groups = rec.groups.data();

  // Plan every group before touching anything: a call that cannot run returns untouched.
  // Group-level arguments and residency here; each problem's pointers when it runs.
  const double t_plan = device::debug_timing() ? omp_get_wtime() : 0;
  const device::DebugFlushAtExit flush_debug{t_plan > 0};
  using DeviceAdapter = device::Adapter<Call>;
  const bool gpu = cuda::available();
  // The strided entry points have asked about their bases already, in this call's cache.
  const uint64_t call_id = !gpu ? 0 : c.residency_call ? c.residency_call : device::ResidencyCache::next_call();
  int array_device = -1, info_device = -1;
  if (gpu)
    if (int st = locate_arrays(c, device::ResidencyCache::for_call(call_id), array_device, info_device))
      return rec.result = st;  // nothing touched
  // Device pointer arrays: the host cannot read them, so the device does all the work.
  if (c.addressing == Addressing::device_arrays && (!DeviceAdapter::native || backend == Backend::reference))
    return rec.result = BLAS_BATCHED_ERR_UNSUPPORTED;
  bool unsupported = false, unknown_memory = false, any_lapack = false;
  bool host_pass = false;  // a group with problems that the host pass runs, or whose info it writes
  double host_work = 0;
  // Residency queries on helper threads go to the caller's device (CUDA's current device is
  // per thread: a helper would otherwise create a context on device 0).
  const int caller_device = gpu ? cuda::current_device() : -1;
  // The device groups, in call order, are listed by the threads that checked them (a serial
  // pass over groups that other cores just wrote costs about 8 ns a group: 0.8 ms for 100k):
  // each thread counts its block's here, and lists them once the list is sized.
  const bool parallel_groups = G >= kParallelGroups;
  thread_local std::vector<int64_t> kept_device_per_thread;
  // The caller's (inside a team, a thread_local's name means each thread's own).
  std::vector<int64_t> &device_per_thread = kept_device_per_thread;
  device_per_thread.assign(std::size_t(parallel_groups ? omp_get_max_threads() : 1) + 1, 0);
  int blocks = 1;  // the team's size: group g's block is the one holding g among `blocks`
  int lowest_ordinal = std::numeric_limits<int>::max(), highest_ordinal = -1;  // of device groups
#pragma omp parallel if (parallel_groups) \
    reduction(|| : unsupported, unknown_memory, any_lapack, host_pass) reduction(+ : host_work) \
    reduction(min : lowest_ordinal) reduction(max : highest_ordinal)
  {
    if (gpu && omp_get_thread_num() != 0) cuda::use_device(caller_device);
    // Contiguous blocks of groups per thread, so that the device groups keep call order.
    const int threads = omp_get_num_threads(), me = omp_get_thread_num();
    if (me == 0) blocks = threads;
    const int g_lo = int(int64_t(G) * me / threads), g_hi = int(int64_t(G) * (me + 1) / threads);
    int64_t mine = 0;
    // This thread's cache, found once (a thread_local of a shared library is a call away).
    device::ResidencyCache *cache = gpu ? &device::ResidencyCache::for_call(call_id) : nullptr;
    for (int g = g_lo; g < g_hi; ++g) {
      const int64_t off = first[g], count = first[g + 1] - off;
      GroupRecord gr{0, Where::none};
      if (count > 0) {
        device::Residency res;
        int mixed = 0;
        if (gpu && c.addressing == Addressing::device_arrays) {
          res = {true, array_device};
        } else if (gpu) {
          mixed = device::group_residency(c, g, off, count, *cache, res);
          if (mixed == BLAS_BATCHED_ERR_DEVICE) unknown_memory = true, mixed = 0;
        }
        // Strided addressing comes here with device data only (api/strided.hpp builds
        // pointer arrays for the host).
        if (c.addressing == Addressing::strided && !res.device && !mixed) unsupported = true;
        if (!DeviceAdapter::supported && (mixed || res.device)) unsupported = true;
        gr.code = c.check_group(g);
        // A valid group the device cannot take (an invalid one reports its -k instead).
        if (res.device && !mixed && !gr.code && !DeviceAdapter::group_ok(c, g)) unsupported = true;
        if (mixed && (!gr.code || mixed > gr.code)) gr.code = mixed;  // the lower argument number
        if (!gr.code && c.order(g) > 0) {
          if (res.device) {
            gr.where = Where::cuda_kernel, gr.ordinal = int16_t(res.ordinal);  // refined by the device run
            ++mine;
            lowest_ordinal = std::min(lowest_ordinal, res.ordinal);
            highest_ordinal = std::max(highest_ordinal, res.ordinal);
          } else {
            gr.where = host_choice<T>(backend, Call::routine, c.order(g));
            any_lapack = any_lapack || gr.where == Where::host_lapack;
            const double order = double(c.order(g));
            host_work += double(count) * order * order * order;
          }
        }
      }
      groups[g] = gr;
      host_pass = host_pass || (count > 0 && !on_device(gr.where));
    }
    device_per_thread[me + 1] = mine;
  }
  const double t_loop = t_plan > 0 ? omp_get_wtime() : 0;
  // Memory the runtime cannot classify is never guessed to be host memory.
  if (unknown_memory) return rec.result = BLAS_BATCHED_ERR_DEVICE;
  if (unsupported) return rec.result = BLAS_BATCHED_ERR_UNSUPPORTED;
  for (int b = 1; b <= blocks; ++b) device_per_thread[b] += device_per_thread[b - 1];  // where each block's go
  // Kept per thread between calls (fresh pages for a large array cost more than filling it);
  // sized before anything is touched.
  thread_local std::vector<device::DeviceGroup> kept_device_groups;
  std::vector<device::DeviceGroup> &device_groups = kept_device_groups;
  device_groups.resize(std::size_t(device_per_thread[blocks]));
  if (!device_groups.empty()) {
    // Block b by thread b of a team like the first: in practice (OpenMP does not promise it)
    // the same threads, whose caches hold those groups; a smaller team takes several blocks each.
    // (Not re-entrant on one thread: host::run never calls back into a batched call.)
#pragma omp parallel num_threads(blocks) if (blocks > 1)
    for (int b = omp_get_thread_num(); b < blocks; b += omp_get_num_threads()) {
      int64_t at = device_per_thread[b];
      const int g_hi = int(int64_t(G) * (b + 1) / blocks);
      for (int g = int(int64_t(G) * b / blocks); g < g_hi && at < device_per_thread[b + 1]; ++g)
        if (on_device(groups[g].where)) device_groups[at++] = {g, first[g], first[g + 1] - first[g], groups[g].ordinal};
    }
  }

  // info in device memory: written on the device when the whole call runs there on info's
  // device with nothing read per problem on the host; otherwise filled in host memory and
  // copied at the end (SPEC.md section 9.2).
  const bool direct = c.addressing != Addressing::host_arrays;
  int *device_info = nullptr;
  std::vector<int> info_copy;
  if (info_device >= 0) {
    bool on_device = direct && DeviceAdapter::native && backend != Backend::reference;
    // Every device group on info's device (from the checks' reduction, not a pass over them).
    on_device = on_device && (device_groups.empty() || (lowest_ordinal == highest_ordinal && lowest_ordinal == info_device));
    if (on_device) {
      device_info = c.info, c.info = nullptr;
    } else {
      info_copy.resize(std::size_t(first[G]));  // before anything is touched
      c.info = info_copy.data();
    }
  }
  // Non-blocking (SPEC.md section 9.3): nothing of the call needs the host after the
  // enqueue. Numerical codes need it unless the kernels write them in full into a device info
  // (left there uncounted; else the info channel merges them on the host, or, info NULL, the
  // return value is their only report).
  const bool codes_need_host = DeviceAdapter::kNumericInfo && !(device_info && DeviceAdapter::kZeroesInfo);
  const bool wait = cuda::blocking_calls() || !direct || (caller.info && !device_info) || codes_need_host;
  if (t_plan > 0)
    device::debug_note("blas_batched: group checks %.3f ms (parallel loop %.3f; %d groups, %zu on the device, "
                 "%ld residency queries so far, %.3f ms of them summed over threads)\n",
                 (omp_get_wtime() - t_plan) * 1e3, (t_loop - t_plan) * 1e3, G, device_groups.size(),
                 device::ResidencyCache::queries().load(), device::ResidencyCache::query_ns().load() * 1e-6);
  // Device work is queued first (the host pass over device groups' pointers is part of it),
  // so host groups run while the GPU works. Then one pass over the host problems.
  device::DeviceRun<T, Call> device(c, device_groups, backend, device_info, wait, lowest_ordinal == highest_ordinal);
  // Info's device: the device run's session there, or (no device group to run) one of its own.
  std::unique_ptr<cuda::Session> own_info_session;
  cuda::Session *info_session = nullptr;
  const double t_prepare = t_plan > 0 ? omp_get_wtime() : 0;
  int prepared = device.prepare();
  if (t_plan > 0) device::debug_note("blas_batched: device prepare %.3f ms\n", (omp_get_wtime() - t_prepare) * 1e3);
  if (!prepared && device_info) {
    info_session = device.session_on(info_device);
    if (!info_session) {
      own_info_session = std::make_unique<cuda::Session>(info_device);
      info_session = own_info_session.get();
      prepared = info_session->status();
    }
  }
  if (prepared) {  // nothing touched yet
    device.finish(rec.device_ms);
    if (device_groups.capacity() > device::kKeptGroups) std::vector<device::DeviceGroup>().swap(device_groups);
    return rec.result = prepared;
  }
  // Ordered before the device work on the same stream: its codes come after.
  int info_status = device_info ? write_group_info(*info_session, device_info, first, groups, G) : 0;
  const double t_start = t_plan > 0 ? omp_get_wtime() : 0;
  int device_status = info_status ? info_status : device.start();
  const double t_host = t_plan > 0 ? omp_get_wtime() : 0;
  bool alloc_failed = false;
  const host::GroupTable table{first, groups, G, host_work, any_lapack};
  // A call whose every problem is on the device leaves the host pass nothing to do.
  int64_t failures = host_pass ? host::run(c, table, backend == Backend::reference, alloc_failed) : 0;
  const double t_finish = t_plan > 0 ? omp_get_wtime() : 0;
  const int finished = device.finish(rec.device_ms);
  if (t_plan > 0)
    device::debug_note("blas_batched: call %.3f ms: before the device pass %.3f, device pass %.3f, host pass %.3f, "
                 "waiting for the device %.3f ms\n", (omp_get_wtime() - t_plan) * 1e3, (t_start - t_plan) * 1e3,
                 (t_host - t_start) * 1e3, (t_finish - t_host) * 1e3, (omp_get_wtime() - t_finish) * 1e3);
  if (!device_status) device_status = finished;
  if (own_info_session && wait && !info_status) info_status = own_info_session->sync();  // no device groups
  own_info_session.reset();
  if (!info_copy.empty()) {  // info in device memory, filled on the host
    cuda::Session s(info_device);
    if (!s.upload(caller.info, info_copy.data(), info_copy.size() * sizeof(int))) s.sync();
    if (!info_status) info_status = s.status();
  }
  if (!device_status) device_status = info_status;
  failures += device.failures();
  // The device run refined where each group ran (for the call record); in parallel, as the
  // groups were written by the threads that checked them.
  const int64_t ran_on_device = int64_t(device_groups.size());
#pragma omp parallel for schedule(static) if (ran_on_device >= kParallelGroups)
  for (int64_t i = 0; i < ran_on_device; ++i) groups[device_groups[i].group].where = device_groups[i].where;
  if (t_plan > 0)
    device::debug_note("blas_batched: call ends %.3f ms after the group checks began\n", (omp_get_wtime() - t_plan) * 1e3);
  if (device_groups.capacity() > device::kKeptGroups) std::vector<device::DeviceGroup>().swap(device_groups);
  if (device_status) return rec.result = device_status;
  if (alloc_failed) return rec.result = BLAS_BATCHED_ERR_ALLOC;
  rec.result = failures > std::numeric_limits<int>::max() ? std::numeric_limits<int>::max()
                                                          : int(failures);
  return rec.result;
}

// The C API's view of a call: no exception leaves it. Memory for the plan is taken before
// anything is touched, so running out of it returns BLAS_BATCHED_ERR_ALLOC with nothing
// changed; per-problem workspace failures are reported per problem (SPEC.md section 4).
template <class T, class Call>
int run_call(const Call &c) noexcept {
  CallRecord &rec = last_call_record();
  try {
    return run_call_unguarded<T>(c, rec);
  } catch (const std::bad_alloc &) {
    rec.group_count = 0;
    return rec.result = BLAS_BATCHED_ERR_ALLOC;
  }
}

// Each routine's run_call is compiled once, beside its group API entry points
// (src/api/<routine>.cpp: BB_RUN_CALL with an empty kind); the strided entry points
// (src/api/strided_*.cpp) call that copy instead of compiling their own: the driver is the
// build's heaviest host template.
template <class T>
using TrsmCall = TriangularCall<T, Routine::trsm>;
template <class T>
using TrmmCall = TriangularCall<T, Routine::trmm>;
#define BB_RUN_CALL(kind, Call, T) kind template int run_call<T, Call<T>>(const Call<T> &) noexcept;
#define BB_RUN_CALLS_EXTERN(p, PublicT, T)                                                         \
  BB_RUN_CALL(extern, GemmCall, T) BB_RUN_CALL(extern, TrsmCall, T) BB_RUN_CALL(extern, TrmmCall, T) \
  BB_RUN_CALL(extern, GetrfCall, T) BB_RUN_CALL(extern, GetriCall, T)                              \
  BB_RUN_CALL(extern, InverseCall, T) BB_RUN_CALL(extern, PotrfCall, T) BB_RUN_CALL(extern, GeqrfCall, T)
BB_FOR_EACH_PRECISION(BB_RUN_CALLS_EXTERN)
#undef BB_RUN_CALLS_EXTERN

}  // namespace bb
