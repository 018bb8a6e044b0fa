#include "device.hpp"

#include <blas_batched/blas_batched.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

namespace bb::cuda {

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

bool timing_requested() {
  static const bool on = [] {
    const char *s = std::getenv("BLAS_BATCHED_DEVICE_TIMING");
    return s && *s && std::strcmp(s, "0") != 0;
  }();
  return on;
}

}  // namespace

// One thread's resources on one device. Freed at thread exit; errors then are ignored
// (the CUDA context may already be gone at process exit).
struct Session::Context {
  cudaStream_t own = nullptr;
  cublasHandle_t blas = nullptr;
  char *pinned = nullptr;
  std::size_t pinned_cap = 0;
  char *dev = nullptr;
  std::size_t dev_cap = 0;
  cudaEvent_t start = nullptr, stop = nullptr;
  int sms = 0;
  ~Context() {
    if (blas) cublasDestroy(blas);
    if (pinned) cudaFreeHost(pinned);
    if (dev) cudaFree(dev);
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    if (own) cudaStreamDestroy(own);
  }
};

bool available() {
  static const bool yes = [] {
    int n = 0;
    bool ok = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
    cudaGetLastError();  // a missing driver must not leave a sticky error behind
    return ok;
  }();
  return yes;
}

Residency residency(const void *p) {
  Residency r;
  if (!p || !available()) return r;
  cudaPointerAttributes a;
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError();
    return r;
  }
  if (a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged) {
    r.device = true;
    r.ordinal = a.device;
  }
  return r;
}

Session::Session(int ordinal) : ordinal_(ordinal) {
  thread_local std::vector<std::unique_ptr<Context>> contexts;
  if (cudaGetDevice(&previous_device_) != cudaSuccess) previous_device_ = -1;
  if (check(cudaSetDevice(ordinal))) return;
  if (contexts.size() <= std::size_t(ordinal)) contexts.resize(ordinal + 1);
  if (!contexts[ordinal]) {
    auto c = std::make_unique<Context>();
    if (check(cudaStreamCreateWithFlags(&c->own, cudaStreamNonBlocking))) return;
    if (check(cudaDeviceGetAttribute(&c->sms, cudaDevAttrMultiProcessorCount, ordinal))) return;
    contexts[ordinal] = std::move(c);
  }
  ctx_ = contexts[ordinal].get();
  timing_ = timing_requested();
  if (timing_) {
    if (!ctx_->start && check(cudaEventCreate(&ctx_->start))) return;
    if (!ctx_->stop && check(cudaEventCreate(&ctx_->stop))) return;
  }
}

void Session::started() {
  if (started_ || status_) return;
  started_ = true;
  if (timing_) check(cudaEventRecord(ctx_->start, static_cast<cudaStream_t>(stream())));
}

Session::~Session() {
  if (previous_device_ >= 0) cudaSetDevice(previous_device_);
}

// The caller's stream serves the device it belongs to; other devices use their own stream.
void *Session::stream() const {
  const UserStream &u = user_stream();
  if (u.stream && u.device == ordinal_) return u.stream;
  return ctx_ ? ctx_->own : nullptr;
}

int Session::sm_count() const { return ctx_ ? ctx_->sms : 1; }

int Session::check(int e) {
  if (e != cudaSuccess) {
    if (std::getenv("BLAS_BATCHED_DEBUG"))
      std::fprintf(stderr, "blas_batched: CUDA error %s\n", cudaGetErrorString(cudaError_t(e)));
    cudaGetLastError();  // clear non-sticky errors so later calls can run
    fail(status_of(cudaError_t(e)));
  }
  return status_;
}

// Non-sticky errors that others left in the runtime's last-error slot must not be taken for
// ours; a sticky error comes back from the launch itself.
void Session::clear_stale_error() { cudaGetLastError(); }

int Session::check_launch() { return check(cudaGetLastError()); }

// Buffers only grow (doubling), so a run of calls settles on one allocation. The old contents
// need not survive: every call ends with finish(), so no copy or kernel still uses them.
template <class Alloc, class Free>
char *Session::grow(char *&buf, std::size_t &cap, std::size_t bytes, Alloc alloc, Free release) {
  if (status_) return nullptr;
  if (bytes > cap) {
    std::size_t want = bytes < 2 * cap ? 2 * cap : bytes;
    want = want < (1u << 16) ? (1u << 16) : want;
    if (buf) release(buf);
    buf = nullptr, cap = 0;
    if (check(alloc(reinterpret_cast<void **>(&buf), want))) return nullptr;
    cap = want;
  }
  return buf;
}

char *Session::staging(std::size_t bytes) {
  if (!ctx_) return nullptr;
  return grow(ctx_->pinned, ctx_->pinned_cap, bytes,
              [](void **p, std::size_t n) { return int(cudaHostAlloc(p, n, cudaHostAllocDefault)); },
              [](char *p) { cudaFreeHost(p); });
}

char *Session::device_buffer(std::size_t bytes) {
  if (!ctx_) return nullptr;
  return grow(ctx_->dev, ctx_->dev_cap, bytes,
              [](void **p, std::size_t n) { return int(cudaMalloc(p, n)); },
              [](char *p) { cudaFree(p); });
}

int Session::upload(std::size_t bytes) {
  if (status_ || !bytes) return status_;
  started();
  return check(cudaMemcpyAsync(ctx_->dev, ctx_->pinned, bytes, cudaMemcpyHostToDevice,
                               static_cast<cudaStream_t>(stream())));
}

int Session::download(void *host, const void *device, std::size_t bytes) {
  if (status_ || !bytes) return status_;
  started();
  return check(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost,
                               static_cast<cudaStream_t>(stream())));
}

int Session::upload_matrix(void *device, const void *host, std::size_t pitch, std::size_t width,
                           std::size_t rows) {
  if (status_ || !width || !rows) return status_;
  started();
  return check(cudaMemcpy2DAsync(device, pitch, host, pitch, width, rows, cudaMemcpyHostToDevice,
                                 static_cast<cudaStream_t>(stream())));
}

int Session::sync() {
  if (status_) return status_;
  return check(cudaStreamSynchronize(static_cast<cudaStream_t>(stream())));
}

void *Session::cublas() {
  if (status_) return nullptr;
  if (!ctx_->blas) {
    if (cublasCreate(&ctx_->blas) != CUBLAS_STATUS_SUCCESS) {
      fail(BLAS_BATCHED_ERR_DEVICE);
      return nullptr;
    }
  }
  if (cublasSetStream(ctx_->blas, static_cast<cudaStream_t>(stream())) != CUBLAS_STATUS_SUCCESS) {
    fail(BLAS_BATCHED_ERR_DEVICE);
    return nullptr;
  }
  return ctx_->blas;
}

int Session::finish(double &device_ms) {
  device_ms = -1;
  if (!ctx_) return status_;
  cudaStream_t s = static_cast<cudaStream_t>(stream());
  if (timing_ && started_ && !status_) check(cudaEventRecord(ctx_->stop, s));
  // Always wait, also after a failure: nothing may still run on user data once we return.
  check(cudaStreamSynchronize(s));
  if (timing_ && started_ && !status_) {
    float ms = 0;
    if (!check(cudaEventElapsedTime(&ms, ctx_->start, ctx_->stop))) device_ms = ms;
  }
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
