// nvrtc_program: CUDA C++ compiled at run time by the toolkit's NVRTC (libnvrtc) to PTX, then
// loaded and launched through the driver API, as programs that generate kernels do. The kernel
// is a template instantiated by name expression (nvrtcAddNameExpression/GetLoweredName), with a
// warp shuffle reduction in it. Memory comes from the runtime API (cudaMalloc, cudaMemcpy),
// which initialises the driver and makes the primary context current, as CUDA's does: the
// program mixes both APIs, as many do.
#include <cmath>
#include <cstdio>
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvrtc.h>
#include <string>
#include <vector>

static const char *kName = "nvrtc_program";

#include "../../check.h"

static const char *kSource = R"(
template <typename T>
__global__ void saxpy_sum(T a, const T *x, T *y, T *blockSums, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  T v = 0;
  if (i < n) {
    v = a * x[i] + y[i];
    y[i] = v;
  }
  // The sum of each warp's results, then one atomic per warp.
  for (int offset = 16; offset > 0; offset /= 2)
    v += __shfl_down_sync(0xffffffffu, v, offset);
  if ((threadIdx.x & 31) == 0)
    atomicAdd(&blockSums[blockIdx.x], v);
}
)";

int main() {
  nvrtcProgram prog;
  NVRTC(nvrtcCreateProgram(&prog, kSource, "saxpy_sum.cu", 0, nullptr, nullptr));
  const char *expr = "saxpy_sum<float>";
  NVRTC(nvrtcAddNameExpression(prog, expr));
  const char *opts[] = {"--gpu-architecture=compute_75", "-default-device"};
  nvrtcResult compiled = nvrtcCompileProgram(prog, 2, opts);
  if (compiled != NVRTC_SUCCESS) {
    size_t logSize = 0;
    nvrtcGetProgramLogSize(prog, &logSize);
    std::string log(logSize, '\0');
    nvrtcGetProgramLog(prog, &log[0]);
    printf("FAIL %s: nvrtcCompileProgram: %s\n%s\n", kName, nvrtcGetErrorString(compiled),
           log.c_str());
    return 1;
  }
  const char *lowered = nullptr;
  NVRTC(nvrtcGetLoweredName(prog, expr, &lowered));
  std::string kernelName = lowered;
  size_t ptxSize = 0;
  NVRTC(nvrtcGetPTXSize(prog, &ptxSize));
  std::string ptx(ptxSize, '\0');
  NVRTC(nvrtcGetPTX(prog, &ptx[0]));
  NVRTC(nvrtcDestroyProgram(&prog));
  printf("nvrtc: %zu bytes of PTX, kernel %s\n", ptxSize, kernelName.c_str());

  // The runtime API's first call initialises the driver and makes the primary context current
  // on this thread: no cuInit, no cuCtxSetCurrent.
  CK(cudaFree(nullptr));
  CUcontext ctx = nullptr;
  CU(cuCtxGetCurrent(&ctx));
  if (!ctx) {
    printf("FAIL %s: no current context after the runtime API's first call\n", kName);
    return 1;
  }
  CUmodule module;
  CU(cuModuleLoadDataEx(&module, ptx.c_str(), 0, nullptr, nullptr));
  CUfunction kernel;
  CU(cuModuleGetFunction(&kernel, module, kernelName.c_str()));

  const int n = 100000, block = 256, grid = (n + block - 1) / block;
  std::vector<float> x(n), y(n), sums(grid, 0.0f);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i % 101) * 0.5f;
    y[i] = float(i % 7) - 3.0f;
  }
  float *dx, *dy, *dsums;
  CK(cudaMalloc(&dx, n * sizeof(float)));
  CK(cudaMalloc(&dy, n * sizeof(float)));
  CK(cudaMalloc(&dsums, grid * sizeof(float)));
  CK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  // Runtime allocations are device pointers of the driver API too.
  CU(cuMemcpyHtoD((CUdeviceptr)dy, y.data(), n * sizeof(float)));
  CU(cuMemsetD32((CUdeviceptr)dsums, 0, grid));
  float a = 2.0f;
  int count = n;
  void *args[] = {&a, &dx, &dy, &dsums, &count};
  CU(cuLaunchKernel(kernel, grid, 1, 1, block, 1, 1, 0, nullptr, args, nullptr));
  std::vector<float> out(n), outSums(grid);
  CK(cudaMemcpy(out.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  CU(cuMemcpyDtoH(outSums.data(), (CUdeviceptr)dsums, grid * sizeof(float)));
  for (int i = 0; i < n; ++i) {
    float want = a * x[i] + y[i];
    if (out[i] != want) {
      printf("FAIL %s: y[%d] = %g, want %g\n", kName, i, out[i], want);
      return 1;
    }
  }
  // Per block: the sum of its results in any order (the warps' atomics); exact small integers
  // and halves keep the float sum exact.
  for (int b = 0; b < grid; ++b) {
    double want = 0;
    for (int i = b * block; i < n && i < (b + 1) * block; ++i)
      want += a * x[i] + y[i];
    if (std::fabs(outSums[b] - want) > 1e-3 * std::fabs(want) + 1e-3) {
      printf("FAIL %s: block %d sums to %g, want %g\n", kName, b, outSums[b], want);
      return 1;
    }
  }
  CK(cudaFree(dx));
  CK(cudaFree(dy));
  CU(cuMemFree((CUdeviceptr)dsums));
  CU(cuModuleUnload(module));
  printf("PASS %s\n", kName);
  return 0;
}
