// Structural checks of a built function: CFG consistency, SSA (each value defined once, definitions
// dominate uses), operand shapes.
#pragma once

#include "ptx2amd/ptx-ir/IR.h"

namespace ptx2amd::ir {

/// Returns one diagnostic per problem found; empty when the function is well formed.
std::vector<Diagnostic> verifyFunction(const Module &M, const Function &F);

} // namespace ptx2amd::ir
