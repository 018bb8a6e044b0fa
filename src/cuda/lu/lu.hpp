// Batched LU on operands already in device memory: getrf (A = P L U, partial pivoting) and
// getri (A = inv(A) from getrf's output), the core that the device layer's getrf and getri
// adapters drive. Plain C++ (the kernels live in the .cu files).
//
// Kernel families (lu_tuning.hpp names the configurations and every crossover):
//   register (m, n <= 32)  lu/getrf_register.cuh, lu/getri_register.cuh: one matrix row per
//                          thread in registers, several problems per warp and warps per block;
//                          lu/getrf_register_rolled.cuh and getri_register.cuh's ROLLED form: orders
//                          17..32 (where lu_rolled_takes), the steps in a loop instead of unrolled.
//   blocked  (getrf, larger)  getrf_blocked below, on two levels (outer blocks of panels):
//                          panels by lu/getrf_panel.cuh (a row per thread in registers), the
//                          rest through the trsm and gemm cores.
//            (getri, larger; r32, c32, r64 from 33, c64 from 64)  lu/getri_blocked.cu: the
//                          triangles' inverses and their product by recursions on the trsm,
//                          trmm and gemm cores; r32, r64 up to 64 and c32 up to 48 in one
//                          kernel (getri_lanes).
//   shared   (getri, larger; getrf's runs of few problems in calls of many runs, and its
//            panels taller than 512 rows)  lu/getrf_shared.cuh, lu/getri_shared.cuh: one
//                          thread block per problem, the whole matrix in shared memory; above
//                          what fits, the same algorithm on the matrix in global memory.
#pragma once
#include "../factor_run.hpp"
#include "../session.hpp"

#include <cstdint>

