// runtime_api: the runtime API beyond what the other programs use, as CUDA defines it: error
// state (non-sticky errors taken by cudaGetLastError, a kernel that cannot run reported with its
// name and the process going on, sticky errors after a device assertion), device properties and
// attributes, versions, function attributes, occupancy, symbols, 2D copies, cudaMemcpyDefault,
// __managed__ variables, cudaLaunchKernel, stream and event queries, pitched memory and 2D copies,
// pointer attributes, limits, host functions on streams.
#include <cassert>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

static const char *kName = "runtime_api";

#include "../check.h"

__device__ int d_table[16];
__managed__ int m_counter = 5;

__global__ void fill(int *out, int n, int base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = base + i;
}

__global__ void uses_shared(int *out) {
  extern __shared__ int dyn[];
  __shared__ int fixed[64];
  fixed[threadIdx.x % 64] = threadIdx.x % 64; // the same value from every writer
  dyn[threadIdx.x] = threadIdx.x * 2;
  __syncthreads();
  out[threadIdx.x] = fixed[threadIdx.x % 64] + dyn[blockDim.x - 1 - threadIdx.x];
}

__global__ void bump_managed() { atomicAdd(&m_counter, 1); }

__global__ void copy_table(int *out) { out[threadIdx.x] = d_table[threadIdx.x] * 3; }

// pmevent (a performance-monitor event) is not translated: the kernel is unavailable.
__global__ void unavailable(unsigned *out) {
  asm volatile("pmevent 1;");
  out[threadIdx.x] = threadIdx.x;
}

__global__ void asserts(int v) { assert(v == 0); }

