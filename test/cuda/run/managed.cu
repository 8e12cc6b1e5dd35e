// managed: managed memory (cudaMallocManaged and a __managed__ variable) written by the host and
// by kernels in turn, attached to a stream, prefetched and advised, with the range attributes
// reporting what was asked; a pointer that is not managed is refused.
#include <cstdio>
#include <cuda_runtime.h>

static const char *kName = "managed";

#include "../check.h"

__managed__ int m_total = 0;

__global__ void bump(int *data, int n, int by) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    data[i] += by;
    atomicAdd(&m_total, 1);
  }
}

int main() {
  int device = 0, managedOk = 0;
  CK(cudaGetDevice(&device));
  CK(cudaDeviceGetAttribute(&managedOk, cudaDevAttrManagedMemory, device));
  if (!managedOk) {
    printf("WAIVED %s: no managed memory\n", kName);
    return 2;
  }
  const int n = 10000;
  int *data = nullptr;
  CK(cudaMallocManaged(&data, n * sizeof(int)));
  for (int i = 0; i < n; ++i)
    data[i] = i;

  cudaStream_t s;
  CK(cudaStreamCreate(&s));
  CK(cudaStreamAttachMemAsync(s, data, 0, cudaMemAttachSingle));
  cudaMemLocation dev = {cudaMemLocationTypeDevice, device};
  cudaMemLocation host = {cudaMemLocationTypeHost, 0};
  CK(cudaMemAdvise(data, n * sizeof(int), cudaMemAdviseSetReadMostly, dev));
  CK(cudaMemAdvise(data, n * sizeof(int), cudaMemAdviseSetPreferredLocation, dev));
  CK(cudaMemAdvise(data, n * sizeof(int), cudaMemAdviseSetAccessedBy, dev));
  CK(cudaMemPrefetchAsync(data, n * sizeof(int), dev, 0, s));

  int readMostly = 0, preferred = -5, lastPrefetch = -5, accessedBy[3] = {7, 7, 7};
  CK(cudaMemRangeGetAttribute(&readMostly, sizeof readMostly, cudaMemRangeAttributeReadMostly, data,
                              n * sizeof(int)));
  CK(cudaMemRangeGetAttribute(&preferred, sizeof preferred, cudaMemRangeAttributePreferredLocation,
                              data, n * sizeof(int)));
  CK(cudaMemRangeGetAttribute(&lastPrefetch, sizeof lastPrefetch,
                              cudaMemRangeAttributeLastPrefetchLocation, data, n * sizeof(int)));
  CK(cudaMemRangeGetAttribute(accessedBy, sizeof accessedBy, cudaMemRangeAttributeAccessedBy, data,
                              n * sizeof(int)));
  EXPECT(readMostly == 1 && preferred == device && lastPrefetch == device);
  EXPECT(accessedBy[0] == device && accessedBy[1] == cudaInvalidDeviceId &&
         accessedBy[2] == cudaInvalidDeviceId);

  bump<<<(n + 255) / 256, 256, 0, s>>>(data, n, 5);
  CK(cudaGetLastError());
  CK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i)
    EXPECT(data[i] == i + 5);
  EXPECT(m_total == n);

  // The host's turn, then the device's again.
  CK(cudaMemPrefetchAsync(data, n * sizeof(int), host, 0, s));
  CK(cudaStreamSynchronize(s));
  CK(cudaMemRangeGetAttribute(&lastPrefetch, sizeof lastPrefetch,
                              cudaMemRangeAttributeLastPrefetchLocation, data, n * sizeof(int)));
  EXPECT(lastPrefetch == cudaCpuDeviceId);
  for (int i = 0; i < n; ++i)
    data[i] *= 2;
  m_total = 0;
  CK(cudaMemAdvise(data, n * sizeof(int), cudaMemAdviseUnsetReadMostly, dev));
  CK(cudaMemRangeGetAttribute(&readMostly, sizeof readMostly, cudaMemRangeAttributeReadMostly, data,
                              n * sizeof(int)));
  EXPECT(readMostly == 0);
  bump<<<(n + 255) / 256, 256, 0, s>>>(data, n, -1);
  CK(cudaStreamSynchronize(s));
  for (int i = 0; i < n; ++i)
    EXPECT(data[i] == 2 * (i + 5) - 1);
  EXPECT(m_total == n);

  // Memory that is not managed has no managed attributes.
  int *plain = nullptr;
  CK(cudaMalloc(&plain, 64));
  EXPECT(cudaMemAdvise(plain, 64, cudaMemAdviseSetReadMostly, dev) == cudaErrorInvalidValue);
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
  EXPECT(cudaMemRangeGetAttribute(&readMostly, sizeof readMostly, cudaMemRangeAttributeReadMostly,
                                  plain, 64) == cudaErrorInvalidValue);
  cudaGetLastError();
  CK(cudaFree(plain));
  CK(cudaStreamDestroy(s));
  CK(cudaFree(data));
  printf("PASS %s\n", kName);
  return 0;
}
