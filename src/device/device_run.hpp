// The device groups of one call: the driver that stages the API's host arrays for the core.
// It knows only device groups, chunks and segments; the routine's Adapter knows the rest.
//
// Per device, the groups' problems go in chunks (at most kChunkProblems problems and
// kChunkSegments runs): a parallel pass over the chunk's pointers (NULL problems get their
// info and are skipped; evenly spaced runs are found, which need no upload), planning (each
// run's kernel configuration, its place in the launch tables), a parallel pass that writes the
// tables and the pointer arrays of unevenly spaced runs into a pinned slot, then one upload and
// one launch per configuration in use. Two slots alternate, so the host works on chunk k+1
// while chunk k is copied and computed: the call costs about max(host pass, device work).
// Routines whose kernels report numerical failures get the info channel
// (cuda/info/info_channel.hpp): the kernels of consecutive chunks write their codes into one
// area of the workspace pool (a span of up to kCodeSpan problems), gathered into a list once
// per span and merged into the caller's info when the call finishes (or the next span starts).
// Where the pool has no room, each chunk's codes and list are in its slot, merged when the
// slot is next used.
#pragma once
#include "../host/host_backend.hpp"
#include "../cuda/info/info_channel.hpp"
#include "adapter.hpp"
#include "gemm_adapter.hpp"
#include "factor_adapter.hpp"
#include "tri_adapter.hpp"

#include <omp.h>

#include <algorithm>
#include <array>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "pointer_scan.hpp"

namespace bb::device {

// Chunk bounds: the pinned memory a thread holds per device stays below
// 2 slots x (kChunkSegments runs x a run's description + kChunkProblems x operands x 8 bytes).
// Chunks grow from kFirstChunk problems (the GPU starts early) to kChunkProblems (a chunk's
// fixed costs, a few barriers and launches, stay small beside its pass over the pointers).
constexpr int64_t kFirstChunk = 16384, kChunkProblems = 262144;
constexpr int64_t kChunkSegments = 16384;
// Info list entries that come back with every chunk (or span); more (many failures) cost more
// copies.
constexpr int64_t kInfoCopied = 1024;
// Numerical codes in the workspace pool, 4 bytes a problem, for at most this many consecutive
// device problems (a span): the info channel's list is gathered and copied back once per span
// instead of once per chunk. Per chunk it cost five more operations on the stream (two
// memsets, the gathering kernel, the copy, an event: about 17 us of host time), 1.7 ms of a
// 12.4 ms r32 n = 2 getrf call of 99 chunks; and a strided call, with nothing per problem on
// the host, goes in one chunk up to a span (it took 53 chunks at r64 n = 2: 2.0 ms, now 0.5).
constexpr int64_t kCodeSpan = int64_t(1) << 24;
// BLAS_BATCHED_CODE_SPAN=<n> (read once per process): tests make calls of a few thousand
// problems take several spans, or with 0 none (the codes in the slots, as without a pool).
inline int64_t code_span() {
  static const int64_t span = [] {
    const char *e = std::getenv("BLAS_BATCHED_CODE_SPAN");
    const long long v = e ? std::atoll(e) : -1;
    return v >= 0 ? std::min<int64_t>(v, kCodeSpan) : kCodeSpan;  // list positions stay int32
  }();
  return span;
}
// Codes read back per copy when a span has more than kInfoCopied failures.
constexpr int64_t kCodesPiece = int64_t(1) << 18;
// A thread keeps its device pass's host buffers between calls for up to this many device
// groups per call (about 12 MB; 2.6 MB more after a gemm call of one-problem groups, its
// single_runs); larger calls free theirs.
constexpr std::size_t kKeptGroups = 262144;
// Below this many problems a pass stays on the calling thread. One thread reads pointers at
// about 10 GB/s, a team at about 90 plus its wake-up: r64 n = 64 (7629 problems) spent 31 us
// scanning on one thread (H200 host, 2026-11-28).
constexpr int64_t kParallelProblems = 4096;
// From this many device groups a call plans them over a thread team whatever its arrays: a
// group costs about 0.2 us on one thread (its segment described, planned and placed: 217013
// one-problem groups on device pointer arrays, 47 ms; s57), a team's wake-up tens of us.
constexpr int64_t kParallelDeviceGroups = 256;
// Strided calls and device pointer arrays: a host info's zeros are written by a thread team
// from this many problems.
constexpr int64_t kParallelInfo = int64_t(1) << 20;

// BLAS_BATCHED_DEBUG=time: each call prints where its device pass spent its time.
inline bool debug_timing() {
  const char *e = std::getenv("BLAS_BATCHED_DEBUG");
  return e && std::strstr(e, "time");
}
// Its lines are kept until the call ends (printing between the phases would time the printing).
inline std::string &debug_lines() {
  thread_local std::string lines;
  return lines;
}
__attribute__((format(printf, 1, 2))) inline void debug_note(const char *format, ...) {
  char line[512];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  debug_lines() += line;
}
inline void debug_flush() {
  std::fputs(debug_lines().c_str(), stderr);
  debug_lines().clear();
}
// Prints a call's lines however it returns.
struct DebugFlushAtExit {
  bool on;
  ~DebugFlushAtExit() {
    if (on) debug_flush();
  }
};

// A valid, device-resident group with something to compute.
struct DeviceGroup {
  int group;
  int64_t offset, count;
  int ordinal;
  Where where = Where::none;
};

// A: the routine's adapter (a test may bring its own).
template <class T, class Call, class A = Adapter<Call>>
class DeviceRun {

 public:
  // device_info: the caller's info when it is device memory (c.info is then NULL or a host
  // copy); the run writes the codes it finds on the device there. wait = false: finish()
  // does not wait for the streams (a non-blocking call, SPEC.md section 9.3).
  // one_device: every group is on the same device (the driver knows it from its pass).
  DeviceRun(const Call &c, std::vector<DeviceGroup> &groups, Backend backend, int *device_info = nullptr,
            bool wait = true, bool one_device = false)
      : c_(c), groups_(groups), backend_(backend), device_info_(device_info), wait_(wait), one_device_(one_device) {}

  // Everything the device groups need from host memory and the CUDA runtime before anything is
  // touched: sessions, group starts, chunk buffers. A failure here (ERR_ALLOC, ERR_DEVICE)
  // leaves the whole call untouched; nothing after it allocates, except the staging of
  // r128/c128 groups. No exception leaves it.
  int prepare() {
    prepared_ = true;
    try {
      return prepare_devices();
    } catch (const std::bad_alloc &) {
      return BLAS_BATCHED_ERR_ALLOC;
    }
  }

  // Enqueues every device group (the host pass over their pointers included).
  int start() {
    if (!prepared_)
      if (int st = prepare()) return st;
    try {
      if constexpr (A::supported)
        for (DeviceWork &w : work_)
          if (int st = run_device(w)) return st;
      return 0;
    } catch (const std::bad_alloc &) {  // r128/c128 staging (SPEC.md section 5)
      return BLAS_BATCHED_ERR_ALLOC;
    }
  }

  // Waits for every device; the first failure wins. device_ms sums the devices' times.
  int finish(double &device_ms) {
    int status = 0;
    device_ms = -1;
    for (DeviceWork &w : work_) {
      if (!w.session) continue;  // its allocation failed in prepare
      cuda::Session &s = *w.session;
      double ms = -1;
      int st = s.finish(ms, wait_);
      if (!st) st = s.activate();  // the slots' memory is on this device
      for (int slot = 0; slot < cuda::Session::kSlots && !st; ++slot) st = merge_info(s, w.b->returned[slot], slot);
      if (!st && w.b && w.b->ch.span_pending) st = merge_span(s, w.b->ch);
      if (w.b) w.b->ch.span_pending = false;
      s.pool_free(w.span), w.span = nullptr;
      if (!status) status = st;
      if (ms >= 0) device_ms = (device_ms < 0 ? 0 : device_ms) + ms;
    }
    // Last in, first out: each session restores the device current before it, so the
    // caller ends on its own device.
    while (!work_.empty()) {
      if (Buffers *b = work_.back().b.get()) {
        for (Returned &r : b->returned) r.pending = false;  // lists of a failed call stay unread
        // Kept for the next call unless a huge call made them large (memory held per thread).
        if (b->mine.capacity() <= kKeptGroups) buffer_pool().push_back(std::move(work_.back().b));  // capacity reserved
      }
      work_.pop_back();
    }
    return status;
  }

