// A kernel that traps, fails a device assertion, deadlocks on a barrier (the workgroup's or a
// named one), loops without end or reads outside its LDS arena ends its launch with a clear
// error; the device keeps working (the next launch runs).
#include "HostTestSupport.h"

#include "ptx2amd/amdgpu-backend/KernelFault.h"

#include "llvm/ADT/StringExtras.h"

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

// Threads 16 and up leave; the others meet at the barrier without them.
.visible .entry early_exit(.param .u64 out)
{
  .reg .pred %p;
  .reg .b32 %r<2>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p, %r1, 16;
  @%p bra DONE;
  bar.sync 0;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.u32 [%rd2], 1;
DONE:
  ret;
}

// Threads 16 and up spin until a flag is set that threads 0-15 only set after the barrier (a
// loop waiting on a volatile load: it yields each iteration, as with s_sleep).
.visible .entry spin_deadlock(.param .u64 flag)
{
  .reg .pred %p;
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [flag];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %tid.x;
  setp.ge.u32 %p, %r1, 16;
  @%p bra SPIN;
  bar.sync 0;
  st.volatile.global.u32 [%rd2], 1;
  ret;
SPIN:
  ld.volatile.global.u32 %r2, [%rd2];
  setp.eq.u32 %p, %r2, 0;
  @%p bra SPIN;
  ret;
}

// Waits for a flag nobody sets: no barrier, a plain loop.
.visible .entry endless(.param .u64 flag)
{
  .reg .pred %p;
  .reg .b32 %r<2>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [flag];
  cvta.to.global.u64 %rd2, %rd1;
AGAIN:
  ld.volatile.global.u32 %r1, [%rd2];
  setp.eq.u32 %p, %r1, 0;
  @%p bra AGAIN;
  ret;
}

.extern .func __assertfail(.param .b64 m, .param .b64 f, .param .b32 l, .param .b64 fn,
                           .param .b64 sz);
.global .align 1 .b8 $msg[11] = {120, 32, 60, 32, 49, 48, 48, 48, 48, 48, 0};
.global .align 1 .b8 $file[8] = {107, 101, 114, 110, 46, 99, 117, 0};
.global .align 1 .b8 $func[7] = {99, 104, 101, 99, 107, 115, 0};

// assert(x < 100000) in "kern.cu", line 42, function "checks": thread 3 fails it.
.visible .entry asserting()
{
  .reg .pred %p;
  .reg .b32 %r<2>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p, %r1, 3;
  @%p bra DONE;
  mov.u64 %rd1, $msg;
  cvta.global.u64 %rd1, %rd1;
  mov.u64 %rd2, $file;
  cvta.global.u64 %rd2, %rd2;
  mov.u64 %rd3, $func;
  cvta.global.u64 %rd3, %rd3;
  {
    .param .b64 a0;
    st.param.b64 [a0], %rd1;
    .param .b64 a1;
    st.param.b64 [a1], %rd2;
    .param .b32 a2;
    st.param.b32 [a2], 42;
    .param .b64 a3;
    st.param.b64 [a3], %rd3;
    .param .b64 a4;
    st.param.b64 [a4], 1;
    call.uni __assertfail, (a0, a1, a2, a3, a4);
  }
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

// A named barrier for 128 threads in a block of 64: every work-item waits at it for ever. (Its
// own module: the barrier's LDS words would move the other module's LDS variables.)
const char *NamedDeadlock = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry named_deadlock()
{
  bar.sync 1, 128;
  ret;
}
)";

/// Launches and requires failure; returns the fault's kind (amdgpu::FaultKind::Other for an
/// error that is not a kernel fault) and text.
std::pair<amdgpu::FaultKind, std::string> launchFault(host::LoadedModule &M, const char *Kernel,
                                                      host::LaunchConfig C,
                                                      std::vector<void *> Args) {
  auto R = device().launch(M, Kernel, C, Args.data());
  REQUIRE(!R);
  return amdgpu::takeFault(R.takeError());
}

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
    auto [Kind, E] = launchFault(*M, "trapper", {{3}, {64}}, {&P});
    CHECK(Kind == amdgpu::FaultKind::Trap);
    CHECK_THAT(E, Catch::Contains("kernel 'trapper'") && Catch::Contains("trapped"));
    deviceStillWorks(Target);
  }
}

