// The extensions of SPEC.md section 9 on the GPU, through the public C API only: pointer arrays
// and info in device memory (9.2), the non-blocking switch, user streams and CUDA graph capture
// (9.3), with strided batches (9.1) as the other addressing that needs no host pointer arrays.
// gemm throughout; potrf, getrf, getri and the inverse for the non-blocking and captured calls of
// routines with numerical codes.
// Every result is compared element by element with a host computation in double (binary128 for
// r128) under a componentwise error bound; every byte a call may not write (A, B, padding, the
// gaps between matrices, the C of skipped problems, the pointer arrays) is compared bit for bit;
// info starts as 12345, so an entry the library did not write shows. Without a GPU every test
// skips (gpu_common.hpp); BB_GPU_REDUCED=1 shrinks the batches for compute-sanitizer runs.
#include "gpu_common.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <chrono>
#include <functional>
#include <cstdio>
#include <numeric>
#include <optional>
#include <thread>

namespace conf {
namespace {

using gpu::Buffer;
using gpu::Mem;

constexpr int kPoison = 12345;  // info entries the library has not written
constexpr BLAS_Op N = BLAS_NoTrans, Tr = BLAS_Trans, Cj = BLAS_ConjTrans;
constexpr Mem D = Mem::device, H = Mem::host, M = Mem::managed, P = Mem::pinned;

// Argument numbers (SPEC.md section 4.2 for the group API, 9.1 for the strided signature).
constexpr int kArgA = 8, kArgA_ld = 9, kArgB = 10, kArgC = 13;
constexpr int kStridedA = 8, kStridedB = 11, kStridedC = 15, kStridedC_stride = 17;

// Host sleep queued on a stream (cudaLaunchHostFunc): work that ends well after the call
// returns unless the call waits for the stream.
constexpr int kDelayMs = 150;

int scaled(int full, int reduced) { return gpu::reduced() ? reduced : full; }

void CUDART_CB sleep_ms(void *ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(reinterpret_cast<intptr_t>(ms)));
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The calling thread's blocking switch and library stream for the scope; back to the defaults
// (blocking, the library's own stream) at its end, also when the test fails or throws.
struct ModeGuard {
  ModeGuard(int blocking, cudaStream_t stream) {
    EXPECT_EQ(blas_batched_set_blocking(blocking), 0);
    EXPECT_EQ(blas_batched_set_cuda_stream(stream), 0);
  }
  ~ModeGuard() {
    EXPECT_EQ(blas_batched_set_blocking(1), 0);
    EXPECT_EQ(blas_batched_set_cuda_stream(nullptr), 0);
  }
  ModeGuard(const ModeGuard &) = delete;
  ModeGuard &operator=(const ModeGuard &) = delete;
};

// A non-blocking call that returned while the work queued before it (a kDelayMs sleep) was
// still running cannot have waited for its stream. The check needs the call to have returned
// well within the delay; otherwise (a descheduled test thread) it says so and checks nothing.
void expect_not_waited(cudaStream_t s, double call_ms) {
  const cudaError_t q = cudaStreamQuery(s);
  if (q == cudaErrorNotReady && cudaPeekAtLastError() == cudaErrorNotReady) cudaGetLastError();  // not an error
  if (call_ms < 0.5 * kDelayMs) {
    EXPECT_EQ(q, cudaErrorNotReady) << "a non-blocking call returned after the work queued before it had "
                                       "finished: it waited for its stream (" << cudaGetErrorName(q) << ")";
  } else {
    std::printf("note: the call took %.1f ms of a %d ms delay: whether it waited is not checked\n", call_ms, kDelayMs);
  }
}

// A synchronous call returns when its stream is idle, work queued before it included (SPEC.md
// section 5: the call waits for its stream).
void expect_waited(cudaStream_t s) {
  const cudaError_t q = cudaStreamQuery(s);
  if (q == cudaErrorNotReady && cudaPeekAtLastError() == cudaErrorNotReady) cudaGetLastError();
  EXPECT_EQ(q, cudaSuccess) << "a synchronous call returned before its stream was idle (" << cudaGetErrorName(q)
                            << ")";
}

// ---- info in any memory kind, poisoned ---------------------------------------------------
class Info {
 public:
  Info(Mem kind, int n) : n_(n), buf_(kind, sizeof(int) * std::size_t(std::max(n, 1))) { poison(); }
  int *ptr() const { return reinterpret_cast<int *>(buf_.get()); }
  Mem kind() const { return buf_.kind(); }
  int size() const { return n_; }
  // Every entry kPoison; settled on the device before any stream of the test uses it.
  void poison() {
    std::vector<int> v(std::size_t(n_), kPoison);
    buf_.write(0, v.data(), v.size() * sizeof(int));
    if (gpu::on_device(kind())) CHECK_CUDA(cudaDeviceSynchronize());
  }
  std::vector<int> read() const {
    std::vector<int> v(static_cast<std::size_t>(n_));
    buf_.read(0, v.data(), v.size() * sizeof(int));
    return v;
  }

 private:
  int n_;
  Buffer buf_;
};

// ---- one gemm call: groups, their matrices in user memory, the checks ----------------------
template <class T>
struct Group {
  BLAS_Op ta = N, tb = N;
  int m = 1, n = 1, k = 1, count = 1;
  T alpha = T(1), beta = T(1);
  int pad = 1;           // ld = the smallest legal one + pad; the padding holds NaN
  bool bad_lda = false;  // A_ld = -1: the whole group is invalid (-9)
  bool reads_ab() const { return !(alpha == T(0)) && k > 0; }
  bool reads_c() const { return !(beta == T(0)); }
  std::string describe() const {
    std::string s = std::string(op_name(ta)) + op_name(tb) + " m n k " + std::to_string(m) + " " + std::to_string(n) +
                    " " + std::to_string(k) + " x" + std::to_string(count) + " pad " + std::to_string(pad);
    if (alpha == T(0)) s += " alpha=0";
    if (beta == T(0)) s += " beta=0";
    if (bad_lda) s += " A_ld=-1";
    return s;
  }
};

template <class T>
Group<T> grp(BLAS_Op ta, BLAS_Op tb, int m, int n, int k, int count, int pad = 1) {
  Group<T> g;
  g.ta = ta, g.tb = tb, g.m = m, g.n = n, g.k = k, g.count = count, g.pad = pad;
  g.alpha = random_value<T>(), g.beta = random_value<T>();
  return g;
}

// Element (i, j) of op(X), in the wide type.
template <class T>
Wide<T> op_at(const Mat<T> &X, BLAS_Op op, int i, int j) {
  if (op == N) return wide(X(i, j));
  const Wide<T> v = wide(X(j, i));
  return op == Cj ? bb::conj(v) : v;
}

// "" if `out` is alpha op(A) op(B) + beta C0 within the componentwise bound of a k-term dot
// product, else what differs. Operands the call must not read (alpha = 0 or k = 0: A, B; beta
// = 0: C0) hold NaN and are not used; an unwritten C (NaN) never passes.
template <class T>
std::string gemm_mismatch(const Group<T> &s, const Mat<T> &A, const Mat<T> &B, const Mat<T> &C0, const Mat<T> &out) {
  // Real: gamma_{k+2} with room; complex: each product costs a few roundings more.
  const double c = (is_cplx<T> ? 4.0 : 2.0) * (s.k + 4) * eps<T>();
  for (int j = 0; j < s.n; ++j)
    for (int i = 0; i < s.m; ++i) {
      Wide<T> acc = Wide<T>(WideReal<T>(0)), ref = Wide<T>(WideReal<T>(0));
      WideReal<T> mag = 0, scale = 0;
      if (s.reads_ab()) {
        for (int l = 0; l < s.k; ++l) {
          const Wide<T> a = op_at(A, s.ta, i, l), b = op_at(B, s.tb, l, j);
          acc += a * b;
          mag += bb::absval(a) * bb::absval(b);
        }
        ref = wide(s.alpha) * acc;
        scale = bb::absval(wide(s.alpha)) * mag;
      }
      if (s.reads_c()) {
        ref += wide(s.beta) * wide(C0(i, j));
        scale += bb::absval(wide(s.beta)) * bb::absval(wide(C0(i, j)));
      }
      if (has_nan(out(i, j)))
        return "NaN at (" + std::to_string(i) + "," + std::to_string(j) +
               "): not written, or an operand the call must not read was read";
      const double d = to_double(bb::absval(wide(out(i, j)) - ref)), bound = c * to_double(scale);
      if (!(d <= bound))
        return "(" + std::to_string(i) + "," + std::to_string(j) + ") differs from the host computation by " +
               std::to_string(d) + ", bound " + std::to_string(bound);
    }
  return "";
}

// How the matrices of an operand sit in its allocation: scattered = a random order of the
// problems with random gaps of 0..3 elements (addresses not 16-byte aligned in r32), strided =
// problem p at p * stride, stride = the matrix's storage + 3 elements (one group only).
enum class Place { scattered, strided };
enum class Addressing { arrays, strided };

template <class T>
class Batch {
 public:
  Batch(BLAS_Layout layout, std::vector<Group<T>> groups, Place place = Place::scattered, Mem data = D)
      : layout_(layout), groups_(std::move(groups)) {
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      const Group<T> &s = groups_[g];
      first_.push_back(total_);
      total_ += s.count;
      const bool an = s.ta == N, bn = s.tb == N;
      for (int i = 0; i < s.count; ++i) {
        group_of_.push_back(int(g));
        mats_[0].emplace_back(an ? s.m : s.k, an ? s.k : s.m, layout, s.pad);
        mats_[1].emplace_back(bn ? s.k : s.n, bn ? s.n : s.k, layout, s.pad);
        mats_[2].emplace_back(s.m, s.n, layout, s.pad);
      }
    }
    if (place == Place::strided && (groups_.size() != 1 || total_ == 0))
      throw std::logic_error("a strided batch is one group with problems");
    for (int o = 0; o < 3; ++o) {
      null_[o].assign(std::size_t(total_), false);
      off_[o].assign(std::size_t(total_), 0);
      std::size_t cursor = 0;
      if (place == Place::strided) {
        stride_[o] = int64_t(mats_[o][0].data.size()) + 3;
        for (int p = 0; p < total_; ++p) off_[o][p] = std::size_t(p) * std::size_t(stride_[o]);
        cursor = std::size_t(total_) * std::size_t(stride_[o]);
      } else {
        std::vector<int> perm(static_cast<std::size_t>(total_));
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng());
        for (int p : perm) {
          cursor += std::size_t(random_int(0, 3));
          off_[o][p] = cursor;
          cursor += mats_[o][p].data.size();
        }
      }
      bytes_[o] = (cursor + 16) * sizeof(T);  // a NaN guard after the last matrix
      arena_[o] = Buffer(data, bytes_[o]);
    }
    randomize();
  }