  // The session of a device this run works on (prepared), or null.
  cuda::Session *session_on(int ordinal) {
    for (DeviceWork &w : work_)
      if (w.ordinal == ordinal && w.session && !w.staged) return w.session.get();
    return nullptr;
  }

  // Device problems with non-zero info: NULL pointers (the pointer pass) and numerical
  // failures (the info channel; complete after finish).
  int64_t failures() const { return failures_; }

 private:
  struct DeviceWork;

  int prepare_devices() {
    if constexpr (!A::supported) {
      return groups_.empty() ? 0 : BLAS_BATCHED_ERR_UNSUPPORTED;
    } else {
      // One device: its first group is all this loop needs (every other group would be found
      // already seen, by a serial read of them all: 100k groups cost a few tenths of a ms).
      for (std::size_t i = 0; i < (one_device_ ? std::min<std::size_t>(groups_.size(), 1) : groups_.size()); ++i) {
        const int dev = groups_[i].ordinal;
        bool seen = false;
        for (const DeviceWork &w : work_) seen = seen || w.ordinal == dev;
        if (seen) continue;
        work_.emplace_back();
        DeviceWork &w = work_.back();
        w.ordinal = dev;
        auto &pool = buffer_pool();
        pool.reserve(work_.size());  // finish() gives the buffers back without allocating
        if (pool.empty()) {
          w.b = std::make_unique<Buffers>();
        } else {
          w.b = std::move(pool.back());
          pool.pop_back();
        }
        for (Returned &r : w.b->returned) r.pending = false;
        const double t0 = debug_timing() ? omp_get_wtime() : 0;
        w.session = std::make_unique<cuda::Session>(dev);
        if (w.session->status()) return w.session->status();
        const double t1 = t0 > 0 ? omp_get_wtime() : 0;
        w.staged = !A::native || backend_ == Backend::reference;
        // Where each group starts among this device's problems: a chunk is a range of them,
        // and its segments are the groups that range meets, found by search and filled in
        // parallel (a call of one problem per group has as many segments as problems).
        std::vector<int64_t> &start = w.b->start;
        if (one_device_) {
          mine_all(w.b->mine, start);
        } else {
          w.b->mine.clear();
          for (std::size_t j = i; j < groups_.size(); ++j)
            if (groups_[j].ordinal == dev) w.b->mine.push_back(int(j));
          start.assign(w.b->mine.size() + 1, 0);
          for (std::size_t k = 0; k < w.b->mine.size(); ++k) start[k + 1] = start[k] + groups_[w.b->mine[k]].count;
        }
        if (t0 > 0)
          debug_note("blas_batched: device %d: session %.3f ms, group list %.3f ms (%zu groups%s)\n", dev,
                       (t1 - t0) * 1e3, (omp_get_wtime() - t1) * 1e3, w.b->mine.size(), one_device_ ? ", one device" : "");
        if (w.staged) continue;
        const int n = int(w.b->mine.size());
        // Sized here: nothing inside the thread team may allocate (an exception there would
        // end the program).
        const std::size_t most = std::size_t(std::min<int64_t>(kChunkSegments, n));
        Chunk &ch = w.b->ch;
        ch.segs.resize(most), ch.starts.resize(most + 1), ch.desc.resize(most);
        // Without host pointer arrays the host has nothing per problem to do but write a host
        // info's zeros; a thread team pays its wake-up only when there are many. Groups cost the
        // host work whatever the arrays (kParallelDeviceGroups).
        const bool host_pass = c_.addressing == Addressing::host_arrays || (c_.info && start[n] >= kParallelInfo);
        w.team = (host_pass && start[n] >= kParallelProblems) || n >= kParallelDeviceGroups ? omp_get_max_threads() : 1;
        ch.tally.assign(std::size_t(w.team) + 1, Tally{});
        // The span's codes and list in the pool; none to be had leaves them to the slots.
        ch.span_cap = 0, ch.span_pending = false;
        if (collect() && code_span() > 0 && start[n] > 0) {
          ch.span_cap = std::min(start[n], code_span());
          cuda::ArenaLayout at;
          const std::size_t list_at = (at.take(std::size_t(ch.span_cap) * sizeof(int)), at.take(cuda::info_list_bytes(kInfoCopied)));
          w.span = static_cast<char *>(w.session->pool_alloc(at.bytes));
          ch.span_codes = reinterpret_cast<int *>(w.span), ch.span_list = w.span + list_at;
          if (!w.span) ch.span_cap = 0;
        }
        if (collect() && !ch.span_cap)
          for (Returned &r : w.b->returned) r.starts.reserve(most + 1), r.firsts.reserve(most);
        if (device_arrays()) ch.checks.resize(most);
        // Captured into a graph, a call must need no upload (SPEC.md section 9.3): beyond this
        // many groups a chunk may need tables; refused before anything is enqueued.
        ch.capturing = !wait_ && w.session->capturing();
        if (ch.capturing && n > std::min<int>(A::kInline, cuda::kInlineCheckRuns)) return BLAS_BATCHED_ERR_UNSUPPORTED;
        ch.single = kSingleProblems && start[n] == n && c_.addressing == Addressing::host_arrays && !collect() &&
                    !ch.capturing;
        if (ch.single) ch.single_runs.resize(most), ch.single_config.resize(most), ch.single_units.resize(most);
      }
      return 0;
    }
  }

  // Every group is this device's: mine = 0, 1, ..., and start their prefix sums, by a thread
  // team from kParallelProblems groups on (a group's entry costs about a problem's pointer pass;
  // serially, a million groups cost milliseconds).
  void mine_all(std::vector<int> &mine, std::vector<int64_t> &start) {
    const int n = int(groups_.size());
    mine.resize(std::size_t(n)), start.resize(std::size_t(n) + 1);  // only growth is initialized
    std::vector<int64_t> &partial = partial_sums();
    const bool parallel = n >= kParallelProblems;
    partial.assign(std::size_t(parallel ? omp_get_max_threads() : 1) + 1, 0);
    start[0] = 0;
#pragma omp parallel if (parallel)
    {
      const int threads = omp_get_num_threads(), me = omp_get_thread_num();
      const int lo = int(int64_t(n) * me / threads), hi = int(int64_t(n) * (me + 1) / threads);
      int64_t sum = 0;
      for (int k = lo; k < hi; ++k) mine[k] = k, sum += groups_[k].count;
      partial[me + 1] = sum;
#pragma omp barrier
      int64_t at = 0;
      for (int t = 1; t <= me; ++t) at += partial[t];
      for (int k = lo; k < hi; ++k) at += groups_[k].count, start[k + 1] = at;
    }
  }
  static std::vector<int64_t> &partial_sums() {
    thread_local std::vector<int64_t> v;
    return v;
  }

  // What a chunk's info list needs once it is back: where it lies in the slot, and how the
  // chunk's problems map to the call's (segment starts in the chunk, their first problems).
  struct Returned {
    bool pending = false;
    std::size_t list_at = 0;
    int64_t problems = 0;
    std::vector<int64_t> starts, firsts;
  };
  using DeviceReturns = std::array<Returned, cuda::Session::kSlots>;

