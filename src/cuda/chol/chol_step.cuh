// What every potrf kernel shares: where L(i, j) of a problem lives in the caller's matrix, and
// the pivot of a Cholesky step.
#pragma once
#include "../factor_common.cuh"
#include "chol_tuning.hpp"

namespace bb::cuda {

template <class CT> __device__ __forceinline__ CT conj_if(bool c, CT x) { return c ? conj(x) : x; }

// Where L(i, j) (i >= j) of a problem lives: A(i, j) for Lower, A(j, i) (conjugated) for Upper;
// in every layout and uplo L's row index steps by 1 or by ld. For kernels that visit elements in
// no per-lane order (the block kernels, the diagonal kernel's left part), reading G per element;
// the register kernels go through FactorLine below, which holds the same strides.
__device__ __forceinline__ int64_t factor_index(const FactorRun &G, int i, int j) {
  const bool rows_contiguous = G.lower != G.row_major;
  const int64_t rs = rows_contiguous ? 1 : G.A.ld, cs = rows_contiguous ? G.A.ld : 1;
  return i * rs + j * cs;
}

// A lane's row or column of a problem's matrix in the caller's memory: element k at line[k], one
// multiply-add from a base and a step held in registers. Reading the run (G) again per element
// costs two loads and a dozen instructions an element, and the stores' reloads were a third of
// potrf's instructions at n = 8. `forget()` before the stores hides base and step from the
// compiler, so it recomputes each store's address rather than keeping every load's address
// alive until then (r64 potrf at K = 32 would hold 166 registers a thread).
template <class S>
struct FactorLine {
  S *base;
  int64_t step;
  __device__ __forceinline__ S &operator[](int k) const { return base[k * step]; }
  __device__ __forceinline__ void forget() {
    auto b = reinterpret_cast<uint64_t>(base);
    asm volatile("" : "+l"(b), "+l"(step));
    base = reinterpret_cast<S *>(b);
  }
};

// Lane `lane`'s line of L (its row of L, or its column) in the caller's matrix, base and step
// read from G once (FactorLine).
template <class S>
__device__ __forceinline__ FactorLine<S> factor_line(const FactorRun &G, S *a, int lane, bool row_of_l) {
  const bool rows_contiguous = G.lower != G.row_major;
  const int64_t ld = G.A.ld, rs = rows_contiguous ? 1 : ld, cs = rows_contiguous ? ld : 1;
  return {a + lane * (row_of_l ? rs : cs), row_of_l ? cs : rs};
}

// A step's pivot d > 0: L(j, j) = sqrt(d) and the column's scale 1 / sqrt(d), the scale either by
// rsqrt beside the square root (1 ulp in double, 2 in single, against LAPACK's 1 / sqrt(d)
// rounded twice) or by a division after it (chol_pivot_by_rsqrt). 1 / sqrt(Inf) = 0 either way,
// LAPACK's scale. The GPU suite's planted factors (1 / L(j,j) a power of two) expect rsqrt exact
// at 1 and 4, as it is on the H100.
template <class CT>
struct CholPivot {
  using R = real_t<CT>;
  R root, inverse_root;
  __device__ __forceinline__ explicit CholPivot(R d) : root(sqrt_of(d)) {
    if constexpr (chol_pivot_by_rsqrt<CT>) inverse_root = rsqrt_of(d);
    else inverse_root = R(1) / root;
  }
};

}  // namespace bb::cuda
