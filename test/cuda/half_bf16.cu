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

static const char *kName = "half_bf16";

#include "check.h"

// ---------------------------------------------------------------- device side
enum {
  H_ADD,
  H_SUB,
  H_MUL,
  H_FMA,
  H_DIV,
  H_MAX,
  H_MIN,
  H_NEG,
  H_ABS,
  H_SQRT,
  H_CMP,
  H_OPS,
  H_TOINT_RN,
  H_TOINT_RZ,
  H_TOINT_RD,
  H_TOINT_RU,
  H_FROMINT,
  H2_FMA,
  H2_MUL,
  H2_SUB,
  H2_SWAP,
  H2_MAX,
  H2_FLOAT,
  B_ADD,
  B_SUB,
  B_MUL,
  B_FMA,
  B_MAX,
  B_MIN,
  B_NEG,
  B_TOFLOAT,
  B2_ADD,
  B2_MUL,
  B2_FMA,
  K_COUNT
};

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

// ---------------------------------------------------------------- host reference
enum Mode { RN, RZ, RD, RU };

// Round v to a binary format with `ebits` exponent and `mbits` stored mantissa bits.
static unsigned to_bits(double v, int ebits, int mbits, Mode mode) {
  const int bias = (1 << (ebits - 1)) - 1;
  const unsigned sign = std::signbit(v) ? 1u : 0u;
  const unsigned sbit = sign << (ebits + mbits);
  const unsigned inf = ((1u << ebits) - 1u) << mbits;
  const unsigned maxfin_bits = inf - 1u;
  const double maxfin = std::ldexp(2.0 - std::ldexp(1.0, -mbits), bias);
  double a = std::fabs(v);
  if (std::isinf(a))
    return sbit | inf;
  if (a == 0.0)
    return sbit;
  int ex;
  std::frexp(a, &ex);
  const int E = ex - 1, emin = 1 - bias;
  const int qexp = (E < emin ? emin : E) - mbits;
  const double t = std::ldexp(a, -qexp);
  double r;
  switch (mode) {
  case RN:
    r = std::nearbyint(t);
    break; // default rounding mode: ties to even
  case RZ:
    r = std::floor(t);
    break;
  case RD:
    r = sign ? std::ceil(t) : std::floor(t);
    break;
  default:
    r = sign ? std::floor(t) : std::ceil(t);
    break;
  }
  const double mag = std::ldexp(r, qexp);
  if (mag > maxfin) {
    bool to_inf = mode == RN || (mode == RD && sign) || (mode == RU && !sign);
    return sbit | (to_inf ? inf : maxfin_bits);
  }
  if (mag == 0.0)
    return sbit;
  std::frexp(mag, &ex);
  const int E2 = ex - 1;
  if (E2 < emin)
    return sbit | (unsigned)std::ldexp(mag, -(emin - mbits));
  return sbit | ((unsigned)(E2 + bias) << mbits) |
         ((unsigned)std::ldexp(mag, -(E2 - mbits)) - (1u << mbits));
}

static double from_bits(unsigned b, int ebits, int mbits) {
  const int bias = (1 << (ebits - 1)) - 1;
  const unsigned e = (b >> mbits) & ((1u << ebits) - 1u), m = b & ((1u << mbits) - 1u);
  const double s = (b >> (ebits + mbits)) & 1u ? -1.0 : 1.0;
  if (e == (1u << ebits) - 1u)
    return m ? NAN : s * INFINITY;
  if (e == 0)
    return s * std::ldexp((double)m, 1 - bias - mbits);
  return s * std::ldexp((double)(m | (1u << mbits)), (int)e - bias - mbits);
}

static unsigned H(double v, Mode m = RN) { return to_bits(v, 5, 10, m); }
static unsigned B(double v, Mode m = RN) { return to_bits(v, 8, 7, m); }
static double hv(unsigned b) { return from_bits(b, 5, 10); }
static double bv(unsigned b) { return from_bits(b, 8, 7); }

static unsigned u_of(float f) {
  unsigned u;
  memcpy(&u, &f, 4);
  return u;
}

// Within one unit in the last place (same sign, neighbouring encodings).
static bool within_ulp(unsigned got, unsigned want, unsigned sign_bit) {
  if (got == want)
    return true;
  if ((got ^ want) & sign_bit)
    return false;
  return got + 1 == want || want + 1 == got;
}

