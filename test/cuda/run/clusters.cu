// clusters: thread-block clusters of one block (what AMD GPUs offer): cooperative_groups'
// cluster API inside kernels launched with and without a 1x1x1 cluster dimension, distributed
// shared memory of rank 0, and a larger cluster refused with CUDA's error; the occupancy of
// clusters (as many of one block as blocks fit, none larger) and the cluster attributes a
// kernel may be given (a required cluster of one block, the hints; cuBLAS sets them at 9.0).
// Built for sm_90.
#include <cooperative_groups.h>
#include <cstdio>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

static const char *kName = "clusters";

#include "../check.h"

__global__ void inCluster(int *out) {
  __shared__ int tile[128];
  cg::cluster_group cluster = cg::this_cluster();
  tile[threadIdx.x] = threadIdx.x * 2;
  cluster.sync();
  // The block's own tile, through the cluster's distributed shared memory.
  int *mine = cluster.map_shared_rank(tile, 0);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = mine[(threadIdx.x + 1) % blockDim.x] + 1000 * (int)cluster.block_rank() +
           100000 * (int)cluster.num_blocks() + (cluster.block_index().x == 0 ? 0 : 1 << 30);
  cluster.sync();
}

int main() {
  const int blocks = 8, threads = 128, n = blocks * threads;
  int *d = nullptr;
  CK(cudaMalloc(&d, n * sizeof(int)));
  int h[n];
  for (int attempt = 0; attempt < 2; ++attempt) {
    CK(cudaMemset(d, 0xff, n * sizeof(int)));
    if (attempt == 0) {
      inCluster<<<blocks, threads>>>(d);
    } else {
      cudaLaunchConfig_t config = {};
      config.gridDim = dim3(blocks);
      config.blockDim = dim3(threads);
      cudaLaunchAttribute attr;
      attr.id = cudaLaunchAttributeClusterDimension;
      attr.val.clusterDim.x = attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
      config.attrs = &attr;
      config.numAttrs = 1;
      CK(cudaLaunchKernelEx(&config, inCluster, d));
    }
    CK(cudaGetLastError());
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
      int t = i % threads;
      int want = ((t + 1) % threads) * 2 + 100000;
      if (h[i] != want) {
        printf("FAIL %s: launch %d element %d: %d, want %d\n", kName, attempt, i, h[i], want);
        return 1;
      }
    }
  }

  // Clusters of more than one block: the device has none.
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  cudaLaunchAttribute attr;
  attr.id = cudaLaunchAttributeClusterDimension;
  attr.val.clusterDim.x = 2;
  attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
  config.attrs = &attr;
  config.numAttrs = 1;
  EXPECT(cudaLaunchKernelEx(&config, inCluster, d) == cudaErrorInvalidClusterSize);
  cudaGetLastError();

  int clusters = -1, size = -1, blocksPerUnit = 0;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocksPerUnit, inCluster, threads, 0));
  CK(cudaOccupancyMaxActiveClusters(&clusters, inCluster, &config));
  EXPECT(clusters == 0);
  attr.val.clusterDim.x = 1;
  CK(cudaOccupancyMaxActiveClusters(&clusters, inCluster, &config));
  EXPECT(blocksPerUnit > 0 && clusters == blocksPerUnit * prop.multiProcessorCount);
  CK(cudaOccupancyMaxPotentialClusterSize(&size, inCluster, &config));
  EXPECT(size == 1);
  CK(cudaFuncSetAttribute(inCluster, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  CK(cudaFuncSetAttribute(inCluster, cudaFuncAttributeClusterSchedulingPolicyPreference,
                          cudaClusterSchedulingPolicySpread));
  CK(cudaFuncSetAttribute(inCluster, cudaFuncAttributeRequiredClusterWidth, 1));
  EXPECT(cudaFuncSetAttribute(inCluster, cudaFuncAttributeRequiredClusterWidth, 2) ==
         cudaErrorInvalidValue);
  EXPECT(cudaFuncSetAttribute(inCluster, cudaFuncAttributeClusterDimMustBeSet, 1) ==
         cudaErrorInvalidValue);
  cudaGetLastError();
  cudaFuncAttributes fa;
  CK(cudaFuncGetAttributes(&fa, inCluster));
  EXPECT(fa.nonPortableClusterSizeAllowed == 1 && fa.requiredClusterWidth == 1 &&
         fa.clusterSchedulingPolicyPreference == cudaClusterSchedulingPolicySpread);
  printf("clusters: %d of one block at once, %d blocks a unit\n", clusters, blocksPerUnit);
  CK(cudaFree(d));
  printf("PASS %s\n", kName);
  return 0;
}
