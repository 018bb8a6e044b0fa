// Host kernels: each problem is copied into column-major scratch in the compute type, solved
// there with loops whose innermost index runs down a column (contiguous, vectorizable), and
// copied back. No library call per problem, so they win where a BLAS call costs more than
// the arithmetic (tiny sizes), and they are the only host path for r16, c16, r128, c128.
#pragma once
#include "../common/column_major.hpp"
#include "../common/problem.hpp"
#include "../common/workspace.hpp"

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace bb::host {

template <class T> using C = compute_t<T>;
template <class T> using CR = compute_real_t<T>;

// op(M) of a user matrix as a rows x cols array: element (i, j) at a[i * si + j * sj]. The
// layout and the transposition become strides once per problem, so the copy loops below
// carry no per-element branches.
template <class T>
struct Strided {
  T *a;
  int64_t si, sj;
  bool conj;
  Strided transposed() const { return {a, sj, si, conj}; }
};
template <class T>
inline Strided<T> strided(const View<T> &v, BLAS_Op op = BLAS_NoTrans) {
  const int64_t s_row = v.row_major ? v.ld : 1, s_col = v.row_major ? 1 : v.ld;
  if (op == BLAS_NoTrans) return {v.a, s_row, s_col, false};
  return {v.a, s_col, s_row, op == BLAS_ConjTrans};
}

// rows x cols of s into column-major buf (ld = rows) in the compute type.
template <class T>
inline void load_matrix(const Strided<T> &s, int rows, int cols, C<T> *buf) {
  for (int j = 0; j < cols; ++j) {
    const T *col = s.a + j * s.sj;
    C<T> *out = buf + std::size_t(j) * rows;
    if (s.si == 1)
      for (int i = 0; i < rows; ++i) out[i] = load(col[i]);
    else
      for (int i = 0; i < rows; ++i) out[i] = load(col[i * s.si]);
  }
  if (s.conj)
    for (std::size_t i = 0; i < std::size_t(rows) * cols; ++i) buf[i] = conj(buf[i]);
}
template <class T>
inline void load_matrix(const View<T> &v, BLAS_Op op, int rows, int cols, C<T> *buf) {
  load_matrix(strided(v, op), rows, cols, buf);
}
template <class T>
inline void store_matrix(const Strided<T> &s, int rows, int cols, const C<T> *buf) {
  for (int j = 0; j < cols; ++j) {
    T *col = s.a + j * s.sj;
    const C<T> *in = buf + std::size_t(j) * rows;
    if (s.si == 1)
      for (int i = 0; i < rows; ++i) col[i] = store_as<T>(in[i]);
    else
      for (int i = 0; i < rows; ++i) col[i * s.si] = store_as<T>(in[i]);
  }
}
template <class T>
inline void store_matrix(const View<T> &v, int rows, int cols, const C<T> *buf) {
  store_matrix(strided(v), rows, cols, buf);
}

// Column-major C (m x n, ldc) = alpha A B + beta C with A column-major (m x k, lda) in the
// compute type and B(l, j) = b[l * bsi + j * bsj]. M > 0 fixes m at compile time, so the
// innermost loop is a few straight vector operations for the tiny sizes.
template <class T, int M>
void gemm_columns(int m_rt, int n, int k, C<T> alpha, const C<T> *__restrict a, int64_t lda,
                  const C<T> *__restrict b, int64_t bsi, int64_t bsj, C<T> beta, T *__restrict c,
                  int64_t ldc, C<T> *__restrict acc_ws) {
  using CT = C<T>;
  const int m = M > 0 ? M : m_rt;
  CT acc_local[M > 0 ? M : 1];  // a local array the compiler keeps in registers
  const bool read_c = !(beta == CT(0));  // beta = 0: C is not read
  auto column = [&](CT *__restrict acc, int j) {
    for (int i = 0; i < m; ++i) acc[i] = CT(0);
    for (int l = 0; l < k; ++l) {
      const CT blj = b[l * bsi + j * bsj];
      const CT *__restrict al = a + l * lda;
#pragma omp simd
      for (int i = 0; i < m; ++i) acc[i] += al[i] * blj;
    }
    T *__restrict cj = c + j * ldc;
    if (read_c)
      for (int i = 0; i < m; ++i) cj[i] = store_as<T>(alpha * acc[i] + beta * load(cj[i]));
    else
      for (int i = 0; i < m; ++i) cj[i] = store_as<T>(alpha * acc[i]);
  };
  for (int j = 0; j < n; ++j) {
    if constexpr (M > 0) column(acc_local, j);
    else column(acc_ws, j);
  }
}

template <class T>
int gemm(const GemmProblem<T> &p, Workspace &ws) {
  using CT = C<T>;
  if (p.m == 0 || p.n == 0) return 0;
  // op(A) (m x k) and op(B) (k x n) as strided arrays; row-major C is column-major C^T,
  // and C^T = op(B)^T op(A)^T.
  // (column_major.hpp): the row-major problem is the column-major one with A and B swapped,
  // each read through its stored layout.
  const GemmColumnMajor cm = column_major_gemm(p.layout, p.ta, p.tb, p.m, p.n);
  const int m = cm.m, n = cm.n;
  Strided<T> sa = strided(view(cm.swap_ab ? p.B : p.A, cm.swap_ab ? p.ldb : p.lda, BLAS_ColMajor), cm.ta);
  Strided<T> sb = strided(view(cm.swap_ab ? p.A : p.B, cm.swap_ab ? p.lda : p.ldb, BLAS_ColMajor), cm.tb);
  const int k = p.k;
  CT alpha = load(p.alpha), beta = load(p.beta);
  const int kk = alpha == CT(0) ? 0 : k;  // alpha = 0: A and B are not read
  // A must be column-major in the compute type; B only in the compute type.
  const CT *a = nullptr, *b = nullptr;
  int64_t lda = m, bsi = 1, bsj = kk;
  constexpr bool same = std::is_same_v<T, CT>;
  if (kk > 0) {
    if (same && sa.si == 1 && !sa.conj) a = reinterpret_cast<const CT *>(sa.a), lda = sa.sj;
    else {
      CT *buf = ws.get<CT>(1, std::size_t(m) * kk);
      load_matrix(sa, m, kk, buf);
      a = buf;
    }
    if (same && !sb.conj) b = reinterpret_cast<const CT *>(sb.a), bsi = sb.si, bsj = sb.sj;
    else {
      CT *buf = ws.get<CT>(2, std::size_t(kk) * n);
      load_matrix(sb, kk, n, buf);
      b = buf;
    }
  }
  CT *acc = m > 16 ? ws.get<CT>(0, std::size_t(m)) : nullptr;
  const int64_t ldc = p.ldc;
  switch (m) {
#define BB_GEMM_M(M) \
  case M: gemm_columns<T, M>(m, n, kk, alpha, a, lda, b, bsi, bsj, beta, p.C, ldc, acc); break;
    BB_GEMM_M(1) BB_GEMM_M(2) BB_GEMM_M(3) BB_GEMM_M(4) BB_GEMM_M(5) BB_GEMM_M(6) BB_GEMM_M(7)
    BB_GEMM_M(8) BB_GEMM_M(9) BB_GEMM_M(10) BB_GEMM_M(11) BB_GEMM_M(12) BB_GEMM_M(13)
    BB_GEMM_M(14) BB_GEMM_M(15) BB_GEMM_M(16)
#undef BB_GEMM_M
    default: gemm_columns<T, 0>(m, n, kk, alpha, a, lda, b, bsi, bsj, beta, p.C, ldc, acc);
  }
  return 0;
}

// trsm / trmm. The right-side problem X M = alpha B is solved as its transpose
// M^T X^T = alpha B^T, so the arithmetic below only ever sees the left side.
template <class T>
int triangular(const TriangularProblem<T> &p, Workspace &ws) {
  using CT = C<T>;
  if (p.m == 0 || p.n == 0) return 0;
  const bool left = p.side == BLAS_Left;
  const int r = p.order(), cols = left ? p.n : p.m;
  View<T> Bv = view(p.B, p.ldb, p.layout);
  CT alpha = load(p.alpha), zero(0);
  if (alpha == zero) {  // BLAS: B is set to zero, not read
    for (int j = 0; j < p.n; ++j)
      for (int i = 0; i < p.m; ++i) Bv(i, j) = store_as<T>(zero);
    return 0;
  }
  // M = op(A) explicitly (zeros outside its triangle); for the right side M^T.
  View<T> Av = view(p.A, p.lda, p.layout);
  const bool a_lower = p.uplo == BLAS_Lower;
  const bool m_lower = a_lower == (p.ta == BLAS_NoTrans);
  const bool lower = left ? m_lower : !m_lower;  // of the matrix we actually use
  BLAS_Op use_op = p.ta;
  if (!left) use_op = p.ta == BLAS_NoTrans ? BLAS_Trans : p.ta == BLAS_Trans ? BLAS_NoTrans : BLAS_ConjTrans;
  CT *M = ws.get<CT>(0, std::size_t(r) * r), *b = ws.get<CT>(1, std::size_t(r) * cols);
  for (int j = 0; j < r; ++j)
    for (int i = 0; i < r; ++i) {
      bool inside = lower ? i >= j : i <= j;
      CT x = zero;
      if (i == j && p.diag == BLAS_Unit) x = CT(1);
      else if (inside) {
        // use_op(A)(i, j) = A(i, j), A(j, i) or conj(A(j, i)); ConjTrans on the right is
        // (A^H)^T = conj(A).
        if (left) x = use_op == BLAS_NoTrans ? load(Av(i, j)) : load(Av(j, i));
        else x = use_op == BLAS_Trans ? load(Av(j, i)) : load(Av(i, j));
        if (p.ta == BLAS_ConjTrans) x = conj(x);
      }
      M[i + std::size_t(j) * r] = x;
    }
  Strided<T> sb = left ? strided(Bv) : strided(Bv).transposed();  // B or B^T, r x cols
  load_matrix(sb, r, cols, b);
  for (std::size_t i = 0; i < std::size_t(r) * cols; ++i) b[i] = alpha * b[i];
  for (int c = 0; c < cols; ++c) {
    CT *x = b + std::size_t(c) * r;
    if (p.solve) {
      if (lower)
        for (int k = 0; k < r; ++k) {
          const CT *mk = M + std::size_t(k) * r;
          x[k] = x[k] / mk[k];
#pragma omp simd
          for (int i = k + 1; i < r; ++i) x[i] -= mk[i] * x[k];
        }
      else
        for (int k = r - 1; k >= 0; --k) {
          const CT *mk = M + std::size_t(k) * r;
          x[k] = x[k] / mk[k];
#pragma omp simd
          for (int i = 0; i < k; ++i) x[i] -= mk[i] * x[k];
        }
    } else {
      if (lower)
        for (int k = r - 1; k >= 0; --k) {
          const CT *mk = M + std::size_t(k) * r;
          CT t = x[k];
          x[k] = t * mk[k];
#pragma omp simd
          for (int i = k + 1; i < r; ++i) x[i] += mk[i] * t;
        }
      else
        for (int k = 0; k < r; ++k) {
          const CT *mk = M + std::size_t(k) * r;
          CT t = x[k];
#pragma omp simd
          for (int i = 0; i < k; ++i) x[i] += mk[i] * t;
          x[k] = t * mk[k];
        }
    }
  }
  store_matrix(sb, r, cols, b);
  return 0;
}

// Right-looking unblocked LU (xgetf2).
template <class T>
int getrf(const GetrfProblem<T> &p, Workspace &ws) {
  using CT = C<T>;
  const int m = p.m, n = p.n, mn = m < n ? m : n;
  if (mn == 0) return 0;
  View<T> Av = view(p.A, p.lda, p.layout);
  CT *a = ws.get<CT>(0, std::size_t(m) * n);
  load_matrix(Av, BLAS_NoTrans, m, n, a);
  int info = 0;
  // LAPACK's xgetf2 scales by the reciprocal only where it cannot overflow.
  const CR<T> sfmin = smallest_normal<CR<T>>();
  for (int j = 0; j < mn; ++j) {
    CT *aj = a + std::size_t(j) * m;
    const int piv = j + pivot_index(aj + j, m - j);
    p.ipiv[j] = piv + 1;
    if (piv != j)
      for (int c = 0; c < n; ++c) {
        CT *ac = a + std::size_t(c) * m;
        CT t = ac[j];
        ac[j] = ac[piv];
        ac[piv] = t;
      }
    // A zero pivot is not divided by, but its column (all zeros) still updates the rest, as
    // in LAPACK: 0 x Inf makes NaN there (SPEC.md section 3).
    if (aj[j] == CT(0)) {
      if (info == 0) info = j + 1;
    } else if (abs1(aj[j]) >= sfmin) {
      const CT rinv = CT(1) / aj[j];
      for (int i = j + 1; i < m; ++i) aj[i] *= rinv;
    } else {
      for (int i = j + 1; i < m; ++i) aj[i] = aj[i] / aj[j];
    }
    for (int c = j + 1; c < n; ++c) {
      CT *ac = a + std::size_t(c) * m;
      CT u = ac[j];
#pragma omp simd
      for (int i = j + 1; i < m; ++i) ac[i] -= aj[i] * u;
    }
  }
  store_matrix(Av, m, n, a);
  return info;
}

// LAPACK's unblocked xgetri: inv(U) in place, then inv(A) inv(L) = inv(U)... solved for
// inv(A) column by column from the right, then the column interchanges undone.
template <class T>
int getri(const GetriProblem<T> &p, Workspace &ws) {
  using CT = C<T>;
  const int n = p.n;
  if (n == 0) return 0;
  View<T> Av = view(p.A, p.lda, p.layout);
  for (int i = 0; i < n; ++i)
    if (load(Av(i, i)) == CT(0)) return i + 1;  // singular: A is left as it was
  CT *a = ws.get<CT>(0, std::size_t(n) * n), *w = ws.get<CT>(1, std::size_t(n));
  load_matrix(Av, BLAS_NoTrans, n, n, a);
  auto at = [&](int i, int j) -> CT & { return a[i + std::size_t(j) * n]; };
  for (int j = 0; j < n; ++j) {  // xtrti2: upper, non-unit
    at(j, j) = CT(1) / at(j, j);
    CT ajj = -at(j, j);
    for (int k = 0; k < j; ++k) {  // column j of inv(U)(0:j, 0:j) * U(0:j, j)
      CT t = at(k, j);
      for (int i = 0; i < k; ++i) at(i, j) += t * at(i, k);
      at(k, j) = t * at(k, k);
    }
    for (int i = 0; i < j; ++i) at(i, j) *= ajj;
  }
  for (int j = n - 1; j >= 0; --j) {  // solve inv(A) L = inv(U)
    for (int i = j + 1; i < n; ++i) w[i] = at(i, j), at(i, j) = CT(0);
    for (int k = j + 1; k < n; ++k) {
      CT wk = w[k];
      CT *ak = a + std::size_t(k) * n, *aj = a + std::size_t(j) * n;
#pragma omp simd
      for (int i = 0; i < n; ++i) aj[i] -= ak[i] * wk;
    }
  }
  for (int j = n - 2; j >= 0; --j) {  // column interchanges, last first
    int jp = p.ipiv[j] - 1;
    if (jp != j)
      for (int i = 0; i < n; ++i) {
        CT t = at(i, j);
        at(i, j) = at(i, jp);
        at(i, jp) = t;
      }
  }
  store_matrix(Av, n, n, a);
  return 0;
}

// Right-looking Cholesky on the lower factor; the upper case works on L = U^H, so both read
// and write exactly their own triangle.
template <class T>
int potrf(const PotrfProblem<T> &p, Workspace &ws) {
  using CT = C<T>;
  const int n = p.n;
  if (n == 0) return 0;
  View<T> Av = view(p.A, p.lda, p.layout);
  // L itself, or L = U^H read through the conjugate transpose: either way the stored triangle.
  const Strided<T> L = strided(Av, p.uplo == BLAS_Upper ? BLAS_ConjTrans : BLAS_NoTrans);
  CT *a = ws.get<CT>(0, std::size_t(n) * n);
  auto at = [&](int i, int j) -> CT & { return a[i + std::size_t(j) * n]; };
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < j; ++i) at(i, j) = CT(0);  // scratch above the diagonal, never stored
    for (int i = j; i < n; ++i) at(i, j) = L.conj ? conj(load(L.a[i * L.si + j * L.sj])) : load(L.a[i * L.si + j * L.sj]);
  }
  int info = 0, done = n;
  for (int j = 0; j < n; ++j) {
    CR<T> d = real(at(j, j));
    if (!(d > CR<T>(0))) {  // also catches NaN
      at(j, j) = CT(d);
      info = j + 1;
      done = j + 1;
      break;
    }
    CR<T> ljj = rsqrt(d);
    at(j, j) = CT(ljj);
    CR<T> rinv = CR<T>(1) / ljj;
    CT *aj = a + std::size_t(j) * n;
    for (int i = j + 1; i < n; ++i) aj[i] = aj[i] * rinv;
    for (int c = j + 1; c < n; ++c) {
      CT *ac = a + std::size_t(c) * n;
      CT l = conj(aj[c]);
      // Whole columns: rows above c only touch the scratch triangle, and a fixed trip count
      // vectorizes without remainder loops at the tiny sizes.
#pragma omp simd
      for (int i = 0; i < n; ++i) ac[i] -= aj[i] * l;
    }
  }
  for (int j = 0; j < done; ++j)  // columns past a failure are left as they were
    for (int i = j; i < n; ++i) L.a[i * L.si + j * L.sj] = store_as<T>(L.conj ? conj(at(i, j)) : at(i, j));
  return info;
}

