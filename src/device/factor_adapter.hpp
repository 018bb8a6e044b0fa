// The dense factorizations on the GPU (getrf, getri, potrf, geqrf): how a group becomes runs of
// their device cores (cuda/lu, cuda/chol, cuda/qr). One adapter for the four: they share the
// run type, the addressing of A and of one per-problem vector (ipiv or tau), and the staging of
// r128/c128 through the host.
#pragma once
#include "../cuda/chol/chol_tuning.hpp"
#include "../cuda/lu/lu_tuning.hpp"
#include "../cuda/qr/qr_tuning.hpp"
#include "../cuda/vendor/vendor.hpp"
#include "../host/host_backend.hpp"
#include "adapter.hpp"
#include "gemm_adapter.hpp"
#include "staged.hpp"

#include <algorithm>
#include <vector>

namespace bb::device {

// Operand 0 is A, operand 1 (where there is one) ipiv or tau: their pointer arrays, in that order.
template <class Call, class T>
struct FactorAdapter {
  static constexpr Routine R = Call::routine;
  static constexpr bool kGetrf = R == Routine::getrf, kGetri = R == Routine::getri;
  static constexpr bool kPotrf = R == Routine::potrf, kGeqrf = R == Routine::geqrf;
  // The inverse in one call (getri's call, getrf first): ipiv is an output.
  static constexpr bool kInverse = Call::kFactorFirst;
  static constexpr bool supported = true;
  static constexpr bool native = gpu_arithmetic<T>;  // else staged through the host
  static constexpr bool kMergedLaunch = false;
  static constexpr int kOperands = kPotrf ? 1 : 2;
  static constexpr int kConfigs =
      kPotrf ? int(cuda::kCholConfigs) : kGeqrf ? int(cuda::kQrConfigs) : int(cuda::kLuConfigs);
  static constexpr int kInline = cuda::kFactorInlineRuns;
  // Numerical codes: zero pivots, getri's pivots out of range, potrf's failed minors; geqrf has none.
  static constexpr bool kNumericInfo = !kGeqrf;
  static constexpr bool kZeroesInfo = true;  // FactorRun::info
  using Run = cuda::FactorRun;
  static constexpr cuda::LuRoutine kLu =
      kInverse ? cuda::LuRoutine::getrf_getri : kGetri ? cuda::LuRoutine::getri : cuda::LuRoutine::getrf;
  static constexpr cuda::VendorFactor kVendor = kInverse ? cuda::VendorFactor::getrf_getri
                                                : kGetri ? cuda::VendorFactor::getri
                                                : kPotrf ? cuda::VendorFactor::potrf
                                                : kGeqrf ? cuda::VendorFactor::geqrf
                                                         : cuda::VendorFactor::getrf;
  // The per-problem vector's element, and its position in the signature (getri's pivot code).
  using Vector = std::conditional_t<kGeqrf, T, int>;
  static constexpr int kVectorPosition = kGetri ? 5 : 6;

  struct Group {
    Run run;
    int config = 0;
    bool blocked = false;  // the shape takes a blocked algorithm (getrf_blocked, potrf_blocked,
                           // geqrf_blocked: planned as kRunVendor)
    bool vendor_library = false;  // the vendor library (cuda/vendor) takes the shape: under the
                                  // vendor backend, and native getri's and potrf's larger orders
    bool tuned_to_vendor = false;  // the latter: the native backend's measured crossover
    bool getri_on_vendor = false;  // the inverse in one call at those orders: getri's part only
    bool solver_per_problem = false;  // getrf's and potrf's few large problems: cuSOLVER per
                                      // problem (lu_tuning.hpp, chol_tuning.hpp)
    const void *const *arrays[2] = {};
    int arg_of[2] = {0, 1};
    unsigned needed = 0, used = 0;
  };

  static int rows(const Call &c, int g) {
    if constexpr (kGetrf || kGeqrf) return c.m[g];
    else return c.n[g];
  }
  static const void *const *vector_array(const Call &c) {
    if constexpr (kGeqrf) return reinterpret_cast<const void *const *>(c.tau);
    else if constexpr (kPotrf) return nullptr;
    else return reinterpret_cast<const void *const *>(c.ipiv);
  }

