//===- DriverMemory.cpp - the driver API: memory, streams and events ===//
//
// The same operations as the runtime API's (Memory.cpp, Objects.cpp), with a current context
// required and CUresult codes. Memory is the device's, whichever context allocated it.

#include "Driver.h"
#include "Graphs.h"
#include "Textures.h"

#include "llvm/Support/FormatVariadic.h"

#include <vector>

using namespace llvm;
using namespace ptx2amd;
using namespace ptx2amd::runtime;

namespace ptx2amd::runtime {

cudaError_t copyMemory(CUmemorytype Type, const void *Host, CUdeviceptr Device, const char *What,
                       const char *&Out) {
  switch (Type) {
  case CU_MEMORYTYPE_HOST:
    Out = static_cast<const char *>(Host);
    break;
  case CU_MEMORYTYPE_DEVICE:
  case CU_MEMORYTYPE_UNIFIED:
    Out = static_cast<const char *>(pointer(Device));
    break;
  case CU_MEMORYTYPE_ARRAY: // the callers place arrays themselves (arrayRegion)
    return fail(cudaErrorInvalidValue, formatv("{0} an array in no place", What).str());
  default:
    return fail(cudaErrorInvalidValue, formatv("memory type {0}", int(Type)).str());
  }
  if (!Out)
    return fail(cudaErrorInvalidValue, formatv("{0} a null pointer", What).str());
  return cudaSuccess;
}

} // namespace ptx2amd::runtime

