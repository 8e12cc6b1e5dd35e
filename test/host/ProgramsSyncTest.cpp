// The kernels of the project's CUDA test programs (test/cuda/*.cu, nvcc's sm_90 PTX) whose
// threads work together (block reductions and scans, warp votes, atomics, cooperative groups) on
// the host backend, each against a CPU reference written here from its .cu source (the programs'
// own checks, ported), on gfx90a (wave64) and gfx1100 (wave32). Integer results and exactly
// defined float results are compared bit for bit. The language's features:
// ProgramsLanguageTest.cpp; numeric libraries: ProgramsNumericTest.cpp.
#include "HostTestSupport.h"

#include <algorithm>
#include <cfloat>
#include <climits>
#include <numeric>

using namespace host_test;

namespace {

/// A deterministic pseudo-random sequence.
std::vector<int> randomInts(size_t N, int Lo, int Hi, uint32_t Seed) {
  std::vector<int> V(N);
  uint32_t S = Seed;
  for (int &X : V) {
    S = S * 1664525u + 1013904223u;
    X = Lo + int((S >> 8) % uint32_t(Hi - Lo + 1));
  }
  return V;
}

} // namespace

TEST_CASE("reduce_shared: the second pass over more partials than threads", "[programs]") {
  struct Partial {
    long long Sum;
    float Lo, Hi;
  };
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("reduce_shared.sm90.ptx", Target);
    int Count = 300;
    std::vector<int> R = randomInts(3 * Count, -1000000, 1000000, 11);
    std::vector<Partial> Parts(Count);
    Partial Want{0, FLT_MAX, -FLT_MAX};
    for (int I = 0; I < Count; ++I) {
      Parts[I] = {(long long)R[3 * I] << 20, float(R[3 * I + 1]) / 64, float(R[3 * I + 2]) / 64};
      Want.Sum += Parts[I].Sum;
      Want.Lo = std::min(Want.Lo, Parts[I].Lo);
      Want.Hi = std::max(Want.Hi, Parts[I].Hi);
    }
    Buffer<Partial> DP(Parts), DOut(1);
    Partial *PP = DP.get(), *PO = DOut.get();
    launch(M, "_Z12reduce_pass2PK7PartialiPS_", {1}, {256}, {&PP, &Count, &PO});
    Partial Got = DOut.read()[0];
    INFO(Target);
    CHECK(Got.Sum == Want.Sum);
    CHECK(Got.Lo == Want.Lo);
    CHECK(Got.Hi == Want.Hi);
  }
}

TEST_CASE("prefix_scan: add_offsets adds each block's scanned sum", "[programs]") {
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("prefix_scan.sm90.ptx", Target);
    int N = 1900, Blocks = 4; // 512 per block, the last partial
    std::vector<int> Data = randomInts(N, -1000, 1000, 12),
                     Sums = randomInts(Blocks, -9999, 9999, 13);
    Buffer<int> DD(Data), DS(Sums);
    int *PD = DD.get(), *PS = DS.get();
    launch(M, "_Z11add_offsetsPiiPKi", {uint32_t(Blocks)}, {128}, {&PD, &N, &PS});
    std::vector<int> Got = DD.read();
    for (int I = 0; I < N; ++I) {
      INFO(Target << " element " << I);
      REQUIRE(Got[I] == Data[I] + (I / 512 ? Sums[I / 512 - 1] : 0));
    }
  }
}

