// grid_sync: cooperative launches and cooperative_groups' grid-wide barrier, as a user writes
// them.
// - a multi-phase grid reduction: each round every block reduces its grid-stride share into
//   partial[], grid.sync(), block 0 adds the partials up, grid.sync(), every block reads the
//   round's total back; launched with cudaLaunchCooperativeKernel on the largest grid the
//   occupancy API allows (blocks of 256 and of 1024 threads) and checked against a CPU sum;
// - the same kernel through cudaLaunchKernelExC with cudaLaunchAttributeCooperative;
// - a grid one block larger than the device holds at once: cudaErrorCooperativeLaunchTooLarge;
// - grid_group::is_valid(): true in a cooperative launch, false in an ordinary one.
#include <cooperative_groups.h>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

namespace cg = cooperative_groups;

static const char *kName = "grid_sync";

#include "../check.h"

constexpr int kRounds = 3;

__global__ void gridReduce(const int *in, int n, long long *partial, long long *totals,
                           long long *seen) {
  extern __shared__ long long cache[];
  cg::grid_group grid = cg::this_grid();
  cg::thread_block block = cg::this_thread_block();
  for (int round = 0; round < kRounds; ++round) {
    long long sum = 0;
    for (long long i = grid.thread_rank(); i < n; i += grid.size())
      sum += (long long)in[i] * (round + 1);
    cache[threadIdx.x] = sum;
    block.sync();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
      if (threadIdx.x < s)
        cache[threadIdx.x] += cache[threadIdx.x + s];
      block.sync();
    }
    if (threadIdx.x == 0)
      partial[blockIdx.x] = cache[0];
    grid.sync();
    if (blockIdx.x == 0 && threadIdx.x == 0) {
      long long total = 0;
      for (unsigned b = 0; b < gridDim.x; ++b)
        total += partial[b];
      totals[round] = total;
    }
    grid.sync();
    // Every block sees block 0's result once the barrier is past.
    if (threadIdx.x == 0)
      seen[blockIdx.x * kRounds + round] = totals[round];
  }
}

__global__ void validity(int *out) { out[blockIdx.x] = cg::this_grid().is_valid() ? 1 : 0; }

struct Buffers {
  int *in;
  long long *partial, *totals, *seen;
};

static int checkRun(const Buffers &b, int blocks, const std::vector<long long> &want) {
  std::vector<long long> totals(kRounds), seen(size_t(blocks) * kRounds);
  CK(cudaMemcpy(totals.data(), b.totals, kRounds * sizeof(long long), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(seen.data(), b.seen, seen.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  for (int r = 0; r < kRounds; ++r) {
    EXPECT(totals[r] == want[r]);
    for (int blk = 0; blk < blocks; ++blk)
      EXPECT(seen[size_t(blk) * kRounds + r] == want[r]);
  }
  return 0;
}

int main() {
  int dev = 0, coop = 0, sms = 0;
  CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  EXPECT(coop == 1);
  EXPECT(sms > 0);

  const int n = 300007;
  std::vector<int> host(n);
  for (int i = 0; i < n; ++i)
    host[i] = (i * 7919) % 1001 - 500;
  std::vector<long long> want(kRounds);
  for (int r = 0; r < kRounds; ++r)
    for (int v : host)
      want[r] += (long long)v * (r + 1);

  Buffers b;
  const int maxBlocks = 64 * sms;
  CK(cudaMalloc(&b.in, n * sizeof(int)));
  CK(cudaMalloc(&b.partial, maxBlocks * sizeof(long long)));
  CK(cudaMalloc(&b.totals, kRounds * sizeof(long long)));
  CK(cudaMalloc(&b.seen, size_t(maxBlocks) * kRounds * sizeof(long long)));
  CK(cudaMemcpy(b.in, host.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  int nn = n;
  void *args[] = {&b.in, &nn, &b.partial, &b.totals, &b.seen};
  for (int threads : {256, 1024}) {
    const size_t shared = threads * sizeof(long long);
    int perSm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, gridReduce, threads, shared));
    EXPECT(perSm > 0);
    const int blocks = perSm * sms;
    EXPECT(blocks <= maxBlocks);
    CK(cudaMemset(b.seen, 0, size_t(maxBlocks) * kRounds * sizeof(long long)));
    CK(cudaLaunchCooperativeKernel((void *)gridReduce, blocks, threads, args, shared, nullptr));
    CK(cudaDeviceSynchronize());
    if (checkRun(b, blocks, want))
      return 1;
    printf("cooperative launch: %d blocks of %d threads (%d per SM, %d SMs)\n", blocks, threads,
           perSm, sms);

    // One block more than fits is refused, and the error is not sticky.
    cudaError_t err =
        cudaLaunchCooperativeKernel((void *)gridReduce, blocks + 1, threads, args, shared, nullptr);
    EXPECT(err == cudaErrorCooperativeLaunchTooLarge);
    EXPECT(cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge);
    CK(cudaDeviceSynchronize());
  }

  // The launch attribute, on a stream.
  {
    const int threads = 128;
    const size_t shared = threads * sizeof(long long);
    int perSm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, gridReduce, threads, shared));
    cudaStream_t stream;
    CK(cudaStreamCreate(&stream));
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(perSm * sms);
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = shared;
    config.stream = stream;
    cudaLaunchAttribute attr;
    attr.id = cudaLaunchAttributeCooperative;
    attr.val.cooperative = 1;
    config.attrs = &attr;
    config.numAttrs = 1;
    CK(cudaMemset(b.seen, 0, size_t(maxBlocks) * kRounds * sizeof(long long)));
    CK(cudaLaunchKernelEx(&config, gridReduce, (const int *)b.in, n, b.partial, b.totals, b.seen));
    CK(cudaStreamSynchronize(stream));
    if (checkRun(b, perSm * sms, want))
      return 1;
    config.gridDim = dim3(perSm * sms + 1);
    EXPECT(cudaLaunchKernelEx(&config, gridReduce, (const int *)b.in, n, b.partial, b.totals,
                              b.seen) == cudaErrorCooperativeLaunchTooLarge);
    EXPECT(cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge);
    CK(cudaStreamDestroy(stream));
  }

  // The grid workspace exists in cooperative launches only.
  {
    int *flags;
    const int blocks = 4;
    CK(cudaMalloc(&flags, blocks * sizeof(int)));
    validity<<<blocks, 64>>>(flags);
    CK(cudaGetLastError());
    int got[blocks];
    CK(cudaMemcpy(got, flags, sizeof got, cudaMemcpyDeviceToHost));
    for (int v : got)
      EXPECT(v == 0);
    void *vargs[] = {&flags};
    CK(cudaLaunchCooperativeKernel((void *)validity, blocks, 64, vargs, 0, nullptr));
    CK(cudaMemcpy(got, flags, sizeof got, cudaMemcpyDeviceToHost));
    for (int v : got)
      EXPECT(v == 1);
    CK(cudaFree(flags));
  }

  CK(cudaFree(b.in));
  CK(cudaFree(b.partial));
  CK(cudaFree(b.totals));
  CK(cudaFree(b.seen));
  printf("PASS %s\n", kName);
  return 0;
}
