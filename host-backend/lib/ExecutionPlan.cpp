// One execution plan per kernel (ExecutionPlan.h): the choice, a launch's, and its description.
#include "ExecutionPlan.h"

#include "llvm/Support/raw_ostream.h"

namespace ptx2amd::host {

void choosePlan(ExecutionPlan &P, const KernelFunctions &Made) {
  auto Choose = [&](Mode How, const std::string &Symbol) {
    P.How = How;
    P.Symbol = Symbol;
  };
  if (!Made.Wave.empty())
    Choose(Mode::Waves, Made.Wave);
  else if (!Made.WaveGroup.empty())
    Choose(Mode::WavesWithBarriers, Made.WaveGroup);
  else if (!Made.Loop.empty())
    Choose(Mode::Loop, Made.Loop);
  else if (!Made.WorkGroup.empty())
    Choose(Mode::WorkGroup, Made.WorkGroup);
  else if (P.Meets)
    Choose(Mode::Fibers, P.EntrySymbol);
  else
    Choose(Mode::Loop, "");
}

KernelFunctions chosenFunctions(const ExecutionPlan &P) {
  KernelFunctions Made;
  switch (P.How) {
  case Mode::Waves:
    Made.Wave = P.Symbol;
    break;
  case Mode::WavesWithBarriers:
    Made.WaveGroup = P.Symbol;
    break;
  case Mode::Loop:
    Made.Loop = P.Symbol;
    break;
  case Mode::WorkGroup:
    Made.WorkGroup = P.Symbol;
    break;
  case Mode::Fibers:
    break;
  }
  return Made;
}

std::vector<ExecutionPlan> otherPlans(const ExecutionPlan &P, const KernelFunctions &Made) {
  std::vector<ExecutionPlan> Others;
  auto Add = [&](Mode How, const std::string &Symbol) {
    if (Symbol.empty() || Symbol == P.Symbol)
      return;
    ExecutionPlan O = P;
    O.How = How;
    O.Symbol = Symbol;
    O.Loop = nullptr;
    O.Wave = nullptr;
    O.Item = nullptr;
    Others.push_back(std::move(O));
  };
  Add(Mode::Waves, Made.Wave);
  Add(Mode::WavesWithBarriers, Made.WaveGroup);
  Add(Mode::Loop, Made.Loop);
  Add(Mode::WorkGroup, Made.WorkGroup);
  return Others;
}

Mode launchMode(const ExecutionPlan &P, const LaunchConfig &C, bool ForceFibers) {
  switch (P.How) {
  case Mode::Waves:
  case Mode::WavesWithBarriers:
    return C.Fibers || ForceFibers || C.Scalar || C.Cooperative ? Mode::Fibers : P.How;
  case Mode::Loop:
    return C.Cooperative ? Mode::Fibers : Mode::Loop;
  case Mode::WorkGroup:
    return C.Fibers || ForceFibers ? Mode::Fibers : Mode::WorkGroup;
  case Mode::Fibers:
    break;
  }
  return Mode::Fibers;
}

Execution toExecution(Mode How) {
  switch (How) {
  case Mode::Waves:
  case Mode::WavesWithBarriers:
    return Execution::Waves;
  case Mode::Loop:
    return Execution::Loop;
  case Mode::WorkGroup:
    return Execution::WorkGroup;
  case Mode::Fibers:
    break;
  }
  return Execution::Fibers;
}

const char *modeName(Mode How) {
  switch (How) {
  case Mode::Waves:
    return "waves";
  case Mode::WavesWithBarriers:
    return "waves that meet, as a compiled workgroup";
  case Mode::Loop:
    return "work-item loop";
  case Mode::WorkGroup:
    return "compiled workgroup";
  case Mode::Fibers:
    break;
  }
  return "fibers";
}

std::string describe(const ExecutionPlan &P) {
  if (!P.Unavailable.empty())
    return "cannot run here: " + P.Unavailable;
  std::string S;
  llvm::raw_string_ostream OS(S);
  OS << modeName(P.How) << " (" << P.Symbol << ")";
  if (P.LockstepPoints)
    OS << "; " << P.LockstepPoints << " lockstep points";
  if (!P.VectorReason.empty())
    OS << "; not vectorised: " << P.VectorReason;
  if (!P.FiberReason.empty())
    OS << "; fibers: " << P.FiberReason;
  if (!P.OrderReason.empty())
    OS << "; order-dependent: " << P.OrderReason;
  return S;
}

} // namespace ptx2amd::host
