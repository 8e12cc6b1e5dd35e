// local_arrays: per-thread arrays in local memory indexed with run-time values: an insertion
// sort of a 48-element array, an RPN expression evaluator with a per-thread stack, a local
// array of structs updated at data-dependent indices, and a local array handed by pointer to a
// __noinline__ function (a generic pointer to local memory).
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static const char *kName = "local_arrays";

#include "check.h"

constexpr int kLen = 48;
constexpr int kOut = 6;

struct Cell {
  short hits;
  char tag;
  double weight;
};

__host__ __device__ unsigned lcg(unsigned &s) {
  s = s * 1103515245u + 12345u;
  return s >> 8;
}

// Keeps its own local buffer and reads the caller's through a pointer.
__host__ __device__ __noinline__ long long fold(const int *arr, int len, int stride) {
  int tmp[kLen];
  for (int k = 0; k < len; ++k)
    tmp[k] = arr[(k * stride) % len];
  unsigned long long h = 0; // unsigned: the hash wraps
  for (int k = 0; k < len; ++k)
    h = h * 31u + (unsigned long long)(long long)tmp[len - 1 - k];
  return (long long)h;
}

// Tokens: >= 0 push the value, -1 add, -2 sub, -3 mul, -4 dup, -5 swap.
__host__ __device__ long long rpn(const int *prog, int len) {
  long long stack[32];
  int sp = 0;
  for (int k = 0; k < len; ++k) {
    const int t = prog[k];
    if (t >= 0) {
      if (sp < 32)
        stack[sp++] = t;
    } else if (t == -4) {
      if (sp > 0 && sp < 32) {
        stack[sp] = stack[sp - 1];
        ++sp;
      }
    } else if (sp >= 2) {
      long long b = stack[--sp], a = stack[--sp];
      long long r = t == -1 ? a + b : t == -2 ? a - b : t == -3 ? (a * b) % 1000003 : b;
      if (t == -5) {
        stack[sp++] = b;
        r = a;
      }
      stack[sp++] = r;
    }
  }
  unsigned long long acc = 0;
  for (int k = 0; k < sp; ++k)
    acc = acc * 7u + (unsigned long long)stack[k];
  return (long long)acc;
}

__host__ __device__ void thread_work(int i, unsigned seed, long long *o) {
  unsigned s = seed ^ (unsigned)i * 0x9e3779b9u;
  int arr[kLen];
  const int len = kLen - (i % 17); // run-time length
  for (int k = 0; k < len; ++k)
    arr[k] = (int)(lcg(s) % 2000) - 1000;
  const long long before = fold(arr, len, 5);
  for (int a = 1; a < len; ++a) { // insertion sort
    int v = arr[a], b = a - 1;
    while (b >= 0 && arr[b] > v) {
      arr[b + 1] = arr[b];
      --b;
    }
    arr[b + 1] = v;
  }
  o[0] = arr[len / 2];
  o[1] = before ^ fold(arr, len, 7);

  int prog[40];
  const int plen = 20 + (i % 21);
  for (int k = 0; k < plen; ++k) {
    unsigned r = lcg(s);
    prog[k] = (r % 3 == 0) ? -(int)(1 + (r >> 4) % 5) : (int)((r >> 4) % 100);
  }
  o[2] = rpn(prog, plen);

  Cell cells[16];
  for (int k = 0; k < 16; ++k) {
    cells[k].hits = 0;
    cells[k].tag = (char)('a' + k);
    cells[k].weight = 0.0;
  }
  for (int k = 0; k < 40; ++k) {
    unsigned r = lcg(s);
    Cell &c = cells[r % 16];
    c.hits++;
    c.weight += (double)(r % 64) * 0.25;
    c.tag = (char)(c.tag ^ (r >> 9));
  }
  unsigned long long h = 0;
  double w = 0.0;
  for (int k = 0; k < 16; ++k) {
    h = h * 131u + (unsigned)(cells[k].hits * 256 + (unsigned char)cells[k].tag);
    w += cells[k].weight;
  }
  o[3] = (long long)h;
  o[4] = (long long)(w * 4.0);
  o[5] = arr[(unsigned)o[2] % (unsigned)len] + arr[0] - arr[len - 1];
}

__global__ void local_kernel(unsigned seed, int n, long long *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    thread_work(i, seed, out + (size_t)i * kOut);
}

int main() {
  const int n = 600;
  const unsigned seed = 0xC0FFEEu;
  long long *dout;
  CK(cudaMalloc(&dout, (size_t)n * kOut * sizeof(long long)));
  local_kernel<<<(n + 127) / 128, 128>>>(seed, n, dout);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  long long *hout = (long long *)malloc((size_t)n * kOut * sizeof(long long));
  CK(cudaMemcpy(hout, dout, (size_t)n * kOut * sizeof(long long), cudaMemcpyDeviceToHost));

  int rc = 0;
  for (int i = 0; i < n && !rc; ++i) {
    long long want[kOut];
    thread_work(i, seed, want);
    for (int k = 0; k < kOut; ++k)
      if (hout[(size_t)i * kOut + k] != want[k]) {
        printf("FAIL %s: thread %d output %d = %lld, want %lld\n", kName, i, k,
               hout[(size_t)i * kOut + k], want[k]);
        rc = 1;
        break;
      }
  }
  CK(cudaFree(dout));
  free(hout);
  if (rc == 0)
    printf("PASS %s\n", kName);
  return rc;
}
