// The arguments of one BLAS_<routine>_batched call, their validation, and the problems they
// describe. Argument numbers are 1-based positions in the C signature (layout is 1); SPEC.md
// lists them. Validation is in two steps: check_group() the arguments that apply to a whole
// group (enums, sizes, leading dimensions), problem_error() what belongs to one problem (its
// pointers, getri's pivots on the host), read as the problem is run. Validation never reads
// matrix data, except getri's ipiv on the host.
#pragma once
#include "../common/problem.hpp"

#include <algorithm>
#include <cstdint>
#include <initializer_list>

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

// The first NULL among the pointer arrays a problem needs (bit i of `needed` is the i-th of
// pointer_arrays()): -k for its argument number, or 0. A NULL matrix pointer invalidates only
// its own problem (SPEC.md section 4.2).
template <class Call>
int null_pointer_error(const Call &c, unsigned needed, int64_t p) {
  int i = 0;
  for (const ArgRef &a : c.pointer_arrays()) {
    if ((needed >> i++ & 1u) && !static_cast<const void *const *>(a.ptr)[p]) return -a.pos;
  }
  return 0;
}

// Where a call's matrix addresses come from (SPEC.md section 9): the standard's pointer
// arrays in host memory; pointer arrays in device memory, read only by the GPU; or one base
// and stride per pointer argument (the strided entry points, device data only: the host path
// gets pointer arrays built for it).
enum class Addressing : uint8_t { host_arrays, device_arrays, strided };
struct StridedBase {
  const void *base = nullptr;
  int64_t stride_bytes = 0;
};

// Where a routine's strided signature differs from its group signature: a stride right after
// each argument numbered `after` in the group API (a matrix's ld, or ipiv / tau itself), one
// per pointer argument in pointer_arrays() order; group_count is dropped, and group_sizes
// becomes batch_count.
struct StridedSignature {
  int after[3];
  int strides;
  int group_count_pos;
  // The strided signature's number of the group API's argument k.
  int map(int k) const {
    int s = k;
    for (int i = 0; i < strides; ++i) s += after[i] < k;
    return s - (k > group_count_pos ? 1 : 0);
  }
  int stride_pos(int i) const { return map(after[i]) + 1; }
};

// Common to all routines: layout, group_count, group_sizes, info.
struct CallBase {
  BLAS_Layout layout;
  int group_count;
  const int *group_sizes;
  int *info;
  Addressing addressing = Addressing::host_arrays;
  StridedBase strided[3];  // Addressing::strided: per pointer argument, pointer_arrays() order
  uint64_t residency_call = 0;  // a residency cache already filled for this call (ResidencyCache)
  // The strided entry point's numbering of arguments, for codes that the device writes (null:
  // the group API's).
  const StridedSignature *signature = nullptr;
  int position(int k) const { return signature ? signature->map(k) : k; }
  // getri's call with each problem factored by getrf first (the inverse in one call, SPEC.md
  // section 9.4): see InverseCall.
  static constexpr bool kFactorFirst = false;
  // The matrix of pointer argument `index` for problem p, strided addressing.
  const void *strided_address(int index, int64_t p) const {
    const StridedBase &s = strided[index];
    return s.base ? static_cast<const char *>(s.base) + p * s.stride_bytes : nullptr;
  }
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
  int check_group(int g) const {
    if (!op_ok(A_trans[g])) return -2;
    if (!op_ok(B_trans[g])) return -3;
    if (m[g] < 0) return -4;
    if (n[g] < 0) return -5;
    if (k[g] < 0) return -6;
    bool an = A_trans[g] == BLAS_NoTrans, bn = B_trans[g] == BLAS_NoTrans;
    if (!ld_ok(layout, A_ld[g], an ? m[g] : k[g], an ? k[g] : m[g])) return -9;
    if (!ld_ok(layout, B_ld[g], bn ? k[g] : n[g], bn ? n[g] : k[g])) return -11;
    if (!ld_ok(layout, C_ld[g], m[g], n[g])) return -14;
    return 0;
  }
  // A and B are needed when m, n, k > 0, C when m, n > 0.
  unsigned needed_pointers(int g) const {
    const bool mn = m[g] > 0 && n[g] > 0;
    return mn ? (k[g] > 0 ? 7u : 4u) : 0u;
  }
  int problem_error(int g, int64_t p) const { return null_pointer_error(*this, needed_pointers(g), p); }
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
  int check_group(int g) const {
    if (!side_ok(side[g])) return -2;
    if (!uplo_ok(uplo[g])) return -3;
    if (!op_ok(A_trans[g])) return -4;
    if (!diag_ok(diag[g])) return -5;
    if (m[g] < 0) return -6;
    if (n[g] < 0) return -7;
    int r = side[g] == BLAS_Left ? m[g] : n[g];
    if (!ld_ok(layout, A_ld[g], r, r)) return -10;
    if (!ld_ok(layout, B_ld[g], m[g], n[g])) return -12;
    return 0;
  }
  unsigned needed_pointers(int g) const { return m[g] > 0 && n[g] > 0 ? 3u : 0u; }
  int problem_error(int g, int64_t p) const { return null_pointer_error(*this, needed_pointers(g), p); }
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
  int check_group(int g) const {
    if (m[g] < 0) return -2;
    if (n[g] < 0) return -3;
    if (!ld_ok(layout, A_ld[g], m[g], n[g])) return -5;
    return 0;
  }
  unsigned needed_pointers(int g) const { return m[g] > 0 && n[g] > 0 ? 3u : 0u; }
  int problem_error(int g, int64_t p) const { return null_pointer_error(*this, needed_pointers(g), p); }
  GetrfProblem<T> problem(int g, int64_t p) const { return {layout, m[g], n[g], A[p], A_ld[g], ipiv[p]}; }
  int64_t order(int g) const { return std::max(m[g], n[g]); }
};

