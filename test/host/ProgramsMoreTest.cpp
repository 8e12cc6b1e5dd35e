// The remaining kernels of the project's CUDA test programs (test/cuda/*.cu, nvcc's sm_90 PTX) on
// the host backend, each against a CPU reference written here from its .cu source (the programs'
// own checks, ported), on gfx90a (wave64) and gfx1100 (wave32). Integer results and exactly
// defined float results are compared bit for bit. Numeric libraries: ProgramsNumericTest.cpp.
#include "HostTestSupport.h"

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cstring>
#include <numeric>
#include <set>

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

/// A global variable of the module, as a typed pointer.
template <typename T> T *global(host::LoadedModule &M, const char *Name) {
  auto G = M.global(Name);
  if (!G)
    FAIL(llvm::toString(G.takeError()));
  return static_cast<T *>(*G);
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

TEST_CASE("grid3d: every component of the ids in 3D grids, and a tiled transpose", "[programs]") {
  struct Rec {
    uint16_t tx, ty, tz, bx, by, bz, bdx, bdy, bdz, gdx, gdy, gdz;
    unsigned warp_lane, written;
  };
  const host::Dim3 Shapes[][2] = {{{3, 2, 2}, {8, 4, 3}},
                                  {{2, 3, 4}, {5, 7, 2}},
                                  {{1, 1, 5}, {1, 1, 64}},
                                  {{7, 1, 1}, {4, 16, 1}},
                                  {{1, 9, 1}, {33, 1, 2}}};
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("grid3d.sm90.ptx", Target);
    for (auto &[G, B] : Shapes) {
      const unsigned Threads = B.X * B.Y * B.Z;
      Buffer<Rec> D(size_t(G.X) * G.Y * G.Z * Threads);
      Rec *P = D.get();
      launch(M, "_Z6recordP3Rec", G, B, {&P});
      std::vector<Rec> H = D.read();
      for (unsigned BZ = 0; BZ < G.Z; ++BZ)
        for (unsigned BY = 0; BY < G.Y; ++BY)
          for (unsigned BX = 0; BX < G.X; ++BX)
            for (unsigned TZ = 0; TZ < B.Z; ++TZ)
              for (unsigned TY = 0; TY < B.Y; ++TY)
                for (unsigned TX = 0; TX < B.X; ++TX) {
                  const unsigned Tib = TX + B.X * (TY + B.Y * TZ);
                  const unsigned Bid = BX + G.X * (BY + G.Y * BZ);
                  const Rec &R = H[size_t(Bid) * Threads + Tib];
                  INFO(Target << " block " << Bid << " thread " << Tib);
                  REQUIRE(R.written == 1);
                  REQUIRE((R.tx == TX && R.ty == TY && R.tz == TZ));
                  REQUIRE((R.bx == BX && R.by == BY && R.bz == BZ));
                  REQUIRE((R.bdx == B.X && R.bdy == B.Y && R.bdz == B.Z));
                  REQUIRE((R.gdx == G.X && R.gdy == G.Y && R.gdz == G.Z));
                  REQUIRE(R.warp_lane == (((Tib / 32) << 8) | (Tib % 32)));
                }
    }
    int Rows = 37, Cols = 53;
    std::vector<int> In(Rows * Cols);
    for (int I = 0; I < Rows * Cols; ++I)
      In[I] = I * 3 + 1;
    Buffer<int> DIn(In), DOut(Rows * Cols);
    int *PI = DIn.get(), *PO = DOut.get();
    launch(M, "_Z9transposePKiPiii", {uint32_t(Cols + 15) / 16, uint32_t(Rows + 15) / 16}, {16, 8},
           {&PI, &PO, &Rows, &Cols});
    std::vector<int> Out = DOut.read();
    for (int R = 0; R < Rows; ++R)
      for (int C = 0; C < Cols; ++C) {
        INFO(Target << " transpose[" << C << "][" << R << "]");
        REQUIRE(Out[C * Rows + R] == In[R * Cols + C]);
      }
  }
}

