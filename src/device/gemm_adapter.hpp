// gemm on the GPU: how a group of BLAS_gemm_batched becomes runs of the device gemm core.
#pragma once
#include "../common/column_major.hpp"
#include "../cuda/gemm/gemm_tuning.hpp"
#include "../host/host_backend.hpp"
#include "adapter.hpp"
#include "staged.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <vector>

#include <type_traits>

namespace bb::device {

template <class T>
cuda::DevPrec device_precision() {
  using R = typename traits<T>::real;
  constexpr bool cx = traits<T>::complex;
  if constexpr (std::is_same_v<R, half>) return cx ? cuda::DevPrec::c16 : cuda::DevPrec::r16;
  else if constexpr (std::is_same_v<R, float>) return cx ? cuda::DevPrec::c32 : cuda::DevPrec::r32;
  else return cx ? cuda::DevPrec::c64 : cuda::DevPrec::r64;
}
// r128 and c128 have no GPU arithmetic: their device groups are staged through the host.
template <class T> constexpr bool gpu_arithmetic = !std::is_same_v<typename traits<T>::real, quad>;

inline uint8_t op_index(BLAS_Op op) { return op == BLAS_NoTrans ? 0 : op == BLAS_Trans ? 1 : 2; }
template <class T> void scalar_pair(const T &x, double v[2]) {
  if constexpr (traits<T>::complex) v[0] = double(x.re), v[1] = double(x.im);
  else v[0] = double(x), v[1] = 0;
}

template <class T>
struct Adapter<GemmCall<T>> {
  static constexpr bool supported = true;
  static constexpr bool native = gpu_arithmetic<T>;  // else staged through the host
  static constexpr bool kMergedLaunch = gpu_arithmetic<T>;
  static constexpr int kOperands = 3;  // A, B, C as the column-major kernels see them
  static constexpr int kConfigs = cuda::kGemmConfigCount;
  static constexpr int kInline = cuda::kInlineSegs;
  static constexpr bool kNumericInfo = false;  // gemm has no numerical failures
  static constexpr bool kZeroesInfo = true;    // GemmSeg::info
  using Run = cuda::GemmSeg;

  // A group as the kernels take it (column-major, column_major.hpp), before any chunk.
  struct Group {
    Run run;                               // parameters shared by all its problems
    int config = 0;                        // tuned for the whole group (cuBLAS or a kernel)
    bool vendor_backend = false;
    int config_aligned = 0, config_any = 0;  // the kernel for runs whose addresses are / are not
                                             // 16-byte aligned (flat kernels need them)
    const void *const *arrays[kOperands];  // the caller's pointer arrays, kernel operand order
    int arg_of[kOperands];  // each operand's pointer argument (index into pointer_arrays())
    unsigned needed = 0;  // operands that must not be NULL (A, B when m, n, k > 0; C when m, n > 0)
    unsigned used = 0;    // operands the kernels read or write (A, B only when alpha != 0, k > 0)
  };

  static Group describe(const GemmCall<T> &c, int g, int64_t count, Backend backend) {
    Group d;
    const GemmColumnMajor cm = column_major_gemm(c.layout, c.A_trans[g], c.B_trans[g], c.m[g], c.n[g]);
    Run &r = d.run;
    r.m = cm.m, r.n = cm.n, r.k = c.k[g];
    r.ta = op_index(cm.ta), r.tb = op_index(cm.tb);
    r.A.ld = cm.swap_ab ? c.B_ld[g] : c.A_ld[g];
    r.B.ld = cm.swap_ab ? c.A_ld[g] : c.B_ld[g];
    r.C.ld = c.C_ld[g];
    scalar_pair(c.alpha[g], r.alpha);
    scalar_pair(c.beta[g], r.beta);
    r.read_ab = !(c.alpha[g] == T(0)) && r.k > 0;
    r.read_c = !(c.beta[g] == T(0));
    d.arrays[0] = reinterpret_cast<const void *const *>(cm.swap_ab ? c.B : c.A);
    d.arrays[1] = reinterpret_cast<const void *const *>(cm.swap_ab ? c.A : c.B);
    d.arrays[2] = reinterpret_cast<const void *const *>(c.C);
    d.arg_of[0] = cm.swap_ab ? 1 : 0, d.arg_of[1] = cm.swap_ab ? 0 : 1, d.arg_of[2] = 2;
    const bool mn = r.m > 0 && r.n > 0;
    d.needed = mn ? (r.k > 0 ? 7u : 4u) : 0u;
    d.used = mn ? (r.read_ab ? 7u : 4u) : 0u;
    if constexpr (gpu_arithmetic<T>) {
      d.vendor_backend = backend == Backend::vendor;
      const ConfigChoice &choice = config_choice(r, count, d.vendor_backend);
      d.config = choice.config, d.config_aligned = choice.aligned, d.config_any = choice.any;
    }
    return d;
  }

