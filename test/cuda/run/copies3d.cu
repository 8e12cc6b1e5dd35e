// copies3d: 3D copies and sets of linear memory as a program uses them: cudaMalloc3D, then
// cudaMemcpy3D host to device, device to device and device to host between boxes of different
// pitches, slice heights and positions, cudaMemset3D on a sub-box, a kernel over the pitched
// memory, the asynchronous forms on a stream, cudaMemcpy3DPeer and cudaMemcpyPeer on device 0,
// batches (cudaMemcpyBatchAsync, cudaMemcpy3DBatchAsync), and a 3D copy and a batch captured into
// a graph. Every byte is checked against a model of the memories on the CPU. A handle that is
// no CUDA array is refused (arrays have their own program, arrays_api).
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include <vector>

static const char *kName = "copies3d";

#include "../check.h"

// A memory of depth slices of ysize rows of pitch bytes, as the program sees it.
struct Model {
  size_t pitch, ysize, depth;
  std::vector<unsigned char> bytes;
  Model(size_t p, size_t y, size_t d, unsigned char fill)
      : pitch(p), ysize(y), depth(d), bytes(p * y * d, fill) {}
  unsigned char &at(size_t x, size_t y, size_t z) { return bytes[(z * ysize + y) * pitch + x]; }
};

static void modelCopy(Model &dst, cudaPos dp, Model &src, cudaPos sp, cudaExtent e) {
  for (size_t z = 0; z < e.depth; ++z)
    for (size_t y = 0; y < e.height; ++y)
      for (size_t x = 0; x < e.width; ++x)
        dst.at(dp.x + x, dp.y + y, dp.z + z) = src.at(sp.x + x, sp.y + y, sp.z + z);
}

static void modelSet(Model &dst, cudaPos p, cudaExtent e, unsigned char v) {
  for (size_t z = 0; z < e.depth; ++z)
    for (size_t y = 0; y < e.height; ++y)
      for (size_t x = 0; x < e.width; ++x)
        dst.at(p.x + x, p.y + y, p.z + z) = v;
}

// Adds z + 1 to every byte of a width x height x depth box of pitched memory.
__global__ void bump(cudaPitchedPtr p, int width, int height, int depth) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
  if (x < width && y < height && z < depth) {
    unsigned char *row = (unsigned char *)p.ptr + (z * p.ysize + y) * p.pitch;
    row[x] += (unsigned char)(z + 1);
  }
}

// Reads device memory back through a tightly packed host copy and compares the box of it.
static int checkDevice(const char *what, cudaPitchedPtr d, Model &m, cudaExtent e) {
  std::vector<unsigned char> host(e.width * e.height * e.depth);
  cudaMemcpy3DParms p = {};
  p.srcPtr = d;
  p.dstPtr = make_cudaPitchedPtr(host.data(), e.width, e.width, e.height);
  p.extent = e;
  p.kind = cudaMemcpyDeviceToHost;
  CK(cudaMemcpy3D(&p));
  for (size_t z = 0; z < e.depth; ++z)
    for (size_t y = 0; y < e.height; ++y)
      for (size_t x = 0; x < e.width; ++x) {
        unsigned char got = host[(z * e.height + y) * e.width + x], want = m.at(x, y, z);
        if (got != want) {
          printf("FAIL %s: %s: byte (%zu, %zu, %zu) is %d, not %d\n", kName, what, x, y, z, got,
                 want);
          return 1;
        }
      }
  return 0;
}

static int checkHost(const char *what, const unsigned char *host, Model &m) {
  for (size_t i = 0; i < m.bytes.size(); ++i)
    if (host[i] != m.bytes[i]) {
      printf("FAIL %s: %s: host byte %zu is %d, not %d\n", kName, what, i, host[i], m.bytes[i]);
      return 1;
    }
  return 0;
}

