//===- Occupancy.cpp - how many blocks of a kernel a compute unit holds ===//
//
// Shared by cudaOccupancy* and cuOccupancy*: bounded by warps, blocks and LDS per compute unit,
// from the device's properties (the reported compute capability's residency limits) and the
// kernel's code object (registers are not modelled).

#include "Driver.h"

#include <algorithm>

using namespace ptx2amd;
using namespace ptx2amd::runtime;

namespace ptx2amd::runtime {

cudaError_t occupancyBlocks(KernelRecord &K, int BlockSize, size_t DynamicShared, int *Out) {
  if (!Out || BlockSize <= 0)
    return fail(cudaErrorInvalidValue);
  Context *C = nullptr;
  const loader::Kernel *DK = nullptr;
  if (cudaError_t E = contextAndKernel(K, C, DK))
    return E;
  const cudaDeviceProp &P = C->Props;
  if (BlockSize > P.maxThreadsPerBlock) {
    *Out = 0;
    return cudaSuccess;
  }
  // As CUDA counts: whole warps (a block of 100 threads holds 4 of the 32 warp slots of a 7.5
  // multiprocessor), so that a block of up to maxThreadsPerBlock always fits at least once.
  const int Warps = (BlockSize + P.warpSize - 1) / P.warpSize;
  int Blocks =
      std::min(P.maxThreadsPerMultiProcessor / P.warpSize / Warps, P.maxBlocksPerMultiProcessor);
  uint64_t Lds = DK->metadata().GroupSegmentFixedSize + DynamicShared;
  if (Lds)
    Blocks = int(std::min<uint64_t>(Blocks, P.sharedMemPerMultiprocessor / Lds));
  *Out = Blocks;
  return cudaSuccess;
}

cudaError_t availableDynamicShared(KernelRecord &K, int NumBlocks, int BlockSize, size_t *Out) {
  if (!Out || NumBlocks <= 0 || BlockSize <= 0)
    return fail(cudaErrorInvalidValue);
  Context *C = nullptr;
  const loader::Kernel *DK = nullptr;
  if (cudaError_t E = contextAndKernel(K, C, DK))
    return E;
  uint64_t PerBlock = C->Props.sharedMemPerMultiprocessor / uint64_t(NumBlocks);
  PerBlock = std::min<uint64_t>(PerBlock, C->Props.sharedMemPerBlock);
  uint64_t Static = DK->metadata().GroupSegmentFixedSize;
  *Out = PerBlock > Static ? PerBlock - Static : 0;
  return cudaSuccess;
}

cudaError_t activeClusters(KernelRecord &K, dim3 Block, size_t DynamicShared,
                           const LaunchAttribute *Attrs, unsigned NumAttrs, int *Out) {
  if (!Out || (NumAttrs && !Attrs))
    return fail(cudaErrorInvalidValue);
  uint64_t ClusterBlocks = 1;
  for (unsigned I = 0; I < NumAttrs; ++I)
    if (Attrs[I].Id == ClusterDimensionAttribute) {
      dim3 D = clusterDimension(Attrs[I]);
      ClusterBlocks = uint64_t(D.x) * D.y * D.z;
    }
  if (ClusterBlocks == 0)
    return fail(cudaErrorInvalidClusterSize, "a cluster of no blocks");
  int PerUnit = 0;
  if (cudaError_t E = occupancyBlocks(K, int(Block.x * Block.y * Block.z), DynamicShared, &PerUnit))
    return E;
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  *Out = ClusterBlocks == 1 ? PerUnit * C->Props.multiProcessorCount : 0;
  return cudaSuccess;
}

} // namespace ptx2amd::runtime

