// shared_past_lds: a block that opts in to more shared memory than the target's LDS (96 KiB at
// the default 8.6, whose opt-in limit is 99 KiB; gfx90a and gfx1100 have 64 KiB of LDS). Such a
// launch runs a translation that keeps static shared memory in LDS and places dynamic shared
// memory in global memory, a slice per block, as cuSOLVER's Cholesky and LU kernels need:
//  - every block of a 3x2x2 grid fills the whole of its 96 KiB, so that slices that overlapped
//    or were shared between blocks would show;
//  - shared atomics on the dynamic memory (a histogram), beside a static __shared__ array;
//  - generic pointers into it: passed to a function kept out of line, tested with __isShared,
//    and converted back to a shared address that inline PTX reads with ld.shared;
//  - the same kernel with 1 KiB runs from LDS and gives the same sums;
//  - the device's limits at 8.6, a launch past the opt-in limit refused, and one past the
//    per-block limit refused without the attribute.
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

static const char *kName = "shared_past_lds";

#include "../check.h"

constexpr int kBins = 64;
constexpr int kBlock = 256;

__device__ __noinline__ void fill(unsigned *words, int n, unsigned salt) {
  for (int j = threadIdx.x; j < n; j += blockDim.x)
    words[j] = (unsigned)j * 2654435761u ^ salt;
}

__device__ unsigned read_shared(unsigned *p) {
  unsigned v;
  const unsigned at = (unsigned)__cvta_generic_to_shared(p);
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(at));
  return v;
}

// out[block * 4 + k]: 0 the sum of the slice read back, 1 the histogram's total, 2 the number of
// pointers that were not shared, 3 the sum read through ld.shared at converted addresses.
__global__ void slices(int words, const int *in, int n, unsigned *out) {
  __shared__ unsigned bins[kBins];
  extern __shared__ unsigned dyn[];
  const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned salt = block * 0x9e3779b9u;
  for (int j = threadIdx.x; j < kBins; j += blockDim.x)
    bins[j] = 0;
  unsigned *hist = dyn + words - kBins; // the histogram lives at the slice's end
  fill(dyn, words - kBins, salt);
  for (int j = threadIdx.x; j < kBins; j += blockDim.x)
    hist[j] = 0;
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    atomicAdd(&hist[(in[i] + block) % kBins], 1u);
    atomicAdd(&bins[in[i] % kBins], 1u);
  }
  __syncthreads();
  unsigned sum = 0, via_ptx = 0, not_shared = 0;
  for (int j = threadIdx.x; j < words - kBins; j += blockDim.x) {
    unsigned *p = &dyn[words - kBins - 1 - j];
    sum += *p;
    not_shared += !__isShared(p);
    via_ptx += read_shared(p);
  }
  not_shared += __isShared(out);
  unsigned total = 0;
  for (int j = threadIdx.x; j < kBins; j += blockDim.x)
    total += hist[j] + bins[j];
  atomicAdd(&out[block * 4 + 0], sum);
  atomicAdd(&out[block * 4 + 1], total);
  atomicAdd(&out[block * 4 + 2], not_shared);
  atomicAdd(&out[block * 4 + 3], via_ptx);
}

static int run(dim3 grid, int bytes, const int *d_in, int n, std::vector<unsigned> &sums) {
  const int blocks = grid.x * grid.y * grid.z, words = bytes / 4;
  unsigned *d_out;
  CK(cudaMalloc(&d_out, blocks * 4 * sizeof(unsigned)));
  CK(cudaMemset(d_out, 0, blocks * 4 * sizeof(unsigned)));
  slices<<<grid, kBlock, bytes>>>(words, d_in, n, d_out);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  std::vector<unsigned> out(blocks * 4);
  CK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CK(cudaFree(d_out));
  for (int b = 0; b < blocks; ++b) {
    unsigned want = 0;
    for (int j = 0; j < words - kBins; ++j)
      want += (unsigned)j * 2654435761u ^ (b * 0x9e3779b9u);
    if (out[b * 4] != want || out[b * 4 + 1] != 2u * n || out[b * 4 + 2] != 0 ||
        out[b * 4 + 3] != want) {
      printf("FAIL %s: %d bytes, block %d: sum %u (want %u), histogram %u (want %u), "
             "%u pointers not shared, ld.shared sum %u\n",
             kName, bytes, b, out[b * 4], want, out[b * 4 + 1], 2u * n, out[b * 4 + 2],
             out[b * 4 + 3]);
      return 1;
    }
    sums.push_back(out[b * 4]);
  }
  return 0;
}

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  printf("%s: %s, compute capability %d.%d: %zu bytes of shared memory per block, %zu with "
         "opt-in, %zu per multiprocessor\n",
         kName, prop.name, prop.major, prop.minor, prop.sharedMemPerBlock,
         prop.sharedMemPerBlockOptin, prop.sharedMemPerMultiprocessor);
  if (prop.major == 8 && prop.minor == 6) {
    EXPECT(prop.sharedMemPerBlockOptin == 99 * 1024);
    EXPECT(prop.sharedMemPerMultiprocessor == 100 * 1024);
  }
  EXPECT(prop.sharedMemPerBlockOptin >= prop.sharedMemPerBlock);
  const int big = 96 * 1024;
  if ((int)prop.sharedMemPerBlockOptin < big + (int)(kBins * sizeof(unsigned))) {
    printf("PASS %s (no opt-in to %d bytes)\n", kName, big);
    return 0;
  }

  const int n = 5000;
  std::vector<int> in(n);
  for (int i = 0; i < n; ++i)
    in[i] = (i * 7919) % 1000;
  int *d_in;
  CK(cudaMalloc(&d_in, n * sizeof(int)));
  CK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  // Past the per-block limit only with the attribute.
  const dim3 grid(3, 2, 2);
  slices<<<grid, kBlock, big>>>(big / 4, d_in, n, nullptr);
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
  CK(cudaFuncSetAttribute(slices, cudaFuncAttributeMaxDynamicSharedMemorySize, big));
  int resident = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, slices, kBlock, big));
  EXPECT(resident == 1);

  std::vector<unsigned> large, small;
  if (run(grid, big, d_in, n, large) || run(grid, 1024, d_in, n, small))
    return 1;
  // A second launch of the large one reuses its translation.
  std::vector<unsigned> again;
  if (run(dim3(2, 1, 1), big, d_in, n, again))
    return 1;

  // One byte past the opt-in limit, refused as a limit and as a launch.
  const int past = (int)prop.sharedMemPerBlockOptin + 1;
  EXPECT(cudaFuncSetAttribute(slices, cudaFuncAttributeMaxDynamicSharedMemorySize, past) ==
         cudaErrorInvalidValue);
  cudaGetLastError();
  slices<<<1, kBlock, past>>>(past / 4, d_in, n, nullptr);
  EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
  CK(cudaFree(d_in));
  printf("PASS %s\n", kName);
  return 0;
}
