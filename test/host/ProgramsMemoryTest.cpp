// The memory-pattern programs (transpose, grid_stride, dynamic_shared; nvcc's sm_90 PTX) on the
// host backend, on gfx90a (wave64) and gfx1100 (wave32), with other sizes and launch shapes than
// the programs use. grid_stride and dynamic_shared are checked by the programs' own host
// references (test/cuda/<program>_ref.h); every result is compared exactly.
#include "HostTestSupport.h"

#include "dynamic_shared_ref.h"
#include "grid_stride_ref.h"

#include <cstring>
#include <tuple>
#include <utility>

using namespace host_test;

namespace {

template <typename T>
void checkTranspose(host::LoadedModule &M, const char *Kernel, bool Tiled, int Rows, int Cols) {
  const size_t N = size_t(Rows) * Cols;
  std::vector<T> In(N);
  for (size_t I = 0; I < N; ++I)
    In[I] = (T(I) - T(N / 2)) * T(0.5);
  std::vector<T> NaNs(N);
  std::memset(NaNs.data(), 0xff, N * sizeof(T));
  Buffer<T> DIn(In), DOut(NaNs);
  T *PI = DIn.get(), *PO = DOut.get();
  if (Tiled)
    launch(M, Kernel, {uint32_t(Cols + 31) / 32, uint32_t(Rows + 31) / 32}, {32, 8},
           {&PI, &PO, &Rows, &Cols});
  else
    launch(M, Kernel, {uint32_t(Cols + 7) / 8, uint32_t(Rows + 15) / 16}, {8, 16},
           {&PI, &PO, &Rows, &Cols});
  std::vector<T> Got = DOut.read();
  for (int C = 0; C < Cols; ++C)
    for (int R = 0; R < Rows; ++R) {
      INFO(M.target().Name << " " << Kernel << " " << Rows << "x" << Cols << " out[" << C << "]["
                           << R << "]");
      REQUIRE(std::memcmp(&Got[size_t(C) * Rows + R], &In[size_t(R) * Cols + C], sizeof(T)) == 0);
    }
}

} // namespace

TEST_CASE("transpose: naive and padded shared-memory tiles, partial edge tiles", "[programs]") {
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("transpose.sm90.ptx", Target);
    const char *NaiveF = "_Z15transpose_naiveIfEvPKT_PS0_ii",
               *TiledF = "_Z15transpose_tiledIfEvPKT_PS0_ii",
               *NaiveD = "_Z15transpose_naiveIdEvPKT_PS0_ii",
               *TiledD = "_Z15transpose_tiledIdEvPKT_PS0_ii";
    CHECK_FALSE(M.usesFibers(NaiveF));
    CHECK(M.execution(TiledF) == host::Execution::Waves);
    for (auto [Rows, Cols] : {std::pair{45, 70}, std::pair{97, 33}, std::pair{1, 31}}) {
      checkTranspose<float>(M, NaiveF, false, Rows, Cols);
      checkTranspose<float>(M, TiledF, true, Rows, Cols);
      checkTranspose<double>(M, NaiveD, false, Cols, Rows);
      checkTranspose<double>(M, TiledD, true, Cols, Rows);
    }
  }
}

TEST_CASE("grid_stride: a 64-bit grid-stride loop, many iterations per thread", "[programs]") {
  using namespace grid_stride;
  // 3 warps a block: one and a half waves on wave64.
  const long long N = 300007;
  const int Blocks = 13, Block = 96;
  const long long Threads = Blocks * Block;
  std::vector<float> X(N), Y(N);
  std::vector<int> K(N);
  for (long long I = 0; I < N; ++I) {
    X[I] = x_at(I);
    Y[I] = y_at(I);
    K[I] = k_at(I);
  }
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("grid_stride.sm90.ptx", Target);
    const char *Kernel = "_Z9saxpy_mixxfPKfPfPKiPiS4_";
    CHECK_FALSE(M.usesFibers(Kernel));
    Buffer<float> DX(X), DY(Y);
    Buffer<int> DK(K), DOut(std::vector<int>(N, -1)), DIters(std::vector<int>(Threads, -1));
    float *PX = DX.get(), *PY = DY.get();
    int *PK = DK.get(), *PO = DOut.get(), *PI = DIters.get();
    long long NN = N;
    float A = 3.125f;
    launch(M, Kernel, {Blocks}, {Block}, {&NN, &A, &PX, &PY, &PK, &PO, &PI});
    INFO(Target);
    CHECK(check(N, A, DY.read().data(), DOut.read().data(), DIters.read().data(), Threads) == 0);
  }
}

TEST_CASE("dynamic_shared: carved arrays, static beside dynamic, the whole LDS", "[programs]") {
  using namespace dynamic_shared;
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("dynamic_shared.sm90.ptx", Target);
    INFO(Target);
    const int Blocks = 3;
    for (auto [NI, NF, Block] : {std::tuple{1, 1, 32}, std::tuple{100, 37, 64},
                                 std::tuple{3000, 5000, 256}, std::tuple{7, 9000, 96}}) {
      INFO("carve " << NI << "+" << NF);
      std::vector<int> In(size_t(NI) * Blocks);
      std::vector<float> FIn(size_t(NF) * Blocks);
      for (int I = 0; I < NI * Blocks; ++I)
        In[I] = in_at(I);
      for (int I = 0; I < NF * Blocks; ++I)
        FIn[I] = fin_at(I);
      Buffer<int> DIn(In), DIOut(In.size());
      Buffer<float> DFIn(FIn), DFOut(FIn.size());
      int *PI = DIn.get(), *PIO = DIOut.get();
      float *PF = DFIn.get(), *PFO = DFOut.get();
      launch(M, "_Z5carvePKiPKfiiPiPf", {Blocks}, {uint32_t(Block)},
             {&PI, &PF, &NI, &NF, &PIO, &PFO}, uint32_t(carve_bytes(NI, NF)));
      CHECK(check_carve(NI, NF, Blocks, DIOut.read().data(), DFOut.read().data()) == 0);
    }

    const char *SD = "_Z18static_and_dynamiciPi";
    REQUIRE(M.metadata(SD));
    CHECK(M.metadata(SD)->GroupSegmentFixedSize >= kFixed * sizeof(int));
    for (int Words : {1, 1000, 5000}) {
      Buffer<int> DOut(size_t(Words) * Blocks);
      int *PO = DOut.get();
      launch(M, SD, {Blocks}, {128}, {&Words, &PO}, uint32_t(Words * sizeof(int)));
      CHECK(check_static_dynamic(Words, Blocks, DOut.read().data()) == 0);
    }

    // Every byte of LDS the kernel's static memory leaves, and one more.
    const char *Big = "_Z3bigiPj";
    REQUIRE(M.metadata(Big));
    const uint32_t Avail = M.target().LdsBytesPerWorkgroup - M.metadata(Big)->GroupSegmentFixedSize;
    CHECK(Avail > 48 * 1024);
    int Words = int(Avail / 4);
    const int Block = 192;
    Buffer<unsigned> DOut(size_t(Blocks) * Block);
    unsigned *PO = DOut.get();
    launch(M, Big, {Blocks}, {Block}, {&Words, &PO}, Avail);
    CHECK(check_big(Words, Blocks, Block, DOut.read().data()) == 0);
    CHECK_THAT(launchError(M, Big, {1}, {Block}, {&Words, &PO}, Avail + 1),
               Catch::Contains("shared memory"));
  }
}
