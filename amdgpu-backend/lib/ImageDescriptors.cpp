//===- ImageDescriptors.cpp - T#, V# and S# of each ISA generation --------===//
//
// Field positions come from AMD's register specifications as published in ROCm's image
// runtime and Mesa's register headers, and the unified format numbers from LLVM's
// assembler (llvm-mc-22 `format:` names); each generation is one row of GenLayouts.
//
//===----------------------------------------------------------------------===//

#include "ptx2amd/amdgpu-backend/ImageDescriptors.h"
#include "ptx2amd/support/Error.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <cmath>
#include <cstddef>

using namespace llvm;

namespace ptx2amd::amdgpu {

static_assert(offsetof(ImageObject, Sampler) == ImageObjectSampler);
static_assert(offsetof(ImageObject, Flags) == ImageObjectFlagsOffset);
static_assert(offsetof(ImageObject, Width) == ImageObjectWidth);
static_assert(offsetof(ImageObject, Levels) == ImageObjectLevels);
static_assert(offsetof(ImageObject, TexelBytes) == ImageObjectTexelBytes);
static_assert(offsetof(ImageObject, Format) == ImageObjectFormat);
static_assert(offsetof(ImageObject, SamplerInfo) == ImageObjectSamplerInfo);
static_assert(offsetof(ImageObject, AddressLo) == ImageObjectAddressLo);
static_assert(offsetof(ImageObject, RowPitch) == ImageObjectRowPitch);
static_assert(offsetof(ImageObject, FirstLayer) == ImageObjectFirstLayer);
static_assert(offsetof(ImageObject, BorderColor) == ImageObjectBorderColor);
static_assert(offsetof(ImageObject, MinLod) == ImageObjectMinLod);
static_assert(offsetof(ImageObject, LodBias) == ImageObjectLodBias);
static_assert(packTexelFormat({4, 16, ChannelType::Float, true, true}) ==
              (4 | 16 << TexelFormatBitsShift | 2 << TexelFormatTypeShift |
               TexelFormatNormalizedBit | TexelFormatSrgbBit));

namespace {

/// Errors of this file, prefixed with what failed.
Error fail(ErrorKind K, const Twine &Msg) { return makeError(K, "texture/surface: " + Msg); }

/// Bits [Lo, Lo + Bits) of dword Word; Bits 0 = the generation has no such field.
struct Field {
  uint8_t Word = 0, Lo = 0, Bits = 0;
  explicit operator bool() const { return Bits != 0; }
};

void put(uint32_t *W, Field F, uint64_t V) {
  if (!F)
    return;
  uint32_t Mask = F.Bits == 32 ? ~0u : ((1u << F.Bits) - 1) << F.Lo;
  W[F.Word] = (W[F.Word] & ~Mask) | (uint32_t(V << F.Lo) & Mask);
}

uint32_t get(const uint32_t *W, Field F) {
  if (!F)
    return 0;
  return F.Bits == 32 ? W[F.Word] : (W[F.Word] >> F.Lo) & ((1u << F.Bits) - 1);
}

/// A value split over two fields, low bits first.
struct Split {
  Field Lo, Hi;
};

void put(uint32_t *W, Split S, uint64_t V) {
  put(W, S.Lo, V);
  put(W, S.Hi, V >> S.Lo.Bits);
}

uint32_t get(const uint32_t *W, Split S) { return get(W, S.Lo) | get(W, S.Hi) << S.Lo.Bits; }

/// Numeric formats in the order the unified (gfx10+) format numbers enumerate them for
/// 8- and 16-bit channels; 32-bit channels list UINT, SINT, FLOAT only.
enum class NumFormat : uint8_t { Unorm, Snorm, Uint, Sint, Float };

/// The (channels, bits) rows every generation can hold, in one order shared by the per-
/// generation code columns below.
struct Shape {
  uint8_t Channels, Bits;
};
constexpr Shape FormatShapes[] = {{1, 8}, {1, 16}, {2, 8},  {1, 32}, {2, 16},
                                  {4, 8}, {2, 32}, {4, 16}, {4, 32}};
constexpr unsigned NumShapes = std::size(FormatShapes);

/// Everything that differs between generations, one row each.
struct GenLayout {
  // T# (image resource)
  Split Width;       ///< width - 1
  Field Height;      ///< height - 1
  Field Depth;       ///< depth - 1, last layer, or (gfx10.3+ 2D) pitch - 1
  Field Pitch;       ///< pitch - 1 in texels, where the generation has a field of its own
  bool PitchInDepth; ///< 1D/2D images keep pitch - 1 in the DEPTH field (gfx10.3+)
  Split BaseArray;
  Field MaxMip, BaseLevel, LastLevel;
  Field Format;        ///< data format (gfx9) or unified format
  Field NumFmt;        ///< numeric format (gfx9 only)
  Field ResourceLevel; ///< must be 1 (gfx10)
  uint32_t MaxExtent, MaxLayers, MaxLevels;
  // V# (buffer resource)
  Field BufFormat, BufNumFmt, BufResourceLevel, BufOobSelect;
  // S# (sampler)
  Field MinLod, MaxLod; ///< unsigned fixed point with 8 fractional bits
  /// Format code of each FormatShapes row: gfx9's data format, or the unified number of the
  /// row's first numeric format (UNORM for 8/16-bit channels, UINT for 32-bit).
  uint16_t Code[NumShapes];
};

// Fields common to all generations.
constexpr Field BaseLo{0, 0, 32}, BaseHi{1, 0, 8};
constexpr Field DstSel{3, 0, 12}, SwMode{3, 20, 5}, Type{3, 28, 4};
constexpr Field BufBaseHi{1, 0, 16}, BufStride{1, 16, 14}, BufRecords{2, 0, 32},
    BufDstSel{3, 0, 12}, BufType{3, 30, 2};
constexpr Field ClampX{0, 0, 3}, ClampY{0, 3, 3}, ClampZ{0, 6, 3}, MaxAniso{0, 9, 3},
    ForceUnnorm{0, 15, 1}, TruncCoord{0, 27, 1}, DisableCubeWrap{0, 28, 1};
constexpr Field LodBias{2, 0, 14}, XyMag{2, 20, 2}, XyMin{2, 22, 2}, ZFilter{2, 24, 2},
    MipFilter{2, 26, 2}, BorderType{3, 30, 2};

constexpr GenLayout Gfx9Layout{{{2, 0, 14}, {}},
                               {2, 14, 14},
                               {4, 0, 13},
                               {4, 13, 16},
                               false,
                               {{5, 0, 13}, {}},
                               {5, 28, 4},
                               {3, 12, 4},
                               {3, 16, 4},
                               {1, 20, 6},
                               {1, 26, 4},
                               {},
                               16384,
                               8192,
                               15,
                               {3, 15, 4},
                               {3, 12, 3},
                               {},
                               {},
                               {1, 0, 12},
                               {1, 12, 12},
                               {1, 2, 3, 4, 5, 10, 11, 12, 14}};
constexpr GenLayout Gfx10Layout{{{1, 30, 2}, {2, 0, 12}},
                                {2, 14, 14},
                                {4, 0, 14},
                                {},
                                true,
                                {{4, 16, 13}, {}},
                                {5, 4, 4},
                                {3, 12, 4},
                                {3, 16, 4},
                                {1, 20, 9},
                                {},
                                {2, 31, 1},
                                16384,
                                8192,
                                15,
                                {3, 12, 7},
                                {},
                                {3, 24, 1},
                                {3, 28, 2},
                                {1, 0, 12},
                                {1, 12, 12},
                                {1, 7, 14, 20, 23, 56, 62, 65, 75}};
constexpr GenLayout Gfx11Layout{{{1, 30, 2}, {2, 0, 12}},
                                {2, 14, 14},
                                {4, 0, 14},
                                {},
                                true,
                                {{4, 16, 13}, {}},
                                {1, 16, 4},
                                {3, 12, 4},
                                {3, 16, 4},
                                {1, 20, 8},
                                {},
                                {},
                                16384,
                                8192,
                                15,
                                {3, 12, 6},
                                {},
                                {},
                                {3, 28, 2},
                                {1, 0, 12},
                                {1, 12, 12},
                                {1, 7, 14, 20, 23, 42, 48, 51, 61}};
constexpr GenLayout Gfx12Layout{{{1, 30, 2}, {2, 0, 14}},
                                {2, 14, 16},
                                {4, 0, 16},
                                {},
                                true,
                                {{4, 16, 13}, {4, 29, 1}},
                                {1, 12, 5},
                                {1, 25, 5},
                                {3, 15, 5},
                                {1, 17, 8},
                                {},
                                {},
                                65536,
                                16384,
                                17,
                                {3, 12, 6},
                                {},
                                {},
                                {3, 28, 2},
                                {1, 0, 13},
                                {1, 13, 13},
                                {1, 7, 14, 20, 23, 42, 48, 51, 61}};

const GenLayout &layoutOf(const Target &T) {
  switch (T.Gen) {
  case Generation::Gfx9:
    return Gfx9Layout;
  case Generation::Gfx10:
    return Gfx10Layout;
  case Generation::Gfx11:
    return Gfx11Layout;
  case Generation::Gfx12:
    return Gfx12Layout;
  }
  return Gfx9Layout;
}

// SQ_RSRC_IMG_* resource types and SQ_TEX_* sampler values (the same on every generation).
enum : unsigned {
  TypeImg1D = 8,
  TypeImg2D = 9,
  TypeImg3D = 10,
  TypeImgCube = 11,
  TypeImg1DArray = 12,
  TypeImg2DArray = 13,
};
enum : unsigned { SelZero = 0, SelOne = 1, SelX = 4, SelY = 5, SelZ = 6, SelW = 7 };
enum : unsigned { ClampWrap = 0, ClampMirror = 1, ClampLastTexel = 2, ClampBorder = 6 };
enum : unsigned { BorderTransBlack = 0, BorderOpaqueBlack = 1, BorderOpaqueWhite = 2 };
enum : unsigned { FilterPoint = 0, FilterBilinear = 1 };
enum : unsigned { MipNone = 0, MipPoint = 1, MipLinear = 2 };

int shapeIndex(const TexelFormat &F) {
  for (unsigned I = 0; I < NumShapes; ++I)
    if (FormatShapes[I].Channels == F.Channels && FormatShapes[I].Bits == F.Bits)
      return int(I);
  return -1;
}

NumFormat numFormatOf(const TexelFormat &F, bool Raw) {
  if (Raw) // surfaces move the bits as they are
    return NumFormat::Uint;
  if (F.Type == ChannelType::Float)
    return NumFormat::Float;
  if (F.Normalized)
    return F.Type == ChannelType::Signed ? NumFormat::Snorm : NumFormat::Unorm;
  return F.Type == ChannelType::Signed ? NumFormat::Sint : NumFormat::Uint;
}

/// gfx9's IMG/BUF_NUM_FORMAT value.
unsigned gfx9NumFormat(NumFormat N) {
  static constexpr unsigned Values[] = {0, 1, 4, 5, 7};
  return Values[unsigned(N)];
}

/// Offset of a numeric format from a unified row's first code (gfx10+).
int unifiedOffset(unsigned Bits, NumFormat N) {
  if (Bits == 32)
    return N == NumFormat::Uint ? 0 : N == NumFormat::Sint ? 1 : N == NumFormat::Float ? 2 : -1;
  static constexpr int Offsets[] = {0, 1, 4, 5, 6}; // USCALED, SSCALED sit at 2, 3
  if (N == NumFormat::Float && Bits != 16)
    return -1;
  return Offsets[unsigned(N)];
}

struct FormatCode {
  unsigned Data, Num; ///< Num only on gfx9
};

Expected<FormatCode> encodeFormat(const Target &T, const TexelFormat &F, bool Raw) {
  int Row = shapeIndex(F);
  if (Row < 0)
    return fail(ErrorKind::Unsupported, "no " + Twine(unsigned(F.Channels)) + " x " +
                                            Twine(unsigned(F.Bits)) + "-bit texel format");
  NumFormat N = numFormatOf(F, Raw);
  const GenLayout &L = layoutOf(T);
  if (T.isGfx9()) {
    if (N == NumFormat::Float && F.Bits == 8)
      return fail(ErrorKind::Unsupported, "no 8-bit float channels");
    return FormatCode{L.Code[Row], gfx9NumFormat(N)};
  }
  int Off = unifiedOffset(F.Bits, N);
  if (Off < 0)
    return fail(ErrorKind::Unsupported,
                "no " + Twine(unsigned(F.Bits)) + "-bit channels of that numeric kind");
  return FormatCode{unsigned(L.Code[Row] + Off), 0};
}

/// The TexelFormat of a format code (Raw surfaces decode as unsigned), or Channels = 0.
TexelFormat decodeFormat(const Target &T, unsigned Data, unsigned Num) {
  const GenLayout &L = layoutOf(T);
  static constexpr NumFormat All[] = {NumFormat::Unorm, NumFormat::Snorm, NumFormat::Uint,
                                      NumFormat::Sint, NumFormat::Float};
  for (unsigned Row = 0; Row < NumShapes; ++Row)
    for (NumFormat N : All) {
      unsigned Bits = FormatShapes[Row].Bits;
      bool Match;
      if (T.isGfx9())
        Match = L.Code[Row] == Data && gfx9NumFormat(N) == Num;
      else {
        int Off = unifiedOffset(Bits, N);
        Match = Off >= 0 && L.Code[Row] + unsigned(Off) == Data;
      }
      if (!Match)
        continue;
      TexelFormat F;
      F.Channels = FormatShapes[Row].Channels;
      F.Bits = uint8_t(Bits);
      F.Type = N == NumFormat::Float                           ? ChannelType::Float
               : N == NumFormat::Snorm || N == NumFormat::Sint ? ChannelType::Signed
                                                               : ChannelType::Unsigned;
      F.Normalized = N == NumFormat::Unorm || N == NumFormat::Snorm;
      return F;
    }
  return TexelFormat{0, 0, ChannelType::Unsigned, false, false};
}

uint32_t dstSel(unsigned Channels) {
  unsigned Y = Channels >= 2 ? SelY : SelZero;
  unsigned Z = Channels >= 4 ? SelZ : SelZero;
  unsigned W = Channels >= 4 ? SelW : SelOne;
  return SelX | Y << 3 | Z << 6 | W << 9;
}

bool hasHeight(ImageShape S) {
  return S != ImageShape::Buffer && S != ImageShape::D1 && S != ImageShape::Array1D;
}
bool isArrayed(ImageShape S) {
  return S == ImageShape::Array1D || S == ImageShape::Array2D || S == ImageShape::Cube ||
         S == ImageShape::CubeArray;
}

unsigned resourceType(ImageShape S) {
  switch (S) {
  case ImageShape::D1:
    return TypeImg1D;
  case ImageShape::D2:
  case ImageShape::Buffer:
    return TypeImg2D;
  case ImageShape::D3:
    return TypeImg3D;
  case ImageShape::Array1D:
    return TypeImg1DArray;
  case ImageShape::Array2D:
    return TypeImg2DArray;
  case ImageShape::Cube:
  case ImageShape::CubeArray:
    return TypeImgCube;
  }
  return TypeImg2D;
}

/// The row pitch layoutImage gives level 0 when the caller does not fix one.
uint64_t naturalPitch(uint32_t Width, unsigned TexelBytes) {
  return alignTo(uint64_t(Width) * TexelBytes, 256);
}

/// Pitch in the descriptor's pitch field applies to this shape.
bool pitchFieldApplies(const GenLayout &L, ImageShape S) {
  if (L.Pitch)
    return true;
  return L.PitchInDepth && (S == ImageShape::D1 || S == ImageShape::D2);
}

Error checkResource(const Target &T, const ImageResource &I) {
  const TexelFormat &F = I.Format;
  if (shapeIndex(F) < 0)
    return fail(ErrorKind::Unsupported, "no " + Twine(unsigned(F.Channels)) + " x " +
                                            Twine(unsigned(F.Bits)) + "-bit texel format");
  if (F.Type == ChannelType::Float && F.Bits == 8)
    return fail(ErrorKind::Unsupported, "no 8-bit float channels");
  if (F.Normalized && (F.Type == ChannelType::Float || F.Bits == 32))
    return fail(ErrorKind::BadInput,
                "normalized reads exist for 8- and 16-bit integer channels only");
  const GenLayout &L = layoutOf(T);
  if (I.Width == 0 || I.Height == 0 || I.Depth == 0 || I.Layers == 0 || I.MipLevels == 0)
    return fail(ErrorKind::BadInput, "zero extent");
  if (I.Shape == ImageShape::Buffer)
    return Error::success();
  if (I.Width > MaxImageExtent || I.Height > MaxImageExtent)
    return fail(ErrorKind::BadInput, Twine(I.Width) + " x " + Twine(I.Height) +
                                         " exceeds the largest image extent " +
                                         Twine(MaxImageExtent));
  if (I.Depth > L.MaxLayers || I.Layers > L.MaxLayers)
    return fail(ErrorKind::BadInput, "depth or layer count exceeds " + Twine(L.MaxLayers));
  if (!hasHeight(I.Shape) && I.Height != 1)
    return fail(ErrorKind::BadInput, "a 1D image has height 1");
  if (I.Shape != ImageShape::D3 && I.Depth != 1)
    return fail(ErrorKind::BadInput, "only 3D images have a depth");
  if (!isArrayed(I.Shape) && I.Layers != 1)
    return fail(ErrorKind::BadInput, "only layered images have layers");
  if (I.Shape == ImageShape::Cube && I.Layers != 6)
    return fail(ErrorKind::BadInput, "a cube map has 6 faces");
  if (I.Shape == ImageShape::CubeArray && I.Layers % 6 != 0)
    return fail(ErrorKind::BadInput, "a layered cube map has 6 faces per layer");
  if ((I.Shape == ImageShape::Cube || I.Shape == ImageShape::CubeArray) && I.Width != I.Height)
    return fail(ErrorKind::BadInput, "cube map faces are square");
  unsigned MaxExtent = std::max({I.Width, I.Height, I.Shape == ImageShape::D3 ? I.Depth : 1u});
  if (I.MipLevels > std::min(L.MaxLevels, Log2_32(MaxExtent) + 1))
    return fail(ErrorKind::BadInput,
                Twine(I.MipLevels) + " mip levels for an extent of " + Twine(MaxExtent));
  if (I.BaseLevel >= I.MipLevels || I.LastLevel >= I.MipLevels ||
      (I.LastLevel && I.LastLevel < I.BaseLevel))
    return fail(ErrorKind::BadInput, "view levels outside the image");
  if (I.FirstLayer >= I.Layers)
    return fail(ErrorKind::BadInput, "view layer outside the image");
  unsigned Bytes = F.bytes();
  if (I.RowPitch) {
    if (I.RowPitch % Bytes || I.RowPitch < uint64_t(I.Width) * Bytes)
      return fail(ErrorKind::BadInput, "row pitch " + Twine(I.RowPitch) + " for " + Twine(I.Width) +
                                           " texels of " + Twine(Bytes) + " bytes");
    if (I.MipLevels != 1 ||
        (!pitchFieldApplies(L, I.Shape) && I.RowPitch != naturalPitch(I.Width, Bytes)))
      return fail(ErrorKind::BadInput,
                  "a chosen row pitch needs a single-level 1D or 2D image on " +
                      Twine(T.Name.data()));
    if (I.RowPitch > UINT32_MAX)
      return fail(ErrorKind::BadInput, "row pitch " + Twine(I.RowPitch) + " too large");
  }
  return Error::success();
}

/// The row pitch of level 0 in texels, as the T# holds it.
uint64_t pitchInTexels(const ImageResource &I) {
  return (I.RowPitch ? I.RowPitch : naturalPitch(I.Width, I.Format.bytes())) / I.Format.bytes();
}

/// The linear layout of a checked \p Image (see layoutImage).
ImageLayout linearLayout(const ImageResource &Image) {
  ImageLayout Out;
  unsigned Bytes = Image.Format.bytes();
  if (Image.Shape == ImageShape::Buffer) {
    Out.Alignment = Bytes;
    Out.TotalBytes = uint64_t(Image.Width) * Bytes;
    Out.Levels.push_back({0, Out.TotalBytes, Out.TotalBytes, Image.Width, 1, 1});
    return Out;
  }
  // Linear tiling: rows 256-byte aligned, slices (depth or layers) one after the other, levels
  // one after the other, each 256-byte aligned (the base address alignment of a T#).
  uint64_t Offset = 0;
  for (unsigned Level = 0; Level < Image.MipLevels; ++Level) {
    ImageLevel L;
    L.Width = std::max(1u, Image.Width >> Level);
    L.Height = hasHeight(Image.Shape) ? std::max(1u, Image.Height >> Level) : 1;
    L.Depth = Image.Shape == ImageShape::D3 ? std::max(1u, Image.Depth >> Level) : 1;
    L.RowPitch = Level == 0 && Image.RowPitch ? Image.RowPitch : naturalPitch(L.Width, Bytes);
    L.SlicePitch = alignTo(L.RowPitch * L.Height, 256);
    L.Offset = Offset;
    uint64_t Slices = Image.Shape == ImageShape::D3 ? L.Depth : Image.Layers;
    Offset = alignTo(Offset + L.SlicePitch * Slices, 256);
    Out.Levels.push_back(L);
  }
  Out.TotalBytes = Offset;
  return Out;
}

/// Whether \p T's image unit can address \p I through a T#; if not, the object takes the
/// software path (ImageSoftware).
bool imageUnitTakes(const Target &T, const ImageResource &I) {
  if (!T.hasImageInstructions() || I.Format.Srgb)
    return false;
  if (I.Shape == ImageShape::Buffer)
    return true;
  const GenLayout &L = layoutOf(T);
  if (I.Width > L.MaxExtent || I.Height > L.MaxExtent)
    return false;
  return pitchInTexels(I) - 1 < (uint64_t(1) << (L.Pitch ? L.Pitch.Bits : L.Depth.Bits));
}

} // namespace

Expected<ImageLayout> layoutImage(const Target &T, const ImageResource &Image) {
  if (Error E = checkResource(T, Image))
    return E;
  return linearLayout(Image);
}

namespace {

void encodeImage(const Target &T, const ImageResource &I, FormatCode Fmt, uint32_t *W) {
  const GenLayout &L = layoutOf(T);
  uint64_t Addr = I.Address >> 8;
  put(W, BaseLo, Addr);
  put(W, BaseHi, Addr >> 32);
  put(W, L.Format, Fmt.Data);
  put(W, L.NumFmt, Fmt.Num);
  put(W, L.Width, I.Width - 1);
  put(W, L.Height, hasHeight(I.Shape) ? I.Height - 1 : 0);
  put(W, DstSel, dstSel(I.Format.Channels));
  put(W, SwMode, 0); // linear
  put(W, Type, resourceType(I.Shape));
  put(W, L.ResourceLevel, 1);
  unsigned Last = I.LastLevel ? I.LastLevel : I.MipLevels - 1;
  put(W, L.BaseLevel, I.BaseLevel);
  put(W, L.LastLevel, Last);
  put(W, L.MaxMip, I.MipLevels - 1);
  put(W, L.BaseArray, I.FirstLayer);
  uint64_t Pitch = pitchInTexels(I);
  uint32_t Depth = 0;
  switch (I.Shape) {
  case ImageShape::D3:
    Depth = I.Depth - 1;
    break;
  case ImageShape::Array1D:
  case ImageShape::Array2D:
    Depth = I.Layers - 1;
    break;
  case ImageShape::Cube:
  case ImageShape::CubeArray:
    Depth = I.Layers / 6 - 1; // cubes, not faces
    break;
  default:
    Depth = L.PitchInDepth ? uint32_t(Pitch - 1) : 0;
    break;
  }
  put(W, L.Depth, Depth);
  put(W, L.Pitch, Pitch - 1);
}

void encodeBuffer(const Target &T, const ImageResource &I, FormatCode Fmt, uint32_t *W) {
  const GenLayout &L = layoutOf(T);
  put(W, BaseLo, I.Address);
  put(W, BufBaseHi, I.Address >> 32);
  put(W, BufStride, I.Format.bytes());
  put(W, BufRecords, I.Width);
  put(W, BufDstSel, dstSel(I.Format.Channels));
  put(W, L.BufFormat, Fmt.Data);
  put(W, L.BufNumFmt, Fmt.Num);
  put(W, L.BufResourceLevel, 1);
  put(W, L.BufOobSelect, 0); // structured: index >= records or offset >= stride is out of range
  put(W, BufType, 0);
}

Expected<ImageObject> buildObject(const Target &T, const ImageResource &I, bool Surface) {
  if (Error E = checkResource(T, I))
    return E;
  if (I.Shape != ImageShape::Buffer && I.Address % 256)
    return fail(ErrorKind::BadInput,
                "image address " + Twine::utohexstr(I.Address) + " is not 256-byte aligned");
  Expected<FormatCode> Fmt = encodeFormat(T, I.Format, Surface);
  if (!Fmt)
    return Fmt.takeError();
  ImageObject O;
  uint64_t Address = I.Address, RowPitch = uint64_t(I.Width) * I.Format.bytes();
  if (I.Shape == ImageShape::Buffer) {
    encodeBuffer(T, I, *Fmt, O.Resource);
    O.Flags |= ImageIsBuffer;
  } else {
    ImageLevel Base = linearLayout(I).Levels[I.BaseLevel]; // I is checked above
    Address += Base.Offset;
    RowPitch = Base.RowPitch;
    if (imageUnitTakes(T, I))
      encodeImage(T, I, *Fmt, O.Resource);
    else
      O.Flags |= ImageSoftware;
  }
  O.AddressLo = uint32_t(Address);
  O.AddressHi = uint32_t(Address >> 32);
  O.RowPitch = uint32_t(RowPitch);
  O.FirstLayer = I.FirstLayer;
  if (Surface)
    O.Flags |= ImageIsSurface;
  unsigned Levels = (I.LastLevel ? I.LastLevel + 1 : I.MipLevels) - I.BaseLevel;
  O.Width = std::max(1u, I.Width >> I.BaseLevel);
  O.Height = std::max(1u, I.Height >> I.BaseLevel);
  O.Depth = std::max(1u, I.Depth >> I.BaseLevel);
  O.Layers = I.Layers - I.FirstLayer;
  O.Levels = Levels;
  O.TexelBytes = I.Format.bytes();
  O.Format = packTexelFormat(I.Format);
  return O;
}

unsigned clampOf(AddressMode M) {
  switch (M) {
  case AddressMode::Wrap:
    return ClampWrap;
  case AddressMode::Clamp:
    return ClampLastTexel;
  case AddressMode::Mirror:
    return ClampMirror;
  case AddressMode::Border:
    return ClampBorder;
  }
  return ClampLastTexel;
}

AddressMode addressOf(unsigned Clamp) {
  switch (Clamp) {
  case ClampWrap:
    return AddressMode::Wrap;
  case ClampMirror:
    return AddressMode::Mirror;
  case ClampBorder:
    return AddressMode::Border;
  default:
    return AddressMode::Clamp;
  }
}

/// Unsigned (or two's complement in Bits bits) fixed point with 8 fractional bits.
uint32_t toFixed8(float V, unsigned Bits, bool Signed) {
  double Max = Signed ? std::ldexp(1.0, int(Bits) - 9) - 1.0 / 256
                      : std::ldexp(1.0, int(Bits) - 8) - 1.0 / 256;
  double Min = Signed ? -std::ldexp(1.0, int(Bits) - 9) : 0.0;
  double C = std::clamp(double(V), Min, Max);
  int64_t Fixed = int64_t(std::lround(C * 256));
  return uint32_t(Fixed) & uint32_t((uint64_t(1) << Bits) - 1);
}

float fromFixed8(uint32_t V, unsigned Bits, bool Signed) {
  int64_t X = V;
  if (Signed && (V >> (Bits - 1)) & 1)
    X -= int64_t(1) << Bits;
  return float(double(X) / 256);
}

bool needsCodeNormalization(const ImageResource &I) {
  // AMD's FORCE_UNNORMALIZED holds for single-level 1D and 2D images only.
  return I.MipLevels > 1 ||
         !(I.Shape == ImageShape::D1 || I.Shape == ImageShape::D2 || I.Shape == ImageShape::Buffer);
}

} // namespace

Expected<ImageObject> buildTextureObject(const Target &T, const ImageResource &Image,
                                         const SamplerState &S) {
  Expected<ImageObject> O = buildObject(T, Image, /*Surface=*/false);
  if (!O)
    return O.takeError();
  bool Normalized = S.NormalizedCoords;
  bool InCode = !Normalized && needsCodeNormalization(Image);
  if (InCode)
    O->Flags |= ImageNormalizeInCode;
  bool AnyBorder = false;
  for (unsigned D = 0; D < 3; ++D) {
    // CUDA: wrap and mirror need normalized coordinates; otherwise they clamp.
    AddressMode M = S.Address[D];
    if (!Normalized && (M == AddressMode::Wrap || M == AddressMode::Mirror))
      M = AddressMode::Clamp;
    AnyBorder |= M == AddressMode::Border;
    static constexpr Field Clamps[] = {ClampX, ClampY, ClampZ};
    put(O->Sampler, Clamps[D], clampOf(M));
    O->SamplerInfo |= uint32_t(M) << (SamplerInfoAddressShift + 2 * D);
  }
  unsigned Border = BorderTransBlack;
  if (AnyBorder) {
    const float *C = S.BorderColor;
    bool Black = C[0] == 0 && C[1] == 0 && C[2] == 0;
    if (Black && C[3] == 0)
      Border = BorderTransBlack;
    else if (Black && C[3] == 1)
      Border = BorderOpaqueBlack;
    else if (C[0] == 1 && C[1] == 1 && C[2] == 1 && C[3] == 1)
      Border = BorderOpaqueWhite;
    else // the S# names these three only
      O->Flags |= ImageSoftware;
  }
  for (unsigned K = 0; K < 4; ++K)
    O->BorderColor[K] = S.BorderColor[K];
  O->MinLod = S.MinLod;
  O->MaxLod = S.MaxLod;
  O->LodBias = S.MipLodBias;
  if (Image.MipLevels > 1 && S.MipFilter == FilterMode::Linear)
    O->SamplerInfo |= SamplerInfoMipLinear;
  put(O->Sampler, BorderType, Border);
  unsigned Aniso = S.MaxAnisotropy <= 1 ? 0 : std::min(4u, Log2_32_Ceil(S.MaxAnisotropy));
  put(O->Sampler, MaxAniso, Aniso);
  put(O->Sampler, ForceUnnorm, !Normalized && !InCode);
  put(O->Sampler, TruncCoord, S.Filter == FilterMode::Point);
  put(O->Sampler, DisableCubeWrap, !S.SeamlessCubemap);
  unsigned Filter = S.Filter == FilterMode::Linear ? FilterBilinear : FilterPoint;
  put(O->Sampler, XyMag, Filter);
  put(O->Sampler, XyMin, Filter);
  put(O->Sampler, ZFilter, Filter + 1);
  put(O->Sampler, MipFilter,
      Image.MipLevels == 1                ? MipNone
      : S.MipFilter == FilterMode::Linear ? MipLinear
                                          : MipPoint);
  const GenLayout &L = layoutOf(T);
  put(O->Sampler, L.MinLod, toFixed8(S.MinLod, L.MinLod.Bits, false));
  put(O->Sampler, L.MaxLod, toFixed8(S.MaxLod, L.MaxLod.Bits, false));
  put(O->Sampler, LodBias, toFixed8(S.MipLodBias, LodBias.Bits, true));
  if (S.Filter == FilterMode::Linear)
    O->SamplerInfo |= SamplerInfoLinear;
  if (Normalized)
    O->SamplerInfo |= SamplerInfoNormalized;
  return O;
}

Expected<ImageObject> buildSurfaceObject(const Target &T, const ImageResource &Image) {
  return buildObject(T, Image, /*Surface=*/true);
}

ImageResource decodeResource(const Target &T, const uint32_t (&W)[8]) {
  const GenLayout &L = layoutOf(T);
  ImageResource I;
  unsigned Ty = get(W, Type);
  if (Ty < TypeImg1D) { // a V#: TYPE is 0 in the top two bits
    I.Shape = ImageShape::Buffer;
    I.Address = uint64_t(get(W, BaseLo)) | uint64_t(get(W, BufBaseHi)) << 32;
    I.Format = decodeFormat(T, get(W, L.BufFormat), get(W, L.BufNumFmt));
    I.Width = get(W, BufRecords);
    return I;
  }
  I.Address = (uint64_t(get(W, BaseLo)) | uint64_t(get(W, BaseHi)) << 32) << 8;
  I.Format = decodeFormat(T, get(W, L.Format), get(W, L.NumFmt));
  I.Width = get(W, L.Width) + 1;
  I.Height = get(W, L.Height) + 1;
  I.MipLevels = get(W, L.MaxMip) + 1;
  I.BaseLevel = get(W, L.BaseLevel);
  unsigned Last = get(W, L.LastLevel);
  I.LastLevel = Last == I.MipLevels - 1 ? 0 : Last;
  I.FirstLayer = get(W, L.BaseArray);
  uint32_t Depth = get(W, L.Depth) + 1;
  switch (Ty) {
  case TypeImg1D:
    I.Shape = ImageShape::D1;
    break;
  case TypeImg3D:
    I.Shape = ImageShape::D3;
    I.Depth = Depth;
    break;
  case TypeImgCube:
    I.Shape = Depth == 1 ? ImageShape::Cube : ImageShape::CubeArray;
    I.Layers = Depth * 6;
    break;
  case TypeImg1DArray:
    I.Shape = ImageShape::Array1D;
    I.Layers = Depth;
    break;
  case TypeImg2DArray:
    I.Shape = ImageShape::Array2D;
    I.Layers = Depth;
    break;
  default:
    I.Shape = ImageShape::D2;
    break;
  }
  if (!hasHeight(I.Shape))
    I.Height = 1;
  unsigned Bytes = I.Format.bytes();
  if (Bytes && pitchFieldApplies(L, I.Shape)) {
    uint64_t Pitch = uint64_t(L.Pitch ? get(W, L.Pitch) : Depth - 1) + 1;
    uint64_t PitchBytes = Pitch * Bytes;
    I.RowPitch = PitchBytes == naturalPitch(I.Width, Bytes) ? 0 : PitchBytes;
  }
  return I;
}

SamplerState decodeSampler(const Target &T, const uint32_t (&W)[4]) {
  const GenLayout &L = layoutOf(T);
  SamplerState S;
  static constexpr Field Clamps[] = {ClampX, ClampY, ClampZ};
  for (unsigned D = 0; D < 3; ++D)
    S.Address[D] = addressOf(get(W, Clamps[D]));
  S.Filter = get(W, XyMag) == FilterBilinear ? FilterMode::Linear : FilterMode::Point;
  S.MipFilter = get(W, MipFilter) == MipLinear ? FilterMode::Linear : FilterMode::Point;
  S.NormalizedCoords = !get(W, ForceUnnorm);
  S.SeamlessCubemap = !get(W, DisableCubeWrap);
  unsigned Aniso = get(W, MaxAniso);
  S.MaxAnisotropy = Aniso ? 1u << Aniso : 0;
  switch (get(W, BorderType)) {
  case BorderOpaqueBlack:
    S.BorderColor[3] = 1;
    break;
  case BorderOpaqueWhite:
    std::fill(std::begin(S.BorderColor), std::end(S.BorderColor), 1.0f);
    break;
  default:
    break;
  }
  S.MinLod = fromFixed8(get(W, L.MinLod), L.MinLod.Bits, false);
  S.MaxLod = fromFixed8(get(W, L.MaxLod), L.MaxLod.Bits, false);
  S.MipLodBias = fromFixed8(get(W, LodBias), LodBias.Bits, true);
  return S;
}

} // namespace ptx2amd::amdgpu
