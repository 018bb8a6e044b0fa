// Batched gemm on device-resident groups: the interface between dispatch (plain C++) and the
// CUDA code. Groups arrive column-major (row-major ones are transposed by the caller).
#pragma once
#include "../device.hpp"

#include <cstdint>

namespace bb::cuda {

enum class DevPrec { r16, c16, r32, c32, r64, c64 };

constexpr int kConfigVendor = -1;  // the group goes to cuBLAS
constexpr int kConfigCount = 18;  // 14..17: exact-shape flat kernels, chosen at plan time    // kernel shapes, kGemmShapes in gemm_kernel.cuh

struct GemmGroup {
  int64_t problems;
  int m, n, k, lda, ldb, ldc;
  int ta, tb;  // 0 N, 1 T, 2 C
  double alpha[2], beta[2];
  bool alpha_zero, beta_zero;
  // Matrix p of the group is at A + p * sA elements (strided), or, when Ap is set, Ap[p]
  // (a host pointer array, already offset to the group's first problem).
  const void *A, *B;
  void *C;
  int64_t sA, sB, sC;
  const void *const *Ap, *const *Bp;
  void *const *Cp;
  bool align16;  // every matrix address (and stride) is a multiple of 16 bytes
  int config;    // from gemm_config(), or kConfigVendor
};

// The tuned choice for one group (table in gemm_tuning.inc; BLAS_BATCHED_GEMM_CONFIG forces
// one, for the tuning sweep). Precisions without a cuBLAS routine never get kConfigVendor.
int gemm_config(DevPrec p, int m, int n, int k, bool vendor_backend);
bool gemm_has_vendor(DevPrec p);

// Enqueues all groups on the session's stream: pointer arrays in one upload, one kernel
// launch per configuration in use, cuBLAS per vendor group. Returns a status.
int gemm(Session &s, DevPrec p, const GemmGroup *groups, int count);

}  // namespace bb::cuda
