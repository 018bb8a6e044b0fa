// The device layer's own entry points, which the C API cannot reach on its own: the info
// channel through the chunked driver (with a stand-in routine whose kernel reports codes), and
// the gemm core on sub-blocks of operands already on the device (what blocked factorizations
// and recursive trsm/trmm call). Label gpu; without a device every test skips.
#include "../../src/cuda/lu/lu_tuning.hpp"
#include "../../src/cuda/qr/qr.hpp"
#include "../../src/device/device_run.hpp"
#include "../gpu_common.hpp"
#include "probe_kernel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace {

using conf::gpu::Buffer;
using conf::gpu::Mem;

// The stand-in routine: gemm's description and pointer handling, the probe kernel, info codes.
struct ProbeAdapter : bb::device::Adapter<bb::GemmCall<double>> {
  using Base = bb::device::Adapter<bb::GemmCall<double>>;
  static constexpr bool kNumericInfo = true;
  static constexpr bool kZeroesInfo = false;  // the probe kernel writes codes only
  static constexpr int kConfigs = 1, kInline = probe::kProbeInline;
  using Run = probe::ProbeRun;
  static Run make_run(const Group &d, const bb::device::Segment &s, const bb::device::ChunkPlace &place) {
    const bb::cuda::GemmSeg g = Base::make_run(d, s, place);
    Run r;
    r.problems = s.count, r.C = g.C;
    r.codes = place.codes ? place.codes + s.chunk_pos : nullptr;
    r.flags = s.group == flagless_group ? 0u : 1u;
    return r;
  }
  // Run flags (what a launch may choose its kernel by): bit 0 on every run but flagless_group's;
  // each launch's `common` (the bits all its runs have) is recorded.
  static inline int flagless_group = -1;
  static inline std::vector<uint32_t> launch_common;
  static uint32_t run_flags(const Run &r) { return r.flags; }
  static int plan_config(const Group &, const bb::device::Segment &, const Run &) { return 0; }
  static int64_t units(const Run &r, int) { return r.problems; }
  static int units_per_block(int) { return probe::kProbeThreads; }
  static int launch(bb::cuda::Session &s, int, const Run *host, const Run *device, const int32_t *block_first,
                    int count, int64_t units, uint32_t common) {
    launch_common.push_back(common);
    return probe::probe_launch(s, host, device, block_first, count, units);
  }
  static int vendor(bb::cuda::Session &s, const Run &) { return s.fail(BLAS_BATCHED_ERR_DEVICE); }
};

class DeviceLayer : public conf::gpu::GpuTest {};

