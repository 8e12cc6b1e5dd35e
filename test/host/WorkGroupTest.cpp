// Compiled workgroups (host-backend/lib/WorkGroup.cpp): kernels that meet at barriers and
// cross-lane operations run without fibers, with the fibers' results; the fallback only where a
// synchronisation point cannot be brought into the kernel.
#include "../CudaProgramPtx.h"
#include "HostTestSupport.h"

#include "llvm/Support/Path.h"

#include <algorithm>

using namespace host_test;

namespace {

// A barrier in a function that calls itself: it cannot be inlined, the kernel stays on fibers.
// Each work-item adds its id to a shared word `depth` times, with barriers around each deeper
// call (not a tail call, which the optimiser would make a loop).
const char *Recursive = R"(
.version 7.0
.target sm_70
.address_size 64
.shared .align 4 .u32 total;

.func turn(.param .u32 depth)
{
  .reg .pred %p;
  .reg .b32 %r<5>;
  ld.param.u32 %r1, [depth];
  setp.eq.u32 %p, %r1, 0;
  @%p bra DONE;
  mov.u32 %r2, %tid.x;
  atom.shared.add.u32 %r3, [total], %r2;
  bar.sync 0;
  sub.u32 %r4, %r1, 1;
  {
    .param .u32 p;
    st.param.u32 [p], %r4;
    call turn, (p);
  }
  bar.sync 0;
DONE:
  ret;
}

.visible .entry recursive(.param .u64 out, .param .u32 depth)
{
  .reg .pred %p;
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  mov.u32 %r1, %tid.x;
  setp.ne.u32 %p, %r1, 0;
  @%p bra START;
  st.shared.u32 [total], 0;
START:
  bar.sync 0;
  ld.param.u32 %r2, [depth];
  {
    .param .u32 p;
    st.param.u32 [p], %r2;
    call turn, (p);
  }
  bar.sync 0;
  ld.shared.u32 %r3, [total];
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  st.global.u32 [%rd2], %r3;
  ret;
}
)";

// Lane 0 of each warp shuffles alone (a wave operation of its own: it reads its own id), then
// every lane sleeps twice and the warp votes: out[tid] = the ballot of all lanes plus that id.
// Lane 0 comes to the sleeps passes after the others, which have gone on to the ballot; the
// ballot must wait for it, also while it goes from one sleep to the next (CUB's decoupled
// look-back: thread 0 publishes its tile, the warp sleeps and enters a spin loop, then reads its
// predecessors; a reduction without lane 0 dropped a whole window of tiles).
const char *LateLane = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry late_lane(.param .u64 out) {
  .reg .pred %p<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 31;
  mov.u32 %r4, 0;
  setp.ne.s32 %p1, %r2, 0;
  @%p1 bra SLEEP;
  shfl.sync.idx.b32 %r4, %r1, 0, 31, 1;
SLEEP:
  mov.u32 %r5, 100;
  nanosleep.u32 %r5;
  nanosleep.u32 %r5;
  setp.ne.s32 %p2, %r1, 100000;
  vote.sync.ballot.b32 %r6, %p2, -1;
  add.s32 %r6, %r6, %r4;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r6;
  ret;
}
)";

// Lane 0 of each warp shuffles alone (a wave operation of its own) in a branch that the host's
// code lays out after the join (beta == 0 and n == 0: two unlikely branches, so the join follows
// the likely path), then the warp reads lane 0's value there: out[2 tid] = 2 (warp's first tid + 1)
// when both are 0, else warp's first tid + 1; out[2 tid + 1] = tid or n. Fibers ran the wave's
// operations at the lowest code address first: the join's shuffle ran without lane 0 (cuSPARSE's
// csrmv_v3_kernel: a lane's lockstep point in a branch taken when beta == 0).
const char *LateBranch = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry late_branch(.param .u64 out, .param .f32 beta, .param .u32 n) {
  .reg .pred %p<4>;
  .reg .b32 %r<8>;
  .reg .f32 %f<2>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  ld.param.f32 %f1, [beta];
  ld.param.u32 %r6, [n];
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %laneid;
  mul.wide.u32 %rd2, %r1, 8;
  add.s64 %rd3, %rd1, %rd2;
  add.s32 %r3, %r1, 1;
  setp.neu.f32 %p1, %f1, 0f00000000;
  @%p1 bra MAIN;
  st.global.u32 [%rd3+4], %r1;
  setp.ne.s32 %p2, %r6, 0;
  @%p2 bra MAIN;
  setp.ne.s32 %p3, %r2, 0;
  @%p3 bra JOIN;
  shfl.sync.idx.b32 %r4, %r3, 0, 31, 1;
  add.s32 %r3, %r3, %r4;
  bra.uni JOIN;
MAIN:
  st.global.u32 [%rd3+4], %r6;
JOIN:
  shfl.sync.idx.b32 %r5, %r3, 0, 31, -1;
  st.global.u32 [%rd3], %r5;
  ret;
}
)";

} // namespace

