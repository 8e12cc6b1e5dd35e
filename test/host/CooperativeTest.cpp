// Cooperative launches: every block of the grid runs at once, so blocks may wait for each other
// (a grid barrier spinning on global memory, without a workgroup barrier or s_sleep), up to what
// the workers hold; the grid workspace reaches the kernel through %envreg1/%envreg2 in
// cooperative launches only; a grid that never meets is stopped by the watchdog.
#include "HostTestSupport.h"

#include "ptx2amd/amdgpu-backend/KernelFault.h"

using namespace host_test;

namespace {

const char *CooperativeKernels = R"(
.version 7.0
.target sm_70
.address_size 64

// Thread 0 of each block arrives at a counter and spins until `want` blocks arrived; then it
// stores what it saw. No bar.sync: the kernel is a plain loop in ordinary launches.
.visible .entry arrive_and_wait(.param .u64 counter, .param .u32 want, .param .u64 out)
{
  .reg .pred %p;
  .reg .b32 %r<5>;
  .reg .b64 %rd<6>;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p, %r1, 0;
  @%p bra DONE;
  ld.param.u64 %rd1, [counter];
  cvta.to.global.u64 %rd2, %rd1;
  ld.param.u32 %r2, [want];
  atom.add.release.gpu.u32 %r3, [%rd2], 1;
SPIN:
  ld.acquire.gpu.u32 %r4, [%rd2];
  setp.lt.u32 %p, %r4, %r2;
  @%p bra SPIN;
  ld.param.u64 %rd3, [out];
  cvta.to.global.u64 %rd4, %rd3;
  mov.u32 %r1, %ctaid.x;
  mul.wide.u32 %rd5, %r1, 4;
  add.s64 %rd4, %rd4, %rd5;
  st.global.u32 [%rd4], %r4;
DONE:
  ret;
}

// What the driver's registers hold: %envreg1:%envreg2 (the grid workspace), %envreg0, %envreg31,
// and the workspace's barrier word.
.visible .entry envregs(.param .u64 out)
{
  .reg .pred %p;
  .reg .b32 %r<6>;
  .reg .b64 %rd<5>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, %envreg1;
  mov.u32 %r2, %envreg2;
  mov.u32 %r3, %envreg0;
  mov.u32 %r4, %envreg31;
  st.global.v4.u32 [%rd2], {%r1, %r2, %r3, %r4};
  mov.b64 %rd3, {%r2, %r1};
  setp.eq.u64 %p, %rd3, 0;
  @%p bra DONE;
  ld.global.u32 %r5, [%rd3+4];
  st.global.u32 [%rd2+16], %r5;
DONE:
  ret;
}
)";

unsigned workers() {
  auto N = host::Device::computeUnits();
  if (!N)
    FAIL(llvm::toString(N.takeError()));
  return *N;
}

std::string cooperativeLaunchError(host::LoadedModule &M, const char *Kernel, host::Dim3 Grid,
                                   host::Dim3 Block, std::vector<void *> Args) {
  host::LaunchConfig C{Grid, Block};
  C.Cooperative = true;
  auto R = device().launch(M, Kernel, C, Args.data());
  REQUIRE(!R);
  return llvm::toString(R.takeError());
}

void cooperativeLaunch(host::LoadedModule &M, const char *Kernel, host::Dim3 Grid, host::Dim3 Block,
                       std::vector<void *> Args) {
  host::LaunchConfig C{Grid, Block};
  C.Cooperative = true;
  auto R = device().launch(M, Kernel, C, Args.data());
  if (!R)
    FAIL(llvm::toString(R.takeError()));
}

} // namespace

TEST_CASE("a cooperative launch runs every block at once", "[cooperative]") {
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto M = loadText(CooperativeKernels, Target);
    // Full workers: 8 blocks of 256 threads each, and 2 of 1024 (stacks past the first 1024).
    for (auto [PerWorker, Threads] : {std::pair{8u, 256u}, {2u, 1024u}, {32u, 64u}}) {
      INFO(PerWorker << " blocks of " << Threads << " threads a worker");
      uint32_t Blocks = PerWorker * workers();
      Buffer<uint32_t> Counter(1), Out(Blocks);
      uint32_t *PC = Counter.get(), *PO = Out.get();
      cooperativeLaunch(*M, "arrive_and_wait", {Blocks}, {Threads}, {&PC, &Blocks, &PO});
      for (uint32_t Seen : Out.read())
        CHECK(Seen == Blocks);
    }
  }
}

TEST_CASE("the grid workspace is in %envreg1/%envreg2 of cooperative launches only",
          "[cooperative]") {
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto M = loadText(CooperativeKernels, Target);
    Buffer<uint32_t> Out(std::vector<uint32_t>(5, 0xdeadbeef));
    uint32_t *PO = Out.get();
    launch(*M, "envregs", {1}, {32}, {&PO});
    CHECK(Out.read() == std::vector<uint32_t>{0, 0, 0, 0, 0xdeadbeef});
    cooperativeLaunch(*M, "envregs", {1}, {32}, {&PO});
    std::vector<uint32_t> Got = Out.read();
    CHECK((Got[0] || Got[1]));
    CHECK(Got[2] == 0);
    CHECK(Got[3] == 0);
    CHECK(Got[4] == 0); // the barrier word starts at zero
  }
}

TEST_CASE("a cooperative grid the workers cannot hold at once is refused", "[cooperative]") {
  auto M = loadText(CooperativeKernels, "gfx90a");
  uint32_t Blocks = 32 * workers() + 1;
  Buffer<uint32_t> Counter(1), Out(Blocks);
  uint32_t *PC = Counter.get(), *PO = Out.get();
  CHECK_THAT(cooperativeLaunchError(*M, "arrive_and_wait", {Blocks}, {32}, {&PC, &Blocks, &PO}),
             Catch::Contains("cooperative launch of " + std::to_string(Blocks)));
  Blocks = 2 * workers() + 1;
  CHECK_THAT(cooperativeLaunchError(*M, "arrive_and_wait", {Blocks}, {1024}, {&PC, &Blocks, &PO}),
             Catch::Contains("2048 work-items"));
}

TEST_CASE("a cooperative grid that never meets is stopped by the watchdog", "[cooperative]") {
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto M = loadText(CooperativeKernels, Target);
    uint32_t Blocks = 2 * workers(), Want = Blocks + 1;
    Buffer<uint32_t> Counter(1), Out(Blocks);
    uint32_t *PC = Counter.get(), *PO = Out.get();
    host::LaunchConfig C{{Blocks}, {64}, 0, /*WatchdogMs=*/200};
    C.Cooperative = true;
    void *Args[] = {&PC, &Want, &PO};
    auto R = device().launch(*M, "arrive_and_wait", C, Args);
    REQUIRE(!R);
    auto [Kind, E] = amdgpu::takeFault(R.takeError());
    CHECK(Kind == amdgpu::FaultKind::Timeout);
    CHECK_THAT(E, Catch::Contains("spin"));
    // The next cooperative launch works.
    uint32_t Zero = 0;
    std::memcpy(PC, &Zero, sizeof Zero);
    cooperativeLaunch(*M, "arrive_and_wait", {Blocks}, {64}, {&PC, &Blocks, &PO});
    for (uint32_t Seen : Out.read())
      CHECK(Seen == Blocks);
  }
}