TEST_CASE("warp_vote: votes, matches and reductions under divergence", "[programs]") {
  constexpr unsigned MaskA = 0x49249249u, Full = 0xffffffffu;
  constexpr int Out = 12;
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("warp_vote.sm90.ptx", Target);
    const int Block = 128, N = Block * 6 + 50, Grid = (N + Block - 1) / Block;
    std::vector<int> In(Grid * Block);
    unsigned State = 77u;
    for (int I = 0; I < N; ++I) {
      State = State * 1103515245u + 12345u;
      In[I] = int((State >> 8) % 1001) - 500;
    }
    In[5] = 7;
    Buffer<int> DIn(In);
    Buffer<unsigned> DOut(size_t(N) * Out);
    int *PI = DIn.get();
    unsigned *PO = DOut.get();
    int NN = N;
    launch(M, "_Z5votesPKiiPj", {uint32_t(Grid)}, {uint32_t(Block)}, {&PI, &NN, &PO});
    std::vector<unsigned> Got = DOut.read();
    for (int W = 0; W * 32 < N; ++W) {
      const int *V = In.data() + W * 32;
      unsigned BallotA = 0, BallotB = 0, LowPos = 0, HighNeg = 0, AllPos = 0;
      unsigned AnyA = 0, AllA = 1, AnyEq7 = 0;
      unsigned AddB = 0, MaxB = 0, AndB = Full, OrB = 0, XorB = 0;
      int MinB = INT_MAX;
      for (int L = 0; L < 32; ++L) {
        AllPos |= unsigned(V[L] > 0) << L;
        AnyEq7 |= V[L] == 7;
        if (L % 3 == 0) {
          BallotA |= unsigned(V[L] & 1) << L;
          AnyA |= V[L] > 400;
          AllA &= V[L] > -450;
          LowPos |= unsigned(L < 16 && V[L] > 0) << L;
          HighNeg |= unsigned(L >= 16 && V[L] < 0) << L;
        } else {
          BallotB |= unsigned(V[L] % 5 == 0) << L;
          unsigned U = unsigned(V[L] + 1000), H = unsigned(V[L]) * 2654435761u;
          AddB += U;
          MinB = std::min(MinB, V[L]);
          MaxB = std::max(MaxB, U);
          AndB &= H;
          OrB |= H;
          XorB ^= H;
        }
      }
      unsigned ParityUniform = 1;
      for (int L = 3; L < 32; L += 3)
        ParityUniform &= (V[L] & 1) == (V[0] & 1);
      for (int L = 0; L < 32 && W * 32 + L < N; ++L) {
        unsigned Want[Out];
        if (L % 3 == 0) {
          unsigned Match = 0;
          for (int K = 0; K < 32; K += 3)
            Match |= unsigned((V[K] & 3) == (V[L] & 3)) << K;
          unsigned R[] = {BallotA,
                          AnyA,
                          AllA,
                          Match,
                          MaskA,
                          ParityUniform ? MaskA : 0u,
                          2u + ParityUniform,
                          L < 16 ? LowPos : 100u + unsigned(__builtin_popcount(HighNeg)),
                          1,
                          1};
          std::copy(std::begin(R), std::end(R), Want);
        } else {
          unsigned Rank =
              (BallotB >> L & 1u) ? unsigned(__builtin_popcount(BallotB & ((1u << L) - 1u))) : 99u;
          unsigned R[] = {BallotB, AddB, unsigned(MinB), MaxB,        AndB,
                          OrB,     XorB, Rank,           unsigned(L), 1};
          std::copy(std::begin(R), std::end(R), Want);
        }
        Want[10] = AllPos;
        unsigned M64 = 0;
        for (int K = 0; K < 32; ++K)
          M64 |= unsigned(V[K] % 7 == V[L] % 7) << K;
        Want[11] = (1u | (AnyEq7 << 1) | (unsigned(__builtin_popcount(AllPos)) << 2)) ^ (M64 << 8);
        for (int K = 0; K < Out; ++K) {
          INFO(Target << " thread " << W * 32 + L << " output " << K);
          REQUIRE(Got[(W * 32 + L) * Out + K] == Want[K]);
        }
      }
    }
  }
}

namespace {

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
  float fmaxv;
  unsigned long long prod;
  unsigned ticket;
  int sys;
};

struct BlockResult {
  int smax, smin, sadd, sblk;
  unsigned sand, sor, sxor, sinc, sexch_sum;
  float fsum;
};

unsigned mix(int V) { return unsigned(V) * 2654435761u ^ 0x9e3779b9u; }

} // namespace

