// Internal scalar types and precision traits: the one place that says, per precision,
// what is stored, what arithmetic runs in, and what epsilon means.
#pragma once
#include <blas_batched/blas_batched.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace bb {

using half = _Float16;
using quad = __float128;

// A plain aggregate complex: layout-compatible with C's _Complex of the same real type,
// usable with _Float16 and __float128 where std::complex is not specified.
template <class R>
struct complex {
  R re, im;
  complex() = default;
  constexpr complex(R r) : re(r), im(R(0)) {}
  // From any other real type, explicitly: GCC 13 does not convert float to _Float16 implicitly.
  template <class S, std::enable_if_t<std::is_arithmetic_v<S> && !std::is_same_v<S, R>, int> = 0>
  explicit constexpr complex(S r) : re(R(r)), im(R(0)) {}
  constexpr complex(R r, R i) : re(r), im(i) {}
  template <class S>
  explicit constexpr complex(const complex<S> &o) : re(R(o.re)), im(R(o.im)) {}
  complex &operator+=(const complex &o) { re += o.re; im += o.im; return *this; }
  complex &operator-=(const complex &o) { re -= o.re; im -= o.im; return *this; }
  complex &operator*=(const complex &o) { *this = *this * o; return *this; }
  complex &operator/=(const complex &o) { *this = *this / o; return *this; }
  friend complex operator+(complex a, complex b) { return {a.re + b.re, a.im + b.im}; }
  friend complex operator-(complex a, complex b) { return {a.re - b.re, a.im - b.im}; }
  friend complex operator-(complex a) { return {-a.re, -a.im}; }
  friend complex operator*(complex a, complex b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
  }
  friend complex operator*(R a, complex b) { return {a * b.re, a * b.im}; }
  friend complex operator*(complex a, R b) { return {a.re * b, a.im * b}; }
  // Smith's algorithm: no overflow for moderately scaled operands.
  friend complex operator/(complex a, complex b) {
    using std::fabs;
    R ar = b.re < R(0) ? -b.re : b.re, ai = b.im < R(0) ? -b.im : b.im;
    if (ai <= ar) {
      R r = b.im / b.re, d = b.re + b.im * r;
      return {(a.re + a.im * r) / d, (a.im - a.re * r) / d};
    }
    R r = b.re / b.im, d = b.im + b.re * r;
    return {(a.re * r + a.im) / d, (a.im * r - a.re) / d};
  }
  friend complex operator/(complex a, R b) { return {a.re / b, a.im / b}; }
  friend bool operator==(complex a, complex b) { return a.re == b.re && a.im == b.im; }
  friend bool operator!=(complex a, complex b) { return !(a == b); }
};

template <class T> struct is_complex : std::false_type {};
template <class R> struct is_complex<complex<R>> : std::true_type {};

// ---- real-valued helpers that also work for quad and half -----------------------
template <class R> inline R rabs(R x) { return x < R(0) ? -x : x; }
template <class R> inline bool risnan(R x) { return x != x; }
template <class R> inline R rsqrt(R x) {
  if constexpr (std::is_same_v<R, quad>) {
    // Newton from the double estimate: two steps reach binary128 accuracy without libquadmath.
    if (!(x > R(0))) return x == R(0) ? x : R(NAN);
    if (x == R(INFINITY)) return x;
    R y = R(std::sqrt(double(x)));
    if (y == R(0) || y == R(INFINITY)) {  // outside double's range: scale by 2^±600
      int e = 0;
      R s = x;
      while (s > R(1e150)) { s *= R(1e-300); e += 150; }
      while (s < R(1e-150)) { s *= R(1e300); e -= 150; }
      y = R(std::sqrt(double(s)));
      for (int i = 0; i < 3; ++i) y = (y + s / y) * R(0.5);
      R f = e > 0 ? R(1e150) : R(1e-150);
      for (int i = 0; i < (e > 0 ? e : -e) / 150; ++i) y *= f;
      return y;
    }
    for (int i = 0; i < 2; ++i) y = (y + x / y) * R(0.5);
    return y;
  } else {
    return R(std::sqrt(x));
  }
}

