//===- TextureObjects.cpp - texture and surface objects, for both APIs ===//
//
// An object is the 128-byte ImageObject (ImageDescriptors.h) that the device's target's
// builders make from the resource and the sampling state, in device memory (64-byte aligned);
// its address is the cudaTextureObject_t / cudaSurfaceObject_t. What the object was made of is
// kept for the getters.

#include "Textures.h"

#include "llvm/Support/FormatVariadic.h"

#include <cstring>
#include <unordered_map>

using namespace llvm;

namespace ptx2amd::runtime {

namespace {

struct ObjectRecord {
  bool Surface = false;
  cudaResourceDesc Res{};
  cudaTextureDesc Tex{};
  cudaResourceViewDesc View{};
  bool HasView = false;
  void *Memory = nullptr;
};

struct ObjectState {
  std::mutex Mutex; ///< guards Objects
  std::unordered_map<unsigned long long, ObjectRecord> Objects;
};
ObjectState &objectState() {
  static auto *S = new ObjectState; // never destroyed, as the rest of the runtime's state
  return *S;
}

constexpr size_t ObjectAlignment = 64;

/// The image a level of an array is on its own: one level, at the level's address.
void levelImage(const ArrayRecord &A, amdgpu::ImageResource &Out) {
  const ImageStorage &S = *A.Storage;
  const amdgpu::ImageLevel &L = S.Layout.Levels[A.Level];
  Out = S.Image;
  Out.Address = S.Image.Address + L.Offset;
  Out.Width = L.Width;
  Out.Height = L.Height;
  Out.Depth = S.Image.Shape == amdgpu::ImageShape::D3 ? L.Depth : 1;
  Out.MipLevels = 1;
  Out.RowPitch = 0; // a level's pitch is the one layoutImage gives an image of its extent
}

/// The bytes a view format's texel has, 0 for none or a block-compressed one (0x19 on).
unsigned viewFormatBytes(cudaResourceViewFormat F) {
  if (F < 0x01 || F > 0x18)
    return 0;
  const unsigned I = unsigned(F) - 1; // 8 groups of 1, 2 and 4 channels
  static constexpr unsigned GroupBits[8] = {8, 8, 16, 16, 32, 32, 16, 32};
  return GroupBits[I / 3] / 8 * (1u << (I % 3));
}

/// The texel format of view format \p F (0x01 to 0x18): unsigned and signed char, short and
/// int, then half and float, each in 1, 2 and 4 channels.
amdgpu::TexelFormat viewTexelFormat(cudaResourceViewFormat F) {
  const unsigned I = unsigned(F) - 1, Group = I / 3;
  static constexpr uint8_t GroupBits[8] = {8, 8, 16, 16, 32, 32, 16, 32};
  amdgpu::TexelFormat T;
  T.Channels = uint8_t(1u << (I % 3));
  T.Bits = GroupBits[Group];
  T.Type = Group >= 6       ? amdgpu::ChannelType::Float
           : Group % 2 == 0 ? amdgpu::ChannelType::Unsigned
                            : amdgpu::ChannelType::Signed;
  return T;
}

cudaError_t applyView(const cudaResourceViewDesc &V, bool Mipmapped, amdgpu::ImageResource &I) {
  auto Bad = [&](const std::string &Why) {
    return fail(cudaErrorInvalidValue, "resource view: " + Why);
  };
  for (unsigned R : V.reserved)
    if (R)
      return Bad("reserved fields are not 0");
  if (V.format != 0) {
    if (!viewFormatBytes(V.format))
      return fail(cudaErrorNotSupported, formatv("resource view format {0}", V.format).str());
    if (viewFormatBytes(V.format) != I.Format.bytes())
      return Bad(formatv("format {0} of {1}-byte texels over {2}-byte texels", V.format,
                         viewFormatBytes(V.format), I.Format.bytes()));
    const bool Normalized = I.Format.Normalized;
    I.Format = viewTexelFormat(V.format);
    I.Format.Normalized = Normalized && I.Format.Type != amdgpu::ChannelType::Float;
  }
  const bool Layered = I.Shape == amdgpu::ImageShape::Array1D ||
                       I.Shape == amdgpu::ImageShape::Array2D ||
                       I.Shape == amdgpu::ImageShape::CubeArray;
  const size_t Height =
      I.Shape == amdgpu::ImageShape::D1 || I.Shape == amdgpu::ImageShape::Array1D ? 0 : I.Height;
  const size_t Depth = I.Shape == amdgpu::ImageShape::D3 ? I.Depth : Layered ? I.Layers : 0;
  if (V.width != I.Width || V.height != Height || V.depth != Depth)
    return Bad(formatv("{0} x {1} x {2} of a resource of {3} x {4} x {5}", V.width, V.height,
                       V.depth, I.Width, Height, Depth));
  if (V.firstMipmapLevel > V.lastMipmapLevel || V.lastMipmapLevel >= I.MipLevels ||
      (!Mipmapped && V.lastMipmapLevel))
    return Bad(
        formatv("levels {0} to {1} of {2}", V.firstMipmapLevel, V.lastMipmapLevel, I.MipLevels));
  if (V.firstLayer > V.lastLayer || V.lastLayer >= I.Layers ||
      (!Layered && I.Shape != amdgpu::ImageShape::Cube && V.lastLayer))
    return Bad(formatv("layers {0} to {1} of {2}", V.firstLayer, V.lastLayer, I.Layers));
  if (I.Shape == amdgpu::ImageShape::CubeArray && (V.firstLayer % 6 || (V.lastLayer + 1) % 6))
    return Bad("a layered cube map's view takes whole cubes");
  I.BaseLevel = V.firstMipmapLevel;
  I.LastLevel = V.lastMipmapLevel;
  I.FirstLayer = V.firstLayer;
  if (Layered)
    I.Layers = V.lastLayer - V.firstLayer + 1;
  return cudaSuccess;
}

/// The image \p R names, checked as cudaCreateTextureObject checks it.
cudaError_t resourceImage(Context &C, const cudaResourceDesc &R, amdgpu::ImageResource &Out,
                          unsigned &ArrayFlags) {
  ArrayFlags = 0;
  if (R.flags)
    return fail(cudaErrorInvalidValue, formatv("resource flags {0:x}", R.flags).str());
  auto Aligned = [&](const void *P) -> cudaError_t {
    if (!P)
      return fail(cudaErrorInvalidValue, "a texture over a null pointer");
    if (uintptr_t(P) % C.Props.textureAlignment)
      return fail(cudaErrorInvalidValue, formatv("{0} is not aligned to the texture alignment {1}",
                                                 P, C.Props.textureAlignment)
                                             .str());
    return cudaSuccess;
  };
  switch (R.resType) {
  case cudaResourceTypeArray: {
    ArrayRecord *A = nullptr;
    if (cudaError_t E = findArray(R.res.array.array, A))
      return E;
    levelImage(*A, Out);
    ArrayFlags = A->Storage->Flags;
    return cudaSuccess;
  }
  case cudaResourceTypeMipmappedArray: {
    ImageStorage *S = nullptr;
    if (cudaError_t E = findMipmappedArray(R.res.mipmap.mipmap, S))
      return E;
    Out = S->Image;
    ArrayFlags = S->Flags;
    return cudaSuccess;
  }
  case cudaResourceTypeLinear: {
    const auto &L = R.res.linear;
    if (cudaError_t E = Aligned(L.devPtr))
      return E;
    if (cudaError_t E = texelFormat(L.desc, Out.Format))
      return E;
    int MaxWidth = 0;
    deviceAttribute(C, cudaDevAttrMaxTexture1DLinearWidth, MaxWidth);
    const size_t Elements = L.sizeInBytes / Out.Format.bytes();
    if (!Elements || Elements > size_t(MaxWidth))
      return fail(cudaErrorInvalidValue, formatv("a linear texture of {0} bytes, {1} elements "
                                                 "(at most {2})",
                                                 L.sizeInBytes, Elements, MaxWidth)
                                             .str());
    Out.Shape = amdgpu::ImageShape::Buffer;
    Out.Address = uintptr_t(L.devPtr);
    Out.Width = uint32_t(Elements);
    return cudaSuccess;
  }
  case cudaResourceTypePitch2D: {
    const auto &P = R.res.pitch2D;
    if (cudaError_t E = Aligned(P.devPtr))
      return E;
    if (cudaError_t E = texelFormat(P.desc, Out.Format))
      return E;
    const int *Max = C.Props.maxTexture2DLinear;
    // The descriptor counts the pitch in texels: any whole number of them does (CUDA asks for
    // texturePitchAlignment, which programs that align rows to fewer bytes do not all meet).
    if (!P.width || !P.height || P.width > size_t(Max[0]) || P.height > size_t(Max[1]) ||
        P.pitchInBytes > size_t(Max[2]) || P.width * Out.Format.bytes() > P.pitchInBytes ||
        P.pitchInBytes % Out.Format.bytes())
      return fail(cudaErrorInvalidValue,
                  formatv("a pitched texture of {0} x {1} elements of {2} bytes, rows {3} bytes "
                          "apart",
                          P.width, P.height, Out.Format.bytes(), P.pitchInBytes)
                      .str());
    Out.Shape = amdgpu::ImageShape::D2;
    Out.Address = uintptr_t(P.devPtr);
    Out.Width = uint32_t(P.width);
    Out.Height = uint32_t(P.height);
    Out.RowPitch = P.pitchInBytes;
    return cudaSuccess;
  }
  }
  return fail(cudaErrorInvalidValue, formatv("resource type {0}", int(R.resType)).str());
}

cudaError_t samplerState(const cudaTextureDesc &T, const amdgpu::ImageResource &I,
                         amdgpu::SamplerState &Out) {
  for (unsigned D = 0; D < 3; ++D) {
    if (T.addressMode[D] < cudaAddressModeWrap || T.addressMode[D] > cudaAddressModeBorder)
      return fail(cudaErrorInvalidValue,
                  formatv("address mode {0} of dimension {1}", int(T.addressMode[D]), D).str());
    Out.Address[D] = amdgpu::AddressMode(T.addressMode[D]);
  }
  for (cudaTextureFilterMode F : {T.filterMode, T.mipmapFilterMode})
    if (F != cudaFilterModePoint && F != cudaFilterModeLinear)
      return fail(cudaErrorInvalidValue, formatv("filter mode {0}", int(F)).str());
  if (T.readMode != cudaReadModeElementType && T.readMode != cudaReadModeNormalizedFloat)
    return fail(cudaErrorInvalidValue, formatv("read mode {0}", int(T.readMode)).str());
  const bool Integer = I.Format.Type != amdgpu::ChannelType::Float;
  if (Integer && !I.Format.Normalized && T.readMode == cudaReadModeNormalizedFloat &&
      I.Format.Bits == 32)
    return fail(cudaErrorInvalidNormSetting, "32-bit integers read as normalized floats");
  const bool ReadsFloats =
      !Integer || I.Format.Normalized || T.readMode == cudaReadModeNormalizedFloat;
  if (!ReadsFloats && T.filterMode == cudaFilterModeLinear)
    return fail(cudaErrorInvalidFilterSetting, "linear filtering of integers read as integers");
  Out.Filter = amdgpu::FilterMode(T.filterMode);
  Out.MipFilter = amdgpu::FilterMode(T.mipmapFilterMode);
  Out.NormalizedCoords = T.normalizedCoords != 0;
  Out.SeamlessCubemap = T.seamlessCubemap != 0;
  Out.DisableTrilinearOptimization = T.disableTrilinearOptimization != 0;
  std::memcpy(Out.BorderColor, T.borderColor, sizeof Out.BorderColor);
  Out.MaxAnisotropy = T.maxAnisotropy;
  Out.MipLodBias = T.mipmapLevelBias;
  Out.MinLod = T.minMipmapLevelClamp;
  Out.MaxLod = T.maxMipmapLevelClamp;
  return cudaSuccess;
}

/// Puts \p Object in device memory and records what it was made of under its address.
cudaError_t placeObject(Context &C, const amdgpu::ImageObject &Object, ObjectRecord R,
                        unsigned long long *Out) {
  void *P = nullptr;
  auto Memory = C.Dev.allocate(sizeof Object + ObjectAlignment, loader::MemoryKind::Device);
  if (!Memory)
    return fail(cudaErrorMemoryAllocation, Memory.takeError());
  R.Memory = *Memory;
  P = reinterpret_cast<void *>(alignTo(uintptr_t(*Memory), ObjectAlignment));
  if (Error E = C.Dev.copy(P, &Object, sizeof Object, loader::CopyKind::HostToDevice, nullptr)) {
    consumeError(C.Dev.release(R.Memory));
    return failDeviceCall(std::move(E), cudaErrorUnknown);
  }
  if (Error E = C.Dev.synchronize(nullptr)) {
    consumeError(C.Dev.release(R.Memory));
    return failDeviceWork(std::move(E));
  }
  ObjectState &St = objectState();
  std::lock_guard<std::mutex> Lock(St.Mutex);
  *Out = uintptr_t(P);
  St.Objects[*Out] = R;
  return cudaSuccess;
}

} // namespace

cudaError_t createTextureObject(cudaTextureObject_t *Out, const cudaResourceDesc *Res,
                                const cudaTextureDesc *Tex, const cudaResourceViewDesc *View) {
  if (!Out || !Res || !Tex)
    return fail(cudaErrorInvalidValue, "a texture object without an object, resource or "
                                       "texture description");
  *Out = 0;
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  const amdgpu::Target *T = C->Dev.properties().Target;
  if (!T)
    return fail(cudaErrorNotSupported, "the device has no AMDGPU target for textures");
  amdgpu::ImageResource Image;
  unsigned ArrayFlags = 0;
  if (cudaError_t E = resourceImage(*C, *Res, Image, ArrayFlags))
    return E;
  const bool OfArray =
      Res->resType == cudaResourceTypeArray || Res->resType == cudaResourceTypeMipmappedArray;
  if (View && !OfArray)
    return fail(cudaErrorInvalidValue, "a resource view of linear memory");
  if (View)
    if (cudaError_t E = applyView(*View, Res->resType == cudaResourceTypeMipmappedArray, Image))
      return E;
  // Integers read as floats: the texel format says so.
  if (Tex->readMode == cudaReadModeNormalizedFloat &&
      Image.Format.Type != amdgpu::ChannelType::Float && Image.Format.Bits < 32)
    Image.Format.Normalized = true;
  // sRGB to linear conversion is defined for 8-bit unsigned channels read as normalized floats;
  // CUDA ignores the flag elsewhere.
  Image.Format.Srgb = Tex->sRGB != 0 && Image.Format.Normalized && Image.Format.Bits == 8 &&
                      Image.Format.Type == amdgpu::ChannelType::Unsigned;
  amdgpu::SamplerState Sampler;
  if (cudaError_t E = samplerState(*Tex, Image, Sampler))
    return E;
  auto Object = amdgpu::buildTextureObject(*T, Image, Sampler);
  if (!Object)
    return fail(cudaErrorNotSupported, Object.takeError());
  ObjectRecord R;
  R.Res = *Res;
  R.Tex = *Tex;
  if (View)
    R.View = *View, R.HasView = true;
  return placeObject(*C, *Object, R, Out);
}

cudaError_t createSurfaceObject(cudaSurfaceObject_t *Out, const cudaResourceDesc *Res) {
  if (!Out || !Res)
    return fail(cudaErrorInvalidValue, "a surface object without an object or resource");
  *Out = 0;
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  const amdgpu::Target *T = C->Dev.properties().Target;
  if (!T)
    return fail(cudaErrorNotSupported, "the device has no AMDGPU target for surfaces");
  if (Res->resType != cudaResourceTypeArray)
    return fail(cudaErrorInvalidValue, "a surface is over an array");
  amdgpu::ImageResource Image;
  unsigned ArrayFlags = 0;
  if (cudaError_t E = resourceImage(*C, *Res, Image, ArrayFlags))
    return E;
  if (!(ArrayFlags & ArraySurfaceLoadStore))
    return fail(cudaErrorInvalidValue,
                "a surface over an array made without cudaArraySurfaceLoadStore");
  auto Object = amdgpu::buildSurfaceObject(*T, Image);
  if (!Object)
    return fail(cudaErrorNotSupported, Object.takeError());
  ObjectRecord R;
  R.Surface = true;
  R.Res = *Res;
  return placeObject(*C, *Object, R, Out);
}

cudaError_t destroyImageObject(unsigned long long Object, bool Surface) {
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  if (!Object)
    return cudaSuccess;
  void *Memory = nullptr;
  {
    ObjectState &St = objectState();
    std::lock_guard<std::mutex> Lock(St.Mutex);
    auto It = St.Objects.find(Object);
    if (It == St.Objects.end() || It->second.Surface != Surface)
      return fail(
          cudaErrorInvalidValue,
          formatv("{0:x} is not a {1} object", Object, Surface ? "surface" : "texture").str());
    Memory = It->second.Memory;
    St.Objects.erase(It);
  }
  // Kernels still running may read it.
  if (cudaError_t E = synchronizeAll(*C))
    return E;
  if (Error E = C->Dev.release(Memory))
    return fail(cudaErrorUnknown, std::move(E));
  return cudaSuccess;
}

cudaError_t imageObjectDescs(unsigned long long Object, bool Surface, cudaResourceDesc *Res,
                             cudaTextureDesc *Tex, cudaResourceViewDesc *View) {
  ObjectState &St = objectState();
  std::lock_guard<std::mutex> Lock(St.Mutex);
  auto It = St.Objects.find(Object);
  if (It == St.Objects.end() || It->second.Surface != Surface)
    return fail(
        cudaErrorInvalidValue,
        formatv("{0:x} is not a {1} object", Object, Surface ? "surface" : "texture").str());
  const ObjectRecord &R = It->second;
  if (Res)
    *Res = R.Res;
  if (Tex)
    *Tex = R.Tex;
  if (View)
    *View = R.View; // all zero (no format, no levels or layers chosen) when made without one
  return cudaSuccess;
}

} // namespace ptx2amd::runtime
