// blas_batched_bench: times BLAS_<routine>_batched_<prec> through the public API for each
// backend (BLAS_BATCHED_BACKEND), in the style of MAGMA's testers. One row per routine x
// precision x shape x backend: median time of repetitions after a warm-up, GFLOP/s (LAWN 41
// counts), effective GB/s, % of the copy bandwidth measured in the same run, the speedup over
// the vendor backend, and the error check.
//
// Two modes. Host mode (all routines): data in host memory, wall-clock timing, errors against
// the reference backend. Device mode (gemm, builds with CUDA, a GPU present): matrices in
// device memory, CUDA-event timing on the bench's own stream, inputs rotated over several sets
// so L2 never holds them, plus direct cuBLAS rows (cublas-direct, vendor-grouped) as the
// kernel-only vendor reference, and errors against a host computation in double.
//
//   blas_batched_bench --routine gemm,getrf --prec r64,r32 --sizes 4,8,16 --batch 100000
//                      --backend native,vendor,reference --check --csv out.csv
//   blas_batched_bench --device gpu --prec r64 --sizes 2,4,8,16,32 --gb 1.0
//                      --backend native,vendor,cublas-direct --check --csv gpu.csv
//   blas_batched_bench --device gpu --prec r64 --mixed --sizes 8,16,32
//                      --backend native,vendor,cublas-direct,vendor-grouped --check
#include "../src/common/typed_api.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#if BB_BENCH_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#endif

// The two CUDA extensions came later than the rest of the API: weak references let the bench
// link and run (host mode) against a library built before them; device mode checks for them.
#pragma weak blas_batched_set_cuda_stream
#pragma weak blas_batched_last_device_ms

