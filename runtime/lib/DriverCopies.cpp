//===- DriverCopies.cpp - the driver API: 3D, peer and batched copies ===//
//
// The runtime API's copies (cudart/Copies.cpp) with CUDA_MEMCPY3D descriptions and contexts.
// Every context is over the one device, so a peer copy is a copy whose contexts are checked.

#include "Driver.h"
#include "Textures.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace llvm;
using namespace ptx2amd;
using namespace ptx2amd::runtime;

namespace {

/// Where one side of a CUDA_MEMCPY3D starts, its pitch and its slice pitch: an array's level, or
/// memory offset by slice, row and byte column.
cudaError_t side3D(CUmemorytype Type, const void *Host, CUdeviceptr Device, CUarray Array,
                   size_t Lod, size_t X, size_t Y, size_t Z, size_t &Pitch, size_t &Slice,
                   size_t Height, const CUDA_MEMCPY3D &C, const char *What, const char *&Out) {
  if (Type == CU_MEMORYTYPE_ARRAY) {
    if (Lod)
      return fail(cudaErrorInvalidValue, formatv("{0} an array at level {1}: levels are arrays "
                                                 "of their own (cuMipmappedArrayGetLevel)",
                                                 What, Lod)
                                             .str());
    char *At = nullptr;
    ArrayLevel L;
    if (cudaError_t E = arrayRegion(reinterpret_cast<cudaArray_t>(Array), X, Y, Z, C.WidthInBytes,
                                    C.Height, C.Depth, What, At, L))
      return E;
    Out = At;
    Pitch = L.RowPitch;
    Slice = L.SlicePitch;
    return cudaSuccess;
  }
  if (cudaError_t E = copyMemory(Type, Host, Device, What, Out))
    return E;
  // One row needs no pitch: CUDA's runtime describes 1D copies so (memcpy graph nodes), and
  // its pitch may be narrower than the row (copy2D).
  if (C.Height <= 1 && C.Depth <= 1 && !Y && !Z)
    Pitch = std::max(Pitch, X + C.WidthInBytes);
  if (X > Pitch || C.WidthInBytes > Pitch - X)
    return fail(cudaErrorInvalidValue,
                formatv("a 3D copy's rows of {0} bytes at x {1} are wider than the pitch {2}",
                        C.WidthInBytes, X, Pitch)
                    .str());
  if ((C.Depth > 1 || Z) && (Y > Height || C.Height > Height - Y))
    return fail(
        cudaErrorInvalidValue,
        formatv("a 3D copy of {0} rows at y {1} through slices of {2} rows", C.Height, Y, Height)
            .str());
  Slice = Pitch * Height;
  Out += (Z * Height + Y) * Pitch + X;
  return cudaSuccess;
}

cudaError_t copyDescribed3D(const CUDA_MEMCPY3D *C, CUstream Stream, bool Wait) {
  if (!C)
    return fail(cudaErrorInvalidValue);
  Copy3D P;
  if (cudaError_t E = describeCopy3D(*C, P))
    return E;
  return copy3D(P, Stream, Wait);
}

cudaError_t copyPeer3D(const CUDA_MEMCPY3D_PEER *C, CUstream Stream, bool Wait) {
  if (!C)
    return fail(cudaErrorInvalidValue);
  DriverContext *Ignored = nullptr;
  if (cudaError_t E = contextOf(C->srcContext, Ignored))
    return E;
  if (cudaError_t E = contextOf(C->dstContext, Ignored))
    return E;
  // The same layout as CUDA_MEMCPY3D, whose reserved pointers are where the contexts are.
  const CUDA_MEMCPY3D Same{
      C->srcXInBytes,   C->srcY,        C->srcZ,         C->srcLOD,   C->srcMemoryType,
      C->srcHost,       C->srcDevice,   C->srcArray,     nullptr,     C->srcPitch,
      C->srcHeight,     C->dstXInBytes, C->dstY,         C->dstZ,     C->dstLOD,
      C->dstMemoryType, C->dstHost,     C->dstDevice,    C->dstArray, nullptr,
      C->dstPitch,      C->dstHeight,   C->WidthInBytes, C->Height,   C->Depth};
  return copyDescribed3D(&Same, Stream, Wait);
}

cudaError_t copyPeer(CUdeviceptr Dst, CUcontext DstContext, CUdeviceptr Src, CUcontext SrcContext,
                     size_t Bytes, CUstream Stream, bool Wait) {
  DriverContext *Ignored = nullptr;
  if (cudaError_t E = contextOf(SrcContext, Ignored))
    return E;
  if (cudaError_t E = contextOf(DstContext, Ignored))
    return E;
  return copy(pointer(Dst), pointer(Src), Bytes, cudaMemcpyDefault, Stream, Wait);
}

} // namespace

