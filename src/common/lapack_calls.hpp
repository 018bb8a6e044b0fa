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
template <class T> int getrf(const GetrfProblem<T> &p, Workspace &ws);
template <class T> int getri(const GetriProblem<T> &p, Workspace &ws);
template <class T> int potrf(const PotrfProblem<T> &p, Workspace &ws);
template <class T> int geqrf(const GeqrfProblem<T> &p, Workspace &ws);

// OpenBLAS's own thread count, so a parallel loop over problems can run each call on one
// thread and restore the caller's setting afterwards. No-ops with another BLAS.
int blas_threads();
void set_blas_threads(int n);

}  // namespace bb::lapack
