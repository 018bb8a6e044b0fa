// A run of problems of a dense factorization on the device (getrf, getri, potrf, geqrf): what
// the device layer's adapters hand the kernel families of cuda/lu, cuda/chol and cuda/qr, and
// the shared-memory tiers of their one-block-per-problem kernels. Plain C++.
#pragma once
#include "device_operand.hpp"

#include <cstdint>
#include <cstdlib>

// Helpers that planning (host) and kernels (device) both call.
#ifdef __CUDACC__
#define BB_HOST_DEVICE __host__ __device__
#else
#define BB_HOST_DEVICE
#endif

namespace bb::cuda {

// Problems that share their parameters. Layout stays as the caller stored it: a row pivoting
// factorization of a row-major matrix is not one of its column-major transpose.
struct FactorRun {
  int64_t unit_begin = 0;  // first unit of the run in its launch; set by planning
  int64_t problems = 0;
  int m = 0, n = 0;        // getri, potrf: m = n
  bool row_major = false;
  bool lower = false;      // potrf: the uplo triangle
  DevOperand A;            // ld: A's leading dimension in its layout
  DevOperand ipiv;         // getrf, getri: ints; ld unused
  DevOperand tau;          // geqrf: min(m, n) scalars of A's type, ld unused; potrf's diagonal
                           // blocks: the left products by gemm (nb x nb, ld nb) or none
  // The info channel's codes of the run's problems (zeroed before; a kernel writes only
  // non-zero codes), and the caller's info in device memory, where every problem gets its code
  // including 0 (null when info is not there).
  int *codes = nullptr;
  int *info = nullptr;
  // getri: the code of a problem whose ipiv holds an entry outside 1..n (-k, k the position of
  // ipiv in the caller's signature): checked on the device, where the host cannot read ipiv.
  int bad_pivot_code = 0;
  // getrf's blocked algorithm (lu/getrf_blocked): the run is the panel of the whole matrix at
  // row and column panel_at (A and ipiv already moved there). Its pivots and info codes count
  // from the whole matrix's first row, a code goes only where none is yet (an earlier panel's,
  // or a NULL problem's), and its interchanges also apply to the columns_left columns before it
  // (below) and the columns_right after it.
  bool panel = false;
  int panel_at = 0, columns_right = 0;
  // Of the panel_at columns before the panel, the last columns_left take its interchanges; the
  // others' wait for one pass at the end (getrf_blocked, lu_deferred_swaps_takes; columns_left =
  // panel_at otherwise). A getrf_deferred_swaps run: the first `interchanges` pivots of ipiv
  // (counted from row panel_at of the whole matrix) on the run's n columns.
  int columns_left = 0, interchanges = 0;
  // A run after another on the same problems (getri after blocked getrf in the inverse in one
  // call): a code goes only where none is yet, and a problem that already has a -k code (a NULL
  // problem, whose operands lead to the driver's scratch) is skipped. Only getri's shared
  // kernels (getri_shared.cuh) read it; getri_blocked always behaves so.
  bool keep_codes = false;
  // The vendor backend's library takes the run (cuda/vendor; the device layer's adapters decide).
  bool vendor_library = false;
  // The inverse in one call where the native backend's getri goes to the vendor library
  // (lu_tuning.hpp): getrf's kernels (blocked or not, as the getrf call would run them), then
  // the vendor's getri, as the two calls one after the other would.
  bool getri_on_vendor = false, getrf_by_blocks = false;
  // getrf of few large problems: cuSOLVER's getrf one problem after another (lu_tuning.hpp). Its
  // calls take each problem's addresses from the host: the caller's host pointer arrays (A's and
  // ipiv's entries for the run's problems), or the strided operands' bases.
  bool solver_per_problem = false;
  const void *const *host_a = nullptr, *const *host_ipiv = nullptr;
};

// The run's problems [from, from + count): every operand moved along the batch (elem: bytes of
// A's and tau's elements).
inline FactorRun part_of(const FactorRun &r, int64_t from, int64_t count, int elem) {
  FactorRun q = r;
  q.problems = count;
  q.A = from_problem(r.A, from, elem), q.tau = from_problem(r.tau, from, elem);
  q.ipiv = from_problem(r.ipiv, from, int(sizeof(int)));
  if (q.info) q.info += from;
  if (q.codes) q.codes += from;
  if (q.host_a) q.host_a += from;
  if (q.host_ipiv) q.host_ipiv += from;
  return q;
}

// The blocked algorithms (getrf_blocked, potrf_blocked, geqrf_blocked) run one run after another from the
// host, a few launches per block of columns, where the one-block-per-problem kernels take every
// run of a chunk in one launch. In a chunk of more than kBlockedSerialRuns runs (many groups:
// the standard's way to pass variable sizes, a group per problem), a run of fewer than
// kBlockedMinProblems problems stays unblocked. Not measured yet: chosen so that a group per
// problem costs one launch as before.
constexpr int kBlockedSerialRuns = 8;
// A tuning variable's positive integer value (BLAS_BATCHED_*_BLOCKED_MIN, *_BLOCK), else 0;
// callers read it once per process.
inline int tuning_env(const char *name) {
  const char *e = std::getenv(name);
  const int v = e ? std::atoi(e) : 0;
  return v > 0 ? v : 0;
}
constexpr int64_t kBlockedMinProblems = 16;
constexpr bool factor_blocked_run(int64_t problems, int64_t chunk_runs) {
  return chunk_runs <= kBlockedSerialRuns || problems >= kBlockedMinProblems;
}

// Runs that travel in a launch's parameters (more go in a table in device memory).
constexpr int kFactorInlineRuns = 8;
// What a launch may choose its kernel by, from its runs (the adapters' run_flags; a launch gets
// the bits all its runs have, worked out while the runs are planned, not by a pass over them).
// Row-major with ld * element bytes a multiple of 16: rows that can move in 16-byte pieces.
constexpr uint32_t kFactorRowsOn16Bytes = 1u;
inline uint32_t factor_run_flags(const FactorRun &r, int element_bytes) {
  return r.row_major && int64_t(r.A.ld) * element_bytes % 16 == 0 ? kFactorRowsOn16Bytes : 0u;
}
// Lanes a register kernel gives one problem of side K (potrf, geqrf): K rounded up to a power of
// two; a side of 24 takes a warp, its last 8 lanes holding nothing.
constexpr int register_lanes(int side) { return side <= 2 ? side : 2 * register_lanes((side + 1) / 2); }

// One-block-per-problem kernels stage a matrix in shared memory in tiers of capacity side^2
// elements of the compute type (one kernel configuration each), up to what a block may have.
constexpr int kFactorSharedSide[] = {40, 48, 64, 80, 96, 112, 128, 160, 192, 224};
constexpr int kFactorSharedTiers = 10;
constexpr int kFactorSharedBytesMax = 227 * 1024;  // sm_90, opt-in
constexpr int kFactorBlockThreads = 256;
// The tier (0-based) for `need` elements of `bytes` each, or -1 if none holds them.
constexpr int factor_shared_tier(int64_t need, int bytes) {
  for (int t = 0; t < kFactorSharedTiers; ++t) {
    const int64_t cap = int64_t(kFactorSharedSide[t]) * kFactorSharedSide[t];
    if (need <= cap && cap * bytes <= kFactorSharedBytesMax) return t;
  }
  return -1;
}
constexpr int factor_tier_elements(int tier) { return kFactorSharedSide[tier] * kFactorSharedSide[tier]; }
// The leading dimension of a staged m-row matrix (odd: no bank conflicts along a row).
BB_HOST_DEVICE constexpr int staged_ld(int m) { return m | 1; }

}  // namespace bb::cuda
