// Building PTX IR from PTX text: the module header eagerly, function bodies eagerly, lazily or in
// parallel.
#pragma once

#include "ptx2amd/ptx-ir/IR.h"

#include <llvm/Support/Error.h>

namespace ptx2amd::ir {

/// An llvm::Error carrying located diagnostics (a module that could not be read at all).
class DiagnosticError : public llvm::ErrorInfo<DiagnosticError> {
public:
  static char ID;
  explicit DiagnosticError(std::vector<Diagnostic> Diags) : Diags(std::move(Diags)) {}
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override { return llvm::inconvertibleErrorCode(); }
  std::vector<Diagnostic> Diags;
};

struct ReadOptions {
  bool Lazy = false;    ///< leave bodies unparsed until buildFunction()
  unsigned Threads = 1; ///< threads for building bodies; 0 = all hardware threads
  bool Verify = true;   ///< run the verifier on each built function
};

/// Reads a PTX module. A module-level error (bad header, syntax error outside bodies) is returned
/// as a DiagnosticError; an error inside a function body fails only that function (State::Failed
/// with its diagnostics) and the rest of the module is built.
llvm::Expected<std::unique_ptr<Module>> readModule(std::shared_ptr<const SourceText> Source,
                                                   const ReadOptions &Opts = {});

/// Builds one function body if it is not built yet; returns false if the function failed. Distinct
/// functions of one module may be built concurrently.
bool buildFunction(const Module &M, Function &F, bool Verify = true);

/// Builds every unbuilt body, on \p Threads threads (0 = all hardware threads).
void buildAll(Module &M, unsigned Threads = 1, bool Verify = true);

} // namespace ptx2amd::ir
