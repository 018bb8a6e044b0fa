// blas_batched_bench: times BLAS_<routine>_batched_<prec> through the public API for each
// backend (BLAS_BATCHED_BACKEND), in the style of MAGMA's testers. One row per routine x
// precision x shape x backend: median time of repetitions after a warm-up, GFLOP/s (LAWN 41
// counts), effective GB/s, % of the copy bandwidth measured in the same run, the speedup over
// the vendor backend, and the error check. `--help` lists every option with its default.
//
// Two modes. Host mode (all routines): data in host memory, wall-clock timing, errors against
// the reference backend. Device mode (gemm, getrf, getri, potrf, geqrf, trsm, trmm; builds with CUDA, a GPU
// present): matrices in device memory, CUDA-event timing on the bench's own stream, inputs
// rotated over several sets so L2 never holds them, plus direct cuBLAS/cuSOLVER rows
// (cublas-direct, vendor-grouped) as the kernel-only vendor reference, and errors against a host
// computation in double.
// Device factorizations (getrf, getri, potrf, geqrf) and trsm, trmm: one size per call, matrices back to back,
// each set restored from a pristine copy after a call uses it (outside the timing); getri
// inverts factors made once by the library's getrf; potrf factors Hermitian positive definite
// matrices, uplo Lower; geqrf writes n taus per problem. cublas-direct is cublas<t>getrfBatched,
// cublas<t>getriBatched (out of place) plus the copy of its result back into A, timed together,
// cusolverDn<t>potrfBatched (uplo Lower), or cublas<t>geqrfBatched; trsm and trmm run side Left
// (--side right: Right), uplo Lower, NoTrans, NonUnit, m = n, against cublas<t>trsmBatched
// (trmm has no batched cuBLAS routine: no cublas-direct row).
// native-strided (gemm in both modes, the factorizations in device mode) times the same
// matrices through the strided entry point BLAS_<routine>_batched_strided_<prec>, for one group
// of back-to-back matrices; native-devptr (device mode) through the group API with the pointer
// arrays and info in device memory, next to cublas-batched (gemm: cublas<t>gemmBatched on the
// same device arrays). --nonblocking-loop times N non-blocking strided calls and one
// synchronize against N cublas<t>gemmStridedBatched.
// --one-per-group makes every problem its own group (the same data, group_count = problems),
// --compare-groups times both forms of each call, --variable-sizes times one call of problems of
// random orders, each its own group. Device rows carry a floor (floor_ms, pct_floor): what the
// call cannot go below on this machine, from bandwidths and a call's fixed cost measured in the
// same run.
//
//   blas_batched_bench --routine gemm,getrf --prec r64,r32 --sizes 4,8,16 --batch 100000
//                      --backend native,vendor,reference --check --csv out.csv
//   blas_batched_bench --device gpu --prec r64 --sizes 2,4,8,16,32 --gb 1.0
//                      --backend native,vendor,cublas-direct --check --csv gpu.csv
//   blas_batched_bench --device gpu --prec r64,r32 --sizes 2,4,8,16,32,64,128,256
//                      --backend native,native-strided,cublas-direct --check
//   blas_batched_bench --device gpu --prec r64 --mixed --sizes 8,16,32
//                      --backend native,vendor,cublas-direct,vendor-grouped --check
//   blas_batched_bench --routine potrf --device host --sizes 4 --batch 100000 --compare-groups
//   blas_batched_bench --device gpu --prec r64 --variable-sizes 2:32 --batch 100000 --check
//   blas_batched_bench --device gpu --prec r64 --sizes 4 --batch 1000 --nonblocking-loop 1000 --check
//   blas_batched_bench --device gpu --routine getrf,getri --prec r64,r32 --sizes 2,4,8,16,32,64
//                      --backend native,native-strided,native-devptr,cublas-direct --check
//   blas_batched_bench --device gpu --routine potrf,geqrf --prec r64,r32 --sizes 2,4,8,16,32,64
//                      --backend native,native-strided,native-devptr,cublas-direct --check
#include "../src/common/typed_api.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#if BB_BENCH_CUDA
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <omp.h>
#if BB_BENCH_CUSOLVER
#include <cusolverDn.h>
#endif
#endif

// The two CUDA extensions came later than the rest of the API: weak references let the bench
// link and run (host mode) against a library built before them; device mode checks for them.
#pragma weak blas_batched_set_cuda_stream
#pragma weak blas_batched_last_device_ms
#pragma weak blas_batched_set_blocking
#pragma weak blas_batched_set_device_timing

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
  bool digest = false;     // device factorizations: --check also hashes the whole output
  bool row_major = false;  // device getrf, getri, getrf_getri: the library's rows in BLAS_RowMajor
  bool mixed = false;      // all sizes as groups of one call
  long groups = 1;         // --groups G (G > 1 sets mixed)
  bool one_per_group = false;   // every problem its own group
  BLAS_Side side = BLAS_Left;   // trsm, trmm
  BLAS_Uplo uplo = BLAS_Lower;  // potrf in device mode (--uplo)
  bool compare_groups = false;  // each call both ways
  bool scatter = false;    // device mode: matrices in shuffled order instead of back to back
  int var_lo = 0, var_hi = 0;  // --variable-sizes LO:HI (0: off); one problem per group
  long nb_loop = 0;        // --nonblocking-loop N (0: off)
  std::string device = "auto";  // auto | gpu | host
  std::string csv, tag;
};

const char *const kRoutines[] = {"gemm", "trsm", "trmm", "getrf", "getri", "getrf_getri", "potrf", "geqrf"};
#define BB_NAME(suffix, PublicT, T) #suffix,
const char *const kPrecs[] = {BB_FOR_EACH_PRECISION(BB_NAME)};
#undef BB_NAME
const char *const kBackends[] = {"native", "native-strided", "native-devptr", "vendor", "reference", "auto",
                                 "cublas-direct", "cublas-batched", "vendor-grouped"};
bool device_only(const std::string &b) {
  return b == "native-devptr" || b == "cublas-direct" || b == "cublas-batched" || b == "vendor-grouped";
}
// BLAS_<routine>_batched_strided_<prec> (BLAS_BATCHED_BACKEND=native): gemm, and the
// factorizations in device mode; one group of evenly spaced matrices.
bool strided_only(const std::string &b) { return b == "native-strided"; }
// The dense factorizations: in device mode one size per call of back-to-back matrices.
bool factor_routine(const std::string &r) {
  return r == "getrf" || r == "getri" || r == "getrf_getri" || r == "potrf" || r == "geqrf";
}
bool triangular_routine(const std::string &r) { return r == "trsm" || r == "trmm"; }
// Routines whose device rows are one size per call of back-to-back square matrices (FactDevCase).
bool one_size_device_routine(const std::string &r) { return factor_routine(r) || triangular_routine(r); }
// Routines the device mode covers (all of them).
bool device_routine(const std::string &r) { return r == "gemm" || one_size_device_routine(r); }
bool has(const std::vector<std::string> &v, const char *x) { return std::find(v.begin(), v.end(), x) != v.end(); }
std::string join(const std::vector<std::string> &v) {
  std::string out;
  for (const std::string &x : v) out += (out.empty() ? "" : ",") + x;
  return out;
}

std::string join_ints(const std::vector<int> &v) {
  std::string out;
  for (int x : v) out += (out.empty() ? "" : ",") + std::to_string(x);
  return out;
}

