// The software texture path: tex, tld4 and surface accesses done with plain memory accesses and
// arithmetic, for what the image unit cannot do:
//   - gfx942 and gfx950 have no image instructions at all;
//   - gfx90a samples at the implicit level only (no tex.level, tex.grad or tld4);
//   - objects the image unit cannot take (ImageSoftware: extents beyond the T#'s fields, a
//     border colour the S# cannot name).
// It follows the CUDA Programming Guide's texture-fetching formulas, reading the plain fields of
// the ImageObject (layout: include/ptx2amd/amdgpu-backend/ImageObjectLayout.h) and the linear
// layout of layoutImage (rows and slices 256-byte aligned, levels one after the other).
// Linear filtering holds each weight with 8 fractional bits, as NVIDIA's texture unit does.

typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long u64;
typedef float f32x4 __attribute__((ext_vector_type(4)));
typedef u32 u32x4 __attribute__((ext_vector_type(4)));

#include "ptx2amd/amdgpu-backend/ImageObjectLayout.h"

#define GLOBAL __attribute__((address_space(1)))

static u32 field(const GLOBAL u8 *O, u32 Offset) { return *(const GLOBAL u32 *)(O + Offset); }
static float fieldF(const GLOBAL u8 *O, u32 Offset) { return *(const GLOBAL float *)(O + Offset); }

/// What the software path reads of one object.
struct Image {
  const GLOBAL u8 *O;
  const GLOBAL u8 *Base; ///< the view's first level
  u32 Width, Height, Depth, Layers, FirstLayer, Levels, TexelBytes, Info;
  u32 Channels, Bits, Type;
  int Normalized, Srgb;
  u64 RowPitch;
};

enum { TypeUnsigned = 0, TypeSigned = 1, TypeFloat = 2 };
enum { ModeWrap = 0, ModeClamp = 1, ModeMirror = 2, ModeBorder = 3 };

static struct Image image(const GLOBAL u8 *O) {
  struct Image I;
  I.O = O;
  I.Base = (const GLOBAL u8 *)(field(O, ImageObjectAddressLo) | (u64)field(O, ImageObjectAddressHi)
                                                                    << 32);
  I.Width = field(O, ImageObjectWidth);
  I.Height = field(O, ImageObjectHeight);
  I.Depth = field(O, ImageObjectDepth);
  I.Layers = field(O, ImageObjectLayers);
  I.FirstLayer = field(O, ImageObjectFirstLayer);
  I.Levels = field(O, ImageObjectLevels);
  I.TexelBytes = field(O, ImageObjectTexelBytes);
  I.Info = field(O, ImageObjectSamplerInfo);
  I.RowPitch = field(O, ImageObjectRowPitch);
  u32 F = field(O, ImageObjectFormat);
  I.Channels = F & 0xff;
  I.Bits = F >> TexelFormatBitsShift & 0xff;
  I.Type = F >> TexelFormatTypeShift & 0xff;
  I.Normalized = (F & TexelFormatNormalizedBit) != 0;
  I.Srgb = (F & TexelFormatSrgbBit) != 0;
  return I;
}

/// Integer channels read as integers (cudaReadModeElementType on an integer format).
static int integerRead(const struct Image *I) { return I->Type != TypeFloat && !I->Normalized; }

static u32 maxu(u32 A, u32 B) { return A > B ? A : B; }
static u64 align256(u64 V) { return (V + 255u) & ~(u64)255u; }
static float minf(float A, float B) { return A < B ? A : B; }
static float maxf(float A, float B) { return A > B ? A : B; }

/// Coordinates within a layer: 1 (1D, 1D arrays), 3 (3D) or 2 (2D, 2D arrays, a cube face).
static u32 spatialOf(u32 Geometry) {
  return Geometry == SoftwareGeometry3D                                          ? 3
         : Geometry == SoftwareGeometry1D || Geometry == SoftwareGeometryArray1D ? 1
                                                                                 : 2;
}
static int isLayered(u32 Geometry) {
  return Geometry == SoftwareGeometryArray1D || Geometry == SoftwareGeometryArray2D;
}

