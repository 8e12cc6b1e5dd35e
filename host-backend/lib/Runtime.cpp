// The wave emulator: workers that run workgroups, as plain loops where the kernel never needs
// lanes to meet, else work-item after work-item up to their next synchronisation point (a
// barrier, a cross-lane operation: SyncOps.h), which the wave or workgroup then completes. A
// work-item is resumed either as a compiled workgroup's coroutine (WorkGroup.cpp: its frame
// where its fiber stack would be) or, the fallback, as a fiber of its own.
//
// Memory: AMDGPU's private pointers are 32-bit, so each worker's thread stack (plain loops keep
// private variables there) and its fiber stacks lie in one window reserved below 4 GiB, with
// PROT_NONE guards between them. LDS addresses are 32-bit offsets in the workgroup's arena: each
// worker reserves 4 GiB (PROT_NONE) and opens only the launch's arena at its end, so any LDS
// access outside the arena faults. A fault, a trap or a workgroup that stops
// making progress (the launching thread watches, and stops the worker with a signal) while a
// worker runs kernel code ends the launch with an error (siglongjmp back to the worker's loop).
#include "Runtime.h"

#include "ImageUnit.h"

#include "LaneState.h"
#include "SyncOps.h"
#include "ptx2amd/amdgpu-backend/KernelFault.h"

#include <boost/context/detail/fcontext.hpp>

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csetjmp>
#include <csignal>
#include <cstring>
#include <map>
#include <mutex>
#include <pthread.h>
#include <sys/mman.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace llvm;
namespace ctx = boost::context::detail;

namespace ptx2amd::host {
namespace {

constexpr size_t Page = 4096;
constexpr size_t Guard = 64 * 1024;             // around the thread stack
constexpr size_t ThreadStack = 8 * 1024 * 1024; // plain loops: private memory of one work-item
constexpr size_t FiberStack = 60 * 1024;        // each work-item's stack in fiber mode
constexpr size_t FiberGuard = Page;
constexpr size_t SlotSize = Guard + ThreadStack + Guard + MaxBlockSize * (FiberGuard + FiberStack);
// Every 32-bit LDS address (plus the widest access) lies in the window.
constexpr size_t LdsWindowSize = (size_t(1) << 32) + Guard;
// The arena ends this close to the first PROT_NONE page: LDS stays 64-byte aligned on the host.
constexpr size_t LdsAlign = 64;

Error makeError(const Twine &Msg) { return createStringError(inconvertibleErrorCode(), Msg); }

enum class Status : uint8_t { Ready, Blocked, Exited };

struct Lane {
  LaneState State;
  ctx::fcontext_t Ctx = nullptr; ///< where to resume it (a fiber)
  void *Frame = nullptr;         ///< its coroutine frame (a compiled workgroup), once started
  Status St = Status::Ready;
  Op Kind = Op::Barrier;
  uintptr_t Site = 0; ///< return address of the runtime call it waits in
  uint64_t A = 0, B = 0, Result = 0;
};

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
uint8_t *fiberStack(const Worker &W, unsigned I) {
  if (I < MaxBlockSize)
    return W.FibersLo + I * (FiberGuard + FiberStack) + FiberGuard;
  return W.MoreFibersLo + (I - MaxBlockSize) * (FiberGuard + FiberStack) + FiberGuard;
}

// Initial-exec: kernel code reads its state at every region, and the general model's
// __tls_get_addr was a tenth of a compiled workgroup's time (two pointers of static TLS).
__attribute__((tls_model("initial-exec"))) thread_local Worker *CurrentWorker = nullptr;
__attribute__((tls_model("initial-exec"))) thread_local LaneState *CurrentState = nullptr;

struct sigaction PreviousAction[NSIG];

/// Where LDS address 0 lies in a worker's window: the arena ends (64-byte aligned) at the first
/// PROT_NONE page, so an access past its end faults.
size_t ldsShift(uint32_t LdsBytes) {
  return (alignTo(LdsBytes, Page) - LdsBytes) & ~(LdsAlign - 1);
}

/// The signal the watchdog stops a worker with (a real-time one: nobody else's).
int watchdogSignal() { return SIGRTMIN + 4; }

class Pool {
public:
  static Expected<Pool &> get();
  Error run(const KernelLaunch &L);
  unsigned size() const { return unsigned(Workers.size()); }

private:
  uint8_t *Window = nullptr;
  size_t WindowSize = 0;
  bool HaveCooperativeMemory = false;
  std::vector<std::unique_ptr<Worker>> Workers;
  std::mutex LaunchMutex; // one launch at a time
  std::mutex M;
  std::condition_variable Wake, Done;
  uint64_t Generation = 0;
  unsigned Finished = 0;
  const KernelLaunch *Job = nullptr;
  std::atomic<uint64_t> Next{0};
  uint64_t Total = 0;
  std::atomic<bool> Failed{false};
  std::string FirstError;
  amdgpu::FaultKind FirstKind = amdgpu::FaultKind::Other;

