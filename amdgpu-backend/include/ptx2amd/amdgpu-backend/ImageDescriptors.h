//===- ptx2amd/amdgpu-backend/ImageDescriptors.h - texture and surface objects -*- C++ -*-===//
//
// The contract between the three parties of textures and surfaces:
//   - runtime/ lays CUDA arrays out in memory (layoutImage) and builds texture and surface
//     objects (buildTextureObject, buildSurfaceObject) in device memory;
//   - lowering/ reads an object in a kernel (a cudaTextureObject_t / cudaSurfaceObject_t is the
//     device address of one ImageObject) and feeds its descriptors to llvm.amdgcn.image.*;
//   - host-backend/'s image-unit model executes those intrinsics against the same descriptors
//     (decodeResource, decodeSampler), so what runs on the CPU device is what the GPU runs.
// The descriptors are the hardware's own (T# image resource, V# buffer resource, S# sampler),
// encoded per ISA generation from AMD's and LLVM's public documentation: the formats of gfx9,
// gfx10.3, gfx11 and gfx12 differ, and each generation has one table.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ptx2amd/amdgpu-backend/ImageObjectLayout.h"
#include "ptx2amd/amdgpu-backend/Target.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace ptx2amd::amdgpu {

/// What an image's coordinates address.
enum class ImageShape : uint8_t {
  Buffer, ///< linear memory addressed by element index (tex1Dfetch on cudaResourceTypeLinear)
  D1,
  D2, ///< also pitch-linear 2D memory (cudaResourceTypePitch2D)
  D3,
  Array1D,
  Array2D,
  Cube,      ///< 6 faces
  CubeArray, ///< 6 faces per layer
};

/// How a channel's bits are interpreted when read.
enum class ChannelType : uint8_t {
  Unsigned,
  Signed,
  Float, ///< 16-bit half or 32-bit float channels
};

/// One texel: Channels (1, 2 or 4) channels of Bits (8, 16 or 32) bits each. CUDA's packed and
/// block-compressed formats, where supported, are given their own rows by the implementation.
struct TexelFormat {
  uint8_t Channels = 1;
  uint8_t Bits = 32;
  ChannelType Type = ChannelType::Float;
  /// Integer channels read as floats in [0, 1] (unsigned) or [-1, 1] (signed): CUDA's
  /// cudaReadModeNormalizedFloat and the *Normalized* channel kinds.
  bool Normalized = false;
  bool Srgb = false;
  constexpr unsigned bytes() const { return Channels * Bits / 8u; }
};

/// An image in device memory, as the runtime knows it.
struct ImageResource {
  uint64_t Address = 0; ///< of level 0, layer 0 (alignment per layoutImage)
  ImageShape Shape = ImageShape::D2;
  TexelFormat Format;
  uint32_t Width = 1;
  uint32_t Height = 1; ///< 1 for 1D shapes and buffers
  uint32_t Depth = 1;  ///< 1 except for D3
  uint32_t Layers = 1; ///< array layers; for Cube 6, for CubeArray 6 per cube
  uint32_t MipLevels = 1;
  /// Bytes between rows of level 0 for pitch-linear memory; 0 where layoutImage decides.
  uint64_t RowPitch = 0;
  /// First and last level a resource view exposes (cudaResourceViewDesc); LastLevel 0 = all.
  uint32_t BaseLevel = 0;
  uint32_t LastLevel = 0;
  uint32_t FirstLayer = 0;
};

/// Where each mip level of an image lies, relative to ImageResource::Address.
struct ImageLevel {
  uint64_t Offset = 0;
  uint64_t RowPitch = 0;   ///< bytes between rows
  uint64_t SlicePitch = 0; ///< bytes between depth slices or layers
  uint32_t Width = 1, Height = 1, Depth = 1;
};

struct ImageLayout {
  uint64_t TotalBytes = 0; ///< to allocate for the whole array, all levels and layers
  uint64_t Alignment = 256;
  llvm::SmallVector<ImageLevel, 4> Levels;
};

/// The largest width or height of an image on every target: the T#'s on gfx12; elsewhere images
/// wider or taller than the T# holds (16384) take the software path (ImageSoftware).
inline constexpr uint32_t MaxImageExtent = 65536;

