// Shared machinery of the GPU conformance tests: checked CUDA calls, skipping when there is no
// device, owned allocations in every memory kind a caller may pass, and the reduced mode for
// compute-sanitizer runs. Compiled by the host compiler against the CUDA runtime only: the
// tests reach the library through its public C API, never through CUDA code of their own.
#pragma once
#include "common.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace conf::gpu {

// A failed CUDA call fails the test where it happened and aborts the test body: gtest turns the
// exception into a failure, and destructors still free what was allocated.
struct CudaFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};
inline void check_cuda(cudaError_t e, const char *expr, const char *file, int line) {
  if (e == cudaSuccess) return;
  std::string what = std::string(expr) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
  ADD_FAILURE_AT(file, line) << what;
  throw CudaFailure(what);
}
#define CHECK_CUDA(expr) ::conf::gpu::check_cuda((expr), #expr, __FILE__, __LINE__)

// A library call must leave no pending CUDA error behind in the caller's thread.
#define EXPECT_NO_CUDA_ERROR() \
  EXPECT_EQ(cudaGetLastError(), cudaSuccess) << "the library call left a CUDA error behind"

// Whether a usable device exists; decided once (the first runtime call costs the most).
inline bool has_device(std::string *why = nullptr) {
  static std::string reason;
  static const bool yes = [] {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      reason = std::string("cudaGetDeviceCount: ") + cudaGetErrorName(e);
      cudaGetLastError();  // clear it: later runtime calls must not see it
      return false;
    }
    if (n == 0) reason = "no CUDA device";
    return n > 0;
  }();
  if (why) *why = reason;
  return yes;
}

// BB_GPU_REDUCED=1: fewer sizes and configurations, small batches (sanitizer runs are ~100x slower).
inline bool reduced() {
  const char *e = std::getenv("BB_GPU_REDUCED");
  return e && std::string(e) == "1";
}

// Every GPU test derives from this: without a device it skips (it must not pass vacuously).
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!has_device(&why)) GTEST_SKIP() << "no GPU: " << why;
    ASSERT_EQ(cudaGetLastError(), cudaSuccess) << "a CUDA error is pending before the test";
  }
  void TearDown() override {
    if (!has_device()) return;
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  }
};

// ---- memory kinds ----------------------------------------------------------------------
// host: pageable; pinned: cudaMallocHost (still host memory for residency); device: cudaMalloc;
// managed: cudaMallocManaged; pool: cudaMallocAsync (stream-ordered device memory).
enum class Mem { host, pinned, device, managed, pool };
inline bool on_device(Mem m) { return m == Mem::device || m == Mem::managed || m == Mem::pool; }
inline const char *mem_name(Mem m) {
  switch (m) {
    case Mem::host: return "host";
    case Mem::pinned: return "pinned";
    case Mem::device: return "device";
    case Mem::managed: return "managed";
    case Mem::pool: return "pool";
  }
  return "?";
}

// One owned allocation of a given kind; contents moved with plain memcpy (host kinds) or
// cudaMemcpy (device kinds), both synchronous.
class Buffer {
 public:
  Buffer() = default;
  Buffer(Mem kind, std::size_t bytes) : kind_(kind), bytes_(std::max<std::size_t>(bytes, 1)) {
    switch (kind) {
      case Mem::host:
        p_ = std::aligned_alloc(256, (bytes_ + 255) / 256 * 256);
        if (!p_) throw std::bad_alloc();
        break;
      case Mem::pinned: CHECK_CUDA(cudaMallocHost(&p_, bytes_)); break;
      case Mem::device: CHECK_CUDA(cudaMalloc(&p_, bytes_)); break;
      case Mem::managed: CHECK_CUDA(cudaMallocManaged(&p_, bytes_)); break;
      case Mem::pool:
        CHECK_CUDA(cudaMallocAsync(&p_, bytes_, cudaStreamLegacy));
        CHECK_CUDA(cudaStreamSynchronize(cudaStreamLegacy));  // usable from any stream from now on
        break;
    }
  }
  Buffer(Buffer &&o) noexcept { *this = std::move(o); }
  Buffer &operator=(Buffer &&o) noexcept {
    if (this != &o) {
      release();
      std::swap(kind_, o.kind_), std::swap(bytes_, o.bytes_), std::swap(p_, o.p_);
    }
    return *this;
  }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  ~Buffer() { release(); }

