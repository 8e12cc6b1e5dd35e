// Internal: decoding an OPCODE token against the table.
#pragma once

#include "ptx2amd/ptx-ir/IR.h"

#include <optional>

namespace ptx2amd::ir {

struct DecodedOpcode {
  Opcode Op = Opcode::Unknown;
  llvm::SmallVector<Modifier, 4> Mods;
  llvm::SmallVector<Type, 2> Types;
};

/// Splits `ld.global.nc.v4.f32` into opcode, modifiers and types and checks them against the
/// table. Returns the problem, if any.
std::optional<std::string> decodeOpcode(std::string_view Text, DecodedOpcode &Out);

struct SpecialOperand {
  SpecialReg Reg;
  uint8_t Component;
  bool Complete; ///< false when the register needs a component (%tid without .x)
};
/// Recognises a special register name (without '%'), e.g. "tid.x", "laneid", "envreg3".
std::optional<SpecialOperand> parseSpecialRegister(std::string_view Name);

} // namespace ptx2amd::ir