namespace {

/// The block size (a multiple of the warp size, at most \p Limit or the device's) with the most
/// resident work-items per compute unit, the largest of equals; dynamic shared memory per block
/// from \p DynamicFor when given, else \p Dynamic.
cudaError_t potentialBlockSize(KernelRecord &K, int *MinGrid, int *Block, size_t (*DynamicFor)(int),
                               size_t Dynamic, int Limit) {
  if (!MinGrid || !Block)
    return fail(cudaErrorInvalidValue);
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  const int Max =
      Limit > 0 ? std::min(Limit, C->Props.maxThreadsPerBlock) : C->Props.maxThreadsPerBlock;
  int Best = 0, BestBlocks = 0;
  for (int Size = Max / C->Props.warpSize * C->Props.warpSize; Size > 0;
       Size -= C->Props.warpSize) {
    int Blocks = 0;
    if (cudaError_t E = occupancyBlocks(K, Size, DynamicFor ? DynamicFor(Size) : Dynamic, &Blocks))
      return E;
    if (Blocks * Size > BestBlocks * Best) {
      Best = Size;
      BestBlocks = Blocks;
    }
  }
  *Block = Best;
  *MinGrid = BestBlocks * C->Props.multiProcessorCount;
  return cudaSuccess;
}

cudaError_t kernelOf(CUfunction F, KernelRecord *&K) { return functionOf(F, K); }

} // namespace

extern "C" {

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *NumBlocks, CUfunction Function,
                                                              int BlockSize, size_t DynamicShared,
                                                              unsigned Flags) {
  return driverCall([&] {
    KernelRecord *K = nullptr;
    if (cudaError_t E = kernelOf(Function, K))
      return E;
    return occupancyBlocks(*K, BlockSize, DynamicShared, NumBlocks);
  });
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *NumBlocks, CUfunction Function,
                                                     int BlockSize, size_t DynamicShared) {
  return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(NumBlocks, Function, BlockSize,
                                                              DynamicShared, 0);
}

CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *Bytes, CUfunction Function, int NumBlocks,
                                                 int BlockSize) {
  return driverCall([&] {
    KernelRecord *K = nullptr;
    if (cudaError_t E = kernelOf(Function, K))
      return E;
    return availableDynamicShared(*K, NumBlocks, BlockSize, Bytes);
  });
}

CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *MinGrid, int *Block, CUfunction Function,
                                                   size_t (*DynamicFor)(int), size_t Dynamic,
                                                   int Limit, unsigned Flags) {
  return driverCall([&] {
    KernelRecord *K = nullptr;
    if (cudaError_t E = kernelOf(Function, K))
      return E;
    return potentialBlockSize(*K, MinGrid, Block, DynamicFor, Dynamic, Limit);
  });
}

CUresult cuOccupancyMaxPotentialBlockSize(int *MinGrid, int *Block, CUfunction Function,
                                          size_t (*DynamicFor)(int), size_t Dynamic, int Limit) {
  return cuOccupancyMaxPotentialBlockSizeWithFlags(MinGrid, Block, Function, DynamicFor, Dynamic,
                                                   Limit, 0);
}

CUresult cuOccupancyMaxActiveClusters(int *NumClusters, CUfunction Function,
                                      const CuLaunchConfig *Config) {
  return driverCall([&] {
    KernelRecord *K = nullptr;
    if (cudaError_t E = kernelOf(Function, K))
      return E;
    if (!Config)
      return fail(cudaErrorInvalidValue);
    return activeClusters(*K, dim3{Config->BlockX, Config->BlockY, Config->BlockZ},
                          Config->SharedBytes, Config->Attrs, Config->NumAttrs, NumClusters);
  });
}

// The device's clusters are of one block.
CUresult cuOccupancyMaxPotentialClusterSize(int *ClusterSize, CUfunction Function,
                                            const CuLaunchConfig *Config) {
  return driverCall([&] {
    KernelRecord *K = nullptr;
    if (cudaError_t E = kernelOf(Function, K))
      return E;
    if (!ClusterSize || !Config)
      return fail(cudaErrorInvalidValue);
    *ClusterSize = 1;
    return cudaSuccess;
  });
}

} // extern "C"
