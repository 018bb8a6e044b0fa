// Device trsm/trmm tuning: the named leaf configurations and the one crossover of the
// triangular routines (leaf up to kTriLeafMax, recursion above; no measured crossover between
// the two for batched orders 33..256 yet: the leaf stops at 32).
#pragma once
#include "tri.hpp"

namespace bb::cuda {

// kTriLeaf<K>: triangle order <= K (K = 2..32), one line of B per lane, a team of
// max(K, lines) lanes (power of two, at most a warp) per problem and chunk of lines.
enum TriConfig : int { kTriLeaf2, kTriLeaf4, kTriLeaf8, kTriLeaf16, kTriLeaf32, kTriConfigs };
constexpr int kTriLeafMax = 32;
constexpr int kTriWarps = 4;  // warps per block of the leaf kernels (not tuned yet)
constexpr int tri_leaf_side(int config) { return 2 << config; }
// The recursion splits a triangle of order n at a multiple of this (the leaves' order).
constexpr int kTriSplitMultiple = kTriLeafMax;
// Shared memory of a leaf kernel per warp, in compute-type elements: the teams' triangles
// (32 / K teams at most, each K x (K + 1)) and the warp's lines (K x 33).
BB_HOST_DEVICE constexpr int tri_leaf_warp_elements(int K) { return 32 * (K + 1) + K * 33; }
// Lanes per team of a leaf kernel: a line each, at least K (the warp's triangles fit), at most
// a warp; a problem with more lines takes several teams (chunks of lines).
BB_HOST_DEVICE constexpr int tri_team(int K, int lines) {
  int w = K;
  while (w < lines && w < 32) w *= 2;
  return w;
}

}  // namespace bb::cuda
