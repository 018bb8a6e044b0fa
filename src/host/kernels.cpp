// The host kernels' entry points, one per routine and precision. For the precisions with
// hardware arithmetic each is cloned for AVX-512, AVX2 and baseline x86-64 and chosen by the
// loader (ifunc) for the running CPU; `flatten` inlines the templated kernel into each clone
// so the whole problem is compiled for that instruction set.
#include "kernels_entry.hpp"

#include "kernels.hpp"

namespace bb::host {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(BB_SANITIZE)
#define BB_MULTIVERSION __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), flatten))
#else
#define BB_MULTIVERSION
#endif

#define BB_KERNEL_ENTRIES(ATTR, T)                                                                         \
  ATTR int kernel(const GemmProblem<T> &p, Workspace &ws) { return gemm(p, ws); }                       \
  ATTR int kernel(const TriangularProblem<T> &p, Workspace &ws) { return triangular(p, ws); }           \
  ATTR int kernel(const GetrfProblem<T> &p, Workspace &ws) { return getrf(p, ws); }                     \
  ATTR int kernel(const GetriProblem<T> &p, Workspace &ws) { return getri(p, ws); }                     \
  ATTR int kernel(const PotrfProblem<T> &p, Workspace &ws) { return potrf(p, ws); }                     \
  ATTR int kernel(const GeqrfProblem<T> &p, Workspace &ws) { return geqrf(p, ws); }

BB_KERNEL_ENTRIES(BB_MULTIVERSION, float)
BB_KERNEL_ENTRIES(BB_MULTIVERSION, double)
BB_KERNEL_ENTRIES(BB_MULTIVERSION, complex<float>)
BB_KERNEL_ENTRIES(BB_MULTIVERSION, complex<double>)
// Half converts through F16C-free code and quad is software arithmetic: one version each.
BB_KERNEL_ENTRIES(, half)
BB_KERNEL_ENTRIES(, complex<half>)
BB_KERNEL_ENTRIES(, quad)
BB_KERNEL_ENTRIES(, complex<quad>)

}  // namespace bb::host
