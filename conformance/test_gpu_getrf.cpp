// getrf and getri on device-resident data (SPEC.md sections 3-5, 9.1, 9.2), through the public C
// API only. Matrices and pivots live in device memory (cudaMalloc; a few groups in managed,
// stream-ordered pool, pinned or pageable memory); pointer arrays and info in host memory unless
// a test says otherwise. Every call's outputs are checked against
//  - the reference backend run on host copies of the same inputs (the same NULL entries): info,
//    the return value, and, where the pivots are unambiguous, ipiv; on well-conditioned inputs
//    with well-separated pivots the factors and the inverse to a normwise tolerance;
//  - checks that need no reference (common.hpp): ||P A - L U|| / (max(m, n) ||A|| eps), its
//    componentwise form on the well-separated inputs (an element that lost or took a wrong
//    update shows even in a large half problem), the partial-pivoting bound |L(i,j)| <= 1
//    (sqrt 2 for complex), ||I - A inv(A)|| / (n ||A|| ||inv(A)|| eps), and info read off the
//    factors (the first exactly zero U(i,i));
//  - bytes: every byte a call may not write (the NaN padding of each column or row, the gaps
//    between matrices, the guards after them, ipiv past min(m, n), skipped problems, the
//    pointer arrays, getri's pivots and the matrices getri may not change) is compared bit for
//    bit with what was there before; info and ipiv start poisoned, so an entry left unwritten
//    shows.
// Inputs (common.hpp): row-permuted column-diagonally-dominant matrices (the pivots are forced,
// so ipiv is known in advance: also in half precision, where a random matrix may hold ties),
// planted factors whose pivots LAPACK's |re| + |im| rule and a modulus rule choose differently,
// random matrices (residuals, and ipiv against the reference up to the first step a stable
// backend could decide otherwise), exactly singular matrices (zero columns, zero rows, zeroed
// U(i,i)), NaN / Inf / subnormal numbers and exact ties (the pivot rule of SPEC.md section 3).
// Sizes: every order 1..32 (register kernels), rectangles, and orders 33..512 through getrf's
// and getri's blocked algorithms and their unblocked kernels (getri's shared-memory and
// global-memory kernels, up to 256). Each call runs under both device
// backends (native, vendor); r128 / c128, staged through the host kernels under either, run
// under native with the same checks and smaller sizes and batches. The host side (the
// reference backend and the checks, in double or binary128) dominates the run time.
// Without a GPU every test skips (gpu_common.hpp); BB_GPU_REDUCED=1 shrinks it for sanitizers.
#include "gpu_common.hpp"

#include <omp.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <map>
#include <numeric>
#include <optional>
#include <set>

namespace conf {
namespace {

using gpu::Buffer;
using gpu::Mem;

constexpr int kIpivPoison = -7777;   // ipiv entries the library has not written
constexpr int kInfoPoison = -12345;  // info entries the library has not written
constexpr int kIpivGuard = 3;        // poisoned ipiv entries after each problem's min(m, n)
// Argument numbers: the group API (SPEC.md section 4.2) and the strided signatures (9.1).
constexpr int kGetrfA = 4, kGetrfIpiv = 6, kGetriA = 3, kGetriIpiv = 5;
constexpr int kStridedGetrfAStride = 6, kStridedGetrfIpivStride = 8;
constexpr int kStridedGetriAStride = 5, kStridedGetriIpivStride = 7;

using gpu::batch;            // problems per group (gpu_common.hpp)
using gpu::device_backends;  // the device backends every call runs under
using gpu::Reporter;         // a few failure messages per check, then a count
using gpu::scaled;

enum class Routine { getrf, getri };
const char *routine_name(Routine r) { return r == Routine::getrf ? "getrf" : "getri"; }

// How a call passes its problems.
struct CallOpts {
  const char *backend = "native";
  Mem info = Mem::host;        // info in host, device or managed memory
  bool with_info = true;       // false: info = NULL, the return value is the only report
  bool device_arrays = false;  // the pointer arrays in device memory (SPEC.md 9.2)
  bool mixed_arrays = false;   // A's pointer array in device memory, ipiv's in host memory
  bool strided = false;        // the strided entry point: one group, evenly spaced problems
  std::optional<int64_t> a_stride, ipiv_stride;  // strided: strides other than the natural ones
  std::string describe() const {
    std::string s = std::string("backend ") + backend + ", info " + (with_info ? gpu::mem_name(info) : "NULL");
    if (device_arrays) s += ", device pointer arrays";
    if (mixed_arrays) s += ", A array in device memory and ipiv array in host memory";
    if (strided) s += ", strided";
    if (a_stride) s += ", A stride " + std::to_string(*a_stride);
    if (ipiv_stride) s += ", ipiv stride " + std::to_string(*ipiv_stride);
    return s;
  }
};
CallOpts on(const char *backend) {
  CallOpts o;
  o.backend = backend;
  return o;
}

// ---- one run: groups of problems in user memory, the calls on them, the checks -------------
// The matrices of each memory kind share one allocation (an arena): a group's matrices back to
// back (a gap of NaN between them in some groups, in reverse order in others), each group
// 256-byte aligned, a NaN guard at the end; the pivots likewise in an arena of their own,
// min(m, n) entries plus kIpivGuard poisoned ones per problem. getrf works on every group,
// getri on the square ones, in place on what getrf left there.
template <class T>
class LuRun {
 public:
  struct GroupSpec {
    int m = 0, n = 0, count = 0;
    Mem mem = Mem::device;  // where its matrices and pivots live
    int gap = 0;            // elements between consecutive matrices
    bool reversed = false;  // problem i's matrix in slot count - 1 - i
    bool scattered = false;  // slots 1, 0, 2, 3, ...: not evenly spaced from 3 problems on (the
                             // host pass uploads the pointer arrays instead of a base and stride)
    bool getri = true;      // square: getri inverts it too
    bool reference = true;  // compared with the reference backend (see add())
  };
  struct Ref {  // the reference backend's outputs, indexed like the call's problems
    std::vector<bool> present;  // false: a group the reference was not asked about
    std::vector<Mat<T>> A;
    std::vector<std::vector<int>> ipiv;
    std::vector<int> info;
  };

  explicit LuRun(BLAS_Layout layout, std::string what = "") : layout_(layout), what_(std::move(what)) {}

  // A group of `count` problems made by make(m, n, pad, i); one pad (so one ld) per group.
  template <class Make>
  // pad: ld - (rows or columns), drawn from 0..3 where negative.
  int add(int m, int n, int count, Make make, Mem mem = Mem::device, int pad = -1) {
    const int g = int(groups_.size());
    GroupSpec s;
    s.m = m, s.n = n, s.count = count, s.mem = mem;
    s.gap = g % 3 == 1 ? 3 : 0;
    s.reversed = g % 4 == 2;
    // Half precision beyond order 128: the reference (every operation rounded to half, in
    // software) costs seconds and tells nothing the forced pivots and the residuals do not (its
    // factors may differ by more than compare_tol's bound is worth there).
    s.reference = !(is_half<T> && std::max(m, n) > 128);
    groups_.push_back(s);
    first_.push_back(total());
    if (pad < 0) pad = random_int(0, 3);
    for (int i = 0; i < count; ++i) {
      problems_.push_back(make(m, n, pad, i));
      group_of_.push_back(g);
    }
    return g;
  }
  GroupSpec &group(int g) { return groups_[g]; }  // changes: before the first upload
  int group_count() const { return int(groups_.size()); }
  int first(int g) const { return first_[g]; }
  int total() const { return int(problems_.size()); }
  const LuProblem<T> &problem(int p) const { return problems_[p]; }
  void set_null_a(Routine r, int p) { null_a_[int(r)].insert(p); }
  void set_null_ipiv(Routine r, int p) { null_ipiv_[int(r)].insert(p); }

  // Copies the inputs (getrf's) into the arenas, poisoned ipiv included.
  void upload() {
    place();
    for (auto *arenas : {&a_, &p_})
      for (auto &[kind, a] : *arenas) {
        a.buf.write(0, a.initial.data(), a.size);
        a.state = a.initial;
      }
    factored_ = false;
    tweaked_.clear();
  }
  void download() {
    for (auto *arenas : {&a_, &p_})
      for (auto &[kind, a] : *arenas) {
        a.after.resize(a.size);
        a.buf.read(0, a.after.data(), a.size);
      }
  }
  // After a checked call: what it left becomes what the next call finds.
  void accept() {
    for (auto *arenas : {&a_, &p_})
      for (auto &[kind, a] : *arenas) a.state = a.after;
    if (routine_ == Routine::getrf) factored_ = true;
  }

  // Overwrites element (i, j) of problem p's matrix, or its pivot j, in user memory.
  void poke(int p, int i, int j, T v) {
    Arena &a = a_.at(mem_of(p));
    const std::size_t off = a_off_[p] + problems_[p].A.index(i, j) * sizeof(T);
    a.buf.write(off, &v, sizeof(T));
    std::memcpy(a.state.data() + off, &v, sizeof(T));
    tweaked_.insert(p);
  }
  void poke_ipiv(int p, int j, int v) {
    Arena &a = p_.at(mem_of(p));
    const std::size_t off = p_off_[p] + std::size_t(j) * sizeof(int);
    a.buf.write(off, &v, sizeof(int));
    std::memcpy(a.state.data() + off, &v, sizeof(int));
    tweaked_.insert(p);
  }

  // Problem p's matrix and pivots (with the guards) as the last download saw them, or as the
  // next call finds them.
  Mat<T> factors(int p) const { return mat_from(&Arena::after, p); }
  Mat<T> current(int p) const { return mat_from(&Arena::state, p); }
  std::vector<int> pivots(int p) const { return ipiv_from(&Arena::after, p); }
  const std::vector<int> &info() const { return info_; }  // of the last call, its problems' order
  // Every byte of the matrices and pivots after the last call (for comparing two calls).
  std::map<std::pair<bool, Mem>, std::vector<unsigned char>> outputs() const { return images(&Arena::after); }
  const std::string &record() const { return record_; }
  // Whether the last call of routine r ran a group holding a NULL entry on a vendor library (the
  // native backend's getri from its crossover): with host arrays that group's run keeps the
  // kernels, with device arrays it takes the vendor's with scratch, so the bits may differ
  // (SPEC.md section 7). The record names the placement of the first 16 groups.
  bool vendor_ran_with_nulls(Routine r) const {
    const std::vector<int> gs = call_groups(r);
    for (std::size_t gi = 0; gi < gs.size(); ++gi) {
      bool nulls = false;
      for (int i = 0; i < groups_[gs[gi]].count && !nulls; ++i)
        nulls = null_a_[int(r)].count(first_[gs[gi]] + i) || null_ipiv_[int(r)].count(first_[gs[gi]] + i);
      if (!nulls) continue;
      const std::string line = gpu::last_call_group_line(record_, int(gi));
      if (line.empty() || line.find("cuda/cublas") != std::string::npos || line.find("cuda/cusolver") != std::string::npos)
        return true;
    }
    return false;
  }

  // The problems of a call: getrf takes every group, getri the square ones (unless told not).
  std::vector<int> call_groups(Routine r) const {
    std::vector<int> v;
    for (int g = 0; g < group_count(); ++g)
      if (r == Routine::getrf || (groups_[g].m == groups_[g].n && groups_[g].getri)) v.push_back(g);
    return v;
  }
  std::vector<int> call_problems(Routine r) const {
    std::vector<int> v;
    for (int g : call_groups(r))
      for (int i = 0; i < groups_[g].count; ++i) v.push_back(first_[g] + i);
    return v;
  }

