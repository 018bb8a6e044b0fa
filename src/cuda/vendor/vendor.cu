// The vendor backend's runs of the dense factorizations and trsm (vendor.hpp): pointer lists,
// packed pivots and per-problem codes in stream-ordered workspace, the cuBLAS or cuSOLVER
// call, and the way back into the run's form.
#include "../chol/chol.hpp"
#include "../lu/lu.hpp"
#include "../lu/lu_tuning.hpp"
#include "../run_table.cuh"
#include "../scalar.cuh"
#include "../tri/tri_tuning.hpp"
#include "vendor.hpp"
#include "vendor_calls.cuh"

#include <blas_batched/blas_batched.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace bb::cuda {

namespace {

// Problem i's matrix (or vector) of an operand, in bytes; offsets included.
__device__ __forceinline__ char *operand_bytes(const DevOperand &o, int64_t i, int elem) {
  if (o.array) {
    char *p = static_cast<char *const *>(o.p)[i];
    return p ? p + o.step * elem : nullptr;
  }
  return const_cast<char *>(static_cast<const char *>(o.p)) + i * o.step * elem;
}

// Up to three pointer lists of `problems` entries each (lists + k * problems), from operands or
// from evenly spaced workspace (a null operand p: base + i * stride).
struct ListSpec {
  DevOperand op[3];
  int elem[3] = {};
  char *base[3] = {};
  int64_t stride[3] = {};
  int count = 0;
};

__global__ void vendor_lists(ListSpec spec, int64_t problems, char **lists) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < problems; i += int64_t(gridDim.x) * blockDim.x)
    for (int k = 0; k < spec.count; ++k)
      lists[k * problems + i] =
          spec.op[k].p ? operand_bytes(spec.op[k], i, spec.elem[k]) : spec.base[k] + i * spec.stride[k];
}

// getri's input, per problem: A (n x n, its ld) into w (ld n, n * n apart), and its pivots into
// piv (n apart). Its code into early, as LAPACK's getri finds it before computing anything: -k
// (`bad_code`) for a pivot outside 1..n, else the first i with U(i,i) exactly zero (cuBLAS's
// getriBatched reports another index). A problem with a code gets packed pivots of no
// interchange (the vendor then never reads out of range) and is restored from w afterwards.
template <class S>
__global__ void getri_gather(DevOperand a, DevOperand ipiv, int n, int bad_code, S *w, int *piv, int *early,
                             int64_t problems) {
  const int64_t nn = int64_t(n) * n;
  __shared__ int bad, first_zero;
  for (int64_t p = blockIdx.x; p < problems; p += gridDim.x) {
    const S *src = operand_at<S>(a, p);
    const int *ip = operand_at<int>(ipiv, p);
    if (threadIdx.x == 0) bad = 0, first_zero = n + 1;
    __syncthreads();
    for (int64_t e = threadIdx.x; e < nn; e += blockDim.x) {
      const int i = int(e % n), j = int(e / n);
      const S x = src[i + j * int64_t(a.ld)];
      w[p * nn + e] = x;
      if (i == j && is_zero(widen(x))) atomicMin(&first_zero, i + 1);
    }
    for (int j = threadIdx.x; j < n; j += blockDim.x)
      if (ip[j] < 1 || ip[j] > n) bad = 1;
    __syncthreads();
    const int code = bad ? bad_code : first_zero <= n ? first_zero : 0;
    for (int j = threadIdx.x; j < n; j += blockDim.x) piv[p * n + j] = code ? j + 1 : ip[j];
    if (threadIdx.x == 0) early[p] = code;
    __syncthreads();
  }
}

// After cuBLAS's getri: problem p's code (early[p], getri_gather's) goes into codes and info
// where those still hold 0, and a problem with a code gets its A back from w (getri leaves it
// unchanged; the inverse in one call keeps getrf's factors).
template <class S>
__global__ void getri_finish(const int *early, int *codes, int *info, DevOperand a, int n, const S *w,
                             int64_t problems) {
  const int64_t nn = int64_t(n) * n;
  for (int64_t p = blockIdx.x; p < problems; p += gridDim.x) {
    const int code = early[p];
    if (!code) continue;
    if (threadIdx.x == 0) {
      if (codes && !codes[p]) codes[p] = code;
      if (info && !info[p]) info[p] = code;
    }
    S *dst = operand_at<S>(a, p);
    for (int64_t e = threadIdx.x; e < nn; e += blockDim.x) dst[(e % n) + (e / n) * int64_t(a.ld)] = w[p * nn + e];
  }
}

// Neither NaN nor Inf.
template <class R> __device__ __forceinline__ bool finite_value(R v) {
  if constexpr (dev_complex<R>) return finite_value(v.re) && finite_value(v.im);
  else return v - v == R(0);
}

// NaN, Inf or a subnormal number.
template <class R> __device__ __forceinline__ bool special_value(R v) {
  if constexpr (dev_complex<R>) {
    return special_value(v.re) || special_value(v.im);
  } else {
    return !(v - v == R(0)) || (v != R(0) && fabs(v) < smallest_normal<R>());
  }
}

