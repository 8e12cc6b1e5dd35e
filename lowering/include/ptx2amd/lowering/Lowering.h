// PTX IR -> LLVM IR for amdgcn-amd-amdhsa.
//
// The translation is an ordered list of passes, written down in lib/Pipeline.cpp. Each function is
// lowered on its own: an instruction that cannot be lowered fails its function (and the kernels
// that call it) with a located diagnostic, never the module.
#pragma once

#include "ptx2amd/ptx-ir/IR.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include <memory>
#include <string>
#include <vector>

namespace ptx2amd::lowering {

/// What lowering needs to know of the target (the full target table lives with the backend).
struct TargetDesc {
  std::string Name;        ///< e.g. "gfx90a"
  unsigned WaveSize = 64;  ///< 64 on gfx9, 32 on gfx10+ (two 32-lane warps per wave64)
  unsigned IsaVersion = 0; ///< value of __oclc_ISA_version, e.g. 9010
  /// The code object version the module will be compiled for: from 5 on, the implicit kernel
  /// arguments hold the grid's block counts.
  unsigned CodeObjectVersion = 5;
};

/// A kernel's address in device code (`mov.u64 %rd, kernel;`, CUDA dynamic parallelism) is the
/// address of a variable of KernelHandleBytes, named KernelHandlePrefix + the kernel's name,
/// which the loader fills (amdgpu-backend/DeviceLaunches.h) so that device code can launch it.
inline constexpr const char *KernelHandlePrefix = "__ptx2amd_kernel_handle.";
inline constexpr unsigned KernelHandleBytes = 16;

/// The outcome for one PTX function or kernel.
struct FunctionStatus {
  std::string Name;
  bool IsKernel = false;
  bool Lowered = false;
  std::vector<ir::Diagnostic> Diags; ///< why it was not lowered
  /// Functions declared `.extern` in this module (defined in another -rdc module or supplied at
  /// link time) that it calls, directly or through its callees, sorted: the code object needs
  /// them resolved before it can be loaded.
  std::vector<std::string> ExternalCallees;
};

struct LoweredModule {
  std::unique_ptr<llvm::LLVMContext> Context;
  std::unique_ptr<llvm::Module> Module;
  std::vector<FunctionStatus> Functions; ///< in PTX module order
};

/// Lowers every function of \p M that can be lowered. Bodies that are not built yet are built.
/// Only a module-level problem (an invalid global, say) is an error.
llvm::Expected<LoweredModule> lowerModule(ir::Module &M, const TargetDesc &Target);

} // namespace ptx2amd::lowering
