// Loops whose body makes its wave meet (a shuffle, a ballot, a lockstep point, in the loop or in
// a function it calls) end each iteration with a wave barrier at their latches. Work-items that
// run one at a time from meeting to meeting (fibers and compiled workgroups, WorkItems.cpp) run
// the group of a wave waiting at the lowest site first; sites are numbered in reverse
// post-order, so lanes that went around a loop's back edge (to a site at the top of its body)
// would otherwise meet before the lanes still finishing the iteration in a divergent region
// further down, and shuffle without them: cuSPARSE's csrmm kernel read its next columns' sums
// from lanes that were still storing the last ones. Met at the latch, every lane of the
// iteration starts the next one together, as a wave reconverges on the GPU; lanes that left the
// loop wait at higher sites. A vectorised wave runs the barrier as nothing.
#include "Retargeter.h"

#include "SyncOps.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/IR/Module.h"

#include <set>

using namespace llvm;

namespace ptx2amd::host {
namespace {

/// Whether \p I makes the wave meet, or calls a function that does (\p Meeting).
bool meets(const Instruction &I, const std::set<const Function *> &Meeting) {
  const auto *CB = dyn_cast<CallBase>(&I);
  if (!CB)
    return false;
  if (const auto *II = dyn_cast<IntrinsicInst>(CB)) {
    const SyncOp *S = findSyncOp(II->getIntrinsicID());
    return S && S->Kind == SyncKind::Wave;
  }
  const Function *Callee = CB->getCalledFunction();
  return Callee && Meeting.count(Callee);
}

/// The functions that make the wave meet, directly or through their callees.
std::set<const Function *> meetingFunctions(Module &M) {
  std::set<const Function *> Meeting;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (Function &F : M)
      if (!F.isDeclaration() && !Meeting.count(&F) &&
          any_of(instructions(F), [&](const Instruction &I) { return meets(I, Meeting); })) {
        Meeting.insert(&F);
        Changed = true;
      }
  }
  return Meeting;
}

} // namespace

void reconvergeLoops(Retargeter &R) {
  std::set<const Function *> Meeting = meetingFunctions(R.M);
  for (const Function *CF : Meeting) {
    auto &F = const_cast<Function &>(*CF);
    DominatorTree DT(F);
    LoopInfo LI(DT);
    std::set<BasicBlock *> Latches;
    for (Loop *L : LI.getLoopsInPreorder()) {
      if (none_of(L->blocks(), [&](const BasicBlock *BB) {
            return any_of(*BB, [&](const Instruction &I) { return meets(I, Meeting); });
          }))
        continue;
      SmallVector<BasicBlock *, 4> Ls;
      L->getLoopLatches(Ls);
      Latches.insert(Ls.begin(), Ls.end());
    }
    for (BasicBlock *Latch : Latches) {
      IRBuilder<> B(Latch->getTerminator());
      B.CreateIntrinsic(Intrinsic::amdgcn_wave_barrier, ArrayRef<Type *>{}, ArrayRef<Value *>{});
    }
  }
}

} // namespace ptx2amd::host
