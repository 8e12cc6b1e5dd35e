// texture_sampling: texture and surface objects read and written in kernels, checked against
// the CUDA Programming Guide's texture fetching on the host: a float 2D array with point and
// linear filtering (normalized and unnormalized coordinates; clamp, wrap, mirror and border),
// a uchar4 array read as normalized floats and as elements, pitched 2D memory, linear memory
// through tex1Dfetch, a layered 2D array, a cube map, a 3D array, and surfaces written and read
// with every boundary mode (surf2Dwrite/surf2Dread, surf2DLayeredwrite).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

static const char *kName = "texture_sampling";

#include "../check.h"

constexpr int W = 8, H = 6, N = 64;

__global__ void sample2D(cudaTextureObject_t T, const float2 *Coords, float *Out) {
  int I = threadIdx.x;
  Out[I] = tex2D<float>(T, Coords[I].x, Coords[I].y);
}

__global__ void sampleUchar4(cudaTextureObject_t Norm, cudaTextureObject_t Elem,
                             const float2 *Coords, float4 *OutN, uchar4 *OutE) {
  int I = threadIdx.x;
  OutN[I] = tex2D<float4>(Norm, Coords[I].x, Coords[I].y);
  OutE[I] = tex2D<uchar4>(Elem, Coords[I].x, Coords[I].y);
}

__global__ void fetch1D(cudaTextureObject_t Ints, cudaTextureObject_t Floats, int *OutI,
                        float4 *OutF) {
  int I = threadIdx.x;
  OutI[I] = tex1Dfetch<int>(Ints, I);
  OutF[I] = tex1Dfetch<float4>(Floats, I);
}

__global__ void sampleLayered(cudaTextureObject_t T, float *Out) {
  int X = threadIdx.x, Y = threadIdx.y, L = blockIdx.x;
  Out[(L * H + Y) * W + X] = tex2DLayered<float>(T, X + 0.5f, Y + 0.5f, L);
}

__global__ void sampleCube(cudaTextureObject_t T, float *Out) {
  // The centre of each face: +x, -x, +y, -y, +z, -z.
  const float3 D[6] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  int F = threadIdx.x;
  Out[F] = texCubemap<float>(T, D[F].x, D[F].y, D[F].z);
}

__global__ void sample3D(cudaTextureObject_t T, float *Out, int Wd, int Hd, int Dd) {
  int X = threadIdx.x, Y = threadIdx.y, Z = blockIdx.x;
  Out[(Z * Hd + Y) * Wd + X] = tex3D<float>(T, X + 0.5f, Y + 0.5f, Z + 0.5f);
}

// Each thread writes texel (x, y) of a 2D surface and (x, y) of one layer of a layered one,
// then the grid reads the 2D surface back one texel to the right with each boundary mode.
__global__ void writeSurfaces(cudaSurfaceObject_t S, cudaSurfaceObject_t Layered) {
  int X = threadIdx.x, Y = threadIdx.y;
  surf2Dwrite(float(Y * 100 + X), S, X * 4, Y);
  surf2DLayeredwrite(float(blockIdx.x * 1000 + Y * 100 + X), Layered, X * 4, Y, blockIdx.x);
}

__global__ void readSurface(cudaSurfaceObject_t S, float *Zero, float *Clamp) {
  int X = threadIdx.x, Y = threadIdx.y;
  Zero[Y * W + X] = surf2Dread<float>(S, (X + 1) * 4, Y, cudaBoundaryModeZero);
  Clamp[Y * W + X] = surf2Dread<float>(S, (X + 1) * 4, Y, cudaBoundaryModeClamp);
}

static int addressOf(int I, int Nn, cudaTextureAddressMode M, bool &Border) {
  Border = false;
  switch (M) {
  case cudaAddressModeWrap:
    return ((I % Nn) + Nn) % Nn;
  case cudaAddressModeMirror: {
    int P = ((I % (2 * Nn)) + 2 * Nn) % (2 * Nn);
    return P < Nn ? P : 2 * Nn - 1 - P;
  }
  case cudaAddressModeBorder:
    Border = I < 0 || I >= Nn;
    return Border ? 0 : I;
  default:
    return I < 0 ? 0 : I >= Nn ? Nn - 1 : I;
  }
}

