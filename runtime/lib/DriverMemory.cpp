//===- DriverMemory.cpp - the driver API: memory, streams and events ===//
//
// The same operations as the runtime API's (Memory.cpp, Objects.cpp), with a current context
// required and CUresult codes. Memory is the device's, whichever context allocated it.

#include "Driver.h"

#include "llvm/Support/FormatVariadic.h"

#include <vector>

using namespace llvm;
using namespace ptx2amd;
using namespace ptx2amd::runtime;

namespace {

/// driverCall() for calls that need a current context.
template <typename Body> CUresult inContext(Body &&B) noexcept {
  return driverCall([&] {
    DriverContext *DC = nullptr;
    if (cudaError_t E = currentContext(DC))
      return E;
    return B();
  });
}

void *pointer(CUdeviceptr P) { return reinterpret_cast<void *>(uintptr_t(P)); }

CUresult allocateDevice(CUdeviceptr *Ptr, size_t Bytes, loader::MemoryKind Kind) {
  return inContext([&] {
    if (!Ptr)
      return fail(cudaErrorInvalidValue);
    void *P = nullptr;
    if (cudaError_t E = allocate(&P, Bytes, Kind))
      return E;
    *Ptr = CUdeviceptr(uintptr_t(P));
    return cudaSuccess;
  });
}

/// cuMemsetD16/D32: \p Count elements of \p Width bytes each set to \p Value. A value whose bytes
/// are all alike is a byte fill; any other is written from a host copy of the pattern.
cudaError_t fillPattern(CUdeviceptr Dst, uint32_t Value, unsigned Width, size_t Count,
                        CUstream Stream, bool Wait) {
  if (Dst % Width)
    return fail(cudaErrorInvalidValue,
                formatv("{0:x} is not aligned to {1} bytes", uint64_t(Dst), Width).str());
  bool Uniform =
      Width == 2 ? (Value & 0xff) == ((Value >> 8) & 0xff) : Value == (Value & 0xff) * 0x01010101u;
  if (Uniform) {
    if (cudaError_t E = fill(pointer(Dst), int(Value & 0xff), Count * Width, Stream))
      return E;
    return Wait ? synchronizeStream(Stream) : cudaSuccess;
  }
  std::vector<uint8_t> Pattern(Count * Width);
  for (size_t I = 0; I < Count; ++I)
    std::memcpy(&Pattern[I * Width], &Value, Width);
  // The host copy must live until the copy is done: this waits even when asynchronous.
  return copy(pointer(Dst), Pattern.data(), Pattern.size(), cudaMemcpyHostToDevice, Stream, true);
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
  return inContext([&] { return release(pointer(Ptr), false); });
}

CUresult cuMemAllocHost_v2(void **Ptr, size_t Bytes) {
  return inContext([&] { return allocate(Ptr, Bytes, loader::MemoryKind::HostPinned); });
}

CUresult cuMemHostAlloc(void **Ptr, size_t Bytes, unsigned Flags) {
  return inContext([&] { return allocate(Ptr, Bytes, loader::MemoryKind::HostPinned); });
}

CUresult cuMemFreeHost(void *Ptr) {
  return inContext([&] { return release(Ptr, true); });
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
  return inContext([&] { return fillPattern(Dst, Value, 1, Count, nullptr, true); });
}

CUresult cuMemsetD16_v2(CUdeviceptr Dst, unsigned short Value, size_t Count) {
  return inContext([&] { return fillPattern(Dst, Value, 2, Count, nullptr, true); });
}

CUresult cuMemsetD32_v2(CUdeviceptr Dst, unsigned Value, size_t Count) {
  return inContext([&] { return fillPattern(Dst, Value, 4, Count, nullptr, true); });
}

CUresult cuMemsetD8Async(CUdeviceptr Dst, unsigned char Value, size_t Count, CUstream Stream) {
  return inContext([&] { return fillPattern(Dst, Value, 1, Count, Stream, false); });
}

CUresult cuMemsetD16Async(CUdeviceptr Dst, unsigned short Value, size_t Count, CUstream Stream) {
  return inContext([&] { return fillPattern(Dst, Value, 2, Count, Stream, false); });
}

CUresult cuMemsetD32Async(CUdeviceptr Dst, unsigned Value, size_t Count, CUstream Stream) {
  return inContext([&] { return fillPattern(Dst, Value, 4, Count, Stream, false); });
}

//===-- streams and events -------------------------------------------------===//

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