TEST_CASE("atomics: global and shared read-modify-write atomics, exact results", "[programs]") {
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("atomics.sm90.ptx", Target);
    const int N = 20000, Block = 256, Grid = (N + Block - 1) / Block;
    std::vector<int> In(N);
    unsigned S = 2024u;
    for (int &V : In) {
      S = S * 1664525u + 1013904223u;
      V = int(S >> 12) - (1 << 19);
    }
    Counters Init{};
    Init.imax = INT_MIN;
    Init.imin = INT_MAX;
    Init.umin = UINT_MAX;
    Init.llmin = LLONG_MAX;
    Init.andv = ~0u;
    Init.exch = -1;
    Init.fmaxv = -FLT_MAX;
    Init.prod = 1;
    Buffer<int> DIn(In), DExch(N), DSlots(std::vector<int>(N, -1)), DTotal(1);
    Buffer<Counters> DC(std::vector<Counters>{Init});
    Buffer<BlockResult> DRes(Grid);
    int *PI = DIn.get(), *PE = DExch.get(), *PS = DSlots.get(), *PT = DTotal.get();
    Counters *PC = DC.get();
    BlockResult *PR = DRes.get();
    int NN = N;
    launch(M, "_Z14global_atomicsPKiiP8CountersPiS3_", {uint32_t(Grid)}, {uint32_t(Block)},
           {&PI, &NN, &PC, &PE, &PS});
    launch(M, "_Z14shared_atomicsPKiiP11BlockResultPi", {uint32_t(Grid)}, {uint32_t(Block)},
           {&PI, &NN, &PR, &PT});

    Counters W = Init, Got = DC.read()[0];
    unsigned Tickets = 0;
    for (int I = 0; I < N; ++I) {
      const int V = In[I];
      W.isum = int(unsigned(W.isum) + unsigned(V));
      W.usum += unsigned(V) * 3u;
      W.ullsum += (unsigned long long)(V + 100000) << 20;
      W.fsum += float(V & 63);
      W.dsum += V * 0.5;
      W.imax = std::max(W.imax, V);
      W.imin = std::min(W.imin, V);
      W.umax = std::max(W.umax, mix(V));
      W.umin = std::min(W.umin, mix(V));
      W.llmin = std::min(W.llmin, (long long)V * 1000003LL);
      W.ullmax = std::max(W.ullmax, (unsigned long long)mix(V) << 24);
      W.andv &= mix(V) | 0x01010101u;
      W.orv |= mix(V) & 0x10204080u;
      W.xorv ^= mix(V);
      W.inc = W.inc >= 1000u ? 0u : W.inc + 1u;
      W.dec = (W.dec == 0u || W.dec > 777u) ? 777u : W.dec - 1u;
      if (I % 8 == 0) {
        W.fmaxv = std::max(W.fmaxv, float(V) * 0.75f);
        W.prod *= 2ull * (unsigned long long)(V & 0xffff) + 1ull;
      }
      Tickets += V % 3 == 0;
    }
    INFO(Target);
    CHECK(Got.isum == W.isum);
    CHECK(Got.usum == W.usum);
    CHECK(Got.ullsum == W.ullsum);
    CHECK(Got.fsum == W.fsum);
    CHECK(Got.dsum == W.dsum);
    CHECK(Got.imax == W.imax);
    CHECK(Got.imin == W.imin);
    CHECK(Got.umax == W.umax);
    CHECK(Got.umin == W.umin);
    CHECK(Got.llmin == W.llmin);
    CHECK(Got.ullmax == W.ullmax);
    CHECK(Got.andv == W.andv);
    CHECK(Got.orv == W.orv);
    CHECK(Got.xorv == W.xorv);
    CHECK(Got.inc == W.inc);
    CHECK(Got.dec == W.dec);
    CHECK(Got.fmaxv == W.fmaxv);
    CHECK(Got.prod == W.prod);
    CHECK(Got.ticket == Tickets);
    CHECK(Got.sys == 2 * N);
    // Exchange: the values returned and the one left are -1, 0 .. N-1, each once.
    std::vector<int> Exch = DExch.read();
    Exch.push_back(Got.exch);
    std::sort(Exch.begin(), Exch.end());
    std::vector<int> AllIds(N + 1);
    std::iota(AllIds.begin(), AllIds.end(), -1);
    CHECK(Exch == AllIds);
    // Compaction: slots [0, Tickets) hold each I with In[I] % 3 == 0 once; the rest untouched.
    std::vector<int> Slots = DSlots.read(), Compacted, WantCompacted;
    Compacted.assign(Slots.begin(), Slots.begin() + Tickets);
    std::sort(Compacted.begin(), Compacted.end());
    for (int I = 0; I < N; ++I)
      if (In[I] % 3 == 0)
        WantCompacted.push_back(I);
    CHECK(Compacted == WantCompacted);
    CHECK(std::all_of(Slots.begin() + Tickets, Slots.end(), [](int X) { return X == -1; }));

    std::vector<BlockResult> Res = DRes.read();
    int WantTotal = 0;
    for (int B = 0; B < Grid; ++B) {
      BlockResult R{INT_MIN, INT_MAX, 0, 0, ~0u, 0, 0, 0, 0xdead, 0.0f};
      for (int T = 0; T < Block && B * Block + T < N; ++T) {
        const int V = In[B * Block + T];
        R.smax = std::max(R.smax, V);
        R.smin = std::min(R.smin, V);
        R.sadd = int(unsigned(R.sadd) + unsigned(V));
        R.sblk += 2;
        R.sand &= mix(V) | 0x80000001u;
        R.sor |= 1u << (V & 31);
        R.sxor ^= mix(V);
        R.sinc = R.sinc >= 99u ? 0u : R.sinc + 1u;
        R.fsum += float(V & 15) * 0.25f;
        R.sexch_sum += unsigned(T);
      }
      WantTotal = int(unsigned(WantTotal) + unsigned(R.sadd));
      const BlockResult &G = Res[B];
      INFO("block " << B);
      CHECK(G.smax == R.smax);
      CHECK(G.smin == R.smin);
      CHECK(G.sadd == R.sadd);
      CHECK(G.sblk == R.sblk);
      CHECK(G.sand == R.sand);
      CHECK(G.sor == R.sor);
      CHECK(G.sxor == R.sxor);
      CHECK(G.sinc == R.sinc);
      CHECK(G.sexch_sum == R.sexch_sum);
      CHECK(G.fsum == R.fsum);
    }
    CHECK(DTotal.read()[0] == WantTotal);
  }
}