TEST_CASE("no kernel of the CUDA programs that meets falls back to fibers",
          "[workgroup][programs]") {
  std::vector<std::string> Files = ptx2amd_test::cudaProgramPtx();
  REQUIRE(Files.size() > 10);
  for (const char *Target : WaveTargets)
    for (bool Vectorize : {true, false}) {
      unsigned Compiled = 0;
      for (const std::string &File : Files) {
        host::LoadedModule &M = module(File, Target, Vectorize);
        for (const std::string &K : M.kernels()) {
          if (!M.unavailableReason(K).empty())
            continue;
          INFO(Target << " " << File << " kernel " << K << ": " << M.fiberReason(K));
          CHECK(M.execution(K) != host::Execution::Fibers);
          CHECK(M.fiberReason(K).empty());
          Compiled +=
              M.execution(K) == (Vectorize ? host::Execution::Waves : host::Execution::WorkGroup);
        }
      }
      // Barriers and shuffles are in many of them: the check above checks something.
      CHECK(Compiled > 20);
    }
}

TEST_CASE("a wave operation waits for a lane that sleeps on its way there", "[workgroup]") {
  for (const char *Target : WaveTargets) {
    auto M = loadText(LateLane, Target);
    REQUIRE(M->unavailableReason("late_lane") == "");
    for (bool Fibers : {false, true}) {
      INFO(Target << (Fibers ? " as fibers" : " as a compiled workgroup"));
      Buffer<uint32_t> Out(128);
      uint32_t *P = Out.get();
      host::LaunchConfig C{{1}, {128}};
      C.Fibers = Fibers;
      launch(*M, "late_lane", C, {&P});
      std::vector<uint32_t> Want(128, ~0u);
      for (unsigned I = 0; I < 128; I += 32)
        Want[I] += I;
      CHECK(Out.read() == Want);
    }
  }
}

TEST_CASE("a wave operation at a join waits for a lane in a branch laid out after it",
          "[workgroup]") {
  for (const char *Target : WaveTargets)
    for (bool Vectorize : {false, true}) {
      auto M = loadText(LateBranch, Target, Vectorize);
      REQUIRE(M->unavailableReason("late_branch") == "");
      for (bool Fibers : {false, true})
        for (uint32_t N : {0u, 5u}) {
          INFO(Target << (Vectorize ? " vectorised" : "") << (Fibers ? " as fibers" : "") << " n "
                      << N);
          const unsigned Items = 96;
          Buffer<uint32_t> Out(2 * Items);
          uint32_t *P = Out.get();
          float Beta = 0;
          uint32_t Count = N;
          host::LaunchConfig C{{1}, {Items}};
          C.Fibers = Fibers;
          launch(*M, "late_branch", C, {&P, &Beta, &Count});
          std::vector<uint32_t> Want(2 * Items);
          for (unsigned I = 0; I < Items; ++I) {
            const uint32_t First = (I & ~31u) + 1;
            Want[2 * I] = N ? First : 2 * First;
            Want[2 * I + 1] = N ? N : I;
          }
          CHECK(Out.read() == Want);
        }
    }
}

