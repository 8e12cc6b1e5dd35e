//===- LowerCluster.cpp - thread-block clusters of one block, and griddepcontrol ===//
//
// AMD GPUs have no thread-block clusters, so every launch is one of clusters of one block
// (launches with larger clusters are refused by the runtime): a cluster barrier is the block's
// barrier, the only CTA a `mapa` may name is the block itself, and the cluster special registers
// (LowerSpecialRegisters.cpp) describe one-block clusters. griddepcontrol (programmatic dependent
// launch) has nothing to wait for: a kernel starts after the stream's earlier work is complete.

#include "FunctionLowerer.h"

#include "llvm/IR/IntrinsicsAMDGPU.h"

using namespace llvm;

namespace ptx2amd::lowering {

void FunctionLowerer::clusterBarrier(const ir::Instruction &I) {
  // barrier.cluster.arrive only marks the thread as arrived: the wait that must follow it in
  // each thread is the block barrier, which every thread reaches after its arrive. The wait's
  // acquire (and the arrive's release, by the same barrier's fences) is __syncthreads' ordering.
  if (I.has(ir::Mod::Arrive))
    return;
  if (I.has(ir::Mod::Wait))
    return workgroupBarrier();
  unsupported();
}

void FunctionLowerer::mapa(const ir::Instruction &I) {
  // The address in the cluster's CTA of the given rank: with one CTA, rank 0 is the block itself
  // (any other rank is out of the cluster, whose result PTX leaves undefined).
  ir::Type T = type0(I);
  def(I.Operands[0], get(I.Operands[1], T));
}

} // namespace ptx2amd::lowering
