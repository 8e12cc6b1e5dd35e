// Operand checks the opcode table cannot express: operand counts and kinds, register classes, and
// modifier/type combinations of the core (lowered) instruction families. Families that are only
// parsed (tensor, texture, surface, async copies, video) are checked by the table alone.
#include "Tables.h"

#include <fmt/format.h>

namespace ptx2amd::ir {
namespace {

bool isInt(Type T) {
  char C = typeClass(T);
  return C == 'B' || C == 'U' || C == 'S';
}

struct Shape {
  uint8_t Min, Max; ///< operand count, destinations included
  int8_t Address;   ///< index of the operand that must be an address, or -1
};

std::optional<Shape> shapeOf(const Instruction &I) {
  auto S = [](uint8_t Min, uint8_t Max, int8_t Addr = -1) { return Shape{Min, Max, Addr}; };
  bool BoolOp = I.has(Mod::And) || I.has(Mod::Or) || I.has(Mod::Xor);
  if (I.has(Mod::Async))
    return std::nullopt; // st.async / red.async carry an mbarrier address too
  switch (I.Op) {
  case Opcode::Add:
  case Opcode::Sub:
  case Opcode::Addc:
  case Opcode::Subc:
  case Opcode::Mul:
  case Opcode::Mul24:
  case Opcode::Div:
  case Opcode::Rem:
  case Opcode::Min:
  case Opcode::Max:
  case Opcode::Copysign:
  case Opcode::And:
  case Opcode::Or:
  case Opcode::Xor:
  case Opcode::Shl:
  case Opcode::Shr:
  case Opcode::Szext:
  case Opcode::Bmsk:
    return S(3, I.Op == Opcode::Min || I.Op == Opcode::Max
                    ? 4
                    : 3); // min/max take a third source on sm_100
  case Opcode::Mad:
  case Opcode::Madc:
  case Opcode::Mad24:
  case Opcode::Fma:
  case Opcode::Sad:
  case Opcode::Bfe:
  case Opcode::Selp:
  case Opcode::Slct:
  case Opcode::Prmt:
  case Opcode::Shf:
  case Opcode::Dp4a:
  case Opcode::Dp2a:
  case Opcode::Fns:
    return S(4, 4);
  case Opcode::Bfi:
    return S(5, 5);
  case Opcode::Lop3:
    return S(5, 7);
  case Opcode::Abs:
  case Opcode::Neg:
  case Opcode::Not:
  case Opcode::Cnot:
  case Opcode::Popc:
  case Opcode::Clz:
  case Opcode::Bfind:
  case Opcode::Brev:
  case Opcode::Rcp:
  case Opcode::Sqrt:
  case Opcode::Rsqrt:
  case Opcode::Sin:
  case Opcode::Cos:
  case Opcode::Lg2:
  case Opcode::Ex2:
  case Opcode::Tanh:
  case Opcode::Mov:
  case Opcode::Testp:
  case Opcode::Cvta:
  case Opcode::Isspacep:
    return S(2, 2);
  case Opcode::Cvt:
    return S(2, 4); // cvt.pack.sat.u8.s32.b32 d, a, b, c
  case Opcode::Setp:
    return S(3 + (I.Operands.size() > 1 && I.Operands[1].AfterPipe) + BoolOp,
             3 + (I.Operands.size() > 1 && I.Operands[1].AfterPipe) + BoolOp);
  case Opcode::Set:
    return S(3 + BoolOp, 3 + BoolOp);
  case Opcode::Ld:
  case Opcode::Ldu:
    return S(2, 3, 1);
  case Opcode::St:
    return S(2, 3, 0);
  case Opcode::Atom:
    return S(3, 5, 1);
  case Opcode::Red:
    return S(2, 4, 0);
  default:
    return std::nullopt;
  }
}

/// Instructions whose sources and destination use the instruction type (so a predicate register
/// is wrong there), and the one operand that is a predicate whatever the type.
bool isArithmetic(Opcode Op) {
  switch (opcodeInfo(Op).Fam) {
  case Family::IntArith:
  case Family::FloatArith:
  case Family::Logic:
    return true;
  default:
    return Op == Opcode::Selp || Op == Opcode::Slct || Op == Opcode::Mov || Op == Opcode::Cvt;
  }
}

bool isPred(const Function &F, const Operand &O) {
  return O.K == Operand::Value && F.Vars[O.V].Ty == Type::Pred;
}

} // namespace

std::optional<std::string> validateInstruction(const Instruction &I, const Function &F) {
  std::string_view Name = opcodeName(I.Op);
  if (auto S = shapeOf(I)) {
    size_t N = I.Operands.size();
    if (N < S->Min || N > S->Max)
      return S->Min == S->Max
                 ? fmt::format("'{}' takes {} operands, found {}", Name, S->Min, N)
                 : fmt::format("'{}' takes {} to {} operands, found {}", Name, S->Min, S->Max, N);
    for (size_t K = 0; K < N; ++K) {
      bool IsAddr = I.Operands[K].K == Operand::Address;
      if (int(K) == S->Address && !IsAddr)
        return fmt::format("operand {} of '{}' must be an address in brackets", K + 1, Name);
      if (int(K) != S->Address && IsAddr)
        return fmt::format("operand {} of '{}' cannot be an address", K + 1, Name);
    }
  }

  // Register classes.
  bool PredType = !I.Types.empty() && I.Types[0] == Type::Pred;
  if (I.Op == Opcode::Setp) {
    for (uint8_t K = 0; K < I.NumDefs; ++K)
      if (I.Operands[K].K == Operand::Value && !isPred(F, I.Operands[K]))
        return fmt::format("the destination of 'setp' must be a predicate");
  } else if (isArithmetic(I.Op) && !PredType && I.Op != Opcode::Cvt) {
    // selp/slct: the last operand is the condition (a predicate for selp, a number for slct).
    size_t Last = I.Operands.size();
    if (I.Op == Opcode::Selp && Last > 0)
      --Last;
    if (I.Op == Opcode::Lop3 && Last == 7) // lop3.or/and with a predicate destination and source
      Last = 0;
    for (size_t K = I.Op == Opcode::Testp ? 1 : 0; K < Last; ++K) {
      if (I.Op == Opcode::Lop3 && I.Operands[K].AfterPipe)
        continue;
      if (isPred(F, I.Operands[K]))
        return fmt::format("operand {} of '{}' is a predicate register; the instruction works on "
                           ".{} values",
                           K + 1, Name, I.Types.empty() ? "typed" : typeName(I.Types[0]));
    }
  }

  // Modifier/type combinations of the arithmetic core.
  if ((opcodeInfo(I.Op).Fam == Family::IntArith) && !I.Types.empty() && isInt(I.Types[0])) {
    for (const Modifier &M : I.Mods) {
      bool FloatOnly = M.Id == Mod::Rn || M.Id == Mod::Rz || M.Id == Mod::Rm || M.Id == Mod::Rp ||
                       M.Id == Mod::Ftz || M.Id == Mod::Approx || M.Id == Mod::Full;
      if (FloatOnly)
        return fmt::format("'.{}' applies to floating-point '{}' only", modifierSpelling(M), Name);
    }
    unsigned Bits = typeBits(I.Types[0]);
    if (I.has(Mod::Sat) && I.Types[0] != Type::S32 && I.Types[0] != Type::S16x2 &&
        I.Op != Opcode::Mad24)
      return fmt::format("'{}.sat' is defined for .s32 and .s16x2 only", Name);
    if (I.has(Mod::Wide) && Bits != 16 && Bits != 32)
      return fmt::format("'{}.wide' takes 16- or 32-bit operands", Name);
    if ((I.Op == Opcode::Mul || I.Op == Opcode::Mad) && !I.has(Mod::Lo) && !I.has(Mod::Hi) &&
        !I.has(Mod::Wide))
      return fmt::format("integer '{}' needs .lo, .hi or .wide", Name);
  }
  if (!I.Types.empty() && typeClass(I.Types[0]) == 'F' &&
      (I.has(Mod::Lo) || I.has(Mod::Hi) || I.has(Mod::Wide) || I.has(Mod::Cc)) &&
      (opcodeInfo(I.Op).Fam == Family::IntArith))
    return fmt::format("'.lo', '.hi', '.wide' and '.cc' apply to integer '{}' only", Name);
  return std::nullopt;
}

} // namespace ptx2amd::ir
