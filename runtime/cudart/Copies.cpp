//===- Copies.cpp - the runtime API's 3D, peer and batched copies and 3D sets ===//
//
// Over the core's copy3D(), fill2D() and batches (lib/Copies.cpp), which take CUDA arrays as
// pitched memory. One device: peer copies are between device 0 and itself.

#include "Graphs.h"
#include "Runtime.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace ptx2amd;
using namespace ptx2amd::runtime;

namespace {

cudaError_t copyDescribed3D(const cudaMemcpy3DParms *P, cudaStream_t S, bool Wait) {
  if (!P)
    return fail(cudaErrorInvalidValue);
  Copy3D C;
  if (cudaError_t E = describeCopy3D(*P, C))
    return E;
  return copy3D(C, S, Wait);
}

cudaError_t copyPeer3D(const cudaMemcpy3DPeerParms *P, cudaStream_t S, bool Wait) {
  if (!P)
    return fail(cudaErrorInvalidValue);
  if (cudaError_t E = checkDevice(P->srcDevice))
    return E;
  if (cudaError_t E = checkDevice(P->dstDevice))
    return E;
  const cudaMemcpy3DParms Same{P->srcArray, P->srcPos, P->srcPtr, P->dstArray,
                               P->dstPos,   P->dstPtr, P->extent, cudaMemcpyDefault};
  return copyDescribed3D(&Same, S, Wait);
}

cudaError_t copyPeer(void *Dst, int DstDevice, const void *Src, int SrcDevice, size_t Bytes,
                     cudaStream_t S, bool Wait) {
  if (cudaError_t E = checkDevice(SrcDevice))
    return E;
  if (cudaError_t E = checkDevice(DstDevice))
    return E;
  return copy(Dst, Src, Bytes, cudaMemcpyDefault, S, Wait);
}

/// Slices of 2D sets, ysize rows apart.
cudaError_t fill3D(cudaPitchedPtr P, int Value, cudaExtent E, cudaStream_t S, bool Wait) {
  if (!E.width || !E.height || !E.depth)
    return Wait ? synchronizeStream(S) : cudaSuccess;
  if (!P.ptr)
    return fail(cudaErrorInvalidValue, "memset of a null pointer");
  if (E.depth > 1 && E.height > P.ysize)
    return fail(cudaErrorInvalidValue,
                formatv("a 3D memset of {0} rows through slices of {1}", E.height, P.ysize).str());
  for (size_t Z = 0; Z < E.depth; ++Z)
    if (cudaError_t Err =
            fill2D(static_cast<char *>(P.ptr) + Z * P.pitch * P.ysize, P.pitch,
                   uint32_t(Value) & 0xff, 1, E.width, E.height, S, Wait && Z + 1 == E.depth))
      return Err;
  return cudaSuccess;
}

} // namespace

extern "C" {

// Rows padded to the pitch alignment, as cudaMallocPitch's, for height * depth rows.
cudaError_t cudaMalloc3D(cudaPitchedPtr *Out, cudaExtent E) {
  return guarded([&] {
    if (!Out)
      return fail(cudaErrorInvalidValue);
    if (auto R = refuseUnsafeCall("cudaMalloc3D"))
      return *R;
    *Out = {};
    void *P = nullptr;
    size_t Pitch = 0;
    if (E.depth && E.height > SIZE_MAX / E.depth)
      return fail(cudaErrorMemoryAllocation, "a 3D allocation of too many rows");
    if (cudaError_t Err = allocatePitched(&P, &Pitch, E.width, E.height * E.depth))
      return Err;
    *Out = {P, Pitch, E.width, E.height};
    return cudaSuccess;
  });
}

cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *P) {
  return guarded([&] { return copyDescribed3D(P, nullptr, true); });
}

cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms *P, cudaStream_t S) {
  return guarded([&] { return copyDescribed3D(P, S, false); });
}

cudaError_t cudaMemcpy3DPeer(const cudaMemcpy3DPeerParms *P) {
  return guarded([&] { return copyPeer3D(P, nullptr, true); });
}

cudaError_t cudaMemcpy3DPeerAsync(const cudaMemcpy3DPeerParms *P, cudaStream_t S) {
  return guarded([&] { return copyPeer3D(P, S, false); });
}

cudaError_t cudaMemcpyPeer(void *Dst, int DstDevice, const void *Src, int SrcDevice, size_t Bytes) {
  return guarded([&] { return copyPeer(Dst, DstDevice, Src, SrcDevice, Bytes, nullptr, true); });
}

cudaError_t cudaMemcpyPeerAsync(void *Dst, int DstDevice, const void *Src, int SrcDevice,
                                size_t Bytes, cudaStream_t S) {
  return guarded([&] { return copyPeer(Dst, DstDevice, Src, SrcDevice, Bytes, S, false); });
}

cudaError_t cudaMemset3D(cudaPitchedPtr P, int Value, cudaExtent E) {
  return guarded([&] { return fill3D(P, Value, E, nullptr, true); });
}

cudaError_t cudaMemset3DAsync(cudaPitchedPtr P, int Value, cudaExtent E, cudaStream_t S) {
  return guarded([&] { return fill3D(P, Value, E, S, false); });
}

cudaError_t cudaMemcpyBatchAsync(void *const *Dsts, const void *const *Srcs, const size_t *Sizes,
                                 size_t Count, cudaMemcpyAttributes *Attrs, size_t *AttrIdxs,
                                 size_t NumAttrs, cudaStream_t S) {
  return guarded(
      [&] { return copyBatch(Dsts, Srcs, Sizes, Count, Attrs, AttrIdxs, NumAttrs, nullptr, S); });
}

cudaError_t cudaMemcpy3DBatchAsync(size_t NumOps, cudaMemcpy3DBatchOp *Ops,
                                   unsigned long long Flags, cudaStream_t S) {
  return guarded([&] { return copy3DBatch(NumOps, Ops, Flags, nullptr, S); });
}

} // extern "C"
