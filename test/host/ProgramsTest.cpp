// Kernels of the project's CUDA test programs (test/cuda/*.cu, nvcc's sm_90 PTX) run on the host
// backend and checked against CPU references written here from the .cu sources, on gfx90a
// (wave64: two warps per wave) and gfx1100 (wave32).
#include "HostTestSupport.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
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

TEST_CASE("vector_add: grid-stride float and 64-bit-count integer loops", "[programs]") {
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("vector_add.sm90.ptx", Target);
    const char *FK = "_Z5saxpyifPKfS0_Pf", *IK = "_Z5iaxpyxiPKiS0_Pi";
    CHECK_FALSE(M.usesFibers(FK));
    int N = 100003;
    float A = 2.5f;
    std::vector<float> X(N), Y(N);
    std::vector<int> IX = randomInts(N, -100000, 100000, 1), IY = randomInts(N, -5, 5, 2);
    for (int I = 0; I < N; ++I) {
      X[I] = float(I % 1000) * 0.25f - 100.0f;
      Y[I] = float((I * 7) % 513) * 0.5f;
    }
    Buffer<float> DX(X), DY(Y), DOut(N);
    Buffer<int> DIX(IX), DIY(IY), DIOut(N);
    float *PX = DX.get(), *PY = DY.get(), *PO = DOut.get();
    launch(M, FK, {37}, {256}, {&N, &A, &PX, &PY, &PO});
    long long LN = N;
    int IA = -7;
    int *QX = DIX.get(), *QY = DIY.get(), *QO = DIOut.get();
    launch(M, IK, {13}, {128}, {&LN, &IA, &QX, &QY, &QO});
    std::vector<float> Out = DOut.read();
    std::vector<int> IOut = DIOut.read();
    for (int I = 0; I < N; ++I) {
      INFO(Target << " element " << I);
      REQUIRE(Out[I] == A * X[I] + Y[I]);
      REQUIRE(IOut[I] == int(unsigned(IA) * unsigned(IX[I]) - unsigned(IY[I])));
    }
  }
}

TEST_CASE("reduce_shared: tree reductions in shared memory with __syncthreads", "[programs]") {
  struct Partial {
    long long Sum;
    float Lo, Hi;
  };
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("reduce_shared.sm90.ptx", Target);
    const char *K = "_Z12reduce_pass1PKiPKfiP7Partial";
    CHECK(M.execution(K) == host::Execution::Waves);
    int N = 5000, G = 4;
    std::vector<int> In = randomInts(N, -1000000, 1000000, 3);
    std::vector<float> F(N);
    for (int I = 0; I < N; ++I)
      F[I] = float(In[I]) * 0.001f;
    Buffer<int> DIn(In);
    Buffer<float> DF(F);
    Buffer<Partial> DP(G);
    int *PI = DIn.get();
    float *PF = DF.get();
    Partial *PP = DP.get();
    launch(M, K, {uint32_t(G)}, {256}, {&PI, &PF, &N, &PP});
    std::vector<Partial> Got = DP.read();
    for (int B = 0; B < G; ++B) {
      Partial Want{0, FLT_MAX, -FLT_MAX};
      for (int I = 0; I < N; ++I)
        if (I / 512 % G == B) {
          Want.Sum += In[I];
          Want.Lo = std::min(Want.Lo, F[I]);
          Want.Hi = std::max(Want.Hi, F[I]);
        }
      INFO(Target << " block " << B);
      CHECK(Got[B].Sum == Want.Sum);
      CHECK(Got[B].Lo == Want.Lo);
      CHECK(Got[B].Hi == Want.Hi);
    }
  }
}

