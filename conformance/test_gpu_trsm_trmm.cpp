// trsm and trmm on device-resident data (SPEC.md sections 3-5, 9.1, 9.2), through the public C
// API only. Every problem's A and B (their whole storage, padding included) sit back to back in
// one cudaMalloc allocation with NaN guards between them; pointer arrays and info in host memory
// unless a test says otherwise. Every call's outputs are checked (triangular_common.hpp)
//  - against the reference backend run on host copies of the same inputs, normwise;
//  - by a residual from the stored triangle alone, in the wide type: ||op(A) X - alpha B|| for
//    trsm, ||B_out - alpha op(A) B|| for trmm;
//  - bytes: A everywhere (NaN in the other triangle, on a unit diagonal and in its padding), B's
//    padding, the guards between matrices and skipped problems compared bit for bit with what
//    was there before; with alpha = 0 B holds NaN and must come back exactly zero (neither A nor
//    B read); info starts poisoned (-12345), so an entry left unwritten shows.
// Sizes: orders 1..32 (the leaf kernels) in every option combination (a rotating sample of them
// per combination, every one of them in a few), rectangular shapes, lines of B beyond a warp,
// and orders 33..300 (the recursion, and r32's and r16 trsm's leaf of order 64 at 33: splits at
// multiples of 32, sizes that are not) in every
// combination at a few sizes; a single problem of order 1000 (deep recursion, the gemm core's
// large tiles); NULL problems, device pointer arrays, device info, the strided entry point with
// more than 65535 problems and a shared A (stride 0).
// Without a GPU every test skips (gpu_common.hpp); BB_GPU_REDUCED=1 shrinks it for sanitizers.
#include "gpu_common.hpp"
#include "triangular_common.hpp"

#include <limits>
#include <type_traits>

