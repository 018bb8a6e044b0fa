// gemm on device-resident data, through the public C API only. Every result is compared with
// the reference backend run on host copies of the same inputs; every byte the call may not
// write (padding, A, B, gaps between matrices, whole invalid groups) is compared bit for bit.
// Covers: all transposes and layouts over every size class, many groups and host + device
// groups in one call, strided / shuffled / broadcast pointer arrays, more than 65535 problems,
// the quick paths with NaN in unread operands, mixed residency (-8/-10/-13), device data to
// routines without a device path, user streams, device timing and concurrent threads.
// Without a GPU every test skips (gpu_common.hpp). BB_GPU_REDUCED=1 shrinks it for sanitizers.
#include "gpu_common.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <thread>

namespace conf {
namespace {

using gpu::Buffer;
using gpu::Mem;

constexpr int kInfoSentinel = -777;  // info values the library has not written
constexpr BLAS_Op N = BLAS_NoTrans, Tr = BLAS_Trans, Cj = BLAS_ConjTrans;
// Device groups are compared with the reference for both device backends (SPEC.md section 7).
constexpr const char *kDeviceBackends[] = {"native", "vendor"};

// How a group's matrices sit in their allocation (problem p's matrix is in slot perm[p]):
// strided = back to back in problem order, reversed, swapped_tail = strided but for the last
// two (a pointer-stride detector must look at every pointer), shuffled = a random
// permutation per operand, broadcast = every problem shares one A and one B.
enum class Arrange { strided, reversed, swapped_tail, shuffled, broadcast };
const char *arrange_name(Arrange a) {
  switch (a) {
    case Arrange::strided: return "strided";
    case Arrange::reversed: return "reversed";
    case Arrange::swapped_tail: return "swapped-tail";
    case Arrange::shuffled: return "shuffled";
    case Arrange::broadcast: return "broadcast";
  }
  return "?";
}

// One group of a call: its parameters, where its matrices live, and the info it must get.
template <class T>
struct Spec {
  BLAS_Op ta = N, tb = N;
  int m = 1, n = 1, k = 1, count = 1;
  T alpha = T(1), beta = T(0);
  int pad = 3;  // ld = the smallest legal one + pad; padding holds NaN
  Mem mem[3] = {Mem::device, Mem::device, Mem::device};  // A, B, C
  std::optional<Mem> last_A;  // the group's last A lives in this kind instead (a mixed A array)
  Arrange arrange = Arrange::strided;
  bool null_AB = false;                 // k = 0 with NULL A[p], B[p]: legal, they are not needed
  bool bad_ta = false, bad_lda = false, bad_ldb = false;  // ordinary argument errors (-2, -9, -11)
  int expect = 0;                       // info of every problem of the group

  bool ab_unused() const { return alpha == T(0) || k == 0; }
  bool writes_c() const { return expect == 0 && count > 0 && m > 0 && n > 0; }
  std::string describe() const {
    std::string s = std::string(op_name(ta)) + op_name(tb) + " m n k " + std::to_string(m) + " " +
                    std::to_string(n) + " " + std::to_string(k) + " x" + std::to_string(count) +
                    " pad " + std::to_string(pad) + " " + arrange_name(arrange) + " A/B/C " +
                    gpu::mem_name(mem[0]) + "/" + gpu::mem_name(mem[1]) + "/" + gpu::mem_name(mem[2]);
    if (last_A) s += std::string(" last A ") + gpu::mem_name(*last_A);
    if (alpha == T(0)) s += " alpha=0";
    if (beta == T(0)) s += " beta=0";
    if (null_AB) s += " A,B NULL";
    return s;
  }
};

template <class T>
Spec<T> group(BLAS_Op ta, BLAS_Op tb, int m, int n, int k, int count) {
  Spec<T> s;
  s.ta = ta, s.tb = tb, s.m = m, s.n = n, s.k = k, s.count = count;
  s.alpha = random_value<T>(), s.beta = random_value<T>();
  return s;
}

// One call's worth of groups: inputs on the host (the truth), copied into one allocation per
// memory kind (an "arena"; matrices of a group back to back, groups 256-byte aligned, a NaN
// guard at the end), the call, and the checks.
template <class T>
class GemmRun {
 public:
  GemmRun(BLAS_Layout layout, std::vector<Spec<T>> specs) : layout_(layout), specs_(std::move(specs)) {
    make_inputs();
    place();
  }

  // Copies the inputs into the arenas. With a stream: device arenas are first poisoned, then
  // filled by asynchronous copies from pinned memory queued on `stream` behind a host-side
  // delay, so a call that does not wait for the stream reads the poison.
  void upload(cudaStream_t stream = nullptr, int delay_ms = 0) {
    if (stream) {
      for (auto &[kind, a] : arenas_)
        if (kind == Mem::device) CHECK_CUDA(cudaMemset(a.buf.get(), 0xFF, a.size));
      CHECK_CUDA(cudaLaunchHostFunc(stream, sleep_ms, reinterpret_cast<void *>(intptr_t(delay_ms))));
    }
    for (auto &[kind, a] : arenas_) {
      if (stream && kind == Mem::device) {
        staging_.emplace_back(Mem::pinned, a.size);
        std::memcpy(staging_.back().get(), a.before.data(), a.size);
        CHECK_CUDA(cudaMemcpyAsync(a.buf.get(), staging_.back().get(), a.size, cudaMemcpyHostToDevice, stream));
      } else {
        a.buf.write(0, a.before.data(), a.size);
      }
    }
  }

  // The bare call: no gtest macros, so threads may use it. Keeps info and the call record.
  int invoke(bool with_info = true) {
    std::vector<BLAS_Op> ta, tb;
    std::vector<int> m, n, k, lda, ldb, ldc, sizes;
    std::vector<T> alpha, beta;
    for (std::size_t g = 0; g < specs_.size(); ++g) {
      const Spec<T> &s = specs_[g];
      ta.push_back(s.bad_ta ? BLAS_Op(0) : s.ta), tb.push_back(s.tb);
      m.push_back(s.m), n.push_back(s.n), k.push_back(s.k), sizes.push_back(s.count);
      alpha.push_back(s.alpha), beta.push_back(s.beta);
      if (s.count == 0) {
        lda.push_back(1), ldb.push_back(1), ldc.push_back(1);
        continue;
      }
      const Mat<T> &a = A_[first_[g]], &b = B_[first_[g]];
      auto too_small = [&](const Mat<T> &x) { return std::max(1, x.row_major ? x.cols : x.rows) - 1; };
      lda.push_back(s.bad_lda ? too_small(a) : a.ld), ldb.push_back(s.bad_ldb ? too_small(b) : b.ld);
      ldc.push_back(C_[first_[g]].ld);
    }
    std::vector<T *> pa(total_), pb(total_), pc(total_);
    for (int p = 0; p < total_; ++p) pa[p] = ptr(0, p), pb[p] = ptr(1, p), pc[p] = ptr(2, p);
    info.assign(total_, kInfoSentinel);
    int rc = Api<T>::gemm(layout_, ta.data(), tb.data(), m.data(), n.data(), k.data(), alpha.data(), pa.data(),
                          lda.data(), pb.data(), ldb.data(), beta.data(), pc.data(), ldc.data(),
                          int(specs_.size()), sizes.data(), with_info ? info.data() : nullptr);
    last_call_ = blas_batched_last_call();
    with_info_ = with_info;
    return rc;
  }