  int total() const { return total_; }
  int first(int g) const { return first_[std::size_t(g)]; }
  const Group<T> &group(int g) const { return groups_[std::size_t(g)]; }
  int group_count() const { return int(groups_.size()); }

  // Problem p's matrix of operand o (0 A, 1 B, 2 C) is NULL in the pointer arrays.
  void set_null(int o, int p) { null_[o][std::size_t(p)] = true; }
  // The strided call passes a NULL base for operand o.
  void set_null_base(int o) { null_base_[o] = true; }
  // The strided call passes a C stride one element below C's extent (overlapping outputs).
  void set_bad_c_stride() { bad_c_stride_ = true; }

  // Fresh random values in every operand the call reads; unread ones (and the padding, the gaps,
  // the guard) hold NaN. Rebuilds the images that upload() copies.
  void randomize() {
    for (int p = 0; p < total_; ++p) {
      const Group<T> &s = groups_[std::size_t(group_of_[p])];
      if (s.reads_ab()) mats_[0][p].fill_random(), mats_[1][p].fill_random();
      if (s.reads_c()) mats_[2][p].fill_random();
    }
    for (int o = 0; o < 3; ++o) {
      before_[o].assign(bytes_[o], 0xFF);  // 0xFF bytes are NaN in every precision
      for (int p = 0; p < total_; ++p)
        std::memcpy(before_[o].data() + off_[o][p] * sizeof(T), mats_[o][p].data.data(), mats_[o][p].data.size() * sizeof(T));
    }
  }

  // Synchronous copies of the three images, settled before any stream of the test runs.
  void upload() {
    for (int o = 0; o < 3; ++o) arena_[o].write(0, before_[o].data(), bytes_[o]);
    if (gpu::on_device(arena_[0].kind())) CHECK_CUDA(cudaDeviceSynchronize());
  }

  // Operand o (device data) queued on stream s: poisoned, then a kDelayMs host sleep, then its
  // image copied from pinned memory. A call that is not ordered after this work reads NaN.
  void upload_behind_delay(int o, cudaStream_t s) {
    staging_.emplace_back(P, bytes_[o]);  // allocated before anything is queued
    std::memcpy(staging_.back().get(), before_[o].data(), bytes_[o]);
    CHECK_CUDA(cudaMemsetAsync(arena_[o].get(), 0xFF, bytes_[o], s));
    CHECK_CUDA(cudaLaunchHostFunc(s, sleep_ms, reinterpret_cast<void *>(intptr_t(kDelayMs))));
    CHECK_CUDA(cudaMemcpyAsync(arena_[o].get(), staging_.back().get(), bytes_[o], cudaMemcpyHostToDevice, s));
  }

  // The three pointer arrays in memory of the given kinds; NULL entries (set_null) are written
  // into that memory: with cudaMemset on the device copy for device kinds.
  void make_arrays(Mem ka, Mem kb, Mem kc) {
    const Mem kinds[3] = {ka, kb, kc};
    bool any_device = false;
    for (int o = 0; o < 3; ++o) {
      std::vector<T *> v(static_cast<std::size_t>(total_));
      for (int p = 0; p < total_; ++p) v[p] = base(o) + off_[o][p];
      arrays_[o] = Buffer(kinds[o], v.size() * sizeof(T *));
      arrays_[o].write(0, v.data(), v.size() * sizeof(T *));
      for (int p = 0; p < total_; ++p) {
        if (!null_[o][p]) continue;
        v[p] = nullptr;
        if (gpu::on_device(kinds[o])) CHECK_CUDA(cudaMemset(arrays_[o].get() + std::size_t(p) * sizeof(T *), 0, sizeof(T *)));
        else arrays_[o].write(std::size_t(p) * sizeof(T *), &v[p], sizeof(T *));
      }
      array_image_[o] = v;
      any_device = any_device || gpu::on_device(kinds[o]);
    }
    if (any_device) CHECK_CUDA(cudaDeviceSynchronize());
  }

  // The group API on the arrays of make_arrays(). No gtest macros: threads may call it.
  int call_arrays(int *info) {
    addressing_ = Addressing::arrays;
    std::vector<BLAS_Op> ta, tb;
    std::vector<int> m, n, k, lda, ldb, ldc, sizes;
    std::vector<T> alpha, beta;
    for (std::size_t g = 0; g < groups_.size(); ++g) {
      const Group<T> &s = groups_[g];
      ta.push_back(s.ta), tb.push_back(s.tb), m.push_back(s.m), n.push_back(s.n), k.push_back(s.k);
      alpha.push_back(s.alpha), beta.push_back(s.beta), sizes.push_back(s.count);
      const int f = first_[g];
      lda.push_back(s.bad_lda ? -1 : mats_[0][f].ld), ldb.push_back(mats_[1][f].ld), ldc.push_back(mats_[2][f].ld);
    }
    return Api<T>::gemm(layout_, ta.data(), tb.data(), m.data(), n.data(), k.data(), alpha.data(), array(0), lda.data(),
                        array(1), ldb.data(), beta.data(), array(2), ldc.data(), int(groups_.size()), sizes.data(), info);
  }

  // The one group as a strided call on the arenas (bases, strides of the placement).
  int call_strided(int *info) {
    addressing_ = Addressing::strided;
    const Group<T> &s = groups_[0];
    const Mat<T> &a = mats_[0][0], &b = mats_[1][0], &c = mats_[2][0];
    auto basep = [&](int o) { return null_base_[o] ? nullptr : base(o); };
    const int64_t c_stride = bad_c_stride_ ? extent(c) - 1 : stride_[2];
    return Api<T>::gemm_strided(layout_, s.ta, s.tb, s.m, s.n, s.k, &s.alpha, basep(0), s.bad_lda ? -1 : a.ld,
                                stride_[0], basep(1), b.ld, stride_[1], &s.beta, basep(2), c.ld, c_stride, s.count, info);
  }

