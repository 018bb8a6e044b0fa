// One problem of a batched call, with its group's parameters resolved: what every backend
// (reference, host, cuda) receives. Dimensions are those of the logical matrices; `layout`
// only says how element (i, j) is addressed.
#pragma once
#include "scalar.hpp"

#include <cstddef>
#include <cstdint>

namespace bb {

enum class Routine { gemm, trsm, trmm, getrf, getri, potrf, geqrf };
inline const char *routine_name(Routine r) {
  switch (r) {
    case Routine::gemm: return "gemm";
    case Routine::trsm: return "trsm";
    case Routine::trmm: return "trmm";
    case Routine::getrf: return "getrf";
    case Routine::getri: return "getri";
    case Routine::potrf: return "potrf";
    case Routine::geqrf: return "geqrf";
  }
  return "?";
}

// Element (i, j) of a matrix in user memory, column- or row-major.
template <class T>
struct View {
  T *a;
  int64_t ld;
  bool row_major;
  T &operator()(int64_t i, int64_t j) const { return row_major ? a[i * ld + j] : a[i + j * ld]; }
};
template <class T>
inline View<T> view(T *a, int ld, BLAS_Layout layout) {
  return {a, ld, layout == BLAS_RowMajor};
}

// Elements from the first to the last element of a stored rows x cols matrix.
inline int64_t matrix_extent(BLAS_Layout layout, int rows, int cols, int ld) {
  if (rows <= 0 || cols <= 0) return 0;
  return layout == BLAS_RowMajor ? int64_t(rows - 1) * ld + cols : int64_t(cols - 1) * ld + rows;
}

// Every logical element of a rows x cols matrix is zero or a finite normal number.
template <class T>
bool all_normal(const View<T> &v, int rows, int cols) {
  using R = typename traits<T>::real;
  auto normal = [](R x) { return x == R(0) || (isfinite_all(x) && rabs(x) >= smallest_normal<R>()); };
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) {
      const T x = v(i, j);
      if (!normal(real(x)) || !normal(imag(x))) return false;
    }
  return true;
}

template <class T>
struct GemmProblem {
  BLAS_Layout layout;
  BLAS_Op ta, tb;
  int m, n, k;
  T alpha, beta;
  T *A; int lda;
  T *B; int ldb;
  T *C; int ldc;
};

// trsm and trmm share their arguments; `solve` tells them apart.
template <class T>
struct TriangularProblem {
  BLAS_Layout layout;
  BLAS_Side side;
  BLAS_Uplo uplo;
  BLAS_Op ta;
  BLAS_Diag diag;
  int m, n;
  T alpha;
  T *A; int lda;
  T *B; int ldb;
  bool solve;
  int order() const { return side == BLAS_Left ? m : n; }  // A is order x order
};

template <class T>
struct GetrfProblem {
  BLAS_Layout layout;
  int m, n;
  T *A; int lda;
  int *ipiv;
};

// OpenBLAS's getrf has its own pivot choice with NaN, its own order of operations with Inf,
// and divides by a subnormal pivot through its overflowing reciprocal; a problem holding
// NaN, Inf or subnormal numbers takes the library's own implementation of SPEC.md's rule.
template <class T>
bool lapack_getrf_ok(const GetrfProblem<T> &p) {
  return all_normal(view(p.A, p.lda, p.layout), p.m, p.n);
}

template <class T>
struct GetriProblem {
  BLAS_Layout layout;
  int n;
  T *A; int lda;
  int *ipiv;
  bool factor_first = false;  // getrf on A first, writing ipiv (the inverse in one call)
};

template <class T>
struct PotrfProblem {
  BLAS_Layout layout;
  BLAS_Uplo uplo;
  int n;
  T *A; int lda;
};

template <class T>
struct GeqrfProblem {
  BLAS_Layout layout;
  int m, n;
  T *A; int lda;
  T *tau;
};

}  // namespace bb