  int call(const char *backend, bool with_info = true) {
    BackendScope scope(backend);
    int rc = invoke(with_info);
    EXPECT_NO_CUDA_ERROR();
    return rc;
  }

  void download() {
    for (auto &[kind, a] : arenas_) {
      a.after.resize(a.size);
      a.buf.read(0, a.after.data(), a.size);
    }
  }
  // download() after a call that returned rc: a fault on the device surfaces here, so a failed
  // read names the call and its groups before the exception goes on.
  void download_after(int rc) {
    try {
      download();
    } catch (...) {
      ADD_FAILURE() << "the call returned " << rc << ", then its results could not be read\n" << record();
      throw;
    }
  }

  // C of every problem after the reference backend ran the valid groups on host copies.
  std::vector<Mat<T>> reference() const {
    std::vector<Mat<T>> A = A_, B = B_, C = C_;
    std::vector<BLAS_Op> ta, tb;
    std::vector<int> m, n, k, lda, ldb, ldc, sizes;
    std::vector<T> alpha, beta;
    std::vector<T *> pa, pb, pc;
    for (std::size_t g = 0; g < specs_.size(); ++g) {
      const Spec<T> &s = specs_[g];
      if (s.expect != 0 || s.count == 0) continue;
      ta.push_back(s.ta), tb.push_back(s.tb), m.push_back(s.m), n.push_back(s.n), k.push_back(s.k);
      alpha.push_back(s.alpha), beta.push_back(s.beta), sizes.push_back(s.count);
      int f = first_[g];
      lda.push_back(A[f].ld), ldb.push_back(B[f].ld), ldc.push_back(C[f].ld);
      for (int p = f; p < f + s.count; ++p) {
        pa.push_back(s.null_AB ? nullptr : A[p].ptr()), pb.push_back(s.null_AB ? nullptr : B[p].ptr());
        pc.push_back(C[p].ptr());
      }
    }
    std::vector<int> info(pc.size(), kInfoSentinel);
    BackendScope scope("reference");
    int rc = Api<T>::gemm(layout_, ta.data(), tb.data(), m.data(), n.data(), k.data(), alpha.data(), pa.data(),
                          lda.data(), pb.data(), ldb.data(), beta.data(), pc.data(), ldc.data(), int(sizes.size()),
                          sizes.data(), info.data());
    EXPECT_EQ(rc, 0) << "reference backend on host copies";
    EXPECT_EQ(std::count(info.begin(), info.end(), 0), long(info.size())) << "reference info";
    return C;
  }

  // Checks the last call (after download()) against the reference results.
  void verify(const std::vector<Mat<T>> &Cref, int rc, const char *backend) {
    int bad = 0;
    for (const Spec<T> &s : specs_) bad += s.expect != 0 ? s.count : 0;
    noted_ = false;
    EXPECT_EQ(rc, bad) << "return value = number of problems with non-zero info" << note();
    if (rc <= BLAS_BATCHED_ERR_ALLOC && rc != bad) return;  // an error code: the details would only repeat it
    if (with_info_) check_info();
    check_bytes();
    check_values(Cref);
    check_where(backend);
    count_checked((std::string("gpu gemm ") + traits<T>::name() + " " + backend).c_str(), total_);
  }

  std::vector<int> info;
  const std::vector<Spec<T>> &specs() const { return specs_; }

 private:
  struct Arena {
    std::size_t size = 0;
    Buffer buf;
    std::vector<unsigned char> before, after;
  };
  struct Region {  // for failure messages: which matrices a byte range holds
    Mem kind;
    std::size_t off, bytes;
    int group, operand;
  };
  struct Loc {
    Mem kind;
    std::size_t off;
  };

  static void CUDART_CB sleep_ms(void *ms) {
    std::this_thread::sleep_for(std::chrono::milliseconds(reinterpret_cast<intptr_t>(ms)));
  }

  std::vector<Mat<T>> &mats(int o) { return o == 0 ? A_ : o == 1 ? B_ : C_; }

  void make_inputs() {
    for (const Spec<T> &s : specs_) {
      first_.push_back(total_);
      total_ += s.count;
      bool an = s.ta == N, bn = s.tb == N;
      for (int i = 0; i < s.count; ++i) {
        group_of_.push_back(int(first_.size()) - 1);
        A_.emplace_back(an ? s.m : s.k, an ? s.k : s.m, layout_, s.pad);
        B_.emplace_back(bn ? s.k : s.n, bn ? s.n : s.k, layout_, s.pad);
        C_.emplace_back(s.m, s.n, layout_, s.pad);
        // Operands the call must not read stay NaN; the rest is random and never zero.
        if (!s.ab_unused()) {
          if (s.arrange == Arrange::broadcast && i > 0) A_.back() = A_[first_.back()], B_.back() = B_[first_.back()];
          else A_.back().fill_random(), B_.back().fill_random();
        }
        if (!(s.beta == T(0))) C_.back().fill_random();
      }
    }
  }

  // Reserves every matrix's place, fills the arenas' host images and allocates them.
  void place() {
    for (auto &l : loc_) l.resize(total_);
    auto reserve = [&](Mem kind, std::size_t bytes, int g, int o) {
      Arena &a = arenas_[kind];
      a.size = (a.size + 255) / 256 * 256;
      std::size_t off = a.size;
      a.size += bytes;
      regions_.push_back({kind, off, bytes, g, o});
      return off;
    };
    for (std::size_t g = 0; g < specs_.size(); ++g) {
      const Spec<T> &s = specs_[g];
      if (s.count == 0) continue;
      for (int o = 0; o < 3; ++o) {
        int f = first_[g];
        std::size_t slot = mats(o)[f].data.size() * sizeof(T);
        bool shared = s.arrange == Arrange::broadcast && o < 2;
        int main = s.count - (o == 0 && s.last_A ? 1 : 0);
        int slots = shared ? std::min(main, 1) : main;
        std::vector<int> perm(slots);
        std::iota(perm.begin(), perm.end(), 0);
        if (s.arrange == Arrange::reversed) std::reverse(perm.begin(), perm.end());
        if (s.arrange == Arrange::swapped_tail && slots >= 2) std::swap(perm[slots - 1], perm[slots - 2]);
        if (s.arrange == Arrange::shuffled) std::shuffle(perm.begin(), perm.end(), rng());
        std::size_t off = reserve(s.mem[o], slots * slot, int(g), o);
        for (int i = 0; i < main; ++i) loc_[o][f + i] = {s.mem[o], off + (shared ? 0 : perm[i]) * slot};
        if (o == 0 && s.last_A) loc_[0][f + s.count - 1] = {*s.last_A, reserve(*s.last_A, slot, int(g), 0)};
      }
    }
    for (auto &[kind, a] : arenas_) {
      a.size += 256;                   // guard: catches writes past the last matrix
      a.before.assign(a.size, 0xFF);   // 0xFF bytes are NaN in every precision
      a.buf = Buffer(kind, a.size);
    }
    for (int o = 0; o < 3; ++o)
      for (int p = 0; p < total_; ++p) {
        const Mat<T> &x = mats(o)[p];
        std::memcpy(arenas_[loc_[o][p].kind].before.data() + loc_[o][p].off, x.data.data(), x.data.size() * sizeof(T));
      }
  }

  T *ptr(int o, int p) const {
    if (o < 2 && specs_[group_of_[p]].null_AB) return nullptr;
    return reinterpret_cast<T *>(arenas_.at(loc_[o][p].kind).buf.get() + loc_[o][p].off);
  }

