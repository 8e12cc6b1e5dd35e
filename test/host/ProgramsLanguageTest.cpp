// The kernels of the project's CUDA test programs (test/cuda/*.cu, nvcc's sm_90 PTX) that use
// the language and the module (ids in 3D grids, local arrays, device calls, templates and
// structs, streams, fenced phases, module variables) on the host backend, each against a CPU
// reference written here from its .cu source (the programs' own checks, ported), on gfx90a
// (wave64) and gfx1100 (wave32). Integer results and exactly defined float results are compared
// bit for bit. Threads working together: ProgramsSyncTest.cpp.
#include "HostTestSupport.h"

#include <algorithm>
#include <cstring>
#include <numeric>

using namespace host_test;

namespace {

/// A global variable of the module, as a typed pointer.
template <typename T> T *global(host::LoadedModule &M, const char *Name) {
  auto G = M.global(Name);
  if (!G)
    FAIL(llvm::toString(G.takeError()));
  return static_cast<T *>(*G);
}

} // namespace

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
