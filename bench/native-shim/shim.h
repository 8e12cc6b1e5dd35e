// bench/native-shim/shim.h: just enough of CUDA for clang++-22 -x hip to compile the project's
// test/cuda/*.cu natively for AMDGPU, without ROCm or HIP headers (-nogpulib -nogpuinc):
//   clang++-22 -x hip --offload-arch=gfx90a -nogpulib -nogpuinc -I bench/native-shim/include
//     -include bench/native-shim/shim.h --cuda-device-only --no-gpu-bundle-output -O3 -c k.cu
// This is the "same source compiled natively" baseline of bench/quality, so the device side is
// written the way a careful HIP programmer would write it for 32-lane CUDA warps, with the same
// semantics as our translation (DESIGN.md "Warps are 32 lanes, always"): on wave64 a warp is
// half a wave, shuffles use ds_bpermute inside the half, ballots return the half's 32 bits.
// Host code only has to parse (--cuda-device-only): the runtime API is declared, never defined.
// Math that needs ROCm's ocml natively (sinf, powf, ...) is declared and left undefined, so a
// source that uses it fails to link and bench/quality reports it as not compiled natively.
#pragma once

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __forceinline__ inline __attribute__((always_inline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
// __noinline__ is a keyword of clang's CUDA/HIP modes: no macro (it would break libstdc++).

#if defined(__GFX9__)
#define PTX2AMD_SHIM_WAVE64 1
#else
#define PTX2AMD_SHIM_WAVE64 0
#endif

// ---- vector types (CUDA's sizes and alignments) ----
struct uint3 {
  unsigned x, y, z;
};
struct dim3 {
  unsigned x, y, z;
  __host__ __device__ constexpr dim3(unsigned X = 1, unsigned Y = 1, unsigned Z = 1)
      : x(X), y(Y), z(Z) {}
  __host__ __device__ constexpr dim3(uint3 V) : x(V.x), y(V.y), z(V.z) {}
};
struct __align__(4) uchar4 {
  unsigned char x, y, z, w;
};
struct __align__(8) int2 {
  int x, y;
};
struct __align__(16) int4 {
  int x, y, z, w;
};
struct __align__(8) float2 {
  float x, y;
};
struct __align__(16) float4 {
  float x, y, z, w;
};
__host__ __device__ constexpr float4 make_float4(float X, float Y, float Z, float W) {
  return {X, Y, Z, W};
}
__host__ __device__ constexpr int2 make_int2(int X, int Y) { return {X, Y}; }
__host__ __device__ constexpr uchar4 make_uchar4(unsigned char X, unsigned char Y, unsigned char Z,
                                                 unsigned char W) {
  return {X, Y, Z, W};
}

constexpr int warpSize = 32; // CUDA warps, on every wave size

// ---- ids and sizes: what HIP reads on code object v5 ----
__device__ inline uint3 __shim_thread_idx() {
  return {__builtin_amdgcn_workitem_id_x(), __builtin_amdgcn_workitem_id_y(),
          __builtin_amdgcn_workitem_id_z()};
}
__device__ inline uint3 __shim_block_idx() {
  return {__builtin_amdgcn_workgroup_id_x(), __builtin_amdgcn_workgroup_id_y(),
          __builtin_amdgcn_workgroup_id_z()};
}
__device__ inline uint3 __shim_block_dim() {
  return {__builtin_amdgcn_workgroup_size_x(), __builtin_amdgcn_workgroup_size_y(),
          __builtin_amdgcn_workgroup_size_z()};
}
// hidden_block_count_{x,y,z} lead the hidden kernel arguments of code object v5.
__device__ inline uint3 __shim_grid_dim() {
  const auto *P =
      (const __attribute__((address_space(4))) unsigned *)__builtin_amdgcn_implicitarg_ptr();
  return {P[0], P[1], P[2]};
}
#define threadIdx (__shim_thread_idx())
#define blockIdx (__shim_block_idx())
#define blockDim (__shim_block_dim())
#define gridDim (__shim_grid_dim())

// ---- barriers and fences ----
__device__ inline void __syncthreads() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
}
__device__ inline void __syncwarp(unsigned = 0xffffffffu) {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
__device__ inline void __threadfence_block() {
  __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup");
}
__device__ inline void __threadfence() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "agent"); }
__device__ inline void __threadfence_system() { __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, ""); }

