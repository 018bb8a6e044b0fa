// Shared machinery of the conformance suite: typed access to the public entry points,
// random inputs, matrices with poisoned padding, norms in a wide type, and the comparison
// with the reference backend. Every test goes through the public C API only.
#pragma once
#include <blas_batched/blas_batched.h>

#include "../src/common/typed_api.hpp"  // internal element types, traits, typed entry points

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <tuple>
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
// Half precision computed in binary32 and rounded once (the host kernels and the GPU's gemm,
// SPEC.md section 6): the unit of its error bounds, `halves` half roundings (eps16 each) plus
// `singles` binary32 ones, and a residual measured in units of order x eps<T>() (the *_residual
// functions) re-expressed in that unit.
template <class T> double rounded_once_unit(double halves, int singles) { return halves * eps<T>() + singles * 0x1p-24; }
template <class T> double in_rounded_once_units(double res, int order, double halves, int singles) {
  return res * order * eps<T>() / rounded_once_unit<T>(halves, singles);
}

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


// ---- getrf / getri: inputs with known answers, and checks independent of any backend ----------
// Shared by the host tests (test_getrf_getri.cpp) and the device ones (test_gpu_getrf.cpp).

// One LU problem: its input and what is known about the answer in advance.
template <class T>
struct LuProblem {
  int m = 0, n = 0;
  Mat<T> A;               // getrf: the matrix; getri: its factors
  Mat<T> orig;            // getri: the matrix the factors came from (rows = 0: no residual)
  std::vector<int> ipiv;  // getrf: the pivots partial pivoting must choose (empty: any legal
                          // ones); getri: the input pivots
  Mat<T> expect;          // getrf: the exact factors, where known (rows = 0: unknown)
  int info = -1;          // the info LAPACK gives, or -1: read it off the factors
  bool compare = false;   // well conditioned with forced pivots: must agree with the reference
};

// x scaled to modulus `mag` (a random sign or phase of magnitude mag).
template <class T>
T with_modulus(T x, WideReal<T> mag) {
  Wide<T> w = wide(x);
  return narrow<T>(w * (mag / bb::absval(w)));
}

// The pivots partial pivoting produces on A when at step j it must take the row that came
// from row j of the factored matrix: from[r] is the row stored as row r of A.
std::vector<int> forced_pivots(const std::vector<int> &from, int steps);

// A = Q D with D column diagonally dominant, |D(j,j)| >= 3 sum_{i != j} |D(i,j)| for
// j < min(m, n), and Q a random row permutation. The dominance survives every Schur
// complement (with its margin), so at step j partial pivoting must take D's row j:
// |other| / |pivot| <= 2 / (3 + 1) in exact arithmetic, which leaves room for |re| + |im|
// pivoting (a factor sqrt 2 at most) and for any rounding. Exactly singular variants: the
// columns in `zero` are zero (the rows of those indices stay in place and the others move
// only between consecutive zero columns, so a zero pivot step finds D's own row at the
// diagonal and later steps are forced too); with `zero_row`, D's row min(m, n) - 1 is zero
// (m <= n only): it is never a pivot candidate with a nonzero value, stays exactly zero
// under elimination, and is the only candidate left at the last step. `ipiv` receives the
// pivots partial pivoting must produce. With `fixed_from` (no zero columns or row), Q is
// that permutation instead of a random one (problems sharing their pivots).
template <class T>
Mat<T> dominant(int m, int n, BLAS_Layout layout, int pad, std::vector<int> zero, bool zero_row,
                std::vector<int> &ipiv, const std::vector<int> *fixed_from = nullptr) {
  const int mn = std::min(m, n);
  Mat<T> D(m, n, layout, pad);
  D.fill_random();
  for (int z : zero)
    for (int i = 0; i < m; ++i) D(i, z) = T(0);
  if (zero_row && mn > 0)
    for (int j = 0; j < n; ++j) D(mn - 1, j) = T(0);
  for (int j = 0; j < mn; ++j) {
    if (std::count(zero.begin(), zero.end(), j) || (zero_row && j == mn - 1)) continue;
    WideReal<T> s = 0;
    for (int i = 0; i < m; ++i)
      if (i != j) s += bb::absval(wide(D(i, j)));
    WideReal<T> f = WideReal<T>(3 + std::uniform_real_distribution<double>(0, 1)(rng()));
    D(j, j) = with_modulus(D(j, j), s > 0 ? f * s : f);
  }
  std::vector<int> from(m);
  std::iota(from.begin(), from.end(), 0);
  if (fixed_from) {
    from = *fixed_from;
  } else {
    zero.erase(std::remove_if(zero.begin(), zero.end(), [&](int z) { return z >= mn; }), zero.end());
    std::sort(zero.begin(), zero.end());
    zero.erase(std::unique(zero.begin(), zero.end()), zero.end());
    int first = 0;
    for (std::size_t k = 0; k <= zero.size(); ++k) {
      int last = k < zero.size() ? zero[k] : m;
      std::shuffle(from.begin() + first, from.begin() + last, rng());
      first = last + 1;
    }
  }
  Mat<T> A(m, n, layout, pad);
  for (int r = 0; r < m; ++r)
    for (int j = 0; j < n; ++j) A(r, j) = D(from[r], j);
  ipiv = forced_pivots(from, mn);
  return A;
}

template <class T>
LuProblem<T> dominant_problem(int m, int n, BLAS_Layout layout, int pad, std::vector<int> zero = {},
                              bool zero_row = false) {
  LuProblem<T> pr;
  const int mn = std::min(m, n);
  zero_row = zero_row && m <= n;
  pr.m = m, pr.n = n, pr.compare = true;
  pr.A = dominant<T>(m, n, layout, pad, zero, zero_row, pr.ipiv);
  int first = zero_row ? mn - 1 : mn;
  for (int z : zero) first = std::min(first, z);
  pr.info = first < mn ? first + 1 : 0;
  return pr;
}

