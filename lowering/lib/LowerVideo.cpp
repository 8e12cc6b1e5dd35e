// Scalar video instructions (vadd, vsub, vabsdiff, vmin, vmax, vshl, vshr, vset): a byte, half
// or word of each source, widened by its type, one operation in 64 bits, then saturation, a
// secondary operation or a merge into c, as the PTX ISA's pseudocode defines them; vmad, a
// multiply-add in 128 bits with operand negation, plus-one and scaling; and the SIMD ones
// (vadd2 ... vmax4, vset2, vset4) on the halves or bytes of a word.
#include "FunctionLowerer.h"

#include "ptx2amd/ptx-ir/Printer.h"

#include <algorithm>
#include <fmt/format.h>

using namespace llvm;

namespace ptx2amd::lowering {
using ir::Mod;
using ir::Opcode;
using ir::Operand;

namespace {
/// The one selector digit of a scalar video operand: {byte or half, index}; {false, -1}: none.
std::pair<bool, int> selector(const Operand &O) {
  if (!O.Select)
    return {false, -1};
  bool Half = O.Select & 0x8000;
  unsigned Digits = (O.Select >> 12) & 7;
  if (Digits != 1)
    return {Half, -2}; // multi-digit selectors belong to the SIMD forms
  return {Half, static_cast<int>(O.Select & 7)};
}
} // namespace

/// vset's comparison (scalar and SIMD). Both sources are widened exactly, so one signed
/// comparison serves every type.
CmpInst::Predicate FunctionLowerer::videoComparison(const ir::Instruction &I) {
  static constexpr std::pair<Mod, CmpInst::Predicate> Cmps[] = {
      {Mod::Eq, CmpInst::ICMP_EQ},  {Mod::Ne, CmpInst::ICMP_NE},  {Mod::Lt, CmpInst::ICMP_SLT},
      {Mod::Le, CmpInst::ICMP_SLE}, {Mod::Gt, CmpInst::ICMP_SGT}, {Mod::Ge, CmpInst::ICMP_SGE}};
  const auto *It =
      std::find_if(std::begin(Cmps), std::end(Cmps), [&](const auto &X) { return I.has(X.first); });
  if (It == std::end(Cmps))
    fail("vset needs a comparison (.eq, .ne, .lt, .le, .gt, .ge)");
  return It->second;
}

Value *FunctionLowerer::videoSource(const Operand &O, bool Signed) {
  auto [Half, Index] = selector(O);
  if (Index == -2 || (Index >= 0 && Index > (Half ? 1 : 3)))
    fail("invalid selector on a scalar video operand");
  Operand Whole = O;
  Whole.Select = 0;
  Value *V = get(Whole, ir::Type::B32);
  if (Index >= 0) {
    unsigned Bits = Half ? 16 : 8;
    if (Index)
      V = B.CreateLShr(V, Index * Bits);
    V = B.CreateTrunc(V, B.getIntNTy(Bits));
  }
  return Signed ? B.CreateSExt(V, B.getInt64Ty()) : B.CreateZExt(V, B.getInt64Ty());
}

void FunctionLowerer::video(const ir::Instruction &I) {
  // vop.dtype.atype.btype, or vset.atype.btype.cmp whose result is a u32 0 or 1.
  bool Set = I.Op == Opcode::Vset;
  if (I.Types.size() != (Set ? 2u : 3u) || I.Operands.size() < 3)
    unsupported();
  ir::Type AT = I.Types[Set ? 0 : 1], BT = I.Types[Set ? 1 : 2];
  bool DSigned = !Set && isSigned(I.Types[0]);
  if (Set && I.has(Mod::Sat))
    fail("vset has no '.sat'");
  Value *A = videoSource(I.Operands[1], isSigned(AT));
  Value *Bv = videoSource(I.Operands[2], isSigned(BT));
  Value *T;
  switch (I.Op) {
  case Opcode::Vset:
    T = B.CreateZExt(B.CreateICmp(videoComparison(I), A, Bv), B.getInt64Ty());
    break;
  case Opcode::Vadd:
    T = B.CreateAdd(A, Bv);
    break;
  case Opcode::Vsub:
    T = B.CreateSub(A, Bv);
    break;
  case Opcode::Vabsdiff:
    T = intrinsic(Intrinsic::abs, {B.getInt64Ty()}, {B.CreateSub(A, Bv), B.getFalse()});
    break;
  case Opcode::Vmin:
    T = intrinsic(Intrinsic::smin, {B.getInt64Ty()}, {A, Bv});
    break;
  case Opcode::Vmax:
    T = intrinsic(Intrinsic::smax, {B.getInt64Ty()}, {A, Bv});
    break;
  case Opcode::Vshl:
  case Opcode::Vshr: {
    // The count is always unsigned: .clamp stops at 32, .wrap keeps the low five bits.
    Value *N = I.has(Mod::Wrap)
                   ? B.CreateAnd(Bv, 31)
                   : intrinsic(Intrinsic::umin, {B.getInt64Ty()}, {Bv, B.getInt64(32)});
    T = I.Op == Opcode::Vshl   ? B.CreateShl(A, N)
        : isSigned(I.Types[1]) ? B.CreateAShr(A, N)
                               : B.CreateLShr(A, N);
    break;
  }
  default:
    unsupported();
  }
  const Operand &D = I.Operands[0];
  auto [DHalf, DIndex] = selector(D);
  if (DIndex == -2 || (DIndex >= 0 && DIndex > (DHalf ? 1 : 3)))
    fail("invalid selector on a video destination");
  if (I.has(Mod::Sat)) {
    // The range of the destination type, or of the merged byte/half.
    unsigned Bits = DIndex >= 0 ? (DHalf ? 16 : 8) : 32;
    int64_t Lo = DSigned ? -(int64_t(1) << (Bits - 1)) : 0;
    int64_t Hi = DSigned ? (int64_t(1) << (Bits - 1)) - 1 : (int64_t(1) << Bits) - 1;
    T = intrinsic(Intrinsic::smax, {B.getInt64Ty()}, {T, B.getInt64(Lo)});
    T = intrinsic(Intrinsic::smin, {B.getInt64Ty()}, {T, B.getInt64(Hi)});
  }
  Value *R = B.CreateTrunc(T, B.getInt32Ty());
  if (DIndex >= 0) { // merge into c
    if (I.Operands.size() != 4)
      fail("a video merge needs the c operand");
    Value *C = get(I.Operands[3], ir::Type::B32);
    unsigned Bits = DHalf ? 16 : 8, Shift = DIndex * Bits;
    uint32_t Mask = ((1u << Bits) - 1) << Shift;
    Value *Part = B.CreateAnd(B.CreateShl(R, Shift), Mask);
    R = B.CreateOr(B.CreateAnd(C, ~Mask), Part);
    Operand Whole = D;
    Whole.Select = 0;
    def(Whole, R);
    return;
  }
  if (I.Operands.size() == 4) {
    Value *C = get(I.Operands[3], ir::Type::B32);
    if (I.has(Mod::Add))
      R = B.CreateAdd(R, C);
    else if (I.has(Mod::Min))
      R = intrinsic(DSigned ? Intrinsic::smin : Intrinsic::umin, {B.getInt32Ty()}, {R, C});
    else if (I.has(Mod::Max))
      R = intrinsic(DSigned ? Intrinsic::smax : Intrinsic::umax, {B.getInt32Ty()}, {R, C});
    else
      fail("a video instruction with a c operand needs .add, .min, .max or a merge selector");
  }
  def(D, R);
}

/// vmad.dtype.atype.btype{.po}{.sat}{.shr7,.shr15} d, {-}a{.sel}, {-}b{.sel}, {-}c, as the PTX
/// ISA's pseudocode defines it: the product of the widened sources in 128 bits, complemented
/// when exactly one of a and b is negated (else c when it is), plus c and the low bit that
/// completes the negation (or .po's one), shifted right by the scale; .sat clamps to the s32
/// range when any source is signed or negated, else to the u32 range.
void FunctionLowerer::videoMad(const ir::Instruction &I) {
  if (I.Types.size() != 3 || I.Operands.size() != 4)
    unsupported();
  auto Extra = [&](const char *Spelling) {
    return std::any_of(I.Mods.begin(), I.Mods.end(), [&](const ir::Modifier &M) {
      return M.Id == Mod::Extra && ir::modifierSpelling(M) == Spelling;
    });
  };
  bool PlusOne = Extra("po"), Shr7 = Extra("shr7"), Shr15 = Extra("shr15");
  if (Shr7 && Shr15)
    fail("vmad takes one scale (.shr7 or .shr15)");
  const Operand &OA = I.Operands[1], &OB = I.Operands[2], &OC = I.Operands[3];
  if (PlusOne && (OA.Negated || OB.Negated || OC.Negated))
    fail("vmad.po takes no negated operand");
  if (I.Operands[0].Select)
    fail("vmad's destination takes no selector");
  if (OA.Negated != OB.Negated && OC.Negated)
    fail("vmad negates either the product or c, not both");
  bool SignedFinal =
      isSigned(I.Types[1]) || isSigned(I.Types[2]) || (OA.Negated != OB.Negated) || OC.Negated;
  Type *I128 = B.getInt128Ty();
  Operand A = OA, Bo = OB, Co = OC;
  A.Negated = Bo.Negated = Co.Negated = false;
  Value *TA = B.CreateSExt(videoSource(A, isSigned(I.Types[1])), I128);
  Value *TB = B.CreateSExt(videoSource(Bo, isSigned(I.Types[2])), I128);
  Value *Product = B.CreateMul(TA, TB);
  Value *C = get(Co, ir::Type::B32);
  uint64_t Lsb = 0;
  if (PlusOne) {
    Lsb = 1;
  } else if (OA.Negated != OB.Negated) {
    Product = B.CreateNot(Product);
    Lsb = 1;
  } else if (OC.Negated) {
    C = B.CreateNot(C);
    Lsb = 1;
  }
  Value *C128 = SignedFinal ? B.CreateSExt(C, I128) : B.CreateZExt(C, I128);
  Value *T = B.CreateAdd(B.CreateAdd(Product, C128), ConstantInt::get(I128, Lsb));
  unsigned Scale = Shr7 ? 7 : Shr15 ? 15 : 0;
  if (Scale)
    T = B.CreateLShr(T, Scale);
  Value *R = B.CreateTrunc(T, B.getInt64Ty());
  if (I.has(Mod::Sat)) {
    if (SignedFinal) {
      R = intrinsic(Intrinsic::smax, {B.getInt64Ty()}, {R, B.getInt64(INT32_MIN)});
      R = intrinsic(Intrinsic::smin, {B.getInt64Ty()}, {R, B.getInt64(INT32_MAX)});
    } else {
      R = intrinsic(Intrinsic::umin, {B.getInt64Ty()}, {R, B.getInt64(UINT32_MAX)});
    }
  }
  def(I.Operands[0], B.CreateTrunc(R, B.getInt32Ty()));
}

/// The SIMD video instructions (vadd2 ... vmax4, vset2, vset4), as the PTX ISA's pseudocode
/// defines them: halves or bytes picked from {b, a} by the selectors (a: .h10/.b3210 and b:
/// .h32/.b7654 by default), widened by their types; one operation per element, then .sat
/// clamps to the destination's element range, and either .add sums the masked elements into
/// c, or the masked elements replace those of c.
void FunctionLowerer::videoSimd(const ir::Instruction &I) {
  bool Four = I.Op == Opcode::Vadd4 || I.Op == Opcode::Vsub4 || I.Op == Opcode::Vavrg4 ||
              I.Op == Opcode::Vabsdiff4 || I.Op == Opcode::Vmin4 || I.Op == Opcode::Vmax4 ||
              I.Op == Opcode::Vset4;
  bool Set = I.Op == Opcode::Vset2 || I.Op == Opcode::Vset4;
  // vop.dtype.atype.btype d, a, b, c;  vset.atype.btype.cmp d, a, b, c;
  if (I.Types.size() != (Set ? 2u : 3u) || I.Operands.size() != 4)
    unsupported();
  unsigned N = Four ? 4 : 2, Bits = Four ? 8 : 16;
  ir::Type AT = I.Types[Set ? 0 : 1], BT = I.Types[Set ? 1 : 2];
  bool DSigned = !Set && isSigned(I.Types[0]);
  bool Add = I.has(Mod::Add);
  if (Add && I.has(Mod::Sat))
    fail("'.sat' cannot be used with the '.add' accumulation");
  // The element index each selector digit names, element 0 last in the text.
  auto Digits = [&](const Operand &O, unsigned First) {
    std::vector<unsigned> D;
    if (!O.Select) {
      for (unsigned K = 0; K < N; ++K)
        D.push_back(First + K);
      return D;
    }
    unsigned Count = (O.Select >> 12) & 7;
    if (bool(O.Select & 0x8000) == Four)
      fail(Four ? "a four-way video instruction selects bytes (.bxyzw)"
                : "a two-way video instruction selects halves (.hxy)");
    for (unsigned K = 0; K < Count; ++K)
      D.push_back((O.Select >> (3 * K)) & 7);
    return D;
  };
  auto Whole = [&](const Operand &O) {
    Operand W = O;
    W.Select = 0;
    return get(W, ir::Type::B32);
  };
  Value *A = Whole(I.Operands[1]);
  Value *Bv = Whole(I.Operands[2]);
  Value *C = Whole(I.Operands[3]);
  Value *High = B.CreateShl(B.CreateZExt(Bv, B.getInt64Ty()), 32);
  Value *Pair = B.CreateOr(High, B.CreateZExt(A, B.getInt64Ty()));
  auto Element = [&](Value *Src, unsigned Index, bool Signed) {
    Value *Shifted = Index ? B.CreateLShr(Src, Index * Bits) : Src;
    Value *Narrow = B.CreateTrunc(Shifted, B.getIntNTy(Bits));
    return Signed ? B.CreateSExt(Narrow, B.getInt32Ty()) : B.CreateZExt(Narrow, B.getInt32Ty());
  };
  std::vector<unsigned> ASel = Digits(I.Operands[1], 0), BSel = Digits(I.Operands[2], N);
  if (ASel.size() != N || BSel.size() != N)
    fail("a video selector names one element per lane of the operation");
  for (unsigned K = 0; K < N; ++K)
    if (ASel[K] >= 2 * N || BSel[K] >= 2 * N)
      fail("a video selector names an element past {b, a}");
  // The destination mask lists the elements written (all of them by default).
  unsigned Mask = 0;
  for (unsigned D : Digits(I.Operands[0], 0)) {
    if (D >= N)
      fail("invalid video destination mask");
    Mask |= 1u << D;
  }
  CmpInst::Predicate Cmp = Set ? videoComparison(I) : CmpInst::ICMP_EQ;
  Value *R = Add ? C : nullptr; // the merge starts from its first element
  auto Merge = [&](Value *Part) { R = R ? B.CreateOr(R, Part) : Part; };
  for (unsigned K = 0; K < N; ++K) {
    uint32_t Field = ((1u << Bits) - 1) << (K * Bits);
    if (!(Mask >> K & 1)) { // c's element stays (or adds nothing)
      if (!Add)
        Merge(B.CreateAnd(C, Field));
      continue;
    }
    Value *X = Element(Pair, ASel[K], isSigned(AT));
    Value *Y = Element(Pair, BSel[K], isSigned(BT));
    Value *T;
    switch (I.Op) {
    case Opcode::Vadd2:
    case Opcode::Vadd4:
      T = B.CreateAdd(X, Y);
      break;
    case Opcode::Vsub2:
    case Opcode::Vsub4:
      T = B.CreateSub(X, Y);
      break;
    case Opcode::Vavrg2:
    case Opcode::Vavrg4: {
      // Halves round away from zero: +1 before the shift for non-negative sums.
      Value *Sum = B.CreateAdd(X, Y);
      Value *NonNegative = B.CreateICmpSGE(Sum, B.getInt32(0));
      Value *Up = B.CreateAdd(Sum, B.getInt32(1));
      T = B.CreateAShr(B.CreateSelect(NonNegative, Up, Sum), 1);
      break;
    }
    case Opcode::Vabsdiff2:
    case Opcode::Vabsdiff4:
      T = intrinsic(Intrinsic::abs, {B.getInt32Ty()}, {B.CreateSub(X, Y), B.getFalse()});
      break;
    case Opcode::Vmin2:
    case Opcode::Vmin4:
      T = intrinsic(Intrinsic::smin, {B.getInt32Ty()}, {X, Y});
      break;
    case Opcode::Vmax2:
    case Opcode::Vmax4:
      T = intrinsic(Intrinsic::smax, {B.getInt32Ty()}, {X, Y});
      break;
    default: // vset
      T = B.CreateZExt(B.CreateICmp(Cmp, X, Y), B.getInt32Ty());
      break;
    }
    if (I.has(Mod::Sat)) {
      int32_t Lo = DSigned ? -(1 << (Bits - 1)) : 0;
      int32_t Hi = DSigned ? (1 << (Bits - 1)) - 1 : (1 << Bits) - 1;
      T = intrinsic(Intrinsic::smax, {B.getInt32Ty()}, {T, B.getInt32(Lo)});
      T = intrinsic(Intrinsic::smin, {B.getInt32Ty()}, {T, B.getInt32(Hi)});
    }
    if (Add) {
      R = B.CreateAdd(R, T);
      continue;
    }
    Value *Part = K ? B.CreateShl(T, K * Bits) : T;
    Merge(B.CreateAnd(Part, Field));
  }
  Operand D = I.Operands[0];
  D.Select = 0;
  def(D, R);
}

} // namespace ptx2amd::lowering
