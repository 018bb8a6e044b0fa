// What every device kernel family shares on the device side: how a launch carries its runs
// (by value when few, else a table in device memory), how a unit of work finds its run, how a
// problem finds its matrix, and the precision switch of the host-side entry points.
#pragma once
#include "device_operand.hpp"
#include "device_types.cuh"
#include "session.hpp"

#include <blas_batched/blas_batched.h>

#include <algorithm>

#include <cstring>
#include <mutex>
#include <type_traits>

namespace bb::cuda {

// The runs of one launch: by value when few (no upload), else a table in device memory.
template <class Run, int Inline>
struct RunLaunch {
  int count;
  int64_t total_units;
  const Run *table;
  const int32_t *block_first;  // with a table: the run of each block's first unit
  Run inline_runs[Inline];
};

// A launch of `count` runs and `units` units: the runs by value (count <= Inline, from
// table_host), or the table in device memory with block_first. False if neither fits.
template <class Run, int Inline>
bool make_launch(RunLaunch<Run, Inline> &L, const Run *table_host, const Run *table_device,
                 const int32_t *block_first, int count, int64_t units) {
  std::memset(&L, 0, sizeof L);
  L.count = count;
  L.total_units = units;
  L.table = table_device;
  L.block_first = table_device ? block_first : nullptr;
  if (table_device) return true;
  if (count > Inline) return false;
  for (int i = 0; i < count; ++i) L.inline_runs[i] = table_host[i];
  return true;
}

// A launch's runs as its kernels read them: the table in device memory (or the launch's runs
// by value), and for a table each block's first run. Several configurations in one launch
// (gemm_merged) give each configuration's blocks their own.
template <class Run>
struct RunTable {
  const Run *runs;
  const int32_t *block_first;
  int count;
  int64_t total_units;
};
template <class Run, int Inline>
__device__ __forceinline__ RunTable<Run> run_table(const RunLaunch<Run, Inline> &L) {
  return {L.table ? L.table : L.inline_runs, L.block_first, L.count, L.total_units};
}

// The run of unit u: the last whose unit_begin <= u (runs are in unit order). With a table,
// the search stays between the runs of this block's first and last unit (a few at most:
// thousands of one-problem runs must not cost each team a search over all of them).
// As many units as runs: run u, with no lookup. Planning gives no run zero units, so then each
// run has exactly one (a call of one-problem groups of one tile each): the search's dependent
// loads (block_first, then unit_begin) came before the operands' on every team, and the teams
// of such launches are latency-bound.
template <int PPB, class Run>
__device__ __forceinline__ const Run &run_of(const RunTable<Run> &T, int64_t u) {
  const Run *runs = T.runs;
  if (T.total_units == T.count) return runs[u];
  int lo = 0, hi = T.count - 1;
  if (T.block_first) {
    const int64_t b = u / PPB;
    lo = T.block_first[b];
    if ((b + 1) * PPB < T.total_units) hi = T.block_first[b + 1];
  }
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (runs[mid].unit_begin <= u) lo = mid;
    else hi = mid - 1;
  }
  return runs[lo];
}
template <int PPB, class Run, int Inline>
__device__ __forceinline__ const Run &run_of(const RunLaunch<Run, Inline> &L, int64_t u) {
  return run_of<PPB>(run_table(L), u);
}

// Problem i's matrix of an operand (NULL where a device pointer array holds NULL).
template <class S>
__device__ __forceinline__ S *operand_at(const DevOperand &o, int64_t i) {
  if (o.array) {
    const void *p = static_cast<const void *const *>(o.p)[i];
    return p ? const_cast<S *>(static_cast<const S *>(p)) + o.step : nullptr;
  }
  return const_cast<S *>(static_cast<const S *>(o.p)) + i * o.step;
}

