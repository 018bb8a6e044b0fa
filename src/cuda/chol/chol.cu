// Device Cholesky entry points: the configuration per size, one launch per configuration and
// the blocked algorithm, every precision in this file (the kernels are small).
#include "../gemm/gemm.hpp"
#include "../tri/tri.hpp"
#include "potrf_block.cuh"
#include "potrf_diag.cuh"


namespace bb::cuda {

int chol_config(DevPrec p, int n) {
  const bool rows64 = p == DevPrec::r16 || p == DevPrec::r32;
  for (int c = 0; c < kCholFirstShared; ++c)
    if (n <= chol_register_side(c) && (c != kCholRows64 || rows64)) return c;
  const int tier = factor_shared_tier(int64_t(staged_ld(n)) * n, compute_bytes(p));
  return tier < 0 ? kCholGlobal : kCholFirstShared + tier;
}

int64_t chol_units(const FactorRun &r, int config) {
  if (r.n <= 0) return 0;
  if (chol_is_register(config) || config == kCholDiag) {
    const int per_warp = config == kCholDiag ? 32 / chol_diag_side(r.n) : chol_problems_per_warp(config);
    return (r.problems + per_warp - 1) / per_warp;
  }
  return r.problems;
}

int chol_units_per_block(int config) { return chol_is_register(config) || config == kCholDiag ? kCholRegisterWarps : 1; }

// BLAS_BATCHED_CHOL_ROLLED_MIN=<side> (24 or 32, compared with the register side, not the order).
bool chol_rolled(DevPrec p, int side) {
  static const int forced = tuning_env("BLAS_BATCHED_CHOL_ROLLED_MIN");
  return forced ? side > 16 && side >= forced : chol_rolled_takes(p, side);
}

// BLAS_BATCHED_CHOL_BLOCKED_MIN=<order> moves the crossover (tuning sweeps; read once per process).
bool chol_blocked(DevPrec p, int n) {
  if (p == DevPrec::r16 || p == DevPrec::c16) return false;
  static const int forced = tuning_env("BLAS_BATCHED_CHOL_BLOCKED_MIN");
  return n >= (forced ? forced : kCholBlockedMinSide);
}

// BLAS_BATCHED_CHOL_VENDOR_MIN=<order> moves the crossover to cuSOLVER (tuning; read once).
bool chol_native_vendor(DevPrec p, int n, int64_t problems) {
  static const int forced = tuning_env("BLAS_BATCHED_CHOL_VENDOR_MIN");
  return forced ? n >= forced : chol_vendor_takes(p, n, problems);
}

// BLAS_BATCHED_CHOL_SOLVER_MIN=<order> forces cuSOLVER's per-problem potrf from that order at any
// count of problems (tuning; read once).
bool chol_native_solver(DevPrec p, int n, int64_t problems, bool batched_takes) {
#ifdef BB_HAVE_CUSOLVER
  static const int forced = tuning_env("BLAS_BATCHED_CHOL_SOLVER_MIN");
  return n >= (forced ? forced : chol_solver_min_order(p, problems, batched_takes));
#else
  (void)p, (void)n, (void)problems, (void)batched_takes;
  return false;
#endif
}

// BLAS_BATCHED_CHOL_DIAG_GEMM_MIN=<order> moves kCholDiagGemmMinOrder (tuning; read once).
static bool diag_products_by_gemm(int n) {
  static const int forced = tuning_env("BLAS_BATCHED_CHOL_DIAG_GEMM_MIN");
  return n >= (forced ? forced : kCholDiagGemmMinOrder);
}

// BLAS_BATCHED_CHOL_BLOCK=16 or 32 sets the blocks' width (tuning; read once per process).
static int block_width(DevPrec p, int n) {
  static const int w = tuning_env("BLAS_BATCHED_CHOL_BLOCK"), forced = w == 16 || w == 32 ? w : 0;
  return forced ? forced : chol_block_width(p, n);
}

// Left-looking by blocks of chol_block_width columns on V, the caller's memory seen as a
// column-major matrix (V = A, or A^T for row-major, the same Hermitian problem): lower where
// the caller's triangle is Lower in column-major or Upper in row-major (V = L L^H), else
// upper (V = U^H U). The diagonal kernel reads and writes through the caller's layout itself.
int potrf_blocked(Session &s, DevPrec p, const FactorRun &r, bool vendor_backend) {
  if (s.status() || r.problems <= 0 || r.n <= 0) return s.status();
  const int n = r.n, elem = elem_bytes(p), nb = block_width(p, r.n);
  const bool lower = r.lower != r.row_major;
  auto at = [&](int i, int j) { return sub_block(r.A, i, j, elem); };
  const bool aligned[2] = {false, false};  // sub-blocks: the gemm core's flat kernels never apply
  // The diagonal blocks' left products by the gemm calls (chol_tuning.hpp), in stream-ordered
  // workspace; none to be had leaves them to the diagonal kernel (the same result).
  const auto stream = static_cast<cudaStream_t>(s.stream());
  void *products = nullptr;
  if (n > nb && diag_products_by_gemm(n)) {
    s.started();
    const auto pool = static_cast<cudaMemPool_t>(s.workspace_pool());
    if (!pool || cudaMallocFromPoolAsync(&products, std::size_t(r.problems) * nb * nb * elem, pool, stream) != cudaSuccess) {
      cudaGetLastError();
      products = nullptr;
    }
  }
  const DevOperand product{products, int64_t(nb) * nb, nb, false};
  for (int k = 0; k < n && !s.status(); k += nb) {
    const int jb = std::min(nb, n - k), below = n - k - jb;
    if (k > 0 && (below > 0 || products)) {
      GemmSeg g[2];
      int segs = 0;
      if (below > 0) {  // lower: V21 -= L20 L10^H; upper: V12 -= U01^H U02
        GemmSeg &b = g[segs++];
        b.problems = r.problems;
        b.m = lower ? below : jb, b.n = lower ? jb : below, b.k = k;
        b.ta = lower ? 0 : 2, b.tb = lower ? 2 : 0;
        b.A = lower ? at(k + jb, 0) : at(0, k);
        b.B = lower ? at(k, 0) : at(0, k + jb);
        b.C = lower ? at(k + jb, k) : at(k, k + jb);
        b.read_ab = 1, b.read_c = 1;
        b.alpha[0] = -1, b.beta[0] = 1;
      }
      if (products) {  // lower: P = L10 L10^H; upper: P = U01^H U01
        GemmSeg &d = g[segs++];
        d.problems = r.problems;
        d.m = d.n = jb, d.k = k;
        d.ta = lower ? 0 : 2, d.tb = lower ? 2 : 0;
        d.A = d.B = lower ? at(k, 0) : at(0, k);
        d.C = product;
        d.read_ab = 1, d.read_c = 0;
        d.alpha[0] = 1, d.beta[0] = 0;
      }
      if (gemm(s, p, g, aligned, segs, vendor_backend)) break;
    }
    FactorRun diag = r;
    diag.unit_begin = 0;
    diag.m = diag.n = jb;
    diag.A = at(k, k);
    diag.panel = true, diag.panel_at = k;
    diag.tau = products && k > 0 ? product : DevOperand{};  // the left product, when computed
    if (chol_launch(s, p, kCholDiag, &diag, nullptr, nullptr, 1, chol_units(diag, kCholDiag))) break;
    if (below <= 0) break;
    TriRun t;  // lower: L21 = V21 L11^-H; upper: U12 = U11^-H V12
    t.problems = r.problems;
    t.solve = true, t.unit_diag = false, t.trans = 2;
    t.left = !lower, t.lower = lower;
    t.m = lower ? below : jb, t.n = lower ? jb : below;
    t.A = at(k, k);
    t.B = lower ? at(k + jb, k) : at(k, k + jb);
    if (tri_recursive(s, p, t, vendor_backend)) break;
  }
  if (products) s.check(cudaFreeAsync(products, stream));  // stream-ordered: after the work
  return s.status();
}

namespace {
template <class S>
int chol_launch_typed(Session &s, int config, const FactorRun *table_host, const FactorRun *table_device,
                      const int32_t *block_first, int count, int64_t units) {
  using CT = typename dev<S>::C;
  if (s.status() || units == 0 || count == 0) return s.status();
  FactorLaunch L;
  if (!make_launch(L, table_host, table_device, block_first, count, units)) return s.fail(BLAS_BATCHED_ERR_DEVICE);
  if (config == kCholRows64) {
    if constexpr (dev<S>::complex || sizeof(CT) > 4) return s.fail(BLAS_BATCHED_ERR_DEVICE);  // never planned
    else return launch_kernel(s, potrf_rows64<S>, L, 32 * kCholRegisterWarps,
                              (units + kCholRegisterWarps - 1) / kCholRegisterWarps, 0);
  }
  if (config == kCholDiag) {  // one run (potrf_blocked): its layout and triangle pick the variant
    if constexpr (sizeof(S) < sizeof(CT)) {
      return s.fail(BLAS_BATCHED_ERR_DEVICE);  // half: never blocked
    } else {
      const bool rows = table_host && table_host->lower != table_host->row_major;
      const int64_t blocks = (units + kCholRegisterWarps - 1) / kCholRegisterWarps;
      int st = -1;
      with_register_side<16, 32>(chol_diag_side(table_host ? table_host->n : 32), [&](auto side) {
        constexpr int K = decltype(side)::value;
        st = rows ? launch_kernel(s, potrf_diag<S, K, true>, L, 32 * kCholRegisterWarps, blocks, 0)
                  : launch_kernel(s, potrf_diag<S, K, false>, L, 32 * kCholRegisterWarps, blocks, 0);
      });
      return st == -1 ? s.fail(BLAS_BATCHED_ERR_DEVICE) : st;
    }
  }
  if (chol_is_register(config)) {
    int st = -1;  // every register side is compiled: the lambda runs
    with_side_among<2, 4, 8, 16, 24, 32>(chol_register_side(config), [&](auto side) {
      constexpr int K = decltype(side)::value;
      const int64_t blocks = (units + kCholRegisterWarps - 1) / kCholRegisterWarps;
      if constexpr (K >= 24)
        if (chol_rolled(dev_prec_of<S>(), K))
          st = launch_kernel(s, potrf_register<S, K, true>, L, 32 * kCholRegisterWarps, blocks, potrf_rolled_bytes<S, K>());
      if (st == -1) st = launch_kernel(s, potrf_register<S, K>, L, 32 * kCholRegisterWarps, blocks, 0);
    });
    return st == -1 ? s.fail(BLAS_BATCHED_ERR_DEVICE) : st;
  }
  if (chol_is_shared(config))
    return launch_kernel(s, potrf_shared<S, true>, L, kFactorBlockThreads, units,
                         factor_tier_elements(config - kCholFirstShared) * int(sizeof(CT)));
  return launch_kernel(s, potrf_shared<S, false>, L, kFactorBlockThreads, units, 0);
}
}  // namespace

int chol_launch(Session &s, DevPrec p, int config, const FactorRun *table_host, const FactorRun *table_device,
                const int32_t *block_first, int count, int64_t units) {
  return by_precision(p, [&](auto x) {
    return chol_launch_typed<decltype(x)>(s, config, table_host, table_device, block_first, count, units);
  });
}

}  // namespace bb::cuda
