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

// One group's share of the loop.
struct GroupPlan {
  int group;
  int64_t offset, count;  // its problems in the call's numbering
  int64_t order;          // largest dimension: the work per problem is about order^3
  Where where;
};

// Below this much work (about order^3 summed over problems) waking a thread team costs more
// than it saves.
constexpr double kParallelWork = 32768;

template <class T> int vendor(const GemmProblem<T> &p, Workspace &) { return lapack::gemm(p); }
template <class T> int vendor(const TriangularProblem<T> &p, Workspace &) { return lapack::trsm_trmm(p); }
template <class T> int vendor(const GetrfProblem<T> &p, Workspace &ws) { return lapack::getrf(p, ws); }
template <class T> int vendor(const GetriProblem<T> &p, Workspace &ws) { return lapack::getri(p, ws); }
template <class T> int vendor(const PotrfProblem<T> &p, Workspace &ws) { return lapack::potrf(p, ws); }
template <class T> int vendor(const GeqrfProblem<T> &p, Workspace &ws) { return lapack::geqrf(p, ws); }

template <class Problem>
int solve(const Problem &p, Where where, Workspace &ws) {
  if (where == Where::reference) return reference::solve(p);
  if constexpr (lapack::available<std::remove_pointer_t<decltype(p.A)>>)
    if (where == Where::host_lapack) return vendor(p, ws);
  return kernel(p, ws);
}

// Runs every planned problem, writes info (when given) and returns how many failed. A
// problem whose workspace cannot be allocated is not touched and gets BLAS_BATCHED_ERR_ALLOC.
template <class Call>
int64_t run(const Call &c, const std::vector<GroupPlan> &plan, bool serial, bool &alloc_failed) {
  std::vector<int64_t> first(plan.size() + 1, 0);  // first loop index of each planned group
  bool any_lapack = false;
  double work = 0;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    first[i + 1] = first[i] + plan[i].count;
    any_lapack |= plan[i].where == Where::host_lapack;
    work += double(plan[i].count) * double(plan[i].order) * double(plan[i].order) * double(plan[i].order);
  }
  const int64_t total = first.back();
  const int threads = omp_get_max_threads();
  const bool parallel = !serial && total > 1 && threads > 1 && work >= kParallelWork;
  // One OpenBLAS thread per problem while the loop itself is parallel.
  lapack::SingleThreadedBlas one_blas_thread(parallel && any_lapack);
  const int64_t chunk = std::max<int64_t>(1, total / (int64_t(threads) * 32));
  std::atomic<bool> oom{false};
  int64_t failures = 0;
#pragma omp parallel reduction(+ : failures) if (parallel)
  {
    Workspace &ws = thread_workspace();  // once per thread, not per problem
    std::size_t gi = 0;                  // the group of the last problem: loop indices only grow
#pragma omp for schedule(dynamic, chunk)
    for (int64_t t = 0; t < total; ++t) {
      if (t < first[gi] || t >= first[gi + 1])
        gi = std::upper_bound(first.begin(), first.end(), t) - first.begin() - 1;
      const GroupPlan &gp = plan[gi];
      const int64_t p = gp.offset + (t - first[gi]);
      int r;
      try {
        r = solve(c.problem(gp.group, p), gp.where, ws);
      } catch (const std::bad_alloc &) {
        r = BLAS_BATCHED_ERR_ALLOC;
        oom = true;
      }
      if (c.info) c.info[p] = r;
      failures += r != 0;
    }
  }
  alloc_failed = oom;
  return failures;
}

}  // namespace bb::host
