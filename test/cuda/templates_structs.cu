// templates_structs: kernel parameters of many shapes: structs passed by value that mix
// char/short/double/float4/pointer members (with padding and 16-byte alignment), a 512-byte
// struct, bool/enum/scalar parameters after odd-sized ones, and templated kernels instantiated
// for int, unsigned long long, float, double and short, with non-type template parameters and a
// functor passed by value.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

static const char *kName = "templates_structs";

#include "check.h"

struct Mixed {
  char c;
  short s;
  double d;
  float4 f4; // forces 16-byte alignment of the whole struct
  int *ptr;
  unsigned char tag[3];
  long long ll;
};

struct __align__(8) Small {
  unsigned char a;
  float b;
  short c;
};

struct Table {
  int v[128];
};

enum class Mode : unsigned char { Add = 1, Sub = 2, Xor = 3 };

__global__ void params_kernel(char c0, Mixed m, short s0, Small sm, double d0, bool flag, Mode mode,
                              float4 v4, Table tab, long long *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= 128)
    return;
  long long r = 0;
  r += c0;
  r += m.c * 3 + m.s * 5;
  r += (long long)(m.d * 4.0);
  r += (long long)(m.f4.x + 2.0f * m.f4.y + 4.0f * m.f4.z + 8.0f * m.f4.w);
  r += m.ptr[i % 4];
  r += m.tag[0] + (m.tag[1] << 8) + (m.tag[2] << 16);
  r ^= m.ll;
  r += s0 + sm.a + (long long)(sm.b * 2.0f) + sm.c;
  r += (long long)(d0 * 8.0);
  r += flag ? 1000 : -1000;
  int t = tab.v[i] + tab.v[127 - i];
  switch (mode) {
  case Mode::Add:
    r += t;
    break;
  case Mode::Sub:
    r -= t;
    break;
  case Mode::Xor:
    r ^= t;
    break;
  }
  r += (long long)(v4.x * v4.y) - (long long)(v4.z + v4.w);
  out[i] = r;
}

template <typename T, int N> struct Poly { T coef[N]; };

// Horner evaluation; the type decides the arithmetic.
template <typename T, int N> __host__ __device__ T horner(const Poly<T, N> &p, T x) {
  T acc = p.coef[N - 1];
  for (int k = N - 2; k >= 0; --k)
    acc = acc * x + p.coef[k];
  return acc;
}

template <typename T, int N> __global__ void poly_kernel(const T *in, T *out, int n, Poly<T, N> p) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    out[i] = horner(p, in[i]);
}

template <typename T> struct Clamp {
  T lo, hi;
  __host__ __device__ T operator()(T x) const { return x < lo ? lo : (x > hi ? hi : x); }
};

template <typename T, typename F, int Unroll>
__global__ void map_kernel(const T *in, T *out, int n, F f) {
  const int base = (blockIdx.x * blockDim.x + threadIdx.x) * Unroll;
#pragma unroll
  for (int u = 0; u < Unroll; ++u)
    if (base + u < n)
      out[base + u] = f(in[base + u]);
}

template <typename T, int N> static int run_poly(const char *type, int n) {
  T *h = (T *)malloc(n * sizeof(T));
  T *g = (T *)malloc(n * sizeof(T));
  for (int i = 0; i < n; ++i)
    h[i] = (T)(i % 9) - (T)4; // -4 .. 4 (wraps for unsigned)
  Poly<T, N> p;
  for (int k = 0; k < N; ++k)
    p.coef[k] = (T)((k * 3) % 7) - (T)3;
  T *din, *dout;
  CK(cudaMalloc(&din, n * sizeof(T)));
  CK(cudaMalloc(&dout, n * sizeof(T)));
  CK(cudaMemcpy(din, h, n * sizeof(T), cudaMemcpyHostToDevice));
  poly_kernel<T, N><<<3, 128>>>(din, dout, n, p);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(g, dout, n * sizeof(T), cudaMemcpyDeviceToHost));
  int rc = 0;
  for (int i = 0; i < n; ++i) {
    T want = horner(p, h[i]);
    if (memcmp(&g[i], &want, sizeof(T)) != 0) {
      printf("FAIL %s: poly<%s,%d>[%d] = %g, want %g\n", kName, type, N, i, (double)g[i],
             (double)want);
      rc = 1;
      break;
    }
  }
  CK(cudaFree(din));
  CK(cudaFree(dout));
  free(h);
  free(g);
  return rc;
}

