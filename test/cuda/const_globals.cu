// const_globals: __constant__ and __device__ variables: statically initialised ones read
// back untouched, arrays and structs written with cudaMemcpyToSymbol (including a write at
// an offset), a FIR filter reading its taps from constant memory (uniform access) and a
// lookup table in constant memory indexed per thread (divergent access), constant memory
// reached through a generic pointer passed to a __noinline__ function, __device__ globals
// written by one kernel and read by the next, and results fetched with
// cudaMemcpyFromSymbol (also at an offset).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

static const char *kName = "const_globals";

#include "check.h"

constexpr int kTaps = 16;
constexpr int kN = 3000;

struct Params {
  int n;
  float scale;
  int offsets[8];
  double bias;
};

__constant__ float c_taps[kTaps];
__constant__ int c_lut[256];
__constant__ Params c_params;
__constant__ float c_init[4] = {1.5f, -2.25f, 3.0f, 1e-3f};
__constant__ unsigned short c_small[5] = {1, 2, 3, 65535, 7};

__device__ int d_primes[8] = {2, 3, 5, 7, 11, 13, 17, 19};
__device__ unsigned d_counter;
__device__ float d_stage[kN];
__device__ unsigned long long d_sum;
__device__ double d_init_scalar = 6.5;

// Reads through a plain (generic) pointer that points into constant memory.
__device__ __noinline__ float dot_generic(const float *w, const float *x, int len) {
  float acc = 0.0f;
  for (int k = 0; k < len; ++k)
    acc += w[k] * x[k];
  return acc;
}

__global__ void fir_lut(const float *in, const int *keys) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= c_params.n)
    return;
  float acc = 0.0f;
#pragma unroll
  for (int k = 0; k < kTaps; ++k) {
    const int j = i + k - kTaps / 2;
    acc += c_taps[k] * (j >= 0 && j < c_params.n ? in[j] : 0.0f);
  }
  float window[4];
  for (int k = 0; k < 4; ++k)
    window[k] = in[(i + k) % c_params.n];
  acc += dot_generic(c_init, window, 4) * 0.0f + dot_generic(c_taps + 4, window, 4);
  const int key = keys[i];
  const int l = c_lut[key & 255] + c_params.offsets[key & 7] + d_primes[key % 8];
  d_stage[i] = acc * c_params.scale + (float)l;
  if (l & 1)
    atomicAdd(&d_counter, 1u);
}

__global__ void consume(float *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= c_params.n)
    return;
  const float v = d_stage[i] + (float)c_params.bias;
  out[i] = v;
  atomicAdd(&d_sum, (unsigned long long)(long long)v + (unsigned long long)c_small[i % 5]);
}