namespace {

CUresult allocateDevice(CUdeviceptr *Ptr, size_t Bytes, loader::MemoryKind Kind) {
  return inContext([&] {
    if (!Ptr)
      return fail(cudaErrorInvalidValue);
    if (auto R = refuseUnsafeCall("cuMemAlloc"))
      return *R;
    void *P = nullptr;
    if (cudaError_t E = allocate(&P, Bytes, Kind))
      return E;
    *Ptr = CUdeviceptr(uintptr_t(P));
    return cudaSuccess;
  });
}

/// Where a side of a 2D copy starts, and its pitch: an array's level (with the level's pitch),
/// or memory offset by its row and byte column.
cudaError_t copySide(CUmemorytype Type, const void *Host, CUdeviceptr Device, void *Array, size_t X,
                     size_t Y, size_t &Pitch, const CUDA_MEMCPY2D &C, const char *&Out) {
  if (Type == CU_MEMORYTYPE_ARRAY) {
    char *At = nullptr;
    ArrayLevel L;
    if (cudaError_t E = arrayRegion(static_cast<cudaArray_t>(Array), X, Y, 0, C.WidthInBytes,
                                    C.Height, 1, "a 2D copy of", At, L))
      return E;
    Out = At;
    Pitch = L.RowPitch;
    return cudaSuccess;
  }
  if (cudaError_t E = copyMemory(Type, Host, Device, "a 2D copy to or from", Out))
    return E;
  Out += Y * Pitch + X;
  return cudaSuccess;
}

cudaError_t copyDescribed2D(const CUDA_MEMCPY2D *C, CUstream Stream, bool Wait) {
  if (!C)
    return fail(cudaErrorInvalidValue);
  const char *Src = nullptr, *Dst = nullptr;
  size_t SrcPitch = C->srcPitch, DstPitch = C->dstPitch;
  if (cudaError_t E = copySide(C->srcMemoryType, C->srcHost, C->srcDevice, C->srcArray,
                               C->srcXInBytes, C->srcY, SrcPitch, *C, Src))
    return E;
  if (cudaError_t E = copySide(C->dstMemoryType, C->dstHost, C->dstDevice, C->dstArray,
                               C->dstXInBytes, C->dstY, DstPitch, *C, Dst))
    return E;
  // One address space: where each side is, the copy finds out (cudaMemcpyDefault).
  return copy2D(const_cast<char *>(Dst), DstPitch, Src, SrcPitch, C->WidthInBytes, C->Height,
                cudaMemcpyDefault, Stream, Wait);
}

/// One pointer attribute of \p P (cuPointerGetAttribute's numbering) into \p Data; \p Known:
/// whether P lies in an allocation of the runtime. False for an attribute this device lacks.
bool pointerAttribute(Context &C, int Attribute, const void *P, void *Data, bool &Known) {
  auto A = findAllocation(C, P);
  Known = A.has_value();
  const bool Host = Known && A->second.Kind == loader::MemoryKind::HostPinned;
  const bool Managed = Known && A->second.Kind == loader::MemoryKind::Managed;
  auto Put = [&](auto V) { std::memcpy(Data, &V, sizeof V); };
  switch (Attribute) {
  case 1: // CONTEXT
    Put(Known ? reinterpret_cast<CUcontext>(&driverState().PrimaryContext) : CUcontext());
    return true;
  case 2: // MEMORY_TYPE: pinned host memory is host memory; device and managed are device's
    Put(unsigned(!Known ? 0 : Host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE));
    return true;
  case 3: // DEVICE_POINTER: one address space, the same address
    Put(Known ? CUdeviceptr(uintptr_t(P)) : CUdeviceptr());
    return true;
  case 4: // HOST_POINTER: for memory the host may reach (not cudaMalloc's)
    Put(Known && (Host || Managed) ? const_cast<void *>(P) : nullptr);
    return true;
  case 6:  // SYNC_MEMOPS
  case 10: // IS_LEGACY_CUDA_IPC_CAPABLE
  case 15: // IS_GPU_DIRECT_RDMA_CAPABLE
  case 21: // IS_HW_DECOMPRESS_CAPABLE
    Put(int(0));
    return true;
  case 7:  // BUFFER_ID: the allocation's start, unique while it lives
  case 20: // MEMORY_BLOCK_ID
    Put((unsigned long long)(Known ? A->first : 0));
    return true;
  case 8: // IS_MANAGED
    Put(int(Managed));
    return true;
  case 9: // DEVICE_ORDINAL
    Put(int(Known ? 0 : -2));
    return true;
  case 11: // RANGE_START_ADDR
  case 19: // MAPPING_BASE_ADDR
    Put(Known ? reinterpret_cast<void *>(A->first) : nullptr);
    return true;
  case 12: // RANGE_SIZE
  case 18: // MAPPING_SIZE
    Put(size_t(Known ? A->second.Bytes : 0));
    return true;
  case 13: // MAPPED
    Put(int(Known));
    return true;
  case 14:   // ALLOWED_HANDLE_TYPES: only cuMemCreate's memory may be exportable
  case 16: { // ACCESS_FLAGS: read-write, or what cuMemSetAccess set
    int HandleTypes = 0, Access = Known ? 3 : 0;
    if (Known && A->second.Mapped)
      mappingAttributes(P, HandleTypes, Access);
    Put((unsigned long long)(Attribute == 14 ? HandleTypes : Access));
    return true;
  }
  case 17: // MEMPOOL_HANDLE: not from a pool
    Put((void *)nullptr);
    return true;
  default:
    return false;
  }
}

} // namespace

extern "C" {

//===-- memory -------------------------------------------------------------===//

CUresult cuMemAlloc_v2(CUdeviceptr *Ptr, size_t Bytes) {
  // CUDA refuses an empty allocation here, unlike cudaMalloc.
  if (Bytes == 0 && driverInitialized())
    return CUDA_ERROR_INVALID_VALUE;
  return allocateDevice(Ptr, Bytes, loader::MemoryKind::Device);
}

CUresult cuMemAllocManaged(CUdeviceptr *Ptr, size_t Bytes, unsigned Flags) {
  return allocateDevice(Ptr, Bytes, loader::MemoryKind::Managed);
}

CUresult cuMemFree_v2(CUdeviceptr Ptr) {
  return inContext([&] {
    if (auto R = refuseUnsafeCall("cuMemFree"))
      return *R;
    return release(pointer(Ptr), false);
  });
}

CUresult cuMemAllocHost_v2(void **Ptr, size_t Bytes) {
  return inContext([&] {
    if (auto R = refuseUnsafeCall("cuMemAllocHost"))
      return *R;
    return allocate(Ptr, Bytes, loader::MemoryKind::HostPinned);
  });
}

CUresult cuMemHostAlloc(void **Ptr, size_t Bytes, unsigned Flags) {
  return inContext([&] {
    if (auto R = refuseUnsafeCall("cuMemHostAlloc"))
      return *R;
    return allocate(Ptr, Bytes, loader::MemoryKind::HostPinned);
  });
}

CUresult cuMemFreeHost(void *Ptr) {
  return inContext([&] {
    if (auto R = refuseUnsafeCall("cuMemFreeHost"))
      return *R;
    return release(Ptr, true);
  });
}

// Pinned memory is mapped at the same address on both sides (unified addressing).
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *DevicePtr, void *HostPtr, unsigned Flags) {
  return inContext([&] {
    if (!DevicePtr || !HostPtr || Flags)
      return fail(cudaErrorInvalidValue);
    *DevicePtr = CUdeviceptr(uintptr_t(HostPtr));
    return cudaSuccess;
  });
}

