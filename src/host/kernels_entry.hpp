// Host kernels, one non-template entry point per routine and precision (src/host/kernels.cpp).
#pragma once
#include "../common/problem.hpp"
#include "../common/workspace.hpp"

namespace bb::host {

#define BB_DECLARE_KERNELS(p, PublicT, T)                            \
  int kernel(const GemmProblem<T> &p, Workspace &ws);                \
  int kernel(const TriangularProblem<T> &p, Workspace &ws);          \
  int kernel(const GetrfProblem<T> &p, Workspace &ws);               \
  int kernel(const GetriProblem<T> &p, Workspace &ws);               \
  int kernel(const PotrfProblem<T> &p, Workspace &ws);               \
  int kernel(const GeqrfProblem<T> &p, Workspace &ws);
BB_FOR_EACH_PRECISION(BB_DECLARE_KERNELS)
#undef BB_DECLARE_KERNELS

}  // namespace bb::host