  // The call; keeps info (read back from wherever it lives) and the call record.
  int call(Routine r, const CallOpts &o) {
    place();
    routine_ = r, opts_ = o;
    const std::vector<int> gs = call_groups(r), ps = call_problems(r);
    const int np = int(ps.size());
    std::vector<int> m, n, ld, sizes;
    for (int g : gs) {
      const GroupSpec &s = groups_[g];
      m.push_back(s.m), n.push_back(s.n), sizes.push_back(s.count);
      ld.push_back(s.count ? problems_[first_[g]].A.ld : 1);
    }
    std::vector<T *> pa(np);
    std::vector<int *> pp(np);
    for (int k = 0; k < np; ++k) {
      const int p = ps[k];
      pa[k] = null_a_[int(r)].count(p) ? nullptr : a_addr(p);
      pp[k] = null_ipiv_[int(r)].count(p) ? nullptr : p_addr(p);
    }
    Buffer info_buf(o.info, std::size_t(std::max(np, 1)) * sizeof(int));
    {
      std::vector<int> poison(std::size_t(std::max(np, 1)), kInfoPoison);
      info_buf.write(0, poison.data(), poison.size() * sizeof(int));
      if (gpu::on_device(o.info)) CHECK_CUDA(cudaDeviceSynchronize());
    }
    int *info = o.with_info ? reinterpret_cast<int *>(info_buf.get()) : nullptr;
    Buffer da, dp;
    T **A = pa.data();
    int **ipiv = pp.data();
    if (o.device_arrays || o.mixed_arrays) {
      da = Buffer(Mem::device, pa.size() * sizeof(T *) + 1);
      da.write(0, pa.data(), pa.size() * sizeof(T *));
      A = reinterpret_cast<T **>(da.get());
    }
    if (o.device_arrays) {
      dp = Buffer(Mem::device, pp.size() * sizeof(int *) + 1);
      dp.write(0, pp.data(), pp.size() * sizeof(int *));
      ipiv = reinterpret_cast<int **>(dp.get());
    }
    const int G = int(gs.size());
    int rc = 0;
    {
      BackendScope scope(o.backend);
      if (o.strided) {
        if (G != 1 || groups_[gs[0]].reversed || groups_[gs[0]].scattered || !null_a_[int(r)].empty() ||
            !null_ipiv_[int(r)].empty()) {
          ADD_FAILURE() << "test bug: a strided call needs one group in order, without NULL entries";
          return INT_MIN;
        }
        const int g = gs[0];
        const int64_t sa = o.a_stride.value_or(a_slot_[g]), sp = o.ipiv_stride.value_or(p_slot_[g]);
        const GroupSpec &s = groups_[g];
        T *A0 = a_addr(first_[g]);
        int *P0 = p_addr(first_[g]);
        rc = r == Routine::getrf ? Api<T>::getrf_strided(layout_, s.m, s.n, A0, ld[0], sa, P0, sp, s.count, info)
                                 : Api<T>::getri_strided(layout_, s.n, A0, ld[0], sa, P0, sp, s.count, info);
      } else if (r == Routine::getrf) {
        rc = Api<T>::getrf(layout_, m.data(), n.data(), A, ld.data(), ipiv, G, sizes.data(), info);
      } else {
        rc = Api<T>::getri(layout_, n.data(), A, ld.data(), ipiv, G, sizes.data(), info);
      }
    }
    EXPECT_NO_CUDA_ERROR();
    record_ = blas_batched_last_call();
    info_.assign(np, kInfoPoison);
    if (o.with_info && np) info_buf.read(0, info_.data(), std::size_t(np) * sizeof(int));
    if (o.device_arrays || o.mixed_arrays) {  // the library only reads the arrays
      std::vector<T *> now(pa.size());
      da.read(0, now.data(), now.size() * sizeof(T *));
      EXPECT_TRUE(now == pa) << what_ << ": the A pointer array (device memory) changed";
    }
    if (o.device_arrays) {
      std::vector<int *> now(pp.size());
      dp.read(0, now.data(), now.size() * sizeof(int *));
      EXPECT_TRUE(now == pp) << what_ << ": the ipiv pointer array (device memory) changed";
    }
    return rc;
  }

  // The reference backend on host copies of what call r finds in user memory now (its
  // inputs), with the same NULL entries; with `shared_ipiv`, every problem's pivots are the
  // first problem's (a strided getri with ipiv stride 0).
  Ref reference(Routine r, bool shared_ipiv = false) {
    place();
    // The same inputs as last time (another backend left the same bits): the same answer.
    Cached &c = ref_cache_[int(r)];
    if (c.valid && c.shared_ipiv == shared_ipiv && c.states == states()) return c.ref;
    const std::vector<int> gs = call_groups(r), ps = call_problems(r);
    Ref ref;
    ref.present.assign(ps.size(), false), ref.A.resize(ps.size()), ref.ipiv.resize(ps.size());
    ref.info.assign(ps.size(), kInfoPoison);
    std::vector<int> m, n, ld, sizes, at;  // the host call: the groups marked `reference`
    for (std::size_t k = 0, gi = 0; gi < gs.size(); ++gi) {
      const GroupSpec &s = groups_[gs[gi]];
      if (s.reference) {
        m.push_back(s.m), n.push_back(s.n), sizes.push_back(s.count);
        ld.push_back(s.count ? problems_[first_[gs[gi]]].A.ld : 1);
      }
      for (int i = 0; i < s.count; ++i, ++k) {
        if (!s.reference) continue;
        const int p = ps[k];
        ref.present[k] = true, ref.A[k] = current(p);
        ref.ipiv[k] = ipiv_from(&Arena::state, shared_ipiv ? ps[0] : p);
        at.push_back(int(k));
      }
    }
    std::vector<T *> pa;
    std::vector<int *> pp;
    for (int k : at) {
      pa.push_back(null_a_[int(r)].count(ps[k]) ? nullptr : ref.A[k].ptr());
      pp.push_back(null_ipiv_[int(r)].count(ps[k]) ? nullptr : ref.ipiv[k].data());
    }
    std::vector<int> info(at.size(), kInfoPoison);
    int rc;
    {
      BackendScope scope("reference");
      const int G = int(m.size());
      rc = r == Routine::getrf
               ? Api<T>::getrf(layout_, m.data(), n.data(), pa.data(), ld.data(), pp.data(), G, sizes.data(), info.data())
               : Api<T>::getri(layout_, n.data(), pa.data(), ld.data(), pp.data(), G, sizes.data(), info.data());
    }
    EXPECT_EQ(rc, long(info.size()) - std::count(info.begin(), info.end(), 0))
        << what_ << ": the reference backend's return value on host copies";
    for (std::size_t i = 0; i < at.size(); ++i) ref.info[at[i]] = info[i];
    c.valid = true, c.shared_ipiv = shared_ipiv, c.states = states(), c.ref = ref;
    return ref;
  }

  // Checks the last call (after download()) against `ref`, computed on the same inputs: info
  // and the return value, every byte, the values, and where the groups ran.
  void verify(int rc, const Ref &ref) {
    const Routine r = routine_;
    const std::vector<int> gs = call_groups(r), ps = call_problems(r);
    const int np = int(ps.size());
    Reporter rep(describe_call(), &record_);
    // 1. info and the return value.
    std::vector<int> expect(np);
    std::vector<bool> writes(np);
    for (int k = 0; k < np; ++k) {
      const int p = ps[k];
      const GroupSpec &s = groups_[group_of_[p]];
      const std::optional<int> arg = argument_code(r, p);
      if (arg) {
        expect[k] = *arg;
      } else if (r == Routine::getrf) {
        const int zero = first_zero_diagonal(factors(p), std::min(s.m, s.n));
        expect[k] = problems_[p].info >= 0 ? problems_[p].info : zero;
        if (zero != expect[k])
          rep.fail(where(p) + ": the factors' first exactly zero U(i,i) is " + std::to_string(zero) + ", expected " +
                   std::to_string(expect[k]));
      } else {
        expect[k] = first_zero_diagonal(current(p), s.n);
      }
      writes[k] = s.m > 0 && s.n > 0 && (r == Routine::getrf ? !arg : expect[k] == 0);
      if (opts_.with_info && info_[k] != expect[k])
        rep.fail(where(p) + ": info " + (info_[k] == kInfoPoison ? std::string("not written") : std::to_string(info_[k])) +
                 ", expected " + std::to_string(expect[k]));
      if (ref.present[k] && ref.info[k] != expect[k])
        rep.fail(where(p) + ": the reference backend gives info " + std::to_string(ref.info[k]) + ", expected " +
                 std::to_string(expect[k]));
    }
    const long bad = np - std::count(expect.begin(), expect.end(), 0);
    if (rc != bad) rep.fail("returned " + std::to_string(rc) + ", expected " + std::to_string(bad) + " (problems with non-zero info)");
    // 2. bytes: outside what the call may write, what was there before.
    check_bytes(ps, writes, rep);
    // 3. values, unless they are bit for bit the ones this run's last check of the same call
    // (another backend) passed.
    if (!same_as_checked(r)) {
      const int before = rep.count();
      for (int k = 0; k < np; ++k) {
        if (!writes[k]) continue;
        const Mat<T> *rA = ref.present[k] ? &ref.A[k] : nullptr;
        const std::string f = r == Routine::getrf ? check_factors(ps[k], rA, ref.ipiv[k]) : check_inverse(ps[k], rA);
        if (!f.empty()) rep.fail(where(ps[k]) + ": " + f);
      }
      if (rep.count() == before) remember_checked(r);
    }
    // 4. where the groups ran (the record lists the first 16).
    if (!opts_.strided) check_placement(gs, rep);
    count_checked((std::string("gpu ") + routine_name(r) + " " + traits<T>::name() + " " + opts_.backend).c_str(), np);
  }

  // The last call was rejected as a whole (return value `want`): nothing written, info included.
  void verify_untouched(int rc, int want) {
    Reporter rep(describe_call(), &record_);
    if (rc != want) rep.fail("returned " + std::to_string(rc) + ", expected " + std::to_string(want));
    if (std::count(info_.begin(), info_.end(), kInfoPoison) != long(info_.size())) rep.fail("info was written");
    check_bytes(call_problems(routine_), std::vector<bool>(call_problems(routine_).size(), false), rep);
  }

  // The last call's only group was invalid (argument `arg`): every problem gets -arg, the call
  // returns their number, no matrix or pivot is written.
  void verify_group_rejected(int rc, int arg) {
    Reporter rep(describe_call(), &record_);
    const std::vector<int> ps = call_problems(routine_);
    if (rc != int(ps.size())) rep.fail("returned " + std::to_string(rc) + ", expected " + std::to_string(ps.size()));
    for (std::size_t k = 0; k < ps.size(); ++k)
      if (info_[k] != -arg) rep.fail(where(ps[k]) + ": info " + std::to_string(info_[k]) + ", expected " + std::to_string(-arg));
    check_bytes(ps, std::vector<bool>(ps.size(), false), rep);
  }

  // The bytes alone after a getrf call whose values are checked elsewhere (NaN and Inf inputs).
  void verify_bytes() {
    Reporter rep(describe_call(), &record_);
    const std::vector<int> ps = call_problems(routine_);
    std::vector<bool> writes(ps.size());
    for (std::size_t k = 0; k < ps.size(); ++k) {
      const GroupSpec &s = groups_[group_of_[ps[k]]];
      writes[k] = s.m > 0 && s.n > 0 && !argument_code(routine_, ps[k]);
    }
    check_bytes(ps, writes, rep);
  }

  // call + download + verify (against a reference computed first) + accept.
  int run(Routine r, const CallOpts &o) {
    const Ref ref = reference(r);
    const int rc = call(r, o);
    download();
    verify(rc, ref);
    accept();
    return rc;
  }

 private:
  struct Arena {
    std::size_t size = 0;
    Buffer buf;
    std::vector<unsigned char> initial, state, after;
  };

  using Images = std::map<std::pair<bool, Mem>, std::vector<unsigned char>>;
  struct Cached {
    bool valid = false, shared_ipiv = false;
    Images states;
    Ref ref;
  };
  // What the next call finds in user memory (matrices and pivots of every kind).
  Images states() const { return images(&Arena::state); }
  Images images(std::vector<unsigned char> Arena::*image) const {
    Images v;
    for (const auto &[kind, a] : a_) v[{true, kind}] = a.*image;
    for (const auto &[kind, q] : p_) v[{false, kind}] = q.*image;
    return v;
  }

  Mem mem_of(int p) const { return groups_[group_of_[p]].mem; }
  T *a_addr(int p) { return reinterpret_cast<T *>(a_.at(mem_of(p)).buf.get() + a_off_[p]); }
  int *p_addr(int p) { return reinterpret_cast<int *>(p_.at(mem_of(p)).buf.get() + p_off_[p]); }
  int steps(int p) const { return std::min(problems_[p].m, problems_[p].n); }

  Mat<T> mat_from(std::vector<unsigned char> Arena::*image, int p) const {
    Mat<T> x = problems_[p].A;
    std::memcpy(x.data.data(), (a_.at(mem_of(p)).*image).data() + a_off_[p], x.data.size() * sizeof(T));
    return x;
  }
  std::vector<int> ipiv_from(std::vector<unsigned char> Arena::*image, int p) const {
    std::vector<int> v(std::size_t(steps(p) + kIpivGuard));
    std::memcpy(v.data(), (p_.at(mem_of(p)).*image).data() + p_off_[p], v.size() * sizeof(int));
    return v;
  }

