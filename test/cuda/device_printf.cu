// device_printf: printf from device code with many conversions (%d %i %u %x %X %o %ld %lld
// %llu %llx %f %.3f %e %g %s %c %% and width/precision/flags), from one thread in a fixed
// order and from thread 0 of several blocks (any order). Lines carry the tag "PRINTF:" so a
// harness can pick them out of stdout. The host only checks that the kernels ran and that
// printf reported no error.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static const char *kName = "device_printf";

#include "check.h"

__device__ const char *d_words[3] = {"alpha", "beta", "gamma"};

__global__ void say(int *ran, int *errors, int blocks_to_talk) {
  const int t = threadIdx.x, b = blockIdx.x;
  if (b == 0 && t == 0) {
    int e = 0;
    e |= printf("PRINTF: ints %d %i %u %x %X %o\n", -42, 7, 4000000000u, 0xbeefu, 0xcafeu, 8) < 0;
    e |= printf("PRINTF: longs %ld %lld %llu %llx\n", -1234567890123L, -9000000000000000000LL,
                18000000000000000000ULL, 0x123456789abcdefULL) < 0;
    e |= printf("PRINTF: floats %f %.3f %e %g %g\n", 1.5, 3.14159265, 12345.678, 0.0001, 1e20) < 0;
    e |= printf("PRINTF: float-promoted %.2f double %.10f\n", 2.25f, 1.0 / 3.0) < 0;
    e |= printf("PRINTF: strings [%s] [%s] char %c%c%c pct 100%%\n", "literal", d_words[2], 'o',
                'k', '!') < 0;
    e |= printf("PRINTF: widths [%8.3f] [%-5d] [%05d] [%+d] [%10s] [%-6s]\n", 3.14159, 42, 42, 7,
                "right", "left") < 0;
    e |= printf("PRINTF: no arguments\n") < 0;
    e |= printf("PRINTF: many %d %d %d %d %d %d %d %d %d %d %d %d\n", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                11, 12) < 0;
    if (e)
      atomicAdd(errors, 1);
  }
  if (t == 0 && b < blocks_to_talk) {
    if (printf("PRINTF: block %d of %d says %s (blockDim %d)\n", b, gridDim.x, d_words[b % 3],
               blockDim.x) < 0)
      atomicAdd(errors, 1);
  }
  // Divergent printf inside a warp: only odd lanes of warp 1 of block 1 print.
  if (b == 1 && t >= 32 && t < 64 && (t & 1)) {
    if (printf("PRINTF: lane %d value %.1f\n", t & 31, (double)(t * 0.5f)) < 0)
      atomicAdd(errors, 1);
  }
  atomicAdd(ran, 1);
}

int main() {
  int *dran, *derr;
  CK(cudaMalloc(&dran, sizeof(int)));
  CK(cudaMalloc(&derr, sizeof(int)));
  CK(cudaMemset(dran, 0, sizeof(int)));
  CK(cudaMemset(derr, 0, sizeof(int)));
  const int blocks = 4, threads = 96;
  say<<<blocks, threads>>>(dran, derr, 3);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize()); // also flushes the device printf buffer
  fflush(stdout);
  int ran = 0, errors = 0;
  CK(cudaMemcpy(&ran, dran, sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&errors, derr, sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaFree(dran));
  CK(cudaFree(derr));
  if (ran != blocks * threads) {
    printf("FAIL %s: %d threads ran, want %d\n", kName, ran, blocks * threads);
    return 1;
  }
  if (errors != 0) {
    printf("FAIL %s: device printf reported %d errors\n", kName, errors);
    return 1;
  }
  printf("PASS %s\n", kName);
  return 0;
}
