// texture_levels: the texture fetches that choose a level or gather: tex2DLod and tex2DGrad
// over a mipmapped array whose levels each hold one value (the level CUDA's level-of-detail
// rules pick is the value read), and tex2Dgather's four texels of a 2D array in CUDA's order.
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

static const char *kName = "texture_levels";

#include "../check.h"

__global__ void sampleLevels(cudaTextureObject_t t, float w, float *out) {
  // Levels 0, 1, 2 by level of detail, then by gradients of 1, 2 and 4 texels of level 0.
  out[0] = tex2DLod<float>(t, 0.3f, 0.6f, 0.0f);
  out[1] = tex2DLod<float>(t, 0.3f, 0.6f, 1.0f);
  out[2] = tex2DLod<float>(t, 0.3f, 0.6f, 2.0f);
  out[3] = tex2DGrad<float>(t, 0.3f, 0.6f, make_float2(1 / w, 0), make_float2(0, 1 / w));
  out[4] = tex2DGrad<float>(t, 0.3f, 0.6f, make_float2(2 / w, 0), make_float2(0, 2 / w));
  out[5] = tex2DGrad<float>(t, 0.3f, 0.6f, make_float2(4 / w, 0), make_float2(0, 4 / w));
}

__global__ void gather(cudaTextureObject_t t, float x, float y, float4 *out) {
  out[0] = tex2Dgather<float4>(t, x, y, 0);
  out[1] = tex2Dgather<float4>(t, x, y, 1);
}

int main() {
  cudaChannelFormatDesc f1 = cudaCreateChannelDesc<float>();
  float *dout = nullptr;
  CK(cudaMalloc(&dout, 64 * sizeof(float)));

  // A mipmapped array whose level l is all 10 * (l + 1): levels by LOD and by gradient.
  {
    const int mw = 32;
    cudaMipmappedArray_t m;
    CK(cudaMallocMipmappedArray(&m, &f1, make_cudaExtent(mw, mw, 0), 6));
    for (int l = 0; l < 6; ++l) {
      cudaArray_t level;
      CK(cudaGetMipmappedArrayLevel(&level, m, l));
      int e = mw >> l;
      std::vector<float> v(e * e, 10.0f * (l + 1));
      CK(cudaMemcpy2DToArray(level, 0, 0, v.data(), e * 4, e * 4, e, cudaMemcpyHostToDevice));
    }
    cudaResourceDesc rm = {};
    rm.resType = cudaResourceTypeMipmappedArray;
    rm.res.mipmap.mipmap = m;
    cudaTextureDesc T = {};
    T.addressMode[0] = T.addressMode[1] = cudaAddressModeClamp;
    T.filterMode = cudaFilterModePoint;
    T.mipmapFilterMode = cudaFilterModePoint;
    T.normalizedCoords = 1;
    T.maxMipmapLevelClamp = 5;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rm, &T, nullptr));
    sampleLevels<<<1, 1>>>(t, float(mw), dout);
    float got[6];
    CK(cudaMemcpy(got, dout, sizeof got, cudaMemcpyDeviceToHost));
    const float want[6] = {10, 20, 30, 10, 20, 30};
    for (int i = 0; i < 6; ++i) {
      if (got[i] != want[i])
        printf("level sample %d: %g, not %g\n", i, got[i], want[i]);
      EXPECT(got[i] == want[i]);
    }
    CK(cudaDestroyTextureObject(t));
    CK(cudaFreeMipmappedArray(m));
  }

  // tex2Dgather of components 0 and 1 of a float2 array at a point between four centres.
  {
    const int W = 16, H = 8;
    std::vector<float2> img(W * H);
    for (int i = 0; i < W * H; ++i)
      img[i] = make_float2(float(i), -float(i) - 0.5f);
    auto at = [&](int x, int y) { return img[y * W + x]; };
    cudaChannelFormatDesc f2 = cudaCreateChannelDesc<float2>();
    cudaArray_t a;
    CK(cudaMallocArray(&a, &f2, W, H, cudaArrayTextureGather));
    CK(cudaMemcpy2DToArray(a, 0, 0, img.data(), W * 8, W * 8, H, cudaMemcpyHostToDevice));
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = a;
    cudaTextureDesc T = {};
    T.addressMode[0] = T.addressMode[1] = cudaAddressModeClamp;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &res, &T, nullptr));
    float4 *dg = reinterpret_cast<float4 *>(dout);
    gather<<<1, 1>>>(t, 5.0f, 3.0f, dg);
    float4 g[2];
    CK(cudaMemcpy(g, dg, sizeof g, cudaMemcpyDeviceToHost));
    // CUDA's order: (x0, y1), (x1, y1), (x1, y0), (x0, y0).
    EXPECT(g[0].x == at(4, 3).x && g[0].y == at(5, 3).x && g[0].z == at(5, 2).x &&
           g[0].w == at(4, 2).x);
    EXPECT(g[1].x == at(4, 3).y && g[1].y == at(5, 3).y && g[1].z == at(5, 2).y &&
           g[1].w == at(4, 2).y);
    CK(cudaDestroyTextureObject(t));
    CK(cudaFreeArray(a));
  }

  CK(cudaFree(dout));
  printf("PASS %s\n", kName);
  return 0;
}