int main() {
  // The device allocation: 100 x 23 x 7 bytes, rows padded by cudaMalloc3D.
  const cudaExtent devExtent = make_cudaExtent(100, 23, 7);
  cudaPitchedPtr dev;
  CK(cudaMalloc3D(&dev, devExtent));
  EXPECT(dev.ptr && dev.pitch >= 100 && dev.xsize == 100 && dev.ysize == 23);
  Model mDev(dev.pitch, dev.ysize, devExtent.depth, 0);

  // Everything set, then a box from pageable host memory of its own pitch and slice height.
  CK(cudaMemset3D(dev, 0xee, devExtent));
  modelSet(mDev, make_cudaPos(0, 0, 0), devExtent, 0xee);
  Model mHost(130, 29, 9, 0);
  for (size_t i = 0; i < mHost.bytes.size(); ++i)
    mHost.bytes[i] = (unsigned char)(i * 7 + i / 131);
  {
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(mHost.bytes.data(), 130, 130, 29);
    p.srcPos = make_cudaPos(5, 3, 1);
    p.dstPtr = dev;
    p.dstPos = make_cudaPos(11, 4, 2);
    p.extent = make_cudaExtent(60, 15, 5);
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&p));
    modelCopy(mDev, p.dstPos, mHost, p.srcPos, p.extent);
  }
  if (checkDevice("host to device", dev, mDev, devExtent))
    return 1;

  // A sub-box set through a pitched pointer to its corner.
  {
    const cudaPos at = make_cudaPos(20, 6, 3);
    const cudaExtent box = make_cudaExtent(30, 8, 3);
    char *corner = (char *)dev.ptr + (at.z * dev.ysize + at.y) * dev.pitch + at.x;
    CK(cudaMemset3D(make_cudaPitchedPtr(corner, dev.pitch, dev.xsize, dev.ysize), 0x5a, box));
    modelSet(mDev, at, box, 0x5a);
  }
  if (checkDevice("memset of a sub-box", dev, mDev, devExtent))
    return 1;

  // A kernel over the pitched memory.
  bump<<<dim3(1, 23, 7), 128>>>(dev, 100, 23, 7);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  for (size_t z = 0; z < 7; ++z)
    for (size_t y = 0; y < 23; ++y)
      for (size_t x = 0; x < 100; ++x)
        mDev.at(x, y, z) += (unsigned char)(z + 1);
  if (checkDevice("kernel", dev, mDev, devExtent))
    return 1;

  // Device to device, into linear memory pitched by the program: 96-byte rows, 21 per slice.
  const cudaExtent dev2Extent = make_cudaExtent(80, 21, 6);
  void *raw2 = nullptr;
  CK(cudaMalloc(&raw2, 96 * 21 * 6));
  cudaPitchedPtr dev2 = make_cudaPitchedPtr(raw2, 96, 80, 21);
  Model mDev2(96, 21, 6, 0);
  CK(cudaMemset3D(dev2, 0x11, dev2Extent));
  modelSet(mDev2, make_cudaPos(0, 0, 0), dev2Extent, 0x11);
  {
    cudaMemcpy3DParms p = {};
    p.srcPtr = dev;
    p.srcPos = make_cudaPos(7, 2, 1);
    p.dstPtr = dev2;
    p.dstPos = make_cudaPos(3, 1, 0);
    p.extent = make_cudaExtent(70, 18, 5);
    p.kind = cudaMemcpyDeviceToDevice;
    CK(cudaMemcpy3D(&p));
    modelCopy(mDev2, p.dstPos, mDev, p.srcPos, p.extent);
  }
  if (checkDevice("device to device", dev2, mDev2, dev2Extent))
    return 1;

  // Asynchronous forms on a stream: a set, a peer copy on device 0, then all of dev2 into pinned
  // host memory with its own pitch, whose padding the copy leaves alone.
  cudaStream_t s;
  CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  {
    const cudaPos at = make_cudaPos(40, 10, 2);
    const cudaExtent box = make_cudaExtent(25, 9, 4);
    char *corner = (char *)dev2.ptr + (at.z * 21 + at.y) * 96 + at.x;
    CK(cudaMemset3DAsync(make_cudaPitchedPtr(corner, 96, 80, 21), 0xa7, box, s));
    modelSet(mDev2, at, box, 0xa7);

    cudaMemcpy3DPeerParms pp = {};
    pp.srcPtr = dev;
    pp.srcDevice = 0;
    pp.srcPos = make_cudaPos(90, 20, 6);
    pp.dstPtr = dev2;
    pp.dstDevice = 0;
    pp.dstPos = make_cudaPos(0, 0, 5);
    pp.extent = make_cudaExtent(10, 3, 1);
    CK(cudaMemcpy3DPeerAsync(&pp, s));
    modelCopy(mDev2, pp.dstPos, mDev, pp.srcPos, pp.extent);
  }
  unsigned char *pinned = nullptr;
  const size_t hostPitch = 90;
  CK(cudaMallocHost(&pinned, hostPitch * 21 * 6));
  memset(pinned, 0xcc, hostPitch * 21 * 6);
  Model mPinned(hostPitch, 21, 6, 0xcc);
  {
    cudaMemcpy3DParms p = {};
    p.srcPtr = dev2;
    p.dstPtr = make_cudaPitchedPtr(pinned, hostPitch, 80, 21);
    p.extent = dev2Extent;
    p.kind = cudaMemcpyDefault;
    CK(cudaMemcpy3DAsync(&p, s));
    modelCopy(mPinned, make_cudaPos(0, 0, 0), mDev2, make_cudaPos(0, 0, 0), dev2Extent);
  }
  CK(cudaStreamSynchronize(s));
  if (checkHost("asynchronous device to host", pinned, mPinned))
    return 1;

  // The synchronous peer copy of a box, and peer copies of linear memory.
  {
    cudaMemcpy3DPeerParms pp = {};
    pp.srcPtr = dev2;
    pp.srcPos = make_cudaPos(1, 1, 1);
    pp.dstPtr = dev;
    pp.dstPos = make_cudaPos(0, 0, 0);
    pp.extent = make_cudaExtent(64, 4, 2);
    CK(cudaMemcpy3DPeer(&pp));
    modelCopy(mDev, pp.dstPos, mDev2, pp.srcPos, pp.extent);
  }
  if (checkDevice("3D peer copy", dev, mDev, devExtent))
    return 1;
  const size_t linearBytes = 96 * 21 * 6;
  void *dev3 = nullptr;
  CK(cudaMalloc(&dev3, linearBytes));
  CK(cudaMemcpyPeer(dev3, 0, dev2.ptr, 0, linearBytes));
  std::vector<unsigned char> back(linearBytes);
  CK(cudaMemcpyPeerAsync(back.data(), 0, dev3, 0, linearBytes, s));
  CK(cudaStreamSynchronize(s));
  if (checkHost("peer copies", back.data(), mDev2))
    return 1;
  EXPECT(cudaMemcpyPeer(dev3, 1, dev2.ptr, 0, 16) == cudaErrorInvalidDevice);
  EXPECT(cudaGetLastError() == cudaErrorInvalidDevice);

  // A batch: host to device, device to device, device to host, with two sets of attributes.
  {
    std::vector<int> in(1000), out(1000, -1);
    for (int i = 0; i < 1000; ++i)
      in[i] = i * i - 5;
    int *a = nullptr, *b = nullptr;
    CK(cudaMalloc(&a, 1000 * sizeof(int)));
    CK(cudaMalloc(&b, 1000 * sizeof(int)));
    void *dsts[3] = {a, b, out.data()};
    const void *srcs[3] = {in.data(), a, b};
    size_t sizes[3] = {1000 * sizeof(int), 1000 * sizeof(int), 1000 * sizeof(int)};
    cudaMemcpyAttributes attrs[2] = {};
    attrs[0].srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    attrs[1].srcAccessOrder = cudaMemcpySrcAccessOrderDuringApiCall;
    size_t attrsIdxs[2] = {0, 2};
    CK(cudaMemcpyBatchAsync(dsts, srcs, sizes, 3, attrs, attrsIdxs, 2, s));
    CK(cudaStreamSynchronize(s));
    for (int i = 0; i < 1000; ++i)
      EXPECT(out[i] == in[i]);
    // The first attribute must apply from copy 0.
    attrsIdxs[0] = 1;
    EXPECT(cudaMemcpyBatchAsync(dsts, srcs, sizes, 3, attrs, attrsIdxs, 2, s) ==
           cudaErrorInvalidValue);
    CK(cudaGetLastError() == cudaErrorInvalidValue ? cudaSuccess : cudaErrorUnknown);
    CK(cudaFree(a));
    CK(cudaFree(b));
  }

  // Captured into a graph, a 3D copy and a batch copy when the graph runs (pinned host memory,
  // as capture asks).
  {
    unsigned char *src = nullptr, *dst = nullptr, *d = nullptr;
    CK(cudaMallocHost(&src, 512));
    CK(cudaMallocHost(&dst, 256));
    CK(cudaMalloc(&d, 256));
    for (int i = 0; i < 512; ++i)
      src[i] = (unsigned char)(i ^ 0x5c);
    memset(dst, 0, 256);
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cudaMemcpy3DParms p = {}; // every other row of 32 of src into 16 packed rows
    p.srcPtr = make_cudaPitchedPtr(src, 32, 32, 16);
    p.dstPtr = make_cudaPitchedPtr(d, 16, 16, 16);
    p.extent = make_cudaExtent(16, 16, 1);
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3DAsync(&p, s));
    void *dsts[1] = {dst};
    const void *srcs[1] = {d};
    size_t sizes[1] = {256}, idx = 0;
    cudaMemcpyAttributes a = {};
    a.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    CK(cudaMemcpyBatchAsync(dsts, srcs, sizes, 1, &a, &idx, 1, s));
    CK(cudaStreamEndCapture(s, &g));
    EXPECT(dst[17] == 0);
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphLaunch(ge, s));
    CK(cudaStreamSynchronize(s));
    for (int y = 0; y < 16; ++y)
      for (int x = 0; x < 16; ++x)
        EXPECT(dst[y * 16 + x] == src[y * 32 + x]);
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
    CK(cudaFree(d));
    CK(cudaFreeHost(dst));
    CK(cudaFreeHost(src));
  }

  // A 3D batch between pointers: a box of dev2 (rows of 96, slices of 21) to packed host memory.
  {
    const cudaExtent e = make_cudaExtent(50, 7, 3);
    std::vector<unsigned char> packed(50 * 7 * 3, 0);
    cudaMemcpy3DBatchOp op = {};
    op.src.type = cudaMemcpyOperandTypePointer;
    op.src.op.ptr.ptr = (char *)dev2.ptr + (2 * 21 + 5) * 96 + 9; // at (9, 5, 2)
    op.src.op.ptr.rowLength = 96;
    op.src.op.ptr.layerHeight = 21;
    op.dst.type = cudaMemcpyOperandTypePointer;
    op.dst.op.ptr.ptr = packed.data(); // row length and layer height 0: the extent's
    op.extent = e;
    op.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    CK(cudaMemcpy3DBatchAsync(1, &op, 0, s));
    CK(cudaStreamSynchronize(s));
    Model mPacked(50, 7, 3, 0);
    modelCopy(mPacked, make_cudaPos(0, 0, 0), mDev2, make_cudaPos(9, 5, 2), e);
    if (checkHost("3D batch", packed.data(), mPacked))
      return 1;
    op.src.type = cudaMemcpyOperandTypeArray; // its pointer is no array
    EXPECT(cudaMemcpy3DBatchAsync(1, &op, 0, s) == cudaErrorInvalidResourceHandle);
    CK(cudaGetLastError() == cudaErrorInvalidResourceHandle ? cudaSuccess : cudaErrorUnknown);
  }

  // Refused: rows wider than the pitch (two of them: a single row's pitch says nothing); a CUDA
  // array handle that is none (never touched).
  {
    cudaMemcpy3DParms p = {};
    p.srcPtr = dev;
    p.dstPtr = dev2;
    p.extent = make_cudaExtent(97, 2, 1);
    p.kind = cudaMemcpyDeviceToDevice;
    EXPECT(cudaMemcpy3D(&p) != cudaSuccess);
    cudaGetLastError();
    p.extent = make_cudaExtent(8, 1, 1);
    p.dstPtr = make_cudaPitchedPtr(nullptr, 0, 0, 0);
    p.dstArray = reinterpret_cast<cudaArray_t>(uintptr_t(0x1000));
    EXPECT(cudaMemcpy3D(&p) == cudaErrorInvalidResourceHandle);
    cudaGetLastError();
  }

  CK(cudaStreamDestroy(s));
  CK(cudaFreeHost(pinned));
  CK(cudaFree(dev3));
  CK(cudaFree(raw2));
  CK(cudaFree(dev.ptr));
  printf("PASS %s\n", kName);
  return 0;
}
