// geqrf for m, n <= K with K = 2 or 4: one thread per problem, the whole matrix in its
// registers (the frame of factor_thread.cuh). At these sizes the register kernels' lanes per
// problem mostly wait on their exchanges (shared memory, shuffles for the norm); a thread alone
// needs none. The same xlarfg (larfg.cuh) and the same update as the register kernels
// (geqrf_register.cuh), in one sum per column where they keep two.
#pragma once
#include "../factor_thread.cuh"
#include "larfg.cuh"
#include "qr_tuning.hpp"

namespace bb::cuda {

template <class S, int K, bool Stage>
__global__ void __launch_bounds__(32 * kQrThreadWarps) geqrf_thread(const __grid_constant__ FactorLaunch L) {
  using CT = typename dev<S>::C;
  using R = real_t<CT>;
  thread_problems<S, S, K, Stage, kQrThreadWarps>(L, &FactorRun::tau, [&](const FactorRun &G, int64_t p, S *a, S *tau) {
    const int m = G.m, n = G.n, mn = m < n ? m : n;
    const ThreadMatrix<S, K> M(a, G, m, n);
    CT x[K][K];
    M.load(x, m, n);
#pragma unroll
    for (int j = 0; j < K; ++j) {
      if (j >= mn) break;
      R ssq = 0;
#pragma unroll
      for (int i = j + 1; i < K; ++i)
        if (i < m) ssq += abs2(x[i][j]);
      auto each = [&](auto &&f) {
#pragma unroll
        for (int i = j + 1; i < K; ++i)
          if (i < m) f(x[i][j]);
      };
      const Reflector<CT> h = larfg(x[j][j], ssq, each);
#pragma unroll
      for (int i = j + 1; i < K; ++i)
        if (i < m) x[i][j] = mul(x[i][j], h.factor);
      x[j][j] = from_real<CT>(h.beta);
      // What later steps (and xorgqr) apply is the stored tau, rounded to its precision.
      const S stored = narrow<S>(h.tau);
      tau[j] = stored;
      const CT ctau = conj(widen(stored));
      if (is_zero(ctau)) continue;
#pragma unroll
      for (int c = j + 1; c < K; ++c) {
        if (c >= n) break;
        CT w = x[j][c];
#pragma unroll
        for (int i = j + 1; i < K; ++i) w = madd(w, conj(x[i][j]), x[i][c]);
        const CT f = mul(ctau, w);
        x[j][c] = msub(x[j][c], from_real<CT>(R(1)), f);
#pragma unroll
        for (int i = j + 1; i < K; ++i) x[i][c] = msub(x[i][c], x[i][j], f);
      }
    }
    M.store(x, m, n);
    if (G.info) G.info[p] = 0;
    return true;
  });
}

}  // namespace bb::cuda
