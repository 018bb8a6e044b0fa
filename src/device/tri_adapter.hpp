// trsm and trmm on the GPU: how a group becomes runs of the device core (cuda/tri). Triangles
// of order <= 32 (33 in r32, and r16 trsm) go to the leaf kernels in the driver's launches,
// except c64 trsm of order 30..32 in groups of 4096 problems or more (tri_group_recursive);
// larger ones (and alpha = 0 above that order) to the core's recursion, one run at a time from
// the host (the driver's "adapter-driven" runs, planned as kRunVendor), which launches leaves
// and the gemm core on sub-blocks of the same operands: no upload, no workspace (one large
// triangle: a workspace of its diagonal blocks, cuda/tri/tri.hpp).
#pragma once
#include "../common/column_major.hpp"
#include "../cuda/tri/tri_tuning.hpp"
#include "../cuda/vendor/vendor.hpp"
#include "../host/host_backend.hpp"
#include "adapter.hpp"
#include "gemm_adapter.hpp"
#include "staged.hpp"

#include <algorithm>
#include <vector>

namespace bb::device {

template <class T, Routine R>
struct Adapter<TriangularCall<T, R>> {
  using Call = TriangularCall<T, R>;
  static constexpr bool supported = true;
  static constexpr bool native = gpu_arithmetic<T>;  // else staged through the host
  static constexpr bool kMergedLaunch = false;
  static constexpr int kOperands = 2;                // A, B: B last, NULL for skipped problems
  static constexpr int kConfigs = cuda::kTriConfigs;
  static constexpr int kInline = cuda::kTriInlineRuns;
  static constexpr bool kNumericInfo = false;  // a singular A is not reported (BLAS)
  static constexpr bool kZeroesInfo = true;    // TriRun::info
  using Run = cuda::TriRun;

  struct Group {
    Run run;
    int config = 0;
    bool recursive = false;  // the core's recursion from the host, not a leaf launch
    bool vendor_library = false;  // trsm under the vendor backend: cuBLAS trsmBatched (cuda/vendor)
    const void *const *arrays[2] = {};
    int arg_of[2] = {0, 1};
    unsigned needed = 0, used = 0;
  };

  // The vendor backend runs trsm on cuBLAS's trsmBatched where it applies (cuda/vendor); trmm,
  // which cuBLAS has no batched routine for, on the library's kernels (SPEC.md section 7).
  static Group describe(const Call &c, int g, int64_t count, Backend backend) {
    Group d;
    const TriangularColumnMajor cm = column_major_triangular(c.layout, c.side[g], c.uplo[g], c.m[g], c.n[g]);
    Run &r = d.run;
    r.m = cm.m, r.n = cm.n;
    r.left = cm.side == BLAS_Left, r.lower = cm.uplo == BLAS_Lower;
    r.unit_diag = c.diag[g] == BLAS_Unit;
    r.solve = R == Routine::trsm;
    r.trans = op_index(c.A_trans[g]);
    scalar_pair(c.alpha[g], r.alpha);
    r.zero_alpha = c.alpha[g] == T(0);
    r.A.ld = c.A_ld[g], r.B.ld = c.B_ld[g];
    d.arrays[0] = reinterpret_cast<const void *const *>(c.A);
    d.arrays[1] = reinterpret_cast<const void *const *>(c.B);
    d.needed = c.needed_pointers(g);
    d.used = d.needed ? (r.zero_alpha ? 2u : 3u) : 0u;  // alpha = 0: A is not read
    d.recursive = r.order() > cuda::kTriLeafMax;
    if constexpr (gpu_arithmetic<T>) {
      d.recursive = cuda::tri_group_recursive(device_precision<T>(), r, count);
      d.config = cuda::tri_config(r.order());
      d.vendor_library = R == Routine::trsm && backend == Backend::vendor && cuda::trsm_vendor_ok(device_precision<T>(), r);
    }
    return d;
  }

  static bool group_ok(const Call &, int) { return true; }
  static void start_call() {}
  static Where where(const Group &d) { return d.vendor_library ? Where::cuda_vendor : Where::cuda_kernel; }

  // As for the factorizations (factor_adapter.hpp): not on NULL entries the host pass found, not
  // while the call is being captured into a graph.
  static bool vendor_takes(const Group &d, const Segment &s) { return d.vendor_library && !s.skipped && !s.capturing; }

  static Run make_run(const Group &d, const Segment &s, const ChunkPlace &place) {
    Run r = d.run;
    r.problems = s.count;
    r.vendor_library = vendor_takes(d, s);
    r.info = place.zero_info ? place.zero_info + s.first : nullptr;
    cuda::DevOperand *ops[2] = {&r.A, &r.B};
    for (int o = 0; o < kOperands; ++o) place_operand(*ops[o], o, d.arg_of[o], d.arrays[o], sizeof(T), s, place);
    return r;
  }

  static bool strided_ok(const Group &d, const Segment &s) {
    constexpr int64_t elem[kOperands] = {sizeof(T), sizeof(T)};
    return strided_form_ok(s, d.used, kOperands, elem);
  }

