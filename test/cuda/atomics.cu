// atomics: read-modify-write atomics on global and shared memory.
// Global: atomicAdd on int/unsigned/unsigned long long/float/double (and _block/_system
// scopes; _block on shared memory), atomicMax/Min on int/unsigned/long long/unsigned long long,
// atomicAnd/Or/Xor, atomicInc/atomicDec with wrap-around, atomicExch (every returned value
// checked), atomicCAS loops (float max on bit patterns, 64-bit product), and ticket-based stream
// compaction. Shared: per-block counters with the same operations, merged into global memory by
// thread 0. Every result is independent of the order in which threads arrive.
#include <cfloat>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

static const char *kName = "atomics";

#include "check.h"

struct Counters {
  int isum;
  unsigned usum;
  unsigned long long ullsum;
  float fsum;
  double dsum;
  int imax, imin;
  unsigned umax, umin;
  long long llmin;
  unsigned long long ullmax;
  unsigned andv, orv, xorv;
  unsigned inc, dec;
  int exch;
  float fmaxv;             // via atomicCAS on the bit pattern
  unsigned long long prod; // via 64-bit atomicCAS
  unsigned ticket;
  int sys;
};

struct BlockResult {
  int smax, smin, sadd, sblk;
  unsigned sand, sor, sxor, sinc, sexch_sum;
  float fsum;
};

__device__ __forceinline__ unsigned mix(int v) { return (unsigned)v * 2654435761u ^ 0x9e3779b9u; }

__device__ float atomic_max_float(float *addr, float val) {
  int *iaddr = (int *)addr;
  int old = *iaddr, assumed;
  do {
    assumed = old;
    if (__int_as_float(assumed) >= val)
      break;
    old = atomicCAS(iaddr, assumed, __float_as_int(val));
  } while (old != assumed);
  return __int_as_float(old);
}

__device__ unsigned long long atomic_mul_u64(unsigned long long *addr, unsigned long long f) {
  unsigned long long old = *addr, assumed;
  do {
    assumed = old;
    old = atomicCAS(addr, assumed, assumed * f);
  } while (old != assumed);
  return old;
}

__global__ void global_atomics(const int *in, int n, Counters *c, int *exch_old, int *slots) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  const int v = in[i];
  atomicAdd(&c->isum, v);
  atomicAdd(&c->usum, (unsigned)v * 3u);
  atomicAdd(&c->ullsum, (unsigned long long)(v + 100000) << 20);
  atomicAdd(&c->fsum, (float)(v & 63));
  atomicAdd(&c->dsum, v * 0.5);
  atomicMax(&c->imax, v);
  atomicMin(&c->imin, v);
  atomicMax(&c->umax, mix(v));
  atomicMin(&c->umin, mix(v));
  atomicMin(&c->llmin, (long long)v * 1000003LL);
  atomicMax(&c->ullmax, (unsigned long long)mix(v) << 24);
  atomicAnd(&c->andv, mix(v) | 0x01010101u);
  atomicOr(&c->orv, mix(v) & 0x10204080u);
  atomicXor(&c->xorv, mix(v));
  atomicInc(&c->inc, 1000u);
  atomicDec(&c->dec, 777u);
  exch_old[i] = atomicExch(&c->exch, i);
  if (i % 8 == 0) { // CAS loops retry under contention: keep the number of contenders modest
    atomic_max_float(&c->fmaxv, (float)v * 0.75f);
    atomic_mul_u64(&c->prod, 2ull * (unsigned long long)(v & 0xffff) + 1ull);
  }
  if (v % 3 == 0)
    slots[atomicAdd(&c->ticket, 1u)] = i;
  atomicAdd_system(&c->sys, 2);
}

__global__ void shared_atomics(const int *in, int n, BlockResult *res, int *total) {
  __shared__ int smax, smin, sadd, sblk;
  __shared__ unsigned sand, sor, sxor, sinc, sexch, sexch_sum;
  __shared__ float fsum;
  if (threadIdx.x == 0) {
    smax = INT_MIN;
    smin = INT_MAX;
    sadd = 0;
    sblk = 0;
    sand = ~0u;
    sor = 0;
    sxor = 0;
    sinc = 0;
    sexch = 0xdead;
    sexch_sum = 0;
    fsum = 0.0f;
  }
  __syncthreads();
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    const int v = in[i];
    atomicMax(&smax, v);
    atomicMin(&smin, v);
    atomicAdd(&sadd, v);
    atomicAdd_block(&sblk, 2); // block scope: every user is in this block
    atomicAnd(&sand, mix(v) | 0x80000001u);
    atomicOr(&sor, 1u << (v & 31));
    atomicXor(&sxor, mix(v));
    atomicInc(&sinc, 99u);
    atomicAdd(&fsum, (float)(v & 15) * 0.25f);
    // The sum of everything exchanged out plus what stays equals the sum of what went in.
    unsigned prev = atomicExch(&sexch, (unsigned)threadIdx.x);
    atomicAdd(&sexch_sum, prev);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    BlockResult r;
    r.smax = smax;
    r.smin = smin;
    r.sadd = sadd;
    r.sblk = sblk;
    r.sand = sand;
    r.sor = sor;
    r.sxor = sxor;
    r.sinc = sinc;
    r.sexch_sum = sexch_sum + sexch;
    r.fsum = fsum;
    res[blockIdx.x] = r;
    atomicAdd(total, sadd);
  }
}

