// Is storing runs into pinned host memory slower than into pageable memory? The sampler put a
// sixth of the library's host time for 100k one-problem gemm groups on one line of fill_chunk,
// the store of each 136-byte run into its configuration's table in a slot's pinned memory
// (device_run.hpp, `[table_pos] = r`). This times the same pattern: 16384 runs a chunk, spread
// over 8 tables, each thread storing its block of runs in order, 7 chunks into two alternating
// buffers. Each buffer is tried as cudaHostAlloc (default flags, as the slots), as
// cudaHostAllocWriteCombined, and as malloc (touched first).
//   nvcc -O3 -Xcompiler -fopenmp -o pinned_store tools/micro/pinned_store.cu && ./pinned_store
#include <cuda_runtime.h>
#include <omp.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

struct Run {  // GemmSeg's size
  int64_t words[17];
};
static_assert(sizeof(Run) == 136);

constexpr int kRuns = 16384, kTables = 8, kChunks = 7, kReps = 50;

double time_stores(char *buffers[2]) {
  double best = 1e30;
  for (int rep = 0; rep < kReps; ++rep) {
    const double t0 = omp_get_wtime();
    for (int chunk = 0; chunk < kChunks; ++chunk) {
      Run *tables = reinterpret_cast<Run *>(buffers[chunk & 1]);
#pragma omp parallel
      {
        const int t = omp_get_thread_num(), w = omp_get_num_threads();
        const int lo = kRuns * t / w, hi = kRuns * (t + 1) / w;
        for (int i = lo; i < hi; ++i) {
          Run r;
          for (int k = 0; k < 17; ++k) r.words[k] = int64_t(i) * 17 + k + chunk;
          const int table = (i * 7) % kTables;  // sizes mixed as configurations are
          const int pos = i / kTables;
          tables[table * (kRuns / kTables) + pos] = r;
        }
      }
    }
    const double t = omp_get_wtime() - t0;
    best = t < best ? t : best;
  }
  return best;
}

int main() {
  const size_t bytes = size_t(kRuns) * sizeof(Run);
  struct Kind {
    const char *name;
    unsigned flags;
    bool pinned;
  } kinds[] = {{"cudaHostAlloc default", cudaHostAllocDefault, true},
               {"cudaHostAlloc write-combined", cudaHostAllocWriteCombined, true},
               {"malloc", 0, false}};
  std::printf("%d threads, %d chunks of %d runs (%.1f MB a chunk), best of %d\n", omp_get_max_threads(), kChunks,
              kRuns, bytes / 1e6, kReps);
  for (const Kind &k : kinds) {
    char *b[2] = {};
    bool ok = true;
    for (char *&p : b) {
      if (k.pinned) ok = ok && cudaHostAlloc(reinterpret_cast<void **>(&p), bytes, k.flags) == cudaSuccess;
      else ok = ok && (p = static_cast<char *>(std::malloc(bytes)));
      if (ok) std::memset(p, 1, bytes);
    }
    if (!ok) {
      std::printf("%-30s allocation failed\n", k.name);
      continue;
    }
    const double t = time_stores(b);
    std::printf("%-30s %.3f ms for %d runs (%.1f ns a run on one thread's share, %.1f GB/s)\n", k.name, t * 1e3,
                kChunks * kRuns, t * 1e9 * omp_get_max_threads() / (kChunks * kRuns), kChunks * bytes / t / 1e9);
    for (char *p : b) k.pinned ? (void)cudaFreeHost(p) : std::free(p);
  }
  return 0;
}
