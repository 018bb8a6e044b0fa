// getri by blocks (lu_tuning.hpp: kLuGetriLeaf, lu_getri_blocked_min_order). On V, the caller's
// memory seen as a column-major matrix (V = A, or A^T for row-major), which holds getrf's
// factors as an upper triangle TU and a lower triangle TL, one of them unit (column-major: L;
// row-major: L^T, upper), the other holding the diagonal:
//   1. the checks of every problem (ipiv in 1..n, U's diagonal without zeros); a failed or NULL
//      problem's matrix is swapped for one scratch matrix in a pointer array of our own, so the
//      cores compute there (garbage nobody reads) and the caller's matrix stays as it was;
//   2. inv(TU) and inv(TL) in place: per split [V11 V12; V21 V22], V12 = -TU11^-1 V12 TU22^-1
//      and V21 = -TL22^-1 V21 TL11^-1 by the trsm core, down to diagonal blocks of kLuGetriLeaf,
//      which one kernel inverts afterwards (every solve reads the triangles as getrf left them);
//   3. X = inv(TU) inv(TL) in place: per split X11 = P(11) + V12 V21 (gemm core), X12 = V12
//      TL22, X21 = TU22 V21 (trmm core), X22 = P(22), a diagonal block's product by a kernel;
//   4. the column interchanges of inv(A) = X P, composed by step 1 into one permutation per
//      problem and applied by strips of rows through shared memory.
// r32 and r64 of orders 33..kLuGetriLanesMax, c32 of 33..kLuGetriLanesMaxC32, take steps 2-4 in
// one kernel instead (getri_lanes).
// The cores see one pointer array, so a run of strided operands becomes an array run here.
#include "../gemm/gemm.hpp"
#include "../tri/tri.hpp"
#include "lu_common.cuh"

