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

/// setp: p = a CmpOp b (BoolOp c); `p|q` also writes the complement, or for f16x2/bf16x2 the
/// comparisons of the low (p) and high (q) halves.
void FunctionLowerer::setp(const ir::Instruction &I) {
  ir::Type T = type0(I);
  size_t Src = I.NumDefs;
  Value *A = get(I.Operands[Src], T);
  Value *C = get(I.Operands[Src + 1], T);
  if (I.has(Mod::Ftz)) {
    A = flush(A);
    C = flush(C);
  }
  Value *R = compare(I, T, A, C);
  Value *Q = nullptr;
  if (R->getType()->isVectorTy()) {
    Value *Lo = B.CreateExtractElement(R, uint64_t(0));
    Q = B.CreateExtractElement(R, uint64_t(1));
    R = Lo;
  } else if (I.NumDefs == 2) {
    Q = B.CreateNot(R);
  }
  if (I.has(Mod::And) || I.has(Mod::Or) || I.has(Mod::Xor)) {
    Value *C = get(I.Operands[Src + 2], ir::Type::Pred);
    auto Combine = [&](Value *X) {
      return I.has(Mod::And)  ? B.CreateAnd(X, C)
             : I.has(Mod::Or) ? B.CreateOr(X, C)
                              : B.CreateXor(X, C);
    };
    R = Combine(R);
    if (Q)
      Q = Combine(Q);
  }
  def(I.Operands[0], R);
  if (I.NumDefs == 2)
    def(I.Operands[1], Q);
}

/// set.CmpOp{.BoolOp}.dtype.stype: true as 0xffffffff (0xffff per half of a packed source) or
/// 1.0 of a float dtype, false as 0.
void FunctionLowerer::set(const ir::Instruction &I) {
  if (I.Types.size() != 2)
    unsupported();
  ir::Type DT = I.Types[0], ST = I.Types[1];
  Value *A = get(I.Operands[1], ST);
  Value *C = get(I.Operands[2], ST);
  if (I.has(Mod::Ftz)) {
    A = flush(A);
    C = flush(C);
  }
  Value *R = compare(I, ST, A, C);
  auto *VT = dyn_cast<FixedVectorType>(R->getType());
  if (I.has(Mod::And) || I.has(Mod::Or) || I.has(Mod::Xor)) {
    Value *P = get(I.Operands[3], ir::Type::Pred);
    if (VT)
      P = B.CreateVectorSplat(VT->getNumElements(), P);
    R = I.has(Mod::And) ? B.CreateAnd(R, P) : I.has(Mod::Or) ? B.CreateOr(R, P) : B.CreateXor(R, P);
  }
  llvm::Type *DV = valueType(S.Ctx, DT);
  if (isFloat(DT)) {
    if (DV->isVectorTy() != bool(VT))
      unsupported();
    def(I.Operands[0], B.CreateSelect(R, ConstantFP::get(DV, 1.0), ConstantFP::get(DV, 0.0)));
    return;
  }
  if (VT) { // each half all ones or zero
    unsigned Lane = ir::typeBits(DT) / VT->getNumElements();
    Value *Lanes = B.CreateSExt(R, FixedVectorType::get(B.getIntNTy(Lane), VT->getNumElements()));
    def(I.Operands[0], B.CreateBitCast(Lanes, B.getIntNTy(ir::typeBits(DT))));
    return;
  }
  def(I.Operands[0], B.CreateSExt(R, DV));
}

/// slct.dtype.ctype d, a, b, c: d = c >= 0 ? a : b (c an f32: -0 counts as 0, NaN picks b).
void FunctionLowerer::slct(const ir::Instruction &I) {
  if (I.Types.size() != 2)
    unsupported();
  ir::Type DT = I.Types[0], CT = I.Types[1];
  Value *A = get(I.Operands[1], DT);
  Value *Bv = get(I.Operands[2], DT);
  Value *C = get(I.Operands[3], CT);
  Value *Pick;
  if (isFloat(CT)) {
    if (I.has(Mod::Ftz))
      C = flush(C);
    Pick = B.CreateFCmpOGE(C, ConstantFP::get(C->getType(), 0.0));
  } else {
    Pick = B.CreateICmpSGE(C, ConstantInt::get(C->getType(), 0));
  }
  def(I.Operands[0], B.CreateSelect(Pick, A, Bv));
}

