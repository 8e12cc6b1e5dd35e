// host_overlap: kernel launches return before the kernel ends, so the host runs on meanwhile. A
// kernel waits on a flag in mapped pinned memory that the host sets only after it has queued more
// work behind it on the same stream (a copy, a kernel, an event) and, on the legacy default
// stream, prefetches of managed memory (cuda-samples' UnifiedMemoryPerf holds its stream this
// way). While the flag is unset the stream and its event are not ready; once set, everything
// queued ran in order.
#include <cstdio>
#include <cuda_runtime.h>

static const char *kName = "host_overlap";

#include "../check.h"

__global__ void waitForFlag(volatile unsigned *flag, unsigned *seen) {
  while (flag[0] == 0) {
  }
  *seen = flag[0];
}

__global__ void addSeen(const unsigned *seen, const unsigned *in, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = in[i] + *seen;
}

int main() {
  const int n = 4096;
  unsigned *flag = nullptr, *hostIn = nullptr, *managed = nullptr;
  unsigned *seen = nullptr, *in = nullptr, *out = nullptr;
  CK(cudaHostAlloc(&flag, sizeof(unsigned), cudaHostAllocMapped));
  CK(cudaMallocHost(&hostIn, n * sizeof(unsigned)));
  CK(cudaMallocManaged(&managed, n * sizeof(unsigned)));
  CK(cudaMalloc(&seen, sizeof(unsigned)));
  CK(cudaMalloc(&in, n * sizeof(unsigned)));
  CK(cudaMalloc(&out, n * sizeof(unsigned)));
  for (int i = 0; i < n; ++i) {
    hostIn[i] = unsigned(i * 3);
    managed[i] = unsigned(i);
  }
  unsigned *deviceFlag = nullptr;
  CK(cudaHostGetDevicePointer(&deviceFlag, flag, 0));

  cudaStream_t stream;
  cudaEvent_t start, done;
  CK(cudaStreamCreate(&stream));
  CK(cudaEventCreate(&start));
  CK(cudaEventCreate(&done));
  int concurrentManaged = 0;
  CK(cudaDeviceGetAttribute(&concurrentManaged, cudaDevAttrConcurrentManagedAccess, 0));

  for (int round = 1; round <= 3; ++round) {
    *flag = 0;
    CK(cudaEventRecord(start, stream));
    waitForFlag<<<1, 1, 0, stream>>>(deviceFlag, seen);
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(in, hostIn, n * sizeof(unsigned), cudaMemcpyHostToDevice, stream));
    addSeen<<<(n + 255) / 256, 256, 0, stream>>>(seen, in, out, n);
    CK(cudaGetLastError());
    CK(cudaEventRecord(done, stream));
    // Managed memory moves (or not) on the legacy stream, which waits for `stream` on the
    // device, never here on the host.
    if (concurrentManaged) {
      cudaMemLocation host = {};
      host.type = cudaMemLocationTypeHost;
      CK(cudaMemPrefetchAsync(managed, n * sizeof(unsigned), host, 0, 0));
    }
    // The first kernel cannot end before the flag is set.
    EXPECT(cudaStreamQuery(stream) == cudaErrorNotReady);
    EXPECT(cudaEventQuery(done) == cudaErrorNotReady);
    *flag = unsigned(round);
    CK(cudaStreamSynchronize(stream));
    CK(cudaEventSynchronize(done));
    EXPECT(cudaEventQuery(done) == cudaSuccess);
    float ms = -1.0f;
    CK(cudaEventElapsedTime(&ms, start, done));
    EXPECT(ms >= 0.0f);

    static unsigned got[n];
    CK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
      EXPECT(got[i] == unsigned(i * 3 + round));
  }
  CK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i)
    EXPECT(managed[i] == unsigned(i));

  CK(cudaEventDestroy(start));
  CK(cudaEventDestroy(done));
  CK(cudaStreamDestroy(stream));
  CK(cudaFree(out));
  CK(cudaFree(in));
  CK(cudaFree(seen));
  CK(cudaFree(managed));
  CK(cudaFreeHost(hostIn));
  CK(cudaFreeHost(flag));
  printf("PASS %s\n", kName);
  return 0;
}