// A = Q^T L U with planted factors, to pin down the pivot rule: U(j,j) = s (±1 ± i) for
// complex, ±2s for real (s in [1, 2]), and in each column of L one multiplier l = q / U(j,j)
// with q = 1.6s times ±1 or ±i; the other multipliers and the strictly upper part of U are
// tiny (row sums at most 1/2 times the diagonal), so L, U and A are well conditioned. At
// step j the candidates are L(j:, j) U(j,j): |re| + |im| is 2s for the diagonal against
// 1.6s for q (at most s for the rest), so LAPACK's rule keeps the planted row, while a
// pivot chosen by modulus (1.41s against 1.6s) would take q's row. For complex, |l| = 1.13
// then appears in L. expect holds the planted factors, packed as getrf returns them.
template <class T>
LuProblem<T> planted_problem(int n, BLAS_Layout layout, int pad) {
  using W = Wide<T>;
  using WR = WideReal<T>;
  LuProblem<T> pr;
  pr.m = pr.n = n, pr.compare = true, pr.info = 0;
  auto sign = [] { return random_int(0, 1) ? WR(1) : WR(-1); };
  auto unit_axis = [&]() -> W {  // ±1, or for complex also ±i
    if constexpr (is_cplx<T>)
      if (random_int(0, 1)) return W(WR(0), sign());
    return W(sign());
  };
  auto tiny = [&](WR scale) { return wide(random_value<T>()) * (scale / WR(2 * n)); };
  std::vector<W> L(std::size_t(n) * n, W(0)), U(std::size_t(n) * n, W(0));
  auto at = [n](std::vector<W> &x, int i, int j) -> W & { return x[i + std::size_t(j) * n]; };
  for (int j = 0; j < n; ++j) {
    WR s = WR(std::uniform_real_distribution<double>(1, 2)(rng()));
    W d;
    if constexpr (is_cplx<T>) d = W(sign() * s, sign() * s);
    else d = W(2 * sign() * s);
    // Round the planted factors to T first, so that expect holds them exactly.
    at(U, j, j) = wide(narrow<T>(d));
    for (int k = j + 1; k < n; ++k) at(U, j, k) = wide(narrow<T>(tiny(s)));
    at(L, j, j) = W(1);
    if (j + 1 < n) {
      for (int i = j + 1; i < n; ++i) at(L, i, j) = wide(narrow<T>(tiny(WR(1))));
      at(L, random_int(j + 1, n - 1), j) = wide(narrow<T>(unit_axis() * (WR(1.6) * s) / at(U, j, j)));
    }
  }
  std::vector<int> from(n);
  std::iota(from.begin(), from.end(), 0);
  std::shuffle(from.begin(), from.end(), rng());
  pr.A = Mat<T>(n, n, layout, pad);
  pr.expect = Mat<T>(n, n, layout, 0);
  for (int r = 0; r < n; ++r)
    for (int j = 0; j < n; ++j) {
      W x(0);
      for (int k = 0; k <= std::min(from[r], j); ++k) x += at(L, from[r], k) * at(U, k, j);
      pr.A(r, j) = narrow<T>(x);
      pr.expect(r, j) = narrow<T>(r > j ? at(L, r, j) : at(U, r, j));
    }
  pr.ipiv = forced_pivots(from, n);
  return pr;
}

template <class T>
LuProblem<T> random_problem(int m, int n, BLAS_Layout layout, int pad) {
  LuProblem<T> pr;
  pr.m = m, pr.n = n;
  pr.A = Mat<T>(m, n, layout, pad);
  pr.A.fill_random();
  return pr;  // pivots and info: whatever the factors say
}

// 1-based index of the first exactly zero X(i, i), i < k; 0 if none.
template <class T>
int first_zero_diagonal(const Mat<T> &X, int k) {
  for (int i = 0; i < k; ++i)
    if (wide(X(i, i)) == Wide<T>(0)) return i + 1;
  return 0;
}

template <class T>
WideReal<T> frob_of(const Mat<T> &X) {
  return frob<T>(X.rows, X.cols, [&](int i, int j) { return wide(X(i, j)); });
}

// P A (rows interchanged as ipiv says, in order) into r, column-major m x n in the wide type;
// false if a pivot is out of range.
template <class T>
bool permuted_rows(const Mat<T> &A, const std::vector<int> &ipiv, std::vector<Wide<T>> &r) {
  const int m = A.rows, n = A.cols, mn = std::min(m, n);
  r.resize(std::size_t(m) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) r[i + std::size_t(j) * m] = wide(A(i, j));
  for (int k = 0; k < mn; ++k) {
    int q = ipiv[k] - 1;
    if (q < 0 || q >= m) return false;
    for (int j = 0; j < n; ++j) std::swap(r[k + std::size_t(j) * m], r[q + std::size_t(j) * m]);
  }
  return true;
}

// ||P A - L U||_F / (max(m, n) ||A||_F eps), all in the wide type.
template <class T>
double getrf_residual(const Mat<T> &A, const Mat<T> &LU, const std::vector<int> &ipiv) {
  using W = Wide<T>;
  const int m = A.rows, n = A.cols, mn = std::min(m, n);
  if (mn == 0) return 0;
  std::vector<W> r, lu(std::size_t(m) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      if (has_nan(LU(i, j))) return INFINITY;
      lu[i + std::size_t(j) * m] = wide(LU(i, j));
    }
  if (!permuted_rows(A, ipiv, r)) return INFINITY;
  for (int j = 0; j < n; ++j) {
    W *rj = r.data() + std::size_t(j) * m;
    for (int k = 0; k <= std::min(j, mn - 1); ++k) {
      W u = lu[k + std::size_t(j) * m];
      const W *lk = lu.data() + std::size_t(k) * m;
      rj[k] -= u;  // L(k, k) = 1
      for (int i = k + 1; i < m; ++i) rj[i] -= lk[i] * u;
    }
  }
  WideReal<T> d = 0;
  for (const W &x : r) d += bb::abs2(x);
  double num = to_double(bb::rsqrt(d)), den = to_double(frob_of(A)) * std::max(m, n) * eps<T>();
  return den > 0 ? num / den : (num > 0 ? INFINITY : 0);
}