  int run_device(DeviceWork &w) {
    cuda::Session &s = *w.session;
    if (s.activate()) return s.status();
    const std::vector<int> &mine = w.b->mine;
    if (w.staged) {
      for (int i : mine) {
        DeviceGroup &dg = groups_[i];
        dg.where = Where::cuda_staged;
        if (int st = A::staged(s, c_, dg.group, dg.offset, dg.count, backend_, failures_)) return st;
      }
      return 0;
    }
    A::start_call();
    // Chunks of problems over the groups of this device, in call order, all in one thread
    // team: the threads meet at barriers between the steps of a chunk instead of being woken
    // for each (a wake-up costs tens of microseconds, a chunk's device work about as much).
    const std::vector<int64_t> &start = w.b->start;
    const int64_t total = start.back();
    Chunk &ch = w.b->ch;
    DeviceReturns &returned = w.b->returned;
    const int team = w.team;
    int64_t pos = 0;   // the next chunk's first problem, among this device's
    int first_group = 0;  // the group (index into mine) that holds it
    // Nothing to read on the host per problem: no pass to overlap, so full chunks at once; and
    // a strided call holds nothing per problem in its slot (batch_count is an int, as cuBLAS's;
    // its codes, if any, are in the span), so it goes in one chunk (up to a span): each further
    // one cost a gap on the GPU (measured r64 n = 2: 40 chunks, the kernels' span at 45 % of
    // copy bandwidth).
    const bool whole = c_.addressing == Addressing::strided;
    // Host arrays: a first chunk of kFirstChunk problems lets the GPU start early, but where the
    // rest is less than another such chunk, a second chunk costs more (a launch, or a cuBLAS
    // call's host time: 46 us for r64 n = 32's two) than scanning it first (about 8 us).
    const int64_t first_chunk = total <= 2 * kFirstChunk ? total : kFirstChunk;
    int64_t limit = c_.addressing == Addressing::host_arrays ? first_chunk : whole ? total : kChunkProblems;
    // Codes in a span: a chunk never crosses one (nor, without a span, is a strided chunk of
    // codes in its slot larger than others).
    const int64_t most_problems = ch.span_cap ? ch.span_cap : collect() ? kChunkProblems : total;
    limit = std::min(limit, most_problems);
    ch.mine = &mine, ch.start = &start, ch.span_begin = ch.span_end = 0, ch.device_problems = total;
    if (ch.span_cap && cuda::info_clear(s, ch.span_codes, ch.span_cap, ch.span_list)) return s.status();
    int slot = 0, status = 0;
    bool more = true;
    const bool debug = debug_ = debug_timing();
    t_upload_ = t_kernels_ = t_vendor_ = uploaded_ = 0;  // this device's
    double t_start = debug ? omp_get_wtime() : 0, t_form = 0, t_scan = 0, t_plan = 0, t_fill = 0, t_launch = 0;
    int chunks = 0;
    // CUDA calls stay on this thread (the master): the current device and the caller's stream
    // are per thread.
#pragma omp parallel num_threads(team) if (team > 1)
    for (;;) {
#pragma omp single
      {
        more = pos < total && !status;
        if (more) {
          // Problems [pos, end): at most `limit` of them, in at most kChunkSegments groups.
          int64_t end = std::min(pos + limit, total);
          int last_group = int(std::upper_bound(start.begin(), start.end(), end - 1) - start.begin()) - 1;
          if (last_group - first_group + 1 > kChunkSegments)
            last_group = first_group + int(kChunkSegments) - 1, end = start[last_group + 1];
          ch.first_group = first_group, ch.nseg = last_group - first_group + 1;
          ch.begin = pos, ch.problems = end - pos;
          ch.starts[ch.nseg] = ch.problems;
          pos = end, first_group = end == start[last_group + 1] ? last_group + 1 : last_group;
          limit = std::max(limit, std::min({limit * chunk_growth(first_group, mine), kChunkProblems, most_problems}));
          // Few segments: the threads split problems (a segment may be shared), so its base
          // and steps are found first; many: each thread takes whole segments.
          ch.by_segments = ch.nseg >= 8 * int64_t(omp_get_num_threads());
        }
      }  // barrier: every thread sees the chunk
      if (!more) break;
      double tf = debug ? omp_get_wtime() : 0;
      if constexpr (kSingleProblems)
        if (ch.single) single_pass(ch, mine);
      if (!ch.single) form_chunk(ch, mine, start);
      double t0 = debug ? omp_get_wtime() : 0;
      if (!ch.single) scan_chunk(ch);
      double t1 = debug ? omp_get_wtime() : 0;
      if (!ch.single) plan_chunk(ch);
#pragma omp master
      status = place_chunk(s, ch, slot, returned[slot]);
#pragma omp barrier
      if (status) break;  // the same value for every thread after the barrier
      double t2 = debug ? omp_get_wtime() : 0;
      if constexpr (kSingleProblems)
        if (ch.single) fill_single(ch);
      if (!ch.single) fill_chunk(ch);
      double t3 = debug ? omp_get_wtime() : 0;
#pragma omp master
      {
        status = launch_chunk(s, ch, slot, returned[slot]);
        slot ^= 1;
        if (debug)
          t_form += t0 - tf, t_scan += t1 - t0, t_plan += t2 - t1, t_fill += t3 - t2,
              t_launch += omp_get_wtime() - t3, ++chunks;
      }
#pragma omp barrier
      // Host memory the GPU never reads: a host info's zeros are written while the chunk runs.
      if (late_zeros() && c_.info) {
        for_my_share(ch, [&](std::size_t i, int64_t a, int64_t b) { zero_info(ch.segs[i], a, b); });
        // The next chunk's `single` rewrites the chunk (nseg, starts) these shares are read from,
        // and a single has no barrier on entry (helper 104: a strided call of more than a span
        // could lose zeros of its first chunk).
#pragma omp barrier
      }
      if (status) break;
    }
    // A device info that the kernels (and for device pointer arrays the check pass) wrote in
    // full: one count per stretch of consecutive device problems gives the return value,
    // instead of an info list per chunk. A non-blocking call leaves the codes uncounted.
    if (!status && count_at_end() && wait_) {
      const std::size_t most = mine.size();
      char *host = s.slot_host(slot, std::max<std::size_t>(most, 1) * sizeof(uint64_t));
      if (!host) return s.status();
      auto *count_device = reinterpret_cast<uint64_t *>(s.slot_device(slot));
      auto *count_host = reinterpret_cast<uint64_t *>(host);
      int stretches = 0;
      for (std::size_t k = 0; k < mine.size();) {
        const int64_t from = groups_[mine[k]].offset;
        int64_t to = from + groups_[mine[k]].count;
        for (++k; k < mine.size() && groups_[mine[k]].offset == to; ++k) to += groups_[mine[k]].count;
        if (cuda::info_count(s, device_info_ + from, to - from, count_device + stretches, count_host + stretches))
          return s.status();
        ++stretches;
      }
      if (s.slot_release(slot) || s.slot_wait(slot)) return s.status();
      for (int k = 0; k < stretches; ++k) failures_ += int64_t(count_host[k]);
    }
    if (debug)
      debug_note("blas_batched: device pass %.3f ms: %d chunks%s, form %.3f, scan %.3f, plan %.3f, fill %.3f, "
                 "launch %.3f ms (upload %.3f ms of %.2f MB, launches %.3f ms, vendor library %.3f ms)\n",
                 (omp_get_wtime() - t_start) * 1e3, chunks,
                 ch.single ? " of one-problem groups (form: form, scan, plan)" : "", t_form * 1e3, t_scan * 1e3,
                 t_plan * 1e3, t_fill * 1e3, t_launch * 1e3, t_upload_ * 1e3, uploaded_ / 1e6, t_kernels_ * 1e3, t_vendor_ * 1e3);
    return status;
  }

