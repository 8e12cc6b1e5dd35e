// subnormal_conversions: every f32 subnormal exponent (and neighbours, ties, both signs) and
// every f16/bf16 bit pattern converted on the device with CUDA's intrinsics (__float2bfloat16_rn,
// __float2half_rn and their _rz/_rd/_ru forms, __floats2bfloat162_rn, back to float), compared
// bit for bit with the same functions run on the host.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <vector>

static const char *kName = "subnormal_conversions";

#include "../check.h"

struct Out {
  unsigned short bf_rn, bf_rz, bf_rd, bf_ru, h_rn, h_rz, h_rd, h_ru;
  unsigned pair;
};

__host__ __device__ inline unsigned short bits(__nv_bfloat16 v) {
  unsigned short b;
  memcpy(&b, &v, 2);
  return b;
}
__host__ __device__ inline unsigned short bits(__half v) {
  unsigned short b;
  memcpy(&b, &v, 2);
  return b;
}

__host__ __device__ inline Out convert(float x, float y) {
  Out o;
  o.bf_rn = bits(__float2bfloat16_rn(x));
  o.bf_rz = bits(__float2bfloat16_rz(x));
  o.bf_rd = bits(__float2bfloat16_rd(x));
  o.bf_ru = bits(__float2bfloat16_ru(x));
  o.h_rn = bits(__float2half_rn(x));
  o.h_rz = bits(__float2half_rz(x));
  o.h_rd = bits(__float2half_rd(x));
  o.h_ru = bits(__float2half_ru(x));
  __nv_bfloat162 p = __floats2bfloat162_rn(x, y);
  memcpy(&o.pair, &p, 4);
  return o;
}

__global__ void narrow(const float *in, Out *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    out[i] = convert(in[i], in[n - 1 - i]);
}

// Every 16-bit pattern back to float, as bf16 and as f16.
__global__ void widen(float *bf, float *h) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 65536) {
    unsigned short b = (unsigned short)i;
    __nv_bfloat16 vb;
    __half vh;
    memcpy(&vb, &b, 2);
    memcpy(&vh, &b, 2);
    bf[i] = __bfloat162float(vb);
    h[i] = __half2float(vh);
  }
}

static float fromBits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}

int main() {
  // Each f32 subnormal exponent (leading bit k), with ties and neighbours at the bf16 and f16
  // rounding points, either sign; and the smallest normals.
  std::vector<float> in;
  for (int k = 0; k < 23; ++k)
    for (uint32_t low :
         {0u, 1u, (1u << k) - 1, 0x5555u & ((1u << k) - 1), 0x8000u & ((1u << k) - 1),
          0x8001u & ((1u << k) - 1), 0x7fffu & ((1u << k) - 1)})
      for (uint32_t sign : {0u, 0x80000000u})
        in.push_back(fromBits(sign | (1u << k) | low));
  for (uint32_t u : {0x00800000u, 0x00800001u, 0x00ffffffu, 0x80800000u, 0x0u, 0x80000000u})
    in.push_back(fromBits(u));
  const int n = int(in.size());

  float *din = nullptr;
  Out *dout = nullptr;
  CK(cudaMalloc(&din, n * sizeof(float)));
  CK(cudaMalloc(&dout, n * sizeof(Out)));
  CK(cudaMemcpy(din, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  narrow<<<(n + 127) / 128, 128>>>(din, dout, n);
  CK(cudaGetLastError());
  std::vector<Out> got(n);
  CK(cudaMemcpy(got.data(), dout, n * sizeof(Out), cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    Out want = convert(in[i], in[n - 1 - i]);
    if (memcmp(&want, &got[i], sizeof want) != 0 && bad++ < 10) {
      uint32_t u;
      memcpy(&u, &in[i], 4);
      printf("  0x%08x: bf16 rn/rz/rd/ru %04x %04x %04x %04x (want %04x %04x %04x %04x), "
             "f16 %04x %04x %04x %04x (want %04x %04x %04x %04x), pair %08x (want %08x)\n",
             u, got[i].bf_rn, got[i].bf_rz, got[i].bf_rd, got[i].bf_ru, want.bf_rn, want.bf_rz,
             want.bf_rd, want.bf_ru, got[i].h_rn, got[i].h_rz, got[i].h_rd, got[i].h_ru, want.h_rn,
             want.h_rz, want.h_rd, want.h_ru, got[i].pair, want.pair);
    }
  }
  EXPECT(bad == 0);

  float *dbf = nullptr, *dh = nullptr;
  CK(cudaMalloc(&dbf, 65536 * sizeof(float)));
  CK(cudaMalloc(&dh, 65536 * sizeof(float)));
  widen<<<256, 256>>>(dbf, dh);
  CK(cudaGetLastError());
  std::vector<float> bf(65536), h(65536);
  CK(cudaMemcpy(bf.data(), dbf, 65536 * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(h.data(), dh, 65536 * sizeof(float), cudaMemcpyDeviceToHost));
  for (int i = 0; i < 65536; ++i) {
    unsigned short b = (unsigned short)i;
    __nv_bfloat16 vb;
    __half vh;
    memcpy(&vb, &b, 2);
    memcpy(&vh, &b, 2);
    float wb = __bfloat162float(vb), wh = __half2float(vh);
    // NaNs: any NaN (the ISA leaves the payload open); everything else bit for bit.
    bool okB = memcmp(&wb, &bf[i], 4) == 0 || (wb != wb && bf[i] != bf[i]);
    bool okH = memcmp(&wh, &h[i], 4) == 0 || (wh != wh && h[i] != h[i]);
    if ((!okB || !okH) && bad++ < 10)
      printf("  0x%04x: bf16 -> %a (want %a), f16 -> %a (want %a)\n", i, bf[i], wb, h[i], wh);
  }
  EXPECT(bad == 0);
  CK(cudaFree(din));
  CK(cudaFree(dout));
  CK(cudaFree(dbf));
  CK(cudaFree(dh));
  printf("%s: %d narrowing inputs, 65536 patterns widened\n", kName, n);
  printf("PASS %s\n", kName);
  return 0;
}