namespace {

using namespace bb;

struct Options {
  std::vector<std::string> routines{"gemm"}, precs{"r64"}, backends{"native", "vendor", "reference"};
  bool backends_given = false;
  std::vector<int> sizes{4, 8, 16};
  long batch = 0;          // 0: from --gb
  double gb = 0;           // matrix data per call when --batch is not given (0: mode default)
  int reps = 0;            // 0: mode default
  bool check = false;
  bool mixed = false;      // all sizes as groups of one call
  bool scatter = false;    // device mode: matrices in shuffled order instead of back to back
  std::string device = "auto";  // auto | gpu | host
  std::string csv, tag;
};

std::vector<std::string> split(const std::string &s) {
  std::vector<std::string> out;
  std::size_t a = 0;
  while (a <= s.size()) {
    std::size_t b = s.find(',', a);
    if (b == std::string::npos) b = s.size();
    if (b > a) out.push_back(s.substr(a, b - a));
    a = b + 1;
  }
  return out;
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Host copy bandwidth (bytes read + written per second) with every hardware thread copying
// its own slice of buffers far larger than the caches: the ceiling the batched routines,
// which also use every thread, are compared with.
double copy_bandwidth_gbps() {
  const std::size_t bytes = std::size_t(512) << 20;
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<char> a(bytes, 1), b(bytes, 2);
  std::vector<double> t;
  for (int r = 0; r < 5; ++r) {
    double t0 = now_ms();
    std::vector<std::thread> team;
    for (unsigned i = 0; i < threads; ++i)
      team.emplace_back([&, i] {
        std::size_t lo = bytes / threads * i, hi = i + 1 == threads ? bytes : bytes / threads * (i + 1);
        std::memcpy(b.data() + lo, a.data() + lo, hi - lo);
      });
    for (auto &th : team) th.join();
    t.push_back(now_ms() - t0);
    a[r] = b[bytes - 1 - r];
  }
  std::sort(t.begin(), t.end());
  return 2.0 * bytes / (t[2] * 1e6);
}

// LAWN 41 operation counts for one square problem (complex: x4).
double flops(const std::string &r, double n, bool cplx) {
  double f = 0;
  if (r == "gemm") f = 2 * n * n * n;
  else if (r == "trsm" || r == "trmm") f = n * n * n;
  else if (r == "getrf") f = 2 * n * n * n / 3 - n * n / 2 + 5 * n / 6;
  else if (r == "getri") f = 4 * n * n * n / 3 - n * n + 5 * n / 3;
  else if (r == "potrf") f = n * n * n / 3 + n * n / 2 + n / 6;
  else if (r == "geqrf") f = 4 * n * n * n / 3 + 2 * n * n + 14 * n / 3;
  return cplx ? 4 * f : f;
}
// Bytes that must cross memory for one problem (gemm with beta != 0 reads and writes C).
double bytes(const std::string &r, double n, double elem) {
  if (r == "gemm") return 4 * n * n * elem;
  if (r == "trsm" || r == "trmm") return (n * (n + 1) / 2 + 2 * n * n) * elem;
  return 2 * n * n * elem;
}

std::string join_sizes(const std::vector<int> &s) {
  std::string out;
  for (int n : s) out += (out.empty() ? "" : "/") + std::to_string(n);
  return out;
}

struct Row {
  std::string device = "host", routine, prec, backend, sizes, layout = "strided", tag;
  int n = 0;  // 0 for a call of several groups (sizes says which)
  long batch = 0;
  int groups = 1;
  double ms = NAN, kernel_ms = NAN, gflops = NAN, gbps = NAN, pct_bw = NAN, kernel_pct_bw = NAN;
  double vs_vendor = NAN, vs_cublas = NAN, vs_grouped = NAN, vs_reference = NAN, error = NAN;
  double copy_gbps = NAN, min_ms = NAN, max_ms = NAN;
  int reps = 0, rot = 1;
};

// Rows go to stdout and, one case at a time, to the CSV (a crash late in a sweep keeps the rest).
struct Out {
  FILE *csv = nullptr;
  int header_printed = 0;  // which header was printed last: 1 device, 2 host
  bool open(const std::string &path) {
    if (path.empty()) return true;
    csv = std::fopen(path.c_str(), "w");
    if (!csv) { std::perror(path.c_str()); return false; }
    std::fprintf(csv, "device,routine,prec,backend,m,n,k,batch,groups,sizes,time_ms,kernel_ms,gflops,gbps,pct_bw,"
                      "kernel_pct_bw,vs_vendor,vs_cublas,vs_grouped,vs_reference,error,overhead,copy_gbps,"
                      "min_ms,max_ms,reps,rot,layout,tag\n");
    std::fflush(csv);
    return true;
  }
  void emit(const Row &r) {
    bool host = r.device == "host";
    if (header_printed != host + 1) {  // a header whenever the mode changes
      if (host)
        std::printf("%-6s %-5s %-10s %9s %9s %3s %11s %10s %9s %7s %8s %8s %10s\n", "rout", "prec", "backend", "n",
                    "batch", "grp", "time_ms", "GFLOP/s", "GB/s", "%bw", "vs_vend", "vs_ref", "error");
      else
        std::printf("%-6s %-5s %-14s %9s %9s %3s %10s %10s %10s %9s %6s %6s %7s %7s %7s %6s %9s\n", "rout", "prec",
                    "backend", "n", "batch", "grp", "time_ms", "kernel_ms", "GFLOP/s", "GB/s", "%bw", "k%bw",
                    "vs_vend", "vs_cubl", "vs_grp", "ovh", "error");
      header_printed = host + 1;
    }
    std::string n = r.groups > 1 ? r.sizes : std::to_string(r.n);
    if (host)
      std::printf("%-6s %-5s %-10s %9s %9ld %3d %11.3f %10.2f %9.2f %7.1f %8.2f %8.2f %10.2e\n", r.routine.c_str(),
                  r.prec.c_str(), r.backend.c_str(), n.c_str(), r.batch, r.groups, r.ms, r.gflops, r.gbps, r.pct_bw,
                  r.vs_vendor, r.vs_reference, r.error);
    else
      std::printf("%-6s %-5s %-14s %9s %9ld %3d %10.4f %10.4f %10.2f %9.2f %6.1f %6.1f %7.2f %7.2f %7.2f %6.2f %9.2e\n",
                  r.routine.c_str(), r.prec.c_str(), r.backend.c_str(), n.c_str(), r.batch, r.groups, r.ms,
                  r.kernel_ms, r.gflops, r.gbps, r.pct_bw, r.kernel_pct_bw, r.vs_vendor, r.vs_cublas, r.vs_grouped,
                  r.ms / r.kernel_ms, r.error);
    std::fflush(stdout);
    if (!csv) return;
    std::fprintf(csv,
                 "%s,%s,%s,%s,%d,%d,%d,%ld,%d,%s,%.6f,%.6f,%.4f,%.4f,%.2f,%.2f,%.4f,%.4f,%.4f,%.4f,%.3e,%.3f,%.1f,"
                 "%.6f,%.6f,%d,%d,%s,%s\n",
                 r.device.c_str(), r.routine.c_str(), r.prec.c_str(), r.backend.c_str(), r.n, r.n, r.n, r.batch,
                 r.groups, r.sizes.c_str(), r.ms, r.kernel_ms, r.gflops, r.gbps, r.pct_bw, r.kernel_pct_bw,
                 r.vs_vendor, r.vs_cublas, r.vs_grouped, r.vs_reference, r.error, r.ms / r.kernel_ms, r.copy_gbps,
                 r.min_ms, r.max_ms, r.reps, r.rot, r.layout.c_str(), r.tag.c_str());
    std::fflush(csv);
  }
};

// Speedups over the vendor backend (through the API), the direct cuBLAS call and the grouped
// cuBLAS call of the same case, then print.
void finish_case(std::vector<Row> &rows, Out &out) {
  std::map<std::string, double> ms_of;
  for (const Row &r : rows) ms_of[r.backend] = r.ms;
  auto vs = [&](const char *b, const Row &r) { return ms_of.count(b) ? ms_of[b] / r.ms : NAN; };
  for (Row &r : rows) {
    r.vs_vendor = vs("vendor", r);
    r.vs_cublas = vs("cublas-direct", r);
    r.vs_grouped = vs("vendor-grouped", r);
    r.vs_reference = vs("reference", r);
    out.emit(r);
  }
}

template <class T>
T rnd(std::mt19937_64 &g) {
  using R = typename traits<T>::real;
  std::uniform_real_distribution<double> u(-1, 1);
  if constexpr (traits<T>::complex) return T(R(u(g)), R(u(g)));
  else return T(R(u(g)));
}

// ===================================================================================
// Host mode: a call over `groups` of square problems, data in host memory.
// ===================================================================================
template <class T>
struct Case {
  std::string routine;
  std::vector<int> n;       // per group
  std::vector<long> count;  // per group
  long total = 0;
  std::vector<std::vector<T>> pristine, work;  // operands 0..2, all problems back to back
  std::vector<std::vector<T *>> ptr;
  std::vector<std::vector<int>> piv_store;
  std::vector<int *> piv;
  std::vector<int> info;

  std::size_t offset(long p, int operand) const {
    std::size_t o = 0;
    long q = 0;
    for (std::size_t g = 0; g < n.size(); ++g) {
      std::size_t per = std::size_t(n[g]) * (operand == 3 ? 1 : n[g]);
      if (p < q + count[g]) return o + std::size_t(p - q) * per;
      o += std::size_t(count[g]) * per;
      q += count[g];
    }
    return o;
  }
  void build(std::mt19937_64 &g) {
    for (long c : count) total += c;
    int operands = routine == "gemm" ? 3 : (routine == "trsm" || routine == "trmm") ? 2 : 1;
    bool has_tau = routine == "geqrf";
    std::size_t elems = offset(total, 0);
    pristine.assign(operands + (has_tau ? 1 : 0), {});
    ptr.assign(pristine.size(), {});
    for (int o = 0; o < operands; ++o) {
      pristine[o].resize(elems);
      for (auto &x : pristine[o]) x = rnd<T>(g);
    }
    if (has_tau) pristine[operands].assign(offset(total, 3), T(0));
    // Well-posed inputs: diagonally dominant (getrf, getri, trsm), Hermitian PD (potrf).
    long p = 0;
    for (std::size_t gi = 0; gi < n.size(); ++gi)
      for (long i = 0; i < count[gi]; ++i, ++p) {
        T *a = pristine[0].data() + offset(p, 0);
        int m = n[gi];
        if (routine == "potrf")
          for (int c = 0; c < m; ++c)
            for (int r = c + 1; r < m; ++r) a[c + std::size_t(r) * m] = conj(a[r + std::size_t(c) * m]);
        for (int d = 0; d < m; ++d) a[d + std::size_t(d) * m] = T(typename traits<T>::real(m + 2));
      }
    work = pristine;
    for (std::size_t o = 0; o < work.size(); ++o)
      for (long q = 0; q < total; ++q) ptr[o].push_back(work[o].data() + offset(q, o == 1 && has_tau ? 3 : 0));
    piv_store.assign(total, {});
    for (long q = 0; q < total; ++q) {
      int m = n[0];
      for (std::size_t gi = 0, acc = 0; gi < n.size(); acc += count[gi], ++gi)
        if (q < long(acc + count[gi])) { m = n[gi]; break; }
      piv_store[q].assign(std::max(1, m), 1);
      piv.push_back(piv_store[q].data());
    }
    info.assign(total, 0);
    if (routine == "getri") {  // invert the LU factors of the pristine matrices
      int rc = call_routine("getrf");
      if (rc) std::fprintf(stderr, "getrf before getri returned %d\n", rc);
      pristine = work;
    }
  }
  void restore() {
    for (std::size_t o = 0; o < work.size(); ++o) std::memcpy(work[o].data(), pristine[o].data(), work[o].size() * sizeof(T));
  }
  int call() { return call_routine(routine); }
  int call_routine(const std::string &r) {
    int G = int(n.size());
    std::vector<int> sizes(count.begin(), count.end());
    std::vector<BLAS_Op> nt(G, BLAS_NoTrans);
    std::vector<BLAS_Side> left(G, BLAS_Left);
    std::vector<BLAS_Uplo> lower(G, BLAS_Lower);
    std::vector<BLAS_Diag> nonunit(G, BLAS_NonUnit);
    std::vector<T> one(G, T(1)), half_(G, T(0.5f));
    const int *d = n.data();
    if (r == "gemm")
      return Api<T>::gemm(BLAS_ColMajor, nt.data(), nt.data(), d, d, d, one.data(), ptr[0].data(), d,
                          ptr[1].data(), d, half_.data(), ptr[2].data(), d, G, sizes.data(), info.data());
    if (r == "trsm" || r == "trmm")
      return (r == "trsm" ? Api<T>::trsm : Api<T>::trmm)(BLAS_ColMajor, left.data(), lower.data(), nt.data(),
                                                        nonunit.data(), d, d, one.data(), ptr[0].data(), d,
                                                        ptr[1].data(), d, G, sizes.data(), info.data());
    if (r == "getrf") return Api<T>::getrf(BLAS_ColMajor, d, d, ptr[0].data(), d, piv.data(), G, sizes.data(), info.data());
    if (r == "getri") return Api<T>::getri(BLAS_ColMajor, d, ptr[0].data(), d, piv.data(), G, sizes.data(), info.data());
    if (r == "potrf") return Api<T>::potrf(BLAS_ColMajor, lower.data(), d, ptr[0].data(), d, G, sizes.data(), info.data());
    if (r == "geqrf")
      return Api<T>::geqrf(BLAS_ColMajor, d, d, ptr[0].data(), d, ptr[1].data(), G, sizes.data(), info.data());
    std::fprintf(stderr, "unknown routine %s\n", r.c_str());
    std::exit(2);
  }
  // The output operand (C for gemm, B for trsm/trmm, A otherwise).
  const std::vector<T> &output() const { return work[routine == "gemm" ? 2 : (routine == "trsm" || routine == "trmm") ? 1 : 0]; }
};

template <class T>
double rel_error(const std::vector<T> &x, const std::vector<T> &ref) {
  double d = 0, r = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    auto a = compute_t<T>(x[i]), b = compute_t<T>(ref[i]);
    d += double(abs2(a - b)), r += double(abs2(b));
  }
  return r > 0 ? std::sqrt(d / r) : std::sqrt(d);
}

template <class T>
void run_case(const Options &o, const std::string &routine, const std::vector<int> &sizes, double bw, Out &out) {
  const char *prec = traits<T>::name();
  Case<T> c;
  c.routine = routine;
  c.n = sizes;
  double elem = sizeof(T), total_bytes = 0;
  for (int n : sizes) {
    long b = o.batch;
    if (b == 0) b = std::max(1L, long(o.gb * 1e9 / sizes.size() / bytes(routine, n, elem)));
    c.count.push_back(b);
  }
  std::mt19937_64 g(12345);
  c.build(g);
  double fl = 0;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    fl += c.count[i] * flops(routine, sizes[i], traits<T>::complex);
    total_bytes += c.count[i] * bytes(routine, sizes[i], elem);
  }
  // With --check the reference must run first so the others can be compared with it.
  std::vector<std::string> backends = o.backends;
  if (o.check) {
    auto it = std::find(backends.begin(), backends.end(), "reference");
    if (it == backends.end()) backends.insert(backends.begin(), "reference");
    else std::rotate(backends.begin(), it, it + 1);
  }
  std::vector<T> reference_out;
  std::vector<Row> mine;
  for (const std::string &backend : backends) {
    if (backend == "cublas-direct" || backend == "vendor-grouped") continue;  // device mode only
    setenv("BLAS_BATCHED_BACKEND", backend.c_str(), 1);
    c.restore();
    int rc = c.call();  // warm-up
    if (rc != 0) std::fprintf(stderr, "%s %s %s: returned %d\n", routine.c_str(), prec, backend.c_str(), rc);
    std::vector<double> t;
    int reps = backend == "reference" ? std::max(1, std::min(o.reps, 3)) : o.reps;
    for (int r = 0; r < reps; ++r) {
      c.restore();
      double t0 = now_ms();
      c.call();
      t.push_back(now_ms() - t0);
    }
    Row row;
    row.routine = routine, row.prec = prec, row.backend = backend;
    row.n = sizes.size() == 1 ? sizes[0] : 0, row.sizes = join_sizes(sizes);
    row.batch = c.total, row.groups = int(sizes.size()), row.tag = o.tag;
    row.ms = median(t), row.min_ms = *std::min_element(t.begin(), t.end());
    row.max_ms = *std::max_element(t.begin(), t.end()), row.reps = reps;
    row.gflops = fl / (row.ms * 1e6), row.gbps = total_bytes / (row.ms * 1e6);
    row.pct_bw = 100 * row.gbps / bw, row.copy_gbps = bw;
    if (o.check) {  // the reference ran first
      if (backend == "reference") reference_out = c.output();
      else row.error = rel_error(c.output(), reference_out);
    }
    mine.push_back(row);
  }
  unsetenv("BLAS_BATCHED_BACKEND");
  finish_case(mine, out);
}

