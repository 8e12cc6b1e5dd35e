// sync_regions: barriers and warp operations where real kernels have them, with block sizes
// that are not multiples of 32 or 64.
// - reduce: a shared-memory tree reduction, __syncthreads inside the halving loop, threads past
//   the data leaving before it (early exit);
// - branches: a barrier in each arm of a branch uniform per block, and a loop whose trip count
//   the block reads from memory, with a barrier at each turn;
// - scan: a warp inclusive scan with __shfl_up_sync in a loop, then the warps' totals scanned
//   by warp 0 after a barrier (a block-wide scan);
// - shuffles: butterfly reduction with __shfl_xor_sync, divergent shuffles (each half of a warp
//   with its own mask and pattern), a ballot and a __syncwarp in a data-dependent loop;
// - privates: a private array indexed at run time that lives across barriers;
// - tiles: a 2-D block (12 x 10) transposing through a shared tile, barriers in the tile loop.
// Every result is checked against the same computation on the host.
#include <algorithm>
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>

static const char *kName = "sync_regions";

#include "../check.h"

__global__ void reduce(const int *in, int n, long long *out) {
  __shared__ long long s[1024];
  const int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
  // Threads with nothing to add leave at once; the others meet without them.
  if (i >= n)
    return;
  const int live = min((int)blockDim.x, n - (int)(blockIdx.x * blockDim.x));
  s[t] = in[i];
  __syncthreads();
  for (int width = live; width > 1;) {
    const int half = (width + 1) / 2;
    if (t + half < width)
      s[t] += s[t + half];
    __syncthreads();
    width = half;
  }
  if (t == 0)
    out[blockIdx.x] = s[0];
}

__global__ void branches(const int *turns, const int *in, int *out) {
  __shared__ int s[512];
  const int t = threadIdx.x, b = blockIdx.x, nt = blockDim.x;
  int v = in[b * nt + t];
  if (b % 2 == 0) {
    s[t] = v * 2;
    __syncthreads();
    v = s[(t + 1) % nt];
  } else {
    s[nt - 1 - t] = v + 7;
    __syncthreads();
    v = s[t] - 1;
  }
  __syncthreads();
  const int k = turns[b];
  for (int r = 0; r < k; ++r) {
    s[t] = v;
    __syncthreads();
    v += s[(t + r + 1) % nt];
    __syncthreads();
  }
  out[b * nt + t] = v;
}

__global__ void scan(const int *in, int *out) {
  __shared__ int totals[32];
  const int t = threadIdx.x, lane = t % 32, warp = t / 32;
  const int nwarps = (blockDim.x + 31) / 32;
  const int i = blockIdx.x * blockDim.x + t;
  int v = in[i];
  const unsigned mask = __activemask(); // the last warp of a block may be partial
  for (int d = 1; d < 32; d *= 2) {
    int up = __shfl_up_sync(mask, v, d);
    if (lane >= d)
      v += up;
  }
  if (lane == 31 || t == (int)blockDim.x - 1)
    totals[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int w = lane < nwarps ? totals[lane] : 0;
    for (int d = 1; d < 32; d *= 2) {
      int up = __shfl_up_sync(0xffffffffu, w, d);
      if (lane >= d)
        w += up;
    }
    totals[lane] = w;
  }
  __syncthreads();
  out[i] = v + (warp > 0 ? totals[warp - 1] : 0);
}

__global__ void shuffles(const unsigned *in, unsigned *out) {
  const int t = threadIdx.x, lane = t % 32;
  const int i = blockIdx.x * blockDim.x + t;
  const unsigned x = in[i];
  // Butterfly sum over the whole warp.
  unsigned sum = x;
  for (int m = 16; m >= 1; m /= 2)
    sum += __shfl_xor_sync(0xffffffffu, sum, m);
  // Divergent: the low half exchanges with its neighbour, the high half two lanes away.
  unsigned d;
  if (lane < 16)
    d = __shfl_xor_sync(0x0000ffffu, x, 1);
  else
    d = __shfl_xor_sync(0xffff0000u, x, 2);
  // A data-dependent loop: each turn the warp counts who still goes on.
  unsigned turns = 0, votes = 0;
  for (unsigned k = x % 5;; --k) {
    const unsigned going = __ballot_sync(0xffffffffu, k > 0);
    __syncwarp();
    if (!going)
      break;
    votes += __popc(going);
    ++turns;
    if (k == 0)
      k = 1; // stays at zero: it keeps voting no until the warp is done
  }
  out[4 * i] = sum;
  out[4 * i + 1] = d;
  out[4 * i + 2] = turns;
  out[4 * i + 3] = votes;
}

