// Sizes at the limits of 32-bit arithmetic. Matrices whose leading dimension puts their last
// column (row, in row-major) 2^31 elements or more past the first, or whose ld is INT_MAX, live
// in sparse memory (an anonymous mapping that commits only the pages written): any offset
// computed in int wraps and faults or lands elsewhere. Each routine, backend and layout on
// such matrices must give what the reference gives on a compact copy. Plus the workspace of
// geqrf with n = 2^25 (64 n used to overflow an int), checked against a narrow slice.
#include "common.hpp"

#include <sys/mman.h>

#include <climits>
#include <functional>

namespace conf {
namespace {

// Memory that exists only where it is touched.
class SparseBuffer {
 public:
  explicit SparseBuffer(std::size_t bytes) : bytes_(std::max<std::size_t>(bytes, 1)) {
    p_ = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p_ == MAP_FAILED) p_ = nullptr;
  }
  ~SparseBuffer() {
    if (p_) munmap(p_, bytes_);
  }
  SparseBuffer(const SparseBuffer &) = delete;
  void *get() const { return p_; }

 private:
  std::size_t bytes_;
  void *p_;
};

// A rows x cols matrix with a huge leading dimension in sparse memory, and its logical
// elements gathered into a compact Mat (ld = rows or cols) and back.
template <class T>
struct FarMatrix {
  int rows, cols;
  int64_t ld;
  bool row_major;
  std::unique_ptr<SparseBuffer> mem;
  T *a = nullptr;
  FarMatrix(int r, int c, BLAS_Layout layout, int64_t ld_) : rows(r), cols(c), ld(ld_), row_major(layout == BLAS_RowMajor) {
    const int64_t lines = std::max(1, row_major ? r : c), len = std::max(1, row_major ? c : r);
    mem = std::make_unique<SparseBuffer>(std::size_t((lines - 1) * ld + len) * sizeof(T));
    a = static_cast<T *>(mem->get());
  }
  T &at(int i, int j) const { return row_major ? a[i * ld + j] : a[i + j * ld]; }
  void from(const Mat<T> &m) {
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) at(i, j) = m(i, j);
  }
  Mat<T> to(BLAS_Layout layout) const {
    Mat<T> m(rows, cols, layout, 0);
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) m(i, j) = at(i, j);
    return m;
  }
};

// The smallest ld (>= the required one) that puts the last of `lines` lines at least 2^31
// elements past the first (INT_MAX where two lines cannot get that far); or INT_MAX.
inline int64_t far_ld(int lines, int len, bool int_max) {
  const int64_t need = (int64_t(1) << 31) / std::max(1, lines - 1) + 1;
  if (int_max || need > INT_MAX) return INT_MAX;
  return std::max<int64_t>(need, std::max(1, len));
}

// One problem of a routine with its matrices (inputs and outputs) described by shape.
struct Operand {
  int rows, cols;
};

template <class T>
struct Case {
  const char *routine;
  std::vector<Operand> shapes;  // the matrices, in argument order
  // Makes the inputs well posed (in the compact copies) before the call.
  std::function<void(std::vector<Mat<T>> &)> prepare;
  // Calls the routine on the given matrices (pointers to their first element) with these lds.
  std::function<int(BLAS_Layout, const std::vector<T *> &, const std::vector<int> &, std::vector<int> &ipiv,
                    std::vector<T> &tau)>
      call;
};

template <class T>
void make_dominant(Mat<T> &a) {
  for (int i = 0; i < std::min(a.rows, a.cols); ++i) a(i, i) = T(typename traits<T>::real(2 * std::max(a.rows, a.cols) + 2));
}

