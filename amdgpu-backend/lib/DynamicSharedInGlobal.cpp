//===- DynamicSharedInGlobal.cpp - dynamic shared memory placed in global memory ------===//
//
// CUDA lets a block opt in to more shared memory than any AMDGPU workgroup has of LDS (99 KB at
// 8.6, 227 KB at 9.0; 64 KB of LDS on gfx90a and gfx1100). Only dynamic shared memory can go past
// 48 KB in CUDA, so the translation made for such a launch keeps static shared memory in LDS and
// places the dynamic part in global memory, one slice per block:
//
//   - each kernel takes one more explicit argument, DynamicSharedArgName (Kernarg.h), which the
//     launch fills: the slices' address, the bytes of one slice, and the grid's blocks in x and y;
//   - a shared address (a 32-bit LDS offset, as PTX defines it) at or past the dynamic variable's
//     offset is in the block's slice: every LDS access becomes a flat one through a select of
//     the two places, and casts to and from generic addresses and `isspacep.shared` agree.
//
// Functions reach the argument through the implicit-argument pointer: the hidden arguments start
// right after it (it is last, 8-aligned, and a multiple of 8 bytes long). Slower than LDS, and
// only made for the launches that need it.
//
//===----------------------------------------------------------------------===//

#include "ptx2amd/amdgpu-backend/Codegen.h"
#include "ptx2amd/amdgpu-backend/Kernarg.h"
#include "ptx2amd/support/Error.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ReplaceConstant.h"

using namespace llvm;

namespace ptx2amd::amdgpu {
namespace {

constexpr unsigned FlatAS = 0, GlobalAS = 1, LdsAS = 3, ConstantAS = 4;

bool isDynamicLds(const GlobalVariable &G) {
  auto *Ty = dyn_cast<ArrayType>(G.getValueType());
  return G.getAddressSpace() == LdsAS && G.isDeclaration() && Ty && Ty->getNumElements() == 0;
}

bool isLdsPointer(const Value *V) {
  auto *PT = dyn_cast<PointerType>(V->getType());
  return PT && PT->getAddressSpace() == LdsAS;
}

/// Appends the descriptor argument to kernel \p F (a new function takes its place and body).
Function *appendDescriptor(Function &F) {
  SmallVector<Type *, 8> Params(F.getFunctionType()->params());
  PointerType *ByRefPtr = PointerType::get(F.getContext(), ConstantAS);
  Params.push_back(ByRefPtr);
  auto *Ty = FunctionType::get(F.getReturnType(), Params, false);
  Function *NF = Function::Create(Ty, F.getLinkage(), F.getAddressSpace(), "", F.getParent());
  NF->copyAttributesFrom(&F);
  NF->copyMetadata(&F, 0);
  NF->takeName(&F);
  NF->splice(NF->begin(), &F);
  for (auto [Old, New] : zip(F.args(), NF->args())) {
    Old.replaceAllUsesWith(&New);
    New.takeName(&Old);
  }
  Argument *D = NF->getArg(NF->arg_size() - 1);
  D->setName(DynamicSharedArgName);
  auto *DescTy = ArrayType::get(Type::getInt64Ty(F.getContext()), DynamicSharedArgBytes / 8);
  NF->addParamAttr(D->getArgNo(), Attribute::getWithByRefType(F.getContext(), DescTy));
  NF->addParamAttr(D->getArgNo(), Attribute::getWithAlignment(F.getContext(), Align(8)));
  F.replaceAllUsesWith(NF);
  F.eraseFromParent();
  return NF;
}

/// The rewrite of one function's shared-memory accesses.
class FunctionRewrite {
public:
  FunctionRewrite(Function &F, GlobalVariable &Dynamic) : F(F), Dynamic(Dynamic) {}

  Error run() {
    SmallVector<Instruction *, 32> Work;
    for (BasicBlock &BB : F)
      for (Instruction &I : BB)
        if (needsRewrite(I))
          Work.push_back(&I);
    for (Instruction *I : Work)
      if (Error E = rewrite(*I))
        return E;
    return Error::success();
  }

private:
  Function &F;
  GlobalVariable &Dynamic;
  Value *Base = nullptr, *Stride = nullptr, *DynamicOffset = nullptr;

