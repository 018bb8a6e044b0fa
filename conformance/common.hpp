// Shared machinery of the conformance suite: typed access to the public entry points,
// random inputs, matrices with poisoned padding, norms in a wide type, and the comparison
// with the reference backend. Every test goes through the public C API only.
#pragma once
#include <blas_batched/blas_batched.h>

#include "../src/common/typed_api.hpp"  // internal element types, traits, typed entry points

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace conf {

using bb::Api;
using bb::complex;
using bb::half;
using bb::quad;
using bb::traits;

// Typed tests take Prec<T>: gtest needs typeid of the parameter, and GCC 12's runtime has
// none for _Float16.
template <class T> struct Prec { using type = T; };
using AllPrecisions = ::testing::Types<Prec<half>, Prec<complex<half>>, Prec<float>, Prec<complex<float>>,
                                       Prec<double>, Prec<complex<double>>, Prec<quad>, Prec<complex<quad>>>;
struct PrecisionNames {
  template <class P> static std::string GetName(int) { return traits<typename P::type>::name(); }
};

template <class T> constexpr bool is_quad = std::is_same_v<typename traits<T>::real, quad>;
template <class T> constexpr bool is_half = std::is_same_v<typename traits<T>::real, half>;
template <class T> constexpr bool is_cplx = traits<T>::complex;

// ---- wide arithmetic for checks: double (complex<double>), or quad for r128/c128 -------
template <class T> using WideReal = std::conditional_t<is_quad<T>, quad, double>;
template <class T> using Wide = std::conditional_t<is_cplx<T>, complex<WideReal<T>>, WideReal<T>>;
template <class T> Wide<T> wide(const T &x) {
  if constexpr (is_cplx<T>) return Wide<T>(WideReal<T>(x.re), WideReal<T>(x.im));
  else return Wide<T>(x);
}
template <class T> T narrow(const Wide<T> &x) {
  if constexpr (is_cplx<T>) {
    using R = typename traits<T>::real;
    return T(R(x.re), R(x.im));
  } else {
    return T(x);
  }
}
template <class T> double eps() { return traits<T>::eps; }
inline double to_double(double x) { return x; }
inline double to_double(quad x) { return double(x); }

// ---- random numbers: fresh each run, reproducible through BB_TEST_SEED -----------------
std::mt19937_64 &rng();
uint64_t seed();
// Uniform in [-1, -0.05] U [0.05, 1]: never zero, also after rounding to half.
double uniform_nonzero();
template <class T> T random_value() {
  using R = typename traits<T>::real;
  if constexpr (is_cplx<T>) return T(R(uniform_nonzero()), R(uniform_nonzero()));
  else return T(R(uniform_nonzero()));
}
template <class T> T nan_value() {
  using R = typename traits<T>::real;
  if constexpr (is_cplx<T>) return T(R(NAN), R(NAN));
  else return T(R(NAN));
}
inline int random_int(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng()); }

// ---- a matrix in user memory: logical rows x cols, padding beyond the leading dimension ----
template <class T>
struct Mat {
  int rows = 0, cols = 0, ld = 1;
  bool row_major = false;
  std::vector<T> data;
  Mat() = default;
  // ld = the smallest legal one plus `pad`; the padding holds NaN (must stay untouched).
  Mat(int r, int c, BLAS_Layout layout, int pad) : rows(r), cols(c), row_major(layout == BLAS_RowMajor) {
    int need = row_major ? c : r;
    ld = std::max(1, need) + pad;
    std::size_t lines = std::max(1, row_major ? r : c);
    data.assign(lines * ld, nan_value<T>());
  }
  std::size_t index(int i, int j) const { return row_major ? std::size_t(i) * ld + j : i + std::size_t(j) * ld; }
  T &operator()(int i, int j) { return data[index(i, j)]; }
  const T &operator()(int i, int j) const { return data[index(i, j)]; }
  T *ptr() { return data.data(); }
  void fill_random() {
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) (*this)(i, j) = random_value<T>();
  }
  // The logical element stored at data[idx], or false for padding.
  bool logical(std::size_t idx, int &i, int &j) const {
    std::size_t line = idx / ld, pos = idx % ld;
    if (row_major) i = int(line), j = int(pos);
    else i = int(pos), j = int(line);
    return i < rows && j < cols;
  }
};

template <class T> bool same_bits(const T &a, const T &b) { return std::memcmp(&a, &b, sizeof(T)) == 0; }
template <class T> bool has_nan(const T &x) { return bb::isnan_any(wide(x)); }

// Every element of `after` outside what the routine may write is bit-identical to `before`
// (padding and, for triangular routines, the other triangle). Reports the first offender.
template <class T, class MayWrite>
::testing::AssertionResult untouched_outside(const Mat<T> &before, const Mat<T> &after, MayWrite may_write) {
  for (std::size_t idx = 0; idx < after.data.size(); ++idx) {
    int i, j;
    bool inside = after.logical(idx, i, j);
    if (inside && may_write(i, j)) continue;
    if (!same_bits(before.data[idx], after.data[idx]))
      return ::testing::AssertionFailure()
             << "element " << idx << (inside ? " (outside the written part)" : " (padding)") << " changed";
  }
  return ::testing::AssertionSuccess();
}

