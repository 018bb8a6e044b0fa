// A build without CUDA: every pointer is host memory, so no device path is ever taken.
#include <blas_batched/blas_batched.h>

#include "gemm/gemm.hpp"
#include "chol/chol.hpp"
#include "lu/lu.hpp"
#include "qr/qr.hpp"
#include "tri/tri.hpp"
#include "vendor/vendor.hpp"
#include "info/info_channel.hpp"
#include "session.hpp"

namespace bb::cuda {

bool available() { return false; }
int query_pointer(const void *, PointerInfo &out, bool) {
  out = PointerInfo{};
  return 0;
}

int current_device() { return -1; }
bool blocking_calls() { return true; }
void use_device(int) {}

Session::Session(int) { status_ = BLAS_BATCHED_ERR_UNSUPPORTED; }
Session::~Session() = default;
char *Session::slot_host(int, std::size_t) { return nullptr; }
char *Session::slot_device(int) const { return nullptr; }
int Session::slot_upload(int, std::size_t) { return status_; }
int Session::slot_wait(int) { return status_; }
int Session::slot_release(int) { return status_; }
int info_clear(Session &s, int *, int64_t, void *) { return s.status(); }
int info_collect(Session &s, const int *, int64_t, void *, void *, int64_t, int64_t) { return s.status(); }
int info_fill(Session &s, int *, int64_t, int) { return s.status(); }
int info_count(Session &s, const int *, int64_t, uint64_t *, uint64_t *) { return s.status(); }
int check_pointers(Session &s, const PointerCheckRun *, const PointerCheckRun *, int, int64_t, int *, int *, bool) {
  return s.status();
}
int Session::download(void *, const void *, std::size_t) { return status_; }
int Session::upload(void *, const void *, std::size_t) { return status_; }
bool Session::capturing() { return false; }
void *Session::workspace_pool() { return nullptr; }
void *Session::pool_alloc(std::size_t) { return nullptr; }
void Session::pool_free(void *) {}
int Session::upload_matrix(void *, const void *, std::size_t, std::size_t, std::size_t) { return status_; }
int Session::sync() { return status_; }
int Session::activate() { return status_; }
void Session::started() {}
void *Session::stream() const { return nullptr; }
void *Session::cublas(bool) { return nullptr; }
void *Session::cusolver(bool) { return nullptr; }
int Session::sm_count() const { return 0; }
int64_t Session::loop_block_cap() const { return 0; }
int Session::check(int) { return status_; }
int Session::check_at(int, int) { return status_; }
void Session::clear_stale_error() {}
int Session::check_launch() { return status_; }
int Session::finish(double &ms, bool) {
  ms = -1;
  return status_;
}

GemmShapeInfo gemm_shape(DevPrec, int) { return {}; }
int gemm_config(DevPrec, int, int, int, int64_t, bool) { return 0; }
bool gemm_has_vendor(DevPrec) { return false; }
void gemm_read_overrides() {}
bool gemm_flat_ok(const GemmSeg &, int, int, bool) { return false; }
bool gemm_vendor_ok(DevPrec, const GemmSeg &) { return false; }
int gemm_kernel_config(DevPrec, const GemmSeg &, bool) { return 0; }
int64_t gemm_units(const GemmSeg &, const GemmShapeInfo &) { return 0; }
int gemm_launch(Session &s, DevPrec, int, const GemmSeg *, const GemmSeg *, const int32_t *, int, int64_t) { return s.status(); }
int gemm_launch_merged(Session &s, DevPrec, GemmLaunchPart *, int) { return s.status(); }
int gemm_vendor(Session &s, DevPrec, const GemmSeg &) { return s.status(); }
int gemm(Session &s, DevPrec, GemmSeg *, const bool *, int, bool) { return s.status(); }
int64_t lu_units(const FactorRun &, int) { return 0; }
int lu_units_per_block(DevPrec, LuRoutine, int) { return 1; }
int lu_config(DevPrec, LuRoutine, int, int) { return 0; }
bool lu_supported(LuRoutine, int) { return true; }
bool lu_blocked(DevPrec, int, int) { return false; }
bool lu_getri_native_vendor(DevPrec, int) { return false; }
bool lu_getri_blocked(DevPrec, int) { return false; }
int getri_blocked(Session &s, DevPrec, const FactorRun &, bool) { return s.status(); }
bool lu_getrf_native_solver(DevPrec, int, int64_t) { return false; }
int getrf_blocked(Session &s, DevPrec, const FactorRun &, bool) { return s.status(); }
int getrf_getri_blocked(Session &s, DevPrec, const FactorRun &, bool) { return s.status(); }
int getrf_unblocked(Session &s, DevPrec, const FactorRun &) { return s.status(); }
bool lu_one_pass(DevPrec, int) { return false; }
int lu_launch(Session &s, DevPrec, LuRoutine, int, const FactorRun *, const FactorRun *, const int32_t *, int, int64_t,
              uint32_t) {
  return s.status();
}
int chol_config(DevPrec, int) { return 0; }
int64_t chol_units(const FactorRun &, int) { return 0; }
int chol_units_per_block(int) { return 1; }
bool chol_blocked(DevPrec, int) { return false; }
bool chol_native_vendor(DevPrec, int, int64_t) { return false; }
bool chol_native_solver(DevPrec, int, int64_t, bool) { return false; }
int potrf_blocked(Session &s, DevPrec, const FactorRun &, bool) { return s.status(); }
int chol_launch(Session &s, DevPrec, int, const FactorRun *, const FactorRun *, const int32_t *, int, int64_t) {
  return s.status();
}
int qr_config(DevPrec, int, int) { return 0; }
bool qr_blocked(DevPrec, int, int) { return false; }
int geqrf_blocked(Session &s, DevPrec, const FactorRun &, bool, int64_t) { return s.status(); }
int64_t qr_units(const FactorRun &, int) { return 0; }
int qr_units_per_block(int) { return 1; }
int qr_launch(Session &s, DevPrec, int, const FactorRun *, const FactorRun *, const int32_t *, int, int64_t) {
  return s.status();
}

int tri_config(int) { return 0; }
int64_t tri_units(const TriRun &, int) { return 0; }
int tri_units_per_block(DevPrec, int) { return 1; }
int tri_launch(Session &s, DevPrec, int, const TriRun *, const TriRun *, const int32_t *, int, int64_t) {
  return s.status();
}
int tri_recursive(Session &s, DevPrec, const TriRun &, bool, bool) { return s.status(); }
bool factor_vendor_ok(VendorFactor, DevPrec, const FactorRun &) { return false; }
bool trsm_vendor_ok(DevPrec, const TriRun &) { return false; }
int factor_vendor(Session &s, DevPrec, VendorFactor, const FactorRun &) { return s.status(); }
int getrf_solver(Session &s, DevPrec, const FactorRun &) { return s.status(); }
int potrf_solver(Session &s, DevPrec, const FactorRun &) { return s.status(); }
int trsm_vendor(Session &s, DevPrec, const TriRun &) { return s.status(); }

}  // namespace bb::cuda

extern "C" __attribute__((visibility("default"))) int blas_batched_set_cuda_stream(void *) {
  return BLAS_BATCHED_ERR_UNSUPPORTED;
}

extern "C" __attribute__((visibility("default"))) int blas_batched_set_blocking(int) {
  return BLAS_BATCHED_ERR_UNSUPPORTED;
}

extern "C" __attribute__((visibility("default"))) int blas_batched_set_device_timing(int) {
  return BLAS_BATCHED_ERR_UNSUPPORTED;
}
