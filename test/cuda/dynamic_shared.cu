// dynamic_shared: `extern __shared__` memory sized at launch.
//  - carve: an int array and a float array (from the next 16-byte boundary) carved from one
//    dynamic buffer, launched with three sizes from 384 bytes to 44,000 (just under 48 KiB);
//  - static_and_dynamic: a static __shared__ array beside the dynamic one (the dynamic memory
//    must not overlap it; cudaFuncGetAttributes reports the static size);
//  - big: as much dynamic shared memory as the device allows a block with opt-in
//    (cudaDevAttrMaxSharedMemoryPerBlockOptin less the kernel's static size), after
//    cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize); when that is above 48 KiB.
//    The default limit must be the per-block limit less the static size, and one byte past the
//    opt-in limit must be refused by cudaFuncSetAttribute and by a launch.
// Every output is checked exactly against the host reference (dynamic_shared_ref.h).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "dynamic_shared_ref.h"

using dynamic_shared::kName;

#include "check.h"

__global__ void carve(const int *in, const float *fin, int ni, int nf, int *iout, float *fout) {
  extern __shared__ __align__(16) unsigned char smem[];
  int *si = reinterpret_cast<int *>(smem);
  float *sf = reinterpret_cast<float *>(smem + ((ni * sizeof(int) + 15) & ~(size_t)15));
  const int ib = blockIdx.x * ni, fb = blockIdx.x * nf;
  for (int j = threadIdx.x; j < ni; j += blockDim.x)
    si[j] = in[ib + j];
  for (int j = threadIdx.x; j < nf; j += blockDim.x)
    sf[j] = fin[fb + j];
  __syncthreads();
  for (int j = threadIdx.x; j < ni; j += blockDim.x)
    iout[ib + j] = si[ni - 1 - j] * 3 + si[j * 7 % ni];
  for (int j = threadIdx.x; j < nf; j += blockDim.x)
    fout[fb + j] = sf[nf - 1 - j] * 0.5f + (float)si[j % ni];
}

__global__ void static_and_dynamic(int n, int *out) {
  __shared__ int fixed[dynamic_shared::kFixed];
  extern __shared__ int dyn_words[];
  for (int j = threadIdx.x; j < dynamic_shared::kFixed; j += blockDim.x)
    fixed[j] = j * 5 + blockIdx.x;
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    dyn_words[j] = j ^ (blockIdx.x << 16);
  __syncthreads();
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    out[blockIdx.x * n + j] = dyn_words[n - 1 - j] + fixed[j % dynamic_shared::kFixed];
}

__global__ void big(int words, unsigned *out) {
  extern __shared__ unsigned big_words[];
  for (int j = threadIdx.x; j < words; j += blockDim.x)
    big_words[j] = (unsigned)j * 2654435761u + blockIdx.x;
  __syncthreads();
  unsigned acc = 0;
  for (int j = threadIdx.x; j < words; j += blockDim.x)
    acc = acc * 31u + big_words[words - 1 - j];
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

static int run_carve(int ni, int nf, int block) {
  using namespace dynamic_shared;
  const int blocks = 5;
  int *hin = (int *)malloc(sizeof(int) * ni * blocks);
  float *hfin = (float *)malloc(sizeof(float) * nf * blocks);
  for (int i = 0; i < ni * blocks; ++i)
    hin[i] = in_at(i);
  for (int i = 0; i < nf * blocks; ++i)
    hfin[i] = fin_at(i);
  int *din, *diout;
  float *dfin, *dfout;
  CK(cudaMalloc(&din, sizeof(int) * ni * blocks));
  CK(cudaMalloc(&diout, sizeof(int) * ni * blocks));
  CK(cudaMalloc(&dfin, sizeof(float) * nf * blocks));
  CK(cudaMalloc(&dfout, sizeof(float) * nf * blocks));
  CK(cudaMemcpy(din, hin, sizeof(int) * ni * blocks, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dfin, hfin, sizeof(float) * nf * blocks, cudaMemcpyHostToDevice));
  carve<<<blocks, block, carve_bytes(ni, nf)>>>(din, dfin, ni, nf, diout, dfout);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  // The inputs are functions of the index: the results come back into the input buffers.
  CK(cudaMemcpy(hin, diout, sizeof(int) * ni * blocks, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hfin, dfout, sizeof(float) * nf * blocks, cudaMemcpyDeviceToHost));
  const int rc = check_carve(ni, nf, blocks, hin, hfin);
  CK(cudaFree(din));
  CK(cudaFree(diout));
  CK(cudaFree(dfin));
  CK(cudaFree(dfout));
  free(hin);
  free(hfin);
  return rc;
}

static int run_static_dynamic() {
  using namespace dynamic_shared;
  const int n = 4000, blocks = 3;
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, static_and_dynamic));
  if (fa.sharedSizeBytes < kFixed * sizeof(int)) {
    printf("FAIL %s: static_and_dynamic reports %zu bytes of static shared memory, want >= %zu\n",
           kName, fa.sharedSizeBytes, kFixed * sizeof(int));
    return 1;
  }
  int *dout;
  CK(cudaMalloc(&dout, sizeof(int) * n * blocks));
  static_and_dynamic<<<blocks, 256, n * sizeof(int)>>>(n, dout);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  int *hout = (int *)malloc(sizeof(int) * n * blocks);
  CK(cudaMemcpy(hout, dout, sizeof(int) * n * blocks, cudaMemcpyDeviceToHost));
  const int rc = check_static_dynamic(n, blocks, hout);
  CK(cudaFree(dout));
  free(hout);
  return rc;
}