  void place() {
    if (placed_) return;
    placed_ = true;
    a_off_.assign(total(), 0), p_off_.assign(total(), 0);
    a_slot_.assign(groups_.size(), 0), p_slot_.assign(groups_.size(), 0);
    auto align = [](std::size_t x) { return (x + 255) / 256 * 256; };
    for (int g = 0; g < group_count(); ++g) {
      const GroupSpec &s = groups_[g];
      if (s.count == 0) continue;
      const Mat<T> &m0 = problems_[first_[g]].A;
      for (int i = 0; i < s.count; ++i)
        if (problems_[first_[g] + i].A.ld != m0.ld) ADD_FAILURE() << "test bug: one ld per group";
      a_slot_[g] = int64_t(m0.data.size()) + s.gap;
      p_slot_[g] = std::min(s.m, s.n) + kIpivGuard;
      Arena &a = a_[s.mem], &q = p_[s.mem];
      a.size = align(a.size), q.size = align(q.size);
      const std::size_t a0 = a.size, q0 = q.size;
      a.size += std::size_t(s.count) * a_slot_[g] * sizeof(T);
      q.size += std::size_t(s.count) * p_slot_[g] * sizeof(int);
      for (int i = 0; i < s.count; ++i) {
        const std::size_t slot = s.reversed ? s.count - 1 - i : s.scattered && i < 2 ? 1 - i : i;
        a_off_[first_[g] + i] = a0 + slot * a_slot_[g] * sizeof(T);
        p_off_[first_[g] + i] = q0 + slot * p_slot_[g] * sizeof(int);
      }
    }
    for (auto &[kind, a] : a_) {
      a.size += 256;  // guard: catches writes past the last matrix
      a.initial.assign(a.size, 0xFF);  // 0xFF bytes are NaN in every precision
      a.buf = Buffer(kind, a.size);
    }
    for (auto &[kind, q] : p_) {
      q.size = align(q.size) + 256;
      q.initial.resize(q.size);
      for (std::size_t b = 0; b < q.size; b += sizeof(int)) std::memcpy(q.initial.data() + b, &kIpivPoison, sizeof(int));
      q.buf = Buffer(kind, q.size);
    }
    for (int p = 0; p < total(); ++p) {
      const Mat<T> &x = problems_[p].A;
      std::memcpy(a_.at(mem_of(p)).initial.data() + a_off_[p], x.data.data(), x.data.size() * sizeof(T));
    }
  }

  // The code fixed by problem p's arguments (not by its numbers), if any.
  std::optional<int> argument_code(Routine r, int p) const {
    const GroupSpec &s = groups_[group_of_[p]];
    if (s.m == 0 || s.n == 0) return 0;
    const bool na = null_a_[int(r)].count(p) > 0, np = null_ipiv_[int(r)].count(p) > 0;
    if (r == Routine::getrf) {
      if (na) return -kGetrfA;
      if (np) return -kGetrfIpiv;
      return std::nullopt;
    }
    if (na) return -kGetriA;
    if (np) return -kGetriIpiv;
    const std::vector<int> piv = ipiv_from(&Arena::state, p);
    for (int j = 0; j < s.n; ++j)
      if (piv[j] < 1 || piv[j] > s.n) return -kGetriIpiv;  // a pivot out of range
    return std::nullopt;
  }

  void check_bytes(const std::vector<int> &ps, const std::vector<bool> &writes, Reporter &rep) {
    std::map<Mem, std::vector<unsigned char>> ea, ep;
    for (auto &[kind, a] : a_) ea[kind] = a.state;
    for (auto &[kind, q] : p_) ep[kind] = q.state;
    for (std::size_t k = 0; k < ps.size(); ++k) {
      if (!writes[k]) continue;
      const int p = ps[k];
      const Mat<T> &x = problems_[p].A;
      const Mem kind = mem_of(p);
      for (int j = 0; j < x.cols; ++j)
        for (int i = 0; i < x.rows; ++i) {
          const std::size_t b = a_off_[p] + x.index(i, j) * sizeof(T);
          std::memcpy(ea[kind].data() + b, a_.at(kind).after.data() + b, sizeof(T));
        }
      if (routine_ == Routine::getrf)
        std::memcpy(ep[kind].data() + p_off_[p], p_.at(kind).after.data() + p_off_[p], std::size_t(steps(p)) * sizeof(int));
    }
    for (auto &[kind, a] : a_) {
      auto mis = std::mismatch(ea[kind].begin(), ea[kind].end(), a.after.begin());
      if (mis.first != ea[kind].end())
        rep.fail(std::string("a byte the call may not write changed in the matrices (") + gpu::mem_name(kind) +
                 " memory): " + where_byte(kind, std::size_t(mis.first - ea[kind].begin()), true));
    }
    for (auto &[kind, q] : p_) {
      auto mis = std::mismatch(ep[kind].begin(), ep[kind].end(), q.after.begin());
      if (mis.first != ep[kind].end())
        rep.fail(std::string("an ipiv entry the call may not write changed (") + gpu::mem_name(kind) +
                 " memory): " + where_byte(kind, std::size_t(mis.first - ep[kind].begin()), false));
    }
  }

  std::string where_byte(Mem kind, std::size_t off, bool matrices) const {
    for (int p = 0; p < total(); ++p) {
      if (mem_of(p) != kind) continue;
      const std::size_t o = matrices ? a_off_[p] : p_off_[p];
      const std::size_t len = matrices ? problems_[p].A.data.size() * sizeof(T) : (steps(p) + kIpivGuard) * sizeof(int);
      if (off < o || off >= o + len) continue;
      if (!matrices) return where(p) + ", entry " + std::to_string((off - o) / sizeof(int));
      int i, j;
      const bool in = problems_[p].A.logical((off - o) / sizeof(T), i, j);
      return where(p) + (in ? ", element (" + std::to_string(i) + "," + std::to_string(j) + ")" : ", padding");
    }
    return "a gap between matrices or the guard after them, byte " + std::to_string(off);
  }

  // Problem p's factors; ref: the reference's (null: not computed, then only the first pivot,
  // which the rule fixes from the input column alone, is compared).
  std::string check_factors(int p, const Mat<T> *ref, const std::vector<int> &ref_ipiv) const {
    const LuProblem<T> &pr = problems_[p];
    const Mat<T> LU = factors(p);
    const std::vector<int> all = pivots(p);
    const int mn = steps(p);
    const std::vector<int> piv(all.begin(), all.begin() + mn);
    for (int j = 0; j < mn; ++j)
      if (piv[j] < j + 1 || piv[j] > pr.m)
        return "ipiv[" + std::to_string(j) + "] = " + std::to_string(piv[j]) + ", not in " + std::to_string(j + 1) + ".." +
               std::to_string(pr.m);
    for (int j = 0; j < mn && !pr.ipiv.empty(); ++j)
      if (piv[j] != pr.ipiv[j])
        return "ipiv[" + std::to_string(j) + "] = " + std::to_string(piv[j]) + ", partial pivoting must choose " +
               std::to_string(pr.ipiv[j]);
    if (ref) {
      const int sure = pr.compare ? mn : unambiguous_pivot_steps(pr.A, *ref);
      for (int j = 0; j < sure; ++j)
        if (piv[j] != ref_ipiv[j])
          return "ipiv[" + std::to_string(j) + "] = " + std::to_string(piv[j]) + ", the reference's is " +
                 std::to_string(ref_ipiv[j]) + " (steps 0.." + std::to_string(sure - 1) + " are unambiguous)";
    } else if (const int first = rule_first_pivot(pr.A); mn > 0 && first > 0 && piv[0] != first) {
      return "ipiv[0] = " + std::to_string(piv[0]) + ", the pivot rule takes row " + std::to_string(first);
    }
    const double res = getrf_residual(pr.A, LU, piv);
    if (!(res <= residual_limit<T>()))
      return "residual ||P A - L U|| / (max(m,n) ||A|| eps) = " + std::to_string(res) + " > " + std::to_string(residual_limit<T>());
    if (auto b = pivot_bound(LU); !b) return b.message();
    if (pr.compare) {
      const double cw = getrf_componentwise(pr.A, LU, piv);
      if (!(cw <= getrf_componentwise_limit<T>()))
        return "componentwise backward error " + std::to_string(cw) + " > " + std::to_string(getrf_componentwise_limit<T>());
      const double d = ref ? rel_diff(LU, *ref) : 0, tol = compare_tol<T>(std::max(pr.m, pr.n));
      if (!(d <= tol)) return "factors differ from the reference: " + std::to_string(d) + " > " + std::to_string(tol);
    }
    if (pr.expect.rows) {
      const double d = rel_diff(LU, pr.expect), tol = compare_tol<T>(pr.n);
      if (!(d <= tol)) return "factors differ from the planted ones: " + std::to_string(d) + " > " + std::to_string(tol);
    }
    return "";
  }

  std::string check_inverse(int p, const Mat<T> *ref) const {
    const LuProblem<T> &pr = problems_[p];
    const Mat<T> X = factors(p);
    if (!all_finite(X)) {
      // Legitimate only where the inverse (or inv(U), which getri forms first) comes near T's
      // overflow threshold: a random half matrix can be that close to singular.
      if (inverse_magnitude(current(p)) < overflow_threshold<T>() / 16)
        return "inverse not finite, though its elements are far below the overflow threshold";
      return "";
    }
    if (factored_ && !tweaked_.count(p) && pr.info <= 0) {
      const double res = getri_residual(pr.A, X);
      if (!(res <= residual_limit<T>()))
        return "residual ||I - A inv(A)|| / (n ||A|| ||inv(A)|| eps) = " + std::to_string(res) + " > " +
               std::to_string(residual_limit<T>());
    }
    if (pr.compare && ref) {
      const double d = rel_diff(X, *ref), tol = compare_tol<T>(pr.n);
      if (!(d <= tol)) return "inverse differs from the reference: " + std::to_string(d) + " > " + std::to_string(tol);
    }
    return "";
  }

  // blas_batched_last_call(): device groups under cuda/ (r128 / c128 staged through the host,
  // the others not), host groups on the host.
  void check_placement(const std::vector<int> &gs, Reporter &rep) {
    for (std::size_t gi = 0; gi < gs.size() && gi < 16; ++gi) {
      const GroupSpec &s = groups_[gs[gi]];
      bool any = false;  // a problem that computes something
      for (int i = 0; i < s.count && !any; ++i) any = !argument_code(routine_, first_[gs[gi]] + i);
      if (!any) continue;
      const std::string line = gpu::last_call_group_line(record_, int(gi));
      const std::string grp = "group " + std::to_string(gi) + " (" + std::to_string(s.m) + "x" + std::to_string(s.n) + ", " +
                              gpu::mem_name(s.mem) + " memory)";
      if (line.empty()) {
        rep.fail(grp + ": no line in blas_batched_last_call()");
      } else if (!gpu::on_device(s.mem) && !opts_.device_arrays) {
        if (line.find("host/") == std::string::npos) rep.fail(grp + " must run on the host: " + line);
      } else if (line.find("cuda/") == std::string::npos) {
        rep.fail(grp + " must run on the device path: " + line);
      } else if (is_quad<T> && line.find("staged") == std::string::npos) {
        rep.fail(grp + ": r128 / c128 are staged through the host: " + line);
      } else if (!is_quad<T> && std::string(opts_.backend) != "reference" && line.find("staged") != std::string::npos) {
        rep.fail(grp + ": r16..c64 run on the GPU, not staged: " + line);
      }
    }
  }

  // Whether the last call left the bits that a check of the same call on the same inputs (by
  // another backend) passed: its values need no second look.
  bool same_as_checked(Routine r) const {
    const auto &c = checked_[int(r)];
    return !c.first.empty() && c.first == states() && c.second == images(&Arena::after);
  }
  void remember_checked(Routine r) { checked_[int(r)] = {states(), images(&Arena::after)}; }

  std::string where(int p) const {
    const int g = group_of_[p];
    const GroupSpec &s = groups_[g];
    return "problem " + std::to_string(p) + " (group " + std::to_string(g) + ": " + std::to_string(s.m) + "x" +
           std::to_string(s.n) + " x" + std::to_string(s.count) + ", ld " + std::to_string(problems_[p].A.ld) + ", " +
           gpu::mem_name(s.mem) + " memory)";
  }
  std::string describe_call() const {
    return std::string(routine_name(routine_)) + " " + traits<T>::name() + " " + layout_name(layout_) + "-major" +
           (what_.empty() ? "" : ", " + what_) + ", " + opts_.describe() + ", " + seed_note();
  }