namespace {

bool isPacked(ir::Type T) {
  switch (T) {
  case ir::Type::F16x2:
  case ir::Type::BF16x2:
  case ir::Type::TF32:
  case ir::Type::E4M3x2:
  case ir::Type::E5M2x2:
    return true;
  default:
    return false;
  }
}

/// The 8-bit float formats of cvt: mantissa bits, exponent bias, largest finite value.
struct MiniFloat {
  unsigned Man;
  int Bias;
  double Max;
};
constexpr MiniFloat E4M3{3, 7, 448.0}, E5M2{2, 15, 57344.0};

} // namespace

void FunctionLowerer::cvt(const ir::Instruction &I) {
  if (I.Types.size() != 2)
    unsupported();
  ir::Type DT = I.Types[0], ST = I.Types[1];
  if (isPacked(DT) || isPacked(ST))
    return cvtPacked(I);
  for (const ir::Modifier &M : I.Mods)
    if (M.Id != Mod::Rn && M.Id != Mod::Rz && M.Id != Mod::Rm && M.Id != Mod::Rp &&
        M.Id != Mod::Rzi && M.Id != Mod::Rni && M.Id != Mod::Rmi && M.Id != Mod::Rpi &&
        M.Id != Mod::Sat && M.Id != Mod::Ftz && M.Id != Mod::Relu && M.Id != Mod::Satfinite)
      unsupported();
  Value *A = get(I.Operands[1], ST);
  llvm::Type *DV = valueType(S.Ctx, DT);
  // .ftz flushes f32 sources and results only.
  bool Ftz = I.has(Mod::Ftz);
  if (Ftz && ST == ir::Type::F32)
    A = flush(A);
  bool IntRound = I.has(Mod::Rni) || I.has(Mod::Rzi) || I.has(Mod::Rmi) || I.has(Mod::Rpi);
  if ((I.has(Mod::Relu) || I.has(Mod::Satfinite)) && !(isFloat(ST) && isFloat(DT)))
    unsupported();
  Round M = rounding(I);
  Value *R;
  if (isFloat(ST) && isFloat(DT)) {
    if (IntRound)
      A = roundToInteger(I, A);
    llvm::Type *SV = A->getType();
    if (SV->getPrimitiveSizeInBits() == DV->getPrimitiveSizeInBits() && SV != DV)
      A = B.CreateFPExt(A, B.getFloatTy()); // between f16 and bf16: through f32, exactly
    if (A->getType() == DV)
      R = A;
    else if (A->getType()->getPrimitiveSizeInBits() < DV->getPrimitiveSizeInBits())
      R = B.CreateFPExt(A, DV);
    else
      R = roundExact(A, nullptr, DV, M);
    if (I.has(Mod::Satfinite)) { // infinities to the largest finite value
      Value *Inf = B.createIsFPClass(R, fcInf);
      Value *Max =
          ConstantFP::get(DV, APFloat::getLargest(DV->getFltSemantics(), /*Negative=*/false));
      Value *Neg = B.CreateFCmpOLT(R, ConstantFP::get(DV, 0.0));
      Value *SignedMax = B.CreateSelect(Neg, B.CreateFNeg(Max), Max);
      R = B.CreateSelect(Inf, SignedMax, R);
    }
    if (I.has(Mod::Relu))
      R = relu(R);
  } else if (isFloat(ST)) {
    if (!IntRound)
      unsupported();
    // PTX saturates out-of-range values (fptosi.sat / fptoui.sat). A NaN gives 0, except from
    // an f64 source or into a 64-bit destination, where it gives the top bit alone.
    R = intrinsic(isSigned(DT) ? Intrinsic::fptosi_sat : Intrinsic::fptoui_sat, {DV, A->getType()},
                  {roundToInteger(I, A)});
    unsigned DB = ir::typeBits(DT);
    if (DB == 64 || A->getType()->isDoubleTy()) {
      Value *IsNaN = B.CreateFCmpUNO(A, A);
      R = B.CreateSelect(IsNaN, ConstantInt::get(DV, APInt::getOneBitSet(DB, DB - 1)), R);
    }
  } else if (isFloat(DT)) {
    if (IntRound)
      unsupported();
    bool Signed = isSigned(ST);
    if (M == Round::Nearest) {
      R = Signed ? B.CreateSIToFP(A, DV) : B.CreateUIToFP(A, DV);
    } else if (ir::typeBits(ST) <= 32) {
      // Exact in f64, then rounded once.
      Value *X = Signed ? B.CreateSIToFP(A, B.getDoubleTy()) : B.CreateUIToFP(A, B.getDoubleTy());
      R = roundExact(X, nullptr, DV, M);
    } else {
      // hi * 2^32 + lo, both exact in f64; their Fast2Sum pair is the exact value.
      Value *HiBits = Signed ? B.CreateAShr(A, 32) : B.CreateLShr(A, 32);
      Value *Hi32 = B.CreateTrunc(HiBits, B.getInt32Ty());
      Value *Hi =
          Signed ? B.CreateSIToFP(Hi32, B.getDoubleTy()) : B.CreateUIToFP(Hi32, B.getDoubleTy());
      Value *HiScaled = B.CreateFMul(Hi, ConstantFP::get(B.getDoubleTy(), 0x1p32));
      Value *Lo32 = B.CreateTrunc(A, B.getInt32Ty());
      Value *Lo = B.CreateUIToFP(Lo32, B.getDoubleTy());
      auto [Sum, Err] = twoSum(HiScaled, Lo);
      R = roundExact(Sum, Err, DV, M);
    }
  } else {
    if (I.has(Mod::Sat)) {
      // Clamp to the destination's range, compared in a width that holds both ranges (a u32
      // maximum does not fit an s32 source, nor an s32 minimum a u32 one).
      unsigned DB = ir::typeBits(DT), AB = A->getType()->getIntegerBitWidth();
      unsigned W = std::max(AB, DB) + 1;
      llvm::Type *WT = B.getIntNTy(W);
      Value *X = isSigned(ST) ? B.CreateSExt(A, WT) : B.CreateZExt(A, WT);
      APInt Lo = isSigned(DT) ? APInt::getSignedMinValue(DB).sext(W) : APInt::getZero(W);
      APInt Hi =
          isSigned(DT) ? APInt::getSignedMaxValue(DB).sext(W) : APInt::getMaxValue(DB).zext(W);
      X = intrinsic(Intrinsic::smax, {WT}, {X, ConstantInt::get(WT, Lo)});
      X = intrinsic(Intrinsic::smin, {WT}, {X, ConstantInt::get(WT, Hi)});
      R = B.CreateTrunc(X, DV);
    } else {
      R = convert(A, DV, isSigned(ST));
    }
    // A register wider than the destination type takes the value extended by that type
    // (cvt.s8.s32 into a 32-bit register is sign-extended).
    def(I.Operands[0], convertLoaded(R, I.Operands[0], DT));
    return;
  }
  if (Ftz && DT == ir::Type::F32)
    R = flush(R);
  // Integer results (float to int) are saturated already; a register wider than their type takes
  // them extended by the type.
  def(I.Operands[0], isFloat(DT) ? saturate(I, R) : convertLoaded(R, I.Operands[0], DT));
}

