// The numeric kernels of the project's CUDA test programs (int_bitops, math_funcs, half_bf16;
// nvcc's sm_90 PTX) on the host backend, on gfx90a (wave64) and gfx1100 (wave32). The inputs, the
// CPU references and the checks are the programs' own host code (test/cuda/<program>_ref.h,
// shared with the programs' main()): integer and bit results, correctly rounded operations and
// conversions bit for bit; the math library within the programs' tolerances (math_funcs_ref.h).
#include "HostTestSupport.h"

#include "half_bf16_ref.h"
#include "int_bitops_ref.h"
#include "math_funcs_ref.h"

#include <memory>
#include <vector>

using namespace host_test;

// NOLINTBEGIN(readability-identifier-naming)
TEST_CASE("int_bitops: integer and bit intrinsics, conversions in every rounding mode",
          "[programs]") {
  using namespace int_bitops;
  std::vector<In> Inputs(1000);
  make_inputs(Inputs.data(), int(Inputs.size()));
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("int_bitops.sm90.ptx", Target);
    int N = int(Inputs.size());
    Buffer<In> DIn(Inputs);
    Buffer<u64> DOut(size_t(N) * O_COUNT);
    In *PI = DIn.get();
    u64 *PO = DOut.get();
    launch(M, "_Z6bitopsPK2IniPy", {uint32_t(N + 255) / 256}, {256}, {&PI, &N, &PO});
    INFO(Target);
    CHECK(check(Inputs.data(), N, DOut.read().data()) == 0);
  }
}

TEST_CASE("math_funcs: the CUDA math library in single and double precision", "[programs]") {
  using namespace math_funcs;
  const int n = 1500;
  std::vector<float> hx(n), hy(n);
  std::vector<double> hxd(n), hyd(n);
  make_inputs(n, hx.data(), hy.data(), hxd.data(), hyd.data());
  const float Specials[4] = {0.0f, 1.0f, INFINITY, NAN};
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("math_funcs.sm90.ptx", Target);
    Buffer<float> DX(hx), DY(hy), DOut(size_t(n) * F_COUNT),
        DS(std::vector<float>(Specials, Specials + 4));
    Buffer<double> DXD(hxd), DYD(hyd), DOutD(size_t(n) * D_COUNT);
    Buffer<unsigned> DFlags(1);
    float *PX = DX.get(), *PY = DY.get(), *PO = DOut.get(), *PS = DS.get();
    double *PXD = DXD.get(), *PYD = DYD.get(), *POD = DOutD.get();
    unsigned *PF = DFlags.get();
    int N = n;
    launch(M, "_Z10float_mathPKfS0_iPf", {uint32_t(n + 127) / 128}, {128}, {&PX, &PY, &N, &PO});
    launch(M, "_Z11double_mathPKdS0_iPd", {uint32_t(n + 127) / 128}, {128}, {&PXD, &PYD, &N, &POD});
    launch(M, "_Z8specialsPKfPj", {1}, {1}, {&PS, &PF});
    INFO(Target);
    CHECK(check(n, hx.data(), hy.data(), hxd.data(), hyd.data(), DOut.read().data(),
                DOutD.read().data(), DFlags.read()[0]) == 0);
  }
}

TEST_CASE("half_bf16: half and bfloat16 arithmetic, conversions and atomics", "[programs]") {
  using namespace half_bf16;
  // The reference's own sanity check (main()).
  REQUIRE(H(1.0) == 0x3c00);
  REQUIRE(H(65520.0) == 0x7c00);
  REQUIRE(B(-3.0) == 0xc040);
  REQUIRE(hv(0x3555) == 1365.0 / 4096.0);
  const int N = 600, NConv = 300, Block = 128, Grid = (N + Block - 1) / Block;
  std::vector<unsigned short> HIn[6];
  unsigned short *HP[6];
  for (int K = 0; K < 6; ++K) {
    HIn[K].resize(N);
    HP[K] = HIn[K].data();
  }
  std::vector<float> Fin(NConv);
  make_inputs(N, HP, NConv, Fin.data());
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("half_bf16.sm90.ptx", Target);
    std::vector<std::unique_ptr<Buffer<unsigned short>>> D;
    unsigned short *P[6];
    for (int K = 0; K < 6; ++K) {
      D.push_back(std::make_unique<Buffer<unsigned short>>(HIn[K]));
      P[K] = D.back()->get();
    }
    Buffer<unsigned> DOut(size_t(N) * K_COUNT), DConv(NConv * 8), DH2(Grid), DB2(Grid);
    Buffer<unsigned short> DH(Grid);
    Buffer<float> DFin(Fin);
    unsigned *PO = DOut.get(), *PC = DConv.get(), *PH2 = DH2.get(), *PB2 = DB2.get();
    unsigned short *PH = DH.get();
    float *PFin = DFin.get();
    int NN = N, NC = NConv;
    launch(M, "_Z5arithPKtS0_S0_S0_S0_S0_iPj", {uint32_t(Grid)}, {uint32_t(Block)},
           {&P[0], &P[1], &P[2], &P[3], &P[4], &P[5], &NN, &PO});
    launch(M, "_Z7convertPKfiPj", {uint32_t(NConv + 127) / 128}, {128}, {&PFin, &NC, &PC});
    launch(M, "_Z11atomic_sumsiP6__halfP7__half2P14__nv_bfloat162", {uint32_t(Grid)},
           {uint32_t(Block)}, {&NN, &PH, &PH2, &PB2});
    INFO(Target);
    CHECK(check(N, NConv, Block, HP, Fin.data(), DOut.read().data(), DConv.read().data(),
                DH.read().data(), DH2.read().data(), DB2.read().data()) == 0);
  }
}
// NOLINTEND(readability-identifier-naming)
