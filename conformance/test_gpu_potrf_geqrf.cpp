// potrf and geqrf on device-resident data (SPEC.md sections 3-5, 9.1, 9.2), through the public C
// API only. Matrices and tau live in device memory (cudaMalloc; a few groups in managed,
// stream-ordered pool, pinned or pageable memory); pointer arrays and info in host memory unless
// a test says otherwise. Every call's outputs are checked against
//  - the reference backend run on host copies of the same inputs (the same NULL entries): info,
//    the return value and, on well-conditioned inputs, the factor (potrf), R, v and tau (geqrf)
//    to a normwise tolerance;
//  - checks that need no reference (common.hpp and below): ||A - L L^H|| / (n ||A|| eps) and its
//    componentwise form |A - L L^H| <= (j + 3) eps |L| |L^H| (an element that lost or took a
//    wrong update shows even in a large half problem); the factor's real positive diagonal;
//    ||A - Q R|| / (max(m, n) ||A|| eps) and ||I - Q^H Q|| / (m eps) with Q formed from v and tau
//    (for r16 .. c32 also with sqrt(max(m, n)) for max(m, n): the typical size of the errors,
//    where the worst-case bound says nothing in half precision; see kTypicalChecks);
//    LAPACK's conventions of xlarfg (R's diagonal real, beta = -sign(Re(alpha)) ||(alpha, x)||
//    read off inputs whose alpha keeps the sign of A(j,j), 1 <= Re(tau) <= 2 and |tau - 1| <= 1,
//    tau = 0 exactly where x = 0 and alpha is real, the exact reflector that turns a complex
//    alpha real); and planted problems whose results are known exactly (below);
//  - bytes: every byte a call may not write (the NaN padding of each column or row, potrf's
//    other triangle, which holds NaN, the gaps between matrices, the guards after them, tau past
//    min(m, n), skipped problems, the pointer arrays) is compared bit for bit with what was there
//    before; info and tau start poisoned (info -12345, tau NaN), so an entry left unwritten shows.
// Inputs: Hermitian positive definite A = M M^H / n + I (eigenvalues in [1, ~2.5]), the imaginary
// part of its diagonal garbage (ignored by potrf); the same with a diagonal entry made negative,
// zero or NaN (info = that order exactly); planted Cholesky factors: L with every entry +-1/4
// (+-1/4 +- i/4) below a diagonal of 1 or 2, so that every partial sum of every order of the
// operations is exact in every precision, half included, and the factor must come back exactly
// (whatever the order or blocking of the updates, as long as L(i,j) comes from its own partial
// sums and the division by L(j,j) or the multiplication by its reciprocal: not through an
// explicitly inverted triangular block);
// geqrf on random matrices with a boosted diagonal (well conditioned, every Householder sign far
// from a tie), plain random ones, upper trapezoidal ones (x = 0 at every step: tau = 0 and A
// unchanged for a real diagonal, a pure phase for a complex one), and planted ones,
// A = H(1) ... H(k) R with H(j) = I - v v^H, v = e_j + s e_i (s = +-1, +-i, i > j) or H(j) = I:
// Q is a signed permutation, every step exact, and R, v and tau (1 or 0) must come back exactly.
// Sizes: every order 1..32 (register kernels) with both triangles, tall and wide shapes up to
// 32, tall panels up to 512 x 32, and orders 33..512 across the shared-memory kernels (their
// capacity edges: 111/112 for c64, 159/160 for r64 and c32 and c16, 223/224 for r32 and r16)
// and the in-place global-memory ones. Each call runs under both device backends (native,
// vendor); r128 / c128, staged through the host kernels under either, run under native with the
// same checks and smaller sizes and batches. The host side (the reference backend and the
// checks, in double or binary128) dominates the run time: about 80 s for the whole suite on an
// H100, about 25 s with BB_GPU_REDUCED=1.
// Without a GPU every test skips (gpu_common.hpp); BB_GPU_REDUCED=1 shrinks it for sanitizers.
#include "gpu_common.hpp"

#include <algorithm>
#include <climits>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>

namespace conf {
namespace {

using gpu::batch;
using gpu::Buffer;
using gpu::device_backends;
using gpu::Mem;
using gpu::Reporter;
using gpu::scaled;

constexpr int kInfoPoison = -12345;  // info entries the library has not written
constexpr int kTauGuard = 3;         // NaN tau entries after each problem's min(m, n)
// Argument numbers: the group API (SPEC.md section 4.2) and the strided signatures (9.1).
constexpr int kPotrfA = 4, kGeqrfA = 4, kGeqrfTau = 6;
constexpr int kStridedAStride = 6;         // potrf and geqrf
constexpr int kStridedGeqrfTauStride = 8;  // geqrf

// Limit of potrf_componentwise (below). Cholesky satisfies |A - L L^H| <= gamma_{j+2} |L| |L^H|
// elementwise (j = min(i, j): j updates, the square root or the scaling by 1 / L(j,j)), for any
// order of the operations and any precision the intermediate values are rounded to (half on the
// device's in-place kernel); complex products add a factor of up to 2 sqrt 2; evaluating the
// residual in a wide type no wider than T (r64, c64, r128, c128) adds up to 1 (real) or 4
// (complex). The same limits as the getrf suite's componentwise check; observed at most 1.0 on
// the device kernels (H100) and 1.9 on the host backends.
template <class T> constexpr double componentwise_limit() { return is_cplx<T> ? 16 : 6; }

// geqrf in r16, c16, r32, c32, whose checks run in a wider type (double): limits on the
// typical size of the errors besides the worst-case ones. LAPACK's normwise limits grow with
// max(m, n) eps (30 max(m, n) eps is above 1 from order 68 on in half precision: no check at
// all); rounding errors of random data grow like sqrt(n) eps instead (Higham and Mary's
// probabilistic analysis), so these ratios use sqrt(max(m, n)) (sqrt(m) for Q) and stay near 1:
// observed at most 1.4 (residual), 4.8 (orthogonality) and 1.4 (against the reference) on the
// host backends, 2.0, 6.5 and 3.5 on the device kernels (H100, every shape of the sweeps). The
// limits leave a margin of about 8 to 10 and catch what the normwise ones let through (an
// element of R wrong by 2% in a 300 x 300 r32 problem, say). r64, c64, r128, c128 keep the
// normwise limits alone: their checks run in their own precision, whose error in forming Q
// alone grows like m eps.
template <class T> constexpr bool kTypicalChecks = sizeof(WideReal<T>) > sizeof(typename traits<T>::real);
constexpr double kTypicalResidual = 20, kTypicalOrth = 50, kTypicalDiff = 30;

enum class Routine { potrf, geqrf };
const char *routine_name(Routine r) { return r == Routine::potrf ? "potrf" : "geqrf"; }

// How a call passes its problems.
struct CallOpts {
  const char *backend = "native";
  Mem info = Mem::host;        // info in host, device or managed memory
  bool with_info = true;       // false: info = NULL, the return value is the only report
  bool device_arrays = false;  // the pointer arrays in device memory (SPEC.md 9.2)
  bool mixed_arrays = false;   // geqrf: A's pointer array in device memory, tau's in host memory
  bool strided = false;        // the strided entry point: one group, evenly spaced problems
  std::optional<int64_t> a_stride, tau_stride;  // strided: strides other than the natural ones
  std::string describe() const {
    std::string s = std::string("backend ") + backend + ", info " + (with_info ? gpu::mem_name(info) : "NULL");
    if (device_arrays) s += ", device pointer arrays";
    if (mixed_arrays) s += ", A array in device memory and tau array in host memory";
    if (strided) s += ", strided";
    if (a_stride) s += ", A stride " + std::to_string(*a_stride);
    if (tau_stride) s += ", tau stride " + std::to_string(*tau_stride);
    return s;
  }
};
CallOpts on(const char *backend) {
  CallOpts o;
  o.backend = backend;
  return o;
}

// ---- problems --------------------------------------------------------------------------------
// One potrf or geqrf problem: its input and what is known about the answer in advance.
template <class T>
struct Problem {
  int m = 0, n = 0;               // potrf: m = n
  Mat<T> A;                       // the input (potrf: the other triangle NaN)
  QrKind kind = QrKind::plain;    // geqrf: how A was made (unless planted)
  bool planted = false;           // expect (and expect_tau) hold the exact results
  int info = 0;                   // potrf: the order of the first leading minor that is not
                                  // positive definite, 0 if none
  Mat<T> expect;                  // planted: the exact output (potrf: in the uplo triangle)
  std::vector<T> expect_tau;      // planted geqrf: the exact tau (min(m, n) entries)
  int scale_exp = 0;              // geqrf: A is 2^scale_exp times a boosted matrix
};

template <class T> T from_wide_real(double x) { return narrow<T>(Wide<T>(WideReal<T>(x))); }

// A positive definite potrf problem (common.hpp's make_hpd).
template <class T>
Problem<T> hpd_problem(int n, BLAS_Layout layout, BLAS_Uplo uplo, int pad) {
  Problem<T> pr;
  pr.m = pr.n = n;
  pr.A = make_hpd<T>(n, layout, uplo, pad);
  return pr;
}

// A potrf problem with a known exact factor: L with L(j,j) = 1 or 2 and every entry below it
// +-1/4 (complex: +-1/4 +- i/4), A = L L^H. Every product L(i,k) conj(L(j,k)) is a multiple
// of 1/16 (complex: of its real and imaginary part), every partial sum of A(i,j)'s at most n
// terms (A's entries included) is such a multiple below 36 (complex: 68) in magnitude, so at
// most 11 significant bits up to n = 512: exact in half and beyond, in any order, rounded to
// any precision at any step; d = L(j,j)^2 has an exact square root and 1 / L(j,j) is a power
// of two (r32 and r16 take it from rsqrtf(1) and rsqrtf(4), exact on the H100 though CUDA
// documents 2 ulp: chol_pivot_by_rsqrt). The factor must come back bit for bit in value, with
// its positive real diagonal.
// The imaginary part of A's diagonal is garbage (ignored). Every entry of L is nonzero, so an
// update lost or taken twice anywhere changes the result.
template <class T>
Problem<T> planted_chol(int n, BLAS_Layout layout, BLAS_Uplo uplo, int pad) {
  using W = Wide<T>;
  using WR = WideReal<T>;
  using R = typename traits<T>::real;
  Problem<T> pr;
  pr.m = pr.n = n, pr.planted = true;
  std::vector<W> L(std::size_t(n) * n, W(0));  // row-major, lower
  auto quarter = [] { return WR(random_int(0, 1) ? 0.25 : -0.25); };
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < i; ++k) {
      if constexpr (is_cplx<T>) L[std::size_t(i) * n + k] = W(quarter(), quarter());
      else L[std::size_t(i) * n + k] = W(quarter());
    }
    L[std::size_t(i) * n + i] = W(WR(random_int(1, 2)));
  }
  pr.A = Mat<T>(n, n, layout, pad);
  pr.expect = Mat<T>(n, n, layout, pad);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) {
      W s(0);
      const W *li = L.data() + std::size_t(i) * n, *lj = L.data() + std::size_t(j) * n;
      for (int k = 0; k <= j; ++k) s += li[k] * bb::conj(lj[k]);
      if (!(wide(narrow<T>(s)) == s)) ADD_FAILURE() << "test bug: planted A(" << i << "," << j << ") is not exact";
      if (uplo == BLAS_Lower) pr.A(i, j) = narrow<T>(s), pr.expect(i, j) = narrow<T>(li[j]);
      else pr.A(j, i) = narrow<T>(bb::conj(s)), pr.expect(j, i) = narrow<T>(bb::conj(li[j]));
    }
  if constexpr (is_cplx<T>)
    for (int i = 0; i < n; ++i) pr.A(i, i).im = R(uniform_nonzero());
  return pr;
}

// How a problem's leading minor of order k + 1 is made not positive definite: A(k,k) replaced
// by -4 (below every eigenvalue of the rest), 0 (the boundary: not positive) or NaN (SPEC: a
// NaN pivot fails too). The leading minors of order <= k stay positive definite, so info = k + 1
// exactly.
enum class NotPd { negative, zero, nan };
const char *not_pd_name(NotPd h) { return h == NotPd::negative ? "negative" : h == NotPd::zero ? "zero" : "NaN"; }

template <class T>
void break_minor(Problem<T> &pr, int k, NotPd how) {
  const double d = how == NotPd::negative ? -4.0 : how == NotPd::zero ? 0.0 : double(NAN);
  pr.A(k, k) = from_wide_real<T>(d);
  pr.info = k + 1, pr.planted = false;
}

