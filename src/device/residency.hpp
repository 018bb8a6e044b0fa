// Where a call's matrices live, per group. A runtime query costs a driver call (about a
// microsecond); a call of a million one-problem groups must not make millions of them. The
// answers are cached for the duration of one call: memory CUDA knows comes with its allocation's
// range (device, managed, pinned), and pageable host memory is cached by its 4 KiB page (a page
// is host or device as a whole). Nothing is cached across calls: memory may be freed and
// reallocated as another kind between them.
#pragma once
#include "../api/calls.hpp"
#include "../cuda/session.hpp"
#include "device_run.hpp"  // debug_timing

#include <blas_batched/blas_batched.h>

#include <atomic>
#include <chrono>
#include <cstdint>

namespace bb::device {

class ResidencyCache {
 public:
  // The calling thread's cache, for the call numbered `call` (a new number empties it).
  static ResidencyCache &for_call(uint64_t call) {
    thread_local ResidencyCache c;
    if (c.call_ != call) c.reset(call);
    return c;
  }
  // Runtime queries made (cache misses), for BLAS_BATCHED_DEBUG=time.
  static std::atomic<long> &queries() {
    static std::atomic<long> n{0};
    return n;
  }
  // Their time, summed over threads (nanoseconds; counted under BLAS_BATCHED_DEBUG=time only).
  static std::atomic<long> &query_ns() {
    static std::atomic<long> n{0};
    return n;
  }
  static uint64_t next_call() {
    static std::atomic<uint64_t> n{0};
    return ++n;
  }

  // 0, or BLAS_BATCHED_ERR_DEVICE when the runtime cannot tell. range = false: one pointer
  // is all the caller asks about (a strided call's base): no range is looked up, the answer
  // is kept for its page.
  int query(const void *p, cuda::PointerInfo &out, bool range = true) {
    const auto a = reinterpret_cast<std::uintptr_t>(p);
    // Consecutive queries mostly fall in one allocation: the last one hit is tried first.
    if (a - ranges_[last_range_].lo < ranges_[last_range_].hi - ranges_[last_range_].lo)
      return out = ranges_[last_range_], 0;
    for (int i = 0; i < kRanges; ++i)
      if (ranges_[i].hi && a >= ranges_[i].lo && a < ranges_[i].hi) return last_range_ = i, out = ranges_[i], 0;
    Page &pg = pages_[(a >> 12) % kPages];
    if (pg.call == call_ && pg.page == (a >> 12)) return out = pg.info, 0;
    queries().fetch_add(1, std::memory_order_relaxed);
    // Timed only under BLAS_BATCHED_DEBUG=time: two clock reads and a shared counter a query
    // are not free on the small calls' path.
    static const bool timed = debug_timing();
    const auto t0 = timed ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
    const int st = cuda::query_pointer(p, out, range);
    if (timed)
      query_ns().fetch_add(long(std::chrono::nanoseconds(std::chrono::steady_clock::now() - t0).count()),
                           std::memory_order_relaxed);
    if (st) return st;
    if (out.hi) {  // an allocation CUDA knows: remember its whole range
      ranges_[next_range_] = out;
      last_range_ = next_range_;
      next_range_ = (next_range_ + 1) % kRanges;
    } else {
      pg = Page{call_, a >> 12, out};
    }
    return 0;
  }

 private:
  static constexpr int kRanges = 8, kPages = 1024;
  struct Page {
    uint64_t call = 0;
    std::uintptr_t page = 0;
    cuda::PointerInfo info;
  };
  void reset(uint64_t call) {
    call_ = call;
    for (cuda::PointerInfo &r : ranges_) r = cuda::PointerInfo{};
    next_range_ = last_range_ = 0;  // pages carry their call number: no need to clear them
  }
  uint64_t call_ = 0;
  cuda::PointerInfo ranges_[kRanges];
  int next_range_ = 0, last_range_ = 0;
  Page pages_[kPages];
};

struct Residency {
  bool device = false;
  int ordinal = -1;
};

// Problem p's matrix of pointer argument `index` (ArgRef a): from the host pointer array, or
// from the strided call's base and stride.
template <class Call>
const void *problem_pointer(const Call &c, int index, const ArgRef &a, int64_t p) {
  if (c.addressing == Addressing::strided) return c.strided_address(index, p);
  return static_cast<const void *const *>(a.ptr)[p];
}

// The group's residency from the first and last problem of each pointer array it uses (a
// query per matrix would cost too much; SPEC.md section 5). Returns 0, -k for the first pointer
// argument whose residency differs from the first non-NULL pointer's (the group is then
// invalid), or BLAS_BATCHED_ERR_DEVICE when the runtime cannot tell. Not for pointer arrays in
// device memory (the host cannot read them: the arrays decide, SPEC.md section 9.2).
template <class Call>
int group_residency(const Call &c, int g, int64_t off, int64_t count, ResidencyCache &cache, Residency &res) {
  bool have = false;
  int index = 0;
  res = Residency{};
  const unsigned needed = c.needed_pointers(g);  // bit i: pointer array i holds matrices the group uses
  for (const ArgRef &a : c.pointer_arrays()) {
    // An array whose matrices are empty is never touched (it may even be NULL): its
    // residency does not count.
    const int i = index++;
    if (!(needed >> i & 1u)) continue;
    const void *head = problem_pointer(c, i, a, off);
    // Strided: the base decides (SPEC.md section 9.1), as asked already by the entry point.
    const int64_t last = c.addressing == Addressing::strided ? off : off + count - 1;
    for (int64_t p : {off, last}) {
      const void *ptr = problem_pointer(c, i, a, p);
      if (!ptr || (p != off && ptr == head)) continue;  // one-problem groups: once
      cuda::PointerInfo r;
      if (int st = cache.query(ptr, r)) return st;
      if (!have) res = {r.device, r.ordinal}, have = true;
      else if (r.device != res.device || r.ordinal != res.ordinal) return -a.pos;
    }
  }
  if (have) return 0;
  // Every first and last pointer is NULL (those problems are skipped): the first non-NULL one
  // decides, never a guess of host memory.
  index = 0;
  for (const ArgRef &a : c.pointer_arrays()) {
    const int i = index++;
    if (!(needed >> i & 1u)) continue;
    for (int64_t p = off; p < off + count; ++p)
      if (const void *ptr = problem_pointer(c, i, a, p)) {
        cuda::PointerInfo r;
        if (int st = cache.query(ptr, r)) return st;
        res = {r.device, r.ordinal};
        return 0;
      }
  }
  return 0;
}

}  // namespace bb::device
