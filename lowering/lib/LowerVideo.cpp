// Scalar video instructions (vadd, vsub, vabsdiff, vmin, vmax, vshl, vshr): a byte, half or word
// of each source, widened by its type, one operation in 64 bits, then saturation, a secondary
// operation or a merge into c, as the PTX ISA's pseudocode defines them.
#include "FunctionLowerer.h"

#include "ptx2amd/ptx-ir/Printer.h"

#include <fmt/format.h>

using namespace llvm;

namespace ptx2amd::lowering {
using ir::Mod;
using ir::Opcode;

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
  if (I.Types.size() != 3 || I.Operands.size() < 3)
    unsupported();
  bool DSigned = isSigned(I.Types[0]);
  Value *A = videoSource(I.Operands[1], isSigned(I.Types[1]));
  Value *Bv = videoSource(I.Operands[2], isSigned(I.Types[2]));
  Value *T;
  switch (I.Op) {
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

} // namespace ptx2amd::lowering