  static Group describe(const Call &c, int g, int64_t count, Backend backend) {
    Group d;
    Run &r = d.run;
    r.m = rows(c, g), r.n = c.n[g];
    r.row_major = c.layout == BLAS_RowMajor;
    r.A.ld = c.A_ld[g];
    if constexpr (kPotrf) r.lower = c.uplo[g] == BLAS_Lower;
    if constexpr (kGetri) r.bad_pivot_code = -c.position(kVectorPosition);
    d.arrays[0] = reinterpret_cast<const void *const *>(c.A);
    d.arrays[1] = vector_array(c);
    d.needed = d.used = c.needed_pointers(g);
    if constexpr (gpu_arithmetic<T>) {
      const cuda::DevPrec p = device_precision<T>();
      if constexpr (kPotrf) d.config = cuda::chol_config(p, r.n);
      else if constexpr (kGeqrf) d.config = cuda::qr_config(p, r.m, r.n);
      else d.config = cuda::lu_config(p, kLu, r.m, r.n);
      // The inverse in one call blocks where getrf does; its getri part then runs as getri's call
      // would (getrf_getri_blocked). getri blocks only from orders where getrf does (lu_tuning.hpp),
      // so the two calls and the one see the same algorithms (the tuning variables can break that).
      if constexpr (kGetrf || kInverse) d.blocked = cuda::lu_blocked(p, r.m, r.n);
      if constexpr (kGetri && !kInverse) d.blocked = cuda::lu_getri_blocked(p, r.n);
      if constexpr (kPotrf) d.blocked = cuda::chol_blocked(p, r.n);
      if constexpr (kGeqrf) d.blocked = cuda::qr_blocked(p, r.m, r.n);
      // getri's larger orders go to the vendor library under the native backend too (lu_tuning.hpp);
      // the inverse in one call there runs getrf's kernels and the vendor's getri, as the two
      // calls would (its vendor path would run cuBLAS's getrf as well).
      const bool native_getri_vendor = kGetri && backend == Backend::native && cuda::lu_getri_native_vendor(p, r.n) &&
                                       cuda::factor_vendor_ok(cuda::VendorFactor::getri, p, r);
      // potrf's larger orders go to cuSOLVER under the native backend too (chol_tuning.hpp).
      const bool batched_takes = kPotrf && cuda::factor_vendor_ok(kVendor, p, r);
      const bool native_potrf_vendor =
          kPotrf && backend == Backend::native && cuda::chol_native_vendor(p, r.n, count) && batched_takes;
      // A few problems of potrf: cuSOLVER's potrf one problem at a time, either triangle,
      // where the host knows the addresses (before the batched crossover, which it replaces).
      const bool native_potrf_solver = kPotrf && backend == Backend::native && d.blocked &&
                                       c.addressing != Addressing::device_arrays &&
                                       cuda::chol_native_solver(p, r.n, count, batched_takes);
      d.vendor_library = kInverse ? backend == Backend::vendor && cuda::factor_vendor_ok(kVendor, p, r)
                         : backend == Backend::vendor ? cuda::factor_vendor_ok(kVendor, p, r)
                                                      : native_getri_vendor || (native_potrf_vendor && !native_potrf_solver);
      d.tuned_to_vendor = !kInverse && backend == Backend::native && d.vendor_library;
      d.getri_on_vendor = kInverse && native_getri_vendor;
      // cuSOLVER's getrf takes one matrix per call at an address the host must know: not with
      // device pointer arrays (reading them back would be a sync).
      d.solver_per_problem = native_potrf_solver ||
                             (kGetrf && backend == Backend::native && d.blocked &&
                              c.addressing != Addressing::device_arrays &&
                              cuda::factor_vendor_ok(cuda::VendorFactor::getrf, p, r) &&
                              cuda::lu_getrf_native_solver(p, r.n, count));
    }
    return d;
  }

  // Whether the device takes the group at all (else the call returns UNSUPPORTED untouched).
  static bool group_ok(const Call &c, int g) {
    if constexpr (kGetrf || kGetri) return cuda::lu_supported(kLu, c.n[g]);
    else return true;
  }

  static void start_call() {}
  static Where where(const Group &d) {
    return d.getri_on_vendor ? Where::cuda_vendor
           : d.solver_per_problem ? Where::cuda_solver
           : !d.vendor_library ? Where::cuda_kernel
           : kPotrf ? Where::cuda_solver : Where::cuda_vendor;
  }

