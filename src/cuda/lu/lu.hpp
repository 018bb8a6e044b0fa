// Batched LU on operands already in device memory: getrf (A = P L U, partial pivoting) and
// getri (A = inv(A) from getrf's output), the core that the device layer's getrf and getri
// adapters drive. Plain C++ (the kernels live in the .cu files).
//
// Kernel families (lu_tuning.hpp names the configurations and every crossover):
//   register (m, n <= 32)  lu/getrf_register.cuh, lu/getri_register.cuh: one matrix row per
//                          thread in registers, several problems per warp and warps per block.
//   shared   (larger)      lu/getrf_shared.cuh, lu/getri_shared.cuh: one thread block per
//                          problem, the whole matrix in shared memory; above what fits, the same
//                          algorithm on the matrix in global memory.
#pragma once
#include "../device_operand.hpp"
#include "../session.hpp"

#include <cstdint>

namespace bb::cuda {

enum class LuRoutine : uint8_t { getrf, getri };

// A run of problems that share their parameters. Layout stays as the caller stored it: a row
// pivoting factorization of a row-major matrix is not one of its column-major transpose.
struct LuSeg {
  int64_t unit_begin = 0;  // first unit of the run in its launch; set by planning
  int64_t problems = 0;
  int m = 0, n = 0;        // getri: m = n
  bool row_major = false;
  DevOperand A;            // ld: A's leading dimension in its layout
  DevOperand ipiv;         // ints; ld unused
  // The info channel's codes of the run's problems (zeroed before; a kernel writes only
  // non-zero codes), and the caller's info in device memory, where every problem gets its code
  // including 0 (null when info is not there).
  int *codes = nullptr;
  int *info = nullptr;
  // getri: the code of a problem whose ipiv holds an entry outside 1..n (-k, k the position of
  // ipiv in the caller's signature): checked on the device, where the host cannot read ipiv.
  int bad_pivot_code = 0;
};

constexpr int kLuInlineSegs = 8;

// Units (a kernel's tasks) of a run under a configuration, and units per thread block.
int64_t lu_units(const LuSeg &s, int config);
int lu_units_per_block(DevPrec p, LuRoutine r, int config);
// The configuration for a run of this shape (lu_tuning.hpp).
int lu_config(DevPrec p, LuRoutine r, int m, int n);
// Whether the device can take the shape at all (getri keeps a work vector of n elements in
// shared memory: n <= kLuGlobalMaxN).
bool lu_supported(LuRoutine r, int n);

// One launch of `config` over `count` runs (their unit_begin set): by value when count <=
// kLuInlineSegs (`table_host`), else a table in device memory with `block_first` (the run of
// each block's first unit). Returns a status.
int lu_launch(Session &s, DevPrec p, LuRoutine r, int config, const LuSeg *table_host, const LuSeg *table_device,
              const int32_t *block_first, int count, int64_t units);

}  // namespace bb::cuda
