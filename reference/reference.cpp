#include "reference.hpp"

#include "../src/common/lapack_calls.hpp"
#include "textbook.hpp"

namespace bb::reference {

template <class T> int solve(const GemmProblem<T> &p) {
  if constexpr (lapack::available<T>) return lapack::gemm(p);
  else return textbook::gemm(p);
}
template <class T> int solve(const TriangularProblem<T> &p) {
  if constexpr (lapack::available<T>) return lapack::trsm_trmm(p);
  else return p.solve ? textbook::trsm(p) : textbook::trmm(p);
}
template <class T> int solve(const GetrfProblem<T> &p) {
  if constexpr (lapack::available<T>)
    if (lapack_getrf_ok(p))
      return lapack::getrf<T>(p, thread_workspace(), [](const GetrfProblem<T> &q, Workspace &) { return textbook::getrf(q); });
  return textbook::getrf(p);
}
template <class T> int solve(const GetriProblem<T> &p) {
  if constexpr (lapack::available<T>) return lapack::getri(p, thread_workspace());
  else return textbook::getri(p);
}
template <class T> int solve(const PotrfProblem<T> &p) {
  if constexpr (lapack::available<T>) return lapack::potrf(p, thread_workspace());
  else return textbook::potrf(p);
}
template <class T> int solve(const GeqrfProblem<T> &p) {
  if constexpr (lapack::available<T>) return lapack::geqrf(p, thread_workspace());
  else return textbook::geqrf(p);
}

#define BB_INSTANTIATE(p, PublicT, T)                     \
  template int solve<T>(const GemmProblem<T> &);          \
  template int solve<T>(const TriangularProblem<T> &);    \
  template int solve<T>(const GetrfProblem<T> &);         \
  template int solve<T>(const GetriProblem<T> &);         \
  template int solve<T>(const PotrfProblem<T> &);         \
  template int solve<T>(const GeqrfProblem<T> &);
BB_FOR_EACH_PRECISION(BB_INSTANTIATE)
#undef BB_INSTANTIATE

}  // namespace bb::reference
