//===- ptx2amd/amdgpu-backend/Kernarg.h - kernarg segment and dispatch packet -*- C++ -*-===//
//
// What a launch writes for a kernel: the kernarg segment (CUDA-style `void **` arguments at the
// offsets of the kernel metadata, then the hidden arguments of the code object) and the HSA
// kernel dispatch packet. The HSA loader and the host backend (the CPU device) both build them
// with these functions, so that both run a kernel from the same bytes.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ptx2amd/amdgpu-backend/KernelMetadata.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace ptx2amd::amdgpu {

/// A launch in CUDA's terms: blocks in the grid, threads in a block, dynamic LDS bytes.
struct LaunchGeometry {
  uint32_t Grid[3] = {1, 1, 1};
  uint32_t Block[3] = {1, 1, 1};
  uint32_t DynamicLdsBytes = 0;
  /// Not 0: the kernel is a translation with CodegenOptions::DynamicSharedInGlobal, and its
  /// blocks' dynamic shared memory lies here in global memory, DynamicLdsBytes per block in
  /// block-linear order (x fastest), none of it in LDS.
  uint64_t DynamicSharedAddress = 0;
};

/// The explicit argument that CodegenOptions::DynamicSharedInGlobal appends to every kernel,
/// last: its slices' address, the bytes of one slice (both 64-bit), and the grid's blocks in x
/// and y (32-bit). packKernargs fills it from the LaunchGeometry, not from the caller's Args.
inline constexpr const char *DynamicSharedArgName = "__ptx2amd_dynamic_shared";
inline constexpr unsigned DynamicSharedArgBytes = 24;

/// Values of the hidden arguments that are addresses of runtime objects (0 where none).
struct HiddenArgValues {
  uint64_t PrintfBuffer = 0;
  uint64_t HostcallBuffer = 0;
  uint64_t MultigridSyncArg = 0;
  uint64_t HeapV1 = 0;
  uint64_t DefaultQueue = 0;
  uint64_t CompletionAction = 0;
  uint64_t QueuePtr = 0;
  uint32_t PrivateBase = 0; ///< high half of the private aperture
  uint32_t SharedBase = 0;  ///< high half of the shared (LDS) aperture
};

/// The hidden arguments of code object v5 (and v6) as LLVM lays them out after explicit arguments
/// of \p ExplicitSize bytes: they start at the next multiple of 8 and take 256 bytes.
std::vector<KernelArgMetadata> codeObjectV5HiddenArgs(uint64_t ExplicitSize);

/// Writes the kernarg segment of \p K into \p Out (at least K.KernargSegmentSize bytes): each
/// explicit argument copied from Args[i] (CUDA's `kernelParams`, one pointer per explicit
/// argument in order; DynamicSharedArgName from \p G), each hidden argument computed from \p G
/// and \p H; bytes no argument
/// covers are zero. An argument past the end of \p Out, a grid that does not fit the 32-bit
/// work-item counts of the dispatch packet or a null argument pointer is an error.
llvm::Error packKernargs(const KernelMetadata &K, const void *const *Args, const LaunchGeometry &G,
                         const HiddenArgValues &H, llvm::MutableArrayRef<uint8_t> Out);

/// hsa_kernel_dispatch_packet_t, byte for byte (64 bytes, little-endian).
struct DispatchPacket {
  uint16_t Header = 0;
  uint16_t Setup = 0; ///< dimensions in bits 0..1
  uint16_t WorkgroupSize[3] = {1, 1, 1};
  uint16_t Reserved0 = 0;
  uint32_t GridSize[3] = {1, 1, 1}; ///< work-items, not blocks
  uint32_t PrivateSegmentSize = 0;
  uint32_t GroupSegmentSize = 0; ///< static + dynamic LDS bytes
  uint64_t KernelObject = 0;
  uint64_t KernargAddress = 0;
  uint64_t Reserved2 = 0;
  uint64_t CompletionSignal = 0;
};
static_assert(sizeof(DispatchPacket) == 64, "the HSA dispatch packet is 64 bytes");

/// The dispatch packet of a launch (header left 0: the queue writes it last). A block or grid
/// that does not fit the packet's 16/32-bit fields is an error.
llvm::Expected<DispatchPacket> makeDispatchPacket(const KernelMetadata &K, const LaunchGeometry &G,
                                                  uint64_t KernelObject, uint64_t KernargAddress);

} // namespace ptx2amd::amdgpu
