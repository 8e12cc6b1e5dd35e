//===- DriverTextures.cpp - the driver API: arrays, array copies, texture and surface objects ===//
//
// The runtime's operations (Textures.h) with the driver's descriptions: an element format and
// a channel count (CUarray_format) are a channel description, CUDA_RESOURCE_DESC and
// CUDA_TEXTURE_DESC are read into the runtime's and written back from them (the texture flags
// are fields there), so both APIs' getters answer for objects either made.

#include "Driver.h"
#include "Textures.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>

using namespace llvm;
using namespace ptx2amd;
using namespace ptx2amd::runtime;

namespace {

/// The element formats: bits and kind of each channel; Channels 0 where the channel count is
/// the descriptor's (1, 2 or 4), else the format's own (the normalized ones).
struct ElementFormat {
  CUarray_format Format;
  int Bits;
  int Kind; ///< cudaChannelFormatKind
  unsigned Channels;
};
constexpr ElementFormat ElementFormats[] = {
    {0x01, 8, cudaChannelFormatKindUnsigned, 0},
    {0x02, 16, cudaChannelFormatKindUnsigned, 0},
    {0x03, 32, cudaChannelFormatKindUnsigned, 0},
    {0x08, 8, cudaChannelFormatKindSigned, 0},
    {0x09, 16, cudaChannelFormatKindSigned, 0},
    {0x0a, 32, cudaChannelFormatKindSigned, 0},
    {0x10, 16, cudaChannelFormatKindFloat, 0},
    {0x20, 32, cudaChannelFormatKindFloat, 0},
    // CU_AD_FORMAT_UNORM_INT8X1 ... SNORM_INT16X4: the normalized channel kinds 5 to 16.
    {0xc0, 8, 5, 1},
    {0xc1, 8, 6, 2},
    {0xc2, 8, 7, 4},
    {0xc3, 16, 8, 1},
    {0xc4, 16, 9, 2},
    {0xc5, 16, 10, 4},
    {0xc6, 8, 11, 1},
    {0xc7, 8, 12, 2},
    {0xc8, 8, 13, 4},
    {0xc9, 16, 14, 1},
    {0xca, 16, 15, 2},
    {0xcb, 16, 16, 4},
};

cudaError_t channelDesc(CUarray_format Format, unsigned NumChannels, cudaChannelFormatDesc &Out) {
  for (const ElementFormat &F : ElementFormats) {
    if (F.Format != Format)
      continue;
    if (NumChannels != 1 && NumChannels != 2 && NumChannels != 4)
      return fail(cudaErrorInvalidValue, formatv("{0} channels", NumChannels).str());
    if (F.Channels && F.Channels != NumChannels)
      return fail(
          cudaErrorInvalidValue,
          formatv("format {0:x} has {1} channels, not {2}", Format, F.Channels, NumChannels).str());
    int Bits[4] = {};
    for (unsigned I = 0; I < NumChannels; ++I)
      Bits[I] = F.Bits;
    Out = {Bits[0], Bits[1], Bits[2], Bits[3], cudaChannelFormatKind(F.Kind)};
    return cudaSuccess;
  }
  return fail(cudaErrorNotSupported, formatv("array format {0:x}", Format).str());
}

void elementFormat(const cudaChannelFormatDesc &D, CUarray_format &Format, unsigned &Channels) {
  Channels = unsigned(D.x > 0) + unsigned(D.y > 0) + unsigned(D.z > 0) + unsigned(D.w > 0);
  Format = 0;
  for (const ElementFormat &F : ElementFormats)
    if (F.Kind == D.f && F.Bits == D.x)
      Format = F.Format;
}

cudaExtent extentOf(const CUDA_ARRAY3D_DESCRIPTOR &D) { return {D.Width, D.Height, D.Depth}; }

cudaError_t fromDriver(const CUDA_RESOURCE_DESC &D, cudaResourceDesc &Out) {
  Out = {};
  Out.resType = cudaResourceType(D.resType);
  Out.flags = D.flags;
  switch (D.resType) {
  case cudaResourceTypeArray:
    Out.res.array.array = reinterpret_cast<cudaArray_t>(D.res.array.hArray);
    return cudaSuccess;
  case cudaResourceTypeMipmappedArray:
    Out.res.mipmap.mipmap = reinterpret_cast<cudaMipmappedArray_t>(D.res.mipmap.hMipmappedArray);
    return cudaSuccess;
  case cudaResourceTypeLinear:
    Out.res.linear.devPtr = pointer(D.res.linear.devPtr);
    Out.res.linear.sizeInBytes = D.res.linear.sizeInBytes;
    return channelDesc(D.res.linear.format, D.res.linear.numChannels, Out.res.linear.desc);
  case cudaResourceTypePitch2D:
    Out.res.pitch2D.devPtr = pointer(D.res.pitch2D.devPtr);
    Out.res.pitch2D.width = D.res.pitch2D.width;
    Out.res.pitch2D.height = D.res.pitch2D.height;
    Out.res.pitch2D.pitchInBytes = D.res.pitch2D.pitchInBytes;
    return channelDesc(D.res.pitch2D.format, D.res.pitch2D.numChannels, Out.res.pitch2D.desc);
  }
  return fail(cudaErrorInvalidValue, formatv("resource type {0}", D.resType).str());
}

void toDriver(const cudaResourceDesc &R, CUDA_RESOURCE_DESC &Out) {
  Out = {};
  Out.resType = R.resType;
  Out.flags = R.flags;
  switch (R.resType) {
  case cudaResourceTypeArray:
    Out.res.array.hArray = reinterpret_cast<CUarray>(R.res.array.array);
    break;
  case cudaResourceTypeMipmappedArray:
    Out.res.mipmap.hMipmappedArray = reinterpret_cast<CUmipmappedArray>(R.res.mipmap.mipmap);
    break;
  case cudaResourceTypeLinear:
    Out.res.linear.devPtr = CUdeviceptr(uintptr_t(R.res.linear.devPtr));
    Out.res.linear.sizeInBytes = R.res.linear.sizeInBytes;
    elementFormat(R.res.linear.desc, Out.res.linear.format, Out.res.linear.numChannels);
    break;
  case cudaResourceTypePitch2D:
    Out.res.pitch2D.devPtr = CUdeviceptr(uintptr_t(R.res.pitch2D.devPtr));
    Out.res.pitch2D.width = R.res.pitch2D.width;
    Out.res.pitch2D.height = R.res.pitch2D.height;
    Out.res.pitch2D.pitchInBytes = R.res.pitch2D.pitchInBytes;
    elementFormat(R.res.pitch2D.desc, Out.res.pitch2D.format, Out.res.pitch2D.numChannels);
    break;
  }
}

constexpr unsigned KnownTextureFlags = CuTrsfReadAsInteger | CuTrsfNormalizedCoordinates |
                                       CuTrsfSrgb | CuTrsfDisableTrilinearOptimization |
                                       CuTrsfSeamlessCubemap;

cudaError_t fromDriver(const CUDA_TEXTURE_DESC &D, cudaTextureDesc &Out) {
  if (D.flags & ~KnownTextureFlags)
    return fail(cudaErrorInvalidValue, formatv("texture flags {0:x}", D.flags).str());
  Out = {};
  for (unsigned I = 0; I < 3; ++I)
    Out.addressMode[I] = cudaTextureAddressMode(D.addressMode[I]);
  Out.filterMode = cudaTextureFilterMode(D.filterMode);
  // The driver reads integers as normalized floats unless told otherwise.
  Out.readMode =
      D.flags & CuTrsfReadAsInteger ? cudaReadModeElementType : cudaReadModeNormalizedFloat;
  Out.sRGB = (D.flags & CuTrsfSrgb) != 0;
  std::memcpy(Out.borderColor, D.borderColor, sizeof Out.borderColor);
  Out.normalizedCoords = (D.flags & CuTrsfNormalizedCoordinates) != 0;
  Out.maxAnisotropy = D.maxAnisotropy;
  Out.mipmapFilterMode = cudaTextureFilterMode(D.mipmapFilterMode);
  Out.mipmapLevelBias = D.mipmapLevelBias;
  Out.minMipmapLevelClamp = D.minMipmapLevelClamp;
  Out.maxMipmapLevelClamp = D.maxMipmapLevelClamp;
  Out.disableTrilinearOptimization = (D.flags & CuTrsfDisableTrilinearOptimization) != 0;
  Out.seamlessCubemap = (D.flags & CuTrsfSeamlessCubemap) != 0;
  return cudaSuccess;
}

void toDriver(const cudaTextureDesc &T, CUDA_TEXTURE_DESC &Out) {
  Out = {};
  for (unsigned I = 0; I < 3; ++I)
    Out.addressMode[I] = T.addressMode[I];
  Out.filterMode = T.filterMode;
  Out.flags = (T.readMode == cudaReadModeElementType ? CuTrsfReadAsInteger : 0) |
              (T.normalizedCoords ? CuTrsfNormalizedCoordinates : 0) | (T.sRGB ? CuTrsfSrgb : 0) |
              (T.disableTrilinearOptimization ? CuTrsfDisableTrilinearOptimization : 0) |
              (T.seamlessCubemap ? CuTrsfSeamlessCubemap : 0);
  Out.maxAnisotropy = T.maxAnisotropy;
  Out.mipmapFilterMode = T.mipmapFilterMode;
  Out.mipmapLevelBias = T.mipmapLevelBias;
  Out.minMipmapLevelClamp = T.minMipmapLevelClamp;
  Out.maxMipmapLevelClamp = T.maxMipmapLevelClamp;
  std::memcpy(Out.borderColor, T.borderColor, sizeof Out.borderColor);
}

/// The channel description of the resource \p R reads (32-bit integers are never promoted to
/// floats by the driver, whatever the flags say).
bool readsInt32(const cudaResourceDesc &R) {
  const cudaChannelFormatDesc *D = R.resType == cudaResourceTypeLinear    ? &R.res.linear.desc
                                   : R.resType == cudaResourceTypePitch2D ? &R.res.pitch2D.desc
                                                                          : nullptr;
  cudaChannelFormatDesc FromArray{};
  if (R.resType == cudaResourceTypeArray &&
      arrayInfo(R.res.array.array, &FromArray, nullptr, nullptr) == cudaSuccess)
    D = &FromArray;
  if (R.resType == cudaResourceTypeMipmappedArray) {
    ImageStorage *S = nullptr;
    if (findMipmappedArray(R.res.mipmap.mipmap, S) == cudaSuccess)
      FromArray = S->Desc, D = &FromArray;
  }
  return D && D->x == 32 && D->f != cudaChannelFormatKindFloat;
}

cudaError_t array3DDescriptor(CUarray A, CUDA_ARRAY3D_DESCRIPTOR &Out) {
  cudaChannelFormatDesc D{};
  cudaExtent E{};
  unsigned Flags = 0;
  if (cudaError_t Err = arrayInfo(reinterpret_cast<cudaArray_t>(A), &D, &E, &Flags))
    return Err;
  Out = {E.width, E.height, E.depth, 0, 0, Flags};
  elementFormat(D, Out.Format, Out.NumChannels);
  return cudaSuccess;
}

cudaError_t linearCopy(LinearSide Dst, LinearSide Src, size_t Bytes, CUstream Stream, bool Wait) {
  return copyArrayBytes(Dst, Src, Bytes, cudaMemcpyDefault, Stream, Wait);
}

LinearSide arraySide(CUarray A, size_t Offset) {
  return {reinterpret_cast<cudaArray_t>(A), nullptr, Offset};
}
LinearSide memorySide(const void *P) {
  return {nullptr, static_cast<char *>(const_cast<void *>(P))};
}

/// cuTexObjectGetResourceDesc and cuSurfObjectGetResourceDesc: the object's resource in the
/// driver's layout.
cudaError_t resourceDescOf(CUDA_RESOURCE_DESC *Out, unsigned long long Object, bool Surface) {
  if (!Out)
    return fail(cudaErrorInvalidValue);
  cudaResourceDesc R;
  if (cudaError_t E = imageObjectDescs(Object, Surface, &R, nullptr, nullptr))
    return E;
  toDriver(R, *Out);
  return cudaSuccess;
}

} // namespace