  // How much larger the next chunk may be than this one: its pass on the host must end before
  // this chunk's device work does. A problem's pointers (8 bytes an operand) go through a
  // chunk's host pass at about 23 GB/s (90 for the scan alone, info, barriers and launches
  // besides), its matrices (order^2 elements an operand) through the device at about 3.9 TB/s:
  // the device's part against the host's is order^2 x element / 8 / 170 (r32 n = 32: 3x, so
  // 61,035 problems go in two chunks instead of three; r64 n = 16: 1.5x, where the chunks
  // double as before: a 6x second chunk left the GPU waiting for it).
  int64_t chunk_growth(int first_group, const std::vector<int> &mine) const {
    if (first_group >= int(mine.size())) return 2;
    const int64_t order = c_.order(groups_[mine[first_group]].group);
    const int64_t ratio = order * order * int64_t(sizeof(T)) / (8 * 170);
    return std::max<int64_t>(2, std::min<int64_t>(ratio, 64));
  }

  // Per thread: what its block of segments holds (runs per configuration, their units, pointer
  // block problems), and after the prefix over threads, where its block starts.
  struct Tally {
    int64_t count[A::kConfigs] = {}, units[A::kConfigs] = {}, block = 0, skipped = 0;
    int64_t checked = 0;       // problems of vendor runs on device pointer arrays
    int64_t vendor = 0;        // vendor runs
    std::size_t scratch = 0;   // the largest scratch one of their skipped problems needs
    uint32_t flags_lacking[A::kConfigs] = {};  // A::run_flags bits some run of the configuration lacks
  };

  // One chunk: its segments, where each starts among the chunk's problems, and its plan.
  struct Chunk {
    using Run = typename A::Run;
    std::vector<Segment> segs;    // the first nseg are this chunk's
    std::vector<typename A::Group> desc;  // segment i's group as the core takes it
    std::vector<int64_t> starts;  // segment i is problems [starts[i], starts[i + 1]) of the chunk
    int64_t nseg = 0, first_group = 0, begin = 0;  // begin: its first problem among the device's
    int64_t problems = 0, block_problems = 0;
    bool by_segments = false;
    bool capturing = false;  // the call is being captured into a graph
    std::vector<Tally> tally;  // per thread, then (after place_chunk) their starting offsets
    int64_t count[A::kConfigs] = {}, units[A::kConfigs] = {};
    std::size_t table_at[A::kConfigs] = {}, bytes = 0;  // bytes: what is uploaded
    std::size_t blocks_at[A::kConfigs] = {};  // with a table: each thread block's first run
    std::size_t codes_at = 0, list_at = 0, slot_bytes = 0;  // the info channel's areas (no span)
    // The span: codes of the device's problems [span_begin, span_begin + span_cap) in the pool,
    // those up to span_end written by chunks so far; its list's length and head (pool), back in
    // the host memory of slot span_slot once gathered (span_pending).
    int *span_codes = nullptr;
    char *span_list = nullptr;
    int64_t span_cap = 0, span_begin = 0, span_end = 0;
    int64_t device_problems = 0;  // the device's in this call
    int span_slot = 0;
    std::size_t span_at = 0;  // where in that slot's host memory
    bool span_pending = false;
    const std::vector<int> *mine = nullptr;  // the run's, to map a device problem to its group
    const std::vector<int64_t> *start = nullptr;
    int *codes = nullptr;  // where this chunk's kernels write their codes
    std::size_t checks_at = 0;  // device pointer arrays: the check pass's runs, when a table
    std::size_t checked_at = 0, scratch_at = 0;  // their checked copy for vendor runs
    int64_t checked_problems = 0;
    int64_t vendor_runs = 0;
    std::vector<cuda::PointerCheckRun> checks;  // segment i's, filled before the upload
    Run inline_runs[A::kConfigs][A::kInline];
    uint32_t common_flags[A::kConfigs] = {};  // the A::run_flags bits every run of configuration c has
    // Bit c: configuration c's runs go into the chunk's merged launch (table in device memory
    // whatever their count). Decided with the counts (place_chunk).
    uint32_t merged = 0;
    char *host = nullptr, *device = nullptr;
    // Every group of one problem, pointer arrays in host memory, no info channel: each group's
    // run, configuration and units come from one pass (single_pass), without a Segment and a
    // Group kept per group (segs and desc are then unused).
    bool single = false;
    std::vector<Run> single_runs;
    std::vector<int> single_config;
    std::vector<int64_t> single_units;
  };

  // Segment j is the part of group mine[first_group + j] inside the chunk, with the group's
  // description (a group over several chunks is described in each: memory stays bounded by
  // the chunk, not the call's group count); every thread fills some (a barrier follows).
  void form_chunk(Chunk &ch, const std::vector<int> &mine, const std::vector<int64_t> &start) {
    const int64_t end = ch.begin + ch.problems;
#pragma omp for schedule(static)
    for (int64_t j = 0; j < ch.nseg; ++j) {
      const int64_t i = ch.first_group + j;
      const int64_t lo = std::max(start[i], ch.begin), hi = std::min(start[i + 1], end);
      Segment &sg = ch.segs[j];
      sg = Segment{};
      DeviceGroup &dg = groups_[mine[i]];
      sg.group = mine[i], sg.first = dg.offset + (lo - start[i]), sg.count = hi - lo;
      sg.chunk_pos = ch.starts[j] = lo - ch.begin;
      ch.desc[j] = A::describe(c_, dg.group, dg.count, backend_);
      // The group's first segment says where it runs; a later run that takes the library's
      // kernels instead of cuBLAS (plan_chunk) changes that for the whole group.
      if (lo == start[i]) dg.where = A::where(ch.desc[j]);
      start_segment(ch.desc[j], sg);
      // Many segments: each is scanned here by the thread that just wrote it (scanned in
      // another pass, by other threads, each segment's lines moved between cores: 1 ms of
      // 5.6 for 100k one-problem groups).
      if (ch.by_segments) scan_range(ch.desc[j], sg, 0, sg.count, false);
    }
  }

  // A segment's base addresses and steps, from its first two problems (or the strided call's
  // bases; nothing for pointer arrays in device memory, which the host never reads).
  void start_segment(const typename A::Group &d, Segment &sg) const {
    if (c_.addressing != Addressing::host_arrays) {
      const bool strided = c_.addressing == Addressing::strided;
      sg.strided = strided, sg.device_array = !strided, sg.skipped = 0;
      sg.address_bits = 0;  // device arrays: the flat kernels check each problem's alignment
      for (int o = 0; o < A::kOperands; ++o) {
        sg.base[o] = nullptr, sg.stride[o] = 0;
        if (!strided || !(d.used >> o & 1u)) continue;
        sg.base[o] = c_.strided_address(d.arg_of[o], sg.first);
        sg.stride[o] = c_.strided[d.arg_of[o]].stride_bytes;
        sg.address_bits |= reinterpret_cast<std::uintptr_t>(sg.base[o]) | std::uintptr_t(sg.stride[o]);
      }
      return;
    }
    for (int o = 0; o < A::kOperands; ++o) {
      sg.base[o] = nullptr, sg.stride[o] = 0;
      if (!(d.used >> o & 1u)) continue;
      sg.base[o] = d.arrays[o][sg.first];
      if (sg.count > 1)
        sg.stride[o] = int64_t(reinterpret_cast<std::uintptr_t>(d.arrays[o][sg.first + 1]) -
                               reinterpret_cast<std::uintptr_t>(sg.base[o]));
    }
    sg.strided = true, sg.address_bits = 0, sg.skipped = 0;
  }

