// device_calls: real calls in device code: recursion (direct and mutual), __noinline__
// functions taking many arguments, returning a struct by value and taking a pointer to a
// local array, indirect calls through a __device__ table of function pointers and through a
// pointer fetched by the host with cudaMemcpyFromSymbol and passed as a kernel argument, and
// virtual functions on objects built by placement new in one kernel and used in another.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <new>

static const char *kName = "device_calls";

#include "check.h"

constexpr int kOut = 8;

// ---- recursion ----
__host__ __device__ __noinline__ int fib(int k) { return k < 2 ? k : fib(k - 1) + fib(k - 2); }

__host__ __device__ __noinline__ bool is_odd(int k);
__host__ __device__ __noinline__ bool is_even(int k) { return k == 0 ? true : is_odd(k - 1); }
__host__ __device__ __noinline__ bool is_odd(int k) { return k == 0 ? false : is_even(k - 1); }

__host__ __device__ __noinline__ unsigned gcd(unsigned a, unsigned b) {
  return b == 0 ? a : gcd(b, a % b);
}

__host__ __device__ __noinline__ unsigned long long pow_mod(unsigned long long b, unsigned e,
                                                            unsigned long long m) {
  if (e == 0)
    return 1 % m;
  unsigned long long h = pow_mod(b, e / 2, m);
  h = h * h % m;
  return (e & 1) ? h * (b % m) % m : h;
}

// ---- __noinline__ with many arguments and a struct result ----
struct Stats {
  int lo, hi;
  long long sum;
  short count;
};

__host__ __device__ __noinline__ Stats stats_of(const int *arr, int len, int bias,
                                                signed char scale, short extra, long long seed,
                                                unsigned mask, int shift) {
  Stats s{arr[0], arr[0], 0, 0};
  for (int k = 0; k < len; ++k) {
    int v = (arr[k] * scale + bias) ^ (int)(mask >> shift);
    if (v < s.lo)
      s.lo = v;
    if (v > s.hi)
      s.hi = v;
    s.sum += v + seed;
    s.count++;
  }
  s.count += extra;
  return s;
}

// ---- function pointers ----
typedef int (*binop_t)(int, int);
__host__ __device__ __noinline__ int op_add(int a, int b) { return a + b; }
__host__ __device__ __noinline__ int op_sub(int a, int b) { return a - b; }
__host__ __device__ __noinline__ int op_mul(int a, int b) { return a * b; }
__host__ __device__ __noinline__ int op_mix(int a, int b) { return (a ^ (b << 3)) + (a >> 2); }

__device__ binop_t d_ops[4] = {op_add, op_sub, op_mul, op_mix};
__device__ binop_t d_selected = op_mix;

// ---- virtual functions ----
struct Shape {
  int id;
  __device__ Shape(int i) : id(i) {}
  __device__ virtual int area() const = 0;
  __device__ virtual int sides() const { return 0; }
};
struct Rect : Shape {
  int w, h;
  __device__ Rect(int i, int w_, int h_) : Shape(i), w(w_), h(h_) {}
  __device__ int area() const override { return w * h; }
  __device__ int sides() const override { return 4; }
};
struct Tri : Shape {
  int b, h;
  __device__ Tri(int i, int b_, int h_) : Shape(i), b(b_), h(h_) {}
  __device__ int area() const override { return b * h / 2; }
  __device__ int sides() const override { return 3; }
};
struct Disc : Shape {
  int r;
  __device__ Disc(int i, int r_) : Shape(i), r(r_) {}
  __device__ int area() const override { return 3 * r * r; } // sides() stays the base's 0
};
constexpr int kShapeBytes = 32;

__global__ void make_shapes(char *storage, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  void *p = storage + (size_t)i * kShapeBytes;
  switch (i % 3) {
  case 0:
    new (p) Rect(i, i % 7 + 1, i % 5 + 2);
    break;
  case 1:
    new (p) Tri(i, 2 * (i % 6) + 2, i % 9 + 1);
    break;
  default:
    new (p) Disc(i, i % 4 + 1);
    break;
  }
}