// Groups of 2 x 2 problems, in this order: one where every problem fails (the first chunk
// holds more failures than come back with it, and its slot is reused while the call runs),
// one-problem groups (more than fit the segment limit of a chunk in the full run), a single
// problem, an evenly spaced group, shuffled pointers (array form) with NULL pointers; chunks
// of growing size, every phase on the thread team (the reduced run too).
TEST_F(DeviceLayer, InfoChannelThroughTheDriver) {
  const bool small = conf::gpu::reduced();
  std::vector<int> sizes = {small ? 2000 : 20000};
  for (int i = 0; i < 40000; ++i) sizes.push_back(1);
  const int shuffled = int(sizes.size()) + 2;
  sizes.push_back(1), sizes.push_back(small ? 3000 : 40000), sizes.push_back(small ? 8000 : 100000);
  const int G = int(sizes.size());
  const int64_t P = std::accumulate(sizes.begin(), sizes.end(), int64_t(0));
  ASSERT_GT(P, 3 * bb::device::kFirstChunk) << "at least three chunks: the first slot is reused";
  std::vector<int64_t> first(G + 1, 0);
  for (int g = 0; g < G; ++g) first[g + 1] = first[g] + sizes[g];

  std::mt19937_64 &rng = conf::rng();
  std::uniform_real_distribution<double> small_value(-0.9, 0.9);
  std::vector<double> host_c(std::size_t(P) * 4);
  std::vector<int> expect(P, 0);
  for (int64_t p = 0; p < P; ++p) {
    for (int e = 0; e < 4; ++e) host_c[p * 4 + e] = small_value(rng);
    const bool all_fail = p < first[1];
    if (all_fail || rng() % 50 == 0) {
      expect[p] = 1 + int(rng() % 500);
      host_c[p * 4] = expect[p];
    }
  }
  Buffer c(Mem::device, host_c.size() * sizeof(double)), ab(Mem::device, 4 * sizeof(double));
  c.write(0, host_c.data(), host_c.size() * sizeof(double));
  auto *cdev = reinterpret_cast<double *>(c.get());
  auto *abdev = reinterpret_cast<double *>(ab.get());

  std::vector<double *> A(P, abdev), B(P, abdev), C(P);
  for (int64_t p = 0; p < P; ++p) C[p] = cdev + p * 4;
  // The last group: its problems' matrices in shuffled order, and a few NULL pointers.
  std::shuffle(C.begin() + first[shuffled], C.begin() + first[shuffled + 1], rng);
  {  // a problem's code is its matrix's
    std::vector<int> by_matrix = expect;
    for (int64_t p = 0; p < P; ++p) expect[p] = by_matrix[(C[p] - cdev) / 4];
  }
  for (int i = 0; i < 20; ++i) {
    int64_t p;
    do p = first[shuffled] + int64_t(rng() % uint64_t(sizes[shuffled]));
    while (!A[p] || !C[p]);  // distinct problems: A's NULL would be reported before C's
    if (i % 2) C[p] = nullptr, expect[p] = -13;
    else A[p] = nullptr, expect[p] = -8;
  }


  std::vector<BLAS_Op> ops(G, BLAS_NoTrans);
  std::vector<int> two(G, 2);
  std::vector<double> alpha(G, 1.0), beta(G, 0.5);
  bb::GemmCall<double> call{};
  call.layout = BLAS_ColMajor, call.group_count = G, call.group_sizes = sizes.data();
  call.A_trans = ops.data(), call.B_trans = ops.data(), call.m = two.data(), call.n = two.data(), call.k = two.data();
  call.alpha = alpha.data(), call.beta = beta.data();
  call.A = A.data(), call.B = B.data(), call.C = C.data();
  call.A_ld = two.data(), call.B_ld = two.data(), call.C_ld = two.data();
  int device = 0;
  CHECK_CUDA(cudaGetDevice(&device));
  const int64_t expected_failures = std::count_if(expect.begin(), expect.end(), [](int64_t v) { return v != 0; });
  ASSERT_GT(expected_failures, 2 * bb::device::kInfoCopied);

  // The run flags: the launch holding a flagless group gets common without bit 0, every other
  // launch with it. A one-problem group in the middle of a chunk (its runs spread over the
  // team's threads: their tallies combined), then the first group (two chunks in the full run:
  // each chunk's tally starts afresh).
  const int middle_group = 1 + 10000;
  for (const bool with_info : {true, false}) {
    SCOPED_TRACE(with_info ? "info array" : "info NULL");
    ProbeAdapter::flagless_group = with_info ? middle_group : 0;
    ProbeAdapter::launch_common.clear();
    std::vector<int> info(P, 12345);
    call.info = with_info ? info.data() : nullptr;
    std::vector<bb::device::DeviceGroup> groups;
    for (int g = 0; g < G; ++g) groups.push_back({g, first[g], sizes[g], device});
    bb::device::DeviceRun<double, bb::GemmCall<double>, ProbeAdapter> run(call, groups, bb::Backend::native);
    ASSERT_EQ(run.prepare(), 0);
    ASSERT_EQ(run.start(), 0);
    double ms = 0;
    ASSERT_EQ(run.finish(ms), 0);
    EXPECT_EQ(run.failures(), expected_failures);
    if (with_info) {
      int64_t wrong = 0;
      for (int64_t p = 0; p < P; ++p)
        if (info[p] != expect[p] && wrong++ < 5) ADD_FAILURE() << "problem " << p << ": info " << info[p] << ", expected " << expect[p];
      EXPECT_EQ(wrong, 0);
    }
    std::vector<double> after(host_c.size());
    c.read(0, after.data(), after.size() * sizeof(double));
    EXPECT_TRUE(after == host_c) << "the probe only reads C";
    const std::vector<uint32_t> &common = ProbeAdapter::launch_common;
    const int64_t flagless = std::count(common.begin(), common.end(), 0u);
    const int64_t flagless_chunks = with_info ? 1 : (sizes[0] + bb::device::kFirstChunk - 1) / bb::device::kFirstChunk;
    EXPECT_EQ(flagless, flagless_chunks) << "launches whose common lacks the flagless group's bit";
    EXPECT_EQ(std::count(common.begin(), common.end(), 1u), int64_t(common.size()) - flagless)
        << "the other launches: bit 0, the one bit all their runs have";
    EXPECT_GE(common.size(), 3u) << "a launch per chunk";
    EXPECT_NO_CUDA_ERROR();
  }
  ProbeAdapter::flagless_group = -1;
  conf::count_checked("device info channel", long(P));
}

