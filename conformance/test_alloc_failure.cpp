// Running out of memory inside a call: with the address space capped a little above what the
// process uses, a call of millions of groups cannot get memory for its plan. It must return
// BLAS_BATCHED_ERR_ALLOC with nothing touched (no exception may leave the C API, which would
// abort a C program), blas_batched_last_call() must still answer, and once memory is back the
// same call must work. Its own binary: the cap applies to the whole process.
#include "common.hpp"

#include <sys/resource.h>
#include <unistd.h>

namespace conf {
namespace {

long address_space_bytes() {
  FILE *f = std::fopen("/proc/self/statm", "r");
  long pages = 0;
  if (!f || std::fscanf(f, "%ld", &pages) != 1) pages = 0;
  if (f) std::fclose(f);
  return pages * sysconf(_SC_PAGESIZE);
}

// Caps the address space at what is mapped now plus `headroom` for the scope.
class AddressSpaceCap {
 public:
  explicit AddressSpaceCap(long headroom) {
    getrlimit(RLIMIT_AS, &saved_);
    rlimit r = saved_;
    r.rlim_cur = rlim_t(address_space_bytes() + headroom);
    ok_ = setrlimit(RLIMIT_AS, &r) == 0;
  }
  ~AddressSpaceCap() { setrlimit(RLIMIT_AS, &saved_); }
  bool ok() const { return ok_; }

 private:
  rlimit saved_{};
  bool ok_ = false;
};

TEST(AllocFailure, MillionsOfGroupsUnderAddressSpaceCap) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: RLIMIT_AS cannot be used";
#else
  constexpr int kGroups = 4000000;
  std::vector<double> a(kGroups, 4.0), c(kGroups, 1.0);
  std::vector<double *> A(kGroups), B(kGroups), C(kGroups);
  for (int p = 0; p < kGroups; ++p) A[p] = B[p] = &a[p], C[p] = &c[p];
  std::vector<int> one(kGroups, 1), info(kGroups, -777);
  std::vector<BLAS_Uplo> lower(kGroups, BLAS_Lower);
  std::vector<BLAS_Op> nt(kGroups, BLAS_NoTrans);
  std::vector<double> alpha(kGroups, 2.0), beta(kGroups, 0.5);
  auto potrf = [&] {
    return Api<double>::potrf(BLAS_ColMajor, lower.data(), one.data(), A.data(), one.data(), kGroups, one.data(),
                              info.data());
  };
  auto gemm = [&] {
    return Api<double>::gemm(BLAS_ColMajor, nt.data(), nt.data(), one.data(), one.data(), one.data(), alpha.data(),
                             A.data(), one.data(), B.data(), one.data(), beta.data(), C.data(), one.data(), kGroups,
                             one.data(), info.data());
  };
  // Thread pools (OpenMP, OpenBLAS) exist before the cap, as in a program already running.
  {
    int n = 64, lda = 64, count = 64, ld_ = 64;
    std::vector<double> m(std::size_t(n) * n * count, 0.0);
    std::vector<double *> mp(count);
    for (int p = 0; p < count; ++p) {
      mp[p] = m.data() + std::size_t(p) * n * n;
      for (int i = 0; i < n; ++i) mp[p][i + i * n] = 1.0;
    }
    BLAS_Uplo u = BLAS_Lower;
    ASSERT_EQ(Api<double>::potrf(BLAS_ColMajor, &u, &n, mp.data(), &lda, 1, &count, nullptr), 0);
    (void)ld_;
  }
  {
    AddressSpaceCap cap(40L << 20);
    ASSERT_TRUE(cap.ok()) << "setrlimit(RLIMIT_AS) failed";
    ASSERT_EQ(potrf(), BLAS_BATCHED_ERR_ALLOC);
    ASSERT_EQ(gemm(), BLAS_BATCHED_ERR_ALLOC);
    ASSERT_NE(blas_batched_last_call(), nullptr);
  }
  for (int p = 0; p < kGroups; ++p) {
    ASSERT_EQ(info[p], -777) << "info touched by a call that could not run";
    ASSERT_EQ(a[p], 4.0) << "A touched by a call that could not run";
    ASSERT_EQ(c[p], 1.0) << "C touched by a call that could not run";
  }
  // With memory back the same calls run: sqrt(4) = 2, then C = 2 * 2 * 2 + 0.5 * 1.
  ASSERT_EQ(potrf(), 0);
  ASSERT_EQ(gemm(), 0);
  for (int p = 0; p < kGroups; ++p) {
    ASSERT_EQ(info[p], 0);
    ASSERT_EQ(c[p], 8.5);
  }
  count_checked("calls under an address-space cap", 4);
#endif
}

}  // namespace
}  // namespace conf