/// One mip level of the view: where it lies and its extents.
struct Level {
  const GLOBAL u8 *Base;
  u64 RowPitch, SlicePitch;
  u32 Width, Height, Depth;
};

static struct Level level(const struct Image *I, u32 Geometry, u32 L) {
  struct Level V;
  V.Base = I->Base;
  u32 Slices = I->Layers + I->FirstLayer; // of the whole image, which lays its levels out
  for (u32 K = 0;; ++K) {
    V.Width = maxu(1, I->Width >> K);
    V.Height = maxu(1, I->Height >> K);
    V.Depth = maxu(1, I->Depth >> K);
    V.RowPitch = K == 0 ? I->RowPitch : align256((u64)V.Width * I->TexelBytes);
    V.SlicePitch = align256(V.RowPitch * V.Height);
    if (K == L)
      return V;
    V.Base += V.SlicePitch * (Geometry == SoftwareGeometry3D ? V.Depth : Slices);
  }
}

static float halfToFloat(u16 H) {
  _Float16 F;
  __builtin_memcpy(&F, &H, 2);
  return (float)F;
}

/// One texel as the read mode gives it: floats (F) or integers (U).
struct Texel {
  float F[4];
  u32 U[4];
};

static struct Texel readTexel(const struct Image *I, const GLOBAL u8 *P) {
  struct Texel T;
  for (u32 C = 0; C < 4; ++C) {
    if (C >= I->Channels) { // absent channels read as (0, 0, 0, 1)
      T.F[C] = C == 3 ? 1.0f : 0.0f;
      T.U[C] = C == 3 ? 1 : 0;
      continue;
    }
    const GLOBAL u8 *Q = P + C * (I->Bits / 8);
    u32 V = I->Bits == 8 ? *Q : I->Bits == 16 ? *(const GLOBAL u16 *)Q : *(const GLOBAL u32 *)Q;
    if (I->Type == TypeFloat) {
      if (I->Bits == 16) {
        T.F[C] = halfToFloat((u16)V);
      } else {
        __builtin_memcpy(&T.F[C], &V, 4);
      }
      T.U[C] = V;
      continue;
    }
    int S = (int)V;
    if (I->Type == TypeSigned && I->Bits < 32 && (V >> (I->Bits - 1) & 1))
      S = (int)(V | ~((1u << I->Bits) - 1));
    T.U[C] = (u32)S;
    if (I->Normalized) {
      float Max =
          I->Type == TypeSigned ? (float)((1u << (I->Bits - 1)) - 1) : (float)((1u << I->Bits) - 1);
      T.F[C] = maxf((float)S / Max, -1.0f);
      if (I->Srgb && C < 3) // sRGB to linear on colour channels (IEC 61966-2-1)
        T.F[C] = T.F[C] <= 0.04045f
                     ? T.F[C] / 12.92f
                     : __builtin_exp2f(2.4f * __builtin_log2f((T.F[C] + 0.055f) / 1.055f));
    } else {
      T.F[C] = (float)S;
    }
  }
  return T;
}

/// The border colour as a texel of the read mode.
static struct Texel borderTexel(const struct Image *I) {
  struct Texel T;
  for (u32 C = 0; C < 4; ++C) {
    T.F[C] = fieldF(I->O, ImageObjectBorderColor + 4 * C);
    T.U[C] = (u32)(int)T.F[C];
  }
  return T;
}

/// One tap index under an address mode; 0 when it falls outside (border).
static int addressTap(int *Index, int N, u32 Mode) {
  int X = *Index;
  switch (Mode) {
  case ModeWrap:
    X %= N;
    *Index = X < 0 ? X + N : X;
    return 1;
  case ModeMirror: {
    int P = X % (2 * N);
    P = P < 0 ? P + 2 * N : P;
    *Index = P < N ? P : 2 * N - 1 - P;
    return 1;
  }
  case ModeBorder:
    return X >= 0 && X < N;
  default:
    *Index = X < 0 ? 0 : X >= N ? N - 1 : X;
    return 1;
  }
}

