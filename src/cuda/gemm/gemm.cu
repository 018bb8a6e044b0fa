// Device gemm entry points: the precision switch, the tuned choice of configuration, and the
// core call for a few runs on device operands.
#include "../factor_run.hpp"  // tuning_env
#include "gemm_impl.cuh"

#include <atomic>
#include <cstdlib>
#include <iterator>
#include <vector>

namespace bb::cuda {

#define BB_GEMM_EXTERN(S) BB_GEMM_DECLARE(S, extern)
BB_DEVICE_PRECISIONS(BB_GEMM_EXTERN)

namespace {

// BLAS_BATCHED_GEMM_CONFIG=<index> or "vendor" forces one configuration (tuning sweeps). Read
// once per call (gemm_read_overrides), not per run: a call may plan millions of runs.
constexpr int kNotForced = -100;
std::atomic<int> forced_setting{kNotForced};

bool forced_config(DevPrec p, int &config) {
  config = forced_setting.load(std::memory_order_relaxed);
  if (config == kNotForced) return false;
  return config == kConfigVendor ? gemm_has_vendor(p) : gemm_config_built(p, config);
}

}  // namespace

bool gemm_has_vendor(DevPrec p) { return p != DevPrec::c16; }

void gemm_read_overrides() {
  const char *s = std::getenv("BLAS_BATCHED_GEMM_CONFIG");
  int c = kNotForced;
  if (s && *s) c = !std::strcmp(s, "vendor") ? kConfigVendor : std::atoi(s);
  forced_setting.store(c, std::memory_order_relaxed);
}

namespace {
// The table's configuration for a run of m x n x k (the table goes by the largest order);
// `pays`: whether a cuBLAS call pays for this run where the table names cuBLAS.
int tuned_config(DevPrec p, int m, int n, int k, bool vendor_backend, bool pays) {
  const bool vendor_ok = gemm_has_vendor(p);
  if (vendor_backend && vendor_ok) return kConfigVendor;
  int config;
  if (forced_config(p, config)) return config;
  const int order = std::max({m, n, k});
  for (const TuningEntry &e : kGemmTuning)
    if (e.prec == p && order <= e.max_order) {
      if (e.config != kConfigVendor) return half_tiles(p, m, n, e.config);
      break;
    }
  return vendor_ok && pays ? kConfigVendor : half_tiles(p, m, n, fallback_config(p, m, n));
}

// BLAS_BATCHED_CORE_VENDOR_MIN_WORK=<m n k x problems> moves kCoreVendorMinWork (tuning; read
// once). The precisions outside core_vendor_min_work_applies keep the calls' rule.
bool core_vendor_pays(DevPrec p, const GemmSeg &r) {
  if (core_skinny_run(r.m, r.n, r.k)) return false;
  if (!core_vendor_min_work_applies(p)) return vendor_pays(r.m, r.n, r.k, r.problems);
  static const int forced = tuning_env("BLAS_BATCHED_CORE_VENDOR_MIN_WORK");
  return vendor_pays(r.m, r.n, r.k, r.problems, forced ? double(forced) : kCoreVendorMinWork);
}
}  // namespace

int gemm_config(DevPrec p, int m, int n, int k, int64_t problems, bool vendor_backend) {
  return tuned_config(p, m, n, k, vendor_backend, vendor_pays(m, n, k, problems));
}

bool gemm_flat_ok(const GemmSeg &g, int elem, int max_elements, bool aligned) {
  const int ar = g.ta == 0 ? g.m : g.k, br = g.tb == 0 ? g.k : g.n;
  if (g.A.ld != ar || g.B.ld != br || g.C.ld != g.m) return false;
  const int64_t ea = int64_t(g.m) * g.k, eb = int64_t(g.k) * g.n, ec = int64_t(g.m) * g.n;
  if (ea > max_elements || eb > max_elements || ec > max_elements) return false;
  if ((ea * elem) % 16 || (eb * elem) % 16 || (ec * elem) % 16) return false;
  for (const DevOperand *o : {&g.A, &g.B, &g.C})
    if ((o->step * elem) % 16) return false;  // strides, or array offsets, of whole vectors
  return aligned;
}

int64_t gemm_units(const GemmSeg &g, const GemmShapeInfo &shape) {
  if (g.m <= 0 || g.n <= 0) return 0;  // nothing to write
  if (shape.flat) return g.problems;
  const int64_t tm = (int64_t(g.m) + shape.tile - 1) / shape.tile, tn = (int64_t(g.n) + shape.tile - 1) / shape.tile;
  return g.problems * tm * tn;
}

GemmShapeInfo gemm_shape(DevPrec p, int config) {
  return by_precision(p, [&](auto s) { return shape_info<decltype(s)>(config); });
}

int gemm_launch(Session &s, DevPrec p, int config, const GemmSeg *table_host, const GemmSeg *table_device,
                const int32_t *block_first, int count, int64_t units) {
  return by_precision(p, [&](auto x) {
    return launch<decltype(x)>(s, config, table_host, table_device, block_first, count, units);
  });
}

int gemm_launch_merged(Session &s, DevPrec p, GemmLaunchPart *parts, int count) {
  return by_precision(p, [&](auto x) { return launch_merged<decltype(x)>(s, parts, count); });
}

namespace {
// Whether cuBLAS needs pointer lists built for the run: array operands moved to sub-blocks (it
// has no offsets), or arrays beside an evenly spaced operand (a blocked algorithm's workspace
// next to device pointer arrays: cuBLAS takes one form for all three).
bool needs_built_lists(const GemmSeg &g) {
  const DevOperand *ops[3] = {&g.A, &g.B, &g.C};
  int arrays = 0;
  for (const DevOperand *o : ops) {
    if (o->array && o->step) return true;
    arrays += o->array;
  }
  return arrays > 0 && arrays < 3;
}

}  // namespace

int gemm_vendor(Session &s, DevPrec p, const GemmSeg &run) {
  if (needs_built_lists(run)) return s.fail(BLAS_BATCHED_ERR_DEVICE);  // never planned: gemm() builds them
  return by_precision(p, [&](auto x) { return vendor<decltype(x)>(s, run); });
}

namespace {
// One operand's matrices for the lists: array entries moved by `bytes`, or a base and a stride
// of `bytes` per problem.
struct ListSource {
  const void *p;
  int64_t bytes;
  bool array;
};
ListSource list_source(const DevOperand &o, int64_t elem) { return {o.p, o.step * elem, o.array}; }

__device__ const char *list_entry(const ListSource &s, int64_t i) {
  return s.array ? static_cast<const char *const *>(s.p)[i] + s.bytes : static_cast<const char *>(s.p) + i * s.bytes;
}

// Problem i's A, B, C into out[i], out[n + i], out[2 n + i].
__global__ void build_lists(ListSource a, ListSource b, ListSource c, int64_t n, const char **out) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
    out[i] = list_entry(a, i);
    out[n + i] = list_entry(b, i);
    out[2 * n + i] = list_entry(c, i);
  }
}

