// What every device kernel family shares on the host side: the device precisions and how a
// run of problems addresses one matrix operand. Plain C++.
#pragma once
#include <cstdint>

namespace bb::cuda {

enum class DevPrec : uint8_t { r16, c16, r32, c32, r64, c64 };
constexpr int elem_bytes(DevPrec p) {
  switch (p) {
    case DevPrec::r16: return 2;
    case DevPrec::c16: case DevPrec::r32: return 4;
    case DevPrec::c32: case DevPrec::r64: return 8;
    case DevPrec::c64: return 16;
  }
  return 0;
}

// One matrix operand of a run of problems: problem i's matrix starts at
//   base + i * stride          (elements; strided form, `array` false), or at
//   array_ptrs[i] + offset     (a pointer array in device memory, `array` true),
// a column-major block with leading dimension ld. `offset` moves every matrix to a sub-block
// (row i0, column j0: offset = i0 + j0 * ld) without touching the pointer array.
struct DevOperand {
  const void *p = nullptr;  // base, or the device pointer array
  int64_t step = 0;         // stride (strided form) or offset (array form), in elements
  int ld = 1;
  bool array = false;
};

}  // namespace bb::cuda