  // Whether the device takes the group at all (else the call returns UNSUPPORTED untouched).
  static bool group_ok(const GemmCall<T> &, int) { return true; }

  // Once per call, before any group is described.
  static void start_call() {
    if constexpr (gpu_arithmetic<T>) {
      cuda::gemm_read_overrides();
      memo_generation().fetch_add(1, std::memory_order_relaxed);  // the overrides may have changed
    }
  }

  static Where where(const Group &d) {
    return d.config == cuda::kConfigVendor && d.run.read_ab ? Where::cuda_vendor : Where::cuda_kernel;
  }

  // The run of a segment, its operands in strided form (the first problem's addresses) or as
  // the chunk's device pointer arrays; its configuration.
  static Run make_run(const Group &d, const Segment &s, const ChunkPlace &place) {
    Run r = d.run;
    r.problems = s.count;
    r.info = place.zero_info ? place.zero_info + s.first : nullptr;
    cuda::DevOperand *ops[kOperands] = {&r.A, &r.B, &r.C};
    for (int o = 0; o < kOperands; ++o) place_operand(*ops[o], o, d.arg_of[o], d.arrays[o], sizeof(T), s, place);
    return r;
  }

  // Whether a segment can take the strided form: every used operand evenly spaced in whole
  // elements (no NULL problems: those need the array form, where the kernels skip them).
  static bool strided_ok(const Group &d, const Segment &s) {
    constexpr int64_t elem[kOperands] = {sizeof(T), sizeof(T), sizeof(T)};
    return strided_form_ok(s, d.used, kOperands, elem);
  }

  // The group's choice stands unless the run cannot take it (cuBLAS has no NULL problems: for
  // device pointer arrays it gets the checked copy); the flat kernels want 16-byte aligned
  // addresses and strides, and take a slower path per problem for the unaligned matrices
  // that device pointer arrays may hold (the host never sees them).
  static int plan_config(const Group &d, const Segment &s, const Run &r) {
    if constexpr (!gpu_arithmetic<T>) {
      return 0;
    } else {
      // A group split over chunks: its short tail is not worth a cuBLAS call either.
      const bool big_enough = d.vendor_backend || cuda::vendor_pays(r.m, r.n, r.k, s.count);
      if (d.config == cuda::kConfigVendor && big_enough && !s.skipped && cuda::gemm_vendor_ok(device_precision<T>(), r))
        return kRunVendor;
      bool aligned = (s.address_bits & 15) == 0;
      for (int o = 0; o < kOperands && s.ptr_index < 0; ++o) aligned = aligned && (s.stride[o] & 15) == 0;
      return aligned ? d.config_aligned : d.config_any;
    }
  }

  // Scratch that a skipped problem of a vendor run computes on instead of its matrices (device
  // pointer arrays): the largest of its operands' extents, in bytes.
  static std::size_t scratch_bytes(const Group &d) {
    const Run &r = d.run;
    auto extent = [](int rows, int cols, int ld) { return std::size_t(matrix_extent(BLAS_ColMajor, rows, cols, ld)); };
    const std::size_t a = extent(r.ta == 0 ? r.m : r.k, r.ta == 0 ? r.k : r.m, r.A.ld);
    const std::size_t b = extent(r.tb == 0 ? r.k : r.n, r.tb == 0 ? r.n : r.k, r.B.ld);
    return std::max({a, b, extent(r.m, r.n, r.C.ld)}) * sizeof(T);
  }

