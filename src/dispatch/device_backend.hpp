// Device-resident groups: residency per group, and their runs on the CUDA backend. gemm has a
// device path in every precision (r128/c128 staged through host memory); the other routines
// do not yet, and a call that passes them device data returns BLAS_BATCHED_ERR_UNSUPPORTED.
#pragma once
#include "../api/calls.hpp"
#include "../cuda/device.hpp"
#include "../cuda/gemm/gemm.hpp"
#include "../host/host_backend.hpp"
#include "backend.hpp"

#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace bb {

struct DevicePlan {
  int group;
  int64_t offset, count;
  int ordinal;
  Where where;
  PtrScan scan[3];
};

// Whether pointer array `index` (in pointer_arrays() order) holds matrices the group uses.
template <class Call> bool pointer_array_used(const Call &, int, int) { return true; }
template <class T> bool pointer_array_used(const GemmCall<T> &c, int g, int index) {
  const bool mn = c.m[g] > 0 && c.n[g] > 0;
  return index == 2 ? mn : mn && c.k[g] > 0;  // A, B, C
}

// 0 with the group's residency, or -k for the first pointer argument whose residency differs
// from the first non-NULL pointer's. Looks at the first and last problem of each array
// (SPEC.md section 5: a group has one residency; checking every pointer would cost a driver
// call per matrix).
template <class Call>
int group_residency(const Call &c, int g, int64_t off, int64_t count, cuda::Residency &res) {
  bool have = false;
  int index = 0;
  for (const ArgRef &a : c.pointer_arrays()) {
    // An array whose matrices are empty is never touched (it may even be NULL): its
    // residency does not count.
    if (!pointer_array_used(c, g, index++)) continue;
    const auto ptrs = static_cast<const void *const *>(a.ptr);
    for (int64_t p : {off, off + count - 1}) {
      if (!ptrs[p]) continue;
      const cuda::Residency r = cuda::residency(ptrs[p]);
      if (!have) res = r, have = true;
      else if (r.device != res.device || r.ordinal != res.ordinal) return -a.pos;
    }
  }
  return 0;
}

template <class T> constexpr bool device_native_precision = !std::is_same_v<typename traits<T>::real, quad>;
template <class Call> constexpr bool has_device_path = Call::routine == Routine::gemm;

template <class T>
cuda::DevPrec device_precision() {
  using R = typename traits<T>::real;
  constexpr bool cx = traits<T>::complex;
  if constexpr (std::is_same_v<R, half>) return cx ? cuda::DevPrec::c16 : cuda::DevPrec::r16;
  else if constexpr (std::is_same_v<R, float>) return cx ? cuda::DevPrec::c32 : cuda::DevPrec::r32;
  else return cx ? cuda::DevPrec::c64 : cuda::DevPrec::r64;
}

inline int op_index(BLAS_Op op) { return op == BLAS_NoTrans ? 0 : op == BLAS_Trans ? 1 : 2; }
template <class T> void scalar_pair(const T &x, double v[2]) {
  if constexpr (traits<T>::complex) v[0] = double(x.re), v[1] = double(x.im);
  else v[0] = double(x), v[1] = 0;
}
template <class T> bool is_zero(const T &x) { return x == T(0); }

