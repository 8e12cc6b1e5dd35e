// cuda_barrier_pipeline: double-buffered copies from global into shared memory through libcu++'s
// cuda::barrier and cuda::pipeline, as a user writes them (built for sm_90, where the copies of
// 16-byte aligned blocks are cp.async.bulk completing on the barrier's mbarrier and the others
// cp.async with cp.async.mbarrier.arrive):
// - barrier: a block-scope cuda::barrier per buffer, cuda::memcpy_async of the whole block's tile
//   (16-byte aligned and not), arrive_and_wait, and arrive/wait with the token;
// - pipeline: a two-stage cuda::pipeline shared by the block (producer_acquire/commit,
//   consumer_wait/release), and a thread-scope pipeline with consumer_wait_prior;
// - tx: cuda::device::memcpy_async_tx with barrier_arrive_tx from one thread.
// Every result is checked against the same computation on the host.
#include <cooperative_groups.h>
#include <cstdio>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_runtime.h>
#include <vector>

static const char *kName = "cuda_barrier_pipeline";

#include "../check.h"

namespace cg = cooperative_groups;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

constexpr int kTile = 256, kTiles = 6, kBlocks = 3;

// What each thread accumulates from tile t: its own element and another thread's.
__host__ __device__ int contribution(const int *tile, int tid, int t) {
  return tile[tid] * (t + 1) + tile[(tid * 7 + 3) % kTile];
}

template <bool Aligned> __global__ void barrier_kernel(const int *in, int *out) {
  __shared__ alignas(16) int buf[2][kTile];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar[2];
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) {
    init(&bar[0], block.size());
    init(&bar[1], block.size());
  }
  block.sync();
  const int *src = in + blockIdx.x * kTiles * kTile;
  auto copy = [&](int t) {
    if constexpr (Aligned)
      cuda::memcpy_async(block, buf[t & 1], src + t * kTile,
                         cuda::aligned_size_t<16>(sizeof(int) * kTile), bar[t & 1]);
    else
      cuda::memcpy_async(block, buf[t & 1], src + t * kTile, sizeof(int) * kTile, bar[t & 1]);
  };
  copy(0);
  int acc = 0;
  for (int t = 0; t < kTiles; ++t) {
    if (t + 1 < kTiles)
      copy(t + 1);
    if (t % 2) {
      bar[t & 1].arrive_and_wait();
    } else {
      block_barrier::arrival_token token = bar[t & 1].arrive();
      bar[t & 1].wait(std::move(token));
    }
    acc += contribution(buf[t & 1], threadIdx.x, t);
    block.sync(); // the buffer is refilled next
  }
  out[blockIdx.x * kTile + threadIdx.x] = acc;
}

__global__ void pipeline_kernel(const int *in, int *out) {
  constexpr int kStages = 2;
  __shared__ alignas(16) int buf[kStages][kTile];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kStages> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  const int *src = in + blockIdx.x * kTiles * kTile;
  int acc = 0;
  for (int fetch = 0, t = 0; t < kTiles; ++t) {
    for (; fetch < kTiles && fetch < t + kStages; ++fetch) {
      pipe.producer_acquire();
      cuda::memcpy_async(block, buf[fetch % kStages], src + fetch * kTile,
                         cuda::aligned_size_t<16>(sizeof(int) * kTile), pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    acc += contribution(buf[t % kStages], threadIdx.x, t);
    pipe.consumer_release();
  }
  out[blockIdx.x * kTile + threadIdx.x] = acc;
}

__global__ void thread_pipeline_kernel(const int *in, int *out) {
  __shared__ int buf[2][kTile];
  cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
  const int *src = in + blockIdx.x * kTiles * kTile;
  int acc = 0;
  for (int t = 0; t < 2; ++t) {
    pipe.producer_acquire();
    cuda::memcpy_async(&buf[t][threadIdx.x], src + t * kTile + threadIdx.x, sizeof(int), pipe);
    pipe.producer_commit();
  }
  for (int t = 0; t < kTiles; ++t) {
    cuda::pipeline_consumer_wait_prior<1>(pipe);
    acc += buf[t & 1][threadIdx.x] * (t + 1);
    pipe.consumer_release();
    if (t + 2 < kTiles) {
      pipe.producer_acquire();
      cuda::memcpy_async(&buf[t & 1][threadIdx.x], src + (t + 2) * kTile + threadIdx.x, sizeof(int),
                         pipe);
    }
    pipe.producer_commit(); // an empty stage keeps wait_prior<1> counting
  }
  out[blockIdx.x * kTile + threadIdx.x] = acc;
}

__global__ void tx_kernel(const int *in, int *out) {
  __shared__ alignas(16) int buf[kTile];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ block_barrier bar;
  if (threadIdx.x == 0)
    init(&bar, blockDim.x);
  __syncthreads();
  const int *src = in + blockIdx.x * kTiles * kTile;
  int acc = 0;
  for (int t = 0; t < kTiles; ++t) {
    block_barrier::arrival_token token;
    if (threadIdx.x == 0) {
      cuda::device::memcpy_async_tx(buf, src + t * kTile,
                                    cuda::aligned_size_t<16>(sizeof(int) * kTile), bar);
      token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(int) * kTile);
    } else {
      token = bar.arrive();
    }
    bar.wait(std::move(token));
    acc += contribution(buf, threadIdx.x, t);
    __syncthreads();
  }
  out[blockIdx.x * kTile + threadIdx.x] = acc;
}

int main() {
  const int n = kBlocks * kTiles * kTile;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i)
    in[i] = (i * 2654435761u) >> 12;
  std::vector<int> want(kBlocks * kTile), want_thread(kBlocks * kTile);
  for (int b = 0; b < kBlocks; ++b)
    for (int tid = 0; tid < kTile; ++tid) {
      int acc = 0, acc_thread = 0;
      for (int t = 0; t < kTiles; ++t) {
        const int *tile = &in[(b * kTiles + t) * kTile];
        acc += contribution(tile, tid, t);
        acc_thread += tile[tid] * (t + 1);
      }
      want[b * kTile + tid] = acc;
      want_thread[b * kTile + tid] = acc_thread;
    }
  int *d_in, *d_out;
  CK(cudaMalloc(&d_in, n * sizeof(int)));
  CK(cudaMalloc(&d_out, kBlocks * kTile * sizeof(int)));
  CK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  struct Run {
    const char *what;
    void (*kernel)(const int *, int *);
    const std::vector<int> *want;
  };
  const Run runs[] = {{"barrier, 16-byte aligned", barrier_kernel<true>, &want},
                      {"barrier", barrier_kernel<false>, &want},
                      {"block pipeline", pipeline_kernel, &want},
                      {"thread pipeline", thread_pipeline_kernel, &want_thread},
                      {"memcpy_async_tx", tx_kernel, &want}};
  std::vector<int> got(kBlocks * kTile);
  for (const Run &r : runs) {
    CK(cudaMemset(d_out, 0, kBlocks * kTile * sizeof(int)));
    r.kernel<<<kBlocks, kTile>>>(d_in, d_out);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got.data(), d_out, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < kBlocks * kTile; ++i)
      if (got[i] != (*r.want)[i]) {
        printf("%s: out[%d] = %d, expected %d\n", r.what, i, got[i], (*r.want)[i]);
        EXPECT(got[i] == (*r.want)[i]);
      }
  }
  CK(cudaFree(d_in));
  CK(cudaFree(d_out));
  printf("PASS %s\n", kName);
  return 0;
}
