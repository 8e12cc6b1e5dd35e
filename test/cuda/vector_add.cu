// vector_add: element-wise a*x + y over float and int vectors with grid-stride loops.
// The grid is deliberately smaller than the data so every thread runs several iterations,
// and the element count is not a multiple of the block size (partial last block).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static const char *kName = "vector_add";

#include "check.h"

__global__ void saxpy(int n, float a, const float *__restrict__ x, const float *__restrict__ y,
                      float *__restrict__ out) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = a * x[i] + y[i];
}

__global__ void iaxpy(long long n, int a, const int *x, const int *y, int *out) {
  long long stride = (long long)blockDim.x * gridDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = a * x[i] - y[i];
}

int main() {
  const int n = 100003; // prime: partial last block for every block size
  const float fa = 2.5f;
  const int ia = -7;

  float *hx = (float *)malloc(n * sizeof(float));
  float *hy = (float *)malloc(n * sizeof(float));
  float *hout = (float *)malloc(n * sizeof(float));
  int *ix = (int *)malloc(n * sizeof(int));
  int *iy = (int *)malloc(n * sizeof(int));
  int *iout = (int *)malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i) {
    hx[i] = (float)(i % 1000) * 0.25f - 100.0f;
    hy[i] = (float)((i * 7) % 513) * 0.5f;
    ix[i] = (i * 2654435761u) >> 16;
    iy[i] = i ^ 0x5a5a;
  }

  float *dx, *dy, *dout;
  int *dix, *diy, *diout;
  CK(cudaMalloc(&dx, n * sizeof(float)));
  CK(cudaMalloc(&dy, n * sizeof(float)));
  CK(cudaMalloc(&dout, n * sizeof(float)));
  CK(cudaMalloc(&dix, n * sizeof(int)));
  CK(cudaMalloc(&diy, n * sizeof(int)));
  CK(cudaMalloc(&diout, n * sizeof(int)));
  CK(cudaMemcpy(dx, hx, n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dy, hy, n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dix, ix, n * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(diy, iy, n * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemset(dout, 0, n * sizeof(float)));
  CK(cudaMemset(diout, 0xff, n * sizeof(int)));

  saxpy<<<37, 256>>>(n, fa, dx, dy, dout);
  CK(cudaGetLastError());
  iaxpy<<<13, 128>>>(n, ia, dix, diy, diout);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  CK(cudaMemcpy(hout, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(iout, diout, n * sizeof(int), cudaMemcpyDeviceToHost));

  int rc = 0;
  for (int i = 0; i < n; ++i) {
    // a*x is exact (x is a multiple of 0.25 below 2^10, a = 2.5), so the sum rounds once.
    float want = fa * hx[i] + hy[i];
    if (hout[i] != want) {
      printf("FAIL %s: saxpy[%d] = %.9g, want %.9g\n", kName, i, hout[i], want);
      rc = 1;
      break;
    }
    int iwant = (int)((unsigned)ia * (unsigned)ix[i] - (unsigned)iy[i]);
    if (!rc && iout[i] != iwant) {
      printf("FAIL %s: iaxpy[%d] = %d, want %d\n", kName, i, iout[i], iwant);
      rc = 1;
      break;
    }
  }

  CK(cudaFree(dx));
  CK(cudaFree(dy));
  CK(cudaFree(dout));
  CK(cudaFree(dix));
  CK(cudaFree(diy));
  CK(cudaFree(diout));
  free(hx);
  free(hy);
  free(hout);
  free(ix);
  free(iy);
  free(iout);
  if (rc == 0)
    printf("PASS %s\n", kName);
  return rc;
}