// getrf's input kept: each problem's A (n x n) into w (ld n, n * n apart), and whether it holds
// NaN, Inf or a subnormal number (special[p]): those take the library's kernels, whose choices
// with them are LAPACK's (SPEC.md section 3), as do problems cuBLAS finds singular.
template <class S>
__global__ void getrf_keep(DevOperand a, int n, S *w, int *special, int64_t problems) {
  const int64_t nn = int64_t(n) * n;
  __shared__ int any;
  for (int64_t p = blockIdx.x; p < problems; p += gridDim.x) {
    const S *src = operand_at<S>(a, p);
    if (threadIdx.x == 0) any = 0;
    __syncthreads();
    for (int64_t e = threadIdx.x; e < nn; e += blockDim.x) {
      const S x = src[(e % n) + (e / n) * int64_t(a.ld)];
      w[p * nn + e] = x;
      if (special_value(widen(x))) any = 1;
    }
    __syncthreads();
    if (threadIdx.x == 0) special[p] = any;
  }
}

// The problems for the library's kernels after cuBLAS's getrf: special ones and those cuBLAS
// found singular (it does not complete their factorization as LAPACK does), except a NULL
// problem's scratch (its -k code already there). Their A comes back from w; the redo lists get
// their A and ipiv, NULL for the others (the kernels skip those). Without `special` (complex:
// no cuBLAS getrf ran), every problem but the NULL ones, A as it is.
template <class S>
__global__ void getrf_redo_lists(DevOperand a, DevOperand ipiv, int n, const S *w, const int *special, const int *found,
                                 const int *codes, const int *info, char **redo_a, char **redo_ipiv,
                                 int64_t problems) {
  const int64_t nn = int64_t(n) * n;
  __shared__ int produced;  // NaN, Inf or a subnormal pivot made during cuBLAS's elimination
  for (int64_t p = blockIdx.x; p < problems; p += gridDim.x) {
    S *dst = operand_at<S>(a, p);
    if (threadIdx.x == 0) produced = 0;
    __syncthreads();
    if (special)
      for (int64_t e = threadIdx.x; e < nn; e += blockDim.x) {
        const int i = int(e % n), j = int(e / n);
        const auto x = widen(dst[i + j * int64_t(a.ld)]);
        if (i == j ? special_value(x) : !finite_value(x)) produced = 1;
      }
    __syncthreads();
    const bool redo =
        (!special || special[p] || found[p] || produced) && !(codes && codes[p]) && !(info && info[p]);
    __syncthreads();  // `produced` read by every thread before the next problem resets it
    if (threadIdx.x == 0) {
      redo_a[p] = redo ? reinterpret_cast<char *>(dst) : nullptr;
      redo_ipiv[p] = redo ? reinterpret_cast<char *>(operand_at<int>(ipiv, p)) : nullptr;
    }
    if (!redo || !special) continue;
    for (int64_t e = threadIdx.x; e < nn; e += blockDim.x) dst[(e % n) + (e / n) * int64_t(a.ld)] = w[p * nn + e];
  }
}

// potrf's codes after cuSOLVER: LAPACK's first j whose computed diagonal is not positive (NaN
// included; cuSOLVER reports no NaN), or cuSOLVER's own where that comes first. The factor's
// diagonal: L(j, j) (A's column-major lower triangle, the row-major upper one). A warp per
// problem, 32 diagonal entries a step: one thread walking n entries an ld + 1 apart waited on
// memory n times (r64, 4 problems of 1024: 0.25 ms, a sixth of cuSOLVER's own time).
constexpr int kCodesWarps = 4;  // warps (problems) per block
template <class S>
__global__ void potrf_codes(DevOperand a, int n, const int *found, int *codes, int *info, int64_t problems) {
  using CT = typename dev<S>::C;
  const int lane = threadIdx.x % 32, block_warps = blockDim.x / 32;  // blockDim: whole warps
  const int64_t warps = int64_t(gridDim.x) * block_warps;
  for (int64_t p = blockIdx.x * int64_t(block_warps) + threadIdx.x / 32; p < problems; p += warps) {
    const S *l = operand_at<S>(a, p);
    int code = found[p] > 0 ? found[p] : 0;
    const int last = code ? code - 1 : n;
    for (int j0 = 0; j0 < last; j0 += 32) {  // warp-uniform: the ballot ends it for all lanes
      const int j = j0 + lane;
      bool bad = false;
      if (j < last) {
        const CT d = widen(l[j * (int64_t(a.ld) + 1)]);
        real_t<CT> re;
        if constexpr (dev<S>::complex) re = d.re;
        else re = d;
        bad = !(re > 0);
      }
      if (const unsigned m = __ballot_sync(0xffffffffu, bad)) {
        code = j0 + __ffs(int(m));
        break;
      }
    }
    if (lane || !code) continue;
    if (codes && !codes[p]) codes[p] = code;
    if (info && !info[p]) info[p] = code;
  }
}