__global__ void calls(const int *in, int n, binop_t chosen, const char *shapes, int *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const int v = in[i];
  int local[12];
  const int len = 4 + (i % 9);
  for (int k = 0; k < len; ++k)
    local[k] = (v * (k + 1)) % 97 - 40;

  const Shape *s = reinterpret_cast<const Shape *>(shapes + (size_t)i * kShapeBytes);
  Stats st = stats_of(local, len, i % 11, (signed char)(i % 5 - 2), (short)(i & 3),
                      (long long)v * 1048576LL, 0xF0F0F0F0u ^ (unsigned)i, i % 17);
  int *o = out + i * kOut;
  o[0] = fib(3 + (v & 7) + (i & 3));
  o[1] = is_even((v & 63) + (i & 15)) ? 1 : 0;
  o[2] = d_ops[i & 3](v, i);
  o[3] = chosen(v, i % 29);
  o[4] = st.lo * 7 + st.hi;
  o[5] = (int)(st.sum ^ (st.sum >> 32)) + st.count;
  o[6] = (int)gcd((unsigned)(v & 0xffff) * 6u, (unsigned)(i + 1) * 4u) +
         (int)pow_mod((unsigned)v, (unsigned)i, 1000003ull);
  o[7] = s->area() * 10 + s->sides() + s->id * 1000;
}

static int host_area(int i, int *sides) {
  switch (i % 3) {
  case 0:
    *sides = 4;
    return (i % 7 + 1) * (i % 5 + 2);
  case 1:
    *sides = 3;
    return (2 * (i % 6) + 2) * (i % 9 + 1) / 2;
  default:
    *sides = 0;
    return 3 * (i % 4 + 1) * (i % 4 + 1);
  }
}

int main() {
  const int n = 700;
  const int block = 128;
  const int grid = (n + block - 1) / block;
  int *hin = (int *)malloc(n * sizeof(int));
  for (int i = 0; i < n; ++i)
    hin[i] = (i * 7331 + 17) % 4099 - 2000;

  int *din, *dout;
  char *dshapes;
  CK(cudaMalloc(&din, n * sizeof(int)));
  CK(cudaMalloc(&dout, n * kOut * sizeof(int)));
  CK(cudaMalloc(&dshapes, n * kShapeBytes));
  CK(cudaMemcpy(din, hin, n * sizeof(int), cudaMemcpyHostToDevice));

  binop_t chosen = nullptr;
  CK(cudaMemcpyFromSymbol(&chosen, d_selected, sizeof(binop_t)));
  if (chosen == nullptr) {
    printf("FAIL %s: device function pointer read back as null\n", kName);
    return 1;
  }

  make_shapes<<<grid, block>>>(dshapes, n);
  CK(cudaGetLastError());
  calls<<<grid, block>>>(din, n, chosen, dshapes, dout);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  int *hout = (int *)malloc(n * kOut * sizeof(int));
  CK(cudaMemcpy(hout, dout, n * kOut * sizeof(int), cudaMemcpyDeviceToHost));

  binop_t host_ops[4] = {op_add, op_sub, op_mul, op_mix};
  int rc = 0;
  for (int i = 0; i < n && !rc; ++i) {
    const int v = hin[i];
    int local[12];
    const int len = 4 + (i % 9);
    for (int k = 0; k < len; ++k)
      local[k] = (v * (k + 1)) % 97 - 40;
    Stats st = stats_of(local, len, i % 11, (signed char)(i % 5 - 2), (short)(i & 3),
                        (long long)v * 1048576LL, 0xF0F0F0F0u ^ (unsigned)i, i % 17);
    int sides;
    int area = host_area(i, &sides);
    int want[kOut];
    want[0] = fib(3 + (v & 7) + (i & 3));
    want[1] = is_even((v & 63) + (i & 15)) ? 1 : 0;
    want[2] = host_ops[i & 3](v, i);
    want[3] = op_mix(v, i % 29);
    want[4] = st.lo * 7 + st.hi;
    want[5] = (int)(st.sum ^ (st.sum >> 32)) + st.count;
    want[6] = (int)gcd((unsigned)(v & 0xffff) * 6u, (unsigned)(i + 1) * 4u) +
              (int)pow_mod((unsigned)v, (unsigned)i, 1000003ull);
    want[7] = area * 10 + sides + i * 1000;
    for (int k = 0; k < kOut; ++k)
      if (hout[i * kOut + k] != want[k]) {
        printf("FAIL %s: thread %d output %d = %d, want %d\n", kName, i, k, hout[i * kOut + k],
               want[k]);
        rc = 1;
        break;
      }
  }

  CK(cudaFree(din));
  CK(cudaFree(dout));
  CK(cudaFree(dshapes));
  free(hin);
  free(hout);
  if (rc == 0)
    printf("PASS %s\n", kName);
  return rc;
}
