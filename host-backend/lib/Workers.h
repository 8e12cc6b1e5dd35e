//===- Workers.h - the wave emulator's workers and lanes, shared by its files -*- C++ -*-===//
//
// Private to Runtime.cpp (the workers: their memory, faults, the watchdog) and WorkItems.cpp (a
// workgroup's work-items run to their synchronisation points, and the entry points kernel code
// calls): the memory layout, a worker and its lanes, and the thread-local state of both.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "LaneState.h"
#include "Runtime.h"
#include "SyncOps.h"

#include <boost/context/detail/fcontext.hpp>

#include <atomic>
#include <csetjmp>
#include <csignal>
#include <cstddef>
#include <cstdint>
#include <pthread.h>
#include <string>
#include <vector>

namespace ptx2amd::host::workers {

namespace ctx = boost::context::detail;

constexpr size_t Page = 4096;
constexpr size_t Guard = 64 * 1024;             // around the thread stack
constexpr size_t ThreadStack = 8 * 1024 * 1024; // plain loops: private memory of one work-item
constexpr size_t FiberGuard = Page;
constexpr size_t SlotSize = Guard + ThreadStack + Guard + MaxBlockSize * (FiberGuard + FiberStack);
// Every 32-bit LDS address (plus the widest access) lies in the window.
constexpr size_t LdsWindowSize = (size_t(1) << 32) + Guard;
// The arena ends this close to the first PROT_NONE page: LDS stays 64-byte aligned on the host.
constexpr size_t LdsAlign = 64;

enum class Status : uint8_t { Ready, Blocked, Exited };

/// One work-item of what a worker holds. What the workgroup's loop reads and writes at each
/// synchronisation point (these fields and State's posts, which come first) is one cache line,
/// so that a pass over a workgroup's lanes stays in the L1 cache (lanes of 152 bytes, the posts
/// in another line than the status, missed it at 256 lanes).
struct alignas(64) Lane {
  Status St = Status::Ready;
  Op Kind = Op::Barrier;
  /// Where it waits: the site number its code posted (State.PostSite). Its operands are
  /// State.PostA/PostB, its result State.Result.
  uintptr_t Site = 0;
  void *Frame = nullptr; ///< its coroutine frame (a compiled workgroup), once started
  LaneState State;
  ctx::fcontext_t Ctx = nullptr; ///< where to resume it (a fiber)
};
static_assert(offsetof(Lane, State) + offsetof(LaneState, ItemId) <= 64,
              "the workgroup loop's fields and the posts share the lane's first cache line");

/// What made a worker leave kernel code through siglongjmp.
enum class Abort : int { None = 0, Trap = 1, Fault = 2, Internal = 3, Watchdog = 4 };

/// 4 GiB of addresses, PROT_NONE but for the arena of one workgroup at its start.
struct LdsWindow {
  uint8_t *Base = nullptr;
  size_t Open = 0; // bytes open (read-write) at Base
};

struct Worker {
  unsigned Index = 0;
  uint8_t *Slot = nullptr; // its part of the low window
  /// The first for every launch; a cooperative launch gives each of the worker's workgroups
  /// its own (made when first needed).
  std::vector<LdsWindow> Lds;
  uint8_t *StackLo = nullptr;
  uint8_t *FibersLo = nullptr;
  /// Stacks of the work-items past MaxBlockSize that a cooperative launch holds (made when
  /// first needed), after the slot's.
  uint8_t *MoreFibersLo = nullptr;
  std::vector<uint8_t> AltStack;
  pthread_t Thread{};
  LaneState Plain{}; // plain loops: the one work-item running
  std::vector<Lane> Lanes;
  /// Per wave of the workgroups running: passes its lanes at a wave operation have waited for
  /// lanes that only spin (runFibers).
  std::vector<unsigned> Stalls;
  /// Where each lane's compiled-workgroup frame goes, for frames of FrameBytes
  /// (__ptx2amd_host_frame).
  std::vector<uint8_t *> FramePlaces;
  uint64_t FrameBytes = 0;
  Lane *Current = nullptr;         // the fiber or compiled work-item running
  ctx::fcontext_t Sched = nullptr; // the scheduler, to return to
  const KernelLaunch *Launch = nullptr;
  sigjmp_buf Jmp;
  volatile sig_atomic_t InKernel = 0;
  volatile uintptr_t FaultAddress = 0;
  volatile int FaultSignal = 0;
  std::string Internal;
  /// Counts what shows a workgroup advancing: lanes reaching a cross-lane operation or the
  /// barrier, or exiting; finished workgroups. The watchdog also sees Plain.ItemId move.
  std::atomic<uint64_t> Progress{0};
};

/// Where work-item \p I of what a worker holds has its stack.
inline uint8_t *fiberStack(const Worker &W, unsigned I) {
  if (I < MaxBlockSize)
    return W.FibersLo + I * (FiberGuard + FiberStack) + FiberGuard;
  return W.MoreFibersLo + (I - MaxBlockSize) * (FiberGuard + FiberStack) + FiberGuard;
}

// Initial-exec: kernel code reads its state at every region, and the general model's
// __tls_get_addr was a tenth of a compiled workgroup's time (two pointers of static TLS).
// Defined in ThreadState.cpp, a shared library of its own (why: there); constinit lets
// Runtime.cpp read them without a TLS wrapper call.
extern __attribute__((tls_model("initial-exec"))) constinit thread_local Worker *CurrentWorker;
extern __attribute__((tls_model("initial-exec"))) constinit thread_local LaneState *CurrentState;

/// \p Groups workgroups of \p N work-items each (lanes [g * N, g * N + N) of the worker), a
/// fiber or a compiled workgroup's coroutine per work-item. Several are a cooperative launch's
/// share, which run until all finish or \p Stop (another worker failed: what they wait for
/// never comes).
void runFibers(Worker &W, const KernelLaunch &L, unsigned N, unsigned Groups,
               const std::atomic<bool> &Stop);

} // namespace ptx2amd::host::workers
