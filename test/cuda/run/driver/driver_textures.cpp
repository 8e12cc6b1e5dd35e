// driver_textures: texture and surface objects made through the driver API alone and used by
// kernels loaded from PTX (texture_kernels.ptx, next to the executable): tex2D over a 2D array
// with point sampling, clamped and with normalized wrapped coordinates (CU_TRSF_* flags),
// tex1Dfetch over linear memory, tex2DLayered over a layered array, and surface reads and
// writes between two arrays; each result checked against CUDA's texture fetching.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda.h>
#include <string>
#include <unistd.h>
#include <vector>

static const char *kName = "driver_textures";

#include "../../check.h"

static std::string besideExecutable(const char *File) {
  char Path[4096];
  ssize_t N = readlink("/proc/self/exe", Path, sizeof Path - 1);
  if (N <= 0)
    return File;
  Path[N] = 0;
  std::string Dir(Path);
  return Dir.substr(0, Dir.rfind('/') + 1) + File;
}

static CUdeviceptr toDevice(const void *P, size_t Bytes) {
  CUdeviceptr D = 0;
  if (cuMemAlloc(&D, Bytes) == CUDA_SUCCESS)
    cuMemcpyHtoD(D, P, Bytes);
  return D;
}

int main() {
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuCtxCreate(&ctx, nullptr, 0, dev));
  CUmodule m;
  CU(cuModuleLoad(&m, besideExecutable("texture_kernels.ptx").c_str()));
  CUfunction tex2dPoint, fetchLinear, texLayered, surfIncrement;
  CU(cuModuleGetFunction(&tex2dPoint, m, "tex2d_point"));
  CU(cuModuleGetFunction(&fetchLinear, m, "fetch_linear"));
  CU(cuModuleGetFunction(&texLayered, m, "tex_layered"));
  CU(cuModuleGetFunction(&surfIncrement, m, "surf_increment"));

  // A 2D array of 12 x 6 floats, value 50 * y + x.
  const int W = 12, H = 6;
  std::vector<float> img(W * H);
  for (int i = 0; i < W * H; ++i)
    img[i] = 50.0f * (i / W) + i % W;
  CUDA_ARRAY_DESCRIPTOR ad = {};
  ad.Width = W;
  ad.Height = H;
  ad.Format = CU_AD_FORMAT_FLOAT;
  ad.NumChannels = 1;
  CUarray a;
  CU(cuArrayCreate(&a, &ad));
  CU(cuMemcpyHtoA(a, 0, img.data(), img.size() * 4));
  CUDA_RESOURCE_DESC res = {};
  res.resType = CU_RESOURCE_TYPE_ARRAY;
  res.res.array.hArray = a;

  // Texel centres and points outside: clamped (unnormalized), then one period on (wrapped).
  std::vector<float> xs, ys, xn, yn;
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      xs.push_back(x + 0.5f), ys.push_back(y + 0.5f);
      xn.push_back((x + 0.5f) / W - 1.0f), yn.push_back((y + 0.5f) / H + 2.0f);
    }
  xs.push_back(-4.0f), ys.push_back(2.5f);
  xs.push_back(W + 7.0f), ys.push_back(H + 1.0f);
  int n = int(xs.size()), nn = int(xn.size());
  CUdeviceptr dxs = toDevice(xs.data(), n * 4), dys = toDevice(ys.data(), n * 4);
  CUdeviceptr dxn = toDevice(xn.data(), nn * 4), dyn = toDevice(yn.data(), nn * 4);
  CUdeviceptr dout;
  CU(cuMemAlloc(&dout, 4096 * 4));
  std::vector<float> out(4096);
  {
    CUDA_TEXTURE_DESC tex = {};
    tex.addressMode[0] = tex.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
    tex.filterMode = CU_TR_FILTER_MODE_POINT;
    CUtexObject t;
    CU(cuTexObjectCreate(&t, &res, &tex, nullptr));
    void *args[] = {&t, &dxs, &dys, &dout, &n};
    CU(cuLaunchKernel(tex2dPoint, (n + 63) / 64, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr));
    CU(cuMemcpyDtoH(out.data(), dout, n * 4));
    for (int i = 0; i < W * H; ++i)
      EXPECT(out[i] == img[i]);
    EXPECT(out[W * H] == img[2 * W] && out[W * H + 1] == img[W * H - 1]);
    CU(cuTexObjectDestroy(t));

    tex.addressMode[0] = tex.addressMode[1] = CU_TR_ADDRESS_MODE_WRAP;
    tex.flags = CU_TRSF_NORMALIZED_COORDINATES;
    CU(cuTexObjectCreate(&t, &res, &tex, nullptr));
    void *wargs[] = {&t, &dxn, &dyn, &dout, &nn};
    CU(cuLaunchKernel(tex2dPoint, (nn + 63) / 64, 1, 1, 64, 1, 1, 0, nullptr, wargs, nullptr));
    CU(cuMemcpyDtoH(out.data(), dout, nn * 4));
    for (int i = 0; i < W * H; ++i)
      EXPECT(out[i] == img[i]);
    CU(cuTexObjectDestroy(t));
  }

  // tex1Dfetch over linear memory.
  {
    int count = 777;
    std::vector<float> v(count);
    for (int i = 0; i < count; ++i)
      v[i] = std::sqrt(float(i));
    CUdeviceptr dv = toDevice(v.data(), count * 4);
    CUDA_RESOURCE_DESC rl = {};
    rl.resType = CU_RESOURCE_TYPE_LINEAR;
    rl.res.linear.devPtr = dv;
    rl.res.linear.format = CU_AD_FORMAT_FLOAT;
    rl.res.linear.numChannels = 1;
    rl.res.linear.sizeInBytes = count * 4;
    CUDA_TEXTURE_DESC tex = {};
    CUtexObject t;
    CU(cuTexObjectCreate(&t, &rl, &tex, nullptr));
    void *args[] = {&t, &dout, &count};
    CU(cuLaunchKernel(fetchLinear, (count + 63) / 64, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr));
    CU(cuMemcpyDtoH(out.data(), dout, count * 4));
    for (int i = 0; i < count; ++i)
      EXPECT(out[i] == v[i]);
    CU(cuTexObjectDestroy(t));
    CU(cuMemFree(dv));
  }

  // tex2DLayered over 3 layers.
  {
    int w = 8, h = 4, layers = 3;
    CUDA_ARRAY3D_DESCRIPTOR d = {};
    d.Width = w;
    d.Height = h;
    d.Depth = layers;
    d.Format = CU_AD_FORMAT_FLOAT;
    d.NumChannels = 1;
    d.Flags = CUDA_ARRAY3D_LAYERED;
    CUarray al;
    CU(cuArray3DCreate(&al, &d));
    std::vector<float> v(w * h * layers);
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = float(i) * 1.5f;
    CU(cuMemcpyHtoA(al, 0, v.data(), v.size() * 4));
    CUDA_RESOURCE_DESC rl = {};
    rl.resType = CU_RESOURCE_TYPE_ARRAY;
    rl.res.array.hArray = al;
    CUDA_TEXTURE_DESC tex = {};
    CUtexObject t;
    CU(cuTexObjectCreate(&t, &rl, &tex, nullptr));
    void *args[] = {&t, &w, &h, &dout};
    CU(cuLaunchKernel(texLayered, h, layers, 1, w, 1, 1, 0, nullptr, args, nullptr));
    CU(cuMemcpyDtoH(out.data(), dout, v.size() * 4));
    for (size_t i = 0; i < v.size(); ++i)
      EXPECT(out[i] == v[i]);
    CU(cuTexObjectDestroy(t));
    CU(cuArrayDestroy(al));
  }

  // Surfaces: dst = src + 1 over two arrays made for load and store.
  {
    int w = 40, h = 7;
    CUDA_ARRAY3D_DESCRIPTOR d = {};
    d.Width = w;
    d.Height = h;
    d.Format = CU_AD_FORMAT_UNSIGNED_INT32;
    d.NumChannels = 1;
    d.Flags = CUDA_ARRAY3D_SURFACE_LDST;
    CUarray src, dst;
    CU(cuArray3DCreate(&src, &d));
    CU(cuArray3DCreate(&dst, &d));
    std::vector<unsigned> v(w * h), got(w * h);
    for (int i = 0; i < w * h; ++i)
      v[i] = unsigned(i * 977);
    CU(cuMemcpyHtoA(src, 0, v.data(), v.size() * 4));
    CUDA_RESOURCE_DESC rs = {};
    rs.resType = CU_RESOURCE_TYPE_ARRAY;
    rs.res.array.hArray = src;
    CUsurfObject ss, sd;
    CU(cuSurfObjectCreate(&ss, &rs));
    rs.res.array.hArray = dst;
    CU(cuSurfObjectCreate(&sd, &rs));
    void *args[] = {&ss, &sd, &w, &h};
    CU(cuLaunchKernel(surfIncrement, (w + 31) / 32, h, 1, 32, 1, 1, 0, nullptr, args, nullptr));
    CU(cuMemcpyAtoH(got.data(), dst, 0, got.size() * 4));
    for (int i = 0; i < w * h; ++i)
      EXPECT(got[i] == v[i] + 1);
    CU(cuSurfObjectDestroy(ss));
    CU(cuSurfObjectDestroy(sd));
    CU(cuArrayDestroy(src));
    CU(cuArrayDestroy(dst));
  }

  CU(cuMemFree(dout));
  CU(cuMemFree(dxs));
  CU(cuMemFree(dys));
  CU(cuMemFree(dxn));
  CU(cuMemFree(dyn));
  CU(cuArrayDestroy(a));
  CU(cuModuleUnload(m));
  CU(cuCtxDestroy(ctx));
  printf("PASS %s\n", kName);
  return 0;
}
