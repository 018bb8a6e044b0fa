// The arguments of one BLAS_<routine>_batched call, their validation, and the problems they
// describe. Argument numbers are 1-based positions in the C signature (layout is 1); SPEC.md
// lists them. Validation never reads matrix data, except getri's ipiv on the host.
#pragma once
#include "../common/problem.hpp"

#include <algorithm>
#include <cstdint>
#include <initializer_list>

#include <omp.h>

namespace bb {

struct ArgRef {
  int pos;
  const void *ptr;
};
// A short list of arguments, owned by value (an initializer_list would dangle when returned).
struct ArgList {
  ArgRef items[12];
  int count = 0;
  ArgList(std::initializer_list<ArgRef> l) {
    for (const ArgRef &a : l) items[count++] = a;
  }
  const ArgRef *begin() const { return items; }
  const ArgRef *end() const { return items + count; }
};

// Leading dimension needed for a logical rows x cols matrix.
inline bool ld_ok(BLAS_Layout layout, int ld, int rows, int cols) {
  int need = layout == BLAS_ColMajor ? rows : cols;
  return ld >= (need > 1 ? need : 1);
}
inline bool op_ok(BLAS_Op op) { return op == BLAS_NoTrans || op == BLAS_Trans || op == BLAS_ConjTrans; }
inline bool uplo_ok(BLAS_Uplo u) { return u == BLAS_Upper || u == BLAS_Lower; }
inline bool side_ok(BLAS_Side s) { return s == BLAS_Left || s == BLAS_Right; }
inline bool diag_ok(BLAS_Diag d) { return d == BLAS_NonUnit || d == BLAS_Unit; }

// What one pass over a group's pointer array found: all non-NULL, and whether matrix p sits
// at ptrs[off] + p * stride (then the device backend uploads no pointer array at all).
struct PtrScan {
  bool nonnull = true, strided = true;
  int64_t stride_bytes = 0;
  std::uintptr_t address_bits = 0;  // OR of all pointers: their common alignment
};
constexpr int64_t kParallelScan = 1 << 16;  // below this a thread team costs more than the pass

// One pass over pointer arrays of a group, all of them at once: one thread team per call
// instead of one per array (waking a team costs more than the scan of a small group). Small
// groups stay on the calling thread without entering OpenMP at all: a call of a million
// one-problem groups must not pay a parallel region per group.
template <class P, int N>
void scan_pointer_arrays(P *const *const (&ptrs)[N], const bool (&needed)[N], int64_t off,
                         int64_t count, PtrScan (&out)[N]) {
  if (count == 1) {  // one problem per group: the proposal's variable sizes, millions of times
    for (int a = 0; a < N; ++a) {
      const auto q = needed[a] ? reinterpret_cast<std::uintptr_t>(ptrs[a][off]) : 0;
      out[a] = PtrScan{!needed[a] || q != 0, true, 0, q};
    }
    return;
  }
  std::uintptr_t base[N], step[N];
  for (int a = 0; a < N; ++a) {
    out[a] = PtrScan{};
    base[a] = step[a] = 0;
    if (!needed[a] || count <= 0) continue;
    base[a] = reinterpret_cast<std::uintptr_t>(ptrs[a][off]);
    step[a] = count > 1 ? reinterpret_cast<std::uintptr_t>(ptrs[a][off + 1]) - base[a] : 0;
    out[a].stride_bytes = int64_t(step[a]);
  }
  auto scan = [&](int64_t lo, int64_t hi, bool (&nonnull)[N], bool (&strided)[N],
                  std::uintptr_t (&bits)[N]) {
    for (int a = 0; a < N; ++a) nonnull[a] = strided[a] = true, bits[a] = 0;
    for (int64_t p = lo; p < hi; ++p)
      for (int a = 0; a < N; ++a) {
        if (!needed[a]) continue;
        const auto q = reinterpret_cast<std::uintptr_t>(ptrs[a][off + p]);
        nonnull[a] = nonnull[a] && q != 0;
        strided[a] = strided[a] && q == base[a] + std::uintptr_t(p) * step[a];
        bits[a] |= q;
      }
  };
  auto merge = [&](const bool (&nonnull)[N], const bool (&strided)[N],
                   const std::uintptr_t (&bits)[N]) {
    for (int a = 0; a < N; ++a) {
      out[a].nonnull = out[a].nonnull && nonnull[a];
      out[a].strided = out[a].strided && strided[a];
      out[a].address_bits |= bits[a];
    }
  };
  if (count < kParallelScan) {
    bool nonnull[N], strided[N];
    std::uintptr_t bits[N];
    scan(0, count, nonnull, strided, bits);
    merge(nonnull, strided, bits);
    return;
  }
#pragma omp parallel
  {
    bool nonnull[N], strided[N];
    std::uintptr_t bits[N];
    const int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
    scan(count * t / threads, count * (t + 1) / threads, nonnull, strided, bits);
#pragma omp critical(bb_scan_pointer_arrays)
    merge(nonnull, strided, bits);
  }
}

// Pointers of problems [off, off + count) must be non-NULL when their matrix has elements.
template <class P>
bool pointers_ok(P *const *ptrs, int64_t off, int64_t count, bool needed) {
  if (!needed) return true;
  PtrScan scan[1];
  scan_pointer_arrays({ptrs}, {true}, off, count, scan);
  return scan[0].nonnull;
}

// Common to all routines: layout, group_count, group_sizes, info.
struct CallBase {
  BLAS_Layout layout;
  int group_count;
  const int *group_sizes;
  int *info;
};

template <class T>
struct GemmCall : CallBase {
  static constexpr Routine routine = Routine::gemm;
  static constexpr int pos_group_count = 15, pos_group_sizes = 16;
  const BLAS_Op *A_trans, *B_trans;
  const int *m, *n, *k;
  const T *alpha;
  T **A; const int *A_ld;
  T **B; const int *B_ld;
  const T *beta;
  T **C; const int *C_ld;

