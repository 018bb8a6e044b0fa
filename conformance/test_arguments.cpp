// Bad arguments. Per routine and precision, each invalid per-group argument, made invalid in
// the middle one of three groups, must give exactly that group's problems info = -k, leave
// every byte of that group's data unchanged, and compute the other groups as a clean call
// does. A bad pointer of one problem (NULL, or a getri pivot out of range) invalidates that
// problem alone: it gets -k and stays untouched, every other problem is computed as in a
// clean call. Each invalid call-level argument must return -k and change nothing at all.
#include "common.hpp"

#include <climits>
#include <functional>

namespace conf {
namespace {

constexpr int kGroups = 3;
constexpr int kCap = 96;  // elements allocated per matrix: room for every ld used here

// Routine-independent part: per-problem buffers and the group structure.
template <class T>
struct Harness {
  BLAS_Layout layout = BLAS_ColMajor;
  std::vector<int> sizes{2, 3, 2};
  int null_pos = 0;  // argument passed as NULL (call-level tests)
  std::vector<std::vector<T>> mats[3];  // up to three matrix operands per problem
  std::vector<std::vector<int>> ipiv;
  std::vector<T *> ptr[3];
  std::vector<int *> pivp;
  std::vector<int> info;
  int total() const { return sizes[0] + sizes[1] + sizes[2]; }
  int first(int g) const { return g == 0 ? 0 : g == 1 ? sizes[0] : sizes[0] + sizes[1]; }
  void allocate(int operands, bool with_ipiv, bool square_ipiv_of = false) {
    for (int o = 0; o < operands; ++o) {
      mats[o].assign(total(), std::vector<T>(kCap));
      for (auto &v : mats[o])
        for (auto &x : v) x = random_value<T>();
      ptr[o].clear();
      for (auto &v : mats[o]) ptr[o].push_back(v.data());
    }
    if (with_ipiv) {
      ipiv.assign(total(), std::vector<int>(8, 1));
      pivp.clear();
      for (auto &v : ipiv) pivp.push_back(v.data());
    }
    info.assign(total(), -777);
  }
  template <class P> P *arg(int pos, P *p) const { return pos == null_pos ? nullptr : p; }
  // Bytes of every buffer of group g (of its problem `only`, when given).
  std::vector<unsigned char> snapshot(int g, int only = -1) const {
    std::vector<unsigned char> s;
    for (int p = first(g); p < first(g) + sizes[g]; ++p) {
      if (only >= 0 && p != first(g) + only) continue;
      for (const auto &m : mats)
        if (!m.empty()) s.insert(s.end(), (const unsigned char *)m[p].data(), (const unsigned char *)(m[p].data() + kCap));
      if (!ipiv.empty()) s.insert(s.end(), (const unsigned char *)ipiv[p].data(), (const unsigned char *)(ipiv[p].data() + 8));
    }
    return s;
  }
  std::vector<unsigned char> snapshot_all() const {
    std::vector<unsigned char> s;
    for (int g = 0; g < kGroups; ++g) {
      auto x = snapshot(g);
      s.insert(s.end(), x.begin(), x.end());
    }
    s.insert(s.end(), (const unsigned char *)info.data(), (const unsigned char *)(info.data() + info.size()));
    return s;
  }
};

// One routine's valid call over three groups, and how to spoil each of its arguments.
template <class T>
struct Routine {
  std::string name;
  std::function<void(Harness<T> &)> setup;                 // valid parameters and buffers
  std::function<int(Harness<T> &)> call;                   // invokes the entry point
  struct Error {
    int pos;
    std::function<void(Harness<T> &, int g)> spoil;
    int problem = -1;  // a per-problem error: the one problem of the group it spoils
  };
  std::vector<Error> group_errors;
  std::vector<int> null_args;                              // call-level arguments that must not be NULL
  int pos_group_count, pos_group_sizes;
};

// Invalid enum values, near the valid ones and far outside any enum's range (reading those
// through an enum type without a fixed underlying type is undefined behaviour in C++; the
// sanitizer build catches the library doing so). bad_enum stores the current one.
constexpr int kBadEnumValues[] = {0, 100, 103, 999, -1, INT_MIN, INT_MAX};
int bad_enum_value = 0;
template <class T, class V> void bad_enum(std::vector<V> &v, int g) { v[g] = static_cast<V>(bad_enum_value); }

template <class T>
std::vector<Routine<T>> routines() {
  std::vector<Routine<T>> r;
  // Parameters live in shared_ptr'd structs captured by the lambdas.
  {  // gemm: m x k times k x n, rectangular so that row/column-major ld rules differ
    struct P { std::vector<BLAS_Op> ta, tb; std::vector<int> m, n, k, lda, ldb, ldc; std::vector<T> al, be; };
    auto p = std::make_shared<P>();
    Routine<T> x;
    x.name = "gemm";
    x.setup = [p](Harness<T> &h) {
      bool row = h.layout == BLAS_RowMajor;
      *p = P{{BLAS_NoTrans, BLAS_Trans, BLAS_ConjTrans}, {BLAS_NoTrans, BLAS_ConjTrans, BLAS_Trans},
             {3, 4, 2}, {4, 2, 5}, {5, 3, 4}, {}, {}, {}, {}, {}};
      for (int g = 0; g < kGroups; ++g) {
        bool an = p->ta[g] == BLAS_NoTrans, bn = p->tb[g] == BLAS_NoTrans;
        int ar = an ? p->m[g] : p->k[g], ac = an ? p->k[g] : p->m[g];
        int br = bn ? p->k[g] : p->n[g], bc = bn ? p->n[g] : p->k[g];
        p->lda.push_back(row ? ac : ar), p->ldb.push_back(row ? bc : br);
        p->ldc.push_back(row ? p->n[g] : p->m[g]);
        p->al.push_back(random_value<T>()), p->be.push_back(random_value<T>());
      }
      h.allocate(3, false);
    };
    x.call = [p](Harness<T> &h) {
      return Api<T>::gemm(h.layout, h.arg(2, p->ta.data()), h.arg(3, p->tb.data()), h.arg(4, p->m.data()),
                          h.arg(5, p->n.data()), h.arg(6, p->k.data()), h.arg(7, p->al.data()),
                          h.arg(8, h.ptr[0].data()), h.arg(9, p->lda.data()), h.arg(10, h.ptr[1].data()),
                          h.arg(11, p->ldb.data()), h.arg(12, p->be.data()), h.arg(13, h.ptr[2].data()),
                          h.arg(14, p->ldc.data()), kGroups, h.arg(16, h.sizes.data()), h.info.data());
    };
    x.group_errors = {{2, [p](Harness<T> &, int g) { bad_enum<T>(p->ta, g); }},
                      {3, [p](Harness<T> &, int g) { bad_enum<T>(p->tb, g); }},
                      {4, [p](Harness<T> &, int g) { p->m[g] = -1; }},
                      {5, [p](Harness<T> &, int g) { p->n[g] = -1; }},
                      {6, [p](Harness<T> &, int g) { p->k[g] = -1; }},
                      {8, [](Harness<T> &h, int g) { h.ptr[0][h.first(g) + 1] = nullptr; }, 1},
                      {9, [p](Harness<T> &, int g) { p->lda[g] -= 1; }},
                      {10, [](Harness<T> &h, int g) { h.ptr[1][h.first(g)] = nullptr; }, 0},
                      {11, [p](Harness<T> &, int g) { p->ldb[g] -= 1; }},
                      {13, [](Harness<T> &h, int g) { h.ptr[2][h.first(g) + 2] = nullptr; }, 2},
                      {14, [p](Harness<T> &, int g) { p->ldc[g] -= 1; }}};
    x.null_args = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 16};
    x.pos_group_count = 15, x.pos_group_sizes = 16;
    r.push_back(x);
  }
  for (bool solve : {true, false}) {  // trsm, trmm: m x n B, A of order m (left) or n (right)
    struct P { std::vector<BLAS_Side> side; std::vector<BLAS_Uplo> uplo; std::vector<BLAS_Op> ta;
               std::vector<BLAS_Diag> diag; std::vector<int> m, n, lda, ldb; std::vector<T> al; };
    auto p = std::make_shared<P>();
    Routine<T> x;
    x.name = solve ? "trsm" : "trmm";
    x.setup = [p](Harness<T> &h) {
      bool row = h.layout == BLAS_RowMajor;
      *p = P{{BLAS_Left, BLAS_Right, BLAS_Left}, {BLAS_Upper, BLAS_Lower, BLAS_Lower},
             {BLAS_NoTrans, BLAS_ConjTrans, BLAS_Trans}, {BLAS_NonUnit, BLAS_Unit, BLAS_NonUnit},
             {3, 4, 2}, {5, 2, 4}, {}, {}, {}};
      for (int g = 0; g < kGroups; ++g) {
        int order = p->side[g] == BLAS_Left ? p->m[g] : p->n[g];
        p->lda.push_back(order), p->ldb.push_back(row ? p->n[g] : p->m[g]);
        p->al.push_back(random_value<T>());
      }
      h.allocate(2, false);
      for (auto &a : h.mats[0])  // keep the triangular solves well conditioned
        for (int i = 0; i < 8; ++i) a[i * 9 < kCap ? i * 9 : 0] = T(4);
    };
    x.call = [p, solve](Harness<T> &h) {
      auto f = solve ? Api<T>::trsm : Api<T>::trmm;
      return f(h.layout, h.arg(2, p->side.data()), h.arg(3, p->uplo.data()), h.arg(4, p->ta.data()),
               h.arg(5, p->diag.data()), h.arg(6, p->m.data()), h.arg(7, p->n.data()), h.arg(8, p->al.data()),
               h.arg(9, h.ptr[0].data()), h.arg(10, p->lda.data()), h.arg(11, h.ptr[1].data()),
               h.arg(12, p->ldb.data()), kGroups, h.arg(14, h.sizes.data()), h.info.data());
    };
    x.group_errors = {{2, [p](Harness<T> &, int g) { bad_enum<T>(p->side, g); }},
                      {3, [p](Harness<T> &, int g) { bad_enum<T>(p->uplo, g); }},
                      {4, [p](Harness<T> &, int g) { bad_enum<T>(p->ta, g); }},
                      {5, [p](Harness<T> &, int g) { bad_enum<T>(p->diag, g); }},
                      {6, [p](Harness<T> &, int g) { p->m[g] = -2; }},
                      {7, [p](Harness<T> &, int g) { p->n[g] = -1; }},
                      {9, [](Harness<T> &h, int g) { h.ptr[0][h.first(g)] = nullptr; }, 0},
                      {10, [p](Harness<T> &, int g) { p->lda[g] -= 1; }},
                      {11, [](Harness<T> &h, int g) { h.ptr[1][h.first(g) + 1] = nullptr; }, 1},
                      {12, [p](Harness<T> &, int g) { p->ldb[g] -= 1; }}};
    x.null_args = {2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14};
    x.pos_group_count = 13, x.pos_group_sizes = 14;
    r.push_back(x);
  }
  {  // getrf
    struct P { std::vector<int> m, n, lda; };
    auto p = std::make_shared<P>();
    Routine<T> x;
    x.name = "getrf";
    x.setup = [p](Harness<T> &h) {
      bool row = h.layout == BLAS_RowMajor;
      *p = P{{3, 5, 4}, {5, 2, 4}, {}};
      for (int g = 0; g < kGroups; ++g) p->lda.push_back(row ? p->n[g] : p->m[g]);
      h.allocate(1, true);
    };
    x.call = [p](Harness<T> &h) {
      return Api<T>::getrf(h.layout, h.arg(2, p->m.data()), h.arg(3, p->n.data()), h.arg(4, h.ptr[0].data()),
                           h.arg(5, p->lda.data()), h.arg(6, h.pivp.data()), kGroups, h.arg(8, h.sizes.data()),
                           h.info.data());
    };
    x.group_errors = {{2, [p](Harness<T> &, int g) { p->m[g] = -1; }},
                      {3, [p](Harness<T> &, int g) { p->n[g] = -3; }},
                      {4, [](Harness<T> &h, int g) { h.ptr[0][h.first(g) + 1] = nullptr; }, 1},
                      {5, [p](Harness<T> &, int g) { p->lda[g] -= 1; }},
                      {6, [](Harness<T> &h, int g) { h.pivp[h.first(g)] = nullptr; }, 0}};
    x.null_args = {2, 3, 4, 5, 6, 8};
    x.pos_group_count = 7, x.pos_group_sizes = 8;
    r.push_back(x);
  }
  {  // getri: ipiv must be a valid pivot sequence
    struct P { std::vector<int> n, lda; };
    auto p = std::make_shared<P>();
    Routine<T> x;
    x.name = "getri";
    x.setup = [p](Harness<T> &h) {
      *p = P{{3, 5, 4}, {3, 5, 4}};
      h.allocate(1, true);
      for (int g = 0; g < kGroups; ++g)
        for (int q = h.first(g); q < h.first(g) + h.sizes[g]; ++q) {
          for (int i = 0; i < p->n[g]; ++i) {
            h.ipiv[q][i] = random_int(i + 1, p->n[g]);
            h.mats[0][q][i + i * p->n[g]] = T(8);  // a safely invertible U
          }
        }
    };
    x.call = [p](Harness<T> &h) {
      return Api<T>::getri(h.layout, h.arg(2, p->n.data()), h.arg(3, h.ptr[0].data()), h.arg(4, p->lda.data()),
                           h.arg(5, h.pivp.data()), kGroups, h.arg(7, h.sizes.data()), h.info.data());
    };
    x.group_errors = {{2, [p](Harness<T> &, int g) { p->n[g] = -1; }},
                      {3, [](Harness<T> &h, int g) { h.ptr[0][h.first(g) + 2] = nullptr; }, 2},
                      {4, [p](Harness<T> &, int g) { p->lda[g] -= 1; }},
                      {5, [](Harness<T> &h, int g) { h.pivp[h.first(g)] = nullptr; }, 0},
                      {5, [p](Harness<T> &h, int g) { h.ipiv[h.first(g) + 1][1] = p->n[g] + 1; }, 1},
                      {5, [](Harness<T> &h, int g) { h.ipiv[h.first(g)][0] = 0; }, 0}};
    x.null_args = {2, 3, 4, 5, 7};
    x.pos_group_count = 6, x.pos_group_sizes = 7;
    r.push_back(x);
  }
  {  // potrf
    struct P { std::vector<BLAS_Uplo> uplo; std::vector<int> n, lda; };
    auto p = std::make_shared<P>();
    Routine<T> x;
    x.name = "potrf";
    x.setup = [p](Harness<T> &h) {
      *p = P{{BLAS_Lower, BLAS_Upper, BLAS_Lower}, {3, 5, 4}, {3, 5, 4}};
      h.allocate(1, false);
      for (int g = 0; g < kGroups; ++g)  // diagonally dominant Hermitian: positive definite
        for (int q = h.first(g); q < h.first(g) + h.sizes[g]; ++q) {
          int n = p->n[g];
          auto &a = h.mats[0][q];
          for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i)
              a[i + j * n] = i == j ? T(typename traits<T>::real(2 * n)) : i < j ? a[i + j * n] : bb::conj(a[j + i * n]);
        }
    };
    x.call = [p](Harness<T> &h) {
      return Api<T>::potrf(h.layout, h.arg(2, p->uplo.data()), h.arg(3, p->n.data()), h.arg(4, h.ptr[0].data()),
                           h.arg(5, p->lda.data()), kGroups, h.arg(7, h.sizes.data()), h.info.data());
    };
    x.group_errors = {{2, [p](Harness<T> &, int g) { bad_enum<T>(p->uplo, g); }},
                      {3, [p](Harness<T> &, int g) { p->n[g] = -1; }},
                      {4, [](Harness<T> &h, int g) { h.ptr[0][h.first(g)] = nullptr; }, 0},
                      {5, [p](Harness<T> &, int g) { p->lda[g] -= 1; }}};
    x.null_args = {2, 3, 4, 5, 7};
    x.pos_group_count = 6, x.pos_group_sizes = 7;
    r.push_back(x);
  }
  {  // geqrf
    struct P { std::vector<int> m, n, lda; };
    auto p = std::make_shared<P>();
    Routine<T> x;
    x.name = "geqrf";
    x.setup = [p](Harness<T> &h) {
      bool row = h.layout == BLAS_RowMajor;
      *p = P{{3, 5, 4}, {5, 2, 4}, {}};
      for (int g = 0; g < kGroups; ++g) p->lda.push_back(row ? p->n[g] : p->m[g]);
      h.allocate(2, false);  // operand 1 holds tau
    };
    x.call = [p](Harness<T> &h) {
      return Api<T>::geqrf(h.layout, h.arg(2, p->m.data()), h.arg(3, p->n.data()), h.arg(4, h.ptr[0].data()),
                           h.arg(5, p->lda.data()), h.arg(6, h.ptr[1].data()), kGroups, h.arg(8, h.sizes.data()),
                           h.info.data());
    };
    x.group_errors = {{2, [p](Harness<T> &, int g) { p->m[g] = -1; }},
                      {3, [p](Harness<T> &, int g) { p->n[g] = -1; }},
                      {4, [](Harness<T> &h, int g) { h.ptr[0][h.first(g) + 1] = nullptr; }, 1},
                      {5, [p](Harness<T> &, int g) { p->lda[g] -= 1; }},
                      {6, [](Harness<T> &h, int g) { h.ptr[1][h.first(g)] = nullptr; }, 0}};
    x.null_args = {2, 3, 4, 5, 6, 8};
    x.pos_group_count = 7, x.pos_group_sizes = 8;
    r.push_back(x);
  }
  return r;
}