namespace local_arrays {
// thread_work of local_arrays.cu, the device function the kernel runs per thread.
constexpr int Len = 48, Out = 6;

struct Cell {
  short hits;
  char tag;
  double weight;
};

unsigned lcg(unsigned &S) {
  S = S * 1103515245u + 12345u;
  return S >> 8;
}

long long fold(const int *Arr, int N, int Stride) {
  int Tmp[Len];
  for (int K = 0; K < N; ++K)
    Tmp[K] = Arr[(K * Stride) % N];
  unsigned long long H = 0;
  for (int K = 0; K < N; ++K)
    H = H * 31u + (unsigned long long)(long long)Tmp[N - 1 - K];
  return (long long)H;
}

long long rpn(const int *Prog, int N) {
  long long Stack[32];
  int Sp = 0;
  for (int K = 0; K < N; ++K) {
    const int T = Prog[K];
    if (T >= 0) {
      if (Sp < 32)
        Stack[Sp++] = T;
    } else if (T == -4) {
      if (Sp > 0 && Sp < 32) {
        Stack[Sp] = Stack[Sp - 1];
        ++Sp;
      }
    } else if (Sp >= 2) {
      long long B = Stack[--Sp], A = Stack[--Sp];
      long long R = T == -1 ? A + B : T == -2 ? A - B : T == -3 ? (A * B) % 1000003 : B;
      if (T == -5) {
        Stack[Sp++] = B;
        R = A;
      }
      Stack[Sp++] = R;
    }
  }
  unsigned long long Acc = 0;
  for (int K = 0; K < Sp; ++K)
    Acc = Acc * 7u + (unsigned long long)Stack[K];
  return (long long)Acc;
}

void threadWork(int I, unsigned Seed, long long *O) {
  unsigned S = Seed ^ unsigned(I) * 0x9e3779b9u;
  int Arr[Len];
  const int N = Len - (I % 17);
  for (int K = 0; K < N; ++K)
    Arr[K] = int(lcg(S) % 2000) - 1000;
  const long long Before = fold(Arr, N, 5);
  std::sort(Arr, Arr + N);
  O[0] = Arr[N / 2];
  O[1] = Before ^ fold(Arr, N, 7);
  int Prog[40];
  const int PLen = 20 + (I % 21);
  for (int K = 0; K < PLen; ++K) {
    unsigned R = lcg(S);
    Prog[K] = (R % 3 == 0) ? -int(1 + (R >> 4) % 5) : int((R >> 4) % 100);
  }
  O[2] = rpn(Prog, PLen);
  Cell Cells[16];
  for (int K = 0; K < 16; ++K)
    Cells[K] = {0, char('a' + K), 0.0};
  for (int K = 0; K < 40; ++K) {
    unsigned R = lcg(S);
    Cell &C = Cells[R % 16];
    C.hits++;
    C.weight += double(R % 64) * 0.25;
    C.tag = char(C.tag ^ (R >> 9));
  }
  unsigned long long H = 0;
  double W = 0.0;
  for (int K = 0; K < 16; ++K) {
    H = H * 131u + unsigned(Cells[K].hits * 256 + (unsigned char)Cells[K].tag);
    W += Cells[K].weight;
  }
  O[3] = (long long)H;
  O[4] = (long long)(W * 4.0);
  O[5] = Arr[unsigned(O[2]) % unsigned(N)] + Arr[0] - Arr[N - 1];
}

} // namespace local_arrays

TEST_CASE("local_arrays: local memory indexed at run time, by pointer in a call", "[programs]") {
  using namespace local_arrays;
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("local_arrays.sm90.ptx", Target);
    int N = 600;
    unsigned Seed = 0xC0FFEEu;
    Buffer<long long> D(size_t(N) * Out);
    long long *P = D.get();
    launch(M, "_Z12local_kerneljiPx", {uint32_t(N + 127) / 128}, {128}, {&Seed, &N, &P});
    std::vector<long long> Got = D.read();
    for (int I = 0; I < N; ++I) {
      long long Want[Out];
      threadWork(I, Seed, Want);
      for (int K = 0; K < Out; ++K) {
        INFO(Target << " thread " << I << " output " << K);
        REQUIRE(Got[I * Out + K] == Want[K]);
      }
    }
  }
}

