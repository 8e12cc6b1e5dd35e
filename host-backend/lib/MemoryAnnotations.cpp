// Memory annotations: the kernel's own memory accesses never touch LaneState (only the accessor
// leads there), and the kernarg segment does not change during a launch: alias information that
// lets the host optimiser keep both in registers across a work-item loop.
#include "Retargeter.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace ptx2amd::host {

void annotateMemory(Retargeter &R) {
  for (Function &F : R.M)
    for (Instruction &I : instructions(F)) {
      if (!I.mayReadOrWriteMemory() || I.getMetadata(LLVMContext::MD_alias_scope))
        continue;
      if (auto *CB = dyn_cast<CallBase>(&I); CB && CB->getCalledFunction() == R.StateFn)
        continue;
      I.setMetadata(LLVMContext::MD_noalias, R.StateScope);
      if (auto *L = dyn_cast<LoadInst>(&I))
        if (auto *A = dyn_cast<Argument>(getUnderlyingObject(L->getPointerOperand())))
          if (A->getParent()->getCallingConv() == CallingConv::AMDGPU_KERNEL)
            L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(R.C, {}));
    }
}

} // namespace ptx2amd::host
