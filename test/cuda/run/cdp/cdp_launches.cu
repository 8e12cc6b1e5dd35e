// cdp_launches: CUDA dynamic parallelism (CUDA 12's CDP2). A parent launches a child per block in
// the block's NULL stream and checks their results in a tail-launched kernel; fire-and-forget
// launches whose results a tail launch sees; launches in a device stream keep their order, and a
// cudaMemcpyAsync after a child copies what it wrote; device-side cudaGetDevice,
// cudaDeviceGetAttribute, cudaGetLastError/cudaPeekAtLastError; recursion to the nesting limit
// (depth 24) and the launch past it failing; the pending-launch limit
// (cudaLimitDevRuntimePendingLaunchCount) refusing launches with the launch error in the parent;
// a launch of a kernel the device cannot run failing alone.
#include <cstdio>
#include <cuda_runtime.h>

static const char *kName = "cdp_launches";

#include "../../check.h"

constexpr int kBlocks = 8, kThreads = 64;

__global__ void fill(int *out, int base) { out[threadIdx.x] = base + int(threadIdx.x); }

// Runs after the parent grid and all it launched: every child's values are there.
__global__ void checkBlock(const int *out, int base, int *ok) {
  __shared__ int bad;
  if (threadIdx.x == 0)
    bad = 0;
  __syncthreads();
  if (out[threadIdx.x] != base + int(threadIdx.x))
    atomicAdd(&bad, 1);
  __syncthreads();
  if (threadIdx.x == 0)
    *ok = bad == 0;
}

__global__ void perBlockParent(int *out, int *ok, int *launchErrors) {
  if (threadIdx.x != 0)
    return;
  int *mine = out + blockIdx.x * kThreads;
  fill<<<1, kThreads>>>(mine, 1000 * int(blockIdx.x));
  checkBlock<<<1, kThreads, 0, cudaStreamTailLaunch>>>(mine, 1000 * int(blockIdx.x),
                                                       ok + blockIdx.x);
  if (cudaGetLastError() != cudaSuccess)
    atomicAdd(launchErrors, 1);
}

__global__ void add(int *p, int v) { atomicAdd(p, v); }
__global__ void expectSum(const int *p, int expected, int *ok) { *ok = *p == expected; }

__global__ void fireAndForget(int *sum, int *ok) {
  for (int i = 1; i <= 10; ++i)
    add<<<1, 1, 0, cudaStreamFireAndForget>>>(sum, i);
  expectSum<<<1, 1, 0, cudaStreamTailLaunch>>>(sum, 55, ok);
}

__global__ void scale(int *p, int n, int factor) {
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    p[i] *= factor;
}

// In one stream: fill, then scale by 3, then by 5, then a copy of the result.
__global__ void streamOrder(int *a, int *copy, int n, int *status) {
  cudaStream_t s;
  if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) {
    status[0] = 1;
    return;
  }
  fill<<<1, n, 0, s>>>(a, 1);
  scale<<<1, 32, 0, s>>>(a, n, 3);
  scale<<<1, 32, 0, s>>>(a, n, 5);
  status[1] = cudaMemcpyAsync(copy, a, n * sizeof(int), cudaMemcpyDeviceToDevice, s);
  status[2] = cudaStreamDestroy(s);
}

__global__ void queries(int *out) {
  int device = -1;
  out[0] = cudaGetDevice(&device);
  out[1] = device;
  int value = -1;
  out[2] = cudaDeviceGetAttribute(&value, cudaDevAttrMaxThreadsPerBlock, device);
  out[3] = value;
  out[4] = cudaDeviceGetAttribute(&value, cudaDevAttrMultiProcessorCount, device);
  out[5] = value;
  out[6] = cudaGetLastError();
}

__device__ int d_reached[32];
__device__ int d_depthError[32];

__global__ void deep(int depth) {
  d_reached[depth] = 1;
  if (depth == 31)
    return;
  deep<<<1, 1>>>(depth + 1);
  d_depthError[depth] = cudaPeekAtLastError();
  cudaGetLastError();
}

__device__ int d_ran;
__global__ void count() { atomicAdd(&d_ran, 1); }

__global__ void manyLaunches(int tries, int *launched, int *pendingErrors) {
  for (int i = 0; i < tries; ++i) {
    count<<<1, 1>>>();
    cudaError_t e = cudaGetLastError();
    if (e == cudaSuccess)
      ++*launched;
    else if (e == cudaErrorLaunchPendingCountExceeded)
      ++*pendingErrors;
  }
}

