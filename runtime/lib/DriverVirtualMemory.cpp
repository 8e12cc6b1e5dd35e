//===- DriverVirtualMemory.cpp - the driver API: virtual memory management ===//
//
// cuMemAddressReserve, cuMemCreate, cuMemMap, cuMemSetAccess and the rest, over the device's
// reservations, physical memory and mappings (loader::Device). Each mapping is an allocation of
// the runtime (Allocation::Mapped), so it is device memory to cudaMemcpyDefault, kernels' copies
// and pointer attributes. An allocation handle is its physical memory's record here, which
// lives while a handle reference (cuMemCreate, cuMemImportFromShareableHandle,
// cuMemRetainAllocationHandle; cuMemRelease takes one back) or a mapping holds it, as in CUDA.

#include "Driver.h"

#include "llvm/Support/FormatVariadic.h"

#include <map>
#include <memory>
#include <unordered_map>

using namespace llvm;
using namespace ptx2amd;
using namespace ptx2amd::runtime;

namespace {

struct PhysicalRecord {
  std::unique_ptr<loader::PhysicalMemory> Memory;
  size_t Bytes = 0;
  int HandleTypes = 0;   ///< CUmemAllocationHandleType bits it may be exported as
  bool Imported = false; ///< another handle's memory: not counted again as allocated
  unsigned HandleRefs = 1;
  unsigned Mappings = 0;
};

struct MappingRecord {
  size_t Bytes = 0;
  PhysicalRecord *Physical = nullptr;
  int Access = 0; ///< CUmemAccess_flags of device 0: none until cuMemSetAccess
};

struct VmmState {
  std::mutex Mutex; ///< taken before the context's
  std::map<uintptr_t, size_t> Reservations;
  std::map<uintptr_t, MappingRecord> Mappings; ///< by start
  std::unordered_map<CUmemGenericAllocationHandle, std::unique_ptr<PhysicalRecord>> Handles;
};

// Never destroyed, as the context is not.
VmmState &vmm() {
  static auto *S = new VmmState;
  return *S;
}

CUmemGenericAllocationHandle handleOf(const PhysicalRecord *R) {
  return CUmemGenericAllocationHandle(uintptr_t(R));
}

/// The context and the granule of a device with virtual memory management.
cudaError_t vmmDevice(Context *&C, size_t &Granule) {
  if (cudaError_t E = context(C))
    return E;
  Granule = C->Dev.properties().VirtualMemoryGranule;
  if (!Granule)
    return fail(cudaErrorNotSupported, "the device has no virtual memory management");
  return cudaSuccess;
}

constexpr int AccessRead = 1, AccessReadWrite = 3;

cudaError_t checkProp(const CUmemAllocationProp *P, const loader::DeviceProperties &D) {
  if (!P)
    return fail(cudaErrorInvalidValue);
  if (P->type != CuMemAllocationTypePinned)
    return fail(cudaErrorInvalidValue,
                formatv("allocation type {0}: pinned (1) only", P->type).str());
  if (P->location.type != CuMemLocationTypeDevice)
    return fail(cudaErrorNotSupported,
                formatv("memory at location type {0}: device memory only", P->location.type).str());
  if (cudaError_t E = checkDevice(P->location.id))
    return E;
  const int Supported = D.ShareableFileDescriptors ? CuMemHandleTypePosixFileDescriptor : 0;
  if (P->requestedHandleTypes & ~Supported)
    return fail(cudaErrorNotSupported, formatv("shareable handle types {0:x} (supported: {1:x})",
                                               P->requestedHandleTypes, Supported)
                                           .str());
  // Compression is a request that the allocation's properties answer (never compressed here).
  if (P->allocFlags.gpuDirectRDMACapable || P->allocFlags.usage)
    return fail(cudaErrorNotSupported, "GPUDirect RDMA and tile pool or decompression usage");
  return cudaSuccess;
}

/// The record of a live handle (one that a handle reference holds).
PhysicalRecord *findHandle(VmmState &V, CUmemGenericAllocationHandle H) {
  auto It = V.Handles.find(H);
  return It != V.Handles.end() && It->second->HandleRefs ? It->second.get() : nullptr;
}

cudaError_t noHandle(CUmemGenericAllocationHandle H) {
  return fail(cudaErrorInvalidValue, formatv("no allocation handle {0:x}", H).str());
}

/// The mapping that \p P lies in.
std::map<uintptr_t, MappingRecord>::iterator findMapping(VmmState &V, uintptr_t P) {
  auto It = V.Mappings.upper_bound(P);
  if (It == V.Mappings.begin())
    return V.Mappings.end();
  --It;
  return P - It->first < It->second.Bytes ? It : V.Mappings.end();
}

/// Frees \p R's memory once nothing holds it (V's mutex held).
void forgetIfUnused(VmmState &V, Context &C, PhysicalRecord *R) {
  if (R->HandleRefs || R->Mappings)
    return;
  if (!R->Imported) {
    std::lock_guard<std::mutex> Lock(C.Mutex);
    C.DeviceBytes -= R->Bytes;
  }
  V.Handles.erase(handleOf(R));
}

/// Unmaps \p It (V's mutex held; the device's work is done).
cudaError_t unmapOne(VmmState &V, Context &C, std::map<uintptr_t, MappingRecord>::iterator It) {
  if (Error E = C.Dev.unmap(reinterpret_cast<void *>(It->first), It->second.Bytes))
    return fail(cudaErrorUnknown, std::move(E));
  {
    std::lock_guard<std::mutex> Lock(C.Mutex);
    C.Allocations.erase(It->first);
  }
  PhysicalRecord *R = It->second.Physical;
  V.Mappings.erase(It);
  --R->Mappings;
  forgetIfUnused(V, C, R);
  return cudaSuccess;
}

cudaError_t misaligned(const char *What, uint64_t Value, size_t Granule) {
  return fail(cudaErrorInvalidValue,
              formatv("{0} {1:x} is not a multiple of the allocation granularity {2:x}", What,
                      Value, Granule)
                  .str());
}

} // namespace

