// gemm: every precision x layout x (A_trans, B_trans) x backend, square sizes 0..32 and
// beyond, rectangular shapes, k = 0, alpha = 0 and beta = 0 (NaN in the unread operands),
// all in one call per configuration, checked against the reference and against the exact
// product computed in a wide type.
#include "common.hpp"

namespace conf {
namespace {

template <class T>
struct GemmGroup {
  BLAS_Op ta, tb;
  int m, n, k, count;
  T alpha, beta;
};

template <class T>
struct GemmCase {
  BLAS_Layout layout;
  std::vector<GemmGroup<T>> groups;
  std::vector<Mat<T>> A, B, C;  // inputs, one per problem

  void make_inputs() {
    for (const GemmGroup<T> &g : groups)
      for (int i = 0; i < g.count; ++i) {
        bool an = g.ta == BLAS_NoTrans, bn = g.tb == BLAS_NoTrans;
        A.emplace_back(an ? g.m : g.k, an ? g.k : g.m, layout, random_int(0, 3));
        B.emplace_back(bn ? g.k : g.n, bn ? g.n : g.k, layout, random_int(0, 3));
        C.emplace_back(g.m, g.n, layout, random_int(0, 3));
        // Operands the routine must not read stay NaN.
        if (!(g.alpha == T(0))) A.back().fill_random(), B.back().fill_random();
        if (!(g.beta == T(0))) C.back().fill_random();
      }
  }