  // The pointer pass over problems [lo, hi) of a segment (its numbering): whether every used
  // operand is evenly spaced, the OR of the addresses, and the problems with a NULL pointer,
  // which get info -k; the others get info 0. One loop over the operands' arrays (vectorized,
  // pointer_scan.cpp); only a run holding a NULL pointer takes the per-problem path. `shared`:
  // other threads scan other ranges of the segment, so the results are merged atomically.
  void scan_range(const typename A::Group &d, Segment &sg, int64_t lo, int64_t hi, bool shared) const {
    if (c_.addressing != Addressing::host_arrays) {  // no pointers to read on the host
      if (!late_zeros()) zero_info(sg, lo, hi);
      return;
    }
    bool strided = true;
    std::uintptr_t bits = 0;
    static_assert(A::kOperands <= kScanArraysMax);
    const std::uintptr_t *q[A::kOperands] = {};
    std::uintptr_t base[A::kOperands] = {}, step[A::kOperands] = {}, off[A::kOperands] = {}, ors[A::kOperands] = {};
    int which[A::kOperands], n = 0;
    for (int o = 0; o < A::kOperands; ++o) {
      if (!(d.needed >> o & 1u)) continue;
      which[n] = o, q[n] = reinterpret_cast<const std::uintptr_t *>(d.arrays[o] + sg.first);
      base[n] = reinterpret_cast<std::uintptr_t>(sg.base[o]), step[n] = std::uintptr_t(sg.stride[o]), ++n;
    }
    const bool any_null = hi - lo == 1 ? scan_one_problem(n, q, base, step, lo, off, ors)
                                       : scan_pointers(n, q, base, step, lo, hi, off, ors);
    for (int j = 0; j < n; ++j)
      if (d.used >> which[j] & 1u) strided = strided && off[j] == 0, bits |= ors[j];
    int64_t skipped = 0;
    int *info = c_.info ? c_.info + sg.first : nullptr;
    if (!any_null) {
      if (info) std::memset(info + lo, 0, std::size_t(hi - lo) * sizeof(int));
    } else {
      const int g = groups_[sg.group].group;
      for (int64_t i = lo; i < hi; ++i) {
        // The host rule for pointers; nothing else (getri's pivots are device memory here: the
        // kernels check them).
        const int err = null_pointer_error(c_, c_.needed_pointers(g), sg.first + i);
        if (info) info[i] = err;
        skipped += err != 0;
      }
    }
    if (!shared) {
      sg.strided = strided, sg.address_bits = bits, sg.skipped = skipped;
      return;
    }
    if (!strided) __atomic_store_n(&sg.strided, false, __ATOMIC_RELAXED);
    __atomic_fetch_or(&sg.address_bits, bits, __ATOMIC_RELAXED);
    if (skipped) __atomic_fetch_add(&sg.skipped, skipped, __ATOMIC_RELAXED);
  }

  // Each thread takes an equal share of the chunk's problems, whatever the segments.
  template <class F>
  void for_my_share(const Chunk &ch, F f) {
    const int64_t w = omp_get_num_threads(), t = omp_get_thread_num();
    const int64_t lo = ch.problems * t / w, hi = ch.problems * (t + 1) / w;
    if (lo >= hi) return;
    const auto starts_end = ch.starts.begin() + ch.nseg + 1;
    std::size_t i = std::upper_bound(ch.starts.begin(), starts_end, lo) - ch.starts.begin() - 1;
    for (; int64_t(i) < ch.nseg && ch.starts[i] < hi; ++i) {
      const int64_t a = std::max(lo, ch.starts[i]) - ch.starts[i], b = std::min(hi, ch.starts[i + 1]) - ch.starts[i];
      if (a < b) f(i, a, b);
    }
  }
  // The block of segments thread t plans: [lo, hi).
  static void my_segments(const Chunk &ch, int64_t &lo, int64_t &hi) {
    const int64_t w = omp_get_num_threads(), t = omp_get_thread_num(), n = ch.nseg;
    lo = n * t / w, hi = n * (t + 1) / w;
  }

  // Few segments: the threads split their problems (many: form_chunk scanned them).
  void scan_chunk(Chunk &ch) {
    if (ch.by_segments) return;
    for_my_share(ch, [&](std::size_t i, int64_t a, int64_t b) { scan_range(ch.desc[i], ch.segs[i], a, b, true); });
#pragma omp barrier
  }

  // Each thread, over its block of segments: the form of each run (evenly spaced, or a pointer
  // array in the block), its configuration and units, tallied per configuration.
  void plan_chunk(Chunk &ch) {
    int64_t lo, hi;
    my_segments(ch, lo, hi);
    Tally &t = ch.tally[omp_get_thread_num() + 1];
    t = Tally{};
    for (int64_t i = lo; i < hi; ++i) {
      Segment &sg = ch.segs[i];
      const typename A::Group &d = ch.desc[i];
      t.skipped += sg.skipped;
      sg.ptr_index = A::strided_ok(d, sg) || sg.device_array ? -1 : 0;
      if (sg.ptr_index == 0) t.block += sg.count;
      sg.chunk_runs = ch.nseg;  // before make_run, whose choices (vendor or not) read them
      sg.capturing = ch.capturing;
      const typename A::Run r = A::make_run(d, sg, ChunkPlace{});
      sg.config = A::plan_config(d, sg, r);
      // The call record says where the group ran: the library's kernels where a run of a group
      // meant for cuBLAS took a kernel configuration (gemm: NULL problems, negative strides).
      if (sg.config >= 0 && A::where(d) == Where::cuda_vendor) groups_[sg.group].where = Where::cuda_kernel;
      if (sg.config == kRunVendor && sg.device_array) {  // the vendor library gets a checked copy
        sg.checked_index = 0, t.checked += sg.count;
        t.scratch = std::max(t.scratch, A::scratch_bytes(d));
      }
      if (sg.config == kRunVendor) {
        ++t.vendor;
        continue;
      }
      sg.units = A::units(r, sg.config);
      if (sg.units == 0) {
        sg.config = kRunNothing;
        continue;
      }
      t.count[sg.config]++, t.units[sg.config] += sg.units;
      t.flags_lacking[sg.config] |= ~A::run_flags(r);
    }
#pragma omp barrier
  }

  // Groups of one problem (Chunk::single): each thread, over its block of the chunk's groups,
  // does what form_chunk, scan_range and plan_chunk do for a segment, its Segment and Group on
  // the stack, and keeps the run (placed already: one problem is evenly spaced, ChunkPlace
  // plays no part), its configuration and units. A problem with a NULL pointer gets its info
  // and no run. 100k one-problem gemm groups spent 1.4 ms of 16 threads in form, scan and plan
  // (H200 host, 2026-11-29).
  void single_pass(Chunk &ch, const std::vector<int> &mine) {
    int64_t lo, hi;
    my_segments(ch, lo, hi);
    Tally &t = ch.tally[omp_get_thread_num() + 1];
    t = Tally{};
    for (int64_t j = lo; j < hi; ++j) {
      DeviceGroup &dg = groups_[mine[ch.first_group + j]];
      Segment sg;
      sg.group = mine[ch.first_group + j], sg.first = dg.offset, sg.count = 1;
      sg.chunk_pos = j;
      const typename A::Group d = A::describe(c_, dg.group, 1, backend_);
      Where where = A::where(d);
      start_segment(d, sg);
      scan_range(d, sg, 0, 1, false);
      sg.chunk_runs = ch.nseg;
      int config = kRunNothing;
      int64_t units = 0;
      typename A::Run &r = ch.single_runs[j];
      if (sg.skipped) {
        t.skipped += 1;
        if (where == Where::cuda_vendor) where = Where::cuda_kernel;  // as plan_chunk records it
      } else {
        r = A::make_run(d, sg, ChunkPlace{});
        config = A::plan_config(d, sg, r);
        if (config >= 0 && where == Where::cuda_vendor) where = Where::cuda_kernel;
        if (config == kRunVendor) {
          ++t.vendor;
        } else if ((units = A::units(r, config)) == 0) {
          config = kRunNothing;
        } else {
          t.count[config]++, t.units[config] += units;
          t.flags_lacking[config] |= ~A::run_flags(r);
        }
      }
      dg.where = where;
      ch.single_config[j] = config, ch.single_units[j] = units;
    }
#pragma omp barrier
  }