// A geqrf problem whose results are known exactly: R upper trapezoidal with entries k/8,
// 1 <= |k| <= 16 (complex: both parts), and a real diagonal of +-1/2, +-1 or +-2; for each j a
// reflector H(j) = I - v v^H with v = e_j + s e_i (i > j chosen at random, s = +-1, or +-i for
// complex: v^H v = 2, so tau = 1) or H(j) = I (for about one step in six, and where no row is
// left below j); A = H(0) ... H(k-1) R. Where H(j) is a reflector, R(j,j) < 0. At step j the
// column LAPACK's xlarfg sees is H(j) R(:,j) = (0, -R(j,j) s e_i): alpha = 0, beta = R(j,j) =
// -||x||, tau = 1 and v = x / (alpha - beta) = s e_i; where H(j) = I it sees x = 0 and a real
// alpha: tau = 0. Q is a signed permutation, so every value of every step is an entry of R or
// the sum of two: exact in every precision. R, v (zeros included) and tau must come back exactly.
template <class T>
Problem<T> planted_qr(int m, int n, BLAS_Layout layout, int pad) {
  using W = Wide<T>;
  using WR = WideReal<T>;
  const int k = std::min(m, n);
  Problem<T> pr;
  pr.m = m, pr.n = n, pr.planted = true;
  auto eighth = [] { return WR((random_int(0, 1) ? 1 : -1) * random_int(1, 16)) / WR(8); };
  auto off = [&]() -> W {
    if constexpr (is_cplx<T>) return W(eighth(), eighth());
    else return W(eighth());
  };
  auto unit = []() -> W {
    const WR sign = WR(random_int(0, 1) ? 1 : -1);
    if constexpr (is_cplx<T>)
      if (random_int(0, 1)) return W(WR(0), sign);
    return W(sign);
  };
  std::vector<int> at(k, -1);  // the row of v_j's second entry; -1: H(j) = I
  std::vector<W> s(k, W(0));
  for (int j = 0; j < k; ++j)
    if (j + 1 < m && random_int(0, 5) != 0) at[j] = random_int(j + 1, m - 1), s[j] = unit();
  std::vector<W> R(std::size_t(m) * n, W(0));  // column-major
  static const double pow2[] = {0.5, 1, 2};
  for (int c = 0; c < n; ++c)
    for (int i = 0; i <= std::min(c, m - 1); ++i) {
      if (i < c) {
        R[i + std::size_t(c) * m] = off();
      } else {
        const WR d = WR(pow2[random_int(0, 2)]);
        R[i + std::size_t(c) * m] = W(at[i] >= 0 || random_int(0, 1) ? -d : d);
      }
    }
  pr.A = Mat<T>(m, n, layout, pad);
  std::vector<W> y(m);
  for (int c = 0; c < n; ++c) {
    for (int i = 0; i < m; ++i) y[i] = R[i + std::size_t(c) * m];
    for (int j = k - 1; j >= 0; --j) {  // y = H(j) y, last reflector first
      if (at[j] < 0) continue;
      const W w = y[j] + bb::conj(s[j]) * y[at[j]];  // v^H y
      y[j] -= w, y[at[j]] -= s[j] * w;
    }
    for (int i = 0; i < m; ++i) {
      pr.A(i, c) = narrow<T>(y[i]);
      if (!(wide(pr.A(i, c)) == y[i])) ADD_FAILURE() << "test bug: planted QR input not exact";
    }
  }
  pr.expect = Mat<T>(m, n, layout, pad);
  for (int c = 0; c < n; ++c)
    for (int i = 0; i < m; ++i)
      pr.expect(i, c) = narrow<T>(i <= c ? R[i + std::size_t(c) * m] : c < k && at[c] == i ? s[c] : W(0));
  pr.expect_tau.resize(k);
  for (int j = 0; j < k; ++j) pr.expect_tau[j] = from_wide_real<T>(at[j] >= 0 ? 1.0 : 0.0);
  return pr;
}

template <class T>
Problem<T> qr_problem(int m, int n, BLAS_Layout layout, int pad, QrKind kind) {
  Problem<T> pr;
  pr.m = m, pr.n = n, pr.kind = kind;
  pr.A = make_qr_input<T>(m, n, layout, pad, kind);
  return pr;
}

// A boosted geqrf problem times 2^e (exact: every entry stays normal). With e far down, the
// plain sum of squares underflows and beta falls below xlarfg's safmin (the rescaling loop);
// far up, the sum overflows: larfg's scaled paths, which well-scaled inputs never reach.
template <class T>
Problem<T> scaled_qr_problem(int m, int n, BLAS_Layout layout, int pad, int e) {
  Problem<T> pr = qr_problem<T>(m, n, layout, pad, QrKind::boosted);
  pr.scale_exp = e;
  pr.A = times_pow2(pr.A, e, everywhere);
  return pr;
}

// Problem makers for Run::add: f(group, pad, index in the group).
// potrf: every third problem planted; with fail_every = f > 0, every f-th problem not positive
// definite (the last order, a random one, or the first, with a negative, zero or NaN pivot).
template <class T>
auto chol_maker(BLAS_Layout layout, int fail_every = 0) {
  return [=](const auto &s, int pad, int i) {
    if (fail_every > 0 && s.n > 0 && i % fail_every == fail_every - 1) {
      Problem<T> pr = hpd_problem<T>(s.n, layout, s.uplo, pad);
      const int r = (i / fail_every) % 3;
      break_minor(pr, r == 0 ? s.n - 1 : r == 1 ? random_int(0, s.n - 1) : 0, NotPd(random_int(0, 2)));
      return pr;
    }
    return i % 3 == 1 ? planted_chol<T>(s.n, layout, s.uplo, pad) : hpd_problem<T>(s.n, layout, s.uplo, pad);
  };
}
// Many problems of a large order at O(n^2) each (make_hpd is O(n^3): 0.3 s at c64 512): one
// random matrix per group, every problem a copy with each diagonal entry's real part raised by
// its own random 0..1 in steps of 1/64 (still Hermitian positive definite; two problems differ
// by a diagonal of rms about 0.4, so a problem given another's factor fails the probe by far).
// Not planted: the exact-factor check stays with the other groups. One maker per group.
template <class T>
auto shifted_hpd_maker(BLAS_Layout layout) {
  auto base = std::make_shared<std::optional<Problem<T>>>();
  return [=](const auto &s, int pad, int) {
    if (!*base) *base = hpd_problem<T>(s.n, layout, s.uplo, pad);
    Problem<T> pr = **base;
    for (int j = 0; j < s.n; ++j)
      pr.A(j, j) = narrow<T>(wide(pr.A(j, j)) + Wide<T>(WideReal<T>(random_int(0, 64)) / 64));
    return pr;
  };
}
// geqrf: every third problem planted (with_planted), the others of the given kind.
template <class T>
auto qr_maker(BLAS_Layout layout, QrKind kind = QrKind::boosted, bool with_planted = true) {
  return [=](const auto &s, int pad, int i) {
    return with_planted && i % 3 == 1 ? planted_qr<T>(s.m, s.n, layout, pad) : qr_problem<T>(s.m, s.n, layout, pad, kind);
  };
}

// ---- checks of one output that need no reference -----------------------------------------------

// The smallest positive normal number of T's real type, in double (binary128's is below
// double's range: 0). Spelled out for half: std::numeric_limits<_Float16> is not specialized
// by every standard library (it gives 0).
template <class T> double smallest_normal_of() {
  if constexpr (is_half<T>) return 0x1p-14;
  else if constexpr (is_quad<T>) return 0;
  else return double(std::numeric_limits<typename traits<T>::real>::min());
}

// The largest |A - L L^H|(i, j) / ((j + 3) (eps (|L| |L^H|)(i, j) + tiny (1 + sum_k |L(i,k)| +
// |L(j,k)|))) over i >= j, in the wide type (L = U^H for Upper; tiny: the absolute rounding
// error below the smallest normal number); infinite on NaN. See componentwise_limit.
template <class T>
double potrf_componentwise(const Mat<T> &A, const Mat<T> &F, BLAS_Uplo uplo) {
  using W = Wide<T>;
  using WR = WideReal<T>;
  const int n = A.rows;
  std::vector<W> L(std::size_t(n) * n, W(0));  // row-major: rows are contiguous
  std::vector<WR> mag(std::size_t(n) * n, WR(0));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) {
      const T &f = uplo == BLAS_Lower ? F(i, j) : F(j, i);
      if (has_nan(f)) return INFINITY;
      const W l = uplo == BLAS_Lower ? wide(f) : bb::conj(wide(f));
      L[std::size_t(i) * n + j] = l, mag[std::size_t(i) * n + j] = bb::absval(l);
    }
  // Values below the smallest normal number are rounded with an absolute error of up to
  // `tiny` instead (half precision meets them: an entry of A near zero by cancellation).
  const double tiny = smallest_normal_of<T>() * eps<T>();
  double worst = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) {
      const W *li = L.data() + std::size_t(i) * n, *lj = L.data() + std::size_t(j) * n;
      const WR *ai = mag.data() + std::size_t(i) * n, *aj = mag.data() + std::size_t(j) * n;
      W s(0);
      WR b(0), row(0);
      for (int k = 0; k <= j; ++k) s += li[k] * bb::conj(lj[k]), b += ai[k] * aj[k], row += ai[k] + aj[k];
      const double num = to_double(bb::absval(hermitian_at(A, uplo, i, j) - s));
      if (num == 0) continue;
      const double den = (j + 3) * (to_double(b) * eps<T>() + tiny * (1 + to_double(row)));
      worst = std::max(worst, den > 0 ? num / den : double(INFINITY));
    }
  return worst;
}

std::string at_str(int i, int j) { return "(" + std::to_string(i) + "," + std::to_string(j) + ")"; }
template <class T> std::string value_str(const T &x) {
  const Wide<T> w = wide(x);
  std::string s = std::to_string(to_double(bb::real(w)));
  if constexpr (is_cplx<T>) s += (bb::imag(w) < 0 ? " - " : " + ") + std::to_string(to_double(bb::rabs(bb::imag(w)))) + "i";
  return s;
}

// potrf's output F of a problem that must succeed; "" if it passes. ref: the reference
// backend's output (null: not computed). probe_only: the residual by potrf_residual_probe
// alone (O(n^2)), for the problems of a large group between its fully checked ones.
template <class T>
std::string check_potrf_output(const Problem<T> &pr, const Mat<T> &F, BLAS_Uplo uplo, const Mat<T> *ref,
                               bool probe_only = false) {
  const int n = pr.n;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      if (in_triangle(uplo, i, j) && has_nan(F(i, j))) return "NaN in the factor at " + at_str(i, j);
  // LAPACK's convention: the factor's diagonal is real (SPEC: zero imaginary part) and positive.
  for (int i = 0; i < n; ++i) {
    const Wide<T> d = wide(F(i, i));
    if (!(bb::imag(d) == 0)) return "imaginary part on the diagonal at " + at_str(i, i) + ": " + value_str(F(i, i));
    if (!(bb::real(d) > 0)) return "diagonal entry not positive at " + at_str(i, i) + ": " + value_str(F(i, i));
  }
  if (pr.planted) {
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        if (in_triangle(uplo, i, j) && !(wide(F(i, j)) == wide(pr.expect(i, j))))
          return "the planted factor is exact, but " + at_str(i, j) + " = " + value_str(F(i, j)) + ", not " +
                 value_str(pr.expect(i, j));
  }
  if (probe_only) {
    const double probe = potrf_residual_probe(pr.A, F, uplo);
    if (!(probe <= residual_limit<T>()))
      return "residual probe ||A x - L L^H x|| / (n ||A|| ||x|| eps) = " + std::to_string(probe) + " > " +
             std::to_string(residual_limit<T>());
    return "";
  }
  const double res = potrf_residual(pr.A, F, uplo);
  if (!(res <= residual_limit<T>()))
    return "residual ||A - L L^H|| / (n ||A|| eps) = " + std::to_string(res) + " > " + std::to_string(residual_limit<T>());
  const double cw = potrf_componentwise(pr.A, F, uplo);
  if (!(cw <= componentwise_limit<T>()))
    return "componentwise backward error max |A - L L^H| / ((j + 3) eps |L| |L^H|) = " + std::to_string(cw) + " > " +
           std::to_string(componentwise_limit<T>());
  if (ref && !pr.planted) {
    // A has eigenvalues in [1, ~2.5], so its Cholesky factor moves by at most a small multiple
    // of either factorization's backward error (O(n eps) normwise).
    const double d = rel_diff_where(F, *ref, [&](int i, int j) { return in_triangle(uplo, i, j); });
    const double tol = compare_tol<T>(n);
    if (!(d <= tol)) return "factor differs from the reference: " + std::to_string(d) + " > " + std::to_string(tol);
  }
  return "";
}