TEST_CASE("a barrier in a recursive function keeps its kernel on fibers", "[workgroup]") {
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto M = loadText(Recursive, Target);
    REQUIRE(M->unavailableReason("recursive") == "");
    CHECK(M->execution("recursive") == host::Execution::Fibers);
    CHECK_THAT(M->fiberReason("recursive"), Catch::Contains("recursively"));
    Buffer<uint32_t> Out(1);
    uint32_t *P = Out.get();
    uint32_t Depth = 3;
    launch(*M, "recursive", {1}, {96}, {&P, &Depth});
    CHECK(Out.read()[0] == 3u * (95u * 96u / 2u));
  }
}

TEST_CASE("compiled workgroups, waves and fibers give the same results", "[workgroup]") {
  // prefix_scan.cu: barriers in loops (an up- and down-sweep; a ping-pong max-scan).
  for (const char *Target : WaveTargets) {
    host::LoadedModule &M = module("prefix_scan.sm90.ptx", Target, false);
    host::LoadedModule &Waves = module("prefix_scan.sm90.ptx", Target);
    const char *Scan = "_Z10block_scanPKiPiiS1_", *Max = "_Z8max_scanPKfPfi";
    REQUIRE(M.execution(Scan) == host::Execution::WorkGroup);
    REQUIRE(M.execution(Max) == host::Execution::WorkGroup);
    REQUIRE(Waves.execution(Scan) == host::Execution::Waves);
    REQUIRE(Waves.execution(Max) == host::Execution::Waves);
    // Thread 0 reads, then writes buf[kPerBlock - 1]: one address for every lane of the wave
    // (that a single lane runs it is beyond the analysis), so the wave meets before the store.
    // The compiled form keeps the count.
    CHECK(M.lockstepPoints(Scan) >= 1);
    auto Again = device().loadCompiled(M.compiled(), *amdgpu::findTarget(Target));
    REQUIRE(bool(Again));
    CHECK((*Again)->lockstepPoints(Scan) == M.lockstepPoints(Scan));
    const int N = 5000, PerBlock = 512;
    std::vector<int> In(N);
    std::vector<float> F(N);
    for (int I = 0; I < N; ++I) {
      In[I] = (I * 37 + 11) % 201 - 100;
      F[I] = float((I * 13) % 97) - 40.0f;
    }
    std::vector<int> Got[3];
    std::vector<float> GotMax[3];
    for (int Fibers : {0, 1, 2}) {
      INFO(Target << (Fibers == 1 ? " as fibers"
                      : Fibers    ? " as waves"
                                  : " as a compiled workgroup"));
      host::LoadedModule &Mod = Fibers == 2 ? Waves : M;
      Buffer<int> DIn(In), DOut(N), DSums((N + PerBlock - 1) / PerBlock);
      Buffer<float> DF(F), DMax(N);
      int *PIn = DIn.get(), *POut = DOut.get(), *PSums = DSums.get();
      float *PF = DF.get(), *PMax = DMax.get();
      int Count = N;
      host::LaunchConfig C{{(N + PerBlock - 1) / PerBlock}, {256}};
      C.Fibers = Fibers == 1;
      launch(Mod, Scan, C, {&PIn, &POut, &Count, &PSums});
      host::LaunchConfig CM{{(N + 255) / 256}, {256}};
      CM.Fibers = Fibers == 1;
      launch(Mod, Max, CM, {&PF, &PMax, &Count});
      Got[Fibers] = DOut.read();
      GotMax[Fibers] = DMax.read();
      // Against the definition: inclusive sums per 512, running maxima per 256.
      for (int B = 0; B < N; B += PerBlock) {
        int Acc = 0;
        for (int I = B; I < std::min(N, B + PerBlock); ++I)
          REQUIRE(Got[Fibers][I] == (Acc += In[I]));
      }
      for (int B = 0; B < N; B += 256) {
        float Hi = -1e30f;
        for (int I = B; I < std::min(N, B + 256); ++I)
          REQUIRE(GotMax[Fibers][I] == (Hi = std::max(Hi, F[I])));
      }
    }
    CHECK(Got[0] == Got[1]);
    CHECK(Got[0] == Got[2]);
    CHECK(GotMax[0] == GotMax[1]);
    CHECK(GotMax[0] == GotMax[2]);
  }
}