// Complex trsm: cuBLAS multiplies by the reciprocal of A's diagonal, which overflows for a
// diagonal entry below the smallest normal number, where trsm divides by it (SPEC.md section
// 9). A problem with such an entry (non-unit diagonal) gets flags[p] and its B kept in w (m x n,
// ld m): the library's kernels solve it again afterwards.
template <class S>
__global__ void trsm_screen(DevOperand a, int order, bool unit, DevOperand b, int m, int n, S *w, int *flags,
                            int64_t problems) {
  using CT = typename dev<S>::C;
  using R = real_t<CT>;
  const int64_t mn = int64_t(m) * n;
  __shared__ int tiny;
  for (int64_t p = blockIdx.x; p < problems; p += gridDim.x) {
    const S *ap = operand_at<S>(a, p);
    if (threadIdx.x == 0) tiny = 0;
    __syncthreads();
    if (!unit)
      for (int j = threadIdx.x; j < order; j += blockDim.x) {
        const CT d = widen(ap[j * (int64_t(a.ld) + 1)]);
        if (!is_zero(d) && abs1(d) < smallest_normal<R>()) tiny = 1;
      }
    __syncthreads();
    if (tiny) {
      const S *bp = operand_at<S>(b, p);
      for (int64_t e = threadIdx.x; e < mn; e += blockDim.x) w[p * mn + e] = bp[(e % m) + (e / m) * int64_t(b.ld)];
    }
    if (threadIdx.x == 0) flags[p] = tiny;
    __syncthreads();
  }
}

// The flagged problems' B back from w, and lists of their A and B for the library's kernels
// (NULL for the others, which the kernels skip).
template <class S>
__global__ void trsm_redo_lists(DevOperand a, DevOperand b, int m, int n, const S *w, const int *flags, char **redo_a,
                                char **redo_b, int64_t problems) {
  const int64_t mn = int64_t(m) * n;
  for (int64_t p = blockIdx.x; p < problems; p += gridDim.x) {
    const bool redo = flags[p];
    S *bp = operand_at<S>(b, p);
    if (threadIdx.x == 0) {
      redo_a[p] = redo ? reinterpret_cast<char *>(operand_at<S>(a, p)) : nullptr;
      redo_b[p] = redo ? reinterpret_cast<char *>(bp) : nullptr;
    }
    if (!redo) continue;
    for (int64_t e = threadIdx.x; e < mn; e += blockDim.x) bp[(e % m) + (e / m) * int64_t(b.ld)] = w[p * mn + e];
  }
}

// getrf's pivots, packed n apart, into the run's ipiv.
__global__ void scatter_pivots(const int *piv, int n, DevOperand ipiv, int64_t problems) {
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < problems * n;
       e += int64_t(gridDim.x) * blockDim.x)
    operand_at<int>(ipiv, e / n)[e % n] = piv[e];
}

// A part of a run's workspace: matrices first (16-byte aligned from the pool), then the
// pointer lists, then the ints.
struct VendorWork {
  int64_t matrix = 0, lists = 0, ints = 0;  // per problem, bytes
  int64_t per_problem() const { return matrix + lists + ints; }
};

class Workspace {
 public:
  Workspace(Session &s) : s_(s), stream_(static_cast<cudaStream_t>(s.stream())) {}
  // Room for `problems` of w's bytes each (or as many as the cap allows; where the pool cannot
  // give that, one); false, with the session failed (or, `optional`, untouched), if none.
  bool take(const VendorWork &w, int64_t problems, bool optional = false) {
    constexpr int64_t cap = int64_t(Session::kWorkspaceKept) - 64;
    const auto pool = static_cast<cudaMemPool_t>(s_.workspace_pool());
    for (int64_t batch = std::max<int64_t>(1, std::min<int64_t>(problems, cap / std::max<int64_t>(1, w.per_problem())));
         pool; batch = 1) {
      ArenaLayout at;
      at.take(std::size_t(batch * w.matrix));
      lists_at_ = int64_t(at.take(std::size_t(batch * w.lists))), ints_at_ = int64_t(at.take(std::size_t(batch * w.ints)));
      if (cudaMallocFromPoolAsync(&base_, std::max<std::size_t>(at.bytes, 1), pool, stream_) == cudaSuccess) {
        batch_ = batch;
        return true;
      }
      cudaGetLastError();
      base_ = nullptr;
      if (batch == 1) break;
    }
    if (!optional) s_.fail(BLAS_BATCHED_ERR_DEVICE_ALLOC);
    return false;
  }
  ~Workspace() {
    if (base_) s_.check(cudaFreeAsync(base_, stream_));  // stream-ordered: after the work
  }
  int64_t batch() const { return batch_; }
  char *matrices() const { return static_cast<char *>(base_); }
  char **lists() const { return reinterpret_cast<char **>(static_cast<char *>(base_) + lists_at_); }
  int *ints() const { return reinterpret_cast<int *>(static_cast<char *>(base_) + ints_at_); }

 private:
  Session &s_;
  cudaStream_t stream_;
  void *base_ = nullptr;
  int64_t batch_ = 0, lists_at_ = 0, ints_at_ = 0;
};

