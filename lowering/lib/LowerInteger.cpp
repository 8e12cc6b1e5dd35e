// Integer arithmetic and bit manipulation, with the results PTX defines for every input
// (shift counts past the width, division by zero, bit-field positions past the top).
#include "FunctionLowerer.h"

#include "ptx2amd/ptx-ir/Printer.h"

#include <algorithm>
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
    if (M.Id != Mod::Lo && M.Id != Mod::Hi && M.Id != Mod::Wide && M.Id != Mod::Sat &&
        M.Id != Mod::Relu)
      unsupported();
  bool Signed = isSigned(T);
  unsigned Bits = ir::typeBits(T);
  bool Sat = I.has(Mod::Sat), Relu = I.has(Mod::Relu);
  bool Packed = T == ir::Type::S16x2 || T == ir::Type::U16x2;
  bool AddSub = I.Op == Opcode::Add || I.Op == Opcode::Sub;
  bool MinMax = I.Op == Opcode::Min || I.Op == Opcode::Max;
  if (Sat && !(AddSub && T == ir::Type::S32))
    fail("'.sat' applies to add.s32 and sub.s32 only");
  if (Relu && !(MinMax && (T == ir::Type::S32 || T == ir::Type::S16x2)))
    fail("'.relu' applies to min/max .s32 and .s16x2 only");
  // The 16x2 forms exist for add, min and max: two halves in parallel.
  if (Packed && !(I.Op == Opcode::Add || MinMax))
    unsupported();
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
  if (Packed) {
    auto *Halves = FixedVectorType::get(B.getInt16Ty(), 2);
    A = B.CreateBitCast(A, Halves);
    C = B.CreateBitCast(C, Halves);
  }
  Value *R;
  switch (I.Op) {
  case Opcode::Add:
    R = Sat ? intrinsic(Intrinsic::sadd_sat, {A->getType()}, {A, C}) : B.CreateAdd(A, C);
    break;
  case Opcode::Sub:
    R = Sat ? intrinsic(Intrinsic::ssub_sat, {A->getType()}, {A, C}) : B.CreateSub(A, C);
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
    if (I.Op == Opcode::Div) {
      Value *Neg = B.CreateNeg(A);
      R = B.CreateSelect(MinusOne, Neg, B.CreateSDiv(A, D));
    } else {
      R = B.CreateSelect(MinusOne, ConstantInt::get(C->getType(), 0), B.CreateSRem(A, D));
    }
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
  if (Relu) // negative results become 0
    R = intrinsic(Intrinsic::smax, {R->getType()}, {R, Constant::getNullValue(R->getType())});
  if (Packed)
    R = B.CreateBitCast(R, B.getInt32Ty());
  def(I.Operands[0], R);
}

/// mul24 / mad24: the 48-bit product of the low 24 bits of a and b (.hi: its bits 47..16).
void FunctionLowerer::mul24(const ir::Instruction &I) {
  ir::Type T = type0(I);
  bool Signed = isSigned(T), Hi = I.has(Mod::Hi);
  if (Hi == I.has(Mod::Lo))
    fail("mul24/mad24 need one of .hi and .lo");
  Value *A = get(I.Operands[1], T);
  Value *C = get(I.Operands[2], T);
  // Each source is its low 24 bits, sign- or zero-extended by the type.
  auto Operand24 = [&](Value *V) {
    Value *Low = B.CreateTrunc(V, B.getIntNTy(24));
    return Signed ? B.CreateSExt(Low, B.getInt64Ty()) : B.CreateZExt(Low, B.getInt64Ty());
  };
  Value *WA = Operand24(A);
  Value *WC = Operand24(C);
  Value *P = B.CreateMul(WA, WC);
  Value *R = B.CreateTrunc(Hi ? B.CreateLShr(P, 16) : P, B.getInt32Ty());
  if (I.Op == Opcode::Mad24) {
    Value *D = get(I.Operands[3], T);
    if (I.has(Mod::Sat) && !(Hi && Signed))
      fail("'.sat' applies to mad24.hi.s32 only");
    R = I.has(Mod::Sat) ? intrinsic(Intrinsic::sadd_sat, {R->getType()}, {R, D})
                        : B.CreateAdd(R, D);
  }
  def(I.Operands[0], R);
}

