// sync_fence: block-wide barrier reductions (__syncthreads_count, __syncthreads_and,
// __syncthreads_or), a single-pass "last block finishes" reduction using __threadfence and an
// atomicInc retirement counter with volatile reads of the other blocks' partials, a
// warp-synchronous final stage on volatile shared memory separated by __syncwarp, and
// __threadfence_block/__threadfence_system. No thread ever spins waiting for another.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static const char *kName = "sync_fence";

#include "check.h"

constexpr int kBlock = 256;

__device__ unsigned d_retired = 0;

struct BlockVotes {
  int count_pos, all_small, any_seven, count_in_range;
};

__global__ void votes(const int *in, int n, BlockVotes *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int v = i < n ? in[i] : 0;
  BlockVotes r;
  r.count_pos = __syncthreads_count(v > 0);
  r.all_small = __syncthreads_and(v < 1000) != 0;
  r.any_seven = __syncthreads_or(v == 7) != 0;
  r.count_in_range = __syncthreads_count(i < n);
  if (threadIdx.x == 0)
    out[blockIdx.x] = r;
}

// Sum of in[] in one launch: partials, fence, and the last block to retire adds them up.
__global__ void single_pass_sum(const int *in, int n, int *partials, long long *total,
                                int *last_block) {
  __shared__ int s[kBlock];
  __shared__ bool am_last;
  const int t = threadIdx.x;
  int acc = 0;
  for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
    acc += in[i];
  s[t] = acc;
  __syncthreads();
  for (int off = blockDim.x / 2; off > 32; off >>= 1) {
    if (t < off)
      s[t] += s[t + off];
    __syncthreads();
  }
  if (t < 32) {
    volatile int *vs = s;
    for (int off = 32; off > 0; off >>= 1) {
      int x = vs[t] + vs[t + off];
      __syncwarp();
      vs[t] = x;
      __syncwarp();
    }
  }
  if (t == 0) {
    partials[blockIdx.x] = s[0];
    __threadfence(); // make the partial visible before announcing retirement
    const unsigned ticket = atomicInc(&d_retired, gridDim.x - 1); // wraps to 0 for reuse
    am_last = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (am_last) {
    long long sum = 0;
    const volatile int *vp = partials;
    for (int b = t; b < gridDim.x; b += blockDim.x)
      sum += vp[b];
    __shared__ long long ls[kBlock];
    ls[t] = sum;
    __syncthreads();
    for (int off = blockDim.x / 2; off > 0; off >>= 1) {
      if (t < off)
        ls[t] += ls[t + off];
      __syncthreads();
    }
    if (t == 0) {
      *total = ls[0];
      *last_block = blockIdx.x;
      __threadfence_system();
    }
  }
}

// Writes in two phases separated by __threadfence_block and a barrier.
__global__ void fenced_phases(int *buf, int *out) {
  __shared__ int stage[kBlock];
  const int t = threadIdx.x;
  const int g = blockIdx.x * blockDim.x + t;
  buf[g] = g * 3;
  stage[t] = g;
  __threadfence_block();
  __syncthreads();
  const int neighbour = (t + 1) % blockDim.x;
  out[g] = buf[blockIdx.x * blockDim.x + neighbour] + stage[(t + 5) % blockDim.x];
}

int main() {
  const int n = 4999;
  const int grid = (n + kBlock - 1) / kBlock; // 20 blocks
  int *h = (int *)malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i)
    h[i] = (i * 7919) % 1013 - 300;
  h[1234] = 7;
  int *din, *dpart, *dlast, *dbuf, *dout;
  long long *dtotal;
  BlockVotes *dvotes;
  CK(cudaMalloc(&din, n * sizeof(int)));
  CK(cudaMalloc(&dpart, 64 * sizeof(int)));
  CK(cudaMalloc(&dlast, sizeof(int)));
  CK(cudaMalloc(&dtotal, sizeof(long long)));
  CK(cudaMalloc(&dvotes, grid * sizeof(BlockVotes)));
  CK(cudaMalloc(&dbuf, 8 * kBlock * sizeof(int)));
  CK(cudaMalloc(&dout, 8 * kBlock * sizeof(int)));
  CK(cudaMemcpy(din, h, n * sizeof(int), cudaMemcpyHostToDevice));

  votes<<<grid, kBlock>>>(din, n, dvotes);
  CK(cudaGetLastError());
  long long want_total = 0;
  for (int i = 0; i < n; ++i)
    want_total += h[i];
  // Run the single-pass sum twice with different grids: the counter must wrap back to 0.
  const int grids[2] = {grid, 13};
  int rc = 0;
  for (int run = 0; run < 2 && !rc; ++run) {
    CK(cudaMemset(dtotal, 0, sizeof(long long)));
    CK(cudaMemset(dlast, 0xff, sizeof(int)));
    single_pass_sum<<<grids[run], kBlock>>>(din, n, dpart, dtotal, dlast);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    long long total = 0;
    int last = -1;
    unsigned retired = 1;
    CK(cudaMemcpy(&total, dtotal, sizeof(total), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&last, dlast, sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpyFromSymbol(&retired, d_retired, sizeof(unsigned)));
    if (total != want_total || last < 0 || last >= grids[run] || retired != 0) {
      printf("FAIL %s: single-pass sum (grid %d) = %lld by block %d, counter %u; want %lld\n",
             kName, grids[run], total, last, retired, want_total);
      rc = 1;
    }
  }

  fenced_phases<<<8, kBlock>>>(dbuf, dout);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  BlockVotes *hv = (BlockVotes *)malloc(grid * sizeof(BlockVotes));
  int *hout = (int *)malloc(8 * kBlock * sizeof(int));
  CK(cudaMemcpy(hv, dvotes, grid * sizeof(BlockVotes), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hout, dout, 8 * kBlock * sizeof(int), cudaMemcpyDeviceToHost));

  for (int b = 0; b < grid && !rc; ++b) {
    BlockVotes w{0, 1, 0, 0};
    for (int t = 0; t < kBlock; ++t) {
      const int i = b * kBlock + t;
      const int v = i < n ? h[i] : 0;
      w.count_pos += v > 0;
      w.all_small &= v < 1000;
      w.any_seven |= v == 7;
      w.count_in_range += i < n;
    }
    const BlockVotes &g = hv[b];
    if (g.count_pos != w.count_pos || g.all_small != w.all_small || g.any_seven != w.any_seven ||
        g.count_in_range != w.count_in_range) {
      printf("FAIL %s: block %d votes count/and/or/count = %d/%d/%d/%d, want %d/%d/%d/%d\n", kName,
             b, g.count_pos, g.all_small, g.any_seven, g.count_in_range, w.count_pos, w.all_small,
             w.any_seven, w.count_in_range);
      rc = 1;
    }
  }
  for (int g = 0; g < 8 * kBlock && !rc; ++g) {
    const int b = g / kBlock, t = g % kBlock;
    const int want = (b * kBlock + (t + 1) % kBlock) * 3 + b * kBlock + (t + 5) % kBlock;
    if (hout[g] != want) {
      printf("FAIL %s: fenced_phases[%d] = %d, want %d\n", kName, g, hout[g], want);
      rc = 1;
    }
  }

  CK(cudaFree(din));
  CK(cudaFree(dpart));
  CK(cudaFree(dlast));
  CK(cudaFree(dtotal));
  CK(cudaFree(dvotes));
  CK(cudaFree(dbuf));
  CK(cudaFree(dout));
  free(h);
  free(hv);
  free(hout);
  if (rc == 0)
    printf("PASS %s\n", kName);
  return rc;
}