extern "C" {

CUresult cuArrayCreate_v2(CUarray *Out, const CUDA_ARRAY_DESCRIPTOR *D) {
  return inContext([&] {
    if (!D)
      return fail(cudaErrorInvalidValue);
    cudaChannelFormatDesc Desc;
    if (cudaError_t E = channelDesc(D->Format, D->NumChannels, Desc))
      return E;
    return createArray(reinterpret_cast<cudaArray_t *>(Out), &Desc, {D->Width, D->Height, 0}, 0);
  });
}

CUresult cuArray3DCreate_v2(CUarray *Out, const CUDA_ARRAY3D_DESCRIPTOR *D) {
  return inContext([&] {
    if (!D)
      return fail(cudaErrorInvalidValue);
    cudaChannelFormatDesc Desc;
    if (cudaError_t E = channelDesc(D->Format, D->NumChannels, Desc))
      return E;
    return createArray(reinterpret_cast<cudaArray_t *>(Out), &Desc, extentOf(*D), D->Flags);
  });
}

CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *Out, CUarray A) {
  return inContext([&] {
    if (!Out)
      return fail(cudaErrorInvalidValue);
    CUDA_ARRAY3D_DESCRIPTOR D;
    if (cudaError_t E = array3DDescriptor(A, D))
      return E;
    *Out = {D.Width, D.Height, D.Format, D.NumChannels};
    return cudaSuccess;
  });
}

CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *Out, CUarray A) {
  return inContext([&] {
    if (!Out)
      return fail(cudaErrorInvalidValue);
    return array3DDescriptor(A, *Out);
  });
}

CUresult cuArrayDestroy(CUarray A) {
  return inContext([&] {
    if (!A)
      return fail(cudaErrorInvalidResourceHandle, "a null array");
    return destroyArray(reinterpret_cast<cudaArray_t>(A));
  });
}

CUresult cuArrayGetMemoryRequirements(CUDA_ARRAY_MEMORY_REQUIREMENTS *Out, CUarray A,
                                      CUdevice Dev) {
  return inContext([&] {
    if (!Out)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = checkDevice(Dev))
      return E;
    *Out = {};
    return arrayRequirements(reinterpret_cast<cudaArray_t>(A), nullptr, Out->size, Out->alignment);
  });
}

CUresult cuMipmappedArrayCreate(CUmipmappedArray *Out, const CUDA_ARRAY3D_DESCRIPTOR *D,
                                unsigned Levels) {
  return inContext([&] {
    if (!D)
      return fail(cudaErrorInvalidValue);
    cudaChannelFormatDesc Desc;
    if (cudaError_t E = channelDesc(D->Format, D->NumChannels, Desc))
      return E;
    return createMipmappedArray(reinterpret_cast<cudaMipmappedArray_t *>(Out), &Desc, extentOf(*D),
                                Levels, D->Flags);
  });
}