  // Units (team tasks) of a run under a configuration, and units per thread block.
  static int64_t units(const Run &r, int config) { return cuda::gemm_units(r, shapes()[config]); }
  static int units_per_block(int config) { return std::max(shapes()[config].teams_per_block, 1); }
  // No kernel choice by the runs' flags (run_flags: none; launch's `common` unused).
  static uint32_t run_flags(const Run &) { return 0; }
  static int launch(cuda::Session &s, int config, const Run *host, const Run *device, const int32_t *block_first,
                    int count, int64_t units, uint32_t /*common*/) {
    return cuda::gemm_launch(s, device_precision<T>(), config, host, device, block_first, count, units);
  }
  static bool mergeable(int config) { return shapes()[config].mergeable; }
  // BLAS_BATCHED_MERGED_BLOCKS_PER_SM (read once; 0: no merged launches) moves the rule, for A/B runs.
  static int64_t merge_blocks(const cuda::Session &s) {
    static const int per_sm = [] {
      const char *e = std::getenv("BLAS_BATCHED_MERGED_BLOCKS_PER_SM");
      return e && *e ? std::max(std::atoi(e), 0) : cuda::kMergedBlocksPerSm;
    }();
    return int64_t(s.sm_count()) * per_sm;
  }
  static int launch_merged(cuda::Session &s, const MergedPart *parts, int count) {
    cuda::GemmLaunchPart p[kConfigs];
    for (int i = 0; i < count && i < kConfigs; ++i)
      p[i].config = parts[i].config, p[i].count = parts[i].count, p[i].units = parts[i].units,
      p[i].table = static_cast<const Run *>(parts[i].table), p[i].block_first = parts[i].block_first;
    return cuda::gemm_launch_merged(s, device_precision<T>(), p, count);
  }
  static int vendor(cuda::Session &s, const Run &r) { return cuda::gemm_vendor(s, device_precision<T>(), r); }

  static const std::array<cuda::GemmShapeInfo, kConfigs> &shapes() {
    static const auto a = [] {
      std::array<cuda::GemmShapeInfo, kConfigs> a{};
      if constexpr (gpu_arithmetic<T>)
        for (int c = 0; c < kConfigs; ++c) a[c] = cuda::gemm_shape(device_precision<T>(), c);
      return a;
    }();
    return a;
  }

  // r128/c128 (no GPU arithmetic) and the reference backend: each problem's matrices come to
  // host memory, the host backend computes, and C goes back element-exact (padding between
  // columns untouched). Correct but slow: a few copies per problem (SPEC.md section 5). In
  // batches of at most kStagedBytes of host memory (staged.hpp). Writes the group's info;
  // returns a status and adds NULL-pointer problems to `failures`.
  static int staged(cuda::Session &s, const GemmCall<T> &c, int g, int64_t offset, int64_t count, Backend backend,
                    int64_t &failures) {
    const bool an = c.A_trans[g] == BLAS_NoTrans, bn = c.B_trans[g] == BLAS_NoTrans;
    const int m = c.m[g], n = c.n[g], k = c.k[g];
    const std::size_t ea = std::size_t(matrix_extent(c.layout, an ? m : k, an ? k : m, c.A_ld[g]));
    const std::size_t eb = std::size_t(matrix_extent(c.layout, bn ? k : n, bn ? n : k, c.B_ld[g]));
    const std::size_t ec = std::size_t(matrix_extent(c.layout, m, n, c.C_ld[g]));
    const int64_t batch = staged_batch_size(count, (ea + eb + ec) * sizeof(T));
    std::vector<T> buf(std::size_t(batch) * (ea + eb + ec));
    std::vector<T *> Ah(batch), Bh(batch), Ch(batch);
    for (int64_t done = 0; done < count; done += batch)
      if (int st = staged_batch(s, c, g, offset + done, std::min(batch, count - done), backend, failures, buf.data(),
                                Ah.data(), Bh.data(), Ch.data(), ea, eb, ec))
        return st;
    return s.status();
  }

