// jitlink_lto: link-time optimization at run time. NVRTC compiles two device sources to LTO-IR
// (-dlto, relocatable, for the device's real architecture sm_XY from its compute capability):
// one holds a kernel that calls a function and uses variables that the other defines. nvJitLink
// links them (-arch=sm_XY -lto) into a CUBIN, which cuModuleLoadData loads; the kernel is
// launched through the driver API on the runtime API's primary context and its results and the
// linked variables checked. A link of input that is not LTO-IR fails with an error log.
//
// `jitlink_lto --no-nvjitlink` is run where the toolkit's nvJitLink cannot be found
// (PTX2AMD_NVJITLINK set to a missing file): every nvJitLink call fails with
// NVJITLINK_ERROR_INTERNAL, and the error log says why.
#include <cstdio>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvJitLink.h>
#include <nvrtc.h>
#include <string>
#include <vector>

static const char *kName = "jitlink_lto";

#include "../../check.h"

#define NVJITLINK(handle, call)                                                                    \
  do {                                                                                             \
    nvJitLinkResult r_ = (call);                                                                   \
    if (r_ != NVJITLINK_SUCCESS) {                                                                 \
      printf("FAIL %s: %s (line %d): %d\n%s\n", kName, #call, __LINE__, int(r_),                   \
             errorLog(handle).c_str());                                                            \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      printf("FAIL %s (line %d): ", kName, __LINE__);                                              \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

// The kernel: what it computes and counts is defined in the other source.
static const char *kKernel = R"(
extern __device__ float shape(float x);
extern __device__ unsigned int calls;
extern __constant__ float offset;

extern "C" __global__ void apply(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = shape(x[i]) + offset;
    atomicAdd(&calls, 1u);
  }
}
)";

static const char *kShape = R"(
__device__ unsigned int calls = 0;
__constant__ float offset = 0.5f;

__device__ float shape(float x) { return 3.0f * x * x - x; }
)";

static float expected(float x) { return 3.0f * x * x - x + 0.5f; }

static std::string errorLog(nvJitLinkHandle handle) {
  size_t size = 0;
  if (nvJitLinkGetErrorLogSize(handle, &size) != NVJITLINK_SUCCESS || size == 0)
    return "";
  std::string log(size, '\0');
  if (nvJitLinkGetErrorLog(handle, &log[0]) != NVJITLINK_SUCCESS)
    return "";
  log.resize(std::strlen(log.c_str()));
  return log;
}

/// \p source compiled by NVRTC to LTO-IR for \p arch, in \p ir.
static int ltoIr(const char *source, const char *file, const std::string &arch,
                 std::vector<char> &ir) {
  nvrtcProgram prog;
  NVRTC(nvrtcCreateProgram(&prog, source, file, 0, nullptr, nullptr));
  const char *opts[] = {"-dlto", arch.c_str(), "-rdc=true"};
  nvrtcResult r = nvrtcCompileProgram(prog, 3, opts);
  if (r != NVRTC_SUCCESS) {
    size_t size = 0;
    nvrtcGetProgramLogSize(prog, &size);
    std::string log(size, '\0');
    nvrtcGetProgramLog(prog, &log[0]);
    printf("%s: %s\n", file, log.c_str());
  }
  NVRTC(r);
  size_t size = 0;
  NVRTC(nvrtcGetLTOIRSize(prog, &size));
  CHECK(size > 0, "%s: no LTO-IR", file);
  ir.assign(size, 0);
  NVRTC(nvrtcGetLTOIR(prog, ir.data()));
  NVRTC(nvrtcDestroyProgram(&prog));
  return 0;
}

