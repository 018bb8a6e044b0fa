// Blocked geqrf (LAPACK's xgeqrf) on a run of problems: for each panel of nb columns, the
// unblocked kernels of qr.cu factor the panel in place, then the panel's reflectors reach the
// columns to its right as Q^H = I - V T^H V^H (larft, larfb): V copied out of the panel with
// its unit diagonal and zeros, T built from V^H V (a gemm) by a small kernel, and three gemm
// core calls. The workspace (V, T, two nb-row blocks) comes from the session's pool, in
// sub-batches of bounded size.
//
// Row-major problems are stored as their transposes: the update runs on C^T with conj(V) and
// conj(T) in the workspace (C^T -= C^T conj(V) conj(T) V^T), so every gemm reads its operands
// as stored, with no conjugation without transposition.
#include "../gemm/gemm.hpp"
#include "qr.hpp"
#include "qr_tuning.hpp"
#include "../factor_common.cuh"

#include <algorithm>

namespace bb::cuda {

namespace {

// Per problem: the mv x jb block of reflectors at A(k, k) (the caller's layout), as V (or
// conj(V) for row-major) into v (ld mv): unit diagonal, zeros above it.
template <class S>
__global__ void qr_copy_reflectors(DevOperand a, bool row_major, int mv, int jb, DevOperand v, int64_t problems) {
  using CT = typename dev<S>::C;
  for (int64_t p = blockIdx.x; p < problems; p += gridDim.x) {
    const S *src = operand_at<S>(a, p);
    S *dst = operand_at<S>(v, p);
    if (!src || !dst) continue;
    const int64_t total = int64_t(mv) * jb;
    for (int64_t e = threadIdx.x; e < total; e += blockDim.x) {
      const int i = int(e % mv), j = int(e / mv);
      CT x = from_real<CT>(i == j ? 1 : 0);
      if (i > j) {
        x = widen(src[element_index(row_major, a.ld, i, j)]);
        if (row_major) x = conj(x);
      }
      dst[e] = narrow<S>(x);
    }
  }
}

// Per problem, one warp: LAPACK's xlarft (forward, columnwise) from G = V^H V in t (jb x jb,
// ld jb), overwritten by the upper triangular T (zeros below): T(j, j) = tau_j,
// T(0:j, j) = -tau_j T(0:j, 0:j) G(0:j, j). Given conj(G), with conj_tau, it builds conj(T).
template <class S>
__global__ void __launch_bounds__(32) qr_build_t(DevOperand tau, bool conj_tau, int jb, DevOperand t, int64_t problems) {
  using CT = typename dev<S>::C;
  __shared__ CT T[32][33], G[32][33];
  const int lane = threadIdx.x;
  for (int64_t p = blockIdx.x; p < problems; p += gridDim.x) {
    const S *tp = operand_at<S>(tau, p);
    S *out = operand_at<S>(t, p);
    if (!tp || !out) continue;
    for (int j = 0; j < jb; ++j)
      if (lane < jb) G[lane][j] = widen(out[lane + j * jb]);
    __syncwarp();
    for (int j = 0; j < jb; ++j) {
      CT tj = widen(tp[j]);
      if (conj_tau) tj = conj(tj);
      CT sum = from_real<CT>(0);
      if (lane < j)
        for (int l = lane; l < j; ++l) sum = madd(sum, T[lane][l], G[l][j]);
      // A zero tau (H_j = I) gives a zero column, as xlarft sets it (not -0 x sum: NaN there
      // stays out).
      const bool zero_column = lane > j || (lane < j && is_zero(tj));
      if (lane < jb) T[lane][j] = zero_column ? from_real<CT>(0) : lane == j ? tj : negate(mul(tj, sum));
      __syncwarp();
    }
    for (int j = 0; j < jb; ++j)
      if (lane < jb) out[lane + j * jb] = narrow<S>(T[lane][j]);
    __syncwarp();
  }
}

// Entries base + i * stride (bytes), for the workspace's operands when A's are pointer arrays
// (the gemm core's cuBLAS path wants one form for all three operands).
__global__ void qr_workspace_pointers(char *base, int64_t stride, int64_t problems, char **out) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < problems; i += int64_t(gridDim.x) * blockDim.x)
    out[i] = base + i * stride;
}

