// device_heap: malloc/free, new/delete and __nv_aligned_device_malloc in kernels. 65,536 threads
// allocate blocks of mixed sizes, fill and check them and free them; the heap runs out (NULL)
// and recovers; objects with constructors and destructors; memory allocated in one kernel, read
// by the host and freed in a later kernel; cudaLimitMallocHeapSize.
#include <cstdint>
#include <cstdio>
#include <cuda_runtime.h>

static const char *kName = "device_heap";

#include "../check.h"

__device__ unsigned d_errors;
__device__ unsigned d_nulls;
__device__ int d_destroyed;

__global__ void mixed(int rounds) {
  unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = 0; r < rounds; ++r) {
    size_t bytes = 4 + ((t * 37 + r * 101) % 250) * 4; // 4 .. 1000 bytes
    unsigned *p = (unsigned *)malloc(bytes);
    if (!p) {
      atomicAdd(&d_nulls, 1);
      continue;
    }
    size_t n = bytes / 4;
    for (size_t i = 0; i < n; ++i)
      p[i] = t ^ (unsigned)i;
    __syncwarp();
    for (size_t i = 0; i < n; ++i)
      if (p[i] != (t ^ (unsigned)i))
        atomicAdd(&d_errors, 1);
    free(p);
  }
}

// One thread takes 1 MiB blocks until there are no more, gives them back and takes one again.
__global__ void exhaust(int *taken, int *again) {
  void *blocks[1024];
  int n = 0;
  while (n < 1024 && (blocks[n] = malloc(1 << 20)))
    ++n;
  *taken = n;
  for (int i = 0; i < n; ++i)
    free(blocks[i]);
  void *p = malloc(1 << 20);
  *again = p != nullptr;
  free(p);
}

struct Tracked {
  int value;
  __device__ Tracked() : value(42) {}
  __device__ ~Tracked() { atomicAdd(&d_destroyed, 1); }
};

__global__ void objects(int *sum) {
  Tracked *many = new Tracked[8];
  int *one = new int(5);
  int s = *one;
  for (int i = 0; i < 8; ++i)
    s += many[i].value;
  delete[] many;
  delete one;
  atomicAdd(sum, s);
}

__global__ void keep(int **slots, int n) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n) {
    int *p = (int *)malloc(16 * sizeof(int));
    if (p)
      for (int i = 0; i < 16; ++i)
        p[i] = t * 16 + i;
    slots[t] = p;
  }
}

__global__ void release(int **slots, int n, int *sum) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t < n && slots[t]) {
    int s = 0;
    for (int i = 0; i < 16; ++i)
      s += slots[t][i];
    atomicAdd(sum, s);
    free(slots[t]);
  }
}

__global__ void aligned(uintptr_t *out) {
  void *p = __nv_aligned_device_malloc(100, 256);
  void *q = __nv_aligned_device_malloc(100, 3); // not a power of two
  out[0] = (uintptr_t)p;
  out[1] = (uintptr_t)q;
  free(p);
}

template <typename T> static T readSymbol(const T &symbol) {
  T v{};
  cudaMemcpyFromSymbol(&v, symbol, sizeof v);
  return v;
}

int main() {
  size_t heap = 0;
  CK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
  EXPECT(heap == 8u << 20); // CUDA's default
  CK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64u << 20));
  CK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
  EXPECT(heap == 64u << 20);

  mixed<<<256, 256>>>(4);
  CK(cudaDeviceSynchronize());
  unsigned errors = readSymbol(d_errors), nulls = readSymbol(d_nulls);
  EXPECT(errors == 0);
  EXPECT(nulls == 0);

  int *d = nullptr;
  CK(cudaMalloc(&d, 4 * sizeof(int)));
  CK(cudaMemset(d, 0, 4 * sizeof(int)));
  exhaust<<<1, 1>>>(d, d + 1);
  int taken = 0, again = 0;
  CK(cudaMemcpy(&taken, d, sizeof taken, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&again, d + 1, sizeof again, cudaMemcpyDeviceToHost));
  EXPECT(taken > 8 && taken < 64); // a 64 MiB heap holds some 1 MiB blocks, not 64 of them
  EXPECT(again == 1);

  objects<<<4, 32>>>(d + 2);
  int sum = 0;
  CK(cudaMemcpy(&sum, d + 2, sizeof sum, cudaMemcpyDeviceToHost));
  EXPECT(sum == 128 * (5 + 8 * 42));
  EXPECT(readSymbol(d_destroyed) == 128 * 8);

  // Allocated by one kernel, read by the host through the stored pointers, freed by another.
  const int n = 4096;
  int **slots = nullptr;
  CK(cudaMalloc(&slots, n * sizeof(int *)));
  keep<<<n / 128, 128>>>(slots, n);
  int *host[n];
  CK(cudaMemcpy(host, slots, sizeof host, cudaMemcpyDeviceToHost));
  int first[16];
  EXPECT(host[n - 1] != nullptr);
  CK(cudaMemcpy(first, host[n - 1], sizeof first, cudaMemcpyDeviceToHost));
  for (int i = 0; i < 16; ++i)
    EXPECT(first[i] == (n - 1) * 16 + i);
  CK(cudaMemset(d + 3, 0, sizeof(int)));
  release<<<n / 128, 128>>>(slots, n, d + 3);
  CK(cudaMemcpy(&sum, d + 3, sizeof sum, cudaMemcpyDeviceToHost));
  EXPECT(sum == (int)((long long)(n * 16) * (n * 16 - 1) / 2));

  uintptr_t *ptrs = nullptr;
  CK(cudaMalloc(&ptrs, 2 * sizeof(uintptr_t)));
  aligned<<<1, 1>>>(ptrs);
  uintptr_t got[2];
  CK(cudaMemcpy(got, ptrs, sizeof got, cudaMemcpyDeviceToHost));
  EXPECT(got[0] && got[0] % 256 == 0);
  EXPECT(got[1] == 0);

  // The heap's size is fixed once kernels allocate.
  EXPECT(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 128u << 20) == cudaErrorInvalidValue);
  cudaGetLastError();
  CK(cudaFree(ptrs));
  CK(cudaFree(slots));
  CK(cudaFree(d));
  printf("PASS %s\n", kName);
  return 0;
}
