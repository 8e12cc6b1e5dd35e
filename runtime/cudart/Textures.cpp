//===- Textures.cpp - the runtime API's arrays, array copies, texture and surface objects ===//
//
// Over the core's arrays and objects (lib/Textures.h). 2D copies with an array are pitched
// copies at the array level's address and pitch; the 1D ones (cudaMemcpyToArray, ...) go
// through the array's bytes row after row.

#include "Textures.h"

#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace ptx2amd;
using namespace ptx2amd::runtime;

namespace {

cudaError_t rowOffset(cudaArray_const_t A, size_t WOffset, size_t HOffset, size_t &Out) {
  ArrayLevel L;
  if (cudaError_t E = arrayLevel(const_cast<cudaArray_t>(A), L))
    return E;
  if (WOffset > L.RowBytes)
    return fail(cudaErrorInvalidValue,
                formatv("x offset {0} in rows of {1} bytes", WOffset, L.RowBytes).str());
  Out = HOffset * L.RowBytes + WOffset;
  return cudaSuccess;
}

cudaError_t toArray(cudaArray_t Dst, size_t WOffset, size_t HOffset, const void *Src, size_t Bytes,
                    cudaMemcpyKind Kind, cudaStream_t S, bool Wait) {
  size_t Offset = 0;
  if (cudaError_t E = rowOffset(Dst, WOffset, HOffset, Offset))
    return E;
  return copyArrayBytes({Dst, nullptr, Offset},
                        {nullptr, const_cast<char *>(static_cast<const char *>(Src))}, Bytes, Kind,
                        S, Wait);
}

cudaError_t fromArray(void *Dst, cudaArray_const_t Src, size_t WOffset, size_t HOffset,
                      size_t Bytes, cudaMemcpyKind Kind, cudaStream_t S, bool Wait) {
  size_t Offset = 0;
  if (cudaError_t E = rowOffset(Src, WOffset, HOffset, Offset))
    return E;
  return copyArrayBytes({nullptr, static_cast<char *>(Dst)},
                        {const_cast<cudaArray_t>(Src), nullptr, Offset}, Bytes, Kind, S, Wait);
}

cudaError_t toArray2D(cudaArray_t Dst, size_t WOffset, size_t HOffset, const void *Src,
                      size_t SrcPitch, size_t Width, size_t Height, cudaMemcpyKind Kind,
                      cudaStream_t S, bool Wait) {
  char *To = nullptr;
  ArrayLevel L;
  if (cudaError_t E =
          arrayRegion(Dst, WOffset, HOffset, 0, Width, Height, 1, "a 2D copy of", To, L))
    return E;
  return copy2D(To, L.RowPitch, Src, SrcPitch, Width, Height, Kind, S, Wait);
}

cudaError_t fromArray2D(void *Dst, size_t DstPitch, cudaArray_const_t Src, size_t WOffset,
                        size_t HOffset, size_t Width, size_t Height, cudaMemcpyKind Kind,
                        cudaStream_t S, bool Wait) {
  char *From = nullptr;
  ArrayLevel L;
  if (cudaError_t E = arrayRegion(const_cast<cudaArray_t>(Src), WOffset, HOffset, 0, Width, Height,
                                  1, "a 2D copy of", From, L))
    return E;
  return copy2D(Dst, DstPitch, From, L.RowPitch, Width, Height, Kind, S, Wait);
}

cudaError_t arrayToArray2D(cudaArray_t Dst, size_t DstX, size_t DstY, cudaArray_const_t Src,
                           size_t SrcX, size_t SrcY, size_t Width, size_t Height,
                           cudaMemcpyKind Kind) {
  char *To = nullptr, *From = nullptr;
  ArrayLevel DstLevel, SrcLevel;
  if (cudaError_t E =
          arrayRegion(Dst, DstX, DstY, 0, Width, Height, 1, "a 2D copy of", To, DstLevel))
    return E;
  if (cudaError_t E = arrayRegion(const_cast<cudaArray_t>(Src), SrcX, SrcY, 0, Width, Height, 1,
                                  "a 2D copy of", From, SrcLevel))
    return E;
  return copy2D(To, DstLevel.RowPitch, From, SrcLevel.RowPitch, Width, Height, Kind, nullptr, true);
}

} // namespace