  BLAS_Layout layout_;
  std::string what_;
  std::vector<GroupSpec> groups_;
  std::vector<LuProblem<T>> problems_;
  std::vector<int> first_, group_of_;
  std::set<int> null_a_[2], null_ipiv_[2];
  bool placed_ = false;
  std::map<Mem, Arena> a_, p_;
  std::vector<std::size_t> a_off_, p_off_;
  std::vector<int64_t> a_slot_, p_slot_;  // elements (ints) from one problem to the next
  Routine routine_ = Routine::getrf;
  CallOpts opts_;
  std::vector<int> info_;
  std::string record_;
  bool factored_ = false;  // the matrices hold getrf's factors of the problems' inputs
  std::set<int> tweaked_;  // problems whose matrix or pivots were changed since
  std::pair<Images, Images> checked_[2];  // inputs and outputs of the last checks that passed
  Cached ref_cache_[2];
};

// ---- inputs ----------------------------------------------------------------------------------
enum class Input { dominant, random };

template <class T>
auto maker(Input in, BLAS_Layout layout) {
  return [in, layout](int m, int n, int pad, int) {
    return in == Input::dominant ? dominant_problem<T>(m, n, layout, pad) : random_problem<T>(m, n, layout, pad);
  };
}

// Square orders of the sweeps. 1..32: the register kernels (all in normal mode); beyond: in the
// sweeps' many-group calls getrf's unblocked kernels (blocked_orders below: the blocked
// algorithm), getri's shared-memory kernels (sides 40..224, fewer for wide types) and its
// global-memory one. r128 / c128 (software
// arithmetic in the library's staging, the reference and the checks) stop at 40.
template <class T>
std::vector<int> small_orders() {
  std::vector<int> v;
  for (int n = 1; n <= 32; ++n)
    if (!gpu::reduced() || n <= 5 || n == 7 || n == 8 || n == 9 || n == 15 || n == 16 || n == 17 || n >= 31) v.push_back(n);
  return v;
}
template <class T>
std::vector<int> medium_orders() {
  if (gpu::reduced()) return {33, 65};
  if (is_quad<T>) return {33, 40};
  return {33, 40, 41, 47, 48, 49, 63, 64, 65, 100, 113, 128, 129, 160, 225};
}
template <class T>
std::vector<int> large_orders(bool with_512) {
  if (is_quad<T>) return {};
  if (gpu::reduced()) return with_512 ? std::vector<int>{250} : std::vector<int>{};
  std::vector<int> v = {255, 256, 257, 400};  // c64's wide panels end at 256; outer blocks of 128 from 384
  if (with_512) v.push_back(512);
  return v;
}
// Tall and wide shapes: within the register kernels, then beyond.
template <class T>
std::vector<std::pair<int, int>> rect_shapes() {
  std::vector<std::pair<int, int>> v = {{32, 5}, {5, 32}, {17, 9}, {9, 17}, {24, 19}, {19, 24}, {23, 24}, {24, 23},
                                       {1, 32}, {32, 1}, {31, 2}, {2, 31}, {3, 1},   {1, 3},   {0, 5},   {5, 0},
                                       {0, 0}};
  if (gpu::reduced()) v = {{32, 5}, {5, 32}, {17, 9}, {1, 32}, {32, 1}, {0, 5}};
  v.insert(v.end(), {{100, 33}, {33, 100}});
  if (!gpu::reduced()) v.insert(v.end(), {{300, 7}, {7, 300}, {64, 40}, {40, 64}});
  if (!gpu::reduced() && !is_quad<T>) v.insert(v.end(), {{600, 100}, {100, 600}});  // past shared memory
  return v;
}
// Calls of at most 8 groups run getrf's blocked algorithm for every order above 32, and getri's
// (r32..c64; c64 from 64); in a call of more groups, a group of fewer than 16 problems takes the
// unblocked kernels (lu_tuning.hpp), so the sweeps' many-group calls test those and these calls
// the blocked ones (97: getri's recursion splits 64 + 33, and 33 into 32 + 1; getrf: 48 and 56
// either side of the narrow panels' end at 49 in r16, r32, r64 and c64; 1..16 columns left over
// from a run of 32-wide panels on the 16-wide kernel at 65, 80, 97, 100 and 129; the staged
// permutation in panels of up to 160 rows; outer blocks of 64 and panels with remainders first;
// the interchanges left of an outer block deferred to the end from 97 on in either layout (c64
// from 129), not at 65..88: lu_deferred_swaps_takes).
template <class T>
std::vector<int> blocked_orders() {
  if (is_quad<T>) return gpu::reduced() ? std::vector<int>{40, 65} : std::vector<int>{33, 40};
  if (gpu::reduced()) return {40, 65, 100};
  return {33, 48, 56, 64, 80, 88, 97, 100, 129};
}
template <class T>
std::vector<std::pair<int, int>> blocked_rects() {
  if (gpu::reduced() || is_quad<T>) return {{40, 33}, {33, 40}};
  // Panels taller than the register panel kernel takes: the shared kernel's panel mode (600), in
  // global memory for c64 (1200); a tall matrix whose left interchanges are deferred (300 x 100).
  return {{100, 33}, {33, 100}, {300, 7}, {7, 300}, {600, 100}, {100, 600}, {1200, 20}, {64, 40}, {300, 100}};
}
// Problems per group: non-round counts, a few groups with many problems (several per warp and
// block), one or two for the large orders.
int count_for(int n, int index) {
  if (n <= 8) return gpu::reduced() ? 1 + index % 3 : 3 + index % 9;
  if (n <= 32) return gpu::reduced() ? 1 + index % 2 : 1 + index % 3;
  return n <= 64 && !gpu::reduced() ? 2 : 1;
}

template <class P>
class GpuGetrf : public gpu::GpuTest {};
TYPED_TEST_SUITE(GpuGetrf, AllPrecisions, PrecisionNames);

// getrf on `run` for every device backend, then getri in place on its square groups.
template <class T>
void factor_and_invert(LuRun<T> &run, const CallOpts &base = CallOpts()) {
  for (const char *backend : device_backends<T>()) {
    SCOPED_TRACE(std::string("backend ") + backend);
    CallOpts o = base;
    o.backend = backend;
    run.upload();
    run.run(Routine::getrf, o);
    run.run(Routine::getri, o);
    if (::testing::Test::HasFailure()) return;  // one backend's report is enough
  }
}

// ---- 1. the sweep: every order 1..32, rectangles, orders up to 512, many groups per call -----
template <class T>
void sweep(BLAS_Layout layout, Input in, bool with_512) {
  LuRun<T> run(layout, in == Input::dominant ? "dominant inputs" : "random inputs");
  int idx = 0;
  for (int n : small_orders<T>()) run.add(n, n, count_for(n, idx++), maker<T>(in, layout));
  if (!gpu::reduced()) {  // many problems per group: several per warp and per block, partial ones
    run.add(2, 2, batch<T>(203, 1), maker<T>(in, layout));
    run.add(5, 5, batch<T>(67, 1), maker<T>(in, layout));
    run.add(16, 16, batch<T>(41, 1), maker<T>(in, layout));
    run.add(32, 32, batch<T>(19, 1), maker<T>(in, layout));
  }
  for (auto [m, n] : rect_shapes<T>()) run.add(m, n, count_for(std::max(m, n), idx++), maker<T>(in, layout));
  for (int n : medium_orders<T>()) run.add(n, n, count_for(n, idx++), maker<T>(in, layout));
  auto planted = [layout](int, int n, int pad, int) { return planted_problem<T>(n, layout, pad); };
  if (in == Input::dominant) {  // planted factors: the |re| + |im| rule, not the modulus
    std::vector<int> orders = {1, 2, 3, 4, 7, 16, 31, 32, 33};
    if (gpu::reduced()) orders = {2, 7, 32, 33};
    else if (!is_quad<T>) orders.insert(orders.end(), {64, 100, 129});
    for (int n : orders) run.add(n, n, gpu::reduced() ? 1 : 3, planted);
  }
  factor_and_invert(run);
  if (::testing::Test::HasFailure()) return;
  // getrf's blocked algorithm: calls of at most 8 groups (blocked_orders).
  LuRun<T> squares(layout, in == Input::dominant ? "dominant inputs, blocked" : "random inputs, blocked");
  for (int n : blocked_orders<T>()) squares.add(n, n, count_for(n, idx++), maker<T>(in, layout));
  if (in == Input::dominant && !is_quad<T>) squares.add(100, 100, gpu::reduced() ? 1 : 3, planted);
  for (int n : large_orders<T>(with_512)) {
    const int g = squares.add(n, n, 1, maker<T>(in, layout));
    // getri's global-memory kernel (r16, c16) is covered by 255 and 256; the others block at 512.
    squares.group(g).getri = n <= 256 || !is_half<T>;
  }
  factor_and_invert(squares);
  if (::testing::Test::HasFailure()) return;
  LuRun<T> rects(layout, in == Input::dominant ? "dominant inputs, blocked rectangles" : "random inputs, blocked rectangles");
  for (auto [m, n] : blocked_rects<T>()) rects.add(m, n, count_for(std::max(m, n), idx++), maker<T>(in, layout));
  factor_and_invert(rects);
}

TYPED_TEST(GpuGetrf, DominantColMajor) { sweep<typename TypeParam::type>(BLAS_ColMajor, Input::dominant, true); }
TYPED_TEST(GpuGetrf, DominantRowMajor) { sweep<typename TypeParam::type>(BLAS_RowMajor, Input::dominant, false); }
TYPED_TEST(GpuGetrf, RandomColMajor) { sweep<typename TypeParam::type>(BLAS_ColMajor, Input::random, false); }
TYPED_TEST(GpuGetrf, RandomRowMajor) { sweep<typename TypeParam::type>(BLAS_RowMajor, Input::random, false); }

// ---- 2. host and device groups, every memory kind, in one call; the reference backend --------
TYPED_TEST(GpuGetrf, HostAndDeviceGroupsInOneCall) {
  using T = typename TypeParam::type;
  for (BLAS_Layout layout : kLayouts) {
    LuRun<T> run(layout, "groups in every memory kind");
    auto dom = maker<T>(Input::dominant, layout);
    run.add(4, 4, batch<T>(30, 5), dom);
    run.add(9, 9, 4, dom, Mem::host);  // pageable: runs on the host
    run.add(16, 16, 5, dom, Mem::managed);
    run.add(7, 7, 0, dom);             // an empty group
    run.add(33, 33, 2, dom, Mem::pool);
    run.add(12, 5, 3, dom, Mem::pinned);  // pinned: still host memory
    run.add(20, 31, 3, dom);
    run.add(is_quad<T> ? 40 : 70, is_quad<T> ? 40 : 70, 1, dom, Mem::managed);
    run.add(3, 3, 6, dom, Mem::host);
    run.add(is_quad<T> ? 34 : 48, is_quad<T> ? 34 : 48, 2, dom);
    factor_and_invert(run);
    // The reference backend takes device groups too (staged through the host).
    SCOPED_TRACE("backend reference");
    run.upload();
    run.run(Routine::getrf, on("reference"));
    run.run(Routine::getri, on("reference"));
    if (::testing::Test::HasFailure()) return;
  }
}

// ---- 2b. panels whose shared memory is the default limit exactly -----------------------------
// A kernel's dynamic shared memory up to 48 KiB less its static arrays needs no opt-in; the
// library once skipped the check at exactly 48 KiB, and the rolled panel (then 48 KiB at 384
// rows in 4- and 8-byte compute types; now in r32 and r16 column-major) failed beside its static
// arrays with BLAS_BATCHED_ERR_DEVICE. Each order in its own call, the smaller first (a larger
// panel would raise the limit before). ctest runs each precision's test in a process of its own
// (gtest_discover_tests), so no earlier test has raised it; in googletest shards it may pass
// without reaching the limit. Then row-major: it asks more of the same kernel than column-major
// (a padded stage and the rows' places, lu_panel_rolled_shared_bytes), so its 512 rows raise
// the limit again (c64's column-major runs have an instance of their own).
TYPED_TEST(GpuGetrf, PanelAtSharedLimit) {
  using T = typename TypeParam::type;
  if (is_quad<T>) GTEST_SKIP() << "r128 / c128 run staged through the host";
  for (BLAS_Layout layout : kLayouts)
    for (int n : {192, 384, 512}) {
      // Three problems: r32 and r64 groups of two from order 256 go to cuSOLVER (lu_solver_min_order).
      LuRun<T> run(layout, "order " + std::to_string(n) + ", one call");
      run.add(n, n, 3, maker<T>(Input::random, layout));
      run.upload();
      run.run(Routine::getrf, on("native"));
      const std::string line = gpu::last_call_group_line(run.record(), 0);
      EXPECT_EQ(line.find("cuda/cusolver"), std::string::npos) << "the library's panels must run: " << line;
      if (n < 512 || !is_half<T>) run.run(Routine::getri, on("native"));  // half getri at 512 is slow (sweep: to 256)
      if (::testing::Test::HasFailure()) return;
    }
}

// ---- 3. more problems than a grid dimension holds; more non-zero codes than one transfer -----
// Every 11th problem is exactly singular, so each chunk of the device pass (16384 problems
// first, SPEC.md section 5) finds more than the 1024 non-zero codes that come back with it.
TYPED_TEST(GpuGetrf, MoreThan65535Problems) {
  using T = typename TypeParam::type;
  // r128 / c128 (staged, software arithmetic) get just past the limit.
  const bool small = gpu::reduced() || is_quad<T>;
  const int n = small ? 2 : 4, count = small ? 65537 : 70000;
  const BLAS_Layout layout = BLAS_ColMajor;
  LuRun<T> run(layout, std::to_string(count) + " problems");
  run.add(n, n, count, [&](int m, int nn, int pad, int i) {
    return i % 11 == 5 ? dominant_problem<T>(m, nn, layout, pad, {random_int(0, nn - 1)}) : dominant_problem<T>(m, nn, layout, pad);
  });
  run.add(33, 33, scaled(3, 1), maker<T>(Input::dominant, layout));  // a group that starts past 65535
  run.add(1, 1, 5, maker<T>(Input::dominant, layout));
  factor_and_invert(run);
  if (::testing::Test::HasFailure()) return;
  // info NULL: the return value counts the codes alone; info in device memory.
  CallOpts o = on("native");
  o.with_info = false;
  run.upload();
  run.run(Routine::getrf, o);
  if (is_quad<T>) return;
  run.run(Routine::getri, o);
  o.with_info = true, o.info = Mem::device;
  run.upload();
  run.run(Routine::getrf, o);
  run.run(Routine::getri, o);
}

// ---- 4. exactly singular problems among regular ones -----------------------------------------
// Kind i of a group: 0 regular, 1 column 0 zero, 2 a random column zero, 3 two random columns
// zero (the first counts), 4 the last column zero, 5 the zero matrix, 6 a zero row (info
// min(m, n) where m <= n), 7 regular. getri then gets the singular factors (info = getrf's,
// A unchanged) and regular factors with U(i,i) set to 0 (or -0) on the device.
template <class T>
void singular_case(BLAS_Layout layout, const CallOpts &base, const std::vector<int> &orders) {
  LuRun<T> run(layout, "singular problems");
  constexpr int kKinds = 8;
  auto make = [layout](int m, int n, int pad, int i) {
    std::vector<int> zero;
    switch (n > 0 && i < kKinds ? i : 0) {
      case 1: zero = {0}; break;
      case 2: zero = {random_int(0, n - 1)}; break;
      case 3: zero = {random_int(0, n - 1), random_int(0, n - 1)}; break;
      case 4: zero = {n - 1}; break;
      case 5: zero.resize(n), std::iota(zero.begin(), zero.end(), 0); break;
      case 6: return dominant_problem<T>(m, n, layout, pad, {}, /*zero_row=*/true);
      default: break;
    }
    return dominant_problem<T>(m, n, layout, pad, zero);
  };
  // Three more regular problems per square group: their U(i,i) zeroed before getri.
  // Orders above 32: 16 problems, so that getrf's blocked algorithm takes them in this call of
  // many groups (lu_tuning.hpp), codes from panels after the first included.
  const int extra = 3;
  for (int n : orders) run.add(n, n, n > 32 ? 16 : kKinds + extra, make);
  std::vector<std::pair<int, int>> rects = {{40, 7}, {7, 40}, {1, 9}, {9, 1}, {3, 36}};
  for (auto [m, n] : rects) run.add(m, n, kKinds, make);
  for (const char *backend : device_backends<T>()) {
    SCOPED_TRACE(std::string("backend ") + backend);
    CallOpts o = base;
    o.backend = backend;
    run.upload();
    run.run(Routine::getrf, o);
    for (int g = 0; g < run.group_count(); ++g) {
      const int n = run.group(g).n;
      if (run.group(g).m != n) continue;
      for (int e = 0; e < extra; ++e) {
        const int p = run.first(g) + kKinds + e;
        std::vector<int> zeros = e == 0 ? std::vector<int>{random_int(0, n - 1)}
                               : e == 1 ? std::vector<int>{0}
                                        : std::vector<int>{random_int(0, n - 1), random_int(0, n - 1)};
        for (int z : zeros) run.poke(p, z, z, e == 1 ? -T(0) : T(0));
      }
    }
    run.run(Routine::getri, o);
    if (::testing::Test::HasFailure()) return;
  }
}

TYPED_TEST(GpuGetrf, SingularProblems) {
  using T = typename TypeParam::type;
  // Every kernel family: register, shared memory, global memory (250, where the host reference
  // and checks are cheap).
  std::vector<int> all = {1, 2, 3, 5, 8, 13, 32, 33, 48};
  if (!is_quad<T>) all.push_back(100);
  if (!is_quad<T> && !is_half<T>) all.push_back(250);
  std::vector<int> few = {1, 2, 5, 13, 33};
  if (!is_quad<T>) few.push_back(70);  // blocked getrf: codes from a later panel
  singular_case<T>(BLAS_ColMajor, CallOpts(), gpu::reduced() ? std::vector<int>{1, 3, 8, 32, 33} : all);
  if (gpu::reduced()) return;
  CallOpts o;
  o.info = Mem::device;
  singular_case<T>(BLAS_RowMajor, o, few);
  o.with_info = false;  // the return value is the only report
  singular_case<T>(BLAS_ColMajor, o, few);
}

// ---- 5. a NULL A[p] or ipiv[p] skips that problem alone (SPEC.md section 4.2) -----------------
TYPED_TEST(GpuGetrf, NullPointerSkipsOnlyItsProblem) {
  using T = typename TypeParam::type;
  for (BLAS_Layout layout : kLayouts) {
    LuRun<T> run(layout, "NULL entries");
    auto dom = maker<T>(Input::dominant, layout);
    const int g0 = run.add(4, 4, 8, dom), g1 = run.add(33, 33, 4, dom), g2 = run.add(0, 3, 2, dom),
              g3 = run.add(6, 9, 3, dom), g4 = run.add(17, 17, 3, dom), g6 = run.add(28, 28, 4, dom);
    const int f0 = run.first(g0), f1 = run.first(g1), f2 = run.first(g2), f3 = run.first(g3), f4 = run.first(g4),
              f6 = run.first(g6);
    // The blocked getrf (panels, then the trsm and gemm cores on A): A alone or ipiv alone NULL.
    const int g5 = run.add(is_quad<T> ? 40 : 70, is_quad<T> ? 40 : 70, 4, dom), f5 = run.first(g5);
    run.set_null_a(Routine::getrf, f5 + 1), run.set_null_ipiv(Routine::getrf, f5 + 2);
    // getrf: the first problem of a group (residency comes from the others), A and ipiv both
    // NULL (A, argument 4, is reported), the last problem, a problem with m = 0 (no error).
    run.set_null_a(Routine::getrf, f0), run.set_null_ipiv(Routine::getrf, f0 + 3);
    run.set_null_a(Routine::getrf, f0 + 5), run.set_null_ipiv(Routine::getrf, f0 + 5);
    run.set_null_a(Routine::getrf, f1 + 3), run.set_null_ipiv(Routine::getrf, f1 + 1);
    run.set_null_a(Routine::getrf, f2), run.set_null_ipiv(Routine::getrf, f2 + 1);
    run.set_null_ipiv(Routine::getrf, f3 + 2);
    // Register side 32 (one problem per warp, or per pair of warps in c64's split kernel).
    run.set_null_ipiv(Routine::getrf, f4), run.set_null_a(Routine::getrf, f4 + 1);
    // Rows of 32 (c32's row-major tiles): a skipped problem between two computed ones.
    run.set_null_a(Routine::getrf, f6 + 1), run.set_null_ipiv(Routine::getri, f6 + 2);
    // getri (square groups): other problems, and a problem getrf skipped.
    run.set_null_a(Routine::getri, f0 + 1), run.set_null_ipiv(Routine::getri, f0 + 7);
    run.set_null_a(Routine::getri, f0 + 4), run.set_null_ipiv(Routine::getri, f0 + 4);
    run.set_null_ipiv(Routine::getri, f1), run.set_null_a(Routine::getri, f4 + 2);
    run.set_null_a(Routine::getri, f0 + 3), run.set_null_ipiv(Routine::getri, f1 + 3);
    factor_and_invert(run);
    if (::testing::Test::HasFailure()) return;
  }
}

// ---- 6. a getri pivot out of 1..n invalidates that problem alone (-5) ------------------------
TYPED_TEST(GpuGetrf, GetriPivotOutOfRange) {
  using T = typename TypeParam::type;
  for (Mem info : {Mem::host, Mem::device}) {
    LuRun<T> run(BLAS_ColMajor, "getri pivots out of range");
    auto dom = maker<T>(Input::dominant, BLAS_ColMajor);
    const int g0 = run.add(4, 4, 10, dom), g1 = run.add(17, 17, 4, dom), g2 = run.add(33, 33, 3, dom),
              g3 = run.add(1, 1, 3, dom);
    int g4 = -1;
    if (!is_quad<T>) g4 = run.add(100, 100, 2, dom);
    for (const char *backend : device_backends<T>()) {
      SCOPED_TRACE(std::string("backend ") + backend + ", info in " + gpu::mem_name(info) + " memory");
      CallOpts o = on(backend);
      o.info = info;
      run.upload();
      run.run(Routine::getrf, o);
      run.poke_ipiv(run.first(g0) + 2, 1, 0);
      run.poke_ipiv(run.first(g0) + 5, 3, 5);  // n + 1
      run.poke_ipiv(run.first(g0) + 9, 0, -1);
      run.poke_ipiv(run.first(g1), 16, -3);
      run.poke_ipiv(run.first(g2) + 2, 0, 34);
      run.poke_ipiv(run.first(g3) + 1, 0, 2);
      if (g4 >= 0) run.poke_ipiv(run.first(g4), 50, INT_MAX);
      run.run(Routine::getri, o);
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// ---- 7. pointer arrays and info in device memory (SPEC.md section 9.2) -----------------------
TYPED_TEST(GpuGetrf, DevicePointerArrays) {
  using T = typename TypeParam::type;
  for (BLAS_Layout layout : kLayouts) {
    LuRun<T> run(layout, "device pointer arrays");
    auto mix = [layout](int m, int n, int pad, int i) {  // every 4th problem singular
      return i % 4 == 3 && n > 0 ? dominant_problem<T>(m, n, layout, pad, {random_int(0, n - 1)})
                                 : dominant_problem<T>(m, n, layout, pad);
    };
    const int g0 = run.add(3, 3, batch<T>(500, 20), mix);
    run.add(8, 8, batch<T>(60, 6), mix);
    const int g2 = run.add(32, 32, 5, mix);
    run.add(19, 7, 4, mix);
    run.add(47, 47, 2, mix);
    run.add(0, 4, 2, mix);
    if (!is_quad<T>) run.add(130, 130, 1, mix);
    // The blocked getrf on the checked copy: NULL problems compute in scratch, keep their -k.
    const int g7 = is_quad<T> ? -1 : run.add(100, 100, 8, mix);
    if (g7 >= 0) {
      run.set_null_a(Routine::getrf, run.first(g7) + 1), run.set_null_ipiv(Routine::getrf, run.first(g7) + 3);
      run.set_null_a(Routine::getri, run.first(g7) + 5);
    }
    // NULL entries: read on the device (SPEC.md 9.2); the first and last of group 0.
    const int f0 = run.first(g0), l0 = f0 + run.group(g0).count - 1;
    run.set_null_a(Routine::getrf, f0), run.set_null_ipiv(Routine::getrf, l0), run.set_null_ipiv(Routine::getrf, f0 + 7);
    run.set_null_a(Routine::getri, f0 + 2), run.set_null_ipiv(Routine::getri, run.first(g2) + 4);
    CallOpts dev;
    dev.device_arrays = true, dev.info = Mem::device;
    if (is_quad<T>) {  // no GPU arithmetic: UNSUPPORTED, nothing touched (the host would read the arrays)
      for (Routine r : {Routine::getrf, Routine::getri}) {
        run.upload();
        const int rc = run.call(r, dev);
        run.download();
        run.verify_untouched(rc, BLAS_BATCHED_ERR_UNSUPPORTED);
      }
      continue;
    }
    for (const char *backend : device_backends<T>()) {
      SCOPED_TRACE(std::string("backend ") + backend);
      // The group API with host arrays first; then device arrays (info in device and managed
      // memory): the same checks, and the same info and the same bits as with host arrays.
      run.upload();
      run.run(Routine::getrf, on(backend));
      const std::vector<int> info_f = run.info();
      const auto out_f = run.outputs();
      run.run(Routine::getri, on(backend));
      const std::vector<int> info_i = run.info();
      const auto out_i = run.outputs();
      for (Mem info : {Mem::device, Mem::managed}) {
        CallOpts o = dev;
        o.backend = backend, o.info = info;
        run.upload();
        run.run(Routine::getrf, o);
        EXPECT_EQ(run.info(), info_f) << "getrf info with device pointer arrays vs host ones";
        if (gpu::same_bits_host_and_device_arrays(backend) && !run.vendor_ran_with_nulls(Routine::getrf))
          EXPECT_TRUE(run.outputs() == out_f) << "getrf factors or pivots with device pointer arrays differ from "
                                                 "those with host arrays";
        run.run(Routine::getri, o);
        EXPECT_EQ(run.info(), info_i) << "getri info with device pointer arrays vs host ones";
        if (gpu::same_bits_host_and_device_arrays(backend) && !run.vendor_ran_with_nulls(Routine::getri))
          EXPECT_TRUE(run.outputs() == out_i) << "getri results with device pointer arrays differ from those with host arrays";
      }
      // info NULL: the return value counts the codes found on the device.
      CallOpts o = dev;
      o.backend = backend, o.with_info = false;
      run.upload();
      run.run(Routine::getrf, o);
      run.run(Routine::getri, o);
      if (::testing::Test::HasFailure()) return;
    }
    // Where device arrays cannot run: the reference backend (it reads arrays on the host).
    for (Routine r : {Routine::getrf, Routine::getri}) {
      CallOpts o = dev;
      o.backend = "reference";
      run.upload();
      if (r == Routine::getri) run.run(Routine::getrf, on("native"));
      const int rc = run.call(r, o);
      run.download();
      run.verify_untouched(rc, BLAS_BATCHED_ERR_UNSUPPORTED);
    }
    // A device A array with a host ipiv array: -k for ipiv (getrf 6, getri 5), nothing touched.
    for (Routine r : {Routine::getrf, Routine::getri}) {
      CallOpts o;
      o.mixed_arrays = true;
      run.upload();
      if (r == Routine::getri) run.run(Routine::getrf, on("native"));
      const int rc = run.call(r, o);
      run.download();
      run.verify_untouched(rc, r == Routine::getrf ? -kGetrfIpiv : -kGetriIpiv);
    }
    if (::testing::Test::HasFailure()) return;
  }
}

// Groups of one problem each on device pointer arrays, more of them than a call plans on one
// thread (kParallelDeviceGroups, 256: since s57 such a call plans its segments over a thread
// team even though the host reads no pointer; before, 217013 groups took 32-58 ms on one thread):
// orders 1..32, rectangles and a few blocked orders, every fourth problem singular, NULL
// entries among them. Checked against the reference, and the same info and bits as the same
// call on host pointer arrays. The team needs threads: at least 4 here, whatever the shard's
// OMP_NUM_THREADS (gpu-check's shards may run one each). One chunk (at most 16384 groups).
TYPED_TEST(GpuGetrf, ManyOneProblemGroupsOnDeviceArrays) {
  using T = typename TypeParam::type;
  if (is_quad<T>) GTEST_SKIP() << "r128 / c128 with device pointer arrays: UNSUPPORTED (DevicePointerArrays)";
  const int threads_before = omp_get_max_threads();
  omp_set_num_threads(std::max(4, threads_before));
  struct Restore {
    int n;
    ~Restore() { omp_set_num_threads(n); }
  } restore{threads_before};
  for (BLAS_Layout layout : kLayouts) {
    LuRun<T> run(layout, "one-problem groups on device pointer arrays");
    const int groups = 1500;  // reduced too: below kParallelDeviceGroups the team is not used
    for (int g = 0; g < groups; ++g) {
      const int n = g % 97 == 13 ? 40 : 1 + g % 32, m = g % 7 == 5 ? std::max(1, n - 3) : g % 7 == 6 ? n + 2 : n;
      run.add(m, n, 1, [layout, g](int mm, int nn, int pad, int) {
        return g % 4 == 3 && nn > 0 ? dominant_problem<T>(mm, nn, layout, pad, {random_int(0, std::min(mm, nn) - 1)})
                                    : dominant_problem<T>(mm, nn, layout, pad);
      });
    }
    run.set_null_a(Routine::getrf, 10), run.set_null_ipiv(Routine::getrf, 1111), run.set_null_a(Routine::getri, 1400);
    run.upload();
    run.run(Routine::getrf, on("native"));
    const std::vector<int> info_f = run.info();
    const auto out_f = run.outputs();
    run.run(Routine::getri, on("native"));
    const std::vector<int> info_i = run.info();
    const auto out_i = run.outputs();
    for (Mem info : {Mem::device, Mem::host}) {
      SCOPED_TRACE(std::string("info in ") + (info == Mem::device ? "device" : "host") + " memory");
      CallOpts o = on("native");
      o.device_arrays = true, o.info = info;
      run.upload();
      run.run(Routine::getrf, o);
      EXPECT_EQ(run.info(), info_f) << "getrf info with device pointer arrays vs host ones";
      EXPECT_TRUE(run.outputs() == out_f) << "getrf factors or pivots with device pointer arrays differ from those with host arrays";
      run.run(Routine::getri, o);
      EXPECT_EQ(run.info(), info_i) << "getri info with device pointer arrays vs host ones";
      EXPECT_TRUE(run.outputs() == out_i) << "getri results with device pointer arrays differ from those with host arrays";
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// ---- 8. the strided entry points on device data (SPEC.md section 9.1) -------------------------
// The same checks, and the same info and bits as the group API on the same matrices; info in
// host and device memory; getri with every problem sharing one pivot array (stride 0); strides
// that make outputs overlap are an invalid group.
template <class T>
void strided_case(BLAS_Layout layout, int m, int n, int count, int gap) {
  const std::string what = "strided " + std::to_string(m) + "x" + std::to_string(n) + " x" + std::to_string(count);
  LuRun<T> run(layout, what);
  run.add(m, n, count, [layout](int mm, int nn, int pad, int i) {
    return i % 7 == 4 && nn > 0 ? dominant_problem<T>(mm, nn, layout, pad, {random_int(0, nn - 1)})
                                : dominant_problem<T>(mm, nn, layout, pad);
  });
  run.group(0).gap = gap, run.group(0).reversed = false;
  for (const char *backend : device_backends<T>()) {
    SCOPED_TRACE(what + ", backend " + backend);
    run.upload();
    run.run(Routine::getrf, on(backend));
    const std::vector<int> info_f = run.info();
    const auto out_f = run.outputs();
    run.run(Routine::getri, on(backend));
    const std::vector<int> info_i = run.info();
    const auto out_i = run.outputs();
    for (Mem info : {Mem::host, Mem::device}) {
      CallOpts o = on(backend);
      o.strided = true, o.info = info;
      run.upload();
      run.run(Routine::getrf, o);
      EXPECT_EQ(run.info(), info_f) << "getrf info of the strided call vs the group API";
      EXPECT_TRUE(run.outputs() == out_f) << "getrf factors or pivots of the strided call differ from the group API's";
      if (m != n) continue;
      run.run(Routine::getri, o);
      EXPECT_EQ(run.info(), info_i) << "getri info of the strided call vs the group API";
      EXPECT_TRUE(run.outputs() == out_i) << "getri results of the strided call differ from the group API's";
    }
    if (::testing::Test::HasFailure()) return;
  }
}

// Square problems sharing one row permutation (so one pivot sequence): getri reads them all
// from the first problem's pivots (ipiv stride 0).
template <class T>
void shared_pivots_case(BLAS_Layout layout, int n, int count) {
  std::vector<int> from(n);
  std::iota(from.begin(), from.end(), 0);
  std::shuffle(from.begin(), from.end(), rng());
  LuRun<T> run(layout, "getri with ipiv stride 0, n " + std::to_string(n));
  run.add(n, n, count, [&](int m, int nn, int pad, int) {
    LuProblem<T> pr;
    pr.m = m, pr.n = nn, pr.compare = true, pr.info = 0;
    pr.A = dominant<T>(m, nn, layout, pad, {}, false, pr.ipiv, &from);
    return pr;
  });
  run.group(0).reversed = false;
  for (const char *backend : device_backends<T>()) {
    SCOPED_TRACE(std::string("backend ") + backend);
    CallOpts o = on(backend);
    o.strided = true, o.info = Mem::device;
    run.upload();
    run.run(Routine::getrf, o);
    o.ipiv_stride = 0;
    const auto ref = run.reference(Routine::getri, /*shared_ipiv=*/true);
    const int rc = run.call(Routine::getri, o);
    run.download();
    run.verify(rc, ref);
    if (::testing::Test::HasFailure()) return;
  }
}

// Overlapping outputs: every problem gets -k for the stride, the call returns their number.
template <class T>
void bad_strides_case(BLAS_Layout layout) {
  const int m = 6, n = 5, count = 4;
  LuRun<T> run(layout, "invalid strides");
  run.add(m, n, count, maker<T>(Input::dominant, layout));
  run.group(0).reversed = false;
  LuRun<T> sq(layout, "invalid strides");
  sq.add(n, n, count, maker<T>(Input::dominant, layout));
  sq.group(0).reversed = false;
  const Mat<T> &a = run.problem(0).A, &s = sq.problem(0).A;
  const int64_t extent = int64_t(a.ld) * ((layout == BLAS_ColMajor ? n : m) - 1) + (layout == BLAS_ColMajor ? m : n);
  const int64_t sq_extent = int64_t(s.ld) * (n - 1) + n;
  constexpr int64_t kNatural = INT64_MIN;
  struct Bad {
    LuRun<T> *run;
    Routine r;
    int64_t a_stride, ipiv_stride;
    int arg;
  };
  const Bad cases[] = {
      {&run, Routine::getrf, extent - 1, kNatural, kStridedGetrfAStride},
      {&run, Routine::getrf, kNatural, std::min(m, n) - 1, kStridedGetrfIpivStride},
      {&run, Routine::getrf, -3, kNatural, kStridedGetrfAStride},
      {&sq, Routine::getri, sq_extent - 1, kNatural, kStridedGetriAStride},
  };
  for (const Bad &c : cases) {
    CallOpts o;
    o.strided = true, o.info = Mem::device;
    if (c.a_stride != kNatural) o.a_stride = c.a_stride;
    if (c.ipiv_stride != kNatural) o.ipiv_stride = c.ipiv_stride;
    c.run->upload();
    if (c.r == Routine::getri) c.run->run(Routine::getrf, on("native"));
    const int rc = c.run->call(c.r, o);
    c.run->download();
    c.run->verify_group_rejected(rc, c.arg);
  }
  // A negative ipiv stride for getri's shared-read pivots: still invalid (only 0 is special).
  CallOpts o;
  o.strided = true, o.ipiv_stride = -2;
  sq.upload();
  sq.run(Routine::getrf, on("native"));
  const int rc = sq.call(Routine::getri, o);
  sq.download();
  sq.verify_group_rejected(rc, kStridedGetriIpivStride);
}

// Row-major rows that start on 16 bytes move in 16-byte pieces (lu_common.cuh's load_row_pieces
// and store_row_pieces), others element by element: at every register-kernel family's orders and
// in rectangles both ways (on the unrolled and the rolled kernels), groups whose every row starts
// on 16 bytes (ld a multiple of 16 bytes, no gap), groups with ld on 16 bytes and a gap of one
// element between matrices (some start off 16 bytes), groups with ld one element off (for types
// of 16 bytes or more: ld = n + 1, no pieces either way), and more groups of the orders 17..32
// than a launch carries by value (their runs in a table), of several problems and of one. The
// instance a launch takes is not observable here (the same bits): these check the results.
TYPED_TEST(GpuGetrf, RowMajorRowsOn16Bytes) {
  using T = typename TypeParam::type;
  const int per_piece = std::max(1, int(16 / sizeof(T)));
  std::vector<std::pair<int, int>> shapes = {{2, 2}, {3, 3}, {5, 5}, {8, 8}, {12, 12}, {16, 16}, {17, 17}, {19, 19},
                                             {20, 20}, {23, 23}, {24, 24}, {28, 28}, {32, 32}, {12, 5}, {5, 12},
                                             {32, 5}, {5, 32}, {20, 9}, {9, 20}};
  // A call each: the rolled getrf and getri_register take their pieces' instances only where
  // every run of a launch is row-major with ld on 16 bytes (kFactorRowsOn16Bytes), so ld one element off
  // goes in a call of its own; the groups with a gap (pieces for some matrices of a run only) in
  // another; and the many groups in a fourth (more runs of a configuration than the 8 a launch
  // carries by value, kFactorInlineRuns: a table in device memory), gaps and none alternating,
  // and in a fifth of one problem each (one-problem runs in a table).
  enum Case { no_gap, gap_of_one, ld_off, many_groups, one_problem_groups };
  const std::vector<std::pair<int, int>> rolled_shapes = {{17, 17}, {20, 20}, {24, 24}, {28, 28}, {32, 32}, {20, 9}};
  for (Case c : {no_gap, gap_of_one, ld_off, many_groups, one_problem_groups}) {
    LuRun<T> run(BLAS_RowMajor, c == no_gap       ? "ld on 16 bytes, no gap"
                                : c == gap_of_one ? "ld on 16 bytes, a gap of one element"
                                : c == ld_off     ? "ld off 16 bytes"
                                : c == many_groups ? "ld on 16 bytes, many groups of an order"
                                                   : "ld on 16 bytes, many groups of one problem");
    const bool many = c == many_groups || c == one_problem_groups;
    for (int copy = 0; copy < (many ? 10 : 1); ++copy)
      for (auto [m, n] : many ? rolled_shapes : shapes) {
        const int ld = (n + per_piece - 1) / per_piece * per_piece + (c == ld_off);
        const int problems = c == one_problem_groups ? 1 : c == many_groups ? batch<T>(6, 2) : batch<T>(45, 3);
        const int g = run.add(m, n, problems, maker<T>(Input::random, BLAS_RowMajor), Mem::device, ld - n);
        run.group(g).gap = c == gap_of_one || (c == many_groups && copy % 2), run.group(g).reversed = false;
      }
    factor_and_invert(run);
  }
}

TYPED_TEST(GpuGetrf, StridedEntryPoints) {
  using T = typename TypeParam::type;
  strided_case<T>(BLAS_ColMajor, 4, 4, batch<T>(3000, 40), 0);
  // More failures than the info list's head brings back (1024), in the group API's call and the
  // strided one: the codes come back themselves (under ctest's GpuGetrf.CodeSpans, in spans of
  // 8192 problems, the first with 1170 failures).
  strided_case<T>(BLAS_ColMajor, 3, 3, batch<T>(12000, 40), 0);
  strided_case<T>(BLAS_RowMajor, 7, 7, batch<T>(500, 10), 5);
  strided_case<T>(BLAS_ColMajor, 32, 32, batch<T>(100, 4), 1);
  strided_case<T>(BLAS_RowMajor, 17, 9, batch<T>(50, 3), 0);
  strided_case<T>(BLAS_ColMajor, 9, 17, batch<T>(50, 3), 2);
  strided_case<T>(BLAS_RowMajor, 40, 40, batch<T>(6, 2), 0);
  if (!is_quad<T> && !gpu::reduced()) strided_case<T>(BLAS_ColMajor, 250, 250, 5, 7);
  // Blocked getrf, a singular problem among them (info from a panel after the first).
  if (!is_quad<T>) strided_case<T>(BLAS_RowMajor, 90, 70, 6, 1);
  shared_pivots_case<T>(BLAS_ColMajor, 6, batch<T>(300, 10));
  shared_pivots_case<T>(BLAS_RowMajor, 33, batch<T>(5, 2));
  bad_strides_case<T>(BLAS_ColMajor);
  bad_strides_case<T>(BLAS_RowMajor);
}

// ---- 9. NaN, Inf, subnormal numbers and exact ties: the pivot rule of SPEC.md section 3 ------
// Each case (common.hpp) is one problem, a group of its own, in one call on every device
// backend; what the rule fixes is checked exactly, and ipiv, info and where NaN and Inf appear
// must agree with the reference backend on the host.
template <class T>
void pivot_rule_call(BLAS_Layout layout, const std::vector<NonFiniteCase<T>> &cases, const char *label) {
  LuRun<T> run(layout, label);
  for (const NonFiniteCase<T> &e : cases)
    run.add(e.A.rows, e.A.cols, 1, [&](int m, int n, int, int) {
      LuProblem<T> pr;
      pr.m = m, pr.n = n, pr.A = e.A, pr.info = e.info;
      return pr;
    });
  run.upload();
  const auto ref = run.reference(Routine::getrf);
  for (const char *backend : device_backends<T>()) {
    run.upload();
    const int rc = run.call(Routine::getrf, on(backend));
    run.download();
    EXPECT_EQ(rc, run.total() - std::count(ref.info.begin(), ref.info.end(), 0)) << "return value";
    EXPECT_EQ(run.info(), ref.info) << "info vs the reference backend";
    run.verify_bytes();
    for (int p = 0; p < run.total(); ++p) {
      SCOPED_TRACE(std::string(layout_name(layout)) + "-major, backend " + backend + ", " + cases[p].what + ", " +
                   seed_note());
      check_non_finite_case(cases[p], run.factors(p), run.pivots(p).data(), run.info()[p], ref.A[p],
                            ref.ipiv[p].data(), ref.info[p]);
      const std::vector<int> piv = run.pivots(p);
      for (int j = cases[p].A.rows; j < int(piv.size()); ++j) EXPECT_EQ(piv[j], kIpivPoison) << "ipiv written past n";
      if (::testing::Test::HasFatalFailure()) return;
    }
    count_checked((std::string("gpu getrf ") + label + " " + traits<T>::name() + " " + backend).c_str(), run.total());
  }
}

TYPED_TEST(GpuGetrf, NonFiniteAndTiesFollowThePivotRule) {
  using T = typename TypeParam::type;
  for (BLAS_Layout layout : kLayouts) {
    pivot_rule_call<T>(layout, non_finite_cases<T>(layout, /*ties=*/true), "non-finite");
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The same rule with the candidates in different warps of a blocked panel: a call of 4 groups
// (at most 8: the blocked algorithm, lu_tuning.hpp) of order 100.
TYPED_TEST(GpuGetrf, NonFiniteAndTiesInBlockedPanels) {
  using T = typename TypeParam::type;
  if (is_quad<T>) GTEST_SKIP() << "r128 / c128 run staged through the host";
  for (BLAS_Layout layout : kLayouts) {
    pivot_rule_call<T>(layout, non_finite_panel_cases<T>(layout), "non-finite in panels");
    if (::testing::Test::HasFatalFailure()) return;
  }
}


// ---- 9b. getrf past the cuSOLVER crossover (lu_tuning.hpp) ------------------------------------
// Column-major square r32/r64 groups go to cuSOLVER's getrf one problem at a time from order 256
// in runs of at most 2 problems, and r64 from 1536 in runs of up to 4, where the host knows the
// addresses (evenly spaced: the strided form's base; scattered: the caller's host pointer arrays;
// not device pointer arrays). Random inputs (rows interchanged) with a singular problem in each
// group (factored again by the library's kernels: LAPACK's completion and info), against the
// reference; the record says where each group was planned. Then planted factors (pivots well
// apart) with a NaN, and an exact tie for the first pivot: ipiv and info as the reference's.
TYPED_TEST(GpuGetrf, PastTheSolverCrossover) {
  using T = typename TypeParam::type;
  if (is_quad<T> || is_half<T>) GTEST_SKIP() << "no cuSOLVER crossover in this precision";
#ifdef BB_TEST_HAVE_CUSOLVER
  const bool solver = !is_cplx<T>;
#else
  const bool solver = false;  // no cuSOLVER: blocked throughout
#endif
  struct Case {
    int n, count;
    bool on_solver, scattered;
  };
  std::vector<Case> cases = {{255, 2, false, false}, {256, 2, solver, false}, {800, 3, false, true}};
  // r64 from 1536 in threes: the pointer arrays' path (scattered), and the blocked redo above
  // kLuSolverBlockedRedoMin.
  if (!gpu::reduced()) cases.push_back({1536, 3, solver && std::is_same_v<T, double>, true});
  auto make = [](int m, int n, int pad, int i) {
    // Problem 1 of each group singular (a zero column), the others random.
    return i == 1 ? dominant_problem<T>(m, n, BLAS_ColMajor, pad, {random_int(0, n - 1)})
                  : random_problem<T>(m, n, BLAS_ColMajor, pad);
  };
  for (Mem arrays : {Mem::host, Mem::device}) {
    SCOPED_TRACE(arrays == Mem::host ? "host pointer arrays" : "device pointer arrays");
    LuRun<T> run(BLAS_ColMajor, "past the cuSOLVER crossover");
    for (const Case &c : cases) {
      const int g = run.add(c.n, c.n, c.count, make);
      run.group(g).getri = false;
      run.group(g).reversed = false, run.group(g).scattered = c.scattered;
    }
    CallOpts o = on("native");
    o.device_arrays = arrays == Mem::device;
    o.info = arrays == Mem::device ? Mem::device : Mem::host;
    run.upload();
    run.run(Routine::getrf, o);
    if (::testing::Test::HasFailure()) return;
    for (int g = 0; g < run.group_count(); ++g) {
      const std::string line = gpu::last_call_group_line(run.record(), g);
      EXPECT_EQ(line.find("cuda/cusolver") != std::string::npos, cases[g].on_solver && arrays == Mem::host)
          << "order " << cases[g].n << " x" << cases[g].count << ": " << line;
    }
  }
  // The strided entry point (addresses from its base).
  strided_case<T>(BLAS_ColMajor, 800, 800, 2, 1);
  if (::testing::Test::HasFailure()) return;
  // Planted factors: a NaN (factored again by the library's kernels) and a clean problem in one
  // group; in another, column 0's largest |re| + |im| twice (LAPACK: the first one).
  constexpr int n = 800;
  LuRun<T> run(BLAS_ColMajor, "planted factors past the cuSOLVER crossover");
  auto planted = [](int, int m, int pad, int) { return planted_problem<T>(m, BLAS_ColMajor, pad); };
  run.add(n, n, 2, planted);
  run.add(n, n, 1, planted);
  for (int g = 0; g < 2; ++g) run.group(g).getri = false, run.group(g).reversed = false;
  run.upload();
  run.poke(1, 500, 300, nan_value<T>());
  const Mat<T> &a = run.problem(2).A;
  int top = 0;
  for (int i = 1; i < n; ++i)
    if (bb::abs1(wide(a(i, 0))) > bb::abs1(wide(a(top, 0)))) top = i;
  const int twin = (top + n / 2) % n;
  run.poke(2, twin, 0, a(top, 0));
  const auto ref = run.reference(Routine::getrf);
  run.call(Routine::getrf, on("native"));
  run.download();
  EXPECT_EQ(run.info(), ref.info) << "info vs the reference backend";
  for (int p = 0; p < 2; ++p) {
    EXPECT_EQ(run.pivots(p), ref.ipiv[p]) << "problem " << p << ": pivots";
    const Mat<T> f = run.factors(p);
    int differ = 0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) differ += has_nan(f(i, j)) != has_nan(ref.A[p](i, j));
    EXPECT_EQ(differ, 0) << "problem " << p << ": entries where only one side holds NaN";
  }
  EXPECT_EQ(run.pivots(2)[0], std::min(top, twin) + 1) << "the tie's first row";
  EXPECT_EQ(ref.ipiv[2][0], std::min(top, twin) + 1) << "the reference's choice of the tie";
  run.verify_bytes();
  if (solver) {
    for (int g = 0; g < 2; ++g)
      EXPECT_NE(gpu::last_call_group_line(run.record(), g).find("cuda/cusolver"), std::string::npos);
  }
}

// The device's free memory taken but about `leave` bytes (cudaMalloc's granularity above it)
// until destroyed.
class DeviceFill {
 public:
  explicit DeviceFill(std::size_t leave) {
    for (std::size_t chunk = std::size_t(1) << 30; chunk >= (std::size_t(2) << 20);) {
      std::size_t free = 0, total = 0;
      CHECK_CUDA(cudaMemGetInfo(&free, &total));
      void *p = nullptr;
      if (free <= leave + chunk || cudaMalloc(&p, chunk) != cudaSuccess) {
        cudaGetLastError();
        chunk /= 2;
      } else {
        taken_.push_back(p);
      }
    }
  }
  ~DeviceFill() {
    for (void *p : taken_) cudaFree(p);
  }
  DeviceFill(const DeviceFill &) = delete;
  DeviceFill &operator=(const DeviceFill &) = delete;

 private:
  std::vector<void *> taken_;
};

// cuSOLVER's path keeps each problem's input (n^2 elements) in workspace. Where the device has
// no room for that copy, the call runs the blocked algorithm instead of failing (SPEC.md section
// 7). It fills the device's memory, so it runs alone: ctest's
// GpuGetrf.SolverPathWithoutRoom_alone sets BB_TEST_FILL_DEVICE (and loads every kernel at
// start, which a full device could not do later); elsewhere it skips.
TYPED_TEST(GpuGetrf, SolverPathWithoutRoomForItsCopy) {
  using T = typename TypeParam::type;
  if (!std::is_same_v<T, double> && !std::is_same_v<T, float>) GTEST_SKIP() << "no cuSOLVER path in this precision";
  // r32 at n = 2048: one problem's copy (16 MB) fits in what the session's pool kept from the
  // warm-up, and the path then takes the problems one at a time, as it should, so this test's
  // case needs r32 at n = 4096 with a third of ONE copy left free: BB_TEST_SOLVER_ROOM_N=<order>,
  // BB_TEST_SOLVER_ROOM_ONE_COPY=1 (a third of one copy, not of both) and BB_TEST_SOLVER_ROOM_R32=1,
  // as ctest's GpuGetrf.SolverPathWithoutRoom_r32_alone runs it (about 100 s, most of it the
  // host's reference). That case returned BLAS_BATCHED_ERR_DEVICE in s15; it passed in s51.
  [[maybe_unused]] const char *room_n = std::getenv("BB_TEST_SOLVER_ROOM_N"), *room_r32 = std::getenv("BB_TEST_SOLVER_ROOM_R32");
  [[maybe_unused]] const bool one_copy_left = std::getenv("BB_TEST_SOLVER_ROOM_ONE_COPY") != nullptr;
  if (std::is_same_v<T, float> && !room_r32) GTEST_SKIP() << "r32: see the comment above";
#ifndef BB_TEST_HAVE_CUSOLVER
  GTEST_SKIP() << "built without cuSOLVER";
#else
  if (!std::getenv("BB_TEST_FILL_DEVICE"))
    GTEST_SKIP() << "fills the device's memory: runs alone as GpuGetrf.SolverPathWithoutRoom_alone";
  auto make = [](int m, int n, int pad, int i) {
    return i == 0 ? random_problem<T>(m, n, BLAS_ColMajor, pad)
                  : dominant_problem<T>(m, n, BLAS_ColMajor, pad, {random_int(0, n - 1)});
  };
  {  // the session, its pool and cuSOLVER's handle, by a small problem of the solver path
    LuRun<T> warm(BLAS_ColMajor, "warm-up on the solver path");
    warm.group(warm.add(256, 256, 1, make)).getri = false;
    warm.upload();
    warm.run(Routine::getrf, on("native"));
    if (::testing::Test::HasFailure()) return;
  }
  // Two problems, the second singular (factored again after cuSOLVER on the solver path).
  const int n = room_n ? std::atoi(room_n) : 2048;
  ASSERT_GE(n, 1024) << "BB_TEST_SOLVER_ROOM_N: past the solver crossover";
  LuRun<T> run(BLAS_ColMajor, "no room for the kept copies");
  const int g = run.add(n, n, 2, make);
  run.group(g).getri = false, run.group(g).reversed = false;
  run.upload();
  run.reference(Routine::getrf);  // the host's answer first (the checked call finds it cached)
  const std::size_t copies = std::size_t(2) * n * n * sizeof(T);
  DeviceFill fill((one_copy_left ? copies / 2 : copies) / 3);
  setenv("BLAS_BATCHED_DEBUG", "1", 1);
  ::testing::internal::CaptureStderr();
  CallOpts o = on("native");
  o.info = Mem::host;
  run.run(Routine::getrf, o);
  const std::string said = ::testing::internal::GetCapturedStderr();
  unsetenv("BLAS_BATCHED_DEBUG");
  EXPECT_NE(said.find("no room for cuSOLVER's path"), std::string::npos) << "the library said: " << said;
  EXPECT_NE(gpu::last_call_group_line(run.record(), 0).find("cuda/cusolver"), std::string::npos)
      << "the plan (the record names it, not what ran): " << run.record();
#endif
}

// ---- 10. the inverse in one call (SPEC.md section 9.4) on device data ---------------------------
// BLAS_getrf_getri_batched against getrf followed by getri on the same backend: the same ipiv,
// info and return value, a singular problem's getrf factors bit for bit, padding untouched;
// regular problems hold inv(A) (residual ||I - A X||), bit for bit the two calls' result where
// the device runs getrf's and getri's kernels (above order 32, r64/c64/c32/c16 above 16, r16 at
// 9..16, r128/c128) and not necessarily where the one-pass kernels run (unrounded factors,
// Gauss-Jordan). Host pointer arrays with host info, and device pointer arrays with device
// info; orders of the one-problem-per-thread kernels, the register kernels, the blocked getrf
// (and a blocked order left unblocked among many runs) and getri's shared kernel; a singular
// problem in each group, a NULL A in the first and in a blocked one.

// The orders at which the inverse in one call runs its one-pass kernels (lu_one_pass_inverse in
// src/cuda/lu/lu_tuning.hpp): every order up to 8, up to 16 but r16's above 8, and r32's and
// r16's 17..32 (there the rolled getrf then getri from BLAS_BATCHED_LU_ROLLED_MIN on); none with
// BLAS_BATCHED_LU_ONE_PASS=0.
template <class T>
bool one_pass_inverse_order(int n) {
  if (is_quad<T> || n > 32) return false;
  const char *one_pass = std::getenv("BLAS_BATCHED_LU_ONE_PASS"), *rolled = std::getenv("BLAS_BATCHED_LU_ROLLED_MIN");
  if (one_pass && one_pass[0] == '0') return false;
  const bool r16 = is_half<T> && !is_cplx<T>, r32 = std::is_same_v<T, float>;
  if (n <= 8) return true;
  if (n <= 16) return !r16;
  const int forced = rolled && std::atoi(rolled) > 0 ? std::atoi(rolled) : 0;
  return (r32 || r16) && !(forced && n >= forced);
}

template <class T>
void inverse_in_one_call(BLAS_Layout layout) {
  // Ten groups, more runs than kBlockedSerialRuns: orders 33 and 100 with kBlockedMinProblems
  // problems stay blocked (factor_blocked_run), order 48 with 5 does not, in getrf's call and in
  // the inverse's (whose vendor path once blocked such a run: rounding apart from the two calls).
  const std::vector<int> orders =
      is_quad<T> ? std::vector<int>{3, 33} : std::vector<int>{3, 8, 13, 20, 24, 26, 32, 33, 48, 100};
  const auto count_of = [](int order) { return order == 33 || order == 100 ? 16 : 5; };
  constexpr int kNullA = 1;  // problem 1 of group 0: NULL A
  // And problem 1 of the order-33 group (blocked getrf: on device pointer arrays its operands
  // lead to the driver's scratch, which getri must skip).
  int null_blocked = 0;
  std::vector<LuProblem<T>> problems;
  std::vector<int> n, ld, sizes;
  for (int order : orders) {
    const int pad = random_int(0, 3), count = count_of(order);
    if (order == 33) null_blocked = int(problems.size()) + 1;
    for (int i = 0; i < count; ++i)
      problems.push_back(i == 2 ? dominant_problem<T>(order, order, layout, pad, {random_int(0, order - 1)})
                                : dominant_problem<T>(order, order, layout, pad));
    n.push_back(order), ld.push_back(problems.back().A.ld), sizes.push_back(count);
  }
  const int total = int(problems.size()), G = int(orders.size());
  std::vector<std::size_t> at(total);  // element offsets of the matrices in one device buffer
  std::size_t elements = 0;
  for (int p = 0; p < total; ++p) at[p] = elements, elements += problems[p].A.data.size();
  struct Result {
    int rc;
    std::vector<T> a;
    std::vector<int> ipiv, info;
  };
  // One call (fused) or two (getrf, then getri) on fresh device copies.
  auto run = [&](bool fused, bool device_arrays, const char *backend) {
    BackendScope scope(backend);
    Buffer a(Mem::device, elements * sizeof(T)), piv(Mem::device, std::size_t(total) * 128 * sizeof(int));
    for (int p = 0; p < total; ++p) a.write(at[p] * sizeof(T), problems[p].A.data.data(), problems[p].A.data.size() * sizeof(T));
    std::vector<int> poison(std::size_t(total) * 128, kIpivPoison);
    piv.write(0, poison.data(), poison.size() * sizeof(int));
    std::vector<T *> pa(total);
    std::vector<int *> pp(total);
    for (int p = 0; p < total; ++p)
      pa[p] = reinterpret_cast<T *>(a.get()) + at[p], pp[p] = reinterpret_cast<int *>(piv.get()) + p * 128;
    pa[kNullA] = pa[null_blocked] = nullptr;
    Buffer da(Mem::device, total * sizeof(T *)), dp(Mem::device, total * sizeof(int *)), dinfo(Mem::device, total * sizeof(int));
    std::vector<int> info(total, kInfoPoison);
    T **A = pa.data();
    int **ipiv = pp.data();
    int *inf = info.data();
    if (device_arrays) {
      da.write(0, pa.data(), total * sizeof(T *)), dp.write(0, pp.data(), total * sizeof(int *));
      dinfo.write(0, info.data(), total * sizeof(int));
      A = reinterpret_cast<T **>(da.get()), ipiv = reinterpret_cast<int **>(dp.get()), inf = reinterpret_cast<int *>(dinfo.get());
    }
    Result r;
    if (fused) {
      r.rc = Api<T>::getrf_getri(layout, n.data(), A, ld.data(), ipiv, G, sizes.data(), inf);
    } else {
      r.rc = Api<T>::getrf(layout, n.data(), n.data(), A, ld.data(), ipiv, G, sizes.data(), inf);
      EXPECT_GE(r.rc, 0) << "getrf";
      r.rc = Api<T>::getri(layout, n.data(), A, ld.data(), ipiv, G, sizes.data(), inf);
    }
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    r.a.resize(elements), r.ipiv.resize(poison.size());
    a.read(0, r.a.data(), elements * sizeof(T)), piv.read(0, r.ipiv.data(), r.ipiv.size() * sizeof(int));
    if (device_arrays) dinfo.read(0, info.data(), total * sizeof(int));
    r.info = info;
    return r;
  };
  for (bool device_arrays : {false, true}) {
    if (device_arrays && is_quad<T>) continue;  // no GPU arithmetic: device arrays are UNSUPPORTED
    for (const char *backend : device_backends<T>()) {
      SCOPED_TRACE(std::string(layout == BLAS_RowMajor ? "row-major, " : "column-major, ") +
                   (device_arrays ? "device" : "host") + " pointer arrays, backend " + backend + ", " + seed_note());
      const Result two = run(false, device_arrays, backend), one = run(true, device_arrays, backend);
      EXPECT_EQ(one.rc, two.rc) << "return value";
      EXPECT_EQ(one.rc, G + 2) << "a singular problem per group and the two NULL A";
      EXPECT_EQ(one.info, two.info) << "info";
      EXPECT_EQ(one.info[kNullA], -3) << "a NULL A is argument 3 of the fused signature";
      EXPECT_EQ(one.info[null_blocked], -3) << "a NULL A in a blocked group";
      EXPECT_EQ(one.info[2], problems[2].info) << "the singular problem's info";
      EXPECT_EQ(one.ipiv, two.ipiv) << "ipiv";
      for (int p = 0; p < total; ++p) {
        const LuProblem<T> &pr = problems[p];
        const std::size_t len = pr.A.data.size();
        const bool one_pass_order = one_pass_inverse_order<T>(pr.n);
        if (two.info[p] != 0 || !one_pass_order) {  // getrf's factors, untouched, or getri's result
          if (std::memcmp(one.a.data() + at[p], two.a.data() + at[p], len * sizeof(T)) != 0) {
            // How far apart: rounding (another order of operations) or another result.
            double diff = 0, size = 0;
            for (std::size_t e = 0; e < len; ++e) {
              const auto x = wide(one.a[at[p] + e]), y = wide(two.a[at[p] + e]);
              diff = std::max(diff, to_double(bb::abs1(x - y))), size = std::max(size, to_double(bb::abs1(y)));
            }
            ADD_FAILURE() << "problem " << p << " (n = " << pr.n << ", info " << two.info[p]
                          << "): A differs from getrf + getri, by " << diff << " at most (largest element " << size << ")";
          }
          continue;
        }
        Mat<T> X = pr.A;
        X.data.assign(one.a.begin() + at[p], one.a.begin() + at[p] + len);
        for (std::size_t e = 0; e < len; ++e) {
          int i, j;
          if (!X.logical(e, i, j) && !same_bits(X.data[e], pr.A.data[e])) {
            ADD_FAILURE() << "problem " << p << ": padding element " << e << " written";
            break;
          }
        }
        const double res = getri_residual(pr.A, X);
        EXPECT_LE(res, residual_limit<T>()) << "problem " << p << " (n = " << pr.n << "): ||I - A inv(A)|| / (n ||A|| ||X|| eps)";
      }
      EXPECT_FALSE(std::memcmp(one.a.data() + at[0], problems[0].A.data.data(), problems[0].A.data.size() * sizeof(T)) == 0)
          << "a regular problem's A unchanged";
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// Both layouts: from order 33 both parts run blocked (getri's blocked algorithm in r32..c64, c64
// from 64: the order-100 group), in either layout's view.
TYPED_TEST(GpuGetrf, InverseInOneCall) {
  for (BLAS_Layout layout : kLayouts) {
    inverse_in_one_call<typename TypeParam::type>(layout);
    if (::testing::Test::HasFailure()) return;
  }
}

}  // namespace
}  // namespace conf
