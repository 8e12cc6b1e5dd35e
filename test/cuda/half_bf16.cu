// half_bf16: IEEE half (cuda_fp16.h) and bfloat16 (cuda_bf16.h) arithmetic and conversions,
// checked bit for bit against a host reference that rounds exact (double) results itself:
// __hadd/__hsub/__hmul/__hfma/__hdiv/__hmax/__hmin/__hneg/__habs/hsqrt, comparisons,
// operators, __half2 vector ops (__hadd2, __hmul2, __hfma2, __hsub2, __hmax2,
// __lowhigh2highlow), half<->int conversions, float->half and float->bfloat16 in all four
// rounding modes (ties, overflow, subnormals), bfloat16 scalar and __nv_bfloat162 arithmetic,
// and atomicAdd on __half, __half2 and __nv_bfloat162.
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "half_bf16_ref.h"

#include "check.h"

// ---------------------------------------------------------------- device side
__device__ __forceinline__ unsigned bits(__half h) { return __half_as_ushort(h); }
__device__ __forceinline__ unsigned bits(__nv_bfloat16 h) { return __bfloat16_as_ushort(h); }
__device__ __forceinline__ unsigned bits(__half2 h) {
  return bits(__low2half(h)) | (bits(__high2half(h)) << 16);
}
__device__ __forceinline__ unsigned bits(__nv_bfloat162 h) {
  return bits(__low2bfloat16(h)) | (bits(__high2bfloat16(h)) << 16);
}

// bfloat16 fma is native from sm_80; below that, one float fma (exact for these operands).
__device__ __forceinline__ __nv_bfloat16 bf_fma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __hfma(a, b, c);
#else
  return __float2bfloat16_rn(fmaf(__bfloat162float(a), __bfloat162float(b), __bfloat162float(c)));
#endif
}
__device__ __forceinline__ __nv_bfloat162 bf_fma2(__nv_bfloat162 a, __nv_bfloat162 b,
                                                  __nv_bfloat162 c) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __hfma2(a, b, c);
#else
  return __halves2bfloat162(bf_fma(__low2bfloat16(a), __low2bfloat16(b), __low2bfloat16(c)),
                            bf_fma(__high2bfloat16(a), __high2bfloat16(b), __high2bfloat16(c)));
#endif
}

__global__ void arith(const unsigned short *ha, const unsigned short *hb, const unsigned short *hc,
                      const unsigned short *ba, const unsigned short *bb, const unsigned short *bc,
                      int n, unsigned *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const __half a = __ushort_as_half(ha[i]), b = __ushort_as_half(hb[i]),
               c = __ushort_as_half(hc[i]);
  unsigned *o = out + (size_t)i * K_COUNT;
  o[H_ADD] = bits(__hadd(a, b));
  o[H_SUB] = bits(__hsub(a, b));
  o[H_MUL] = bits(__hmul(a, b));
  o[H_FMA] = bits(__hfma(a, b, c));
  o[H_DIV] = bits(__hdiv(a, b));
  o[H_MAX] = bits(__hmax(a, b));
  o[H_MIN] = bits(__hmin(a, b));
  o[H_NEG] = bits(__hneg(a));
  o[H_ABS] = bits(__habs(a));
  o[H_SQRT] = bits(hsqrt(__habs(a)));
  o[H_CMP] = (unsigned)__hlt(a, b) | ((unsigned)__heq(a, c) << 1) | ((unsigned)__hge(a, b) << 2) |
             ((unsigned)__hne(b, c) << 3);
  o[H_OPS] = bits((a + b) - c);
  o[H_TOINT_RN] = (unsigned)__half2int_rn(a);
  o[H_TOINT_RZ] = (unsigned)__half2int_rz(a);
  o[H_TOINT_RD] = (unsigned)__half2int_rd(a);
  o[H_TOINT_RU] = (unsigned)__half2int_ru(a);
  o[H_FROMINT] = bits(__int2half_rn(i * 37 - 20000));

  const __half2 x2 = __halves2half2(a, b), y2 = __halves2half2(c, a);
  o[H2_FMA] = bits(__hfma2(x2, y2, __hadd2(x2, y2)));
  o[H2_MUL] = bits(__hmul2(x2, y2));
  o[H2_SUB] = bits(__hsub2(x2, y2));
  o[H2_SWAP] = bits(__lowhigh2highlow(x2));
  o[H2_MAX] = bits(__hmax2(x2, y2));
  o[H2_FLOAT] = __float_as_uint(__low2float(x2) + __high2float(x2));

  const __nv_bfloat16 p = __ushort_as_bfloat16(ba[i]), q = __ushort_as_bfloat16(bb[i]),
                      r = __ushort_as_bfloat16(bc[i]);
  o[B_ADD] = bits(__hadd(p, q));
  o[B_SUB] = bits(__hsub(p, q));
  o[B_MUL] = bits(__hmul(p, q));
  o[B_FMA] = bits(bf_fma(p, q, r));
  o[B_MAX] = bits(__hmax(p, q));
  o[B_MIN] = bits(__hmin(p, q));
  o[B_NEG] = bits(__hneg(p));
  o[B_TOFLOAT] = __float_as_uint(__bfloat162float(p) * 2.0f);
  const __nv_bfloat162 p2 = __halves2bfloat162(p, q), q2 = __halves2bfloat162(r, p);
  o[B2_ADD] = bits(__hadd2(p2, q2));
  o[B2_MUL] = bits(__hmul2(p2, q2));
  o[B2_FMA] = bits(bf_fma2(p2, q2, p2));
}