// geqrf's output (F, tau with at least min(m, n) entries) of a problem; "" if it passes. ref,
// ref_tau: the reference backend's outputs (null: not computed).
template <class T>
std::string check_geqrf_output(const Problem<T> &pr, const Mat<T> &F, const std::vector<T> &tau, const Mat<T> *ref,
                               const std::vector<T> *ref_tau) {
  using W = Wide<T>;
  using WR = WideReal<T>;
  const int m = pr.m, n = pr.n, k = std::min(m, n);
  if (pr.scale_exp != 0) {
    // H(j) does not change with the scale: v and tau as for the boosted matrix, R times 2^e.
    // Scaled back (exactly), A, R and the reference's R meet the boosted problem's checks,
    // whose norms would over- or underflow at the scale itself.
    const int back = -pr.scale_exp;
    Problem<T> plain = pr;
    plain.scale_exp = 0, plain.A = times_pow2(pr.A, back, everywhere);
    const Mat<T> ref_back = ref ? times_pow2(*ref, back, upper_part) : Mat<T>();
    return check_geqrf_output(plain, times_pow2(F, back, upper_part), tau, ref ? &ref_back : nullptr, ref_tau);
  }
  const Mat<T> &A = pr.A;
  for (int c = 0; c < n; ++c)
    for (int r = 0; r < m; ++r)
      if (has_nan(F(r, c))) return "NaN at " + at_str(r, c);
  for (int j = 0; j < k; ++j)
    if (has_nan(tau[j])) return "tau[" + std::to_string(j) + "] not written (NaN)";
  // xlarfg's conventions: beta = -sign(re alpha) ||(alpha, x)|| is real, so R's diagonal is
  // real; tau = 0 or 1 <= re(tau) <= 2, |tau - 1| <= 1. The bounds are attained (|tau - 1| = 1
  // when x is empty: the last reflector of a square complex problem), so allow the roundings of
  // re(tau) and im(tau) and of this check.
  const double slack = 16 * eps<T>();
  for (int j = 0; j < k; ++j) {
    if (!(bb::imag(wide(F(j, j))) == 0)) return "R" + at_str(j, j) + " not real: " + value_str(F(j, j));
    const W t = wide(tau[j]);
    if (t == W(0)) continue;
    if (!(to_double(bb::real(t)) >= 1 - slack && to_double(bb::real(t)) <= 2 + slack &&
          to_double(bb::absval(t - W(1))) <= 1 + slack))
      return "tau[" + std::to_string(j) + "] = " + value_str(tau[j]) + " outside LAPACK's range (0, or 1 <= re <= 2 and |tau - 1| <= 1)";
  }
  if (pr.planted) {
    for (int c = 0; c < n; ++c)
      for (int r = 0; r < m; ++r)
        if (!(wide(F(r, c)) == wide(pr.expect(r, c))))
          return std::string("the planted QR is exact, but ") + (r <= c ? "R" : "v") + at_str(r, c) + " = " +
                 value_str(F(r, c)) + ", not " + value_str(pr.expect(r, c));
    for (int j = 0; j < k; ++j)
      if (!(wide(tau[j]) == wide(pr.expect_tau[j])))
        return "the planted QR is exact, but tau[" + std::to_string(j) + "] = " + value_str(tau[j]) + ", not " +
               value_str(pr.expect_tau[j]);
    return "";  // exact: the residuals add nothing
  }
  if (pr.kind == QrKind::triangular || (pr.kind == QrKind::phase && !is_cplx<T>)) {
    // x = 0 and alpha real at every step: tau = 0 exactly, H = I, nothing changes.
    for (int j = 0; j < k; ++j)
      if (!(wide(tau[j]) == W(0))) return "x = 0 with a real alpha, but tau[" + std::to_string(j) + "] = " + value_str(tau[j]);
    for (int c = 0; c < n; ++c)
      for (int r = 0; r < m; ++r)
        if (!(wide(F(r, c)) == wide(A(r, c)))) return "H = I throughout, but " + at_str(r, c) + " changed";
  }
  if (pr.kind == QrKind::phase && is_cplx<T>) {
    // x = 0 at every step and alpha = A(j,j) complex: beta = -sign(re alpha) |alpha|,
    // tau = (beta - alpha) / beta, H(j)^H scales row j by 1 - conj(tau) = conj(alpha) / beta
    // and nothing else; v = 0. Every output element is one or two roundings away from these.
    const double tol = 32 * eps<T>();
    for (int j = 0; j < k; ++j) {
      const W alpha = wide(A(j, j));
      const WR mod = bb::absval(alpha);
      const WR beta = bb::real(alpha) >= 0 ? -mod : mod;
      const W t = (W(beta) - alpha) / W(beta), scale = bb::conj(alpha) / W(beta);
      if (!(to_double(bb::absval(wide(tau[j]) - t)) <= tol * to_double(bb::absval(t))))
        return "tau[" + std::to_string(j) + "] = " + value_str(tau[j]) + ", not (beta - alpha) / beta = " +
               value_str(narrow<T>(t));
      for (int c = j; c < n; ++c) {
        const W e = c == j ? W(beta) : wide(A(j, c)) * scale;
        if (!(to_double(bb::absval(wide(F(j, c)) - e)) <= tol * to_double(bb::absval(e))))
          return "R" + at_str(j, c) + " = " + value_str(F(j, c)) + ", not " + value_str(narrow<T>(e));
      }
    }
    for (int c = 0; c < n; ++c)
      for (int r = c + 1; r < m; ++r)
        if (!(wide(F(r, c)) == W(0))) return "x = 0, but v" + at_str(r, c) + " = " + value_str(F(r, c));
  }
  if (pr.kind == QrKind::boosted) {
    // The diagonal boost keeps every alpha on the side of A(j,j) (|re alpha| >= 0.1 ||(alpha,
    // x)||, far from a tie), so LAPACK's beta = -sign(re alpha) ||(alpha, x)|| has the sign
    // opposite to re A(j,j). (Where x is empty, the last step of m <= n, a real alpha gives
    // tau = 0 and beta = alpha.)
    for (int j = 0; j < k; ++j) {
      if (j + 1 == m && !is_cplx<T>) continue;
      const double a = to_double(bb::real(wide(A(j, j)))), r = to_double(bb::real(wide(F(j, j))));
      if (!(a > 0 ? r < 0 : r > 0))
        return "R" + at_str(j, j) + " = " + value_str(F(j, j)) + " with A" + at_str(j, j) + " = " + value_str(A(j, j)) +
               ": LAPACK's beta = -sign(re alpha) ||(alpha, x)||, and alpha has the sign of A(j,j) here";
    }
  }
  double res, orth;
  qr_residuals(A, F, tau, res, orth);
  if (!(res <= residual_limit<T>()))
    return "residual ||A - Q R|| / (max(m,n) ||A|| eps) = " + std::to_string(res) + " > " + std::to_string(residual_limit<T>());
  if (!(orth <= residual_limit<T>()))
    return "||I - Q^H Q|| / (m eps) = " + std::to_string(orth) + " > " + std::to_string(residual_limit<T>());
  const int mx = std::max(m, n);
  if constexpr (kTypicalChecks<T>) {
    const double rs = res * mx / std::sqrt(double(mx)), os = orth * m / std::sqrt(double(m));
    if (!(rs <= kTypicalResidual))
      return "residual ||A - Q R|| / (sqrt(max(m,n)) ||A|| eps) = " + std::to_string(rs) + " > " + std::to_string(kTypicalResidual);
    if (!(os <= kTypicalOrth))
      return "||I - Q^H Q|| / (sqrt(m) eps) = " + std::to_string(os) + " > " + std::to_string(kTypicalOrth);
  }
  if (ref && (pr.kind == QrKind::boosted || pr.kind == QrKind::phase)) {
    // Well conditioned (singular values within a factor of ~3, or a diagonal of phases) with
    // no Householder sign near a tie: Q and R move by a small multiple of the backward error.
    const double d = qr_diff(F, tau, *ref, *ref_tau);
    const double tol = kTypicalChecks<T> ? kTypicalDiff * std::sqrt(double(mx)) * eps<T>() : compare_tol<T>(mx);
    if (!(d <= tol)) return "R, v or tau differ from the reference: " + std::to_string(d) + " > " + std::to_string(tol);
  }
  return "";
}

// ---- one run: groups of problems in user memory, the calls on them, the checks -------------
// The matrices of each memory kind share one allocation (an arena): a group's matrices back to
// back (a gap of NaN between them in some groups, in reverse order in others), each group
// 256-byte aligned, a NaN guard at the end; geqrf's tau likewise in an arena of their own,
// min(m, n) entries plus kTauGuard NaN ones per problem. Every call starts from the inputs
// (upload()).
template <class T>
class Run {
 public:
  struct GroupSpec {
    int m = 0, n = 0, count = 0;
    BLAS_Uplo uplo = BLAS_Lower;  // potrf
    Mem mem = Mem::device;        // where its matrices and tau live
    int gap = 0;                  // elements between consecutive matrices
    bool reversed = false;        // problem i's matrix in slot count - 1 - i
    bool reference = true;        // compared with the reference backend (see add())
    // potrf: every k-th problem of the group and its last checked in full (residual,
    // componentwise; the reference where `reference`), the others by the residual's O(n^2)
    // probe: many problems of order 512 in complex cost minutes of O(n^3) checks per backend.
    int full_check_every = 1;
  };
  struct Ref {  // the reference backend's outputs, indexed like the call's problems
    std::vector<bool> present;  // false: a group the reference was not asked about
    std::vector<Mat<T>> A;
    std::vector<std::vector<T>> tau;
    std::vector<int> info;
  };

  Run(Routine r, BLAS_Layout layout, std::string what = "") : routine_(r), layout_(layout), what_(std::move(what)) {}

  // A group of `count` problems made by make(spec, pad, i); one pad (so one ld) per group.
  template <class Make>
  int add(int m, int n, int count, Make make, BLAS_Uplo uplo = BLAS_Lower, Mem mem = Mem::device) {
    const int g = int(groups_.size());
    GroupSpec s;
    s.m = routine_ == Routine::potrf ? n : m, s.n = n, s.count = count, s.uplo = uplo, s.mem = mem;
    s.gap = g % 3 == 1 ? 3 : 0;
    s.reversed = g % 4 == 2;
    // Half precision beyond order 128: the reference (every operation rounded to half, in
    // software) costs seconds and tells nothing the planted problems and the componentwise
    // check do not (its results may differ by more than compare_tol's bound is worth there).
    s.reference = !(is_half<T> && std::max(s.m, n) > 128);
    groups_.push_back(s);
    first_.push_back(total());
    const int pad = random_int(0, 3);
    for (int i = 0; i < count; ++i) {
      problems_.push_back(make(s, pad, i));
      group_of_.push_back(g);
    }
    return g;
  }
  GroupSpec &group(int g) { return groups_[g]; }  // changes: before the first upload
  int group_count() const { return int(groups_.size()); }
  int first(int g) const { return first_[g]; }
  int total() const { return int(problems_.size()); }
  const Problem<T> &problem(int p) const { return problems_[p]; }
  void set_null_a(int p) { null_a_.insert(p), ref_cache_.reset(); }
  void set_null_tau(int p) { null_tau_.insert(p), ref_cache_.reset(); }

  // Copies the inputs into the arenas (tau NaN).
  void upload() {
    place();
    for (auto *arenas : {&a_, &t_})
      for (auto &[kind, a] : *arenas) a.buf.write(0, a.initial.data(), a.size);
  }
  void download() {
    for (auto *arenas : {&a_, &t_})
      for (auto &[kind, a] : *arenas) {
        a.after.resize(a.size);
        a.buf.read(0, a.after.data(), a.size);
      }
  }

  // Problem p's matrix and tau (with the guards) as the last download saw them.
  Mat<T> output(int p) const {
    Mat<T> x = problems_[p].A;
    std::memcpy(x.data.data(), a_.at(mem_of(p)).after.data() + a_off_[p], x.data.size() * sizeof(T));
    return x;
  }
  std::vector<T> tau_out(int p) const {
    std::vector<T> v(std::size_t(steps(p) + kTauGuard));
    std::memcpy(v.data(), t_.at(mem_of(p)).after.data() + t_off_[p], v.size() * sizeof(T));
    return v;
  }
  const std::vector<int> &info() const { return info_; }  // of the last call, its problems' order
  // Problem p's bytes after the last call: its matrix (padding included), then its tau (geqrf).
  std::vector<unsigned char> problem_bytes(int p) const {
    const Mat<T> x = output(p);
    std::vector<unsigned char> v(reinterpret_cast<const unsigned char *>(x.data.data()),
                                 reinterpret_cast<const unsigned char *>(x.data.data() + x.data.size()));
    if (routine_ == Routine::geqrf) {
      const std::vector<T> t = tau_out(p);
      v.insert(v.end(), reinterpret_cast<const unsigned char *>(t.data()), reinterpret_cast<const unsigned char *>(t.data() + t.size()));
    }
    return v;
  }
  // Every byte of the matrices and tau after the last call (for comparing two calls).
  std::map<std::pair<bool, Mem>, std::vector<unsigned char>> outputs() const {
    std::map<std::pair<bool, Mem>, std::vector<unsigned char>> v;
    for (const auto &[kind, a] : a_) v[{true, kind}] = a.after;
    for (const auto &[kind, t] : t_) v[{false, kind}] = t.after;
    return v;
  }
  const std::string &record() const { return record_; }

  // The call; keeps info (read back from wherever it lives) and the call record.
  int call(const CallOpts &o) {
    place();
    opts_ = o;
    const int np = total(), G = group_count();
    std::vector<int> m, n, ld, sizes;
    std::vector<BLAS_Uplo> uplo;
    for (int g = 0; g < G; ++g) {
      const GroupSpec &s = groups_[g];
      m.push_back(s.m), n.push_back(s.n), sizes.push_back(s.count), uplo.push_back(s.uplo);
      ld.push_back(s.count ? problems_[first_[g]].A.ld : 1);
    }
    std::vector<T *> pa(np), pt(np);
    for (int p = 0; p < np; ++p) {
      pa[p] = null_a_.count(p) ? nullptr : a_addr(p);
      pt[p] = routine_ == Routine::potrf || null_tau_.count(p) ? nullptr : t_addr(p);
    }
    Buffer info_buf(o.info, std::size_t(std::max(np, 1)) * sizeof(int));
    {
      std::vector<int> poison(std::size_t(std::max(np, 1)), kInfoPoison);
      info_buf.write(0, poison.data(), poison.size() * sizeof(int));
      if (gpu::on_device(o.info)) CHECK_CUDA(cudaDeviceSynchronize());
    }
    int *info = o.with_info ? reinterpret_cast<int *>(info_buf.get()) : nullptr;
    Buffer da, dt;
    T **A = pa.data(), **tau = pt.data();
    if (o.device_arrays || o.mixed_arrays) {
      da = Buffer(Mem::device, pa.size() * sizeof(T *) + 1);
      da.write(0, pa.data(), pa.size() * sizeof(T *));
      A = reinterpret_cast<T **>(da.get());
    }
    if (o.device_arrays && routine_ == Routine::geqrf) {
      dt = Buffer(Mem::device, pt.size() * sizeof(T *) + 1);
      dt.write(0, pt.data(), pt.size() * sizeof(T *));
      tau = reinterpret_cast<T **>(dt.get());
    }
    int rc = 0;
    {
      BackendScope scope(o.backend);
      if (o.strided) {
        if (G != 1 || groups_[0].reversed || !null_a_.empty() || !null_tau_.empty()) {
          ADD_FAILURE() << "test bug: a strided call needs one group in order, without NULL entries";
          return INT_MIN;
        }
        const GroupSpec &s = groups_[0];
        const int64_t sa = o.a_stride.value_or(a_slot_[0]), st = o.tau_stride.value_or(t_slot_[0]);
        T *A0 = s.count ? a_addr(0) : nullptr;
        rc = routine_ == Routine::potrf
                 ? Api<T>::potrf_strided(layout_, s.uplo, s.n, A0, ld[0], sa, s.count, info)
                 : Api<T>::geqrf_strided(layout_, s.m, s.n, A0, ld[0], sa, s.count ? t_addr(0) : nullptr, st, s.count, info);
      } else if (routine_ == Routine::potrf) {
        rc = Api<T>::potrf(layout_, uplo.data(), n.data(), A, ld.data(), G, sizes.data(), info);
      } else {
        rc = Api<T>::geqrf(layout_, m.data(), n.data(), A, ld.data(), tau, G, sizes.data(), info);
      }
    }
    EXPECT_NO_CUDA_ERROR();
    record_ = blas_batched_last_call();
    info_.assign(np, kInfoPoison);
    if (o.with_info && np) info_buf.read(0, info_.data(), std::size_t(np) * sizeof(int));
    if (o.device_arrays || o.mixed_arrays) {  // the library only reads the arrays
      std::vector<T *> now(pa.size());
      da.read(0, now.data(), now.size() * sizeof(T *));
      EXPECT_TRUE(now == pa) << what_ << ": the A pointer array (device memory) changed";
    }
    if (o.device_arrays && routine_ == Routine::geqrf) {
      std::vector<T *> now(pt.size());
      dt.read(0, now.data(), now.size() * sizeof(T *));
      EXPECT_TRUE(now == pt) << what_ << ": the tau pointer array (device memory) changed";
    }
    return rc;
  }

