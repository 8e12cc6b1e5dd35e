// surfaces: surface objects read and written in kernels, with each boundary mode CUDA has:
// surf2Dwrite/surf2Dread over a 2D array in and past its extent with cudaBoundaryModeZero
// (reads outside are 0, writes outside change nothing) and cudaBoundaryModeClamp (to the edge
// texels), surf1Dwrite, surf2DLayeredwrite/surf2DLayeredread over a layered array,
// surf3Dwrite, each checked by copying the array back; then cudaBoundaryModeTrap outside the
// extent, which faults the kernel (the last thing the program does: the error is sticky).
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

static const char *kName = "surfaces";

#include "../check.h"

constexpr int W = 16, H = 8, Margin = 2;

__device__ unsigned value(int x, int y) { return 1000u * y + x + 7; }

// Over [-Margin, W + Margin) x [-Margin, H + Margin): writes in the extent land, the rest do
// nothing.
__global__ void writeZero(cudaSurfaceObject_t s) {
  int x = int(threadIdx.x) - Margin, y = int(blockIdx.x) - Margin;
  surf2Dwrite(value(x, y), s, x * 4, y, cudaBoundaryModeZero);
}

__global__ void read2D(cudaSurfaceObject_t s, unsigned *out, bool clamp) {
  int x = int(threadIdx.x) - Margin, y = int(blockIdx.x) - Margin;
  unsigned v = clamp ? surf2Dread<unsigned>(s, x * 4, y, cudaBoundaryModeClamp)
                     : surf2Dread<unsigned>(s, x * 4, y, cudaBoundaryModeZero);
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// One thread each: writes past two corners, clamped onto the edge texels.
__global__ void writeClamp(cudaSurfaceObject_t s) {
  surf2Dwrite(11u, s, -5 * 4, 3, cudaBoundaryModeClamp);
  surf2Dwrite(22u, s, (W + 3) * 4, H + 9, cudaBoundaryModeClamp);
}

__global__ void write1D(cudaSurfaceObject_t s, int n) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < n)
    surf1Dwrite(float(x) * 0.25f, s, x * 4);
}

__global__ void writeLayered(cudaSurfaceObject_t s) {
  int x = threadIdx.x, y = blockIdx.x, l = blockIdx.y;
  surf2DLayeredwrite(make_ushort2(x + l, y * 2 + l), s, x * 4, y, l);
}

__global__ void readLayered(cudaSurfaceObject_t s, ushort2 *out, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x, l = blockIdx.y;
  out[(l * h + y) * w + x] = surf2DLayeredread<ushort2>(s, x * 4, y, l);
}

__global__ void write3D(cudaSurfaceObject_t s) {
  int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
  surf3Dwrite(uchar4{(unsigned char)x, (unsigned char)y, (unsigned char)z, 0xa5}, s, x * 4, y, z);
}

__global__ void readTrap(cudaSurfaceObject_t s, unsigned *out) {
  *out = surf2Dread<unsigned>(s, (W + 100) * 4, 0, cudaBoundaryModeTrap);
}

static unsigned hostValue(int x, int y) { return 1000u * y + x + 7; }

static cudaSurfaceObject_t surfaceOf(cudaArray_t a) {
  cudaResourceDesc r = {};
  r.resType = cudaResourceTypeArray;
  r.res.array.array = a;
  cudaSurfaceObject_t s = 0;
  cudaCreateSurfaceObject(&s, &r);
  return s;
}