__global__ void privates(const int *in, int *out) {
  __shared__ int s[256];
  const int t = threadIdx.x, nt = blockDim.x;
  int mine[12];
  for (int k = 0; k < 12; ++k)
    mine[k] = in[(blockIdx.x * nt + t) * 12 + k];
  int acc = 0;
  for (int r = 0; r < 12; ++r) {
    s[t] = mine[(r * 5 + t) % 12];
    __syncthreads();
    mine[(r + t) % 12] ^= s[(t + r) % nt];
    acc += s[nt - 1 - t];
    __syncthreads();
  }
  unsigned all = acc;
  for (int k = 0; k < 12; ++k)
    all = all * 31u + unsigned(mine[k]);
  out[blockIdx.x * nt + t] = int(all);
}

constexpr int TX = 12, TY = 10;

__global__ void tiles(const float *in, float *out, int w, int h) {
  __shared__ float tile[TY][TX + 1];
  for (int by = blockIdx.y * TY; by < h; by += gridDim.y * TY) {
    const int x = blockIdx.x * TX + threadIdx.x, y = by + threadIdx.y;
    if (x < w && y < h)
      tile[threadIdx.y][threadIdx.x] = in[y * w + x];
    __syncthreads();
    if (x < w && y < h)
      out[x * h + y] = tile[threadIdx.y][threadIdx.x] * 2.0f;
    __syncthreads();
  }
}

static unsigned hashOf(unsigned i) { return (i * 2654435761u) >> 9; }

