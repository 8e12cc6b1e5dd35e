// math_funcs: the CUDA math library in single and double precision against the host's libm
// (evaluated in double or long double), with per-function tolerances: exact for correctly
// rounded operations (sqrtf, fmaf, __fmul_rn, __fdiv_rn, __frcp_rn, __fadd_rz, __fmaf_rz,
// rounding, fmodf, ldexpf, frexpf, ...), a few ulp for sinf/expf/powf & co., and the documented
// error bounds for the fast intrinsics (__sinf, __expf, __logf, __powf, __fdividef). Plus
// special values (NaN, infinities, signed zero).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "math_funcs_ref.h"

#include "check.h"

__global__ void float_math(const float *xs, const float *ys, int n, float *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const float x = xs[i], y = ys[i];
  float *o = out + (size_t)i * F_COUNT;
  o[F_SIN] = sinf(x);
  o[F_COS] = cosf(x);
  o[F_TAN] = tanf(x * 0.125f);
  o[F_EXP] = expf(x);
  o[F_EXP2] = exp2f(x);
  o[F_LOG] = logf(y);
  o[F_LOG2] = log2f(y);
  o[F_LOG10] = log10f(y);
  o[F_SQRT] = sqrtf(y);
  o[F_RSQRT] = rsqrtf(y);
  o[F_POW] = powf(y, x);
  o[F_ATAN2] = atan2f(x, y);
  o[F_ASIN] = asinf(x * 0.125f);
  o[F_SINH] = sinhf(x * 0.5f);
  o[F_TANH] = tanhf(x);
  o[F_ERF] = erff(x * 0.5f);
  o[F_CBRT] = cbrtf(x);
  o[F_HYPOT] = hypotf(x, y);
  o[F_FMOD] = fmodf(x, y);
  o[F_FLOOR] = floorf(x);
  o[F_CEIL] = ceilf(x);
  o[F_TRUNC] = truncf(x);
  o[F_ROUND] = roundf(x * 2.0f);
  o[F_RINT] = rintf(x * 2.0f);
  o[F_FMIN] = fminf(x, y);
  o[F_FMAX] = fmaxf(x, y);
  o[F_FMA] = fmaf(x, y, 1.5f);
  o[F_LDEXP] = ldexpf(x, i % 10 - 5);
  int e;
  o[F_FREXP_M] = frexpf(x, &e);
  o[F_FREXP_E] = (float)e;
  float ip;
  const float frac = modff(x, &ip);
  o[F_MODF] = frac + 100.0f * ip;
  o[F_COPYSIGN] = copysignf(y, x);
  float s, c;
  sincosf(x, &s, &c);
  o[F_SINCOS_S] = s;
  o[F_SINCOS_C] = c;
  o[F_FDIVIDE] = __fdividef(x, y);
  o[F_FAST_SIN] = __sinf(x * 0.375f);
  o[F_FAST_COS] = __cosf(x * 0.375f);
  o[F_FAST_EXP] = __expf(x);
  o[F_FAST_LOG] = __logf(y);
  o[F_FAST_POW] = __powf(y, x * 0.5f);
  o[F_SATURATE] = __saturatef(x * 0.25f);
  o[F_MUL_RN] = __fmul_rn(x, y);
  o[F_ADD_RZ] = __fadd_rz(x, y);
  o[F_DIV_RN] = __fdiv_rn(x, y);
  o[F_RCP_RN] = __frcp_rn(y);
  o[F_SQRT_RN] = __fsqrt_rn(y);
  o[F_FMA_RZ] = __fmaf_rz(x, y, 1.5f);
  o[F_EXPM1] = expm1f(x * 0.25f);
  o[F_LOG1P] = log1pf(y - 0.2f);
  o[F_FDIM] = fdimf(x, y);
  o[F_DIV] = x / y;
}

__global__ void double_math(const double *xs, const double *ys, int n, double *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const double x = xs[i], y = ys[i];
  double *o = out + (size_t)i * D_COUNT;
  o[D_SIN] = sin(x);
  o[D_COS] = cos(x);
  o[D_TAN] = tan(x * 0.125);
  o[D_EXP] = exp(x);
  o[D_LOG] = log(y);
  o[D_SQRT] = sqrt(y);
  o[D_POW] = pow(y, x);
  o[D_ATAN2] = atan2(x, y);
  o[D_FMA] = fma(x, y, 1.5);
  o[D_CBRT] = cbrt(x);
  o[D_RSQRT] = rsqrt(y);
  o[D_ERF] = erf(x * 0.5);
  o[D_FLOOR] = floor(x);
  o[D_CEIL] = ceil(x);
  o[D_ROUND] = round(x * 2.0);
  o[D_FMOD] = fmod(x, y);
  o[D_LDEXP] = ldexp(x, i % 20 - 10);
  o[D_HYPOT] = hypot(x, y);
  o[D_LOG1P] = log1p(y - 0.2);
  o[D_EXPM1] = expm1(x * 0.25);
  o[D_SINH] = sinh(x * 0.5);
  o[D_ACOS] = acos(x * 0.125);
  o[D_DIV] = x / y;
}

