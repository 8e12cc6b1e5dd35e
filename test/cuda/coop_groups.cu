// coop_groups: cooperative_groups: this_thread_block (thread_rank, size, group_index,
// thread_index, sync), thread_block_tile<16> from tiled_partition (shfl, shfl_down, shfl_xor,
// ballot, any, all, meta_group_rank/size, sync), nested tiled_partition<4> of a tile,
// cg::reduce with plus/greater/bit_xor and cg::inclusive_scan/exclusive_scan on tiles, and a
// warp-aggregated atomic compaction with coalesced_threads() inside a divergent branch.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

static const char *kName = "coop_groups";

#include "check.h"

constexpr int kOut = 10;

__global__ void tiles(const int *in, int n, int *out) {
  cg::thread_block block = cg::this_thread_block();
  const int i = block.group_index().x * block.size() + block.thread_rank();
  const int v = i < n ? in[i] : 0; // everyone takes part; padding contributes 0
  cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
  cg::thread_block_tile<4> t4 = cg::tiled_partition<4>(t16);

  const int sum_lib = cg::reduce(t16, v, cg::plus<int>());
  int s = v;
  for (int off = t16.size() / 2; off > 0; off /= 2)
    s += t16.shfl_down(s, off);
  const int sum_manual = t16.shfl(s, 0);
  const int incl = cg::inclusive_scan(t16, v);
  const int excl = cg::exclusive_scan(t16, v, cg::plus<int>());
  const int max4 = cg::reduce(t4, v, cg::greater<int>());
  int x4 = v;
  for (int m = 1; m < 4; m <<= 1)
    x4 ^= t4.shfl_xor(x4, m);
  const unsigned ballot = t16.ballot(v > 0);
  const int anyall = (t16.any(v > 400) ? 1 : 0) | (t16.all(v > -1000) ? 2 : 0);
  t16.sync();
  block.sync();
  const int ids = (int)(t16.meta_group_rank() * 1000 + t16.meta_group_size() * 10000000 +
                        t16.thread_rank() * 10 + t4.thread_rank());
  const int bx = (int)(block.thread_index().x == threadIdx.x && block.size() == blockDim.x &&
                       block.group_index().x == blockIdx.x);
  const int xr = cg::reduce(t16, (unsigned)v * 2654435761u, cg::bit_xor<unsigned>());

  if (i < n) {
    int *o = out + (size_t)i * kOut;
    o[0] = sum_lib;
    o[1] = sum_manual;
    o[2] = incl;
    o[3] = excl;
    o[4] = max4;
    o[5] = x4;
    o[6] = (int)ballot;
    o[7] = anyall + bx * 4;
    o[8] = ids;
    o[9] = xr;
  }
}

// Threads whose value is divisible by 3 append their index: one atomic per coalesced group.
__global__ void compact(const int *in, int n, int *count, int *slots) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && in[i] % 3 == 0) {
    cg::coalesced_group active = cg::coalesced_threads();
    int base = 0;
    if (active.thread_rank() == 0)
      base = atomicAdd(count, (int)active.size());
    base = active.shfl(base, 0);
    slots[base + active.thread_rank()] = i;
  }
}

int main() {
  const int n = 1000;
  const int block = 256;
  const int grid = (n + block - 1) / block;
  const int padded = grid * block;
  int *h = (int *)calloc(padded, sizeof(int));
  for (int i = 0; i < n; ++i)
    h[i] = (i * 613) % 1201 - 600;

  int *din, *dout, *dcount, *dslots;
  CK(cudaMalloc(&din, n * sizeof(int)));
  CK(cudaMalloc(&dout, (size_t)n * kOut * sizeof(int)));
  CK(cudaMalloc(&dcount, sizeof(int)));
  CK(cudaMalloc(&dslots, n * sizeof(int)));
  CK(cudaMemcpy(din, h, n * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemset(dcount, 0, sizeof(int)));
  CK(cudaMemset(dslots, 0xff, n * sizeof(int)));
  tiles<<<grid, block>>>(din, n, dout);
  CK(cudaGetLastError());
  compact<<<grid, block>>>(din, n, dcount, dslots);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  int *hout = (int *)malloc((size_t)n * kOut * sizeof(int));
  int *hslots = (int *)malloc(n * sizeof(int));
  int count = 0;
  CK(cudaMemcpy(hout, dout, (size_t)n * kOut * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hslots, dslots, n * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&count, dcount, sizeof(int), cudaMemcpyDeviceToHost));

  int rc = 0;
  for (int i = 0; i < n && !rc; ++i) {
    const int t0 = i & ~15, q0 = i & ~3, r = i & 15;
    int sum = 0, incl = 0, excl = 0, mx = h[q0], x4 = 0, any = 0, all = 1;
    unsigned ballot = 0, xr = 0;
    for (int k = 0; k < 16; ++k) {
      const int v = h[t0 + k];
      sum += v;
      if (k <= r)
        incl += v;
      if (k < r)
        excl += v;
      if (v > 0)
        ballot |= 1u << k;
      if (v > 400)
        any = 1;
      if (!(v > -1000))
        all = 0;
      xr ^= (unsigned)v * 2654435761u;
    }
    for (int k = 0; k < 4; ++k) {
      if (h[q0 + k] > mx)
        mx = h[q0 + k];
      x4 ^= h[q0 + k];
    }
    const int tib = i % block;
    int want[kOut] = {sum,
                      sum,
                      incl,
                      excl,
                      mx,
                      x4,
                      (int)ballot,
                      any | (all << 1) | 4,
                      (tib / 16) * 1000 + (block / 16) * 10000000 + r * 10 + (r & 3),
                      (int)xr};
    for (int k = 0; k < kOut; ++k)
      if (hout[(size_t)i * kOut + k] != want[k]) {
        printf("FAIL %s: element %d output %d = %d, want %d\n", kName, i, k,
               hout[(size_t)i * kOut + k], want[k]);
        rc = 1;
        break;
      }
  }
  if (!rc) {
    int want_count = 0;
    for (int i = 0; i < n; ++i)
      want_count += h[i] % 3 == 0;
    char *seen = (char *)calloc(n, 1);
    if (count != want_count) {
      printf("FAIL %s: compaction count %d, want %d\n", kName, count, want_count);
      rc = 1;
    }
    for (int k = 0; k < count && !rc; ++k) {
      const int i = hslots[k];
      if (i < 0 || i >= n || seen[i] || h[i] % 3 != 0) {
        printf("FAIL %s: compaction slot %d holds %d\n", kName, k, i);
        rc = 1;
      } else {
        seen[i] = 1;
      }
    }
    free(seen);
  }

  CK(cudaFree(din));
  CK(cudaFree(dout));
  CK(cudaFree(dcount));
  CK(cudaFree(dslots));
  free(h);
  free(hout);
  free(hslots);
  if (rc == 0)
    printf("PASS %s\n", kName);
  return rc;
}