int main() {
  int bad = 0;
  auto report = [&](const char *what, long long i, long long got, long long want) {
    if (got != want && bad++ < 8)
      printf("  %s %lld: %lld, want %lld\n", what, i, got, want);
  };

  // reduce: 3 blocks of 200 threads over 517 values (the last block is partly empty).
  {
    const int n = 517, nt = 200, nb = (n + nt - 1) / nt;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i)
      in[i] = int(hashOf(i) % 2001) - 1000;
    int *din;
    long long *dout;
    CK(cudaMalloc(&din, n * sizeof(int)));
    CK(cudaMalloc(&dout, nb * sizeof(long long)));
    CK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    reduce<<<nb, nt>>>(din, n, dout);
    CK(cudaGetLastError());
    std::vector<long long> out(nb);
    CK(cudaMemcpy(out.data(), dout, nb * sizeof(long long), cudaMemcpyDeviceToHost));
    for (int b = 0; b < nb; ++b) {
      long long want = 0;
      for (int i = b * nt; i < n && i < (b + 1) * nt; ++i)
        want += in[i];
      report("reduce block", b, out[b], want);
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
  }

  // branches: 5 blocks of 100 threads, 0 to 4 turns.
  {
    const int nb = 5, nt = 100, n = nb * nt;
    std::vector<int> in(n), turns = {3, 0, 4, 1, 2};
    for (int i = 0; i < n; ++i)
      in[i] = int(hashOf(i + 7) % 100);
    int *din, *dturns, *dout;
    CK(cudaMalloc(&din, n * sizeof(int)));
    CK(cudaMalloc(&dturns, nb * sizeof(int)));
    CK(cudaMalloc(&dout, n * sizeof(int)));
    CK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dturns, turns.data(), nb * sizeof(int), cudaMemcpyHostToDevice));
    branches<<<nb, nt>>>(dturns, din, dout);
    CK(cudaGetLastError());
    std::vector<int> out(n);
    CK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int b = 0; b < nb; ++b) {
      std::vector<int> v(nt), s(nt);
      for (int t = 0; t < nt; ++t)
        (b % 2 == 0 ? s[t] : s[nt - 1 - t]) = b % 2 == 0 ? in[b * nt + t] * 2 : in[b * nt + t] + 7;
      for (int t = 0; t < nt; ++t)
        v[t] = b % 2 == 0 ? s[(t + 1) % nt] : s[t] - 1;
      for (int r = 0; r < turns[b]; ++r) {
        s = v;
        for (int t = 0; t < nt; ++t)
          v[t] += s[(t + r + 1) % nt];
      }
      for (int t = 0; t < nt; ++t)
        report("branches item", b * nt + t, out[b * nt + t], v[t]);
    }
    CK(cudaFree(din));
    CK(cudaFree(dturns));
    CK(cudaFree(dout));
  }

  // scan: blocks of 96 (a wave64 holds one and a half) and of 1000 threads.
  for (int nt : {96, 1000}) {
    const int nb = 3, n = nb * nt;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i)
      in[i] = int(hashOf(i + 3) % 50) - 20;
    int *din, *dout;
    CK(cudaMalloc(&din, n * sizeof(int)));
    CK(cudaMalloc(&dout, n * sizeof(int)));
    CK(cudaMemcpy(din, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    scan<<<nb, nt>>>(din, dout);
    CK(cudaGetLastError());
    std::vector<int> out(n);
    CK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int b = 0; b < nb; ++b) {
      int acc = 0;
      for (int t = 0; t < nt; ++t) {
        acc += in[b * nt + t];
        report("scan item", b * nt + t, out[b * nt + t], acc);
      }
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
  }

  // shuffles: whole warps only (the masks name all 32 lanes), 2 blocks of 160 threads.
  {
    const int nb = 2, nt = 160, n = nb * nt;
    std::vector<unsigned> in(n);
    for (int i = 0; i < n; ++i)
      in[i] = hashOf(i + 11);
    unsigned *din, *dout;
    CK(cudaMalloc(&din, n * sizeof(unsigned)));
    CK(cudaMalloc(&dout, 4 * n * sizeof(unsigned)));
    CK(cudaMemcpy(din, in.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    shuffles<<<nb, nt>>>(din, dout);
    CK(cudaGetLastError());
    std::vector<unsigned> out(4 * n);
    CK(cudaMemcpy(out.data(), dout, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int w = 0; w < n; w += 32) {
      unsigned sum = 0, most = 0;
      for (int l = 0; l < 32; ++l) {
        sum += in[w + l];
        most = std::max(most, in[w + l] % 5);
      }
      for (int l = 0; l < 32; ++l) {
        const int i = w + l;
        const unsigned d = l < 16 ? in[w + (l ^ 1)] : in[w + (l ^ 2)];
        unsigned votes = 0;
        for (unsigned turn = 0; turn < most; ++turn)
          for (int o = 0; o < 32; ++o)
            votes += in[w + o] % 5 > turn;
        report("shuffles sum", i, out[4 * i], sum);
        report("shuffles divergent", i, out[4 * i + 1], d);
        report("shuffles turns", i, out[4 * i + 2], most);
        report("shuffles votes", i, out[4 * i + 3], votes);
      }
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
  }

  // privates: 2 blocks of 72 threads.
  {
    const int nb = 2, nt = 72, n = nb * nt;
    std::vector<int> in(12 * n);
    for (size_t i = 0; i < in.size(); ++i)
      in[i] = int(hashOf(unsigned(i) + 5) % 1000);
    int *din, *dout;
    CK(cudaMalloc(&din, in.size() * sizeof(int)));
    CK(cudaMalloc(&dout, n * sizeof(int)));
    CK(cudaMemcpy(din, in.data(), in.size() * sizeof(int), cudaMemcpyHostToDevice));
    privates<<<nb, nt>>>(din, dout);
    CK(cudaGetLastError());
    std::vector<int> out(n);
    CK(cudaMemcpy(out.data(), dout, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int b = 0; b < nb; ++b) {
      std::vector<std::vector<int>> mine(nt, std::vector<int>(12));
      std::vector<int> acc(nt, 0), s(nt);
      for (int t = 0; t < nt; ++t)
        for (int k = 0; k < 12; ++k)
          mine[t][k] = in[(b * nt + t) * 12 + k];
      for (int r = 0; r < 12; ++r) {
        for (int t = 0; t < nt; ++t)
          s[t] = mine[t][(r * 5 + t) % 12];
        for (int t = 0; t < nt; ++t) {
          mine[t][(r + t) % 12] ^= s[(t + r) % nt];
          acc[t] += s[nt - 1 - t];
        }
      }
      for (int t = 0; t < nt; ++t) {
        unsigned all = unsigned(acc[t]);
        for (int k = 0; k < 12; ++k)
          all = all * 31u + unsigned(mine[t][k]);
        report("privates item", b * nt + t, out[b * nt + t], int(all));
      }
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
  }

  // tiles: a 50 x 37 matrix, 12 x 10 blocks, 2 block rows looping down the matrix.
  {
    const int w = 50, h = 37;
    std::vector<float> in(w * h);
    for (int i = 0; i < w * h; ++i)
      in[i] = float(i % 97) * 0.5f;
    float *din, *dout;
    CK(cudaMalloc(&din, w * h * sizeof(float)));
    CK(cudaMalloc(&dout, w * h * sizeof(float)));
    CK(cudaMemcpy(din, in.data(), w * h * sizeof(float), cudaMemcpyHostToDevice));
    tiles<<<dim3((w + TX - 1) / TX, 2), dim3(TX, TY)>>>(din, dout, w, h);
    CK(cudaGetLastError());
    std::vector<float> out(w * h);
    CK(cudaMemcpy(out.data(), dout, w * h * sizeof(float), cudaMemcpyDeviceToHost));
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        if (out[x * h + y] != in[y * w + x] * 2.0f && bad++ < 8)
          printf("  tiles (%d, %d): %g, want %g\n", x, y, out[x * h + y], in[y * w + x] * 2.0f);
    CK(cudaFree(din));
    CK(cudaFree(dout));
  }

  EXPECT(bad == 0);
  printf("PASS %s\n", kName);
  return 0;
}
