// entry_points: every entry point of CUDA's libraries exists, as a program finds them: what is
// not implemented answers cudaErrorNotSupported / CUDA_ERROR_NOT_SUPPORTED (801) without a crash
// and becomes the last error; driver functions found by base name, CUDA version and stream
// flavour through cudaGetDriverEntryPoint(ByVersion) and cuGetProcAddress are the variants
// cudaTypedefs.h names for that version (checked against dlsym of libcuda.so.1's exports);
// per-thread variants of implemented functions run; device attributes that CUDA's samples query.
#include <cstdio>
#include <cstring>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>
#include <dlfcn.h>

static const char *kName = "entry_points";

// cudaGetDriverEntryPoint is deprecated in CUDA 13 (for ...ByVersion) and still exported.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#include "../check.h"

__global__ void iota(int *out) { out[threadIdx.x] = threadIdx.x; }

static void *driver = nullptr;
static PFN_cuGetProcAddress_v12000 getProc = nullptr;

// cuGetProcAddress's answer for (name, version, flags) is libcuda.so.1's export `want` (null:
// none, with `status`).
static bool resolvesTo(const char *name, int version, cuuint64_t flags, const char *want,
                       CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS) {
  void *fn = (void *)1;
  CUdriverProcAddressQueryResult got = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  CUresult r = getProc(name, &fn, version, flags, &got);
  void *expected = want ? dlsym(driver, want) : nullptr;
  bool ok = got == status && fn == expected &&
            (want ? expected && r == CUDA_SUCCESS : r == CUDA_ERROR_NOT_FOUND);
  printf("cuGetProcAddress(%s, %d, %llu) -> %s (status %d, result %d)%s\n", name, version,
         (unsigned long long)flags, want ? want : "null", (int)got, (int)r, ok ? "" : " WRONG");
  return ok;
}

