// How vectorised waves access memory: a lane's vector built from its own values, and a 2-D
// block's rows, columns and broadcasts through shared memory (WaveMemory.cpp's affine
// patterns), against the work-item loops.
#include "HostTestSupport.h"

using namespace host_test;

namespace {

// out[i] = {i, i + 1, 2i, ~i}: a 16-byte store of four per-lane values.
const char *Vec4 = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry vec4(.param .u64 out) {
  .reg .b32 %r<8>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.x;
  mad.lo.s32 %r1, %r2, %r3, %r1;
  add.s32 %r4, %r1, 1;
  shl.b32 %r5, %r1, 1;
  not.b32 %r6, %r1;
  mul.wide.u32 %rd2, %r1, 16;
  add.s64 %rd3, %rd1, %rd2;
  st.global.v4.u32 [%rd3], {%r1, %r4, %r5, %r6};
  ret;
}
)";

// A 16x16 block: tile[y][x] = in[y][x]; out[y][x] = tile[x][y] * 1000 + tile[y][0] (a row
// store, a column read, one element a row).
const char *Rows = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry rows(.param .u64 in, .param .u64 out) {
  .shared .align 4 .b8 tile[1024];
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %tid.y;
  shl.b32 %r3, %r2, 4;
  add.s32 %r4, %r3, %r1;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd4, %rd1, %rd3;
  ld.global.u32 %r5, [%rd4];
  mov.u32 %r6, tile;
  shl.b32 %r7, %r4, 2;
  add.s32 %r8, %r6, %r7;
  st.shared.u32 [%r8], %r5;
  bar.sync 0;
  shl.b32 %r9, %r1, 4;
  add.s32 %r9, %r9, %r2;
  shl.b32 %r9, %r9, 2;
  add.s32 %r9, %r6, %r9;
  ld.shared.u32 %r10, [%r9];
  shl.b32 %r11, %r3, 2;
  add.s32 %r11, %r6, %r11;
  ld.shared.u32 %r12, [%r11];
  mul.lo.s32 %r13, %r10, 1000;
  add.s32 %r13, %r13, %r12;
  add.s64 %rd5, %rd2, %rd3;
  st.global.u32 [%rd5], %r13;
  ret;
}
)";

// After a barrier, out[i] = {i, m, m + 1, tid} with m the input of the block's mirrored
// thread: a per-lane st.v4 (through the wave's scratch memory) in a wave cut at a barrier, as in
// NVIDIA's scan sample, whose scratch did not dominate its uses after the cut.
const char *BarrierVec4 = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry barrier_vec4(.param .u64 in, .param .u64 out) {
  .shared .align 4 .b8 s[1024];
  .reg .b32 %r<12>;
  .reg .b64 %rd<6>;
  ld.param.u64 %rd1, [in];
  ld.param.u64 %rd2, [out];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd2, %rd2;
  mov.u32 %r1, %tid.x;
  mov.u32 %r2, %ntid.x;
  mov.u32 %r3, %ctaid.x;
  mad.lo.s32 %r4, %r3, %r2, %r1;
  mul.wide.u32 %rd3, %r4, 4;
  add.s64 %rd3, %rd1, %rd3;
  ld.global.u32 %r5, [%rd3];
  mov.u32 %r6, s;
  shl.b32 %r7, %r1, 2;
  add.s32 %r7, %r6, %r7;
  st.shared.u32 [%r7], %r5;
  bar.sync 0;
  sub.s32 %r8, %r2, %r1;
  sub.s32 %r8, %r8, 1;
  shl.b32 %r9, %r8, 2;
  add.s32 %r9, %r6, %r9;
  ld.shared.u32 %r10, [%r9];
  add.s32 %r11, %r10, 1;
  mul.wide.u32 %rd4, %r4, 16;
  add.s64 %rd4, %rd2, %rd4;
  st.global.v4.u32 [%rd4], {%r4, %r10, %r11, %r1};
  ret;
}
)";

} // namespace

