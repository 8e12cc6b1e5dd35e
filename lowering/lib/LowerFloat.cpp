// Floating-point arithmetic: IEEE operations with their rounding modes, .ftz and .sat, the f16,
// bf16 and packed f16x2/bf16x2 forms, and the .approx functions on the hardware's
// approximations.
//
// Directed rounding (.rz/.rm/.rp) is emulated in plain IR: the backend cannot be trusted with
// constrained intrinsics or changes of the rounding mode. An operation computes r, its result
// rounded to nearest, and a value whose sign is the sign of (exact result - r); r then moves by
// one unit in the last place where the exact result lies on the wrong side of it for the
// direction (one step suffices because r is the nearest). Why that sign is exact:
//  - f32 operations run in f64, where the product of two f32 is exact and a sum is exact as the
//    pair s + e of Fast2Sum. r = fptrunc(s) is within a factor of two of s (or 0, or inf), so
//    s - r is exact (Sterbenz) and (s - r) + e rounds to a value of the right sign. Double
//    rounding of div and sqrt through f64 is innocuous (53 >= 2 * 24 + 2).
//  - f64 add/sub: Fast2Sum gives the exact error e of r itself; mul: e = fma(a, b, -r).
//  - f64 fma: the ErrFma transform gives the exact error as a sum of floats.
//  - div and sqrt: the residual a - r * b (a - r * r) computed by one fma has the sign of the
//    error (times the sign of b).
//  Tiny f64 operands are first scaled by powers of two so that no error underflows.
// Rounding down of sums is done as -(rounding up of the negated operands): an exact zero sum is
// then -0, as IEEE requires.
#include "FunctionLowerer.h"

#include "ptx2amd/ptx-ir/Printer.h"

#include <fmt/format.h>

using namespace llvm;

