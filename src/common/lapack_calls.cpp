#include "lapack_calls.hpp"

#include "column_major.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <new>

// Fortran BLAS/LAPACK symbols (LP64, gfortran hidden string lengths last).
extern "C" {
#define BB_DECLARE_FORTRAN(x, T)                                                              \
  void x##gemm_(const char *, const char *, const int *, const int *, const int *, const T *, \
                const T *, const int *, const T *, const int *, const T *, T *, const int *,  \
                std::size_t, std::size_t);                                                    \
  void x##trsm_(const char *, const char *, const char *, const char *, const int *,          \
                const int *, const T *, const T *, const int *, T *, const int *, std::size_t,\
                std::size_t, std::size_t, std::size_t);                                       \
  void x##trmm_(const char *, const char *, const char *, const char *, const int *,          \
                const int *, const T *, const T *, const int *, T *, const int *, std::size_t,\
                std::size_t, std::size_t, std::size_t);                                       \
  void x##getrf_(const int *, const int *, T *, const int *, int *, int *);                   \
  void x##getri_(const int *, T *, const int *, const int *, T *, const int *, int *);        \
  void x##potrf_(const char *, const int *, T *, const int *, int *, std::size_t);            \
  void x##geqrf_(const int *, const int *, T *, const int *, T *, T *, const int *, int *);
BB_DECLARE_FORTRAN(s, float)
BB_DECLARE_FORTRAN(d, double)
BB_DECLARE_FORTRAN(c, bb::complex<float>)
BB_DECLARE_FORTRAN(z, bb::complex<double>)
#undef BB_DECLARE_FORTRAN
int openblas_get_num_threads(void) __attribute__((weak));
void openblas_set_num_threads(int) __attribute__((weak));
int openblas_get_parallel(void) __attribute__((weak));  // 0 sequential, 1 pthreads, 2 OpenMP
}

namespace bb::lapack {
namespace {

template <class T> struct fortran;
#define BB_BIND_FORTRAN(x, T)                                                        \
  template <> struct fortran<T> {                                                    \
    static constexpr auto gemm = x##gemm_, trsm = x##trsm_, trmm = x##trmm_;         \
    static constexpr auto getrf = x##getrf_, getri = x##getri_, potrf = x##potrf_;   \
    static constexpr auto geqrf = x##geqrf_;                                         \
  };
BB_BIND_FORTRAN(s, float)
BB_BIND_FORTRAN(d, double)
BB_BIND_FORTRAN(c, complex<float>)
BB_BIND_FORTRAN(z, complex<double>)
#undef BB_BIND_FORTRAN

const char *op_char(BLAS_Op op) { return op == BLAS_NoTrans ? "N" : op == BLAS_Trans ? "T" : "C"; }

// A row-major matrix as a column-major copy in workspace slot `slot` (ld = rows).
template <class T>
struct ColumnMajorCopy {
  T *a;
  int ld;
  ColumnMajorCopy(const View<T> &v, int rows, int cols, Workspace &ws, int slot) {
    ld = std::max(1, rows);
    a = ws.get<T>(slot, std::size_t(ld) * std::max(1, cols));
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) a[i + std::size_t(j) * ld] = v(i, j);
  }
  void copy_back(const View<T> &v, int rows, int cols) const {
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) v(i, j) = a[i + std::size_t(j) * ld];
  }
};

// Runs `f(a, lda)` on the problem's matrix in column-major storage.
template <class T, class F>
int in_column_major(BLAS_Layout layout, T *A, int lda, int rows, int cols, Workspace &ws, F f) {
  if (layout == BLAS_ColMajor) return f(A, lda);
  View<T> v = view(A, lda, layout);
  ColumnMajorCopy<T> c(v, rows, cols, ws, 0);
  int info = f(c.a, c.ld);
  c.copy_back(v, rows, cols);
  return info;
}

}  // namespace

// C = beta C without reading C when beta = 0. BLAS leaves A and B unread when alpha = 0,
// but some OpenBLAS versions still multiply by them, so NaN there would leak into C.
template <class T>
void scale_only(const View<T> &c, int m, int n, T beta) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) c(i, j) = beta == T(0) ? T(0) : beta * c(i, j);
}

