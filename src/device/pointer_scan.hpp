// The host pass's read of the API's pointer arrays (device_run.hpp scan_range), apart so that it
// is compiled for each instruction set.
#pragma once

#include <cstdint>

namespace bb::device {

constexpr int kScanArraysMax = 3;  // the adapters' kOperands at most

// Over problems [lo, hi) of n (0..kScanArraysMax) pointer arrays q[j] (numbered from the
// segment's first problem): ORs into off[j] the bits where q[j][i] differs from
// base[j] + i * step[j] and into ors[j] the addresses; returns whether one of them is NULL.
// Cloned for AVX-512, AVX2 and baseline x86-64 (the loader picks): at the baseline the loop
// does not vectorize (no 64-bit compare) and 16 threads of the H200 host read 69 GB/s of
// pointers, with AVX-512 211 GB/s, more than the 95 of a plain baseline read
// (tools/micro/scan_bench.cpp, 2026-11-29).
bool scan_pointers(int n, const std::uintptr_t *const *q, const std::uintptr_t *base, const std::uintptr_t *step,
                   std::int64_t lo, std::int64_t hi, std::uintptr_t *off, std::uintptr_t *ors);

// The same for one problem, i: inline, for groups of one problem (a call per group through the
// clones' dispatch and their loops' set-up cost more than the three loads it reads).
inline bool scan_one_problem(int n, const std::uintptr_t *const *q, const std::uintptr_t *base,
                             const std::uintptr_t *step, std::int64_t i, std::uintptr_t *off, std::uintptr_t *ors) {
  bool nulls = false;
  for (int j = 0; j < n; ++j) {
    const std::uintptr_t a = q[j][i];
    off[j] |= a ^ (base[j] + std::uintptr_t(i) * step[j]), ors[j] |= a, nulls = nulls || a == 0;
  }
  return nulls;
}

}  // namespace bb::device