  // The vendor library takes a run of the vendor backend, unless the host pass skipped a problem
  // of it (its pointer lists would hold NULL; device pointer arrays get the checked copy instead)
  // or the call is being captured into a graph (the lists' workspace would be memory nodes).
  // The native backend's crossovers were measured on one large group: a run of few problems in a
  // chunk of many runs keeps the one launch of the library's kernels that it shares with the
  // others (factor_blocked_run, as for the blocked algorithm) instead of a vendor call of its own.
  static bool vendor_takes(const Group &d, const Segment &s) {
    return d.vendor_library && vendor_run(s, d.tuned_to_vendor);
  }
  static bool vendor_run(const Segment &s, bool tuned) {
    return !s.skipped && !s.capturing && (!tuned || cuda::factor_blocked_run(s.count, s.chunk_runs));
  }

  static Run make_run(const Group &d, const Segment &s, const ChunkPlace &place) {
    Run r = d.run;
    r.problems = s.count;
    r.vendor_library = vendor_takes(d, s);
    // As vendor_takes, for the inverse's getri part (so that it runs where getri called alone
    // would: the same bits, SPEC.md section 9.4); getrf's part blocks where plan_config would.
    r.getri_on_vendor = d.getri_on_vendor && vendor_run(s, true);
    r.getrf_by_blocks = d.blocked && cuda::factor_blocked_run(s.count, s.chunk_runs);
    // The host's addresses for cuSOLVER's per-problem calls: the caller's host pointer arrays
    // (the uploaded block's source), or none needed for the strided form.
    const bool host_lists = s.ptr_index >= 0 && !s.device_array && s.checked_index < 0;
    r.solver_per_problem = d.solver_per_problem && r.getrf_by_blocks && vendor_run(s, true) &&
                           (host_lists || (s.ptr_index < 0 && s.checked_index < 0 && !s.device_array));
    if (r.solver_per_problem && host_lists) {
      r.host_a = d.arrays[0] + s.first;
      if constexpr (kGetrf) r.host_ipiv = d.arrays[1] + s.first;
    }
    r.codes = place.codes ? place.codes + s.chunk_pos : nullptr;
    r.info = place.zero_info ? place.zero_info + s.first : nullptr;
    cuda::DevOperand *ops[2] = {&r.A, kGeqrf ? &r.tau : &r.ipiv};
    const int64_t elem[2] = {int64_t(sizeof(T)), int64_t(sizeof(Vector))};
    for (int o = 0; o < kOperands; ++o) place_operand(*ops[o], o, d.arg_of[o], d.arrays[o], elem[o], s, place);
    return r;
  }

  static bool strided_ok(const Group &d, const Segment &s) {
    constexpr int64_t elem[2] = {sizeof(T), sizeof(Vector)};
    return strided_form_ok(s, d.used, kOperands, elem);
  }