// BLAS_BATCHED_QR_BLOCK=<width> sets the panels' width (tuning; read once per process).
int block_width(DevPrec p, int m, int n) {
  static const int w = tuning_env("BLAS_BATCHED_QR_BLOCK"), forced = w >= 8 && w <= kQrRegisterMax ? w : 0;
  return forced ? forced : qr_block_width(p, m, n);
}

// The workspace of one problem (elements): V (m x nb), T (nb x nb), W and W2 (nb x n each).
struct QrWorkspace {
  int64_t v = 0, t = 0, w = 0, per_problem = 0;
  QrWorkspace(int m, int n, int nb) : v(int64_t(m) * nb), t(int64_t(nb) * nb), w(int64_t(nb) * n) {
    per_problem = v + t + 2 * w;
  }
};

int unblocked(Session &s, DevPrec p, const FactorRun &r) {
  const int config = qr_config(p, r.m, r.n);
  return qr_launch(s, p, config, &r, nullptr, nullptr, 1, qr_units(r, config));
}

// One sub-batch whose workspace is at `work` (per-problem slices of ws.per_problem elements).
int blocked_part(Session &s, DevPrec p, const FactorRun &r, int nb, const QrWorkspace &ws, char *work,
                 char **pointers, bool vendor_backend) {
  const int m = r.m, n = r.n, mn = std::min(m, n), elem = elem_bytes(p);
  const int64_t P = r.problems;
  const auto stream = static_cast<cudaStream_t>(s.stream());
  // Workspace operands: strided, or (A in array form) pointer arrays into the same memory.
  const int64_t stride = ws.per_problem * elem;
  char *const v_at = work, *const t_at = v_at + ws.v * elem, *const w_at = t_at + ws.t * elem,
             *const w2_at = w_at + ws.w * elem;
  auto operand = [&](char *at, int slot, int ld) {
    DevOperand o;
    o.ld = ld, o.maybe_null = false;
    if (!r.A.array) {
      o.p = at, o.step = ws.per_problem, o.array = false;
    } else {
      char **list = pointers + slot * P;
      s.clear_stale_error();
      qr_workspace_pointers<<<unsigned(s.grid(P, 256)), 256, 0, stream>>>(at, stride, P, list);
      s.check_launch();
      o.p = list, o.step = 0, o.array = true;
    }
    return o;
  };
  const bool row = r.row_major;
  // The caller's A(i, j) as a column-major operand: A itself, or the transpose row-major stores.
  auto at = [&](int i, int j) { return row ? sub_block(r.A, j, i, elem) : sub_block(r.A, i, j, elem); };
  const bool aligned = false;
  DevOperand V = operand(v_at, 0, m), T = operand(t_at, 1, nb), W = operand(w_at, 2, row ? n : nb),
             W2 = operand(w2_at, 3, row ? n : nb);
  for (int k = 0; k < mn && !s.status(); k += nb) {
    const int jb = std::min(nb, mn - k), mv = m - k, nc = n - k - jb;
    FactorRun panel = r;
    panel.unit_begin = 0;
    panel.m = mv, panel.n = jb;
    panel.A = at(k, k);
    panel.tau = moved(r.tau, k, elem);
    // The driver wrote a device info's zeros and NULL problems' codes (a NULL problem's
    // operands lead to its scratch here, where the kernels would overwrite its code).
    panel.info = nullptr;
    if (unblocked(s, p, panel) || nc <= 0) continue;
    V.ld = mv;
    by_precision(p, [&](auto x) {
      using S = decltype(x);
      s.clear_stale_error();
      qr_copy_reflectors<S><<<unsigned(s.block_grid(P)), 256, 0, stream>>>(panel.A, row, mv, jb, V, P);
      return s.check_launch();
    });
    T.ld = jb;
    GemmSeg g;  // G = V^H V (conj(G) from conj(V))
    g.problems = P;
    g.m = g.n = jb, g.k = mv, g.ta = 2, g.tb = 0;
    g.A = V, g.B = V, g.C = T;
    g.read_ab = 1, g.read_c = 0, g.alpha[0] = 1;
    if (gemm(s, p, &g, &aligned, 1, vendor_backend)) break;
    by_precision(p, [&](auto x) {
      using S = decltype(x);
      s.clear_stale_error();
      qr_build_t<S><<<unsigned(s.block_grid(P)), 32, 0, stream>>>(panel.tau, row, jb, T, P);
      return s.check_launch();
    });
    const DevOperand C = at(k, k + jb);  // the trailing columns (transposed when row-major)
    GemmSeg w = g, w2 = g, c = g;
    if (!row) {  // W = V^H C, W2 = T^H W, C -= V W2
      W.ld = W2.ld = jb;
      w.m = jb, w.n = nc, w.k = mv, w.ta = 2, w.tb = 0, w.A = V, w.B = C, w.C = W;
      w2.m = jb, w2.n = nc, w2.k = jb, w2.ta = 2, w2.tb = 0, w2.A = T, w2.B = W, w2.C = W2;
      c.m = mv, c.n = nc, c.k = jb, c.ta = 0, c.tb = 0, c.A = V, c.B = W2, c.C = C;
    } else {  // W^T = C^T conj(V), W2^T = W^T conj(T), C^T -= W2^T conj(V)^H
      W.ld = W2.ld = nc;
      w.m = nc, w.n = jb, w.k = mv, w.ta = 0, w.tb = 0, w.A = C, w.B = V, w.C = W;
      w2.m = nc, w2.n = jb, w2.k = jb, w2.ta = 0, w2.tb = 0, w2.A = W, w2.B = T, w2.C = W2;
      c.m = nc, c.n = mv, c.k = jb, c.ta = 0, c.tb = 2, c.A = W2, c.B = V, c.C = C;
    }
    c.read_c = 1, c.alpha[0] = -1, c.beta[0] = 1;
    if (gemm(s, p, &w, &aligned, 1, vendor_backend) || gemm(s, p, &w2, &aligned, 1, vendor_backend) ||
        gemm(s, p, &c, &aligned, 1, vendor_backend))
      break;
  }
  return s.status();
}

}  // namespace

