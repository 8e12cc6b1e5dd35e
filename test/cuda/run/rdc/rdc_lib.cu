// rdc: the library half of the -rdc program (see rdc_main.cu).
#include "rdc.h"

__device__ int d_calls;
__device__ int d_scale = kInitialScale;
__device__ float d_table[kTable] = RDC_TABLE;
const float h_table[kTable] = RDC_TABLE;

// The same internal name as in rdc_main.cu, another function.
static __host__ __device__ __noinline__ int local_mix(int x) { return x * 7 + 1; }

__host__ __device__ __noinline__ int lib_poly(int x) {
  return local_mix(x) * (x & 15) - twice_plus(x, 5);
}

__host__ __device__ __noinline__ bool is_odd(int k) { return k == 0 ? false : is_even(k - 1); }

__global__ void lib_kernel(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  out[i] = d_table[i % kTable] * d_scale + twice_plus(0.5f * i, 0.25f);
  atomicAdd(&d_calls, 1);
}

void launch_lib_kernel(float *out, int n, int blocks, int threads) {
  lib_kernel<<<blocks, threads>>>(out, n);
}
