//===- SpinLoops.cpp - spin loops yield on the host -----------------------===//
//
// Work-items of a workgroup run one at a time on the CPU device (fibers, a compiled workgroup's
// coroutines). A work-item that spins on memory another writes must let that one run, so its
// loop yields at each try, as s_sleep does; test/lit/host/spin-loops.ptx.
#include "SpinLoops.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace ptx2amd::host {

/// Whether \p V, within \p L, is computed from what an atomic or volatile access reads: the
/// loop waits for another work-item to write. A compare-and-swap that expects what the loop
/// computed is a lock-free update retried with what it found, not a wait, and must not yield
/// between its tries (others would change the word again).
static bool readsSharedState(Value *V, const Loop &L) {
  SmallVector<Value *, 16> Work{V};
  SmallPtrSet<Value *, 32> Seen;
  while (!Work.empty() && Seen.size() < 64) {
    auto *I = dyn_cast<Instruction>(Work.pop_back_val());
    if (!I || !L.contains(I) || !Seen.insert(I).second)
      continue;
    if (auto *LI = dyn_cast<LoadInst>(I); LI && (LI->isAtomic() || LI->isVolatile()))
      return true;
    if (isa<AtomicRMWInst>(I))
      return true;
    if (auto *Cas = dyn_cast<AtomicCmpXchgInst>(I);
        Cas && L.isLoopInvariant(Cas->getCompareOperand()))
      return true;
    Work.append(I->op_begin(), I->op_end());
  }
  return false;
}

/// A loop whose exit waits for memory that other work-items write (a spin: cooperative_groups'
/// grid barrier, a lock, a flag) yields on each iteration, as s_sleep does: fibers of the
/// worker run one at a time, and the one it waits for must get to run. AMDGPU needs nothing of
/// the kind (waves run at once), so this is here and not in the lowering.
void yieldInSpinLoops(Module &M, function_ref<Function *()> Sleep) {
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    DominatorTree DT(F);
    LoopInfo LI(DT);
    for (Loop *L : LI.getLoopsInPreorder()) {
      SmallVector<BasicBlock *, 4> Exiting;
      L->getExitingBlocks(Exiting);
      bool Spins = any_of(Exiting, [&](BasicBlock *BB) {
        Instruction *Term = BB->getTerminator();
        if (auto *Br = dyn_cast<BranchInst>(Term); Br && Br->isConditional())
          return readsSharedState(Br->getCondition(), *L);
        if (auto *Sw = dyn_cast<SwitchInst>(Term))
          return readsSharedState(Sw->getCondition(), *L);
        return false;
      });
      if (!Spins)
        continue;
      IRBuilder<> B(&*L->getHeader()->getFirstInsertionPt());
      B.CreateCall(Sleep())->setTailCallKind(CallInst::TCK_NoTail);
    }
  }
}

} // namespace ptx2amd::host
