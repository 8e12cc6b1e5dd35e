// Internal: from parse trees to IR.
#pragma once

#include "ptx2amd/ptx-grammar/Parse.h"
#include "ptx2amd/ptx-ir/IR.h"

namespace ptx2amd::ir {

/// Fills the module header (version, target, globals, function signatures and body ranges) from
/// a module parse. Returns the errors found.
std::vector<Diagnostic> buildModuleHeader(Module &M, const grammar::ModuleParse &P);

/// Builds F's body (SSA included) from a parse of its body range. On failure F.St is Failed and
/// F.Diags says why.
void buildBody(const Module &M, Function &F, const grammar::BodyParse &P);

/// The text of line \p Line (1-based) without its indentation, at most 200 characters.
std::string sourceLine(std::string_view Text, uint32_t Line);

/// Puts PTX registers into SSA form: reads and writes of VarIds (recorded during the build in
/// Operand::V with Operand::Component = 0xff) become values, with phis and prior values.
void constructSSA(Function &F);

} // namespace ptx2amd::ir
