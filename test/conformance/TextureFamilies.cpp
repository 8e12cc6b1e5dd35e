// The `texture` family: tex over geometries x channel formats x address modes x filter modes x
// coordinate normalisation x read modes, sampled at texel centres, at texel edges and out of
// range; tld4 gathers; suld/sust with each boundary mode. The reference follows the CUDA
// Programming Guide's texture-fetching appendix:
//   - normalized coordinates are scaled by the extent: x = N x_n;
//   - nearest-point sampling: T[floor(x)];
//   - linear filtering: xB = x - 0.5, i = floor(xB), a = frac(xB) held in 9-bit fixed point with
//     8 fractional bits (here rounded to the nearest 1/256), tex = (1 - a) T[i] + a T[i + 1]
//     (bilinear and trilinear likewise);
//   - address modes on each tap index: clamp to [0, N - 1], wrap (i mod N), mirror (reflected at
//     each edge), border (outside: the border colour, transparent black);
//   - cudaReadModeNormalizedFloat: unsigned v / (2^b - 1), signed max(v / (2^(b-1) - 1), -1);
//     element type: the integer itself;
//   - cube maps: the face of the major axis, (s / |m| + 1) / 2 per the guide's face table.
// Point sampling and integer reads are exact; linear filtering may differ from the reference by
// 1/256 of the largest tap (the weight precision). Surfaces and gathers are exact.
#include "Families.h"
#include "KernelHarness.h"

#include "ptx2amd/amdgpu-backend/ImageDescriptors.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