namespace device_calls {
// The __host__ __device__ functions of device_calls.cu.
int fib(int K) { return K < 2 ? K : fib(K - 1) + fib(K - 2); }
unsigned gcd(unsigned A, unsigned B) { return B == 0 ? A : gcd(B, A % B); }
unsigned long long powMod(unsigned long long B, unsigned E, unsigned long long M) {
  if (E == 0)
    return 1 % M;
  unsigned long long H = powMod(B, E / 2, M);
  H = H * H % M;
  return (E & 1) ? H * (B % M) % M : H;
}
struct Stats {
  int lo, hi;
  long long sum;
  short count;
};
Stats statsOf(const int *Arr, int N, int Bias, signed char Scale, short Extra, long long Seed,
              unsigned Mask, int Shift) {
  Stats S{Arr[0], Arr[0], 0, 0};
  for (int K = 0; K < N; ++K) {
    int V = (Arr[K] * Scale + Bias) ^ int(Mask >> Shift);
    S.lo = std::min(S.lo, V);
    S.hi = std::max(S.hi, V);
    S.sum += V + Seed;
    S.count++;
  }
  S.count += Extra;
  return S;
}
int op(int K, int A, int B) {
  switch (K) {
  case 0:
    return A + B;
  case 1:
    return A - B;
  case 2:
    return int(unsigned(A) * unsigned(B));
  default:
    return (A ^ (B << 3)) + (A >> 2);
  }
}
int area(int I, int &Sides) {
  switch (I % 3) {
  case 0:
    Sides = 4;
    return (I % 7 + 1) * (I % 5 + 2);
  case 1:
    Sides = 3;
    return (2 * (I % 6) + 2) * (I % 9 + 1) / 2;
  default:
    Sides = 0;
    return 3 * (I % 4 + 1) * (I % 4 + 1);
  }
}
} // namespace device_calls

TEST_CASE("device_calls: recursion, function pointers, virtual functions", "[programs]") {
  using namespace device_calls;
  constexpr int Out = 8;
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("device_calls.sm90.ptx", Target);
    int N = 700;
    std::vector<int> In(N);
    for (int I = 0; I < N; ++I)
      In[I] = (I * 7331 + 17) % 4099 - 2000;
    Buffer<int> DIn(In), DOut(N * Out);
    Buffer<char> DShapes(N * 32);
    // The host's cudaMemcpyFromSymbol of a device function pointer.
    void *Chosen = *global<void *>(M, "d_selected");
    REQUIRE(Chosen);
    char *PSh = DShapes.get();
    int *PI = DIn.get(), *PO = DOut.get();
    launch(M, "_Z11make_shapesPci", {uint32_t(N + 127) / 128}, {128}, {&PSh, &N});
    launch(M, "_Z5callsPKiiPFiiiEPKcPi", {uint32_t(N + 127) / 128}, {128},
           {&PI, &N, &Chosen, &PSh, &PO});
    std::vector<int> Got = DOut.read();
    for (int I = 0; I < N; ++I) {
      const int V = In[I];
      int Local[12];
      const int Len = 4 + (I % 9);
      for (int K = 0; K < Len; ++K)
        Local[K] = (V * (K + 1)) % 97 - 40;
      Stats St = statsOf(Local, Len, I % 11, (signed char)(I % 5 - 2), short(I & 3),
                         (long long)V * 1048576LL, 0xF0F0F0F0u ^ unsigned(I), I % 17);
      int Sides, Area = area(I, Sides);
      int Want[Out] = {fib(3 + (V & 7) + (I & 3)),
                       ((V & 63) + (I & 15)) % 2 == 0,
                       op(I & 3, V, I),
                       op(3, V, I % 29),
                       St.lo * 7 + St.hi,
                       int(St.sum ^ (St.sum >> 32)) + St.count,
                       int(gcd(unsigned(V & 0xffff) * 6u, unsigned(I + 1) * 4u) +
                           unsigned(powMod(unsigned(V), unsigned(I), 1000003ull))),
                       Area * 10 + Sides + I * 1000};
      for (int K = 0; K < Out; ++K) {
        INFO(Target << " thread " << I << " output " << K);
        REQUIRE(Got[I * Out + K] == Want[K]);
      }
    }
  }
}

