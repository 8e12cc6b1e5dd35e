//===- ptx2amd/loader/HsaDevice.h - the device of an AMD GPU, through ROCr -*- C++ -*-===//
//
// The HSA implementation of Device (Device.h) over the ROCm runtime (ROCr: hsa.h,
// hsa_ext_amd.h): a GPU agent whose ISA is in the target table, its memory pools (coarse-grained
// device memory; the host's fine-grained and kernarg pools), code objects through
// hsa_code_object_reader + hsa_executable, one AQL queue per stream, kernel dispatch with
// completion signals, and copies with hsa_amd_memory_async_copy. A code object with the device
// output variable (amdgpu::OutputBufferSymbol) gets a buffer in fine-grained host memory at load;
// synchronizing a stream prints the device printf output of the kernels it ran and reports their
// failed assertions (an amdgpu::KernelFault of kind Assertion). Queue failures are KernelFaults
// too (memory faults, traps).
//
// Launches write exactly what the host backend runs from: the kernarg segment from
// amdgpu::packKernargs and the packet from amdgpu::makeDispatchPacket (Kernarg.h). The functions
// below that build and write packets need no GPU; the unit tests hold them against Kernarg.h.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ptx2amd/amdgpu-backend/Kernarg.h"
#include "ptx2amd/loader/Device.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace ptx2amd::loader {

/// The HSA device of the process: ROCr initialised once, the first GPU agent whose ISA is in the
/// target table. When there is none (no /dev/kfd: hsa_init fails; no GPU agent; an ISA we do not
/// compile for) the error is one line saying why. Later calls return the same device or the same
/// error without initialising again.
llvm::Expected<Device &> hsaDevice();

namespace hsa {

/// The processor of an HSA ISA name ("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-" gives
/// "gfx90a"); empty when it is not an amdgcn-amd-amdhsa name.
llvm::StringRef isaProcessor(llvm::StringRef IsaName);

/// The header of every packet we write, for an HSA_PACKET_TYPE_* \p Type: the barrier bit (a
/// stream is in order) and system-scope acquire and release fences (a kernel sees the host's
/// writes before it, the host sees the kernel's writes after its completion signal).
uint16_t packetHeader(unsigned Type);

/// The kernel dispatch packet a launch writes: amdgpu::makeDispatchPacket's fields, with the
/// header of a kernel dispatch (packetHeader) and the completion signal's handle.
llvm::Expected<amdgpu::DispatchPacket> makeAqlPacket(const amdgpu::KernelMetadata &K,
                                                     const amdgpu::LaunchGeometry &G,
                                                     uint64_t KernelObject, uint64_t KernargAddress,
                                                     uint64_t CompletionSignal);

/// hsa_barrier_and_packet_t, byte for byte: waits for up to five signals.
struct BarrierAndPacket {
  uint16_t Header = 0;
  uint16_t Reserved0 = 0;
  uint32_t Reserved1 = 0;
  uint64_t DepSignal[5] = {};
  uint64_t Reserved2 = 0;
  uint64_t CompletionSignal = 0;
};
static_assert(sizeof(BarrierAndPacket) == 64, "an AQL packet is 64 bytes");

/// A barrier-AND packet (header included) that waits for \p Deps (at most five signal handles)
/// and then signals \p CompletionSignal (0: none). More than five is an error.
llvm::Expected<BarrierAndPacket> makeBarrierPacket(llvm::ArrayRef<uint64_t> Deps,
                                                   uint64_t CompletionSignal);

/// Writes the 64-byte packet \p Packet into the queue slot \p Slot (64-byte aligned): bytes 4..63
/// first, then the header and the next 16 bits in one 32-bit release store, so that the packet
/// processor never sees a valid header before the rest.
void writeAqlPacket(void *Slot, const void *Packet);

/// What a launch writes before its packet goes to the queue: the kernarg segment of \p K into
/// \p Kernarg with amdgpu::packKernargs (the host path's function), and the dispatch packet
/// (makeAqlPacket) pointing at it. \p Kernarg is memory the agent reads at the same address.
llvm::Expected<amdgpu::DispatchPacket>
prepareDispatch(const amdgpu::KernelMetadata &K, const void *const *Args,
                const amdgpu::LaunchGeometry &G, const amdgpu::HiddenArgValues &H,
                llvm::MutableArrayRef<uint8_t> Kernarg, uint64_t KernelObject,
                uint64_t CompletionSignal);

} // namespace hsa
} // namespace ptx2amd::loader