void usage(FILE *f) {
  std::fprintf(f, R"(usage: blas_batched_bench [options]

Times BLAS_<routine>_batched_<prec> through the public API: one row per routine x precision x
size (or call of several groups) x backend, on stdout and, with --csv, in a CSV file.
Lists are comma-separated; [...] is the default.

  --routine LIST    gemm,trsm,trmm,getrf,getri,getrf_getri,potrf,geqrf  [gemm]
                    (getrf_getri: the inverse in one call, BLAS_getrf_getri_batched; in device
                    mode also the row native-two-calls, getrf then getri as two calls, and its
                    cublas-direct row is getrfBatched, getriBatched out of place and the copy
                    back; no native-strided row)
  --prec LIST       r16,c16,r32,c32,r64,c64,r128,c128  [r64]
  --side S          trsm, trmm: left or right (uplo Lower, NoTrans, NonUnit)  [left]
  --uplo U          potrf in device mode: lower or upper (the library's rows; cublas-direct
                    stays Lower)  [lower]
  --sizes LIST      square problem orders, each >= 1; one call per size  [4,8,16]
  --batch N         problems per size, >= 1  [from --gb]
  --gb GB           matrix bytes per call (10^9), split evenly over the sizes, when --batch is
                    not given; > 0  [host 0.25, device 1.0]
  --reps N          timed repetitions after one warm-up, >= 1; rows show the median
                    [host 5 (the reference backend at most 3), device 10]
  --backend LIST    native, vendor, reference, auto: BLAS_BATCHED_BACKEND for the call;
                    native-strided: the same matrices through BLAS_<routine>_batched_strided_<prec>
                    (A, B, C at base + p n^2, getrf/getri's ipiv and geqrf's tau at base + p n;
                    BLAS_BATCHED_BACKEND=native): gemm in host and device mode, getrf, getri,
                    potrf, geqrf, trsm and trmm in device mode; other rows skip it with a note (an error if
                    no backend is left for them); it needs one group of evenly spaced matrices,
                    so it is an error with --scatter, --mixed, --groups G > 1, --one-per-group,
                    --compare-groups or --variable-sizes;
                    native-devptr: the group API (BLAS_BATCHED_BACKEND=native) with the pointer
                    arrays (A, B, C; getrf/getri: A, ipiv; potrf: A; geqrf: A, tau) and info in
                    device memory (SPEC 9.2), the same matrices and groups as native; with
                    --check, info must also come back all 0;
                    cublas-direct, cublas-batched, vendor-grouped: cuBLAS (potrf: cuSOLVER)
                    called directly. gemm: <t>gemmStridedBatched (with --scatter
                    <t>gemmBatched), one call per size;
                    <t>gemmBatched on native-devptr's device pointer arrays, one call per size
                    (no c16, r128, c128: a note; not with --variable-sizes);
                    <t>gemmGroupedBatched. getrf, getri: cublas-direct only (the other two are
                    skipped with a note): <t>getrfBatched on native-devptr's device pointer
                    arrays (pivots n ints apart, info in device memory); <t>getriBatched, which
                    is out of place: into a second buffer, then one cudaMemcpyAsync of the whole
                    batch back into A, timed together (what an in-place inversion costs a cuBLAS
                    user; the notes give getriBatched's time without the copy). potrf, geqrf:
                    cublas-direct only, as getrf: cuSOLVER's cusolverDn<t>potrfBatched with uplo
                    Lower (every potrf row of the bench factors the lower triangle) on the
                    device pointer arrays, info in device memory; cuBLAS's <t>geqrfBatched on
                    device pointer arrays of A and of tau (n entries per problem, n apart),
                    info one int in host memory (argument errors only). trsm: cuBLAS's
                    <t>trsmBatched (--side, Lower, NoTrans, NonUnit, as every device trsm
                    and trmm row) on the device pointer arrays; trmm: none (cuBLAS has no
                    batched trmm; a note). All five: r32, r64,
                    c32, c64 only (cuBLAS and cuSOLVER have no r16, c16, r128, c128 ones: a
                    note).
                    native-devptr and the cuBLAS ones are device mode only (host rows skip them
                    with a note, an error if no backend is left; device rows skip reference
                    with a note)  [host native,vendor,reference; device: gemm
                    native,vendor,cublas-direct, and vendor-grouped with --mixed; getrf, getri,
                    potrf, geqrf, trsm, trmm native,native-strided,native-devptr,cublas-direct]
  --check           fill the error column: host rows against the reference backend's output
                    (run first, added if missing), device rows against a host computation in
                    double on sampled problems (first, last, a few random): gemm the relative error
                    of C; getrf ||P A - L U||_F / (||A||_F n eps), getri ||I - A X||_F /
                    (||A||_F ||X||_F n eps) (X the inverse, A the matrix before getrf), potrf
                    ||A - L L^H||_F / (||A||_F n eps) (L the output's lower triangle), geqrf
                    ||A - Q R||_F / (||A||_F n eps) (R the output's upper triangle, Q formed from
                    the reflectors below it and tau), trsm ||L X - alpha B||_F / (||L||_F ||X||_F
                    n eps), trmm ||X - alpha L B||_F / (|alpha| ||L||_F ||B||_F n eps) (alpha
                    1.5); eps the precision's unit roundoff, at
                    least double's: about 10 or less is right. getrf, getri, potrf and geqrf
                    rows, and gemm's native-devptr, also need info all 0 (cublas-direct geqrf:
                    its one host info)  [off: error empty]
  --digest          (implies --check) device getrf, getri, getrf_getri, potrf, geqrf, trsm,
                    trmm rows: a note "digest <hex>", FNV-1a over the check call's whole output
                    (every problem's matrix, and ipiv, tau, info where the call has them): two
                    builds or switches that claim the same bits compare it
  --row-major       device mode, getrf, getri and getrf_getri: the library's rows call with
                    BLAS_RowMajor (the same data, getri's factors from getrf in that layout;
                    --check transposes for getrf's residual);
                    cublas-direct rows stay column-major. Rows: layout strided/row-major  [off]
  --mixed           all sizes as the groups of one call (each 1/G of --gb, or --batch each)
                    [off]
  --groups G        the same as --mixed; G must be the number of sizes (1: no effect)  [1]
  --one-per-group   every problem its own group: group_count = problems, group_sizes all 1,
                    the per-group arguments repeated, the same data. Rows: groups = problems,
                    layout <layout>/one-per-group. Device mode: native, vendor and
                    vendor-grouped; cublas-direct rows stay one strided call per size  [off]
  --compare-groups  time each call both ways (as given, then --one-per-group) and print per
                    backend the ratio time(one per group) / time(as given); target <= 2  [off]
  --scatter         device mode, gemm: matrices in shuffled order instead of back to back (host
                    mode: ignored with a note)  [off]
  --variable-sizes LO:HI
                    device mode, gemm only: one call of --batch problems [100000], each its
                    own group, orders drawn uniformly from LO..HI (1 <= LO <= HI, a fixed
                    seed), in place of --sizes. Backends native and vendor-grouped
                    (cublas<t>gemmGroupedBatched, the same groups; r32 and r64 only, a note
                    for the others), vendor too if asked; no cublas-direct. Rows:
                    n 0, sizes LO:HI, layout variable; notes give time(vendor-grouped) /
                    time(native). Not with --sizes, --gb, --mixed, --groups,
                    --one-per-group, --compare-groups, --scatter  [off]
  --nonblocking-loop N
                    device mode, gemm only, in place of the other rows: per precision, N
                    back-to-back calls of BLAS_gemm_batched_strided_<prec> made non-blocking
                    (blas_batched_set_blocking(0), the bench's stream, info in device memory)
                    and one stream synchronize, against N cublas<t>gemmStridedBatched calls on
                    the same stream and one synchronize. Rows native-strided-nb and
                    cublas-direct, layout strided/nonblocking-loop: time_ms = the wall clock
                    from before the first call to after the synchronize / N (median of --reps
                    loops, after 3 warm-up calls), notes give time(cublas-direct) /
                    time(native-strided-nb); --check also needs the device info all 0. Needs
                    one size in --sizes and --batch; not with --device host, --gb, --mixed,
                    --groups, --one-per-group, --compare-groups, --scatter, --variable-sizes,
                    --backend  [off]
  --device MODE     auto: gemm, trsm, trmm, getrf, getri, getrf_getri, potrf and geqrf on the
                    GPU if this build has CUDA and a GPU is usable, else host; gpu: the same,
                    but no usable GPU is an error; host: host memory only.
                    Device getrf, getri, potrf and geqrf: n x n, one size per call, matrices
                    back to back (not with --mixed, --groups, --one-per-group,
                    --compare-groups, --scatter: --device host for those); inputs: getrf
                    random (-1,1) + (n+2) I with its rows permuted (pivoting swaps rows), getri
                    the LU factors of those from the library's getrf, made once; potrf random
                    (-1,1) + (n+2) I made Hermitian (real diagonal), uplo Lower; geqrf random
                    (-1,1); after each call its input set is restored from a pristine device
                    copy, outside the timing  [auto]
  --csv FILE        also write the rows to FILE, one header line then one line per row  [none]
  --tag TEXT        text for the CSV's tag column; no commas, quotes or newlines  [empty]
  -h, --help        this text, exit 0

Columns that do not apply (error without --check and on the reference row itself, vs_vendor
without a vendor row, kernel_ms on host, ...) print '-' in the table and are empty in the CSV.
GFLOP/s: LAWN 41 counts (complex x4). GB/s and pct_bw count per problem, in elements of the
precision: gemm 4 n^2 (A, B read, C read and written); trsm, trmm n(n+1)/2 + 2 n^2; getrf,
getri, getrf_getri 2 n^2 (A read and written) plus n ints (ipiv written, read); potrf n(n+1) (its triangle
read and written); geqrf 2 n^2 + n (A read and written, tau written).

Device rows of the library's calls: each repetition is two calls on consecutive input sets,
one with the library's device timing on (kernel_ms), then one with it off (time_ms, as a user
runs it: the timing adds a few microseconds to a call); noise can then put kernel_ms above
time_ms (said in notes).
Device rows (empty on host rows), measured at the start of the run: copy_gbps, the device copy
bandwidth (read + write) that pct_bw refers to; host_read_gbps, all OpenMP threads summing 1 GiB
of host memory (best of 5); h2d_gbps, a 256 MiB copy from pinned memory (best of 5). Per call:
call_floor_ms, the median of one pinned upload of the call's upload bytes, one empty kernel and
one stream synchronize (the fixed cost of any call); floor_ms = max(host bytes / host_read_gbps
[+ host bytes / h2d_gbps when per-problem data must go to the device: --scatter,
--one-per-group, --variable-sizes], matrix bytes / copy_gbps, call_floor_ms); pct_floor = 100
floor_ms / time_ms. Matrix bytes: those of GB/s. Host bytes: what the API reads per call, 3
pointers (8 bytes each) and an info (4) per problem, and per group transA, transB, m, n, k,
alpha, beta, lda, ldb, ldc, group_size at their sizes (getrf: 2 pointers, A and ipiv, and an
info per problem, per group m, n, lda, group_size; getri: the same per problem, per group n, lda,
group_size; potrf: 1 pointer, A, and an info per problem, per group uplo, n, lda, group_size;
geqrf: 2 pointers, A and tau, and an info per problem, per group m, n, lda, group_size).
Upload bytes: the host bytes when per-problem data must go to the device, else the per-group
part (evenly spaced pointers are not uploaded). The floor is the API call's: the same on every
backend's row of a call (cublas-direct's too), except native-strided's, whose API reads no
pointer arrays: call_floor_ms is one empty kernel and one stream synchronize (no upload), and
floor_ms = max(info bytes (4 per problem, in host memory) / host_read_gbps, matrix bytes /
copy_gbps, call_floor_ms); and native-devptr's, whose pointer arrays and info are device memory
(nothing per problem on the host): the same call_floor_ms, and floor_ms = max(per-group bytes /
host_read_gbps, matrix bytes / copy_gbps, call_floor_ms). --nonblocking-loop rows, per call:
call_floor_ms = (N empty kernels back to back and one synchronize) / N, floor_ms = max(matrix
bytes / copy_gbps, call_floor_ms). notes: free text (no commas).

Timing reliability: a warning on stderr, once, when the 1-minute load average (/proc/loadavg)
is above half the number of CPUs before the run, and one per row whose slowest repetition took
over 1.5x its fastest (also in the CSV as min_ms, max_ms). Short calls are noisy too: raise
--batch or --reps. The CSV carries no warnings.

Exit status: 0 done; 2 bad command line, nothing run; 1 failure at run time (CSV not writable,
--device gpu without a usable GPU, out of memory, a CUDA error).
)");
}

// A bad command line: main prints it and exits 2.
struct Usage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Items of a comma-separated list; an empty item ("4,,8", "") is an error, not skipped.
std::vector<std::string> split(const std::string &opt, const std::string &s) {
  std::vector<std::string> out;
  std::size_t a = 0;
  while (true) {
    std::size_t b = s.find(',', a);
    if (b == std::string::npos) b = s.size();
    if (b == a) throw Usage(opt + (s.empty() ? ": empty list" : ": empty item in '" + s + "'"));
    out.push_back(s.substr(a, b - a));
    if (b == s.size()) return out;
    a = b + 1;
  }
}

template <std::size_t N>
std::vector<std::string> one_of(const std::string &opt, const std::string &s, const char *const (&names)[N]) {
  std::vector<std::string> v = split(opt, s);
  for (const std::string &x : v)
    if (std::find_if(std::begin(names), std::end(names), [&](const char *n) { return x == n; }) == std::end(names)) {
      std::string all;
      for (const char *n : names) all += (all.empty() ? "" : ",") + std::string(n);
      throw Usage(opt + ": unknown '" + x + "' (one of " + all + ")");
    }
  return v;
}

// strtol/strtod without their leniency: the whole text, nothing around it, in range.
long to_long(const std::string &opt, const std::string &s, long lo, long hi) {
  char *end = nullptr;
  errno = 0;
  long v = s.empty() || std::isspace((unsigned char)s[0]) ? 0 : std::strtol(s.c_str(), &end, 10);
  if (!end || *end || errno == ERANGE) throw Usage(opt + ": '" + s + "' is not an integer");
  if (v < lo) throw Usage(opt + ": must be >= " + std::to_string(lo) + ", got " + s);
  if (v > hi) throw Usage(opt + ": must be <= " + std::to_string(hi) + ", got " + s);
  return v;
}
double to_double(const std::string &opt, const std::string &s) {
  char *end = nullptr;
  double v = s.empty() || std::isspace((unsigned char)s[0]) ? 0 : std::strtod(s.c_str(), &end);
  if (!end || *end || !std::isfinite(v)) throw Usage(opt + ": '" + s + "' is not a number");
  return v;
}

// --variable-sizes LO:HI, 1 <= LO <= HI.
void variable_sizes(const std::string &opt, const std::string &s, Options &o) {
  const std::size_t colon = s.find(':');
  if (colon == std::string::npos || s.find(':', colon + 1) != std::string::npos)
    throw Usage(opt + ": '" + s + "' is not LO:HI");
  o.var_lo = int(to_long(opt, s.substr(0, colon), 1, 0x7fffffffL));
  o.var_hi = int(to_long(opt, s.substr(colon + 1), 1, 0x7fffffffL));
  if (o.var_lo > o.var_hi) throw Usage(opt + ": LO must be <= HI, got " + s);
}

// Device factorization rows (getrf, getri, potrf, geqrf, trsm, trmm) are one size per call, one group of
// back-to-back matrices: the option that asks for another shape, or "".
std::string factor_device_clash(const Options &o) {
  const std::pair<bool, const char *> clash[] = {
      {o.groups > 1, "--groups"}, {o.mixed && o.groups <= 1, "--mixed"}, {o.one_per_group, "--one-per-group"},
      {o.compare_groups, "--compare-groups"}, {o.scatter, "--scatter"}};
  for (const auto &c : clash)
    if (c.first) return c.second;
  return "";
}
// Whether a routine's device rows run backend b: reference never (host data only), cublas-batched
// and vendor-grouped for gemm only.
bool device_backend(const std::string &routine, const std::string &b) {
  return b != "reference" && (routine == "gemm" || (b != "cublas-batched" && b != "vendor-grouped"));
}
// The command line errors of the routines that run in device mode: checked by parse() with
// --device gpu (so they exit 2 with or without a GPU), by run() once --device auto found one.
void check_device_rows(const Options &o) {
  for (const std::string &r : o.routines) {
    if (!device_routine(r)) continue;
    const std::string clash = one_size_device_routine(r) ? factor_device_clash(o) : "";
    if (!clash.empty())
      throw Usage(clash + ": " + r + " runs in device mode, one size per call of back-to-back matrices "
                  "(--device host for host rows)");
    if (o.backends_given &&
        std::none_of(o.backends.begin(), o.backends.end(), [&](const std::string &b) { return device_backend(r, b); }))
      throw Usage("--backend " + join(o.backends) + ": nothing to run for " + r +
                  " in device mode (reference: host data only" +
                  (r == "gemm" ? "" : "; cublas-batched, vendor-grouped: gemm only") +
                  "; --device host for host mode)");
  }
}

Options parse(int argc, char **argv) {
  Options o;
  long groups = 1;
  bool sizes_given = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto val = [&]() -> std::string {
      if (i + 1 >= argc) throw Usage(a + " needs a value");
      std::string v = argv[++i];
      if (v.rfind("--", 0) == 0) throw Usage(a + " needs a value, got the option " + v);
      return v;
    };
    if (a == "--routine") o.routines = one_of(a, val(), kRoutines);
    else if (a == "--prec") o.precs = one_of(a, val(), kPrecs);
    else if (a == "--side") {
      const std::string v = val();
      if (v != "left" && v != "right") throw Usage("--side takes left or right, got " + v);
      o.side = v == "left" ? BLAS_Left : BLAS_Right;
    }
    else if (a == "--uplo") {
      const std::string v = val();
      if (v != "lower" && v != "upper") throw Usage("--uplo takes lower or upper, got " + v);
      o.uplo = v == "lower" ? BLAS_Lower : BLAS_Upper;
    }
    else if (a == "--backend") o.backends = one_of(a, val(), kBackends), o.backends_given = true;
    else if (a == "--sizes") {
      o.sizes.clear(), sizes_given = true;
      for (auto &s : split(a, val())) o.sizes.push_back(int(to_long(a, s, 1, 0x7fffffffL)));
    }
    else if (a == "--batch") o.batch = to_long(a, val(), 1, 0x7fffffffL);  // group_sizes are int
    else if (a == "--gb") {
      std::string v = val();
      o.gb = to_double(a, v);
      if (!(o.gb > 0)) throw Usage(a + ": must be > 0, got " + v);
    }
    else if (a == "--reps") o.reps = int(to_long(a, val(), 1, 1000000));
    else if (a == "--check") o.check = true;
    else if (a == "--digest") o.digest = o.check = true;
    else if (a == "--row-major") o.row_major = true;
    else if (a == "--mixed") o.mixed = true;
    else if (a == "--groups") groups = to_long(a, val(), 1, 0x7fffffffL);
    else if (a == "--one-per-group") o.one_per_group = true;
    else if (a == "--compare-groups") o.compare_groups = true;
    else if (a == "--scatter") o.scatter = true;
    else if (a == "--variable-sizes") variable_sizes(a, val(), o);
    else if (a == "--nonblocking-loop") o.nb_loop = to_long(a, val(), 1, 1000000000L);
    else if (a == "--device") {
      o.device = val();
      if (o.device != "auto" && o.device != "gpu" && o.device != "host")
        throw Usage("--device: unknown '" + o.device + "' (one of auto,gpu,host)");
    }
    else if (a == "--csv") o.csv = val();
    else if (a == "--tag") {
      o.tag = val();
      if (o.tag.find_first_of(",\"\n\r") != std::string::npos)
        throw Usage("--tag: no commas, quotes or newlines (it is one CSV field)");
    }
    else if (a.rfind("-", 0) == 0) throw Usage("unknown option " + a);
    else throw Usage("unexpected argument '" + a + "'");
  }
  o.groups = groups;
  if (groups > 1) {
    if (groups != long(o.sizes.size()))
      throw Usage("--groups " + std::to_string(groups) + " needs " + std::to_string(groups) +
                  " sizes (one per group), got " + std::to_string(o.sizes.size()));
    o.mixed = true;
  }
  if (o.var_hi) {  // one call of its own shape: the options that shape calls do not combine with it
    const std::pair<bool, const char *> clash[] = {
        {sizes_given, "--sizes"}, {o.gb != 0, "--gb (the call has --batch problems)"},
        {o.mixed, groups > 1 ? "--groups" : "--mixed"}, {o.one_per_group, "--one-per-group"},
        {o.compare_groups, "--compare-groups"}, {o.scatter, "--scatter (one problem per group)"}};
    for (const auto &c : clash)
      if (c.first) throw Usage(std::string("--variable-sizes: not with ") + c.second);
    if (o.routines != std::vector<std::string>{"gemm"}) throw Usage("--variable-sizes: --routine gemm only");
    for (const char *b : {"cublas-direct", "cublas-batched"})
      if (has(o.backends, b))
        throw Usage(std::string("--variable-sizes: ") + b +
                    " takes one order per call (native, native-devptr, vendor, vendor-grouped)");
  }
  if (o.row_major) {
    if (o.device == "host") throw Usage("--row-major: device mode only, not with --device host");
    for (const std::string &r : o.routines)
      if (r != "getrf" && r != "getri" && r != "getrf_getri")
        throw Usage("--row-major: --routine getrf, getri or getrf_getri only, got " + r);
  }
  if (o.nb_loop) {  // one strided call shape, timed as a loop: its own rows, its own backends
    if (o.device == "host") throw Usage("--nonblocking-loop: device mode only, not with --device host");
    const std::pair<bool, const char *> clash[] = {
        {o.gb != 0, "--gb (it needs --batch)"},
        {groups > 1, "--groups"}, {o.mixed && groups <= 1, "--mixed"}, {o.one_per_group, "--one-per-group"},
        {o.compare_groups, "--compare-groups"}, {o.scatter, "--scatter"}, {o.var_hi > 0, "--variable-sizes"},
        {o.backends_given, "--backend (it times native-strided-nb and cublas-direct)"}};
    for (const auto &c : clash)
      if (c.first) throw Usage(std::string("--nonblocking-loop: one strided call per loop, not with ") + c.second);
    if (o.routines != std::vector<std::string>{"gemm"}) throw Usage("--nonblocking-loop: --routine gemm only");
    if (o.sizes.size() != 1) throw Usage("--nonblocking-loop: one size (--sizes N), got " + join_ints(o.sizes));
    if (o.batch == 0) throw Usage("--nonblocking-loop: needs --batch");
  }
  if (has(o.backends, "native-strided")) {
    // One group of evenly spaced matrices, whatever the mode (host rows ignore --scatter, but
    // asking for shuffled matrices and a strided call at once is a contradiction).
    const std::pair<bool, const char *> clash[] = {
        {o.scatter, "--scatter"}, {groups > 1, "--groups"}, {o.mixed && groups <= 1, "--mixed"},
        {o.one_per_group, "--one-per-group"}, {o.compare_groups, "--compare-groups"},
        {o.var_hi > 0, "--variable-sizes"}};
    for (const auto &c : clash)
      if (c.first)
        throw Usage(std::string("--backend native-strided: one group of evenly spaced matrices per call, not with ") +
                    c.second);
    // Routines without a strided row skip it (a note at run time): each needs another backend
    // that runs on host rows (theirs always are). The factorizations have one in device mode;
    // when --device auto finds no GPU, run() makes the same check.
    std::vector<std::string> others;
    for (const std::string &r : o.routines)
      if (r != "gemm" && !(one_size_device_routine(r) && o.device != "host")) others.push_back(r);
    const bool host_backend = std::any_of(o.backends.begin(), o.backends.end(), [](const std::string &b) {
      return !device_only(b) && !strided_only(b);
    });
    if (!others.empty() && !host_backend)
      throw Usage("--backend " + join(o.backends) + ": nothing to run for " + join(others) +
                  " (native-strided: gemm, and getrf, getri, potrf, geqrf, trsm, trmm in device mode" +
                  (std::any_of(o.backends.begin(), o.backends.end(), device_only)
                       ? std::string("; native-devptr and the cuBLAS ones: device mode only")
                       : std::string()) +
                  ")");
  }
  if (o.device == "gpu") check_device_rows(o);
  return o;
}

double now_ms() {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
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
  else if (r == "getrf_getri") f = 2 * n * n * n - 3 * n * n / 2 + 5 * n / 2;  // getrf + getri
  else if (r == "potrf") f = n * n * n / 3 + n * n / 2 + n / 6;
  else if (r == "geqrf") f = 4 * n * n * n / 3 + 2 * n * n + 14 * n / 3;
  return cplx ? 4 * f : f;
}
// Bytes that must cross memory for one problem (gemm with beta != 0 reads and writes C; getrf
// writes its n pivots, getri reads them; potrf reads and writes only its triangle; geqrf writes
// n taus).
double bytes(const std::string &r, double n, double elem) {
  if (r == "gemm") return 4 * n * n * elem;
  if (r == "trsm" || r == "trmm") return (n * (n + 1) / 2 + 2 * n * n) * elem;
  if (r == "getrf" || r == "getri" || r == "getrf_getri") return 2 * n * n * elem + n * double(sizeof(int));
  if (r == "potrf") return n * (n + 1) * elem;
  if (r == "geqrf") return (2 * n * n + n) * elem;
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
  double host_read_gbps = NAN, h2d_gbps = NAN, floor_ms = NAN, call_floor_ms = NAN;  // device rows
  std::string notes;  // no commas: one CSV field
};

// Appends to a row's notes (one CSV field: no commas).
void add_note(Row &r, std::string note) {
  std::replace(note.begin(), note.end(), ',', ';');
  r.notes += (r.notes.empty() ? "" : "; ") + note;
}

// NaN marks a value that does not apply: '-' in the table, an empty CSV field.
std::string num(double v, const char *f, const char *none) {
  if (std::isnan(v)) return none;
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

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
                      "min_ms,max_ms,reps,rot,layout,tag,host_read_gbps,h2d_gbps,floor_ms,call_floor_ms,pct_floor,"
                      "notes\n");
    std::fflush(csv);
    return true;
  }
  void emit(const Row &r) {
    bool host = r.device == "host";
    if (header_printed != host + 1) {  // a header whenever the mode changes
      if (host)
        std::printf("%-6s %-5s %-14s %9s %9s %7s %11s %10s %9s %7s %8s %8s %10s\n", "rout", "prec", "backend", "n",
                    "batch", "groups", "time_ms", "GFLOP/s", "GB/s", "%bw", "vs_vend", "vs_ref", "error");
      else
        std::printf("%-6s %-5s %-14s %9s %9s %7s %10s %10s %10s %9s %6s %6s %7s %7s %7s %6s %9s %10s %7s\n", "rout",
                    "prec", "backend", "n", "batch", "groups", "time_ms", "kernel_ms", "GFLOP/s", "GB/s", "%bw", "k%bw",
                    "vs_vend", "vs_cubl", "vs_grp", "ovh", "error", "floor_ms", "%floor");
      header_printed = host + 1;
    }
    std::string n = r.groups > 1 ? r.sizes : std::to_string(r.n);
    auto t = [](double v, const char *f) { return num(v, f, "-"); };
    if (host)
      std::printf("%-6s %-5s %-14s %9s %9ld %7d %11s %10s %9s %7s %8s %8s %10s\n", r.routine.c_str(), r.prec.c_str(),
                  r.backend.c_str(), n.c_str(), r.batch, r.groups, t(r.ms, "%.3f").c_str(), t(r.gflops, "%.2f").c_str(),
                  t(r.gbps, "%.2f").c_str(), t(r.pct_bw, "%.1f").c_str(), t(r.vs_vendor, "%.2f").c_str(),
                  t(r.vs_reference, "%.2f").c_str(), t(r.error, "%.2e").c_str());
    else
      std::printf("%-6s %-5s %-14s %9s %9ld %7d %10s %10s %10s %9s %6s %6s %7s %7s %7s %6s %9s %10s %7s%s%s\n",
                  r.routine.c_str(), r.prec.c_str(), r.backend.c_str(), n.c_str(), r.batch, r.groups,
                  t(r.ms, "%.4f").c_str(), t(r.kernel_ms, "%.4f").c_str(), t(r.gflops, "%.2f").c_str(),
                  t(r.gbps, "%.2f").c_str(), t(r.pct_bw, "%.1f").c_str(), t(r.kernel_pct_bw, "%.1f").c_str(),
                  t(r.vs_vendor, "%.2f").c_str(), t(r.vs_cublas, "%.2f").c_str(), t(r.vs_grouped, "%.2f").c_str(),
                  t(r.ms / r.kernel_ms, "%.2f").c_str(), t(r.error, "%.2e").c_str(), t(r.floor_ms, "%.4f").c_str(),
                  t(100 * r.floor_ms / r.ms, "%.1f").c_str(), r.notes.empty() ? "" : "  ", r.notes.c_str());
    std::fflush(stdout);
    if (!csv) return;
    auto c = [](double v, const char *f) { return num(v, f, ""); };
    std::fprintf(csv, "%s,%s,%s,%s,%d,%d,%d,%ld,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%d,%d,%s,%s,%s,%s,%s,%s,"
                      "%s,%s\n",
                 r.device.c_str(), r.routine.c_str(), r.prec.c_str(), r.backend.c_str(), r.n, r.n, r.n, r.batch,
                 r.groups, r.sizes.c_str(), c(r.ms, "%.6f").c_str(), c(r.kernel_ms, "%.6f").c_str(),
                 c(r.gflops, "%.4f").c_str(), c(r.gbps, "%.4f").c_str(), c(r.pct_bw, "%.2f").c_str(),
                 c(r.kernel_pct_bw, "%.2f").c_str(), c(r.vs_vendor, "%.4f").c_str(), c(r.vs_cublas, "%.4f").c_str(),
                 c(r.vs_grouped, "%.4f").c_str(), c(r.vs_reference, "%.4f").c_str(), c(r.error, "%.3e").c_str(),
                 c(r.ms / r.kernel_ms, "%.3f").c_str(), c(r.copy_gbps, "%.1f").c_str(), c(r.min_ms, "%.6f").c_str(),
                 c(r.max_ms, "%.6f").c_str(), r.reps, r.rot, r.layout.c_str(), r.tag.c_str(),
                 c(r.host_read_gbps, "%.1f").c_str(), c(r.h2d_gbps, "%.1f").c_str(), c(r.floor_ms, "%.6f").c_str(),
                 c(r.call_floor_ms, "%.6f").c_str(), c(100 * r.floor_ms / r.ms, "%.2f").c_str(), r.notes.c_str());
    std::fflush(csv);
  }
};

