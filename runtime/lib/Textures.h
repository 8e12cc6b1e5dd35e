//===- Textures.h - CUDA arrays, texture and surface objects, for both APIs -*- C++ -*-===//
//
// The operations that the runtime API (cudart/Textures.cpp) and the driver API
// (DriverTextures.cpp) share, in the runtime's terms: a channel description is a
// cudaChannelFormatDesc, a resource a cudaResourceDesc. Arrays.cpp holds arrays and the copies
// to and from them, TextureObjects.cpp the objects. The contract with the lowering and the host
// backend's image unit is amdgpu-backend's ImageDescriptors.h: an array lies in device memory as
// layoutImage lays it out for the device's target, and an object is the ImageObject that
// buildTextureObject/buildSurfaceObject make, in device memory, its address the handle.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Runtime.h"

#include "ptx2amd/amdgpu-backend/ImageDescriptors.h"

#include <memory>

namespace ptx2amd::runtime {

/// Array flags: cudaArray* and CUDA_ARRAY3D_* are the same bits.
inline constexpr unsigned ArrayLayered = 0x01;
inline constexpr unsigned ArraySurfaceLoadStore = 0x02;
inline constexpr unsigned ArrayCubemap = 0x04;
inline constexpr unsigned ArrayTextureGather = 0x08;
inline constexpr unsigned ArrayDepthTexture = 0x10;
inline constexpr unsigned ArrayColorAttachment = 0x20;
inline constexpr unsigned ArraySparse = 0x40;
inline constexpr unsigned ArrayDeferredMapping = 0x80;

/// The memory of an array or a mipmapped array and how its levels lie in it.
struct ImageStorage {
  cudaChannelFormatDesc Desc{};
  cudaExtent Extent{}; ///< as created: height 0 for 1D, depth 0 but for 3D, layers, cube faces
  unsigned Flags = 0;
  amdgpu::ImageResource Image; ///< at Address: the shape, texel format, extent and levels
  amdgpu::ImageLayout Layout;
  void *Allocation = nullptr; ///< what allocate() gave (Address is it aligned up)
};

/// A cudaArray_t / CUarray: one level of a storage, an array's own or a mipmapped array's
/// (which owns its level arrays: cudaGetMipmappedArrayLevel hands out the same one each time).
struct ArrayRecord {
  ImageStorage *Storage = nullptr;
  unsigned Level = 0;
  std::unique_ptr<ImageStorage> Owned; ///< null for a level of a mipmapped array
};

/// Where one level's texels are: the device address of texel (0, 0, 0), its row and slice
/// pitches, a row's bytes, its rows and its slices (layers, cube faces or depth).
struct ArrayLevel {
  char *Base = nullptr;
  size_t RowPitch = 0, SlicePitch = 0;
  size_t RowBytes = 0, Rows = 1, Slices = 1;
};

/// The channel description \p D as a texel format, or cudaErrorInvalidChannelDescriptor
/// (cudaErrorNotSupported for the formats AMD's image resources do not hold here: NV12, block
/// compression, 10-10-10-2). Three channels are refused, as CUDA's arrays and textures do.
cudaError_t texelFormat(const cudaChannelFormatDesc &D, amdgpu::TexelFormat &Out);

cudaError_t createArray(cudaArray_t *Out, const cudaChannelFormatDesc *Desc, cudaExtent Extent,
                        unsigned Flags);
/// \p Levels is clamped to [1, 1 + log2 of the largest extent], as CUDA's.
cudaError_t createMipmappedArray(cudaMipmappedArray_t *Out, const cudaChannelFormatDesc *Desc,
                                 cudaExtent Extent, unsigned Levels, unsigned Flags);
cudaError_t mipmappedArrayLevel(cudaArray_t *Out, cudaMipmappedArray_t M, unsigned Level);
/// Frees an array (not a level of a mipmapped array: cudaErrorInvalidResourceHandle).
cudaError_t destroyArray(cudaArray_t A);
cudaError_t destroyMipmappedArray(cudaMipmappedArray_t M);
/// The live array \p A, or cudaErrorInvalidResourceHandle.
cudaError_t findArray(cudaArray_t A, ArrayRecord *&Out);
cudaError_t findMipmappedArray(cudaMipmappedArray_t M, ImageStorage *&Out);
/// cudaArrayGetInfo: the level's channel description, extent (as CUDA reports it: 0 for the
/// dimensions a shape lacks) and flags.
cudaError_t arrayInfo(cudaArray_t A, cudaChannelFormatDesc *Desc, cudaExtent *Extent,
                      unsigned *Flags);
/// cudaArrayGetMemoryRequirements / cudaMipmappedArrayGetMemoryRequirements (one of the two).
cudaError_t arrayRequirements(cudaArray_t A, cudaMipmappedArray_t M, size_t &Size,
                              size_t &Alignment);
/// The level \p A is, with its geometry.
cudaError_t arrayLevel(cudaArray_t A, ArrayLevel &Out);
/// The address of byte \p XBytes of row \p Y of slice \p Z of \p A, after checking that a copy
/// of \p Depth slices of \p Height rows of \p WidthBytes bytes from there stays in the array.
/// \p What ("a copy to") begins the messages.
cudaError_t arrayRegion(cudaArray_t A, size_t XBytes, size_t Y, size_t Z, size_t WidthBytes,
                        size_t Height, size_t Depth, const char *What, char *&Out,
                        ArrayLevel &Level);
/// The element size of \p A in bytes (cudaMemcpy3D's extents count elements with arrays).
cudaError_t arrayElementBytes(cudaArray_t A, size_t &Out);

/// One side of a copy of bytes in array order (cudaMemcpyToArray, cuMemcpyHtoA, ...): linear
/// memory at Ptr, or the bytes of Array from Offset on, row after row (the rows of a pitched
/// level are not contiguous, so such copies go a row at a time).
struct LinearSide {
  cudaArray_t Array = nullptr;
  char *Ptr = nullptr;
  size_t Offset = 0;
};
cudaError_t copyArrayBytes(LinearSide Dst, LinearSide Src, size_t Bytes, cudaMemcpyKind Kind,
                           cudaStream_t S, bool Wait);

/// Texture and surface objects (TextureObjects.cpp). \p View is optional.
cudaError_t createTextureObject(cudaTextureObject_t *Out, const cudaResourceDesc *Res,
                                const cudaTextureDesc *Tex, const cudaResourceViewDesc *View);
cudaError_t createSurfaceObject(cudaSurfaceObject_t *Out, const cudaResourceDesc *Res);
/// Frees the object \p Object (\p Surface: a surface object's), after the device's work.
cudaError_t destroyImageObject(unsigned long long Object, bool Surface);
/// What an object was made of: any of the three may be null.
cudaError_t imageObjectDescs(unsigned long long Object, bool Surface, cudaResourceDesc *Res,
                             cudaTextureDesc *Tex, cudaResourceViewDesc *View);

/// cudaDeviceGetTexture1DLinearMaxWidth / cuDeviceGetTexture1DLinearMaxWidth.
cudaError_t texture1DLinearMaxWidth(size_t *Out, const cudaChannelFormatDesc *Desc, int Device);

} // namespace ptx2amd::runtime
