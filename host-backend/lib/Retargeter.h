// What the host passes share (Pipeline.cpp runs them, in order): the module and target, the
// kernels with their plans and the functions made for them, the functions that cannot run here,
// and the helpers that reach the wave emulator and a work-item's LaneState.
#pragma once

#include "Retarget.h"

#include "ptx2amd/support/Error.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Support/AMDGPUAddrSpace.h"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace ptx2amd::host {

/// Errors of the host passes, prefixed with what failed.
inline llvm::Error fail(ErrorKind K, const llvm::Twine &Msg) {
  return makeError(K, "host backend: " + Msg);
}

constexpr unsigned ASFlat = llvm::AMDGPUAS::FLAT_ADDRESS, ASLds = llvm::AMDGPUAS::LOCAL_ADDRESS,
                   ASConst = llvm::AMDGPUAS::CONSTANT_ADDRESS,
                   ASPrivate = llvm::AMDGPUAS::PRIVATE_ADDRESS;

/// The 32-bit address spaces (LDS and private).
inline bool isNarrow(unsigned AS) { return AS == ASLds || AS == ASPrivate; }

/// Marks an LDS atomic until the module's work-item functions are all made (the wave function
/// runs its lanes' atomics one by one, which must stay read-modify-writes until then).
constexpr const char *LdsAtomicKind = "ptx2amd.lds.atomic";

class Retargeter {
public:
  Retargeter(llvm::Module &M, const amdgpu::Target &T, const RetargetOptions &Opts,
             bool MaskedMemory);

  llvm::Module &M;
  const amdgpu::Target &T;
  const RetargetOptions Opts;
  bool Vectorize;    ///< make wave functions (VectorizeWaves.cpp)
  bool MaskedMemory; ///< the host has masked vector memory instructions (VectorizeWaves.h)
  llvm::LLVMContext &C;
  llvm::Type *I8, *I32, *I64;
  llvm::PointerType *Ptr;
  llvm::MDNode *StateScope = nullptr; ///< alias scope of LaneState accesses
  llvm::Function *StateFn = nullptr;  ///< stateFunction()'s, once made
  /// The kernels, in module order, and the plan each gets (planKernels).
  RetargetedModule Out;
  /// Made[I]: the functions made so far that could run Out.Kernels[I]'s workgroups.
  std::vector<KernelFunctions> Made;
  std::map<const llvm::Function *, std::string> Broken; ///< function -> why it cannot run here

  /// The AMDGPU kernel function of \p K.
  llvm::Function &kernel(const RetargetedKernel &K) const;
  /// The wave emulator's function \p Name (LaneState.h), declared on first use.
  llvm::Function *runtimeFunction(llvm::StringRef Name, llvm::Type *Ret,
                                  llvm::ArrayRef<llvm::Type *> Params, bool Convergent);
  /// The accessor of this work-item's LaneState.
  llvm::Function *stateFunction();
  /// A load of this work-item's LaneState field at \p Offset.
  llvm::Value *field(llvm::IRBuilder<> &B, unsigned Offset, llvm::Type *Ty);
  /// \p Seeds and every function that may call one of them (indirect calls reach every function
  /// whose address is taken).
  llvm::SetVector<const llvm::Function *>
  reachingCallers(const std::set<const llvm::Function *> &Seeds) const;
};

// The passes, each in the file named (Pipeline.cpp runs them in order).

/// KernelLayout.cpp: each kernel's metadata (kernarg layout, v5 hidden arguments) and entry name.
void layoutKernels(Retargeter &R);
/// LoopReconvergence.cpp: loops whose body makes the wave meet end each iteration with a wave
/// barrier, so that work-items run one at a time start the next iteration together.
void reconvergeLoops(Retargeter &R);
/// LdsLayout.cpp: static LDS variables become constant LDS addresses of one arena layout.
llvm::Error layoutLds(Retargeter &R);
/// AmdgcnIntrinsics.cpp: llvm.amdgcn.* calls become LaneState reads, plain IR or emulator calls.
void lowerIntrinsics(Retargeter &R);
/// NarrowPointers.cpp: accesses through 32-bit LDS and private pointers, private allocas.
void lowerNarrowPointers(Retargeter &R);
/// Availability.cpp: functions calling what neither the module nor the runtime defines.
void findUndefinedCallees(Retargeter &R);
/// MemoryAnnotations.cpp: alias scopes keep LaneState apart; kernarg loads are invariant.
void annotateMemory(Retargeter &R);
/// HostFunctions.cpp: plain C functions, no AMDGPU calling conventions or attributes.
void makeHostFunctions(Retargeter &R);
/// Availability.cpp: each kernel's reason not to run here, and whether it meets.
void findUnavailableKernels(Retargeter &R);
/// KernelEntries.cpp: each kernel's work-item entry, and its loop or compiled workgroup.
void buildKernelEntries(Retargeter &R);
/// WaveFunctions.cpp: each kernel's wave function, or its waves as a compiled workgroup.
void vectorizeKernels(Retargeter &R);
/// WaveFunctions.cpp: waves that would keep more than a frame across barriers are dropped.
void dropOversizedWaveFrames(Retargeter &R);
/// Pipeline.cpp: each kernel's plan (choosePlan); the functions it does not run are erased
/// (RetargetOptions::EveryPlan: kept).
void planKernels(Retargeter &R);
/// KernelEntries.cpp: the synchronisation calls that fibers make post their sites, numbered.
void numberFiberSites(Retargeter &R);
/// LdsAtomics.cpp: LDS atomics become plain read-modify-writes.
void lowerLdsAtomics(llvm::Module &M);

} // namespace ptx2amd::host
