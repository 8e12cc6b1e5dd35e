// Spin-loop yields for the host: see SpinLoops.cpp.
#pragma once

#include "llvm/ADT/STLFunctionalExtras.h"

namespace llvm {
class Function;
class Module;
} // namespace llvm

namespace ptx2amd::host {

/// Puts a call of the yield \p Sleep returns (s_sleep's, declared on first use) at the header of
/// every loop of \p M whose exit waits for memory other work-items write.
void yieldInSpinLoops(llvm::Module &M, llvm::function_ref<llvm::Function *()> Sleep);

} // namespace ptx2amd::host
