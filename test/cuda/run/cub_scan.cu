// cub_scan: cub::DeviceScan::ExclusiveSum over many tiles, as thrust and real programs call it.
// CUB's single-pass scan publishes each tile's aggregate and inclusive prefix through a status
// word in global memory, and each tile's first warp looks back over its predecessors' words until
// it finds a prefix (decoupled look-back), sleeping while one is not ready. One tile (4096 ints)
// never looks back; a million ints do, across every worker of the device, and how far back a
// tile must look depends on the workers' timing. Thread 0 publishes its tile alone before the
// warp sleeps and reads: on wave32 the warp's reduction once ran without it (a sleeping lane was
// not waited for), dropping a window of 31 tiles from the prefix.
#include <cstdio>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>
#include <vector>

static const char *kName = "cub_scan";

#include "../check.h"

static int scan(int n, unsigned seed) {
  std::vector<int> in(n), out(n);
  for (int i = 0; i < n; ++i) {
    seed = seed * 1664525u + 1013904223u;
    in[i] = int(seed >> 24) - 100; // negative and positive values: a lost tile shows
  }
  int *d_in = nullptr, *d_out = nullptr;
  void *temp = nullptr;
  size_t temp_bytes = 0;
  CK(cudaMalloc(&d_in, n * sizeof(int)));
  CK(cudaMalloc(&d_out, n * sizeof(int)));
  CK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  CK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, d_in, d_out, n));
  CK(cudaMalloc(&temp, temp_bytes));
  CK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, d_in, d_out, n));
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
  int sum = 0, wrong = 0, first = -1;
  for (int i = 0; i < n; ++i) {
    if (out[i] != sum && wrong++ == 0)
      first = i;
    sum += in[i];
  }
  if (wrong) {
    printf("FAIL %s: %d of %d sums wrong, the first at %d\n", kName, wrong, n, first);
    return 1;
  }
  CK(cudaFree(temp));
  CK(cudaFree(d_out));
  CK(cudaFree(d_in));
  return 0;
}

int main() {
  if (scan(4096, 1) || scan(1 << 20, 2) || scan(1000003, 3))
    return 1;
  printf("PASS %s\n", kName);
  return 0;
}