int main() {
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
  for (int i = 0; i < n; ++i) {
    // Half operands k/64, |k| <= 1000; bfloat16 operands k/8, |k| <= 255 (all exact).
    int ka = (i * 37) % 2001 - 1000, kb = (i * 91 + 5) % 1999 - 999,
        kc = (i * 53 + 7) % 2001 - 1000;
    if (kb == 0)
      kb = 3;
    h[0][i] = (unsigned short)H(ka / 64.0);
    h[1][i] = (unsigned short)H(kb / 64.0);
    h[2][i] = (unsigned short)H((i % 7 == 0 ? ka : kc) / 64.0); // sometimes c == a
    h[3][i] = (unsigned short)B(((i * 29) % 511 - 255) / 8.0);
    h[4][i] = (unsigned short)B(((i * 17 + 3) % 509 - 254) / 8.0);
    h[5][i] = (unsigned short)B(((i * 13 + 1) % 507 - 253) / 8.0);
  }

  // Conversion inputs: hand-picked edge cases, then a sweep over magnitudes.
  const int nconv = 300;
  float *fin = (float *)malloc(nconv * sizeof(float));
  const float edge[] = {1.0f + 0x1p-11f,
                        1.0f + 3 * 0x1p-11f,
                        65504.0f,
                        65519.0f,
                        65520.0f,
                        70000.0f,
                        -70000.0f,
                        1e-6f,
                        0x1p-25f,
                        3 * 0x1p-25f,
                        -0x1p-25f,
                        6e-8f,
                        -3.3e-5f,
                        0.1f,
                        -0.1f,
                        1.0f / 3.0f,
                        0x1p-14f,
                        0x1p-14f - 0x1p-26f,
                        -0.0f,
                        1000.7f,
                        12345.678f,
                        INFINITY,
                        -INFINITY,
                        FLT_MAX,
                        -FLT_MAX,
                        1.0f + 0x1p-8f,
                        1.0f + 3 * 0x1p-8f,
                        0x1p-120f * 1.7f,
                        3e38f,
                        -2.5e-30f};
  const int nedge = (int)(sizeof(edge) / sizeof(edge[0]));
  unsigned s = 4242u;
  for (int i = 0; i < nconv; ++i) {
    if (i < nedge) {
      fin[i] = edge[i];
      continue;
    }
    s = s * 1664525u + 1013904223u;
    const float frac = 1.0f + (float)(s >> 9) * 0x1p-23f; // [1, 2) with 23 random bits
    const int e = (int)((s >> 3) % 46) - 28;              // 2^-28 .. 2^17
    fin[i] = std::ldexp((s & 1) ? -frac : frac, e);
  }

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

  static const char *names[K_COUNT] = {"__hadd",
                                       "__hsub",
                                       "__hmul",
                                       "__hfma",
                                       "__hdiv",
                                       "__hmax",
                                       "__hmin",
                                       "__hneg",
                                       "__habs",
                                       "hsqrt",
                                       "compare",
                                       "operators",
                                       "__half2int_rn",
                                       "__half2int_rz",
                                       "__half2int_rd",
                                       "__half2int_ru",
                                       "__int2half_rn",
                                       "__hfma2",
                                       "__hmul2",
                                       "__hsub2",
                                       "__lowhigh2highlow",
                                       "__hmax2",
                                       "__low2float+__high2float",
                                       "bf16 __hadd",
                                       "bf16 __hsub",
                                       "bf16 __hmul",
                                       "bf16 __hfma",
                                       "bf16 __hmax",
                                       "bf16 __hmin",
                                       "bf16 __hneg",
                                       "__bfloat162float",
                                       "bf162 __hadd2",
                                       "bf162 __hmul2",
                                       "bf162 __hfma2"};
  int rc = 0;
  for (int i = 0; i < n && !rc; ++i) {
    const unsigned A = h[0][i], Bb = h[1][i], C = h[2][i];
    const double a = hv(A), b = hv(Bb), c = hv(C);
    const unsigned P = h[3][i], Q = h[4][i], R = h[5][i];
    const double p = bv(P), q = bv(Q), r = bv(R);
    unsigned want[K_COUNT];
    want[H_ADD] = H(a + b);
    want[H_SUB] = H(a - b);
    want[H_MUL] = H(a * b);
    want[H_FMA] = H(a * b + c); // exact in double for these operands: one rounding
    want[H_DIV] = H(a / b);
    want[H_MAX] = a >= b ? A : Bb;
    want[H_MIN] = a <= b ? A : Bb;
    want[H_NEG] = A ^ 0x8000u;
    want[H_ABS] = A & 0x7fffu;
    want[H_SQRT] = H(std::sqrt(std::fabs(a)));
    want[H_CMP] = (unsigned)(a < b) | ((unsigned)(a == c) << 1) | ((unsigned)(a >= b) << 2) |
                  ((unsigned)(b != c) << 3);
    want[H_OPS] = H(hv(H(a + b)) - c);
    want[H_TOINT_RN] = (unsigned)(int)std::nearbyint(a);
    want[H_TOINT_RZ] = (unsigned)(int)std::trunc(a);
    want[H_TOINT_RD] = (unsigned)(int)std::floor(a);
    want[H_TOINT_RU] = (unsigned)(int)std::ceil(a);
    want[H_FROMINT] = H((double)(i * 37 - 20000));
    // x2 = (a, b), y2 = (c, a); low halves first.
    const unsigned s_lo = H(a + c), s_hi = H(b + a);
    want[H2_FMA] = H(a * c + hv(s_lo)) | (H(b * a + hv(s_hi)) << 16);
    want[H2_MUL] = H(a * c) | (H(b * a) << 16);
    want[H2_SUB] = H(a - c) | (H(b - a) << 16);
    want[H2_SWAP] = Bb | (A << 16);
    want[H2_MAX] = (a >= c ? A : C) | ((b >= a ? Bb : A) << 16);
    want[H2_FLOAT] = u_of((float)(a + b));
    want[B_ADD] = B(p + q);
    want[B_SUB] = B(p - q);
    want[B_MUL] = B(p * q);
    want[B_FMA] = B(p * q + r);
    want[B_MAX] = p >= q ? P : Q;
    want[B_MIN] = p <= q ? P : Q;
    want[B_NEG] = P ^ 0x8000u;
    want[B_TOFLOAT] = u_of((float)(p * 2.0));
    want[B2_ADD] = B(p + r) | (B(q + p) << 16);
    want[B2_MUL] = B(p * r) | (B(q * p) << 16);
    want[B2_FMA] = B(p * r + p) | (B(q * p + q) << 16);
    for (int k = 0; k < K_COUNT; ++k) {
      const unsigned got = out[(size_t)i * K_COUNT + k];
      bool ok = got == want[k];
      // __hdiv and hsqrt go through approximate float operations: allow one ulp.
      if (!ok && (k == H_DIV || k == H_SQRT))
        ok = within_ulp(got, want[k], 0x8000u);
      // max/min of +0 and -0 may return either zero.
      if (!ok && (k == H_MAX || k == H_MIN) && a == 0.0 && b == 0.0)
        ok = (got & 0x7fffu) == 0;
      if (!ok) {
        printf("FAIL %s: %s element %d (a=%g b=%g c=%g | p=%g q=%g r=%g): got 0x%x, want 0x%x\n",
               kName, names[k], i, a, b, c, p, q, r, got, want[k]);
        rc = 1;
        break;
      }
    }
  }

  static const char *cnames[8] = {
      "__float2half_rn",     "__float2half_rz",     "__float2half_rd",     "__float2half_ru",
      "__float2bfloat16_rn", "__float2bfloat16_rz", "__float2bfloat16_rd", "__float2bfloat16_ru"};
  for (int i = 0; i < nconv && !rc; ++i) {
    const double x = fin[i];
    const Mode modes[4] = {RN, RZ, RD, RU};
    for (int k = 0; k < 8; ++k) {
      const unsigned want = k < 4 ? H(x, modes[k]) : B(x, modes[k - 4]);
      const unsigned got = conv[i * 8 + k];
      if (got != want) {
        printf("FAIL %s: %s(%.9g) = 0x%04x, want 0x%04x\n", kName, cnames[k], x, got, want);
        rc = 1;
        break;
      }
    }
  }

  for (int g = 0; g < grid && !rc; ++g) {
    double s1 = 0, s2lo = 0, s2hi = 0, sblo = 0, sbhi = 0;
    for (int i = g * block; i < (g + 1) * block && i < n; ++i) {
      s1 += i % 8;
      s2lo += i % 8;
      s2hi += i % 3;
      sblo += (i >> 2) & 1;
      sbhi += 1;
    }
    const unsigned w1 = H(s1), w2 = H(s2lo) | (H(s2hi) << 16), wb = B(sblo) | (B(sbhi) << 16);
    if (hs[g] != w1 || h2s[g] != w2 || b2s[g] != wb) {
      printf("FAIL %s: atomic sums of block %d: half 0x%x/0x%x half2 0x%x/0x%x bf162 0x%x/0x%x\n",
             kName, g, hs[g], w1, h2s[g], w2, b2s[g], wb);
      rc = 1;
    }
  }

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