static int run_big() {
  using namespace dynamic_shared;
  int per_block, optin;
  CK(cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlock, 0));
  CK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, big));
  printf("%s: %d bytes of shared memory per block, %d with opt-in; big has %zu static, "
         "%d dynamic by default\n",
         kName, per_block, optin, fa.sharedSizeBytes, fa.maxDynamicSharedSizeBytes);
  if (optin < per_block || fa.maxDynamicSharedSizeBytes != per_block - (int)fa.sharedSizeBytes) {
    printf("FAIL %s: inconsistent limits\n", kName);
    return 1;
  }
  const int avail = optin - (int)fa.sharedSizeBytes;
  if (avail <= 48 * 1024) {
    printf("%s: no launch above 48 KiB: the opt-in limit leaves %d bytes\n", kName, avail);
    return 0;
  }
  const int words = avail / 4, blocks = 4, block = 256;
  CK(cudaFuncSetAttribute(big, cudaFuncAttributeMaxDynamicSharedMemorySize, words * 4));
  CK(cudaFuncGetAttributes(&fa, big));
  if (fa.maxDynamicSharedSizeBytes != words * 4) {
    printf("FAIL %s: big's dynamic limit is %d after setting it to %d\n", kName,
           fa.maxDynamicSharedSizeBytes, words * 4);
    return 1;
  }
  unsigned *dout;
  CK(cudaMalloc(&dout, sizeof(unsigned) * blocks * block));
  big<<<blocks, block, words * 4>>>(words, dout);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  unsigned *hout = (unsigned *)malloc(sizeof(unsigned) * blocks * block);
  CK(cudaMemcpy(hout, dout, sizeof(unsigned) * blocks * block, cudaMemcpyDeviceToHost));
  int rc = check_big(words, blocks, block, hout);

  // One byte past the opt-in limit: refused as a limit and at launch, and not sticky.
  cudaError_t e = cudaFuncSetAttribute(big, cudaFuncAttributeMaxDynamicSharedMemorySize, avail + 1);
  if (!rc && (e != cudaErrorInvalidValue || cudaGetLastError() != cudaErrorInvalidValue)) {
    printf("FAIL %s: a limit of %d bytes gave '%s', want invalid value\n", kName, avail + 1,
           cudaGetErrorString(e));
    rc = 1;
  }
  big<<<1, block, avail + 1>>>(words, dout);
  e = cudaGetLastError();
  if (!rc && e != cudaErrorInvalidValue) {
    printf("FAIL %s: a launch with %d bytes gave '%s', want invalid value\n", kName, avail + 1,
           cudaGetErrorString(e));
    rc = 1;
  }
  CK(cudaDeviceSynchronize());
  CK(cudaFree(dout));
  free(hout);
  return rc;
}

int main() {
  if (run_carve(64, 32, 64) || run_carve(1000, 3000, 256) || run_carve(5000, 6000, 128) ||
      run_static_dynamic() || run_big())
    return 1;
  printf("PASS %s\n", kName);
  return 0;
}