namespace ptx2amd::runtime {

// Reserved addresses that nothing is mapped at, or mapped without access, would fault the
// host's copy (the host device) or the DMA engine: refused here instead.
cudaError_t checkMappedAccess(const void *P, size_t Bytes, bool Write) {
  VmmState &V = vmm();
  std::lock_guard<std::mutex> Lock(V.Mutex);
  if (V.Reservations.empty() || !Bytes)
    return cudaSuccess;
  const uintptr_t Begin = uintptr_t(P), End = Begin + Bytes;
  auto Res = V.Reservations.upper_bound(Begin);
  bool Reserved =
      Res != V.Reservations.begin() && Begin - std::prev(Res)->first < std::prev(Res)->second;
  Reserved |= Res != V.Reservations.end() && Res->first < End;
  if (!Reserved)
    return cudaSuccess;
  for (uintptr_t At = Begin; At < End;) {
    auto It = findMapping(V, At);
    if (It == V.Mappings.end())
      return fail(cudaErrorInvalidValue,
                  formatv("{0:x} is reserved but not mapped (cuMemMap)", At).str());
    if (It->second.Access != AccessReadWrite && (Write || It->second.Access != AccessRead))
      return fail(cudaErrorInvalidValue,
                  formatv("{0:x} is mapped without {1} access (cuMemSetAccess)", At,
                          Write ? "write" : "read")
                      .str());
    At = It->first + It->second.Bytes;
  }
  return cudaSuccess;
}

bool mappingAttributes(const void *P, int &HandleTypes, int &Access) {
  VmmState &V = vmm();
  std::lock_guard<std::mutex> Lock(V.Mutex);
  auto It = findMapping(V, uintptr_t(P));
  if (It == V.Mappings.end())
    return false;
  HandleTypes = It->second.Physical->HandleTypes;
  Access = It->second.Access;
  return true;
}

/// An entry point of virtual memory management: \p Body runs with the context and granule of a
/// device that has it.
template <typename BodyT> CUresult vmmEntry(BodyT &&Body) {
  return inContext([&] {
    Context *C = nullptr;
    size_t Granule = 0;
    if (cudaError_t E = vmmDevice(C, Granule))
      return E;
    return Body(*C, Granule);
  });
}

} // namespace ptx2amd::runtime