static float texel(const std::vector<float> &Img, int X, int Y, cudaTextureAddressMode M) {
  bool Bx, By;
  int Ax = addressOf(X, W, M, Bx), Ay = addressOf(Y, H, M, By);
  return Bx || By ? 0.0f : Img[Ay * W + Ax];
}

// The guide's formulas: point T[floor(x)]; linear at x - 0.5 with 8-bit fractional weights.
static float reference2D(const std::vector<float> &Img, float U, float V, bool Normalized,
                         cudaTextureFilterMode F, cudaTextureAddressMode M) {
  float X = Normalized ? U * W : U, Y = Normalized ? V * H : V;
  if (!Normalized && (M == cudaAddressModeWrap || M == cudaAddressModeMirror))
    M = cudaAddressModeClamp;
  if (F == cudaFilterModePoint)
    return texel(Img, int(std::floor(X)), int(std::floor(Y)), M);
  float XB = X - 0.5f, YB = Y - 0.5f;
  int I = int(std::floor(XB)), J = int(std::floor(YB));
  float A = std::nearbyint((XB - std::floor(XB)) * 256) / 256;
  float B = std::nearbyint((YB - std::floor(YB)) * 256) / 256;
  return (1 - A) * (1 - B) * texel(Img, I, J, M) + A * (1 - B) * texel(Img, I + 1, J, M) +
         (1 - A) * B * texel(Img, I, J + 1, M) + A * B * texel(Img, I + 1, J + 1, M);
}

