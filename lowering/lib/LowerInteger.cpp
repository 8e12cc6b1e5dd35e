// Integer arithmetic and bit manipulation, with the results PTX defines for every input
// (shift counts past the width, division by zero, bit-field positions past the top).
#include "FunctionLowerer.h"

#include "ptx2amd/ptx-ir/Printer.h"

#include <fmt/format.h>

using namespace llvm;

namespace ptx2amd::lowering {
using ir::Mod;
using ir::Opcode;
using ir::Operand;

Value *FunctionLowerer::guardedDivisor(Value *D) {
  // PTX leaves division by zero unspecified; LLVM makes it undefined behaviour.
  return B.CreateSelect(B.CreateICmpEQ(D, ConstantInt::get(D->getType(), 0)),
                        ConstantInt::get(D->getType(), 1), D);
}

void FunctionLowerer::binary(const ir::Instruction &I) {
  if (I.has(Mod::Cc))
    return carry(I);
  ir::Type T = type0(I);
  if (I.Operands.size() != 3)
    unsupported();
  if (isFloat(T))
    return floatBinary(I);
  for (const ir::Modifier &M : I.Mods)
    if (M.Id != Mod::Lo && M.Id != Mod::Hi && M.Id != Mod::Wide)
      unsupported(); // .cc, .sat, .relu: not yet
  bool Signed = isSigned(T);
  unsigned Bits = ir::typeBits(T);
  if (I.Op == Opcode::Shl || I.Op == Opcode::Shr) {
    Value *A = get(I.Operands[1], T);
    // The count is a full u32 whatever the width: compare before narrowing it.
    Value *Amt = get(I.Operands[2], ir::Type::U32);
    Value *Big = B.CreateICmpUGE(Amt, B.getInt32(Bits));
    Value *Safe = B.CreateZExtOrTrunc(B.CreateSelect(Big, B.getInt32(Bits - 1), Amt), A->getType());
    Value *R;
    if (I.Op == Opcode::Shl)
      R = B.CreateSelect(Big, ConstantInt::get(A->getType(), 0), B.CreateShl(A, Safe));
    else if (Signed)
      R = B.CreateAShr(A, Safe); // a count past the width fills with the sign
    else
      R = B.CreateSelect(Big, ConstantInt::get(A->getType(), 0), B.CreateLShr(A, Safe));
    def(I.Operands[0], R);
    return;
  }
  Value *A = get(I.Operands[1], T), *C = get(I.Operands[2], T);
  Value *R;
  switch (I.Op) {
  case Opcode::Add:
    R = B.CreateAdd(A, C);
    break;
  case Opcode::Sub:
    R = B.CreateSub(A, C);
    break;
  case Opcode::Mul:
    R = multiply(I, A, C, Signed, Bits);
    break;
  case Opcode::Div:
  case Opcode::Rem: {
    if (!Signed) {
      R = I.Op == Opcode::Div ? B.CreateUDiv(A, guardedDivisor(C))
                              : B.CreateURem(A, guardedDivisor(C));
      break;
    }
    // The minimum divided by -1 overflows (undefined in LLVM): divide by 1 instead and negate,
    // which wraps to the minimum as the hardware does; the remainder is then 0.
    Value *MinusOne = B.CreateICmpEQ(C, ConstantInt::getSigned(C->getType(), -1));
    Value *D = B.CreateSelect(MinusOne, ConstantInt::get(C->getType(), 1), guardedDivisor(C));
    if (I.Op == Opcode::Div)
      R = B.CreateSelect(MinusOne, B.CreateNeg(A), B.CreateSDiv(A, D));
    else
      R = B.CreateSelect(MinusOne, ConstantInt::get(C->getType(), 0), B.CreateSRem(A, D));
    break;
  }
  case Opcode::Min:
    R = intrinsic(Signed ? Intrinsic::smin : Intrinsic::umin, {A->getType()}, {A, C});
    break;
  case Opcode::Max:
    R = intrinsic(Signed ? Intrinsic::smax : Intrinsic::umax, {A->getType()}, {A, C});
    break;
  case Opcode::And:
    R = B.CreateAnd(A, C);
    break;
  case Opcode::Or:
    R = B.CreateOr(A, C);
    break;
  case Opcode::Xor:
    R = B.CreateXor(A, C);
    break;
  default:
    unsupported();
  }
  def(I.Operands[0], R);
}

/// bfind: the position of the most significant non-sign bit, 0xffffffff when there is none;
/// `.shiftamt` gives the left shift that moves it to the top instead.
void FunctionLowerer::bfind(const ir::Instruction &I) {
  ir::Type T = type0(I);
  Value *A = get(I.Operands[1], T);
  unsigned N = ir::typeBits(T);
  if (isSigned(T)) { // for negative values, look for the most significant 0
    Value *Neg = B.CreateICmpSLT(A, ConstantInt::get(A->getType(), 0));
    A = B.CreateSelect(Neg, B.CreateNot(A), A);
  }
  Value *Clz = intrinsic(Intrinsic::ctlz, {A->getType()}, {A, B.getFalse()});
  Value *Lz = B.CreateZExtOrTrunc(Clz, B.getInt32Ty());
  Value *None = B.CreateICmpEQ(A, ConstantInt::get(A->getType(), 0));
  Value *Pos = I.has(Mod::Shiftamt) ? Lz : B.CreateSub(B.getInt32(N - 1), Lz);
  def(I.Operands[0], B.CreateSelect(None, B.getInt32(~0u), Pos));
}

/// bfe: `len` bits from `pos`, zero- or sign-extended; positions past the top read the sign.
void FunctionLowerer::bfe(const ir::Instruction &I) {
  ir::Type T = type0(I);
  Value *A = get(I.Operands[1], T);
  llvm::Type *AT = A->getType();
  unsigned N = ir::typeBits(T);
  Value *PosIn = B.CreateAnd(get(I.Operands[2], ir::Type::U32), 0xff);
  Value *Pos = B.CreateZExtOrTrunc(PosIn, AT);
  Value *LenIn = B.CreateAnd(get(I.Operands[3], ir::Type::U32), 0xff);
  Value *Len = B.CreateZExtOrTrunc(LenIn, AT);
  Value *Width = ConstantInt::get(AT, N);
  Value *PosPast = B.CreateICmpUGE(Pos, Width);
  Value *SafePos = B.CreateSelect(PosPast, ConstantInt::get(AT, N - 1), Pos);
  Value *Shifted = isSigned(T) ? B.CreateAShr(A, SafePos) : B.CreateLShr(A, SafePos);
  if (!isSigned(T))
    Shifted = B.CreateSelect(PosPast, ConstantInt::get(AT, 0), Shifted);
  Value *LenAll = B.CreateICmpUGE(Len, Width);
  Value *Keep = B.CreateSub(Width, B.CreateSelect(LenAll, Width, Len)); // bits above the field
  Value *Up = B.CreateShl(Shifted, Keep);
  Value *Field = isSigned(T) ? B.CreateAShr(Up, Keep) : B.CreateLShr(Up, Keep);
  Value *Zero = B.CreateICmpEQ(Len, ConstantInt::get(AT, 0));
  def(I.Operands[0], B.CreateSelect(Zero, ConstantInt::get(AT, 0), Field));
}

/// bfi: insert the low `len` bits of a into b at `pos`.
void FunctionLowerer::bfi(const ir::Instruction &I) {
  ir::Type T = type0(I);
  Value *A = get(I.Operands[1], T);
  Value *Bv = get(I.Operands[2], T);
  llvm::Type *AT = A->getType();
  unsigned N = ir::typeBits(T);
  llvm::Type *W = B.getIntNTy(2 * N); // room for pos + len without overflow
  Value *PosIn = B.CreateAnd(get(I.Operands[3], ir::Type::U32), 0xff);
  Value *Pos = B.CreateZExt(PosIn, W);
  Value *LenIn = B.CreateAnd(get(I.Operands[4], ir::Type::U32), 0xff);
  Value *Len = B.CreateZExt(LenIn, W);
  Value *Big = B.CreateICmpUGT(Len, ConstantInt::get(W, N));
  Value *Bits = B.CreateSelect(Big, ConstantInt::get(W, N), Len);
  Value *Ones = B.CreateSub(B.CreateShl(ConstantInt::get(W, 1), Bits), ConstantInt::get(W, 1));
  Value *InRange = B.CreateICmpULT(Pos, ConstantInt::get(W, N));
  Value *SafePos = B.CreateSelect(InRange, Pos, ConstantInt::get(W, 0));
  Value *Mask = B.CreateTrunc(B.CreateShl(Ones, SafePos), AT);
  Value *Ins = B.CreateTrunc(B.CreateShl(B.CreateZExt(A, W), SafePos), AT);
  Value *Kept = B.CreateAnd(Bv, B.CreateNot(Mask));
  Value *R = B.CreateOr(Kept, B.CreateAnd(Ins, Mask));
  def(I.Operands[0], B.CreateSelect(InRange, R, Bv));
}

/// prmt (default mode): each result byte picks one of the 8 bytes of {b, a}, optionally
/// replicating its sign bit.
void FunctionLowerer::prmt(const ir::Instruction &I) {
  if (!I.Mods.empty())
    unsupported(); // .f4e, .b4e, .rc8, .ecl, .ecr, .rc16: not yet
  Value *A = get(I.Operands[1], ir::Type::B32);
  Value *Bv = get(I.Operands[2], ir::Type::B32);
  Value *C = get(I.Operands[3], ir::Type::B32);
  Value *Hi = B.CreateShl(B.CreateZExt(Bv, B.getInt64Ty()), 32);
  Value *Src = B.CreateOr(Hi, B.CreateZExt(A, B.getInt64Ty()));
  Value *R = B.getInt32(0);
  for (unsigned K = 0; K < 4; ++K) {
    Value *Sel = B.CreateAnd(B.CreateLShr(C, 4 * K), 0xf);
    Value *Idx = B.CreateZExt(B.CreateAnd(Sel, 7), B.getInt64Ty());
    Value *Shifted = B.CreateLShr(Src, B.CreateShl(Idx, 3));
    Value *Byte = B.CreateTrunc(B.CreateAnd(Shifted, 0xff), B.getInt32Ty());
    Value *Sign = B.CreateICmpNE(B.CreateAnd(Byte, 0x80), B.getInt32(0));
    Value *Rep = B.CreateSelect(Sign, B.getInt32(0xff), B.getInt32(0));
    Value *SignMode = B.CreateICmpNE(B.CreateAnd(Sel, 8), B.getInt32(0));
    Value *Use = B.CreateSelect(SignMode, Rep, Byte);
    R = B.CreateOr(R, B.CreateShl(Use, 8 * K));
  }
  def(I.Operands[0], R);
}

/// Extended precision: add.cc/addc/sub.cc/subc/mad.cc/madc through the carry flag, which PTX
/// keeps as implicit state between consecutive instructions.
void FunctionLowerer::carry(const ir::Instruction &I) {
  ir::Type T = type0(I);
  if (isFloat(T) || (ir::typeBits(T) != 32 && ir::typeBits(T) != 64) || I.has(Mod::Wide))
    unsupported();
  bool In = I.Op == Opcode::Addc || I.Op == Opcode::Subc || I.Op == Opcode::Madc;
  bool Out = I.has(Mod::Cc);
  Value *A = get(I.Operands[1], T);
  Value *C = get(I.Operands[2], T);
  llvm::Type *AT = A->getType();
  if (In && !Carry)
    fail(fmt::format("'{}' reads a carry flag that no earlier instruction of its block set",
                     ir::instructionName(I)));
  Value *CarryIn = In ? B.CreateZExt(Carry, AT) : ConstantInt::get(AT, 0);
  bool Sub = I.Op == Opcode::Sub || I.Op == Opcode::Subc;
  Value *X = A, *Y = C;
  if (I.Op == Opcode::Mad || I.Op == Opcode::Madc) {
    X = multiply(I, A, C, isSigned(T), ir::typeBits(T));
    Y = get(I.Operands[3], T);
  }
  Intrinsic::ID Op = Sub ? Intrinsic::usub_with_overflow : Intrinsic::uadd_with_overflow;
  Value *First = intrinsic(Op, {AT}, {X, Y});
  Value *Partial = B.CreateExtractValue(First, 0);
  Value *Second = intrinsic(Op, {AT}, {Partial, CarryIn});
  if (Out) {
    Value *C1 = B.CreateExtractValue(First, 1);
    Carry = B.CreateOr(C1, B.CreateExtractValue(Second, 1));
  }
  def(I.Operands[0], B.CreateExtractValue(Second, 0));
}

/// shf.l/.r: the high (left) or low (right) word of {b, a} shifted; .clamp stops at 32.
void FunctionLowerer::funnelShift(const ir::Instruction &I) {
  ir::Type T = type0(I);
  Value *A = get(I.Operands[1], T);
  Value *Bv = get(I.Operands[2], T);
  Value *C = get(I.Operands[3], ir::Type::U32);
  bool Left = I.has(Mod::L);
  Value *R = intrinsic(Left ? Intrinsic::fshl : Intrinsic::fshr, {A->getType()}, {Bv, A, C});
  if (I.has(Mod::Clamp)) // a count of 32 or more moves a whole word: a (left) or b (right)
    R = B.CreateSelect(B.CreateICmpUGE(C, B.getInt32(32)), Left ? A : Bv, R);
  def(I.Operands[0], R);
}

/// lop3: any function of three inputs given by its truth table (a = 0xF0, b = 0xCC, c = 0xAA).
void FunctionLowerer::lop3(const ir::Instruction &I) {
  if (I.Operands.size() != 5 || I.Operands[4].K != Operand::Imm || !I.Mods.empty())
    unsupported(); // the predicate forms (lop3.or/.and with |p): not yet
  ir::Type T = type0(I);
  Value *A = get(I.Operands[1], T);
  Value *Bv = get(I.Operands[2], T);
  Value *C = get(I.Operands[3], T);
  Value *NA = B.CreateNot(A);
  Value *NB = B.CreateNot(Bv);
  Value *NC = B.CreateNot(C);
  uint64_t Lut = static_cast<uint64_t>(I.Operands[4].Offset) & 0xff;
  Value *R = ConstantInt::get(A->getType(), 0);
  for (unsigned K = 0; K < 8; ++K) {
    if (!(Lut >> K & 1))
      continue;
    Value *Term = B.CreateAnd(K & 4 ? A : NA, K & 2 ? Bv : NB);
    R = B.CreateOr(R, B.CreateAnd(Term, K & 1 ? C : NC));
  }
  def(I.Operands[0], R);
}

/// dp4a / dp2a: dot products of bytes (and halves) with 32-bit accumulation.
void FunctionLowerer::dot(const ir::Instruction &I) {
  if (I.Types.size() != 2)
    unsupported();
  bool SA = isSigned(I.Types[0]), SB = isSigned(I.Types[1]);
  Value *A = get(I.Operands[1], ir::Type::B32);
  Value *Bv = get(I.Operands[2], ir::Type::B32);
  Value *Acc = get(I.Operands[3], ir::Type::B32);
  bool Two = I.Op == Opcode::Dp2a;
  unsigned BFirst = Two && I.has(Mod::Hi) ? 2 : 0;
  auto Part = [&](Value *V, unsigned Index, unsigned Bits, bool Signed) {
    Value *Shifted = B.CreateLShr(V, Index * Bits);
    Value *Narrow = B.CreateTrunc(Shifted, B.getIntNTy(Bits));
    return Signed ? B.CreateSExt(Narrow, B.getInt32Ty()) : B.CreateZExt(Narrow, B.getInt32Ty());
  };
  for (unsigned K = 0; K < (Two ? 2u : 4u); ++K) {
    Value *X = Part(A, K, Two ? 16 : 8, SA);
    Value *Y = Part(Bv, BFirst + K, 8, SB);
    Acc = B.CreateAdd(Acc, B.CreateMul(X, Y));
  }
  def(I.Operands[0], Acc);
}

/// mul.lo / mul.hi / mul.wide
Value *FunctionLowerer::multiply(const ir::Instruction &I, Value *A, Value *C, bool Signed,
                                 unsigned Bits) {
  if (I.has(Mod::Lo) || (!I.has(Mod::Hi) && !I.has(Mod::Wide)))
    return B.CreateMul(A, C);
  // (Sibling arguments are evaluated in no fixed order: the instructions are created one by one
  // so that the IR is the same whatever compiler built ptx2amd.)
  llvm::Type *W = B.getIntNTy(2 * Bits);
  Value *WA = Signed ? B.CreateSExt(A, W) : B.CreateZExt(A, W);
  Value *WC = Signed ? B.CreateSExt(C, W) : B.CreateZExt(C, W);
  Value *P = B.CreateMul(WA, WC);
  if (I.has(Mod::Wide))
    return P;
  return B.CreateTrunc(B.CreateLShr(P, 2 * Bits - Bits), A->getType());
}

void FunctionLowerer::mad(const ir::Instruction &I) {
  if (I.has(Mod::Cc))
    return carry(I);
  ir::Type T = type0(I);
  if (isFloat(T))
    return floatMad(I);
  for (const ir::Modifier &M : I.Mods)
    if (M.Id != Mod::Lo && M.Id != Mod::Hi && M.Id != Mod::Wide)
      unsupported();
  bool Signed = isSigned(T);
  Value *A = get(I.Operands[1], T), *C = get(I.Operands[2], T);
  Value *P = multiply(I, A, C, Signed, ir::typeBits(T));
  Value *D =
      get(I.Operands[3], I.has(Mod::Wide)
                             ? (Signed ? (ir::typeBits(T) == 32 ? ir::Type::S64 : ir::Type::S32)
                                       : (ir::typeBits(T) == 32 ? ir::Type::U64 : ir::Type::U32))
                             : T);
  def(I.Operands[0], B.CreateAdd(P, convert(D, P->getType())));
}

void FunctionLowerer::unary(const ir::Instruction &I) {
  ir::Type T = type0(I);
  if (isFloat(T))
    return floatUnary(I);
  Value *A = get(I.Operands[1], T);
  Value *R;
  switch (I.Op) {
  case Opcode::Abs:
    R = intrinsic(Intrinsic::abs, {A->getType()}, {A, B.getFalse()});
    break;
  case Opcode::Neg:
    R = B.CreateNeg(A);
    break;
  case Opcode::Not:
    R = B.CreateNot(A);
    break;
  case Opcode::Cnot:
    R = B.CreateZExt(B.CreateICmpEQ(A, ConstantInt::get(A->getType(), 0)), A->getType());
    break;
  case Opcode::Popc:
    R = intrinsic(Intrinsic::ctpop, {A->getType()}, {A});
    break;
  case Opcode::Clz:
    R = intrinsic(Intrinsic::ctlz, {A->getType()}, {A, B.getFalse()});
    break;
  case Opcode::Brev:
    R = intrinsic(Intrinsic::bitreverse, {A->getType()}, {A});
    break;
  default:
    unsupported();
  }
  // popc/clz of a 64-bit value still write a 32-bit register.
  def(I.Operands[0],
      (I.Op == Opcode::Popc || I.Op == Opcode::Clz) ? B.CreateZExtOrTrunc(R, B.getInt32Ty()) : R);
}

} // namespace ptx2amd::lowering
