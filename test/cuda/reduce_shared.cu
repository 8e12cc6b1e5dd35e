// reduce_shared: shared-memory tree reductions synchronised with __syncthreads.
// Pass 1: each block folds a grid-stride slice into shared memory and reduces it (sum of
// 64-bit integers, min and max of floats, in one kernel). Pass 2: one block reduces the
// per-block partials. Block size 256 with a non-multiple element count.
#include <cfloat>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static const char *kName = "reduce_shared";

#include "check.h"

constexpr int kBlock = 256;

struct Partial {
  long long sum;
  float lo;
  float hi;
};

__global__ void reduce_pass1(const int *in, const float *fin, int n, Partial *partials) {
  __shared__ long long ssum[kBlock];
  __shared__ float slo[kBlock];
  __shared__ float shi[kBlock];
  const int t = threadIdx.x;
  long long acc = 0;
  float lo = FLT_MAX, hi = -FLT_MAX;
  // Two elements per iteration: i and i + blockDim.x.
  for (int i = blockIdx.x * blockDim.x * 2 + t; i < n; i += blockDim.x * gridDim.x * 2) {
    acc += in[i];
    lo = fminf(lo, fin[i]);
    hi = fmaxf(hi, fin[i]);
    int j = i + blockDim.x;
    if (j < n) {
      acc += in[j];
      lo = fminf(lo, fin[j]);
      hi = fmaxf(hi, fin[j]);
    }
  }
  ssum[t] = acc;
  slo[t] = lo;
  shi[t] = hi;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) {
      ssum[t] += ssum[t + s];
      slo[t] = fminf(slo[t], slo[t + s]);
      shi[t] = fmaxf(shi[t], shi[t + s]);
    }
    __syncthreads();
  }
  if (t == 0) {
    Partial p;
    p.sum = ssum[0];
    p.lo = slo[0];
    p.hi = shi[0];
    partials[blockIdx.x] = p;
  }
}

// One block; the number of partials may exceed the block size.
__global__ void reduce_pass2(const Partial *partials, int count, Partial *out) {
  __shared__ Partial sp[kBlock];
  const int t = threadIdx.x;
  Partial acc{0, FLT_MAX, -FLT_MAX};
  for (int i = t; i < count; i += blockDim.x) {
    acc.sum += partials[i].sum;
    acc.lo = fminf(acc.lo, partials[i].lo);
    acc.hi = fmaxf(acc.hi, partials[i].hi);
  }
  sp[t] = acc;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) {
      sp[t].sum += sp[t + s].sum;
      sp[t].lo = fminf(sp[t].lo, sp[t + s].lo);
      sp[t].hi = fmaxf(sp[t].hi, sp[t + s].hi);
    }
    __syncthreads();
  }
  if (t == 0)
    *out = sp[0];
}

int main() {
  const int n = 300001;
  const int blocks = 300; // more partials than one block has threads
  int *h = (int *)malloc(n * sizeof(int));
  float *hf = (float *)malloc(n * sizeof(float));
  long long want_sum = 0;
  float want_lo = FLT_MAX, want_hi = -FLT_MAX;
  unsigned state = 12345u;
  for (int i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    h[i] = (int)(state >> 1) - (1 << 30); // large values: the sum needs 64 bits
    hf[i] = (float)((int)(state >> 8) % 200000 - 100000) / 64.0f;
    want_sum += h[i];
    if (hf[i] < want_lo)
      want_lo = hf[i];
    if (hf[i] > want_hi)
      want_hi = hf[i];
  }

  int *d;
  float *df;
  Partial *dpart, *dout;
  CK(cudaMalloc(&d, n * sizeof(int)));
  CK(cudaMalloc(&df, n * sizeof(float)));
  CK(cudaMalloc(&dpart, blocks * sizeof(Partial)));
  CK(cudaMalloc(&dout, sizeof(Partial)));
  CK(cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(df, hf, n * sizeof(float), cudaMemcpyHostToDevice));

  reduce_pass1<<<blocks, kBlock>>>(d, df, n, dpart);
  CK(cudaGetLastError());
  reduce_pass2<<<1, kBlock>>>(dpart, blocks, dout);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  Partial got;
  CK(cudaMemcpy(&got, dout, sizeof(Partial), cudaMemcpyDeviceToHost));
  Partial *hpart = (Partial *)malloc(blocks * sizeof(Partial));
  CK(cudaMemcpy(hpart, dpart, blocks * sizeof(Partial), cudaMemcpyDeviceToHost));

  int rc = 0;
  // Check one partial exactly too: block b covers i = b*512 + t (+256) + k*blocks*512.
  {
    const int b = blocks - 1;
    long long s = 0;
    for (int base = b * kBlock * 2; base < n; base += blocks * kBlock * 2)
      for (int i = base; i < base + 2 * kBlock && i < n; ++i)
        s += h[i];
    if (hpart[b].sum != s) {
      printf("FAIL %s: partial[%d].sum = %lld, want %lld\n", kName, b, hpart[b].sum, s);
      rc = 1;
    }
  }
  if (!rc && got.sum != want_sum) {
    printf("FAIL %s: sum = %lld, want %lld\n", kName, got.sum, want_sum);
    rc = 1;
  }
  if (!rc && (got.lo != want_lo || got.hi != want_hi)) {
    printf("FAIL %s: min/max = %g/%g, want %g/%g\n", kName, got.lo, got.hi, want_lo, want_hi);
    rc = 1;
  }

  CK(cudaFree(d));
  CK(cudaFree(df));
  CK(cudaFree(dpart));
  CK(cudaFree(dout));
  free(h);
  free(hf);
  free(hpart);
  if (rc == 0)
    printf("PASS %s\n", kName);
  return rc;
}