  // The reference backend on host copies of the inputs, with the same NULL entries.
  const Ref &reference() {
    place();
    if (ref_cache_) return *ref_cache_;
    const int np = total();
    Ref ref;
    ref.present.assign(np, false), ref.A.resize(np), ref.tau.resize(np), ref.info.assign(np, kInfoPoison);
    std::vector<int> m, n, ld, sizes, at;  // the host call: the groups marked `reference`
    std::vector<BLAS_Uplo> uplo;
    for (int g = 0; g < group_count(); ++g) {
      const GroupSpec &s = groups_[g];
      if (!s.reference) continue;
      m.push_back(s.m), n.push_back(s.n), sizes.push_back(s.count), uplo.push_back(s.uplo);
      ld.push_back(s.count ? problems_[first_[g]].A.ld : 1);
      for (int i = 0; i < s.count; ++i) {
        const int p = first_[g] + i;
        ref.present[p] = true, ref.A[p] = problems_[p].A;
        ref.tau[p].assign(std::size_t(steps(p) + kTauGuard), nan_value<T>());
        at.push_back(p);
      }
    }
    std::vector<T *> pa, pt;
    for (int p : at) {
      pa.push_back(null_a_.count(p) ? nullptr : ref.A[p].ptr());
      pt.push_back(null_tau_.count(p) ? nullptr : ref.tau[p].data());
    }
    std::vector<int> info(at.size(), kInfoPoison);
    int rc;
    {
      BackendScope scope("reference");
      const int G = int(m.size());
      rc = routine_ == Routine::potrf
               ? Api<T>::potrf(layout_, uplo.data(), n.data(), pa.data(), ld.data(), G, sizes.data(), info.data())
               : Api<T>::geqrf(layout_, m.data(), n.data(), pa.data(), ld.data(), pt.data(), G, sizes.data(), info.data());
    }
    EXPECT_EQ(rc, long(info.size()) - std::count(info.begin(), info.end(), 0))
        << what_ << ": the reference backend's return value on host copies";
    for (std::size_t i = 0; i < at.size(); ++i) ref.info[at[i]] = info[i];
    ref_cache_ = std::move(ref);
    return *ref_cache_;
  }

  // Checks the last call (after download()) against `ref`, computed on the same inputs: info
  // and the return value, every byte, the values, and where the groups ran.
  void verify(int rc, const Ref &ref) {
    const int np = total();
    Reporter rep(describe_call(), &record_);
    // 1. info and the return value.
    std::vector<int> expect(np);
    std::vector<bool> writes(np);
    for (int p = 0; p < np; ++p) {
      const GroupSpec &s = groups_[group_of_[p]];
      const std::optional<int> arg = argument_code(p);
      expect[p] = arg ? *arg : problems_[p].info;
      writes[p] = s.m > 0 && s.n > 0 && !arg;
      if (opts_.with_info && info_[p] != expect[p])
        rep.fail(where(p) + ": info " + (info_[p] == kInfoPoison ? std::string("not written") : std::to_string(info_[p])) +
                 ", expected " + std::to_string(expect[p]) + failure_note(p));
      if (ref.present[p] && ref.info[p] != expect[p])
        rep.fail(where(p) + ": the reference backend gives info " + std::to_string(ref.info[p]) + ", expected " +
                 std::to_string(expect[p]) + failure_note(p));
    }
    const long bad = np - std::count(expect.begin(), expect.end(), 0);
    if (rc != bad) rep.fail("returned " + std::to_string(rc) + ", expected " + std::to_string(bad) + " (problems with non-zero info)");
    // 2. bytes: outside what the call may write, what was there before.
    check_bytes(writes, rep);
    // 3. values of the problems that must succeed, unless they are bit for bit the ones this
    // run's last check (another backend's call on the same inputs) passed.
    if (!same_as_checked()) {
      const int before = rep.count();
      for (int p = 0; p < np; ++p) {
        if (!writes[p] || expect[p] != 0) continue;
        const GroupSpec &s = groups_[group_of_[p]];
        const Mat<T> *rA = ref.present[p] ? &ref.A[p] : nullptr;
        const int i = p - first_[group_of_[p]];
        const bool probe_only = i % s.full_check_every != 0 && i != s.count - 1;
        const std::string f = routine_ == Routine::potrf
                                  ? check_potrf_output(problems_[p], output(p), s.uplo, rA, probe_only)
                                  : check_geqrf_output(problems_[p], output(p), tau_out(p), rA,
                                                       ref.present[p] ? &ref.tau[p] : nullptr);
        if (!f.empty()) rep.fail(where(p) + ": " + f);
      }
      if (rep.count() == before) remember_checked();
    }
    // 4. where the groups ran (the record lists the first 16).
    if (!opts_.strided) check_placement(rep);
    count_checked((std::string("gpu ") + routine_name(routine_) + " " + traits<T>::name() + " " + opts_.backend).c_str(), np);
  }

  // The last call was rejected as a whole (return value `want`): nothing written, info included.
  void verify_untouched(int rc, int want) {
    Reporter rep(describe_call(), &record_);
    if (rc != want) rep.fail("returned " + std::to_string(rc) + ", expected " + std::to_string(want));
    if (std::count(info_.begin(), info_.end(), kInfoPoison) != long(info_.size())) rep.fail("info was written");
    check_bytes(std::vector<bool>(total(), false), rep);
  }

  // The last call's only group was invalid (argument `arg`): every problem gets -arg, the call
  // returns their number, no matrix or tau is written.
  void verify_group_rejected(int rc, int arg) {
    Reporter rep(describe_call(), &record_);
    if (rc != total()) rep.fail("returned " + std::to_string(rc) + ", expected " + std::to_string(total()));
    for (int p = 0; p < total(); ++p)
      if (info_[p] != -arg) rep.fail(where(p) + ": info " + std::to_string(info_[p]) + ", expected " + std::to_string(-arg));
    check_bytes(std::vector<bool>(total(), false), rep);
  }

  // call + download + verify (against the reference).
  int run(const CallOpts &o) {
    const Ref &ref = reference();
    upload();
    const int rc = call(o);
    download();
    verify(rc, ref);
    return rc;
  }

 private:
  struct Arena {
    std::size_t size = 0;
    Buffer buf;
    std::vector<unsigned char> initial, after;
  };

  Mem mem_of(int p) const { return groups_[group_of_[p]].mem; }
  T *a_addr(int p) { return reinterpret_cast<T *>(a_.at(mem_of(p)).buf.get() + a_off_[p]); }
  T *t_addr(int p) { return reinterpret_cast<T *>(t_.at(mem_of(p)).buf.get() + t_off_[p]); }
  int steps(int p) const { return std::min(problems_[p].m, problems_[p].n); }

  void place() {
    if (placed_) return;
    placed_ = true;
    a_off_.assign(total(), 0), t_off_.assign(total(), 0);
    a_slot_.assign(groups_.size(), 0), t_slot_.assign(groups_.size(), 0);
    auto align = [](std::size_t x) { return (x + 255) / 256 * 256; };
    for (int g = 0; g < group_count(); ++g) {
      const GroupSpec &s = groups_[g];
      if (s.count == 0) continue;
      const Mat<T> &m0 = problems_[first_[g]].A;
      for (int i = 0; i < s.count; ++i)
        if (problems_[first_[g] + i].A.ld != m0.ld) ADD_FAILURE() << "test bug: one ld per group";
      a_slot_[g] = int64_t(m0.data.size()) + s.gap;
      t_slot_[g] = std::min(s.m, s.n) + kTauGuard;
      Arena &a = a_[s.mem];
      a.size = align(a.size);
      const std::size_t a0 = a.size;
      a.size += std::size_t(s.count) * a_slot_[g] * sizeof(T);
      std::size_t t0 = 0;
      if (routine_ == Routine::geqrf) {
        Arena &t = t_[s.mem];
        t.size = align(t.size), t0 = t.size;
        t.size += std::size_t(s.count) * t_slot_[g] * sizeof(T);
      }
      for (int i = 0; i < s.count; ++i) {
        const std::size_t slot = s.reversed ? s.count - 1 - i : i;
        a_off_[first_[g] + i] = a0 + slot * a_slot_[g] * sizeof(T);
        t_off_[first_[g] + i] = t0 + slot * t_slot_[g] * sizeof(T);
      }
    }
    for (auto *arenas : {&a_, &t_})
      for (auto &[kind, a] : *arenas) {
        a.size = align(a.size) + 256;  // guard: catches writes past the last matrix or tau
        a.initial.assign(a.size, 0xFF);  // 0xFF bytes are NaN in every precision
        a.buf = Buffer(kind, a.size);
      }
    for (int p = 0; p < total(); ++p) {
      const Mat<T> &x = problems_[p].A;
      std::memcpy(a_.at(mem_of(p)).initial.data() + a_off_[p], x.data.data(), x.data.size() * sizeof(T));
    }
  }

  // The code fixed by problem p's arguments (not by its numbers), if any.
  std::optional<int> argument_code(int p) const {
    const GroupSpec &s = groups_[group_of_[p]];
    if (s.m == 0 || s.n == 0) return 0;
    if (null_a_.count(p)) return -(routine_ == Routine::potrf ? kPotrfA : kGeqrfA);
    if (null_tau_.count(p)) return -kGeqrfTau;
    return std::nullopt;
  }

  std::string failure_note(int p) const {
    const Problem<T> &pr = problems_[p];
    if (routine_ != Routine::potrf || pr.info <= 0) return "";
    return " (A(" + std::to_string(pr.info - 1) + "," + std::to_string(pr.info - 1) + ") = " + value_str(pr.A(pr.info - 1, pr.info - 1)) +
           ": the leading minor of order " + std::to_string(pr.info) + " is the first not positive definite)";
  }

  // Whether element (i, j) of problem p may be written: potrf's uplo triangle (also when the
  // factorization fails: the triangle is then unspecified), geqrf's whole matrix.
  bool may_write(int p, int i, int j) const {
    return routine_ == Routine::geqrf || in_triangle(groups_[group_of_[p]].uplo, i, j);
  }

  void check_bytes(const std::vector<bool> &writes, Reporter &rep) {
    std::map<Mem, std::vector<unsigned char>> ea, et;
    for (auto &[kind, a] : a_) ea[kind] = a.initial;
    for (auto &[kind, t] : t_) et[kind] = t.initial;
    for (int p = 0; p < total(); ++p) {
      if (!writes[p]) continue;
      const Mat<T> &x = problems_[p].A;
      const Mem kind = mem_of(p);
      for (int j = 0; j < x.cols; ++j)
        for (int i = 0; i < x.rows; ++i) {
          if (!may_write(p, i, j)) continue;
          const std::size_t b = a_off_[p] + x.index(i, j) * sizeof(T);
          std::memcpy(ea[kind].data() + b, a_.at(kind).after.data() + b, sizeof(T));
        }
      if (routine_ == Routine::geqrf)
        std::memcpy(et[kind].data() + t_off_[p], t_.at(kind).after.data() + t_off_[p], std::size_t(steps(p)) * sizeof(T));
    }
    for (auto &[kind, a] : a_) {
      auto mis = std::mismatch(ea[kind].begin(), ea[kind].end(), a.after.begin());
      if (mis.first != ea[kind].end())
        rep.fail(std::string("a byte the call may not write changed in the matrices (") + gpu::mem_name(kind) +
                 " memory): " + where_byte(kind, std::size_t(mis.first - ea[kind].begin()), true));
    }
    for (auto &[kind, t] : t_) {
      auto mis = std::mismatch(et[kind].begin(), et[kind].end(), t.after.begin());
      if (mis.first != et[kind].end())
        rep.fail(std::string("a tau entry the call may not write changed (") + gpu::mem_name(kind) +
                 " memory): " + where_byte(kind, std::size_t(mis.first - et[kind].begin()), false));
    }
  }