  ArgList group_arrays() const {
    return {{2, A_trans}, {3, B_trans}, {4, m}, {5, n}, {6, k}, {7, alpha}, {9, A_ld}, {11, B_ld},
            {12, beta}, {14, C_ld}};
  }
  ArgList pointer_arrays() const { return {{8, A}, {10, B}, {13, C}}; }
  // `scans` (A, B, C), when given, receives what the pointer pass found (device backend).
  int check_group(int g, int64_t off, int64_t count, PtrScan *scans = nullptr) const {
    if (!op_ok(A_trans[g])) return -2;
    if (!op_ok(B_trans[g])) return -3;
    if (m[g] < 0) return -4;
    if (n[g] < 0) return -5;
    if (k[g] < 0) return -6;
    bool an = A_trans[g] == BLAS_NoTrans, bn = B_trans[g] == BLAS_NoTrans;
    bool need_ab = m[g] > 0 && n[g] > 0 && k[g] > 0;
    PtrScan scan[3];
    scan_pointer_arrays({A, B, C}, {need_ab, need_ab, m[g] > 0 && n[g] > 0}, off, count, scan);
    if (scans) std::copy(scan, scan + 3, scans);
    if (!scan[0].nonnull) return -8;
    if (!ld_ok(layout, A_ld[g], an ? m[g] : k[g], an ? k[g] : m[g])) return -9;
    if (!scan[1].nonnull) return -10;
    if (!ld_ok(layout, B_ld[g], bn ? k[g] : n[g], bn ? n[g] : k[g])) return -11;
    if (!scan[2].nonnull) return -13;
    if (!ld_ok(layout, C_ld[g], m[g], n[g])) return -14;
    return 0;
  }
  GemmProblem<T> problem(int g, int64_t p) const {
    return {layout, A_trans[g], B_trans[g], m[g],  n[g], k[g], alpha[g], beta[g],
            A[p],   A_ld[g],    B[p],       B_ld[g], C[p], C_ld[g]};
  }
  int64_t order(int g) const { return std::max({m[g], n[g], k[g]}); }
};

// trsm and trmm.
template <class T, Routine R>
struct TriangularCall : CallBase {
  static constexpr Routine routine = R;
  static constexpr int pos_group_count = 13, pos_group_sizes = 14;
  const BLAS_Side *side;
  const BLAS_Uplo *uplo;
  const BLAS_Op *A_trans;
  const BLAS_Diag *diag;
  const int *m, *n;
  const T *alpha;
  T **A; const int *A_ld;
  T **B; const int *B_ld;

  ArgList group_arrays() const {
    return {{2, side}, {3, uplo}, {4, A_trans}, {5, diag}, {6, m}, {7, n}, {8, alpha}, {10, A_ld},
            {12, B_ld}};
  }
  ArgList pointer_arrays() const { return {{9, A}, {11, B}}; }
  int check_group(int g, int64_t off, int64_t count, PtrScan * = nullptr) const {
    if (!side_ok(side[g])) return -2;
    if (!uplo_ok(uplo[g])) return -3;
    if (!op_ok(A_trans[g])) return -4;
    if (!diag_ok(diag[g])) return -5;
    if (m[g] < 0) return -6;
    if (n[g] < 0) return -7;
    int r = side[g] == BLAS_Left ? m[g] : n[g];
    bool any = m[g] > 0 && n[g] > 0;
    if (!pointers_ok(A, off, count, any)) return -9;
    if (!ld_ok(layout, A_ld[g], r, r)) return -10;
    if (!pointers_ok(B, off, count, any)) return -11;
    if (!ld_ok(layout, B_ld[g], m[g], n[g])) return -12;
    return 0;
  }
  TriangularProblem<T> problem(int g, int64_t p) const {
    return {layout, side[g], uplo[g], A_trans[g], diag[g], m[g], n[g], alpha[g],
            A[p],   A_ld[g], B[p],    B_ld[g],    R == Routine::trsm};
  }
  int64_t order(int g) const { return std::max(m[g], n[g]); }
};

template <class T>
struct GetrfCall : CallBase {
  static constexpr Routine routine = Routine::getrf;
  static constexpr int pos_group_count = 7, pos_group_sizes = 8;
  const int *m, *n;
  T **A; const int *A_ld;
  int **ipiv;

