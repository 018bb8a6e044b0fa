#include "pointer_scan.hpp"

namespace bb::device {

namespace {
// The arrays in one loop: their streams in flight at once (a loop per array read cold arrays one
// after the other: 9 us for 1000 problems of three arrays on the H200 host). The expected address
// from the range's first, so that the product stays within the vector lanes' reach.
template <int N>
inline bool scan_fixed(const std::uintptr_t *const *q, const std::uintptr_t *base, const std::uintptr_t *step,
                       std::int64_t lo, std::int64_t hi, std::uintptr_t *off, std::uintptr_t *ors) {
  const std::uintptr_t *p[N];
  std::uintptr_t first[N], s[N], o[N] = {}, r[N] = {}, nulls = 0;
  for (int j = 0; j < N; ++j) p[j] = q[j], s[j] = step[j], first[j] = base[j] + std::uintptr_t(lo) * s[j];
  for (std::int64_t i = lo; i < hi; ++i)
    for (int j = 0; j < N; ++j) {
      const std::uintptr_t a = p[j][i];
      o[j] |= a ^ (first[j] + std::uintptr_t(i - lo) * s[j]), r[j] |= a, nulls |= a == 0;
    }
  for (int j = 0; j < N; ++j) off[j] |= o[j], ors[j] |= r[j];
  return nulls != 0;
}
}  // namespace

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(BB_SANITIZE)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), flatten))
#endif
bool scan_pointers(int n, const std::uintptr_t *const *q, const std::uintptr_t *base, const std::uintptr_t *step,
                   std::int64_t lo, std::int64_t hi, std::uintptr_t *off, std::uintptr_t *ors) {
  switch (n) {
    case 0: return false;
    case 1: return scan_fixed<1>(q, base, step, lo, hi, off, ors);
    case 2: return scan_fixed<2>(q, base, step, lo, hi, off, ors);
    default: static_assert(kScanArraysMax == 3); return scan_fixed<3>(q, base, step, lo, hi, off, ors);  // n <= 3 (the caller's static_assert)
  }
}

}  // namespace bb::device
