// Tuning sweep for the device gemm: for each precision and order n, times every kernel
// configuration and cuBLAS (device time, BLAS_BATCHED_DEVICE_TIMING) on square NN batches
// of ~0.5 GB, and prints CSV: prec,n,config,device_ms,gbps. tools/tune_gemm.sh turns the
// winners into src/cuda/gemm/gemm_tuning.inc.
#include <cuda_runtime.h>

#include "../src/common/typed_api.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { std::fprintf(stderr, "CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); std::exit(1); } } while (0)

// The tiles and the flat kernels of GemmConfig (src/cuda/gemm/gemm_tuning.hpp; the exact-shape
// kernels are chosen at plan time, not by the table).
constexpr int kConfigs = 15;
constexpr int kTile64 = 10;  // kTile64_4x4: compiled for elements of at most 4 bytes

template <class T>
void sweep(const std::vector<int> &sizes, double gb) {
  for (int n : sizes) {
    const std::size_t per = 4 * std::size_t(n) * n * sizeof(T);
    const int count = int(std::max<double>(1, gb * 1e9 / per));
    const std::size_t elems = std::size_t(n) * n * count;
    char *buf;
    CK(cudaMalloc(&buf, 3 * elems * sizeof(T)));
    CK(cudaMemset(buf, 0x3c, 3 * elems * sizeof(T)));  // finite, non-zero in every precision
    std::vector<T *> A(count), B(count), C(count);
    T *base = reinterpret_cast<T *>(buf);
    for (int i = 0; i < count; ++i) {
      A[i] = base + std::size_t(i) * n * n;
      B[i] = A[i] + elems;
      C[i] = B[i] + elems;
    }
    const BLAS_Op op = BLAS_NoTrans;
    const T alpha = T(1.0), beta = T(0.5);
    std::vector<int> info(count);
    for (int config = -1; config < kConfigs; ++config) {
      if (config == kTile64 && sizeof(T) > 4) continue;  // not compiled: the table's choice would run
      setenv("BLAS_BATCHED_GEMM_CONFIG", config < 0 ? "vendor" : std::to_string(config).c_str(), 1);
      std::vector<double> t;
      bool ok = true;
      for (int rep = 0; rep < 4 && ok; ++rep) {
        int r = bb::Api<T>::gemm(BLAS_ColMajor, &op, &op, &n, &n, &n, &alpha, A.data(), &n, B.data(), &n,
                                 &beta, C.data(), &n, 1, &count, info.data());
        ok = r == 0;
        if (rep) t.push_back(blas_batched_last_device_ms());
      }
      if (!ok) continue;  // e.g. no cuBLAS routine for this precision
      std::sort(t.begin(), t.end());
      const double ms = t[t.size() / 2];
      std::printf("%s,%d,%d,%.4f,%.1f\n", bb::traits<T>::name(), n, config, ms, count * per / ms / 1e6);
      std::fflush(stdout);
    }
    CK(cudaFree(buf));
  }
}

int main(int argc, char **argv) {
  setenv("BLAS_BATCHED_DEVICE_TIMING", "1", 1);
  std::vector<int> sizes = {2, 3, 4, 6, 8, 12, 16, 20, 24, 32, 40, 48, 64, 96, 128, 192, 256};
  const double gb = argc > 1 ? std::atof(argv[1]) : 0.5;
  std::printf("prec,n,config,device_ms,gbps\n");
  sweep<double>(sizes, gb);
  sweep<float>(sizes, gb);
  sweep<bb::complex<double>>(sizes, gb);
  sweep<bb::complex<float>>(sizes, gb);
  sweep<bb::half>(sizes, gb);
  sweep<bb::complex<bb::half>>(sizes, gb);
  return 0;
}