template <class T>
void run_prec(const Options &o, const std::string &routine, double bw, Out &out) {
  if (o.mixed) return run_case<T>(o, routine, o.sizes, bw, out);
  for (int n : o.sizes) run_case<T>(o, routine, {n}, bw, out);
}

#if BB_BENCH_CUDA
// ===================================================================================
// Device mode (gemm): matrices in device memory, CUDA-event timing.
// ===================================================================================

// Setup failures end the run: a bench that silently skips them would report nonsense.
void cuda_ok(cudaError_t e, const char *what, int line) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "bench.cpp:%d: %s failed: %s (%s)\n", line, what, cudaGetErrorName(e), cudaGetErrorString(e));
  std::exit(1);
}
#define CUDA_OK(x) cuda_ok((x), #x, __LINE__)
void cublas_ok(cublasStatus_t s, const char *what, int line) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  std::fprintf(stderr, "bench.cpp:%d: %s failed: %s\n", line, what, cublasGetStatusString(s));
  std::exit(1);
}
#define CUBLAS_OK(x) cublas_ok((x), #x, __LINE__)

std::string rc_text(int rc) {
  switch (rc) {
    case BLAS_BATCHED_ERR_ALLOC: return "returned BLAS_BATCHED_ERR_ALLOC";
    case BLAS_BATCHED_ERR_BACKEND: return "returned BLAS_BATCHED_ERR_BACKEND";
    case BLAS_BATCHED_ERR_DEVICE: return "returned BLAS_BATCHED_ERR_DEVICE";
    case BLAS_BATCHED_ERR_DEVICE_ALLOC: return "returned BLAS_BATCHED_ERR_DEVICE_ALLOC";
    case BLAS_BATCHED_ERR_UNSUPPORTED: return "returned BLAS_BATCHED_ERR_UNSUPPORTED";
    default: return "returned " + std::to_string(rc);
  }
}

