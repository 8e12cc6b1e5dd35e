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

std::string describe(const ExecutionPlan &P) {
  if (!P.Unavailable.empty())
    return "cannot run here: " + P.Unavailable;
  std::string S;
  llvm::raw_string_ostream OS(S);
  switch (P.How) {
  case Mode::Waves:
    OS << "waves";
    break;
  case Mode::WavesWithBarriers:
    OS << "waves that meet, as a compiled workgroup";
    break;
  case Mode::Loop:
    OS << "work-item loop";
    break;
  case Mode::WorkGroup:
    OS << "compiled workgroup";
    break;
  case Mode::Fibers:
    OS << "fibers";
    break;
  }
  OS << " (" << P.Symbol << ")";
  if (P.LockstepPoints)
    OS << "; " << P.LockstepPoints << " lockstep points";
  if (!P.VectorReason.empty())
    OS << "; not vectorised: " << P.VectorReason;
  if (!P.FiberReason.empty())
    OS << "; fibers: " << P.FiberReason;
  return S;
}

} // namespace ptx2amd::host