// Householder QR (xgeqr2 with xlarfg's conventions).
template <class T>
int geqrf(const GeqrfProblem<T> &p, Workspace &ws) {
  using CT = C<T>;
  using R = CR<T>;
  const int m = p.m, n = p.n, mn = m < n ? m : n;
  if (mn == 0) return 0;
  View<T> Av = view(p.A, p.lda, p.layout);
  CT *a = ws.get<CT>(0, std::size_t(m) * n), *w = ws.get<CT>(1, std::size_t(n));
  load_matrix(Av, BLAS_NoTrans, m, n, a);
  for (int j = 0; j < mn; ++j) {
    CT *v = a + std::size_t(j) * m + j;  // v[0] = alpha, v[1..] = x
    const int len = m - j;
    R ssq = 0;
    for (int i = 1; i < len; ++i) ssq += abs2(v[i]);
    // xlarfg's norm: the plain sum of squares where it can neither over- nor underflow, else
    // scaled by the largest component (as xnrm2 gives it); the device kernels do the same.
    const R safmin = smallest_normal<R>() / R(traits<R>::eps);
    // Where nothing over- or underflows, the plain formulas (the textbook reference's rounding).
    const bool plain = ssq >= safmin && ssq <= R(1) / safmin && abs2(v[0]) <= R(1) / safmin;
    R xnorm = rsqrt(ssq);
    if (!(ssq >= safmin && ssq <= R(1) / safmin)) {
      R big = 0;
      for (int i = 1; i < len; ++i) big = std::max({big, rabs(real(v[i])), rabs(imag(v[i]))});
      if (big != R(0) && isfinite_all(big)) {
        R scaled = 0;
        // Divided, not multiplied by 1 / big: a subnormal big's reciprocal overflows (Inf, then
        // a NaN tau), as xnrm2's x / scale never does.
        for (int i = 1; i < len; ++i) {
          const R re = real(v[i]) / big, im = imag(v[i]) / big;
          scaled += re * re + im * im;
        }
        xnorm = big * rsqrt(scaled);
      }
    }
    CT tau(0);
    if (!(xnorm == R(0) && imag(v[0]) == R(0))) {
      R ar = real(v[0]), ai = imag(v[0]);
      auto norm3 = [](R x, R y, R z) {  // xlapy3
        x = rabs(x), y = rabs(y), z = rabs(z);
        const R w = std::max({x, y, z});
        if (w == R(0) || !isfinite_all(w)) return x + y + z;
        return w * rsqrt((x / w) * (x / w) + (y / w) * (y / w) + (z / w) * (z / w));
      };
      const R norm = plain ? rsqrt(abs2(v[0]) + ssq) : norm3(ar, ai, xnorm);
      R beta = ar >= R(0) ? -norm : norm;
      int knt = 0;
      if (rabs(beta) < safmin) {  // beta may be inaccurate: scale x and recompute (xlarfg)
        const R rsafmn = R(1) / safmin;
        do {
          ++knt;
          for (int i = 1; i < len; ++i) v[i] *= CT(rsafmn);
          beta *= rsafmn, ai *= rsafmn, ar *= rsafmn;
        } while (rabs(beta) < safmin && knt < 20);
        R s2 = 0;
        for (int i = 1; i < len; ++i) s2 += abs2(v[i]);
        beta = ar >= R(0) ? -norm3(ar, ai, rsqrt(s2)) : norm3(ar, ai, rsqrt(s2));
      }
      if constexpr (is_complex<CT>::value) tau = CT((beta - ar) / beta, -ai / beta);
      else tau = (beta - ar) / beta;
      CT shifted;
      if constexpr (is_complex<CT>::value) shifted = CT(ar - beta, ai);
      else shifted = ar - beta;
      CT scale = CT(1) / shifted;
      for (int i = 1; i < len; ++i) v[i] *= scale;
      for (int k = 0; k < knt; ++k) beta *= safmin;
      v[0] = CT(beta);
    }
    // The stored tau is rounded to the storage precision; apply the rounded one, as a
    // later xorgqr/xunmqr will.
    p.tau[j] = store_as<T>(tau);
    CT ctau = conj(load(p.tau[j]));
    if (ctau == CT(0)) continue;
    // w = v^H A(j:, j+1:), A(j:, j+1:) -= conj(tau) v w, with v[0] taken as 1.
    for (int c = j + 1; c < n; ++c) {
      const CT *ac = a + std::size_t(c) * m + j;
      CT s = ac[0];
      for (int i = 1; i < len; ++i) s += conj(v[i]) * ac[i];
      w[c] = ctau * s;
    }
    for (int c = j + 1; c < n; ++c) {
      CT *ac = a + std::size_t(c) * m + j;
      ac[0] -= w[c];
#pragma omp simd
      for (int i = 1; i < len; ++i) ac[i] -= v[i] * w[c];
    }
  }
  store_matrix(Av, m, n, a);
  return 0;
}

}  // namespace bb::host