  std::string where_byte(Mem kind, std::size_t off, bool matrices) const {
    for (int p = 0; p < total(); ++p) {
      if (mem_of(p) != kind) continue;
      const std::size_t o = matrices ? a_off_[p] : t_off_[p];
      const std::size_t len = matrices ? problems_[p].A.data.size() * sizeof(T) : (steps(p) + kTauGuard) * sizeof(T);
      if (off < o || off >= o + len) continue;
      if (!matrices) return where(p) + ", tau entry " + std::to_string((off - o) / sizeof(T));
      int i, j;
      const bool in = problems_[p].A.logical((off - o) / sizeof(T), i, j);
      return where(p) + (in ? ", element " + at_str(i, j) + (routine_ == Routine::potrf ? " (the other triangle)" : "")
                            : std::string(", padding"));
    }
    return "a gap between matrices or the guard after them, byte " + std::to_string(off);
  }

  // blas_batched_last_call(): device groups under cuda/ (r128 / c128 staged through the host,
  // the others not), host groups on the host.
  void check_placement(Reporter &rep) {
    for (int g = 0; g < group_count() && g < 16; ++g) {
      const GroupSpec &s = groups_[g];
      bool any = false;  // a problem that computes something
      for (int i = 0; i < s.count && !any; ++i) any = !argument_code(first_[g] + i);
      if (!any) continue;
      const std::string line = gpu::last_call_group_line(record_, g);
      const std::string grp = "group " + std::to_string(g) + " (" + shape(s.m, s.n) + ", " + gpu::mem_name(s.mem) + " memory)";
      if (line.empty()) {
        rep.fail(grp + ": no line in blas_batched_last_call()");
      } else if (!gpu::on_device(s.mem) && !opts_.device_arrays) {
        if (line.find("host/") == std::string::npos) rep.fail(grp + " must run on the host: " + line);
      } else if (line.find("cuda/") == std::string::npos) {
        rep.fail(grp + " must run on the device path: " + line);
      } else if (is_quad<T> && line.find("staged") == std::string::npos) {
        rep.fail(grp + ": r128 / c128 are staged through the host: " + line);
      } else if (!is_quad<T> && std::string(opts_.backend) != "reference" && line.find("staged") != std::string::npos) {
        rep.fail(grp + ": r16..c64 run on the GPU, not staged: " + line);
      }
    }
  }

  // Whether the last call left the bits that a check of the same call (the same NULL entries,
  // by another backend) passed: its values need no second look.
  using CheckedKey = std::tuple<std::set<int>, std::set<int>, std::map<std::pair<bool, Mem>, std::vector<unsigned char>>>;
  bool same_as_checked() const {
    return checked_ && *checked_ == CheckedKey(null_a_, null_tau_, outputs());
  }
  void remember_checked() { checked_ = CheckedKey(null_a_, null_tau_, outputs()); }

  std::string where(int p) const {
    const int g = group_of_[p];
    const GroupSpec &s = groups_[g];
    std::string u = routine_ == Routine::potrf ? std::string(", uplo ") + uplo_name(s.uplo) : "";
    const Problem<T> &pr = problems_[p];
    std::string kind = routine_ == Routine::potrf ? (pr.planted ? ", planted" : "")
                                                  : std::string(", ") + (pr.planted ? "planted" : kind_name(pr.kind));
    return "problem " + std::to_string(p) + " (group " + std::to_string(g) + ": " + shape(s.m, s.n) + " x" +
           std::to_string(s.count) + u + ", ld " + std::to_string(pr.A.ld) + ", " + gpu::mem_name(s.mem) + " memory" +
           kind + ")";
  }
  std::string describe_call() const {
    return std::string(routine_name(routine_)) + " " + traits<T>::name() + " " + layout_name(layout_) + "-major" +
           (what_.empty() ? "" : ", " + what_) + ", " + opts_.describe() + ", " + seed_note();
  }

  Routine routine_;
  BLAS_Layout layout_;
  std::string what_;
  std::vector<GroupSpec> groups_;
  std::vector<Problem<T>> problems_;
  std::vector<int> first_, group_of_;
  std::set<int> null_a_, null_tau_;
  bool placed_ = false;
  std::map<Mem, Arena> a_, t_;
  std::vector<std::size_t> a_off_, t_off_;
  std::vector<int64_t> a_slot_, t_slot_;  // elements from one problem to the next
  CallOpts opts_;
  std::vector<int> info_;
  std::string record_;
  std::optional<Ref> ref_cache_;
  std::optional<CheckedKey> checked_;
};

// Every call on `run` for every device backend; stops at the first backend that fails.
template <class T>
void run_all_backends(Run<T> &run, const CallOpts &base = CallOpts()) {
  for (const char *backend : device_backends<T>()) {
    SCOPED_TRACE(std::string("backend ") + backend);
    CallOpts o = base;
    o.backend = backend;
    run.run(o);
    if (::testing::Test::HasFailure()) return;  // one backend's report is enough
  }
}

// ---- sizes -------------------------------------------------------------------------------------
// Square orders: 1..32 (the register kernels); beyond, the shared-memory kernels (their tiers'
// edges included: the last order that fits and the first that does not, for each width of the
// compute type) and the in-place global-memory ones. r128 / c128 (software arithmetic in the
// library's staging, the reference and the checks) stop at 40.
std::vector<int> small_orders() {
  std::vector<int> v;
  for (int n = 1; n <= 32; ++n)
    if (!gpu::reduced() || n <= 5 || n == 7 || n == 8 || n == 9 || n == 15 || n == 16 || n == 17 || n >= 31) v.push_back(n);
  return v;
}
template <class T>
std::vector<int> medium_orders() {
  if (gpu::reduced()) return {33, 65};
  if (is_quad<T>) return {33, 40};
  return {33, 40, 41, 64, 65, 100, 111, 112, 113, 129, 159, 160, 161, 200, 223, 224};
}
template <class T>
std::vector<int> large_orders(bool with_512) {
  if (is_quad<T>) return {};
  if (gpu::reduced()) return with_512 ? std::vector<int>{230} : std::vector<int>{};
  std::vector<int> v = {256, 300};
  if (with_512) v.push_back(512);
  return v;
}
// Problems per group: non-round counts, a few groups with many problems (several per warp and
// block), two for the larger orders (one random, one planted).
int count_for(int n, int index) {
  if (n <= 8) return gpu::reduced() ? 1 + index % 3 : 3 + index % 9;
  if (n <= 32) return gpu::reduced() ? 1 + index % 2 : 1 + index % 3;
  return 2;
}

// ======================================= potrf =========================================

template <class P>
class GpuPotrf : public gpu::GpuTest {};
TYPED_TEST_SUITE(GpuPotrf, AllPrecisions, PrecisionNames);

// ---- 1. the sweep: every order 1..32 and beyond, both triangles, many groups in one call -----
template <class T>
void potrf_sweep(BLAS_Layout layout, bool with_512) {
  Run<T> run(Routine::potrf, layout, "sweep");
  const auto make = chol_maker<T>(layout);
  int idx = 0;
  for (int n : small_orders())
    for (BLAS_Uplo u : kUplos) run.add(n, n, count_for(n, idx++), make, u);
  if (!gpu::reduced()) {  // many problems per group: several per warp and per block, partial ones
    run.add(2, 2, batch<T>(203, 1), make, BLAS_Lower);
    run.add(5, 5, batch<T>(67, 1), make, BLAS_Upper);
    run.add(16, 16, batch<T>(41, 1), make, BLAS_Lower);
    run.add(32, 32, batch<T>(19, 1), make, BLAS_Upper);
  }
  for (int n : medium_orders<T>())
    for (BLAS_Uplo u : kUplos) run.add(n, n, count_for(n, idx++), make, u);
  for (int n : large_orders<T>(with_512))
    for (BLAS_Uplo u : kUplos) run.add(n, n, 2, make, u);
  run.add(7, 7, 0, make);  // an empty group
  run_all_backends(run);
}

// Calls of at most 8 groups run potrf's blocked algorithm for the orders above 32 (not r16,
// c16); in a call of more groups a group of fewer than 16 problems takes the
// one-block-per-problem kernels (factor_blocked_run), so the sweep's many-group call tests those
// and these calls the blocked one: both triangles, every order of the sweep above 32.
template <class T>
void potrf_blocked_sweep(BLAS_Layout layout, bool with_512) {
  std::vector<int> orders = medium_orders<T>();
  for (int n : large_orders<T>(with_512)) orders.push_back(n);
  constexpr std::size_t kOrdersPerCall = 4;  // 8 groups
  for (std::size_t i = 0; i < orders.size(); i += kOrdersPerCall) {
    Run<T> run(Routine::potrf, layout, "blocked sweep");
    const auto make = chol_maker<T>(layout);
    for (std::size_t o = i; o < std::min(orders.size(), i + kOrdersPerCall); ++o)
      for (BLAS_Uplo u : kUplos) run.add(orders[o], orders[o], 2 + int(o % 2), make, u);
    run_all_backends(run);
    if (::testing::Test::HasFailure()) return;
  }
}

TYPED_TEST(GpuPotrf, SweepColMajor) {
  potrf_sweep<typename TypeParam::type>(BLAS_ColMajor, true);
  if (!::testing::Test::HasFailure()) potrf_blocked_sweep<typename TypeParam::type>(BLAS_ColMajor, true);
}
TYPED_TEST(GpuPotrf, SweepRowMajor) {
  potrf_sweep<typename TypeParam::type>(BLAS_RowMajor, true);
  if (!::testing::Test::HasFailure()) potrf_blocked_sweep<typename TypeParam::type>(BLAS_RowMajor, true);
}

// Problem i of a group of six: the kinds listed below (NotPositiveDefinite).
template <class T>
auto not_pd_maker(BLAS_Layout layout) {
  return [layout](const auto &s, int pad, int i) {
    if (i == 3) return planted_chol<T>(s.n, layout, s.uplo, pad);
    Problem<T> pr = hpd_problem<T>(s.n, layout, s.uplo, pad);
    switch (i) {
      case 1: break_minor(pr, random_int(0, s.n - 1), NotPd::negative); break;
      case 2: break_minor(pr, s.n - 1, NotPd::negative); break;
      case 4: break_minor(pr, 0, NotPd::zero); break;
      case 5: break_minor(pr, random_int(0, s.n - 1), NotPd::nan); break;
      default: break;
    }
    return pr;
  };
}

// ---- 2. problems that are not positive definite among ones that are -----------------------------
// Kind i of a group of six: 0 positive definite, 1 a random minor fails (negative pivot), 2 the
// last one (negative), 3 planted, 4 the first (zero pivot), 5 a random one (NaN pivot). The
// orders up to 32 with both triangles in one call, those above in calls of at most 8 groups
// (the blocked algorithm: codes from every block); info in host memory, in device memory, and
// NULL (the return value is the only report).
TYPED_TEST(GpuPotrf, NotPositiveDefinite) {
  using T = typename TypeParam::type;
  std::vector<std::vector<int>> calls = {{1, 2, 3, 5, 8, 13, 24, 32}, {33, 40}};
  if (!is_quad<T>) calls.insert(calls.end(), {{65, 100, 161}, {250}});
  if (gpu::reduced()) calls = {{1, 3, 8, 32}, {33, 70}};
  for (int call = 0; call < 2 * int(calls.size()); ++call) {
    const BLAS_Layout layout = kLayouts[call % 2];
    const std::vector<int> &orders = calls[call / 2];
    Run<T> run(Routine::potrf, layout, "not positive definite");
    const auto make = not_pd_maker<T>(layout);
    for (int n : orders)
      for (BLAS_Uplo u : kUplos) run.add(n, n, 6, make, u);
    CallOpts o;
    o.info = layout == BLAS_ColMajor ? Mem::host : Mem::device;
    run_all_backends(run, o);
    if (::testing::Test::HasFailure()) return;
    if (gpu::reduced()) continue;
    o.with_info = false;
    run_all_backends(run, o);
    if (::testing::Test::HasFailure()) return;
  }
}

