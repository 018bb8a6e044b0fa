#include "../dispatch/driver.hpp"
#include "export.hpp"

#define BB_ENTRY(p, PublicT, T)                                                                  \
  BB_EXPORT int BLAS_getrf_batched_##p(BLAS_Layout layout, const int *m, const int *n,           \
                                       PublicT **A, const int *A_ld, int **ipiv,                 \
                                       int group_count, const int *group_sizes, int *info) {     \
    bb::GetrfCall<T> c;                                                                          \
    c.layout = layout, c.group_count = group_count, c.group_sizes = group_sizes, c.info = info;  \
    c.m = m, c.n = n, c.A = BB_CAST(T **, A), c.A_ld = A_ld, c.ipiv = ipiv;                      \
    return bb::run_call<T>(c);                                                                   \
  }
BB_FOR_EACH_PRECISION(BB_ENTRY)

namespace bb {
#define BB_RUN_CALL_HERE(p, PublicT, T) BB_RUN_CALL(, GetrfCall, T)
BB_FOR_EACH_PRECISION(BB_RUN_CALL_HERE)
#undef BB_RUN_CALL_HERE
}  // namespace bb