template <class S> constexpr DevPrec dev_prec_of() {
  if constexpr (std::is_same_v<S, __half>) return DevPrec::r16;
  else if constexpr (std::is_same_v<S, chalf>) return DevPrec::c16;
  else if constexpr (std::is_same_v<S, float>) return DevPrec::r32;
  else if constexpr (std::is_same_v<S, cplx<float>>) return DevPrec::c32;
  else if constexpr (std::is_same_v<S, double>) return DevPrec::r64;
  else return DevPrec::c64;
}

// X(S) for every storage type with GPU arithmetic (extern declarations of per-precision files).
#define BB_DEVICE_PRECISIONS(X) X(__half) X(chalf) X(float) X(cplx<float>) X(double) X(cplx<double>)

// f(S{}) for the storage type S of precision p.
template <class F>
auto by_precision(DevPrec p, F &&f) {
  switch (p) {
    case DevPrec::r16: return f(__half{});
    case DevPrec::c16: return f(chalf{});
    case DevPrec::r32: return f(float{});
    case DevPrec::c32: return f(cplx<float>{});
    case DevPrec::r64: return f(double{});
    case DevPrec::c64: break;
  }
  return f(cplx<double>{});
}

// f(std::integral_constant<int, side>) for a register kernel's side (K, 2K, ..., MaxK): the
// host's way from a configuration to the compiled kernel of its side.
template <int K, int MaxK, class F>
void with_register_side(int side, F &&f) {
  if constexpr (K <= MaxK) {
    if (side == K) f(std::integral_constant<int, K>{});
    else with_register_side<2 * K, MaxK>(side, f);
  }
}

// f(std::integral_constant<int, side>) for a side among Sides (a register kernel family whose
// sides are not all powers of two).
template <int... Sides, class F>
void with_side_among(int side, F &&f) {
  ((side == Sides ? (f(std::integral_constant<int, Sides>{}), 0) : 0), ...);
}

// Bytes of precision p's compute type (half works in float).
inline int compute_bytes(DevPrec p) {
  return by_precision(p, [](auto x) { return int(sizeof(typename dev<decltype(x)>::C)); });
}

// Lets kernel take `bytes` of dynamic shared memory. The default limit is 48 KiB less the
// kernel's static shared memory, so any dynamic size is checked against the kernel's attribute
// (s43: 48 KiB exactly, as getrf_panel's rolled form asks at 384 rows in r64, failed every
// launch beside its static arrays). The limit only ever rises, under a lock: entry points run
// concurrently (SPEC.md), and one call lowering it to its own size could fail another's launch.
// The query costs each launch with dynamic shared memory a cudaFuncGetAttributes: 0.41 us
// against 3.4 us to enqueue the launch (H200, s44, tools/micro/call_costs.cu).
template <class Kernel>
bool allow_dynamic_shared(Kernel kernel, int bytes) {
  if (bytes <= 0) return true;
  cudaFuncAttributes now{};
  if (cudaFuncGetAttributes(&now, kernel) != cudaSuccess) return false;
  if (now.maxDynamicSharedSizeBytes >= bytes) return true;
  static std::mutex limit_mutex;
  std::lock_guard<std::mutex> lock(limit_mutex);
  if (cudaFuncGetAttributes(&now, kernel) == cudaSuccess && now.maxDynamicSharedSizeBytes >= bytes) return true;
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) == cudaSuccess;
}

// One launch of a kernel taking launch description L on the session's stream: at most
// Session::loop_block_cap() blocks (the kernels loop over their units), dynamic shared
// memory beyond the kernel's current limit asked for first (allow_dynamic_shared). Returns the
// session's status.
template <class Kernel, class Launch>
int launch_kernel(Session &s, Kernel kernel, const Launch &L, int threads, int64_t blocks, int bytes) {
  if (!allow_dynamic_shared(kernel, bytes)) {
    cudaGetLastError();
    return s.fail(BLAS_BATCHED_ERR_DEVICE);
  }
  const int64_t cap = s.loop_block_cap();
  s.started();
  s.clear_stale_error();
  kernel<<<unsigned(std::min(blocks, cap)), threads, bytes, static_cast<cudaStream_t>(s.stream())>>>(L);
  s.check_launch();
  return s.status();
}

}  // namespace bb::cuda
