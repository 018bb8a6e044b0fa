// Device trsm/trmm tuning: the named leaf configurations and the crossovers of the triangular
// routines (leaf up to tri_leaf_max, recursion above, and for c64 trsm's large groups from 30:
// tri_group_recursive; diagonal blocks for one large triangle).
#pragma once
#include "tri.hpp"

#include <cstdlib>
#include <string>

namespace bb::cuda {

// kTriLeaf<K>: triangle order <= K (K = 2..64), one line of B per lane, a team of
// max(K, lines) lanes (power of two, at most a warp: tri_team) per problem and chunk of lines.
enum TriConfig : int { kTriLeaf2, kTriLeaf4, kTriLeaf8, kTriLeaf16, kTriLeaf32, kTriLeaf64, kTriConfigs };
constexpr int kTriLeafMax = 32;  // every precision's leaves
// The leaf of order 64 (kTriLeaf64) is compiled where a line of 64 takes the registers of r64's
// line of 32: 4-byte compute types (r32, and r16, which computes in float).
constexpr int kTriWideLeaf = 64;
BB_HOST_DEVICE constexpr int tri_compiled_leaf_max(int compute_bytes) {
  return compute_bytes == 4 ? kTriWideLeaf : kTriLeafMax;
}
constexpr bool tri_wide_leaf_built(DevPrec p) { return p == DevPrec::r32 || p == DevPrec::r16; }
// Batched orders 33..64: the fused leaf of order 64, or the recursion (two leaves and a gemm:
// three launches, B's halves read twice, half the flops in a gemm). The leaf loses from order
// 40: each of its multiply-adds needs its own shared-memory load (a line per lane), issue-bound
// where the recursion's gemm blocks its products in registers. It wins at 33, where the
// recursion splits off a triangle of one row. H200, 2026-11-29, strided, ms, recursion / leaf of
// 64, two runs within 2 %: r32 trsm 33 3.01 / 2.17, 40 1.14 / 1.57, 48 0.92 / 1.22, 64 0.69 / 1.27;
// r32 trmm 33 2.93 / 2.25, 64 0.66 / 0.95; r16 trsm 33 6.03 / 4.97, 64 1.23 / 2.40; r16 trmm 33
// 5.79 / 6.78. As the recursion's leaf (splits at multiples of 64) it lost at 96..256 (r32 trsm
// 256 1.46 / 1.98). The largest order a leaf takes (recursion above) is this crossover;
// BLAS_BATCHED_TRI_LEAF_MAX=16, 32 or 64 (read once) forces it for every precision (64 where
// the leaf of 64 is compiled, 32 elsewhere).
constexpr int kTriWideLeafUpTo = 33;
// c64 trsm of order 30..32: the recursion with its leaves of 16 (tri_recursion_leaf) beats the
// leaf of 32 (205 registers). H200, 2026-11-29, strided, GFLOP/s, leaf / recursion, two runs:
// 24 3913 / 3602, 26 4128 / 3772, 28 4604 / 4355, 30 4566 / 4683, 32 3914 / 5726 (the group
// API alike: 32 3723 / 5388); c64 trmm 32 6527 / 5911, c32 trsm 32 11555 / 8771, r64 32 3758 /
// 2519: only c64's solve gains (tri-leaf-max16-ab-NVIDIA-H200-s29.txt).
constexpr int kTriC64SolveLeafUpTo = 29;
inline int tri_leaf_max_forced() {
  static const int forced = [] {
    const int v = tuning_env("BLAS_BATCHED_TRI_LEAF_MAX");
    return v == 16 || v == kTriLeafMax || v == kTriWideLeaf ? v : 0;
  }();
  return forced;
}
inline int tri_leaf_max(DevPrec p, bool solve) {
  const int forced = tri_leaf_max_forced();
  if (forced) return forced == kTriWideLeaf && !tri_wide_leaf_built(p) ? kTriLeafMax : forced;
  if (!tri_wide_leaf_built(p)) return kTriLeafMax;
  return p == DevPrec::r32 || solve ? kTriWideLeafUpTo : kTriLeafMax;
}
// Whether a group of the caller's (the device layer's adapter) goes by the recursion: above
// tri_leaf_max, and c64 trsm of order kTriC64SolveLeafUpTo + 1..32 in groups of this many
// problems or more. The recursion is queued from the host group by group (a leaf, a gemm and a
// leaf: some 20 us of host time), where the leaves of many small groups share launches; c64
// trsm at 32 saves about 11 ns a problem with it. 4096 is an estimate from those two figures,
// not measured. The core's own callers (the factorizations) keep tri_leaf_max: their runs'
// shapes were not measured with it. BLAS_BATCHED_TRI_LEAF_MAX (tuning) overrides both.
constexpr int64_t kTriSmallRecursionMinProblems = 4096;
inline bool tri_group_recursive(DevPrec p, const TriRun &r, int64_t problems) {
  if (r.order() > tri_leaf_max(p, r.solve)) return true;
  return p == DevPrec::c64 && r.solve && r.order() > kTriC64SolveLeafUpTo && !tri_leaf_max_forced() &&
         problems >= kTriSmallRecursionMinProblems;
}
// Within the recursion (the halves of a triangle of order > tri_leaf_max), triangles of at most
// this order are leaves, and splits fall on its multiples. A smaller leaf trades a launch and
// a gemm per level for a leaf with fewer registers (c64 at K = 32: 218 registers, its fully
// unrolled solve larger than the instruction cache). Measured (H200, 2026-11-28, `gpu-check.sh
// trileaf`, strided, two runs within 3 %), x cuBLAS trsmBatched at orders 48/64/96/128/256:
// c64 trsm, leaves of 16: 1.61/1.90/1.47/1.61/1.43, of 32: 1.31/1.34/1.28/1.29/1.25, of 8:
// 1.11/1.40/1.12/1.32/1.21. Leaves of 16 lose for c64 trmm (0.73/0.97/1.05 ms against
// 0.68/0.83/0.98 at 64/96/128), c32 (trsm 1.39..1.84x against 1.58..2.09x) and r64, r32 (trsm
// 1.69..2.07x against 2.09..2.92x). BLAS_BATCHED_TRI_RECURSION_LEAF=8, 16, 32 or 64 (64: r32 and r16;
// read once) forces one order for every routine and precision.
constexpr int kTriRecursionLeaf = kTriLeafMax;
constexpr int kTriRecursionLeafC64Solve = 16;
constexpr int tri_leaf_side(int config) { return 2 << config; }
// A team's triangle in shared memory, packed by rows (K (K + 1) / 2 elements), then the K
// reciprocals of its diagonal.
BB_HOST_DEVICE constexpr int tri_leaf_team_elements(int K) { return K * (K + 1) / 2 + K; }
// Teams a warp holds: 32 / K, one from K = 32 on.
BB_HOST_DEVICE constexpr int tri_leaf_teams(int K) { return K < 32 ? 32 / K : 1; }
// Shared memory of a leaf kernel per warp, in compute-type elements: the teams' triangles
// and the warp's lines (K x 33; side Left passes B through them).
BB_HOST_DEVICE constexpr int tri_leaf_warp_elements(int K) { return tri_leaf_teams(K) * tri_leaf_team_elements(K) + K * 33; }
// Warps per block of a leaf kernel: at most 4, and blocks of at most 32 KB of shared memory,
// so that the SM's shared memory splits finely (c64 at K = 32: 26 KB a warp, blocks of one;
// r64 at K = 32: 13 KB a warp, blocks of two, as many as its registers allow).
BB_HOST_DEVICE constexpr int tri_leaf_warps(int K, int compute_bytes) {
  int w = 4;
  while (w > 1 && w * tri_leaf_warp_elements(K) * compute_bytes > 32 * 1024) w /= 2;
  return w;
}
// Blocks per SM that the leaf's register count must allow (__launch_bounds__): a budget of the
// line's registers (K compute-type elements) plus a slack where staging copies (r64, c32, c64).
// H200, kernel % of bandwidth at n = 4..32 with the copies of tri_leaf.cuh: slack 64 spills at
// K >= 16 and loses up to 12 points (r64 n = 32); 96 and the earlier rule (12 warps per SM) are
// within a few points of each other, 96 ahead for c64 n = 8.
#ifndef BB_TRI_REGISTER_SLACK
#define BB_TRI_REGISTER_SLACK 96
#endif
BB_HOST_DEVICE constexpr int tri_leaf_register_budget(int K, int compute_bytes) {
  return K * compute_bytes / 4 + BB_TRI_REGISTER_SLACK;
}
// Registers are split between the SM's four schedulers: warps per SM in multiples of 4 (9 warps
// would cap every warp at a third of a scheduler's registers, 168 where 224 were meant).
BB_HOST_DEVICE constexpr int tri_leaf_min_blocks(int K, int compute_bytes, bool register_staging) {
  // Staging through registers: 12 warps (r32 lost 7-10 points at n = 16, 32 under the budget),
  // 16 at K = 32 (128 registers: at 12 warps the leaf took all 168 it was allowed, r32 n = 32
  // 45 -> 40 % and r16 16 -> 11 % of bandwidth, H200, 2026-11-28).
  // At K = 64 (17 KB of shared memory a warp and 1 KB a block reserved: 12 warps an SM at
  // most): 12, up to 170 registers.
  if (register_staging)
    return K == 64 ? 12 : tri_leaf_warps(K, compute_bytes) == 1 ? 8 : (K == 32 ? 16 : 12) / tri_leaf_warps(K, compute_bytes);
  const int warps = 65536 / (tri_leaf_register_budget(K, compute_bytes) * 32) / 4 * 4;
  const int blocks = warps / tri_leaf_warps(K, compute_bytes);
  return blocks < 1 ? 1 : blocks > 32 ? 32 : blocks;  // an SM holds at most 32 blocks
}
// Loads of A and B in flight together in the leaf's register staging (r32, r16, c16;
// stage_pair), where that measured faster: at K = 32 (held to 128 registers either way; r16
// spills 88 bytes there and still gains) and where a line is at most 16 bytes (r32 K = 4: 48 ->
// 59 registers, 40 -> 32 warps an SM, faster all the same). At K = 8 and 16 the registers cost
// more warps than the waits saved. H200, kernel % of bandwidth, one after the other -> together:
// r32 trsm n = 4 / 8 / 16 / 32 40.7 / 52.2 / 49.5 / 48.3 -> 43.1 / 43.3 / 36.7 / 53.5 (trmm
// alike; r32 K = 8 61 -> 82 registers), r16 32 23.6 -> 24.4, c16 32 20.8 -> 23.4.
BB_HOST_DEVICE constexpr bool tri_leaf_paired_staging(int K, int compute_bytes) {
  return K == 32 || K * compute_bytes <= 16;
}
// Chains of a solve row's products in the leaf (tri_line): two for c64 from K = 16, whose
// complex products wait longest on each other. H200, kernel % of bandwidth, one chain -> two:
// c64 trsm n = 16 / 32 71.5 / 30.5 -> 79.7 / 32.8 (trmm 16 75 -> 88: the kernel is compiled
// otherwise); c32 lost 2-5 points at 16 and 32; r64, r32, r16, c16 within a point.
BB_HOST_DEVICE constexpr int tri_leaf_solve_chains(int K, int compute_bytes) {
  return K >= 16 && compute_bytes == 16 ? 2 : 1;
}
inline int tri_recursion_leaf(DevPrec p, bool solve) {
  static const int forced = [] {
    const int v = tuning_env("BLAS_BATCHED_TRI_RECURSION_LEAF");
    return v == 8 || v == 16 || v == 32 || v == kTriWideLeaf ? v : 0;
  }();
  if (forced) return forced == kTriWideLeaf && !tri_wide_leaf_built(p) ? kTriLeafMax : forced;
  return p == DevPrec::c64 && solve ? kTriRecursionLeafC64Solve : kTriRecursionLeaf;
}
// One large triangle (few problems, many lines): the recursion stops at op(A)'s diagonal blocks
// of this order, each finished by one product with the block's inverse (trsm) or the block as
// a full matrix (trmm), computed for every block at once beforehand (a batched call over the
// blocks), instead of kTriInverseBlock / 32 leaves in series. Workspace: order x block
// elements for the blocks and, where the product is a gemm, block x lines for a copy of B's
// rows; never B's size.
constexpr int kTriInverseBlock = 256;
// From this order, blocks of kTriInverseBlockLarge: half the blocks, so half the host calls the
// call waits on (H100, 2026-11-28, r64, N = 512, ms, as called, blocks of 256 / 512: trsm
// M = 8192 1.58 / 1.30, M = 4096 0.83 / 0.73; trmm 8192 1.28 / 1.37, 4096 0.93 / 0.84; the GPU's
// work alone within 5 % either way; 1024: slower in all four). One run each.
constexpr int kTriInverseBlockLargeFrom = 4096;
constexpr int kTriInverseBlockLarge = 512;
constexpr int64_t kTriInverseMaxProblems = 4;  // taken one after the other
constexpr int kTriInverseMinLines = 128;
// Its gemms go to cuBLAS, small couplings included (H200, M = 8192, N = 512, r64 trsm: 2.68 ms
// with the library's gemm kernels, 1.32-1.84 ms with cuBLAS's).
// Blocks of 128 / 512 / 1024 measured 2.66 / 1.75 / 2.14 ms against 1.84 for 256 in one run.
constexpr bool kTriInverseVendorGemm = true;
// The block order for a triangle of this order. BLAS_BATCHED_TRI_INVERSE_BLOCK=<order> sets it
// for every order (a multiple of the leaves' order, 64..2048; read once).
inline int tri_inverse_block(int order) {
  static const int forced = [] {
    const int v = tuning_env("BLAS_BATCHED_TRI_INVERSE_BLOCK");
    return v >= 64 && v <= 2048 && v % kTriLeafMax == 0 ? v : 0;
  }();
  return forced ? forced : order >= kTriInverseBlockLargeFrom ? kTriInverseBlockLarge : kTriInverseBlock;
}
// A full block's product: one gemm on a copy of B's block (false), or cuBLAS's trmm in place on
// the block's triangle (true: one call instead of a copy and a call, half the flops). cuBLAS's
// in-place trmm is the slower (H100, 2026-11-28, r64, N = 512, blocks of 256, ms, gemm / trmm:
// trsm M = 8192 1.58 / 3.03, 4096 0.83 / 1.38; trmm 1.28 / 2.99, 0.93 / 1.36; the same with
// blocks of 512 and 1024). BLAS_BATCHED_TRI_BLOCK_LEAF=trmm or gemm (read once) picks one.
constexpr bool kTriBlockLeafByTrmm = false;
inline bool tri_block_leaf_by_trmm() {
  static const bool trmm = [] {
    const char *e = std::getenv("BLAS_BATCHED_TRI_BLOCK_LEAF");
    const std::string v = e ? e : "";
    return v == "trmm" ? true : v == "gemm" ? false : kTriBlockLeafByTrmm;
  }();
  return trmm;
}
inline bool tri_by_diagonal_blocks(DevPrec p, const TriRun &r) {
  const bool half = p == DevPrec::r16 || p == DevPrec::c16;  // inverses in half precision: no
  return !half && !r.A.array && !r.B.array && r.problems <= kTriInverseMaxProblems &&
         r.order() >= 2 * tri_inverse_block(r.order()) && r.lines() >= kTriInverseMinLines;
}
// Lanes per team of a leaf kernel: a line each, at least min(K, 32) (the warp's triangles fit),
// at most a warp; a problem with more lines takes several teams (chunks of lines).
BB_HOST_DEVICE constexpr int tri_team(int K, int lines) {
  int w = K < 32 ? K : 32;
  while (w < lines && w < 32) w *= 2;
  return w;
}

}  // namespace bb::cuda
