// Device trsm/trmm entry points: the leaf configuration per order, one launch per
// configuration, and the recursion over larger triangles (leaves and the gemm core on
// sub-blocks of the caller's operands), every precision in this file.
#include "../gemm/gemm.hpp"
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

int tri_units_per_block(int) { return kTriWarps; }

namespace {
template <class S>
int tri_launch_typed(Session &s, int config, const TriRun *table_host, const TriRun *table_device,
                     const int32_t *block_first, int count, int64_t units) {
  using CT = typename dev<S>::C;
  if (s.status() || units == 0 || count == 0) return s.status();
  TriLaunch L;
  if (!make_launch(L, table_host, table_device, block_first, count, units)) return s.fail(BLAS_BATCHED_ERR_DEVICE);
  int st = -1;  // every leaf side is compiled: the lambda runs
  with_register_side<2, kTriLeafMax>(tri_leaf_side(config), [&](auto side) {
    constexpr int K = decltype(side)::value;
    const int bytes = kTriWarps * tri_leaf_warp_elements(K) * int(sizeof(CT));
    st = launch_kernel(s, tri_leaf<S, K>, L, 32 * kTriWarps, (units + kTriWarps - 1) / kTriWarps, bytes);
  });
  return st == -1 ? s.fail(BLAS_BATCHED_ERR_DEVICE) : st;
}

// Operand o moved to its sub-block at (row i, column j).
DevOperand sub_block(DevOperand o, int i, int j, int elem) {
  const int64_t offset = i + int64_t(j) * o.ld;
  if (o.array) o.step += offset;
  else o.p = static_cast<const char *>(o.p) + offset * elem;
  return o;
}

// The recursion of KBLAS's in-place trsm/trmm, on the whole run at once. The triangle M = op(A)
// of order n splits at n1 (a multiple of the leaves' order) into M11, M22 and the
// off-diagonal block that couples the halves. Half f needs nothing of the other: f = 0 where
// side Left meets a lower M or side Right an upper one, else f = 1; o = 1 - f. trsm: solve f,
// B_o = alpha B_o - coupling x X_f, solve o with alpha = 1. trmm: B_o = alpha M_oo B_o first
// (it still needs the untouched B_f), then B_o += alpha coupling x B_f, then B_f.
int recurse(Session &s, DevPrec p, const TriRun &r, bool vendor_backend) {
  if (s.status() || r.problems <= 0 || r.m <= 0 || r.n <= 0) return s.status();
  const int n = r.order(), elem = elem_bytes(p);
  if (n <= kTriLeafMax) {
    TriRun leaf = r;
    leaf.unit_begin = 0;
    const int config = tri_config(n);
    return tri_launch(s, p, config, &leaf, nullptr, nullptr, 1, tri_units(leaf, config));
  }
  const int n1 = ((n / 2 + kTriSplitMultiple - 1) / kTriSplitMultiple) * kTriSplitMultiple;
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
    return recurse(s, p, t, vendor_backend);
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

int tri_recursive(Session &s, DevPrec p, const TriRun &r, bool vendor_backend) {
  if (s.status() || r.problems <= 0 || r.m <= 0 || r.n <= 0) return s.status();
  if (r.zero_alpha) {  // B = 0 without reading A or B: the gemm core with alpha = beta = 0
    GemmSeg z;
    z.problems = r.problems, z.m = r.m, z.n = r.n, z.k = 0;
    z.read_ab = 0, z.read_c = 0;
    z.A = z.B = z.C = r.B;
    const bool aligned = false;
    return gemm(s, p, &z, &aligned, 1, vendor_backend);
  }
  return recurse(s, p, r, vendor_backend);
}

}  // namespace bb::cuda
