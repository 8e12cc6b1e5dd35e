// pools: stream-ordered allocation (cudaMallocAsync/cudaFreeAsync) from the device's default pool
// and from a pool of the program's own, used by kernels and reused across 50 rounds; a release
// threshold keeps freed memory in the pool, the pool's counters say so, and trimming gives it
// back.
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

static const char *kName = "pools";

#include "../check.h"

__global__ void iota(int *out, int n, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = base + i;
}

__global__ void sum(const int *in, int n, unsigned long long *total) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    atomicAdd(total, (unsigned long long)in[i]);
}

int main() {
  int device = 0, pools = 0;
  CK(cudaGetDevice(&device));
  CK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device));
  if (!pools) {
    printf("WAIVED %s: no memory pools\n", kName);
    return 2;
  }
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const int n = 4096;
  unsigned long long *total = nullptr;
  CK(cudaMalloc(&total, sizeof *total));

  // The default pool, reused round after round.
  cudaMemPool_t def;
  CK(cudaDeviceGetDefaultMemPool(&def, device));
  cudaMemPool_t current;
  CK(cudaDeviceGetMemPool(&current, device));
  EXPECT(current == def);
  for (int round = 0; round < 50; ++round) {
    int *buf = nullptr;
    CK(cudaMallocAsync(&buf, n * sizeof(int), s));
    CK(cudaMemsetAsync(total, 0, sizeof *total, s));
    iota<<<n / 256, 256, 0, s>>>(buf, n, round);
    sum<<<n / 256, 256, 0, s>>>(buf, n, total);
    CK(cudaFreeAsync(buf, s));
    unsigned long long got = 0;
    CK(cudaMemcpyAsync(&got, total, sizeof got, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    EXPECT(got == (unsigned long long)n * round + (unsigned long long)n * (n - 1) / 2);
  }

  // A pool of our own that keeps what is freed (release threshold: unlimited).
  cudaMemPoolProps props = {};
  props.allocType = cudaMemAllocationTypePinned;
  props.location.type = cudaMemLocationTypeDevice;
  props.location.id = device;
  cudaMemPool_t mine;
  CK(cudaMemPoolCreate(&mine, &props));
  uint64_t threshold = UINT64_MAX;
  CK(cudaMemPoolSetAttribute(mine, cudaMemPoolAttrReleaseThreshold, &threshold));
  int *a = nullptr, *b = nullptr;
  CK(cudaMallocFromPoolAsync(&a, n * sizeof(int), mine, s));
  CK(cudaMallocFromPoolAsync(&b, n * sizeof(int), mine, s));
  EXPECT(a != b);
  uint64_t used = 0, reserved = 0;
  CK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemCurrent, &used));
  EXPECT(used >= 2 * n * sizeof(int));
  CK(cudaFreeAsync(a, s));
  CK(cudaStreamSynchronize(s));
  CK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemCurrent, &used));
  CK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrReservedMemCurrent, &reserved));
  EXPECT(used >= n * sizeof(int) && used < 2 * n * sizeof(int));
  EXPECT(reserved >= 2 * n * sizeof(int)); // a's memory stays in the pool
  // The next allocation of that size reuses it, and works.
  int *c = nullptr;
  CK(cudaMallocFromPoolAsync(&c, n * sizeof(int), mine, s));
  iota<<<n / 256, 256, 0, s>>>(c, n, 3);
  CK(cudaMemsetAsync(total, 0, sizeof *total, s));
  sum<<<n / 256, 256, 0, s>>>(c, n, total);
  unsigned long long got = 0;
  CK(cudaMemcpyAsync(&got, total, sizeof got, cudaMemcpyDeviceToHost, s));
  CK(cudaStreamSynchronize(s));
  EXPECT(got == 3ull * n + (unsigned long long)n * (n - 1) / 2);
  CK(cudaFreeAsync(b, s));
  CK(cudaFreeAsync(c, s));
  CK(cudaStreamSynchronize(s));
  CK(cudaMemPoolTrimTo(mine, 0));
  CK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrReservedMemCurrent, &reserved));
  EXPECT(reserved == 0);
  uint64_t high = 0;
  CK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemHigh, &high));
  EXPECT(high >= 2 * n * sizeof(int));

  // The device reads and writes its pools; a bad attribute is refused.
  cudaMemLocation here = {cudaMemLocationTypeDevice, device};
  cudaMemAccessFlags access;
  CK(cudaMemPoolGetAccess(&access, mine, &here));
  EXPECT(access == cudaMemAccessFlagsProtReadWrite);
  EXPECT(cudaMemPoolSetAttribute(mine, (cudaMemPoolAttr)99, &threshold) == cudaErrorInvalidValue);
  cudaGetLastError();
  CK(cudaMemPoolDestroy(mine));
  CK(cudaFree(total));
  CK(cudaStreamDestroy(s));
  printf("PASS %s\n", kName);
  return 0;
}
