// Compiled by every C++ compiler the test command finds (g++, clang++; C++17, -pedantic-errors):
// the public header in C++, with the documented sizes, and enum values outside the
// enumerators representable (the enums have int as their fixed underlying type).
#include <blas_batched/blas_batched.h>

#include <climits>
#include <type_traits>

static_assert(sizeof(blas_r16_t) == 2 && sizeof(blas_c16_t) == 4, "half types");
static_assert(sizeof(blas_c32_t) == 8 && sizeof(blas_c64_t) == 16, "complex types");
static_assert(sizeof(blas_r128_t) == 16 && sizeof(blas_c128_t) == 32, "quad types");
static_assert(alignof(blas_r128_t) == 16, "quad alignment");
static_assert(std::is_same_v<std::underlying_type_t<BLAS_Op>, int>, "fixed underlying type");

int main() {
  blas_c64_t *A = nullptr;
  int n = 1, count = 0;
  // An invalid layout must come back as argument 1, never as undefined behaviour.
  const int rc = BLAS_getrf_batched_c64(static_cast<BLAS_Layout>(INT_MAX), &n, &n, &A, &n, nullptr, 1, &count, nullptr);
  return rc == -1 ? 0 : 1;
}