// The group as the device kernels take it: column-major (a row-major C = A B is the
// column-major C^T = B^T A^T), each matrix array strided or a host pointer array.
template <class T>
cuda::GemmGroup device_gemm_group(const GemmCall<T> &c, const DevicePlan &d, bool vendor) {
  const int g = d.group;
  const int64_t off = d.offset;
  const bool rm = c.layout == BLAS_RowMajor;
  cuda::GemmGroup gg{};
  gg.problems = d.count;
  gg.m = rm ? c.n[g] : c.m[g];
  gg.n = rm ? c.m[g] : c.n[g];
  gg.k = c.k[g];
  T **A = rm ? c.B : c.A, **B = rm ? c.A : c.B;
  const PtrScan &sa = d.scan[rm ? 1 : 0], &sb = d.scan[rm ? 0 : 1], &sc = d.scan[2];
  gg.lda = rm ? c.B_ld[g] : c.A_ld[g];
  gg.ldb = rm ? c.A_ld[g] : c.B_ld[g];
  gg.ldc = c.C_ld[g];
  gg.ta = op_index(rm ? c.B_trans[g] : c.A_trans[g]);
  gg.tb = op_index(rm ? c.A_trans[g] : c.B_trans[g]);
  scalar_pair(c.alpha[g], gg.alpha);
  scalar_pair(c.beta[g], gg.beta);
  gg.alpha_zero = is_zero(c.alpha[g]);
  gg.beta_zero = is_zero(c.beta[g]);
  // One form for all three arrays: strided only when each is (in whole elements).
  auto even = [](const PtrScan &s) { return s.strided && s.stride_bytes % int64_t(sizeof(T)) == 0; };
  if (even(sa) && even(sb) && even(sc)) {
    gg.A = A[off], gg.B = B[off], gg.C = c.C[off];
    gg.sA = sa.stride_bytes / int64_t(sizeof(T));
    gg.sB = sb.stride_bytes / int64_t(sizeof(T));
    gg.sC = sc.stride_bytes / int64_t(sizeof(T));
  } else {
    gg.Ap = reinterpret_cast<const void *const *>(A + off);
    gg.Bp = reinterpret_cast<const void *const *>(B + off);
    gg.Cp = reinterpret_cast<void *const *>(c.C + off);
  }
  gg.align16 = ((sa.address_bits | sb.address_bits | sc.address_bits) & 15) == 0;
  gg.config = cuda::gemm_config(device_precision<T>(), gg.m, gg.n, gg.k, vendor);
  // C = beta C needs no gemm; cuBLAS in half precision lets NaN in A or B through when
  // alpha = 0, so these groups always take the library's kernels.
  if (gg.config == cuda::kConfigVendor && (gg.alpha_zero || gg.k == 0))
    gg.config = cuda::gemm_config(device_precision<T>(), gg.m, gg.n, gg.k, false);
  if (gg.config == cuda::kConfigVendor && (gg.alpha_zero || gg.k == 0)) gg.config = 8;  // 32x32 tiles
  return gg;
}

// Elements from the first to the last element of a stored rows x cols matrix.
inline std::size_t extent(BLAS_Layout layout, int rows, int cols, int ld) {
  if (rows == 0 || cols == 0) return 0;
  return layout == BLAS_ColMajor ? std::size_t(cols - 1) * ld + rows
                                 : std::size_t(rows - 1) * ld + cols;
}

// r128/c128 (no GPU arithmetic): each problem's matrices come to host memory, the host
// backend computes, and C goes back element-exact (padding between columns untouched).
template <class T>
int staged_gemm(cuda::Session &s, const GemmCall<T> &c, const DevicePlan &d, Backend backend) {
  const int g = d.group;
  const bool an = c.A_trans[g] == BLAS_NoTrans, bn = c.B_trans[g] == BLAS_NoTrans;
  const int m = c.m[g], n = c.n[g], k = c.k[g];
  const std::size_t ea = extent(c.layout, an ? m : k, an ? k : m, c.A_ld[g]);
  const std::size_t eb = extent(c.layout, bn ? k : n, bn ? n : k, c.B_ld[g]);
  const std::size_t ec = extent(c.layout, m, n, c.C_ld[g]);
  const bool read_ab = !is_zero(c.alpha[g]) && k > 0, read_c = !is_zero(c.beta[g]);
  std::vector<T> buf(std::size_t(d.count) * (ea + eb + ec));
  std::vector<T *> Ah(d.count), Bh(d.count), Ch(d.count);
  for (int64_t i = 0; i < d.count; ++i) {
    const int64_t p = d.offset + i;
    Ah[i] = buf.data() + i * (ea + eb + ec), Bh[i] = Ah[i] + ea, Ch[i] = Bh[i] + eb;
    if (read_ab && s.download(Ah[i], c.A[p], ea * sizeof(T))) return s.status();
    if (read_ab && s.download(Bh[i], c.B[p], eb * sizeof(T))) return s.status();
    if (read_c && s.download(Ch[i], c.C[p], ec * sizeof(T))) return s.status();
  }
  if (s.sync()) return s.status();
  GemmCall<T> h = c;  // the same group parameters, host pointers, one group
  const int count = int(d.count);
  h.group_count = 1, h.group_sizes = &count, h.info = nullptr;
  h.A_trans += g, h.B_trans += g, h.m += g, h.n += g, h.k += g, h.alpha += g, h.beta += g;
  h.A_ld += g, h.B_ld += g, h.C_ld += g;
  h.A = Ah.data(), h.B = Bh.data(), h.C = Ch.data();
  const Where where = host_choice<T>(backend, Routine::gemm, c.order(g));
  const int64_t first[2] = {0, d.count};
  const GroupRecord group{0, where};
  const double order = double(c.order(g));
  const host::GroupTable table{first, &group, 1, double(d.count) * order * order * order,
                               where == Where::host_lapack};
  bool alloc_failed = false;
  host::run(h, table, backend == Backend::reference, alloc_failed);
  if (alloc_failed) return s.fail(BLAS_BATCHED_ERR_ALLOC);
  const bool col = c.layout == BLAS_ColMajor;
  for (int64_t i = 0; i < d.count; ++i)
    if (s.upload_matrix(c.C[d.offset + i], Ch[i], std::size_t(c.C_ld[g]) * sizeof(T),
                        std::size_t(col ? m : n) * sizeof(T), col ? n : m))
      return s.status();
  return s.status();
}