  // Larger triangles run the recursion from the host. On device pointer arrays it gets the
  // driver's checked copy, where a NULL problem's pointers all lead to scratch nobody reads: the
  // leaves and the gemm core skip a NULL pointer they read, but alpha = 0 zeroes B without
  // reading A, so a problem whose A alone is NULL would have its B zeroed.
  static int plan_config(const Group &d, const Segment &s, const Run &) {
    return d.recursive || vendor_takes(d, s) ? kRunVendor : d.config;
  }
  static std::size_t scratch_bytes(const Group &d) {
    const Run &r = d.run;  // column-major
    const int64_t a = matrix_extent(BLAS_ColMajor, r.order(), r.order(), r.A.ld);
    return std::size_t(std::max(a, matrix_extent(BLAS_ColMajor, r.m, r.n, r.B.ld))) * sizeof(T);
  }
  static int64_t units(const Run &r, int config) { return cuda::tri_units(r, config); }
  static int units_per_block(int config) { return cuda::tri_units_per_block(device_precision<T>(), config); }
  static uint32_t run_flags(const Run &) { return 0; }  // no kernel choice by them
  static int launch(cuda::Session &s, int config, const Run *host, const Run *device, const int32_t *block_first,
                    int count, int64_t units, uint32_t /*common*/) {
    if constexpr (!gpu_arithmetic<T>) return s.fail(BLAS_BATCHED_ERR_DEVICE);
    else return cuda::tri_launch(s, device_precision<T>(), config, host, device, block_first, count, units);
  }
  static int vendor(cuda::Session &s, const Run &r) {
    if constexpr (!gpu_arithmetic<T>) return s.fail(BLAS_BATCHED_ERR_DEVICE);
    else if (r.vendor_library) return cuda::trsm_vendor(s, device_precision<T>(), r);
    else return cuda::tri_recursive(s, device_precision<T>(), r, false, true);  // describe's choice
  }

  // r128/c128 and the reference backend: each problem's A (its whole extent) and B come to host
  // memory, the host backend computes, and B goes back element-exact (padding untouched); in
  // batches of at most kStagedBytes of host memory (staged.hpp). Writes the group's info; adds
  // NULL-pointer problems to `failures`.
  static int staged(cuda::Session &s, const Call &c, int g, int64_t offset, int64_t count, Backend backend,
                    int64_t &failures) {
    const int m = c.m[g], n = c.n[g], k = c.side[g] == BLAS_Left ? m : n;
    const bool col = c.layout == BLAS_ColMajor, read_inputs = !(c.alpha[g] == T(0));
    const std::size_t ea = std::size_t(matrix_extent(c.layout, k, k, c.A_ld[g]));
    const std::size_t eb = std::size_t(matrix_extent(c.layout, m, n, c.B_ld[g]));
    const int64_t batch = staged_batch_size(count, (ea + eb) * sizeof(T));
    std::vector<T> buf(std::size_t(batch) * (ea + eb));
    std::vector<T *> Ah(batch), Bh(batch);
    for (int64_t done = 0; done < count; done += batch) {
      const int64_t nb = std::min(batch, count - done);
      for (int64_t i = 0; i < nb; ++i) {
        const int64_t p = offset + done + i;
        const int err = c.problem_error(g, p);
        if (c.info) c.info[p] = err;
        failures += err != 0;
        Ah[i] = buf.data() + i * (ea + eb), Bh[i] = Ah[i] + ea;
        if (err) {  // the host pass sees the same NULL and leaves the problem alone
          Ah[i] = c.A[p] ? Ah[i] : nullptr, Bh[i] = c.B[p] ? Bh[i] : nullptr;
          continue;
        }
        if (read_inputs && s.download(Ah[i], c.A[p], ea * sizeof(T))) return s.status();
        if (read_inputs && s.download(Bh[i], c.B[p], eb * sizeof(T))) return s.status();
      }
      if (s.sync()) return s.status();
      Call h = c;  // the same group parameters, host pointers, one group
      const int one_group = int(nb);
      h.group_count = 1, h.group_sizes = &one_group, h.info = nullptr;
      h.addressing = Addressing::host_arrays;
      h.side += g, h.uplo += g, h.A_trans += g, h.diag += g, h.m += g, h.n += g, h.alpha += g;
      h.A_ld += g, h.B_ld += g;
      h.A = Ah.data(), h.B = Bh.data();
      bool alloc_failed = false;
      run_staged_batch<T>(h, R, c.order(g), nb, backend, alloc_failed);
      if (alloc_failed) return s.fail(BLAS_BATCHED_ERR_ALLOC);
      for (int64_t i = 0; i < nb; ++i) {
        const int64_t p = offset + done + i;
        if (c.problem_error(g, p)) continue;
        if (s.upload_matrix(c.B[p], Bh[i], std::size_t(c.B_ld[g]) * sizeof(T), std::size_t(col ? m : n) * sizeof(T),
                            col ? n : m))
          return s.status();
      }
      if (s.sync()) return s.status();  // the next batch reuses the buffers
    }
    return s.status();
  }
};

}  // namespace bb::device
