//===- HsaDevice.cpp - Device over the ROCm runtime (ROCr): agents, pools, the device ===//
//
// One GPU agent, one AQL queue per stream. Every operation of a stream is in flight until its
// completion signal reaches 0: kernels and event markers are packets of the stream's queue (the
// barrier bit keeps them in order), copies run on ROCr's DMA path and are ordered by signal
// dependencies. Finished work is reclaimed (signal destroyed, kernarg memory freed) lazily.
//
// Virtual memory management goes through ROCr's hsa_amd_vmem_* API (ROCm 6.0 on), looked up
// when the device is made: the ROCr this is built against may predate it, and where the loaded
// one lacks it the device reports no virtual memory management.
//
// The device's classes are in HsaObjects.h: its memory and copies are in HsaMemory.cpp, code
// objects in HsaModules.cpp, streams, launches and events in HsaQueues.cpp.

#include "HsaObjects.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <unistd.h>

using namespace llvm;

namespace ptx2amd::loader {
namespace hsa {

Error fail(ErrorKind K, const Twine &Msg) { return makeError(K, "HSA: " + Msg); }

std::string statusName(hsa_status_t S) {
  const char *Text = nullptr;
  StringRef Name = "unknown status";
  if (hsa_status_string(S, &Text) == HSA_STATUS_SUCCESS && Text)
    Name = StringRef(Text).take_until([](char C) { return C == ':' || C == '\n'; });
  return (Name + " (0x" + utohexstr(unsigned(S)) + ")").str();
}

Error hsaError(hsa_status_t S, const Twine &Call) {
  ErrorKind K = S == HSA_STATUS_ERROR_OUT_OF_RESOURCES || S == HSA_STATUS_ERROR_INVALID_ALLOCATION
                    ? ErrorKind::OutOfResources
                : S == HSA_STATUS_ERROR_INVALID_ARGUMENT ? ErrorKind::BadInput
                                                         : ErrorKind::Internal;
  return fail(K, Call + " failed: " + statusName(S));
}

namespace {

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

} // namespace

Expected<std::unique_ptr<HsaDevice>> HsaDevice::create() {
  if (hsa_status_t S = hsa_init(); S != HSA_STATUS_SUCCESS) {
    std::string Why = ::access("/dev/kfd", F_OK) == 0
                          ? ""
                          : "; /dev/kfd is missing: no AMD GPU driver on this machine";
    return fail(ErrorKind::Unsupported, "hsa_init failed: " + statusName(S) + Why);
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
    return Fail(fail(ErrorKind::Unsupported,
                     Found.Gpus.empty() ? std::string("no GPU agent")
                                        : "no GPU agent of a supported target (" +
                                              amdgpu::knownTargetNames() + "); found " + Isas));
  }
  if (Found.Cpus.empty())
    return Fail(fail(ErrorKind::Unsupported, "no CPU agent"));

  auto D = std::unique_ptr<HsaDevice>(new HsaDevice);
  D->Gpu = It->Agent;
  D->Cpu = Found.Cpus.front();
  hsa_amd_agent_iterate_memory_pools(D->Gpu, collectPool, &D->Mem);
  Pools HostPools;
  hsa_amd_agent_iterate_memory_pools(D->Cpu, collectPool, &HostPools);
  D->Mem.Host = HostPools.Host;
  D->Mem.Kernarg = HostPools.Kernarg.handle ? HostPools.Kernarg : HostPools.Host;
  if (!D->Mem.Device.handle || !D->Mem.Host.handle)
    return Fail(
        fail(ErrorKind::Unsupported,
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
  // Clocks in MHz; the memory's width is deprecated in ROCr and may be 0 (not known).
  P.ClockKHz =
      agentInfo<uint32_t>(D->Gpu, hsa_agent_info_t(HSA_AMD_AGENT_INFO_MAX_CLOCK_FREQUENCY)) * 1000;
  P.MemoryClockKHz =
      agentInfo<uint32_t>(D->Gpu, hsa_agent_info_t(HSA_AMD_AGENT_INFO_MEMORY_MAX_FREQUENCY)) * 1000;
  P.MemoryBusBits = agentInfo<uint32_t>(D->Gpu, hsa_agent_info_t(HSA_AMD_AGENT_INFO_MEMORY_WIDTH));
  P.L2CacheBytes = agentInfo<std::array<uint32_t, 4>>(D->Gpu, HSA_AGENT_INFO_CACHE_SIZE)[1];
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

} // namespace hsa

using hsa::HsaDevice;

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