  // Serial: the totals, each thread's starting offsets (tally[t] becomes the sum of threads
  // before t), the slot, and the place of each configuration's table in it.
  int place_chunk(cuda::Session &s, Chunk &ch, int slot, Returned &returned) {
    using Run = typename A::Run;
    Tally sum;
    const int w = omp_get_num_threads();
    for (int t = 1; t <= w; ++t) {
      Tally here = ch.tally[t];
      ch.tally[t] = sum;
      for (int c = 0; c < A::kConfigs; ++c)
        sum.count[c] += here.count[c], sum.units[c] += here.units[c], sum.flags_lacking[c] |= here.flags_lacking[c];
      sum.block += here.block, sum.skipped += here.skipped, sum.checked += here.checked, sum.vendor += here.vendor;
      sum.scratch = std::max(sum.scratch, here.scratch);
    }
    ch.checked_problems = sum.checked;
    ch.vendor_runs = sum.vendor;
    failures_ += sum.skipped;
    ch.block_problems = sum.block;
    std::copy(sum.count, sum.count + A::kConfigs, ch.count);
    std::copy(sum.units, sum.units + A::kConfigs, ch.units);
    for (int c = 0; c < A::kConfigs; ++c) ch.common_flags[c] = ~sum.flags_lacking[c];
    // The slot's layout: what is uploaded (the pointer block, then a table per configuration
    // with more runs than fit in the launch parameters), then the info channel's areas.
    decide_merged(s, ch);
    cuda::ArenaLayout at;
    at.take(std::size_t(sum.block) * A::kOperands * sizeof(void *));
    for (int c = 0; c < A::kConfigs; ++c) {
      const bool table = in_table(ch, c);
      ch.table_at[c] = at.take(table ? std::size_t(ch.count[c]) * sizeof(Run) : 0);
      ch.blocks_at[c] = at.take(table ? std::size_t(blocks_of(ch, c)) * sizeof(int32_t) : 0);
    }
    const bool check_table = device_arrays() && ch.nseg > cuda::kInlineCheckRuns;
    ch.checks_at = at.take(check_table ? std::size_t(ch.nseg) * sizeof(cuda::PointerCheckRun) : 0);
    ch.bytes = at.bytes;
    // Device-only areas: the checked copy of device pointer arrays and its scratch, the info
    // channel's codes and list.
    ch.checked_at = at.take(std::size_t(ch.checked_problems) * cuda::kMaxPointerArgs * sizeof(void *));
    ch.scratch_at = at.take(ch.checked_problems ? sum.scratch : 0);
    if (collect()) {  // with a span, the list's head of the call's last chunk
      ch.codes_at = ch.span_cap ? 0 : at.take(std::size_t(ch.problems) * sizeof(int));
      ch.list_at = at.take(cuda::info_list_bytes(ch.span_cap ? kInfoCopied : ch.problems));
    }
    ch.slot_bytes = at.bytes;
    // The slot's previous chunk is done with it: its info list is back and goes to the caller
    // before the slot is reused (or grown).
    if (s.slot_wait(slot)) return s.status();
    if (int st = merge_info(s, returned, slot)) return st;
    // A chunk past the span: the span so far is gathered and merged (a wait for the stream,
    // once per kCodeSpan problems), and a new one starts at this chunk.
    if (ch.span_cap && ch.begin + ch.problems > ch.span_begin + ch.span_cap) {
      char *host = s.slot_host(slot, cuda::info_list_bytes(kInfoCopied));
      if (!host) return s.status() ? s.status() : BLAS_BATCHED_ERR_DEVICE_ALLOC;
      if (int st = gather_span(s, ch, slot, host, 0)) return st;
      if (s.sync()) return s.status();
      if (int st = merge_span(s, ch)) return st;
      ch.span_begin = ch.span_end = ch.begin;
      if (cuda::info_clear(s, ch.span_codes, std::min(ch.span_cap, ch.device_problems - ch.begin), ch.span_list))
        return s.status();
    }
    ch.host = s.slot_host(slot, std::max<std::size_t>(ch.slot_bytes, 1));
    if (!ch.host) return s.status() ? s.status() : BLAS_BATCHED_ERR_DEVICE_ALLOC;
    ch.device = s.slot_device(slot);
    ch.codes = !collect()   ? nullptr
               : ch.span_cap ? ch.span_codes + (ch.begin - ch.span_begin)
                             : reinterpret_cast<int *>(ch.device + ch.codes_at);
    if (ch.span_cap) ch.span_end = ch.begin + ch.problems;
    return 0;
  }

  // Device pointer arrays: what the check pass needs of segment i (its arrays at its first
  // problem, the argument numbers of the pointers its problems need).
  cuda::PointerCheckRun check_run(const Chunk &ch, int64_t i) const {
    const Segment &sg = ch.segs[i];
    cuda::PointerCheckRun r;
    const unsigned needed = c_.needed_pointers(groups_[sg.group].group);
    auto **copy = reinterpret_cast<const void **>(ch.device + ch.checked_at);
    int a = 0;
    for (const ArgRef &arg : c_.pointer_arrays()) {
      if (a < cuda::kMaxPointerArgs) {
        r.arrays[a] = static_cast<const void *const *>(arg.ptr) + sg.first;
        r.position[a] = needed >> a & 1u ? arg.pos : 0;
        if (sg.checked_index >= 0) r.copy[a] = copy + a * ch.checked_problems + sg.checked_index;
      }
      ++a;
    }
    if (sg.checked_index >= 0) r.scratch = ch.device + ch.scratch_at;
    r.count = sg.count, r.chunk_pos = sg.chunk_pos, r.first = sg.first;
    return r;
  }

  // Each thread, over its block of segments: their places (pointer block, table, units) and
  // descriptions; then, over its share of problems, the pointer arrays of unevenly spaced
  // runs (a skipped problem's operands all NULL: the kernels leave it alone, and so do the cores
  // that an adapter drives from the host, blocked getrf's trsm and gemm on A included).
  void fill_chunk(Chunk &ch) {
    using Run = typename A::Run;
    int64_t lo, hi;
    my_segments(ch, lo, hi);
    Tally at = ch.tally[omp_get_thread_num() + 1];
    const ChunkPlace place = chunk_place(ch);
    auto *check_table = reinterpret_cast<cuda::PointerCheckRun *>(ch.host + ch.checks_at);
    for (int64_t i = lo; i < hi; ++i) {
      Segment &sg = ch.segs[i];
      if (sg.ptr_index >= 0) sg.ptr_index = at.block, at.block += sg.count;
      if (sg.checked_index >= 0) sg.checked_index = at.checked, at.checked += sg.count;
      if (device_arrays()) (ch.nseg > cuda::kInlineCheckRuns ? check_table[i] : ch.checks[i]) = check_run(ch, i);
      if (sg.config < 0) continue;
      sg.table_pos = at.count[sg.config]++;
      sg.unit_begin = at.units[sg.config], at.units[sg.config] += sg.units;
      Run r = A::make_run(ch.desc[i], sg, place);
      r.unit_begin = sg.unit_begin;
      if (!in_table(ch, sg.config)) {
        ch.inline_runs[sg.config][sg.table_pos] = r;
        continue;
      }
      reinterpret_cast<Run *>(ch.host + ch.table_at[sg.config])[sg.table_pos] = r;
      // The blocks whose first unit lies in this run.
      const int64_t per = A::units_per_block(sg.config);
      auto *first = reinterpret_cast<int32_t *>(ch.host + ch.blocks_at[sg.config]);
      for (int64_t b = (sg.unit_begin + per - 1) / per; b * per < sg.unit_begin + sg.units; ++b)
        first[b] = int32_t(sg.table_pos);
    }
#pragma omp barrier
    auto **block = reinterpret_cast<const void **>(ch.host);
    for_my_share(ch, [&](std::size_t i, int64_t a, int64_t b) {
      const Segment &sg = ch.segs[i];
      if (sg.ptr_index < 0) return;
      const typename A::Group &d = ch.desc[i];
      for (int o = 0; o < A::kOperands; ++o) {
        const void **out = block + o * ch.block_problems + sg.ptr_index;
        std::memcpy(out + a, d.arrays[o] + sg.first + a, std::size_t(b - a) * sizeof(void *));
        if (sg.skipped)
          for (int64_t k = a; k < b; ++k)
            if (null_pointer_error(c_, c_.needed_pointers(groups_[sg.group].group), sg.first + k)) out[k] = nullptr;
      }
    });
#pragma omp barrier
  }

