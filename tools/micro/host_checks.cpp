// 100,000 one-problem groups (n 2..32) on host data, four calls: with BLAS_BATCHED_DEBUG=time
// the group checks' cost without any residency query (no GPU, or pageable memory only).
//   g++ -O2 -std=c++17 -Iinclude tools/micro/host_checks.cpp -Lbuild -lblas_batched -Wl,-rpath,$PWD/build -o /tmp/hc
//   BLAS_BATCHED_DEBUG=time OMP_NUM_THREADS=1 /tmp/hc 2>&1 | grep 'call '
#include <blas_batched/blas_batched.h>
#include <vector>
#include <random>
#include <cstdio>
int main() {
  const int G = 100000;
  std::mt19937 rng(1);
  std::vector<BLAS_Op> ta(G, BLAS_NoTrans), tb(G, BLAS_NoTrans);
  std::vector<int> m(G), n(G), k(G), lda(G), ldb(G), ldc(G), sz(G, 1), info(G);
  std::vector<double> al(G, 1.0), be(G, 0.5);
  std::vector<double *> A(G), B(G), C(G);
  std::vector<std::vector<double>> store(3 * G);
  for (int g = 0; g < G; ++g) {
    int s = 2 + rng() % 31; m[g] = n[g] = k[g] = s; lda[g] = ldb[g] = ldc[g] = s;
    store[3*g].assign(s*s, 1.0); store[3*g+1].assign(s*s, 1.0); store[3*g+2].assign(s*s, 1.0);
    A[g] = store[3*g].data(); B[g] = store[3*g+1].data(); C[g] = store[3*g+2].data();
  }
  for (int r = 0; r < 4; ++r) {
    int rc = BLAS_gemm_batched_r64(BLAS_ColMajor, ta.data(), tb.data(), m.data(), n.data(), k.data(), al.data(), A.data(), lda.data(), B.data(), ldb.data(), be.data(), C.data(), ldc.data(), G, sz.data(), info.data());
    if (rc) std::printf("rc %d\n", rc);
  }
}