/// sad: c + |a - b|.
void FunctionLowerer::sad(const ir::Instruction &I) {
  ir::Type T = type0(I);
  Value *A = get(I.Operands[1], T);
  Value *Bv = get(I.Operands[2], T);
  Value *C = get(I.Operands[3], T);
  Value *Less = isSigned(T) ? B.CreateICmpSLT(A, Bv) : B.CreateICmpULT(A, Bv);
  Value *BMinusA = B.CreateSub(Bv, A);
  Value *AMinusB = B.CreateSub(A, Bv);
  def(I.Operands[0], B.CreateAdd(C, B.CreateSelect(Less, BMinusA, AMinusB)));
}

/// fns: the position of the n-th set bit of a mask from a base bit, upwards or downwards.
void FunctionLowerer::fns(const ir::Instruction &I) {
  Value *Mask = get(I.Operands[1], ir::Type::B32);
  // A base past 31 is undefined: keep its low bits so that the shifts stay defined.
  Value *Base = B.CreateAnd(get(I.Operands[2], ir::Type::U32), 31);
  Value *Offset = get(I.Operands[3], ir::Type::S32);
  Value *None = B.getInt32(~0u);
  // |offset| as an unsigned count: |INT_MIN| is 2^31.
  Value *N = intrinsic(Intrinsic::abs, {B.getInt32Ty()}, {Offset, B.getFalse()});
  // Upwards: the n-th set bit at or above base. Downwards: the n-th counted from base down,
  // which is the (total - n + 1)-th from bit 0 of the bits at or below base.
  Value *Up = B.CreateAnd(Mask, B.CreateShl(None, Base));
  Value *DownBits = B.CreateLShr(None, B.CreateSub(B.getInt32(31), Base));
  Value *Down = B.CreateAnd(Mask, DownBits);
  Value *Forward = B.CreateICmpSGT(Offset, B.getInt32(0));
  Value *Bits = B.CreateSelect(Forward, Up, Down);
  Value *Total = intrinsic(Intrinsic::ctpop, {B.getInt32Ty()}, {Bits});
  Value *Found = B.CreateICmpUGE(Total, N);
  Value *FromTop = B.CreateAdd(B.CreateSub(Total, N), B.getInt32(1));
  Value *K = B.CreateSelect(Forward, N, FromTop); // 1-based rank from bit 0
  // Binary search for the K-th set bit: skip a lower part when it holds fewer than K.
  Value *Pos = B.getInt32(0);
  for (unsigned W = 16; W >= 1; W /= 2) {
    Value *Part = B.CreateAnd(W == 16 ? Bits : B.CreateLShr(Bits, Pos), (1u << W) - 1);
    Value *Count = intrinsic(Intrinsic::ctpop, {B.getInt32Ty()}, {Part});
    Value *Skip = B.CreateICmpUGT(K, Count);
    Value *Next = B.CreateAdd(Pos, B.getInt32(W));
    Pos = B.CreateSelect(Skip, Next, Pos);
    Value *Rest = B.CreateSub(K, Count);
    K = B.CreateSelect(Skip, Rest, K);
  }
  Value *R = B.CreateSelect(Found, Pos, None);
  // offset 0: base itself, when its bit is set.
  Value *BaseBit = B.CreateAnd(B.CreateLShr(Mask, Base), 1);
  Value *BaseSet = B.CreateICmpNE(BaseBit, B.getInt32(0));
  Value *AtBase = B.CreateSelect(BaseSet, Base, None);
  Value *Zero = B.CreateICmpEQ(Offset, B.getInt32(0));
  def(I.Operands[0], B.CreateSelect(Zero, AtBase, R));
}

