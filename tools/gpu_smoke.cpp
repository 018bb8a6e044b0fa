// Quick device check while the full suites are written: a few gemm shapes on device memory
// against the host backend, and a 1 GB timing per n. Not part of the build.
#include <blas_batched/blas_batched.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA %s at %d\n", cudaGetErrorString(e), __LINE__); exit(1); } } while (0)

static int check(int n, int m, int k, BLAS_Op ta, BLAS_Op tb, BLAS_Layout lay, int count, bool scatter, int pad = 1) {
  std::mt19937 rng(n * 131 + m * 7 + k);
  std::uniform_real_distribution<double> u(-1, 1);
  bool an = ta == BLAS_NoTrans, bn = tb == BLAS_NoTrans;
  int ar = an ? m : k, ac = an ? k : m, br = bn ? k : n, bc = bn ? n : k;
  bool col = lay == BLAS_ColMajor;
  int lda = (col ? ar : ac) + pad, ldb = (col ? br : bc) + 2 * pad, ldc = (col ? m : n) + pad;
  size_t ea = size_t(lda) * (col ? ac : ar), eb = size_t(ldb) * (col ? bc : br), ec = size_t(ldc) * (col ? n : m);
  std::vector<double> hA(ea * count), hB(eb * count), hC(ec * count), hC2;
  for (auto &x : hA) x = u(rng);
  for (auto &x : hB) x = u(rng);
  for (auto &x : hC) x = u(rng);
  hC2 = hC;
  double *dA, *dB, *dC;
  CK(cudaMalloc(&dA, hA.size() * 8)); CK(cudaMalloc(&dB, hB.size() * 8)); CK(cudaMalloc(&dC, hC.size() * 8));
  CK(cudaMemcpy(dA, hA.data(), hA.size() * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB, hB.data(), hB.size() * 8, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dC, hC.data(), hC.size() * 8, cudaMemcpyHostToDevice));
  std::vector<int> perm(count);
  for (int i = 0; i < count; ++i) perm[i] = i;
  if (scatter) std::shuffle(perm.begin(), perm.end(), rng);
  std::vector<double *> pA(count), pB(count), pC(count), hpA(count), hpB(count), hpC(count);
  for (int i = 0; i < count; ++i) {
    pA[i] = dA + ea * perm[i], pB[i] = dB + eb * perm[i], pC[i] = dC + ec * perm[i];
    hpA[i] = hA.data() + ea * perm[i], hpB[i] = hB.data() + eb * perm[i], hpC[i] = hC2.data() + ec * perm[i];
  }
  double alpha = 0.7, beta = -0.3;
  int info0 = 5;
  std::vector<int> info(count, 5);
  int r = BLAS_gemm_batched_r64(lay, &ta, &tb, &m, &n, &k, &alpha, pA.data(), &lda, pB.data(), &ldb, &beta, pC.data(), &ldc, 1, &count, info.data());
  int r2 = BLAS_gemm_batched_r64(lay, &ta, &tb, &m, &n, &k, &alpha, hpA.data(), &lda, hpB.data(), &ldb, &beta, hpC.data(), &ldc, 1, &count, &info0 - 0 + 0 == nullptr ? nullptr : nullptr);
  CK(cudaMemcpy(hC.data(), dC, hC.size() * 8, cudaMemcpyDeviceToHost));
  double err = 0;
  for (size_t i = 0; i < hC.size(); ++i) err = std::max(err, std::fabs(hC[i] - hC2[i]));
  int bad_info = 0;
  for (int x : info) bad_info += x != 0;
  printf("check m%d n%d k%d ta%d tb%d %s cnt%d %s: ret %d/%d err %.2e bad_info %d  [%s]\n", m, n, k, ta, tb, col ? "col" : "row", count, scatter ? "scat" : "strd", r, r2, err, bad_info, blas_batched_last_call());
  cudaFree(dA); cudaFree(dB); cudaFree(dC);
  return err > 1e-12 || r || bad_info;
}

