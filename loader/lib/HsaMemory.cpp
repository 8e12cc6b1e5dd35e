//===- HsaMemory.cpp - the HSA device's memory: pools, host memory, virtual memory, copies ===//
//
// Allocations come from the pools HsaDevice.cpp found; virtual memory management goes through
// ROCr's hsa_amd_vmem_* API where the loaded ROCr has it. Copies run on ROCr's DMA path, after
// the stream's newest work by a signal dependency.

#include "HsaObjects.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <unistd.h>

using namespace llvm;

namespace ptx2amd::loader::hsa {
namespace {

/// What ROCr knows of \p Ptr.
hsa_amd_pointer_info_t pointerInfo(const void *Ptr) {
  hsa_amd_pointer_info_t Info{};
  Info.size = sizeof(Info);
  if (hsa_amd_pointer_info(Ptr, &Info, nullptr, nullptr, nullptr) != HSA_STATUS_SUCCESS)
    Info.type = HSA_EXT_POINTER_TYPE_UNKNOWN;
  return Info;
}

Error noVmem() {
  return fail(ErrorKind::Unsupported, "ROCr has no virtual memory API (hsa_amd_vmem_*)");
}

/// One side of a copy: the address and agent ROCr's copy engine takes, and host memory locked
/// for the copy (unlocked after it).
struct CopySide {
  void *Address = nullptr;
  hsa_agent_t Agent{};
  void *Locked = nullptr;
};

} // namespace

Expected<void *> HsaDevice::poolAllocate(hsa_amd_memory_pool_t Pool, size_t Bytes, bool Zero) {
  void *P = nullptr;
  size_t Rounded = alignTo(std::max<size_t>(Bytes, 1), 256);
  PTX2AMD_HSA_CHECK(hsa_amd_memory_pool_allocate(Pool, Rounded, 0, &P));
  if (Pool.handle != Mem.Device.handle) {
    // Host pools are not the GPU's until it is allowed in.
    if (hsa_status_t S = hsa_amd_agents_allow_access(1, &Gpu, nullptr, P);
        S != HSA_STATUS_SUCCESS) {
      hsa_amd_memory_pool_free(P);
      return hsaError(S, "hsa_amd_agents_allow_access");
    }
    if (Zero)
      std::memset(P, 0, Rounded);
  } else if (Zero) {
    if (hsa_status_t S = hsa_amd_memory_fill(P, 0, Rounded / 4); S != HSA_STATUS_SUCCESS) {
      hsa_amd_memory_pool_free(P);
      return hsaError(S, "hsa_amd_memory_fill");
    }
  }
  return P;
}

Expected<void *> HsaDevice::allocate(size_t Bytes, MemoryKind Kind) {
  return poolAllocate(Kind == MemoryKind::Device ? Mem.Device : Mem.Host, Bytes, true);
}

Error HsaDevice::release(void *Ptr) {
  if (!Ptr)
    return Error::success();
  hsa_amd_pointer_info_t Info = pointerInfo(Ptr);
  if (Info.type != HSA_EXT_POINTER_TYPE_HSA ||
      (Ptr != Info.agentBaseAddress && Ptr != Info.hostBaseAddress))
    return fail(ErrorKind::BadInput, "release of " + Twine(utohexstr(uintptr_t(Ptr))) +
                                         ", which allocate() did not return");
  PTX2AMD_HSA_CHECK(hsa_amd_memory_pool_free(Ptr));
  return Error::success();
}

// Pinned for the GPU; kernels address it where the host does (unified addressing), which ROCr
// gives on Linux: an agent address elsewhere is refused rather than handed out.
Error HsaDevice::registerHostMemory(void *Ptr, size_t Bytes) {
  void *AgentPtr = nullptr;
  hsa_agent_t Agents[] = {Gpu};
  PTX2AMD_HSA_CHECK(hsa_amd_memory_lock(Ptr, Bytes, Agents, 1, &AgentPtr));
  if (AgentPtr != Ptr) {
    hsa_amd_memory_unlock(Ptr);
    return fail(ErrorKind::BadInput, "host memory at " + Twine(utohexstr(uintptr_t(Ptr))) +
                                         " was locked at another GPU address (" +
                                         Twine(utohexstr(uintptr_t(AgentPtr))) + ")");
  }
  return Error::success();
}

Error HsaDevice::unregisterHostMemory(void *Ptr) {
  PTX2AMD_HSA_CHECK(hsa_amd_memory_unlock(Ptr));
  return Error::success();
}

bool HsaDevice::inMapping(const void *Ptr) {
  std::lock_guard<std::mutex> Lock(VmemMutex);
  auto It = Mapped.upper_bound(uintptr_t(Ptr));
  return It != Mapped.begin() && uintptr_t(Ptr) - std::prev(It)->first < std::prev(It)->second;
}

Expected<void *> HsaDevice::reserveAddressRange(size_t Bytes, size_t Alignment, void *Hint) {
  if (!Props.VirtualMemoryGranule)
    return noVmem();
  void *P = nullptr;
  if (Alignment > Props.VirtualMemoryGranule) {
    if (!Vmem.AddressReserveAlign)
      return fail(ErrorKind::OutOfResources,
                  "reserving addresses aligned to " + Twine(Alignment) +
                      ": ROCr has no hsa_amd_vmem_address_reserve_align");
    PTX2AMD_HSA_CHECK(Vmem.AddressReserveAlign(&P, Bytes, uint64_t(uintptr_t(Hint)), Alignment, 0));
  } else {
    PTX2AMD_HSA_CHECK(Vmem.AddressReserve(&P, Bytes, uint64_t(uintptr_t(Hint)), 0));
  }
  return P;
}

Error HsaDevice::freeAddressRange(void *Start, size_t Bytes) {
  if (!Props.VirtualMemoryGranule)
    return noVmem();
  PTX2AMD_HSA_CHECK(Vmem.AddressFree(Start, Bytes));
  return Error::success();
}

Expected<std::unique_ptr<PhysicalMemory>> HsaDevice::createPhysical(size_t Bytes) {
  if (!Props.VirtualMemoryGranule)
    return noVmem();
  VmemApi::Handle H{};
  PTX2AMD_HSA_CHECK(Vmem.HandleCreate(Mem.Device, Bytes, VmemApi::MemoryTypePinned, 0, &H));
  return std::make_unique<HsaPhysical>(Vmem, H, Bytes);
}

Error HsaDevice::map(void *At, size_t Bytes, PhysicalMemory &P, size_t Offset) {
  if (!Props.VirtualMemoryGranule)
    return noVmem();
  PTX2AMD_HSA_CHECK(Vmem.Map(At, Bytes, Offset, static_cast<HsaPhysical &>(P).H, 0));
  std::lock_guard<std::mutex> Lock(VmemMutex);
  Mapped[uintptr_t(At)] = Bytes;
  return Error::success();
}

Error HsaDevice::unmap(void *At, size_t Bytes) {
  if (!Props.VirtualMemoryGranule)
    return noVmem();
  PTX2AMD_HSA_CHECK(Vmem.Unmap(At, Bytes));
  std::lock_guard<std::mutex> Lock(VmemMutex);
  Mapped.erase(uintptr_t(At));
  return Error::success();
}

// The GPU's access; the host reaches this memory through copies, as CUDA's device memory.
Error HsaDevice::setAccess(void *At, size_t Bytes, bool Read, bool Write) {
  if (!Props.VirtualMemoryGranule)
    return noVmem();
  VmemApi::AccessDesc D{Write  ? HSA_ACCESS_PERMISSION_RW
                        : Read ? HSA_ACCESS_PERMISSION_RO
                               : hsa_access_permission_t(0),
                        Gpu};
  PTX2AMD_HSA_CHECK(Vmem.SetAccess(At, Bytes, &D, 1));
  return Error::success();
}

Expected<int> HsaDevice::exportPhysical(PhysicalMemory &P) {
  if (!Props.VirtualMemoryGranule)
    return noVmem();
  int Fd = -1;
  PTX2AMD_HSA_CHECK(Vmem.ExportShareable(&Fd, static_cast<HsaPhysical &>(P).H, 0));
  return Fd;
}

Expected<std::unique_ptr<PhysicalMemory>> HsaDevice::importPhysical(int Fd) {
  if (!Props.VirtualMemoryGranule)
    return noVmem();
  // The dma-buf's size is its file's.
  off_t Bytes = ::lseek(Fd, 0, SEEK_END);
  if (Bytes <= 0)
    return fail(ErrorKind::BadInput, "file descriptor " + Twine(Fd) + " is not device memory");
  VmemApi::Handle H{};
  PTX2AMD_HSA_CHECK(Vmem.ImportShareable(Fd, &H));
  return std::make_unique<HsaPhysical>(Vmem, H, size_t(Bytes));
}

Error HsaDevice::copy(void *Dst, const void *Src, size_t Bytes, CopyKind Kind, Stream *S) {
  if (Bytes == 0)
    return Error::success();
  auto Side = [&](const void *Ptr, bool Host) -> Expected<CopySide> {
    if (inMapping(Ptr))
      return CopySide{const_cast<void *>(Ptr), Gpu};
    hsa_amd_pointer_info_t Info = pointerInfo(Ptr);
    if (Info.type == HSA_EXT_POINTER_TYPE_HSA)
      return CopySide{const_cast<void *>(Ptr), Info.agentOwner};
    if (!Host)
      return fail(ErrorKind::BadInput,
                  "copy: " + Twine(utohexstr(uintptr_t(Ptr))) + " is not memory of this device");
    if (Info.type == HSA_EXT_POINTER_TYPE_LOCKED)
      return CopySide{static_cast<uint8_t *>(Info.agentBaseAddress) +
                          (static_cast<const uint8_t *>(Ptr) -
                           static_cast<const uint8_t *>(Info.hostBaseAddress)),
                      Cpu};
    // Pageable host memory: pinned for the copy, through the address the agent sees.
    CopySide C{nullptr, Cpu, const_cast<void *>(Ptr)};
    PTX2AMD_HSA_CHECK(hsa_amd_memory_lock(C.Locked, Bytes, &Gpu, 1, &C.Address));
    return C;
  };
  auto D = Side(Dst, Kind == CopyKind::DeviceToHost);
  if (!D)
    return D.takeError();
  auto From = Side(Src, Kind == CopyKind::HostToDevice);
  if (!From) {
    if (D->Locked)
      hsa_amd_memory_unlock(D->Locked);
    return From.takeError();
  }
  auto Unlock = [&] {
    for (void *L : {D->Locked, From->Locked})
      if (L)
        hsa_amd_memory_unlock(L);
  };

  HsaStream &St = stream(S);
  std::lock_guard<std::mutex> Lock(St.Mutex);
  reclaim(St);
  hsa_signal_t Done;
  if (hsa_status_t R = hsa_signal_create(1, 0, nullptr, &Done); R != HSA_STATUS_SUCCESS) {
    Unlock();
    return hsaError(R, "hsa_signal_create");
  }
  // After the newest work of the stream, whichever path it took.
  SmallVector<hsa_signal_t, 1> Deps;
  if (!St.InFlight.empty())
    Deps.push_back(St.InFlight.back().Done);
  if (hsa_status_t R = hsa_amd_memory_async_copy(D->Address, D->Agent, From->Address, From->Agent,
                                                 Bytes, Deps.size(), Deps.data(), Done);
      R != HSA_STATUS_SUCCESS) {
    hsa_signal_destroy(Done);
    Unlock();
    return hsaError(R, "hsa_amd_memory_async_copy");
  }
  St.InFlight.push_back({Done});
  St.LastOutsideQueue = true;
  if (!D->Locked && !From->Locked)
    return Error::success();
  Error E = waitFor(Done);
  Unlock();
  return E;
}

Error HsaDevice::memset(void *Dst, uint8_t Value, size_t Bytes, Stream *S) {
  HsaStream &St = stream(S);
  std::lock_guard<std::mutex> Lock(St.Mutex);
  if (Error E = drain(St))
    return E;
  if (Bytes == 0)
    return Error::success();
  hsa_amd_pointer_info_t Info = pointerInfo(Dst);
  if (Info.type != HSA_EXT_POINTER_TYPE_HSA)
    return fail(ErrorKind::BadInput,
                "memset: " + Twine(utohexstr(uintptr_t(Dst))) + " is not memory of this device");
  // Host pools (HostPinned, Managed): the CPU writes them directly.
  if (Info.agentOwner.handle == Cpu.handle) {
    std::memset(Dst, Value, Bytes);
    return Error::success();
  }
  // Device memory: whole dwords with ROCr's fill, the 1..3 bytes at either end by copy.
  auto *Begin = static_cast<uint8_t *>(Dst);
  uint8_t *End = Begin + Bytes;
  auto *Body = reinterpret_cast<uint8_t *>(alignTo(uintptr_t(Begin), 4));
  auto *BodyEnd = reinterpret_cast<uint8_t *>(alignDown(uintptr_t(End), 4));
  if (Body >= BodyEnd)
    Body = BodyEnd = End;
  if (Body < BodyEnd)
    PTX2AMD_HSA_CHECK(hsa_amd_memory_fill(Body, Value * 0x01010101u, (BodyEnd - Body) / 4));
  if (Begin == Body && BodyEnd == End)
    return Error::success();
  auto Staging = poolAllocate(Mem.Host, 8, false);
  if (!Staging)
    return Staging.takeError();
  std::memset(*Staging, Value, 8);
  Error E = Error::success();
  const std::pair<uint8_t *, size_t> Edges[] = {{Begin, Body - Begin}, {BodyEnd, End - BodyEnd}};
  for (auto [At, N] : Edges) {
    if (!N || E)
      continue;
    hsa_signal_t Done;
    if (hsa_status_t R = hsa_signal_create(1, 0, nullptr, &Done); R != HSA_STATUS_SUCCESS) {
      E = hsaError(R, "hsa_signal_create");
      continue;
    }
    if (hsa_status_t R = hsa_amd_memory_async_copy(At, Gpu, *Staging, Cpu, N, 0, nullptr, Done);
        R != HSA_STATUS_SUCCESS)
      E = hsaError(R, "hsa_amd_memory_async_copy");
    else
      E = waitFor(Done);
    hsa_signal_destroy(Done);
  }
  hsa_amd_memory_pool_free(*Staging);
  return E;
}

} // namespace ptx2amd::loader::hsa