CUresult cuMipmappedArrayGetLevel(CUarray *Out, CUmipmappedArray M, unsigned Level) {
  return inContext([&] {
    return mipmappedArrayLevel(reinterpret_cast<cudaArray_t *>(Out),
                               reinterpret_cast<cudaMipmappedArray_t>(M), Level);
  });
}

CUresult cuMipmappedArrayDestroy(CUmipmappedArray M) {
  return inContext([&] {
    if (!M)
      return fail(cudaErrorInvalidResourceHandle, "a null mipmapped array");
    return destroyMipmappedArray(reinterpret_cast<cudaMipmappedArray_t>(M));
  });
}

CUresult cuMipmappedArrayGetMemoryRequirements(CUDA_ARRAY_MEMORY_REQUIREMENTS *Out,
                                               CUmipmappedArray M, CUdevice Dev) {
  return inContext([&] {
    if (!Out)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = checkDevice(Dev))
      return E;
    *Out = {};
    return arrayRequirements(nullptr, reinterpret_cast<cudaMipmappedArray_t>(M), Out->size,
                             Out->alignment);
  });
}

CUresult cuMemcpyHtoA_v2(CUarray Dst, size_t DstOffset, const void *Src, size_t Bytes) {
  return inContext(
      [&] { return linearCopy(arraySide(Dst, DstOffset), memorySide(Src), Bytes, nullptr, true); });
}

CUresult cuMemcpyHtoAAsync_v2(CUarray Dst, size_t DstOffset, const void *Src, size_t Bytes,
                              CUstream Stream) {
  return inContext(
      [&] { return linearCopy(arraySide(Dst, DstOffset), memorySide(Src), Bytes, Stream, false); });
}

