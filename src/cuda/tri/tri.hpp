// Batched trsm and trmm on operands already in device memory: the core that the device layer's
// triangular adapter drives. Plain C++ (the kernels live in tri.cu).
//
// Everything is column-major (a row-major caller transposes the problem first:
// src/common/column_major.hpp). Two paths (tri_tuning.hpp names the configurations):
//   leaf       (triangle order <= 32; 33 in r32, and r16 trsm: tri_leaf_max; the caller's c64
//              trsm groups of 30..32 with 4096 problems or more by the recursion:
//              tri_group_recursive) tri/tri_leaf.cuh:
//              one line of B per thread in registers
//              (a column for side Left, a row for Right), the triangle staged in shared memory,
//              several problems per warp; B read and written once, A's triangle read once per
//              32 lines of B.
//   recursive  (larger)  tri_recursive() below: the triangle split in two, a half-size call, a
//              gemm through the library's gemm core on the off-diagonal block, the other half;
//              in place, no workspace; leaves as above (KBLAS's driver/kernel split). A run of
//              order n costs about 2n / L launches (a leaf per L rows, a gemm between; L =
//              tri_recursion_leaf(): 16 for c64 trsm, 32 otherwise).
//   diagonal blocks  (one large triangle: tri_by_diagonal_blocks in tri_tuning.hpp) the
//              recursion down to nb-blocks only (nb = tri_inverse_block(order)), each one
//              product (a gemm on a copy, or cuBLAS's trmm in place) with the block's inverse
//              (trsm) or full copy (trmm), all computed beforehand in one batched recursion;
//              workspace order x nb (+ nb x lines for the copies) elements from a pool of the
//              library's own.
#pragma once
#include "../factor_run.hpp"  // BB_HOST_DEVICE
#include "../device_operand.hpp"
#include "../session.hpp"

#include <cstdint>

namespace bb::cuda {

// Problems that share their parameters (a group, or its part in one chunk), column-major.
struct TriRun {
  int64_t unit_begin = 0;  // first unit of the run in its launch; set by planning
  int64_t problems = 0;
  int m = 0, n = 0;        // B is m x n; A is m x m (left) or n x n (right)
  bool left = true, lower = true, unit_diag = false, solve = true;  // solve: trsm, else trmm
  uint8_t trans = 0;       // 0 N, 1 T, 2 C
  double alpha[2] = {1, 0};
  bool zero_alpha = false; // B = 0, A not read (BLAS)
  DevOperand A, B;
  int *info = nullptr;     // device info of the run's problems: each gets its 0, or null
  bool vendor_library = false;  // the vendor backend's cuBLAS trsmBatched takes the run (cuda/vendor)
  BB_HOST_DEVICE int order() const { return left ? m : n; }
  BB_HOST_DEVICE int lines() const { return left ? n : m; }
};

constexpr int kTriInlineRuns = 8;

// The leaf configuration for a triangle of this order (<= tri_leaf_max), its units per run and
// per block.
int tri_config(int order);
int64_t tri_units(const TriRun &r, int config);
int tri_units_per_block(DevPrec p, int config);
// One launch of `config` over `count` runs, as the other kernel families.
int tri_launch(Session &s, DevPrec p, int config, const TriRun *table_host, const TriRun *table_device,
               const int32_t *block_first, int count, int64_t units);
// The whole run on the session's stream, any order: leaves and gemm core calls. No sync.
// split_top: the triangle splits even where a leaf could take it (tri_group_recursive's groups).
int tri_recursive(Session &s, DevPrec p, const TriRun &r, bool vendor_backend, bool split_top = false);

}  // namespace bb::cuda
