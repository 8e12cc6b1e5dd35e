// compute_capability: the compute capability the device reports, 8.6 unless
// PTX2AMD_COMPUTE_CAPABILITY chooses another, and what follows from it, as CUDA's driver does it
// for a device of that capability:
// - cudaGetDeviceProperties, cudaDeviceGetAttribute and the driver's cuDeviceGetAttribute and
//   cuDeviceComputeCapability (reached as programs built with the static runtime reach them,
//   through cudaGetDriverEntryPointByVersion) agree on it and on its residency limits (CUDA's
//   table: resident threads and blocks per multiprocessor), and on what came with 8.0
//   (persisting L2 accesses, and their limit);
// - the occupancy calculator counts whole warps within those limits, and never answers 0 for a
//   block the device can run, nor more blocks than a kernel's registers leave room for; a
//   cooperative grid of occupancy x multiprocessors runs (a grid barrier) and one block more is
//   cudaErrorCooperativeLaunchTooLarge;
// - the memory's clock and width are never 0;
// - the PTX taken from the fatbin is the highest whose architecture is at most the capability
//   (the kernel returns the __CUDA_ARCH__ it was compiled for; cudaFuncGetAttributes'
//   ptxVersion says the same, binaryVersion is the device's); where all of it is above the
//   capability the lowest is taken (CUDA's driver would find no kernel image: the toolkit's
//   libraries carry PTX for their newest architecture only).
// Built with nvcc's defaults (compute_75 PTX), and as variants (test/cuda/run/CMakeLists.txt)
// with PTX for other architectures, whose numbers PTX_ARCH1..3 give. With --invalid, the value of
// PTX2AMD_COMPUTE_CAPABILITY is not a capability: the runtime does not initialise. With
// --sass-only (built with sm_80 SASS alone) no kernel can run, and the error names the file that
// holds the image.
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>
#include <unistd.h>

namespace cg = cooperative_groups;

static const char *kName = "compute_capability";

#include "../check.h"

// The architectures of the PTX the fatbin carries (nvcc splits -D values at commas: one each).
#ifndef PTX_ARCH1
#define PTX_ARCH1 75
#endif
#ifndef PTX_ARCH2
#define PTX_ARCH2 0
#endif
#ifndef PTX_ARCH3
#define PTX_ARCH3 0
#endif

__global__ void arch(int *out) {
#ifdef __CUDA_ARCH__
  out[threadIdx.x] = __CUDA_ARCH__;
#endif
}

// Each block counts itself in, waits at the grid barrier, then checks that every block had.
__global__ void meet(unsigned *arrived, unsigned *wrong) {
  if (threadIdx.x == 0)
    atomicAdd(arrived, 1u);
  cg::this_grid().sync();
  if (threadIdx.x == 0 && atomicAdd(arrived, 0u) != gridDim.x)
    atomicAdd(wrong, 1u);
}

// CUDA's residency limits of the capabilities the tests choose (the programming guide's table).
struct Limits {
  const char *Name;
  int Major, Minor, Threads, Blocks;
};
static const Limits kLimits[] = {{"7.5", 7, 5, 1024, 16},
                                 {"8.0", 8, 0, 2048, 32},
                                 {"8.6", 8, 6, 1536, 16},
                                 {"8.9", 8, 9, 1536, 24},
                                 {"9.0", 9, 0, 2048, 32}};

typedef CUresult (*GetAttribute)(int *, CUdevice_attribute, CUdevice);
typedef CUresult (*ComputeCapability)(int *, int *, CUdevice);

