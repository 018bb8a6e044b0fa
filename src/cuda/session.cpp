#include "session.hpp"

#include "factor_run.hpp"  // tuning_env

#include <blas_batched/blas_batched.h>
#include <cublas_v2.h>
#ifdef BB_HAVE_CUSOLVER
#include <cusolverDn.h>
#endif
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

namespace bb::cuda {

#define CHECK(call) check_at(int(call), __LINE__)

namespace {

int status_of(cudaError_t e) {
  if (e == cudaSuccess) return 0;
  return e == cudaErrorMemoryAllocation ? BLAS_BATCHED_ERR_DEVICE_ALLOC : BLAS_BATCHED_ERR_DEVICE;
}

// The caller's stream (blas_batched_set_cuda_stream), per thread, with the device it was set on.
struct UserStream {
  cudaStream_t stream = nullptr;
  int device = -1;
};
UserStream &user_stream() {
  thread_local UserStream s;
  return s;
}

bool &blocking_switch() {
  thread_local bool on = true;
  return on;
}

// The calling thread's choice (blas_batched_set_device_timing): -1 leaves it to the environment.
int &timing_switch() {
  thread_local int on = -1;
  return on;
}

bool timing_requested() {
  static const bool from_environment = [] {
    const char *s = std::getenv("BLAS_BATCHED_DEVICE_TIMING");
    return s && *s && std::strcmp(s, "0") != 0;
  }();
  const int chosen = timing_switch();
  return chosen >= 0 ? chosen != 0 : from_environment;
}

bool device_switched_off() {
  const char *s = std::getenv("BLAS_BATCHED_DEVICE");
  return s && (!std::strcmp(s, "off") || !std::strcmp(s, "0"));
}

}  // namespace

unsigned long long current_context_id();

// One thread's resources on one device. Freed at thread exit; errors then are ignored
// (the CUDA context may already be gone at process exit).
struct Session::Context {
  cudaStream_t own = nullptr;
  cublasHandle_t blas = nullptr;
  unsigned long long blas_stream = 0;  // the id of the stream blas is bound to (0: none known)
#ifdef BB_HAVE_CUSOLVER
  cusolverDnHandle_t solver = nullptr;
#endif
  struct Slot {
    char *host = nullptr, *device = nullptr;
    std::size_t cap = 0;
    cudaEvent_t copied = nullptr;  // the slot's last upload has left host memory
    bool pending = false;
  } slots[kSlots];
  cudaEvent_t start = nullptr, stop = nullptr;
  int sms = 0;
  unsigned long long context = 0;  // the CUDA context they belong to (a reset makes a new one)
  ~Context() {
    // Handles of a context that a cudaDeviceReset destroyed died with it: freeing them again
    // would crash (cuBLAS does, at thread exit).
    if (context != current_context_id()) return;
    if (blas) cublasDestroy(blas);
#ifdef BB_HAVE_CUSOLVER
    if (solver) cusolverDnDestroy(solver);
#endif
    for (Slot &s : slots) {
      if (s.host) cudaFreeHost(s.host);
      if (s.device) cudaFree(s.device);
      if (s.copied) cudaEventDestroy(s.copied);
    }
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    if (own) cudaStreamDestroy(own);
  }
};

bool available() {
  if (device_switched_off()) return false;  // read every call: no CUDA call at all when off
  static const bool yes = [] {
    int n = 0;
    bool ok = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
    cudaGetLastError();  // a missing driver must not leave a sticky error behind
    return ok;
  }();
  return yes;
}

namespace {
// cuPointerGetAttributes, reached through the runtime: the library does not link the driver
// library itself (a machine without a GPU has none, and must still load the library).
using PointerAttributesFn = int (*)(unsigned, int *, void **, unsigned long long);
PointerAttributesFn pointer_attributes() {
  static const PointerAttributesFn fn = [] {
    void *f = nullptr;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuPointerGetAttributes", &f, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      f = nullptr, cudaGetLastError();
    return reinterpret_cast<PointerAttributesFn>(f);
  }();
  return fn;
}
}  // namespace

// A unique id of the device's current CUDA context (never reused, unlike its handle), or 0.
unsigned long long current_context_id() {
  using GetCurrent = int (*)(void **);
  using GetId = int (*)(void *, unsigned long long *);
  static const auto fns = [] {
    void *a = nullptr, *b = nullptr;
    cudaDriverEntryPointQueryResult q;
    if (cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &a, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      a = nullptr;
    if (cudaGetDriverEntryPointByVersion("cuCtxGetId", &b, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      b = nullptr;
    cudaGetLastError();
    return std::pair<GetCurrent, GetId>{reinterpret_cast<GetCurrent>(a), reinterpret_cast<GetId>(b)};
  }();
  void *ctx = nullptr;
  unsigned long long id = 0;
  if (!fns.first || !fns.second || fns.first(&ctx) != 0 || !ctx || fns.second(ctx, &id) != 0) return 0;
  return id;
}

bool blocking_calls() { return blocking_switch(); }

int current_device() {
  int d = -1;
  if (cudaGetDevice(&d) != cudaSuccess) d = -1, cudaGetLastError();
  return d;
}

void use_device(int device) {
  if (device >= 0 && cudaSetDevice(device) != cudaSuccess) cudaGetLastError();
}

int query_pointer(const void *p, PointerInfo &out, bool range) {
  out = PointerInfo{};
  if (!p) return 0;
  cudaPointerAttributes a;
  const cudaError_t e = cudaPointerGetAttributes(&a, p);
  if (e != cudaSuccess) {
    if (std::getenv("BLAS_BATCHED_DEBUG"))
      std::fprintf(stderr, "blas_batched: cudaPointerGetAttributes(%p): %s\n", p, cudaGetErrorString(e));
    cudaGetLastError();
    // Since CUDA 11 host memory the runtime never saw is reported as unregistered, not as an
    // error: any error means the runtime cannot tell, and guessing "host" could run host code
    // on device memory.
    return BLAS_BATCHED_ERR_DEVICE;
  }
  if (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged) {
    out.device = true;
    out.managed = a.type == cudaMemoryTypeManaged;
    out.ordinal = a.device;
  }
  if (range && a.type != cudaMemoryTypeUnregistered)
    if (PointerAttributesFn f = pointer_attributes()) {
      // CU_POINTER_ATTRIBUTE_RANGE_START_ADDR (11) and _RANGE_SIZE (12): the allocation.
      int attrs[2] = {11, 12};
      std::uintptr_t start = 0;
      std::size_t size = 0;
      void *data[2] = {&start, &size};
      const int r = f(2, attrs, data, reinterpret_cast<unsigned long long>(p));
      if (r == 0 && start && size) out.lo = start, out.hi = start + size;
      else if (std::getenv("BLAS_BATCHED_DEBUG"))
        std::fprintf(stderr, "blas_batched: no allocation range for %p (driver status %d)\n", p, r);
    }
  return 0;
}

Session::Session(int ordinal) : ordinal_(ordinal) {
  thread_local std::vector<std::unique_ptr<Context>> contexts;
  if (cudaGetDevice(&previous_device_) != cudaSuccess) previous_device_ = -1, cudaGetLastError();
  if (CHECK(cudaSetDevice(ordinal))) return;
  if (contexts.size() <= std::size_t(ordinal)) contexts.resize(ordinal + 1);
  // A context whose stream the runtime no longer knows (a cudaDeviceReset since) is rebuilt;
  // its handles and memory died with the reset, so it is dropped without freeing them.
  const unsigned long long context = current_context_id();
  if (contexts[ordinal] && contexts[ordinal]->context != context) (void)contexts[ordinal].release();
  if (!contexts[ordinal]) {
    auto c = std::make_unique<Context>();
    c->context = context;
    // A blocking stream: work the caller queued on the legacy default stream before a call
    // (kernels, copies, the DMA a pageable cudaMemcpy leaves behind) runs before the call's,
    // as with cuBLAS's default stream. A non-blocking one would read inputs still in flight.
    if (CHECK(cudaStreamCreateWithFlags(&c->own, cudaStreamDefault))) return;
    if (CHECK(cudaDeviceGetAttribute(&c->sms, cudaDevAttrMultiProcessorCount, ordinal))) return;
    for (auto &s : c->slots)
      if (CHECK(cudaEventCreateWithFlags(&s.copied, cudaEventDisableTiming))) return;
    contexts[ordinal] = std::move(c);
  }
  ctx_ = contexts[ordinal].get();
  // The caller's stream serves the device it belongs to; other devices use their own stream.
  // Fixed for the call: the caller's choice is per thread, and helpers may enqueue.
  const UserStream &u = user_stream();
  stream_ = u.stream && u.device == ordinal ? static_cast<void *>(u.stream) : static_cast<void *>(ctx_->own);
  timing_ = timing_requested();
  if (timing_) {
    if (!ctx_->start && CHECK(cudaEventCreate(&ctx_->start))) return;
    if (!ctx_->stop && CHECK(cudaEventCreate(&ctx_->stop))) return;
  }
}

int Session::activate() {
  if (status_) return status_;
  return CHECK(cudaSetDevice(ordinal_));
}

void Session::started() {
  if (started_ || status_) return;
  started_ = true;
  if (timing_) CHECK(cudaEventRecord(ctx_->start, static_cast<cudaStream_t>(stream())));
}

Session::~Session() {
  if (previous_device_ >= 0) cudaSetDevice(previous_device_);
}

void *Session::stream() const { return stream_; }

int Session::sm_count() const { return ctx_ ? ctx_->sms : 1; }

int64_t Session::loop_block_cap() const {
  static const int forced = tuning_env("BLAS_BATCHED_GRID_BLOCKS");
  return forced ? forced : int64_t(sm_count()) * 2048;
}

int Session::check(int e) { return check_at(e, 0); }

int Session::check_at(int e, int line) {
  if (e != cudaSuccess) {
    if (std::getenv("BLAS_BATCHED_DEBUG"))
      std::fprintf(stderr, "blas_batched: CUDA error %s (session.cpp:%d)\n", cudaGetErrorString(cudaError_t(e)), line);
    cudaGetLastError();  // clear non-sticky errors so later calls can run
    fail(status_of(cudaError_t(e)));
  }
  return status_;
}

// Non-sticky errors that others left in the runtime's last-error slot must not be taken for
// ours; a sticky error comes back from the launch itself.
void Session::clear_stale_error() { cudaGetLastError(); }

int Session::check_launch() { return CHECK(cudaGetLastError()); }

int Session::slot_wait(int i) {
  if (status_ || !ctx_) return status_ ? status_ : fail(BLAS_BATCHED_ERR_DEVICE);
  Context::Slot &s = ctx_->slots[i];
  if (s.pending) {  // the host side is free once its last copy is done
    if (CHECK(cudaEventSynchronize(s.copied))) return status_;
    s.pending = false;
  }
  return 0;
}

int Session::slot_release(int i) {
  if (status_) return status_;
  Context::Slot &s = ctx_->slots[i];
  if (CHECK(cudaEventRecord(s.copied, static_cast<cudaStream_t>(stream())))) return status_;
  s.pending = true;
  return 0;
}

char *Session::slot_host(int i, std::size_t bytes) {
  if (slot_wait(i)) return nullptr;
  Context::Slot &s = ctx_->slots[i];
  if (bytes > s.cap) {
    // Growing happens during warm-up only. cudaFree waits for the device, so no kernel still
    // reads the old device twin.
    std::size_t want = std::max<std::size_t>({bytes, 2 * s.cap, std::size_t(1) << 20});
    if (s.host) cudaFreeHost(s.host);
    if (s.device) cudaFree(s.device);
    s.host = s.device = nullptr, s.cap = 0;
    if (CHECK(cudaHostAlloc(reinterpret_cast<void **>(&s.host), want, cudaHostAllocDefault))) return nullptr;
    if (CHECK(cudaMalloc(reinterpret_cast<void **>(&s.device), want))) return nullptr;
    s.cap = want;
  }
  return s.host;
}

char *Session::slot_device(int i) const { return ctx_ ? ctx_->slots[i].device : nullptr; }

int Session::slot_upload(int i, std::size_t bytes) {
  if (status_ || !bytes) return status_;
  Context::Slot &s = ctx_->slots[i];
  started();
  const auto st = static_cast<cudaStream_t>(stream());
  if (CHECK(cudaMemcpyAsync(s.device, s.host, bytes, cudaMemcpyHostToDevice, st))) return status_;
  if (CHECK(cudaEventRecord(s.copied, st))) return status_;
  s.pending = true;
  return 0;
}

int Session::download(void *host, const void *device, std::size_t bytes) {
  if (status_ || !bytes) return status_;
  started();
  return CHECK(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost,
                               static_cast<cudaStream_t>(stream())));
}


int Session::upload(void *device, const void *host, std::size_t bytes) {
  if (status_ || !bytes) return status_;
  started();
  return CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, static_cast<cudaStream_t>(stream())));
}

void *Session::workspace_pool() {
  static std::mutex guard;
  static std::map<int, cudaMemPool_t> pools;
  std::lock_guard<std::mutex> lock(guard);
  if (auto it = pools.find(ordinal_); it != pools.end()) return it->second;
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = ordinal_;
  cudaMemPool_t pool = nullptr;
  if (cudaMemPoolCreate(&pool, &props) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  uint64_t keep = kWorkspaceKept;
  cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
  return pools[ordinal_] = pool;
}

void *Session::pool_alloc(std::size_t bytes) {
  const auto pool = static_cast<cudaMemPool_t>(workspace_pool());
  void *p = nullptr;
  if (status_ || !pool || !bytes) return nullptr;
  started();
  if (cudaMallocFromPoolAsync(&p, bytes, pool, static_cast<cudaStream_t>(stream())) != cudaSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return p;
}

void Session::pool_free(void *p) {
  if (!p) return;
  // A failed call of several devices may leave another device current; the stream is this one's.
  if (cudaSetDevice(ordinal_) != cudaSuccess || cudaFreeAsync(p, static_cast<cudaStream_t>(stream())) != cudaSuccess)
    cudaGetLastError();
}

bool Session::capturing() {
  cudaStreamCaptureStatus c = cudaStreamCaptureStatusNone;
  if (status_ || CHECK(cudaStreamIsCapturing(static_cast<cudaStream_t>(stream()), &c))) return false;
  return c != cudaStreamCaptureStatusNone;
}

int Session::upload_matrix(void *device, const void *host, std::size_t pitch, std::size_t width,
                           std::size_t rows) {
  if (status_ || !width || !rows) return status_;
  started();
  return CHECK(cudaMemcpy2DAsync(device, pitch, host, pitch, width, rows, cudaMemcpyHostToDevice,
                                 static_cast<cudaStream_t>(stream())));
}

int Session::sync() {
  if (status_) return status_;
  return CHECK(cudaStreamSynchronize(static_cast<cudaStream_t>(stream())));
}

void *Session::cublas(bool optional) {
  if (status_) return nullptr;
  if (!ctx_->blas) {
    const cublasStatus_t st = cublasCreate(&ctx_->blas);
    if (st != CUBLAS_STATUS_SUCCESS) {
      ctx_->blas = nullptr;
      cudaGetLastError();  // what cuBLAS provoked is its status's, not the next launch's
      if (!optional) fail(st == CUBLAS_STATUS_ALLOC_FAILED ? BLAS_BATCHED_ERR_DEVICE_ALLOC : BLAS_BATCHED_ERR_DEVICE);
      return nullptr;
    }
  }
  // Bound again only when the stream changes, by its id (a stream made after another was
  // destroyed may have its address): cublasSetStream also resets the handle's workspace, a
  // cost paid before every cuBLAS call otherwise.
  const auto stream_now = static_cast<cudaStream_t>(stream());
  unsigned long long id = 0;
  if (cudaStreamGetId(stream_now, &id) != cudaSuccess) id = 0, cudaGetLastError();
  if (id == 0 || ctx_->blas_stream != id) {
    ctx_->blas_stream = 0;
    if (cublasSetStream(ctx_->blas, stream_now) != CUBLAS_STATUS_SUCCESS) {
      fail(BLAS_BATCHED_ERR_DEVICE);
      return nullptr;
    }
    ctx_->blas_stream = id;
  }
  return ctx_->blas;
}

void *Session::cusolver(bool optional) {
#ifdef BB_HAVE_CUSOLVER
  if (status_) return nullptr;
  if (!ctx_->solver) {
    const cusolverStatus_t st = cusolverDnCreate(&ctx_->solver);
    if (st != CUSOLVER_STATUS_SUCCESS) {
      ctx_->solver = nullptr;
      cudaGetLastError();
      if (!optional) fail(st == CUSOLVER_STATUS_ALLOC_FAILED ? BLAS_BATCHED_ERR_DEVICE_ALLOC : BLAS_BATCHED_ERR_DEVICE);
      return nullptr;
    }
  }
  if (cusolverDnSetStream(ctx_->solver, static_cast<cudaStream_t>(stream())) != CUSOLVER_STATUS_SUCCESS) {
    fail(BLAS_BATCHED_ERR_DEVICE);
    return nullptr;
  }
  return ctx_->solver;
#else
  return nullptr;
#endif
}

int Session::finish(double &device_ms, bool wait) {
  device_ms = -1;
  if (!ctx_) return status_;
  cudaStream_t s = static_cast<cudaStream_t>(stream());
  // Non-blocking: the slots stay guarded by their events. After a failure the call waits all
  // the same: the caller may free what earlier chunks still use.
  if (!wait && !status_) return status_;
  if (timing_ && started_ && !status_) CHECK(cudaEventRecord(ctx_->stop, s));
  // Always wait, also after a failure: nothing may still run on user data once we return.
  CHECK(cudaStreamSynchronize(s));
  if (timing_ && started_ && !status_) {
    float ms = 0;
    if (!CHECK(cudaEventElapsedTime(&ms, ctx_->start, ctx_->stop))) device_ms = ms;
  }
  for (auto &slot : ctx_->slots) slot.pending = false;  // the stream is drained
  return status_;
}

}  // namespace bb::cuda

extern "C" __attribute__((visibility("default"))) int blas_batched_set_cuda_stream(void *stream) {
  bb::cuda::UserStream &u = bb::cuda::user_stream();
  u.stream = static_cast<cudaStream_t>(stream);
  u.device = -1;
  if (stream && cudaStreamGetDevice(u.stream, &u.device) != cudaSuccess) {
    cudaGetLastError();
    u.stream = nullptr;
    return BLAS_BATCHED_ERR_DEVICE;
  }
  return 0;
}

extern "C" __attribute__((visibility("default"))) int blas_batched_set_blocking(int blocking) {
  bb::cuda::blocking_switch() = blocking != 0;
  return 0;
}

extern "C" __attribute__((visibility("default"))) int blas_batched_set_device_timing(int on) {
  bb::cuda::timing_switch() = on < 0 ? -1 : on != 0;
  return 0;
}
