// Batched Cholesky (potrf) on operands already in device memory: the core that the device
// layer's potrf adapter drives. Plain C++ (the kernels live in chol.cu).
//
// Kernel families (chol_tuning.hpp names the configurations and every crossover):
//   register (n <= 32)  chol/potrf_register.cuh: a row or a column of the factor per thread in
//                       registers (whichever loads coalesce), several problems per warp and
//                       warps per block; r16 and r32 up to n = 64 with two rows per thread.
//   blocked  (larger, r32/r64/c32/c64)  potrf_blocked below: diagonal blocks by
//                       chol/potrf_diag.cuh, the rows below them through the gemm and trsm
//                       cores, on sub-blocks of the run's own operands.
//   block    (larger: half precisions; runs of few problems in calls of many runs)
//                       chol/potrf_block.cuh: one thread block per problem, the referenced
//                       triangle staged in shared memory, or in place in global memory above
//                       what fits.
#pragma once
#include "../factor_run.hpp"
#include "../session.hpp"

namespace bb::cuda {

// The configuration for an n x n problem, its units (a kernel's tasks) per run and per block.
int chol_config(DevPrec p, int n);
int64_t chol_units(const FactorRun &r, int config);
int chol_units_per_block(int config);

// Whether potrf of order n takes the blocked algorithm, from the host: the driver's
// adapter-driven runs (which of its runs do: factor_blocked_run).
bool chol_blocked(DevPrec p, int n);
// Whether the register kernel of side K (24 or 32) runs its rolled form (chol_rolled_takes, or
// from BLAS_BATCHED_CHOL_ROLLED_MIN on, read once per process).
bool chol_rolled(DevPrec p, int side);
// Whether potrf of a group of `problems` problems of order n under the native backend goes to
// cuSOLVER's potrfBatched (where factor_vendor_ok takes the shape): chol_vendor_takes in
// chol_tuning.hpp, or BLAS_BATCHED_CHOL_VENDOR_MIN=<order> for every precision and count.
bool chol_native_vendor(DevPrec p, int n, int64_t problems);
// Whether the native backend's potrf of a group of `problems` problems of order n goes to
// cuSOLVER's potrf one problem at a time, either triangle (`batched_takes`: potrfBatched takes
// the group's shape; chol_solver_min_order in chol_tuning.hpp, or BLAS_BATCHED_CHOL_SOLVER_MIN;
// false without cuSOLVER).
bool chol_native_solver(DevPrec p, int n, int64_t problems, bool batched_takes);
// potrf of one run by blocks of columns on the session's stream: the diagonal block's kernel,
// the gemm core and the trsm core, on sub-blocks of the run's own operands (no upload; from
// kCholDiagGemmMinOrder an nb x nb block of workspace per problem, done without where the
// pool has none). No sync.
int potrf_blocked(Session &s, DevPrec p, const FactorRun &r, bool vendor_backend);

// One launch of `config` over `count` runs, as lu_launch.
int chol_launch(Session &s, DevPrec p, int config, const FactorRun *table_host, const FactorRun *table_device,
                const int32_t *block_first, int count, int64_t units);

}  // namespace bb::cuda
