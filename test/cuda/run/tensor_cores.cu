// tensor_cores: warp matrix operations as a user writes them (built for sm_80):
// - nvcuda::wmma tiles for f16 (f32 and f16 accumulators, the three shapes), bf16, tf32, f64,
//   s8 and u8, with row- and column-major operands, padded strides, shared and global memory,
//   an element-wise pass over the accumulator fragment, and one warp of each block skipping;
// - an inline-PTX GEMM tile: ldmatrix.x4 (A) and ldmatrix.x2.trans (B) from shared memory into
//   mma.sync.m16n8k16 with f32 accumulation over several k steps, and the same tile with B
//   loaded by ldmatrix.x4.trans;
// - mma.sync fragments filled by hand after the PTX ISA's layouts: m16n8k8 tf32, m16n8k32 s8
//   with .satfinite, m8n8k4 f64 and m16n8k16 bf16 with f16 output.
// Inputs are small integers, so every summation order gives the same (exact) result, compared
// with a host reference.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>
#include <vector>

static const char *kName = "tensor_cores";

#include "../check.h"

using namespace nvcuda;

constexpr int kWarps = 4, kBlocks = 3, kTiles = kBlocks * kWarps;
constexpr int kSkippedWarp = 2; // this warp of every block does no matrix work

template <typename T> __host__ __device__ T fromInt(int v);
template <> __host__ __device__ half fromInt<half>(int v) { return __int2half_rn(v); }
template <> __host__ __device__ __nv_bfloat16 fromInt<__nv_bfloat16>(int v) {
  return __int2bfloat16_rn(v);
}
template <> __host__ __device__ float fromInt<float>(int v) { return float(v); }
template <> __host__ __device__ double fromInt<double>(int v) { return double(v); }
template <> __host__ __device__ int8_t fromInt<int8_t>(int v) { return int8_t(v); }
template <> __host__ __device__ uint8_t fromInt<uint8_t>(int v) { return uint8_t(v); }
template <> __host__ __device__ int fromInt<int>(int v) { return v; }

template <typename T> double toDouble(T v) { return double(v); }
template <> double toDouble<half>(half v) { return double(__half2float(v)); }

// One tile per warp: D = 2 * (A * B + C), A and B in the given layouts with padded leading
// dimensions; with Shared, A and B go through shared memory first.
template <typename In, typename FragIn, typename Acc, int M, int N, int K, typename LayoutA,
          typename LayoutB, bool Shared>
__global__ void wmmaTile(const In *a, const In *b, const Acc *c, Acc *d, int lda, int ldb, int ldc,
                         bool storeColMajor) {
  int warp = threadIdx.x / 32;
  if (warp == kSkippedWarp)
    return;
  int tile = blockIdx.x * kWarps + warp;
  const In *ta = a + tile * M * K * 4, *tb = b + tile * K * N * 4; // room for the padding
  __shared__ alignas(32) In sa[kWarps][M * K * 4], sb[kWarps][K * N * 4];
  if (Shared) {
    for (int i = threadIdx.x % 32; i < M * K * 4; i += 32)
      sa[warp][i] = ta[i];
    for (int i = threadIdx.x % 32; i < K * N * 4; i += 32)
      sb[warp][i] = tb[i];
    __syncwarp();
    ta = sa[warp];
    tb = sb[warp];
  }
  wmma::fragment<wmma::matrix_a, M, N, K, FragIn, LayoutA> fa;
  wmma::fragment<wmma::matrix_b, M, N, K, FragIn, LayoutB> fb;
  wmma::fragment<wmma::accumulator, M, N, K, Acc> fc;
  wmma::load_matrix_sync(fa, ta, lda);
  wmma::load_matrix_sync(fb, tb, ldb);
  wmma::load_matrix_sync(fc, c + tile * M * N, N, wmma::mem_row_major);
  if constexpr (std::is_same_v<FragIn, wmma::precision::tf32>) {
    for (int i = 0; i < fa.num_elements; ++i)
      fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    for (int i = 0; i < fb.num_elements; ++i)
      fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
  }
  wmma::mma_sync(fc, fa, fb, fc);
  for (int i = 0; i < fc.num_elements; ++i)
    fc.x[i] = fc.x[i] * fromInt<Acc>(2);
  if (storeColMajor)
    wmma::store_matrix_sync(d + tile * M * N, fc, ldc, wmma::mem_col_major);
  else
    wmma::store_matrix_sync(d + tile * M * N, fc, ldc, wmma::mem_row_major);
}

