// Batched gemm on operands already in device memory: the core that the device layer's gemm
// adapter drives, and that blocked factorizations and recursive trsm/trmm call on sub-blocks.
// Plain C++ (the kernels live in the .cu files). Everything here is column-major: a row-major
// caller transposes the problem first (src/common/column_major.hpp).
#pragma once
#include "../device_operand.hpp"
#include "../session.hpp"

#include <cstdint>

namespace bb::cuda {

// A run of problems that share their parameters (a group, or its part in one chunk): what the
// kernels read, the same bytes for every precision (scalars as double pairs).
struct GemmSeg {
  int64_t unit_begin = 0;  // first unit (a team's task) of the run in its launch; set by planning
  int64_t problems = 0;
  int m = 0, n = 0, k = 0;
  uint8_t ta = 0, tb = 0;       // 0 N, 1 T, 2 C
  uint8_t read_ab = 0, read_c = 0;  // alpha != 0 and k > 0; beta != 0
  double alpha[2] = {0, 0}, beta[2] = {0, 0};
  DevOperand A, B, C;
  // Device info of the run's problems (strided calls with info in device memory): each gets
  // its 0 from the kernel that computes it, instead of a memset of its own. Null: untouched.
  int *info = nullptr;
};

constexpr int kConfigVendor = -1;  // the run goes to cuBLAS
constexpr int kGemmConfigCount = 19;  // GemmConfig (gemm_tuning.hpp) names them
// Runs of fewer problems never go to cuBLAS in the native backend (one call per run would
// cost more than the kernels lose), unless large enough on their own: kVendorMinProblems and
// vendor_pays in gemm_tuning.hpp (the core, gemm() below, in r32 and r64: kCoreVendorMinWork).
constexpr int64_t kVendorMinProblemsRun = 64;

// What planning needs to know of a kernel configuration (gemm_tuning.hpp names them).
struct GemmShapeInfo {
  bool built = false;   // compiled for this precision
  bool flat = false;    // one team per problem, contiguous 16-byte aligned matrices only
  int tile = 0;         // tiled: a team's tile of C is tile x tile
  int max_elements = 0; // flat: largest matrix (elements); exact shapes: n x n x n exactly
  int exact = 0;
  int teams_per_block = 1;
  bool mergeable = false;  // can share a launch with others (gemm_launch_merged)
};
GemmShapeInfo gemm_shape(DevPrec p, int config);

// The tuned configuration for a run of `problems` problems of this shape (never cuBLAS for
// runs too short to pay for a cuBLAS call, nor for precisions cuBLAS lacks).
int gemm_config(DevPrec p, int m, int n, int k, int64_t problems, bool vendor_backend);
bool gemm_has_vendor(DevPrec p);
// Reads BLAS_BATCHED_GEMM_CONFIG (a configuration index or "vendor", for tuning sweeps): once
// per call, before planning.
void gemm_read_overrides();
// Whether the flat kernels can serve a run: contiguous matrices (ld = rows) whose sizes and
// addresses are multiples of 16 bytes, none larger than max_elements.
bool gemm_flat_ok(const GemmSeg &s, int elem, int max_elements, bool addresses_aligned);
// Whether cuBLAS can take a run: a precision it has, alpha != 0 and k > 0 (cuBLAS in half lets
// NaN in A or B through when alpha = 0); where the core must build pointer lists for it (array
// operands at offsets, or arrays beside an evenly spaced operand), no array that may hold NULL
// and no r16; no negative stride. Only the core, gemm() below, builds lists: gemm_vendor takes
// one form as given.
bool gemm_vendor_ok(DevPrec p, const GemmSeg &g);
// The library kernel for a run: the tuned one (the fallback where the table says cuBLAS), flat
// kernels only for contiguous aligned runs (exact n x n x n ones unrolled). `aligned`: every
// address of the run is a multiple of 16 bytes.
int gemm_kernel_config(DevPrec p, const GemmSeg &g, bool aligned);
// Units (team tasks) of a run under a configuration: problems x tiles.
int64_t gemm_units(const GemmSeg &s, const GemmShapeInfo &shape);

// One launch of configuration `config` over `count` runs whose unit_begin are set. The table is
// either passed by value (count <= kInlineSegs: `table_host`) or read from device memory
// (`table_device`, with `block_first`: for each block of teams_per_block units, the run that
// holds its first unit; or null, and each team searches the whole table). Returns a status.
constexpr int kInlineSegs = 8;
int gemm_launch(Session &s, DevPrec p, int config, const GemmSeg *table_host,
                const GemmSeg *table_device, const int32_t *block_first, int count, int64_t units);

// Several configurations' runs in one launch, each configuration's table in device memory (the
// configurations gemm_shape calls mergeable; each part's blocks follow the previous part's).
// For chunks whose configurations have few blocks each, where launches, not kernels, cost the
// time. Returns a status.
struct GemmLaunchPart {
  int config = 0, count = 0;
  int64_t units = 0;
  int64_t block_begin = 0;  // set by gemm_launch_merged
  const GemmSeg *table = nullptr;
  const int32_t *block_first = nullptr;
};
int gemm_launch_merged(Session &s, DevPrec p, GemmLaunchPart *parts, int count);

// cuBLAS on one run, all operands strided or all arrays without offsets. Returns a status.
int gemm_vendor(Session &s, DevPrec p, const GemmSeg &run);

// The whole core call for a few runs (blocked algorithms, recursion): configurations from the
// tuning table, tables through the session's scratch, one launch per configuration in use,
// cuBLAS for vendor runs. `aligned[i]` says whether run i's addresses are 16-byte aligned.
int gemm(Session &s, DevPrec p, GemmSeg *runs, const bool *aligned, int count, bool vendor_backend);

}  // namespace bb::cuda
