// address_spaces: __isGlobal, __isShared, __isLocal and __isConstant (PTX isspacep) on generic
// pointers of each space: global memory from cudaMalloc and a __device__ variable, __shared__
// memory (static and dynamic), a thread's local array, __constant__ data, and managed memory.
#include <cstdio>
#include <cuda_runtime.h>

static const char *kName = "address_spaces";

#include "../check.h"

__device__ int d_global[4];
__constant__ int c_table[4] = {1, 2, 3, 4};
__managed__ int m_value;

// Four bits per pointer: global, shared, local, constant. Not inlined, and given pointers read
// back from memory, so that the compiler cannot know their spaces and asks at run time.
__device__ __noinline__ unsigned classify(const void *p) {
  return (__isGlobal(p) ? 1u : 0u) | (__isShared(p) ? 2u : 0u) | (__isLocal(p) ? 4u : 0u) |
         (__isConstant(p) ? 8u : 0u);
}

__global__ void spaces(const int *allocated, unsigned *out, int pick) {
  __shared__ int tile[32];
  extern __shared__ int dynamic[];
  volatile int local[8];
  local[pick & 7] = pick;
  tile[threadIdx.x] = local[pick & 7];
  dynamic[threadIdx.x] = tile[threadIdx.x];
  if (threadIdx.x != 0)
    return;
  const void *volatile pointers[7] = {
      allocated,      d_global + pick, tile + pick, dynamic, (const void *)(local + pick),
      c_table + pick, &m_value};
  for (int i = 0; i < 7; ++i)
    out[i] = classify(pointers[i]);
}

int main() {
  int *d = nullptr;
  unsigned *out = nullptr;
  CK(cudaMalloc(&d, 64 * sizeof(int)));
  CK(cudaMalloc(&out, 8 * sizeof(unsigned)));
  spaces<<<1, 32, 32 * sizeof(int)>>>(d + 3, out, 1);
  CK(cudaGetLastError());
  unsigned got[7];
  CK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
  const unsigned want[7] = {1, 1, 2, 2, 4, 8, 1};
  const char *what[7] = {"cudaMalloc", "__device__",   "__shared__", "extern __shared__",
                         "local",      "__constant__", "__managed__"};
  for (int i = 0; i < 7; ++i)
    if (got[i] != want[i]) {
      printf("FAIL %s: %s pointer: global %u shared %u local %u constant %u\n", kName, what[i],
             got[i] & 1, (got[i] >> 1) & 1, (got[i] >> 2) & 1, (got[i] >> 3) & 1);
      return 1;
    }
  CK(cudaFree(out));
  CK(cudaFree(d));
  printf("PASS %s\n", kName);
  return 0;
}