template <typename In, typename FragIn, typename Acc, int M, int N, int K, typename LayoutA,
          typename LayoutB, bool Shared>
static int runWmma(const char *what, int range, bool storeColMajor) {
  constexpr bool RowA = std::is_same_v<LayoutA, wmma::row_major>;
  constexpr bool RowB = std::is_same_v<LayoutB, wmma::row_major>;
  // Leading dimensions padded to the next multiple of 16 bytes past the row.
  auto padded = [](int n) {
    int p = n + 1;
    while (p * int(sizeof(In)) % 16)
      ++p;
    return p;
  };
  int lda = padded(RowA ? K : M), ldb = padded(RowB ? N : K), ldc = storeColMajor ? M : N;
  size_t aSize = size_t(kTiles) * M * K * 4, bSize = size_t(kTiles) * K * N * 4;
  std::vector<In> ha(aSize), hb(bSize);
  std::vector<int> ia(aSize), ib(bSize);
  std::vector<Acc> hc(kTiles * M * N), hd(kTiles * M * N, fromInt<Acc>(-77));
  std::vector<int> ic(hc.size());
  unsigned seed = 12345;
  auto next = [&](int lo, int hi) {
    seed = seed * 1103515245u + 12345u;
    return lo + int((seed >> 8) % unsigned(hi - lo + 1));
  };
  bool isUnsigned = std::is_same_v<In, uint8_t>;
  for (size_t i = 0; i < aSize; ++i)
    ha[i] = fromInt<In>(ia[i] = isUnsigned ? next(0, range) : next(-range, range));
  for (size_t i = 0; i < bSize; ++i)
    hb[i] = fromInt<In>(ib[i] = isUnsigned ? next(0, range) : next(-range, range));
  for (size_t i = 0; i < hc.size(); ++i)
    hc[i] = fromInt<Acc>(ic[i] = next(-8, 8));
  In *da, *db;
  Acc *dc, *dd;
  CK(cudaMalloc(&da, aSize * sizeof(In)));
  CK(cudaMalloc(&db, bSize * sizeof(In)));
  CK(cudaMalloc(&dc, hc.size() * sizeof(Acc)));
  CK(cudaMalloc(&dd, hd.size() * sizeof(Acc)));
  CK(cudaMemcpy(da, ha.data(), aSize * sizeof(In), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db, hb.data(), bSize * sizeof(In), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dc, hc.data(), hc.size() * sizeof(Acc), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dd, hd.data(), hd.size() * sizeof(Acc), cudaMemcpyHostToDevice));
  wmmaTile<In, FragIn, Acc, M, N, K, LayoutA, LayoutB, Shared>
      <<<kBlocks, 32 * kWarps>>>(da, db, dc, dd, lda, ldb, ldc, storeColMajor);
  CK(cudaGetLastError());
  CK(cudaMemcpy(hd.data(), dd, hd.size() * sizeof(Acc), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int t = 0; t < kTiles; ++t)
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        bool skipped = t % kWarps == kSkippedWarp;
        long long want = skipped ? -77 : ic[t * M * N + i * N + j];
        for (int k = 0; k < K && !skipped; ++k) {
          int av = ia[t * M * K * 4 + (RowA ? i * lda + k : k * lda + i)];
          int bv = ib[t * K * N * 4 + (RowB ? k * ldb + j : j * ldb + k)];
          want += (long long)av * bv;
        }
        if (!skipped)
          want *= 2;
        int at = storeColMajor ? j * ldc + i : i * ldc + j;
        double got = toDouble(hd[t * M * N + at]);
        if (got != double(want) && bad++ < 5)
          printf("%s: tile %d D[%d][%d] = %g, expected %lld\n", what, t, i, j, got, want);
      }
  CK(cudaFree(da));
  CK(cudaFree(db));
  CK(cudaFree(dc));
  CK(cudaFree(dd));
  if (bad)
    printf("%s: %d wrong elements\n", what, bad);
  return bad;
}