 private:
  // describe's three lookups in the tuning tables for one shape of run, kept per thread until
  // the next call of this precision (which may have changed BLAS_BATCHED_GEMM_CONFIG): a call
  // of one problem per group describes 100k groups of a few shapes, and the lookups took a fifth
  // of the library's samples (H200 host, 2026-11-29). The choice depends on the problem count
  // only through vendor_pays.
  struct ConfigChoice {
    uint64_t generation = 0;  // never a live generation (they start at 1): the entry is empty
    int m = 0, n = 0, k = 0, lda = 0, ldb = 0, ldc = 0;
    uint8_t ta = 0, tb = 0;
    bool pays = false, vendor = false;
    int config = 0, aligned = 0, any = 0;
  };
  static std::atomic<uint64_t> &memo_generation() {
    static std::atomic<uint64_t> generation{1};
    return generation;
  }
  static const ConfigChoice &config_choice(const Run &r, int64_t count, bool vendor) {
    const cuda::DevPrec p = device_precision<T>();
    const bool pays = cuda::vendor_pays(r.m, r.n, r.k, count);
    const uint64_t generation = memo_generation().load(std::memory_order_relaxed);
    thread_local std::array<ConfigChoice, 64> memo;
    const unsigned hash = ((unsigned(r.m) * 131u + unsigned(r.n)) * 131u + unsigned(r.k)) * 131u +
                          unsigned(r.A.ld) * 7u + unsigned(r.B.ld) * 5u + unsigned(r.C.ld) * 3u + r.ta * 2u + r.tb;
    ConfigChoice &e = memo[hash % memo.size()];
    if (e.generation == generation && e.m == r.m && e.n == r.n && e.k == r.k && e.lda == r.A.ld &&
        e.ldb == r.B.ld && e.ldc == r.C.ld && e.ta == r.ta && e.tb == r.tb && e.pays == pays && e.vendor == vendor)
      return e;
    e.generation = generation, e.m = r.m, e.n = r.n, e.k = r.k, e.lda = r.A.ld, e.ldb = r.B.ld, e.ldc = r.C.ld;
    e.ta = r.ta, e.tb = r.tb, e.pays = pays, e.vendor = vendor;
    e.config = cuda::gemm_config(p, r.m, r.n, r.k, count, vendor);
    e.aligned = cuda::gemm_kernel_config(p, r, true);
    e.any = cuda::gemm_kernel_config(p, r, false);
    return e;
  }

  static int staged_batch(cuda::Session &s, const GemmCall<T> &c, int g, int64_t offset, int64_t count,
                          Backend backend, int64_t &failures, T *buf, T **Ah, T **Bh, T **Ch, std::size_t ea,
                          std::size_t eb, std::size_t ec) {
    const int m = c.m[g], n = c.n[g], k = c.k[g];
    const bool read_ab = !(c.alpha[g] == T(0)) && k > 0, read_c = !(c.beta[g] == T(0));
    for (int64_t i = 0; i < count; ++i) {
      const int64_t p = offset + i;
      const int err = c.problem_error(g, p);
      if (c.info) c.info[p] = err;
      failures += err != 0;
      Ah[i] = buf + i * (ea + eb + ec), Bh[i] = Ah[i] + ea, Ch[i] = Bh[i] + eb;
      if (err) {  // skipped: the host pass sees the same NULL and leaves it alone
        Ah[i] = c.A[p] ? Ah[i] : nullptr, Bh[i] = c.B[p] ? Bh[i] : nullptr, Ch[i] = c.C[p] ? Ch[i] : nullptr;
        continue;
      }
      if (read_ab && s.download(Ah[i], c.A[p], ea * sizeof(T))) return s.status();
      if (read_ab && s.download(Bh[i], c.B[p], eb * sizeof(T))) return s.status();
      if (read_c && s.download(Ch[i], c.C[p], ec * sizeof(T))) return s.status();
    }
    if (s.sync()) return s.status();
    GemmCall<T> h = c;  // the same group parameters, host pointers, one group
    const int one_group = int(count);
    h.group_count = 1, h.group_sizes = &one_group, h.info = nullptr;
    h.A_trans += g, h.B_trans += g, h.m += g, h.n += g, h.k += g, h.alpha += g, h.beta += g;
    h.A_ld += g, h.B_ld += g, h.C_ld += g;
    h.A = Ah, h.B = Bh, h.C = Ch;
    bool alloc_failed = false;
    run_staged_batch<T>(h, Routine::gemm, c.order(g), count, backend, alloc_failed);
    if (alloc_failed) return s.fail(BLAS_BATCHED_ERR_ALLOC);
    const bool col = c.layout == BLAS_ColMajor;
    for (int64_t i = 0; i < count; ++i) {
      const int64_t p = offset + i;
      if (c.info ? c.info[p] != 0 : c.problem_error(g, p) != 0) continue;
      if (s.upload_matrix(c.C[p], Ch[i], std::size_t(c.C_ld[g]) * sizeof(T), std::size_t(col ? m : n) * sizeof(T),
                          col ? n : m))
        return s.status();
    }
    // The next batch reuses the buffers: its downloads must wait for these uploads.
    return s.sync();
  }
};

}  // namespace bb::device
