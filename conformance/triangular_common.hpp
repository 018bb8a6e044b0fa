// What the trsm/trmm suites share (host data: test_trsm_trmm.cpp; device data:
// test_gpu_trsm_trmm.cpp): the case of one call (groups of problems, inputs per problem),
// well-conditioned triangular inputs with NaN wherever the routine must not read, op(A) and the
// triangular product in the wide type, and the check of one problem's result against the
// reference and against a residual computed from the stored triangle alone.
#pragma once
#include "common.hpp"

#include <cmath>

namespace conf {

template <class T>
struct TriGroup {
  int m, n, count;
  T alpha;
};

template <class T>
struct TriCase {
  bool solve;  // trsm (true) or trmm
  BLAS_Layout layout;
  BLAS_Side side;
  BLAS_Uplo uplo;
  BLAS_Op ta;
  BLAS_Diag diag;
  std::vector<TriGroup<T>> groups;
  std::vector<Mat<T>> A, B;  // inputs, one per problem

  int order(const TriGroup<T> &g) const { return side == BLAS_Left ? g.m : g.n; }
  const char *routine() const { return solve ? "trsm" : "trmm"; }
  std::string describe() const {
    return std::string(routine()) + " layout " + layout_name(layout) + " side " + side_name(side) +
           " uplo " + uplo_name(uplo) + " A_trans " + op_name(ta) + " diag " + diag_name(diag);
  }