// ---- 32-lane warps ----
__device__ inline unsigned __shim_wave_lane() {
#if PTX2AMD_SHIM_WAVE64
  return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
#else
  return __builtin_amdgcn_mbcnt_lo(~0u, 0u);
#endif
}
__device__ inline unsigned __shim_lane() { return __shim_wave_lane() & 31; }

/// The 32 bits of a wave-wide ballot that belong to this lane's warp.
__device__ inline unsigned __shim_ballot(bool P) {
#if PTX2AMD_SHIM_WAVE64
  return static_cast<unsigned>(__builtin_amdgcn_ballot_w64(P) >> (__shim_wave_lane() & 32));
#else
  return __builtin_amdgcn_ballot_w32(P);
#endif
}
__device__ inline unsigned __activemask() { return __shim_ballot(true); }
__device__ inline unsigned __ballot_sync(unsigned Mask, int P) { return __shim_ballot(P) & Mask; }
__device__ inline int __any_sync(unsigned Mask, int P) { return (__shim_ballot(P) & Mask) != 0; }
__device__ inline int __all_sync(unsigned Mask, int P) { return (__shim_ballot(!P) & Mask) == 0; }
__device__ inline int __uni_sync(unsigned Mask, int P) {
  unsigned Yes = __shim_ballot(P) & Mask, No = __shim_ballot(!P) & Mask;
  return Yes == 0 || No == 0;
}

/// Reads \p V of warp lane \p Src (0..31) of this lane's warp.
__device__ inline int __shim_bpermute(unsigned Src, int V) {
#if PTX2AMD_SHIM_WAVE64
  Src |= __shim_wave_lane() & 32;
#endif
  return __builtin_amdgcn_ds_bpermute(static_cast<int>(Src << 2), V);
}
/// Any 4- or 8-byte value, moved as 32-bit words.
template <typename T> __device__ inline T __shim_permute(unsigned Src, T V) {
  static_assert(sizeof(T) % 4 == 0, "shuffles move 32-bit words");
  int W[sizeof(T) / 4];
  __builtin_memcpy(W, &V, sizeof(T));
  for (unsigned K = 0; K < sizeof(T) / 4; ++K)
    W[K] = __shim_bpermute(Src, W[K]);
  __builtin_memcpy(&V, W, sizeof(T));
  return V;
}
template <typename T>
__device__ inline T __shfl_sync(unsigned, T V, int Src, int Width = warpSize) {
  unsigned L = __shim_lane(), W = Width;
  return __shim_permute((L & ~(W - 1)) | (Src & (W - 1)), V);
}
template <typename T>
__device__ inline T __shfl_up_sync(unsigned, T V, unsigned Delta, int Width = warpSize) {
  unsigned L = __shim_lane(), W = Width;
  int J = static_cast<int>(L) - static_cast<int>(Delta);
  return __shim_permute(J < static_cast<int>(L & ~(W - 1)) ? L : J, V);
}
template <typename T>
__device__ inline T __shfl_down_sync(unsigned, T V, unsigned Delta, int Width = warpSize) {
  unsigned L = __shim_lane(), W = Width;
  unsigned J = L + Delta;
  return __shim_permute(J >= (L & ~(W - 1)) + W ? L : J, V);
}
template <typename T>
__device__ inline T __shfl_xor_sync(unsigned, T V, int LaneMask, int Width = warpSize) {
  unsigned L = __shim_lane(), W = Width;
  unsigned J = L ^ LaneMask;
  return __shim_permute(J >= (L & ~(W - 1)) + W ? L : J, V);
}