  Error start();
  Error prepareCooperative(const KernelLaunch &L, unsigned PerWorker);
  Error openLds(LdsWindow &A, size_t Bytes, const KernelLaunch &L);
  static void *threadMain(void *Arg);
  void workerLoop(Worker &W);
  void runJob(Worker &W);
  void fail(amdgpu::FaultKind Kind, std::string Msg);
  std::string describeFault(const Worker &W) const;
  void watch(const KernelLaunch &L, std::unique_lock<std::mutex> &Lock);
};

struct WorkerStart {
  Pool *P;
  Worker *W;
};

void onSignal(int Sig, siginfo_t *Info, void *Uctx) {
  Worker *W = CurrentWorker;
  if (Sig == watchdogSignal()) {
    // Late (the workgroup finished meanwhile): nothing to stop.
    if (W && W->InKernel) {
      W->InKernel = 0;
      siglongjmp(W->Jmp, int(Abort::Watchdog));
    }
    return;
  }
  if (W && W->InKernel) {
    W->InKernel = 0;
    W->FaultSignal = Sig;
    W->FaultAddress = reinterpret_cast<uintptr_t>(Info->si_addr);
    siglongjmp(W->Jmp, int(Abort::Fault));
  }
  // Not kernel code: whoever handled the signal before us, else the default action (returning
  // runs the faulting instruction again).
  const struct sigaction &Old = PreviousAction[Sig];
  if ((Old.sa_flags & SA_SIGINFO) && Old.sa_sigaction)
    return Old.sa_sigaction(Sig, Info, Uctx);
  if (Old.sa_handler != SIG_DFL && Old.sa_handler != SIG_IGN)
    return Old.sa_handler(Sig);
  signal(Sig, SIG_DFL);
}

Expected<Pool &> Pool::get() {
  static Pool *P = nullptr;
  static std::string Why;
  static std::once_flag Once;
  std::call_once(Once, [] {
    auto *New = new Pool; // lives as long as the process: workers never stop
    if (Error E = New->start()) {
      Why = toString(std::move(E));
      return;
    }
    P = New;
  });
  if (!P)
    return makeError(Why);
  return *P;
}

Error Pool::start() {
  unsigned Want = std::max(1u, std::thread::hardware_concurrency());
  if (const char *Env = getenv("PTX2AMD_HOST_THREADS"))
    Want = std::max(1, atoi(Env));
  // The window: [2 GiB, 4 GiB) where free, else what MAP_32BIT gives (the low 2 GiB).
  size_t Size = std::min<size_t>(Want, (size_t(2) << 30) / SlotSize) * SlotSize;
  int Flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
  void *P = mmap(reinterpret_cast<void *>(uintptr_t(2) << 30), Size, PROT_NONE,
                 Flags | MAP_FIXED_NOREPLACE, -1, 0);
  while (P == MAP_FAILED && Size >= SlotSize) {
    P = mmap(nullptr, Size, PROT_NONE, Flags | MAP_32BIT, -1, 0);
    if (P == MAP_FAILED)
      Size -= SlotSize;
  }
  if (P == MAP_FAILED || reinterpret_cast<uintptr_t>(P) + Size > (uintptr_t(1) << 32))
    return makeError("host backend: cannot reserve memory below 4 GiB for LDS and stacks");
  Window = static_cast<uint8_t *>(P);
  WindowSize = Size;

  struct sigaction SA {};
  SA.sa_sigaction = onSignal;
  SA.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&SA.sa_mask);
  for (int Sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, watchdogSignal()})
    sigaction(Sig, &SA, &PreviousAction[Sig]);

