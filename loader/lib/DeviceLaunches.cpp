//===- DeviceLaunches.cpp - kernels launched by kernels (CUDA dynamic parallelism) ===//
//
// A module whose device code launches (it has amdgpu::LaunchQueueSymbol, which the device
// library's CUDA device runtime uses) gets a launch queue: before each grid of the module the
// loader writes the queue's header (the launches the grid may make, its depth, the device's
// attributes and limits), and when the grid is done it reads the records the grid made and runs
// them, each to completion with what it launched in turn, on the grid's stream:
//  - in launch order, tail launches (cudaStreamTailLaunch) after all the others. That order
//    meets every order CUDA's streams ask for: a block's NULL stream and a device stream run in
//    launch order, a stream waiting for an event waits for work launched before the event's
//    record, fire-and-forget work has no order, and a tail launch runs after its parent grid and
//    all the parent's other work. A grid is complete when all it launched is (CUDA's rule).
//  - a tail launch continues its parent's work at the parent's depth; any other launch is one
//    deeper (device code refuses launches past amdgpu::MaxNestingDepth);
//  - the launches held and not started yet, over the whole tree of one host launch, count against
//    cudaLimitDevRuntimePendingLaunchCount: a grid may make as many as the limit leaves (device
//    code refuses the others with cudaErrorLaunchPendingCountExceeded).
// One grid of a module uses its queue at a time (a mutex per module). Where the device runs
// kernels asynchronously (HSA), the loader waits for the grid before reading the queue.
//
//===----------------------------------------------------------------------===//

#include "ptx2amd/loader/ModuleLoader.h"
#include "ptx2amd/support/Error.h"

#include "ptx2amd/amdgpu-backend/DeviceLaunches.h"
#include "ptx2amd/lowering/Lowering.h"
#include "ptx2amd/ptx-grammar/Slices.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstring>

using namespace llvm;