std::string row_name(const Row &r) {
  return r.routine + " " + r.prec + " " + r.backend + " n=" + (r.groups > 1 ? r.sizes : std::to_string(r.n)) +
         " batch=" + std::to_string(r.batch) + " groups=" + std::to_string(r.groups);
}

// Speedups over the vendor backend (through the API), the direct cuBLAS call and the grouped
// cuBLAS call of the same case, then print. A wide spread of the repetitions means the median
// is not to be trusted: said on stderr, since the CSV has min_ms and max_ms anyway.
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
    if (r.max_ms > 1.5 * r.min_ms)
      std::fprintf(stderr, "warning: %s: slowest of %d repetitions took %.2fx the fastest; timing unreliable "
                           "(busy machine, or too short a call)\n", row_name(r).c_str(), r.reps, r.max_ms / r.min_ms);
  }
}

// --compare-groups: per backend, time of the call with one group per problem over the call as given.
void compare_groups(const std::vector<Row> &as_given, const std::vector<Row> &opg) {
  if (as_given.empty() || opg.empty()) return;
  std::string line;
  for (const Row &a : as_given)
    for (const Row &b : opg)
      if (a.backend == b.backend && a.groups != b.groups) line += " " + a.backend + num(b.ms / a.ms, " %.2fx", " -");
  if (line.empty()) return;
  const Row &r = opg[0];
  std::printf("one-per-group: %s %s n=%s batch=%ld, %d groups of one vs %d group(s), time ratio:%s\n",
              r.routine.c_str(), r.prec.c_str(), r.sizes.c_str(), r.batch, r.groups, as_given[0].groups, line.c_str());
}

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
    set_groups(false);
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
  // The call's per-group arguments, built once outside the timing: one entry per size group,
  // or with one_per_group one per problem (each its own group of one, same pointers).
  std::vector<int> gn, gsize;
  std::vector<BLAS_Op> nt;
  std::vector<BLAS_Side> sides;  // trsm, trmm: every group's side (tri_side, from --side)
  BLAS_Side tri_side = BLAS_Left;
  std::vector<BLAS_Uplo> lower;
  std::vector<BLAS_Diag> nonunit;
  std::vector<T> one, half_;
  void set_groups(bool one_per_group) {
    gn.clear(), gsize.clear();
    for (std::size_t g = 0; g < n.size(); ++g)
      if (one_per_group) gn.insert(gn.end(), count[g], n[g]), gsize.insert(gsize.end(), count[g], 1);
      else gn.push_back(n[g]), gsize.push_back(int(count[g]));
    std::size_t G = gn.size();
    nt.assign(G, BLAS_NoTrans), sides.assign(G, tri_side), lower.assign(G, BLAS_Lower);
    nonunit.assign(G, BLAS_NonUnit), one.assign(G, T(1)), half_.assign(G, T(0.5f));
  }
  int groups() const { return int(gn.size()); }
  int call_routine(const std::string &r) {
    int G = groups();
    const int *d = gn.data(), *sizes = gsize.data();
    if (r == "gemm")
      return Api<T>::gemm(BLAS_ColMajor, nt.data(), nt.data(), d, d, d, one.data(), ptr[0].data(), d,
                          ptr[1].data(), d, half_.data(), ptr[2].data(), d, G, sizes, info.data());
    if (r == "trsm" || r == "trmm")
      return (r == "trsm" ? Api<T>::trsm : Api<T>::trmm)(BLAS_ColMajor, sides.data(), lower.data(), nt.data(),
                                                        nonunit.data(), d, d, one.data(), ptr[0].data(), d,
                                                        ptr[1].data(), d, G, sizes, info.data());
    if (r == "getrf") return Api<T>::getrf(BLAS_ColMajor, d, d, ptr[0].data(), d, piv.data(), G, sizes, info.data());
    if (r == "getri") return Api<T>::getri(BLAS_ColMajor, d, ptr[0].data(), d, piv.data(), G, sizes, info.data());
    if (r == "getrf_getri")
      return Api<T>::getrf_getri(BLAS_ColMajor, d, ptr[0].data(), d, piv.data(), G, sizes, info.data());
    if (r == "potrf") return Api<T>::potrf(BLAS_ColMajor, lower.data(), d, ptr[0].data(), d, G, sizes, info.data());
    if (r == "geqrf")
      return Api<T>::geqrf(BLAS_ColMajor, d, d, ptr[0].data(), d, ptr[1].data(), G, sizes, info.data());
    std::fprintf(stderr, "unknown routine %s\n", r.c_str());
    std::exit(2);
  }
  // native-strided: gemm with one group, the same matrices (back to back: problem p at
  // base + p n^2) through the strided entry point. False when the case is not one group.
  bool strided_ok() const { return routine == "gemm" && n.size() == 1 && groups() == 1; }
  int call_strided() {
    const int m = n[0];
    const int64_t st = int64_t(m) * m;
    return Api<T>::gemm_strided(BLAS_ColMajor, BLAS_NoTrans, BLAS_NoTrans, m, m, m, one.data(), work[0].data(), m,
                                st, work[1].data(), m, st, half_.data(), work[2].data(), m, st, int(total),
                                info.data());
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

// The call as given, with one group per problem, or both (--compare-groups).
std::vector<bool> groupings(const Options &o) {
  if (o.compare_groups) return {false, true};
  return {o.one_per_group};
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
    c.count.push_back(std::min(b, 0x7fffffffL));  // group_sizes are int
  }
  std::string label = routine + " " + prec + " n=" + join_sizes(sizes);
  long total = std::accumulate(c.count.begin(), c.count.end(), 0L);
  if ((o.one_per_group || o.compare_groups) && total > 0x7fffffffL) {
    std::fprintf(stderr, "%s: skipped, %ld problems are too many groups for --one-per-group\n", label.c_str(), total);
    return;
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
  std::vector<std::vector<Row>> done;
  c.tri_side = o.side;
  for (bool one_per_group : groupings(o)) {
    c.set_groups(one_per_group);
    std::vector<T> reference_out;
    std::vector<Row> mine;
    for (const std::string &backend : backends) {
      if (device_only(backend)) continue;  // main noted it
      const bool strided = strided_only(backend);
      if (strided && routine != "gemm") continue;  // main noted it
      if (strided && !c.strided_ok()) {  // parse() refuses the options that make several groups
        std::fprintf(stderr, "%s native-strided: skipped, the call is not one group\n", label.c_str());
        continue;
      }
      setenv("BLAS_BATCHED_BACKEND", strided ? "native" : backend.c_str(), 1);
      auto call = [&] { return strided ? c.call_strided() : c.call(); };
      c.restore();
      int rc = call();  // warm-up
      std::vector<double> t;
      int reps = backend == "reference" ? std::max(1, std::min(o.reps, 3)) : o.reps;
      for (int r = 0; r < reps && rc == 0; ++r) {
        c.restore();
        double t0 = now_ms();
        rc = call();
        t.push_back(now_ms() - t0);
      }
      // A failed call's time means nothing (rc > 0: problems with info != 0 on well-posed input).
      if (rc != 0) {
        std::fprintf(stderr, "%s %s%s: skipped, %s\n", label.c_str(), backend.c_str(),
                     one_per_group ? " one-per-group" : "", rc_text(rc).c_str());
        continue;
      }
      Row row;
      row.routine = routine, row.prec = prec, row.backend = backend;
      row.n = sizes.size() == 1 ? sizes[0] : 0, row.sizes = join_sizes(sizes);
      row.batch = c.total, row.groups = c.groups(), row.tag = o.tag;
      if (one_per_group) row.layout += "/one-per-group";
      if ((routine == "trsm" || routine == "trmm") && o.side == BLAS_Right) add_note(row, "side Right");
      row.ms = median(t), row.min_ms = *std::min_element(t.begin(), t.end());
      row.max_ms = *std::max_element(t.begin(), t.end()), row.reps = reps;
      row.gflops = fl / (row.ms * 1e6), row.gbps = total_bytes / (row.ms * 1e6);
      row.pct_bw = 100 * row.gbps / bw, row.copy_gbps = bw;
      if (o.check) {  // the reference ran first
        if (backend == "reference") reference_out = c.output();
        else if (reference_out.size() == c.output().size()) row.error = rel_error(c.output(), reference_out);
        else std::fprintf(stderr, "%s %s: no check, the reference row failed\n", label.c_str(), backend.c_str());
      }
      mine.push_back(row);
    }
    unsetenv("BLAS_BATCHED_BACKEND");
    finish_case(mine, out);
    done.push_back(mine);
  }
  if (done.size() == 2) compare_groups(done[0], done[1]);
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
#if BB_BENCH_CUSOLVER
// cuSOLVER has no status-to-text function.
std::string cusolver_text(cusolverStatus_t s) {
  switch (s) {
    case CUSOLVER_STATUS_SUCCESS: return "CUSOLVER_STATUS_SUCCESS";
    case CUSOLVER_STATUS_NOT_INITIALIZED: return "CUSOLVER_STATUS_NOT_INITIALIZED";
    case CUSOLVER_STATUS_ALLOC_FAILED: return "CUSOLVER_STATUS_ALLOC_FAILED";
    case CUSOLVER_STATUS_INVALID_VALUE: return "CUSOLVER_STATUS_INVALID_VALUE";
    case CUSOLVER_STATUS_ARCH_MISMATCH: return "CUSOLVER_STATUS_ARCH_MISMATCH";
    case CUSOLVER_STATUS_MAPPING_ERROR: return "CUSOLVER_STATUS_MAPPING_ERROR";
    case CUSOLVER_STATUS_EXECUTION_FAILED: return "CUSOLVER_STATUS_EXECUTION_FAILED";
    case CUSOLVER_STATUS_INTERNAL_ERROR: return "CUSOLVER_STATUS_INTERNAL_ERROR";
    case CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED: return "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
    case CUSOLVER_STATUS_NOT_SUPPORTED: return "CUSOLVER_STATUS_NOT_SUPPORTED";
    default: return "cusolverStatus_t " + std::to_string(int(s));
  }
}
void cusolver_ok(cusolverStatus_t s, const char *what, int line) {
  if (s == CUSOLVER_STATUS_SUCCESS) return;
  std::fprintf(stderr, "bench.cpp:%d: %s failed: %s\n", line, what, cusolver_text(s).c_str());
  std::exit(1);
}
#define CUSOLVER_OK(x) cusolver_ok((x), #x, __LINE__)
#endif

// A thread's sum of words [lo, hi), cloned per instruction set as the library's pointer scan is
// (src/device/pointer_scan.cpp): the floor must not be a read slower than the library's own
// (at the baseline ISA 16 threads of the H200 host summed 83-95 GB/s; the scan with AVX-512 read
// pointers at 211).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#endif
std::uint64_t sum_words(const std::uint64_t *b, std::int64_t lo, std::int64_t hi) {
  std::uint64_t sum = 0;
  for (std::int64_t i = lo; i < hi; ++i) sum += b[i];
  return sum;
}

// Host read bandwidth with every OpenMP thread (the library's pass over the pointer arrays
// runs on them): a sum over 1 GiB, far beyond the caches, first touched by the threads that
// read it; best of 5.
double host_read_bandwidth() {
  const std::int64_t words = (std::int64_t(1) << 30) / 8;
  std::unique_ptr<std::uint64_t[]> buf(new std::uint64_t[words]);
  std::uint64_t *b = buf.get();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < words; ++i) b[i] = std::uint64_t(i);
  double best = 0;
  for (int r = 0; r < 5; ++r) {
    const double t0 = now_ms();
    std::uint64_t sum = 0;
#pragma omp parallel reduction(+ : sum)
    {
      const std::int64_t w = omp_get_num_threads(), t = omp_get_thread_num();
      sum += sum_words(b, words * t / w, words * (t + 1) / w);
    }
    const double ms = now_ms() - t0;
    if (sum != std::uint64_t(words) * std::uint64_t(words - 1) / 2) return NAN;  // the sum is used: no read skipped
    best = std::max(best, 8.0 * words / (ms * 1e6));
  }
  return best;
}

// An empty kernel for the call floor. The bench is plain C++ (no nvcc): the driver compiles
// this PTX when it is loaded.
const char kEmptyKernelPtx[] = ".version 7.0\n.target sm_50\n.address_size 64\n"
                               ".visible .entry bb_bench_empty() { ret; }\n";

struct Gpu {
  std::string name;        // spaces -> '-'
  std::size_t l2 = 0, free_mem = 0, total_mem = 0;
  int sms = 0;
  double copy_gbps = NAN, host_read_gbps = NAN, h2d_gbps = NAN;
  cudaStream_t stream = nullptr;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
  cublasHandle_t blas = nullptr;
#if BB_BENCH_CUSOLVER
  cusolverDnHandle_t solver = nullptr;  // made on first use (potrf's cublas-direct rows), on `stream`
#endif
  cudaLibrary_t lib = nullptr;
  cudaKernel_t empty = nullptr;
  void *pinned = nullptr, *staging = nullptr;  // upload buffers (pinned host, device), grown on demand
  std::size_t staged = 0;

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
    host_read_gbps = host_read_bandwidth();
    h2d_gbps = measure_h2d();
    CUDA_OK(cudaLibraryLoadData(&lib, kEmptyKernelPtx, nullptr, nullptr, 0, nullptr, nullptr, 0));
    CUDA_OK(cudaLibraryGetKernel(&empty, lib, "bb_bench_empty"));
    return "";
  }
  void close() {
    blas_batched_set_cuda_stream(nullptr);  // back to the library's own stream before ours goes
    release_staging();
    CUDA_OK(cudaLibraryUnload(lib));
#if BB_BENCH_CUSOLVER
    if (solver) CUSOLVER_OK(cusolverDnDestroy(solver));
#endif
    CUBLAS_OK(cublasDestroy(blas));
    CUDA_OK(cudaEventDestroy(e0));
    CUDA_OK(cudaEventDestroy(e1));
    CUDA_OK(cudaStreamDestroy(stream));
  }
#if BB_BENCH_CUSOLVER
  // The cuSOLVER handle, made once (it loads cuSOLVER and takes device memory: only runs that
  // call it pay), its work on the bench's stream.
  cusolverDnHandle_t solver_handle() {
    if (!solver) {
      CUSOLVER_OK(cusolverDnCreate(&solver));
      CUSOLVER_OK(cusolverDnSetStream(solver, stream));
    }
    return solver;
  }
#endif
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
  // Upload buffers of at least `bytes`; false, with a note, when they cannot be had (the
  // floors are then partly unknown, the run goes on).
  bool reserve(std::size_t bytes) {
    if (bytes <= staged) return true;
    release_staging();
    if (cudaHostAlloc(&pinned, bytes, cudaHostAllocDefault) != cudaSuccess || cudaMalloc(&staging, bytes) != cudaSuccess) {
      cudaGetLastError();  // not sticky: clear it
      release_staging();
      std::fprintf(stderr, "note: no %.1f MB of upload buffers: floors without the upload\n", bytes / 1e6);
      return false;
    }
    staged = bytes;
    return true;
  }
  void release_staging() {
    if (pinned) CUDA_OK(cudaFreeHost(pinned));
    if (staging) CUDA_OK(cudaFree(staging));
    pinned = staging = nullptr, staged = 0;
  }
  // Copy of 256 MiB from pinned memory, best of 5 after a warm-up: what an upload can reach.
  double measure_h2d() {
    const std::size_t sz = std::size_t(256) << 20;
    if (!reserve(sz)) return NAN;
    std::memset(pinned, 1, sz);
    double best = 0;
    for (int r = 0; r < 6; ++r) {
      CUDA_OK(cudaEventRecord(e0, stream));
      CUDA_OK(cudaMemcpyAsync(staging, pinned, sz, cudaMemcpyHostToDevice, stream));
      CUDA_OK(cudaEventRecord(e1, stream));
      const double ms = elapsed();
      if (r > 0) best = std::max(best, double(sz) / (ms * 1e6));
    }
    return best;
  }
  // The fixed cost of a synchronous call that uploads `bytes`: one copy from pinned memory, one
  // empty kernel, one synchronize, on the wall clock; the median of 21 after 3 warm-ups.
  // bytes = 0: no copy (a call that uploads nothing: native-strided).
  double call_floor(std::size_t bytes) {
    if (bytes && !reserve(bytes)) return NAN;
    std::vector<double> t;
    for (int r = 0; r < 24; ++r) {
      const double t0 = now_ms();
      if (bytes) CUDA_OK(cudaMemcpyAsync(staging, pinned, bytes, cudaMemcpyHostToDevice, stream));
      CUDA_OK(cudaLaunchKernel((const void *)empty, dim3(1), dim3(1), nullptr, 0, stream));
      CUDA_OK(cudaStreamSynchronize(stream));
      if (r >= 3) t.push_back(now_ms() - t0);
    }
    return median(t);
  }
  // The fixed cost per call of a loop of `calls` non-blocking calls: as many empty kernels back
  // to back and one synchronize, on the wall clock, / calls; the median of 5 after a warm-up.
  double loop_floor(long calls) {
    std::vector<double> t;
    for (int r = 0; r < 6; ++r) {
      const double t0 = now_ms();
      for (long i = 0; i < calls; ++i)
        CUDA_OK(cudaLaunchKernel((const void *)empty, dim3(1), dim3(1), nullptr, 0, stream));
      CUDA_OK(cudaStreamSynchronize(stream));
      if (r >= 1) t.push_back((now_ms() - t0) / calls);
    }
    return median(t);
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

// cu_batched's precisions: typed s, d, c, z, and r16 through the Ex entry. cuBLAS has no
// c16 batched gemm (its Ex entries take no CUDA_C_16F), nor anything for r128 and c128.
template <class T> constexpr bool cublas_batched_ok = cublas_typed<T> || std::is_same_v<T, bb::half>;

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

// cuBLAS has typed grouped gemm for s and d only. Its Ex entry rejects the complex types, and for
// half it failed to launch on the --variable-sizes call (100000 groups, orders 2..32; H100, CUDA
// 13.0), leaving a sticky misaligned-address error that ends the run: that call leaves them out.
template <class T> constexpr bool cublas_grouped_typed = std::is_same_v<T, double> || std::is_same_v<T, float>;

// The per-group operations and scalars of the grouped call, built once outside the timing
// (a call of a group per problem has hundreds of thousands).
template <class T>
struct CuGroups {
  std::vector<cublasOperation_t> op;
  std::vector<typename Scale<T>::type> alpha, beta;
  void assign(std::size_t G) {
    op.assign(G, CUBLAS_OP_N), alpha.assign(G, Scale<T>::make(1)), beta.assign(G, Scale<T>::make(0.5));
  }
};

// One grouped call over all groups (cuBLAS has typed ones for s and d only; the others go
// through the Ex entry, which may answer NOT_SUPPORTED for some types).
template <class T>
cublasStatus_t cu_grouped(cublasHandle_t h, const std::vector<int> &n, const std::vector<int> &count,
                          const CuGroups<T> &args, T *const *dA, T *const *dB, T *const *dC) {
  int G = int(n.size());
  const cublasOperation_t *N = args.op.data();
  const auto *a = args.alpha.data(), *b = args.beta.data();
  if constexpr (std::is_same_v<T, double>)
    return cublasDgemmGroupedBatched(h, N, N, n.data(), n.data(), n.data(), a, (const double *const *)dA, n.data(),
                                     (const double *const *)dB, n.data(), b, (double *const *)dC, n.data(), G,
                                     count.data());
  else if constexpr (std::is_same_v<T, float>)
    return cublasSgemmGroupedBatched(h, N, N, n.data(), n.data(), n.data(), a, (const float *const *)dA, n.data(),
                                     (const float *const *)dB, n.data(), b, (float *const *)dC, n.data(), G,
                                     count.data());
  else if constexpr (cublas_typed<T> || cublas_ex<T>)
    return cublasGemmGroupedBatchedEx(h, N, N, n.data(), n.data(), n.data(), a, (const void *const *)dA, cu_type<T>(),
                                      n.data(), (const void *const *)dB, cu_type<T>(), n.data(), b,
                                      (void *const *)dC, cu_type<T>(), n.data(), G, count.data(), cu_compute<T>());
  else return CUBLAS_STATUS_NOT_SUPPORTED;
}

// ---- direct cuBLAS/cuSOLVER factorizations (s, d, c, z: neither has half or quad ones) ----
template <class T>
cublasStatus_t cu_getrf(cublasHandle_t h, int n, T *const *dA, int *P, int *info, int batch) {
  if constexpr (std::is_same_v<T, double>) return cublasDgetrfBatched(h, n, (double *const *)dA, n, P, info, batch);
  else if constexpr (std::is_same_v<T, float>) return cublasSgetrfBatched(h, n, (float *const *)dA, n, P, info, batch);
  else if constexpr (std::is_same_v<T, bb::complex<double>>)
    return cublasZgetrfBatched(h, n, (cuDoubleComplex *const *)dA, n, P, info, batch);
  else if constexpr (std::is_same_v<T, bb::complex<float>>)
    return cublasCgetrfBatched(h, n, (cuComplex *const *)dA, n, P, info, batch);
  else return CUBLAS_STATUS_NOT_SUPPORTED;
}
// Out of place: dC[p] = inv(A_p) from the LU factors in dA[p] and the pivots P + p n.
template <class T>
cublasStatus_t cu_getri(cublasHandle_t h, int n, T *const *dA, const int *P, T *const *dC, int *info, int batch) {
  if constexpr (std::is_same_v<T, double>)
    return cublasDgetriBatched(h, n, (const double *const *)dA, n, P, (double *const *)dC, n, info, batch);
  else if constexpr (std::is_same_v<T, float>)
    return cublasSgetriBatched(h, n, (const float *const *)dA, n, P, (float *const *)dC, n, info, batch);
  else if constexpr (std::is_same_v<T, bb::complex<double>>)
    return cublasZgetriBatched(h, n, (const cuDoubleComplex *const *)dA, n, P, (cuDoubleComplex *const *)dC, n, info,
                               batch);
  else if constexpr (std::is_same_v<T, bb::complex<float>>)
    return cublasCgetriBatched(h, n, (const cuComplex *const *)dA, n, P, (cuComplex *const *)dC, n, info, batch);
  else return CUBLAS_STATUS_NOT_SUPPORTED;
}

// In place, square: A's R above the diagonal and the reflectors below, tau n entries per problem;
// dA and dTau device arrays of device pointers; info one host int (argument errors only).
template <class T>
cublasStatus_t cu_geqrf(cublasHandle_t h, int n, T *const *dA, T *const *dTau, int *info, int batch) {
  if constexpr (std::is_same_v<T, double>)
    return cublasDgeqrfBatched(h, n, n, (double *const *)dA, n, (double *const *)dTau, info, batch);
  else if constexpr (std::is_same_v<T, float>)
    return cublasSgeqrfBatched(h, n, n, (float *const *)dA, n, (float *const *)dTau, info, batch);
  else if constexpr (std::is_same_v<T, bb::complex<double>>)
    return cublasZgeqrfBatched(h, n, n, (cuDoubleComplex *const *)dA, n, (cuDoubleComplex *const *)dTau, info, batch);
  else if constexpr (std::is_same_v<T, bb::complex<float>>)
    return cublasCgeqrfBatched(h, n, n, (cuComplex *const *)dA, n, (cuComplex *const *)dTau, info, batch);
  else return CUBLAS_STATUS_NOT_SUPPORTED;
}
// Lower, NoTrans, NonUnit, m = n, in place on B; dA and dB device arrays of device pointers.
template <class T>
cublasStatus_t cu_trsm(cublasHandle_t h, BLAS_Side side, int n, T alpha, T *const *dA, T *const *dB, int batch) {
  const cublasSideMode_t L = side == BLAS_Left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT;
  const cublasFillMode_t lo = CUBLAS_FILL_MODE_LOWER;
  const cublasOperation_t N = CUBLAS_OP_N;
  const cublasDiagType_t nu = CUBLAS_DIAG_NON_UNIT;
  if constexpr (std::is_same_v<T, double>)
    return cublasDtrsmBatched(h, L, lo, N, nu, n, n, &alpha, (const double *const *)dA, n, (double *const *)dB, n, batch);
  else if constexpr (std::is_same_v<T, float>)
    return cublasStrsmBatched(h, L, lo, N, nu, n, n, &alpha, (const float *const *)dA, n, (float *const *)dB, n, batch);
  else if constexpr (std::is_same_v<T, bb::complex<double>>)
    return cublasZtrsmBatched(h, L, lo, N, nu, n, n, (const cuDoubleComplex *)&alpha, (const cuDoubleComplex *const *)dA,
                              n, (cuDoubleComplex *const *)dB, n, batch);
  else if constexpr (std::is_same_v<T, bb::complex<float>>)
    return cublasCtrsmBatched(h, L, lo, N, nu, n, n, (const cuComplex *)&alpha, (const cuComplex *const *)dA, n,
                              (cuComplex *const *)dB, n, batch);
  else return CUBLAS_STATUS_NOT_SUPPORTED;
}
#if BB_BENCH_CUSOLVER
// Lower: A = L L^H, L in the lower triangle (cuSOLVER uses the upper one as workspace); info per
// problem in device memory.
template <class T>
cusolverStatus_t cu_potrf(cusolverDnHandle_t h, int n, T **dA, int *info, int batch) {
  const cublasFillMode_t lower = CUBLAS_FILL_MODE_LOWER;
  if constexpr (std::is_same_v<T, double>) return cusolverDnDpotrfBatched(h, lower, n, (double **)dA, n, info, batch);
  else if constexpr (std::is_same_v<T, float>) return cusolverDnSpotrfBatched(h, lower, n, (float **)dA, n, info, batch);
  else if constexpr (std::is_same_v<T, bb::complex<double>>)
    return cusolverDnZpotrfBatched(h, lower, n, (cuDoubleComplex **)dA, n, info, batch);
  else if constexpr (std::is_same_v<T, bb::complex<float>>)
    return cusolverDnCpotrfBatched(h, lower, n, (cuComplex **)dA, n, info, batch);
  else return CUSOLVER_STATUS_NOT_SUPPORTED;
}
#endif

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
  int *dinfo = nullptr;                  // info in device memory (native-devptr, --nonblocking-loop)
  // Per-group arguments of the API and grouped cuBLAS calls, built once outside the timing:
  // one entry per size group, or with one_per_group one per problem (same pointers).
  std::vector<int> gn, gsize;
  std::vector<BLAS_Op> nt;
  std::vector<T> one, half_;
  CuGroups<T> cu;
  void set_groups(bool one_per_group) {
    gn.clear(), gsize.clear();
    for (std::size_t g = 0; g < n.size(); ++g)
      if (one_per_group) gn.insert(gn.end(), count[g], n[g]), gsize.insert(gsize.end(), count[g], 1);
      else gn.push_back(n[g]), gsize.push_back(count[g]);
    std::size_t G = gn.size();
    nt.assign(G, BLAS_NoTrans), one.assign(G, T(1)), half_.assign(G, T(0.5f));
    cu.assign(G);
  }

  ~DevCase() {
    for (T *b : buf)
      if (b) CUDA_OK(cudaFree(b));
    if (dptr) CUDA_OK(cudaFree(dptr));
    if (dinfo) CUDA_OK(cudaFree(dinfo));
  }
  int group_of(long p) const { return int(std::upper_bound(first.begin(), first.end(), p) - first.begin()) - 1; }

  // Empty string: ready; otherwise why the case cannot run.
  std::string setup(Gpu &gpu, bool scatter_, bool want_dptr, bool want_dinfo) {
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
    if (want_dinfo) CUDA_OK(cudaMalloc(&dinfo, total * sizeof(int)));
    set_groups(false);
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
    const int *d = gn.data();
    return Api<T>::gemm(BLAS_ColMajor, nt.data(), nt.data(), d, d, d, one.data(), ptr[0][s].data(), d,
                        ptr[1][s].data(), d, half_.data(), ptr[2][s].data(), d, groups(), gsize.data(),
                        info.data());
  }
  // native-devptr: the same call with the device copies of the pointer arrays and info in device
  // memory (the library detects both, SPEC 9.2); the per-group arguments stay host memory.
  int devptr_call(int s) {
    const int *d = gn.data();
    return Api<T>::gemm(BLAS_ColMajor, nt.data(), nt.data(), d, d, d, one.data(), const_cast<T **>(dp(s, 0)), d,
                        const_cast<T **>(dp(s, 1)), d, half_.data(), const_cast<T **>(dp(s, 2)), d, groups(),
                        gsize.data(), dinfo);
  }
  int groups() const { return int(gn.size()); }
  // native-strided: one group of back-to-back matrices, problem p of set s at
  // buf[o] + s * set_elems + p n^2 (the addresses of ptr[o][s]), through the strided entry point.
  bool strided_ok() const { return n.size() == 1 && groups() == 1 && !scatter; }
  int strided_call(int s, int *inf) {
    const int m = n[0];
    const int64_t st = int64_t(m) * m;
    const std::size_t base = std::size_t(s) * set_elems;
    return Api<T>::gemm_strided(BLAS_ColMajor, BLAS_NoTrans, BLAS_NoTrans, m, m, m, one.data(), buf[0] + base, m, st,
                                buf[1] + base, m, st, half_.data(), buf[2] + base, m, st, count[0], inf);
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
  // cublas-batched: cuBLAS's pointer-array form on the same device arrays, one call per size.
  cublasStatus_t cublas_batched(cublasHandle_t h, int s) {
    for (std::size_t g = 0; g < n.size(); ++g) {
      const long f = first[g];
      cublasStatus_t st = cu_batched<T>(h, n[g], dp(s, 0) + f, dp(s, 1) + f, dp(s, 2) + f, count[g]);
      if (st != CUBLAS_STATUS_SUCCESS) return st;
    }
    return CUBLAS_STATUS_SUCCESS;
  }
  cublasStatus_t cublas_grouped(cublasHandle_t h, int s) {
    return cu_grouped<T>(h, gn, gsize, cu, dp(s, 0), dp(s, 1), dp(s, 2));
  }

  // Sample problems: first and last of the call and of each group, and a few random ones. With
  // many groups (--variable-sizes: one per problem) only the first and last 8 groups, and more
  // random problems.
  std::vector<long> samples() const {
    std::vector<long> p{0, total - 1};
    const std::size_t G = n.size();
    for (std::size_t g = 0; g < G; ++g)
      if (G <= 16 || g < 8 || g >= G - 8) p.push_back(first[g]), p.push_back(first[g] + count[g] - 1);
    std::mt19937_64 rng(99);
    for (int i = 0; i < (G <= 16 ? 4 : 16); ++i) p.push_back(long(rng() % std::uint64_t(total)));
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
  // Before a checked call: device info set to -1 everywhere, so a problem the call leaves
  // unwritten shows. After it: "" when all of info came back 0, else what did not.
  void poison_dinfo(cudaStream_t st) { CUDA_OK(cudaMemsetAsync(dinfo, 0xff, total * sizeof(int), st)); }
  std::string dinfo_zero(cudaStream_t st) {
    std::vector<int> h(std::size_t(total), 0);
    CUDA_OK(cudaMemcpyAsync(h.data(), dinfo, h.size() * sizeof(int), cudaMemcpyDeviceToHost, st));
    CUDA_OK(cudaStreamSynchronize(st));
    long bad = 0, at = -1;
    for (long p = 0; p < total; ++p)
      if (h[p] != 0 && bad++ == 0) at = p;
    if (!bad) return "";
    return "device info: " + std::to_string(bad) + " problem(s) not 0 (first: problem " + std::to_string(at) +
           " info " + std::to_string(h[at]) + ")";
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

// Once per run: device rows have no reference row.
void note_reference_skipped() {
  static bool said = false;
  if (!said) std::fprintf(stderr, "note: the reference backend runs on host data only; skipped in device mode "
                                  "(--check compares with a host computation in double)\n");
  said = true;
}

// time(theirs) / time(mine) in the notes of mine's row, when the call has both rows (native-devptr
// against cublas-batched: vs_cublas stays against cublas-direct on every row).
void note_ratio(std::vector<Row> &rows, const char *theirs, const char *mine) {
  const Row *t = nullptr;
  for (const Row &r : rows)
    if (r.backend == theirs) t = &r;
  for (Row &r : rows)
    if (t && r.backend == mine) add_note(r, std::string(theirs) + "/" + mine + num(t->ms / r.ms, " %.2fx", " -"));
}

// --variable-sizes: time(vendor-grouped) / time(native) in the notes of the call's rows, or why
// vendor-grouped has no row (cuBLAS lacks the precision).
void note_grouped_ratio(std::vector<Row> &rows, const std::string &grouped_why) {
  const Row *native = nullptr, *grouped = nullptr;
  for (const Row &r : rows) {
    if (r.backend == "native") native = &r;
    if (r.backend == "vendor-grouped") grouped = &r;
  }
  std::string note;
  if (native && grouped) note = "vendor-grouped/native " + num(grouped->ms / native->ms, "%.2fx", "-");
  else if (!grouped_why.empty()) note = "no vendor-grouped: " + grouped_why;
  if (!note.empty())
    for (Row &r : rows) add_note(r, note);
}

// The floor of one API gemm call on this machine, the same on every backend's row of it
// (--help says how). per_problem_upload: pointer arrays, or a run description per problem, must
// go to the device; else only the per-group part is uploaded (evenly spaced pointers are not).
struct Floor {
  double ms = NAN, call_ms = NAN;
};

// A device row's timing columns: the median call (t) and kernel (kt; NaN where the library
// timed only part of the call) over the reps, rates for `flops` and `bytes`, the call's floor.
inline void set_device_timing(Row &row, const Gpu &gpu, const std::vector<double> &t, const std::vector<double> &kt,
                              double flops, double bytes, const Floor &f, bool partial_kernel) {
  row.ms = median(t), row.min_ms = *std::min_element(t.begin(), t.end());
  row.max_ms = *std::max_element(t.begin(), t.end());
  row.kernel_ms = std::any_of(kt.begin(), kt.end(), [](double x) { return std::isnan(x); }) ? NAN : median(kt);
  row.gflops = flops / (row.ms * 1e6), row.gbps = bytes / (row.ms * 1e6);
  row.copy_gbps = gpu.copy_gbps, row.pct_bw = 100 * row.gbps / gpu.copy_gbps;
  row.kernel_pct_bw = 100 * bytes / (row.kernel_ms * 1e6) / gpu.copy_gbps;
  row.host_read_gbps = gpu.host_read_gbps, row.h2d_gbps = gpu.h2d_gbps;
  row.floor_ms = f.ms, row.call_floor_ms = f.call_ms;
  if (partial_kernel) row.notes = "no kernel_ms: the library timed only the last chunk of its strided call";
  // Library rows take kernel_ms and time_ms from different calls (TimingPasses): noise can put
  // the first above the second.
  else if (row.kernel_ms > row.ms) row.notes = "kernel_ms above time_ms: separate calls; the spread of the repetitions";
}
// A library row's repetitions: each is two calls on consecutive input sets, the first with the
// library's device timing on (kernel_ms), the second with it off (time_ms: the timing adds two
// event records, a synchronize and an elapsed-time query to a call, which a user does not
// run). Other rows, and a library without blas_batched_set_device_timing: one call a
// repetition gives both. The input sets go on rotating call after call, so each pass finds
// its inputs out of L2 as the other does.
struct TimingPasses {
  bool split;
  explicit TimingPasses(bool library_call) : split(library_call && &blas_batched_set_device_timing) {}
  ~TimingPasses() {
    if (split) blas_batched_set_device_timing(-1);  // back to the environment (on, for the bench)
  }
  TimingPasses(const TimingPasses &) = delete;
  TimingPasses &operator=(const TimingPasses &) = delete;
  int first() const { return split ? 0 : 1; }  // passes first() .. 1 a repetition
  void begin(int pass) const {
    if (split && blas_batched_set_device_timing(pass == 0 ? 1 : 0) != 0) throw std::runtime_error("blas_batched_set_device_timing failed");
  }
  bool whole_call(int pass) const { return pass == 1; }     // its time goes into time_ms
  bool kernel(int pass) const { return pass == 0 || !split; }  // its device time into kernel_ms
};

// A device row's repetitions (TimingPasses): each call on the next input set (evicted from L2
// by the calls since its last use), timed by events on the bench's stream around it (the call
// is synchronous, so they span the whole call, host work included); then measured(set, ms,
// whole_call, kernel): what the row keeps of it, and what follows it outside the timing.
template <class Call, class Measured>
void run_repetitions(Gpu &gpu, int reps, int rot, bool library_call, Call &call, std::string &why, Measured measured) {
  TimingPasses passes(library_call);
  int s = 0;
  for (int r = 0; r < reps && why.empty(); ++r)
    for (int pass = passes.first(); pass < 2 && why.empty(); ++pass) {
      passes.begin(pass);
      s = (s + 1) % rot;
      CUDA_OK(cudaEventRecord(gpu.e0, gpu.stream));
      why = call(s);
      CUDA_OK(cudaEventRecord(gpu.e1, gpu.stream));
      measured(s, gpu.elapsed(), passes.whole_call(pass), passes.kernel(pass));
    }
}
// Host bytes of one group's arguments: transA, transB; m, n, k, lda, ldb, ldc, group_size; alpha, beta.
template <class T>
constexpr double gemm_group_bytes() { return 2.0 * sizeof(BLAS_Op) + 7.0 * sizeof(int) + 2.0 * sizeof(T); }
// A call's floor from the host's share of it (host_ms), what its fixed cost uploads, and its
// matrix traffic at copy bandwidth, never below the fixed cost.
Floor floor_from(Gpu &gpu, double host_ms, std::size_t upload_bytes, double matrix_bytes) {
  Floor f;
  f.call_ms = gpu.call_floor(upload_bytes);
  f.ms = std::fmax(std::fmax(host_ms, matrix_bytes / (gpu.copy_gbps * 1e6)), f.call_ms);  // NaN: left out
  return f;
}

// The floor of one group call whose pointer arrays and info are host memory: `ptrs` pointers and
// an info per problem, group_bytes for all the groups' arguments.
Floor api_floor(Gpu &gpu, long problems, int ptrs, double group_bytes, bool per_problem_upload, double matrix_bytes) {
  const double host_bytes = problems * (ptrs * double(sizeof(void *)) + sizeof(int)) + group_bytes;
  double host_ms = host_bytes / (gpu.host_read_gbps * 1e6);
  if (per_problem_upload) host_ms += host_bytes / (gpu.h2d_gbps * 1e6);
  return floor_from(gpu, host_ms, std::size_t(per_problem_upload ? host_bytes : group_bytes), matrix_bytes);
}

template <class T>
Floor gemm_floor(Gpu &gpu, long problems, long groups, bool per_problem_upload, double matrix_bytes) {
  return api_floor(gpu, problems, 3, groups * gemm_group_bytes<T>(), per_problem_upload, matrix_bytes);  // A, B, C
}
// Host bytes of one factorization group's arguments: getrf's and geqrf's m, n, lda, group_size;
// getri's n, lda, group_size; potrf's uplo, n, lda, group_size.
inline double factor_group_bytes(const std::string &r) {
  // trsm, trmm: side, uplo, A_trans, diag, m, n, lda, ldb, group_size and alpha (at most 16 bytes)
  if (r == "trsm" || r == "trmm") return 4.0 * sizeof(BLAS_Side) + 5.0 * sizeof(int) + 16;
  if (r == "getri" || r == "getrf_getri") return 3.0 * sizeof(int);
  if (r == "potrf") return sizeof(BLAS_Uplo) + 3.0 * sizeof(int);
  return 4.0 * sizeof(int);
}
// Pointer arrays of a factorization call: A, and getrf's and getri's ipiv or geqrf's tau.
inline int factor_pointers(const std::string &r) { return r == "potrf" ? 1 : 2; }

// The floor of one strided call (native-strided): no pointer arrays and no per-group arrays
// are read or uploaded; the caller's info array (host memory) is still written per problem.
inline Floor strided_floor(Gpu &gpu, long problems, double matrix_bytes) {
  return floor_from(gpu, problems * double(sizeof(int)) / (gpu.host_read_gbps * 1e6), 0, matrix_bytes);
}

// The floor of one group call with device pointer arrays and device info (native-devptr): nothing
// per problem is read or uploaded by the host; the per-group arguments are still read there.
inline Floor devptr_floor(Gpu &gpu, double group_bytes, double matrix_bytes) {
  return floor_from(gpu, group_bytes / (gpu.host_read_gbps * 1e6), 0, matrix_bytes);
}

// Problems the library's last call record covers (blas_batched_last_call(): "group g: N
// problem(s) ..." per group shown), -1 when it does not say. The strided entry points run
// their batch in chunks of group calls, each starting a new record: kernel_ms
// (blas_batched_last_device_ms) then covers the last chunk only.
long last_call_problems() {
  const char *t = blas_batched_last_call();
  if (!t) return -1;
  long sum = 0;
  bool any = false;
  for (const char *p = std::strstr(t, "\n  group "); p; p = std::strstr(p + 1, "\n  group ")) {
    const char *colon = std::strchr(p + 1, ':');
    if (!colon) break;
    char *end = nullptr;
    const long k = std::strtol(colon + 1, &end, 10);
    if (end == colon + 1 || std::strncmp(end, " problem", 8) != 0) continue;
    sum += k, any = true;
  }
  return any ? sum : -1;
}

// Problems per size of a device call: --batch, or the size's share of --gb.
std::vector<int> device_counts(const Options &o, const std::string &routine, const std::vector<int> &sizes,
                               double elem) {
  std::vector<int> count;
  for (int n : sizes) {
    long b = o.batch;
    if (b == 0) b = std::max(1L, long(o.gb * 1e9 / sizes.size() / bytes(routine, n, elem)));
    count.push_back(int(std::min(b, 0x7fffffffL)));  // group_sizes are int
  }
  return count;
}

// --variable-sizes: --batch orders drawn uniformly from LO..HI, the same in every run.
std::vector<int> variable_orders(const Options &o) {
  std::mt19937_64 rng(4242);
  std::uniform_int_distribution<int> pick(o.var_lo, o.var_hi);
  std::vector<int> n(std::size_t(o.batch));
  for (int &x : n) x = pick(rng);
  return n;
}

// One device call: group g holds count[g] problems of order sizes[g] (--variable-sizes: one
// group per problem).
template <class T>
void run_device_case(const Options &o, Gpu &gpu, const std::vector<int> &sizes, const std::vector<int> &count,
                     Out &out) {
  const char *prec = traits<T>::name();
  const bool variable = o.var_hi > 0;
  DevCase<T> c;
  c.n = sizes, c.count = count;
  const double elem = sizeof(T);
  double fl = 0, total_bytes = 0;
  for (std::size_t g = 0; g < sizes.size(); ++g) {
    fl += count[g] * flops("gemm", sizes[g], traits<T>::complex);
    total_bytes += count[g] * bytes("gemm", sizes[g], elem);
  }
  std::vector<std::string> backends = o.backends;
  if (!o.backends_given && variable) backends = {"native", "vendor-grouped"};
  else if (!o.backends_given) {
    backends = {"native", "vendor", "cublas-direct"};
    if (sizes.size() > 1) backends.push_back("vendor-grouped");
  }
  const bool devptr_wanted = has(backends, "native-devptr");
  const bool want_dptr = has(backends, "vendor-grouped") || devptr_wanted || has(backends, "cublas-batched") ||
                         (o.scatter && has(backends, "cublas-direct"));
  const std::string shape = variable ? std::to_string(o.var_lo) + ":" + std::to_string(o.var_hi) : join_sizes(sizes);
  std::string label = std::string("gemm ") + prec + " n=" + shape;
  std::string why = c.setup(gpu, o.scatter, want_dptr, devptr_wanted);
  if (!why.empty()) {
    std::fprintf(stderr, "%s: skipped, %s\n", label.c_str(), why.c_str());
    return;
  }
  if ((o.one_per_group || o.compare_groups) && c.total > 0x7fffffffL) {
    std::fprintf(stderr, "%s: skipped, %ld problems are too many groups for --one-per-group\n", label.c_str(), c.total);
    return;
  }
  std::vector<std::vector<Row>> done;
  for (bool one_per_group : groupings(o)) {
    c.set_groups(one_per_group);
    const Floor floor = gemm_floor<T>(gpu, c.total, c.groups(), o.scatter || one_per_group || variable, total_bytes);
    Floor sfloor;  // native-strided's
    if (has(backends, "native-strided") && c.strided_ok()) sfloor = strided_floor(gpu, c.total, total_bytes);
    Floor dfloor;  // native-devptr's
    if (devptr_wanted) dfloor = devptr_floor(gpu, c.groups() * gemm_group_bytes<T>(), total_bytes);
    std::vector<Row> mine;
    std::string grouped_why;  // why vendor-grouped has no row
    for (const std::string &backend : backends) {
      if (variable && backend == "vendor-grouped" && !cublas_grouped_typed<T>) {
        grouped_why = "cuBLAS grouped gemm for r32 and r64 only (not " + std::string(prec) + ")";
        std::fprintf(stderr, "%s vendor-grouped: left out, %s\n", label.c_str(), grouped_why.c_str());
        continue;
      }
      // Each backend is a callable on set s that returns "" or what went wrong.
      std::function<std::string(int)> call;
      const bool strided = strided_only(backend), devptr = backend == "native-devptr";
      bool api = backend == "native" || backend == "vendor" || backend == "auto" || strided || devptr;
      if (strided && !c.strided_ok()) {  // parse() refuses the options that lead here
        std::fprintf(stderr, "%s native-strided: skipped, the call is not one group of evenly spaced matrices\n",
                     label.c_str());
        continue;
      }
      if (strided) {
        setenv("BLAS_BATCHED_BACKEND", "native", 1);
        call = [&](int s) {
          int rc = c.strided_call(s, c.info.data());
          return rc == 0 ? std::string() : rc_text(rc);
        };
      } else if (devptr) {
        setenv("BLAS_BATCHED_BACKEND", "native", 1);
        call = [&](int s) {
          int rc = c.devptr_call(s);
          return rc == 0 ? std::string() : rc_text(rc);
        };
      } else if (api) {
        setenv("BLAS_BATCHED_BACKEND", backend.c_str(), 1);
        call = [&](int s) {
          int rc = c.api_call(s);
          return rc == 0 ? std::string() : rc_text(rc);
        };
      } else if (backend == "cublas-batched" && !cublas_batched_ok<T>) {
        std::fprintf(stderr, "%s cublas-batched: left out, cuBLAS has no batched gemm for %s\n", label.c_str(), prec);
        continue;
      } else if (backend == "cublas-direct" || backend == "cublas-batched" || backend == "vendor-grouped") {
        const char which = backend == "vendor-grouped" ? 'g' : backend == "cublas-batched" ? 'b' : 'd';
        call = [&, which](int s) {
          cublasStatus_t st = which == 'g'   ? c.cublas_grouped(gpu.blas, s)
                              : which == 'b' ? c.cublas_batched(gpu.blas, s)
                                             : c.cublas_direct(gpu.blas, s);
          return st == CUBLAS_STATUS_SUCCESS ? std::string() : std::string("cuBLAS: ") + cublasGetStatusString(st);
        };
      } else if (backend == "reference") {
        note_reference_skipped();
        continue;
      } else {
        std::fprintf(stderr, "%s: unknown backend %s, skipped\n", label.c_str(), backend.c_str());
        continue;
      }
      why = call(0);  // warm-up
      if (why.empty()) CUDA_OK(cudaStreamSynchronize(gpu.stream));
      std::vector<double> t, kt;
      bool partial_kernel = false;  // kernel_ms of a call the library ran as several records
      run_repetitions(gpu, o.reps, c.rot, api, call, why, [&](int, double ms, bool whole_call, bool kernel) {
        if (whole_call) t.push_back(ms);
        if (!kernel) return;
        // Device-side time of the library's last call (-1 with its device timing off). The
        // direct cuBLAS calls have no host work to speak of: their event time is their kernel time.
        double k = api ? blas_batched_last_device_ms() : ms;
        if (strided && k >= 0) {
          const long covered = last_call_problems();
          if (covered >= 0 && covered != c.total) k = -1, partial_kernel = true;
        }
        kt.push_back(k >= 0 ? k : NAN);
      });
      if (!why.empty()) {
        std::fprintf(stderr, "%s %s%s: skipped, %s\n", label.c_str(), backend.c_str(),
                     one_per_group ? " one-per-group" : "", why.c_str());
        if (backend == "vendor-grouped") grouped_why = why;
        continue;
      }
      Row row;
      row.device = gpu.name, row.routine = "gemm", row.prec = prec, row.backend = backend;
      row.n = sizes.size() == 1 ? sizes[0] : 0, row.sizes = shape;
      // cublas-direct and cublas-batched stay one call per size: they have no groups.
      bool grouped_here = backend != "cublas-direct" && backend != "cublas-batched";
      row.batch = c.total, row.groups = grouped_here ? c.groups() : int(sizes.size()), row.tag = o.tag;
      row.layout = o.scatter ? "scatter" : variable ? "variable" : "strided", row.rot = c.rot, row.reps = int(t.size());
      if (one_per_group && grouped_here) row.layout += "/one-per-group";
      set_device_timing(row, gpu, t, kt, fl, total_bytes, strided ? sfloor : devptr ? dfloor : floor, partial_kernel);
      if (o.check) {
        if (devptr) c.poison_dinfo(gpu.stream);
        row.error = c.check(gpu, call, why);
        if (why.empty() && devptr) why = c.dinfo_zero(gpu.stream);
        if (!why.empty()) {
          std::fprintf(stderr, "%s %s: check call failed, %s\n", label.c_str(), backend.c_str(), why.c_str());
          if (devptr) add_note(row, "check failed: " + why);  // the rows carry it too: the call ran but is wrong
        }
      }
      mine.push_back(row);
    }
    unsetenv("BLAS_BATCHED_BACKEND");
    if (variable) note_grouped_ratio(mine, grouped_why);
    note_ratio(mine, "cublas-batched", "native-devptr");
    finish_case(mine, out);
    done.push_back(mine);
  }
  if (done.size() == 2) compare_groups(done[0], done[1]);
}

// --nonblocking-loop: N strided calls made non-blocking, then one synchronize, against N
// cublas<t>gemmStridedBatched on the same stream and one synchronize; one row each, time per call.
template <class T>
void run_nonblocking_loop(const Options &o, Gpu &gpu, Out &out) {
  const char *prec = traits<T>::name();
  const int n = o.sizes[0];
  const long N = o.nb_loop;
  DevCase<T> c;
  c.n = {n}, c.count = {int(o.batch)};
  const std::string label = std::string("gemm ") + prec + " n=" + std::to_string(n) + " nonblocking-loop";
  std::string why = c.setup(gpu, false, false, true);
  if (!why.empty()) {
    std::fprintf(stderr, "%s: skipped, %s\n", label.c_str(), why.c_str());
    return;
  }
  const double fl = c.total * flops("gemm", n, traits<T>::complex), total_bytes = c.total * bytes("gemm", n, sizeof(T));
  Floor lf;
  lf.call_ms = gpu.loop_floor(N);
  lf.ms = std::fmax(total_bytes / (gpu.copy_gbps * 1e6), lf.call_ms);
  // The calls must go to the bench's stream (they are timed by its synchronize); whatever
  // happens, the thread is blocking again afterwards (the rest of the bench times blocking calls).
  int rc = blas_batched_set_cuda_stream(gpu.stream);
  if (rc != 0) throw std::runtime_error("blas_batched_set_cuda_stream " + rc_text(rc));
  struct Blocking {
    ~Blocking() {
      blas_batched_set_blocking(1);
      if (&blas_batched_set_device_timing) blas_batched_set_device_timing(-1);
    }
  } restore;
  // A non-blocking call has no device time to report; its start event would only add to it.
  if (&blas_batched_set_device_timing) blas_batched_set_device_timing(0);
  setenv("BLAS_BATCHED_BACKEND", "native", 1);
  std::vector<Row> rows;
  for (const char *backend : {"native-strided-nb", "cublas-direct"}) {
    const bool native = backend[0] == 'n';
    std::function<std::string(int)> call;
    if (native)
      call = [&](int s) {
        int r = c.strided_call(s, c.dinfo);
        return r == 0 ? std::string() : rc_text(r);
      };
    else
      call = [&](int s) {
        cublasStatus_t st = c.cublas_direct(gpu.blas, s);
        return st == CUBLAS_STATUS_SUCCESS ? std::string() : std::string("cuBLAS: ") + cublasGetStatusString(st);
      };
    rc = blas_batched_set_blocking(native ? 0 : 1);
    if (rc != 0) throw std::runtime_error("blas_batched_set_blocking " + rc_text(rc));
    for (int i = 0; i < 3 && why.empty(); ++i) why = call(i % c.rot);  // warm-up: the library's first call allocates
    if (why.empty()) CUDA_OK(cudaStreamSynchronize(gpu.stream));
    std::vector<double> t;
    long next = 3;  // input sets in turn, as the other rows: each evicted from L2 before its reuse
    for (int r = 0; r < o.reps && why.empty(); ++r) {
      const double t0 = now_ms();
      for (long i = 0; i < N && why.empty(); ++i) why = call(int(next++ % c.rot));
      CUDA_OK(cudaStreamSynchronize(gpu.stream));
      t.push_back((now_ms() - t0) / N);
    }
    if (!why.empty()) {
      std::fprintf(stderr, "%s %s: skipped, %s\n", label.c_str(), backend, why.c_str());
      why.clear();
      continue;
    }
    Row row;
    row.device = gpu.name, row.routine = "gemm", row.prec = prec, row.backend = backend;
    row.n = n, row.sizes = std::to_string(n), row.batch = c.total, row.groups = 1, row.tag = o.tag;
    row.layout = "strided/nonblocking-loop", row.rot = c.rot, row.reps = int(t.size());
    row.ms = median(t), row.min_ms = *std::min_element(t.begin(), t.end());
    row.max_ms = *std::max_element(t.begin(), t.end());
    row.gflops = fl / (row.ms * 1e6), row.gbps = total_bytes / (row.ms * 1e6);
    row.copy_gbps = gpu.copy_gbps, row.pct_bw = 100 * row.gbps / gpu.copy_gbps;
    row.host_read_gbps = gpu.host_read_gbps, row.h2d_gbps = gpu.h2d_gbps;
    row.floor_ms = lf.ms, row.call_floor_ms = lf.call_ms;
    add_note(row, "loop of " + std::to_string(N) + " calls and one synchronize; time per call");
    if (o.check) {  // the library's call checked as timed: non-blocking, info in device memory
      if (native) c.poison_dinfo(gpu.stream);
      row.error = c.check(gpu, call, why);
      if (why.empty() && native) why = c.dinfo_zero(gpu.stream);
      if (!why.empty()) {
        std::fprintf(stderr, "%s %s: check call failed, %s\n", label.c_str(), backend, why.c_str());
        add_note(row, "check failed: " + why);
        why.clear();
      }
    }
    rows.push_back(row);
  }
  unsetenv("BLAS_BATCHED_BACKEND");
  note_ratio(rows, "cublas-direct", "native-strided-nb");
  finish_case(rows, out);
}

// ---- device getrf, getri, potrf, geqrf, trsm, trmm ----

// ||P A - L U||_F / (||A||_F n eps) in double, from getrf's output LU (L unit lower, U upper)
// and pivots; infinity, with `why`, when a pivot is out of range.
template <class T>
double lu_residual(int n, const T *A, const T *LU, const int *ipiv, double eps, std::string &why) {
  using C = std::complex<double>;
  const std::size_t N = std::size_t(n);
  std::vector<C> pa(N * N);
  double a2 = 0;
  for (std::size_t i = 0; i < N * N; ++i) pa[i] = to_cd(A[i]), a2 += std::norm(pa[i]);
  for (int i = 0; i < n; ++i) {  // LAPACK's pivots: row i was swapped with row ipiv[i] >= i (1-based)
    const int r = ipiv[i] - 1;
    if (r < i || r >= n) {
      if (why.empty()) why = "ipiv[" + std::to_string(i) + "] = " + std::to_string(ipiv[i]) + " out of range";
      return INFINITY;
    }
    if (r != i)
      for (std::size_t j = 0; j < N; ++j) std::swap(pa[i + j * N], pa[r + j * N]);
  }
  double d2 = 0;
#pragma omp parallel for reduction(+ : d2) schedule(dynamic)
  for (int j = 0; j < n; ++j) {
    std::vector<C> col(N, C(0));  // (L U)(:, j) = sum over k <= j of L(:, k) U(k, j)
    for (int k = 0; k <= j; ++k) {
      const C u = to_cd(LU[k + j * N]);
      col[k] += u;
      for (int i = k + 1; i < n; ++i) col[i] += to_cd(LU[i + k * N]) * u;
    }
    for (int i = 0; i < n; ++i) d2 += std::norm(pa[i + j * N] - col[i]);
  }
  return std::sqrt(d2) / (std::sqrt(a2) * n * eps);
}

// ||I - A X||_F / (||A||_F ||X||_F n eps) in double, X getri's output for A.
template <class T>
double inverse_residual(int n, const T *A, const T *X, double eps) {
  using C = std::complex<double>;
  const std::size_t N = std::size_t(n);
  std::vector<C> a(N * N), x(N * N);
  double a2 = 0, x2 = 0;
  for (std::size_t i = 0; i < N * N; ++i) {
    a[i] = to_cd(A[i]), x[i] = to_cd(X[i]);
    a2 += std::norm(a[i]), x2 += std::norm(x[i]);
  }
  double d2 = 0;
#pragma omp parallel for reduction(+ : d2) schedule(dynamic)
  for (int j = 0; j < n; ++j) {
    std::vector<C> col(N, C(0));
    col[j] = -1;  // A X(:, j) - e_j
    for (int k = 0; k < n; ++k) {
      const C xk = x[k + j * N];
      for (int i = 0; i < n; ++i) col[i] += a[i + k * N] * xk;
    }
    for (int i = 0; i < n; ++i) d2 += std::norm(col[i]);
  }
  return std::sqrt(d2) / (std::sqrt(a2) * std::sqrt(x2) * n * eps);
}

// ||A - L L^H||_F / (||A||_F n eps) in double, L the lower triangle (diagonal included) of
// potrf's output F (uplo Lower: what is above the diagonal is not read), or the conjugate
// transpose of its upper one (uplo Upper: A = U^H U), A the whole Hermitian input.
template <class T>
double chol_residual(int n, const T *A, const T *F, double eps, bool upper = false) {
  using C = std::complex<double>;
  const std::size_t N = std::size_t(n);
  std::vector<C> lt(N * N, C(0));  // L transposed: row i of L contiguous, lt[k + i N] = L(i, k)
  double a2 = 0;
  for (std::size_t i = 0; i < N * N; ++i) a2 += std::norm(to_cd(A[i]));
  for (std::size_t k = 0; k < N; ++k)
    for (std::size_t i = k; i < N; ++i) lt[k + i * N] = upper ? std::conj(to_cd(F[k + i * N])) : to_cd(F[i + k * N]);
  double d2 = 0;
#pragma omp parallel for reduction(+ : d2) schedule(dynamic)
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      C s = 0;  // (L L^H)(i, j) = sum over k <= min(i, j) of L(i, k) conj(L(j, k))
      const C *li = lt.data() + std::size_t(i) * N, *lj = lt.data() + std::size_t(j) * N;
      for (int k = 0, e = std::min(i, j); k <= e; ++k) s += li[k] * std::conj(lj[k]);
      d2 += std::norm(to_cd(A[i + std::size_t(j) * N]) - s);
    }
  return std::sqrt(d2) / (std::sqrt(a2) * n * eps);
}

// trsm: ||L X - alpha B||_F / (||L||_F ||X||_F n eps); trmm: ||X - alpha L B||_F /
// (|alpha| ||L||_F ||B||_F n eps); side Right: X L and B L; in double, L the lower triangle of
// Ltri (above it is not read), B the input, X the output.
template <class T>
double tri_residual(int n, const T *Ltri, const T *B, const T *X, T alpha, bool solve, bool right, double eps) {
  using C = std::complex<double>;
  const std::size_t N = std::size_t(n);
  const C a = to_cd(alpha);
  double l2 = 0, b2 = 0, d2 = 0;
  for (std::size_t j = 0; j < N; ++j)
    for (std::size_t i = j; i < N; ++i) l2 += std::norm(to_cd(Ltri[i + j * N]));
  const T *in = solve ? X : B;  // the product L in
  for (std::size_t j = 0; j < N; ++j)
    for (std::size_t i = 0; i < N; ++i) {
      C s = 0;
      if (right)
        for (std::size_t k = j; k < N; ++k) s += to_cd(in[i + k * N]) * to_cd(Ltri[k + j * N]);
      else
        for (std::size_t k = 0; k <= i; ++k) s += to_cd(Ltri[i + k * N]) * to_cd(in[k + j * N]);
      const C r = solve ? s - a * to_cd(B[i + j * N]) : to_cd(X[i + j * N]) - a * s;
      d2 += std::norm(r), b2 += std::norm(to_cd(in[i + j * N]));
    }
  const double scale = solve ? std::sqrt(l2) * std::sqrt(b2) : std::abs(a) * std::sqrt(l2) * std::sqrt(b2);
  return std::sqrt(d2) / (scale * n * eps);
}

// ||A - Q R||_F / (||A||_F n eps) in double, from geqrf's output F and tau: R the upper triangle
// of F, Q = H(0) H(1) ... H(n-1) with H(k) = I - tau_k v_k v_k^H, v_k = e_k + F's column k below
// the diagonal (LAPACK's reflectors). Q R is formed by applying H(n-1) first to R.
template <class T>
double qr_residual(int n, const T *A, const T *F, const T *tau, double eps) {
  using C = std::complex<double>;
  const std::size_t N = std::size_t(n);
  std::vector<C> f(N * N), x(N * N, C(0));
  double a2 = 0;
  for (std::size_t i = 0; i < N * N; ++i) f[i] = to_cd(F[i]), a2 += std::norm(to_cd(A[i]));
  for (std::size_t j = 0; j < N; ++j)
    for (std::size_t i = 0; i <= j; ++i) x[i + j * N] = f[i + j * N];
  for (int k = n - 1; k >= 0; --k) {
    const C t = to_cd(tau[k]);
    const C *v = f.data() + std::size_t(k) * N;  // v(k) = 1 (not stored), v(i > k) = F(i, k)
#pragma omp parallel for schedule(static)
    for (int j = 0; j < n; ++j) {  // X(:, j) -= tau v (v^H X(:, j)): rows k.. only
      C *xj = x.data() + std::size_t(j) * N;
      C w = xj[k];
      for (int i = k + 1; i < n; ++i) w += std::conj(v[i]) * xj[i];
      w *= t;
      xj[k] -= w;
      for (int i = k + 1; i < n; ++i) xj[i] -= v[i] * w;
    }
  }
  double d2 = 0;
  for (std::size_t i = 0; i < N * N; ++i) d2 += std::norm(to_cd(A[i]) - x[i]);
  return std::sqrt(d2) / (std::sqrt(a2) * n * eps);
}

// ROT input sets of `count` n x n matrices back to back (problem p of set s at a + s set_elems +
// p n^2) with their per-problem vector of n entries (getrf/getri's ipiv at piv + s set_vec + p n,
// geqrf's tau at tau + s set_vec + p n; potrf has none), and one pristine set from which a set is
// restored after a call has overwritten it (getrf: A by L U; getri: the factors by the inverse;
// potrf: A's lower triangle by L; geqrf: A by R and the reflectors). All sets hold the same
// values (L2 caches addresses, not values): a pool of distinct problems tiled over the batch,
// problem p being pool problem p % pool_count; the host keeps the pool for the check.
template <class T>
struct FactDevCase {
  std::string routine;                               // getrf, getri, getrf_getri, potrf, geqrf, trsm, trmm
  bool getri = false, potrf = false, geqrf = false;  // none of them (nor tri, inverse): getrf
  bool inverse = false;                              // getrf_getri: A in, inv(A) out
  bool tri = false, solve = false;  // trsm (solve) or trmm: A(s) holds B, Tau(s) the triangular A
  int n = 0, count = 0;
  long total = 0;
  std::size_t set_elems = 0, set_vec = 0;  // per set: matrix elements, vector entries (0: potrf)
  int rot = 1;
  T *a = nullptr, *pristine = nullptr, *out = nullptr;  // out: cuBLAS getri's result, one set
  int *piv = nullptr, *dinfo = nullptr;                 // piv: getrf/getri's pivots
  T *tau = nullptr;                                     // geqrf's taus; trsm/trmm's triangles
  std::vector<std::vector<T *>> pa, pt;  // host pointer arrays [set][problem] of A and tau: native, vendor, auto
  std::vector<std::vector<int *>> pp;    // of ipiv
  T **dpa = nullptr, **dpt = nullptr, **dpo = nullptr;  // device copies [set][problem] (native-devptr, cuBLAS), out's
  int **dpp = nullptr;
  std::vector<int> info;
  std::vector<T> pool;  // the matrices before any factorization (trsm, trmm: B)
  std::vector<T> tri_pool;  // trsm, trmm: the triangles (lower, NaN above the diagonal)
  const T alpha = T(1.5);
  long pool_count = 0;
  BLAS_Uplo lower = BLAS_Lower;  // potrf's uplo, on every row (--uplo)
  BLAS_Side side = BLAS_Left;          // trsm, trmm (--side)
  BLAS_Layout layout = BLAS_ColMajor;  // getrf, getri, getrf_getri: the library's calls (--row-major)

  void set_routine(const std::string &r) {
    routine = r, getri = r == "getri", potrf = r == "potrf", geqrf = r == "geqrf", inverse = r == "getrf_getri";
    tri = r == "trsm" || r == "trmm", solve = r == "trsm";
  }
  bool pivots() const { return !potrf && !geqrf && !tri; }  // getrf, getri, getrf_getri
  bool has_tau() const { return geqrf || tri; }             // the second array of T
  double vec_elem() const { return has_tau() ? double(sizeof(T)) : double(sizeof(int)); }
  ~FactDevCase() {
    for (void *p : {(void *)a, (void *)pristine, (void *)out, (void *)piv, (void *)tau, (void *)dinfo, (void *)dpa,
                    (void *)dpt, (void *)dpo, (void *)dpp})
      if (p) CUDA_OK(cudaFree(p));
  }
  std::size_t nn() const { return std::size_t(n) * n; }
  T *A(int s) const { return a + std::size_t(s) * set_elems; }
  int *P(int s) const { return piv + std::size_t(s) * set_vec; }
  T *Tau(int s) const { return tau + std::size_t(s) * set_vec; }
  // trsm, trmm: set s of the triangles (in the tau area) and of B (the overwritten matrices, A(s)).
  T *Tri(int s) const { return Tau(s); }
  T *B(int s) const { return A(s); }

  // Empty string: ready; otherwise why the case cannot run. want_dptr: device pointer arrays
  // (native-devptr, cuBLAS/cuSOLVER); want_out: cuBLAS getri's output set.
  std::string setup(Gpu &gpu, bool want_dptr, bool want_out) {
    total = count;
    set_elems = std::size_t(count) * nn(), set_vec = potrf ? 0 : tri ? set_elems : std::size_t(count) * n;
    const double set_bytes = set_elems * double(sizeof(T)) + set_vec * vec_elem();
    const double per_set = set_bytes + (want_dptr ? double(factor_pointers(routine)) * total * sizeof(void *) : 0);
    const double fixed = set_elems * double(sizeof(T)) * (want_out ? 2 : 1) + total * double(sizeof(int)) +
                         (want_out ? total * double(sizeof(void *)) : 0);  // pristine, info, out
    // As the gemm rows: enough sets that ROT x data > 2 x L2, within 80 % of the free memory.
    std::size_t freeb = 0, totalb = 0;
    CUDA_OK(cudaMemGetInfo(&freeb, &totalb));
    const long need = std::max(2L, long(2.0 * gpu.l2 / set_bytes) + 1);
    const long fit = long((0.8 * double(freeb) - fixed) / per_set);
    rot = int(std::min({need, fit, 65536L}));
    if (rot < 1)
      return "does not fit: " + std::to_string((set_bytes + fixed) / 1e9) + " GB for one input set, " +
             std::to_string(freeb / 1e9) + " GB free";
    if (rot * set_bytes <= 2.0 * gpu.l2)
      std::fprintf(stderr, "note: only %d input set(s) of %.1f MB fit; L2 (%.1f MB) may hold inputs\n", rot,
                   set_bytes / 1e6, gpu.l2 / 1e6);
    CUDA_OK(cudaMalloc(&a, rot * set_elems * sizeof(T)));
    if (pivots()) CUDA_OK(cudaMalloc(&piv, rot * set_vec * sizeof(int)));
    if (has_tau()) CUDA_OK(cudaMalloc(&tau, rot * set_vec * sizeof(T)));
    CUDA_OK(cudaMalloc(&pristine, set_elems * sizeof(T)));
    CUDA_OK(cudaMalloc(&dinfo, total * sizeof(int)));
    info.assign(total, 0);
    fill();
    if (getri) {  // its inputs: the library's factors of the pool, made once; its pivots are only read
      setenv("BLAS_BATCHED_BACKEND", "native", 1);
      const int rc = Api<T>::getrf_strided(layout, n, n, pristine, n, int64_t(nn()), piv, n, count, info.data());
      unsetenv("BLAS_BATCHED_BACKEND");
      if (rc != 0) return "the library's getrf of getri's inputs " + rc_text(rc);
      for (int s = 1; s < rot; ++s)
        CUDA_OK(cudaMemcpy(P(s), piv, set_vec * sizeof(int), cudaMemcpyDeviceToDevice));
    }
    for (int s = 0; s < rot; ++s) restore(s, gpu.stream);
    pa.assign(rot, std::vector<T *>(total));
    if (pivots()) pp.assign(rot, std::vector<int *>(total));
    if (has_tau()) pt.assign(rot, std::vector<T *>(total));
    for (int s = 0; s < rot; ++s)
      for (long p = 0; p < total; ++p) {
        pa[s][p] = A(s) + p * nn();
        if (pivots()) pp[s][p] = P(s) + p * n;
        if (has_tau()) pt[s][p] = Tau(s) + p * (tri ? nn() : n);
      }
    if (want_dptr) {  // uploaded once, outside the timing
      CUDA_OK(cudaMalloc(&dpa, std::size_t(rot) * total * sizeof(T *)));
      if (pivots()) CUDA_OK(cudaMalloc(&dpp, std::size_t(rot) * total * sizeof(int *)));
      if (has_tau()) CUDA_OK(cudaMalloc(&dpt, std::size_t(rot) * total * sizeof(T *)));
      for (int s = 0; s < rot; ++s) {
        const std::size_t at = std::size_t(s) * total;
        CUDA_OK(cudaMemcpy(dpa + at, pa[s].data(), total * sizeof(T *), cudaMemcpyHostToDevice));
        if (pivots()) CUDA_OK(cudaMemcpy(dpp + at, pp[s].data(), total * sizeof(int *), cudaMemcpyHostToDevice));
        if (has_tau()) CUDA_OK(cudaMemcpy(dpt + at, pt[s].data(), total * sizeof(T *), cudaMemcpyHostToDevice));
      }
    }
    if (want_out) {
      CUDA_OK(cudaMalloc(&out, set_elems * sizeof(T)));
      std::vector<T *> po(total);
      for (long p = 0; p < total; ++p) po[p] = out + p * nn();
      CUDA_OK(cudaMalloc(&dpo, total * sizeof(T *)));
      CUDA_OK(cudaMemcpy(dpo, po.data(), total * sizeof(T *), cudaMemcpyHostToDevice));
    }
    return "";
  }
  // The pool, tiled over the pristine set.
  void fill() {
    make_pool();
    for (long p0 = 0; p0 < total; p0 += pool_count) {
      const long k = std::min(pool_count, total - p0);
      CUDA_OK(cudaMemcpy(pristine + p0 * nn(), pool.data(), k * nn() * sizeof(T), cudaMemcpyHostToDevice));
      if (tri)  // the triangles are only read: every set gets them once
        for (int s = 0; s < rot; ++s)
          CUDA_OK(cudaMemcpy(Tri(s) + p0 * nn(), tri_pool.data(), k * nn() * sizeof(T), cudaMemcpyHostToDevice));
    }
    // cudaMemcpy from pageable memory may return before its DMA lands; the restores and getri's
    // getrf run on other streams and would read a partly written pool (seen as a spurious info
    // code: getrf r64 n = 512, one problem, 3 runs in 9 on the H200).
    CUDA_OK(cudaDeviceSynchronize());
  }
  // At most 2^22 elements (at least one problem), entries random in (-1, 1) (complex: both
  // parts). getrf, getri: + (n+2) I, its rows in a random order: well conditioned, and partial
  // pivoting must swap rows to undo the order. potrf: + (n+2) I made Hermitian, the diagonal
  // real: positive definite (the lower triangle drawn, the upper its conjugate transpose).
  // geqrf: as drawn.
  void make_pool() {
    pool_count = std::min<long>(total, std::max<long>(1, long((std::size_t(1) << 22) / nn())));
    pool.resize(std::size_t(pool_count) * nn());
    std::mt19937_64 g(12345);
    std::uniform_real_distribution<double> u(-1, 1);
    using R = typename traits<T>::real;
    auto make = [&](double re) {
      if constexpr (traits<T>::complex) return T(R(re), R(u(g)));
      else return T(R(re));
    };
    if (potrf) {
      for (long q = 0; q < pool_count; ++q) {
        T *A0 = pool.data() + q * nn();
        for (int j = 0; j < n; ++j) {
          A0[j + std::size_t(j) * n] = T(R(u(g) + n + 2));
          for (int i = j + 1; i < n; ++i) {
            const T v = make(u(g));
            A0[i + std::size_t(j) * n] = v, A0[j + std::size_t(i) * n] = conj(v);
          }
        }
      }
      return;
    }
    if (geqrf || tri) {
      for (T &x : pool) x = make(u(g));
      if (!tri) return;
      // Lower triangles, diagonal 2 + u, below it u / n: well conditioned (trsm's residual means
      // something), never read above the diagonal (NaN there).
      tri_pool.assign(pool.size(), make(NAN));
      for (long q = 0; q < pool_count; ++q)
        for (int j = 0; j < n; ++j)
          for (int i = j; i < n; ++i) {
            T &x = tri_pool[q * nn() + i + std::size_t(j) * n];
            if (i == j) x = make(2 + u(g));
            else if constexpr (traits<T>::complex) x = T(R(u(g) / n), R(u(g) / n));
            else x = T(R(u(g) / n));
          }
      return;
    }
    std::vector<int> perm(n);
    for (long q = 0; q < pool_count; ++q) {
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), g);
      T *A0 = pool.data() + q * nn();
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) A0[perm[i] + std::size_t(j) * n] = make(u(g) + (i == j ? n + 2 : 0));
    }
  }
  // Set s back to the pristine inputs (getri's pivots are only read: they stay; geqrf's taus are
  // only written). Synchronous, so the next timed call starts on an idle stream and its events
  // span its host work too.
  void restore(int s, cudaStream_t st) {
    CUDA_OK(cudaMemcpyAsync(A(s), pristine, set_elems * sizeof(T), cudaMemcpyDeviceToDevice, st));
    CUDA_OK(cudaStreamSynchronize(st));
  }

  // The library's calls on set s: group API with host pointer arrays and info, with device
  // pointer arrays and info (native-devptr), strided (ipiv and tau n entries apart, info host
  // memory).
  int api_call(int s) {
    const int N = n, cnt = count;
    T **A0 = pa[s].data();
    if (tri) return tri_call(pt[s].data(), A0, info.data());
    if (getri) return Api<T>::getri(layout, &N, A0, &N, pp[s].data(), 1, &cnt, info.data());
    if (inverse) return Api<T>::getrf_getri(layout, &N, A0, &N, pp[s].data(), 1, &cnt, info.data());
    if (potrf) return Api<T>::potrf(BLAS_ColMajor, &lower, &N, A0, &N, 1, &cnt, info.data());
    if (geqrf) return Api<T>::geqrf(BLAS_ColMajor, &N, &N, A0, &N, pt[s].data(), 1, &cnt, info.data());
    return Api<T>::getrf(layout, &N, &N, A0, &N, pp[s].data(), 1, &cnt, info.data());
  }
  int devptr_call(int s) {
    const int N = n, cnt = count;
    const std::size_t at = std::size_t(s) * total;
    T **dA = dpa + at;
    if (tri) return tri_call(dpt + at, dA, dinfo);
    if (getri) return Api<T>::getri(layout, &N, dA, &N, dpp + at, 1, &cnt, dinfo);
    if (inverse) return Api<T>::getrf_getri(layout, &N, dA, &N, dpp + at, 1, &cnt, dinfo);
    if (potrf) return Api<T>::potrf(BLAS_ColMajor, &lower, &N, dA, &N, 1, &cnt, dinfo);
    if (geqrf) return Api<T>::geqrf(BLAS_ColMajor, &N, &N, dA, &N, dpt + at, 1, &cnt, dinfo);
    return Api<T>::getrf(layout, &N, &N, dA, &N, dpp + at, 1, &cnt, dinfo);
  }
  int strided_call(int s) {
    const int64_t st = int64_t(nn());
    if (tri) {
      auto f = solve ? &Api<T>::trsm_strided : &Api<T>::trmm_strided;
      return f(BLAS_ColMajor, side, BLAS_Lower, BLAS_NoTrans, BLAS_NonUnit, n, n, &alpha, Tri(s), n, st, B(s), n, st,
               count, info.data());
    }
    if (getri) return Api<T>::getri_strided(layout, n, A(s), n, st, P(s), n, count, info.data());
    if (potrf) return Api<T>::potrf_strided(BLAS_ColMajor, lower, n, A(s), n, st, count, info.data());
    if (geqrf) return Api<T>::geqrf_strided(BLAS_ColMajor, n, n, A(s), n, st, Tau(s), n, count, info.data());
    return Api<T>::getrf_strided(layout, n, n, A(s), n, st, P(s), n, count, info.data());
  }
  // getrf_getri's native-two-calls row: getrf then getri through the group API, as the
  // native row's arrays; first_call_ms: getrf's device time, which the row's kernel time adds.
  double first_call_ms = -1;
  int two_calls(int s) {
    const int N = n, cnt = count;
    const int rc = Api<T>::getrf(layout, &N, &N, pa[s].data(), &N, pp[s].data(), 1, &cnt, info.data());
    if (rc < 0) return rc;
    first_call_ms = blas_batched_last_device_ms();
    return Api<T>::getri(layout, &N, pa[s].data(), &N, pp[s].data(), 1, &cnt, info.data());
  }
  // trsm / trmm through the group API: uplo Lower, NoTrans, NonUnit, m = n.
  int tri_call(T **tri_a, T **b, int *inf) {
    const int N = n, cnt = count;
    const BLAS_Op op = BLAS_NoTrans;
    const BLAS_Diag diag = BLAS_NonUnit;
    auto f = solve ? &Api<T>::trsm : &Api<T>::trmm;
    return f(BLAS_ColMajor, &side, &lower, &op, &diag, &N, &N, &alpha, tri_a, &N, b, &N, 1, &cnt, inf);
  }
  // cuBLAS (potrf: cuSOLVER) on the device pointer arrays of set s; "" or what failed.
  // getrfBatched and potrfBatched (uplo Lower) in place, info in device memory; geqrfBatched in
  // place with tau's own device pointer array, its one info in host memory; getriBatched into
  // `out`, then the whole batch copied back into A (cuBLAS has no in-place inversion), `mid`
  // recorded between the two.
  std::string vendor_call(Gpu &gpu, int s, cudaEvent_t mid) {
    const std::size_t at = std::size_t(s) * total;
    auto text = [](cublasStatus_t r) {
      return r == CUBLAS_STATUS_SUCCESS ? std::string() : std::string("cuBLAS: ") + cublasGetStatusString(r);
    };
    if (tri) return solve ? text(cu_trsm<T>(gpu.blas, side, n, alpha, dpt + at, dpa + at, count)) : "no batched cuBLAS trmm";
    if (potrf) {
#if BB_BENCH_CUSOLVER
      const cusolverStatus_t r = cu_potrf<T>(gpu.solver_handle(), n, dpa + at, dinfo, count);
      return r == CUSOLVER_STATUS_SUCCESS ? std::string() : "cuSOLVER: " + cusolver_text(r);
#else
      return "this bench was built without cuSOLVER";
#endif
    }
    if (geqrf) {
      int host_info = 0;
      const cublasStatus_t r = cu_geqrf<T>(gpu.blas, n, dpa + at, dpt + at, &host_info, count);
      if (r != CUBLAS_STATUS_SUCCESS) return text(r);
      return host_info == 0 ? std::string() : "cublas<t>geqrfBatched: info " + std::to_string(host_info);
    }
    if (!getri || inverse) {
      const cublasStatus_t f = cu_getrf<T>(gpu.blas, n, dpa + at, P(s), dinfo, count);
      if (!inverse || f != CUBLAS_STATUS_SUCCESS) return text(f);
    }
    const cublasStatus_t r = cu_getri<T>(gpu.blas, n, dpa + at, P(s), dpo, dinfo, count);
    if (r != CUBLAS_STATUS_SUCCESS) return text(r);
    CUDA_OK(cudaEventRecord(mid, gpu.stream));
    CUDA_OK(cudaMemcpyAsync(A(s), out, set_elems * sizeof(T), cudaMemcpyDeviceToDevice, gpu.stream));
    return "";
  }

  // Where a call writes its per-problem info: the host array, the device array, nowhere
  // (cublas<t>geqrfBatched: one host int, checked by vendor_call).
  enum class InfoAt { host, device, none };
  // Runs `call` once more on set 0, its info (host, or device) set to -1 first so a problem left
  // unwritten shows (and geqrf's taus to NaN), and checks the sampled problems (first, last, 4
  // random) against their pool matrix in double: the largest lu_residual, inverse_residual,
  // chol_residual or qr_residual. `why`: the call failed, an info is not 0, a pivot is out of
  // range. Set 0 is restored afterwards.
  // row_major: the call was the library's in BLAS_RowMajor, so getrf's factors are checked on the
  // transposes (the inverse needs none: A^T inv(A)^T = I).
  // --digest: FNV-1a over the check call's output (set 0's matrices, then ipiv, tau and info
  // where the call has them), in pieces so that a 1 GB call needs no 1 GB host copy.
  bool want_digest = false;
  std::string digest;
  static void fnv1a(std::uint64_t &h, const void *bytes, std::size_t size) {
    const auto *b = static_cast<const unsigned char *>(bytes);
    for (std::size_t i = 0; i < size; ++i) h = (h ^ b[i]) * 0x100000001b3ull;
  }
  static void fnv1a_device(std::uint64_t &h, const void *device, std::size_t size) {
    std::vector<unsigned char> piece(std::min<std::size_t>(size, std::size_t(64) << 20));
    for (std::size_t at = 0; at < size; at += piece.size()) {
      const std::size_t len = std::min(piece.size(), size - at);
      CUDA_OK(cudaMemcpy(piece.data(), static_cast<const unsigned char *>(device) + at, len, cudaMemcpyDeviceToHost));
      fnv1a(h, piece.data(), len);
    }
  }
  template <class Call>
  double check(Gpu &gpu, Call call, InfoAt at, bool row_major, std::string &why) {
    if (at == InfoAt::device) CUDA_OK(cudaMemsetAsync(dinfo, 0xff, total * sizeof(int), gpu.stream));
    else if (at == InfoAt::host) std::fill(info.begin(), info.end(), -1);
    if (geqrf) CUDA_OK(cudaMemsetAsync(tau, 0xff, set_vec * sizeof(T), gpu.stream));  // set 0's
    why = call(0);
    if (why.empty()) CUDA_OK(cudaStreamSynchronize(gpu.stream));
    double worst = NAN;
    std::vector<int> info_digest;
    if (why.empty()) {
      if (at != InfoAt::none) {
        std::vector<int> dev;
        if (at == InfoAt::device) {
          dev.resize(total);
          CUDA_OK(cudaMemcpy(dev.data(), dinfo, total * sizeof(int), cudaMemcpyDeviceToHost));
        }
        const std::vector<int> &inf = at == InfoAt::device ? dev : info;
        if (want_digest) info_digest = inf;
        long bad = 0, first = -1;
        for (long p = 0; p < total; ++p)
          if (inf[p] != 0 && bad++ == 0) first = p;
        if (bad)
          why = std::string(at == InfoAt::device ? "device " : "") + "info: " + std::to_string(bad) +
                " problem(s) not 0 (first: problem " + std::to_string(first) + " info " + std::to_string(inf[first]) +
                ")";
      }
      std::vector<long> ps{0, total - 1};
      std::mt19937_64 rng(99);
      for (int i = 0; i < 4; ++i) ps.push_back(long(rng() % std::uint64_t(total)));
      std::sort(ps.begin(), ps.end());
      ps.erase(std::unique(ps.begin(), ps.end()), ps.end());
      const double eps = std::max(traits<T>::eps, 0x1p-53);  // the check computes in double
      std::vector<T> x(nn()), tv(geqrf ? n : 0);
      std::vector<int> ip(pivots() ? n : 0);
      worst = 0;
      for (long p : ps) {
        CUDA_OK(cudaMemcpy(x.data(), A(0) + p * nn(), nn() * sizeof(T), cudaMemcpyDeviceToHost));
        if (pivots()) CUDA_OK(cudaMemcpy(ip.data(), P(0) + p * n, n * sizeof(int), cudaMemcpyDeviceToHost));
        if (geqrf) CUDA_OK(cudaMemcpy(tv.data(), Tau(0) + p * n, n * sizeof(T), cudaMemcpyDeviceToHost));
        const T *A0 = pool.data() + (p % pool_count) * nn();
        if (tri) {
          std::vector<T> a0(nn());
          CUDA_OK(cudaMemcpy(a0.data(), Tri(0) + p * nn(), nn() * sizeof(T), cudaMemcpyDeviceToHost));
          const double err = tri_residual(n, a0.data(), A0, x.data(), alpha, solve, side == BLAS_Right, eps);
          if (!(err <= worst)) worst = err;
          continue;
        }
        std::vector<T> a0t;
        if (row_major && !getri && !inverse) {  // getrf's: P A = L U of the row-major matrices
          a0t.resize(nn());
          std::vector<T> xt(nn());
          for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) {
              a0t[j + std::size_t(i) * n] = A0[i + std::size_t(j) * n];
              xt[j + std::size_t(i) * n] = x[i + std::size_t(j) * n];
            }
          x.swap(xt), A0 = a0t.data();
        }
        const double err = getri || inverse ? inverse_residual(n, A0, x.data(), eps)
                           : potrf ? chol_residual(n, A0, x.data(), eps, lower == BLAS_Upper)
                           : geqrf ? qr_residual(n, A0, x.data(), tv.data(), eps)
                                   : lu_residual(n, A0, x.data(), ip.data(), eps, why);
        if (!(err <= worst)) worst = err;  // NaN sticks
      }
      if (want_digest) {
        std::uint64_t h = 0xcbf29ce484222325ull;
        fnv1a_device(h, A(0), std::size_t(total) * nn() * sizeof(T));
        if (pivots()) fnv1a_device(h, P(0), std::size_t(total) * n * sizeof(int));
        if (geqrf) fnv1a_device(h, Tau(0), std::size_t(total) * n * sizeof(T));
        fnv1a(h, info_digest.data(), info_digest.size() * sizeof(int));
        char hex[17];
        std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
        digest = hex;
      }
    }
    restore(0, gpu.stream);
    return worst;
  }
};

