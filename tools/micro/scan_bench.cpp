// The host pass's pointer scan (device_run.hpp scan_range) alone: GB/s of pointer arrays read
// by the team, per ISA, against a plain read. g++ -O3 -fopenmp scan_bench.cpp; ./a.out [problems]
#include <omp.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
struct R { uintptr_t off[3], ors[3], nulls; };
#define SCAN_BODY                                                                   \
  uintptr_t off[3] = {}, ors[3] = {}, nulls = 0;                                   \
  for (int64_t i = lo; i < hi; ++i)                                                \
    for (int j = 0; j < 3; ++j) {                                                  \
      const uintptr_t a = q[j][i];                                                 \
      off[j] |= a ^ (base[j] + uintptr_t(i) * step[j]), nulls |= a == 0, ors[j] |= a; \
    }                                                                              \
  R r; for (int j = 0; j < 3; ++j) r.off[j] = off[j], r.ors[j] = ors[j];            \
  r.nulls = nulls; return r;
#define ARGS const uintptr_t *const *q, const uintptr_t *base, const uintptr_t *step, int64_t lo, int64_t hi
__attribute__((noinline)) R scan_base(ARGS) { SCAN_BODY }
__attribute__((noinline, target("avx2"))) R scan_avx2(ARGS) { SCAN_BODY }
__attribute__((noinline, target("avx512f,avx512dq,avx512vl"))) R scan_avx512(ARGS) { SCAN_BODY }
// Strength-reduced: the expected address advances by step (no multiply).
__attribute__((noinline, target("avx2"))) R scan_avx2_sr(ARGS) {
  uintptr_t off[3] = {}, ors[3] = {}, nulls = 0;
  for (int j = 0; j < 3; ++j) {
    const uintptr_t *p = q[j];
    uintptr_t e = base[j] + uintptr_t(lo) * step[j], o = 0, s = 0, z = 0;
    const uintptr_t st = step[j];
    for (int64_t i = lo; i < hi; ++i, e += st) { const uintptr_t a = p[i]; o |= a ^ e; s |= a; z |= a == 0; }
    off[j] = o, ors[j] = s, nulls |= z;
  }
  R r; for (int j = 0; j < 3; ++j) r.off[j] = off[j], r.ors[j] = ors[j]; r.nulls = nulls; return r;
}
__attribute__((noinline)) uintptr_t read_sum(const uintptr_t *const *q, int64_t lo, int64_t hi) {
  uintptr_t s = 0;
  for (int j = 0; j < 3; ++j) {
    const uintptr_t *p = q[j];
    for (int64_t i = lo; i < hi; ++i) s += p[i];
  }
  return s;
}
int main(int argc, char **argv) {
  const int64_t n = argc > 1 ? atoll(argv[1]) : 7812500, chunk = argc > 2 ? atoll(argv[2]) : 262144;
  std::vector<uintptr_t> a(n), b(n), c(n);
  std::vector<int> info(n);
  uintptr_t base[3] = {0x100000, 0x90000000, 0x700000000}, step[3] = {32, 32, 32};
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i) a[i] = base[0] + i * 32, b[i] = base[1] + i * 32, c[i] = base[2] + i * 32;
  const uintptr_t *q[3] = {a.data(), b.data(), c.data()};
  const char *names[] = {"plain read", "scan default ISA", "scan avx2", "scan avx512", "scan avx2 reduced",
                         "scan default + info memset"};
  for (int v = 0; v < 6; ++v) {
    if (v == 3 && !__builtin_cpu_supports("avx512f")) continue;
    double best = 1e9;
    uintptr_t sink = 0;
    for (int rep = 0; rep < 5; ++rep) {
      double t = omp_get_wtime();
#pragma omp parallel reduction(| : sink)
      for (int64_t c0 = 0; c0 < n; c0 += chunk) {  // chunks with a barrier each, as the pipeline
        const int64_t len = std::min(chunk, n - c0), w = omp_get_num_threads(), th = omp_get_thread_num();
        const int64_t lo = c0 + len * th / w, hi = c0 + len * (th + 1) / w;
        R r{};
        switch (v) {
          case 0: sink |= read_sum(q, lo, hi); break;
          case 1: r = scan_base(q, base, step, lo, hi); break;
          case 2: r = scan_avx2(q, base, step, lo, hi); break;
          case 3: r = scan_avx512(q, base, step, lo, hi); break;
          case 4: r = scan_avx2_sr(q, base, step, lo, hi); break;
          case 5: r = scan_base(q, base, step, lo, hi); std::memset(info.data() + lo, 0, (hi - lo) * sizeof(int)); break;
        }
        sink |= r.off[0] | r.off[1] | r.off[2] | r.nulls;
#pragma omp barrier
      }
      t = omp_get_wtime() - t;
      if (t < best) best = t;
    }
    printf("%-28s %8.3f ms %7.1f GB/s (pointers)  sink %lu\n", names[v], best * 1e3, 3.0 * 8 * n / best / 1e9, (unsigned long)sink);
  }
}
