// The C++ core behind the C API: one PTX module in, a Translation out. Everything the C getters
// return lives in these structs, so a result never refers back to the context or the input.
#pragma once

#include "ptx2amd/amdgpu-backend/Codegen.h"
#include "ptx2amd/ptx-grammar/Source.h"
#include "ptx2amd/ptx2amd.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ptx2amd::jit {

struct Options {
  const amdgpu::Target *Target = nullptr;
  amdgpu::CodegenOptions Codegen;
  ptx2amd_output Output = PTX2AMD_OUTPUT_CODE_OBJECT;
};

struct FunctionResult {
  std::string Name;
  bool IsKernel = false;
  ptx2amd_function_state State = PTX2AMD_FUNCTION_FAILED;
  std::string Reason; ///< see ptx2amd_result_function_state(); empty when translated
  bool translated() const { return State == PTX2AMD_FUNCTION_TRANSLATED; }
};

struct KernelResult {
  size_t Function = 0; ///< index into Translation::Functions
  bool UsesDynamicLds = false;
  std::optional<amdgpu::KernelMetadata> Metadata; ///< set when the kernel is in the code object
  uint64_t ExplicitArgs = 0;
};

struct Translation {
  ptx2amd_status Status = PTX2AMD_SUCCESS;
  std::string Target;
  bool HasCodeObject = false, HasText = false;
  std::vector<uint8_t> CodeObject;
  std::string Text;        ///< LLVM IR or assembly
  std::string Error;       ///< the module-level error; empty on success
  std::string Diagnostics; ///< every diagnostic, one per line
  std::vector<FunctionResult> Functions;
  std::vector<KernelResult> Kernels;
};

/// Reads, lowers and compiles \p Source. Failures are recorded in the Translation (its Status,
/// Error and Diagnostics), never thrown; only std::bad_alloc can escape.
Translation translate(std::shared_ptr<const SourceText> Source, const Options &Opts);

} // namespace ptx2amd::jit