  // fill_chunk for Chunk::single: each thread's runs into their tables (or the launch's inline
  // runs), with their units and the blocks that start in them.
  void fill_single(Chunk &ch) {
    using Run = typename A::Run;
    int64_t lo, hi;
    my_segments(ch, lo, hi);
    Tally at = ch.tally[omp_get_thread_num() + 1];
    for (int64_t j = lo; j < hi; ++j) {
      const int config = ch.single_config[j];
      if (config < 0) continue;
      const int64_t pos = at.count[config]++, unit_begin = at.units[config], units = ch.single_units[j];
      at.units[config] += units;
      const bool inline_run = !in_table(ch, config);
      Run &r = inline_run ? ch.inline_runs[config][pos] : reinterpret_cast<Run *>(ch.host + ch.table_at[config])[pos];
      r = ch.single_runs[j];
      r.unit_begin = unit_begin;
      if (inline_run) continue;
      const int64_t per = A::units_per_block(config);
      auto *first = reinterpret_cast<int32_t *>(ch.host + ch.blocks_at[config]);
      for (int64_t b = (unit_begin + per - 1) / per; b * per < unit_begin + units; ++b) first[b] = int32_t(pos);
    }
#pragma omp barrier
  }

  // Whether configuration c's runs are read from a table in device memory (else they travel
  // in the launch's parameters).
  static bool in_table(const Chunk &ch, int c) { return (ch.merged >> c & 1u) || ch.count[c] > A::kInline; }

  // The configurations of few blocks each share one launch when at least two do (a chunk of
  // one-problem groups of many sizes launched about ten kernels of a few blocks each). Not in a
  // graph capture: the tables need an upload.
  void decide_merged(cuda::Session &s, Chunk &ch) {
    ch.merged = 0;
    if constexpr (A::kMergedLaunch) {
      static_assert(A::kConfigs <= 32, "one bit a configuration");
      if (ch.capturing) return;
      const int64_t most = A::merge_blocks(s);
      uint32_t mask = 0;
      int n = 0;
      int64_t blocks = 0;
      for (int c = 0; c < A::kConfigs; ++c)
        if (ch.count[c] && A::mergeable(c) && blocks_of(ch, c) <= most) mask |= 1u << c, ++n, blocks += blocks_of(ch, c);
      // Each block of a merged launch runs once: none where the grid is capped below them
      // (BLAS_BATCHED_GRID_BLOCKS, a test switch).
      if (n >= 2 && blocks <= s.loop_block_cap()) ch.merged = mask;
    }
  }

  int launch_merged(cuda::Session &s, Chunk &ch) {
    if constexpr (A::kMergedLaunch) {
      MergedPart parts[A::kConfigs];
      int n = 0;
      for (int c = 0; c < A::kConfigs; ++c)
        if (ch.merged >> c & 1u)
          parts[n++] = {c, int(ch.count[c]), ch.units[c], ch.device + ch.table_at[c],
                        reinterpret_cast<const int32_t *>(ch.device + ch.blocks_at[c])};
      return A::launch_merged(s, parts, n);
    }
    return s.status();
  }

  static int64_t blocks_of(const Chunk &ch, int config) {
    const int64_t per = A::units_per_block(config);
    return (ch.units[config] + per - 1) / per;
  }

  ChunkPlace chunk_place(const Chunk &ch) const {
    ChunkPlace p;
    p.pointer_block = ch.device, p.block_problems = ch.block_problems;
    p.codes = ch.codes;
    p.checked_block = ch.device + ch.checked_at, p.checked_problems = ch.checked_problems;
    // A device info's codes: from the kernels for strided runs; for device pointer arrays the
    // check pass writes the zeros and NULL problems' codes, and kernels with numerical codes
    // their own.
    if (A::kZeroesInfo && (c_.addressing == Addressing::strided || (A::kNumericInfo && device_arrays())))
      p.zero_info = device_info_;
    return p;
  }

  // One upload, one launch per configuration, the vendor library for its runs; then the info
  // channel's list comes back into the slot (without a span), or the span's once the call's
  // last chunk is launched.
  int launch_chunk(cuda::Session &s, Chunk &ch, int slot, Returned &returned) {
    using Run = typename A::Run;
    const double t0 = debug_ ? omp_get_wtime() : 0;
    if (ch.bytes && s.slot_upload(slot, ch.bytes)) return s.status();
    const double t1 = t0 > 0 ? omp_get_wtime() : 0;
    if (t0 > 0) t_upload_ += t1 - t0, uploaded_ += ch.bytes;
    int *codes = chunk_place(ch).codes;
    if (collect() && !ch.span_cap && cuda::info_clear(s, codes, ch.problems, ch.device + ch.list_at)) return s.status();
    if (device_arrays()) {
      const bool table = ch.nseg > cuda::kInlineCheckRuns;
      if (cuda::check_pointers(s, table ? nullptr : ch.checks.data(),
                               table ? reinterpret_cast<const cuda::PointerCheckRun *>(ch.device + ch.checks_at)
                                     : nullptr,
                               int(ch.nseg), ch.problems, codes, device_info_, ch.checked_problems > 0))
        return s.status();
    }
    if (ch.merged && launch_merged(s, ch)) return s.status();
    for (int c = 0; c < A::kConfigs; ++c) {
      if (!ch.count[c] || (ch.merged >> c & 1u)) continue;
      const bool table = in_table(ch, c);
      if (A::launch(s, c, table ? nullptr : ch.inline_runs[c],
                    table ? reinterpret_cast<const Run *>(ch.device + ch.table_at[c]) : nullptr,
                    table ? reinterpret_cast<const int32_t *>(ch.device + ch.blocks_at[c]) : nullptr,
                    int(ch.count[c]), ch.units[c], ch.common_flags[c]))
        return s.status();
    }
    if (t0 > 0) t_kernels_ += omp_get_wtime() - t1;
    // A device info's zeros: the check pass wrote them for device pointer arrays, the kernels
    // for strided runs they compute; the rest here, before the adapter-driven runs, which write
    // only their non-zero codes (blocked getrf).
    if (device_info_ && c_.addressing == Addressing::strided)
      for (int64_t i = 0; i < ch.nseg; ++i) {
        const Segment &sg = ch.segs[i];
        if ((sg.config < 0 || !A::kZeroesInfo) && cuda::info_fill(s, device_info_ + sg.first, sg.count, 0))
          return s.status();
      }
    // (A serial pass over segments other threads wrote costs ~100 ns each: only when needed.)
    const double t_vendor = t0 > 0 && ch.vendor_runs ? omp_get_wtime() : 0;
    for (int64_t i = 0; ch.vendor_runs && i < ch.nseg; ++i) {
      const bool vendor = ch.single ? ch.single_config[i] == kRunVendor : ch.segs[i].config == kRunVendor;
      if (vendor && A::vendor(s, ch.single ? ch.single_runs[i] : A::make_run(ch.desc[i], ch.segs[i], chunk_place(ch))))
        return s.status();
    }
    if (t_vendor > 0) t_vendor_ += omp_get_wtime() - t_vendor;
    // The call's last chunk: its span is gathered at once (behind a strided call's kernels, not
    // after the host info's zeros that the threads write while they run).
    if (ch.span_cap && ch.begin + ch.problems == ch.device_problems)
      return gather_span(s, ch, slot, ch.host + ch.list_at, ch.list_at);
    if (collect() && !ch.span_cap) {
      if (cuda::info_collect(s, codes, ch.problems, ch.device + ch.list_at, ch.host + ch.list_at, kInfoCopied,
                             ch.problems) ||
          s.slot_release(slot))
        return s.status();
      // Capacity reserved before the thread team: no allocation here.
      returned.pending = true, returned.list_at = ch.list_at, returned.problems = ch.problems;
      returned.starts.assign(ch.starts.begin(), ch.starts.begin() + ch.nseg + 1);
      returned.firsts.clear();
      for (int64_t i = 0; i < ch.nseg; ++i) returned.firsts.push_back(ch.segs[i].first);
    }
    return s.status();
  }

