// potrf and geqrf: every precision x layout (x uplo for potrf) x backend, square sizes 0..32
// and beyond, tall and wide shapes for geqrf, all in one call per configuration. Checked
// against the reference and, independently of it, by residuals in a wide type: A - L L^H
// (or U^H U), A - Q R and I - Q^H Q with Q built explicitly from v and tau. The triangle
// potrf must not reference holds NaN and, like the padding, must come back bit-identical;
// complex diagonals carry an imaginary part that must be ignored. tau arrays start as NaN with
// guard entries past min(m, n) that must stay NaN. A second potrf call per configuration mixes
// positive definite problems with ones whose leading minor of order k+1 is not (negative, zero
// or NaN pivot): info = k+1 exactly there, return value = number of failures.
#include "common.hpp"

#include <algorithm>

namespace conf {
namespace {

// ======================================= potrf =========================================

struct PotrfGroup {
  BLAS_Uplo uplo;
  int n, count;
};

template <class T>
struct PotrfCase {
  BLAS_Layout layout;
  std::vector<PotrfGroup> groups;
  std::vector<Mat<T>> A;    // inputs, one per problem
  std::vector<int> expect;  // the info each problem must get

  // A group of `count` positive definite problems sharing one leading dimension.
  void add(BLAS_Uplo uplo, int n, int count) {
    groups.push_back({uplo, n, count});
    int pad = random_int(0, 3);
    for (int i = 0; i < count; ++i) A.push_back(make_hpd<T>(n, layout, uplo, pad)), expect.push_back(0);
  }