// The vendor's answer: cuBLAS's or cuSOLVER's status is the whole of it (the runtime's
// last-error slot may hold errors they provoked and handled themselves).
int vendor_status(Session &s, bool ok, bool out_of_memory, int code, const char *what) {
  if (ok) return s.status();
  if (std::getenv("BLAS_BATCHED_DEBUG")) std::fprintf(stderr, "blas_batched: %s status %d\n", what, code);
  return s.fail(out_of_memory ? BLAS_BATCHED_ERR_DEVICE_ALLOC : BLAS_BATCHED_ERR_DEVICE);
}
int blas_status(Session &s, cublasStatus_t st, const char *what) {
  return vendor_status(s, st == CUBLAS_STATUS_SUCCESS, st == CUBLAS_STATUS_ALLOC_FAILED, int(st), what);
}

template <class K, class... Args>
void enqueue(Session &s, K kernel, int64_t blocks, int threads, Args... args) {
  if (s.status()) return;
  s.clear_stale_error();
  kernel<<<unsigned(blocks), threads, 0, static_cast<cudaStream_t>(s.stream())>>>(args...);
  s.check_launch();
}

// One part of a run (at most the workspace's batch of problems): its slices of the workspace.
template <class S>
struct Part {
  const FactorRun &r;
  int64_t P;
  char **lists;      // 3 P entries
  int *found, *early, *piv;  // P, P, P n
  S *w;              // P n n (getrf, getri)
  Part(const FactorRun &run, const Workspace &ws)
      : r(run), P(run.problems), lists(ws.lists()), found(ws.ints()), early(found + P), piv(early + P),
        w(reinterpret_cast<S *>(ws.matrices())) {}
  S *const *list(int k) const { return reinterpret_cast<S *const *>(lists + k * P); }
};

// Lists 0 (and 1) from operands, or list 1 from the part's copies in w.
template <class S>
int make_lists(Session &s, const Part<S> &t, const DevOperand *second, bool copies) {
  ListSpec spec;
  spec.op[0] = t.r.A, spec.elem[0] = int(sizeof(S)), spec.count = 1;
  if (second) spec.op[1] = *second, spec.elem[1] = int(sizeof(S)), spec.count = 2;
  if (copies)
    spec.base[1] = reinterpret_cast<char *>(t.w), spec.stride[1] = int64_t(t.r.n) * t.r.n * int64_t(sizeof(S)),
    spec.count = 2;
  enqueue(s, vendor_lists, s.grid(t.P, 256), 256, spec, t.P, t.lists);
  return s.status();
}

// The problems getrf_redo_lists listed (A at t.lists + P, ipiv at t.lists + 2 P; NULL entries
// for the others, which the kernels skip), factored again by the library's kernels.
template <class S>
int getrf_redo(Session &s, const Part<S> &t, bool blocked) {
  FactorRun redo = t.r;
  redo.unit_begin = 0, redo.vendor_library = false, redo.solver_per_problem = false;
  redo.host_a = redo.host_ipiv = nullptr;
  redo.A.p = t.lists + t.P, redo.ipiv.p = t.lists + 2 * t.P;
  redo.A.array = redo.ipiv.array = true, redo.A.step = redo.ipiv.step = 0;
  redo.A.maybe_null = redo.ipiv.maybe_null = true;
  const DevPrec p = dev_prec_of<S>();
  return blocked ? getrf_blocked(s, p, redo, false) : getrf_unblocked(s, p, redo);
}

// cuBLAS getrfBatched on the problems it factors as LAPACK does; the others (special values,
// singular) again from their kept input by the library's kernels. Complex (the inverse in one
// call): the library's kernels alone, cuBLAS's pivot not being LAPACK's.
template <class S>
int getrf_part(Session &s, const Part<S> &t, cublasHandle_t h) {
  const FactorRun &r = t.r;
  const int n = r.n;
  constexpr bool kCublasPivots = !dev<S>::complex;
  if (kCublasPivots) {
    if (make_lists(s, t, nullptr, false)) return s.status();
    enqueue(s, getrf_keep<S>, s.block_grid(t.P), 256, r.A, n, t.w, t.early, t.P);
    if (s.status()) return s.status();
    const cublasStatus_t st = vendor_calls::getrf(h, n, t.list(0), r.A.ld, t.piv, t.found, int(t.P));
    if (blas_status(s, st, "cuBLAS getrfBatched")) return s.status();
    enqueue(s, scatter_pivots, s.grid(t.P * n, 256), 256, t.piv, n, r.ipiv, t.P);
  }
  enqueue(s, getrf_redo_lists<S>, s.block_grid(t.P), 256, r.A, r.ipiv, n, kCublasPivots ? t.w : nullptr,
          kCublasPivots ? t.early : nullptr, t.found, r.codes, r.info, t.lists + t.P, t.lists + 2 * t.P, t.P);
  // Complex: every problem factored here, blocked where getrf's own call would block this run
  // (getrf_by_blocks: not a run of few problems among many runs, factor_blocked_run), so that
  // the inverse in one call stays bit for bit getrf then getri (a call of 9 groups differed).
  return getrf_redo(s, t, kCublasPivots ? lu_blocked(dev_prec_of<S>(), n, n) : r.getrf_by_blocks);
}