TEST_CASE("warp_shuffle: every shfl mode, widths, divergent halves, 64-bit values", "[programs]") {
  enum { XorSum, Gather, Scan8, W16, Down16, Xor4, Diverge, Count };
  struct Outs {
    int *O[Count];
    int *WarpSum;
    double *Dbl;
    long long *LL;
  };
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("warp_shuffle.sm90.ptx", Target);
    const int Block = 256, N = Block * 4 + 100, Grid = (N + Block - 1) / Block;
    const int Threads = Grid * Block;
    std::vector<int> In = randomInts(Threads, -1000, 1000, 4);
    for (int I = N; I < Threads; ++I)
      In[I] = 0;
    Buffer<int> DIn(In);
    std::vector<std::unique_ptr<Buffer<int>>> DO;
    Outs O;
    for (int K = 0; K < Count; ++K) {
      DO.push_back(std::make_unique<Buffer<int>>(Threads));
      O.O[K] = DO.back()->get();
    }
    Buffer<int> DW(Threads / 32);
    Buffer<double> DD(Threads);
    Buffer<long long> DL(Threads);
    O.WarpSum = DW.get();
    O.Dbl = DD.get();
    O.LL = DL.get();
    int *PIn = DIn.get();
    int NN = N;
    launch(M, "_Z8shufflesPKii4Outs", {uint32_t(Grid)}, {uint32_t(Block)}, {&PIn, &NN, &O});
    std::vector<std::vector<int>> Got;
    for (auto &B : DO)
      Got.push_back(B->read());
    std::vector<int> WS = DW.read();
    std::vector<double> Dbl = DD.read();
    std::vector<long long> LL = DL.read();
    auto V = [&](int I) { return I < N ? In[I] : 0; };
    for (int I = 0; I < N; ++I) {
      int Lane = I & 31, Base = I - Lane;
      auto At = [&](int L) { return V(Base + L); };
      int Sum = 0;
      for (int L = 0; L < 32; ++L)
        Sum += At(L);
      int Scan = 0;
      for (int L = Lane & ~7; L <= Lane; ++L)
        Scan += At(L);
      int Src16 = (Lane & ~15) | ((Lane + 3) & 15);
      int Down = (Lane & 15) + 5 < 16 ? Lane + 5 : Lane;
      int Div = Lane < 16 ? At(Lane ^ 1) : At((Lane & 15) + 2 < 16 ? Lane + 2 : Lane);
      int Src7 = Lane ^ 7;
      double DWant = double(At(Src7)) * 1.0000001 + 0.5;
      int Up = Lane >= 3 ? Lane - 3 : Lane;
      long long LWant =
          (long long)((unsigned long long)(long long)At(Up) << 33) ^ (long long)(Base + Up);
      INFO(Target << " element " << I);
      REQUIRE(Got[XorSum][I] == Sum);
      REQUIRE(Got[Gather][I] == At((Lane * 5 + 3) & 31));
      REQUIRE(Got[Scan8][I] == Scan);
      REQUIRE(Got[W16][I] == At(Src16));
      REQUIRE(Got[Down16][I] == At(Down));
      REQUIRE(Got[Xor4][I] == At(Lane ^ 2) * 3 + 1);
      REQUIRE(Got[Diverge][I] == Div);
      REQUIRE(Dbl[I] == DWant);
      REQUIRE(LL[I] == LWant);
      if (Lane == 0)
        REQUIRE(WS[I >> 5] == Sum);
    }
  }
}

TEST_CASE("matmul_tiled: 16x16 shared-memory tiles, float and double", "[programs]") {
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("matmul_tiled.sm90.ptx", Target);
    const int R = 37, C = 45, K = 29; // not multiples of the tile
    auto Run = [&](auto Zero, const char *Kernel) {
      using T = decltype(Zero);
      std::vector<T> A(R * K), B(K * C), C0(R * C);
      for (int I = 0; I < R * K; ++I)
        A[I] = T((I * 7) % 13) - T(6);
      for (int I = 0; I < K * C; ++I)
        B[I] = T((I * 5) % 11) * T(0.5);
      for (int I = 0; I < R * C; ++I)
        C0[I] = T(I % 3);
      Buffer<T> DA(A), DB(B), DC(C0);
      T Alpha = T(1.5), Beta = T(-2);
      int MM = R, NN = C, KK = K;
      T *PA = DA.get(), *PB = DB.get(), *PC = DC.get();
      launch(M, Kernel, {(C + 15) / 16, (R + 15) / 16}, {16, 16},
             {&MM, &NN, &KK, &Alpha, &PA, &PB, &Beta, &PC});
      std::vector<T> Got = DC.read();
      for (int I = 0; I < R; ++I)
        for (int J = 0; J < C; ++J) {
          T Acc = 0;
          for (int L = 0; L < K; ++L)
            Acc += A[I * K + L] * B[L * C + J];
          INFO(Target << " " << Kernel << " C[" << I << "][" << J << "]");
          REQUIRE(Got[I * C + J] == Approx(Alpha * Acc + Beta * C0[I * C + J]));
        }
    };
    Run(0.0f, "_Z6matmulIfEviiiT_PKS0_S2_S0_PS0_");
    Run(0.0, "_Z6matmulIdEviiiT_PKS0_S2_S0_PS0_");
  }
}

TEST_CASE("histogram: shared-memory atomics, dynamic shared memory per warp", "[programs]") {
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("histogram.sm90.ptx", Target);
    int N = 10007;
    std::vector<uint8_t> Data(N);
    std::vector<int> R = randomInts(N, 0, 255, 5);
    for (int I = 0; I < N; ++I)
      Data[I] = uint8_t(R[I]);
    Buffer<uint8_t> DD(Data);
    Buffer<unsigned> DB(256);
    uint8_t *PD = DD.get();
    unsigned *PB = DB.get();
    launch(M, "_Z7hist256PKhiPj", {16}, {256}, {&PD, &N, &PB});
    std::vector<unsigned> Bins = DB.read(), Want(256);
    for (uint8_t X : Data)
      ++Want[X];
    CHECK(Bins == Want);

    int Count = 3001;
    const uint32_t Block = 128;
    std::vector<int> S = randomInts(Count, 0, 65535, 6);
    std::vector<uint16_t> Shorts(S.begin(), S.end());
    Buffer<uint16_t> DS(Shorts);
    Buffer<unsigned long long> DB64(64);
    uint16_t *PS = DS.get();
    unsigned long long *P64 = DB64.get();
    launch(M, "_Z15hist64_per_warpPKtiPy", {(Count + Block - 1) / Block}, {Block},
           {&PS, &Count, &P64}, (Block / 32) * 64 * sizeof(unsigned));
    std::vector<unsigned long long> Got = DB64.read(), Want64(64);
    for (uint16_t X : Shorts)
      Want64[X & 63] += X >> 6;
    CHECK(Got == Want64);
  }
}