  int run(std::vector<Mat<T>> &out, std::vector<int> &info) const {
    std::vector<BLAS_Uplo> uplo;
    std::vector<int> n, ld, sizes;
    std::vector<T *> pa;
    out = A;
    std::size_t p = 0;
    for (const PotrfGroup &g : groups) {
      uplo.push_back(g.uplo), n.push_back(g.n), sizes.push_back(g.count);
      ld.push_back(g.count ? A[p].ld : std::max(1, g.n));
      for (int i = 0; i < g.count; ++i, ++p) pa.push_back(out[p].ptr());
    }
    info.assign(p, -12345);
    return Api<T>::potrf(layout, uplo.data(), n.data(), pa.data(), ld.data(), int(groups.size()),
                         sizes.data(), info.data());
  }
};

// Everything a successful factorization must satisfy, independently of the reference.
// `rounded_once`: half precision factors computed in binary32 and rounded once (the host
// kernels, SPEC.md section 6), which meet the bound of one rounding of L.
template <class T>
void check_factor(const Mat<T> &A, const Mat<T> &F, BLAS_Uplo uplo, bool rounded_once = false) {
  const int n = A.rows;
  // Only the `uplo` triangle may change: the other one (NaN) and the padding stay.
  ASSERT_TRUE(untouched_outside(A, F, [&](int i, int j) { return in_triangle(uplo, i, j); }));
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      if (in_triangle(uplo, i, j)) ASSERT_FALSE(has_nan(F(i, j))) << "NaN at " << i << "," << j;
  // The diagonal of the factor is real and positive (LAPACK's convention).
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(bb::imag(wide(F(i, i))) == 0) << "imaginary part on the diagonal at " << i;
    ASSERT_TRUE(bb::real(wide(F(i, i))) > 0) << "diagonal entry not positive at " << i;
  }
  const double res = potrf_residual(A, F, uplo);
  ASSERT_LE(res, residual_limit<T>()) << "||A - L L^H|| / (n ||A|| eps)";
  ASSERT_LE(potrf_residual_probe(A, F, uplo), residual_limit<T>()) << "||A x - L L^H x|| / (n ||A|| ||x|| eps)";
  if (is_half<T> && rounded_once && n > 0) {
    // L rounded once: about two half roundings of ||L||^2 (about sqrt(n) ||A|| for these
    // matrices), plus n single ones. Measured up to about 2.5; an error of 1 % in L's entries
    // gives about 40, where n eps16 x 60 (the bound above) lets most of 100 % through.
    const double once = in_rounded_once_units<T>(res, n, std::sqrt(double(n)), n);
    ASSERT_LE(once, 8.0) << "||A - L L^H|| / (||A|| (sqrt(n) eps16 + n u32)): rounded once";
  }
}

template <class T>
class Potrf : public ::testing::Test {};
TYPED_TEST_SUITE(Potrf, AllPrecisions, PrecisionNames);

template <class T>
void check_potrf(BLAS_Layout layout) {
  SCOPED_TRACE(seed_note());
  for (BLAS_Uplo uplo : kUplos) {
    // Medium sizes (the vendor path also under `native`) for two configurations, a large one
    // for one of them.
    int level = layout == BLAS_ColMajor ? (uplo == BLAS_Lower ? 2 : 0) : (uplo == BLAS_Upper ? 1 : 0);
    PotrfCase<T> c{layout, {}, {}, {}};
    int idx = 0;
    for (int n : square_sizes<T>(level)) c.add(uplo, n, batch_for(n, idx++));
    c.add(uplo, 7, 0);   // an empty group
    c.add(uplo, 40, 2);  // past the host-kernel limit
    std::vector<Mat<T>> Fref;
    std::vector<int> info_ref;
    {
      BackendScope s("reference");
      ASSERT_EQ(c.run(Fref, info_ref), 0);
    }
    std::vector<const char *> backends = backends_for<T>();
    backends.insert(backends.begin(), "reference");  // its output is checked too
    for (const char *backend : backends) {
      SCOPED_TRACE(std::string("backend ") + backend + " layout " + layout_name(layout) + " uplo " +
                   uplo_name(uplo));
      std::vector<Mat<T>> F;
      std::vector<int> info;
      bool is_ref = std::string(backend) == "reference";
      if (is_ref) {
        F = Fref, info = info_ref;
      } else {
        BackendScope s(backend);
        ASSERT_EQ(c.run(F, info), 0);
      }
      std::size_t p = 0;
      for (const PotrfGroup &g : c.groups)
        for (int i = 0; i < g.count; ++i, ++p) {
          SCOPED_TRACE("problem " + std::to_string(p) + " n " + std::to_string(g.n));
          ASSERT_EQ(info[p], 0);
          check_factor(c.A[p], F[p], g.uplo, /*rounded_once=*/!is_ref);
          if (::testing::Test::HasFatalFailure()) return;
          // Against the reference. A has eigenvalues in [1, ~4], so its Cholesky factor is
          // perturbed by at most a small multiple of the backward error (O(n eps) normwise).
          if (!is_ref)
            ASSERT_LE(rel_diff_where(F[p], Fref[p], [&](int r, int s) { return in_triangle(g.uplo, r, s); }),
                      compare_tol<T>(g.n))
                << "differs from reference";
        }
      count_checked((std::string("potrf ") + traits<T>::name() + " " + backend).c_str(), long(p));
    }
  }
}

// The residual's probe (potrf_residual_probe, used by the GPU suite between a large group's
// fully checked problems) passes a correct factor and fails one scaled by 1 + s, whose
// residual is ((1 + s)^2 - 1) A: for these matrices (eigenvalues in [1, about 3.7]) a probe of
// at least ((1 + s)^2 - 1) / (3.7 n^1.5 eps), at n = 40 about 360 (r32, s = 1/100) and 138
// (half, s = 7: scaled by 8, exact) against limits of 30 and 60.
TYPED_TEST(Potrf, ResidualProbe) {
  using T = typename TypeParam::type;
  SCOPED_TRACE(seed_note());
  const double s = is_half<T> ? 7.0 : 1e-2;
  for (BLAS_Layout layout : kLayouts)
    for (BLAS_Uplo uplo : kUplos)
      for (int n : {1, 9, 40}) {
        SCOPED_TRACE("n " + std::to_string(n) + " layout " + layout_name(layout) + " uplo " + uplo_name(uplo));
        PotrfCase<T> c{layout, {}, {}, {}};
        c.add(uplo, n, 1);
        std::vector<Mat<T>> F;
        std::vector<int> info;
        {
          BackendScope scope("reference");
          ASSERT_EQ(c.run(F, info), 0);
        }
        EXPECT_LE(potrf_residual_probe(c.A[0], F[0], uplo), residual_limit<T>());
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < n; ++i)
            if (in_triangle(uplo, i, j)) F[0](i, j) = narrow<T>(wide(F[0](i, j)) * WideReal<T>(1 + s));
        EXPECT_GT(potrf_residual_probe(c.A[0], F[0], uplo), residual_limit<T>()) << "a factor scaled by " << 1 + s;
      }
}

