#include "../dispatch/driver.hpp"
#include "export.hpp"

// trsm and trmm take the same arguments and differ only in the routine tag.
#define BB_TRIANGULAR_ENTRY(name, R, p, PublicT, T)                                              \
  BB_EXPORT int BLAS_##name##_batched_##p(                                                       \
      BLAS_Layout layout, const BLAS_Side *side, const BLAS_Uplo *uplo, const BLAS_Op *A_trans,  \
      const BLAS_Diag *diag, const int *m, const int *n, const PublicT *alpha, PublicT **A,      \
      const int *A_ld, PublicT **B, const int *B_ld, int group_count, const int *group_sizes,    \
      int *info) {                                                                               \
    bb::TriangularCall<T, bb::Routine::R> c;                                                     \
    c.layout = layout, c.group_count = group_count, c.group_sizes = group_sizes, c.info = info;  \
    c.side = side, c.uplo = uplo, c.A_trans = A_trans, c.diag = diag, c.m = m, c.n = n;          \
    c.alpha = BB_CAST(const T *, alpha);                                                         \
    c.A = BB_CAST(T **, A), c.A_ld = A_ld, c.B = BB_CAST(T **, B), c.B_ld = B_ld;                \
    return bb::run_call<T>(c);                                                                   \
  }
#define BB_ENTRY(p, PublicT, T)                     \
  BB_TRIANGULAR_ENTRY(trsm, trsm, p, PublicT, T)    \
  BB_TRIANGULAR_ENTRY(trmm, trmm, p, PublicT, T)
BB_FOR_EACH_PRECISION(BB_ENTRY)

namespace bb {
#define BB_RUN_CALL_HERE(p, PublicT, T) BB_RUN_CALL(, TrsmCall, T) BB_RUN_CALL(, TrmmCall, T)
BB_FOR_EACH_PRECISION(BB_RUN_CALL_HERE)
#undef BB_RUN_CALL_HERE
}  // namespace bb