TEST_CASE("a wave stores vectors built from each lane's values", "[waves]") {
  for (const char *Target : WaveTargets)
    for (bool Vectorize : {true, false}) {
      INFO(Target << (Vectorize ? " waves" : " work-items"));
      auto M = loadText(Vec4, Target, Vectorize);
      REQUIRE(M->unavailableReason("vec4") == "");
      CHECK(M->execution("vec4") == (Vectorize ? host::Execution::Waves : host::Execution::Loop));
      const uint32_t Blocks = 3, Threads = 96; // partial waves on wave64
      Buffer<uint32_t> Out(Blocks * Threads * 4);
      uint32_t *P = Out.get();
      launch(*M, "vec4", {Blocks}, {Threads}, {&P});
      std::vector<uint32_t> R = Out.read();
      for (uint32_t I = 0; I < Blocks * Threads; ++I) {
        INFO(I);
        CHECK(R[4 * I] == I);
        CHECK(R[4 * I + 1] == I + 1);
        CHECK(R[4 * I + 2] == 2 * I);
        CHECK(R[4 * I + 3] == ~I);
      }
    }
}

TEST_CASE("a 2-D block's rows, columns and broadcasts through shared memory", "[waves]") {
  std::vector<uint32_t> In(256);
  for (uint32_t I = 0; I < 256; ++I)
    In[I] = I * 7 + 3;
  for (const char *Target : WaveTargets)
    for (bool Vectorize : {true, false}) {
      INFO(Target << (Vectorize ? " waves" : " work-items"));
      auto M = loadText(Rows, Target, Vectorize);
      REQUIRE(M->unavailableReason("rows") == "");
      if (Vectorize)
        CHECK(M->execution("rows") == host::Execution::Waves);
      Buffer<uint32_t> A(In), Out(256);
      uint32_t *PA = A.get(), *PO = Out.get();
      launch(*M, "rows", {1}, {16, 16}, {&PA, &PO});
      std::vector<uint32_t> R = Out.read();
      for (uint32_t Y = 0; Y < 16; ++Y)
        for (uint32_t X = 0; X < 16; ++X) {
          INFO(X << "," << Y);
          CHECK(R[Y * 16 + X] == In[X * 16 + Y] * 1000 + In[Y * 16]);
        }
    }
}

TEST_CASE("a wave cut at a barrier stores vectors built from each lane's values", "[waves]") {
  const uint32_t Blocks = 3, Threads = 96; // partial waves on wave64
  std::vector<uint32_t> In(Blocks * Threads);
  for (uint32_t I = 0; I < In.size(); ++I)
    In[I] = I * 7 + 3;
  for (const char *Target : WaveTargets)
    for (bool Vectorize : {true, false}) {
      INFO(Target << (Vectorize ? " waves" : " work-items"));
      auto M = loadText(BarrierVec4, Target, Vectorize);
      REQUIRE(M->unavailableReason("barrier_vec4") == "");
      if (Vectorize)
        CHECK(M->execution("barrier_vec4") == host::Execution::Waves);
      Buffer<uint32_t> A(In), Out(Blocks * Threads * 4);
      uint32_t *PA = A.get(), *PO = Out.get();
      launch(*M, "barrier_vec4", {Blocks}, {Threads}, {&PA, &PO});
      std::vector<uint32_t> R = Out.read();
      for (uint32_t I = 0; I < Blocks * Threads; ++I) {
        INFO(I);
        uint32_t Tid = I % Threads, Mirror = In[I - Tid + Threads - 1 - Tid];
        CHECK(R[4 * I] == I);
        CHECK(R[4 * I + 1] == Mirror);
        CHECK(R[4 * I + 2] == Mirror + 1);
        CHECK(R[4 * I + 3] == Tid);
      }
    }
}

