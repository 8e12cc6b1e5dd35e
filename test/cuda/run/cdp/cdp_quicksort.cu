// cdp_quicksort: CUDA dynamic parallelism, a recursive quicksort. Each partition launches a
// kernel for each of its halves, in streams of its own, down to a depth of 8, below which a
// selection sort finishes the range; the host sees the sort done when the first grid is, and
// checks the order, the depth reached and that every element is kept.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static const char *kName = "cdp_quicksort";

#include "../../check.h"

constexpr int kMaxDepth = 8;
constexpr int kSelectionSortBelow = 32;

__device__ int d_deepest;
__device__ unsigned d_launchErrors;

__device__ void selectionSort(unsigned *data, int left, int right) {
  for (int i = left; i <= right; ++i) {
    int best = i;
    for (int j = i + 1; j <= right; ++j)
      if (data[j] < data[best])
        best = j;
    unsigned t = data[i];
    data[i] = data[best];
    data[best] = t;
  }
}

__global__ void quicksort(unsigned *data, int left, int right, int depth) {
  atomicMax(&d_deepest, depth);
  if (depth >= kMaxDepth || right - left < kSelectionSortBelow) {
    selectionSort(data, left, right);
    return;
  }
  unsigned pivot = data[(left + right) / 2];
  int l = left, r = right;
  while (l <= r) {
    while (data[l] < pivot)
      ++l;
    while (data[r] > pivot)
      --r;
    if (l <= r) {
      unsigned t = data[l];
      data[l++] = data[r];
      data[r--] = t;
    }
  }
  if (left < r) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    quicksort<<<1, 1, 0, s>>>(data, left, r, depth + 1);
    if (cudaGetLastError() != cudaSuccess)
      atomicAdd(&d_launchErrors, 1);
    cudaStreamDestroy(s);
  }
  if (l < right) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    quicksort<<<1, 1, 0, s>>>(data, l, right, depth + 1);
    if (cudaGetLastError() != cudaSuccess)
      atomicAdd(&d_launchErrors, 1);
    cudaStreamDestroy(s);
  }
}

int main() {
  const int n = 4096;
  unsigned *host = new unsigned[n];
  unsigned long long sum = 0, xorAll = 0;
  srand(17);
  for (int i = 0; i < n; ++i) {
    host[i] = unsigned(rand()) % 100000u;
    sum += host[i];
    xorAll ^= host[i];
  }
  unsigned *d = nullptr;
  CK(cudaMalloc(&d, n * sizeof(unsigned)));
  CK(cudaMemcpy(d, host, n * sizeof(unsigned), cudaMemcpyHostToDevice));
  quicksort<<<1, 1>>>(d, 0, n - 1, 0);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(host, d, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned long long sum2 = 0, xor2 = 0;
  for (int i = 0; i < n; ++i) {
    sum2 += host[i];
    xor2 ^= host[i];
    if (i)
      EXPECT(host[i - 1] <= host[i]);
  }
  EXPECT(sum2 == sum && xor2 == xorAll);
  int deepest = -1;
  unsigned errors = 1;
  CK(cudaMemcpyFromSymbol(&deepest, d_deepest, sizeof deepest));
  CK(cudaMemcpyFromSymbol(&errors, d_launchErrors, sizeof errors));
  EXPECT(deepest == kMaxDepth);
  EXPECT(errors == 0);
  CK(cudaFree(d));
  delete[] host;
  printf("PASS %s\n", kName);
  return 0;
}