TYPED_TEST(Potrf, ColumnMajorBothTriangles) { check_potrf<typename TypeParam::type>(BLAS_ColMajor); }
TYPED_TEST(Potrf, RowMajorBothTriangles) { check_potrf<typename TypeParam::type>(BLAS_RowMajor); }

// One call mixing positive definite problems with ones that are not: diagonal entry k made
// strongly negative (or A(0, 0) = 0, or NaN) keeps the leading minors of order <= k positive
// definite and makes the one of order k+1 fail, so exactly those problems get info = k+1.
template <class T>
void check_potrf_info(BLAS_Layout layout) {
  SCOPED_TRACE(seed_note());
  for (int flip = 0; flip < 2; ++flip) {  // each size with both triangles, mixed in one call
    PotrfCase<T> c{layout, {}, {}, {}};
    // 40 and 100: past the host-kernel limit (the vendor path also under `native`), 100
    // blocked inside OpenBLAS; software quad stops at 48.
    const int sizes[] = {1, 2, 3, 5, 8, 13, 24, 32, 40, is_quad<T> ? 48 : 100};
    int g = 0;
    for (int n : sizes) {
      BLAS_Uplo uplo = (g++ + flip) % 2 ? BLAS_Upper : BLAS_Lower;
      std::size_t first = c.A.size();
      c.add(uplo, n, 6);
      for (int i = 0; i < 6; ++i) {
        Mat<T> &a = c.A[first + i];
        int k = -1;
        WideReal<T> d = -4;
        switch ((i + g) % 6) {
          case 0: case 3: break;  // positive definite
          case 1: k = random_int(0, n - 1); break;
          case 2: k = n - 1; break;
          case 4: k = 0, d = i % 2 ? 0 : -4; break;  // d = 0 is the boundary: not positive
          case 5: k = random_int(0, n - 1), d = WideReal<T>(NAN); break;  // a NaN pivot (SPEC)
        }
        if (k < 0) continue;
        a(k, k) = narrow<T>(Wide<T>(d));
        c.expect[first + i] = k + 1;
      }
    }
    int failing = (int)std::count_if(c.expect.begin(), c.expect.end(), [](int e) { return e != 0; });
    std::vector<Mat<T>> Fref;
    std::vector<int> info_ref;
    {
      BackendScope s("reference");
      ASSERT_EQ(c.run(Fref, info_ref), failing);
    }
    std::vector<const char *> backends = backends_for<T>();
    backends.insert(backends.begin(), "reference");
    for (const char *backend : backends) {
      SCOPED_TRACE(std::string("backend ") + backend + " layout " + layout_name(layout) + " flip " +
                   std::to_string(flip));
      std::vector<Mat<T>> F;
      std::vector<int> info;
      bool is_ref = std::string(backend) == "reference";
      if (is_ref) {
        F = Fref, info = info_ref;
      } else {
        BackendScope s(backend);
        ASSERT_EQ(c.run(F, info), failing) << "return value = number of failing problems";
      }
      std::size_t p = 0;
      for (const PotrfGroup &gr : c.groups)
        for (int i = 0; i < gr.count; ++i, ++p) {
          SCOPED_TRACE("problem " + std::to_string(p) + " n " + std::to_string(gr.n) + " uplo " +
                       uplo_name(gr.uplo) + " expected info " + std::to_string(c.expect[p]));
          ASSERT_EQ(info[p], c.expect[p]);
          if (c.expect[p] != 0) {
            // The factor is unspecified, but the other triangle and the padding are not.
            ASSERT_TRUE(untouched_outside(c.A[p], F[p], [&](int r, int s) { return in_triangle(gr.uplo, r, s); }));
            continue;
          }
          check_factor(c.A[p], F[p], gr.uplo, /*rounded_once=*/!is_ref);
          if (::testing::Test::HasFatalFailure()) return;
          if (!is_ref)
            ASSERT_LE(rel_diff_where(F[p], Fref[p], [&](int r, int s) { return in_triangle(gr.uplo, r, s); }),
                      compare_tol<T>(gr.n))
                << "differs from reference";
        }
      count_checked((std::string("potrf info ") + traits<T>::name() + " " + backend).c_str(), long(p));
    }
  }
}

