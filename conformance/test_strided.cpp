// Strided batches (SPEC.md section 9.1), every routine and precision, both layouts: each call
// is checked against the group API with one group on an identical copy of the same memory,
// whose pointers the test builds itself (the group API is checked against the reference in
// the other suites). Bit-identical results, gaps between problems and padding untouched, the
// same info and return value. Then the strided signature's own rules: argument numbers,
// strides (0 for an operand only read, overlapping outputs rejected), NULL bases.
#include "common.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

namespace conf {
namespace {

// One operand of a strided batch: `count` problems, problem p's matrix (rows x cols, leading
// dimension ld) at p * stride; everything else (gaps, padding) holds NaN.
template <class E>
struct Operand {
  int rows = 0, cols = 0, ld = 1, count = 0;
  bool row_major = false;
  int64_t extent = 0, stride = 0;
  std::vector<E> buf;
  // gap < 0: stride 0 (one matrix shared by every problem).
  Operand(int r, int c, BLAS_Layout layout, int count_, int gap, E fill) : rows(r), cols(c), count(count_) {
    row_major = layout == BLAS_RowMajor;
    ld = std::max(1, row_major ? c : r) + random_int(0, 2);
    extent = r > 0 && c > 0 ? (row_major ? int64_t(r - 1) * ld + c : int64_t(c - 1) * ld + r) : 0;
    stride = gap < 0 ? 0 : extent + gap;
    buf.assign(std::size_t(std::max<int64_t>(stride * (count - 1) + extent, 1)), fill);
  }
  E &at(int p, int i, int j) { return buf[std::size_t(p * stride + (row_major ? int64_t(i) * ld + j : i + int64_t(j) * ld))]; }
  template <class F> void fill(F f) {
    for (int p = 0; p < (stride ? count : 1); ++p)
      for (int j = 0; j < cols; ++j)
        for (int i = 0; i < rows; ++i) at(p, i, j) = f(i, j);
  }
  E *base() { return buf.data(); }
  std::vector<E *> pointers() {
    std::vector<E *> v(count);
    for (int p = 0; p < count; ++p) v[p] = buf.data() + p * stride;
    return v;
  }
};

template <class E> bool same_memory(const std::vector<E> &a, const std::vector<E> &b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(E)) == 0;
}

template <class P>
class Strided : public ::testing::Test {};
TYPED_TEST_SUITE(Strided, AllPrecisions, PrecisionNames);

const BLAS_Layout kLayouts[] = {BLAS_ColMajor, BLAS_RowMajor};
const BLAS_Op kOps[] = {BLAS_NoTrans, BLAS_Trans, BLAS_ConjTrans};

TYPED_TEST(Strided, GemmMatchesGroupApi) {
  using T = typename TypeParam::type;
  for (BLAS_Layout layout : kLayouts)
    for (int rep = 0; rep < 12; ++rep) {
      const BLAS_Op ta = kOps[random_int(0, 2)], tb = kOps[random_int(0, 2)];
      const int m = random_int(0, 9), n = random_int(0, 9), k = random_int(0, 9), count = random_int(1, 17);
      const bool an = ta == BLAS_NoTrans, bn = tb == BLAS_NoTrans;
      // Stride 0 (one A or B for all) in some repetitions: those are only read.
      Operand<T> A(an ? m : k, an ? k : m, layout, count, rep % 4 == 1 ? -1 : random_int(0, 3), nan_value<T>());
      Operand<T> B(bn ? k : n, bn ? n : k, layout, count, rep % 4 == 2 ? -1 : random_int(0, 3), nan_value<T>());
      Operand<T> C(m, n, layout, count, random_int(0, 3), nan_value<T>());
      A.fill([](int, int) { return random_value<T>(); });
      B.fill([](int, int) { return random_value<T>(); });
      C.fill([](int, int) { return random_value<T>(); });
      const T alpha = random_value<T>(), beta = rep % 5 == 0 ? T(0) : random_value<T>();
      Operand<T> C2 = C;
      std::vector<int> info_s(count, 777), info_g(count, 777);
      SCOPED_TRACE(testing::Message() << "m " << m << " n " << n << " k " << k << " count " << count);
      const int rs = Api<T>::gemm_strided(layout, ta, tb, m, n, k, &alpha, A.base(), A.ld, A.stride, B.base(), B.ld,
                                          B.stride, &beta, C.base(), C.ld, C.stride, count, info_s.data());
      auto pa = A.pointers(), pb = B.pointers(), pc = C2.pointers();
      const int rg = Api<T>::gemm(layout, &ta, &tb, &m, &n, &k, &alpha, pa.data(), &A.ld, pb.data(), &B.ld, &beta,
                                  pc.data(), &C.ld, 1, &count, info_g.data());
      EXPECT_EQ(rs, rg);
      EXPECT_EQ(rs, 0);
      EXPECT_EQ(info_s, info_g);
      EXPECT_TRUE(same_memory(C.buf, C2.buf)) << "C differs from the group API's (gaps included)";
      count_checked("strided gemm against the group API", count);
    }
}

TYPED_TEST(Strided, TrsmTrmmMatchGroupApi) {
  using T = typename TypeParam::type;
  for (const bool solve : {true, false})
    for (BLAS_Layout layout : kLayouts)
      for (int rep = 0; rep < 8; ++rep) {
        const BLAS_Side side = rep % 2 ? BLAS_Left : BLAS_Right;
        const BLAS_Uplo uplo = rep % 4 < 2 ? BLAS_Upper : BLAS_Lower;
        const BLAS_Op ta = kOps[random_int(0, 2)];
        const BLAS_Diag diag = rep % 3 ? BLAS_NonUnit : BLAS_Unit;
        const int m = random_int(0, 9), n = random_int(0, 9), count = random_int(1, 13);
        const int r = side == BLAS_Left ? m : n;
        Operand<T> A(r, r, layout, count, rep == 5 ? -1 : random_int(0, 3), nan_value<T>());
        Operand<T> B(m, n, layout, count, random_int(0, 3), nan_value<T>());
        A.fill([](int i, int j) { return i == j ? T(4) + random_value<T>() : random_value<T>(); });
        B.fill([](int, int) { return random_value<T>(); });
        const T alpha = random_value<T>();
        Operand<T> B2 = B;
        std::vector<int> info_s(count, 777), info_g(count, 777);
        auto pa = A.pointers(), pb = B2.pointers();
        int rs, rg;
        if (solve) {
          rs = Api<T>::trsm_strided(layout, side, uplo, ta, diag, m, n, &alpha, A.base(), A.ld, A.stride, B.base(),
                                    B.ld, B.stride, count, info_s.data());
          rg = Api<T>::trsm(layout, &side, &uplo, &ta, &diag, &m, &n, &alpha, pa.data(), &A.ld, pb.data(), &B.ld, 1,
                            &count, info_g.data());
        } else {
          rs = Api<T>::trmm_strided(layout, side, uplo, ta, diag, m, n, &alpha, A.base(), A.ld, A.stride, B.base(),
                                    B.ld, B.stride, count, info_s.data());
          rg = Api<T>::trmm(layout, &side, &uplo, &ta, &diag, &m, &n, &alpha, pa.data(), &A.ld, pb.data(), &B.ld, 1,
                            &count, info_g.data());
        }
        EXPECT_EQ(rs, rg);
        EXPECT_EQ(rs, 0);
        EXPECT_EQ(info_s, info_g);
        EXPECT_TRUE(same_memory(B.buf, B2.buf)) << (solve ? "trsm" : "trmm") << ": B differs from the group API's";
        count_checked("strided trsm/trmm against the group API", count);
      }
}

// getrf, then getri on its factors (pivots strided, or one pivot vector shared), potrf and
// geqrf: results, pivots, tau and info bit-identical to the group API's.
TYPED_TEST(Strided, FactorizationsMatchGroupApi) {
  using T = typename TypeParam::type;
  for (BLAS_Layout layout : kLayouts)
    for (int rep = 0; rep < 6; ++rep) {
      const int m = random_int(0, 9), n = random_int(0, 9), count = random_int(1, 13);
      SCOPED_TRACE(testing::Message() << "m " << m << " n " << n << " count " << count);
      // getrf (a zero column in one problem: info > 0 travels as it is).
      Operand<T> A(m, n, layout, count, random_int(0, 3), nan_value<T>());
      A.fill([](int, int) { return random_value<T>(); });
      if (m > 1 && n > 1 && count > 2)
        for (int i = 0; i < m; ++i) A.at(1, i, 1) = T(0), A.at(1, i, 0) = T(0);
      Operand<int> piv(std::min(m, n), 1, BLAS_ColMajor, count, random_int(0, 2), -7);
      Operand<T> A2 = A;
      Operand<int> piv2 = piv;
      std::vector<int> is(count, 777), ig(count, 777);
      int rs = Api<T>::getrf_strided(layout, m, n, A.base(), A.ld, A.stride, piv.base(), piv.stride, count, is.data());
      auto pa = A2.pointers();
      auto pp = piv2.pointers();
      int rg = Api<T>::getrf(layout, &m, &n, pa.data(), &A.ld, pp.data(), 1, &count, ig.data());
      EXPECT_EQ(rs, rg);
      EXPECT_EQ(is, ig);
      EXPECT_TRUE(same_memory(A.buf, A2.buf)) << "getrf: A";
      EXPECT_TRUE(same_memory(piv.buf, piv2.buf)) << "getrf: ipiv";

      // getri on square factors: strided pivots, or (rep odd) problem 0's pivots for all.
      const int s = std::min(m, n);
      Operand<T> F(s, s, layout, count, random_int(0, 3), nan_value<T>());
      Operand<int> fp(s, 1, BLAS_ColMajor, count, rep % 2 ? -1 : random_int(0, 2), -7);
      for (int p = 0; p < count; ++p)
        for (int j = 0; j < s; ++j) {
          for (int i = 0; i < s; ++i) F.at(p, i, j) = T(i == j ? 3 : 0) + random_value<T>();
          if (p < (fp.stride ? count : 1)) fp.at(p, j, 0) = random_int(j + 1, s);
        }
      Operand<T> F2 = F;
      is.assign(count, 777), ig.assign(count, 777);
      rs = Api<T>::getri_strided(layout, s, F.base(), F.ld, F.stride, fp.base(), fp.stride, count, is.data());
      auto pf = F2.pointers();
      auto pfp = fp.pointers();
      rg = Api<T>::getri(layout, &s, pf.data(), &F.ld, pfp.data(), 1, &count, ig.data());
      EXPECT_EQ(rs, rg);
      EXPECT_EQ(is, ig);
      EXPECT_TRUE(same_memory(F.buf, F2.buf)) << "getri: A";

      // potrf: Hermitian, positive definite in one triangle (one problem not: info > 0).
      for (BLAS_Uplo uplo : {BLAS_Upper, BLAS_Lower}) {
        Operand<T> H(n, n, layout, count, random_int(0, 3), nan_value<T>());
        H.fill([&](int i, int j) { return i == j ? T(2 * n + 2) : random_value<T>(); });
        if (n > 0 && count > 1) H.at(count - 1, n - 1, n - 1) = T(-1);
        Operand<T> H2 = H;
        is.assign(count, 777), ig.assign(count, 777);
        rs = Api<T>::potrf_strided(layout, uplo, n, H.base(), H.ld, H.stride, count, is.data());
        auto ph = H2.pointers();
        rg = Api<T>::potrf(layout, &uplo, &n, ph.data(), &H.ld, 1, &count, ig.data());
        EXPECT_EQ(rs, rg);
        EXPECT_EQ(is, ig);
        EXPECT_TRUE(same_memory(H.buf, H2.buf)) << "potrf: A";
      }

      // geqrf.
      Operand<T> Q(m, n, layout, count, random_int(0, 3), nan_value<T>());
      Q.fill([](int, int) { return random_value<T>(); });
      Operand<T> tau(std::min(m, n), 1, BLAS_ColMajor, count, random_int(0, 2), nan_value<T>());
      Operand<T> Q2 = Q, tau2 = tau;
      is.assign(count, 777), ig.assign(count, 777);
      rs = Api<T>::geqrf_strided(layout, m, n, Q.base(), Q.ld, Q.stride, tau.base(), tau.stride, count, is.data());
      auto pq = Q2.pointers();
      auto pt = tau2.pointers();
      rg = Api<T>::geqrf(layout, &m, &n, pq.data(), &Q.ld, pt.data(), 1, &count, ig.data());
      EXPECT_EQ(rs, rg);
      EXPECT_EQ(is, ig);
      EXPECT_TRUE(same_memory(Q.buf, Q2.buf)) << "geqrf: A";
      EXPECT_TRUE(same_memory(tau.buf, tau2.buf)) << "geqrf: tau";
      count_checked("strided factorizations against the group API", 5 * count);
    }
}

// ---- the strided signatures' own argument rules (r64; positions do not depend on precision) --
class StridedArguments : public ::testing::Test {
 protected:
  static constexpr int kCount = 5;
  std::vector<double> a = std::vector<double>(400, 1.5), b = std::vector<double>(400, 2.5),
                      c = std::vector<double>(400, 3.5);
  std::vector<int> ipiv = std::vector<int>(100, 1), info = std::vector<int>(kCount, 777);
  const double one = 1;
  // The call changed nothing (call-level error).
  void untouched() {
    EXPECT_TRUE(std::all_of(c.begin(), c.end(), [](double x) { return x == 3.5; }));
    EXPECT_TRUE(std::all_of(info.begin(), info.end(), [](int x) { return x == 777; }));
  }
  // Every problem got info = -k and the call returned their number.
  void all_info(int rc, int k) {
    EXPECT_EQ(rc, kCount);
    EXPECT_TRUE(std::all_of(info.begin(), info.end(), [&](int x) { return x == -k; })) << "info[0] " << info[0];
    info.assign(kCount, 777);
  }
  int gemm(BLAS_Layout l, int m, int ldc, int64_t sa, int64_t sc, const double *alpha, double *A, int count,
           BLAS_Op ta = BLAS_NoTrans) {
    return BLAS_gemm_batched_strided_r64(l, ta, BLAS_NoTrans, m, 3, 3, alpha, A, 3, sa, b.data(), 3, 9, &one,
                                         c.data(), ldc, sc, count, info.data());
  }
};

TEST_F(StridedArguments, GemmPositions) {
  EXPECT_EQ(gemm(BLAS_Layout(7), 3, 3, 9, 9, &one, a.data(), kCount), -1);
  untouched();
  EXPECT_EQ(gemm(BLAS_ColMajor, 3, 3, 9, 9, nullptr, a.data(), kCount), -7);
  untouched();
  EXPECT_EQ(gemm(BLAS_ColMajor, 3, 3, 9, 9, &one, a.data(), -1), -18);
  untouched();
  EXPECT_EQ(gemm(BLAS_ColMajor, 3, 3, 9, 9, &one, a.data(), 0), 0);
  untouched();
  all_info(gemm(BLAS_ColMajor, 3, 3, 9, 9, &one, a.data(), kCount, BLAS_Op(0)), 2);
  all_info(gemm(BLAS_ColMajor, -1, 3, 9, 9, &one, a.data(), kCount), 4);
  all_info(gemm(BLAS_ColMajor, 3, 2, 9, 9, &one, a.data(), kCount), 16);  // C_ld
  all_info(gemm(BLAS_ColMajor, 3, 3, -9, 9, &one, a.data(), kCount), 10);  // negative A_stride
  all_info(gemm(BLAS_ColMajor, 3, 3, 9, 8, &one, a.data(), kCount), 17);   // outputs overlap
  all_info(gemm(BLAS_ColMajor, 3, 3, 9, 0, &one, a.data(), kCount), 17);   // one C for all
  all_info(gemm(BLAS_ColMajor, 3, 2, -9, 9, &one, a.data(), kCount), 10);  // the lower number wins
  all_info(gemm(BLAS_ColMajor, 3, 3, 9, 9, &one, nullptr, kCount), 8);     // NULL A
  EXPECT_TRUE(std::all_of(c.begin(), c.end(), [](double x) { return x == 3.5; }));
  // Stride 0 for A (read only) is valid; one problem may have any C stride.
  EXPECT_EQ(gemm(BLAS_ColMajor, 3, 3, 0, 9, &one, a.data(), kCount), 0);
  EXPECT_EQ(c[0], 3.5 + 1.5 * 2.5 * 3);
  EXPECT_EQ(BLAS_gemm_batched_strided_r64(BLAS_ColMajor, BLAS_NoTrans, BLAS_NoTrans, 3, 3, 3, &one, a.data(), 3, 0,
                                          b.data(), 3, 0, &one, c.data(), 3, 0, 1, nullptr),
            0);
}

TEST_F(StridedArguments, OtherRoutinesPositions) {
  // trsm: layout 1 ... A_stride 11, B 12, B_ld 13, B_stride 14, batch_count 15.
  int rc = BLAS_trsm_batched_strided_r64(BLAS_ColMajor, BLAS_Left, BLAS_Upper, BLAS_NoTrans, BLAS_NonUnit, 3, 3, &one,
                                         a.data(), 3, 9, c.data(), 3, 5, kCount, info.data());
  all_info(rc, 14);
  EXPECT_EQ(BLAS_trmm_batched_strided_r64(BLAS_ColMajor, BLAS_Left, BLAS_Upper, BLAS_NoTrans, BLAS_NonUnit, 3, 3, &one,
                                          a.data(), 3, 9, c.data(), 3, 9, -2, info.data()),
            -15);
  rc = BLAS_trmm_batched_strided_r64(BLAS_ColMajor, BLAS_Left, BLAS_Upper, BLAS_NoTrans, BLAS_NonUnit, 3, 3, &one,
                                     a.data(), 2, 9, c.data(), 3, 9, kCount, info.data());
  all_info(rc, 10);
  // getrf: A_stride 6, ipiv 7, ipiv_stride 8, batch_count 9.
  all_info(BLAS_getrf_batched_strided_r64(BLAS_ColMajor, 3, 3, a.data(), 3, 9, ipiv.data(), 2, kCount, info.data()), 8);
  all_info(BLAS_getrf_batched_strided_r64(BLAS_ColMajor, 3, 3, a.data(), 3, 9, nullptr, 3, kCount, info.data()), 7);
  EXPECT_EQ(BLAS_getrf_batched_strided_r64(BLAS_ColMajor, 3, 3, a.data(), 3, 9, ipiv.data(), 3, -1, info.data()), -9);
  // getri: ipiv 6 (shared pivots are fine: only read), a pivot out of range in problem 2 only.
  std::vector<int> piv(15);
  for (int i = 0; i < 15; ++i) piv[i] = i % 3 + 1;  // no interchanges
  piv[3 * 2 + 1] = 4;
  std::vector<double> f(45);
  auto diagonal = [&] {
    std::fill(f.begin(), f.end(), 0.0);
    for (int p = 0; p < 5; ++p)
      for (int i = 0; i < 3; ++i) f[p * 9 + i * 4] = 2;
  };
  diagonal();
  rc = BLAS_getri_batched_strided_r64(BLAS_ColMajor, 3, f.data(), 3, 9, piv.data(), 3, kCount, info.data());
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(info, (std::vector<int>{0, 0, -6, 0, 0}));
  EXPECT_EQ(f[0], 0.5);
  EXPECT_EQ(f[18], 2.0) << "the problem with the bad pivot is untouched";
  info.assign(kCount, 777);
  diagonal();
  EXPECT_EQ(BLAS_getri_batched_strided_r64(BLAS_ColMajor, 3, f.data(), 3, 9, piv.data(), 0, kCount, info.data()), 0);
  EXPECT_EQ(f[18], 0.5);
  // potrf: uplo 2, A_stride 6, batch_count 7.
  all_info(BLAS_potrf_batched_strided_r64(BLAS_ColMajor, BLAS_Uplo(5), 3, a.data(), 3, 9, kCount, info.data()), 2);
  all_info(BLAS_potrf_batched_strided_r64(BLAS_ColMajor, BLAS_Upper, 3, a.data(), 3, 7, kCount, info.data()), 6);
  EXPECT_EQ(BLAS_potrf_batched_strided_r64(BLAS_ColMajor, BLAS_Upper, 3, a.data(), 3, 9, -1, info.data()), -7);
  // geqrf: tau 7, tau_stride 8.
  all_info(BLAS_geqrf_batched_strided_r64(BLAS_RowMajor, 3, 4, a.data(), 4, 12, b.data(), 2, kCount, info.data()), 8);
  all_info(BLAS_geqrf_batched_strided_r64(BLAS_RowMajor, 3, 4, a.data(), 3, 12, b.data(), 3, kCount, info.data()), 5);
}

}  // namespace
}  // namespace conf
