/*===- ptx2amd/amdgpu-backend/ImageObjectLayout.h - ImageObject fields, for C and C++ -===*
 *
 * Where each field of a texture or surface object (ImageDescriptors.h's ImageObject) lies and
 * what its bits mean: read by the lowering's loads, by the device library's software texture
 * path (device-lib/ptx2amd-texture.c, plain C) and written by buildTextureObject, so the one
 * layout is written once here. Plain C: enumerators only.
 *
 *===----------------------------------------------------------------------===*/
#ifndef PTX2AMD_AMDGPU_BACKEND_IMAGE_OBJECT_LAYOUT_H
#define PTX2AMD_AMDGPU_BACKEND_IMAGE_OBJECT_LAYOUT_H

#ifdef __cplusplus
namespace ptx2amd::amdgpu {
#endif

/* Byte offsets of ImageObject's fields. */
enum ImageObjectOffset {
  ImageObjectResource = 0,
  ImageObjectSampler = 32,
  ImageObjectFlagsOffset = 48,
  ImageObjectWidth = 52,
  ImageObjectHeight = 56,
  ImageObjectDepth = 60,
  ImageObjectLayers = 64,
  ImageObjectLevels = 68,
  ImageObjectTexelBytes = 72,
  ImageObjectFormat = 76,
  ImageObjectSamplerInfo = 80,
  /* The software path's view of the memory: the address (low, high dword) and row pitch in
     bytes of the view's first level, and the view's first layer within the image. */
  ImageObjectAddressLo = 84,
  ImageObjectAddressHi = 88,
  ImageObjectRowPitch = 92,
  ImageObjectFirstLayer = 96,
  /* The sampler in plain numbers: border colour (4 floats), LOD clamps and bias (floats). */
  ImageObjectBorderColor = 100,
  ImageObjectMinLod = 116,
  ImageObjectMaxLod = 120,
  ImageObjectLodBias = 124,
  ImageObjectBytes = 128
};

/* What the kernel must do in code because the hardware cannot express a CUDA mode directly
   (the lowering tests these bits; DESIGN.md lists which modes take which path). */
enum ImageObjectFlagBits {
  ImageIsSurface = 1u << 0,
  /* Resource holds a V# (buffer resource, first 4 dwords): tex1Dfetch on linear memory is a
     formatted buffer load by element index, not an image instruction. */
  ImageIsBuffer = 1u << 1,
  /* Unnormalized coordinates on a shape where AMD's FORCE_UNNORMALIZED does not apply (3D,
     arrays' and cube maps' faces, mipmapped images): the S# samples normalized coordinates and
     the kernel divides each coordinate by the extent first. */
  ImageNormalizeInCode = 1u << 2,
  /* The image unit cannot take this object (an extent beyond the T#'s fields, a border colour
     the S# cannot name): every access goes through the software path, which reads memory and
     filters in code from the plain fields above. The T# and S# are zero. */
  ImageSoftware = 1u << 3
};

/* ImageObject::SamplerInfo: filter mode bit 0, normalized coordinates bit 1, linear mip
   filtering bit 2, address modes of the three dimensions in bits 8-9, 10-11, 12-13
   (AddressMode values: wrap 0, clamp 1, mirror 2, border 3). */
enum ImageSamplerInfoBits {
  SamplerInfoLinear = 1u << 0,
  SamplerInfoNormalized = 1u << 1,
  SamplerInfoMipLinear = 1u << 2,
  SamplerInfoAddressShift = 8
};

/* ImageObject::Format (packTexelFormat): channels in bits 0-7, bits per channel in 8-15,
   ChannelType (unsigned 0, signed 1, float 2) in 16-23, normalized bit 24, sRGB bit 25. */
enum TexelFormatBits {
  TexelFormatBitsShift = 8,
  TexelFormatTypeShift = 16,
  TexelFormatNormalizedBit = 1u << 24,
  TexelFormatSrgbBit = 1u << 25
};

/* The geometry argument of the software path's entry points (__ptx2amd_tex_*). */
enum SoftwareGeometry {
  SoftwareGeometry1D = 0,
  SoftwareGeometry2D = 1,
  SoftwareGeometry3D = 2,
  SoftwareGeometryArray1D = 3,
  SoftwareGeometryArray2D = 4,
  SoftwareGeometryCube = 5,
  SoftwareGeometryCubeArray = 6
};

/* The operation argument of __ptx2amd_surface_atomic. */
enum SoftwareSurfaceAtomic {
  SurfaceAtomicAdd = 0,
  SurfaceAtomicMinS = 1,
  SurfaceAtomicMinU = 2,
  SurfaceAtomicMaxS = 3,
  SurfaceAtomicMaxU = 4,
  SurfaceAtomicAnd = 5,
  SurfaceAtomicOr = 6
};

#ifdef __cplusplus
} /* namespace ptx2amd::amdgpu */
#endif

#endif
