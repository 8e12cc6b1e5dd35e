//===- ImageUnit.cpp - the image unit of the CPU device --------------------===//
//
// Each image intrinsic becomes one call of __ptx2amd_host_image with the descriptors and the
// operands in vector registers; the model decodes the T#/V#/S# with decodeResource /
// decodeSampler and works on the memory the descriptor addresses, laid out as layoutImage says.
//
// What it does, per AMD's and CUDA's documentation of the image unit:
//   - addressing: linear tiling; layers of arrays and cube faces are slices of their level;
//     a view's BASE_LEVEL / LAST_LEVEL / BASE_ARRAY offset levels and layers;
//   - boundary modes per dimension: wrap, mirror, clamp to the last texel, clamp to the border
//     colour (transparent black, opaque black, opaque white);
//   - point filtering floor(u); linear filtering at u - 0.5 with weights rounded to 1/256 (nine
//     bits, eight of them fractional: the precision CUDA documents for its texture unit, which
//     AMD's bilinear weights meet as well); trilinear in 3D;
//   - mip selection: implicit-LOD sampling (a compute kernel has no quad derivatives) samples
//     the base level; _l takes the LOD, _d computes it from the gradients in texels
//     (log2 of the longer of the two), then bias, MIN_LOD/MAX_LOD, and the MIP_FILTER: point
//     takes the nearest level, linear blends the two nearest with a 1/256-rounded weight;
//   - out-of-range loads read 0 and stores and atomics do nothing (the hardware's robust
//     behaviour, which suld/sust .zero rely on).
//
//===----------------------------------------------------------------------===//

#include "ImageUnit.h"

#include "ptx2amd/amdgpu-backend/ImageDescriptors.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

using namespace llvm;