// The componentwise backward error of the factors: the largest
//   |P A - L U|(i, j) / ((min(i, j) + 3) eps (|L| |U|)(i, j))
// over the matrix, in the wide type. Element (i, j) of L U is a chain of min(i, j) updates
// plus the division (or the multiplication by the pivot's reciprocal) that made L(i, j), each
// rounded once in a precision at least T's (half: however often its intermediate values are
// rounded to half), so the classic bound |P A - L U| <= gamma_k |L| |U| keeps this ratio
// near 1 (about 4 for complex arithmetic) for any order of the operations. An element that
// misses an update or takes a wrong one stands out where the normwise residual hides it; the
// bound still grows with min(i, j), so in half precision deep inside a large matrix only
// errors of several percent of (|L| |U|)(i, j) show. Infinite on NaN or a bad pivot.
template <class T>
double getrf_componentwise(const Mat<T> &A, const Mat<T> &LU, const std::vector<int> &ipiv) {
  using W = Wide<T>;
  using WR = WideReal<T>;
  const int m = A.rows, n = A.cols, mn = std::min(m, n);
  if (mn == 0) return 0;
  std::vector<W> r, lu(std::size_t(m) * n);
  std::vector<WR> mag(std::size_t(m) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      if (has_nan(LU(i, j))) return INFINITY;
      lu[i + std::size_t(j) * m] = wide(LU(i, j));
      mag[i + std::size_t(j) * m] = bb::absval(wide(LU(i, j)));
    }
  if (!permuted_rows(A, ipiv, r)) return INFINITY;
  std::vector<WR> bound(m);
  double worst = 0;
  for (int j = 0; j < n; ++j) {
    W *rj = r.data() + std::size_t(j) * m;
    std::fill(bound.begin(), bound.end(), WR(0));
    for (int k = 0; k <= std::min(j, mn - 1); ++k) {
      const W u = lu[k + std::size_t(j) * m];
      const WR au = mag[k + std::size_t(j) * m];
      const W *lk = lu.data() + std::size_t(k) * m;
      const WR *ak = mag.data() + std::size_t(k) * m;
      rj[k] -= u, bound[k] += au;  // L(k, k) = 1
      for (int i = k + 1; i < m; ++i) rj[i] -= lk[i] * u, bound[i] += ak[i] * au;
    }
    for (int i = 0; i < m; ++i) {
      const double num = to_double(bb::absval(rj[i]));
      if (num == 0) continue;
      const double den = to_double(bound[i]) * (std::min(i, j) + 3) * eps<T>();
      worst = std::max(worst, den > 0 ? num / den : double(INFINITY));
    }
  }
  return worst;
}

// Limit of getrf_componentwise. Rounding each operation once in T, any order of the operations
// keeps the ratio below about 1.4 (real; half at order 512 included) or 5.5 (complex: sqrt 2
// gamma_2 per product, and the division); evaluating the residual in a wide type no wider than
// T (r64, c64, r128, c128) adds up to 1 (real) or 4 (complex); triangular solves through
// inverted diagonal blocks may double the first part (|L| well below 1). Observed on the host
// backends: 1.0 and 1.5.
template <class T> constexpr double getrf_componentwise_limit() { return is_cplx<T> ? 16 : 6; }

// ||I - A X||_F / (n ||A||_F ||X||_F eps), all in the wide type.
template <class T>
double getri_residual(const Mat<T> &A, const Mat<T> &X) {
  using W = Wide<T>;
  const int n = A.rows;
  if (n == 0) return 0;
  std::vector<W> a(std::size_t(n) * n), x(std::size_t(n) * n), r(n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      if (has_nan(X(i, j))) return INFINITY;
      a[i + std::size_t(j) * n] = wide(A(i, j));
      x[i + std::size_t(j) * n] = wide(X(i, j));
    }
  WideReal<T> d = 0;
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) r[i] = W(i == j ? 1 : 0);
    for (int k = 0; k < n; ++k) {
      W xkj = x[k + std::size_t(j) * n];
      const W *ak = a.data() + std::size_t(k) * n;
      for (int i = 0; i < n; ++i) r[i] -= ak[i] * xkj;
    }
    for (int i = 0; i < n; ++i) d += bb::abs2(r[i]);
  }
  double den = to_double(frob_of(A)) * to_double(frob_of(X)) * n * eps<T>();
  return to_double(bb::rsqrt(d)) / den;
}

// Whether every element of X is finite.
template <class T>
bool all_finite(const Mat<T> &X) {
  for (int j = 0; j < X.cols; ++j)
    for (int i = 0; i < X.rows; ++i)
      if (!bb::isfinite_all(wide(X(i, j)))) return false;
  return true;
}

// The largest finite magnitude of T's real type (binary128's is beyond double: taken as
// double's, which no test value comes near).
template <class T> double overflow_threshold() {
  using R = typename traits<T>::real;
  if constexpr (is_half<T>) return 65504.0;
  else if constexpr (std::is_same_v<R, float>) return double(std::numeric_limits<float>::max());
  else return std::numeric_limits<double>::max();
}

// The largest element of inv(U) and of inv(U) inv(L) (the inverse up to a column permutation)
// for factors LU of a square matrix, computed in the wide type: how large getri's results get.
template <class T>
double inverse_magnitude(const Mat<T> &LU) {
  using W = Wide<T>;
  const int n = LU.rows;
  std::vector<W> x(n);
  double big = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (int j = 0; j < n; ++j) {
      // Column j of inv(U) (pass 0) or of inv(U) inv(L) (pass 1).
      std::fill(x.begin(), x.end(), W(0));
      x[j] = W(1);
      if (pass == 1)
        for (int i = j + 1; i < n; ++i)
          for (int k = j; k < i; ++k) x[i] -= wide(LU(i, k)) * x[k];
      for (int i = n - 1; i >= 0; --i) {
        for (int k = i + 1; k < n; ++k) x[i] -= wide(LU(i, k)) * x[k];
        x[i] = x[i] / wide(LU(i, i));
      }
      for (const W &v : x) big = std::max(big, to_double(bb::absval(v)));
    }
  return big;
}