int geqrf_blocked(Session &s, DevPrec p, const FactorRun &r, bool vendor_backend, int64_t workspace_bytes) {
  if (s.status() || r.problems <= 0 || r.m <= 0 || r.n <= 0) return s.status();
  const int nb = block_width(p, r.m, r.n), elem = elem_bytes(p);
  const QrWorkspace ws(r.m, r.n, nb);
  // Per problem: its slice of V, T, W, W2, and (A in array form) four pointer-list entries. The
  // lists follow the data on a 16-byte boundary (an odd panel width in r32 would leave the
  // data a multiple of 4 bytes only).
  const int64_t data = ws.per_problem * elem, lists = r.A.array ? 4 * int64_t(sizeof(void *)) : 0;
  const int64_t batch = std::max<int64_t>(1, std::min<int64_t>(r.problems, workspace_bytes / (data + lists)));
  ArenaLayout at;
  at.take(std::size_t(batch * data));
  const int64_t lists_at = int64_t(at.take(std::size_t(batch * lists)));
  const auto stream = static_cast<cudaStream_t>(s.stream());
  s.started();
  const auto pool = static_cast<cudaMemPool_t>(s.workspace_pool());
  void *work = nullptr;
  // No workspace (none to be had, or a graph being captured, which would get memory nodes):
  // the unblocked kernels, slower, same result.
  if (s.capturing() || !pool ||
      cudaMallocFromPoolAsync(&work, at.bytes, pool, stream) != cudaSuccess) {
    cudaGetLastError();
    FactorRun whole = r;
    whole.info = nullptr;  // as for the panels below
    return unblocked(s, p, whole);
  }
  char *pointers_at = static_cast<char *>(work) + lists_at;
  for (int64_t from = 0; from < r.problems && !s.status(); from += batch) {
    const FactorRun part = part_of(r, from, std::min(batch, r.problems - from), elem);
    blocked_part(s, p, part, nb, ws, static_cast<char *>(work), reinterpret_cast<char **>(pointers_at),
                 vendor_backend);
  }
  s.check(cudaFreeAsync(work, stream));  // stream-ordered: after the work above
  return s.status();
}

}  // namespace bb::cuda
