// Device trsm/trmm entry points: the leaf configuration per order, one launch per
// configuration, and the recursion over larger triangles (leaves and the gemm core on
// sub-blocks of the caller's operands), every precision in this file.
#include "../gemm/gemm.hpp"
#include "../vendor/vendor_calls.cuh"
#include "tri_leaf.cuh"

namespace bb::cuda {

int tri_config(int order) {
  for (int c = 0; c < kTriConfigs; ++c)
    if (order <= tri_leaf_side(c)) return c;
  return kTriConfigs - 1;  // never planned: larger triangles take tri_recursive
}

int64_t tri_units(const TriRun &r, int config) {
  if (r.m <= 0 || r.n <= 0 || r.problems <= 0) return 0;
  const int K = tri_leaf_side(config), W = tri_team(K, r.lines());
  const int64_t tasks = r.problems * ((r.lines() + W - 1) / W), per_warp = 32 / W;
  return (tasks + per_warp - 1) / per_warp;
}

int tri_units_per_block(DevPrec p, int config) { return tri_leaf_warps(tri_leaf_side(config), compute_bytes(p)); }

namespace {
template <class S>
int tri_launch_typed(Session &s, int config, const TriRun *table_host, const TriRun *table_device,
                     const int32_t *block_first, int count, int64_t units) {
  using CT = typename dev<S>::C;
  if (s.status() || units == 0 || count == 0) return s.status();
  TriLaunch L;
  if (!make_launch(L, table_host, table_device, block_first, count, units)) return s.fail(BLAS_BATCHED_ERR_DEVICE);
  int st = -1;
  // Every leaf side up to the precision's largest is compiled; a larger config is never planned.
  with_register_side<2, tri_compiled_leaf_max(int(sizeof(CT)))>(tri_leaf_side(config), [&](auto side) {
    constexpr int K = decltype(side)::value;
    constexpr int warps = tri_leaf_warps(K, int(sizeof(CT)));
    const int bytes = warps * tri_leaf_warp_elements(K) * int(sizeof(CT));
    st = launch_kernel(s, tri_leaf<S, K>, L, 32 * warps, (units + warps - 1) / warps, bytes);
  });
  return st == -1 ? s.fail(BLAS_BATCHED_ERR_DEVICE) : st;
}

// op(A)'s diagonal blocks of order nb (tri_inverse_block(order)) of one problem's triangle,
// ready to be multiplied: block i at t + i * nb^2 elements (column-major, ld = nb), the
// inverse for trsm, the triangle with zeros around it (and the unit diagonal) for trmm;
// blocks [0, full).
// w: room for a block x lines copy of B's rows (none where block_leaf runs cuBLAS's trmm).
struct DiagonalBlocks {
  char *t = nullptr, *w = nullptr;
  int nb = 0, full = 0;
};

int recurse(Session &s, DevPrec p, const TriRun &r, bool vendor_backend, const DiagonalBlocks *d = nullptr,
            int at = 0, bool inner = false, bool split_top = false);

// block_leaf by cuBLAS's trmm, in place on B's block: the block's triangle (op(A)'s, lower
// where op(A) is) as stored, its diagonal read (a unit one is stored as ones).
template <class S>
int block_leaf_trmm(Session &s, const TriRun &r, const DiagonalBlocks &d, int i) {
  if constexpr (!has_vendor<S>()) {
    return s.fail(BLAS_BATCHED_ERR_DEVICE);  // never planned: half precisions take no diagonal blocks
  } else {
    auto h = static_cast<cublasHandle_t>(s.cublas());
    if (!h) return s.status();
    using CT = typename dev<S>::C;
    const CT alpha = scalar_from<CT>(r.alpha);
    const bool m_lower = r.lower != (r.trans != 0);
    const S *block = reinterpret_cast<const S *>(d.t) + std::size_t(i) * d.nb * d.nb;
    S *b = static_cast<S *>(const_cast<void *>(r.B.p));
    s.started();
    const cublasStatus_t st = vendor_calls::trmm_one(
        h, r.left ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT, m_lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER,
        CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, r.m, r.n, reinterpret_cast<const S *>(&alpha), block, d.nb, b, r.B.ld, b,
        r.B.ld);
    if (st != CUBLAS_STATUS_SUCCESS)
      return s.fail(st == CUBLAS_STATUS_ALLOC_FAILED ? BLAS_BATCHED_ERR_DEVICE_ALLOC : BLAS_BATCHED_ERR_DEVICE);
    return s.status();
  }
}

// A full diagonal block of one problem (the run's triangle is op(A)'s block i): B's rows (side
// Left) or columns (Right) copied aside, then B = alpha * block x copy (or copy x block) through
// the gemm core. Operands strided, one problem. With cuBLAS (vendor_backend here) and
// tri_block_leaf_by_trmm(): block_leaf_trmm.
int block_leaf(Session &s, DevPrec p, const TriRun &r, const DiagonalBlocks &d, int i, bool vendor_backend) {
  if (vendor_backend && tri_block_leaf_by_trmm())
    return by_precision(p, [&](auto x) { return block_leaf_trmm<decltype(x)>(s, r, d, i); });
  const int nb = d.nb, elem = elem_bytes(p), lines = r.lines(), ldb = r.B.ld;
  const std::size_t rows = r.left ? nb : lines, cols = r.left ? lines : nb;  // B's block
  s.started();
  if (s.check(cudaMemcpy2DAsync(d.w, rows * elem, r.B.p, std::size_t(ldb) * elem, rows * elem, cols,
                                cudaMemcpyDeviceToDevice, static_cast<cudaStream_t>(s.stream())))) return s.status();
  const DevOperand block{d.t + std::size_t(i) * nb * nb * elem, 0, nb, false};
  const DevOperand copy{d.w, 0, int(rows), false};
  GemmSeg g;
  g.problems = 1;
  g.m = int(rows), g.n = int(cols), g.k = nb;
  g.A = r.left ? block : copy, g.B = r.left ? copy : block, g.C = r.B;
  g.alpha[0] = r.alpha[0], g.alpha[1] = r.alpha[1];
  g.read_ab = 1, g.read_c = 0;
  const bool aligned = false;
  return gemm(s, p, &g, &aligned, 1, vendor_backend);
}

template <class S>
__global__ void set_identity(S *t, int order, int64_t elements) {
  using CT = typename dev<S>::C;
  for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < elements; e += int64_t(gridDim.x) * blockDim.x) {
    const int64_t inside = e % (int64_t(order) * order);
    t[e] = narrow<S>(from_real<CT>(inside % order == inside / order ? 1 : 0));
  }
}

// One problem by diagonal blocks: every full block's inverse (trsm: op(A_ii) T = I) or triangle
// (trmm: T = op(A_ii) I) at once, a batched call of the leaves and recursion over the blocks,
// then the recursion split at block boundaries down to the blocks (block_leaf), a partial last
// block by the leaves.
int by_diagonal_blocks(Session &s, DevPrec p, const TriRun &r, bool vendor_backend) {
  DiagonalBlocks d;
  d.nb = tri_inverse_block(r.order());
  const int nb = d.nb, n = r.order(), elem = elem_bytes(p);
  d.full = n / nb;
  // Every gemm of this path (the blocks' batched recursion, the block leaves, the couplings)
  // goes to cuBLAS, measured faster here (tri_tuning.hpp), where its handle can be made.
  const bool vendor_gemm = vendor_backend || (kTriInverseVendorGemm && s.cublas(true));
  const bool copies = !(vendor_gemm && tri_block_leaf_by_trmm());  // block_leaf's copies of B's blocks
  const std::size_t t_bytes = std::size_t(d.full) * nb * nb * elem,
                    w_bytes = copies ? std::size_t(nb) * r.lines() * elem : 0;
  void *work = nullptr;
  const auto stream = static_cast<cudaStream_t>(s.stream());
  s.started();
  const auto pool = static_cast<cudaMemPool_t>(s.workspace_pool());
  // No room for the workspace: the in-place recursion, which needs none (slower, same result).
  if (!pool || cudaMallocFromPoolAsync(&work, t_bytes + w_bytes, pool, stream) != cudaSuccess) {
    cudaGetLastError();
    return recurse(s, p, r, vendor_backend);
  }
  d.t = static_cast<char *>(work), d.w = d.t + t_bytes;
  by_precision(p, [&](auto x) {
    using S = decltype(x);
    const int64_t elements = int64_t(d.full) * nb * nb;
    s.clear_stale_error();
    set_identity<S><<<unsigned(s.grid(elements, 256)), 256, 0, stream>>>(
        static_cast<S *>(work), nb, elements);
    s.check_launch();
    return 0;
  });
  TriRun blocks = r;
  blocks.problems = d.full;
  blocks.left = true, blocks.m = blocks.n = nb;
  blocks.alpha[0] = 1, blocks.alpha[1] = 0;
  blocks.info = nullptr;
  blocks.A.step = int64_t(nb) * (int64_t(r.A.ld) + 1);  // A(i nb, i nb): op(A)'s diagonal blocks
  blocks.B = DevOperand{d.t, int64_t(nb) * nb, nb, false};
  recurse(s, p, blocks, vendor_gemm);
  recurse(s, p, r, vendor_gemm, &d, 0);
  s.check(cudaFreeAsync(work, stream));  // stream-ordered: after the work above
  return s.status();
}

// The recursion of KBLAS's in-place trsm/trmm, on the whole run at once. The triangle M = op(A)
// of order n splits at n1 (a multiple of the leaves' order) into M11, M22 and the
// off-diagonal block that couples the halves. Half f needs nothing of the other: f = 0 where
// side Left meets a lower M or side Right an upper one, else f = 1; o = 1 - f. trsm: solve f,
// B_o = alpha B_o - coupling x X_f, solve o with alpha = 1. trmm: B_o = alpha M_oo B_o first
// (it still needs the untouched B_f), then B_o += alpha coupling x B_f, then B_f.
// With d (one large triangle), the splits fall on d's block boundaries and a full block ends
// in block_leaf; at: the run's triangle's first row in the whole triangle. inner: a half of a
// larger triangle, whose leaves stop at tri_recursion_leaf(p, r.solve). split_top: the whole
// triangle splits even where a leaf could take it (tri_group_recursive).
int recurse(Session &s, DevPrec p, const TriRun &r, bool vendor_backend, const DiagonalBlocks *d, int at,
            bool inner, bool split_top) {
  if (s.status() || r.problems <= 0 || r.m <= 0 || r.n <= 0) return s.status();
  const int n = r.order(), elem = elem_bytes(p);
  if (d && n <= d->nb) {
    if (n == d->nb && at / d->nb < d->full) return block_leaf(s, p, r, *d, at / d->nb, vendor_backend);
    d = nullptr;  // the partial last block: leaves
  }
  if (inner ? n <= tri_recursion_leaf(p, r.solve) : !split_top && n <= tri_leaf_max(p, r.solve)) {
    TriRun leaf = r;
    leaf.unit_begin = 0;
    const int config = tri_config(n);
    return tri_launch(s, p, config, &leaf, nullptr, nullptr, 1, tri_units(leaf, config));
  }
  int split = d ? d->nb : tri_recursion_leaf(p, r.solve);  // by blocks: halves of whole blocks
  // A triangle not much above the leaves' limit (order 34..64 in r32 with the recursion's
  // leaves forced to 64, 17..32 with the leaves' limit at 16) would be all first half: a finer
  // split.
  while (!d && split > 1 && ((n / 2 + split - 1) / split) * split >= n) split /= 2;
  const int n1 = ((n / 2 + split - 1) / split) * split;
  const int start[2] = {0, n1}, size[2] = {n1, n - n1};
  const bool m_lower = r.lower != (r.trans != 0);  // op(A) lower
  const int f = r.left == m_lower ? 0 : 1, o = 1 - f;
  auto half = [&](int h, bool with_alpha) {
    TriRun t = r;
    t.info = nullptr;
    t.A = sub_block(r.A, start[h], start[h], elem);
    t.B = r.left ? sub_block(r.B, start[h], 0, elem) : sub_block(r.B, 0, start[h], elem);
    (r.left ? t.m : t.n) = size[h];
    if (!with_alpha) t.alpha[0] = 1, t.alpha[1] = 0;
    return recurse(s, p, t, vendor_backend, d, at + start[h], true);
  };
  // B's half o += (trsm: -1, trmm: alpha) * the coupling of half f; trsm also scales B's half
  // o by alpha (beta), as its solve then runs with alpha = 1.
  auto update = [&]() {
    // op(A)'s block (row half I, column half J) is A's (I, J), or A's (J, I) under op.
    const int I = r.left ? o : f, J = r.left ? f : o;
    const DevOperand coupling = r.trans == 0 ? sub_block(r.A, start[I], start[J], elem)
                                             : sub_block(r.A, start[J], start[I], elem);
    GemmSeg g;
    g.problems = r.problems;
    if (r.left) {
      g.m = size[o], g.n = r.n, g.k = size[f];
      g.ta = r.trans, g.tb = 0;
      g.A = coupling, g.B = sub_block(r.B, start[f], 0, elem);
      g.C = sub_block(r.B, start[o], 0, elem);
    } else {
      g.m = r.m, g.n = size[o], g.k = size[f];
      g.ta = 0, g.tb = r.trans;
      g.A = sub_block(r.B, 0, start[f], elem), g.B = coupling;
      g.C = sub_block(r.B, 0, start[o], elem);
    }
    if (r.solve) {
      g.alpha[0] = -1, g.alpha[1] = 0;
      g.beta[0] = r.alpha[0], g.beta[1] = r.alpha[1];
    } else {
      g.alpha[0] = r.alpha[0], g.alpha[1] = r.alpha[1];
      g.beta[0] = 1, g.beta[1] = 0;
    }
    g.read_ab = 1, g.read_c = 1;
    const bool aligned = false;  // sub-blocks: the flat kernels' contiguity never holds
    return gemm(s, p, &g, &aligned, 1, vendor_backend);
  };
  if (r.solve) {
    if (half(f, true) || update() || half(o, false)) return s.status();
  } else {
    if (half(o, true) || update() || half(f, true)) return s.status();
  }
  return s.status();
}
}  // namespace