// Partial pivoting: |L(i, j)| <= 1. For complex, pivots are chosen by |re| + |im| as i?amax
// does, which bounds |re| + |im| of each candidate by the pivot's, so |l| <= sqrt 2 (and
// |l| > 1 does occur, see planted_problem). The slack covers the rounding of
// l = x * (1 / pivot).
template <class T>
::testing::AssertionResult pivot_bound(const Mat<T> &LU) {
  const double bound = (is_cplx<T> ? std::sqrt(2.0) : 1.0) * (1 + 16 * eps<T>());
  for (int j = 0; j < std::min(LU.rows, LU.cols); ++j)
    for (int i = j + 1; i < LU.rows; ++i) {
      double v = to_double(bb::absval(wide(LU(i, j))));
      if (!(v <= bound))
        return ::testing::AssertionFailure() << "|L(" << i << "," << j << ")| = " << v << " > " << bound;
    }
  return ::testing::AssertionSuccess();
}

// The first pivot the rule of SPEC.md section 3 takes on A (1-based): the first entry of
// column 0 with a NaN part, else the first of largest |re| + |im| (exact: the candidates are
// A's own entries). 0 where no pivot is to be taken (no rows or columns), or for c16 where the
// two largest |re| + |im| lie within 4 eps (a backend may form the sums in half or in single).
template <class T>
int rule_first_pivot(const Mat<T> &A) {
  using WR = WideReal<T>;
  if (A.rows == 0 || A.cols == 0) return 0;
  WR best = -1, second = -1;
  int piv = 0;
  for (int i = 0; i < A.rows; ++i) {
    if (has_nan(A(i, 0))) return i + 1;
    const WR v = bb::abs1(wide(A(i, 0)));
    if (v > best) second = best, best = v, piv = i;
    else second = std::max(second, v);
  }
  if (is_half<T> && is_cplx<T> && second >= 0 && to_double(best - second) <= 4 * eps<T>() * to_double(best)) return 0;
  return piv + 1;
}

// How many leading steps of partial pivoting on A have a pivot that no backward-stable
// backend can choose differently, judged from factors LU of A (any backend's). Step 0 looks
// at A's first column itself (rule_first_pivot): its candidates are exact, so the rule fixes
// the pivot, ties included. At step j > 0 the
// candidates are L(i, j) U(j, j), i >= j; each backend computed them with an error of order
// (j + 3) eps (|L| |U|)(i, j), amplified by the conditioning of the leading block, so the
// step counts as unambiguous when the pivot's |re| + |im| exceeds every other candidate's by
// 1000 times that (covering amplification by 100 with room to spare): in double precision
// every step of a random matrix of order up to 256 passes, in single more than half of them,
// in half almost none beyond step 0.
template <class T>
int unambiguous_pivot_steps(const Mat<T> &A, const Mat<T> &LU) {
  const int m = A.rows, mn = std::min(A.rows, A.cols);
  if (mn == 0 || rule_first_pivot(A) == 0) return 0;  // step 0: exact
  const double slack = 1000 * (is_cplx<T> ? std::sqrt(2.0) : 1.0);
  std::vector<double> bound(m);
  for (int j = 1; j < mn; ++j) {
    // (|L| |U|)(i, j) for i >= j.
    std::fill(bound.begin(), bound.end(), 0.0);
    for (int k = 0; k <= j; ++k) {
      const double u = to_double(bb::absval(wide(LU(k, j))));
      for (int i = std::max(j, k); i < m; ++i)
        bound[i] += (i == k ? 1.0 : to_double(bb::absval(wide(LU(i, k))))) * u;
    }
    const Wide<T> ujj = wide(LU(j, j));
    const double piv = to_double(bb::abs1(ujj));
    const double tol = slack * (j + 3) * eps<T>();
    if (!(piv - tol * bound[j] > 0)) return j;
    for (int i = j + 1; i < m; ++i) {
      const double cand = to_double(bb::abs1(wide(LU(i, j)) * ujj));
      if (!(cand + tol * bound[i] < piv - tol * bound[j])) return j;
    }
  }
  return mn;
}

// ---- getrf on NaN, Inf and subnormal numbers (SPEC.md section 3) --------------------------
// The pivot is the first entry with a NaN part, else the first of largest |re| + |im|; a zero
// pivot is not divided by but its zero column still updates the trailing matrix (0 x Inf =
// NaN); a subnormal pivot is divided by, never multiplied by its overflowing reciprocal. Each
// case is one square matrix with what the rule fixes about its factorization.
template <class T>
struct NonFiniteCase {
  std::string what;
  Mat<T> A;
  std::vector<std::pair<int, int>> ipiv;  // (step, 1-based pivot) the rule fixes
  int info = 0;
  std::vector<std::pair<int, int>> nan_at, inf_at;  // output elements that must be NaN / Inf
  bool finite_elsewhere = false;                    // and every other element finite
  std::vector<std::tuple<int, int, typename traits<T>::real>> exact;  // (i, j, v): X(i, j) is v, bit for bit
};

// Column 0 of A: every entry shrunk below 1/2 in |re| + |im|, then two of exactly 1/2 at rows
// first and second (for complex the second is larger in modulus: the rule is |re| + |im|).
template <class T>
void plant_tie(Mat<T> &A, int first, int second) {
  using R = typename traits<T>::real;
  for (int i = 0; i < A.rows; ++i) A(i, 0) = narrow<T>(wide(A(i, 0)) * Wide<T>(WideReal<T>(0.2)));
  if constexpr (is_cplx<T>) A(first, 0) = T(R(0.25), R(-0.25)), A(second, 0) = T(R(-0.5), R(0));
  else A(first, 0) = T(R(-0.5)), A(second, 0) = T(R(0.5));
}