// ---- inline PTX: ldmatrix + mma.sync.m16n8k16 GEMM tile, 16 x 8 over K = 64 ----
constexpr int kTileK = 64;

__device__ unsigned sharedAddress(const void *p) { return unsigned(__cvta_generic_to_shared(p)); }

// A is 16 x K row-major, B is K x 8 row-major (so B's col fragment needs .trans), D 16 x 8.
// With wideB, B is K x 16 and ldmatrix.x4.trans loads two k steps of it at once (the right half
// of B, columns 8..15, goes to a second tile).
__global__ void ptxTile(const half *a, const half *b, float *d, bool wideB) {
  __shared__ alignas(16) half sa[16][kTileK + 8], sb[kTileK][16 + 8];
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int nb = wideB ? 16 : 8;
  for (int i = threadIdx.x; i < 16 * kTileK; i += blockDim.x)
    sa[i / kTileK][i % kTileK] = a[i];
  for (int i = threadIdx.x; i < kTileK * nb; i += blockDim.x)
    sb[i / nb][i % nb] = b[i];
  __syncthreads();
  if (warp == 1)
    return; // the second warp only helped fill shared memory
  float acc[2][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
  for (int k0 = 0; k0 < kTileK; k0 += 16) {
    unsigned a0, a1, a2, a3;
    // Lanes 0-15 give rows 0-15 at k0, lanes 16-31 the same rows at k0 + 8.
    unsigned pa = sharedAddress(&sa[lane % 16][k0 + (lane / 16) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                 : "r"(pa));
    unsigned b[2][2];
    if (!wideB) {
      // Lanes 0-7: rows k0..k0+7, lanes 8-15: rows k0+8..k0+15 (the others are ignored).
      unsigned pb = sharedAddress(&sb[k0 + lane % 16][0]);
      asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                   : "=r"(b[0][0]), "=r"(b[0][1])
                   : "r"(pb));
    } else {
      // Matrices: (k0, cols 0-7), (k0+8, cols 0-7), (k0, cols 8-15), (k0+8, cols 8-15).
      unsigned pb = sharedAddress(&sb[k0 + lane % 16][(lane / 16) * 8]);
      asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                   : "=r"(b[0][0]), "=r"(b[0][1]), "=r"(b[1][0]), "=r"(b[1][1])
                   : "r"(pb));
    }
    for (int n = 0; n < (wideB ? 2 : 1); ++n)
      asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                   "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                   : "+f"(acc[n][0]), "+f"(acc[n][1]), "+f"(acc[n][2]), "+f"(acc[n][3])
                   : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b[n][0]), "r"(b[n][1]));
  }
  int g = lane / 4, t = lane % 4;
  for (int n = 0; n < (wideB ? 2 : 1); ++n)
    for (int i = 0; i < 4; ++i)
      d[(g + 8 * (i / 2)) * nb + n * 8 + 2 * t + (i % 2)] = acc[n][i];
}

