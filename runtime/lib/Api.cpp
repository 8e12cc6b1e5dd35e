//===- Api.cpp - devices, errors, versions, streams and events ===//

#include "Runtime.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace ptx2amd;
using namespace ptx2amd::runtime;

namespace {

/// The device's value of \p A, from the same properties cudaGetDeviceProperties reports.
bool attribute(const cudaDeviceProp &P, cudaDeviceAttr A, int &Out) {
  switch (A) {
  case cudaDevAttrMaxThreadsPerBlock:
    Out = P.maxThreadsPerBlock;
    return true;
  case cudaDevAttrMaxBlockDimX:
  case cudaDevAttrMaxBlockDimY:
  case cudaDevAttrMaxBlockDimZ:
    Out = P.maxThreadsDim[A - cudaDevAttrMaxBlockDimX];
    return true;
  case cudaDevAttrMaxGridDimX:
  case cudaDevAttrMaxGridDimY:
  case cudaDevAttrMaxGridDimZ:
    Out = P.maxGridSize[A - cudaDevAttrMaxGridDimX];
    return true;
  case cudaDevAttrMaxSharedMemoryPerBlock:
    Out = int(P.sharedMemPerBlock);
    return true;
  case cudaDevAttrTotalConstantMemory:
    Out = int(P.totalConstMem);
    return true;
  case cudaDevAttrWarpSize:
    Out = P.warpSize;
    return true;
  case cudaDevAttrMaxPitch:
    Out = int(P.memPitch);
    return true;
  case cudaDevAttrMaxRegistersPerBlock:
    Out = P.regsPerBlock;
    return true;
  case cudaDevAttrMultiProcessorCount:
    Out = P.multiProcessorCount;
    return true;
  case cudaDevAttrIntegrated:
    Out = P.integrated;
    return true;
  case cudaDevAttrCanMapHostMemory:
    Out = P.canMapHostMemory;
    return true;
  case cudaDevAttrConcurrentKernels:
    Out = P.concurrentKernels;
    return true;
  case cudaDevAttrL2CacheSize:
    Out = P.l2CacheSize;
    return true;
  case cudaDevAttrMaxThreadsPerMultiProcessor:
    Out = P.maxThreadsPerMultiProcessor;
    return true;
  case cudaDevAttrAsyncEngineCount:
    Out = P.asyncEngineCount;
    return true;
  case cudaDevAttrUnifiedAddressing:
    Out = P.unifiedAddressing;
    return true;
  case cudaDevAttrComputeCapabilityMajor:
    Out = P.major;
    return true;
  case cudaDevAttrComputeCapabilityMinor:
    Out = P.minor;
    return true;
  case cudaDevAttrMaxSharedMemoryPerMultiprocessor:
    Out = int(P.sharedMemPerMultiprocessor);
    return true;
  case cudaDevAttrMaxRegistersPerMultiprocessor:
    Out = P.regsPerMultiprocessor;
    return true;
  case cudaDevAttrManagedMemory:
    Out = P.managedMemory;
    return true;
  case cudaDevAttrConcurrentManagedAccess:
    Out = P.concurrentManagedAccess;
    return true;
  case cudaDevAttrCooperativeLaunch:
    Out = P.cooperativeLaunch;
    return true;
  case cudaDevAttrMaxSharedMemoryPerBlockOptin:
    Out = int(P.sharedMemPerBlockOptin);
    return true;
  case cudaDevAttrMaxBlocksPerMultiprocessor:
    Out = P.maxBlocksPerMultiProcessor;
    return true;
  }
  return false;
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

} // namespace

extern "C" {

//===-- errors and versions ------------------------------------------------===//

// These never fail, not even after a sticky error: they report it.
cudaError_t cudaGetLastError() { return lastError(true); }
cudaError_t cudaPeekAtLastError() { return lastError(false); }
const char *cudaGetErrorName(cudaError_t E) { return errorName(E); }
const char *cudaGetErrorString(cudaError_t E) { return errorString(E); }

cudaError_t cudaRuntimeGetVersion(int *Version) {
  if (!Version)
    return fail(cudaErrorInvalidValue);
  *Version = CudaVersion;
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *Version) {
  if (!Version)
    return fail(cudaErrorInvalidValue);
  *Version = CudaVersion;
  return cudaSuccess;
}

//===-- devices ------------------------------------------------------------===//

cudaError_t cudaGetDeviceCount(int *Count) {
  return guarded([&] {
    if (!Count)
      return fail(cudaErrorInvalidValue);
    *Count = 0;
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    *Count = 1;
    return cudaSuccess;
  });
}

cudaError_t cudaGetDevice(int *Device) {
  return guarded([&] {
    if (!Device)
      return fail(cudaErrorInvalidValue);
    *Device = 0;
    return checkDevice(0);
  });
}

cudaError_t cudaSetDevice(int Device) {
  return guarded([&] { return checkDevice(Device); });
}

cudaError_t cudaSetDeviceFlags(unsigned Flags) {
  return guarded([&] { return checkDevice(0); });
}

cudaError_t cudaDeviceReset() {
  return guarded([&] {
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    return synchronizeAll(*C);
  });
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *Prop, int Device) {
  return guarded([&] {
    if (!Prop)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = checkDevice(Device))
      return E;
    Context *C = nullptr;
    context(C);
    *Prop = C->Props;
    return cudaSuccess;
  });
}

cudaError_t cudaDeviceGetAttribute(int *Value, cudaDeviceAttr Attr, int Device) {
  return guarded([&] {
    if (!Value)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = checkDevice(Device))
      return E;
    Context *C = nullptr;
    context(C);
    if (!attribute(C->Props, Attr, *Value))
      return fail(cudaErrorInvalidValue, formatv("device attribute {0}", int(Attr)).str());
    return cudaSuccess;
  });
}