template <class T>
std::vector<Case<T>> cases(int m, int n) {
  using R = typename traits<T>::real;
  std::vector<Case<T>> v;
  const int k = 2;
  v.push_back({"gemm", {{m, k}, {k, n}, {m, n}}, [](std::vector<Mat<T>> &) {},
               [m, n](BLAS_Layout l, const std::vector<T *> &p, const std::vector<int> &ld, std::vector<int> &, std::vector<T> &) {
                 BLAS_Op nt = BLAS_NoTrans;
                 int kk = k, one = 1;
                 T alpha = T(R(0.75)), beta = T(R(-0.5));
                 T *A = p[0], *B = p[1], *C = p[2];
                 return Api<T>::gemm(l, &nt, &nt, &m, &n, &kk, &alpha, &A, &ld[0], &B, &ld[1], &beta, &C, &ld[2], 1, &one, nullptr);
               }});
  for (bool solve : {true, false})
    v.push_back({solve ? "trsm" : "trmm", {{m, m}, {m, n}}, [](std::vector<Mat<T>> &x) { make_dominant(x[0]); },
                 [m, n, solve](BLAS_Layout l, const std::vector<T *> &p, const std::vector<int> &ld, std::vector<int> &, std::vector<T> &) {
                   BLAS_Side s = BLAS_Left;
                   BLAS_Uplo u = BLAS_Lower;
                   BLAS_Op t = BLAS_NoTrans;
                   BLAS_Diag d = BLAS_NonUnit;
                   int one = 1;
                   T alpha = T(R(1.5));
                   T *A = p[0], *B = p[1];
                   return (solve ? Api<T>::trsm : Api<T>::trmm)(l, &s, &u, &t, &d, &m, &n, &alpha, &A, &ld[0], &B, &ld[1], 1, &one, nullptr);
                 }});
  v.push_back({"getrf", {{m, n}}, [](std::vector<Mat<T>> &x) { make_dominant(x[0]); },
               [m, n](BLAS_Layout l, const std::vector<T *> &p, const std::vector<int> &ld, std::vector<int> &ipiv, std::vector<T> &) {
                 int one = 1;
                 T *A = p[0];
                 int *piv = ipiv.data();
                 return Api<T>::getrf(l, &m, &n, &A, &ld[0], &piv, 1, &one, nullptr);
               }});
  // getri's input read as factors with ipiv = 1..n: small multipliers keep inv(L) tame.
  v.push_back({"getri", {{m, m}},
               [](std::vector<Mat<T>> &x) {
                 Mat<T> &a = x[0];
                 for (int j = 0; j < a.cols; ++j)
                   for (int i = j + 1; i < a.rows; ++i) a(i, j) = T(R(0.5 / a.rows)) * a(i, j);
                 make_dominant(a);
               },
               [m](BLAS_Layout l, const std::vector<T *> &p, const std::vector<int> &ld, std::vector<int> &ipiv, std::vector<T> &) {
                 int one = 1;
                 T *A = p[0];
                 for (int i = 0; i < m; ++i) ipiv[i] = i + 1;
                 int *piv = ipiv.data();
                 return Api<T>::getri(l, &m, &A, &ld[0], &piv, 1, &one, nullptr);
               }});
  v.push_back({"potrf", {{m, m}},
               [](std::vector<Mat<T>> &x) {
                 Mat<T> &a = x[0];
                 for (int j = 0; j < a.cols; ++j)
                   for (int i = 0; i < j; ++i) a(i, j) = bb::conj(a(j, i));
                 for (int i = 0; i < a.rows; ++i) a(i, i) = T(R(2 * a.rows + 2));
               },
               [m](BLAS_Layout l, const std::vector<T *> &p, const std::vector<int> &ld, std::vector<int> &, std::vector<T> &) {
                 int one = 1;
                 BLAS_Uplo u = BLAS_Lower;
                 T *A = p[0];
                 return Api<T>::potrf(l, &u, &m, &A, &ld[0], 1, &one, nullptr);
               }});
  v.push_back({"geqrf", {{m, n}}, [](std::vector<Mat<T>> &) {},
               [m, n](BLAS_Layout l, const std::vector<T *> &p, const std::vector<int> &ld, std::vector<int> &, std::vector<T> &tau) {
                 int one = 1;
                 T *A = p[0], *t = tau.data();
                 return Api<T>::geqrf(l, &m, &n, &A, &ld[0], &t, 1, &one, nullptr);
               }});
  return v;
}

