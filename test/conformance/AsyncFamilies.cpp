// The `async` family: mbarrier phases and transaction counts, arrive / test_wait / try_wait
// (.parity) mixes, pending_count, cp.async.bulk copies in both directions and
// cp.reduce.async.bulk. References follow the PTX ISA: a phase completes when its pending
// arrivals and its transaction count are both zero; the state an arrive returns is the mbarrier
// before the arrival; test_wait/try_wait tell whether the phase of a state (or of a parity)
// completed. Waiting loops sleep (nanosleep, or try_wait's own wait), as CUDA's libraries do.
#include "Families.h"
#include "KernelHarness.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace conformance {

namespace {

constexpr uint32_t Sentinel = 0xdeadbeef;

/// Declarations and indices: %tid, %ntid, %cta, %gid (launch-wide), %warp, %lane, %o4 = %gid * 4,
/// %b<J> = buffer J. Scratch: %r<24>, %rd<8>, %p<8>.
std::string prologue(unsigned Buffers) {
  std::ostringstream S;
  S << "  .reg .b32 %gid, %tid, %ntid, %cta, %warp, %lane, %r<24>;\n"
    << "  .reg .b64 %o4, %rd<8>, %b<" << Buffers << ">;\n  .reg .pred %p<8>;\n"
    << "  mov.u32 %cta, %ctaid.x;\n  mov.u32 %ntid, %ntid.x;\n  mov.u32 %tid, %tid.x;\n"
    << "  mad.lo.u32 %gid, %cta, %ntid, %tid;\n  mul.wide.u32 %o4, %gid, 4;\n"
    << "  shr.u32 %warp, %tid, 5;\n  and.b32 %lane, %tid, 31;\n";
  for (unsigned J = 0; J < Buffers; ++J)
    S << "  ld.param.u64 %b" << J << ", [buf" << J << "];\n";
  return S.str();
}

/// Warp-dependent delay ((warp % 4) * 3 warp barriers): on the host device the warps fall out
/// of step, so a wait that does not wait lets readers see stale words.
std::string delay(const std::string &Label) {
  return "  and.b32 %r20, %warp, 3;\n  mul.lo.u32 %r20, %r20, 3;\n" + Label +
         ":\n  setp.eq.u32 %p7, %r20, 0;\n  @%p7 bra " + Label +
         "_END;\n  bar.warp.sync -1;\n  sub.u32 %r20, %r20, 1;\n  bra " + Label + ";\n" + Label +
         "_END:\n";
}

/// A wait for the phase of parity \p Parity (a register or immediate) of the mbarrier at \p Bar:
/// try_wait.parity in a loop, or test_wait.parity with nanosleep.
std::string waitParity(const std::string &Label, const std::string &Bar, const std::string &Parity,
                       bool Try) {
  if (Try)
    return Label + ":\n  mbarrier.try_wait.parity.shared::cta.b64 %p6, [" + Bar + "], " + Parity +
           ";\n  @!%p6 bra " + Label + ";\n";
  return Label + ":\n  mbarrier.test_wait.parity.shared.b64 %p6, [" + Bar + "], " + Parity +
         ";\n  @%p6 bra " + Label + "_END;\n  nanosleep.u32 20;\n  bra " + Label + ";\n" + Label +
         "_END:\n";
}

std::string compare(const Expected &Want, const std::vector<Words> &Out, size_t Buffer,
                    unsigned PerThread) {
  auto Describe = [PerThread](size_t I) {
    return "thread " + std::to_string(I / PerThread) + " word " + std::to_string(I % PerThread);
  };
  return compareWords("buf" + std::to_string(Buffer), Want, Out[Buffer], Describe);
}

/// Rounds of exchanges through shared memory on one mbarrier of the block's threads (double
/// buffered: one phase per round). Each round's arrival and wait take another form: arrive and
/// test_wait on its state, arrive with a count of one and try_wait.parity, arrive.release.cta
/// and test_wait.parity, the `.shared::cta` arrive with try_wait on its state.
KernelCase phaseRounds(uint32_t B) {
  const uint32_t Blocks = 3, N = Blocks * B, Rounds = 4;
  const std::string Bs = std::to_string(B);
  KernelCase C;
  C.Name = "mbarrier phases, block " + Bs;
  C.Grid = {Blocks};
  C.Block = {B};
  C.Globals = ".shared .align 8 .b64 {K}_bar;\n.shared .align 4 .b32 {K}_s[" +
              std::to_string(2 * B) + "];\n";
  C.Buffers = {randomWords(N, 0xa5 + B), Words(N, Sentinel)};
  std::string Body = prologue(2) +
                     "  setp.eq.u32 %p0, %tid, 0;\n  @%p0 mbarrier.init.shared.b64 [{K}_bar], " +
                     "%ntid;\n  bar.sync 0;\n  add.s64 %rd0, %b0, %o4;\n"
                     "  ld.global.u32 %r0, [%rd0];\n  mov.u32 %r1, {K}_s;\n";
  const std::string Arrive[] = {"mbarrier.arrive.shared.b64 %rd1, [{K}_bar]",
                                "mbarrier.arrive.shared::cta.b64 %rd1, [{K}_bar], 1",
                                "mbarrier.arrive.release.cta.shared::cta.b64 %rd1, [{K}_bar]",
                                "mbarrier.arrive.shared::cta.b64 %rd1, [{K}_bar], 1"};
  for (unsigned K = 0; K < Rounds; ++K) {
    const std::string R = std::to_string(K), Step = std::to_string(2 * K + 1);
    const std::string Half = std::to_string((K % 2) * B * 4);
    Body += "  shl.b32 %r2, %tid, 2;\n  add.u32 %r2, %r2, " + Half +
            ";\n  add.u32 %r2, %r1, %r2;\n" + delay("DELAY" + R) +
            "  st.shared.u32 [%r2], %r0;\n  " + Arrive[K] + ";\n";
    const std::string L = "WAIT" + R;
    if (K == 0)
      Body += L + ":\n  mbarrier.test_wait.shared.b64 %p1, [{K}_bar], %rd1;\n  @%p1 bra " + L +
              "_END;\n  nanosleep.u32 10;\n  bra " + L + ";\n" + L + "_END:\n";
    else if (K == 3)
      Body += L + ":\n  mbarrier.try_wait.acquire.cta.shared::cta.b64 %p1, [{K}_bar], %rd1;\n" +
              "  @!%p1 bra " + L + ";\n";
    else
      Body += waitParity(L, "{K}_bar", std::to_string(K % 2), K == 1);
    Body += "  add.u32 %r3, %tid, " + Step + ";\n  rem.u32 %r3, %r3, %ntid;\n" +
            "  shl.b32 %r3, %r3, 2;\n  add.u32 %r3, %r3, " + Half +
            ";\n  add.u32 %r3, %r1, %r3;\n  ld.shared.u32 %r4, [%r3];\n"
            "  mad.lo.u32 %r0, %r4, 3, " +
            Step + ";\n";
  }
  C.Body = Body + "  add.s64 %rd2, %b1, %o4;\n  st.global.u32 [%rd2], %r0;\n  ret;";
  C.Check = [=](const std::vector<Words> &In, const std::vector<Words> &Out) {
    Words W(In[0]);
    for (uint32_t Blk = 0; Blk < Blocks; ++Blk)
      for (unsigned K = 0; K < Rounds; ++K) {
        Words Next(B);
        for (uint32_t T = 0; T < B; ++T)
          Next[T] = W[Blk * B + (T + 2 * K + 1) % B] * 3 + 2 * K + 1;
        std::copy(Next.begin(), Next.end(), W.begin() + Blk * B);
      }
    return compare(Expected(W.begin(), W.end()), Out, 1, 1);
  };
  return C;
}

/// Each thread drives an mbarrier of its own (count c = 2 + tid % 5) through phases and records
/// what the ISA makes observable: pending counts of states, waits on states and parities before
/// and after arrivals with counts, expect_tx/complete_tx (in either order), arrive.expect_tx,
/// arrive_drop (the next phases expect one arrival fewer).
KernelCase stateMachine() {
  const uint32_t B = 96, Words_ = 16;
  KernelCase C;
  C.Name = "mbarrier pending counts, transaction counts, arrive_drop";
  C.Block = {B};
  C.Globals = ".shared .align 8 .b64 {K}_bars[" + std::to_string(B) + "];\n";
  C.Buffers = {Words(B * Words_, Sentinel)};
  // %r1 = c, %r2 = the mbarrier, %rd1 = out row; each recorded value: one word.
  std::string Body = prologue(1) +
                     "  rem.u32 %r1, %tid, 5;\n  add.u32 %r1, %r1, 2;\n"
                     "  mov.u32 %r2, {K}_bars;\n  shl.b32 %r3, %tid, 3;\n  add.u32 %r2, %r2, %r3;\n"
                     "  mul.wide.u32 %rd1, %tid, " +
                     std::to_string(4 * Words_) +
                     ";\n  add.s64 %rd1, %b0, %rd1;\n"
                     "  mbarrier.init.shared::cta.b64 [%r2], %r1;\n";
  // Instructions, and the values recorded (in order, one word each).
  unsigned Slot = 0;
  auto Do = [&](const std::string &Text) { Body += "  " + Text + ";\n"; };
  auto Word = [&](const std::string &Reg) {
    Do("st.global.u32 [%rd1+" + std::to_string(4 * Slot++) + "], " + Reg);
  };
  auto Pending = [&](const std::string &State) {
    Do("mbarrier.pending_count.b64 %r4, " + State);
    Word("%r4");
  };
  auto Pred = [&](const std::string &Wait) {
    Do(Wait);
    Do("selp.u32 %r9, 1, 0, %p1");
    Word("%r9");
  };
  // Phase 0: one arrival, then c - 1 more in one arrive.
  Do("mbarrier.arrive.shared.b64 %rd2, [%r2]");
  Pending("%rd2");
  Pred("mbarrier.test_wait.shared.b64 %p1, [%r2], %rd2");
  Do("sub.u32 %r5, %r1, 1");
  Do("mbarrier.arrive.shared::cta.b64 %rd3, [%r2], %r5");
  Pending("%rd3");
  Pred("mbarrier.test_wait.shared.b64 %p1, [%r2], %rd2");
  Pred("mbarrier.test_wait.parity.shared.b64 %p1, [%r2], 0");
  Pred("mbarrier.try_wait.parity.shared.b64 %p1, [%r2], 1");
  // Phase 1: 100 bytes expected, every arrival, then the bytes in two parts.
  Do("mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%r2], 100");
  Do("mbarrier.arrive.relaxed.cta.shared::cta.b64 %rd4, [%r2], %r1");
  Pending("%rd4");
  Pred("mbarrier.test_wait.parity.shared.b64 %p1, [%r2], 1");
  Do("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r2], 60");
  Pred("mbarrier.test_wait.shared.b64 %p1, [%r2], %rd4");
  Do("mbarrier.complete_tx.relaxed.cta.shared::cluster.b64 [%r2], 40");
  Pred("mbarrier.test_wait.shared.b64 %p1, [%r2], %rd4");
  // Phase 2: the bytes completed before they are expected; arrive.expect_tx brings them back
  // to zero with the last arrival.
  Do("mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%r2], 48");
  Do("mbarrier.arrive.shared::cta.b64 %rd5, [%r2], %r5");
  Pred("mbarrier.test_wait.parity.shared::cta.b64 %p1, [%r2], 0");
  Do("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 %rd5, [%r2], 48");
  Pending("%rd5");
  Pred("mbarrier.test_wait.parity.shared::cta.b64 %p1, [%r2], 0");
  // Phase 3: arrive_drop of one, then c - 1 arrivals complete it; phase 4 expects c - 1.
  Do("mbarrier.arrive_drop.shared.b64 %rd6, [%r2]");
  Pending("%rd6");
  Do("mbarrier.arrive.shared::cta.b64 %rd6, [%r2], %r5");
  Pred("mbarrier.test_wait.parity.shared.b64 %p1, [%r2], 1");
  Do("mbarrier.arrive.shared.b64 %rd7, [%r2]");
  Pending("%rd7");
  C.Body = Body + "  mbarrier.inval.shared.b64 [%r2];\n  ret;";
  const unsigned Used = Slot;
  C.Check = [=](const std::vector<Words> &, const std::vector<Words> &Out) {
    Expected W(B * Words_);
    for (uint32_t T = 0; T < B; ++T) {
      const uint32_t Cnt = 2 + T % 5;
      const uint32_t Row[] = {Cnt, 0, Cnt - 1, 1, 1, 0, // phase 0
                              Cnt, 0, 0,       1,       // phase 1
                              0,   1, 1,                // phase 2
                              Cnt, 1, Cnt - 1};         // phase 3, then 4
      static_assert(sizeof Row / sizeof *Row == 16);
      for (unsigned K = 0; K < Used; ++K)
        W[T * Words_ + K] = Row[K];
    }
    return compare(W, Out, 0, Words_);
  };
  return C;
}

/// cp.async.bulk: each warp's first lane copies the warp's slice of the block's data from global
/// to shared memory with its bytes completed on the mbarrier, whose arrival from thread 0 expects
/// them all (`.shared::cluster` destination, cluster of one block); everyone waits, transforms
/// the word 32 threads on, and thread 0 copies the block back with a bulk group. Twice (phases 0
/// and 1).
KernelCase bulkCopies(uint32_t B) {
  // Each thread uses the word after its warp's slice: the copies of the other warps must be
  // waited for.
  const uint32_t Blocks = 2, N = Blocks * B, Rounds = 2;
  const std::string Bs = std::to_string(B);
  KernelCase C;
  C.Name = "cp.async.bulk global<->shared, mbarrier complete_tx, block " + Bs;
  C.Grid = {Blocks};
  C.Block = {B};
  C.Globals = ".shared .align 8 .b64 {K}_bar;\n.shared .align 16 .b32 {K}_s[" + Bs + "];\n";
  C.Buffers = {randomWords(Rounds * N, 0xb1 + B), Words(Rounds * N, Sentinel)};
  std::string Body =
      prologue(2) +
      "  setp.eq.u32 %p0, %tid, 0;\n  setp.eq.u32 %p1, %lane, 0;\n"
      "  @%p0 mbarrier.init.shared.b64 [{K}_bar], %ntid;\n"
      "  fence.proxy.async.shared::cta;\n  bar.sync 0;\n"
      "  mov.u32 %r1, {K}_s;\n  shl.b32 %r2, %tid, 2;\n  add.u32 %r2, %r1, %r2;\n"
      // This warp's slice: words [32 warp, min(32 warp + 32, B)).
      "  shl.b32 %r3, %warp, 5;\n  sub.u32 %r4, %ntid, %r3;\n  min.u32 %r4, %r4, 32;\n"
      "  shl.b32 %r4, %r4, 2;\n  shl.b32 %r5, %r3, 2;\n  add.u32 %r5, %r1, %r5;\n"
      "  shl.b32 %r6, %ntid, 2;\n"
      // The word the next warp's first lane copied.
      "  add.u32 %r10, %tid, 32;\n  rem.u32 %r10, %r10, %ntid;\n"
      "  shl.b32 %r10, %r10, 2;\n  add.u32 %r10, %r1, %r10;\n";
  for (unsigned K = 0; K < Rounds; ++K) {
    const std::string R = std::to_string(K);
    // Source: buf0[(K * Blocks + cta) * B + 32 warp].
    Body +=
        "  mad.lo.u32 %r7, %cta, %ntid, " + std::to_string(K * N) +
        ";\n  add.u32 %r8, %r7, %r3;\n  mul.wide.u32 %rd0, %r8, 4;\n  add.s64 %rd0, %b0, %rd0;\n" +
        delay("DELAY" + R) +
        "  @%p1 cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%r5], "
        "[%rd0], %r4, [{K}_bar];\n"
        "  @%p0 mbarrier.arrive.expect_tx.shared::cta.b64 %rd1, [{K}_bar], %r6;\n"
        "  @!%p0 mbarrier.arrive.shared.b64 %rd1, [{K}_bar];\n" +
        waitParity("WAIT" + R, "{K}_bar", R, K == 0) +
        "  ld.shared.u32 %r9, [%r10];\n  mad.lo.u32 %r9, %r9, 7, " + std::to_string(K + 1) +
        ";\n  bar.sync 0;\n  st.shared.u32 [%r2], %r9;\n  fence.proxy.async.shared::cta;\n"
        "  bar.sync 0;\n  mul.wide.u32 %rd2, %r7, 4;\n  add.s64 %rd2, %b1, %rd2;\n"
        "  @%p0 cp.async.bulk.global.shared::cta.bulk_group [%rd2], [%r1], %r6;\n"
        "  @%p0 cp.async.bulk.commit_group;\n  @%p0 cp.async.bulk.wait_group.read 0;\n"
        "  bar.sync 0;\n";
  }
  C.Body = Body + "  @%p0 cp.async.bulk.wait_group 0;\n  ret;";
  C.Check = [=](const std::vector<Words> &In, const std::vector<Words> &Out) {
    Words W(Rounds * N);
    for (uint32_t K = 0; K < Rounds; ++K)
      for (uint32_t I = 0; I < N; ++I)
        W[K * N + I] = In[0][K * N + I / B * B + (I % B + 32) % B] * 7 + K + 1;
    return compare(Expected(W.begin(), W.end()), Out, 1, 1);
  };
  return C;
}

struct Reduction {
  const char *Op, *Type;
  unsigned Bits;
  uint64_t (*Ref)(uint64_t Old, uint64_t Src);
};

template <typename T> T as(uint64_t V) {
  T R;
  std::memcpy(&R, &V, sizeof R);
  return R;
}
template <typename T> uint64_t bits(T V) {
  uint64_t R = 0;
  std::memcpy(&R, &V, sizeof V);
  return R;
}

const Reduction Reductions[] = {
    {"add", "u32", 32, [](uint64_t A, uint64_t S) { return uint64_t(uint32_t(A + S)); }},
    {"min", "s32", 32,
     [](uint64_t A, uint64_t S) { return uint64_t(uint32_t(std::min(int32_t(A), int32_t(S)))); }},
    {"max", "u32", 32, [](uint64_t A, uint64_t S) { return std::max(A, S); }},
    {"inc", "u32", 32, [](uint64_t A, uint64_t S) { return A >= S ? 0 : A + 1; }},
    {"dec", "u32", 32, [](uint64_t A, uint64_t S) { return A == 0 || A > S ? S : A - 1; }},
    {"and", "b32", 32, [](uint64_t A, uint64_t S) { return A & S; }},
    {"or", "b32", 32, [](uint64_t A, uint64_t S) { return A | S; }},
    {"xor", "b32", 32, [](uint64_t A, uint64_t S) { return A ^ S; }},
    {"add", "f32", 32, [](uint64_t A, uint64_t S) { return bits(as<float>(A) + as<float>(S)); }},
    {"add", "u64", 64, [](uint64_t A, uint64_t S) { return A + S; }},
    {"min", "s64", 64,
     [](uint64_t A, uint64_t S) { return uint64_t(std::min(int64_t(A), int64_t(S))); }},
    {"max", "u64", 64, [](uint64_t A, uint64_t S) { return std::max(A, S); }},
    {"and", "b64", 64, [](uint64_t A, uint64_t S) { return A & S; }},
    {"add", "f64", 64, [](uint64_t A, uint64_t S) { return bits(as<double>(A) + as<double>(S)); }},
};

/// cp.reduce.async.bulk into global memory (a bulk group) or, with \p ToShared, into shared
/// memory with completion on an mbarrier (then copied out): each warp's first lane reduces its
/// warp's slice of shared data into the destination; every element is reduced once, so the
/// reference is the operation on the element's old value and the source.
KernelCase bulkReduction(const Reduction &R, bool ToShared) {
  const uint32_t B = 64, Per = R.Bits / 32, N = B * Per;
  const std::string Name = std::string(R.Op) + "." + R.Type;
  const std::string Bytes = std::to_string(32 * 4 * Per), Total = std::to_string(4 * N);
  KernelCase C;
  C.Name = "cp.reduce.async.bulk." + Name + (ToShared ? " to shared" : " to global");
  C.Block = {B};
  C.Globals = ".shared .align 8 .b64 {K}_bar;\n.shared .align 16 .b32 {K}_s[" + std::to_string(N) +
              "];\n.shared .align 16 .b32 {K}_d[" + std::to_string(N) + "];\n";
  Words Src = randomWords(N, 0xc1 + R.Bits), Dst = randomWords(N, 0xd1 + R.Bits);
  // Small values too, so that inc/dec and min/max meet every comparison.
  for (uint32_t I = 0; I < N; I += 4)
    Src[I] %= 8, Dst[I] %= 8;
  if (std::strcmp(R.Type, "f32") == 0 || std::strcmp(R.Type, "f64") == 0)
    for (uint32_t I = Per - 1; I < N; I += Per)
      Src[I] &= 0xbfffffff, Dst[I] &= 0xbfffffff; // finite values
  C.Buffers = {Src, Dst};
  std::string Copy = "  mov.u32 %r1, {K}_s;\n  shl.b32 %r2, %tid, " + std::to_string(1 + Per) +
                     ";\n  mul.wide.u32 %rd0, %tid, " + std::to_string(4 * Per) +
                     ";\n  add.s64 %rd1, %b0, %rd0;\n  add.s64 %rd2, %b1, %rd0;\n";
  const std::string Elem = Per == 2 ? "u64" : "u32", V = Per == 2 ? "%rd3" : "%r10";
  std::string Body = prologue(2) + "  setp.eq.u32 %p0, %tid, 0;\n  setp.eq.u32 %p1, %lane, 0;\n" +
                     Copy + "  add.u32 %r3, %r1, %r2;\n  ld.global." + Elem + " " + V +
                     ", [%rd1];\n" + "  st.shared." + Elem + " [%r3], " + V + ";\n";
  // The warp's slice in the source and the destination.
  const std::string Slice =
      "  shl.b32 %r4, %warp, " + std::to_string(7 + Per - 1) + ";\n  add.u32 %r5, %r1, %r4;\n";
  if (!ToShared) {
    Body += "  bar.sync 0;\n" + Slice + "  cvt.u64.u32 %rd4, %r4;\n  add.s64 %rd4, %b1, %rd4;\n" +
            "  @%p1 cp.reduce.async.bulk.global.shared::cta.bulk_group." + Name +
            " [%rd4], [%r5], " + Bytes + ";\n  @%p1 cp.async.bulk.commit_group;\n" +
            "  @%p1 cp.async.bulk.wait_group 0;\n  ret;";
  } else {
    Body +=
        "  mov.u32 %r6, {K}_d;\n  add.u32 %r7, %r6, %r2;\n  ld.global." + Elem + " " + V +
        ", [%rd2];\n  st.shared." + Elem + " [%r7], " + V + ";\n" +
        "  @%p0 mbarrier.init.shared.b64 [{K}_bar], 1;\n  bar.sync 0;\n" + Slice +
        "  add.u32 %r8, %r6, %r4;\n"
        "  @%p1 cp.reduce.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes." +
        Name + " [%r8], [%r5], " + Bytes + ", [{K}_bar];\n" +
        "  @%p0 mbarrier.arrive.expect_tx.shared::cta.b64 %rd5, [{K}_bar], " + Total + ";\n" +
        waitParity("WAIT", "{K}_bar", "0", true) +
        // The element 32 threads on, which the next warp's first lane reduced.
        "  add.u32 %r9, %r2, " + std::to_string(128 * Per) + ";\n  rem.u32 %r9, %r9, " +
        std::to_string(4 * N) + ";\n  add.u32 %r9, %r6, %r9;\n  ld.shared." + Elem + " " + V +
        ", [%r9];\n  st.global." + Elem + " [%rd2], " + V + ";\n  ret;";
  }
  C.Body = Body;
  C.Check = [=](const std::vector<Words> &In, const std::vector<Words> &Out) {
    Expected W(N);
    for (uint32_t I = 0; I < N; I += Per) {
      const uint32_t From = ToShared ? (I + 32 * Per) % N : I;
      uint64_t A = In[1][From], S = In[0][From];
      if (Per == 2)
        A |= uint64_t(In[1][From + 1]) << 32, S |= uint64_t(In[0][From + 1]) << 32;
      const uint64_t V = R.Ref(A, S);
      W[I] = uint32_t(V);
      if (Per == 2)
        W[I + 1] = uint32_t(V >> 32);
    }
    return compare(W, Out, 1, Per);
  };
  return C;
}

} // namespace

KernelFamily asyncCopies() {
  KernelFamily F{"async", {}};
  F.Cases = {phaseRounds(128), phaseRounds(80), stateMachine(), bulkCopies(128), bulkCopies(96)};
  for (const Reduction &R : Reductions)
    F.Cases.push_back(bulkReduction(R, false));
  F.Cases.push_back(bulkReduction(Reductions[0], true));
  F.Cases.push_back(bulkReduction(Reductions[13], true));
  F.Cases.push_back(bulkReduction(Reductions[7], true));
  return F;
}

} // namespace conformance
