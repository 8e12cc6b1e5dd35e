// Narrow pointers: LDS (3) and private (5) pointers are 32 bits, as on AMDGPU. A memory access
// through one goes through the flat host address it stands for: an LDS address is an offset in
// the workgroup's arena (LaneState::LdsWindow), a private address the low 32 bits of a host
// stack address below 4 GiB, so private allocas move to the work-item's (low) host stack and keep
// a 32-bit address; casts to and from flat pointers add or subtract the arena's address. LDS
// atomics are marked for LdsAtomics.cpp. An intrinsic on a narrow pointer that has no flat form
// here makes its function unavailable.
#include "Retargeter.h"

#include "LaneState.h"

#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ReplaceConstant.h"

using namespace llvm;

namespace ptx2amd::host {
namespace {

/// A 32-bit LDS/private pointer as the flat host address it stands for: private memory lies
/// below 4 GiB; an LDS address is an offset in the workgroup's arena, which starts a 4 GiB
/// window that is PROT_NONE past the arena (any LDS address outside it faults).
Value *toNarrowFlat(Retargeter &R, IRBuilder<> &B, Value *P) {
  Value *Low = B.CreateZExt(B.CreatePtrToInt(P, R.I32), R.I64);
  if (P->getType()->getPointerAddressSpace() == ASLds)
    return B.CreateGEP(R.I8, R.field(B, state::LdsWindow, R.Ptr), Low);
  return B.CreateIntToPtr(Low, R.Ptr);
}

/// Constant casts from and to the 32-bit spaces become instructions, which
/// lowerNarrowPointers rewrites.
void expandNarrowCasts(Module &M) {
  SmallVector<Constant *, 8> Casts;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      for (Value *Op : I.operands()) {
        SmallVector<Value *, 4> Work{Op};
        while (!Work.empty()) {
          auto *CE = dyn_cast<ConstantExpr>(Work.pop_back_val());
          if (!CE)
            continue;
          if (auto *AC = dyn_cast<AddrSpaceCastOperator>(CE))
            if (isNarrow(AC->getSrcAddressSpace()) || isNarrow(AC->getDestAddressSpace()))
              Casts.push_back(CE);
          Work.append(CE->op_begin(), CE->op_end());
        }
      }
  if (!Casts.empty())
    convertUsersOfConstantsToInstructions(Casts);
}

} // namespace

void lowerNarrowPointers(Retargeter &R) {
  IRBuilder<> B(R.C);
  expandNarrowCasts(R.M);
  for (Function &F : R.M) {
    for (Instruction &I : make_early_inc_range(instructions(F))) {
      B.SetInsertPoint(&I);
      auto Narrow = [&](unsigned OpNo) {
        Value *P = I.getOperand(OpNo);
        if (isNarrow(P->getType()->getPointerAddressSpace()))
          I.setOperand(OpNo, toNarrowFlat(R, B, P));
      };
      if (isa<LoadInst>(I)) {
        Narrow(LoadInst::getPointerOperandIndex());
      } else if (isa<StoreInst>(I)) {
        Narrow(StoreInst::getPointerOperandIndex());
      } else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
        bool Lds = RMW->getPointerAddressSpace() == ASLds;
        Narrow(AtomicRMWInst::getPointerOperandIndex());
        if (Lds)
          RMW->setMetadata(LdsAtomicKind, MDNode::get(R.C, {}));
      } else if (auto *Cas = dyn_cast<AtomicCmpXchgInst>(&I)) {
        bool Lds = Cas->getPointerAddressSpace() == ASLds;
        Narrow(AtomicCmpXchgInst::getPointerOperandIndex());
        if (Lds)
          Cas->setMetadata(LdsAtomicKind, MDNode::get(R.C, {}));
      } else if (auto *AC = dyn_cast<AddrSpaceCastInst>(&I)) {
        unsigned From = AC->getSrcAddressSpace(), To = AC->getDestAddressSpace();
        if (!isNarrow(From) && !isNarrow(To))
          continue;
        Value *Src = AC->getPointerOperand(), *Narrowed;
        if (isNarrow(From) && isNarrow(To)) {
          Narrowed = B.CreateIntToPtr(B.CreatePtrToInt(Src, R.I32), AC->getType());
        } else if (isNarrow(From)) {
          Narrowed = toNarrowFlat(R, B, Src);
        } else {
          Value *Flat = B.CreatePtrToInt(Src, R.I64);
          if (To == ASLds)
            Flat = B.CreateSub(Flat, B.CreatePtrToInt(R.field(B, state::LdsWindow, R.Ptr), R.I64));
          Narrowed = B.CreateIntToPtr(B.CreateTrunc(Flat, R.I32), AC->getType());
        }
        AC->replaceAllUsesWith(Narrowed);
        AC->eraseFromParent();
      } else if (auto *AI = dyn_cast<AllocaInst>(&I)) {
        if (AI->getAddressSpace() != ASPrivate)
          continue;
        // On the work-item's stack, which lies below 4 GiB: its low 32 bits are its address.
        auto *New = B.CreateAlloca(AI->getAllocatedType(), ASFlat, AI->getArraySize());
        New->setAlignment(AI->getAlign());
        New->takeName(AI);
        Value *Low = B.CreateTrunc(B.CreatePtrToInt(New, R.I64), R.I32);
        AI->replaceAllUsesWith(B.CreateIntToPtr(Low, AI->getType()));
        AI->eraseFromParent();
      } else if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
        Value *Dst = MI->getRawDest();
        bool NarrowDst = isNarrow(Dst->getType()->getPointerAddressSpace());
        auto *MT = dyn_cast<MemTransferInst>(MI);
        bool NarrowSrc = MT && isNarrow(MT->getRawSource()->getType()->getPointerAddressSpace());
        if (!NarrowDst && !NarrowSrc)
          continue;
        Value *D = NarrowDst ? toNarrowFlat(R, B, Dst) : Dst;
        if (auto *MS = dyn_cast<MemSetInst>(MI)) {
          B.CreateMemSet(D, MS->getValue(), MS->getLength(), MS->getDestAlign(), MS->isVolatile());
        } else if (MT) {
          Value *S = NarrowSrc ? toNarrowFlat(R, B, MT->getRawSource()) : MT->getRawSource();
          if (isa<MemMoveInst>(MT))
            B.CreateMemMove(D, MT->getDestAlign(), S, MT->getSourceAlign(), MT->getLength(),
                            MT->isVolatile());
          else
            B.CreateMemCpy(D, MT->getDestAlign(), S, MT->getSourceAlign(), MT->getLength(),
                           MT->isVolatile());
        } else {
          R.Broken.emplace(&F, "intrinsic '" + MI->getCalledFunction()->getName().str() +
                                   "' on a 32-bit pointer is not supported by the host backend");
          continue;
        }
        MI->eraseFromParent();
      } else if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
        for (Value *A : II->args())
          if (A->getType()->isPointerTy() && isNarrow(A->getType()->getPointerAddressSpace()) &&
              II->getIntrinsicID() != Intrinsic::ptrmask) {
            R.Broken.emplace(&F, "intrinsic '" + II->getCalledFunction()->getName().str() +
                                     "' on a 32-bit pointer is not supported by the host backend");
            break;
          }
      }
    }
  }
}

} // namespace ptx2amd::host