TEST_CASE("exited work-items drop out of the barrier", "[errors]") {
  for (const char *Target : WaveTargets)
    for (auto [Vectorize, Fibers] : {std::pair{true, false}, {false, false}, {false, true}}) {
      INFO(Target << (Fibers      ? " as fibers"
                      : Vectorize ? " as waves"
                                  : " as a compiled workgroup"));
      auto M = loadText(ErrorKernels, Target, Vectorize);
      CHECK(M->execution("early_exit") ==
            (Vectorize ? host::Execution::Waves : host::Execution::WorkGroup));
      Buffer<uint32_t> Out(64);
      uint32_t *P = Out.get();
      host::LaunchConfig C{{2}, {64}};
      C.Fibers = Fibers;
      launch(*M, "early_exit", C, {&P});
      std::vector<uint32_t> Got = Out.read();
      for (unsigned I = 0; I < 64; ++I)
        CHECK(Got[I] == (I < 16 ? 1u : 0u));
    }
}

/// Launches with a short watchdog and requires failure, a timeout; returns the error text.
std::string stalledLaunch(host::LoadedModule &M, const char *Kernel, std::vector<void *> Args,
                          bool Fibers = false) {
  host::LaunchConfig C{{2}, {64}, 0, /*WatchdogMs=*/150};
  C.Fibers = Fibers;
  auto [Kind, E] = launchFault(M, Kernel, C, std::move(Args));
  CHECK(Kind == amdgpu::FaultKind::Timeout);
  return E;
}

TEST_CASE("a barrier that some work-items never reach is a detected deadlock", "[errors]") {
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto M = loadText(ErrorKernels, Target);
    CHECK(M->execution("spin_deadlock") == host::Execution::WorkGroup);
    for (bool Fibers : {false, true}) {
      INFO(Fibers);
      Buffer<uint32_t> Flag(1);
      uint32_t *P = Flag.get();
      std::string E = stalledLaunch(*M, "spin_deadlock", {&P}, Fibers);
      CHECK_THAT(E, Catch::Contains("kernel 'spin_deadlock'") &&
                        Catch::Contains("no progress for 150 ms") &&
                        Catch::Contains("deadlock at the workgroup barrier") &&
                        Catch::Contains("16 work-items wait at it") &&
                        Catch::Contains("work-items 16-63 never reached it") &&
                        Catch::Contains("work-items 16-63 spin with s_sleep"));
      deviceStillWorks(Target);
    }
  }
}

TEST_CASE("a named barrier that never completes is a detected deadlock", "[errors]") {
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto M = loadText(NamedDeadlock, Target);
    std::string E = stalledLaunch(*M, "named_deadlock", {});
    CHECK_THAT(E, Catch::Contains("kernel 'named_deadlock'") &&
                      Catch::Contains("no progress for 150 ms") &&
                      Catch::Contains("work-items 0-63 spin with s_sleep"));
    deviceStillWorks(Target);
  }
}

TEST_CASE("an endless loop is stopped by the watchdog", "[errors]") {
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto M = loadText(ErrorKernels, Target);
    CHECK_FALSE(M->usesFibers("endless"));
    Buffer<uint32_t> Flag(1);
    uint32_t *P = Flag.get();
    std::string E = stalledLaunch(*M, "endless", {&P});
    CHECK_THAT(E, Catch::Contains("kernel 'endless'") && Catch::Contains("no progress") &&
                      Catch::Contains("work-item (0,0,0) runs without end"));
    deviceStillWorks(Target);
  }
}

TEST_CASE("a failed device assertion ends the launch with its message", "[errors]") {
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto M = loadText(ErrorKernels, Target);
    auto [Kind, E] = launchFault(*M, "asserting", {{1}, {32}}, {});
    CHECK(Kind == amdgpu::FaultKind::Assertion);
    CHECK_THAT(E, Catch::Contains("kernel 'asserting'") && Catch::Contains("x < 100000") &&
                      Catch::Contains("kern.cu") && Catch::Contains("42") &&
                      Catch::Contains("checks"));
    deviceStillWorks(Target);
  }
}