namespace conf {
namespace {

using gpu::Buffer;
using gpu::Mem;
using gpu::scaled;

constexpr int kGuard = 3;             // NaN elements after every matrix in device memory
constexpr int kInfoPoison = -12345;   // info entries the library has not written
constexpr int kTrsmA = 9, kTrsmB = 11;  // argument numbers of A and B in the group API

// A case's matrices in one device allocation: A and B of problem p at a_at[p] and b_at[p]
// (elements), each followed by kGuard NaN.
template <class T>
struct DeviceImage {
  std::vector<T> host;  // what was uploaded
  std::vector<std::size_t> a_at, b_at;
  Buffer mem;
  explicit DeviceImage(const TriCase<T> &c) {
    for (std::size_t p = 0; p < c.A.size(); ++p) {
      for (const Mat<T> *m : {&c.A[p], &c.B[p]}) {
        (m == &c.A[p] ? a_at : b_at).push_back(host.size());
        host.insert(host.end(), m->data.begin(), m->data.end());
        host.insert(host.end(), kGuard, nan_value<T>());
      }
    }
    mem = Buffer(Mem::device, host.size() * sizeof(T));
    mem.write(0, host.data(), host.size() * sizeof(T));
  }
  T *device(std::size_t at) const { return reinterpret_cast<T *>(mem.get()) + at; }
  // What the call left: A and B per problem; the guards must be as they were.
  ::testing::AssertionResult fetch(const TriCase<T> &c, std::vector<Mat<T>> &A, std::vector<Mat<T>> &B) const {
    std::vector<T> after(host.size());
    mem.read(0, after.data(), after.size() * sizeof(T));
    A = c.A, B = c.B;
    for (std::size_t p = 0; p < c.A.size(); ++p) {
      std::copy_n(after.begin() + a_at[p], A[p].data.size(), A[p].data.begin());
      std::copy_n(after.begin() + b_at[p], B[p].data.size(), B[p].data.begin());
      for (std::size_t at : {a_at[p] + A[p].data.size(), b_at[p] + B[p].data.size()})
        for (int k = 0; k < kGuard; ++k)
          if (!same_bits(after[at + k], host[at + k]))
            return ::testing::AssertionFailure() << "guard after a matrix of problem " << p << " written";
    }
    return ::testing::AssertionSuccess();
  }
};

struct CallOpts {
  const char *backend = "native";
  bool device_arrays = false;  // pointer arrays in device memory (SPEC.md 9.2)
  bool device_info = false;    // info in device memory
  std::vector<std::size_t> null_a, null_b;  // problems whose A or B pointer is NULL
};

// The group call of case c on device copies of its inputs; Aout and Bout what it left.
template <class T>
int run_device(const TriCase<T> &c, const CallOpts &o, std::vector<Mat<T>> &Aout, std::vector<Mat<T>> &Bout,
               std::vector<int> &info) {
  DeviceImage<T> img(c);
  std::vector<T *> pa, pb;
  for (std::size_t p = 0; p < c.A.size(); ++p) pa.push_back(img.device(img.a_at[p])), pb.push_back(img.device(img.b_at[p]));
  for (std::size_t q : o.null_a) pa[q] = nullptr;
  for (std::size_t q : o.null_b) pb[q] = nullptr;
  Buffer da, db, dinfo;
  T **A = pa.data(), **B = pb.data();
  info.assign(pa.size(), kInfoPoison);
  int *inf = info.data();
  if (o.device_arrays) {
    da = Buffer(Mem::device, pa.size() * sizeof(T *)), db = Buffer(Mem::device, pb.size() * sizeof(T *));
    da.write(0, pa.data(), pa.size() * sizeof(T *)), db.write(0, pb.data(), pb.size() * sizeof(T *));
    A = reinterpret_cast<T **>(da.get()), B = reinterpret_cast<T **>(db.get());
  }
  if (o.device_info) {
    dinfo = Buffer(Mem::device, info.size() * sizeof(int));
    dinfo.write(0, info.data(), info.size() * sizeof(int));
    inf = reinterpret_cast<int *>(dinfo.get());
  }
  BackendScope s(o.backend);
  const int st = c.call(A, B, inf);
  EXPECT_NO_CUDA_ERROR();
  if (o.device_info) dinfo.read(0, info.data(), info.size() * sizeof(int));
  EXPECT_TRUE(img.fetch(c, Aout, Bout));
  return st;
}

// The reference backend on host copies (NULL problems left out of the comparison).
template <class T>
void reference(const TriCase<T> &c, std::vector<Mat<T>> &Bref) {
  std::vector<Mat<T>> Aref;
  std::vector<int> info;
  BackendScope s("reference");
  ASSERT_EQ(c.run(Aref, Bref, info), 0) << "reference backend";
}

// Runs case c on the device under `o` and checks every problem.
template <class T>
void check_device_case(const TriCase<T> &c, const CallOpts &o) {
  SCOPED_TRACE(seed_note());
  SCOPED_TRACE(c.describe() + ", backend " + o.backend + (o.device_arrays ? ", device pointer arrays" : "") +
               (o.device_info ? ", device info" : ""));
  std::vector<Mat<T>> Bref, Aout, Bout;
  reference(c, Bref);
  if (::testing::Test::HasFatalFailure()) return;
  std::vector<int> info;
  const int st = run_device(c, o, Aout, Bout, info);
  if (::testing::Test::HasFatalFailure()) return;
  if (is_quad<T> && o.device_arrays) {  // staged through the host, which cannot read the arrays
    EXPECT_EQ(st, BLAS_BATCHED_ERR_UNSUPPORTED) << "SPEC.md 9.2: device pointer arrays need GPU arithmetic";
    for (std::size_t p = 0; p < info.size(); ++p)
      ASSERT_TRUE(info[p] == kInfoPoison && same_data(Bout[p], c.B[p])) << "problem " << p << " touched";
    return;
  }
  const std::size_t skipped = o.null_a.size() + o.null_b.size();
  // With info in device memory the return value counts only what the call saw on the host.
  if (!o.device_info) EXPECT_EQ(st, int(skipped)) << "the return value counts the problems with non-zero info";
  else EXPECT_GE(st, 0);
  std::size_t p = 0;
  for (std::size_t gi = 0; gi < c.groups.size(); ++gi) {
    const TriGroup<T> &g = c.groups[gi];
    for (int i = 0; i < g.count; ++i, ++p) {
      SCOPED_TRACE("problem " + std::to_string(p) + " (group " + std::to_string(gi) + ") m n " + std::to_string(g.m) +
                   " " + std::to_string(g.n) + (g.alpha == T(0) ? " alpha 0" : ""));
      const bool null_a = std::count(o.null_a.begin(), o.null_a.end(), p) > 0;
      const bool null_b = std::count(o.null_b.begin(), o.null_b.end(), p) > 0;
      if ((null_a || null_b) && g.m > 0 && g.n > 0) {
        ASSERT_EQ(info[p], null_a ? -kTrsmA : -kTrsmB);
        ASSERT_TRUE(same_data(Aout[p], c.A[p]) && same_data(Bout[p], c.B[p])) << "skipped problem written";
        continue;
      }
      ASSERT_EQ(info[p], 0);
      check_problem(c, g, p, Aout[p], Bout[p], Bref[p], false);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  count_checked((std::string("gpu ") + c.routine() + " " + traits<T>::name()).c_str(), long(p));
}

// One call's groups: orders 1..32 (every one, or a rotating third with `sample`), rectangular
// shapes (lines of B beyond a warp), alpha = 0 at a leaf order and above it, and `medium`
// orders (the recursion) as square and rectangular problems.
template <class T>
TriCase<T> device_case(bool solve, BLAS_Layout layout, BLAS_Side side, BLAS_Uplo uplo, BLAS_Op ta, BLAS_Diag diag,
                       int ci, bool sample, const std::vector<int> &medium) {
  TriCase<T> c{solve, layout, side, uplo, ta, diag, {}, {}, {}};
  auto add = [&](int m, int n, int count, bool alpha0 = false) {
    c.groups.push_back(TriGroup<T>{m, n, count, alpha0 ? T(0) : random_value<T>()});
    const int pad_a = random_int(0, 2), pad_b = random_int(0, 2), r = side == BLAS_Left ? m : n;
    for (int i = 0; i < count; ++i) {
      // alpha = 0: A all NaN (its triangle too), which must not reach B.
      c.A.push_back(alpha0 ? Mat<T>(r, r, layout, pad_a) : make_triangular<T>(r, layout, pad_a, uplo, diag));
      c.B.emplace_back(m, n, layout, pad_b);
      if (!alpha0) c.B.back().fill_random();  // alpha = 0: B stays NaN, must not be read
    }
  };
  const int few = gpu::reduced() || is_quad<T> ? 1 : 3;
  for (int r = 1; r <= 32; ++r)
    if (!sample || (r + ci) % 3 == 0 || r == 32) add(r, r, r <= 8 ? 2 * few : few);
  const int rect[][2] = {{1, 7}, {17, 5}, {5, 40}, {9, 31}, {3, 1}, {32, 70}, {70, 32}, {0, 5}, {5, 0}};
  for (const auto &s : rect) add(s[0], s[1], few);
  add(8, 6, 2, /*alpha0=*/true);
  for (int r : medium) {
    add(r, r, 1);
    add(side == BLAS_Left ? r : 7, side == BLAS_Left ? 9 : r, 1);
  }
  if (!medium.empty()) add(40, 40, 1, /*alpha0=*/true);
  return c;
}

template <class T>
class GpuTrsmTrmm : public gpu::GpuTest {};
TYPED_TEST_SUITE(GpuTrsmTrmm, AllPrecisions, PrecisionNames);

// Every side, uplo, A_trans and diag in both layouts; orders 1..32 sampled per combination,
// the recursion at two orders per combination; trsm also under the vendor backend (cuBLAS's
// trsmBatched; trmm has none, its vendor backend is the native one).
template <class T>
void every_option(bool solve) {
  int ci = 0;
  const std::vector<int> medium = is_quad<T> ? std::vector<int>{40} : gpu::reduced() ? std::vector<int>{33, 64}
                                                                                      : std::vector<int>{33, 100};
  for (BLAS_Layout layout : {BLAS_ColMajor, BLAS_RowMajor})
    for (BLAS_Side side : kSides)
      for (BLAS_Uplo uplo : kUplos)
        for (BLAS_Op ta : kOps)
          for (BLAS_Diag diag : kDiags) {
            const TriCase<T> c = device_case<T>(solve, layout, side, uplo, ta, diag, ci++, true, medium);
            for (const char *backend : gpu::device_backends<T>()) {
              if (!solve && std::string(backend) == "vendor") continue;
              CallOpts o;
              o.backend = backend;
              check_device_case(c, o);
              if (::testing::Test::HasFatalFailure()) return;
            }
          }
}
TYPED_TEST(GpuTrsmTrmm, TrsmEveryOption) { every_option<typename TypeParam::type>(true); }
TYPED_TEST(GpuTrsmTrmm, TrmmEveryOption) { every_option<typename TypeParam::type>(false); }

// Every order 1..32 and the recursion's sizes (multiples of 32 and their neighbours, up to
// 300) in four combinations that cover both sides, both effective triangles and A^H.
TYPED_TEST(GpuTrsmTrmm, EveryOrderAndRecursion) {
  using T = typename TypeParam::type;
  const std::vector<int> medium = is_quad<T> ? std::vector<int>{33, 65}
                                  : gpu::reduced() ? std::vector<int>{33, 96}
                                                   : std::vector<int>{33, 63, 64, 65, 96, 127, 128, 129, 200, 256, 300};
  int ci = 0;
  for (bool solve : {true, false}) {
    check_device_case(device_case<T>(solve, BLAS_ColMajor, BLAS_Left, BLAS_Lower, BLAS_NoTrans, BLAS_NonUnit, ci++,
                                     false, medium),
                      CallOpts{});
    check_device_case(device_case<T>(solve, BLAS_RowMajor, BLAS_Right, BLAS_Upper, BLAS_ConjTrans, BLAS_Unit, ci++,
                                     false, medium),
                      CallOpts{});
    check_device_case(device_case<T>(solve, BLAS_ColMajor, BLAS_Right, BLAS_Lower, BLAS_Trans, BLAS_NonUnit, ci++,
                                     false, medium),
                      CallOpts{});
    check_device_case(device_case<T>(solve, BLAS_RowMajor, BLAS_Left, BLAS_Upper, BLAS_ConjTrans, BLAS_NonUnit,
                                     ci++, false, medium),
                      CallOpts{});
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Every m x n with m, n = 1..32 as its own group, in one call (the leaf kernels' shapes: B's
// lines and A's order apart, partial warps of either), in four option combinations that cover
// both sides, both effective triangles, A^T and A^H, unit and non-unit diagonals.
TYPED_TEST(GpuTrsmTrmm, EveryShapeUpTo32) {
  using T = typename TypeParam::type;
  const int step = gpu::reduced() || is_quad<T> ? 5 : 1;  // reduced: 1, 6, 11, .., 31 and 32
  struct Options {
    BLAS_Layout layout;
    BLAS_Side side;
    BLAS_Uplo uplo;
    BLAS_Op ta;
    BLAS_Diag diag;
  };
  const Options options[] = {{BLAS_ColMajor, BLAS_Left, BLAS_Lower, BLAS_NoTrans, BLAS_NonUnit},
                             {BLAS_RowMajor, BLAS_Right, BLAS_Upper, BLAS_Trans, BLAS_Unit},
                             {BLAS_ColMajor, BLAS_Right, BLAS_Lower, BLAS_ConjTrans, BLAS_NonUnit},
                             {BLAS_RowMajor, BLAS_Left, BLAS_Upper, BLAS_ConjTrans, BLAS_Unit}};
  for (bool solve : {true, false})
    for (const Options &op : options) {
      TriCase<T> c{solve, op.layout, op.side, op.uplo, op.ta, op.diag, {}, {}, {}};
      std::vector<int> sides;
      for (int r = 1; r <= 32; r += step) sides.push_back(r);
      if (sides.back() != 32) sides.push_back(32);
      for (int m : sides)
        for (int n : sides) {
          c.groups.push_back(TriGroup<T>{m, n, 1, random_value<T>()});
          const int order = op.side == BLAS_Left ? m : n;
          c.A.push_back(make_triangular<T>(order, op.layout, random_int(0, 2), op.uplo, op.diag));
          c.B.emplace_back(m, n, op.layout, random_int(0, 2));
          c.B.back().fill_random();
        }
      check_device_case(c, CallOpts{});
      if (::testing::Test::HasFatalFailure()) return;
    }
}

// The vendor backend, device pointer arrays and info, and NULL pointers (info -9 or -11, the
// problem untouched, the others correct) at a leaf order and in the recursion, alpha = 0
// included (a NULL A there must not let B be zeroed).
TYPED_TEST(GpuTrsmTrmm, BackendsArraysAndNulls) {
  using T = typename TypeParam::type;
  const std::vector<int> medium = {is_quad<T> ? 40 : 72};
  for (bool solve : {true, false}) {
    TriCase<T> c = device_case<T>(solve, BLAS_ColMajor, BLAS_Left, BLAS_Upper, BLAS_Trans, BLAS_NonUnit, 0, true,
                                  medium);
    std::size_t small_alpha0 = 0, p = 0;  // the first problem of the 8 x 6 alpha = 0 group
    for (const TriGroup<T> &g : c.groups) {
      if (g.alpha == T(0) && g.m == 8 && !small_alpha0) small_alpha0 = p;
      p += g.count;
    }
    ASSERT_GT(small_alpha0, 0u);
    const std::size_t last = c.A.size() - 1;  // 40 x 40, alpha = 0; before it 72 x 9 and 72 x 72
    for (const char *backend : gpu::device_backends<T>())
      for (int mode = 0; mode < 3; ++mode) {
        CallOpts o;
        o.backend = backend, o.device_arrays = mode > 0, o.device_info = mode == 2;
        o.null_a = {1, small_alpha0, last, last - 1};
        o.null_b = {4, last - 2};
        check_device_case(c, o);
        if (::testing::Test::HasFatalFailure()) return;
      }
  }
}

// Diagonal elements whose reciprocal overflows (subnormal): trsm divides by them as the host
// does (x = 6 exactly from b = 3 d, alpha = 2), where a multiplication by 1 / d would give Inf;
// also a tiny normal one, whose |d|^2 underflows (a complex 1 / d as conj(d) / |d|^2 would be
// Inf); under both device backends (vendor: cuBLAS's trsmBatched).
TYPED_TEST(GpuTrsmTrmm, SubnormalDiagonal) {
  using T = typename TypeParam::type;
  using R = typename traits<T>::real;
  if constexpr (is_half<T> || is_quad<T>) {
    GTEST_SKIP() << "half computes in float (a subnormal half is a normal float); quad is staged";
  } else {
    const R tiny = std::numeric_limits<R>::denorm_min() * R(1 << 10);
    for (BLAS_Side side : kSides) {
      TriCase<T> c{true, BLAS_ColMajor, side, BLAS_Lower, BLAS_NoTrans, BLAS_NonUnit, {}, {}, {}};
      for (int r : {3, 40}) {  // a leaf and the recursion
        // Four problems: subnormal, 1, subnormal, 4 x the smallest normal (vendor: cuBLAS keeps
        // the second and fourth, the library's kernels solve the others again), alpha = 2: x =
        // 2 (3 d) / d = 6 exactly.
        c.groups.push_back(TriGroup<T>{r, r, 4, T(R(2))});
        for (int q = 0; q < 4; ++q) {
          const R d = q == 1 ? R(1) : q == 3 ? R(4) * std::numeric_limits<R>::min() : tiny;
          Mat<T> a(r, r, BLAS_ColMajor, 0), b(r, r, BLAS_ColMajor, 0);
          for (int j = 0; j < r; ++j)
            for (int i = 0; i < r; ++i) {
              if (i >= j) a(i, j) = T(R(i == j ? d : 0));
              b(i, j) = T(R(3) * d);
            }
          c.A.push_back(a), c.B.push_back(b);
        }
      }
      for (const char *backend : gpu::device_backends<T>()) {  // vendor: cuBLAS's trsmBatched
        std::vector<Mat<T>> Aout, Bout;
        std::vector<int> info;
        CallOpts o;
        o.backend = backend;
        ASSERT_EQ(run_device(c, o, Aout, Bout, info), 0);
        for (std::size_t p = 0; p < c.B.size(); ++p)
          for (int j = 0; j < c.B[p].cols; ++j)
            for (int i = 0; i < c.B[p].rows; ++i)
              ASSERT_TRUE(wide(Bout[p](i, j)) == Wide<T>(6)) << "backend " << backend << ", side " << side_name(side)
                                                             << ", problem " << p << " (" << i << ", " << j << ")";
      }
    }
  }
}

// One large problem, both sides, three sets of options. Host pointer arrays make it a strided
// run: order >= 512 with >= 128 lines goes by diagonal blocks (256 x 256, inverted or made full
// beforehand; 1000 leaves a partial last block). Device pointer arrays keep the in-place
// recursion several levels deep (the split at 1024, 512, ...): at order 2048 in r32 and r64
// its top-level updates (1024 x 300 x 1024) reach the gemm core's cuBLAS rule for few large
// problems (2^28 multiply-adds; in r32 and r64 its lower threshold, 2^16, takes the deeper
// levels too).
TYPED_TEST(GpuTrsmTrmm, OneLargeProblem) {
  using T = typename TypeParam::type;
  const bool cublas_size = std::is_same_v<T, float> || std::is_same_v<T, double>;
  const int big = is_quad<T> ? 100 : scaled(cublas_size ? 2048 : 1000, 200), lines = is_quad<T> ? 20 : scaled(300, 40);
  struct Options {
    BLAS_Uplo uplo;
    BLAS_Op ta;
    BLAS_Diag diag;
  };
  // op(A) lower in the first two, upper in the third (the diagonal blocks' upper triangles).
  const Options sets[] = {{BLAS_Lower, BLAS_NoTrans, BLAS_NonUnit},
                          {BLAS_Upper, is_cplx<T> ? BLAS_ConjTrans : BLAS_Trans, BLAS_Unit},
                          {BLAS_Upper, BLAS_NoTrans, BLAS_NonUnit}};
  for (const Options &o : sets)
    for (bool solve : {true, false})
      for (BLAS_Side side : kSides) {
        TriCase<T> c{solve, BLAS_ColMajor, side, o.uplo, o.ta, o.diag, {}, {}, {}};
        const int m = side == BLAS_Left ? big : lines, n = side == BLAS_Left ? lines : big;
        c.groups.push_back(TriGroup<T>{m, n, 1, random_value<T>()});
        c.A.push_back(make_triangular<T>(big, BLAS_ColMajor, 1, o.uplo, o.diag));
        c.B.emplace_back(m, n, BLAS_ColMajor, 2);
        c.B.back().fill_random();
        check_device_case(c, CallOpts{});
        if (::testing::Test::HasFatalFailure()) return;
        if (is_quad<T> || &o != &sets[0]) continue;  // r128/c128: no device pointer arrays (SPEC 9.2)
        CallOpts arrays;
        arrays.device_arrays = true;
        check_device_case(c, arrays);
        if (::testing::Test::HasFatalFailure()) return;
      }
}

// The strided entry point on device data: more than 65535 problems of order 4 (leaf), a few
// thousand of order 40 (recursion) and three of order 600 (diagonal blocks), one A shared by
// all (stride 0), info in device memory; every problem against the same call on host copies,
// a sample against the reference and the residual.
TYPED_TEST(GpuTrsmTrmm, StridedManyProblems) {
  using T = typename TypeParam::type;
  struct Shape {
    int order, lines, count;
  };
  std::vector<Shape> shapes = {{4, 3, is_quad<T> ? 2000 : scaled(70000, 300)}, {40, 5, is_quad<T> ? 50 : scaled(3000, 20)}};
  // A few large triangles (order 600: two 256-blocks and a partial one) go by diagonal blocks,
  // one problem after the other with the shared A (r32..c64; r16 recursion, r128 staged).
  if (!is_quad<T> && !gpu::reduced()) shapes.push_back({600, 130, 3});
  for (const Shape &s : shapes)
    for (bool solve : {true, false}) {
      SCOPED_TRACE(seed_note());
      SCOPED_TRACE(std::string(solve ? "trsm" : "trmm") + " order " + std::to_string(s.order));
      const BLAS_Side side = BLAS_Right;
      const int m = s.lines, n = s.order;  // side Right: B is lines x order, row-major
      Mat<T> A = make_triangular<T>(n, BLAS_RowMajor, 1, BLAS_Upper, BLAS_NonUnit);
      const int ldb = n + 1;
      const int64_t stride = int64_t(m) * ldb + 2;  // gaps between the problems stay untouched
      std::vector<T> B(std::size_t(stride) * s.count, nan_value<T>());
      for (int p = 0; p < s.count; ++p)
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < n; ++j) B[p * stride + int64_t(i) * ldb + j] = random_value<T>();
      const T alpha = random_value<T>();
      Buffer dA(Mem::device, A.data.size() * sizeof(T)), dB(Mem::device, B.size() * sizeof(T));
      Buffer dinfo(Mem::device, s.count * sizeof(int));
      dA.write(0, A.data.data(), A.data.size() * sizeof(T));
      dB.write(0, B.data(), B.size() * sizeof(T));
      std::vector<int> info(s.count, kInfoPoison);
      dinfo.write(0, info.data(), info.size() * sizeof(int));
      auto f = solve ? &Api<T>::trsm_strided : &Api<T>::trmm_strided;
      ASSERT_EQ(f(BLAS_RowMajor, side, BLAS_Upper, BLAS_NoTrans, BLAS_NonUnit, m, n, &alpha,
                  reinterpret_cast<T *>(dA.get()), A.ld, 0, reinterpret_cast<T *>(dB.get()), ldb, stride, s.count,
                  reinterpret_cast<int *>(dinfo.get())),
                0);
      EXPECT_NO_CUDA_ERROR();
      std::vector<T> out(B.size());
      dB.read(0, out.data(), out.size() * sizeof(T));
      dinfo.read(0, info.data(), info.size() * sizeof(int));
      std::vector<T> a_after(A.data.size());
      dA.read(0, a_after.data(), a_after.size() * sizeof(T));
      ASSERT_EQ(std::memcmp(a_after.data(), A.data.data(), a_after.size() * sizeof(T)), 0) << "A written";
      // The same strided call on host copies (the host kernels): every problem compared.
      std::vector<T> expect = B;
      std::vector<int> host_info(s.count, kInfoPoison);
      ASSERT_EQ(f(BLAS_RowMajor, side, BLAS_Upper, BLAS_NoTrans, BLAS_NonUnit, m, n, &alpha, A.data.data(), A.ld, 0,
                  expect.data(), ldb, stride, s.count, host_info.data()),
                0);
      TriCase<T> c{solve, BLAS_RowMajor, side, BLAS_Upper, BLAS_NoTrans, BLAS_NonUnit, {}, {}, {}};
      std::vector<Mat<T>> outs;
      int bad = 0;
      for (int p = 0; p < s.count; ++p) {
        if (info[p] != 0 && ++bad <= 3) ADD_FAILURE() << "info[" << p << "] = " << info[p];
        for (int64_t k = 0; k < stride; ++k)  // the gap after the matrix and each row's padding
          if ((k >= int64_t(m) * ldb || k % ldb >= n) && !same_bits(out[p * stride + k], B[p * stride + k]) &&
              ++bad <= 3)
            ADD_FAILURE() << "padding or gap written, problem " << p << ", element " << k;
        Mat<T> got(m, n, BLAS_RowMajor, 1), want = got;
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < n; ++j)
            got(i, j) = out[p * stride + int64_t(i) * ldb + j], want(i, j) = expect[p * stride + int64_t(i) * ldb + j];
        if (!(rel_diff(got, want) <= compare_tol<T>(n)) && ++bad <= 3)
          ADD_FAILURE() << "problem " << p << " differs from the host kernels by " << rel_diff(got, want);
      }
      ASSERT_EQ(bad, 0);
      // Check a spread of problems (all of them for the smaller runs) against the reference.
      const int step = std::max(1, s.count / 400);
      for (int p = 0; p < s.count; p += step) {
        Mat<T> b0(m, n, BLAS_RowMajor, 1), b1 = b0;
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < n; ++j) b0(i, j) = B[p * stride + int64_t(i) * ldb + j], b1(i, j) = out[p * stride + int64_t(i) * ldb + j];
        c.groups.push_back(TriGroup<T>{m, n, 1, alpha});
        c.A.push_back(A), c.B.push_back(b0), outs.push_back(b1);
      }
      std::vector<Mat<T>> Bref;
      reference(c, Bref);
      for (std::size_t q = 0; q < outs.size(); ++q) {
        SCOPED_TRACE("sampled problem " + std::to_string(q * step));
        check_problem(c, c.groups[q], q, c.A[q], outs[q], Bref[q], false);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
}

}  // namespace
}  // namespace conf
