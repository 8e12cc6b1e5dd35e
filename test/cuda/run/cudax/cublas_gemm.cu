// cublas_gemm: NVIDIA's cuBLAS (the toolkit's libcublas and libcublasLt, linked as users link
// them) on our driver: cublasSgemm of 256 x 256 x 256 in every transpose pair, and a
// cublasDgemm, against a CPU loop in double precision. cuBLAS hands single-precision GEMMs to
// cuBLASLt, whose SASS-only kernel libraries no PTX driver can load: the driver says it runs PTX
// only (CUDA_FORCE_PTX_JIT), and cuBLASLt takes its forward-compatible PTX kernels. Its PTX is
// for sm_120 only: the device (8.6) takes it, having none at or below its capability.
#include <cmath>
#include <cstdio>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <vector>

static const char *kName = "cublas_gemm";

#include "../../check.h"

// Column-major op(X)(i, k) of an n x n matrix.
template <typename T> static double at(const std::vector<T> &X, int N, bool Trans, int I, int K) {
  return Trans ? double(X[K + size_t(I) * N]) : double(X[I + size_t(K) * N]);
}

// The largest error of C = alpha op(A) op(B) + beta C0 over a sample of elements, relative to
// the sum of the products' magnitudes (the bound of any summation order's rounding).
template <typename T>
static double gemmError(const std::vector<T> &A, const std::vector<T> &B, const std::vector<T> &C0,
                        const std::vector<T> &C, int N, bool TA, bool TB, double Alpha,
                        double Beta) {
  double Worst = 0;
  for (int I = 0; I < N; I += 7)
    for (int J = 0; J < N; J += 5) {
      double Sum = 0, Mag = 0;
      for (int K = 0; K < N; ++K) {
        double P = at(A, N, TA, I, K) * at(B, N, TB, K, J);
        Sum += P;
        Mag += std::fabs(P);
      }
      size_t IJ = I + size_t(J) * N;
      double Want = Alpha * Sum + Beta * double(C0[IJ]);
      double Scale = std::fabs(Alpha) * Mag + std::fabs(Beta * double(C0[IJ])) + 1e-30;
      Worst = std::fmax(Worst, std::fabs(double(C[IJ]) - Want) / Scale);
    }
  return Worst;
}

template <typename T> static std::vector<T> pattern(int N, int Seed) {
  std::vector<T> X(size_t(N) * N);
  for (size_t I = 0; I < X.size(); ++I)
    X[I] = T(int((I * 2654435761u + Seed * 40503u) % 2001) - 1000) / T(997);
  return X;
}

int main() {
  const int N = 256;
  const size_t Bytes = size_t(N) * N * sizeof(float);
  auto A = pattern<float>(N, 1), B = pattern<float>(N, 2), C0 = pattern<float>(N, 3);
  float *dA, *dB, *dC;
  CK(cudaMalloc(&dA, Bytes));
  CK(cudaMalloc(&dB, Bytes));
  CK(cudaMalloc(&dC, Bytes));
  CK(cudaMemcpy(dA, A.data(), Bytes, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB, B.data(), Bytes, cudaMemcpyHostToDevice));
  cublasHandle_t H;
  LIB(cublasCreate(&H));
  const cublasOperation_t Ops[] = {CUBLAS_OP_N, CUBLAS_OP_T};
  for (cublasOperation_t OA : Ops)
    for (cublasOperation_t OB : Ops) {
      const float Alpha = 1.5f, Beta = OA == OB ? 0.0f : -0.5f;
      std::vector<float> C(size_t(N) * N);
      CK(cudaMemcpy(dC, C0.data(), Bytes, cudaMemcpyHostToDevice));
      LIB(cublasSgemm(H, OA, OB, N, N, N, &Alpha, dA, N, dB, N, &Beta, dC, N));
      CK(cudaMemcpy(C.data(), dC, Bytes, cudaMemcpyDeviceToHost));
      double E = gemmError(A, B, C0, C, N, OA == CUBLAS_OP_T, OB == CUBLAS_OP_T, Alpha, Beta);
      printf("sgemm %c%c: relative error %.2g\n", OA == CUBLAS_OP_N ? 'N' : 'T',
             OB == CUBLAS_OP_N ? 'N' : 'T', E);
      EXPECT(E < 1e-5);
    }

  auto DA = pattern<double>(N, 4), DB = pattern<double>(N, 5), DC0 = pattern<double>(N, 6);
  double *dDA, *dDB, *dDC;
  CK(cudaMalloc(&dDA, 2 * Bytes));
  CK(cudaMalloc(&dDB, 2 * Bytes));
  CK(cudaMalloc(&dDC, 2 * Bytes));
  CK(cudaMemcpy(dDA, DA.data(), 2 * Bytes, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dDB, DB.data(), 2 * Bytes, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dDC, DC0.data(), 2 * Bytes, cudaMemcpyHostToDevice));
  const double Alpha = -2.0, Beta = 0.25;
  LIB(cublasDgemm(H, CUBLAS_OP_N, CUBLAS_OP_T, N, N, N, &Alpha, dDA, N, dDB, N, &Beta, dDC, N));
  std::vector<double> DC(size_t(N) * N);
  CK(cudaMemcpy(DC.data(), dDC, 2 * Bytes, cudaMemcpyDeviceToHost));
  double E = gemmError(DA, DB, DC0, DC, N, false, true, Alpha, Beta);
  printf("dgemm NT: relative error %.2g\n", E);
  EXPECT(E < 1e-13);

  LIB(cublasDestroy(H));
  for (void *P : {(void *)dA, (void *)dB, (void *)dC, (void *)dDA, (void *)dDB, (void *)dDC})
    CK(cudaFree(P));
  printf("PASS %s\n", kName);
  return 0;
}