  // The arenas as they are now (synchronous copies: the call must be complete).
  void download() {
    for (int o = 0; o < 3; ++o) {
      after_[o].resize(bytes_[o]);
      arena_[o].read(0, after_[o].data(), bytes_[o]);
    }
  }
  // The same through pinned memory with copies queued on stream s (after whatever the stream
  // holds), then info when given; waits for the stream. Returns info (empty without).
  std::vector<int> download_on(cudaStream_t s, const Info *info) {
    std::vector<Buffer> pinned;
    for (int o = 0; o < 3; ++o) pinned.emplace_back(P, bytes_[o]);
    Buffer info_pinned(P, sizeof(int) * std::size_t(std::max(total_, 1)));
    for (int o = 0; o < 3; ++o)
      CHECK_CUDA(cudaMemcpyAsync(pinned[o].get(), arena_[o].get(), bytes_[o], cudaMemcpyDefault, s));
    if (info) CHECK_CUDA(cudaMemcpyAsync(info_pinned.get(), info->ptr(), sizeof(int) * std::size_t(total_), cudaMemcpyDefault, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    for (int o = 0; o < 3; ++o) after_[o].assign(pinned[o].get(), pinned[o].get() + bytes_[o]);
    std::vector<int> out;
    if (info) out.assign(reinterpret_cast<int *>(info_pinned.get()), reinterpret_cast<int *>(info_pinned.get()) + total_);
    return out;
  }

  // The info SPEC.md sections 4.2 and 9.1 give problem p in the last call's addressing.
  int expected(int p) const {
    const Group<T> &s = groups_[std::size_t(group_of_[p])];
    const bool strided = addressing_ == Addressing::strided;
    if (s.bad_lda) return -kArgA_ld;  // 9 in both signatures
    if (strided && bad_c_stride_ && s.count > 1) return -kStridedC_stride;
    const bool mn = s.m > 0 && s.n > 0, mnk = mn && s.k > 0;
    auto is_null = [&](int o) { return strided ? null_base_[o] : bool(null_[o][std::size_t(p)]); };
    if (mnk && is_null(0)) return strided ? -kStridedA : -kArgA;
    if (mnk && is_null(1)) return strided ? -kStridedB : -kArgB;
    if (mn && is_null(2)) return strided ? -kStridedC : -kArgC;
    return 0;
  }
  int expected_count() const {
    int c = 0;
    for (int p = 0; p < total_; ++p) c += expected(p) != 0;
    return c;
  }
  std::vector<int> expected_info() const {
    std::vector<int> v(static_cast<std::size_t>(total_));
    for (int p = 0; p < total_; ++p) v[p] = expected(p);
    return v;
  }
  // Problems of invalid groups: what a non-blocking call knows on the host (SPEC.md 9.2).
  int expected_host_count() const {
    int c = 0;
    for (int p = 0; p < total_; ++p) {
      const int e = expected(p);
      c += e == -kArgA_ld || e == -kStridedC_stride;
    }
    return c;
  }

  // Checks the last call after download(): its return value (when given), info (when given),
  // every byte it may not write, and C of every problem it computed.
  void verify(const std::vector<int> *info, std::optional<int> rc, const std::string &record = "") {
    noted_ = false, record_ = record;
    if (rc) {
      EXPECT_EQ(*rc, expected_count()) << "return value: the number of problems with non-zero info" << note();
    }
    if (info) check_info(*info);
    check_bytes();
    check_values();
    count_checked((std::string("gpu extensions gemm ") + traits<T>::name()).c_str(), total_);
  }

  // Nothing of the arenas changed (after download()).
  void expect_untouched(const std::string &why) {
    for (int o = 0; o < 3; ++o) {
      auto mis = std::mismatch(before_[o].begin(), before_[o].end(), after_[o].begin());
      if (mis.first != before_[o].end()) {
        ADD_FAILURE() << why << ": " << where(o, std::size_t(mis.first - before_[o].begin())) << " changed";
        return;
      }
    }
  }

  // The pointer arrays hold what make_arrays() wrote (the library reads them only).
  void expect_arrays_unchanged() {
    for (int o = 0; o < 3; ++o) {
      std::vector<T *> now(static_cast<std::size_t>(total_));
      arrays_[o].read(0, now.data(), now.size() * sizeof(T *));
      EXPECT_TRUE(now == array_image_[o]) << "the " << "ABC"[o] << " pointer array ("
                                          << gpu::mem_name(arrays_[o].kind()) << " memory) changed";
    }
  }

 private:
  T *base(int o) const { return reinterpret_cast<T *>(arena_[o].get()); }
  T **array(int o) const { return reinterpret_cast<T **>(arrays_[o].get()); }
  static int64_t extent(const Mat<T> &x) {
    const int lines = x.row_major ? x.rows : x.cols, len = x.row_major ? x.cols : x.rows;
    return int64_t(lines - 1) * x.ld + len;
  }
  bool writes(int p) const {
    const Group<T> &s = groups_[std::size_t(group_of_[p])];
    return expected(p) == 0 && s.m > 0 && s.n > 0;
  }
  std::string note() {
    if (noted_ || record_.empty()) return "";
    noted_ = true;
    return "\n" + record_;
  }
  std::string where(int o, std::size_t byte) const {
    const std::size_t e = byte / sizeof(T);
    for (int p = 0; p < total_; ++p)
      if (e >= off_[o][p] && e < off_[o][p] + mats_[o][p].data.size()) {
        int i = 0, j = 0;
        const bool logical = mats_[o][p].logical(e - off_[o][p], i, j);
        const int g = group_of_[p];
        return std::string("operand ") + "ABC"[o] + " of problem " + std::to_string(p) + " (group " + std::to_string(g) +
               ": " + groups_[std::size_t(g)].describe() + ", info " + std::to_string(expected(p)) + "), " +
               (logical ? "element (" + std::to_string(i) + "," + std::to_string(j) + ")" : std::string("padding"));
      }
    return std::string("a gap between the ") + "ABC"[o] + " matrices or the guard after them";
  }
  void check_info(const std::vector<int> &info) {
    ASSERT_EQ(info.size(), std::size_t(total_));
    int shown = 0;
    for (int p = 0; p < total_ && shown < 5; ++p)
      if (info[p] != expected(p)) {
        const int g = group_of_[p];
        ADD_FAILURE() << "info[" << p << "] = " << info[p] << (info[p] == kPoison ? " (never written)" : "")
                      << ", expected " << expected(p) << " (group " << g << ": " << groups_[std::size_t(g)].describe()
                      << ")" << note();
        ++shown;
      }
  }
  void check_bytes() {
    for (int o = 0; o < 3; ++o) {
      std::vector<unsigned char> want = before_[o];
      if (o == 2)
        for (int p = 0; p < total_; ++p) {
          if (!writes(p)) continue;
          const Mat<T> &c = mats_[2][p];
          for (int j = 0; j < c.cols; ++j)
            for (int i = 0; i < c.rows; ++i) {
              const std::size_t b = (off_[2][p] + c.index(i, j)) * sizeof(T);
              std::memcpy(want.data() + b, after_[2].data() + b, sizeof(T));
            }
        }
      auto mis = std::mismatch(want.begin(), want.end(), after_[o].begin());
      if (mis.first != want.end())
        ADD_FAILURE() << "a byte the call must not write changed: " << where(o, std::size_t(mis.first - want.begin()))
                      << note();
    }
  }
  void check_values() {
    int failures = 0;
    for (int p = 0; p < total_ && failures < 5; ++p) {
      if (!writes(p)) continue;
      Mat<T> out = mats_[2][p];
      std::memcpy(out.data.data(), after_[2].data() + off_[2][p] * sizeof(T), out.data.size() * sizeof(T));
      const Group<T> &s = groups_[std::size_t(group_of_[p])];
      const std::string fail = gemm_mismatch(s, mats_[0][p], mats_[1][p], mats_[2][p], out);
      if (!fail.empty()) {
        ADD_FAILURE() << "problem " << p << " (group " << group_of_[p] << ": " << s.describe() << ", "
                      << layout_name(layout_) << "-major, " << traits<T>::name() << "): " << fail << note();
        ++failures;
      }
    }
  }

  BLAS_Layout layout_;
  std::vector<Group<T>> groups_;
  std::vector<int> first_, group_of_;
  int total_ = 0;
  std::vector<Mat<T>> mats_[3];
  std::vector<std::size_t> off_[3];  // in elements
  int64_t stride_[3] = {0, 0, 0};
  std::size_t bytes_[3] = {0, 0, 0};
  Buffer arena_[3], arrays_[3];
  std::vector<Buffer> staging_;  // pinned sources of queued uploads: alive until the batch ends
  std::vector<unsigned char> before_[3], after_[3];
  std::vector<bool> null_[3];
  std::vector<T *> array_image_[3];
  bool null_base_[3] = {false, false, false}, bad_c_stride_ = false;
  Addressing addressing_ = Addressing::arrays;
  bool noted_ = false;
  std::string record_;
};

// The placement blas_batched_last_call() reports for every group that computes something:
// on the GPU (the library's kernels, or cuBLAS on a checked copy of the arrays, SPEC.md 9.2).
template <class T>
void expect_library_kernels(const Batch<T> &b, const std::string &record) {
  for (int g = 0; g < b.group_count() && g < 16; ++g) {
    const Group<T> &s = b.group(g);
    if (s.count == 0 || s.bad_lda || s.m == 0 || s.n == 0 || !s.reads_ab()) continue;  // quick paths: anything
    const std::string line = gpu::last_call_group_line(record, g);
    EXPECT_NE(line.find("cuda/"), std::string::npos) << "group " << g << " must run on the GPU: " << record;
  }
}

class GpuExtensions : public gpu::GpuTest {};

// ---- 1. pointer arrays in device memory -----------------------------------------------------
// Groups of every size class, transposes, quick paths (alpha = 0 with NaN in A and B, beta = 0
// with NaN in C, k = 0, m = 0), matrices at scattered, unaligned addresses; info on the host.
template <class T>
std::vector<Group<T>> varied_groups() {
  std::vector<Group<T>> v = {
      grp<T>(N, N, 2, 2, 2, scaled(2000, 40), 0),   grp<T>(Tr, N, 4, 4, 4, scaled(1000, 30), 1),
      grp<T>(N, Cj, 7, 7, 7, scaled(300, 10), 2),   grp<T>(Cj, Tr, 16, 16, 16, scaled(100, 4), 0),
      grp<T>(Tr, Tr, 33, 33, 33, scaled(20, 2), 3), grp<T>(N, Tr, 64, 64, 64, scaled(5, 1), 0),
      grp<T>(Cj, N, 5, 9, 3, scaled(200, 8), 1),    grp<T>(N, N, 40, 3, 70, scaled(10, 2), 2),
  };
  Group<T> beta0 = grp<T>(Tr, Cj, 6, 4, 5, scaled(100, 5));
  beta0.beta = T(0);  // C holds NaN: every element must be written
  Group<T> alpha0 = grp<T>(N, N, 8, 8, 8, scaled(50, 4));
  alpha0.alpha = T(0);  // A and B hold NaN: they must not be read
  v.push_back(beta0), v.push_back(alpha0);
  v.push_back(grp<T>(N, Tr, 3, 5, 0, 7));  // k = 0: C = beta C
  v.push_back(grp<T>(N, N, 0, 3, 3, 4));   // m = 0: nothing to do, C untouched
  return v;
}

template <class T>
void device_arrays_case(BLAS_Layout layout) {
  Batch<T> b(layout, varied_groups<T>());
  b.make_arrays(D, D, D);
  for (const char *backend : {"native", "vendor"}) {
    SCOPED_TRACE(std::string(traits<T>::name()) + ", " + layout_name(layout) + "-major, backend " + backend + ", " +
                 seed_note());
    b.upload();
    std::vector<int> info(std::size_t(b.total()), kPoison);
    int rc;
    {
      BackendScope scope(backend);
      rc = b.call_arrays(info.data());
    }
    EXPECT_NO_CUDA_ERROR();
    const std::string record = blas_batched_last_call();
    b.download();
    b.verify(&info, rc, record);
    b.expect_arrays_unchanged();
    expect_library_kernels(b, record);
    if (::testing::Test::HasFailure()) return;
  }
}

TEST_F(GpuExtensions, DevicePointerArrays) {
  for (BLAS_Layout layout : kLayouts) {
    device_arrays_case<double>(layout);
    device_arrays_case<float>(layout);
    device_arrays_case<bb::complex<float>>(layout);
  }
}

// ---- 2. NULL entries of device pointer arrays: that problem alone is skipped (SPEC.md 4.2) -----
template <class T>
void null_entries_case(BLAS_Layout layout, const char *backend, bool with_info) {
  SCOPED_TRACE(std::string(traits<T>::name()) + ", " + layout_name(layout) + "-major, backend " + backend +
               (with_info ? "" : ", info NULL") + ", " + seed_note());
  std::vector<Group<T>> gs = {grp<T>(N, N, 4, 4, 4, 40),    grp<T>(Tr, Cj, 5, 3, 0, 6),
                              grp<T>(N, Tr, 7, 7, 7, 5),    grp<T>(N, N, 0, 4, 3, 3),
                              grp<T>(Cj, N, 16, 16, 16, 10), grp<T>(Tr, N, 9, 33, 2, scaled(500, 20))};
  gs[2].alpha = T(0);
  Batch<T> b(layout, gs);
  const int A = 0, B = 1, C = 2;
  // Group 0: each combination; the lowest argument number is reported (A 8, B 10, C 13).
  const int f0 = b.first(0);
  b.set_null(A, f0 + 3), b.set_null(B, f0 + 7), b.set_null(C, f0 + 9);
  b.set_null(A, f0 + 11), b.set_null(B, f0 + 11);
  b.set_null(B, f0 + 13), b.set_null(C, f0 + 13);
  b.set_null(A, f0 + 15), b.set_null(C, f0 + 15);
  b.set_null(A, f0 + 17), b.set_null(B, f0 + 17), b.set_null(C, f0 + 17);
  b.set_null(C, f0 + 39);
  // Group 1, k = 0: A and B are not needed, so NULL is no error; C still is.
  const int f1 = b.first(1);
  b.set_null(A, f1 + 1), b.set_null(B, f1 + 2), b.set_null(A, f1 + 3), b.set_null(B, f1 + 3), b.set_null(C, f1 + 4);
  // Group 2, alpha = 0: the rule is m, n, k > 0, so A and B are still needed (-8, -10).
  const int f2 = b.first(2);
  b.set_null(A, f2 + 0), b.set_null(B, f2 + 2);
  // Group 3, m = 0: nothing is needed.
  for (int o = 0; o < 3; ++o) b.set_null(o, b.first(3) + o);
  // Group 4: its first and last problems (residency never comes from the entries).
  b.set_null(C, b.first(4)), b.set_null(A, b.first(4) + 9);
  // Group 5: about one problem in ten, any operand.
  for (int i = 0; i < b.group(5).count; ++i)
    if (random_int(0, 9) == 0) b.set_null(random_int(0, 2), b.first(5) + i);
  b.upload();
  b.make_arrays(D, D, D);
  std::vector<int> info(std::size_t(b.total()), kPoison);
  int rc;
  {
    BackendScope scope(backend);
    rc = b.call_arrays(with_info ? info.data() : nullptr);
  }
  EXPECT_NO_CUDA_ERROR();
  const std::string record = blas_batched_last_call();
  b.download();
  b.verify(with_info ? &info : nullptr, rc, record);
  b.expect_arrays_unchanged();
}

TEST_F(GpuExtensions, DevicePointerArraysNullEntries) {
  for (BLAS_Layout layout : kLayouts) {
    null_entries_case<double>(layout, "native", true);
    null_entries_case<float>(layout, "native", true);
    null_entries_case<bb::complex<double>>(layout, "native", true);
  }
  null_entries_case<double>(BLAS_ColMajor, "vendor", true);  // never cuBLAS: the same codes
  null_entries_case<float>(BLAS_RowMajor, "native", false);  // the return value is the only report
}

// ---- 3. info in device memory: what the host-info call reports, written on the device --------
// Runs `call` on freshly uploaded data with info in host memory, then again with info in memory
// of `kind`; both must match the expected codes, and each other.
template <class T, class Call>
void host_vs_device_info(Batch<T> &b, Mem kind, const char *backend, Call call, const std::string &what) {
  SCOPED_TRACE(what + ", info in " + gpu::mem_name(kind) + " memory, backend " + backend + ", " + seed_note());
  std::vector<int> got[2];
  int rc[2] = {0, 0};
  for (int v = 0; v < 2; ++v) {
    b.upload();
    Info info(v == 0 ? H : kind, b.total());
    {
      BackendScope scope(backend);
      rc[v] = call(info.ptr());
    }
    EXPECT_NO_CUDA_ERROR();
    const std::string record = blas_batched_last_call();
    got[v] = info.read();
    b.download();
    b.verify(&got[v], rc[v], record);
  }
  EXPECT_EQ(rc[1], rc[0]) << "return value with info in device memory vs in host memory";
  EXPECT_TRUE(got[1] == got[0]) << "info in device memory differs from info in host memory";
}

template <class T>
void strided_info_cases(int n, BLAS_Op ta, BLAS_Op tb, BLAS_Layout layout, int count) {
  const std::string what = std::string("strided ") + traits<T>::name() + " n " + std::to_string(n) + " x" +
                           std::to_string(count);
  for (int variant = 0; variant < 4; ++variant) {
    Group<T> g = grp<T>(ta, tb, n, n, n, count);
    g.bad_lda = variant == 1;  // -9 for every problem
    Batch<T> b(layout, {g}, Place::strided);
    if (variant == 2) b.set_bad_c_stride();  // -17 for every problem
    if (variant == 3) b.set_null_base(1);    // NULL B base: -11 for every problem
    static const char *names[] = {"valid", "A_ld = -1", "C stride below its extent", "NULL B base"};
    const auto call = [&b](int *info) { return b.call_strided(info); };
    host_vs_device_info(b, D, "native", call, what + ", " + names[variant]);
    if (variant == 0) host_vs_device_info(b, M, "native", call, what + ", " + names[variant]);
  }
}

// Two groups, the second invalid (A_ld = -1: -9 for each of its problems), NULL entries in the
// first; pointer arrays of `arrays` kind, matrices of `data` kind.
template <class T>
void two_group_info_case(Mem arrays, Mem data, Mem info_kind) {
  std::vector<Group<T>> gs = {grp<T>(Tr, N, 6, 6, 6, scaled(300, 20)), grp<T>(N, Cj, 5, 7, 3, 9)};
  gs[1].bad_lda = true;
  Batch<T> b(BLAS_ColMajor, gs, Place::scattered, data);
  for (int p : {1, 5, 12}) b.set_null(p % 3, p);
  b.make_arrays(arrays, arrays, arrays);
  host_vs_device_info(b, info_kind, "native", [&b](int *info) { return b.call_arrays(info); },
                      std::string(traits<T>::name()) + ", pointer arrays in " + gpu::mem_name(arrays) +
                          " memory, matrices in " + gpu::mem_name(data) + " memory");
}

TEST_F(GpuExtensions, DeviceInfo) {
  // (a) strided device data: valid, an invalid group-level argument, a NULL base.
  strided_info_cases<double>(16, N, Tr, BLAS_ColMajor, scaled(2000, 50));
  strided_info_cases<float>(2, Tr, N, BLAS_RowMajor, scaled(3000, 60));
  strided_info_cases<bb::complex<float>>(7, Cj, N, BLAS_ColMajor, scaled(500, 20));
  // (b) device pointer arrays with NULL entries, (c) host pointer arrays with device data,
  // (d) host data and host pointer arrays: info filled on the host and copied to the device.
  two_group_info_case<double>(D, D, D);
  two_group_info_case<float>(M, D, M);
  two_group_info_case<double>(H, D, D);
  two_group_info_case<float>(P, M, D);
  two_group_info_case<double>(H, H, D);
  two_group_info_case<bb::complex<double>>(H, H, M);
  // (e) paths that cannot write info on the device: the reference backend on device data,
  // r128 device data (staged through the host).
  {
    Batch<double> b(BLAS_ColMajor, {grp<double>(N, N, 5, 5, 5, 30)}, Place::strided);
    host_vs_device_info(b, D, "reference", [&b](int *info) { return b.call_strided(info); }, "strided r64");
  }
  {
    Batch<quad> b(BLAS_RowMajor, {grp<quad>(Tr, N, 3, 3, 3, 12)}, Place::strided);
    host_vs_device_info(b, D, "native", [&b](int *info) { return b.call_strided(info); }, "strided r128");
  }
}

// ---- 4. pointer arrays of one call are all host or all device memory (SPEC.md 9.2) -----------
template <class T>
void mixed_kinds_case() {
  struct Case {
    Mem a, b, c;
    int expect;  // -k: the first array whose kind differs from A's; 0: one kind, a valid call
  };
  // Managed and pinned memory count as host memory for pointer arrays (the host reads them).
  const Case cases[] = {{D, H, D, -kArgB}, {D, D, H, -kArgC}, {H, D, D, -kArgB}, {H, H, D, -kArgC},
                        {D, H, H, -kArgB}, {M, P, M, 0},      {P, M, M, 0},      {D, M, P, -kArgB},
                        {M, D, M, -kArgB}, {D, D, M, -kArgC}, {P, H, P, 0}};
  for (const Case &c : cases) {
    SCOPED_TRACE(std::string(traits<T>::name()) + " pointer arrays A/B/C in " + gpu::mem_name(c.a) + "/" +
                 gpu::mem_name(c.b) + "/" + gpu::mem_name(c.c) + " memory, " + seed_note());
    Batch<T> b(BLAS_ColMajor, {grp<T>(N, Tr, 5, 5, 5, 7), grp<T>(Tr, N, 3, 4, 6, 5, 0)});
    b.upload();
    b.make_arrays(c.a, c.b, c.c);
    std::vector<int> info(std::size_t(b.total()), kPoison);
    const int rc = b.call_arrays(info.data());
    EXPECT_NO_CUDA_ERROR();
    const std::string record = blas_batched_last_call();
    b.download();
    if (c.expect != 0) {
      EXPECT_EQ(rc, c.expect) << record;
      EXPECT_EQ(std::count(info.begin(), info.end(), kPoison), long(info.size())) << "info must stay untouched";
      b.expect_untouched("a call rejected at call level");
    } else {
      b.verify(&info, rc, record);
    }
    b.expect_arrays_unchanged();
  }
}

TEST_F(GpuExtensions, MixedPointerArrayKinds) {
  mixed_kinds_case<double>();
  mixed_kinds_case<float>();
}

// ---- 4b. device pointer arrays where they cannot run: UNSUPPORTED, nothing touched -----------
template <class T>
void unsupported_arrays_case(const char *backend) {
  SCOPED_TRACE(std::string(traits<T>::name()) + ", backend " + backend);
  Batch<T> b(BLAS_RowMajor, {grp<T>(N, N, 4, 4, 4, 6), grp<T>(Cj, Tr, 3, 2, 5, 3)});
  b.upload();
  b.make_arrays(D, D, D);
  std::vector<int> info(std::size_t(b.total()), kPoison);
  int rc;
  {
    BackendScope scope(backend);
    rc = b.call_arrays(info.data());
  }
  EXPECT_NO_CUDA_ERROR();
  EXPECT_EQ(rc, BLAS_BATCHED_ERR_UNSUPPORTED) << blas_batched_last_call();
  EXPECT_EQ(std::count(info.begin(), info.end(), kPoison), long(info.size())) << "info must stay untouched";
  b.download();
  b.expect_untouched("an unsupported call");
  b.expect_arrays_unchanged();
}

TEST_F(GpuExtensions, DevicePointerArraysWhereTheyCannotRun) {
  unsupported_arrays_case<double>("reference");      // the reference backend reads arrays on the host
  unsupported_arrays_case<quad>("native");           // r128: no GPU arithmetic
  unsupported_arrays_case<bb::complex<quad>>("native");
  // Every routine has a device path now (trsm and trmm since issue 11): no routine case.
}

// ---- 5. non-blocking calls on a user stream ------------------------------------------------------
// Each call is preceded on the stream by a delay and the copy of one of its operands: a call
// not ordered after them reads NaN, one that waits for them returns late. Results and info are
// read back on the same stream.
TEST_F(GpuExtensions, NonBlockingOnUserStream) {
  gpu::UserStream stream;
  ModeGuard mode(0, stream.s);
  BackendScope scope("native");
  using clock = std::chrono::steady_clock;
  {  // strided, info in device memory, beta = 0 (C poisoned)
    SCOPED_TRACE("strided r64, " + seed_note());
    Group<double> g = grp<double>(N, Tr, 16, 16, 16, scaled(2000, 50));
    g.beta = 0.0;
    Batch<double> b(BLAS_ColMajor, {g}, Place::strided);
    Info info(D, b.total());
    b.upload();
    EXPECT_EQ(b.call_strided(info.ptr()), 0);  // warm-up: the same shape
    CHECK_CUDA(cudaStreamSynchronize(stream.s));
    b.randomize(), b.upload(), info.poison();
    const auto t0 = clock::now();
    b.upload_behind_delay(0, stream.s);
    const int rc = b.call_strided(info.ptr());
    const double ms = ms_since(t0);
    EXPECT_NO_CUDA_ERROR();
    EXPECT_EQ(rc, 0);
    expect_not_waited(stream.s, ms);
    const std::vector<int> got = b.download_on(stream.s, &info);
    b.verify(&got, rc);
  }
  {  // device pointer arrays, info NULL
    SCOPED_TRACE("device pointer arrays r32, info NULL, " + seed_note());
    std::vector<Group<float>> gs = {grp<float>(N, N, 7, 7, 7, scaled(500, 20)), grp<float>(Tr, N, 33, 16, 20, scaled(30, 3)),
                                    grp<float>(Cj, Tr, 4, 4, 4, scaled(1000, 30), 0)};
    gs[2].beta = 0.0f;
    Batch<float> b(BLAS_RowMajor, gs);
    b.make_arrays(D, D, D);
    b.upload();
    EXPECT_EQ(b.call_arrays(nullptr), 0);  // warm-up
    CHECK_CUDA(cudaStreamSynchronize(stream.s));
    b.randomize(), b.upload();
    const auto t0 = clock::now();
    b.upload_behind_delay(1, stream.s);
    const int rc = b.call_arrays(nullptr);
    const double ms = ms_since(t0);
    EXPECT_NO_CUDA_ERROR();
    EXPECT_EQ(rc, 0);
    expect_not_waited(stream.s, ms);
    b.download_on(stream.s, nullptr);
    b.verify(nullptr, rc);
    b.expect_arrays_unchanged();
  }
  {  // device pointer arrays with NULL entries and an invalid group, info in device memory: the
     // return value counts the invalid group's problems only, the NULL entries are in info.
    SCOPED_TRACE("device pointer arrays r64 with NULL entries, " + seed_note());
    std::vector<Group<double>> gs = {grp<double>(N, N, 8, 8, 8, 60), grp<double>(Tr, Tr, 5, 5, 5, 9)};
    gs[1].bad_lda = true;
    Batch<double> b(BLAS_ColMajor, gs);
    b.set_null(0, 4), b.set_null(2, 10), b.set_null(1, 59);
    b.make_arrays(D, D, D);
    Info info(D, b.total());
    b.upload();
    const int warm = b.call_arrays(info.ptr());  // warm-up
    EXPECT_EQ(warm, b.expected_host_count());
    CHECK_CUDA(cudaStreamSynchronize(stream.s));
    b.randomize(), b.upload(), info.poison();
    const auto t0 = clock::now();
    b.upload_behind_delay(2, stream.s);  // C (beta != 0: an input too)
    const int rc = b.call_arrays(info.ptr());
    const double ms = ms_since(t0);
    EXPECT_NO_CUDA_ERROR();
    EXPECT_EQ(rc, b.expected_host_count()) << "a non-blocking call returns the count known on the host";
    expect_not_waited(stream.s, ms);
    const std::vector<int> got = b.download_on(stream.s, &info);
    b.verify(&got, std::nullopt);
  }
}

// ---- 5a. the library's own stream comes after the legacy default stream (SPEC.md section 5) ---
// Inputs uploaded on the legacy default stream behind a host sleep, then a blocking call with no
// synchronisation between: the call must compute on the uploaded inputs (its stream waits for
// the legacy stream's work), not on the poison the upload replaces.
TEST_F(GpuExtensions, OwnStreamComesAfterLegacyDefaultStream) {
  BackendScope scope("native");
  {
    SCOPED_TRACE("strided r64, A uploaded on the legacy stream, " + seed_note());
    Batch<double> b(BLAS_ColMajor, {grp<double>(N, Tr, 12, 12, 12, scaled(2000, 50))}, Place::strided);
    Info info(D, b.total());
    b.upload();
    EXPECT_EQ(b.call_strided(info.ptr()), 0);  // warm-up: nothing allocated (and synchronised) below
    CHECK_CUDA(cudaDeviceSynchronize());
    b.randomize(), b.upload(), info.poison();
    b.upload_behind_delay(0, cudaStreamLegacy);
    const int rc = b.call_strided(info.ptr());
    EXPECT_NO_CUDA_ERROR();
    const std::vector<int> got = b.download_on(cudaStreamLegacy, &info);
    b.verify(&got, rc);
  }
  {
    SCOPED_TRACE("device pointer arrays r32, C uploaded on the legacy stream, " + seed_note());
    Batch<float> b(BLAS_RowMajor, {grp<float>(N, N, 7, 9, 5, scaled(500, 20))});
    b.make_arrays(D, D, D);
    Info info(D, b.total());
    b.upload();
    EXPECT_EQ(b.call_arrays(info.ptr()), 0);  // warm-up
    CHECK_CUDA(cudaDeviceSynchronize());
    b.randomize(), b.upload(), info.poison();
    b.upload_behind_delay(2, cudaStreamLegacy);  // C (beta != 0: an input too)
    const int rc = b.call_arrays(info.ptr());
    EXPECT_NO_CUDA_ERROR();
    const std::vector<int> got = b.download_on(cudaStreamLegacy, &info);
    b.verify(&got, rc);
  }
}

// ---- 5b. with the switch at 0, calls that need the host stay synchronous --------------------
TEST_F(GpuExtensions, NonBlockingSwitchLeavesOtherCallsSynchronous) {
  gpu::UserStream stream;
  ModeGuard mode(0, stream.s);
  BackendScope scope("native");
  {  // strided device data, info in host memory
    SCOPED_TRACE("strided r32, info in host memory, " + seed_note());
    Batch<float> b(BLAS_ColMajor, {grp<float>(Tr, N, 9, 9, 9, scaled(400, 20))}, Place::strided);
    b.upload();
    std::vector<int> info(std::size_t(b.total()), kPoison);
    b.upload_behind_delay(0, stream.s);
    const int rc = b.call_strided(info.data());
    EXPECT_NO_CUDA_ERROR();
    expect_waited(stream.s);
    b.download();
    b.verify(&info, rc);
  }
  {  // host pointer arrays to device data, info in device memory
    SCOPED_TRACE("host pointer arrays r64, info in device memory, " + seed_note());
    Batch<double> b(BLAS_RowMajor, {grp<double>(N, Cj, 6, 5, 4, 50), grp<double>(Tr, N, 20, 20, 20, 5)});
    b.set_null(0, 3);
    b.make_arrays(H, H, H);
    b.upload();
    Info info(D, b.total());
    b.upload_behind_delay(1, stream.s);
    const int rc = b.call_arrays(info.ptr());
    EXPECT_NO_CUDA_ERROR();
    expect_waited(stream.s);
    const std::vector<int> got = info.read();
    b.download();
    b.verify(&got, rc);
  }
  {  // r128 strided device data (staged through the host), info in device memory
    SCOPED_TRACE("strided r128, " + seed_note());
    Batch<quad> b(BLAS_ColMajor, {grp<quad>(N, N, 3, 4, 2, 10)}, Place::strided);
    b.upload();
    Info info(D, b.total());
    b.upload_behind_delay(2, stream.s);
    const int rc = b.call_strided(info.ptr());
    EXPECT_NO_CUDA_ERROR();
    expect_waited(stream.s);
    const std::vector<int> got = info.read();
    b.download();
    b.verify(&got, rc);
  }
}

// ---- 6. CUDA graph capture and replay ---------------------------------------------------------
struct Graph {
  cudaGraph_t g = nullptr;
  Graph() = default;
  Graph(const Graph &) = delete;
  Graph &operator=(const Graph &) = delete;
  ~Graph() {
    if (g && cudaGraphDestroy(g) != cudaSuccess) ADD_FAILURE() << "cudaGraphDestroy";
  }
};
struct GraphExec {
  cudaGraphExec_t e = nullptr;
  GraphExec() = default;
  GraphExec(const GraphExec &) = delete;
  GraphExec &operator=(const GraphExec &) = delete;
  ~GraphExec() {
    if (e && cudaGraphExecDestroy(e) != cudaSuccess) ADD_FAILURE() << "cudaGraphExecDestroy";
  }
};
// Global-mode capture of a stream for the scope; ended on the way out if the test did not, so a
// failure cannot leave the stream capturing.
class Capture {
 public:
  explicit Capture(cudaStream_t s) : s_(s) { CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal)); }
  cudaError_t end(Graph &graph) {
    open_ = false;
    return cudaStreamEndCapture(s_, &graph.g);
  }
  ~Capture() {
    if (!open_) return;
    cudaGraph_t g = nullptr;
    if (cudaStreamEndCapture(s_, &g) == cudaSuccess && g) cudaGraphDestroy(g);
    cudaGetLastError();
  }
  Capture(const Capture &) = delete;
  Capture &operator=(const Capture &) = delete;

