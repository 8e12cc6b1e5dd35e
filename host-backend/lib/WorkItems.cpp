//===- WorkItems.cpp - the wave emulator's work-items and the calls kernel code makes ===//
//
// A workgroup's work-items run one after the other up to their next synchronisation point, each
// a compiled workgroup's coroutine (WorkGroup.cpp) or, the fallback, a fiber; the wave or the
// workgroup then completes the operation they meet at (SyncOps.h). The entry points that
// retargeted code calls are here too, with the thread-local state they read.
#include "Workers.h"

#include "ImageUnit.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

namespace ptx2amd::host::workers {

namespace {

void laneMain(ctx::transfer_t T) {
  Worker &W = *CurrentWorker;
  W.Sched = T.fctx;
  Lane &L = *static_cast<Lane *>(T.data);
  W.Launch->Plan->Entry(W.Launch->Kernarg);
  L.St = Status::Exited;
  ctx::jump_fcontext(W.Sched, nullptr);
}

/// Per Op, whether the work-item stays ready there (the table's Yield kind), read once per
/// resumption.
const auto Yields = [] {
  std::array<bool, size_t(Op::Count)> Y{};
  for (const SyncOp &S : syncOps())
    Y[unsigned(S.Id)] = S.Kind == SyncKind::Yield;
  return Y;
}();

/// Runs \p L to its next synchronisation point or its end; whether that is progress.
bool resume(Worker &W, Lane &L) {
  W.Current = &L;
  CurrentState = &L.State;
  const bool Slept = L.Kind == Op::Sleep;
  if (const KernelLaunch &K = *W.Launch; K.resumable()) {
    // Up to its next synchronisation point, where it posts; a work-item that posts nothing has
    // returned.
    L.State.PostOp = NoPost;
    if (!L.Frame)
      K.Plan->Item(K.Kernarg); // makes its frame and stops before the kernel's first instruction
    K.Resume(L.Frame);
    if (L.State.PostOp == NoPost) {
      L.St = Status::Exited;
    } else {
      L.Kind = Op(L.State.PostOp);
      L.Site = L.State.PostSite;
      L.St = Yields[unsigned(L.Kind)] ? Status::Ready : Status::Blocked;
    }
  } else {
    ctx::transfer_t T = ctx::jump_fcontext(L.Ctx, &L);
    L.Ctx = T.fctx;
  }
  W.Current = nullptr;
  // From one sleep to the next (a spin that keeps waiting) is no progress for the watchdog.
  return !Slept || L.Kind != Op::Sleep || L.St != Status::Ready;
}

/// Counts progress for the watchdog. Only this worker writes its count: no locked add.
void advance(Worker &W) {
  W.Progress.store(W.Progress.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

/// Called by a lane: wait for the wave (or workgroup) at this operation, return its result. The
/// kernel stored the call's site before it (numberFiberSites).
uint64_t meet(Op K, uint64_t A, uint64_t B) {
  Worker *W = CurrentWorker;
  if (!W || !W->Current || W->Launch->resumable()) {
    // A plain-loop kernel or a compiled workgroup that reaches a cross-lane operation: the
    // classification missed it.
    if (W && W->InKernel) {
      W->Internal = "internal error: a cross-lane operation outside a fiber";
      siglongjmp(W->Jmp, int(Abort::Internal));
    }
    return 0;
  }
  Lane &L = *W->Current;
  L.Kind = K;
  L.State.PostA = A;
  L.State.PostB = B;
  L.Site = L.State.PostSite;
  L.St = Status::Blocked;
  ctx::transfer_t T = ctx::jump_fcontext(W->Sched, nullptr);
  CurrentWorker->Sched = T.fctx;
  return L.State.Result;
}

/// Runs one group of a wave: the blocked lanes at the same operation (EXEC = these lanes), the
/// result computed by the operation's row of the table from what they posted.
void runWaveGroup(Lane *Wave, unsigned Count, unsigned WaveSize, uintptr_t Site) {
  WaveOperands Ops;
  Ops.Count = Count;
  Ops.WaveSize = WaveSize;
  Op Kind = Op::WaveBarrier;
  for (unsigned I = 0; I < Count; ++I) {
    const Lane &L = Wave[I];
    if (L.St == Status::Blocked && L.Kind != Op::Barrier && L.Site == Site) {
      Ops.Exec |= uint64_t(1) << I;
      Ops.A[I] = L.State.PostA;
      Ops.B[I] = L.State.PostB;
      Kind = L.Kind;
    }
  }
  syncOp(Kind).Combine(Ops);
  for (unsigned I = 0; I < Count; ++I)
    if (Ops.Exec >> I & 1) {
      Wave[I].State.Result = Ops.Result[I];
      Wave[I].St = Status::Ready;
    }
}

} // namespace

void runFibers(Worker &W, const KernelLaunch &L, unsigned N, unsigned Groups,
               const std::atomic<bool> &Stop) {
  const unsigned WS = L.WaveSize, All = N * Groups;
  for (unsigned I = 0; I < All; ++I) {
    Lane &Ln = W.Lanes[I];
    uint8_t *Lo = fiberStack(W, I);
    if (L.resumable()) {
      // Its private variables: in its frame, or (those no synchronisation point separates) on
      // the worker's stack.
      Ln.Frame = nullptr;
      Ln.State.PrivateLo = reinterpret_cast<uint64_t>(std::min(Lo, W.StackLo));
      Ln.State.PrivateHi =
          reinterpret_cast<uint64_t>(std::max(Lo + FiberStack, W.StackLo + ThreadStack));
    } else {
      Ln.State.PrivateLo = reinterpret_cast<uint64_t>(Lo);
      Ln.State.PrivateHi = reinterpret_cast<uint64_t>(Lo + FiberStack);
      Ln.Ctx = ctx::make_fcontext(Lo + FiberStack, FiberStack, laneMain);
    }
    Ln.St = Status::Ready;
    Ln.Kind = Op::Barrier;
  }
  const unsigned Waves = (N + WS - 1) / WS;
  constexpr uintptr_t NoSite = ~uintptr_t(0);
  constexpr unsigned MaxStalls = 64;
  W.Stalls.assign(size_t(Groups) * Waves, 0);
  for (;;) {
    bool Live = false;
    for (unsigned G = 0; G < Groups; ++G) {
      Lane *Group = &W.Lanes[G * N];
      // One pass over the workgroup: each ready lane runs to its next synchronisation point;
      // per wave, the lowest site its lanes wait at in a wave operation (NoSite: none).
      uintptr_t Lowest[MaxBlockSize / 32];
      unsigned StillReady = 0;
      bool AtWaveOp = false;
      for (unsigned V = 0; V < Waves; ++V) {
        Lane *Wave = Group + V * WS;
        const unsigned Count = std::min(WS, N - V * WS);
        uintptr_t Low = NoSite;
        Op LowKind = Op::WaveBarrier;
        bool Advanced = false, Moving = false, Waiting = false;
        for (unsigned I = 0; I < Count; ++I) {
          Lane &Ln = Wave[I];
          if (Ln.St == Status::Ready) {
            const bool Progress = resume(W, Ln);
            Advanced |= Progress;
            Moving |= Progress && Ln.St == Status::Ready;
          }
          if (Ln.St == Status::Blocked) {
            if (Ln.Kind != Op::Barrier && Ln.Site < Low) {
              Low = Ln.Site;
              LowKind = Ln.Kind;
            }
          } else if (Ln.St == Status::Ready) {
            ++StillReady;
            Waiting = true;
          }
        }
        if (Advanced)
          advance(W);
        // A lane that stopped at a yield (s_sleep, a spin loop's try) may be on its way to the
        // operation the others wait at: the wave waits for it, or the operation would run
        // without it (a ballot missing its bit, a shuffle reading what it never posted). At a
        // wave barrier (a lockstep point, a loop's latch, bar.warp.sync), a lane that has spun for
        // MaxStalls passes, from one yield to the next, is left behind, as a GPU's independently
        // scheduled thread would be: it may wait for those lanes. At an exchange (a shuffle, a
        // ballot, a readlane) the wave waits for it as long as it spins (the watchdog ends a
        // spin that never ends): cuSPARSE's ILU analysis spins on other workgroups' rows, then
        // shuffles the minimum of its lanes' columns, which a lane left behind made 0.
        unsigned &Stall = W.Stalls[G * Waves + V];
        const bool Exchange = LowKind != Op::WaveBarrier;
        if (Low == NoSite || !Waiting || (!Exchange && Stall >= MaxStalls)) {
          Stall = 0;
          Lowest[V] = Low;
        } else {
          Stall = Moving ? 0 : Stall + 1;
          Lowest[V] = NoSite;
        }
        AtWaveOp |= Lowest[V] != NoSite;
      }
      // Per wave with lanes waiting in a wave operation: the group at the lowest site runs it.
      // Sites are numbered in reverse post-order of the kernel's blocks (WorkGroup.cpp,
      // numberFiberSites): a divergent region before its join, a loop's body before what
      // follows it, so lanes that went ahead (to where the wave reconverges) wait for the others.
      if (AtWaveOp) {
        for (unsigned V = 0; V < Waves; ++V)
          if (Lowest[V] != NoSite)
            runWaveGroup(Group + V * WS, std::min(WS, N - V * WS), WS, Lowest[V]);
        Live = true;
        continue;
      }
      if (StillReady) {
        Live = true;
        continue;
      }
      // Only the workgroup barrier is left (one per workgroup, as on AMDGPU and in PTX's
      // bar.sync 0: the work-items may wait at different calls of it). It runs when every live
      // work-item reached it; exited ones drop out. Work-items that never come (they spin) keep
      // the others waiting until the watchdog stops the workgroup.
      for (unsigned I = 0; I < N; ++I)
        if (Group[I].St != Status::Exited) {
          Group[I].St = Status::Ready; // a barrier has no result
          Live = true;
        }
    }
    if (!Live || (Groups > 1 && Stop.load(std::memory_order_relaxed)))
      return;
  }
}

} // namespace ptx2amd::host::workers

// ---- the entry points that retargeted code calls (names in LaneState.h) ----
using namespace ptx2amd::host;
using namespace ptx2amd::host::workers;

extern "C" {

LaneState *__ptx2amd_host_state() { return CurrentState; }

uint64_t __ptx2amd_host_ballot(uint32_t Pred) { return meet(Op::Ballot, Pred != 0, 0); }

uint32_t __ptx2amd_host_bpermute(uint32_t Address, uint32_t Data) {
  return uint32_t(meet(Op::Bpermute, Address, Data));
}

uint64_t __ptx2amd_host_readlane(uint64_t Value, uint32_t Lane) {
  return meet(Op::Readlane, Value, Lane);
}

uint64_t __ptx2amd_host_readfirstlane(uint64_t Value) { return meet(Op::Readfirstlane, Value, 0); }

void __ptx2amd_host_wave_barrier() { meet(Op::WaveBarrier, 0, 0); }

void __ptx2amd_host_barrier() { meet(Op::Barrier, 0, 0); }

void __ptx2amd_host_sleep() {
  Worker *W = CurrentWorker;
  // A plain loop: nobody else to run. (A compiled workgroup posts its sleeps, never calls this.)
  if (!W || !W->Current || W->Launch->resumable())
    return;
  W->Current->Kind = Op::Sleep;
  ctx::transfer_t T = ctx::jump_fcontext(W->Sched, nullptr);
  CurrentWorker->Sched = T.fctx;
}

/// A compiled workgroup's work-item starts: its frame, where its fiber stack would be.
void *__ptx2amd_host_frame(uint64_t Bytes) {
  Worker *W = CurrentWorker;
  Lane *L = W ? W->Current : nullptr;
  if (!L || !W->InKernel)
    abort(); // not reachable: only a compiled workgroup's work-item calls it, on a worker
  if (Bytes > FiberStack) {
    W->Internal = "a work-item keeps " + std::to_string(Bytes) +
                  " bytes across synchronisation points, more than its " +
                  std::to_string(FiberStack) + " bytes of private memory";
    W->InKernel = 0;
    siglongjmp(W->Jmp, int(Abort::Internal));
  }
  // Packed: the frames of neighbouring work-items share cache lines and pages, as many to a
  // fiber stack as fit. (One at each stack's start put every frame 64 KiB from the next, all in
  // one set of the L1 and L2 caches: a workgroup's sweep missed on each of them.) Work-items
  // past MaxBlockSize (a cooperative launch's) pack into their own stacks. Every work-item of a
  // kernel asks for the same size: the places are computed once for it.
  if (Bytes != W->FrameBytes || W->FramePlaces.size() != W->Lanes.size()) {
    const size_t Each = (Bytes + 63) & ~size_t(63);
    const unsigned PerStack = unsigned(FiberStack / Each);
    W->FramePlaces.resize(W->Lanes.size());
    for (unsigned I = 0; I < W->FramePlaces.size(); ++I) {
      const unsigned First = I < MaxBlockSize ? 0 : MaxBlockSize;
      W->FramePlaces[I] =
          fiberStack(*W, First + (I - First) / PerStack) + (I - First) % PerStack * Each;
    }
    W->FrameBytes = Bytes;
  }
  L->Frame = W->FramePlaces[L - W->Lanes.data()];
  return L->Frame;
}

[[noreturn]] void __ptx2amd_host_trap() {
  Worker *W = CurrentWorker;
  if (W && W->InKernel) {
    W->InKernel = 0;
    siglongjmp(W->Jmp, int(Abort::Trap));
  }
  abort(); // not reachable: only kernel code calls it, and only on workers
}

uint64_t __ptx2amd_host_steady_counter() {
  // AMD's real-time counter runs at 100 MHz (the lowering scales it to nanoseconds).
  auto Now = std::chrono::steady_clock::now().time_since_epoch();
  return uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(Now).count() / 10);
}
}

// compiler-rt's soft conversions (linked from its builtins archive): x86-64 code for half and
// bfloat16 values calls them. Only their addresses are taken here.
extern "C" {
void __truncsfbf2();
void __truncdfbf2();
void __extendbfsf2();
void __truncsfhf2();
void __truncdfhf2();
void __extendhfsf2();
void __extendhfdf2();
}

namespace ptx2amd::host {

std::vector<std::pair<const char *, void *>> runtimeSymbols() {
  std::vector<std::pair<const char *, void *>> Symbols = {
      {"__truncsfbf2", reinterpret_cast<void *>(&__truncsfbf2)},
      {"__truncdfbf2", reinterpret_cast<void *>(&__truncdfbf2)},
      {"__extendbfsf2", reinterpret_cast<void *>(&__extendbfsf2)},
      {"__truncsfhf2", reinterpret_cast<void *>(&__truncsfhf2)},
      {"__truncdfhf2", reinterpret_cast<void *>(&__truncdfhf2)},
      {"__extendhfsf2", reinterpret_cast<void *>(&__extendhfsf2)},
      {"__extendhfdf2", reinterpret_cast<void *>(&__extendhfdf2)},
      {rt::State, reinterpret_cast<void *>(&__ptx2amd_host_state)},
      {rt::Ballot, reinterpret_cast<void *>(&__ptx2amd_host_ballot)},
      {rt::Bpermute, reinterpret_cast<void *>(&__ptx2amd_host_bpermute)},
      {rt::Readlane, reinterpret_cast<void *>(&__ptx2amd_host_readlane)},
      {rt::Readfirstlane, reinterpret_cast<void *>(&__ptx2amd_host_readfirstlane)},
      {rt::WaveBarrier, reinterpret_cast<void *>(&__ptx2amd_host_wave_barrier)},
      {rt::Barrier, reinterpret_cast<void *>(&__ptx2amd_host_barrier)},
      {rt::Sleep, reinterpret_cast<void *>(&__ptx2amd_host_sleep)},
      {rt::Trap, reinterpret_cast<void *>(&__ptx2amd_host_trap)},
      {rt::SteadyCounter, reinterpret_cast<void *>(&__ptx2amd_host_steady_counter)},
      {rt::Frame, reinterpret_cast<void *>(&__ptx2amd_host_frame)},
  };
  for (auto &S : imageUnitSymbols()) // ImageUnit.cpp
    Symbols.push_back(S);
  return Symbols;
}

} // namespace ptx2amd::host