  // A chunk's info list, back in the slot's host memory (the slot waited for), into the
  // caller's info; entries beyond the first kInfoCopied are fetched now. Serial: failures are
  // rare, and the list holds only them.
  int merge_info(cuda::Session &s, Returned &r, int slot) {
    if (!r.pending) return 0;
    r.pending = false;
    char *host = s.slot_host(slot, 0);
    if (!host) return s.status();
    const char *list = host + r.list_at;
    const int64_t length = cuda::info_list_length(list);
    if (length > kInfoCopied) {
      const std::size_t done = cuda::info_list_bytes(kInfoCopied), all = cuda::info_list_bytes(length);
      if (s.download(host + r.list_at + done, s.slot_device(slot) + r.list_at + done, all - done) || s.sync())
        return s.status();
    }
    const cuda::InfoEntry *e = cuda::info_list_entries(list);
    failures_ += length;
    if (!c_.info) return 0;
    for (int64_t i = 0; i < length; ++i) {
      const int64_t pos = e[i].problem;
      const std::size_t seg = std::upper_bound(r.starts.begin(), r.starts.end(), pos) - r.starts.begin() - 1;
      c_.info[r.firsts[seg] + (pos - r.starts[seg])] = e[i].code;
    }
    return 0;
  }

  // Enqueues the gathering of the span's codes into its list and the copy of the list's length
  // and head into `host`, at `at` in the host memory of `slot`; merged once the stream is done.
  int gather_span(cuda::Session &s, Chunk &ch, int slot, char *host, std::size_t at) {
    if (cuda::info_collect(s, ch.span_codes, ch.span_end - ch.span_begin, ch.span_list, host, kInfoCopied, kInfoCopied) ||
        s.slot_release(slot))
      return s.status();
    ch.span_slot = slot, ch.span_at = at, ch.span_pending = true;
    return 0;
  }
  // The gathered span (its copy done: the stream waited for) into the caller's info: from the
  // list's head, or with more failures than it holds, from the codes, a piece at a time through
  // the slot's host memory (nothing else uses the slots once the stream is idle).
  int merge_span(cuda::Session &s, Chunk &ch) {
    ch.span_pending = false;
    char *const base = s.slot_host(ch.span_slot, 0);
    if (!base) return s.status();
    const char *host = base + ch.span_at;
    const int64_t length = cuda::info_list_length(host);
    failures_ += length;
    if (!c_.info || !length) return 0;
    if (length <= kInfoCopied) {
      const cuda::InfoEntry *e = cuda::info_list_entries(host);
      for (int64_t i = 0; i < length; ++i) write_code(ch, ch.span_begin + e[i].problem, e[i].code);
      return 0;
    }
    const int64_t used = ch.span_end - ch.span_begin;
    const int64_t piece = std::min(used, kCodesPiece);
    auto *codes = reinterpret_cast<int *>(s.slot_host(ch.span_slot, std::size_t(piece) * sizeof(int)));
    if (!codes) return s.status() ? s.status() : BLAS_BATCHED_ERR_DEVICE_ALLOC;
    for (int64_t at = 0; at < used; at += piece) {
      const int64_t k = std::min(piece, used - at);
      if (s.download(codes, ch.span_codes + at, std::size_t(k) * sizeof(int)) || s.sync()) return s.status();
      for (int64_t i = 0; i < k; ++i)
        if (codes[i]) write_code(ch, ch.span_begin + at + i, codes[i]);
    }
    return 0;
  }
  // Device problem `pos` (among this device's, in call order) gets `code` in the caller's info.
  void write_code(const Chunk &ch, int64_t pos, int code) const {
    const std::vector<int64_t> &start = *ch.start;
    const std::size_t k = std::upper_bound(start.begin(), start.end(), pos) - start.begin() - 1;
    c_.info[groups_[(*ch.mine)[k]].offset + (pos - start[k])] = code;
  }

  bool device_arrays() const { return c_.addressing == Addressing::device_arrays; }
  // A host info's zeros for problems [lo, hi) of a segment whose pointers the host never reads.
  void zero_info(const Segment &sg, int64_t lo, int64_t hi) const {
    if (c_.info) std::memset(c_.info + sg.first + lo, 0, std::size_t(hi - lo) * sizeof(int));
  }
  // No host pass reads pointers: a host info's zeros can wait until the chunk is launched (r64
  // strided n = 2: 0.29 ms of zeros before a 0.37 ms kernel). A strided call's codes are merged
  // after them: when its span or its slot comes round again, or when the call ends.
  bool late_zeros() const {
    return c_.addressing == Addressing::strided || (c_.addressing == Addressing::device_arrays && !collect());
  }
  // Codes come back through the info channel: numerical ones, and NULL entries of device
  // pointer arrays in a blocking call (the return value counts them); except where every
  // code lands in a device info (strided runs, or device pointer arrays), counted at the end.
  bool collect() const { return !count_at_end() && (A::kNumericInfo || (device_arrays() && wait_)); }
  bool count_at_end() const {
    return A::kNumericInfo && A::kZeroesInfo && device_info_ && c_.addressing != Addressing::host_arrays;
  }

  const Call &c_;
  std::vector<DeviceGroup> &groups_;
  Backend backend_;
  int *device_info_ = nullptr;
  bool wait_ = true;
  // A device's host buffers. Kept per thread between calls: large allocations are fresh
  // pages each time, and faulting in a few MB per call costs more than a chunk's work.
  struct Buffers {
    std::vector<int> mine;       // the device's groups (indices into groups_), in call order
    std::vector<int64_t> start;  // where each of them starts among the device's problems
    Chunk ch;
    DeviceReturns returned;
  };
  static std::vector<std::unique_ptr<Buffers>> &buffer_pool() {
    thread_local std::vector<std::unique_ptr<Buffers>> pool;
    return pool;
  }
  // Calls of one problem per group take single_pass (gemm only so far: measured there; trsm and
  // trmm would take it unchanged, but their vendor runs are recursions driven from the host,
  // not tried this way).
  static constexpr bool kSingleProblems = std::is_same_v<A, Adapter<GemmCall<T>>>;

  // One device's part of the call.
  struct DeviceWork {
    int ordinal = -1;
    std::unique_ptr<cuda::Session> session;
    char *span = nullptr;  // the span's codes and list, in the workspace pool
    std::unique_ptr<Buffers> b;
    bool staged = false;  // through host memory (no GPU arithmetic, reference backend)
    int team = 1;
  };
  std::vector<DeviceWork> work_;
  bool one_device_ = false;
  bool prepared_ = false;
  int64_t failures_ = 0;
  bool debug_ = false;  // BLAS_BATCHED_DEBUG=time, read once per device run
  double t_upload_ = 0, t_kernels_ = 0, t_vendor_ = 0, uploaded_ = 0;
};

}  // namespace bb::device
