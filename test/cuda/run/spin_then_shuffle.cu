// spin_then_shuffle: half of each warp spins on a flag that the block before it (in the order
// blocks took their tickets) sets only after a stretch of work, then the whole warp takes the
// minimum of its lanes' values with shuffles, as cuSPARSE's ILU analysis does (it waits for
// earlier rows, then shuffles the minimum of its lanes' columns). A full-warp shuffle waits for
// every lane: a lane still spinning must not be left behind, whose value the minimum would then
// miss. The block before does a thousand shuffles before it sets the flag: on the host device,
// a thousand passes of the workgroup loop, which once left the spinning lanes behind after 64.
#include <cstdio>
#include <cuda_runtime.h>

static const char *kName = "spin_then_shuffle";

#include "../check.h"

__global__ void spinThenShuffle(unsigned *ticket, volatile int *done, int *out, int work) {
  __shared__ unsigned t;
  if (threadIdx.x == 0)
    t = atomicAdd(ticket, 1u);
  __syncthreads();
  const unsigned me = t;
  const int lane = threadIdx.x & 31, warp = threadIdx.x / 32;
  if (me > 0 && (lane & 1))
    while (done[me - 1] == 0)
      __nanosleep(100);
  int v = lane + 1 + int(me);
  for (int d = 16; d > 0; d >>= 1)
    v = min(v, __shfl_xor_sync(0xffffffffu, v, d));
  if (lane == 0)
    out[me * (blockDim.x / 32) + warp] = v;
  __syncthreads();
  if (warp == 0) {
    // Work before the flag, a shuffle a step: the next block's spinning lanes wait through as
    // many meetings of this warp (on the host device, as many passes of its workgroup loop).
    unsigned x = me + lane;
    for (int i = 0; i < work; ++i)
      x += __shfl_xor_sync(0xffffffffu, x, 1) & 1u;
    if (lane == 0) {
      out[gridDim.x * (blockDim.x / 32) + me] = int(x & 1);
      __threadfence();
      done[me] = 1;
    }
  }
}

int main() {
  const int Blocks = 8, Threads = 128, Warps = Threads / 32;
  unsigned *ticket = nullptr;
  int *done = nullptr, *out = nullptr;
  CK(cudaMalloc(&ticket, sizeof(unsigned)));
  CK(cudaMalloc(&done, Blocks * sizeof(int)));
  CK(cudaMalloc(&out, (Blocks * Warps + Blocks) * sizeof(int)));
  CK(cudaMemset(ticket, 0, sizeof(unsigned)));
  CK(cudaMemset(done, 0, Blocks * sizeof(int)));
  spinThenShuffle<<<Blocks, Threads>>>(ticket, done, out, 1000);
  CK(cudaGetLastError());
  int h[Blocks * Warps];
  CK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  for (int b = 0; b < Blocks; ++b)
    for (int w = 0; w < Warps; ++w)
      if (h[b * Warps + w] != b + 1) {
        printf("FAIL %s: block %d warp %d: minimum %d, want %d\n", kName, b, w, h[b * Warps + w],
               b + 1);
        return 1;
      }
  CK(cudaFree(ticket));
  CK(cudaFree(done));
  CK(cudaFree(out));
  printf("PASS %s\n", kName);
  return 0;
}