namespace bb::cuda {

// getrf_getri: the inverse in one call (SPEC.md 9.4) on getri's configurations: the one-pass
// kernel where lu_one_pass_inverse says so, else getrf's kernel then getri's on the same runs.
enum class LuRoutine : uint8_t { getrf, getri, getrf_getri };

// Units (a kernel's tasks) of a run under a configuration, and units per thread block.
int64_t lu_units(const FactorRun &s, int config);
int lu_units_per_block(DevPrec p, LuRoutine r, int config);
// The configuration for a run of this shape (lu_tuning.hpp).
int lu_config(DevPrec p, LuRoutine r, int m, int n);
// getri's configuration of order n among the kernels that keep codes already written (the
// shared and global ones, FactorRun::keep_codes): the smallest shared one below those.
int lu_codes_keeping_config(DevPrec p, int n);
// Whether the device can take the shape at all (getri keeps a work vector of n elements in
// shared memory: n <= kLuGlobalMaxN).
bool lu_supported(LuRoutine r, int n);
// Whether getrf_getri takes the one-pass kernel for register side K (lu_tuning.hpp), unless
// BLAS_BATCHED_LU_ONE_PASS=0 (A/B against the two kernels; read once per process).
bool lu_one_pass(DevPrec p, int K);
// Whether blocked getrf's panels of width K take getrf_panel's rolled form (lu_panel_rolled_takes;
// BLAS_BATCHED_LU_PANEL_ROLLED=1 or 2 forces it on or off, an A/B switch read once per process;
// asked only where both forms are built, lu_panel_unrolled_built).
bool lu_panel_rolled(DevPrec p, int K);
// Whether a rolled panel of that many threads, with `outside` columns outside it, permutes them
// through shared memory (lu_panel_staged_takes; BLAS_BATCHED_LU_PANEL_STAGED_MAX_OUTSIDE=<columns>
// sets lu_panel_staged_max_outside for an A/B; read once per process).
bool lu_panel_staged(DevPrec p, int threads, int outside);
// Whether a rolled panel K wide on `threads` threads runs as two halves (lu_panel_halves_takes: c64's
// 32-wide of up to kLuPanelHalvesMaxThreads rows; BLAS_BATCHED_LU_PANEL_HALVES=2 turns them off
// for an A/B, read once per process).
bool lu_panel_halves(DevPrec p, int K, int threads);
// Whether blocked getrf's panel of at most 16 columns in a run of 32-wide panels (the columns left
// over, or a matrix that narrow) takes the 16-wide kernel (lu_panel_left_over_narrow_takes; BLAS_BATCHED_LU_PANEL_NARROW_LEFT_OVER=1
// or 2 forces it on or off, an A/B switch read once per process).
bool lu_panel_left_over_narrow(DevPrec p);
// Whether routine r of order `side` (max(m, n)) takes the rolled kernels (lu_rolled_takes, or
// from BLAS_BATCHED_LU_ROLLED_MIN on, read once per process).
bool lu_rolled(DevPrec p, LuRoutine r, int side);
// Whether such a rolled getrf or getri (any precision) takes rows of kLuRolledNarrowRow registers (lu_rolled_narrow_takes,
// unless BLAS_BATCHED_LU_ROLLED_NARROW=0, read once per process).
bool lu_rolled_narrow(LuRoutine r, int side);
// Whether such a narrow one takes rows of kLuRolledShortRow registers instead (lu_rolled_short_takes,
// unless BLAS_BATCHED_LU_ROLLED_SHORT=0, read once per process).
bool lu_rolled_short(LuRoutine r, int side);
// getrf's configuration on the rows kernel for order `side` (max(m, n)), lu_rows_config, or
// kLuNoRows; all kLuNoRows under BLAS_BATCHED_LU_ROWS=0 (A/B; read once per process).
int lu_rows(DevPrec p, LuRoutine r, int side);
// Whether the one-problem-per-thread kernels stage a warp's matrices through shared memory
// (BLAS_BATCHED_LU_STAGE=0: not; an experiment's A/B switch, read once per process).
bool lu_thread_staging();

// Whether getri of order n under the native backend goes to the vendor library (where
// factor_vendor_ok takes the shape): lu_getri_vendor_min_order in lu_tuning.hpp, or
// BLAS_BATCHED_LU_GETRI_VENDOR_MIN=<order> for every precision (tuning; read once per process).
bool lu_getri_native_vendor(DevPrec p, int n);
// Whether getri of order n takes the blocked algorithm (getri_blocked; lu_tuning.hpp), or
// BLAS_BATCHED_LU_GETRI_BLOCKED_MIN=<order> (tuning; read once per process).
bool lu_getri_blocked(DevPrec p, int n);
// Whether getri_blocked takes order n in one kernel (lu_getri_lanes_takes), unless
// BLAS_BATCHED_LU_GETRI_LANES=0 (A/B; read once per process).
bool lu_getri_lanes(DevPrec p, int n);
// Whether the native backend's getrf of a run of `problems` square column-major problems of
// order n goes to cuSOLVER one problem at a time (lu_solver_min_order in lu_tuning.hpp, or
// BLAS_BATCHED_LU_SOLVER_MIN=<order> for any count; false without cuSOLVER).
bool lu_getrf_native_solver(DevPrec p, int n, int64_t problems);
// Whether getrf of this shape takes the blocked algorithm (getrf_blocked), from the host: the
// driver's adapter-driven runs (which of its runs do: factor_blocked_run).
bool lu_blocked(DevPrec p, int m, int n);
// getrf of one run by panels on the session's stream: the panel kernel, the trsm core on the
// block row of U, the gemm core on the trailing matrix, on sub-blocks of the run's own operands
// (no upload, no workspace); where lu_deferred_swaps_takes, the interchanges on the columns left
// of an outer block in a pass at the end (getrf_deferred_swaps). No sync.
int getrf_blocked(Session &s, DevPrec p, const FactorRun &r, bool vendor_backend);
// The inverse in one call of one run whose getrf is blocked: getrf_blocked, then getri_blocked
// where getri's call would block (lu_getri_blocked), else getri's kernel, on the factors with the
// codes getrf wrote kept (FactorRun::keep_codes). No sync.
int getrf_getri_blocked(Session &s, DevPrec p, const FactorRun &r, bool vendor_backend);
// getri of one run by blocks (getri_blocked.cu): the checks of every problem first (a failed
// one computes in scratch and stays as it was), then inv(U) and inv(L) and their product in place
// through the trsm, trmm and gemm cores, then the column interchanges (r32 and r64 of orders
// 33..64, c32 of 33..48: one kernel for those steps, lu_getri_lanes). Workspace: a pointer and
// n ints per problem and one matrix of scratch; where none can be had, getri's one-block kernel
// runs instead (the same semantics). As an adapter-driven run it finds the codes and info
// zeroed or holding the driver's -k (or getrf's codes, in the inverse in one call): it skips a
// problem with a negative one and writes a code only where none is, so it behaves as
// FactorRun::keep_codes says whether or not that is set. No sync.
int getri_blocked(Session &s, DevPrec p, const FactorRun &r, bool vendor_backend);
// getrf of one run by the unblocked kernel of its shape, launched from the host.
int getrf_unblocked(Session &s, DevPrec p, const FactorRun &r);

// One launch of `config` over `count` runs (their unit_begin set): by value when count <=
// kFactorInlineRuns (`table_host`), else a table in device memory with `block_first` (the run of
// each block's first unit). `common`: the factor_run_flags bits every run has (0 claims none).
// Returns a status.
int lu_launch(Session &s, DevPrec p, LuRoutine r, int config, const FactorRun *table_host, const FactorRun *table_device,
              const int32_t *block_first, int count, int64_t units, uint32_t common);

}  // namespace bb::cuda
