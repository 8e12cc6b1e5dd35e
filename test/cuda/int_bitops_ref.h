// int_bitops: the host side shared by the program (int_bitops.cu) and the host backend's test
// (test/host/ProgramsNumericTest.cpp): the input record and the output slots the kernel fills,
// the inputs main() builds, the host model of every output and the check against it. Plain C++
// (host code only), compiled by nvcc's host compiler, clang (CUDA and HIP) and g++.
#pragma once

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>

// The kernel's input record and output slots, outside the namespace: the kernel's mangled name
// (_Z6bitopsPK2IniPy) names In.
typedef unsigned long long u64;
typedef long long i64;

struct In {
  unsigned a, b, c;
  int sa, sb;
  u64 la, lb;
  i64 sla, slb;
  float f;
  double d;
};

// NOLINTBEGIN(readability-identifier-naming)
// clang-format off
#define OUTPUTS(X)                                                                              \
  X(BREV) X(BREVLL) X(CLZ) X(CLZLL) X(FFS) X(FFSLL) X(POPC) X(POPCLL) X(BYTE_PERM) X(FSHL)      \
  X(FSHR) X(FSHLC) X(FSHRC) X(UMULHI) X(MULHI) X(MUL64HI) X(UMUL64HI) X(MUL24) X(UMUL24) X(SAD) \
  X(USAD) X(HADD) X(RHADD) X(UHADD) X(URHADD) X(DIV32) X(REM32) X(UDIV32) X(DIV64) X(REM64)      \
  X(UDIV64) X(UREM64) X(U128LO) X(U128HI) X(DP4A) X(DP4A_U) X(DP2A_LO) X(DP2A_HI) X(VADD4)       \
  X(VSUB2) X(VABSDIFFU4) X(VCMPGTU4) X(VMAXS2) X(VAVGU4) X(VSADU4) X(BFE_U) X(BFE_S) X(BFI)     \
  X(LOP3_XOR) X(LOP3_MAJ) X(F2I_RN) X(F2I_RZ) X(F2I_RD) X(F2I_RU) X(F2U_RN) X(F2LL_RD)          \
  X(F2ULL_RZ) X(D2I_RN) X(D2U_RU) X(D2LL_RZ) X(D2ULL_RD) X(I2F_RN) X(I2F_RZ) X(I2F_RD) X(I2F_RU) \
  X(U2F_RU) X(LL2F_RD) X(LL2D_RN) X(LL2D_RU) X(ULL2D_RZ) X(INT_AS_FLOAT) X(FLOAT_AS_INT)         \
  X(DBL_AS_LL) X(LL_AS_DBL) X(HILO) X(D2HI) X(D2LO) X(MINMAX)
// clang-format on

#define AS_ENUM(name) O_##name,
enum { OUTPUTS(AS_ENUM) O_COUNT };