// The device groups of one call, per device: enqueued by start(), waited for by finish(),
// so host groups run in between.
template <class T, class Call>
class DeviceRun {
 public:
  DeviceRun(const Call &c, std::vector<DevicePlan> &plan, Backend backend)
      : c_(c), plan_(plan), backend_(backend) {}

  // Host memory for plans and staging can run out like any other: no exception leaves the
  // C API (SPEC.md section 5: the device groups' info is then unspecified).
  int start() {
    try {
      return start_groups();
    } catch (const std::bad_alloc &) {
      return BLAS_BATCHED_ERR_ALLOC;
    }
  }

 private:
  int start_groups() {
    if constexpr (!has_device_path<Call>) {
      return plan_.empty() ? 0 : BLAS_BATCHED_ERR_UNSUPPORTED;
    } else {
      for (std::size_t i = 0; i < plan_.size(); ++i) {
        const int dev = plan_[i].ordinal;
        bool seen = false;
        for (std::size_t j = 0; j < i; ++j) seen |= plan_[j].ordinal == dev;
        if (seen) continue;
        sessions_.push_back(std::make_unique<cuda::Session>(dev));
        cuda::Session &s = *sessions_.back();
        std::vector<cuda::GemmGroup> groups;
        for (DevicePlan &d : plan_) {
          if (d.ordinal != dev) continue;
          if (!device_native_precision<T> || backend_ == Backend::reference) {
            d.where = Where::cuda_staged;
            if (staged_gemm(s, c_, d, backend_)) return s.status();
          } else if constexpr (device_native_precision<T>) {
            groups.push_back(device_gemm_group(c_, d, backend_ == Backend::vendor));
            d.where = groups.back().config == cuda::kConfigVendor ? Where::cuda_vendor
                                                                   : Where::cuda_kernel;
          }
        }
        if constexpr (device_native_precision<T>)
          if (!groups.empty() &&
              cuda::gemm(s, device_precision<T>(), groups.data(), int(groups.size())))
            return s.status();
      }
      return 0;
    }
  }

 public:
  // Waits for every device; the first failure wins. device_ms sums the devices' times.
  int finish(double &device_ms) {
    int status = 0;
    device_ms = -1;
    for (auto &s : sessions_) {
      double ms = -1;
      const int st = s->finish(ms);
      if (!status) status = st;
      if (ms >= 0) device_ms = (device_ms < 0 ? 0 : device_ms) + ms;
    }
    // Last in, first out: each session restores the device current before it, so the
    // caller ends on its own device.
    while (!sessions_.empty()) sessions_.pop_back();
    return status;
  }

 private:
  const Call &c_;
  std::vector<DevicePlan> &plan_;
  Backend backend_;
  std::vector<std::unique_ptr<cuda::Session>> sessions_;
};

}  // namespace bb
