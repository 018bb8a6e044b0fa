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
  // Array form: entries may be NULL (problems the kernels skip). The library's kernels check
  // each entry; the pointer lists built for cuBLAS (gemm.cu) would not.
  bool maybe_null = true;
};

// Operand o moved by `offset` elements of `elem` bytes in every problem's matrix (a sub-block;
// the pointer array itself untouched).
inline DevOperand moved(DevOperand o, int64_t offset, int elem) {
  if (o.array) o.step += offset;
  else o.p = static_cast<const char *>(o.p) + offset * elem;
  return o;
}
// Operand o for the problems from problem `from` on (a later part of its batch).
inline DevOperand from_problem(DevOperand o, int64_t from, int elem) {
  if (!o.p) return o;
  if (o.array) o.p = static_cast<const char *const *>(o.p) + from;
  else o.p = static_cast<const char *>(o.p) + from * o.step * elem;
  return o;
}
// Operand o (column-major) moved to its sub-block at (row i, column j).
inline DevOperand sub_block(DevOperand o, int i, int j, int elem) { return moved(o, i + int64_t(j) * o.ld, elem); }

}  // namespace bb::cuda