static unsigned hmix(int v) { return (unsigned)v * 2654435761u ^ 0x9e3779b9u; }

int main() {
  const int n = 20000;
  const int block = 256;
  const int grid = (n + block - 1) / block;
  int *hin = (int *)malloc(n * sizeof(int));
  unsigned s = 2024u;
  for (int i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    hin[i] = (int)(s >> 12) - (1 << 19); // about -524288 .. 524287
  }

  Counters init;
  memset(&init, 0, sizeof(init));
  init.imax = INT_MIN;
  init.imin = INT_MAX;
  init.umax = 0;
  init.umin = UINT_MAX;
  init.llmin = LLONG_MAX;
  init.ullmax = 0;
  init.andv = ~0u;
  init.exch = -1;
  init.fmaxv = -FLT_MAX;
  init.prod = 1;

  int *din, *dexch, *dslots, *dtotal;
  Counters *dc;
  BlockResult *dres;
  CK(cudaMalloc(&din, n * sizeof(int)));
  CK(cudaMalloc(&dexch, n * sizeof(int)));
  CK(cudaMalloc(&dslots, n * sizeof(int)));
  CK(cudaMalloc(&dtotal, sizeof(int)));
  CK(cudaMalloc(&dc, sizeof(Counters)));
  CK(cudaMalloc(&dres, grid * sizeof(BlockResult)));
  CK(cudaMemcpy(din, hin, n * sizeof(int), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(dc, &init, sizeof(Counters), cudaMemcpyHostToDevice));
  CK(cudaMemset(dslots, 0xff, n * sizeof(int)));
  CK(cudaMemset(dtotal, 0, sizeof(int)));

  global_atomics<<<grid, block>>>(din, n, dc, dexch, dslots);
  CK(cudaGetLastError());
  shared_atomics<<<grid, block>>>(din, n, dres, dtotal);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  Counters got;
  int *hexch = (int *)malloc(n * sizeof(int));
  int *hslots = (int *)malloc(n * sizeof(int));
  BlockResult *hres = (BlockResult *)malloc(grid * sizeof(BlockResult));
  int total;
  CK(cudaMemcpy(&got, dc, sizeof(Counters), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hexch, dexch, n * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hslots, dslots, n * sizeof(int), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hres, dres, grid * sizeof(BlockResult), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&total, dtotal, sizeof(int), cudaMemcpyDeviceToHost));

  // Host reference.
  Counters w = init;
  unsigned inc = 0, dec = 0, tickets = 0;
  for (int i = 0; i < n; ++i) {
    const int v = hin[i];
    w.isum = (int)((unsigned)w.isum + (unsigned)v);
    w.usum += (unsigned)v * 3u;
    w.ullsum += (unsigned long long)(v + 100000) << 20;
    w.fsum += (float)(v & 63);
    w.dsum += v * 0.5;
    if (v > w.imax)
      w.imax = v;
    if (v < w.imin)
      w.imin = v;
    if (hmix(v) > w.umax)
      w.umax = hmix(v);
    if (hmix(v) < w.umin)
      w.umin = hmix(v);
    if ((long long)v * 1000003LL < w.llmin)
      w.llmin = (long long)v * 1000003LL;
    if (((unsigned long long)hmix(v) << 24) > w.ullmax)
      w.ullmax = (unsigned long long)hmix(v) << 24;
    w.andv &= hmix(v) | 0x01010101u;
    w.orv |= hmix(v) & 0x10204080u;
    w.xorv ^= hmix(v);
    inc = inc >= 1000u ? 0u : inc + 1u;
    dec = (dec == 0u || dec > 777u) ? 777u : dec - 1u;
    if (i % 8 == 0) {
      if ((float)v * 0.75f > w.fmaxv)
        w.fmaxv = (float)v * 0.75f;
      w.prod *= 2ull * (unsigned long long)(v & 0xffff) + 1ull;
    }
    if (v % 3 == 0)
      ++tickets;
  }
  w.inc = inc;
  w.dec = dec;

  int rc = 0;
#define EXPECT_FIELD(field, fmt)                                                                   \
  if (!rc && !(got.field == w.field)) {                                                            \
    printf("FAIL %s: " #field " = " fmt ", want " fmt "\n", kName, got.field, w.field);            \
    rc = 1;                                                                                        \
  }
  EXPECT_FIELD(isum, "%d")
  EXPECT_FIELD(usum, "%u")
  EXPECT_FIELD(ullsum, "%llu")
  EXPECT_FIELD(fsum, "%.9g")
  EXPECT_FIELD(dsum, "%.17g")
  EXPECT_FIELD(imax, "%d")
  EXPECT_FIELD(imin, "%d")
  EXPECT_FIELD(umax, "%u")
  EXPECT_FIELD(umin, "%u")
  EXPECT_FIELD(llmin, "%lld")
  EXPECT_FIELD(ullmax, "%llu")
  EXPECT_FIELD(andv, "0x%08x")
  EXPECT_FIELD(orv, "0x%08x")
  EXPECT_FIELD(xorv, "0x%08x")
  EXPECT_FIELD(inc, "%u")
  EXPECT_FIELD(dec, "%u")
  EXPECT_FIELD(fmaxv, "%.9g")
  EXPECT_FIELD(prod, "%llu")
#undef EXPECT_FIELD
  if (!rc && (got.ticket != tickets || got.sys != 2 * n)) {
    printf("FAIL %s: ticket/sys = %u/%d, want %u/%d\n", kName, got.ticket, got.sys, tickets, 2 * n);
    rc = 1;
  }
  if (!rc) {
    // Exchange: the returned values and the final value are -1, 0 .. n-1, each exactly once.
    char *seen = (char *)calloc(n + 1, 1);
    for (int i = 0; i <= n && !rc; ++i) {
      int val = i < n ? hexch[i] : got.exch;
      if (val < -1 || val >= n || seen[val + 1]) {
        printf("FAIL %s: atomicExch value %d duplicated or out of range\n", kName, val);
        rc = 1;
      } else {
        seen[val + 1] = 1;
      }
    }
    free(seen);
  }
  if (!rc) {
    // Compaction: slots[0 .. tickets) hold each i with in[i] % 3 == 0 exactly once.
    char *seen = (char *)calloc(n, 1);
    for (unsigned t = 0; t < tickets && !rc; ++t) {
      int i = hslots[t];
      if (i < 0 || i >= n || seen[i] || hin[i] % 3 != 0) {
        printf("FAIL %s: compaction slot %u holds %d\n", kName, t, i);
        rc = 1;
      } else {
        seen[i] = 1;
      }
    }
    if (!rc && tickets < (unsigned)n && hslots[tickets] != -1) {
      printf("FAIL %s: compaction wrote past its count\n", kName);
      rc = 1;
    }
    free(seen);
  }
  int want_total = 0;
  for (int b = 0; b < grid && !rc; ++b) {
    BlockResult r;
    r.smax = INT_MIN;
    r.smin = INT_MAX;
    r.sadd = 0;
    r.sblk = 0;
    r.sand = ~0u;
    r.sor = r.sxor = r.sinc = 0;
    r.sexch_sum = 0xdead;
    r.fsum = 0.0f;
    for (int t = 0; t < block; ++t) {
      const int i = b * block + t;
      if (i >= n)
        break;
      const int v = hin[i];
      if (v > r.smax)
        r.smax = v;
      if (v < r.smin)
        r.smin = v;
      r.sadd = (int)((unsigned)r.sadd + (unsigned)v);
      r.sblk += 2;
      r.sand &= hmix(v) | 0x80000001u;
      r.sor |= 1u << (v & 31);
      r.sxor ^= hmix(v);
      r.sinc = r.sinc >= 99u ? 0u : r.sinc + 1u;
      r.fsum += (float)(v & 15) * 0.25f;
      r.sexch_sum += (unsigned)t;
    }
    want_total = (int)((unsigned)want_total + (unsigned)r.sadd);
    const BlockResult &g = hres[b];
    if (g.smax != r.smax || g.smin != r.smin || g.sadd != r.sadd || g.sblk != r.sblk ||
        g.sand != r.sand || g.sor != r.sor || g.sxor != r.sxor || g.sinc != r.sinc ||
        g.sexch_sum != r.sexch_sum || g.fsum != r.fsum) {
      printf("FAIL %s: shared-memory results of block %d differ (max %d/%d min %d/%d add %d/%d "
             "blk %d/%d and %x/%x or %x/%x xor %x/%x inc %u/%u exch %u/%u fsum %g/%g)\n",
             kName, b, g.smax, r.smax, g.smin, r.smin, g.sadd, r.sadd, g.sblk, r.sblk, g.sand,
             r.sand, g.sor, r.sor, g.sxor, r.sxor, g.sinc, r.sinc, g.sexch_sum, r.sexch_sum, g.fsum,
             r.fsum);
      rc = 1;
    }
  }
  if (!rc && total != want_total) {
    printf("FAIL %s: total = %d, want %d\n", kName, total, want_total);
    rc = 1;
  }

  CK(cudaFree(din));
  CK(cudaFree(dexch));
  CK(cudaFree(dslots));
  CK(cudaFree(dtotal));
  CK(cudaFree(dc));
  CK(cudaFree(dres));
  free(hin);
  free(hexch);
  free(hslots);
  free(hres);
  if (rc == 0)
    printf("PASS %s\n", kName);
  return rc;
}
