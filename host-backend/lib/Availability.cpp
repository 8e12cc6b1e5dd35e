// Availability: which kernels can run here, and which meet. A function that calls what the host
// backend does not implement (an intrinsic, an undefined function: the other passes record it in
// Retargeter::Broken) cannot run, nor can any kernel that reaches it; a kernel that reaches a
// barrier or a cross-lane operation meets (its workgroup's work-items must run together).
#include "Retargeter.h"

#include "SyncOps.h"

#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace ptx2amd::host {

void findUndefinedCallees(Retargeter &R) {
  // What is left undefined must come from the runtime or from the host's C library (the
  // generic intrinsics that x86-64 code generation expands into libm calls).
  for (Function &F : R.M) {
    if (!F.isDeclaration() || F.use_empty() || F.isIntrinsic() ||
        F.getName().starts_with("__ptx2amd_host_"))
      continue;
    for (User *U : F.users())
      if (auto *I = dyn_cast<Instruction>(U))
        R.Broken.emplace(I->getFunction(),
                         "function '" + F.getName().str() + "' is not defined in the module");
  }
}

void findUnavailableKernels(Retargeter &R) {
  std::set<const Function *> Meets;
  for (const SyncOp &S : syncOps())
    if (Function *F = R.M.getFunction(S.Runtime); F && S.Kind != SyncKind::Yield)
      Meets.insert(F);
  SetVector<const Function *> Meeting = R.reachingCallers(Meets);
  std::set<const Function *> BrokenSet;
  for (auto &[F, _] : R.Broken)
    BrokenSet.insert(F);
  SetVector<const Function *> Unavailable = R.reachingCallers(BrokenSet);
  for (RetargetedKernel &K : R.Out.Kernels) {
    Function *KF = &R.kernel(K);
    K.Plan.Meets = Meeting.contains(KF);
    if (!Unavailable.contains(KF))
      continue;
    // The first reason found along its call graph.
    for (auto &[F, Why] : R.Broken)
      if (R.reachingCallers(std::set<const Function *>{F}).contains(KF)) {
        K.Plan.Unavailable = Why;
        break;
      }
  }
}

} // namespace ptx2amd::host