// ---- block-wide votes: a ballot per wave, one LDS atomic per wave ----
__device__ inline int __syncthreads_count(int P) {
  __shared__ int Count;
  unsigned Linear = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  __syncthreads();
  if (Linear == 0)
    Count = 0;
  __syncthreads();
#if PTX2AMD_SHIM_WAVE64
  unsigned long long Votes = __builtin_amdgcn_ballot_w64(P != 0);
#else
  unsigned Votes = __builtin_amdgcn_ballot_w32(P != 0);
#endif
  if (__shim_wave_lane() == static_cast<unsigned>(__builtin_ctzg(__builtin_amdgcn_read_exec())))
    __hip_atomic_fetch_add(&Count, __builtin_popcountg(Votes), __ATOMIC_RELAXED,
                           __HIP_MEMORY_SCOPE_WORKGROUP);
  __syncthreads();
  return Count;
}
__device__ inline int __syncthreads_and(int P) { return __syncthreads_count(!P) == 0; }
__device__ inline int __syncthreads_or(int P) { return __syncthreads_count(P != 0) != 0; }

// ---- atomics (generic pointers; the compiler infers LDS/global) ----
#define PTX2AMD_SHIM_ATOMIC(NAME, OP, SCOPE, T)                                                    \
  __device__ inline T NAME(T *A, T V) { return __hip_atomic_##OP(A, V, __ATOMIC_RELAXED, SCOPE); }
#define PTX2AMD_SHIM_ATOMIC_SCOPES(NAME, OP, T)                                                    \
  PTX2AMD_SHIM_ATOMIC(NAME, OP, __HIP_MEMORY_SCOPE_AGENT, T)                                       \
  PTX2AMD_SHIM_ATOMIC(NAME##_block, OP, __HIP_MEMORY_SCOPE_WORKGROUP, T)                           \
  PTX2AMD_SHIM_ATOMIC(NAME##_system, OP, __HIP_MEMORY_SCOPE_SYSTEM, T)
#define PTX2AMD_SHIM_ATOMIC_INTS(NAME, OP)                                                         \
  PTX2AMD_SHIM_ATOMIC_SCOPES(NAME, OP, int)                                                        \
  PTX2AMD_SHIM_ATOMIC_SCOPES(NAME, OP, unsigned)                                                   \
  PTX2AMD_SHIM_ATOMIC_SCOPES(NAME, OP, long long)                                                  \
  PTX2AMD_SHIM_ATOMIC_SCOPES(NAME, OP, unsigned long long)
PTX2AMD_SHIM_ATOMIC_INTS(atomicAdd, fetch_add)
PTX2AMD_SHIM_ATOMIC_SCOPES(atomicAdd, fetch_add, float)
PTX2AMD_SHIM_ATOMIC_SCOPES(atomicAdd, fetch_add, double)
PTX2AMD_SHIM_ATOMIC_INTS(atomicMin, fetch_min)
PTX2AMD_SHIM_ATOMIC_INTS(atomicMax, fetch_max)
PTX2AMD_SHIM_ATOMIC_INTS(atomicAnd, fetch_and)
PTX2AMD_SHIM_ATOMIC_INTS(atomicOr, fetch_or)
PTX2AMD_SHIM_ATOMIC_INTS(atomicXor, fetch_xor)
PTX2AMD_SHIM_ATOMIC_INTS(atomicExch, exchange)
PTX2AMD_SHIM_ATOMIC_SCOPES(atomicExch, exchange, float)
__device__ inline int atomicSub(int *A, int V) { return atomicAdd(A, -V); }
__device__ inline unsigned atomicSub(unsigned *A, unsigned V) { return atomicAdd(A, 0u - V); }
template <typename T> __device__ inline T __shim_cas(T *A, T Expected, T Desired, int Scope) {
  // The scope has to be a constant: callers pass literals and this inlines.
  if (Scope == __HIP_MEMORY_SCOPE_WORKGROUP)
    __hip_atomic_compare_exchange_strong(A, &Expected, Desired, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                         __HIP_MEMORY_SCOPE_WORKGROUP);
  else if (Scope == __HIP_MEMORY_SCOPE_SYSTEM)
    __hip_atomic_compare_exchange_strong(A, &Expected, Desired, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                         __HIP_MEMORY_SCOPE_SYSTEM);
  else
    __hip_atomic_compare_exchange_strong(A, &Expected, Desired, __ATOMIC_RELAXED, __ATOMIC_RELAXED,
                                         __HIP_MEMORY_SCOPE_AGENT);
  return Expected;
}
#define PTX2AMD_SHIM_CAS(T)                                                                        \
  __device__ inline T atomicCAS(T *A, T E, T D) {                                                  \
    return __shim_cas(A, E, D, __HIP_MEMORY_SCOPE_AGENT);                                          \
  }                                                                                                \
  __device__ inline T atomicCAS_block(T *A, T E, T D) {                                            \
    return __shim_cas(A, E, D, __HIP_MEMORY_SCOPE_WORKGROUP);                                      \
  }                                                                                                \
  __device__ inline T atomicCAS_system(T *A, T E, T D) {                                           \
    return __shim_cas(A, E, D, __HIP_MEMORY_SCOPE_SYSTEM);                                         \
  }
PTX2AMD_SHIM_CAS(int)
PTX2AMD_SHIM_CAS(unsigned)
PTX2AMD_SHIM_CAS(unsigned long long)
__device__ inline unsigned atomicInc(unsigned *A, unsigned V) {
  return __builtin_amdgcn_atomic_inc32(A, V, __ATOMIC_RELAXED, "agent");
}
__device__ inline unsigned atomicDec(unsigned *A, unsigned V) {
  return __builtin_amdgcn_atomic_dec32(A, V, __ATOMIC_RELAXED, "agent");
}

// ---- bits and reinterpretation ----
__device__ inline int __float_as_int(float F) { return __builtin_bit_cast(int, F); }
__device__ inline unsigned __float_as_uint(float F) { return __builtin_bit_cast(unsigned, F); }
__device__ inline float __int_as_float(int I) { return __builtin_bit_cast(float, I); }
__device__ inline float __uint_as_float(unsigned I) { return __builtin_bit_cast(float, I); }
__device__ inline long long __double_as_longlong(double D) {
  return __builtin_bit_cast(long long, D);
}
__device__ inline double __longlong_as_double(long long I) { return __builtin_bit_cast(double, I); }
__device__ inline int __popc(unsigned X) { return __builtin_popcount(X); }
__device__ inline int __popcll(unsigned long long X) { return __builtin_popcountll(X); }
__device__ inline int __ffs(int X) { return __builtin_ffs(X); }
__device__ inline int __ffsll(long long X) { return __builtin_ffsll(X); }
__device__ inline int __clz(int X) { return __builtin_clzg(static_cast<unsigned>(X), 32); }
__device__ inline int __clzll(long long X) {
  return __builtin_clzg(static_cast<unsigned long long>(X), 64);
}
__device__ inline unsigned __brev(unsigned X) { return __builtin_bitreverse32(X); }
__device__ inline unsigned long long __brevll(unsigned long long X) {
  return __builtin_bitreverse64(X);
}
__device__ inline int __mulhi(int A, int B) {
  return static_cast<int>((static_cast<long long>(A) * B) >> 32);
}
__device__ inline unsigned __umulhi(unsigned A, unsigned B) {
  return static_cast<unsigned>((static_cast<unsigned long long>(A) * B) >> 32);
}

// ---- CUDA's min/max overloads ----
#define PTX2AMD_SHIM_MINMAX(T)                                                                     \
  __host__ __device__ inline T min(T A, T B) { return A < B ? A : B; }                             \
  __host__ __device__ inline T max(T A, T B) { return A < B ? B : A; }
PTX2AMD_SHIM_MINMAX(int)
PTX2AMD_SHIM_MINMAX(unsigned)
PTX2AMD_SHIM_MINMAX(long long)
PTX2AMD_SHIM_MINMAX(unsigned long long)
__host__ __device__ inline float min(float A, float B) { return __builtin_fminf(A, B); }
__host__ __device__ inline float max(float A, float B) { return __builtin_fmaxf(A, B); }
__host__ __device__ inline double min(double A, double B) { return __builtin_fmin(A, B); }
__host__ __device__ inline double max(double A, double B) { return __builtin_fmax(A, B); }

// ---- float math with a native lowering (no ocml): LLVM intrinsics the backend expands ----
__device__ inline float fminf(float A, float B) { return __builtin_fminf(A, B); }
__device__ inline float fmaxf(float A, float B) { return __builtin_fmaxf(A, B); }
__device__ inline float fabsf(float A) { return __builtin_fabsf(A); }
__device__ inline float sqrtf(float A) { return __builtin_sqrtf(A); }
__device__ inline float fmaf(float A, float B, float C) { return __builtin_fmaf(A, B, C); }
__device__ inline float __fmaf_rn(float A, float B, float C) { return __builtin_fmaf(A, B, C); }
__device__ inline float floorf(float A) { return __builtin_floorf(A); }
__device__ inline float ceilf(float A) { return __builtin_ceilf(A); }
__device__ inline float truncf(float A) { return __builtin_truncf(A); }
__device__ inline float rintf(float A) { return __builtin_rintf(A); }
__device__ inline float roundf(float A) { return __builtin_roundf(A); }
__device__ inline float copysignf(float A, float B) { return __builtin_copysignf(A, B); }
__device__ inline float ldexpf(float A, int E) { return __builtin_ldexpf(A, E); }
__device__ inline float frexpf(float A, int *E) { return __builtin_frexpf(A, E); }
__device__ inline float exp2f(float A) { return __builtin_exp2f(A); }
__device__ inline float expf(float A) { return __builtin_expf(A); }
__device__ inline float logf(float A) { return __builtin_logf(A); }
__device__ inline float log2f(float A) { return __builtin_log2f(A); }
__device__ inline float log10f(float A) { return __builtin_log10f(A); }
__device__ inline double fmin(double A, double B) { return __builtin_fmin(A, B); }
__device__ inline double fmax(double A, double B) { return __builtin_fmax(A, B); }
__device__ inline double fabs(double A) { return __builtin_fabs(A); }
__device__ inline double sqrt(double A) { return __builtin_sqrt(A); }
__device__ inline double fma(double A, double B, double C) { return __builtin_fma(A, B, C); }
__device__ inline double floor(double A) { return __builtin_floor(A); }
__device__ inline double ceil(double A) { return __builtin_ceil(A); }
__device__ inline double trunc(double A) { return __builtin_trunc(A); }
__device__ inline double round(double A) { return __builtin_round(A); }
__device__ inline double ldexp(double A, int E) { return __builtin_ldexp(A, E); }
__device__ inline float __saturatef(float A) {
  return __builtin_fminf(__builtin_fmaxf(A, 0.0f), 1.0f);
}
__device__ inline float rsqrtf(float A) { return 1.0f / __builtin_sqrtf(A); }
// Exactly rounded, never contracted into an fma with a neighbour.
__device__ inline double __dadd_rn(double A, double B) {
#pragma clang fp contract(off)
  return A + B;
}
__device__ inline double __dmul_rn(double A, double B) {
#pragma clang fp contract(off)
  return A * B;
}
__device__ inline float __fadd_rn(float A, float B) {
#pragma clang fp contract(off)
  return A + B;
}
__device__ inline float __fmul_rn(float A, float B) {
#pragma clang fp contract(off)
  return A * B;
}
__device__ inline float __fdividef(float A, float B) { return A * __builtin_amdgcn_rcpf(B); }
__device__ inline float __expf(float A) { return __builtin_amdgcn_exp2f(A * 1.44269504f); }
__device__ inline float __logf(float A) { return __builtin_amdgcn_logf(A) * 0.693147181f; }
__device__ inline float __sinf(float A) { return __builtin_amdgcn_sinf(A * 0.159154943f); }
__device__ inline float __cosf(float A) { return __builtin_amdgcn_cosf(A * 0.159154943f); }

// Natively these need ocml: declared only (a use fails the native link, by design).
__device__ float sinf(float);
__device__ float cosf(float);
__device__ float tanf(float);
__device__ float powf(float, float);
__device__ float atan2f(float, float);
__device__ float asinf(float);
__device__ float sinhf(float);
__device__ float tanhf(float);
__device__ float erff(float);
__device__ float cbrtf(float);
__device__ float hypotf(float, float);
__device__ float fmodf(float, float);
__device__ float modff(float, float *);
__device__ float expm1f(float);
__device__ float log1pf(float);
__device__ float fdimf(float, float);
__device__ void sincosf(float, float *, float *);
__device__ double sin(double);
__device__ double cos(double);
__device__ double exp(double);
__device__ double log(double);
__device__ double pow(double, double);
__device__ double erf(double);

// placement new in device code (the <new> one is host only)
__device__ inline void *operator new(size_t, void *P) noexcept { return P; }
__device__ inline void operator delete(void *, void *) noexcept {}

// printf in device code: clang lowers it itself (bench/quality passes -mprintf-kind=buffered,
// which needs no device library).
extern "C" __device__ int printf(const char *, ...);

// ---- host side: declarations only, enough for the programs to parse ----
enum cudaError_t { cudaSuccess = 0, cudaErrorInvalidValue = 1, cudaErrorUnknown = 999 };
enum cudaDeviceAttr {
  cudaDevAttrMaxSharedMemoryPerBlock = 8,
  cudaDevAttrMaxSharedMemoryPerBlockOptin = 97
};
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
struct cudaFuncAttributes {
  size_t sharedSizeBytes;
  int maxDynamicSharedSizeBytes;
};
enum cudaMemcpyKind {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4
};
struct CUstream_st;
struct CUevent_st;
using cudaStream_t = CUstream_st *;
using cudaEvent_t = CUevent_st *;
struct cudaDeviceProp {
  char name[256];
  int warpSize, multiProcessorCount, maxThreadsPerBlock, major, minor;
  size_t sharedMemPerBlock, totalGlobalMem;
};
#define cudaMemAttachGlobal 1u
cudaError_t cudaMalloc(void **P, size_t N);
template <typename T> cudaError_t cudaMalloc(T **P, size_t N);
cudaError_t cudaMallocHost(void **P, size_t N);
template <typename T> cudaError_t cudaMallocHost(T **P, size_t N);
cudaError_t cudaMallocManaged(void **P, size_t N, unsigned Flags = cudaMemAttachGlobal);
template <typename T>
cudaError_t cudaMallocManaged(T **P, size_t N, unsigned Flags = cudaMemAttachGlobal);
cudaError_t cudaFree(void *P);
cudaError_t cudaFreeHost(void *P);
cudaError_t cudaMemcpy(void *D, const void *S, size_t N, cudaMemcpyKind K);
cudaError_t cudaMemcpyAsync(void *D, const void *S, size_t N, cudaMemcpyKind K,
                            cudaStream_t St = nullptr);
cudaError_t cudaMemset(void *D, int V, size_t N);
template <typename T>
cudaError_t cudaMemcpyToSymbol(const T &Sym, const void *S, size_t N, size_t Offset = 0,
                               cudaMemcpyKind K = cudaMemcpyHostToDevice);
template <typename T>
cudaError_t cudaMemcpyFromSymbol(void *D, const T &Sym, size_t N, size_t Offset = 0,
                                 cudaMemcpyKind K = cudaMemcpyDeviceToHost);
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
cudaError_t cudaDeviceSynchronize();
const char *cudaGetErrorString(cudaError_t E);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *P, int Dev);
cudaError_t cudaDeviceGetAttribute(int *V, cudaDeviceAttr A, int Dev);
template <typename F> cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *A, F *Func);
template <typename F> cudaError_t cudaFuncSetAttribute(F *Func, cudaFuncAttribute A, int V);
cudaError_t cudaStreamCreate(cudaStream_t *S);
cudaError_t cudaStreamDestroy(cudaStream_t S);
cudaError_t cudaStreamSynchronize(cudaStream_t S);
cudaError_t cudaEventCreate(cudaEvent_t *E);
cudaError_t cudaEventDestroy(cudaEvent_t E);
cudaError_t cudaEventRecord(cudaEvent_t E, cudaStream_t S = nullptr);
cudaError_t cudaEventSynchronize(cudaEvent_t E);
cudaError_t cudaEventElapsedTime(float *Ms, cudaEvent_t A, cudaEvent_t B);
// What clang's HIP mode looks up for kernel<<<...>>>.
extern "C" int __hipPushCallConfiguration(dim3 Grid, dim3 Block, size_t Shared = 0,
                                          cudaStream_t Stream = nullptr);
extern "C" cudaError_t hipConfigureCall(dim3 Grid, dim3 Block, size_t Shared = 0,
                                        cudaStream_t Stream = nullptr);