 private:
  cudaStream_t s_;
  bool open_ = true;
};

// Capture of a warmed-up call on `stream`, which must enqueue the work without running it or
// writing info (`expect_untouched` checks the data), then two replays, each on fresh inputs
// (`fresh`) and poisoned info, checked by `verify`: the graph reads the data at replay.
template <class Call, class Fresh, class Untouched, class Verify>
void capture_then_replay(cudaStream_t stream, Info &info, int want_rc, Call call, Fresh fresh,
                         Untouched expect_untouched, Verify verify) {
  fresh(), info.poison();
  Graph graph;
  {
    Capture capture(stream);
    EXPECT_EQ(call(info.ptr()), want_rc) << "a warmed-up non-blocking call can be captured";
    EXPECT_EQ(capture.end(graph), cudaSuccess) << "the call broke the capture";
  }
  EXPECT_NO_CUDA_ERROR();
  ASSERT_NE(graph.g, nullptr);
  expect_untouched("capturing must not run the call");
  const std::vector<int> after_capture = info.read();
  EXPECT_EQ(std::count(after_capture.begin(), after_capture.end(), kPoison), long(after_capture.size()))
      << "capturing must not write info";
  GraphExec exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec.e, graph.g, 0));
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE("replay " + std::to_string(round));
    fresh(), info.poison();
    CHECK_CUDA(cudaGraphLaunch(exec.e, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));
    EXPECT_NO_CUDA_ERROR();
    verify(info.read());
  }
}