TYPED_TEST(Potrf, ColumnMajorNotPositiveDefinite) { check_potrf_info<typename TypeParam::type>(BLAS_ColMajor); }
TYPED_TEST(Potrf, RowMajorNotPositiveDefinite) { check_potrf_info<typename TypeParam::type>(BLAS_RowMajor); }

// ======================================= geqrf =========================================

struct QrGroup {
  int m, n, count;
  QrKind kind;
};

constexpr int kTauGuard = 2;  // NaN entries past min(m, n) that must stay untouched

template <class T>
struct GeqrfCase {
  BLAS_Layout layout;
  std::vector<QrGroup> groups;
  std::vector<Mat<T>> A;
  std::vector<std::vector<T>> tau;  // min(m, n) + kTauGuard entries, all NaN

  void add(int m, int n, int count, QrKind kind) {
    groups.push_back({m, n, count, kind});
    int pad = random_int(0, 3);
    for (int i = 0; i < count; ++i) {
      A.push_back(make_qr_input<T>(m, n, layout, pad, kind));
      tau.emplace_back(std::min(m, n) + kTauGuard, nan_value<T>());
    }
  }

  int run(std::vector<Mat<T>> &out, std::vector<std::vector<T>> &tout, std::vector<int> &info) const {
    std::vector<int> m, n, ld, sizes;
    std::vector<T *> pa, pt;
    out = A, tout = tau;
    std::size_t p = 0;
    for (const QrGroup &g : groups) {
      m.push_back(g.m), n.push_back(g.n), sizes.push_back(g.count);
      ld.push_back(g.count ? A[p].ld : std::max(1, layout == BLAS_ColMajor ? g.m : g.n));
      for (int i = 0; i < g.count; ++i, ++p) pa.push_back(out[p].ptr()), pt.push_back(tout[p].data());
    }
    info.assign(p, -12345);
    return Api<T>::geqrf(layout, m.data(), n.data(), pa.data(), ld.data(), pt.data(), int(groups.size()),
                         sizes.data(), info.data());
  }
};

template <class T>
class Geqrf : public ::testing::Test {};
TYPED_TEST_SUITE(Geqrf, AllPrecisions, PrecisionNames);

