// The CUDA backend as the dispatcher sees it: residency of user pointers and the device work
// of one call (stream, staging buffers, cuBLAS handle, errors). Plain C++: no CUDA header
// leaks into the dispatch layer, and a build without CUDA links the stubs in no_cuda.cpp.
#pragma once
#include <cstddef>
#include <cstdint>

namespace bb::cuda {

// Where a user pointer lives. Managed memory counts as device; pinned host memory as host.
struct Residency {
  bool device = false;
  int ordinal = -1;  // the CUDA device of a device pointer
};

// False when the build has no CUDA or the process sees no GPU (then every pointer is host).
bool available();
Residency residency(const void *p);

// The device work of one call on one device. Buffers, stream and cuBLAS handle persist per
// thread and device, so after warm-up a call allocates nothing. Every int is 0 or a
// BLAS_BATCHED_ERR_* code; the first failure sticks (status()).
class Session {
 public:
  explicit Session(int ordinal);
  ~Session();  // restores the caller's current device
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  // Pinned host memory for pointer arrays and group tables, and its device twin: fill
  // staging() at the offsets you chose, with device addresses taken from device_buffer(),
  // then upload() copies the first `bytes` over in one copy. nullptr on failure.
  char *staging(std::size_t bytes);
  char *device_buffer(std::size_t bytes);
  int upload(std::size_t bytes);
  void started();  // call before the first operation enqueued: starts the device timer
  // Copies on the stream, for staging through host memory (pageable host memory).
  int download(void *host, const void *device, std::size_t bytes);
  int upload_matrix(void *device, const void *host, std::size_t pitch, std::size_t width,
                    std::size_t rows);
  int sync();
  void *stream() const;  // cudaStream_t: the thread's own, or the one the caller set
  void *cublas();        // cublasHandle_t bound to stream(); nullptr on failure
  int sm_count() const;
  int check(int cuda_error);     // records a CUDA error
  void clear_stale_error();      // before a launch: drops errors other code left behind
  int check_launch();            // the launch's error
  int finish(double &device_ms); // waits for the stream; device time if timing is on, else -1
  int status() const { return status_; }
  int fail(int code) {
    if (!status_) status_ = code;
    return status_;
  }

 private:
  template <class Alloc, class Free>
  char *grow(char *&buf, std::size_t &cap, std::size_t bytes, Alloc alloc, Free release);
  struct Context;
  Context *ctx_ = nullptr;
  int ordinal_ = -1, previous_device_ = -1, status_ = 0;
  bool timing_ = false, started_ = false;
};

}  // namespace bb::cuda
