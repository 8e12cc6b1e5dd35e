// memcpy_async: cooperative_groups::memcpy_async and cg::wait, as a user writes them (built for
// sm_80, where they are cp.async with commit and wait groups):
// - block: the whole block copies a tile (16-byte aligned, and at an odd element offset) into
//   shared memory, waits with cg::wait and uses other threads' elements;
// - tiles: each warp (cg::tiled_partition<32>) double-buffers its own slice with
//   cg::wait_prior<1>, the next copy in flight while the current one is used.
// Every result is checked against the same computation on the host.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cstdio>
#include <cuda/barrier>
#include <cuda_runtime.h>
#include <vector>

static const char *kName = "memcpy_async";

#include "../check.h"

namespace cg = cooperative_groups;

constexpr int kBlock = 128, kTiles = 5, kBlocks = 3, kWarp = 32;

__global__ void block_kernel(const int *in, int *out, int offset) {
  __shared__ alignas(16) int tile[kBlock];
  auto block = cg::this_thread_block();
  int acc = 0;
  for (int t = 0; t < kTiles; ++t) {
    const int *src = in + offset + (blockIdx.x * kTiles + t) * kBlock;
    if (offset == 0)
      cg::memcpy_async(block, tile, src, cuda::aligned_size_t<16>(sizeof(int) * kBlock));
    else
      cg::memcpy_async(block, tile, src, sizeof(int) * kBlock);
    cg::wait(block);
    acc += tile[threadIdx.x] + 3 * tile[(threadIdx.x * 5 + t) % kBlock];
    block.sync(); // the tile is refilled next
  }
  out[blockIdx.x * kBlock + threadIdx.x] = acc;
}

__global__ void tile_kernel(const int *in, int *out) {
  __shared__ alignas(16) int buf[2][kBlock];
  auto block = cg::this_thread_block();
  auto warp = cg::tiled_partition<kWarp>(block);
  const int first = warp.meta_group_rank() * kWarp;
  auto src = [&](int t) { return in + (blockIdx.x * kTiles + t) * kBlock + first; };
  cg::memcpy_async(warp, &buf[0][first], src(0), sizeof(int) * kWarp);
  int acc = 0;
  for (int t = 0; t < kTiles; ++t) {
    if (t + 1 < kTiles) {
      cg::memcpy_async(warp, &buf[(t + 1) & 1][first], src(t + 1), sizeof(int) * kWarp);
      cg::wait_prior<1>(warp);
    } else {
      cg::wait(warp);
    }
    const int *mine = &buf[t & 1][first];
    acc = acc * 3 + mine[warp.thread_rank()] + mine[(warp.thread_rank() + 1 + t) % kWarp];
    warp.sync(); // this buffer is refilled next
  }
  out[blockIdx.x * kBlock + threadIdx.x] = acc;
}

int main() {
  const int n = kBlocks * kTiles * kBlock + 1;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i)
    in[i] = int((i * 2246822519u) >> 9);
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, n * sizeof(int)));
  CK(cudaMalloc(&d_out, kBlocks * kBlock * sizeof(int)));
  CK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  std::vector<int> got(kBlocks * kBlock);
  for (int offset = 0; offset < 2; ++offset) {
    CK(cudaMemset(d_out, 0, got.size() * sizeof(int)));
    block_kernel<<<kBlocks, kBlock>>>(d_in, d_out, offset);
    CK(cudaGetLastError());
    CK(cudaMemcpy(got.data(), d_out, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
    for (int b = 0; b < kBlocks; ++b)
      for (int tid = 0; tid < kBlock; ++tid) {
        int acc = 0;
        for (int t = 0; t < kTiles; ++t) {
          const int *tile = &in[offset + (b * kTiles + t) * kBlock];
          acc += tile[tid] + 3 * tile[(tid * 5 + t) % kBlock];
        }
        if (got[b * kBlock + tid] != acc)
          printf("block copy at offset %d: out[%d] = %d, expected %d\n", offset, b * kBlock + tid,
                 got[b * kBlock + tid], acc);
        EXPECT(got[b * kBlock + tid] == acc);
      }
  }
  CK(cudaMemset(d_out, 0, got.size() * sizeof(int)));
  tile_kernel<<<kBlocks, kBlock>>>(d_in, d_out);
  CK(cudaGetLastError());
  CK(cudaMemcpy(got.data(), d_out, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < kBlocks; ++b)
    for (int tid = 0; tid < kBlock; ++tid) {
      const int first = tid / kWarp * kWarp, rank = tid % kWarp;
      int acc = 0;
      for (int t = 0; t < kTiles; ++t) {
        const int *mine = &in[(b * kTiles + t) * kBlock + first];
        acc = acc * 3 + mine[rank] + mine[(rank + 1 + t) % kWarp];
      }
      if (got[b * kBlock + tid] != acc)
        printf("tile copies: out[%d] = %d, expected %d\n", b * kBlock + tid, got[b * kBlock + tid],
               acc);
      EXPECT(got[b * kBlock + tid] == acc);
    }
  CK(cudaFree(d_in));
  CK(cudaFree(d_out));
  printf("PASS %s\n", kName);
  return 0;
}
