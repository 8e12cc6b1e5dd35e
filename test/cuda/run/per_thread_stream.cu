// per_thread_stream: built with --default-stream per-thread. Four host threads each work on their
// own default stream (the null stream, which is cudaStreamPerThread here): kernels, copies and
// a captured graph per thread, checked; the streams are distinct per thread and from the legacy
// default stream, which still orders after them.
#include <atomic>
#include <cstdio>
#include <cuda_runtime.h>
#include <thread>
#include <vector>

static const char *kName = "per_thread_stream";

#include "../check.h"

__global__ void fill(int *out, int n, int value) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = value + i;
}

__global__ void addOne(int *data, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    data[i] += 1;
}

static const int n = 4096;
static const int threads = 4;

// One host thread's work: rounds of kernel and copy on the null stream, then a graph captured
// from cudaStreamPerThread. Returns 0 on success.
static int work(int t, unsigned long long *id) {
  CK(cudaStreamGetId(cudaStreamPerThread, id));
  unsigned long long nullId = 0;
  CK(cudaStreamGetId(0, &nullId));
  EXPECT(nullId == *id); // the null stream is the per-thread one in this build
  int *d = nullptr, *h = nullptr;
  CK(cudaMalloc(&d, n * sizeof(int)));
  CK(cudaMallocHost(&h, n * sizeof(int)));
  for (int round = 0; round < 20; ++round) {
    int value = t * 100000 + round * 1000;
    fill<<<n / 256, 256>>>(d, n, value);
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, 0));
    CK(cudaStreamSynchronize(0));
    for (int i = 0; i < n; ++i)
      if (h[i] != value + i) {
        printf("FAIL %s: thread %d round %d element %d: %d, want %d\n", kName, t, round, i, h[i],
               value + i);
        return 1;
      }
  }
  CK(cudaStreamQuery(cudaStreamPerThread));

  // Each thread captures its own stream at the same time as the others (thread-local mode).
  cudaGraph_t g;
  CK(cudaStreamBeginCapture(cudaStreamPerThread, cudaStreamCaptureModeThreadLocal));
  fill<<<n / 256, 256>>>(d, n, t);
  addOne<<<n / 256, 256>>>(d, n);
  CK(cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, 0));
  CK(cudaStreamEndCapture(cudaStreamPerThread, &g));
  cudaGraphExec_t exec;
  CK(cudaGraphInstantiate(&exec, g, 0));
  for (int launch = 0; launch < 5; ++launch) {
    h[0] = -1;
    CK(cudaGraphLaunch(exec, 0));
    CK(cudaStreamSynchronize(0));
    for (int i = 0; i < n; ++i)
      if (h[i] != t + i + 1) {
        printf("FAIL %s: thread %d graph launch %d element %d: %d\n", kName, t, launch, i, h[i]);
        return 1;
      }
  }
  CK(cudaGraphExecDestroy(exec));
  CK(cudaGraphDestroy(g));
  CK(cudaFreeHost(h));
  CK(cudaFree(d));
  return 0;
}

int main() {
  CK(cudaFree(nullptr));
  std::vector<unsigned long long> ids(threads);
  std::atomic<int> failures{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      if (work(t, &ids[t]))
        ++failures;
    });
  for (auto &th : pool)
    th.join();
  if (failures)
    return 1;
  unsigned long long legacyId = 0;
  CK(cudaStreamGetId(cudaStreamLegacy, &legacyId));
  for (int t = 0; t < threads; ++t) {
    EXPECT(ids[t] != legacyId);
    for (int u = 0; u < t; ++u)
      EXPECT(ids[t] != ids[u]);
  }

  // The legacy default stream waits for a per-thread stream's work (both are blocking).
  int *d = nullptr;
  CK(cudaMalloc(&d, n * sizeof(int)));
  fill<<<n / 256, 256>>>(d, n, 7); // this thread's stream
  addOne<<<n / 256, 256, 0, cudaStreamLegacy>>>(d, n);
  std::vector<int> h(n);
  CK(cudaMemcpyAsync(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, cudaStreamLegacy));
  CK(cudaStreamSynchronize(cudaStreamLegacy));
  for (int i = 0; i < n; ++i)
    EXPECT(h[i] == 7 + i + 1);
  CK(cudaFree(d));
  printf("PASS %s\n", kName);
  return 0;
}
