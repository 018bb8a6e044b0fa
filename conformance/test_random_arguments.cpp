// Randomized arguments. Every call of the seven routines draws each argument from valid and
// invalid values (layout, per-group enums, dimensions, leading dimensions, NULL arrays, NULL
// entries of pointer arrays, group_count, group_sizes, info, getri pivots). An oracle written
// from SPEC.md sections 2-4 predicts the return value and info, and which data may change:
// nothing at all for a call-level error, nothing of an invalid group, and for a valid group
// exactly what a clean call of that group alone gives (same backend), with the ld padding, the
// input operands and a guard after every buffer unchanged. Matrices are tiny (0..4) and the
// valid problems numerically safe (diagonally dominant, Hermitian positive definite), so a
// valid problem's info is 0. Each test reseeds from BB_TEST_SEED and its own name, so one test
// reproduces alone: BB_TEST_SEED=<seed> conformance_random_arguments --gtest_filter=<test>.
#include "common.hpp"

#include <climits>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>

namespace conf {
namespace {

// ---- how a routine's arguments look ---------------------------------------------------
enum class Kind { Layout, Enum, Dim, Scalar, Mat, Ld, Count, Sizes, Info };
enum Family { kLayoutF, kOpF, kUploF, kSideF, kDiagF };
const std::vector<int> kValid[] = {{101, 102}, {111, 112, 113}, {121, 122}, {141, 142}, {131, 132}};
bool enum_ok(int family, int v) {
  for (int x : kValid[family])
    if (x == v) return true;
  return false;
}
// Invalid values near the valid ones, far from them, and another enumeration's value.
std::vector<int> enum_bad(int family) {
  const auto &v = kValid[family];
  return {0, v.front() - 1, v.back() + 1, 999, -1, INT_MIN, INT_MAX, family == kOpF ? 121 : 111};
}

struct Arg {
  Kind kind;
  int aux = 0;          // Enum: family; Mat: position of its ld (0 for a vector); Ld: its matrix
  bool output = false;  // Mat: written by the routine
  bool ints = false;    // Mat: an int array (ipiv)
  bool range = false;   // Mat: host entries must lie in 1..rows (getri's ipiv)
};
Arg En(Family f) { return {Kind::Enum, f}; }
Arg Mt(int ld_pos, bool out) { return {Kind::Mat, ld_pos, out}; }
Arg Vec(bool out, bool ints = false, bool range = false) { return {Kind::Mat, 0, out, ints, range}; }
Arg Ldf(int mat_pos) { return {Kind::Ld, mat_pos}; }
const Arg kL{Kind::Layout}, kDim{Kind::Dim}, kSc{Kind::Scalar}, kGC{Kind::Count}, kGS{Kind::Sizes},
    kInfo{Kind::Info};

// The stored (not op()-ed) shape of a matrix argument (a vector: rows x 1) for one group,
// whether a NULL pointer is invalid there, and how to fill it so that the problem is safe.
enum class Fill { Random, Dominant, Hermitian, Pivots };
struct Shape {
  int rows, cols;
  bool needed;
  Fill fill = Fill::Random;
};
using Values = std::function<int(int pos)>;  // a group's enum/dimension argument at `pos`

template <class T> struct State;
template <class T> struct Routine {
  const char *name;
  std::vector<Arg> args;  // args[pos - 1]
  std::function<Shape(int pos, const Values &v)> shape;  // valid enums and dimensions only
  std::function<int(State<T> &)> call;
  const Arg &arg(int pos) const { return args[pos - 1]; }
  int npos() const { return int(args.size()); }
  int pos_of(Kind k) const {
    for (int p = 1; p <= npos(); ++p)
      if (arg(p).kind == k) return p;
    return 0;
  }
};

// ---- one call's arguments and buffers -------------------------------------------------
constexpr int kGuard = 2;  // elements after every buffer that nothing may write

template <class E> struct PtrArray {
  std::vector<std::vector<E>> buf;  // per problem: the matrix (with padding) and the guard
  std::vector<char> null;           // per problem: pass NULL instead of buf[p]
  std::vector<E *> ptr;
  void bind() {
    ptr.assign(std::max<size_t>(1, buf.size()), nullptr);  // never empty: data() is not NULL
    for (size_t p = 0; p < buf.size(); ++p) ptr[p] = null[p] ? nullptr : buf[p].data();
  }
};

template <class T> struct State {
  int layout = BLAS_ColMajor, group_count = 0, groups = 0;  // groups: how many are materialised
  int base = 0;  // the first problem passed to the call (a group called alone)
  std::vector<int> sizes;
  bool sizes_null = false, info_null = false;
  std::map<int, std::vector<int>> ints;  // per-group enums, dimensions and lds, by position
  std::map<int, std::vector<T>> scalars;
  std::map<int, PtrArray<T>> mats;
  std::map<int, PtrArray<int>> pivs;
  std::set<int> null_arrays;  // per-group or pointer arrays passed as NULL
  std::vector<int> info;      // one per problem, then the guard
  std::vector<std::shared_ptr<void>> keep;

  int count(int g) const { return std::max(0, sizes[g]); }
  int first(int g) const {
    int f = 0;
    for (int h = 0; h < g; ++h) f += count(h);
    return f;
  }
  int total() const { return first(groups); }
  bool row() const { return layout == BLAS_RowMajor; }
  void bind() {
    for (auto &[pos, a] : mats) a.bind();
    for (auto &[pos, a] : pivs) a.bind();
  }
  // Typed views for the entry points; NULL where the draw said so.
  BLAS_Layout L() const { return static_cast<BLAS_Layout>(layout); }
  template <class E> const E *en(int pos) {
    if (null_arrays.count(pos)) return nullptr;
    auto v = std::make_shared<std::vector<E>>();
    for (int x : ints.at(pos)) v->push_back(static_cast<E>(x));
    keep.push_back(v);
    return v->data();
  }
  const int *in(int pos) const { return null_arrays.count(pos) ? nullptr : ints.at(pos).data(); }
  const T *sc(int pos) const { return null_arrays.count(pos) ? nullptr : scalars.at(pos).data(); }
  T **mp(int pos) { return null_arrays.count(pos) ? nullptr : mats.at(pos).ptr.data() + base; }
  int **pp(int pos) { return null_arrays.count(pos) ? nullptr : pivs.at(pos).ptr.data() + base; }
  const int *gs() const { return sizes_null ? nullptr : sizes.data(); }
  int *inf() { return info_null ? nullptr : info.data() + base; }
};

// ---- the seven routines ---------------------------------------------------------------
template <class T> std::vector<Routine<T>> routines() {
  using A = Api<T>;
  std::vector<Routine<T>> r;
  r.push_back({"gemm",
               {kL, En(kOpF), En(kOpF), kDim, kDim, kDim, kSc, Mt(9, false), Ldf(8), Mt(11, false), Ldf(10), kSc,
                Mt(14, true), Ldf(13), kGC, kGS, kInfo},
               [](int pos, const Values &v) {
                 int m = v(4), n = v(5), k = v(6);
                 bool an = v(2) == BLAS_NoTrans, bn = v(3) == BLAS_NoTrans, all = m > 0 && n > 0 && k > 0;
                 if (pos == 8) return Shape{an ? m : k, an ? k : m, all};
                 if (pos == 10) return Shape{bn ? k : n, bn ? n : k, all};
                 return Shape{m, n, m > 0 && n > 0};
               },
               [](State<T> &s) {
                 return A::gemm(s.L(), s.template en<BLAS_Op>(2), s.template en<BLAS_Op>(3), s.in(4), s.in(5),
                                s.in(6), s.sc(7), s.mp(8), s.in(9), s.mp(10), s.in(11), s.sc(12), s.mp(13),
                                s.in(14), s.group_count, s.gs(), s.inf());
               }});
  for (bool solve : {true, false})
    r.push_back({solve ? "trsm" : "trmm",
                 {kL, En(kSideF), En(kUploF), En(kOpF), En(kDiagF), kDim, kDim, kSc, Mt(10, false), Ldf(9),
                  Mt(12, true), Ldf(11), kGC, kGS, kInfo},
                 [](int pos, const Values &v) {
                   int m = v(6), n = v(7), order = v(2) == BLAS_Left ? m : n;
                   if (pos == 9) return Shape{order, order, m > 0 && n > 0, Fill::Dominant};
                   return Shape{m, n, m > 0 && n > 0};
                 },
                 [solve](State<T> &s) {
                   auto f = solve ? A::trsm : A::trmm;
                   return f(s.L(), s.template en<BLAS_Side>(2), s.template en<BLAS_Uplo>(3),
                            s.template en<BLAS_Op>(4), s.template en<BLAS_Diag>(5), s.in(6), s.in(7), s.sc(8),
                            s.mp(9), s.in(10), s.mp(11), s.in(12), s.group_count, s.gs(), s.inf());
                 }});
  r.push_back({"getrf",
               {kL, kDim, kDim, Mt(5, true), Ldf(4), Vec(true, true), kGC, kGS, kInfo},
               [](int pos, const Values &v) {
                 int m = v(2), n = v(3);
                 if (pos == 4) return Shape{m, n, m > 0 && n > 0, Fill::Dominant};
                 return Shape{std::min(m, n), 1, m > 0 && n > 0};
               },
               [](State<T> &s) {
                 return A::getrf(s.L(), s.in(2), s.in(3), s.mp(4), s.in(5), s.pp(6), s.group_count, s.gs(),
                                 s.inf());
               }});
  r.push_back({"getri",
               {kL, kDim, Mt(4, true), Ldf(3), Vec(false, true, true), kGC, kGS, kInfo},
               [](int pos, const Values &v) {
                 int n = v(2);
                 if (pos == 3) return Shape{n, n, n > 0, Fill::Dominant};
                 return Shape{n, 1, n > 0, Fill::Pivots};
               },
               [](State<T> &s) {
                 return A::getri(s.L(), s.in(2), s.mp(3), s.in(4), s.pp(5), s.group_count, s.gs(), s.inf());
               }});
  r.push_back({"potrf",
               {kL, En(kUploF), kDim, Mt(5, true), Ldf(4), kGC, kGS, kInfo},
               [](int, const Values &v) { return Shape{v(3), v(3), v(3) > 0, Fill::Hermitian}; },
               [](State<T> &s) {
                 return A::potrf(s.L(), s.template en<BLAS_Uplo>(2), s.in(3), s.mp(4), s.in(5), s.group_count,
                                 s.gs(), s.inf());
               }});
  r.push_back({"geqrf",
               {kL, kDim, kDim, Mt(5, true), Ldf(4), Vec(true), kGC, kGS, kInfo},
               [](int pos, const Values &v) {
                 int m = v(2), n = v(3);
                 return pos == 4 ? Shape{m, n, m > 0 && n > 0} : Shape{std::min(m, n), 1, m > 0 && n > 0};
               },
               [](State<T> &s) {
                 return A::geqrf(s.L(), s.in(2), s.in(3), s.mp(4), s.in(5), s.mp(6), s.group_count, s.gs(),
                                 s.inf());
               }});
  return r;
}

// ---- drawing a call -------------------------------------------------------------------
bool chance(double p) { return std::bernoulli_distribution(p)(rng()); }
int pick(const std::vector<int> &v) { return v[random_int(0, int(v.size()) - 1)]; }

// A group's enums and dimensions are all valid (with a valid layout): its shapes are defined.
template <class T> bool shapes_defined(const Routine<T> &r, const State<T> &s, int g) {
  if (!enum_ok(kLayoutF, s.layout)) return false;
  for (int p = 2; p <= r.npos(); ++p) {
    const Arg &a = r.arg(p);
    if (a.kind == Kind::Enum && !enum_ok(a.aux, s.ints.at(p)[g])) return false;
    if (a.kind == Kind::Dim && s.ints.at(p)[g] < 0) return false;
  }
  return true;
}
template <class T> Shape shape_of(const Routine<T> &r, const State<T> &s, int g, int pos) {
  return r.shape(pos, [&](int q) { return s.ints.at(q)[g]; });
}
// Leading dimension a matrix needs (SPEC 2.1), and where element (i, j) sits.
int required_ld(const Shape &sh, bool row) { return std::max(1, row ? sh.cols : sh.rows); }
size_t at(bool row, int ld, int i, int j) { return row ? size_t(i) * ld + j : i + size_t(j) * ld; }

template <class T> void fill_matrix(std::vector<T> &b, const Shape &sh, bool row, int ld) {
  using R = typename traits<T>::real;
  for (int j = 0; j < sh.cols; ++j)
    for (int i = 0; i < sh.rows; ++i) b[at(row, ld, i, j)] = random_value<T>();
  const R big = R(2 * std::max(sh.rows, sh.cols) + 2);  // beats any row or column sum
  for (int i = 0; i < std::min(sh.rows, sh.cols); ++i) {
    if (sh.fill == Fill::Dominant) b[at(row, ld, i, i)] = T(big);
    if (sh.fill != Fill::Hermitian) continue;
    for (int j = i + 1; j < sh.cols; ++j) b[at(row, ld, j, i)] = bb::conj(b[at(row, ld, i, j)]);
    if constexpr (is_cplx<T>) b[at(row, ld, i, i)] = T(big, R(uniform_nonzero()));  // imag: ignored
    else b[at(row, ld, i, i)] = T(big);
  }
}

// `bad`: how often each per-group value is drawn invalid in this call.
template <class T> State<T> draw(const Routine<T> &r, double bad) {
  State<T> s;
  s.layout = chance(0.04) ? pick(enum_bad(kLayoutF)) : pick(kValid[kLayoutF]);
  if (chance(0.03)) s.group_count = pick({-1, -2, INT_MIN}), s.groups = random_int(0, 2);
  else s.group_count = s.groups = chance(0.05) ? 0 : random_int(1, 4);
  const int G = s.groups;
  s.sizes.assign(std::max(1, G), 0);
  for (int g = 0; g < G; ++g) s.sizes[g] = chance(0.15) ? 0 : random_int(1, 3);
  if (G > 0 && chance(0.04)) s.sizes[random_int(0, G - 1)] = pick({-1, -3, INT_MIN});
  s.sizes_null = chance(0.03);
  s.info_null = chance(0.1);
  // Per-group arguments in argument order: an ld sees its group's enums and dimensions.
  for (int p = 2; p <= r.npos(); ++p) {
    const Arg &a = r.arg(p);
    if (a.kind == Kind::Enum || a.kind == Kind::Dim || a.kind == Kind::Ld) s.ints[p].assign(std::max(1, G), 0);
    if (a.kind == Kind::Scalar) s.scalars[p].assign(std::max(1, G), T(0));
    for (int g = 0; g < G; ++g) {
      if (a.kind == Kind::Scalar) s.scalars[p][g] = chance(0.1) ? T(0) : random_value<T>();
      if (!s.ints.count(p)) continue;
      int &v = s.ints[p][g];
      if (a.kind == Kind::Enum) v = chance(bad) ? pick(enum_bad(a.aux)) : pick(kValid[a.aux]);
      if (a.kind == Kind::Dim) v = chance(bad) ? pick({-1, -4, INT_MIN}) : random_int(0, 4);
      if (a.kind == Kind::Ld) {
        if (shapes_defined(r, s, g)) {
          int need = required_ld(shape_of(r, s, g, a.aux), s.row());
          v = chance(bad) ? pick({need - 1, 0, -1, INT_MIN}) : need + pick({0, 0, 1, 2});
        } else {
          v = chance(bad) ? pick({0, -1, INT_MIN}) : random_int(1, 5);
        }
      }
    }
    if (G > 0 && a.kind != Kind::Mat && s.ints.count(p) + s.scalars.count(p) && chance(0.015))
      s.null_arrays.insert(p);
  }
  // Buffers: allocated by the ld drawn (at least the matrix), the padding and guard NaN.
  for (int p = 2; p <= r.npos(); ++p) {
    const Arg &a = r.arg(p);
    if (a.kind != Kind::Mat) continue;
    if (chance(0.015)) s.null_arrays.insert(p);
    if (a.ints) s.pivs[p];  // present even without problems
    else s.mats[p];
    for (int g = 0; g < G; ++g) {
      const bool known = shapes_defined(r, s, g);
      const Shape sh = known ? shape_of(r, s, g, p) : Shape{4, a.aux ? 4 : 1, true};
      int ld = 1, lines = std::max(1, sh.rows), len = std::max(1, sh.rows);
      if (a.aux) {
        ld = std::max(s.ints[a.aux][g], required_ld(sh, s.row()));
        lines = std::max(1, s.row() ? sh.rows : sh.cols), len = lines * ld;
      }
      for (int q = 0; q < s.count(g); ++q) {
        const bool null = chance(bad / 2) || (!sh.needed && chance(0.3));
        if (a.ints) {
          std::vector<int> v(len + kGuard, -999999);
          for (int i = 0; i < sh.rows; ++i) v[i] = sh.fill == Fill::Pivots ? random_int(1, sh.rows) : random_int(-5, 5);
          if (a.range && sh.rows > 0 && chance(bad)) v[random_int(0, sh.rows - 1)] = pick({0, sh.rows + 1, -3, INT_MIN, INT_MAX});
          s.pivs[p].buf.push_back(std::move(v)), s.pivs[p].null.push_back(null);
        } else {
          std::vector<T> v(len + kGuard, nan_value<T>());
          fill_matrix(v, sh, s.row(), ld);
          s.mats[p].buf.push_back(std::move(v)), s.mats[p].null.push_back(null);
        }
      }
    }
  }
  s.info.assign(s.total() + kGuard, -777);
  s.bind();
  return s;
}

// ---- the oracle (SPEC.md section 4) ---------------------------------------------------
// The lowest-numbered invalid call-level argument as -k, or 0. `problems`: whether the call
// has at least one problem, which decides whether a NULL pointer array is invalid.
template <class T> int call_level(const Routine<T> &r, const State<T> &s, bool problems) {
  int bad = INT_MAX;
  auto fail = [&](int pos) { bad = std::min(bad, pos); };
  if (!enum_ok(kLayoutF, s.layout)) fail(1);
  if (s.group_count < 0) fail(r.pos_of(Kind::Count));
  if (s.group_count > 0) {
    for (int g = 0; g < s.group_count; ++g)
      if (s.sizes_null || s.sizes[g] < 0) fail(r.pos_of(Kind::Sizes));
    for (int p : s.null_arrays)
      if (r.arg(p).kind != Kind::Mat || problems) fail(p);
  }
  return bad == INT_MAX ? 0 : -bad;
}
// The return values SPEC allows for call-level errors (0: none). "The call has at least one
// problem" counts the non-negative entries of group_sizes, none when it is NULL (SPEC 4.1).
template <class T> std::vector<int> call_level_codes(const Routine<T> &r, const State<T> &s) {
  long problems = 0;
  for (int g = 0; g < s.group_count && !s.sizes_null; ++g) problems += std::max(0, s.sizes[g]);
  return {call_level(r, s, problems > 0)};
}
// A non-empty group's first invalid group-level argument (enums, sizes, leading dimensions)
// in argument order as -k, or 0.
template <class T> int group_code(const Routine<T> &r, const State<T> &s, int g) {
  for (int p = 2; p <= r.npos(); ++p) {
    const Arg &a = r.arg(p);
    if (a.kind == Kind::Enum && !enum_ok(a.aux, s.ints.at(p)[g])) return -p;
    if (a.kind == Kind::Dim && s.ints.at(p)[g] < 0) return -p;
    if (a.kind == Kind::Ld && s.ints.at(p)[g] < required_ld(shape_of(r, s, g, a.aux), s.row())) return -p;
  }
  return 0;
}
// Problem q of a valid group: its first bad pointer argument (a NULL matrix it needs, a getri
// pivot out of range) as -k, or 0. Such a problem alone is skipped (SPEC.md section 4.2).
template <class T> int problem_code(const Routine<T> &r, const State<T> &s, int g, int q) {
  for (int p = 2; p <= r.npos(); ++p) {
    const Arg &a = r.arg(p);
    if (a.kind != Kind::Mat) continue;
    const Shape sh = shape_of(r, s, g, p);
    if (sh.needed && (a.ints ? s.pivs.at(p).null[q] : s.mats.at(p).null[q])) return -p;
    if (a.range && sh.needed)
      for (int i = 0; i < sh.rows; ++i)
        if (s.pivs.at(p).buf[q][i] < 1 || s.pivs.at(p).buf[q][i] > sh.rows) return -p;
  }
  return 0;
}

// ---- checks ---------------------------------------------------------------------------
template <class E> bool same(const std::vector<E> &a, const std::vector<E> &b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(E)) == 0;
}
// f(pos, problem, after, before, clean) for each buffer of problems [lo, hi) of three calls.
template <class T, class F>
void each_buffer(const State<T> &s, const State<T> &b, const State<T> &c, int lo, int hi, F f) {
  for (const auto &[pos, a] : s.mats)
    for (int q = lo; q < hi; ++q) f(pos, q, a.buf[q], b.mats.at(pos).buf[q], c.mats.at(pos).buf[q]);
  for (const auto &[pos, a] : s.pivs)
    for (int q = lo; q < hi; ++q) f(pos, q, a.buf[q], b.pivs.at(pos).buf[q], c.pivs.at(pos).buf[q]);
}

// Group g of the call `before` as a clean call of its own, on copies of every buffer.
template <class T> State<T> alone(const State<T> &before, int g) {
  State<T> t = before;
  t.group_count = 1, t.sizes = {before.sizes[g]}, t.base = before.first(g);
  for (auto &[p, v] : t.ints) v = {v[g]};
  for (auto &[p, v] : t.scalars) v = {v[g]};
  t.null_arrays.clear(), t.sizes_null = t.info_null = false;
  t.bind();
  return t;
}

template <class T> std::string describe(const Routine<T> &r, const State<T> &s, const char *backend) {
  std::ostringstream o;
  o << r.name << " " << traits<T>::name() << " backend " << backend << ": layout " << s.layout << ", group_count "
    << s.group_count << ", group_sizes ";
  if (s.sizes_null) o << "NULL";
  for (int g = 0; g < s.groups && !s.sizes_null; ++g) o << (g ? "," : "") << s.sizes[g];
  o << (s.info_null ? ", info NULL" : "");
  for (int p : s.null_arrays) o << ", argument " << p << " NULL";
  for (int g = 0; g < s.groups; ++g) {
    o << "\n  group " << g << ":";
    for (const auto &[p, v] : s.ints) o << " [" << p << "]=" << v[g];
    for (int q = s.first(g); q < s.first(g) + s.count(g); ++q) {
      for (const auto &[p, a] : s.mats) o << (a.null[q] ? " [" + std::to_string(p) + "] NULL at problem " + std::to_string(q) : "");
      for (const auto &[p, a] : s.pivs) {
        o << (a.null[q] ? " [" + std::to_string(p) + "] NULL at problem " + std::to_string(q) : "");
        if (r.arg(p).range && !a.null[q]) {
          o << " ipiv[" << q << "]=";
          for (size_t i = 0; i + kGuard < a.buf[q].size(); ++i) o << (i ? "," : "") << a.buf[q][i];
        }
      }
    }
  }
  return o.str();
}

struct Tally {
  long calls = 0, call_errors = 0, invalid_groups = 0, valid_groups = 0;
};

template <class T> void check_call(const Routine<T> &r, State<T> &s, Tally &tally) {
  const State<T> before = s;  // its pointer arrays point into s: only its buffers are used
  const int rc = r.call(s);
  ++tally.calls;
  const std::vector<int> level = call_level_codes(r, before);
  if (level[0] != 0) {  // call-level error: the return value, and nothing touched at all
    ++tally.call_errors;
    EXPECT_EQ(rc, level[0]) << "return value";
    each_buffer(s, before, before, 0, s.total(), [&](int pos, int q, const auto &now, const auto &was, const auto &) {
      EXPECT_TRUE(same(now, was)) << "call-level error, yet argument " << pos << " of problem " << q << " changed";
    });
    EXPECT_TRUE(same(s.info, before.info)) << "call-level error, yet info changed";
    return;
  }
  std::vector<int> code(s.groups), pcode(s.total(), 0);
  int failures = 0;
  for (int g = 0; g < s.groups; ++g) {
    if (s.count(g) == 0) continue;
    code[g] = group_code(r, before, g);
    for (int q = s.first(g); q < s.first(g) + s.count(g); ++q)
      failures += (pcode[q] = code[g] ? code[g] : problem_code(r, before, g, q)) != 0;
  }
  EXPECT_EQ(rc, failures) << "return value (the count of problems with non-zero info)";
  for (int q = 0; q < s.total() && !s.info_null; ++q) EXPECT_EQ(s.info[q], pcode[q]) << "info of problem " << q;
  for (int i = 0; i < kGuard; ++i) EXPECT_EQ(s.info[s.total() + i], -777) << "written past info";
  for (int g = 0; g < s.groups; ++g) {
    const int lo = s.first(g), hi = lo + s.count(g);
    if (lo == hi) continue;
    if (code[g]) {  // invalid group: every byte of its data unchanged
      ++tally.invalid_groups;
      each_buffer(s, before, before, lo, hi, [&](int pos, int q, const auto &now, const auto &was, const auto &) {
        EXPECT_TRUE(same(now, was)) << "group " << g << " is invalid (" << code[g] << "), yet argument " << pos
                                    << " of problem " << q << " changed";
      });
      continue;
    }
    // Valid group: the same bytes as a clean call of this group alone; its problems with a bad
    // pointer untouched in both.
    ++tally.valid_groups;
    State<T> clean = alone(before, g);
    const int clean_rc = r.call(clean);
    int bad = 0;
    for (int q = lo; q < hi; ++q) bad += pcode[q] != 0;
    EXPECT_EQ(clean_rc, bad) << "group " << g << " alone (numerically safe): the count of its bad problems";
    for (int q = lo; q < hi; ++q) EXPECT_EQ(clean.info[q], pcode[q]) << "group " << g << " alone: info of problem " << q;
    each_buffer(s, before, before, lo, hi, [&](int pos, int q, const auto &now, const auto &was, const auto &) {
      if (pcode[q]) EXPECT_TRUE(same(now, was)) << "problem " << q << " is invalid (" << pcode[q] << "), yet argument " << pos << " changed";
    });
    bool empty = true;  // no output operand has an element: nothing may be written
    for (int p = 2; p <= r.npos(); ++p)
      if (r.arg(p).kind == Kind::Mat && r.arg(p).output) {
        const Shape sh = shape_of(r, s, g, p);
        empty = empty && sh.rows * sh.cols == 0;
      }
    each_buffer(s, before, clean, lo, hi, [&](int pos, int q, const auto &now, const auto &was, const auto &ref) {
      EXPECT_TRUE(same(now, ref))
          << "group " << g << ", argument " << pos << " of problem " << q << " differs from the clean call";
      const Arg &a = r.arg(pos);
      const Shape sh = shape_of(r, s, g, pos);
      if (!a.output || empty) {
        EXPECT_TRUE(same(now, was)) << "group " << g << ": argument " << pos << " of problem " << q
                                    << (empty ? " changed in an empty problem" : " is an input, yet changed");
        return;
      }
      const int ld = a.aux ? s.ints.at(a.aux)[g] : 0;
      for (size_t i = 0; i < now.size(); ++i) {  // padding and guard
        const size_t line = ld ? i / ld : 0, in_line = ld ? i % ld : i;
        const bool logical = ld ? line < size_t(s.row() ? sh.rows : sh.cols) && in_line < size_t(s.row() ? sh.cols : sh.rows)
                                : i < size_t(sh.rows);
        if (!logical && std::memcmp(&now[i], &was[i], sizeof(now[i])) != 0) {
          ADD_FAILURE() << "group " << g << ": argument " << pos << " of problem " << q << ": element " << i
                        << (i + kGuard >= now.size() ? " (guard after the buffer)" : " (padding)") << " changed";
          break;
        }
      }
    });
  }
}

uint64_t fnv(const std::string &s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

template <class T> void run(int which) {
  const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string test = std::string(info->test_suite_name()) + "." + info->name();
  rng().seed(seed() ^ fnv(test));  // this test alone reproduces from BB_TEST_SEED
  SCOPED_TRACE(seed_note() + " --gtest_filter=" + test);
  const Routine<T> r = routines<T>()[which];
  const int iterations = is_half<T> || is_quad<T> ? 200 : 1000;  // calls per routine
  const char *backends[] = {"auto", "native", "vendor", "reference"};
  Tally tally;
  for (int it = 0; it < iterations; ++it) {
    State<T> s = draw(r, pick({0, 0, 5, 15, 40}) / 100.0);
    const char *backend = backends[random_int(0, 3)];
    const std::string what = describe(r, s, backend);
    BackendScope scope(backend);
    check_call(r, s, tally);
    if (::testing::Test::HasFailure()) {
      ADD_FAILURE() << "call " << it << ": " << what;
      break;
    }
  }
  const std::string p = std::string("random arguments ") + traits<T>::name() + ": ";
  count_checked((p + "calls").c_str(), tally.calls);
  count_checked((p + "calls with a call-level error").c_str(), tally.call_errors);
  count_checked((p + "invalid groups").c_str(), tally.invalid_groups);
  count_checked((p + "valid groups = clean call").c_str(), tally.valid_groups);
}

template <class P> class RandomArguments : public ::testing::Test {};
using Precisions = ::testing::Types<Prec<double>, Prec<complex<float>>, Prec<half>, Prec<quad>>;
TYPED_TEST_SUITE(RandomArguments, Precisions, PrecisionNames);
TYPED_TEST(RandomArguments, Gemm) { run<typename TypeParam::type>(0); }
TYPED_TEST(RandomArguments, Trsm) { run<typename TypeParam::type>(1); }
TYPED_TEST(RandomArguments, Trmm) { run<typename TypeParam::type>(2); }
TYPED_TEST(RandomArguments, Getrf) { run<typename TypeParam::type>(3); }
TYPED_TEST(RandomArguments, Getri) { run<typename TypeParam::type>(4); }
TYPED_TEST(RandomArguments, Potrf) { run<typename TypeParam::type>(5); }
TYPED_TEST(RandomArguments, Geqrf) { run<typename TypeParam::type>(6); }

}  // namespace
}  // namespace conf