struct Gpu {
  std::string name;        // spaces -> '-'
  std::size_t l2 = 0, free_mem = 0, total_mem = 0;
  int sms = 0;
  double copy_gbps = NAN;
  cudaStream_t stream = nullptr;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  cublasHandle_t blas = nullptr;

  // Empty string: usable; otherwise why not.
  std::string open() {
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) return std::string("cudaGetDeviceCount: ") + cudaGetErrorString(e);
    if (count == 0) return "no CUDA device";
    if (!&blas_batched_set_cuda_stream || !&blas_batched_last_device_ms)
      return "the library lacks blas_batched_set_cuda_stream / blas_batched_last_device_ms (built before them)";
    CUDA_OK(cudaSetDevice(0));
    cudaDeviceProp p;
    CUDA_OK(cudaGetDeviceProperties(&p, 0));
    name = p.name;
    std::replace(name.begin(), name.end(), ' ', '-');
    l2 = std::size_t(p.l2CacheSize), sms = p.multiProcessorCount;
    CUDA_OK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDA_OK(cudaEventCreate(&e0));
    CUDA_OK(cudaEventCreate(&e1));
    int rc = blas_batched_set_cuda_stream(stream);
    if (rc != 0) return "blas_batched_set_cuda_stream " + rc_text(rc) + " (library built without CUDA?)";
    CUBLAS_OK(cublasCreate(&blas));
    CUBLAS_OK(cublasSetStream(blas, stream));
    CUDA_OK(cudaMemGetInfo(&free_mem, &total_mem));
    copy_gbps = measure_copy();
    return "";
  }
  // Elapsed ms between e0 and e1 after waiting for e1.
  double elapsed() {
    CUDA_OK(cudaEventSynchronize(e1));
    float ms = 0;
    CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
    return ms;
  }
  // D2D copy of a 2 GB buffer (less if it does not fit), counting read + write: the ceiling
  // pct_bw refers to, measured in the same run since it drifts between machines.
  double measure_copy() {
    std::size_t freeb = 0, totalb = 0;
    CUDA_OK(cudaMemGetInfo(&freeb, &totalb));
    std::size_t sz = std::min(std::size_t(2) << 30, freeb / 4) & ~std::size_t(255);
    void *a = nullptr, *b = nullptr;
    CUDA_OK(cudaMalloc(&a, sz));
    CUDA_OK(cudaMalloc(&b, sz));
    CUDA_OK(cudaMemsetAsync(a, 1, sz, stream));
    CUDA_OK(cudaMemsetAsync(b, 2, sz, stream));
    std::vector<double> t;
    for (int r = 0; r < 12; ++r) {
      CUDA_OK(cudaEventRecord(e0, stream));
      CUDA_OK(cudaMemcpyAsync(b, a, sz, cudaMemcpyDeviceToDevice, stream));
      CUDA_OK(cudaEventRecord(e1, stream));
      double ms = elapsed();
      if (r >= 2) t.push_back(ms);  // two warm-ups
    }
    CUDA_OK(cudaFree(a));
    CUDA_OK(cudaFree(b));
    return 2.0 * double(sz) / (median(t) * 1e6);
  }
};

// ---- direct cuBLAS calls, per element type (alpha = 1, beta = 0.5, NN, square) ----
template <class T> constexpr bool cublas_typed = std::is_same_v<T, double> || std::is_same_v<T, float> ||
                                                 std::is_same_v<T, bb::complex<double>> || std::is_same_v<T, bb::complex<float>>;
template <class T> constexpr bool cublas_ex = std::is_same_v<T, bb::half> || std::is_same_v<T, bb::complex<bb::half>>;

// Data and compute types of the Ex entry points (half types accumulate in float, as the library).
template <class T> cudaDataType cu_type() {
  if constexpr (std::is_same_v<T, double>) return CUDA_R_64F;
  else if constexpr (std::is_same_v<T, float>) return CUDA_R_32F;
  else if constexpr (std::is_same_v<T, bb::complex<double>>) return CUDA_C_64F;
  else if constexpr (std::is_same_v<T, bb::complex<float>>) return CUDA_C_32F;
  else if constexpr (std::is_same_v<T, bb::half>) return CUDA_R_16F;
  else return CUDA_C_16F;
}
template <class T> cublasComputeType_t cu_compute() {
  return std::is_same_v<T, double> || std::is_same_v<T, bb::complex<double>> ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
}
// alpha and beta in the scale type of the compute type.
template <class T> struct Scale {
  using type = std::conditional_t<traits<T>::complex,
                                  std::conditional_t<std::is_same_v<T, bb::complex<double>>, cuDoubleComplex, cuComplex>,
                                  std::conditional_t<std::is_same_v<T, double>, double, float>>;
  static type make(double v) {
    type t{};
    if constexpr (traits<T>::complex) t.x = v, t.y = 0;
    else t = type(v);
    return t;
  }
};

