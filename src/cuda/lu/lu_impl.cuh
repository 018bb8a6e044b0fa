// The device LU of one precision: one launch of one configuration of getrf or getri.
// Instantiated once per precision (lu_<prec>.cu), so the precisions compile in parallel.
#pragma once
#include "getrf_deferred_swaps.cuh"
#include "getrf_getri_register.cuh"
#include "getrf_panel.cuh"
#include "getrf_register.cuh"
#include "getrf_register_rolled.cuh"
#include "getrf_register_rows.cuh"
#include "getrf_shared.cuh"
#include "getri_register.cuh"
#include "getri_shared.cuh"
#include "lu_thread.cuh"

#include <blas_batched/blas_batched.h>

#include <algorithm>
#include <cstring>

namespace bb::cuda {

// The thread kernels' staged variant is compiled only where it differs (lu_thread_stage).
template <class S, int K>
constexpr bool kLuStageable = lu_thread_stage(K * K * int(sizeof(S)));

template <class S>
int lu_launch_typed(Session &s, LuRoutine routine, int config, const FactorRun *table_host, const FactorRun *table_device,
                    const int32_t *block_first, int count, int64_t units, uint32_t common) {
  using CT = typename dev<S>::C;
  if (s.status() || units == 0 || count == 0) return s.status();
  FactorLaunch L;
  if (!make_launch(L, table_host, table_device, block_first, count, units)) return s.fail(BLAS_BATCHED_ERR_DEVICE);
  auto go = [&](auto kernel, int threads, int64_t blocks, int bytes) {
    return launch_kernel(s, kernel, L, threads, blocks, bytes);
  };
  constexpr DevPrec kPrec = dev_prec_of<S>();
  // The rolled configurations have no one-pass inverse: their getrf, then their getri.
  if (routine == LuRoutine::getrf_getri && (lu_is_rolled(config) ||
                                            !(lu_is_register(config) &&
                                            lu_one_pass(kPrec, lu_register_side(config))))) {
    // getrf's kernel, then getri's on its factors (getri's code replaces getrf's, SPEC 9.4).
    if (lu_launch_typed<S>(s, LuRoutine::getrf, config, table_host, table_device, block_first, count, units, common))
      return s.status();
    return lu_launch_typed<S>(s, LuRoutine::getri, config, table_host, table_device, block_first, count, units, common);
  }
  const bool getrf = routine == LuRoutine::getrf;
  // The rolled getrf and getri_register take their ROW_PIECES instances where every run of the
  // launch is row-major with ld * sizeof(S) on 16 bytes (a problem whose pointer is not on 16
  // bytes still goes element by element there); else the instances both layouts share.
  const bool row_pieces = common & kFactorRowsOn16Bytes;
  // The rolled getrf with rows of NR registers (row_pieces: its row-major instance).
  auto rolled_getrf = [&](auto rows) {
    constexpr int K = kLuRegisterMax, NR = decltype(rows)::value, WPB = kLuRolledWarps;
    const int64_t blocks = (units + WPB - 1) / WPB;
    constexpr int bytes = GetrfRolledShape<S, K, NR>::shared_bytes();
    if constexpr (lu_rolled_row_pieces_built(kPrec, NR))
      if (row_pieces) return go(getrf_register_rolled<S, K, NR, true>, 32 * WPB, blocks, bytes);
    return go(getrf_register_rolled<S, K, NR>, 32 * WPB, blocks, bytes);
  };
  // getri_register of side K (ROLLED: rows of NR registers; row_pieces: its row-major instance).
  auto register_getri = [&](auto side, auto warps, auto rolled, auto rows) {
    constexpr int K = decltype(side)::value, WPB = decltype(warps)::value, NR = decltype(rows)::value;
    constexpr bool ROLLED = decltype(rolled)::value;
    const int64_t blocks = (units + WPB - 1) / WPB;
    constexpr int bytes = WPB * getri_register_warp_bytes<S, K, ROLLED, NR>();
    if constexpr (lu_getri_row_pieces_built(kPrec, K, ROLLED, NR))
      if (row_pieces) return go(getri_register<S, K, WPB, ROLLED, NR, true>, 32 * WPB, blocks, bytes);
    return go(getri_register<S, K, WPB, ROLLED, NR>, 32 * WPB, blocks, bytes);
  };
  using Rolled = std::true_type;
  using RolledWarps = std::integral_constant<int, kLuRolledWarps>;
  using Side32 = std::integral_constant<int, kLuRegisterMax>;
  if (config == kLuRegisterRolledNarrow || config == kLuRegisterRolledShort) {
    // The inverse's getri keeps rows of 24 where its getrf takes getrf's rows of 20.
    if (!getrf) return register_getri(Side32{}, RolledWarps{}, Rolled{}, std::integral_constant<int, kLuRolledNarrowRow>{});
    if (config == kLuRegisterRolledShort) return rolled_getrf(std::integral_constant<int, kLuRolledShortRow>{});
    return rolled_getrf(std::integral_constant<int, kLuRolledNarrowRow>{});
  }
  if (config == kLuRegisterRolled)
    return getrf ? rolled_getrf(Side32{}) : register_getri(Side32{}, RolledWarps{}, Rolled{}, Side32{});
  if (lu_is_rows(config)) {  // getrf only, the configurations lu_rows_config names for p
    constexpr DevPrec p = kPrec;
    constexpr int WPB = GetrfRowsShape<S, 8, 2>::WPB;
    static_assert(GetrfRowsShape<S, 4, 2>::WPB == WPB && GetrfRowsShape<S, 16, 2>::WPB == WPB);
    const int64_t blocks = (units + WPB - 1) / WPB;
    if (!getrf) return s.fail(BLAS_BATCHED_ERR_DEVICE);
    if constexpr (p == DevPrec::r64 || p == DevPrec::r32 || p == DevPrec::c32)
      if (config == kLuRegisterRows4) return go(getrf_register_rows<S, 4, 2>, 32 * WPB, blocks, 0);
    if constexpr (p == DevPrec::c64)
      if (config == kLuRegisterLanes4) return go(getrf_register_rows<S, 4, 1>, 32 * WPB, blocks, 0);
    if constexpr (p == DevPrec::r16 || p == DevPrec::r32)
      if (config == kLuRegisterRows8) return go(getrf_register_rows<S, 8, 2>, 32 * WPB, blocks, 0);
    if constexpr (p == DevPrec::c16)
      if (config == kLuRegisterRows16) return go(getrf_register_rows<S, 16, 2>, 32 * WPB, blocks, 0);
    return s.fail(BLAS_BATCHED_ERR_DEVICE);
  }
  if (lu_is_register(config)) {
    int st = -1;  // every register side is compiled: the lambda runs
    with_register_side<2, kLuRegisterMax>(lu_register_side(config), [&](auto side) {
      constexpr int K = decltype(side)::value;
      constexpr int WPB = lu_warps_per_block(lu_register_config(K));
      const int64_t blocks = (units + WPB - 1) / WPB;
      if (routine == LuRoutine::getrf_getri) {
        if constexpr (K <= kLuThreadMaxSide) {
          if constexpr (kLuStageable<S, K>)
            if (lu_thread_staging()) st = go(getrf_getri_thread<S, K, true>, 32 * WPB, blocks, 0);
          if (st == -1) st = go(getrf_getri_thread<S, K, false>, 32 * WPB, blocks, 0);
        }
        else if constexpr (lu_one_pass_inverse(kPrec, K)) st = go(getrf_getri_register<S, K>, 32 * WPB, blocks, 0);
      } else if constexpr (K <= kLuThreadMaxSide) {
        if constexpr (kLuStageable<S, K>)
          if (lu_thread_staging())
            st = getrf ? go(getrf_thread<S, K, true>, 32 * WPB, blocks, 0) : go(getri_thread<S, K, true>, 32 * WPB, blocks, 0);
        if (st == -1)
          st = getrf ? go(getrf_thread<S, K, false>, 32 * WPB, blocks, 0) : go(getri_thread<S, K, false>, 32 * WPB, blocks, 0);
      } else {
        st = getrf ? go(getrf_register<S, K>, 32 * WPB, blocks, 0)
                   : register_getri(side, std::integral_constant<int, WPB>{}, std::false_type{}, side);
      }
    });
    return st == -1 ? s.fail(BLAS_BATCHED_ERR_DEVICE) : st;
  }
  if (lu_is_shared(config)) {
    const int bytes = lu_shared_elements(config) * int(sizeof(CT));
    return getrf ? go(getrf_shared<S, true>, kLuSharedThreads, units, bytes)
                 : go(getri_shared<S, true>, kLuSharedThreads, units, bytes);
  }
  if ((config == kLuPanel || config == kLuPanelNarrow) && getrf) {
    // As many warps as one run's rows need (every panel launch has one run, by value).
    auto panel = [&](auto width) {
      constexpr int K = decltype(width)::value;
      constexpr int kMaxThreads = lu_panel_max_threads(int(sizeof(CT)), K), kPasses = lu_panel_permute_passes(kPrec, K);
      const int threads = table_host && count == 1 ? std::min(kMaxThreads, (table_host[0].m + 31) / 32 * 32) : kMaxThreads;
      if constexpr (lu_panel_unrolled_built(int(sizeof(CT)), K))
        if (!lu_panel_rolled(kPrec, K)) return go(getrf_panel<S, K, false, kPasses>, threads, units, 0);
      // Any row-major run (or runs the host cannot see) takes the row-major stage and instance.
      const bool row_major = !table_host || std::any_of(table_host, table_host + count, [](const FactorRun &r) { return r.row_major; });
      const int rolled_bytes = lu_panel_rolled_shared_bytes(K, threads, int(sizeof(CT)), row_major);
      auto rolled = [&](auto staged) {
        constexpr bool kStaged = decltype(staged)::value;
        if constexpr (lu_panel_halves_built(kPrec, K))
          if (lu_panel_halves(kPrec, K, threads)) {
            if (!row_major) return go(getrf_panel<S, K, true, kPasses, kStaged, false, true>, threads, units, rolled_bytes);
            return go(getrf_panel<S, K, true, kPasses, kStaged, true, true>, threads, units, rolled_bytes);
          }
        if constexpr (lu_panel_column_major_instance(int(sizeof(CT))))
          if (!row_major) return go(getrf_panel<S, K, true, kPasses, kStaged, false>, threads, units, rolled_bytes);
        return go(getrf_panel<S, K, true, kPasses, kStaged>, threads, units, rolled_bytes);
      };
      if constexpr (lu_panel_permute_staged(int(sizeof(S)), int(sizeof(CT))))
        if (table_host && count == 1 && lu_panel_staged(kPrec, threads, panel_outside_count(table_host[0])))
          return rolled(std::true_type{});
      return rolled(std::false_type{});
    };
    if (config == kLuPanel) return panel(std::integral_constant<int, kLuPanelWideWidth>{});
    return panel(std::integral_constant<int, kLuPanelNarrowWidth>{});  // kLuPanelNarrow (lu_blocked_panel_width, lu_panel_left_over_narrow)
  }
  if (config == kLuDeferredSwaps && getrf) {
    int rows = table_host ? 0 : kLuDeferredMaxRows;  // the runs' tallest (several outer blocks in one launch)
    for (int i = 0; table_host && i < count; ++i) rows = std::max(rows, table_host[i].m);
    rows = std::min(kLuDeferredMaxRows, rows);
    // A launch's runs share the matrix's layout; column-major needs only a warp's column each.
    const bool column_major = table_host && !table_host[0].row_major;
    const int per_row = column_major ? kLuDeferredThreads / 32 : lu_deferred_stage_per_row(int(sizeof(S)));
    return go(getrf_deferred_swaps<S>, kLuDeferredThreads, units, per_row * rows * int(sizeof(S)));
  }
  if (config == kLuGlobal)
    return getrf ? go(getrf_shared<S, false>, kLuSharedThreads, units, 0)
                 : go(getri_shared<S, false>, kLuSharedThreads, units, kLuGlobalMaxN * int(sizeof(CT)));
  return s.fail(BLAS_BATCHED_ERR_DEVICE);
}

#define BB_LU_DECLARE(S, EXTERN)                                                                             \
  EXTERN template int lu_launch_typed<S>(Session &, LuRoutine, int, const FactorRun *, const FactorRun *, const int32_t *, \
                                         int, int64_t, uint32_t);

}  // namespace bb::cuda