extern "C" {

cudaError_t cudaMallocArray(cudaArray_t *Out, const cudaChannelFormatDesc *Desc, size_t Width,
                            size_t Height, unsigned Flags) {
  return guarded([&] { return createArray(Out, Desc, {Width, Height, 0}, Flags); });
}

cudaError_t cudaMalloc3DArray(cudaArray_t *Out, const cudaChannelFormatDesc *Desc,
                              cudaExtent Extent, unsigned Flags) {
  return guarded([&] { return createArray(Out, Desc, Extent, Flags); });
}

cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *Out, const cudaChannelFormatDesc *Desc,
                                     cudaExtent Extent, unsigned Levels, unsigned Flags) {
  return guarded([&] { return createMipmappedArray(Out, Desc, Extent, Levels, Flags); });
}

cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t *Out, cudaMipmappedArray_const_t M,
                                       unsigned Level) {
  return guarded(
      [&] { return mipmappedArrayLevel(Out, const_cast<cudaMipmappedArray_t>(M), Level); });
}

cudaError_t cudaFreeArray(cudaArray_t A) {
  return guarded([&] { return destroyArray(A); });
}

cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t M) {
  return guarded([&] { return destroyMipmappedArray(M); });
}

cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc *Desc, cudaExtent *Extent, unsigned *Flags,
                             cudaArray_t A) {
  return guarded([&] { return arrayInfo(A, Desc, Extent, Flags); });
}

cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc *Desc, cudaArray_const_t A) {
  return guarded([&] {
    if (!Desc)
      return fail(cudaErrorInvalidValue);
    return arrayInfo(const_cast<cudaArray_t>(A), Desc, nullptr, nullptr);
  });
}

cudaError_t cudaArrayGetMemoryRequirements(cudaArrayMemoryRequirements *Out, cudaArray_t A,
                                           int Device) {
  return guarded([&] {
    if (!Out)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = checkDevice(Device))
      return E;
    *Out = {};
    return arrayRequirements(A, nullptr, Out->size, Out->alignment);
  });
}

cudaError_t cudaMipmappedArrayGetMemoryRequirements(cudaArrayMemoryRequirements *Out,
                                                    cudaMipmappedArray_t M, int Device) {
  return guarded([&] {
    if (!Out)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = checkDevice(Device))
      return E;
    *Out = {};
    return arrayRequirements(nullptr, M, Out->size, Out->alignment);
  });
}

cudaError_t cudaMemcpyToArray(cudaArray_t Dst, size_t WOffset, size_t HOffset, const void *Src,
                              size_t Bytes, cudaMemcpyKind Kind) {
  return guarded([&] { return toArray(Dst, WOffset, HOffset, Src, Bytes, Kind, nullptr, true); });
}

cudaError_t cudaMemcpyToArrayAsync(cudaArray_t Dst, size_t WOffset, size_t HOffset, const void *Src,
                                   size_t Bytes, cudaMemcpyKind Kind, cudaStream_t S) {
  return guarded([&] { return toArray(Dst, WOffset, HOffset, Src, Bytes, Kind, S, false); });
}

cudaError_t cudaMemcpyFromArray(void *Dst, cudaArray_const_t Src, size_t WOffset, size_t HOffset,
                                size_t Bytes, cudaMemcpyKind Kind) {
  return guarded([&] { return fromArray(Dst, Src, WOffset, HOffset, Bytes, Kind, nullptr, true); });
}

cudaError_t cudaMemcpyFromArrayAsync(void *Dst, cudaArray_const_t Src, size_t WOffset,
                                     size_t HOffset, size_t Bytes, cudaMemcpyKind Kind,
                                     cudaStream_t S) {
  return guarded([&] { return fromArray(Dst, Src, WOffset, HOffset, Bytes, Kind, S, false); });
}

