// getrf / getri: every precision x layout x backend, square sizes 0..32 and beyond plus tall
// and wide shapes (getrf), many groups in one call per configuration. Inputs:
//  - row-permuted column-diagonally-dominant matrices: partial pivoting is forced to undo the
//    permutation with well-separated pivots, so ipiv is known in advance (and must also equal
//    the reference's), and the factors and the inverse are well conditioned, so they must
//    agree with the reference's to a normwise tolerance;
//  - planted factors A = Q^T L U whose pivots LAPACK's |re| + |im| rule and a modulus rule
//    would choose differently: ipiv and the factors are known in advance;
//  - plain random matrices: other pivot choices are legal there (near-ties), so only the
//    residual, the partial-pivoting bound on |L(i,j)| and info are checked;
//  - calls mixing regular problems with exactly singular ones (zero columns, a zero row, the
//    zero matrix, factors with an exactly zero U(i,i)): info, the return value, and A left
//    bit-identical by getri.
// Residuals are computed in a wide type, independent of the reference; the reference itself
// goes through the same independent checks.
#include "common.hpp"

#include <algorithm>
#include <numeric>

namespace conf {
namespace {

constexpr int kIpivPoison = -7777;
constexpr int kInfoPoison = -12345;
constexpr int kIpivGuard = 3;  // poisoned ipiv entries past the ones the call may write

template <class X> struct NoDeduceT { using type = X; };
template <class X> using NoDeduce = typename NoDeduceT<X>::type;  // lets nullptr pass

// One problem of a call: its input and what is known about the answer in advance.
template <class T>
struct Problem {
  int m = 0, n = 0;
  Mat<T> A;               // getrf: the matrix; getri: its factors
  Mat<T> orig;            // getri: the matrix the factors came from (rows = 0: no residual)
  std::vector<int> ipiv;  // getrf: the pivots partial pivoting must choose (empty: any legal
                          // ones); getri: the input pivots
  Mat<T> expect;          // getrf: the exact factors, where known (rows = 0: unknown)
  int info = -1;          // the info LAPACK gives, or -1: read it off the factors
  bool compare = false;   // well conditioned with forced pivots: must agree with the reference
};

struct Group {
  int m, n, count;
};

template <class T>
struct Batch {
  BLAS_Layout layout;
  std::vector<Group> groups;
  std::vector<Problem<T>> problems;
  // A group of `count` problems made by make(m, n, pad, i): one padding (so one leading
  // dimension) for the whole group, as the standard requires.
  template <class Make>
  void add(int m, int n, int count, Make make) {
    groups.push_back({m, n, count});
    int pad = random_int(0, 3);
    for (int i = 0; i < count; ++i) problems.push_back(make(m, n, pad, i));
  }
};

template <class T>
struct Output {
  int rc = 0;
  std::vector<Mat<T>> A;
  std::vector<std::vector<int>> ipiv;  // with kIpivGuard entries past the real ones
  std::vector<int> info;
};

// Runs getrf on copies of the inputs with poisoned ipiv and info.
template <class T>
Output<T> run_getrf(const Batch<T> &b) {
  Output<T> o;
  std::vector<int> m, n, ld, sizes;
  std::vector<T *> pa;
  std::vector<int *> pp;
  for (const Problem<T> &pr : b.problems) {
    o.A.push_back(pr.A);
    o.ipiv.emplace_back(std::min(pr.m, pr.n) + kIpivGuard, kIpivPoison);
  }
  std::size_t p = 0;
  for (const Group &g : b.groups) {
    m.push_back(g.m), n.push_back(g.n), sizes.push_back(g.count);
    ld.push_back(g.count ? o.A[p].ld : std::max(1, b.layout == BLAS_ColMajor ? g.m : g.n));
    for (int i = 0; i < g.count; ++i, ++p) pa.push_back(o.A[p].ptr()), pp.push_back(o.ipiv[p].data());
  }
  o.info.assign(p, kInfoPoison);
  o.rc = Api<T>::getrf(b.layout, m.data(), n.data(), pa.data(), ld.data(), pp.data(),
                       int(b.groups.size()), sizes.data(), o.info.data());
  return o;
}

// Runs getri on copies of the factors and of the pivots (followed by poisoned guards).
template <class T>
Output<T> run_getri(const Batch<T> &b) {
  Output<T> o;
  std::vector<int> n, ld, sizes;
  std::vector<T *> pa;
  std::vector<int *> pp;
  for (const Problem<T> &pr : b.problems) {
    o.A.push_back(pr.A);
    o.ipiv.push_back(pr.ipiv);
    o.ipiv.back().resize(pr.ipiv.size() + kIpivGuard, kIpivPoison);
  }
  std::size_t p = 0;
  for (const Group &g : b.groups) {
    n.push_back(g.n), sizes.push_back(g.count);
    ld.push_back(g.count ? o.A[p].ld : std::max(1, g.n));
    for (int i = 0; i < g.count; ++i, ++p) pa.push_back(o.A[p].ptr()), pp.push_back(o.ipiv[p].data());
  }
  o.info.assign(p, kInfoPoison);
  o.rc = Api<T>::getri(b.layout, n.data(), pa.data(), ld.data(), pp.data(), int(b.groups.size()),
                       sizes.data(), o.info.data());
  return o;
}

// ---- inputs ---------------------------------------------------------------------------

// x scaled to modulus `mag` (a random sign or phase of magnitude mag).
template <class T>
T with_modulus(T x, WideReal<T> mag) {
  Wide<T> w = wide(x);
  return narrow<T>(w * (mag / bb::absval(w)));
}

// The pivots partial pivoting produces on A when at step j it must take the row that came
// from row j of the factored matrix: from[r] is the row stored as row r of A.
std::vector<int> forced_pivots(const std::vector<int> &from, int steps) {
  std::vector<int> at = from, where(from.size()), ipiv(steps);
  for (std::size_t r = 0; r < at.size(); ++r) where[at[r]] = int(r);
  for (int j = 0; j < steps; ++j) {
    int r = where[j];
    ipiv[j] = r + 1;
    std::swap(at[j], at[r]);
    where[at[j]] = j, where[at[r]] = r;
  }
  return ipiv;
}

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
// pivots partial pivoting must produce.
template <class T>
Mat<T> dominant(int m, int n, BLAS_Layout layout, int pad, std::vector<int> zero, bool zero_row,
                std::vector<int> &ipiv) {
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
  zero.erase(std::remove_if(zero.begin(), zero.end(), [&](int z) { return z >= mn; }), zero.end());
  std::sort(zero.begin(), zero.end());
  zero.erase(std::unique(zero.begin(), zero.end()), zero.end());
  int first = 0;
  for (std::size_t k = 0; k <= zero.size(); ++k) {
    int last = k < zero.size() ? zero[k] : m;
    std::shuffle(from.begin() + first, from.begin() + last, rng());
    first = last + 1;
  }
  Mat<T> A(m, n, layout, pad);
  for (int r = 0; r < m; ++r)
    for (int j = 0; j < n; ++j) A(r, j) = D(from[r], j);
  ipiv = forced_pivots(from, mn);
  return A;
}

template <class T>
Problem<T> dominant_problem(int m, int n, BLAS_Layout layout, int pad, std::vector<int> zero = {},
                            bool zero_row = false) {
  Problem<T> pr;
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
Problem<T> planted_problem(int n, BLAS_Layout layout, int pad) {
  using W = Wide<T>;
  using WR = WideReal<T>;
  Problem<T> pr;
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
Problem<T> random_problem(int m, int n, BLAS_Layout layout, int pad) {
  Problem<T> pr;
  pr.m = m, pr.n = n;
  pr.A = Mat<T>(m, n, layout, pad);
  pr.A.fill_random();
  return pr;  // pivots and info: whatever the factors say
}

// The square problems of a getrf batch turned into a getri batch: out's factors and pivots,
// with the getrf inputs kept for the residual.
template <class T>
Batch<T> factors_of(const Batch<T> &f, const Output<T> &out) {
  Batch<T> g{f.layout, {}, {}};
  std::size_t p = 0;
  for (const Group &gr : f.groups) {
    if (gr.m == gr.n) {
      g.groups.push_back(gr);
      for (int i = 0; i < gr.count; ++i) {
        const Problem<T> &in = f.problems[p + i];
        Problem<T> pr;
        pr.m = pr.n = gr.n;
        pr.A = out.A[p + i];
        pr.orig = in.A;
        pr.ipiv.assign(out.ipiv[p + i].begin(), out.ipiv[p + i].begin() + gr.n);
        pr.info = in.info;  // getri fails exactly where getrf reported a zero U(i, i)
        pr.compare = in.compare;
        g.problems.push_back(pr);
      }
    }
    p += gr.count;
  }
  return g;
}

// ---- independent checks ---------------------------------------------------------------

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

// ||P A - L U||_F / (max(m, n) ||A||_F eps), all in the wide type.
template <class T>
double getrf_residual(const Mat<T> &A, const Mat<T> &LU, const std::vector<int> &ipiv) {
  using W = Wide<T>;
  const int m = A.rows, n = A.cols, mn = std::min(m, n);
  if (mn == 0) return 0;
  std::vector<W> r(std::size_t(m) * n), lu(std::size_t(m) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      if (has_nan(LU(i, j))) return INFINITY;
      r[i + std::size_t(j) * m] = wide(A(i, j));
      lu[i + std::size_t(j) * m] = wide(LU(i, j));
    }
  for (int k = 0; k < mn; ++k) {  // P A: row k interchanged with row ipiv[k], in order
    int q = ipiv[k] - 1;
    if (q < 0 || q >= m) return INFINITY;
    for (int j = 0; j < n; ++j) std::swap(r[k + std::size_t(j) * m], r[q + std::size_t(j) * m]);
  }
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

std::string describe(std::size_t p, int m, int n) {
  return "problem " + std::to_string(p) + " m n " + std::to_string(m) + " " + std::to_string(n);
}

// Checks one backend's getrf output. With ref (the reference's output on the same call),
// problems marked `compare` must have its pivots exactly and its factors to compare_tol:
// both are backward stable, and the inputs are well conditioned with well-separated pivots,
// so the factors differ by a small multiple of order * eps (observed: below 0.1 of the
// tolerance in every precision; the residual ratios stay below 1 against a limit of 30).
template <class T>
void check_getrf(const Batch<T> &b, const Output<T> &out, const NoDeduce<Output<T>> *ref, const char *backend) {
  long failures = 0;
  for (std::size_t p = 0; p < b.problems.size(); ++p) {
    const Problem<T> &pr = b.problems[p];
    const Mat<T> &LU = out.A[p];
    const std::vector<int> &ipiv = out.ipiv[p];
    const int mn = std::min(pr.m, pr.n);
    SCOPED_TRACE(describe(p, pr.m, pr.n));
    // info: LAPACK's, i.e. the first exactly zero U(i, i) of the factors returned.
    ASSERT_EQ(out.info[p], first_zero_diagonal(LU, mn)) << "info does not match the factors";
    if (pr.info >= 0) {
      ASSERT_EQ(out.info[p], pr.info) << "info";
    }
    failures += out.info[p] != 0;
    // ipiv: every entry written, row j interchanged with one of rows j..m-1; nothing past.
    for (int j = 0; j < mn; ++j) {
      ASSERT_GE(ipiv[j], j + 1) << "ipiv[" << j << "]";
      ASSERT_LE(ipiv[j], pr.m) << "ipiv[" << j << "]";
    }
    for (int j = mn; j < mn + kIpivGuard; ++j) ASSERT_EQ(ipiv[j], kIpivPoison) << "ipiv written past min(m, n)";
    for (int j = 0; j < mn && !pr.ipiv.empty(); ++j)
      ASSERT_EQ(ipiv[j], pr.ipiv[j]) << "not the partial-pivoting pivot at step " << j;
    ASSERT_TRUE(untouched_outside(pr.A, LU, [](int, int) { return true; }));
    ASSERT_LE(getrf_residual(pr.A, LU, ipiv), residual_limit<T>()) << "residual P A - L U";
    ASSERT_TRUE(pivot_bound(LU));
    if (pr.expect.rows) {
      ASSERT_LE(rel_diff(LU, pr.expect), compare_tol<T>(pr.n)) << "factors differ from the planted ones";
    }
    if (ref && pr.compare) {
      for (int j = 0; j < mn; ++j) ASSERT_EQ(ipiv[j], ref->ipiv[p][j]) << "ipiv differs from reference";
      ASSERT_LE(rel_diff(LU, ref->A[p]), compare_tol<T>(std::max(pr.m, pr.n))) << "factors differ from reference";
    }
  }
  ASSERT_EQ(out.rc, failures) << "return value is not the number of failed problems";
  count_checked((std::string("getrf ") + traits<T>::name() + " " + backend).c_str(), long(b.problems.size()));
}

template <class T>
void check_getri(const Batch<T> &b, const Output<T> &out, const NoDeduce<Output<T>> *ref, const char *backend) {
  long failures = 0;
  for (std::size_t p = 0; p < b.problems.size(); ++p) {
    const Problem<T> &pr = b.problems[p];
    const Mat<T> &X = out.A[p];
    SCOPED_TRACE(describe(p, pr.n, pr.n));
    const int zero = first_zero_diagonal(pr.A, pr.n);
    ASSERT_EQ(out.info[p], zero) << "info is not the first exactly zero U(i, i)";
    if (pr.info >= 0) {
      ASSERT_EQ(out.info[p], pr.info) << "info";
    }
    failures += out.info[p] != 0;
    for (std::size_t j = 0; j < out.ipiv[p].size(); ++j)
      ASSERT_EQ(out.ipiv[p][j], j < pr.ipiv.size() ? pr.ipiv[j] : kIpivPoison) << "ipiv[" << j << "] changed";
    if (zero) {  // singular: A must be left exactly as it was
      ASSERT_TRUE(untouched_outside(pr.A, X, [](int, int) { return false; })) << "A changed although singular";
      continue;
    }
    ASSERT_TRUE(untouched_outside(pr.A, X, [](int, int) { return true; }));
    if (pr.orig.rows) {
      ASSERT_LE(getri_residual(pr.orig, X), residual_limit<T>()) << "residual I - A inv(A)";
    }
    if (ref && pr.compare) {
      ASSERT_LE(rel_diff(X, ref->A[p]), compare_tol<T>(pr.n)) << "inverse differs from reference";
    }
  }
  ASSERT_EQ(out.rc, failures) << "return value is not the number of failed problems";
  count_checked((std::string("getri ") + traits<T>::name() + " " + backend).c_str(), long(b.problems.size()));
}

// Tall and wide shapes for getrf (each one group).
constexpr int kRect[][2] = {{40, 7}, {7, 40}, {33, 1}, {1, 33}, {0, 5}, {5, 0}, {65, 31}, {2, 3}, {17, 16}};

template <class T>
class GetrfGetri : public ::testing::Test {};
TYPED_TEST_SUITE(GetrfGetri, AllPrecisions, PrecisionNames);

// Runs `run` on the reference backend and checks that output on its own, then runs and checks
// every other backend against it. Returns the reference output, which later steps build on.
template <class T, class Run, class Check>
Output<T> against_reference(const char *routine, const Batch<T> &b, Run run, Check check) {
  Output<T> ref;
  {
    BackendScope s("reference");
    ref = run(b);
    SCOPED_TRACE(std::string(routine) + " backend reference");
    check(b, ref, nullptr, "reference");
  }
  for (const char *backend : backends_for<T>()) {
    if (::testing::Test::HasFatalFailure()) break;
    SCOPED_TRACE(std::string(routine) + " backend " + backend);
    BackendScope s(backend);
    check(b, run(b), &ref, backend);
  }
  return ref;
}

// Dominant inputs: getrf against the known pivots and the reference, then getri on the
// reference's factors against the reference's inverse.
template <class T>
void check_dominant(BLAS_Layout layout, int level) {
  SCOPED_TRACE(seed_note());
  SCOPED_TRACE(std::string("dominant inputs, layout ") + layout_name(layout));
  Batch<T> f{layout, {}, {}};
  auto make = [&](int m, int n, int pad, int) { return dominant_problem<T>(m, n, layout, pad); };
  int idx = 0;
  for (int n : square_sizes<T>(level)) f.add(n, n, batch_for(n, idx++), make);
  for (const auto &r : kRect) f.add(r[0], r[1], batch_for(std::max(r[0], r[1]), idx++), make);
  auto planted = [&](int, int n, int pad, int) { return planted_problem<T>(n, layout, pad); };
  for (int n : {1, 2, 3, 4, 7, 16, 31, 32, 33, is_quad<T> ? 48 : 64}) f.add(n, n, 3, planted);
  const Output<T> ref = against_reference<T>("getrf", f, run_getrf<T>, check_getrf<T>);
  if (::testing::Test::HasFatalFailure()) return;
  Batch<T> g = factors_of(f, ref);
  const Output<T> gref = against_reference<T>("getri", g, run_getri<T>, check_getri<T>);
  if (::testing::Test::HasFatalFailure()) return;
}

// Random inputs: each backend's getrf, then its getri on its own factors; residuals only.
template <class T>
void check_random(BLAS_Layout layout, int level) {
  SCOPED_TRACE(seed_note());
  SCOPED_TRACE(std::string("random inputs, layout ") + layout_name(layout));
  Batch<T> f{layout, {}, {}};
  auto make = [&](int m, int n, int pad, int) { return random_problem<T>(m, n, layout, pad); };
  int idx = 0;
  for (int n : square_sizes<T>(level)) f.add(n, n, batch_for(n, idx++), make);
  for (const auto &r : kRect) f.add(r[0], r[1], batch_for(std::max(r[0], r[1]), idx++), make);
  std::vector<const char *> backends = backends_for<T>();
  backends.insert(backends.begin(), "reference");
  for (const char *backend : backends) {
    BackendScope s(backend);
    Output<T> out = run_getrf(f);
    {
      SCOPED_TRACE(std::string("getrf backend ") + backend);
      ASSERT_NO_FATAL_FAILURE(check_getrf(f, out, nullptr, backend));
    }
    SCOPED_TRACE(std::string("getri backend ") + backend);
    Batch<T> g = factors_of(f, out);
    ASSERT_NO_FATAL_FAILURE(check_getri(g, run_getri(g), nullptr, backend));
  }
}

// Regular and exactly singular problems in the same groups of one call.
template <class T>
void check_singular(BLAS_Layout layout) {
  SCOPED_TRACE(seed_note());
  SCOPED_TRACE(std::string("singular inputs, layout ") + layout_name(layout));
  Batch<T> f{layout, {}, {}};
  // Kind i of a group: 0 regular, 1 column 0 zero, 2 a random column zero, 3 two random
  // columns zero (the first counts), 4 the last column zero, 5 the zero matrix, 6 a zero row
  // (info min(m, n) where m <= n, else regular), 7 regular again. For wide shapes the zero
  // columns are drawn from all n: a zero column at or past m is no zero pivot (info 0).
  constexpr int kKinds = 8;
  auto make = [&](int m, int n, int pad, int i) {
    std::vector<int> zero;
    switch (n > 0 ? i % kKinds : 0) {
      case 1: zero = {0}; break;
      case 2: zero = {random_int(0, n - 1)}; break;
      case 3: zero = {random_int(0, n - 1), random_int(0, n - 1)}; break;
      case 4: zero = {n - 1}; break;
      case 5: zero.resize(n), std::iota(zero.begin(), zero.end(), 0); break;
      case 6: return dominant_problem<T>(m, n, layout, pad, {}, /*zero_row=*/true);
      default: break;
    }
    return dominant_problem<T>(m, n, layout, pad, zero);
  };
  for (int n : {1, 2, 3, 5, 8, 13, 32, 33, 48}) f.add(n, n, kKinds, make);
  f.add(5, 5, 0, make);  // an empty group
  f.add(0, 0, 2, make);
  for (const auto &r : {std::pair{40, 7}, {7, 40}, {1, 9}, {9, 1}, {3, 36}})
    f.add(r.first, r.second, kKinds, make);
  const Output<T> ref = against_reference<T>("getrf", f, run_getrf<T>, check_getrf<T>);
  if (::testing::Test::HasFatalFailure()) return;
  // getri on the reference's factors (singular ones included, info as getrf's), plus per
  // group three factorizations of kind 0 with U(i, i) zeroed: a random i, i = 0 as -0,
  // and two of them (the first counts).
  Batch<T> g = factors_of(f, ref);
  Batch<T> h{layout, {}, {}};
  std::size_t p = 0;
  for (const Group &gr : g.groups) {
    const int extra = gr.count > 0 && gr.n > 0 ? 3 : 0;
    h.groups.push_back({gr.n, gr.n, gr.count + extra});
    for (int i = 0; i < gr.count; ++i) h.problems.push_back(g.problems[p + i]);
    for (int e = 0; e < extra; ++e) {
      Problem<T> pr = g.problems[p];  // kind 0: regular
      pr.orig = Mat<T>();
      std::vector<int> zeros;
      if (e == 0) zeros = {random_int(0, gr.n - 1)};
      if (e == 1) zeros = {0};
      if (e == 2) zeros = {random_int(0, gr.n - 1), random_int(0, gr.n - 1)};
      for (int z : zeros) pr.A(z, z) = e == 1 ? -T(0) : T(0);
      pr.info = *std::min_element(zeros.begin(), zeros.end()) + 1;
      h.problems.push_back(pr);
    }
    p += gr.count;
  }
  const Output<T> href = against_reference<T>("getri", h, run_getri<T>, check_getri<T>);
  if (::testing::Test::HasFatalFailure()) return;
}

// NaN, Inf and subnormal numbers (SPEC.md section 3): every backend follows one rule. The pivot
// is the first entry with a NaN part, else the first of largest |re| + |im|; a zero pivot is
// not divided by but its zero column still updates the trailing matrix (0 x Inf = NaN); a
// subnormal pivot is divided by, never multiplied by its overflowing reciprocal. Outcomes the
// rule fixes are checked exactly; beyond them every backend must agree with the reference in
// ipiv, info and where NaN and Inf appear.
template <class T>
void check_non_finite(BLAS_Layout layout) {
  SCOPED_TRACE(seed_note());
  SCOPED_TRACE(std::string("NaN / Inf / subnormal inputs, layout ") + layout_name(layout));
  using R = typename traits<T>::real;
  const R inf = R(INFINITY), nan = R(NAN);
  R tiny;  // a subnormal number of the storage precision whose half is exact
  if constexpr (is_half<T>) tiny = R(0x1p-17f);
  else if constexpr (is_quad<T>) tiny = bb::smallest_normal<R>() / R(8);
  else tiny = std::numeric_limits<R>::min() / R(8);
  struct Expect {
    const char *what;
    std::vector<std::pair<int, int>> ipiv;  // (step, 1-based pivot) the rule fixes
    int info;
    std::vector<std::pair<int, int>> nan_at, inf_at;  // output elements that must be NaN / Inf
    bool finite_elsewhere;                            // and every other element finite
  };
  std::vector<Expect> expect;
  Batch<T> b{layout, {}, {}};
  auto add = [&](int n, Expect e, auto plant) {
    b.add(n, n, 1, [&](int m, int nn, int pad, int) {
      Problem<T> pr;
      pr.m = m, pr.n = nn, pr.A = Mat<T>(m, nn, layout, pad);
      pr.A.fill_random();
      plant(pr.A);
      return pr;
    });
    expect.push_back(e);
  };
  auto c = [](R re, R im = R(0)) {
    if constexpr (is_cplx<T>) return T(re, im);
    else return T(re);
  };
  add(6, {"NaN at (2,0)", {{0, 3}}, 0, {}, {}, false}, [&](Mat<T> &A) { A(2, 0) = c(nan); });
  add(6, {"NaN at (4,0) and (1,0): the first", {{0, 2}}, 0, {}, {}, false},
      [&](Mat<T> &A) { A(4, 0) = c(nan), A(1, 0) = c(nan); });
  add(6, {"NaN part at (3,0) behind a larger entry", {{0, 4}}, 0, {}, {}, false},
      [&](Mat<T> &A) { A(0, 0) = c(R(8)), A(3, 0) = is_cplx<T> ? c(R(0.5), nan) : c(nan); });
  add(6, {"Inf at (4,0)", {{0, 5}}, 0, {}, {{0, 0}}, true}, [&](Mat<T> &A) { A(4, 0) = c(-inf); });
  std::vector<std::pair<int, int>> nan_col3;
  for (int i = 1; i < 6; ++i) nan_col3.push_back({i, 3});
  add(6, {"zero column 0, Inf at (0,3)", {{0, 1}, {3, 4}}, 1, nan_col3, {{0, 3}}, false}, [&](Mat<T> &A) {
    for (int i = 0; i < 6; ++i) A(i, 0) = c(R(0));
    A(0, 3) = c(inf);
  });
  add(2, {"subnormal pivot", {{0, 1}, {1, 2}}, 0, {}, {}, true}, [&](Mat<T> &A) {
    A(0, 0) = c(tiny), A(1, 0) = c(tiny / R(2)), A(0, 1) = c(R(1)), A(1, 1) = c(R(1));
  });
  const Output<T> ref = [&] {
    BackendScope s("reference");
    return run_getrf(b);
  }();
  std::vector<const char *> backends = backends_for<T>();
  backends.insert(backends.begin(), "reference");
  for (const char *backend : backends) {
    BackendScope s(backend);
    const Output<T> out = std::string(backend) == "reference" ? ref : run_getrf(b);
    for (std::size_t p = 0; p < b.problems.size(); ++p) {
      const Expect &e = expect[p];
      SCOPED_TRACE(std::string("backend ") + backend + ", " + e.what);
      const Mat<T> &X = out.A[p];
      for (auto [step, piv] : e.ipiv) ASSERT_EQ(out.ipiv[p][step], piv) << "ipiv[" << step << "]";
      ASSERT_EQ(out.info[p], e.info);
      ASSERT_EQ(out.info[p], ref.info[p]) << "info differs from the reference";
      for (int j = 0; j < X.rows && j < X.cols; ++j) ASSERT_EQ(out.ipiv[p][j], ref.ipiv[p][j]) << "ipiv[" << j << "] differs from the reference";
      auto is_inf = [](const T &x) { return !has_nan(x) && !bb::isfinite_all(wide(x)); };
      for (auto [i, j] : e.nan_at) ASSERT_TRUE(has_nan(X(i, j))) << "(" << i << "," << j << ") not NaN";
      for (auto [i, j] : e.inf_at) ASSERT_TRUE(is_inf(X(i, j))) << "(" << i << "," << j << ") not Inf";
      for (int j = 0; j < X.cols; ++j)
        for (int i = 0; i < X.rows; ++i) {
          ASSERT_EQ(has_nan(X(i, j)), has_nan(ref.A[p](i, j))) << "NaN at (" << i << "," << j << ") differs from the reference";
          ASSERT_EQ(is_inf(X(i, j)), is_inf(ref.A[p](i, j))) << "Inf at (" << i << "," << j << ") differs from the reference";
          const bool listed = std::count(e.inf_at.begin(), e.inf_at.end(), std::pair{i, j}) > 0;
          if (e.finite_elsewhere && !listed) ASSERT_TRUE(bb::isfinite_all(wide(X(i, j)))) << "(" << i << "," << j << ") not finite";
        }
      ASSERT_TRUE(untouched_outside(b.problems[p].A, X, [](int, int) { return true; }));
      if (std::string(e.what) == "subnormal pivot") {  // L(1,0) = 1/2 and U(1,1) = 1/2 exactly
        ASSERT_TRUE(same_bits(X(1, 0), c(R(0.5)))) << "L(1,0) is not 1/2";
        ASSERT_TRUE(same_bits(X(1, 1), c(R(0.5)))) << "U(1,1) is not 1/2";
      }
    }
    count_checked((std::string("getrf non-finite ") + traits<T>::name() + " " + backend).c_str(), long(b.problems.size()));
  }
}

TYPED_TEST(GetrfGetri, ColumnMajorNonFinite) { check_non_finite<typename TypeParam::type>(BLAS_ColMajor); }
TYPED_TEST(GetrfGetri, RowMajorNonFinite) { check_non_finite<typename TypeParam::type>(BLAS_RowMajor); }
TYPED_TEST(GetrfGetri, ColumnMajorDominant) { check_dominant<typename TypeParam::type>(BLAS_ColMajor, 2); }
TYPED_TEST(GetrfGetri, RowMajorDominant) { check_dominant<typename TypeParam::type>(BLAS_RowMajor, 1); }
TYPED_TEST(GetrfGetri, ColumnMajorRandom) { check_random<typename TypeParam::type>(BLAS_ColMajor, 1); }
TYPED_TEST(GetrfGetri, RowMajorRandom) { check_random<typename TypeParam::type>(BLAS_RowMajor, 1); }
TYPED_TEST(GetrfGetri, ColumnMajorSingular) { check_singular<typename TypeParam::type>(BLAS_ColMajor); }
TYPED_TEST(GetrfGetri, RowMajorSingular) { check_singular<typename TypeParam::type>(BLAS_RowMajor); }

}  // namespace
}  // namespace conf
