// The `barriers` family: named barriers for part of a block (ids 0-15, immediate and register
// ids and counts), bar.arrive/barrier.arrive with producer and consumer warps, bar.red with
// counts, blocks that end in a partial warp. References follow the PTX ISA: a barrier completes
// when `count` threads have arrived, counted per warp (a partial warp counts 32). Producers and
// consumers are whole waves on wave64 (two warps of one wave that wait for each other in
// different branches cannot both run on AMDGPU); warps of one wave that name different barriers,
// or one barrier of 32 threads, are covered.
#include "Families.h"
#include "KernelHarness.h"

#include <algorithm>
#include <random>
#include <sstream>

namespace conformance {

namespace {

constexpr uint32_t Sentinel = 0xdeadbeef;

/// Declarations and indices: %tid, %ntid, %cta, %gid (launch-wide), %warp, %o4 = %gid * 4,
/// %b<J> = buffer J. Scratch: %r<24>, %rd<8>, %p<8>.
std::string prologue(unsigned Buffers) {
  std::ostringstream S;
  S << "  .reg .b32 %gid, %tid, %ntid, %cta, %warp, %r<24>;\n"
    << "  .reg .b64 %o4, %rd<8>, %b<" << Buffers << ">;\n  .reg .pred %p<8>;\n"
    << "  mov.u32 %cta, %ctaid.x;\n  mov.u32 %ntid, %ntid.x;\n  mov.u32 %tid, %tid.x;\n"
    << "  mad.lo.u32 %gid, %cta, %ntid, %tid;\n  mul.wide.u32 %o4, %gid, 4;\n"
    << "  shr.u32 %warp, %tid, 5;\n";
  for (unsigned J = 0; J < Buffers; ++J)
    S << "  ld.param.u64 %b" << J << ", [buf" << J << "];\n";
  return S.str();
}

std::string compare(const std::vector<Expected> &Want, const std::vector<Words> &Out, size_t First,
                    unsigned PerThread) {
  std::string Report;
  for (size_t J = 0; J < Want.size(); ++J) {
    auto Describe = [PerThread](size_t I) {
      return "thread " + std::to_string(I / PerThread) + " word " + std::to_string(I % PerThread);
    };
    std::string R =
        compareWords("buf" + std::to_string(First + J), Want[J], Out[First + J], Describe);
    if (!R.empty())
      Report += (Report.empty() ? "" : "\n  ") + R;
  }
  return Report;
}

/// The warps of a block in groups of \p G; group g synchronises on its own barriers (ids
/// 1 + 2g and 2 + 2g) with a count of 32 G, or, with \p SharedIds (G = 1 only), every warp on
/// ids 1 and 2 with a count of 32. Registers: %r10 group, %r11 first thread, %r12 threads
/// (the last group may end in a partial warp), %r13 index in the group, %r14/%r15 the ids,
/// %r16 the count.
std::string groups(uint32_t G, bool SharedIds) {
  const std::string Threads = std::to_string(32 * G);
  return "  div.u32 %r10, %warp, " + std::to_string(G) + ";\n  mul.lo.u32 %r11, %r10, " + Threads +
         ";\n  sub.u32 %r12, %ntid, %r11;\n  min.u32 %r12, %r12, " + Threads +
         ";\n  sub.u32 %r13, %tid, %r11;\n" +
         (SharedIds ? "  mov.u32 %r14, 1;\n" : "  mad.lo.u32 %r14, %r10, 2, 1;\n") +
         "  add.u32 %r15, %r14, 1;\n  mov.u32 %r16, " + Threads + ";\n";
}

/// Warp-dependent delay before a write that a barrier publishes: (warp % 4) * 3 warp barriers,
/// so that on the host device (whose lanes meet at cross-lane operations) the warps fall out of
/// step and a barrier that does not wait lets readers see stale words.
std::string delay(const std::string &Label) {
  return "  and.b32 %r20, %warp, 3;\n  mul.lo.u32 %r20, %r20, 3;\n" + Label +
         ":\n  setp.eq.u32 %p7, %r20, 0;\n  @%p7 bra " + Label +
         "_END;\n  bar.warp.sync -1;\n  sub.u32 %r20, %r20, 1;\n  bra " + Label + ";\n" + Label +
         "_END:\n";
}

struct Group {
  uint32_t First, Threads;
};

Group groupOf(uint32_t T, uint32_t B, uint32_t G) {
  const uint32_t First = T / (32 * G) * (32 * G);
  return {First, std::min(B - First, 32 * G)};
}

/// Rounds of exchanges inside each group through shared memory, between the group's barriers
/// (register ids; register and immediate counts; bar.sync, barrier.sync, barrier.sync.aligned).
KernelCase groupRounds(uint32_t B, uint32_t G, bool SharedIds) {
  const uint32_t Blocks = 3, N = Blocks * B, Rounds = 4;
  KernelCase C;
  const std::string Bs = std::to_string(B), Cnt = std::to_string(32 * G);
  C.Name = "bar.sync groups of " + std::to_string(G) + " warps" +
           (SharedIds ? " on one id" : ", id per group") + ", block " + Bs;
  C.Grid = {Blocks};
  C.Block = {B};
  C.Globals = ".shared .align 4 .b32 {K}_s[" + Bs + "];\n";
  C.Buffers = {randomWords(N, 0xb0 + B + G), Words(N, Sentinel)};
  const std::string First[] = {"bar.sync %r15, %r16", "barrier.sync %r15, " + Cnt,
                               "barrier.sync.aligned %r15, %r16", "bar.sync %r15, " + Cnt};
  const std::string Second[] = {"barrier.sync %r14, " + Cnt, "bar.sync %r14, %r16",
                                "bar.sync %r14, " + Cnt, "barrier.sync.aligned %r14, " + Cnt};
  std::string Body = prologue(2) + groups(G, SharedIds) +
                     "  add.s64 %rd0, %b0, %o4;\n  ld.global.u32 %r0, [%rd0];\n"
                     "  mov.u32 %r1, {K}_s;\n  shl.b32 %r2, %tid, 2;\n  add.u32 %r3, %r1, %r2;\n"
                     "  st.shared.u32 [%r3], %r0;\n  bar.sync %r14, %r16;\n";
  for (unsigned K = 0; K < Rounds; ++K) {
    const std::string Step = std::to_string(2 * K + 1);
    Body += "  add.u32 %r4, %r13, " + Step +
            ";\n  rem.u32 %r4, %r4, %r12;\n  add.u32 %r4, %r4, %r11;\n"
            "  shl.b32 %r4, %r4, 2;\n  add.u32 %r4, %r1, %r4;\n  ld.shared.u32 %r5, [%r4];\n  " +
            First[K] + ";\n  mad.lo.u32 %r0, %r5, 3, " + Step + ";\n" +
            delay("DELAY" + std::to_string(K)) + "  st.shared.u32 [%r3], %r0;\n  " + Second[K] +
            ";\n";
  }
  C.Body = Body + "  add.s64 %rd1, %b1, %o4;\n  st.global.u32 [%rd1], %r0;\n  ret;";
  C.Check = [=](const std::vector<Words> &In, const std::vector<Words> &Out) {
    Words W(In[0]);
    for (uint32_t Blk = 0; Blk < Blocks; ++Blk)
      for (unsigned K = 0; K < Rounds; ++K) {
        Words Next(B);
        for (uint32_t T = 0; T < B; ++T) {
          const Group Gr = groupOf(T, B, G);
          Next[T] = W[Blk * B + Gr.First + (T - Gr.First + 2 * K + 1) % Gr.Threads] * 3 + 2 * K + 1;
        }
        std::copy(Next.begin(), Next.end(), W.begin() + Blk * B);
      }
    return compare({Expected(W.begin(), W.end())}, Out, 1, 1);
  };
  return C;
}

/// Producer warps fill a buffer, bar.arrive on "full" and wait on "empty"; consumer warps wait on
/// "full", read and arrive on "empty" (ids 1 and 2, a count of every producer and consumer).
/// First the whole block meets at barrier 4 without a count; the threads after the consumers
/// (if any) then exchange among themselves on barrier 4 with their own count.
KernelCase producerConsumer(uint32_t ProducerWarps, uint32_t ConsumerWarps, uint32_t Idle) {
  const uint32_t Blocks = 3, Rounds = 4, Pt = 32 * ProducerWarps, Ct = 32 * ConsumerWarps;
  const uint32_t B = Pt + Ct + Idle, N = Blocks * B;
  const std::string Cnt = std::to_string(Pt + Ct), Bs = std::to_string(B);
  const std::string IdleCount = std::to_string((Idle + 31) / 32 * 32);
  const std::string R = std::to_string(Rounds);
  KernelCase C;
  C.Name = "bar.arrive/bar.sync " + std::to_string(ProducerWarps) + " producer and " +
           std::to_string(ConsumerWarps) + " consumer warps, " + std::to_string(Idle) +
           " other threads";
  C.Grid = {Blocks};
  C.Block = {B};
  C.Globals = ".shared .align 4 .b32 {K}_data[" + std::to_string(Ct) +
              "];\n.shared .align 4 .b32 {K}_all[" + Bs + "];\n.shared .align 4 .b32 {K}_idle[" +
              std::to_string(std::max(Idle, 1u)) + "];\n";
  C.Buffers = {randomWords(Blocks * Rounds * Ct, 0xc0 + B), Words(N, Sentinel), Words(N, Sentinel)};
  // Everyone: the next thread's word through the whole block's barrier 4.
  std::string Body = prologue(3) +
                     "  mov.u32 %r1, {K}_data;\n  mov.u32 %r2, {K}_all;\n  mov.u32 %r9, " + Cnt +
                     ";\n  mad.lo.u32 %r15, %tid, 7, %cta;\n  shl.b32 %r16, %tid, 2;\n"
                     "  add.u32 %r16, %r2, %r16;\n  st.shared.u32 [%r16], %r15;\n"
                     "  bar.sync 4;\n  add.u32 %r17, %tid, 1;\n  rem.u32 %r17, %r17, %ntid;\n"
                     "  shl.b32 %r17, %r17, 2;\n  add.u32 %r17, %r2, %r17;\n"
                     "  ld.shared.u32 %r18, [%r17];\n"
                     "  add.s64 %rd2, %b2, %o4;\n  st.global.u32 [%rd2], %r18;\n";
  if (Idle)
    Body += "  setp.ge.u32 %p0, %tid, " + Cnt + ";\n  @%p0 bra IDLE;\n";
  // Consumers: acc = acc * 5 + the round's word.
  Body += "  setp.lt.u32 %p1, %tid, " + std::to_string(Pt) +
          ";\n  @%p1 bra PRODUCER;\n  mov.u32 %r3, 0;\n  mov.u32 %r4, 0;\n"
          "  sub.u32 %r5, %tid, " +
          std::to_string(Pt) +
          ";\n  shl.b32 %r5, %r5, 2;\n  add.u32 %r5, %r1, %r5;\n"
          "CLOOP:\n  bar.sync 1, " +
          Cnt +
          ";\n  ld.shared.u32 %r6, [%r5];\n  mad.lo.u32 %r3, %r3, 5, %r6;\n"
          "  add.u32 %r4, %r4, 1;\n  setp.lt.u32 %p2, %r4, " +
          R +
          ";\n  @!%p2 bra CDONE;\n  barrier.arrive 2, %r9;\n  bra.uni CLOOP;\n"
          "CDONE:\n  mov.u32 %r0, %r3;\n  bra.uni END;\n";
  // Producers: round r fills the buffer from buf0[(cta * Rounds + r) * Ct].
  Body += "PRODUCER:\n  mov.u32 %r4, 0;\n"
          "PLOOP:\n  setp.ne.u32 %p3, %r4, 0;\n  @%p3 barrier.sync 2, " +
          Cnt + ";\n  mad.lo.u32 %r7, %cta, " + R + ", %r4;\n  mul.lo.u32 %r7, %r7, " +
          std::to_string(Ct) + ";\n  mov.u32 %r8, %tid;\n" + delay("DELAY") +
          "FILL:\n  add.u32 %r10, %r7, %r8;\n  mul.wide.u32 %rd0, %r10, 4;\n"
          "  add.s64 %rd0, %b0, %rd0;\n  ld.global.u32 %r11, [%rd0];\n"
          "  shl.b32 %r12, %r8, 2;\n  add.u32 %r12, %r1, %r12;\n"
          "  st.shared.u32 [%r12], %r11;\n  add.u32 %r8, %r8, " +
          std::to_string(Pt) + ";\n  setp.lt.u32 %p4, %r8, " + std::to_string(Ct) +
          ";\n  @%p4 bra FILL;\n  bar.arrive 1, %r9;\n  add.u32 %r4, %r4, 1;\n"
          "  setp.lt.u32 %p5, %r4, " +
          R + ";\n  @%p5 bra PLOOP;\n  mov.u32 %r0, %r4;\n";
  // The other threads: a neighbour's id through barrier 4 with their own count.
  if (Idle)
    Body += "  bra.uni END;\nIDLE:\n  mov.u32 %r12, {K}_idle;\n  sub.u32 %r13, %tid, " + Cnt +
            ";\n  shl.b32 %r14, %r13, 2;\n  add.u32 %r14, %r12, %r14;\n"
            "  st.shared.u32 [%r14], %tid;\n  bar.sync 4, " +
            IdleCount + ";\n  add.u32 %r13, %r13, 1;\n  rem.u32 %r13, %r13, " +
            std::to_string(Idle) +
            ";\n  shl.b32 %r13, %r13, 2;\n"
            "  add.u32 %r13, %r12, %r13;\n  ld.shared.u32 %r0, [%r13];\n";
  C.Body = Body + "END:\n  add.s64 %rd1, %b1, %o4;\n  st.global.u32 [%rd1], %r0;\n  ret;";
  C.Check = [=](const std::vector<Words> &In, const std::vector<Words> &Out) {
    Words Result(N), Next(N);
    for (uint32_t Blk = 0; Blk < Blocks; ++Blk)
      for (uint32_t T = 0; T < B; ++T) {
        uint32_t &V = Result[Blk * B + T];
        if (T < Pt) {
          V = Rounds;
        } else if (T < Pt + Ct) {
          V = 0;
          for (uint32_t Round = 0; Round < Rounds; ++Round)
            V = V * 5 + In[0][(Blk * Rounds + Round) * Ct + T - Pt];
        } else {
          V = Pt + Ct + (T - Pt - Ct + 1) % Idle;
        }
        Next[Blk * B + T] = (T + 1) % B * 7 + Blk;
      }
    return compare({Expected(Result.begin(), Result.end()), Expected(Next.begin(), Next.end())},
                   Out, 1, 1);
  };
  return C;
}

/// bar.red/barrier.red popc, and, or in each group of warps, on the group's barriers, twice with
/// other predicates (the reduction starts afresh each time).
KernelCase groupReductions(uint32_t B, uint32_t G, bool SharedIds) {
  const uint32_t Blocks = 5, N = Blocks * B;
  KernelCase C;
  const std::string Bs = std::to_string(B), Cnt = std::to_string(32 * G);
  C.Name = "bar.red groups of " + std::to_string(G) + " warps" +
           (SharedIds ? " on one id" : ", id per group") + ", block " + Bs;
  C.Grid = {Blocks};
  C.Block = {B};
  std::mt19937_64 R(0xbed + B + G);
  Words P(N);
  for (uint32_t I = 0; I < N; ++I) {
    const uint32_t Blk = I / B, T = I % B;
    P[I] = Blk == 0 ? 0 : Blk == 1 ? 1 : Blk == 2 ? T % 32 == 5 : uint32_t(R() % 2);
  }
  C.Buffers = {P, Words(4 * N, Sentinel)};
  C.Body = prologue(2) + groups(G, SharedIds) +
           "  add.s64 %rd0, %b0, %o4;\n  ld.global.u32 %r0, [%rd0];\n"
           "  setp.ne.u32 %p0, %r0, 0;\n  and.b32 %r1, %tid, 1;\n"
           "  setp.ne.u32 %p1, %r1, 0;\n  xor.pred %p1, %p1, %p0;\n" +
           delay("DELAY") +
           "  bar.red.popc.u32 %r2, %r14, %r16, %p0;\n"
           "  bar.red.and.pred %p2, %r15, " +
           Cnt +
           ", %p0;\n"
           "  barrier.red.or.pred %p3, %r14, %r16, %p1;\n"
           "  barrier.red.popc.u32 %r3, %r15, %r16, !%p1;\n"
           "  selp.u32 %r4, 1, 0, %p2;\n  selp.u32 %r5, 1, 0, %p3;\n"
           "  mul.wide.u32 %rd1, %gid, 16;\n  add.s64 %rd1, %b1, %rd1;\n"
           "  st.global.v4.u32 [%rd1], {%r2, %r4, %r5, %r3};\n  ret;";
  C.Check = [=](const std::vector<Words> &In, const std::vector<Words> &Out) {
    Words W(4 * N);
    for (uint32_t Blk = 0; Blk < Blocks; ++Blk)
      for (uint32_t T = 0; T < B; ++T) {
        const Group Gr = groupOf(T, B, G);
        uint32_t Pop = 0, NotPop = 0;
        bool All = true, Any = false;
        for (uint32_t U = Gr.First; U < Gr.First + Gr.Threads; ++U) {
          const bool P0 = In[0][Blk * B + U] != 0, P1 = (U & 1) != P0;
          Pop += P0, All &= P0, Any |= P1, NotPop += !P1;
        }
        uint32_t *Row = &W[4 * (Blk * B + T)];
        Row[0] = Pop, Row[1] = All, Row[2] = Any, Row[3] = NotPop;
      }
    return compare({Expected(W.begin(), W.end())}, Out, 1, 4);
  };
  return C;
}

} // namespace

KernelFamily namedBarriers() {
  KernelFamily F{"barriers", {}};
  F.Cases = {groupRounds(256, 2, false),     groupRounds(192, 3, false),
             groupRounds(112, 2, false),     groupRounds(80, 1, false),
             groupRounds(128, 1, true),      producerConsumer(2, 2, 0),
             producerConsumer(2, 4, 48),     groupReductions(192, 3, false),
             groupReductions(112, 2, false), groupReductions(128, 1, true)};
  return F;
}

} // namespace conformance
