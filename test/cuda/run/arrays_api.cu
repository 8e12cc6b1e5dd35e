// arrays_api: CUDA arrays and the objects over them, as a program uses them, without sampling
// in a kernel: channel descriptions; 1D, 2D, 3D, layered, cube map and mipmapped arrays and
// what cudaArrayGetInfo says of them; every copy to and from arrays (2D, 1D in array order,
// array to array, 3D with positions in elements, asynchronous, captured into a graph) checked
// byte by byte after a round trip; texture objects over arrays, mipmapped arrays, linear and
// pitched memory, with a resource view, whose getters return what was set; surface objects;
// and the errors CUDA defines for bad descriptions. A kernel's output goes through an array.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

static const char *kName = "arrays_api";

#include "../check.h"

// cudaMemcpyToArray and friends are deprecated but exported: programs still call them.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

// A byte pattern that differs at every offset of a copy and between copies.
static void fill(std::vector<unsigned char> &V, unsigned Seed) {
  for (size_t I = 0; I < V.size(); ++I)
    V[I] = (unsigned char)(I * 131 + Seed * 17 + (I >> 8) * 7);
}

static bool sameDesc(const cudaChannelFormatDesc &A, const cudaChannelFormatDesc &B) {
  return A.x == B.x && A.y == B.y && A.z == B.z && A.w == B.w && A.f == B.f;
}

__global__ void ramp(float2 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = make_float2(i * 0.5f, -float(i));
}

