// The inverse in one call (SPEC.md section 9.4): getri's signature, arguments and codes, each
// problem factored by getrf first (InverseCall). One pass: the host backend runs getrf and getri
// on a problem while it is in cache; the device runs the one-pass kernel for most n <= 32
// (lu_one_pass_inverse), getrf's and getri's kernels one after the other elsewhere.
#include "../dispatch/driver.hpp"
#include "export.hpp"

#define BB_ENTRY(p, PublicT, T)                                                                    \
  BB_EXPORT int BLAS_getrf_getri_batched_##p(BLAS_Layout layout, const int *n, PublicT **A,        \
                                             const int *A_ld, int **ipiv, int group_count,         \
                                             const int *group_sizes, int *info) {                  \
    bb::InverseCall<T> c;                                                                          \
    c.layout = layout, c.group_count = group_count, c.group_sizes = group_sizes, c.info = info;    \
    c.n = n, c.A = BB_CAST(T **, A), c.A_ld = A_ld, c.ipiv = ipiv;                                 \
    return bb::run_call<T>(c);                                                                     \
  }
BB_FOR_EACH_PRECISION(BB_ENTRY)

namespace bb {
#define BB_RUN_CALL_HERE(p, PublicT, T) BB_RUN_CALL(, InverseCall, T)
BB_FOR_EACH_PRECISION(BB_RUN_CALL_HERE)
#undef BB_RUN_CALL_HERE
}  // namespace bb
