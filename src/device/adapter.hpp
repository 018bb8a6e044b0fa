// What a routine provides to run on the GPU: its adapter. The device driver (device_run.hpp)
// knows only device groups, chunks of problems and runs of them (segments); an adapter says how
// a group becomes the core's description, which pointer arrays its kernels read per problem,
// and how a chunk's runs are enqueued. Adding a routine on the GPU means writing its kernels and
// one Adapter specialization.
#pragma once
#include "../api/calls.hpp"
#include "../dispatch/backend.hpp"
#include "../cuda/device_operand.hpp"

#include <cstdint>

namespace bb::device {

// What planning may make of a run besides a kernel configuration (0, 1, ...).
constexpr int kRunVendor = -1;   // the adapter's vendor library takes it
constexpr int kRunNothing = -2;  // nothing to compute (an empty output)

// A run of consecutive problems of one device group inside one chunk.
struct Segment {
  int group = 0;          // index into the driver's device groups
  int64_t first = 0;      // first problem, in the call's numbering
  int64_t count = 0;
  int64_t chunk_pos = 0;  // its first problem's place among the chunk's problems
  // What the chunk's pointer pass found:
  bool strided = true;    // operand o of problem first + i sits at ptr[o] + i * stride[o]
  bool device_array = false;  // the kernels read the caller's pointer arrays in device memory
  int64_t stride[4] = {};  // bytes
  const void *base[4] = {};
  std::uintptr_t address_bits = 0;  // OR of every address: their common alignment
  int64_t skipped = 0;    // problems with a NULL pointer (info -k, not run)
  int64_t chunk_runs = 0;  // runs in the chunk (set before plan_config: adapter-driven runs go
                           // one after another)
  bool capturing = false;  // the call is being captured into a graph (set before plan_config)
  // Filled by planning:
  int64_t ptr_index = -1;  // first problem's entry in the chunk's uploaded pointer block, or -1
  // Device pointer arrays for the vendor library: its first entry in the chunk's checked copy
  // (NULL problems pointed at scratch, which the library computes and nobody reads), or -1.
  int64_t checked_index = -1;
  int config = 0;
  int64_t units = 0, unit_begin = 0, table_pos = 0;
};

// Where a chunk's runs find their device data (null while planning).
struct ChunkPlace {
  const char *pointer_block = nullptr;  // the device copy of the chunk's pointer arrays
  int64_t block_problems = 0;
  int *codes = nullptr;  // the chunk's info codes, one per problem in chunk order (routines
                         // with numerical info: a run's start at codes + Segment::chunk_pos)
  int *zero_info = nullptr;  // call-numbered device info whose zeros the kernels write, or null
  const char *checked_block = nullptr;  // the checked copy of device pointer arrays: one array
  int64_t checked_problems = 0;         // of checked_problems entries per pointer argument
};

// Operand o (pointer argument `arg`, array `array`, elements of `elem` bytes) of a segment's
// run: in the chunk's uploaded pointer block, in the checked copy of device pointer arrays
// (adapter-driven runs), in the caller's device pointer arrays, or evenly spaced from s.base[o].
inline void place_operand(cuda::DevOperand &op, int o, int arg, const void *const *array, int64_t elem,
                          const Segment &s, const ChunkPlace &place) {
  constexpr int64_t ptr = sizeof(void *);
  op.step = 0, op.array = true, op.maybe_null = true;
  if (s.ptr_index >= 0) {
    op.p = place.pointer_block + (o * place.block_problems + s.ptr_index) * ptr;
    op.maybe_null = s.skipped > 0;  // the host pass wrote the block: NULL only for skipped problems
  } else if (s.checked_index >= 0) {
    op.p = place.checked_block + (arg * place.checked_problems + s.checked_index) * ptr;
    op.maybe_null = false;  // NULL entries lead to the scratch
  } else if (s.device_array) op.p = array + s.first;
  else op.p = s.base[o], op.step = s.stride[o] / elem, op.array = false;
}

// Whether a segment's run can take the strided form: evenly spaced, no NULL problem (those need
// the array form, where the kernels skip them), and every operand in `used` (bit o: operand o)
// spaced by a whole number of its elements (elem[o] bytes).
inline bool strided_form_ok(const Segment &s, unsigned used, int operands, const int64_t *elem) {
  if (!s.strided || s.skipped || s.device_array) return false;
  for (int o = 0; o < operands; ++o)
    if ((used >> o & 1u) && s.stride[o] % elem[o]) return false;
  return true;
}

// One configuration's runs in a merged launch (an adapter with kMergedLaunch): its table and
// blocks' first runs in device memory. No run flags (A::launch's `common`): an adapter that
// chooses kernels by them must not merge (gemm, the one that merges, has none).
struct MergedPart {
  int config = 0, count = 0;
  int64_t units = 0;
  const void *table = nullptr;
  const int32_t *block_first = nullptr;
};

// No device path: device-resident data makes the call return BLAS_BATCHED_ERR_UNSUPPORTED.
template <class Call>
struct Adapter {
  static constexpr bool supported = false;
  static constexpr bool native = false;
  static constexpr int kOperands = 1, kConfigs = 1, kInline = 1;
  static constexpr bool kNumericInfo = false;  // kernels write info codes (the info channel)
  static constexpr bool kZeroesInfo = false;   // kernels can write a device info's zeros
  // Configurations with few blocks in a chunk share one launch (launch_merged, mergeable(c),
  // merge_blocks(session): the most blocks a configuration may have to take part).
  static constexpr bool kMergedLaunch = false;
  struct Group {};
  using Run = int;
  static void start_call() {}
  template <class C> static bool group_ok(const C &, int) { return true; }
};

}  // namespace bb::device
