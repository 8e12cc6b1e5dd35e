// What a work-item of the host backend sees of itself: the record that replaced AMDGPU's
// work-item registers. Translated code reaches its own through `__ptx2amd_host_state()` and
// reads fields at these offsets (Retargeter::field emits the loads, WorkItems.cpp fills them).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ptx2amd::host {

struct LaneState {
  /// A compiled workgroup's work-item at a synchronisation point (WorkGroup.cpp stores, the
  /// workgroup's loop reads): the Op it waits in (NoPost: it returned), operands and site; and
  /// the result it reads when resumed. First: they share a cache line with what the workgroup's
  /// loop reads of the lane (Workers.h, Lane).
  uint32_t PostOp;
  uint32_t Unused;
  uint64_t PostA, PostB, PostSite;
  uint64_t Result;
  uint32_t ItemId[3];       ///< workitem.id.{x,y,z}
  uint32_t GroupId[3];      ///< workgroup.id.{x,y,z}
  uint32_t LaneInWave;      ///< 0..WaveSize-1, for mbcnt
  uint32_t LdsBytes;        ///< size of the arena, for is.shared
  uint64_t LdsWindow;       ///< host address of LDS address 0 (the workgroup's arena)
  const void *Dispatch;     ///< the emulated HSA dispatch packet
  const void *ImplicitArgs; ///< the hidden arguments in the kernarg segment
  uint64_t DispatchId;
  uint64_t PrivateLo; ///< this work-item's stack, for is.private
  uint64_t PrivateHi;
  /// A wave of a vectorised kernel with barriers, run as a compiled workgroup's item
  /// (VectorizeWaves.cpp): its lanes' work-item ids (x, y, z, a wave's worth each) and lanes.
  const uint32_t *WaveIds;
  uint64_t WaveExec;
};

/// PostOp of a work-item that returned.
inline constexpr uint32_t NoPost = ~0u;
/// Each work-item's stack in fiber mode, which also bounds a compiled workgroup item's frame
/// (what it keeps across synchronisation points).
inline constexpr size_t FiberStack = 60 * 1024;

namespace state {
inline constexpr unsigned ItemId = offsetof(LaneState, ItemId);
inline constexpr unsigned GroupId = offsetof(LaneState, GroupId);
inline constexpr unsigned LdsWindow = offsetof(LaneState, LdsWindow);
inline constexpr unsigned LaneInWave = offsetof(LaneState, LaneInWave);
inline constexpr unsigned Dispatch = offsetof(LaneState, Dispatch);
inline constexpr unsigned ImplicitArgs = offsetof(LaneState, ImplicitArgs);
inline constexpr unsigned DispatchId = offsetof(LaneState, DispatchId);
inline constexpr unsigned PrivateLo = offsetof(LaneState, PrivateLo);
inline constexpr unsigned PrivateHi = offsetof(LaneState, PrivateHi);
inline constexpr unsigned LdsBytes = offsetof(LaneState, LdsBytes);
inline constexpr unsigned PostOp = offsetof(LaneState, PostOp);
inline constexpr unsigned PostA = offsetof(LaneState, PostA);
inline constexpr unsigned PostB = offsetof(LaneState, PostB);
inline constexpr unsigned PostSite = offsetof(LaneState, PostSite);
inline constexpr unsigned Result = offsetof(LaneState, Result);
inline constexpr unsigned WaveIds = offsetof(LaneState, WaveIds);
inline constexpr unsigned WaveExec = offsetof(LaneState, WaveExec);
} // namespace state

/// Names of the runtime entry points that retargeted code calls (WorkItems.cpp defines them).
namespace rt {
inline constexpr const char *State = "__ptx2amd_host_state";
inline constexpr const char *Ballot = "__ptx2amd_host_ballot";
inline constexpr const char *Bpermute = "__ptx2amd_host_bpermute";
inline constexpr const char *Readlane = "__ptx2amd_host_readlane";
inline constexpr const char *Readfirstlane = "__ptx2amd_host_readfirstlane";
inline constexpr const char *WaveBarrier = "__ptx2amd_host_wave_barrier";
inline constexpr const char *Barrier = "__ptx2amd_host_barrier";
inline constexpr const char *Sleep = "__ptx2amd_host_sleep";
inline constexpr const char *Trap = "__ptx2amd_host_trap";
inline constexpr const char *SteadyCounter = "__ptx2amd_host_steady_counter";
// Compiled workgroups (WorkGroup.cpp): a work-item's frame; the resume helper each module with
// such kernels defines.
inline constexpr const char *Frame = "__ptx2amd_host_frame";
inline constexpr const char *Resume = "__ptx2amd_host_resume";
} // namespace rt

} // namespace ptx2amd::host
