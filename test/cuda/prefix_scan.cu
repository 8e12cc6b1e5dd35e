// prefix_scan: inclusive prefix sums over a multi-block array.
// 1) Work-efficient (Blelloch up-sweep/down-sweep) scan of 512 elements per block of 256
//    threads in shared memory, writing per-block totals; 2) the totals scanned by the same
//    kernel in one block; 3) a uniform add of the scanned totals. Plus a Hillis-Steele
//    inclusive max-scan with ping-pong shared buffers selected through pointers, segmented
//    per block. The element count leaves the last block partial.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static const char *kName = "prefix_scan";

#include "check.h"

constexpr int kThreads = 256;
constexpr int kPerBlock = 2 * kThreads;

// Inclusive scan of in[] (blockwise); block totals go to sums[] when it is non-null.
__global__ void block_scan(const int *in, int *out, int n, int *sums) {
  __shared__ int buf[kPerBlock];
  const int t = threadIdx.x;
  const int base = blockIdx.x * kPerBlock;
  const int a = base + t, b = base + t + kThreads;
  const int va = a < n ? in[a] : 0;
  const int vb = b < n ? in[b] : 0;
  buf[t] = va;
  buf[t + kThreads] = vb;

  int offset = 1;
  for (int d = kPerBlock >> 1; d > 0; d >>= 1) { // up-sweep
    __syncthreads();
    if (t < d) {
      int ai = offset * (2 * t + 1) - 1;
      int bi = offset * (2 * t + 2) - 1;
      buf[bi] += buf[ai];
    }
    offset <<= 1;
  }
  __syncthreads();
  if (t == 0) {
    if (sums)
      sums[blockIdx.x] = buf[kPerBlock - 1];
    buf[kPerBlock - 1] = 0;
  }
  for (int d = 1; d < kPerBlock; d <<= 1) { // down-sweep
    offset >>= 1;
    __syncthreads();
    if (t < d) {
      int ai = offset * (2 * t + 1) - 1;
      int bi = offset * (2 * t + 2) - 1;
      int tmp = buf[ai];
      buf[ai] = buf[bi];
      buf[bi] += tmp;
    }
  }
  __syncthreads();
  // Exclusive -> inclusive.
  if (a < n)
    out[a] = buf[t] + va;
  if (b < n)
    out[b] = buf[t + kThreads] + vb;
}

__global__ void add_offsets(int *data, int n, const int *scanned_sums) {
  const int blk = blockIdx.x;
  if (blk == 0)
    return;
  const int add = scanned_sums[blk - 1];
  for (int k = threadIdx.x; k < kPerBlock; k += blockDim.x) {
    int i = blk * kPerBlock + k;
    if (i < n)
      data[i] += add;
  }
}

__global__ void max_scan(const float *in, float *out, int n) {
  __shared__ float ping[kThreads];
  __shared__ float pong[kThreads];
  const int t = threadIdx.x;
  const int i = blockIdx.x * blockDim.x + t;
  float *src = ping, *dst = pong;
  src[t] = i < n ? in[i] : -1e30f;
  __syncthreads();
  for (int d = 1; d < blockDim.x; d <<= 1) {
    float v = src[t];
    if (t >= d)
      v = fmaxf(v, src[t - d]);
    dst[t] = v;
    __syncthreads();
    float *tmp = src;
    src = dst;
    dst = tmp;
  }
  if (i < n)
    out[i] = src[t];
}

int main() {
  const int n = 5000;
  const int blocks = (n + kPerBlock - 1) / kPerBlock; // 10, must be <= kPerBlock
  int *h = (int *)malloc(n * sizeof(int));
  int *hout = (int *)malloc(n * sizeof(int));
  float *hf = (float *)malloc(n * sizeof(float));
  float *hfout = (float *)malloc(n * sizeof(float));
  for (int i = 0; i < n; ++i) {
    h[i] = (i * 31 + 7) % 101 - 40;
    hf[i] = (float)((i * 7919) % 1000) * 0.5f - 250.0f;
  }

  int *din, *dout, *dsums, *dsums_scanned;
  float *dfin, *dfout;
  CK(cudaMalloc(&din, n * sizeof(int)));
  CK(cudaMalloc(&dout, n * sizeof(int)));
  CK(cudaMalloc(&dsums, blocks * sizeof(int)));
  CK(cudaMalloc(&dsums_scanned, blocks * sizeof(int)));
  CK(cudaMalloc(&dfin, n * sizeof(float)));
  CK(cudaMalloc(&dfout, n * sizeof(float)));
  CK(cudaMemcpy(din, h, n * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dfin, hf, n * sizeof(float), cudaMemcpyHostToDevice));

  block_scan<<<blocks, kThreads>>>(din, dout, n, dsums);
  CK(cudaGetLastError());
  block_scan<<<1, kThreads>>>(dsums, dsums_scanned, blocks, nullptr);
  CK(cudaGetLastError());
  add_offsets<<<blocks, 128>>>(dout, n, dsums_scanned);
  CK(cudaGetLastError());
  const int fblocks = (n + kThreads - 1) / kThreads;
  max_scan<<<fblocks, kThreads>>>(dfin, dfout, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout, dout, n * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hfout, dfout, n * sizeof(float), cudaMemcpyDeviceToHost));

  int rc = 0;
  int acc = 0;
  for (int i = 0; i < n; ++i) {
    acc += h[i];
    if (hout[i] != acc) {
      printf("FAIL %s: scan[%d] = %d, want %d\n", kName, i, hout[i], acc);
      rc = 1;
      break;
    }
  }
  float m = 0.0f;
  for (int i = 0; i < n && !rc; ++i) {
    if (i % kThreads == 0 || hf[i] > m)
      m = hf[i];
    if (hfout[i] != m) {
      printf("FAIL %s: max_scan[%d] = %g, want %g\n", kName, i, hfout[i], m);
      rc = 1;
    }
  }

  CK(cudaFree(din));
  CK(cudaFree(dout));
  CK(cudaFree(dsums));
  CK(cudaFree(dsums_scanned));
  CK(cudaFree(dfin));
  CK(cudaFree(dfout));
  free(h);
  free(hout);
  free(hf);
  free(hfout);
  if (rc == 0)
    printf("PASS %s\n", kName);
  return rc;
}
