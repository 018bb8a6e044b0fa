// gtest main that prints the random seed (rerun with BB_TEST_SEED=<seed>) and how many
// problems each check covered.
#include "common.hpp"

#include <cstdio>
#include <map>
#include <mutex>

namespace conf {
namespace {
std::map<std::string, long> &counts() {
  static std::map<std::string, long> c;
  return c;
}
std::mutex counts_mutex;
}  // namespace
void count_checked(const char *what, long problems) {
  std::lock_guard<std::mutex> lock(counts_mutex);
  counts()[what] += problems;
}
}  // namespace conf

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
  std::printf("random seed: %s\n", conf::seed_note().c_str());
  int rc = RUN_ALL_TESTS();
  for (const auto &[what, n] : conf::counts()) std::printf("checked: %-40s %ld problems\n", what.c_str(), n);
  std::printf("random seed: %s\n", conf::seed_note().c_str());
  // Every selected test skipped (no GPU): exit 77, which CTest reports as skipped (SKIP_RETURN_CODE).
  const auto *u = ::testing::UnitTest::GetInstance();
  if (rc == 0 && u->test_to_run_count() > 0 && u->skipped_test_count() == u->test_to_run_count())
    return 77;
  return rc;
}
