// driver_api: the driver API as CUDA defines it, with no runtime API call: cuInit, devices,
// primary and created contexts, modules loaded from a .ptx file (cuModuleLoad), from a .fatbin
// file's bytes (cuModuleLoadData, cuModuleLoadFatBinary) and from PTX text in memory
// (cuModuleLoadDataEx with an error log), libraries (cuLibrary*, cuKernel*, cuLaunchKernelEx), JIT
// linking of PTX and a fatbin (cuLink*), functions and globals, launches with kernelParams and with
// `extra`, dynamic shared memory, memory (copies, 3D, peer and batched copies, memsets of 1, 2
// and 4 bytes), streams, events, and error results: a kernel that cannot be translated fails its
// launch with a result whose text names it and why, and the process goes on.
//
// The .ptx and .fatbin files are found next to the executable.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <string>
#include <unistd.h>
#include <vector>

static const char *kName = "driver_api";

#include "../../check.h"

static std::string besideExecutable(const char *File) {
  char Path[4096];
  ssize_t N = readlink("/proc/self/exe", Path, sizeof Path - 1);
  if (N <= 0)
    return File;
  Path[N] = 0;
  std::string Dir(Path);
  return Dir.substr(0, Dir.rfind('/') + 1) + File;
}

static std::vector<char> readFile(const std::string &Path) {
  std::vector<char> Bytes;
  if (FILE *F = fopen(Path.c_str(), "rb")) {
    char Buf[65536];
    size_t N;
    while ((N = fread(Buf, 1, sizeof Buf, F)) > 0)
      Bytes.insert(Bytes.end(), Buf, Buf + N);
    fclose(F);
  }
  return Bytes;
}

// Runs scale_add of module M over n elements and checks y = scale[i%4]*x + offset.
static int runScaleAdd(CUmodule M, int offset) {
  const int n = 1000;
  CUfunction F;
  CU(cuModuleGetFunction(&F, M, "scale_add"));
  CUdeviceptr gOffset, cScale;
  size_t gBytes = 0, cBytes = 0;
  CU(cuModuleGetGlobal(&gOffset, &gBytes, M, "g_offset"));
  CU(cuModuleGetGlobal(&cScale, &cBytes, M, "c_scale"));
  EXPECT(gBytes == sizeof(int) && cBytes == 4 * sizeof(float));
  float scale[4] = {1.0f, -2.0f, 0.5f, 3.0f};
  CU(cuMemcpyHtoD(gOffset, &offset, sizeof offset));
  CU(cuMemcpyHtoD(cScale, scale, sizeof scale));
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i)
    x[i] = float(i) * 0.25f - 7.0f;
  CUdeviceptr dx, dy;
  CU(cuMemAlloc(&dx, n * sizeof(float)));
  CU(cuMemAlloc(&dy, n * sizeof(float)));
  CU(cuMemcpyHtoD(dx, x.data(), n * sizeof(float)));
  int count = n;
  void *params[] = {&dx, &dy, &count};
  CU(cuLaunchKernel(F, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
  CU(cuCtxSynchronize());
  CU(cuMemcpyDtoH(y.data(), dy, n * sizeof(float)));
  for (int i = 0; i < n; ++i)
    EXPECT(y[i] == scale[i % 4] * x[i] + float(offset));
  CU(cuMemFree(dx));
  CU(cuMemFree(dy));
  return 0;
}

// PTX written by hand: `ok` translates; `broken` reads %pm0, which the translator refuses.
static const char *kHandPtx = R"(
.version 8.0
.target sm_75
.address_size 64

.visible .entry ok(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, 42;
  st.global.u32 [%rd2], %r1;
  ret;
}

.visible .entry broken(.param .u64 out)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %pm0;
  st.global.u32 [%rd2], %r1;
  ret;
}
)";

// Two PTX modules for cuLink*: a kernel calling a function the other module defines.
static const char *kLinkCaller = R"(
.version 8.0
.target sm_75
.address_size 64
.extern .func (.param .b32 r) twice(.param .b32 x);
.visible .entry call_twice(.param .u64 out)
{
  .reg .b32 %r<4>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  { .param .b32 x; .param .b32 r;
    st.param.b32 [x], %r1;
    call.uni (r), twice, (x);
    ld.param.b32 %r2, [r]; }
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.u32 [%rd2], %r2;
  ret;
}
)";
static const char *kLinkCallee = R"(
.version 8.0
.target sm_75
.address_size 64
.visible .func (.param .b32 r) twice(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  add.u32 %r2, %r1, %r1;
  st.param.b32 [r], %r2;
  ret;
}
)";

