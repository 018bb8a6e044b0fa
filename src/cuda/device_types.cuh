// Element types on the device and their arithmetic: what is stored (S) and what products
// accumulate in (compute type): float for half, as the issue asks. One place per precision.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

namespace bb::cuda {

template <class R>
struct __align__(2 * sizeof(R)) cplx {
  R re, im;
};
struct __align__(4) chalf {
  __half re, im;
};

template <class S> struct dev;
template <> struct dev<float> { using C = float; static constexpr bool complex = false; };
template <> struct dev<double> { using C = double; static constexpr bool complex = false; };
template <> struct dev<__half> { using C = float; static constexpr bool complex = false; };
template <> struct dev<cplx<float>> { using C = cplx<float>; static constexpr bool complex = true; };
template <> struct dev<cplx<double>> { using C = cplx<double>; static constexpr bool complex = true; };
template <> struct dev<chalf> { using C = cplx<float>; static constexpr bool complex = true; };
// Storage types with cuBLAS/cuSOLVER routines of their own (s, d, c, z; not the half types).
template <class S>
constexpr bool has_vendor() {
  return std::is_same_v<S, float> || std::is_same_v<S, double> || std::is_same_v<S, cplx<float>> ||
         std::is_same_v<S, cplx<double>>;
}

// storage -> compute
__device__ __forceinline__ float widen(float x) { return x; }
__device__ __forceinline__ double widen(double x) { return x; }
__device__ __forceinline__ float widen(__half x) { return __half2float(x); }
__device__ __forceinline__ cplx<float> widen(cplx<float> x) { return x; }
__device__ __forceinline__ cplx<double> widen(cplx<double> x) { return x; }
__device__ __forceinline__ cplx<float> widen(chalf x) {
  return {__half2float(x.re), __half2float(x.im)};
}

// compute -> storage
template <class S> __device__ __forceinline__ S narrow(typename dev<S>::C x) { return x; }
template <> __device__ __forceinline__ __half narrow<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __forceinline__ chalf narrow<chalf>(cplx<float> x) {
  return {__float2half_rn(x.re), __float2half_rn(x.im)};
}

template <class S> __device__ __forceinline__ S zero() {
  if constexpr (std::is_same_v<S, __half>) return __float2half_rn(0.f);
  else if constexpr (std::is_same_v<S, chalf>) return {__float2half_rn(0.f), __float2half_rn(0.f)};
  else if constexpr (dev<S>::complex) return {0, 0};
  else return S(0);
}

template <class S> __device__ __forceinline__ S conj(S x) {
  if constexpr (std::is_same_v<S, chalf>) return {x.re, __hneg(x.im)};
  else if constexpr (dev<S>::complex) return {x.re, -x.im};
  else return x;
}

// acc + a * b
__device__ __forceinline__ float madd(float acc, float a, float b) { return fmaf(a, b, acc); }
__device__ __forceinline__ double madd(double acc, double a, double b) { return fma(a, b, acc); }
template <class R>
__device__ __forceinline__ cplx<R> madd(cplx<R> acc, cplx<R> a, cplx<R> b) {
  acc.re = fma(a.re, b.re, acc.re);
  acc.re = fma(-a.im, b.im, acc.re);
  acc.im = fma(a.re, b.im, acc.im);
  acc.im = fma(a.im, b.re, acc.im);
  return acc;
}
__device__ __forceinline__ float mul(float a, float b) { return a * b; }
__device__ __forceinline__ double mul(double a, double b) { return a * b; }
template <class R>
__device__ __forceinline__ cplx<R> mul(cplx<R> a, cplx<R> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

// A compute-type scalar from the precision-independent (re, im) pair of a run's description.
template <class CT> __host__ __device__ __forceinline__ CT scalar_from(const double v[2]) {
  if constexpr (std::is_same_v<CT, float> || std::is_same_v<CT, double>) return CT(v[0]);
  else return {decltype(CT::re)(v[0]), decltype(CT::re)(v[1])};
}

}  // namespace bb::cuda