// 256 values a lane keeps across a barrier: a wave64's frame (64 KiB) would not fit in a frame
// (FiberStack), so that kernel runs as work-items there (NVIDIA's binomialOptions failed at
// launch); a wave32's fits and runs as waves. out[i] = sum over k of in[k * n + i].
static std::string manyLiveValues() {
  std::string P = ".version 7.0\n.target sm_70\n.address_size 64\n"
                  ".visible .entry many_live(.param .u64 in, .param .u64 out, .param .u32 n) {\n"
                  "  .reg .b32 %r<8>;\n  .reg .b32 %v<256>;\n  .reg .b64 %rd<8>;\n"
                  "  ld.param.u64 %rd1, [in];\n  ld.param.u64 %rd2, [out];\n"
                  "  ld.param.u32 %r1, [n];\n  cvta.to.global.u64 %rd1, %rd1;\n"
                  "  cvta.to.global.u64 %rd2, %rd2;\n  mov.u32 %r2, %tid.x;\n"
                  "  mov.u32 %r3, %ctaid.x;\n  mov.u32 %r4, %ntid.x;\n"
                  "  mad.lo.s32 %r5, %r3, %r4, %r2;\n  mul.wide.u32 %rd3, %r5, 4;\n"
                  "  add.s64 %rd3, %rd1, %rd3;\n  mul.wide.u32 %rd4, %r1, 4;\n";
  for (int K = 0; K < 256; ++K)
    P += "  ld.global.u32 %v" + std::to_string(K) + ", [%rd3];\n  add.s64 %rd3, %rd3, %rd4;\n";
  P += "  bar.sync 0;\n  mov.u32 %r6, 0;\n";
  for (int K = 0; K < 256; ++K)
    P += "  add.s32 %r6, %r6, %v" + std::to_string(K) + ";\n";
  P += "  mul.wide.u32 %rd5, %r5, 4;\n  add.s64 %rd5, %rd2, %rd5;\n"
       "  st.global.u32 [%rd5], %r6;\n  ret;\n}\n";
  return P;
}

TEST_CASE("a wave whose lanes keep too much across a barrier runs as work-items", "[waves]") {
  const uint32_t Blocks = 2, Threads = 128, N = Blocks * Threads;
  std::vector<uint32_t> In(256 * N);
  for (uint32_t I = 0; I < In.size(); ++I)
    In[I] = I * 2654435761u;
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto M = loadText(manyLiveValues(), Target, /*Vectorize=*/true);
    REQUIRE(M->unavailableReason("many_live") == "");
    const bool Wave64 = std::string(Target) == "gfx90a";
    CHECK((M->execution("many_live") == host::Execution::Waves) == !Wave64);
    Buffer<uint32_t> A(In), Out(N);
    uint32_t *PA = A.get(), *PO = Out.get();
    uint32_t Count = N;
    launch(*M, "many_live", {Blocks}, {Threads}, {&PA, &PO, &Count});
    std::vector<uint32_t> R = Out.read();
    for (uint32_t I = 0; I < N; ++I) {
      uint32_t Sum = 0;
      for (uint32_t K = 0; K < 256; ++K)
        Sum += In[K * N + I];
      INFO(I);
      CHECK(R[I] == Sum);
    }
  }
}

// 100 rounds of xor, remainder and add on each lane's value: with the wave function's limit at 200
// instructions (the real one, MaxWaveInstructions in WaveVectorizer.h, is 20000: cuBLASLt's
// magma_hgemmEx vectorised into 38,195, 55 s of code generation), the kernel runs as work-items,
// with the same results.
static std::string manyRounds() {
  std::string P = ".version 7.0\n.target sm_70\n.address_size 64\n"
                  ".visible .entry rounds(.param .u64 in, .param .u64 out) {\n"
                  "  .reg .b32 %r<8>;\n  .reg .b64 %rd<8>;\n"
                  "  ld.param.u64 %rd1, [in];\n  ld.param.u64 %rd2, [out];\n"
                  "  cvta.to.global.u64 %rd1, %rd1;\n  cvta.to.global.u64 %rd2, %rd2;\n"
                  "  mov.u32 %r2, %tid.x;\n  mov.u32 %r3, %ctaid.x;\n  mov.u32 %r4, %ntid.x;\n"
                  "  mad.lo.s32 %r5, %r3, %r4, %r2;\n  mul.wide.u32 %rd3, %r5, 4;\n"
                  "  add.s64 %rd4, %rd1, %rd3;\n  ld.global.u32 %r1, [%rd4];\n"
                  "  or.b32 %r6, %r5, 1;\n";
  for (uint32_t K = 0; K < 100; ++K)
    P += "  xor.b32 %r1, %r1, " + std::to_string(K * 2654435761u) +
         ";\n  rem.u32 %r7, %r1, %r6;\n  add.s32 %r1, %r1, %r7;\n";
  P += "  add.s64 %rd5, %rd2, %rd3;\n  st.global.u32 [%rd5], %r1;\n  ret;\n}\n";
  return P;
}

