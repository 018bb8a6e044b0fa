// Textbook algorithms for the precisions no standard library offers (r16, c16, r128, c128).
// They work on the user's matrices in place through View, keep every stored value in the
// storage precision, and accumulate each dot product in the compute type (float for half),
// so each element is rounded once per update. Obviously correct beats fast here.
#pragma once
#include "../src/common/problem.hpp"

#include <vector>

namespace bb::textbook {

template <class T> using C = compute_t<T>;
template <class T> using CR = compute_real_t<T>;

// op(X)(i, j) in the compute type.
template <class T>
C<T> op_at(const View<T> &x, BLAS_Op op, int64_t i, int64_t j) {
  if (op == BLAS_NoTrans) return load(x(i, j));
  C<T> v = load(x(j, i));
  return op == BLAS_ConjTrans ? conj(v) : v;
}

template <class T>
int gemm(const GemmProblem<T> &p) {
  View<T> A = view(p.A, p.lda, p.layout), B = view(p.B, p.ldb, p.layout),
          Cm = view(p.C, p.ldc, p.layout);
  C<T> alpha = load(p.alpha), beta = load(p.beta), zero(0);
  for (int j = 0; j < p.n; ++j)
    for (int i = 0; i < p.m; ++i) {
      C<T> acc = zero;
      if (alpha != zero)
        for (int l = 0; l < p.k; ++l) acc += op_at(A, p.ta, i, l) * op_at(B, p.tb, l, j);
      C<T> r = alpha * acc;
      if (beta != zero) r += beta * load(Cm(i, j));  // beta = 0: C is not read
      Cm(i, j) = store_as<T>(r);
    }
  return 0;
}

// M = op(A) as a triangular matrix: M(i, j) read only inside its triangle.
template <class T>
struct TriangularOp {
  View<T> A;
  BLAS_Op op;
  bool unit;
  bool lower;  // is M lower triangular?
  TriangularOp(const TriangularProblem<T> &p)
      : A(view(p.A, p.lda, p.layout)), op(p.ta), unit(p.diag == BLAS_Unit),
        lower((p.uplo == BLAS_Lower) == (p.ta == BLAS_NoTrans)) {}
  C<T> operator()(int64_t i, int64_t j) const {
    if (i == j && unit) return C<T>(1);
    return op_at(A, op, i, j);
  }
  bool in(int64_t i, int64_t j) const { return lower ? i >= j : i <= j; }
};

template <class T>
int trsm(const TriangularProblem<T> &p) {
  View<T> B = view(p.B, p.ldb, p.layout);
  TriangularOp<T> M(p);
  C<T> alpha = load(p.alpha), zero(0);
  if (alpha == zero) {  // B is not read
    for (int j = 0; j < p.n; ++j)
      for (int i = 0; i < p.m; ++i) B(i, j) = store_as<T>(zero);
    return 0;
  }
  if (p.side == BLAS_Left) {  // M X = alpha B, one column of B at a time
    for (int j = 0; j < p.n; ++j)
      for (int s = 0; s < p.m; ++s) {
        int i = M.lower ? s : p.m - 1 - s;
        C<T> acc = alpha * load(B(i, j));
        for (int k = 0; k < p.m; ++k)
          if (k != i && M.in(i, k)) acc -= M(i, k) * load(B(k, j));
        B(i, j) = store_as<T>(acc / M(i, i));
      }
  } else {  // X M = alpha B, one row of B at a time
    for (int i = 0; i < p.m; ++i)
      for (int s = 0; s < p.n; ++s) {
        int j = M.lower ? p.n - 1 - s : s;
        C<T> acc = alpha * load(B(i, j));
        for (int k = 0; k < p.n; ++k)
          if (k != j && M.in(k, j)) acc -= load(B(i, k)) * M(k, j);
        B(i, j) = store_as<T>(acc / M(j, j));
      }
  }
  return 0;
}

template <class T>
int trmm(const TriangularProblem<T> &p) {
  View<T> B = view(p.B, p.ldb, p.layout);
  TriangularOp<T> M(p);
  C<T> alpha = load(p.alpha), zero(0);
  if (p.side == BLAS_Left) {  // B = alpha M B
    std::vector<C<T>> t(p.m);
    for (int j = 0; j < p.n; ++j) {
      for (int i = 0; i < p.m; ++i) {
        C<T> acc = zero;
        if (alpha != zero)
          for (int k = 0; k < p.m; ++k)
            if (M.in(i, k)) acc += M(i, k) * load(B(k, j));
        t[i] = alpha * acc;
      }
      for (int i = 0; i < p.m; ++i) B(i, j) = store_as<T>(t[i]);
    }
  } else {  // B = alpha B M
    std::vector<C<T>> t(p.n);
    for (int i = 0; i < p.m; ++i) {
      for (int j = 0; j < p.n; ++j) {
        C<T> acc = zero;
        if (alpha != zero)
          for (int k = 0; k < p.n; ++k)
            if (M.in(k, j)) acc += load(B(i, k)) * M(k, j);
        t[j] = alpha * acc;
      }
      for (int j = 0; j < p.n; ++j) B(i, j) = store_as<T>(t[j]);
    }
  }
  return 0;
}

// Left-looking (Crout) LU with partial pivoting: every entry of L and U is one dot product.
template <class T>
int getrf(const GetrfProblem<T> &p) {
  View<T> a = view(p.A, p.lda, p.layout);
  int info = 0, mn = p.m < p.n ? p.m : p.n;
  for (int j = 0; j < p.n; ++j) {
    int top = j < p.m ? j : p.m;  // rows of U in column j above the diagonal
    for (int i = 0; i < top; ++i) {
      C<T> acc = load(a(i, j));
      for (int k = 0; k < i; ++k) acc -= load(a(i, k)) * load(a(k, j));
      a(i, j) = store_as<T>(acc);
    }
    if (j >= mn) continue;
    for (int i = j; i < p.m; ++i) {
      C<T> acc = load(a(i, j));
      for (int k = 0; k < j; ++k) acc -= load(a(i, k)) * load(a(k, j));
      a(i, j) = store_as<T>(acc);
    }
    const int piv = j + pivot_index(&a(j, j), p.m - j, a.row_major ? a.ld : 1);  // SPEC.md 3
    p.ipiv[j] = piv + 1;
    if (piv != j)
      for (int c = 0; c < p.n; ++c) {
        T t = a(j, c);
        a(j, c) = a(piv, c);
        a(piv, c) = t;
      }
    C<T> d = load(a(j, j));
    if (d == C<T>(0)) {  // not divided by; its zero column still enters later dot products
      if (info == 0) info = j + 1;
      continue;
    }
    for (int i = j + 1; i < p.m; ++i) a(i, j) = store_as<T>(load(a(i, j)) / d);
  }
  return info;
}

// inv(A) from getrf's factors, one column of the identity at a time: x = U \ (L \ (P e)).
template <class T>
int getri(const GetriProblem<T> &p) {
  View<T> a = view(p.A, p.lda, p.layout);
  int n = p.n;
  for (int i = 0; i < n; ++i)
    if (load(a(i, i)) == C<T>(0)) return i + 1;  // singular: A is left as it was
  std::vector<C<T>> X(size_t(n) * n), v(n);
  for (int c = 0; c < n; ++c) {
    for (int i = 0; i < n; ++i) v[i] = C<T>(i == c ? 1 : 0);
    for (int i = 0; i < n; ++i) {
      int r = p.ipiv[i] - 1;
      C<T> t = v[i];
      v[i] = v[r];
      v[r] = t;
    }
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < i; ++k) v[i] -= load(a(i, k)) * v[k];
    for (int i = n - 1; i >= 0; --i) {
      for (int k = i + 1; k < n; ++k) v[i] -= load(a(i, k)) * v[k];
      v[i] = v[i] / load(a(i, i));
    }
    for (int i = 0; i < n; ++i) X[i + size_t(c) * n] = v[i];
  }
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) a(i, j) = store_as<T>(X[i + size_t(j) * n]);
  return 0;
}