TEST_CASE("coop_groups: tiles, reduce and scan, coalesced groups", "[programs]") {
  constexpr int Out = 10;
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("coop_groups.sm90.ptx", Target);
    int N = 1000;
    const int Block = 256, Grid = (N + Block - 1) / Block;
    std::vector<int> H(Grid * Block);
    for (int I = 0; I < N; ++I)
      H[I] = (I * 613) % 1201 - 600;
    Buffer<int> DIn(std::vector<int>(H.begin(), H.begin() + N)), DOut(N * Out), DCount(1),
        DSlots(std::vector<int>(N, -1));
    int *PI = DIn.get(), *PO = DOut.get(), *PC = DCount.get(), *PS = DSlots.get();
    launch(M, "_Z5tilesPKiiPi", {uint32_t(Grid)}, {uint32_t(Block)}, {&PI, &N, &PO});
    launch(M, "_Z7compactPKiiPiS1_", {uint32_t(Grid)}, {uint32_t(Block)}, {&PI, &N, &PC, &PS});
    std::vector<int> Got = DOut.read();
    for (int I = 0; I < N; ++I) {
      const int T0 = I & ~15, Q0 = I & ~3, R = I & 15;
      int Sum = 0, Incl = 0, Excl = 0, Mx = H[Q0], X4 = 0, Any = 0, All = 1;
      unsigned Ballot = 0, Xr = 0;
      for (int K = 0; K < 16; ++K) {
        const int V = H[T0 + K];
        Sum += V;
        Incl += K <= R ? V : 0;
        Excl += K < R ? V : 0;
        Ballot |= unsigned(V > 0) << K;
        Any |= V > 400;
        All &= V > -1000;
        Xr ^= unsigned(V) * 2654435761u;
      }
      for (int K = 0; K < 4; ++K) {
        Mx = std::max(Mx, H[Q0 + K]);
        X4 ^= H[Q0 + K];
      }
      const int Tib = I % Block;
      int Want[Out] = {Sum,
                       Sum,
                       Incl,
                       Excl,
                       Mx,
                       X4,
                       int(Ballot),
                       Any | (All << 1) | 4,
                       (Tib / 16) * 1000 + (Block / 16) * 10000000 + R * 10 + (R & 3),
                       int(Xr)};
      for (int K = 0; K < Out; ++K) {
        INFO(Target << " element " << I << " output " << K);
        REQUIRE(Got[I * Out + K] == Want[K]);
      }
    }
    std::vector<int> WantSlots;
    for (int I = 0; I < N; ++I)
      if (H[I] % 3 == 0)
        WantSlots.push_back(I);
    int Count = DCount.read()[0];
    REQUIRE(Count == int(WantSlots.size()));
    std::vector<int> Slots = DSlots.read();
    std::sort(Slots.begin(), Slots.begin() + Count);
    CHECK(std::vector<int>(Slots.begin(), Slots.begin() + Count) == WantSlots);
  }
}