// The cases, each a random matrix (ld padded at random) with the values planted. With
// `ties`, also columns whose largest |re| + |im| occurs twice exactly (the first wins; for
// complex the later one is larger in modulus).
template <class T>
std::vector<NonFiniteCase<T>> non_finite_cases(BLAS_Layout layout, bool ties = false) {
  using R = typename traits<T>::real;
  const R inf = R(INFINITY), nan = R(NAN);
  R tiny;  // a subnormal number of the storage precision whose half is exact
  if constexpr (is_half<T>) tiny = R(0x1p-17f);
  else if constexpr (is_quad<T>) tiny = bb::smallest_normal<R>() / R(8);
  else tiny = std::numeric_limits<R>::min() / R(8);
  auto c = [](R re, R im = R(0)) {
    if constexpr (is_cplx<T>) return T(re, im);
    else return T(re);
  };
  std::vector<NonFiniteCase<T>> v;
  auto add = [&](int n, NonFiniteCase<T> e, auto plant) {
    e.A = Mat<T>(n, n, layout, random_int(0, 3));
    e.A.fill_random();
    plant(e.A);
    v.push_back(e);
  };
  add(6, {"NaN at (2,0)", {}, {{0, 3}}, 0, {}, {}, false}, [&](Mat<T> &A) { A(2, 0) = c(nan); });
  add(6, {"NaN at (4,0) and (1,0): the first", {}, {{0, 2}}, 0, {}, {}, false},
      [&](Mat<T> &A) { A(4, 0) = c(nan), A(1, 0) = c(nan); });
  add(6, {"NaN part at (3,0) behind a larger entry", {}, {{0, 4}}, 0, {}, {}, false},
      [&](Mat<T> &A) { A(0, 0) = c(R(8)), A(3, 0) = is_cplx<T> ? c(R(0.5), nan) : c(nan); });
  add(6, {"Inf at (4,0)", {}, {{0, 5}}, 0, {}, {{0, 0}}, true}, [&](Mat<T> &A) { A(4, 0) = c(-inf); });
  std::vector<std::pair<int, int>> nan_col3;
  for (int i = 1; i < 6; ++i) nan_col3.push_back({i, 3});
  add(6, {"zero column 0, Inf at (0,3)", {}, {{0, 1}, {3, 4}}, 1, nan_col3, {{0, 3}}, false}, [&](Mat<T> &A) {
    for (int i = 0; i < 6; ++i) A(i, 0) = c(R(0));
    A(0, 3) = c(inf);
  });
  add(2, {"subnormal pivot", {}, {{0, 1}, {1, 2}}, 0, {}, {}, true, {{1, 0, R(0.5)}, {1, 1, R(0.5)}}},
      [&](Mat<T> &A) { A(0, 0) = c(tiny), A(1, 0) = c(tiny / R(2)), A(0, 1) = c(R(1)), A(1, 1) = c(R(1)); });
  // Normal inputs whose elimination makes a subnormal pivot: U(1,1) = s (1 + g) - s = s g exactly
  // (g the gap above 1), below it 0 / U(1,1) = 0 (U(1,1)'s reciprocal overflows, 0 x Inf = NaN,
  // except where the arithmetic is wider than the storage: half computes in float). Order 40:
  // the host's OpenBLAS path (native above 32) and the device's blocked getrf.
  const R s = R(4) * bb::smallest_normal<R>(), g = R(2 * eps<T>());
  for (int n : {3, 40}) {
    NonFiniteCase<T> e{"subnormal pivot made by the elimination, order " + std::to_string(n), {}, {{0, 1}, {1, 2}},
                       0, {}, {}, true, {{1, 0, R(1)}, {1, 1, s * g}}};
    for (int i = 2; i < n; ++i) e.exact.push_back({i, 1, R(0)});
    add(n, e, [&](Mat<T> &A) {
      for (int i = 0; i < n; ++i) A(i, 0) = A(i, 1) = c(R(0));
      A(0, 0) = A(1, 0) = A(0, 1) = c(s), A(1, 1) = c(s + s * g);
    });
  }
  if (ties) {
    add(6, {"tie at (1,0) and (3,0): the first", {}, {{0, 2}}, 0, {}, {}, true}, [&](Mat<T> &A) { plant_tie(A, 1, 3); });
    add(8, {"tie at (0,0) and (7,0): the first", {}, {{0, 1}}, 0, {}, {}, true}, [&](Mat<T> &A) { plant_tie(A, 0, 7); });
  }
  return v;
}

// The same rule where the candidates sit in different warps of a blocked panel (order 100: a
// panel of 100 rows, 4 warps of 32; getrf_panel.cuh's block_pivot_row). Only cases whose
// later steps the rule fixes as well: after a NaN pivot every later candidate is NaN, and a
// tie's matrix is finite (its later steps compared where unambiguous).
template <class T>
std::vector<NonFiniteCase<T>> non_finite_panel_cases(BLAS_Layout layout) {
  using R = typename traits<T>::real;
  const R nan = R(NAN);
  constexpr int n = 100;
  std::vector<NonFiniteCase<T>> v;
  auto add = [&](NonFiniteCase<T> e, auto plant) {
    e.A = Mat<T>(n, n, layout, random_int(0, 3));
    e.A.fill_random();
    plant(e.A);
    v.push_back(e);
  };
  auto c = [](R re, R im = R(0)) {
    if constexpr (is_cplx<T>) return T(re, im);
    else return T(re);
  };
  add({"order 100, NaN at (70,0) and (40,0) (warps 2 and 1): the first", {}, {{0, 41}}, 0, {}, {}, false},
      [&](Mat<T> &A) { A(70, 0) = c(nan), A(40, 0) = c(nan); });
  add({"order 100, NaN part at (97,0) behind a larger entry at (3,0)", {}, {{0, 98}}, 0, {}, {}, false},
      [&](Mat<T> &A) { A(3, 0) = c(R(8)), A(97, 0) = is_cplx<T> ? c(R(0.5), nan) : c(nan); });
  add({"order 100, tie at (10,0) and (80,0) (warps 0 and 2): the first", {}, {{0, 11}}, 0, {}, {}, true},
      [&](Mat<T> &A) { plant_tie(A, 10, 80); });
  add({"order 100, tie at (63,0) and (64,0) (warps 1 and 2): the first", {}, {{0, 64}}, 0, {}, {}, true},
      [&](Mat<T> &A) { plant_tie(A, 63, 64); });
  return v;
}