// gemm: warm-up, then capture and replays on fresh data, poisoned C and info.
template <class T, class Call>
void capture_and_replay(Batch<T> &b, Info &info, cudaStream_t stream, Call call, const std::string &what) {
  SCOPED_TRACE(what + ", " + seed_note());
  b.upload(), info.poison();
  const int warm = call(info.ptr());  // before expected_host_count(): the call sets the addressing
  EXPECT_EQ(warm, b.expected_host_count()) << "warm-up";
  CHECK_CUDA(cudaStreamSynchronize(stream));
  EXPECT_NO_CUDA_ERROR();
  const auto verify = [&b](const std::vector<int> &got) {
    b.download();
    b.verify(&got, std::nullopt);
  };
  {
    SCOPED_TRACE("warm-up");
    verify(info.read());
  }
  capture_then_replay(
      stream, info, b.expected_host_count(), call, [&b] { b.randomize(), b.upload(); },
      [&b](const char *what) { b.download(), b.expect_untouched(what); }, verify);
}
TEST_F(GpuExtensions, GraphCaptureAndReplay) {
  gpu::UserStream stream;
  ModeGuard mode(0, stream.s);
  BackendScope scope("native");
  {  // strided, n = 4, beta = 0: C is poisoned before every replay
    Group<double> g = grp<double>(N, N, 4, 4, 4, scaled(1000, 50));
    g.beta = 0.0;
    Batch<double> b(BLAS_ColMajor, {g}, Place::strided);
    Info info(D, b.total());
    capture_and_replay(b, info, stream.s, [&b](int *i) { return b.call_strided(i); }, "strided r64");
  }
  {  // device pointer arrays, one group, NULL entries: their codes are written by every replay
    Batch<float> b(BLAS_RowMajor, {grp<float>(Tr, N, 7, 7, 7, scaled(300, 20))});
    b.set_null(2, 5), b.set_null(0, 17);
    b.make_arrays(D, D, D);
    Info info(D, b.total());
    capture_and_replay(b, info, stream.s, [&b](int *i) { return b.call_arrays(i); }, "device pointer arrays r32");
  }
  {  // complex, strided, beta != 0: the new C is read at replay
    Batch<bb::complex<float>> b(BLAS_ColMajor, {grp<bb::complex<float>>(Cj, Tr, 16, 16, 16, scaled(200, 10))},
                                Place::strided);
    Info info(D, b.total());
    capture_and_replay(b, info, stream.s, [&b](int *i) { return b.call_strided(i); }, "strided c32");
  }
}