// The vendor's batched routine behind a factorization's cublas-direct row, and its library.
const char *vendor_routine(const std::string &r) {
  return r == "getrf"   ? "getrfBatched"
         : r == "getri" ? "getriBatched"
         : r == "getrf_getri" ? "getrfBatched and getriBatched"
         : r == "potrf" ? "potrfBatched"
         : r == "trsm"  ? "trsmBatched"
                        : "geqrfBatched";
}
const char *vendor_library(const std::string &r) { return r == "potrf" ? "cuSOLVER" : "cuBLAS"; }

// Device factorization rows (getrf, getri, potrf, geqrf) of one size, run_device_case's
// counterpart: per backend a warm-up and --reps timed calls on the input sets in turn, each set
// restored after its call.
template <class T>
void run_fact_device_case(const Options &o, Gpu &gpu, const std::string &routine, int n, int count, Out &out) {
  const char *prec = traits<T>::name();
  const bool getri = routine == "getri", inverse = routine == "getrf_getri";
  const std::string label = routine + " " + prec + " n=" + std::to_string(n);
  std::vector<std::string> backends;
  std::vector<std::string> asked = o.backends_given ? o.backends
                                                    : std::vector<std::string>{"native", "native-strided", "native-devptr",
                                                                               "cublas-direct"};
  if (inverse && (!o.backends_given || has(o.backends, "native"))) asked.push_back("native-two-calls");
  for (const std::string &b : asked) {
    if (b == "reference") note_reference_skipped();
    else if (inverse && strided_only(b))
      std::fprintf(stderr, "%s %s: left out, the inverse in one call has no strided entry point\n", label.c_str(), b.c_str());
    else if (b == "cublas-batched" || b == "vendor-grouped") continue;  // run() noted it
    else if (b == "cublas-direct" && getri && o.row_major)  // getri's inputs: the library's row-major factors
      std::fprintf(stderr, "%s cublas-direct: left out, getri's factors are row-major\n", label.c_str());
    else if (b == "cublas-direct" && routine == "trmm")
      std::fprintf(stderr, "%s cublas-direct: left out, cuBLAS has no batched trmm\n", label.c_str());
    else if (b == "cublas-direct" && !cublas_typed<T>)
      std::fprintf(stderr, "%s cublas-direct: left out, %s has no %s for %s\n", label.c_str(),
                   vendor_library(routine), vendor_routine(routine), prec);
#if !BB_BENCH_CUSOLVER
    else if (b == "cublas-direct" && routine == "potrf")
      std::fprintf(stderr, "%s cublas-direct: left out, this bench was built without cuSOLVER (potrfBatched)\n",
                   label.c_str());
#endif
    else backends.push_back(b);
  }
  if (backends.empty()) return;
  const bool cublas = has(backends, "cublas-direct");
#if BB_BENCH_CUSOLVER
  if (cublas && routine == "potrf") gpu.solver_handle();  // made before the case takes its memory
#endif
  FactDevCase<T> c;
  c.set_routine(routine), c.n = n, c.count = count, c.side = o.side, c.lower = o.uplo;
  if (o.row_major) c.layout = BLAS_RowMajor;
  std::string why = c.setup(gpu, cublas || has(backends, "native-devptr"), cublas && (getri || inverse));
  if (!why.empty()) {
    std::fprintf(stderr, "%s: skipped, %s\n", label.c_str(), why.c_str());
    return;
  }
  const double fl = c.total * flops(routine, n, traits<T>::complex);
  const double total_bytes = c.total * bytes(routine, n, sizeof(T));
  // The API call's floor (every row's but native-strided's and native-devptr's): back-to-back
  // matrices, so only the group's arguments are uploaded.
  const Floor floor =
      api_floor(gpu, c.total, factor_pointers(routine), factor_group_bytes(routine), false, total_bytes);
  Floor sfloor, dfloor;
  if (has(backends, "native-strided")) sfloor = strided_floor(gpu, c.total, total_bytes);
  if (has(backends, "native-devptr")) dfloor = devptr_floor(gpu, factor_group_bytes(routine), total_bytes);
  cudaEvent_t mid = nullptr;  // cuBLAS getri: between getriBatched and the copy back
  if (cublas && (getri || inverse)) CUDA_OK(cudaEventCreate(&mid));
  std::vector<Row> mine;
  for (const std::string &backend : backends) {
    const bool strided = strided_only(backend), devptr = backend == "native-devptr", cub = backend == "cublas-direct";
    const bool api = !cub, two = backend == "native-two-calls";
    if (api) setenv("BLAS_BATCHED_BACKEND", strided || devptr || two ? "native" : backend.c_str(), 1);
    auto text = [](int rc) { return rc == 0 ? std::string() : rc_text(rc); };
    std::function<std::string(int)> call;
    if (strided) call = [&](int s) { return text(c.strided_call(s)); };
    else if (devptr) call = [&](int s) { return text(c.devptr_call(s)); };
    else if (two) call = [&](int s) { return text(c.two_calls(s)); };
    else if (api) call = [&](int s) { return text(c.api_call(s)); };
    else call = [&](int s) { return c.vendor_call(gpu, s, mid); };
    why = call(0);  // warm-up
    if (why.empty()) CUDA_OK(cudaStreamSynchronize(gpu.stream));
    c.restore(0, gpu.stream);
    std::vector<double> t, kt, alone;
    bool partial_kernel = false;
    run_repetitions(gpu, o.reps, c.rot, api, call, why, [&](int s, double ms, bool whole_call, bool kernel) {
      if (whole_call) t.push_back(ms);
      if (cub && mid && why.empty()) {
        float m = 0;
        CUDA_OK(cudaEventElapsedTime(&m, gpu.e0, mid));
        alone.push_back(m);
      }
      if (kernel) {
        double k = api ? blas_batched_last_device_ms() : ms;
        if (two) k = k >= 0 && c.first_call_ms >= 0 ? k + c.first_call_ms : -1;
        if (strided && k >= 0) {
          const long covered = last_call_problems();
          if (covered >= 0 && covered != c.total) k = -1, partial_kernel = true;
        }
        kt.push_back(k >= 0 ? k : NAN);
      }
      // Outside the timing, and after the call rather than just before the set's next one: the
      // copy's last writes would still sit in L2 when that call starts.
      c.restore(s, gpu.stream);
    });
    if (!why.empty()) {
      std::fprintf(stderr, "%s %s: skipped, %s\n", label.c_str(), backend.c_str(), why.c_str());
      continue;
    }
    Row row;
    row.device = gpu.name, row.routine = routine, row.prec = prec, row.backend = backend;
    row.n = n, row.sizes = std::to_string(n), row.batch = c.total, row.groups = 1, row.tag = o.tag;
    row.layout = c.layout == BLAS_RowMajor && !cub ? "strided/row-major" : "strided", row.rot = c.rot, row.reps = int(t.size());
    set_device_timing(row, gpu, t, kt, fl, total_bytes, strided ? sfloor : devptr ? dfloor : floor, partial_kernel);
    if (!alone.empty())
      add_note(row, std::string(inverse ? "getrfBatched, " : "") +
                        "getriBatched out of place then one D2D copy of the batch into A (timed); " +
                        (inverse ? "without the copy " : "getriBatched alone ") + num(median(alone), "%.4f", "-") + " ms");
    if (two) add_note(row, "BLAS_getrf_batched then BLAS_getri_batched (host pointer arrays and info)");
    if (cub && c.potrf) add_note(row, "cusolverDn<t>potrfBatched uplo Lower");
    if (cub && c.geqrf) add_note(row, "cublas<t>geqrfBatched");
    if (cub && c.tri) add_note(row, "cublas<t>trsmBatched");
    if (c.tri && c.side == BLAS_Right) add_note(row, "side Right");
    if (c.potrf && c.lower == BLAS_Upper && backend != "cublas-direct") add_note(row, "uplo Upper");
    if (o.check) {
      using InfoAt = typename FactDevCase<T>::InfoAt;
      const InfoAt at = devptr ? InfoAt::device : !cub ? InfoAt::host : c.geqrf || c.tri ? InfoAt::none : InfoAt::device;
      c.want_digest = o.digest, c.digest.clear();
      row.error = c.check(gpu, call, at, c.layout == BLAS_RowMajor && !cub, why);
      if (!c.digest.empty()) add_note(row, "digest " + c.digest);
      if (!why.empty()) {
        std::fprintf(stderr, "%s %s: check failed, %s\n", label.c_str(), backend.c_str(), why.c_str());
        add_note(row, "check failed: " + why);  // the row carries it too: the call ran but is wrong
        why.clear();
      }
    }
    mine.push_back(row);
  }
  unsetenv("BLAS_BATCHED_BACKEND");
  if (mid) CUDA_OK(cudaEventDestroy(mid));
  finish_case(mine, out);
}

