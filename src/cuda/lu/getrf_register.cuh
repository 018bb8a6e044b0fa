// getrf for m, n <= K (K = 2, 4, ..., 32) with the matrix in registers (the founding paper's
// design, ../shared/docs/techniques.md seed 000): K threads per problem, thread t holding row t;
// 32 / K problems per warp (a warp's problems belong to one run), several warps per block, no
// block barrier. The pivot search is a reduction over the problem's lanes (lu_common.cuh);
// rows are never swapped: each thread tracks where LAPACK's sequence of interchanges has moved
// its row ("lazy swaps") and writes it once, straight to its final place. Each matrix is read
// once and written once.
#pragma once
#include "lu_common.cuh"

namespace bb::cuda {

template <class S, int K>
struct GetrfRegisterShape {
  using CT = typename dev<S>::C;
  static constexpr int WPB = lu_warps_per_block(lu_register_config(K));
  static constexpr int THREADS = 32 * WPB;
  // Registers a thread needs: its row, and 64 to 80 for the rest (measured: less spills).
  // Asking ptxas for the blocks that budget allows keeps K = 32 in double from taking 176
  // registers (and half the warps an SM could hold).
  static constexpr int REGS = K * int(sizeof(CT)) / 4 + (std::is_same_v<CT, double> ? 64 : 80);
  static constexpr int MIN_BLOCKS = 65536 / (THREADS * (REGS < 255 ? REGS : 255)) > 0
                                        ? 65536 / (THREADS * (REGS < 255 ? REGS : 255)) : 1;
  // Staging: a warp's 32 / K problems of K x K elements, stored type.
  // Each thread loads its row as it is: staging a warp's problems through shared memory for
  // coalesced copies measured slower at every K (H100: K = 8 and 16 lost 10-20 points).
};

// The pivot row's elements i..K-1 into shared memory (16-byte stores where two fit), and
// r[j] -= l * pivot[j] for j > i from it.
template <int K, class CT>
__device__ __forceinline__ void store_row(CT *buf, const CT (&r)[K], int i) {
  if constexpr (sizeof(CT) == 8) {
#pragma unroll
    for (int j = i & ~1; j < K; j += 2) {
      CT pair[2] = {r[j], r[j + 1 < K ? j + 1 : j]};
      *reinterpret_cast<uint4 *>(buf + j) = *reinterpret_cast<const uint4 *>(pair);
    }
  } else {
#pragma unroll
    for (int j = i; j < K; ++j) buf[j] = r[j];
  }
}
template <int K, class CT>
__device__ __forceinline__ void update_row(CT (&r)[K], CT l, const CT *buf, int i) {
  if constexpr (sizeof(CT) == 8) {
#pragma unroll
    for (int j = (i + 1) & ~1; j < K; j += 2) {
      const uint4 v = *reinterpret_cast<const uint4 *>(buf + j);
      const CT *pair = reinterpret_cast<const CT *>(&v);
      if (j > i) r[j] = msub(r[j], l, pair[0]);
      if (j + 1 < K) r[j + 1] = msub(r[j + 1], l, pair[1]);
    }
  } else {
#pragma unroll
    for (int j = i + 1; j < K; ++j) r[j] = msub(r[j], l, buf[j]);
  }
}

// One step i of LAPACK's xgetf2 with lazy swaps on a thread's row (or part of a row) r, whose
// register c holds column i; ROWS lanes hold the problem's rows (the pivot search reduces over
// them, every lane of the warp calling). It finds the pivot (returned, every lane), passes the
// pivot row's registers c.. to the problem's lanes through pivot_row_buf, moves cur (the row's
// final position; done: a row of U already, or no row), records info (the first zero pivot)
// and my_piv (ipiv[t]), and where !done leaves in l this row's multiplier (r[c] scaled by the
// pivot unless that is zero: xgetf2 does not divide by a zero pivot, and its column still
// updates the rest). The update of the registers right of c is the caller's (where !done).
template <int ROWS, int N, class CT>
__device__ __forceinline__ int getrf_step_pivot(CT (&r)[N], int c, int i, int t, CT *pivot_row_buf, int &cur,
                                                bool &done, int &info, int &my_piv, CT &l) {
  using R = real_t<CT>;
  bool is_pivot;
  const int prow = pivot_row<ROWS>(abs1(r[c]), !done, cur, is_pivot);
  // The pivot row goes to every lane of the problem through shared memory, two elements
  // (16 bytes) at a time where the type allows: fewer instructions than a shuffle each.
  if (is_pivot) store_row<N>(pivot_row_buf, r, c);
  __syncwarp();
  const CT d = pivot_row_buf[c];
  if (t == i) my_piv = prow + 1;
  // LAPACK swaps rows i and prow: the row now at i takes the pivot's place.
  if (is_pivot) cur = i, done = true;
  else if (!done && cur == i) cur = prow;
  const bool zero_pivot = is_zero(d);
  if (zero_pivot && !info) info = i + 1;
  if (!done) {
    l = r[c];
    if (!zero_pivot) {
      if (abs1(d) >= smallest_normal<R>()) l = mul(l, divide(from_real<CT>(R(1)), d));
      else l = divide(l, d);
      r[c] = l;
    }
  }
  return prow;
}

// getrf_register's steps on the rows in r (thread t holds row t of its problem, has_row: one
// exists): mn steps of getrf_step_pivot and the update.
template <int K, class CT>
__device__ __forceinline__ void getrf_register_steps(CT (&r)[K], int mn, int t, bool has_row, CT *pivot_row_buf,
                                                     int &cur, int &info, int &my_piv) {
  bool done = !has_row;
  // Columns n..K-1 are zeros that stay zeros (or become NaN next to a NaN, never stored nor
  // searched), so the steps below need no test of j against n.
#pragma unroll
  for (int i = 0; i < K; ++i) {
    if (i >= mn) break;  // the same for the whole warp
    CT l;
    getrf_step_pivot<K>(r, i, i, t, pivot_row_buf, cur, done, info, my_piv, l);
    if (!done) update_row<K>(r, l, pivot_row_buf, i);
    __syncwarp();  // the next step's pivot row overwrites this one
  }
}

// Thread t's row of problem p of a warp's unit u, for the row-a-thread getrf kernels: where it
// is read from and written to, and what the problem's end writes.
template <class S, int WPB, int PPW>
struct GetrfRowOfProblem {
  const FactorRun &G;
  int64_t p;
  int t, m, n, mn, ld;
  bool rm;
  S *a = nullptr;
  int *piv = nullptr;
  bool active, has_row;
  int64_t step;  // between a row's elements
  // Row-major rows in 16-byte pieces where they start on 16 bytes (row_in_pieces): worked out
  // where used rather than kept in a register through the steps.
  __device__ __forceinline__ bool pieces() const { return rm && row_in_pieces(a, ld); }
  __device__ __forceinline__ GetrfRowOfProblem(const FactorLaunch &L, int64_t u, int q, int t_)
      : G(run_of<WPB>(L, u)), p((u - G.unit_begin) * PPW + q), t(t_), m(G.m), n(G.n), mn(m < n ? m : n), ld(G.A.ld),
        rm(G.row_major) {
    if (p < G.problems) a = operand_at<S>(G.A, p), piv = operand_at<int>(G.ipiv, p);
    active = a && piv;  // else past the run's end, or skipped (a NULL pointer)
    has_row = active && t < m;
    step = rm ? 1 : ld;
  }
  // Row r of the matrix (the thread's own, or the place a pivot sequence moved it to).
  __device__ __forceinline__ S *row(int r) const { return a + (rm ? int64_t(r) * ld : r); }
  // The row's n elements into K registers, zeros past n (or everywhere without a row).
  // PIECES false: element by element always (the rolled kernel's instance both layouts share).
  template <int K, bool PIECES = true>
  __device__ __forceinline__ void load(typename dev<S>::C (&r)[K]) const {
    const S *in = row(t);
    if (PIECES && pieces()) {
      load_row_pieces<S, K>(in, has_row ? n : 0, [&](int j, S e) { r[j] = widen(e); });
      return;
    }
    // Element by element along the row: an add a step instead of a 64-bit product per element.
#pragma unroll
    for (int j = 0; j < K; ++j, in += step) r[j] = has_row && j < n ? widen(*in) : widen(zero<S>());
  }
  // The row's n elements from get(j) to row r (its final place), in pieces where they apply.
  template <int K, class Get>
  __device__ __forceinline__ void store(int r, Get &&get) const {
    if (!has_row) return;
    S *out = row(r);
    if (pieces()) {
      store_row_pieces<S, K>(out, n, get);
      return;
    }
#pragma unroll
    for (int j = 0; j < K; ++j, out += step)
      if (j < n) *out = narrow<S>(get(j));
  }
  // ipiv[t] and the problem's info (lane 0).
  __device__ __forceinline__ void finish(int my_piv, int info) const {
    if (active && t < mn) piv[t] = my_piv;
    if (active && t == 0) {
      if (info && G.codes) G.codes[p] = info;
      if (G.info) G.info[p] = info;
    }
  }
};

template <class S, int K>
__global__ void __launch_bounds__(GetrfRegisterShape<S, K>::THREADS, GetrfRegisterShape<S, K>::MIN_BLOCKS)
    getrf_register(const __grid_constant__ FactorLaunch L) {
  using Shape = GetrfRegisterShape<S, K>;
  using CT = typename dev<S>::C;
  constexpr int WPB = Shape::WPB, PPW = 32 / K;  // problems per warp
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, q = lane / K, t = lane % K;
  __shared__ __align__(16) CT pivot_rows[WPB][32];
  CT *pivot_row_buf = pivot_rows[warp] + q * K;
  // A unit is one warp's PPW problems; the whole warp leaves the loop together.
  for (int64_t u = int64_t(blockIdx.x) * WPB + warp; u < L.total_units; u += int64_t(gridDim.x) * WPB) {
    const GetrfRowOfProblem<S, WPB, PPW> P(L, u, q, t);
    CT r[K];
    P.template load<K>(r);
    int cur = t, info = 0, my_piv = 0;
    getrf_register_steps<K>(r, P.mn, t, P.has_row, pivot_row_buf, cur, info, my_piv);

    // Each row straight to its final place.
    P.template store<K>(cur, [&](int j) { return r[j]; });
    P.finish(my_piv, info);
  }
}

}  // namespace bb::cuda