// cuBLAS getriBatched out of place, from a copy of A, into A; codes and restores as LAPACK's getri.
template <class S>
int getri_part(Session &s, const Part<S> &t, cublasHandle_t h) {
  const FactorRun &r = t.r;
  const int n = r.n;
  if (make_lists(s, t, nullptr, true)) return s.status();
  enqueue(s, getri_gather<S>, s.block_grid(t.P), 256, r.A, r.ipiv, n, r.bad_pivot_code, t.w, t.piv, t.early, t.P);
  if (s.status()) return s.status();
  const cublasStatus_t st = vendor_calls::getri(h, n, t.list(1), n, t.piv, t.list(0), r.A.ld, t.found, int(t.P));
  if (blas_status(s, st, "cuBLAS getriBatched")) return s.status();
  enqueue(s, getri_finish<S>, s.block_grid(t.P), 256, t.early, r.codes, r.info, r.A, n, t.w, t.P);
  return s.status();
}

template <class S>
int factor_part(Session &s, VendorFactor f, const Part<S> &t) {
  const FactorRun &r = t.r;
  s.started();
  if (f == VendorFactor::potrf) {
#ifdef BB_HAVE_CUSOLVER
    auto h = static_cast<cusolverDnHandle_t>(s.cusolver());
    if (!h || make_lists(s, t, nullptr, false)) return s.status();
    // cuSOLVER's Lower: the column-major lower triangle, which is the row-major upper one
    // (factor_vendor_ok takes no other).
    const cusolverStatus_t st = vendor_calls::potrf(h, CUBLAS_FILL_MODE_LOWER, r.n, t.list(0), r.A.ld, t.found, int(t.P));
    if (vendor_status(s, st == CUSOLVER_STATUS_SUCCESS, st == CUSOLVER_STATUS_ALLOC_FAILED, int(st), "cuSOLVER potrfBatched")) return s.status();
    enqueue(s, potrf_codes<S>, s.grid(t.P * 32, 32 * kCodesWarps), 32 * kCodesWarps, r.A, r.n, t.found, r.codes, r.info, t.P);
    return s.status();
#else
    return s.fail(BLAS_BATCHED_ERR_DEVICE);  // never planned (factor_vendor_ok)
#endif
  }
  auto h = static_cast<cublasHandle_t>(s.cublas());
  if (!h) return s.status();
  switch (f) {
    case VendorFactor::geqrf: {
      if (make_lists(s, t, &r.tau, false)) return s.status();
      int info = 0;  // argument errors only
      const cublasStatus_t st = vendor_calls::geqrf(h, r.m, r.n, t.list(0), r.A.ld, t.list(1), &info, int(t.P));
      // info < 0: cuBLAS rejected argument -info (a library bug: the adapters pass valid ones).
      vendor_status(s, st == CUBLAS_STATUS_SUCCESS && info == 0, st == CUBLAS_STATUS_ALLOC_FAILED,
                    st ? int(st) : info, "cuBLAS geqrfBatched (status, or -argument)");
      return s.status();
    }
    case VendorFactor::getrf: return getrf_part(s, t, h);
    case VendorFactor::getri: return getri_part(s, t, h);
    case VendorFactor::getrf_getri: return getrf_part(s, t, h) ? s.status() : getri_part(s, t, h);
    default: return s.fail(BLAS_BATCHED_ERR_DEVICE);
  }
}

template <class S>
int factor_typed(Session &s, VendorFactor f, const FactorRun &r) {
  if (s.status() || r.problems <= 0 || r.m <= 0 || r.n <= 0) return s.status();
  if constexpr (!has_vendor<S>()) {
    return s.fail(BLAS_BATCHED_ERR_DEVICE);  // never planned (factor_vendor_ok)
  } else {
    const int n = r.n;
    const bool lu = f == VendorFactor::getrf || f == VendorFactor::getri || f == VendorFactor::getrf_getri;
    VendorWork need;
    need.matrix = lu ? int64_t(n) * n * int64_t(sizeof(S)) : 0;
    need.lists = 3 * int64_t(sizeof(void *));
    need.ints = (2 + int64_t(lu ? n : 0)) * int64_t(sizeof(int));
    Workspace ws(s);
    s.started();
    if (!ws.take(need, r.problems)) return s.status();
    for (int64_t from = 0; from < r.problems && !s.status(); from += ws.batch()) {
      const FactorRun part = part_of(r, from, std::min(ws.batch(), r.problems - from), int(sizeof(S)));
      factor_part<S>(s, f, Part<S>(part, ws));
    }
    return s.status();
  }
}

