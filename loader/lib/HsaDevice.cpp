//===- HsaDevice.cpp - Device over the ROCm runtime (ROCr) ----------------===//
//
// One GPU agent, one AQL queue per stream. Every operation of a stream is in flight until its
// completion signal reaches 0: kernels and event markers are packets of the stream's queue (the
// barrier bit keeps them in order), copies run on ROCr's DMA path and are ordered by signal
// dependencies. Finished work is reclaimed (signal destroyed, kernarg memory freed) lazily.
//
// Virtual memory management goes through ROCr's hsa_amd_vmem_* API (ROCm 6.0 on), looked up
// when the device is made: the ROCr this is built against may predate it, and where the loaded
// one lacks it the device reports no virtual memory management.

#include "ptx2amd/loader/HsaDevice.h"

#include "ptx2amd/amdgpu-backend/DeviceOutput.h"
#include "ptx2amd/amdgpu-backend/KernelFault.h"
#include "ptx2amd/amdgpu-backend/KernelMetadata.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <deque>
#include <dlfcn.h>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <unistd.h>

using namespace llvm;

namespace ptx2amd::loader {
namespace {

Error makeError(const Twine &Msg) {
  return createStringError(inconvertibleErrorCode(), "HSA: " + Msg);
}

/// "HSA_STATUS_ERROR_OUT_OF_RESOURCES (0x1008)": the name ROCr gives a status, without its
/// sentence of explanation, so that a failure stays one short line.
std::string statusName(hsa_status_t S) {
  const char *Text = nullptr;
  StringRef Name = "unknown status";
  if (hsa_status_string(S, &Text) == HSA_STATUS_SUCCESS && Text)
    Name = StringRef(Text).take_until([](char C) { return C == ':' || C == '\n'; });
  return (Name + " (0x" + utohexstr(unsigned(S)) + ")").str();
}

Error hsaError(hsa_status_t S, const Twine &Call) {
  return makeError(Call + " failed: " + statusName(S));
}

#define PTX2AMD_HSA_CHECK(Call)                                                                    \
  if (hsa_status_t S_ = (Call); S_ != HSA_STATUS_SUCCESS)                                          \
    return hsaError(S_, #Call);

template <typename T> T agentInfo(hsa_agent_t A, hsa_agent_info_t Attr) {
  T V{};
  hsa_agent_get_info(A, Attr, &V);
  return V;
}

template <typename T> T poolInfo(hsa_amd_memory_pool_t P, hsa_amd_memory_pool_info_t Attr) {
  T V{};
  hsa_amd_memory_pool_get_info(P, Attr, &V);
  return V;
}

struct GpuAgent {
  hsa_agent_t Agent;
  std::string IsaName;
  const amdgpu::Target *Target = nullptr;
};

struct Agents {
  std::vector<GpuAgent> Gpus;
  std::vector<hsa_agent_t> Cpus;
};

hsa_status_t collectAgent(hsa_agent_t A, void *Data) {
  auto &Out = *static_cast<Agents *>(Data);
  auto Kind = agentInfo<hsa_device_type_t>(A, HSA_AGENT_INFO_DEVICE);
  if (Kind == HSA_DEVICE_TYPE_CPU)
    Out.Cpus.push_back(A);
  if (Kind != HSA_DEVICE_TYPE_GPU)
    return HSA_STATUS_SUCCESS;
  GpuAgent G{A, {}};
  // An agent may list several ISAs; the first one we compile for wins.
  hsa_agent_iterate_isas(
      A,
      [](hsa_isa_t Isa, void *Data) {
        auto &G = *static_cast<GpuAgent *>(Data);
        uint32_t Length = 0;
        if (hsa_isa_get_info_alt(Isa, HSA_ISA_INFO_NAME_LENGTH, &Length) != HSA_STATUS_SUCCESS)
          return HSA_STATUS_SUCCESS;
        std::string Name(Length, '\0');
        if (hsa_isa_get_info_alt(Isa, HSA_ISA_INFO_NAME, Name.data()) != HSA_STATUS_SUCCESS)
          return HSA_STATUS_SUCCESS;
        Name.resize(std::strlen(Name.c_str()));
        if (G.IsaName.empty())
          G.IsaName = Name;
        if (const amdgpu::Target *T = amdgpu::findTarget(std::string(hsa::isaProcessor(Name)))) {
          G.IsaName = Name;
          G.Target = T;
          return HSA_STATUS_INFO_BREAK;
        }
        return HSA_STATUS_SUCCESS;
      },
      &G);
  Out.Gpus.push_back(std::move(G));
  return HSA_STATUS_SUCCESS;
}

/// The pools a device allocates from.
struct Pools {
  hsa_amd_memory_pool_t Device{};  ///< GPU, coarse-grained global
  hsa_amd_memory_pool_t Host{};    ///< CPU, fine-grained global
  hsa_amd_memory_pool_t Kernarg{}; ///< CPU, kernarg (fine-grained)
  uint64_t GroupBytes = 0;         ///< GPU group segment (LDS per workgroup)
};

hsa_status_t collectPool(hsa_amd_memory_pool_t P, void *Data) {
  auto &Out = *static_cast<Pools *>(Data);
  auto Segment = poolInfo<hsa_amd_segment_t>(P, HSA_AMD_MEMORY_POOL_INFO_SEGMENT);
  if (Segment == HSA_AMD_SEGMENT_GROUP) {
    Out.GroupBytes = poolInfo<size_t>(P, HSA_AMD_MEMORY_POOL_INFO_SIZE);
    return HSA_STATUS_SUCCESS;
  }
  if (Segment != HSA_AMD_SEGMENT_GLOBAL ||
      !poolInfo<bool>(P, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_ALLOWED))
    return HSA_STATUS_SUCCESS;
  auto Flags = poolInfo<uint32_t>(P, HSA_AMD_MEMORY_POOL_INFO_GLOBAL_FLAGS);
  if (Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_KERNARG_INIT) {
    if (!Out.Kernarg.handle)
      Out.Kernarg = P;
  } else if (Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_FINE_GRAINED) {
    if (!Out.Host.handle)
      Out.Host = P;
  } else if (Flags & HSA_AMD_MEMORY_POOL_GLOBAL_FLAG_COARSE_GRAINED) {
    if (!Out.Device.handle)
      Out.Device = P;
  }
  return HSA_STATUS_SUCCESS;
}

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

/// A stream: an AQL queue and the work in flight on it, oldest first.
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

HsaStream::~HsaStream() {
  std::lock_guard<std::mutex> Lock(Mutex);
  // Failures of this work were the caller's to collect by synchronizing.
  consumeError(Dev.drain(*this));
  hsa_queue_destroy(Queue);
}

void onQueueError(hsa_status_t S, hsa_queue_t *, void *Data) {
  uint32_t Expected = HSA_STATUS_SUCCESS;
  static_cast<HsaDevice *>(Data)->QueueFailure.compare_exchange_strong(Expected, uint32_t(S));
}

Expected<std::unique_ptr<HsaDevice>> HsaDevice::create() {
  if (hsa_status_t S = hsa_init(); S != HSA_STATUS_SUCCESS) {
    std::string Why = ::access("/dev/kfd", F_OK) == 0
                          ? ""
                          : "; /dev/kfd is missing: no AMD GPU driver on this machine";
    return makeError("hsa_init failed: " + statusName(S) + Why);
  }
  // Failing from here on, the runtime goes down again.
  auto Fail = [](Error E) {
    hsa_shut_down();
    return E;
  };
  Agents Found;
  if (hsa_status_t S = hsa_iterate_agents(collectAgent, &Found); S != HSA_STATUS_SUCCESS)
    return Fail(hsaError(S, "hsa_iterate_agents"));
  auto It = std::find_if(Found.Gpus.begin(), Found.Gpus.end(),
                         [](const GpuAgent &G) { return G.Target; });
  if (It == Found.Gpus.end()) {
    std::string Isas;
    for (const GpuAgent &G : Found.Gpus)
      Isas += (Isas.empty() ? "" : ", ") + G.IsaName;
    return Fail(makeError(Found.Gpus.empty()
                              ? std::string("no GPU agent")
                              : "no GPU agent of a supported target (" +
                                    amdgpu::knownTargetNames() + "); found " + Isas));
  }
  if (Found.Cpus.empty())
    return Fail(makeError("no CPU agent"));

  auto D = std::unique_ptr<HsaDevice>(new HsaDevice);
  D->Gpu = It->Agent;
  D->Cpu = Found.Cpus.front();
  hsa_amd_agent_iterate_memory_pools(D->Gpu, collectPool, &D->Mem);
  Pools HostPools;
  hsa_amd_agent_iterate_memory_pools(D->Cpu, collectPool, &HostPools);
  D->Mem.Host = HostPools.Host;
  D->Mem.Kernarg = HostPools.Kernarg.handle ? HostPools.Kernarg : HostPools.Host;
  if (!D->Mem.Device.handle || !D->Mem.Host.handle)
    return Fail(makeError(
        "no " + Twine(D->Mem.Device.handle ? "fine-grained host" : "coarse-grained device") +
        " memory pool for " + It->IsaName));

  DeviceProperties &P = D->Props;
  char Product[64] = {};
  hsa_agent_get_info(D->Gpu, hsa_agent_info_t(HSA_AMD_AGENT_INFO_PRODUCT_NAME), Product);
  P.Name = Product[0] ? std::string(Product, strnlen(Product, sizeof(Product)))
                      : std::string(It->Target->Name);
  P.IsaName = It->IsaName;
  P.Target = It->Target;
  // The code we compile has the target table's wave size, whatever the agent's default is.
  P.WaveSize = It->Target->WaveSize;
  P.ComputeUnits =
      agentInfo<uint32_t>(D->Gpu, hsa_agent_info_t(HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT));
  P.LdsBytesPerWorkgroup = D->Mem.GroupBytes ? D->Mem.GroupBytes : It->Target->LdsBytesPerWorkgroup;
  P.GlobalMemoryBytes = poolInfo<size_t>(D->Mem.Device, HSA_AMD_MEMORY_POOL_INFO_SIZE);
  D->Profile = agentInfo<hsa_profile_t>(D->Gpu, HSA_AGENT_INFO_PROFILE);
  hsa_system_get_info(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &D->TimestampHz);
  D->TimestampHz = std::max<uint64_t>(D->TimestampHz, 1);
  if (D->Vmem.load()) {
    P.VirtualMemoryGranule =
        poolInfo<size_t>(D->Mem.Device, HSA_AMD_MEMORY_POOL_INFO_RUNTIME_ALLOC_GRANULE);
    P.VirtualMemoryRecommendedGranule = P.VirtualMemoryGranule;
    P.ShareableFileDescriptors = P.VirtualMemoryGranule != 0; // dma-buf file descriptors
  }
  // Enough packets for deep streams; a full queue only makes launch() wait for a free slot.
  D->QueueSize =
      std::min<uint32_t>(agentInfo<uint32_t>(D->Gpu, HSA_AGENT_INFO_QUEUE_MAX_SIZE), 4096);
  auto Default = D->newStream();
  if (!Default)
    return Fail(Default.takeError());
  D->DefaultStream.reset(*Default);
  return D;
}

Error HsaDevice::checkQueues() const {
  uint32_t S = QueueFailure.load();
  if (S == HSA_STATUS_SUCCESS)
    return Error::success();
  amdgpu::FaultKind Kind = amdgpu::FaultKind::Other;
  switch (S) {
  case HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION:
  case HSA_STATUS_ERROR_MEMORY_FAULT:
    Kind = amdgpu::FaultKind::MemoryFault;
    break;
  case HSA_STATUS_ERROR_EXCEPTION:
    Kind = amdgpu::FaultKind::Trap;
    break;
  default:
    break;
  }
  return amdgpu::makeFault(Kind, "device work failed earlier: " + statusName(hsa_status_t(S)));
}

Error HsaDevice::waitFor(hsa_signal_t Signal) {
  // In slices of 100 ms: a failed queue never lowers the signal, and says so in QueueFailure.
  for (;;) {
    hsa_signal_value_t V = hsa_signal_wait_scacquire(Signal, HSA_SIGNAL_CONDITION_LT, 1,
                                                     TimestampHz / 10, HSA_WAIT_STATE_BLOCKED);
    if (V < 0)
      return makeError("device work failed (completion signal " + Twine(V) + ")");
    if (V == 0)
      return Error::success();
    if (Error E = checkQueues())
      return E;
  }
}

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

Expected<HsaStream *> HsaDevice::newStream() {
  hsa_queue_t *Q = nullptr;
  PTX2AMD_HSA_CHECK(hsa_queue_create(Gpu, QueueSize, HSA_QUEUE_TYPE_MULTI, onQueueError, this,
                                     UINT32_MAX, UINT32_MAX, &Q));
  // Timestamps on completion signals, for elapsedMs().
  if (hsa_status_t S = hsa_amd_profiling_set_profiler_enabled(Q, 1); S != HSA_STATUS_SUCCESS) {
    hsa_queue_destroy(Q);
    return hsaError(S, "hsa_amd_profiling_set_profiler_enabled");
  }
  return new HsaStream(*this, Q);
}

void HsaDevice::reclaim(HsaStream &St) {
  while (!St.InFlight.empty() && hsa_signal_load_scacquire(St.InFlight.front().Done) < 1) {
    hsa_signal_destroy(St.InFlight.front().Done);
    if (St.InFlight.front().Kernarg)
      hsa_amd_memory_pool_free(St.InFlight.front().Kernarg);
    if (St.InFlight.front().Workspace)
      hsa_amd_memory_pool_free(St.InFlight.front().Workspace);
    St.InFlight.pop_front();
  }
  if (St.InFlight.empty())
    St.LastOutsideQueue = false;
}

Error HsaDevice::drain(HsaStream &St) {
  Error E = St.InFlight.empty() ? Error::success() : waitFor(St.InFlight.back().Done);
  if (!E)
    reclaim(St);
  return E;
}

Error HsaDevice::submit(HsaStream &St, const void *Packet) {
  hsa_queue_t *Q = St.Queue;
  uint64_t Index = hsa_queue_add_write_index_scacq_screl(Q, 1);
  while (Index - hsa_queue_load_read_index_scacquire(Q) >= Q->size) {
    if (Error E = checkQueues())
      return E;
    std::this_thread::yield();
  }
  void *Slot = static_cast<uint8_t *>(Q->base_address) + (Index & (Q->size - 1)) * 64;
  hsa::writeAqlPacket(Slot, Packet);
  hsa_signal_store_screlease(Q->doorbell_signal, hsa_signal_value_t(Index));
  return Error::success();
}

Error HsaDevice::orderPackets(HsaStream &St, uint64_t Completion) {
  if (!St.LastOutsideQueue && !Completion)
    return Error::success();
  SmallVector<uint64_t, 1> Deps;
  if (St.LastOutsideQueue)
    Deps.push_back(St.InFlight.back().Done.handle);
  auto B = hsa::makeBarrierPacket(Deps, Completion);
  if (!B)
    return B.takeError();
  St.LastOutsideQueue = false;
  return submit(St, &*B);
}

Expected<void *> HsaDevice::allocate(size_t Bytes, MemoryKind Kind) {
  return poolAllocate(Kind == MemoryKind::Device ? Mem.Device : Mem.Host, Bytes, true);
}

/// What ROCr knows of \p Ptr.
hsa_amd_pointer_info_t pointerInfo(const void *Ptr) {
  hsa_amd_pointer_info_t Info{};
  Info.size = sizeof(Info);
  if (hsa_amd_pointer_info(Ptr, &Info, nullptr, nullptr, nullptr) != HSA_STATUS_SUCCESS)
    Info.type = HSA_EXT_POINTER_TYPE_UNKNOWN;
  return Info;
}

Error HsaDevice::release(void *Ptr) {
  if (!Ptr)
    return Error::success();
  hsa_amd_pointer_info_t Info = pointerInfo(Ptr);
  if (Info.type != HSA_EXT_POINTER_TYPE_HSA ||
      (Ptr != Info.agentBaseAddress && Ptr != Info.hostBaseAddress))
    return makeError("release of " + Twine(utohexstr(uintptr_t(Ptr))) +
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
    return makeError("host memory at " + Twine(utohexstr(uintptr_t(Ptr))) +
                     " was locked at another GPU address (" +
                     Twine(utohexstr(uintptr_t(AgentPtr))) + ")");
  }
  return Error::success();
}

Error HsaDevice::unregisterHostMemory(void *Ptr) {
  PTX2AMD_HSA_CHECK(hsa_amd_memory_unlock(Ptr));
  return Error::success();
}

Error noVmem() { return makeError("ROCr has no virtual memory API (hsa_amd_vmem_*)"); }

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
      return makeError("reserving addresses aligned to " + Twine(Alignment) +
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
    return makeError("file descriptor " + Twine(Fd) + " is not device memory");
  VmemApi::Handle H{};
  PTX2AMD_HSA_CHECK(Vmem.ImportShareable(Fd, &H));
  return std::make_unique<HsaPhysical>(Vmem, H, size_t(Bytes));
}

/// One side of a copy: the address and agent ROCr's copy engine takes, and host memory locked
/// for the copy (unlocked after it).
struct CopySide {
  void *Address = nullptr;
  hsa_agent_t Agent{};
  void *Locked = nullptr;
};

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
      return makeError("copy: " + Twine(utohexstr(uintptr_t(Ptr))) +
                       " is not memory of this device");
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
    return makeError("memset: " + Twine(utohexstr(uintptr_t(Dst))) +
                     " is not memory of this device");
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

Expected<std::unique_ptr<Module>> HsaDevice::loadModule(const ModuleImage &Image) {
  ArrayRef<uint8_t> CodeObject = Image.CodeObject;
  if (CodeObject.empty())
    return makeError("module '" + Image.Name + "' has no code object to load");
  auto Meta = amdgpu::readCodeObjectMetadata(CodeObject);
  if (!Meta)
    return Meta.takeError();
  if (Meta->elfMach() != Props.Target->ElfMach)
    return makeError("code object for '" + Meta->TargetId + "' on a device of '" + Props.IsaName +
                     "'");
  auto M = std::make_unique<HsaModule>(*this);
  M->Bytes.assign(CodeObject.begin(), CodeObject.end());
  M->Meta = std::move(*Meta);
  PTX2AMD_HSA_CHECK(
      hsa_code_object_reader_create_from_memory(M->Bytes.data(), M->Bytes.size(), &M->Reader));
  PTX2AMD_HSA_CHECK(hsa_executable_create_alt(Profile, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                              nullptr, &M->Executable));
  PTX2AMD_HSA_CHECK(
      hsa_executable_load_agent_code_object(M->Executable, Gpu, M->Reader, nullptr, nullptr));
  PTX2AMD_HSA_CHECK(hsa_executable_freeze(M->Executable, nullptr));
  // Kernels that call printf or assert write records to the buffer the variable points to.
  if (auto G = M->global(amdgpu::OutputBufferSymbol)) {
    auto Data = poolAllocate(Mem.Host, OutputBufferBytes, /*Zero=*/true);
    if (!Data)
      return Data.takeError();
    M->Output = std::make_shared<OutputBuffer>();
    M->Output->Module = Image.Name;
    M->Output->Data = static_cast<uint8_t *>(*Data);
    uint32_t Capacity = OutputBufferBytes - amdgpu::OutputHeaderSize;
    std::memcpy(M->Output->Data, &Capacity, sizeof Capacity);
    void *Address = M->Output->Data;
    if (Error E = copy(G->Address, &Address, sizeof Address, CopyKind::HostToDevice, nullptr))
      return E;
    if (Error E = synchronize(nullptr))
      return E;
  } else {
    consumeError(G.takeError());
  }
  return M;
}

HsaModule::~HsaModule() {
  if (Executable.handle)
    hsa_executable_destroy(Executable);
  if (Reader.handle)
    hsa_code_object_reader_destroy(Reader);
}

template <typename T> T symbolInfo(hsa_executable_symbol_t S, hsa_executable_symbol_info_t Attr) {
  T V{};
  hsa_executable_symbol_get_info(S, Attr, &V);
  return V;
}

Expected<const Kernel &> HsaModule::kernel(StringRef Name) {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (auto It = Kernels.find(Name); It != Kernels.end())
    return *It->second;
  const amdgpu::KernelMetadata *Meta = this->Meta.findKernel(Name);
  if (!Meta)
    return makeError("no kernel '" + Name + "' in the code object");
  std::string Symbol = Meta->Symbol.empty() ? (Name + ".kd").str() : Meta->Symbol;
  hsa_executable_symbol_t Sym;
  if (hsa_status_t S =
          hsa_executable_get_symbol_by_name(Executable, Symbol.c_str(), &Dev.Gpu, &Sym);
      S != HSA_STATUS_SUCCESS)
    return hsaError(S, "looking up kernel symbol '" + Symbol + "'");
  auto K = std::make_unique<HsaKernel>();
  K->Meta = *Meta;
  K->Output = Output;
  K->Object = symbolInfo<uint64_t>(Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT);
  // The runtime reads the kernel descriptor, we read the metadata note: the launch uses the
  // metadata, so both must agree.
  uint32_t Kernarg =
      symbolInfo<uint32_t>(Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE);
  uint32_t Group = symbolInfo<uint32_t>(Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE);
  uint32_t Private =
      symbolInfo<uint32_t>(Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE);
  if (Kernarg != Meta->KernargSegmentSize || Group != Meta->GroupSegmentFixedSize ||
      Private != Meta->PrivateSegmentFixedSize)
    return makeError("kernel '" + Name + "': the runtime reports kernarg/group/private sizes " +
                     Twine(Kernarg) + "/" + Twine(Group) + "/" + Twine(Private) +
                     ", its metadata " + Twine(Meta->KernargSegmentSize) + "/" +
                     Twine(Meta->GroupSegmentFixedSize) + "/" +
                     Twine(Meta->PrivateSegmentFixedSize));
  return *Kernels.emplace(Name.str(), std::move(K)).first->second;
}

Expected<GlobalSymbol> HsaModule::global(StringRef Name) {
  hsa_executable_symbol_t Sym;
  std::string N = Name.str();
  if (hsa_status_t S = hsa_executable_get_symbol_by_name(Executable, N.c_str(), &Dev.Gpu, &Sym);
      S != HSA_STATUS_SUCCESS)
    return hsaError(S, "looking up variable '" + Name + "'");
  if (symbolInfo<hsa_symbol_kind_t>(Sym, HSA_EXECUTABLE_SYMBOL_INFO_TYPE) !=
      HSA_SYMBOL_KIND_VARIABLE)
    return makeError("'" + Name + "' is not a variable");
  return GlobalSymbol{reinterpret_cast<void *>(
                          symbolInfo<uint64_t>(Sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS)),
                      symbolInfo<uint32_t>(Sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE)};
}

Error HsaDevice::launch(const Kernel &K, const amdgpu::LaunchGeometry &G, void **Args, Stream *S,
                        const LaunchOptions &O) {
  const auto &HK = static_cast<const HsaKernel &>(K);
  const amdgpu::KernelMetadata &Meta = HK.Meta;
  if (Meta.GroupSegmentFixedSize + G.DynamicLdsBytes > Props.LdsBytesPerWorkgroup)
    return makeError("kernel '" + Meta.Name + "' needs " +
                     Twine(Meta.GroupSegmentFixedSize + G.DynamicLdsBytes) +
                     " bytes of LDS; the device has " + Twine(Props.LdsBytesPerWorkgroup));
  HsaStream &St = stream(S);
  std::lock_guard<std::mutex> Lock(St.Mutex);
  if (Error E = checkQueues())
    return E;
  reclaim(St);
  auto Kernarg = poolAllocate(Mem.Kernarg, Meta.KernargSegmentSize, false);
  if (!Kernarg)
    return Kernarg.takeError();
  // A cooperative launch is an ordinary dispatch (the runtime checked that its workgroups are
  // co-resident, and AMDGPU then runs them all at once) with a grid workspace in device memory,
  // zeroed: cooperative_groups' grid barrier counts arrivals in it.
  void *Workspace = nullptr;
  if (O.Cooperative) {
    auto W = poolAllocate(Mem.Device, 256, true);
    if (!W) {
      hsa_amd_memory_pool_free(*Kernarg);
      return W.takeError();
    }
    Workspace = *W;
  }
  auto FreeBuffers = [&] {
    hsa_amd_memory_pool_free(*Kernarg);
    if (Workspace)
      hsa_amd_memory_pool_free(Workspace);
  };
  hsa_signal_t Done;
  if (hsa_status_t R = hsa_signal_create(1, 0, nullptr, &Done); R != HSA_STATUS_SUCCESS) {
    FreeBuffers();
    return hsaError(R, "hsa_signal_create");
  }
  amdgpu::HiddenArgValues H;
  H.QueuePtr = reinterpret_cast<uint64_t>(St.Queue);
  H.MultigridSyncArg = reinterpret_cast<uint64_t>(Workspace);
  auto Packet = hsa::prepareDispatch(
      Meta, Args, G, H,
      MutableArrayRef<uint8_t>(static_cast<uint8_t *>(*Kernarg), Meta.KernargSegmentSize),
      HK.Object, Done.handle);
  Error E = Packet ? orderPackets(St, 0) : Packet.takeError();
  if (!E)
    E = submit(St, &*Packet);
  if (E) {
    hsa_signal_destroy(Done);
    FreeBuffers();
    return E;
  }
  St.InFlight.push_back({Done, *Kernarg, Workspace});
  if (HK.Output && !llvm::is_contained(St.Outputs, HK.Output))
    St.Outputs.push_back(HK.Output);
  return Error::success();
}

Expected<std::unique_ptr<Stream>> HsaDevice::createStream() {
  auto St = newStream();
  if (!St)
    return St.takeError();
  return std::unique_ptr<Stream>(*St);
}

Error HsaDevice::drainOutput(HsaStream &St) {
  std::string Assertions;
  for (const std::shared_ptr<OutputBuffer> &B : St.Outputs) {
    auto Out = amdgpu::readDeviceOutput(ArrayRef<uint8_t>(B->Data, OutputBufferBytes));
    // Emptied for the next launches: the used and dropped counts.
    std::memset(B->Data + 4, 0, 8);
    if (!Out) {
      Assertions += "\n  " + B->Module + ": unreadable device output: " + toString(Out.takeError());
      continue;
    }
    // Device printf goes where the program's own printf goes.
    if (!Out->Text.empty()) {
      std::fwrite(Out->Text.data(), 1, Out->Text.size(), stdout);
      std::fflush(stdout);
    }
    if (Out->Dropped)
      std::fprintf(stderr, "ptx2amd: '%s': %u device printf records did not fit the buffer\n",
                   B->Module.c_str(), Out->Dropped);
    for (const std::string &A : Out->Assertions)
      Assertions += "\n  " + A;
  }
  St.Outputs.clear();
  if (Assertions.empty())
    return Error::success();
  return amdgpu::makeFault(amdgpu::FaultKind::Assertion,
                           "a kernel failed a device assertion:" + Assertions);
}

Error HsaDevice::synchronize(Stream *S) {
  HsaStream &St = stream(S);
  std::lock_guard<std::mutex> Lock(St.Mutex);
  Error E = drain(St);
  if (!E)
    E = checkQueues();
  // A failed assertion traps, which fails the queue: the assertion is what to report.
  if (Error Asserted = drainOutput(St)) {
    consumeError(std::move(E));
    return Asserted;
  }
  return E;
}

Expected<std::unique_ptr<Event>> HsaDevice::createEvent() {
  hsa_signal_t Done;
  PTX2AMD_HSA_CHECK(hsa_signal_create(0, 0, nullptr, &Done));
  return std::make_unique<HsaEvent>(Done);
}

Error HsaDevice::record(Event &E, Stream *S) {
  auto &HE = static_cast<HsaEvent &>(E);
  // A marker still pending from an earlier record() would lower the reset value too early.
  if (Error Err = waitFor(HE.Done))
    return Err;
  HsaStream &St = stream(S);
  std::lock_guard<std::mutex> Lock(St.Mutex);
  if (Error Err = checkQueues())
    return Err;
  reclaim(St);
  hsa_signal_store_screlease(HE.Done, 1);
  // A marker packet: it completes after the stream's earlier work and carries a timestamp.
  if (Error Err = orderPackets(St, HE.Done.handle)) {
    hsa_signal_store_screlease(HE.Done, 0);
    return Err;
  }
  HE.Recorded = true;
  return Error::success();
}

Error HsaDevice::synchronize(Event &E) { return waitFor(static_cast<HsaEvent &>(E).Done); }

Expected<bool> HsaDevice::isComplete(Event &E) {
  if (Error Err = checkQueues())
    return Err;
  return hsa_signal_load_scacquire(static_cast<HsaEvent &>(E).Done) < 1;
}

Expected<float> HsaDevice::elapsedMs(Event &Start, Event &End) {
  uint64_t Ends[2];
  Event *Events[] = {&Start, &End};
  for (unsigned I = 0; I < 2; ++I) {
    auto &HE = static_cast<HsaEvent &>(*Events[I]);
    if (!HE.Recorded)
      return makeError("elapsed time of an event that was never recorded");
    if (hsa_signal_load_scacquire(HE.Done) >= 1)
      return makeError("elapsed time of an event that is not complete");
    hsa_amd_profiling_dispatch_time_t T;
    PTX2AMD_HSA_CHECK(hsa_amd_profiling_get_dispatch_time(Gpu, HE.Done, &T));
    Ends[I] = T.end;
  }
  return float((double(Ends[1]) - double(Ends[0])) * 1000.0 / double(TimestampHz));
}

} // namespace

Expected<Device &> hsaDevice() {
  static std::once_flag Once;
  // Never destroyed: at exit, ROCr's own teardown may already have run.
  static HsaDevice *Dev = nullptr;
  static std::string Failure;
  std::call_once(Once, [] {
    auto D = HsaDevice::create();
    if (D)
      Dev = D->release();
    else
      Failure = toString(D.takeError());
  });
  if (Dev)
    return *Dev;
  return createStringError(inconvertibleErrorCode(), Failure);
}

} // namespace ptx2amd::loader
