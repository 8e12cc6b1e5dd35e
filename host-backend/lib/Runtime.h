// The wave emulator and the workers that run workgroups (Runtime.cpp; the work-items in
// WorkItems.cpp).
#pragma once

#include "ExecutionPlan.h"

#include "ptx2amd/amdgpu-backend/Kernarg.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ptx2amd::host {

/// One launch as the workers see it.
struct KernelLaunch {
  std::string Name;
  const ExecutionPlan *Plan = nullptr; ///< the kernel's plan and functions
  Mode How = Mode::Fibers;             ///< the plan's, or fibers where the launch asks (launchMode)
  /// Resumes a resumable item (resumable()) at its next region, with its frame; the item starts
  /// with the kernarg segment.
  void (*Resume)(void *Frame) = nullptr;
  /// Whether work-items (or waves, WavesWithBarriers: each reading its lanes from
  /// LaneState::WaveIds/WaveExec) are a compiled workgroup's resumable items.
  bool resumable() const { return host::resumable(How); }
  unsigned WaveSize = 64;
  const amdgpu::LaunchGeometry *Geometry = nullptr;
  void *Kernarg = nullptr;
  const void *ImplicitArgs = nullptr;
  const amdgpu::DispatchPacket *Packet = nullptr;
  uint32_t LdsBytes = 0; ///< the arena: the module's static LDS, then the dynamic LDS
  uint64_t DispatchId = 0;
  /// A workgroup that makes no progress for this long is stopped (the launch fails); in a
  /// cooperative launch, the grid.
  unsigned WatchdogMs = 5000;
  /// Every workgroup runs at once (fibers, each worker holding its share), so that they may wait
  /// for each other; at most CooperativeWorkItems work-items and CooperativeWorkgroups
  /// workgroups a worker.
  bool Cooperative = false;
  /// Workers with an index at least this take no workgroup (0: every worker takes them).
  unsigned Workers = 0;
};

/// What one worker holds of a cooperative launch at once (a compute unit's residency).
inline constexpr unsigned CooperativeWorkItems = 2048;
inline constexpr unsigned CooperativeWorkgroups = 32;

/// Most work-items of one workgroup (CUDA's limit). A workgroup's LDS is its target's
/// (amdgpu::Target::LdsBytesPerWorkgroup: 64 KB, 160 KB on gfx950).
inline constexpr unsigned MaxBlockSize = 1024;
/// Most bytes of a launch's LDS arena: the module's static layout (every kernel's variables, so
/// a library of many kernels, such as cub's, may have far more than one kernel can use), then
/// the launch's dynamic LDS. A kernel's own static and dynamic LDS is held to its target's.
inline constexpr uint64_t MaxLdsArenaBytes = 64ull << 20;

/// Runs every workgroup of \p L on the process's workers (created on first use) and waits. A
/// trap, a memory fault in the kernel or a workgroup without progress for L.WatchdogMs (a
/// deadlock at a barrier, an endless loop) ends the launch with an error; the workers stay
/// usable. Launches run one at a time.
llvm::Error runLaunch(const KernelLaunch &L);

/// The emulator's entry points that retargeted code calls, by name (LaneState.h lists them).
std::vector<std::pair<const char *, void *>> runtimeSymbols();

/// Workers of the process (starting them if needed), or why they cannot start.
llvm::Expected<unsigned> workerCount();

} // namespace ptx2amd::host