/// Coordinates of a fetch, made ready for one level: normalized spatial coordinates, the slice.
struct Coords {
  float U[3];
  u32 Spatial;
  u32 Slice;
  u32 Modes[3];
  int Off[3]; ///< tex's texel offsets, added to every tap index
  /// U in [0, 1] per dimension; otherwise in texels of level 0, which level 0 uses as they are
  /// (x / N * N need not be x in floating point).
  int Normalized;
};

static u32 clampIndex(int V, u32 N) { return V < 0 ? 0 : (u32)V >= N ? N - 1 : (u32)V; }

/// Cube direction -> face and face coordinates in [0, 1], per the guide's face table.
static void cubeFace(float X, float Y, float Z, u32 *Face, float *S, float *T) {
  float AX = __builtin_fabsf(X), AY = __builtin_fabsf(Y), AZ = __builtin_fabsf(Z);
  float Sc, Tc, M;
  if (AX >= AY && AX > AZ) {
    *Face = X >= 0 ? 0 : 1;
    Sc = X >= 0 ? -Z : Z;
    Tc = -Y;
    M = AX;
  } else if (AY >= AZ && AY > AX) {
    *Face = Y >= 0 ? 2 : 3;
    Sc = X;
    Tc = Y >= 0 ? Z : -Z;
    M = AY;
  } else {
    *Face = Z >= 0 ? 4 : 5;
    Sc = Z >= 0 ? X : -X;
    Tc = -Y;
    M = AZ;
  }
  *S = (Sc / M + 1) / 2;
  *T = (Tc / M + 1) / 2;
}

static struct Coords coords(const struct Image *I, u32 Geometry, float X, float Y, float Z,
                            int Layer) {
  struct Coords C;
  int Normalized = (I->Info & SamplerInfoNormalized) != 0;
  C.U[0] = X, C.U[1] = Y, C.U[2] = Z;
  C.Slice = 0;
  C.Off[0] = C.Off[1] = C.Off[2] = 0;
  for (u32 K = 0; K < 3; ++K) {
    u32 M = I->Info >> (SamplerInfoAddressShift + 2 * K) & 3;
    // The guide: wrap and mirror need normalized coordinates; otherwise they clamp.
    C.Modes[K] = !Normalized && (M == ModeWrap || M == ModeMirror) ? ModeClamp : M;
  }
  C.Spatial = spatialOf(Geometry);
  C.Normalized = Normalized;
  if (Geometry == SoftwareGeometryCube || Geometry == SoftwareGeometryCubeArray) {
    u32 Face;
    cubeFace(X, Y, Z, &Face, &C.U[0], &C.U[1]);
    u32 Cubes = maxu(1, I->Layers / 6);
    C.Slice = Face + 6 * (Geometry == SoftwareGeometryCubeArray ? clampIndex(Layer, Cubes) : 0);
    C.Modes[0] = C.Modes[1] = ModeClamp;
    C.Normalized = 1;
  } else if (isLayered(Geometry)) {
    C.Slice = clampIndex(Layer, I->Layers);
  }
  return C;
}

/// The texel at integer indices of a level, under the address modes, or the border colour.
static struct Texel tap(const struct Image *I, const struct Level *L, const struct Coords *C, int X,
                        int Y, int Z) {
  int In = addressTap(&X, (int)L->Width, C->Modes[0]);
  if (C->Spatial >= 2)
    In &= addressTap(&Y, (int)L->Height, C->Modes[1]);
  if (C->Spatial >= 3)
    In &= addressTap(&Z, (int)L->Depth, C->Modes[2]);
  if (!In)
    return borderTexel(I);
  u64 Slice = C->Spatial == 3 ? (u64)Z : (u64)(C->Slice + I->FirstLayer);
  const GLOBAL u8 *P =
      L->Base + Slice * L->SlicePitch + (u64)Y * L->RowPitch + (u64)X * I->TexelBytes;
  return readTexel(I, P);
}

static float fixed8(float W) { return __builtin_rintf(W * 256.0f) / 256.0f; }

