// What the LU kernels share: the launch type, scalar helpers in the compute type (LAPACK's
// |re| + |im|, division, the smallest normal number), and element addressing in either layout.
#pragma once
#include "../run_table.cuh"
#include "lu.hpp"
#include "lu_tuning.hpp"

#include <cfloat>
#include <climits>

namespace bb::cuda {

using LuLaunch = RunLaunch<LuSeg, kLuInlineSegs>;

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
__device__ __forceinline__ int64_t lu_index(bool row_major, int ld, int i, int j) {
  return row_major ? int64_t(i) * ld + j : i + int64_t(j) * ld;
}

// The pivot of LAPACK's rule (SPEC.md section 3) as a reduction key: the first NaN, else the
// first of largest |re| + |im|; "first" is the row's current position in LAPACK's order.
template <class R>
struct PivotKey {
  R value;    // |re| + |im|; -1 for rows that take no part
  int nan;    // 1: the value is NaN
  int row;    // current position; INT_MAX for rows that take no part
  __device__ __forceinline__ bool beats(const PivotKey &o) const {
    if (nan != o.nan) return nan > o.nan;
    if (!nan && value != o.value) return value > o.value;
    return row < o.row;
  }
};
template <class CT>
__device__ __forceinline__ PivotKey<real_t<CT>> pivot_key(CT x, int row) {
  const real_t<CT> v = abs1(x);
  if (v != v) return {real_t<CT>(0), 1, row};
  return {v, 0, row};
}
template <class R>
__device__ __forceinline__ PivotKey<R> no_pivot() {
  return {R(-1), 0, INT_MAX};
}
// The best key over the `width` lanes of a segment (every lane gets it).
template <int width, class R>
__device__ __forceinline__ PivotKey<R> segment_best(PivotKey<R> k) {
#pragma unroll
  for (int off = width / 2; off > 0; off /= 2) {
    PivotKey<R> o;
    o.value = __shfl_xor_sync(~0u, k.value, off, width);
    o.nan = __shfl_xor_sync(~0u, k.nan, off, width);
    o.row = __shfl_xor_sync(~0u, k.row, off, width);
    if (o.beats(k)) k = o;
  }
  return k;
}


// ---- the register kernels' pivot search: over the K lanes of one problem (a segment of the
// warp), with as few shuffles as the precision allows (they are the kernels' bottleneck).

// Largest 64-bit key over the segment (every lane gets it). One problem per warp: two
// warp reductions; else a butterfly.
template <int K>
__device__ __forceinline__ uint64_t segment_max(uint64_t key) {
  if constexpr (K == 32) {
    const unsigned hi = __reduce_max_sync(~0u, unsigned(key >> 32));
    const unsigned lo = __reduce_max_sync(~0u, unsigned(key >> 32) == hi ? unsigned(key) : 0u);
    return uint64_t(hi) << 32 | lo;
  } else {
#pragma unroll
    for (int off = K / 2; off > 0; off /= 2) {
      const uint64_t o = __shfl_xor_sync(~0u, key, off, K);
      key = o > key ? o : key;
    }
    return key;
  }
}
template <int K>
__device__ __forceinline__ int segment_min(int x) {
  if constexpr (K == 32) {
    return __reduce_min_sync(~0u, x);
  } else {
#pragma unroll
    for (int off = K / 2; off > 0; off /= 2) x = min(x, __shfl_xor_sync(~0u, x, off, K));
    return x;
  }
}

// Step i's pivot among a problem's rows (SPEC.md section 3: the first NaN, else the first of
// largest |re| + |im|, "first" in LAPACK's current order `cur`). `magnitude` is |re| + |im| of
// this lane's row, `take_part` whether the row is still below the diagonal. Returns the
// pivot's position (every lane); `is_pivot` tells its lane. Magnitudes become unsigned keys in
// the same order (non-negative IEEE numbers order as their bits; NaN above all; 0 for lanes
// that take no part); in single precision the key carries the position too, so one reduction
// decides ties.
template <int K>
__device__ __forceinline__ int pivot_row(float magnitude, bool take_part, int cur, bool &is_pivot) {
  const unsigned mk = magnitude != magnitude ? 0xffffffffu : __float_as_uint(magnitude) + 1u;
  const uint64_t key = take_part ? uint64_t(mk) << 32 | unsigned(~cur) : 0;
  const int row = int(~unsigned(segment_max<K>(key)));
  is_pivot = take_part && cur == row;
  return row;
}
template <int K>
__device__ __forceinline__ int pivot_row(double magnitude, bool take_part, int cur, bool &is_pivot) {
  const uint64_t mk = magnitude != magnitude ? ~0ull : uint64_t(__double_as_longlong(magnitude)) + 1;
  const uint64_t key = take_part ? mk : 0;
  const uint64_t best = segment_max<K>(key);  // every lane takes part in the reductions
  const bool candidate = take_part && key == best;
  const int row = segment_min<K>(candidate ? cur : INT_MAX);
  is_pivot = candidate && cur == row;
  return row;
}

}  // namespace bb::cuda
