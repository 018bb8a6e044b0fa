#include "../dispatch/driver.hpp"
#include "export.hpp"

#define BB_ENTRY(p, PublicT, T)                                                                  \
  BB_EXPORT int BLAS_gemm_batched_##p(                                                           \
      BLAS_Layout layout, const BLAS_Op *A_trans, const BLAS_Op *B_trans, const int *m,          \
      const int *n, const int *k, const PublicT *alpha, PublicT **A, const int *A_ld,            \
      PublicT **B, const int *B_ld, const PublicT *beta, PublicT **C, const int *C_ld,           \
      int group_count, const int *group_sizes, int *info) {                                      \
    bb::GemmCall<T> c;                                                                           \
    c.layout = layout, c.group_count = group_count, c.group_sizes = group_sizes, c.info = info;  \
    c.A_trans = A_trans, c.B_trans = B_trans, c.m = m, c.n = n, c.k = k;                         \
    c.alpha = BB_CAST(const T *, alpha), c.beta = BB_CAST(const T *, beta);                      \
    c.A = BB_CAST(T **, A), c.B = BB_CAST(T **, B), c.C = BB_CAST(T **, C);                      \
    c.A_ld = A_ld, c.B_ld = B_ld, c.C_ld = C_ld;                                                 \
    return bb::run_call<T>(c);                                                                   \
  }
BB_FOR_EACH_PRECISION(BB_ENTRY)

namespace bb {
#define BB_RUN_CALL_HERE(p, PublicT, T) BB_RUN_CALL(, GemmCall, T)
BB_FOR_EACH_PRECISION(BB_RUN_CALL_HERE)
#undef BB_RUN_CALL_HERE
}  // namespace bb