  static bool needsRewrite(const Instruction &I) {
    if (auto *Cast = dyn_cast<AddrSpaceCastInst>(&I))
      return Cast->getSrcAddressSpace() == LdsAS || Cast->getDestAddressSpace() == LdsAS;
    if (auto *Call = dyn_cast<CallBase>(&I)) {
      if (auto *II = dyn_cast<IntrinsicInst>(Call);
          II && II->getIntrinsicID() == Intrinsic::amdgcn_is_shared)
        return true;
      return any_of(Call->args(), [](const Use &U) { return isLdsPointer(U.get()); });
    }
    if (const Value *P = getLoadStorePointerOperand(&I))
      return isLdsPointer(P);
    if (auto *A = dyn_cast<AtomicRMWInst>(&I))
      return isLdsPointer(A->getPointerOperand());
    if (auto *A = dyn_cast<AtomicCmpXchgInst>(&I))
      return isLdsPointer(A->getPointerOperand());
    return false;
  }

  /// The block's slice, its size and the dynamic variable's LDS offset, computed once at entry.
  void materialise() {
    if (Base)
      return;
    IRBuilder<> B(&*F.getEntryBlock().getFirstInsertionPt());
    Type *I32 = B.getInt32Ty(), *I64 = B.getInt64Ty();
    Value *Implicit = B.CreateIntrinsic(Intrinsic::amdgcn_implicitarg_ptr, {});
    Value *Desc =
        B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Implicit, -int64_t(DynamicSharedArgBytes));
    auto Field = [&](Type *T, uint64_t Offset) {
      Value *P = B.CreateConstInBoundsGEP1_64(B.getInt8Ty(), Desc, Offset);
      LoadInst *L = B.CreateAlignedLoad(T, P, Align(T->getPrimitiveSizeInBits() / 8));
      L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(F.getContext(), {}));
      return L;
    };
    Value *Address = Field(I64, 0);
    Stride = Field(I64, 8);
    Value *BlocksX = B.CreateZExt(Field(I32, 16), I64);
    Value *BlocksY = B.CreateZExt(Field(I32, 20), I64);
    auto Id = [&](Intrinsic::ID ID) { return B.CreateZExt(B.CreateIntrinsic(ID, {}), I64); };
    Value *X = Id(Intrinsic::amdgcn_workgroup_id_x);
    Value *Y = Id(Intrinsic::amdgcn_workgroup_id_y);
    Value *Z = Id(Intrinsic::amdgcn_workgroup_id_z);
    Value *Linear = B.CreateAdd(X, B.CreateMul(BlocksX, B.CreateAdd(Y, B.CreateMul(BlocksY, Z))));
    Base = B.CreateIntToPtr(B.CreateAdd(Address, B.CreateMul(Linear, Stride)),
                            PointerType::get(F.getContext(), GlobalAS), "dynamic.shared");
    DynamicOffset = B.CreatePtrToInt(&Dynamic, I32, "dynamic.shared.offset");
  }

  /// \p P (an LDS pointer) as a generic one: into the block's slice past the dynamic variable.
  Value *generic(IRBuilder<> &B, Value *P) {
    Value *Offset = B.CreatePtrToInt(P, B.getInt32Ty());
    Value *InSlice = B.CreateICmpUGE(Offset, DynamicOffset);
    Value *Into = B.CreateZExt(B.CreateSub(Offset, DynamicOffset), B.getInt64Ty());
    Value *Slice = B.CreateInBoundsGEP(B.getInt8Ty(), Base, Into);
    PointerType *Flat = PointerType::get(F.getContext(), FlatAS);
    return B.CreateSelect(InSlice, B.CreateAddrSpaceCast(Slice, Flat),
                          B.CreateAddrSpaceCast(P, Flat));
  }

  /// Whether generic pointer \p P is in the block's slice, and its distance from the start.
  std::pair<Value *, Value *> inSlice(IRBuilder<> &B, Value *P) {
    Value *Diff =
        B.CreateSub(B.CreatePtrToInt(P, B.getInt64Ty()), B.CreatePtrToInt(Base, B.getInt64Ty()));
    return {B.CreateICmpULT(Diff, Stride), Diff};
  }

  Error unsupported(const std::string &Callee) const {
    return makeError(ErrorKind::Unsupported, "dynamic shared memory in global memory: function '" +
                                                 F.getName().str() +
                                                 "' passes a shared address to " + Callee);
  }

