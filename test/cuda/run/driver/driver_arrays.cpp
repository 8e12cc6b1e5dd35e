// driver_arrays: CUDA arrays and the objects over them through the driver API alone, without
// sampling in a kernel: cuArrayCreate/cuArray3DCreate of 2D, 3D, layered and cube map arrays
// and what their descriptors say, mipmapped arrays and their levels, every copy to and from
// arrays (cuMemcpy2D and cuMemcpy3D with CU_MEMORYTYPE_ARRAY, cuMemcpyHtoA/AtoH/DtoA/AtoD/AtoA
// and the asynchronous forms) checked byte by byte after a round trip, texture objects whose
// flags, formats and views come back from the getters, surface objects, and the results CUDA
// defines for bad descriptions. A kernel's output goes through an array (driver_api's kernels,
// driver_kernels.ptx next to the executable).
#include <cstdio>
#include <cstring>
#include <cuda.h>
#include <string>
#include <unistd.h>
#include <vector>

static const char *kName = "driver_arrays";

#include "../../check.h"

static void fill(std::vector<unsigned char> &V, unsigned Seed) {
  for (size_t I = 0; I < V.size(); ++I)
    V[I] = (unsigned char)(I * 29 + Seed * 13 + (I >> 9) * 5);
}

static std::string besideExecutable(const char *File) {
  char Path[4096];
  ssize_t N = readlink("/proc/self/exe", Path, sizeof Path - 1);
  if (N <= 0)
    return File;
  Path[N] = 0;
  std::string Dir(Path);
  return Dir.substr(0, Dir.rfind('/') + 1) + File;
}