// The gemm core on sub-blocks (offsets into each matrix), strided, with device pointer arrays,
// and with arrays for A and B beside a strided C (potrf's diagonal products: the core builds
// pointer lists for cuBLAS), through the library's kernels and through cuBLAS: C(2:4, 1:5) =
// alpha A(1:3, 2:5) op(B block) + beta C(2:4, 1:5) inside 8 x 8 matrices; everything outside the
// block untouched.
template <class S>
class GemmCore : public conf::gpu::GpuTest {};
using CorePrecisions = ::testing::Types<float, double>;
template <class S>
constexpr bb::cuda::DevPrec core_prec = std::is_same_v<S, float> ? bb::cuda::DevPrec::r32 : bb::cuda::DevPrec::r64;
TYPED_TEST_SUITE(GemmCore, CorePrecisions);

TYPED_TEST(GemmCore, SubBlocksOnDeviceOperands) {
  using S = TypeParam;
  constexpr bb::cuda::DevPrec prec = core_prec<S>;
  const int P = conf::gpu::reduced() ? 40 : 3000, ld = 8, mat = ld * ld;
  const int m = 3, n = 5, k = 4;
  const int a_off = 1 + 2 * ld, c_off = 2 + 1 * ld;
  std::uniform_real_distribution<double> dist(-1, 1);
  enum Form { kStrided, kArrays, kMixed };
  for (const Form form : {kStrided, kArrays, kMixed})
    for (const bool tb : {false, true})
      for (const bool vendor : {false, true}) {
        const bool arrays = form == kArrays;
        SCOPED_TRACE(std::string(arrays ? "pointer arrays" : form == kMixed ? "arrays, C strided" : "strided") + (tb ? ", B^T" : ", B") +
                     (vendor ? ", cuBLAS allowed" : ", library kernels"));
        const int b_off = tb ? 3 + 0 * ld : 0 + 3 * ld;  // B block k x n, or n x k transposed
        std::vector<S> a(std::size_t(P) * mat), b(a.size()), c(a.size());
        for (auto *v : {&a, &b, &c})
          for (S &x : *v) x = S(dist(conf::rng()));
        Buffer da(Mem::device, a.size() * sizeof(S)), db(Mem::device, a.size() * sizeof(S)),
            dc(Mem::device, a.size() * sizeof(S));
        da.write(0, a.data(), a.size() * sizeof(S)), db.write(0, b.data(), b.size() * sizeof(S));
        dc.write(0, c.data(), c.size() * sizeof(S));
        auto *pa = reinterpret_cast<S *>(da.get()), *pb = reinterpret_cast<S *>(db.get()),
             *pc = reinterpret_cast<S *>(dc.get());
        // Array form: problem p uses matrix perm[p] (not evenly spaced); mixed: matrix p.
        std::vector<int> perm(P);
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), conf::rng());
        if (!arrays) std::iota(perm.begin(), perm.end(), 0);
        std::vector<S *> ha(P), hb(P), hc(P);
        for (int p = 0; p < P; ++p) ha[p] = pa + perm[p] * mat, hb[p] = pb + perm[p] * mat, hc[p] = pc + perm[p] * mat;
        Buffer ptrs(Mem::device, 3 * P * sizeof(S *));
        ptrs.write(0, ha.data(), P * sizeof(S *)), ptrs.write(P * sizeof(S *), hb.data(), P * sizeof(S *));
        ptrs.write(2 * P * sizeof(S *), hc.data(), P * sizeof(S *));

        bb::cuda::GemmSeg run;
        run.problems = P, run.m = m, run.n = n, run.k = k, run.ta = 0, run.tb = tb ? 1 : 0;
        run.read_ab = 1, run.read_c = 1;
        run.alpha[0] = 0.75, run.beta[0] = -0.5;
        bb::cuda::DevOperand *ops[3] = {&run.A, &run.B, &run.C};
        const int offs[3] = {a_off, b_off, c_off};
        S *bases[3] = {pa, pb, pc};
        for (int o = 0; o < 3; ++o) {
          ops[o]->ld = ld;
          // No NULL entry: with cuBLAS allowed, the run goes through pointer lists the core builds.
          if (arrays || (form == kMixed && o < 2)) ops[o]->p = reinterpret_cast<const char *>(ptrs.get()) + o * P * sizeof(S *), ops[o]->step = offs[o], ops[o]->array = true, ops[o]->maybe_null = false;
          else ops[o]->p = bases[o] + offs[o], ops[o]->step = mat, ops[o]->array = false;
        }
        int device = 0;
        CHECK_CUDA(cudaGetDevice(&device));
        {
          bb::cuda::Session s(device);
          ASSERT_EQ(s.status(), 0);
          const bool aligned = false;
          EXPECT_EQ(bb::cuda::gemm(s, prec, &run, &aligned, 1, vendor), 0);
          double ms = 0;
          EXPECT_EQ(s.finish(ms), 0);
        }
        std::vector<S> out(c.size());
        dc.read(0, out.data(), out.size() * sizeof(S));
        const double tol = (std::is_same_v<S, float> ? 1e-6 : 1e-14) * 4 * (k + 2);
        int64_t bad = 0;
        for (int q = 0; q < P; ++q) {  // q: matrix index; it belongs to problem p with perm[p] = q
          const S *A0 = a.data() + q * mat + a_off, *B0 = b.data() + q * mat + b_off, *C0 = c.data() + q * mat;
          for (int j = 0; j < ld; ++j)
            for (int i = 0; i < ld; ++i) {
              const S got = out[std::size_t(q) * mat + i + j * ld];
              const int bi = i - 2, bj = j - 1;
              if (bi < 0 || bi >= m || bj < 0 || bj >= n) {
                if (got != C0[i + j * ld] && bad++ < 5) ADD_FAILURE() << "matrix " << q << " (" << i << "," << j << ") outside the block changed";
                continue;
              }
              double want = -0.5 * double(C0[i + j * ld]), scale = std::abs(0.5 * double(C0[i + j * ld]));
              for (int l = 0; l < k; ++l) {
                const double bv = tb ? double(B0[bj + l * ld]) : double(B0[l + bj * ld]);
                want += 0.75 * double(A0[bi + l * ld]) * bv;
                scale += std::abs(0.75 * double(A0[bi + l * ld]) * bv);
              }
              if (std::abs(double(got) - want) > tol * (scale + 1e-300) && bad++ < 5)
                ADD_FAILURE() << "matrix " << q << " (" << i << "," << j << "): " << double(got) << " vs " << want;
            }
        }
        EXPECT_EQ(bad, 0);
        EXPECT_NO_CUDA_ERROR();
        conf::count_checked("device gemm core on sub-blocks", P);
      }
}