#ifdef BB_HAVE_CUSOLVER
// Problem i's matrix (or pivots) where the host knows it: the caller's host pointer array entry,
// or the strided operand's base; null where neither (device pointer arrays: never planned).
char *host_address(const DevOperand &o, const void *const *host, int64_t i, int elem) {
  if (host) {
    char *p = static_cast<char *>(const_cast<void *>(host[i]));
    return p ? p + o.step * elem : nullptr;  // an array operand's step is its offset
  }
  if (o.array) return nullptr;
  return const_cast<char *>(static_cast<const char *>(o.p)) + i * o.step * elem;
}

// One part of a getrf_solver run: A kept in w, cuSOLVER's getrf per problem with its code in
// found, then the problems to redo (getrf_redo_lists), NULL entries for the others. Below
// kLuSolverBlockedRedoMin the library's unblocked kernel redoes them, one launch that costs
// nothing when no problem needs it; above, its one thread block per problem would take seconds
// on a problem that does, and the blocked algorithm's launches on empty lists cost a few
// percent of cuSOLVER's time instead (lu_tuning.hpp).
template <class S>
int getrf_solver_part(Session &s, const Part<S> &t, cusolverDnHandle_t h, S *work) {
  const FactorRun &r = t.r;
  const int n = r.n, elem = int(sizeof(S));
  enqueue(s, getrf_keep<S>, s.block_grid(t.P), 256, r.A, n, t.w, t.early, t.P);
  for (int64_t i = 0; i < t.P && !s.status(); ++i) {
    S *a = reinterpret_cast<S *>(host_address(r.A, r.host_a, i, elem));
    int *piv = reinterpret_cast<int *>(host_address(r.ipiv, r.host_ipiv, i, int(sizeof(int))));
    if (!a || !piv) return s.fail(BLAS_BATCHED_ERR_DEVICE);  // never planned (factor_adapter.hpp)
    const cusolverStatus_t st = vendor_calls::getrf_one(h, n, a, r.A.ld, work, piv, t.found + i);
    vendor_status(s, st == CUSOLVER_STATUS_SUCCESS, st == CUSOLVER_STATUS_ALLOC_FAILED, int(st), "cuSOLVER getrf");
  }
  enqueue(s, getrf_redo_lists<S>, s.block_grid(t.P), 256, r.A, r.ipiv, n, t.w, t.early, t.found, r.codes, r.info,
          t.lists + t.P, t.lists + 2 * t.P, t.P);
  return getrf_redo(s, t, n >= kLuSolverBlockedRedoMin);
}

// cuSOLVER's scratch for its single-matrix calls: taken from the session's pool before the
// parts' workspace, given back after it (stream-ordered); ok() false if none to be had.
class SolverScratch {
 public:
  SolverScratch(Session &s, std::size_t bytes) : s_(s), stream_(static_cast<cudaStream_t>(s.stream())) {
    const auto pool = static_cast<cudaMemPool_t>(s.workspace_pool());
    if (!pool || cudaMallocFromPoolAsync(&p_, std::max<std::size_t>(bytes, 16), pool, stream_) != cudaSuccess) {
      cudaGetLastError();
      p_ = nullptr;
    }
  }
  bool ok() const { return p_ != nullptr; }
  ~SolverScratch() { release(); }
  void release() {
    if (p_) s_.check(cudaFreeAsync(p_, stream_));
    p_ = nullptr;
  }
  template <class S> S *as() const { return static_cast<S *>(p_); }

 private:
  Session &s_;
  cudaStream_t stream_;
  void *p_ = nullptr;
};

// The blocked algorithm in place of cuSOLVER's per-problem path, a tuning choice, where what
// that path needs (its handle, its scratch, room for its copies) is not to be had.
template <class S>
int blocked_instead(Session &s, const FactorRun &r, int (*blocked)(Session &, DevPrec, const FactorRun &, bool),
                    const char *why) {
  if (std::getenv("BLAS_BATCHED_DEBUG")) std::fprintf(stderr, "blas_batched: %s: blocked\n", why);
  return blocked(s, dev_prec_of<S>(), r, false);
}

// The run's parts (each the Workspace's batch of problems) through part(Part<S>, scratch) with
// cuSOLVER's scratch of scratch_bytes. Where the scratch or the workspace (getrf keeps each
// problem's input, n^2 elements) is not to be had, the blocked algorithm, which needs neither,
// (getrf_blocked, potrf_blocked) runs the whole run: a call that fits without them does not
// fail for them.
template <class S, class PerPart>
int solver_parts(Session &s, const FactorRun &r, std::size_t scratch_bytes, const VendorWork &need,
                 int (*blocked)(Session &, DevPrec, const FactorRun &, bool), PerPart &&part) {
  SolverScratch scratch(s, scratch_bytes);
  Workspace ws(s);
  if (!scratch.ok() || !ws.take(need, r.problems, true)) {
    scratch.release();  // all the room there is for the blocked algorithm's (tri.cu's optional workspace)
    return blocked_instead<S>(s, r, blocked, "no room for cuSOLVER's path");
  }
  for (int64_t from = 0; from < r.problems && !s.status(); from += ws.batch())
    part(Part<S>(part_of(r, from, std::min(ws.batch(), r.problems - from), int(sizeof(S))), ws), scratch.as<S>());
  return s.status();
}

