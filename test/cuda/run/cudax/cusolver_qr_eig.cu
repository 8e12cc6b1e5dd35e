// cusolver_qr_eig: NVIDIA's cuSOLVER (the toolkit's libcusolver, with the libcublas and
// libcublasLt it calls, linked as users link them) on our driver, beyond cusolver_dense: the QR
// factorisation of a 120 x 80 matrix (cusolverDnDgeqrf, then cusolverDnDorgqr for Q), checked by
// Q R = A and Q^T Q = I, and the eigen-decomposition of a symmetric 96 x 96 matrix
// (cusolverDnDsyevd), checked by A v = lambda v, V^T V = I and the eigenvalues' sum and order.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#include <vector>

static const char *kName = "cusolver_qr_eig";

#include "../../check.h"

static double value(int I, int Seed) {
  return double(int((unsigned(I) * 2654435761u + unsigned(Seed) * 40503u) % 2001) - 1000) / 997;
}

// max |(X^T Y)(i, j) - (i == j)| over columns of X and Y (column-major, Rows rows).
static double orthogonality(const std::vector<double> &X, int Rows, int Cols) {
  double Worst = 0;
  for (int I = 0; I < Cols; ++I)
    for (int J = 0; J < Cols; ++J) {
      double Dot = 0;
      for (int K = 0; K < Rows; ++K)
        Dot += X[K + size_t(I) * Rows] * X[K + size_t(J) * Rows];
      Worst = std::fmax(Worst, std::fabs(Dot - (I == J)));
    }
  return Worst;
}

static int qr(cusolverDnHandle_t H) {
  const int M = 120, N = 80;
  std::vector<double> A(size_t(M) * N);
  for (size_t I = 0; I < A.size(); ++I)
    A[I] = value(int(I), 1);
  double *DA, *Tau, *DWork;
  int *Info, Work = 0, Work2 = 0, HostInfo = -1;
  CK(cudaMalloc(&DA, A.size() * sizeof(double)));
  CK(cudaMalloc(&Tau, N * sizeof(double)));
  CK(cudaMalloc(&Info, sizeof(int)));
  CK(cudaMemcpy(DA, A.data(), A.size() * sizeof(double), cudaMemcpyHostToDevice));
  LIB(cusolverDnDgeqrf_bufferSize(H, M, N, DA, M, &Work));
  LIB(cusolverDnDorgqr_bufferSize(H, M, N, N, DA, M, Tau, &Work2));
  CK(cudaMalloc(&DWork, std::max(Work, Work2) * sizeof(double) + 8));
  LIB(cusolverDnDgeqrf(H, M, N, DA, M, Tau, DWork, Work, Info));
  CK(cudaMemcpy(&HostInfo, Info, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(HostInfo == 0);
  std::vector<double> F(A.size());
  CK(cudaMemcpy(F.data(), DA, F.size() * sizeof(double), cudaMemcpyDeviceToHost));
  LIB(cusolverDnDorgqr(H, M, N, N, DA, M, Tau, DWork, std::max(Work, Work2), Info));
  CK(cudaMemcpy(&HostInfo, Info, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(HostInfo == 0);
  std::vector<double> Q(A.size());
  CK(cudaMemcpy(Q.data(), DA, Q.size() * sizeof(double), cudaMemcpyDeviceToHost));
  // R is the upper triangle geqrf left; Q R must give A back.
  double Worst = 0;
  for (int I = 0; I < M; ++I)
    for (int J = 0; J < N; ++J) {
      double Sum = 0, Mag = 0;
      for (int K = 0; K <= J; ++K) {
        double P = Q[I + size_t(K) * M] * F[K + size_t(J) * M];
        Sum += P;
        Mag += std::fabs(P);
      }
      Worst = std::fmax(Worst, std::fabs(Sum - A[I + size_t(J) * M]) / (Mag + 1e-300));
    }
  double Orth = orthogonality(Q, M, N);
  printf("dgeqrf + dorgqr %d x %d: |QR - A| %.2g, |Q^T Q - I| %.2g\n", M, N, Worst, Orth);
  EXPECT(Worst < 1e-13 && Orth < 1e-13);
  for (void *P : {(void *)DA, (void *)Tau, (void *)DWork, (void *)Info})
    CK(cudaFree(P));
  return 0;
}

static int eig(cusolverDnHandle_t H) {
  const int N = 96;
  std::vector<double> A(size_t(N) * N);
  double Trace = 0;
  for (int I = 0; I < N; ++I)
    for (int J = 0; J <= I; ++J) {
      A[I + size_t(J) * N] = A[J + size_t(I) * N] = value(I * N + J, 2);
      if (I == J)
        Trace += A[I + size_t(I) * N];
    }
  double *DA, *W, *DWork;
  int *Info, Work = 0, HostInfo = -1;
  CK(cudaMalloc(&DA, A.size() * sizeof(double)));
  CK(cudaMalloc(&W, N * sizeof(double)));
  CK(cudaMalloc(&Info, sizeof(int)));
  CK(cudaMemcpy(DA, A.data(), A.size() * sizeof(double), cudaMemcpyHostToDevice));
  const auto Job = CUSOLVER_EIG_MODE_VECTOR;
  LIB(cusolverDnDsyevd_bufferSize(H, Job, CUBLAS_FILL_MODE_LOWER, N, DA, N, W, &Work));
  CK(cudaMalloc(&DWork, Work * sizeof(double) + 8));
  LIB(cusolverDnDsyevd(H, Job, CUBLAS_FILL_MODE_LOWER, N, DA, N, W, DWork, Work, Info));
  CK(cudaMemcpy(&HostInfo, Info, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(HostInfo == 0);
  std::vector<double> V(A.size()), Lambda(N);
  CK(cudaMemcpy(V.data(), DA, V.size() * sizeof(double), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(Lambda.data(), W, N * sizeof(double), cudaMemcpyDeviceToHost));
  double Norm = 0, Sum = 0, Worst = 0;
  for (double X : A)
    Norm = std::fmax(Norm, std::fabs(X));
  Norm *= N; // a bound of the matrix's 2-norm
  bool Ascending = true;
  for (int K = 0; K < N; ++K) {
    Sum += Lambda[K];
    Ascending &= K == 0 || Lambda[K - 1] <= Lambda[K];
    for (int I = 0; I < N; ++I) {
      double Av = 0;
      for (int J = 0; J < N; ++J)
        Av += A[I + size_t(J) * N] * V[J + size_t(K) * N];
      Worst = std::fmax(Worst, std::fabs(Av - Lambda[K] * V[I + size_t(K) * N]) / Norm);
    }
  }
  double Orth = orthogonality(V, N, N);
  printf("dsyevd %d: |Av - lambda v| / |A| %.2g, |V^T V - I| %.2g, eigenvalues %g .. %g, sum %.6f "
         "(trace %.6f)\n",
         N, Worst, Orth, Lambda[0], Lambda[N - 1], Sum, Trace);
  EXPECT(Worst < 1e-13 && Orth < 1e-12 && Ascending && std::fabs(Sum - Trace) < 1e-9 * Norm);
  for (void *P : {(void *)DA, (void *)W, (void *)DWork, (void *)Info})
    CK(cudaFree(P));
  return 0;
}

int main() {
  cusolverDnHandle_t H;
  LIB(cusolverDnCreate(&H));
  if (qr(H) || eig(H))
    return 1;
  LIB(cusolverDnDestroy(H));
  printf("PASS %s\n", kName);
  return 0;
}
