// What the host passes share (Retargeter.h): the kernels' functions, the wave emulator's
// declarations, a work-item's LaneState, the call graph.
#include "Retargeter.h"

#include "LaneState.h"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace ptx2amd::host {

Retargeter::Retargeter(Module &M, const amdgpu::Target &T, const RetargetOptions &Opts,
                       bool MaskedMemory)
    : M(M), T(T), Opts(Opts), Vectorize(Opts.Vectorize), MaskedMemory(MaskedMemory),
      C(M.getContext()), I8(Type::getInt8Ty(C)), I32(Type::getInt32Ty(C)), I64(Type::getInt64Ty(C)),
      Ptr(PointerType::get(C, ASFlat)) {
  MDBuilder MDB(C);
  StateScope =
      MDNode::get(C, {MDB.createAnonymousAliasScope(
                         MDB.createAnonymousAliasScopeDomain("ptx2amd.host"), "lane state")});
}

Function &Retargeter::kernel(const RetargetedKernel &K) const {
  return *M.getFunction(K.Meta.Name);
}

Function *Retargeter::runtimeFunction(StringRef Name, Type *Ret, ArrayRef<Type *> Params,
                                      bool Convergent) {
  if (Function *F = M.getFunction(Name))
    return F;
  auto *F = Function::Create(FunctionType::get(Ret, Params, false), GlobalValue::ExternalLinkage,
                             Name, M);
  F->addFnAttr(Attribute::NoUnwind);
  if (Convergent)
    F->addFnAttr(Attribute::Convergent);
  return F;
}

/// The pointer is constant for a work-item's whole run (each fiber and each loop worker has its
/// own), so the accessor is readnone and CSEs.
Function *Retargeter::stateFunction() {
  if (!StateFn) {
    StateFn = runtimeFunction(rt::State, Ptr, {}, false);
    StateFn->setDoesNotAccessMemory();
    StateFn->addFnAttr(Attribute::WillReturn);
    StateFn->addFnAttr(Attribute::NoSync);
  }
  return StateFn;
}

Value *Retargeter::field(IRBuilder<> &B, unsigned Offset, Type *Ty) {
  Value *S = B.CreateCall(stateFunction());
  Value *P = B.CreateConstInBoundsGEP1_32(I8, S, Offset);
  auto *L =
      B.CreateAlignedLoad(Ty, P, Align(Ty->isPointerTy() ? 8 : Ty->getPrimitiveSizeInBits() / 8));
  L->setMetadata(LLVMContext::MD_alias_scope, StateScope);
  return L;
}

SetVector<const Function *>
Retargeter::reachingCallers(const std::set<const Function *> &Seeds) const {
  SetVector<const Function *> Reach(Seeds.begin(), Seeds.end());
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const Function &F : M) {
      if (F.isDeclaration() || Reach.contains(&F))
        continue;
      for (const Instruction &I : instructions(F)) {
        auto *CB = dyn_cast<CallBase>(&I);
        if (!CB || CB->isInlineAsm())
          continue;
        const Function *Callee = CB->getCalledFunction();
        bool Hit = Callee ? Reach.contains(Callee)
                          : any_of(Reach, [](const Function *G) { return G->hasAddressTaken(); });
        if (Hit) {
          Changed |= Reach.insert(&F);
          break;
        }
      }
    }
  }
  return Reach;
}

std::string hostDataLayout(const DataLayout &Host) {
  return Host.getStringRepresentation() + "-p3:32:32-p5:32:32";
}

} // namespace ptx2amd::host
