// warp_shuffle: the four shuffle flavours (__shfl_sync, __shfl_up_sync, __shfl_down_sync,
// __shfl_xor_sync) on int, long long and double, full warps and sub-warp widths (4, 8, 16),
// out-of-range source lanes, and shuffles with partial member masks inside divergent branches.
// The last warp is only partly backed by data, but every lane of it takes part.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static const char *kName = "warp_shuffle";

#include "check.h"

constexpr unsigned kFull = 0xffffffffu;
enum { O_XORSUM, O_GATHER, O_SCAN8, O_W16, O_DOWN16, O_XOR4, O_DIVERGE, O_COUNT };

struct Outs {
  int *o[O_COUNT]; // per element
  int *warp_sum;   // per warp, from a __shfl_down_sync tree
  double *dbl;     // per element
  long long *ll;   // per element
};

__global__ void shuffles(const int *in, int n, Outs outs) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x & 31;
  const int v = i < n ? in[i] : 0;

  // Butterfly: every lane ends with the warp total.
  int s = v;
  for (int m = 16; m > 0; m >>= 1)
    s += __shfl_xor_sync(kFull, s, m);

  // Tree: lane 0 ends with the warp total.
  int t = v;
  for (int d = 16; d > 0; d >>= 1)
    t += __shfl_down_sync(kFull, t, d);

  // Arbitrary gather with a per-lane source.
  int g = __shfl_sync(kFull, v, (lane * 5 + 3) & 31);

  // Inclusive scan within 8-lane segments.
  int sc = v;
  for (int d = 1; d < 8; d <<= 1) {
    int up = __shfl_up_sync(kFull, sc, d, 8);
    if ((lane & 7) >= d)
      sc += up;
  }

  // Width 16 with source lanes past the segment end (taken modulo the width).
  int w16 = __shfl_sync(kFull, v, lane + 3, 16);
  // Down by 5 in 16-lane segments: lanes whose source leaves the segment keep their value.
  int d16 = __shfl_down_sync(kFull, v, 5, 16);
  // Xor within 4-lane segments.
  int x4 = __shfl_xor_sync(kFull, v * 3 + 1, 2, 4);

  // Divergent halves, each with its own member mask.
  int dv;
  if (lane < 16)
    dv = __shfl_xor_sync(0x0000ffffu, v, 1);
  else
    dv = __shfl_down_sync(0xffff0000u, v, 2, 16);

  // 64-bit values are moved as two 32-bit halves by the compiler.
  // __dmul_rn/__dadd_rn keep the compiler from fusing into an fma (the host does not fuse).
  double dval = __dadd_rn(__dmul_rn((double)v, 1.0000001), 0.5);
  double dx = __shfl_xor_sync(kFull, dval, 7);
  long long lval = (long long)((unsigned long long)(long long)v << 33) ^ (long long)i;
  long long lu = __shfl_up_sync(kFull, lval, 3);

  if (i < n) {
    outs.o[O_XORSUM][i] = s;
    outs.o[O_GATHER][i] = g;
    outs.o[O_SCAN8][i] = sc;
    outs.o[O_W16][i] = w16;
    outs.o[O_DOWN16][i] = d16;
    outs.o[O_XOR4][i] = x4;
    outs.o[O_DIVERGE][i] = dv;
    outs.dbl[i] = dx;
    outs.ll[i] = lu;
  }
  if (lane == 0)
    outs.warp_sum[i >> 5] = t;
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  if (prop.warpSize != 32) {
    printf("FAIL %s: warpSize = %d, want 32\n", kName, prop.warpSize);
    return 1;
  }

  const int block = 256;
  const int n = block * 4 + 100; // last warp with data is partial
  const int grid = (n + block - 1) / block;
  const int threads = grid * block;
  const int warps = threads / 32;

  int *hin = (int *)calloc(threads, sizeof(int)); // zero past n, like the kernel
  for (int i = 0; i < n; ++i)
    hin[i] = (i * 37 + 11) % 1001 - 500;

  int *din;
  Outs d;
  CK(cudaMalloc(&din, n * sizeof(int)));
  CK(cudaMemcpy(din, hin, n * sizeof(int), cudaMemcpyHostToDevice));
  for (int k = 0; k < O_COUNT; ++k)
    CK(cudaMalloc(&d.o[k], n * sizeof(int)));
  CK(cudaMalloc(&d.warp_sum, warps * sizeof(int)));
  CK(cudaMalloc(&d.dbl, n * sizeof(double)));
  CK(cudaMalloc(&d.ll, n * sizeof(long long)));

  shuffles<<<grid, block>>>(din, n, d);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  int *ho[O_COUNT];
  for (int k = 0; k < O_COUNT; ++k) {
    ho[k] = (int *)malloc(n * sizeof(int));
    CK(cudaMemcpy(ho[k], d.o[k], n * sizeof(int), cudaMemcpyDeviceToHost));
  }
  int *hws = (int *)malloc(warps * sizeof(int));
  double *hd = (double *)malloc(n * sizeof(double));
  long long *hl = (long long *)malloc(n * sizeof(long long));
  CK(cudaMemcpy(hws, d.warp_sum, warps * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hd, d.dbl, n * sizeof(double), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hl, d.ll, n * sizeof(long long), cudaMemcpyDeviceToHost));

  static const char *names[O_COUNT] = {"xor-sum", "gather", "scan8",    "width16",
                                       "down16",  "xor4",   "divergent"};
  int rc = 0;
  for (int w = 0; w < warps && !rc; ++w) {
    const int *v = hin + w * 32;
    int total = 0;
    for (int l = 0; l < 32; ++l)
      total += v[l];
    if (hws[w] != total) {
      printf("FAIL %s: warp %d down-sum = %d, want %d\n", kName, w, hws[w], total);
      rc = 1;
      break;
    }
    for (int l = 0; l < 32 && !rc; ++l) {
      const int i = w * 32 + l;
      if (i >= n)
        break;
      int want[O_COUNT];
      want[O_XORSUM] = total;
      want[O_GATHER] = v[(l * 5 + 3) & 31];
      int sc = 0;
      for (int k = l & ~7; k <= l; ++k)
        sc += v[k];
      want[O_SCAN8] = sc;
      want[O_W16] = v[(l & ~15) + ((l + 3) & 15)];
      want[O_DOWN16] = ((l & 15) + 5 < 16) ? v[l + 5] : v[l];
      want[O_XOR4] = v[l ^ 2] * 3 + 1;
      if (l < 16)
        want[O_DIVERGE] = v[l ^ 1];
      else
        want[O_DIVERGE] = ((l & 15) + 2 < 16) ? v[l + 2] : v[l];
      for (int k = 0; k < O_COUNT; ++k) {
        if (ho[k][i] != want[k]) {
          printf("FAIL %s: %s[%d] = %d, want %d\n", kName, names[k], i, ho[k][i], want[k]);
          rc = 1;
          break;
        }
      }
      if (rc)
        break;
      volatile double prod = (double)v[l ^ 7] * 1.0000001; // volatile: never fused
      double wd = prod + 0.5;
      if (hd[i] != wd) {
        printf("FAIL %s: double xor[%d] = %.17g, want %.17g\n", kName, i, hd[i], wd);
        rc = 1;
        break;
      }
      const int src = l >= 3 ? l - 3 : l;
      long long wl =
          (long long)((unsigned long long)(long long)v[src] << 33) ^ (long long)(w * 32 + src);
      if (hl[i] != wl) {
        printf("FAIL %s: long long up[%d] = %lld, want %lld\n", kName, i, hl[i], wl);
        rc = 1;
        break;
      }
    }
  }

  CK(cudaFree(din));
  for (int k = 0; k < O_COUNT; ++k) {
    CK(cudaFree(d.o[k]));
    free(ho[k]);
  }
  CK(cudaFree(d.warp_sum));
  CK(cudaFree(d.dbl));
  CK(cudaFree(d.ll));
  free(hin);
  free(hws);
  free(hd);
  free(hl);
  if (rc == 0)
    printf("PASS %s\n", kName);
  return rc;
}
