// Textual forms of the PTX IR.
#pragma once

#include "ptx2amd/ptx-ir/IR.h"

#include <llvm/Support/raw_ostream.h>

namespace ptx2amd::ir {

enum class PrintMode {
  SSA, ///< stable SSA dump: versioned values, phis, predecessors, prior values of guarded writes
  PTX, ///< PTX text again (registers by name); parsing it gives the same IR
};

void printModule(llvm::raw_ostream &OS, const Module &M, PrintMode Mode = PrintMode::SSA);
void printFunction(llvm::raw_ostream &OS, const Module &M, const Function &F,
                   PrintMode Mode = PrintMode::SSA);
/// The canonical PTX spelling of an instruction's opcode, modifiers and types.
std::string instructionName(const Instruction &I);

} // namespace ptx2amd::ir
