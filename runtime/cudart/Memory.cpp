//===- Memory.cpp - the runtime API's memory functions and device variables ===//
//
// cudaMemcpy is synchronous: it copies on the legacy default stream and waits for it. Device
// variables are named by the host shadows the program registered.

#include "Graphs.h"
#include "Runtime.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace ptx2amd;
using namespace ptx2amd::runtime;

namespace {

cudaError_t toSymbol(const void *Symbol, const void *Src, size_t Bytes, size_t Offset,
                     cudaMemcpyKind Kind, cudaStream_t S, bool Wait) {
  if (Kind != cudaMemcpyHostToDevice && Kind != cudaMemcpyDeviceToDevice &&
      Kind != cudaMemcpyDefault)
    return fail(cudaErrorInvalidMemcpyDirection);
  char *Dst = nullptr;
  if (cudaError_t E = symbolRange(Symbol, Bytes, Offset, Dst))
    return E;
  // A variable is device memory that the allocations do not list.
  if (Kind == cudaMemcpyDefault) {
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    Kind = isDeviceMemory(*C, Src) ? cudaMemcpyDeviceToDevice : cudaMemcpyHostToDevice;
  }
  return copy(Dst, Src, Bytes, Kind, S, Wait);
}

cudaError_t fromSymbol(void *Dst, const void *Symbol, size_t Bytes, size_t Offset,
                       cudaMemcpyKind Kind, cudaStream_t S, bool Wait) {
  if (Kind != cudaMemcpyDeviceToHost && Kind != cudaMemcpyDeviceToDevice &&
      Kind != cudaMemcpyDefault)
    return fail(cudaErrorInvalidMemcpyDirection);
  char *Src = nullptr;
  if (cudaError_t E = symbolRange(Symbol, Bytes, Offset, Src))
    return E;
  if (Kind == cudaMemcpyDefault) {
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    Kind = isDeviceMemory(*C, Dst) ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost;
  }
  return copy(Dst, Src, Bytes, Kind, S, Wait);
}

} // namespace

extern "C" {

cudaError_t cudaMalloc(void **Ptr, size_t Bytes) {
  return guarded([&] {
    if (auto R = refuseUnsafeCall("cudaMalloc"))
      return *R;
    return allocate(Ptr, Bytes, loader::MemoryKind::Device);
  });
}

cudaError_t cudaMallocManaged(void **Ptr, size_t Bytes, unsigned Flags) {
  return guarded([&] {
    if (auto R = refuseUnsafeCall("cudaMallocManaged"))
      return *R;
    return allocate(Ptr, Bytes, loader::MemoryKind::Managed);
  });
}

cudaError_t cudaMallocHost(void **Ptr, size_t Bytes) {
  return guarded([&] {
    if (auto R = refuseUnsafeCall("cudaMallocHost"))
      return *R;
    return allocate(Ptr, Bytes, loader::MemoryKind::HostPinned);
  });
}

cudaError_t cudaHostAlloc(void **Ptr, size_t Bytes, unsigned Flags) {
  return guarded([&] {
    if (auto R = refuseUnsafeCall("cudaHostAlloc"))
      return *R;
    return allocate(Ptr, Bytes, loader::MemoryKind::HostPinned, Flags);
  });
}

cudaError_t cudaStreamAttachMemAsync(cudaStream_t S, void *Ptr, size_t Bytes, unsigned Flags) {
  return guarded([&] { return attachManaged(S, Ptr, Bytes, Flags); });
}

cudaError_t cudaMemPrefetchAsync(const void *Ptr, size_t Bytes, MemLocation To, unsigned Flags,
                                 cudaStream_t S) {
  return guarded([&] {
    if (Flags)
      return fail(cudaErrorInvalidValue);
    return prefetchManaged(Ptr, Bytes, To, S);
  });
}

cudaError_t cudaMemAdvise(const void *Ptr, size_t Bytes, int Advice, MemLocation L) {
  return guarded([&] { return adviseManaged(Ptr, Bytes, Advice, L); });
}

cudaError_t cudaMemRangeGetAttribute(void *Data, size_t DataSize, int Attribute, const void *Ptr,
                                     size_t Bytes) {
  return guarded([&] { return managedRangeAttribute(Data, DataSize, Attribute, Ptr, Bytes); });
}

cudaError_t cudaMemRangeGetAttributes(void **Data, size_t *DataSizes, int *Attributes, size_t Count,
                                      const void *Ptr, size_t Bytes) {
  return guarded([&] {
    if (!Data || !DataSizes || !Attributes || !Count)
      return fail(cudaErrorInvalidValue);
    for (size_t I = 0; I < Count; ++I)
      if (cudaError_t E = managedRangeAttribute(Data[I], DataSizes[I], Attributes[I], Ptr, Bytes))
        return E;
    return cudaSuccess;
  });
}

cudaError_t cudaMallocAsync(void **Ptr, size_t Bytes, cudaStream_t S) {
  return guarded([&] { return allocateAsync(Ptr, Bytes, nullptr, S); });
}

cudaError_t cudaMallocFromPoolAsync(void **Ptr, size_t Bytes, void *Pool, cudaStream_t S) {
  return guarded([&] {
    if (!Pool)
      return fail(cudaErrorInvalidValue);
    return allocateAsync(Ptr, Bytes, Pool, S);
  });
}

cudaError_t cudaFreeAsync(void *Ptr, cudaStream_t S) {
  return guarded([&] { return freeAsync(Ptr, S); });
}

cudaError_t cudaDeviceGetDefaultMemPool(void **Pool, int Device) {
  return guarded([&] {
    if (!Pool)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = checkDevice(Device))
      return E;
    *Pool = defaultMemPool();
    return cudaSuccess;
  });
}

