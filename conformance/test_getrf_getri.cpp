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
// goes through the same independent checks. The inputs and the independent checks live in
// common.hpp, shared with the device tests (test_gpu_getrf.cpp).
#include "common.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace conf {
namespace {

constexpr int kIpivPoison = -7777;
constexpr int kInfoPoison = -12345;
constexpr int kIpivGuard = 3;  // poisoned ipiv entries past the ones the call may write

template <class X> struct NoDeduceT { using type = X; };
template <class X> using NoDeduce = typename NoDeduceT<X>::type;  // lets nullptr pass

struct Group {
  int m, n, count;
};

template <class T>
struct Batch {
  BLAS_Layout layout;
  std::vector<Group> groups;
  std::vector<LuProblem<T>> problems;
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
  for (const LuProblem<T> &pr : b.problems) {
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
  for (const LuProblem<T> &pr : b.problems) {
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
        const LuProblem<T> &in = f.problems[p + i];
        LuProblem<T> pr;
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
    const LuProblem<T> &pr = b.problems[p];
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
    const double res = getrf_residual(pr.A, LU, ipiv);
    ASSERT_LE(res, residual_limit<T>()) << "residual P A - L U";
    if (is_half<T> && std::string(backend) != "reference" && mn > 0) {
      // The host kernels' r16/c16 factors: binary32 arithmetic, L and U rounded once (SPEC.md
      // section 6). Measured up to 0.61; an error of 1 % in the factors' entries gives up to
      // 29, where the bound above allows a relative residual of 60 max(m, n) eps16: 94 % at
      // order 16, 750 % at 128.
      const int big = std::max(pr.m, pr.n);
      const double once = in_rounded_once_units<T>(res, big, std::sqrt(double(big)), big);
      ASSERT_LE(once, 3.0) << "||P A - L U|| / (||A|| (sqrt(max(m, n)) eps16 + max(m, n) u32)): rounded once";
    }
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
  long failures = 0, undetermined = 0;
  for (std::size_t p = 0; p < b.problems.size(); ++p) {
    const LuProblem<T> &pr = b.problems[p];
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
      const double res = getri_residual(pr.orig, X);
      // An inverse that overflowed: legitimate only where inv(U) or inv(U) inv(L) of the factors
      // comes near T's overflow threshold (the GPU suite's rule): a random half matrix can be
      // that close to singular (seed 15704474527854270513, order 65: 321 entries Inf in the
      // reference backend's inverse, condition 8.9e5). The residual, relative to ||X||, says
      // nothing then.
      if (!all_finite(X)) {
        ASSERT_GE(inverse_magnitude(pr.A), overflow_threshold<T>() / 16)
            << "inverse not finite, though its elements are far below the overflow threshold";
        ++undetermined;
        continue;
      }
      ASSERT_LE(res, residual_limit<T>()) << "residual I - A inv(A)";
      if (is_half<T> && std::string(backend) != "reference") {
        // The host kernels' r16/c16 inverse: binary32 arithmetic, rounded once (on their own
        // factors, or on the reference's, rounded at every step: within the same bound). Measured
        // up to 0.97; an error of 1 % in its entries gives 3.7-22 up to order 32 (1.2-2.9 above, where
        // ||A|| ||X|| in the bound is loose); the bound above, n eps16 x 60, allows 94 % of
        // ||A|| ||X|| at order 16.
        const int n = pr.n;
        const double once = in_rounded_once_units<T>(res, n, 1, n);
        ASSERT_LE(once, 3.0) << "||I - A X|| / (||A|| ||X|| (eps16 + n u32)): rounded once";
      }
    }
    if (ref && pr.compare) {
      ASSERT_LE(rel_diff(X, ref->A[p]), compare_tol<T>(pr.n)) << "inverse differs from reference";
    }
  }
  ASSERT_EQ(out.rc, failures) << "return value is not the number of failed problems";
  const std::string name = std::string("getri ") + traits<T>::name() + " " + backend;
  count_checked(name.c_str(), long(b.problems.size()) - undetermined);
  if (undetermined) count_checked((name + ", inverse overflowed near the threshold").c_str(), undetermined);
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
      LuProblem<T> pr = g.problems[p];  // kind 0: regular
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

// NaN, Inf and subnormal numbers (SPEC.md section 3): every backend follows one rule
// (non_finite_cases in common.hpp). Outcomes the rule fixes are checked exactly; beyond them
// every backend must agree with the reference in ipiv, info and where NaN and Inf appear.
template <class T>
void check_non_finite(BLAS_Layout layout) {
  SCOPED_TRACE(seed_note());
  SCOPED_TRACE(std::string("NaN / Inf / subnormal inputs, layout ") + layout_name(layout));
  std::vector<NonFiniteCase<T>> cases = non_finite_cases<T>(layout);
  for (NonFiniteCase<T> &e : non_finite_panel_cases<T>(layout)) cases.push_back(std::move(e));  // above 32: OpenBLAS
  Batch<T> b{layout, {}, {}};
  for (const NonFiniteCase<T> &e : cases)
    b.add(e.A.rows, e.A.cols, 1, [&](int m, int n, int, int) {
      LuProblem<T> pr;
      pr.m = m, pr.n = n, pr.A = e.A;
      return pr;
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
      SCOPED_TRACE(std::string("backend ") + backend + ", " + cases[p].what);
      check_non_finite_case(cases[p], out.A[p], out.ipiv[p].data(), out.info[p], ref.A[p], ref.ipiv[p].data(),
                            ref.info[p]);
      if (::testing::Test::HasFatalFailure()) return;
    }
    count_checked((std::string("getrf non-finite ") + traits<T>::name() + " " + backend).c_str(), long(b.problems.size()));
  }
}

// ---- the inverse in one call (SPEC.md section 9.4) ----------------------------------------------
// BLAS_getrf_getri_batched must leave exactly what getrf followed by getri leaves on the same
// backend (A bit for bit, ipiv, info, the return value), with getri's argument numbers:
// singular problems (info = getrf's, A its factors), a NULL A and a NULL ipiv, an invalid
// group; and return a call-level error in its own numbering with nothing touched.
template <class T>
void check_inverse_call(BLAS_Layout layout) {
  SCOPED_TRACE(seed_note());
  SCOPED_TRACE(std::string("getrf_getri, layout ") + layout_name(layout));
  Batch<T> b{layout, {}, {}};
  auto make = [&](int m, int n, int pad, int i) {  // every 4th problem singular
    return i % 4 == 3 && n > 0 ? dominant_problem<T>(m, n, layout, pad, {random_int(0, n - 1)})
                               : dominant_problem<T>(m, n, layout, pad);
  };
  for (int n : {1, 2, 3, 5, 8, 16, 32, 33, is_quad<T> ? 40 : 64}) b.add(n, n, 6, make);
  b.add(0, 0, 2, make);
  b.add(4, 4, 3, make);  // its A_ld made invalid below
  const int bad_group = int(b.groups.size()) - 1;
  // Copies of the inputs with poisoned ipiv and info, their pointer arrays (a NULL A in
  // problem 1, a NULL ipiv in problem 8) and the group arrays.
  struct Call {
    Output<T> o;
    std::vector<int> n, ld, sizes;
    std::vector<T *> pa;
    std::vector<int *> pp;
  };
  auto prepare = [&]() {
    Call c;
    for (const LuProblem<T> &pr : b.problems) {
      c.o.A.push_back(pr.A);
      c.o.ipiv.emplace_back(pr.n + kIpivGuard, kIpivPoison);
    }
    std::size_t p = 0;
    for (const Group &g : b.groups) {
      c.n.push_back(g.n), c.sizes.push_back(g.count);
      c.ld.push_back(g.count ? c.o.A[p].ld : std::max(1, g.n));
      for (int i = 0; i < g.count; ++i, ++p) c.pa.push_back(c.o.A[p].ptr()), c.pp.push_back(c.o.ipiv[p].data());
    }
    c.ld[bad_group] = 2;  // below n = 4
    c.pa[1] = nullptr, c.pp[8] = nullptr;
    c.o.info.assign(p, kInfoPoison);
    return c;
  };
  std::vector<const char *> backends = backends_for<T>();
  backends.insert(backends.begin(), "reference");
  const int G = int(b.groups.size());
  for (const char *backend : backends) {
    SCOPED_TRACE(std::string("backend ") + backend);
    BackendScope s(backend);
    Call two = prepare(), one = prepare();
    two.o.rc = Api<T>::getrf(layout, two.n.data(), two.n.data(), two.pa.data(), two.ld.data(), two.pp.data(), G,
                             two.sizes.data(), two.o.info.data());
    ASSERT_GE(two.o.rc, 0);
    two.o.rc = Api<T>::getri(layout, two.n.data(), two.pa.data(), two.ld.data(), two.pp.data(), G, two.sizes.data(),
                             two.o.info.data());
    one.o.rc = Api<T>::getrf_getri(layout, one.n.data(), one.pa.data(), one.ld.data(), one.pp.data(), G,
                                   one.sizes.data(), one.o.info.data());
    EXPECT_EQ(one.o.rc, two.o.rc) << "return value";
    EXPECT_EQ(one.o.info, two.o.info) << "info";
    std::size_t p = 0;
    int singular = 0;
    for (int g = 0; g < G; ++g)
      for (int i = 0; i < b.groups[g].count; ++i, ++p) {
        const int expect = g == bad_group ? -4 : p == 1 ? -3 : p == 8 ? -5 : b.problems[p].info;
        EXPECT_EQ(one.o.info[p], expect) << describe(p, b.groups[g].n, b.groups[g].n);
        singular += expect > 0;
        EXPECT_EQ(one.o.ipiv[p], two.o.ipiv[p]) << "ipiv, " << describe(p, b.groups[g].n, b.groups[g].n);
        bool same = one.o.A[p].data.size() == two.o.A[p].data.size();
        for (std::size_t e = 0; same && e < one.o.A[p].data.size(); ++e)
          same = same_bits(one.o.A[p].data[e], two.o.A[p].data[e]);
        EXPECT_TRUE(same) << "A differs from getrf + getri, " << describe(p, b.groups[g].n, b.groups[g].n);
        // A regular problem holds an inverse (getri's tests check the path), so not its input.
        if (expect == 0 && b.groups[g].n > 1) {
          bool changed = false;
          for (std::size_t e = 0; e < one.o.A[p].data.size(); ++e)
            changed = changed || !same_bits(one.o.A[p].data[e], b.problems[p].A.data[e]);
          EXPECT_TRUE(changed) << "A unchanged, " << describe(p, b.groups[g].n, b.groups[g].n);
        }
      }
    EXPECT_GT(singular, 0) << "the batch holds singular problems";
    if (::testing::Test::HasFailure()) return;
  }
  // Call-level errors, in this signature's numbering, nothing touched: group_count (6),
  // group_sizes (7), layout (1), n (2), the A, A_ld and ipiv arrays (3, 4, 5: getrf's 4, 5, 6).
  Call c = prepare();
  const Output<T> before = c.o;
  EXPECT_EQ(Api<T>::getrf_getri(layout, c.n.data(), nullptr, c.ld.data(), c.pp.data(), G, c.sizes.data(),
                                c.o.info.data()),
            -3);
  EXPECT_EQ(Api<T>::getrf_getri(layout, c.n.data(), c.pa.data(), nullptr, c.pp.data(), G, c.sizes.data(),
                                c.o.info.data()),
            -4);
  EXPECT_EQ(Api<T>::getrf_getri(layout, c.n.data(), c.pa.data(), c.ld.data(), nullptr, G, c.sizes.data(),
                                c.o.info.data()),
            -5);
  const int negative = -1;
  EXPECT_EQ(Api<T>::getrf_getri(layout, c.n.data(), c.pa.data(), c.ld.data(), c.pp.data(), -1, c.sizes.data(),
                                c.o.info.data()),
            -6);
  EXPECT_EQ(Api<T>::getrf_getri(layout, c.n.data(), c.pa.data(), c.ld.data(), c.pp.data(), 1, &negative,
                                c.o.info.data()),
            -7);
  EXPECT_EQ(Api<T>::getrf_getri(BLAS_Layout(0), c.n.data(), c.pa.data(), c.ld.data(), c.pp.data(), G,
                                c.sizes.data(), c.o.info.data()),
            -1);
  EXPECT_EQ(Api<T>::getrf_getri(layout, nullptr, c.pa.data(), c.ld.data(), c.pp.data(), G, c.sizes.data(),
                                c.o.info.data()),
            -2);
  EXPECT_EQ(c.o.info, before.info) << "info touched by a call-level error";
  EXPECT_EQ(c.o.ipiv, before.ipiv) << "ipiv touched by a call-level error";
  for (std::size_t p = 0; p < c.o.A.size(); ++p)
    EXPECT_TRUE(std::memcmp(c.o.A[p].data.data(), before.A[p].data.data(), before.A[p].data.size() * sizeof(T)) == 0)
        << "A touched by a call-level error, problem " << p;
}

TYPED_TEST(GetrfGetri, ColumnMajorInverseInOneCall) { check_inverse_call<typename TypeParam::type>(BLAS_ColMajor); }
TYPED_TEST(GetrfGetri, RowMajorInverseInOneCall) { check_inverse_call<typename TypeParam::type>(BLAS_RowMajor); }
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