namespace ptx2amd::loader {
namespace {

/// Errors of this file, prefixed with what failed.
Error fail(ErrorKind K, const Twine &Msg) { return makeError(K, "device-side launch: " + Msg); }

/// A record read back from the queue, with its parameters.
struct Child {
  amdgpu::LaunchRecord R;
  std::vector<uint8_t> Params;
  bool isTail() const {
    return R.Kind == uint32_t(amdgpu::LaunchKind::Kernel) && R.Stream == amdgpu::TailLaunchStream;
  }
};

} // namespace

struct LazyModule::DeviceLaunches {
  GlobalSymbol QueueVariable;
  void *Queue = nullptr; ///< the device's memory
  uint64_t QueueBytes = 0;
  std::vector<const Kernel *> Kernels; ///< by KernelHandle::Number - 1; null: cannot run
  std::mutex Mutex;                    ///< one grid of the module uses the queue at a time
  uint32_t Generation = 0;
};

bool isNvidiaDeviceRuntime(StringRef Ptx) {
  // libcudadevrt defines its version number for NVIDIA's driver to read.
  size_t At = Ptx.find("__CNPRT_VERSION_NUMBER__");
  if (At == StringRef::npos)
    return false;
  size_t LineStart = Ptx.rfind('\n', At);
  StringRef Line = Ptx.slice(LineStart == StringRef::npos ? 0 : LineStart + 1, At);
  return Line.contains(".visible") && Line.contains(".global");
}

void ModuleLoader::setDeviceAttributes(ArrayRef<int32_t> Values) {
  std::lock_guard<std::mutex> Lock(RuntimeMutex);
  Attributes.assign(Values.begin(), Values.end());
}

void ModuleLoader::setDeviceLimit(unsigned Limit, uint64_t Value) {
  std::lock_guard<std::mutex> Lock(RuntimeMutex);
  if (Limit < std::size(Limits))
    Limits[Limit] = Value;
}

// Here, where DeviceLaunches is complete.
LazyModule::LazyModule(ModuleLoader &L, std::string N, std::string P)
    : Loader(L), Name(std::move(N)), Ptx(std::move(P)) {}

LazyModule::~LazyModule() {
  if (Launches && Launches->Queue)
    consumeError(Loader.device().release(Launches->Queue));
}

Error LazyModule::attachDeviceLaunches() {
  auto Queue = Whole.DeviceModule->global(amdgpu::LaunchQueueSymbol);
  if (!Queue) { // the module's device code launches nothing
    consumeError(Queue.takeError());
    return Error::success();
  }
  auto L = std::make_unique<DeviceLaunches>();
  L->QueueVariable = *Queue;
  // Every kernel the PTX declares gets a number; those whose address device code takes have a
  // handle to fill.
  std::vector<std::string> Names = Whole.DeviceModule->kernelNames();
  for (const auto &U : Whole.Unavailable)
    if (!llvm::is_contained(Names, U.getKey()))
      Names.push_back(U.getKey().str());
  std::sort(Names.begin(), Names.end());
  Device &Dev = Loader.device();
  for (size_t I = 0; I < Names.size(); ++I) {
    const Kernel *K = nullptr;
    if (!Whole.Unavailable.count(Names[I])) {
      if (auto Found = Whole.DeviceModule->kernel(Names[I]))
        K = &*Found;
      else
        consumeError(Found.takeError());
    }
    L->Kernels.push_back(K);
    auto Handle = Whole.DeviceModule->global(lowering::KernelHandlePrefix + Names[I]);
    if (!Handle) {
      consumeError(Handle.takeError());
      continue;
    }
    amdgpu::KernelHandle H{};
    if (K) {
      const amdgpu::KernelMetadata &M = K->metadata();
      H.Number = uint32_t(I + 1);
      H.ParamBytes = uint32_t(M.explicitKernargSize());
      H.StaticLdsBytes = uint32_t(M.GroupSegmentFixedSize);
      H.MaxThreads = uint32_t(M.MaxFlatWorkgroupSize ? M.MaxFlatWorkgroupSize : 1024);
    }
    if (Error E = Dev.copy(Handle->Address, &H, sizeof H, CopyKind::HostToDevice, nullptr))
      return E;
  }
  Launches = std::move(L);
  return Dev.synchronize(nullptr);
}

Error LazyModule::launch(const Kernel &K, const amdgpu::LaunchGeometry &G, void **Args, Stream *S,
                         const LaunchOptions &O) {
  const uint64_t Lds = Loader.device().properties().LdsBytesPerWorkgroup;
  if (G.DynamicLdsBytes && !G.DynamicSharedAddress &&
      K.metadata().GroupSegmentFixedSize + G.DynamicLdsBytes > Lds)
    return launchDynamicSharedInGlobal(K, G, Args, S, O);
  return start(K, G, Args, S, O);
}

Error LazyModule::start(const Kernel &K, const amdgpu::LaunchGeometry &G, void **Args, Stream *S,
                        const LaunchOptions &O) {
  if (!Launches)
    return Loader.device().launch(K, G, Args, S, O);
  uint64_t Pending = 0;
  return runGrid(K, G, Args, S, O, 0, Pending);
}

Error LazyModule::launchDynamicSharedInGlobal(const Kernel &K, const amdgpu::LaunchGeometry &G,
                                              void **Args, Stream *S, const LaunchOptions &O) {
  Device &Dev = Loader.device();
  const std::string &KernelName = K.metadata().Name;
  auto Why = [&] {
    return formatv("kernel '{0}': {1} bytes of dynamic shared memory after {2} static ones are "
                   "more than the {3} bytes of LDS of {4}",
                   KernelName, G.DynamicLdsBytes, K.metadata().GroupSegmentFixedSize,
                   Dev.properties().LdsBytesPerWorkgroup, Dev.properties().Target->Name)
        .str();
  };
  if (!Outline)
    return makeError(ErrorKind::Unsupported,
                     Why() +
                         ", and placing them in global memory needs the module translated one "
                         "kernel at a time ('" +
                         Name + "' is translated whole)");
  Unit &U = kernelUnit(KernelName, /*InGlobal=*/true);
  auto V = kernelOf(U, KernelName);
  if (!V)
    return withContext(V.takeError(), Why() + "; in global memory");
  const uint64_t Blocks = uint64_t(G.Grid[0]) * G.Grid[1] * G.Grid[2];
  uint64_t Bytes;
  if (__builtin_mul_overflow(Blocks, uint64_t(G.DynamicLdsBytes), &Bytes))
    Bytes = UINT64_MAX;
  auto Slices = Dev.allocate(Bytes, MemoryKind::Device);
  if (!Slices)
    return makeError(ErrorKind::OutOfResources,
                     formatv("{0}; in global memory, {1} blocks of {2} bytes: ", Why(), Blocks,
                             G.DynamicLdsBytes)
                             .str() +
                         toString(Slices.takeError()));
  amdgpu::LaunchGeometry InGlobal = G;
  InGlobal.DynamicSharedAddress = reinterpret_cast<uintptr_t>(*Slices);
  Error E = start(*V, InGlobal, Args, S, O);
  // The slices are the grid's until it is done.
  if (!E)
    E = Dev.synchronize(S);
  return joinErrors(std::move(E), Dev.release(*Slices));
}

Error LazyModule::runGrid(const Kernel &K, const amdgpu::LaunchGeometry &G, void **Args, Stream *S,
                          const LaunchOptions &O, uint32_t Depth, uint64_t &Pending) {
  Device &Dev = Loader.device();
  DeviceLaunches &L = *Launches;
  std::vector<Child> Children;
  {
    std::lock_guard<std::mutex> Lock(L.Mutex);
    amdgpu::LaunchQueueHeader H{};
    {
      std::lock_guard<std::mutex> RLock(Loader.RuntimeMutex);
      std::copy(std::begin(Loader.Limits), std::end(Loader.Limits), H.Limits);
      std::copy_n(Loader.Attributes.begin(),
                  std::min<size_t>(Loader.Attributes.size(), amdgpu::LaunchAttributeCount),
                  H.Attributes);
    }
    H.Limits[2] = Loader.heapBytes();
    const uint64_t Limit = std::min<uint64_t>(H.Limits[4], UINT32_MAX);
    const uint64_t Bytes = amdgpu::LaunchArenaOffset + Limit * amdgpu::LaunchArenaBytesPerRecord;
    if (L.QueueBytes < Bytes) {
      auto P = Dev.allocate(Bytes, MemoryKind::Device);
      if (!P)
        return fail(ErrorKind::OutOfResources, "a launch queue for " + Twine(Limit) +
                                                   " pending launches: " + toString(P.takeError()));
      if (L.Queue)
        consumeError(Dev.release(L.Queue));
      L.Queue = *P;
      L.QueueBytes = Bytes;
      if (Error E = Dev.copy(L.QueueVariable.Address, &L.Queue, sizeof L.Queue,
                             CopyKind::HostToDevice, nullptr))
        return E;
    }
    H.Capacity = uint32_t(Limit > Pending ? Limit - Pending : 0);
    H.Depth = Depth;
    H.ArenaBytes = L.QueueBytes - amdgpu::LaunchArenaOffset;
    H.MaxDepth = amdgpu::MaxNestingDepth;
    H.LdsBytes = uint32_t(Dev.properties().LdsBytesPerWorkgroup);
    // Last-error entries of earlier grids are stale by their generation.
    if (++L.Generation == 0)
      ++L.Generation;
    H.Generation = L.Generation;
    if (Error E = Dev.copy(L.Queue, &H, offsetof(amdgpu::LaunchQueueHeader, Errors),
                           CopyKind::HostToDevice, nullptr))
      return E;
    if (Error E = Dev.synchronize(nullptr))
      return E;
    if (Error E = Dev.launch(K, G, Args, S, O))
      return E;
    if (Error E = Dev.synchronize(S))
      return E;
    if (Error E = Dev.copy(&H, L.Queue, offsetof(amdgpu::LaunchQueueHeader, Limits),
                           CopyKind::DeviceToHost, nullptr))
      return E;
    const uint64_t Used = std::min(H.ArenaUsed, H.ArenaBytes);
    std::vector<uint8_t> Arena(Used);
    if (Used)
      if (Error E = Dev.copy(Arena.data(),
                             static_cast<const uint8_t *>(L.Queue) + amdgpu::LaunchArenaOffset,
                             Used, CopyKind::DeviceToHost, nullptr))
        return E;
    for (uint64_t At = 0; At + sizeof(amdgpu::LaunchRecord) <= Used;) {
      Child C;
      std::memcpy(&C.R, Arena.data() + At, sizeof C.R);
      // Records are whole: the arena holds only those of reservations that fitted.
      if (C.R.Size < sizeof C.R || C.R.Size % 64 || C.R.Size > Used - At ||
          C.R.ParamBytes > C.R.Size - sizeof C.R)
        return fail(ErrorKind::BadInput, "a malformed launch record at offset " + Twine(At));
      if (C.R.Kind != uint32_t(amdgpu::LaunchKind::Pending)) {
        const uint8_t *P = Arena.data() + At + sizeof C.R;
        C.Params.assign(P, P + C.R.ParamBytes);
        Children.push_back(std::move(C));
      }
      At += C.R.Size;
    }
  }
  std::stable_sort(Children.begin(), Children.end(), [](const Child &A, const Child &B) {
    return std::make_pair(A.isTail(), A.R.Ticket) < std::make_pair(B.isTail(), B.R.Ticket);
  });
  Pending += Children.size();
  for (size_t I = 0; I < Children.size(); ++I) {
    const Child &C = Children[I];
    --Pending;
    auto Param = [&](unsigned K) {
      uint64_t V = 0;
      if (C.Params.size() >= 24)
        std::memcpy(&V, C.Params.data() + 8 * K, 8);
      return V;
    };
    Error E = Error::success();
    switch (amdgpu::LaunchKind(C.R.Kind)) {
    case amdgpu::LaunchKind::Copy:
      E = Dev.copy(reinterpret_cast<void *>(Param(0)), reinterpret_cast<const void *>(Param(1)),
                   size_t(Param(2)), CopyKind::DeviceToDevice, S);
      break;
    case amdgpu::LaunchKind::Set:
      E = Dev.memset(reinterpret_cast<void *>(Param(0)), uint8_t(Param(1)), size_t(Param(2)), S);
      break;
    case amdgpu::LaunchKind::Kernel: {
      if (!C.R.Kernel || C.R.Kernel > L.Kernels.size() || !L.Kernels[C.R.Kernel - 1]) {
        E = fail(ErrorKind::Unsupported,
                 "a launch of kernel number " + Twine(C.R.Kernel) + ", which cannot run");
        break;
      }
      const Kernel &CK = *L.Kernels[C.R.Kernel - 1];
      std::vector<void *> ChildArgs;
      for (const amdgpu::KernelArgMetadata &A : CK.metadata().Args)
        if (!A.isHidden()) {
          if (A.Offset + A.Size > C.Params.size())
            return fail(ErrorKind::BadInput,
                        formatv("kernel '{0}': {1} bytes of parameters, not {2}",
                                CK.metadata().Name, C.Params.size(), A.Offset + A.Size)
                            .str());
          ChildArgs.push_back(const_cast<uint8_t *>(C.Params.data()) + A.Offset);
        }
      amdgpu::LaunchGeometry CG;
      std::copy(std::begin(C.R.Grid), std::end(C.R.Grid), CG.Grid);
      std::copy(std::begin(C.R.Block), std::end(C.R.Block), CG.Block);
      CG.DynamicLdsBytes = C.R.SharedBytes;
      Loader.log(LogLevel::Debug,
                 formatv("device-side launch of '{0}' at depth {1}: grid ({2},{3},{4}) block "
                         "({5},{6},{7}) shared {8} stream {9:x}",
                         CK.metadata().Name, C.isTail() ? Depth : Depth + 1, CG.Grid[0], CG.Grid[1],
                         CG.Grid[2], CG.Block[0], CG.Block[1], CG.Block[2], CG.DynamicLdsBytes,
                         C.R.Stream)
                     .str());
      E = runGrid(CK, CG, ChildArgs.data(), S, {}, C.isTail() ? Depth : Depth + 1, Pending);
      break;
    }
    default:
      E = fail(ErrorKind::BadInput, "a launch record of kind " + Twine(C.R.Kind));
    }
    if (E) {
      Pending -= Children.size() - 1 - I;
      return E;
    }
  }
  return Error::success();
}

} // namespace ptx2amd::loader
