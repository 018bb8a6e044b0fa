// Device LU entry points: the precision switch and the choice of configuration per shape.
#include "../gemm/gemm.hpp"
#include "../tri/tri.hpp"
#include "lu_impl.cuh"

#include <cstdlib>

namespace bb::cuda {

#define BB_LU_EXTERN(S) BB_LU_DECLARE(S, extern)
BB_DEVICE_PRECISIONS(BB_LU_EXTERN)

int lu_config(DevPrec p, LuRoutine r, int m, int n) {
  const int side = std::max(m, n);
  for (int c = 0; c <= kLuRegister32; ++c)
    if (side <= lu_register_side(c)) {
      if (const int rows = lu_rows(p, r, side); rows != kLuNoRows) return rows;
      if (c != kLuRegister32) return c;
      // The inverse without its one-pass kernel runs getrf's then getri's: getri's choice, so
      // that it stays bit for bit the two calls (the rolled getrf's bits are the unrolled one's).
      const LuRoutine rule = r == LuRoutine::getrf_getri && !lu_one_pass(p, side) ? LuRoutine::getri : r;
      if (!lu_rolled(p, rule, side)) return c;
      // The inverse's pair takes rows of 24 where getri's call does, and its getrf rows of 20
      // where getrf's call does: the same kernels as the two calls.
      const LuRoutine narrow_rule = r == LuRoutine::getrf_getri ? LuRoutine::getri : r;
      if (!lu_rolled_narrow(narrow_rule, side)) return kLuRegisterRolled;
      const LuRoutine short_rule = r == LuRoutine::getrf_getri ? LuRoutine::getrf : r;
      return lu_rolled_short(short_rule, side) ? int(kLuRegisterRolledShort) : int(kLuRegisterRolledNarrow);
    }
  // Staged: the matrix with its odd leading dimension, and getri's work vector.
  const int64_t need = int64_t(staged_ld(m)) * n + (r != LuRoutine::getrf ? n : 0);
  const int tier = factor_shared_tier(need, compute_bytes(p));
  return tier < 0 ? kLuGlobal : kLuFirstShared + tier;
}

// An A/B switch: on unless the variable's value starts with 0 (read once by each caller).
static bool switched_on(const char *name) {
  const char *e = std::getenv(name);
  return !(e && e[0] == '0');
}

bool lu_supported(LuRoutine r, int n) { return r == LuRoutine::getrf || n <= kLuGlobalMaxN; }

bool lu_thread_staging() {
  static const bool enabled = switched_on("BLAS_BATCHED_LU_STAGE");
  return enabled;
}

bool lu_one_pass(DevPrec p, int K) {
  static const bool enabled = switched_on("BLAS_BATCHED_LU_ONE_PASS");
  return enabled && lu_one_pass_inverse(p, K);
}

bool lu_panel_rolled(DevPrec p, int K) {
  static const int forced = tuning_env("BLAS_BATCHED_LU_PANEL_ROLLED");
  return forced ? forced == 1 : lu_panel_rolled_takes(p, K);
}

bool lu_panel_staged(DevPrec p, int threads, int outside) {
  static const int forced = tuning_env("BLAS_BATCHED_LU_PANEL_STAGED_MAX_OUTSIDE");
  return lu_panel_staged_takes(threads, outside, forced ? forced : lu_panel_staged_max_outside(p));
}

bool lu_panel_halves(DevPrec p, int K, int threads) {
  static const int forced = tuning_env("BLAS_BATCHED_LU_PANEL_HALVES");
  return forced != 2 && lu_panel_halves_takes(p, K, threads);
}

bool lu_panel_left_over_narrow(DevPrec p) {
  static const int forced = tuning_env("BLAS_BATCHED_LU_PANEL_NARROW_LEFT_OVER");
  return forced ? forced == 1 : lu_panel_left_over_narrow_takes(p);
}

bool lu_rolled(DevPrec p, LuRoutine r, int side) {
  static const int forced = tuning_env("BLAS_BATCHED_LU_ROLLED_MIN");
  if (forced) return side > kLuRegisterMax / 2 && side <= kLuRegisterMax && side >= forced;
  return lu_rolled_takes(p, r, side);
}

int lu_rows(DevPrec p, LuRoutine r, int side) {
  static const bool enabled = switched_on("BLAS_BATCHED_LU_ROWS");
  return enabled ? lu_rows_config(p, r, side) : kLuNoRows;
}

bool lu_rolled_narrow(LuRoutine r, int side) {
  static const bool enabled = switched_on("BLAS_BATCHED_LU_ROLLED_NARROW");
  return enabled && lu_rolled_narrow_takes(r, side);
}

bool lu_rolled_short(LuRoutine r, int side) {
  static const bool enabled = switched_on("BLAS_BATCHED_LU_ROLLED_SHORT");
  return enabled && lu_rolled_short_takes(r, side);
}

int64_t lu_units(const FactorRun &s, int config) {
  if (s.m <= 0 || s.n <= 0) return 0;
  if (lu_is_register(config)) {
    const int per_warp = lu_problems_per_warp(config);
    return (s.problems + per_warp - 1) / per_warp;
  }
  return s.problems;
}

int lu_units_per_block(DevPrec, LuRoutine, int config) {
  return lu_warps_per_block(config);
}

// BLAS_BATCHED_LU_BLOCKED_MIN=<side> moves the crossover (tuning sweeps; read once per process).
bool lu_blocked(DevPrec, int m, int n) {
  static const int forced = tuning_env("BLAS_BATCHED_LU_BLOCKED_MIN");
  static const int min_side = forced ? forced : kLuBlockedMinSide;
  return std::max(m, n) >= min_side;
}

bool lu_getri_blocked(DevPrec p, int n) {
  static const int forced = tuning_env("BLAS_BATCHED_LU_GETRI_BLOCKED_MIN");
  return lu_getri_blocked_min_order(p) != kLuGetriNoBlocked && n >= (forced ? forced : lu_getri_blocked_min_order(p));
}

bool lu_getri_lanes(DevPrec p, int n) {
  static const bool enabled = switched_on("BLAS_BATCHED_LU_GETRI_LANES");
  return enabled && lu_getri_lanes_takes(p, n);
}

// The vendor takes what the blocked algorithm does not (lu_tuning.hpp), unless forced to an order.
bool lu_getri_native_vendor(DevPrec p, int n) {
  static const int forced = tuning_env("BLAS_BATCHED_LU_GETRI_VENDOR_MIN");
  if (forced) return n >= forced;
  return !lu_getri_blocked(p, n) && n >= lu_getri_vendor_min_order(p);
}

bool lu_getrf_native_solver(DevPrec p, int n, int64_t problems) {
#ifdef BB_HAVE_CUSOLVER
  static const int forced = tuning_env("BLAS_BATCHED_LU_SOLVER_MIN");
  return n >= (forced ? forced : lu_solver_min_order(p, problems));
#else
  (void)p, (void)n, (void)problems;
  return false;
#endif
}

// LAPACK's right-looking xgetrf on two levels (lu_blocked_outer_width: outer blocks of panels,
// the panels' updates inside the outer block, the rest updated once per outer block) with the
// run's layout kept: a row-major matrix is seen as its column-major transpose A' (same memory)
// by the cores, where the block row of U is a block column solved from the right by the
// transposed (upper) unit triangle, and the trailing update swaps its operands.
int getrf_blocked(Session &s, DevPrec p, const FactorRun &r, bool vendor_backend) {
  if (s.status() || r.problems <= 0 || r.m <= 0 || r.n <= 0) return s.status();
  const int m = r.m, n = r.n, mn = std::min(m, n), elem = elem_bytes(p), bytes = compute_bytes(p);
  const bool rm = r.row_major;
  auto at = [&](int i, int j) { return rm ? int64_t(i) * r.A.ld + j : i + int64_t(j) * r.A.ld; };
  const bool aligned = false;  // sub-blocks: the gemm core's flat kernels never apply
  // BLAS_BATCHED_LU_PANEL_WIDE_MIN moves the narrow panels' end (r32, r16, r64, c64) (A/B; read once).
  static const int forced_wide_min = tuning_env("BLAS_BATCHED_LU_PANEL_WIDE_MIN");
  const int wide_min = forced_wide_min ? forced_wide_min : lu_panel_wide_min_order(p);
  const int nb = lu_blocked_panel_width(p, bytes, std::max(m, n), wide_min);
  // BLAS_BATCHED_LU_PANEL_REMAINDER_FIRST=1 / 2 forces the narrower panel first / last (A/B; read once).
  static const int forced_remainder_first = tuning_env("BLAS_BATCHED_LU_PANEL_REMAINDER_FIRST");
  const bool remainder_first =
      forced_remainder_first ? forced_remainder_first == 1 : lu_panel_remainder_first_takes(p);
  // BLAS_BATCHED_LU_OUTER_WIDTH sets the outer block's width (A/B; rounded up to a multiple of nb; read once).
  static const int forced_outer = tuning_env("BLAS_BATCHED_LU_OUTER_WIDTH");
  const int asked = forced_outer ? std::min(forced_outer, 1 << 16) : lu_blocked_outer_width(p, std::max(m, n));
  const int outer = (std::max(asked, nb) + nb - 1) / nb * nb;
  // The columns left of an outer block, which nothing reads again, take the interchanges below
  // it in one pass at the end (getrf_deferred_swaps) instead of in every later panel
  // (lu_deferred_swaps_takes). BLAS_BATCHED_LU_DEFER_LEFT_SWAPS=1 / 2 forces it on / off (read once).
  static const int forced_defer = tuning_env("BLAS_BATCHED_LU_DEFER_LEFT_SWAPS");
  const bool defer_left = m <= kLuDeferredMaxRows && (forced_defer ? forced_defer == 1 : lu_deferred_swaps_takes(p, mn, outer));
  int outer_at = 0;  // the current outer block's first column
  // The run on the matrix's rows from `row` down and `columns` columns from `column`, ipiv
  // from `row`: a panel, or a deferred pass.
  auto sub_run = [&](int row, int column, int columns) {
    FactorRun sub = r;
    sub.unit_begin = 0;
    sub.m = m - row, sub.n = columns;
    sub.A = moved(r.A, at(row, column), elem);
    sub.ipiv = moved(r.ipiv, row, int(sizeof(int)));
    return sub;
  };
  // A11 = P L11 U11 by the panel kernel, interchanges across the row (defer_left: from the outer
  // block's first column); then U12 = L11^-1 A12 and A22 -= A21 U12 on the `right` columns
  // after the block.
  auto factor_panel = [&](int k, int jb) {
    FactorRun panel = sub_run(k, k, jb);
    panel.panel = true, panel.panel_at = k, panel.columns_right = n - k - jb;
    panel.columns_left = defer_left ? k - outer_at : k;
    const int kernel_width = jb <= kLuPanelNarrowWidth && lu_panel_left_over_narrow(p) ? kLuPanelNarrowWidth : nb;
    const int config = lu_panel_config(panel.m, jb, bytes, kernel_width);
    return lu_launch(s, p, LuRoutine::getrf, config, &panel, nullptr, nullptr, 1, lu_units(panel, config), 0);
  };
  auto update = [&](int k, int jb, int right) {
    const int below = m - k - jb;
    if (right <= 0) return s.status();
    TriRun u;  // U12 = L11^-1 A12
    u.problems = r.problems;
    u.solve = true, u.unit_diag = true, u.trans = 0;
    u.left = !rm, u.lower = !rm;
    u.m = rm ? right : jb, u.n = rm ? jb : right;
    u.A = moved(r.A, at(k, k), elem);
    u.B = moved(r.A, at(k, k + jb), elem);
    if (tri_recursive(s, p, u, vendor_backend)) return s.status();
    if (below <= 0) return s.status();
    GemmSeg g;  // A22 -= A21 U12 (row-major: A22' -= U12' A21')
    g.problems = r.problems;
    g.m = rm ? right : below, g.n = rm ? below : right, g.k = jb;
    g.A = moved(r.A, rm ? at(k, k + jb) : at(k + jb, k), elem);
    g.B = moved(r.A, rm ? at(k + jb, k) : at(k, k + jb), elem);
    g.C = moved(r.A, at(k + jb, k + jb), elem);
    g.read_ab = 1, g.read_c = 1;
    g.alpha[0] = -1, g.beta[0] = 1;
    return gemm(s, p, &g, &aligned, 1, vendor_backend);
  };
  // Blocks of `width` columns from k up to `end`, the narrower one (the span mod width) first
  // or last.
  auto blocks = [&](int k, int end, int width, auto &&body) {
    const int span = end - k, first = remainder_first ? span % width : 0;
    for (int jb = first ? first : std::min(width, span); k < end; k += jb, jb = std::min(width, end - k))
      if (body(k, jb)) return s.status();
    return s.status();
  };
  blocks(0, mn, outer, [&](int k, int ob) {
    outer_at = k;
    blocks(k, k + ob, nb, [&](int kk, int jb) {
      if (factor_panel(kk, jb)) return s.status();
      return update(kk, jb, k + ob - kk - jb);  // inside the outer block only
    });
    if (s.status()) return s.status();
    return update(k, ob, n - k - ob);
  });
  if (!defer_left || s.status()) return s.status();
  // Each outer block's columns take the interchanges of the rows below it. The blocks' columns
  // are disjoint, so their passes share launches, up to kFactorInlineRuns runs each.
  FactorRun passes[kFactorInlineRuns];
  int count = 0;
  int64_t units = 0;
  auto launch_passes = [&]() {
    const int runs = count;
    const int64_t all = units;
    count = 0, units = 0;
    return runs ? lu_launch(s, p, LuRoutine::getrf, kLuDeferredSwaps, passes, nullptr, nullptr, runs, all, 0) : s.status();
  };
  blocks(0, mn, outer, [&](int k, int ob) {
    const int below = k + ob;
    if (below >= mn) return s.status();
    FactorRun &d = passes[count++] = sub_run(below, k, ob);
    d.panel_at = below, d.interchanges = mn - below;
    d.unit_begin = units;
    units += lu_units(d, kLuDeferredSwaps);
    return count == kFactorInlineRuns ? launch_passes() : s.status();
  });
  if (s.status()) return s.status();
  return launch_passes();
}

// getri's part as getri's call would run it (SPEC.md 9.4: the two calls' bits).
int getrf_getri_blocked(Session &s, DevPrec p, const FactorRun &r, bool vendor_backend) {
  if (getrf_blocked(s, p, r, vendor_backend)) return s.status();
  FactorRun inv = r;
  inv.keep_codes = true;  // the panels' codes, and a NULL problem's -k (its operands lead to scratch)
  if (lu_getri_blocked(p, r.n)) return getri_blocked(s, p, inv, vendor_backend);
  // The shared kernels are the ones that keep codes (BLAS_BATCHED_LU_BLOCKED_MIN may block orders of 32 or less).
  const int config = lu_codes_keeping_config(p, r.n);
  return lu_launch(s, p, LuRoutine::getri, config, &inv, nullptr, nullptr, 1, lu_units(inv, config),
                   factor_run_flags(inv, elem_bytes(p)));
}

int lu_codes_keeping_config(DevPrec p, int n) {
  const int config = lu_config(p, LuRoutine::getri, n, n);
  return lu_is_shared(config) || config == kLuGlobal ? config : int(kLuFirstShared);
}

int getrf_unblocked(Session &s, DevPrec p, const FactorRun &r) {
  FactorRun one = r;
  one.unit_begin = 0;
  const int config = lu_config(p, LuRoutine::getrf, r.m, r.n);
  return lu_launch(s, p, LuRoutine::getrf, config, &one, nullptr, nullptr, 1, lu_units(one, config),
                   factor_run_flags(one, elem_bytes(p)));
}

int lu_launch(Session &s, DevPrec p, LuRoutine r, int config, const FactorRun *table_host, const FactorRun *table_device,
              const int32_t *block_first, int count, int64_t units, uint32_t common) {
  return by_precision(p, [&](auto x) {
    return lu_launch_typed<decltype(x)>(s, r, config, table_host, table_device, block_first, count, units, common);
  });
}

}  // namespace bb::cuda