namespace bb::cuda {

namespace {

constexpr int kLeafLd = kLuGetriLeaf + 1;  // odd: a warp's column walk hits every bank once
constexpr int kLeafWarps = 4;

struct GetriCheckLaunch {
  FactorRun run;
  void **work;         // per problem: its matrix, or the scratch
  void *scratch;
  int *perm;           // per problem, n entries: the column of X that goes to column c of inv(A)
};

struct GetriLeafLaunch {
  void *const *work;
  int64_t problems;
  int ld, first, order, leaves;  // diagonal blocks of kLuGetriLeaf from (first, first), within order
  bool upper_unit;               // V's upper triangle is the unit one (row-major)
};

struct GetriSwapLaunch {
  FactorRun run;
  void *const *work;
  const void *scratch;
  const int *perm;
  int rows;  // rows of a strip (a thread block's unit)
};

// One warp per problem: the same codes as getri_shared, written only where no code is yet
// (the driver's -k of a NULL problem, getrf's in the inverse in one call).
template <class S>
__global__ void __launch_bounds__(32 * kLeafWarps) getri_blocked_check(const __grid_constant__ GetriCheckLaunch L) {
  extern __shared__ int check_smem[];
  const FactorRun &G = L.run;
  const int lane = threadIdx.x % 32, n = G.n;
  const int64_t warps = int64_t(gridDim.x) * (blockDim.x / 32);
  for (int64_t p = int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32; p < G.problems; p += warps) {
    S *a = operand_at<S>(G.A, p);
    const int *piv = operand_at<int>(G.ipiv, p);
    const bool skip = !a || !piv || (G.codes && G.codes[p] < 0) || (G.info && G.info[p] < 0);
    int code = 0;
    if (!skip) {  // uniform over the warp
      bool bad = false;
      int first_zero = n;
      for (int i = lane; i < n; i += 32) {
        bad |= piv[i] < 1 || piv[i] > n;
        if (first_zero == n && is_zero(widen(a[element_index(G.row_major, G.A.ld, i, i)]))) first_zero = i;
      }
      bad = __any_sync(~0u, bad);
      first_zero = __reduce_min_sync(~0u, first_zero);
      code = bad ? G.bad_pivot_code : first_zero < n ? first_zero + 1 : 0;
    }
    if (lane == 0) {
      if (code && G.codes && !G.codes[p]) G.codes[p] = code;
      if (code && G.info && !G.info[p]) G.info[p] = code;
      L.work[p] = skip || code ? L.scratch : a;
    }
    if (skip || code) continue;
    // The interchanges of inv(A) = X P, last first, composed into one permutation of columns
    // (in this warp's shared memory: one lane walks them in order).
    int *cols = check_smem + (threadIdx.x / 32) * n;
    for (int c = lane; c < n; c += 32) cols[c] = c;
    __syncwarp();
    if (lane == 0)
      for (int j = n - 2; j >= 0; --j) {
        const int jp = piv[j] - 1, keep = cols[j];
        cols[j] = cols[jp], cols[jp] = keep;
      }
    __syncwarp();
    for (int c = lane; c < n; c += 32) L.perm[p * n + c] = cols[c];
    __syncwarp();
  }
}

// inv(TU) and inv(TL) of one staged diagonal block, in place (xtrti2 by columns: each new
// column from the inverted ones beside it; the diagonal is the non-unit triangle's). Step t
// takes TU's column t and TL's column nb-1-t together: two independent chains per lane, and
// neither reads what the other writes (the diagonal, inverted first, is only read).
template <class CT>
__device__ void invert_triangles(CT *T, int nb, int lane, bool upper_unit) {
  using R = real_t<CT>;
  const CT one = from_real<CT>(R(1)), zero = from_real<CT>(R(0));
  const bool lower_unit = !upper_unit;
  auto at = [T](int i, int j) -> CT & { return T[i + j * kLeafLd]; };
  // The non-unit triangle's diagonal first, one division per lane (not two per step).
  if (lane < nb) at(lane, lane) = divide(one, at(lane, lane));
  __syncwarp();
  for (int t = 0; t < nb; ++t) {
    const int ju = t, jl = nb - 1 - t;
    const CT du = upper_unit ? one : at(ju, ju);
    const CT dl = lower_unit ? one : at(jl, jl);
    CT wu = zero, wl = zero;
    if (lane < ju) {  // inv(TU)(i, ju) = -du sum_{k = i}^{ju-1} inv(TU)(i, k) TU(k, ju)
      wu = upper_unit ? at(lane, ju) : mul(at(lane, lane), at(lane, ju));
      for (int k = lane + 1; k < ju; ++k) wu = madd(wu, at(lane, k), at(k, ju));
    }
    if (lane > jl && lane < nb) {  // inv(TL)(i, jl) = -dl sum_{k = jl+1}^{i} inv(TL)(i, k) TL(k, jl)
      wl = lower_unit ? at(lane, jl) : mul(at(lane, lane), at(lane, jl));
      for (int k = jl + 1; k < lane; ++k) wl = madd(wl, at(lane, k), at(k, jl));
    }
    __syncwarp();
    if (lane < ju) at(lane, ju) = negate(mul(du, wu));
    if (lane > jl && lane < nb) at(lane, jl) = negate(mul(dl, wl));
    __syncwarp();
  }
}

// X = TU TL of one staged diagonal block, in place, two rows at a time from the top: row i of X
// needs TU's row i and TL's rows from i down, so rows i and i+1 may overwrite both parts of
// their rows once both are computed.
template <class CT>
__device__ void multiply_triangles(CT *T, int nb, int lane, bool upper_unit) {
  using R = real_t<CT>;
  const int j = lane;
  auto at = [T](int i, int c) -> CT & { return T[i + c * kLeafLd]; };
  auto entry = [&](int i) {
    const int k0 = i > j ? i : j;
    // k = k0: one factor may be a unit diagonal (TU's at k = i, TL's at k = j).
    const CT tu = k0 == i && upper_unit ? from_real<CT>(R(1)) : at(i, k0);
    const CT tl = k0 == j && !upper_unit ? from_real<CT>(R(1)) : at(k0, j);
    CT x = mul(tu, tl);
    for (int k = k0 + 1; k < nb; ++k) x = madd(x, at(i, k), at(k, j));
    return x;
  };
  for (int i = 0; i < nb; i += 2) {
    const bool two = i + 1 < nb;
    CT x0 = from_real<CT>(R(0)), x1 = x0;
    if (j < nb) {
      x0 = entry(i);
      if (two) x1 = entry(i + 1);
    }
    __syncwarp();
    if (j < nb) {
      at(i, j) = x0;
      if (two) at(i + 1, j) = x1;
    }
    __syncwarp();
  }
}

// One warp per (problem, diagonal block): the block staged in shared memory (a lane per row),
// inverted (PRODUCT false) or multiplied out, written back.
template <class S, bool PRODUCT>
__global__ void __launch_bounds__(32 * kLeafWarps) getri_blocked_leaf(const __grid_constant__ GetriLeafLaunch L) {
  using CT = typename dev<S>::C;
  extern __shared__ __align__(16) unsigned char leaf_smem[];
  CT *T = reinterpret_cast<CT *>(leaf_smem) + (threadIdx.x / 32) * (kLeafLd * kLuGetriLeaf);
  const int lane = threadIdx.x % 32;
  const int64_t units = L.problems * L.leaves, warps = int64_t(gridDim.x) * (blockDim.x / 32);
  for (int64_t u = int64_t(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32; u < units; u += warps) {
    const int64_t p = u / L.leaves;
    const int at = L.first + int(u % L.leaves) * kLuGetriLeaf;
    const int nb = min(kLuGetriLeaf, L.first + L.order - at);
    S *a = static_cast<S *>(L.work[p]) + at + int64_t(at) * L.ld;
    if (lane < nb)
      for (int j = 0; j < nb; ++j) T[lane + j * kLeafLd] = widen(a[lane + int64_t(j) * L.ld]);
    __syncwarp();
    if constexpr (PRODUCT) multiply_triangles(T, nb, lane, L.upper_unit);
    else invert_triangles(T, nb, lane, L.upper_unit);
    if (lane < nb)
      for (int j = 0; j < nb; ++j) a[lane + int64_t(j) * L.ld] = narrow<S>(T[lane + j * kLeafLd]);
    __syncwarp();  // the next unit restages T
  }
}

// The column interchanges: a strip of rows through shared memory, read and written back with
// its columns permuted, both in the caller's layout (row-major: whole rows; column-major:
// the strip's rows of each column, 4 consecutive elements at least where they fit).
template <class S>
__global__ void __launch_bounds__(32 * kLeafWarps) getri_blocked_interchange(const __grid_constant__ GetriSwapLaunch L) {
  extern __shared__ __align__(16) unsigned char swap_smem[];
  S *strip = reinterpret_cast<S *>(swap_smem);
  const FactorRun &G = L.run;
  const int n = G.n, R = L.rows, strips = (n + R - 1) / R;
  const int64_t units = G.problems * strips;
  for (int64_t u = blockIdx.x; u < units; u += gridDim.x) {
    const int64_t p = u / strips;
    S *a = static_cast<S *>(L.work[p]);
    if (a == L.scratch) continue;  // the whole block
    const int r0 = int(u % strips) * R, rows = min(R, n - r0), total = rows * n;
    const int *perm = L.perm + p * n;
    for (int e = threadIdx.x; e < total; e += blockDim.x) {
      const int r = G.row_major ? e / n : e % rows, j = G.row_major ? e % n : e / rows;
      strip[r + j * R] = a[element_index(G.row_major, G.A.ld, r0 + r, j)];
    }
    __syncthreads();
    for (int e = threadIdx.x; e < total; e += blockDim.x) {
      const int r = G.row_major ? e / n : e % rows, j = G.row_major ? e % n : e / rows;
      a[element_index(G.row_major, G.A.ld, r0 + r, j)] = strip[r + perm[j] * R];
    }
    __syncthreads();
  }
}

// getri of orders 33..kLuGetriLanesMax (r32, r64; c32 to kLuGetriLanesMaxC32) in one kernel: a
// thread block of kLuGetriLanesMax lanes per problem, V staged once in shared memory by rows,
// and lane j computing column j of X = inv(TU) inv(TL) as two triangular solves on e_j in registers,
// y = TL^-1 e_j then x = TU^-1 y (about 1.2x LAPACK's 4n^3/3 flops at 64: a warp skips the rows
// above its first column, not above each lane's), every lane of a warp reading the same
// entry of V at once (a broadcast, 16 bytes per load). X leaves through shared memory with the
// permutation: each matrix read once and written once, against the recursion's dozen launches.
constexpr int kLanesThreads = kLuGetriLanesMax;
template <class CT> constexpr int kLanesVec = 16 / int(sizeof(CT));  // entries per shared load
// V's rows (16-byte aligned; staging a column still meets 2-4 way bank conflicts), then
// the reciprocals of the non-unit diagonal. X is stored over them by columns, ld K + 1.
template <class CT> constexpr int kLanesLd = kLuGetriLanesMax + kLanesVec<CT>;
template <class CT> constexpr int lanes_bytes(int n) { return (n * kLanesLd<CT> + n) * int(sizeof(CT)); }

struct GetriLanesLaunch {
  FactorRun run;
  void *const *work;
  const void *scratch;
  const int *perm;
};

template <class S>
__global__ void __launch_bounds__(kLanesThreads) getri_lanes(const __grid_constant__ GetriLanesLaunch L) {
  using CT = typename dev<S>::C;
  using R = real_t<CT>;
  constexpr int K = kLuGetriLanesMax, VEC = kLanesVec<CT>, LD = kLanesLd<CT>, XLD = K + 1;
  struct alignas(16) Piece { CT v[VEC]; };
  extern __shared__ __align__(16) unsigned char lanes_smem[];
  CT *const M = reinterpret_cast<CT *>(lanes_smem);  // V(i, k) at M[i * LD + k]
  const FactorRun &G = L.run;
  const int n = G.n, lane = threadIdx.x;  // lane: the column of X
  CT *const rinv = M + n * LD;
  const bool lower_unit = !G.row_major, upper_unit = G.row_major;  // TL = L, TU = U (row-major: U^T, L^T)
  // y = TL^-1 e_j is zero above row j: a warp's solves start at its first column.
  const int first = threadIdx.x / 32 * 32;
  const CT one = from_real<CT>(R(1)), zero = from_real<CT>(R(0));
  // s / V(i, i): a multiply by the reciprocal, or the division where it would overflow (a
  // subnormal diagonal: s / d, as the trsm leaf; the recursion's diagonal blocks give Inf).
  auto solved = [&](CT s, int i) {
    const CT r = rinv[i];
    return is_zero(r) ? divide(s, M[i * LD + i]) : mul(s, r);
  };
  for (int64_t p = blockIdx.x; p < G.problems; p += gridDim.x) {
    S *const a = static_cast<S *>(L.work[p]);
    if (a == L.scratch) continue;  // failed or NULL (the checks): its A stays, the whole block skips
    const int64_t lda = G.A.ld;
    for (int e = threadIdx.x; e < n * n; e += K) M[(e % n) * LD + e / n] = widen(a[e % n + (e / n) * lda]);
    __syncthreads();
    if (lane < n) {  // the checks left no zero on the non-unit diagonal
      const CT d = M[lane * LD + lane];
      rinv[lane] = abs1(d) >= smallest_normal<R>() ? divide(one, d) : zero;
    }
    __syncthreads();
    CT x[K];
    // s0, s1 -= V's 16-byte piece row[k..] times x[k..], the entries before `end` only, even
    // ones into s0 and odd ones into s1 (two independent chains). k is a constant once unrolled.
    auto subtract_piece = [&x](CT &s0, CT &s1, const CT *row, int k, int end) {
      const Piece w = *reinterpret_cast<const Piece *>(row + k);
#pragma unroll
      for (int v = 0; v < VEC; ++v)
        if (k + v < end) (v % 2 ? s1 : s0) = msub(v % 2 ? s1 : s0, w.v[v], x[k + v]);
    };
    if (lane < n) {
      // y = TL^-1 e_j, rows in order; two partial sums per row for two independent chains.
#pragma unroll
      for (int i = 0; i < K; ++i) {
        if (i >= n) break;
        x[i] = zero;
        if (i < first) continue;
        CT s0 = i == lane ? one : zero, s1 = zero;
        const CT *const row = M + i * LD;
        if (first == 0) {
#pragma unroll
          for (int k = 0; k < 32 && k < i; k += VEC) subtract_piece(s0, s1, row, k, i);
        }
#pragma unroll
        for (int k = 32; k < i; k += VEC) subtract_piece(s0, s1, row, k, i);
        const CT s = sum_of(s0, s1);
        x[i] = lower_unit ? s : solved(s, i);
      }
      // x = TU^-1 y in place, rows from the last: singles up to a 16-byte boundary, then pieces.
#pragma unroll
      for (int i = K - 1; i >= 0; --i) {
        if (i >= n) continue;
        CT s0 = x[i], s1 = zero;
        const CT *const row = M + i * LD;
        const int aligned = (i + VEC) / VEC * VEC;  // the first multiple of VEC above i
#pragma unroll
        for (int k = i + 1; k < aligned && k < K; ++k)
          if (k < n) s1 = msub(s1, row[k], x[k]);
#pragma unroll
        for (int k = aligned; k < K; k += VEC) {
          if (k >= n) break;
          subtract_piece(s0, s1, row, k, n);
        }
        const CT s = sum_of(s0, s1);
        x[i] = upper_unit ? s : solved(s, i);
      }
    }
    __syncthreads();  // every lane has read V
    CT *const X = M;  // X(i, j) at X[j * XLD + i]
    if (lane < n) {
#pragma unroll
      for (int i = 0; i < K; ++i)
        if (i < n) X[lane * XLD + i] = x[i];
    }
    __syncthreads();
    // inv(A) = X P: the caller's column c is X's column perm[c] (row-major: V's rows).
    const int *const perm = L.perm + p * n;
    for (int e = threadIdx.x; e < n * n; e += K) {
      const int i = e % n, j = e / n;
      a[i + j * lda] = narrow<S>(G.row_major ? X[j * XLD + perm[i]] : X[perm[j] * XLD + i]);
    }
    __syncthreads();  // the next problem restages V
  }
}

struct GetriBlocked {
  Session &s;
  DevPrec p;
  const FactorRun &r;
  bool vendor_backend;
  DevOperand V;  // the work array: every problem's matrix (or the scratch), column-major view
  const int elem = elem_bytes(p);
  const bool upper_unit = r.row_major;  // V's unit triangle: L^T's for row-major, else L's

  void *const *work() const { return static_cast<void *const *>(V.p); }

  DevOperand at(int i, int j) const { return sub_block(V, i, j, elem); }
  static int split(int order) {  // the first part: half the leaves, rounded up
    const int leaves = (order + kLuGetriLeaf - 1) / kLuGetriLeaf;
    return (leaves + 1) / 2 * kLuGetriLeaf;
  }
  int tri(bool solve, bool left, bool lower, int m, int n, DevOperand A, DevOperand B, double alpha) const {
    TriRun t;
    t.problems = r.problems;
    t.solve = solve, t.left = left, t.lower = lower, t.trans = 0;
    t.unit_diag = lower ? !upper_unit : upper_unit;
    t.m = m, t.n = n;
    t.A = A, t.B = B;
    t.alpha[0] = alpha;
    return tri_recursive(s, p, t, vendor_backend);
  }
  template <class S, bool PRODUCT>
  int leaves(int first, int order) const {
    using CT = typename dev<S>::C;
    GetriLeafLaunch L{work(), r.problems, V.ld, first, order, (order + kLuGetriLeaf - 1) / kLuGetriLeaf, upper_unit};
    const int64_t units = r.problems * L.leaves;
    const int bytes = kLeafWarps * kLeafLd * kLuGetriLeaf * int(sizeof(CT));
    return launch_kernel(s, getri_blocked_leaf<S, PRODUCT>, L, 32 * kLeafWarps, (units + kLeafWarps - 1) / kLeafWarps,
                         bytes);
  }
  // Step 2's solves, before any diagonal block is inverted.
  int invert_off_diagonal(int k, int order) const {
    if (order <= kLuGetriLeaf || s.status()) return s.status();
    const int n1 = split(order), n2 = order - n1;
    const DevOperand v11 = at(k, k), v12 = at(k, k + n1), v21 = at(k + n1, k), v22 = at(k + n1, k + n1);
    if (tri(true, true, false, n1, n2, v11, v12, -1) || tri(true, false, false, n1, n2, v22, v12, 1) ||
        tri(true, true, true, n2, n1, v22, v21, -1) || tri(true, false, true, n2, n1, v11, v21, 1))
      return s.status();
    if (invert_off_diagonal(k, n1)) return s.status();
    return invert_off_diagonal(k + n1, n2);
  }
  template <class S>
  int multiply(int k, int order) const {
    if (s.status()) return s.status();
    if (order <= kLuGetriLeaf) return leaves<S, true>(k, order);
    const int n1 = split(order), n2 = order - n1;
    const DevOperand v11 = at(k, k), v12 = at(k, k + n1), v21 = at(k + n1, k), v22 = at(k + n1, k + n1);
    if (multiply<S>(k, n1)) return s.status();
    GemmSeg g;  // X11 += V12 V21
    g.problems = r.problems;
    g.m = n1, g.n = n1, g.k = n2;
    g.A = v12, g.B = v21, g.C = v11;
    g.read_ab = 1, g.read_c = 1;
    g.alpha[0] = 1, g.beta[0] = 1;
    const bool aligned = false;  // sub-blocks: the gemm core's flat kernels never apply
    if (gemm(s, p, &g, &aligned, 1, vendor_backend)) return s.status();
    if (tri(false, false, true, n1, n2, v22, v12, 1) || tri(false, true, false, n2, n1, v22, v21, 1)) return s.status();
    return multiply<S>(k + n1, n2);
  }
  template <class S>
  int run(void *scratch, const int *perm) {
    const int n = r.n;
    if constexpr (std::is_same_v<S, float> || std::is_same_v<S, double> || std::is_same_v<S, cplx<float>>) {
      if (lu_getri_lanes(p, n)) {
        const GetriLanesLaunch l{r, work(), scratch, perm};
        return launch_kernel(s, getri_lanes<S>, l, kLanesThreads, r.problems, lanes_bytes<typename dev<S>::C>(n));
      }
    }
    if (invert_off_diagonal(0, n) || leaves<S, false>(0, n) || multiply<S>(0, n)) return s.status();
    // Strips of about kStripBytes, and of 4 rows at least where they fit kStripBytesMax (a
    // column-major strip reads 4 consecutive elements per column), else as many as fit (one
    // row at least: 128 KiB at n = 8192 in c64).
    constexpr int kStripBytes = 16 * 1024, kStripBytesMax = 192 * 1024;
    const int row_bytes = n * int(sizeof(S));
    const int rows = std::max(std::min(4, std::max(1, kStripBytesMax / row_bytes)), std::min(32, kStripBytes / row_bytes));
    const GetriSwapLaunch sw{r, work(), scratch, perm, rows};
    const int64_t units = r.problems * ((n + rows - 1) / rows);
    return launch_kernel(s, getri_blocked_interchange<S>, sw, 32 * kLeafWarps, units, rows * n * int(sizeof(S)));
  }
};

template <class S>
int getri_blocked_typed(Session &s, DevPrec p, const FactorRun &r, bool vendor_backend) {
  const int n = r.n;
  const std::size_t array_bytes = (std::size_t(r.problems) * sizeof(void *) + 255) / 256 * 256;
  const std::size_t perm_bytes = (std::size_t(r.problems) * n * sizeof(int) + 255) / 256 * 256;
  const std::size_t scratch_bytes = std::size_t(r.A.ld) * n * sizeof(S);
  const auto stream = static_cast<cudaStream_t>(s.stream());
  s.started();
  const auto pool = static_cast<cudaMemPool_t>(s.workspace_pool());
  void *mem = nullptr;
  if (!pool || cudaMallocFromPoolAsync(&mem, array_bytes + perm_bytes + scratch_bytes, pool, stream) != cudaSuccess) {
    cudaGetLastError();
    // No workspace: the one-block kernel, which keeps a NULL problem's code as this path does.
    FactorRun one = r;
    one.unit_begin = 0, one.keep_codes = true;
    const int config = lu_codes_keeping_config(p, n);
    return lu_launch(s, p, LuRoutine::getri, config, &one, nullptr, nullptr, 1, lu_units(one, config),
                     factor_run_flags(one, elem_bytes(p)));
  }
  void **work = static_cast<void **>(mem);
  int *perm = reinterpret_cast<int *>(static_cast<char *>(mem) + array_bytes);
  void *scratch = static_cast<char *>(mem) + array_bytes + perm_bytes;
  const GetriCheckLaunch check{r, work, scratch, perm};
  if (!launch_kernel(s, getri_blocked_check<S>, check, 32 * kLeafWarps, (r.problems + kLeafWarps - 1) / kLeafWarps,
                     kLeafWarps * n * int(sizeof(int)))) {
    GetriBlocked b{s, p, r, vendor_backend, DevOperand{work, 0, r.A.ld, true, false}};
    b.run<S>(scratch, perm);
  }
  s.check(cudaFreeAsync(mem, stream));  // stream-ordered: after the work
  return s.status();
}

}  // namespace

int getri_blocked(Session &s, DevPrec p, const FactorRun &r, bool vendor_backend) {
  if (s.status() || r.problems <= 0 || r.n <= 0) return s.status();
  switch (p) {  // lu_getri_blocked_min_order: the four with whole-precision cores
    case DevPrec::r32: return getri_blocked_typed<float>(s, p, r, vendor_backend);
    case DevPrec::c32: return getri_blocked_typed<cplx<float>>(s, p, r, vendor_backend);
    case DevPrec::r64: return getri_blocked_typed<double>(s, p, r, vendor_backend);
    case DevPrec::c64: return getri_blocked_typed<cplx<double>>(s, p, r, vendor_backend);
    default: return s.fail(BLAS_BATCHED_ERR_DEVICE);  // never planned
  }
}

}  // namespace bb::cuda