// ---- 6b. factorizations: non-blocking and captured with info in device memory --------------
// getrf, getri, potrf and the inverse in one call count their numerical codes (a zero pivot, a
// failed minor) into a synchronous call's return value; with info in device memory a
// non-blocking call leaves the codes there and returns the argument errors only (0 here), and
// can be captured (SPEC.md 9.3, 9.4). With info NULL they stay synchronous. r64, column-major,
// strided (the inverse: device pointer arrays, as it has no strided form); every seventh
// problem fails at a random column k, which gives info = k + 1 exactly.

// `count` column-major n x n r64 matrices at stride n^2 in device memory, and the inputs of the
// next call on the host.
class DeviceMatrices {
 public:
  DeviceMatrices(int n, int count)
      : n_(n), count_(count), input_(std::size_t(n) * n * count), dev_(D, input_.size() * sizeof(double)),
        staging_(P, input_.size() * sizeof(double)) {}
  int n() const { return n_; }
  int count() const { return count_; }
  double *ptr() const { return reinterpret_cast<double *>(dev_.get()); }
  int64_t stride() const { return int64_t(n_) * n_; }
  // Settled on the device before any stream of the test uses it (a copy from pageable memory
  // may return before it lands, and the test's stream does not wait for the legacy one).
  void upload() {
    dev_.write(0, input_.data(), input_.size() * sizeof(double));
    CHECK_CUDA(cudaDeviceSynchronize());
  }
  // Poison, a host sleep, then the inputs, all on stream s: a call that waits for s returns
  // only after the sleep.
  void upload_behind_delay(cudaStream_t s) {
    std::memcpy(staging_.get(), input_.data(), input_.size() * sizeof(double));
    CHECK_CUDA(cudaMemsetAsync(dev_.get(), 0xFF, dev_.bytes(), s));
    CHECK_CUDA(cudaLaunchHostFunc(s, sleep_ms, reinterpret_cast<void *>(intptr_t(kDelayMs))));
    CHECK_CUDA(cudaMemcpyAsync(dev_.get(), staging_.get(), dev_.bytes(), cudaMemcpyHostToDevice, s));
  }
  std::vector<double> read() const {
    std::vector<double> out(input_.size());
    dev_.read(0, out.data(), out.size() * sizeof(double));
    return out;
  }
  void expect_untouched(const char *why) const {
    const std::vector<double> out = read();
    EXPECT_EQ(std::memcmp(out.data(), input_.data(), out.size() * sizeof(double)), 0) << why;
  }

 protected:
  double *input(int p) { return &input_[std::size_t(p) * stride()]; }
  const double *input(int p) const { return &input_[std::size_t(p) * stride()]; }
  int n_, count_;
  std::vector<double> input_;

 private:
  Buffer dev_, staging_;
};

// Codes as wanted; the first few wrong ones reported and counted in `bad`.
void info_as_wanted(const std::vector<int> &info, const std::vector<int> &want, int &bad) {
  for (std::size_t p = 0; p < want.size() && bad < 5; ++p)
    if (info[p] != want[p]) ADD_FAILURE() << "problem " << p << ": info " << info[p] << ", want " << want[p], ++bad;
}

// potrf Lower: diagonally dominant symmetric matrices, the failing ones with A(k, k) = -1 (the
// leading minors of order <= k are dominant, the k-th pivot is below -1). The upper triangle
// holds NaN and must stay untouched; a factor must reproduce its matrix: max |A - L L^T| <=
// 8 n^2 eps max |A| (loose, but far below any real error: 1e-10 of max |A| at n = 32).
class CholBatch : public DeviceMatrices {
 public:
  CholBatch(int n, int count) : DeviceMatrices(n, count) { randomize(); }
  const std::vector<int> &want() const { return want_; }
  int failures() const { return int(count_ - std::count(want_.begin(), want_.end(), 0)); }
  int call(int *info) const {
    return BLAS_potrf_batched_strided_r64(BLAS_ColMajor, BLAS_Lower, n_, ptr(), n_, stride(), count_, info);
  }
  void randomize() {
    want_.assign(std::size_t(count_), 0);
    for (int p = 0; p < count_; ++p) {
      double *a = input(p);
      for (int j = 0; j < n_; ++j)
        for (int i = 0; i < n_; ++i) a[i + j * n_] = i < j ? double(NAN) : i == j ? 2.0 * n_ : uniform_nonzero();
      if (p % 7 == 3) {
        const int k = random_int(0, n_ - 1);
        a[k + k * n_] = -1.0;
        want_[p] = k + 1;
      }
    }
  }
  // info as expected, the upper triangles bit for bit, every factor reproducing its matrix.
  void verify(const std::vector<int> &info) const {
    const std::vector<double> out = read();
    int bad = 0;
    info_as_wanted(info, want_, bad);
    for (int p = 0; p < count_ && bad < 5; ++p) {
      const double *a = input(p), *l = &out[std::size_t(p) * stride()];
      for (int j = 0; j < n_; ++j)
        for (int i = 0; i < j; ++i)
          if (!std::isnan(l[i + j * n_])) ADD_FAILURE() << "problem " << p << ": upper triangle written", ++bad;
      if (want_[p]) continue;  // a failed problem's triangle is unspecified (SPEC.md section 3)
      double err = 0, norm = 0;
      for (int j = 0; j < n_; ++j)
        for (int i = j; i < n_; ++i) {
          double llt = 0;
          for (int k = 0; k <= j; ++k) llt += l[i + k * n_] * l[j + k * n_];
          err = std::max(err, std::fabs(a[i + j * n_] - llt)), norm = std::max(norm, std::fabs(a[i + j * n_]));
        }
      if (!(err <= 8.0 * n_ * DBL_EPSILON * n_ * norm))
        ADD_FAILURE() << "problem " << p << ": max |A - L L^T| = " << err << " against |A| " << norm, ++bad;
    }
  }

 private:
  std::vector<int> want_;
};

// Whether getrf's pivots (LAPACK's interchange form) are in j+1..n; the reason in `why` if not.
bool pivots_in_range(const int *ipiv, int n, std::string &why) {
  for (int j = 0; j < n; ++j)
    if (ipiv[j] < j + 1 || ipiv[j] > n) return why = "ipiv[" + std::to_string(j) + "] = " + std::to_string(ipiv[j]), false;
  return true;
}

// Problem p of a batch of column-major n x n matrices, as the checks of common.hpp take it.
Mat<double> square_matrix(const std::vector<double> &batch, int p, int n) {
  Mat<double> m(n, n, BLAS_ColMajor, 0);
  std::copy_n(batch.begin() + std::ptrdiff_t(p) * n * n, std::size_t(n) * n, m.data.begin());
  return m;
}

// getrf, getri (of the host backend's factors) or the inverse in one call on random matrices,
// the failing ones with column k zero: a zero pivot at column k exactly, nothing earlier.
enum class LuCall { getrf, getri, inverse };
const char *lu_call_name(LuCall c) { return c == LuCall::getrf ? "getrf" : c == LuCall::getri ? "getri" : "getrf_getri"; }

