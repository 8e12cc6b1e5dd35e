// texture_limits: textures and surfaces past what an AMD image descriptor holds, which CUDA
// allows: a pitch-2D texture taller than 16384 rows (as video code makes of a batch of frames),
// a 2D array wider than 16384 texels read with linear filtering, a surface over such an array,
// a border colour other than black or white, and sRGB texels read as linear values. Each is
// checked against the CUDA Programming Guide's texture-fetching formulas.
#include <cmath>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

static const char *kName = "texture_limits";

#include "../check.h"

// One texel per thread at (x[i], y[i]) in texel coordinates (unnormalized, point sampling).
__global__ void fetchPoints(cudaTextureObject_t t, const int2 *at, int n, unsigned *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex2D<unsigned char>(t, at[i].x + 0.5f, at[i].y + 0.5f);
}

__global__ void fetchLinear(cudaTextureObject_t t, const float2 *at, int n, float *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex2D<float>(t, at[i].x, at[i].y);
}

__global__ void fetchBorder(cudaTextureObject_t t, const float2 *at, int n, float4 *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex2D<float4>(t, at[i].x, at[i].y);
}

// Each thread doubles texel (x, y) of the surface in place, and clamps a write past the end.
__global__ void doubleSurface(cudaSurfaceObject_t s, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  if (x < w && y < h) {
    float v = surf2Dread<float>(s, x * 4, y);
    surf2Dwrite(2 * v, s, x * 4, y);
  }
  if (x == 0 && y == 0)
    surf2Dwrite(-1.0f, s, (w + 100) * 4, h - 1, cudaBoundaryModeZero); // ignored
}

static unsigned char pitchValue(int x, int y) { return (unsigned char)(x * 7 + y * 13 + (y >> 8)); }