namespace ptx2amd::host {

namespace {

using amdgpu::AddressMode;
using amdgpu::ChannelType;
using amdgpu::FilterMode;
using amdgpu::ImageShape;

typedef uint32_t V4U __attribute__((vector_size(16)));
typedef float V4F __attribute__((vector_size(16)));

constexpr const char *ImageFn = "__ptx2amd_host_image";
constexpr const char *CubeFn = "__ptx2amd_host_cube";

enum Op : uint32_t {
  OpSample,     ///< implicit LOD
  OpSampleL,    ///< explicit LOD (also _lz)
  OpSampleD,    ///< gradients
  OpGather,     ///< gather4 at an explicit LOD
  OpLoad,       ///< texel by coordinate (+ mip)
  OpStore,      ///< texel by coordinate (+ mip)
  OpBufferLoad, ///< formatted load through a V#
  OpAtomicAdd,
  OpAtomicSub,
  OpAtomicSMin,
  OpAtomicUMin,
  OpAtomicSMax,
  OpAtomicUMax,
  OpAtomicAnd,
  OpAtomicOr,
  OpAtomicXor,
  OpAtomicSwap,
  OpAtomicCmpSwap,
};

enum Dim : uint32_t { Dim1D, Dim2D, Dim3D, DimCube, Dim1DArray, Dim2DArray };

struct DimInfo {
  const char *Name;
  unsigned Coords, Grads;
};
constexpr DimInfo Dims[] = {{"1d", 1, 1},   {"2d", 2, 2},      {"3d", 3, 3},
                            {"cube", 3, 2}, {"1darray", 2, 1}, {"2darray", 3, 2}};

// ---- the IR side ----------------------------------------------------------------------------

struct Parsed {
  Op O;
  Dim D;
  bool HasLod = false, HasGrads = false, LodZero = false;
};

bool parseImageName(StringRef Name, Parsed &P) {
  SmallVector<StringRef, 8> Parts;
  Name.split(Parts, '.');
  size_t DimAt = 0;
  for (; DimAt < Parts.size(); ++DimAt) {
    auto *It = find_if(Dims, [&](const DimInfo &D) { return Parts[DimAt] == D.Name; });
    if (It != std::end(Dims)) {
      P.D = Dim(It - std::begin(Dims));
      break;
    }
  }
  if (DimAt == Parts.size() || DimAt == 0)
    return false;
  std::string OpName = join(ArrayRef(Parts).take_front(DimAt), ".");
  static const std::pair<const char *, Op> Atomics[] = {
      {"atomic.add", OpAtomicAdd},        {"atomic.sub", OpAtomicSub},
      {"atomic.smin", OpAtomicSMin},      {"atomic.umin", OpAtomicUMin},
      {"atomic.smax", OpAtomicSMax},      {"atomic.umax", OpAtomicUMax},
      {"atomic.and", OpAtomicAnd},        {"atomic.or", OpAtomicOr},
      {"atomic.xor", OpAtomicXor},        {"atomic.swap", OpAtomicSwap},
      {"atomic.cmpswap", OpAtomicCmpSwap}};
  for (auto [N, O] : Atomics)
    if (OpName == N) {
      P.O = O;
      return true;
    }
  if (OpName == "sample")
    P.O = OpSample;
  else if (OpName == "sample.lz" || OpName == "sample.l")
    P = {OpSampleL, P.D, OpName == "sample.l", false, OpName == "sample.lz"};
  else if (OpName == "sample.d")
    P = {OpSampleD, P.D, false, true, false};
  else if (OpName == "gather4" || OpName == "gather4.lz" || OpName == "gather4.l")
    P = {OpGather, P.D, OpName == "gather4.l", false, OpName != "gather4.l"};
  else if (OpName == "load" || OpName == "load.mip")
    P = {OpLoad, P.D, OpName == "load.mip", false, false};
  else if (OpName == "store" || OpName == "store.mip")
    P = {OpStore, P.D, OpName == "store.mip", false, false};
  else
    return false;
  return true;
}

/// \p V (a float, half, integer or vector element) as the i32 the model reads.
Value *asI32(IRBuilder<> &B, Value *V, bool Signed) {
  Type *T = V->getType();
  if (T->isHalfTy() || T->isBFloatTy())
    V = B.CreateFPExt(V, B.getFloatTy()), T = V->getType();
  if (T->isFloatTy())
    return B.CreateBitCast(V, B.getInt32Ty());
  if (T->isIntegerTy())
    return B.CreateIntCast(V, B.getInt32Ty(), Signed);
  return nullptr;
}

} // namespace

bool lowerImageIntrinsic(CallInst *CI, IRBuilder<> &B, const amdgpu::Target &T,
                         RuntimeFunctionFn Runtime) {
  Intrinsic::ID ID = CI->getIntrinsicID();
  Type *F32 = B.getFloatTy(), *I32 = B.getInt32Ty();
  auto *V4I = FixedVectorType::get(I32, 4);
  auto *V4F = FixedVectorType::get(F32, 4);
  static constexpr std::pair<Intrinsic::ID, unsigned> Cubes[] = {{Intrinsic::amdgcn_cubeid, 0},
                                                                 {Intrinsic::amdgcn_cubesc, 1},
                                                                 {Intrinsic::amdgcn_cubetc, 2},
                                                                 {Intrinsic::amdgcn_cubema, 3}};
  for (auto [CubeId, Which] : Cubes)
    if (ID == CubeId) {
      Function *Fn = Runtime(CubeFn, F32, {F32, F32, F32, I32});
      CI->replaceAllUsesWith(B.CreateCall(Fn, {CI->getArgOperand(0), CI->getArgOperand(1),
                                               CI->getArgOperand(2), B.getInt32(Which)}));
      CI->eraseFromParent();
      return true;
    }

  StringRef Name = CI->getCalledFunction()->getName();
  Type *RT = CI->getType();
  if (RT->isStructTy())
    return false; // texfailctrl results
  unsigned NumResults = RT->isVoidTy()     ? 0
                        : RT->isVectorTy() ? cast<FixedVectorType>(RT)->getNumElements()
                                           : 1;
  Value *Zero4 = Constant::getNullValue(V4I);
  Value *Rsrc0 = Zero4, *Rsrc1 = Zero4, *Samp = Zero4, *Coords = Zero4, *Data = Zero4;
  Value *D0 = Constant::getNullValue(V4F), *D1 = D0;
  Value *Lod = B.getInt32(0), *Cmp = B.getInt32(0);
  uint32_t DMask = 0;
  Parsed P{OpSample, Dim1D};
  auto Split8 = [&](Value *R) {
    Rsrc0 = B.CreateShuffleVector(R, {0, 1, 2, 3});
    Rsrc1 = B.CreateShuffleVector(R, {4, 5, 6, 7});
  };
  auto Insert = [&](Value *Vec, unsigned K, Value *V, bool Signed) -> Value * {
    Value *X = asI32(B, V, Signed);
    return X ? B.CreateInsertElement(Vec, X, K) : nullptr;
  };
  if (Name.starts_with("llvm.amdgcn.struct.buffer.load.format")) {
    P.O = OpBufferLoad;
    Rsrc0 = CI->getArgOperand(0);
    if (Rsrc0->getType() != V4I)
      return false;
    Coords = B.CreateInsertElement(Zero4, CI->getArgOperand(1), uint64_t(0));
    Coords = B.CreateInsertElement(Coords, B.CreateAdd(CI->getArgOperand(2), CI->getArgOperand(3)),
                                   uint64_t(1));
    DMask = (1u << NumResults) - 1;
  } else {
    if (!Name.consume_front("llvm.amdgcn.image.") || !parseImageName(Name, P))
      return false;
    unsigned RsrcAt = 0;
    while (RsrcAt < CI->arg_size() &&
           CI->getArgOperand(RsrcAt)->getType() != FixedVectorType::get(I32, 8))
      ++RsrcAt;
    if (RsrcAt == CI->arg_size())
      return false;
    Split8(CI->getArgOperand(RsrcAt));
    const DimInfo &DI = Dims[P.D];
    bool Atomic = P.O >= OpAtomicAdd;
    unsigned First = RsrcAt - DI.Coords - (P.HasLod ? 1 : 0);
    for (unsigned K = 0; K < DI.Coords; ++K)
      if (!(Coords = Insert(Coords, K, CI->getArgOperand(First + K), true)))
        return false;
    if (P.HasLod)
      Lod = asI32(B, CI->getArgOperand(First + DI.Coords), false);
    if (P.O <= OpGather) {
      Samp = CI->getArgOperand(RsrcAt + 1);
      DMask = cast<ConstantInt>(CI->getArgOperand(0))->getZExtValue();
    }
    if (P.HasGrads)
      for (unsigned K = 0; K < 2 * DI.Grads; ++K) {
        Value *G = CI->getArgOperand(1 + K);
        if (G->getType()->isHalfTy())
          G = B.CreateFPExt(G, F32);
        if (K < 4)
          D0 = B.CreateInsertElement(D0, G, K);
        else
          D1 = B.CreateInsertElement(D1, G, K - 4);
      }
    if (P.O == OpLoad)
      DMask = cast<ConstantInt>(CI->getArgOperand(0))->getZExtValue();
    if (P.O == OpStore || Atomic) {
      Value *V = CI->getArgOperand(0);
      unsigned N =
          V->getType()->isVectorTy() ? cast<FixedVectorType>(V->getType())->getNumElements() : 1;
      for (unsigned K = 0; K < N; ++K)
        Data = Insert(Data, K, N > 1 ? B.CreateExtractElement(V, K) : V, false);
      DMask = Atomic ? 1 : cast<ConstantInt>(CI->getArgOperand(1))->getZExtValue();
      if (P.O == OpAtomicCmpSwap)
        Cmp = asI32(B, CI->getArgOperand(1), false);
    }
  }
  Function *Fn =
      Runtime(ImageFn, V4F, {V4I, V4I, V4I, V4I, V4I, V4F, V4F, I32, I32, I32, I32, I32, I32});
  unsigned TargetIndex = unsigned(&T - amdgpu::allTargets().data());
  Value *Out =
      B.CreateCall(Fn, {Rsrc0, Rsrc1, Samp, Coords, Data, D0, D1, B.getInt32(P.O), B.getInt32(P.D),
                        B.getInt32(DMask), B.getInt32(TargetIndex), Lod, Cmp});
  if (NumResults) {
    Value *OutI = B.CreateBitCast(Out, V4I);
    Type *ET = RT->getScalarType();
    Value *R = PoisonValue::get(RT);
    for (unsigned K = 0; K < NumResults; ++K) {
      Value *E = B.CreateExtractElement(OutI, K);
      if (ET->isFloatTy())
        E = B.CreateBitCast(E, F32);
      else if (ET->isHalfTy())
        E = B.CreateFPTrunc(B.CreateBitCast(E, F32), ET);
      else if (ET->isIntegerTy())
        E = B.CreateTrunc(E, ET);
      else
        return false;
      R = RT->isVectorTy() ? B.CreateInsertElement(R, E, K) : E;
    }
    CI->replaceAllUsesWith(R);
  }
  CI->eraseFromParent();
  return true;
}

// ---- the model ------------------------------------------------------------------------------

namespace {

float halfToFloat(uint16_t H) {
  uint32_t Sign = uint32_t(H >> 15) << 31, Exp = (H >> 10) & 31, Man = H & 1023;
  uint32_t Bits;
  if (Exp == 31)
    Bits = Sign | 0x7f800000u | Man << 13;
  else if (Exp)
    Bits = Sign | (Exp + 112) << 23 | Man << 13;
  else if (!Man)
    Bits = Sign;
  else { // subnormal: normalise
    int E = -1;
    do {
      Man <<= 1;
      ++E;
    } while (!(Man & 1024));
    Bits = Sign | uint32_t(112 - E) << 23 | (Man & 1023) << 13;
  }
  float F;
  std::memcpy(&F, &Bits, 4);
  return F;
}

uint16_t floatToHalf(float F) {
  // Round to nearest even through the hardware-independent route: scale into half's range.
  uint32_t X;
  std::memcpy(&X, &F, 4);
  uint32_t Sign = (X >> 16) & 0x8000;
  uint32_t Abs = X & 0x7fffffff;
  if (Abs > 0x7f800000)
    return uint16_t(Sign | 0x7e00);
  if (Abs >= 0x477ff000) // rounds to infinity
    return uint16_t(Sign | 0x7c00);
  if (Abs < 0x38800000) { // subnormal half
    float A;
    std::memcpy(&A, &Abs, 4);
    return uint16_t(Sign | uint32_t(std::nearbyint(A * 16777216.0f)));
  }
  uint32_t R = Abs + 0xfff + ((Abs >> 13) & 1);
  return uint16_t(Sign | ((R - 0x38000000) >> 13));
}

uint32_t bitsOf(float F) {
  uint32_t B;
  std::memcpy(&B, &F, 4);
  return B;
}

void readTexel(const amdgpu::TexelFormat &F, const uint8_t *P, uint32_t (&Out)[4]);

/// A texel reader for one format: the hot path of sampling, chosen once per descriptor.
using Reader = void (*)(const uint8_t *P, uint32_t (&Out)[4]);
enum Kind : unsigned { KFloat, KUnorm, KSnorm, KUint, KSint };

template <unsigned Bits, unsigned Channels, unsigned K>
void readFixed(const uint8_t *P, uint32_t (&Out)[4]) {
  constexpr bool Integer = K == KUint || K == KSint;
  for (unsigned C = 0; C < 4; ++C) {
    if (C >= Channels) {
      Out[C] = C == 3 ? (Integer ? 1u : 0x3f800000u) : 0u;
      continue;
    }
    uint32_t V = 0;
    std::memcpy(&V, P + C * (Bits / 8), Bits / 8);
    if constexpr (K == KFloat) {
      Out[C] = Bits == 16 ? bitsOf(halfToFloat(uint16_t(V))) : V;
    } else if constexpr (K == KUnorm) {
      Out[C] = bitsOf(float(double(V) / double((uint64_t(1) << Bits) - 1)));
    } else {
      if (Bits < 32 && K != KUint && (V >> (Bits - 1)) & 1)
        V |= uint32_t(~uint64_t(0) << Bits);
      if constexpr (K == KSnorm)
        Out[C] = bitsOf(float(std::max(double(int32_t(V)) / double((1u << (Bits - 1)) - 1), -1.0)));
      else
        Out[C] = V;
    }
  }
}

template <unsigned Bits, unsigned Channels> constexpr std::array<Reader, 5> readersOf() {
  return {readFixed<Bits, Channels, KFloat>, readFixed<Bits, Channels, KUnorm>,
          readFixed<Bits, Channels, KSnorm>, readFixed<Bits, Channels, KUint>,
          readFixed<Bits, Channels, KSint>};
}

Reader pickReader(const amdgpu::TexelFormat &F) {
  static constexpr std::array<std::array<Reader, 5>, 9> Table = {
      readersOf<8, 1>(),  readersOf<8, 2>(),  readersOf<8, 4>(),
      readersOf<16, 1>(), readersOf<16, 2>(), readersOf<16, 4>(),
      readersOf<32, 1>(), readersOf<32, 2>(), readersOf<32, 4>()};
  unsigned Row = (F.Bits == 8    ? 0
                  : F.Bits == 16 ? 3
                                 : 6) +
                 (F.Channels == 1   ? 0
                  : F.Channels == 2 ? 1
                                    : 2);
  unsigned K = F.Type == ChannelType::Float    ? KFloat
               : F.Normalized                  ? (F.Type == ChannelType::Signed ? KSnorm : KUnorm)
               : F.Type == ChannelType::Signed ? KSint
                                               : KUint;
  return Table[Row][K];
}

/// A decoded image with its layout and the last sampler seen, kept per thread (one
/// thread-local lookup per call).
struct Image {
  uint32_t Words[8] = {};
  unsigned TargetIndex = ~0u;
  amdgpu::ImageResource R;
  amdgpu::ImageLayout L;
  Reader Read = nullptr;
  bool Valid = false;
  uint32_t SamplerWords[4] = {~0u, ~0u, ~0u, ~0u};
  unsigned SamplerTarget = ~0u;
  amdgpu::SamplerState S;
};

Image &perThread() {
  thread_local Image Cache;
  return Cache;
}

const Image &decoded(Image &Cache, const uint32_t (&W)[8], unsigned TargetIndex) {
  if (Cache.TargetIndex == TargetIndex && !std::memcmp(Cache.Words, W, sizeof(W)))
    return Cache;
  std::memcpy(Cache.Words, W, sizeof(W));
  Cache.TargetIndex = TargetIndex;
  const amdgpu::Target &T = amdgpu::allTargets()[TargetIndex];
  Cache.R = amdgpu::decodeResource(T, W);
  amdgpu::ImageResource Whole = Cache.R;
  Whole.BaseLevel = Whole.LastLevel = Whole.FirstLayer = 0;
  auto L = amdgpu::layoutImage(T, Whole);
  Cache.Valid = bool(L);
  if (L)
    Cache.L = std::move(*L);
  else
    consumeError(L.takeError());
  Cache.Read = Cache.Valid ? pickReader(Cache.R.Format) : nullptr;
  return Cache;
}

/// The four channels of a texel: floats (float and normalized formats) or integers, as bits;
/// missing channels read 0, 0, 1.
void readTexel(const amdgpu::TexelFormat &F, const uint8_t *P, uint32_t (&Out)[4]) {
  bool Integer = F.Type != ChannelType::Float && !F.Normalized;
  for (unsigned C = 0; C < 4; ++C) {
    if (C >= F.Channels) {
      Out[C] = C == 3 ? (Integer ? 1u : bitsOf(1.0f)) : 0u;
      continue;
    }
    uint32_t V = 0;
    std::memcpy(&V, P + C * (F.Bits / 8), F.Bits / 8);
    if (F.Type == ChannelType::Float) {
      Out[C] = F.Bits == 16 ? bitsOf(halfToFloat(uint16_t(V))) : V;
      continue;
    }
    bool Signed = F.Type == ChannelType::Signed;
    if (Signed && F.Bits < 32 && (V >> (F.Bits - 1)) & 1)
      V |= ~0u << F.Bits;
    if (!F.Normalized) {
      Out[C] = V;
      continue;
    }
    double Max = Signed ? double((1u << (F.Bits - 1)) - 1) : double((uint64_t(1) << F.Bits) - 1);
    double X = Signed ? std::max(double(int32_t(V)) / Max, -1.0) : double(V) / Max;
    Out[C] = bitsOf(float(X));
  }
}

void writeTexel(const amdgpu::TexelFormat &F, uint8_t *P, const uint32_t (&In)[4], uint32_t DMask) {
  unsigned Next = 0;
  for (unsigned C = 0; C < 4; ++C) {
    if (!(DMask >> C & 1))
      continue;
    uint32_t V = In[Next++];
    if (C >= F.Channels)
      continue;
    float X;
    std::memcpy(&X, &V, 4);
    if (F.Type == ChannelType::Float && F.Bits == 16)
      V = floatToHalf(X);
    else if (F.Normalized) {
      bool Signed = F.Type == ChannelType::Signed;
      double Max = Signed ? double((1u << (F.Bits - 1)) - 1) : double((uint64_t(1) << F.Bits) - 1);
      double Y = std::clamp(double(X), Signed ? -1.0 : 0.0, 1.0) * Max;
      V = uint32_t(int32_t(std::nearbyint(Y)));
    }
    std::memcpy(P + C * (F.Bits / 8), &V, F.Bits / 8);
  }
}

/// The address of texel (X, Y, Slice) of absolute level \p Level, or null outside it.
uint8_t *texelAt(const Image &Im, unsigned Level, int64_t X, int64_t Y, int64_t Slice) {
  if (!Im.Valid || Level >= Im.L.Levels.size())
    return nullptr;
  const amdgpu::ImageLevel &Lv = Im.L.Levels[Level];
  int64_t Slices = Im.R.Shape == ImageShape::D3 ? Lv.Depth : Im.R.Layers;
  if (X < 0 || Y < 0 || Slice < 0 || X >= Lv.Width || Y >= Lv.Height || Slice >= Slices)
    return nullptr;
  return reinterpret_cast<uint8_t *>(Im.R.Address + Lv.Offset + uint64_t(Slice) * Lv.SlicePitch +
                                     uint64_t(Y) * Lv.RowPitch + uint64_t(X) * Im.R.Format.bytes());
}

/// A tap index under an address mode; false: the border.
inline bool address(int64_t &I, int64_t N, AddressMode M) {
  switch (M) {
  case AddressMode::Wrap:
    I = ((I % N) + N) % N;
    return true;
  case AddressMode::Mirror: {
    int64_t P = ((I % (2 * N)) + 2 * N) % (2 * N);
    I = P < N ? P : 2 * N - 1 - P;
    return true;
  }
  case AddressMode::Clamp:
    I = std::clamp<int64_t>(I, 0, N - 1);
    return true;
  case AddressMode::Border:
    return I >= 0 && I < N;
  }
  return true;
}

float quantize(float W) { return std::nearbyint(W * 256.0f) / 256.0f; }

struct Sampling {
  const Image &Im;
  amdgpu::SamplerState S;
  bool Cube = false;
  bool IntegerFormat() const {
    return Im.R.Format.Type != ChannelType::Float && !Im.R.Format.Normalized;
  }
  void border(float (&Out)[4]) const {
    for (unsigned C = 0; C < 4; ++C)
      Out[C] = S.BorderColor[C];
  }
  /// One tap (absolute level, integer coordinates before addressing) as floats.
  void tap(unsigned Level, int64_t X, int64_t Y, int64_t Z, int64_t Slice, float (&Out)[4]) const {
    const amdgpu::ImageLevel &Lv = Im.L.Levels[Level];
    bool Is3D = Im.R.Shape == ImageShape::D3;
    bool In = address(X, Lv.Width, Cube ? AddressMode::Clamp : S.Address[0]);
    In &= address(Y, Lv.Height, Cube ? AddressMode::Clamp : S.Address[1]); // 1D: Y is 0
    if (Is3D)
      In &= address(Z, Lv.Depth, S.Address[2]);
    uint8_t *P = In ? texelAt(Im, Level, X, Y, Is3D ? Z : Slice) : nullptr;
    if (!P)
      return border(Out);
    uint32_t Raw[4]; // floats, or the bits of integers (never filtered)
    Im.Read(P, Raw);
    std::memcpy(Out, Raw, sizeof(Raw));
  }
  /// Filtered value at level \p Level of coordinates \p U (texel space of that level).
  void filter(unsigned Level, const float (&U)[3], unsigned Spatial, int64_t Slice,
              float (&Out)[4]) const {
    bool Linear = S.Filter == FilterMode::Linear && !IntegerFormat();
    if (!Linear) {
      int64_t I[3] = {0, 0, 0};
      for (unsigned K = 0; K < Spatial; ++K)
        I[K] = int64_t(std::floor(U[K]));
      return tap(Level, I[0], I[1], I[2], Slice, Out);
    }
    int64_t I0[3] = {0, 0, 0};
    float A[3] = {0, 0, 0};
    for (unsigned K = 0; K < Spatial; ++K) {
      float B = U[K] - 0.5f;
      float Fl = std::floor(B);
      I0[K] = int64_t(Fl);
      A[K] = quantize(B - Fl);
    }
    for (float &O : Out)
      O = 0;
    unsigned Taps = 1u << Spatial;
    for (unsigned T = 0; T < Taps; ++T) {
      float W = 1;
      int64_t I[3];
      for (unsigned K = 0; K < 3; ++K) {
        bool Hi = K < Spatial && (T >> K & 1);
        I[K] = I0[K] + (Hi ? 1 : 0);
        if (K < Spatial)
          W *= Hi ? A[K] : 1 - A[K];
      }
      if (W == 0)
        continue;
      float V[4];
      tap(Level, I[0], I[1], I[2], Slice, V);
      for (unsigned C = 0; C < 4; ++C)
        Out[C] += W * V[C];
    }
  }
};

V4F result(const uint32_t (&Channels)[4], uint32_t DMask) {
  V4U Out = {0, 0, 0, 0};
  unsigned Next = 0;
  for (unsigned C = 0; C < 4; ++C)
    if (DMask >> C & 1)
      Out[Next++] = Channels[C];
  V4F F;
  std::memcpy(&F, &Out, sizeof(F));
  return F;
}

V4F result(const float (&Channels)[4], uint32_t DMask) {
  uint32_t Bits[4];
  std::memcpy(Bits, Channels, sizeof(Bits));
  return result(Bits, DMask);
}

float asFloat(uint32_t B) {
  float F;
  std::memcpy(&F, &B, 4);
  return F;
}

V4F sample(const Image &Im, const uint32_t (&SampWords)[4], uint32_t O, Dim D, uint32_t DMask,
           const V4U &Coords, float Lod, const V4F &D0, const V4F &D1) {
  // The last sampler decoded, per thread (a kernel samples one texture most of the time).
  Image &Cache = perThread();
  if (Cache.SamplerTarget != Im.TargetIndex ||
      std::memcmp(Cache.SamplerWords, SampWords, sizeof(Cache.SamplerWords))) {
    Cache.S = amdgpu::decodeSampler(amdgpu::allTargets()[Im.TargetIndex], SampWords);
    std::memcpy(Cache.SamplerWords, SampWords, sizeof(Cache.SamplerWords));
    Cache.SamplerTarget = Im.TargetIndex;
  }
  Sampling Sm{Im, Cache.S};
  Sm.Cube = D == DimCube;
  float Zero[4] = {0, 0, 0, 0};
  if (!Im.Valid)
    return result(Zero, DMask);
  const DimInfo &DI = Dims[D];
  unsigned Spatial = D == DimCube ? 2 : D == Dim1DArray ? 1 : D == Dim2DArray ? 2 : DI.Coords;
  float C[3] = {asFloat(Coords[0]), asFloat(Coords[1]), asFloat(Coords[2])};
  int64_t Slice = 0;
  if (D == DimCube) {
    // Face coordinates in [1, 2], face + 8 x cube (ImageDescriptors.h, LowerTexture.cpp).
    float Z = std::nearbyint(C[2]);
    int64_t Cube = int64_t(std::floor(Z / 8));
    int64_t Face = int64_t(Z) - 8 * Cube;
    Slice = Cube * 6 + std::clamp<int64_t>(Face, 0, 5);
    C[0] -= 1;
    C[1] -= 1;
  } else if (D == Dim1DArray || D == Dim2DArray) {
    float Layer = std::nearbyint(C[Spatial]);
    Slice = std::clamp<int64_t>(int64_t(Layer) + Im.R.FirstLayer, 0, Im.R.Layers - 1);
  }
  unsigned Base = Im.R.BaseLevel;
  unsigned Last = Im.R.LastLevel ? Im.R.LastLevel : Im.R.MipLevels - 1;
  const amdgpu::ImageLevel &L0 = Im.L.Levels[Base];
  float Size[3] = {float(L0.Width), float(L0.Height), float(L0.Depth)};
  bool Normalized = Sm.S.NormalizedCoords || D == DimCube;
  if (O == OpSample)
    Lod = 0;
  if (O == OpSampleD) {
    float Dx[3] = {D0[0], 0, 0}, Dy[3] = {0, 0, 0};
    unsigned G = DI.Grads;
    float All[6] = {D0[0], D0[1], D0[2], D0[3], D1[0], D1[1]};
    for (unsigned K = 0; K < G; ++K) {
      Dx[K] = All[K];
      Dy[K] = All[G + K];
    }
    float Lx = 0, Ly = 0;
    for (unsigned K = 0; K < G; ++K) {
      float Scale = Normalized ? Size[K] : 1;
      Lx += Dx[K] * Scale * Dx[K] * Scale;
      Ly += Dy[K] * Scale * Dy[K] * Scale;
    }
    float Rho = std::sqrt(std::max(Lx, Ly));
    Lod = Rho > 0 ? std::log2(Rho) : -1000;
  }
  Lod = std::clamp(Lod + Sm.S.MipLodBias, Sm.S.MinLod, std::max(Sm.S.MinLod, Sm.S.MaxLod));
  Lod = std::clamp(Lod, 0.0f, float(Last - Base));
  auto At = [&](unsigned Level, float(&Out)[4]) {
    const amdgpu::ImageLevel &Lv = Im.L.Levels[Level];
    float LS[3] = {float(Lv.Width), float(Lv.Height), float(Lv.Depth)};
    float U[3];
    for (unsigned K = 0; K < 3; ++K)
      U[K] = K < Spatial ? (Normalized ? C[K] * LS[K] : C[K] * LS[K] / Size[K]) : 0;
    if (O == OpGather) {
      int64_t I0 = int64_t(std::floor(U[0] - 0.5f)), J0 = int64_t(std::floor(U[1] - 0.5f));
      unsigned Comp = DMask & 1 ? 0 : DMask & 2 ? 1 : DMask & 4 ? 2 : 3;
      static constexpr int Taps[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
      for (unsigned K = 0; K < 4; ++K) {
        float V[4];
        Sm.tap(Level, I0 + Taps[K][0], J0 + Taps[K][1], 0, Slice, V);
        Out[K] = V[Comp];
      }
      return;
    }
    Sm.filter(Level, U, Spatial, Slice, Out);
  };
  float Out[4];
  bool MipLinear = Sm.S.MipFilter == FilterMode::Linear && Last > Base && !Sm.IntegerFormat();
  if (!MipLinear) {
    At(Base + unsigned(std::floor(Lod + 0.5f)), Out);
  } else {
    unsigned L0i = unsigned(std::floor(Lod));
    float W = quantize(Lod - float(L0i));
    At(Base + L0i, Out);
    if (W > 0 && Base + L0i < Last) {
      float Hi[4];
      At(Base + L0i + 1, Hi);
      for (unsigned K = 0; K < 4; ++K)
        Out[K] = Out[K] * (1 - W) + Hi[K] * W;
    }
  }
  return O == OpGather ? result(Out, 15) : result(Out, DMask);
}

} // namespace

} // namespace ptx2amd::host

using namespace ptx2amd::host;

extern "C" V4F __ptx2amd_host_image(V4U R0, V4U R1, V4U Samp, V4U Coords, V4U Data, V4F D0, V4F D1,
                                    uint32_t O, uint32_t D, uint32_t DMask, uint32_t TargetIndex,
                                    uint32_t Lod, uint32_t Cmp) {
  uint32_t Words[8] = {R0[0], R0[1], R0[2], R0[3], R1[0], R1[1], R1[2], R1[3]};
  const Image &Im = decoded(perThread(), Words, TargetIndex);
  uint32_t Zero[4] = {0, 0, 0, 0};
  if (O <= OpGather) {
    uint32_t S[4] = {Samp[0], Samp[1], Samp[2], Samp[3]};
    return sample(Im, S, O, Dim(D), DMask, Coords, asFloat(Lod), D0, D1);
  }
  if (O == OpBufferLoad) {
    const ptx2amd::amdgpu::ImageResource &R = Im.R;
    uint32_t Out[4];
    if (R.Shape != ImageShape::Buffer || Coords[0] >= R.Width || !R.Format.Channels)
      return result(Zero, DMask);
    const uint8_t *P = reinterpret_cast<const uint8_t *>(R.Address) +
                       uint64_t(Coords[0]) * R.Format.bytes() + Coords[1];
    readTexel(R.Format, P, Out);
    return result(Out, DMask);
  }
  // Texel by integer coordinates: x, y, z or the layer (relative to the view's first).
  int64_t X = int32_t(Coords[0]), Y = 0, Slice = 0;
  switch (Dim(D)) {
  case Dim1D:
    break;
  case Dim2D:
    Y = int32_t(Coords[1]);
    break;
  case Dim3D:
    Y = int32_t(Coords[1]);
    Slice = int32_t(Coords[2]);
    break;
  case Dim1DArray:
    Slice = int32_t(Coords[1]) + int64_t(Im.R.FirstLayer);
    break;
  case Dim2DArray:
  case DimCube:
    Y = int32_t(Coords[1]);
    Slice = int32_t(Coords[2]) + int64_t(Im.R.FirstLayer);
    break;
  }
  unsigned Level = Im.R.BaseLevel + ((O == OpLoad || O == OpStore) ? Lod : 0);
  uint8_t *P = Im.R.Shape == ImageShape::Buffer ? nullptr : texelAt(Im, Level, X, Y, Slice);
  if (O == OpLoad) {
    uint32_t Out[4];
    if (!P)
      return result(Zero, DMask);
    readTexel(Im.R.Format, P, Out);
    return result(Out, DMask);
  }
  if (O == OpStore) {
    if (P) {
      uint32_t In[4] = {Data[0], Data[1], Data[2], Data[3]};
      writeTexel(Im.R.Format, P, In, DMask);
    }
    return result(Zero, 0);
  }
  if (!P || Im.R.Format.bytes() < 4)
    return result(Zero, 1);
  auto *W = reinterpret_cast<uint32_t *>(P);
  uint32_t V = Data[0], Old = 0;
  switch (Op(O)) {
  case OpAtomicAdd:
    Old = __atomic_fetch_add(W, V, __ATOMIC_SEQ_CST);
    break;
  case OpAtomicSub:
    Old = __atomic_fetch_sub(W, V, __ATOMIC_SEQ_CST);
    break;
  case OpAtomicAnd:
    Old = __atomic_fetch_and(W, V, __ATOMIC_SEQ_CST);
    break;
  case OpAtomicOr:
    Old = __atomic_fetch_or(W, V, __ATOMIC_SEQ_CST);
    break;
  case OpAtomicXor:
    Old = __atomic_fetch_xor(W, V, __ATOMIC_SEQ_CST);
    break;
  case OpAtomicSwap:
    Old = __atomic_exchange_n(W, V, __ATOMIC_SEQ_CST);
    break;
  default: { // min, max, compare-and-swap: a CAS loop
    Old = __atomic_load_n(W, __ATOMIC_SEQ_CST);
    for (;;) {
      uint32_t New = Old;
      switch (Op(O)) {
      case OpAtomicSMin:
        New = uint32_t(std::min(int32_t(Old), int32_t(V)));
        break;
      case OpAtomicUMin:
        New = std::min(Old, V);
        break;
      case OpAtomicSMax:
        New = uint32_t(std::max(int32_t(Old), int32_t(V)));
        break;
      case OpAtomicUMax:
        New = std::max(Old, V);
        break;
      case OpAtomicCmpSwap:
        New = Old == Cmp ? V : Old;
        break;
      default:
        break;
      }
      if (__atomic_compare_exchange_n(W, &Old, New, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
        break;
    }
    break;
  }
  }
  uint32_t Out[4] = {Old, 0, 0, 0};
  return result(Out, 1);
}

/// v_cubeid_f32, v_cubesc_f32, v_cubetc_f32, v_cubema_f32 (\p Which 0-3) as AMD's ISA manuals
/// define them: the major axis picks the face (z before y before x on ties).
extern "C" float __ptx2amd_host_cube(float X, float Y, float Z, uint32_t Which) {
  float AX = std::fabs(X), AY = std::fabs(Y), AZ = std::fabs(Z);
  float Id, Sc, Tc, Ma;
  if (AZ >= AX && AZ >= AY) {
    Id = Z < 0 ? 5 : 4;
    Sc = Z < 0 ? -X : X;
    Tc = -Y;
    Ma = 2 * Z;
  } else if (AY >= AX) {
    Id = Y < 0 ? 3 : 2;
    Sc = X;
    Tc = Y < 0 ? -Z : Z;
    Ma = 2 * Y;
  } else {
    Id = X < 0 ? 1 : 0;
    Sc = X < 0 ? Z : -Z;
    Tc = -Y;
    Ma = 2 * X;
  }
  float R[4] = {Id, Sc, Tc, Ma};
  return R[Which & 3];
}

namespace ptx2amd::host {

std::vector<std::pair<const char *, void *>> imageUnitSymbols() {
  return {{ImageFn, reinterpret_cast<void *>(&__ptx2amd_host_image)},
          {CubeFn, reinterpret_cast<void *>(&__ptx2amd_host_cube)}};
}

} // namespace ptx2amd::host
