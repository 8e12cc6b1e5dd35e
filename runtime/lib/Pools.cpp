//===- Pools.cpp - stream-ordered allocation and memory pools, for both APIs ===//
//
// A pool hands out device memory and keeps what is freed into it for later allocations of the
// same size, up to its release threshold (cudaMemPoolAttrReleaseThreshold, default 0: freed
// memory goes back at the next synchronisation, as CUDA's does; here at once). Allocation in
// stream order needs no waiting: the memory is the device's at once. A free in stream order
// waits for the stream's earlier work, which may still use it, before the block is reused or
// released. Pools are device pools of device 0; access from the one device is always allowed.

#include "Driver.h"
#include "Graphs.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <set>

using namespace llvm;
using namespace ptx2amd;
using namespace ptx2amd::runtime;

namespace {

struct Pool {
  std::mutex Mutex;
  uint64_t ReleaseThreshold = 0;
  bool ReuseFollowEvents = true, ReuseOpportunistic = true, ReuseInternal = true;
  std::map<void *, size_t> Used;            ///< handed out, by address
  std::multimap<size_t, void *> Free;       ///< kept for reuse, by size
  uint64_t ReservedBytes = 0, ReservedHigh = 0, UsedBytes = 0, UsedHigh = 0;
};

struct PoolTable {
  std::mutex Mutex;
  std::set<Pool *> Live;
  Pool *Default = nullptr, *Current = nullptr;
  std::map<void *, Pool *> Owner; ///< allocation -> its pool
};
PoolTable &pools() {
  static PoolTable *T = [] {
    auto *T = new PoolTable;
    T->Default = T->Current = new Pool;
    T->Live.insert(T->Default);
    return T;
  }();
  return *T;
}

cudaError_t poolOf(void *Handle, Pool *&Out) {
  PoolTable &T = pools();
  std::lock_guard<std::mutex> Lock(T.Mutex);
  auto *P = static_cast<Pool *>(Handle);
  if (!T.Live.count(P))
    return fail(cudaErrorInvalidValue, formatv("no memory pool {0}", Handle).str());
  Out = P;
  return cudaSuccess;
}

/// Gives back \p P's kept blocks until it keeps at most \p Keep bytes.
cudaError_t trim(Pool &P, uint64_t Keep) {
  std::vector<void *> Release;
  {
    std::lock_guard<std::mutex> Lock(P.Mutex);
    for (auto It = P.Free.begin(); It != P.Free.end() && P.ReservedBytes - P.UsedBytes > Keep;) {
      P.ReservedBytes -= It->first;
      Release.push_back(It->second);
      It = P.Free.erase(It);
    }
  }
  {
    PoolTable &T = pools();
    std::lock_guard<std::mutex> Lock(T.Mutex);
    for (void *B : Release)
      T.Owner.erase(B);
  }
  for (void *B : Release)
    if (cudaError_t E = release(B, false))
      return E;
  return cudaSuccess;
}

constexpr size_t Granule = 256; // pool blocks are reused by size in these steps

} // namespace