int main() {
  // Channel descriptions: the template helpers and the explicit form agree.
  cudaChannelFormatDesc f4 = cudaCreateChannelDesc<float4>();
  EXPECT(f4.x == 32 && f4.y == 32 && f4.z == 32 && f4.w == 32 &&
         f4.f == cudaChannelFormatKindFloat);
  cudaChannelFormatDesc u8x2 = cudaCreateChannelDesc(8, 8, 0, 0, cudaChannelFormatKindUnsigned);
  EXPECT(sameDesc(u8x2, cudaCreateChannelDesc<uchar2>()));

  // Descriptions CUDA's arrays refuse: three channels, unequal channels, 8-bit floats, no kind.
  {
    cudaArray_t a = nullptr;
    cudaChannelFormatDesc bad = cudaCreateChannelDesc<float3>();
    EXPECT(cudaMallocArray(&a, &bad, 16, 16) == cudaErrorInvalidChannelDescriptor);
    EXPECT(cudaGetLastError() == cudaErrorInvalidChannelDescriptor);
    bad = cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindSigned);
    EXPECT(cudaMallocArray(&a, &bad, 16, 16) == cudaErrorInvalidChannelDescriptor);
    bad = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindFloat);
    EXPECT(cudaMallocArray(&a, &bad, 16, 16) == cudaErrorInvalidChannelDescriptor);
    bad = cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindNone);
    EXPECT(cudaMallocArray(&a, &bad, 16, 16) == cudaErrorInvalidChannelDescriptor);
    EXPECT(cudaMallocArray(&a, &f4, 0, 16) == cudaErrorInvalidValue);
    cudaGetLastError();
  }

  // A 2D array of float2: 37 x 19 texels of 8 bytes, rows 296 bytes.
  const size_t W = 37, H = 19, E2 = 8, Row = W * E2;
  cudaChannelFormatDesc f2 = cudaCreateChannelDesc<float2>();
  cudaArray_t a2 = nullptr, b2 = nullptr;
  CK(cudaMallocArray(&a2, &f2, W, H, cudaArraySurfaceLoadStore));
  CK(cudaMallocArray(&b2, &f2, W, H));
  {
    cudaChannelFormatDesc d;
    cudaExtent e;
    unsigned flags = 99;
    CK(cudaArrayGetInfo(&d, &e, &flags, a2));
    EXPECT(sameDesc(d, f2) && e.width == W && e.height == H && e.depth == 0 &&
           flags == cudaArraySurfaceLoadStore);
    CK(cudaGetChannelDesc(&d, b2));
    EXPECT(sameDesc(d, f2));
    cudaArrayMemoryRequirements req;
    CK(cudaArrayGetMemoryRequirements(&req, a2, 0));
    EXPECT(req.size >= Row * H && req.alignment > 0);
  }

  // 2D copies: a host image with its own pitch in, out again into another pitch.
  {
    const size_t HostPitch = Row + 24;
    std::vector<unsigned char> in(HostPitch * H), out(Row * H, 0);
    fill(in, 1);
    CK(cudaMemcpy2DToArray(a2, 0, 0, in.data(), HostPitch, Row, H, cudaMemcpyHostToDevice));
    CK(cudaMemcpy2DFromArray(out.data(), Row, a2, 0, 0, Row, H, cudaMemcpyDeviceToHost));
    for (size_t y = 0; y < H; ++y)
      EXPECT(memcmp(&out[y * Row], &in[y * HostPitch], Row) == 0);
    // A box at (3 texels, 4 rows) of 5 x 6 texels, through device memory (cudaMemcpyDefault).
    void *dev = nullptr;
    CK(cudaMalloc(&dev, 40 * 6));
    std::vector<unsigned char> box(40 * 6);
    fill(box, 2);
    CK(cudaMemcpy(dev, box.data(), box.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpy2DToArray(a2, 3 * E2, 4, dev, 40, 40, 6, cudaMemcpyDefault));
    CK(cudaMemcpy2DFromArray(out.data(), Row, a2, 0, 0, Row, H, cudaMemcpyDefault));
    for (size_t y = 0; y < H; ++y)
      for (size_t x = 0; x < Row; ++x) {
        bool inBox = y >= 4 && y < 10 && x >= 24 && x < 64;
        unsigned char want = inBox ? box[(y - 4) * 40 + x - 24] : in[y * HostPitch + x];
        EXPECT(out[y * Row + x] == want);
      }
    // Past the array's rows or columns: refused, nothing written.
    EXPECT(cudaMemcpy2DToArray(a2, 0, H - 2, in.data(), HostPitch, Row, 3,
                               cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    EXPECT(cudaMemcpy2DToArray(a2, 8, 0, in.data(), HostPitch, Row, 1, cudaMemcpyHostToDevice) ==
           cudaErrorInvalidValue);
    cudaGetLastError();

    // Array to array: all of a2 into b2, then a 2D box of b2 back over a2 elsewhere.
    CK(cudaMemcpyArrayToArray(b2, 0, 0, a2, 0, 0, Row * H, cudaMemcpyDeviceToDevice));
    std::vector<unsigned char> outB(Row * H);
    CK(cudaMemcpy2DFromArray(outB.data(), Row, b2, 0, 0, Row, H, cudaMemcpyDeviceToHost));
    EXPECT(outB == out);
    CK(cudaMemcpy2DArrayToArray(a2, 0, 0, b2, 16, 5, 32, 3, cudaMemcpyDeviceToDevice));
    CK(cudaMemcpy2DFromArray(outB.data(), Row, a2, 0, 0, Row, H, cudaMemcpyDeviceToHost));
    for (size_t y = 0; y < H; ++y)
      for (size_t x = 0; x < Row; ++x) {
        unsigned char want = y < 3 && x < 32 ? out[(y + 5) * Row + x + 16] : out[y * Row + x];
        EXPECT(outB[y * Row + x] == want);
      }
    // 1D copies in array order run on across rows: 1000 bytes from (5 bytes, row 2).
    std::vector<unsigned char> run(1000), back(1000);
    fill(run, 3);
    CK(cudaMemcpyToArray(b2, 5, 2, run.data(), run.size(), cudaMemcpyHostToDevice));
    CK(cudaMemcpyFromArray(back.data(), b2, 5, 2, back.size(), cudaMemcpyDeviceToHost));
    EXPECT(back == run);
    CK(cudaMemcpy2DFromArray(outB.data(), Row, b2, 0, 0, Row, H, cudaMemcpyDeviceToHost));
    EXPECT(memcmp(&outB[2 * Row + 5], run.data(), run.size()) == 0);
    EXPECT(outB[2 * Row + 4] == out[2 * Row + 4] && outB[2 * Row + 1005] == out[2 * Row + 1005]);
    EXPECT(cudaMemcpyToArray(b2, 0, H - 1, run.data(), Row + 1, cudaMemcpyHostToDevice) ==
           cudaErrorInvalidValue);
    cudaGetLastError();

    // Asynchronous on a stream, and captured into a graph launched twice.
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    std::vector<unsigned char> in2(Row * H), out2(Row * H);
    fill(in2, 4);
    CK(cudaMemcpy2DToArrayAsync(b2, 0, 0, in2.data(), Row, Row, H, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpy2DFromArrayAsync(out2.data(), Row, b2, 0, 0, Row, H, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    EXPECT(out2 == in2);
    cudaGraph_t g;
    cudaGraphExec_t x;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CK(cudaMemcpy2DToArrayAsync(a2, 0, 0, in2.data(), Row, Row, H, cudaMemcpyHostToDevice, s));
    cudaMemcpy3DParms ab = {};
    ab.srcArray = a2;
    ab.dstArray = b2;
    ab.extent = make_cudaExtent(W, H, 1);
    ab.kind = cudaMemcpyDeviceToDevice;
    CK(cudaMemcpy3DAsync(&ab, s));
    CK(cudaStreamEndCapture(s, &g));
    size_t nodes = 0;
    CK(cudaGraphGetNodes(g, nullptr, &nodes));
    EXPECT(nodes == 2);
    CK(cudaGraphInstantiate(&x, g, 0));
    // Until the graph runs, b2 holds something else.
    CK(cudaMemcpy2DToArray(b2, 0, 0, in.data(), HostPitch, Row, H, cudaMemcpyHostToDevice));
    CK(cudaGraphLaunch(x, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy2DFromArray(out2.data(), Row, b2, 0, 0, Row, H, cudaMemcpyDeviceToHost));
    EXPECT(out2 == in2);
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
    // A memcpy node made with an array: host to a2, with positions and extent in elements.
    CK(cudaGraphCreate(&g, 0));
    cudaMemcpy3DParms np = {};
    np.srcPtr = make_cudaPitchedPtr(in.data(), HostPitch, W, H);
    np.srcPos = make_cudaPos(1, 1, 0); // x in the array's elements: one texel, one row
    np.dstArray = a2;
    np.dstPos = make_cudaPos(2, 3, 0); // texels
    np.extent = make_cudaExtent(W - 4, H - 5, 1);
    np.kind = cudaMemcpyHostToDevice;
    cudaGraphNode_t node;
    CK(cudaGraphAddMemcpyNode(&node, g, nullptr, 0, &np));
    CK(cudaGraphInstantiate(&x, g, 0));
    CK(cudaGraphLaunch(x, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy2DFromArray(out2.data(), Row, a2, 0, 0, Row, H, cudaMemcpyDeviceToHost));
    for (size_t y = 0; y < H; ++y)
      for (size_t x = 0; x < W; ++x) {
        bool inBox = x >= 2 && x < W - 2 && y >= 3 && y < H - 2;
        const unsigned char *want =
            inBox ? &in[(y - 3 + 1) * HostPitch + (x - 2) * E2 + 8] : &in2[y * Row + x * E2];
        EXPECT(memcmp(&out2[y * Row + x * E2], want, E2) == 0);
      }
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(dev));
  }

  // A 3D array of ushort4 (8 bytes), 13 x 7 x 5, and cudaMemcpy3D with positions in elements.
  {
    cudaChannelFormatDesc u4 = cudaCreateChannelDesc<ushort4>();
    const cudaExtent e = make_cudaExtent(13, 7, 5);
    cudaArray_t a3;
    CK(cudaMalloc3DArray(&a3, &u4, e));
    cudaExtent got;
    CK(cudaArrayGetInfo(nullptr, &got, nullptr, a3));
    EXPECT(got.width == 13 && got.height == 7 && got.depth == 5);
    const size_t R = 13 * 8, HostPitch = R + 8;
    std::vector<unsigned char> in(HostPitch * 7 * 5), out(R * 7 * 5, 0);
    fill(in, 5);
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(in.data(), HostPitch, 13, 7);
    p.dstArray = a3;
    p.extent = e;
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&p));
    cudaMemcpy3DParms q = {};
    q.srcArray = a3;
    q.dstPtr = make_cudaPitchedPtr(out.data(), R, 13, 7);
    q.extent = e;
    q.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&q));
    for (size_t z = 0; z < 5; ++z)
      for (size_t y = 0; y < 7; ++y)
        EXPECT(memcmp(&out[(z * 7 + y) * R], &in[(z * 7 + y) * HostPitch], R) == 0);
    // A 4 x 3 x 2 box of the array at (2, 1, 3) to a packed host box.
    std::vector<unsigned char> box(4 * 8 * 3 * 2);
    cudaMemcpy3DParms b = {};
    b.srcArray = a3;
    b.srcPos = make_cudaPos(2, 1, 3);
    b.dstPtr = make_cudaPitchedPtr(box.data(), 32, 4, 3);
    b.extent = make_cudaExtent(4, 3, 2);
    b.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&b));
    for (size_t z = 0; z < 2; ++z)
      for (size_t y = 0; y < 3; ++y)
        EXPECT(memcmp(&box[(z * 3 + y) * 32], &in[((z + 3) * 7 + y + 1) * HostPitch + 16], 32) ==
               0);
    // Past the array's depth: refused.
    b.srcPos = make_cudaPos(0, 0, 4);
    EXPECT(cudaMemcpy3D(&b) == cudaErrorInvalidValue);
    cudaGetLastError();
    // Asynchronous, array to array.
    cudaArray_t c3;
    CK(cudaMalloc3DArray(&c3, &u4, e));
    cudaMemcpy3DParms aa = {};
    aa.srcArray = a3;
    aa.dstArray = c3;
    aa.extent = e;
    aa.kind = cudaMemcpyDeviceToDevice;
    CK(cudaMemcpy3DAsync(&aa, 0));
    q.srcArray = c3;
    std::fill(out.begin(), out.end(), 0);
    CK(cudaMemcpy3D(&q));
    for (size_t z = 0; z < 5; ++z)
      for (size_t y = 0; y < 7; ++y)
        EXPECT(memcmp(&out[(z * 7 + y) * R], &in[(z * 7 + y) * HostPitch], R) == 0);
    CK(cudaFreeArray(c3));
    CK(cudaFreeArray(a3));
  }

  // Layered, cube map and layered cube map arrays of float: info and full round trips.
  struct Case {
    cudaExtent e;
    unsigned flags;
  } cases[] = {
      {make_cudaExtent(33, 0, 4), cudaArrayLayered},
      {make_cudaExtent(17, 9, 3), cudaArrayLayered | cudaArraySurfaceLoadStore},
      {make_cudaExtent(8, 8, 6), cudaArrayCubemap},
      {make_cudaExtent(8, 8, 12), cudaArrayCubemap | cudaArrayLayered},
  };
  cudaChannelFormatDesc f1 = cudaCreateChannelDesc<float>();
  for (const Case &c : cases) {
    cudaArray_t a;
    CK(cudaMalloc3DArray(&a, &f1, c.e, c.flags));
    cudaExtent got;
    unsigned flags;
    CK(cudaArrayGetInfo(nullptr, &got, &flags, a));
    EXPECT(got.width == c.e.width && got.height == c.e.height && got.depth == c.e.depth &&
           flags == c.flags);
    const size_t rows = c.e.height ? c.e.height : 1, R = c.e.width * 4;
    std::vector<unsigned char> in(R * rows * c.e.depth), out(in.size(), 0);
    fill(in, unsigned(c.e.width));
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(in.data(), R, c.e.width, rows);
    p.dstArray = a;
    p.extent = make_cudaExtent(c.e.width, rows, c.e.depth);
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&p));
    cudaMemcpy3DParms q = {};
    q.srcArray = a;
    q.dstPtr = make_cudaPitchedPtr(out.data(), R, c.e.width, rows);
    q.extent = p.extent;
    q.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&q));
    EXPECT(out == in);
    CK(cudaFreeArray(a));
  }
  {
    // Cube maps need square faces, 6 per layer; gather is for 2D arrays.
    cudaArray_t a;
    EXPECT(cudaMalloc3DArray(&a, &f1, make_cudaExtent(8, 4, 6), cudaArrayCubemap) ==
           cudaErrorInvalidValue);
    EXPECT(cudaMalloc3DArray(&a, &f1, make_cudaExtent(8, 8, 7),
                             cudaArrayCubemap | cudaArrayLayered) == cudaErrorInvalidValue);
    EXPECT(cudaMalloc3DArray(&a, &f1, make_cudaExtent(8, 8, 2), cudaArrayTextureGather) ==
           cudaErrorInvalidValue);
    CK(cudaMalloc3DArray(&a, &f1, make_cudaExtent(8, 8, 0), cudaArrayTextureGather));
    CK(cudaFreeArray(a));
    cudaGetLastError();
  }

  // A mipmapped 2D array of uchar4: 40 x 24, levels clamped to 1 + log2(40) = 6.
  cudaMipmappedArray_t mip = nullptr;
  cudaChannelFormatDesc c4 = cudaCreateChannelDesc<uchar4>();
  CK(cudaMallocMipmappedArray(&mip, &c4, make_cudaExtent(40, 24, 0), 10));
  {
    const unsigned widths[6] = {40, 20, 10, 5, 2, 1}, heights[6] = {24, 12, 6, 3, 1, 1};
    for (unsigned l = 0; l < 6; ++l) {
      cudaArray_t level;
      CK(cudaGetMipmappedArrayLevel(&level, mip, l));
      cudaExtent e;
      CK(cudaArrayGetInfo(nullptr, &e, nullptr, level));
      EXPECT(e.width == widths[l] && e.height == heights[l] && e.depth == 0);
      // Each level its own bytes: write all levels, then read them all back.
      std::vector<unsigned char> in(widths[l] * 4 * heights[l]);
      fill(in, 10 + l);
      CK(cudaMemcpy2DToArray(level, 0, 0, in.data(), widths[l] * 4, widths[l] * 4, heights[l],
                             cudaMemcpyHostToDevice));
    }
    for (unsigned l = 0; l < 6; ++l) {
      cudaArray_t level;
      CK(cudaGetMipmappedArrayLevel(&level, mip, l));
      std::vector<unsigned char> in(widths[l] * 4 * heights[l]), out(in.size());
      fill(in, 10 + l);
      CK(cudaMemcpy2DFromArray(out.data(), widths[l] * 4, level, 0, 0, widths[l] * 4, heights[l],
                               cudaMemcpyDeviceToHost));
      EXPECT(out == in);
    }
    cudaArray_t level;
    EXPECT(cudaGetMipmappedArrayLevel(&level, mip, 6) == cudaErrorInvalidValue);
    cudaGetLastError();
    cudaArrayMemoryRequirements req;
    CK(cudaMipmappedArrayGetMemoryRequirements(&req, mip, 0));
    EXPECT(req.size >= 40 * 24 * 4 + 20 * 12 * 4);
    // A level belongs to its mipmapped array: not freed on its own.
    CK(cudaGetMipmappedArrayLevel(&level, mip, 1));
    EXPECT(cudaFreeArray(level) != cudaSuccess);
    cudaGetLastError();
  }

  // Texture objects: over an array, getters return what was set.
  {
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = a2;
    cudaTextureDesc tex = {};
    tex.addressMode[0] = cudaAddressModeWrap;
    tex.addressMode[1] = cudaAddressModeMirror;
    tex.addressMode[2] = cudaAddressModeClamp;
    tex.filterMode = cudaFilterModeLinear;
    tex.readMode = cudaReadModeElementType;
    tex.normalizedCoords = 1;
    tex.maxAnisotropy = 4;
    cudaTextureObject_t t = 0;
    CK(cudaCreateTextureObject(&t, &res, &tex, nullptr));
    EXPECT(t != 0 && t % 64 == 0);
    cudaResourceDesc r2;
    memset(&r2, 0xff, sizeof r2);
    CK(cudaGetTextureObjectResourceDesc(&r2, t));
    EXPECT(r2.resType == cudaResourceTypeArray && r2.res.array.array == a2);
    cudaTextureDesc t2;
    memset(&t2, 0xff, sizeof t2);
    CK(cudaGetTextureObjectTextureDesc(&t2, t));
    EXPECT(t2.addressMode[0] == cudaAddressModeWrap && t2.addressMode[1] == cudaAddressModeMirror &&
           t2.filterMode == cudaFilterModeLinear && t2.normalizedCoords == 1 &&
           t2.maxAnisotropy == 4 && t2.readMode == cudaReadModeElementType);
    CK(cudaDestroyTextureObject(t));
    EXPECT(cudaGetTextureObjectTextureDesc(&t2, t) != cudaSuccess);
    cudaGetLastError();

    // Over the mipmapped array with a view of levels 1 to 3.
    res.resType = cudaResourceTypeMipmappedArray;
    res.res.mipmap.mipmap = mip;
    tex = {};
    tex.filterMode = cudaFilterModeLinear;
    tex.mipmapFilterMode = cudaFilterModeLinear;
    tex.readMode = cudaReadModeNormalizedFloat;
    tex.normalizedCoords = 1;
    tex.maxMipmapLevelClamp = 5;
    cudaResourceViewDesc view = {};
    view.format = cudaResViewFormatUnsignedChar4;
    view.width = 40;
    view.height = 24;
    view.firstMipmapLevel = 1;
    view.lastMipmapLevel = 3;
    CK(cudaCreateTextureObject(&t, &res, &tex, &view));
    cudaResourceViewDesc v2;
    CK(cudaGetTextureObjectResourceViewDesc(&v2, t));
    EXPECT(v2.format == cudaResViewFormatUnsignedChar4 && v2.firstMipmapLevel == 1 &&
           v2.lastMipmapLevel == 3 && v2.width == 40);
    CK(cudaGetTextureObjectTextureDesc(&t2, t));
    EXPECT(t2.mipmapFilterMode == cudaFilterModeLinear && t2.maxMipmapLevelClamp == 5);
    CK(cudaDestroyTextureObject(t));
    view.lastMipmapLevel = 6; // past the levels
    EXPECT(cudaCreateTextureObject(&t, &res, &tex, &view) == cudaErrorInvalidValue);
    view.lastMipmapLevel = 3;
    view.format = cudaResViewFormatFloat2; // 8-byte texels over 4-byte ones
    EXPECT(cudaCreateTextureObject(&t, &res, &tex, &view) == cudaErrorInvalidValue);
    cudaGetLastError();

    // Over linear memory (tex1Dfetch) and pitched memory.
    void *lin = nullptr;
    CK(cudaMalloc(&lin, 4096));
    res = {};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = lin;
    res.res.linear.desc = cudaCreateChannelDesc<int>();
    res.res.linear.sizeInBytes = 4096;
    tex = {};
    tex.readMode = cudaReadModeElementType;
    CK(cudaCreateTextureObject(&t, &res, &tex, nullptr));
    CK(cudaGetTextureObjectResourceDesc(&r2, t));
    EXPECT(r2.resType == cudaResourceTypeLinear && r2.res.linear.devPtr == lin &&
           r2.res.linear.sizeInBytes == 4096 && sameDesc(r2.res.linear.desc, res.res.linear.desc));
    CK(cudaDestroyTextureObject(t));
    // Integers filtered linearly or 32-bit integers read as normalized floats: CUDA's errors.
    tex.filterMode = cudaFilterModeLinear;
    EXPECT(cudaCreateTextureObject(&t, &res, &tex, nullptr) == cudaErrorInvalidFilterSetting);
    tex.filterMode = cudaFilterModePoint;
    tex.readMode = cudaReadModeNormalizedFloat;
    EXPECT(cudaCreateTextureObject(&t, &res, &tex, nullptr) == cudaErrorInvalidNormSetting);
    // A misaligned pointer, a view of linear memory.
    tex.readMode = cudaReadModeElementType;
    res.res.linear.devPtr = (char *)lin + 4;
    EXPECT(cudaCreateTextureObject(&t, &res, &tex, nullptr) == cudaErrorInvalidValue);
    res.res.linear.devPtr = lin;
    EXPECT(cudaCreateTextureObject(&t, &res, &tex, &view) == cudaErrorInvalidValue);
    cudaGetLastError();

    void *pitched = nullptr;
    size_t pitch = 0;
    CK(cudaMallocPitch(&pitched, &pitch, 100 * sizeof(float), 30));
    res = {};
    res.resType = cudaResourceTypePitch2D;
    res.res.pitch2D.devPtr = pitched;
    res.res.pitch2D.desc = f1;
    res.res.pitch2D.width = 100;
    res.res.pitch2D.height = 30;
    res.res.pitch2D.pitchInBytes = pitch;
    tex = {};
    tex.filterMode = cudaFilterModeLinear;
    tex.addressMode[0] = tex.addressMode[1] = cudaAddressModeBorder;
    CK(cudaCreateTextureObject(&t, &res, &tex, nullptr));
    CK(cudaGetTextureObjectResourceDesc(&r2, t));
    EXPECT(r2.resType == cudaResourceTypePitch2D && r2.res.pitch2D.pitchInBytes == pitch &&
           r2.res.pitch2D.width == 100 && r2.res.pitch2D.height == 30);
    CK(cudaDestroyTextureObject(t));
    res.res.pitch2D.pitchInBytes = 100 * sizeof(float) - 4; // narrower than a row
    EXPECT(cudaCreateTextureObject(&t, &res, &tex, nullptr) == cudaErrorInvalidValue);
    cudaGetLastError();
    CK(cudaFree(pitched));
    CK(cudaFree(lin));
  }

  // Surface objects: over arrays made for load and store only.
  {
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = a2;
    cudaSurfaceObject_t s = 0;
    CK(cudaCreateSurfaceObject(&s, &res));
    EXPECT(s != 0);
    cudaResourceDesc r2 = {};
    CK(cudaGetSurfaceObjectResourceDesc(&r2, s));
    EXPECT(r2.resType == cudaResourceTypeArray && r2.res.array.array == a2);
    // Not a texture object.
    cudaTextureDesc td;
    EXPECT(cudaGetTextureObjectTextureDesc(&td, s) != cudaSuccess);
    CK(cudaDestroySurfaceObject(s));
    res.res.array.array = b2;
    EXPECT(cudaCreateSurfaceObject(&s, &res) == cudaErrorInvalidValue);
    cudaGetLastError();
  }

  // Device limits agree with what arrays may be.
  {
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    EXPECT(prop.maxTexture2D[0] > 0 && prop.maxTexture3D[2] > 0 && prop.maxSurface2D[0] > 0);
    int attr = 0;
    CK(cudaDeviceGetAttribute(&attr, cudaDevAttrMaxTexture2DWidth, 0));
    EXPECT(attr == prop.maxTexture2D[0]);
    cudaArray_t a;
    EXPECT(cudaMallocArray(&a, &f1, size_t(prop.maxTexture2D[0]) + 1, 4) == cudaErrorInvalidValue);
    cudaGetLastError();
    // The limits themselves are arrays the device makes.
    CK(cudaMallocArray(&a, &f1, size_t(prop.maxTexture1D)));
    CK(cudaFreeArray(a));
    CK(cudaMalloc3DArray(&a, &f1, make_cudaExtent(4, 0, size_t(prop.maxTexture1DLayered[1])),
                         cudaArrayLayered));
    CK(cudaFreeArray(a));
    EXPECT(cudaMalloc3DArray(&a, &f1,
                             make_cudaExtent(4, 0, size_t(prop.maxTexture1DLayered[1]) + 1),
                             cudaArrayLayered) == cudaErrorInvalidValue);
    CK(cudaMalloc3DArray(&a, &f1, make_cudaExtent(2, 2, size_t(prop.maxTexture3D[2]))));
    CK(cudaFreeArray(a));
    cudaGetLastError();
    size_t maxWidth = 0;
    CK(cudaDeviceGetTexture1DLinearMaxWidth(&maxWidth, &f1, 0));
    EXPECT(maxWidth >= 1 << 20);
  }

  // A kernel's output into the 2D array, and back out through device memory.
  {
    const int n = int(W * H);
    float2 *d = nullptr;
    CK(cudaMalloc(&d, n * sizeof(float2)));
    ramp<<<(n + 127) / 128, 128>>>(d, n);
    CK(cudaGetLastError());
    CK(cudaMemcpy2DToArray(a2, 0, 0, d, Row, Row, H, cudaMemcpyDeviceToDevice));
    CK(cudaMemset(d, 0, n * sizeof(float2)));
    CK(cudaMemcpy2DFromArray(d, Row, a2, 0, 0, Row, H, cudaMemcpyDeviceToDevice));
    std::vector<float2> host(n);
    CK(cudaMemcpy(host.data(), d, n * sizeof(float2), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
      EXPECT(host[i].x == i * 0.5f && host[i].y == -float(i));
    CK(cudaFree(d));
  }

  CK(cudaFreeMipmappedArray(mip));
  CK(cudaFreeArray(b2));
  CK(cudaFreeArray(a2));
  EXPECT(cudaFreeArray(a2) == cudaErrorInvalidResourceHandle);
  cudaGetLastError();
  printf("PASS %s\n", kName);
  return 0;
}
