// Row-major problems as column-major ones, in one place for every backend (host kernels,
// OpenBLAS, the device). A row-major matrix read column-major is its transpose, so:
//  - gemm: row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap A and B (with
//    their ops and leading dimensions) and m and n;
//  - trsm/trmm: B^T is column-major, the equation transposes: the side and the stored
//    triangle swap, m and n swap;
//  - potrf: A^T = conj(A) for Hermitian A, and its L L^H factor is U^H U of A: the triangle swaps.
// getrf, getri and geqrf have no such identity (LU and QR of A^T are other factorizations):
// their row-major problems are copied (host) or addressed by layout (device).
#pragma once
#include <blas_batched/blas_batched.h>

namespace bb {

struct GemmColumnMajor {
  bool swap_ab;  // the column-major problem's A is the caller's B, and the other way round
  int m, n;
  BLAS_Op ta, tb;
};
inline GemmColumnMajor column_major_gemm(BLAS_Layout layout, BLAS_Op ta, BLAS_Op tb, int m, int n) {
  if (layout == BLAS_ColMajor) return {false, m, n, ta, tb};
  return {true, n, m, tb, ta};
}

struct TriangularColumnMajor {
  BLAS_Side side;
  BLAS_Uplo uplo;
  int m, n;
};
inline TriangularColumnMajor column_major_triangular(BLAS_Layout layout, BLAS_Side side, BLAS_Uplo uplo, int m,
                                                     int n) {
  if (layout == BLAS_ColMajor) return {side, uplo, m, n};
  return {side == BLAS_Left ? BLAS_Right : BLAS_Left, uplo == BLAS_Upper ? BLAS_Lower : BLAS_Upper, n, m};
}

inline BLAS_Uplo column_major_potrf_uplo(BLAS_Layout layout, BLAS_Uplo uplo) {
  if (layout == BLAS_ColMajor) return uplo;
  return uplo == BLAS_Upper ? BLAS_Lower : BLAS_Upper;
}

}  // namespace bb