/// bmsk: a mask of b bits from bit a (the PTX ISA's pseudocode: .wrap takes both modulo 32,
/// .clamp makes a >= 32 an empty mask and b >= 32 a mask up to bit 31).
void FunctionLowerer::bmsk(const ir::Instruction &I) {
  bool Clamp = I.has(Mod::Clamp);
  if (Clamp == I.has(Mod::Wrap))
    fail("bmsk needs one of .clamp and .wrap");
  Value *A = get(I.Operands[1], ir::Type::U32);
  Value *Bv = get(I.Operands[2], ir::Type::U32);
  Value *Ones = B.getInt32(~0u);
  Value *A1 = B.CreateAnd(A, 31);
  Value *B1 = B.CreateAnd(Bv, 31);
  Value *Sum = B.CreateAdd(A1, B1);
  Value *Beyond = B.CreateICmpUGE(Sum, B.getInt32(32)); // the field reaches past bit 31
  Value *Mask0 = B.CreateShl(Ones, A1);
  if (Clamp) {
    Value *PosBig = B.CreateICmpUGE(A, B.getInt32(32));
    Value *WidthBig = B.CreateICmpUGE(Bv, B.getInt32(32));
    Mask0 = B.CreateSelect(PosBig, B.getInt32(0), Mask0);
    Beyond = B.CreateOr(Beyond, B.CreateOr(PosBig, WidthBig));
  }
  Value *SafeSum = B.CreateSelect(Beyond, B.getInt32(0), Sum);
  Value *Mask1 = B.CreateShl(Ones, SafeSum);
  Value *Empty = B.CreateICmpEQ(B1, B.getInt32(0));
  Mask1 = B.CreateSelect(Empty, Ones, Mask1);
  Mask1 = B.CreateSelect(Beyond, B.getInt32(0), Mask1);
  def(I.Operands[0], B.CreateAnd(Mask0, B.CreateNot(Mask1)));
}