// ---- element-wise helpers, real and complex -------------------------------------
template <class R> inline R conj(R x) { return x; }
template <class R> inline complex<R> conj(complex<R> x) { return {x.re, -x.im}; }
template <class R> inline R real(R x) { return x; }
template <class R> inline R real(complex<R> x) { return x.re; }
template <class R> inline R imag(R) { return R(0); }
template <class R> inline R imag(complex<R> x) { return x.im; }
// |re| + |im|: the magnitude LAPACK's i?amax uses to choose pivots.
template <class R> inline R abs1(R x) { return rabs(x); }
template <class R> inline R abs1(complex<R> x) { return rabs(x.re) + rabs(x.im); }
template <class R> inline R abs2(R x) { return x * x; }
template <class R> inline R abs2(complex<R> x) { return x.re * x.re + x.im * x.im; }
template <class R> inline R absval(R x) { return rabs(x); }
template <class R> inline R absval(complex<R> x) {
  R a = rabs(x.re), b = rabs(x.im), m = a > b ? a : b;
  if (m == R(0)) return m;
  a /= m, b /= m;
  return m * rsqrt(a * a + b * b);
}
template <class R> inline bool isnan_any(R x) { return risnan(x); }
template <class R> inline bool isnan_any(complex<R> x) { return risnan(x.re) || risnan(x.im); }
// The smallest positive normal number (std::numeric_limits has no binary128 in strict modes,
// and GCC 12's has no _Float16: min() would be 0).
template <class R> constexpr R smallest_normal() {
  if constexpr (std::is_same_v<R, half>) {
    return R(0x1p-14);
  } else if constexpr (std::is_same_v<R, quad>) {  // 2^-16382 = (2^-1022)^16 2^-30, exact at every step
    R x = R(std::numeric_limits<double>::min()), y = x * x;
    y = y * y, y = y * y, y = y * y;
    return y * R(0x1p-30);
  } else {
    return std::numeric_limits<R>::min();
  }
}
// Neither NaN nor Inf: x - x is 0 exactly for every finite x, NaN otherwise.
template <class R> inline bool isfinite_all(R x) { return x - x == R(0); }
template <class R> inline bool isfinite_all(complex<R> x) { return isfinite_all(x.re) && isfinite_all(x.im); }

// The pivot rule of every getrf path (SPEC.md section 3): among x[0..len) (stride `inc`), the
// first entry with a NaN part, otherwise the first of largest |re| + |im| (i?amax under the
// proposed consistent exception handling of Demmel et al.; what OpenBLAS does).
template <class X>
inline int pivot_index(const X *x, int64_t len, int64_t inc = 1) {
  int piv = 0;
  auto best = abs1(x[0]);
  if (risnan(best)) return 0;
  for (int64_t i = 1; i < len; ++i) {
    const auto v = abs1(x[i * inc]);
    if (risnan(v)) return int(i);
    if (v > best) best = v, piv = int(i);
  }
  return piv;
}

// ---- precision traits ------------------------------------------------------------
// storage: how an element is kept in user memory; compute: what arithmetic runs in
// (half accumulates in float); real: the real type of storage; eps: unit roundoff of
// the storage precision (LAPACK's dlamch('E')).
template <class Storage> struct traits;

template <class S, class C, class CR, const char *Name>
struct traits_base {
  using storage = S;
  using compute = C;
  using compute_real = CR;
  static constexpr bool complex = is_complex<S>::value;
  static const char *name() { return Name; }
};

inline constexpr char name_r16[] = "r16", name_c16[] = "c16", name_r32[] = "r32",
                      name_c32[] = "c32", name_r64[] = "r64", name_c64[] = "c64",
                      name_r128[] = "r128", name_c128[] = "c128";

template <> struct traits<half> : traits_base<half, float, float, name_r16> {
  using real = half; static constexpr double eps = 0x1p-11;
};
template <> struct traits<complex<half>> : traits_base<complex<half>, complex<float>, float, name_c16> {
  using real = half; static constexpr double eps = 0x1p-11;
};
template <> struct traits<float> : traits_base<float, float, float, name_r32> {
  using real = float; static constexpr double eps = 0x1p-24;
};
template <> struct traits<complex<float>> : traits_base<complex<float>, complex<float>, float, name_c32> {
  using real = float; static constexpr double eps = 0x1p-24;
};
template <> struct traits<double> : traits_base<double, double, double, name_r64> {
  using real = double; static constexpr double eps = 0x1p-53;
};
template <> struct traits<complex<double>> : traits_base<complex<double>, complex<double>, double, name_c64> {
  using real = double; static constexpr double eps = 0x1p-53;
};
template <> struct traits<quad> : traits_base<quad, quad, quad, name_r128> {
  using real = quad; static constexpr double eps = 0x1p-113;
};
template <> struct traits<complex<quad>> : traits_base<complex<quad>, complex<quad>, quad, name_c128> {
  using real = quad; static constexpr double eps = 0x1p-113;
};

template <class T> using compute_t = typename traits<T>::compute;
template <class T> using compute_real_t = typename traits<T>::compute_real;

// Storage <-> compute conversions (the only rounding points of half precision).
template <class T> inline compute_t<T> load(const T &x) { return compute_t<T>(x); }
template <class T> inline T store_as(const compute_t<T> &x) { return T(x); }

// The library's internal types, in the order of the precision suffixes.
#define BB_FOR_EACH_PRECISION(X)                                                    \
  X(r16, blas_r16_t, ::bb::half) X(c16, blas_c16_t, ::bb::complex<::bb::half>)      \
  X(r32, blas_r32_t, float) X(c32, blas_c32_t, ::bb::complex<float>)                \
  X(r64, blas_r64_t, double) X(c64, blas_c64_t, ::bb::complex<double>)              \
  X(r128, blas_r128_t, ::bb::quad) X(c128, blas_c128_t, ::bb::complex<::bb::quad>)

#define BB_CHECK_LAYOUT(p, PublicT, T)                                                \
  static_assert(sizeof(PublicT) == sizeof(T) && alignof(PublicT) == alignof(T), \
                "public and internal " #p " types differ in layout");
BB_FOR_EACH_PRECISION(BB_CHECK_LAYOUT)
#undef BB_CHECK_LAYOUT

}  // namespace bb
