// Lane masks as integers where x86 has no mask registers: see MaskBits.h.
#include "MaskBits.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

#include <map>

using namespace llvm;

namespace ptx2amd::host {
namespace {

/// Masks of fewer lanes are left alone: the code generator keeps a <32 x i1> in a byte vector.
constexpr unsigned MinCarried = 33;
/// An integer becomes a mask of this many lanes or more through fromBits.
constexpr unsigned MinExpanded = 16;

unsigned lanesOf(Type *T) {
  auto *VT = dyn_cast<FixedVectorType>(T);
  return VT && VT->getElementType()->isIntegerTy(1) ? VT->getNumElements() : 0;
}

/// The mask whose lane L is bit L of \p Bits (an integer of the mask's width).
Value *fromBits(IRBuilder<> &B, Value *Bits) {
  unsigned N = Bits->getType()->getIntegerBitWidth();
  Type *I32 = B.getInt32Ty();
  unsigned Words = (N + 31) / 32;
  Value *Ws = PoisonValue::get(FixedVectorType::get(I32, Words));
  for (unsigned K = 0; K < Words; ++K) {
    Value *Word = K ? B.CreateLShr(Bits, 32 * K) : Bits;
    Ws = B.CreateInsertElement(Ws, B.CreateZExtOrTrunc(Word, I32), K);
  }
  SmallVector<int, 64> Pick;
  SmallVector<Constant *, 64> Bit;
  for (unsigned L = 0; L < N; ++L) {
    Pick.push_back(int(L / 32));
    Bit.push_back(B.getInt32(uint32_t(1) << (L % 32)));
  }
  Value *Spread = B.CreateShuffleVector(Ws, Pick);
  Value *BitV = ConstantVector::get(Bit);
  return B.CreateICmpNE(B.CreateAnd(Spread, BitV), Constant::getNullValue(Spread->getType()));
}

void expandBitcasts(Function &F) {
  SmallVector<BitCastInst *, 16> Casts;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (auto *C = dyn_cast<BitCastInst>(&I);
          C && lanesOf(C->getType()) >= MinExpanded && C->getSrcTy()->isIntegerTy())
        Casts.push_back(C);
  for (BitCastInst *C : Casts) {
    IRBuilder<> B(C);
    C->replaceAllUsesWith(fromBits(B, C->getOperand(0)));
    C->eraseFromParent();
  }
}

void carryAcrossBlocks(Function &F) {
  // Every wide mask that a phi takes in or a later block uses; phis first, so that the
  // integers of phis exist before their incoming values are wired.
  SmallVector<PHINode *, 8> Phis;
  SmallVector<Instruction *, 16> Crossing;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      if (lanesOf(I.getType()) < MinCarried)
        continue;
      if (auto *P = dyn_cast<PHINode>(&I)) {
        Phis.push_back(P);
        continue;
      }
      for (User *U : I.users())
        if (isa<PHINode>(U) || cast<Instruction>(U)->getParent() != &BB) {
          Crossing.push_back(&I);
          break;
        }
    }
  if (Phis.empty() && Crossing.empty())
    return;
  DenseMap<Value *, Value *> Bits;
  for (PHINode *P : Phis) {
    auto *Int =
        PHINode::Create(IntegerType::get(F.getContext(), lanesOf(P->getType())),
                        P->getNumIncomingValues(), P->getName() + ".bits", P->getIterator());
    Bits[P] = Int;
  }
  for (Instruction *I : Crossing) {
    IRBuilder<> B(I->getParent(), std::next(I->getIterator()));
    Bits[I] = B.CreateBitCast(I, IntegerType::get(F.getContext(), lanesOf(I->getType())),
                              I->getName() + ".bits");
  }
  auto BitsOf = [&](Value *V) -> Value * {
    if (auto It = Bits.find(V); It != Bits.end())
      return It->second;
    Type *IT = IntegerType::get(F.getContext(), lanesOf(V->getType()));
    if (auto *C = dyn_cast<Constant>(V))
      return ConstantExpr::getBitCast(C, IT);
    return nullptr;
  };
  for (PHINode *P : Phis) {
    auto *Int = cast<PHINode>(Bits[P]);
    for (unsigned K = 0; K < P->getNumIncomingValues(); ++K) {
      Value *V = P->getIncomingValue(K);
      Value *VB = BitsOf(V);
      if (!VB) {
        // An argument or a mask made in the same block as it leaves: its integer at the
        // end of the incoming block.
        IRBuilder<> B(P->getIncomingBlock(K)->getTerminator());
        VB = B.CreateBitCast(V, Int->getType());
      }
      Int->addIncoming(VB, P->getIncomingBlock(K));
    }
  }
  // Uses in other blocks (and of the old phis anywhere) read the mask from its integer,
  // once per block.
  std::map<std::pair<Value *, BasicBlock *>, Value *> Remade;
  auto MaskIn = [&](Value *V, BasicBlock *BB) {
    Value *&M = Remade[{V, BB}];
    if (!M) {
      IRBuilder<> B(BB, BB->getFirstInsertionPt());
      M = fromBits(B, Bits[V]);
    }
    return M;
  };
  SmallVector<Value *, 24> Carried(Phis.begin(), Phis.end());
  Carried.append(Crossing.begin(), Crossing.end());
  for (Value *V : Carried) {
    auto *Def = cast<Instruction>(V);
    for (Use &U : make_early_inc_range(V->uses())) {
      auto *User = cast<Instruction>(U.getUser());
      if (User == Bits[V])
        continue;
      if (auto *Q = dyn_cast<PHINode>(User)) {
        // A carried phi takes the integer; another phi (a narrower use?) keeps the mask.
        if (Bits.count(Q))
          continue;
        IRBuilder<> B(Q->getIncomingBlock(U)->getTerminator());
        U.set(fromBits(B, Bits[V]));
        continue;
      }
      if (isa<PHINode>(Def) || User->getParent() != Def->getParent())
        U.set(MaskIn(V, User->getParent()));
    }
  }
  for (PHINode *P : Phis) {
    P->replaceAllUsesWith(PoisonValue::get(P->getType()));
    P->eraseFromParent();
  }
}

} // namespace

void carryMasksAsBits(Module &M) {
  for (Function &F : M) {
    if (F.isDeclaration())
      continue;
    expandBitcasts(F);
    carryAcrossBlocks(F);
  }
}

} // namespace ptx2amd::host