  unsigned N = unsigned(Size / SlotSize);
  for (unsigned I = 0; I < N; ++I) {
    auto W = std::make_unique<Worker>();
    W->Index = I;
    W->Slot = Window + I * SlotSize;
    W->StackLo = W->Slot + Guard;
    W->FibersLo = W->StackLo + ThreadStack + Guard;
    auto Open = [](uint8_t *At, size_t Bytes) {
      return mprotect(At, Bytes, PROT_READ | PROT_WRITE) == 0;
    };
    void *Lds = mmap(nullptr, LdsWindowSize, PROT_NONE, Flags, -1, 0);
    if (Lds == MAP_FAILED)
      return makeError("host backend: cannot reserve address space for LDS");
    W->Lds.push_back({static_cast<uint8_t *>(Lds), 0});
    bool Ok = Open(W->StackLo, ThreadStack);
    for (unsigned K = 0; Ok && K < MaxBlockSize; ++K)
      Ok = Open(W->FibersLo + K * (FiberGuard + FiberStack) + FiberGuard, FiberStack);
    if (!Ok)
      return makeError("host backend: cannot map worker memory below 4 GiB");
    W->Lanes.resize(MaxBlockSize);
    W->AltStack.resize(64 * 1024);
    pthread_attr_t Attr;
    pthread_attr_init(&Attr);
    pthread_attr_setstack(&Attr, W->StackLo, ThreadStack);
    Worker *Raw = W.get();
    Workers.push_back(std::move(W));
    int RC = pthread_create(&Raw->Thread, &Attr, threadMain, new WorkerStart{this, Raw});
    pthread_attr_destroy(&Attr);
    if (RC != 0) {
      Workers.pop_back();
      if (Workers.empty())
        return makeError("host backend: cannot start worker threads");
      break;
    }
  }
  return Error::success();
}

void *Pool::threadMain(void *Arg) {
  std::unique_ptr<WorkerStart> St(static_cast<WorkerStart *>(Arg));
  stack_t Alt{};
  Alt.ss_sp = St->W->AltStack.data();
  Alt.ss_size = St->W->AltStack.size();
  sigaltstack(&Alt, nullptr);
  CurrentWorker = St->W;
  St->P->workerLoop(*St->W);
  return nullptr;
}

void Pool::workerLoop(Worker &W) {
  uint64_t Seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> Lock(M);
      Wake.wait(Lock, [&] { return Generation != Seen; });
      Seen = Generation;
    }
    runJob(W);
    {
      std::lock_guard<std::mutex> Lock(M);
      if (++Finished == Workers.size())
        Done.notify_all();
    }
  }
}

void Pool::fail(amdgpu::FaultKind Kind, std::string Msg) {
  std::lock_guard<std::mutex> Lock(M);
  if (!Failed.exchange(true)) {
    FirstError = std::move(Msg);
    FirstKind = Kind;
  }
}

std::string Pool::describeFault(const Worker &W) const {
  uintptr_t A = W.FaultAddress;
  auto Hex = [](uintptr_t V) { return "0x" + utohexstr(V); };
  switch (W.FaultSignal) {
  case SIGFPE:
    return "arithmetic exception (integer division by zero or overflow)";
  case SIGILL:
    return "illegal instruction";
  default:
    break;
  }
  auto Fibers = reinterpret_cast<uintptr_t>(W.FibersLo);
  auto MoreFibers = reinterpret_cast<uintptr_t>(W.MoreFibersLo);
  auto Stack = reinterpret_cast<uintptr_t>(W.StackLo);
  for (const LdsWindow &Win : W.Lds) {
    auto Base = reinterpret_cast<uintptr_t>(Win.Base);
    if (A >= Base && A < Base + LdsWindowSize)
      return "LDS (shared memory) access outside the workgroup's arena at LDS address " +
             Hex(uint32_t(A - Base - ldsShift(W.Launch->LdsBytes))) + " (the arena holds " +
             std::to_string(W.Launch->LdsBytes) + " bytes)";
  }
  const size_t MoreBytes = (CooperativeWorkItems - MaxBlockSize) * (FiberGuard + FiberStack);
  if ((A >= Fibers && A < Fibers + MaxBlockSize * (FiberGuard + FiberStack)) ||
      (MoreFibers && A >= MoreFibers && A < MoreFibers + MoreBytes))
    return "private memory access outside a work-item's stack at " + Hex(A) + " (stack overflow?)";
  if (A >= Stack - Guard && A < Stack + ThreadStack)
    return "private memory access outside the work-item's stack at " + Hex(A);
  if (A < (uintptr_t(1) << 32))
    return "invalid LDS or private address " + Hex(A);
  return "invalid memory access at " + Hex(A);
}

// ---- fibers ----