TEST_CASE("sync_fence: barrier votes, last-block reduction, fenced phases", "[programs]") {
  struct BlockVotes {
    int CountPos, AllSmall, AnySeven, CountInRange;
  };
  const int Block = 256;
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("sync_fence.sm90.ptx", Target);
    int N = 4999, Grid = (N + Block - 1) / Block;
    std::vector<int> H(N);
    for (int I = 0; I < N; ++I)
      H[I] = (I * 7919) % 1013 - 300;
    H[1234] = 7;
    Buffer<int> DIn(H), DPart(64), DLast(1), DBuf(8 * Block), DOut(8 * Block);
    Buffer<long long> DTotal(1);
    Buffer<BlockVotes> DVotes(Grid);
    int *PI = DIn.get(), *PP = DPart.get(), *PL = DLast.get(), *PB = DBuf.get(), *PO = DOut.get();
    long long *PT = DTotal.get();
    BlockVotes *PV = DVotes.get();
    launch(M, "_Z5votesPKiiP10BlockVotes", {uint32_t(Grid)}, {uint32_t(Block)}, {&PI, &N, &PV});
    std::vector<BlockVotes> Votes = DVotes.read();
    for (int B = 0; B < Grid; ++B) {
      BlockVotes W{0, 1, 0, 0};
      for (int T = 0; T < Block; ++T) {
        const int I = B * Block + T, V = I < N ? H[I] : 0;
        W.CountPos += V > 0;
        W.AllSmall &= V < 1000;
        W.AnySeven |= V == 7;
        W.CountInRange += I < N;
      }
      INFO(Target << " block " << B);
      CHECK(Votes[B].CountPos == W.CountPos);
      CHECK(Votes[B].AllSmall == W.AllSmall);
      CHECK(Votes[B].AnySeven == W.AnySeven);
      CHECK(Votes[B].CountInRange == W.CountInRange);
    }
    long long WantTotal = std::accumulate(H.begin(), H.end(), 0LL);
    unsigned *Retired = global<unsigned>(M, "d_retired");
    for (uint32_t G : {uint32_t(Grid), 13u}) {
      *PL = -1;
      *PT = 0;
      launch(M, "_Z15single_pass_sumPKiiPiPxS1_", {G}, {uint32_t(Block)}, {&PI, &N, &PP, &PT, &PL});
      INFO(Target << " grid " << G);
      CHECK(*PT == WantTotal);
      CHECK((*PL >= 0 && *PL < int(G)));
      CHECK(*Retired == 0); // the retirement counter wrapped back
    }
    launch(M, "_Z13fenced_phasesPiS_", {8}, {uint32_t(Block)}, {&PB, &PO});
    std::vector<int> Out = DOut.read();
    for (int G = 0; G < 8 * Block; ++G) {
      const int B = G / Block, T = G % Block;
      INFO(Target << " fenced_phases " << G);
      REQUIRE(Out[G] == (B * Block + (T + 1) % Block) * 3 + B * Block + (T + 5) % Block);
    }
  }
}

