// grid_stride: the host side shared by the program (grid_stride.cu) and the host backend's test
// (test/host/ProgramsTest.cpp): the inputs, the reference of one element and the check of every
// output, including each thread's iteration count. Plain C++ (host code only), compiled by nvcc's
// host compiler, clang (CUDA and HIP) and g++.
#pragma once

#include <cmath>
#include <cstdio>

namespace grid_stride {
inline const char *kName = "grid_stride";

// The inputs of element i: x is a multiple of 1/8, y of 1/4, both exact in float.
inline float x_at(long long i) { return (float)(i % 4093 - 2046) * 0.125f; }
inline float y_at(long long i) { return (float)(i % 1021) * 0.25f - 100.0f; }
inline int k_at(long long i) { return (int)((unsigned)i * 2246822519u) ^ 0x5bd1e995; }

// The kernel computes y = fma(a, x, y) with one rounding (__fmaf_rn, not left to contraction),
// and mixes k with the 64-bit index: a multiply, a shift of the index, a rotate, an add.
inline float saxpy_ref(float a, float x, float y) { return std::fma(a, x, y); }
inline int mix_ref(int k, long long i) {
  unsigned h = (unsigned)k * 2654435761u;
  h ^= (unsigned)(i >> 7);
  h = (h << 5) | (h >> 27);
  return (int)(h + (unsigned)i);
}

// How many elements thread t of `threads` visits in a grid-stride loop over n.
inline long long iterations(long long n, long long t, long long threads) {
  return t < n ? (n - t + threads - 1) / threads : 0;
}

// Checks y and out (n elements; y was y_at before the launch) and every thread's iteration count;
// prints the first mismatch and returns 1, or returns 0.
inline int check(long long n, float a, const float *y, const int *out, const int *iters,
                 long long threads) {
  for (long long i = 0; i < n; ++i) {
    const float want = saxpy_ref(a, x_at(i), y_at(i));
    if (y[i] != want) {
      printf("FAIL %s: y[%lld] = %.9g, want %.9g\n", kName, i, y[i], want);
      return 1;
    }
    const int iwant = mix_ref(k_at(i), i);
    if (out[i] != iwant) {
      printf("FAIL %s: out[%lld] = %d, want %d\n", kName, i, out[i], iwant);
      return 1;
    }
  }
  for (long long t = 0; t < threads; ++t)
    if (iters[t] != iterations(n, t, threads)) {
      printf("FAIL %s: thread %lld ran %d iterations, want %lld\n", kName, t, iters[t],
             iterations(n, t, threads));
      return 1;
    }
  return 0;
}
} // namespace grid_stride