template <class T>
void check_geqrf(BLAS_Layout layout) {
  SCOPED_TRACE(seed_note());
  GeqrfCase<T> c{layout, {}, {}, {}};
  int idx = 0;
  for (int n : square_sizes<T>(layout == BLAS_ColMajor ? 1 : 0)) c.add(n, n, batch_for(n, idx++), QrKind::boosted);
  const int rect[][2] = {{40, 7}, {7, 40}, {33, 1}, {1, 33}, {0, 5}, {5, 0}, {65, 31}, {31, 65},
                         {2, 1},  {1, 2},  {17, 16}, {16, 17}, {9, 3}, {3, 9}};
  for (const auto &r : rect) c.add(r[0], r[1], batch_for(std::max(r[0], r[1]), idx++), QrKind::boosted);
  const int plain[][2] = {{8, 8}, {24, 24}, {30, 10}, {10, 30}, {45, 45}};
  for (const auto &r : plain) c.add(r[0], r[1], 2, QrKind::plain);
  const int tri[][2] = {{1, 1}, {12, 12}, {20, 9}, {9, 20}, {40, 40}};
  for (const auto &r : tri) c.add(r[0], r[1], 2, QrKind::triangular);
  c.add(6, 4, 0, QrKind::boosted);  // an empty group

  std::vector<Mat<T>> Fref;
  std::vector<std::vector<T>> tref;
  std::vector<int> info_ref;
  {
    BackendScope s("reference");
    ASSERT_EQ(c.run(Fref, tref, info_ref), 0);
  }
  std::vector<const char *> backends = backends_for<T>();
  backends.insert(backends.begin(), "reference");  // its output is checked too
  for (const char *backend : backends) {
    SCOPED_TRACE(std::string("backend ") + backend + " layout " + layout_name(layout));
    std::vector<Mat<T>> F;
    std::vector<std::vector<T>> tau;
    std::vector<int> info;
    bool is_ref = std::string(backend) == "reference";
    if (is_ref) {
      F = Fref, tau = tref, info = info_ref;
    } else {
      BackendScope s(backend);
      ASSERT_EQ(c.run(F, tau, info), 0);
    }
    std::size_t p = 0;
    for (const QrGroup &g : c.groups)
      for (int i = 0; i < g.count; ++i, ++p) {
        SCOPED_TRACE("problem " + std::to_string(p) + " m x n " + shape(g.m, g.n) +  " " +
                     kind_name(g.kind));
        const int k = std::min(g.m, g.n);
        const Mat<T> &A = c.A[p];
        ASSERT_EQ(info[p], 0);
        ASSERT_TRUE(untouched_outside(A, F[p], [](int, int) { return true; }));
        for (int col = 0; col < g.n; ++col)
          for (int r = 0; r < g.m; ++r) ASSERT_FALSE(has_nan(F[p](r, col))) << "NaN at " << r << "," << col;
        // tau: every one of the min(m, n) entries written, nothing past them.
        for (int j = 0; j < k; ++j) ASSERT_FALSE(has_nan(tau[p][j])) << "tau " << j << " not written";
        for (int j = k; j < k + kTauGuard; ++j)
          ASSERT_TRUE(same_bits(tau[p][j], c.tau[p][j])) << "tau written past min(m, n) at " << j;
        // xlarfg's conventions: beta = -sign(re alpha) ||(alpha, x)|| is real, so R's diagonal
        // is real, and tau = 0 or 1 <= re(tau) <= 2, |tau - 1| <= 1.
        for (int j = 0; j < k; ++j) {
          ASSERT_TRUE(bb::imag(wide(F[p](j, j))) == 0) << "R(" << j << "," << j << ") not real";
          Wide<T> t = wide(tau[p][j]);
          if (t == Wide<T>(0)) continue;
          // The bounds are attained (|tau - 1| = 1 when x is empty: the last reflector of a
          // square complex problem), so allow the roundings of re(tau) and im(tau) (norm,
          // sqrt, subtraction, division, storage: up to about 5 eps observed) and of this check.
          double slack = 16 * eps<T>();
          ASSERT_GE(to_double(bb::real(t)), 1.0 - slack) << "tau " << j;
          ASSERT_LE(to_double(bb::real(t)), 2.0 + slack) << "tau " << j;
          ASSERT_LE(to_double(bb::absval(t - Wide<T>(1))), 1.0 + slack) << "tau " << j;
        }
        if (g.kind == QrKind::triangular) {  // H = I throughout: nothing changes
          for (int j = 0; j < k; ++j) ASSERT_TRUE(wide(tau[p][j]) == Wide<T>(0)) << "tau " << j << " not 0";
          for (int col = 0; col < g.n; ++col)
            for (int r = 0; r < g.m; ++r)
              ASSERT_TRUE(wide(F[p](r, col)) == wide(A(r, col))) << "changed at " << r << "," << col;
        }
        double res, orth;
        qr_residuals(A, F[p], tau[p], res, orth);
        ASSERT_LE(res, residual_limit<T>()) << "||A - Q R|| / (max(m, n) ||A|| eps)";
        ASSERT_LE(orth, residual_limit<T>()) << "||I - Q^H Q|| / (m eps)";
        if (is_half<T> && !is_ref && k > 0) {
          // The host kernels' r16/c16 results: binary32 arithmetic, R, V and tau rounded once
          // (SPEC.md section 6). Measured up to 2.3 (residual) and 3.1 (orthogonality); an error
          // of 1 % in R and V gives a residual ratio of about 21, where the bounds above allow
          // 60 max(m, n) eps16 (190 % at order 32).
          const int big = std::max(g.m, g.n);
          const double once = in_rounded_once_units<T>(res, big, 1, big);
          const double orth_once = in_rounded_once_units<T>(orth, g.m, std::sqrt(double(g.m)), g.m);
          ASSERT_LE(once, 6.0) << "||A - Q R|| / (||A|| (eps16 + max(m, n) u32)): rounded once";
          ASSERT_LE(orth_once, 8.0) << "||I - Q^H Q|| / (sqrt(m) eps16 + m u32): rounded once";
        }
        if (g.kind == QrKind::boosted && !is_ref) {
          // The comparison is meaningful only while no Householder sign choice is close:
          // re(tau) - 1 = |re alpha| / ||(alpha, x)|| is the margin (input design).
          for (int j = 0; j < k; ++j)
            if (!(wide(tref[p][j]) == Wide<T>(0) && g.m == j + 1))  // no x, real alpha: no choice
              ASSERT_GE(to_double(bb::real(wide(tref[p][j]))) - 1, 0.1) << "input design: pivot " << j;
          // A is well conditioned (singular values within a factor ~3), so Q and R move by
          // a small multiple of the backward error of either factorization: O(max(m, n) eps).
          ASSERT_LE(qr_diff(F[p], tau[p], Fref[p], tref[p]), compare_tol<T>(std::max(g.m, g.n)))
              << "differs from reference";
        }
      }
    count_checked((std::string("geqrf ") + traits<T>::name() + " " + backend).c_str(), long(p));
  }
}