// The inverse in one call through the LU core (orders 5..32: the one-pass kernel,
// getrf_getri_register.cuh, where lu_one_pass_inverse takes it, else getrf's kernel then
// getri's, as r64 at 31 and 32), strided on device memory: regular problems must hold inv(A)
// (residual against I), with ipiv and info as the library's host getrf gives them; a singular
// problem (a zero column) getrf's factors.
template <class S>
class InverseCore : public conf::gpu::GpuTest {};
TYPED_TEST_SUITE(InverseCore, CorePrecisions);

TYPED_TEST(InverseCore, MatchesHostGetrfAndInverts) {
  using S = TypeParam;
  constexpr bb::cuda::DevPrec prec = core_prec<S>;
  const int P = conf::gpu::reduced() ? 12 : 300;
  std::uniform_real_distribution<double> dist(-1, 1);
  for (int n : {5, 8, 13, 16, 31, 32}) {
    SCOPED_TRACE("n " + std::to_string(n));
    const int K = n <= 8 ? 8 : n <= 16 ? 16 : 32;
    const int config = bb::cuda::lu_register_config(K), mat = n * n;
    // Diagonally dominant with the rows shuffled (pivoting undoes it); problem 3: a zero column.
    std::vector<S> a(std::size_t(P) * mat);
    for (int p = 0; p < P; ++p) {
      std::vector<int> rows(n);
      std::iota(rows.begin(), rows.end(), 0);
      std::shuffle(rows.begin(), rows.end(), conf::rng());
      const int zero_col = p == 3 ? int(conf::rng()() % unsigned(n)) : -1;
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
          a[std::size_t(p) * mat + rows[i] + j * n] = j == zero_col ? S(0) : S(dist(conf::rng()) + (i == j ? n + 2 : 0));
    }
    // The library's host getrf on a copy: ipiv, info, and the factors of the singular problem.
    std::vector<S> lu = a;
    std::vector<int> host_piv(std::size_t(P) * n), host_info(P);
    {
      std::vector<S *> pa(P);
      std::vector<int *> pp(P);
      for (int p = 0; p < P; ++p) pa[p] = lu.data() + std::size_t(p) * mat, pp[p] = host_piv.data() + std::size_t(p) * n;
      const int size = P;
      if constexpr (std::is_same_v<S, float>)
        BLAS_getrf_batched_r32(BLAS_ColMajor, &n, &n, pa.data(), &n, pp.data(), 1, &size, host_info.data());
      else
        BLAS_getrf_batched_r64(BLAS_ColMajor, &n, &n, pa.data(), &n, pp.data(), 1, &size, host_info.data());
    }
    Buffer da(Mem::device, a.size() * sizeof(S)), dp(Mem::device, std::size_t(P) * n * sizeof(int)),
        di(Mem::device, P * sizeof(int));
    da.write(0, a.data(), a.size() * sizeof(S));
    bb::cuda::FactorRun run;
    run.problems = P, run.m = n, run.n = n;
    run.A = {da.get(), mat, n, false};
    run.ipiv = {dp.get(), n, 1, false};
    run.info = reinterpret_cast<int *>(di.get());
    int device = 0;
    CHECK_CUDA(cudaGetDevice(&device));
    {
      bb::cuda::Session s(device);
      ASSERT_EQ(s.status(), 0);
      EXPECT_EQ(bb::cuda::lu_launch(s, prec, bb::cuda::LuRoutine::getrf_getri, config, &run, nullptr, nullptr, 1,
                                    bb::cuda::lu_units(run, config), 0),
                0);
      double ms = 0;
      EXPECT_EQ(s.finish(ms), 0);
    }
    std::vector<S> out(a.size());
    std::vector<int> piv(host_piv.size()), info(P);
    da.read(0, out.data(), out.size() * sizeof(S)), dp.read(0, piv.data(), piv.size() * sizeof(int));
    di.read(0, info.data(), info.size() * sizeof(int));
    EXPECT_EQ(piv, host_piv) << "ipiv";
    EXPECT_EQ(info, host_info) << "info";
    EXPECT_NE(host_info[3], 0) << "problem 3 is singular";
    const double eps = std::is_same_v<S, float> ? 6e-8 : 1.2e-16;
    int64_t bad = 0;
    for (int p = 0; p < P; ++p) {
      const S *A0 = a.data() + std::size_t(p) * mat, *X = out.data() + std::size_t(p) * mat;
      if (host_info[p]) {  // getrf's factors
        for (int e = 0; e < mat; ++e) {
          const S want = lu[std::size_t(p) * mat + e];
          if (std::abs(double(X[e]) - double(want)) > 100 * n * eps * (1 + std::abs(double(want))) && bad++ < 5)
            ADD_FAILURE() << "singular problem " << p << " element " << e << ": " << double(X[e]) << " vs " << double(want);
        }
        continue;
      }
      for (int j = 0; j < n; ++j)  // (A X)(i, j) against I
        for (int i = 0; i < n; ++i) {
          double sum = 0, scale = 0;
          for (int l = 0; l < n; ++l) sum += double(A0[i + l * n]) * double(X[l + j * n]), scale += std::abs(double(A0[i + l * n]) * double(X[l + j * n]));
          if (std::abs(sum - (i == j ? 1.0 : 0.0)) > 10 * n * eps * (scale + 1) && bad++ < 5)
            ADD_FAILURE() << "problem " << p << " (A X)(" << i << "," << j << ") = " << sum;
        }
    }
    EXPECT_EQ(bad, 0);
    EXPECT_NO_CUDA_ERROR();
    conf::count_checked("inverse core (one pass or getrf then getri)", P);
  }
}

