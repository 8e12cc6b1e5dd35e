// int_bitops: integer and bit-level intrinsics and conversions, each against a host model:
// __brev/__brevll, __clz/__clzll, __ffs/__ffsll, __popc/__popcll, __byte_perm,
// __funnelshift_{l,r,lc,rc}, __umulhi/__mulhi/__mul64hi/__umul64hi, __mul24/__umul24,
// __sad/__usad, __hadd/__rhadd/__uhadd/__urhadd, 32- and 64-bit division and remainder,
// unsigned __int128 products, __dp4a/__dp2a, SIMD-in-a-word (__vadd4, __vsub2, __vabsdiffu4,
// __vcmpgtu4, __vmaxs2, __vavgu4, __vsadu4), inline PTX bfe/bfi/lop3, saturating
// float/double -> integer conversions in the four rounding modes (NaN, infinities,
// out-of-range), integer -> float/double conversions with directed rounding, and the bit
// reinterpretations (__int_as_float, __double_as_longlong, __hiloint2double, ...).
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#include "int_bitops_ref.h"

#include "check.h"

__device__ __forceinline__ unsigned bfe_u32(unsigned a, unsigned pos, unsigned len) {
  unsigned d;
  asm("bfe.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(pos), "r"(len));
  return d;
}
__device__ __forceinline__ int bfe_s32(int a, unsigned pos, unsigned len) {
  int d;
  asm("bfe.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(pos), "r"(len));
  return d;
}
__device__ __forceinline__ unsigned bfi_b32(unsigned a, unsigned b, unsigned pos, unsigned len) {
  unsigned d;
  asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(d) : "r"(a), "r"(b), "r"(pos), "r"(len));
  return d;
}
__device__ __forceinline__ unsigned lop3_xor(unsigned a, unsigned b, unsigned c) {
  unsigned d;
  asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}
__device__ __forceinline__ unsigned lop3_maj(unsigned a, unsigned b, unsigned c) {
  unsigned d;
  asm("lop3.b32 %0, %1, %2, %3, 0xe8;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
  return d;
}

__global__ void bitops(const In *in, int n, u64 *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const In x = in[i];
  u64 *o = out + (size_t)i * O_COUNT;
  o[O_BREV] = __brev(x.a);
  o[O_BREVLL] = __brevll(x.la);
  o[O_CLZ] = (unsigned)__clz((int)x.b);
  o[O_CLZLL] = (unsigned)__clzll((i64)x.lb);
  o[O_FFS] = (unsigned)__ffs((int)x.b);
  o[O_FFSLL] = (unsigned)__ffsll((i64)x.lb);
  o[O_POPC] = (unsigned)__popc(x.a);
  o[O_POPCLL] = (unsigned)__popcll(x.la);
  o[O_BYTE_PERM] = __byte_perm(x.a, x.b, x.c & 0x7777u);
  o[O_FSHL] = __funnelshift_l(x.a, x.b, x.c);
  o[O_FSHR] = __funnelshift_r(x.a, x.b, x.c);
  o[O_FSHLC] = __funnelshift_lc(x.a, x.b, x.c & 63u);
  o[O_FSHRC] = __funnelshift_rc(x.a, x.b, x.c & 63u);
  o[O_UMULHI] = __umulhi(x.a, x.b);
  o[O_MULHI] = (unsigned)__mulhi(x.sa, x.sb);
  o[O_MUL64HI] = (u64)__mul64hi(x.sla, x.slb);
  o[O_UMUL64HI] = __umul64hi(x.la, x.lb);
  o[O_MUL24] = (unsigned)__mul24(x.sa, x.sb);
  o[O_UMUL24] = __umul24(x.a, x.b);
  o[O_SAD] = __sad(x.sa, x.sb, x.c & 0xffffu);
  o[O_USAD] = __usad(x.a, x.b, x.c & 0xffffu);
  o[O_HADD] = (unsigned)__hadd(x.sa, x.sb);
  o[O_RHADD] = (unsigned)__rhadd(x.sa, x.sb);
  o[O_UHADD] = __uhadd(x.a, x.b);
  o[O_URHADD] = __urhadd(x.a, x.b);
  const int d32 = x.sb >> (x.c & 15u) | 1; // never zero
  o[O_DIV32] = (unsigned)(x.sa / d32);
  o[O_REM32] = (unsigned)(x.sa % d32);
  o[O_UDIV32] = x.a / ((x.b >> (x.c & 15u)) | 1u);
  const i64 d64 = x.slb >> (x.c & 31u) | 1;
  o[O_DIV64] = (u64)(x.sla / d64);
  o[O_REM64] = (u64)(x.sla % d64);
  const u64 ud64 = (x.lb >> (x.c & 47u)) | 1u;
  o[O_UDIV64] = x.la / ud64;
  o[O_UREM64] = x.la % ud64;
  const unsigned __int128 p = (unsigned __int128)x.la * x.lb + x.c;
  o[O_U128LO] = (u64)p;
  o[O_U128HI] = (u64)(p >> 64);
  o[O_DP4A] = (unsigned)__dp4a(x.sa, x.sb, (int)x.c);
  o[O_DP4A_U] = __dp4a(x.a, x.b, x.c);
  o[O_DP2A_LO] = (unsigned)__dp2a_lo(x.sa, x.sb, (int)x.c);
  o[O_DP2A_HI] = __dp2a_hi(x.a, x.b, x.c);
  o[O_VADD4] = __vadd4(x.a, x.b);
  o[O_VSUB2] = __vsub2(x.a, x.b);
  o[O_VABSDIFFU4] = __vabsdiffu4(x.a, x.b);
  o[O_VCMPGTU4] = __vcmpgtu4(x.a, x.b);
  o[O_VMAXS2] = __vmaxs2(x.a, x.b);
  o[O_VAVGU4] = __vavgu4(x.a, x.b);
  o[O_VSADU4] = __vsadu4(x.a, x.b);
  o[O_BFE_U] = bfe_u32(x.a, x.c % 36u, (x.c >> 8) % 34u);
  o[O_BFE_S] = (unsigned)bfe_s32(x.sa, x.c % 36u, (x.c >> 8) % 34u);
  o[O_BFI] = bfi_b32(x.a, x.b, (x.c >> 16) % 36u, (x.c >> 24) % 34u);
  o[O_LOP3_XOR] = lop3_xor(x.a, x.b, x.c);
  o[O_LOP3_MAJ] = lop3_maj(x.a, x.b, x.c);
  o[O_F2I_RN] = (unsigned)__float2int_rn(x.f);
  o[O_F2I_RZ] = (unsigned)__float2int_rz(x.f);
  o[O_F2I_RD] = (unsigned)__float2int_rd(x.f);
  o[O_F2I_RU] = (unsigned)__float2int_ru(x.f);
  o[O_F2U_RN] = __float2uint_rn(x.f);
  o[O_F2LL_RD] = (u64)__float2ll_rd(x.f);
  o[O_F2ULL_RZ] = __float2ull_rz(x.f);
  o[O_D2I_RN] = (unsigned)__double2int_rn(x.d);
  o[O_D2U_RU] = __double2uint_ru(x.d);
  o[O_D2LL_RZ] = (u64)__double2ll_rz(x.d);
  o[O_D2ULL_RD] = __double2ull_rd(x.d);
  o[O_I2F_RN] = __float_as_uint(__int2float_rn(x.sa));
  o[O_I2F_RZ] = __float_as_uint(__int2float_rz(x.sa));
  o[O_I2F_RD] = __float_as_uint(__int2float_rd(x.sa));
  o[O_I2F_RU] = __float_as_uint(__int2float_ru(x.sa));
  o[O_U2F_RU] = __float_as_uint(__uint2float_ru(x.a));
  o[O_LL2F_RD] = __float_as_uint(__ll2float_rd(x.sla));
  o[O_LL2D_RN] = (u64)__double_as_longlong(__ll2double_rn(x.sla));
  o[O_LL2D_RU] = (u64)__double_as_longlong(__ll2double_ru(x.sla));
  o[O_ULL2D_RZ] = (u64)__double_as_longlong(__ull2double_rz(x.la));
  // Exponent MSB cleared: no NaN/Inf (whose payloads are not portable), denormals included.
  o[O_INT_AS_FLOAT] = __float_as_uint(__int_as_float(x.sa & 0xbfffffff) * 2.0f);
  o[O_FLOAT_AS_INT] = (unsigned)__float_as_int(x.f);
  o[O_DBL_AS_LL] = (u64)__double_as_longlong(x.d);
  o[O_LL_AS_DBL] = (u64)__double_as_longlong(__longlong_as_double(x.sla & ~(1ll << 62)) * 0.5);
  o[O_HILO] = (u64)__double_as_longlong(__hiloint2double(x.sa, x.sb));
  o[O_D2HI] = (unsigned)__double2hiint(x.d);
  o[O_D2LO] = (unsigned)__double2loint(x.d);
  o[O_MINMAX] = (unsigned)(min(x.sa, x.sb) ^ max(x.sa >> 3, x.sb >> 5)) +
                ((u64)(umin(x.a, x.b) ^ umax(x.c, x.a)) << 32) + (u64)abs(x.sa) + (u64)llabs(x.sla);
}

int main() {
  using namespace int_bitops;
  const int n = 1000;
  const int block = 256;
  In *hin = (In *)malloc(n * sizeof(In));
  make_inputs(hin, n);

  In *din;
  u64 *dout;
  CK(cudaMalloc(&din, n * sizeof(In)));
  CK(cudaMalloc(&dout, (size_t)n * O_COUNT * sizeof(u64)));
  CK(cudaMemcpy(din, hin, n * sizeof(In), cudaMemcpyHostToDevice));
  bitops<<<(n + block - 1) / block, block>>>(din, n, dout);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  u64 *hout = (u64 *)malloc((size_t)n * O_COUNT * sizeof(u64));
  CK(cudaMemcpy(hout, dout, (size_t)n * O_COUNT * sizeof(u64), cudaMemcpyDeviceToHost));

  const int rc = check(hin, n, hout);

  CK(cudaFree(din));
  CK(cudaFree(dout));
  free(hin);
  free(hout);
  if (rc == 0)
    printf("PASS %s\n", kName);
  return rc;
}