// The host side: the inputs, the host model and the check.
namespace int_bitops {
inline const char *kName = "int_bitops";

#define AS_NAME(name) #name,
inline const char *kNames[O_COUNT] = {OUTPUTS(AS_NAME)};

inline unsigned h_brev(unsigned v) {
  unsigned r = 0;
  for (int k = 0; k < 32; ++k)
    r |= ((v >> k) & 1u) << (31 - k);
  return r;
}
inline u64 h_brevll(u64 v) {
  return ((u64)h_brev((unsigned)v) << 32) | h_brev((unsigned)(v >> 32));
}
inline unsigned h_clz(u64 v, int bits) {
  unsigned r = 0;
  for (int k = bits - 1; k >= 0 && !((v >> k) & 1u); --k)
    ++r;
  return r;
}
inline unsigned h_ffs(u64 v, int bits) {
  for (int k = 0; k < bits; ++k)
    if ((v >> k) & 1u)
      return k + 1;
  return 0;
}
inline unsigned h_popc(u64 v) {
  unsigned r = 0;
  for (; v; v &= v - 1)
    ++r;
  return r;
}
inline unsigned h_byte_perm(unsigned x, unsigned y, unsigned s) {
  const u64 src = ((u64)y << 32) | x;
  unsigned r = 0;
  for (int k = 0; k < 4; ++k)
    r |= (unsigned)((src >> (8 * ((s >> (4 * k)) & 7u))) & 0xffu) << (8 * k);
  return r;
}
inline unsigned h_mul24(int a, int b) {
  i64 a24 = (i64)((a & 0xffffff) ^ 0x800000) - 0x800000; // sign-extend the low 24 bits
  i64 b24 = (i64)((b & 0xffffff) ^ 0x800000) - 0x800000;
  return (unsigned)(u64)(a24 * b24);
}
inline int h_dp4a(int a, int b, int c) {
  int r = c;
  for (int k = 0; k < 4; ++k)
    r = (int)((unsigned)r +
              (unsigned)((int)(signed char)(a >> (8 * k)) * (int)(signed char)(b >> (8 * k))));
  return r;
}
inline unsigned h_dp4a_u(unsigned a, unsigned b, unsigned c) {
  unsigned r = c;
  for (int k = 0; k < 4; ++k)
    r += ((a >> (8 * k)) & 0xffu) * ((b >> (8 * k)) & 0xffu);
  return r;
}
inline int h_dp2a_lo(int a, int b, int c) {
  int a0 = (short)(a & 0xffff), a1 = (short)((unsigned)a >> 16);
  int b0 = (signed char)(b & 0xff), b1 = (signed char)((b >> 8) & 0xff);
  return (int)((unsigned)c + (unsigned)(a0 * b0) + (unsigned)(a1 * b1));
}
inline unsigned h_dp2a_hi(unsigned a, unsigned b, unsigned c) {
  return c + (a & 0xffffu) * ((b >> 16) & 0xffu) + (a >> 16) * ((b >> 24) & 0xffu);
}
inline unsigned bytewise(unsigned a, unsigned b, unsigned (*f)(unsigned, unsigned)) {
  unsigned r = 0;
  for (int k = 0; k < 4; ++k)
    r |= (f((a >> (8 * k)) & 0xffu, (b >> (8 * k)) & 0xffu) & 0xffu) << (8 * k);
  return r;
}
inline unsigned halfwise(unsigned a, unsigned b, unsigned (*f)(unsigned, unsigned)) {
  return (f(a & 0xffffu, b & 0xffffu) & 0xffffu) | ((f(a >> 16, b >> 16) & 0xffffu) << 16);
}
inline unsigned h_bfe(unsigned a, unsigned pos, unsigned len, bool sign) {
  pos &= 0xffu;
  len &= 0xffu;
  unsigned top = pos + len - 1 < 31 ? pos + len - 1 : 31;
  unsigned sbit = (sign && len != 0) ? (a >> top) & 1u : 0u;
  unsigned d = 0;
  for (unsigned k = 0; k < 32; ++k) {
    unsigned bit = (k < len && pos + k <= 31) ? (a >> (pos + k)) & 1u : sbit;
    d |= bit << k;
  }
  return d;
}
inline unsigned h_bfi(unsigned a, unsigned b, unsigned pos, unsigned len) {
  pos &= 0xffu;
  len &= 0xffu;
  unsigned f = b;
  for (unsigned k = 0; k < len && pos + k <= 31; ++k)
    f = (f & ~(1u << (pos + k))) | (((a >> k) & 1u) << (pos + k));
  return f;
}

enum Mode { RN, RZ, RD, RU };
inline long double round_int(long double v, Mode m) {
  switch (m) {
  case RN:
    return nearbyintl(v);
  case RZ:
    return truncl(v);
  case RD:
    return floorl(v);
  default:
    return ceill(v);
  }
}
// Float -> integer as PTX cvt does it: round, clamp to the range, NaN -> 0.
// A NaN converts to 0, except from a double or into a 64-bit integer, where it gives the top bit
// alone (PTX ISA, cvt): `nan` is that result.
inline long double to_int(long double v, Mode m, long double lo, long double hi,
                          long double nan = 0) {
  if (std::isnan(v))
    return nan;
  long double r = round_int(v, m);
  return r < lo ? lo : (r > hi ? hi : r);
}
inline float round_to_float(long double v, Mode m) {
  float r = (float)v;
  if (m == RZ && fabsl(r) > fabsl(v))
    r = nextafterf(r, 0.0f);
  if (m == RD && r > v)
    r = nextafterf(r, -INFINITY);
  if (m == RU && r < v)
    r = nextafterf(r, INFINITY);
  return r;
}
inline double round_to_double(long double v, Mode m) {
  double r = (double)v;
  if (m == RZ && fabsl(r) > fabsl(v))
    r = nextafter(r, 0.0);
  if (m == RD && r > v)
    r = nextafter(r, -INFINITY);
  if (m == RU && r < v)
    r = nextafter(r, INFINITY);
  return r;
}
template <typename T, typename S> inline T bitcast(S s) {
  T t;
  memcpy(&t, &s, sizeof(T));
  return t;
}

inline void host_model(const In &x, u64 *w) {
  w[O_BREV] = h_brev(x.a);
  w[O_BREVLL] = h_brevll(x.la);
  w[O_CLZ] = h_clz(x.b, 32);
  w[O_CLZLL] = h_clz(x.lb, 64);
  w[O_FFS] = h_ffs(x.b, 32);
  w[O_FFSLL] = h_ffs(x.lb, 64);
  w[O_POPC] = h_popc(x.a);
  w[O_POPCLL] = h_popc(x.la);
  w[O_BYTE_PERM] = h_byte_perm(x.a, x.b, x.c & 0x7777u);
  const u64 hl = ((u64)x.b << 32) | x.a;
  w[O_FSHL] = (unsigned)((hl << (x.c & 31u)) >> 32);
  w[O_FSHR] = (unsigned)(hl >> (x.c & 31u));
  const unsigned sc = (x.c & 63u) < 32u ? (x.c & 63u) : 32u;
  w[O_FSHLC] = (unsigned)((hl << sc) >> 32);
  w[O_FSHRC] = (unsigned)(hl >> sc);
  w[O_UMULHI] = (unsigned)(((u64)x.a * x.b) >> 32);
  w[O_MULHI] = (unsigned)(((i64)x.sa * x.sb) >> 32);
  w[O_MUL64HI] = (u64)(((__int128)x.sla * x.slb) >> 64);
  w[O_UMUL64HI] = (u64)(((unsigned __int128)x.la * x.lb) >> 64);
  w[O_MUL24] = h_mul24(x.sa, x.sb);
  w[O_UMUL24] = (x.a & 0xffffffu) * (x.b & 0xffffffu);
  w[O_SAD] = (unsigned)(x.sa > x.sb ? (i64)x.sa - x.sb : (i64)x.sb - x.sa) + (x.c & 0xffffu);
  w[O_USAD] = (x.a > x.b ? x.a - x.b : x.b - x.a) + (x.c & 0xffffu);
  w[O_HADD] = (unsigned)(int)(((i64)x.sa + x.sb) >> 1);
  w[O_RHADD] = (unsigned)(int)(((i64)x.sa + x.sb + 1) >> 1);
  w[O_UHADD] = (unsigned)(((u64)x.a + x.b) >> 1);
  w[O_URHADD] = (unsigned)(((u64)x.a + x.b + 1) >> 1);
  const int d32 = x.sb >> (x.c & 15u) | 1;
  w[O_DIV32] = (unsigned)(x.sa / d32);
  w[O_REM32] = (unsigned)(x.sa % d32);
  w[O_UDIV32] = x.a / ((x.b >> (x.c & 15u)) | 1u);
  const i64 d64 = x.slb >> (x.c & 31u) | 1;
  w[O_DIV64] = (u64)(x.sla / d64);
  w[O_REM64] = (u64)(x.sla % d64);
  const u64 ud64 = (x.lb >> (x.c & 47u)) | 1u;
  w[O_UDIV64] = x.la / ud64;
  w[O_UREM64] = x.la % ud64;
  const unsigned __int128 p = (unsigned __int128)x.la * x.lb + x.c;
  w[O_U128LO] = (u64)p;
  w[O_U128HI] = (u64)(p >> 64);
  w[O_DP4A] = (unsigned)h_dp4a(x.sa, x.sb, (int)x.c);
  w[O_DP4A_U] = h_dp4a_u(x.a, x.b, x.c);
  w[O_DP2A_LO] = (unsigned)h_dp2a_lo(x.sa, x.sb, (int)x.c);
  w[O_DP2A_HI] = h_dp2a_hi(x.a, x.b, x.c);
  w[O_VADD4] = bytewise(x.a, x.b, [](unsigned p, unsigned q) { return p + q; });
  w[O_VSUB2] = halfwise(x.a, x.b, [](unsigned p, unsigned q) { return p - q; });
  w[O_VABSDIFFU4] =
      bytewise(x.a, x.b, [](unsigned p, unsigned q) { return p > q ? p - q : q - p; });
  w[O_VCMPGTU4] = bytewise(x.a, x.b, [](unsigned p, unsigned q) { return p > q ? 0xffu : 0u; });
  w[O_VMAXS2] = halfwise(x.a, x.b, [](unsigned p, unsigned q) {
    return (unsigned)((short)p > (short)q ? (short)p : (short)q);
  });
  w[O_VAVGU4] = bytewise(x.a, x.b, [](unsigned p, unsigned q) { return (p + q + 1) >> 1; });
  unsigned sad = 0;
  for (int k = 0; k < 4; ++k) {
    unsigned p = (x.a >> (8 * k)) & 0xffu, q = (x.b >> (8 * k)) & 0xffu;
    sad += p > q ? p - q : q - p;
  }
  w[O_VSADU4] = sad;
  w[O_BFE_U] = h_bfe(x.a, x.c % 36u, (x.c >> 8) % 34u, false);
  w[O_BFE_S] = h_bfe((unsigned)x.sa, x.c % 36u, (x.c >> 8) % 34u, true);
  w[O_BFI] = h_bfi(x.a, x.b, (x.c >> 16) % 36u, (x.c >> 24) % 34u);
  w[O_LOP3_XOR] = x.a ^ x.b ^ x.c;
  w[O_LOP3_MAJ] = (x.a & x.b) | (x.a & x.c) | (x.b & x.c);
  const long double f = x.f, d = x.d;
  const long double i32lo = INT_MIN, i32hi = INT_MAX, u32hi = UINT_MAX;
  const long double i64lo = (long double)LLONG_MIN, i64hi = (long double)LLONG_MAX,
                    u64hi = (long double)ULLONG_MAX;
  w[O_F2I_RN] = (unsigned)(int)to_int(f, RN, i32lo, i32hi);
  w[O_F2I_RZ] = (unsigned)(int)to_int(f, RZ, i32lo, i32hi);
  w[O_F2I_RD] = (unsigned)(int)to_int(f, RD, i32lo, i32hi);
  w[O_F2I_RU] = (unsigned)(int)to_int(f, RU, i32lo, i32hi);
  w[O_F2U_RN] = (unsigned)to_int(f, RN, 0, u32hi);
  w[O_F2LL_RD] = (u64)(i64)to_int(f, RD, i64lo, i64hi, i64lo);
  w[O_F2ULL_RZ] = (u64)to_int(f, RZ, 0, u64hi, -i64lo);
  w[O_D2I_RN] = (unsigned)(int)to_int(d, RN, i32lo, i32hi, i32lo);
  w[O_D2U_RU] = (unsigned)to_int(d, RU, 0, u32hi, -i32lo);
  w[O_D2LL_RZ] = (u64)(i64)to_int(d, RZ, i64lo, i64hi, i64lo);
  w[O_D2ULL_RD] = (u64)to_int(d, RD, 0, u64hi, -i64lo);
  w[O_I2F_RN] = bitcast<unsigned>(round_to_float(x.sa, RN));
  w[O_I2F_RZ] = bitcast<unsigned>(round_to_float(x.sa, RZ));
  w[O_I2F_RD] = bitcast<unsigned>(round_to_float(x.sa, RD));
  w[O_I2F_RU] = bitcast<unsigned>(round_to_float(x.sa, RU));
  w[O_U2F_RU] = bitcast<unsigned>(round_to_float(x.a, RU));
  w[O_LL2F_RD] = bitcast<unsigned>(round_to_float(x.sla, RD));
  w[O_LL2D_RN] = bitcast<u64>(round_to_double(x.sla, RN));
  w[O_LL2D_RU] = bitcast<u64>(round_to_double(x.sla, RU));
  w[O_ULL2D_RZ] = bitcast<u64>(round_to_double(x.la, RZ));
  w[O_INT_AS_FLOAT] = bitcast<unsigned>(bitcast<float>(x.sa & 0xbfffffff) * 2.0f);
  w[O_FLOAT_AS_INT] = bitcast<unsigned>(x.f);
  w[O_DBL_AS_LL] = bitcast<u64>(x.d);
  w[O_LL_AS_DBL] = bitcast<u64>(bitcast<double>(x.sla & ~(1ll << 62)) * 0.5);
  w[O_HILO] = ((u64)(unsigned)x.sa << 32) | (unsigned)x.sb;
  w[O_D2HI] = (unsigned)(bitcast<u64>(x.d) >> 32);
  w[O_D2LO] = (unsigned)bitcast<u64>(x.d);
  w[O_MINMAX] = (unsigned)((x.sa < x.sb ? x.sa : x.sb) ^
                           ((x.sa >> 3) > (x.sb >> 5) ? x.sa >> 3 : x.sb >> 5)) +
                ((u64)((x.a < x.b ? x.a : x.b) ^ (x.c > x.a ? x.c : x.a)) << 32) +
                (u64)(x.sa < 0 ? -(i64)x.sa : (i64)x.sa) +
                (u64)(x.sla < 0 ? (u64)0 - (u64)x.sla : (u64)x.sla);
}

/// The inputs main() builds: n records, a fixed pseudo-random sequence after special values.
inline void make_inputs(In *hin, int n) {
  u64 s = 0x243f6a8885a308d3ull;
  auto next = [&s]() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  };
  const float fspecial[] = {
      NAN,    INFINITY, -INFINITY, 2147483520.0f, 2147483648.0f, -2147483648.0f, 4294967296.0f,
      0.5f,   1.5f,     2.5f,      -0.5f,         -2.5f,         -0.0f,          1e30f,
      -1e30f, 9.3e18f,  1.9e19f,   -9.3e18f,      0.49999997f,   8388609.5f};
  const double dspecial[] = {NAN,    -INFINITY, 2147483647.5, -2147483648.5, 4294967295.2, -0.7,
                             9.3e18, 1.9e19,    -9.3e18,      2.5,           -2.5,         1e300};
  const int nfs = (int)(sizeof(fspecial) / sizeof(fspecial[0]));
  const int nds = (int)(sizeof(dspecial) / sizeof(dspecial[0]));
  for (int i = 0; i < n; ++i) {
    In &x = hin[i];
    u64 r1 = next(), r2 = next(), r3 = next();
    x.a = (unsigned)r1;
    x.b = (unsigned)(r1 >> 32);
    x.c = (unsigned)r2;
    // Sparse values now and then, so that clz/ffs/popc see zeros and edges.
    if (i % 5 == 1)
      x.b &= 0x00f00000u;
    if (i % 11 == 2)
      x.b = 0;
    x.sa = (int)(unsigned)(r2 >> 32);
    x.sb = (int)(unsigned)r3;
    // INT_MIN / LLONG_MIN would make abs() and x / -1 undefined on the host.
    if (x.sa == INT_MIN)
      x.sa = INT_MIN + 1;
    if (x.sb == INT_MIN)
      x.sb = INT_MIN + 1;
    if (i % 7 == 3)
      x.sb = -x.sb / 1000;
    x.la = next();
    x.lb = next();
    if (i % 6 == 4)
      x.lb >>= (r3 >> 58);
    if (i % 13 == 5)
      x.lb = 0;
    x.sla = (i64)next();
    x.slb = (i64)next();
    if (i % 3 == 0)
      x.sla >>= 20;
    if (x.sla == LLONG_MIN)
      x.sla = LLONG_MIN + 1;
    const u64 r4 = next();
    if (i < nfs) {
      x.f = fspecial[i];
    } else {
      // Mostly in-range magnitudes, some beyond 2^31 and 2^63.
      const int e = (int)(r4 % 72) - 4;
      x.f = ldexpf((r4 >> 40 & 1) ? -1.0f : 1.0f, e) *
            (1.0f + (float)((r4 >> 8) & 0x7fffff) * 0x1p-23f);
    }
    if (i < nds) {
      x.d = dspecial[i];
    } else {
      const int e = (int)((r4 >> 32) % 72) - 4;
      x.d = ldexp((r4 >> 41 & 1) ? -1.0 : 1.0, e) * (1.0 + (double)(next() >> 12) * 0x1p-52);
    }
  }
}

/// main()'s check of the outputs: 0 when every one is right (the first wrong one is printed).
inline int check(const In *hin, int n, const u64 *hout) {
  int rc = 0;
  for (int i = 0; i < n && !rc; ++i) {
    u64 want[O_COUNT];
    host_model(hin[i], want);
    for (int k = 0; k < O_COUNT; ++k) {
      const u64 got = hout[(size_t)i * O_COUNT + k];
      if (got != want[k]) {
        printf("FAIL %s: %s element %d (a=0x%x b=0x%x c=0x%x sa=%d sb=%d la=0x%llx lb=0x%llx "
               "f=%a d=%a): got 0x%llx, want 0x%llx\n",
               kName, kNames[k], i, hin[i].a, hin[i].b, hin[i].c, hin[i].sa, hin[i].sb, hin[i].la,
               hin[i].lb, (double)hin[i].f, hin[i].d, got, want[k]);
        rc = 1;
        break;
      }
    }
  }
  return rc;
}
} // namespace int_bitops
// NOLINTEND(readability-identifier-naming)