TEST_CASE("prefix_scan: Blelloch block scan and ping-pong max scan", "[programs]") {
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("prefix_scan.sm90.ptx", Target);
    int N = 1500; // three blocks of 512, the last partial
    std::vector<int> In = randomInts(N, -50, 50, 7);
    Buffer<int> DIn(In), DOut(N), DSums(3);
    int *PI = DIn.get(), *PO = DOut.get(), *PS = DSums.get();
    launch(M, "_Z10block_scanPKiPiiS1_", {3}, {256}, {&PI, &PO, &N, &PS});
    std::vector<int> Out = DOut.read(), Sums = DSums.read();
    for (int B = 0; B < 3; ++B) {
      int Acc = 0;
      for (int I = B * 512; I < std::min(N, B * 512 + 512); ++I) {
        Acc += In[I];
        INFO(Target << " element " << I);
        REQUIRE(Out[I] == Acc);
      }
      CHECK(Sums[B] == Acc);
    }
    int FN = 700;
    std::vector<int> R = randomInts(FN, -10000, 10000, 8);
    std::vector<float> F(R.begin(), R.end());
    Buffer<float> DF(F), DFO(FN);
    float *PF = DF.get(), *PFO = DFO.get();
    launch(M, "_Z8max_scanPKfPfi", {3}, {256}, {&PF, &PFO, &FN});
    std::vector<float> FO = DFO.read();
    for (int I = 0; I < FN; ++I) {
      float Want = -1e30f;
      for (int J = I / 256 * 256; J <= I; ++J)
        Want = std::max(Want, F[J]);
      INFO(Target << " element " << I);
      REQUIRE(FO[I] == Want);
    }
  }
}

TEST_CASE("bitonic_sort: dynamic shared memory, barriers in nested loops", "[programs]") {
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("bitonic_sort.sm90.ptx", Target);
    const int Threads = 128, Seg = 2 * Threads, Blocks = 4, N = Blocks * Seg - 37;
    std::vector<int> Keys = randomInts(N, -100000, 100000, 9), Vals(N);
    std::iota(Vals.begin(), Vals.end(), 0);
    Buffer<int> DK(Keys), DV(Vals);
    int *PK = DK.get(), *PV = DV.get();
    int NN = N;
    launch(M, "_Z7bitonicPiS_i", {Blocks}, {Threads}, {&PK, &PV, &NN}, 2 * Seg * sizeof(int));
    std::vector<int> K = DK.read(), V = DV.read();
    for (int B = 0; B < Blocks; ++B) {
      std::vector<int> Want(Keys.begin() + B * Seg, Keys.begin() + std::min(N, B * Seg + Seg));
      if (B & 1)
        std::sort(Want.begin(), Want.end(), std::greater<int>());
      else
        std::sort(Want.begin(), Want.end());
      // The odd (descending) blocks put the padding first; the last block is partial.
      int Pad = (B & 1) ? Seg - int(Want.size()) : 0;
      for (size_t I = 0; I < Want.size() && B * Seg + Pad + I < size_t(N); ++I) {
        size_t At = B * Seg + I;
        INFO(Target << " block " << B << " element " << I);
        if (!(B & 1)) {
          REQUIRE(K[At] == Want[I]);
          REQUIRE(Keys[V[At]] == K[At]);
        }
      }
    }
  }
}

TEST_CASE("device_printf: output and formats come back from the launch", "[programs]") {
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("device_printf.sm90.ptx", Target);
    Buffer<int> DRan(1), DErr(1);
    int *PR = DRan.get(), *PE = DErr.get();
    int Talk = 3;
    amdgpu::DeviceOutput Out = launch(M, "_Z3sayPiS_i", {4}, {96}, {&PR, &PE, &Talk});
    CHECK(DRan.read()[0] == 4 * 96);
    CHECK(DErr.read()[0] == 0);
    CHECK(Out.Dropped == 0);
    CHECK(Out.Text.find("PRINTF: ints -42 7 4000000000 beef CAFE 10\n") != std::string::npos);
    CHECK(Out.Text.find("PRINTF: floats 1.500000 3.142 1.234568e+04 0.0001 1e+20\n") !=
          std::string::npos);
    CHECK(Out.Text.find("PRINTF: widths [   3.142] [42   ] [00042] [+7] [     right] [left  ]") !=
          std::string::npos);
    CHECK(Out.Text.find("PRINTF: block 2 of 4 says") != std::string::npos);
    size_t Lanes = 0;
    for (size_t P = 0; (P = Out.Text.find("PRINTF: lane ", P)) != std::string::npos; ++P)
      ++Lanes;
    CHECK(Lanes == 16);
  }
}