int main() {
  // ---- a float 2D array: every filter, normalisation and address mode ----
  std::vector<float> Img(W * H);
  for (int I = 0; I < W * H; ++I)
    Img[I] = float((I * 37) % 101) / 4.0f - 10.0f;
  cudaChannelFormatDesc FloatDesc = cudaCreateChannelDesc<float>();
  cudaArray_t Arr;
  CK(cudaMallocArray(&Arr, &FloatDesc, W, H));
  CK(cudaMemcpy2DToArray(Arr, 0, 0, Img.data(), W * sizeof(float), W * sizeof(float), H,
                         cudaMemcpyHostToDevice));
  std::vector<float2> Coords(N);
  for (int I = 0; I < N; ++I) // centres, edges, quarters and outside, in texels
    Coords[I] = make_float2(float(I % 12) * 0.75f - 1.5f, float(I / 12) * 1.25f - 1.0f);
  float2 *DCoords;
  float *DOut;
  CK(cudaMalloc(&DCoords, N * sizeof(float2)));
  CK(cudaMalloc(&DOut, N * 16));
  cudaResourceDesc Res = {};
  Res.resType = cudaResourceTypeArray;
  Res.res.array.array = Arr;
  const cudaTextureAddressMode Modes[] = {cudaAddressModeClamp, cudaAddressModeWrap,
                                          cudaAddressModeMirror, cudaAddressModeBorder};
  for (cudaTextureAddressMode M : Modes)
    for (cudaTextureFilterMode F : {cudaFilterModePoint, cudaFilterModeLinear})
      for (int Normalized = 0; Normalized < 2; ++Normalized) {
        if (!Normalized && (M == cudaAddressModeWrap || M == cudaAddressModeMirror))
          continue; // CUDA: wrap and mirror take normalized coordinates only
        cudaTextureDesc Tex = {};
        Tex.addressMode[0] = Tex.addressMode[1] = M;
        Tex.filterMode = F;
        Tex.readMode = cudaReadModeElementType;
        Tex.normalizedCoords = Normalized;
        cudaTextureObject_t T;
        CK(cudaCreateTextureObject(&T, &Res, &Tex, nullptr));
        std::vector<float2> C(Coords);
        if (Normalized)
          for (float2 &P : C)
            P = make_float2(P.x / W, P.y / H);
        CK(cudaMemcpy(DCoords, C.data(), N * sizeof(float2), cudaMemcpyHostToDevice));
        sample2D<<<1, N>>>(T, DCoords, DOut);
        CK(cudaGetLastError());
        std::vector<float> Out(N);
        CK(cudaMemcpy(Out.data(), DOut, N * sizeof(float), cudaMemcpyDeviceToHost));
        for (int I = 0; I < N; ++I) {
          float Want = reference2D(Img, C[I].x, C[I].y, Normalized, F, M);
          float Tol = F == cudaFilterModeLinear ? 36.0f / 256 : 0.0f; // 1/256 of the range
          if (!(std::fabs(Out[I] - Want) <= Tol)) {
            printf("FAIL %s: 2D mode %d filter %d normalized %d at (%g, %g): %g, expected %g\n",
                   kName, int(M), int(F), Normalized, C[I].x, C[I].y, Out[I], Want);
            return 1;
          }
        }
        CK(cudaDestroyTextureObject(T));
      }

  // ---- uchar4 read as normalized floats and as elements ----
  std::vector<uchar4> Px(W * H);
  for (int I = 0; I < W * H; ++I)
    Px[I] = make_uchar4(I * 5, 255 - I, I * 3 + 1, 128);
  cudaChannelFormatDesc U4 = cudaCreateChannelDesc<uchar4>();
  cudaArray_t Arr4;
  CK(cudaMallocArray(&Arr4, &U4, W, H));
  CK(cudaMemcpy2DToArray(Arr4, 0, 0, Px.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
  Res.res.array.array = Arr4;
  cudaTextureDesc Tex = {};
  Tex.addressMode[0] = Tex.addressMode[1] = cudaAddressModeClamp;
  Tex.filterMode = cudaFilterModePoint;
  Tex.readMode = cudaReadModeNormalizedFloat;
  cudaTextureObject_t TN, TE;
  CK(cudaCreateTextureObject(&TN, &Res, &Tex, nullptr));
  Tex.readMode = cudaReadModeElementType;
  CK(cudaCreateTextureObject(&TE, &Res, &Tex, nullptr));
  CK(cudaMemcpy(DCoords, Coords.data(), N * sizeof(float2), cudaMemcpyHostToDevice));
  float4 *DN;
  uchar4 *DE;
  CK(cudaMalloc(&DN, N * sizeof(float4)));
  CK(cudaMalloc(&DE, N * sizeof(uchar4)));
  sampleUchar4<<<1, N>>>(TN, TE, DCoords, DN, DE);
  CK(cudaGetLastError());
  std::vector<float4> ON(N);
  std::vector<uchar4> OE(N);
  CK(cudaMemcpy(ON.data(), DN, N * sizeof(float4), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(OE.data(), DE, N * sizeof(uchar4), cudaMemcpyDeviceToHost));
  for (int I = 0; I < N; ++I) {
    int X = std::min(std::max(int(std::floor(Coords[I].x)), 0), W - 1);
    int Y = std::min(std::max(int(std::floor(Coords[I].y)), 0), H - 1);
    uchar4 P = Px[Y * W + X];
    EXPECT(OE[I].x == P.x && OE[I].y == P.y && OE[I].z == P.z && OE[I].w == P.w);
    EXPECT(ON[I].x == P.x / 255.0f && ON[I].y == P.y / 255.0f && ON[I].z == P.z / 255.0f &&
           ON[I].w == P.w / 255.0f);
  }

  // ---- pitched 2D memory (point, unnormalized) ----
  float *Pitched;
  size_t Pitch;
  CK(cudaMallocPitch(&Pitched, &Pitch, W * sizeof(float), H));
  CK(cudaMemcpy2D(Pitched, Pitch, Img.data(), W * sizeof(float), W * sizeof(float), H,
                  cudaMemcpyHostToDevice));
  cudaResourceDesc PRes = {};
  PRes.resType = cudaResourceTypePitch2D;
  PRes.res.pitch2D.devPtr = Pitched;
  PRes.res.pitch2D.desc = FloatDesc;
  PRes.res.pitch2D.width = W;
  PRes.res.pitch2D.height = H;
  PRes.res.pitch2D.pitchInBytes = Pitch;
  Tex = {};
  Tex.addressMode[0] = Tex.addressMode[1] = cudaAddressModeBorder;
  cudaTextureObject_t TP;
  CK(cudaCreateTextureObject(&TP, &PRes, &Tex, nullptr));
  sample2D<<<1, N>>>(TP, DCoords, DOut);
  CK(cudaGetLastError());
  std::vector<float> OP(N);
  CK(cudaMemcpy(OP.data(), DOut, N * sizeof(float), cudaMemcpyDeviceToHost));
  for (int I = 0; I < N; ++I)
    EXPECT(OP[I] == reference2D(Img, Coords[I].x, Coords[I].y, false, cudaFilterModePoint,
                                cudaAddressModeBorder));

  // ---- linear memory: tex1Dfetch of ints and float4 ----
  std::vector<int> Ints(N);
  std::vector<float4> F4(N);
  for (int I = 0; I < N; ++I) {
    Ints[I] = I * I - 1000;
    F4[I] = make_float4(I, -I, I * 0.5f, 1.0f / (I + 1));
  }
  int *DInts;
  float4 *DF4, *DOutF4;
  int *DOutI;
  CK(cudaMalloc(&DInts, N * 4));
  CK(cudaMalloc(&DF4, N * 16));
  CK(cudaMalloc(&DOutI, N * 4));
  CK(cudaMalloc(&DOutF4, N * 16));
  CK(cudaMemcpy(DInts, Ints.data(), N * 4, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(DF4, F4.data(), N * 16, cudaMemcpyHostToDevice));
  cudaResourceDesc LRes = {};
  LRes.resType = cudaResourceTypeLinear;
  LRes.res.linear.devPtr = DInts;
  LRes.res.linear.desc = cudaCreateChannelDesc<int>();
  LRes.res.linear.sizeInBytes = N * 4;
  Tex = {};
  cudaTextureObject_t TI, TF;
  CK(cudaCreateTextureObject(&TI, &LRes, &Tex, nullptr));
  LRes.res.linear.devPtr = DF4;
  LRes.res.linear.desc = cudaCreateChannelDesc<float4>();
  LRes.res.linear.sizeInBytes = N * 16;
  CK(cudaCreateTextureObject(&TF, &LRes, &Tex, nullptr));
  fetch1D<<<1, N>>>(TI, TF, DOutI, DOutF4);
  CK(cudaGetLastError());
  std::vector<int> OI(N);
  std::vector<float4> OF(N);
  CK(cudaMemcpy(OI.data(), DOutI, N * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(OF.data(), DOutF4, N * 16, cudaMemcpyDeviceToHost));
  for (int I = 0; I < N; ++I) {
    EXPECT(OI[I] == Ints[I]);
    EXPECT(OF[I].x == F4[I].x && OF[I].y == F4[I].y && OF[I].z == F4[I].z && OF[I].w == F4[I].w);
  }

  // ---- a layered 2D array, a cube map, a 3D array (point sampling at texel centres) ----
  constexpr int Layers = 3, D3 = 4;
  std::vector<float> Vol(W * W * 6); // the largest: the cube map's six W x W faces
  for (size_t I = 0; I < Vol.size(); ++I)
    Vol[I] = float(I) * 0.5f + 1;
  float *DVol;
  CK(cudaMalloc(&DVol, Vol.size() * sizeof(float)));
  struct Shape {
    unsigned Flags;
    cudaExtent E;
  } Shapes[] = {{cudaArrayLayered, make_cudaExtent(W, H, Layers)},
                {cudaArrayCubemap, make_cudaExtent(W, W, 6)},
                {0, make_cudaExtent(W, H, D3)}};
  for (const Shape &S : Shapes) {
    cudaArray_t A;
    CK(cudaMalloc3DArray(&A, &FloatDesc, S.E, S.Flags));
    cudaMemcpy3DParms P = {};
    P.srcPtr = make_cudaPitchedPtr(Vol.data(), S.E.width * sizeof(float), S.E.width, S.E.height);
    P.dstArray = A;
    P.extent = S.E;
    P.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&P));
    cudaResourceDesc R = {};
    R.resType = cudaResourceTypeArray;
    R.res.array.array = A;
    Tex = {};
    Tex.normalizedCoords = S.Flags == cudaArrayCubemap;
    cudaTextureObject_t T;
    CK(cudaCreateTextureObject(&T, &R, &Tex, nullptr));
    size_t Count = S.Flags == cudaArrayCubemap ? 6 : S.E.width * S.E.height * S.E.depth;
    if (S.Flags == cudaArrayLayered)
      sampleLayered<<<Layers, dim3(W, H)>>>(T, DVol);
    else if (S.Flags == cudaArrayCubemap)
      sampleCube<<<1, 6>>>(T, DVol);
    else
      sample3D<<<D3, dim3(W, H)>>>(T, DVol, W, H, D3);
    CK(cudaGetLastError());
    std::vector<float> Out(Count);
    CK(cudaMemcpy(Out.data(), DVol, Count * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t I = 0; I < Count; ++I) {
      // A face's centre direction lands between its four middle texels; point sampling takes
      // the one at (W/2, W/2) of that face.
      float Want = S.Flags == cudaArrayCubemap ? Vol[(I * W + W / 2) * W + W / 2] : Vol[I];
      if (Out[I] != Want) {
        printf("FAIL %s: array flags %u element %zu: %g, expected %g\n", kName, S.Flags, I, Out[I],
               Want);
        return 1;
      }
    }
    CK(cudaDestroyTextureObject(T));
    CK(cudaFreeArray(A));
  }

  // ---- surfaces: writes, layered writes, reads with each boundary mode ----
  cudaArray_t SArr, LArr;
  CK(cudaMallocArray(&SArr, &FloatDesc, W, H, cudaArraySurfaceLoadStore));
  CK(cudaMalloc3DArray(&LArr, &FloatDesc, make_cudaExtent(W, H, 2),
                       cudaArrayLayered | cudaArraySurfaceLoadStore));
  cudaResourceDesc SR = {};
  SR.resType = cudaResourceTypeArray;
  SR.res.array.array = SArr;
  cudaSurfaceObject_t S2, SL;
  CK(cudaCreateSurfaceObject(&S2, &SR));
  SR.res.array.array = LArr;
  CK(cudaCreateSurfaceObject(&SL, &SR));
  writeSurfaces<<<2, dim3(W, H)>>>(S2, SL);
  CK(cudaGetLastError());
  float *DZero, *DClamp;
  CK(cudaMalloc(&DZero, W * H * 4));
  CK(cudaMalloc(&DClamp, W * H * 4));
  readSurface<<<1, dim3(W, H)>>>(S2, DZero, DClamp);
  CK(cudaGetLastError());
  std::vector<float> OZ(W * H), OC(W * H), Back(W * H * 2);
  CK(cudaMemcpy(OZ.data(), DZero, W * H * 4, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(OC.data(), DClamp, W * H * 4, cudaMemcpyDeviceToHost));
  cudaMemcpy3DParms P = {};
  P.srcArray = LArr;
  P.dstPtr = make_cudaPitchedPtr(Back.data(), W * 4, W, H);
  P.extent = make_cudaExtent(W, H, 2);
  P.kind = cudaMemcpyDeviceToHost;
  CK(cudaMemcpy3D(&P));
  for (int Y = 0; Y < H; ++Y)
    for (int X = 0; X < W; ++X) {
      EXPECT(OZ[Y * W + X] == (X + 1 < W ? float(Y * 100 + X + 1) : 0.0f));
      EXPECT(OC[Y * W + X] == float(Y * 100 + std::min(X + 1, W - 1)));
      for (int L = 0; L < 2; ++L)
        EXPECT(Back[(L * H + Y) * W + X] == float(L * 1000 + Y * 100 + X));
    }
  CK(cudaDestroySurfaceObject(S2));
  CK(cudaDestroySurfaceObject(SL));
  printf("PASS %s\n", kName);
  return 0;
}