/// Without the toolkit's nvJitLink: errors, never a crash, and an error log that says why.
static int withoutNvJitLink() {
  unsigned major = 0, minor = 0;
  CHECK(nvJitLinkVersion(&major, &minor) == NVJITLINK_ERROR_INTERNAL,
        "nvJitLinkVersion did not fail");
  nvJitLinkHandle handle = nullptr;
  const char *opts[] = {"-arch=sm_75", "-lto"};
  CHECK(nvJitLinkCreate(&handle, 2, opts) == NVJITLINK_ERROR_INTERNAL,
        "nvJitLinkCreate did not fail");
  std::string why = errorLog(handle);
  printf("error log: %s\n", why.c_str());
  CHECK(why.find("not found") != std::string::npos,
        "the error log does not say nvJitLink was not found");
  const char ir[] = "not LTO-IR";
  CHECK(nvJitLinkAddData(handle, NVJITLINK_INPUT_LTOIR, ir, sizeof ir, "ir") ==
            NVJITLINK_ERROR_INTERNAL,
        "nvJitLinkAddData did not fail");
  CHECK(nvJitLinkComplete(handle) == NVJITLINK_ERROR_INTERNAL, "nvJitLinkComplete did not fail");
  size_t size = 1;
  CHECK(nvJitLinkGetLinkedCubinSize(handle, &size) == NVJITLINK_ERROR_INTERNAL,
        "nvJitLinkGetLinkedCubinSize did not fail");
  CHECK(nvJitLinkDestroy(&handle) == NVJITLINK_ERROR_INTERNAL, "nvJitLinkDestroy did not fail");
  printf("PASS %s --no-nvjitlink\n", kName);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && !std::strcmp(argv[1], "--no-nvjitlink"))
    return withoutNvJitLink();

  unsigned linkMajor = 0, linkMinor = 0;
  nvJitLinkResult version = nvJitLinkVersion(&linkMajor, &linkMinor);
  CHECK(version == NVJITLINK_SUCCESS, "nvJitLinkVersion: %d", int(version));
  printf("nvJitLink %u.%u\n", linkMajor, linkMinor);

  // The architecture from the device, as programs that link for it make it.
  CU(cuInit(0));
  CUdevice device;
  CU(cuDeviceGet(&device, 0));
  int major = 0, minor = 0;
  CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
  CU(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
  std::string arch = "-arch=sm_" + std::to_string(major * 10 + minor);

  std::vector<char> kernelIr, shapeIr;
  if (ltoIr(kKernel, "apply.cu", arch, kernelIr) || ltoIr(kShape, "shape.cu", arch, shapeIr))
    return 1;
  printf("LTO-IR: apply.cu %zu bytes, shape.cu %zu bytes (%s)\n", kernelIr.size(), shapeIr.size(),
         arch.c_str());

  nvJitLinkHandle link;
  const char *linkOpts[] = {arch.c_str(), "-lto"};
  NVJITLINK(link, nvJitLinkCreate(&link, 2, linkOpts));
  NVJITLINK(link, nvJitLinkAddData(link, NVJITLINK_INPUT_LTOIR, kernelIr.data(), kernelIr.size(),
                                   "apply"));
  NVJITLINK(link,
            nvJitLinkAddData(link, NVJITLINK_INPUT_LTOIR, shapeIr.data(), shapeIr.size(), "shape"));
  NVJITLINK(link, nvJitLinkComplete(link));
  size_t cubinSize = 0;
  NVJITLINK(link, nvJitLinkGetLinkedCubinSize(link, &cubinSize));
  CHECK(cubinSize > 0, "empty linked CUBIN");
  std::vector<char> cubin(cubinSize);
  NVJITLINK(link, nvJitLinkGetLinkedCubin(link, cubin.data()));
  NVJITLINK(link, nvJitLinkDestroy(&link));
  CHECK(link == nullptr, "nvJitLinkDestroy left the handle");
  printf("linked CUBIN: %zu bytes\n", cubinSize);

  // The runtime API's first call makes the primary context current.
  CK(cudaFree(nullptr));

  // Input that is not LTO-IR fails, with an error log.
  {
    nvJitLinkHandle broken;
    NVJITLINK(broken, nvJitLinkCreate(&broken, 2, linkOpts));
    const char garbage[] = "this is not LTO-IR";
    nvJitLinkResult r =
        nvJitLinkAddData(broken, NVJITLINK_INPUT_LTOIR, garbage, sizeof garbage, "garbage");
    if (r == NVJITLINK_SUCCESS)
      r = nvJitLinkComplete(broken);
    std::string log = errorLog(broken);
    CHECK(r != NVJITLINK_SUCCESS, "a link of garbage succeeded");
    CHECK(!log.empty(), "a failed link has no error log");
    printf("link of garbage: %d: %s\n", int(r), log.c_str());
    NVJITLINK(broken, nvJitLinkDestroy(&broken));
  }

  CUmodule module;
  CU(cuModuleLoadData(&module, cubin.data()));
  CUfunction apply;
  CU(cuModuleGetFunction(&apply, module, "apply"));
  CUdeviceptr calls;
  size_t callsSize = 0;
  CU(cuModuleGetGlobal(&calls, &callsSize, module, "calls"));
  CHECK(callsSize == sizeof(unsigned), "calls is %zu bytes", callsSize);

  const int n = 10000, block = 128, grid = (n + block - 1) / block;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i)
    x[i] = float(i % 101) / 8.0f - 4.0f;
  CUdeviceptr dx, dy;
  CU(cuMemAlloc(&dx, n * sizeof(float)));
  CU(cuMemAlloc(&dy, n * sizeof(float)));
  CU(cuMemcpyHtoD(dx, x.data(), n * sizeof(float)));
  int count = n;
  void *args[] = {&dx, &dy, &count};
  for (int launch = 0; launch < 2; ++launch)
    CU(cuLaunchKernel(apply, grid, 1, 1, block, 1, 1, 0, nullptr, args, nullptr));
  CU(cuCtxSynchronize());
  std::vector<float> y(n);
  CU(cuMemcpyDtoH(y.data(), dy, n * sizeof(float)));
  for (int i = 0; i < n; ++i)
    CHECK(y[i] == expected(x[i]), "y[%d] = %g, want %g", i, y[i], expected(x[i]));
  unsigned counted = 0;
  CU(cuMemcpyDtoH(&counted, calls, sizeof counted));
  CHECK(counted == 2u * n, "calls = %u, want %u", counted, 2u * n);
  CU(cuMemFree(dx));
  CU(cuMemFree(dy));
  CU(cuModuleUnload(module));
  printf("apply: %d elements, twice\n", n);
  printf("PASS %s\n", kName);
  return 0;
}