namespace ptx2amd::runtime {

cudaError_t describeCopy3D(const CUDA_MEMCPY3D &C, Copy3D &Out) {
  if (C.reserved0 || C.reserved1)
    return fail(cudaErrorInvalidValue, "CUDA_MEMCPY3D's reserved fields are not null");
  const char *Src = nullptr, *Dst = nullptr;
  size_t SrcPitch = C.srcPitch, DstPitch = C.dstPitch, SrcSlice = 0, DstSlice = 0;
  if (cudaError_t E =
          side3D(C.srcMemoryType, C.srcHost, C.srcDevice, C.srcArray, C.srcLOD, C.srcXInBytes,
                 C.srcY, C.srcZ, SrcPitch, SrcSlice, C.srcHeight, C, "a 3D copy from", Src))
    return E;
  if (cudaError_t E =
          side3D(C.dstMemoryType, C.dstHost, C.dstDevice, C.dstArray, C.dstLOD, C.dstXInBytes,
                 C.dstY, C.dstZ, DstPitch, DstSlice, C.dstHeight, C, "a 3D copy to", Dst))
    return E;
  // One address space: where each side is, the copy finds out (cudaMemcpyDefault).
  Out = {Src,      SrcPitch,         SrcSlice,       const_cast<char *>(Dst),
         DstPitch, DstSlice,         C.WidthInBytes, C.Height,
         C.Depth,  cudaMemcpyDefault};
  return cudaSuccess;
}

} // namespace ptx2amd::runtime

extern "C" {

CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *Copy) {
  return inContext([&] { return copyDescribed3D(Copy, nullptr, true); });
}

CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *Copy, CUstream Stream) {
  return inContext([&] { return copyDescribed3D(Copy, Stream, false); });
}

CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *Copy) {
  return inContext([&] { return copyPeer3D(Copy, nullptr, true); });
}

CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *Copy, CUstream Stream) {
  return inContext([&] { return copyPeer3D(Copy, Stream, false); });
}

CUresult cuMemcpyPeer(CUdeviceptr Dst, CUcontext DstContext, CUdeviceptr Src, CUcontext SrcContext,
                      size_t Bytes) {
  return inContext(
      [&] { return copyPeer(Dst, DstContext, Src, SrcContext, Bytes, nullptr, true); });
}

CUresult cuMemcpyPeerAsync(CUdeviceptr Dst, CUcontext DstContext, CUdeviceptr Src,
                           CUcontext SrcContext, size_t Bytes, CUstream Stream) {
  return inContext(
      [&] { return copyPeer(Dst, DstContext, Src, SrcContext, Bytes, Stream, false); });
}

// CUDA 12.8's, which reports the failing copy; CUDA 13's _v2 does not.
CUresult cuMemcpyBatchAsync(CUdeviceptr *Dsts, CUdeviceptr *Srcs, size_t *Sizes, size_t Count,
                            CUmemcpyAttributes *Attrs, size_t *AttrIdxs, size_t NumAttrs,
                            size_t *FailIdx, CUstream Stream) {
  static_assert(sizeof(CUdeviceptr) == sizeof(void *));
  return inContext([&] {
    return copyBatch(reinterpret_cast<void *const *>(Dsts),
                     reinterpret_cast<const void *const *>(Srcs), Sizes, Count, Attrs, AttrIdxs,
                     NumAttrs, FailIdx, Stream);
  });
}

CUresult cuMemcpyBatchAsync_v2(CUdeviceptr *Dsts, CUdeviceptr *Srcs, size_t *Sizes, size_t Count,
                               CUmemcpyAttributes *Attrs, size_t *AttrIdxs, size_t NumAttrs,
                               CUstream Stream) {
  return cuMemcpyBatchAsync(Dsts, Srcs, Sizes, Count, Attrs, AttrIdxs, NumAttrs, nullptr, Stream);
}

CUresult cuMemcpy3DBatchAsync(size_t NumOps, CUDA_MEMCPY3D_BATCH_OP *Ops, size_t *FailIdx,
                              unsigned long long Flags, CUstream Stream) {
  return inContext([&] { return copy3DBatch(NumOps, Ops, Flags, FailIdx, Stream); });
}

CUresult cuMemcpy3DBatchAsync_v2(size_t NumOps, CUDA_MEMCPY3D_BATCH_OP *Ops,
                                 unsigned long long Flags, CUstream Stream) {
  return cuMemcpy3DBatchAsync(NumOps, Ops, nullptr, Flags, Stream);
}

} // extern "C"
