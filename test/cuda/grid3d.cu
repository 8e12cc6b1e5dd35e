// grid3d: 3D grids of 3D blocks using every component of threadIdx, blockIdx, blockDim and
// gridDim; each thread records its coordinates at its linear index and the host checks that
// every slot was written exactly once with consistent values. Several shapes, including
// blocks that are flat in some dimensions; plus a 2D matrix transpose with partial edge
// blocks on both axes.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

static const char *kName = "grid3d";

#include "check.h"

struct Rec {
  unsigned short tx, ty, tz, bx, by, bz;
  unsigned short bdx, bdy, bdz, gdx, gdy, gdz;
  unsigned warp_lane; // (linear thread id in block / 32) << 8 | lane
  unsigned written;
};

__global__ void record(Rec *out) {
  const unsigned tib = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const unsigned bid = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  Rec &r = out[bid * threads + tib];
  r.tx = threadIdx.x;
  r.ty = threadIdx.y;
  r.tz = threadIdx.z;
  r.bx = blockIdx.x;
  r.by = blockIdx.y;
  r.bz = blockIdx.z;
  r.bdx = blockDim.x;
  r.bdy = blockDim.y;
  r.bdz = blockDim.z;
  r.gdx = gridDim.x;
  r.gdy = gridDim.y;
  r.gdz = gridDim.z;
  r.warp_lane = ((tib / warpSize) << 8) | (tib % warpSize);
  atomicAdd(&r.written, 1u);
}

__global__ void transpose(const int *in, int *out, int rows, int cols) {
  __shared__ int tile[16][17];
  int c = blockIdx.x * 16 + threadIdx.x;
  int r = blockIdx.y * 16 + threadIdx.y;
  for (int k = 0; k < 16; k += 8)
    if (r + k < rows && c < cols)
      tile[threadIdx.y + k][threadIdx.x] = in[(r + k) * cols + c];
  __syncthreads();
  // Block (bx, by) covers rows [by*16, +16) (two sub-rows of 8) and columns [bx*16, +16).
  c = blockIdx.y * 16 + threadIdx.x;
  r = blockIdx.x * 16 + threadIdx.y;
  for (int k = 0; k < 16; k += 8)
    if (r + k < cols && c < rows)
      out[(r + k) * rows + c] = tile[threadIdx.x][threadIdx.y + k];
}

static int run_shape(dim3 g, dim3 b) {
  const size_t total = (size_t)g.x * g.y * g.z * b.x * b.y * b.z;
  Rec *d;
  CK(cudaMalloc(&d, total * sizeof(Rec)));
  CK(cudaMemset(d, 0, total * sizeof(Rec)));
  record<<<g, b>>>(d);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  Rec *h = (Rec *)malloc(total * sizeof(Rec));
  CK(cudaMemcpy(h, d, total * sizeof(Rec), cudaMemcpyDeviceToHost));
  int rc = 0;
  for (unsigned bz = 0; bz < g.z && !rc; ++bz)
    for (unsigned by = 0; by < g.y && !rc; ++by)
      for (unsigned bx = 0; bx < g.x && !rc; ++bx)
        for (unsigned tz = 0; tz < b.z && !rc; ++tz)
          for (unsigned ty = 0; ty < b.y && !rc; ++ty)
            for (unsigned tx = 0; tx < b.x && !rc; ++tx) {
              const unsigned tib = tx + b.x * (ty + b.y * tz);
              const unsigned bid = bx + g.x * (by + g.y * bz);
              const Rec &r = h[(size_t)bid * b.x * b.y * b.z + tib];
              if (r.written != 1 || r.tx != tx || r.ty != ty || r.tz != tz || r.bx != bx ||
                  r.by != by || r.bz != bz || r.bdx != b.x || r.bdy != b.y || r.bdz != b.z ||
                  r.gdx != g.x || r.gdy != g.y || r.gdz != g.z ||
                  r.warp_lane != (((tib / 32) << 8) | (tib % 32))) {
                printf("FAIL %s: grid (%u,%u,%u) block (%u,%u,%u): thread (%u,%u,%u) of block "
                       "(%u,%u,%u) recorded t=(%u,%u,%u) b=(%u,%u,%u) bd=(%u,%u,%u) "
                       "gd=(%u,%u,%u) lane=0x%x written=%u\n",
                       kName, g.x, g.y, g.z, b.x, b.y, b.z, tx, ty, tz, bx, by, bz, r.tx, r.ty,
                       r.tz, r.bx, r.by, r.bz, r.bdx, r.bdy, r.bdz, r.gdx, r.gdy, r.gdz,
                       r.warp_lane, r.written);
                rc = 1;
              }
            }
  CK(cudaFree(d));
  free(h);
  return rc;
}

int main() {
  if (run_shape(dim3(3, 2, 2), dim3(8, 4, 3)))
    return 1; // 96 threads, 3 warps
  if (run_shape(dim3(2, 3, 4), dim3(5, 7, 2)))
    return 1; // 70 threads: partial last warp
  if (run_shape(dim3(1, 1, 5), dim3(1, 1, 64)))
    return 1; // all of it along z
  if (run_shape(dim3(7, 1, 1), dim3(4, 16, 1)))
    return 1;
  if (run_shape(dim3(1, 9, 1), dim3(33, 1, 2)))
    return 1;

  const int rows = 37, cols = 53;
  int *hin = (int *)malloc(rows * cols * sizeof(int));
  int *hout = (int *)malloc(rows * cols * sizeof(int));
  for (int i = 0; i < rows * cols; ++i)
    hin[i] = i * 3 + 1;
  int *din, *dout;
  CK(cudaMalloc(&din, rows * cols * sizeof(int)));
  CK(cudaMalloc(&dout, rows * cols * sizeof(int)));
  CK(cudaMemcpy(din, hin, rows * cols * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemset(dout, 0, rows * cols * sizeof(int)));
  dim3 block(16, 8);
  dim3 grid((cols + 15) / 16, (rows + 15) / 16);
  transpose<<<grid, block>>>(din, dout, rows, cols);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(hout, dout, rows * cols * sizeof(int), cudaMemcpyDeviceToHost));
  int rc = 0;
  for (int r = 0; r < rows && !rc; ++r)
    for (int c = 0; c < cols; ++c)
      if (hout[c * rows + r] != hin[r * cols + c]) {
        printf("FAIL %s: transpose[%d][%d] = %d, want %d\n", kName, c, r, hout[c * rows + r],
               hin[r * cols + c]);
        rc = 1;
        break;
      }
  CK(cudaFree(din));
  CK(cudaFree(dout));
  free(hin);
  free(hout);
  if (rc == 0)
    printf("PASS %s\n", kName);
  return rc;
}