void FunctionLowerer::cvtPacked(const ir::Instruction &I) {
  ir::Type DT = I.Types[0], ST = I.Types[1];
  for (const ir::Modifier &M : I.Mods)
    if (M.Id != Mod::Rn && M.Id != Mod::Rz && M.Id != Mod::Rna && M.Id != Mod::Relu &&
        M.Id != Mod::Satfinite)
      unsupported(); // .rs (stochastic rounding) among others
  bool Relu = I.has(Mod::Relu), Satfinite = I.has(Mod::Satfinite);
  Round M = rounding(I);
  if (I.has(Mod::Rna) && DT != ir::Type::TF32)
    unsupported();
  llvm::Type *F32 = B.getFloatTy(), *I32 = B.getInt32Ty();

  // f16x2 / bf16x2 from two f32: d = {a (high half), b (low half)}.
  if ((DT == ir::Type::F16x2 || DT == ir::Type::BF16x2) && ST == ir::Type::F32) {
    if (I.Operands.size() != 3 || (M != Round::Nearest && M != Round::Zero))
      unsupported();
    llvm::Type *DV = valueType(S.Ctx, DT);
    llvm::Type *HT = cast<FixedVectorType>(DV)->getElementType();
    auto Half = [&](const Operand &O) {
      Value *H = roundExact(get(O, ST), nullptr, HT, M);
      if (Satfinite) {
        Value *Inf = B.createIsFPClass(H, fcInf);
        Value *Max = ConstantFP::get(HT, APFloat::getLargest(HT->getFltSemantics(), false));
        Value *Neg = B.CreateFCmpOLT(H, ConstantFP::get(HT, 0.0));
        Value *SignedMax = B.CreateSelect(Neg, B.CreateFNeg(Max), Max);
        H = B.CreateSelect(Inf, SignedMax, H);
      }
      return Relu ? relu(H) : H;
    };
    Value *Hi = Half(I.Operands[1]);
    Value *Lo = Half(I.Operands[2]);
    Value *V = B.CreateInsertElement(PoisonValue::get(DV), Lo, uint64_t(0));
    def(I.Operands[0], B.CreateInsertElement(V, Hi, uint64_t(1)));
    return;
  }

  // tf32: an f32 with 10 mantissa bits (the low 13 bits zero).
  if (DT == ir::Type::TF32 && ST == ir::Type::F32) {
    if (M != Round::Nearest && M != Round::Zero)
      unsupported();
    Value *A = get(I.Operands[1], ST);
    if (Relu)
      A = relu(A);
    Value *Bits = B.CreateBitCast(A, I32);
    Value *Up; // what to add before truncating the low 13 bits
    if (I.has(Mod::Rna)) {
      Up = B.getInt32(0x1000);
    } else if (M == Round::Nearest) { // ties to even: 0xfff plus the bit that is kept
      Value *Kept = B.CreateLShr(Bits, 13);
      Value *Odd = B.CreateAnd(Kept, 1);
      Up = B.CreateAdd(Odd, B.getInt32(0xfff));
    } else {
      Up = B.getInt32(0);
    }
    Value *Sum = B.CreateAdd(Bits, Up);
    Value *R = B.CreateAnd(Sum, B.getInt32(0xffffe000));
    if (Satfinite) { // infinities to the largest finite tf32, keeping the sign
      Value *Mag = B.CreateAnd(R, B.getInt32(0x7fffffff));
      Value *Inf = B.CreateICmpEQ(Mag, B.getInt32(0x7f800000));
      Value *Max = B.CreateSub(R, B.getInt32(0x2000));
      R = B.CreateSelect(Inf, Max, R);
    }
    Value *IsNaN = B.CreateFCmpUNO(A, A);
    def(I.Operands[0], B.CreateSelect(IsNaN, B.getInt32(0x7fffffff), R));
    return;
  }

  // e4m3x2 / e5m2x2 from two f32 (a to the high byte) or from an f16x2 (lane by lane).
  if (DT == ir::Type::E4M3x2 || DT == ir::Type::E5M2x2) {
    if (M != Round::Nearest || !Satfinite)
      unsupported();
    const MiniFloat &F = DT == ir::Type::E4M3x2 ? E4M3 : E5M2;
    auto Encode = [&](Value *X) { // one f32 to the 8-bit format, to nearest even, saturated
      if (Relu)
        X = relu(X);
      Value *Abs = intrinsic(Intrinsic::fabs, {F32}, {X});
      Value *XBits = B.CreateBitCast(X, I32);
      Value *SignBit = B.CreateLShr(XBits, 24);
      Value *Sign = B.CreateAnd(SignBit, 0x80);
      // Normal range: round the f32 bits to F.Man mantissa bits. Subnormal range: to a multiple
      // of the smallest subnormal, through rint.
      unsigned Drop = 23 - F.Man;
      Value *AbsBits = B.CreateBitCast(Abs, I32);
      Value *Kept = B.CreateLShr(AbsBits, Drop);
      Value *Odd = B.CreateAnd(Kept, 1);
      Value *Up = B.CreateAdd(Odd, B.getInt32((1u << (Drop - 1)) - 1));
      Value *Sum = B.CreateAdd(AbsBits, Up);
      Value *NormalBits = B.CreateAnd(Sum, B.getInt32(~((1u << Drop) - 1)));
      Value *Normal = B.CreateBitCast(NormalBits, F32);
      double MinNormal = std::ldexp(1.0, 1 - F.Bias);
      double Quantum = std::ldexp(1.0, 1 - F.Bias - int(F.Man));
      Value *Units = B.CreateFMul(Abs, ConstantFP::get(F32, 1.0 / Quantum));
      Value *Whole = intrinsic(Intrinsic::rint, {F32}, {Units});
      Value *Sub = B.CreateFMul(Whole, ConstantFP::get(F32, Quantum));
      Value *IsSub = B.CreateFCmpOLT(Abs, ConstantFP::get(F32, MinNormal));
      Value *Rounded = B.CreateSelect(IsSub, Sub, Normal);
      Value *V = B.CreateMinNum(Rounded, ConstantFP::get(F32, F.Max));
      // Encode: subnormals as their count of quanta, normals by rebiasing the exponent.
      Value *VBits = B.CreateBitCast(V, I32);
      Value *Top = B.CreateLShr(VBits, Drop);
      Value *NormalCode = B.CreateSub(Top, B.getInt32(uint32_t(127 - F.Bias) << F.Man));
      Value *VUnits = B.CreateFMul(V, ConstantFP::get(F32, 1.0 / Quantum));
      Value *SubCode = B.CreateFPToUI(VUnits, I32);
      Value *VSub = B.CreateFCmpOLT(V, ConstantFP::get(F32, MinNormal));
      Value *Code = B.CreateSelect(VSub, SubCode, NormalCode);
      Value *Signed = B.CreateOr(Code, Sign);
      Value *IsNaN = B.CreateFCmpUNO(X, X);
      Value *R = B.CreateSelect(IsNaN, B.getInt32(0x7f), Signed);
      return B.CreateTrunc(R, B.getInt8Ty());
    };
    Value *Hi, *Lo;
    if (ST == ir::Type::F32 && I.Operands.size() == 3) {
      Hi = Encode(get(I.Operands[1], ST));
      Lo = Encode(get(I.Operands[2], ST));
    } else if (ST == ir::Type::F16x2 && I.Operands.size() == 2) {
      Value *A = get(I.Operands[1], ST);
      Value *Wide = B.CreateFPExt(A, FixedVectorType::get(F32, 2));
      Lo = Encode(B.CreateExtractElement(Wide, uint64_t(0)));
      Hi = Encode(B.CreateExtractElement(Wide, uint64_t(1)));
    } else {
      unsupported();
    }
    Value *V = B.CreateInsertElement(PoisonValue::get(FixedVectorType::get(B.getInt8Ty(), 2)), Lo,
                                     uint64_t(0));
    V = B.CreateInsertElement(V, Hi, uint64_t(1));
    def(I.Operands[0], B.CreateBitCast(V, B.getInt16Ty()));
    return;
  }

  // f16x2 from e4m3x2 / e5m2x2: exact; the low byte to the low half.
  if (DT == ir::Type::F16x2 && (ST == ir::Type::E4M3x2 || ST == ir::Type::E5M2x2)) {
    if (M != Round::Nearest || Satfinite)
      unsupported();
    Value *A = get(I.Operands[1], ST);
    Value *Bytes = B.CreateBitCast(A, FixedVectorType::get(B.getInt8Ty(), 2));
    llvm::Type *H2 = valueType(S.Ctx, DT);
    Value *R;
    if (ST == ir::Type::E5M2x2) { // e5m2 is the high byte of an f16: NaN payloads kept
      Value *Halves = B.CreateZExt(Bytes, FixedVectorType::get(B.getInt16Ty(), 2));
      R = B.CreateBitCast(B.CreateShl(Halves, 8), H2);
    } else {
      R = B.CreateFPTrunc(fp8ToFloat(Bytes, false), H2);
    }
    def(I.Operands[0], Relu ? relu(R) : R);
    return;
  }
  unsupported();
}

