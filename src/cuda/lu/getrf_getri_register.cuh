// The inverse in one pass for n <= K (SPEC.md section 9.4; lu_one_pass_inverse picks the K): K
// threads per problem as getrf_register, thread t holding row t of A and of I in registers. Gauss-Jordan
// steps: the rows not yet pivoted see getrf_register's arithmetic exactly (so the pivots and
// info are getrf's bit for bit); every other row (the pivoted ones too) eliminates the step's
// column from its A part and updates its I part with the same multiplier, the I part kept in
// pivot order (store_prefix: step i touches its first i + 1 entries only). Pivot rows stay
// unscaled (scaling them at each step made the pivot's lane divide 2K times while the others
// waited); at the end the thread pivoted at step s divides its I part by that pivot, holding
// row s of inv(A), and writes it once. A singular problem writes nothing in that pass: the warp runs
// getrf_register's steps on it again, so that A holds getrf's factors (SPEC 9.4).
#pragma once
#include "getrf_register.cuh"

namespace bb::cuda {

// The I part of a row in pivot order: w[j] is its entry in the column of the row pivoted at step
// j, so after step i only w[0..i] can be non-zero (a compile-time range in the unrolled steps).
// Elements 0..i of a pivot's I part into shared memory, and w[j] -= l * pivot[j] for j <= i.
template <int K, class CT>
__device__ __forceinline__ void store_prefix(CT *buf, const CT (&w)[K], int i) {
  if constexpr (sizeof(CT) == 8) {
#pragma unroll
    for (int j = 0; j <= i; j += 2) {
      CT pair[2] = {w[j], w[j + 1 < K ? j + 1 : j]};
      *reinterpret_cast<uint4 *>(buf + j) = *reinterpret_cast<const uint4 *>(pair);
    }
  } else {
#pragma unroll
    for (int j = 0; j <= i; ++j) buf[j] = w[j];
  }
}
template <int K, class CT>
__device__ __forceinline__ void update_prefix(CT (&w)[K], CT l, const CT *buf, int i) {
  if constexpr (sizeof(CT) == 8) {
#pragma unroll
    for (int j = 0; j <= i; j += 2) {
      const uint4 v = *reinterpret_cast<const uint4 *>(buf + j);
      const CT *pair = reinterpret_cast<const CT *>(&v);
      w[j] = msub(w[j], l, pair[0]);
      if (j + 1 <= i) w[j + 1] = msub(w[j + 1], l, pair[1]);
    }
  } else {
#pragma unroll
    for (int j = 0; j <= i; ++j) w[j] = msub(w[j], l, buf[j]);
  }
}

// getrf_register's launch shape with a budget of registers for two rows (A's and I's), so that
// ptxas keeps the warps an SM holds up (as GetrfRegisterShape does for one row).
template <class S, int K>
struct InverseRegisterShape : GetrfRegisterShape<S, K> {
  using Base = GetrfRegisterShape<S, K>;
  static constexpr int REGS = 2 * K * int(sizeof(typename Base::CT)) / 4 + (std::is_same_v<typename Base::CT, double> ? 64 : 80);
  static constexpr int CAPPED = REGS < 255 ? REGS : 255;
  static constexpr int MIN_BLOCKS = 65536 / (Base::THREADS * CAPPED) > 0 ? 65536 / (Base::THREADS * CAPPED) : 1;
};

template <class S, int K>
__global__ void __launch_bounds__(InverseRegisterShape<S, K>::THREADS, InverseRegisterShape<S, K>::MIN_BLOCKS)
    getrf_getri_register(const __grid_constant__ FactorLaunch L) {
  using Shape = InverseRegisterShape<S, K>;
  using CT = typename dev<S>::C;
  using R = real_t<CT>;
  constexpr int WPB = Shape::WPB, PPW = 32 / K;  // problems per warp
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, q = lane / K, t = lane % K;
  // A problem's pivot row of [A | I]: 2K elements.
  __shared__ __align__(16) CT pivot_rows[WPB][64];
  __shared__ int pivot_lanes[WPB][32];  // the original row (lane t) pivoted at each step
  CT *buf = pivot_rows[warp] + q * 2 * K;
  int *orig = pivot_lanes[warp] + q * K;
  const R sfmin = smallest_normal<R>();
  const CT one = from_real<CT>(R(1));
  for (int64_t u = int64_t(blockIdx.x) * WPB + warp; u < L.total_units; u += int64_t(gridDim.x) * WPB) {
    const FactorRun &G = run_of<WPB>(L, u);
    const int64_t p = (u - G.unit_begin) * PPW + q;
    const int n = G.n, ld = G.A.ld;  // square
    const bool rm = G.row_major;
    S *a = nullptr;
    int *piv = nullptr;
    if (p < G.problems) a = operand_at<S>(G.A, p), piv = operand_at<int>(G.ipiv, p);
    const bool active = a && piv;
    const bool has_row = active && t < n;
    S *row = a + (rm ? int64_t(t) * ld : t);
    const int64_t step = rm ? 1 : ld;
    CT r[K], w[K];
    const S *in = row;  // along a moving pointer: an add an element, not a 64-bit product
#pragma unroll
    for (int j = 0; j < K; ++j, in += step) {
      r[j] = has_row && j < n ? widen(*in) : widen(zero<S>());
      w[j] = widen(zero<S>());  // pivot order: the row's own unit enters at the step it is pivoted
    }
    int cur = t, info = 0, my_piv = 0;
    CT my_d = one;  // the pivot of the step this row was chosen at: its row stays unscaled till the end
    bool done = !has_row;
#pragma unroll
    for (int i = 0; i < K; ++i) {
      if (i >= n) continue;  // the same for the whole warp (a break would keep the loop from unrolling)
      bool is_pivot;
      const int prow = pivot_row<K>(abs1(r[i]), !done, cur, is_pivot);
      if (is_pivot) {
        w[i] = one;
        store_row<K>(buf, r, i), store_prefix<K>(buf + K, w, i);
        orig[i] = t;
      }
      __syncwarp();
      const CT d = buf[i];
      if (t == i) my_piv = prow + 1;
      if (is_pivot) cur = i, done = true;
      else if (!done && cur == i) cur = prow;
      const bool zero_pivot = is_zero(d);
      if (zero_pivot && !info) info = i + 1;
      if (is_pivot) my_d = d;
      if (has_row && !is_pivot) {
        // getrf's multiplier (d is the same on the problem's lanes: no divergence).
        CT l = r[i];
        if (!zero_pivot) {
          if (abs1(d) >= sfmin) l = mul(l, divide(one, d));
          else l = divide(l, d);
        }
        r[i] = l;
        update_row<K>(r, l, buf, i);
        update_prefix<K>(w, l, buf + K, i);
      }
      __syncwarp();  // the next step's pivot row overwrites this one
    }
    const bool singular = active && info != 0;
    if (has_row && !singular) {
      // The row's A part is my_d e_cur now: its I part over my_d is row cur of inv(A).
      if (abs1(my_d) >= sfmin) {
        const CT rinv = divide(one, my_d);
#pragma unroll
        for (int j = 0; j < K; ++j) w[j] = mul(w[j], rinv);
      } else {
#pragma unroll
        for (int j = 0; j < K; ++j) w[j] = divide(w[j], my_d);
      }
      S *out = a + (rm ? int64_t(cur) * ld : cur);
#pragma unroll
      for (int j = 0; j < K; ++j)
        if (j < n) out[orig[j] * step] = narrow<S>(w[j]);
    }
    __syncwarp();  // orig is read above before the next problem's steps write it
    // Singular problems (A untouched so far): getrf's factors, the whole warp taking part.
    if (__any_sync(~0u, singular)) {
      const bool redo = singular && t < n;
      const S *again = row;
#pragma unroll
      for (int j = 0; j < K; ++j, again += step) r[j] = redo && j < n ? widen(*again) : widen(zero<S>());
      int cur2 = t, info2 = 0, piv2 = 0;
      getrf_register_steps<K>(r, n, t, redo, buf, cur2, info2, piv2);
      if (redo) {
        S *out = a + (rm ? int64_t(cur2) * ld : cur2);
#pragma unroll
        for (int j = 0; j < K; ++j, out += step)
          if (j < n) *out = narrow<S>(r[j]);
      }
    }
    if (active && t < n) piv[t] = my_piv;
    if (active && t == 0) {
      if (info && G.codes) G.codes[p] = info;
      if (G.info) G.info[p] = info;
    }
  }
}

}  // namespace bb::cuda