  Error rewrite(Instruction &I) {
    materialise();
    IRBuilder<> B(&I);
    if (auto *Cast = dyn_cast<AddrSpaceCastInst>(&I)) {
      if (Cast->getSrcAddressSpace() == LdsAS) {
        Value *G = generic(B, Cast->getPointerOperand());
        if (Cast->getDestAddressSpace() != FlatAS)
          G = B.CreateAddrSpaceCast(G, Cast->getType());
        Cast->replaceAllUsesWith(G);
        Cast->eraseFromParent();
        return Error::success();
      }
      // Generic to shared (cvta.to.shared): an address in the slice is past the variable.
      B.SetInsertPoint(Cast->getNextNode());
      auto [In, Diff] = inSlice(B, Cast->getPointerOperand());
      Value *Lds = B.CreateIntToPtr(B.CreateAdd(DynamicOffset, B.CreateTrunc(Diff, B.getInt32Ty())),
                                    Cast->getType());
      Value *Sel = B.CreateSelect(In, Lds, Cast);
      Cast->replaceUsesWithIf(Sel, [&](Use &U) { return U.getUser() != Sel; });
      return Error::success();
    }
    if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
      switch (II->getIntrinsicID()) {
      case Intrinsic::amdgcn_is_shared: {
        B.SetInsertPoint(II->getNextNode());
        Value *Or = B.CreateOr(II, inSlice(B, II->getArgOperand(0)).first);
        II->replaceUsesWithIf(Or, [&](Use &U) { return U.getUser() != Or; });
        return Error::success();
      }
      case Intrinsic::memcpy:
      case Intrinsic::memmove:
      case Intrinsic::memset: {
        // Re-created with generic pointers (the intrinsics are overloaded on them).
        auto *MI = cast<MemIntrinsic>(II);
        Value *Dst =
            isLdsPointer(MI->getRawDest()) ? generic(B, MI->getRawDest()) : MI->getRawDest();
        CallInst *New;
        if (auto *MS = dyn_cast<MemSetInst>(MI)) {
          New = B.CreateMemSet(Dst, MS->getValue(), MS->getLength(), MS->getDestAlign(),
                               MS->isVolatile());
        } else {
          auto *MT = cast<MemTransferInst>(MI);
          Value *Src = isLdsPointer(MT->getRawSource()) ? generic(B, MT->getRawSource())
                                                        : MT->getRawSource();
          New = II->getIntrinsicID() == Intrinsic::memmove
                    ? B.CreateMemMove(Dst, MT->getDestAlign(), Src, MT->getSourceAlign(),
                                      MT->getLength(), MT->isVolatile())
                    : B.CreateMemCpy(Dst, MT->getDestAlign(), Src, MT->getSourceAlign(),
                                     MT->getLength(), MT->isVolatile());
        }
        (void)New;
        II->eraseFromParent();
        return Error::success();
      }
      default:
        if (any_of(II->args(), [](const Use &U) { return isLdsPointer(U.get()); }))
          return unsupported(II->getCalledFunction()->getName().str());
        return Error::success();
      }
    }
    if (auto *Call = dyn_cast<CallBase>(&I)) {
      // A defined function rewrites its own accesses; anything else cannot be followed.
      const Function *Callee = Call->getCalledFunction();
      if (Callee && !Callee->isDeclaration())
        return Error::success();
      return unsupported(Callee ? "'" + Callee->getName().str() + "'" : "an indirect call");
    }
    unsigned Index = isa<StoreInst>(I)       ? StoreInst::getPointerOperandIndex()
                     : isa<LoadInst>(I)      ? LoadInst::getPointerOperandIndex()
                     : isa<AtomicRMWInst>(I) ? AtomicRMWInst::getPointerOperandIndex()
                                             : AtomicCmpXchgInst::getPointerOperandIndex();
    I.setOperand(Index, generic(B, I.getOperand(Index)));
    return Error::success();
  }
};

} // namespace

Error placeDynamicSharedInGlobal(Module &M) {
  SmallVector<Function *, 8> Kernels;
  for (Function &F : M)
    if (!F.isDeclaration() && F.getCallingConv() == CallingConv::AMDGPU_KERNEL)
      Kernels.push_back(&F);
  for (Function *F : Kernels)
    appendDescriptor(*F);

  GlobalVariable *Dynamic = nullptr;
  for (GlobalVariable &G : M.globals())
    if (isDynamicLds(G) && !G.use_empty()) {
      // Every dynamic variable of a kernel is at the same offset: any one of them gives it.
      Dynamic = &G;
      convertUsersOfConstantsToInstructions({&G});
    }
  if (!Dynamic)
    return Error::success();
  for (Function &F : M)
    if (!F.isDeclaration())
      if (Error E = FunctionRewrite(F, *Dynamic).run())
        return E;
  return Error::success();
}

} // namespace ptx2amd::amdgpu
