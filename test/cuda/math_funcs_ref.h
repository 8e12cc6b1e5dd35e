// math_funcs: the host side shared by the program (math_funcs.cu) and the host backend's test
// (test/host/ProgramsNumericTest.cpp): the output slots the kernels fill, the inputs main()
// builds, the references (the host's libm in double or long double) and the check with the
// program's tolerances. Plain C++ (host code only), compiled by nvcc's host compiler, clang (CUDA
// and HIP) and g++.
#pragma once

#include <cmath>
#include <cstdio>

// NOLINTBEGIN(readability-identifier-naming)
// The output slots of float_math and double_math.
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

// The host side: the inputs, the references and the check.
namespace math_funcs {
inline const char *kName = "math_funcs";

inline float add_rz(float a, float b) {
  long double s = (long double)a + (long double)b; // exact for these operands
  float r = (float)s;
  if (fabsl((long double)r) > fabsl(s))
    r = nextafterf(r, 0.0f);
  return r;
}

inline float fma_rz(float a, float b, float c) {
  long double s = (long double)a * (long double)b + (long double)c; // exact in 64 bits here
  float r = (float)s;
  if (fabsl((long double)r) > fabsl(s))
    r = nextafterf(r, 0.0f);
  return r;
}

struct Tol {
  double atol, rtol;
};

inline bool close(double got, double want, Tol t) {
  if (std::isnan(want))
    return std::isnan(got);
  if (std::isinf(want))
    return got == want;
  return std::fabs(got - want) <= t.atol + t.rtol * std::fabs(want);
}

/// The inputs main() builds: n points of each of x and y, in float and in double.
inline void make_inputs(int n, float *hx, float *hy, double *hxd, double *hyd) {
  for (int i = 0; i < n; ++i) {
    hx[i] = -8.0f + 16.0f * (float)i / (float)n;
    hy[i] = 0.25f + 3.0f * (float)((i * 7) % n) / (float)n;
    hxd[i] = -8.0 + 16.0 * (double)i / (double)n + 1e-9 * (i % 13);
    hyd[i] = 0.25 + 3.0 * (double)((i * 11) % n) / (double)n;
  }
}

/// main()'s checks. The tolerances are the program's: exact for the correctly rounded
/// operations, and for the others bounds that cover the maximum ulp errors the CUDA C++
/// Programming Guide lists (Mathematical Functions appendix: e.g. sinf/cosf 2 ulp over this
/// range, expf 2 ulp, powf 4 ulp, double functions 1-2 ulp; the fast intrinsics __sinf/__expf/
/// __logf/__powf/__fdividef by their documented absolute or relative error bounds).
inline int check(int n, const float *hx, const float *hy, const double *hxd, const double *hyd,
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
// NOLINTEND(readability-identifier-naming)