/// Coordinate \p K of \p C in texels of level \p Lv (\p L).
static float texelCoord(const struct Image *I, const struct Coords *C, const struct Level *L,
                        u32 Lv, u32 K) {
  float Ext = (float)(K == 0 ? L->Width : K == 1 ? L->Height : L->Depth);
  if (C->Normalized)
    return C->U[K] * Ext;
  float Ext0 = (float)(K == 0 ? I->Width : K == 1 ? I->Height : I->Depth);
  return Lv == 0 ? C->U[K] : C->U[K] * Ext / Ext0;
}

/// One level sampled with the object's filter.
static struct Texel sampleLevel(const struct Image *I, u32 Geometry, const struct Coords *C,
                                u32 Lv) {
  struct Level L = level(I, Geometry, Lv);
  float U[3] = {0, 0, 0};
  for (u32 K = 0; K < C->Spatial; ++K)
    U[K] = texelCoord(I, C, &L, Lv, K);
  if (!(I->Info & SamplerInfoLinear) || integerRead(I))
    return tap(I, &L, C, (int)__builtin_floorf(U[0]) + C->Off[0],
               (int)__builtin_floorf(U[1]) + C->Off[1], (int)__builtin_floorf(U[2]) + C->Off[2]);
  int I0[3] = {0, 0, 0};
  float A[3] = {0, 0, 0};
  for (u32 K = 0; K < C->Spatial; ++K) {
    float XB = U[K] - 0.5f, F = __builtin_floorf(XB);
    I0[K] = (int)F + C->Off[K];
    A[K] = fixed8(XB - F);
  }
  struct Texel R = {{0, 0, 0, 0}, {0, 0, 0, 0}};
  for (u32 T = 0; T < (1u << C->Spatial); ++T) {
    float W = 1;
    int Ix[3] = {I0[0], I0[1], I0[2]};
    for (u32 K = 0; K < C->Spatial; ++K) {
      u32 Hi = T >> K & 1;
      Ix[K] += (int)Hi;
      W *= Hi ? A[K] : 1 - A[K];
    }
    struct Texel X = tap(I, &L, C, Ix[0], Ix[1], Ix[2]);
    for (u32 Ch = 0; Ch < 4; ++Ch)
      R.F[Ch] += W * X.F[Ch];
  }
  return R;
}

static u32x4 result(const struct Image *I, struct Texel T) {
  if (integerRead(I))
    return (u32x4){T.U[0], T.U[1], T.U[2], T.U[3]};
  f32x4 F = {T.F[0], T.F[1], T.F[2], T.F[3]};
  return __builtin_bit_cast(u32x4, F);
}

/// tex with an explicit level of detail (tex without .level samples at LOD 0) and texel
/// offsets \p OffX, \p OffY, \p OffZ (0 without them).
u32x4 __ptx2amd_tex_level(const GLOBAL u8 *O, u32 Geometry, float X, float Y, float Z, int Layer,
                          float Lod, int OffX, int OffY, int OffZ) {
  struct Image I = image(O);
  struct Coords C = coords(&I, Geometry, X, Y, Z, Layer);
  C.Off[0] = OffX, C.Off[1] = OffY, C.Off[2] = OffZ;
  if (I.Levels <= 1)
    return result(&I, sampleLevel(&I, Geometry, &C, 0));
  float L = Lod + fieldF(O, ImageObjectLodBias);
  L = minf(maxf(L, fieldF(O, ImageObjectMinLod)), fieldF(O, ImageObjectMaxLod));
  L = minf(maxf(L, 0.0f), (float)(I.Levels - 1));
  if (!(I.Info & SamplerInfoMipLinear))
    return result(&I, sampleLevel(&I, Geometry, &C, (u32)__builtin_floorf(L + 0.5f)));
  u32 L0 = (u32)__builtin_floorf(L);
  float W = fixed8(L - (float)L0);
  struct Texel A = sampleLevel(&I, Geometry, &C, L0);
  if (L0 + 1 >= I.Levels || W == 0)
    return result(&I, A);
  struct Texel B = sampleLevel(&I, Geometry, &C, L0 + 1);
  for (u32 Ch = 0; Ch < 4; ++Ch)
    A.F[Ch] = (1 - W) * A.F[Ch] + W * B.F[Ch];
  return result(&I, A);
}