CUresult cuMemGetInfo_v2(size_t *Free, size_t *Total) {
  return inContext([&] {
    if (!Free || !Total)
      return fail(cudaErrorInvalidValue);
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    std::lock_guard<std::mutex> Lock(C->Mutex);
    *Total = C->Props.totalGlobalMem;
    *Free = *Total > C->DeviceBytes ? *Total - C->DeviceBytes : 0;
    return cudaSuccess;
  });
}

CUresult cuMemGetAddressRange_v2(CUdeviceptr *Base, size_t *Bytes, CUdeviceptr Ptr) {
  return inContext([&] {
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    auto A = findAllocation(*C, pointer(Ptr));
    if (!A)
      return fail(cudaErrorInvalidDevicePointer,
                  formatv("{0:x} is in no allocation", uint64_t(Ptr)).str());
    if (Base)
      *Base = CUdeviceptr(A->first);
    if (Bytes)
      *Bytes = A->second.Bytes;
    return cudaSuccess;
  });
}

CUresult cuMemcpy(CUdeviceptr Dst, CUdeviceptr Src, size_t Bytes) {
  return inContext(
      [&] { return copy(pointer(Dst), pointer(Src), Bytes, cudaMemcpyDefault, nullptr, true); });
}

CUresult cuMemcpyAsync(CUdeviceptr Dst, CUdeviceptr Src, size_t Bytes, CUstream Stream) {
  return inContext(
      [&] { return copy(pointer(Dst), pointer(Src), Bytes, cudaMemcpyDefault, Stream, false); });
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr Dst, const void *Src, size_t Bytes) {
  return inContext(
      [&] { return copy(pointer(Dst), Src, Bytes, cudaMemcpyHostToDevice, nullptr, true); });
}

CUresult cuMemcpyDtoH_v2(void *Dst, CUdeviceptr Src, size_t Bytes) {
  return inContext(
      [&] { return copy(Dst, pointer(Src), Bytes, cudaMemcpyDeviceToHost, nullptr, true); });
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr Dst, CUdeviceptr Src, size_t Bytes) {
  return inContext([&] {
    return copy(pointer(Dst), pointer(Src), Bytes, cudaMemcpyDeviceToDevice, nullptr, true);
  });
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr Dst, const void *Src, size_t Bytes, CUstream Stream) {
  return inContext(
      [&] { return copy(pointer(Dst), Src, Bytes, cudaMemcpyHostToDevice, Stream, false); });
}

CUresult cuMemcpyDtoHAsync_v2(void *Dst, CUdeviceptr Src, size_t Bytes, CUstream Stream) {
  return inContext(
      [&] { return copy(Dst, pointer(Src), Bytes, cudaMemcpyDeviceToHost, Stream, false); });
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr Dst, CUdeviceptr Src, size_t Bytes, CUstream Stream) {
  return inContext([&] {
    return copy(pointer(Dst), pointer(Src), Bytes, cudaMemcpyDeviceToDevice, Stream, false);
  });
}

CUresult cuMemsetD8_v2(CUdeviceptr Dst, unsigned char Value, size_t Count) {
  return inContext([&] { return fillElements(pointer(Dst), Value, 1, Count, nullptr, true); });
}

CUresult cuMemsetD16_v2(CUdeviceptr Dst, unsigned short Value, size_t Count) {
  return inContext([&] { return fillElements(pointer(Dst), Value, 2, Count, nullptr, true); });
}