  // Blocked getrf, getri, potrf and geqrf (and the inverse whose getrf is blocked) run from the host, unless
  // the chunk has many runs and this one few problems (cuda::factor_blocked_run), or the call
  // is being captured into a graph (any of them, non-blocking with info in device memory: their
  // workspace would be memory nodes, and the checked copy below the thread's staging memory;
  // the unblocked kernels have the same semantics). On device pointer
  // arrays they get the driver's checked copy, where a NULL problem's A and its ipiv or tau
  // lead to one scratch area: the blocks then compute there (garbage nobody reads; getrf's
  // interchanges read ipiv back only in getrf_deferred_swaps, which follows no pivot outside the
  // rows; geqrf's T reads tau with no indexing by its values) and
  // keep the problem's -k code.
  static int plan_config(const Group &d, const Segment &s, const Run &r) {
    if (vendor_takes(d, s) || r.getri_on_vendor) return kRunVendor;
    return d.blocked && !s.capturing && cuda::factor_blocked_run(s.count, s.chunk_runs) ? kRunVendor : d.config;
  }
  static std::size_t scratch_bytes(const Group &d) {  // only kRunVendor runs: A (its extent covers tau), or ipiv
    const Run &r = d.run;
    const int64_t a = matrix_extent(r.row_major ? BLAS_RowMajor : BLAS_ColMajor, r.m, r.n, r.A.ld) * int64_t(sizeof(T));
    return std::size_t(std::max<int64_t>(a, int64_t(std::min(r.m, r.n)) * int64_t(sizeof(int))));
  }
  static int64_t units(const Run &r, int config) {
    if constexpr (kPotrf) return cuda::chol_units(r, config);
    else if constexpr (kGeqrf) return cuda::qr_units(r, config);
    else return cuda::lu_units(r, config);
  }
  static int units_per_block(int config) {
    if constexpr (kPotrf) return cuda::chol_units_per_block(config);
    else if constexpr (kGeqrf) return cuda::qr_units_per_block(config);
    else return cuda::lu_units_per_block(device_precision<T>(), kLu, config);
  }
  // What a launch may choose its kernel by (cuda::factor_run_flags; getrf and getri only). The
  // chunk gives each launch the bits all its runs have (`common`), however many runs it holds.
  static uint32_t run_flags(const Run &r) {
    if constexpr (kPotrf || kGeqrf) return 0;
    else return cuda::factor_run_flags(r, int(sizeof(T)));
  }
  static int launch(cuda::Session &s, int config, const Run *host, const Run *device, const int32_t *block_first,
                    int count, int64_t units, uint32_t common) {
    if constexpr (!gpu_arithmetic<T>) return s.fail(BLAS_BATCHED_ERR_DEVICE);
    else if constexpr (kPotrf)
      return cuda::chol_launch(s, device_precision<T>(), config, host, device, block_first, count, units);
    else if constexpr (kGeqrf)
      return cuda::qr_launch(s, device_precision<T>(), config, host, device, block_first, count, units);
    else return cuda::lu_launch(s, device_precision<T>(), kLu, config, host, device, block_first, count, units, common);
  }
  // An adapter-driven run: the vendor library, or the blocked algorithm.
  static int vendor(cuda::Session &s, const Run &r) {
    if constexpr (gpu_arithmetic<T>)
      if (r.vendor_library) return cuda::factor_vendor(s, device_precision<T>(), kVendor, r);
    return blocked(s, r);
  }
  static int blocked(cuda::Session &s, const Run &r) {
    if constexpr (kGetrf && gpu_arithmetic<T>)
      return r.solver_per_problem ? cuda::getrf_solver(s, device_precision<T>(), r)
                                  : cuda::getrf_blocked(s, device_precision<T>(), r, false);
    else if constexpr (kGetri && !kInverse && gpu_arithmetic<T>)
      return cuda::getri_blocked(s, device_precision<T>(), r, false);
    else if constexpr (kInverse && gpu_arithmetic<T>) {
      const cuda::DevPrec p = device_precision<T>();
      if (!r.getri_on_vendor) return cuda::getrf_getri_blocked(s, p, r, false);
      if (r.getrf_by_blocks ? cuda::getrf_blocked(s, p, r, false) : cuda::getrf_unblocked(s, p, r)) return s.status();
      return cuda::factor_vendor(s, p, cuda::VendorFactor::getri, r);
    }
    else if constexpr (kPotrf && gpu_arithmetic<T>)
      return r.solver_per_problem ? cuda::potrf_solver(s, device_precision<T>(), r)
                                  : cuda::potrf_blocked(s, device_precision<T>(), r, false);
    else if constexpr (kGeqrf && gpu_arithmetic<T>) return cuda::geqrf_blocked(s, device_precision<T>(), r, false);
    else return s.fail(BLAS_BATCHED_ERR_DEVICE);  // never planned
  }