int main() {
  // A pitch-2D texture of 96 x 20000 bytes: rows past 16384 read what was stored there.
  {
    const int W = 96, H = 20000;
    unsigned char *d = nullptr;
    size_t pitch = 0;
    CK(cudaMallocPitch((void **)&d, &pitch, W, H));
    std::vector<unsigned char> host(pitch * H);
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x)
        host[y * pitch + x] = pitchValue(x, y);
    CK(cudaMemcpy(d, host.data(), host.size(), cudaMemcpyHostToDevice));
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypePitch2D;
    res.res.pitch2D.devPtr = d;
    res.res.pitch2D.desc = cudaCreateChannelDesc<unsigned char>();
    res.res.pitch2D.width = W;
    res.res.pitch2D.height = H;
    res.res.pitch2D.pitchInBytes = pitch;
    cudaTextureDesc T = {};
    T.filterMode = cudaFilterModePoint;
    T.readMode = cudaReadModeElementType;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &res, &T, nullptr));
    std::vector<int2> at;
    for (int y : {0, 1, 16383, 16384, 16385, 18000, H - 1})
      for (int x : {0, 1, 47, W - 1})
        at.push_back(make_int2(x, y));
    at.push_back(make_int2(W + 5, H + 5)); // clamped to the last texel
    int n = int(at.size());
    int2 *dat = nullptr;
    unsigned *dout = nullptr;
    CK(cudaMalloc(&dat, n * sizeof(int2)));
    CK(cudaMalloc(&dout, n * sizeof(unsigned)));
    CK(cudaMemcpy(dat, at.data(), n * sizeof(int2), cudaMemcpyHostToDevice));
    fetchPoints<<<1, 64>>>(t, dat, n, dout);
    CK(cudaGetLastError());
    std::vector<unsigned> got(n);
    CK(cudaMemcpy(got.data(), dout, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
      int x = at[i].x < W ? at[i].x : W - 1, y = at[i].y < H ? at[i].y : H - 1;
      if (got[i] != pitchValue(x, y))
        printf("pitch-2D (%d, %d): %u, not %u\n", at[i].x, at[i].y, got[i], pitchValue(x, y));
      EXPECT(got[i] == pitchValue(x, y));
    }
    CK(cudaDestroyTextureObject(t));
    CK(cudaFree(dat));
    CK(cudaFree(dout));
    CK(cudaFree(d));
  }

  // A float array of 20000 x 3 texels, linear filtering with normalized coordinates and wrap.
  const int AW = 20000, AH = 3;
  std::vector<float> img(AW * AH);
  for (int i = 0; i < AW * AH; ++i)
    img[i] = float((i * 37) % 101) - 50.0f;
  cudaChannelFormatDesc f1 = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  CK(cudaMallocArray(&a, &f1, AW, AH, cudaArraySurfaceLoadStore));
  CK(cudaMemcpy2DToArray(a, 0, 0, img.data(), AW * 4, AW * 4, AH, cudaMemcpyHostToDevice));
  {
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = a;
    cudaTextureDesc T = {};
    T.addressMode[0] = T.addressMode[1] = cudaAddressModeWrap;
    T.filterMode = cudaFilterModeLinear;
    T.normalizedCoords = 1;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &res, &T, nullptr));
    std::vector<float2> at;
    for (float u : {0.1f, 0.5f, 0.81925f, 0.99999f, 1.25f})
      for (float v : {0.2f, 0.5f, 0.9f})
        at.push_back(make_float2(u, v));
    int n = int(at.size());
    float2 *dat = nullptr;
    float *dout = nullptr;
    CK(cudaMalloc(&dat, n * sizeof(float2)));
    CK(cudaMalloc(&dout, n * sizeof(float)));
    CK(cudaMemcpy(dat, at.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
    fetchLinear<<<1, 64>>>(t, dat, n, dout);
    CK(cudaGetLastError());
    std::vector<float> got(n);
    CK(cudaMemcpy(got.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    auto texel = [&](int x, int y) {
      x = ((x % AW) + AW) % AW;
      y = ((y % AH) + AH) % AH;
      return img[y * AW + x];
    };
    for (int i = 0; i < n; ++i) {
      // The guide: xB = x N - 0.5, i = floor(xB), alpha = frac(xB) in 8 fractional bits.
      float xb = at[i].x * AW - 0.5f, yb = at[i].y * AH - 0.5f;
      int x0 = int(std::floor(xb)), y0 = int(std::floor(yb));
      float ax = std::nearbyint((xb - x0) * 256) / 256, ay = std::nearbyint((yb - y0) * 256) / 256;
      float want = (1 - ax) * (1 - ay) * texel(x0, y0) + ax * (1 - ay) * texel(x0 + 1, y0) +
                   (1 - ax) * ay * texel(x0, y0 + 1) + ax * ay * texel(x0 + 1, y0 + 1);
      bool ok = std::fabs(got[i] - want) <= 50.0f / 256;
      if (!ok)
        printf("linear (%g, %g): %g, not %g\n", at[i].x, at[i].y, got[i], want);
      EXPECT(ok);
    }
    CK(cudaDestroyTextureObject(t));
    CK(cudaFree(dat));
    CK(cudaFree(dout));
  }

  // A surface over the same array: every texel doubled in place.
  {
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = a;
    cudaSurfaceObject_t s;
    CK(cudaCreateSurfaceObject(&s, &res));
    doubleSurface<<<dim3((AW + 255) / 256, AH), 256>>>(s, AW, AH);
    CK(cudaGetLastError());
    std::vector<float> back(AW * AH);
    CK(cudaMemcpy2DFromArray(back.data(), AW * 4, a, 0, 0, AW * 4, AH, cudaMemcpyDeviceToHost));
    for (int i = 0; i < AW * AH; ++i) {
      if (back[i] != 2 * img[i])
        printf("surface texel %d: %g, not %g\n", i, back[i], 2 * img[i]);
      EXPECT(back[i] == 2 * img[i]);
    }
    CK(cudaDestroySurfaceObject(s));
  }
  CK(cudaFreeArray(a));

  // A border colour that is neither black nor white, on a small uchar4 array read normalized.
  {
    const int W = 4, H = 4;
    std::vector<uchar4> px(W * H);
    for (int i = 0; i < W * H; ++i)
      px[i] = make_uchar4(i * 16, 255 - i * 16, 51, 255);
    cudaChannelFormatDesc f4 = cudaCreateChannelDesc<uchar4>();
    cudaArray_t b;
    CK(cudaMallocArray(&b, &f4, W, H));
    CK(cudaMemcpy2DToArray(b, 0, 0, px.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = b;
    cudaTextureDesc T = {};
    T.addressMode[0] = T.addressMode[1] = cudaAddressModeBorder;
    T.filterMode = cudaFilterModePoint;
    T.readMode = cudaReadModeNormalizedFloat;
    const float border[4] = {0.25f, 0.5f, 0.75f, 0.125f};
    for (int c = 0; c < 4; ++c)
      T.borderColor[c] = border[c];
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &res, &T, nullptr));
    const float2 at[] = {{1.5f, 2.5f}, {-0.5f, 1.5f}, {4.5f, 0.5f}, {2.5f, 7.0f}, {3.5f, 3.5f}};
    const int n = 5;
    float2 *dat = nullptr;
    float4 *dout = nullptr;
    CK(cudaMalloc(&dat, sizeof at));
    CK(cudaMalloc(&dout, n * sizeof(float4)));
    CK(cudaMemcpy(dat, at, sizeof at, cudaMemcpyHostToDevice));
    fetchBorder<<<1, 32>>>(t, dat, n, dout);
    CK(cudaGetLastError());
    float4 got[n];
    CK(cudaMemcpy(got, dout, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
      int x = int(std::floor(at[i].x)), y = int(std::floor(at[i].y));
      bool inside = x >= 0 && x < W && y >= 0 && y < H;
      float want[4];
      if (inside) {
        uchar4 p = px[y * W + x];
        want[0] = p.x / 255.0f, want[1] = p.y / 255.0f, want[2] = p.z / 255.0f,
        want[3] = p.w / 255.0f;
      } else {
        for (int c = 0; c < 4; ++c)
          want[c] = border[c];
      }
      const float g[4] = {got[i].x, got[i].y, got[i].z, got[i].w};
      for (int c = 0; c < 4; ++c) {
        if (g[c] != want[c])
          printf("border (%g, %g) channel %d: %g, not %g\n", at[i].x, at[i].y, c, g[c], want[c]);
        EXPECT(g[c] == want[c]);
      }
    }
    CK(cudaDestroyTextureObject(t));
    CK(cudaFree(dat));
    CK(cudaFree(dout));
    CK(cudaFreeArray(b));
  }

  // sRGB: the colour channels of uchar4 texels converted to linear values, alpha as it is.
  {
    const int W = 64;
    std::vector<uchar4> px(W);
    for (int i = 0; i < W; ++i)
      px[i] = make_uchar4(i * 4, 255 - i * 4, (i * 37) & 255, i * 3);
    cudaChannelFormatDesc f4 = cudaCreateChannelDesc<uchar4>();
    cudaArray_t b;
    CK(cudaMallocArray(&b, &f4, W, 1));
    CK(cudaMemcpy2DToArray(b, 0, 0, px.data(), W * 4, W * 4, 1, cudaMemcpyHostToDevice));
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = b;
    cudaTextureDesc T = {};
    T.filterMode = cudaFilterModePoint;
    T.readMode = cudaReadModeNormalizedFloat;
    T.sRGB = 1;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &res, &T, nullptr));
    std::vector<float2> at(W);
    for (int i = 0; i < W; ++i)
      at[i] = make_float2(i + 0.5f, 0.5f);
    float2 *dat = nullptr;
    float4 *dout = nullptr;
    CK(cudaMalloc(&dat, W * sizeof(float2)));
    CK(cudaMalloc(&dout, W * sizeof(float4)));
    CK(cudaMemcpy(dat, at.data(), W * sizeof(float2), cudaMemcpyHostToDevice));
    fetchBorder<<<1, W>>>(t, dat, W, dout);
    CK(cudaGetLastError());
    std::vector<float4> got(W);
    CK(cudaMemcpy(got.data(), dout, W * sizeof(float4), cudaMemcpyDeviceToHost));
    auto linear = [](unsigned char v) {
      double c = v / 255.0;
      return float(c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4));
    };
    for (int i = 0; i < W; ++i) {
      const float g[4] = {got[i].x, got[i].y, got[i].z, got[i].w};
      const float want[4] = {linear(px[i].x), linear(px[i].y), linear(px[i].z), px[i].w / 255.0f};
      for (int c = 0; c < 4; ++c) {
        bool ok = std::fabs(g[c] - want[c]) <= 1e-5f + 1e-5f * want[c];
        if (!ok)
          printf("sRGB texel %d channel %d: %.8g, not %.8g\n", i, c, g[c], want[c]);
        EXPECT(ok);
      }
    }
    CK(cudaDestroyTextureObject(t));
    CK(cudaFree(dat));
    CK(cudaFree(dout));
    CK(cudaFreeArray(b));
  }

  printf("PASS %s\n", kName);
  return 0;
}