extern "C" {

CUresult cuMemGetAllocationGranularity(size_t *Granularity, const CUmemAllocationProp *Prop,
                                       int Option) {
  return vmmEntry([&](Context &C, size_t Granule) {
    if (!Granularity || (Option != 0 && Option != 1))
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = checkProp(Prop, C.Dev.properties()))
      return E;
    // 0: CU_MEM_ALLOC_GRANULARITY_MINIMUM, 1: ..._RECOMMENDED.
    *Granularity = Option ? C.Dev.properties().VirtualMemoryRecommendedGranule : Granule;
    return cudaSuccess;
  });
}

CUresult cuMemCreate(CUmemGenericAllocationHandle *Handle, size_t Bytes,
                     const CUmemAllocationProp *Prop, unsigned long long Flags) {
  return vmmEntry([&](Context &C, size_t Granule) {
    if (!Handle || Flags)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = checkProp(Prop, C.Dev.properties()))
      return E;
    if (!Bytes || Bytes % Granule)
      return misaligned("size", Bytes, Granule);
    auto M = C.Dev.createPhysical(Bytes);
    if (!M)
      return fail(cudaErrorMemoryAllocation, M.takeError());
    auto R = std::make_unique<PhysicalRecord>();
    R->Memory = std::move(*M);
    R->Bytes = Bytes;
    R->HandleTypes = Prop->requestedHandleTypes;
    VmmState &V = vmm();
    std::lock_guard<std::mutex> Lock(V.Mutex);
    {
      std::lock_guard<std::mutex> CLock(C.Mutex);
      C.DeviceBytes += Bytes;
    }
    *Handle = handleOf(R.get());
    V.Handles.emplace(*Handle, std::move(R));
    return cudaSuccess;
  });
}

// The memory goes when its last mapping does.
CUresult cuMemRelease(CUmemGenericAllocationHandle Handle) {
  return vmmEntry([&](Context &C, size_t) {
    VmmState &V = vmm();
    std::lock_guard<std::mutex> Lock(V.Mutex);
    PhysicalRecord *R = findHandle(V, Handle);
    if (!R)
      return noHandle(Handle);
    --R->HandleRefs;
    forgetIfUnused(V, C, R);
    return cudaSuccess;
  });
}

CUresult cuMemAddressReserve(CUdeviceptr *Ptr, size_t Bytes, size_t Alignment, CUdeviceptr Addr,
                             unsigned long long Flags) {
  return vmmEntry([&](Context &C, size_t Granule) {
    if (!Ptr || Flags || (Alignment & (Alignment - 1)))
      return fail(cudaErrorInvalidValue);
    if (!Bytes || Bytes % Granule)
      return misaligned("size", Bytes, Granule);
    if (Addr % Granule)
      return misaligned("address", Addr, Granule);
    auto P = C.Dev.reserveAddressRange(Bytes, Alignment, pointer(Addr));
    if (!P)
      return fail(cudaErrorMemoryAllocation, P.takeError());
    VmmState &V = vmm();
    std::lock_guard<std::mutex> Lock(V.Mutex);
    V.Reservations[uintptr_t(*P)] = Bytes;
    *Ptr = CUdeviceptr(uintptr_t(*P));
    return cudaSuccess;
  });
}

