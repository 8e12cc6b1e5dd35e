// Availability: which kernels can run here, and which meet. A function that calls what the host
// backend does not implement (an intrinsic, an undefined function: the other passes record it in
// Retargeter::Broken) cannot run, nor can any kernel that reaches it; a kernel that reaches a
// barrier or a cross-lane operation meets (its workgroup's work-items must run together); a
// kernel whose results may depend on its work-items' order is order-dependent (the differential
// mode does not compare its plans' memory).
#include "LaneState.h"
#include "Retargeter.h"

#include "SyncOps.h"

#include "ptx2amd/amdgpu-backend/DeviceOutput.h"

#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace ptx2amd::host {
namespace {

/// Whether \p P points into the device output buffer (printf's records), whose order nobody
/// compares.
bool inOutputBuffer(const Value *P) {
  auto *L = dyn_cast<LoadInst>(getUnderlyingObject(P));
  auto *G = L ? dyn_cast<GlobalVariable>(L->getPointerOperand()->stripPointerCasts()) : nullptr;
  return G && G->getName() == amdgpu::OutputBufferSymbol;
}

/// Why what \p I does may depend on the order work-items run in, or empty: which lane gets
/// which old value of an atomic (a ticket, a compare-and-swap, an exchange), a floating-point
/// atomic add's rounding, a clock. (Integer atomics whose old value goes unused commute.)
std::string orderReason(const Instruction &I) {
  if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
    if (inOutputBuffer(RMW->getPointerOperand()))
      return "";
    if (RMW->isFloatingPointOperation() && RMW->getOperation() != AtomicRMWInst::FMax &&
        RMW->getOperation() != AtomicRMWInst::FMin)
      return "a floating-point atomic " +
             AtomicRMWInst::getOperationName(RMW->getOperation()).str();
    if (RMW->getOperation() == AtomicRMWInst::Xchg || !RMW->use_empty())
      return "an atomic " + AtomicRMWInst::getOperationName(RMW->getOperation()).str() +
             " whose old value it uses";
    return "";
  }
  if (isa<AtomicCmpXchgInst>(I))
    return "an atomic compare-and-swap";
  if (auto *CI = dyn_cast<CallInst>(&I)) {
    const Function *F = CI->getCalledFunction();
    if (F &&
        (F->getIntrinsicID() == Intrinsic::readcyclecounter ||
         F->getIntrinsicID() == Intrinsic::readsteadycounter || F->getName() == rt::SteadyCounter))
      return "a clock";
  }
  return "";
}

/// Each kernel's OrderReason (only the differential mode asks): its own, else the first of a
/// function it reaches (the optimised module has most callees inlined).
void findOrderDependentKernels(Retargeter &R) {
  if (!R.Opts.EveryPlan)
    return;
  std::map<const Function *, std::string> Why;
  std::set<const Function *> Seeds;
  for (Function &F : R.M)
    for (Instruction &I : instructions(F))
      if (std::string Reason = orderReason(I); !Reason.empty()) {
        Why.emplace(&F, std::move(Reason));
        Seeds.insert(&F);
        break;
      }
  SetVector<const Function *> Reaching = R.reachingCallers(Seeds);
  for (RetargetedKernel &K : R.Out.Kernels) {
    const Function *KF = &R.kernel(K);
    if (!Reaching.contains(KF))
      continue;
    if (auto It = Why.find(KF); It != Why.end()) {
      K.Plan.OrderReason = It->second;
      continue;
    }
    for (auto &[F, Reason] : Why)
      if (R.reachingCallers(std::set<const Function *>{F}).contains(KF)) {
        K.Plan.OrderReason = Reason;
        break;
      }
  }
}

} // namespace

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
  findOrderDependentKernels(R);
}

} // namespace ptx2amd::host