class LuBatch : public DeviceMatrices {
 public:
  LuBatch(LuCall what, int n, int count)
      : DeviceMatrices(n, count), what_(what), ipiv_dev_(D, sizeof(int) * std::size_t(n) * count),
        a_ptrs_(D, sizeof(double *) * std::size_t(count)), ipiv_ptrs_(D, sizeof(int *) * std::size_t(count)) {
    std::vector<double *> as(static_cast<std::size_t>(count_));
    std::vector<int *> ps(static_cast<std::size_t>(count_));
    for (int p = 0; p < count_; ++p) as[p] = ptr() + p * stride(), ps[p] = pivots() + std::size_t(p) * n_;
    a_ptrs_.write(0, as.data(), as.size() * sizeof(double *));
    ipiv_ptrs_.write(0, ps.data(), ps.size() * sizeof(int *));
    randomize();
  }
  const std::vector<int> &want() const { return want_; }
  int failures() const { return int(count_ - std::count(want_.begin(), want_.end(), 0)); }
  int call(int *info) const {
    switch (what_) {
      case LuCall::getrf:
        return BLAS_getrf_batched_strided_r64(BLAS_ColMajor, n_, n_, ptr(), n_, stride(), pivots(), n_, count_, info);
      case LuCall::getri:
        return BLAS_getri_batched_strided_r64(BLAS_ColMajor, n_, ptr(), n_, stride(), pivots(), n_, count_, info);
      case LuCall::inverse:
        return BLAS_getrf_getri_batched_r64(BLAS_ColMajor, &n_, reinterpret_cast<double **>(a_ptrs_.get()), &n_,
                                           reinterpret_cast<int **>(ipiv_ptrs_.get()), 1, &count_, info);
    }
    return -1;
  }
  void randomize() {
    a_.resize(input_.size());
    want_.assign(std::size_t(count_), 0);
    for (int p = 0; p < count_; ++p) {
      double *a = &a_[std::size_t(p) * stride()];
      for (int e = 0; e < n_ * n_; ++e) a[e] = uniform_nonzero();
      if (p % 7 == 3) {
        const int k = random_int(0, n_ - 1);
        for (int i = 0; i < n_; ++i) a[i + k * n_] = 0.0;
        want_[p] = k + 1;
      }
    }
    input_ = a_;
    ipiv_in_.assign(std::size_t(n_) * count_, -7);  // getrf's outputs: poisoned
    if (what_ != LuCall::getri) return;
    std::vector<int> info(std::size_t(count_), kPoison);  // getri's inputs: the host's factors
    EXPECT_EQ(BLAS_getrf_batched_strided_r64(BLAS_ColMajor, n_, n_, input_.data(), n_, stride(), ipiv_in_.data(), n_,
                                             count_, info.data()),
              failures());
    int bad = 0;
    info_as_wanted(info, want_, bad);
  }
  void upload() { write_pivots(), DeviceMatrices::upload(); }
  void upload_behind_delay(cudaStream_t s) { write_pivots(), DeviceMatrices::upload_behind_delay(s); }
  void expect_untouched(const char *why) const {
    DeviceMatrices::expect_untouched(why);
    EXPECT_EQ(read_pivots(), ipiv_in_) << why << " (ipiv)";
  }
  // info as expected; getrf's factors reproducing A (componentwise, common.hpp) with partial
  // pivoting's |L| <= 1; an inverse where A is not singular (getri_residual), and where it is,
  // getri's input untouched or (the inverse in one call) getrf's factors; getri's ipiv unchanged.
  void verify(const std::vector<int> &info) const {
    const std::vector<double> out = read();
    const std::vector<int> ipiv = read_pivots();
    int bad = 0;
    info_as_wanted(info, want_, bad);
    if (what_ == LuCall::getri && ipiv != ipiv_in_) ADD_FAILURE() << "getri wrote ipiv", ++bad;
    for (int p = 0; p < count_ && bad < 5; ++p) {
      const Mat<double> A = square_matrix(a_, p, n_), X = square_matrix(out, p, n_);
      const std::vector<int> piv(ipiv.begin() + std::ptrdiff_t(p) * n_, ipiv.begin() + std::ptrdiff_t(p + 1) * n_);
      std::string why;
      bool ok;
      if (want_[p] && what_ == LuCall::getri) {
        ok = std::memcmp(X.data.data(), input(p), sizeof(double) * stride()) == 0 || (why = "A written", false);
      } else if (want_[p] || what_ == LuCall::getrf) {  // getrf's factors: backward error, partial pivoting
        const double cw = getrf_componentwise(A, X, piv);
        const auto pivots = pivot_bound(X);
        ok = pivots_in_range(piv.data(), n_, why) && cw <= getrf_componentwise_limit<double>() && pivots;
        if (!ok && why.empty()) why = "componentwise backward error " + std::to_string(cw) + "; " + pivots.message();
      } else {
        const double res = getri_residual(A, X);
        ok = res <= residual_limit<double>() && (what_ == LuCall::getri || pivots_in_range(piv.data(), n_, why));
        if (!ok && why.empty()) why = "||I - A X|| / (n ||A|| ||X|| eps) = " + std::to_string(res);
      }
      if (!ok) ADD_FAILURE() << "problem " << p << " (info " << want_[p] << "): " << why, ++bad;
    }
  }

 private:
  int *pivots() const { return reinterpret_cast<int *>(ipiv_dev_.get()); }
  void write_pivots() {
    ipiv_dev_.write(0, ipiv_in_.data(), ipiv_in_.size() * sizeof(int));
    CHECK_CUDA(cudaDeviceSynchronize());  // as DeviceMatrices::upload
  }
  std::vector<int> read_pivots() const {
    std::vector<int> v(ipiv_in_.size());
    ipiv_dev_.read(0, v.data(), v.size() * sizeof(int));
    return v;
  }
  LuCall what_;
  std::vector<double> a_;    // the matrices factored
  std::vector<int> ipiv_in_;  // getri's pivots; for getrf and the inverse, the poison of theirs
  std::vector<int> want_;
  Buffer ipiv_dev_, a_ptrs_, ipiv_ptrs_;
};

// Warm-up of the shape; a non-blocking call behind a delay (returns 0 before the stream gets
// there, codes in info); with info NULL a synchronous call that counts the failures; a capture
// and two replays.
template <class Problems>
void nonblocking_and_captured(Problems &b, cudaStream_t stream) {
  Info info(D, b.count());
  b.upload();
  EXPECT_EQ(b.call(info.ptr()), 0) << "warm-up";
  CHECK_CUDA(cudaStreamSynchronize(stream));
  EXPECT_NO_CUDA_ERROR();
  {
    SCOPED_TRACE("warm-up");
    b.verify(info.read());
  }
  {
    SCOPED_TRACE("info in device memory: not waited, codes left in info");
    b.randomize(), info.poison();
    const auto t0 = std::chrono::steady_clock::now();
    b.upload_behind_delay(stream);
    const int rc = b.call(info.ptr());
    const double ms = ms_since(t0);
    EXPECT_NO_CUDA_ERROR();
    EXPECT_EQ(rc, 0) << "a non-blocking call counts argument errors only (" << b.failures() << " numerical codes)";
    expect_not_waited(stream, ms);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    b.verify(info.read());
  }
  {
    SCOPED_TRACE("info NULL: synchronous, the failures counted");
    b.randomize();
    b.upload_behind_delay(stream);
    const int rc = b.call(nullptr);
    EXPECT_NO_CUDA_ERROR();
    expect_waited(stream);
    EXPECT_EQ(rc, b.failures());
    b.verify(b.want());
  }
  SCOPED_TRACE("captured, then replayed twice on fresh data");
  capture_then_replay(
      stream, info, 0, [&b](int *i) { return b.call(i); }, [&b] { b.randomize(), b.upload(); },
      [&b](const char *why) { b.expect_untouched(why); }, [&b](const std::vector<int> &got) { b.verify(got); });
}

TEST_F(GpuExtensions, NonBlockingAndCapturedPotrf) {
  gpu::UserStream stream;
  ModeGuard mode(0, stream.s);
  BackendScope scope("native");
  for (int n : {12, 32}) {
    SCOPED_TRACE("potrf strided r64, n = " + std::to_string(n) + ", " + seed_note());
    CholBatch b(n, scaled(3000, 60));
    nonblocking_and_captured(b, stream.s);
    if (::testing::Test::HasFailure()) return;
  }
}

// Orders 12 and 32 take the register kernels (the inverse: the one-pass kernel at 12, getrf's
// then getri's at 32), 48 the blocked algorithms,
// which a capture runs with the unblocked kernels (SPEC.md section 7).
TEST_F(GpuExtensions, NonBlockingAndCapturedLu) {
  gpu::UserStream stream;
  ModeGuard mode(0, stream.s);
  BackendScope scope("native");
  for (LuCall what : {LuCall::getrf, LuCall::getri, LuCall::inverse})
    for (int n : {12, 32, 48}) {
      SCOPED_TRACE(std::string(lu_call_name(what)) + " r64, n = " + std::to_string(n) + ", " + seed_note());
      LuBatch b(what, n, scaled(2000, 40));
      nonblocking_and_captured(b, stream.s);
      if (::testing::Test::HasFailure()) return;
    }
}

// A call whose groups do not fit in the launch parameters (12 groups of one kernel
// configuration, more than the 8 of SPEC.md 9.3) needs an upload: captured, it is refused with
// nothing enqueued. Should the library launch it without an upload after all, the graph must
// then work: either way the capture stays valid.
TEST_F(GpuExtensions, CaptureOfManyGroups) {
  gpu::UserStream stream;
  ModeGuard mode(0, stream.s);
  BackendScope scope("native");
  std::vector<Group<double>> gs;
  for (int g = 0; g < 12; ++g) gs.push_back(grp<double>(N, N, 4, 4, 4, 20, 0));  // alpha, beta differ
  Batch<double> b(BLAS_ColMajor, gs);
  b.make_arrays(D, D, D);
  Info info(D, b.total());
  b.upload();
  EXPECT_EQ(b.call_arrays(info.ptr()), 0);  // warm-up
  CHECK_CUDA(cudaStreamSynchronize(stream.s));
  b.randomize(), b.upload(), info.poison();
  Graph graph;
  int rc;
  {
    Capture capture(stream.s);
    rc = b.call_arrays(info.ptr());
    EXPECT_EQ(capture.end(graph), cudaSuccess) << "the call broke the capture";
  }
  EXPECT_NO_CUDA_ERROR();
  ASSERT_NE(graph.g, nullptr);
  b.download();
  b.expect_untouched("capturing must not run the call");
  if (rc == BLAS_BATCHED_ERR_UNSUPPORTED) {
    std::size_t nodes = 1;
    CHECK_CUDA(cudaGraphGetNodes(graph.g, nullptr, &nodes));
    EXPECT_EQ(nodes, 0u) << "a refused capture must enqueue nothing";
    const std::vector<int> got = info.read();
    EXPECT_EQ(std::count(got.begin(), got.end(), kPoison), long(got.size())) << "info must stay untouched";
    return;
  }
  ASSERT_EQ(rc, 0) << "a captured call returns 0 or BLAS_BATCHED_ERR_UNSUPPORTED";
  GraphExec exec;
  CHECK_CUDA(cudaGraphInstantiate(&exec.e, graph.g, 0));
  CHECK_CUDA(cudaGraphLaunch(exec.e, stream.s));
  CHECK_CUDA(cudaStreamSynchronize(stream.s));
  EXPECT_NO_CUDA_ERROR();
  b.download();
  const std::vector<int> got = info.read();
  b.verify(&got, std::nullopt);
}