void laneMain(ctx::transfer_t T) {
  Worker &W = *CurrentWorker;
  W.Sched = T.fctx;
  Lane &L = *static_cast<Lane *>(T.data);
  W.Launch->Entry(W.Launch->Kernarg);
  L.St = Status::Exited;
  ctx::jump_fcontext(W.Sched, nullptr);
}

void resume(Worker &W, Lane &L) {
  W.Current = &L;
  CurrentState = &L.State;
  const bool Slept = L.Kind == Op::Sleep;
  if (const KernelLaunch &K = *W.Launch; K.WorkGroup) {
    // Up to its next synchronisation point, where it posts; a work-item that posts nothing has
    // returned.
    L.State.PostOp = NoPost;
    if (!L.Frame)
      K.WorkGroup(K.Kernarg); // makes its frame and stops before the kernel's first instruction
    K.Resume(L.Frame);
    if (L.State.PostOp == NoPost) {
      L.St = Status::Exited;
    } else {
      L.Kind = Op(L.State.PostOp);
      L.A = L.State.PostA;
      L.B = L.State.PostB;
      L.Site = L.State.PostSite;
      L.St = syncOp(L.Kind).Kind == SyncKind::Yield ? Status::Ready : Status::Blocked;
    }
  } else {
    ctx::transfer_t T = ctx::jump_fcontext(L.Ctx, &L);
    L.Ctx = T.fctx;
  }
  W.Current = nullptr;
  // From one sleep to the next (a spin that keeps waiting) is no progress for the watchdog.
  // Only this worker writes its count: no locked add on this path.
  if (!Slept || L.Kind != Op::Sleep || L.St != Status::Ready)
    W.Progress.store(W.Progress.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}

/// Called by a lane: wait for the wave (or workgroup) at this operation, return its result.
uint64_t meet(Op K, uint64_t A, uint64_t B, void *Site) {
  Worker *W = CurrentWorker;
  if (!W || !W->Current || W->Launch->WorkGroup) {
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
  L.A = A;
  L.B = B;
  L.Site = reinterpret_cast<uintptr_t>(Site);
  L.St = Status::Blocked;
  ctx::transfer_t T = ctx::jump_fcontext(W->Sched, nullptr);
  CurrentWorker->Sched = T.fctx;
  return L.Result;
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
      Ops.A[I] = L.A;
      Ops.B[I] = L.B;
      Kind = L.Kind;
    }
  }
  syncOp(Kind).Combine(Ops);
  for (unsigned I = 0; I < Count; ++I)
    if (Ops.Exec >> I & 1) {
      Wave[I].Result = Wave[I].State.Result = Ops.Result[I];
      Wave[I].St = Status::Ready;
    }
}

/// A fiber's site is the return address of its runtime call; a compiled workgroup's, the number
/// of its synchronisation point.
std::string siteName(const Worker &W, uintptr_t Site) {
  if (W.Launch->WorkGroup)
    return "synchronisation point " + std::to_string(Site);
  return "0x" + utohexstr(Site);
}

