// Compiled by nvcc at build time: the public header must be usable from CUDA sources, with
// element types of the documented sizes.
#include <blas_batched/blas_batched.h>

static_assert(sizeof(blas_r16_t) == 2 && sizeof(blas_c16_t) == 4, "half types");
static_assert(sizeof(blas_c32_t) == 8 && sizeof(blas_c64_t) == 16, "complex types");
static_assert(sizeof(blas_r128_t) == 16 && sizeof(blas_c128_t) == 32, "quad types");
static_assert(alignof(blas_r128_t) == 16, "quad alignment");

__global__ void header_check_kernel(int *out) { *out = BLAS_ColMajor; }

int header_check_host(void) {
  return BLAS_gemm_batched_r64 != nullptr && BLAS_potrf_batched_c128 != nullptr;
}
