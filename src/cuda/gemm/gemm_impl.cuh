// The device gemm of one precision: shape facts for planning, one launch of one configuration,
// and cuBLAS on one run. Instantiated once per precision (gemm_<prec>.cu), so the precisions
// compile in parallel.
#pragma once
#include "gemm_kernels.cuh"
#include "gemm_vendor.cuh"

#include <blas_batched/blas_batched.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace bb::cuda {

template <class S>
GemmShapeInfo shape_info(int config) {
  GemmShapeInfo info;
  with_shape<S>(config, [&](auto shape) {
    using Shape = decltype(shape);
    info.built = true;
    info.flat = Shape::flat;
    info.tile = Shape::flat ? 0 : Shape::TILE;
    info.max_elements = Shape::MAXE;
    info.exact = Shape::EXACT;
    info.teams_per_block = Shape::PPB;
  });
  info.mergeable = info.built && merged_config<S>(config);
  return info;
}

template <class S>
int launch(Session &s, int config, const GemmSeg *table_host, const GemmSeg *table_device,
           const int32_t *block_first, int count, int64_t units) {
  if (s.status() || units == 0 || count == 0) return s.status();
  GemmLaunch L;
  if (!make_launch(L, table_host, table_device, block_first, count, units)) return s.fail(BLAS_BATCHED_ERR_DEVICE);
  int status = 0;
  const bool built = with_shape<S>(config, [&](auto shape) {
    using Shape = decltype(shape);
    const int64_t blocks = (units + Shape::PPB - 1) / Shape::PPB;
    if constexpr (Shape::flat) status = launch_kernel(s, gemm_flat<S, Shape>, L, Shape::THREADS, blocks, 0);
    else status = launch_kernel(s, gemm_tiles<S, Shape>, L, Shape::THREADS, blocks, 0);
  });
  if (!built) return s.fail(BLAS_BATCHED_ERR_DEVICE);  // planning never picks an uncompiled one
  return status;
}

template <class S>
int launch_merged(Session &s, GemmLaunchPart *parts, int count) {
  if (s.status()) return s.status();
  GemmMergedLaunch M{};
  int64_t blocks = 0;
  for (int i = 0; i < count; ++i) {
    const GemmLaunchPart &part = parts[i];
    int per = 0;
    with_shape<S>(part.config, [&](auto shape) { per = decltype(shape)::PPB; });
    if (!per || !merged_config<S>(part.config) || !part.table || part.units <= 0 || count > kGemmConfigs)
      return s.fail(BLAS_BATCHED_ERR_DEVICE);  // planning merges only such parts
    M.part[M.parts] = part;
    M.part[M.parts++].block_begin = blocks;
    blocks += (part.units + per - 1) / per;
  }
  // Every block runs once (no loop over units): within the cap by planning's rule.
  if (blocks > s.loop_block_cap()) return s.fail(BLAS_BATCHED_ERR_DEVICE);
  // Dynamic shared memory (merged_part), at most 48 KB: no attribute to set.
  static_assert(MergedKernel<S>::smem_bytes <= 48 * 1024);
  return blocks ? launch_kernel(s, gemm_merged<S>, M, kMergedThreads, blocks, MergedKernel<S>::smem_bytes) : s.status();
}

template <class S>
int vendor(Session &s, const GemmSeg &g) {
  if constexpr (std::is_same_v<S, chalf>) {
    return s.fail(BLAS_BATCHED_ERR_DEVICE);  // never planned: c16 has no cuBLAS routine
  } else {
    using CT = typename dev<S>::C;
    if (s.status() || g.problems == 0) return s.status();
    auto h = static_cast<cublasHandle_t>(s.cublas());
    if (!h) return s.status();
    const CT alpha = scalar_from<CT>(g.alpha), beta = scalar_from<CT>(g.beta);
    s.started();
    static const bool trace = [] {
      const char *e = std::getenv("BLAS_BATCHED_DEBUG");
      return e && std::strstr(e, "vendor");
    }();
    if (trace)
      std::fprintf(stderr, "blas_batched: cuBLAS gemm %s ops %d%d m %d n %d k %d ld %d %d %d steps %lld %lld %lld "
                   "addresses mod 16: %d %d %d, %lld problems\n", g.A.array ? "arrays" : "strided", g.ta, g.tb, g.m,
                   g.n, g.k, g.A.ld, g.B.ld, g.C.ld, (long long)g.A.step, (long long)g.B.step, (long long)g.C.step,
                   int(reinterpret_cast<std::uintptr_t>(g.A.p) % 16), int(reinterpret_cast<std::uintptr_t>(g.B.p) % 16),
                   int(reinterpret_cast<std::uintptr_t>(g.C.p) % 16), (long long)g.problems);
    cublasStatus_t st;
    if (!g.A.array)
      st = vendor_strided(h, vendor_op(g.ta), vendor_op(g.tb), g.m, g.n, g.k, &alpha,
                          static_cast<const S *>(g.A.p), g.A.ld, g.A.step, static_cast<const S *>(g.B.p), g.B.ld,
                          g.B.step, &beta, static_cast<S *>(const_cast<void *>(g.C.p)), g.C.ld, g.C.step,
                          int(g.problems));
    else
      st = vendor_arrays(h, vendor_op(g.ta), vendor_op(g.tb), g.m, g.n, g.k, &alpha,
                         static_cast<const S *const *>(g.A.p), g.A.ld, static_cast<const S *const *>(g.B.p),
                         g.B.ld, &beta, static_cast<S *const *>(const_cast<void *>(g.C.p)), g.C.ld,
                         int(g.problems));
    // cuBLAS's status is the whole answer: the runtime's last-error slot may hold errors that
    // cuBLAS provoked and handled itself.
    if (st != CUBLAS_STATUS_SUCCESS) {
      if (std::getenv("BLAS_BATCHED_DEBUG"))
        std::fprintf(stderr, "blas_batched: cuBLAS gemm status %d (m %d n %d k %d lda %d ldb %d ldc %d %s)\n",
                     int(st), g.m, g.n, g.k, g.A.ld, g.B.ld, g.C.ld, g.A.array ? "arrays" : "strided");
      return s.fail(st == CUBLAS_STATUS_ALLOC_FAILED ? BLAS_BATCHED_ERR_DEVICE_ALLOC : BLAS_BATCHED_ERR_DEVICE);
    }
    return s.status();
  }
}

#define BB_GEMM_DECLARE(S, EXTERN)                                                                      \
  EXTERN template GemmShapeInfo shape_info<S>(int);                                                    \
  EXTERN template int launch<S>(Session &, int, const GemmSeg *, const GemmSeg *, const int32_t *, int, int64_t); \
  EXTERN template int launch_merged<S>(Session &, GemmLaunchPart *, int);                             \
  EXTERN template int vendor<S>(Session &, const GemmSeg &);

}  // namespace bb::cuda
