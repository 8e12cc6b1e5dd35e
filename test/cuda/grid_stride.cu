// grid_stride: one grid-stride loop over 10^7 elements (a 64-bit index and stride) launched with a
// small grid, 40 blocks of 256 threads, so every thread runs about 980 iterations: SAXPY in place
// (y = a*x + y, fused with one rounding) and an integer mix of a second input with the index.
// Each thread also records how many iterations it ran. Every element and every count is checked
// against the host reference (grid_stride_ref.h) exactly.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "grid_stride_ref.h"

using grid_stride::kName;

#include "check.h"

__global__ void saxpy_mix(long long n, float a, const float *__restrict__ x, float *__restrict__ y,
                          const int *__restrict__ k, int *__restrict__ out, int *iters) {
  const long long stride = (long long)blockDim.x * gridDim.x;
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  int count = 0;
  for (long long i = t; i < n; i += stride, ++count) {
    y[i] = __fmaf_rn(a, x[i], y[i]);
    unsigned h = (unsigned)k[i] * 2654435761u;
    h ^= (unsigned)(i >> 7);
    h = (h << 5) | (h >> 27);
    out[i] = (int)(h + (unsigned)i);
  }
  iters[t] = count;
}

int main() {
  using namespace grid_stride;
  const long long n = 10000000;
  const int blocks = 40, block = 256;
  const long long threads = (long long)blocks * block;
  const float a = -1.75f;

  float *hx = (float *)malloc(n * sizeof(float));
  float *hy = (float *)malloc(n * sizeof(float));
  int *hk = (int *)malloc(n * sizeof(int));
  int *hiters = (int *)malloc(threads * sizeof(int));
  for (long long i = 0; i < n; ++i) {
    hx[i] = x_at(i);
    hy[i] = y_at(i);
    hk[i] = k_at(i);
  }

  float *dx, *dy;
  int *dk, *dout, *diters;
  CK(cudaMalloc(&dx, n * sizeof(float)));
  CK(cudaMalloc(&dy, n * sizeof(float)));
  CK(cudaMalloc(&dk, n * sizeof(int)));
  CK(cudaMalloc(&dout, n * sizeof(int)));
  CK(cudaMalloc(&diters, threads * sizeof(int)));
  CK(cudaMemcpy(dx, hx, n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dy, hy, n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dk, hk, n * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemset(dout, 0xff, n * sizeof(int)));
  CK(cudaMemset(diters, 0xff, threads * sizeof(int)));

  saxpy_mix<<<blocks, block>>>(n, a, dx, dy, dk, dout, diters);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  // The inputs are functions of the index: the results come back into the input buffers.
  CK(cudaMemcpy(hy, dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hk, dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hiters, diters, threads * sizeof(int), cudaMemcpyDeviceToHost));
  const int rc = check(n, a, hy, hk, hiters, threads);

  CK(cudaFree(dx));
  CK(cudaFree(dy));
  CK(cudaFree(dk));
  CK(cudaFree(dout));
  CK(cudaFree(diters));
  free(hx);
  free(hy);
  free(hk);
  free(hiters);
  if (rc == 0)
    printf("PASS %s\n", kName);
  return rc;
}