namespace ptx2amd::lowering {
using ir::Mod;
using ir::Opcode;
using ir::Operand;

namespace {

/// The integer type (or vector of them) of the same shape as the float type \p T.
llvm::Type *bitsType(llvm::Type *T) {
  return T->getWithNewType(IntegerType::get(T->getContext(), T->getScalarSizeInBits()));
}

/// \p T with f32 elements (the type half and bfloat values are computed in).
llvm::Type *widened(llvm::Type *T, llvm::Type *Elem) { return T->getWithNewType(Elem); }

} // namespace

void FunctionLowerer::checkFloatModifiers(const ir::Instruction &I) {
  for (const ir::Modifier &M : I.Mods)
    if (M.Id != Mod::Rn && M.Id != Mod::Rz && M.Id != Mod::Rm && M.Id != Mod::Rp &&
        M.Id != Mod::Full && M.Id != Mod::Sat && M.Id != Mod::Ftz)
      unsupported();
}

/// `.sat` on a float result: clamp to [0, 1], NaN and -0 to +0. Not maxnum(x, 0), which may
/// give either zero for -0 (x86's AVX512-FP16 max gives -0).
Value *FunctionLowerer::saturate(const ir::Instruction &I, Value *V) {
  if (!I.has(Mod::Sat))
    return V;
  Constant *Zero = ConstantFP::get(V->getType(), 0.0);
  Value *Hi = B.CreateMinNum(V, ConstantFP::get(V->getType(), 1.0));
  return B.CreateSelect(B.CreateFCmpOGT(V, Zero), Hi, Zero);
}

/// Flush-to-zero of subnormal values (`.ftz`), keeping the sign (any float type or vector).
Value *FunctionLowerer::flush(Value *V) {
  llvm::Type *T = V->getType();
  if (!T->isFPOrFPVectorTy())
    return V;
  const fltSemantics &Sem = T->getScalarType()->getFltSemantics();
  Value *Abs = intrinsic(Intrinsic::fabs, {T}, {V});
  Value *Tiny = B.CreateFCmpOLT(Abs, ConstantFP::get(T, APFloat::getSmallestNormalized(Sem)));
  Value *Zero;
  if (T->getScalarType()->is16bitFPTy()) {
    // The sign bit alone: llvm.copysign.f16 of a constant crashes the gfx11 backend (LLVM 22,
    // post-RA pseudo expansion).
    llvm::Type *IT = bitsType(T);
    Value *Bits = B.CreateBitCast(V, IT);
    Value *Sign = B.CreateAnd(Bits, ConstantInt::get(IT, 0x8000));
    Zero = B.CreateBitCast(Sign, T);
  } else {
    Zero = intrinsic(Intrinsic::copysign, {T}, {ConstantFP::get(T, 0.0), V});
  }
  return B.CreateSelect(Tiny, Zero, V);
}

Value *FunctionLowerer::canonicalNaN(Value *V) {
  llvm::Type *T = V->getType();
  unsigned Bits = T->getScalarSizeInBits();
  Value *Canonical = ConstantFP::get(
      T, APFloat(T->getScalarType()->getFltSemantics(), APInt::getSignedMaxValue(Bits)));
  Value *IsNaN = B.CreateFCmpUNO(V, V);
  return B.CreateSelect(IsNaN, Canonical, V);
}

Value *FunctionLowerer::relu(Value *V) {
  Value *Zero = ConstantFP::get(V->getType(), 0.0);
  Value *Negative = B.CreateFCmpOLT(V, Zero);
  return canonicalNaN(B.CreateSelect(Negative, Zero, V));
}

// ---- directed rounding ----

FunctionLowerer::Round FunctionLowerer::rounding(const ir::Instruction &I) {
  if (I.has(Mod::Rz))
    return Round::Zero;
  if (I.has(Mod::Rm))
    return Round::Down;
  if (I.has(Mod::Rp))
    return Round::Up;
  return Round::Nearest;
}

Value *FunctionLowerer::stepRounded(Value *R, Value *Diff, Round M) {
  if (M == Round::Nearest || !Diff)
    return R;
  // Neighbouring floats of one sign have neighbouring bit patterns: +1 moves away from zero,
  // -1 toward it (R = +-0 only moves away: the exact value then has R's sign).
  llvm::Type *IT = bitsType(R->getType());
  Value *One = ConstantInt::get(IT, 1), *MinusOne = ConstantInt::getSigned(IT, -1);
  Value *None = Constant::getNullValue(IT);
  Value *Zero = Constant::getNullValue(Diff->getType());
  Value *Bits = B.CreateBitCast(R, IT);
  Value *Neg = B.CreateICmpSLT(Bits, None);
  Value *Step = None;
  switch (M) {
  case Round::Zero: { // toward zero where |exact| < |R|
    Value *Above = B.CreateFCmpOGT(Diff, Zero);
    Value *Below = B.CreateFCmpOLT(Diff, Zero);
    Value *Inward = B.CreateSelect(Neg, Above, Below);
    Step = B.CreateSelect(Inward, MinusOne, None);
    break;
  }
  case Round::Up: { // toward +inf where exact > R
    Value *Above = B.CreateFCmpOGT(Diff, Zero);
    Value *Dir = B.CreateSelect(Neg, MinusOne, One);
    Step = B.CreateSelect(Above, Dir, None);
    break;
  }
  case Round::Down: { // toward -inf where exact < R
    Value *Below = B.CreateFCmpOLT(Diff, Zero);
    Value *Dir = B.CreateSelect(Neg, One, MinusOne);
    Step = B.CreateSelect(Below, Dir, None);
    break;
  }
  case Round::Odd: { // an inexact even R moves to its odd neighbour on the exact value's side
    Value *Inexact = B.CreateFCmpONE(Diff, Zero);
    Value *Low = B.CreateAnd(Bits, One);
    Value *Even = B.CreateICmpEQ(Low, None);
    Value *Move = B.CreateAnd(Inexact, Even);
    Value *Above = B.CreateFCmpOGT(Diff, Zero);
    Value *Outward = B.CreateXor(Above, Neg);
    Value *Dir = B.CreateSelect(Outward, One, MinusOne);
    Step = B.CreateSelect(Move, Dir, None);
    break;
  }
  case Round::Nearest:
    break;
  }
  Value *Moved = B.CreateAdd(Bits, Step);
  return B.CreateBitCast(Moved, R->getType());
}

Value *FunctionLowerer::roundExact(Value *S, Value *E, llvm::Type *T, Round M) {
  if (S->getType() == T)
    return stepRounded(S, E, M);
  Value *R = B.CreateFPTrunc(S, T);
  if (M == Round::Nearest)
    return R;
  // S - R is exact: R is within a factor of two of S, or 0, or inf (then -inf has the sign).
  Value *Back = B.CreateFPExt(R, S->getType());
  Value *Diff = B.CreateFSub(S, Back);
  if (E)
    Diff = B.CreateFAdd(Diff, E);
  return stepRounded(R, Diff, M);
}

std::pair<Value *, Value *> FunctionLowerer::twoSum(Value *A, Value *C) {
  llvm::Type *T = A->getType();
  Value *AbsA = intrinsic(Intrinsic::fabs, {T}, {A});
  Value *AbsC = intrinsic(Intrinsic::fabs, {T}, {C});
  Value *Swap = B.CreateFCmpOLT(AbsA, AbsC);
  Value *Hi = B.CreateSelect(Swap, C, A);
  Value *Lo = B.CreateSelect(Swap, A, C);
  Value *S = B.CreateFAdd(Hi, Lo);
  Value *Taken = B.CreateFSub(S, Hi);
  return {S, B.CreateFSub(Lo, Taken)};
}

Value *FunctionLowerer::directed(Opcode Op, ArrayRef<Value *> Ops, Round M) {
  llvm::Type *T = Ops[0]->getType();
  llvm::Type *F64 = B.getDoubleTy();
  bool Sum = Op == Opcode::Add || Op == Opcode::Fma;
  SmallVector<Value *, 3> X(Ops.begin(), Ops.end());
  // Down as -(Up of the negated operands) for sums: exact zeros become -0.
  bool Mirror = M == Round::Down && Sum;
  if (Mirror) {
    X[0] = B.CreateFNeg(X[0]);
    X.back() = B.CreateFNeg(X.back());
    M = Round::Up;
  }
  Value *R;
  if (T->isFloatTy()) {
    for (Value *&V : X)
      V = B.CreateFPExt(V, F64);
    switch (Op) {
    case Opcode::Add: {
      auto [S, E] = twoSum(X[0], X[1]);
      R = roundExact(S, E, T, M);
      break;
    }
    case Opcode::Mul:
      R = roundExact(B.CreateFMul(X[0], X[1]), nullptr, T, M);
      break;
    case Opcode::Fma: {
      Value *P = B.CreateFMul(X[0], X[1]);
      auto [S, E] = twoSum(P, X[2]);
      R = roundExact(S, E, T, M);
      break;
    }
    case Opcode::Div: {
      Value *Q = B.CreateFDiv(X[0], X[1]);
      R = B.CreateFPTrunc(Q, T);
      Value *NegR = B.CreateFNeg(B.CreateFPExt(R, F64));
      Value *Residual = intrinsic(Intrinsic::fma, {F64}, {NegR, X[1], X[0]});
      Value *Sign = intrinsic(Intrinsic::copysign, {F64}, {ConstantFP::get(F64, 1.0), X[1]});
      R = stepRounded(R, B.CreateFMul(Residual, Sign), M);
      break;
    }
    case Opcode::Sqrt: {
      Value *Q = intrinsic(Intrinsic::sqrt, {F64}, {X[0]});
      R = B.CreateFPTrunc(Q, T);
      Value *Wide = B.CreateFPExt(R, F64);
      Value *NegR = B.CreateFNeg(Wide);
      R = stepRounded(R, intrinsic(Intrinsic::fma, {F64}, {NegR, Wide, X[0]}), M);
      break;
    }
    default:
      unsupported();
    }
  } else if (T->isDoubleTy()) {
    auto Abs = [&](Value *V) { return intrinsic(Intrinsic::fabs, {F64}, {V}); };
    switch (Op) {
    case Opcode::Add: {
      auto [S, E] = twoSum(X[0], X[1]);
      R = stepRounded(S, E, M);
      break;
    }
    case Opcode::Mul: {
      // The fma error of a product below 2^-969 may underflow: there, scale both operands by
      // 2^600 (a tiny product with a nonzero factor has both below 2^174) and compare with the
      // scaled result.
      Value *S = B.CreateFMul(X[0], X[1]);
      Value *Tiny = B.CreateFCmpOLT(Abs(S), ConstantFP::get(F64, 0x1p-900));
      Value *K = B.CreateSelect(Tiny, ConstantFP::get(F64, 0x1p600), ConstantFP::get(F64, 1.0));
      Value *A = B.CreateFMul(X[0], K);
      Value *C = B.CreateFMul(X[1], K);
      Value *SK = B.CreateFMul(A, C);
      Value *NegSK = B.CreateFNeg(SK);
      Value *E = intrinsic(Intrinsic::fma, {F64}, {A, C, NegSK});
      Value *RK = B.CreateFMul(S, K);
      Value *RKK = B.CreateFMul(RK, K);
      Value *D = B.CreateFSub(SK, RKK);
      Value *DE = B.CreateFAdd(D, E);
      R = stepRounded(S, B.CreateSelect(Tiny, DE, E), M);
      break;
    }
    case Opcode::Div: {
      // a - r * b is exact unless a is tiny: then a and r are scaled by 2^200.
      R = B.CreateFDiv(X[0], X[1]);
      Value *Tiny = B.CreateFCmpOLT(Abs(X[0]), ConstantFP::get(F64, 0x1p-900));
      Value *K = B.CreateSelect(Tiny, ConstantFP::get(F64, 0x1p200), ConstantFP::get(F64, 1.0));
      Value *A = B.CreateFMul(X[0], K);
      Value *RK = B.CreateFMul(R, K);
      Value *NegRK = B.CreateFNeg(RK);
      Value *Residual = intrinsic(Intrinsic::fma, {F64}, {NegRK, X[1], A});
      Value *Sign = intrinsic(Intrinsic::copysign, {F64}, {ConstantFP::get(F64, 1.0), X[1]});
      R = stepRounded(R, B.CreateFMul(Residual, Sign), M);
      break;
    }
    case Opcode::Sqrt: {
      // a - r * r is exact unless a is tiny: then a is scaled by 2^200 and r by 2^100.
      R = intrinsic(Intrinsic::sqrt, {F64}, {X[0]});
      Value *Tiny = B.CreateFCmpOLT(X[0], ConstantFP::get(F64, 0x1p-900));
      Value *K = B.CreateSelect(Tiny, ConstantFP::get(F64, 0x1p100), ConstantFP::get(F64, 1.0));
      Value *AK = B.CreateFMul(X[0], K);
      Value *AKK = B.CreateFMul(AK, K);
      Value *RK = B.CreateFMul(R, K);
      Value *NegRK = B.CreateFNeg(RK);
      R = stepRounded(R, intrinsic(Intrinsic::fma, {F64}, {NegRK, RK, AKK}), M);
      break;
    }
    case Opcode::Fma: {
      // ErrFma (Boldo and Muller, "Exact and approximated error of the FMA", 2011): with
      // r = fma(a, b, c), u1 + u2 = a * b (the fma error of the product), al1 + al2 = c + u2
      // and be1 + be2 = u1 + al1 (TwoSum), g = ((be1 - r) + be2) + al2 has the sign of
      // a * b + c - r. It needs an exact product error (a * b above 2^-970) and nothing above
      // 2^1022, so the operands are scaled by powers of two Ka (a), Kb (b), Ka * Kb (c) and the
      // error is taken against the scaled r: (rs - r * Ka * Kb) is exact (a subnormal r is a
      // coarser rounding of the same value as rs) and a multiple of rs's ulp, which outweighs g.
      //  - |a * b| < 2^-900: both factors are below 2^174; scale each by 2^600. If |c| >= 2^-300
      //    the product only breaks ties: r = c and the scaled product gives the sign.
      //  - |a * b| > 2^1020 (or inf): both factors are above 2^-4; scale each by 2^-600. A c
      //    below 2^200 then only breaks ties (a * b - r is a multiple of 2^914): it becomes
      //    +-2^200, which scales exactly.
      //  - |c| > 2^1020 otherwise: scale c and the larger factor (above 2^-450) by 2^-8.
      // An overflowed r is inf: r * Ka * Kb stays inf and the error has the sign toward the
      // finite range.
      auto Const = [&](double V) { return ConstantFP::get(F64, V); };
      auto Select = [&](Value *If, double Then, Value *Else) {
        return B.CreateSelect(If, Const(Then), Else);
      };
      Value *A = X[0], *C = X[1], *D = X[2]; // a, b, c
      Value *R1 = intrinsic(Intrinsic::fma, {F64}, {A, C, D});
      Value *AbsP = Abs(B.CreateFMul(A, C)), *AbsD = Abs(D);
      Value *Tiny = B.CreateFCmpOLT(AbsP, Const(0x1p-900));
      Value *Huge = B.CreateFCmpOGT(AbsP, Const(0x1p1020));
      Value *BigC = B.CreateFCmpOGT(AbsD, Const(0x1p1020));
      Value *AbsA = Abs(A);
      Value *AOver = B.CreateFCmpOGE(AbsA, Abs(C));
      Value *One = Const(1.0);
      Value *Eight = Select(BigC, 0x1p-8, One);
      Value *KA = Select(Tiny, 0x1p600, Select(Huge, 0x1p-600, B.CreateSelect(AOver, Eight, One)));
      Value *KC = Select(Tiny, 0x1p600, Select(Huge, 0x1p-600, B.CreateSelect(AOver, One, Eight)));
      Value *SmallD = B.CreateFCmpOLT(AbsD, Const(0x1p200));
      Value *NonZeroD = B.CreateFCmpONE(D, Const(0.0));
      Value *Sticky = B.CreateAnd(Huge, B.CreateAnd(SmallD, NonZeroD));
      Value *DS =
          B.CreateSelect(Sticky, intrinsic(Intrinsic::copysign, {F64}, {Const(0x1p200), D}), D);
      Value *AS = B.CreateFMul(A, KA);
      Value *CS = B.CreateFMul(C, KC);
      Value *DSS = B.CreateFMul(B.CreateFMul(DS, KA), KC);
      Value *RS = intrinsic(Intrinsic::fma, {F64}, {AS, CS, DSS});
      Value *U1 = B.CreateFMul(AS, CS);
      Value *U2 = intrinsic(Intrinsic::fma, {F64}, {AS, CS, B.CreateFNeg(U1)});
      auto [Al1, Al2] = twoSum(DSS, U2);
      auto [Be1, Be2] = twoSum(U1, Al1);
      Value *G = B.CreateFAdd(B.CreateFAdd(B.CreateFSub(Be1, RS), Be2), Al2);
      Value *Scaled = B.CreateFMul(B.CreateFMul(R1, KA), KC);
      Value *Err = B.CreateFAdd(B.CreateFSub(RS, Scaled), G);
      // The tiny product beside a larger c (an infinite c keeps the NaN error: r is exact).
      Value *LargeD = B.CreateFCmpOGE(AbsD, Const(0x1p-300));
      Value *FiniteD = B.CreateFCmpOLE(AbsD, Const(0x1.fffffffffffffp1023));
      Value *CRanged = B.CreateAnd(LargeD, FiniteD);
      R = stepRounded(R1, B.CreateSelect(B.CreateAnd(Tiny, CRanged), U1, Err), M);
      break;
    }
    default:
      unsupported();
    }
  } else {
    unsupported(); // PTX rounds f16 and bf16 arithmetic to nearest only
  }
  return Mirror ? B.CreateFNeg(R) : R;
}

// ---- instructions ----

/// `.approx` functions on the hardware's own approximations.
void FunctionLowerer::approximate(const ir::Instruction &I) {
  ir::Type T = type0(I);
  for (const ir::Modifier &M : I.Mods)
    if (M.Id != Mod::Approx && M.Id != Mod::Ftz)
      unsupported();
  bool Ftz = I.has(Mod::Ftz);
  Value *A = get(I.Operands[1], T);
  llvm::Type *VT = A->getType();
  if (Ftz)
    A = flush(A);
  if (I.Op == Opcode::Ex2 && VT->getScalarType()->is16bitFPTy()) {
    // ex2.approx of f16/bf16 (and pairs): the f32 approximation, rounded.
    Value *Wide = B.CreateFPExt(A, widened(VT, B.getFloatTy()));
    Value *R = B.CreateUnaryIntrinsic(Intrinsic::exp2, Wide, FMFSource(FastMathFlags::getFast()));
    Value *Narrow = B.CreateFPTrunc(R, VT);
    def(I.Operands[0], Ftz ? flush(Narrow) : Narrow);
    return;
  }
  bool F64 = VT->isDoubleTy();
  if (!VT->isFloatTy() && !(F64 && (I.Op == Opcode::Rcp || I.Op == Opcode::Rsqrt)))
    unsupported();
  Value *R;
  switch (I.Op) {
  case Opcode::Rcp:
    R = intrinsic(Intrinsic::amdgcn_rcp, {VT}, {A});
    break;
  case Opcode::Rsqrt:
    R = intrinsic(Intrinsic::amdgcn_rsq, {VT}, {A});
    break;
  case Opcode::Sqrt:
    R = intrinsic(Intrinsic::amdgcn_sqrt, {VT}, {A});
    break;
  case Opcode::Ex2:
    R = intrinsic(Intrinsic::amdgcn_exp2, {VT}, {A});
    break;
  case Opcode::Lg2:
    R = intrinsic(Intrinsic::amdgcn_log, {VT}, {A});
    break;
  case Opcode::Sin:
  case Opcode::Cos: {
    // The hardware takes turns, not radians.
    Value *Turns = B.CreateFMul(A, ConstantFP::get(VT, 0.15915494309189535));
    R = intrinsic(I.Op == Opcode::Sin ? Intrinsic::amdgcn_sin : Intrinsic::amdgcn_cos, {VT},
                  {Turns});
    break;
  }
  default:
    unsupported();
  }
  def(I.Operands[0], Ftz ? flush(R) : R);
}

void FunctionLowerer::tanh(const ir::Instruction &I) {
  ir::Type T = type0(I);
  if (!I.has(Mod::Approx) || I.Mods.size() != 1)
    unsupported();
  Value *A = get(I.Operands[1], T);
  llvm::Type *VT = A->getType();
  llvm::Type *FT = widened(VT, B.getFloatTy());
  Value *X = VT == FT ? A : B.CreateFPExt(A, FT);
  // tanh|x| = 1 - 2 / (e^2|x| + 1), which cancels for small |x|: there the series
  // x - x^3/3 + 2x^5/15 (error below 2^-24 relative for |x| < 1/16). PTX allows 2^-11.
  Value *Abs = intrinsic(Intrinsic::fabs, {FT}, {X});
  Value *Twice = B.CreateFMul(Abs, ConstantFP::get(FT, 2.8853900817779268)); // 2 log2(e)
  Value *Exp = intrinsic(Intrinsic::exp2, {FT}, {Twice});
  Value *Den = B.CreateFAdd(Exp, ConstantFP::get(FT, 1.0));
  Value *Frac = B.CreateFDiv(ConstantFP::get(FT, 2.0), Den);
  Value *Large = B.CreateFSub(ConstantFP::get(FT, 1.0), Frac);
  Value *X2 = B.CreateFMul(Abs, Abs);
  Value *P = intrinsic(Intrinsic::fma, {FT},
                       {X2, ConstantFP::get(FT, 2.0 / 15), ConstantFP::get(FT, -1.0 / 3)});
  Value *P1 = intrinsic(Intrinsic::fma, {FT}, {X2, P, ConstantFP::get(FT, 1.0)});
  Value *Small = B.CreateFMul(Abs, P1);
  Value *IsSmall = B.CreateFCmpOLT(Abs, ConstantFP::get(FT, 0.0625));
  Value *Mag = B.CreateSelect(IsSmall, Small, Large);
  Value *R = intrinsic(Intrinsic::copysign, {FT}, {Mag, X});
  def(I.Operands[0], VT == FT ? R : B.CreateFPTrunc(R, VT));
}

void FunctionLowerer::testp(const ir::Instruction &I) {
  ir::Type T = type0(I);
  Value *A = get(I.Operands[1], T);
  FPClassTest C;
  if (I.has(Mod::Finite))
    C = fcFinite;
  else if (I.has(Mod::Infinite))
    C = fcInf;
  else if (I.has(Mod::Number))
    C = ~fcNan & fcAllFlags;
  else if (I.has(Mod::Notanumber))
    C = fcNan;
  else if (I.has(Mod::Normal))
    C = fcNormal | fcZero; // the ISA counts both zeros as normal numbers
  else if (I.has(Mod::Subnormal))
    C = fcSubnormal;
  else
    unsupported();
  def(I.Operands[0], B.createIsFPClass(A, C));
}

Value *FunctionLowerer::roundToInteger(const ir::Instruction &I, Value *A) {
  Intrinsic::ID ID = I.has(Mod::Rni)   ? Intrinsic::rint
                     : I.has(Mod::Rmi) ? Intrinsic::floor
                     : I.has(Mod::Rpi) ? Intrinsic::ceil
                                       : Intrinsic::trunc;
  return intrinsic(ID, {A->getType()}, {A});
}

/// add/sub/mul/div/min/max on floats.
void FunctionLowerer::floatBinary(const ir::Instruction &I) {
  if (I.Op == Opcode::Min || I.Op == Opcode::Max)
    return floatMinMax(I);
  ir::Type T = type0(I);
  bool Approx = I.Op == Opcode::Div && I.has(Mod::Approx);
  if (!Approx)
    checkFloatModifiers(I);
  bool Ftz = I.has(Mod::Ftz);
  Value *A = get(I.Operands[1], T), *C = get(I.Operands[2], T);
  if (Ftz) {
    A = flush(A);
    C = flush(C);
  }
  Round M = rounding(I);
  Value *R;
  if (Approx) {
    // div.approx: a * (1/b) with the hardware reciprocal (PTX allows 2 ulp). As the ISA
    // documents, for 2^126 < |b| < 2^128 the reciprocal flushes to zero: the quotient is a zero
    // of its sign, or NaN for an infinite a.
    if (!A->getType()->isFloatTy())
      unsupported();
    Value *Rcp = flush(intrinsic(Intrinsic::amdgcn_rcp, {A->getType()}, {C}));
    R = B.CreateFMul(A, Rcp);
  } else if (M != Round::Nearest) {
    if (I.Op == Opcode::Sub)
      C = B.CreateFNeg(C);
    R = directed(I.Op == Opcode::Sub ? Opcode::Add : I.Op, {A, C}, M);
  } else {
    switch (I.Op) {
    case Opcode::Add:
      R = B.CreateFAdd(A, C);
      break;
    case Opcode::Sub:
      R = B.CreateFSub(A, C);
      break;
    case Opcode::Mul:
      R = B.CreateFMul(A, C);
      break;
    case Opcode::Div:
      R = B.CreateFDiv(A, C);
      break;
    default:
      unsupported();
    }
  }
  if (Ftz)
    R = flush(R);
  def(I.Operands[0], saturate(I, R));
}

/// min/max: a NaN operand is ignored (both NaN: the canonical NaN); .NaN propagates it as the
/// canonical NaN; -0 is below +0; .xorsign.abs compares magnitudes and gives the result the
/// exclusive or of the operands' signs.
void FunctionLowerer::floatMinMax(const ir::Instruction &I) {
  ir::Type T = type0(I);
  for (const ir::Modifier &M : I.Mods)
    if (M.Id != Mod::Ftz && M.Id != Mod::NaN && M.Id != Mod::Xorsign && M.Id != Mod::Abs)
      unsupported();
  bool XorSign = I.has(Mod::Xorsign);
  if (XorSign != I.has(Mod::Abs))
    unsupported();
  Value *A = get(I.Operands[1], T), *C = get(I.Operands[2], T);
  llvm::Type *VT = A->getType();
  if (I.has(Mod::Ftz)) {
    A = flush(A);
    C = flush(C);
  }
  Value *X = A, *Y = C;
  if (XorSign) {
    X = intrinsic(Intrinsic::fabs, {VT}, {A});
    Y = intrinsic(Intrinsic::fabs, {VT}, {C});
  }
  bool Max = I.Op == Opcode::Max;
  Intrinsic::ID ID = I.has(Mod::NaN) ? (Max ? Intrinsic::maximum : Intrinsic::minimum)
                                     : (Max ? Intrinsic::maximumnum : Intrinsic::minimumnum);
  Value *R = intrinsic(ID, {VT}, {X, Y});
  // PTX leaves the payload of an f64 NaN open.
  if (!VT->getScalarType()->isDoubleTy())
    R = canonicalNaN(R);
  if (XorSign) {
    llvm::Type *IT = bitsType(VT);
    Value *BA = B.CreateBitCast(A, IT);
    Value *BC = B.CreateBitCast(C, IT);
    Value *Signs = B.CreateXor(BA, BC);
    Value *Sign =
        B.CreateAnd(Signs, ConstantInt::get(IT, APInt::getSignMask(IT->getScalarSizeInBits())));
    Value *BR = B.CreateBitCast(R, IT);
    Value *Signed = B.CreateBitCast(B.CreateOr(BR, Sign), VT);
    Value *IsNaN = B.CreateFCmpUNO(R, R);
    R = B.CreateSelect(IsNaN, R, Signed);
  }
  def(I.Operands[0], R);
}

/// fma/mad on floats.
void FunctionLowerer::floatMad(const ir::Instruction &I) {
  ir::Type T = type0(I);
  for (const ir::Modifier &M : I.Mods)
    if (M.Id != Mod::Rn && M.Id != Mod::Rz && M.Id != Mod::Rm && M.Id != Mod::Rp &&
        M.Id != Mod::Sat && M.Id != Mod::Ftz && M.Id != Mod::Relu)
      unsupported();
  bool Ftz = I.has(Mod::Ftz);
  Value *A = get(I.Operands[1], T), *C = get(I.Operands[2], T), *D = get(I.Operands[3], T);
  if (Ftz) {
    A = flush(A);
    C = flush(C);
    D = flush(D);
  }
  llvm::Type *VT = A->getType();
  Round M = rounding(I);
  Value *R;
  if (M != Round::Nearest) {
    R = directed(Opcode::Fma, {A, C, D}, M);
  } else if (VT->getScalarType()->isBFloatTy()) {
    // The backend fuses bf16 in f32, rounding twice. Exactly instead: the product is exact in
    // f64, the sum exact as a Fast2Sum pair; round that to odd in f32 (>= 8 + 2 bits), then to
    // nearest in bf16.
    llvm::Type *WT = widened(VT, B.getDoubleTy());
    Value *A64 = B.CreateFPExt(A, WT);
    Value *C64 = B.CreateFPExt(C, WT);
    Value *D64 = B.CreateFPExt(D, WT);
    Value *P = B.CreateFMul(A64, C64);
    auto [S, E] = twoSum(P, D64);
    Value *Odd = roundExact(S, E, widened(VT, B.getFloatTy()), Round::Odd);
    R = B.CreateFPTrunc(Odd, VT);
  } else {
    R = intrinsic(Intrinsic::fma, {VT}, {A, C, D});
  }
  if (Ftz)
    R = flush(R);
  if (I.has(Mod::Relu))
    R = relu(R);
  def(I.Operands[0], saturate(I, R));
}

/// abs/neg/sqrt/rcp on floats (the exact forms; .approx is approximate()).
void FunctionLowerer::floatUnary(const ir::Instruction &I) {
  ir::Type T = type0(I);
  Value *A = get(I.Operands[1], T);
  checkFloatModifiers(I);
  bool Ftz = I.has(Mod::Ftz);
  if (Ftz)
    A = flush(A);
  Round M = rounding(I);
  Value *R;
  switch (I.Op) {
  case Opcode::Abs:
    R = intrinsic(Intrinsic::fabs, {A->getType()}, {A});
    break;
  case Opcode::Neg:
    R = B.CreateFNeg(A);
    break;
  case Opcode::Sqrt:
    if (!I.has(Mod::Rn) && M == Round::Nearest)
      unsupported();
    R = M == Round::Nearest ? intrinsic(Intrinsic::sqrt, {A->getType()}, {A})
                            : directed(Opcode::Sqrt, {A}, M);
    break;
  case Opcode::Rcp: {
    if (!I.has(Mod::Rn) && M == Round::Nearest)
      unsupported();
    Value *One = ConstantFP::get(A->getType(), 1.0);
    R = M == Round::Nearest ? B.CreateFDiv(One, A) : directed(Opcode::Div, {One, A}, M);
    break;
  }
  default:
    unsupported();
  }
  // abs and neg of a flushed input cannot be subnormal.
  bool Rounds = I.Op == Opcode::Sqrt || I.Op == Opcode::Rcp;
  def(I.Operands[0], Ftz && Rounds ? flush(R) : R);
}

} // namespace ptx2amd::lowering