/// tex.grad: the level of detail from the larger of the two gradients' lengths in texels of
/// level 0 (cube maps: in texels of a face).
u32x4 __ptx2amd_tex_grad(const GLOBAL u8 *O, u32 Geometry, float X, float Y, float Z, int Layer,
                         float DxX, float DxY, float DxZ, float DyX, float DyY, float DyZ, int OffX,
                         int OffY, int OffZ) {
  struct Image I = image(O);
  int Normalized = (I.Info & SamplerInfoNormalized) != 0;
  int Cube = Geometry == SoftwareGeometryCube || Geometry == SoftwareGeometryCubeArray;
  u32 Spatial = spatialOf(Geometry);
  float Ext[3] = {(float)I.Width, (float)I.Height, (float)I.Depth};
  float Dx[3] = {DxX, DxY, DxZ}, Dy[3] = {DyX, DyY, DyZ};
  float SX = 0, SY = 0;
  for (u32 K = 0; K < Spatial; ++K) {
    float S = Normalized || Cube ? Ext[K] : 1.0f;
    SX += Dx[K] * S * Dx[K] * S;
    SY += Dy[K] * S * Dy[K] * S;
  }
  float Rho2 = maxf(SX, SY);
  float Lod = Rho2 > 0 ? 0.5f * __builtin_log2f(Rho2) : -128.0f;
  return __ptx2amd_tex_level(O, Geometry, X, Y, Z, Layer, Lod, OffX, OffY, OffZ);
}

