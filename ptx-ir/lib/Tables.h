// Internal: decoding an OPCODE token against the table.
#pragma once

#include "ptx2amd/ptx-ir/IR.h"

#include <optional>

namespace ptx2amd::ir {

struct DecodedOpcode {
  Opcode Op = Opcode::Unknown;
  llvm::SmallVector<Modifier, 4> Mods;
  llvm::SmallVector<Type, 2> Types;
  uint32_t TypeSlots = 0; ///< see Instruction::TypeSlots
};

/// Splits `ld.global.nc.v4.f32` into opcode, modifiers and types and checks them against the
/// table. Returns the problem, if any.
std::optional<std::string> decodeOpcode(std::string_view Text, DecodedOpcode &Out);

struct Function;
struct Instruction;
/// Operand counts and kinds, register classes and modifier/type combinations of the core
/// instruction families; returns the problem, if any. Runs before SSA construction (Value operands
/// name registers).
std::optional<std::string> validateInstruction(const Instruction &I, const Function &F);

struct SpecialOperand {
  SpecialReg Reg;
  uint8_t Component;
  bool Complete; ///< false when the register needs a component (%tid without .x)
};
/// Suffixes of %reserved_smem_offset_*, by SpecialOperand::Component.
extern const std::string_view ReservedSmemNames[5];

/// Recognises a special register name (without '%'), e.g. "tid.x", "laneid", "envreg3".
std::optional<SpecialOperand> parseSpecialRegister(std::string_view Name);

} // namespace ptx2amd::ir