int main() {
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));

  // A 2D array of 2 x 16-bit floats: 45 x 11 elements of 4 bytes.
  const size_t W = 45, H = 11, Row = W * 4;
  CUDA_ARRAY_DESCRIPTOR ad = {};
  ad.Width = W;
  ad.Height = H;
  ad.Format = CU_AD_FORMAT_HALF;
  ad.NumChannels = 2;
  CUarray a;
  CU(cuArrayCreate(&a, &ad));
  CUDA_ARRAY_DESCRIPTOR got = {};
  CU(cuArrayGetDescriptor(&got, a));
  EXPECT(got.Width == W && got.Height == H && got.Format == CU_AD_FORMAT_HALF &&
         got.NumChannels == 2);
  CUDA_ARRAY3D_DESCRIPTOR got3 = {};
  CU(cuArray3DGetDescriptor(&got3, a));
  EXPECT(got3.Width == W && got3.Height == H && got3.Depth == 0 && got3.Flags == 0);

  // Refused: three channels, an unknown format, no width.
  {
    CUarray bad;
    CUDA_ARRAY_DESCRIPTOR d = ad;
    d.NumChannels = 3;
    EXPECT(cuArrayCreate(&bad, &d) == CUDA_ERROR_INVALID_VALUE);
    d = ad;
    d.Format = (CUarray_format)0x77;
    EXPECT(cuArrayCreate(&bad, &d) != CUDA_SUCCESS);
    d = ad;
    d.Width = 0;
    EXPECT(cuArrayCreate(&bad, &d) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuArrayDestroy(nullptr) == CUDA_ERROR_INVALID_HANDLE);
  }

  // cuMemcpy2D host -> array -> device -> host, at offsets.
  std::vector<unsigned char> in(Row * H), out(Row * H, 0);
  fill(in, 1);
  {
    CUDA_MEMCPY2D c = {};
    c.srcMemoryType = CU_MEMORYTYPE_HOST;
    c.srcHost = in.data();
    c.srcPitch = Row;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    c.dstArray = a;
    c.WidthInBytes = Row;
    c.Height = H;
    CU(cuMemcpy2D(&c));
    CUdeviceptr d;
    size_t pitch;
    CU(cuMemAllocPitch(&d, &pitch, Row, H, 4));
    CUDA_MEMCPY2D back = {};
    back.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    back.srcArray = a;
    back.srcXInBytes = 8;
    back.srcY = 2;
    back.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    back.dstDevice = d;
    back.dstPitch = pitch;
    back.WidthInBytes = Row - 8;
    back.Height = H - 2;
    CU(cuMemcpy2D(&back));
    CUDA_MEMCPY2D toHost = {};
    toHost.srcMemoryType = CU_MEMORYTYPE_DEVICE;
    toHost.srcDevice = d;
    toHost.srcPitch = pitch;
    toHost.dstMemoryType = CU_MEMORYTYPE_HOST;
    toHost.dstHost = out.data();
    toHost.dstPitch = Row;
    toHost.WidthInBytes = Row - 8;
    toHost.Height = H - 2;
    CU(cuMemcpy2D(&toHost));
    for (size_t y = 0; y < H - 2; ++y)
      EXPECT(memcmp(&out[y * Row], &in[(y + 2) * Row + 8], Row - 8) == 0);
    // Past the array's rows: refused.
    back.srcY = 3;
    back.Height = H - 2;
    EXPECT(cuMemcpy2D(&back) == CUDA_ERROR_INVALID_VALUE);
    CU(cuMemFree(d));
  }

  // Linear copies in array order: host to array from byte 100, back, device to array, array
  // to array, asynchronous on a stream.
  {
    std::vector<unsigned char> run(900), back(900);
    fill(run, 2);
    CU(cuMemcpyHtoA(a, 100, run.data(), run.size()));
    CU(cuMemcpyAtoH(back.data(), a, 100, back.size()));
    EXPECT(back == run);
    EXPECT(cuMemcpyHtoA(a, Row * H - 10, run.data(), 11) == CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr d;
    CU(cuMemAlloc(&d, 900));
    CU(cuMemcpyAtoD(d, a, 100, 900));
    std::vector<unsigned char> viaDevice(900);
    CU(cuMemcpyDtoH(viaDevice.data(), d, 900));
    EXPECT(viaDevice == run);
    CUarray b;
    CU(cuArrayCreate(&b, &ad));
    CU(cuMemcpyDtoA(b, 7, d, 900));
    CU(cuMemcpyAtoA(a, 0, b, 7, 900));
    std::vector<unsigned char> all(Row * H);
    CU(cuMemcpyAtoH(all.data(), a, 0, all.size()));
    EXPECT(memcmp(all.data(), run.data(), 900) == 0);
    CUstream s;
    CU(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    std::vector<unsigned char> run2(Row * H), back2(Row * H);
    fill(run2, 3);
    CU(cuMemcpyHtoAAsync(b, 0, run2.data(), run2.size(), s));
    CU(cuMemcpyAtoHAsync(back2.data(), b, 0, back2.size(), s));
    CU(cuStreamSynchronize(s));
    EXPECT(back2 == run2);
    CU(cuStreamDestroy(s));
    CU(cuArrayDestroy(b));
    CU(cuMemFree(d));
  }

  // 3D, layered and cube map arrays with cuMemcpy3D (x in bytes, as the driver counts).
  struct Case {
    size_t w, h, d;
    unsigned flags;
  } cases[] = {
      {9, 5, 4, 0},
      {21, 0, 3, CUDA_ARRAY3D_LAYERED},
      {12, 7, 5, CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST},
      {4, 4, 6, CUDA_ARRAY3D_CUBEMAP},
      {4, 4, 12, CUDA_ARRAY3D_CUBEMAP | CUDA_ARRAY3D_LAYERED},
  };
  for (const Case &c : cases) {
    CUDA_ARRAY3D_DESCRIPTOR d = {};
    d.Width = c.w;
    d.Height = c.h;
    d.Depth = c.d;
    d.Format = CU_AD_FORMAT_UNSIGNED_INT16;
    d.NumChannels = 4;
    d.Flags = c.flags;
    CUarray a3;
    CU(cuArray3DCreate(&a3, &d));
    CUDA_ARRAY3D_DESCRIPTOR g = {};
    CU(cuArray3DGetDescriptor(&g, a3));
    EXPECT(g.Width == c.w && g.Height == c.h && g.Depth == c.d && g.Flags == c.flags &&
           g.Format == CU_AD_FORMAT_UNSIGNED_INT16 && g.NumChannels == 4);
    const size_t rows = c.h ? c.h : 1, R = c.w * 8;
    std::vector<unsigned char> src(R * rows * c.d), dst(src.size(), 0);
    fill(src, unsigned(c.w + c.d));
    CUDA_MEMCPY3D m = {};
    m.srcMemoryType = CU_MEMORYTYPE_HOST;
    m.srcHost = src.data();
    m.srcPitch = R;
    m.srcHeight = rows;
    m.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    m.dstArray = a3;
    m.WidthInBytes = R;
    m.Height = rows;
    m.Depth = c.d;
    CU(cuMemcpy3D(&m));
    CUDA_MEMCPY3D r = {};
    r.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    r.srcArray = a3;
    r.dstMemoryType = CU_MEMORYTYPE_HOST;
    r.dstHost = dst.data();
    r.dstPitch = R;
    r.dstHeight = rows;
    r.WidthInBytes = R;
    r.Height = rows;
    r.Depth = c.d;
    CU(cuMemcpy3DAsync(&r, 0));
    CU(cuCtxSynchronize());
    EXPECT(dst == src);
    // A level of detail is not a copy's to choose: levels are arrays.
    r.srcLOD = 1;
    EXPECT(cuMemcpy3D(&r) == CUDA_ERROR_INVALID_VALUE);
    CU(cuArrayDestroy(a3));
  }

  // A mipmapped 3D array: levels halve in every dimension.
  {
    CUDA_ARRAY3D_DESCRIPTOR d = {};
    d.Width = 16;
    d.Height = 8;
    d.Depth = 4;
    d.Format = CU_AD_FORMAT_FLOAT;
    d.NumChannels = 1;
    CUmipmappedArray m;
    CU(cuMipmappedArrayCreate(&m, &d, 5));
    const size_t w[5] = {16, 8, 4, 2, 1}, h[5] = {8, 4, 2, 1, 1}, dd[5] = {4, 2, 1, 1, 1};
    for (unsigned l = 0; l < 5; ++l) {
      CUarray level;
      CU(cuMipmappedArrayGetLevel(&level, m, l));
      CUDA_ARRAY3D_DESCRIPTOR g = {};
      CU(cuArray3DGetDescriptor(&g, level));
      EXPECT(g.Width == w[l] && g.Height == h[l] && g.Depth == dd[l]);
      std::vector<unsigned char> src(w[l] * 4 * h[l] * dd[l]), dst(src.size());
      fill(src, 20 + l);
      CU(cuMemcpyHtoA(level, 0, src.data(), src.size()));
      CU(cuMemcpyAtoH(dst.data(), level, 0, dst.size()));
      EXPECT(dst == src);
    }
    CUarray level;
    EXPECT(cuMipmappedArrayGetLevel(&level, m, 5) == CUDA_ERROR_INVALID_VALUE);
    CUDA_ARRAY_MEMORY_REQUIREMENTS req = {};
    CU(cuMipmappedArrayGetMemoryRequirements(&req, m, dev));
    EXPECT(req.size >= 16 * 8 * 4 * 4 && req.alignment > 0);

    // A texture over it, linear mipmap filtering, normalized coordinates, a view of level 1 on.
    CUDA_RESOURCE_DESC res = {};
    res.resType = CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
    res.res.mipmap.hMipmappedArray = m;
    CUDA_TEXTURE_DESC tex = {};
    tex.addressMode[0] = CU_TR_ADDRESS_MODE_WRAP;
    tex.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
    tex.addressMode[2] = CU_TR_ADDRESS_MODE_MIRROR;
    tex.filterMode = CU_TR_FILTER_MODE_LINEAR;
    tex.mipmapFilterMode = CU_TR_FILTER_MODE_LINEAR;
    tex.flags = CU_TRSF_NORMALIZED_COORDINATES;
    tex.maxMipmapLevelClamp = 4;
    CUDA_RESOURCE_VIEW_DESC view = {};
    view.format = CU_RES_VIEW_FORMAT_FLOAT_1X32;
    view.width = 16;
    view.height = 8;
    view.depth = 4;
    view.firstMipmapLevel = 1;
    view.lastMipmapLevel = 4;
    CUtexObject t;
    CU(cuTexObjectCreate(&t, &res, &tex, &view));
    CUDA_TEXTURE_DESC t2;
    memset(&t2, 0xff, sizeof t2);
    CU(cuTexObjectGetTextureDesc(&t2, t));
    EXPECT(t2.addressMode[0] == CU_TR_ADDRESS_MODE_WRAP &&
           t2.addressMode[2] == CU_TR_ADDRESS_MODE_MIRROR &&
           t2.filterMode == CU_TR_FILTER_MODE_LINEAR && t2.maxMipmapLevelClamp == 4 &&
           (t2.flags & CU_TRSF_NORMALIZED_COORDINATES));
    CUDA_RESOURCE_VIEW_DESC v2;
    CU(cuTexObjectGetResourceViewDesc(&v2, t));
    EXPECT(v2.firstMipmapLevel == 1 && v2.lastMipmapLevel == 4 && v2.depth == 4);
    CUDA_RESOURCE_DESC r2;
    CU(cuTexObjectGetResourceDesc(&r2, t));
    EXPECT(r2.resType == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY && r2.res.mipmap.hMipmappedArray == m);
    CU(cuTexObjectDestroy(t));
    CU(cuMipmappedArrayDestroy(m));
  }

  // Textures over linear and pitched memory: formats come back as given.
  {
    CUdeviceptr lin;
    CU(cuMemAlloc(&lin, 1 << 16));
    CUDA_RESOURCE_DESC res = {};
    res.resType = CU_RESOURCE_TYPE_LINEAR;
    res.res.linear.devPtr = lin;
    res.res.linear.format = CU_AD_FORMAT_SIGNED_INT8;
    res.res.linear.numChannels = 4;
    res.res.linear.sizeInBytes = 1 << 16;
    CUDA_TEXTURE_DESC tex = {};
    tex.flags = CU_TRSF_READ_AS_INTEGER;
    CUtexObject t;
    CU(cuTexObjectCreate(&t, &res, &tex, nullptr));
    CUDA_RESOURCE_DESC r2;
    CU(cuTexObjectGetResourceDesc(&r2, t));
    EXPECT(r2.resType == CU_RESOURCE_TYPE_LINEAR && r2.res.linear.devPtr == lin &&
           r2.res.linear.format == CU_AD_FORMAT_SIGNED_INT8 && r2.res.linear.numChannels == 4 &&
           r2.res.linear.sizeInBytes == 1 << 16);
    CUDA_TEXTURE_DESC t2;
    CU(cuTexObjectGetTextureDesc(&t2, t));
    EXPECT(t2.flags == CU_TRSF_READ_AS_INTEGER);
    CU(cuTexObjectDestroy(t));
    // Integers read as integers, filtered linearly: refused.
    tex.filterMode = CU_TR_FILTER_MODE_LINEAR;
    EXPECT(cuTexObjectCreate(&t, &res, &tex, nullptr) == CUDA_ERROR_INVALID_VALUE);
    // The driver's default reads 8-bit integers as normalized floats, which may be filtered.
    tex.flags = 0;
    CU(cuTexObjectCreate(&t, &res, &tex, nullptr));
    CU(cuTexObjectDestroy(t));

    res = {};
    res.resType = CU_RESOURCE_TYPE_PITCH2D;
    res.res.pitch2D.devPtr = lin;
    res.res.pitch2D.format = CU_AD_FORMAT_UNSIGNED_INT8;
    res.res.pitch2D.numChannels = 1;
    res.res.pitch2D.width = 200;
    res.res.pitch2D.height = 100;
    res.res.pitch2D.pitchInBytes = 256;
    tex = {};
    CU(cuTexObjectCreate(&t, &res, &tex, nullptr));
    CU(cuTexObjectGetResourceDesc(&r2, t));
    EXPECT(r2.res.pitch2D.width == 200 && r2.res.pitch2D.pitchInBytes == 256 &&
           r2.res.pitch2D.format == CU_AD_FORMAT_UNSIGNED_INT8);
    CU(cuTexObjectDestroy(t));
    EXPECT(cuTexObjectDestroy(t) == CUDA_ERROR_INVALID_VALUE);
    CU(cuMemFree(lin));

    size_t maxWidth = 0;
    CU(cuDeviceGetTexture1DLinearMaxWidth(&maxWidth, CU_AD_FORMAT_FLOAT, 4, dev));
    EXPECT(maxWidth >= 1 << 20);
  }

  // Surfaces: over arrays made with CUDA_ARRAY3D_SURFACE_LDST only.
  {
    CUDA_ARRAY3D_DESCRIPTOR d = {};
    d.Width = 64;
    d.Height = 32;
    d.Format = CU_AD_FORMAT_UNSIGNED_INT32;
    d.NumChannels = 1;
    d.Flags = CUDA_ARRAY3D_SURFACE_LDST;
    CUarray sa;
    CU(cuArray3DCreate(&sa, &d));
    CUDA_RESOURCE_DESC res = {};
    res.resType = CU_RESOURCE_TYPE_ARRAY;
    res.res.array.hArray = sa;
    CUsurfObject s;
    CU(cuSurfObjectCreate(&s, &res));
    CUDA_RESOURCE_DESC r2 = {};
    CU(cuSurfObjectGetResourceDesc(&r2, s));
    EXPECT(r2.resType == CU_RESOURCE_TYPE_ARRAY && r2.res.array.hArray == sa);
    CU(cuSurfObjectDestroy(s));
    res.res.array.hArray = a; // made without the flag
    EXPECT(cuSurfObjectCreate(&s, &res) == CUDA_ERROR_INVALID_VALUE);
    CU(cuArrayDestroy(sa));
  }

  // A kernel's output (y = scale[i % 4] * x + offset) into an array and back out of it.
  {
    CUmodule m;
    CU(cuModuleLoad(&m, besideExecutable("driver_kernels.ptx").c_str()));
    CUfunction f;
    CU(cuModuleGetFunction(&f, m, "scale_add"));
    CUdeviceptr gOffset, cScale;
    CU(cuModuleGetGlobal(&gOffset, nullptr, m, "g_offset"));
    CU(cuModuleGetGlobal(&cScale, nullptr, m, "c_scale"));
    const int offset = 5;
    const float scale[4] = {1.0f, -2.0f, 0.25f, 3.0f};
    CU(cuMemcpyHtoD(gOffset, &offset, sizeof offset));
    CU(cuMemcpyHtoD(cScale, scale, sizeof scale));
    int n = int(W * H); // the array's elements are 4 bytes, as a float
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i)
      x[i] = float(i % 97) - 40.0f;
    CUdeviceptr dx, dy;
    CU(cuMemAlloc(&dx, n * 4));
    CU(cuMemAlloc(&dy, n * 4));
    CU(cuMemcpyHtoD(dx, x.data(), n * 4));
    void *params[] = {&dx, &dy, &n};
    CU(cuLaunchKernel(f, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr));
    CU(cuMemcpyDtoA(a, 0, dy, n * 4));
    CU(cuMemsetD8(dy, 0, n * 4));
    CUDA_MEMCPY2D c = {};
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    c.srcArray = a;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
    c.dstDevice = dy;
    c.dstPitch = Row;
    c.WidthInBytes = Row;
    c.Height = H;
    CU(cuMemcpy2D(&c));
    CU(cuMemcpyDtoH(y.data(), dy, n * 4));
    for (int i = 0; i < n; ++i)
      EXPECT(y[i] == scale[i % 4] * x[i] + float(offset));
    CU(cuMemFree(dx));
    CU(cuMemFree(dy));
    CU(cuModuleUnload(m));
  }

  CU(cuArrayDestroy(a));
  EXPECT(cuArrayDestroy(a) == CUDA_ERROR_INVALID_HANDLE);
  CU(cuDevicePrimaryCtxRelease(dev));
  printf("PASS %s\n", kName);
  return 0;
}