int main() {
  cudaChannelFormatDesc u1 = cudaCreateChannelDesc<unsigned>();
  cudaArray_t a;
  CK(cudaMallocArray(&a, &u1, W, H, cudaArraySurfaceLoadStore));
  std::vector<unsigned> fillv(W * H, 0xdeadbeef), got(W * H);
  CK(cudaMemcpy2DToArray(a, 0, 0, fillv.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
  cudaSurfaceObject_t s = surfaceOf(a);
  EXPECT(s != 0);

  const int EW = W + 2 * Margin, EH = H + 2 * Margin;
  writeZero<<<EH, EW>>>(s);
  CK(cudaGetLastError());
  CK(cudaMemcpy2DFromArray(got.data(), W * 4, a, 0, 0, W * 4, H, cudaMemcpyDeviceToHost));
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x)
      EXPECT(got[y * W + x] == hostValue(x, y));

  unsigned *dout = nullptr;
  CK(cudaMalloc(&dout, EW * EH * 16));
  std::vector<unsigned> ext(EW * EH);
  for (int clamp = 0; clamp < 2; ++clamp) {
    read2D<<<EH, EW>>>(s, dout, clamp);
    CK(cudaMemcpy(ext.data(), dout, ext.size() * 4, cudaMemcpyDeviceToHost));
    for (int ey = 0; ey < EH; ++ey)
      for (int ex = 0; ex < EW; ++ex) {
        int x = ex - Margin, y = ey - Margin;
        bool in = x >= 0 && x < W && y >= 0 && y < H;
        int cx = x < 0 ? 0 : x >= W ? W - 1 : x, cy = y < 0 ? 0 : y >= H ? H - 1 : y;
        unsigned want = clamp ? hostValue(cx, cy) : in ? hostValue(x, y) : 0;
        if (ext[ey * EW + ex] != want) {
          printf("%s read at (%d, %d): %u, not %u\n", clamp ? "clamp" : "zero", x, y,
                 ext[ey * EW + ex], want);
          EXPECT(false);
        }
      }
  }
  writeClamp<<<1, 1>>>(s);
  CK(cudaMemcpy2DFromArray(got.data(), W * 4, a, 0, 0, W * 4, H, cudaMemcpyDeviceToHost));
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      unsigned want = x == 0 && y == 3 ? 11u : x == W - 1 && y == H - 1 ? 22u : hostValue(x, y);
      EXPECT(got[y * W + x] == want);
    }

  // 1D.
  {
    const int n = 300;
    cudaChannelFormatDesc f1 = cudaCreateChannelDesc<float>();
    cudaArray_t a1;
    CK(cudaMallocArray(&a1, &f1, n, 0, cudaArraySurfaceLoadStore));
    cudaSurfaceObject_t s1 = surfaceOf(a1);
    write1D<<<(n + 63) / 64, 64>>>(s1, n);
    std::vector<float> v(n);
    CK(cudaMemcpy2DFromArray(v.data(), n * 4, a1, 0, 0, n * 4, 1, cudaMemcpyDeviceToHost));
    for (int x = 0; x < n; ++x)
      EXPECT(v[x] == float(x) * 0.25f);
    CK(cudaDestroySurfaceObject(s1));
    CK(cudaFreeArray(a1));
  }

  // Layered: written and read back by layer, and copied out.
  {
    const int w = 12, h = 5, layers = 3;
    cudaChannelFormatDesc c2 = cudaCreateChannelDesc<ushort2>();
    cudaArray_t al;
    CK(cudaMalloc3DArray(&al, &c2, make_cudaExtent(w, h, layers),
                         cudaArrayLayered | cudaArraySurfaceLoadStore));
    cudaSurfaceObject_t sl = surfaceOf(al);
    writeLayered<<<dim3(h, layers), w>>>(sl);
    std::vector<ushort2> v(w * h * layers), r(w * h * layers);
    cudaMemcpy3DParms p = {};
    p.srcArray = al;
    p.dstPtr = make_cudaPitchedPtr(v.data(), w * 4, w, h);
    p.extent = make_cudaExtent(w, h, layers);
    p.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&p));
    ushort2 *dl = nullptr;
    CK(cudaMalloc(&dl, r.size() * sizeof(ushort2)));
    readLayered<<<dim3(h, layers), w>>>(sl, dl, w, h);
    CK(cudaMemcpy(r.data(), dl, r.size() * sizeof(ushort2), cudaMemcpyDeviceToHost));
    for (int l = 0; l < layers; ++l)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const ushort2 &e = v[(l * h + y) * w + x], &q = r[(l * h + y) * w + x];
          EXPECT(e.x == x + l && e.y == y * 2 + l && q.x == e.x && q.y == e.y);
        }
    CK(cudaFree(dl));
    CK(cudaDestroySurfaceObject(sl));
    CK(cudaFreeArray(al));
  }

  // 3D.
  {
    const int w = 6, h = 4, d = 5;
    cudaChannelFormatDesc c4 = cudaCreateChannelDesc<uchar4>();
    cudaArray_t a3;
    CK(cudaMalloc3DArray(&a3, &c4, make_cudaExtent(w, h, d), cudaArraySurfaceLoadStore));
    cudaSurfaceObject_t s3 = surfaceOf(a3);
    write3D<<<dim3(h, d), w>>>(s3);
    std::vector<uchar4> v(w * h * d);
    cudaMemcpy3DParms p = {};
    p.srcArray = a3;
    p.dstPtr = make_cudaPitchedPtr(v.data(), w * 4, w, h);
    p.extent = make_cudaExtent(w, h, d);
    p.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&p));
    for (int z = 0; z < d; ++z)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const uchar4 &e = v[(z * h + y) * w + x];
          EXPECT(e.x == x && e.y == y && e.z == z && e.w == 0xa5);
        }
    CK(cudaDestroySurfaceObject(s3));
    CK(cudaFreeArray(a3));
  }

  // Trap: a read outside the extent faults the kernel.
  readTrap<<<1, 1>>>(s, dout);
  cudaError_t trapped = cudaDeviceSynchronize();
  if (trapped == cudaSuccess) {
    printf("FAIL %s: a read outside the extent with cudaBoundaryModeTrap did not fault\n", kName);
    return 1;
  }
  printf("expected failure: %s\n", cudaGetErrorString(trapped));
  printf("PASS %s\n", kName);
  return 0;
}
