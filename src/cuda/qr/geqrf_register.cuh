// geqrf for m, n <= K (K = 2, 4, ..., 32) with the matrix in registers: K threads per problem,
// thread c holding column c; 32 / K problems per warp, no block barrier. At step j thread j
// builds the reflector from its own column alone (no reductions across threads), hands v and
// tau to the others through shared memory, and every later column applies H^H to itself.
#pragma once
#include "../factor_common.cuh"
#include "larfg.cuh"
#include "qr_tuning.hpp"

namespace bb::cuda {

template <class S, int K>
__global__ void __launch_bounds__(32 * kQrRegisterWarps) geqrf_register(const __grid_constant__ FactorLaunch L) {
  using CT = typename dev<S>::C;
  using R = real_t<CT>;
  constexpr int WPB = kQrRegisterWarps, PPW = 32 / K;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, q = lane / K, c = lane % K;
  // A problem's reflector: v(j) = 1 is implicit, so slot j carries conj(tau).
  __shared__ __align__(16) CT reflectors[WPB][32];
  CT *v = reflectors[warp] + q * K;
  for (int64_t u = int64_t(blockIdx.x) * WPB + warp; u < L.total_units; u += int64_t(gridDim.x) * WPB) {
    const FactorRun &G = run_of<WPB>(L, u);
    const int64_t p = (u - G.unit_begin) * PPW + q;
    const int m = G.m, n = G.n, mn = m < n ? m : n;
    S *a = nullptr, *tau = nullptr;
    if (p < G.problems) a = operand_at<S>(G.A, p), tau = operand_at<S>(G.tau, p);
    const bool active = a && tau;  // else past the run's end, or skipped (a NULL pointer)
    const bool mine = active && c < n;
    CT r[K];
#pragma unroll
    for (int i = 0; i < K; ++i)
      r[i] = mine && i < m ? widen(a[element_index(G.row_major, G.A.ld, i, c)]) : from_real<CT>(R(0));
    // Step j (the same j for the whole warp).
    auto step = [&](const int j) {
      CT top = r[0];
#pragma unroll
      for (int i = 1; i < K; ++i)
        if (i == j) top = r[i];
      if (c == j) {
        R ssq = 0;
#pragma unroll
        for (int i = 1; i < K; ++i)
          if (i > j && i < m) ssq += abs2(r[i]);
        auto each = [&](auto &&f) {
#pragma unroll
          for (int i = 1; i < K; ++i)
            if (i > j && i < m) f(r[i]);
        };
        const Reflector<CT> h = larfg(top, ssq, each);
#pragma unroll
        for (int i = 0; i < K; ++i) {
          if (i > j && i < m) r[i] = mul(r[i], h.factor);
          if (i == j) r[i] = from_real<CT>(h.beta);
          if (i > j) v[i] = r[i];
        }
        // What later steps (and xorgqr) apply is the stored tau, rounded to its precision.
        const S stored = narrow<S>(h.tau);
        if (active) tau[j] = stored;
        v[j] = conj(widen(stored));
      }
      __syncwarp();
      const CT ctau = v[j];
      if (c > j && c < n && !is_zero(ctau)) {
        CT w = top;
#pragma unroll
        for (int i = 1; i < K; ++i)
          if (i > j) w = madd(w, conj(v[i]), r[i]);
        const CT f = mul(ctau, w);
#pragma unroll
        for (int i = 0; i < K; ++i) {
          if (i == j) r[i] = msub(r[i], from_real<CT>(R(1)), f);
          if (i > j) r[i] = msub(r[i], v[i], f);
        }
      }
      __syncwarp();  // the next step's reflector overwrites this one
    };
    // Unrolled, every index is a compile-time constant (no predicate per element); at the
    // larger sides that costs more registers than it saves instructions.
    if constexpr (K <= kQrUnrolledMaxSide) {
#pragma unroll
      for (int j = 0; j < K; ++j)
        if (j < mn) step(j);
    } else {
#pragma unroll 1
      for (int j = 0; j < mn; ++j) step(j);
    }
    if (mine)
#pragma unroll
      for (int i = 0; i < K; ++i)
        if (i < m) a[element_index(G.row_major, G.A.ld, i, c)] = narrow<S>(r[i]);
    if (active && c == 0 && G.info) G.info[p] = 0;
  }
}

}  // namespace bb::cuda