namespace templates_structs {
struct alignas(16) Float4 {
  float x, y, z, w;
};
struct Mixed {
  char c;
  short s;
  double d;
  Float4 f4;
  int *ptr;
  unsigned char tag[3];
  long long ll;
};
struct alignas(8) Small {
  unsigned char a;
  float b;
  short c;
};
struct Table {
  int v[128];
};
enum class Mode : unsigned char { Add = 1, Sub = 2, Xor = 3 };

template <typename T, int N> struct Poly { T coef[N]; };
template <typename T, int N> T horner(const Poly<T, N> &P, T X) {
  T Acc = P.coef[N - 1];
  for (int K = N - 2; K >= 0; --K)
    Acc = T(Acc * X + P.coef[K]);
  return Acc;
}
template <typename T> struct Clamp {
  T lo, hi;
  T operator()(T X) const { return X < lo ? lo : (X > hi ? hi : X); }
};

template <typename T, int N> void runPoly(host::LoadedModule &M, const char *Kernel, int Count) {
  std::vector<T> H(Count);
  for (int I = 0; I < Count; ++I)
    H[I] = T(T(I % 9) - T(4));
  Poly<T, N> P;
  for (int K = 0; K < N; ++K)
    P.coef[K] = T(T((K * 3) % 7) - T(3));
  Buffer<T> DIn(H), DOut(Count);
  T *PI = DIn.get(), *PO = DOut.get();
  launch(M, Kernel, {3}, {128}, {&PI, &PO, &Count, &P});
  std::vector<T> Got = DOut.read();
  for (int I = 0; I < Count; ++I) {
    T Want = horner(P, H[I]);
    INFO(M.target().Name << " " << Kernel << " element " << I);
    REQUIRE(std::memcmp(&Got[I], &Want, sizeof(T)) == 0);
  }
}

template <typename T, int Unroll>
void runMap(host::LoadedModule &M, const char *Kernel, int Count, Clamp<T> F) {
  std::vector<T> H(Count);
  for (int I = 0; I < Count; ++I)
    H[I] = T(T((I * 37) % 200) - T(100));
  Buffer<T> DIn(H), DOut(Count);
  T *PI = DIn.get(), *PO = DOut.get();
  const uint32_t Threads = uint32_t(Count + Unroll - 1) / Unroll;
  launch(M, Kernel, {(Threads + 255) / 256}, {256}, {&PI, &PO, &Count, &F});
  std::vector<T> Got = DOut.read();
  for (int I = 0; I < Count; ++I) {
    INFO(M.target().Name << " " << Kernel << " element " << I);
    REQUIRE(Got[I] == F(H[I]));
  }
}
} // namespace templates_structs

