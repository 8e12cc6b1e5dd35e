//===- Kernarg.cpp - kernarg segment and dispatch packet of a launch ------===//

#include "ptx2amd/amdgpu-backend/Kernarg.h"
#include "ptx2amd/support/Error.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <cstring>

using namespace llvm;

namespace ptx2amd::amdgpu {

namespace {

/// Errors of this file, prefixed with what failed.
Error fail(ErrorKind K, const Twine &Msg) { return makeError(K, "kernel launch: " + Msg); }

/// What a hidden argument holds, by its ".value_kind".
enum class Hidden {
  BlockCountX,
  BlockCountY,
  BlockCountZ,
  GroupSizeX,
  GroupSizeY,
  GroupSizeZ,
  RemainderX,
  RemainderY,
  RemainderZ,
  GlobalOffsetX,
  GlobalOffsetY,
  GlobalOffsetZ,
  GridDims,
  PrintfBuffer,
  HostcallBuffer,
  MultigridSyncArg,
  HeapV1,
  DefaultQueue,
  CompletionAction,
  DynamicLdsSize,
  PrivateBase,
  SharedBase,
  QueuePtr,
  Zero, // hidden_none and kinds this launch has nothing for
};

Hidden hiddenKind(StringRef Kind) {
  return StringSwitch<Hidden>(Kind)
      .Case("hidden_block_count_x", Hidden::BlockCountX)
      .Case("hidden_block_count_y", Hidden::BlockCountY)
      .Case("hidden_block_count_z", Hidden::BlockCountZ)
      .Case("hidden_group_size_x", Hidden::GroupSizeX)
      .Case("hidden_group_size_y", Hidden::GroupSizeY)
      .Case("hidden_group_size_z", Hidden::GroupSizeZ)
      .Case("hidden_remainder_x", Hidden::RemainderX)
      .Case("hidden_remainder_y", Hidden::RemainderY)
      .Case("hidden_remainder_z", Hidden::RemainderZ)
      .Case("hidden_global_offset_x", Hidden::GlobalOffsetX)
      .Case("hidden_global_offset_y", Hidden::GlobalOffsetY)
      .Case("hidden_global_offset_z", Hidden::GlobalOffsetZ)
      .Case("hidden_grid_dims", Hidden::GridDims)
      .Case("hidden_printf_buffer", Hidden::PrintfBuffer)
      .Case("hidden_hostcall_buffer", Hidden::HostcallBuffer)
      .Case("hidden_multigrid_sync_arg", Hidden::MultigridSyncArg)
      .Case("hidden_heap_v1", Hidden::HeapV1)
      .Case("hidden_default_queue", Hidden::DefaultQueue)
      .Case("hidden_completion_action", Hidden::CompletionAction)
      .Case("hidden_dynamic_lds_size", Hidden::DynamicLdsSize)
      .Case("hidden_private_base", Hidden::PrivateBase)
      .Case("hidden_shared_base", Hidden::SharedBase)
      .Case("hidden_queue_ptr", Hidden::QueuePtr)
      .Default(Hidden::Zero);
}

unsigned gridDims(const LaunchGeometry &G) {
  return G.Grid[2] > 1 || G.Block[2] > 1 ? 3 : G.Grid[1] > 1 || G.Block[1] > 1 ? 2 : 1;
}

} // namespace

std::vector<KernelArgMetadata> codeObjectV5HiddenArgs(uint64_t ExplicitSize) {
  // AMDGPUUsage, "Code Object V5 Metadata", hidden kernel arguments (reserved gaps omitted).
  static constexpr struct {
    uint64_t Offset, Size;
    const char *Kind;
  } Layout[] = {
      {0, 4, "hidden_block_count_x"},
      {4, 4, "hidden_block_count_y"},
      {8, 4, "hidden_block_count_z"},
      {12, 2, "hidden_group_size_x"},
      {14, 2, "hidden_group_size_y"},
      {16, 2, "hidden_group_size_z"},
      {18, 2, "hidden_remainder_x"},
      {20, 2, "hidden_remainder_y"},
      {22, 2, "hidden_remainder_z"},
      {40, 8, "hidden_global_offset_x"},
      {48, 8, "hidden_global_offset_y"},
      {56, 8, "hidden_global_offset_z"},
      {64, 2, "hidden_grid_dims"},
      {72, 8, "hidden_printf_buffer"},
      {80, 8, "hidden_hostcall_buffer"},
      {88, 8, "hidden_multigrid_sync_arg"},
      {96, 8, "hidden_heap_v1"},
      {104, 8, "hidden_default_queue"},
      {112, 8, "hidden_completion_action"},
      {120, 4, "hidden_dynamic_lds_size"},
      {192, 4, "hidden_private_base"},
      {196, 4, "hidden_shared_base"},
      {200, 8, "hidden_queue_ptr"},
  };
  uint64_t Base = alignTo(ExplicitSize, 8);
  std::vector<KernelArgMetadata> Args;
  for (const auto &L : Layout) {
    KernelArgMetadata A;
    A.Offset = Base + L.Offset;
    A.Size = L.Size;
    A.ValueKind = L.Kind;
    Args.push_back(std::move(A));
  }
  return Args;
}

Error packKernargs(const KernelMetadata &K, const void *const *Args, const LaunchGeometry &G,
                   const HiddenArgValues &H, MutableArrayRef<uint8_t> Out) {
  if (Out.size() < K.KernargSegmentSize)
    return fail(ErrorKind::BadInput, "kernarg buffer of " + Twine(Out.size()) +
                                         " bytes for kernel '" + K.Name + "', which needs " +
                                         Twine(K.KernargSegmentSize));
  for (unsigned D = 0; D < 3; ++D)
    if (uint64_t(G.Grid[D]) * G.Block[D] > UINT32_MAX || G.Block[D] > UINT16_MAX)
      return fail(ErrorKind::BadInput,
                  "grid of kernel '" + K.Name + "' too large in dimension " + Twine(D));
  std::memset(Out.data(), 0, Out.size());
  unsigned Explicit = 0;
  bool DynamicShared = false;
  for (const KernelArgMetadata &A : K.Args) {
    if (A.Offset + A.Size > Out.size() || A.Offset + A.Size < A.Offset)
      return fail(ErrorKind::BadInput, "argument at offset " + Twine(A.Offset) + " of kernel '" +
                                           K.Name + "' is past the end of its kernarg segment");
    uint8_t *At = Out.data() + A.Offset;
    if (A.Name == DynamicSharedArgName) {
      if (!G.DynamicSharedAddress || A.Size != DynamicSharedArgBytes)
        return fail(ErrorKind::BadInput, "kernel '" + K.Name +
                                             "' places dynamic shared memory in global memory, "
                                             "and the launch gives it none");
      const uint64_t Slice[2] = {G.DynamicSharedAddress, G.DynamicLdsBytes};
      std::memcpy(At, Slice, sizeof Slice);
      std::memcpy(At + 16, &G.Grid[0], 4);
      std::memcpy(At + 20, &G.Grid[1], 4);
      DynamicShared = true;
      continue;
    }
    if (!A.isHidden()) {
      if (!Args || !Args[Explicit])
        return fail(ErrorKind::BadInput,
                    "argument " + Twine(Explicit) + " of kernel '" + K.Name + "' is null");
      std::memcpy(At, Args[Explicit++], A.Size);
      continue;
    }
    uint64_t V = 0;
    switch (hiddenKind(A.ValueKind)) {
    // clang-format off
    case Hidden::BlockCountX: V = G.Grid[0]; break;
    case Hidden::BlockCountY: V = G.Grid[1]; break;
    case Hidden::BlockCountZ: V = G.Grid[2]; break;
    case Hidden::GroupSizeX: V = G.Block[0]; break;
    case Hidden::GroupSizeY: V = G.Block[1]; break;
    case Hidden::GroupSizeZ: V = G.Block[2]; break;
    // CUDA grids are whole blocks: no partial last workgroup.
    case Hidden::RemainderX: case Hidden::RemainderY: case Hidden::RemainderZ: V = 0; break;
    case Hidden::GlobalOffsetX: case Hidden::GlobalOffsetY: case Hidden::GlobalOffsetZ: V = 0; break;
    case Hidden::GridDims: V = gridDims(G); break;
    case Hidden::PrintfBuffer: V = H.PrintfBuffer; break;
    case Hidden::HostcallBuffer: V = H.HostcallBuffer; break;
    case Hidden::MultigridSyncArg: V = H.MultigridSyncArg; break;
    case Hidden::HeapV1: V = H.HeapV1; break;
    case Hidden::DefaultQueue: V = H.DefaultQueue; break;
    case Hidden::CompletionAction: V = H.CompletionAction; break;
    case Hidden::DynamicLdsSize: V = G.DynamicSharedAddress ? 0 : G.DynamicLdsBytes; break;
    case Hidden::PrivateBase: V = H.PrivateBase; break;
    case Hidden::SharedBase: V = H.SharedBase; break;
    case Hidden::QueuePtr: V = H.QueuePtr; break;
    case Hidden::Zero: V = 0; break;
      // clang-format on
    }
    // Little-endian: the low A.Size bytes of V.
    for (uint64_t B = 0; B < A.Size && B < 8; ++B)
      At[B] = uint8_t(V >> (8 * B));
  }
  if (G.DynamicSharedAddress && !DynamicShared)
    return fail(ErrorKind::BadInput, "kernel '" + K.Name +
                                         "' keeps dynamic shared memory in LDS; the launch "
                                         "placed it in global memory");
  return Error::success();
}

Expected<DispatchPacket> makeDispatchPacket(const KernelMetadata &K, const LaunchGeometry &G,
                                            uint64_t KernelObject, uint64_t KernargAddress) {
  DispatchPacket P;
  P.Setup = uint16_t(gridDims(G));
  for (unsigned D = 0; D < 3; ++D) {
    uint64_t Items = uint64_t(G.Grid[D]) * G.Block[D];
    if (G.Block[D] == 0 || G.Grid[D] == 0 || G.Block[D] > UINT16_MAX || Items > UINT32_MAX)
      return fail(ErrorKind::BadInput, "invalid grid or block size in dimension " + Twine(D) +
                                           " for kernel '" + K.Name + "'");
    P.WorkgroupSize[D] = uint16_t(G.Block[D]);
    P.GridSize[D] = uint32_t(Items);
  }
  uint64_t Group = K.GroupSegmentFixedSize + (G.DynamicSharedAddress ? 0 : G.DynamicLdsBytes);
  if (Group > UINT32_MAX || K.PrivateSegmentFixedSize > UINT32_MAX)
    return fail(ErrorKind::BadInput,
                "segment sizes of kernel '" + K.Name + "' do not fit the dispatch packet");
  P.GroupSegmentSize = uint32_t(Group);
  P.PrivateSegmentSize = uint32_t(K.PrivateSegmentFixedSize);
  P.KernelObject = KernelObject;
  P.KernargAddress = KernargAddress;
  return P;
}

} // namespace ptx2amd::amdgpu