cudaError_t cudaMemcpyArrayToArray(cudaArray_t Dst, size_t DstX, size_t DstY, cudaArray_const_t Src,
                                   size_t SrcX, size_t SrcY, size_t Bytes, cudaMemcpyKind Kind) {
  return guarded([&] {
    size_t DstOffset = 0, SrcOffset = 0;
    if (cudaError_t E = rowOffset(Dst, DstX, DstY, DstOffset))
      return E;
    if (cudaError_t E = rowOffset(Src, SrcX, SrcY, SrcOffset))
      return E;
    return copyArrayBytes({Dst, nullptr, DstOffset},
                          {const_cast<cudaArray_t>(Src), nullptr, SrcOffset}, Bytes, Kind, nullptr,
                          true);
  });
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t Dst, size_t WOffset, size_t HOffset, const void *Src,
                                size_t SrcPitch, size_t Width, size_t Height, cudaMemcpyKind Kind) {
  return guarded([&] {
    return toArray2D(Dst, WOffset, HOffset, Src, SrcPitch, Width, Height, Kind, nullptr, true);
  });
}

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t Dst, size_t WOffset, size_t HOffset,
                                     const void *Src, size_t SrcPitch, size_t Width, size_t Height,
                                     cudaMemcpyKind Kind, cudaStream_t S) {
  return guarded([&] {
    return toArray2D(Dst, WOffset, HOffset, Src, SrcPitch, Width, Height, Kind, S, false);
  });
}

cudaError_t cudaMemcpy2DFromArray(void *Dst, size_t DstPitch, cudaArray_const_t Src, size_t WOffset,
                                  size_t HOffset, size_t Width, size_t Height,
                                  cudaMemcpyKind Kind) {
  return guarded([&] {
    return fromArray2D(Dst, DstPitch, Src, WOffset, HOffset, Width, Height, Kind, nullptr, true);
  });
}

cudaError_t cudaMemcpy2DFromArrayAsync(void *Dst, size_t DstPitch, cudaArray_const_t Src,
                                       size_t WOffset, size_t HOffset, size_t Width, size_t Height,
                                       cudaMemcpyKind Kind, cudaStream_t S) {
  return guarded([&] {
    return fromArray2D(Dst, DstPitch, Src, WOffset, HOffset, Width, Height, Kind, S, false);
  });
}

cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t Dst, size_t DstX, size_t DstY,
                                     cudaArray_const_t Src, size_t SrcX, size_t SrcY, size_t Width,
                                     size_t Height, cudaMemcpyKind Kind) {
  return guarded(
      [&] { return arrayToArray2D(Dst, DstX, DstY, Src, SrcX, SrcY, Width, Height, Kind); });
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *Out, const cudaResourceDesc *Res,
                                    const cudaTextureDesc *Tex, const cudaResourceViewDesc *View) {
  return guarded([&] { return createTextureObject(Out, Res, Tex, View); });
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t Object) {
  return guarded([&] { return destroyImageObject(Object, false); });
}

cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc *Out, cudaTextureObject_t Object) {
  return guarded([&] {
    if (!Out)
      return fail(cudaErrorInvalidValue);
    return imageObjectDescs(Object, false, Out, nullptr, nullptr);
  });
}

cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc *Out, cudaTextureObject_t Object) {
  return guarded([&] {
    if (!Out)
      return fail(cudaErrorInvalidValue);
    return imageObjectDescs(Object, false, nullptr, Out, nullptr);
  });
}

cudaError_t cudaGetTextureObjectResourceViewDesc(cudaResourceViewDesc *Out,
                                                 cudaTextureObject_t Object) {
  return guarded([&] {
    if (!Out)
      return fail(cudaErrorInvalidValue);
    return imageObjectDescs(Object, false, nullptr, nullptr, Out);
  });
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *Out, const cudaResourceDesc *Res) {
  return guarded([&] { return createSurfaceObject(Out, Res); });
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t Object) {
  return guarded([&] { return destroyImageObject(Object, true); });
}

cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc *Out, cudaSurfaceObject_t Object) {
  return guarded([&] {
    if (!Out)
      return fail(cudaErrorInvalidValue);
    return imageObjectDescs(Object, true, Out, nullptr, nullptr);
  });
}

cudaError_t cudaDeviceGetTexture1DLinearMaxWidth(size_t *Out, const cudaChannelFormatDesc *Desc,
                                                 int Device) {
  return guarded([&] { return texture1DLinearMaxWidth(Out, Desc, Device); });
}

} // extern "C"
