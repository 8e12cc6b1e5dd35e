// textures: texture objects sampled in kernels as programs sample them, each result checked
// against what CUDA's texture fetching defines: tex2D over a 2D array with point sampling at
// texel centres and outside (clamp, border; wrap and mirror with normalized coordinates),
// linear filtering between centres, integers read as normalized floats, tex1Dfetch over linear
// memory, tex2D over pitched memory, tex2DLayered, texCubemap on each face and tex3D. (Levels
// and gathers: texture_levels.)
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

static const char *kName = "textures";

#include "../check.h"

static bool near(float A, float B, float Tol) { return std::fabs(A - B) <= Tol; }

// Each thread samples one point: (x, y) from xs/ys.
__global__ void sample2D(cudaTextureObject_t t, const float *xs, const float *ys, float *out,
                         int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex2D<float>(t, xs[i], ys[i]);
}

__global__ void sample2D4(cudaTextureObject_t t, const float *xs, const float *ys, float4 *out,
                          int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex2D<float4>(t, xs[i], ys[i]);
}

__global__ void fetch1D(cudaTextureObject_t t, const int *at, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = tex1Dfetch<int>(t, at[i]);
}

__global__ void sampleLayered(cudaTextureObject_t t, int w, int h, int layers, float *out) {
  int x = threadIdx.x, y = blockIdx.x, l = blockIdx.y;
  out[(l * h + y) * w + x] = tex2DLayered<float>(t, x + 0.5f, y + 0.5f, l);
}

__global__ void sample3D(cudaTextureObject_t t, int w, int h, int d, float *out) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  out[(z * h + y) * w + x] = tex3D<float>(t, x + 0.5f, y + 0.5f, z + 0.5f);
}