/// tld4: one component of the four taps of the bilinear footprint at level 0, in CUDA's order
/// (i0, j1), (i1, j1), (i1, j0), (i0, j0).
u32x4 __ptx2amd_tex_gather(const GLOBAL u8 *O, u32 Geometry, float X, float Y, float Z, int Layer,
                           u32 Component, int OffX, int OffY) {
  struct Image I = image(O);
  struct Coords C = coords(&I, Geometry, X, Y, Z, Layer);
  struct Level L = level(&I, Geometry, 0);
  int I0 = (int)__builtin_floorf(texelCoord(&I, &C, &L, 0, 0) - 0.5f) + OffX;
  int J0 = (int)__builtin_floorf(texelCoord(&I, &C, &L, 0, 1) - 0.5f) + OffY;
  static const int Taps[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
  struct Texel R;
  for (u32 K = 0; K < 4; ++K) {
    struct Texel T = tap(&I, &L, &C, I0 + Taps[K][0], J0 + Taps[K][1], 0);
    R.F[K] = T.F[Component & 3];
    R.U[K] = T.U[Component & 3];
  }
  return result(&I, R);
}

/// The texel at integer coordinates of level \p Lv, or null outside the view.
static GLOBAL u8 *texelAt(const struct Image *I, u32 Geometry, int Lv, int X, int Y, int Z,
                          int Layer) {
  u32 Spatial = spatialOf(Geometry);
  int Layered = isLayered(Geometry);
  if (Lv < 0 || (u32)Lv >= I->Levels || (Layered && (Layer < 0 || (u32)Layer >= I->Layers)))
    return 0;
  struct Level L = level(I, Geometry, (u32)Lv);
  if (X < 0 || (u32)X >= L.Width || (Spatial >= 2 && (Y < 0 || (u32)Y >= L.Height)) ||
      (Spatial >= 3 && (Z < 0 || (u32)Z >= L.Depth)))
    return 0;
  u64 Slice = Spatial == 3 ? (u64)Z : Layered ? (u64)Layer + I->FirstLayer : 0;
  if (Spatial < 2)
    Y = 0;
  return (GLOBAL u8 *)L.Base + Slice * L.SlicePitch + (u64)Y * L.RowPitch + (u64)X * I->TexelBytes;
}

/// tex with integer coordinates: the texel itself (linear memory: element X), zero outside.
u32x4 __ptx2amd_tex_fetch(const GLOBAL u8 *O, u32 Geometry, int X, int Y, int Z, int Layer,
                          int Lv) {
  struct Image I = image(O);
  const GLOBAL u8 *P = texelAt(&I, Geometry, Lv, X, Y, Z, Layer);
  return P ? result(&I, readTexel(&I, P)) : (u32x4){0, 0, 0, 0};
}

/// A surface's texel at texel coordinates, or null outside the surface.
static GLOBAL u8 *surfaceTexel(const struct Image *I, u32 Geometry, int X, int Y, int Z,
                               int Layer) {
  return texelAt(I, Geometry, 0, X, Y, Z, Layer);
}

/// suld.b: the texel's bytes, zero beyond them and outside the surface.
u32x4 __ptx2amd_surface_load(const GLOBAL u8 *O, u32 Geometry, int X, int Y, int Z, int Layer) {
  struct Image I = image(O);
  u32 W[4] = {0, 0, 0, 0};
  const GLOBAL u8 *P = surfaceTexel(&I, Geometry, X, Y, Z, Layer);
  if (P)
    for (u32 K = 0; K < I.TexelBytes && K < 16; ++K)
      W[K / 4] |= (u32)P[K] << (8 * (K % 4));
  return (u32x4){W[0], W[1], W[2], W[3]};
}

/// sust.b: the texel's bytes from the low bytes of \p Raw; nothing outside the surface.
void __ptx2amd_surface_store(const GLOBAL u8 *O, u32 Geometry, int X, int Y, int Z, int Layer,
                             u32x4 Raw) {
  struct Image I = image(O);
  GLOBAL u8 *P = surfaceTexel(&I, Geometry, X, Y, Z, Layer);
  if (!P)
    return;
  u32 W[4] = {Raw.x, Raw.y, Raw.z, Raw.w};
  for (u32 K = 0; K < I.TexelBytes && K < 16; ++K)
    P[K] = (u8)(W[K / 4] >> (8 * (K % 4)));
}

/// sured.b on a texel of \p U (unsigned) / \p S (signed) integers: one function per width, so
/// the operations are written once.
#define SURFACE_ATOMIC(Name, U, S)                                                                 \
  void Name(const GLOBAL u8 *O, u32 Geometry, int X, int Y, int Z, int Layer, u32 Op, U V) {       \
    struct Image I = image(O);                                                                     \
    GLOBAL U *P = (GLOBAL U *)surfaceTexel(&I, Geometry, X, Y, Z, Layer);                          \
    if (!P) /* nothing outside the surface */                                                      \
      return;                                                                                      \
    GLOBAL S *Signed = (GLOBAL S *)P;                                                              \
    switch (Op) {                                                                                  \
    case SurfaceAtomicAdd:                                                                         \
      __scoped_atomic_fetch_add(P, V, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);                    \
      break;                                                                                       \
    case SurfaceAtomicMinS:                                                                        \
      __scoped_atomic_fetch_min(Signed, (S)V, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);            \
      break;                                                                                       \
    case SurfaceAtomicMinU:                                                                        \
      __scoped_atomic_fetch_min(P, V, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);                    \
      break;                                                                                       \
    case SurfaceAtomicMaxS:                                                                        \
      __scoped_atomic_fetch_max(Signed, (S)V, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);            \
      break;                                                                                       \
    case SurfaceAtomicMaxU:                                                                        \
      __scoped_atomic_fetch_max(P, V, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);                    \
      break;                                                                                       \
    case SurfaceAtomicAnd:                                                                         \
      __scoped_atomic_fetch_and(P, V, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);                    \
      break;                                                                                       \
    default:                                                                                       \
      __scoped_atomic_fetch_or(P, V, __ATOMIC_RELAXED, __MEMORY_SCOPE_DEVICE);                     \
      break;                                                                                       \
    }                                                                                              \
  }

SURFACE_ATOMIC(__ptx2amd_surface_atomic, u32, int)
SURFACE_ATOMIC(__ptx2amd_surface_atomic64, u64, long)
