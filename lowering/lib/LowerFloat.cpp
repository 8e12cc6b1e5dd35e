// Floating-point arithmetic: IEEE operations with their rounding modes, .ftz and .sat, and the
// .approx functions on the hardware's approximations.
#include "FunctionLowerer.h"

#include "ptx2amd/ptx-ir/Printer.h"

#include <fmt/format.h>

using namespace llvm;

namespace ptx2amd::lowering {
using ir::Mod;
using ir::Opcode;
using ir::Operand;

void FunctionLowerer::checkFloatModifiers(const ir::Instruction &I) {
  for (const ir::Modifier &M : I.Mods)
    if (M.Id != Mod::Rn && M.Id != Mod::Full && M.Id != Mod::Sat)
      unsupported(); // .rz/.rm/.rp, .ftz, .approx, .relu: not yet
}

/// `.sat` on a float result: clamp to [0, 1], NaN to +0 (maxnum ignores the NaN).
Value *FunctionLowerer::saturate(const ir::Instruction &I, Value *V) {
  if (!I.has(Mod::Sat))
    return V;
  Value *Lo = B.CreateMaxNum(V, ConstantFP::get(V->getType(), 0.0));
  return B.CreateMinNum(Lo, ConstantFP::get(V->getType(), 1.0));
}

/// f32 flush-to-zero of subnormal values (`.ftz`), keeping the sign.
Value *FunctionLowerer::flush(Value *V) {
  if (!V->getType()->isFloatTy())
    return V;
  Value *Abs = intrinsic(Intrinsic::fabs, {V->getType()}, {V});
  Value *Tiny = B.CreateFCmpOLT(Abs, ConstantFP::get(V->getType(), 0x1p-126));
  Value *Zero =
      intrinsic(Intrinsic::copysign, {V->getType()}, {ConstantFP::get(V->getType(), 0.0), V});
  return B.CreateSelect(Tiny, Zero, V);
}

/// `.approx` functions on the hardware's own approximations.
void FunctionLowerer::approximate(const ir::Instruction &I) {
  ir::Type T = type0(I);
  for (const ir::Modifier &M : I.Mods)
    if (M.Id != Mod::Approx && M.Id != Mod::Ftz)
      unsupported();
  bool Ftz = I.has(Mod::Ftz);
  Value *A = get(I.Operands[1], T);
  llvm::Type *VT = A->getType();
  bool F64 = VT->isDoubleTy();
  if (!VT->isFloatTy() && !(F64 && (I.Op == Opcode::Rcp || I.Op == Opcode::Rsqrt)))
    unsupported();
  if (Ftz)
    A = flush(A);
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

Value *FunctionLowerer::roundToInteger(const ir::Instruction &I, Value *A) {
  Intrinsic::ID ID = I.has(Mod::Rni)   ? Intrinsic::rint
                     : I.has(Mod::Rmi) ? Intrinsic::floor
                     : I.has(Mod::Rpi) ? Intrinsic::ceil
                                       : Intrinsic::trunc;
  return intrinsic(ID, {A->getType()}, {A});
}

/// add/sub/mul/div/min/max on floats.
void FunctionLowerer::floatBinary(const ir::Instruction &I) {
  ir::Type T = type0(I);

  checkFloatModifiers(I);
  Value *A = get(I.Operands[1], T), *C = get(I.Operands[2], T);
  Value *R;
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
  // PTX min/max return the other operand when one is NaN: minnum/maxnum.
  case Opcode::Min:
    R = B.CreateMinNum(A, C);
    break;
  case Opcode::Max:
    R = B.CreateMaxNum(A, C);
    break;
  default:
    unsupported();
  }
  def(I.Operands[0], saturate(I, R));
}

/// fma/mad on floats.
void FunctionLowerer::floatMad(const ir::Instruction &I) {
  ir::Type T = type0(I);

  checkFloatModifiers(I);
  Value *A = get(I.Operands[1], T), *C = get(I.Operands[2], T), *D = get(I.Operands[3], T);
  def(I.Operands[0], saturate(I, intrinsic(Intrinsic::fma, {A->getType()}, {A, C, D})));
}

/// abs/neg/sqrt/rcp on floats (the exact forms; .approx is approximate()).
void FunctionLowerer::floatUnary(const ir::Instruction &I) {
  ir::Type T = type0(I);
  Value *A = get(I.Operands[1], T);
  Value *R;
  checkFloatModifiers(I);
  switch (I.Op) {
  case Opcode::Abs:
    R = intrinsic(Intrinsic::fabs, {A->getType()}, {A});
    break;
  case Opcode::Neg:
    R = B.CreateFNeg(A);
    break;
  case Opcode::Sqrt:
    if (!I.has(Mod::Rn))
      unsupported();
    R = intrinsic(Intrinsic::sqrt, {A->getType()}, {A});
    break;
  case Opcode::Rcp:
    if (!I.has(Mod::Rn))
      unsupported();
    R = B.CreateFDiv(ConstantFP::get(A->getType(), 1.0), A);
    break;
  default:
    unsupported();
  }
  def(I.Operands[0], R);
}

} // namespace ptx2amd::lowering
