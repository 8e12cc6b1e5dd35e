// exit_handlers: CUDA calls from an atexit handler, after main returns, as programs and NVIDIA's
// libraries make them (a static cuBLAS handle destroyed at exit, the static runtime's own
// cleanup). glibc destroys the main thread's thread_local objects before it runs the exit
// handlers: the driver's per-thread state (its context stack, error texts) must outlive them.
// The handler launches a kernel, synchronises, reads the result back, frees and destroys, and
// prints the verdict only when all of it worked.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static const char *kName = "exit_handlers";

#include "../check.h"

__global__ void twice(int *p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    p[i] *= 2;
}

static int *Data = nullptr;
static cudaStream_t Stream = nullptr;
static const int N = 1000;

static int atExit() {
  int Host[N];
  twice<<<(N + 127) / 128, 128, 0, Stream>>>(Data, N);
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(Stream));
  CK(cudaMemcpy(Host, Data, sizeof Host, cudaMemcpyDeviceToHost));
  for (int I = 0; I < N; ++I)
    EXPECT(Host[I] == 4 * I);
  int Device = -1;
  CK(cudaGetDevice(&Device));
  EXPECT(Device == 0);
  CK(cudaFree(Data));
  CK(cudaStreamDestroy(Stream));
  printf("PASS %s\n", kName);
  return 0;
}

int main() {
  int Host[N];
  for (int I = 0; I < N; ++I)
    Host[I] = I;
  CK(cudaStreamCreate(&Stream));
  CK(cudaMalloc(&Data, sizeof Host));
  CK(cudaMemcpy(Data, Host, sizeof Host, cudaMemcpyHostToDevice));
  twice<<<(N + 127) / 128, 128, 0, Stream>>>(Data, N);
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(Stream));
  // After the runtime's own handlers are registered (at its first call): this one runs first.
  std::atexit([] {
    if (atExit() != 0)
      std::_Exit(1);
  });
  printf("main returns\n");
  return 0;
}