int main() {
  // Nothing works before cuInit.
  CUdevice dev = -1;
  EXPECT(cuDeviceGet(&dev, 0) == CUDA_ERROR_NOT_INITIALIZED);
  int version = 0;
  CU(cuDriverGetVersion(&version));
  EXPECT(version >= 13000);
  CU(cuInit(0));

  int count = 0;
  CU(cuDeviceGetCount(&count));
  EXPECT(count >= 1);
  CU(cuDeviceGet(&dev, 0));
  EXPECT(cuDeviceGet(&dev, count) == CUDA_ERROR_INVALID_DEVICE);
  char name[256];
  CU(cuDeviceGetName(name, sizeof name, dev));
  EXPECT(strlen(name) > 0);
  int warp = 0, maxThreads = 0, major = 0;
  CU(cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev));
  CU(cuDeviceGetAttribute(&maxThreads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev));
  CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
  EXPECT(warp == 32 && maxThreads >= 256 && major >= 7);
  size_t total = 0;
  CU(cuDeviceTotalMem(&total, dev));
  EXPECT(total > 0);

  // No context is current yet.
  CUdeviceptr none;
  EXPECT(cuMemAlloc(&none, 16) == CUDA_ERROR_INVALID_CONTEXT);
  CUcontext current = (CUcontext)1;
  CU(cuCtxGetCurrent(&current));
  EXPECT(current == nullptr);

  CUcontext primary;
  CU(cuDevicePrimaryCtxRetain(&primary, dev));
  CU(cuCtxSetCurrent(primary));
  CU(cuCtxGetCurrent(&current));
  EXPECT(current == primary);

  // The .ptx file, by path.
  std::string ptxPath = besideExecutable("driver_kernels.ptx");
  CUmodule fromPtx;
  CU(cuModuleLoad(&fromPtx, ptxPath.c_str()));
  if (runScaleAdd(fromPtx, 3))
    return 1;
  CUmodule missing;
  EXPECT(cuModuleLoad(&missing, "/nonexistent/kernels.ptx") == CUDA_ERROR_FILE_NOT_FOUND);

  // The .fatbin file's bytes, both ways.
  std::vector<char> fatbin = readFile(besideExecutable("driver_kernels.fatbin"));
  EXPECT(!fatbin.empty());
  CUmodule fromFatbin, fromFatbin2;
  CU(cuModuleLoadData(&fromFatbin, fatbin.data()));
  if (runScaleAdd(fromFatbin, -5))
    return 1;
  CU(cuModuleLoadFatBinary(&fromFatbin2, fatbin.data()));
  if (runScaleAdd(fromFatbin2, 11))
    return 1;
  CU(cuModuleUnload(fromFatbin2));
  CUfunction gone;
  EXPECT(cuModuleGetFunction(&gone, fromFatbin2, "scale_add") == CUDA_ERROR_INVALID_HANDLE);

  // The same fatbin as a library (context-independent), its kernel launched as a CUkernel and
  // through its CUfunction, its module and globals; and the .ptx file as a library.
  {
    CUlibrary lib;
    CU(cuLibraryLoadData(&lib, fatbin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    CUmodule libModule;
    CU(cuLibraryGetModule(&libModule, lib));
    if (runScaleAdd(libModule, 9))
      return 1;
    CUkernel kernel;
    CU(cuLibraryGetKernel(&kernel, lib, "scale_add"));
    CUfunction viaKernel;
    CU(cuKernelGetFunction(&viaKernel, kernel));
    CUfunction viaModule;
    CU(cuModuleGetFunction(&viaModule, libModule, "scale_add"));
    EXPECT(viaKernel == viaModule);
    const char *kernelName = nullptr;
    CU(cuKernelGetName(&kernelName, kernel));
    EXPECT(kernelName && strcmp(kernelName, "scale_add") == 0);
    CUlibrary owner;
    CU(cuKernelGetLibrary(&owner, kernel));
    EXPECT(owner == lib);
    int maxThreads = 0;
    CU(cuKernelGetAttribute(&maxThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, kernel, dev));
    EXPECT(maxThreads >= 128);
    CUdeviceptr offsetVar;
    size_t offsetBytes = 0;
    CU(cuLibraryGetGlobal(&offsetVar, &offsetBytes, lib, "g_offset"));
    EXPECT(offsetBytes == sizeof(int));
    int offset = -4;
    CU(cuMemcpyHtoD(offsetVar, &offset, sizeof offset));
    const int n = 256;
    CUdeviceptr dx, dy;
    CU(cuMemAlloc(&dx, n * sizeof(float)));
    CU(cuMemAlloc(&dy, n * sizeof(float)));
    std::vector<float> x(n, 2.0f), y(n);
    CU(cuMemcpyHtoD(dx, x.data(), n * sizeof(float)));
    int count = n;
    void *params[] = {&dx, &dy, &count};
    // CUDA accepts a CUkernel where a CUfunction is asked for.
    CU(cuLaunchKernel((CUfunction)kernel, n / 64, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr));
    CU(cuCtxSynchronize());
    // cuLaunchKernelEx with a priority and a cluster of one block; two blocks are refused.
    {
      CUlaunchAttribute attrs[2] = {};
      attrs[0].id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
      attrs[0].value.priority = 0;
      attrs[1].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attrs[1].value.clusterDim.x = attrs[1].value.clusterDim.y = attrs[1].value.clusterDim.z = 1;
      CUlaunchConfig config = {};
      config.gridDimX = n / 64;
      config.gridDimY = config.gridDimZ = 1;
      config.blockDimX = 64;
      config.blockDimY = config.blockDimZ = 1;
      config.attrs = attrs;
      config.numAttrs = 2;
      CU(cuLaunchKernelEx(&config, viaKernel, params, nullptr));
      CU(cuCtxSynchronize());
      attrs[1].value.clusterDim.x = 2;
      EXPECT(cuLaunchKernelEx(&config, viaKernel, params, nullptr) ==
             CUDA_ERROR_INVALID_CLUSTER_SIZE);
    }
    CU(cuMemcpyDtoH(y.data(), dy, n * sizeof(float)));
    const float scale[4] = {1.0f, -2.0f, 0.5f, 3.0f}; // what runScaleAdd stored
    for (int i = 0; i < n; ++i)
      EXPECT(y[i] == scale[i % 4] * 2.0f - 4.0f);
    CU(cuMemFree(dx));
    CU(cuMemFree(dy));
    CUkernel none;
    EXPECT(cuLibraryGetKernel(&none, lib, "no_such_kernel") == CUDA_ERROR_NOT_FOUND);
    CU(cuLibraryUnload(lib));
    EXPECT(cuLibraryGetKernel(&none, lib, "scale_add") == CUDA_ERROR_INVALID_HANDLE);

    // CU_LIBRARY_BINARY_IS_PRESERVED needs no value (cuBLASLt passes none); an unknown option is
    // an invalid value.
    CUlibraryOption preserved = CU_LIBRARY_BINARY_IS_PRESERVED;
    CU(cuLibraryLoadData(&lib, fatbin.data(), nullptr, nullptr, 0, &preserved, nullptr, 1));
    CU(cuLibraryGetKernel(&kernel, lib, "scale_add"));
    CU(cuLibraryUnload(lib));
    CUlibraryOption unknown = CUlibraryOption(77);
    EXPECT(cuLibraryLoadData(&lib, fatbin.data(), nullptr, nullptr, 0, &unknown, nullptr, 1) ==
           CUDA_ERROR_INVALID_VALUE);

    // The limits of a CUDA-in-graphics context, which ours never is (cuBLASLt asks).
    size_t cig = 1, cigShared = 0;
    CU(cuCtxGetLimit(&cig, CU_LIMIT_CIG_ENABLED));
    EXPECT(cig == 0);
    CU(cuCtxGetLimit(&cigShared, CU_LIMIT_SHMEM_SIZE));
    EXPECT(cigShared >= 48 * 1024);
    EXPECT(cuCtxSetLimit(CU_LIMIT_CIG_ENABLED, 1) == CUDA_ERROR_INVALID_VALUE);
    CU(cuCtxSetLimit(CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED, 0));
    CU(cuCtxGetLimit(&cig, CU_LIMIT_CIG_SHMEM_FALLBACK_ENABLED));
    EXPECT(cig == 0);

    CUlibrary fromFile;
    CU(cuLibraryLoadFromFile(&fromFile, ptxPath.c_str(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    CUmodule fileModule;
    CU(cuLibraryGetModule(&fileModule, fromFile));
    if (runScaleAdd(fileModule, 2))
      return 1;
    CU(cuLibraryUnload(fromFile));
    EXPECT(cuLibraryLoadFromFile(&fromFile, "/nonexistent/kernels.ptx", nullptr, nullptr, 0,
                                 nullptr, nullptr, 0) == CUDA_ERROR_FILE_NOT_FOUND);
  }

  // JIT linking: two PTX modules and the .fatbin file, linked into one image.
  {
    char errors[4096] = {0}, info[4096] = {0};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                              CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {errors, (void *)(uintptr_t)sizeof errors, info,
                      (void *)(uintptr_t)sizeof info};
    CUlinkState link;
    CU(cuLinkCreate(4, options, values, &link));
    CU(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)kLinkCaller, strlen(kLinkCaller) + 1,
                     "caller.ptx", 0, nullptr, nullptr));
    CU(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)kLinkCallee, strlen(kLinkCallee) + 1,
                     "callee.ptx", 0, nullptr, nullptr));
    CU(cuLinkAddFile(link, CU_JIT_INPUT_FATBINARY,
                     besideExecutable("driver_kernels.fatbin").c_str(), 0, nullptr, nullptr));
    EXPECT(cuLinkAddData(link, CU_JIT_INPUT_NVVM, (void *)"x", 1, "lto.bin", 0, nullptr, nullptr) ==
           CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(strstr(errors, "lto.bin") != nullptr);
    void *image = nullptr;
    size_t imageSize = 0;
    CU(cuLinkComplete(link, &image, &imageSize));
    EXPECT(image && imageSize > 0);
    CUmodule linked;
    CU(cuModuleLoadData(&linked, image));
    CU(cuLinkDestroy(link));
    CUfunction callTwice;
    CU(cuModuleGetFunction(&callTwice, linked, "call_twice"));
    CUdeviceptr out;
    CU(cuMemAlloc(&out, 64 * sizeof(unsigned)));
    void *params[] = {&out};
    CU(cuLaunchKernel(callTwice, 1, 1, 1, 64, 1, 1, 0, nullptr, params, nullptr));
    unsigned host[64];
    CU(cuMemcpyDtoH(host, out, sizeof host));
    for (unsigned i = 0; i < 64; ++i)
      EXPECT(host[i] == 2 * i);
    CU(cuMemFree(out));
    // The fatbin's kernels are in the linked image too.
    if (runScaleAdd(linked, 6))
      return 1;
    CU(cuModuleUnload(linked));
  }

  // A kernel with arguments launched without them is refused.
  {
    CUfunction scale;
    CU(cuModuleGetFunction(&scale, fromFatbin, "scale_add"));
    EXPECT(cuLaunchKernel(scale, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr) ==
           CUDA_ERROR_INVALID_VALUE);
  }

  // Lookups that fail.
  CUfunction f;
  EXPECT(cuModuleGetFunction(&f, fromFatbin, "no_such_kernel") == CUDA_ERROR_NOT_FOUND);
  CUdeviceptr g;
  size_t gBytes;
  EXPECT(cuModuleGetGlobal(&g, &gBytes, fromFatbin, "no_such_variable") == CUDA_ERROR_NOT_FOUND);
  const char *errName = nullptr;
  CU(cuGetErrorName(CUDA_ERROR_NOT_FOUND, &errName));
  EXPECT(strcmp(errName, "CUDA_ERROR_NOT_FOUND") == 0);

  // Arguments packed in one buffer as CUDA lays them out (`extra`).
  {
    CUfunction mixed;
    CU(cuModuleGetFunction(&mixed, fromPtx, "mixed_args"));
    CUdeviceptr out;
    CU(cuMemAlloc(&out, 32 * sizeof(long long)));
    struct {
      char c;
      double d;
      short s;
      long long *out;
      int k;
    } args = {7, 2.5, -3, (long long *)out, 100};
    size_t argsSize = sizeof args;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &args, CU_LAUNCH_PARAM_BUFFER_SIZE, &argsSize,
                     CU_LAUNCH_PARAM_END};
    CU(cuLaunchKernel(mixed, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, extra));
    long long host[32];
    CU(cuMemcpyDtoH(host, out, sizeof host));
    for (int i = 0; i < 32; ++i)
      EXPECT(host[i] == 7LL * 1000000 + 2500 - 30 + 100 + i);
    // And the same through kernelParams.
    char c = 1;
    double d = -1.0;
    short s = 4;
    int k = 0;
    void *params[] = {&c, &d, &s, &out, &k};
    CU(cuLaunchKernel(mixed, 1, 1, 1, 32, 1, 1, 0, nullptr, params, nullptr));
    CU(cuMemcpyDtoH(host, out, sizeof host));
    for (int i = 0; i < 32; ++i)
      EXPECT(host[i] == 1000000LL - 1000 + 40 + i);
    CU(cuMemFree(out));
  }

  // Dynamic shared memory, memsets, a stream and events, in a created context.
  {
    CUcontext mine;
    CU(cuCtxCreate(&mine, nullptr, 0, dev));
    CU(cuCtxGetCurrent(&current));
    EXPECT(current == mine);
    CUmodule m;
    CU(cuModuleLoadData(&m, fatbin.data()));
    CUfunction rev;
    CU(cuModuleGetFunction(&rev, m, "reverse_block"));
    int staticShared = -1, maxThreadsF = 0;
    CU(cuFuncGetAttribute(&staticShared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, rev));
    CU(cuFuncGetAttribute(&maxThreadsF, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, rev));
    EXPECT(staticShared == 0 && maxThreadsF >= 256);
    const int block = 256, blocks = 8, n = block * blocks;
    CUdeviceptr data;
    CU(cuMemAlloc(&data, n * sizeof(int)));
    CU(cuMemsetD32(data, 0x01020304u, n));
    std::vector<int> host(n);
    CU(cuMemcpyDtoH(host.data(), data, n * sizeof(int)));
    for (int i = 0; i < n; ++i)
      EXPECT(host[i] == 0x01020304);
    CU(cuMemsetD16(data, 0xabcd, 2 * n));
    CU(cuMemcpyDtoH(host.data(), data, n * sizeof(int)));
    EXPECT(host[0] == int(0xabcdabcdu) && host[n - 1] == int(0xabcdabcdu));
    CU(cuMemsetD8(data, 0, n * sizeof(int)));
    for (int i = 0; i < n; ++i)
      host[i] = i * 3;
    CUstream stream;
    CUevent start, stop;
    CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CU(cuEventCreate(&start, 0));
    CU(cuEventCreate(&stop, 0));
    CU(cuEventRecord(start, stream));
    CU(cuMemcpyHtoDAsync(data, host.data(), n * sizeof(int), stream));
    void *params[] = {&data};
    CU(cuLaunchKernel(rev, blocks, 1, 1, block, 1, 1, block * sizeof(int), stream, params,
                      nullptr));
    CU(cuMemcpyDtoHAsync(host.data(), data, n * sizeof(int), stream));
    CU(cuEventRecord(stop, stream));
    CU(cuEventSynchronize(stop));
    CU(cuStreamSynchronize(stream));
    EXPECT(cuStreamQuery(stream) == CUDA_SUCCESS);
    float ms = -1;
    CU(cuEventElapsedTime(&ms, start, stop));
    EXPECT(ms >= 0);
    for (int i = 0; i < n; ++i) {
      int b = i / block, t = i % block;
      EXPECT(host[i] == (b * block + block - 1 - t) * 3);
    }
    CUdeviceptr base;
    size_t bytes;
    CU(cuMemGetAddressRange(&base, &bytes, data + 100));
    EXPECT(base == data && bytes == n * sizeof(int));
    CU(cuEventDestroy(start));
    CU(cuEventDestroy(stop));
    CU(cuStreamDestroy(stream));
    CU(cuMemFree(data));
    CU(cuCtxDestroy(mine));
    // Its module went with it.
    EXPECT(cuModuleGetFunction(&rev, m, "reverse_block") == CUDA_ERROR_INVALID_HANDLE);
    CU(cuCtxGetCurrent(&current));
    EXPECT(current == primary);
  }

  // 3D copies (CUDA_MEMCPY3D): a box of host memory into pitched device memory and back out
  // into host memory of a third pitch, with positions on every side; peer and batched copies.
  {
    const size_t w = 40, h = 6, d = 3; // the box, in bytes and rows
    const size_t hostPitch = 64, hostRows = 9, outPitch = 48, outRows = 7;
    std::vector<unsigned char> in(hostPitch * hostRows * 5), out(outPitch * outRows * 4, 0xcc);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = (unsigned char)(i * 13 + 1);
    CUdeviceptr pitched;
    size_t pitch = 0;
    CU(cuMemAllocPitch(&pitched, &pitch, 50, 8 * 4, 4)); // 4 slices of 8 rows of 50 bytes
    CU(cuMemsetD2D8(pitched, pitch, 0x77, 50, 8 * 4));
    CUDA_MEMCPY3D c = {};
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = in.data();
    c.srcPitch = hostPitch;
    c.srcHeight = hostRows;
    c.srcXInBytes = 3, c.srcY = 2, c.srcZ = 1;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = pitched;
    c.dstPitch = pitch;
    c.dstHeight = 8;
    c.dstXInBytes = 5, c.dstY = 1, c.dstZ = 1;
    c.WidthInBytes = w, c.Height = h, c.Depth = d;
    CU(cuMemcpy3D(&c));
    CUDA_MEMCPY3D back = {};
    back.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    back.srcDevice = pitched;
    back.srcPitch = pitch;
    back.srcHeight = 8;
    back.srcXInBytes = 5, back.srcY = 1, back.srcZ = 1;
    back.dstMemoryType = CU_MEMORYTYPE_HOST;
    back.dstHost = out.data();
    back.dstPitch = outPitch;
    back.dstHeight = outRows;
    back.dstXInBytes = 2, back.dstY = 1, back.dstZ = 0;
    back.WidthInBytes = w, back.Height = h, back.Depth = d;
    CUstream stream;
    CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CU(cuMemcpy3DAsync(&back, stream));
    CU(cuStreamSynchronize(stream));
    for (size_t z = 0; z < 4; ++z)
      for (size_t y = 0; y < outRows; ++y)
        for (size_t x = 0; x < outPitch; ++x) {
          bool inBox = z < d && y >= 1 && y < 1 + h && x >= 2 && x < 2 + w;
          unsigned char want =
              inBox ? in[((z + 1) * hostRows + (y - 1 + 2)) * hostPitch + (x - 2 + 3)] : 0xcc;
          EXPECT(out[(z * outRows + y) * outPitch + x] == want);
        }
    // The device rows around the box kept their set value.
    std::vector<unsigned char> row(50);
    CU(cuMemcpyDtoH(row.data(), pitched + (1 * 8 + 1) * pitch, 50));
    EXPECT(row[4] == 0x77 && row[5] == in[(1 * hostRows + 2) * hostPitch + 3] && row[45] == 0x77);
    // An array side needs an array (driver_arrays has them); the peer forms take contexts.
    CUDA_MEMCPY3D arr = c;
    arr.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    EXPECT(cuMemcpy3D(&arr) == CUDA_ERROR_INVALID_HANDLE);
    CUDA_MEMCPY3D_PEER peer = {};
    peer.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    peer.srcDevice = pitched;
    peer.srcPitch = pitch;
    peer.srcHeight = 8;
    peer.srcContext = primary;
    peer.dstMemoryType = CU_MEMORYTYPE_HOST;
    peer.dstHost = out.data();
    peer.dstPitch = outPitch;
    peer.dstHeight = outRows;
    peer.dstContext = primary;
    peer.WidthInBytes = 10, peer.Height = 2, peer.Depth = 1;
    CU(cuMemcpy3DPeer(&peer));
    EXPECT(out[0] == 0x77 && out[outPitch + 9] == 0x77);
    CUdeviceptr linear;
    CU(cuMemAlloc(&linear, 256));
    CU(cuMemcpyPeer(linear, primary, pitched + (8 + 1) * pitch, primary, 50));
    CU(cuMemcpyPeerAsync(pitched, primary, linear, primary, 50, stream));
    CU(cuStreamSynchronize(stream));
    CU(cuMemcpyDtoH(row.data(), pitched, 50));
    EXPECT(row[5] == in[(1 * hostRows + 2) * hostPitch + 3]);
    EXPECT(cuMemcpyPeer(linear, nullptr, pitched, primary, 8) == CUDA_ERROR_INVALID_CONTEXT);
    // A batch of two copies with one set of attributes.
    CUdeviceptr dsts[2] = {linear, linear + 128};
    CUdeviceptr srcs[2] = {CUdeviceptr(uintptr_t(in.data())), linear};
    size_t sizes[2] = {100, 100};
    CUmemcpyAttributes attrs = {};
    attrs.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
    size_t attrsIdx = 0;
    CU(cuMemcpyBatchAsync(dsts, srcs, sizes, 2, &attrs, &attrsIdx, 1, stream));
    CU(cuStreamSynchronize(stream));
    CU(cuMemcpyDtoH(row.data(), linear + 128, 50));
    EXPECT(row[0] == in[0] && row[49] == in[49]);
    CU(cuStreamDestroy(stream));
    CU(cuMemFree(linear));
    CU(cuMemFree(pitched));
  }

  // PTX text in memory, one kernel of which cannot be translated.
  {
    char errorLog[1024] = "", infoLog[1024] = "x";
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                              CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void *values[] = {errorLog, (void *)(uintptr_t)sizeof errorLog, infoLog,
                      (void *)(uintptr_t)sizeof infoLog};
    CUmodule m;
    CU(cuModuleLoadDataEx(&m, kHandPtx, 4, options, values));
    CUfunction ok, broken;
    CU(cuModuleGetFunction(&ok, m, "ok"));
    CU(cuModuleGetFunction(&broken, m, "broken"));
    CUdeviceptr out;
    CU(cuMemAlloc(&out, sizeof(int)));
    void *params[] = {&out};
    CUresult r = cuLaunchKernel(broken, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr);
    EXPECT(r == CUDA_ERROR_NO_BINARY_FOR_GPU);
    const char *why = nullptr;
    CU(cuGetErrorString(r, &why));
    printf("expected failure: %s\n", why);
    EXPECT(strstr(why, "broken") && strstr(why, "%pm"));
    // Not sticky: the module's other kernel runs.
    CU(cuLaunchKernel(ok, 1, 1, 1, 1, 1, 1, 0, nullptr, params, nullptr));
    int v = 0;
    CU(cuMemcpyDtoH(&v, out, sizeof v));
    EXPECT(v == 42);
    CU(cuMemFree(out));
    CU(cuModuleUnload(m));
    // An image without PTX is refused at load, with the reason in the error log.
    // The size options are in and out: the last call wrote back the bytes it logged.
    values[1] = (void *)(uintptr_t)sizeof errorLog;
    values[3] = (void *)(uintptr_t)sizeof infoLog;
    unsigned char notCuda[64] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
    CUmodule bad;
    r = cuModuleLoadDataEx(&bad, notCuda, 2, options, values);
    EXPECT(r == CUDA_ERROR_INVALID_SOURCE);
    printf("expected failure: %s\n", errorLog);
    EXPECT(strlen(errorLog) > 0);
    EXPECT(cuModuleLoadData(&bad, "this is not PTX") == CUDA_ERROR_INVALID_SOURCE);
    // PTX that does not parse fails when the module is translated, at its first lookup.
    CU(cuModuleLoadData(&bad, ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry "
                              "ok() { ret; }\nnowhere to be parsed\n"));
    r = cuModuleGetFunction(&ok, bad, "ok");
    EXPECT(r == CUDA_ERROR_INVALID_PTX);
    CU(cuGetErrorString(r, &why));
    printf("expected failure: %s\n", why);
    EXPECT(strstr(why, "nowhere"));
    CU(cuModuleUnload(bad));
  }

  // Functions by base name, as the static runtime and frameworks find them.
  void *fn = nullptr;
  CUdriverProcAddressQueryResult status;
  const char *names[] = {"cuInit",         "cuLaunchKernel",     "cuModuleLoadData",
                         "cuStreamCreate", "cuEventElapsedTime", "cuMemsetD32",
                         "cuCtxCreate",    "cuGetProcAddress"};
  for (const char *n : names) {
    CU(cuGetProcAddress(n, &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
    EXPECT(fn && status == CU_GET_PROC_ADDRESS_SUCCESS);
  }
  CU(cuGetProcAddress("cuMemAlloc", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
  EXPECT(fn == (void *)&cuMemAlloc);
  EXPECT(cuGetProcAddress("cuNoSuchFunction", &fn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &status) ==
             CUDA_ERROR_NOT_FOUND &&
         !fn && status == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);

  CU(cuModuleUnload(fromPtx));
  CU(cuModuleUnload(fromFatbin));
  CU(cuDevicePrimaryCtxRelease(dev));
  printf("PASS %s\n", kName);
  return 0;
}