cudaError_t cudaDeviceGetMemPool(void **Pool, int Device) {
  return guarded([&] {
    if (cudaError_t E = checkDevice(Device))
      return E;
    return currentMemPool(Pool);
  });
}

cudaError_t cudaDeviceSetMemPool(int Device, void *Pool) {
  return guarded([&] {
    if (cudaError_t E = checkDevice(Device))
      return E;
    return setCurrentMemPool(Pool);
  });
}

cudaError_t cudaMemPoolCreate(void **Pool, const MemPoolProps *Props) {
  return guarded([&] { return createMemPool(Pool, Props); });
}

cudaError_t cudaMemPoolDestroy(void *Pool) {
  return guarded([&] { return destroyMemPool(Pool); });
}

cudaError_t cudaMemPoolTrimTo(void *Pool, size_t Keep) {
  return guarded([&] { return trimMemPool(Pool, Keep); });
}

cudaError_t cudaMemPoolSetAttribute(void *Pool, int Attribute, void *Value) {
  return guarded([&] { return memPoolAttribute(Pool, Attribute, Value, true); });
}

cudaError_t cudaMemPoolGetAttribute(void *Pool, int Attribute, void *Value) {
  return guarded([&] { return memPoolAttribute(Pool, Attribute, Value, false); });
}

cudaError_t cudaMemPoolGetAccess(int *Flags, void *Pool, MemLocation *Location) {
  return guarded([&] { return memPoolAccess(Pool, Location, Flags); });
}

cudaError_t cudaMemPoolSetAccess(void *Pool, const MemAccessDesc *Descs, size_t Count) {
  return guarded([&] { return setMemPoolAccess(Pool, Descs, Count); });
}

cudaError_t cudaHostRegister(void *Ptr, size_t Bytes, unsigned Flags) {
  return guarded([&] { return registerHost(Ptr, Bytes, Flags); });
}

cudaError_t cudaHostUnregister(void *Ptr) {
  return guarded([&] { return unregisterHost(Ptr); });
}

cudaError_t cudaHostGetFlags(unsigned *Flags, void *Ptr) {
  return guarded([&] { return hostFlags(Ptr, Flags); });
}

// Pinned memory is mapped at the same address on both sides (unified addressing).
cudaError_t cudaHostGetDevicePointer(void **DevicePtr, void *HostPtr, unsigned Flags) {
  return guarded([&] {
    if (!DevicePtr || !HostPtr || Flags)
      return fail(cudaErrorInvalidValue);
    *DevicePtr = HostPtr;
    return cudaSuccess;
  });
}

cudaError_t cudaFree(void *Ptr) {
  return guarded([&] {
    if (auto R = refuseUnsafeCall("cudaFree"))
      return *R;
    return release(Ptr, false);
  });
}

cudaError_t cudaFreeHost(void *Ptr) {
  return guarded([&] {
    if (auto R = refuseUnsafeCall("cudaFreeHost"))
      return *R;
    return release(Ptr, true);
  });
}