template <class T>
cublasStatus_t cu_strided(cublasHandle_t h, int n, const T *A, const T *B, T *C, long long stride, int batch) {
  const cublasOperation_t N = CUBLAS_OP_N;
  auto a = Scale<T>::make(1), b = Scale<T>::make(0.5);
  if constexpr (std::is_same_v<T, double>)
    return cublasDgemmStridedBatched(h, N, N, n, n, n, &a, A, n, stride, B, n, stride, &b, C, n, stride, batch);
  else if constexpr (std::is_same_v<T, float>)
    return cublasSgemmStridedBatched(h, N, N, n, n, n, &a, A, n, stride, B, n, stride, &b, C, n, stride, batch);
  else if constexpr (std::is_same_v<T, bb::complex<double>>)
    return cublasZgemmStridedBatched(h, N, N, n, n, n, &a, (const cuDoubleComplex *)A, n, stride,
                                     (const cuDoubleComplex *)B, n, stride, &b, (cuDoubleComplex *)C, n, stride, batch);
  else if constexpr (std::is_same_v<T, bb::complex<float>>)
    return cublasCgemmStridedBatched(h, N, N, n, n, n, &a, (const cuComplex *)A, n, stride, (const cuComplex *)B, n,
                                     stride, &b, (cuComplex *)C, n, stride, batch);
  else if constexpr (cublas_ex<T>)
    return cublasGemmStridedBatchedEx(h, N, N, n, n, n, &a, A, cu_type<T>(), n, stride, B, cu_type<T>(), n, stride, &b,
                                      C, cu_type<T>(), n, stride, batch, cu_compute<T>(), CUBLAS_GEMM_DEFAULT);
  else return CUBLAS_STATUS_NOT_SUPPORTED;
}

// Pointer-array batch; dA, dB, dC are device arrays of device pointers.
template <class T>
cublasStatus_t cu_batched(cublasHandle_t h, int n, T *const *dA, T *const *dB, T *const *dC, int batch) {
  const cublasOperation_t N = CUBLAS_OP_N;
  auto a = Scale<T>::make(1), b = Scale<T>::make(0.5);
  if constexpr (std::is_same_v<T, double>)
    return cublasDgemmBatched(h, N, N, n, n, n, &a, (const double *const *)dA, n, (const double *const *)dB, n, &b,
                              (double *const *)dC, n, batch);
  else if constexpr (std::is_same_v<T, float>)
    return cublasSgemmBatched(h, N, N, n, n, n, &a, (const float *const *)dA, n, (const float *const *)dB, n, &b,
                              (float *const *)dC, n, batch);
  else if constexpr (std::is_same_v<T, bb::complex<double>>)
    return cublasZgemmBatched(h, N, N, n, n, n, &a, (const cuDoubleComplex *const *)dA, n,
                              (const cuDoubleComplex *const *)dB, n, &b, (cuDoubleComplex *const *)dC, n, batch);
  else if constexpr (std::is_same_v<T, bb::complex<float>>)
    return cublasCgemmBatched(h, N, N, n, n, n, &a, (const cuComplex *const *)dA, n, (const cuComplex *const *)dB, n,
                              &b, (cuComplex *const *)dC, n, batch);
  else if constexpr (cublas_ex<T>)
    return cublasGemmBatchedEx(h, N, N, n, n, n, &a, (const void *const *)dA, cu_type<T>(), n,
                               (const void *const *)dB, cu_type<T>(), n, &b, (void *const *)dC, cu_type<T>(), n, batch,
                               cu_compute<T>(), CUBLAS_GEMM_DEFAULT);
  else return CUBLAS_STATUS_NOT_SUPPORTED;
}

// One grouped call over all groups (cuBLAS has typed ones for s and d only; the others go
// through the Ex entry, which may answer NOT_SUPPORTED for some types).
template <class T>
cublasStatus_t cu_grouped(cublasHandle_t h, const std::vector<int> &n, const std::vector<int> &count, T *const *dA,
                          T *const *dB, T *const *dC) {
  int G = int(n.size());
  std::vector<cublasOperation_t> N(G, CUBLAS_OP_N);
  using S = typename Scale<T>::type;
  std::vector<S> a(G, Scale<T>::make(1)), b(G, Scale<T>::make(0.5));
  if constexpr (std::is_same_v<T, double>)
    return cublasDgemmGroupedBatched(h, N.data(), N.data(), n.data(), n.data(), n.data(), a.data(),
                                     (const double *const *)dA, n.data(), (const double *const *)dB, n.data(),
                                     b.data(), (double *const *)dC, n.data(), G, count.data());
  else if constexpr (std::is_same_v<T, float>)
    return cublasSgemmGroupedBatched(h, N.data(), N.data(), n.data(), n.data(), n.data(), a.data(),
                                     (const float *const *)dA, n.data(), (const float *const *)dB, n.data(),
                                     b.data(), (float *const *)dC, n.data(), G, count.data());
  else if constexpr (cublas_typed<T> || cublas_ex<T>)
    return cublasGemmGroupedBatchedEx(h, N.data(), N.data(), n.data(), n.data(), n.data(), a.data(),
                                      (const void *const *)dA, cu_type<T>(), n.data(), (const void *const *)dB,
                                      cu_type<T>(), n.data(), b.data(), (void *const *)dC, cu_type<T>(), n.data(), G,
                                      count.data(), cu_compute<T>());
  else return CUBLAS_STATUS_NOT_SUPPORTED;
}

template <class T>
std::complex<double> to_cd(const T &x) {
  if constexpr (traits<T>::complex) return {double(x.re), double(x.im)};
  else return {double(x), 0.0};
}

// ROT input sets of A, B, C in device memory. Within a set, group g's matrices lie back to
// back (or, with --scatter, in a shuffled order of the same slots), groups one after another.
template <class T>
struct DevCase {
  std::vector<int> n;        // per group
  std::vector<int> count;    // per group
  std::vector<std::size_t> goff;  // element offset of each group inside a set
  std::vector<long> first;   // first problem number of each group
  long total = 0;
  std::size_t set_elems = 0; // per operand
  int rot = 1;
  bool scatter = false;
  T *buf[3] = {nullptr, nullptr, nullptr};
  std::vector<std::vector<T *>> ptr[3];  // host pointer arrays [operand][set][problem], for the API
  T **dptr = nullptr;                    // device copies [set][operand][problem], for cuBLAS
  std::vector<int> info;
  // Parameter arrays of the API call, built once (outside the timing).
  std::vector<BLAS_Op> nt;
  std::vector<T> one, half_;

  ~DevCase() {
    for (T *b : buf)
      if (b) CUDA_OK(cudaFree(b));
    if (dptr) CUDA_OK(cudaFree(dptr));
  }
  int group_of(long p) const { return int(std::upper_bound(first.begin(), first.end(), p) - first.begin()) - 1; }

