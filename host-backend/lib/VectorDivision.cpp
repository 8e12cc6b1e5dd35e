//===- VectorDivision.cpp - a wave's integer divisions as double divisions ===//
//
// x86-64 has no vector integer division: code generation splits a <64 x i32> udiv into 64
// scalar divisions of 10 to 20 cycles each, where one vdivpd divides 8 doubles. A wave whose
// lanes divide by a kernel argument (NVIDIA's simpleAttributes: four remainders an iteration)
// spent most of its time there. For 32-bit operands the double quotient truncates to the
// integer one exactly: |a|, |b| < 2^32 are exact doubles, and where a/b lies in (k, k + 1) it
// is at least 1/|b| from k + 1 while the division's rounding error is at most
// (k + 1) * 2^-53 < 1/|b|, since (k + 1)|b| <= |a| + |b| < 2^53; so rounding never reaches the
// next integer (and an integer quotient is exact). The remainder is a - q * b in 32 bits.
// Division by zero, undefined in the IR, gives a frozen arbitrary value instead of a fault (the
// vectoriser already divides inactive lanes by 1).
#include "VectorDivision.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Module.h"

#include <vector>

using namespace llvm;

namespace ptx2amd::host {

unsigned widenVectorDivisions(Module &M) {
  std::vector<BinaryOperator *> Work;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      if (auto *BO = dyn_cast<BinaryOperator>(&I))
        if (auto *VT = dyn_cast<FixedVectorType>(BO->getType());
            VT && VT->getElementType()->isIntegerTy(32) && VT->getNumElements() > 1)
          switch (BO->getOpcode()) {
          case Instruction::UDiv:
          case Instruction::URem:
          case Instruction::SDiv:
          case Instruction::SRem:
            Work.push_back(BO);
            break;
          default:
            break;
          }
  IRBuilder<> B(M.getContext());
  for (BinaryOperator *BO : Work) {
    B.SetInsertPoint(BO);
    auto *VT = cast<FixedVectorType>(BO->getType());
    auto *DT = FixedVectorType::get(B.getDoubleTy(), VT->getNumElements());
    const Instruction::BinaryOps Op = BO->getOpcode();
    const bool Signed = Op == Instruction::SDiv || Op == Instruction::SRem;
    Value *A = BO->getOperand(0), *D = BO->getOperand(1);
    auto ToDouble = [&](Value *V) {
      return Signed ? B.CreateSIToFP(V, DT) : B.CreateUIToFP(V, DT);
    };
    Value *Q = B.CreateFDiv(ToDouble(A), ToDouble(D));
    Q = B.CreateFreeze(Signed ? B.CreateFPToSI(Q, VT) : B.CreateFPToUI(Q, VT));
    Value *R =
        Op == Instruction::UDiv || Op == Instruction::SDiv ? Q : B.CreateSub(A, B.CreateMul(Q, D));
    R->takeName(BO);
    BO->replaceAllUsesWith(R);
    BO->eraseFromParent();
  }
  return unsigned(Work.size());
}

} // namespace ptx2amd::host