__global__ void sampleCube(cudaTextureObject_t t, float *out) {
  const float dirs[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
  int f = threadIdx.x;
  if (f < 6)
    out[f] = texCubemap<float>(t, dirs[f][0], dirs[f][1], dirs[f][2]);
}

template <typename T> static T *toDevice(const std::vector<T> &V) {
  T *D = nullptr;
  if (cudaMalloc(&D, V.size() * sizeof(T)) != cudaSuccess)
    return nullptr;
  cudaMemcpy(D, V.data(), V.size() * sizeof(T), cudaMemcpyHostToDevice);
  return D;
}

static cudaTextureDesc texDesc(cudaTextureAddressMode Mode, cudaTextureFilterMode Filter,
                               bool Normalized) {
  cudaTextureDesc T = {};
  T.addressMode[0] = T.addressMode[1] = T.addressMode[2] = Mode;
  T.filterMode = Filter;
  T.readMode = cudaReadModeElementType;
  T.normalizedCoords = Normalized;
  return T;
}

int main() {
  // A 2D float array of 16 x 8 texels: value 100 * y + x.
  const int W = 16, H = 8;
  std::vector<float> img(W * H);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      img[y * W + x] = 100.0f * y + x;
  auto at = [&](int x, int y) { return img[y * W + x]; };
  cudaChannelFormatDesc f1 = cudaCreateChannelDesc<float>();
  cudaArray_t a;
  CK(cudaMallocArray(&a, &f1, W, H));
  CK(cudaMemcpy2DToArray(a, 0, 0, img.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = a;

  // Points: centres, and outside on each side.
  struct Point {
    float x, y;
  };
  std::vector<Point> pts;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      pts.push_back({x + 0.5f, y + 0.5f});
  const Point outside[] = {{-3.0f, 2.5f}, {W + 4.0f, 1.5f}, {5.5f, -0.25f}, {2.5f, H + 0.5f}};
  for (const Point &p : outside)
    pts.push_back(p);
  const int n = int(pts.size());
  std::vector<float> xs(n), ys(n), xsN(n), ysN(n);
  for (int i = 0; i < n; ++i) {
    xs[i] = pts[i].x, ys[i] = pts[i].y;
    // Normalized and one period on: wrap lands on the same texels, mirror on reflected ones.
    xsN[i] = pts[i].x / W + 1.0f, ysN[i] = pts[i].y / H + 1.0f;
  }
  float *dx = toDevice(xs), *dy = toDevice(ys), *dxN = toDevice(xsN), *dyN = toDevice(ysN);
  float *dout = nullptr;
  CK(cudaMalloc(&dout, 4096 * sizeof(float)));
  std::vector<float> out(n);
  auto run2D = [&](cudaTextureDesc T, bool Normalized) -> cudaError_t {
    cudaTextureObject_t t;
    cudaError_t e = cudaCreateTextureObject(&t, &res, &T, nullptr);
    if (e)
      return e;
    sample2D<<<(n + 63) / 64, 64>>>(t, Normalized ? dxN : dx, Normalized ? dyN : dy, dout, n);
    if ((e = cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost)))
      return e;
    return cudaDestroyTextureObject(t);
  };
  auto clampI = [](int v, int hi) { return v < 0 ? 0 : v >= hi ? hi - 1 : v; };

  // Clamp, point sampling: exact at centres, the edge texels outside.
  CK(run2D(texDesc(cudaAddressModeClamp, cudaFilterModePoint, false), false));
  for (int i = 0; i < n; ++i) {
    int x = clampI(int(std::floor(xs[i])), W), y = clampI(int(std::floor(ys[i])), H);
    if (out[i] != at(x, y)) {
      printf("clamp: (%g, %g) gave %g, not %g\n", xs[i], ys[i], out[i], at(x, y));
      EXPECT(false);
    }
  }
  // Border: zero outside.
  CK(run2D(texDesc(cudaAddressModeBorder, cudaFilterModePoint, false), false));
  for (int i = 0; i < n; ++i) {
    bool in = xs[i] >= 0 && xs[i] < W && ys[i] >= 0 && ys[i] < H;
    float want = in ? at(int(xs[i]), int(ys[i])) : 0.0f;
    EXPECT(out[i] == want);
  }
  // Wrap and mirror, normalized coordinates one period on.
  CK(run2D(texDesc(cudaAddressModeWrap, cudaFilterModePoint, true), true));
  for (int i = 0; i < W * H; ++i)
    EXPECT(out[i] == img[i]);
  CK(run2D(texDesc(cudaAddressModeMirror, cudaFilterModePoint, true), true));
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      EXPECT(out[y * W + x] == at(W - 1 - x, H - 1 - y));

  // Linear filtering halfway between centres: the mean of the neighbours (CUDA's weights have
  // 8 fractional bits: 0.5 is exact).
  {
    std::vector<float> lx, ly;
    for (int y = 0; y + 1 < H; ++y)
      for (int x = 0; x + 1 < W; ++x)
        lx.push_back(x + 1.0f), ly.push_back(y + 1.0f);
    const int m = int(lx.size());
    float *dlx = toDevice(lx), *dly = toDevice(ly);
    cudaTextureDesc T = texDesc(cudaAddressModeClamp, cudaFilterModeLinear, false);
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &res, &T, nullptr));
    sample2D<<<(m + 63) / 64, 64>>>(t, dlx, dly, dout, m);
    std::vector<float> lout(m);
    CK(cudaMemcpy(lout.data(), dout, m * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < m; ++i) {
      int x = int(lx[i]) - 1, y = int(ly[i]) - 1;
      float want = (at(x, y) + at(x + 1, y) + at(x, y + 1) + at(x + 1, y + 1)) / 4;
      EXPECT(near(lout[i], want, 1e-3f * std::fabs(want) + 1e-3f));
    }
    CK(cudaDestroyTextureObject(t));
    CK(cudaFree(dlx));
    CK(cudaFree(dly));
  }

  // uchar4 read as normalized floats.
  {
    std::vector<uchar4> px(W * H);
    for (int i = 0; i < W * H; ++i)
      px[i] = make_uchar4(i, 255 - i, i * 3, 128);
    cudaChannelFormatDesc c4 = cudaCreateChannelDesc<uchar4>();
    cudaArray_t a4;
    CK(cudaMallocArray(&a4, &c4, W, H));
    CK(cudaMemcpy2DToArray(a4, 0, 0, px.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
    cudaResourceDesc r4 = {};
    r4.resType = cudaResourceTypeArray;
    r4.res.array.array = a4;
    cudaTextureDesc T = texDesc(cudaAddressModeClamp, cudaFilterModePoint, false);
    T.readMode = cudaReadModeNormalizedFloat;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &r4, &T, nullptr));
    float4 *d4 = nullptr;
    CK(cudaMalloc(&d4, W * H * sizeof(float4)));
    sample2D4<<<(W * H + 63) / 64, 64>>>(t, dx, dy, d4, W * H);
    std::vector<float4> o4(W * H);
    CK(cudaMemcpy(o4.data(), d4, o4.size() * sizeof(float4), cudaMemcpyDeviceToHost));
    for (int i = 0; i < W * H; ++i)
      EXPECT(near(o4[i].x, px[i].x / 255.0f, 1e-6f) && near(o4[i].y, px[i].y / 255.0f, 1e-6f) &&
             near(o4[i].z, px[i].z / 255.0f, 1e-6f) && near(o4[i].w, 128 / 255.0f, 1e-6f));
    CK(cudaDestroyTextureObject(t));
    CK(cudaFree(d4));
    CK(cudaFreeArray(a4));
  }

  // tex1Dfetch over linear memory: elements by index, 0 past the end.
  {
    const int count = 1000;
    std::vector<int> vals(count), idx(count + 2), got(count + 2);
    for (int i = 0; i < count; ++i)
      vals[i] = i * 7 - 300, idx[i] = (i * 37) % count;
    idx[count] = count, idx[count + 1] = count + 50;
    int *dv = toDevice(vals), *di = toDevice(idx), *dg = nullptr;
    CK(cudaMalloc(&dg, got.size() * sizeof(int)));
    cudaResourceDesc rl = {};
    rl.resType = cudaResourceTypeLinear;
    rl.res.linear.devPtr = dv;
    rl.res.linear.desc = cudaCreateChannelDesc<int>();
    rl.res.linear.sizeInBytes = count * sizeof(int);
    cudaTextureDesc T = texDesc(cudaAddressModeClamp, cudaFilterModePoint, false);
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rl, &T, nullptr));
    fetch1D<<<(count + 2 + 63) / 64, 64>>>(t, di, dg, count + 2);
    CK(cudaMemcpy(got.data(), dg, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < count; ++i)
      EXPECT(got[i] == vals[idx[i]]);
    EXPECT(got[count] == 0 && got[count + 1] == 0);
    CK(cudaDestroyTextureObject(t));
    CK(cudaFree(dv));
    CK(cudaFree(di));
    CK(cudaFree(dg));
  }

  // tex2D over pitched memory.
  {
    float *pm = nullptr;
    size_t pitch = 0;
    CK(cudaMallocPitch(&pm, &pitch, W * sizeof(float), H));
    CK(cudaMemcpy2D(pm, pitch, img.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
    cudaResourceDesc rp = {};
    rp.resType = cudaResourceTypePitch2D;
    rp.res.pitch2D.devPtr = pm;
    rp.res.pitch2D.desc = f1;
    rp.res.pitch2D.width = W;
    rp.res.pitch2D.height = H;
    rp.res.pitch2D.pitchInBytes = pitch;
    cudaTextureDesc T = texDesc(cudaAddressModeClamp, cudaFilterModePoint, false);
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rp, &T, nullptr));
    sample2D<<<(n + 63) / 64, 64>>>(t, dx, dy, dout, n);
    CK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
      EXPECT(out[i] == at(clampI(int(std::floor(xs[i])), W), clampI(int(std::floor(ys[i])), H)));
    CK(cudaDestroyTextureObject(t));
    CK(cudaFree(pm));
  }

  // Layered and 3D: every texel at its centre.
  for (int shape = 0; shape < 2; ++shape) {
    const int w = 8, h = 4, d = 3;
    std::vector<float> vol(w * h * d), got(w * h * d);
    for (int i = 0; i < w * h * d; ++i)
      vol[i] = float(i * 3 + 1);
    cudaArray_t av;
    CK(cudaMalloc3DArray(&av, &f1, make_cudaExtent(w, h, d), shape ? 0 : cudaArrayLayered));
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(vol.data(), w * 4, w, h);
    p.dstArray = av;
    p.extent = make_cudaExtent(w, h, d);
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&p));
    cudaResourceDesc rv = {};
    rv.resType = cudaResourceTypeArray;
    rv.res.array.array = av;
    cudaTextureDesc T = texDesc(cudaAddressModeClamp, cudaFilterModePoint, false);
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rv, &T, nullptr));
    if (shape)
      sample3D<<<dim3(h, d), w>>>(t, w, h, d, dout);
    else
      sampleLayered<<<dim3(h, d), w>>>(t, w, h, d, dout);
    CK(cudaMemcpy(got.data(), dout, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
    EXPECT(got == vol);
    CK(cudaDestroyTextureObject(t));
    CK(cudaFreeArray(av));
  }

  // A cube map whose faces are each one value: the axes' directions find their faces.
  {
    const int e = 4;
    std::vector<float> faces(e * e * 6);
    for (int f = 0; f < 6; ++f)
      for (int i = 0; i < e * e; ++i)
        faces[f * e * e + i] = float(f + 1);
    cudaArray_t ac;
    CK(cudaMalloc3DArray(&ac, &f1, make_cudaExtent(e, e, 6), cudaArrayCubemap));
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(faces.data(), e * 4, e, e);
    p.dstArray = ac;
    p.extent = make_cudaExtent(e, e, 6);
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&p));
    cudaResourceDesc rc = {};
    rc.resType = cudaResourceTypeArray;
    rc.res.array.array = ac;
    cudaTextureDesc T = texDesc(cudaAddressModeClamp, cudaFilterModePoint, true);
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rc, &T, nullptr));
    sampleCube<<<1, 6>>>(t, dout);
    float got[6];
    CK(cudaMemcpy(got, dout, sizeof got, cudaMemcpyDeviceToHost));
    for (int f = 0; f < 6; ++f)
      EXPECT(got[f] == float(f + 1));
    CK(cudaDestroyTextureObject(t));
    CK(cudaFreeArray(ac));
  }

  CK(cudaFree(dout));
  CK(cudaFree(dx));
  CK(cudaFree(dy));
  CK(cudaFree(dxN));
  CK(cudaFree(dyN));
  CK(cudaFreeArray(a));
  printf("PASS %s\n", kName);
  return 0;
}