// Special values; one thread.
__global__ void specials(const float *zero_one_inf_nan, unsigned *flags) {
  const float zero = zero_one_inf_nan[0], one = zero_one_inf_nan[1];
  const float inf = zero_one_inf_nan[2], nan = zero_one_inf_nan[3];
  unsigned f = 0;
  f |= (unsigned)isnan(sqrtf(-one)) << 0;
  f |= (unsigned)(logf(zero) == -inf) << 1;
  f |= (unsigned)(expf(100.0f * one) == inf) << 2;
  f |= (unsigned)(fminf(nan, one) == one) << 3;
  f |= (unsigned)(fmaxf(one, nan) == one) << 4;
  f |= (unsigned)(one / zero == inf) << 5;
  f |= (unsigned)(rsqrtf(zero) == inf) << 6;
  f |= (unsigned)(signbit(copysignf(zero, -one)) != 0) << 7;
  f |= (unsigned)isnan(sinf(inf)) << 8;
  f |= (unsigned)(powf(zero, -one) == inf) << 9;
  f |= (unsigned)isnan(nan + one) << 10;
  f |= (unsigned)(!(nan == nan)) << 11;
  f |= (unsigned)(expf(-inf) == zero) << 12;
  f |= (unsigned)(sqrt((double)-zero) == 0.0 && signbit(sqrt(-(double)zero))) << 13;
  f |= (unsigned)isinf(exp((double)inf)) << 14;
  f |= (unsigned)(fabsf(atan2f(zero, -one) - 3.14159265f) < 1e-6f) << 15;
  f |= (unsigned)(__saturatef(nan) == zero) << 16;
  f |= (unsigned)(ldexpf(one, 200) == inf) << 17;
  *flags = f;
}

int main() {
  using namespace math_funcs;
  const int n = 1500;
  const int block = 128;
  const int grid = (n + block - 1) / block;
  float *hx = (float *)malloc(n * sizeof(float));
  float *hy = (float *)malloc(n * sizeof(float));
  double *hxd = (double *)malloc(n * sizeof(double));
  double *hyd = (double *)malloc(n * sizeof(double));
  make_inputs(n, hx, hy, hxd, hyd);
  float *dx, *dy, *dout;
  double *dxd, *dyd, *doutd;
  float *dsv;
  unsigned *dflags;
  CK(cudaMalloc(&dx, n * sizeof(float)));
  CK(cudaMalloc(&dy, n * sizeof(float)));
  CK(cudaMalloc(&dout, (size_t)n * F_COUNT * sizeof(float)));
  CK(cudaMalloc(&dxd, n * sizeof(double)));
  CK(cudaMalloc(&dyd, n * sizeof(double)));
  CK(cudaMalloc(&doutd, (size_t)n * D_COUNT * sizeof(double)));
  CK(cudaMalloc(&dsv, 4 * sizeof(float)));
  CK(cudaMalloc(&dflags, sizeof(unsigned)));
  CK(cudaMemcpy(dx, hx, n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dy, hy, n * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dxd, hxd, n * sizeof(double), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dyd, hyd, n * sizeof(double), cudaMemcpyHostToDevice));
  const float sv[4] = {0.0f, 1.0f, INFINITY, NAN};
  CK(cudaMemcpy(dsv, sv, sizeof(sv), cudaMemcpyHostToDevice));

  float_math<<<grid, block>>>(dx, dy, n, dout);
  CK(cudaGetLastError());
  double_math<<<grid, block>>>(dxd, dyd, n, doutd);
  CK(cudaGetLastError());
  specials<<<1, 1>>>(dsv, dflags);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  float *hout = (float *)malloc((size_t)n * F_COUNT * sizeof(float));
  double *houtd = (double *)malloc((size_t)n * D_COUNT * sizeof(double));
  unsigned flags = 0;
  CK(cudaMemcpy(hout, dout, (size_t)n * F_COUNT * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(houtd, doutd, (size_t)n * D_COUNT * sizeof(double), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&flags, dflags, sizeof(unsigned), cudaMemcpyDeviceToHost));

  const int rc = check(n, hx, hy, hxd, hyd, hout, houtd, flags);

  CK(cudaFree(dx));
  CK(cudaFree(dy));
  CK(cudaFree(dout));
  CK(cudaFree(dxd));
  CK(cudaFree(dyd));
  CK(cudaFree(doutd));
  CK(cudaFree(dsv));
  CK(cudaFree(dflags));
  free(hx);
  free(hy);
  free(hxd);
  free(hyd);
  free(hout);
  free(houtd);
  if (rc == 0)
    printf("PASS %s\n", kName);
  return rc;
}