  // The group call on the given pointer arrays (problem p's A and B at A[p], B[p]; host or
  // device memory), each group's lda and ldb those of its first problem's matrices.
  int call(T **Ap, T **Bp, int *info) const {
    std::vector<BLAS_Side> sd;
    std::vector<BLAS_Uplo> ul;
    std::vector<BLAS_Op> op;
    std::vector<BLAS_Diag> dg;
    std::vector<int> m, n, lda, ldb, sizes;
    std::vector<T> alpha;
    std::size_t p = 0;
    for (const TriGroup<T> &g : groups) {
      sd.push_back(side), ul.push_back(uplo), op.push_back(ta), dg.push_back(diag);
      m.push_back(g.m), n.push_back(g.n), alpha.push_back(g.alpha), sizes.push_back(g.count);
      lda.push_back(A[p].ld), ldb.push_back(B[p].ld);  // shared by the group (make_case)
      p += g.count;
    }
    auto f = solve ? &Api<T>::trsm : &Api<T>::trmm;
    return f(layout, sd.data(), ul.data(), op.data(), dg.data(), m.data(), n.data(), alpha.data(), Ap,
             lda.data(), Bp, ldb.data(), int(groups.size()), sizes.data(), info);
  }
  // Runs the call on host copies of A and B; returns the outputs.
  int run(std::vector<Mat<T>> &Aout, std::vector<Mat<T>> &Bout, std::vector<int> &info) const {
    Aout = A, Bout = B;
    std::vector<T *> pa, pb;
    for (std::size_t p = 0; p < A.size(); ++p) pa.push_back(Aout[p].ptr()), pb.push_back(Bout[p].ptr());
    info.assign(A.size(), -12345);
    return call(pa.data(), pb.data(), info.data());
  }
};

// Diagonal entries: random sign (complex: phase), magnitude uniform in [1, 2].
template <class T>
T random_diagonal() {
  using R = typename traits<T>::real;
  double mag = 1.0 + std::uniform_real_distribution<double>(0.0, 1.0)(rng());
  if constexpr (is_cplx<T>) {
    double phase = std::uniform_real_distribution<double>(0.0, 6.283185307179586)(rng());
    return T(R(mag * std::cos(phase)), R(mag * std::sin(phase)));
  } else {
    return T(R(std::bernoulli_distribution(0.5)(rng()) ? mag : -mag));
  }
}

// Off-diagonal entries: random (never zero) / order, so that |M^-1| stays bounded by a
// small constant (Neumann series: (1 + sqrt(2) / r)^r < e^sqrt(2)) and cond(op(A)) is O(1).
template <class T>
T random_offdiagonal(int order) {
  using R = typename traits<T>::real;
  if constexpr (is_cplx<T>) return T(R(uniform_nonzero() / order), R(uniform_nonzero() / order));
  else return T(R(uniform_nonzero() / order));
}

// A r x r triangular A: the stored triangle random, NaN everywhere the routine must not read.
template <class T>
Mat<T> make_triangular(int r, BLAS_Layout layout, int pad, BLAS_Uplo uplo, BLAS_Diag diag) {
  Mat<T> a(r, r, layout, pad);  // all NaN
  for (int j = 0; j < r; ++j)
    for (int i = 0; i < r; ++i) {
      if (i == j) {
        if (diag == BLAS_NonUnit) a(i, j) = random_diagonal<T>();
      } else if (uplo == BLAS_Upper ? i < j : i > j) {
        a(i, j) = random_offdiagonal<T>(r);
      }
    }
  return a;
}

// op(A) as the routine must see it, dense in the wide type (column-major, ld = r): built
// from the stored triangle only, zeros outside it, ones on the diagonal for diag = Unit.
template <class T>
std::vector<Wide<T>> op_matrix(const Mat<T> &A, int r, BLAS_Uplo uplo, BLAS_Op ta, BLAS_Diag diag) {
  std::vector<Wide<T>> M(std::size_t(r) * r, Wide<T>(0));
  for (int j = 0; j < r; ++j)
    for (int i = 0; i < r; ++i) {
      if (!(uplo == BLAS_Upper ? i <= j : i >= j)) continue;
      Wide<T> x = i == j && diag == BLAS_Unit ? Wide<T>(1) : wide(A(i, j));
      if (ta == BLAS_ConjTrans) x = bb::conj(x);
      if (ta == BLAS_NoTrans) M[i + std::size_t(j) * r] = x;
      else M[j + std::size_t(i) * r] = x;
    }
  return M;
}

// Y = M X (left) or X M (right) for the m x n matrix X, M = op(A) triangular of order r;
// everything column-major in the wide type. Only M's triangle is visited, and the innermost
// loop runs down a column.
template <class T>
std::vector<Wide<T>> triangular_product(const std::vector<Wide<T>> &M, bool lower, BLAS_Side side,
                                        const std::vector<Wide<T>> &X, int m, int n) {
  std::vector<Wide<T>> Y(std::size_t(m) * n, Wide<T>(0));
  for (int c = 0; c < n; ++c) {
    Wide<T> *y = &Y[std::size_t(c) * m];
    if (side == BLAS_Left) {  // Y(:, c) = sum_k M(:, k) X(k, c); column k of M is nonzero
      for (int k = 0; k < m; ++k) {  // in rows k.. (lower) or ..k (upper)
        const Wide<T> xk = X[k + std::size_t(c) * m], *mk = &M[std::size_t(k) * m];
        for (int i = lower ? k : 0, hi = lower ? m - 1 : k; i <= hi; ++i) y[i] += mk[i] * xk;
      }
    } else {  // Y(:, c) = sum_k X(:, k) M(k, c), M(k, c) nonzero for k >= c (lower) or <= c
      for (int k = lower ? c : 0, hi = lower ? n - 1 : c; k <= hi; ++k) {
        const Wide<T> mkc = M[k + std::size_t(c) * n], *xk = &X[std::size_t(k) * m];
        for (int i = 0; i < m; ++i) y[i] += xk[i] * mkc;
      }
    }
  }
  return Y;
}

template <class T>
std::vector<Wide<T>> widen(const Mat<T> &X) {
  std::vector<Wide<T>> w(std::size_t(X.rows) * X.cols);
  for (int j = 0; j < X.cols; ++j)
    for (int i = 0; i < X.rows; ++i) w[i + std::size_t(j) * X.rows] = wide(X(i, j));
  return w;
}

template <class T>
WideReal<T> frob_wide(const std::vector<Wide<T>> &x) {
  WideReal<T> s = 0;
  for (const Wide<T> &v : x) s += bb::abs2(v);
  return bb::rsqrt(s);
}

template <class T>
bool same_data(const Mat<T> &a, const Mat<T> &b) {
  return a.data.size() == b.data.size() &&
         std::memcmp(a.data.data(), b.data.data(), a.data.size() * sizeof(T)) == 0;
}

// Checks problem p of group g of case c: c.A[p] and c.B[p] are the inputs, Aout and Bout what
// the backend left, Bref the reference's result. `residual_done`: Bout is bit-identical to an
// earlier backend's output whose residual passed. `rounded_once`: half precision results were
// computed in binary32 and rounded once (the host kernels, SPEC.md section 6), so they meet
// the bound of one half rounding; the GPU's recursion rounds B at every level.
template <class T>
void check_problem(const TriCase<T> &c, const TriGroup<T> &g, std::size_t p, const Mat<T> &Aout,
                   const Mat<T> &Bout, const Mat<T> &Bref, bool residual_done, bool rounded_once = false) {
  const Mat<T> &A = c.A[p], &B0 = c.B[p];
  const int r = c.order(g);
  // A is input only: bit-identical everywhere (its NaN included); B's padding untouched.
  ASSERT_TRUE(untouched_outside(A, Aout, [](int, int) { return false; })) << "A modified";
  ASSERT_TRUE(untouched_outside(B0, Bout, [](int, int) { return true; })) << "B padding";
  for (int j = 0; j < g.n; ++j)
    for (int i = 0; i < g.m; ++i) ASSERT_FALSE(has_nan(Bout(i, j))) << "NaN at " << i << "," << j;
  if (g.m == 0 || g.n == 0) return;
  if (g.alpha == T(0)) {  // B = 0 exactly, without reading the NaN in B
    for (int j = 0; j < g.n; ++j)
      for (int i = 0; i < g.m; ++i)
        ASSERT_TRUE(wide(Bout(i, j)) == Wide<T>(0)) << "alpha = 0: nonzero at " << i << "," << j;
    return;
  }
  // Against the reference: both backward stable, cond(op(A)) = O(1) by construction, so the
  // normwise relative difference is O(r eps).
  ASSERT_LE(rel_diff(Bout, Bref), compare_tol<T>(r)) << "differs from reference";
  if (residual_done) return;
  // Residual independent of the reference, in the wide type.
  const bool lower = (c.uplo == BLAS_Lower) == (c.ta == BLAS_NoTrans);  // is op(A) lower?
  std::vector<Wide<T>> M = op_matrix(A, r, c.uplo, c.ta, c.diag);
  std::vector<Wide<T>> out = widen(Bout), in = widen(B0);
  const Wide<T> alpha = wide(g.alpha);
  WideReal<T> res2 = 0, scale;
  if (c.solve) {  // ||op(A) X - alpha B0|| / (||op(A)|| ||X|| r eps)
    std::vector<Wide<T>> Y = triangular_product<T>(M, lower, c.side, out, g.m, g.n);
    for (std::size_t i = 0; i < Y.size(); ++i) res2 += bb::abs2(Y[i] - alpha * in[i]);
    scale = frob_wide<T>(M) * frob_wide<T>(out);
  } else {  // ||B_out - alpha op(A) B0|| / (|alpha| ||op(A)|| ||B0|| r eps)
    std::vector<Wide<T>> Y = triangular_product<T>(M, lower, c.side, in, g.m, g.n);
    for (std::size_t i = 0; i < Y.size(); ++i) res2 += bb::abs2(out[i] - alpha * Y[i]);
    scale = bb::absval(alpha) * frob_wide<T>(M) * frob_wide<T>(in);
  }
  // Rounded once in half precision: one half rounding plus r single ones, a bound a 1 % error
  // breaks. Otherwise r roundings of the storage precision.
  const bool once = is_half<T> && rounded_once;
  const double unit = once ? rounded_once_unit<T>(1, r + 2) : r * eps<T>();
  const double limit = once ? 4.0 : residual_limit<T>();
  double ratio = to_double(bb::rsqrt(res2)) / (to_double(scale) * unit);
  ASSERT_LE(ratio, limit) << (c.solve ? "trsm residual" : "trmm forward error");
}

}  // namespace conf
