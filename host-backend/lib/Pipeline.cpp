// The host passes, in order: the final AMDGPU module (after amdgpu::optimizeModule) rewritten in
// place for x86-64, each kernel with its execution plan (ExecutionPlan.h). Everything the
// translation produced stays as it is; only what has no meaning on the host is replaced.
#include "Retargeter.h"

#include "LaneState.h"
#include "Lockstep.h"
#include "SpinLoops.h"
#include "VectorDivision.h"
#include "WorkGroup.h"

#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ptx2amd::host {
namespace {

/// Spin loops yield at each try, before the LDS variables become addresses (two variables are two
/// objects to it and to Lockstep.cpp).
void yieldInSpinLoops(Retargeter &R) {
  host::yieldInSpinLoops(
      R.M, [&] { return R.runtimeFunction(rt::Sleep, Type::getVoidTy(R.C), {}, false); });
}

void insertLockstepPoints(Retargeter &R) {
  for (RetargetedKernel &K : R.Out.Kernels)
    K.Plan.LockstepPoints = host::insertLockstepPoints(R.kernel(K), R.T.WaveSize);
}

/// From here on the module is the host's: the wave vectoriser and the workgroups' coroutine
/// lowering work with the host's layout.
void useHostLayout(Retargeter &R, const HostTarget &Host) {
  R.M.setTargetTriple(llvm::Triple(Host.Triple));
  R.M.setDataLayout(Host.DataLayout);
}

} // namespace

void planKernels(Retargeter &R) {
  for (size_t I = 0; I < R.Out.Kernels.size(); ++I) {
    RetargetedKernel &K = R.Out.Kernels[I];
    const KernelFunctions &Made = R.Made[I];
    choosePlan(K.Plan, Made);
    K.Made = R.Opts.EveryPlan ? Made : chosenFunctions(K.Plan);
    if (R.Opts.EveryPlan)
      continue;
    // Waves replace the work-item loop and the compiled workgroup (compiling them too would
    // double the time a load takes); the entry stays, for fibers (LaunchConfig::Fibers).
    for (const std::string *Sym : {&Made.Loop, &Made.WorkGroup, &Made.Wave, &Made.WaveGroup})
      if (!Sym->empty() && *Sym != K.Plan.Symbol)
        eraseWorkGroup(R.M, *Sym);
  }
}

Expected<RetargetedModule> retargetModule(Module &M, const amdgpu::Target &T,
                                          const HostTarget &Host, const RetargetOptions &Opts) {
  if (M.getTargetTriple().getArch() != llvm::Triple::amdgcn)
    return fail(ErrorKind::Internal,
                "module '" + M.getModuleIdentifier() + "' is not an AMDGPU module");
  Retargeter R(M, T, Opts, Host.MaskedVectorMemory);

  // The passes, in order. Each is one file of lib/ (Retargeter.h declares them).
  layoutKernels(R);           // KernelLayout.cpp: metadata, kernarg layout, entry names
  yieldInSpinLoops(R);        // SpinLoops.cpp: spin loops let the others run
  insertLockstepPoints(R);    // Lockstep.cpp: where a wave's lanes must meet
  reconvergeLoops(R);         // LoopReconvergence.cpp: a wave's lanes start each iteration together
  if (Error E = layoutLds(R)) // LdsLayout.cpp: LDS variables become arena offsets
    return E;
  lowerIntrinsics(R);        // AmdgcnIntrinsics.cpp: llvm.amdgcn.* for the wave emulator
  lowerNarrowPointers(R);    // NarrowPointers.cpp: 32-bit LDS and private pointers
  findUndefinedCallees(R);   // Availability.cpp: what neither module nor runtime defines
  annotateMemory(R);         // MemoryAnnotations.cpp: LaneState aliases nothing else
  makeHostFunctions(R);      // HostFunctions.cpp: C calling conventions
  findUnavailableKernels(R); // Availability.cpp: kernels that cannot run, kernels that meet
  buildKernelEntries(R);     // KernelEntries.cpp: entry; loop or workgroup (WorkGroup.cpp)
  useHostLayout(R, Host);    // Pipeline.cpp: the host's triple and data layout
  vectorizeKernels(R);       // WaveFunctions.cpp: waves as vectors (VectorizeWaves.cpp)
  widenVectorDivisions(R.M); // VectorDivision.cpp: vector divisions x86-64 cannot select
  if (Error E = lowerWorkGroups(R.M)) // WorkGroup.cpp: coroutines split, resume function
    return E;
  dropOversizedWaveFrames(R); // WaveFunctions.cpp: waves whose frames would not fit
  planKernels(R);             // Pipeline.cpp: one plan per kernel, the other functions erased
  numberFiberSites(R);        // KernelEntries.cpp: the sites that fibers' calls post
  lowerLdsAtomics(R.M);       // LdsAtomics.cpp: plain read-modify-writes

  std::string Text;
  raw_string_ostream OS(Text);
  if (verifyModule(M, &OS))
    return fail(ErrorKind::Internal,
                "the retargeted module is invalid: " + StringRef(Text).rtrim());
  return std::move(R.Out);
}

} // namespace ptx2amd::host
