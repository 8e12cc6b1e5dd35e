//===- Managed.cpp - managed memory: attaching, prefetching, advice, range queries ===//
//
// Shared by the runtime and driver APIs. Managed memory is one memory here (the host's on the
// host device; memory both sides reach on HSA), so attaching and prefetching move nothing and
// advice changes nothing: each is checked, remembered and reported back by the range queries
// as CUDA defines them. The runtime and the driver number advice, attributes and location
// types alike.

#include "Driver.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <set>

using namespace llvm;
using namespace ptx2amd;
using namespace ptx2amd::runtime;

namespace {

constexpr int LocationNone = 0, LocationDevice = 1, LocationHost = 2;
/// cudaCpuDeviceId and cudaInvalidDeviceId, how the older attributes name the host and none.
constexpr int CpuDeviceId = -1, InvalidDeviceId = -2;

struct Hints {
  bool ReadMostly = false;
  MemLocation Preferred, LastPrefetch;
  std::set<int> AccessedBy; ///< device ids; the host as CpuDeviceId
};

struct HintTable {
  std::mutex Mutex;
  std::map<uintptr_t, Hints> ByAllocation; ///< by the managed allocation's start
};
HintTable &hints() {
  static HintTable *T = new HintTable;
  return *T;
}

/// The managed allocation that holds [\p Ptr, \p Ptr + \p Bytes) (Bytes 0: from Ptr to its end).
cudaError_t managedRange(const void *Ptr, size_t &Bytes, uintptr_t &Start) {
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  auto A = findAllocation(*C, Ptr);
  if (!A || A->second.Kind != loader::MemoryKind::Managed)
    return fail(cudaErrorInvalidValue, formatv("{0} is not managed memory", Ptr).str());
  const uintptr_t End = A->first + A->second.Bytes;
  if (Bytes == 0)
    Bytes = End - uintptr_t(Ptr);
  if (uintptr_t(Ptr) + Bytes > End)
    return fail(cudaErrorInvalidValue,
                formatv("{0} bytes at {1} go past the managed allocation", Bytes, Ptr).str());
  Start = A->first;
  return cudaSuccess;
}

cudaError_t checkLocation(MemLocation L) {
  if (L.Type == LocationDevice && L.Id == 0)
    return cudaSuccess;
  if (L.Type == LocationHost)
    return cudaSuccess;
  return fail(cudaErrorInvalidDevice, formatv("memory location ({0}, {1})", L.Type, L.Id).str());
}

int deviceIdOf(MemLocation L) {
  return L.Type == LocationDevice ? L.Id : L.Type == LocationHost ? CpuDeviceId : InvalidDeviceId;
}

template <typename T> cudaError_t put(void *Data, size_t DataSize, T Value) {
  if (DataSize < sizeof Value)
    return fail(cudaErrorInvalidValue);
  std::memcpy(Data, &Value, sizeof Value);
  return cudaSuccess;
}

} // namespace

