// The kernels driver_api loads through the driver API, built at build time two ways as users
// ship them: `nvcc -ptx` (driver_kernels.ptx) and `nvcc -fatbin` (driver_kernels.fatbin, the
// toolkit's default targets: sm_75 SASS and compute_75 PTX). extern "C": the driver API looks
// kernels up by name.

__device__ int g_offset;
__constant__ float c_scale[4];

extern "C" __global__ void scale_add(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = c_scale[i % 4] * x[i] + float(g_offset);
}

// Arguments of mixed sizes and alignments, for launches through cuLaunchKernel's `extra` buffer.
extern "C" __global__ void mixed_args(char c, double d, short s, long long *out, int k) {
  int i = threadIdx.x;
  out[i] = (long long)c * 1000000 + (long long)(d * 1000.0) + s * 10 + k + i;
}

// Reverses blocks of blockDim.x ints through dynamic shared memory.
extern "C" __global__ void reverse_block(int *data) {
  extern __shared__ int tile[];
  int base = blockIdx.x * blockDim.x;
  tile[threadIdx.x] = data[base + threadIdx.x];
  __syncthreads();
  data[base + threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}
