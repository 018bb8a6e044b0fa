// One large triangular problem on the GPU (issue target: M = 8192, N = 512, side Left, Lower,
// NoTrans, NonUnit, r64): the library's trsm and trmm (strided entry point, batch of one, device
// data) against cublasDtrsm / cublasDtrmm and against cublasDgemm of the same flops (M^2 N =
// 2 M N K with K = M / 2), all timed with CUDA events in one run on the same buffers. The
// library's rows come twice: as called, and "queued", with the stream held by a host function
// until the whole call is enqueued, so that the GPU runs it back to back (the call must not
// wait on the stream before its end, which the one-large-triangle path does not): where queued
// is faster, the call waits on its host side (launch overhead), not on the GPU; a third row
// ("enqueue") gives the host's time to enqueue it.
//   blas_batched_tri_large [M N [reps]]   prints one CSV line per routine and backend
#include <blas_batched/blas_batched.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#define CHECK(x)                                                                        \
  do {                                                                                  \
    if (!(x)) {                                                                         \
      std::fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x);               \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

int main(int argc, char **argv) {
  const int M = argc > 1 ? std::atoi(argv[1]) : 8192, N = argc > 2 ? std::atoi(argv[2]) : 512;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 10;
  int dev_count = 0;
  if (cudaGetDeviceCount(&dev_count) != cudaSuccess || dev_count == 0) {
    std::fprintf(stderr, "no GPU\n");
    return 77;
  }
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
  // A lower triangular, diagonal 2 + u, below it u / M (well conditioned); B random.
  std::mt19937_64 g(7);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> A(std::size_t(M) * M, 0.0), B(std::size_t(M) * N);
  for (int j = 0; j < M; ++j)
    for (int i = j; i < M; ++i) A[i + std::size_t(j) * M] = i == j ? 2 + u(g) : u(g) / M;
  for (double &x : B) x = u(g);
  double *dA, *dB, *dC;
  CHECK(cudaMalloc(&dA, A.size() * sizeof(double)) == cudaSuccess);
  CHECK(cudaMalloc(&dB, B.size() * sizeof(double)) == cudaSuccess);
  CHECK(cudaMalloc(&dC, std::size_t(M) * N * sizeof(double)) == cudaSuccess);
  CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(double), cudaMemcpyHostToDevice) == cudaSuccess);
  cublasHandle_t h;
  CHECK(cublasCreate(&h) == CUBLAS_STATUS_SUCCESS);
  cudaStream_t st;
  CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) == cudaSuccess);
  CHECK(cublasSetStream(h, st) == CUBLAS_STATUS_SUCCESS);
  CHECK(blas_batched_set_cuda_stream(st) == 0);
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0), cudaEventCreate(&e1);
  const double alpha = 1.5, one = 1, zero = 0;
  const double flops = double(M) * M * N;  // trsm and trmm (real)
  // held: the stream waits 20 ms in a host function before the call's work (far longer than
  // enqueuing it takes), so the events time the GPU alone; the call is then non-blocking
  // (blas_batched_set_blocking(0)), and its host time until it returns, the enqueuing alone,
  // goes to enqueue_ms (median).
  double enqueue_ms = 0;
  auto time = [&](auto &&call, bool held = false) {
    std::vector<float> t;
    std::vector<double> host;
    for (int r = 0; r <= reps; ++r) {
      CHECK(cudaMemcpyAsync(dB, B.data(), B.size() * sizeof(double), cudaMemcpyHostToDevice, st) == cudaSuccess);
      if (held)
        CHECK(cudaLaunchHostFunc(
                  st, [](void *) { std::this_thread::sleep_for(std::chrono::milliseconds(20)); }, nullptr) ==
              cudaSuccess);
      CHECK(cudaEventRecord(e0, st) == cudaSuccess);
      if (held) CHECK(blas_batched_set_blocking(0) == 0);
      const auto h0 = std::chrono::steady_clock::now();
      call();
      const double host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - h0).count();
      if (held) CHECK(blas_batched_set_blocking(1) == 0);
      CHECK(cudaEventRecord(e1, st) == cudaSuccess);
      CHECK(cudaEventSynchronize(e1) == cudaSuccess);
      float ms = 0;
      cudaEventElapsedTime(&ms, e0, e1);
      if (r) t.push_back(ms), host.push_back(host_ms);  // the first is a warm-up
    }
    std::sort(host.begin(), host.end());
    if (held) enqueue_ms = host[host.size() / 2];
    std::sort(t.begin(), t.end());
    return double(t[t.size() / 2]);
  };
  // ||L X - alpha B|| / (||L|| ||X|| M eps) (trsm) or ||X - alpha L B|| / (|alpha| ||L|| ||B|| M
  // eps) (trmm) on a few columns, in double on the host.
  auto residual = [&](bool solve) {
    std::vector<double> X(B.size());
    CHECK(cudaMemcpy(X.data(), dB, X.size() * sizeof(double), cudaMemcpyDeviceToHost) == cudaSuccess);
    double l2 = 0, d2 = 0, b2 = 0;
    for (std::size_t i = 0; i < A.size(); ++i) l2 += A[i] * A[i];
    for (int j : {0, N / 2, N - 1}) {
      const double *in = (solve ? X.data() : B.data()) + std::size_t(j) * M;
      for (int i = 0; i < M; ++i) {
        double s = 0;
        for (int k = 0; k <= i; ++k) s += A[i + std::size_t(k) * M] * in[k];
        const double r = solve ? s - alpha * B[i + std::size_t(j) * M] : X[i + std::size_t(j) * M] - alpha * s;
        d2 += r * r, b2 += in[i] * in[i];
      }
    }
    return std::sqrt(d2) / ((solve ? 1 : alpha) * std::sqrt(l2) * std::sqrt(b2) * M * 0x1p-53);
  };
  std::printf("device,routine,backend,M,N,ms,gflops,pct_dgemm,residual\n");
  const int K = M / 2;
  const double gemm_ms = time([&] {
    CHECK(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &one, dA, M, dB, M, &zero, dC, M) == CUBLAS_STATUS_SUCCESS);
  });
  const double gemm_rate = 2.0 * M * N * K / (gemm_ms * 1e6);
  std::printf("%s,dgemm,cublas,%d,%d,%.4f,%.1f,100.0,\n", prop.name, M, N, gemm_ms, gemm_rate);
  for (bool solve : {true, false}) {
    const char *name = solve ? "trsm" : "trmm";
    auto lib = [&] {
      auto f = solve ? BLAS_trsm_batched_strided_r64 : BLAS_trmm_batched_strided_r64;
      CHECK(f(BLAS_ColMajor, BLAS_Left, BLAS_Lower, BLAS_NoTrans, BLAS_NonUnit, M, N, &alpha, dA, M, 0, dB, M,
              int64_t(M) * N, 1, nullptr) == 0);
    };
    auto vendor = [&] {
      if (solve)
        CHECK(cublasDtrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, M, N, &alpha,
                          dA, M, dB, M) == CUBLAS_STATUS_SUCCESS);
      else  // cuBLAS's trmm may write C = B in place
        CHECK(cublasDtrmm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, M, N, &alpha,
                          dA, M, dB, M, dB, M) == CUBLAS_STATUS_SUCCESS);
    };
    const char *backends[] = {"native-strided", "native-strided-queued", "cublas"};
    for (int which = 0; which < 3; ++which) {
      const double ms = which == 2 ? time(vendor) : time(lib, which == 1);
      const double rate = flops / (ms * 1e6);
      std::printf("%s,%s,%s,%d,%d,%.4f,%.1f,%.1f,%.2f\n", prop.name, name, backends[which], M, N, ms, rate,
                  100 * rate / gemm_rate, residual(solve));
      // The host's time to enqueue the queued call (non-blocking): where it nears the queued
      // GPU time, the call as called waits on the host.
      if (which == 1) std::printf("%s,%s,native-strided-enqueue,%d,%d,%.4f,,,\n", prop.name, name, M, N, enqueue_ms);
    }
  }
  blas_batched_set_cuda_stream(nullptr);
  cudaFree(dA), cudaFree(dB), cudaFree(dC);
  cublasDestroy(h);
  return 0;
}
