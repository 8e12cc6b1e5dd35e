// mma_tile: one 16 x 8 tile of D = A B over K = 64, f16 inputs and f32 accumulation, computed by
// one warp from shared memory. Under nvcc (sm_80 and later) with inline PTX: ldmatrix.x4 for A,
// ldmatrix.x2.trans for B, mma.sync.m16n8k16. In bench/quality's native build (clang++-22 -x hip
// through bench/native-shim) with AMD's matrix units, as a HIP programmer writes the same tile:
// gfx9's v_mfma_f32_4x4x4f16 (a warp is half a wave64: the tile is its eight 4 x 4 blocks) and
// gfx11's v_wmma_f32_16x16x16_f16; elsewhere a loop. The kernel is extern "C" so that both
// builds give it the same name. Inputs are small integers, so every sum is exact.
#include <cstdio>
#include <cuda_runtime.h>
#include <vector>
#ifndef __HIP__
#include <cuda_fp16.h>
#endif

static const char *kName = "mma_tile";

#include "check.h"

constexpr int kK = 64;
typedef unsigned short f16bits;

__device__ float toFloat(f16bits h) {
#ifdef __HIP__
  return float(__builtin_bit_cast(_Float16, h));
#else
  return __half2float(__ushort_as_half(h));
#endif
}

extern "C" __global__ void mmaTile(const f16bits *a, const f16bits *b, float *d) {
  __shared__ alignas(16) f16bits sa[16][kK + 8], sb[kK][8 + 8];
  int lane = threadIdx.x % 32;
  for (int i = lane; i < 16 * kK; i += 32)
    sa[i / kK][i % kK] = a[i];
  for (int i = lane; i < kK * 8; i += 32)
    sb[i / 8][i % 8] = b[i];
  __syncthreads();
#if defined(__HIP__) && defined(__GFX9__)
  // Block q = 2 rb + cb of the warp (lanes 4q..4q+3) computes D rows 4rb.., columns 4cb..: lane
  // 4q + i gives row i of A's block and column i of B's, and ends with column i of D's block.
  typedef _Float16 h4 __attribute__((ext_vector_type(4)));
  typedef float f4 __attribute__((ext_vector_type(4)));
  int q = lane / 4, i = lane % 4, rb = q / 2, cb = q % 2;
  f4 acc = {0, 0, 0, 0};
  for (int k0 = 0; k0 < kK; k0 += 4) {
    h4 av = *reinterpret_cast<const h4 *>(&sa[4 * rb + i][k0]), bv; // A's row: one load
    for (int k = 0; k < 4; ++k)
      bv[k] = __builtin_bit_cast(_Float16, sb[k0 + k][4 * cb + i]);
    acc = __builtin_amdgcn_mfma_f32_4x4x4f16(av, bv, acc, 0, 0, 0);
  }
  for (int v = 0; v < 4; ++v)
    d[(4 * rb + v) * 8 + 4 * cb + i] = acc[v];
#elif defined(__HIP__) && defined(__GFX11__)
  // Lane l gives row l % 16 of A and column l % 16 of B (columns 8-15 repeat B's 8; lanes 16-31
  // repeat 0-15), and ends with D[2v + l / 16][l % 16] in element v.
  typedef _Float16 h16 __attribute__((ext_vector_type(16)));
  typedef float f8 __attribute__((ext_vector_type(8)));
  int r = lane % 16;
  f8 acc = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int k0 = 0; k0 < kK; k0 += 16) {
    typedef _Float16 h8 __attribute__((ext_vector_type(8)));
    h8 lo = *reinterpret_cast<const h8 *>(&sa[r][k0]),
       hi = *reinterpret_cast<const h8 *>(&sa[r][k0 + 8]);
    h16 av = __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        bv;
    for (int k = 0; k < 16; ++k)
      bv[k] = __builtin_bit_cast(_Float16, sb[k0 + k][r % 8]);
    acc = __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(av, bv, acc);
  }
  if (r < 8)
    for (int v = 0; v < 8; ++v)
      d[(2 * v + lane / 16) * 8 + r] = acc[v];
#elif !defined(__HIP__) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  float acc[4] = {0, 0, 0, 0};
  for (int k0 = 0; k0 < kK; k0 += 16) {
    unsigned a0, a1, a2, a3, b0, b1;
    // Lanes 0-15 give rows 0-15 at k0, lanes 16-31 the same rows at k0 + 8.
    unsigned pa = unsigned(__cvta_generic_to_shared(&sa[lane % 16][k0 + (lane / 16) * 8]));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a0), "=r"(a1), "=r"(a2), "=r"(a3)
                 : "r"(pa));
    // Lanes 0-7: rows k0..k0+7 of B, lanes 8-15: rows k0+8..k0+15.
    unsigned pb = unsigned(__cvta_generic_to_shared(&sb[k0 + lane % 16][0]));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];"
                 : "=r"(b0), "=r"(b1)
                 : "r"(pb));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
  int g = lane / 4, t = lane % 4;
  for (int e = 0; e < 4; ++e)
    d[(g + 8 * (e / 2)) * 8 + 2 * t + (e % 2)] = acc[e];
#else
  // No matrix instructions: lane l computes D[l / 2][4 (l % 2) .. 4 (l % 2) + 3].
  int row = lane / 2, col0 = 4 * (lane % 2);
  for (int c = col0; c < col0 + 4; ++c) {
    float acc = 0;
    for (int k = 0; k < kK; ++k)
      acc += toFloat(sa[row][k]) * toFloat(sb[k][c]);
    d[row * 8 + c] = acc;
  }
#endif
}

/// The f16 bits of a small integer (|v| < 2048, so exact).
static f16bits halfBits(int v) {
  if (v == 0)
    return 0;
  unsigned s = v < 0, m = unsigned(v < 0 ? -v : v);
  int e = 31 - __builtin_clz(m);
  return f16bits(s << 15 | unsigned(e + 15) << 10 | ((m << (10 - e)) & 0x3ff));
}

int main() {
  std::vector<int> ia(16 * kK), ib(kK * 8);
  std::vector<f16bits> ha(ia.size()), hb(ib.size());
  for (size_t i = 0; i < ia.size(); ++i)
    ha[i] = halfBits(ia[i] = int((i * 7 + 3) % 9) - 4);
  for (size_t i = 0; i < ib.size(); ++i)
    hb[i] = halfBits(ib[i] = int((i * 5 + 1) % 7) - 3);
  f16bits *da, *db;
  float *dd;
  CK(cudaMalloc(&da, ha.size() * sizeof(f16bits)));
  CK(cudaMalloc(&db, hb.size() * sizeof(f16bits)));
  CK(cudaMalloc(&dd, 16 * 8 * sizeof(float)));
  CK(cudaMemcpy(da, ha.data(), ha.size() * sizeof(f16bits), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(db, hb.data(), hb.size() * sizeof(f16bits), cudaMemcpyHostToDevice));
  mmaTile<<<1, 32>>>(da, db, dd);
  CK(cudaGetLastError());
  std::vector<float> hd(16 * 8);
  CK(cudaMemcpy(hd.data(), dd, hd.size() * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 8; ++j) {
      int want = 0;
      for (int k = 0; k < kK; ++k)
        want += ia[i * kK + k] * ib[k * 8 + j];
      if (hd[i * 8 + j] != float(want))
        printf("D[%d][%d] = %g, expected %d\n", i, j, hd[i * 8 + j], want);
      EXPECT(hd[i * 8 + j] == float(want));
    }
  CK(cudaFree(da));
  CK(cudaFree(db));
  CK(cudaFree(dd));
  printf("PASS %s\n", kName);
  return 0;
}