// What is still mapped in the range is unmapped first.
CUresult cuMemAddressFree(CUdeviceptr Ptr, size_t Bytes) {
  return vmmEntry([&](Context &C, size_t) {
    VmmState &V = vmm();
    std::lock_guard<std::mutex> Lock(V.Mutex);
    auto It = V.Reservations.find(uintptr_t(Ptr));
    if (It == V.Reservations.end() || It->second != Bytes)
      return fail(cudaErrorInvalidValue,
                  formatv("{0:x} bytes at {1:x} are not a range of cuMemAddressReserve", Bytes,
                          uint64_t(Ptr))
                      .str());
    auto First = V.Mappings.lower_bound(uintptr_t(Ptr));
    if (First != V.Mappings.end() && First->first < uintptr_t(Ptr) + Bytes) {
      if (cudaError_t E = synchronizeAll(C))
        return E;
      while (First != V.Mappings.end() && First->first < uintptr_t(Ptr) + Bytes) {
        auto Next = std::next(First);
        if (cudaError_t E = unmapOne(V, C, First))
          return E;
        First = Next;
      }
    }
    if (Error E = C.Dev.freeAddressRange(pointer(Ptr), Bytes))
      return fail(cudaErrorUnknown, std::move(E));
    V.Reservations.erase(It);
    return cudaSuccess;
  });
}

CUresult cuMemMap(CUdeviceptr Ptr, size_t Bytes, size_t Offset, CUmemGenericAllocationHandle Handle,
                  unsigned long long Flags) {
  return vmmEntry([&](Context &C, size_t Granule) {
    if (Flags)
      return fail(cudaErrorInvalidValue, formatv("cuMemMap flags {0:x}", Flags).str());
    if (Ptr % Granule)
      return misaligned("address", Ptr, Granule);
    if (!Bytes || Bytes % Granule)
      return misaligned("size", Bytes, Granule);
    if (Offset % Granule)
      return misaligned("offset", Offset, Granule);
    VmmState &V = vmm();
    std::lock_guard<std::mutex> Lock(V.Mutex);
    PhysicalRecord *R = findHandle(V, Handle);
    if (!R)
      return noHandle(Handle);
    if (Offset > R->Bytes || Bytes > R->Bytes - Offset)
      return fail(cudaErrorInvalidValue, formatv("{0:x} bytes at offset {1:x} of an allocation "
                                                 "of {2:x}",
                                                 Bytes, Offset, R->Bytes)
                                             .str());
    const uintptr_t Begin = uintptr_t(Ptr);
    auto Res = V.Reservations.upper_bound(Begin);
    if (Res == V.Reservations.begin() || Begin - std::prev(Res)->first >= std::prev(Res)->second ||
        Bytes > std::prev(Res)->second - (Begin - std::prev(Res)->first))
      return fail(
          cudaErrorInvalidValue,
          formatv("{0:x} bytes at {1:x} are not inside one reserved range", Bytes, Begin).str());
    auto Next = V.Mappings.lower_bound(Begin);
    bool Overlaps = (Next != V.Mappings.end() && Next->first < Begin + Bytes) ||
                    (Next != V.Mappings.begin() &&
                     std::prev(Next)->first + std::prev(Next)->second.Bytes > Begin);
    if (Overlaps)
      return fail(cudaErrorInvalidValue,
                  formatv("{0:x} bytes at {1:x} are already mapped in part", Bytes, Begin).str());
    if (Error E = C.Dev.map(pointer(Ptr), Bytes, *R->Memory, Offset))
      return fail(cudaErrorInvalidValue, std::move(E));
    V.Mappings[Begin] = {Bytes, R, 0};
    ++R->Mappings;
    std::lock_guard<std::mutex> CLock(C.Mutex);
    Allocation A;
    A.Bytes = Bytes;
    A.Kind = loader::MemoryKind::Device;
    A.Mapped = true;
    C.Allocations[Begin] = A;
    return cudaSuccess;
  });
}