/// szext: the low b bits of a, sign- (.s32) or zero-extended (.u32); b = 0 gives 0, b >= 32
/// gives a with .clamp and counts modulo 32 with .wrap.
void FunctionLowerer::szext(const ir::Instruction &I) {
  ir::Type T = type0(I);
  bool Clamp = I.has(Mod::Clamp);
  if (Clamp == I.has(Mod::Wrap))
    fail("szext needs one of .clamp and .wrap");
  Value *A = get(I.Operands[1], T);
  Value *Bv = get(I.Operands[2], ir::Type::U32);
  Value *B1 = B.CreateAnd(Bv, 31);
  Value *Mask = B.CreateShl(B.getInt32(~0u), B1); // the bits above the field
  if (Clamp) {
    Value *TooLarge = B.CreateICmpUGE(Bv, B.getInt32(32));
    Mask = B.CreateSelect(TooLarge, B.getInt32(0), Mask);
  }
  Value *R = B.CreateAnd(A, B.CreateNot(Mask));
  if (isSigned(T)) {
    Value *SignPos = B.CreateAnd(B.CreateSub(B1, B.getInt32(1)), 31);
    Value *Sign = B.CreateAnd(B.CreateLShr(A, SignPos), 1);
    Value *Negative = B.CreateICmpNE(Sign, B.getInt32(0));
    // A zero-width field has no sign (its mask covers everything: the result is 0).
    Value *HasSign = B.CreateICmpNE(B1, B.getInt32(0));
    Value *Fill = B.CreateSelect(B.CreateAnd(Negative, HasSign), Mask, B.getInt32(0));
    R = B.CreateOr(R, Fill);
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

/// prmt: each result byte picks one of the 8 bytes of {b, a}, optionally replicating its sign
/// bit (default mode), or by a fixed pattern the two low bits of c choose (the other modes).
void FunctionLowerer::prmt(const ir::Instruction &I) {
  Value *A = get(I.Operands[1], ir::Type::B32);
  Value *Bv = get(I.Operands[2], ir::Type::B32);
  Value *C = get(I.Operands[3], ir::Type::B32);
  if (!I.Mods.empty()) {
    // The modes pick bytes by the two low bits of c, as in the PTX ISA's table; each row is
    // written here as the default-mode selector it equals (byte K from nibble K).
    static constexpr struct {
      Mod M;
      uint16_t Rows[4];
    } Modes[] = {{Mod::F4e, {0x3210, 0x4321, 0x5432, 0x6543}},
                 {Mod::B4e, {0x5670, 0x6701, 0x7012, 0x0123}},
                 {Mod::Rc8, {0x0000, 0x1111, 0x2222, 0x3333}},
                 {Mod::Ecl, {0x3210, 0x3211, 0x3222, 0x3333}},
                 {Mod::Ecr, {0x0000, 0x1110, 0x2210, 0x3210}},
                 {Mod::Rc16, {0x1010, 0x3232, 0x1010, 0x3232}}};
    const auto *Mode =
        std::find_if(std::begin(Modes), std::end(Modes), [&](const auto &X) { return I.has(X.M); });
    if (I.Mods.size() != 1 || Mode == std::end(Modes))
      unsupported();
    uint64_t Table = 0;
    for (unsigned K = 0; K < 4; ++K)
      Table |= uint64_t(Mode->Rows[K]) << (16 * K);
    Value *Row = B.CreateShl(B.CreateZExt(B.CreateAnd(C, 3), B.getInt64Ty()), 4);
    C = B.CreateTrunc(B.CreateLShr(B.getInt64(Table), Row), B.getInt32Ty());
  }
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
  // lop3.b32 d, a, b, c, immLut;  lop3.BoolOp.b32 d|p, a, b, c, immLut, q;
  bool Pred = I.NumDefs == 2;
  size_t S0 = I.NumDefs;
  if (I.Operands.size() != S0 + (Pred ? 5 : 4) || I.Operands[S0 + 3].K != Operand::Imm ||
      I.Mods.size() != (Pred ? 1u : 0u) || (Pred && !I.has(Mod::And) && !I.has(Mod::Or)))
    unsupported();
  ir::Type T = type0(I);
  Value *A = get(I.Operands[S0], T);
  Value *Bv = get(I.Operands[S0 + 1], T);
  Value *C = get(I.Operands[S0 + 2], T);
  Value *NA = B.CreateNot(A);
  Value *NB = B.CreateNot(Bv);
  Value *NC = B.CreateNot(C);
  uint64_t Lut = static_cast<uint64_t>(I.Operands[S0 + 3].Offset) & 0xff;
  Value *R = ConstantInt::get(A->getType(), 0);
  for (unsigned K = 0; K < 8; ++K) {
    if (!(Lut >> K & 1))
      continue;
    Value *Term = B.CreateAnd(K & 4 ? A : NA, K & 2 ? Bv : NB);
    R = B.CreateOr(R, B.CreateAnd(Term, K & 1 ? C : NC));
  }
  def(I.Operands[0], R);
  if (Pred) { // p = (d != 0) BoolOp q
    Value *Q = get(I.Operands[S0 + 4], ir::Type::Pred);
    Value *NonZero = B.CreateICmpNE(R, ConstantInt::get(R->getType(), 0));
    def(I.Operands[1], I.has(Mod::And) ? B.CreateAnd(NonZero, Q) : B.CreateOr(NonZero, Q));
  }
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
    if (M.Id != Mod::Lo && M.Id != Mod::Hi && M.Id != Mod::Wide && M.Id != Mod::Sat)
      unsupported();
  bool Signed = isSigned(T);
  bool Sat = I.has(Mod::Sat);
  if (Sat && !(I.has(Mod::Hi) && T == ir::Type::S32))
    fail("'.sat' applies to mad.hi.s32 only");
  Value *A = get(I.Operands[1], T), *C = get(I.Operands[2], T);
  Value *P = multiply(I, A, C, Signed, ir::typeBits(T));
  Value *D =
      get(I.Operands[3], I.has(Mod::Wide)
                             ? (Signed ? (ir::typeBits(T) == 32 ? ir::Type::S64 : ir::Type::S32)
                                       : (ir::typeBits(T) == 32 ? ir::Type::U64 : ir::Type::U32))
                             : T);
  D = convert(D, P->getType());
  def(I.Operands[0],
      Sat ? intrinsic(Intrinsic::sadd_sat, {P->getType()}, {P, D}) : B.CreateAdd(P, D));
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