template <class S>
int getrf_solver_typed(Session &s, const FactorRun &r) {
  if (s.status() || r.problems <= 0 || r.n <= 0) return s.status();
  if constexpr (!std::is_same_v<S, float> && !std::is_same_v<S, double>) {
    return s.fail(BLAS_BATCHED_ERR_DEVICE);  // never planned (lu_solver_min_order)
  } else {
    const int n = r.n;
    s.started();
    auto h = static_cast<cusolverDnHandle_t>(s.cusolver(true));
    if (!h) return s.status() ? s.status() : blocked_instead<S>(s, r, getrf_blocked, "no cuSOLVER handle");
    int work_elements = 0;
    S *const a0 = reinterpret_cast<S *>(host_address(r.A, r.host_a, 0, int(sizeof(S))));
    const cusolverStatus_t st = vendor_calls::getrf_work(h, n, a0, r.A.ld, &work_elements);
    if (vendor_status(s, st == CUSOLVER_STATUS_SUCCESS, false, int(st), "cuSOLVER getrf_bufferSize")) return s.status();
    VendorWork need;  // A kept, the redo lists (Part's three), cuSOLVER's code and the special flag
    need.matrix = int64_t(n) * n * int64_t(sizeof(S));
    need.lists = 3 * int64_t(sizeof(void *));
    need.ints = 2 * int64_t(sizeof(int));
    return solver_parts<S>(s, r, std::size_t(work_elements) * sizeof(S), need, getrf_blocked,
                           [&](const Part<S> &t, S *work) { getrf_solver_part<S>(s, t, h, work); });
  }
}

template <class S>
int potrf_solver_typed(Session &s, const FactorRun &r) {
  if (s.status() || r.problems <= 0 || r.n <= 0) return s.status();
  if constexpr (!has_vendor<S>()) {
    return s.fail(BLAS_BATCHED_ERR_DEVICE);  // never planned (chol_solver_min_order)
  } else {
    const int n = r.n;
    s.started();
    auto h = static_cast<cusolverDnHandle_t>(s.cusolver(true));
    if (!h) return s.status() ? s.status() : blocked_instead<S>(s, r, potrf_blocked, "no cuSOLVER handle");
    // The stored triangle as column-major: Lower, or (the other triangle, or row-major's) Upper.
    const cublasFillMode_t uplo = r.lower != r.row_major ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER;
    int work_elements = 0;
    S *const a0 = reinterpret_cast<S *>(host_address(r.A, r.host_a, 0, int(sizeof(S))));
    const cusolverStatus_t st = vendor_calls::potrf_work(h, uplo, n, a0, r.A.ld, &work_elements);
    if (vendor_status(s, st == CUSOLVER_STATUS_SUCCESS, false, int(st), "cuSOLVER potrf_bufferSize")) return s.status();
    VendorWork need;  // cuSOLVER's code per problem
    need.ints = int64_t(sizeof(int));
    return solver_parts<S>(s, r, std::size_t(work_elements) * sizeof(S), need, potrf_blocked,
                           [&](const Part<S> &t, S *work) {
      for (int64_t i = 0; i < t.P && !s.status(); ++i) {
        S *a = reinterpret_cast<S *>(host_address(t.r.A, t.r.host_a, i, int(sizeof(S))));
        if (!a) {
          s.fail(BLAS_BATCHED_ERR_DEVICE);  // never planned (factor_adapter.hpp)
          return;
        }
        const cusolverStatus_t one =
            vendor_calls::potrf_one(h, uplo, n, a, t.r.A.ld, work, work_elements, t.found + i);
        vendor_status(s, one == CUSOLVER_STATUS_SUCCESS, one == CUSOLVER_STATUS_ALLOC_FAILED, int(one), "cuSOLVER potrf");
      }
      enqueue(s, potrf_codes<S>, s.grid(t.P * 32, 32 * kCodesWarps), 32 * kCodesWarps, t.r.A, n, t.found, t.r.codes, t.r.info, t.P);
    });
  }
}
#endif

cublasOperation_t trsm_op(int trans, bool complex) {
  return trans == 0 ? CUBLAS_OP_N : trans == 2 && complex ? CUBLAS_OP_C : CUBLAS_OP_T;
}

