//===- HsaPacket.cpp - AQL packets and kernargs of the HSA device ---------===//
//
// The parts of a launch that need no GPU: packet contents and the order in which a packet
// reaches its queue slot. The contents come from Kernarg.h, as on the host backend.

#include "ptx2amd/loader/HsaDevice.h"

#include <hsa/hsa.h>

#include <atomic>
#include <cstddef>
#include <cstring>

using namespace llvm;

namespace ptx2amd::loader::hsa {

// Our packet structs stand for ROCr's: the same bytes at the same places.
#define PTX2AMD_SAME_OFFSET(Ours, Field, Theirs, TheirField)                                       \
  static_assert(offsetof(Ours, Field) == offsetof(Theirs, TheirField), #Field);
PTX2AMD_SAME_OFFSET(amdgpu::DispatchPacket, Header, hsa_kernel_dispatch_packet_t, header)
PTX2AMD_SAME_OFFSET(amdgpu::DispatchPacket, Setup, hsa_kernel_dispatch_packet_t, setup)
PTX2AMD_SAME_OFFSET(amdgpu::DispatchPacket, WorkgroupSize, hsa_kernel_dispatch_packet_t,
                    workgroup_size_x)
PTX2AMD_SAME_OFFSET(amdgpu::DispatchPacket, GridSize, hsa_kernel_dispatch_packet_t, grid_size_x)
PTX2AMD_SAME_OFFSET(amdgpu::DispatchPacket, PrivateSegmentSize, hsa_kernel_dispatch_packet_t,
                    private_segment_size)
PTX2AMD_SAME_OFFSET(amdgpu::DispatchPacket, GroupSegmentSize, hsa_kernel_dispatch_packet_t,
                    group_segment_size)
PTX2AMD_SAME_OFFSET(amdgpu::DispatchPacket, KernelObject, hsa_kernel_dispatch_packet_t,
                    kernel_object)
PTX2AMD_SAME_OFFSET(amdgpu::DispatchPacket, KernargAddress, hsa_kernel_dispatch_packet_t,
                    kernarg_address)
PTX2AMD_SAME_OFFSET(amdgpu::DispatchPacket, CompletionSignal, hsa_kernel_dispatch_packet_t,
                    completion_signal)
PTX2AMD_SAME_OFFSET(BarrierAndPacket, DepSignal, hsa_barrier_and_packet_t, dep_signal)
PTX2AMD_SAME_OFFSET(BarrierAndPacket, CompletionSignal, hsa_barrier_and_packet_t, completion_signal)
#undef PTX2AMD_SAME_OFFSET
static_assert(sizeof(amdgpu::DispatchPacket) == sizeof(hsa_kernel_dispatch_packet_t));
static_assert(sizeof(BarrierAndPacket) == sizeof(hsa_barrier_and_packet_t));

StringRef isaProcessor(StringRef IsaName) {
  constexpr StringRef Prefix = "amdgcn-amd-amdhsa--";
  if (!IsaName.consume_front(Prefix))
    return {};
  return IsaName.take_until([](char C) { return C == ':'; });
}

uint16_t packetHeader(unsigned Type) {
  return uint16_t(Type << HSA_PACKET_HEADER_TYPE | 1u << HSA_PACKET_HEADER_BARRIER |
                  HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE |
                  HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE);
}

Expected<amdgpu::DispatchPacket> makeAqlPacket(const amdgpu::KernelMetadata &K,
                                               const amdgpu::LaunchGeometry &G,
                                               uint64_t KernelObject, uint64_t KernargAddress,
                                               uint64_t CompletionSignal) {
  auto P = amdgpu::makeDispatchPacket(K, G, KernelObject, KernargAddress);
  if (!P)
    return P.takeError();
  P->Header = packetHeader(HSA_PACKET_TYPE_KERNEL_DISPATCH);
  P->CompletionSignal = CompletionSignal;
  return P;
}

Expected<BarrierAndPacket> makeBarrierPacket(ArrayRef<uint64_t> Deps, uint64_t CompletionSignal) {
  BarrierAndPacket P;
  if (Deps.size() > std::size(P.DepSignal))
    return createStringError(inconvertibleErrorCode(),
                             "HSA: a barrier packet waits for at most 5 signals, not " +
                                 Twine(Deps.size()));
  P.Header = packetHeader(HSA_PACKET_TYPE_BARRIER_AND);
  std::copy(Deps.begin(), Deps.end(), P.DepSignal);
  P.CompletionSignal = CompletionSignal;
  return P;
}

void writeAqlPacket(void *Slot, const void *Packet) {
  auto *Dst = static_cast<uint8_t *>(Slot);
  const auto *Src = static_cast<const uint8_t *>(Packet);
  std::memcpy(Dst + 4, Src + 4, 60);
  uint32_t HeaderWord;
  std::memcpy(&HeaderWord, Src, 4);
  // The slot is ROCr's ring buffer memory, 64-byte aligned: a plain uint32_t the packet processor
  // reads concurrently.
  std::atomic_ref<uint32_t>(*reinterpret_cast<uint32_t *>(Dst))
      .store(HeaderWord, std::memory_order_release);
}

Expected<amdgpu::DispatchPacket> prepareDispatch(const amdgpu::KernelMetadata &K,
                                                 const void *const *Args,
                                                 const amdgpu::LaunchGeometry &G,
                                                 const amdgpu::HiddenArgValues &H,
                                                 MutableArrayRef<uint8_t> Kernarg,
                                                 uint64_t KernelObject, uint64_t CompletionSignal) {
  if (Error E = amdgpu::packKernargs(K, Args, G, H, Kernarg))
    return E;
  return makeAqlPacket(K, G, KernelObject, reinterpret_cast<uint64_t>(Kernarg.data()),
                       CompletionSignal);
}

} // namespace ptx2amd::loader::hsa