// The range covers whole mappings: a part of one is not unmapped.
CUresult cuMemUnmap(CUdeviceptr Ptr, size_t Bytes) {
  return vmmEntry([&](Context &C, size_t) {
    VmmState &V = vmm();
    std::lock_guard<std::mutex> Lock(V.Mutex);
    const uintptr_t Begin = uintptr_t(Ptr), End = Begin + Bytes;
    auto First = findMapping(V, Begin);
    if (!Bytes || First == V.Mappings.end() || First->first != Begin)
      return fail(cudaErrorInvalidValue,
                  formatv("no mapping starts at {0:x}", uint64_t(Ptr)).str());
    auto Last = First;
    while (Last != V.Mappings.end() && Last->first < End) {
      if (Last->first + Last->second.Bytes > End)
        return fail(cudaErrorInvalidValue,
                    formatv("{0:x} bytes at {1:x} end inside a mapping", Bytes, Begin).str());
      ++Last;
    }
    // Kernels and copies may still use it.
    if (cudaError_t E = synchronizeAll(C))
      return E;
    while (First != Last) {
      auto Next = std::next(First);
      if (cudaError_t E = unmapOne(V, C, First))
        return E;
      First = Next;
    }
    return cudaSuccess;
  });
}

CUresult cuMemSetAccess(CUdeviceptr Ptr, size_t Bytes, const CUmemAccessDesc *Desc, size_t Count) {
  return vmmEntry([&](Context &C, size_t Granule) {
    if (!Desc || !Count)
      return fail(cudaErrorInvalidValue);
    int Flags = 0;
    for (size_t I = 0; I < Count; ++I) {
      if (Desc[I].location.type != CuMemLocationTypeDevice)
        return fail(
            cudaErrorInvalidValue,
            formatv("access from location type {0}: devices only", Desc[I].location.type).str());
      if (cudaError_t E = checkDevice(Desc[I].location.id))
        return E;
      if (Desc[I].flags != 0 && Desc[I].flags != AccessRead && Desc[I].flags != AccessReadWrite)
        return fail(cudaErrorInvalidValue, formatv("access flags {0}", Desc[I].flags).str());
      Flags = Desc[I].flags; // one device: the last word is its
    }
    if (Ptr % Granule)
      return misaligned("address", Ptr, Granule);
    if (!Bytes || Bytes % Granule)
      return misaligned("size", Bytes, Granule);
    VmmState &V = vmm();
    std::lock_guard<std::mutex> Lock(V.Mutex);
    // Mappings that follow each other without a gap, from the first to the end of the range.
    const uintptr_t Begin = uintptr_t(Ptr), End = Begin + Bytes;
    std::vector<std::map<uintptr_t, MappingRecord>::iterator> Covered;
    for (uintptr_t At = Begin; At < End;) {
      auto It = findMapping(V, At);
      if (It == V.Mappings.end())
        return fail(cudaErrorInvalidValue, formatv("{0:x} is not mapped", At).str());
      Covered.push_back(It);
      At = It->first + It->second.Bytes;
    }
    for (auto It : Covered) {
      const uintptr_t From = std::max(Begin, It->first);
      const uintptr_t To = std::min(End, It->first + It->second.Bytes);
      if (Error E = C.Dev.setAccess(reinterpret_cast<void *>(From), To - From, Flags != 0,
                                    Flags == AccessReadWrite))
        return fail(cudaErrorInvalidValue, std::move(E));
      It->second.Access = Flags;
    }
    return cudaSuccess;
  });
}

CUresult cuMemGetAccess(unsigned long long *Flags, const CUmemLocation *Location, CUdeviceptr Ptr) {
  return vmmEntry([&](Context &C, size_t) {
    if (!Flags || !Location || Location->type != CuMemLocationTypeDevice)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = checkDevice(Location->id))
      return E;
    VmmState &V = vmm();
    std::lock_guard<std::mutex> Lock(V.Mutex);
    auto It = findMapping(V, uintptr_t(Ptr));
    if (It == V.Mappings.end())
      return fail(cudaErrorInvalidValue, formatv("{0:x} is not mapped", uint64_t(Ptr)).str());
    *Flags = (unsigned long long)It->second.Access;
    return cudaSuccess;
  });
}

CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *Handle, void *Addr) {
  return vmmEntry([&](Context &C, size_t) {
    if (!Handle)
      return fail(cudaErrorInvalidValue);
    VmmState &V = vmm();
    std::lock_guard<std::mutex> Lock(V.Mutex);
    auto It = findMapping(V, uintptr_t(Addr));
    if (It == V.Mappings.end())
      return fail(cudaErrorInvalidValue, formatv("{0} is not mapped", Addr).str());
    ++It->second.Physical->HandleRefs;
    *Handle = handleOf(It->second.Physical);
    return cudaSuccess;
  });
}

CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *Prop,
                                                CUmemGenericAllocationHandle Handle) {
  return vmmEntry([&](Context &C, size_t) {
    if (!Prop)
      return fail(cudaErrorInvalidValue);
    VmmState &V = vmm();
    std::lock_guard<std::mutex> Lock(V.Mutex);
    PhysicalRecord *R = findHandle(V, Handle);
    if (!R)
      return noHandle(Handle);
    *Prop = {};
    Prop->type = CuMemAllocationTypePinned;
    Prop->requestedHandleTypes = R->HandleTypes;
    Prop->location = {CuMemLocationTypeDevice, 0};
    return cudaSuccess;
  });
}

// A POSIX file descriptor, new at each export and the caller's to close.
CUresult cuMemExportToShareableHandle(void *Shareable, CUmemGenericAllocationHandle Handle,
                                      int Type, unsigned long long Flags) {
  return vmmEntry([&](Context &C, size_t) {
    if (!Shareable || Flags)
      return fail(cudaErrorInvalidValue);
    if (Type != CuMemHandleTypePosixFileDescriptor)
      return fail(cudaErrorNotSupported,
                  formatv("shareable handle type {0}: POSIX file descriptors only", Type).str());
    VmmState &V = vmm();
    std::lock_guard<std::mutex> Lock(V.Mutex);
    PhysicalRecord *R = findHandle(V, Handle);
    if (!R)
      return noHandle(Handle);
    if (!(R->HandleTypes & Type))
      return fail(cudaErrorInvalidValue,
                  "the allocation was not created exportable as a file descriptor");
    auto Fd = C.Dev.exportPhysical(*R->Memory);
    if (!Fd)
      return fail(cudaErrorUnknown, Fd.takeError());
    *static_cast<int *>(Shareable) = *Fd;
    return cudaSuccess;
  });
}

// The descriptor comes in the pointer's bits, as CUDA passes it; it stays the caller's.
CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *Handle, void *OsHandle,
                                        int Type) {
  return vmmEntry([&](Context &C, size_t) {
    if (!Handle)
      return fail(cudaErrorInvalidValue);
    if (Type != CuMemHandleTypePosixFileDescriptor)
      return fail(cudaErrorNotSupported,
                  formatv("shareable handle type {0}: POSIX file descriptors only", Type).str());
    const intptr_t Fd = reinterpret_cast<intptr_t>(OsHandle);
    if (Fd < 0 || Fd > INT32_MAX)
      return fail(cudaErrorInvalidValue, formatv("file descriptor {0}", Fd).str());
    auto M = C.Dev.importPhysical(int(Fd));
    if (!M)
      return fail(cudaErrorInvalidValue, M.takeError());
    auto R = std::make_unique<PhysicalRecord>();
    R->Bytes = (*M)->size();
    R->Memory = std::move(*M);
    R->HandleTypes = CuMemHandleTypePosixFileDescriptor;
    R->Imported = true;
    VmmState &V = vmm();
    std::lock_guard<std::mutex> Lock(V.Mutex);
    *Handle = handleOf(R.get());
    V.Handles.emplace(*Handle, std::move(R));
    return cudaSuccess;
  });
}

} // extern "C"
