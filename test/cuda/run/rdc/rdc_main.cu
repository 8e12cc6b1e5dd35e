// rdc: relocatable device code (nvcc -rdc=true) across two files. This file's kernels call
// __device__ functions of rdc_lib.cu and use its __device__ variables (an initialised scalar, an
// initialised table and an atomic counter), the two files recurse into each other (is_even /
// is_odd), both instantiate one template (a .weak function in each), both have an internal
// function of one name, and the host reads and writes rdc_lib.cu's variables by symbol. Every
// result is checked against the same functions run on the host.
#include <cstdio>
#include <cuda_runtime.h>

#include "rdc.h"

static const char *kName = "rdc";

#include "../../check.h"

// The same internal name as in rdc_lib.cu, another function.
static __host__ __device__ __noinline__ int local_mix(int x) { return x * 3 - 4; }

__host__ __device__ __noinline__ bool is_even(int k) { return k == 0 ? true : is_odd(k - 1); }

__host__ __device__ int main_value(int i, int scale) {
  return lib_poly(i) + local_mix(i) + twice_plus(i, scale) + (is_even(i % 13) ? 1000 : 0);
}

__global__ void main_kernel(int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  out[i] = main_value(i, d_scale);
  atomicAdd(&d_calls, 1);
}

__global__ void table_kernel(float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = twice_plus(d_table[(i * 5) % kTable], 1.0f * i);
}

int main() {
  constexpr int n = 300, threads = 64, blocks = (n + threads - 1) / threads;
  int *d_out;
  float *d_lib, *d_tab;
  CK(cudaMalloc(&d_out, n * sizeof(int)));
  CK(cudaMalloc(&d_lib, n * sizeof(float)));
  CK(cudaMalloc(&d_tab, n * sizeof(float)));

  // rdc_lib.cu's initialiser, read by symbol from this file.
  int scale = 0;
  CK(cudaMemcpyFromSymbol(&scale, d_scale, sizeof(int)));
  if (scale != kInitialScale) {
    printf("FAIL %s: d_scale starts at %d, not %d\n", kName, scale, kInitialScale);
    return 1;
  }
  scale = 5;
  int zero = 0;
  CK(cudaMemcpyToSymbol(d_scale, &scale, sizeof(int)));
  CK(cudaMemcpyToSymbol(d_calls, &zero, sizeof(int)));

  main_kernel<<<blocks, threads>>>(d_out, n);
  CK(cudaGetLastError());
  table_kernel<<<blocks, threads>>>(d_tab, n);
  CK(cudaGetLastError());
  launch_lib_kernel(d_lib, n, blocks, threads);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  static int out[n];
  static float lib[n], tab[n];
  int calls = 0;
  CK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(lib, d_lib, sizeof lib, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(tab, d_tab, sizeof tab, cudaMemcpyDeviceToHost));
  CK(cudaMemcpyFromSymbol(&calls, d_calls, sizeof(int)));

  int bad = 0;
  for (int i = 0; i < n; ++i) {
    int want = main_value(i, scale);
    float want_lib = h_table[i % kTable] * scale + twice_plus(0.5f * i, 0.25f);
    float want_tab = twice_plus(h_table[(i * 5) % kTable], 1.0f * i);
    if (out[i] != want || lib[i] != want_lib || tab[i] != want_tab) {
      if (bad++ < 5)
        printf("FAIL %s: [%d] main %d (want %d), lib %g (want %g), table %g (want %g)\n", kName, i,
               out[i], want, lib[i], want_lib, tab[i], want_tab);
    }
  }
  if (calls != 2 * n) {
    printf("FAIL %s: d_calls is %d, want %d\n", kName, calls, 2 * n);
    ++bad;
  }
  CK(cudaFree(d_out));
  CK(cudaFree(d_lib));
  CK(cudaFree(d_tab));
  if (bad)
    return 1;
  printf("PASS %s\n", kName);
  return 0;
}