CUresult cuMemsetD32_v2(CUdeviceptr Dst, unsigned Value, size_t Count) {
  return inContext([&] { return fillElements(pointer(Dst), Value, 4, Count, nullptr, true); });
}

CUresult cuMemsetD8Async(CUdeviceptr Dst, unsigned char Value, size_t Count, CUstream Stream) {
  return inContext([&] { return fillElements(pointer(Dst), Value, 1, Count, Stream, false); });
}

CUresult cuMemsetD16Async(CUdeviceptr Dst, unsigned short Value, size_t Count, CUstream Stream) {
  return inContext([&] { return fillElements(pointer(Dst), Value, 2, Count, Stream, false); });
}

CUresult cuMemsetD32Async(CUdeviceptr Dst, unsigned Value, size_t Count, CUstream Stream) {
  return inContext([&] { return fillElements(pointer(Dst), Value, 4, Count, Stream, false); });
}

// The element size (4, 8 or 16) only bounds what CUDA's pitch may be; ours suits every one.
CUresult cuMemAllocPitch_v2(CUdeviceptr *Ptr, size_t *Pitch, size_t Width, size_t Height,
                            unsigned ElementBytes) {
  return inContext([&] {
    if (!Ptr || (ElementBytes != 4 && ElementBytes != 8 && ElementBytes != 16))
      return fail(cudaErrorInvalidValue);
    if (auto R = refuseUnsafeCall("cuMemAllocPitch"))
      return *R;
    void *P = nullptr;
    if (cudaError_t E = allocatePitched(&P, Pitch, Width, Height))
      return E;
    *Ptr = CUdeviceptr(uintptr_t(P));
    return cudaSuccess;
  });
}

CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *Copy) {
  return inContext([&] { return copyDescribed2D(Copy, nullptr, true); });
}

// Alignment does not matter to these copies.
CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *Copy) { return cuMemcpy2D_v2(Copy); }

CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *Copy, CUstream Stream) {
  return inContext([&] { return copyDescribed2D(Copy, Stream, false); });
}

CUresult cuMemsetD2D8_v2(CUdeviceptr Dst, size_t Pitch, unsigned char Value, size_t Width,
                         size_t Height) {
  return inContext(
      [&] { return fill2D(pointer(Dst), Pitch, Value, 1, Width, Height, nullptr, true); });
}

CUresult cuMemsetD2D16_v2(CUdeviceptr Dst, size_t Pitch, unsigned short Value, size_t Width,
                          size_t Height) {
  return inContext(
      [&] { return fill2D(pointer(Dst), Pitch, Value, 2, Width, Height, nullptr, true); });
}

CUresult cuMemsetD2D32_v2(CUdeviceptr Dst, size_t Pitch, unsigned Value, size_t Width,
                          size_t Height) {
  return inContext(
      [&] { return fill2D(pointer(Dst), Pitch, Value, 4, Width, Height, nullptr, true); });
}

CUresult cuMemsetD2D8Async(CUdeviceptr Dst, size_t Pitch, unsigned char Value, size_t Width,
                           size_t Height, CUstream Stream) {
  return inContext(
      [&] { return fill2D(pointer(Dst), Pitch, Value, 1, Width, Height, Stream, false); });
}

CUresult cuMemsetD2D16Async(CUdeviceptr Dst, size_t Pitch, unsigned short Value, size_t Width,
                            size_t Height, CUstream Stream) {
  return inContext(
      [&] { return fill2D(pointer(Dst), Pitch, Value, 2, Width, Height, Stream, false); });
}

CUresult cuMemsetD2D32Async(CUdeviceptr Dst, size_t Pitch, unsigned Value, size_t Width,
                            size_t Height, CUstream Stream) {
  return inContext(
      [&] { return fill2D(pointer(Dst), Pitch, Value, 4, Width, Height, Stream, false); });
}

CUresult cuMemHostRegister_v2(void *Ptr, size_t Bytes, unsigned Flags) {
  return inContext([&] { return registerHost(Ptr, Bytes, Flags); });
}

// CUDA 4.0's: the same flags.
CUresult cuMemHostRegister(void *Ptr, size_t Bytes, unsigned Flags) {
  return cuMemHostRegister_v2(Ptr, Bytes, Flags);
}