int tri_launch(Session &s, DevPrec p, int config, const TriRun *table_host, const TriRun *table_device,
               const int32_t *block_first, int count, int64_t units) {
  return by_precision(p, [&](auto x) {
    return tri_launch_typed<decltype(x)>(s, config, table_host, table_device, block_first, count, units);
  });
}

int tri_recursive(Session &s, DevPrec p, const TriRun &r, bool vendor_backend, bool split_top) {
  if (s.status() || r.problems <= 0 || r.m <= 0 || r.n <= 0) return s.status();
  if (r.zero_alpha) {  // B = 0 without reading A or B: the gemm core with alpha = beta = 0
    GemmSeg z;
    z.problems = r.problems, z.m = r.m, z.n = r.n, z.k = 0;
    z.read_ab = 0, z.read_c = 0;
    z.A = z.B = z.C = r.B;
    const bool aligned = false;
    return gemm(s, p, &z, &aligned, 1, vendor_backend);
  }
  if (tri_by_diagonal_blocks(p, r)) {  // one problem after the other (info: the driver's)
    for (int64_t q = 0; q < r.problems && !s.status(); ++q) {
      TriRun one = r;
      one.problems = 1;
      one.A = from_problem(r.A, q, elem_bytes(p)), one.B = from_problem(r.B, q, elem_bytes(p));
      by_diagonal_blocks(s, p, one, vendor_backend);
    }
    return s.status();
  }
  return recurse(s, p, r, vendor_backend, nullptr, 0, false, split_top);
}

}  // namespace bb::cuda
