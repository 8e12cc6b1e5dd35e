// The translation pipeline, written once: PTX text → read → lower → link the device libraries →
// optimise → AMDGPU codegen and link, or the optimised module for the host device's retargeting.
// Every consumer (loader/, host-backend/, the ptx2amd commands, the C API) calls translate();
// none of them repeats a step. A Translation records every outcome per function and per kernel,
// and never refers back to its input.
#pragma once

#include "ptx2amd/amdgpu-backend/Codegen.h"
#include "ptx2amd/ptx-grammar/Source.h"
#include "ptx2amd/ptx-ir/IR.h"
#include "ptx2amd/support/Error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace ptx2amd::pipeline {

/// Where the pipeline stops.
enum class Output {
  CodeObject,      ///< AMDGPU code object (HSACO) and kernel metadata
  LoweredIr,       ///< LLVM IR text of the lowered module, before linking and optimisation
  Assembly,        ///< AMDGPU assembly text
  OptimizedModule, ///< the optimised module itself, as codegen would get it: for the host device
};

enum class Status {
  Success,
  InvalidInput,      ///< the module could not be read (header, syntax outside function bodies)
  TranslationFailed, ///< read, but lowering, optimisation or codegen failed for the module whole
  Internal,          ///< a bug of ours (an unexpected exception, caught at the C boundary)
};

enum class FunctionState {
  Translated,   ///< a kernel is in the output
  Failed,       ///< uses something not supported yet, or calls a function that failed
  LeftOut,      ///< translated, but needs an undefined symbol or failed code generation alone
  ModuleFailed, ///< not translated because the whole module failed
};

struct Options {
  const amdgpu::Target *Target = nullptr;
  amdgpu::CodegenOptions Codegen;
  Output Out = Output::CodeObject;
  /// Output::CodeObject stops after optimisation: every outcome but codegen's, much faster
  /// (`ptx2amd check --no-codegen` on a whole library).
  bool SkipCodegen = false;
  /// Called with the optimised module exactly as it goes on, to AMDGPU codegen or to the host
  /// retargeting (the module-identity test hashes it there).
  std::function<void(const llvm::Module &)> OnOptimized;
};

struct FunctionResult {
  std::string Name;
  bool IsKernel = false;
  FunctionState State = FunctionState::Failed;
  std::string Reason;                ///< the diagnostics, one per line; empty when translated
  std::vector<ir::Diagnostic> Diags; ///< why it was not lowered, located
  /// Functions declared `.extern` in the module that it calls (directly or not), sorted: its
  /// code object needs them linked in before it can be loaded, so it is left out alone.
  std::vector<std::string> ExternalCallees;
  bool translated() const { return State == FunctionState::Translated; }
};

struct KernelResult {
  size_t Function = 0; ///< index into Translation::Functions
  bool UsesDynamicLds = false;
  std::optional<amdgpu::KernelMetadata> Metadata; ///< set when the kernel is in the code object
  uint64_t ExplicitArgs = 0;
};

struct Translation {
  Translation();
  Translation(Translation &&);
  Translation &operator=(Translation &&);
  ~Translation();

  Status Result = Status::Success;
  std::string Name; ///< the module's, in messages
  std::string Target;
  bool HasCodeObject = false, HasText = false;
  std::vector<uint8_t> CodeObject;
  std::string Text;        ///< LLVM IR or assembly
  std::string Error;       ///< the module-level error; empty on success
  std::string Diagnostics; ///< every diagnostic, one per line
  std::vector<FunctionResult> Functions;
  std::vector<KernelResult> Kernels;
  /// Output::OptimizedModule: the module and its context (the module is destroyed first).
  std::unique_ptr<llvm::LLVMContext> Context;
  std::unique_ptr<llvm::Module> Module;

  const FunctionResult &function(const KernelResult &K) const { return Functions[K.Function]; }
  /// The module-level failure as an error of its kind (bad input for a module that could not be
  /// read, unsupported for one that could not be translated as a whole).
  llvm::Error moduleError() const;
  /// Why kernel \p K is not in the output ("" when it is).
  std::string unavailableReason(const KernelResult &K) const;
};

/// Runs the pipeline on \p Source for Opts.Target. Failures are recorded in the Translation (its
/// Result, Error and Diagnostics), never thrown; only std::bad_alloc can escape.
Translation translate(std::shared_ptr<const SourceText> Source, const Options &Opts);

/// A content hash of \p M (its bitcode): equal for equal modules.
uint64_t moduleHash(const llvm::Module &M);

} // namespace ptx2amd::pipeline