// cuBLAS's batched gemm has no offsets into the matrices and one form for all operands: runs
// on sub-blocks of pointer arrays (the blocked factorizations, the trsm/trmm recursion), and
// runs mixing arrays with a strided workspace, get lists built in the session's workspace
// pool, freed on the stream after the call. Returns false, with nothing enqueued and no error
// kept, where that memory cannot be had or the stream is being captured (a graph would get
// memory nodes): the library's kernels take the run.
bool vendor_listed(Session &s, DevPrec p, const GemmSeg &g, int &status) {
  status = s.status();
  if (status || g.problems <= 0) return true;
  if (s.capturing()) return false;
  const auto stream = static_cast<cudaStream_t>(s.stream());
  const auto pool = static_cast<cudaMemPool_t>(s.workspace_pool());
  const int64_t n = g.problems, elem = elem_bytes(p);
  const char **lists = nullptr;
  s.started();
  if (!pool || cudaMallocFromPoolAsync(reinterpret_cast<void **>(&lists), std::size_t(3 * n) * sizeof(void *), pool,
                                       stream) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  s.clear_stale_error();
  const int64_t blocks = s.grid(n, 256);
  build_lists<<<unsigned(blocks), 256, 0, stream>>>(list_source(g.A, elem), list_source(g.B, elem),
                                                    list_source(g.C, elem), n, lists);
  if (!s.check_launch()) {
    GemmSeg h = g;
    h.A.p = lists, h.B.p = lists + n, h.C.p = lists + 2 * n;
    for (DevOperand *o : {&h.A, &h.B, &h.C}) o->array = true, o->step = 0;
    gemm_vendor(s, p, h);
  }
  s.check(cudaFreeAsync(lists, stream));
  status = s.status();
  return true;
}
}  // namespace