  std::string where(Mem kind, std::size_t off) const {
    for (const Region &r : regions_)
      if (r.kind == kind && off >= r.off && off < r.off + r.bytes)
        return std::string("operand ") + "ABC"[r.operand] + " of group " + std::to_string(r.group) + " (" +
               specs_[r.group].describe() + "), byte " + std::to_string(off - r.off) + " of its region";
    return "a gap between matrices or the guard after them";
  }

  void check_info() {
    int shown = 0;
    for (int p = 0; p < total_ && shown < 5; ++p)
      if (info[p] != specs_[group_of_[p]].expect) {
        ADD_FAILURE() << "info[" << p << "] = " << info[p] << ", expected " << specs_[group_of_[p]].expect
                      << " (group " << group_of_[p] << ": " << specs_[group_of_[p]].describe() << ")" << note();
        ++shown;
      }
  }

  // Every byte outside the logical C of valid problems is what was uploaded: A, B, padding,
  // gaps, guards, m = 0 / n = 0 problems and whole invalid groups.
  void check_bytes() {
    std::map<Mem, std::vector<unsigned char>> expected;
    for (auto &[kind, a] : arenas_) expected[kind] = a.before;
    for (int p = 0; p < total_; ++p) {
      if (!specs_[group_of_[p]].writes_c()) continue;
      const Mat<T> &c = C_[p];
      auto &e = expected[loc_[2][p].kind];
      const auto &after = arenas_[loc_[2][p].kind].after;
      for (int j = 0; j < c.cols; ++j)
        for (int i = 0; i < c.rows; ++i) {
          std::size_t b = loc_[2][p].off + c.index(i, j) * sizeof(T);
          std::memcpy(e.data() + b, after.data() + b, sizeof(T));
        }
    }
    for (auto &[kind, a] : arenas_) {
      const auto &e = expected[kind];
      auto mis = std::mismatch(e.begin(), e.end(), a.after.begin());
      if (mis.first != e.end())
        ADD_FAILURE() << "a byte the call must not write changed in " << gpu::mem_name(kind) << " memory: "
                      << where(kind, std::size_t(mis.first - e.begin())) << note();
    }
  }

  void check_values(const std::vector<Mat<T>> &Cref) {
    int failures = 0;
    for (int p = 0; p < total_ && failures < 5; ++p) {
      const Spec<T> &s = specs_[group_of_[p]];
      if (!s.writes_c()) continue;
      Mat<T> out = C_[p];
      std::memcpy(out.data.data(), arenas_[loc_[2][p].kind].after.data() + loc_[2][p].off, out.data.size() * sizeof(T));
      std::string fail;
      if (s.ab_unused() && (s.beta == T(0) || s.beta == T(1))) {
        // Quick paths are exact: C = 0, or C unchanged for beta = 1.
        for (int j = 0; j < s.n && fail.empty(); ++j)
          for (int i = 0; i < s.m && fail.empty(); ++i) {
            T want = s.beta == T(0) ? T(0) : C_[p](i, j);
            if (!(out(i, j) == want)) fail = "quick path not exact at " + std::to_string(i) + "," + std::to_string(j);
          }
      } else {
        const Mat<T> &A = A_[p], &B = B_[p], &C0 = C_[p];
        auto at = [](const Mat<T> &x) { return [&x](int i, int j) { return wide(x(i, j)); }; };
        WideReal<T> scale = 0;
        if (!s.ab_unused()) scale += bb::absval(wide(s.alpha)) * frob<T>(A.rows, A.cols, at(A)) * frob<T>(B.rows, B.cols, at(B));
        if (!(s.beta == T(0))) scale += bb::absval(wide(s.beta)) * frob<T>(C0.rows, C0.cols, at(C0));
        // Half precision accumulates in single and rounds each result once (SPEC.md section 6):
        // one half rounding on each side plus single-precision accumulation, a bound that a 1 %
        // error already breaks; the others: k roundings of their own precision.
        const double bound = is_half<T> ? to_double(scale) * rounded_once_unit<T>(1, s.k + 2)
                                        : to_double(scale) * (s.k + 2) * eps<T>();
        const double limit = is_half<T> ? 4.0 : 2 * residual_limit<T>();
        double d = abs_diff(out, Cref[p]);  // infinite on NaN: unwritten (poisoned) C fails here
        if (!(d <= limit * bound))
          fail = "differs from the reference: |C - Cref|_F = " + std::to_string(d) + ", ratio " +
                 std::to_string(d / bound) + " > " + std::to_string(limit);
      }
      if (!fail.empty()) {
        ADD_FAILURE() << "problem " << p << " of group " << group_of_[p] << " (" << s.describe() << ", "
                      << layout_name(layout_) << "): " << fail << note();
        ++failures;
      }
    }
  }

  // blas_batched_last_call() must say per group where it ran: "cuda/..." for device groups,
  // never staged for the natively supported precisions, cuBLAS under vendor.
  void check_where(const char *backend) {
    for (std::size_t g = 0; g < specs_.size() && g < 16; ++g) {
      const Spec<T> &s = specs_[g];
      if (s.count == 0) continue;
      std::string line = gpu::last_call_group_line(last_call_, int(g));
      if (s.expect != 0) {
        EXPECT_NE(line.find(std::to_string(-s.expect)), std::string::npos)
            << "group " << g << " should report argument " << -s.expect << note();
        continue;
      }
      if (s.m == 0 || s.n == 0 || s.ab_unused()) continue;  // quick paths may be reported as anything
      SCOPED_TRACE("group " + std::to_string(g) + " (" + s.describe() + "), backend " + backend);
      ASSERT_FALSE(line.empty()) << "no line for the group in blas_batched_last_call()" << note();
      if (!gpu::on_device(s.mem[0])) {
        EXPECT_NE(line.find("host/"), std::string::npos) << "a host group must run on the host: " << line;
        continue;
      }
      EXPECT_NE(line.find("cuda/"), std::string::npos) << "a device group must run under cuda/: " << line;
      if (!is_quad<T>) {
        EXPECT_EQ(line.find("staged"), std::string::npos) << "r16..c64 run natively on the GPU: " << line;
      }
      if (std::string(backend) == "vendor" && !is_quad<T> && !(is_half<T> && is_cplx<T>)) {
        // Matrices evenly spaced in decreasing addresses (a reversed arrangement) would reach
        // cuBLAS with a negative stride: the library's kernels take them (SPEC.md section 7).
        bool even = s.count > 1, negative = false;
        for (int o = 0; o < 3 && even; ++o) {
          const std::ptrdiff_t step = ptr(o, first_[g] + 1) - ptr(o, first_[g]);
          negative = negative || step < 0;
          for (int p = first_[g] + 1; p < first_[g] + s.count && even; ++p) even = ptr(o, p) - ptr(o, p - 1) == step;
        }
        const bool reversed = even && negative;
        if (reversed)
          EXPECT_NE(line.find("cuda/kernel"), std::string::npos) << "a negative stride stays off cuBLAS: " << line;
        else
          EXPECT_NE(line.find("cublas"), std::string::npos) << "vendor runs device groups on cuBLAS: " << line;
      }
    }
  }

 public:
  // The call record and every group's description, for a failure that no check can place.
  std::string record() const {
    std::string text = last_call_;
    for (std::size_t g = 0; g < specs_.size(); ++g) text += "group " + std::to_string(g) + ": " + specs_[g].describe() + "\n";
    return text;
  }