namespace conformance {

namespace {

namespace img = ptx2amd::amdgpu;
using img::AddressMode;
using img::ChannelType;
using img::FilterMode;
using img::ImageShape;

constexpr uint32_t Threads = 64;
constexpr uint32_t Sentinel = 0xdeadbeef;

struct Geo {
  const char *Name; ///< in case names
  const char *Ptx;  ///< PTX geometry
  ImageShape Shape;
  unsigned Spatial; ///< coordinates within a layer (cube: the direction's 3)
  unsigned PtxCoords;
  uint32_t W, H, D, Layers;
};

const Geo Geos[] = {
    {"1d", "1d", ImageShape::D1, 1, 1, 37, 1, 1, 1}, // 37: x / 37 * 37 is not x for some x
    {"2d", "2d", ImageShape::D2, 2, 2, 7, 5, 1, 1},
    {"3d", "3d", ImageShape::D3, 3, 4, 5, 4, 3, 1},
    {"a2d", "a2d", ImageShape::Array2D, 2, 4, 6, 3, 1, 4},
    {"cube", "cube", ImageShape::Cube, 3, 4, 4, 4, 1, 6},
};

struct Fmt {
  const char *Name;
  img::TexelFormat F;
};

const Fmt Fmts[] = {
    {"u8x4n", {4, 8, ChannelType::Unsigned, true}}, {"f32", {1, 32, ChannelType::Float, false}},
    {"s16x2n", {2, 16, ChannelType::Signed, true}}, {"u8", {1, 8, ChannelType::Unsigned, false}},
    {"f16x4", {4, 16, ChannelType::Float, false}},  {"s32x2", {2, 32, ChannelType::Signed, false}},
};

const char *modeName(AddressMode M) {
  switch (M) {
  case AddressMode::Wrap:
    return "wrap";
  case AddressMode::Clamp:
    return "clamp";
  case AddressMode::Mirror:
    return "mirror";
  case AddressMode::Border:
    return "border";
  }
  return "?";
}

bool integerRead(const img::TexelFormat &F) {
  return F.Type != ChannelType::Float && !F.Normalized;
}

/// --software-textures: every object takes the software path (ImageSoftware), as objects the
/// image unit cannot take do, so that the branch to it is tested on every target.
bool ForceSoftware = false;

void placeObject(Words &Buffer, img::ImageObject O, bool Software) {
  if (Software)
    O.Flags |= img::ImageSoftware;
  std::memcpy(Buffer.data(), &O, sizeof O);
}

float halfToFloat(uint16_t H) {
  int E = (H >> 10) & 31, M = H & 1023;
  float V = E == 0 ? std::ldexp(float(M), -24) : std::ldexp(float(M | 1024), E - 25);
  return (H & 0x8000) ? -V : V;
}

/// What a texel reads as, per the read mode: floats, or integers (as their bits).
struct Texel {
  float F[4] = {0, 0, 0, 0};
  uint32_t I[4] = {0, 0, 0, 0};
};

Texel readTexel(const img::TexelFormat &F, const uint8_t *P) {
  Texel T;
  for (unsigned C = 0; C < 4; ++C) {
    if (C >= F.Channels) {
      T.F[C] = C == 3 ? 1.0f : 0.0f;
      T.I[C] = C == 3 ? 1 : 0;
      continue;
    }
    uint32_t V = 0;
    std::memcpy(&V, P + C * F.Bits / 8, F.Bits / 8);
    if (F.Type == ChannelType::Float) {
      if (F.Bits == 16)
        T.F[C] = halfToFloat(uint16_t(V));
      else
        std::memcpy(&T.F[C], &V, 4);
      continue;
    }
    int64_t S = V;
    if (F.Type == ChannelType::Signed && F.Bits < 32 && (V >> (F.Bits - 1)) & 1)
      S = int64_t(V) - (int64_t(1) << F.Bits);
    if (F.Type == ChannelType::Signed && F.Bits == 32)
      S = int32_t(V);
    T.I[C] = uint32_t(S);
    if (F.Normalized) {
      double Max = F.Type == ChannelType::Signed ? double((1 << (F.Bits - 1)) - 1)
                                                 : double((int64_t(1) << F.Bits) - 1);
      T.F[C] = float(std::max(double(S) / Max, -1.0));
    }
  }
  return T;
}

/// One tap index under an address mode; false: outside (border).
bool addressTap(int64_t &I, int64_t N, AddressMode M) {
  switch (M) {
  case AddressMode::Clamp:
    I = std::clamp<int64_t>(I, 0, N - 1);
    return true;
  case AddressMode::Wrap:
    I = ((I % N) + N) % N;
    return true;
  case AddressMode::Mirror: {
    int64_t P = ((I % (2 * N)) + 2 * N) % (2 * N);
    I = P < N ? P : 2 * N - 1 - P;
    return true;
  }
  case AddressMode::Border:
    return I >= 0 && I < N;
  }
  return false;
}

struct Config {
  const Geo *G;
  const Fmt *F;
  AddressMode A;
  FilterMode Filter;
  bool Normalized;
  /// tex's texel offsets (2D cases), added to every tap index; and .v4.f16 results.
  int Off[2] = {0, 0};
  bool HalfResult = false;
};

std::string caseName(const Config &C) {
  std::string Name = std::string(C.G->Name) + "." + C.F->Name + "." + modeName(C.A) + "." +
                     (C.Filter == FilterMode::Linear ? "linear" : "point") + "." +
                     (C.Normalized ? "norm" : "unnorm");
  if (C.Off[0] || C.Off[1])
    Name += ".offset" + std::to_string(C.Off[0]) + "," + std::to_string(C.Off[1]);
  if (C.HalfResult)
    Name += ".f16-result";
  return Name;
}

/// \p V rounded to the nearest f16 (ties to even), as a float.
float roundToHalf(float V) { return float(_Float16(V)); }

img::ImageResource resourceOf(const Geo &G, const img::TexelFormat &F) {
  img::ImageResource R;
  R.Shape = G.Shape;
  R.Format = F;
  R.Width = G.W;
  R.Height = G.H;
  R.Depth = G.D;
  R.Layers = G.Layers;
  return R;
}

/// Deterministic image contents: random bytes, float channels random finite values in [-4, 4].
Words imageWords(const img::ImageLayout &L, const img::TexelFormat &F, uint64_t Seed) {
  Words W = randomWords((L.TotalBytes + 3) / 4, Seed);
  if (F.Type != ChannelType::Float)
    return W;
  auto *Bytes = reinterpret_cast<uint8_t *>(W.data());
  for (size_t B = 0; B + F.Bits / 8 <= L.TotalBytes; B += F.Bits / 8) {
    uint32_t R = W[B / 4] * 2654435761u + uint32_t(B);
    float V = float(int32_t(R % 2049) - 1024) / 256.0f;
    if (F.Bits == 32) {
      std::memcpy(Bytes + B, &V, 4);
    } else { // exactly representable in half: multiples of 1/256 below 4
      uint16_t H;
      int Sign = V < 0;
      float A = std::fabs(V);
      if (A == 0) {
        H = uint16_t(Sign << 15);
      } else {
        int E;
        float M = std::frexp(A, &E); // A = M 2^E, M in [0.5, 1)
        H = uint16_t(Sign << 15 | (E + 14) << 10 | (uint32_t(M * 2048) & 1023));
      }
      std::memcpy(Bytes + B, &H, 2);
    }
  }
  return W;
}

/// Per thread: four coordinate words (floats; the layer of a2d as an integer in word 0).
Words coordinateWords(const Config &C, uint64_t Seed) {
  const Geo &G = *C.G;
  Words W(Threads * 4, 0);
  Words R = randomWords(Threads * 8, Seed);
  const uint32_t Ext[3] = {G.W, G.H, G.D};
  for (uint32_t T = 0; T < Threads; ++T) {
    float V[4] = {0, 0, 0, 0};
    if (G.Shape == ImageShape::Cube) {
      // Directions with a clear major axis, and some near the edges of faces.
      for (unsigned K = 0; K < 3; ++K)
        V[K] = float(int32_t(R[T * 8 + K] % 2001) - 1000) / 500.0f;
      unsigned Major = R[T * 8 + 3] % 3;
      V[Major] = (R[T * 8 + 4] & 1 ? -1.0f : 1.0f) * (2.5f + float(R[T * 8 + 5] % 100) / 100.0f);
    } else {
      for (unsigned K = 0; K < G.Spatial; ++K) {
        uint32_t N = Ext[K];
        uint32_t Pick = R[T * 8 + K] % 8;
        int32_t I = int32_t(R[T * 8 + 4 + K] % (N + 2)) - 1;
        float X; // in texels
        switch (Pick) {
        case 0:
        case 1:
        case 2: // texel centres
          X = float(I) + 0.5f;
          break;
        case 3: // texel edges
          X = float(I);
          break;
        case 4: // a quarter in
          X = float(I) + 0.25f;
          break;
        case 5: // far outside
          X = (R[T * 8 + K] & 16) ? float(N) + 2.75f : -3.25f;
          break;
        default: // anywhere, in 1/64 steps
          X = float(int32_t(R[T * 8 + 4 + K] % (64 * (N + 4))) - 128) / 64.0f;
          break;
        }
        V[K] = C.Normalized ? X / float(N) : X;
      }
    }
    uint32_t Layer = G.Layers > 1 && G.Shape != ImageShape::Cube ? R[T * 8 + 7] % G.Layers : 0;
    // PTX order: a2d is {layer, x, y, _}.
    if (G.Shape == ImageShape::Array2D) {
      W[T * 4] = Layer;
      std::memcpy(&W[T * 4 + 1], &V[0], 4);
      std::memcpy(&W[T * 4 + 2], &V[1], 4);
    } else {
      std::memcpy(&W[T * 4], V, 16);
    }
  }
  return W;
}

/// The reference fetch of one thread: four result words.
struct Reference {
  const Config &C;
  const img::ImageLayout &L;
  const uint8_t *Image;