static int runPtxTile(bool wideB) {
  int nb = wideB ? 16 : 8;
  std::vector<half> ha(16 * kTileK), hb(kTileK * nb);
  std::vector<int> ia(ha.size()), ib(hb.size());
  for (size_t i = 0; i < ha.size(); ++i)
    ha[i] = __int2half_rn(ia[i] = int((i * 7 + 3) % 9) - 4);
  for (size_t i = 0; i < hb.size(); ++i)
    hb[i] = __int2half_rn(ib[i] = int((i * 5 + 1) % 7) - 3);
  half *da, *db;
  float *dd;
  CK(cudaMalloc(&da, ha.size() * sizeof(half)));
  CK(cudaMalloc(&db, hb.size() * sizeof(half)));
  CK(cudaMalloc(&dd, 16 * nb * sizeof(float)));
  CK(cudaMemcpy(da, ha.data(), ha.size() * sizeof(half), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db, hb.data(), hb.size() * sizeof(half), cudaMemcpyHostToDevice));
  ptxTile<<<1, 64>>>(da, db, dd, wideB);
  CK(cudaGetLastError());
  std::vector<float> hd(16 * nb);
  CK(cudaMemcpy(hd.data(), dd, hd.size() * sizeof(float), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < nb; ++j) {
      int want = 0;
      for (int k = 0; k < kTileK; ++k)
        want += ia[i * kTileK + k] * ib[k * nb + j];
      if (hd[i * nb + j] != float(want) && bad++ < 5)
        printf("ptx tile%s: D[%d][%d] = %g, expected %d\n", wideB ? " (x4.trans)" : "", i, j,
               hd[i * nb + j], want);
    }
  CK(cudaFree(da));
  CK(cudaFree(db));
  CK(cudaFree(dd));
  return bad;
}

// ---- mma.sync fragments filled after the PTX ISA's layouts (g = lane / 4, t = lane % 4) ----
// Each kernel computes one tile from A (M x K row-major ints) and B (K x N row-major ints) and
// writes D (M x N row-major).
__global__ void fragTf32(const float *a, const float *b, const float *c, float *d) {
  int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  // m16n8k8 tf32: a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4); b0 (t, g), b1 (t+4, g).
  float fa[4] = {a[g * 8 + t], a[(g + 8) * 8 + t], a[g * 8 + t + 4], a[(g + 8) * 8 + t + 4]};
  float fb[2] = {b[t * 8 + g], b[(t + 4) * 8 + g]};
  float fc[4] = {c[g * 8 + 2 * t], c[g * 8 + 2 * t + 1], c[(g + 8) * 8 + 2 * t],
                 c[(g + 8) * 8 + 2 * t + 1]};
  unsigned ua[4], ub[2];
  for (int i = 0; i < 4; ++i)
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(ua[i]) : "f"(fa[i]));
  for (int i = 0; i < 2; ++i)
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(ub[i]) : "f"(fb[i]));
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
               "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(fc[0]), "+f"(fc[1]), "+f"(fc[2]), "+f"(fc[3])
               : "r"(ua[0]), "r"(ua[1]), "r"(ua[2]), "r"(ua[3]), "r"(ub[0]), "r"(ub[1]));
  for (int i = 0; i < 4; ++i)
    d[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = fc[i];
}

__global__ void fragS8(const int *a, const int *b, const int *c, int *d) {
  int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  // m16n8k32 s8: register r of A holds 4 bytes at row g + 8 (r & 1), k = 16 (r >> 1) + 4t + i;
  // register r of B holds k = 16 r + 4t + i, column g.
  unsigned ua[4] = {0, 0, 0, 0}, ub[2] = {0, 0};
  for (int r = 0; r < 4; ++r)
    for (int i = 0; i < 4; ++i)
      ua[r] |= unsigned(a[(g + 8 * (r & 1)) * 32 + 16 * (r >> 1) + 4 * t + i] & 0xff) << (8 * i);
  for (int r = 0; r < 2; ++r)
    for (int i = 0; i < 4; ++i)
      ub[r] |= unsigned(b[(16 * r + 4 * t + i) * 8 + g] & 0xff) << (8 * i);
  int fc[4] = {c[g * 8 + 2 * t], c[g * 8 + 2 * t + 1], c[(g + 8) * 8 + 2 * t],
               c[(g + 8) * 8 + 2 * t + 1]};
  asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32 {%0, %1, %2, %3}, "
               "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+r"(fc[0]), "+r"(fc[1]), "+r"(fc[2]), "+r"(fc[3])
               : "r"(ua[0]), "r"(ua[1]), "r"(ua[2]), "r"(ua[3]), "r"(ub[0]), "r"(ub[1]));
  for (int i = 0; i < 4; ++i)
    d[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = fc[i];
}