/// How a CUDA array of \p Image's shape, format, extent and levels is laid out in memory so that
/// \p T's image unit addresses it (linear tiling, the target's pitch alignment). An error names
/// an extent or format \p T cannot hold.
llvm::Expected<ImageLayout> layoutImage(const Target &T, const ImageResource &Image);

enum class AddressMode : uint8_t { Wrap, Clamp, Mirror, Border };
enum class FilterMode : uint8_t { Point, Linear };

/// A texture's sampling state: cudaTextureDesc / CUDA_TEXTURE_DESC, field for field.
struct SamplerState {
  AddressMode Address[3] = {AddressMode::Clamp, AddressMode::Clamp, AddressMode::Clamp};
  FilterMode Filter = FilterMode::Point;
  FilterMode MipFilter = FilterMode::Point;
  bool NormalizedCoords = false;
  bool SeamlessCubemap = false;
  bool DisableTrilinearOptimization = false;
  float BorderColor[4] = {0, 0, 0, 0};
  unsigned MaxAnisotropy = 0;
  float MipLodBias = 0, MinLod = 0, MaxLod = 0;
};

/// TexelFormat packed into one dword (ImageObject::Format) for txq/suq and the image unit:
/// channels in bits 0-7, bits per channel in 8-15, ChannelType in 16-23, Normalized bit 24,
/// Srgb bit 25.
constexpr uint32_t packTexelFormat(const TexelFormat &F) {
  return uint32_t(F.Channels) | uint32_t(F.Bits) << 8 | uint32_t(F.Type) << 16 |
         uint32_t(F.Normalized) << 24 | uint32_t(F.Srgb) << 25;
}
constexpr TexelFormat unpackTexelFormat(uint32_t P) {
  return TexelFormat{uint8_t(P & 0xff), uint8_t(P >> 8 & 0xff), ChannelType(P >> 16 & 0xff),
                     bool(P >> 24 & 1), bool(P >> 25 & 1)};
}

/// One texture or surface object in device memory; its device address is the 64-bit
/// cudaTextureObject_t / cudaSurfaceObject_t value the kernel receives; 128 bytes, 64-byte
/// aligned, so one object never straddles a cache line pair.
struct ImageObject {
  uint32_t Resource[8] = {}; ///< T# (images; buffers use the first 4 dwords as a V#)
  uint32_t Sampler[4] = {};  ///< S#; zero for surfaces
  uint32_t Flags = 0;        ///< ImageObjectFlags
  /// Plain copies for txq/suq and the code paths the flags select, so they are loads rather
  /// than descriptor decoding: width, height, depth, layers, levels (of the view), texel bytes.
  uint32_t Width = 0, Height = 0, Depth = 0, Layers = 0, Levels = 0, TexelBytes = 0;
  uint32_t Format = 0;      ///< packTexelFormat of the texels
  uint32_t SamplerInfo = 0; ///< txq's view of the sampler: see ImageSamplerInfoBits
  /// The software path's view (ImageObjectLayout.h): the view's first level and layer.
  uint32_t AddressLo = 0, AddressHi = 0, RowPitch = 0, FirstLayer = 0;
  float BorderColor[4] = {0, 0, 0, 0};
  float MinLod = 0, MaxLod = 0, LodBias = 0;
};
static_assert(sizeof(ImageObject) == ImageObjectBytes,
              "the lowering reads ImageObject at fixed offsets");

/// The object for a texture over \p Image sampled as \p Sampler on \p T. An error names a
/// combination \p T cannot express at all.
llvm::Expected<ImageObject> buildTextureObject(const Target &T, const ImageResource &Image,
                                               const SamplerState &Sampler);
/// The object for a surface over \p Image (unfiltered loads and stores by texel coordinate).
llvm::Expected<ImageObject> buildSurfaceObject(const Target &T, const ImageResource &Image);

/// What \p T's image unit reads from a resource / sampler descriptor: the inverse of the
/// builders above, for the host backend's image-unit model and for tests.
ImageResource decodeResource(const Target &T, const uint32_t (&Resource)[8]);
SamplerState decodeSampler(const Target &T, const uint32_t (&Sampler)[4]);

} // namespace ptx2amd::amdgpu
