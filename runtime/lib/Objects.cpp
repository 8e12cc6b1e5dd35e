//===- Objects.cpp - devices, streams, events and functions, for both APIs ===//
//
// The bodies of the runtime and driver APIs' device, stream, event and function calls; a CUDA
// stream or event handle is the same in both APIs (CUstream is cudaStream_t).

#include "Graphs.h"
#include "Runtime.h"

#include "ptx2amd/amdgpu-backend/DeviceLaunches.h"

#include <atomic>
#include <cstdio>
#include <cstring>

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <utility>

using namespace llvm;

namespace ptx2amd::runtime {
namespace {
cudaError_t findEvent(Context &C, cudaEvent_t Handle, EventRecord *&Out) {
  std::lock_guard<std::mutex> Lock(C.Mutex);
  auto It = C.Events.find(Handle);
  if (It == C.Events.end())
    return fail(cudaErrorInvalidResourceHandle, formatv("no event {0}", (const void *)Handle));
  Out = It->second.get();
  return cudaSuccess;
}

/// Makes a device stream or event with \p Make (into the record) and registers the record under
/// its CUDA handle in \p Table.
template <typename HandleT, typename RecordT, typename MakeFn>
cudaError_t createHandle(HandleT *Out, unsigned Flags,
                         std::unordered_map<HandleT, std::unique_ptr<RecordT>> Context::*Table,
                         MakeFn Make) {
  if (!Out)
    return fail(cudaErrorInvalidValue);
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  auto R = std::make_unique<RecordT>();
  if (llvm::Error E = Make(C->Dev, *R))
    return fail(cudaErrorMemoryAllocation, std::move(E));
  R->Flags = Flags;
  HandleT Handle = reinterpret_cast<HandleT>(R.get());
  std::lock_guard<std::mutex> Lock(C->Mutex);
  (C->*Table).emplace(Handle, std::move(R));
  *Out = Handle;
  return cudaSuccess;
}

} // namespace

/// The device's value of \p A (DeviceAttributes.def): false for a value no attribute has.
bool deviceAttribute(const Context &C, cudaDeviceAttr A, int &Out) {
  const cudaDeviceProp &P = C.Props;
  switch (A) {
#define DEVICE_ATTR(Name, Value, Answer)                                                           \
  case cudaDevAttr##Name:                                                                          \
    Out = int(Answer);                                                                             \
    return true;
#include "DeviceAttributes.def"
  }
  return false;
}

namespace {
/// The limits' values, kept and reported (but the heap's, which is the loader's): the translated
/// code has no printf FIFO of this size, and its stacks are sized by the compiler.
struct Limits {
  std::mutex Mutex;
  size_t Values[7] = {1024, 1 << 20, 8 << 20, 2, 2048, 64, 0};
};
Limits &limits() {
  static Limits *L = new Limits;
  return *L;
}
} // namespace

void writePciBusId(const cudaDeviceProp &P, char *Id, int Length) {
  std::snprintf(Id, size_t(Length), "%08x:%02x:%02x.0", unsigned(P.pciDomainID),
                unsigned(P.pciBusID), unsigned(P.pciDeviceID));
}

// cudaLimitMallocHeapSize: the loader's device heap.
constexpr unsigned MallocHeapLimit = 2;
// cudaLimitPersistingL2CacheSize: what is set aside of the L2 for persisting accesses.
constexpr unsigned PersistingL2Limit = 6;

cudaError_t deviceLimit(cudaLimit Limit, size_t *Value) {
  if (!Value)
    return fail(cudaErrorInvalidValue);
  if (unsigned(Limit) >= std::size(limits().Values))
    return fail(cudaErrorInvalidValue, formatv("no limit {0}", unsigned(Limit)).str());
  if (Limit == MallocHeapLimit) {
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    *Value = C->Loader.heapBytes();
    return cudaSuccess;
  }
  std::lock_guard<std::mutex> Lock(limits().Mutex);
  *Value = limits().Values[Limit];
  return cudaSuccess;
}

cudaError_t setDeviceLimit(cudaLimit Limit, size_t Value) {
  if (unsigned(Limit) >= std::size(limits().Values))
    return fail(cudaErrorInvalidValue, formatv("no limit {0}", unsigned(Limit)).str());
  if (Limit == MallocHeapLimit) {
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    if (Error E = C->Loader.setHeapBytes(Value))
      return fail(cudaErrorInvalidValue, std::move(E));
    return cudaSuccess;
  }
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  if (Limit == PersistingL2Limit) {
    // As CUDA: a capability without persisting accesses (below 8.0) has no such limit, and one
    // with them takes at most the most it can set aside.
    if (C->Capability.arch() < 80)
      return fail(cudaErrorUnsupportedLimit,
                  "persisting L2 accesses came with compute capability 8.0");
    Value = std::min(Value, size_t(C->Props.persistingL2CacheMaxSize));
  }
  std::lock_guard<std::mutex> Lock(limits().Mutex);
  limits().Values[Limit] = Value;
  C->Loader.setDeviceLimit(unsigned(Limit), Value);
  return cudaSuccess;
}

namespace {
// The driver's limits beyond the runtime's (CUlimit): those of a CUDA-in-graphics (CIG) context,
// which a context of ours never is. cuBLASLt asks whether it is one.
constexpr unsigned CigSharedMemoryLimit = 7, CigEnabledLimit = 8, CigFallbackLimit = 9;
std::atomic<size_t> CigFallback{1};
} // namespace

cudaError_t driverLimit(unsigned Limit, size_t *Value) {
  if (!Value || Limit < CigSharedMemoryLimit || Limit > CigFallbackLimit)
    return deviceLimit(cudaLimit(Limit), Value);
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  // Outside a CIG context all of a multiprocessor's shared memory is the kernels'.
  *Value = Limit == CigSharedMemoryLimit ? size_t(C->Props.sharedMemPerMultiprocessor)
           : Limit == CigEnabledLimit    ? 0
                                         : CigFallback.load();
  return cudaSuccess;
}

cudaError_t setDriverLimit(unsigned Limit, size_t Value) {
  if (Limit < CigSharedMemoryLimit || Limit > CigFallbackLimit)
    return setDeviceLimit(cudaLimit(Limit), Value);
  if (Limit != CigFallbackLimit)
    return fail(cudaErrorInvalidValue, formatv("limit {0} can only be queried", Limit).str());
  CigFallback = Value != 0;
  return cudaSuccess;
}

void publishDeviceRuntime(Context &C) {
  std::vector<int32_t> Attributes(amdgpu::LaunchAttributeCount, 0);
  for (unsigned A = 0; A < Attributes.size(); ++A) {
    int V = 0;
    if (deviceAttribute(C, cudaDeviceAttr(A), V))
      Attributes[A] = V;
  }
  C.Loader.setDeviceAttributes(Attributes);
  std::lock_guard<std::mutex> Lock(limits().Mutex);
  for (unsigned L = 0; L < std::size(limits().Values); ++L)
    if (L != MallocHeapLimit)
      C.Loader.setDeviceLimit(L, limits().Values[L]);
}

/// The one device there is: ordinal 0.
cudaError_t checkDevice(int Device) {
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  if (Device != 0)
    return fail(cudaErrorInvalidDevice, formatv("device {0}; there is one, 0", Device).str());
  return cudaSuccess;
}

cudaError_t createStream(cudaStream_t *Out, unsigned Flags) {
  return createHandle(Out, Flags, &Context::Streams, [](auto &Dev, StreamRecord &R) -> llvm::Error {
    auto S = Dev.createStream();
    if (!S)
      return S.takeError();
    R.Stream = std::move(*S);
    return llvm::Error::success();
  });
}

cudaError_t createEvent(cudaEvent_t *Out, unsigned Flags) {
  return createHandle(Out, Flags, &Context::Events, [](auto &Dev, EventRecord &R) -> llvm::Error {
    auto Ev = Dev.createEvent();
    if (!Ev)
      return Ev.takeError();
    R.Event = std::move(*Ev);
    return llvm::Error::success();
  });
}

cudaError_t destroyStream(cudaStream_t S) {
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  std::unique_ptr<StreamRecord> R;
  {
    std::lock_guard<std::mutex> Lock(C->Mutex);
    auto It = C->Streams.find(S);
    if (It == C->Streams.end())
      return fail(cudaErrorInvalidResourceHandle, formatv("no stream {0}", (const void *)S));
    R = std::move(It->second);
    C->Streams.erase(It);
    C->StreamAttributes.erase(S);
  }
  // CUDA lets the stream's work finish; the device's stream must outlive it.
  if (Error E = C->Dev.synchronize(R->Stream.get()))
    return failDeviceWork(std::move(E));
  return cudaSuccess;
}

cudaError_t streamFlags(cudaStream_t S, unsigned &Flags) {
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  Flags = 0;
  S = resolveStream(S);
  if (S == nullptr || S == StreamLegacy)
    return cudaSuccess;
  std::lock_guard<std::mutex> Lock(C->Mutex);
  auto It = C->Streams.find(S);
  if (It == C->Streams.end())
    return fail(cudaErrorInvalidResourceHandle, formatv("no stream {0}", (const void *)S));
  Flags = It->second->Flags;
  return cudaSuccess;
}

unsigned long long nextStreamId() {
  static std::atomic<unsigned long long> Next{3};
  return Next++;
}

cudaError_t streamId(cudaStream_t S, unsigned long long &Id) {
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  S = resolveStream(S);
  if (S == nullptr || S == StreamLegacy) {
    Id = 1;
    return cudaSuccess;
  }
  std::lock_guard<std::mutex> Lock(C->Mutex);
  auto It = C->Streams.find(S);
  if (It == C->Streams.end())
    return fail(cudaErrorInvalidResourceHandle, formatv("no stream {0}", (const void *)S));
  Id = It->second->Id;
  return cudaSuccess;
}

cudaError_t streamAttribute(cudaStream_t S, int Id, void *Value, bool Set) {
  if (!Value)
    return fail(cudaErrorInvalidValue);
  // Access policy window, synchronisation policy, priority, memory synchronisation domain map
  // and domain: what a stream may hold of the launch attributes.
  if (Id != 1 && Id != 3 && Id != 8 && Id != 9 && Id != 10)
    return fail(cudaErrorInvalidValue, formatv("stream attribute {0}", Id).str());
  unsigned Flags;
  if (cudaError_t E = streamFlags(S, Flags))
    return E;
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  S = resolveStream(S);
  if (!S)
    S = StreamLegacy;
  std::lock_guard<std::mutex> Lock(C->Mutex);
  auto &Attributes = C->StreamAttributes[S];
  if (Set) {
    std::memcpy(Attributes[Id].data(), Value, 64);
    return cudaSuccess;
  }
  auto It = Attributes.find(Id);
  if (It == Attributes.end())
    std::memset(Value, 0, 64);
  else
    std::memcpy(Value, It->second.data(), 64);
  return cudaSuccess;
}

cudaError_t copyStreamAttributes(cudaStream_t Dst, cudaStream_t Src) {
  unsigned Flags;
  if (cudaError_t E = streamFlags(Dst, Flags))
    return E;
  if (cudaError_t E = streamFlags(Src, Flags))
    return E;
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  std::lock_guard<std::mutex> Lock(C->Mutex);
  Dst = resolveStream(Dst), Src = resolveStream(Src);
  C->StreamAttributes[Dst ? Dst : StreamLegacy] = C->StreamAttributes[Src ? Src : StreamLegacy];
  return cudaSuccess;
}

cudaError_t exchangeCaptureMode(int *Mode) {
  if (!Mode || *Mode < 0 || *Mode > 2)
    return fail(cudaErrorInvalidValue);
  std::swap(*Mode, threadCaptureMode());
  return cudaSuccess;
}

cudaError_t synchronizeStream(cudaStream_t S) {
  if (auto R = refuseWhileCapturing(S))
    return *R;
  Context *C = nullptr;
  loader::Stream *Stream = nullptr;
  if (cudaError_t E = context(C))
    return E;
  if (cudaError_t E = streamFor(*C, S, Stream))
    return E;
  if (Error E = C->Dev.synchronize(Stream))
    return failDeviceWork(std::move(E));
  return cudaSuccess;
}

cudaError_t queryStream(cudaStream_t S) {
  if (auto R = refuseWhileCapturing(S))
    return *R;
  Context *C = nullptr;
  loader::Stream *Stream = nullptr;
  if (cudaError_t E = context(C))
    return E;
  if (cudaError_t E = streamFor(*C, S, Stream))
    return E;
  // An event recorded now completes when the stream's present work does.
  auto Ev = C->Dev.createEvent();
  if (!Ev)
    return fail(cudaErrorMemoryAllocation, Ev.takeError());
  if (Error E = C->Dev.record(**Ev, Stream))
    return failDeviceWork(std::move(E));
  auto Done = C->Dev.isComplete(**Ev);
  if (!Done)
    return failDeviceWork(Done.takeError());
  return *Done ? cudaSuccess : cudaErrorNotReady;
}

// The stream waits for the event on the host: correct, without overlap.
cudaError_t streamWaitEvent(cudaStream_t S, cudaEvent_t Event) {
  if (auto R = captureWaitEvent(S, Event))
    return *R;
  Context *C = nullptr;
  EventRecord *R = nullptr;
  loader::Stream *Stream = nullptr;
  if (cudaError_t E = context(C))
    return E;
  if (cudaError_t E = findEvent(*C, Event, R))
    return E;
  if (cudaError_t E = streamFor(*C, S, Stream))
    return E;
  if (Error E = C->Dev.synchronize(*R->Event))
    return failDeviceWork(std::move(E));
  return cudaSuccess;
}

cudaError_t launchHostFunc(cudaStream_t S, void (*Fn)(void *), void *UserData) {
  if (!Fn)
    return fail(cudaErrorInvalidValue);
  if (isCapturing(S)) {
    GraphNode Proto;
    Proto.Kind = NodeKind::Host;
    Proto.Host = {Fn, UserData};
    return captureNode(S, Proto);
  }
  // Called on this thread once the stream's earlier work is done: the stream's order holds.
  if (cudaError_t E = synchronizeStream(S))
    return E;
  Fn(UserData);
  return cudaSuccess;
}

cudaError_t destroyEvent(cudaEvent_t Event) {
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  std::lock_guard<std::mutex> Lock(C->Mutex);
  if (!C->Events.erase(Event))
    return fail(cudaErrorInvalidResourceHandle, formatv("no event {0}", (const void *)Event).str());
  return cudaSuccess;
}

cudaError_t recordEvent(cudaEvent_t Event, cudaStream_t S) {
  Context *C = nullptr;
  EventRecord *R = nullptr;
  loader::Stream *Stream = nullptr;
  if (cudaError_t E = context(C))
    return E;
  if (cudaError_t E = findEvent(*C, Event, R))
    return E;
  if (auto Captured = captureRecordEvent(Event, S))
    return *Captured;
  if (cudaError_t E = streamFor(*C, S, Stream))
    return E;
  if (Error E = C->Dev.record(*R->Event, Stream))
    return failDeviceWork(std::move(E));
  std::lock_guard<std::mutex> Lock(C->Mutex);
  R->Recorded = true;
  return cudaSuccess;
}

cudaError_t synchronizeEvent(cudaEvent_t Event) {
  Context *C = nullptr;
  EventRecord *R = nullptr;
  if (cudaError_t E = context(C))
    return E;
  if (cudaError_t E = findEvent(*C, Event, R))
    return E;
  if (Error E = C->Dev.synchronize(*R->Event))
    return failDeviceWork(std::move(E));
  return cudaSuccess;
}

cudaError_t queryEvent(cudaEvent_t Event) {
  Context *C = nullptr;
  EventRecord *R = nullptr;
  if (cudaError_t E = context(C))
    return E;
  if (cudaError_t E = findEvent(*C, Event, R))
    return E;
  auto Done = C->Dev.isComplete(*R->Event);
  if (!Done)
    return failDeviceWork(Done.takeError());
  return *Done ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t eventElapsedTime(float *Ms, cudaEvent_t Start, cudaEvent_t End) {
  if (!Ms)
    return fail(cudaErrorInvalidValue);
  Context *C = nullptr;
  EventRecord *A = nullptr, *B = nullptr;
  if (cudaError_t E = context(C))
    return E;
  if (cudaError_t E = findEvent(*C, Start, A))
    return E;
  if (cudaError_t E = findEvent(*C, End, B))
    return E;
  bool Timed;
  {
    std::lock_guard<std::mutex> Lock(C->Mutex);
    Timed = A->Recorded && B->Recorded && !((A->Flags | B->Flags) & EventDisableTiming);
  }
  if (!Timed)
    return fail(cudaErrorInvalidResourceHandle,
                "elapsed time needs two recorded events with timing");
  for (EventRecord *R : {A, B}) {
    auto Done = C->Dev.isComplete(*R->Event);
    if (!Done)
      return failDeviceWork(Done.takeError());
    if (!*Done)
      return fail(cudaErrorNotReady);
  }
  auto T = C->Dev.elapsedMs(*A->Event, *B->Event);
  if (!T)
    return fail(cudaErrorUnknown, T.takeError());
  *Ms = *T;
  return cudaSuccess;
}

int ptxTarget(StringRef Ptx) {
  size_t At = Ptx.find(".target");
  if (At == StringRef::npos)
    return 0;
  StringRef Rest = Ptx.substr(At + 7).ltrim();
  int V = 0;
  if (Rest.consume_front("sm_") && !Rest.consumeInteger(10, V))
    return V;
  return 0;
}

/// CUDA's registers per thread for a kernel. Programs work occupancy out from it themselves
/// (cuBLAS: registers per warp in units of 256, times the block's warps, into the
/// multiprocessor's registers, and divides by the blocks that fit), so it must agree with ours,
/// which registers do not bound: at most the share of a full multiprocessor's registers each of
/// its threads has (32 at 2048 threads, 40 at 1536, 64 at 1024; never more than a block of
/// maxThreadsPerBlock can have). A code object's VGPRs up to that; the host device's kernels
/// have no register file, and take the share (0 made cuBLAS divide by zero).
static int registersPerThread(const Context &C, const amdgpu::KernelMetadata &M) {
  const cudaDeviceProp &P = C.Props;
  int Share = std::min(P.regsPerMultiprocessor / P.maxThreadsPerMultiProcessor,
                       P.regsPerBlock / P.maxThreadsPerBlock);
  Share = std::max(Share / 8 * 8, 1); // CUDA allocates a thread's registers 8 at a time
  if (C.Dev.properties().Format == loader::ModuleFormat::Ptx)
    return Share;
  return int(std::clamp<uint64_t>(M.VgprCount, 1, uint64_t(Share)));
}

cudaError_t functionAttributes(KernelRecord &K, cudaFuncAttributes &Attr) {
  Context *C = nullptr;
  const loader::Kernel *DK = nullptr;
  if (cudaError_t E = contextAndKernel(K, C, DK))
    return E;
  const amdgpu::KernelMetadata &M = DK->metadata();
  Attr = {};
  Attr.sharedSizeBytes = M.GroupSegmentFixedSize;
  Attr.localSizeBytes = M.PrivateSegmentFixedSize;
  Attr.maxThreadsPerBlock = int(std::min<uint64_t>(
      M.MaxFlatWorkgroupSize ? M.MaxFlatWorkgroupSize : 1024, C->Props.maxThreadsPerBlock));
  Attr.numRegs = registersPerThread(*C, M);
  // The PTX selected for the device, and what it became: code for the device, whose capability
  // is the one reported (CUDA's driver reports the device's when it compiles PTX).
  Attr.ptxVersion = ptxTarget(K.Fatbin->Module->ptx());
  Attr.binaryVersion = int(C->Capability.arch());
  int Available = int(C->Props.sharedMemPerBlock - M.GroupSegmentFixedSize);
  std::lock_guard<std::mutex> Lock(K.Mutex);
  Attr.maxDynamicSharedSizeBytes =
      K.MaxDynamicSharedBytes >= 0 ? K.MaxDynamicSharedBytes : Available;
  Attr.preferredShmemCarveout = -1;
  Attr.requiredClusterWidth = Attr.requiredClusterHeight = Attr.requiredClusterDepth =
      K.RequiredCluster;
  Attr.nonPortableClusterSizeAllowed = K.NonPortableClusterSize;
  Attr.clusterSchedulingPolicyPreference = K.ClusterSchedulingPolicy;
  return cudaSuccess;
}

static cudaError_t setMaxDynamicSharedBytes(KernelRecord &K, int Value) {
  Context *C = nullptr;
  const loader::Kernel *DK = nullptr;
  if (cudaError_t E = contextAndKernel(K, C, DK))
    return E;
  uint64_t Available = C->Props.sharedMemPerBlockOptin - DK->metadata().GroupSegmentFixedSize;
  if (Value < 0 || uint64_t(Value) > Available)
    return fail(cudaErrorInvalidValue,
                formatv("kernel '{0}': {1} bytes of dynamic shared memory; at most {2}", K.Name,
                        Value, Available)
                    .str());
  std::lock_guard<std::mutex> Lock(K.Mutex);
  K.MaxDynamicSharedBytes = Value;
  return cudaSuccess;
}

cudaError_t setFunctionAttribute(KernelRecord &K, int Attribute, int Value) {
  auto Refuse = [&](const char *Why) {
    return fail(cudaErrorInvalidValue, formatv("kernel '{0}': function attribute {1} = {2}: {3}",
                                               K.Name, Attribute, Value, Why)
                                           .str());
  };
  auto Keep = [&](int &Field) {
    std::lock_guard<std::mutex> Lock(K.Mutex);
    Field = Value;
    return cudaSuccess;
  };
  switch (Attribute) {
  case cudaFuncAttributeMaxDynamicSharedMemorySize:
    return setMaxDynamicSharedBytes(K, Value);
  case cudaFuncAttributePreferredSharedMemoryCarveout:
    return cudaSuccess; // a hint; LDS has no carveout
  // The device's clusters are of one block (what AMD GPUs have): a required cluster may be that,
  // and the cluster hints change nothing.
  case cudaFuncAttributeRequiredClusterWidth:
  case cudaFuncAttributeRequiredClusterHeight:
  case cudaFuncAttributeRequiredClusterDepth:
    if (Value != 1)
      return Refuse("the device's clusters are of one block");
    return Keep(K.RequiredCluster);
  case cudaFuncAttributeNonPortableClusterSizeAllowed:
    if (Value != 0 && Value != 1)
      return Refuse("not 0 or 1");
    return Keep(K.NonPortableClusterSize);
  case cudaFuncAttributeClusterSchedulingPolicyPreference:
    if (Value < 0 || Value > 2)
      return Refuse("not a cudaClusterSchedulingPolicy");
    return Keep(K.ClusterSchedulingPolicy);
  default:
    return Refuse(Attribute == cudaFuncAttributeClusterDimMustBeSet ? "it can only be queried"
                                                                    : "no such attribute");
  }
}

} // namespace ptx2amd::runtime
