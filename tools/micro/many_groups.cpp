// getrf and getri, row-major, on device data split into G groups of one order: with more groups
// of a configuration than a launch carries by value (8), its runs go in a device table, and
// before s56 the row-major pieces' instances were never taken there. Pointer arrays and info in
// device memory (SPEC 9.2: nothing uploaded a call), about 1 GB of matrices; device ms
// (blas_batched_last_device_ms: the pointer check pass and the kernels) and ms of the whole
// call, median of 5 after a warm-up call, per precision, order and G. Build against the
// library, run under each build's library:
//   g++ -O2 -std=c++17 -Iinclude -I/usr/local/cuda/include tools/micro/many_groups.cpp -o /tmp/mg
//       -Lbuild -lblas_batched -L/usr/local/cuda/lib64 -lcudart      (one line)
//   LD_LIBRARY_PATH=<build> /tmp/many_groups
#include <blas_batched/blas_batched.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#define CHECK_CUDA(x)                                                                  \
  do {                                                                                 \
    cudaError_t e_ = (x);                                                              \
    if (e_ != cudaSuccess) {                                                           \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                    \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

template <class T, class Getrf, class Getri>
void run(const char *prec, Getrf getrf, Getri getri, int n, int groups) {
  const int64_t problems = int64_t(1e9 / (double(n) * n * sizeof(T))) / groups * groups;
  const int64_t elems = problems * n * n;
  // A random block repeated (drawing 1 GB costs seconds a case): every matrix is still random.
  std::vector<T> block(1 << 20), host(elems);
  std::mt19937 gen(n * 131 + groups);
  std::uniform_real_distribution<T> dist(-1, 1);
  for (auto &x : block) x = dist(gen);
  for (int64_t i = 0; i < elems; ++i) host[i] = block[(i * 7 + i / int64_t(block.size())) % block.size()];
  T *A = nullptr, *pristine = nullptr, **A_array = nullptr;
  int *ipiv = nullptr, **ipiv_array = nullptr, *info = nullptr;
  CHECK_CUDA(cudaMalloc(&A, elems * sizeof(T)));
  CHECK_CUDA(cudaMalloc(&pristine, elems * sizeof(T)));
  CHECK_CUDA(cudaMemcpy(pristine, host.data(), elems * sizeof(T), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMalloc(&ipiv, problems * n * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&info, problems * sizeof(int)));
  CHECK_CUDA(cudaMalloc(&A_array, problems * sizeof(T *)));
  CHECK_CUDA(cudaMalloc(&ipiv_array, problems * sizeof(int *)));
  std::vector<T *> a(problems);
  std::vector<int *> p(problems);
  for (int64_t i = 0; i < problems; ++i) a[i] = A + i * n * n, p[i] = ipiv + i * n;
  CHECK_CUDA(cudaMemcpy(A_array, a.data(), problems * sizeof(T *), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(ipiv_array, p.data(), problems * sizeof(int *), cudaMemcpyHostToDevice));
  std::vector<int> ns(groups, n), sizes(groups, int(problems / groups));
  auto factor = [&] { return getrf(BLAS_RowMajor, ns.data(), ns.data(), A_array, ns.data(), ipiv_array, groups, sizes.data(), info); };
  auto invert = [&] { return getri(BLAS_RowMajor, ns.data(), A_array, ns.data(), ipiv_array, groups, sizes.data(), info); };
  for (const char *routine : {"getrf", "getri"}) {
    const bool inverse = std::string(routine) == "getri";
    std::vector<double> call, dev;
    for (int rep = 0; rep < 6; ++rep) {
      CHECK_CUDA(cudaMemcpy(A, pristine, elems * sizeof(T), cudaMemcpyDeviceToDevice));
      if (inverse && factor() < 0) std::fprintf(stderr, "getrf failed\n"), std::exit(1);
      CHECK_CUDA(cudaDeviceSynchronize());
      const auto t0 = std::chrono::steady_clock::now();
      const int rc = inverse ? invert() : factor();
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (rc < 0) std::fprintf(stderr, "%s %s n %d groups %d: rc %d\n", routine, prec, n, groups, rc), std::exit(1);
      if (rep > 0) call.push_back(ms), dev.push_back(blas_batched_last_device_ms());  // rep 0: the warm-up
    }
    std::sort(call.begin(), call.end()), std::sort(dev.begin(), dev.end());
    std::printf("%s %s n %d groups %d problems %lld: kernels %.3f ms, call %.3f ms\n", routine, prec, n, groups,
                (long long)problems, dev[2], call[2]);
  }
  CHECK_CUDA(cudaFree(A));
  CHECK_CUDA(cudaFree(pristine));
  CHECK_CUDA(cudaFree(ipiv));
  CHECK_CUDA(cudaFree(info));
  CHECK_CUDA(cudaFree(A_array));
  CHECK_CUDA(cudaFree(ipiv_array));
}

// Orders and group counts as comma lists (for a profiler's run of one case): many_groups [N,... [G,...]]
static std::vector<int> list(int argc, char **argv, int i, std::vector<int> fallback) {
  if (argc <= i) return fallback;
  std::vector<int> v;
  std::stringstream in(argv[i]);
  for (std::string x; std::getline(in, x, ',');) v.push_back(std::atoi(x.c_str()));
  return v;
}

int main(int argc, char **argv) {
  blas_batched_set_device_timing(1);
  for (int n : list(argc, argv, 1, {16, 20, 24, 32}))
    for (int groups : list(argc, argv, 2, {1, 16})) {
      run<double>("r64", BLAS_getrf_batched_r64, BLAS_getri_batched_r64, n, groups);
      run<float>("r32", BLAS_getrf_batched_r32, BLAS_getri_batched_r32, n, groups);
    }
}
