// The reference: one problem at a time, standard BLAS/LAPACK for r32..c64 and the textbook
// algorithms for the rest. The conformance suite's ground truth and the `reference` backend.
#pragma once
#include "../src/common/problem.hpp"

namespace bb::reference {

template <class T> int solve(const GemmProblem<T> &p);
template <class T> int solve(const TriangularProblem<T> &p);
template <class T> int solve(const GetrfProblem<T> &p);
template <class T> int solve(const GetriProblem<T> &p);
template <class T> int solve(const PotrfProblem<T> &p);
template <class T> int solve(const GeqrfProblem<T> &p);

}  // namespace bb::reference
