// matmul_tiled: C = alpha * A * B + beta * C with 16x16 shared-memory tiles, a 2D grid, and
// matrix sizes that are not multiples of the tile (edge tiles padded with zeros). Templated
// on the element type (float and double). Inputs are small integers so every product and
// sum is exact and the result can be compared bit for bit.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static const char *kName = "matmul_tiled";

#include "check.h"

constexpr int kTile = 16;

template <typename T>
__global__ void matmul(int M, int N, int K, T alpha, const T *__restrict__ A,
                       const T *__restrict__ B, T beta, T *__restrict__ C) {
  __shared__ T As[kTile][kTile];
  __shared__ T Bs[kTile][kTile + 1]; // padded row: a different shared layout from As
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * kTile + ty;
  const int col = blockIdx.x * kTile + tx;
  T acc = 0;
  for (int k0 = 0; k0 < K; k0 += kTile) {
    As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : T(0);
    Bs[ty][tx] = (col < N && k0 + ty < K) ? B[(k0 + ty) * N + col] : T(0);
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kTile; ++k)
      acc += As[ty][k] * Bs[k][tx];
    __syncthreads();
  }
  if (row < M && col < N)
    C[row * N + col] = alpha * acc + beta * C[row * N + col];
}

template <typename T> static int run(const char *type, int M, int N, int K) {
  T *hA = (T *)malloc(sizeof(T) * M * K);
  T *hB = (T *)malloc(sizeof(T) * K * N);
  T *hC = (T *)malloc(sizeof(T) * M * N);
  T *hR = (T *)malloc(sizeof(T) * M * N);
  for (int i = 0; i < M * K; ++i)
    hA[i] = (T)((i * 7 + 3) % 17 - 8);
  for (int i = 0; i < K * N; ++i)
    hB[i] = (T)((i * 5 + 1) % 13 - 6);
  for (int i = 0; i < M * N; ++i)
    hC[i] = (T)(i % 9 - 4);
  const T alpha = (T)2, beta = (T)-3;

  T *dA, *dB, *dC;
  CK(cudaMalloc(&dA, sizeof(T) * M * K));
  CK(cudaMalloc(&dB, sizeof(T) * K * N));
  CK(cudaMalloc(&dC, sizeof(T) * M * N));
  CK(cudaMemcpy(dA, hA, sizeof(T) * M * K, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dB, hB, sizeof(T) * K * N, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dC, hC, sizeof(T) * M * N, cudaMemcpyHostToDevice));
  dim3 block(kTile, kTile);
  dim3 grid((N + kTile - 1) / kTile, (M + kTile - 1) / kTile);
  matmul<T><<<grid, block>>>(M, N, K, alpha, dA, dB, beta, dC);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hR, dC, sizeof(T) * M * N, cudaMemcpyDeviceToHost));

  int rc = 0;
  for (int r = 0; r < M && !rc; ++r)
    for (int c = 0; c < N; ++c) {
      T acc = 0;
      for (int k = 0; k < K; ++k)
        acc += hA[r * K + k] * hB[k * N + c];
      T want = alpha * acc + beta * hC[r * N + c];
      if (hR[r * N + c] != want) {
        printf("FAIL %s: %s C[%d][%d] = %g, want %g\n", kName, type, r, c, (double)hR[r * N + c],
               (double)want);
        rc = 1;
        break;
      }
    }
  CK(cudaFree(dA));
  CK(cudaFree(dB));
  CK(cudaFree(dC));
  free(hA);
  free(hB);
  free(hC);
  free(hR);
  return rc;
}

int main() {
  if (run<float>("float", 70, 45, 53))
    return 1;
  if (run<double>("double", 33, 50, 40))
    return 1;
  printf("PASS %s\n", kName);
  return 0;
}