namespace ptx2amd::runtime {

cudaError_t attachManaged(cudaStream_t S, const void *Ptr, size_t Bytes, unsigned Flags) {
  if (Flags != 1 && Flags != 2 && Flags != 4) // global, host, single stream
    return fail(cudaErrorInvalidValue, formatv("attach flags {0}", Flags).str());
  unsigned StreamFlags;
  if (cudaError_t E = streamFlags(S, StreamFlags))
    return E;
  uintptr_t Start;
  return managedRange(Ptr, Bytes, Start);
}

cudaError_t prefetchManaged(const void *Ptr, size_t Bytes, MemLocation To, cudaStream_t S) {
  unsigned StreamFlags;
  if (cudaError_t E = streamFlags(S, StreamFlags))
    return E;
  if (cudaError_t E = checkLocation(To))
    return E;
  uintptr_t Start;
  if (cudaError_t E = managedRange(Ptr, Bytes, Start))
    return E;
  std::lock_guard<std::mutex> Lock(hints().Mutex);
  hints().ByAllocation[Start].LastPrefetch = To;
  return cudaSuccess;
}

cudaError_t adviseManaged(const void *Ptr, size_t Bytes, int Advice, MemLocation L) {
  if (Advice < 1 || Advice > 6)
    return fail(cudaErrorInvalidValue, formatv("memory advice {0}", Advice).str());
  if (Advice >= 3 && Advice != 4)
    if (cudaError_t E = checkLocation(L))
      return E;
  uintptr_t Start;
  if (cudaError_t E = managedRange(Ptr, Bytes, Start))
    return E;
  std::lock_guard<std::mutex> Lock(hints().Mutex);
  Hints &H = hints().ByAllocation[Start];
  switch (Advice) {
  case 1:
  case 2:
    H.ReadMostly = Advice == 1;
    break;
  case 3:
    H.Preferred = L;
    break;
  case 4:
    H.Preferred = {};
    break;
  case 5:
    H.AccessedBy.insert(deviceIdOf(L));
    break;
  case 6:
    H.AccessedBy.erase(deviceIdOf(L));
    break;
  }
  return cudaSuccess;
}

cudaError_t managedRangeAttribute(void *Data, size_t DataSize, int Attribute, const void *Ptr,
                                  size_t Bytes) {
  if (!Data || !Bytes)
    return fail(cudaErrorInvalidValue);
  uintptr_t Start;
  if (cudaError_t E = managedRange(Ptr, Bytes, Start))
    return E;
  Hints H;
  {
    std::lock_guard<std::mutex> Lock(hints().Mutex);
    auto It = hints().ByAllocation.find(Start);
    if (It != hints().ByAllocation.end())
      H = It->second;
  }
  switch (Attribute) {
  case 1: // read mostly
    return put(Data, DataSize, int(H.ReadMostly));
  case 2: // preferred location as a device id
    return put(Data, DataSize, deviceIdOf(H.Preferred));
  case 3: { // accessed by: the device ids, then cudaInvalidDeviceId
    if (DataSize % 4)
      return fail(cudaErrorInvalidValue);
    size_t Slots = DataSize / 4, I = 0;
    auto *Out = static_cast<int *>(Data);
    for (int Id : H.AccessedBy)
      if (I < Slots)
        Out[I++] = Id;
    std::fill(Out + I, Out + Slots, InvalidDeviceId);
    return cudaSuccess;
  }
  case 4: // last prefetch location as a device id
    return put(Data, DataSize, deviceIdOf(H.LastPrefetch));
  case 5:
    return put(Data, DataSize, H.Preferred.Type);
  case 6:
    return put(Data, DataSize, H.Preferred.Type == LocationNone ? 0 : H.Preferred.Id);
  case 7:
    return put(Data, DataSize, H.LastPrefetch.Type);
  case 8:
    return put(Data, DataSize, H.LastPrefetch.Type == LocationNone ? 0 : H.LastPrefetch.Id);
  default:
    return fail(cudaErrorInvalidValue, formatv("memory range attribute {0}", Attribute).str());
  }
}

void forgetManaged(uintptr_t Start) {
  std::lock_guard<std::mutex> Lock(hints().Mutex);
  hints().ByAllocation.erase(Start);
}

} // namespace ptx2amd::runtime

//===-- the driver API -----------------------------------------------------===//

extern "C" {

CUresult cuStreamAttachMemAsync(CUstream Stream, CUdeviceptr Ptr, size_t Bytes, unsigned Flags) {
  return driverCall([&] {
    return attachManaged(Stream, reinterpret_cast<const void *>(uintptr_t(Ptr)), Bytes, Flags);
  });
}

CUresult cuMemPrefetchAsync_v2(CUdeviceptr Ptr, size_t Bytes, MemLocation To, unsigned Flags,
                               CUstream Stream) {
  return driverCall([&] {
    if (Flags)
      return fail(cudaErrorInvalidValue);
    return prefetchManaged(reinterpret_cast<const void *>(uintptr_t(Ptr)), Bytes, To, Stream);
  });
}

// CUDA 8's: a device ordinal, CU_DEVICE_CPU (-1) for the host.
CUresult cuMemPrefetchAsync(CUdeviceptr Ptr, size_t Bytes, CUdevice Device, CUstream Stream) {
  MemLocation To{Device == -1 ? LocationHost : LocationDevice, Device == -1 ? 0 : Device};
  return cuMemPrefetchAsync_v2(Ptr, Bytes, To, 0, Stream);
}

CUresult cuMemAdvise_v2(CUdeviceptr Ptr, size_t Bytes, int Advice, MemLocation L) {
  return driverCall([&] {
    return adviseManaged(reinterpret_cast<const void *>(uintptr_t(Ptr)), Bytes, Advice, L);
  });
}

CUresult cuMemAdvise(CUdeviceptr Ptr, size_t Bytes, int Advice, CUdevice Device) {
  MemLocation L{Device == -1 ? LocationHost : LocationDevice, Device == -1 ? 0 : Device};
  return cuMemAdvise_v2(Ptr, Bytes, Advice, L);
}

CUresult cuMemRangeGetAttribute(void *Data, size_t DataSize, int Attribute, CUdeviceptr Ptr,
                                size_t Bytes) {
  return driverCall([&] {
    return managedRangeAttribute(Data, DataSize, Attribute,
                                 reinterpret_cast<const void *>(uintptr_t(Ptr)), Bytes);
  });
}

CUresult cuMemRangeGetAttributes(void **Data, size_t *DataSizes, int *Attributes, size_t Count,
                                 CUdeviceptr Ptr, size_t Bytes) {
  return driverCall([&] {
    if (!Data || !DataSizes || !Attributes || !Count)
      return fail(cudaErrorInvalidValue);
    for (size_t I = 0; I < Count; ++I)
      if (cudaError_t E =
              managedRangeAttribute(Data[I], DataSizes[I], Attributes[I],
                                    reinterpret_cast<const void *>(uintptr_t(Ptr)), Bytes))
        return E;
    return cudaSuccess;
  });
}

} // extern "C"