template <class T>
void run_device_prec(const Options &o, const std::string &routine, Gpu &gpu, Out &out) {
  if (one_size_device_routine(routine)) {
    for (int n : o.sizes)
      run_fact_device_case<T>(o, gpu, routine, n, device_counts(o, routine, {n}, sizeof(T))[0], out);
    return;
  }
  if (o.nb_loop) return run_nonblocking_loop<T>(o, gpu, out);
  if (o.var_hi) return run_device_case<T>(o, gpu, variable_orders(o), std::vector<int>(std::size_t(o.batch), 1), out);
  if (o.mixed) return run_device_case<T>(o, gpu, o.sizes, device_counts(o, "gemm", o.sizes, sizeof(T)), out);
  for (int n : o.sizes) run_device_case<T>(o, gpu, {n}, device_counts(o, "gemm", {n}, sizeof(T)), out);
}
#endif  // BB_BENCH_CUDA

// Before anything is measured: other work on the machine competes with the bench's threads
// and makes every timing of the run suspect.
void warn_if_loaded() {
  FILE *f = std::fopen("/proc/loadavg", "r");
  if (!f) return;
  double load = 0;
  int got = std::fscanf(f, "%lf", &load);
  std::fclose(f);
  unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
  if (got == 1 && load > 0.5 * cpus)
    std::fprintf(stderr, "warning: 1-minute load average %.2f on %u CPUs before the run: the machine is busy, "
                         "timings may be unreliable\n", load, cpus);
}

