// histogram: 256-bin byte histogram with per-block shared-memory bins (shared atomicAdd),
// merged into global memory with global atomicAdd; the input is read as uchar4 vectors in a
// grid-stride loop with a scalar tail. A second kernel keeps one 64-bin sub-histogram per
// warp in a 2D shared array (dynamic shared memory) and weights each sample.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static const char *kName = "histogram";

#include "check.h"

__global__ void hist256(const unsigned char *data, int n, unsigned *bins) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    local[b] = 0;
  __syncthreads();
  const int nvec = n / 4;
  const uchar4 *vec = reinterpret_cast<const uchar4 *>(data);
  const int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < nvec; i += stride) {
    uchar4 q = vec[i];
    atomicAdd(&local[q.x], 1u);
    atomicAdd(&local[q.y], 1u);
    atomicAdd(&local[q.z], 1u);
    atomicAdd(&local[q.w], 1u);
  }
  // Tail bytes (n not a multiple of 4).
  for (int i = nvec * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    if (local[b])
      atomicAdd(&bins[b], local[b]);
}

// One 64-bin sub-histogram per warp; weights are the sample's upper bits.
__global__ void hist64_per_warp(const unsigned short *data, int n, unsigned long long *bins) {
  extern __shared__ unsigned warp_bins[]; // [warps][64]
  const int warps = blockDim.x / 32;
  const int w = threadIdx.x / 32;
  for (int k = threadIdx.x; k < warps * 64; k += blockDim.x)
    warp_bins[k] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    unsigned short s = data[i];
    atomicAdd(&warp_bins[w * 64 + (s & 63)], (unsigned)(s >> 6));
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 64; b += blockDim.x) {
    unsigned long long total = 0;
    for (int k = 0; k < warps; ++k)
      total += warp_bins[k * 64 + b];
    atomicAdd(&bins[b], total);
  }
}

int main() {
  const int n = 100003;
  const int m = 30001;
  unsigned char *h = (unsigned char *)malloc(n);
  unsigned short *hs = (unsigned short *)malloc(m * sizeof(unsigned short));
  unsigned state = 99u;
  for (int i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    // Skewed distribution: many collisions on a few bins.
    unsigned r = state >> 24;
    h[i] = (unsigned char)((r & 1) ? (r & 7) : r);
  }
  for (int i = 0; i < m; ++i) {
    state = state * 1664525u + 1013904223u;
    hs[i] = (unsigned short)(state >> 16);
  }

  unsigned char *d;
  unsigned short *ds;
  unsigned *dbins;
  unsigned long long *dbins64;
  CK(cudaMalloc(&d, n));
  CK(cudaMalloc(&ds, m * sizeof(unsigned short)));
  CK(cudaMalloc(&dbins, 256 * sizeof(unsigned)));
  CK(cudaMalloc(&dbins64, 64 * sizeof(unsigned long long)));
  CK(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(ds, hs, m * sizeof(unsigned short), cudaMemcpyHostToDevice));
  CK(cudaMemset(dbins, 0, 256 * sizeof(unsigned)));
  CK(cudaMemset(dbins64, 0, 64 * sizeof(unsigned long long)));

  hist256<<<16, 256>>>(d, n, dbins);
  CK(cudaGetLastError());
  const int block2 = 192; // 6 warps
  hist64_per_warp<<<(m + block2 - 1) / block2, block2, (block2 / 32) * 64 * sizeof(unsigned)>>>(
      ds, m, dbins64);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  unsigned got[256];
  unsigned long long got64[64];
  CK(cudaMemcpy(got, dbins, sizeof(got), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(got64, dbins64, sizeof(got64), cudaMemcpyDeviceToHost));

  unsigned want[256] = {0};
  unsigned long long want64[64] = {0};
  for (int i = 0; i < n; ++i)
    ++want[h[i]];
  for (int i = 0; i < m; ++i)
    want64[hs[i] & 63] += hs[i] >> 6;

  int rc = 0;
  for (int b = 0; b < 256; ++b)
    if (got[b] != want[b]) {
      printf("FAIL %s: bin %d = %u, want %u\n", kName, b, got[b], want[b]);
      rc = 1;
      break;
    }
  for (int b = 0; b < 64 && !rc; ++b)
    if (got64[b] != want64[b]) {
      printf("FAIL %s: weighted bin %d = %llu, want %llu\n", kName, b, got64[b], want64[b]);
      rc = 1;
    }

  CK(cudaFree(d));
  CK(cudaFree(ds));
  CK(cudaFree(dbins));
  CK(cudaFree(dbins64));
  free(h);
  free(hs);
  if (rc == 0)
    printf("PASS %s\n", kName);
  return rc;
}
