//===- Memory.cpp - allocation, copies and memset, for both APIs ===//
//
// The device's copy() takes a direction; cudaMemcpyDefault finds it from the runtime's own
// allocations (any other address is host memory). The runtime and driver APIs' memory functions
// are these with their own error codes.

#include "Graphs.h"
#include "Runtime.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace llvm;

namespace ptx2amd::runtime {

cudaError_t allocate(void **Ptr, size_t Bytes, loader::MemoryKind Kind, unsigned Flags) {
  if (!Ptr)
    return fail(cudaErrorInvalidValue);
  *Ptr = nullptr;
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  if (Bytes == 0)
    return cudaSuccess;
  auto P = C->Dev.allocate(Bytes, Kind);
  if (!P)
    return fail(cudaErrorMemoryAllocation, P.takeError());
  std::lock_guard<std::mutex> Lock(C->Mutex);
  C->Allocations[uintptr_t(*P)] = {Bytes, Kind, false, Flags};
  if (Kind == loader::MemoryKind::Device)
    C->DeviceBytes += Bytes;
  *Ptr = *P;
  return cudaSuccess;
}

cudaError_t release(void *Ptr, bool Host) {
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  if (!Ptr)
    return cudaSuccess;
  if (!Host && freeGraphMemory(Ptr)) // the graph keeps it for its next launch
    return cudaSuccess;
  {
    std::lock_guard<std::mutex> Lock(C->Mutex);
    auto It = C->Allocations.find(uintptr_t(Ptr));
    bool IsHost = It != C->Allocations.end() && It->second.Kind == loader::MemoryKind::HostPinned;
    if (It == C->Allocations.end() || IsHost != Host || It->second.Registered || It->second.Mapped)
      return fail(Host ? cudaErrorInvalidHostPointer : cudaErrorInvalidDevicePointer,
                  formatv("{0} was not allocated by {1}", Ptr,
                          Host ? "cudaMallocHost/cudaHostAlloc" : "cudaMalloc/cudaMallocManaged")
                      .str());
  }
  // Freeing waits for the device's work, as CUDA's does.
  if (cudaError_t E = synchronizeAll(*C))
    return E;
  if (Error E = C->Dev.release(Ptr))
    return fail(cudaErrorInvalidDevicePointer, std::move(E));
  std::lock_guard<std::mutex> Lock(C->Mutex);
  auto It = C->Allocations.find(uintptr_t(Ptr));
  if (It->second.Kind == loader::MemoryKind::Device)
    C->DeviceBytes -= It->second.Bytes;
  if (It->second.Kind == loader::MemoryKind::Managed)
    forgetManaged(It->first);
  C->Allocations.erase(It);
  return cudaSuccess;
}

/// Whether \p P points into memory that only the device addresses (cudaMalloc).
std::optional<std::pair<uintptr_t, Allocation>> findAllocation(Context &C, const void *P) {
  std::lock_guard<std::mutex> Lock(C.Mutex);
  auto It = C.Allocations.upper_bound(uintptr_t(P));
  if (It == C.Allocations.begin())
    return std::nullopt;
  --It;
  if (uintptr_t(P) >= It->first + It->second.Bytes)
    return std::nullopt;
  return *It;
}

bool isDeviceMemory(Context &C, const void *P) {
  auto A = findAllocation(C, P);
  return A && A->second.Kind == loader::MemoryKind::Device;
}

/// Copies \p Bytes after the earlier work of \p S; \p Wait: and waits for it.
cudaError_t copy(void *Dst, const void *Src, size_t Bytes, cudaMemcpyKind Kind, cudaStream_t S,
                 bool Wait) {
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  if (Bytes == 0)
    return cudaSuccess;
  if (!Dst || !Src)
    return fail(cudaErrorInvalidValue, "copy to or from a null pointer");
  if (isCapturing(S))
    return copy3D({static_cast<const char *>(Src), Bytes, Bytes, static_cast<char *>(Dst), Bytes,
                   Bytes, Bytes, 1, 1, Kind},
                  S, Wait);
  if (cudaError_t E = checkMappedAccess(Src, Bytes, false))
    return E;
  if (cudaError_t E = checkMappedAccess(Dst, Bytes, true))
    return E;
  bool DstDevice, SrcDevice;
  switch (Kind) {
  case cudaMemcpyHostToHost:
    DstDevice = SrcDevice = false;
    break;
  case cudaMemcpyHostToDevice:
    DstDevice = true, SrcDevice = false;
    break;
  case cudaMemcpyDeviceToHost:
    DstDevice = false, SrcDevice = true;
    break;
  case cudaMemcpyDeviceToDevice:
    DstDevice = SrcDevice = true;
    break;
  case cudaMemcpyDefault:
    DstDevice = isDeviceMemory(*C, Dst);
    SrcDevice = isDeviceMemory(*C, Src);
    break;
  default:
    return fail(cudaErrorInvalidMemcpyDirection, formatv("copy kind {0}", int(Kind)).str());
  }
  loader::Stream *Stream = nullptr;
  if (cudaError_t E = streamFor(*C, S, Stream))
    return E;
  if (!DstDevice && !SrcDevice) {
    // Host to host still comes after the stream's earlier work.
    if (Error E = C->Dev.synchronize(Stream))
      return failDeviceWork(std::move(E));
    std::memmove(Dst, Src, Bytes);
    return cudaSuccess;
  }
  loader::CopyKind K = !SrcDevice  ? loader::CopyKind::HostToDevice
                       : DstDevice ? loader::CopyKind::DeviceToDevice
                                   : loader::CopyKind::DeviceToHost;
  if (Error E = C->Dev.copy(Dst, Src, Bytes, K, Stream))
    return failDeviceCall(std::move(E), cudaErrorInvalidValue);
  if (Wait)
    if (Error E = C->Dev.synchronize(Stream))
      return failDeviceWork(std::move(E));
  return cudaSuccess;
}

cudaError_t fill(void *Dst, int Value, size_t Bytes, cudaStream_t S) {
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  if (Bytes == 0)
    return cudaSuccess;
  if (!Dst)
    return fail(cudaErrorInvalidValue, "memset of a null pointer");
  if (isCapturing(S))
    return fill2D(Dst, Bytes, uint32_t(Value) & 0xff, 1, Bytes, 1, S, false);
  if (cudaError_t E = checkMappedAccess(Dst, Bytes, true))
    return E;
  loader::Stream *Stream = nullptr;
  if (cudaError_t E = streamFor(*C, S, Stream))
    return E;
  if (Error E = C->Dev.memset(Dst, uint8_t(Value), Bytes, Stream))
    return failDeviceCall(std::move(E), cudaErrorInvalidValue);
  return cudaSuccess;
}

/// A pitched copy's rows of \p Width bytes must fit its pitches, unless there is one row alone:
/// its pitch says nothing (NVIDIA's cuSOLVER gesv sample copies a one-column right-hand side
/// with a pitch of one element, and cudaMemset2D takes such a row too).
static cudaError_t checkCopyPitches(size_t Width, size_t Height, size_t Depth, size_t SrcPitch,
                                    size_t DstPitch) {
  if ((Height <= 1 && Depth <= 1) || (Width <= SrcPitch && Width <= DstPitch))
    return cudaSuccess;
  return fail(cudaErrorInvalidPitchValue,
              formatv("a copy of {0} rows of {1} bytes with source pitch {2} and destination "
                      "pitch {3}: each pitch must be at least a row",
                      Height, Width, SrcPitch, DstPitch)
                  .str());
}

/// Rows of a pitched copy, each after the earlier ones on \p S; \p Wait: and waits for the last.
cudaError_t copy2D(void *Dst, size_t DstPitch, const void *Src, size_t SrcPitch, size_t Width,
                   size_t Height, cudaMemcpyKind Kind, cudaStream_t S, bool Wait) {
  if (cudaError_t E = checkCopyPitches(Width, Height, 1, SrcPitch, DstPitch))
    return E;
  if (isCapturing(S))
    return copy3D({static_cast<const char *>(Src), SrcPitch, SrcPitch * Height,
                   static_cast<char *>(Dst), DstPitch, DstPitch * Height, Width, Height, 1, Kind},
                  S, Wait);
  if (Width == DstPitch && Width == SrcPitch)
    return copy(Dst, Src, Width * Height, Kind, S, Wait);
  for (size_t Row = 0; Row < Height; ++Row)
    if (cudaError_t E = copy(static_cast<char *>(Dst) + Row * DstPitch,
                             static_cast<const char *>(Src) + Row * SrcPitch, Width, Kind, S,
                             Wait && Row + 1 == Height))
      return E;
  return cudaSuccess;
}

cudaError_t copy3D(const Copy3D &P, cudaStream_t S, bool Wait) {
  if (cudaError_t E = checkCopyPitches(P.Width, P.Height, P.Depth, P.SrcPitch, P.DstPitch))
    return E;
  if (P.Depth > 1 && (P.Height * P.SrcPitch > P.SrcSlice || P.Height * P.DstPitch > P.DstSlice))
    return fail(cudaErrorInvalidValue, "a 3D copy's height is above its allocation's");
  if (isCapturing(S)) {
    GraphNode Proto;
    Proto.Kind = NodeKind::Memcpy;
    Proto.Copy = P;
    return captureNode(S, Proto);
  }
  if (!P.Width || !P.Height || !P.Depth)
    return Wait ? synchronizeStream(S) : cudaSuccess;
  for (size_t Z = 0; Z < P.Depth; ++Z)
    if (cudaError_t E = copy2D(P.Dst + Z * P.DstSlice, P.DstPitch, P.Src + Z * P.SrcSlice,
                               P.SrcPitch, P.Width, P.Height, P.Kind, S, Wait && Z + 1 == P.Depth))
      return E;
  return cudaSuccess;
}

cudaError_t fillElements(void *Dst, uint32_t Value, unsigned ElementBytes, size_t Count,
                         cudaStream_t S, bool Wait) {
  if (ElementBytes != 1 && ElementBytes != 2 && ElementBytes != 4)
    return fail(cudaErrorInvalidValue, formatv("element size {0}", ElementBytes).str());
  if (uintptr_t(Dst) % ElementBytes)
    return fail(cudaErrorInvalidValue,
                formatv("{0} is not aligned to {1} bytes", Dst, ElementBytes).str());
  if (isCapturing(S))
    return fill2D(Dst, Count * ElementBytes, Value, ElementBytes, Count, 1, S, Wait);
  const bool Uniform = ElementBytes == 1   ? true
                       : ElementBytes == 2 ? (Value & 0xff) == ((Value >> 8) & 0xff)
                                           : Value == (Value & 0xff) * 0x01010101u;
  if (Uniform) {
    if (cudaError_t E = fill(Dst, int(Value & 0xff), Count * ElementBytes, S))
      return E;
    return Wait ? synchronizeStream(S) : cudaSuccess;
  }
  std::vector<uint8_t> Pattern(Count * ElementBytes);
  for (size_t I = 0; I < Count; ++I)
    std::memcpy(&Pattern[I * ElementBytes], &Value, ElementBytes);
  // The host copy must live until the copy is done: this waits even when asynchronous.
  return copy(Dst, Pattern.data(), Pattern.size(), cudaMemcpyHostToDevice, S, true);
}

cudaError_t fill2D(void *Dst, size_t Pitch, uint32_t Value, unsigned ElementBytes, size_t Width,
                   size_t Height, cudaStream_t S, bool Wait) {
  if (Width * ElementBytes > Pitch && Height > 1)
    return fail(cudaErrorInvalidPitchValue);
  if (isCapturing(S)) {
    if (ElementBytes != 1 && ElementBytes != 2 && ElementBytes != 4)
      return fail(cudaErrorInvalidValue, formatv("element size {0}", ElementBytes).str());
    GraphNode Proto;
    Proto.Kind = NodeKind::Memset;
    Proto.Memset = {Dst, Pitch, Value, ElementBytes, Width, Height};
    return captureNode(S, Proto);
  }
  for (size_t Row = 0; Row < Height; ++Row)
    if (cudaError_t E = fillElements(static_cast<char *>(Dst) + Row * Pitch, Value, ElementBytes,
                                     Width, S, Wait && Row + 1 == Height))
      return E;
  if (!Height && Wait)
    return synchronizeStream(S);
  return cudaSuccess;
}

/// The device variable \p Symbol, checked to hold [Offset, Offset + Bytes).
cudaError_t symbolRange(const void *Symbol, size_t Bytes, size_t Offset, char *&Out) {
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  loader::GlobalSymbol G;
  if (cudaError_t E = resolveSymbol(*C, Symbol, G))
    return E;
  if (Offset > G.Size || Bytes > G.Size - Offset)
    return fail(
        cudaErrorInvalidValue,
        formatv("{0} bytes at offset {1} of a {2}-byte variable", Bytes, Offset, G.Size).str());
  Out = static_cast<char *>(G.Address) + Offset;
  return cudaSuccess;
}

cudaError_t allocatePitched(void **Ptr, size_t *Pitch, size_t Width, size_t Height) {
  if (!Ptr || !Pitch)
    return fail(cudaErrorInvalidValue);
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  size_t Align = C->Props.texturePitchAlignment;
  *Pitch = (Width + Align - 1) / Align * Align;
  return allocate(Ptr, *Pitch * Height, loader::MemoryKind::Device);
}

namespace {
constexpr unsigned HostRegisterIoMemory = 4;
constexpr unsigned HostRegisterFlags = 0xf; // portable, mapped, I/O memory, read-only
} // namespace

cudaError_t registerHost(void *Ptr, size_t Bytes, unsigned Flags) {
  if (!Ptr || !Bytes || (Flags & ~HostRegisterFlags))
    return fail(cudaErrorInvalidValue);
  if (Flags & HostRegisterIoMemory)
    return fail(cudaErrorNotSupported, "registering I/O memory");
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  {
    std::lock_guard<std::mutex> Lock(C->Mutex);
    const uintptr_t Begin = uintptr_t(Ptr), End = Begin + Bytes;
    for (auto &[At, A] : C->Allocations)
      if (At < End && Begin < At + A.Bytes)
        return fail(cudaErrorHostMemoryAlreadyRegistered,
                    formatv("{0} bytes at {1}", Bytes, Ptr).str());
  }
  if (Error E = C->Dev.registerHostMemory(Ptr, Bytes))
    return fail(cudaErrorNotSupported, std::move(E));
  std::lock_guard<std::mutex> Lock(C->Mutex);
  C->Allocations[uintptr_t(Ptr)] = {Bytes, loader::MemoryKind::HostPinned, true, Flags};
  return cudaSuccess;
}

cudaError_t unregisterHost(void *Ptr) {
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  {
    std::lock_guard<std::mutex> Lock(C->Mutex);
    auto It = C->Allocations.find(uintptr_t(Ptr));
    if (!Ptr || It == C->Allocations.end() || !It->second.Registered)
      return fail(cudaErrorHostMemoryNotRegistered, formatv("{0}", Ptr).str());
  }
  // The device's work may still read it, as CUDA's unregistering waits for.
  if (cudaError_t E = synchronizeAll(*C))
    return E;
  if (Error E = C->Dev.unregisterHostMemory(Ptr))
    return fail(cudaErrorUnknown, std::move(E));
  std::lock_guard<std::mutex> Lock(C->Mutex);
  C->Allocations.erase(uintptr_t(Ptr));
  return cudaSuccess;
}

cudaError_t hostFlags(void *Ptr, unsigned *Flags) {
  if (!Flags)
    return fail(cudaErrorInvalidValue);
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  auto A = findAllocation(*C, Ptr);
  if (!A || A->second.Kind != loader::MemoryKind::HostPinned)
    return fail(cudaErrorInvalidValue, formatv("{0} is not pinned host memory", Ptr).str());
  // Pinned memory is always mapped here (one address space).
  *Flags = A->second.Flags | 2; // cudaHostAllocMapped
  return cudaSuccess;
}

} // namespace ptx2amd::runtime
