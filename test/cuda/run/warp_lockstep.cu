// warp_lockstep: warp-synchronous code written for GPUs whose warps run in lockstep (the
// idioms of pre-Volta CUDA), with no __syncwarp where the warp's threads talk through memory:
// - reduce: a block sum whose last 64 values are added by the first warp through a volatile
//   shared array, six steps without a barrier (the classic unrolled last warp);
// - scan: an inclusive warp scan, each step adding the value `offset` lanes down, volatile;
// - gather: lane 0 of each warp adds what lanes 1-16 of its warp have just stored;
// - permute: each warp moves its 32 elements in place, a[perm[i]] = a[i], every load before
//   any store;
// - halves: lanes 0-15 and 16-31 of a warp exchange values through shared memory with no
//   barrier, each half storing and loading in its own branch.
// Every result is checked against what the lockstep warp computes, on the host.
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

static const char *kName = "warp_lockstep";

#include "../check.h"

__device__ void warpReduce(volatile int *s, int t) {
  s[t] += s[t + 32];
  s[t] += s[t + 16];
  s[t] += s[t + 8];
  s[t] += s[t + 4];
  s[t] += s[t + 2];
  s[t] += s[t + 1];
}

__global__ void reduce(const int *in, int *out) {
  __shared__ int s[256];
  const int t = threadIdx.x;
  s[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int half = blockDim.x / 2; half > 32; half /= 2) {
    if (t < half)
      s[t] += s[t + half];
    __syncthreads();
  }
  if (t < 32)
    warpReduce(s, t);
  if (t == 0)
    out[blockIdx.x] = s[0];
}

__global__ void scan(const int *in, int *out) {
  __shared__ int buf[128];
  volatile int *s = buf;
  const int t = threadIdx.x, lane = t & 31;
  s[t] = in[blockIdx.x * blockDim.x + t];
  if (lane >= 1)
    s[t] += s[t - 1];
  if (lane >= 2)
    s[t] += s[t - 2];
  if (lane >= 4)
    s[t] += s[t - 4];
  if (lane >= 8)
    s[t] += s[t - 8];
  if (lane >= 16)
    s[t] += s[t - 16];
  out[blockIdx.x * blockDim.x + t] = s[t];
}

__global__ void gather(const int *in, int *out) {
  __shared__ int buf[128];
  volatile int *s = buf;
  const int t = threadIdx.x, lane = t & 31, warp = t / 32;
  s[t] = in[blockIdx.x * blockDim.x + t] * 3;
  if (lane == 0) {
    int sum = 0;
    for (int k = 1; k <= 16; ++k)
      sum += s[t + k];
    out[blockIdx.x * (blockDim.x / 32) + warp] = sum;
  }
}

__global__ void permute(int *a, const int *perm) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int base = i & ~31;
  a[base + perm[i & 31]] = a[i];
}

__global__ void halves(const int *in, int *out) {
  __shared__ int buf[64];
  volatile int *s = buf;
  const int t = threadIdx.x, lane = t & 31;
  int v = in[blockIdx.x * blockDim.x + t];
  if (lane < 16)
    s[t] = v + 100;
  else
    s[t] = v - 100;
  if (lane < 16)
    v = s[t + 16];
  else
    v = s[t - 16];
  out[blockIdx.x * blockDim.x + t] = v;
}

