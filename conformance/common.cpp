#include "common.hpp"

namespace conf {

uint64_t seed() {
  static const uint64_t s = [] {
    if (const char *e = std::getenv("BB_TEST_SEED")) return uint64_t(std::strtoull(e, nullptr, 10));
    return uint64_t(std::random_device{}()) << 32 ^ std::random_device{}();
  }();
  return s;
}

std::mt19937_64 &rng() {
  static std::mt19937_64 g(seed());
  return g;
}

double uniform_nonzero() {
  double x = std::uniform_real_distribution<double>(0.05, 1.0)(rng());
  return std::bernoulli_distribution(0.5)(rng()) ? x : -x;
}

}  // namespace conf

namespace conf {

std::vector<int> forced_pivots(const std::vector<int> &from, int steps) {
  std::vector<int> at = from, where(from.size()), ipiv(steps);
  for (std::size_t r = 0; r < at.size(); ++r) where[at[r]] = int(r);
  for (int j = 0; j < steps; ++j) {
    int r = where[j];
    ipiv[j] = r + 1;
    std::swap(at[j], at[r]);
    where[at[j]] = j, where[at[r]] = r;
  }
  return ipiv;
}

}  // namespace conf
