// getrf and getri on the GPU: how a group becomes runs of the device LU core (cuda/lu/).
#pragma once
#include "../cuda/lu/lu_tuning.hpp"
#include "../host/host_backend.hpp"
#include "adapter.hpp"
#include "gemm_adapter.hpp"

#include <algorithm>
#include <vector>

namespace bb::device {

// Both routines: operand 0 is A, operand 1 ipiv (their pointer arrays, in that order).
template <class Call, class T, cuda::LuRoutine R>
struct LuAdapter {
  static constexpr bool supported = true;
  static constexpr bool native = gpu_arithmetic<T>;  // else staged through the host
  static constexpr int kOperands = 2;
  static constexpr int kConfigs = cuda::kLuConfigs;
  static constexpr int kInline = cuda::kLuInlineSegs;
  static constexpr bool kNumericInfo = true;  // zero pivots; getri's pivots out of range
  static constexpr bool kZeroesInfo = true;   // LuSeg::info
  using Run = cuda::LuSeg;
  static constexpr int kIpivPosition = R == cuda::LuRoutine::getrf ? 6 : 5;

  struct Group {
    Run run;
    int config = 0;
    const void *const *arrays[kOperands];
    int arg_of[kOperands] = {0, 1};
    unsigned needed = 0, used = 0;
  };

  static int rows(const Call &c, int g) {
    if constexpr (R == cuda::LuRoutine::getrf) return c.m[g];
    else return c.n[g];
  }

  static Group describe(const Call &c, int g, int64_t, Backend) {
    Group d;
    Run &r = d.run;
    r.m = rows(c, g), r.n = c.n[g];
    r.row_major = c.layout == BLAS_RowMajor;
    r.A.ld = c.A_ld[g];
    r.bad_pivot_code = -c.position(kIpivPosition);
    d.arrays[0] = reinterpret_cast<const void *const *>(c.A);
    d.arrays[1] = reinterpret_cast<const void *const *>(c.ipiv);
    d.needed = d.used = c.needed_pointers(g);
    if constexpr (gpu_arithmetic<T>) d.config = cuda::lu_config(device_precision<T>(), R, r.m, r.n);
    return d;
  }

  // Whether the device takes the group at all (else the call returns UNSUPPORTED untouched).
  static bool group_ok(const Call &c, int g) { return cuda::lu_supported(R, c.n[g]); }

  static void start_call() {}
  static Where where(const Group &) { return Where::cuda_kernel; }

  static Run make_run(const Group &d, const Segment &s, const ChunkPlace &place) {
    Run r = d.run;
    r.problems = s.count;
    r.codes = place.codes ? place.codes + s.chunk_pos : nullptr;
    r.info = place.zero_info ? place.zero_info + s.first : nullptr;
    cuda::DevOperand *ops[kOperands] = {&r.A, &r.ipiv};
    const int64_t elem[kOperands] = {int64_t(sizeof(T)), int64_t(sizeof(int))};
    for (int o = 0; o < kOperands; ++o) {
      if (s.ptr_index >= 0) {
        ops[o]->p = place.pointer_block + (o * place.block_problems + s.ptr_index) * int64_t(sizeof(void *));
        ops[o]->step = 0, ops[o]->array = true;
      } else if (s.device_array) {
        ops[o]->p = d.arrays[o] + s.first, ops[o]->step = 0, ops[o]->array = true;
      } else {
        ops[o]->p = s.base[o], ops[o]->step = s.stride[o] / elem[o], ops[o]->array = false;
      }
    }
    return r;
  }

  static bool strided_ok(const Group &d, const Segment &s) {
    if (!s.strided || s.skipped || s.device_array) return false;
    return !(d.used & 1u) || (s.stride[0] % int64_t(sizeof(T)) == 0 && s.stride[1] % int64_t(sizeof(int)) == 0);
  }

  static int plan_config(const Group &d, const Segment &, const Run &) { return d.config; }
  static std::size_t scratch_bytes(const Group &) { return 0; }  // no vendor runs
  static int64_t units(const Run &r, int config) { return cuda::lu_units(r, config); }
  static int units_per_block(int config) { return cuda::lu_units_per_block(device_precision<T>(), R, config); }
  static int launch(cuda::Session &s, int config, const Run *host, const Run *device, const int32_t *block_first,
                    int count, int64_t units) {
    if constexpr (gpu_arithmetic<T>)
      return cuda::lu_launch(s, device_precision<T>(), R, config, host, device, block_first, count, units);
    else
      return s.fail(BLAS_BATCHED_ERR_DEVICE);
  }
  static int vendor(cuda::Session &s, const Run &) { return s.fail(BLAS_BATCHED_ERR_DEVICE); }  // never planned

