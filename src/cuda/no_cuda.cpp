// A build without CUDA: every pointer is host memory, so no device path is ever taken.
#include <blas_batched/blas_batched.h>

#include "device.hpp"
#include "gemm/gemm.hpp"

namespace bb::cuda {

bool available() { return false; }
Residency residency(const void *) { return {}; }

Session::Session(int) { status_ = BLAS_BATCHED_ERR_UNSUPPORTED; }
Session::~Session() = default;
char *Session::staging(std::size_t) { return nullptr; }
char *Session::device_buffer(std::size_t) { return nullptr; }
int Session::upload(std::size_t) { return status_; }
void Session::started() {}
int Session::download(void *, const void *, std::size_t) { return status_; }
int Session::upload_matrix(void *, const void *, std::size_t, std::size_t, std::size_t) { return status_; }
int Session::sync() { return status_; }
void *Session::stream() const { return nullptr; }
void *Session::cublas() { return nullptr; }
int Session::sm_count() const { return 0; }
int Session::check(int) { return status_; }
void Session::clear_stale_error() {}
int Session::check_launch() { return status_; }
int Session::finish(double &ms) {
  ms = -1;
  return status_;
}

int gemm_config(DevPrec, int, int, int, bool) { return 0; }
bool gemm_has_vendor(DevPrec) { return false; }
int gemm(Session &s, DevPrec, const GemmGroup *, int) { return s.status(); }

}  // namespace bb::cuda

extern "C" __attribute__((visibility("default"))) int blas_batched_set_cuda_stream(void *) {
  return BLAS_BATCHED_ERR_UNSUPPORTED;
}
