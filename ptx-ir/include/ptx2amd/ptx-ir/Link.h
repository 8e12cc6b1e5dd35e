// Linking the PTX modules of relocatable device code (nvcc -rdc) into one module.
#pragma once

#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/Error.h>

#include <string>
#include <string_view>

namespace ptx2amd::ir {

/// One PTX module to link: its text and the name diagnostics give it.
struct LinkInput {
  std::string Name;
  std::string_view Text;
};

/// Links PTX modules into one PTX module text that translates as if it had been written as one:
/// - the header takes the highest .version and the .target of the highest sm_ architecture;
///   differing .address_size is an error;
/// - each module's text follows, in input order, with its own header removed;
/// - a `.visible` definition resolves the `.extern` declarations of its name in every module; two
///   `.visible` definitions of one name are an error naming both modules; among `.weak` (and
///   `.common`) definitions the first wins and a `.visible` one overrides them; a declaration or
///   losing definition placed before the winning definition becomes a declaration of it (a
///   function prototype with the winner's linkage, an `.extern` variable), one placed after it is
///   removed (ptxas rejects a function prototype after its definition);
/// - an `.extern` that no module defines stays `.extern`;
/// - an internal symbol (no linkage directive) whose name another module also uses is renamed
///   in its own module (`name_ptx2amd<N>`, N the module's 1-based position); the first module's
///   internal symbol keeps its name when no module gives that name external linkage. Renaming is
///   done on the parsed identifiers, honouring names that function parameters, labels and local
///   declarations shadow.
/// The output depends on the module texts and their order only, not on their names (a loader
/// hashes it for its cache key). Errors (a module that does not parse at module level, conflicting
/// definitions, address sizes or symbol kinds) are a DiagnosticError whose diagnostics name the
/// module and location.
llvm::Expected<std::string> linkModules(llvm::ArrayRef<LinkInput> Inputs);

} // namespace ptx2amd::ir