  // r128/c128 and the reference backend: each problem's A (its whole extent) and ipiv come to
  // host memory, the host backend computes, and A (its logical elements) and getrf's ipiv go
  // back; in batches of at most kStagedBytes of host memory. Writes the group's info; adds
  // its problems with non-zero info to `failures`.
  static constexpr std::size_t kStagedBytes = std::size_t(8) << 20;
  static int staged(cuda::Session &s, const Call &c, int g, int64_t offset, int64_t count, Backend backend,
                    int64_t &failures) {
    const int m = rows(c, g), n = c.n[g], npiv = std::min(m, n);
    const bool col = c.layout == BLAS_ColMajor;
    const std::size_t ea = (m == 0 || n == 0) ? 0
                           : col ? std::size_t(n - 1) * c.A_ld[g] + m : std::size_t(m - 1) * c.A_ld[g] + n;
    const std::size_t per = std::max<std::size_t>(ea * sizeof(T) + npiv * sizeof(int), 1);
    const int64_t batch = std::max<int64_t>(1, std::min<int64_t>(count, int64_t(kStagedBytes / per)));
    std::vector<T> abuf(std::size_t(batch) * ea);
    std::vector<int> pbuf(std::size_t(batch) * npiv), info(batch);
    std::vector<T *> Ah(batch);
    std::vector<int *> Ph(batch);
    for (int64_t done = 0; done < count; done += batch) {
      const int64_t k = std::min(batch, count - done);
      for (int64_t i = 0; i < k; ++i) {
        const int64_t p = offset + done + i;
        Ah[i] = c.A[p] ? abuf.data() + i * ea : nullptr;
        Ph[i] = c.ipiv[p] ? pbuf.data() + i * npiv : nullptr;
        if (null_pointer_error(c, c.needed_pointers(g), p)) continue;  // the host pass reports it
        if (s.download(Ah[i], c.A[p], ea * sizeof(T))) return s.status();
        if (R == cuda::LuRoutine::getri && s.download(Ph[i], c.ipiv[p], npiv * sizeof(int))) return s.status();
      }
      if (s.sync()) return s.status();
      Call h = c;  // the same group parameters, host pointers, one group
      const int one_group = int(k);
      h.group_count = 1, h.group_sizes = &one_group, h.info = info.data();
      h.addressing = Addressing::host_arrays;
      h.n += g, h.A_ld += g;
      if constexpr (R == cuda::LuRoutine::getrf) h.m += g;
      h.A = Ah.data(), h.ipiv = Ph.data();
      const Where where = host_choice<T>(backend, Call::routine, c.order(g));
      const int64_t first[2] = {0, k};
      const GroupRecord group{0, where};
      const double order = double(c.order(g));
      const host::GroupTable table{first, &group, 1, double(k) * order * order * order, where == Where::host_lapack};
      bool alloc_failed = false;
      failures += host::run(h, table, backend == Backend::reference, alloc_failed);
      if (alloc_failed) return s.fail(BLAS_BATCHED_ERR_ALLOC);
      for (int64_t i = 0; i < k; ++i) {
        const int64_t p = offset + done + i;
        if (c.info) c.info[p] = info[i];
        // What the host wrote goes back: getri leaves a failed problem untouched, getrf
        // completes one with a zero pivot; NULL pointers and bad pivots touch nothing.
        if (info[i] < 0 || (R == cuda::LuRoutine::getri && info[i] > 0)) continue;
        if (s.upload_matrix(c.A[p], Ah[i], std::size_t(c.A_ld[g]) * sizeof(T), std::size_t(col ? m : n) * sizeof(T),
                            col ? n : m))
          return s.status();
        if (R == cuda::LuRoutine::getrf && s.upload(c.ipiv[p], Ph[i], npiv * sizeof(int))) return s.status();
      }
      if (s.sync()) return s.status();  // the next batch reuses the buffers
    }
    return s.status();
  }
};

template <class T>
struct Adapter<GetrfCall<T>> : LuAdapter<GetrfCall<T>, T, cuda::LuRoutine::getrf> {};
template <class T>
struct Adapter<GetriCall<T>> : LuAdapter<GetriCall<T>, T, cuda::LuRoutine::getri> {};

}  // namespace bb::device