__global__ void fragF64(const double *a, const double *b, const double *c, double *d) {
  int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  // m8n8k4 f64: a0 (g, t), b0 (t, g), c0 c1 (g, 2t + i).
  double fa = a[g * 4 + t], fb = b[t * 8 + g];
  double fc[2] = {c[g * 8 + 2 * t], c[g * 8 + 2 * t + 1]};
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
               : "+d"(fc[0]), "+d"(fc[1])
               : "d"(fa), "d"(fb));
  d[g * 8 + 2 * t] = fc[0];
  d[g * 8 + 2 * t + 1] = fc[1];
}

__global__ void fragBf16(const float *a, const float *b, const float *c, float *d) {
  int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  // m16n8k16 bf16: register r of A: row g + 8 (r & 1), k = 8 (r >> 1) + 2t + i; register r of
  // B: k = 8 r + 2t + i, column g.
  auto pack = [](float lo, float hi) {
    __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<unsigned *>(&v);
  };
  unsigned ua[4], ub[2];
  for (int r = 0; r < 4; ++r) {
    int row = g + 8 * (r & 1), k = 8 * (r >> 1) + 2 * t;
    ua[r] = pack(a[row * 16 + k], a[row * 16 + k + 1]);
  }
  for (int r = 0; r < 2; ++r) {
    int k = 8 * r + 2 * t;
    ub[r] = pack(b[k * 8 + g], b[(k + 1) * 8 + g]);
  }
  float fc[4] = {c[g * 8 + 2 * t], c[g * 8 + 2 * t + 1], c[(g + 8) * 8 + 2 * t],
                 c[(g + 8) * 8 + 2 * t + 1]};
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
               "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
               : "+f"(fc[0]), "+f"(fc[1]), "+f"(fc[2]), "+f"(fc[3])
               : "r"(ua[0]), "r"(ua[1]), "r"(ua[2]), "r"(ua[3]), "r"(ub[0]), "r"(ub[1]));
  for (int i = 0; i < 4; ++i)
    d[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = fc[i];
}

__global__ void fragF16(const float *a, const float *b, const float *c, float *d) {
  int lane = threadIdx.x, g = lane / 4, t = lane % 4;
  // m16n8k8 f16 with f16 accumulators: a0 a1 (g, 2t + i), a2 a3 (g + 8, 2t + i); b0 b1
  // (2t + i, g); c/d pairs (g + 8 r, 2t + i).
  auto pack = [](float lo, float hi) {
    __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<unsigned *>(&v);
  };
  unsigned ua[2] = {pack(a[g * 8 + 2 * t], a[g * 8 + 2 * t + 1]),
                    pack(a[(g + 8) * 8 + 2 * t], a[(g + 8) * 8 + 2 * t + 1])};
  unsigned ub = pack(b[2 * t * 8 + g], b[(2 * t + 1) * 8 + g]);
  unsigned uc[2] = {pack(c[g * 8 + 2 * t], c[g * 8 + 2 * t + 1]),
                    pack(c[(g + 8) * 8 + 2 * t], c[(g + 8) * 8 + 2 * t + 1])};
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3}, {%4}, "
               "{%0, %1};"
               : "+r"(uc[0]), "+r"(uc[1])
               : "r"(ua[0]), "r"(ua[1]), "r"(ub));
  for (int r = 0; r < 2; ++r) {
    __half2 h = *reinterpret_cast<__half2 *>(&uc[r]);
    d[(g + 8 * r) * 8 + 2 * t] = __low2float(h);
    d[(g + 8 * r) * 8 + 2 * t + 1] = __high2float(h);
  }
}