  // Empty string: ready; otherwise why the case cannot run.
  std::string setup(Gpu &gpu, bool scatter_, bool want_dptr) {
    scatter = scatter_;
    int G = int(n.size());
    for (int g = 0; g < G; ++g) {
      goff.push_back(set_elems), first.push_back(total);
      set_elems += std::size_t(count[g]) * n[g] * n[g];
      total += count[g];
    }
    const double set_bytes = 3.0 * set_elems * sizeof(T);
    const double dptr_bytes = want_dptr ? 3.0 * total * sizeof(T *) : 0;
    // Enough sets that ROT x data > 2 x L2, so no timed call finds its inputs in L2; at most what
    // fits in 80 % of the free memory; at most 65536 sets (tiny batches).
    std::size_t freeb = 0, totalb = 0;
    CUDA_OK(cudaMemGetInfo(&freeb, &totalb));
    long need = std::max(2L, long(2.0 * gpu.l2 / set_bytes) + 1);
    long fit = long(0.8 * freeb / (set_bytes + dptr_bytes));
    rot = int(std::min({need, fit, 65536L}));
    if (rot < 1)
      return "does not fit: " + std::to_string(set_bytes / 1e9) + " GB per input set, " +
             std::to_string(freeb / 1e9) + " GB free";
    if (rot * set_bytes <= 2.0 * gpu.l2)
      std::fprintf(stderr, "note: only %d input set(s) of %.1f MB fit; L2 (%.1f MB) may hold inputs\n", rot,
                   set_bytes / 1e6, gpu.l2 / 1e6);
    for (auto &b : buf) CUDA_OK(cudaMalloc(&b, rot * set_elems * sizeof(T)));
    fill();
    // Slot order per group: identity, or one shuffle shared by all sets and operands.
    std::vector<std::vector<long>> perm(G);
    std::mt19937_64 rng(777);
    for (int g = 0; g < G; ++g) {
      perm[g].resize(count[g]);
      std::iota(perm[g].begin(), perm[g].end(), 0L);
      if (scatter) std::shuffle(perm[g].begin(), perm[g].end(), rng);
    }
    for (int o = 0; o < 3; ++o) {
      ptr[o].assign(rot, std::vector<T *>(total));
      for (int s = 0; s < rot; ++s)
        for (int g = 0; g < G; ++g) {
          T *base = buf[o] + s * set_elems + goff[g];
          std::size_t nn = std::size_t(n[g]) * n[g];
          for (long i = 0; i < count[g]; ++i) ptr[o][s][first[g] + i] = base + perm[g][i] * nn;
        }
    }
    if (want_dptr) {  // uploaded once, outside the timing
      CUDA_OK(cudaMalloc(&dptr, std::size_t(rot) * 3 * total * sizeof(T *)));
      for (int s = 0; s < rot; ++s)
        for (int o = 0; o < 3; ++o)
          CUDA_OK(cudaMemcpy(dptr + (std::size_t(s) * 3 + o) * total, ptr[o][s].data(), total * sizeof(T *),
                             cudaMemcpyHostToDevice));
    }
    info.assign(total, 0);
    nt.assign(G, BLAS_NoTrans), one.assign(G, T(1)), half_.assign(G, T(0.5f));
    return "";
  }
  // Random values of magnitude 0.1..1 (never 0) from a host buffer copied over and over; its
  // length is odd so consecutive problems do not repeat each other.
  void fill() {
    const std::size_t L = std::min<std::size_t>(rot * set_elems, (std::size_t(1) << 22) + 17);
    std::vector<T> h(L);
    std::mt19937_64 g(12345);
    std::uniform_real_distribution<double> mag(0.1, 1.0);
    auto v = [&] { return (g() & 1 ? -1 : 1) * mag(g); };
    using R = typename traits<T>::real;
    for (auto &x : h) {
      if constexpr (traits<T>::complex) x = T(R(v()), R(v()));
      else x = T(R(v()));
    }
    for (int o = 0; o < 3; ++o) {
      std::size_t all = rot * set_elems, pos = 0, off = (o * L) / 3;  // different start per operand
      while (pos < all) {
        std::size_t len = std::min(L - off, all - pos);
        CUDA_OK(cudaMemcpy(buf[o] + pos, h.data() + off, len * sizeof(T), cudaMemcpyHostToDevice));
        pos += len, off = 0;
      }
    }
  }
  int api_call(int s) {
    return Api<T>::gemm(BLAS_ColMajor, nt.data(), nt.data(), n.data(), n.data(), n.data(), one.data(),
                        ptr[0][s].data(), n.data(), ptr[1][s].data(), n.data(), half_.data(), ptr[2][s].data(),
                        n.data(), int(n.size()), count.data(), info.data());
  }
  T *const *dp(int s, int o) const { return dptr + (std::size_t(s) * 3 + o) * total; }
  // cuBLAS as a user would call it: strided per group (pointer arrays if scattered).
  cublasStatus_t cublas_direct(cublasHandle_t h, int s) {
    for (std::size_t g = 0; g < n.size(); ++g) {
      cublasStatus_t st;
      if (scatter)
        st = cu_batched<T>(h, n[g], dp(s, 0) + first[g], dp(s, 1) + first[g], dp(s, 2) + first[g], count[g]);
      else {
        std::size_t base = s * set_elems + goff[g];
        st = cu_strided<T>(h, n[g], buf[0] + base, buf[1] + base, buf[2] + base, (long long)n[g] * n[g], count[g]);
      }
      if (st != CUBLAS_STATUS_SUCCESS) return st;
    }
    return CUBLAS_STATUS_SUCCESS;
  }
  cublasStatus_t cublas_grouped(cublasHandle_t h, int s) {
    return cu_grouped<T>(h, n, count, dp(s, 0), dp(s, 1), dp(s, 2));
  }

