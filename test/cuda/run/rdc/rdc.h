// What the two translation units of the -rdc program share. rdc_lib.cu defines the device
// variables and most functions; rdc_main.cu defines the kernels it launches, is_even() and main.
#pragma once

constexpr int kTable = 16;
// d_table's initial contents, also the host reference's copy.
#define RDC_TABLE                                                                                  \
  {                                                                                                \
    0.5f, 1.5f, -2.0f, 3.25f, 4.0f, -5.5f, 6.0f, 7.75f, -8.0f, 9.5f, 10.0f, -11.25f, 12.0f, 13.5f, \
        -14.0f, 15.125f                                                                            \
  }

extern __device__ int d_calls;           // counts the work-items of both files' kernels
extern __device__ int d_scale;           // initialised to kInitialScale in rdc_lib.cu
extern __device__ float d_table[kTable]; // RDC_TABLE
constexpr int kInitialScale = 3;
extern const float h_table[kTable];

__host__ __device__ __noinline__ int lib_poly(int x);
// Mutual recursion across the two files: is_odd in rdc_lib.cu, is_even in rdc_main.cu.
__host__ __device__ __noinline__ bool is_odd(int k);
__host__ __device__ __noinline__ bool is_even(int k);

// Launches rdc_lib.cu's kernel.
void launch_lib_kernel(float *out, int n, int blocks, int threads);

// Instantiated in both files: each carries a .weak definition of the same function.
template <typename T> __host__ __device__ __noinline__ T twice_plus(T x, T y) { return x + x + y; }