int run(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      usage(stdout);
      return 0;
    }
  Options o = parse(argc, argv);
  const bool any_device = std::any_of(o.routines.begin(), o.routines.end(), device_routine);
  bool use_gpu = false;
#if BB_BENCH_CUDA
  Gpu gpu;
  if (o.device != "host" && any_device) {
    // Device timing is read after each call (kernel_ms); an explicit setting in the environment wins.
    setenv("BLAS_BATCHED_DEVICE_TIMING", "1", 0);
    std::string why = gpu.open();
    use_gpu = why.empty();
    if (!use_gpu) {
      if (o.device == "gpu") {
        std::fprintf(stderr, "blas_batched_bench: --device gpu, but no usable GPU: %s\n", why.c_str());
        return 1;
      }
      std::fprintf(stderr, "note: no usable GPU (%s); host mode\n", why.c_str());
    } else {
      std::printf("device: %s, %d SMs, L2 %.1f MB, %.1f GiB; D2D copy bandwidth %.1f GB/s (read+write)\n",
                  gpu.name.c_str(), gpu.sms, gpu.l2 / 1e6, gpu.total_mem / 1073741824.0, gpu.copy_gbps);
      std::printf("host: read bandwidth %.1f GB/s (%d OpenMP threads); pinned host-to-device copy %.1f GB/s\n",
                  gpu.host_read_gbps, omp_get_max_threads(), gpu.h2d_gbps);
    }
  }
