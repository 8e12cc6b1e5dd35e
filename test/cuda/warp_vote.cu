// warp_vote: warp votes and matches under divergence: __ballot_sync, __any_sync, __all_sync,
// __uni_sync, __activemask, __popc, __match_any_sync (32- and 64-bit), __match_all_sync,
// __reduce_{add,min,max,and,or,xor}_sync (sm_80+, with a shuffle fallback below sm_80),
// nested divergent branches with partial member masks, and inline PTX reading %laneid and
// %lanemask_lt for a warp-aggregated rank.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

static const char *kName = "warp_vote";

#include "check.h"

constexpr unsigned kFull = 0xffffffffu;
constexpr unsigned kMaskA = 0x49249249u; // lanes 0, 3, 6, ..., 30 (lane % 3 == 0)
constexpr unsigned kMaskB = ~kMaskA;
constexpr int kOut = 12; // outputs per thread

__device__ __forceinline__ unsigned lane_id() {
  unsigned r;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
  return r;
}

__device__ __forceinline__ unsigned lanemask_lt() {
  unsigned r;
  asm volatile("mov.u32 %0, %%lanemask_lt;" : "=r"(r));
  return r;
}

// Shuffle-based reduction over the lanes of `mask` (all of them must call it).
enum class Op { Add, MinS, MaxU, And, Or, Xor };
__device__ unsigned mask_reduce(unsigned mask, unsigned x, Op op) {
  unsigned acc = 0;
  bool first = true;
  for (unsigned m = mask; m != 0; m &= m - 1) {
    unsigned y = __shfl_sync(mask, x, __ffs(m) - 1);
    if (first) {
      acc = y;
      first = false;
      continue;
    }
    switch (op) {
    case Op::Add:
      acc += y;
      break;
    case Op::MinS:
      acc = (int)y < (int)acc ? y : acc;
      break;
    case Op::MaxU:
      acc = y > acc ? y : acc;
      break;
    case Op::And:
      acc &= y;
      break;
    case Op::Or:
      acc |= y;
      break;
    case Op::Xor:
      acc ^= y;
      break;
    }
  }
  return acc;
}

__global__ void votes(const int *in, int n, unsigned *out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % 32;
  const int v = i < n ? in[i] : 0;
  unsigned r[kOut];
  for (int k = 0; k < kOut; ++k)
    r[k] = 0;

  if (lane % 3 == 0) {
    r[0] = __ballot_sync(kMaskA, v & 1);
    r[1] = __any_sync(kMaskA, v > 400) != 0;
    r[2] = __all_sync(kMaskA, v > -450) != 0;
    r[3] = __match_any_sync(kMaskA, (unsigned)v & 3u);
    int pred1 = -1, pred2 = -1;
    r[4] = __match_all_sync(kMaskA, v >= -500 ? 7u : 8u, &pred1);
    r[5] = __match_all_sync(kMaskA, (unsigned)v & 1u, &pred2);
    r[6] = (unsigned)(pred1 * 2 + pred2);
    if (lane < 16) {
      r[7] = __ballot_sync(kMaskA & 0x0000ffffu, v > 0);
    } else {
      r[7] = 100u + __popc(__ballot_sync(kMaskA & 0xffff0000u, v < 0));
    }
    unsigned am = __activemask();
    r[8] = ((am >> lane) & 1u) && (am & ~kMaskA) == 0u;
    r[9] = __uni_sync(kMaskA, v > -1000) != 0;
    __syncwarp(kMaskA);
  } else {
    unsigned b = __ballot_sync(kMaskB, v % 5 == 0);
    r[0] = b;
    const unsigned u = (unsigned)(v + 1000);
    const unsigned h = (unsigned)v * 2654435761u;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    r[1] = __reduce_add_sync(kMaskB, u);
    r[2] = (unsigned)__reduce_min_sync(kMaskB, v);
    r[3] = __reduce_max_sync(kMaskB, u);
    r[4] = __reduce_and_sync(kMaskB, h);
    r[5] = __reduce_or_sync(kMaskB, h);
    r[6] = __reduce_xor_sync(kMaskB, h);
#else
    r[1] = mask_reduce(kMaskB, u, Op::Add);
    r[2] = mask_reduce(kMaskB, (unsigned)v, Op::MinS);
    r[3] = mask_reduce(kMaskB, u, Op::MaxU);
    r[4] = mask_reduce(kMaskB, h, Op::And);
    r[5] = mask_reduce(kMaskB, h, Op::Or);
    r[6] = mask_reduce(kMaskB, h, Op::Xor);
#endif
    // Rank among the voting lanes below me: the classic warp-aggregated slot.
    r[7] = (b >> lane & 1u) ? (unsigned)__popc(b & lanemask_lt()) : 99u;
    r[8] = lane_id();
    unsigned am = __activemask();
    r[9] = ((am >> lane) & 1u) && (am & ~kMaskB) == 0u;
    __syncwarp(kMaskB);
  }
  __syncwarp();

  // Converged again: full-warp votes.
  unsigned all_pos = __ballot_sync(kFull, v > 0);
  r[10] = all_pos;
  unsigned flags = (unsigned)(__all_sync(kFull, v < 1000) != 0) |
                   ((unsigned)(__any_sync(kFull, v == 7) != 0) << 1) |
                   ((unsigned)__popc(all_pos) << 2);
  unsigned m64 = __match_any_sync(kFull, (unsigned long long)(v % 7 + 7) << 40);
  r[11] = flags ^ (m64 << 8); // popc sits in bits 2..7; the mask's top 8 bits drop out

  if (i < n)
    for (int k = 0; k < kOut; ++k)
      out[i * kOut + k] = r[k];
}