template <class S>
int trsm_typed(Session &s, const TriRun &r) {
  if (s.status() || r.problems <= 0 || r.m <= 0 || r.n <= 0) return s.status();
  if constexpr (!has_vendor<S>()) {
    return s.fail(BLAS_BATCHED_ERR_DEVICE);  // never planned (trsm_vendor_ok)
  } else {
    // Real cuBLAS trsm divides (GpuTrsmTrmm.SubnormalDiagonal); a unit diagonal is never read.
    const bool screen = dev<S>::complex && !r.unit_diag;
    VendorWork need;
    need.matrix = screen ? int64_t(r.m) * r.n * int64_t(sizeof(S)) : 0;
    need.lists = (screen ? 4 : 2) * int64_t(sizeof(void *));
    need.ints = screen ? int64_t(sizeof(int)) : 0;
    Workspace ws(s);
    s.started();
    if (!ws.take(need, r.problems)) return s.status();
    auto h = static_cast<cublasHandle_t>(s.cublas());
    S *w = reinterpret_cast<S *>(ws.matrices());
    int *flags = ws.ints();
    using CT = typename dev<S>::C;
    const CT alpha = scalar_from<CT>(r.alpha);
    for (int64_t from = 0; from < r.problems && !s.status(); from += ws.batch()) {
      const int64_t P = std::min(ws.batch(), r.problems - from);
      ListSpec spec;
      spec.op[0] = from_problem(r.A, from, int(sizeof(S))), spec.op[1] = from_problem(r.B, from, int(sizeof(S)));
      spec.elem[0] = spec.elem[1] = int(sizeof(S)), spec.count = 2;
      enqueue(s, vendor_lists, s.grid(P, 256), 256, spec, P, ws.lists());
      if (screen)
        enqueue(s, trsm_screen<S>, s.block_grid(P), 256, spec.op[0], r.order(), r.unit_diag, spec.op[1], r.m, r.n, w,
                flags, P);
      if (s.status() || !h) break;
      const cublasStatus_t st = vendor_calls::trsm(
          h, r.left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT, r.lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER,
          trsm_op(r.trans, dev<S>::complex), r.unit_diag ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT, r.m, r.n,
          reinterpret_cast<const S *>(&alpha), reinterpret_cast<S *const *>(ws.lists()), r.A.ld,
          reinterpret_cast<S *const *>(ws.lists() + P), r.B.ld, int(P));
      // Not measured yet: the solve below runs over all P problems (NULL where none is flagged)
      // even when no problem is; a count of the flags would need a read-back (a sync).
      if (blas_status(s, st, "cuBLAS trsmBatched") || !screen) continue;
      char **redo = ws.lists() + 2 * P;
      enqueue(s, trsm_redo_lists<S>, s.block_grid(P), 256, spec.op[0], spec.op[1], r.m, r.n, w, flags, redo,
              redo + P, P);
      TriRun again = r;
      again.problems = P, again.unit_begin = 0, again.vendor_library = false;
      again.info = nullptr;  // the driver wrote the zeros (trsm has no numerical codes)
      again.A.p = redo, again.B.p = redo + P;
      again.A.array = again.B.array = true, again.A.step = again.B.step = 0;
      again.A.maybe_null = again.B.maybe_null = true;
      const DevPrec p = dev_prec_of<S>();
      if (r.order() > tri_leaf_max(p, true)) {
        tri_recursive(s, p, again, false);
      } else {
        const int config = tri_config(r.order());
        tri_launch(s, p, config, &again, nullptr, nullptr, 1, tri_units(again, config));
      }
    }
    return s.status();
  }
}

}  // namespace

bool factor_vendor_ok(VendorFactor f, DevPrec p, const FactorRun &r) {
  if (p == DevPrec::r16 || p == DevPrec::c16) return false;
  const bool real = p == DevPrec::r32 || p == DevPrec::r64;
  switch (f) {
    case VendorFactor::potrf:
#ifdef BB_HAVE_CUSOLVER
      // cuSOLVER's Upper writes into the lower triangle, which potrf must not touch.
      return r.lower != r.row_major;
#else
      return false;
#endif
    case VendorFactor::geqrf: return !r.row_major;
    // getrf: cuBLAS's complex pivot is not LAPACK's (|re| + |im|); the inverse in one call runs
    // the library's getrf there and cuBLAS's getri, as getrf and getri called one after the other.
    case VendorFactor::getrf: return real && !r.row_major && r.m == r.n;
    default: return !r.row_major && r.m == r.n;
  }
}

bool trsm_vendor_ok(DevPrec p, const TriRun &r) { return p != DevPrec::r16 && p != DevPrec::c16 && !r.zero_alpha; }

int factor_vendor(Session &s, DevPrec p, VendorFactor f, const FactorRun &r) {
  return by_precision(p, [&](auto x) { return factor_typed<decltype(x)>(s, f, r); });
}

int getrf_solver(Session &s, DevPrec p, const FactorRun &r) {
#ifdef BB_HAVE_CUSOLVER
  return by_precision(p, [&](auto x) { return getrf_solver_typed<decltype(x)>(s, r); });
#else
  (void)p, (void)r;
  return s.fail(BLAS_BATCHED_ERR_DEVICE);  // never planned (lu_getrf_native_solver)
#endif
}

int potrf_solver(Session &s, DevPrec p, const FactorRun &r) {
#ifdef BB_HAVE_CUSOLVER
  return by_precision(p, [&](auto x) { return potrf_solver_typed<decltype(x)>(s, r); });
#else
  (void)p, (void)r;
  return s.fail(BLAS_BATCHED_ERR_DEVICE);  // never planned (chol_native_solver)
#endif
}

int trsm_vendor(Session &s, DevPrec p, const TriRun &r) {
  return by_precision(p, [&](auto x) { return trsm_typed<decltype(x)>(s, r); });
}

}  // namespace bb::cuda
