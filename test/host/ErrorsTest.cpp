// A kernel that traps, deadlocks on a barrier or reads outside its LDS arena ends its launch with
// a clear error; the device keeps working (the next launch runs).
#include "HostTestSupport.h"

using namespace host_test;

namespace {

const char *ErrorKernels = R"(
.version 7.0
.target sm_70
.address_size 64

// Thread 5 of each block traps; the others store their id.
.visible .entry trapper(.param .u64 out)
{
  .reg .pred %p;
  .reg .b32 %r<2>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  setp.eq.u32 %p, %r1, 5;
  @%p trap;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.u32 [%rd2], %r1;
  ret;
}

// Threads 16 and up leave; the others wait at a barrier they never reach.
.visible .entry deadlock()
{
  .reg .pred %p;
  .reg .b32 %r<2>;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p, %r1, 16;
  @%p bra DONE;
  bar.sync 0;
DONE:
  ret;
}

// Stores to smem[index]: past the end of the workgroup's LDS for a large index.
.visible .entry lds_store(.param .u32 index)
{
  .shared .align 4 .b8 smem[1024];
  .reg .b32 %r<4>;
  ld.param.u32 %r1, [index];
  shl.b32 %r2, %r1, 2;
  mov.u32 %r3, smem;
  add.s32 %r3, %r3, %r2;
  st.shared.u32 [%r3], %r1;
  ret;
}
)";

/// The device still runs kernels: saxpy, with its barriers and shared memory.
void deviceStillWorks(const char *Target) {
  host::LoadedModule &M = module(PTX2AMD_SOURCE_DIR "/examples/saxpy.ptx", Target);
  int N = 256;
  float A = 2;
  Buffer<float> X(std::vector<float>(N, 1.0f)), Y(std::vector<float>(N, 3.0f)), S(1);
  float *PX = X.get(), *PY = Y.get(), *PS = S.get();
  launch(M, "_Z5saxpyifPKfPfS1_", {1}, {256}, {&N, &A, &PX, &PY, &PS});
  CHECK(Y.read()[100] == 5.0f);
  CHECK(S.read()[0] == 5.0f * 256);
}

} // namespace

TEST_CASE("a trap ends the launch with an error", "[errors]") {
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto M = loadText(ErrorKernels, Target);
    CHECK_FALSE(M->usesFibers("trapper"));
    Buffer<uint32_t> Out(64);
    uint32_t *P = Out.get();
    std::string E = launchError(*M, "trapper", {3}, {64}, {&P});
    CHECK_THAT(E, Catch::Contains("kernel 'trapper'") && Catch::Contains("trapped"));
    deviceStillWorks(Target);
  }
}

TEST_CASE("a barrier that not all threads reach is a detected deadlock", "[errors]") {
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto M = loadText(ErrorKernels, Target);
    CHECK(M->usesFibers("deadlock"));
    std::string E = launchError(*M, "deadlock", {2}, {64}, {});
    CHECK_THAT(E, Catch::Contains("barrier deadlock") &&
                      Catch::Contains("16 work-items wait at a barrier") &&
                      Catch::Contains("48 exited"));
    deviceStillWorks(Target);
  }
}

TEST_CASE("an LDS access outside the workgroup's arena is an error", "[errors]") {
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto M = loadText(ErrorKernels, Target);
    uint32_t Inside = 255;
    launch(*M, "lds_store", {2}, {32}, {&Inside});
    uint32_t Outside = 20000; // 80000 bytes: past the 64 KiB arena
    std::string E = launchError(*M, "lds_store", {2}, {32}, {&Outside});
    CHECK_THAT(E, Catch::Contains("outside the workgroup's arena"));
    deviceStillWorks(Target);
  }
}

TEST_CASE("launch errors: unknown kernel, bad block size, too much shared memory", "[errors]") {
  auto M = loadText(ErrorKernels, "gfx90a");
  CHECK_THAT(launchError(*M, "nope", {1}, {1}, {}), Catch::Contains("no kernel 'nope'"));
  uint32_t I = 0;
  CHECK_THAT(launchError(*M, "lds_store", {1}, {2048}, {&I}), Catch::Contains("threads"));
  CHECK_THAT(launchError(*M, "lds_store", {1}, {32}, {&I}, 70000),
             Catch::Contains("shared memory"));
  CHECK_THAT(launchError(*M, "lds_store", {1}, {32}, {nullptr}), Catch::Contains("null"));
}
