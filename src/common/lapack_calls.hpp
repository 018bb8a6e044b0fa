// One problem through the standard Fortran BLAS/LAPACK (OpenBLAS here), for r32, c32, r64
// and c64, in either layout. Row-major uses the transposition identities CBLAS uses for
// gemm/trsm/trmm, and a column-major copy (as LAPACKE does) for the factorizations.
// Shared by the reference loop and the host backend's vendor path.
#pragma once
#include "problem.hpp"
#include "workspace.hpp"

#include <type_traits>

namespace bb::lapack {

template <class T>
inline constexpr bool available = std::is_same_v<T, float> || std::is_same_v<T, double> ||
                                  std::is_same_v<T, complex<float>> ||
                                  std::is_same_v<T, complex<double>>;

// Each returns the LAPACK info (> 0 numerical failure); argument errors never reach here.
template <class T> int gemm(const GemmProblem<T> &p);
template <class T> int trsm_trmm(const TriangularProblem<T> &p);
// getrf: the caller screens the input (lapack_getrf_ok); a pivot below the smallest normal
// number can still arise in the elimination, where OpenBLAS scales by its overflowing
// reciprocal instead of dividing (SPEC.md section 3). It shows in the output (a NaN, Inf or
// subnormal U(i,i)); then the problem gets its input back (A and ipiv, kept in workspace slots
// 2 and 3) and `rule` factors it. The copy and the check cost 1-1.5 % (r64, orders 33..128).
template <class T> using GetrfRule = int (*)(const GetrfProblem<T> &, Workspace &);
template <class T> int getrf(const GetrfProblem<T> &p, Workspace &ws, GetrfRule<T> rule);
template <class T> int getri(const GetriProblem<T> &p, Workspace &ws);
template <class T> int potrf(const PotrfProblem<T> &p, Workspace &ws);
template <class T> int geqrf(const GeqrfProblem<T> &p, Workspace &ws);

// While alive, OpenBLAS runs single-threaded: a parallel loop over problems gives each call
// one thread. Nested and concurrent guards share one count, so the caller's own setting is
// saved by the first and restored by the last. No-op with another BLAS.
class SingleThreadedBlas {
 public:
  explicit SingleThreadedBlas(bool active);
  ~SingleThreadedBlas();
  SingleThreadedBlas(const SingleThreadedBlas &) = delete;
  SingleThreadedBlas &operator=(const SingleThreadedBlas &) = delete;

 private:
  bool active_;
};

}  // namespace bb::lapack