int main() {
  // Versions, devices, properties, attributes.
  int version = 0, count = 0, dev = -1, value = 0;
  CK(cudaRuntimeGetVersion(&version));
  EXPECT(version == 13000);
  CK(cudaDriverGetVersion(&version));
  EXPECT(version >= 13000);
  CK(cudaGetDeviceCount(&count));
  EXPECT(count == 1);
  CK(cudaSetDevice(0));
  CK(cudaGetDevice(&dev));
  EXPECT(dev == 0);
  EXPECT(cudaSetDevice(1) == cudaErrorInvalidDevice);
  EXPECT(cudaGetLastError() == cudaErrorInvalidDevice);
  EXPECT(cudaGetLastError() == cudaSuccess);
  cudaDeviceProp prop;
  memset(&prop, 0, sizeof(prop));
  CK(cudaGetDeviceProperties(&prop, 0));
  EXPECT(prop.warpSize == 32 && prop.maxThreadsPerBlock == 1024 && prop.name[0]);
  EXPECT(prop.sharedMemPerBlock >= 32768 && prop.multiProcessorCount >= 1);
  CK(cudaDeviceGetAttribute(&value, cudaDevAttrWarpSize, 0));
  EXPECT(value == 32);
  CK(cudaDeviceGetAttribute(&value, cudaDevAttrMaxSharedMemoryPerBlock, 0));
  EXPECT(value == (int)prop.sharedMemPerBlock);
  size_t free_bytes = 0, total_bytes = 0;
  CK(cudaMemGetInfo(&free_bytes, &total_bytes));
  EXPECT(total_bytes > 0 && free_bytes <= total_bytes);

  // Errors: names and texts; a bad launch configuration is not sticky.
  EXPECT(strcmp(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue") == 0);
  EXPECT(strcmp(cudaGetErrorString(cudaSuccess), "no error") == 0);
  int *d = nullptr;
  const int n = 1000;
  CK(cudaMalloc(&d, n * sizeof(int)));
  fill<<<1, 2048>>>(d, n, 0);
#ifdef STATIC_CUDART
  // NVIDIA's static runtime leaves the check to the driver and passes on its answer, what
  // cuLaunchKernel documents for a block too large (CUDA_ERROR_INVALID_VALUE).
  const cudaError_t bad = cudaErrorInvalidValue;
#else
  const cudaError_t bad = cudaErrorInvalidConfiguration;
#endif
  EXPECT(cudaPeekAtLastError() == bad);
  EXPECT(cudaGetLastError() == bad);
  EXPECT(cudaGetLastError() == cudaSuccess);

  // cudaLaunchKernel with explicit arguments, and cudaMemcpyDefault.
  int base = 100, count_arg = n;
  void *args[] = {&d, &count_arg, &base};
  CK(cudaLaunchKernel((const void *)fill, dim3((n + 255) / 256), dim3(256), args, 0, 0));
  static int h[n];
  CK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDefault));
  for (int i = 0; i < n; ++i)
    EXPECT(h[i] == 100 + i);

  // cudaLaunchKernelEx with attributes: ones that change nothing here, a completion event, a
  // cluster of one block; a cluster of two blocks is refused.
  {
    cudaEvent_t done;
    CK(cudaEventCreate(&done));
    cudaLaunchAttribute attrs[3];
    attrs[0].id = cudaLaunchAttributePriority;
    attrs[0].val.priority = 0;
    attrs[1].id = cudaLaunchAttributeLaunchCompletionEvent;
    attrs[1].val.launchCompletionEvent.event = done;
    attrs[1].val.launchCompletionEvent.flags = 0;
    attrs[2].id = cudaLaunchAttributeClusterDimension;
    attrs[2].val.clusterDim.x = attrs[2].val.clusterDim.y = attrs[2].val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3((n + 127) / 128);
    config.blockDim = dim3(128);
    config.attrs = attrs;
    config.numAttrs = 3;
    CK(cudaLaunchKernelEx(&config, fill, d, n, 7));
    CK(cudaEventSynchronize(done));
    CK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
      EXPECT(h[i] == 7 + i);
    attrs[2].val.clusterDim.x = 2;
    EXPECT(cudaLaunchKernelEx(&config, fill, d, n, 8) == cudaErrorInvalidClusterSize);
    EXPECT(cudaGetLastError() == cudaErrorInvalidClusterSize);
    CK(cudaEventDestroy(done));
  }

  // 2D copies: a 3x5 window of a 10-wide host matrix into a pitched device buffer and back.
  int src[4 * 10], back[3 * 5];
  for (int i = 0; i < 40; ++i)
    src[i] = i;
  int *pitched = nullptr;
  CK(cudaMalloc(&pitched, 3 * 8 * sizeof(int)));
  CK(cudaMemcpy2D(pitched, 8 * sizeof(int), src + 1, 10 * sizeof(int), 5 * sizeof(int), 3,
                  cudaMemcpyHostToDevice));
  CK(cudaMemcpy2D(back, 5 * sizeof(int), pitched, 8 * sizeof(int), 5 * sizeof(int), 3,
                  cudaMemcpyDeviceToHost));
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 5; ++c)
      EXPECT(back[r * 5 + c] == r * 10 + c + 1);
  // Rows wider than a pitch: refused, but for a single row, whose pitch says nothing (NVIDIA's
  // cuSOLVER gesv sample copies a one-column right-hand side with a pitch of one element).
  EXPECT(cudaMemcpy2D(pitched, 8 * sizeof(int), src, sizeof(int), 5 * sizeof(int), 2,
                      cudaMemcpyHostToDevice) == cudaErrorInvalidPitchValue);
  EXPECT(cudaGetLastError() == cudaErrorInvalidPitchValue);
  CK(cudaMemcpy2D(pitched, 8 * sizeof(int), src + 20, sizeof(int), 8 * sizeof(int), 1,
                  cudaMemcpyDefault));
  CK(cudaMemcpy2D(back, sizeof(int), pitched, sizeof(int), 8 * sizeof(int), 1, cudaMemcpyDefault));
  for (int c = 0; c < 8; ++c)
    EXPECT(back[c] == 20 + c);

  // Symbols: address, size, copies at an offset.
  int table[16];
  for (int i = 0; i < 16; ++i)
    table[i] = i + 1;
  size_t size = 0;
  CK(cudaGetSymbolSize(&size, d_table));
  EXPECT(size == sizeof(table));
  void *table_addr = nullptr;
  CK(cudaGetSymbolAddress(&table_addr, d_table));
  EXPECT(table_addr != nullptr);
  CK(cudaMemcpyToSymbol(d_table, table, sizeof(table)));
  CK(cudaMemcpyToSymbol(d_table, table, 4 * sizeof(int), 12 * sizeof(int)));
  EXPECT(cudaMemcpyToSymbol(d_table, table, sizeof(table), 4) == cudaErrorInvalidValue);
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
  copy_table<<<1, 16>>>(d);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d, 16 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 16; ++i)
    EXPECT(h[i] == 3 * (i < 12 ? i + 1 : i - 11));

  // Function attributes: static shared memory, the dynamic limit, occupancy.
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, uses_shared));
  EXPECT(fa.maxThreadsPerBlock >= 256);
  EXPECT(fa.maxDynamicSharedSizeBytes > 0);
  CK(cudaFuncSetAttribute(uses_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 4096));
  CK(cudaFuncGetAttributes(&fa, uses_shared));
  EXPECT(fa.maxDynamicSharedSizeBytes == 4096);
  EXPECT(cudaFuncSetAttribute(uses_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 1 << 30) ==
         cudaErrorInvalidValue);
  CK(cudaPeekAtLastError() == cudaErrorInvalidValue ? cudaSuccess : cudaErrorUnknown);
  cudaGetLastError();
  int blocks = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, uses_shared, 256, 1024));
  EXPECT(blocks >= 1);
  // A launch past the function's limit is refused, not run.
  uses_shared<<<1, 256, 4097>>>(d);
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
  uses_shared<<<1, 256, 256 * sizeof(int)>>>(d);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d, 256 * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 256; ++i)
    EXPECT(h[i] == i % 64 + 2 * (255 - i));
  // More dynamic shared memory than a block has.
  uses_shared<<<1, 256, prop.sharedMemPerBlock + 1>>>(d);
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue);

  // __managed__ variables are read and written by both sides.
  EXPECT(m_counter == 5);
  bump_managed<<<2, 64>>>();
  CK(cudaDeviceSynchronize());
  EXPECT(m_counter == 5 + 128);

  // Streams and events: queries after the work is done.
  cudaStream_t s;
  cudaEvent_t e0, e1;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreateWithFlags(&e1, cudaEventDisableTiming));
  CK(cudaEventRecord(e0, s));
  fill<<<4, 256, 0, s>>>(d, n, 7);
  CK(cudaEventRecord(e1, s));
  CK(cudaStreamSynchronize(s));
  CK(cudaStreamQuery(s));
  CK(cudaEventQuery(e1));
  float ms = 0;
  EXPECT(cudaEventElapsedTime(&ms, e0, e1) == cudaErrorInvalidResourceHandle);
  cudaGetLastError();
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  CK(cudaStreamDestroy(s));

  // Pitched memory, 2D copies and memsets.
  {
    const int w = 100, hgt = 7;
    int *pm = nullptr;
    size_t pitch = 0;
    CK(cudaMallocPitch((void **)&pm, &pitch, w * sizeof(int), hgt));
    EXPECT(pitch >= w * sizeof(int) && pitch % 256 == 0);
    CK(cudaMemset2D(pm, pitch, 0x7f, w * sizeof(int), hgt));
    int rows[hgt][w];
    for (int r = 0; r < hgt; ++r)
      for (int c = 0; c < w; ++c)
        rows[r][c] = r * 1000 + c;
    cudaStream_t ps;
    CK(cudaStreamCreateWithFlags(&ps, cudaStreamNonBlocking));
    unsigned flags = 0;
    CK(cudaStreamGetFlags(ps, &flags));
    EXPECT(flags == cudaStreamNonBlocking);
    // Stream ids are unique, the default stream's among them; every stream is device 0's.
    cudaStream_t other;
    CK(cudaStreamCreate(&other));
    unsigned long long id1 = 0, id2 = 0, id0 = 0;
    CK(cudaStreamGetId(ps, &id1));
    CK(cudaStreamGetId(other, &id2));
    CK(cudaStreamGetId(0, &id0));
    EXPECT(id1 != id2 && id0 != id1 && id0 != id2);
    int streamDevice = -1;
    CK(cudaStreamGetDevice(other, &streamDevice));
    EXPECT(streamDevice == 0);
    CK(cudaStreamDestroy(other));
    // A kernel's name and its function handle.
    const char *fillName = nullptr;
    CK(cudaFuncGetName(&fillName, (const void *)fill));
    EXPECT(strcmp(fillName, "_Z4fillPiii") == 0);
    cudaFunction_t fillFn = nullptr;
    CK(cudaGetFuncBySymbol(&fillFn, (const void *)fill));
    EXPECT(fillFn != nullptr);
    // Rows 1..5 of the host array into rows 1..5 of the pitched one; rows 0 and 6 keep the fill.
    CK(cudaMemcpy2DAsync((char *)pm + pitch, pitch, rows[1], w * sizeof(int), w * sizeof(int), 5,
                         cudaMemcpyHostToDevice, ps));
    int back[hgt][w];
    CK(cudaMemcpy2DAsync(back, w * sizeof(int), pm, pitch, w * sizeof(int), hgt,
                         cudaMemcpyDeviceToHost, ps));
    // A host function runs after the stream's earlier work, and before its later work.
    static int seen = -1;
    struct HostFn {
      static void run(void *p) { seen = ((int *)p)[w * 3 + 5]; }
    };
    CK(cudaLaunchHostFunc(ps, HostFn::run, back));
    CK(cudaStreamSynchronize(ps));
    EXPECT(seen == 3005);
    for (int r = 0; r < hgt; ++r)
      for (int c = 0; c < w; ++c)
        EXPECT(back[r][c] == (r == 0 || r == hgt - 1 ? 0x7f7f7f7f : r * 1000 + c));
    CK(cudaStreamDestroy(ps));

    // Pointer attributes of each kind of memory.
    cudaPointerAttributes pa;
    CK(cudaPointerGetAttributes(&pa, (char *)pm + 10));
    EXPECT(pa.type == cudaMemoryTypeDevice && pa.devicePointer == (char *)pm + 10 &&
           pa.hostPointer == nullptr);
    int *pinned = nullptr;
    CK(cudaMallocHost(&pinned, 64));
    CK(cudaPointerGetAttributes(&pa, pinned));
    EXPECT(pa.type == cudaMemoryTypeHost && pa.hostPointer == pinned);
    int plain = 0;
    CK(cudaPointerGetAttributes(&pa, &plain));
    EXPECT(pa.type == cudaMemoryTypeUnregistered);
    CK(cudaFreeHost(pinned));
    CK(cudaFree(pm));
  }

  // Limits are kept; there are no peers.
  {
    size_t stack = 0;
    CK(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
    CK(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
    EXPECT(stack == 4096);
    EXPECT(cudaDeviceGetLimit(&stack, (cudaLimit)99) == cudaErrorInvalidValue);
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
    int peer = 1;
    CK(cudaDeviceCanAccessPeer(&peer, 0, 0));
    EXPECT(peer == 0);
  }

  // A kernel that cannot run: a non-sticky error that names it; everything else goes on.
  unsigned *du = nullptr;
  CK(cudaMalloc(&du, 32 * sizeof(unsigned)));
  unavailable<<<1, 32>>>(du);
  cudaError_t err = cudaGetLastError();
  EXPECT(err == cudaErrorNoKernelImageForDevice);
#ifndef STATIC_CUDART
  // The static runtime's error texts are its own: the reason is on stderr only.
  EXPECT(strstr(cudaGetErrorString(err), "unavailable") != nullptr);
#endif
  printf("runtime_api: the unavailable kernel's error: %s\n", cudaGetErrorString(err));
  EXPECT(cudaGetLastError() == cudaSuccess);
  fill<<<4, 256>>>(d, n, 1);
  CK(cudaGetLastError());
  CK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(h[n - 1] == n);
  CK(cudaFree(du));
  CK(cudaFree(pitched));
  CK(cudaFree(d));

  // A failed device assertion is sticky: every later call returns it, and makes it the last
  // error again (cudaGetLastError resets it, as NVIDIA's runtime does).
  asserts<<<1, 1>>>(1);
  cudaError_t sticky = cudaDeviceSynchronize();
  EXPECT(sticky == cudaErrorAssert);
  EXPECT(cudaMalloc(&d, 4) == cudaErrorAssert);
  EXPECT(cudaGetLastError() == cudaErrorAssert);
  EXPECT(cudaGetLastError() == cudaSuccess);
  EXPECT(cudaMalloc(&d, 4) == cudaErrorAssert);
  EXPECT(cudaPeekAtLastError() == cudaErrorAssert);

  printf("PASS %s\n", kName);
  return 0;
}