// Checks one output of a NonFiniteCase (X, ipiv, info) against what the rule fixes and
// against the reference backend's output (Xr, ipiv_r, info_r): ipiv, info and where NaN and
// Inf appear must agree.
template <class T>
void check_non_finite_case(const NonFiniteCase<T> &e, const Mat<T> &X, const int *ipiv, int info, const Mat<T> &Xr,
                           const int *ipiv_r, int info_r) {
  using R = typename traits<T>::real;
  auto c = [](R re) {
    if constexpr (is_cplx<T>) return T(re, R(0));
    else return T(re);
  };
  for (auto [step, piv] : e.ipiv) ASSERT_EQ(ipiv[step], piv) << "ipiv[" << step << "]";
  ASSERT_EQ(info, e.info);
  ASSERT_EQ(info, info_r) << "info differs from the reference";
  // The other steps: all where the input holds NaN or Inf (the rule decides them); in a finite
  // input (the ties: random besides the tie) only those no backward-stable backend could pivot
  // otherwise (in half precision, the reference rounds every operation to half, the device
  // works in float: their later pivots of a random matrix may differ). Half precision with NaN
  // or Inf: only the steps the case fixes (its finite rest differs in rounding as well: a near
  // tie at step 3 of "Inf at (4,0)" split the host kernels and the reference, seed
  // 5653536287774086089 with r16's tests alone).
  const bool finite_input = all_finite(e.A);
  const int compared = finite_input ? unambiguous_pivot_steps(e.A, Xr) : is_half<T> ? 0 : std::min(X.rows, X.cols);
  for (int j = 0; j < compared; ++j) ASSERT_EQ(ipiv[j], ipiv_r[j]) << "ipiv[" << j << "] differs from the reference";
  auto is_inf = [](const T &x) { return !has_nan(x) && !bb::isfinite_all(wide(x)); };
  for (auto [i, j] : e.nan_at) ASSERT_TRUE(has_nan(X(i, j))) << "(" << i << "," << j << ") not NaN";
  for (auto [i, j] : e.inf_at) ASSERT_TRUE(is_inf(X(i, j))) << "(" << i << "," << j << ") not Inf";
  for (int j = 0; j < X.cols; ++j)
    for (int i = 0; i < X.rows; ++i) {
      ASSERT_EQ(has_nan(X(i, j)), has_nan(Xr(i, j))) << "NaN at (" << i << "," << j << ") differs from the reference";
      ASSERT_EQ(is_inf(X(i, j)), is_inf(Xr(i, j))) << "Inf at (" << i << "," << j << ") differs from the reference";
      const bool listed = std::count(e.inf_at.begin(), e.inf_at.end(), std::pair{i, j}) > 0;
      if (e.finite_elsewhere && !listed) {
        ASSERT_TRUE(bb::isfinite_all(wide(X(i, j)))) << "(" << i << "," << j << ") not finite";
      }
    }
  ASSERT_TRUE(untouched_outside(e.A, X, [](int, int) { return true; }));
  for (auto [i, j, v] : e.exact) ASSERT_TRUE(same_bits(X(i, j), c(v))) << "(" << i << "," << j << ") is not " << double(v);
}


// ---- potrf / geqrf: inputs and checks independent of any backend -----------------------------
// Shared by the host tests (test_potrf_geqrf.cpp) and the device ones (test_gpu_potrf_geqrf.cpp).

inline bool in_triangle(BLAS_Uplo uplo, int i, int j) { return uplo == BLAS_Lower ? i >= j : i <= j; }

// sqrt(sum |X - Y|^2 / sum |Y|^2) over the elements where `in` holds (absolute if Y = 0 there);
// NaN in either makes it infinite.
template <class T, class In>
double rel_diff_where(const Mat<T> &X, const Mat<T> &Y, In in) {
  WideReal<T> d = 0, y = 0;
  for (int j = 0; j < X.cols; ++j)
    for (int i = 0; i < X.rows; ++i) {
      if (!in(i, j)) continue;
      if (has_nan(X(i, j)) || has_nan(Y(i, j))) return INFINITY;
      d += bb::abs2(wide(X(i, j)) - wide(Y(i, j)));
      y += bb::abs2(wide(Y(i, j)));
    }
  return to_double(y > 0 ? bb::rsqrt(d / y) : bb::rsqrt(d));
}

inline std::string shape(int m, int n) {
  return std::to_string(m) + "x" + std::to_string(n);
}

