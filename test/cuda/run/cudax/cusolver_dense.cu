// cusolver_dense: NVIDIA's cuSOLVER (the toolkit's libcusolver, with the libcublas and
// libcublasLt it calls, linked as users link them) on our driver: LU with partial pivoting
// (cusolverDnSgetrf, then cusolverDnSgetrs) and Cholesky (cusolverDnDpotrf, then
// cusolverDnDpotrs) of 96 x 96 systems, checked by their residuals on the CPU. At compute
// capability 8.0 and above cuSOLVER's Cholesky and LU take 96 KB of shared memory a block, more
// than the 64 KB of LDS of gfx90a and gfx1100: they opt in, and their launches run with dynamic
// shared memory in global memory (loader/README.md). At 7.5 its configurations fit 64 KB. The
// Cholesky is skipped, saying so, where a device at 8.0 or above offers less than 99 KB.
#include <cmath>
#include <cstdio>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <vector>

static const char *kName = "cusolver_dense";

#include "../../check.h"

// max |A x - b| / (|A| |x| + |b|), column-major A.
template <typename T>
static double residual(const std::vector<T> &A, const std::vector<T> &X, const std::vector<T> &B,
                       int N) {
  double Worst = 0;
  for (int I = 0; I < N; ++I) {
    double Sum = 0, Mag = std::fabs(double(B[I]));
    for (int J = 0; J < N; ++J) {
      Sum += double(A[I + size_t(J) * N]) * double(X[J]);
      Mag += std::fabs(double(A[I + size_t(J) * N]) * double(X[J]));
    }
    Worst = std::fmax(Worst, std::fabs(Sum - double(B[I])) / Mag);
  }
  return Worst;
}

int main() {
  const int N = 96;
  cusolverDnHandle_t H;
  LIB(cusolverDnCreate(&H));
  int *Info, *Pivots;
  CK(cudaMalloc(&Info, sizeof(int)));
  CK(cudaMalloc(&Pivots, N * sizeof(int)));

  // A general matrix whose pivots must move rows (small diagonal).
  std::vector<float> A(size_t(N) * N), B(N);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I)
      A[I + size_t(J) * N] = float(int((I * 37 + J * 11) % 23) - 11) / 4.0f + (I == J ? 0.01f : 0);
  for (int I = 0; I < N; ++I)
    B[I] = float(I % 9) - 4.0f;
  float *DA, *DB;
  CK(cudaMalloc(&DA, A.size() * sizeof(float)));
  CK(cudaMalloc(&DB, N * sizeof(float)));
  CK(cudaMemcpy(DA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(DB, B.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  int Work = 0;
  LIB(cusolverDnSgetrf_bufferSize(H, N, N, DA, N, &Work));
  float *DWork;
  CK(cudaMalloc(&DWork, (Work + 1) * sizeof(float)));
  LIB(cusolverDnSgetrf(H, N, N, DA, N, DWork, Pivots, Info));
  int HostInfo = -1;
  CK(cudaMemcpy(&HostInfo, Info, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(HostInfo == 0);
  LIB(cusolverDnSgetrs(H, CUBLAS_OP_N, N, 1, DA, N, Pivots, DB, N, Info));
  std::vector<float> X(N);
  CK(cudaMemcpy(X.data(), DB, N * sizeof(float), cudaMemcpyDeviceToHost));
  double R = residual(A, X, B, N);
  printf("sgetrf + sgetrs %d: relative residual %.2g\n", N, R);
  EXPECT(R < 1e-5);

  cudaDeviceProp Prop;
  CK(cudaGetDeviceProperties(&Prop, 0));
  if (Prop.major >= 8 && Prop.sharedMemPerBlockOptin < 99 * 1024) {
    printf("dpotrf skipped: at compute capability %d.%d cuSOLVER's Cholesky needs 96 KB of shared "
           "memory a block; the device has %zu bytes\n",
           Prop.major, Prop.minor, Prop.sharedMemPerBlockOptin);
    LIB(cusolverDnDestroy(H));
    printf("PASS %s\n", kName);
    return 0;
  }

  // A symmetric positive definite one: M^T M + N I.
  std::vector<double> S(size_t(N) * N), C(N);
  for (int J = 0; J < N; ++J)
    for (int I = 0; I < N; ++I) {
      double Sum = I == J ? N : 0;
      for (int K = 0; K < N; ++K)
        Sum += double((K * 13 + I * 7) % 17 - 8) * double((K * 13 + J * 7) % 17 - 8) / 64.0;
      S[I + size_t(J) * N] = Sum;
    }
  for (int I = 0; I < N; ++I)
    C[I] = std::sin(double(I));
  double *DS, *DC;
  CK(cudaMalloc(&DS, S.size() * sizeof(double)));
  CK(cudaMalloc(&DC, N * sizeof(double)));
  CK(cudaMemcpy(DS, S.data(), S.size() * sizeof(double), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(DC, C.data(), N * sizeof(double), cudaMemcpyHostToDevice));
  LIB(cusolverDnDpotrf_bufferSize(H, CUBLAS_FILL_MODE_LOWER, N, DS, N, &Work));
  double *DDWork;
  CK(cudaMalloc(&DDWork, (Work + 1) * sizeof(double)));
  LIB(cusolverDnDpotrf(H, CUBLAS_FILL_MODE_LOWER, N, DS, N, DDWork, Work, Info));
  CK(cudaMemcpy(&HostInfo, Info, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(HostInfo == 0);
  LIB(cusolverDnDpotrs(H, CUBLAS_FILL_MODE_LOWER, N, 1, DS, N, DC, N, Info));
  std::vector<double> Y(N);
  CK(cudaMemcpy(Y.data(), DC, N * sizeof(double), cudaMemcpyDeviceToHost));
  R = residual(S, Y, C, N);
  printf("dpotrf + dpotrs %d: relative residual %.2g\n", N, R);
  EXPECT(R < 1e-13);

  LIB(cusolverDnDestroy(H));
  for (void *P : {(void *)Info, (void *)Pivots, (void *)DA, (void *)DB, (void *)DWork, (void *)DS,
                  (void *)DC, (void *)DDWork})
    CK(cudaFree(P));
  printf("PASS %s\n", kName);
  return 0;
}
