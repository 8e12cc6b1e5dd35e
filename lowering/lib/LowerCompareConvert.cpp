// Comparisons (setp/set/selp) and conversions (cvt, cvta).
#include "FunctionLowerer.h"

#include "ptx2amd/ptx-ir/Printer.h"

#include <fmt/format.h>

using namespace llvm;

namespace ptx2amd::lowering {
using ir::Mod;
using ir::Opcode;
using ir::Operand;

Value *FunctionLowerer::compare(const ir::Instruction &I, ir::Type T, Value *A, Value *C) {
  bool Signed = isSigned(T);
  if (isFloat(T)) {
    CmpInst::Predicate P;
    if (I.has(Mod::Eq))
      P = CmpInst::FCMP_OEQ;
    else if (I.has(Mod::Ne))
      P = CmpInst::FCMP_ONE;
    else if (I.has(Mod::Lt))
      P = CmpInst::FCMP_OLT;
    else if (I.has(Mod::Le))
      P = CmpInst::FCMP_OLE;
    else if (I.has(Mod::Gt))
      P = CmpInst::FCMP_OGT;
    else if (I.has(Mod::Ge))
      P = CmpInst::FCMP_OGE;
    else if (I.has(Mod::Equ))
      P = CmpInst::FCMP_UEQ;
    else if (I.has(Mod::Neu))
      P = CmpInst::FCMP_UNE;
    else if (I.has(Mod::Ltu))
      P = CmpInst::FCMP_ULT;
    else if (I.has(Mod::Leu))
      P = CmpInst::FCMP_ULE;
    else if (I.has(Mod::Gtu))
      P = CmpInst::FCMP_UGT;
    else if (I.has(Mod::Geu))
      P = CmpInst::FCMP_UGE;
    else if (I.has(Mod::Num))
      P = CmpInst::FCMP_ORD;
    else if (I.has(Mod::Nan))
      P = CmpInst::FCMP_UNO;
    else
      unsupported();
    return B.CreateFCmp(P, A, C);
  }
  CmpInst::Predicate P;
  if (I.has(Mod::Eq))
    P = CmpInst::ICMP_EQ;
  else if (I.has(Mod::Ne))
    P = CmpInst::ICMP_NE;
  else if (I.has(Mod::Lt))
    P = Signed ? CmpInst::ICMP_SLT : CmpInst::ICMP_ULT;
  else if (I.has(Mod::Le))
    P = Signed ? CmpInst::ICMP_SLE : CmpInst::ICMP_ULE;
  else if (I.has(Mod::Gt))
    P = Signed ? CmpInst::ICMP_SGT : CmpInst::ICMP_UGT;
  else if (I.has(Mod::Ge))
    P = Signed ? CmpInst::ICMP_SGE : CmpInst::ICMP_UGE;
  else if (I.has(Mod::Lo))
    P = CmpInst::ICMP_ULT;
  else if (I.has(Mod::Ls))
    P = CmpInst::ICMP_ULE;
  else if (I.has(Mod::Hi))
    P = CmpInst::ICMP_UGT;
  else if (I.has(Mod::Hs))
    P = CmpInst::ICMP_UGE;
  else
    unsupported();
  return B.CreateICmp(P, A, C);
}

void FunctionLowerer::setp(const ir::Instruction &I) {
  ir::Type T = type0(I);
  if (I.has(Mod::Ftz))
    unsupported();
  size_t Src = I.NumDefs;
  Value *A = get(I.Operands[Src], T);
  Value *C = get(I.Operands[Src + 1], T);
  Value *R = compare(I, T, A, C);
  // `setp ... p|q` also writes the complement (combined the same way) to q.
  Value *NotR = I.NumDefs == 2 ? B.CreateNot(R) : nullptr;
  if (I.has(Mod::And) || I.has(Mod::Or) || I.has(Mod::Xor)) {
    Value *C = get(I.Operands[Src + 2], ir::Type::Pred);
    auto Combine = [&](Value *X) {
      return I.has(Mod::And)  ? B.CreateAnd(X, C)
             : I.has(Mod::Or) ? B.CreateOr(X, C)
                              : B.CreateXor(X, C);
    };
    R = Combine(R);
    if (NotR)
      NotR = Combine(NotR);
  }
  def(I.Operands[0], R);
  if (I.NumDefs == 2)
    def(I.Operands[1], NotR);
}

void FunctionLowerer::cvt(const ir::Instruction &I) {
  if (I.Types.size() != 2)
    unsupported();
  ir::Type DT = I.Types[0], ST = I.Types[1];
  Value *A = get(I.Operands[1], ST);
  llvm::Type *DV = valueType(S.Ctx, DT);
  for (const ir::Modifier &M : I.Mods)
    if (M.Id != Mod::Rn && M.Id != Mod::Rzi && M.Id != Mod::Rni && M.Id != Mod::Rmi &&
        M.Id != Mod::Rpi && M.Id != Mod::Rz && M.Id != Mod::Sat)
      unsupported(); // .ftz, .relu, packing forms: not yet
  if (DV->isVectorTy() || valueType(S.Ctx, ST)->isVectorTy())
    unsupported(); // packing conversions (f16x2, bf16x2, ...): not yet
  Value *R;
  if (isFloat(ST) && isFloat(DT)) {
    if (ir::typeBits(DT) < ir::typeBits(ST) && !I.has(Mod::Rn))
      unsupported();
    if (I.has(Mod::Rni) || I.has(Mod::Rzi) || I.has(Mod::Rmi) || I.has(Mod::Rpi))
      A = roundToInteger(I, A);
    R = saturate(I, B.CreateFPCast(A, DV));
  } else if (isFloat(ST)) {
    if (!(I.has(Mod::Rni) || I.has(Mod::Rzi) || I.has(Mod::Rmi) || I.has(Mod::Rpi)))
      unsupported();
    // PTX saturates out-of-range values and turns NaN into 0: fptosi.sat / fptoui.sat.
    R = intrinsic(isSigned(DT) ? Intrinsic::fptosi_sat : Intrinsic::fptoui_sat, {DV, A->getType()},
                  {roundToInteger(I, A)});
  } else if (isFloat(DT)) {
    if (!I.has(Mod::Rn) || I.has(Mod::Sat))
      unsupported();
    R = isSigned(ST) ? B.CreateSIToFP(A, DV) : B.CreateUIToFP(A, DV);
  } else {
    if (I.has(Mod::Sat)) {
      // Clamp to the destination's range first.
      unsigned DB = ir::typeBits(DT);
      llvm::Type *AT = A->getType();
      APInt Lo = isSigned(DT) ? APInt::getSignedMinValue(DB) : APInt::getMinValue(DB);
      APInt Hi = isSigned(DT) ? APInt::getSignedMaxValue(DB) : APInt::getMaxValue(DB);
      unsigned AB = AT->getIntegerBitWidth();
      if (DB < AB || isSigned(DT) != isSigned(ST)) {
        Value *LoV = ConstantInt::get(AT, isSigned(DT) ? Lo.sext(std::max(AB, DB)).trunc(AB)
                                                       : Lo.zext(std::max(AB, DB)).trunc(AB));
        Value *HiV = ConstantInt::get(AT, isSigned(DT) ? Hi.sext(std::max(AB, DB)).trunc(AB)
                                                       : Hi.zext(std::max(AB, DB)).trunc(AB));
        if (isSigned(ST)) {
          A = intrinsic(Intrinsic::smax, {AT}, {A, isSigned(DT) ? LoV : ConstantInt::get(AT, 0)});
          A = intrinsic(Intrinsic::smin, {AT}, {A, HiV});
        } else {
          A = intrinsic(Intrinsic::umin, {AT}, {A, HiV});
        }
      }
    }
    R = convert(A, DV, isSigned(ST));
  }
  // A destination wider than the type (cvt.u16 into a 32-bit register) extends by the type.
  def(I.Operands[0], R);
}

void FunctionLowerer::cvta(const ir::Instruction &I) {
  ir::Type T = type0(I);
  unsigned AS = spaceOf(I);
  Value *A = get(I.Operands[1], T);
  if (AS == ASGlobal || AS == ASConst || AS == ASFlat) {
    def(I.Operands[0], A); // global and constant addresses are the same in the flat space
    return;
  }
  if (AS == ~0u)
    unsupported();
  unsigned Bits = ir::typeBits(T);
  if (I.has(Mod::To)) { // generic -> space
    Value *P = B.CreateIntToPtr(convert(A, B.getInt64Ty()), PointerType::get(S.Ctx, ASFlat));
    Value *Q = B.CreateAddrSpaceCast(P, PointerType::get(S.Ctx, AS));
    def(I.Operands[0], B.CreatePtrToInt(Q, B.getIntNTy(Bits)));
  } else { // space -> generic
    Value *P = B.CreateIntToPtr(convert(A, B.getInt32Ty()), PointerType::get(S.Ctx, AS));
    Value *Q = B.CreateAddrSpaceCast(P, PointerType::get(S.Ctx, ASFlat));
    def(I.Operands[0], B.CreatePtrToInt(Q, B.getIntNTy(Bits)));
  }
}

} // namespace ptx2amd::lowering