template <class T>
class Arguments : public ::testing::Test {};
TYPED_TEST_SUITE(Arguments, AllPrecisions, PrecisionNames);

// A copy of a harness whose pointer arrays point into its own buffers.
template <class T>
void rebind(Harness<T> &h) {
  for (int o = 0; o < 3; ++o) {
    h.ptr[o].clear();
    for (auto &v : h.mats[o]) h.ptr[o].push_back(v.data());
  }
  h.pivp.clear();
  for (auto &v : h.ipiv) h.pivp.push_back(v.data());
}

template <class T>
void check_group_errors(BLAS_Layout layout) {
  SCOPED_TRACE(seed_note());
  long checked = 0;
  for (Routine<T> &r : routines<T>()) {
    for (std::size_t e = 0; e < r.group_errors.size(); ++e)
    for (int bad : kBadEnumValues) {
      bad_enum_value = bad;
      const int pos = r.group_errors[e].pos, only = r.group_errors[e].problem;
      SCOPED_TRACE(r.name + " layout " + layout_name(layout) + " argument " + std::to_string(pos) +
                   " (invalid enum value " + std::to_string(bad) + ")");
      Harness<T> h;
      h.layout = layout;
      r.setup(h);
      Harness<T> clean = h;  // the same call with every argument valid
      rebind(clean);
      ASSERT_EQ(r.call(clean), 0) << "the valid call fails";
      r.group_errors[e].spoil(h, 1);
      auto before = h.snapshot(1, only);
      int rc = r.call(h);
      auto skipped = [&](int p) { return only >= 0 ? p == h.first(1) + only : p >= h.first(1) && p < h.first(2); };
      EXPECT_EQ(rc, only >= 0 ? 1 : h.sizes[1]) << "return value counts the skipped problems";
      for (int p = 0; p < h.total(); ++p) EXPECT_EQ(h.info[p], skipped(p) ? -pos : 0) << "problem " << p;
      EXPECT_TRUE(h.snapshot(1, only) == before) << "the skipped problems' data changed";
      EXPECT_TRUE(h.snapshot(0) == clean.snapshot(0) && h.snapshot(2) == clean.snapshot(2))
          << "valid groups differ from the clean call";
      for (int q = 0; q < h.sizes[1] && only >= 0; ++q)
        if (q != only) EXPECT_TRUE(h.snapshot(1, q) == clean.snapshot(1, q)) << "problem " << q << " of the group differs from the clean call";
      ++checked;
    }
  }
  count_checked((std::string("bad per-group arguments ") + traits<T>::name()).c_str(), checked);
}

