// trsm and trmm: every precision x layout x side x uplo x A_trans x diag x backend, square
// sizes 0..32 and beyond, rectangular shapes, empty problems and alpha = 0 (NaN in the
// unread B), all in one call per configuration. A is well conditioned, holds NaN wherever the
// routine must not read it (the other triangle, the diagonal when diag = Unit, the padding)
// and must come back bit-identical. Results are checked against the reference backend and
// against a residual computed in a wide type from the stored triangle alone. r128 and c128
// (software floating point) thin out the sizes 17..32; see sizes_for.
#include "triangular_common.hpp"

#include <cmath>

namespace conf {
namespace {

// Square sizes of configuration number `ci` (0..23 within one routine and layout).
// r128 and c128 run in software floating point, ~30x slower than double: there every size up
// to 16 is in every configuration, the sizes 17..32 rotate over the configurations (each in
// one of eight: within one test every size still meets both sides, both uplos and all three
// A_trans), and groups beyond order 8 hold one problem.
template <class T>
std::vector<int> sizes_for(int level, int ci) {
  std::vector<int> s;
  for (int n : square_sizes<T>(level))
    if (!is_quad<T> || n <= 16 || n > 32 || (n + ci) % 8 == 0) s.push_back(n);
  return s;
}
template <class T>
int count_for(int n, int idx) {
  return is_quad<T> && n > 8 ? 1 : batch_for(n, idx);
}

template <class T>
TriCase<T> make_case(bool solve, BLAS_Layout layout, BLAS_Side side, BLAS_Uplo uplo, BLAS_Op ta,
                     BLAS_Diag diag, int ci) {
  TriCase<T> c{solve, layout, side, uplo, ta, diag, {}, {}, {}};
  auto add = [&](int m, int n, int count, bool alpha0 = false) {
    TriGroup<T> g{m, n, count, alpha0 ? T(0) : random_value<T>()};
    c.groups.push_back(g);
    // One pad per group and matrix kind: the group's problems share A_ld and B_ld.
    int pad_a = random_int(0, 3), pad_b = random_int(0, 3), r = c.order(g);
    for (int i = 0; i < count; ++i) {
      // alpha = 0: neither A nor B is read: both all NaN (A's triangle too).
      c.A.push_back(alpha0 ? Mat<T>(r, r, layout, pad_a) : make_triangular<T>(r, layout, pad_a, uplo, diag));
      c.B.emplace_back(m, n, layout, pad_b);
      if (!alpha0) c.B.back().fill_random();
    }
  };
  // Sizes 0..32 everywhere. The medium ones (level 1) for NoTrans, NonUnit and two of the four
  // (side, uplo) pairs, chosen so that each routine meets all four over its two layouts; the
  // large one (level 2) for one configuration per layout: trsm column-major (L, L) and trmm
  // row-major (R, U).
  bool diagonal_pair = (side == BLAS_Left) == (uplo == BLAS_Lower);  // (L, L) or (R, U)
  bool medium = ta == BLAS_NoTrans && diag == BLAS_NonUnit &&
                diagonal_pair == (solve == (layout == BLAS_ColMajor));
  bool big = medium && (solve ? layout == BLAS_ColMajor && side == BLAS_Left
                              : layout == BLAS_RowMajor && side == BLAS_Right);
  int level = big ? 2 : medium ? 1 : 0;
  int idx = 0;
  for (int n : sizes_for<T>(level, ci)) add(n, n, count_for<T>(n, idx++));
  const int rect[][2] = {{1, 7}, {17, 5}, {33, 2}, {5, 40}, {0, 5}, {5, 0}, {9, 31}, {3, 1}};
  for (const auto &r : rect) add(r[0], r[1], count_for<T>(std::max(r[0], r[1]), idx++));
  add(8, 6, 3, /*alpha0=*/true);   // host kernels (native)
  add(4, 33, 2, /*alpha0=*/true);  // order 33: OpenBLAS path for r32..c64 (native)
  return c;
}

template <class T>
class TrsmTrmm : public ::testing::Test {};
TYPED_TEST_SUITE(TrsmTrmm, AllPrecisions, PrecisionNames);

template <class T>
void check_case(const TriCase<T> &c) {
  SCOPED_TRACE(seed_note());
  SCOPED_TRACE(c.describe());
  std::vector<Mat<T>> Aref, Bref;
  std::vector<int> info_ref;
  {
    BackendScope s("reference");
    ASSERT_EQ(c.run(Aref, Bref, info_ref), 0) << "reference backend";
  }
  for (std::size_t p = 0; p < info_ref.size(); ++p) {  // the reference obeys the same rules
    ASSERT_EQ(info_ref[p], 0) << "reference backend, problem " << p;
    ASSERT_TRUE(untouched_outside(c.A[p], Aref[p], [](int, int) { return false; }))
        << "reference backend modified A, problem " << p;
    ASSERT_TRUE(untouched_outside(c.B[p], Bref[p], [](int, int) { return true; }))
        << "reference backend wrote B's padding, problem " << p;
  }
  // Outputs of earlier backends, whose residuals passed: a later bit-identical output (both
  // backends on OpenBLAS) needs no second residual.
  std::vector<std::vector<Mat<T>>> earlier;
  for (const char *backend : backends_for<T>()) {
    SCOPED_TRACE(std::string("backend ") + backend);
    BackendScope s(backend);
    std::vector<Mat<T>> Aout, Bout;
    std::vector<int> info;
    ASSERT_EQ(c.run(Aout, Bout, info), 0);
    std::size_t p = 0;
    for (std::size_t gi = 0; gi < c.groups.size(); ++gi) {
      const TriGroup<T> &g = c.groups[gi];
      for (int i = 0; i < g.count; ++i, ++p) {
        SCOPED_TRACE("problem " + std::to_string(p) + " (group " + std::to_string(gi) + ") m n " +
                     std::to_string(g.m) + " " + std::to_string(g.n) +
                     (g.alpha == T(0) ? " alpha 0" : ""));
        ASSERT_EQ(info[p], 0);
        bool done = false;
        for (const std::vector<Mat<T>> &e : earlier) done |= same_data(e[p], Bout[p]);
        check_problem(c, g, p, Aout[p], Bout[p], Bref[p], done, /*rounded_once=*/true);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
    earlier.push_back(std::move(Bout));
    count_checked((std::string(c.routine()) + " " + traits<T>::name() + " " + backend).c_str(), long(p));
  }
}

template <class T>
void check_all(bool solve, BLAS_Layout layout) {
  int ci = 0;
  for (BLAS_Side side : kSides)
    for (BLAS_Uplo uplo : kUplos)
      for (BLAS_Op ta : kOps)
        for (BLAS_Diag diag : kDiags) {
          check_case(make_case<T>(solve, layout, side, uplo, ta, diag, ci++));
          if (::testing::Test::HasFatalFailure()) return;
        }
}

TYPED_TEST(TrsmTrmm, TrsmColumnMajor) { check_all<typename TypeParam::type>(true, BLAS_ColMajor); }
TYPED_TEST(TrsmTrmm, TrsmRowMajor) { check_all<typename TypeParam::type>(true, BLAS_RowMajor); }
TYPED_TEST(TrsmTrmm, TrmmColumnMajor) { check_all<typename TypeParam::type>(false, BLAS_ColMajor); }
TYPED_TEST(TrsmTrmm, TrmmRowMajor) { check_all<typename TypeParam::type>(false, BLAS_RowMajor); }

}  // namespace
}  // namespace conf