TEST_CASE("an LDS access outside the workgroup's arena is an error", "[errors]") {
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto M = loadText(ErrorKernels, Target);
    uint32_t Inside = 255;
    launch(*M, "lds_store", {2}, {32}, {&Inside});
    // The arena holds the kernel's 1024 bytes: the first word past them, words far past the
    // 64 KiB an arena may hold, a negative index.
    for (uint32_t Outside : {256u, 20000u, 1u << 28, 0xffffffffu}) {
      INFO("index " << Outside);
      auto [Kind, E] = launchFault(*M, "lds_store", {{2}, {32}}, {&Outside});
      CHECK(Kind == amdgpu::FaultKind::MemoryFault);
      CHECK_THAT(E, Catch::Contains("outside the workgroup's arena at LDS address 0x" +
                                    llvm::utohexstr(uint32_t(Outside * 4))) &&
                        Catch::Contains("holds 1024 bytes"));
    }
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

TEST_CASE("a module's static LDS may exceed one kernel's: each kernel is held to its own",
          "[errors]") {
  // Two kernels with 40 KiB of shared memory each (80 KiB in the module) and one with none, as
  // template libraries (cub) have them: each runs; only a kernel's own LDS is limited.
  const char *Ptx = R"(
.version 7.0
.target sm_70
.address_size 64
.shared .align 4 .b32 first[10240];
.shared .align 4 .b32 second[10240];

.visible .entry rotate_first(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, first;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  st.shared.u32 [%r4+40000], %r1;
  bar.sync 0;
  add.u32 %r5, %r1, 1;
  and.b32 %r5, %r5, 63;
  shl.b32 %r5, %r5, 2;
  add.u32 %r5, %r2, %r5;
  ld.shared.u32 %r5, [%r5+40000];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.u32 [%rd2], %r5;
  ret;
}

.visible .entry rotate_second(.param .u64 out)
{
  .reg .b32 %r<6>;
  .reg .b64 %rd<4>;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, second;
  shl.b32 %r3, %r1, 2;
  add.u32 %r4, %r2, %r3;
  st.shared.u32 [%r4+40000], %r1;
  bar.sync 0;
  add.u32 %r5, %r1, 2;
  and.b32 %r5, %r5, 63;
  shl.b32 %r5, %r5, 2;
  add.u32 %r5, %r2, %r5;
  ld.shared.u32 %r5, [%r5+40000];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mul.wide.u32 %rd3, %r1, 4;
  add.s64 %rd2, %rd2, %rd3;
  st.global.u32 [%rd2], %r5;
  ret;
}

.visible .entry empty()
{
  ret;
}
)";
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto M = loadText(Ptx, Target);
    REQUIRE(M->metadata("rotate_first"));
    CHECK(M->metadata("rotate_first")->GroupSegmentFixedSize == 40960);
    CHECK(M->metadata("empty")->GroupSegmentFixedSize == 0);
    launch(*M, "empty", {4}, {32}, {});
    for (auto [Kernel, Step] : {std::pair{"rotate_first", 1u}, std::pair{"rotate_second", 2u}}) {
      INFO(Kernel);
      Buffer<uint32_t> Out(64);
      uint32_t *P = Out.get();
      launch(*M, Kernel, {1}, {64}, {&P});
      std::vector<uint32_t> Got = Out.read();
      for (uint32_t I = 0; I < 64; ++I)
        CHECK(Got[I] == (I + Step) % 64);
    }
    // One kernel's own 40 KiB and 30 KiB of dynamic LDS are more than a workgroup has.
    Buffer<uint32_t> Out(64);
    uint32_t *P = Out.get();
    CHECK_THAT(launchError(*M, "rotate_first", {1}, {64}, {&P}, 30 * 1024),
               Catch::Contains("shared memory"));
  }
}
