// nvrtc_cubin: kernels compiled at run time by NVRTC for the device's real architecture (sm_XY
// from its compute capability, as cuda-samples' nvrtc_helper.h does), their CUBIN loaded with
// cuModuleLoadData and launched; the same program's PTX; a program for the virtual architecture
// (no CUBIN), one for LTO-IR (-dlto), one that does not compile, and programs compiled on
// several threads at once (above the device's compute capability, CUBIN that does not load).
// Memory comes from both the runtime and the driver API.
//
// `nvrtc_cubin --no-nvrtc` is run where the toolkit's NVRTC cannot be found (PTX2AMD_NVRTC set to
// a missing file): every NVRTC call fails with NVRTC_ERROR_INTERNAL_ERROR, which says why.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvrtc.h>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

static const char *kName = "nvrtc_cubin";

#include "../../check.h"

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      printf("FAIL %s (line %d): ", kName, __LINE__);                                              \
      printf(__VA_ARGS__);                                                                         \
      printf("\n");                                                                                \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

static const char *kSaxpy = R"(
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a * x[i] + y[i];
}
)";

static const char *kBlockSum = R"(
template <typename T, int Block>
__global__ void block_sum(const T *in, T *out, int n) {
  __shared__ T partial[Block];
  int i = blockIdx.x * Block + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
  for (int stride = Block / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = partial[0];
}
)";

static std::string programLog(nvrtcProgram prog) {
  size_t size = 0;
  if (nvrtcGetProgramLogSize(prog, &size) != NVRTC_SUCCESS || size == 0)
    return "";
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(prog, &log[0]) != NVRTC_SUCCESS)
    return "";
  log.resize(std::strlen(log.c_str()));
  return log;
}

/// Compiles \p source with \p options into \p prog (left for the caller to destroy).
static nvrtcResult compile(nvrtcProgram *prog, const char *source, const char *file,
                           std::vector<const char *> options, const char *nameExpr = nullptr) {
  nvrtcResult r = nvrtcCreateProgram(prog, source, file, 0, nullptr, nullptr);
  if (r != NVRTC_SUCCESS)
    return r;
  if (nameExpr && (r = nvrtcAddNameExpression(*prog, nameExpr)) != NVRTC_SUCCESS)
    return r;
  r = nvrtcCompileProgram(*prog, int(options.size()), options.data());
  if (r != NVRTC_SUCCESS)
    printf("%s: nvrtcCompileProgram: %s\n%s\n", file, nvrtcGetErrorString(r),
           programLog(*prog).c_str());
  return r;
}

static nvrtcResult cubinOf(nvrtcProgram prog, std::vector<char> &cubin) {
  size_t size = 0;
  nvrtcResult r = nvrtcGetCUBINSize(prog, &size);
  if (r != NVRTC_SUCCESS)
    return r;
  cubin.assign(size, 0);
  return size ? nvrtcGetCUBIN(prog, cubin.data()) : NVRTC_SUCCESS;
}

