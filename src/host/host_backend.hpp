// The host backend: the problems of all host groups of a call as one parallel loop (OpenMP,
// dynamic schedule), each problem on one thread with that thread's workspace.
#pragma once
#include "../../reference/reference.hpp"
#include "../common/lapack_calls.hpp"
#include "../dispatch/record.hpp"
#include "kernels_entry.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <new>
#include <vector>

namespace bb::host {

// The groups of one call as the loop sees them (the arrays of the call's record).
struct GroupTable {
  const int64_t *first;        // group g owns problems [first[g], first[g + 1])
  const GroupRecord *groups;   // code and placement; only host placements are computed here
  int count;
  double host_work;            // about order^3 summed over the host problems
  bool any_lapack;             // some host group runs OpenBLAS
};

// Below this much work (about order^3 summed over problems) waking a thread team costs more
// than it saves; writing info alone is worth a team from this many problems.
constexpr double kParallelWork = 32768;
constexpr int64_t kParallelInfo = int64_t(1) << 18;

template <class T> int vendor(const GemmProblem<T> &p, Workspace &) { return lapack::gemm(p); }
template <class T> int vendor(const TriangularProblem<T> &p, Workspace &) { return lapack::trsm_trmm(p); }
template <class T> int vendor(const GetrfProblem<T> &p, Workspace &ws) {
  return lapack_getrf_ok(p) ? lapack::getrf<T>(p, ws, [](const GetrfProblem<T> &q, Workspace &w) { return kernel(q, w); })
                            : kernel(p, ws);
}
template <class T> int vendor(const GetriProblem<T> &p, Workspace &ws) { return lapack::getri(p, ws); }
template <class T> int vendor(const PotrfProblem<T> &p, Workspace &ws) { return lapack::potrf(p, ws); }
template <class T> int vendor(const GeqrfProblem<T> &p, Workspace &ws) { return lapack::geqrf(p, ws); }

template <class Problem>
int solve_one(const Problem &p, Where where, Workspace &ws) {
  if (where == Where::reference) return reference::solve(p);
  if constexpr (lapack::available<std::remove_pointer_t<decltype(p.A)>>)
    if (where == Where::host_lapack) return vendor(p, ws);
  return kernel(p, ws);
}
template <class Problem>
int solve(const Problem &p, Where where, Workspace &ws) {
  return solve_one(p, where, ws);
}
// The inverse in one call: getrf then getri on one problem at a time (it is still in cache), by
// the same backend. A singular problem goes to getri too, which leaves A as getrf left it and
// gives the problem's code (SPEC.md 9.4). If getri's scratch cannot be had, the problem keeps
// getrf's factors (BLAS_BATCHED_ERR_ALLOC from the caller's catch).
template <class T>
int solve(const GetriProblem<T> &p, Where where, Workspace &ws) {
  if (p.factor_first) solve_one(GetrfProblem<T>{p.layout, p.n, p.n, p.A, p.lda, p.ipiv}, where, ws);
  return solve_one(p, where, ws);
}

// One pass over every problem of the call except the device ones (the device layer reports
// those): host problems are checked (their pointers; getri's pivots) and solved, the others get
// their info (the group's -k, 0 for empty groups). Returns how many problems have non-zero
// info. A problem whose workspace cannot be allocated is not touched and gets
// BLAS_BATCHED_ERR_ALLOC. Threads take chunks of problems in order; within a chunk each
// group's share is one stretch, so one problem per group costs a few compares more than one
// large group.
template <class Call>
int64_t run(const Call &c, const GroupTable &t, bool serial, bool &alloc_failed) {
  const int64_t total = t.first[t.count];
  const int threads = omp_get_max_threads();
  const bool parallel = !serial && total > 1 && threads > 1 &&
                        (t.host_work >= kParallelWork || total >= kParallelInfo);
  // One OpenBLAS thread per problem while the loop itself is parallel. The team size is taken
  // before: the guard must not change it.
  lapack::SingleThreadedBlas one_blas_thread(parallel && t.any_lapack);
  const int64_t chunk = std::max<int64_t>(1, total / (int64_t(parallel ? threads : 1) * 32));
  std::atomic<int64_t> next{0};
  std::atomic<bool> oom{false};
  int64_t failures = 0;
#pragma omp parallel num_threads(threads) reduction(+ : failures) if (parallel)
  {
    Workspace &ws = thread_workspace();  // once per thread, not per problem
    const int64_t *first = t.first;
    int g = 0;
    for (int64_t lo; (lo = next.fetch_add(chunk, std::memory_order_relaxed)) < total;) {
      const int64_t hi = std::min(total, lo + chunk);
      if (lo < first[g] || lo >= first[g + 1])  // the chunk's first group
        g = int(std::upper_bound(first, first + t.count + 1, lo) - first) - 1;
      for (int64_t p = lo; p < hi; ++g) {
        while (first[g + 1] <= p) ++g;  // empty groups
        const int64_t end = std::min(hi, first[g + 1]);
        const GroupRecord &gr = t.groups[g];
        if (on_host(gr.where)) {
          for (; p < end; ++p) {
            int r = c.problem_error(g, p);
            if (!r) {
              try {
                r = solve(c.problem(g, p), gr.where, ws);
              } catch (const std::bad_alloc &) {
                r = BLAS_BATCHED_ERR_ALLOC;
                oom = true;
              }
            }
            if (c.info) c.info[p] = r;
            failures += r != 0;
          }
        } else if (on_device(gr.where)) {
          p = end;
        } else {
          const int r = gr.code;
          if (c.info) std::fill(c.info + p, c.info + end, r);
          failures += r != 0 ? end - p : 0;
          p = end;
        }
      }
      if (g > 0 && first[g] >= hi) --g;  // stay on the chunk's last group
    }
  }
  alloc_failed = oom;
  return failures;
}

}  // namespace bb::host