static void timeit(int n, bool f32) {
  size_t es = f32 ? 4 : 8;
  size_t per = 4 * size_t(n) * n * es;
  int count = int(1e9 / per);
  size_t elems = size_t(n) * n * count;
  char *A, *B, *C;
  CK(cudaMalloc(&A, elems * es)); CK(cudaMalloc(&B, elems * es)); CK(cudaMalloc(&C, elems * es));
  CK(cudaMemset(A, 0x3c, elems * es)); CK(cudaMemset(B, 0x3c, elems * es)); CK(cudaMemset(C, 0x3c, elems * es));
  std::vector<void *> pA(count), pB(count), pC(count);
  for (int i = 0; i < count; ++i) pA[i] = A + i * n * n * es, pB[i] = B + i * n * n * es, pC[i] = C + i * n * n * es;
  BLAS_Op op = BLAS_NoTrans;
  std::vector<int> info(count);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  blas_batched_set_cuda_stream(s);
  for (const char *be : {"native", "vendor"}) {
    setenv("BLAS_BATCHED_BACKEND", be, 1);
    std::vector<float> t;
    double kms = 0;
    for (int rep = 0; rep < 6; ++rep) {
      CK(cudaEventRecord(e0, s));
      int r;
      if (f32) { float a = 1, b = 0.5f; r = BLAS_gemm_batched_r32(BLAS_ColMajor, &op, &op, &n, &n, &n, &a, (float **)pA.data(), &n, (float **)pB.data(), &n, &b, (float **)pC.data(), &n, 1, &count, info.data()); }
      else { double a = 1, b = 0.5; r = BLAS_gemm_batched_r64(BLAS_ColMajor, &op, &op, &n, &n, &n, &a, (double **)pA.data(), &n, (double **)pB.data(), &n, &b, (double **)pC.data(), &n, 1, &count, info.data()); }
      CK(cudaEventRecord(e1, s));
      CK(cudaEventSynchronize(e1));
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (r) printf("ret %d\n", r);
      if (rep) t.push_back(ms);
      kms = blas_batched_last_device_ms();
    }
    std::sort(t.begin(), t.end());
    double ms = t[t.size() / 2];
    printf("time %s n=%d %s batch %d: call %.3f ms (%.0f GB/s), device %.3f ms (%.0f GB/s) [%s]\n", f32 ? "r32" : "r64", n, be, count, ms, 1e9 / ms / 1e6, kms, 1e9 / kms / 1e6, blas_batched_last_call());
  }
  blas_batched_set_cuda_stream(nullptr);
  cudaFree(A); cudaFree(B); cudaFree(C);
}

int main(int argc, char **argv) {
  setenv("BLAS_BATCHED_DEVICE_TIMING", "1", 1);
  int fails = 0;
  const BLAS_Op ops[3] = {BLAS_NoTrans, BLAS_Trans, BLAS_ConjTrans};
  for (int n : {1, 2, 3, 4, 7, 8, 13, 16, 31, 32, 33, 70, 130})
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        for (BLAS_Layout l : {BLAS_ColMajor, BLAS_RowMajor})
          fails += check(n, n + (a == 1), n + (b == 2), ops[a], ops[b], l, 37, (a + b) % 2);
  fails += check(2, 2, 2, BLAS_NoTrans, BLAS_NoTrans, BLAS_ColMajor, 200000, false);
  for (const char *cfg : {"10", "11", "12", "13"}) {
    setenv("BLAS_BATCHED_GEMM_CONFIG", cfg, 1);
    for (int n : {1, 2, 4, 8, 16})
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
          for (BLAS_Layout l : {BLAS_ColMajor, BLAS_RowMajor})
            fails += check(n, n * (a == 1 ? 2 : 1), n, ops[a], ops[b], l, 1000 + 7 * a, (a + b) % 2, 0);
  }
  unsetenv("BLAS_BATCHED_GEMM_CONFIG");
  printf("FAILS %d\n", fails);
  for (int n : {2, 4, 8, 16, 32, 64, 128, 256}) timeit(n, false);
  for (int n : {2, 4, 8, 16, 32}) timeit(n, true);
  return fails != 0;
}