 private:
  BLAS_Layout layout_;
  std::vector<Spec<T>> specs_;
  std::vector<Mat<T>> A_, B_, C_;
  std::vector<int> first_, group_of_;
  int total_ = 0;
  std::map<Mem, Arena> arenas_;
  std::vector<Region> regions_;
  std::vector<Loc> loc_[3];
  std::vector<Buffer> staging_;  // pinned sources of asynchronous uploads
  std::string last_call_;
  bool noted_ = false;
  // The call record, attached to the first failure message of a verify() only.
  std::string note() {
    if (noted_) return "";
    noted_ = true;
    return "\n" + last_call_;
  }
  bool with_info_ = true;
};

// Uploads, calls with each device backend, downloads and verifies.
template <class T>
void run_all_backends(GemmRun<T> &run, const std::string &what) {
  std::vector<Mat<T>> Cref = run.reference();
  for (const char *backend : kDeviceBackends) {
    SCOPED_TRACE(what + ", backend " + backend + ", " + seed_note());
    run.upload();  // fresh C: the previous backend overwrote it
    int rc = run.call(backend);
    run.download_after(rc);
    run.verify(Cref, rc, backend);
  }
}

template <class P>
class GpuGemm : public gpu::GpuTest {};
TYPED_TEST_SUITE(GpuGemm, AllPrecisions, PrecisionNames);

// ---- 1. every transpose pair and layout over every size class ------------------------------
template <class T>
std::vector<Spec<T>> sweep_specs(BLAS_Op ta, BLAS_Op tb, bool red) {
  std::vector<Spec<T>> v;
  auto add = [&](int m, int n, int k, int count) {
    static const int pads[] = {3, 0, 1, 3};  // mostly ld = rows + 3; tight and odd ones too
    Spec<T> s = group<T>(ta, tb, m, n, k, count);
    s.pad = pads[v.size() % 4];
    if (v.size() % 5 == 4) s.arrange = Arrange::shuffled;
    v.push_back(s);
    return &v.back();
  };
  // Every order 1..32 (software-float quad: in NN, TT, CC only, to keep its host reference short).
  bool all_small = !red && (!is_quad<T> || ta == tb);
  std::vector<int> squares;
  for (int n = 1; n <= 32; ++n)
    if (all_small || n <= 4 || n == 7 || n == 8 || n == 15 || n == 16 || n == 17 || n >= 31) squares.push_back(n);
  for (int n : squares) add(n, n, n, n <= 8 ? 3 + int(v.size()) % 9 : n <= 32 ? 1 + int(v.size()) % 3 : 1);
  // Tight exact orders: the flat kernels that keep C in registers (the pads above miss them).
  for (int n : {2, 4, 8, 16}) add(n, n, n, 3)->pad = 0;
  const int rect[][3] = {{1, 7, 3}, {17, 5, 9}, {33, 2, 40}, {5, 40, 1}, {64, 16, 3}, {3, 1, 70},
                         {9, 31, 17}, {31, 33, 2}, {70, 65, 33}, {2, 100, 64}, {128, 3, 48}, {1, 1, 300}, {100, 1, 1}};
  for (std::size_t i = 0; i < std::size(rect); ++i)
    if (!red || i % 3 == 0) add(rect[i][0], rect[i][1], rect[i][2], 1 + int(i) % 2);
  bool nn = ta == N && tb == N;
  std::vector<int> medium = red ? std::vector<int>{33, 65}
                          : is_quad<T> ? (nn ? std::vector<int>{33, 48, 65} : std::vector<int>{33, 48})
                                       : std::vector<int>{33, 48, 64, 65, 100, 128};
  for (int n : medium) add(n, n, n, n <= 64 ? 2 : 1);
  if (!red) {  // large: 256 where hardware arithmetic makes the host reference cheap
    if (!is_quad<T> && !is_half<T>) add(256, 256, 256, 1), add(200, 256, 129, 1);
    if (is_half<T> && (nn || (ta == Cj && tb == Tr))) add(160, 160, 160, 1);
    if (is_quad<T> && nn) add(80, 80, 80, 1);
  }
  // Quick paths in every configuration: unread operands hold NaN.
  add(6, 5, 4, 3)->alpha = T(0);
  add(7, 3, 9, 2)->beta = T(0);
  Spec<T> *both = add(5, 5, 5, 2);
  both->alpha = T(0), both->beta = T(0);
  add(4, 6, 0, 2);
  add(0, 4, 3, 2), add(4, 0, 3, 1), add(0, 0, 0, 1);
  return v;
}

template <class T>
void sweep(BLAS_Layout layout) {
  bool red = gpu::reduced();
  for (BLAS_Op ta : kOps)
    for (BLAS_Op tb : kOps) {
      if (red && !((ta == N && tb == N) || (ta == Tr && tb == Cj) || (ta == Cj && tb == N))) continue;
      GemmRun<T> run(layout, sweep_specs<T>(ta, tb, red));
      run_all_backends(run, std::string(layout_name(layout)) + " " + op_name(ta) + op_name(tb));
      if (::testing::Test::HasFailure()) return;  // one configuration's report is enough
    }
}

TYPED_TEST(GpuGemm, MatchesReferenceColMajor) { sweep<typename TypeParam::type>(BLAS_ColMajor); }
TYPED_TEST(GpuGemm, MatchesReferenceRowMajor) { sweep<typename TypeParam::type>(BLAS_RowMajor); }

// ---- 2. many groups of different sizes and options, host and device, in one call -----------
TYPED_TEST(GpuGemm, ManyGroupsHostAndDeviceInOneCall) {
  using T = typename TypeParam::type;
  for (BLAS_Layout layout : kLayouts) {
    std::vector<Spec<T>> g = {group<T>(N, N, 2, 2, 2, 7), group<T>(Tr, N, 8, 8, 8, 5), group<T>(N, Cj, 16, 16, 16, 3),
                              group<T>(Cj, Tr, 32, 32, 32, 2), group<T>(Tr, Cj, 70, 70, 70, 1)};
    g[1].pad = 0, g[1].arrange = Arrange::shuffled;
    g[2].mem[0] = g[2].mem[1] = g[2].mem[2] = Mem::managed, g[2].beta = T(0);
    g[3].mem[0] = g[3].mem[1] = g[3].mem[2] = Mem::pool;
    Spec<T> host = group<T>(Cj, Cj, 9, 12, 7, 4);  // plain host group between device groups
    host.mem[0] = host.mem[1] = host.mem[2] = Mem::host;
    Spec<T> pinned = group<T>(Tr, Tr, 5, 6, 33, 3);  // pinned and pageable: both host memory
    pinned.mem[0] = Mem::pinned, pinned.mem[1] = Mem::host, pinned.mem[2] = Mem::pinned;
    Spec<T> kinds = group<T>(N, Tr, 12, 20, 40, 2);  // managed, cudaMalloc, pool: all device memory
    kinds.mem[0] = Mem::managed, kinds.mem[1] = Mem::device, kinds.mem[2] = Mem::pool, kinds.beta = T(0);
    Spec<T> empty = group<T>(N, N, -1, 3, 3, 0);  // no problems: never checked (SPEC.md section 4)
    Spec<T> after = group<T>(N, N, 33, 33, 33, 2);
    std::vector<Spec<T>> specs = {g[0], g[1], host, g[2], g[3], empty, pinned, g[4], kinds, after};
    GemmRun<T> run(layout, specs);
    run_all_backends(run, layout_name(layout));
  }
}

// ---- 2b. one problem per group: the proposal's variable sizes, many runs per launch ---------
// Unreduced, 20000 groups: past the driver's kParallelGroups and the device pass's
// kParallelProblems, so the thread teams' paths run (groups checked and device groups written
// per thread, segments formed and scanned per thread, chunks of kChunkSegments runs).
TYPED_TEST(GpuGemm, ManyOneProblemGroups) {
  using T = typename TypeParam::type;
  const int groups = gpu::reduced() ? 60 : is_quad<T> ? 150 : 20000;
  for (BLAS_Layout layout : kLayouts) {
    std::vector<Spec<T>> specs;
    for (int g = 0; g < groups; ++g) {
      Spec<T> s = group<T>(kOps[random_int(0, 2)], kOps[random_int(0, 2)], random_int(1, 40), random_int(1, 40),
                           random_int(1, 40), 1);
      s.pad = random_int(0, 2) == 0 ? 0 : random_int(1, 3);
      if (g % 97 == 13) s.mem[0] = s.mem[1] = s.mem[2] = Mem::host;  // a few host groups among them
      if (g % 89 == 7) s.beta = T(0);
      specs.push_back(s);
    }
    GemmRun<T> run(layout, specs);
    run_all_backends(run, std::string(layout_name(layout)) + ", " + std::to_string(groups) + " groups of one");
  }
}

// ---- 2c. every compiled kernel configuration (BLAS_BATCHED_GEMM_CONFIG), on sizes around it ---
TYPED_TEST(GpuGemm, EveryConfiguration) {
  using T = typename TypeParam::type;
  if (is_quad<T>) GTEST_SKIP() << "r128/c128 are staged through the host: no kernel configuration";
  std::vector<Spec<T>> specs;
  for (int n : {1, 2, 3, 4, 5, 8, 12, 16, 17, 33, 70})  // 70: two tiles of 64 and a part
    for (int pad : {0, 2}) {
      Spec<T> s = group<T>(kOps[n % 3], kOps[(n / 3) % 3], n, n, n, 3);
      s.pad = pad;
      specs.push_back(s);
    }
  specs.push_back(group<T>(N, Tr, 7, 3, 9, 2));
  GemmRun<T> run(BLAS_ColMajor, specs);
  std::vector<Mat<T>> Cref = run.reference();
  for (int config = 0; config < 19; ++config) {  // GemmConfig's count (gemm_tuning.hpp)
    SCOPED_TRACE("BLAS_BATCHED_GEMM_CONFIG=" + std::to_string(config) + ", " + seed_note());
    setenv("BLAS_BATCHED_GEMM_CONFIG", std::to_string(config).c_str(), 1);
    run.upload();
    const int rc = run.call("native");
    unsetenv("BLAS_BATCHED_GEMM_CONFIG");
    run.download();
    run.verify(Cref, rc, "native");
    if (::testing::Test::HasFailure()) return;
  }
}

// ---- 2d. a NULL matrix pointer invalidates its problem alone (SPEC.md section 4.2) ----------
// groups_of_one: the problems as groups of one (the device pass's path for calls of one problem
// per group, device_run.hpp single_pass); count: how many problems (NULL operands recur every
// 1000, 1500 and 2000 problems).
template <class T>
void null_pointer_case(const char *backend, bool groups_of_one, int count = 6) {
  SCOPED_TRACE(std::string(traits<T>::name()) + ", backend " + backend + (groups_of_one ? ", groups of one" : "") +
               ", " + std::to_string(count) + " problems, " + seed_note());
  constexpr int n = 4, e = n * n;
  std::vector<T> a(std::size_t(count) * e), b(a.size()), c(a.size());
  for (auto *v : {&a, &b, &c})
    for (T &x : *v) x = random_value<T>();
  Buffer A(Mem::device, a.size() * sizeof(T)), B(Mem::device, b.size() * sizeof(T)), C(Mem::device, c.size() * sizeof(T));
  A.write(0, a.data(), a.size() * sizeof(T)), B.write(0, b.data(), b.size() * sizeof(T));
  C.write(0, c.data(), c.size() * sizeof(T));
  std::vector<T *> pa(count), pb(count), pc(count);
  std::vector<int> want_info(count, 0);
  int skipped = 0;
  for (int p = 0; p < count; ++p) {
    pa[p] = reinterpret_cast<T *>(A.get()) + p * e, pb[p] = reinterpret_cast<T *>(B.get()) + p * e;
    pc[p] = reinterpret_cast<T *>(C.get()) + p * e;
    // Of six problems, 2, 4 and 5 skipped (-8, -10, -13); of many, such problems in every chunk
    // of groups (the residues never meet: one NULL operand a problem).
    if (p % 1000 == 2) pa[p] = nullptr, want_info[p] = -8;
    if (p % 1500 == 4) pb[p] = nullptr, want_info[p] = -10;
    if (p % 2000 == 5) pc[p] = nullptr, want_info[p] = -13;
    skipped += want_info[p] != 0;
  }
  const int groups = groups_of_one ? count : 1;
  const std::vector<BLAS_Op> op(groups, BLAS_NoTrans);
  const std::vector<int> dim(groups, n), sizes(groups, count / groups);
  const T alpha = random_value<T>(), beta = random_value<T>();
  const std::vector<T> alphas(groups, alpha), betas(groups, beta);
  std::vector<int> info(count, kInfoSentinel);
  BackendScope scope(backend);
  const int rc = Api<T>::gemm(BLAS_ColMajor, op.data(), op.data(), dim.data(), dim.data(), dim.data(), alphas.data(),
                              pa.data(), dim.data(), pb.data(), dim.data(), betas.data(), pc.data(), dim.data(),
                              groups, sizes.data(), info.data());
  EXPECT_NO_CUDA_ERROR();
  EXPECT_EQ(rc, skipped);
  const auto wrong = std::mismatch(info.begin(), info.end(), want_info.begin());
  if (wrong.first != info.end())
    ADD_FAILURE() << "info[" << (wrong.first - info.begin()) << "] = " << *wrong.first << ", expected " << *wrong.second;
  std::vector<T> out(c.size());
  C.read(0, out.data(), out.size() * sizeof(T));
  int reported = 0;  // failures reported, at most a few
  for (int p = 0; p < count && reported < 5; ++p) {
    if (want_info[p]) {
      if (std::memcmp(out.data() + p * e, c.data() + p * e, e * sizeof(T)) != 0)
        ADD_FAILURE() << "skipped problem " << p << " changed", ++reported;
      continue;
    }
    Mat<T> got(n, n, BLAS_ColMajor, 0), want(n, n, BLAS_ColMajor, 0);
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        Wide<T> acc(0);
        for (int l = 0; l < n; ++l) acc += wide(a[p * e + i + l * n]) * wide(b[p * e + l + j * n]);
        want(i, j) = narrow<T>(wide(alpha) * acc + wide(beta) * wide(c[p * e + i + j * n]));
        got(i, j) = out[p * e + i + j * n];
      }
    // Half: one rounding of the result plus single-precision accumulation.
    const double d = rel_diff(got, want);
    if (!(d <= (is_half<T> ? 8 * eps<T>() : compare_tol<T>(n)))) ADD_FAILURE() << "problem " << p << ": " << d, ++reported;
  }
}

// The first and the last problem entirely NULL: residency comes from the problems between,
// never a guess of host memory (a host run on device memory would crash).
template <class T>
void null_ends_case(const char *backend) {
  SCOPED_TRACE(std::string(traits<T>::name()) + ", backend " + backend);
  constexpr int n = 3, count = 4, e = n * n;
  Buffer A(Mem::device, count * e * sizeof(T)), B(Mem::device, count * e * sizeof(T)), C(Mem::device, count * e * sizeof(T));
  std::vector<T> v(count * e);
  for (T &x : v) x = random_value<T>();
  for (Buffer *b : {&A, &B, &C}) b->write(0, v.data(), v.size() * sizeof(T));
  std::vector<T *> pa(count, nullptr), pb(count, nullptr), pc(count, nullptr);
  for (int p = 1; p < count - 1; ++p)
    pa[p] = reinterpret_cast<T *>(A.get()) + p * e, pb[p] = reinterpret_cast<T *>(B.get()) + p * e,
    pc[p] = reinterpret_cast<T *>(C.get()) + p * e;
  const BLAS_Op op = BLAS_Trans;
  const int dim = n, group = count;
  const T one = T(1), zero = T(0);
  std::vector<int> info(count, kInfoSentinel);
  BackendScope scope(backend);
  EXPECT_EQ(Api<T>::gemm(BLAS_RowMajor, &op, &op, &dim, &dim, &dim, &one, pa.data(), &dim, pb.data(), &dim, &zero,
                         pc.data(), &dim, 1, &group, info.data()), 2);
  EXPECT_NO_CUDA_ERROR();
  EXPECT_EQ(info, (std::vector<int>{-8, 0, 0, -8}));
  EXPECT_NE(gpu::last_call_group_line(blas_batched_last_call(), 0).find("cuda/"), std::string::npos)
      << blas_batched_last_call();
}

TYPED_TEST(GpuGemm, NullPointerSkipsOnlyItsProblem) {
  using T = typename TypeParam::type;
  for (const char *backend : kDeviceBackends)
    null_pointer_case<T>(backend, false), null_pointer_case<T>(backend, true), null_ends_case<T>(backend);
}

// The same in one call of many groups of one problem: a thread team runs the one-problem path
// (device_run.hpp single_pass) over each chunk of 16384 groups; 40,000 groups make three
// chunks, with NULL operands in each.
TYPED_TEST(GpuGemm, NullPointersInManyOneProblemGroups) {
  using T = typename TypeParam::type;
  const int groups = is_quad<T> ? 3000 : gpu::reduced() ? 5000 : 40000;
  for (const char *backend : kDeviceBackends) null_pointer_case<T>(backend, true, groups);
}

// ---- 3. pointer arrays: strided, reversed, nearly strided, shuffled, broadcast --------------
TYPED_TEST(GpuGemm, PointerArrangements) {
  using T = typename TypeParam::type;
  int big = gpu::reduced() ? 5 : 40;
  std::vector<Spec<T>> specs;
  int i = 0;
  for (Arrange a : {Arrange::strided, Arrange::reversed, Arrange::swapped_tail, Arrange::shuffled, Arrange::broadcast}) {
    for (auto [m, n, k, count] : {std::array<int, 4>{3, 3, 3, big}, std::array<int, 4>{33, 17, 9, 11}}) {
      Spec<T> s = group<T>(kOps[i % 3], kOps[(i / 3) % 3], m, n, k, count);
      s.arrange = a, s.pad = i % 2 ? 3 : 0;
      if (i % 4 == 3) s.mem[0] = s.mem[1] = s.mem[2] = Mem::managed;
      specs.push_back(s), ++i;
    }
  }
  for (BLAS_Layout layout : kLayouts) {
    GemmRun<T> run(layout, specs);
    run_all_backends(run, layout_name(layout));
  }
}

// ---- 4. more problems than a grid dimension holds --------------------------------------------
TYPED_TEST(GpuGemm, MoreThan65535Problems) {
  using T = typename TypeParam::type;
  // Problems beyond 65535 in a group, and groups that start beyond it. Quad (software float on
  // the host, twice: reference and staged) gets just past the limit.
  std::vector<Spec<T>> specs;
  if (gpu::reduced()) {
    specs = {group<T>(N, N, 1, 1, 1, 65537), group<T>(Cj, N, 3, 2, 4, 5)};
  } else {
    specs = {group<T>(Tr, Cj, 2, 2, 2, is_quad<T> ? 66000 : 70000), group<T>(N, Tr, 40, 40, 40, 3)};
    specs[0].arrange = Arrange::shuffled;
    if (std::is_same_v<T, float>) specs.insert(specs.begin() + 1, group<T>(N, N, 1, 1, 1, 100000));
  }
  for (std::size_t i = 0; i < specs.size(); ++i) specs[i].pad = int(i % 2);
  GemmRun<T> run(BLAS_ColMajor, specs);
  run_all_backends(run, "large batch");
}

// ---- 5. quick paths: operands that must not be read hold NaN ---------------------------------
TYPED_TEST(GpuGemm, QuickPathsDoNotReadOperands) {
  using T = typename TypeParam::type;
  for (BLAS_Layout layout : kLayouts) {
    std::vector<Spec<T>> v;
    auto q = [&](BLAS_Op ta, BLAS_Op tb, int m, int n, int k, int count, std::optional<T> alpha, std::optional<T> beta) {
      Spec<T> s = group<T>(ta, tb, m, n, k, count);
      if (alpha) s.alpha = *alpha;
      if (beta) s.beta = *beta;
      v.push_back(s);
      return &v.back();
    };
    const T zero(0), one(1);
    q(N, N, 7, 5, 6, 3, zero, {});             // alpha = 0: A, B NaN, C = beta C
    q(Tr, Cj, 7, 5, 6, 2, zero, zero);         // alpha = beta = 0: C = 0 exactly
    q(Cj, N, 9, 4, 11, 4, {}, zero);           // beta = 0: C NaN, overwritten
    q(N, Tr, 6, 3, 0, 2, {}, {});              // k = 0: C = beta C
    q(Tr, N, 6, 3, 0, 2, {}, zero);            // k = 0, beta = 0: C = 0
    q(N, N, 5, 5, 0, 2, {}, {})->null_AB = true;  // k = 0 with NULL A, B pointers
    q(N, N, 0, 5, 4, 2, {}, {});               // m = 0: C untouched
    q(Tr, Tr, 5, 0, 4, 2, {}, {});             // n = 0: C untouched
    q(N, N, 0, 0, 0, 1, {}, {});
    q(N, N, 70, 70, 70, 1, zero, zero);        // the same at sizes past the small kernels
    q(Cj, Cj, 65, 33, 48, 2, zero, {});
    q(N, Tr, 16, 16, 16, gpu::reduced() ? 5 : 200, zero, one);  // alpha = 0, beta = 1: C unchanged
    // Tight exact orders (the flat kernels that keep C in registers): alpha = 0, beta = 0.
    for (int e : {2, 4, 8, 16}) {
      q(N, N, e, e, e, 3, zero, {})->pad = 0;
      q(Tr, Cj, e, e, e, 3, {}, zero)->pad = 0;
      q(Cj, N, e, e, e, 2, zero, zero)->pad = 0;
    }
    q(Tr, N, 100, 70, 80, 1, {}, zero);
    GemmRun<T> run(layout, v);
    run_all_backends(run, layout_name(layout));
    // The same groups with one problem each: the device pass's path for such calls.
    for (Spec<T> &s : v) s.count = 1;
    GemmRun<T> single(layout, v);
    run_all_backends(single, std::string(layout_name(layout)) + ", groups of one");
  }
}

// ---- 6. mixed residency inside a group: that group only is invalid ---------------------------
TYPED_TEST(GpuGemm, MixedResidencyInvalidatesOnlyThatGroup) {
  using T = typename TypeParam::type;
  const Mem D = Mem::device, H = Mem::host, M = Mem::managed, P = Mem::pinned;
  struct Pattern {
    Mem a, b, c;
    std::optional<Mem> last_A;
    bool bad_ta, bad_lda, bad_ldb;
    int expect;
  };
  // -k names the first pointer argument whose residency differs from A's (A 8, B 10, C 13);
  // a mixed A array is argument 8 itself; ordinary errors of lower argument number come first.
  const Pattern patterns[] = {
      {D, H, D, {}, false, false, false, -10}, {D, D, H, {}, false, false, false, -13},
      {H, D, D, {}, false, false, false, -10}, {H, H, D, {}, false, false, false, -13},
      {D, H, H, {}, false, false, false, -10}, {H, D, H, {}, false, false, false, -10},
      {M, H, M, {}, false, false, false, -10}, {D, P, D, {}, false, false, false, -10},
      {P, P, D, {}, false, false, false, -13}, {D, D, D, H, false, false, false, -8},
      {H, H, H, D, false, false, false, -8},   {M, M, M, P, false, false, false, -8},
      {D, H, D, {}, false, true, false, -9},   {D, D, H, {}, false, false, true, -11},
      {D, D, D, H, true, false, false, -2},
  };
  std::size_t n_patterns = gpu::reduced() ? 4 : std::size(patterns);
  for (std::size_t i = 0; i < n_patterns; ++i) {
    const Pattern &pt = patterns[i];
    Spec<T> bad = group<T>(Tr, N, 5, 4, 3, 3);
    bad.mem[0] = pt.a, bad.mem[1] = pt.b, bad.mem[2] = pt.c, bad.last_A = pt.last_A;
    bad.bad_ta = pt.bad_ta, bad.bad_lda = pt.bad_lda, bad.bad_ldb = pt.bad_ldb, bad.expect = pt.expect;
    Spec<T> host = group<T>(N, Cj, 7, 7, 7, 2);
    host.mem[0] = host.mem[1] = host.mem[2] = Mem::host;
    std::vector<Spec<T>> specs = {group<T>(N, N, 6, 6, 6, 3), bad, host, group<T>(Cj, Tr, 40, 40, 40, 1)};
    GemmRun<T> run(BLAS_ColMajor, specs);
    run_all_backends(run, "pattern " + std::to_string(i) + ": " + bad.describe());
    if (i == 0) {  // without info the return value is the only report
      std::vector<Mat<T>> Cref = run.reference();
      run.upload();
      int rc = run.call("native", /*with_info=*/false);
      run.download();
      run.verify(Cref, rc, "native");
    }
  }
}

// ---- 7. (every routine has a device path since trsm and trmm, issue 11: no rejection test) --

// ---- 8. user streams, device timing, threads (a few precisions) ------------------------------
class GpuGemmMisc : public gpu::GpuTest {};

template <class T>
std::vector<Spec<T>> small_call(bool beta0) {
  std::vector<Spec<T>> v = {group<T>(N, N, 16, 16, 16, gpu::reduced() ? 3 : 10), group<T>(Cj, Tr, 40, 33, 20, 2),
                            group<T>(Tr, N, 3, 5, 7, gpu::reduced() ? 4 : 50)};
  for (auto &s : v)
    if (beta0) s.beta = T(0);
  v[1].pad = 0;
  return v;
}

// Work queued on the user stream before the call (a delay, then the copies that fill A, B and C)
// must be seen by the call, and the results must be final on return without syncing the stream.
template <class T>
void user_stream_case() {
  for (const char *backend : kDeviceBackends) {
    SCOPED_TRACE(std::string(traits<T>::name()) + ", backend " + backend + ", " + seed_note());
    gpu::UserStream stream;
    GemmRun<T> run(BLAS_RowMajor, small_call<T>(false));
    std::vector<Mat<T>> Cref = run.reference();
    {
      gpu::LibraryStreamScope scope(stream.s);
      run.upload(stream.s, 100);
      int rc = run.call(backend);
      run.download();  // legacy-stream copies: they do not wait for the non-blocking user stream
      run.verify(Cref, rc, backend);
    }
    run.upload();  // back on the library's own stream
    int rc = run.call(backend);
    run.download_after(rc);
    run.verify(Cref, rc, backend);
    EXPECT_EQ(cudaStreamQuery(stream.s), cudaSuccess) << "the user stream must be idle and intact";
  }
}

// Strided batches on device data (SPEC.md section 9.1): the same bits as the group API on a
// copy of the same device memory, gaps between problems untouched; A shared (stride 0).
template <class T>
void strided_device_case(int n, int count, bool shared_a) {
  const int64_t stride = int64_t(n) * n + 3;  // a gap after each matrix
  const std::size_t elems = std::size_t(stride) * count;
  std::vector<T> a(elems), b(elems), c(elems);
  for (auto *v : {&a, &b, &c})
    for (T &x : *v) x = random_value<T>();
  gpu::Buffer da(gpu::Mem::device, elems * sizeof(T)), db(gpu::Mem::device, elems * sizeof(T)),
      dc(gpu::Mem::device, elems * sizeof(T)), dc2(gpu::Mem::device, elems * sizeof(T));
  da.write(0, a.data(), elems * sizeof(T)), db.write(0, b.data(), elems * sizeof(T));
  dc.write(0, c.data(), elems * sizeof(T)), dc2.write(0, c.data(), elems * sizeof(T));
  T *A = reinterpret_cast<T *>(da.get()), *B = reinterpret_cast<T *>(db.get());
  const T alpha = random_value<T>(), beta = random_value<T>();
  const int64_t sa = shared_a ? 0 : stride;
  std::vector<int> info_s(count, 777), info_g(count, 777);
  const int rs = Api<T>::gemm_strided(BLAS_ColMajor, BLAS_NoTrans, BLAS_Trans, n, n, n, &alpha, A, n, sa, B, n, stride,
                                      &beta, reinterpret_cast<T *>(dc.get()), n, stride, count, info_s.data());
  EXPECT_NO_CUDA_ERROR();
  std::vector<T *> pa(count), pb(count), pc(count);
  for (int p = 0; p < count; ++p)
    pa[p] = A + p * sa, pb[p] = B + p * stride, pc[p] = reinterpret_cast<T *>(dc2.get()) + p * stride;
  const BLAS_Op nn = BLAS_NoTrans, tt = BLAS_Trans;
  const int rg = Api<T>::gemm(BLAS_ColMajor, &nn, &tt, &n, &n, &n, &alpha, pa.data(), &n, pb.data(), &n, &beta,
                              pc.data(), &n, 1, &count, info_g.data());
  EXPECT_EQ(rs, 0);
  EXPECT_EQ(rg, 0);
  EXPECT_EQ(info_s, info_g);
  std::vector<T> out_s(elems), out_g(elems);
  dc.read(0, out_s.data(), elems * sizeof(T)), dc2.read(0, out_g.data(), elems * sizeof(T));
  EXPECT_EQ(std::memcmp(out_s.data(), out_g.data(), elems * sizeof(T)), 0) << "n " << n;
  for (int p = 0; p < count; ++p)
    for (int64_t e = int64_t(n) * n; e < stride; ++e)
      if (!same_bits(out_s[p * stride + e], c[p * stride + e])) {
        ADD_FAILURE() << "gap after problem " << p << " changed";
        return;
      }
  count_checked("strided gemm on device data", count);
}

TEST_F(GpuGemmMisc, StridedBatchOnDeviceData) {
  const int count = gpu::reduced() ? 50 : 3000;
  for (int n : {2, 5, 16, 33}) {
    strided_device_case<double>(n, count, false);
    strided_device_case<float>(n, count, true);
    strided_device_case<bb::complex<float>>(n, count, false);
    strided_device_case<bb::half>(n, count, false);
  }
}

TEST_F(GpuGemmMisc, UserStreamOrdersTheCall) {
  user_stream_case<float>();
  user_stream_case<bb::complex<double>>();
  user_stream_case<bb::half>();
  user_stream_case<bb::complex<bb::quad>>();  // staged: its copies must wait for the stream too
}

// BLAS_BATCHED_DEVICE_TIMING may be read once per process, so the test follows the process
// environment: ctest runs it once as is (timing off) and once with the variable set to 1.
bool timing_on() {  // as the library reads it: a non-empty value other than 0
  const char *e = std::getenv("BLAS_BATCHED_DEVICE_TIMING");
  return e && *e && std::string(e) != "0";
}

template <class T>
void device_timing_case() {
  SCOPED_TRACE(traits<T>::name());
  std::vector<Spec<T>> dev = small_call<T>(false), host = small_call<T>(false);
  for (auto &s : host) s.mem[0] = s.mem[1] = s.mem[2] = Mem::host;
  GemmRun<T> drun(BLAS_ColMajor, dev), hrun(BLAS_ColMajor, host);
  drun.upload(), hrun.upload();
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(drun.call("native"), 0);
  double wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  double ms = blas_batched_last_device_ms();
  if (timing_on()) {
    EXPECT_GT(ms, 0.0) << "a call with device work has a device time";
    EXPECT_LE(ms, wall_ms * 1.05 + 0.1) << "device time is part of the call's time";
  } else {
    EXPECT_EQ(ms, -1.0) << "timing is off unless BLAS_BATCHED_DEVICE_TIMING is set (and not 0)";
  }
  EXPECT_EQ(hrun.call("native"), 0);
  EXPECT_EQ(blas_batched_last_device_ms(), -1.0) << "a call without device work";
}

TEST_F(GpuGemmMisc, DeviceTiming) {
  device_timing_case<float>();
  device_timing_case<bb::complex<double>>();
  device_timing_case<bb::complex<bb::quad>>();
}

// blas_batched_set_device_timing: a positive value and 0 override the environment for the
// calling thread only, a negative one gives it back; other threads keep the environment's
// choice. ctest runs it with the variable unset and set to 1.
TEST_F(GpuGemmMisc, DeviceTimingSwitch) {
  std::vector<Spec<double>> dev = small_call<double>(false);
  GemmRun<double> run(BLAS_ColMajor, dev);
  run.upload();
  struct Restore {
    ~Restore() { blas_batched_set_device_timing(-1); }
  } restore;
  // Another thread's call, under the environment's choice whatever this thread set.
  auto other_thread_ms = [] {
    double ms = 0;
    std::thread([&] {
      std::vector<Spec<double>> other = small_call<double>(false);
      GemmRun<double> r(BLAS_ColMajor, other);
      r.upload();
      EXPECT_EQ(r.call("native"), 0);
      ms = blas_batched_last_device_ms();
    }).join();
    return ms;
  };
  auto expect_environment = [](double ms, const char *what) {
    if (timing_on()) EXPECT_GT(ms, 0.0) << what << ": the environment's timing (on)";
    else EXPECT_EQ(ms, -1.0) << what << ": the environment's timing (off)";
  };
  for (int on : {1, 7}) {
    ASSERT_EQ(blas_batched_set_device_timing(on), 0);
    EXPECT_EQ(run.call("native"), 0);
    EXPECT_GT(blas_batched_last_device_ms(), 0.0) << "timing switched on (" << on << ") for this thread";
    expect_environment(other_thread_ms(), "another thread, this one on");
  }
  ASSERT_EQ(blas_batched_set_device_timing(0), 0);
  EXPECT_EQ(run.call("native"), 0);
  EXPECT_EQ(blas_batched_last_device_ms(), -1.0) << "timing switched off for this thread";
  expect_environment(other_thread_ms(), "another thread, this one off");
  for (int back : {-1, -5}) {
    ASSERT_EQ(blas_batched_set_device_timing(0), 0);
    ASSERT_EQ(blas_batched_set_device_timing(back), 0);
    EXPECT_EQ(run.call("native"), 0);
    expect_environment(blas_batched_last_device_ms(), "this thread, back to the environment");
  }
}

// Concurrent calls from several threads, two of them on their own streams, the others on the
// library's: each thread's results must be its own. beta = 0, so repeating a call is idempotent.
template <class T>
void threads_case(const char *backend) {
  SCOPED_TRACE(std::string(traits<T>::name()) + ", backend " + backend + ", " + seed_note());
  const int kThreads = 4, kIters = gpu::reduced() ? 2 : 5;
  std::vector<std::unique_ptr<GemmRun<T>>> runs;
  std::vector<std::vector<Mat<T>>> refs;
  for (int t = 0; t < kThreads; ++t) {
    runs.push_back(std::make_unique<GemmRun<T>>(t % 2 ? BLAS_RowMajor : BLAS_ColMajor, small_call<T>(true)));
    refs.push_back(runs.back()->reference());
    runs.back()->upload();
  }
  gpu::UserStream s0, s1;
  cudaStream_t streams[kThreads] = {s0.s, s1.s, nullptr, nullptr};
  std::vector<int> rcs(kThreads, 0), set_rcs(kThreads, 0);
  std::vector<cudaError_t> errs(kThreads, cudaSuccess);
  {
    BackendScope scope(backend);  // set before the threads start: setenv is not thread-safe
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        set_rcs[t] = blas_batched_set_cuda_stream(streams[t]);
        for (int i = 0; i < kIters; ++i) {
          int rc = runs[t]->invoke();
          if (rc != 0) rcs[t] = rc;
          if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) errs[t] = e;
        }
        if (int r = blas_batched_set_cuda_stream(nullptr); r != 0) set_rcs[t] = r;
      });
    for (auto &th : threads) th.join();
  }
  for (int t = 0; t < kThreads; ++t) {
    SCOPED_TRACE("thread " + std::to_string(t));
    EXPECT_EQ(set_rcs[t], 0);
    EXPECT_EQ(errs[t], cudaSuccess) << cudaGetErrorName(errs[t]);
    runs[t]->download();
    runs[t]->verify(refs[t], rcs[t], backend);
  }
}

// A cudaDeviceReset between calls destroys the library's per-thread stream, buffers and cuBLAS
// handle with the context; the next call must notice and rebuild them.
TEST_F(GpuGemmMisc, CallsAfterDeviceReset) {
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    for (const char *backend : kDeviceBackends) {
      GemmRun<double> run(BLAS_ColMajor, {group<double>(N, Tr, 8, 8, 8, 40), group<double>(N, N, 40, 40, 40, 70)});
      std::vector<Mat<double>> Cref = run.reference();
      run.upload();
      const int rc = run.call(backend);
      run.download();
      run.verify(Cref, rc, backend);
    }  // the run's buffers are freed before the reset
    ASSERT_EQ(cudaDeviceReset(), cudaSuccess);
  }
}

TEST_F(GpuGemmMisc, ConcurrentThreads) {
  for (const char *backend : kDeviceBackends) {
    threads_case<double>(backend);
    threads_case<bb::complex<float>>(backend);
    threads_case<bb::half>(backend);
  }
}

}  // namespace
}  // namespace conf
