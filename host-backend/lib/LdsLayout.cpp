// LDS layout: static LDS variables (address space 3) become constant LDS addresses, offsets in
// the workgroup's arena from 0 as on AMDGPU, in one layout for the whole module (the sum of all
// of them, which may exceed what one kernel may use: simpler than AMDGPU's per-kernel layout;
// the arena of a launch holds them all, and dynamic LDS (`.extern .shared`, at groupstaticsize)
// comes right after). Each kernel still reports the static LDS of the variables it reaches.
// Runs after the spin-loop and lockstep passes, to which two variables are two objects.
#include "Retargeter.h"

#include "Runtime.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace ptx2amd::host {
namespace {

/// Each kernel's static LDS as AMDGPU reports it: the variables that the kernel and the
/// functions it reaches use, laid out alone. The arena itself keeps the module's layout.
void reportKernelLds(Retargeter &R, ArrayRef<std::pair<GlobalVariable *, uint64_t>> Placed) {
  Module &M = R.M;
  const DataLayout &DL = M.getDataLayout();
  DenseMap<const Function *, SmallVector<GlobalVariable *, 4>> UsedBy;
  for (auto &[G, _] : Placed) {
    if (G->isDeclaration())
      continue;
    SmallPtrSet<const Function *, 8> Seen;
    for (User *U : G->users())
      if (auto *I = dyn_cast<Instruction>(U))
        if (Seen.insert(I->getFunction()).second)
          UsedBy[I->getFunction()].push_back(G);
  }
  for (RetargetedKernel &K : R.Out.Kernels) {
    Function *Kernel = &R.kernel(K);
    SmallPtrSet<const Function *, 16> Reached;
    SmallVector<const Function *, 16> Work{Kernel};
    bool Indirect = false;
    while (!Work.empty()) {
      const Function *F = Work.pop_back_val();
      if (!F || !Reached.insert(F).second)
        continue;
      for (const BasicBlock &BB : *F)
        for (const Instruction &I : BB)
          if (auto *Call = dyn_cast<CallBase>(&I)) {
            if (const Function *Callee = Call->getCalledFunction())
              Work.push_back(Callee);
            else if (!Call->isInlineAsm())
              Indirect = true;
          }
    }
    SmallPtrSet<const GlobalVariable *, 16> Used;
    for (auto &[F, Gs] : UsedBy)
      if (Indirect || Reached.count(F))
        Used.insert(Gs.begin(), Gs.end());
    uint64_t Bytes = 0;
    for (auto &[G, _] : Placed)
      if (Used.count(G)) {
        Bytes = alignTo(Bytes, G->getAlign() ? G->getAlign()->value()
                                             : DL.getPrefTypeAlign(G->getValueType()).value());
        Bytes += DL.getTypeAllocSize(G->getValueType());
      }
    K.Meta.GroupSegmentFixedSize = Bytes;
  }
}

} // namespace

Error layoutLds(Retargeter &R) {
  Module &M = R.M;
  const DataLayout &DL = M.getDataLayout();
  std::vector<std::pair<GlobalVariable *, uint64_t>> Placed;
  std::vector<GlobalVariable *> Dynamic;
  uint64_t Offset = 0, MaxAlign = 16;
  for (GlobalVariable &G : M.globals()) {
    if (G.getAddressSpace() != ASLds)
      continue;
    uint64_t A =
        G.getAlign() ? G.getAlign()->value() : DL.getPrefTypeAlign(G.getValueType()).value();
    MaxAlign = std::max(MaxAlign, A);
    if (G.isDeclaration()) {
      Dynamic.push_back(&G);
      continue;
    }
    Offset = alignTo(Offset, A);
    Placed.push_back({&G, Offset});
    Offset += DL.getTypeAllocSize(G.getValueType());
  }
  Offset = alignTo(Offset, MaxAlign);
  // Each kernel is held to the target's LDS by what it reaches (reportKernelLds); the module's
  // layout only has to fit an arena beside the most dynamic LDS.
  if (Offset + R.T.LdsBytesPerWorkgroup > MaxLdsArenaBytes)
    return fail(ErrorKind::OutOfResources,
                "the module's static LDS variables take " + Twine(Offset) +
                    " bytes, more than a launch's LDS arena holds beside " +
                    Twine(R.T.LdsBytesPerWorkgroup) + " bytes of dynamic LDS");
  R.Out.StaticLdsBytes = uint32_t(Offset);
  for (GlobalVariable *G : Dynamic)
    Placed.push_back({G, Offset});
  if (Placed.empty())
    return Error::success();
  SmallVector<Constant *, 16> Globals;
  for (auto &[G, _] : Placed)
    Globals.push_back(G);
  removeFromUsedLists(M, [&](Constant *CV) { return is_contained(Globals, CV); });
  convertUsersOfConstantsToInstructions(Globals);
  reportKernelLds(R, Placed);
  IRBuilder<> B(R.C);
  for (auto &[G, At] : Placed) {
    for (Use &U : make_early_inc_range(G->uses())) {
      auto *I = dyn_cast<Instruction>(U.getUser());
      if (!I)
        return fail(ErrorKind::Internal,
                    "LDS variable '" + G->getName() + "' is used outside of functions");
      if (auto *Phi = dyn_cast<PHINode>(I))
        B.SetInsertPoint(Phi->getIncomingBlock(U)->getTerminator());
      else
        B.SetInsertPoint(I);
      U.set(ConstantExpr::getIntToPtr(B.getInt32(uint32_t(At)), PointerType::get(R.C, ASLds)));
    }
    G->eraseFromParent();
  }
  return Error::success();
}

} // namespace ptx2amd::host
