// cublas_level1: NVIDIA's cuBLAS (the toolkit's libcublas, linked as users link it) on our
// driver: cublasSaxpy then cublasSdot of 1000 floats against a CPU loop, on the default stream,
// on a stream of the program's and on the per-thread default stream. cuBLAS works out its
// kernels' occupancy from their registers (cuFuncGetAttribute) and keys its workspaces by
// stream through private export tables (TOOLS_TLS, CONTEXT_STREAM_INTERNALS). Its PTX is for
// sm_120 only, which the device takes, having none at or below its capability.
#include <cmath>
#include <cstdio>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <vector>

static const char *kName = "cublas_level1";

#include "../../check.h"

int main() {
  const int N = 1000;
  std::vector<float> X(N), Y(N);
  for (int I = 0; I < N; ++I) {
    X[I] = 0.001f * I - 0.25f;
    Y[I] = 1.0f - 0.0005f * I;
  }
  float *DX = nullptr, *DY = nullptr;
  CK(cudaMalloc(&DX, N * sizeof(float)));
  CK(cudaMalloc(&DY, N * sizeof(float)));
  CK(cudaMemcpy(DX, X.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(DY, Y.data(), N * sizeof(float), cudaMemcpyHostToDevice));
  cublasHandle_t H;
  LIB(cublasCreate(&H));
  cudaStream_t Mine;
  CK(cudaStreamCreate(&Mine));
  const cudaStream_t Streams[] = {nullptr, Mine, cudaStreamPerThread};
  const char *Names[] = {"default stream", "own stream", "per-thread stream"};
  const float A = 2.0f;
  for (int S = 0; S < 3; ++S) {
    LIB(cublasSetStream(H, Streams[S]));
    // y = a x + y, then x . y, each checked in double precision.
    LIB(cublasSaxpy(H, N, &A, DX, 1, DY, 1));
    float Dot = 0;
    LIB(cublasSdot(H, N, DX, 1, DY, 1, &Dot));
    std::vector<float> R(N);
    CK(cudaMemcpy(R.data(), DY, N * sizeof(float), cudaMemcpyDeviceToHost));
    double Want = 0;
    int Bad = 0;
    for (int I = 0; I < N; ++I) {
      Y[I] = A * X[I] + Y[I];
      if (std::fabs(R[I] - Y[I]) > 1e-6f * std::fmax(1.0f, std::fabs(Y[I])))
        ++Bad;
      Want += double(X[I]) * Y[I];
    }
    printf("%s: saxpy %d of %d wrong; sdot %.6f, want %.6f\n", Names[S], Bad, N, Dot, Want);
    EXPECT(Bad == 0);
    EXPECT(std::fabs(Dot - Want) <= 1e-5 * std::fmax(1.0, std::fabs(Want)));
  }
  LIB(cublasDestroy(H));
  CK(cudaStreamDestroy(Mine));
  CK(cudaFree(DX));
  CK(cudaFree(DY));
  printf("PASS %s\n", kName);
  return 0;
}
