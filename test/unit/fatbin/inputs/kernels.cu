// Kernels for the fatbin reader tests. Built by nvcc at build time in several
// ways (compression modes, -gencode sets, -G, shared library, object file).
#include <cstdio>

/* Element-wise add. */
__global__ void add(float *out, const float *in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] += in[i];
}

// Grid-stride scale, with a shared-memory round trip.
__global__ void scale(double *x, double a, int n) {
  __shared__ double tile[128];
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    tile[threadIdx.x % 128] = x[i] * a;
    __syncthreads();
    x[i] = tile[threadIdx.x % 128];
  }
}

__device__ int hits;

__global__ void count(const int *v, int n, int key) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && v[i] == key)
    atomicAdd(&hits, 1);
}

#ifndef PTX2AMD_NO_MAIN
int main() {
  float *d = nullptr;
  if (cudaMalloc(&d, 256 * sizeof(float)) != cudaSuccess) {
    std::printf("no device\n");
    return 0;
  }
  add<<<1, 256>>>(d, d, 256);
  cudaDeviceSynchronize();
  cudaFree(d);
  std::printf("done\n");
  return 0;
}
#endif