bool gemm_vendor_ok(DevPrec p, const GemmSeg &g) {
  if (!gemm_has_vendor(p) || !g.read_ab || g.m <= 0 || g.n <= 0) return false;  // cuBLAS in half lets NaN through for alpha = 0
  if (!needs_built_lists(g)) {
    // Matrices evenly spaced in decreasing addresses (pointer arrays in reverse order): cuBLAS
    // documents no negative stride, and its half kernels faulted on one (H200, cuBLAS 13.1,
    // 2026-11-28). Built lists (below) hold each matrix's address instead.
    for (const DevOperand *o : {&g.A, &g.B, &g.C})
      if (!o->array && o->step < 0) return false;
    return true;
  }
  // Built lists (vendor_listed) would turn a NULL entry into a wild pointer; in r16 sub-blocks
  // sit at 2-byte boundaries, where cuBLAS's half kernels on pointer lists stopped with a
  // misaligned address (H200, 2026-11-27).
  if (p == DevPrec::r16) return false;
  for (const DevOperand *o : {&g.A, &g.B, &g.C})
    if (o->array && o->maybe_null) return false;
  return true;
}

int gemm_kernel_config(DevPrec p, const GemmSeg &g, bool aligned) {
  int c = gemm_config(p, g.m, g.n, g.k, 0, false);  // 0 problems: never cuBLAS
  const int elem = elem_bytes(p);
  int forced;
  if (c < kFirstFlat && !forced_config(p, forced) && g.m == g.n && g.n == g.k && flat_exact_in_registers(elem, g.m))
    for (int f = 0; f < int(std::size(kFlatExact)); ++f)  // exact configurations are always built
      if (g.m == kFlatExact[f] && gemm_flat_ok(g, elem, kFlatMaxElements[f], aligned)) return kFirstExact + f;
  if (c >= kFirstFlat) {
    const int f = (c - kFirstFlat) % 4;
    if (!gemm_flat_ok(g, elem, kFlatMaxElements[f], aligned)) c = kFlatFallback[f];
    else if (g.m == kFlatExact[f] && g.n == kFlatExact[f] && g.k == kFlatExact[f]) c = kFirstExact + f;
    else c = kFirstFlat + f;
  }
  return gemm_config_built(p, c) ? c : fallback_config(p, g.m, g.n);
}

int gemm(Session &s, DevPrec p, GemmSeg *runs, const bool *aligned, int count, bool vendor_backend) {
  // Few runs: each configuration's runs go by value, kInlineSegs per launch, nothing uploaded.
  std::vector<int> config(count);
  for (int i = 0; i < count; ++i) {
    const GemmSeg &r = runs[i];
    const bool vendor = tuned_config(p, r.m, r.n, r.k, vendor_backend, core_vendor_pays(p, r)) == kConfigVendor;
    // cuBLAS as the tuning table's choice gives way to the library's kernels where its handle
    // cannot be made (memory short); as the caller's backend, its failure is the call's.
    const bool take = vendor && gemm_vendor_ok(p, r) && (vendor_backend || s.cublas(true));
    config[i] = take ? kConfigVendor : gemm_kernel_config(p, r, aligned[i]);
  }
  bool kernels = false;
  for (int i = 0; i < count; ++i) {
    if (config[i] != kConfigVendor) {
      kernels = true;
      continue;
    }
    int status = 0;
    if (!needs_built_lists(runs[i])) status = gemm_vendor(s, p, runs[i]);
    else if (!vendor_listed(s, p, runs[i], status)) {
      config[i] = gemm_kernel_config(p, runs[i], aligned[i]);
      kernels = true;
    }
    if (status) return status;
  }
  // All in cuBLAS (a recursion's or blocked algorithm's single gemm, called many times per
  // call): no pass over the configurations, whose host time the queue would wait for.
  if (!kernels) return s.status();
  GemmSeg batch[kInlineSegs];
  for (int c = 0; c < kGemmConfigs; ++c) {
    const GemmShapeInfo shape = gemm_shape(p, c);
    int in_batch = 0;
    int64_t units = 0;
    for (int i = 0; i <= count; ++i) {
      if (i < count && config[i] == c && runs[i].problems > 0 && runs[i].m > 0 && runs[i].n > 0) {
        batch[in_batch] = runs[i];
        batch[in_batch].unit_begin = units;
        units += gemm_units(runs[i], shape);
        ++in_batch;
      }
      if (in_batch == kInlineSegs || (i == count && in_batch)) {
        if (gemm_launch(s, p, c, batch, nullptr, nullptr, in_batch, units)) return s.status();
        in_batch = 0, units = 0;
      }
    }
  }
  return s.status();
}

}  // namespace bb::cuda