template <typename T, typename Kernel>
static int runFragment(const char *what, Kernel kernel, int m, int n, int k, int range,
                       bool saturate = false) {
  std::vector<T> ha(m * k), hb(k * n), hc(m * n), hd(m * n);
  for (int i = 0; i < m * k; ++i)
    ha[i] = T(int((i * 37 + 11) % (2 * range + 1)) - range);
  for (int i = 0; i < k * n; ++i)
    hb[i] = T(int((i * 53 + 5) % (2 * range + 1)) - range);
  for (int i = 0; i < m * n; ++i)
    hc[i] = T(int(i % 13) - 6);
  if (saturate) { // push some sums past the 32-bit range both ways
    hc[0] = T(INT32_MAX - 5);
    hc[n + 1] = T(INT32_MIN + 5);
  }
  T *da, *db, *dc, *dd;
  CK(cudaMalloc(&da, ha.size() * sizeof(T)));
  CK(cudaMalloc(&db, hb.size() * sizeof(T)));
  CK(cudaMalloc(&dc, hc.size() * sizeof(T)));
  CK(cudaMalloc(&dd, hd.size() * sizeof(T)));
  CK(cudaMemcpy(da, ha.data(), ha.size() * sizeof(T), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db, hb.data(), hb.size() * sizeof(T), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dc, hc.data(), hc.size() * sizeof(T), cudaMemcpyHostToDevice));
  kernel<<<1, 32>>>(da, db, dc, dd);
  CK(cudaGetLastError());
  CK(cudaMemcpy(hd.data(), dd, hd.size() * sizeof(T), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      long long want = (long long)hc[i * n + j];
      for (int kk = 0; kk < k; ++kk)
        want += (long long)ha[i * k + kk] * (long long)hb[kk * n + j];
      if (saturate)
        want = want > INT32_MAX ? INT32_MAX : want < INT32_MIN ? INT32_MIN : want;
      if (double(hd[i * n + j]) != double(want) && bad++ < 5)
        printf("%s: D[%d][%d] = %g, expected %lld\n", what, i, j, double(hd[i * n + j]), want);
    }
  CK(cudaFree(da));
  CK(cudaFree(db));
  CK(cudaFree(dc));
  CK(cudaFree(dd));
  return bad;
}

int main() {
  using R = wmma::row_major;
  using C = wmma::col_major;
  int bad = 0;
  bad += runWmma<half, half, float, 16, 16, 16, R, C, true>("f16 m16n16k16 f32", 3, false);
  bad += runWmma<half, half, float, 16, 16, 16, C, R, false>("f16 m16n16k16 f32 cr", 3, true);
  bad += runWmma<half, half, half, 16, 16, 16, R, R, false>("f16 m16n16k16 f16", 2, false);
  bad += runWmma<half, half, float, 32, 8, 16, R, C, false>("f16 m32n8k16 f32", 3, true);
  bad += runWmma<half, half, half, 8, 32, 16, C, C, true>("f16 m8n32k16 f16", 2, false);
  bad += runWmma<__nv_bfloat16, __nv_bfloat16, float, 16, 16, 16, R, C, false>("bf16 m16n16k16", 3,
                                                                               false);
  bad +=
      runWmma<__nv_bfloat16, __nv_bfloat16, float, 8, 32, 16, C, R, true>("bf16 m8n32k16", 3, true);
  bad += runWmma<float, wmma::precision::tf32, float, 16, 16, 8, R, C, false>("tf32 m16n16k8", 3,
                                                                              false);
  bad += runWmma<double, double, double, 8, 8, 4, R, C, true>("f64 m8n8k4", 5, false);
  bad += runWmma<double, double, double, 8, 8, 4, C, R, false>("f64 m8n8k4 cr", 5, true);
  bad += runWmma<int8_t, signed char, int, 16, 16, 16, R, C, true>("s8 m16n16k16", 127, false);
  bad += runWmma<uint8_t, unsigned char, int, 32, 8, 16, R, C, false>("u8 m32n8k16", 255, true);
  bad += runWmma<int8_t, signed char, int, 8, 32, 16, C, R, false>("s8 m8n32k16", 127, false);
  bad += runPtxTile(false);
  bad += runPtxTile(true);
  bad += runFragment<float>("mma m16n8k8 tf32", fragTf32, 16, 8, 8, 4);
  bad += runFragment<int>("mma m16n8k32 s8 satfinite", fragS8, 16, 8, 32, 127, true);
  bad += runFragment<double>("mma m8n8k4 f64", fragF64, 8, 8, 4, 9);
  bad += runFragment<float>("mma m16n8k16 bf16", fragBf16, 16, 8, 16, 3);
  bad += runFragment<float>("mma m16n8k8 f16 -> f16", fragF16, 16, 8, 8, 3);
  EXPECT(bad == 0);
  printf("PASS %s\n", kName);
  return 0;
}