// float -> half and float -> bfloat16 in the four rounding modes.
__global__ void convert(const float *f, int n, unsigned *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float x = f[i];
  unsigned *o = out + (size_t)i * 8;
  o[0] = bits(__float2half_rn(x));
  o[1] = bits(__float2half_rz(x));
  o[2] = bits(__float2half_rd(x));
  o[3] = bits(__float2half_ru(x));
  o[4] = bits(__float2bfloat16_rn(x));
  o[5] = bits(__float2bfloat16_rz(x));
  o[6] = bits(__float2bfloat16_rd(x));
  o[7] = bits(__float2bfloat16_ru(x));
}

// Per-block atomic sums of small integers (every partial sum is exact in both formats).
__global__ void atomic_sums(int n, __half *hsum, __half2 *h2sum, __nv_bfloat162 *b2sum) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float v = (float)(i % 8);
  atomicAdd(&hsum[blockIdx.x], __float2half(v));
  atomicAdd(&h2sum[blockIdx.x], __floats2half2_rn(v, (float)(i % 3)));
  atomicAdd(&b2sum[blockIdx.x], __floats2bfloat162_rn((float)((i >> 2) & 1), 1.0f));
}

int main() {
  using namespace half_bf16;
  // Sanity check of the host reference itself.
  if (H(1.0) != 0x3c00 || H(65504.0) != 0x7bff || H(65520.0) != 0x7c00 || H(-2.0) != 0xc000 ||
      H(std::ldexp(1.0, -24)) != 0x0001 || B(1.0) != 0x3f80 || B(-3.0) != 0xc040 ||
      hv(0x3555) != 1365.0 / 4096.0) {
    printf("FAIL %s: host rounding reference is broken\n", kName);
    return 1;
  }

  const int n = 600;
  const int block = 128;
  const int grid = (n + block - 1) / block;
  unsigned short *h[6];
  for (int k = 0; k < 6; ++k)
    h[k] = (unsigned short *)malloc(n * sizeof(unsigned short));
  const int nconv = 300;
  float *fin = (float *)malloc(nconv * sizeof(float));
  make_inputs(n, h, nconv, fin);

  unsigned short *d[6];
  for (int k = 0; k < 6; ++k) {
    CK(cudaMalloc(&d[k], n * sizeof(unsigned short)));
    CK(cudaMemcpy(d[k], h[k], n * sizeof(unsigned short), cudaMemcpyHostToDevice));
  }
  unsigned *dout, *dconv;
  float *dfin;
  __half *dhsum;
  __half2 *dh2sum;
  __nv_bfloat162 *db2sum;
  CK(cudaMalloc(&dout, (size_t)n * K_COUNT * sizeof(unsigned)));
  CK(cudaMalloc(&dfin, nconv * sizeof(float)));
  CK(cudaMalloc(&dconv, nconv * 8 * sizeof(unsigned)));
  CK(cudaMalloc(&dhsum, grid * sizeof(__half)));
  CK(cudaMalloc(&dh2sum, grid * sizeof(__half2)));
  CK(cudaMalloc(&db2sum, grid * sizeof(__nv_bfloat162)));
  CK(cudaMemcpy(dfin, fin, nconv * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemset(dhsum, 0, grid * sizeof(__half)));
  CK(cudaMemset(dh2sum, 0, grid * sizeof(__half2)));
  CK(cudaMemset(db2sum, 0, grid * sizeof(__nv_bfloat162)));

  arith<<<grid, block>>>(d[0], d[1], d[2], d[3], d[4], d[5], n, dout);
  CK(cudaGetLastError());
  convert<<<(nconv + 127) / 128, 128>>>(dfin, nconv, dconv);
  CK(cudaGetLastError());
  atomic_sums<<<grid, block>>>(n, dhsum, dh2sum, db2sum);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  unsigned *out = (unsigned *)malloc((size_t)n * K_COUNT * sizeof(unsigned));
  unsigned *conv = (unsigned *)malloc(nconv * 8 * sizeof(unsigned));
  unsigned short *hs = (unsigned short *)malloc(grid * sizeof(__half));
  unsigned *h2s = (unsigned *)malloc(grid * sizeof(__half2));
  unsigned *b2s = (unsigned *)malloc(grid * sizeof(__nv_bfloat162));
  CK(cudaMemcpy(out, dout, (size_t)n * K_COUNT * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(conv, dconv, nconv * 8 * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hs, dhsum, grid * sizeof(__half), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(h2s, dh2sum, grid * sizeof(__half2), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(b2s, db2sum, grid * sizeof(__nv_bfloat162), cudaMemcpyDeviceToHost));
  const int rc = check(n, nconv, block, h, fin, out, conv, hs, h2s, b2s);

  for (int k = 0; k < 6; ++k) {
    CK(cudaFree(d[k]));
    free(h[k]);
  }
  CK(cudaFree(dout));
  CK(cudaFree(dfin));
  CK(cudaFree(dconv));
  CK(cudaFree(dhsum));
  CK(cudaFree(dh2sum));
  CK(cudaFree(db2sum));
  free(fin);
  free(out);
  free(conv);
  free(hs);
  free(h2s);
  free(b2s);
  if (rc == 0)
    printf("PASS %s\n", kName);
  return rc;
}