// Cholesky-Crout on L (lower) or on L = U^H (upper); only that triangle is touched.
template <class T>
int potrf(const PotrfProblem<T> &p) {
  View<T> a = view(p.A, p.lda, p.layout);
  bool upper = p.uplo == BLAS_Upper;
  auto L = [&](int i, int j) { return upper ? conj(load(a(j, i))) : load(a(i, j)); };
  auto set = [&](int i, int j, C<T> v) {
    if (upper) a(j, i) = store_as<T>(conj(v));
    else a(i, j) = store_as<T>(v);
  };
  for (int j = 0; j < p.n; ++j) {
    CR<T> d = real(L(j, j));
    for (int k = 0; k < j; ++k) d -= abs2(L(j, k));
    if (!(d > CR<T>(0))) {  // also catches NaN
      set(j, j, C<T>(d));
      return j + 1;
    }
    CR<T> ljj = rsqrt(d);
    set(j, j, C<T>(ljj));
    for (int i = j + 1; i < p.n; ++i) {
      C<T> acc = L(i, j);
      for (int k = 0; k < j; ++k) acc -= L(i, k) * conj(L(j, k));
      set(i, j, acc / C<T>(ljj));
    }
  }
  return 0;
}

// Householder QR with LAPACK's conventions (xgeqr2, xlarfg): R on and above the diagonal,
// v below it with v(0) = 1 implicit, Q = H(0) ... H(k-1), H = I - tau v v^H.
template <class T>
int geqrf(const GeqrfProblem<T> &p) {
  View<T> a = view(p.A, p.lda, p.layout);
  int mn = p.m < p.n ? p.m : p.n;
  for (int j = 0; j < mn; ++j) {
    C<T> alpha = load(a(j, j));
    CR<T> ssq = 0;
    for (int i = j + 1; i < p.m; ++i) ssq += abs2(load(a(i, j)));
    C<T> tau(0);
    if (!(ssq == CR<T>(0) && imag(alpha) == CR<T>(0))) {
      CR<T> norm = rsqrt(abs2(alpha) + ssq);
      CR<T> beta = real(alpha) >= CR<T>(0) ? -norm : norm;
      if constexpr (is_complex<C<T>>::value)
        tau = C<T>((beta - real(alpha)) / beta, -imag(alpha) / beta);
      else
        tau = (beta - alpha) / beta;
      C<T> scale = C<T>(1) / (alpha - C<T>(beta));
      for (int i = j + 1; i < p.m; ++i) a(i, j) = store_as<T>(load(a(i, j)) * scale);
      a(j, j) = store_as<T>(C<T>(beta));
    }
    p.tau[j] = store_as<T>(tau);
    C<T> ctau = conj(load(p.tau[j]));  // apply H^H to the columns on the right
    if (ctau == C<T>(0)) continue;
    for (int c = j + 1; c < p.n; ++c) {
      C<T> w = load(a(j, c));
      for (int i = j + 1; i < p.m; ++i) w += conj(load(a(i, j))) * load(a(i, c));
      C<T> f = ctau * w;
      a(j, c) = store_as<T>(load(a(j, c)) - f);
      for (int i = j + 1; i < p.m; ++i) a(i, c) = store_as<T>(load(a(i, c)) - load(a(i, j)) * f);
    }
  }
  return 0;
}

}  // namespace bb::textbook