  // Sample problems: first and last of each group and of the call, and a few random ones.
  std::vector<long> samples() const {
    std::vector<long> p{0, total - 1};
    for (std::size_t g = 0; g < n.size(); ++g) p.push_back(first[g]), p.push_back(first[g] + count[g] - 1);
    std::mt19937_64 rng(99);
    for (int i = 0; i < 4; ++i) p.push_back(long(rng() % std::uint64_t(total)));
    std::sort(p.begin(), p.end());
    p.erase(std::unique(p.begin(), p.end()), p.end());
    return p;
  }
  std::vector<T> fetch(const T *d, int nn, cudaStream_t st) {
    std::vector<T> h(std::size_t(nn) * nn);
    CUDA_OK(cudaMemcpyAsync(h.data(), d, h.size() * sizeof(T), cudaMemcpyDeviceToHost, st));
    CUDA_OK(cudaStreamSynchronize(st));
    return h;
  }
  // Runs `call` once more on set 0 and compares the sampled outputs with alpha*A*B + beta*C0
  // computed in double: max over samples of ||C - Cref||_F / (|alpha| ||A|| ||B|| + |beta| ||C0||).
  template <class Call>
  double check(Gpu &gpu, Call call, std::string &why) {
    std::vector<long> ps = samples();
    std::vector<std::vector<T>> A, B, C0;
    for (long p : ps) {
      int m = n[group_of(p)];
      A.push_back(fetch(ptr[0][0][p], m, gpu.stream));
      B.push_back(fetch(ptr[1][0][p], m, gpu.stream));
      C0.push_back(fetch(ptr[2][0][p], m, gpu.stream));
    }
    why = call(0);
    if (!why.empty()) return NAN;
    CUDA_OK(cudaStreamSynchronize(gpu.stream));
    double worst = 0;
    for (std::size_t i = 0; i < ps.size(); ++i) {
      int m = n[group_of(ps[i])];
      std::vector<T> C = fetch(ptr[2][0][ps[i]], m, gpu.stream);
      double d2 = 0, a2 = 0, b2 = 0, c2 = 0;
      for (int c = 0; c < m; ++c)
        for (int r = 0; r < m; ++r) {
          std::complex<double> acc = 0;
          for (int k = 0; k < m; ++k) acc += to_cd(A[i][r + std::size_t(k) * m]) * to_cd(B[i][k + std::size_t(c) * m]);
          std::size_t e = r + std::size_t(c) * m;
          acc += 0.5 * to_cd(C0[i][e]);
          d2 += std::norm(to_cd(C[e]) - acc);
          a2 += std::norm(to_cd(A[i][e])), b2 += std::norm(to_cd(B[i][e])), c2 += std::norm(to_cd(C0[i][e]));
        }
      double scale = std::sqrt(a2) * std::sqrt(b2) + 0.5 * std::sqrt(c2);
      double err = std::sqrt(d2) / (scale > 0 ? scale : 1);
      if (!(err <= worst)) worst = err;  // NaN sticks
    }
    return worst;
  }
};

template <class T>
void run_device_case(const Options &o, Gpu &gpu, const std::vector<int> &sizes, Out &out) {
  const char *prec = traits<T>::name();
  DevCase<T> c;
  c.n = sizes;
  const double elem = sizeof(T);
  double fl = 0, total_bytes = 0;
  for (int n : sizes) {
    long b = o.batch;
    if (b == 0) b = std::max(1L, long(o.gb * 1e9 / sizes.size() / bytes("gemm", n, elem)));
    if (b > 0x7fffffffL) b = 0x7fffffffL;  // group_sizes are int
    c.count.push_back(int(b));
    fl += b * flops("gemm", n, traits<T>::complex);
    total_bytes += b * bytes("gemm", n, elem);
  }
  std::vector<std::string> backends = o.backends;
  if (!o.backends_given) {
    backends = {"native", "vendor", "cublas-direct"};
    if (sizes.size() > 1) backends.push_back("vendor-grouped");
  }
  bool want_dptr = std::find(backends.begin(), backends.end(), "vendor-grouped") != backends.end() ||
                   (o.scatter && std::find(backends.begin(), backends.end(), "cublas-direct") != backends.end());
  std::string label = std::string("gemm ") + prec + " n=" + join_sizes(sizes);
  std::string why = c.setup(gpu, o.scatter, want_dptr);
  if (!why.empty()) {
    std::fprintf(stderr, "%s: skipped, %s\n", label.c_str(), why.c_str());
    return;
  }
  std::vector<Row> mine;
  for (const std::string &backend : backends) {
    // Each backend is a callable on set s that returns "" or what went wrong.
    std::function<std::string(int)> call;
    bool api = backend == "native" || backend == "vendor";
    if (api) {
      setenv("BLAS_BATCHED_BACKEND", backend.c_str(), 1);
      call = [&](int s) {
        int rc = c.api_call(s);
        return rc == 0 ? std::string() : rc_text(rc);
      };
    } else if (backend == "cublas-direct" || backend == "vendor-grouped") {
      bool grouped = backend == "vendor-grouped";
      call = [&, grouped](int s) {
        cublasStatus_t st = grouped ? c.cublas_grouped(gpu.blas, s) : c.cublas_direct(gpu.blas, s);
        return st == CUBLAS_STATUS_SUCCESS ? std::string() : std::string("cuBLAS: ") + cublasGetStatusString(st);
      };
    } else if (backend == "reference") {
      static bool said = false;
      if (!said) std::fprintf(stderr, "note: the reference backend runs on host data only; skipped in device mode "
                                      "(--check compares with a host computation in double)\n");
      said = true;
      continue;
    } else {
      std::fprintf(stderr, "%s: unknown backend %s, skipped\n", label.c_str(), backend.c_str());
      continue;
    }
    why = call(0);  // warm-up
    if (why.empty()) CUDA_OK(cudaStreamSynchronize(gpu.stream));
    std::vector<double> t, kt;
    for (int r = 0; r < o.reps && why.empty(); ++r) {
      int s = (r + 1) % c.rot;  // the next input set: evicted from L2 by the calls since its last use
      // The call is synchronous, so events on its stream span the whole call, host work included.
      CUDA_OK(cudaEventRecord(gpu.e0, gpu.stream));
      why = call(s);
      CUDA_OK(cudaEventRecord(gpu.e1, gpu.stream));
      double ms = gpu.elapsed();
      t.push_back(ms);
      // Device-side time of the library's last call (-1 without BLAS_BATCHED_DEVICE_TIMING=1).
      // The direct cuBLAS calls have no host work to speak of: their event time is their kernel time.
      double k = api ? blas_batched_last_device_ms() : ms;
      kt.push_back(k >= 0 ? k : NAN);
    }
    if (!why.empty()) {
      std::fprintf(stderr, "%s %s: skipped, %s\n", label.c_str(), backend.c_str(), why.c_str());
      continue;
    }
    Row row;
    row.device = gpu.name, row.routine = "gemm", row.prec = prec, row.backend = backend;
    row.n = sizes.size() == 1 ? sizes[0] : 0, row.sizes = join_sizes(sizes);
    row.batch = c.total, row.groups = int(sizes.size()), row.tag = o.tag;
    row.layout = o.scatter ? "scatter" : "strided", row.rot = c.rot, row.reps = int(t.size());
    row.ms = median(t), row.min_ms = *std::min_element(t.begin(), t.end());
    row.max_ms = *std::max_element(t.begin(), t.end());
    row.kernel_ms = std::any_of(kt.begin(), kt.end(), [](double x) { return std::isnan(x); }) ? NAN : median(kt);
    row.gflops = fl / (row.ms * 1e6), row.gbps = total_bytes / (row.ms * 1e6);
    row.copy_gbps = gpu.copy_gbps, row.pct_bw = 100 * row.gbps / gpu.copy_gbps;
    row.kernel_pct_bw = 100 * total_bytes / (row.kernel_ms * 1e6) / gpu.copy_gbps;
    if (o.check) {
      row.error = c.check(gpu, call, why);
      if (!why.empty()) std::fprintf(stderr, "%s %s: check call failed, %s\n", label.c_str(), backend.c_str(), why.c_str());
    }
    mine.push_back(row);
  }
  unsetenv("BLAS_BATCHED_BACKEND");
  finish_case(mine, out);
}

