//===- HsaObjects.h - the HSA device's classes, shared by its files -*- C++ -*-===//
//
// Private to the files of the HSA device: HsaDevice.cpp (agents, pools, the device),
// HsaMemory.cpp (memory and copies), HsaModules.cpp (code objects, kernels, variables) and
// HsaQueues.cpp (streams, dispatch, events). The device, its streams, events, modules, kernels
// and physical memory, and the error helpers for ROCr's statuses.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ptx2amd/amdgpu-backend/KernelMetadata.h"
#include "ptx2amd/loader/HsaDevice.h"
#include "ptx2amd/support/Error.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <dlfcn.h>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

namespace ptx2amd::loader::hsa {

using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;

/// An error of the HSA device ("HSA: ..."); hsaError takes its kind from the status.
Error fail(ErrorKind K, const Twine &Msg);
/// "HSA_STATUS_ERROR_OUT_OF_RESOURCES (0x1008)": the name ROCr gives a status, without its
/// sentence of explanation, so that a failure stays one short line.
std::string statusName(hsa_status_t S);
Error hsaError(hsa_status_t S, const Twine &Call);

#define PTX2AMD_HSA_CHECK(Call)                                                                    \
  if (hsa_status_t S_ = (Call); S_ != HSA_STATUS_SUCCESS)                                          \
    return hsaError(S_, #Call);

/// The pools a device allocates from.
struct Pools {
  hsa_amd_memory_pool_t Device{};  ///< GPU, coarse-grained global
  hsa_amd_memory_pool_t Host{};    ///< CPU, fine-grained global
  hsa_amd_memory_pool_t Kernarg{}; ///< CPU, kernarg (fine-grained)
  uint64_t GroupBytes = 0;         ///< GPU group segment (LDS per workgroup)
};

class HsaDevice;

/// ROCr's virtual memory API, as hsa_ext_amd.h of ROCm 6 declares it (written here: the headers
/// this builds with may not have it). All of it or nothing: load() says which.
struct VmemApi {
  struct Handle {
    uint64_t handle;
  };
  struct AccessDesc {
    hsa_access_permission_t permissions;
    hsa_agent_t agent_handle;
  };
  static constexpr int MemoryTypePinned = 1; // hsa_amd_memory_type_t's MEMORY_TYPE_PINNED

  hsa_status_t (*AddressReserve)(void **Va, size_t Size, uint64_t Address, uint64_t Flags);
  hsa_status_t (*AddressReserveAlign)(void **Va, size_t Size, uint64_t Address, uint64_t Align,
                                      uint64_t Flags); ///< ROCm 6.2 on; may be null
  hsa_status_t (*AddressFree)(void *Va, size_t Size);
  hsa_status_t (*HandleCreate)(hsa_amd_memory_pool_t Pool, size_t Size, int Type, uint64_t Flags,
                               Handle *Out);
  hsa_status_t (*HandleRelease)(Handle H);
  hsa_status_t (*Map)(void *Va, size_t Size, size_t Offset, Handle H, uint64_t Flags);
  hsa_status_t (*Unmap)(void *Va, size_t Size);
  hsa_status_t (*SetAccess)(void *Va, size_t Size, const AccessDesc *Desc, size_t Count);
  hsa_status_t (*ExportShareable)(int *DmabufFd, Handle H, uint64_t Flags);
  hsa_status_t (*ImportShareable)(int DmabufFd, Handle *Out);

  bool load() {
    auto Find = [](auto &Fn, const char *Name) {
      Fn = reinterpret_cast<std::remove_reference_t<decltype(Fn)>>(dlsym(RTLD_DEFAULT, Name));
      return Fn != nullptr;
    };
    Find(AddressReserveAlign, "hsa_amd_vmem_address_reserve_align");
    return Find(AddressReserve, "hsa_amd_vmem_address_reserve") &&
           Find(AddressFree, "hsa_amd_vmem_address_free") &&
           Find(HandleCreate, "hsa_amd_vmem_handle_create") &&
           Find(HandleRelease, "hsa_amd_vmem_handle_release") && Find(Map, "hsa_amd_vmem_map") &&
           Find(Unmap, "hsa_amd_vmem_unmap") && Find(SetAccess, "hsa_amd_vmem_set_access") &&
           Find(ExportShareable, "hsa_amd_vmem_export_shareable_handle") &&
           Find(ImportShareable, "hsa_amd_vmem_import_shareable_handle");
  }
};

class HsaPhysical final : public PhysicalMemory {
public:
  HsaPhysical(const VmemApi &Api, VmemApi::Handle H, size_t Bytes) : Api(Api), H(H), Bytes(Bytes) {}
  ~HsaPhysical() override { Api.HandleRelease(H); }
  size_t size() const override { return Bytes; }
  const VmemApi &Api;
  const VmemApi::Handle H;
  const size_t Bytes;
};

/// A module's device output buffer (device printf and assertion records) in fine-grained host
/// memory. Shared by the module and the streams that ran its kernels since their last
/// synchronization, which drain it then.
struct OutputBuffer {
  std::string Module;
  uint8_t *Data = nullptr;
  ~OutputBuffer() {
    if (Data)
      hsa_amd_memory_pool_free(Data);
  }
};
constexpr uint32_t OutputBufferBytes = 1 << 20;

/// A stream: an AQL queue and the work in flight on it, oldest first.
class HsaStream final : public Stream {
public:
  struct Work {
    hsa_signal_t Done;
    void *Kernarg = nullptr;   ///< freed with the work
    void *Workspace = nullptr; ///< a cooperative launch's grid workspace, freed with the work
  };
  HsaStream(HsaDevice &D, hsa_queue_t *Q) : Dev(D), Queue(Q) {}
  ~HsaStream() override;

  HsaDevice &Dev;
  hsa_queue_t *Queue;
  std::mutex Mutex;
  std::deque<Work> InFlight;
  /// The output buffers of the modules launched since the last synchronize().
  std::vector<std::shared_ptr<OutputBuffer>> Outputs;
  /// The newest work is a copy, outside the queue: the next packet must wait for its signal.
  bool LastOutsideQueue = false;
};

class HsaEvent final : public Event {
public:
  explicit HsaEvent(hsa_signal_t S) : Done(S) {}
  ~HsaEvent() override { hsa_signal_destroy(Done); }
  hsa_signal_t Done; ///< 0 when complete; decremented by the marker packet of record()
  std::atomic<bool> Recorded{false};
};

class HsaKernel final : public Kernel {
public:
  const amdgpu::KernelMetadata &metadata() const override { return Meta; }
  amdgpu::KernelMetadata Meta;
  uint64_t Object = 0; ///< the kernel descriptor's address, for the dispatch packet
  std::shared_ptr<OutputBuffer> Output; ///< its module's, when the module has one
};

class HsaModule final : public Module {
public:
  explicit HsaModule(HsaDevice &D) : Dev(D) {}
  ~HsaModule() override;
  Expected<const Kernel &> kernel(StringRef Name) override;
  Expected<GlobalSymbol> global(StringRef Name) override;
  std::vector<std::string> kernelNames() override {
    std::vector<std::string> Names;
    for (const amdgpu::KernelMetadata &K : Meta.Kernels)
      Names.push_back(K.Name);
    return Names;
  }

  HsaDevice &Dev;
  std::vector<uint8_t> Bytes; ///< the reader reads from them until the executable is gone
  amdgpu::CodeObjectMetadata Meta;
  hsa_code_object_reader_t Reader{};
  hsa_executable_t Executable{};
  std::mutex Mutex;
  std::map<std::string, std::unique_ptr<HsaKernel>, std::less<>> Kernels;
  std::shared_ptr<OutputBuffer> Output; ///< when the code object has amdgpu::OutputBufferSymbol
};

class HsaDevice final : public Device {
public:
  static Expected<std::unique_ptr<HsaDevice>> create();
  ~HsaDevice() override = default;

  const DeviceProperties &properties() const override { return Props; }
  Expected<void *> allocate(size_t Bytes, MemoryKind Kind) override;
  Error release(void *Ptr) override;
  Error registerHostMemory(void *Ptr, size_t Bytes) override;
  Error unregisterHostMemory(void *Ptr) override;
  Error copy(void *Dst, const void *Src, size_t Bytes, CopyKind Kind, Stream *S) override;
  Error memset(void *Dst, uint8_t Value, size_t Bytes, Stream *S) override;
  Expected<std::unique_ptr<Module>> loadModule(const ModuleImage &Image) override;
  Error launch(const Kernel &K, const amdgpu::LaunchGeometry &G, void **Args, Stream *S,
               const LaunchOptions &O) override;
  Expected<std::unique_ptr<Stream>> createStream() override;
  Error synchronize(Stream *S) override;
  Expected<std::unique_ptr<Event>> createEvent() override;
  Error record(Event &E, Stream *S) override;
  Error synchronize(Event &E) override;
  Expected<bool> isComplete(Event &E) override;
  Expected<float> elapsedMs(Event &Start, Event &End) override;
  Expected<void *> reserveAddressRange(size_t Bytes, size_t Alignment, void *Hint) override;
  Error freeAddressRange(void *Start, size_t Bytes) override;
  Expected<std::unique_ptr<PhysicalMemory>> createPhysical(size_t Bytes) override;
  Error map(void *At, size_t Bytes, PhysicalMemory &P, size_t Offset) override;
  Error unmap(void *At, size_t Bytes) override;
  Error setAccess(void *At, size_t Bytes, bool Read, bool Write) override;
  Expected<int> exportPhysical(PhysicalMemory &P) override;
  Expected<std::unique_ptr<PhysicalMemory>> importPhysical(int Fd) override;
  /// Whether \p Ptr lies in memory map() mapped (the copy engine takes it as the GPU's).
  bool inMapping(const void *Ptr);

  hsa_agent_t Gpu{}, Cpu{};
  VmemApi Vmem{};
  std::mutex VmemMutex;
  std::map<uintptr_t, size_t> Mapped; ///< by start; guarded by VmemMutex
  Pools Mem;
  DeviceProperties Props;
  hsa_profile_t Profile = HSA_PROFILE_BASE;
  uint64_t TimestampHz = 1;
  uint32_t QueueSize = 0;
  /// The first failure a queue reported (ROCr's queue callback); sticky, as CUDA's is.
  std::atomic<uint32_t> QueueFailure{HSA_STATUS_SUCCESS};
  std::unique_ptr<HsaStream> DefaultStream;

  Error checkQueues() const;
  Error waitFor(hsa_signal_t Signal);
  /// Memory of \p Pool the GPU can access, zeroed when \p Zero.
  Expected<void *> poolAllocate(hsa_amd_memory_pool_t Pool, size_t Bytes, bool Zero);
  Expected<HsaStream *> newStream();
  HsaStream &stream(Stream *S) { return S ? static_cast<HsaStream &>(*S) : *DefaultStream; }

  // With the stream's mutex held:
  void reclaim(HsaStream &St);
  Error drain(HsaStream &St);
  /// Prints the device printf output of the modules \p St ran since its last call, and returns
  /// their failed assertions as an error.
  Error drainOutput(HsaStream &St);
  Error submit(HsaStream &St, const void *Packet);
  /// A barrier packet after the newest copy of \p St when there is one (else nothing), then
  /// \p Completion (0: none) is signalled.
  Error orderPackets(HsaStream &St, uint64_t Completion);
};

} // namespace ptx2amd::loader::hsa