template <class T>
int gemm(const GemmProblem<T> &p) {
  if (p.m == 0 || p.n == 0) return 0;
  if (p.alpha == T(0) || p.k == 0) return scale_only(view(p.C, p.ldc, p.layout), p.m, p.n, p.beta), 0;
  const GemmColumnMajor cm = column_major_gemm(p.layout, p.ta, p.tb, p.m, p.n);
  const T *a = cm.swap_ab ? p.B : p.A, *b = cm.swap_ab ? p.A : p.B;
  const int lda = cm.swap_ab ? p.ldb : p.lda, ldb = cm.swap_ab ? p.lda : p.ldb;
  fortran<T>::gemm(op_char(cm.ta), op_char(cm.tb), &cm.m, &cm.n, &p.k, &p.alpha, a, &lda, b, &ldb, &p.beta, p.C,
                   &p.ldc, 1, 1);
  return 0;
}

template <class T>
int trsm_trmm(const TriangularProblem<T> &p) {
  if (p.m == 0 || p.n == 0) return 0;
  if (p.alpha == T(0)) return scale_only(view(p.B, p.ldb, p.layout), p.m, p.n, T(0)), 0;
  const TriangularColumnMajor cm = column_major_triangular(p.layout, p.side, p.uplo, p.m, p.n);
  const int m = cm.m, n = cm.n;
  const char *side = cm.side == BLAS_Left ? "L" : "R", *uplo = cm.uplo == BLAS_Upper ? "U" : "L";
  const char *diag = p.diag == BLAS_Unit ? "U" : "N";
  auto f = p.solve ? fortran<T>::trsm : fortran<T>::trmm;
  f(side, uplo, op_char(p.ta), diag, &m, &n, &p.alpha, p.A, &p.lda, p.B, &p.ldb, 1, 1, 1, 1);
  return 0;
}

// A getrf problem's input kept in workspace (A line by line as stored, and ipiv: a problem
// whose redo cannot get its workspace must come back untouched), to be put back.
template <class T>
class KeptGetrf {
 public:
  KeptGetrf(const GetrfProblem<T> &p, Workspace &ws)
      : p_(p), lines_(p.layout == BLAS_ColMajor ? p.n : p.m), len_(p.layout == BLAS_ColMajor ? p.m : p.n) {
    a_ = ws.get<T>(2, std::size_t(lines_) * len_);
    ipiv_ = ws.get<int>(3, std::size_t(std::min(p.m, p.n)));
    for (int l = 0; l < lines_; ++l) std::memcpy(a_ + std::size_t(l) * len_, line(l), len_ * sizeof(T));
    std::memcpy(ipiv_, p.ipiv, std::min(p.m, p.n) * sizeof(int));
  }
  void put_back() const {
    for (int l = 0; l < lines_; ++l) std::memcpy(line(l), a_ + std::size_t(l) * len_, len_ * sizeof(T));
    std::memcpy(p_.ipiv, ipiv_, std::min(p_.m, p_.n) * sizeof(int));
  }
  // Whether the factors now in A left SPEC.md section 3's rule: a NaN, Inf or subnormal U(i,i).
  // A subnormal pivot stays on the diagonal after OpenBLAS scaled its column by the overflowing
  // reciprocal, so the diagonal finds every such problem of normal inputs; what else could be
  // NaN or Inf there comes from overflow in the elimination (SPEC allows the backends to differ
  // there). A scan of every element, as the vendor GPU path does, cost 5 % (r64, orders 33..128).
  bool factors_left_the_rule() const {
    using R = typename traits<T>::real;
    auto special = [](R x) { return !isfinite_all(x) || (x != R(0) && rabs(x) < smallest_normal<R>()); };
    for (int i = 0; i < std::min(p_.m, p_.n); ++i)  // (i, i): line i, place i in either layout
      if (special(real(line(i)[i])) || special(imag(line(i)[i]))) return true;
    return false;
  }

 private:
  T *line(int l) const { return p_.A + std::size_t(l) * p_.lda; }
  const GetrfProblem<T> &p_;
  int lines_, len_;
  T *a_;
  int *ipiv_;
};

template <class T>
int getrf(const GetrfProblem<T> &p, Workspace &ws, GetrfRule<T> rule) {
  if (p.m == 0 || p.n == 0) return 0;
  const KeptGetrf<T> input(p, ws);
  const int info = in_column_major(p.layout, p.A, p.lda, p.m, p.n, ws, [&](T *a, int lda) {
    int code = 0;
    fortran<T>::getrf(&p.m, &p.n, a, &lda, p.ipiv, &code);
    return code;
  });
  if (!input.factors_left_the_rule()) return info;
  input.put_back();
  try {
    return rule(p, ws);
  } catch (const std::bad_alloc &) {
    input.put_back();  // the rule may have written ipiv
    throw;
  }
}

// LAPACK's blocked routines want n x (block size) elements of workspace and manage with n
// (they shrink the block size themselves). The optimal size comes from a workspace query;
// above this many bytes the minimum is used instead, so a call with a huge n cannot ask for
// gigabytes of scratch (nor overflow an int computing it).
constexpr std::size_t kMaxLapackWorkBytes = std::size_t(64) << 20;

