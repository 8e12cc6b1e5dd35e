// The host backend's model of the AMDGPU image unit (ImageUnit.cpp): llvm.amdgcn.image.*,
// formatted buffer loads and the cube-coordinate instructions, executed against the T#/V#/S#
// descriptors the runtime built (amdgpu-backend/ImageDescriptors.h decodes them).
#pragma once

#include "ptx2amd/amdgpu-backend/Target.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/IRBuilder.h"

#include <utility>
#include <vector>

namespace ptx2amd::host {

/// A runtime function of the emulator by name and type (Retargeter::runtimeFunction).
using RuntimeFunctionFn = llvm::function_ref<llvm::Function *(llvm::StringRef, llvm::Type *,
                                                              llvm::ArrayRef<llvm::Type *>)>;

/// Replaces \p CI, a call of an image intrinsic, a formatted buffer load or a v_cube*
/// intrinsic, by a call into the image unit for target \p T; false if \p CI is none of those
/// (or a form the model does not know), leaving it in place.
bool lowerImageIntrinsic(llvm::CallInst *CI, llvm::IRBuilder<> &B, const amdgpu::Target &T,
                         RuntimeFunctionFn Runtime);

/// The image unit's entry points, by name, for the JIT.
std::vector<std::pair<const char *, void *>> imageUnitSymbols();

} // namespace ptx2amd::host