int main() {
  // reduce: 16 blocks of 256.
  {
    const int blocks = 16, n = blocks * 256;
    std::vector<int> in(n), out(blocks);
    for (int i = 0; i < n; ++i)
      in[i] = (i * 37 + 11) % 1000 - 500;
    int *dIn, *dOut;
    CK(cudaMalloc(&dIn, n * sizeof(int)));
    CK(cudaMalloc(&dOut, blocks * sizeof(int)));
    CK(cudaMemcpy(dIn, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    reduce<<<blocks, 256>>>(dIn, dOut);
    CK(cudaGetLastError());
    CK(cudaMemcpy(out.data(), dOut, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; ++b) {
      int sum = 0;
      for (int i = 0; i < 256; ++i)
        sum += in[b * 256 + i];
      if (out[b] != sum) {
        printf("FAIL %s: reduce block %d: %d, expected %d\n", kName, b, out[b], sum);
        return 1;
      }
    }
    CK(cudaFree(dIn));
    CK(cudaFree(dOut));
  }

  // scan and halves: 8 blocks of 128 (4 warps each); gather: lane 0 of each warp.
  {
    const int blocks = 8, n = blocks * 128;
    std::vector<int> in(n), out(n), sums(n / 32);
    for (int i = 0; i < n; ++i)
      in[i] = (i * 7919) % 97 - 40;
    int *dIn, *dOut, *dSums;
    CK(cudaMalloc(&dIn, n * sizeof(int)));
    CK(cudaMalloc(&dOut, n * sizeof(int)));
    CK(cudaMalloc(&dSums, n / 32 * sizeof(int)));
    CK(cudaMemcpy(dIn, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    scan<<<blocks, 128>>>(dIn, dOut);
    CK(cudaGetLastError());
    CK(cudaMemcpy(out.data(), dOut, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
      int expected = 0;
      for (int k = i & ~31; k <= i; ++k)
        expected += in[k];
      if (out[i] != expected) {
        printf("FAIL %s: scan element %d: %d, expected %d\n", kName, i, out[i], expected);
        return 1;
      }
    }

    gather<<<blocks, 128>>>(dIn, dSums);
    CK(cudaGetLastError());
    CK(cudaMemcpy(sums.data(), dSums, n / 32 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int w = 0; w < n / 32; ++w) {
      int expected = 0;
      for (int k = 1; k <= 16; ++k)
        expected += in[w * 32 + k] * 3;
      if (sums[w] != expected) {
        printf("FAIL %s: gather warp %d: %d, expected %d\n", kName, w, sums[w], expected);
        return 1;
      }
    }

    halves<<<blocks, 64>>>(dIn, dOut);
    CK(cudaGetLastError());
    CK(cudaMemcpy(out.data(), dOut, blocks * 64 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < blocks * 64; ++i) {
      const int lane = i & 31;
      const int expected = lane < 16 ? in[i + 16] - 100 : in[i - 16] + 100;
      if (out[i] != expected) {
        printf("FAIL %s: halves element %d: %d, expected %d\n", kName, i, out[i], expected);
        return 1;
      }
    }
    CK(cudaFree(dIn));
    CK(cudaFree(dOut));
    CK(cudaFree(dSums));
  }

  // permute: 4 blocks of 96 (3 warps each), each warp reversing and rotating its 32 elements.
  {
    const int blocks = 4, n = blocks * 96;
    std::vector<int> a(n), perm(32), out(n);
    for (int i = 0; i < n; ++i)
      a[i] = i * 5 + 1;
    for (int l = 0; l < 32; ++l)
      perm[l] = (31 - l + 7) % 32;
    int *dA, *dPerm;
    CK(cudaMalloc(&dA, n * sizeof(int)));
    CK(cudaMalloc(&dPerm, 32 * sizeof(int)));
    CK(cudaMemcpy(dA, a.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dPerm, perm.data(), 32 * sizeof(int), cudaMemcpyHostToDevice));
    permute<<<blocks, 96>>>(dA, dPerm);
    CK(cudaGetLastError());
    CK(cudaMemcpy(out.data(), dA, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
      const int expected = a[i];
      const int at = (i & ~31) + perm[i & 31];
      if (out[at] != expected) {
        printf("FAIL %s: permute element %d: %d, expected %d\n", kName, at, out[at], expected);
        return 1;
      }
    }
    CK(cudaFree(dA));
    CK(cudaFree(dPerm));
  }

  CK(cudaDeviceSynchronize());
  printf("PASS %s\n", kName);
  return 0;
}