// Frobenius norm in the wide type.
template <class T, class F>
WideReal<T> frob(int rows, int cols, F at) {
  WideReal<T> s = 0;
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) s += bb::abs2(at(i, j));
  return bb::rsqrt(s);
}

// ||X - Y||_F / ||Y||_F over the logical part of two matrices (absolute if Y = 0); NaN
// anywhere makes it infinite, so NaN never passes.
template <class T>
double rel_diff(const Mat<T> &X, const Mat<T> &Y) {
  WideReal<T> d = 0, y = 0;
  for (int j = 0; j < X.cols; ++j)
    for (int i = 0; i < X.rows; ++i) {
      if (has_nan(X(i, j)) || has_nan(Y(i, j))) return INFINITY;
      d += bb::abs2(wide(X(i, j)) - wide(Y(i, j)));
      y += bb::abs2(wide(Y(i, j)));
    }
  return to_double(y > 0 ? bb::rsqrt(d / y) : bb::rsqrt(d));
}

// ||X - Y||_F (infinite if either holds NaN).
template <class T>
double abs_diff(const Mat<T> &X, const Mat<T> &Y) {
  WideReal<T> d = 0;
  for (int j = 0; j < X.cols; ++j)
    for (int i = 0; i < X.rows; ++i) {
      if (has_nan(X(i, j)) || has_nan(Y(i, j))) return INFINITY;
      d += bb::abs2(wide(X(i, j)) - wide(Y(i, j)));
    }
  return to_double(bb::rsqrt(d));
}

// Sets BLAS_BATCHED_BACKEND for the scope.
struct BackendScope {
  explicit BackendScope(const char *name) { setenv("BLAS_BATCHED_BACKEND", name, 1); }
  ~BackendScope() { unsetenv("BLAS_BATCHED_BACKEND"); }
};

// Comparison tolerance (normwise relative) for results of two backward-stable algorithms on
// well-conditioned inputs of the given order.
template <class T> double compare_tol(int order) { return 30.0 * std::max(order, 1) * eps<T>(); }
// Residual ratios ||residual|| / (order * ||inputs|| * eps) must stay below this (LAPACK's
// testing uses 30; half gets more room for its rounding of every stored value).
template <class T> double residual_limit() { return is_half<T> ? 60.0 : 30.0; }

inline const char *layout_name(BLAS_Layout l) { return l == BLAS_RowMajor ? "row" : "col"; }
inline const char *op_name(BLAS_Op o) { return o == BLAS_NoTrans ? "N" : o == BLAS_Trans ? "T" : "C"; }
inline const char *uplo_name(BLAS_Uplo u) { return u == BLAS_Upper ? "U" : "L"; }
inline const char *side_name(BLAS_Side s) { return s == BLAS_Left ? "L" : "R"; }
inline const char *diag_name(BLAS_Diag d) { return d == BLAS_Unit ? "U" : "N"; }
constexpr BLAS_Layout kLayouts[] = {BLAS_ColMajor, BLAS_RowMajor};
constexpr BLAS_Op kOps[] = {BLAS_NoTrans, BLAS_Trans, BLAS_ConjTrans};
constexpr BLAS_Uplo kUplos[] = {BLAS_Upper, BLAS_Lower};
constexpr BLAS_Side kSides[] = {BLAS_Left, BLAS_Right};
constexpr BLAS_Diag kDiags[] = {BLAS_NonUnit, BLAS_Unit};

// Square sizes: level 0 is 0..32 each (every configuration), level 1 adds the medium sizes
// around 64 and 128, level 2 a large one (for a few configurations per routine). The
// software-float precisions (r128, c128) stop at 48 to keep the CPU suite within minutes.
template <class T>
std::vector<int> square_sizes(int level) {
  std::vector<int> s;
  for (int n = 0; n <= 32; ++n) s.push_back(n);
  if (level >= 1) {
    if (is_quad<T>) s.push_back(48);
    else s.insert(s.end(), {63, 64, 65, 127, 128});
  }
  if (level >= 2 && !is_quad<T>) s.push_back(is_half<T> ? 256 : 512);
  return s;
}
// Problems per group: non-round counts, fewer as n grows.
inline int batch_for(int n, int index) {
  static const int small[] = {1, 3, 2, 7, 1, 5}, mid[] = {1, 2, 1, 3};
  if (n <= 8) return small[index % 6];
  if (n <= 32) return mid[index % 4];
  return 1;
}
// The backends compared with the reference for precision T. No vendor library has r16, c16,
// r128 or c128, so there `vendor` runs the same host kernels as `native` (SPEC.md).
template <class T> std::vector<const char *> backends_for() {
  if (is_half<T> || is_quad<T>) return {"native"};
  return {"native", "vendor"};
}

// A short description of the inputs for failure messages.
inline std::string seed_note() { return "BB_TEST_SEED=" + std::to_string(seed()); }

}  // namespace conf

namespace conf {
// Problems checked by this test binary, printed at exit: the closing note's counts.
void count_checked(const char *what, long problems);
}  // namespace conf