  bool tap(int64_t X, int64_t Y, int64_t Z, int64_t Slice, Texel &Out) const {
    const Geo &G = *C.G;
    const img::ImageLevel &Lv = L.Levels[0];
    AddressMode A = C.A;
    if (!C.Normalized && (A == AddressMode::Wrap || A == AddressMode::Mirror))
      A = AddressMode::Clamp; // the guide: wrap and mirror need normalized coordinates
    if (G.Shape == ImageShape::Cube)
      A = AddressMode::Clamp;
    bool In = addressTap(X, Lv.Width, A);
    if (G.Spatial >= 2)
      In &= addressTap(Y, Lv.Height, A);
    if (G.Shape == ImageShape::D3)
      In &= addressTap(Z, Lv.Depth, A);
    if (!In) {
      Out = Texel{}; // transparent black border
      return true;
    }
    uint64_t Off = Lv.Offset + uint64_t(G.Shape == ImageShape::D3 ? Z : Slice) * Lv.SlicePitch +
                   uint64_t(Y) * Lv.RowPitch + uint64_t(X) * C.F->F.bytes();
    Out = readTexel(C.F->F, Image + Off);
    return true;
  }

  /// Four result words and the tolerance per word (0: exact).
  void fetch(const uint32_t *Coord, uint32_t (&Out)[4], float &Tolerance) const {
    const Geo &G = *C.G;
    float V[3] = {0, 0, 0};
    int64_t Slice = 0;
    unsigned Spatial = G.Spatial;
    uint32_t Ext[3] = {G.W, G.H, G.D};
    bool Normalized = C.Normalized;
    if (G.Shape == ImageShape::Array2D) {
      Slice = Coord[0];
      std::memcpy(&V[0], &Coord[1], 4);
      std::memcpy(&V[1], &Coord[2], 4);
    } else {
      std::memcpy(V, Coord, 12);
    }
    if (G.Shape == ImageShape::Cube) {
      // The guide's face table: the major axis m picks the face; s, t as listed.
      float X = V[0], Y = V[1], Z = V[2];
      float AX = std::fabs(X), AY = std::fabs(Y), AZ = std::fabs(Z);
      float S, T, M;
      if (AX >= AY && AX >= AZ && AX > AZ) {
        Slice = X >= 0 ? 0 : 1;
        S = X >= 0 ? -Z : Z;
        T = -Y;
        M = AX;
      } else if (AY >= AZ && AY > AX) {
        Slice = Y >= 0 ? 2 : 3;
        S = X;
        T = Y >= 0 ? Z : -Z;
        M = AY;
      } else {
        Slice = Z >= 0 ? 4 : 5;
        S = Z >= 0 ? X : -X;
        T = -Y;
        M = AZ;
      }
      V[0] = (S / M + 1) / 2;
      V[1] = (T / M + 1) / 2;
      Spatial = 2;
      Normalized = true;
    }
    float U[3];
    for (unsigned K = 0; K < Spatial; ++K)
      U[K] = Normalized ? V[K] * float(Ext[K]) : V[K];
    bool Linear = C.Filter == FilterMode::Linear;
    Texel Result;
    Tolerance = 0;
    if (!Linear) {
      int64_t I[3] = {0, 0, 0};
      for (unsigned K = 0; K < Spatial; ++K)
        I[K] = int64_t(std::floor(U[K])) + (K < 2 ? C.Off[K] : 0);
      tap(I[0], I[1], I[2], Slice, Result);
    } else {
      int64_t I0[3] = {0, 0, 0};
      float A[3] = {0, 0, 0};
      for (unsigned K = 0; K < Spatial; ++K) {
        float XB = U[K] - 0.5f;
        I0[K] = int64_t(std::floor(XB)) + (K < 2 ? C.Off[K] : 0);
        A[K] = std::nearbyint((XB - std::floor(XB)) * 256.0f) / 256.0f;
      }
      float Largest = 0;
      for (unsigned T = 0; T < (1u << Spatial); ++T) {
        float W = 1;
        int64_t I[3] = {I0[0], I0[1], I0[2]};
        for (unsigned K = 0; K < Spatial; ++K) {
          bool Hi = T >> K & 1;
          I[K] += Hi;
          W *= Hi ? A[K] : 1 - A[K];
        }
        Texel Tx;
        tap(I[0], I[1], I[2], Slice, Tx);
        for (unsigned Ch = 0; Ch < 4; ++Ch) {
          Result.F[Ch] += W * Tx.F[Ch];
          Largest = std::max(Largest, std::fabs(Tx.F[Ch]));
        }
      }
      Tolerance = Largest / 256.0f + 1e-6f;
    }
    for (unsigned Ch = 0; Ch < 4; ++Ch) {
      if (integerRead(C.F->F))
        Out[Ch] = Result.I[Ch];
      else
        std::memcpy(&Out[Ch], &Result.F[Ch], 4);
    }
  }
};

std::string texBody(const Config &C) {
  const Geo &G = *C.G;
  const char *RT =
      integerRead(C.F->F) ? (C.F->F.Type == ChannelType::Signed ? "s32" : "u32") : "f32";
  std::ostringstream S;
  S << "  .reg .b32 %tid, %ctaid, %ntid, %gid, %r<8>;\n  .reg .f32 %f<8>;\n  .reg .b64 %rd<8>;\n"
    << "  mov.u32 %tid, %tid.x;\n  mov.u32 %ctaid, %ctaid.x;\n  mov.u32 %ntid, %ntid.x;\n"
    << "  mad.lo.u32 %gid, %ctaid, %ntid, %tid;\n"
    << "  ld.param.u64 %rd1, [buf1];\n  ld.param.u64 %rd2, [buf2];\n  ld.param.u64 %rd3, [buf3];\n"
    << "  mul.wide.u32 %rd4, %gid, 16;\n  add.s64 %rd5, %rd2, %rd4;\n  add.s64 %rd6, %rd3, %rd4;\n"
    << "  ld.global.v4.b32 {%r0, %r1, %r2, %r3}, [%rd5];\n"
    << "  mov.b32 %f0, %r0;\n  mov.b32 %f1, %r1;\n  mov.b32 %f2, %r2;\n  mov.b32 %f3, %r3;\n";
  std::string Coords;
  switch (G.PtxCoords) {
  case 1:
    Coords = "{%f0}";
    break;
  case 2:
    Coords = "{%f0, %f1}";
    break;
  default:
    Coords = G.Shape == ImageShape::Array2D ? "{%r0, %f1, %f2, %f3}" : "{%f0, %f1, %f2, %f3}";
    break;
  }
  std::string Offsets;
  if (C.Off[0] || C.Off[1])
    Offsets = ", {" + std::to_string(C.Off[0]) + ", " + std::to_string(C.Off[1]) + "}";
  if (C.HalfResult) {
    // Four f16 results, each widened back to f32 for the check.
    S << "  .reg .b16 %h<4>;\n  tex." << G.Ptx << ".v4.f16.f32 {%h0, %h1, %h2, %h3}, [%rd1, "
      << Coords << "]" << Offsets << ";\n";
    for (unsigned K = 0; K < 4; ++K)
      S << "  cvt.f32.f16 %f" << 4 + K << ", %h" << K << ";\n";
    S << "  st.global.v4.f32 [%rd6], {%f4, %f5, %f6, %f7};\n  ret;\n";
    return S.str();
  }
  S << "  tex." << G.Ptx << ".v4." << RT << ".f32 {%r4, %r5, %r6, %r7}, [%rd1, " << Coords << "]"
    << Offsets << ";\n  st.global.v4.b32 [%rd6], {%r4, %r5, %r6, %r7};\n  ret;\n";
  return S.str();
}

KernelCase textureCase(const Config &C, uint64_t Seed) {
  KernelCase K;
  K.Name = "tex." + caseName(C);
  img::ImageResource R = resourceOf(*C.G, C.F->F);
  auto L = img::layoutImage(*img::findTarget("gfx1100"), R);
  if (!L) {
    K.Check = [Why = llvm::toString(L.takeError())](const auto &, const auto &) { return Why; };
    return K;
  }
  img::ImageLayout Layout = *L;
  K.Body = texBody(C);
  K.Grid = {1};
  K.Block = {Threads};
  Words Image = imageWords(Layout, C.F->F, Seed);
  Image.resize(std::max<size_t>(Image.size(), 64)); // the device's small blocks are not 256-aligned
  K.Buffers = {Image, Words(32, 0), coordinateWords(C, Seed + 1), Words(Threads * 4, Sentinel)};
  K.Place = [C, R, Soft = ForceSoftware](const std::string &Target,
                                         const std::vector<uint64_t> &Addr,
                                         std::vector<Words> &Buffers) -> std::string {
    img::ImageResource Res = R;
    Res.Address = Addr[0];
    img::SamplerState S;
    for (AddressMode &M : S.Address)
      M = C.A;
    S.Filter = C.Filter;
    S.NormalizedCoords = C.Normalized;
    auto O = img::buildTextureObject(*img::findTarget(Target), Res, S);
    if (!O)
      return "texture object: " + llvm::toString(O.takeError());
    placeObject(Buffers[1], *O, Soft);
    return "";
  };
  K.Check = [C, Layout](const std::vector<Words> &In, const std::vector<Words> &Out) {
    Reference Ref{C, Layout, reinterpret_cast<const uint8_t *>(In[0].data())};
    std::ostringstream Report;
    unsigned Bad = 0;
    for (uint32_t T = 0; T < Threads; ++T) {
      uint32_t Want[4];
      float Tol;
      Ref.fetch(&In[2][T * 4], Want, Tol);
      for (unsigned Ch = 0; Ch < 4; ++Ch) {
        uint32_t Got = Out[3][T * 4 + Ch];
        float ChTol = Tol;
        if (C.HalfResult) { // the reference rounded to f16, within the filter's tolerance
          float W;
          std::memcpy(&W, &Want[Ch], 4);
          float H = roundToHalf(W);
          std::memcpy(&Want[Ch], &H, 4);
          if (ChTol > 0)
            ChTol += std::fabs(W) / 1024;
        }
        bool Ok = Got == Want[Ch];
        if (!Ok && ChTol > 0) {
          float G, W;
          std::memcpy(&G, &Got, 4);
          std::memcpy(&W, &Want[Ch], 4);
          Ok = std::fabs(G - W) <= ChTol;
        }
        if (!Ok && Bad++ < 3) {
          float X[4];
          std::memcpy(X, &In[2][T * 4], 16);
          char Buf[200];
          std::snprintf(Buf, sizeof Buf,
                        "\n    thread %u channel %u at (%g, %g, %g | %u): expected 0x%08x got "
                        "0x%08x",
                        T, Ch, X[0], X[1], X[2], In[2][T * 4], Want[Ch], Got);
          Report << Buf;
        }
      }
    }
    if (Bad)
      Report << "\n    " << Bad << " mismatching words";
    return Report.str();
  };
  return K;
}

/// suld.b / sust.b on a 2D surface with a boundary mode: each thread loads texel (x, y) (x in
/// bytes) and stores it, incremented, at (x + 1, y) of a second surface.
KernelCase surfaceCase(const Fmt &F, const char *Mode, uint64_t Seed) {
  KernelCase K;
  K.Name = std::string("surf.2d.") + F.Name + "." + Mode;
  constexpr uint32_t W = 9, H = 5;
  img::ImageResource R = resourceOf(Geos[1], F.F);
  R.Width = W;
  R.Height = H;
  img::ImageLayout Layout = *img::layoutImage(*img::findTarget("gfx1100"), R);
  unsigned Bytes = F.F.bytes();
  bool Zero = std::string(Mode) == "zero";
  // Element type and vector form covering one texel.
  unsigned Elem = F.F.Bits, N = F.F.Channels;
  std::string V = N == 1 ? "" : N == 2 ? ".v2" : ".v4";
  std::string Regs = N == 1 ? "{%r4}" : N == 2 ? "{%r4, %r5}" : "{%r4, %r5, %r6, %r7}";
  std::string Ty = ".b" + std::to_string(Elem);
  std::ostringstream S;
  S << "  .reg .b32 %tid, %r<12>;\n  .reg .b64 %rd<4>;\n  mov.u32 %tid, %tid.x;\n"
    << "  ld.param.u64 %rd1, [buf1];\n  ld.param.u64 %rd2, [buf3];\n"
    // x in -1 .. W, y in -1 .. H: out of range at both ends for .zero/.clamp; .trap stays inside
    << "  rem.u32 %r0, %tid, " << (Zero || std::string(Mode) == "clamp" ? W + 2 : W) << ";\n"
    << "  div.u32 %r1, %tid, " << (Zero || std::string(Mode) == "clamp" ? W + 2 : W) << ";\n"
    << (std::string(Mode) == "trap" ? "" : "  sub.s32 %r0, %r0, 1;\n  sub.s32 %r1, %r1, 1;\n")
    << "  mul.lo.s32 %r2, %r0, " << Bytes << ";\n"
    << "  suld.b.2d" << V << Ty << "." << Mode << " " << Regs << ", [%rd1, {%r2, %r1}];\n";
  for (unsigned K2 = 0; K2 < N; ++K2)
    S << "  add.s32 %r" << 4 + K2 << ", %r" << 4 + K2 << ", 1;\n";
  // .trap stores in place (every coordinate stays inside); the others one texel to the right.
  S << "  add.s32 %r8, %r2, " << (std::string(Mode) == "trap" ? 0 : Bytes) << ";\n"
    << "  sust.b.2d" << V << Ty << "." << Mode << " [%rd2, {%r8, %r1}], " << Regs << ";\n  ret;\n";
  K.Body = S.str();
  uint32_t Span = Zero || std::string(Mode) == "clamp" ? (W + 2) * (H + 2) : W * H;
  K.Grid = {1};
  K.Block = {Span};
  Words Img = randomWords((Layout.TotalBytes + 3) / 4, Seed);
  K.Buffers = {Img, Words(32, 0), Words(1, 0), Words((Layout.TotalBytes + 3) / 4, Sentinel),
               Words(32, 0)};
  K.Place = [R, Soft = ForceSoftware](const std::string &Target, const std::vector<uint64_t> &Addr,
                                      std::vector<Words> &Buffers) -> std::string {
    for (auto [Image, Object] : {std::pair{0, 1}, std::pair{3, 4}}) {
      img::ImageResource Res = R;
      Res.Address = Addr[Image];
      auto O = img::buildSurfaceObject(*img::findTarget(Target), Res);
      if (!O)
        return "surface object: " + llvm::toString(O.takeError());
      placeObject(Buffers[Object], *O, Soft);
    }
    // The kernel's handles: buf1 and buf3 name the objects.
    return "";
  };
  // The kernel reads the object addresses from buf1 and buf3: pass objects there.
  K.Params = ".param .u64 buf0, .param .u64 buf1, .param .u64 buf2, .param .u64 buf3";
  K.Args = {Arg{0, {}}, Arg{1, {}}, Arg{2, {}}, Arg{4, {}}};
  std::string ModeS = Mode;
  K.Check = [=](const std::vector<Words> &In, const std::vector<Words> &Out) {
    std::vector<uint8_t> Want(Layout.TotalBytes);
    std::memcpy(Want.data(), In[3].data(), Layout.TotalBytes);
    const auto *Src = reinterpret_cast<const uint8_t *>(In[0].data());
    const img::ImageLevel &Lv = Layout.Levels[0];
    bool Shifted = ModeS != "trap";
    std::map<uint64_t, std::vector<std::vector<uint8_t>>> Candidates;
    uint32_t Cols = Shifted ? W + 2 : W;
    for (uint32_t T = 0; T < Span; ++T) {
      int32_t X = int32_t(T % Cols) - Shifted, Y = int32_t(T / Cols) - Shifted;
      auto Clamped = [&](int32_t V, int32_t Nn) { return std::clamp(V, 0, Nn - 1); };
      bool LoadIn = X >= 0 && Y >= 0 && X < int32_t(W) && Y < int32_t(H);
      int32_t LX = ModeS == "clamp" ? Clamped(X, W) : X, LY = ModeS == "clamp" ? Clamped(Y, H) : Y;
      uint8_t Texel[16] = {};
      if (LoadIn || ModeS == "clamp")
        std::memcpy(Texel, Src + Lv.Offset + uint64_t(LY) * Lv.RowPitch + uint64_t(LX) * Bytes,
                    Bytes);
      // Each element + 1 (wrapping at its width).
      for (unsigned E = 0; E < N; ++E) {
        uint64_t Val = 0;
        std::memcpy(&Val, Texel + E * Elem / 8, Elem / 8);
        Val += 1;
        std::memcpy(Texel + E * Elem / 8, &Val, Elem / 8);
      }
      int32_t SX = Shifted ? X + 1 : X, SY = Y;
      if (ModeS == "clamp") {
        SX = Clamped(SX, W);
        SY = Clamped(SY, H);
      }
      if (SX < 0 || SY < 0 || SX >= int32_t(W) || SY >= int32_t(H))
        continue;
      uint64_t At = Lv.Offset + uint64_t(SY) * Lv.RowPitch + uint64_t(SX) * Bytes;
      std::memcpy(Want.data() + At, Texel, Bytes);
      Candidates[At].push_back(std::vector<uint8_t>(Texel, Texel + Bytes));
    }
    // Clamped stores of different threads meet on the edge texels: any writer's value is right.
    if (ModeS == "clamp") {
      const auto *Got = reinterpret_cast<const uint8_t *>(Out[3].data());
      unsigned Bad = 0;
      std::ostringstream Report;
      for (auto &[At, Values] : Candidates) {
        std::vector<uint8_t> G(Got + At, Got + At + Bytes);
        if (std::find(Values.begin(), Values.end(), G) == Values.end() && Bad++ < 3)
          Report << "\n    texel at byte " << At << " holds no writer's value";
      }
      return Report.str();
    }
    Words WantW((Layout.TotalBytes + 3) / 4);
    std::memcpy(WantW.data(), Want.data(), Layout.TotalBytes);
    Expected E;
    for (size_t I = 0; I < WantW.size(); ++I) {
      // Only the texels' bytes are defined; padding keeps the sentinel.
      E.push_back(WantW[I]);
    }
    return compareWords("surface", E, Out[3]);
  };
  return K;
}

/// tld4 on a 2D float texture: the four taps of the bilinear footprint, one component.
KernelCase gatherCase(const Fmt &F, AddressMode A, unsigned Comp, uint64_t Seed) {
  Config C{&Geos[1], &F, A, FilterMode::Point, true};
  KernelCase K = textureCase(C, Seed);
  static const char *Comps = "rgba";
  K.Name = std::string("tld4.") + Comps[Comp] + ".2d." + F.Name + "." + modeName(A);
  std::string Body = K.Body;
  size_t At = Body.find("tex.2d.v4.f32.f32");
  Body.replace(At, 17, std::string("tld4.") + Comps[Comp] + ".2d.v4.f32.f32");
  K.Body = Body;
  img::ImageResource R = resourceOf(Geos[1], F.F);
  img::ImageLayout Layout = *img::layoutImage(*img::findTarget("gfx1100"), R);
  K.Check = [C, Layout, Comp](const std::vector<Words> &In, const std::vector<Words> &Out) {
    Reference Ref{C, Layout, reinterpret_cast<const uint8_t *>(In[0].data())};
    std::ostringstream Report;
    unsigned Bad = 0;
    for (uint32_t T = 0; T < Threads; ++T) {
      float V[2];
      std::memcpy(V, &In[2][T * 4], 8);
      int64_t I0 = int64_t(std::floor(V[0] * C.G->W - 0.5f));
      int64_t J0 = int64_t(std::floor(V[1] * C.G->H - 0.5f));
      // CUDA's tex2Dgather order: (i0, j1), (i1, j1), (i1, j0), (i0, j0).
      const int Taps[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
      for (unsigned K2 = 0; K2 < 4; ++K2) {
        Texel Tx;
        Ref.tap(I0 + Taps[K2][0], J0 + Taps[K2][1], 0, 0, Tx);
        uint32_t Want;
        std::memcpy(&Want, &Tx.F[Comp], 4);
        uint32_t Got = Out[3][T * 4 + K2];
        if (Got != Want && Bad++ < 3)
          Report << "\n    thread " << T << " tap " << K2 << ": expected " << Tx.F[Comp] << " got "
                 << Got;
      }
    }
    return Report.str();
  };
  return K;
}

/// tex.level on a mipmapped 2D float texture (16 x 8, five levels): the level the LOD picks
/// (nearest, or the two nearest blended with a 1/256-rounded weight), point-sampled within it.
KernelCase mipCase(FilterMode MipFilter, uint64_t Seed) {
  KernelCase K;
  K.Name =
      std::string("tex.level.2d.f32.mip-") + (MipFilter == FilterMode::Linear ? "linear" : "point");
  img::ImageResource R = resourceOf(Geos[1], {1, 32, ChannelType::Float, false});
  R.Width = 16;
  R.Height = 8;
  R.MipLevels = 5;
  img::ImageLayout Layout = *img::layoutImage(*img::findTarget("gfx1100"), R);
  Words Coords(Threads * 4);
  Words Rnd = randomWords(Threads * 3, Seed + 1);
  for (uint32_t T = 0; T < Threads; ++T) {
    float V[3] = {(float(Rnd[T * 3] % 64) + 0.5f) / 64.0f,
                  (float(Rnd[T * 3 + 1] % 32) + 0.5f) / 32.0f,
                  float(int32_t(Rnd[T * 3 + 2] % 29) - 4) / 4.0f}; // LOD -1 .. 6
    std::memcpy(&Coords[T * 4], V, 12);
  }
  Words Image = imageWords(Layout, R.Format, Seed);
  Image.resize(std::max<size_t>(Image.size(), 64));
  K.Body = texBody({&Geos[1], &Fmts[1], AddressMode::Clamp, FilterMode::Point, true});
  size_t At = K.Body.find("tex.2d.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%rd1, {%f0, %f1}]");
  K.Body.replace(At, std::strlen("tex.2d.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%rd1, {%f0, %f1}]"),
                 "tex.level.2d.v4.f32.f32 {%r4, %r5, %r6, %r7}, [%rd1, {%f0, %f1}], %f2");
  K.Grid = {1};
  K.Block = {Threads};
  K.Buffers = {Image, Words(32, 0), Coords, Words(Threads * 4, Sentinel)};
  K.Place = [R, MipFilter, Soft = ForceSoftware](const std::string &Target,
                                                 const std::vector<uint64_t> &Addr,
                                                 std::vector<Words> &Buffers) -> std::string {
    img::ImageResource Res = R;
    Res.Address = Addr[0];
    img::SamplerState S;
    S.NormalizedCoords = true;
    S.MipFilter = MipFilter;
    S.MaxLod = 4;
    auto O = img::buildTextureObject(*img::findTarget(Target), Res, S);
    if (!O)
      return "texture object: " + llvm::toString(O.takeError());
    placeObject(Buffers[1], *O, Soft);
    return "";
  };
  K.Check = [Layout, MipFilter](const std::vector<Words> &In, const std::vector<Words> &Out) {
    const auto *Img = reinterpret_cast<const uint8_t *>(In[0].data());
    auto At = [&](unsigned Level, float U, float V) {
      const img::ImageLevel &L = Layout.Levels[Level];
      int64_t X = std::clamp<int64_t>(int64_t(std::floor(U * L.Width)), 0, L.Width - 1);
      int64_t Y = std::clamp<int64_t>(int64_t(std::floor(V * L.Height)), 0, L.Height - 1);
      float F;
      std::memcpy(&F, Img + L.Offset + Y * L.RowPitch + X * 4, 4);
      return F;
    };
    std::ostringstream Report;
    unsigned Bad = 0;
    for (uint32_t T = 0; T < Threads; ++T) {
      float C[3];
      std::memcpy(C, &In[2][T * 4], 12);
      float Lod = std::clamp(C[2], 0.0f, 4.0f);
      float Want;
      if (MipFilter == FilterMode::Point) {
        Want = At(unsigned(std::floor(Lod + 0.5f)), C[0], C[1]);
      } else {
        unsigned L0 = unsigned(std::floor(Lod));
        float W = std::nearbyint((Lod - float(L0)) * 256) / 256;
        Want =
            L0 >= 4 ? At(4, C[0], C[1]) : (1 - W) * At(L0, C[0], C[1]) + W * At(L0 + 1, C[0], C[1]);
      }
      float Got;
      std::memcpy(&Got, &Out[3][T * 4], 4);
      if (!(std::fabs(Got - Want) <= 4.0f / 256) && Bad++ < 3)
        Report << "\n    thread " << T << " lod " << C[2] << ": expected " << Want << " got "
               << Got;
    }
    return Report.str();
  };
  return K;
}

} // namespace

KernelFamily textureFamily(bool Full, bool Software) {
  ForceSoftware = Software;
  KernelFamily F;
  F.Name = "texture";
  uint64_t Seed = 0x7e57;
  const AddressMode Modes[] = {AddressMode::Wrap, AddressMode::Clamp, AddressMode::Mirror,
                               AddressMode::Border};
  for (const Geo &G : Geos)
    for (const Fmt &Fm : Fmts)
      for (AddressMode A : Modes)
        for (FilterMode Filt : {FilterMode::Point, FilterMode::Linear})
          for (bool Norm : {true, false}) {
            if (Filt == FilterMode::Linear && integerRead(Fm.F))
              continue; // CUDA filters floats only
            if (G.Shape == ImageShape::Cube && (!Norm || A != AddressMode::Clamp))
              continue; // cube maps take directions
            // The CI sample: every combination on 2D; one format per other geometry, with
            // normalized coordinates in every mode and unnormalized ones clamped.
            bool Sample =
                G.Shape == ImageShape::D2 ||
                (&Fm == &Fmts[(&G - Geos) % std::size(Fmts)] && (Norm || A == AddressMode::Clamp));
            if (!Full && !Sample)
              continue;
            F.Cases.push_back(textureCase({&G, &Fm, A, Filt, Norm}, Seed++));
          }
  for (const Fmt &Fm : Fmts)
    for (const char *Mode : {"trap", "clamp", "zero"})
      if (Full || Fm.F.Channels * Fm.F.Bits != 16)
        F.Cases.push_back(surfaceCase(Fm, Mode, Seed++));
  // Texel offsets on 2D textures, and f16 results.
  for (const Fmt *Fm : {&Fmts[0], &Fmts[4]})
    for (AddressMode A : {AddressMode::Wrap, AddressMode::Clamp, AddressMode::Border})
      for (FilterMode Filt : {FilterMode::Point, FilterMode::Linear}) {
        Config C{&Geos[1], Fm, A, Filt, true};
        C.Off[0] = -1;
        C.Off[1] = 2;
        F.Cases.push_back(textureCase(C, Seed++));
      }
  for (FilterMode Filt : {FilterMode::Point, FilterMode::Linear}) {
    Config C{&Geos[1], &Fmts[4], AddressMode::Clamp, Filt, true};
    C.HalfResult = true;
    F.Cases.push_back(textureCase(C, Seed++));
  }
  for (FilterMode M : {FilterMode::Point, FilterMode::Linear})
    F.Cases.push_back(mipCase(M, Seed++));
  for (unsigned Comp = 0; Comp < 4; ++Comp)
    for (AddressMode A : Modes)
      if (Full || Comp == (unsigned(A) % 4))
        F.Cases.push_back(gatherCase(Fmts[0], A, Comp, Seed++));
  return F;
}

} // namespace conformance