template <class T>
void check_far(BLAS_Layout layout, bool int_max, int m, int n) {
  SCOPED_TRACE(seed_note());
  const bool row = layout == BLAS_RowMajor;
  std::vector<const char *> backends = backends_for<T>();
  backends.insert(backends.begin(), "reference");
  for (Case<T> &c : cases<T>(m, n)) {
    SCOPED_TRACE(std::string(c.routine) + " " + std::to_string(m) + "x" + std::to_string(n) + ", layout " +
                 layout_name(layout) + (int_max ? ", ld INT_MAX" : ", ld past 2^31 elements"));
    std::vector<Mat<T>> input;
    for (const Operand &o : c.shapes) {
      input.emplace_back(o.rows, o.cols, layout, 0);
      input.back().fill_random();
    }
    c.prepare(input);
    for (const char *backend : backends) {
      SCOPED_TRACE(std::string("backend ") + backend);
      BackendScope s(backend);
      // The same backend on compact copies is the expected answer: only the addressing differs
      // (another backend's rounding could differ beyond any tolerance in half precision).
      std::vector<Mat<T>> expect = input;
      std::vector<int> ipiv_expect(std::max(m, n) + 1, 0);
      std::vector<T> tau_expect(std::max(m, n) + 1, T(0));
      {
        std::vector<T *> p;
        std::vector<int> ld;
        for (Mat<T> &x : expect) p.push_back(x.ptr()), ld.push_back(x.ld);
        ASSERT_EQ(c.call(layout, p, ld, ipiv_expect, tau_expect), 0) << "compact call";
      }
      std::vector<FarMatrix<T>> far;
      std::vector<T *> p;
      std::vector<int> ld;
      for (const Mat<T> &x : input) {
        const int lines = row ? x.rows : x.cols, len = row ? x.cols : x.rows;
        far.emplace_back(x.rows, x.cols, layout, far_ld(lines, len, int_max));
        ASSERT_NE(far.back().a, nullptr) << "no sparse mapping";
        far.back().from(x);
        p.push_back(far.back().a), ld.push_back(int(far.back().ld));
      }
      std::vector<int> ipiv(ipiv_expect.size(), 0);
      std::vector<T> tau(tau_expect.size(), T(0));
      ASSERT_EQ(c.call(layout, p, ld, ipiv, tau), 0);
      for (std::size_t o = 0; o < far.size(); ++o)
        ASSERT_LE(rel_diff(far[o].to(layout), expect[o]), compare_tol<T>(std::max(m, n))) << "operand " << o;
      ASSERT_EQ(ipiv, ipiv_expect);
      Mat<T> t(int(tau.size()), 1, BLAS_ColMajor, 0), te(int(tau.size()), 1, BLAS_ColMajor, 0);
      for (std::size_t i = 0; i < tau.size(); ++i) t(int(i), 0) = tau[i], te(int(i), 0) = tau_expect[i];
      ASSERT_LE(rel_diff(t, te), compare_tol<T>(std::max(m, n))) << "tau";
    }
    count_checked((std::string("far ld ") + traits<T>::name()).c_str(), long(backends.size()));
  }
}

template <class T>
class Limits : public ::testing::Test {};
using LimitPrecisions = ::testing::Types<Prec<half>, Prec<float>, Prec<complex<float>>, Prec<double>, Prec<complex<double>>>;
TYPED_TEST_SUITE(Limits, LimitPrecisions, PrecisionNames);

// 3 x 4 problems (host kernels), and order 40 (OpenBLAS in the native backend for r32..c64).
TYPED_TEST(Limits, LdPast2To31ColumnMajor) {
  check_far<typename TypeParam::type>(BLAS_ColMajor, false, 3, 4);
  check_far<typename TypeParam::type>(BLAS_ColMajor, false, 40, 40);
}
TYPED_TEST(Limits, LdPast2To31RowMajor) {
  check_far<typename TypeParam::type>(BLAS_RowMajor, false, 3, 4);
  check_far<typename TypeParam::type>(BLAS_RowMajor, false, 40, 40);
}
TYPED_TEST(Limits, LdIntMax) {
  check_far<typename TypeParam::type>(BLAS_ColMajor, true, 2, 2);
  check_far<typename TypeParam::type>(BLAS_RowMajor, true, 2, 2);
}

// geqrf of one 2 x 2^25 problem (r64, 512 MB): its LAPACK workspace used to be 64 n elements,
// which overflows an int at this n. R's first columns and tau depend only on those columns.
TEST(LimitsPlain, GeqrfWideWorkspace) {
  SCOPED_TRACE(seed_note());
  const int m = 2, n = 1 << 25, slice = 8, one = 1;
  std::vector<double> input(std::size_t(m) * n), head(std::size_t(m) * slice), head_tau(m, NAN);
  for (std::size_t i = 0; i < head.size(); ++i) input[i] = head[i] = uniform_nonzero();
  for (std::size_t i = head.size(); i < input.size(); ++i) input[i] = 1.0 / double(i % 1000 + 1);
  double *ph = head.data(), *pht = head_tau.data();
  ASSERT_EQ(Api<double>::geqrf(BLAS_ColMajor, &m, &slice, &ph, &m, &pht, 1, &one, nullptr), 0);
  for (const char *backend : {"native", "vendor", "reference"}) {
    SCOPED_TRACE(std::string("backend ") + backend);
    BackendScope s(backend);
    std::vector<double> a = input, tau(m + 1, NAN);
    double *pa = a.data(), *pt = tau.data();
    int info = -1;
    ASSERT_EQ(Api<double>::geqrf(BLAS_ColMajor, &m, &n, &pa, &m, &pt, 1, &one, &info), 0);
    ASSERT_EQ(info, 0);
    for (int i = 0; i < m * slice; ++i) ASSERT_NEAR(a[i], head[i], 1e-14) << "element " << i;
    for (int i = 0; i < m; ++i) ASSERT_NEAR(tau[i], head_tau[i], 1e-14) << "tau " << i;
    ASSERT_TRUE(std::isnan(tau[m])) << "tau written past min(m, n)";
  }
  count_checked("geqrf 2 x 2^25", 3);
}

}  // namespace
}  // namespace conf
