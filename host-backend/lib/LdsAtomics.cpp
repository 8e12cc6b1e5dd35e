// LDS atomics: a workgroup's LDS is its worker's alone and its work-items (and waves) run one at
// a time, so an LDS atomic (marked LdsAtomicKind by NarrowPointers.cpp) is a plain
// read-modify-write (no lock prefix). Runs once every work-item and wave function is made.
#include "Retargeter.h"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/LowerAtomic.h"

using namespace llvm;

namespace ptx2amd::host {

void lowerLdsAtomics(Module &M) {
  for (Function &F : M)
    for (Instruction &I : make_early_inc_range(instructions(F))) {
      if (!I.getMetadata(LdsAtomicKind))
        continue;
      if (auto *RMW = dyn_cast<AtomicRMWInst>(&I))
        lowerAtomicRMWInst(RMW);
      else if (auto *Cas = dyn_cast<AtomicCmpXchgInst>(&I))
        lowerAtomicCmpXchgInst(Cas);
    }
}

} // namespace ptx2amd::host