TEST_CASE("a kernel whose waves would be too large to compile runs as work-items", "[waves]") {
  const uint32_t Blocks = 2, Threads = 64, N = Blocks * Threads;
  std::vector<uint32_t> In(N);
  for (uint32_t I = 0; I < N; ++I)
    In[I] = I * 40503u + 7;
  std::vector<uint32_t> Want(In);
  for (uint32_t I = 0; I < N; ++I)
    for (uint32_t K = 0; K < 100; ++K) {
      Want[I] ^= K * 2654435761u;
      Want[I] += Want[I] % (I | 1);
    }
  const std::string Ptx = manyRounds();
  for (const char *Target : WaveTargets)
    for (unsigned Limit : {200u, 0u}) {
      INFO(Target << ", limit " << Limit);
      host::LoadOptions Opts;
      Opts.MaxWaveInstructionsForTests = Limit;
      auto M = loadText(Ptx, Target, Opts);
      REQUIRE(M->unavailableReason("rounds") == "");
      if (Limit) {
        CHECK(M->execution("rounds") != host::Execution::Waves);
        CHECK_THAT(M->vectorReason("rounds"), Catch::Matchers::Contains("its waves would be") &&
                                                  Catch::Matchers::Contains("more than 200 "));
      } else {
        CHECK(M->vectorReason("rounds") == "");
      }
      Buffer<uint32_t> A(In), Out(N);
      uint32_t *PA = A.get(), *PO = Out.get();
      launch(*M, "rounds", {Blocks}, {Threads}, {&PA, &PO});
      CHECK(Out.read() == Want);
    }
}

// A loop whose iteration starts with shuffles and ends with a divergent region where half the
// wave meets (a warp barrier of lanes 0-15): lanes 16-31 reach the next iteration's shuffle
// first. Run one at a time (work-items), they must wait there for the others, as on a GPU the
// wave reconverges before the loop's next iteration (LoopReconvergence.cpp: a barrier at the
// latch); shuffling alone, lane 0 read nothing from lane 16 (cuSPARSE's csrmm kernel summed its
// next columns without the lanes still storing the last ones). out[i] = sum over iterations of
// lane 0's v + lane 16's v, plus 1000 an iteration for lanes 0-15; v = lane + 1, then + lane.
const char *Reconverge = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry reconverge(.param .u64 out, .param .u32 iters) {
  .reg .pred %p<4>;
  .reg .b32 %r<16>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [out];
  ld.param.u32 %r1, [iters];
  mov.u32 %r2, %tid.x;
  and.b32 %r3, %r2, 31;
  add.s32 %r4, %r3, 1;
  mov.u32 %r5, 0;
  mov.u32 %r6, 0;
$Loop:
  shfl.sync.down.b32 %r7, %r4, 16, 31, -1;
  add.s32 %r8, %r4, %r7;
  shfl.sync.idx.b32 %r9, %r8, 0, 31, -1;
  add.s32 %r5, %r5, %r9;
  setp.lt.u32 %p1, %r3, 16;
  @!%p1 bra $Skip;
  bar.warp.sync 65535;
  add.s32 %r5, %r5, 1000;
$Skip:
  add.s32 %r4, %r4, %r3;
  add.s32 %r6, %r6, 1;
  setp.lt.u32 %p2, %r6, %r1;
  @%p2 bra $Loop;
  mul.wide.u32 %rd2, %r2, 4;
  add.s64 %rd3, %rd1, %rd2;
  st.global.u32 [%rd3], %r5;
  ret;
}
)";

TEST_CASE("a wave's lanes start a loop's next iteration together", "[waves]") {
  const uint32_t Threads = 64, Iters = 5;
  std::vector<uint32_t> Want(Threads);
  for (uint32_t T = 0; T < Threads; ++T) {
    uint32_t Acc = 0;
    for (uint32_t It = 0; It < Iters; ++It)
      Acc += (1 + It * 0) + (17 + It * 16) + ((T & 31) < 16 ? 1000 : 0);
    Want[T] = Acc;
  }
  for (const char *Target : WaveTargets)
    for (bool Vectorize : {false, true}) {
      INFO(Target << (Vectorize ? " waves" : " work-items"));
      auto M = loadText(Reconverge, Target, Vectorize);
      REQUIRE(M->unavailableReason("reconverge") == "");
      Buffer<uint32_t> Out(Threads);
      uint32_t *PO = Out.get();
      uint32_t N = Iters;
      launch(*M, "reconverge", {1}, {Threads}, {&PO, &N});
      CHECK(Out.read() == Want);
    }
}