template <class T>
void check_call_errors(BLAS_Layout layout) {
  SCOPED_TRACE(seed_note());
  long checked = 0;
  for (Routine<T> &r : routines<T>()) {
    auto expect_untouched = [&](Harness<T> &h, int expected, const std::string &what) {
      auto before = h.snapshot_all();
      EXPECT_EQ(r.call(h), expected) << r.name << ": " << what;
      EXPECT_TRUE(h.snapshot_all() == before) << r.name << ": " << what << " changed data or info";
      ++checked;
    };
    for (int pos : r.null_args) {
      Harness<T> h;
      h.layout = layout;
      r.setup(h);
      h.null_pos = pos;
      expect_untouched(h, -pos, "NULL argument " + std::to_string(pos));
    }
    for (int bad : kBadEnumValues) {
      Harness<T> h;
      r.setup(h);
      h.layout = static_cast<BLAS_Layout>(bad);
      expect_untouched(h, -1, "invalid layout " + std::to_string(bad));
    }
    {
      Harness<T> h;
      h.layout = layout;
      r.setup(h);
      h.sizes[2] = -1;
      expect_untouched(h, -r.pos_group_sizes, "negative group size");
    }
    {
      // A NULL matrix pointer in a group and an invalid layout: the call-level error wins.
      Harness<T> h;
      r.setup(h);
      h.layout = BLAS_Layout(7);
      h.ptr[0][0] = nullptr;
      expect_untouched(h, -1, "invalid layout with a bad group");
    }
    {
      Harness<T> h;
      h.layout = layout;
      r.setup(h);
      setenv("BLAS_BATCHED_BACKEND", "no-such-backend", 1);
      expect_untouched(h, BLAS_BATCHED_ERR_BACKEND, "unknown backend");
      unsetenv("BLAS_BATCHED_BACKEND");
      // The call record names the cause (it once printed an empty backend).
      EXPECT_NE(std::string(blas_batched_last_call()).find("backend invalid BLAS_BATCHED_BACKEND"), std::string::npos)
          << blas_batched_last_call();
    }
  }
  count_checked((std::string("bad call-level arguments ") + traits<T>::name()).c_str(), checked);
}

