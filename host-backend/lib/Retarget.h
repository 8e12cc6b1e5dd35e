// The final AMDGPU module re-targeted to the host (x86-64): the passes in Pipeline.cpp.
#pragma once

#include "ExecutionPlan.h"
#include "Jit.h"

#include "ptx2amd/amdgpu-backend/KernelMetadata.h"
#include "ptx2amd/amdgpu-backend/Target.h"

#include "llvm/IR/DataLayout.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace ptx2amd::host {

struct RetargetedKernel {
  /// Explicit arguments as laid out in the module, v5 hidden args; GroupSegmentFixedSize: the
  /// static LDS of the variables the kernel reaches (AMDGPU's figure, not the arena's layout).
  amdgpu::KernelMetadata Meta;
  ExecutionPlan Plan; ///< its functions' symbols, how they run and why not otherwise
  /// The functions of the module that run its workgroups: the plan's, or every one made for it
  /// (RetargetOptions::EveryPlan).
  KernelFunctions Made;
};

/// What retargetModule makes.
struct RetargetOptions {
  bool Vectorize = true;     ///< wave functions where a kernel can have one
  bool EveryPlan = false;    ///< every function made for a kernel stays (the differential mode)
  bool BreakWaveXor = false; ///< tests only: LoadOptions::BreakWaveXorForTests
  unsigned MaxWaveInstructions = 0; ///< tests only: LoadOptions::MaxWaveInstructionsForTests
};

struct RetargetedModule {
  std::vector<RetargetedKernel> Kernels;
  uint32_t StaticLdsBytes = 0; ///< every static LDS variable of the module; dynamic LDS follows
};

/// The data layout of retargeted modules: the host's, with AMDGPU's 32-bit LDS (3) and private
/// (5) pointers.
std::string hostDataLayout(const llvm::DataLayout &Host);

/// Rewrites \p M (the module after amdgpu::optimizeModule) in place for the host: LDS variables
/// become offsets in the workgroup's arena, llvm.amdgcn.* calls become work-item state reads or
/// calls into the wave emulator, 32-bit pointer accesses go through zero-extended addresses,
/// kernels become C functions taking the kernarg segment, vectorised over their waves where they
/// can be (\p Opts); each kernel gets its execution plan; then sets the host's triple and
/// layout and verifies. An intrinsic or external function the host backend does not implement is
/// an error that names it. The passes, in order: Pipeline.cpp.
llvm::Expected<RetargetedModule> retargetModule(llvm::Module &M, const amdgpu::Target &T,
                                                const HostTarget &Host,
                                                const RetargetOptions &Opts);

} // namespace ptx2amd::host