  unsigned char *get() const { return static_cast<unsigned char *>(p_); }
  Mem kind() const { return kind_; }
  std::size_t bytes() const { return bytes_; }
  void write(std::size_t off, const void *src, std::size_t n) {
    if (on_device(kind_)) CHECK_CUDA(cudaMemcpy(get() + off, src, n, cudaMemcpyDefault));
    else std::memcpy(get() + off, src, n);
  }
  void read(std::size_t off, void *dst, std::size_t n) const {
    if (on_device(kind_)) CHECK_CUDA(cudaMemcpy(dst, get() + off, n, cudaMemcpyDefault));
    else std::memcpy(dst, get() + off, n);
  }

 private:
  void release() {
    if (!p_) return;
    cudaError_t e = cudaSuccess;
    switch (kind_) {
      case Mem::host: std::free(p_); break;
      case Mem::pinned: e = cudaFreeHost(p_); break;
      case Mem::device:
      case Mem::managed: e = cudaFree(p_); break;
      case Mem::pool:
        e = cudaFreeAsync(p_, cudaStreamLegacy);
        if (e == cudaSuccess) e = cudaStreamSynchronize(cudaStreamLegacy);
        break;
    }
    if (e != cudaSuccess) ADD_FAILURE() << "freeing " << mem_name(kind_) << " memory: " << cudaGetErrorName(e);
    p_ = nullptr;
  }
  Mem kind_ = Mem::host;
  std::size_t bytes_ = 0;
  void *p_ = nullptr;
};

// A user stream that the legacy default stream does not synchronise with, so that only the
// library's own waiting orders work on it.
struct UserStream {
  cudaStream_t s = nullptr;
  UserStream() { CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~UserStream() {
    if (cudaStreamSynchronize(s) != cudaSuccess || cudaStreamDestroy(s) != cudaSuccess)
      ADD_FAILURE() << "destroying the user stream";
  }
  UserStream(const UserStream &) = delete;
  UserStream &operator=(const UserStream &) = delete;
};

// Sets the calling thread's library stream for the scope; back to the library's own (NULL) at
// the end, so a failing test cannot leak its stream into the next one.
struct LibraryStreamScope {
  explicit LibraryStreamScope(cudaStream_t s) { EXPECT_EQ(blas_batched_set_cuda_stream(s), 0); }
  ~LibraryStreamScope() { EXPECT_EQ(blas_batched_set_cuda_stream(nullptr), 0); }
};

// The line of blas_batched_last_call() about group g ("group g: ..."), or "" when the text
// does not show it (only the first 16 groups are listed).
inline std::string last_call_group_line(const std::string &text, int g) {
  std::string key = "group " + std::to_string(g) + ":";
  std::size_t pos = text.find(key);
  if (pos == std::string::npos) return "";
  return text.substr(pos, text.find('\n', pos) - pos);
}

// ---- sizes, backends and failure reports shared by the device suites ---------------------------

inline int scaled(int full, int reduced_value) { return reduced() ? reduced_value : full; }
// Problems per group for batches: r128 / c128 (software arithmetic on the host, in the library's
// staging and in the checks) get a tenth.
template <class T> int batch(int full, int reduced_value) {
  return reduced() ? reduced_value : is_quad<T> ? std::max(reduced_value, full / 10) : full;
}
// The device backends every call runs under (SPEC.md section 7). r128 / c128 device groups are
// staged through the host kernels under both, so they run under native alone.
template <class T> std::vector<const char *> device_backends() {
  if (is_quad<T>) return {"native"};
  return {"native", "vendor"};
}

// Whether a call with host pointer arrays holding NULL entries and the same call with device
// arrays give the same bits. Under the vendor backend a run holding a NULL problem takes the
// library's kernels with host arrays (the host pass skips the problem, and no vendor pointer
// list may hold NULL) but the vendor library with device arrays (NULL entries lead to scratch
// there): the bits may differ; every other check, info included, holds for both. Under native
// the same holds for the groups its tuning sends to a vendor library (getri's and potrf's larger
// orders):
// a test asks the call's record about those.
inline bool same_bits_host_and_device_arrays(const char *backend) { return std::string(backend) != "vendor"; }

// At most a few failure messages per check of a call, then a count; the call record once.
class Reporter {
 public:
  Reporter(std::string what, const std::string *record) : what_(std::move(what)), record_(record) {}
  ~Reporter() {
    if (count_ > kShown) ADD_FAILURE() << what_ << ": " << count_ - kShown << " more failures";
  }
  void fail(const std::string &msg) {
    if (++count_ > kShown) return;
    std::string note;
    if (!noted_ && record_) note = "\n" + *record_, noted_ = true;
    ADD_FAILURE() << what_ << ": " << msg << note;
  }
  int count() const { return count_; }

 private:
  static constexpr int kShown = 5;
  std::string what_;
  const std::string *record_;
  int count_ = 0;
  bool noted_ = false;
};

}  // namespace conf::gpu