template <typename T, int Unroll> static int run_map(const char *type, int n, Clamp<T> f) {
  T *h = (T *)malloc(n * sizeof(T));
  T *g = (T *)malloc(n * sizeof(T));
  for (int i = 0; i < n; ++i)
    h[i] = (T)((i * 37) % 200) - (T)100;
  T *din, *dout;
  CK(cudaMalloc(&din, n * sizeof(T)));
  CK(cudaMalloc(&dout, n * sizeof(T)));
  CK(cudaMemcpy(din, h, n * sizeof(T), cudaMemcpyHostToDevice));
  const int threads = (n + Unroll - 1) / Unroll;
  map_kernel<T, Clamp<T>, Unroll><<<(threads + 255) / 256, 256>>>(din, dout, n, f);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(g, dout, n * sizeof(T), cudaMemcpyDeviceToHost));
  int rc = 0;
  for (int i = 0; i < n; ++i)
    if (g[i] != f(h[i])) {
      printf("FAIL %s: clamp<%s>[%d] = %g, want %g\n", kName, type, i, (double)g[i],
             (double)f(h[i]));
      rc = 1;
      break;
    }
  CK(cudaFree(din));
  CK(cudaFree(dout));
  free(h);
  free(g);
  return rc;
}

int main() {
  // Parameter layout test.
  int hptr[4] = {11, -22, 33, -44};
  int *dptr;
  long long *dout;
  CK(cudaMalloc(&dptr, sizeof(hptr)));
  CK(cudaMalloc(&dout, 128 * sizeof(long long)));
  CK(cudaMemcpy(dptr, hptr, sizeof(hptr), cudaMemcpyHostToDevice));
  Mixed m;
  memset(&m, 0, sizeof(m));
  m.c = -5;
  m.s = 1234;
  m.d = 3.25;
  m.f4 = make_float4(1.0f, -2.0f, 3.0f, 0.5f);
  m.ptr = dptr;
  m.tag[0] = 0x12;
  m.tag[1] = 0x34;
  m.tag[2] = 0x56;
  m.ll = 0x0123456789abcdefLL;
  Small sm;
  sm.a = 200;
  sm.b = -7.5f;
  sm.c = -300;
  Table tab;
  for (int k = 0; k < 128; ++k)
    tab.v[k] = k * k - 50 * k;
  const char c0 = 'A';
  const short s0 = -32000;
  const double d0 = -1.625;
  const float4 v4 = make_float4(6.0f, 7.0f, -1.5f, 0.5f);

  const Mode modes[3] = {Mode::Add, Mode::Sub, Mode::Xor};
  for (int mi = 0; mi < 3; ++mi) {
    const bool flag = mi != 1;
    params_kernel<<<2, 96>>>(c0, m, s0, sm, d0, flag, modes[mi], v4, tab, dout);
    CK(cudaGetLastError());
    long long got[128];
    CK(cudaMemcpy(got, dout, sizeof(got), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 128; ++i) {
      long long r = 0;
      r += c0;
      r += m.c * 3 + m.s * 5;
      r += (long long)(m.d * 4.0);
      r += (long long)(m.f4.x + 2.0f * m.f4.y + 4.0f * m.f4.z + 8.0f * m.f4.w);
      r += hptr[i % 4];
      r += m.tag[0] + (m.tag[1] << 8) + (m.tag[2] << 16);
      r ^= m.ll;
      r += s0 + sm.a + (long long)(sm.b * 2.0f) + sm.c;
      r += (long long)(d0 * 8.0);
      r += flag ? 1000 : -1000;
      int t = tab.v[i] + tab.v[127 - i];
      if (modes[mi] == Mode::Add)
        r += t;
      else if (modes[mi] == Mode::Sub)
        r -= t;
      else
        r ^= t;
      r += (long long)(v4.x * v4.y) - (long long)(v4.z + v4.w);
      if (got[i] != r) {
        printf("FAIL %s: params (mode %d) out[%d] = %lld, want %lld\n", kName, mi, i, got[i], r);
        return 1;
      }
    }
  }
  CK(cudaFree(dptr));
  CK(cudaFree(dout));

  if (run_poly<int, 5>("int", 1000))
    return 1;
  if (run_poly<unsigned long long, 7>("u64", 777))
    return 1;
  if (run_poly<float, 4>("float", 500))
    return 1;
  if (run_poly<double, 6>("double", 600))
    return 1;
  if (run_poly<short, 3>("short", 300))
    return 1;
  if (run_map<int, 4>("int", 1001, Clamp<int>{-50, 60}))
    return 1;
  if (run_map<double, 1>("double", 333, Clamp<double>{-10.5, 10.25}))
    return 1;
  if (run_map<short, 8>("short", 517, Clamp<short>{-3, 3}))
    return 1;
  printf("PASS %s\n", kName);
  return 0;
}
