//===- Copies.cpp - 3D copy descriptions and batched copies, for both APIs ===//
//
// Built on copy() and copy3D() (Memory.cpp). A batch is its copies in stream order, one after
// the other: CUDA allows any order within a batch, and the hints of its attributes (where
// managed memory should be, overlap with compute) change nothing with one memory.

#include "Graphs.h"
#include "Runtime.h"
#include "Textures.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstdint>

using namespace llvm;

namespace ptx2amd::runtime {

namespace {

/// Where one side of a cudaMemcpy3DParms starts, its pitch and its slice pitch: an array's level
/// or pitched memory, x counted in \p Element bytes on both (CUDA's runtime counts a pointer's
/// x in the array's elements when the other side is one). \p WidthBytes: the extent's width.
cudaError_t side3D(const cudaArray *Array, const cudaPitchedPtr &Ptr, cudaPos Pos,
                   const cudaExtent &E, size_t Element, size_t WidthBytes, const char *What,
                   const char *&Out, size_t &Pitch, size_t &Slice) {
  Pos.x *= Element;
  if (Array) {
    char *At = nullptr;
    ArrayLevel L;
    if (cudaError_t Err = arrayRegion(const_cast<cudaArray *>(Array), Pos.x, Pos.y, Pos.z,
                                      WidthBytes, E.height, E.depth, What, At, L))
      return Err;
    Out = At;
    Pitch = L.RowPitch;
    Slice = L.SlicePitch;
    return cudaSuccess;
  }
  if (!Ptr.ptr)
    return fail(cudaErrorInvalidValue, formatv("{0} neither memory nor an array", What));
  if (Pos.x > Ptr.pitch || WidthBytes > Ptr.pitch - Pos.x)
    return fail(cudaErrorInvalidValue,
                formatv("{0} rows of {1} bytes at x {2}, wider than the pitch {3}", What,
                        WidthBytes, Pos.x, Ptr.pitch)
                    .str());
  // Slices follow each other ysize rows apart: a copy through several must stay in its rows.
  if ((E.depth > 1 || Pos.z) && (Pos.y > Ptr.ysize || E.height > Ptr.ysize - Pos.y))
    return fail(cudaErrorInvalidValue, formatv("{0} {1} rows at y {2} through slices of {3} rows",
                                               What, E.height, Pos.y, Ptr.ysize)
                                           .str());
  Pitch = Ptr.pitch;
  Slice = Ptr.pitch * Ptr.ysize;
  Out = static_cast<const char *>(Ptr.ptr) + Pos.z * Slice + Pos.y * Ptr.pitch + Pos.x;
  return cudaSuccess;
}

bool validOrder(cudaMemcpySrcAccessOrder O) {
  return O == cudaMemcpySrcAccessOrderStream || O == cudaMemcpySrcAccessOrderDuringApiCall ||
         O == cudaMemcpySrcAccessOrderAny;
}

constexpr unsigned KnownCopyFlags = 0x1; // cudaMemcpyFlagPreferOverlapWithCompute

} // namespace

cudaError_t describeCopy3D(const cudaMemcpy3DParms &P, Copy3D &Out) {
  const char *Src = nullptr, *Dst = nullptr;
  size_t SrcPitch = 0, DstPitch = 0, SrcSlice = 0, DstSlice = 0;
  // With an array the extent and the x positions count its elements, else bytes.
  size_t Element = 1;
  if (P.srcArray || P.dstArray)
    if (cudaError_t E = arrayElementBytes(
            const_cast<cudaArray *>(P.srcArray ? P.srcArray : P.dstArray), Element))
      return E;
  const size_t WidthBytes = P.extent.width * Element;
  if (cudaError_t E = side3D(P.srcArray, P.srcPtr, P.srcPos, P.extent, Element, WidthBytes,
                             "a 3D copy from", Src, SrcPitch, SrcSlice))
    return E;
  if (cudaError_t E = side3D(P.dstArray, P.dstPtr, P.dstPos, P.extent, Element, WidthBytes,
                             "a 3D copy to", Dst, DstPitch, DstSlice))
    return E;
  Out = {Src,      SrcPitch,   SrcSlice,        const_cast<char *>(Dst), DstPitch,
         DstSlice, WidthBytes, P.extent.height, P.extent.depth,          P.kind};
  return cudaSuccess;
}

// The legacy default stream, which CUDA refuses for batches, is taken: the per-thread variants
// are the same entry points, and their null stream is the per-thread default stream.
cudaError_t copyBatch(void *const *Dsts, const void *const *Srcs, const size_t *Sizes, size_t Count,
                      const cudaMemcpyAttributes *Attrs, const size_t *AttrIdxs, size_t NumAttrs,
                      size_t *FailIdx, cudaStream_t S) {
  if (FailIdx)
    *FailIdx = SIZE_MAX;
  if (!Count || !Dsts || !Srcs || !Sizes)
    return fail(cudaErrorInvalidValue, "a batch of copies without copies");
  if (!NumAttrs || NumAttrs > Count || !Attrs || !AttrIdxs)
    return fail(cudaErrorInvalidValue,
                formatv("{0} attributes for a batch of {1} copies", NumAttrs, Count).str());
  bool WaitForSources = false;
  for (size_t K = 0; K < NumAttrs; ++K) {
    if (K == 0 ? AttrIdxs[0] != 0 : AttrIdxs[K] <= AttrIdxs[K - 1] || AttrIdxs[K] >= Count)
      return fail(cudaErrorInvalidValue,
                  formatv("attribute index {0} ({1}): the first is 0, each above the last and "
                          "below the batch's {2} copies",
                          K, AttrIdxs[K], Count)
                      .str());
    if (!validOrder(Attrs[K].srcAccessOrder) || (Attrs[K].flags & ~KnownCopyFlags))
      return fail(cudaErrorInvalidValue,
                  formatv("copy attributes {0}: source access order {1}, flags {2:x}", K,
                          int(Attrs[K].srcAccessOrder), Attrs[K].flags)
                      .str());
    WaitForSources |= Attrs[K].srcAccessOrder == cudaMemcpySrcAccessOrderDuringApiCall;
  }
  for (size_t I = 0; I < Count; ++I)
    if (cudaError_t E = copy(Dsts[I], Srcs[I], Sizes[I], cudaMemcpyDefault, S, false)) {
      if (FailIdx)
        *FailIdx = I;
      return E;
    }
  // Sources that are only valid during the call must have been read when it returns (a
  // captured batch copies when its graph runs: there is nothing to wait for).
  return WaitForSources && !isCapturing(S) ? synchronizeStream(S) : cudaSuccess;
}

cudaError_t copy3DBatch(size_t NumOps, const cudaMemcpy3DBatchOp *Ops, unsigned long long Flags,
                        size_t *FailIdx, cudaStream_t S) {
  if (FailIdx)
    *FailIdx = SIZE_MAX;
  if (!NumOps || !Ops)
    return fail(cudaErrorInvalidValue, "a batch of 3D copies without copies");
  if (Flags)
    return fail(cudaErrorInvalidValue, formatv("3D batch flags {0:x}", Flags).str());
  bool WaitForSources = false;
  for (size_t I = 0; I < NumOps; ++I) {
    const cudaMemcpy3DBatchOp &Op = Ops[I];
    auto Refuse = [&](cudaError_t E, const std::string &Why) {
      if (FailIdx)
        *FailIdx = I;
      return fail(E, formatv("3D copy {0} of the batch: {1}", I, Why).str());
    };
    if (!Op.extent.width || !Op.extent.height || !Op.extent.depth)
      return Refuse(cudaErrorInvalidValue, "an empty extent");
    if (!validOrder(Op.srcAccessOrder) || (Op.flags & ~KnownCopyFlags))
      return Refuse(
          cudaErrorInvalidValue,
          formatv("source access order {0}, flags {1:x}", int(Op.srcAccessOrder), Op.flags).str());
    WaitForSources |= Op.srcAccessOrder == cudaMemcpySrcAccessOrderDuringApiCall;
    // An element is an array's, a byte between pointers.
    size_t Element = 1;
    for (const cudaMemcpy3DOperand *O : {&Op.dst, &Op.src})
      if (O->type == cudaMemcpyOperandTypeArray)
        if (cudaError_t E = arrayElementBytes(O->op.array.array, Element)) {
          if (FailIdx)
            *FailIdx = I;
          return E;
        }
    const size_t WidthBytes = Op.extent.width * Element;
    // Where each operand starts, its pitch and its slice pitch.
    auto Operand = [&](const cudaMemcpy3DOperand &O, const char *What, char *&At, size_t &Pitch,
                       size_t &Slice) -> cudaError_t {
      if (O.type == cudaMemcpyOperandTypeArray) {
        ArrayLevel L;
        if (cudaError_t E =
                arrayRegion(O.op.array.array, O.op.array.x * Element, O.op.array.y, O.op.array.z,
                            WidthBytes, Op.extent.height, Op.extent.depth, What, At, L)) {
          if (FailIdx)
            *FailIdx = I;
          return E;
        }
        Pitch = L.RowPitch, Slice = L.SlicePitch;
        return cudaSuccess;
      }
      if (O.type != cudaMemcpyOperandTypePointer || !O.op.ptr.ptr)
        return Refuse(cudaErrorInvalidValue, formatv("operand type {0}", int(O.type)).str());
      if ((O.op.ptr.rowLength && O.op.ptr.rowLength < Op.extent.width) ||
          (O.op.ptr.layerHeight && O.op.ptr.layerHeight < Op.extent.height))
        return Refuse(cudaErrorInvalidValue,
                      formatv("rows of {0} and layers of {1} are smaller than the extent",
                              O.op.ptr.rowLength, O.op.ptr.layerHeight)
                          .str());
      // A zero row length or layer height is the extent's.
      Pitch = (O.op.ptr.rowLength ? O.op.ptr.rowLength : Op.extent.width) * Element;
      Slice = Pitch * (O.op.ptr.layerHeight ? O.op.ptr.layerHeight : Op.extent.height);
      At = static_cast<char *>(O.op.ptr.ptr);
      return cudaSuccess;
    };
    Copy3D C;
    char *Src = nullptr;
    if (cudaError_t E = Operand(Op.src, "a 3D copy from", Src, C.SrcPitch, C.SrcSlice))
      return E;
    if (cudaError_t E = Operand(Op.dst, "a 3D copy to", C.Dst, C.DstPitch, C.DstSlice))
      return E;
    C.Src = Src;
    C.Width = WidthBytes;
    C.Height = Op.extent.height;
    C.Depth = Op.extent.depth;
    C.Kind = cudaMemcpyDefault;
    if (cudaError_t E = copy3D(C, S, false)) {
      if (FailIdx)
        *FailIdx = I;
      return E;
    }
  }
  return WaitForSources && !isCapturing(S) ? synchronizeStream(S) : cudaSuccess;
}

} // namespace ptx2amd::runtime
