// host_register: the program's own host memory registered with the runtime (cudaHostRegister,
// mapped), read and written by a kernel through the device pointer the runtime gives, its flags
// and pointer attributes; registering a range twice, unregistering what is not registered and
// freeing registered memory with cudaFreeHost are errors; after cudaHostUnregister the memory is
// the program's again.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

static const char *kName = "host_register";

#include "../check.h"

__global__ void scale(const float *in, float *out, int n, float k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] * k + 1.0f;
}

int main() {
  int device = 0, canRegister = 0, samePointer = 0;
  CK(cudaGetDevice(&device));
  CK(cudaDeviceGetAttribute(&canRegister, cudaDevAttrHostRegisterSupported, device));
  CK(cudaDeviceGetAttribute(&samePointer, cudaDevAttrCanUseHostPointerForRegisteredMem, device));
  if (!canRegister) {
    printf("WAIVED %s: the device cannot register host memory\n", kName);
    return 2;
  }

  const int n = 1 << 16;
  const size_t bytes = n * sizeof(float);
  float *in = static_cast<float *>(aligned_alloc(4096, bytes));
  float *out = static_cast<float *>(aligned_alloc(4096, bytes));
  EXPECT(in && out);
  for (int i = 0; i < n; ++i) {
    in[i] = float(i % 1000) * 0.5f;
    out[i] = -1.0f;
  }
  CK(cudaHostRegister(in, bytes, cudaHostRegisterMapped | cudaHostRegisterReadOnly));
  CK(cudaHostRegister(out, bytes, cudaHostRegisterMapped | cudaHostRegisterPortable));

  // Flags read back, and a second registration of (part of) a range is refused.
  unsigned flags = 0;
  CK(cudaHostGetFlags(&flags, out));
  EXPECT(flags & cudaHostAllocMapped);
  EXPECT(cudaHostRegister(out + 100, 4096, cudaHostRegisterDefault) ==
         cudaErrorHostMemoryAlreadyRegistered);
  EXPECT(cudaGetLastError() == cudaErrorHostMemoryAlreadyRegistered);

  // The kernel works on the host memory through its device pointers.
  float *din = nullptr, *dout = nullptr;
  CK(cudaHostGetDevicePointer((void **)&din, in, 0));
  CK(cudaHostGetDevicePointer((void **)&dout, out, 0));
  if (samePointer)
    EXPECT(din == in && dout == out);
  cudaPointerAttributes attr;
  CK(cudaPointerGetAttributes(&attr, out + 5));
  EXPECT(attr.type == cudaMemoryTypeHost);
  scale<<<(n + 255) / 256, 256>>>(din, dout, n, 3.0f);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i)
    EXPECT(out[i] == in[i] * 3.0f + 1.0f);

  // Copies to and from registered memory.
  float *dev = nullptr;
  CK(cudaMalloc(&dev, bytes));
  CK(cudaMemcpy(dev, in, bytes, cudaMemcpyHostToDevice));
  CK(cudaMemset(dout, 0, bytes));
  CK(cudaMemcpy(out, dev, bytes, cudaMemcpyDeviceToHost));
  EXPECT(memcmp(out, in, bytes) == 0);
  CK(cudaFree(dev));

  // It is the program's memory: cudaFreeHost refuses it; unregistering twice is an error.
  EXPECT(cudaFreeHost(out) != cudaSuccess);
  cudaGetLastError();
  CK(cudaHostUnregister(in));
  CK(cudaHostUnregister(out));
  EXPECT(cudaHostUnregister(out) == cudaErrorHostMemoryNotRegistered);
  cudaGetLastError();
  CK(cudaPointerGetAttributes(&attr, out));
  EXPECT(attr.type == cudaMemoryTypeUnregistered);
  free(in);
  free(out);
  printf("PASS %s\n", kName);
  return 0;
}