  // Runs the call on a copy of C; returns the outputs.
  int run(std::vector<Mat<T>> &Cout, std::vector<int> &info) {
    std::vector<BLAS_Op> ta, tb;
    std::vector<int> m, n, k, lda, ldb, ldc, sizes;
    std::vector<T> alpha, beta;
    std::vector<T *> pa, pb, pc;
    Cout = C;
    std::size_t p = 0;
    for (const GemmGroup<T> &g : groups) {
      ta.push_back(g.ta), tb.push_back(g.tb), m.push_back(g.m), n.push_back(g.n), k.push_back(g.k);
      alpha.push_back(g.alpha), beta.push_back(g.beta), sizes.push_back(g.count);
      lda.push_back(A[p].ld), ldb.push_back(B[p].ld), ldc.push_back(C[p].ld);
      for (int i = 0; i < g.count; ++i, ++p) {
        // Problems of one group share the leading dimension: use the group's first.
        pa.push_back(A[p].ptr()), pb.push_back(B[p].ptr()), pc.push_back(Cout[p].ptr());
      }
    }
    info.assign(p, -12345);
    return Api<T>::gemm(layout, ta.data(), tb.data(), m.data(), n.data(), k.data(), alpha.data(),
                        pa.data(), lda.data(), pb.data(), ldb.data(), beta.data(), pc.data(),
                        ldc.data(), int(groups.size()), sizes.data(), info.data());
  }
};

// Problems of a group must share ld: rebuild each group's matrices with the first one's pad.
template <class T>
void unify_leading_dimensions(GemmCase<T> &c) {
  std::size_t p = 0;
  for (const GemmGroup<T> &g : c.groups) {
    for (int i = 1; i < g.count; ++i) {
      auto redo = [&](std::vector<Mat<T>> &v) {
        Mat<T> &first = v[p], &x = v[p + i];
        int need = first.row_major ? first.cols : first.rows;
        Mat<T> y(x.rows, x.cols, c.layout, first.ld - std::max(1, need));
        for (int jj = 0; jj < x.cols; ++jj)
          for (int ii = 0; ii < x.rows; ++ii) y(ii, jj) = x(ii, jj);
        x = y;
      };
      redo(c.A), redo(c.B), redo(c.C);
    }
    p += g.count;
  }
}

template <class T>
GemmCase<T> make_case(BLAS_Layout layout, BLAS_Op ta, BLAS_Op tb) {
  GemmCase<T> c{layout, {}, {}, {}, {}};
  auto add = [&](int m, int n, int k, int count, bool alpha0 = false, bool beta0 = false) {
    c.groups.push_back({ta, tb, m, n, k, count, alpha0 ? T(0) : random_value<T>(),
                        beta0 ? T(0) : random_value<T>()});
  };
  int idx = 0;
  for (int n : square_sizes<T>(ta == tb ? (ta == BLAS_NoTrans ? 2 : 1) : 0)) add(n, n, n, batch_for(n, idx++));
  const int rect[][3] = {{1, 7, 3}, {17, 5, 9}, {33, 2, 40}, {5, 40, 1}, {64, 16, 3},
                         {3, 1, 70}, {0, 5, 3}, {5, 0, 3}, {4, 5, 0}, {9, 31, 17}};
  for (const auto &r : rect) add(r[0], r[1], r[2], batch_for(r[0], idx++));
  add(8, 8, 8, 3, /*alpha0=*/true, false);
  add(9, 7, 5, 4, false, /*beta0=*/true);
  add(6, 6, 6, 2, true, true);
  add(13, 11, 0, 2, false, true);
  c.make_inputs();
  unify_leading_dimensions(c);
  return c;
}

template <class T>
class Gemm : public ::testing::Test {};
TYPED_TEST_SUITE(Gemm, AllPrecisions, PrecisionNames);

template <class T>
void check_layout(BLAS_Layout layout) {
  SCOPED_TRACE(seed_note());
  for (BLAS_Op ta : kOps)
    for (BLAS_Op tb : kOps) {
      GemmCase<T> c = make_case<T>(layout, ta, tb);
      std::vector<Mat<T>> Cref;
      std::vector<int> info_ref;
      {
        BackendScope s("reference");
        ASSERT_EQ(c.run(Cref, info_ref), 0);
      }
      for (const char *backend : backends_for<T>()) {
        SCOPED_TRACE(std::string("backend ") + backend + " layout " + layout_name(layout) + " " +
                     op_name(ta) + op_name(tb));
        BackendScope s(backend);
        std::vector<Mat<T>> Cout;
        std::vector<int> info;
        ASSERT_EQ(c.run(Cout, info), 0);
        std::size_t p = 0;
        for (const GemmGroup<T> &g : c.groups)
          for (int i = 0; i < g.count; ++i, ++p) {
            SCOPED_TRACE("problem " + std::to_string(p) + " m n k " + std::to_string(g.m) + " " +
                         std::to_string(g.n) + " " + std::to_string(g.k));
            ASSERT_EQ(info[p], 0);
            // Forward error against the product in the wide type.
            const Mat<T> &A = c.A[p], &B = c.B[p], &C0 = c.C[p];
            bool an = g.ta == BLAS_NoTrans, bn = g.tb == BLAS_NoTrans;
            auto opA = [&](int r, int l) {
              Wide<T> x = wide(an ? A(r, l) : A(l, r));
              return g.ta == BLAS_ConjTrans ? bb::conj(x) : x;
            };
            auto opB = [&](int l, int col) {
              Wide<T> x = wide(bn ? B(l, col) : B(col, l));
              return g.tb == BLAS_ConjTrans ? bb::conj(x) : x;
            };
            Wide<T> alpha = wide(g.alpha), beta = wide(g.beta), zero(0);
            WideReal<T> err2 = 0;
            for (int col = 0; col < g.n; ++col)
              for (int r = 0; r < g.m; ++r) {
                Wide<T> s = zero;
                if (alpha != zero)
                  for (int l = 0; l < g.k; ++l) s += opA(r, l) * opB(l, col);
                Wide<T> exact = alpha * s;
                if (beta != zero) exact += beta * wide(C0(r, col));
                ASSERT_FALSE(has_nan(Cout[p](r, col))) << "NaN at " << r << "," << col;
                err2 += bb::abs2(wide(Cout[p](r, col)) - exact);
              }
            auto nA = frob<T>(an ? g.m : g.k, an ? g.k : g.m, [&](int r, int l) { return wide(A(r, l)); });
            auto nB = frob<T>(bn ? g.k : g.n, bn ? g.n : g.k, [&](int l, int col) { return wide(B(l, col)); });
            auto nC = beta != zero ? frob<T>(g.m, g.n, [&](int r, int col) { return wide(C0(r, col)); })
                                   : WideReal<T>(0);
            double scale = to_double(bb::absval(alpha) * nA * nB + bb::absval(beta) * nC);
            // Half precision accumulates in binary32 and rounds each result once (SPEC.md
            // section 6): one half rounding plus k single ones, a bound a 1 % error breaks.
            // Otherwise k roundings of the storage precision.
            const double unit = is_half<T> ? rounded_once_unit<T>(1, g.k + 2) : (g.k + 2) * eps<T>();
            const double limit = is_half<T> ? 4.0 : residual_limit<T>();
            double ratio = scale > 0 ? to_double(bb::rsqrt(err2)) / (scale * unit) : 0;
            ASSERT_LE(ratio, limit) << "forward error";
            // Against the reference, on the same scale (cancellation can make C tiny).
            double dref = scale > 0 ? abs_diff(Cout[p], Cref[p]) / (scale * (g.k + 2) * eps<T>())
                                    : abs_diff(Cout[p], Cref[p]);
            ASSERT_LE(dref, 2 * residual_limit<T>()) << "differs from reference";
            // Padding untouched; A and B not modified at all.
            ASSERT_TRUE(untouched_outside(C0, Cout[p], [](int, int) { return true; }));
          }
        count_checked((std::string("gemm ") + traits<T>::name() + " " + backend).c_str(), long(p));
      }
    }
}

TYPED_TEST(Gemm, ColumnMajorAllTransposes) { check_layout<typename TypeParam::type>(BLAS_ColMajor); }
TYPED_TEST(Gemm, RowMajorAllTransposes) { check_layout<typename TypeParam::type>(BLAS_RowMajor); }

}  // namespace
}  // namespace conf
