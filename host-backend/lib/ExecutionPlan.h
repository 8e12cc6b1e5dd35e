// How a kernel's workgroups run on the host: one plan per kernel, chosen once (choosePlan) from
// the functions the retarget made for it, carried from the retarget (Retarget.h) through the
// loaded module (HostDevice.cpp) to each launch (Runtime.h, launchMode).
#pragma once

#include "ptx2amd/host-backend/HostDevice.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ptx2amd::host {

using EntryFn = void (*)(void *Kernarg);
using LoopFn = void (*)(void *Kernarg, uint32_t NX, uint32_t NY, uint32_t NZ);
using WaveFn = void (*)(void *Kernarg, const uint32_t *Ids, uint64_t Exec);

/// The ways a workgroup runs, the fastest first.
enum class Mode {
  Waves,             ///< a wave at a time, its lanes as vector elements (VectorizeWaves.h): WaveFn
  WavesWithBarriers, ///< waves that meet at barriers, each a compiled workgroup's item: EntryFn
  Loop,              ///< nothing meets: the work-items one after another: LoopFn
  WorkGroup,         ///< work-items as resumable items from one meeting to the next: EntryFn
  Fibers,            ///< the fallback: a fiber per work-item, each running the entry
};

/// The functions the retarget made that could run a kernel's workgroups (empty: not made).
struct KernelFunctions {
  std::string Loop;      ///< void(kernarg, nx, ny, nz): every work-item (nothing meets)
  std::string WorkGroup; ///< void(kernarg): a compiled workgroup's work-item (WorkGroup.cpp)
  std::string Wave;      ///< void(kernarg, ids, exec): one wave (VectorizeWaves.cpp)
  std::string WaveGroup; ///< void(kernarg): a wave of a kernel with barriers, as an item
};

/// One kernel's plan.
struct ExecutionPlan {
  Mode How = Mode::Loop; ///< (a kernel the translation lost: Loop, with no function)
  /// The function How runs (Fibers: the entry).
  std::string Symbol;
  /// void(kernarg): one work-item, the fibers' (every kernel has it: a launch may ask for fibers)
  std::string EntrySymbol;
  std::string Unavailable; ///< why the kernel cannot run here (empty: it can)
  /// Why it is not vectorised over its waves (empty: it is, or it was not tried).
  std::string VectorReason;
  std::string FiberReason; ///< why a kernel that meets has no compiled workgroup (empty: it has)
  bool Meets = false;      ///< reaches a barrier or a cross-lane operation
  /// Why its results may depend on the order its work-items run in (an atomic whose old value
  /// it uses, a floating-point atomic add, a clock): the differential mode runs it under every
  /// plan but does not compare what they wrote. Empty: they may not.
  std::string OrderReason;
  unsigned LockstepPoints = 0; ///< wave meetings Lockstep.cpp inserted

  /// In a loaded module (HostDevice.cpp binds them): EntrySymbol's function, and Symbol's as How
  /// calls it (Loop: Loop, Waves: Wave, WorkGroup and WavesWithBarriers: Item).
  EntryFn Entry = nullptr;
  LoopFn Loop = nullptr;
  WaveFn Wave = nullptr;
  EntryFn Item = nullptr;
};

/// Whether \p How runs resumable items (a compiled workgroup's: WorkGroup.cpp).
inline bool resumable(Mode How) { return How == Mode::WorkGroup || How == Mode::WavesWithBarriers; }

/// Sets \p P's How and Symbol from what was made: waves where the kernel was vectorised (they
/// replace its work-items), else a loop where nothing meets, else a compiled workgroup, else
/// fibers (a kernel that made nothing and meets nothing is one the translation lost: Loop).
void choosePlan(ExecutionPlan &P, const KernelFunctions &Made);

/// The one function of Made that \p P runs, the others empty (the inverse of choosePlan).
KernelFunctions chosenFunctions(const ExecutionPlan &P);

/// A plan for each function of \p Made besides \p P's own, otherwise \p P (the differential
/// mode's; a module keeps them all only there).
std::vector<ExecutionPlan> otherPlans(const ExecutionPlan &P, const KernelFunctions &Made);

/// How one launch of \p P runs: the plan, or fibers where the launch asks for them (\p C.Fibers
/// or \p ForceFibers for a compiled workgroup or waves, C.Scalar for waves) or where workgroups
/// must be able to wait for each other (C.Cooperative: loops and waves run one at a time).
Mode launchMode(const ExecutionPlan &P, const LaunchConfig &C, bool ForceFibers);

/// "waves", "work-item loop", ...: \p How in words.
const char *modeName(Mode How);

/// The public Execution of \p How (WavesWithBarriers: Waves).
Execution toExecution(Mode How);

/// How a kernel's workgroups run, the function that does it and why not otherwise: one line, for
/// PTX2AMD_LOG=info and `ptx2amd compile --emit host-ll`.
std::string describe(const ExecutionPlan &P);

} // namespace ptx2amd::host
