// Batched Householder QR (geqrf) on operands already in device memory: the core that the
// device layer's geqrf adapter drives. Plain C++ (the kernels live in qr.cu).
//
// Kernel families (qr_tuning.hpp names the configurations and every crossover):
//   thread   (m, n <= 4)   qr/geqrf_thread.cuh: one problem per thread, 32 per warp.
//   register (m, n <= 32)  qr/geqrf_register.cuh: one column per thread in registers, the
//                          reflector built by the problem's threads together, several
//                          problems per warp and warps per block.
//   block    (larger)      qr/geqrf_block.cuh: one thread block per problem, the matrix staged
//                          in shared memory, or in place in global memory above what fits.
//   blocked  (min(m, n) from kQrBlockedMinSide, r32/r64/c32/c64)  qr/geqrf_blocked.cu: panels
//                          by the kernels above, updates through the gemm core.
// Both apply LAPACK's xlarfg conventions exactly (qr/larfg.cuh).
#pragma once
#include "../factor_run.hpp"
#include "../session.hpp"

namespace bb::cuda {

// The configuration for an m x n problem, its units (a kernel's tasks) per run and per block.
int qr_config(DevPrec p, int m, int n);
int64_t qr_units(const FactorRun &r, int config);
int qr_units_per_block(int config);

// One launch of `config` over `count` runs, as lu_launch.
int qr_launch(Session &s, DevPrec p, int config, const FactorRun *table_host, const FactorRun *table_device,
              const int32_t *block_first, int count, int64_t units);

// Whether an m x n problem takes the blocked algorithm (BLAS_BATCHED_QR_BLOCKED_MIN=<order>
// moves the crossover on min(m, n), for tuning sweeps), and the algorithm on one run, from the
// host (geqrf_blocked.cu), its workspace taken in batches of problems of at most
// workspace_bytes. Without workspace (none to be had, or the stream being captured) it runs
// the unblocked kernels.
// What the pool keeps between calls (more would go back to the driver at the call's end and be
// allocated again by the next), less the room of the pointer lists' alignment.
constexpr int64_t kQrWorkspaceBytes = int64_t(Session::kWorkspaceKept) - 16;
bool qr_blocked(DevPrec p, int m, int n);
int geqrf_blocked(Session &s, DevPrec p, const FactorRun &r, bool vendor_backend,
                  int64_t workspace_bytes = kQrWorkspaceBytes);

}  // namespace bb::cuda