int main() {
  const int block = 128;
  const int n = block * 6 + 50;
  const int grid = (n + block - 1) / block;
  const int threads = grid * block;
  int *hin = (int *)calloc(threads, sizeof(int));
  unsigned state = 77u;
  for (int i = 0; i < n; ++i) {
    state = state * 1103515245u + 12345u;
    hin[i] = (int)((state >> 8) % 1001) - 500; // -500 .. 500
  }
  hin[5] = 7; // some warp sees v == 7

  int *din;
  unsigned *dout;
  CK(cudaMalloc(&din, n * sizeof(int)));
  CK(cudaMalloc(&dout, (size_t)n * kOut * sizeof(unsigned)));
  CK(cudaMemcpy(din, hin, n * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemset(dout, 0, (size_t)n * kOut * sizeof(unsigned)));
  votes<<<grid, block>>>(din, n, dout);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  unsigned *hout = (unsigned *)malloc((size_t)n * kOut * sizeof(unsigned));
  CK(cudaMemcpy(hout, dout, (size_t)n * kOut * sizeof(unsigned), cudaMemcpyDeviceToHost));

  int rc = 0;
  for (int w = 0; w * 32 < n && !rc; ++w) {
    const int *v = hin + w * 32;
    // Whole-warp and per-group facts.
    unsigned ballotA = 0, ballotB = 0, lowPos = 0, highNeg = 0, allPos = 0;
    int anyA = 0, allA = 1, anyEq7 = 0;
    unsigned addB = 0, maxB = 0, andB = kFull, orB = 0, xorB = 0;
    int minB = 0x7fffffff;
    for (int l = 0; l < 32; ++l) {
      if (v[l] > 0)
        allPos |= 1u << l;
      if (v[l] == 7)
        anyEq7 = 1;
      if (l % 3 == 0) {
        if (v[l] & 1)
          ballotA |= 1u << l;
        if (v[l] > 400)
          anyA = 1;
        if (!(v[l] > -450))
          allA = 0;
        if (l < 16 && v[l] > 0)
          lowPos |= 1u << l;
        if (l >= 16 && v[l] < 0)
          highNeg |= 1u << l;
      } else {
        if (v[l] % 5 == 0)
          ballotB |= 1u << l;
        unsigned u = (unsigned)(v[l] + 1000), h = (unsigned)v[l] * 2654435761u;
        addB += u;
        if (v[l] < minB)
          minB = v[l];
        if (u > maxB)
          maxB = u;
        andB &= h;
        orB |= h;
        xorB ^= h;
      }
    }
    int parityUniform = 1;
    for (int l = 3; l < 32; l += 3)
      if ((v[l] & 1) != (v[0] & 1))
        parityUniform = 0;

    for (int l = 0; l < 32 && w * 32 + l < n; ++l) {
      const int i = w * 32 + l;
      unsigned want[kOut];
      if (l % 3 == 0) {
        want[0] = ballotA;
        want[1] = anyA;
        want[2] = allA;
        unsigned m = 0;
        for (int k = 0; k < 32; k += 3)
          if ((v[k] & 3) == (v[l] & 3))
            m |= 1u << k;
        want[3] = m;
        want[4] = kMaskA;
        want[5] = parityUniform ? kMaskA : 0u;
        want[6] = 1u * 2 + (unsigned)parityUniform;
        want[7] = l < 16 ? lowPos : 100u + __builtin_popcount(highNeg);
        want[8] = 1;
        want[9] = 1;
      } else {
        want[0] = ballotB;
        want[1] = addB;
        want[2] = (unsigned)minB;
        want[3] = maxB;
        want[4] = andB;
        want[5] = orB;
        want[6] = xorB;
        want[7] =
            (ballotB >> l & 1u) ? (unsigned)__builtin_popcount(ballotB & ((1u << l) - 1u)) : 99u;
        want[8] = (unsigned)l;
        want[9] = 1;
      }
      want[10] = allPos;
      unsigned m64 = 0;
      for (int k = 0; k < 32; ++k)
        if (v[k] % 7 == v[l] % 7)
          m64 |= 1u << k;
      want[11] =
          (1u | ((unsigned)anyEq7 << 1) | ((unsigned)__builtin_popcount(allPos) << 2)) ^ (m64 << 8);
      for (int k = 0; k < kOut; ++k) {
        if (hout[i * kOut + k] != want[k]) {
          printf("FAIL %s: thread %d (lane %d) output %d = 0x%08x, want 0x%08x\n", kName, i, l, k,
                 hout[i * kOut + k], want[k]);
          rc = 1;
          break;
        }
      }
      if (rc)
        break;
    }
  }

  CK(cudaFree(din));
  CK(cudaFree(dout));
  free(hin);
  free(hout);
  if (rc == 0)
    printf("PASS %s\n", kName);
  return rc;
}
