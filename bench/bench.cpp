// blas_batched_bench: times BLAS_<routine>_batched_<prec> through the public API for each
// backend (BLAS_BATCHED_BACKEND), in the style of MAGMA's testers. One row per routine x
// precision x shape x backend: median time of repetitions after a warm-up, GFLOP/s (LAWN 41
// counts), effective GB/s, % of the copy bandwidth measured in the same run, the speedup over
// the vendor and the reference backends, and the normwise difference from the reference.
//
//   blas_batched_bench --routine gemm,getrf --prec r64,r32 --sizes 4,8,16 --batch 100000
//                      --backend native,vendor,reference --check --csv out.csv
#include "../src/common/typed_api.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace bb;

struct Options {
  std::vector<std::string> routines{"gemm"}, precs{"r64"}, backends{"native", "vendor", "reference"};
  std::vector<int> sizes{4, 8, 16};
  long batch = 0;          // 0: from --gb
  double gb = 0.25;        // matrix data per call when --batch is not given
  int reps = 5;
  bool check = false;
  bool mixed = false;      // all sizes as groups of one call
  std::string csv;
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

struct Row {
  std::string routine, prec, backend;
  int n;
  long batch;
  int groups;
  double ms, gflops, gbps, pct_bw, vs_vendor = NAN, vs_reference = NAN, error = NAN;
};

template <class T>
T rnd(std::mt19937_64 &g) {
  using R = typename traits<T>::real;
  std::uniform_real_distribution<double> u(-1, 1);
  if constexpr (traits<T>::complex) return T(R(u(g)), R(u(g)));
  else return T(R(u(g)));
}

// One benchmark case: a call over `groups` of square problems, data in host memory.
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
void run_case(const Options &o, const std::string &routine, const std::vector<int> &sizes, double bw,
              std::vector<Row> &rows) {
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
  std::vector<T> reference_out;
  std::map<std::string, double> ms_of;
  std::vector<Row> mine;
  for (const std::string &backend : o.backends) {
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
    std::sort(t.begin(), t.end());
    double ms = t[t.size() / 2];
    ms_of[backend] = ms;
    Row row{routine, prec, backend, sizes.size() == 1 ? sizes[0] : 0, c.total, int(sizes.size()), ms,
            fl / (ms * 1e6), total_bytes / (ms * 1e6), 0};
    row.pct_bw = 100 * row.gbps / bw;
    if (o.check) {  // the reference runs first (main() orders the backends)
      if (backend == "reference") reference_out = c.output();
      else row.error = rel_error(c.output(), reference_out);
    }
    mine.push_back(row);
  }
  unsetenv("BLAS_BATCHED_BACKEND");
  for (Row &r : mine) {
    if (ms_of.count("vendor")) r.vs_vendor = ms_of["vendor"] / r.ms;
    if (ms_of.count("reference")) r.vs_reference = ms_of["reference"] / r.ms;
    std::printf("%-6s %-5s %-10s %5d %9ld %3d %11.3f %10.2f %9.2f %7.1f %8.2f %8.2f %10.2e\n", r.routine.c_str(),
                r.prec.c_str(), r.backend.c_str(), r.n, r.batch, r.groups, r.ms, r.gflops, r.gbps, r.pct_bw,
                r.vs_vendor, r.vs_reference, r.error);
    rows.push_back(r);
  }
}

template <class T>
void run_prec(const Options &o, const std::string &routine, double bw, std::vector<Row> &rows) {
  if (o.mixed) return run_case<T>(o, routine, o.sizes, bw, rows);
  for (int n : o.sizes) run_case<T>(o, routine, {n}, bw, rows);
}

}  // namespace

int main(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) { std::fprintf(stderr, "%s needs a value\n", a.c_str()); std::exit(2); }
      return argv[++i];
    };
    if (a == "--routine") o.routines = split(val());
    else if (a == "--prec") o.precs = split(val());
    else if (a == "--backend") o.backends = split(val());
    else if (a == "--sizes") { o.sizes.clear(); for (auto &s : split(val())) o.sizes.push_back(std::atoi(s.c_str())); }
    else if (a == "--batch") o.batch = std::atol(val().c_str());
    else if (a == "--gb") o.gb = std::atof(val().c_str());
    else if (a == "--reps") o.reps = std::atoi(val().c_str());
    else if (a == "--check") o.check = true;
    else if (a == "--mixed") o.mixed = true;
    else if (a == "--csv") o.csv = val();
    else {
      std::fprintf(stderr, "usage: %s [--routine gemm,trsm,trmm,getrf,getri,potrf,geqrf] [--prec r16,...,c128]\n"
                           "  [--sizes 4,8,16] [--batch N | --gb GB] [--backend native,vendor,reference]\n"
                           "  [--reps N] [--check] [--mixed] [--csv FILE]\n", argv[0]);
      return 2;
    }
  }
  // With --check the reference must run first so the others can be compared with it.
  if (o.check) {
    auto it = std::find(o.backends.begin(), o.backends.end(), "reference");
    if (it == o.backends.end()) o.backends.insert(o.backends.begin(), "reference");
    else std::rotate(o.backends.begin(), it, it + 1);
  }
  double bw = copy_bandwidth_gbps();
  std::printf("device: host CPU, copy bandwidth %.1f GB/s (data in host memory)\n", bw);
  std::printf("%-6s %-5s %-10s %5s %9s %3s %11s %10s %9s %7s %8s %8s %10s\n", "rout", "prec", "backend", "n",
              "batch", "grp", "time_ms", "GFLOP/s", "GB/s", "%bw", "vs_vend", "vs_ref", "error");
  std::vector<Row> rows;
  for (const std::string &r : o.routines)
    for (const std::string &p : o.precs) {
#define BB_RUN(suffix, PublicT, T) \
  if (p == #suffix) run_prec<T>(o, r, bw, rows);
      BB_FOR_EACH_PRECISION(BB_RUN)
#undef BB_RUN
    }
  if (!o.csv.empty()) {
    FILE *f = std::fopen(o.csv.c_str(), "w");
    if (!f) { std::perror(o.csv.c_str()); return 1; }
    std::fprintf(f, "device,routine,prec,backend,m,n,k,batch,groups,time_ms,gflops,gbps,pct_bw,vs_vendor,vs_reference,error\n");
    for (const Row &r : rows)
      std::fprintf(f, "host,%s,%s,%s,%d,%d,%d,%ld,%d,%.6f,%.4f,%.4f,%.2f,%.4f,%.4f,%.3e\n", r.routine.c_str(),
                   r.prec.c_str(), r.backend.c_str(), r.n, r.n, r.n, r.batch, r.groups, r.ms, r.gflops, r.gbps,
                   r.pct_bw, r.vs_vendor, r.vs_reference, r.error);
    std::fclose(f);
  }
  return 0;
}