// ---- 7. the switch's values, per thread -------------------------------------------------------
TEST_F(GpuExtensions, BlockingSwitchValues) {
  gpu::UserStream stream;
  ModeGuard mode(1, stream.s);
  BackendScope scope("native");
  Batch<float> b(BLAS_RowMajor, {grp<float>(Tr, N, 16, 16, 16, scaled(500, 20))}, Place::strided);
  Info info(D, b.total());
  b.upload();
  EXPECT_EQ(blas_batched_set_blocking(0), 0);
  EXPECT_EQ(b.call_strided(info.ptr()), 0);  // warm-up in non-blocking mode
  CHECK_CUDA(cudaStreamSynchronize(stream.s));
  // 0: non-blocking; 1 and any other value: blocking (SPEC.md 9.3).
  const struct {
    int value;
    bool blocking;
  } values[] = {{0, false}, {1, true}, {0, false}, {2, true}, {0, false}, {-1, true}, {1, true}};
  for (const auto &v : values) {
    SCOPED_TRACE("blas_batched_set_blocking(" + std::to_string(v.value) + "), " + seed_note());
    EXPECT_EQ(blas_batched_set_blocking(v.value), 0);
    b.randomize(), b.upload(), info.poison();
    const auto t0 = std::chrono::steady_clock::now();
    b.upload_behind_delay(0, stream.s);
    const int rc = b.call_strided(info.ptr());
    const double ms = ms_since(t0);
    EXPECT_NO_CUDA_ERROR();
    EXPECT_EQ(rc, 0);
    if (v.blocking) {
      expect_waited(stream.s);
      const std::vector<int> got = info.read();  // final on return: no stream synchronisation
      b.download();
      b.verify(&got, rc);
    } else {
      expect_not_waited(stream.s, ms);
      const std::vector<int> got = b.download_on(stream.s, &info);
      b.verify(&got, rc);
    }
  }
  // The switch is per thread: with this thread non-blocking, a new thread's calls block.
  EXPECT_EQ(blas_batched_set_blocking(0), 0);
  b.randomize(), b.upload(), info.poison();
  int set_rc = -1, rc = -1, reset_rc = -1;
  cudaError_t queued = cudaErrorUnknown, query = cudaErrorUnknown, last = cudaErrorUnknown;
  std::thread t([&] {
    set_rc = blas_batched_set_cuda_stream(stream.s);
    queued = cudaLaunchHostFunc(stream.s, sleep_ms, reinterpret_cast<void *>(intptr_t(kDelayMs)));
    rc = b.call_strided(info.ptr());
    last = cudaGetLastError();
    query = cudaStreamQuery(stream.s);
    if (query == cudaErrorNotReady && cudaPeekAtLastError() == cudaErrorNotReady) cudaGetLastError();
    reset_rc = blas_batched_set_cuda_stream(nullptr);
  });
  t.join();
  EXPECT_EQ(set_rc, 0);
  EXPECT_EQ(queued, cudaSuccess);
  EXPECT_EQ(rc, 0);
  EXPECT_EQ(last, cudaSuccess) << "the call left a CUDA error behind in its thread";
  EXPECT_EQ(query, cudaSuccess) << "a new thread starts blocking: its call must wait for its stream";
  EXPECT_EQ(reset_rc, 0);
  CHECK_CUDA(cudaStreamSynchronize(stream.s));
  const std::vector<int> got = info.read();
  b.download();
  b.verify(&got, rc);
}


// ---- the vendor backend on device data (SPEC.md section 7) ----------------------------------
// Where each routine's device group runs under `vendor`: cuBLAS (trsm, getrf in real precisions,
// getri, geqrf in column-major), cuSOLVER (potrf, the column-major lower triangle or the
// row-major upper one), the library's kernels for the rest (trmm, row-major LU and QR, complex
// getrf, cuSOLVER's Upper). The suites check the results under both backends; here the routing.
template <class T>
std::string vendor_placement(const std::function<int(T *, int *, T *)> &call, int n, int count) {
  const std::size_t elems = std::size_t(n) * n * count;
  std::vector<T> a(elems);
  // Diagonally dominant (every routine runs to the end; potrf reads one triangle of it, which
  // makes it Hermitian positive definite).
  for (std::size_t e = 0; e < elems; ++e) {
    const std::size_t i = e % n, j = e / n % n;
    a[e] = i == j ? T(2 * n) : random_value<T>();
  }
  Buffer A(Mem::device, elems * sizeof(T)), B(Mem::device, elems * sizeof(T)), piv(Mem::device, sizeof(int) * n * count);
  A.write(0, a.data(), elems * sizeof(T)), B.write(0, a.data(), elems * sizeof(T));
  std::vector<int> ip(std::size_t(n) * count);
  for (std::size_t e = 0; e < ip.size(); ++e) ip[e] = int(e % n) + 1;  // no interchange (getri)
  piv.write(0, ip.data(), ip.size() * sizeof(int));
  int rc;
  {
    BackendScope scope("vendor");
    rc = call(reinterpret_cast<T *>(A.get()), reinterpret_cast<int *>(piv.get()), reinterpret_cast<T *>(B.get()));
  }
  EXPECT_NO_CUDA_ERROR();
  EXPECT_EQ(rc, 0) << "no problem may fail";
  return gpu::last_call_group_line(blas_batched_last_call(), 0);
}

TEST_F(GpuExtensions, VendorBackendPlacement) {
  constexpr int n = 12, count = 40;
  const int64_t s = int64_t(n) * n;
  const double one[2] = {1, 0};
  auto expect = [](const std::string &line, const char *where) {
    EXPECT_NE(line.find(where), std::string::npos) << "expected " << where << ": " << line;
  };
  using d = double;
  using z = bb::complex<double>;
  using Z = blas_c64_t;  // the header's type for the same bits
  const d *alpha = one;
  const Z *zalpha = reinterpret_cast<const Z *>(one);
  auto c = [](z *p) { return reinterpret_cast<Z *>(p); };
  expect(vendor_placement<d>([&](d *A, int *, d *B) {
    return BLAS_trsm_batched_strided_r64(BLAS_ColMajor, BLAS_Left, BLAS_Lower, BLAS_NoTrans, BLAS_NonUnit, n, n, alpha, A,
                                         n, s, B, n, s, count, nullptr);
  }, n, count), "cuda/cublas");
  expect(vendor_placement<z>([&](z *A, int *, z *B) {
    return BLAS_trsm_batched_strided_c64(BLAS_RowMajor, BLAS_Right, BLAS_Upper, BLAS_ConjTrans, BLAS_Unit, n, n, zalpha,
                                         c(A), n, s, c(B), n, s, count, nullptr);
  }, n, count), "cuda/cublas");
  expect(vendor_placement<d>([&](d *A, int *, d *B) {
    return BLAS_trmm_batched_strided_r64(BLAS_ColMajor, BLAS_Left, BLAS_Lower, BLAS_NoTrans, BLAS_NonUnit, n, n, alpha, A,
                                         n, s, B, n, s, count, nullptr);
  }, n, count), "cuda/kernel");
  expect(vendor_placement<d>([&](d *A, int *ipiv, d *) {
    return BLAS_getrf_batched_strided_r64(BLAS_ColMajor, n, n, A, n, s, ipiv, n, count, nullptr);
  }, n, count), "cuda/cublas");
  expect(vendor_placement<d>([&](d *A, int *ipiv, d *) {
    return BLAS_getrf_batched_strided_r64(BLAS_RowMajor, n, n, A, n, s, ipiv, n, count, nullptr);
  }, n, count), "cuda/kernel");
  expect(vendor_placement<z>([&](z *A, int *ipiv, z *) {
    return BLAS_getrf_batched_strided_c64(BLAS_ColMajor, n, n, c(A), n, s, ipiv, n, count, nullptr);
  }, n, count), "cuda/kernel");
  expect(vendor_placement<z>([&](z *A, int *ipiv, z *) {
    return BLAS_getri_batched_strided_c64(BLAS_ColMajor, n, c(A), n, s, ipiv, n, count, nullptr);
  }, n, count), "cuda/cublas");
  expect(vendor_placement<d>([&](d *A, int *, d *tau) {
    return BLAS_geqrf_batched_strided_r64(BLAS_ColMajor, n, n, A, n, s, tau, n, count, nullptr);
  }, n, count), "cuda/cublas");
  expect(vendor_placement<d>([&](d *A, int *, d *tau) {
    return BLAS_geqrf_batched_strided_r64(BLAS_RowMajor, n, n, A, n, s, tau, n, count, nullptr);
  }, n, count), "cuda/kernel");
#ifdef BB_TEST_HAVE_CUSOLVER
  const char *solver = "cuda/cusolver";
#else
  const char *solver = "cuda/kernel";
#endif
  expect(vendor_placement<d>([&](d *A, int *, d *) {
    return BLAS_potrf_batched_strided_r64(BLAS_ColMajor, BLAS_Lower, n, A, n, s, count, nullptr);
  }, n, count), solver);
  expect(vendor_placement<z>([&](z *A, int *, z *) {
    return BLAS_potrf_batched_strided_c64(BLAS_RowMajor, BLAS_Upper, n, c(A), n, s, count, nullptr);
  }, n, count), solver);
  expect(vendor_placement<d>([&](d *A, int *, d *) {
    return BLAS_potrf_batched_strided_r64(BLAS_ColMajor, BLAS_Upper, n, A, n, s, count, nullptr);
  }, n, count), "cuda/kernel");
}

}  // namespace
}  // namespace conf