namespace ptx2amd::runtime {

void *defaultMemPool() { return pools().Default; }

cudaError_t currentMemPool(void **Out) {
  if (!Out)
    return fail(cudaErrorInvalidValue);
  PoolTable &T = pools();
  std::lock_guard<std::mutex> Lock(T.Mutex);
  *Out = T.Current;
  return cudaSuccess;
}

cudaError_t setCurrentMemPool(void *Handle) {
  Pool *P = nullptr;
  if (cudaError_t E = poolOf(Handle, P))
    return E;
  PoolTable &T = pools();
  std::lock_guard<std::mutex> Lock(T.Mutex);
  T.Current = P;
  return cudaSuccess;
}

cudaError_t createMemPool(void **Out, const MemPoolProps *Props) {
  if (!Out || !Props)
    return fail(cudaErrorInvalidValue);
  if (Props->AllocType != 1) // pinned
    return fail(cudaErrorInvalidValue, "a pool's allocation type must be pinned");
  if (Props->Location.Type != 1 || Props->Location.Id != 0)
    return fail(cudaErrorNotSupported, "pools of memory other than device 0's");
  if (Props->HandleTypes != 0)
    return fail(cudaErrorNotSupported, "pools whose memory is exported to shareable handles");
  auto *P = new Pool;
  PoolTable &T = pools();
  std::lock_guard<std::mutex> Lock(T.Mutex);
  T.Live.insert(P);
  *Out = P;
  return cudaSuccess;
}

cudaError_t destroyMemPool(void *Handle) {
  Pool *P = nullptr;
  if (cudaError_t E = poolOf(Handle, P))
    return E;
  PoolTable &T = pools();
  if (P == T.Default)
    return fail(cudaErrorInvalidValue, "the device's default pool is not destroyed");
  // Memory still allocated from it stays valid until freed (CUDA's rule); kept blocks go now.
  if (cudaError_t E = trim(*P, 0))
    return E;
  std::lock_guard<std::mutex> Lock(T.Mutex);
  if (T.Current == P)
    T.Current = T.Default;
  T.Live.erase(P);
  if (P->Used.empty())
    delete P;
  return cudaSuccess;
}

cudaError_t allocateAsync(void **Ptr, size_t Bytes, void *Handle, cudaStream_t S) {
  if (!Ptr)
    return fail(cudaErrorInvalidValue);
  unsigned StreamFlags;
  if (cudaError_t E = streamFlags(S, StreamFlags))
    return E;
  if (isCapturing(S)) {
    GraphNode Proto;
    Proto.Kind = NodeKind::MemAlloc;
    if (cudaError_t E = makeGraphMemory(Bytes, Proto.Memory))
      return E;
    *Ptr = Proto.Memory->Ptr;
    return captureNode(S, Proto);
  }
  Pool *P = nullptr;
  if (!Handle && currentMemPool(&Handle))
    return cudaErrorInvalidValue;
  if (cudaError_t E = poolOf(Handle, P))
    return E;
  const size_t Size = std::max<size_t>(1, (Bytes + Granule - 1) / Granule) * Granule;
  void *Block = nullptr;
  {
    std::lock_guard<std::mutex> Lock(P->Mutex);
    if (auto It = P->Free.find(Size); It != P->Free.end()) {
      Block = It->second;
      P->Free.erase(It);
    }
  }
  if (!Block) {
    if (cudaError_t E = allocate(&Block, Size, loader::MemoryKind::Device))
      return E;
    {
      PoolTable &T = pools();
      std::lock_guard<std::mutex> Lock(T.Mutex);
      T.Owner[Block] = P;
    }
    std::lock_guard<std::mutex> Lock(P->Mutex);
    P->ReservedBytes += Size;
    P->ReservedHigh = std::max(P->ReservedHigh, P->ReservedBytes);
  }
  std::lock_guard<std::mutex> Lock(P->Mutex);
  P->Used[Block] = Size;
  P->UsedBytes += Size;
  P->UsedHigh = std::max(P->UsedHigh, P->UsedBytes);
  *Ptr = Block;
  return cudaSuccess;
}

cudaError_t freeAsync(void *Ptr, cudaStream_t S) {
  if (!Ptr)
    return cudaSuccess;
  if (isCapturing(S)) {
    GraphNode Proto;
    Proto.Kind = NodeKind::MemFree;
    Proto.FreePtr = Ptr;
    return captureNode(S, Proto);
  }
  Pool *P = nullptr;
  {
    PoolTable &T = pools();
    std::lock_guard<std::mutex> Lock(T.Mutex);
    auto It = T.Owner.find(Ptr);
    if (It != T.Owner.end())
      P = It->second;
  }
  // The stream's earlier work may still use the memory.
  if (cudaError_t E = synchronizeStream(S))
    return E;
  if (!P) // cudaMalloc's memory may be freed in stream order too
    return release(Ptr, false);
  uint64_t Kept;
  {
    std::lock_guard<std::mutex> Lock(P->Mutex);
    auto It = P->Used.find(Ptr);
    if (It == P->Used.end())
      return fail(cudaErrorInvalidValue, formatv("{0} is not allocated", Ptr).str());
    P->UsedBytes -= It->second;
    P->Free.emplace(It->second, Ptr);
    P->Used.erase(It);
    Kept = P->ReleaseThreshold;
  }
  return trim(*P, Kept);
}

cudaError_t trimMemPool(void *Handle, size_t Keep) {
  Pool *P = nullptr;
  if (cudaError_t E = poolOf(Handle, P))
    return E;
  return trim(*P, Keep);
}

cudaError_t memPoolAttribute(void *Handle, int Attribute, void *Value, bool Set) {
  if (!Value)
    return fail(cudaErrorInvalidValue);
  Pool *P = nullptr;
  if (cudaError_t E = poolOf(Handle, P))
    return E;
  std::lock_guard<std::mutex> Lock(P->Mutex);
  auto Flag = [&](bool &F) {
    if (Set)
      F = *static_cast<int *>(Value) != 0;
    else
      *static_cast<int *>(Value) = F;
    return cudaSuccess;
  };
  auto Counter = [&](uint64_t &C, bool Resettable) {
    if (!Set) {
      std::memcpy(Value, &C, sizeof C);
      return cudaSuccess;
    }
    // Only the high-water marks may be set, and only to 0 (a reset to the current value).
    uint64_t V;
    std::memcpy(&V, Value, sizeof V);
    if (!Resettable || V != 0)
      return fail(cudaErrorInvalidValue, formatv("pool attribute {0} set", Attribute).str());
    C = &C == &P->ReservedHigh ? P->ReservedBytes : P->UsedBytes;
    return cudaSuccess;
  };
  switch (Attribute) {
  case 1:
    return Flag(P->ReuseFollowEvents);
  case 2:
    return Flag(P->ReuseOpportunistic);
  case 3:
    return Flag(P->ReuseInternal);
  case 4:
    if (Set)
      std::memcpy(&P->ReleaseThreshold, Value, sizeof P->ReleaseThreshold);
    else
      std::memcpy(Value, &P->ReleaseThreshold, sizeof P->ReleaseThreshold);
    return cudaSuccess;
  case 5:
    return Counter(P->ReservedBytes, false);
  case 6:
    return Counter(P->ReservedHigh, true);
  case 7:
    return Counter(P->UsedBytes, false);
  case 8:
    return Counter(P->UsedHigh, true);
  default:
    return fail(cudaErrorInvalidValue, formatv("pool attribute {0}", Attribute).str());
  }
}

cudaError_t memPoolAccess(void *Handle, const MemLocation *Location, int *Flags) {
  Pool *P = nullptr;
  if (cudaError_t E = poolOf(Handle, P))
    return E;
  if (!Location || !Flags)
    return fail(cudaErrorInvalidValue);
  // The one device reads and writes its pools' memory.
  *Flags = Location->Type == 1 && Location->Id == 0 ? 3 : 0;
  return cudaSuccess;
}

cudaError_t setMemPoolAccess(void *Handle, const MemAccessDesc *Descs, size_t Count) {
  Pool *P = nullptr;
  if (cudaError_t E = poolOf(Handle, P))
    return E;
  if (Count && !Descs)
    return fail(cudaErrorInvalidValue);
  for (size_t I = 0; I < Count; ++I)
    if (Descs[I].Location.Type != 1 || Descs[I].Location.Id != 0)
      return fail(cudaErrorInvalidDevice, "access to a pool from another device");
    else if (Descs[I].Flags != 3)
      return fail(cudaErrorInvalidValue, "the device's own pools stay readable and writable");
  return cudaSuccess;
}

} // namespace ptx2amd::runtime