// ---- 2b. past the crossovers to cuSOLVER (chol_tuning.hpp; moved here by hand when retuned):
// under the native backend cuSOLVER potrfBatched takes the triangles it can (Lower in
// column-major, Upper in row-major) by chol_vendor_takes, and cuSOLVER's potrf one problem
// at a time a few problems in either triangle from chol_solver_min_order; the blocked algorithm
// the others. LAPACK's codes from all, for problems that are not positive definite too. Half
// precisions have no cuSOLVER routine and r128/c128 run staged on the host: neither crosses over.
TYPED_TEST(GpuPotrf, PastTheSolverCrossover) {
  using T = typename TypeParam::type;
  if (is_quad<T> || is_half<T>) GTEST_SKIP() << "no cuSOLVER crossover in this precision";
  constexpr bool c32 = is_cplx<T> && sizeof(T) == 8, c64 = is_cplx<T> && sizeof(T) == 16;
  constexpr bool r32 = !is_cplx<T> && sizeof(T) == 4;
  // The rules: per problem, on potrfBatched's triangle one from 64; two from 128 (c64 64, c32
  // 2048); r32 up to four from 1024; c64 four from 1024, eight from 2048; on the other triangle
  // one from 128, two from 2048. potrfBatched from 64: real below 512 for up to 256 problems;
  // c64 for up to 32, below 1024 for up to 128, below 512 for up to 256; c32 for up
  // to 128. The record names both cuSOLVER paths alike, so on potrfBatched's triangle only its
  // own edges show. Edges tried, one order or problem on each side: one problem at 64 (per
  // problem against blocked), the other triangle's one problem from 128; potrfBatched's lowest
  // order with three problems and real's 512; c32's 128 problems and 256 at 128; unreduced,
  // c64's 129 problems at 512 (column-major). The per-problem path with two problems runs at
  // 512. Not tried (the reference's and the residuals' cost: minutes): the edges at 1024 and
  // 2048, c64's at 32 problems (from 1024).
  struct Case {
    int n, count;
    bool light = false;  // made by shifted_hpd_maker, no reference, one problem in 32 checked in full
  };
  std::vector<Case> cases = {{63, 1},  {64, 1},    {127, 1},   {128, 1},   {63, 3},    {64, 3},   {511, 3},
                             {512, 3}, {128, 128}, {128, 129}, {128, 256}, {128, 257}, {512, 2}};
  // c64 alone, column-major alone (its two triangles are both triangles): the other precisions
  // have no edge there (real's 512 shows with three problems). The reference and full residuals
  // at 129 x 512 kept r32 alone busy for more than 590 s (H200, 2026-11-27) and c64 for more than
  // 530 s (H200, 2026-11-28), most of it making the problems (make_hpd, O(n^3)) and checking
  // them (O(n^3) each, per backend): these groups take shifted_hpd_maker, skip the reference
  // and check one problem in 32 in full, the rest by the residual's probe.
  const std::vector<Case> c64_edge = {{511, 129, true}, {512, 129, true}};
  auto on_cusolver = [](const Case &c, bool batched_triangle) {
#ifdef BB_TEST_HAVE_CUSOLVER
    const int per_problem_from = c.count <= 1 ? 64
                                 : c.count <= 2 ? (c32 ? 2048 : c64 ? 64 : 128)
                                 : c.count <= 4 && (r32 || c64) ? 1024
                                 : c.count <= 8 && c64 ? 2048 : 1 << 30;
    const bool per_problem = batched_triangle ? c.n >= per_problem_from
                                              : (c.count <= 1 ? c.n >= 128 : c.count <= 2 && c.n >= 2048);
    const bool batched = c.n >= 64 && (c32   ? c.count <= 128
                                       : c64 ? (c.count <= 32 || (c.count <= 128 ? c.n < 1024 : c.count <= 256 && c.n < 512))
                                             : c.count <= 256 && c.n < 512);
    return per_problem || (batched_triangle && batched);
#else
    (void)c, (void)batched_triangle;
    return false;  // blocked throughout
#endif
  };
  // Two groups each: 8 groups a call, so that every run is planned alone (a chunk of more than
  // kBlockedSerialRuns runs keeps small runs on the one-launch kernels, factor_run.hpp).
  constexpr std::size_t kCasesPerCall = 4;
  for (BLAS_Layout layout : kLayouts) {
    std::vector<Case> layout_cases = cases;
    if (!gpu::reduced() && c64 && layout == BLAS_ColMajor)
      layout_cases.insert(layout_cases.end(), c64_edge.begin(), c64_edge.end());
    for (std::size_t first = 0; first < layout_cases.size(); first += kCasesPerCall) {
      const std::vector<Case> part(layout_cases.begin() + first,
                                   layout_cases.begin() + std::min(layout_cases.size(), first + kCasesPerCall));
      Run<T> run(Routine::potrf, layout, "past the cuSOLVER crossover");
      const auto make = chol_maker<T>(layout);
      for (const Case &c : part)
        for (BLAS_Uplo u : kUplos) {
          if (c.light) {  // c64's edge: the routing is what it adds
            const int g = run.add(c.n, c.n, c.count, shifted_hpd_maker<T>(layout), u);
            run.group(g).reference = false;
            run.group(g).full_check_every = 32;
          } else {
            run.add(c.n, c.n, c.count, make, u);
          }
        }
      run_all_backends(run);
      if (::testing::Test::HasFailure()) return;
      // Where the native backend ran each group.
      run.run(on("native"));
      if (::testing::Test::HasFailure()) return;
      int g = 0;
      for (const Case &c : part)
        for (BLAS_Uplo u : kUplos) {
          const bool batched_triangle = (layout == BLAS_ColMajor) == (u == BLAS_Lower);
          const std::string line = gpu::last_call_group_line(run.record(), g++);
          EXPECT_EQ(line.find("cuda/cusolver") != std::string::npos, on_cusolver(c, batched_triangle))
              << "order " << c.n << " x" << c.count << ", uplo " << uplo_name(u) << ": " << line;
        }
    }
    Run<T> bad(Routine::potrf, layout, "past the cuSOLVER crossover, not positive definite");
    for (BLAS_Uplo u : kUplos) bad.add(650, 650, 6, not_pd_maker<T>(layout), u);
    // Per problem (groups of one, the per-problem path on either triangle): a negative minor at
    // a random order and at the last one in Lower, a zero first minor and a NaN in Upper.
    auto kinds_from = [layout](int k) {
      return [make = not_pd_maker<T>(layout), k](const auto &s, int pad, int i) { return make(s, pad, i + k); };
    };
    for (int k : {1, 2}) bad.add(650, 650, 1, kinds_from(k), BLAS_Lower);
    for (int k : {4, 5}) bad.add(650, 650, 1, kinds_from(k), BLAS_Upper);
    CallOpts o;
    o.info = layout == BLAS_ColMajor ? Mem::host : Mem::device;
    run_all_backends(bad, o);
    if (::testing::Test::HasFailure()) return;
  }
}

// ---- 3. host and device groups, every memory kind, in one call; the reference backend --------
TYPED_TEST(GpuPotrf, HostAndDeviceGroupsInOneCall) {
  using T = typename TypeParam::type;
  for (BLAS_Layout layout : kLayouts) {
    Run<T> run(Routine::potrf, layout, "groups in every memory kind");
    const auto make = chol_maker<T>(layout, 5);
    run.add(4, 4, batch<T>(30, 5), make, BLAS_Lower);
    run.add(9, 9, 4, make, BLAS_Upper, Mem::host);  // pageable: runs on the host
    run.add(16, 16, 5, make, BLAS_Lower, Mem::managed);
    run.add(7, 7, 0, make, BLAS_Upper);  // an empty group
    run.add(33, 33, 2, make, BLAS_Upper, Mem::pool);
    run.add(12, 12, 5, make, BLAS_Lower, Mem::pinned);  // pinned: still host memory
    run.add(20, 20, 3, make, BLAS_Upper);
    run.add(is_quad<T> ? 40 : 70, is_quad<T> ? 40 : 70, 2, make, BLAS_Lower, Mem::managed);
    run.add(3, 3, 6, make, BLAS_Upper, Mem::host);
    run.add(is_quad<T> ? 34 : 130, is_quad<T> ? 34 : 130, 2, make, BLAS_Upper);
    run_all_backends(run);
    if (::testing::Test::HasFailure()) return;
    // The reference backend takes device groups too (staged through the host).
    SCOPED_TRACE("backend reference");
    run.run(on("reference"));
    if (::testing::Test::HasFailure()) return;
  }
}

// ---- 4. more problems than a grid dimension holds -----------------------------------------------
// Every 11th problem is not positive definite, so each chunk of the device pass finds many
// non-zero codes.
TYPED_TEST(GpuPotrf, MoreThan65535Problems) {
  using T = typename TypeParam::type;
  // r128 / c128 (staged, software arithmetic) and the reduced mode get just past the limit.
  const bool small = gpu::reduced() || is_quad<T>;
  const int n = small ? 2 : 3, count = small ? 65537 : 70000;
  const BLAS_Layout layout = BLAS_ColMajor;
  Run<T> run(Routine::potrf, layout, std::to_string(count) + " problems");
  run.add(n, n, count, [&](const auto &s, int pad, int i) {
    Problem<T> pr = i % 13 == 7 ? planted_chol<T>(s.n, layout, s.uplo, pad) : hpd_problem<T>(s.n, layout, s.uplo, pad);
    if (i % 11 == 5) break_minor(pr, random_int(0, s.n - 1), NotPd(i % 3));
    return pr;
  }, BLAS_Lower);
  run.add(33, 33, scaled(3, 1), chol_maker<T>(layout), BLAS_Upper);  // a group that starts past 65535
  run.add(1, 1, 5, chol_maker<T>(layout, 2), BLAS_Lower);
  run_all_backends(run);
  if (::testing::Test::HasFailure()) return;
  // info NULL: the return value counts the codes alone; info in device memory.
  CallOpts o = on("native");
  o.with_info = false;
  run.run(o);
  if (is_quad<T>) return;
  o.with_info = true, o.info = Mem::device;
  run.run(o);
}

// ---- 5. a NULL A[p] skips that problem alone (SPEC.md section 4.2: -4) ---------------------------
TYPED_TEST(GpuPotrf, NullPointerSkipsOnlyItsProblem) {
  using T = typename TypeParam::type;
  for (BLAS_Layout layout : kLayouts) {
    Run<T> run(Routine::potrf, layout, "NULL entries");
    const auto make = chol_maker<T>(layout, 4);
    const int g0 = run.add(4, 4, 8, make, BLAS_Lower), g1 = run.add(33, 33, 4, make, BLAS_Upper),
              g2 = run.add(0, 0, 2, make, BLAS_Lower), g3 = run.add(17, 17, 3, make, BLAS_Upper),
              g4 = run.add(is_quad<T> ? 40 : 200, is_quad<T> ? 40 : 200, 2, make, BLAS_Lower);
    // The first problem of a group (residency comes from the others), one in the middle, the
    // last one, a problem with n = 0 (no error), every problem of a group but one.
    run.set_null_a(run.first(g0)), run.set_null_a(run.first(g0) + 5), run.set_null_a(run.first(g0) + 7);
    run.set_null_a(run.first(g1) + 3), run.set_null_a(run.first(g2));
    run.set_null_a(run.first(g3)), run.set_null_a(run.first(g3) + 2), run.set_null_a(run.first(g4) + 1);
    run_all_backends(run);
    if (::testing::Test::HasFailure()) return;
  }
}

// ---- 6. pointer arrays and info in device memory (SPEC.md section 9.2) -----------------------
TYPED_TEST(GpuPotrf, DevicePointerArrays) {
  using T = typename TypeParam::type;
  for (BLAS_Layout layout : kLayouts) {
    Run<T> run(Routine::potrf, layout, "device pointer arrays");
    const auto make = chol_maker<T>(layout, 4);  // every 4th problem not positive definite
    const int g0 = run.add(3, 3, batch<T>(500, 20), make, BLAS_Lower);
    run.add(8, 8, batch<T>(60, 6), make, BLAS_Upper);
    const int g2 = run.add(32, 32, 5, make, BLAS_Lower);
    // Blocked orders (potrf_blocked: this call has at most 8 groups; on potrfBatched's triangle
    // from 64 the crossovers send them to cuSOLVER, but under ctest's
    // GpuPotrf.BlockedAlgorithmOnly): a problem that fails (every 4th) and a NULL one, whose
    // code the blocks computing in the driver's scratch must keep.
    const int g3 = run.add(47, 47, 5, make, BLAS_Upper);
    run.add(0, 0, 2, make, BLAS_Lower);
    // Order 130 has its diagonal blocks' products by gemm into a strided workspace beside the
    // pointer arrays (in r32 and r64 on cuBLAS through pointer lists the core builds, SPEC.md
    // section 7: every row-major run, the column-major one under BlockedAlgorithmOnly), and a
    // NULL problem there.
    const int g130 = is_quad<T> ? -1 : run.add(130, 130, 4, make, BLAS_Lower);
    if (!is_quad<T> && !gpu::reduced()) run.add(230, 230, 2, make, BLAS_Upper);
    // NULL entries: read on the device (SPEC.md 9.2).
    const int f0 = run.first(g0), l0 = f0 + run.group(g0).count - 1;
    run.set_null_a(f0), run.set_null_a(l0), run.set_null_a(f0 + 7 < l0 ? f0 + 7 : f0 + 1);
    run.set_null_a(run.first(g2) + 4), run.set_null_a(run.first(g3) + 1);
    if (g130 >= 0) run.set_null_a(run.first(g130) + 2);
    CallOpts dev;
    dev.device_arrays = true, dev.info = Mem::device;
    if (is_quad<T>) {  // no GPU arithmetic: UNSUPPORTED, nothing touched (the host would read the arrays)
      run.upload();
      const int rc = run.call(dev);
      run.download();
      run.verify_untouched(rc, BLAS_BATCHED_ERR_UNSUPPORTED);
      continue;
    }
    // The blocked groups' bits may differ (SPEC.md section 9.2): their gemm updates can take
    // cuBLAS, on pointer lists with device arrays, as strided batches where host arrays give
    // evenly spaced matrices, on the library's kernels beside a NULL entry of host arrays; and
    // a few problems take cuSOLVER's per-problem potrf with host arrays only (section 7). The
    // groups of order <= 32, and every group in half precision (never blocked): one kernel
    // either way, the same bits.
    std::vector<bool> bits_promised(std::size_t(run.total()));
    for (int g = 0; g < run.group_count(); ++g)
      for (int i = 0; i < run.group(g).count; ++i)
        bits_promised[std::size_t(run.first(g) + i)] = run.group(g).n <= 32 || is_half<T>;
    for (const char *backend : device_backends<T>()) {
      SCOPED_TRACE(std::string("backend ") + backend);
      const bool compare_bits = gpu::same_bits_host_and_device_arrays(backend);
      // The group API with host arrays first; then device arrays (info in device and managed
      // memory): the same checks, and the same info and the same bits as with host arrays.
      run.run(on(backend));
      const std::vector<int> info_h = run.info();
      std::vector<std::vector<unsigned char>> bytes_h;
      for (int p = 0; p < run.total(); ++p) bytes_h.push_back(run.problem_bytes(p));
      for (Mem info : {Mem::device, Mem::managed}) {
        CallOpts o = dev;
        o.backend = backend, o.info = info;
        run.run(o);
        EXPECT_EQ(run.info(), info_h) << "info with device pointer arrays vs host ones";
        int differ = 0, first_differ = -1;
        for (int p = 0; compare_bits && p < run.total(); ++p)
          if (bits_promised[std::size_t(p)] && run.problem_bytes(p) != bytes_h[p]) first_differ = differ++ ? first_differ : p;
        EXPECT_EQ(differ, 0) << "factors with device pointer arrays differ from those with host arrays, first in problem "
                             << first_differ;
      }
      // info NULL: the return value counts the codes found on the device.
      CallOpts o = dev;
      o.backend = backend, o.with_info = false;
      run.run(o);
      if (::testing::Test::HasFailure()) return;
    }
    // Where device arrays cannot run: the reference backend (it reads arrays on the host).
    CallOpts o = dev;
    o.backend = "reference";
    run.upload();
    const int rc = run.call(o);
    run.download();
    run.verify_untouched(rc, BLAS_BATCHED_ERR_UNSUPPORTED);
    if (::testing::Test::HasFailure()) return;
  }
  // 64 problems a group: the blocked algorithm's gemm goes to cuBLAS (gemm_tuning.hpp's rules)
  // on pointer lists moved to sub-blocks (gemm.cu's vendor_listed), in the reduced run too; a
  // NULL problem computes in the checked copy's scratch there. No bit-for-bit comparison with
  // host arrays here: those take cuBLAS's strided or the library's kernels (a skipped problem).
  if (is_quad<T>) return;
  for (BLAS_Layout layout : kLayouts) {
    Run<T> run(Routine::potrf, layout, "device pointer arrays, cuBLAS on pointer lists");
    const auto make = chol_maker<T>(layout, 5);
    run.add(70, 70, 64, make, BLAS_Upper);
    const int g1 = run.add(100, 100, 64, make, BLAS_Lower);
    run.set_null_a(run.first(g1) + 10);
    CallOpts dev;
    dev.device_arrays = true, dev.info = Mem::device;
    run.run(dev);
    run.run(on("native"));
    if (::testing::Test::HasFailure()) return;
  }
}