CUresult cuMemHostUnregister(void *Ptr) {
  return inContext([&] { return unregisterHost(Ptr); });
}

CUresult cuMemHostGetFlags(unsigned *Flags, void *Ptr) {
  return inContext([&] { return hostFlags(Ptr, Flags); });
}

//===-- pointers -----------------------------------------------------------===//

// A pointer outside every allocation is CUDA_ERROR_INVALID_VALUE here.
CUresult cuPointerGetAttribute(void *Data, int Attribute, CUdeviceptr Ptr) {
  return driverCall([&] {
    if (!Data)
      return fail(cudaErrorInvalidValue);
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    bool Known = false;
    if (!pointerAttribute(*C, Attribute, pointer(Ptr), Data, Known))
      return fail(cudaErrorInvalidValue, formatv("pointer attribute {0}", Attribute).str());
    if (!Known)
      return fail(cudaErrorInvalidValue, formatv("{0:x} is in no allocation", uint64_t(Ptr)).str());
    return cudaSuccess;
  });
}

// Unlike cuPointerGetAttribute, a pointer outside every allocation gets the empty values.
CUresult cuPointerGetAttributes(unsigned Count, int *Attributes, void **Data, CUdeviceptr Ptr) {
  return driverCall([&] {
    if (Count && (!Attributes || !Data))
      return fail(cudaErrorInvalidValue);
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    for (unsigned I = 0; I < Count; ++I) {
      bool Known = false;
      if (Data[I] && !pointerAttribute(*C, Attributes[I], pointer(Ptr), Data[I], Known))
        return fail(cudaErrorInvalidValue, formatv("pointer attribute {0}", Attributes[I]).str());
    }
    return cudaSuccess;
  });
}

//===-- streams and events -------------------------------------------------===//

CUresult cuStreamGetFlags(CUstream Stream, unsigned *Flags) {
  return inContext([&] {
    if (!Flags)
      return fail(cudaErrorInvalidValue);
    return streamFlags(Stream, *Flags);
  });
}

CUresult cuStreamGetId(CUstream Stream, unsigned long long *Id) {
  return inContext([&] {
    if (!Id)
      return fail(cudaErrorInvalidValue);
    return streamId(Stream, *Id);
  });
}

// One device, one device context: every stream is device 0's, in the primary context.
CUresult cuStreamGetDevice(CUstream Stream, CUdevice *Device) {
  return inContext([&] {
    if (!Device)
      return fail(cudaErrorInvalidValue);
    unsigned Flags;
    *Device = 0;
    return streamFlags(Stream, Flags);
  });
}

CUresult cuStreamGetCtx(CUstream Stream, CUcontext *Ctx) {
  return inContext([&] {
    if (!Ctx)
      return fail(cudaErrorInvalidValue);
    unsigned Flags;
    *Ctx = reinterpret_cast<CUcontext>(&driverState().PrimaryContext);
    return streamFlags(Stream, Flags);
  });
}

CUresult cuStreamIsCapturing(CUstream Stream, int *Status) {
  return inContext(
      [&] { return captureInfo(Stream, Status, nullptr, nullptr, nullptr, nullptr, nullptr); });
}

CUresult cuStreamGetCaptureInfo_v3(CUstream Stream, int *Status, unsigned long long *Id,
                                   void **Graph, const void **Dependencies, const void **EdgeData,
                                   size_t *Count) {
  return inContext(
      [&] { return captureInfo(Stream, Status, Id, Graph, Dependencies, EdgeData, Count); });
}

CUresult cuStreamGetCaptureInfo_v2(CUstream Stream, int *Status, unsigned long long *Id,
                                   void **Graph, const void **Dependencies, size_t *Count) {
  return cuStreamGetCaptureInfo_v3(Stream, Status, Id, Graph, Dependencies, nullptr, Count);
}

CUresult cuStreamGetCaptureInfo(CUstream Stream, int *Status, unsigned long long *Id) {
  return cuStreamGetCaptureInfo_v3(Stream, Status, Id, nullptr, nullptr, nullptr, nullptr);
}

CUresult cuThreadExchangeStreamCaptureMode(int *Mode) {
  return driverCall([&] { return exchangeCaptureMode(Mode); });
}