// The blocked geqrf called directly (geqrf_blocked.cu), so that no dispatch rule can route the
// problems to the unblocked kernels unseen: strided and pointer-array operands (problems in
// reverse order), both layouts, a tall and a wide shape with a partial last panel, the
// workspace limited to a few problems per batch (sub-batches from the second on); R, V and
// tau against the library's host geqrf, ld padding (NaN) untouched.
template <class S>
class GeqrfBlockedCore : public conf::gpu::GpuTest {};
TYPED_TEST_SUITE(GeqrfBlockedCore, CorePrecisions);

TYPED_TEST(GeqrfBlockedCore, MatchesHostGeqrf) {
  using S = TypeParam;
  constexpr bb::cuda::DevPrec prec = core_prec<S>;
  const int P = conf::gpu::reduced() ? 5 : 23;
  std::uniform_real_distribution<double> dist(-1, 1);
  struct Case {
    BLAS_Layout layout;
    int m, n;
    bool arrays;
  };
  for (const Case c : {Case{BLAS_ColMajor, 100, 70, false}, Case{BLAS_RowMajor, 70, 100, true},
                       Case{BLAS_ColMajor, 90, 45, true}, Case{BLAS_RowMajor, 130, 81, false}}) {
    const bool col = c.layout == BLAS_ColMajor;
    SCOPED_TRACE(std::string(col ? "col" : "row") + "-major " + std::to_string(c.m) + " x " + std::to_string(c.n) +
                 (c.arrays ? ", pointer arrays" : ", strided"));
    const int lines = col ? c.n : c.m, len = col ? c.m : c.n, ld = len + 3, k = std::min(c.m, c.n);
    const std::size_t mat = std::size_t(ld) * lines;
    std::vector<S> a(std::size_t(P) * mat, std::numeric_limits<S>::quiet_NaN());  // NaN: the ld padding
    for (int p = 0; p < P; ++p)
      for (int l = 0; l < lines; ++l)
        for (int e = 0; e < len; ++e) a[std::size_t(p) * mat + std::size_t(l) * ld + e] = S(dist(conf::rng()));
    // The host's geqrf on a copy.
    std::vector<S> want = a, want_tau(std::size_t(P) * k);
    {
      std::vector<S *> pa(P), pt(P);
      for (int p = 0; p < P; ++p) pa[p] = want.data() + std::size_t(p) * mat, pt[p] = want_tau.data() + std::size_t(p) * k;
      std::vector<int> info(P);
      const int size = P;
      int rc;
      if constexpr (std::is_same_v<S, float>)
        rc = BLAS_geqrf_batched_r32(c.layout, &c.m, &c.n, pa.data(), &ld, pt.data(), 1, &size, info.data());
      else
        rc = BLAS_geqrf_batched_r64(c.layout, &c.m, &c.n, pa.data(), &ld, pt.data(), 1, &size, info.data());
      ASSERT_EQ(rc, 0);
    }
    Buffer da(Mem::device, a.size() * sizeof(S)), dt(Mem::device, want_tau.size() * sizeof(S)),
        arrays(Mem::device, 2 * std::size_t(P) * sizeof(S *));
    da.write(0, a.data(), a.size() * sizeof(S));
    bb::cuda::FactorRun run;
    run.problems = P, run.m = c.m, run.n = c.n, run.row_major = !col;
    if (c.arrays) {  // problem p at slot P - 1 - p
      std::vector<S *> list(2 * std::size_t(P));
      for (int p = 0; p < P; ++p) {
        list[std::size_t(P - 1 - p)] = reinterpret_cast<S *>(da.get()) + std::size_t(p) * mat;
        list[std::size_t(2 * P - 1 - p)] = reinterpret_cast<S *>(dt.get()) + std::size_t(p) * k;
      }
      arrays.write(0, list.data(), list.size() * sizeof(S *));
      run.A = {arrays.get(), 0, ld, true};
      run.tau = {arrays.get() + std::size_t(P) * sizeof(S *), 0, 1, true};
    } else {
      run.A = {da.get(), int64_t(mat), ld, false};
      run.tau = {dt.get(), k, 1, false};
    }
    CHECK_CUDA(cudaDeviceSynchronize());
    // A few problems per batch: per problem V (m x 32), T (32 x 32), W and W2 (32 x n).
    const int64_t per_problem = (int64_t(c.m) * 32 + 32 * 32 + 2 * 32 * int64_t(c.n)) * int64_t(sizeof(S));
    int device = 0;
    CHECK_CUDA(cudaGetDevice(&device));
    {
      bb::cuda::Session s(device);
      ASSERT_EQ(s.status(), 0);
      EXPECT_EQ(bb::cuda::geqrf_blocked(s, prec, run, false, 4 * per_problem + 64), 0);
      double ms = 0;
      EXPECT_EQ(s.finish(ms), 0);
    }
    std::vector<S> out(a.size()), tau(want_tau.size());
    da.read(0, out.data(), out.size() * sizeof(S)), dt.read(0, tau.data(), tau.size() * sizeof(S));
    const double eps = std::is_same_v<S, float> ? 6e-8 : 1.2e-16, tol = 30.0 * c.m * eps;
    int64_t bad = 0;
    for (int p = 0; p < P; ++p) {
      for (std::size_t e = 0; e < mat; ++e) {
        const std::size_t at = std::size_t(p) * mat + e;
        const bool padding = int(e % ld) >= len;
        if (padding) {
          if (!std::isnan(out[at]) && bad++ < 5) ADD_FAILURE() << "problem " << p << ": ld padding written at " << e;
        } else if (!(std::abs(double(out[at]) - double(want[at])) <= tol * (1 + std::abs(double(want[at])))) && bad++ < 5) {
          ADD_FAILURE() << "problem " << p << " element " << e << ": " << double(out[at]) << " vs " << double(want[at]);
        }
      }
      for (int j = 0; j < k; ++j) {
        const double got = tau[std::size_t(p) * k + j], exp = want_tau[std::size_t(p) * k + j];
        if (!(std::abs(got - exp) <= tol) && bad++ < 5) ADD_FAILURE() << "problem " << p << " tau " << j << ": " << got << " vs " << exp;
      }
    }
    EXPECT_EQ(bad, 0);
    EXPECT_NO_CUDA_ERROR();
    conf::count_checked("blocked geqrf core", P);
  }
}

}  // namespace