Value *FunctionLowerer::fp8ToFloat(Value *Bytes, bool E5M2) {
  llvm::Type *I32 = B.getInt32Ty(), *F32 = B.getFloatTy();
  auto *VT = dyn_cast<FixedVectorType>(Bytes->getType());
  auto Like = [&](llvm::Type *T) -> llvm::Type * {
    return VT ? FixedVectorType::get(T, VT->getNumElements()) : T;
  };
  llvm::Type *W = Like(I32);
  auto K = [&](uint32_t V) { return ConstantInt::get(W, V); };
  Value *C = B.CreateZExt(Bytes, W);
  if (E5M2) // e5m2 is the high byte of an f16
    return B.CreateFPExt(B.CreateBitCast(B.CreateTrunc(B.CreateShl(C, 8), Like(B.getInt16Ty())),
                                         Like(B.getHalfTy())),
                         Like(F32));
  Value *Sign = B.CreateShl(B.CreateAnd(C, K(0x80)), 24);
  Value *Mag = B.CreateAnd(C, K(0x7f));
  // Normal: exponent rebiased from 7 to 127, mantissa to the top of the f32's.
  Value *Normal = B.CreateAdd(B.CreateShl(Mag, 20), K(uint32_t(127 - 7) << 23));
  // Subnormal (exponent 0): the mantissa counts 2^-9.
  Value *ManF = B.CreateUIToFP(B.CreateAnd(C, K(7)), Like(F32));
  Value *Sub = B.CreateBitCast(B.CreateFMul(ManF, ConstantFP::get(Like(F32), 0x1p-9)), W);
  Value *Abs = B.CreateSelect(B.CreateICmpULT(Mag, K(8)), Sub, Normal);
  Value *Fixed = B.CreateSelect(B.CreateICmpEQ(Mag, K(0x7f)), K(0x7fffffff), Abs);
  return B.CreateBitCast(B.CreateOr(Fixed, Sign), Like(F32));
}

void FunctionLowerer::cvta(const ir::Instruction &I) {
  ir::Type T = type0(I);
  unsigned AS = spaceOf(I);
  // .param: a kernel's parameters are kernarg (constant) memory, a function's live in private
  // memory (see address()).
  if (AS == ~0u)
    AS = F.IsKernel ? ASConst : ASPrivate;
  Value *A = get(I.Operands[1], T);
  if (AS == ASGlobal || AS == ASConst || AS == ASFlat) {
    def(I.Operands[0], A); // global and constant addresses are the same in the flat space
    return;
  }
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
