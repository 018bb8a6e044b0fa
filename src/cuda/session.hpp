// The CUDA runtime as the device layer sees it: whether there is a GPU, what a pointer is, and
// the device work of one call on one device (stream, staging, errors, timing). Plain
// C++: no CUDA header leaks into the layers above, and a build without CUDA links the stubs
// in no_cuda.cpp.
#pragma once
#include <cstddef>
#include <cstdint>

namespace bb::cuda {

// False when the build has no CUDA, the process sees no GPU, or BLAS_BATCHED_DEVICE=off is set
// (then the library never touches the CUDA runtime: no context is created).
bool available();

// What the runtime says about one address. 0, or BLAS_BATCHED_ERR_DEVICE when it cannot say
// (never a guess: host code must not run on device memory).
struct PointerInfo {
  bool device = false;  // device or managed memory; host, pinned and registered memory are host
  bool managed = false; // managed: the host may read and write it too
  int ordinal = -1;
  std::uintptr_t lo = 0, hi = 0;  // the allocation holding it, where CUDA knows one (else 0, 0)
};
// range = false: no allocation range (one driver call less), lo = hi = 0.
int query_pointer(const void *p, PointerInfo &out, bool range = true);
// The calling thread's switch (blas_batched_set_blocking): false lets eligible calls return
// without waiting for their stream (SPEC.md section 9.3).
bool blocking_calls();
// The calling thread's current device (-1 if none), and making `device` current on this thread.
int current_device();
void use_device(int device);

// The device work of one call on one device. Stream, staging buffers and cuBLAS handle
// persist per thread and device, so after warm-up a call allocates nothing from the driver
// (numerical codes and the cores' workspace come from the library's pool). Every int is 0 or
// a BLAS_BATCHED_ERR_* code; the first failure sticks (status()).
// Bump allocation inside a slot: offsets, aligned, in the order areas are taken.
struct ArenaLayout {
  std::size_t bytes = 0;
  std::size_t take(std::size_t n, std::size_t align = 16) {
    bytes = (bytes + align - 1) / align * align;
    const std::size_t at = bytes;
    bytes += n;
    return at;
  }
};

class Session {
 public:
  explicit Session(int ordinal);
  ~Session();  // restores the caller's current device
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  // ---- staging: two pinned slots with device twins, for uploads pipelined chunk by chunk.
  // slot_host(s, n) waits until the slot's previous upload has left host memory, then returns
  // at least n bytes to fill; slot_upload(s, n) copies the first n bytes to slot_device(s) on
  // the stream. Work queued later on the stream sees them; the device twin is rewritten only
  // by a later upload on the same stream, after that work. Both bounded by the largest chunk.
  // A slot is the per-call arena of one chunk: the driver lays out in it, bump fashion
  // (ArenaLayout), the uploaded pointer block and tables, then device-only areas (info codes)
  // and areas that come back (the info list). slot_wait(s) returns once everything enqueued
  // on the slot's host memory so far is done (its last upload, or its last download that
  // slot_release marked); slot_host waits too.
  static constexpr int kSlots = 2;
  char *slot_host(int s, std::size_t bytes);
  char *slot_device(int s) const;
  int slot_upload(int s, std::size_t bytes);
  int slot_wait(int s);
  int slot_release(int s);  // after enqueuing copies back into the slot's host memory

  // ---- plain copies on the stream (pageable host memory: staging of r128/c128 problems)
  int download(void *host, const void *device, std::size_t bytes);
  int upload(void *device, const void *host, std::size_t bytes);
  int upload_matrix(void *device, const void *host, std::size_t pitch, std::size_t width,
                    std::size_t rows);

  int sync();
  // Makes this session's device current on the calling thread: a call over several devices
  // prepares every session first, then works on each in turn.
  int activate();
  void started();        // before the first operation enqueued: starts the device timer
  void *stream() const;  // cudaStream_t: the thread's own, or the one the caller set
  // cublasHandle_t / cusolverDnHandle_t bound to stream(), made at first use; nullptr on
  // failure (or without cuSOLVER), with the session failed (DEVICE_ALLOC where the library
  // could not allocate its memory) unless `optional`: where the vendor library is only a
  // tuning choice, the caller then runs the library's own kernels.
  void *cublas(bool optional = false);
  void *cusolver(bool optional = false);
  int sm_count() const;
  // Most blocks of a launch_kernel launch (run_table.cuh), whose kernels loop over their units:
  // 2048 per SM, or BLAS_BATCHED_GRID_BLOCKS=<n> (read once per process), with which tests
  // make the loops' later iterations run (about a million problems reach them otherwise).
  int64_t loop_block_cap() const;
  // Blocks of `threads` for a grid-stride loop over `items` (> 0): enough to cover them, at
  // most 8 per SM.
  int64_t grid(int64_t items, int threads) const {
    const int64_t need = (items + threads - 1) / threads, most = int64_t(sm_count()) * 8;
    return need < most ? need : most;
  }
  // Blocks for a loop of one block per item (a problem): enough to cover them, at most 16 per SM.
  int64_t block_grid(int64_t items) const {
    const int64_t most = int64_t(sm_count()) * 16;
    return items < most ? items : most;
  }
  int ordinal() const { return ordinal_; }
  int check(int cuda_error);      // records a CUDA error
  int check_at(int cuda_error, int line);
  void clear_stale_error();       // before a launch: drops errors other code left behind
  int check_launch();             // the launch's error
  // Waits for the stream; device time if timing is on, else -1. wait = false (a non-blocking
  // call): returns at once, device time -1.
  int finish(double &device_ms, bool wait = true);
  bool capturing();  // the stream is being captured into a CUDA graph
  // The library's stream-ordered memory pool on this session's device (cudaMemPool_t; null if
  // none can be made), for workspace of the cores (cudaMallocFromPoolAsync, cudaFreeAsync on
  // the stream). It keeps up to kWorkspaceKept bytes between calls: the default pool would hand
  // everything back to the driver at every synchronisation and the next call allocate again.
  void *workspace_pool();
  static constexpr unsigned long long kWorkspaceKept = 256ull << 20;
  // `bytes` of that pool, ordered on the stream; null when none can be had (the session's
  // status untouched: callers fall back). pool_free gives it back, ordered after the work
  // enqueued so far, with this session's device current whatever the call's state.
  void *pool_alloc(std::size_t bytes);
  void pool_free(void *p);
  int status() const { return status_; }
  int fail(int code) {
    if (!status_) status_ = code;
    return status_;
  }

 private:
  struct Context;
  Context *ctx_ = nullptr;
  void *stream_ = nullptr;
  int ordinal_ = -1, previous_device_ = -1, status_ = 0;
  bool timing_ = false, started_ = false;
};

}  // namespace bb::cuda
