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
//
// Workers.h holds what the workers share with WorkItems.cpp, which runs a workgroup's
// work-items and holds the entry points that kernel code calls.
#include "Runtime.h"

#include "Workers.h"

#include "ptx2amd/amdgpu-backend/KernelFault.h"
#include "ptx2amd/support/Error.h"

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

namespace ptx2amd::host {

using namespace workers;

namespace {

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
    return makeError(ErrorKind::OutOfResources, Why);
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
    return makeError(ErrorKind::OutOfResources,
                     "host backend: cannot reserve memory below 4 GiB for LDS and stacks");
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
      return makeError(ErrorKind::OutOfResources,
                       "host backend: cannot reserve address space for LDS");
    W->Lds.push_back({static_cast<uint8_t *>(Lds), 0});
    bool Ok = Open(W->StackLo, ThreadStack);
    for (unsigned K = 0; Ok && K < MaxBlockSize; ++K)
      Ok = Open(W->FibersLo + K * (FiberGuard + FiberStack) + FiberGuard, FiberStack);
    if (!Ok)
      return makeError(ErrorKind::OutOfResources,
                       "host backend: cannot map worker memory below 4 GiB");
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
        return makeError(ErrorKind::OutOfResources, "host backend: cannot start worker threads");
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

/// Fibers and compiled workgroups alike post the number of their synchronisation point.
std::string siteName(uintptr_t Site) { return "synchronisation point " + std::to_string(Site); }

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
    Msg += (First ? "" : ", ") + std::to_string(Count) + " at " + siteName(Site);
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
      fail(FaultKind::Timeout,
           Where + ": no progress for " + std::to_string(L.WatchdogMs) +
               " ms (watchdog, PTX2AMD_HOST_WATCHDOG_MS): " +
               describeStall(W, Stopped, Held, L.How != Mode::Loop && L.How != Mode::Waves));
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
  if (L.Workers && W.Index >= L.Workers)
    return;
  bool LanesMade = false; // their ids and the launch's fields, the same in every workgroup
  // Wave functions: each wave's work-item ids (x, then y, then z, a wave's worth each) and
  // lanes, the same in every workgroup.
  const unsigned WS = L.WaveSize, Waves = (N + WS - 1) / WS;
  std::vector<uint32_t> WaveIds;
  auto WaveExec = [&](unsigned Wv) {
    unsigned Lanes = std::min(WS, N - Wv * WS);
    return Lanes == 64 ? ~uint64_t(0) : (uint64_t(1) << Lanes) - 1;
  };
  if (L.How == Mode::Waves || L.How == Mode::WavesWithBarriers) {
    WaveIds.assign(size_t(Waves) * 3 * WS, 0);
    for (unsigned I = 0; I < N; ++I) {
      uint32_t *Wv = &WaveIds[size_t(I / WS) * 3 * WS];
      Wv[I % WS] = I % NX;
      Wv[WS + I % WS] = I / NX % NY;
      Wv[2 * WS + I % WS] = I / (NX * NY);
    }
  }
  // Workgroups are taken a few at a time: one each made the workers' shared counter bounce
  // between their caches at every small workgroup (a grid of 65536 elementwise workgroups ran
  // slower on two workers than on one). A few per worker's turn still balance the load.
  const unsigned Takers = L.Workers ? std::min<unsigned>(L.Workers, unsigned(Workers.size()))
                                    : unsigned(Workers.size());
  const uint64_t Chunk = std::clamp<uint64_t>(Total / (uint64_t(Takers) * 64), 1, 16);
  uint64_t Taken = 0, TakenEnd = 0;
  while (!Failed.load(std::memory_order_relaxed)) {
    if (Taken == TakenEnd) {
      Taken = Next.fetch_add(Chunk, std::memory_order_relaxed);
      TakenEnd = std::min(Taken + Chunk, Total);
      if (Taken >= Total)
        break;
    }
    Group = Taken++;
    Running = Group;
    LaneState Base = BaseState(Group, W.Lds[0]);
    W.InKernel = 1;
    if (L.How == Mode::Waves || L.How == Mode::Loop) {
      W.Plain = Base;
      W.Plain.PrivateLo = reinterpret_cast<uint64_t>(W.StackLo);
      W.Plain.PrivateHi = reinterpret_cast<uint64_t>(W.StackLo + ThreadStack);
      CurrentState = &W.Plain;
      if (L.How == Mode::Loop)
        L.Plan->Loop(L.Kernarg, NX, NY, NZ);
      for (unsigned Wv = 0; L.How == Mode::Waves && Wv < Waves; ++Wv) {
        const uint32_t *Ids = &WaveIds[size_t(Wv) * 3 * WS];
        for (unsigned D = 0; D < 3; ++D) // what the watchdog reports of a wave that never ends
          W.Plain.ItemId[D] = Ids[D * WS];
        L.Plan->Wave(L.Kernarg, Ids, WaveExec(Wv));
      }
    } else if (L.How == Mode::WavesWithBarriers) {
      // The workgroup's waves are its items.
      for (unsigned Wv = 0; Wv < Waves; ++Wv) {
        LaneState &S = W.Lanes[Wv].State;
        S = Base;
        S.WaveIds = &WaveIds[size_t(Wv) * 3 * WS];
        S.WaveExec = WaveExec(Wv);
        for (unsigned D = 0; D < 3; ++D)
          S.ItemId[D] = S.WaveIds[D * WS];
      }
      Held = Waves;
      runFibers(W, L, Waves, 1, Failed);
    } else {
      if (!LanesMade)
        InitLanes(W.Lanes.data(), Base);
      else
        for (unsigned I = 0; I < N; ++I)
          std::memcpy(W.Lanes[I].State.GroupId, Base.GroupId, sizeof Base.GroupId);
      LanesMade = true;
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
    return makeError(ErrorKind::OutOfResources,
                     "kernel '" + L.Name + "': cannot map the LDS arenas");
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
      return makeError(
          ErrorKind::OutOfResources,
          "kernel '" + L.Name +
              "': cannot reserve memory below 4 GiB for a cooperative launch's stacks");
    }
    for (size_t I = 0; I < Workers.size(); ++I) {
      Worker &W = *Workers[I];
      W.MoreFibersLo = static_cast<uint8_t *>(P) + I * PerSlot;
      for (unsigned K = MaxBlockSize; K < CooperativeWorkItems; ++K)
        if (mprotect(fiberStack(W, K), FiberStack, PROT_READ | PROT_WRITE) != 0)
          return makeError(ErrorKind::OutOfResources,
                           "kernel '" + L.Name + "': cannot map a cooperative launch's stacks");
      W.Lanes.resize(CooperativeWorkItems);
    }
    HaveCooperativeMemory = true;
  }
  for (auto &W : Workers)
    while (W->Lds.size() < PerWorker) {
      void *Lds = mmap(nullptr, LdsWindowSize, PROT_NONE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (Lds == MAP_FAILED)
        return makeError(ErrorKind::OutOfResources,
                         "kernel '" + L.Name + "': cannot reserve address space for LDS");
      W->Lds.push_back({static_cast<uint8_t *>(Lds), 0});
    }
  return Error::success();
}

Error Pool::run(const KernelLaunch &L) {
  std::lock_guard<std::mutex> LaunchLock(LaunchMutex);
  const amdgpu::LaunchGeometry &G = *L.Geometry;
  uint64_t Threads = uint64_t(G.Block[0]) * G.Block[1] * G.Block[2];
  if (Threads == 0 || Threads > MaxBlockSize)
    return makeError(ErrorKind::BadInput, "kernel '" + L.Name + "': a block of " + Twine(Threads) +
                                              " threads (1 to " + Twine(MaxBlockSize) + ")");
  // The kernel's own need is checked against its target's LDS by the caller; the arena (the
  // module's static layout, then the dynamic LDS) by MaxLdsArenaBytes.
  if (L.LdsBytes > MaxLdsArenaBytes)
    return makeError(ErrorKind::OutOfResources,
                     "kernel '" + L.Name + "': an LDS arena of " + Twine(L.LdsBytes) + " bytes");
  uint64_t Groups = uint64_t(G.Grid[0]) * G.Grid[1] * G.Grid[2];
  if (Groups == 0)
    return makeError(ErrorKind::BadInput, "kernel '" + L.Name + "': an empty grid");
  unsigned PerWorker = 1;
  if (L.Cooperative) {
    PerWorker = unsigned(std::min<uint64_t>((Groups + Workers.size() - 1) / Workers.size(),
                                            CooperativeWorkgroups + 1));
    if (PerWorker > CooperativeWorkgroups || PerWorker * Threads > CooperativeWorkItems)
      return makeError(ErrorKind::OutOfResources,
                       "kernel '" + L.Name + "': a cooperative launch of " + Twine(Groups) +
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