#else
  if (o.device == "gpu" && any_device) {
    std::fprintf(stderr, "blas_batched_bench: --device gpu, but this bench was built without CUDA\n");
    return 1;
  }
#endif
  if (o.var_hi && !use_gpu)
    throw Usage("--variable-sizes: device mode only, and gemm runs in host mode here (--device host, or no usable GPU)");
  if (o.nb_loop && !use_gpu) throw Usage("--nonblocking-loop: device mode only, and there is no usable GPU here");
  if (o.row_major && !use_gpu) throw Usage("--row-major: device mode only, and there is no usable GPU here");
#if BB_BENCH_CUDA
  if (o.nb_loop && !&blas_batched_set_blocking) {
    std::fprintf(stderr, "blas_batched_bench: --nonblocking-loop: the library lacks blas_batched_set_blocking "
                         "(built before it)\n");
    return 1;
  }
#endif
  // The device rows' command line errors, where --device auto found a GPU (parse() checked --device gpu).
  const auto on_gpu = [&](const std::string &r) { return use_gpu && device_routine(r); };
  if (use_gpu && o.device != "gpu") check_device_rows(o);
  // Backends that cannot run in a mode: skipped with a note, an error if none is left.
  bool any_host = std::any_of(o.routines.begin(), o.routines.end(), [&](const std::string &r) { return !on_gpu(r); });
  if (any_host) {
    std::vector<std::string> skipped;
    for (const std::string &b : o.backends)
      if (device_only(b)) skipped.push_back(b);
    if (skipped.size() == o.backends.size())
      throw Usage("--backend " + join(o.backends) + ": device mode only, and these rows run in host mode");
    if (!skipped.empty())
      std::fprintf(stderr, "note: %s: device mode only, skipped in host mode\n", join(skipped).c_str());
    if (o.scatter) std::fprintf(stderr, "note: --scatter applies to device mode only; host rows ignore it\n");
  }
  // native-strided: gemm, and the factorizations in device mode; parse() made sure every other
  // routine keeps a backend, except the factorizations when --device auto found no GPU.
  if (has(o.backends, "native-strided")) {
    std::vector<std::string> others;
    for (const std::string &r : o.routines)
      if (r != "gemm" && !on_gpu(r)) others.push_back(r);
    const bool host_backend = std::any_of(o.backends.begin(), o.backends.end(), [](const std::string &b) {
      return !device_only(b) && !strided_only(b);
    });
    if (!others.empty() && !host_backend)
      throw Usage("--backend " + join(o.backends) + ": nothing to run for " + join(others) +
                  " in host mode (native-strided: gemm only; getrf, getri, potrf, geqrf, trsm, trmm in device mode)");
    if (!others.empty())
      std::fprintf(stderr,
                   "note: native-strided: skipped for %s (gemm only; getrf, getri, potrf, geqrf, trsm, trmm in device mode)\n",
                   join(others).c_str());
  }
  // Device factorization rows: cuBLAS's gemm-only backends (parse() or check_device_rows() made
  // sure another one is left).
  if (o.backends_given) {
    std::vector<std::string> lu, gemm_only;
    for (const std::string &r : o.routines)
      if (one_size_device_routine(r) && on_gpu(r)) lu.push_back(r);
    for (const char *b : {"cublas-batched", "vendor-grouped"})
      if (has(o.backends, b)) gemm_only.push_back(b);
    if (!lu.empty() && !gemm_only.empty())
      std::fprintf(stderr, "note: %s: gemm only, skipped for %s\n", join(gemm_only).c_str(), join(lu).c_str());
  }
  warn_if_loaded();
  Out out;
  if (!out.open(o.csv)) return 1;
  Options ho = o, go = o;  // mode defaults: host 0.25 GB x 5 reps, device 1 GB x 10 reps
  if (ho.gb == 0) ho.gb = 0.25;
  if (ho.reps == 0) ho.reps = 5;
  if (go.gb == 0) go.gb = 1.0;
  if (go.reps == 0) go.reps = 10;
  if (go.var_hi && go.batch == 0) go.batch = 100000;
  ho.reps = std::max(1, ho.reps), go.reps = std::max(1, go.reps);
  double host_bw = NAN;
  for (const std::string &r : o.routines) {
    bool gpu_here = on_gpu(r);
    if (use_gpu && !gpu_here) std::fprintf(stderr, "note: %s has no device mode in the bench; host mode\n", r.c_str());
    if (!gpu_here && std::isnan(host_bw)) {
      host_bw = copy_bandwidth_gbps();
      std::printf("device: host CPU, copy bandwidth %.1f GB/s (data in host memory)\n", host_bw);
    }
    for (const std::string &p : o.precs) {
#if BB_BENCH_CUDA
#define BB_RUN(suffix, PublicT, T)                     \
  if (p == #suffix) {                                  \
    if (gpu_here) run_device_prec<T>(go, r, gpu, out); \
    else run_prec<T>(ho, r, host_bw, out);             \
  }
#else
#define BB_RUN(suffix, PublicT, T) \
  if (p == #suffix) run_prec<T>(ho, r, host_bw, out);
#endif
      BB_FOR_EACH_PRECISION(BB_RUN)
#undef BB_RUN
    }
  }
#if BB_BENCH_CUDA
  if (use_gpu) gpu.close();
#endif
  if (out.csv) std::fclose(out.csv);
  return 0;
}

}  // namespace

// Nothing escapes: a bad command line exits 2 with one line, anything else 1.
int main(int argc, char **argv) {
  try {
    return run(argc, argv);
  } catch (const Usage &e) {
    std::fprintf(stderr, "blas_batched_bench: %s (--help lists the options)\n", e.what());
    return 2;
  } catch (const std::bad_alloc &) {
    std::fprintf(stderr, "blas_batched_bench: out of host memory (a smaller --batch or --gb?)\n");
    return 1;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "blas_batched_bench: %s\n", e.what());
    return 1;
  }
}