// ---- 7. the strided entry point on device data (SPEC.md section 9.1) ----------------------------
// The same checks, and the same info and bits as the group API on the same matrices; info in
// host and device memory; strides that make outputs overlap are an invalid group.
// Every fail_every-th problem is not positive definite.
template <class T>
void potrf_strided_case(BLAS_Layout layout, BLAS_Uplo uplo, int n, int count, int gap, int fail_every = 7) {
  const std::string what = "strided " + shape(n, n) + " x" + std::to_string(count) + " uplo " + uplo_name(uplo);
  Run<T> run(Routine::potrf, layout, what);
  run.add(n, n, count, chol_maker<T>(layout, fail_every), uplo);
  run.group(0).gap = gap, run.group(0).reversed = false;
  for (const char *backend : device_backends<T>()) {
    SCOPED_TRACE(what + ", backend " + backend);
    run.run(on(backend));
    const std::vector<int> info_g = run.info();
    const auto out_g = run.outputs();
    for (Mem info : {Mem::host, Mem::device}) {
      CallOpts o = on(backend);
      o.strided = true, o.info = info;
      run.run(o);
      EXPECT_EQ(run.info(), info_g) << "info of the strided call vs the group API";
      EXPECT_TRUE(run.outputs() == out_g) << "factors of the strided call differ from the group API's";
    }
    if (::testing::Test::HasFailure()) return;
  }
}

template <class T>
void potrf_bad_strides(BLAS_Layout layout) {
  const int n = 5, count = 4;
  Run<T> run(Routine::potrf, layout, "invalid strides");
  run.add(n, n, count, chol_maker<T>(layout), BLAS_Lower);
  run.group(0).reversed = false;
  const Mat<T> &a = run.problem(0).A;
  const int64_t extent = int64_t(a.ld) * (n - 1) + n;
  for (int64_t stride : {extent - 1, int64_t(-3)}) {
    CallOpts o;
    o.strided = true, o.info = Mem::device, o.a_stride = stride;
    run.upload();
    const int rc = run.call(o);
    run.download();
    run.verify_group_rejected(rc, kStridedAStride);
  }
}

TYPED_TEST(GpuPotrf, StridedEntryPoint) {
  using T = typename TypeParam::type;
  potrf_strided_case<T>(BLAS_ColMajor, BLAS_Lower, 4, batch<T>(3000, 40), 0);
  // More failures than the info list's head brings back (1024; see GpuGetrf.StridedEntryPoints).
  potrf_strided_case<T>(BLAS_RowMajor, BLAS_Lower, 2, batch<T>(12000, 40), 0);
  potrf_strided_case<T>(BLAS_RowMajor, BLAS_Upper, 7, batch<T>(500, 10), 5);
  potrf_strided_case<T>(BLAS_ColMajor, BLAS_Upper, 32, batch<T>(100, 4), 1);
  // Blocked orders (one group: potrf_blocked; 250 column-major Lower goes to cuSOLVER but under
  // ctest's GpuPotrf.BlockedAlgorithmOnly), with failing problems: codes into the device info.
  potrf_strided_case<T>(BLAS_RowMajor, BLAS_Lower, 40, batch<T>(6, 2), 0, 2);
  if (!is_quad<T> && !gpu::reduced()) potrf_strided_case<T>(BLAS_ColMajor, BLAS_Lower, 250, 3, 7, 3);
  potrf_bad_strides<T>(BLAS_ColMajor);
  potrf_bad_strides<T>(BLAS_RowMajor);
}

// ======================================= geqrf =========================================

template <class P>
class GpuGeqrf : public gpu::GpuTest {};
TYPED_TEST_SUITE(GpuGeqrf, AllPrecisions, PrecisionNames);

// Tall and wide shapes: within the register kernels (m, n <= 32), then tall panels and wide
// blocks beyond.
template <class T>
std::vector<std::pair<int, int>> rect_shapes() {
  std::vector<std::pair<int, int>> v = {{32, 5}, {5, 32}, {17, 9}, {9, 17}, {1, 32}, {32, 1}, {31, 2}, {2, 31},
                                        {3, 1},  {1, 3},  {2, 1},  {1, 2},  {32, 31}, {31, 32}, {16, 3}, {3, 16},
                                        {0, 5},  {5, 0},  {0, 0}};
  if (gpu::reduced()) v = {{32, 5}, {5, 32}, {17, 9}, {1, 32}, {32, 1}, {0, 5}};
  v.insert(v.end(), {{40, 7}, {7, 40}, {64, 8}});
  if (!gpu::reduced()) v.insert(v.end(), {{33, 1}, {1, 33}, {100, 32}, {32, 100}});
  if (!gpu::reduced() && !is_quad<T>) v.insert(v.end(), {{256, 16}, {16, 256}, {300, 7}, {512, 32}, {513, 5}});
  return v;
}

// ---- 1. the sweep: every order 1..32, rectangles and panels, orders up to 512 ------------------
template <class T>
void geqrf_sweep(BLAS_Layout layout, bool with_512) {
  Run<T> run(Routine::geqrf, layout, "sweep");
  const auto make = qr_maker<T>(layout);
  int idx = 0;
  for (int n : small_orders()) run.add(n, n, count_for(n, idx++), make);
  if (!gpu::reduced()) {  // many problems per group: several per warp and per block, partial ones
    run.add(2, 2, batch<T>(203, 1), make);
    run.add(5, 3, batch<T>(67, 1), make);
    run.add(16, 16, batch<T>(41, 1), make);
    run.add(32, 32, batch<T>(19, 1), make);
  }
  for (auto [m, n] : rect_shapes<T>()) run.add(m, n, count_for(std::max(m, n), idx++), make);
  for (int n : medium_orders<T>()) run.add(n, n, count_for(n, idx++), make);
  for (int n : large_orders<T>(with_512)) run.add(n, n, 2, make);
  // Plain random matrices (residuals only), upper trapezoidal ones (tau = 0, or a pure phase).
  std::vector<std::pair<int, int>> plain = {{8, 8}, {24, 24}, {30, 10}, {10, 30}, {45, 45}};
  std::vector<std::pair<int, int>> tri = {{1, 1}, {2, 2}, {12, 12}, {20, 9}, {9, 20}, {40, 40}};
  if (!gpu::reduced() && !is_quad<T>) {
    plain.insert(plain.end(), {{100, 100}, {300, 20}, {20, 300}});
    tri.insert(tri.end(), {{150, 150}, {300, 40}});
  }
  for (auto [m, n] : plain) run.add(m, n, 2, qr_maker<T>(layout, QrKind::plain, false));
  for (auto [m, n] : tri) run.add(m, n, 2, qr_maker<T>(layout, QrKind::triangular, false));
  for (auto [m, n] : tri) run.add(m, n, 2, qr_maker<T>(layout, QrKind::phase, false));
  run.add(6, 4, 0, make);  // an empty group
  run_all_backends(run);
}

// Calls of at most 8 groups run geqrf's blocked algorithm where min(m, n) >= 40 (not r16, c16;
// in a call of more groups a group of fewer than 16 problems stays unblocked, so the sweep's
// many-group call tests the one-block kernels): squares, tall and wide shapes with a partial
// last panel, and upper trapezoidal matrices (tau = 0, or a pure phase, in T's build).
template <class T>
void geqrf_blocked_sweep(BLAS_Layout layout, bool with_512) {
  using Shape = std::pair<int, int>;
  std::vector<Shape> shapes;
  for (int n : medium_orders<T>()) shapes.push_back({n, n});
  for (int n : large_orders<T>(with_512)) shapes.push_back({n, n});
  if (!is_quad<T>) shapes.insert(shapes.end(), {{200, 70}, {70, 200}, {130, 96}, {97, 64}, {300, 64}, {64, 65}});
  constexpr std::size_t kPerCall = 6;  // and two groups of special matrices: 8
  for (std::size_t i = 0; i < shapes.size(); i += kPerCall) {
    Run<T> run(Routine::geqrf, layout, "blocked sweep");
    for (std::size_t o = i; o < std::min(shapes.size(), i + kPerCall); ++o)
      run.add(shapes[o].first, shapes[o].second, 2 + int(o % 2), qr_maker<T>(layout));
    if (i == 0 && !is_quad<T>) {
      run.add(150, 150, 2, qr_maker<T>(layout, QrKind::triangular, false));
      run.add(100, 140, 2, qr_maker<T>(layout, QrKind::phase, false));
    }
    run_all_backends(run);
    if (::testing::Test::HasFailure()) return;
  }
}

TYPED_TEST(GpuGeqrf, SweepColMajor) {
  geqrf_sweep<typename TypeParam::type>(BLAS_ColMajor, true);
  if (!::testing::Test::HasFailure()) geqrf_blocked_sweep<typename TypeParam::type>(BLAS_ColMajor, true);
}
TYPED_TEST(GpuGeqrf, SweepRowMajor) {
  geqrf_sweep<typename TypeParam::type>(BLAS_RowMajor, false);
  if (!::testing::Test::HasFailure()) geqrf_blocked_sweep<typename TypeParam::type>(BLAS_RowMajor, false);
}

// ---- 2. host and device groups, every memory kind, in one call; the reference backend --------
TYPED_TEST(GpuGeqrf, HostAndDeviceGroupsInOneCall) {
  using T = typename TypeParam::type;
  for (BLAS_Layout layout : kLayouts) {
    Run<T> run(Routine::geqrf, layout, "groups in every memory kind");
    const auto make = qr_maker<T>(layout);
    run.add(4, 4, batch<T>(30, 5), make);
    run.add(9, 6, 4, make, BLAS_Lower, Mem::host);  // pageable: runs on the host
    run.add(16, 16, 5, make, BLAS_Lower, Mem::managed);
    run.add(7, 7, 0, make);  // an empty group
    run.add(33, 20, 2, make, BLAS_Lower, Mem::pool);
    run.add(12, 5, 3, make, BLAS_Lower, Mem::pinned);  // pinned: still host memory
    run.add(20, 31, 3, make);
    run.add(is_quad<T> ? 40 : 70, is_quad<T> ? 40 : 70, 2, make, BLAS_Lower, Mem::managed);
    run.add(3, 3, 6, make, BLAS_Lower, Mem::host);
    run.add(is_quad<T> ? 34 : 130, is_quad<T> ? 20 : 60, 2, make);
    run_all_backends(run);
    if (::testing::Test::HasFailure()) return;
    SCOPED_TRACE("backend reference");
    run.run(on("reference"));
    if (::testing::Test::HasFailure()) return;
  }
}

// ---- 3a. tiny and huge matrices: larfg's scaled norms on every kernel family ------------------
// (r32, c32, r64, c64: half precisions compute in float, whose range their inputs cannot reach.)
// Not reached: more than one pass of xlarfg's rescaling loop (beta stays normal here, so one
// pass gives an accurate beta as well as none would), and an alpha whose square overflows
// beside a plain-range x.
TYPED_TEST(GpuGeqrf, TinyAndHugeMatrices) {
  using T = typename TypeParam::type;
  if (is_quad<T> || is_half<T>) GTEST_SKIP() << "inputs cannot leave the compute type's plain range";
  const bool single = std::is_same_v<typename traits<T>::real, float>;
  const int tiny = single ? -110 : -980, huge = single ? 118 : 1000;
  using Shape = std::pair<int, int>;
  const std::vector<Shape> unblocked = {{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5},  {8, 8},  {11, 11}, {16, 16},
                                        {17, 17}, {24, 24}, {32, 32}, {20, 9}, {9, 20}, {32, 5}, {45, 45}};
  const std::vector<Shape> blocked = {{40, 40}, {72, 72}, {130, 48}};
  for (BLAS_Layout layout : kLayouts)
    for (const auto &shapes : {unblocked, blocked}) {
      // More than 8 groups keep the call on the unblocked kernels (see geqrf_blocked_sweep).
      Run<T> run(Routine::geqrf, layout, shapes.size() > 8 ? "tiny and huge" : "tiny and huge, blocked");
      for (auto [m, n] : shapes)
        for (int e : {tiny, huge})
          run.add(m, n, 3, [=](const auto &, int pad, int) { return scaled_qr_problem<T>(m, n, layout, pad, e); });
      run.run(on("native"));
      if (::testing::Test::HasFailure()) return;
    }
}