template <class T>
void run_device_prec(const Options &o, Gpu &gpu, Out &out) {
  if (o.mixed) return run_device_case<T>(o, gpu, o.sizes, out);
  for (int n : o.sizes) run_device_case<T>(o, gpu, {n}, out);
}
#endif  // BB_BENCH_CUDA

}  // namespace

int main(int argc, char **argv) {
  Options o;
  int groups = 1;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) { std::fprintf(stderr, "%s needs a value\n", a.c_str()); std::exit(2); }
      return argv[++i];
    };
    if (a == "--routine") o.routines = split(val());
    else if (a == "--prec") o.precs = split(val());
    else if (a == "--backend") o.backends = split(val()), o.backends_given = true;
    else if (a == "--sizes") { o.sizes.clear(); for (auto &s : split(val())) o.sizes.push_back(std::atoi(s.c_str())); }
    else if (a == "--batch") o.batch = std::atol(val().c_str());
    else if (a == "--gb") o.gb = std::atof(val().c_str());
    else if (a == "--reps") o.reps = std::atoi(val().c_str());
    else if (a == "--check") o.check = true;
    else if (a == "--mixed") o.mixed = true;
    else if (a == "--groups") groups = std::atoi(val().c_str());
    else if (a == "--scatter") o.scatter = true;
    else if (a == "--device") o.device = val();
    else if (a == "--csv") o.csv = val();
    else if (a == "--tag") o.tag = val();
    else {
      std::fprintf(stderr,
                   "usage: %s [--routine gemm,trsm,trmm,getrf,getri,potrf,geqrf] [--prec r16,...,c128]\n"
                   "  [--sizes 4,8,16] [--batch N | --gb GB] [--mixed | --groups G]\n"
                   "  [--backend native,vendor,reference,cublas-direct,vendor-grouped] [--device auto|gpu|host]\n"
                   "  [--scatter] [--reps N] [--check] [--csv FILE] [--tag TEXT]\n"
                   "--mixed / --groups G (G = number of sizes): all sizes as groups of one call, each\n"
                   "  with 1/G of the data. --device gpu: gemm on device memory (default when a GPU is\n"
                   "  present); cublas-direct and vendor-grouped exist there only.\n",
                   argv[0]);
      return 2;
    }
  }
  if (groups > 1) {
    if (groups != int(o.sizes.size())) {
      std::fprintf(stderr, "--groups %d needs %d sizes (one per group), got %zu\n", groups, groups, o.sizes.size());
      return 2;
    }
    o.mixed = true;
  }
  if (o.device != "auto" && o.device != "gpu" && o.device != "host") {
    std::fprintf(stderr, "--device auto|gpu|host\n");
    return 2;
  }
  Out out;
  if (!out.open(o.csv)) return 1;
  bool any_gemm = std::find(o.routines.begin(), o.routines.end(), "gemm") != o.routines.end();
  bool use_gpu = false;
  if (o.device == "gpu" && !any_gemm) std::printf("note: the device mode covers gemm only; host mode\n");
#if BB_BENCH_CUDA
  Gpu gpu;
  if (o.device != "host" && any_gemm) {
    // Device timing is read after each call (kernel_ms); an explicit setting in the environment wins.
    setenv("BLAS_BATCHED_DEVICE_TIMING", "1", 0);
    std::string why = gpu.open();
    use_gpu = why.empty();
    if (!use_gpu) {
      if (o.device == "gpu") {
        std::printf("note: --device gpu, but no usable GPU: %s. Nothing measured.\n", why.c_str());
        return 0;
      }
      std::printf("note: no usable GPU (%s); host mode\n", why.c_str());
    } else {
      std::printf("device: %s, %d SMs, L2 %.1f MB, %.1f GiB; D2D copy bandwidth %.1f GB/s (read+write)\n",
                  gpu.name.c_str(), gpu.sms, gpu.l2 / 1e6, gpu.total_mem / 1073741824.0, gpu.copy_gbps);
    }
  }
#else
  if (o.device == "gpu") {
    std::printf("note: --device gpu, but this bench was built without CUDA. Nothing measured.\n");
    return 0;
  }
#endif
  Options ho = o, go = o;  // mode defaults: host 0.25 GB x 5 reps, device 1 GB x 10 reps
  if (ho.gb == 0) ho.gb = 0.25;
  if (ho.reps == 0) ho.reps = 5;
  if (go.gb == 0) go.gb = 1.0;
  if (go.reps == 0) go.reps = 10;
  ho.reps = std::max(1, ho.reps), go.reps = std::max(1, go.reps);
  double host_bw = NAN;
  for (const std::string &r : o.routines) {
    bool gpu_here = use_gpu && r == "gemm";
    if (use_gpu && !gpu_here) std::printf("note: %s has no device mode in the bench; host mode\n", r.c_str());
    if (!gpu_here && std::isnan(host_bw)) {
      host_bw = copy_bandwidth_gbps();
      std::printf("device: host CPU, copy bandwidth %.1f GB/s (data in host memory)\n", host_bw);
    }
    for (const std::string &p : o.precs) {
      bool known = false;
#if BB_BENCH_CUDA
#define BB_RUN(suffix, PublicT, T)                              \
  if (p == #suffix) {                                           \
    known = true;                                               \
    if (gpu_here) run_device_prec<T>(go, gpu, out);             \
    else run_prec<T>(ho, r, host_bw, out);                      \
  }
#else
#define BB_RUN(suffix, PublicT, T) \
  if (p == #suffix) known = true, run_prec<T>(ho, r, host_bw, out);
#endif
      BB_FOR_EACH_PRECISION(BB_RUN)
#undef BB_RUN
      if (!known) std::fprintf(stderr, "unknown precision %s\n", p.c_str());
    }
  }
#if BB_BENCH_CUDA
  if (use_gpu) {
    blas_batched_set_cuda_stream(nullptr);  // back to the library's own stream before ours goes
    CUBLAS_OK(cublasDestroy(gpu.blas));
    CUDA_OK(cudaEventDestroy(gpu.e0));
    CUDA_OK(cudaEventDestroy(gpu.e1));
    CUDA_OK(cudaStreamDestroy(gpu.stream));
  }
#endif
  if (out.csv) std::fclose(out.csv);
  return 0;
}