template <class T, bool FactorFirst = false>
struct GetriCall : CallBase {
  static constexpr Routine routine = Routine::getri;
  static constexpr bool kFactorFirst = FactorFirst;
  static constexpr int pos_group_count = 6, pos_group_sizes = 7;
  const int *n;
  T **A; const int *A_ld;
  int **ipiv;

  ArgList group_arrays() const { return {{2, n}, {4, A_ld}}; }
  ArgList pointer_arrays() const { return {{3, A}, {5, ipiv}}; }
  int check_group(int g) const {
    if (n[g] < 0) return -2;
    if (!ld_ok(layout, A_ld[g], n[g], n[g])) return -4;
    return 0;
  }
  unsigned needed_pointers(int g) const { return n[g] > 0 ? 3u : 0u; }
  // A pivot outside 1..n would make the inversion address memory outside the matrix (ipiv is
  // an output when getrf runs first).
  int problem_error(int g, int64_t p) const {
    if (int e = null_pointer_error(*this, needed_pointers(g), p)) return e;
    if (!FactorFirst)
      for (int i = 0; i < n[g]; ++i)
        if (ipiv[p][i] < 1 || ipiv[p][i] > n[g]) return -5;
    return 0;
  }
  GetriProblem<T> problem(int g, int64_t p) const { return {layout, n[g], A[p], A_ld[g], ipiv[p], FactorFirst}; }
  int64_t order(int g) const { return n[g]; }
};

// The inverse in one call (BLAS_getrf_getri_batched, SPEC.md 9.4): getri's signature,
// arguments and codes, each problem factored by getrf (ipiv written) and then inverted.
template <class T>
using InverseCall = GetriCall<T, true>;

template <class T>
struct PotrfCall : CallBase {
  static constexpr Routine routine = Routine::potrf;
  static constexpr int pos_group_count = 6, pos_group_sizes = 7;
  const BLAS_Uplo *uplo;
  const int *n;
  T **A; const int *A_ld;

  ArgList group_arrays() const { return {{2, uplo}, {3, n}, {5, A_ld}}; }
  ArgList pointer_arrays() const { return {{4, A}}; }
  int check_group(int g) const {
    if (!uplo_ok(uplo[g])) return -2;
    if (n[g] < 0) return -3;
    if (!ld_ok(layout, A_ld[g], n[g], n[g])) return -5;
    return 0;
  }
  unsigned needed_pointers(int g) const { return n[g] > 0 ? 1u : 0u; }
  int problem_error(int g, int64_t p) const { return null_pointer_error(*this, needed_pointers(g), p); }
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
  int check_group(int g) const {
    if (m[g] < 0) return -2;
    if (n[g] < 0) return -3;
    if (!ld_ok(layout, A_ld[g], m[g], n[g])) return -5;
    return 0;
  }
  unsigned needed_pointers(int g) const { return m[g] > 0 && n[g] > 0 ? 3u : 0u; }
  int problem_error(int g, int64_t p) const { return null_pointer_error(*this, needed_pointers(g), p); }
  GeqrfProblem<T> problem(int g, int64_t p) const { return {layout, m[g], n[g], A[p], A_ld[g], tau[p]}; }
  int64_t order(int g) const { return std::max(m[g], n[g]); }
};

}  // namespace bb