template <class T, class Query>
int workspace_elements(int n, Query query) {
  T optimal(0);
  int lwork = -1, info = 0;
  query(&optimal, &lwork, &info);
  const double want = double(real(optimal));
  const int minimum = std::max(1, n);
  if (info != 0 || !(want >= minimum) || want * sizeof(T) > double(kMaxLapackWorkBytes)) return minimum;
  return int(want);
}

template <class T>
int getri(const GetriProblem<T> &p, Workspace &ws) {
  if (p.n == 0) return 0;
  return in_column_major(p.layout, p.A, p.lda, p.n, p.n, ws, [&](T *a, int lda) {
    int info = 0;
    int lwork = workspace_elements<T>(p.n, [&](T *w, int *lw, int *inf) {
      fortran<T>::getri(&p.n, a, &lda, p.ipiv, w, lw, inf);
    });
    T *work = ws.get<T>(1, std::size_t(lwork));
    fortran<T>::getri(&p.n, a, &lda, p.ipiv, work, &lwork, &info);
    return info;
  });
}

template <class T>
int potrf(const PotrfProblem<T> &p, Workspace &) {
  if (p.n == 0) return 0;
  // Row-major: only the triangle flips, no copy is needed (column_major.hpp).
  const bool upper = column_major_potrf_uplo(p.layout, p.uplo) == BLAS_Upper;
  int info = 0;
  fortran<T>::potrf(upper ? "U" : "L", &p.n, p.A, &p.lda, &info, 1);
  // OpenBLAS tests each pivot with `<= 0` only, so a NaN pivot (SPEC: info = i) goes
  // unreported. A NaN pivot leaves NaN on the diagonal there and after, while every earlier
  // pivot was positive: the first NaN on the diagonal before the reported failure is the one.
  for (int i = 0; i < (info > 0 ? info - 1 : p.n); ++i)
    if (isnan_any(p.A[i + std::size_t(i) * p.lda])) return i + 1;
  return info;
}

template <class T>
int geqrf(const GeqrfProblem<T> &p, Workspace &ws) {
  if (p.m == 0 || p.n == 0) return 0;
  return in_column_major(p.layout, p.A, p.lda, p.m, p.n, ws, [&](T *a, int lda) {
    int info = 0;
    int lwork = workspace_elements<T>(p.n, [&](T *w, int *lw, int *inf) {
      fortran<T>::geqrf(&p.m, &p.n, a, &lda, p.tau, w, lw, inf);
    });
    T *work = ws.get<T>(1, std::size_t(lwork));
    fortran<T>::geqrf(&p.m, &p.n, a, &lda, p.tau, work, &lwork, &info);
    return info;
  });
}

namespace {
std::mutex guard_mutex;
int guard_count = 0, saved_threads = 1;
}  // namespace

// An OpenMP build of OpenBLAS already runs one thread inside a parallel region, and setting its
// thread count would set the OpenMP one, shrinking the library's own team: no guard there.
SingleThreadedBlas::SingleThreadedBlas(bool active)
    : active_(active && openblas_get_num_threads && openblas_set_num_threads &&
              !(openblas_get_parallel && openblas_get_parallel() == 2)) {
  if (!active_) return;
  std::lock_guard<std::mutex> lock(guard_mutex);
  if (guard_count++ == 0) {
    saved_threads = openblas_get_num_threads();
    if (saved_threads > 1) openblas_set_num_threads(1);
  }
}

SingleThreadedBlas::~SingleThreadedBlas() {
  if (!active_) return;
  std::lock_guard<std::mutex> lock(guard_mutex);
  if (--guard_count == 0 && saved_threads > 1) openblas_set_num_threads(saved_threads);
}

#define BB_INSTANTIATE(T)                                           \
  template int gemm<T>(const GemmProblem<T> &);                     \
  template int trsm_trmm<T>(const TriangularProblem<T> &);          \
  template int getrf<T>(const GetrfProblem<T> &, Workspace &, GetrfRule<T>);      \
  template int getri<T>(const GetriProblem<T> &, Workspace &);      \
  template int potrf<T>(const PotrfProblem<T> &, Workspace &);      \
  template int geqrf<T>(const GeqrfProblem<T> &, Workspace &);
BB_INSTANTIATE(float)
BB_INSTANTIATE(double)
BB_INSTANTIATE(complex<float>)
BB_INSTANTIATE(complex<double>)
#undef BB_INSTANTIATE

}  // namespace bb::lapack