// Hermitian positive definite and well conditioned: A = M M^H / n + I with M random, so the
// eigenvalues lie in [1, 1 + ||M||^2 / n] (about [1, 4]). Formed in the wide type and rounded
// once. Only the `uplo` triangle is stored: the other one stays NaN, so reading it poisons the
// result and writing it is caught bit for bit. For complex data the diagonal carries a nonzero
// imaginary part, which the routine must ignore (the matrix meant is its real part).
template <class T>
Mat<T> make_hpd(int n, BLAS_Layout layout, BLAS_Uplo uplo, int pad) {
  Mat<T> a(n, n, layout, pad);
  std::vector<Wide<T>> M(std::size_t(n) * n);
  for (Wide<T> &x : M) x = wide(random_value<T>());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      if (!in_triangle(uplo, i, j)) continue;
      Wide<T> s(0);
      for (int k = 0; k < n; ++k) s += M[i + std::size_t(k) * n] * bb::conj(M[j + std::size_t(k) * n]);
      s = s / WideReal<T>(n);
      if (i == j) s = Wide<T>(bb::real(s) + WideReal<T>(1));
      a(i, j) = narrow<T>(s);
      // SPEC: the imaginary part of the diagonal is ignored on input; make it garbage.
      if constexpr (is_cplx<T>)
        if (i == j) a(i, i).im = typename traits<T>::real(uniform_nonzero());
    }
  return a;
}

// Element (i, j) of the Hermitian matrix whose `uplo` triangle `a` stores.
template <class T>
Wide<T> hermitian_at(const Mat<T> &a, BLAS_Uplo uplo, int i, int j) {
  if (i == j) return Wide<T>(bb::real(wide(a(i, i))));
  return in_triangle(uplo, i, j) ? wide(a(i, j)) : bb::conj(wide(a(j, i)));
}

// ||A - L L^H||_F / (n ||A||_F eps) with L = the lower factor, or U^H for uplo = Upper.
template <class T>
double potrf_residual(const Mat<T> &A, const Mat<T> &F, BLAS_Uplo uplo) {
  const int n = A.rows;
  if (n == 0) return 0;
  std::vector<Wide<T>> L(std::size_t(n) * n, Wide<T>(0));  // column-major, lower
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) L[i + std::size_t(j) * n] = uplo == BLAS_Lower ? wide(F(i, j)) : bb::conj(wide(F(j, i)));
  WideReal<T> err = 0;
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      Wide<T> s(0);
      for (int k = 0; k <= j; ++k) s += L[i + std::size_t(k) * n] * bb::conj(L[j + std::size_t(k) * n]);
      WideReal<T> e = bb::abs2(hermitian_at(A, uplo, i, j) - s);
      err += i == j ? e : 2 * e;  // (i, j) and (j, i)
    }
  WideReal<T> nA = frob<T>(n, n, [&](int i, int j) { return hermitian_at(A, uplo, i, j); });
  return to_double(bb::rsqrt(err)) / (n * to_double(nA) * eps<T>());
}

// The residual's probe: ||A x - L (L^H x)||_2 / (n ||A||_F ||x||_2 eps) for one random x, the
// same factor and normalisation as potrf_residual at O(n^2) instead of O(n^3). It bounds the
// residual from below (||E x|| <= ||E||_2 ||x||); a wrong factor (E of norm ~||A||) shows with
// ||E x|| about ||E||_F ||x|| / sqrt(n): a probe of about 1 / (n^1.5 eps), 1e11 at c64 n = 512
// (half at n = 40: 8, under its limit of 60, as the full residual's limit there also is).
// x comes from a generator of its own (seeded from the test's seed and n), so that the checks
// draw nothing from rng(): the inputs made after a check stay those BB_TEST_SEED names,
// however many checks ran.
template <class T>
double potrf_residual_probe(const Mat<T> &A, const Mat<T> &F, BLAS_Uplo uplo) {
  const int n = A.rows;
  if (n == 0) return 0;
  auto l = [&](int i, int k) { return uplo == BLAS_Lower ? wide(F(i, k)) : bb::conj(wide(F(k, i))); };  // i >= k
  std::mt19937_64 gen(seed() ^ uint64_t(n));
  std::uniform_real_distribution<double> uniform(0.5, 1.0);
  auto entry = [&] { return WideReal<T>(gen() & 1 ? uniform(gen) : -uniform(gen)); };
  std::vector<Wide<T>> x(n), y(n, Wide<T>(0));
  WideReal<T> nx = 0;
  for (Wide<T> &v : x) {
    if constexpr (is_cplx<T>) v = Wide<T>(entry(), entry());
    else v = entry();
    nx += bb::abs2(v);
  }
  for (int k = 0; k < n; ++k)
    for (int i = k; i < n; ++i) y[k] += bb::conj(l(i, k)) * x[i];  // L^H x
  WideReal<T> err = 0;
  for (int i = 0; i < n; ++i) {
    Wide<T> r(0);
    for (int j = 0; j < n; ++j) r += hermitian_at(A, uplo, i, j) * x[j];
    for (int k = 0; k <= i; ++k) r -= l(i, k) * y[k];
    err += bb::abs2(r);
  }
  WideReal<T> nA = frob<T>(n, n, [&](int i, int j) { return hermitian_at(A, uplo, i, j); });
  return to_double(bb::rsqrt(err)) / (n * to_double(nA) * to_double(bb::rsqrt(nx)) * eps<T>());
}

// boosted: random plus a diagonal of magnitude 3 sqrt(max(m, n)) + 1 with random signs, so
// singular values lie within a factor of about 3 and every Householder pivot keeps its sign
// far from zero: well conditioned, compared with the reference. plain: random entries only
// (condition up to ~n), checked by residuals alone. triangular: upper trapezoidal with a real
// diagonal, so every x is zero and LAPACK's xlarfg gives tau = 0, H = I, A unchanged. phase
// (complex types; for real ones the same as triangular): upper trapezoidal with a complex
// diagonal, so every x is zero and alpha is not real: H(j) = I - tau_j e_j e_j^H with
// tau_j = (beta_j - alpha_j) / beta_j only turns row j's phase (the diagonal becomes real).
enum class QrKind { boosted, plain, triangular, phase };

inline const char *kind_name(QrKind k) {
  switch (k) {
    case QrKind::boosted: return "boosted";
    case QrKind::plain: return "plain";
    case QrKind::triangular: return "triangular";
    case QrKind::phase: return "phase";
  }
  return "?";
}