TEST_CASE("templates_structs: struct parameters and every template instance", "[programs]") {
  using namespace templates_structs;
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("templates_structs.sm90.ptx", Target);
    int HPtr[4] = {11, -22, 33, -44};
    Buffer<int> DPtr(std::vector<int>(HPtr, HPtr + 4));
    Buffer<long long> DOut(128);
    Mixed Mx{};
    Mx.c = -5;
    Mx.s = 1234;
    Mx.d = 3.25;
    Mx.f4 = {1.0f, -2.0f, 3.0f, 0.5f};
    Mx.ptr = DPtr.get();
    Mx.tag[0] = 0x12;
    Mx.tag[1] = 0x34;
    Mx.tag[2] = 0x56;
    Mx.ll = 0x0123456789abcdefLL;
    Small Sm{200, -7.5f, -300};
    Table Tab;
    for (int K = 0; K < 128; ++K)
      Tab.v[K] = K * K - 50 * K;
    char C0 = 'A';
    short S0 = -32000;
    double D0 = -1.625;
    Float4 V4{6.0f, 7.0f, -1.5f, 0.5f};
    long long *PO = DOut.get();
    for (Mode Md : {Mode::Add, Mode::Sub, Mode::Xor}) {
      bool Flag = Md != Mode::Sub;
      launch(M, "_Z13params_kernelc5Mixeds5Smalldb4Mode6float45TablePx", {2}, {96},
             {&C0, &Mx, &S0, &Sm, &D0, &Flag, &Md, &V4, &Tab, &PO});
      std::vector<long long> Got = DOut.read();
      for (int I = 0; I < 128; ++I) {
        long long R = C0;
        R += Mx.c * 3 + Mx.s * 5;
        R += (long long)(Mx.d * 4.0);
        R += (long long)(Mx.f4.x + 2.0f * Mx.f4.y + 4.0f * Mx.f4.z + 8.0f * Mx.f4.w);
        R += HPtr[I % 4];
        R += Mx.tag[0] + (Mx.tag[1] << 8) + (Mx.tag[2] << 16);
        R ^= Mx.ll;
        R += S0 + Sm.a + (long long)(Sm.b * 2.0f) + Sm.c;
        R += (long long)(D0 * 8.0);
        R += Flag ? 1000 : -1000;
        int T = Tab.v[I] + Tab.v[127 - I];
        R = Md == Mode::Add ? R + T : Md == Mode::Sub ? R - T : R ^ T;
        R += (long long)(V4.x * V4.y) - (long long)(V4.z + V4.w);
        INFO(Target << " mode " << int(Md) << " out[" << I << "]");
        REQUIRE(Got[I] == R);
      }
    }
    runPoly<int, 5>(M, "_Z11poly_kernelIiLi5EEvPKT_PS0_i4PolyIS0_XT0_EE", 1000);
    runPoly<unsigned long long, 7>(M, "_Z11poly_kernelIyLi7EEvPKT_PS0_i4PolyIS0_XT0_EE", 777);
    runPoly<float, 4>(M, "_Z11poly_kernelIfLi4EEvPKT_PS0_i4PolyIS0_XT0_EE", 500);
    runPoly<double, 6>(M, "_Z11poly_kernelIdLi6EEvPKT_PS0_i4PolyIS0_XT0_EE", 600);
    runPoly<short, 3>(M, "_Z11poly_kernelIsLi3EEvPKT_PS0_i4PolyIS0_XT0_EE", 300);
    runMap<int, 4>(M, "_Z10map_kernelIi5ClampIiELi4EEvPKT_PS2_iT0_", 1001, {-50, 60});
    runMap<double, 1>(M, "_Z10map_kernelId5ClampIdELi1EEvPKT_PS2_iT0_", 333, {-10.5, 10.25});
    runMap<short, 8>(M, "_Z10map_kernelIs5ClampIsELi8EEvPKT_PS2_iT0_", 517, {-3, 3});
  }
}

TEST_CASE("streams_events: the kernels in stream order, dynamic shared memory", "[programs]") {
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("streams_events.sm90.ptx", Target);
    const int Chunk = 1000, Streams = 3, N = Chunk * Streams, Block = 128;
    std::vector<int> In(N);
    for (int I = 0; I < N; ++I)
      In[I] = (I * 37) % 1000 - 500;
    Buffer<int> DIn(In), DMid(N);
    for (int S = 0; S < Streams; ++S) {
      int *PI = DIn.get() + S * Chunk, *PM = DMid.get() + S * Chunk;
      int Count = Chunk, Scale = S + 2, Off = S * Chunk;
      launch(M, "_Z13reverse_scalePKiPiii", {uint32_t(Chunk + Block - 1) / Block},
             {uint32_t(Block)}, {&PI, &PM, &Count, &Scale}, Block * sizeof(int));
      launch(M, "_Z9add_indexPiii", {3}, {64}, {&PM, &Count, &Off});
    }
    std::vector<int> Mid = DMid.read();
    for (int I = 0; I < N; ++I) {
      const int S = I / Chunk, Local = I % Chunk, Base = Local / Block * Block;
      const int Count = std::min(Block, Chunk - Base);
      const int Src = S * Chunk + Base + (Count - 1 - (Local - Base));
      INFO(Target << " element " << I);
      REQUIRE(Mid[I] == In[Src] * (S + 2) + Local + S * Chunk);
    }
    const int MM = 777;
    Buffer<long long> DM(std::vector<long long>(MM, -1));
    long long *PM = DM.get();
    int Count = MM;
    launch(M, "_Z12fill_managedPxi", {(MM + 255) / 256}, {256}, {&PM, &Count});
    std::vector<long long> Managed = DM.read();
    for (int I = 0; I < MM; ++I) {
      INFO(Target << " managed " << I);
      REQUIRE(Managed[I] == (long long)I * I - 7);
    }
  }
}

