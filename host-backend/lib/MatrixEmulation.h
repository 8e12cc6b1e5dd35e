// The matrix instructions of AMD targets (llvm.amdgcn.mfma.*, .wmma.*) on the host:
// MatrixEmulation.cpp.
#pragma once

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"

namespace ptx2amd::host {

/// Whether emulateMatrixIntrinsic knows the intrinsic \p ID.
bool isEmulatedMatrixIntrinsic(llvm::Intrinsic::ID ID);

/// The result of the matrix intrinsic call \p CI built at \p B for the lane \p LaneInWave (i32)
/// of its wave, reading the other lanes' operands through \p Bpermute (ds_bpermute: a byte
/// address and a 32-bit value); null when \p CI is a form not emulated.
llvm::Value *emulateMatrixIntrinsic(
    llvm::CallInst *CI, llvm::IRBuilder<> &B, llvm::Value *LaneInWave,
    llvm::function_ref<llvm::Value *(llvm::Value *Address, llvm::Value *Data)> Bpermute);

} // namespace ptx2amd::host