// X with each element where in(i, j) holds multiplied by 2^e in the wide type: exact while the
// results stay normal (geqrf's tiny and huge inputs, and their results scaled back).
template <class T, class In>
Mat<T> times_pow2(const Mat<T> &X, int e, In in) {
  const Wide<T> f = Wide<T>(WideReal<T>(std::ldexp(1.0, e)));
  Mat<T> Y = X;
  for (int j = 0; j < X.cols; ++j)
    for (int i = 0; i < X.rows; ++i)
      if (in(i, j)) Y(i, j) = narrow<T>(wide(X(i, j)) * f);
  return Y;
}
inline bool everywhere(int, int) { return true; }
inline bool upper_part(int i, int j) { return i <= j; }

template <class T>
Mat<T> make_qr_input(int m, int n, BLAS_Layout layout, int pad, QrKind kind) {
  Mat<T> a(m, n, layout, pad);
  a.fill_random();
  const int k = std::min(m, n);
  const WideReal<T> c = WideReal<T>(3 * std::sqrt(double(std::max(m, n))) + 1);
  if (kind == QrKind::boosted)
    for (int i = 0; i < k; ++i)
      a(i, i) = narrow<T>(wide(a(i, i)) + Wide<T>(random_int(0, 1) ? c : -c));
  if (kind == QrKind::triangular || kind == QrKind::phase) {
    for (int j = 0; j < n; ++j)
      for (int i = j + 1; i < m; ++i) a(i, j) = narrow<T>(Wide<T>(0));
    if (kind == QrKind::triangular)
      for (int i = 0; i < k; ++i) a(i, i) = narrow<T>(Wide<T>(bb::real(wide(a(i, i)))));
  }
  return a;
}

// Q = H(0) ... H(k-1), H(j) = I - tau_j v_j v_j^H, explicitly (m x m, column-major, wide).
template <class T>
std::vector<Wide<T>> build_q(const Mat<T> &F, const std::vector<T> &tau) {
  const int m = F.rows, k = std::min(F.rows, F.cols);
  std::vector<Wide<T>> Q(std::size_t(m) * m, Wide<T>(0)), v(m), w(m);
  for (int i = 0; i < m; ++i) Q[i + std::size_t(i) * m] = Wide<T>(1);
  for (int j = 0; j < k; ++j) {
    Wide<T> t = wide(tau[j]);
    for (int i = j; i < m; ++i) v[i] = i == j ? Wide<T>(1) : wide(F(i, j));
    for (int r = 0; r < m; ++r) w[r] = Wide<T>(0);
    for (int i = j; i < m; ++i)
      for (int r = 0; r < m; ++r) w[r] += Q[r + std::size_t(i) * m] * v[i];
    for (int i = j; i < m; ++i) {
      Wide<T> f = t * bb::conj(v[i]);
      for (int r = 0; r < m; ++r) Q[r + std::size_t(i) * m] -= w[r] * f;
    }
  }
  return Q;
}

// ||A - Q R||_F / (max(m, n) ||A||_F eps) and ||I - Q^H Q||_F / (m eps).
template <class T>
void qr_residuals(const Mat<T> &A, const Mat<T> &F, const std::vector<T> &tau, double &res, double &orth) {
  const int m = A.rows, n = A.cols, k = std::min(m, n);
  res = orth = 0;
  if (k == 0) return;
  std::vector<Wide<T>> Q = build_q(F, tau);
  WideReal<T> err = 0;
  for (int c = 0; c < n; ++c)
    for (int r = 0; r < m; ++r) {
      Wide<T> s(0);
      for (int l = 0; l <= std::min(c, k - 1); ++l) s += Q[r + std::size_t(l) * m] * wide(F(l, c));
      err += bb::abs2(wide(A(r, c)) - s);
    }
  WideReal<T> nA = frob<T>(m, n, [&](int r, int c) { return wide(A(r, c)); });
  res = nA > 0 ? to_double(bb::rsqrt(err)) / (std::max(m, n) * to_double(nA) * eps<T>()) : to_double(bb::rsqrt(err));
  WideReal<T> oerr = 0;
  for (int j = 0; j < m; ++j)
    for (int i = 0; i <= j; ++i) {  // I - Q^H Q is Hermitian
      Wide<T> s(i == j ? 1 : 0);
      for (int r = 0; r < m; ++r) s -= bb::conj(Q[r + std::size_t(i) * m]) * Q[r + std::size_t(j) * m];
      oerr += i == j ? bb::abs2(s) : 2 * bb::abs2(s);
    }
  orth = to_double(bb::rsqrt(oerr)) / (m * eps<T>());
}

// Normwise distance of two geqrf outputs: R relative to ||R||, each Householder vector
// relative to its norm (with the implicit 1), tau absolutely (|tau| <= 2); the largest.
template <class T>
double qr_diff(const Mat<T> &X, const std::vector<T> &tx, const Mat<T> &Y, const std::vector<T> &ty) {
  const int m = X.rows, n = X.cols, k = std::min(m, n);
  double d = rel_diff_where(X, Y, [](int i, int j) { return i <= j; });
  for (int j = 0; j < k; ++j) {
    WideReal<T> dv = 0, nv = 1;
    for (int i = j + 1; i < m; ++i) {
      if (has_nan(X(i, j)) || has_nan(Y(i, j))) return INFINITY;
      dv += bb::abs2(wide(X(i, j)) - wide(Y(i, j)));
      nv += bb::abs2(wide(Y(i, j)));
    }
    d = std::max(d, to_double(bb::rsqrt(dv / nv)));
    if (has_nan(tx[j]) || has_nan(ty[j])) return INFINITY;
    d = std::max(d, to_double(bb::absval(wide(tx[j]) - wide(ty[j]))));
  }
  return d;
}

}  // namespace conf

namespace conf {
// Problems checked by this test binary, printed at exit: the closing note's counts.
void count_checked(const char *what, long problems);
}  // namespace conf