// Each lane divides its a by its b and by the kernel's d, unsigned and signed: out[8i..8i+7] =
// {a/b, a%b, a/d, a%d} unsigned, then signed. A vectorised wave divides as doubles
// (VectorDivision.cpp), which must give the integer results exactly, extremes included.
const char *Divide = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry divide(.param .u64 a, .param .u64 b, .param .u32 d, .param .u64 out) {
  .reg .b32 %r<16>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [a];
  ld.param.u64 %rd2, [b];
  ld.param.u32 %r1, [d];
  ld.param.u64 %rd3, [out];
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %ctaid.x;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r2, %r3, %r4, %r2;
  mul.wide.u32 %rd4, %r2, 4;
  add.s64 %rd5, %rd1, %rd4;
  ld.global.u32 %r5, [%rd5];
  add.s64 %rd5, %rd2, %rd4;
  ld.global.u32 %r6, [%rd5];
  div.u32 %r7, %r5, %r6;
  rem.u32 %r8, %r5, %r6;
  div.u32 %r9, %r5, %r1;
  rem.u32 %r10, %r5, %r1;
  div.s32 %r11, %r5, %r6;
  rem.s32 %r12, %r5, %r6;
  div.s32 %r13, %r5, %r1;
  rem.s32 %r14, %r5, %r1;
  mul.wide.u32 %rd6, %r2, 32;
  add.s64 %rd6, %rd3, %rd6;
  st.global.v4.u32 [%rd6], {%r7, %r8, %r9, %r10};
  st.global.v4.u32 [%rd6+16], {%r11, %r12, %r13, %r14};
  ret;
}
)";

TEST_CASE("a wave's lanes divide exactly as work-items do", "[waves]") {
  const uint32_t Threads = 128, Blocks = 16, N = Threads * Blocks;
  const uint32_t Extremes[] = {0u,          1u,          2u,          3u,          7u,
                               0x7fffffffu, 0x80000000u, 0x80000001u, 0xfffffffeu, 0xffffffffu,
                               0xfffffff9u, 65535u,      65536u,      1000003u};
  std::vector<uint32_t> A(N), B(N);
  uint32_t S = 12345;
  for (uint32_t I = 0; I < N; ++I) {
    S = S * 1664525u + 1013904223u;
    A[I] = I < 196 ? Extremes[I % 14] : S;
    S = S * 1664525u + 1013904223u;
    B[I] = I < 196 ? Extremes[I / 14] : (I % 3 ? S >> (S % 31) : S);
    // Division by zero and INT_MIN / -1 are undefined: their lanes divide by 5 instead.
    if (B[I] == 0 || (A[I] == 0x80000000u && B[I] == 0xffffffffu))
      B[I] = 5;
  }
  for (uint32_t D : {3u, 0xfffffff9u, 0x7fffffffu}) {
    for (const char *Target : WaveTargets) {
      INFO(Target << " d " << D);
      auto M = loadText(Divide, Target, /*Vectorize=*/true);
      REQUIRE(M->execution("divide") == host::Execution::Waves);
      Buffer<uint32_t> DA(A), DB(B), Out(8 * N);
      uint32_t *PA = DA.get(), *PB = DB.get(), *PO = Out.get();
      launch(*M, "divide", {Blocks}, {Threads}, {&PA, &PB, &D, &PO});
      std::vector<uint32_t> R = Out.read();
      for (uint32_t I = 0; I < N; ++I) {
        const int32_t SA = int32_t(A[I]), SB = int32_t(B[I]), SD = int32_t(D);
        const bool DOverflows = A[I] == 0x80000000u && D == 0xffffffffu;
        INFO(I << ": " << A[I] << " / " << B[I]);
        CHECK(R[8 * I] == A[I] / B[I]);
        CHECK(R[8 * I + 1] == A[I] % B[I]);
        CHECK(R[8 * I + 2] == A[I] / D);
        CHECK(R[8 * I + 3] == A[I] % D);
        CHECK(int32_t(R[8 * I + 4]) == SA / SB);
        CHECK(int32_t(R[8 * I + 5]) == SA % SB);
        if (!DOverflows) {
          CHECK(int32_t(R[8 * I + 6]) == SA / SD);
          CHECK(int32_t(R[8 * I + 7]) == SA % SD);
        }
      }
    }
  }
}
