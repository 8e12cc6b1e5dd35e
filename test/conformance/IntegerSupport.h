// What the integer families (IntegerFamilies.cpp, IntegerBitFamilies.cpp) share: the integer
// types, their ranges and the operands and bodies of cases.
#pragma once

#include "Families.h"

#include <array>
#include <bit>
#include <map>

namespace conformance::integer_families {

using I128 = __int128;
using U128 = unsigned __int128;
using Opt = std::optional<uint64_t>;

struct IntType {
  const char *Name;
  unsigned Bits;
  bool Signed;
};

const IntType U16{"u16", 16, false}, S16{"s16", 16, true}, U32{"u32", 32, false},
    S32{"s32", 32, true}, U64{"u64", 64, false}, S64{"s64", 64, true};
const IntType Ints[] = {U16, S16, U32, S32, U64, S64};

inline std::string sfx(const IntType &T) { return std::string(".") + T.Name; }
/// The value of \p V as an integer of type \p T.
inline I128 val(uint64_t V, const IntType &T) {
  return T.Signed ? I128(sext(V, T.Bits)) : I128(V & mask(T.Bits));
}
inline I128 minOf(const IntType &T) { return T.Signed ? -(I128(1) << (T.Bits - 1)) : 0; }
inline I128 maxOf(const IntType &T) {
  return T.Signed ? (I128(1) << (T.Bits - 1)) - 1 : (I128(1) << T.Bits) - 1;
}
inline I128 clamp(I128 V, const IntType &T) { return std::min(std::max(V, minOf(T)), maxOf(T)); }

inline Operand op(const char *Name, const IntType &T) { return ofBits(Name, T.Bits); }

inline std::string bin(const std::string &Opcode) { return Opcode + " %d, %a, %b;"; }
inline std::string ter(const std::string &Opcode) { return Opcode + " %d, %a, %b, %c;"; }

// IntegerBitFamilies.cpp.
Family shifts();
Family bitOps();
Family logic();
Family compareSelect();
Family integerCvt();

} // namespace conformance::integer_families