  // r128/c128 and the reference backend: each problem's A (its whole extent) and getri's ipiv
  // come to host memory, the host backend computes, and what it wrote goes back (A's logical
  // elements, potrf's triangle only; getrf's ipiv, geqrf's tau); in batches of at most
  // kStagedBytes of host memory (staged.hpp). Writes the group's info; adds its problems with
  // non-zero info to `failures`.
  static int staged(cuda::Session &s, const Call &c, int g, int64_t offset, int64_t count, Backend backend,
                    int64_t &failures) {
    const int m = rows(c, g), n = c.n[g], nvec = kPotrf ? 0 : std::min(m, n);
    const bool col = c.layout == BLAS_ColMajor;
    const std::size_t ld = std::size_t(c.A_ld[g]);
    const std::size_t ea = std::size_t(matrix_extent(c.layout, m, n, c.A_ld[g]));
    const int64_t batch = staged_batch_size(count, ea * sizeof(T) + nvec * sizeof(Vector));
    std::vector<T> abuf(std::size_t(batch) * ea);
    std::vector<Vector> vbuf(std::size_t(batch) * nvec);
    std::vector<int> info(batch);
    std::vector<T *> Ah(batch);
    std::vector<Vector *> Vh(batch);
    Vector *const *vectors = nullptr;
    if constexpr (kGeqrf) vectors = c.tau;
    else if constexpr (!kPotrf) vectors = c.ipiv;
    for (int64_t done = 0; done < count; done += batch) {
      const int64_t k = std::min(batch, count - done);
      for (int64_t i = 0; i < k; ++i) {
        const int64_t p = offset + done + i;
        Ah[i] = c.A[p] ? abuf.data() + i * ea : nullptr;
        Vh[i] = vectors && vectors[p] ? vbuf.data() + i * nvec : nullptr;
        if (null_pointer_error(c, c.needed_pointers(g), p)) continue;  // the host pass reports it
        if (s.download(Ah[i], c.A[p], ea * sizeof(T))) return s.status();
        if (kGetri && !kInverse && s.download(Vh[i], vectors[p], nvec * sizeof(Vector))) return s.status();
      }
      if (s.sync()) return s.status();
      Call h = c;  // the same group parameters, host pointers, one group
      const int one_group = int(k);
      h.group_count = 1, h.group_sizes = &one_group, h.info = info.data();
      h.addressing = Addressing::host_arrays;
      h.n += g, h.A_ld += g;
      if constexpr (kGetrf || kGeqrf) h.m += g;
      if constexpr (kPotrf) h.uplo += g;
      h.A = Ah.data();
      if constexpr (kGeqrf) h.tau = Vh.data();
      else if constexpr (!kPotrf) h.ipiv = Vh.data();
      bool alloc_failed = false;
      failures += run_staged_batch<T>(h, Call::routine, c.order(g), k, backend, alloc_failed);
      if (alloc_failed) return s.fail(BLAS_BATCHED_ERR_ALLOC);
      for (int64_t i = 0; i < k; ++i) {
        const int64_t p = offset + done + i;
        if (c.info) c.info[p] = info[i];
        // What the host wrote goes back: getri leaves a failed problem untouched, getrf
        // completes one with a zero pivot (the inverse in one call too: A keeps its factors),
        // potrf's failed problem holds a partial result in its triangle; NULL pointers and bad
        // pivots touch nothing.
        if (info[i] < 0 || (kGetri && !kInverse && info[i] > 0)) continue;
        if constexpr (kPotrf) {
          // Line l of the storage (a column, or a row when row-major): the triangle's part.
          const bool lower_in_lines = (c.uplo[g] == BLAS_Lower) == col;
          for (int l = 0; l < n; ++l) {
            const int from = lower_in_lines ? l : 0, to = lower_in_lines ? n : l + 1;
            const std::size_t at = std::size_t(l) * ld + from;
            if (s.upload(c.A[p] + at, Ah[i] + at, std::size_t(to - from) * sizeof(T))) return s.status();
          }
        } else {
          if (s.upload_matrix(c.A[p], Ah[i], ld * sizeof(T), std::size_t(col ? m : n) * sizeof(T), col ? n : m))
            return s.status();
        }
        if ((kGetrf || kGeqrf || kInverse) && s.upload(vectors[p], Vh[i], nvec * sizeof(Vector))) return s.status();
      }
      if (s.sync()) return s.status();  // the next batch reuses the buffers
    }
    return s.status();
  }
};

template <class T> struct Adapter<GetrfCall<T>> : FactorAdapter<GetrfCall<T>, T> {};
template <class T, bool F> struct Adapter<GetriCall<T, F>> : FactorAdapter<GetriCall<T, F>, T> {};
template <class T> struct Adapter<PotrfCall<T>> : FactorAdapter<PotrfCall<T>, T> {};
template <class T> struct Adapter<GeqrfCall<T>> : FactorAdapter<GeqrfCall<T>, T> {};

}  // namespace bb::device
