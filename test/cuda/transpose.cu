// transpose: out = in^T for a rows x cols matrix, two ways: a naive kernel (one element per thread,
// coalesced reads, strided writes) and the shared-memory tiled kernel (32x32 tiles read and written
// row by row, each thread moving 4 elements; the tile's rows padded by one element so the column
// reads of the transposed write hit different banks). Templated on float and double; the sizes are
// non-square and not multiples of the tile (partial edge tiles in both directions), plus a single
// row. Every element of the input is distinct and the output starts as NaN, so the result is
// compared bit for bit and a missed or misplaced element shows.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

static const char *kName = "transpose";

#include "check.h"

constexpr int kTile = 32;
constexpr int kRowsPerPass = 8; // the tiled kernel's blocks are kTile x kRowsPerPass threads

template <typename T>
__global__ void transpose_naive(const T *__restrict__ in, T *__restrict__ out, int rows, int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols)
    out[(size_t)c * rows + r] = in[(size_t)r * cols + c];
}

template <typename T>
__global__ void transpose_tiled(const T *__restrict__ in, T *__restrict__ out, int rows, int cols) {
  __shared__ T tile[kTile][kTile + 1]; // +1: column accesses spread over the banks
  const int c0 = blockIdx.x * kTile, r0 = blockIdx.y * kTile;
  const int tx = threadIdx.x;
  for (int ty = threadIdx.y; ty < kTile; ty += kRowsPerPass) {
    const int r = r0 + ty, c = c0 + tx;
    if (r < rows && c < cols)
      tile[ty][tx] = in[(size_t)r * cols + c];
  }
  __syncthreads();
  // The block's output tile is the input's (c0, r0) tile: its rows are input columns.
  for (int ty = threadIdx.y; ty < kTile; ty += kRowsPerPass) {
    const int orow = c0 + ty, ocol = r0 + tx;
    if (orow < cols && ocol < rows)
      out[(size_t)orow * rows + ocol] = tile[tx][ty];
  }
}

template <typename T> static int run(const char *type, int rows, int cols) {
  const size_t n = (size_t)rows * cols;
  T *h = (T *)malloc(n * sizeof(T));
  T *got = (T *)malloc(n * sizeof(T));
  for (size_t i = 0; i < n; ++i)
    h[i] = ((T)i - (T)(n / 2)) * (T)0.5; // distinct and exact: n is far below 2^23
  T *din, *dout;
  CK(cudaMalloc(&din, n * sizeof(T)));
  CK(cudaMalloc(&dout, n * sizeof(T)));
  CK(cudaMemcpy(din, h, n * sizeof(T), cudaMemcpyHostToDevice));

  int rc = 0;
  for (int tiled = 0; tiled < 2 && !rc; ++tiled) {
    CK(cudaMemset(dout, 0xff, n * sizeof(T))); // NaN everywhere
    if (tiled) {
      dim3 grid((cols + kTile - 1) / kTile, (rows + kTile - 1) / kTile);
      transpose_tiled<T><<<grid, dim3(kTile, kRowsPerPass)>>>(din, dout, rows, cols);
    } else {
      dim3 block(16, 16);
      dim3 grid((cols + block.x - 1) / block.x, (rows + block.y - 1) / block.y);
      transpose_naive<T><<<grid, block>>>(din, dout, rows, cols);
    }
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got, dout, n * sizeof(T), cudaMemcpyDeviceToHost));
    for (int c = 0; c < cols && !rc; ++c)
      for (int r = 0; r < rows; ++r) {
        const T want = h[(size_t)r * cols + c];
        if (memcmp(&got[(size_t)c * rows + r], &want, sizeof(T)) != 0) {
          printf("FAIL %s: %s %s %dx%d: out[%d][%d] = %g, want %g\n", kName,
                 tiled ? "tiled" : "naive", type, rows, cols, c, r,
                 (double)got[(size_t)c * rows + r], (double)want);
          rc = 1;
          break;
        }
      }
  }
  CK(cudaFree(din));
  CK(cudaFree(dout));
  free(h);
  free(got);
  return rc;
}

int main() {
  if (run<float>("float", 517, 1030) || run<float>("float", 1, 45) ||
      run<double>("double", 1030, 257) || run<double>("double", 33, 65))
    return 1;
  printf("PASS %s\n", kName);
  return 0;
}
