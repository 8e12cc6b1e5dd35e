// named_barriers: named barriers for part of a block, as warp-specialised kernels use them.
// - pipeline: two producer warps fill a double-buffered tile in shared memory and signal it with
//   bar.arrive; four consumer warps wait for it with bar.sync, use it and hand the stage back
//   with bar.arrive (barriers 1-4, 192 threads of a 224-thread block whose last warp does
//   something else, synchronising on barrier 5 alone);
// - groups: each pair of warps reduces its values in shared memory on its own barrier
//   (__barrier_sync_count), also with a block that ends in a partial warp;
// - votes: bar.red.popc / .and / .or for each pair of warps on its own barrier.
// Every result is checked against the same computation on the host.
#include <algorithm>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

static const char *kName = "named_barriers";

#include "../check.h"

constexpr int kProducers = 64, kConsumers = 128, kOthers = 32, kTiles = 16;
constexpr int kPipelineBlock = kProducers + kConsumers + kOthers;
constexpr int kParticipants = kProducers + kConsumers;

__device__ __forceinline__ void arrive(unsigned id, unsigned count) {
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory");
}

__device__ __forceinline__ void sync(unsigned id, unsigned count) {
  asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

// Barriers: full[s] = 1 + s, empty[s] = 3 + s; barrier 5 for the other warp.
__global__ void pipeline(const unsigned *in, unsigned *out) {
  __shared__ unsigned tile[2][kConsumers];
  __shared__ unsigned scratch[kOthers];
  const int t = threadIdx.x;
  const unsigned *src = in + blockIdx.x * kTiles * kConsumers;
  if (t < kProducers) {
    for (int k = 0; k < kTiles; ++k) {
      const int s = k & 1;
      if (k >= 2)
        sync(3 + s, kParticipants); // the consumers are done with this stage
      for (int j = t; j < kConsumers; j += kProducers)
        tile[s][j] = src[k * kConsumers + j];
      arrive(1 + s, kParticipants);
    }
    out[blockIdx.x * kPipelineBlock + t] = kTiles;
  } else if (t < kParticipants) {
    const int j = t - kProducers;
    unsigned acc = 0;
    for (int k = 0; k < kTiles; ++k) {
      const int s = k & 1;
      sync(1 + s, kParticipants);
      acc = acc * 3 + tile[s][j];
      if (k + 2 < kTiles)
        arrive(3 + s, kParticipants);
    }
    out[blockIdx.x * kPipelineBlock + t] = acc;
  } else {
    const int j = t - kParticipants;
    scratch[j] = j * j;
    sync(5, kOthers);
    out[blockIdx.x * kPipelineBlock + t] = scratch[(j + 1) % kOthers];
  }
}

// Each pair of warps sums its values by halving, on barrier 1 + pair.
__global__ void groups(const unsigned *in, unsigned *out) {
  __shared__ unsigned v[1024];
  const int t = threadIdx.x, first = t / 64 * 64;
  const int n = min(64, (int)blockDim.x - first);
  const unsigned id = 1 + t / 64;
  const unsigned x = in[blockIdx.x * blockDim.x + t];
  v[t] = x;
  for (int step = 32; step >= 1; step /= 2) {
    __barrier_sync_count(id, 64);
    unsigned add = t - first + step < n ? v[t + step] : 0;
    __barrier_sync_count(id, 64);
    v[t] += add;
  }
  __barrier_sync_count(id, 64);
  out[blockIdx.x * blockDim.x + t] = v[first] * 1000 + x;
}

__device__ __forceinline__ unsigned votes(unsigned id, bool p) {
  unsigned popc, all, any;
  asm volatile("{\n .reg .pred p, a, o;\n setp.ne.u32 p, %3, 0;\n"
               " bar.red.popc.u32 %0, %4, 64, p;\n bar.red.and.pred a, %4, 64, p;\n"
               " bar.red.or.pred o, %4, 64, p;\n selp.u32 %1, 1, 0, a;\n selp.u32 %2, 1, 0, o;\n}"
               : "=r"(popc), "=r"(all), "=r"(any)
               : "r"((unsigned)p), "r"(id)
               : "memory");
  return popc << 2 | all << 1 | any;
}

__global__ void voting(const unsigned *in, unsigned *out) {
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  out[i] = votes(6 + t / 64, in[i] != 0);
}

int main() {
  // pipeline
  const int blocks = 3;
  std::vector<unsigned> in(blocks * kTiles * kConsumers);
  for (size_t i = 0; i < in.size(); ++i)
    in[i] = unsigned(i * 2654435761u >> 7);
  unsigned *din = nullptr, *dout = nullptr;
  CK(cudaMalloc(&din, in.size() * sizeof(unsigned)));
  CK(cudaMalloc(&dout, blocks * kPipelineBlock * sizeof(unsigned)));
  CK(cudaMemcpy(din, in.data(), in.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
  pipeline<<<blocks, kPipelineBlock>>>(din, dout);
  CK(cudaGetLastError());
  std::vector<unsigned> out(blocks * kPipelineBlock);
  CK(cudaMemcpy(out.data(), dout, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < kPipelineBlock; ++t) {
      unsigned want;
      if (t < kProducers) {
        want = kTiles;
      } else if (t < kParticipants) {
        want = 0;
        for (int k = 0; k < kTiles; ++k)
          want = want * 3 + in[(b * kTiles + k) * kConsumers + t - kProducers];
      } else {
        const int j = t - kParticipants;
        want = (j + 1) % kOthers * ((j + 1) % kOthers);
      }
      if (out[b * kPipelineBlock + t] != want && bad++ < 5)
        printf("  pipeline block %d thread %d: %u, want %u\n", b, t, out[b * kPipelineBlock + t],
               want);
    }
  EXPECT(bad == 0);
  CK(cudaFree(din));
  CK(cudaFree(dout));

  // groups and votes, with whole warps and with a partial last warp
  for (int block : {256, 240}) {
    const int n = 4 * block;
    std::vector<unsigned> x(n);
    for (int i = 0; i < n; ++i)
      x[i] = (i * 7919u) % 1000;
    CK(cudaMalloc(&din, n * sizeof(unsigned)));
    CK(cudaMalloc(&dout, n * sizeof(unsigned)));
    CK(cudaMemcpy(din, x.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    groups<<<4, block>>>(din, dout);
    CK(cudaGetLastError());
    std::vector<unsigned> got(n);
    CK(cudaMemcpy(got.data(), dout, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
      const int b = i / block, first = i % block / 64 * 64, m = std::min(64, block - first);
      unsigned sum = 0;
      for (int j = 0; j < m; ++j)
        sum += x[b * block + first + j];
      if (got[i] != sum * 1000 + x[i] && bad++ < 5)
        printf("  groups (block %d) thread %d: %u, want %u\n", block, i, got[i], sum * 1000 + x[i]);
    }
    // Votes: all false, all true, one true per pair, mixed.
    for (int i = 0; i < n; ++i) {
      const int b = i / block, t = i % block;
      x[i] = b == 0 ? 0 : b == 1 ? 1 : b == 2 ? t % 64 == 17 : (i * 40503u >> 5) & 1;
    }
    CK(cudaMemcpy(din, x.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    voting<<<4, block>>>(din, dout);
    CK(cudaGetLastError());
    CK(cudaMemcpy(got.data(), dout, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
      const int b = i / block, first = i % block / 64 * 64, m = std::min(64, block - first);
      unsigned popc = 0, all = 1, any = 0;
      for (int j = 0; j < m; ++j) {
        const bool p = x[b * block + first + j] != 0;
        popc += p, all &= p, any |= p;
      }
      const unsigned want = popc << 2 | all << 1 | any;
      if (got[i] != want && bad++ < 5)
        printf("  votes (block %d) thread %d: 0x%x, want 0x%x\n", block, i, got[i], want);
    }
    EXPECT(bad == 0);
    CK(cudaFree(din));
    CK(cudaFree(dout));
  }
  printf("%s: pipeline of %d tiles in %d blocks; groups and votes in blocks of 256 and 240\n",
         kName, kTiles, blocks);
  printf("PASS %s\n", kName);
  return 0;
}