//===-- the driver API -----------------------------------------------------===//

extern "C" {

CUresult cuDeviceGetDefaultMemPool(void **Pool, CUdevice Device) {
  return driverCall([&] {
    if (!Pool)
      return fail(cudaErrorInvalidValue);
    if (Device != 0)
      return fail(cudaErrorInvalidDevice);
    *Pool = defaultMemPool();
    return cudaSuccess;
  });
}

CUresult cuDeviceGetMemPool(void **Pool, CUdevice Device) {
  return driverCall([&] {
    if (Device != 0)
      return fail(cudaErrorInvalidDevice);
    return currentMemPool(Pool);
  });
}

CUresult cuDeviceSetMemPool(CUdevice Device, void *Pool) {
  return driverCall([&] {
    if (Device != 0)
      return fail(cudaErrorInvalidDevice);
    return setCurrentMemPool(Pool);
  });
}

CUresult cuMemPoolCreate(void **Pool, const MemPoolProps *Props) {
  return driverCall([&] { return createMemPool(Pool, Props); });
}

CUresult cuMemPoolDestroy(void *Pool) {
  return driverCall([&] { return destroyMemPool(Pool); });
}

CUresult cuMemAllocAsync(CUdeviceptr *Ptr, size_t Bytes, CUstream Stream) {
  return driverCall([&] {
    return allocateAsync(reinterpret_cast<void **>(Ptr), Bytes, nullptr, Stream);
  });
}

CUresult cuMemAllocFromPoolAsync(CUdeviceptr *Ptr, size_t Bytes, void *Pool, CUstream Stream) {
  return driverCall([&] {
    if (!Pool)
      return fail(cudaErrorInvalidValue);
    return allocateAsync(reinterpret_cast<void **>(Ptr), Bytes, Pool, Stream);
  });
}

CUresult cuMemFreeAsync(CUdeviceptr Ptr, CUstream Stream) {
  return driverCall(
      [&] { return freeAsync(reinterpret_cast<void *>(uintptr_t(Ptr)), Stream); });
}

CUresult cuMemPoolTrimTo(void *Pool, size_t Keep) {
  return driverCall([&] { return trimMemPool(Pool, Keep); });
}

CUresult cuMemPoolSetAttribute(void *Pool, int Attribute, void *Value) {
  return driverCall([&] { return memPoolAttribute(Pool, Attribute, Value, true); });
}

CUresult cuMemPoolGetAttribute(void *Pool, int Attribute, void *Value) {
  return driverCall([&] { return memPoolAttribute(Pool, Attribute, Value, false); });
}

CUresult cuMemPoolGetAccess(int *Flags, void *Pool, MemLocation *Location) {
  return driverCall([&] { return memPoolAccess(Pool, Location, Flags); });
}

CUresult cuMemPoolSetAccess(void *Pool, const MemAccessDesc *Descs, size_t Count) {
  return driverCall([&] { return setMemPoolAccess(Pool, Descs, Count); });
}

} // extern "C"