int main() {
  float taps[kTaps];
  for (int k = 0; k < kTaps; ++k)
    taps[k] = (float)(k % 5 - 2) * 0.125f;
  int lut[256];
  for (int k = 0; k < 256; ++k)
    lut[k] = (k * 73) % 251 - 100;
  Params p;
  memset(&p, 0, sizeof(p));
  p.n = kN;
  p.scale = 2.0f;
  for (int k = 0; k < 8; ++k)
    p.offsets[k] = k * k - 10;
  p.bias = -0.5;
  float *hin = (float *)malloc(kN * sizeof(float));
  int *hkeys = (int *)malloc(kN * sizeof(int));
  for (int i = 0; i < kN; ++i) {
    hin[i] = (float)((i * 13) % 201 - 100);
    hkeys[i] = (i * 2654435761u) >> 7;
  }

  // Statically initialised symbols, read back before anything writes them.
  float init[4];
  int primes[8];
  double init_scalar = 0;
  unsigned short small[5];
  CK(cudaMemcpyFromSymbol(init, c_init, sizeof(init)));
  CK(cudaMemcpyFromSymbol(primes, d_primes, sizeof(primes)));
  CK(cudaMemcpyFromSymbol(&init_scalar, d_init_scalar, sizeof(double)));
  CK(cudaMemcpyFromSymbol(small, c_small, sizeof(small)));
  if (init[0] != 1.5f || init[1] != -2.25f || init[2] != 3.0f || init[3] != 1e-3f ||
      primes[7] != 19 || primes[0] != 2 || init_scalar != 6.5 || small[3] != 65535) {
    printf("FAIL %s: statically initialised symbols read back wrong\n", kName);
    return 1;
  }

  CK(cudaMemcpyToSymbol(c_taps, taps, sizeof(taps)));
  // The LUT in two halves: the second at a byte offset.
  CK(cudaMemcpyToSymbol(c_lut, lut, 128 * sizeof(int)));
  CK(cudaMemcpyToSymbol(c_lut, lut + 128, 128 * sizeof(int), 128 * sizeof(int)));
  CK(cudaMemcpyToSymbol(c_params, &p, sizeof(p)));
  const unsigned zero = 0;
  const unsigned long long zero64 = 0;
  CK(cudaMemcpyToSymbol(d_counter, &zero, sizeof(zero)));
  CK(cudaMemcpyToSymbol(d_sum, &zero64, sizeof(zero64)));
  // Overwrite one prime through an offset write.
  const int twenty_three = 23;
  CK(cudaMemcpyToSymbol(d_primes, &twenty_three, sizeof(int), 7 * sizeof(int),
                        cudaMemcpyHostToDevice));
  primes[7] = 23;

  float *din, *dout;
  int *dkeys;
  CK(cudaMalloc(&din, kN * sizeof(float)));
  CK(cudaMalloc(&dout, kN * sizeof(float)));
  CK(cudaMalloc(&dkeys, kN * sizeof(int)));
  CK(cudaMemcpy(din, hin, kN * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dkeys, hkeys, kN * sizeof(int), cudaMemcpyHostToDevice));

  const int block = 256;
  const int grid = (kN + block - 1) / block;
  fir_lut<<<grid, block>>>(din, dkeys);
  CK(cudaGetLastError());
  consume<<<grid, block>>>(dout);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  float *hout = (float *)malloc(kN * sizeof(float));
  unsigned counter = 0;
  unsigned long long sum = 0;
  float stage_tail[10];
  CK(cudaMemcpy(hout, dout, kN * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpyFromSymbol(&counter, d_counter, sizeof(counter)));
  CK(cudaMemcpyFromSymbol(&sum, d_sum, sizeof(sum)));
  CK(cudaMemcpyFromSymbol(stage_tail, d_stage, sizeof(stage_tail), (kN - 10) * sizeof(float),
                          cudaMemcpyDeviceToHost));

  int rc = 0;
  unsigned want_counter = 0;
  unsigned long long want_sum = 0;
  for (int i = 0; i < kN; ++i) {
    // Every product and partial sum is a small multiple of 1/8: exact in float in any order.
    float acc = 0.0f;
    for (int k = 0; k < kTaps; ++k) {
      const int j = i + k - kTaps / 2;
      acc += taps[k] * (j >= 0 && j < kN ? hin[j] : 0.0f);
    }
    float acc2 = 0.0f;
    for (int k = 0; k < 4; ++k)
      acc2 += taps[4 + k] * hin[(i + k) % kN];
    acc += acc2;
    const int key = hkeys[i];
    const int l = lut[key & 255] + p.offsets[key & 7] + primes[key % 8];
    const float stage = acc * p.scale + (float)l;
    if (l & 1)
      ++want_counter;
    const float v = stage + (float)p.bias;
    want_sum += (unsigned long long)(long long)v + (unsigned long long)small[i % 5];
    if (hout[i] != v) {
      printf("FAIL %s: out[%d] = %.9g, want %.9g\n", kName, i, hout[i], v);
      rc = 1;
      break;
    }
    if (i >= kN - 10 && stage_tail[i - (kN - 10)] != stage) {
      printf("FAIL %s: d_stage[%d] = %.9g, want %.9g\n", kName, i, stage_tail[i - (kN - 10)],
             stage);
      rc = 1;
      break;
    }
  }
  if (!rc && (counter != want_counter || sum != want_sum)) {
    printf("FAIL %s: counter/sum = %u/%llu, want %u/%llu\n", kName, counter, sum, want_counter,
           want_sum);
    rc = 1;
  }

  CK(cudaFree(din));
  CK(cudaFree(dout));
  CK(cudaFree(dkeys));
  free(hin);
  free(hkeys);
  free(hout);
  if (rc == 0)
    printf("PASS %s\n", kName);
  return rc;
}