/// \p Groups workgroups of \p N work-items each (lanes [g * N, g * N + N) of the worker), a
/// fiber or a compiled workgroup's coroutine per work-item. Several are a cooperative launch's
/// share, which run until all finish or \p Stop (another worker failed: what they wait for
/// never comes).
void runFibers(Worker &W, const KernelLaunch &L, unsigned N, unsigned Groups,
               const std::atomic<bool> &Stop) {
  const unsigned WS = L.WaveSize, All = N * Groups;
  for (unsigned I = 0; I < All; ++I) {
    Lane &Ln = W.Lanes[I];
    uint8_t *Lo = fiberStack(W, I);
    if (L.WorkGroup) {
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
  for (;;) {
    // Each group's lanes waiting in a wave operation, and ready ones, after this pass.
    unsigned AtWaveOp[CooperativeWorkgroups] = {}, StillReady[CooperativeWorkgroups] = {};
    for (unsigned I = 0; I < All; ++I) {
      Lane &Ln = W.Lanes[I];
      if (Ln.St == Status::Ready)
        resume(W, Ln);
      AtWaveOp[I / N] += Ln.St == Status::Blocked && Ln.Kind != Op::Barrier;
      StillReady[I / N] += Ln.St == Status::Ready;
    }
    bool Live = false;
    for (unsigned G = 0; G < Groups; ++G) {
      Lane *Group = &W.Lanes[G * N];
      if (!AtWaveOp[G] && StillReady[G]) {
        Live = true;
        continue;
      }
      // Every lane is blocked or gone: one group per wave may run its cross-lane operation, the
      // one at the lowest code address. A wave runs code in layout order: the first part of a
      // divergent region before the other, a loop's body before what follows it, so lanes that
      // went ahead (to where the wave reconverges) wait for the others to come.
      bool Progress = false;
      for (unsigned Base = 0; AtWaveOp[G] && Base < N; Base += WS) {
        unsigned Count = std::min(WS, N - Base);
        Lane *Wave = Group + Base;
        const Lane *First = nullptr;
        for (unsigned I = 0; I < Count; ++I)
          if (Wave[I].St == Status::Blocked && Wave[I].Kind != Op::Barrier &&
              (!First || Wave[I].Site < First->Site))
            First = &Wave[I];
        if (First) {
          runWaveGroup(Wave, Count, WS, First->Site);
          Progress = true;
        }
      }
      if (Progress || StillReady[G]) {
        Live = true;
        continue;
      }
      // Only the workgroup barrier is left (one per workgroup, as on AMDGPU and in PTX's
      // bar.sync 0: the work-items may wait at different calls of it). It runs when every live
      // work-item reached it; exited ones drop out. Work-items that never come (they spin) keep
      // the others waiting until the watchdog stops the workgroup.
      for (unsigned I = 0; I < N; ++I)
        if (Group[I].St != Status::Exited) {
          Group[I].St = Status::Ready;
          Group[I].Result = 0;
          Live = true;
        }
    }
    if (!Live || (Groups > 1 && Stop.load(std::memory_order_relaxed)))
      return;
  }
}

/// Linear work-item ids as ranges: "0-15, 17, 20-63".
std::string idRanges(const std::vector<unsigned> &Ids) {
  std::string R;
  for (size_t I = 0; I < Ids.size();) {
    size_t J = I;
    while (J + 1 < Ids.size() && Ids[J + 1] == Ids[J] + 1)
      ++J;
    R += (R.empty() ? "" : ", ") + std::to_string(Ids[I]);
    if (J > I)
      R += "-" + std::to_string(Ids[J]);
    I = J + 1;
  }
  return R;
}

/// What the work-items of a workgroup the watchdog stopped were doing.
std::string describeStall(const Worker &W, const Lane *Running, unsigned N, bool Fibers) {
  auto Item = [](const LaneState &S) {
    return "(" + std::to_string(S.ItemId[0]) + "," + std::to_string(S.ItemId[1]) + "," +
           std::to_string(S.ItemId[2]) + ")";
  };
  if (!Fibers)
    return "work-item " + Item(W.Plain) + " runs without end (an endless loop?)";
  std::vector<unsigned> AtBarrier, Elsewhere, Sleeping;
  std::map<uintptr_t, unsigned> Sites;
  for (unsigned I = 0; I < N; ++I) {
    const Lane &L = W.Lanes[I];
    if (L.St == Status::Blocked && L.Kind == Op::Barrier) {
      AtBarrier.push_back(I);
      ++Sites[L.Site];
    } else if (L.St != Status::Exited) {
      Elsewhere.push_back(I);
      if (L.Kind == Op::Sleep && L.St == Status::Ready)
        Sleeping.push_back(I);
    }
  }
  std::string Spin = Running ? "work-item " + std::to_string(Running - W.Lanes.data()) + " " +
                                   Item(Running->State) +
                                   " was running when stopped (it spins or loops)"
                             : "";
  if (!Sleeping.empty())
    Spin = "work-items " + idRanges(Sleeping) +
           " spin with s_sleep (waiting at a named barrier or for a flag)" +
           (Spin.empty() ? "" : "; " + Spin);
  if (AtBarrier.empty())
    return Spin.empty() ? "no work-item advances" : Spin;
  std::string Msg = "deadlock at the workgroup barrier: " + std::to_string(AtBarrier.size()) +
                    " work-items wait at it (";
  bool First = true;
  for (auto &[Site, Count] : Sites) {
    Msg += (First ? "" : ", ") + std::to_string(Count) + " at " + siteName(W, Site);
    First = false;
  }
  Msg += "); work-items " + idRanges(Elsewhere) + " never reached it";
  if (!Spin.empty())
    Msg += "; " + Spin;
  return Msg;
}

void Pool::runJob(Worker &W) {
  const KernelLaunch &L = *Job;
  const amdgpu::LaunchGeometry &G = *L.Geometry;
  W.Launch = &L;
  const uint32_t NX = G.Block[0], NY = G.Block[1], NZ = G.Block[2];
  const unsigned N = NX * NY * NZ;
  uint64_t Group = 0;
  // volatile: read again after a siglongjmp.
  volatile uint64_t Running = 0;
  volatile unsigned Held = N; // work-items of the workgroups it holds
  int Why = sigsetjmp(W.Jmp, 1);
  if (Why != 0) {
    W.InKernel = 0;
    CurrentState = nullptr;
    const Lane *Stopped = W.Current;
    W.Current = nullptr;
    uint64_t R = Running;
    std::string Where = "kernel '" + L.Name + "', workgroup " + std::to_string(R);
    using amdgpu::FaultKind;
    if (Why == int(Abort::Trap))
      fail(FaultKind::Trap,
           Where + ": the kernel trapped (trap instruction or failed device assertion)");
    else if (Why == int(Abort::Internal))
      fail(FaultKind::Other, Where + ": " + W.Internal);
    else if (Why == int(Abort::Watchdog))
      fail(FaultKind::Timeout, Where + ": no progress for " + std::to_string(L.WatchdogMs) +
                                   " ms (watchdog, PTX2AMD_HOST_WATCHDOG_MS): " +
                                   describeStall(W, Stopped, Held, !L.Loop));
    else
      fail(W.FaultSignal == SIGFPE   ? FaultKind::Arithmetic
           : W.FaultSignal == SIGILL ? FaultKind::Other
                                     : FaultKind::MemoryFault,
           Where + ": " + describeFault(W));
    return;
  }
  auto BaseState = [&](uint64_t Id, const LdsWindow &Lds) {
    LaneState Base{};
    Base.GroupId[0] = uint32_t(Id % G.Grid[0]);
    Base.GroupId[1] = uint32_t(Id / G.Grid[0] % G.Grid[1]);
    Base.GroupId[2] = uint32_t(Id / (uint64_t(G.Grid[0]) * G.Grid[1]));
    Base.LdsWindow = reinterpret_cast<uint64_t>(Lds.Base + ldsShift(L.LdsBytes));
    Base.LdsBytes = L.LdsBytes;
    Base.Dispatch = L.Packet;
    Base.ImplicitArgs = L.ImplicitArgs;
    Base.DispatchId = L.DispatchId;
    return Base;
  };
  auto InitLanes = [&](Lane *Lanes, const LaneState &Base) {
    for (unsigned I = 0; I < N; ++I) {
      LaneState &S = Lanes[I].State;
      S = Base;
      S.ItemId[0] = I % NX;
      S.ItemId[1] = I / NX % NY;
      S.ItemId[2] = I / (NX * NY);
      S.LaneInWave = I % L.WaveSize;
    }
  };
  if (L.Cooperative) {
    // Its share, all at once: workgroups Index, Index + workers, ... (run() checked they fit).
    const uint64_t Stride = Workers.size();
    unsigned Groups = 0;
    for (Group = W.Index; Group < Total; Group += Stride, ++Groups)
      InitLanes(&W.Lanes[Groups * N], BaseState(Group, W.Lds[Groups]));
    if (!Groups)
      return;
    Running = W.Index;
    Held = Groups * N;
    W.InKernel = 1;
    runFibers(W, L, N, Groups, Failed);
    W.InKernel = 0;
    CurrentState = nullptr;
    W.Progress.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  while (!Failed.load(std::memory_order_relaxed) &&
         (Group = Next.fetch_add(1, std::memory_order_relaxed)) < Total) {
    Running = Group;
    LaneState Base = BaseState(Group, W.Lds[0]);
    W.InKernel = 1;
    if (L.Loop) {
      W.Plain = Base;
      W.Plain.PrivateLo = reinterpret_cast<uint64_t>(W.StackLo);
      W.Plain.PrivateHi = reinterpret_cast<uint64_t>(W.StackLo + ThreadStack);
      CurrentState = &W.Plain;
      L.Loop(L.Kernarg, NX, NY, NZ);
    } else {
      InitLanes(W.Lanes.data(), Base);
      runFibers(W, L, N, 1, Failed);
    }
    W.InKernel = 0;
    CurrentState = nullptr;
    W.Progress.fetch_add(1, std::memory_order_relaxed);
  }
}

/// Waits for the launch; a worker whose workgroup shows no progress for L.WatchdogMs is stopped
/// (a spinning fiber never yields, so only another thread can notice).
void Pool::watch(const KernelLaunch &L, std::unique_lock<std::mutex> &Lock) {
  using Clock = std::chrono::steady_clock;
  const auto Limit = std::chrono::milliseconds(std::max(1u, L.WatchdogMs));
  const auto Tick = std::chrono::milliseconds(std::clamp(L.WatchdogMs / 8, 1u, 100u));
  // A worker's mark: its progress count and the work-item its plain loop runs.
  auto Mark = [](Worker &W) {
    auto Id = [&](unsigned D) {
      return uint64_t(__atomic_load_n(&W.Plain.ItemId[D], __ATOMIC_RELAXED));
    };
    return W.Progress.load(std::memory_order_relaxed) * 0x9e3779b97f4a7c15ull ^ Id(0) ^
           Id(1) << 16 ^ Id(2) << 32;
  };
  std::vector<uint64_t> Marks(Workers.size());
  std::vector<Clock::time_point> Since(Workers.size(), Clock::now());
  uint64_t GridMark = 0;
  while (!Done.wait_for(Lock, Tick, [&] { return Finished == Workers.size(); })) {
    auto Now = Clock::now();
    // The workgroups of a cooperative launch wait for each other (grid barriers): one advancing
    // is progress for all.
    if (L.Cooperative) {
      uint64_t Mk = 0;
      for (auto &W : Workers)
        Mk += Mark(*W);
      if (Mk != GridMark) {
        GridMark = Mk;
        std::fill(Since.begin(), Since.end(), Now);
      }
    }
    for (size_t I = 0; I < Workers.size(); ++I) {
      Worker &W = *Workers[I];
      uint64_t Mk = Mark(W);
      if (!W.InKernel || Mk != Marks[I]) {
        Marks[I] = Mk;
        Since[I] = Now;
      } else if (Now - Since[I] >= Limit) {
        pthread_kill(W.Thread, watchdogSignal());
        Since[I] = Now;
      }
    }
  }
}

Error Pool::openLds(LdsWindow &A, size_t Bytes, const KernelLaunch &L) {
  const size_t Open = alignTo(Bytes, Page);
  int RC = 0;
  if (Open > A.Open)
    RC = mprotect(A.Base + A.Open, Open - A.Open, PROT_READ | PROT_WRITE);
  else if (Open < A.Open)
    RC = mprotect(A.Base + Open, A.Open - Open, PROT_NONE);
  if (RC != 0)
    return makeError("kernel '" + L.Name + "': cannot map the LDS arenas");
  A.Open = Open;
  return Error::success();
}

/// What a cooperative launch needs beyond a launch's: fiber stacks for CooperativeWorkItems
/// work-items a worker (below 4 GiB, like the others, made once) and an LDS window for each of
/// \p PerWorker workgroups a worker.
Error Pool::prepareCooperative(const KernelLaunch &L, unsigned PerWorker) {
  if (!HaveCooperativeMemory) {
    const size_t PerSlot = (CooperativeWorkItems - MaxBlockSize) * (FiberGuard + FiberStack);
    const size_t Bytes = PerSlot * Workers.size();
    void *P = mmap(nullptr, Bytes, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_32BIT, -1, 0);
    if (P == MAP_FAILED || reinterpret_cast<uintptr_t>(P) + Bytes > (uintptr_t(1) << 32)) {
      if (P != MAP_FAILED)
        munmap(P, Bytes);
      return makeError("kernel '" + L.Name +
                       "': cannot reserve memory below 4 GiB for a cooperative launch's stacks");
    }
    for (size_t I = 0; I < Workers.size(); ++I) {
      Worker &W = *Workers[I];
      W.MoreFibersLo = static_cast<uint8_t *>(P) + I * PerSlot;
      for (unsigned K = MaxBlockSize; K < CooperativeWorkItems; ++K)
        if (mprotect(fiberStack(W, K), FiberStack, PROT_READ | PROT_WRITE) != 0)
          return makeError("kernel '" + L.Name + "': cannot map a cooperative launch's stacks");
      W.Lanes.resize(CooperativeWorkItems);
    }
    HaveCooperativeMemory = true;
  }
  for (auto &W : Workers)
    while (W->Lds.size() < PerWorker) {
      void *Lds = mmap(nullptr, LdsWindowSize, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (Lds == MAP_FAILED)
        return makeError("kernel '" + L.Name + "': cannot reserve address space for LDS");
      W->Lds.push_back({static_cast<uint8_t *>(Lds), 0});
    }
  return Error::success();
}

Error Pool::run(const KernelLaunch &L) {
  std::lock_guard<std::mutex> LaunchLock(LaunchMutex);
  const amdgpu::LaunchGeometry &G = *L.Geometry;
  uint64_t Threads = uint64_t(G.Block[0]) * G.Block[1] * G.Block[2];
  if (Threads == 0 || Threads > MaxBlockSize)
    return makeError("kernel '" + L.Name + "': a block of " + Twine(Threads) + " threads (1 to " +
                     Twine(MaxBlockSize) + ")");
  // The kernel's own need is checked against MaxLdsBytes by the caller; the arena (the module's
  // static layout, then the dynamic LDS) by MaxLdsArenaBytes.
  if (L.LdsBytes > MaxLdsArenaBytes)
    return makeError("kernel '" + L.Name + "': an LDS arena of " + Twine(L.LdsBytes) + " bytes");
  uint64_t Groups = uint64_t(G.Grid[0]) * G.Grid[1] * G.Grid[2];
  if (Groups == 0)
    return makeError("kernel '" + L.Name + "': an empty grid");
  unsigned PerWorker = 1;
  if (L.Cooperative) {
    PerWorker = unsigned(std::min<uint64_t>((Groups + Workers.size() - 1) / Workers.size(),
                                            CooperativeWorkgroups + 1));
    if (PerWorker > CooperativeWorkgroups || PerWorker * Threads > CooperativeWorkItems)
      return makeError("kernel '" + L.Name + "': a cooperative launch of " + Twine(Groups) +
                       " workgroups of " + Twine(Threads) + " work-items, more than " +
                       Twine(Workers.size()) + " workers hold at once (each at most " +
                       Twine(CooperativeWorkgroups) + " workgroups and " +
                       Twine(CooperativeWorkItems) + " work-items)");
    if (Error E = prepareCooperative(L, PerWorker))
      return E;
  }
  // The arenas: exactly what the launch uses (to the page), the rest stays PROT_NONE.
  for (auto &W : Workers)
    for (unsigned A = 0; A < PerWorker; ++A)
      if (Error E = openLds(W->Lds[A], L.LdsBytes, L))
        return E;
  {
    std::lock_guard<std::mutex> Lock(M);
    Job = &L;
    Total = Groups;
    Next = 0;
    Failed = false;
    FirstError.clear();
    Finished = 0;
    ++Generation;
  }
  Wake.notify_all();
  std::unique_lock<std::mutex> Lock(M);
  watch(L, Lock);
  Job = nullptr;
  if (Failed)
    return amdgpu::makeFault(FirstKind, FirstError);
  return Error::success();
}

} // namespace

Error runLaunch(const KernelLaunch &L) {
  auto P = Pool::get();
  if (!P)
    return P.takeError();
  return P->run(L);
}

Expected<unsigned> workerCount() {
  auto P = Pool::get();
  if (!P)
    return P.takeError();
  return P->size();
}

} // namespace ptx2amd::host

// ---- the entry points that retargeted code calls (names in LaneState.h) ----
using namespace ptx2amd::host;

extern "C" {

LaneState *__ptx2amd_host_state() { return CurrentState; }

__attribute__((noinline)) uint64_t __ptx2amd_host_ballot(uint32_t Pred) {
  return meet(Op::Ballot, Pred != 0, 0, __builtin_return_address(0));
}

__attribute__((noinline)) uint32_t __ptx2amd_host_bpermute(uint32_t Address, uint32_t Data) {
  return uint32_t(meet(Op::Bpermute, Address, Data, __builtin_return_address(0)));
}

__attribute__((noinline)) uint64_t __ptx2amd_host_readlane(uint64_t Value, uint32_t Lane) {
  return meet(Op::Readlane, Value, Lane, __builtin_return_address(0));
}

__attribute__((noinline)) uint64_t __ptx2amd_host_readfirstlane(uint64_t Value) {
  return meet(Op::Readfirstlane, Value, 0, __builtin_return_address(0));
}

__attribute__((noinline)) void __ptx2amd_host_wave_barrier() {
  meet(Op::WaveBarrier, 0, 0, __builtin_return_address(0));
}

__attribute__((noinline)) void __ptx2amd_host_barrier() {
  meet(Op::Barrier, 0, 0, __builtin_return_address(0));
}

void __ptx2amd_host_sleep() {
  Worker *W = CurrentWorker;
  // A plain loop: nobody else to run. (A compiled workgroup posts its sleeps, never calls this.)
  if (!W || !W->Current || W->Launch->WorkGroup)
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
  L->Frame = fiberStack(*W, unsigned(L - W->Lanes.data()));
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