CUresult cuStreamGetAttribute(CUstream Stream, int Id, void *Value) {
  return inContext([&] { return streamAttribute(Stream, Id, Value, false); });
}

CUresult cuStreamSetAttribute(CUstream Stream, int Id, const void *Value) {
  return inContext([&] { return streamAttribute(Stream, Id, const_cast<void *>(Value), true); });
}

CUresult cuStreamCopyAttributes(CUstream Dst, CUstream Src) {
  return inContext([&] { return copyStreamAttributes(Dst, Src); });
}

CUresult cuCtxResetPersistingL2Cache() {
  // Nothing is set aside for persisting lines (streamAttribute): nothing to reset.
  return inContext([] { return cudaSuccess; });
}

// Priorities are accepted and not used: every stream has the one there is, 0.
CUresult cuStreamGetPriority(CUstream Stream, int *Priority) {
  return inContext([&] {
    if (!Priority)
      return fail(cudaErrorInvalidValue);
    unsigned Flags;
    *Priority = 0;
    return streamFlags(Stream, Flags);
  });
}

// Host functions run on the calling thread once the stream's earlier work is done: later work
// of the stream still comes after them, at the cost of the call waiting.
CUresult cuLaunchHostFunc(CUstream Stream, void (*Fn)(void *), void *UserData) {
  return inContext([&] { return launchHostFunc(Stream, Fn, UserData); });
}

CUresult cuStreamAddCallback(CUstream Stream, void (*Callback)(CUstream, CUresult, void *),
                             void *UserData, unsigned Flags) {
  return inContext([&] {
    if (!Callback || Flags)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = synchronizeStream(Stream))
      return E;
    Callback(Stream, CUDA_SUCCESS, UserData);
    return cudaSuccess;
  });
}

// One device: no peers.
CUresult cuDeviceCanAccessPeer(int *Can, CUdevice Device, CUdevice Peer) {
  return driverCall([&] {
    if (!Can)
      return fail(cudaErrorInvalidValue);
    if (Device != 0 || Peer != 0)
      return fail(cudaErrorInvalidDevice);
    *Can = 0;
    return cudaSuccess;
  });
}

CUresult cuStreamCreate(CUstream *Stream, unsigned Flags) {
  return inContext([&] { return createStream(Stream, Flags & CuStreamNonBlocking); });
}

// Priorities are accepted and not used.
CUresult cuStreamCreateWithPriority(CUstream *Stream, unsigned Flags, int Priority) {
  return inContext([&] { return createStream(Stream, Flags & CuStreamNonBlocking); });
}

CUresult cuStreamDestroy_v2(CUstream Stream) {
  return inContext([&] { return destroyStream(Stream); });
}

CUresult cuStreamSynchronize(CUstream Stream) {
  return inContext([&] { return synchronizeStream(Stream); });
}

CUresult cuStreamQuery(CUstream Stream) {
  return inContext([&] { return queryStream(Stream); });
}

CUresult cuStreamWaitEvent(CUstream Stream, CUevent Event, unsigned Flags) {
  return inContext([&] { return streamWaitEvent(Stream, Event); });
}

CUresult cuEventCreate(CUevent *Event, unsigned Flags) {
  return inContext([&] { return createEvent(Event, Flags & CuEventDisableTiming); });
}

CUresult cuEventDestroy_v2(CUevent Event) {
  return inContext([&] { return destroyEvent(Event); });
}

CUresult cuEventRecord(CUevent Event, CUstream Stream) {
  return inContext([&] { return recordEvent(Event, Stream); });
}

CUresult cuEventSynchronize(CUevent Event) {
  return inContext([&] { return synchronizeEvent(Event); });
}

CUresult cuEventQuery(CUevent Event) {
  return inContext([&] { return queryEvent(Event); });
}

CUresult cuEventElapsedTime_v2(float *Ms, CUevent Start, CUevent End) {
  return inContext([&] { return eventElapsedTime(Ms, Start, End); });
}

CUresult cuEventElapsedTime(float *Ms, CUevent Start, CUevent End) {
  return cuEventElapsedTime_v2(Ms, Start, End);
}

} // extern "C"
