/* Compiled by every C compiler the test command finds (gcc, clang; C11, -pedantic-errors):
 * the public header must be usable from plain C, with element types of the documented sizes
 * whether or not the compiler has _Float16 and _Float128. */
#include <blas_batched/blas_batched.h>

_Static_assert(sizeof(blas_r16_t) == 2 && sizeof(blas_c16_t) == 4, "half types");
_Static_assert(sizeof(blas_r32_t) == 4 && sizeof(blas_c32_t) == 8, "single types");
_Static_assert(sizeof(blas_r64_t) == 8 && sizeof(blas_c64_t) == 16, "double types");
_Static_assert(sizeof(blas_r128_t) == 16 && sizeof(blas_c128_t) == 32, "quad types");
_Static_assert(_Alignof(blas_r128_t) == 16, "quad alignment");
_Static_assert(sizeof(BLAS_Layout) == sizeof(int) && sizeof(BLAS_Op) == sizeof(int), "enum size");

int main(void) {
  blas_r16_t *h = 0;
  blas_c128_t *q = 0;
  int n = 0, count = 0;
  /* Nothing to do (group_count 0): only that every precision's symbols link. */
  return BLAS_potrf_batched_r16(BLAS_ColMajor, 0, &n, &h, &n, 0, &count, 0) |
         BLAS_geqrf_batched_c128(BLAS_RowMajor, &n, &n, &q, &n, &q, 0, &count, 0);
}
