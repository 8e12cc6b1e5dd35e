// half_bf16: the host side shared by the program (half_bf16.cu) and the host backend's test
// (test/host/ProgramsNumericTest.cpp): the output slots the kernels fill, the host reference that
// rounds exact (double) results to half and bfloat16 itself, the inputs main() builds and the
// check of every output. Plain C++ (host code only), compiled by nvcc's host compiler, clang
// (CUDA and HIP) and g++.
#pragma once

#include <cfloat>
#include <cmath>
#include <cstdio>
#include <cstring>

// NOLINTBEGIN(readability-identifier-naming)
// The output slots of arith.
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

// The host side: the reference, the inputs and the check.
namespace half_bf16 {
inline const char *kName = "half_bf16";

enum Mode { RN, RZ, RD, RU };

// Round v to a binary format with `ebits` exponent and `mbits` stored mantissa bits.
inline unsigned to_bits(double v, int ebits, int mbits, Mode mode) {
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

inline double from_bits(unsigned b, int ebits, int mbits) {
  const int bias = (1 << (ebits - 1)) - 1;
  const unsigned e = (b >> mbits) & ((1u << ebits) - 1u), m = b & ((1u << mbits) - 1u);
  const double s = (b >> (ebits + mbits)) & 1u ? -1.0 : 1.0;
  if (e == (1u << ebits) - 1u)
    return m ? NAN : s * INFINITY;
  if (e == 0)
    return s * std::ldexp((double)m, 1 - bias - mbits);
  return s * std::ldexp((double)(m | (1u << mbits)), (int)e - bias - mbits);
}

inline unsigned H(double v, Mode m = RN) { return to_bits(v, 5, 10, m); }
inline unsigned B(double v, Mode m = RN) { return to_bits(v, 8, 7, m); }
inline double hv(unsigned b) { return from_bits(b, 5, 10); }
inline double bv(unsigned b) { return from_bits(b, 8, 7); }

inline unsigned u_of(float f) {
  unsigned u;
  memcpy(&u, &f, 4);
  return u;
}

// Within one unit in the last place (same sign, neighbouring encodings).
inline bool within_ulp(unsigned got, unsigned want, unsigned sign_bit) {
  if (got == want)
    return true;
  if ((got ^ want) & sign_bit)
    return false;
  return got + 1 == want || want + 1 == got;
}

/// The inputs main() builds: the six operand arrays h[0..5] (n each: half a, b, c, then
/// bfloat16 p, q, r) and the nconv conversion inputs fin.
inline void make_inputs(int n, unsigned short *const *h, int nconv, float *fin) {
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
}

/// main()'s check of the outputs: arith's (out), convert's (conv) and the per-block atomic sums
/// (hs, h2s, b2s) of blocks of `block` threads; 0 when every one is right.
inline int check(int n, int nconv, int block, const unsigned short *const *h, const float *fin,
                 const unsigned *out, const unsigned *conv, const unsigned short *hs,
                 const unsigned *h2s, const unsigned *b2s) {
  const int grid = (n + block - 1) / block;
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
  return rc;
}
} // namespace half_bf16
// NOLINTEND(readability-identifier-naming)