  ArgList group_arrays() const { return {{2, m}, {3, n}, {5, A_ld}}; }
  ArgList pointer_arrays() const { return {{4, A}, {6, ipiv}}; }
  int check_group(int g, int64_t off, int64_t count, PtrScan * = nullptr) const {
    if (m[g] < 0) return -2;
    if (n[g] < 0) return -3;
    bool any = m[g] > 0 && n[g] > 0;
    if (!pointers_ok(A, off, count, any)) return -4;
    if (!ld_ok(layout, A_ld[g], m[g], n[g])) return -5;
    if (!pointers_ok(ipiv, off, count, any)) return -6;
    return 0;
  }
  GetrfProblem<T> problem(int g, int64_t p) const { return {layout, m[g], n[g], A[p], A_ld[g], ipiv[p]}; }
  int64_t order(int g) const { return std::max(m[g], n[g]); }
};

template <class T>
struct GetriCall : CallBase {
  static constexpr Routine routine = Routine::getri;
  static constexpr int pos_group_count = 6, pos_group_sizes = 7;
  const int *n;
  T **A; const int *A_ld;
  int **ipiv;

  ArgList group_arrays() const { return {{2, n}, {4, A_ld}}; }
  ArgList pointer_arrays() const { return {{3, A}, {5, ipiv}}; }
  int check_group(int g, int64_t off, int64_t count, PtrScan * = nullptr) const {
    if (n[g] < 0) return -2;
    if (!pointers_ok(A, off, count, n[g] > 0)) return -3;
    if (!ld_ok(layout, A_ld[g], n[g], n[g])) return -4;
    if (!pointers_ok(ipiv, off, count, n[g] > 0)) return -5;
    // A pivot outside 1..n would make the inversion address memory outside the matrix.
    for (int64_t p = off; p < off + count; ++p)
      for (int i = 0; i < n[g]; ++i)
        if (ipiv[p][i] < 1 || ipiv[p][i] > n[g]) return -5;
    return 0;
  }
  GetriProblem<T> problem(int g, int64_t p) const { return {layout, n[g], A[p], A_ld[g], ipiv[p]}; }
  int64_t order(int g) const { return n[g]; }
};

template <class T>
struct PotrfCall : CallBase {
  static constexpr Routine routine = Routine::potrf;
  static constexpr int pos_group_count = 6, pos_group_sizes = 7;
  const BLAS_Uplo *uplo;
  const int *n;
  T **A; const int *A_ld;

  ArgList group_arrays() const { return {{2, uplo}, {3, n}, {5, A_ld}}; }
  ArgList pointer_arrays() const { return {{4, A}}; }
  int check_group(int g, int64_t off, int64_t count, PtrScan * = nullptr) const {
    if (!uplo_ok(uplo[g])) return -2;
    if (n[g] < 0) return -3;
    if (!pointers_ok(A, off, count, n[g] > 0)) return -4;
    if (!ld_ok(layout, A_ld[g], n[g], n[g])) return -5;
    return 0;
  }
  PotrfProblem<T> problem(int g, int64_t p) const { return {layout, uplo[g], n[g], A[p], A_ld[g]}; }
  int64_t order(int g) const { return n[g]; }
};

template <class T>
struct GeqrfCall : CallBase {
  static constexpr Routine routine = Routine::geqrf;
  static constexpr int pos_group_count = 7, pos_group_sizes = 8;
  const int *m, *n;
  T **A; const int *A_ld;
  T **tau;

  ArgList group_arrays() const { return {{2, m}, {3, n}, {5, A_ld}}; }
  ArgList pointer_arrays() const { return {{4, A}, {6, tau}}; }
  int check_group(int g, int64_t off, int64_t count, PtrScan * = nullptr) const {
    if (m[g] < 0) return -2;
    if (n[g] < 0) return -3;
    bool any = m[g] > 0 && n[g] > 0;
    if (!pointers_ok(A, off, count, any)) return -4;
    if (!ld_ok(layout, A_ld[g], m[g], n[g])) return -5;
    if (!pointers_ok(tau, off, count, any)) return -6;
    return 0;
  }
  GeqrfProblem<T> problem(int g, int64_t p) const { return {layout, m[g], n[g], A[p], A_ld[g], tau[p]}; }
  int64_t order(int g) const { return std::max(m[g], n[g]); }
};

}  // namespace bb
