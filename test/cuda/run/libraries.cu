// libraries: the runtime API's context-independent libraries (cudaLibraryLoadData on PTX text,
// its kernels counted, enumerated, found by name and launched, a variable read and written),
// parameter information of kernels, and the program's own kernels as cudaKernel_t.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

static const char *kName = "libraries";

#include "../check.h"

// Two kernels and a variable, as PTX text a program might carry or generate.
static const char *kPtx = R"(
.version 8.0
.target sm_75
.address_size 64

.visible .global .align 4 .u32 counter = 7;

.visible .entry add_value(.param .u64 data, .param .u32 value)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [data];
  ld.param.u32 %r1, [value];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r2, %tid.x;
  mul.wide.u32 %rd3, %r2, 4;
  add.s64 %rd4, %rd2, %rd3;
  ld.global.u32 %r3, [%rd4];
  add.s32 %r4, %r3, %r1;
  st.global.u32 [%rd4], %r4;
  ret;
}

.visible .entry bump_counter()
{
  .reg .b32 %r<2>;
  atom.global.add.u32 %r1, [counter], 1;
  ret;
}
)";

struct Args {
  char c;
  double d;
  int *p;
};

__global__ void params(char c, Args a, short s, int *out) { out[0] = c + a.c + s; }

int main() {
  cudaLibrary_t lib;
  CK(cudaLibraryLoadData(&lib, kPtx, nullptr, nullptr, 0, nullptr, nullptr, 0));
  unsigned count = 0;
  CK(cudaLibraryGetKernelCount(&count, lib));
  EXPECT(count == 2);
  cudaKernel_t kernels[2] = {};
  CK(cudaLibraryEnumerateKernels(kernels, 2, lib));
  EXPECT(kernels[0] && kernels[1] && kernels[0] != kernels[1]);
  cudaKernel_t add;
  CK(cudaLibraryGetKernel(&add, lib, "add_value"));
  EXPECT(add == kernels[0] || add == kernels[1]);
  cudaKernel_t none;
  EXPECT(cudaLibraryGetKernel(&none, lib, "no_such_kernel") == cudaErrorSymbolNotFound);
  cudaGetLastError();

  // Launched as any kernel, through the cudaKernel_t.
  const int n = 64;
  int *d = nullptr;
  CK(cudaMalloc(&d, n * sizeof(int)));
  CK(cudaMemset(d, 0, n * sizeof(int)));
  int value = 5;
  void *args[] = {&d, &value};
  for (int round = 0; round < 3; ++round)
    CK(cudaLaunchKernel((const void *)add, dim3(1), dim3(n), args, 0, 0));
  int h[n];
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    EXPECT(h[i] == 15);

  size_t offset = 0, size = 0;
  CK(cudaFuncGetParamInfo((const void *)add, 1, &offset, &size));
  EXPECT(offset == 8 && size == 4);
  EXPECT(cudaFuncGetParamInfo((const void *)add, 2, &offset, &size) == cudaErrorInvalidValue);
  cudaGetLastError();

  // The library's variable: read, launched on, read again.
  int *counter = nullptr;
  size_t bytes = 0;
  CK(cudaLibraryGetGlobal((void **)&counter, &bytes, lib, "counter"));
  EXPECT(counter && bytes == sizeof(int));
  cudaKernel_t bump;
  CK(cudaLibraryGetKernel(&bump, lib, "bump_counter"));
  CK(cudaLaunchKernel((const void *)bump, dim3(2), dim3(32), nullptr, 0, 0));
  int c = 0;
  CK(cudaMemcpy(&c, counter, sizeof c, cudaMemcpyDeviceToHost));
  EXPECT(c == 7 + 64);
  CK(cudaKernelSetAttributeForDevice(bump, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024, 0));
  CK(cudaLibraryUnload(lib));

  // The program's own kernel: its parameters where CUDA's ABI puts them, and a cudaKernel_t.
  CK(cudaFuncGetParamInfo((const void *)params, 0, &offset, &size));
  EXPECT(offset == 0 && size == 1);
  CK(cudaFuncGetParamInfo((const void *)params, 1, &offset, &size));
  EXPECT(offset == 8 && size == sizeof(Args));
  CK(cudaFuncGetParamInfo((const void *)params, 2, &offset, &size));
  EXPECT(offset == 8 + sizeof(Args) && size == 2);
  CK(cudaFuncGetParamInfo((const void *)params, 3, &offset, &size));
  EXPECT(offset == 8 + sizeof(Args) + 8 && size == 8);
  cudaKernel_t own;
  CK(cudaGetKernel(&own, (const void *)params));
  Args a = {3, 0.0, nullptr};
  char ch = 1;
  short s = 10;
  void *pargs[] = {&ch, &a, &s, &d};
  CK(cudaLaunchKernel((const void *)own, dim3(1), dim3(1), pargs, 0, 0));
  CK(cudaMemcpy(h, d, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(h[0] == 14);
  CK(cudaFree(d));
  printf("PASS %s\n", kName);
  return 0;
}