cudaError_t cudaMemGetInfo(size_t *Free, size_t *Total) {
  return guarded([&] {
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    if (!Free || !Total)
      return fail(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> Lock(C->Mutex);
    *Total = C->Props.totalGlobalMem;
    *Free = *Total > C->DeviceBytes ? *Total - C->DeviceBytes : 0;
    return cudaSuccess;
  });
}

cudaError_t cudaMemcpy(void *Dst, const void *Src, size_t Bytes, cudaMemcpyKind Kind) {
  return guarded([&] { return copy(Dst, Src, Bytes, Kind, nullptr, true); });
}

cudaError_t cudaMemcpyAsync(void *Dst, const void *Src, size_t Bytes, cudaMemcpyKind Kind,
                            cudaStream_t S) {
  return guarded([&] { return copy(Dst, Src, Bytes, Kind, S, false); });
}

cudaError_t cudaMemcpy2D(void *Dst, size_t DstPitch, const void *Src, size_t SrcPitch, size_t Width,
                         size_t Height, cudaMemcpyKind Kind) {
  return guarded(
      [&] { return copy2D(Dst, DstPitch, Src, SrcPitch, Width, Height, Kind, nullptr, true); });
}

cudaError_t cudaMemcpy2DAsync(void *Dst, size_t DstPitch, const void *Src, size_t SrcPitch,
                              size_t Width, size_t Height, cudaMemcpyKind Kind, cudaStream_t S) {
  return guarded(
      [&] { return copy2D(Dst, DstPitch, Src, SrcPitch, Width, Height, Kind, S, false); });
}

// Rows start at multiples of the device's pitch alignment.
cudaError_t cudaMallocPitch(void **Ptr, size_t *Pitch, size_t Width, size_t Height) {
  return guarded([&] {
    if (auto R = refuseUnsafeCall("cudaMallocPitch"))
      return *R;
    return allocatePitched(Ptr, Pitch, Width, Height);
  });
}

cudaError_t cudaMemset2D(void *Dst, size_t Pitch, int Value, size_t Width, size_t Height) {
  return guarded(
      [&] { return fill2D(Dst, Pitch, uint32_t(Value) & 0xff, 1, Width, Height, nullptr, true); });
}

cudaError_t cudaMemset2DAsync(void *Dst, size_t Pitch, int Value, size_t Width, size_t Height,
                              cudaStream_t S) {
  return guarded(
      [&] { return fill2D(Dst, Pitch, uint32_t(Value) & 0xff, 1, Width, Height, S, false); });
}

// Any pointer has attributes: memory this runtime did not allocate is unregistered host memory.
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *Attr, const void *Ptr) {
  return guarded([&] {
    if (!Attr)
      return fail(cudaErrorInvalidValue);
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    *Attr = {};
    Attr->device = 0;
    void *P = const_cast<void *>(Ptr);
    auto A = findAllocation(*C, Ptr);
    if (!A) {
      Attr->type = cudaMemoryTypeUnregistered;
      Attr->device = -2;
      Attr->hostPointer = P;
      return cudaSuccess;
    }
    switch (A->second.Kind) {
    case loader::MemoryKind::Device:
      Attr->type = cudaMemoryTypeDevice;
      Attr->devicePointer = P;
      break;
    case loader::MemoryKind::HostPinned:
      Attr->type = cudaMemoryTypeHost;
      Attr->devicePointer = Attr->hostPointer = P;
      break;
    case loader::MemoryKind::Managed:
      Attr->type = cudaMemoryTypeManaged;
      Attr->devicePointer = Attr->hostPointer = P;
      break;
    }
    return cudaSuccess;
  });
}

cudaError_t cudaMemset(void *Dst, int Value, size_t Bytes) {
  return guarded([&] { return fill(Dst, Value, Bytes, nullptr); });
}

cudaError_t cudaMemsetAsync(void *Dst, int Value, size_t Bytes, cudaStream_t S) {
  return guarded([&] { return fill(Dst, Value, Bytes, S); });
}

cudaError_t cudaMemcpyToSymbol(const void *Symbol, const void *Src, size_t Bytes, size_t Offset,
                               cudaMemcpyKind Kind) {
  return guarded([&] { return toSymbol(Symbol, Src, Bytes, Offset, Kind, nullptr, true); });
}

cudaError_t cudaMemcpyToSymbolAsync(const void *Symbol, const void *Src, size_t Bytes,
                                    size_t Offset, cudaMemcpyKind Kind, cudaStream_t S) {
  return guarded([&] { return toSymbol(Symbol, Src, Bytes, Offset, Kind, S, false); });
}

cudaError_t cudaMemcpyFromSymbol(void *Dst, const void *Symbol, size_t Bytes, size_t Offset,
                                 cudaMemcpyKind Kind) {
  return guarded([&] { return fromSymbol(Dst, Symbol, Bytes, Offset, Kind, nullptr, true); });
}

cudaError_t cudaMemcpyFromSymbolAsync(void *Dst, const void *Symbol, size_t Bytes, size_t Offset,
                                      cudaMemcpyKind Kind, cudaStream_t S) {
  return guarded([&] { return fromSymbol(Dst, Symbol, Bytes, Offset, Kind, S, false); });
}

cudaError_t cudaGetSymbolAddress(void **Ptr, const void *Symbol) {
  return guarded([&] {
    if (!Ptr)
      return fail(cudaErrorInvalidValue);
    char *Address = nullptr;
    if (cudaError_t E = symbolRange(Symbol, 0, 0, Address))
      return E;
    *Ptr = Address;
    return cudaSuccess;
  });
}

cudaError_t cudaGetSymbolSize(size_t *Size, const void *Symbol) {
  return guarded([&] {
    if (!Size)
      return fail(cudaErrorInvalidValue);
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    loader::GlobalSymbol G;
    if (cudaError_t E = resolveSymbol(*C, Symbol, G))
      return E;
    *Size = G.Size;
    return cudaSuccess;
  });
}

// A value, not an object: what textures and arrays are described by (returned by value, in
// memory, as CUDA's ABI has it).
cudaChannelFormatDesc cudaCreateChannelDesc(int X, int Y, int Z, int W, cudaChannelFormatKind F) {
  return {X, Y, Z, W, F};
}

} // extern "C"
