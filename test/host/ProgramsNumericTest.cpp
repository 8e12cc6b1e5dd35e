// The numeric kernels of the project's CUDA test programs (int_bitops, math_funcs, half_bf16;
// nvcc's sm_90 PTX) on the host backend, on gfx90a (wave64) and gfx1100 (wave32). The CPU
// references and the checks are the programs' own host code (test/cuda/*.cu), taken over as they
// are: integer and bit results, correctly rounded operations and conversions bit for bit; the
// math library within the programs' tolerances (see math_funcs below).
#include "HostTestSupport.h"

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>

using namespace host_test;

// The programs' code keeps its own names and style; only main() is split into inputs and checks.
// NOLINTBEGIN(readability-identifier-naming)
namespace int_bitops {
const char *kName = "int_bitops";

typedef unsigned long long u64;
typedef long long i64;

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
#define AS_NAME(name) #name,
const char *kNames[O_COUNT] = {OUTPUTS(AS_NAME)};

struct In {
  unsigned a, b, c;
  int sa, sb;
  u64 la, lb;
  i64 sla, slb;
  float f;
  double d;
};

unsigned h_brev(unsigned v) {
  unsigned r = 0;
  for (int k = 0; k < 32; ++k)
    r |= ((v >> k) & 1u) << (31 - k);
  return r;
}
u64 h_brevll(u64 v) { return ((u64)h_brev((unsigned)v) << 32) | h_brev((unsigned)(v >> 32)); }
unsigned h_clz(u64 v, int bits) {
  unsigned r = 0;
  for (int k = bits - 1; k >= 0 && !((v >> k) & 1u); --k)
    ++r;
  return r;
}
unsigned h_ffs(u64 v, int bits) {
  for (int k = 0; k < bits; ++k)
    if ((v >> k) & 1u)
      return k + 1;
  return 0;
}
unsigned h_popc(u64 v) {
  unsigned r = 0;
  for (; v; v &= v - 1)
    ++r;
  return r;
}
unsigned h_byte_perm(unsigned x, unsigned y, unsigned s) {
  const u64 src = ((u64)y << 32) | x;
  unsigned r = 0;
  for (int k = 0; k < 4; ++k)
    r |= (unsigned)((src >> (8 * ((s >> (4 * k)) & 7u))) & 0xffu) << (8 * k);
  return r;
}
unsigned h_mul24(int a, int b) {
  i64 a24 = (i64)((a & 0xffffff) ^ 0x800000) - 0x800000; // sign-extend the low 24 bits
  i64 b24 = (i64)((b & 0xffffff) ^ 0x800000) - 0x800000;
  return (unsigned)(u64)(a24 * b24);
}
int h_dp4a(int a, int b, int c) {
  int r = c;
  for (int k = 0; k < 4; ++k)
    r = (int)((unsigned)r +
              (unsigned)((int)(signed char)(a >> (8 * k)) * (int)(signed char)(b >> (8 * k))));
  return r;
}
unsigned h_dp4a_u(unsigned a, unsigned b, unsigned c) {
  unsigned r = c;
  for (int k = 0; k < 4; ++k)
    r += ((a >> (8 * k)) & 0xffu) * ((b >> (8 * k)) & 0xffu);
  return r;
}
int h_dp2a_lo(int a, int b, int c) {
  int a0 = (short)(a & 0xffff), a1 = (short)((unsigned)a >> 16);
  int b0 = (signed char)(b & 0xff), b1 = (signed char)((b >> 8) & 0xff);
  return (int)((unsigned)c + (unsigned)(a0 * b0) + (unsigned)(a1 * b1));
}
unsigned h_dp2a_hi(unsigned a, unsigned b, unsigned c) {
  return c + (a & 0xffffu) * ((b >> 16) & 0xffu) + (a >> 16) * ((b >> 24) & 0xffu);
}
unsigned bytewise(unsigned a, unsigned b, unsigned (*f)(unsigned, unsigned)) {
  unsigned r = 0;
  for (int k = 0; k < 4; ++k)
    r |= (f((a >> (8 * k)) & 0xffu, (b >> (8 * k)) & 0xffu) & 0xffu) << (8 * k);
  return r;
}
unsigned halfwise(unsigned a, unsigned b, unsigned (*f)(unsigned, unsigned)) {
  return (f(a & 0xffffu, b & 0xffffu) & 0xffffu) | ((f(a >> 16, b >> 16) & 0xffffu) << 16);
}
unsigned h_bfe(unsigned a, unsigned pos, unsigned len, bool sign) {
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
unsigned h_bfi(unsigned a, unsigned b, unsigned pos, unsigned len) {
  pos &= 0xffu;
  len &= 0xffu;
  unsigned f = b;
  for (unsigned k = 0; k < len && pos + k <= 31; ++k)
    f = (f & ~(1u << (pos + k))) | (((a >> k) & 1u) << (pos + k));
  return f;
}

enum Mode { RN, RZ, RD, RU };
long double round_int(long double v, Mode m) {
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
// Float -> integer as PTX cvt does it: round, clamp to the range; a NaN gives 0, except from a
// double or into a 64-bit integer, where it gives the top bit alone (`nan`).
long double to_int(long double v, Mode m, long double lo, long double hi, long double nan = 0) {
  if (std::isnan(v))
    return nan;
  long double r = round_int(v, m);
  return r < lo ? lo : (r > hi ? hi : r);
}
float round_to_float(long double v, Mode m) {
  float r = (float)v;
  if (m == RZ && fabsl(r) > fabsl(v))
    r = nextafterf(r, 0.0f);
  if (m == RD && r > v)
    r = nextafterf(r, -INFINITY);
  if (m == RU && r < v)
    r = nextafterf(r, INFINITY);
  return r;
}
double round_to_double(long double v, Mode m) {
  double r = (double)v;
  if (m == RZ && fabsl(r) > fabsl(v))
    r = nextafter(r, 0.0);
  if (m == RD && r > v)
    r = nextafter(r, -INFINITY);
  if (m == RU && r < v)
    r = nextafter(r, INFINITY);
  return r;
}
template <typename T, typename S> static T bitcast(S s) {
  T t;
  memcpy(&t, &s, sizeof(T));
  return t;
}

void host_model(const In &x, u64 *w) {
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

/// The inputs main() builds.
std::vector<In> inputs() {
  const int n = 1000;
  std::vector<In> v(n);
  In *hin = v.data();
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
  return v;
}

/// main()'s check of the outputs: 0 when every one is right (the first wrong one is printed).
int check(const In *hin, int n, const u64 *hout) {
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

TEST_CASE("int_bitops: integer and bit intrinsics, conversions in every rounding mode",
          "[programs]") {
  using namespace int_bitops;
  std::vector<In> Inputs = inputs();
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("int_bitops.sm90.ptx", Target);
    int N = int(Inputs.size());
    Buffer<In> DIn(Inputs);
    Buffer<u64> DOut(size_t(N) * O_COUNT);
    In *PI = DIn.get();
    u64 *PO = DOut.get();
    launch(M, "_Z6bitopsPK2IniPy", {uint32_t(N + 255) / 256}, {256}, {&PI, &N, &PO});
    INFO(Target);
    CHECK(check(Inputs.data(), N, DOut.read().data()) == 0);
  }
}

namespace math_funcs {
const char *kName = "math_funcs";

enum {
  F_SIN,
  F_COS,
  F_TAN,
  F_EXP,
  F_EXP2,
  F_LOG,
  F_LOG2,
  F_LOG10,
  F_SQRT,
  F_RSQRT,
  F_POW,
  F_ATAN2,
  F_ASIN,
  F_SINH,
  F_TANH,
  F_ERF,
  F_CBRT,
  F_HYPOT,
  F_FMOD,
  F_FLOOR,
  F_CEIL,
  F_TRUNC,
  F_ROUND,
  F_RINT,
  F_FMIN,
  F_FMAX,
  F_FMA,
  F_LDEXP,
  F_FREXP_M,
  F_FREXP_E,
  F_MODF,
  F_COPYSIGN,
  F_SINCOS_S,
  F_SINCOS_C,
  F_FDIVIDE,
  F_FAST_SIN,
  F_FAST_COS,
  F_FAST_EXP,
  F_FAST_LOG,
  F_FAST_POW,
  F_SATURATE,
  F_MUL_RN,
  F_ADD_RZ,
  F_DIV_RN,
  F_RCP_RN,
  F_SQRT_RN,
  F_FMA_RZ,
  F_EXPM1,
  F_LOG1P,
  F_FDIM,
  F_DIV,
  F_COUNT
};

enum {
  D_SIN,
  D_COS,
  D_TAN,
  D_EXP,
  D_LOG,
  D_SQRT,
  D_POW,
  D_ATAN2,
  D_FMA,
  D_CBRT,
  D_RSQRT,
  D_ERF,
  D_FLOOR,
  D_CEIL,
  D_ROUND,
  D_FMOD,
  D_LDEXP,
  D_HYPOT,
  D_LOG1P,
  D_EXPM1,
  D_SINH,
  D_ACOS,
  D_DIV,
  D_COUNT
};

float add_rz(float a, float b) {
  long double s = (long double)a + (long double)b; // exact for these operands
  float r = (float)s;
  if (fabsl((long double)r) > fabsl(s))
    r = nextafterf(r, 0.0f);
  return r;
}

float fma_rz(float a, float b, float c) {
  long double s = (long double)a * (long double)b + (long double)c; // exact in 64 bits here
  float r = (float)s;
  if (fabsl((long double)r) > fabsl(s))
    r = nextafterf(r, 0.0f);
  return r;
}

struct Tol {
  double atol, rtol;
};

bool close(double got, double want, Tol t) {
  if (std::isnan(want))
    return std::isnan(got);
  if (std::isinf(want))
    return got == want;
  return std::fabs(got - want) <= t.atol + t.rtol * std::fabs(want);
}

/// main()'s checks. The tolerances are the program's: exact for the correctly rounded
/// operations, and for the others bounds that cover the maximum ulp errors the CUDA C++
/// Programming Guide lists (Mathematical Functions appendix: e.g. sinf/cosf 2 ulp over this
/// range, expf 2 ulp, powf 4 ulp, double functions 1-2 ulp; the fast intrinsics __sinf/__expf/
/// __logf/__powf/__fdividef by their documented absolute or relative error bounds).
int check(int n, const float *hx, const float *hy, const double *hxd, const double *hyd,
          const float *hout, const double *houtd, unsigned flags) {
  const Tol exact{0, 0}, ulp2{1e-30, 4e-7}, ulp4{1e-30, 8e-7}, trig{1e-6, 8e-7}, fastTrig{2e-6, 0},
      fastExp{0, 1e-5}, fastLog{2e-6, 1e-5}, fastPow{0, 2e-4};
  static const char *fnames[F_COUNT] = {
      "sinf",      "cosf",      "tanf",      "expf",       "exp2f",     "logf",        "log2f",
      "log10f",    "sqrtf",     "rsqrtf",    "powf",       "atan2f",    "asinf",       "sinhf",
      "tanhf",     "erff",      "cbrtf",     "hypotf",     "fmodf",     "floorf",      "ceilf",
      "truncf",    "roundf",    "rintf",     "fminf",      "fmaxf",     "fmaf",        "ldexpf",
      "frexpf.m",  "frexpf.e",  "modff",     "copysignf",  "sincosf.s", "sincosf.c",   "__fdividef",
      "__sinf",    "__cosf",    "__expf",    "__logf",     "__powf",    "__saturatef", "__fmul_rn",
      "__fadd_rz", "__fdiv_rn", "__frcp_rn", "__fsqrt_rn", "__fmaf_rz", "expm1f",      "log1pf",
      "fdimf",     "div"};
  int rc = 0;
  for (int i = 0; i < n && !rc; ++i) {
    const float x = hx[i], y = hy[i];
    const double xd = x, yd = y;
    double want[F_COUNT];
    Tol tol[F_COUNT];
    for (int k = 0; k < F_COUNT; ++k)
      tol[k] = exact;
    want[F_SIN] = sin(xd);
    tol[F_SIN] = trig;
    want[F_COS] = cos(xd);
    tol[F_COS] = trig;
    want[F_TAN] = tan((double)(x * 0.125f));
    tol[F_TAN] = ulp4;
    want[F_EXP] = exp(xd);
    tol[F_EXP] = ulp2;
    want[F_EXP2] = exp2(xd);
    tol[F_EXP2] = ulp2;
    want[F_LOG] = log(yd);
    tol[F_LOG] = trig;
    want[F_LOG2] = log2(yd);
    tol[F_LOG2] = trig;
    want[F_LOG10] = log10(yd);
    tol[F_LOG10] = trig;
    want[F_SQRT] = sqrtf(y);
    want[F_RSQRT] = 1.0 / sqrt(yd);
    tol[F_RSQRT] = ulp2;
    want[F_POW] = pow(yd, xd);
    tol[F_POW] = {1e-30, 2e-6};
    want[F_ATAN2] = atan2(xd, yd);
    tol[F_ATAN2] = ulp4;
    want[F_ASIN] = asin((double)(x * 0.125f));
    tol[F_ASIN] = ulp4;
    want[F_SINH] = sinh((double)(x * 0.5f));
    tol[F_SINH] = {1e-6, 8e-7};
    want[F_TANH] = tanh(xd);
    tol[F_TANH] = {1e-6, 8e-7};
    want[F_ERF] = erf((double)(x * 0.5f));
    tol[F_ERF] = {1e-6, 8e-7};
    want[F_CBRT] = cbrt(xd);
    tol[F_CBRT] = ulp2;
    want[F_HYPOT] = hypot(xd, yd);
    tol[F_HYPOT] = ulp4;
    want[F_FMOD] = fmodf(x, y);
    want[F_FLOOR] = floorf(x);
    want[F_CEIL] = ceilf(x);
    want[F_TRUNC] = truncf(x);
    want[F_ROUND] = roundf(x * 2.0f);
    want[F_RINT] = rintf(x * 2.0f);
    want[F_FMIN] = fminf(x, y);
    want[F_FMAX] = fmaxf(x, y);
    want[F_FMA] = fmaf(x, y, 1.5f);
    want[F_LDEXP] = ldexpf(x, i % 10 - 5);
    int e;
    want[F_FREXP_M] = frexpf(x, &e);
    want[F_FREXP_E] = (float)e;
    float ip;
    float frac = modff(x, &ip);
    want[F_MODF] = frac + 100.0f * ip;
    want[F_COPYSIGN] = copysignf(y, x);
    want[F_SINCOS_S] = sin(xd);
    tol[F_SINCOS_S] = trig;
    want[F_SINCOS_C] = cos(xd);
    tol[F_SINCOS_C] = trig;
    want[F_FDIVIDE] = xd / yd;
    tol[F_FDIVIDE] = ulp2;
    want[F_FAST_SIN] = sin((double)(x * 0.375f));
    tol[F_FAST_SIN] = fastTrig;
    want[F_FAST_COS] = cos((double)(x * 0.375f));
    tol[F_FAST_COS] = fastTrig;
    want[F_FAST_EXP] = exp(xd);
    tol[F_FAST_EXP] = fastExp;
    want[F_FAST_LOG] = log(yd);
    tol[F_FAST_LOG] = fastLog;
    want[F_FAST_POW] = pow(yd, (double)(x * 0.5f));
    tol[F_FAST_POW] = fastPow;
    {
      float q = x * 0.25f;
      want[F_SATURATE] = q < 0.0f ? 0.0f : (q > 1.0f ? 1.0f : q);
    }
    want[F_MUL_RN] = x * y;
    want[F_ADD_RZ] = add_rz(x, y);
    want[F_DIV_RN] = x / y;
    want[F_RCP_RN] = 1.0f / y;
    want[F_SQRT_RN] = sqrtf(y);
    want[F_FMA_RZ] = fma_rz(x, y, 1.5f);
    want[F_EXPM1] = expm1((double)(x * 0.25f));
    tol[F_EXPM1] = {1e-7, 8e-7};
    want[F_LOG1P] = log1p((double)(y - 0.2f));
    tol[F_LOG1P] = {1e-7, 8e-7};
    want[F_FDIM] = fdimf(x, y);
    want[F_DIV] = x / y; // IEEE division (nvcc's default -prec-div=true)
    for (int k = 0; k < F_COUNT; ++k) {
      const double got = hout[(size_t)i * F_COUNT + k];
      // Exact results are compared as floats: want[k] already holds a float value.
      if (!close(got, want[k], tol[k])) {
        printf("FAIL %s: %s at x=%.9g y=%.9g: got %.9g, want %.9g\n", kName, fnames[k], x, y, got,
               want[k]);
        rc = 1;
        break;
      }
    }
  }

  static const char *dnames[D_COUNT] = {"sin",   "cos",   "tan",   "exp",  "log",   "sqrt",
                                        "pow",   "atan2", "fma",   "cbrt", "rsqrt", "erf",
                                        "floor", "ceil",  "round", "fmod", "ldexp", "hypot",
                                        "log1p", "expm1", "sinh",  "acos", "div"};
  const Tol d_approx{1e-300, 2e-15}, d_trig{1e-15, 2e-15};
  for (int i = 0; i < n && !rc; ++i) {
    const double x = hxd[i], y = hyd[i];
    double want[D_COUNT];
    Tol tol[D_COUNT];
    for (int k = 0; k < D_COUNT; ++k)
      tol[k] = d_approx;
    want[D_SIN] = sin(x);
    tol[D_SIN] = d_trig;
    want[D_COS] = cos(x);
    tol[D_COS] = d_trig;
    want[D_TAN] = tan(x * 0.125);
    want[D_EXP] = exp(x);
    want[D_LOG] = log(y);
    tol[D_LOG] = d_trig;
    want[D_SQRT] = sqrt(y);
    tol[D_SQRT] = exact;
    want[D_POW] = pow(y, x);
    tol[D_POW] = {1e-300, 4e-15};
    want[D_ATAN2] = atan2(x, y);
    tol[D_ATAN2] = d_trig;
    want[D_FMA] = fma(x, y, 1.5);
    tol[D_FMA] = exact;
    want[D_CBRT] = cbrt(x);
    want[D_RSQRT] = 1.0 / sqrt(y);
    want[D_ERF] = erf(x * 0.5);
    tol[D_ERF] = d_trig;
    want[D_FLOOR] = floor(x);
    tol[D_FLOOR] = exact;
    want[D_CEIL] = ceil(x);
    tol[D_CEIL] = exact;
    want[D_ROUND] = round(x * 2.0);
    tol[D_ROUND] = exact;
    want[D_FMOD] = fmod(x, y);
    tol[D_FMOD] = exact;
    want[D_LDEXP] = ldexp(x, i % 20 - 10);
    tol[D_LDEXP] = exact;
    want[D_HYPOT] = hypot(x, y);
    want[D_LOG1P] = log1p(y - 0.2);
    tol[D_LOG1P] = d_trig;
    want[D_EXPM1] = expm1(x * 0.25);
    tol[D_EXPM1] = d_trig;
    want[D_SINH] = sinh(x * 0.5);
    tol[D_SINH] = d_trig;
    want[D_ACOS] = acos(x * 0.125);
    want[D_DIV] = x / y;
    tol[D_DIV] = exact;
    for (int k = 0; k < D_COUNT; ++k) {
      const double got = houtd[(size_t)i * D_COUNT + k];
      if (!close(got, want[k], tol[k])) {
        printf("FAIL %s: double %s at x=%.17g y=%.17g: got %.17g, want %.17g\n", kName, dnames[k],
               x, y, got, want[k]);
        rc = 1;
        break;
      }
    }
  }

  const unsigned want_flags = (1u << 18) - 1u;
  if (!rc && flags != want_flags) {
    printf("FAIL %s: special-value flags 0x%05x, want 0x%05x (missing 0x%05x)\n", kName, flags,
           want_flags, want_flags & ~flags);
    rc = 1;
  }
  return rc;
}
} // namespace math_funcs

TEST_CASE("math_funcs: the CUDA math library in single and double precision", "[programs]") {
  using namespace math_funcs;
  const int n = 1500;
  std::vector<float> hx(n), hy(n);
  std::vector<double> hxd(n), hyd(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = -8.0f + 16.0f * (float)i / (float)n;
    hy[i] = 0.25f + 3.0f * (float)((i * 7) % n) / (float)n;
    hxd[i] = -8.0 + 16.0 * (double)i / (double)n + 1e-9 * (i % 13);
    hyd[i] = 0.25 + 3.0 * (double)((i * 11) % n) / (double)n;
  }
  const float Specials[4] = {0.0f, 1.0f, INFINITY, NAN};
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("math_funcs.sm90.ptx", Target);
    Buffer<float> DX(hx), DY(hy), DOut(size_t(n) * F_COUNT),
        DS(std::vector<float>(Specials, Specials + 4));
    Buffer<double> DXD(hxd), DYD(hyd), DOutD(size_t(n) * D_COUNT);
    Buffer<unsigned> DFlags(1);
    float *PX = DX.get(), *PY = DY.get(), *PO = DOut.get(), *PS = DS.get();
    double *PXD = DXD.get(), *PYD = DYD.get(), *POD = DOutD.get();
    unsigned *PF = DFlags.get();
    int N = n;
    launch(M, "_Z10float_mathPKfS0_iPf", {uint32_t(n + 127) / 128}, {128}, {&PX, &PY, &N, &PO});
    launch(M, "_Z11double_mathPKdS0_iPd", {uint32_t(n + 127) / 128}, {128}, {&PXD, &PYD, &N, &POD});
    launch(M, "_Z8specialsPKfPj", {1}, {1}, {&PS, &PF});
    INFO(Target);
    CHECK(check(n, hx.data(), hy.data(), hxd.data(), hyd.data(), DOut.read().data(),
                DOutD.read().data(), DFlags.read()[0]) == 0);
  }
}

namespace half_bf16 {
const char *kName = "half_bf16";

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

enum Mode { RN, RZ, RD, RU };

// Round v to a binary format with `ebits` exponent and `mbits` stored mantissa bits.
unsigned to_bits(double v, int ebits, int mbits, Mode mode) {
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

double from_bits(unsigned b, int ebits, int mbits) {
  const int bias = (1 << (ebits - 1)) - 1;
  const unsigned e = (b >> mbits) & ((1u << ebits) - 1u), m = b & ((1u << mbits) - 1u);
  const double s = (b >> (ebits + mbits)) & 1u ? -1.0 : 1.0;
  if (e == (1u << ebits) - 1u)
    return m ? NAN : s * INFINITY;
  if (e == 0)
    return s * std::ldexp((double)m, 1 - bias - mbits);
  return s * std::ldexp((double)(m | (1u << mbits)), (int)e - bias - mbits);
}

unsigned H(double v, Mode m = RN) { return to_bits(v, 5, 10, m); }
unsigned B(double v, Mode m = RN) { return to_bits(v, 8, 7, m); }
double hv(unsigned b) { return from_bits(b, 5, 10); }
double bv(unsigned b) { return from_bits(b, 8, 7); }

unsigned u_of(float f) {
  unsigned u;
  memcpy(&u, &f, 4);
  return u;
}

// Within one unit in the last place (same sign, neighbouring encodings).
bool within_ulp(unsigned got, unsigned want, unsigned sign_bit) {
  if (got == want)
    return true;
  if ((got ^ want) & sign_bit)
    return false;
  return got + 1 == want || want + 1 == got;
}

struct Inputs {
  std::vector<unsigned short> h[6];
  std::vector<float> fin;
};

/// The inputs main() builds.
Inputs inputs() {
  const int n = 600, nconv = 300;
  Inputs In;
  for (auto &V : In.h)
    V.resize(n);
  auto &h = In.h;
  In.fin.resize(nconv);
  float *fin = In.fin.data();
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
  return In;
}

/// main()'s check of the outputs.
int check(const Inputs &In, const unsigned *out, const unsigned *conv, const unsigned short *hs,
          const unsigned *h2s, const unsigned *b2s) {
  const int n = 600, nconv = 300, block = 128, grid = (n + block - 1) / block;
  auto &h = In.h;
  const float *fin = In.fin.data();
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

TEST_CASE("half_bf16: half and bfloat16 arithmetic, conversions and atomics", "[programs]") {
  using namespace half_bf16;
  // The reference's own sanity check (main()).
  REQUIRE(H(1.0) == 0x3c00);
  REQUIRE(H(65520.0) == 0x7c00);
  REQUIRE(B(-3.0) == 0xc040);
  REQUIRE(hv(0x3555) == 1365.0 / 4096.0);
  Inputs In = inputs();
  const int N = 600, NConv = 300, Block = 128, Grid = (N + Block - 1) / Block;
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("half_bf16.sm90.ptx", Target);
    std::vector<std::unique_ptr<Buffer<unsigned short>>> D;
    unsigned short *P[6];
    for (int K = 0; K < 6; ++K) {
      D.push_back(std::make_unique<Buffer<unsigned short>>(In.h[K]));
      P[K] = D.back()->get();
    }
    Buffer<unsigned> DOut(size_t(N) * K_COUNT), DConv(NConv * 8), DH2(Grid), DB2(Grid);
    Buffer<unsigned short> DH(Grid);
    Buffer<float> DFin(In.fin);
    unsigned *PO = DOut.get(), *PC = DConv.get(), *PH2 = DH2.get(), *PB2 = DB2.get();
    unsigned short *PH = DH.get();
    float *PFin = DFin.get();
    int NN = N, NC = NConv;
    launch(M, "_Z5arithPKtS0_S0_S0_S0_S0_iPj", {uint32_t(Grid)}, {uint32_t(Block)},
           {&P[0], &P[1], &P[2], &P[3], &P[4], &P[5], &NN, &PO});
    launch(M, "_Z7convertPKfiPj", {uint32_t(NConv + 127) / 128}, {128}, {&PFin, &NC, &PC});
    launch(M, "_Z11atomic_sumsiP6__halfP7__half2P14__nv_bfloat162", {uint32_t(Grid)},
           {uint32_t(Block)}, {&NN, &PH, &PH2, &PB2});
    INFO(Target);
    CHECK(check(In, DOut.read().data(), DConv.read().data(), DH.read().data(), DH2.read().data(),
                DB2.read().data()) == 0);
  }
}
// NOLINTEND(readability-identifier-naming)