TYPED_TEST(Arguments, PerGroupColumnMajor) { check_group_errors<typename TypeParam::type>(BLAS_ColMajor); }
TYPED_TEST(Arguments, PerGroupRowMajor) { check_group_errors<typename TypeParam::type>(BLAS_RowMajor); }
TYPED_TEST(Arguments, CallLevel) { check_call_errors<typename TypeParam::type>(BLAS_ColMajor); }

// group_count < 0 is rejected, group_count = 0 and empty groups are successes, and
// zero-sized problems succeed without touching anything (checked on r64 and c32; the
// driver is precision-independent).
TEST(ArgumentsPlain, GroupCountAndEmptyGroups) {
  double a = 1, *A[1] = {&a};
  int ld = 1, n0 = 0, n1 = 1, info[1] = {-5};
  BLAS_Uplo lo = BLAS_Lower;
  EXPECT_EQ(BLAS_potrf_batched_r64(BLAS_ColMajor, &lo, &n1, A, &ld, -1, &n1, info), -6);
  EXPECT_EQ(info[0], -5);
  EXPECT_EQ(BLAS_potrf_batched_r64(BLAS_ColMajor, nullptr, nullptr, nullptr, nullptr, 0, nullptr, nullptr), 0);
  int zero_size = 0;
  EXPECT_EQ(BLAS_potrf_batched_r64(BLAS_ColMajor, &lo, &n1, nullptr, &ld, 1, &zero_size, info), 0);
  // A zero-sized problem: success, nothing read or written, info = 0.
  double untouched = NAN, *U[1] = {&untouched};
  EXPECT_EQ(BLAS_potrf_batched_r64(BLAS_ColMajor, &lo, &n0, U, &ld, 1, &n1, info), 0);
  EXPECT_EQ(info[0], 0);
  EXPECT_TRUE(std::isnan(untouched));
  // info may be NULL: the return value still counts failures.
  double neg = -1, *N[1] = {&neg};
  EXPECT_EQ(BLAS_potrf_batched_r64(BLAS_ColMajor, &lo, &n1, N, &ld, 1, &n1, nullptr), 1);
  int bad_ld = 0;
  EXPECT_EQ(BLAS_potrf_batched_r64(BLAS_ColMajor, &lo, &n1, A, &bad_ld, 1, &n1, nullptr), 1);
}

// blas_batched_last_call reports where each group ran (the routing the SPEC promises).
TEST(ArgumentsPlain, LastCallReportsRouting) {
  std::vector<double> a(4 * 4 * 3 + 64 * 64, 1.0);
  for (int i = 0; i < 4; ++i) a[i * 5] = 5;
  for (int i = 0; i < 64; ++i) a[48 + i * 65] = 100;
  double *A[2] = {a.data(), a.data() + 48};
  int n[2] = {4, 64}, sizes[2] = {1, 1}, info[2];
  BLAS_Uplo lo[2] = {BLAS_Lower, BLAS_Lower};
  ASSERT_EQ(BLAS_potrf_batched_r64(BLAS_ColMajor, lo, n, A, n, 2, sizes, info), 0);
  std::string s = blas_batched_last_call();
  EXPECT_NE(s.find("potrf_batched_r64"), std::string::npos) << s;
  EXPECT_NE(s.find("group 0: 1 problem(s) on host/kernel"), std::string::npos) << s;
  EXPECT_NE(s.find("group 1: 1 problem(s) on host/openblas"), std::string::npos) << s;
}

}  // namespace
}  // namespace conf
