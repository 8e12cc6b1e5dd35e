// bitonic_sort: key/value bitonic sort of fixed-size segments, one segment per block, in
// dynamic shared memory (extern __shared__, size given at launch, keys and values carved
// out of the same buffer). Even segments sort ascending, odd ones descending; the last
// segment is partial and padded. Run twice with different block and segment sizes.
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static const char *kName = "bitonic_sort";

#include "check.h"

__device__ __forceinline__ void cmp_swap(int *keys, int *vals, int a, int b, bool up) {
  int ka = keys[a], kb = keys[b];
  if ((ka > kb) == up) {
    keys[a] = kb;
    keys[b] = ka;
    int t = vals[a];
    vals[a] = vals[b];
    vals[b] = t;
  }
}

// Segment size = 2 * blockDim.x (a power of two).
__global__ void bitonic(int *keys, int *vals, int n) {
  extern __shared__ int smem[];
  const int seg = 2 * blockDim.x;
  int *sk = smem;
  int *sv = smem + seg;
  const int base = blockIdx.x * seg;
  const bool descending = blockIdx.x & 1;
  const int pad = descending ? INT_MIN : INT_MAX;
  for (int k = threadIdx.x; k < seg; k += blockDim.x) {
    const int i = base + k;
    sk[k] = i < n ? keys[i] : pad;
    sv[k] = i < n ? vals[i] : -1;
  }
  __syncthreads();
  for (int size = 2; size <= seg; size <<= 1) {
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      const int t = threadIdx.x;
      const int lo = 2 * stride * (t / stride) + (t % stride);
      const bool up = ((lo & size) == 0) != descending;
      cmp_swap(sk, sv, lo, lo + stride, up);
      __syncthreads();
    }
  }
  for (int k = threadIdx.x; k < seg; k += blockDim.x) {
    const int i = base + k;
    if (i < n) {
      keys[i] = sk[k];
      vals[i] = sv[k];
    }
  }
}

static int run(int n, int threads) {
  const int seg = 2 * threads;
  const int blocks = (n + seg - 1) / seg;
  int *hk = (int *)malloc(n * sizeof(int));
  int *hv = (int *)malloc(n * sizeof(int));
  int *gk = (int *)malloc(n * sizeof(int));
  int *gv = (int *)malloc(n * sizeof(int));
  unsigned s = (unsigned)n;
  for (int i = 0; i < n; ++i) {
    s = s * 22695477u + 1u;
    hk[i] = (int)(s >> 9) % 5000 - 2500; // many duplicates
    hv[i] = i;
  }
  int *dk, *dv;
  CK(cudaMalloc(&dk, n * sizeof(int)));
  CK(cudaMalloc(&dv, n * sizeof(int)));
  CK(cudaMemcpy(dk, hk, n * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dv, hv, n * sizeof(int), cudaMemcpyHostToDevice));
  bitonic<<<blocks, threads, 2 * seg * sizeof(int)>>>(dk, dv, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(gk, dk, n * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(gv, dv, n * sizeof(int), cudaMemcpyDeviceToHost));

  int rc = 0;
  char *seen = (char *)calloc(n, 1);
  for (int b = 0; b < blocks && !rc; ++b) {
    const int lo = b * seg, hi = lo + seg < n ? lo + seg : n;
    const bool desc = b & 1;
    // Pads (INT_MAX ascending, INT_MIN descending) sort past the real elements of a partial
    // segment, so its first hi - lo slots must hold exactly the segment's own elements.
    for (int i = lo; i < hi && !rc; ++i) {
      const int v = gv[i];
      if (v < lo || v >= hi || seen[v] || hk[v] != gk[i]) {
        printf("FAIL %s: (%d threads) element %d: key %d value %d is not from the segment\n", kName,
               threads, i, gk[i], v);
        rc = 1;
        break;
      }
      seen[v] = 1;
      if (i > lo && (desc ? gk[i - 1] < gk[i] : gk[i - 1] > gk[i])) {
        printf("FAIL %s: (%d threads) segment %d not sorted at %d (%d, %d)\n", kName, threads, b, i,
               gk[i - 1], gk[i]);
        rc = 1;
      }
    }
  }
  free(seen);
  CK(cudaFree(dk));
  CK(cudaFree(dv));
  free(hk);
  free(hv);
  free(gk);
  free(gv);
  return rc;
}

int main() {
  if (run(3000, 256))
    return 1; // 512-element segments, last one partial
  if (run(1000, 64))
    return 1; // 128-element segments
  printf("PASS %s\n", kName);
  return 0;
}