__device__ __noinline__ void stopHere() { asm volatile("exit;"); }
__global__ void cannotRun(int *ran) {
  *ran = 1;
  stopHere();
}
__global__ void tryBroken(int *ran, int *error, int *siblingRan) {
  cannotRun<<<1, 1>>>(ran);
  *error = cudaGetLastError();
  fill<<<1, 1>>>(siblingRan, 7);
}

template <typename T> static T readSymbol(const T &symbol) {
  T v{};
  cudaMemcpyFromSymbol(&v, symbol, sizeof v);
  return v;
}

int main() {
  int *d = nullptr;
  CK(cudaMalloc(&d, 1 << 20));
  CK(cudaMemset(d, 0, 1 << 20));
  int host[4096];

  // A child per block, checked by each block's tail launch.
  int *out = d, *ok = d + 4096, *errs = d + 4200;
  perBlockParent<<<kBlocks, kThreads>>>(out, ok, errs);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(host, ok, (kBlocks + 1) * sizeof(int), cudaMemcpyDeviceToHost));
  for (int b = 0; b < kBlocks; ++b)
    EXPECT(host[b] == 1);
  CK(cudaMemcpy(host, errs, sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(host[0] == 0);
  CK(cudaMemcpy(host, out, kBlocks * kThreads * sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(host[5 * kThreads + 9] == 5009);

  // Fire-and-forget work is done before the tail launch runs.
  int *sum = d + 8192, *fok = d + 8193;
  fireAndForget<<<1, 1>>>(sum, fok);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(host, sum, 2 * sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(host[0] == 55 && host[1] == 1);

  // Stream order, and a device-side copy after the launches.
  const int n = 256;
  int *a = d + 16384, *copy = d + 20480, *status = d + 24576;
  streamOrder<<<1, 1>>>(a, copy, n, status);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(host, copy, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    EXPECT(host[i] == (1 + i) * 15);
  CK(cudaMemcpy(host, status, 3 * sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(host[0] == 0 && host[1] == cudaSuccess && host[2] == cudaSuccess);

  // What device code asks of the device.
  int *q = d + 32768;
  queries<<<1, 1>>>(q);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(host, q, 7 * sizeof(int), cudaMemcpyDeviceToHost));
  int hostDevice = -1, maxThreads = 0, units = 0;
  CK(cudaGetDevice(&hostDevice));
  CK(cudaDeviceGetAttribute(&maxThreads, cudaDevAttrMaxThreadsPerBlock, hostDevice));
  CK(cudaDeviceGetAttribute(&units, cudaDevAttrMultiProcessorCount, hostDevice));
  EXPECT(host[0] == cudaSuccess && host[1] == hostDevice);
  EXPECT(host[2] == cudaSuccess && host[3] == maxThreads);
  EXPECT(host[4] == cudaSuccess && host[5] == units);
  EXPECT(host[6] == cudaSuccess);

  // Nesting: depth 24 is the deepest a launch reaches.
  deep<<<1, 1>>>(0);
  CK(cudaDeviceSynchronize());
  int reached[32], depthError[32];
  CK(cudaMemcpyFromSymbol(reached, d_reached, sizeof reached));
  CK(cudaMemcpyFromSymbol(depthError, d_depthError, sizeof depthError));
  for (int depth = 0; depth < 32; ++depth) {
    EXPECT(reached[depth] == (depth <= 24));
    if (depth < 24)
      EXPECT(depthError[depth] == cudaSuccess);
    if (depth == 24)
      EXPECT(depthError[depth] == cudaErrorLaunchMaxDepthExceeded);
  }

  // The pending-launch limit.
  size_t limit = 0;
  CK(cudaDeviceGetLimit(&limit, cudaLimitDevRuntimePendingLaunchCount));
  EXPECT(limit == 2048);
  CK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 16));
  CK(cudaDeviceGetLimit(&limit, cudaLimitDevRuntimePendingLaunchCount));
  EXPECT(limit == 16);
  int *launched = d + 40000, *pendingErrors = d + 40001;
  manyLaunches<<<1, 1>>>(100, launched, pendingErrors);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(host, launched, 2 * sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT(host[0] >= 1 && host[1] >= 1 && host[0] + host[1] == 100);
  EXPECT(readSymbol(d_ran) == host[0]);
  CK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, 2048));

  // A kernel the device cannot run fails its own launch, not its parent's others.
  int *ran = d + 50000, *error = d + 50001, *siblingRan = d + 50002;
  tryBroken<<<1, 1>>>(ran, error, siblingRan);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(host, ran, 3 * sizeof(int), cudaMemcpyDeviceToHost));
  EXPECT((host[1] != cudaSuccess && host[0] == 0) || (host[1] == cudaSuccess && host[0] == 1));
  EXPECT(host[2] == 7);

  CK(cudaFree(d));
  printf("PASS %s\n", kName);
  return 0;
}
