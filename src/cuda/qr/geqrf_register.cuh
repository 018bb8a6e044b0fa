// geqrf for m, n <= K (K = 8, 16, 24, 32) with the matrix in registers: K threads per problem
// (24 in a warp of its own), thread c holding column c; 32 / K problems per warp, no block
// barrier. Each problem owns an area of shared memory (K columns of K + 1) whose column j ends
// up holding reflector j. At step j thread j puts its column there; the K threads then build
// the reflector together (one element each, the norm a sum across them, larfg's scalars
// computed by all alike, so no thread waits for one that works alone) and leave v in place;
// every later column applies H^H to itself.
#pragma once
#include "../factor_common.cuh"
#include "larfg.cuh"
#include "qr_tuning.hpp"

namespace bb::cuda {

// The lanes of one problem inside a warp (K rounded up to a power of two; those from K on hold
// zeros): larfg's sums and maxima across them (a butterfly, so every lane gets the same bits).
// The mask names only these lanes: the problems of a warp may take different branches of larfg.
template <int K>
struct ProblemLanes {
  unsigned mask;
  template <class R> __device__ __forceinline__ R sum(R x) const {
#pragma unroll
    for (int off = K / 2; off > 0; off /= 2) x += __shfl_xor_sync(mask, x, off);
    return x;
  }
  template <class R> __device__ __forceinline__ R max(R x) const {
#pragma unroll
    for (int off = K / 2; off > 0; off /= 2) x = fmax(x, __shfl_xor_sync(mask, x, off));
    return x;
  }
};

// A problem's reflector area: leading dimension K + 1, and an odd number of elements in all,
// so that the problems of one warp reading their reflectors at the same (i, j) hit different
// banks.
template <int K> constexpr int kQrReflectorLd = K + 1;
template <int K> constexpr int kQrReflectorArea = K * (K + 1) + 1;
template <class S, int K>
constexpr int geqrf_register_shared_bytes() {
  return kQrRegisterWarps * (32 / kRegisterLanes<K>) * kQrReflectorArea<K> * int(sizeof(typename dev<S>::C));
}

template <class S, int K>
__global__ void __launch_bounds__(32 * kQrRegisterWarps) geqrf_register(const __grid_constant__ FactorLaunch L) {
  using CT = typename dev<S>::C;
  using R = real_t<CT>;
  // Lanes >= K of a problem (side 24) hold no column: zeros in the norm's sums, nothing else.
  constexpr int Lanes = kRegisterLanes<K>, WPB = kQrRegisterWarps, PPW = 32 / Lanes, LDV = kQrReflectorLd<K>;
  // Steps run in chunks with compile-time bounds [J0, J1): the rows above J0 are left out
  // without a predicate. Up to kQrUnrolledMaxSide every step is its own chunk.
  constexpr int Chunk = K <= kQrUnrolledMaxSide ? 1 : kQrStepChunk<S>;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, q = lane / Lanes, c = lane % Lanes;
  const ProblemLanes<Lanes> lanes{Lanes == 32 ? ~0u : ((1u << Lanes) - 1) << (q * Lanes)};
  extern __shared__ __align__(16) unsigned char qr_register_area[];
  CT *const V = reinterpret_cast<CT *>(qr_register_area) + (warp * PPW + q) * kQrReflectorArea<K>;
  const CT one = from_real<CT>(R(1)), zero = from_real<CT>(R(0));
  for (int64_t u = int64_t(blockIdx.x) * WPB + warp; u < L.total_units; u += int64_t(gridDim.x) * WPB) {
    const FactorRun &G = run_of<WPB>(L, u);
    const int64_t p = (u - G.unit_begin) * PPW + q;
    const int m = G.m, n = G.n, mn = m < n ? m : n;
    S *a = nullptr, *tau = nullptr;
    if (p < G.problems) a = operand_at<S>(G.A, p), tau = operand_at<S>(G.tau, p);
    const bool active = a && tau;  // else past the run's end, or skipped (a NULL pointer)
    const bool mine = active && c < n;
    CT r[K];
    // Lane c takes column c. Row-major, the warp's loads are coalesced that way; column-major,
    // up to kQrStagedMaxSide, the matrix comes in by rows (lane c reading row c of each column)
    // through the reflector area, and goes out the same way.
    const bool staged = K <= kQrStagedMaxSide && !G.row_major;
    if (staged) {
      if (active && c < m)
#pragma unroll
        for (int col = 0; col < K; ++col)
          if (col < n) V[c + col * LDV] = widen(a[c + int64_t(col) * G.A.ld]);
      __syncwarp();
    }
#pragma unroll
    for (int i = 0; i < K; ++i)
      r[i] = mine && i < m ? (staged ? V[i + c * LDV] : widen(a[element_index(G.row_major, G.A.ld, i, c)])) : zero;
    if (staged) __syncwarp();  // the steps write the area
    // Step j, J0 <= j < J1 (the same j for the whole warp).
    auto step = [&](const int j, auto j0, auto j1) {
      constexpr int J0 = decltype(j0)::value, J1 = decltype(j1)::value;
      CT *const vj = V + j * LDV;
      if (c == j) {
#pragma unroll
        for (int i = J0; i < K; ++i)
          if (i >= J1 || i >= j) vj[i] = r[i];  // rows from m on are zero: v's too
      }
      __syncwarp();
      const bool below = c > j && c < m;
      CT x = below ? vj[c] : zero;
      const Reflector<CT> h = larfg(vj[j], lanes.sum(abs2(x)), [&](auto &&f) { f(x); }, lanes);
      if (below) vj[c] = mul(x, h.factor);
      // What later steps (and xorgqr) apply is the stored tau, rounded to its precision.
      const S stored = narrow<S>(h.tau);
      const CT ctau = conj(widen(stored));
      if (c == j) {
        if (active) tau[j] = stored;
#pragma unroll
        for (int i = J0; i < J1 && i < K; ++i)
          if (i == j) r[i] = from_real<CT>(h.beta);
      }
      __syncwarp();
      if (c > j && c < n && !is_zero(ctau)) {
        auto v_at = [&](int i) { return i < J1 && i == j ? one : vj[i]; };  // v(j) = 1
        CT w[2] = {zero, zero};  // two chains (four measured no faster)
#pragma unroll
        for (int i = J0; i < K; ++i)
          if (i >= J1 || i >= j) w[i % 2] = madd(w[i % 2], conj(v_at(i)), r[i]);
        w[0] = madd(w[0], one, w[1]);
        const CT f = mul(ctau, w[0]);
#pragma unroll
        for (int i = J0; i < K; ++i)
          if (i >= J1 || i >= j) r[i] = msub(r[i], v_at(i), f);
      }
    };
    static_chunks<0, K, Chunk>([&](auto j0, auto j1) {
      constexpr int J0 = decltype(j0)::value, J1 = decltype(j1)::value;
      if constexpr (J1 - J0 == 1) {
        if (J0 < mn) step(J0, j0, j1);
      } else {
#pragma unroll 1
        for (int j = J0; j < J1 && j < mn; ++j) step(j, j0, j1);
      }
    });
    if (staged) {
      // Column c of the area holds v below the diagonal already; R goes above it.
#pragma unroll
      for (int i = 0; i < K; ++i)
        if (i <= c && i < m) V[i + c * LDV] = r[i];
      __syncwarp();
      if (active && c < m)
#pragma unroll
        for (int col = 0; col < K; ++col)
          if (col < n) a[c + int64_t(col) * G.A.ld] = narrow<S>(V[c + col * LDV]);
    } else if (mine) {
#pragma unroll
      for (int i = 0; i < K; ++i)
        if (i < m) a[element_index(G.row_major, G.A.ld, i, c)] = narrow<S>(i > c ? V[i + c * LDV] : r[i]);
    }
    if (active && c == 0 && G.info) G.info[p] = 0;
    __syncwarp();  // the next problem's first step writes the column this one's last step read
  }
}

}  // namespace bb::cuda
