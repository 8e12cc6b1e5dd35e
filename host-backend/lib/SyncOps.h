// The synchronisation points of the wave emulator, in one table: the emulator calls at which a
// work-item waits for its wave or its workgroup, and how a wave's result is computed from what
// its lanes posted. Availability.cpp (which calls make a kernel meet), WorkGroup.cpp (where a
// compiled workgroup is cut into regions) and WorkItems.cpp (fibers and compiled workgroups
// alike) all read this table; a new cross-lane operation is a new Op and a new row.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Intrinsics.h"

#include <cstdint>

namespace ptx2amd::host {

/// Row numbers of syncOps(); a work-item posts one at each synchronisation point.
enum class Op : uint8_t {
  Barrier,     ///< the workgroup barrier
  WaveBarrier, ///< wave.barrier: the wave meets, nothing is exchanged
  Ballot,
  Bpermute,
  Readlane,
  Readfirstlane,
  Sleep, ///< s_sleep: the lane spins on memory and lets the others run first
  Count
};

enum class SyncKind : uint8_t {
  Workgroup, ///< completes when every live work-item of the workgroup reached it
  Wave,      ///< the lanes of a wave at the same call meet; Combine computes their results
  Yield,     ///< the work-item stays ready (it waits for memory another one writes)
};

/// One wave at one operation: what its lanes posted and what each gets back. Lanes are
/// numbered in the wave; Exec holds the lanes at this operation (the group that runs it).
/// Operands wider than two words are posted as pointers to the lane's private memory, which
/// stays in place while the lane waits (fiber stack or compiled workgroup's frame).
struct WaveOperands {
  unsigned Count = 0;    ///< lanes the wave has (the last wave of a block may be short)
  unsigned WaveSize = 0; ///< 32 or 64
  uint64_t Exec = 0;
  uint64_t A[64], B[64];
  uint64_t Result[64];
};

struct SyncOp {
  Op Id;
  const char *Runtime;        ///< the emulator entry point that retargeted code calls (LaneState.h)
  llvm::Intrinsic::ID Amdgcn; ///< the AMDGPU intrinsic AmdgcnIntrinsics.cpp turns into it
  SyncKind Kind;
  /// Wave kind: fills Result for the lanes in Exec.
  void (*Combine)(WaveOperands &W) = nullptr;
};

/// Every synchronisation point, indexed by Op.
llvm::ArrayRef<SyncOp> syncOps();
inline const SyncOp &syncOp(Op K) { return syncOps()[unsigned(K)]; }
/// The row of an emulator entry point, or null when calling it is no synchronisation point.
const SyncOp *findSyncOp(llvm::StringRef Runtime);
/// The row of the AMDGPU intrinsic \p Amdgcn, or null when it is no synchronisation point.
const SyncOp *findSyncOp(llvm::Intrinsic::ID Amdgcn);

} // namespace ptx2amd::host