/// Without the toolkit's NVRTC: errors, never a crash.
static int withoutNvrtc() {
  int major = 0, minor = 0;
  CHECK(nvrtcVersion(&major, &minor) == NVRTC_ERROR_INTERNAL_ERROR, "nvrtcVersion succeeded");
  nvrtcProgram prog = nullptr;
  CHECK(nvrtcCreateProgram(&prog, kSaxpy, "saxpy.cu", 0, nullptr, nullptr) ==
            NVRTC_ERROR_INTERNAL_ERROR,
        "nvrtcCreateProgram did not fail");
  const char *opts[] = {"-arch=sm_75"};
  CHECK(nvrtcCompileProgram(prog, 1, opts) == NVRTC_ERROR_INTERNAL_ERROR,
        "nvrtcCompileProgram did not fail");
  size_t size = 1;
  CHECK(nvrtcGetCUBINSize(prog, &size) == NVRTC_ERROR_INTERNAL_ERROR,
        "nvrtcGetCUBINSize did not fail");
  CHECK(nvrtcDestroyProgram(&prog) == NVRTC_ERROR_INTERNAL_ERROR,
        "nvrtcDestroyProgram did not fail");
  const char *why = nvrtcGetErrorString(NVRTC_ERROR_INTERNAL_ERROR);
  printf("nvrtcGetErrorString(NVRTC_ERROR_INTERNAL_ERROR): %s\n", why);
  CHECK(why && std::strstr(why, "not found"), "the error does not say NVRTC was not found");
  CHECK(!std::strcmp(nvrtcGetErrorString(NVRTC_ERROR_COMPILATION), "NVRTC_ERROR_COMPILATION"),
        "nvrtcGetErrorString(NVRTC_ERROR_COMPILATION) is '%s'",
        nvrtcGetErrorString(NVRTC_ERROR_COMPILATION));
  printf("PASS %s --no-nvrtc\n", kName);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && !std::strcmp(argv[1], "--no-nvrtc"))
    return withoutNvrtc();

  int nvrtcMajor = 0, nvrtcMinor = 0;
  NVRTC(nvrtcVersion(&nvrtcMajor, &nvrtcMinor));
  int numArchs = 0;
  NVRTC(nvrtcGetNumSupportedArchs(&numArchs));
  std::vector<int> archs(numArchs);
  NVRTC(nvrtcGetSupportedArchs(archs.data()));
  printf("NVRTC %d.%d, %d architectures\n", nvrtcMajor, nvrtcMinor, numArchs);

  // The architecture from the device, as nvrtc_helper.h makes it.
  CU(cuInit(0));
  CUdevice device;
  CU(cuDeviceGet(&device, 0));
  int major = 0, minor = 0;
  CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
  CU(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
  bool supported = false;
  for (int a : archs)
    supported = supported || a == major * 10 + minor;
  CHECK(supported, "NVRTC does not support the device's sm_%d%d", major, minor);
  std::string arch = "--gpu-architecture=sm_" + std::to_string(major) + std::to_string(minor);

  // saxpy, for the device's real architecture.
  nvrtcProgram saxpyProg;
  NVRTC(compile(&saxpyProg, kSaxpy, "saxpy.cu", {arch.c_str(), "--std=c++17"}));
  std::vector<char> saxpyCubin;
  NVRTC(cubinOf(saxpyProg, saxpyCubin));
  CHECK(!saxpyCubin.empty(), "%s: empty CUBIN", arch.c_str());
  size_t ptxSize = 0;
  NVRTC(nvrtcGetPTXSize(saxpyProg, &ptxSize));
  std::string ptx(ptxSize, '\0');
  NVRTC(nvrtcGetPTX(saxpyProg, &ptx[0]));
  CHECK(ptx.find(".version") != std::string::npos && ptx.find(".entry saxpy") != std::string::npos,
        "nvrtcGetPTX of the %s program is not saxpy's PTX", arch.c_str());
  NVRTC(nvrtcDestroyProgram(&saxpyProg));
  printf("saxpy: %s, %zu bytes of CUBIN, %zu of PTX\n", arch.c_str(), saxpyCubin.size(), ptxSize);

  // block_sum<int, 128>, with the two-token form of the option and a lowered name.
  nvrtcProgram sumProg;
  const char *sumExpr = "block_sum<int, 128>";
  NVRTC(
      compile(&sumProg, kBlockSum, "block_sum.cu", {"-arch", "sm_75", "-default-device"}, sumExpr));
  const char *lowered = nullptr;
  NVRTC(nvrtcGetLoweredName(sumProg, sumExpr, &lowered));
  std::string sumKernel = lowered;
  std::vector<char> sumCubin;
  NVRTC(cubinOf(sumProg, sumCubin));
  CHECK(!sumCubin.empty(), "-arch sm_75: empty CUBIN");
  NVRTC(nvrtcDestroyProgram(&sumProg));

  // The runtime API's first call makes the primary context current.
  CK(cudaFree(nullptr));
  CUmodule saxpyModule;
  CU(cuModuleLoadData(&saxpyModule, saxpyCubin.data()));
  CUfunction saxpy;
  CU(cuModuleGetFunction(&saxpy, saxpyModule, "saxpy"));
  const int n = 50000, block = 256, grid = (n + block - 1) / block;
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = float(i % 97);
    y[i] = float(i % 5) - 2.0f;
  }
  float *dx, *dy;
  CK(cudaMalloc(&dx, n * sizeof(float)));
  CK(cudaMalloc(&dy, n * sizeof(float)));
  CK(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  float a = 3.0f;
  int count = n;
  void *saxpyArgs[] = {&a, &dx, &dy, &count};
  CU(cuLaunchKernel(saxpy, grid, 1, 1, block, 1, 1, 0, nullptr, saxpyArgs, nullptr));
  std::vector<float> out(n);
  CK(cudaMemcpy(out.data(), dy, n * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    CHECK(out[i] == a * x[i] + y[i], "y[%d] = %g, want %g", i, out[i], a * x[i] + y[i]);
  CK(cudaFree(dx));
  CK(cudaFree(dy));
  CU(cuModuleUnload(saxpyModule));

  // block_sum's CUBIN, loaded with the JIT's logs and a second time from a file, as programs
  // that keep compiled kernels on disk do.
  char errorLog[4096] = "";
  CUjit_option jitOptions[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *jitValues[] = {errorLog, (void *)(size_t)sizeof errorLog};
  CUmodule sumModule;
  CUresult loaded = cuModuleLoadDataEx(&sumModule, sumCubin.data(), 2, jitOptions, jitValues);
  CHECK(loaded == CUDA_SUCCESS, "cuModuleLoadDataEx of block_sum's CUBIN: %d: %s", int(loaded),
        errorLog);
  const char *tmp = std::getenv("TMPDIR");
  std::string cubinPath = std::string(tmp && *tmp ? tmp : "/tmp") + "/nvrtc_cubin.XXXXXX";
  int fd = mkstemp(&cubinPath[0]);
  CHECK(fd >= 0, "mkstemp %s failed", cubinPath.c_str());
  bool written = write(fd, sumCubin.data(), sumCubin.size()) == ssize_t(sumCubin.size());
  close(fd);
  CHECK(written, "writing %s failed", cubinPath.c_str());
  CUmodule sumFileModule;
  CUresult fromFile = cuModuleLoad(&sumFileModule, cubinPath.c_str());
  unlink(cubinPath.c_str());
  CU(fromFile);
  const int m = 1000, sumBlock = 128, sumGrid = (m + sumBlock - 1) / sumBlock;
  std::vector<int> in(m);
  for (int i = 0; i < m; ++i)
    in[i] = (i * 7) % 13 - 6;
  CUdeviceptr din, dout;
  CU(cuMemAlloc(&din, m * sizeof(int)));
  CU(cuMemAlloc(&dout, sumGrid * sizeof(int)));
  CU(cuMemcpyHtoD(din, in.data(), m * sizeof(int)));
  for (CUmodule module : {sumModule, sumFileModule}) {
    CUfunction sum;
    CU(cuModuleGetFunction(&sum, module, sumKernel.c_str()));
    CU(cuMemsetD32(dout, 0x7fffffff, sumGrid));
    int length = m;
    void *sumArgs[] = {&din, &dout, &length};
    CU(cuLaunchKernel(sum, sumGrid, 1, 1, sumBlock, 1, 1, 0, nullptr, sumArgs, nullptr));
    std::vector<int> sums(sumGrid);
    CU(cuMemcpyDtoH(sums.data(), dout, sumGrid * sizeof(int)));
    for (int b = 0; b < sumGrid; ++b) {
      int want = 0;
      for (int i = b * sumBlock; i < m && i < (b + 1) * sumBlock; ++i)
        want += in[i];
      CHECK(sums[b] == want, "%s: block %d sums to %d, want %d", sumKernel.c_str(), b, sums[b],
            want);
    }
    CU(cuModuleUnload(module));
  }
  CU(cuMemFree(din));
  CU(cuMemFree(dout));
  printf("block_sum: -arch sm_75, kernel %s\n", sumKernel.c_str());

  // For the virtual architecture NVRTC makes no CUBIN (an error, or none at all), and its PTX.
  {
    nvrtcProgram prog;
    NVRTC(compile(&prog, kSaxpy, "saxpy.cu", {"--gpu-architecture=compute_75"}));
    size_t size = 0;
    nvrtcResult r = nvrtcGetCUBINSize(prog, &size);
    CHECK(r != NVRTC_SUCCESS || size == 0, "compute_75: %zu bytes of CUBIN", size);
    NVRTC(nvrtcGetPTXSize(prog, &size));
    CHECK(size > 1, "compute_75: no PTX");
    NVRTC(nvrtcDestroyProgram(&prog));
  }
  // LTO-IR for a real architecture: NVRTC's answer, IR and no CUBIN.
  {
    nvrtcProgram prog;
    NVRTC(compile(&prog, kSaxpy, "saxpy.cu", {"-arch=sm_75", "-dlto"}));
    size_t size = 0;
    NVRTC(nvrtcGetLTOIRSize(prog, &size));
    CHECK(size > 0, "-dlto: no LTO-IR");
    std::vector<char> ir(size);
    NVRTC(nvrtcGetLTOIR(prog, ir.data()));
    nvrtcResult r = nvrtcGetCUBINSize(prog, &size);
    CHECK(r != NVRTC_SUCCESS || size == 0, "-dlto: %zu bytes of CUBIN", size);
    NVRTC(nvrtcDestroyProgram(&prog));
  }
  // A syntax error: the compilation fails with a log.
  {
    nvrtcProgram prog;
    const char *broken = "extern \"C\" __global__ void broken(int *p) { p[0] = ; }\n";
    NVRTC(nvrtcCreateProgram(&prog, broken, "broken.cu", 0, nullptr, nullptr));
    const char *opts[] = {"--gpu-architecture=sm_75"};
    nvrtcResult r = nvrtcCompileProgram(prog, 1, opts);
    CHECK(r == NVRTC_ERROR_COMPILATION, "broken.cu: nvrtcCompileProgram returned %s",
          nvrtcGetErrorString(r));
    std::string log = programLog(prog);
    CHECK(log.find("error") != std::string::npos, "broken.cu: no error in the log: '%s'",
          log.c_str());
    printf("broken.cu: %s", log.c_str());
    NVRTC(nvrtcDestroyProgram(&prog));
  }
  // Programs compiled on several threads at once, each for a real architecture; each CUBIN
  // loads where the device runs its architecture (at most its compute capability), and is no
  // binary for it above, as in CUDA.
  {
    const int threadArchNumbers[] = {75, 80, 86, 90};
    const char *threadArchs[] = {"-arch=sm_75", "--gpu-architecture=sm_80", "-arch=sm_86",
                                 "--gpu-architecture=sm_90a"};
    nvrtcResult results[4];
    std::vector<char> cubins[4];
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&, t] {
        nvrtcProgram prog;
        results[t] = compile(&prog, kSaxpy, "saxpy.cu", {threadArchs[t]});
        if (results[t] == NVRTC_SUCCESS)
          results[t] = cubinOf(prog, cubins[t]);
        nvrtcDestroyProgram(&prog);
      });
    for (auto &t : threads)
      t.join();
    for (int t = 0; t < 4; ++t) {
      NVRTC(results[t]);
      CHECK(!cubins[t].empty(), "%s (thread %d): empty CUBIN", threadArchs[t], t);
      CUmodule module;
      if (threadArchNumbers[t] > major * 10 + minor) {
        CUresult r = cuModuleLoadData(&module, cubins[t].data());
        CHECK(r == CUDA_ERROR_NO_BINARY_FOR_GPU, "%s on sm_%d%d: cuModuleLoadData returned %d",
              threadArchs[t], major, minor, int(r));
        continue;
      }
      CU(cuModuleLoadData(&module, cubins[t].data()));
      CUfunction f;
      CU(cuModuleGetFunction(&f, module, "saxpy"));
      CU(cuModuleUnload(module));
    }
  }
  CHECK(!std::strcmp(nvrtcGetErrorString(NVRTC_ERROR_COMPILATION), "NVRTC_ERROR_COMPILATION"),
        "nvrtcGetErrorString(NVRTC_ERROR_COMPILATION) is '%s'",
        nvrtcGetErrorString(NVRTC_ERROR_COMPILATION));
  printf("PASS %s\n", kName);
  return 0;
}