TYPED_TEST(Geqrf, ColumnMajor) { check_geqrf<typename TypeParam::type>(BLAS_ColMajor); }
TYPED_TEST(Geqrf, RowMajor) { check_geqrf<typename TypeParam::type>(BLAS_RowMajor); }

// A column whose squares underflow (xlarfg computes its norm scaled): (1, tiny, tiny) gives
// beta = -1, tau = 2 and v = tiny / 2 under every backend, the host kernels as LAPACK.
template <class T>
void check_tiny_norm(double tiny) {
  using R = typename traits<T>::real;
  for (const char *backend : {"native", "reference"}) {
    SCOPED_TRACE(std::string(traits<T>::name()) + " backend " + backend);
    BackendScope scope(backend);
    std::vector<T> a = {T(R(1)), T(R(tiny)), T(R(tiny))}, tau = {T(R(-7))};
    T *pa = a.data(), *pt = tau.data();
    const int m = 3, n = 1, ld = 3, size = 1;
    int info = -99;
    ASSERT_EQ(Api<T>::geqrf(BLAS_ColMajor, &m, &n, &pa, &ld, &pt, 1, &size, &info), 0);
    EXPECT_EQ(info, 0);
    EXPECT_EQ(to_double(bb::real(bb::compute_t<T>(tau[0]))), 2.0);
    EXPECT_EQ(to_double(bb::real(bb::compute_t<T>(a[0]))), -1.0);
    for (int i = 1; i < 3; ++i)
      EXPECT_NEAR(to_double(bb::real(bb::compute_t<T>(a[i]))) / (tiny / 2), 1.0, 4 * traits<T>::eps) << "v(" << i << ")";
  }
}
// Whole matrices far from 1: a boosted matrix times 2^e (exact), so that every column's plain
// sum of squares under- or overflows and, tiny, beta falls below safmin (xlarfg's rescaling
// loop): the host backend (its own kernels at small sizes, LAPACK above) scaled back must pass
// the boosted problem's checks and match LAPACK's factorization of the same input.
template <class T>
void check_scaled_geqrf(int e) {
  const int shapes[][2] = {{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {8, 8}, {13, 13}, {16, 16}, {24, 24},
                           {32, 32}, {47, 47}, {64, 64}, {40, 7}, {7, 40}, {20, 9}, {9, 20}};
  for (BLAS_Layout layout : {BLAS_ColMajor, BLAS_RowMajor})
    for (const auto &sh : shapes) {
      const int m = sh[0], n = sh[1], k = std::min(m, n), ld_pad = 1;
      SCOPED_TRACE(std::string(traits<T>::name()) + " 2^" + std::to_string(e) + " " + shape(m, n) + " " +
                   layout_name(layout));
      const Mat<T> B = make_qr_input<T>(m, n, layout, ld_pad, QrKind::boosted);
      const Mat<T> A = times_pow2(B, e, everywhere);
      auto factor = [&](const char *backend, std::vector<T> &tau) {
        BackendScope scope(backend);
        Mat<T> F = A;
        tau.assign(std::size_t(k), nan_value<T>());
        T *pa = F.ptr(), *pt = tau.data();
        const int one_problem = 1;
        int info = -99;
        EXPECT_EQ(Api<T>::geqrf(layout, &m, &n, &pa, &F.ld, &pt, 1, &one_problem, &info), 0);
        EXPECT_EQ(info, 0);
        return times_pow2(F, -e, upper_part);  // R scaled back (v and tau do not scale)
      };
      std::vector<T> tau, tau_ref;
      const Mat<T> F = factor("native", tau), Fref = factor("reference", tau_ref);
      for (int c = 0; c < n; ++c)
        for (int i = 0; i < m; ++i) ASSERT_FALSE(has_nan(F(i, c))) << "NaN at " << i << "," << c;
      double res, orth;
      qr_residuals(B, F, tau, res, orth);
      EXPECT_LE(res, residual_limit<T>()) << "||A - Q R|| / (max(m, n) ||A|| eps), scaled back";
      EXPECT_LE(orth, residual_limit<T>()) << "||I - Q^H Q|| / (m eps)";
      EXPECT_LE(qr_diff(F, tau, Fref, tau_ref), compare_tol<T>(std::max(m, n))) << "differs from LAPACK's";
    }
}
TEST(GeqrfTinyNorm, TinyAndHugeMatrices) {
  for (int e : {-110, 118}) check_scaled_geqrf<float>(e), check_scaled_geqrf<bb::complex<float>>(e);
  for (int e : {-980, 1000}) check_scaled_geqrf<double>(e), check_scaled_geqrf<bb::complex<double>>(e);
}

TEST(GeqrfTinyNorm, ScaledAsLapack) {
  check_tiny_norm<float>(1e-25);
  check_tiny_norm<bb::complex<float>>(1e-25);
  check_tiny_norm<double>(1e-170);
  check_tiny_norm<bb::complex<double>>(1e-170);
  // Subnormal x, whose largest entry has no finite reciprocal (a scaling by 1 / big gave NaN).
  check_tiny_norm<float>(std::ldexp(1.0, -140));
  check_tiny_norm<bb::complex<float>>(std::ldexp(1.0, -140));
  check_tiny_norm<double>(std::ldexp(1.0, -1060));
  check_tiny_norm<bb::complex<double>>(std::ldexp(1.0, -1060));
}

}  // namespace
}  // namespace conf