int main() {
  const int n = 64;
  int *d = nullptr, h[n];
  CK(cudaMalloc(&d, n * sizeof(int)));
  iota<<<1, n>>>(d);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    EXPECT(h[i] == i);

  // A runtime function that is not implemented: 801, taken by cudaGetLastError, with its name.
  // (Graphics interoperability has nothing to share with here.)
  cudaGraphicsResource_t resource = nullptr;
  EXPECT(cudaGraphicsUnregisterResource(resource) == cudaErrorNotSupported);
  EXPECT((int)cudaErrorNotSupported == 801);
  printf("expected failure: %s\n", cudaGetErrorString(cudaErrorNotSupported));
  EXPECT(strstr(cudaGetErrorString(cudaErrorNotSupported), "cudaGraphicsUnregisterResource"));
  EXPECT(cudaGetLastError() == cudaErrorNotSupported);
  EXPECT(cudaGetLastError() == cudaSuccess);
  cudaArray_t array;
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  EXPECT(desc.x == 32 && desc.y == 0 && desc.z == 0 && desc.w == 0 &&
         desc.f == cudaChannelFormatKindFloat);
  desc = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
  EXPECT(desc.x == 8 && desc.w == 8 && desc.f == cudaChannelFormatKindUnsigned);
  CK(cudaMallocArray(&array, &desc, 16, 16));
  CK(cudaFreeArray(array));

  // Device queries of CUDA's samples (helper_cuda.h's device selection).
  int value = -1;
  CK(cudaDeviceGetAttribute(&value, cudaDevAttrComputeMode, 0));
  EXPECT(value == cudaComputeModeDefault);
  CK(cudaDeviceGetAttribute(&value, cudaDevAttrTextureAlignment, 0));
  EXPECT(value > 0);
  // The device says what the runtime has: pools; no clusters.
  CK(cudaDeviceGetAttribute(&value, cudaDevAttrMemoryPoolsSupported, 0));
  EXPECT(value == 1);
  CK(cudaDeviceGetAttribute(&value, cudaDevAttrClusterLaunch, 0));
  EXPECT(value == 0);
  // Every attribute of CUDA 13 is answered; the clock is known for the host device where the
  // system reports the CPU's (0 where it is not known).
  CK(cudaDeviceGetAttribute(&value, cudaDevAttrClockRate, 0));
  printf("clock rate: %d kHz\n", value);
  EXPECT(value >= 0);
  for (int attr = 1; attr <= 147; ++attr) {
    if (attr == 44 || (attr >= 102 && attr <= 105) || attr == 107 || attr == 110 || attr == 136 ||
        attr == 137 || attr == 146)
      continue; // the driver's only
    if (cudaDeviceGetAttribute(&value, cudaDeviceAttr(attr), 0) != cudaSuccess) {
      printf("FAIL %s: device attribute %d not answered\n", kName, attr);
      return 1;
    }
  }
  EXPECT(cudaDeviceGetAttribute(&value, cudaDeviceAttr(148), 0) == cudaErrorInvalidValue);
  cudaGetLastError();

  // The driver: from the runtime, then the same library by name.
  cudaDriverEntryPointQueryResult status;
  void *fn = nullptr;
  CK(cudaGetDriverEntryPoint("cuGetProcAddress", &fn, cudaEnableDefault, &status));
  EXPECT(fn && status == cudaDriverEntryPointSuccess);
  getProc = (PFN_cuGetProcAddress_v12000)fn;
  driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  EXPECT(driver);
  EXPECT(fn == dlsym(driver, "cuGetProcAddress_v2"));

  // ABI variants by version (cudaTypedefs.h: PFN_cuMemAlloc_v2000 is cuMemAlloc,
  // PFN_cuMemAlloc_v3020 cuMemAlloc_v2; cuCtxCreate v3020/v11040/v12050 are _v2/_v3/_v4).
  EXPECT(resolvesTo("cuMemAlloc", 13000, 0, "cuMemAlloc_v2"));
  EXPECT(resolvesTo("cuMemAlloc", 3020, 0, "cuMemAlloc_v2"));
  EXPECT(resolvesTo("cuMemAlloc", 2000, 0, "cuMemAlloc"));
  EXPECT(resolvesTo("cuMemAlloc", 1000, 0, nullptr, CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT));
  EXPECT(resolvesTo("cuCtxCreate", 13000, 0, "cuCtxCreate_v4"));
  EXPECT(resolvesTo("cuCtxCreate", 12050, 0, "cuCtxCreate_v4"));
  EXPECT(resolvesTo("cuCtxCreate", 12040, 0, "cuCtxCreate_v3"));
  EXPECT(resolvesTo("cuCtxCreate", 11040, 0, "cuCtxCreate_v3"));
  EXPECT(resolvesTo("cuCtxCreate", 3020, 0, "cuCtxCreate_v2"));
  EXPECT(resolvesTo("cuCtxCreate", 2000, 0, "cuCtxCreate"));
  EXPECT(resolvesTo("cuGetProcAddress", 11030, 0, "cuGetProcAddress"));
  EXPECT(resolvesTo("cuCtxSynchronize", 12090, 0, "cuCtxSynchronize"));
  EXPECT(resolvesTo("cuCtxSynchronize", 13000, 0, "cuCtxSynchronize_v2"));
  EXPECT(resolvesTo("cuTexRefSetAddress2D", 4010, 0, "cuTexRefSetAddress2D_v3"));
  // Stream flavours: per-thread when asked and the variant exists at that version, else the
  // default-stream variant; legacy never the per-thread one.
  EXPECT(resolvesTo("cuMemcpyHtoD", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
                    "cuMemcpyHtoD_v2_ptds"));
  EXPECT(resolvesTo("cuMemcpyHtoD", 13000, CU_GET_PROC_ADDRESS_LEGACY_STREAM, "cuMemcpyHtoD_v2"));
  EXPECT(resolvesTo("cuMemcpyHtoD", 6050, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
                    "cuMemcpyHtoD_v2"));
  EXPECT(resolvesTo("cuLaunchKernel", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
                    "cuLaunchKernel_ptsz"));
  EXPECT(resolvesTo("cuLaunchKernel", 13000, 0, "cuLaunchKernel"));
  EXPECT(resolvesTo("cuStreamGetCaptureInfo", 11030, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM,
                    "cuStreamGetCaptureInfo_v2_ptsz"));
  EXPECT(resolvesTo("cuStreamGetCaptureInfo", 13000, 0, "cuStreamGetCaptureInfo_v3"));
  EXPECT(resolvesTo("cuInit", 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, "cuInit"));
  EXPECT(resolvesTo("cuNoSuchFunction", 13000, 0, nullptr, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND));

  // The runtime's lookups go through the same table.
  CK(cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, 2000, cudaEnableDefault, &status));
  EXPECT(status == cudaDriverEntryPointSuccess && fn == dlsym(driver, "cuMemAlloc"));
  CK(cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, 1000, cudaEnableDefault, &status));
  EXPECT(status == cudaDriverEntryPointVersionNotSufficent && !fn);
  CK(cudaGetDriverEntryPoint("cuNoSuchFunction", &fn, cudaEnableDefault, &status));
  EXPECT(status == cudaDriverEntryPointSymbolNotFound && !fn);
  CK(cudaGetDriverEntryPoint("cuMemcpyHtoD", &fn, cudaEnablePerThreadDefaultStream, &status));
  EXPECT(fn == dlsym(driver, "cuMemcpyHtoD_v2_ptds"));
  // A program built with --default-stream per-thread calls the _ptsz form: its default is
  // per-thread.
  typedef cudaError_t (*GetEntryPoint)(const char *, void **, unsigned long long,
                                       cudaDriverEntryPointQueryResult *);
  auto getPerThread = (GetEntryPoint)dlsym(RTLD_DEFAULT, "cudaGetDriverEntryPoint_ptsz");
  EXPECT(getPerThread);
  CK(getPerThread("cuMemcpyHtoD", &fn, cudaEnableDefault, &status));
  EXPECT(fn == dlsym(driver, "cuMemcpyHtoD_v2_ptds"));

  // Driver functions through those pointers: implemented ones work, per-thread variants of
  // implemented ones are them, others answer 801 with their name.
  PFN_cuGetErrorString_v6000 errorString;
  PFN_cuDeviceGetAttribute_v2000 getAttribute;
  PFN_cuMemcpyDtoH_v3020 copyPerThread;
  CK(cudaGetDriverEntryPoint("cuGetErrorString", (void **)&errorString, 0, &status));
  CK(cudaGetDriverEntryPoint("cuDeviceGetAttribute", (void **)&getAttribute, 0, &status));
  CK(cudaGetDriverEntryPoint("cuMemcpyDtoH", (void **)&copyPerThread,
                             cudaEnablePerThreadDefaultStream, &status));
  EXPECT(getAttribute(&value, CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, 0) == CUDA_SUCCESS &&
         value == CU_COMPUTEMODE_DEFAULT);
  memset(h, 0, sizeof(h));
  EXPECT(copyPerThread(h, (CUdeviceptr)d, sizeof(h)) == CUDA_SUCCESS && h[n - 1] == n - 1);
  auto unregister =
      (PFN_cuGraphicsUnregisterResource_v3000)dlsym(driver, "cuGraphicsUnregisterResource");
  const char *why = nullptr;
  EXPECT(unregister && unregister(nullptr) == CUDA_ERROR_NOT_SUPPORTED);
  EXPECT(errorString(CUDA_ERROR_NOT_SUPPORTED, &why) == CUDA_SUCCESS &&
         strstr(why, "cuGraphicsUnregisterResource"));
  printf("expected failure: %s\n", why);
  // The CUDA 2.0 ABI (32-bit device pointers) is not implemented.
  typedef CUresult (*MemAllocV1)(unsigned *, unsigned); // PFN_cuMemAlloc_v2000
  auto memAllocV1 = (MemAllocV1)dlsym(driver, "cuMemAlloc");
  unsigned small;
  EXPECT(memAllocV1 && memAllocV1(&small, 16) == CUDA_ERROR_NOT_SUPPORTED);
  // Driver calls leave the runtime's last error alone.
  EXPECT(cudaGetLastError() == cudaSuccess);

  // Per-thread runtime entry points of implemented functions, as --default-stream per-thread
  // programs call them.
  typedef cudaError_t (*Memset)(void *, int, size_t);
  typedef cudaError_t (*Synchronize)(cudaStream_t);
  auto memsetPerThread = (Memset)dlsym(RTLD_DEFAULT, "cudaMemset_ptds");
  auto syncPerThread = (Synchronize)dlsym(RTLD_DEFAULT, "cudaStreamSynchronize_ptsz");
  EXPECT(memsetPerThread && syncPerThread);
  CK(memsetPerThread(d, 0, n * sizeof(int)));
  CK(syncPerThread(0));
  CK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  EXPECT(h[1] == 0 && h[n - 1] == 0);

  CK(cudaFree(d));
  printf("PASS %s\n", kName);
  return 0;
}
