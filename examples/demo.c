/* A plain C program against the public header only: one batched gemm with two groups of
 * different sizes, then getrf and potrf, each checked, and where each group ran. */
#include <blas_batched/blas_batched.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double urand(void) { return 2.0 * rand() / RAND_MAX - 1.0; }

int main(void) {
  enum { G = 2 };
  int sizes[G] = {4, 64}, counts[G] = {1000, 10};
  int total = counts[0] + counts[1];
  double **A = malloc(sizeof(double *) * total), **B = malloc(sizeof(double *) * total),
         **C = malloc(sizeof(double *) * total);
  int *info = malloc(sizeof(int) * total);
  for (int g = 0, p = 0; g < G; ++g)
    for (int i = 0; i < counts[g]; ++i, ++p) {
      int n = sizes[g];
      A[p] = malloc(sizeof(double) * n * n), B[p] = malloc(sizeof(double) * n * n);
      C[p] = malloc(sizeof(double) * n * n);
      for (int e = 0; e < n * n; ++e) A[p][e] = urand(), B[p][e] = urand(), C[p][e] = urand();
    }
  BLAS_Op nt[G] = {BLAS_NoTrans, BLAS_NoTrans};
  double alpha[G] = {1.0, 1.0}, beta[G] = {0.0, 0.0};

  int rc = BLAS_gemm_batched_r64(BLAS_ColMajor, nt, nt, sizes, sizes, sizes, alpha, A, sizes, B,
                                 sizes, beta, C, sizes, G, counts, info);
  /* check the last problem of each group against a plain triple loop */
  double worst = 0;
  for (int g = 0, p = 0; g < G; p += counts[g], ++g) {
    int n = sizes[g], q = p + counts[g] - 1;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int l = 0; l < n; ++l) s += A[q][i + l * n] * B[q][l + j * n];
        double e = fabs(s - C[q][i + j * n]);
        if (e > worst) worst = e;
      }
  }
  printf("gemm: return %d, max |error| %.2e\n%s\n\n", rc, worst, blas_batched_last_call());

  /* getrf on the A's, potrf on B B^T + n I (written into C) */
  int **ipiv = malloc(sizeof(int *) * total);
  for (int g = 0, p = 0; g < G; ++g)
    for (int i = 0; i < counts[g]; ++i, ++p) {
      int n = sizes[g];
      ipiv[p] = malloc(sizeof(int) * n);
      for (int c = 0; c < n; ++c)
        for (int r = 0; r < n; ++r) {
          double s = r == c ? n : 0;
          for (int l = 0; l < n; ++l) s += B[p][r + l * n] * B[p][c + l * n];
          C[p][r + c * n] = s;
        }
    }
  rc = BLAS_getrf_batched_r64(BLAS_ColMajor, sizes, sizes, A, sizes, ipiv, G, counts, info);
  printf("getrf: return %d, info[0] = %d\n%s\n\n", rc, info[0], blas_batched_last_call());
  BLAS_Uplo lower[G] = {BLAS_Lower, BLAS_Lower};
  rc = BLAS_potrf_batched_r64(BLAS_ColMajor, lower, sizes, C, sizes, G, counts, info);
  printf("potrf: return %d, info[0] = %d\n%s\n", rc, info[0], blas_batched_last_call());
  int ok = rc == 0 && worst < 1e-12;
  printf("\ndemo %s\n", ok ? "OK" : "FAILED");
  for (int p = 0; p < total; ++p) free(A[p]), free(B[p]), free(C[p]), free(ipiv[p]);
  free(A), free(B), free(C), free(ipiv), free(info);
  return ok ? 0 : 1;
}
