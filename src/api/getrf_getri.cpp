// The inverse in one call (SPEC.md section 9.4): getrf, then getri on the same arguments. This
// signature is getri's, and every problem's code and the return value come from the getri
// pass: a problem that getrf rejected or found singular fails getri the same way (the same NULL
// pointer, the same group argument, the same first zero U(i, i)), so nothing is renumbered. A
// call-level error of getrf (nothing touched) is returned in this signature's numbering, and a
// library error ends the call.
#include "../dispatch/driver.hpp"
#include "export.hpp"

namespace {
// getrf's argument k (1-based) in this signature: m and n are both n.
constexpr int kFromGetrf[] = {0, 1, 2, 2, 3, 4, 5, 6, 7, 8};
int renumbered(int rc) { return rc < 0 && rc >= -9 ? -kFromGetrf[-rc] : rc; }
}  // namespace

#define BB_ENTRY(p, PublicT, T)                                                                    \
  BB_EXPORT int BLAS_getrf_getri_batched_##p(BLAS_Layout layout, const int *n, PublicT **A,        \
                                             const int *A_ld, int **ipiv, int group_count,         \
                                             const int *group_sizes, int *info) {                  \
    const int rc = BLAS_getrf_batched_##p(layout, n, n, A, A_ld, ipiv, group_count, group_sizes, info); \
    if (rc < 0) return renumbered(rc);                                                             \
    return BLAS_getri_batched_##p(layout, n, A, A_ld, ipiv, group_count, group_sizes, info);       \
  }
BB_FOR_EACH_PRECISION(BB_ENTRY)