// ---- 3b. an infinite entry below the diagonal of column 0 -------------------------------------
// LAPACK's xlarfg: ||x|| and xlapy3 give +Inf, so R(0, 0) = beta = -sign(Re alpha) Inf exactly
// (tau is then NaN). A scaled norm that divides by an infinite maximum gives NaN instead.
TYPED_TEST(GpuGeqrf, InfiniteEntryGivesInfiniteBeta) {
  using T = typename TypeParam::type;
  using R = typename traits<T>::real;
  using Shape = std::pair<int, int>;
  const std::vector<Shape> unblocked = {{2, 2},   {3, 3},   {4, 4}, {6, 5},   {8, 8},  {12, 12},
                                        {16, 16}, {20, 20}, {24, 24}, {32, 32}, {32, 5}, {45, 45}};
  const std::vector<Shape> blocked = {{72, 72}, {130, 48}};
  for (BLAS_Layout layout : kLayouts)
    for (const auto &shapes : {unblocked, blocked}) {
      Run<T> run(Routine::geqrf, layout, "an infinite entry");
      for (auto [m, n] : shapes)
        run.add(m, n, 3, [=](const auto &, int pad, int i) {
          Problem<T> pr = qr_problem<T>(m, n, layout, pad, QrKind::plain);
          pr.A(1 + i % (m - 1), 0) = T(R(i == 1 ? -INFINITY : INFINITY));
          return pr;
        });
      run.upload();
      CallOpts o;
      run.call(o);
      run.download();
      for (int p = 0; p < run.total(); ++p) {
        const Problem<T> &pr = run.problem(p);
        const auto alpha = wide(pr.A(0, 0)), beta = wide(run.output(p)(0, 0));
        const double want = bb::real(alpha) >= 0 ? -INFINITY : INFINITY;
        EXPECT_TRUE(bb::real(beta) == want && bb::imag(beta) == 0)
            << shape(pr.m, pr.n) << ", problem " << p << ": R(0, 0) = (" << double(bb::real(beta)) << ", "
            << double(bb::imag(beta)) << "), want " << want;
      }
      if (::testing::Test::HasFailure()) return;
    }
}

// ---- 3. more problems than a grid dimension holds -----------------------------------------------
TYPED_TEST(GpuGeqrf, MoreThan65535Problems) {
  using T = typename TypeParam::type;
  const bool small = gpu::reduced() || is_quad<T>;
  const int m = small ? 2 : 3, n = 2, count = small ? 65537 : 70000;
  const BLAS_Layout layout = BLAS_RowMajor;
  Run<T> run(Routine::geqrf, layout, std::to_string(count) + " problems");
  run.add(m, n, count, qr_maker<T>(layout));
  run.add(33, 20, scaled(3, 1), qr_maker<T>(layout));  // a group that starts past 65535
  run.add(1, 1, 5, qr_maker<T>(layout));
  run_all_backends(run);
  if (::testing::Test::HasFailure()) return;
  CallOpts o = on("native");
  o.with_info = false;
  run.run(o);
  if (is_quad<T>) return;
  o.with_info = true, o.info = Mem::device;
  run.run(o);
}

// ---- 4. a NULL A[p] or tau[p] skips that problem alone (SPEC.md section 4.2: -4, -6) ------------
TYPED_TEST(GpuGeqrf, NullPointerSkipsOnlyItsProblem) {
  using T = typename TypeParam::type;
  for (BLAS_Layout layout : kLayouts) {
    Run<T> run(Routine::geqrf, layout, "NULL entries");
    const auto make = qr_maker<T>(layout);
    const int g0 = run.add(4, 4, 8, make), g1 = run.add(33, 33, 4, make), g2 = run.add(0, 3, 2, make),
              g3 = run.add(6, 9, 3, make), g4 = run.add(17, 17, 3, make),
              g5 = run.add(is_quad<T> ? 40 : 200, is_quad<T> ? 12 : 30, 2, make);
    const int f0 = run.first(g0), f1 = run.first(g1), f2 = run.first(g2), f3 = run.first(g3), f4 = run.first(g4),
              f5 = run.first(g5);
    // The first problem of a group (residency comes from the others), A and tau both NULL (A,
    // argument 4, is reported), the last problem, a problem with m = 0 (no error).
    run.set_null_a(f0), run.set_null_tau(f0 + 3);
    run.set_null_a(f0 + 5), run.set_null_tau(f0 + 5);
    run.set_null_tau(f0 + 7);
    run.set_null_a(f1 + 3), run.set_null_tau(f1 + 1);
    run.set_null_a(f2), run.set_null_tau(f2 + 1);
    run.set_null_tau(f3 + 2), run.set_null_a(f4), run.set_null_tau(f5);
    run_all_backends(run);
    if (::testing::Test::HasFailure()) return;
  }
}

// ---- 5. pointer arrays and info in device memory (SPEC.md section 9.2) -----------------------
TYPED_TEST(GpuGeqrf, DevicePointerArrays) {
  using T = typename TypeParam::type;
  for (BLAS_Layout layout : kLayouts) {
    Run<T> run(Routine::geqrf, layout, "device pointer arrays");
    const auto make = qr_maker<T>(layout);
    const int g0 = run.add(3, 3, batch<T>(500, 20), make);
    run.add(8, 5, batch<T>(60, 6), make);
    const int g2 = run.add(32, 32, 5, make);
    run.add(19, 7, 4, make);
    run.add(47, 47, 2, make);
    run.add(0, 4, 2, make);
    if (!is_quad<T>) run.add(130, 30, 2, make);
    // NULL entries: read on the device (SPEC.md 9.2).
    const int f0 = run.first(g0), l0 = f0 + run.group(g0).count - 1;
    run.set_null_a(f0), run.set_null_tau(l0), run.set_null_tau(f0 + 7 < l0 ? f0 + 7 : f0 + 1);
    run.set_null_a(run.first(g2) + 2), run.set_null_tau(run.first(g2) + 2), run.set_null_tau(run.first(g2) + 4);
    CallOpts dev;
    dev.device_arrays = true, dev.info = Mem::device;
    if (is_quad<T>) {  // no GPU arithmetic: UNSUPPORTED, nothing touched (the host would read the arrays)
      run.upload();
      const int rc = run.call(dev);
      run.download();
      run.verify_untouched(rc, BLAS_BATCHED_ERR_UNSUPPORTED);
      continue;
    }
    for (const char *backend : device_backends<T>()) {
      SCOPED_TRACE(std::string("backend ") + backend);
      const bool compare_bits = gpu::same_bits_host_and_device_arrays(backend);
      run.run(on(backend));
      const std::vector<int> info_h = run.info();
      const auto out_h = run.outputs();
      for (Mem info : {Mem::device, Mem::managed}) {
        CallOpts o = dev;
        o.backend = backend, o.info = info;
        run.run(o);
        EXPECT_EQ(run.info(), info_h) << "info with device pointer arrays vs host ones";
        if (compare_bits) EXPECT_TRUE(run.outputs() == out_h) << "R, v or tau with device pointer arrays differ from those with host arrays";
      }
      CallOpts o = dev;
      o.backend = backend, o.with_info = false;
      run.run(o);
      if (::testing::Test::HasFailure()) return;
    }
    // Where device arrays cannot run: the reference backend (it reads arrays on the host).
    {
      CallOpts o = dev;
      o.backend = "reference";
      run.upload();
      const int rc = run.call(o);
      run.download();
      run.verify_untouched(rc, BLAS_BATCHED_ERR_UNSUPPORTED);
    }
    // A device A array with a host tau array: -6 (tau), nothing touched.
    {
      CallOpts o;
      o.mixed_arrays = true;
      run.upload();
      const int rc = run.call(o);
      run.download();
      run.verify_untouched(rc, -kGeqrfTau);
    }
    if (::testing::Test::HasFailure()) return;
  }
}

// The blocked algorithm (min(m, n) >= 40) on device pointer arrays: a call of at most 8 groups
// (in a call of more, groups of few problems stay unblocked: cuda::factor_blocked_run, where
// host and device arrays may count runs differently), a NULL A (its operands lead to the checked
// copy's scratch, its code kept) and a NULL tau.
TYPED_TEST(GpuGeqrf, DevicePointerArraysBlocked) {
  using T = typename TypeParam::type;
  if (is_quad<T> || is_half<T>) GTEST_SKIP() << "no blocked algorithm for this precision";
  for (BLAS_Layout layout : kLayouts) {
    Run<T> run(Routine::geqrf, layout, "device pointer arrays, blocked");
    const auto make = qr_maker<T>(layout);
    const int g0 = run.add(96, 80, 3, make);
    const int g1 = run.add(70, 130, 3, make);
    run.add(5, 5, 4, make);
    if (!gpu::reduced()) run.add(230, 230, 2, make);
    run.set_null_a(run.first(g0) + 1), run.set_null_tau(run.first(g1) + 2);
    for (const char *backend : device_backends<T>()) {
      SCOPED_TRACE(std::string("backend ") + backend);
      const bool compare_bits = gpu::same_bits_host_and_device_arrays(backend);
      run.run(on(backend));
      const std::vector<int> info_h = run.info();
      const auto out_h = run.outputs();
      CallOpts o;
      o.device_arrays = true, o.info = Mem::device, o.backend = backend;
      run.run(o);
      EXPECT_EQ(run.info(), info_h) << "info with device pointer arrays vs host ones";
      if (compare_bits) EXPECT_TRUE(run.outputs() == out_h) << "R, v or tau with device pointer arrays differ from those with host arrays";
      if (::testing::Test::HasFailure()) return;
    }
  }
}

// ---- 6. the strided entry point on device data (SPEC.md section 9.1) ----------------------------
template <class T>
void geqrf_strided_case(BLAS_Layout layout, int m, int n, int count, int gap) {
  const std::string what = "strided " + shape(m, n) + " x" + std::to_string(count);
  Run<T> run(Routine::geqrf, layout, what);
  run.add(m, n, count, qr_maker<T>(layout));
  run.group(0).gap = gap, run.group(0).reversed = false;
  for (const char *backend : device_backends<T>()) {
    SCOPED_TRACE(what + ", backend " + backend);
    run.run(on(backend));
    const std::vector<int> info_g = run.info();
    const auto out_g = run.outputs();
    for (Mem info : {Mem::host, Mem::device}) {
      CallOpts o = on(backend);
      o.strided = true, o.info = info;
      run.run(o);
      EXPECT_EQ(run.info(), info_g) << "info of the strided call vs the group API";
      EXPECT_TRUE(run.outputs() == out_g) << "R, v or tau of the strided call differ from the group API's";
    }
    if (::testing::Test::HasFailure()) return;
  }
}

// Overlapping outputs (A, or tau: both are written) and negative strides: every problem gets
// -k for the stride, the call returns their number, nothing is written.
template <class T>
void geqrf_bad_strides(BLAS_Layout layout) {
  const int m = 6, n = 5, count = 4;
  Run<T> run(Routine::geqrf, layout, "invalid strides");
  run.add(m, n, count, qr_maker<T>(layout));
  run.group(0).reversed = false;
  const Mat<T> &a = run.problem(0).A;
  const int64_t extent = int64_t(a.ld) * ((layout == BLAS_ColMajor ? n : m) - 1) + (layout == BLAS_ColMajor ? m : n);
  struct Bad {
    std::optional<int64_t> a_stride, tau_stride;
    int arg;
  };
  const Bad cases[] = {
      {extent - 1, std::nullopt, kStridedAStride},
      {-3, std::nullopt, kStridedAStride},
      {std::nullopt, std::min(m, n) - 1, kStridedGeqrfTauStride},
      {std::nullopt, 0, kStridedGeqrfTauStride},  // 0 only for operands that are only read
      {std::nullopt, -1, kStridedGeqrfTauStride},
  };
  for (const Bad &c : cases) {
    CallOpts o;
    o.strided = true, o.info = Mem::device, o.a_stride = c.a_stride, o.tau_stride = c.tau_stride;
    run.upload();
    const int rc = run.call(o);
    run.download();
    run.verify_group_rejected(rc, c.arg);
  }
}

TYPED_TEST(GpuGeqrf, StridedEntryPoint) {
  using T = typename TypeParam::type;
  geqrf_strided_case<T>(BLAS_ColMajor, 4, 4, batch<T>(3000, 40), 0);
  geqrf_strided_case<T>(BLAS_RowMajor, 7, 7, batch<T>(500, 10), 5);
  geqrf_strided_case<T>(BLAS_ColMajor, 32, 32, batch<T>(100, 4), 1);
  geqrf_strided_case<T>(BLAS_RowMajor, 17, 9, batch<T>(50, 3), 0);
  geqrf_strided_case<T>(BLAS_ColMajor, 9, 17, batch<T>(50, 3), 2);
  geqrf_strided_case<T>(BLAS_RowMajor, 40, 40, batch<T>(6, 2), 0);
  if (!is_quad<T> && !gpu::reduced()) geqrf_strided_case<T>(BLAS_ColMajor, 300, 32, 3, 7);
  geqrf_bad_strides<T>(BLAS_ColMajor);
  geqrf_bad_strides<T>(BLAS_RowMajor);
}

}  // namespace
}  // namespace conf