TEST_CASE("const_globals: __constant__ and __device__ variables written before launch",
          "[programs]") {
  constexpr int Taps = 16, N = 3000;
  struct Params {
    int n;
    float scale;
    int offsets[8];
    double bias;
  };
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("const_globals.sm90.ptx", Target);
    // Statically initialised symbols as loaded.
    float *CInit = global<float>(M, "c_init");
    CHECK((CInit[0] == 1.5f && CInit[1] == -2.25f && CInit[2] == 3.0f && CInit[3] == 1e-3f));
    CHECK(*global<double>(M, "d_init_scalar") == 6.5);
    uint16_t *CSmall = global<uint16_t>(M, "c_small");
    CHECK(CSmall[3] == 65535);
    int *Primes = global<int>(M, "d_primes");
    CHECK((Primes[0] == 2 && Primes[7] == 19));

    float TapsV[Taps];
    for (int K = 0; K < Taps; ++K)
      TapsV[K] = float(K % 5 - 2) * 0.125f;
    int Lut[256];
    for (int K = 0; K < 256; ++K)
      Lut[K] = (K * 73) % 251 - 100;
    Params P{};
    P.n = N;
    P.scale = 2.0f;
    for (int K = 0; K < 8; ++K)
      P.offsets[K] = K * K - 10;
    P.bias = -0.5;
    // cudaMemcpyToSymbol: whole symbols, and at offsets.
    std::memcpy(global<float>(M, "c_taps"), TapsV, sizeof(TapsV));
    std::memcpy(global<int>(M, "c_lut"), Lut, 128 * sizeof(int));
    std::memcpy(global<int>(M, "c_lut") + 128, Lut + 128, 128 * sizeof(int));
    std::memcpy(global<Params>(M, "c_params"), &P, sizeof(P));
    *global<unsigned>(M, "d_counter") = 0;
    *global<unsigned long long>(M, "d_sum") = 0;
    Primes[7] = 23;

    std::vector<float> In(N);
    std::vector<int> Keys(N);
    for (int I = 0; I < N; ++I) {
      In[I] = float((I * 13) % 201 - 100);
      Keys[I] = int((I * 2654435761u) >> 7);
    }
    Buffer<float> DIn(In), DOut(N);
    Buffer<int> DKeys(Keys);
    float *PI = DIn.get(), *PO = DOut.get();
    int *PK = DKeys.get();
    launch(M, "_Z7fir_lutPKfPKi", {(N + 255) / 256}, {256}, {&PI, &PK});
    launch(M, "_Z7consumePf", {(N + 255) / 256}, {256}, {&PO});

    std::vector<float> Out = DOut.read();
    const float *Stage = global<float>(M, "d_stage");
    unsigned WantCounter = 0;
    unsigned long long WantSum = 0;
    for (int I = 0; I < N; ++I) {
      // Every product and partial sum is a small multiple of 1/8: exact in float in any order.
      float Acc = 0.0f;
      for (int K = 0; K < Taps; ++K) {
        const int J = I + K - Taps / 2;
        Acc += TapsV[K] * (J >= 0 && J < N ? In[J] : 0.0f);
      }
      float Acc2 = 0.0f;
      for (int K = 0; K < 4; ++K)
        Acc2 += TapsV[4 + K] * In[(I + K) % N];
      Acc += Acc2;
      const int Key = Keys[I];
      const int L = Lut[Key & 255] + P.offsets[Key & 7] + Primes[Key % 8];
      const float St = Acc * P.scale + float(L);
      WantCounter += L & 1;
      const float V = St + float(P.bias);
      WantSum += (unsigned long long)(long long)V + CSmall[I % 5];
      INFO(Target << " element " << I);
      REQUIRE(Stage[I] == St);
      REQUIRE(Out[I] == V);
    }
    CHECK(*global<unsigned>(M, "d_counter") == WantCounter);
    CHECK(*global<unsigned long long>(M, "d_sum") == WantSum);
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