cudaError_t cudaDeviceSynchronize() {
  return guarded([&] {
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    return synchronizeAll(*C);
  });
}

//===-- streams ------------------------------------------------------------===//

cudaError_t cudaStreamCreate(cudaStream_t *S) {
  return guarded([&] { return createStream(S, 0); });
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *S, unsigned Flags) {
  return guarded([&] { return createStream(S, Flags & StreamNonBlocking); });
}

// Priorities are accepted and not used.
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *S, unsigned Flags, int Priority) {
  return guarded([&] { return createStream(S, Flags & StreamNonBlocking); });
}

cudaError_t cudaStreamDestroy(cudaStream_t S) {
  return guarded([&] {
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
    }
    // CUDA lets the stream's work finish; the device's stream must outlive it.
    if (Error E = C->Dev.synchronize(R->Stream.get()))
      return fail(cudaErrorLaunchFailure, std::move(E));
    return cudaSuccess;
  });
}

cudaError_t cudaStreamSynchronize(cudaStream_t S) {
  return guarded([&] {
    Context *C = nullptr;
    loader::Stream *Stream = nullptr;
    if (cudaError_t E = context(C))
      return E;
    if (cudaError_t E = streamFor(*C, S, Stream))
      return E;
    if (Error E = C->Dev.synchronize(Stream))
      return fail(cudaErrorLaunchFailure, std::move(E));
    return cudaSuccess;
  });
}

cudaError_t cudaStreamQuery(cudaStream_t S) {
  return guarded([&] {
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
      return fail(cudaErrorLaunchFailure, std::move(E));
    auto Done = C->Dev.isComplete(**Ev);
    if (!Done)
      return fail(cudaErrorLaunchFailure, Done.takeError());
    return *Done ? cudaSuccess : cudaErrorNotReady;
  });
}

// The stream waits for the event on the host: correct, without overlap.
cudaError_t cudaStreamWaitEvent(cudaStream_t S, cudaEvent_t Event, unsigned Flags) {
  return guarded([&] {
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
      return fail(cudaErrorLaunchFailure, std::move(E));
    return cudaSuccess;
  });
}

//===-- events -------------------------------------------------------------===//

cudaError_t cudaEventCreate(cudaEvent_t *Event) {
  return guarded([&] { return createEvent(Event, 0); });
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *Event, unsigned Flags) {
  return guarded([&] { return createEvent(Event, Flags); });
}

cudaError_t cudaEventDestroy(cudaEvent_t Event) {
  return guarded([&] {
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    std::lock_guard<std::mutex> Lock(C->Mutex);
    if (!C->Events.erase(Event))
      return fail(cudaErrorInvalidResourceHandle,
                  formatv("no event {0}", (const void *)Event).str());
    return cudaSuccess;
  });
}

cudaError_t cudaEventRecord(cudaEvent_t Event, cudaStream_t S) {
  return guarded([&] {
    Context *C = nullptr;
    EventRecord *R = nullptr;
    loader::Stream *Stream = nullptr;
    if (cudaError_t E = context(C))
      return E;
    if (cudaError_t E = findEvent(*C, Event, R))
      return E;
    if (cudaError_t E = streamFor(*C, S, Stream))
      return E;
    if (Error E = C->Dev.record(*R->Event, Stream))
      return fail(cudaErrorLaunchFailure, std::move(E));
    std::lock_guard<std::mutex> Lock(C->Mutex);
    R->Recorded = true;
    return cudaSuccess;
  });
}

cudaError_t cudaEventSynchronize(cudaEvent_t Event) {
  return guarded([&] {
    Context *C = nullptr;
    EventRecord *R = nullptr;
    if (cudaError_t E = context(C))
      return E;
    if (cudaError_t E = findEvent(*C, Event, R))
      return E;
    if (Error E = C->Dev.synchronize(*R->Event))
      return fail(cudaErrorLaunchFailure, std::move(E));
    return cudaSuccess;
  });
}

cudaError_t cudaEventQuery(cudaEvent_t Event) {
  return guarded([&] {
    Context *C = nullptr;
    EventRecord *R = nullptr;
    if (cudaError_t E = context(C))
      return E;
    if (cudaError_t E = findEvent(*C, Event, R))
      return E;
    auto Done = C->Dev.isComplete(*R->Event);
    if (!Done)
      return fail(cudaErrorLaunchFailure, Done.takeError());
    return *Done ? cudaSuccess : cudaErrorNotReady;
  });
}

cudaError_t cudaEventElapsedTime(float *Ms, cudaEvent_t Start, cudaEvent_t End) {
  return guarded([&] {
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
        return fail(cudaErrorLaunchFailure, Done.takeError());
      if (!*Done)
        return fail(cudaErrorNotReady);
    }
    auto T = C->Dev.elapsedMs(*A->Event, *B->Event);
    if (!T)
      return fail(cudaErrorUnknown, T.takeError());
    *Ms = *T;
    return cudaSuccess;
  });
}

} // extern "C"
