// The differential mode (LoadOptions::Forced.Differential, PTX2AMD_HOST_DIFFERENTIAL=1): each
// launch runs under every plan of its kernel and fails where one plan's memory differs from the
// default plan's. A deliberately broken vectorisation (LoadOptions::BreakWaveXorForTests: each
// lane's 32-bit xor one too high) is silent without the mode and a failed launch with it.
// (SaxpyTest.cpp runs a kernel with barriers in the mode.)
#include "HostTestSupport.h"

#include "ptx2amd/amdgpu-backend/Target.h"

using namespace host_test;

namespace {

const char *XorPtx = R"(
.version 7.0
.target sm_70
.address_size 64

.visible .entry xor_arrays(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
  .reg .pred %p<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u64 %rd3, [c];
  ld.param.u32 %r1, [n];
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mov.u32 %r4, %tid.x;
  mad.lo.s32 %r5, %r2, %r3, %r4;
  setp.ge.u32 %p1, %r5, %r1;
  @%p1 bra DONE;
  mul.wide.u32 %rd4, %r5, 4;
  add.s64 %rd5, %rd1, %rd4;
  add.s64 %rd6, %rd2, %rd4;
  add.s64 %rd7, %rd3, %rd4;
  ld.global.u32 %r6, [%rd5];
  ld.global.u32 %r7, [%rd6];
  xor.b32 %r6, %r6, %r7;
  st.global.u32 [%rd7], %r6;
DONE:
  ret;
}
)";

host::LoadOptions options(bool Differential, bool Broken) {
  host::LoadOptions Opts;
  Opts.Forced.Differential = Differential;
  Opts.BreakWaveXorForTests = Broken;
  return Opts;
}

struct XorRun {
  std::vector<uint32_t> A, B;
  Buffer<uint32_t> DA, DB, DC;
  uint32_t N;
  explicit XorRun(uint32_t N) : A(input(N, 7)), B(input(N, 13)), DA(A), DB(B), DC(N), N(N) {}
  static std::vector<uint32_t> input(uint32_t N, uint32_t Seed) {
    std::vector<uint32_t> V(N);
    for (uint32_t I = 0; I < N; ++I)
      V[I] = I * 2654435761u + Seed;
    return V;
  }
  std::vector<void *> args() {
    PA = DA.get();
    PB = DB.get();
    PC = DC.get();
    return {&PA, &PB, &PC, &N};
  }
  uint32_t *PA = nullptr, *PB = nullptr, *PC = nullptr;
};

} // namespace

TEST_CASE("the differential mode runs every plan and passes a correct kernel", "[differential]") {
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto M = loadText(XorPtx, Target, options(true, false));
    REQUIRE(M->execution("xor_arrays") == host::Execution::Waves);
    XorRun R(1000);
    launch(*M, "xor_arrays", {4}, {256}, R.args());
    std::vector<uint32_t> C = R.DC.read();
    for (uint32_t I = 0; I < R.N; ++I)
      REQUIRE(C[I] == (R.A[I] ^ R.B[I]));
  }
}

TEST_CASE("the differential mode fails a broken vectorisation", "[differential]") {
  for (const char *Target : WaveTargets) {
    INFO(Target);
    // Without the mode, the broken waves give wrong results and nobody notices.
    {
      auto M = loadText(XorPtx, Target, options(false, true));
      XorRun R(1000);
      launch(*M, "xor_arrays", {4}, {256}, R.args());
      CHECK(R.DC.read()[5] == (R.A[5] ^ R.B[5]) + 1);
    }
    auto M = loadText(XorPtx, Target, options(true, true));
    XorRun R(1000);
    std::string Error = launchError(*M, "xor_arrays", {4}, {256}, R.args());
    INFO(Error);
    CHECK(Error.find("differential mode: kernel 'xor_arrays': writes different memory under "
                     "work-item loop than under waves: device memory at 0x") != std::string::npos);
    CHECK(Error.find("(4096 bytes), first at byte offset 0: ") != std::string::npos);
    // Every word but those whose sum carries past its low byte differs in its low byte.
    CHECK(Error.find("bytes differ") != std::string::npos);
    // The memory is the default plan's (the waves'), as a launch without the mode leaves it.
    CHECK(R.DC.read()[5] == (R.A[5] ^ R.B[5]) + 1);
    // The compiled form keeps every plan: loaded again, the mode still catches it.
    auto Again = device().loadCompiled(M->compiled(), M->target(), options(true, false));
    if (!Again)
      FAIL(llvm::toString(Again.takeError()));
    CHECK(
        launchError(**Again, "xor_arrays", {4}, {256}, R.args()).find("writes different memory") !=
        std::string::npos);
  }
}
