// Scalar helpers of the device kernels in the compute type: real and complex alike (LAPACK's
// |re| + |im|, division without overflow, the smallest normal number), and element addressing
// in either layout.
#pragma once
#include "device_types.cuh"

#include <cfloat>
#include <type_traits>

namespace bb::cuda {

template <class CT> constexpr bool dev_complex = dev<CT>::complex;
template <class CT> struct real_part_type { using type = CT; };
template <class R> struct real_part_type<cplx<R>> { using type = R; };
template <class CT> using real_t = typename real_part_type<CT>::type;

template <class R> __device__ __forceinline__ R smallest_normal();
template <> __device__ __forceinline__ float smallest_normal<float>() { return FLT_MIN; }
template <> __device__ __forceinline__ double smallest_normal<double>() { return DBL_MIN; }

__device__ __forceinline__ float abs1(float x) { return fabsf(x); }
__device__ __forceinline__ double abs1(double x) { return fabs(x); }
template <class R> __device__ __forceinline__ R abs1(cplx<R> x) { return abs1(x.re) + abs1(x.im); }

template <class CT> __device__ __forceinline__ bool is_zero(CT x) {
  if constexpr (dev_complex<CT>) return x.re == 0 && x.im == 0;
  else return x == 0;
}
template <class CT> __device__ __forceinline__ CT from_real(real_t<CT> v) {
  if constexpr (dev_complex<CT>) return {v, real_t<CT>(0)};
  else return v;
}
template <class CT> __device__ __forceinline__ CT negate(CT x) {
  if constexpr (dev_complex<CT>) return {-x.re, -x.im};
  else return -x;
}
template <class CT> __device__ __forceinline__ CT sum_of(CT a, CT b) {
  if constexpr (dev_complex<CT>) return CT{a.re + b.re, a.im + b.im};
  else return a + b;
}
// acc - a * b
template <class CT> __device__ __forceinline__ CT msub(CT acc, CT a, CT b) {
  if constexpr (dev_complex<CT>) return madd(acc, CT{-a.re, -a.im}, b);
  else return madd(acc, -a, b);
}
// a / b; complex by Smith's algorithm (no overflow in |b|^2).
template <class CT> __device__ __forceinline__ CT divide(CT a, CT b) {
  if constexpr (dev_complex<CT>) {
    using R = real_t<CT>;
    if (abs1(b.re) >= abs1(b.im)) {
      const R r = b.im / b.re, den = b.re + b.im * r;
      return {(a.re + a.im * r) / den, (a.im - a.re * r) / den};
    }
    const R r = b.re / b.im, den = b.im + b.re * r;
    return {(a.re * r + a.im) / den, (a.im * r - a.re) / den};
  } else {
    return a / b;
  }
}

// Element (i, j) of a matrix with leading dimension ld in its layout.
__device__ __forceinline__ int64_t element_index(bool row_major, int ld, int i, int j) {
  return row_major ? int64_t(i) * ld + j : i + int64_t(j) * ld;
}

template <class CT> __device__ __forceinline__ real_t<CT> real_of(CT x) {
  if constexpr (dev_complex<CT>) return x.re;
  else return x;
}
template <class CT> __device__ __forceinline__ real_t<CT> imag_of(CT x) {
  if constexpr (dev_complex<CT>) return x.im;
  else return real_t<CT>(0);
}
// |x|^2
template <class CT> __device__ __forceinline__ real_t<CT> abs2(CT x) {
  if constexpr (dev_complex<CT>) return x.re * x.re + x.im * x.im;
  else return x * x;
}
// x * s for a real s
template <class CT> __device__ __forceinline__ CT scale_by(CT x, real_t<CT> s) {
  if constexpr (dev_complex<CT>) return {x.re * s, x.im * s};
  else return x * s;
}
__device__ __forceinline__ float sqrt_of(float x) { return sqrtf(x); }
__device__ __forceinline__ double sqrt_of(double x) { return sqrt(x); }
__device__ __forceinline__ float rsqrt_of(float x) { return rsqrtf(x); }
__device__ __forceinline__ double rsqrt_of(double x) { return rsqrt(x); }

}  // namespace bb::cuda