int main(int argc, char **argv) {
  const char *env = getenv("PTX2AMD_COMPUTE_CAPABILITY");
  const char *chosen = env && *env ? env : "8.6";

  if (argc > 1 && !strcmp(argv[1], "--invalid")) {
    // Nothing runs: the runtime does not initialise, and (our libcudart) says why.
    int count = -1;
    cudaError_t err = cudaGetDeviceCount(&count);
    EXPECT(err != cudaSuccess);
#ifndef STATIC_CUDART
    EXPECT(count == 0);
    EXPECT(err == cudaErrorInitializationError);
    const char *why = cudaGetErrorString(err);
    printf("cudaGetDeviceCount: %s\n", why);
    EXPECT(strstr(why, "PTX2AMD_COMPUTE_CAPABILITY='") && strstr(why, "' is not one of 7.5, "));
#endif
    EXPECT(cudaGetDeviceCount(&count) != cudaSuccess);
    printf("PASS %s --invalid\n", kName);
    return 0;
  }
  if (argc > 1 && !strcmp(argv[1], "--sass-only")) {
    // The static runtime's error texts are its own: the driver's log line (debug level, on
    // stderr, caught in a file) says which file holds the image.
    setenv("PTX2AMD_LOG", "debug", 1);
    FILE *log = tmpfile();
    int saved = dup(2);
    EXPECT(log && saved >= 0 && dup2(fileno(log), 2) == 2);
    int *d = nullptr;
    CK(cudaMalloc(&d, sizeof(int)));
    arch<<<1, 1>>>(d);
    cudaError_t err = cudaGetLastError();
    fflush(stderr);
    dup2(saved, 2);
    EXPECT(err == cudaErrorNoKernelImageForDevice);
    char text[4096] = "";
    rewind(log);
    text[fread(text, 1, sizeof text - 1, log)] = 0;
    printf("launch: %s\nlog: %s\n", cudaGetErrorString(err), text);
    EXPECT(strstr(text, "only SASS for sm_80"));
#ifdef STATIC_CUDART
    EXPECT(strstr(text, "(image in compute_capability.sass.static at +0x"));
#else
    EXPECT(strstr(cudaGetErrorString(err), "compute_capability.sass: module 0"));
#endif
    CK(cudaFree(d));
    printf("PASS %s --sass-only\n", kName);
    return 0;
  }

  const Limits *want = nullptr;
  for (const Limits &L : kLimits)
    if (!strcmp(L.Name, chosen))
      want = &L;
  EXPECT(want);
  const int cc = want->Major * 10 + want->Minor;

  // Properties and attributes, through both APIs.
  cudaDeviceProp prop;
  memset(&prop, 0, sizeof prop);
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("%s: compute capability %d.%d, %d threads and %d blocks per multiprocessor, %d "
         "multiprocessors\n",
         prop.name, prop.major, prop.minor, prop.maxThreadsPerMultiProcessor,
         prop.maxBlocksPerMultiProcessor, prop.multiProcessorCount);
  EXPECT(prop.major == want->Major && prop.minor == want->Minor);
  EXPECT(prop.maxThreadsPerMultiProcessor == want->Threads);
  EXPECT(prop.maxBlocksPerMultiProcessor == want->Blocks);
  EXPECT(prop.maxThreadsPerBlock == 1024 && prop.warpSize == 32);
  EXPECT(prop.regsPerBlock == 65536 && prop.regsPerMultiprocessor == 65536);
  EXPECT(prop.sharedMemPerBlockOptin >= prop.sharedMemPerBlock);
  EXPECT(prop.sharedMemPerMultiprocessor >= prop.sharedMemPerBlock);
  EXPECT(prop.cooperativeLaunch == 1);
  if (cc < 80)
    EXPECT(prop.persistingL2CacheMaxSize == 0 && prop.accessPolicyMaxWindowSize == 0);

  const struct {
    cudaDeviceAttr Attr;
    int Value;
  } attrs[] = {{cudaDevAttrComputeCapabilityMajor, prop.major},
               {cudaDevAttrComputeCapabilityMinor, prop.minor},
               {cudaDevAttrMaxThreadsPerMultiProcessor, prop.maxThreadsPerMultiProcessor},
               {cudaDevAttrMaxBlocksPerMultiprocessor, prop.maxBlocksPerMultiProcessor},
               {cudaDevAttrMaxRegistersPerMultiprocessor, prop.regsPerMultiprocessor},
               {cudaDevAttrMaxSharedMemoryPerBlockOptin, int(prop.sharedMemPerBlockOptin)},
               {cudaDevAttrMaxPersistingL2CacheSize, prop.persistingL2CacheMaxSize},
               {cudaDevAttrGlobalMemoryBusWidth, prop.memoryBusWidth}};
  GetAttribute getAttribute = nullptr;
  ComputeCapability computeCapability = nullptr;
  cudaDriverEntryPointQueryResult found;
  CK(cudaGetDriverEntryPointByVersion("cuDeviceGetAttribute", (void **)&getAttribute, 12000,
                                      cudaEnableDefault, &found));
  EXPECT(found == cudaDriverEntryPointSuccess && getAttribute);
  CK(cudaGetDriverEntryPointByVersion("cuDeviceComputeCapability", (void **)&computeCapability,
                                      12000, cudaEnableDefault, &found));
  EXPECT(found == cudaDriverEntryPointSuccess && computeCapability);
  for (const auto &a : attrs) {
    int value = -1, driverValue = -1;
    CK(cudaDeviceGetAttribute(&value, a.Attr, 0));
    EXPECT(getAttribute(&driverValue, CUdevice_attribute(a.Attr), 0) == CUDA_SUCCESS);
    if (value != a.Value || driverValue != a.Value)
      printf("attribute %d: %d (driver %d), properties %d\n", int(a.Attr), value, driverValue,
             a.Value);
    EXPECT(value == a.Value && driverValue == a.Value);
  }
  // What CUDA reports of no device as 0, and libraries divide by: the memory's clock and width.
  int memoryClock = 0;
  CK(cudaDeviceGetAttribute(&memoryClock, cudaDevAttrMemoryClockRate, 0));
  EXPECT(memoryClock > 0 && prop.memoryBusWidth > 0);
  int major = 0, minor = 0;
  EXPECT(computeCapability(&major, &minor, 0) == CUDA_SUCCESS);
  EXPECT(major == want->Major && minor == want->Minor);

  // Persisting L2 accesses came with 8.0: before, no such limit; from then on, at most the
  // properties' maximum is set aside.
  size_t persisting = 1;
  if (cc < 80) {
    EXPECT(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 1 << 20) ==
           cudaErrorUnsupportedLimit);
    EXPECT(cudaGetLastError() == cudaErrorUnsupportedLimit);
  } else {
    CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 1 << 20));
    CK(cudaDeviceGetLimit(&persisting, cudaLimitPersistingL2CacheSize));
    EXPECT(persisting == (prop.persistingL2CacheMaxSize < (1 << 20)
                              ? size_t(prop.persistingL2CacheMaxSize)
                              : size_t(1 << 20)));
  }

  // The PTX the device takes: the highest at most its capability, as CUDA's driver chooses, and
  // the lowest above it where there is none.
  const int ptx[] = {PTX_ARCH1, PTX_ARCH2, PTX_ARCH3};
  int expected = 0;
  for (int a : ptx)
    if (a && a <= cc && a > expected)
      expected = a;
  if (!expected)
    for (int a : ptx)
      if (a && (!expected || a < expected))
        expected = a;
  int *d = nullptr;
  CK(cudaMalloc(&d, 32 * sizeof(int)));
  CK(cudaMemset(d, 0, 32 * sizeof(int)));
  arch<<<1, 32>>>(d);
  CK(cudaGetLastError());
  int h[32];
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  printf("kernel compiled for __CUDA_ARCH__ %d (PTX for sm_%d of the fatbin's)\n", h[0], expected);
  for (int v : h)
    EXPECT(v == expected * 10);
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, arch));
  printf("ptxVersion %d, binaryVersion %d\n", fa.ptxVersion, fa.binaryVersion);
  EXPECT(fa.ptxVersion == expected);
  EXPECT(fa.binaryVersion == cc);

  // Occupancy in whole warps, within the capability's limits; a block of any size up to 1024
  // threads fits at least once.
  const int warpsPerSm = prop.maxThreadsPerMultiProcessor / 32;
  for (int threads : {1, 32, 33, 64, 100, 128, 256, 384, 512, 768, 1000, 1024}) {
    int blocks = -1;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, meet, threads, 0));
    int warps = (threads + 31) / 32;
    int limit = warpsPerSm / warps < prop.maxBlocksPerMultiProcessor
                    ? warpsPerSm / warps
                    : prop.maxBlocksPerMultiProcessor;
    if (blocks != limit)
      printf("occupancy of %d threads: %d blocks, want %d\n", threads, blocks, limit);
    EXPECT(blocks == limit && blocks >= 1);
  }
  // A kernel's registers agree with that: the blocks they leave room for as CUDA counts them (a
  // warp's registers in units of 256) are never fewer. cuBLAS works occupancy out from them
  // and divided by zero when they were 0.
  cudaFuncAttributes ma;
  CK(cudaFuncGetAttributes(&ma, meet));
  printf("numRegs %d\n", ma.numRegs);
  EXPECT(ma.numRegs > 0 && ma.numRegs <= 255);
  for (int threads : {32, 100, 256, 1024}) {
    int blocks = -1;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, meet, threads, 0));
    int warpRegisters = (ma.numRegs * 32 + 255) / 256 * 256;
    EXPECT(prop.regsPerMultiprocessor / (warpRegisters * ((threads + 31) / 32)) >= blocks);
  }

  // Cooperative launches at the limit the occupancy calculator gives, and one block past it.
  unsigned *counts = nullptr;
  CK(cudaMalloc(&counts, 2 * sizeof(unsigned)));
  for (int threads : {32, 256, 1024}) {
    int perSm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, meet, threads, 0));
    int blocks = perSm * prop.multiProcessorCount;
    unsigned *arrived = counts, *wrong = counts + 1;
    void *args[] = {&arrived, &wrong};
    CK(cudaMemset(counts, 0, 2 * sizeof(unsigned)));
    CK(cudaLaunchCooperativeKernel((void *)meet, blocks, threads, args, 0, nullptr));
    CK(cudaDeviceSynchronize());
    unsigned got[2];
    CK(cudaMemcpy(got, counts, sizeof got, cudaMemcpyDeviceToHost));
    printf("cooperative launch: %d blocks of %d threads (%d per multiprocessor)\n", blocks, threads,
           perSm);
    EXPECT(got[0] == unsigned(blocks) && got[1] == 0);
    EXPECT(cudaLaunchCooperativeKernel((void *)meet, blocks + 1, threads, args, 0, nullptr) ==
           cudaErrorCooperativeLaunchTooLarge);
    EXPECT(cudaGetLastError() == cudaErrorCooperativeLaunchTooLarge);
  }
  CK(cudaFree(counts));
  CK(cudaFree(d));
  printf("PASS %s\n", kName);
  return 0;
}
