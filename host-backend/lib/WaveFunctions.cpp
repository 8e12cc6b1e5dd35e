// Wave functions: each kernel that can run here is vectorised over its waves (VectorizeWaves.h),
// on the module with the host's layout. Without barriers its wave function runs a wave at a
// time; with barriers, each wave becomes a compiled workgroup's item (WorkGroup.cpp) that reads
// its lanes from its LaneState, unless its waves cannot be cut at the barriers or would keep more
// than a frame holds across them (dropOversizedWaveFrames, once the workgroups are lowered).
#include "Retargeter.h"

#include "LaneState.h"
#include "VectorizeWaves.h"
#include "WorkGroup.h"

#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace ptx2amd::host {
namespace {

/// Makes \p Group, the wave function \p Wave (of a kernel with barriers) as a compiled
/// workgroup's item: why it cannot, or empty. \p Wave is erased either way.
std::string formWaveGroup(Retargeter &R, Function *Wave, StringRef Group) {
  IRBuilder<> B(R.C);
  auto *Item = Function::Create(FunctionType::get(B.getVoidTy(), {R.Ptr}, false),
                                GlobalValue::InternalLinkage, Wave->getName() + ".item", R.M);
  B.SetInsertPoint(BasicBlock::Create(R.C, "entry", Item));
  Value *S = B.CreateCall(R.stateFunction());
  auto Read = [&](unsigned Offset, Type *Ty) {
    auto *L = B.CreateAlignedLoad(Ty, B.CreateConstInBoundsGEP1_32(R.I8, S, Offset), Align(8));
    L->setMetadata(LLVMContext::MD_alias_scope, R.StateScope);
    return L;
  };
  B.CreateCall(Wave, {Item->getArg(0), Read(state::WaveIds, R.Ptr), Read(state::WaveExec, R.I64)});
  B.CreateRetVoid();
  SetVector<const Function *> Reach;
  Reach.insert(Wave);
  std::string Why = formWorkGroup(*Item, Group, *R.stateFunction(), Reach);
  Item->eraseFromParent();
  Wave->eraseFromParent();
  return Why;
}

} // namespace

void vectorizeKernels(Retargeter &R) {
  for (size_t I = 0; I < R.Out.Kernels.size(); ++I) {
    RetargetedKernel &K = R.Out.Kernels[I];
    if (!K.Plan.Unavailable.empty() || !R.Vectorize)
      continue;
    std::string Name = "__ptx2amd_host_wave_" + K.Meta.Name;
    bool Barriers = false;
    K.Plan.VectorReason =
        vectorizeWave(*R.M.getFunction(K.Plan.EntrySymbol), Name, R.T.WaveSize, R.MaskedMemory,
                      Barriers, R.Opts.BreakWaveXor, R.Opts.MaxWaveInstructions);
    if (!K.Plan.VectorReason.empty())
      continue;
    if (!Barriers) {
      R.Made[I].Wave = std::move(Name);
      continue;
    }
    // Waves that meet at barriers: each a compiled workgroup's item reading its lanes from its
    // LaneState.
    std::string Group = "__ptx2amd_host_wavewg_" + K.Meta.Name;
    if (std::string Why = formWaveGroup(R, R.M.getFunction(Name), Group); !Why.empty())
      K.Plan.VectorReason = "its waves cannot be cut at barriers: " + Why;
    else
      R.Made[I].WaveGroup = std::move(Group);
  }
}

void dropOversizedWaveFrames(Retargeter &R) {
  for (size_t I = 0; I < R.Out.Kernels.size(); ++I) {
    std::string &Group = R.Made[I].WaveGroup;
    if (Group.empty())
      continue;
    // A wave's frame holds what its lanes keep across barriers, in one work-item's stack:
    // where it does not fit, the work-items run (NVIDIA's binomialOptions kept 70400 bytes).
    if (uint64_t Bytes = frameBytes(R.M, Group); Bytes > FiberStack) {
      R.Out.Kernels[I].Plan.VectorReason = "its waves would keep " + std::to_string(Bytes) +
                                           " bytes across barriers, more than a frame's " +
                                           std::to_string(FiberStack);
      eraseWorkGroup(R.M, Group);
      Group.clear();
    }
  }
}

} // namespace ptx2amd::host