CUresult cuMemcpyAtoH_v2(void *Dst, CUarray Src, size_t SrcOffset, size_t Bytes) {
  return inContext(
      [&] { return linearCopy(memorySide(Dst), arraySide(Src, SrcOffset), Bytes, nullptr, true); });
}

CUresult cuMemcpyAtoHAsync_v2(void *Dst, CUarray Src, size_t SrcOffset, size_t Bytes,
                              CUstream Stream) {
  return inContext(
      [&] { return linearCopy(memorySide(Dst), arraySide(Src, SrcOffset), Bytes, Stream, false); });
}

CUresult cuMemcpyDtoA_v2(CUarray Dst, size_t DstOffset, CUdeviceptr Src, size_t Bytes) {
  return inContext([&] {
    return linearCopy(arraySide(Dst, DstOffset), memorySide(pointer(Src)), Bytes, nullptr, true);
  });
}

CUresult cuMemcpyAtoD_v2(CUdeviceptr Dst, CUarray Src, size_t SrcOffset, size_t Bytes) {
  return inContext([&] {
    return linearCopy(memorySide(pointer(Dst)), arraySide(Src, SrcOffset), Bytes, nullptr, true);
  });
}

CUresult cuMemcpyAtoA_v2(CUarray Dst, size_t DstOffset, CUarray Src, size_t SrcOffset,
                         size_t Bytes) {
  return inContext([&] {
    return linearCopy(arraySide(Dst, DstOffset), arraySide(Src, SrcOffset), Bytes, nullptr, true);
  });
}

CUresult cuTexObjectCreate(CUtexObject *Out, const CUDA_RESOURCE_DESC *Res,
                           const CUDA_TEXTURE_DESC *Tex, const CUDA_RESOURCE_VIEW_DESC *View) {
  return inContext([&] {
    if (!Out || !Res || !Tex)
      return fail(cudaErrorInvalidValue);
    cudaResourceDesc R;
    cudaTextureDesc T;
    if (cudaError_t E = fromDriver(*Res, R))
      return E;
    if (cudaError_t E = fromDriver(*Tex, T))
      return E;
    if (readsInt32(R))
      T.readMode = cudaReadModeElementType;
    return createTextureObject(Out, &R, &T, View);
  });
}

CUresult cuTexObjectDestroy(CUtexObject Object) {
  return inContext([&] { return destroyImageObject(Object, false); });
}

CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *Out, CUtexObject Object) {
  return inContext([&] { return resourceDescOf(Out, Object, false); });
}

CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *Out, CUtexObject Object) {
  return inContext([&] {
    if (!Out)
      return fail(cudaErrorInvalidValue);
    cudaTextureDesc T;
    if (cudaError_t E = imageObjectDescs(Object, false, nullptr, &T, nullptr))
      return E;
    toDriver(T, *Out);
    return cudaSuccess;
  });
}

CUresult cuTexObjectGetResourceViewDesc(CUDA_RESOURCE_VIEW_DESC *Out, CUtexObject Object) {
  return inContext([&] {
    if (!Out)
      return fail(cudaErrorInvalidValue);
    return imageObjectDescs(Object, false, nullptr, nullptr, Out);
  });
}

CUresult cuSurfObjectCreate(CUsurfObject *Out, const CUDA_RESOURCE_DESC *Res) {
  return inContext([&] {
    if (!Out || !Res)
      return fail(cudaErrorInvalidValue);
    cudaResourceDesc R;
    if (cudaError_t E = fromDriver(*Res, R))
      return E;
    return createSurfaceObject(Out, &R);
  });
}

CUresult cuSurfObjectDestroy(CUsurfObject Object) {
  return inContext([&] { return destroyImageObject(Object, true); });
}

CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *Out, CUsurfObject Object) {
  return inContext([&] { return resourceDescOf(Out, Object, true); });
}

CUresult cuDeviceGetTexture1DLinearMaxWidth(size_t *Out, CUarray_format Format,
                                            unsigned NumChannels, CUdevice Dev) {
  return driverCall([&] {
    cudaChannelFormatDesc Desc;
    if (cudaError_t E = channelDesc(Format, NumChannels, Desc))
      return E;
    return texture1DLinearMaxWidth(Out, &Desc, Dev);
  });
}

} // extern "C"
