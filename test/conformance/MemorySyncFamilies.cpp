// Memory families of work-items sharing memory: atomics under contention from many work-items
// and workgroups, whose returned old values must form one serial order per location, and
// barriers. References follow the PTX ISA (MemorySupport.h).
#include "MemorySupport.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <map>
#include <random>
#include <sstream>

namespace conformance::memory_families {

// --- atomics under contention ----------------------------------------------------------------

enum class Space { Global, Shared, GenericGlobal, GenericShared };

/// One read-modify-write: its PTX (`{old}`, `{a}`, `{v}`, `{v2}` and `{sp}` = ".global",
/// ".shared" or "" are filled in), its value width and semantics, and how the values are drawn.
struct Rmw {
  std::string Name, Ptx;
  unsigned Bits;
  std::function<uint64_t(uint64_t Old, uint64_t V, uint64_t V2)> F;
  std::function<uint64_t(std::mt19937_64 &, uint32_t Gid)> Value, Value2;
  uint64_t Init;
  bool Red = false; ///< no old value to check
};

std::string fill(std::string T, const std::map<std::string, std::string> &With) {
  for (const auto &[Key, Value] : With)
    for (size_t At = T.find(Key); At != std::string::npos; At = T.find(Key, At + Value.size()))
      T.replace(At, Key.size(), Value);
  return T;
}

/// Whether the old values of the accesses to one location form one serial order from \p Init
/// that ends at \p Final: each access saw the value the one before it left.
std::string serialOrder(const Rmw &Op, uint64_t Init, uint64_t Final,
                        const std::vector<std::array<uint64_t, 3>> &Accesses) {
  const uint64_t M = mask(Op.Bits);
  std::multimap<uint64_t, std::pair<uint64_t, uint64_t>> ByOld;
  for (const auto &[V, V2, Old] : Accesses)
    ByOld.emplace(Old & M, std::pair{V, V2});
  uint64_t Cur = Init & M;
  while (!ByOld.empty()) {
    auto [Lo, Hi] = ByOld.equal_range(Cur);
    if (Lo == Hi)
      return "no access saw " + std::to_string(Cur) + " (" + std::to_string(ByOld.size()) +
             " accesses left, e.g. one saw " + std::to_string(ByOld.begin()->first) + ")";
    // Accesses that leave the value alone go first: the others cannot return to it.
    auto Pick = Lo;
    for (auto I = Lo; I != Hi; ++I)
      if ((Op.F(Cur, I->second.first, I->second.second) & M) == Cur) {
        Pick = I;
        break;
      }
    Cur = Op.F(Cur, Pick->second.first, Pick->second.second) & M;
    ByOld.erase(Pick);
  }
  if (Cur != (Final & M))
    return "the serial order ends at " + std::to_string(Cur) + ", the location holds " +
           std::to_string(Final & M);
  return {};
}

KernelCase atomicCase(const Rmw &Op, Space Sp, uint64_t Seed) {
  const bool Shared = Sp == Space::Shared || Sp == Space::GenericShared;
  const uint32_t Blocks = Shared ? 4 : 8, B = Shared ? 256 : 128, N = Blocks * B;
  const uint32_t Slots = Shared ? 2 : 4, SlotWords = 2 * (Shared ? Blocks * Slots : Slots);
  static const char *SpaceNames[] = {"global", "shared", "generic global", "generic shared"};
  KernelCase C;
  C.Name = Op.Name + " " + SpaceNames[int(Sp)];
  C.Grid = {Blocks};
  C.Block = {B};
  std::mt19937_64 R(Seed);
  Words V(2 * N), V2(2 * N), Slot(SlotWords);
  for (uint32_t I = 0; I < N; ++I) {
    const uint64_t X = Op.Value(R, I), Y = Op.Value2 ? Op.Value2(R, I) : 0;
    V[2 * I] = uint32_t(X), V[2 * I + 1] = uint32_t(X >> 32);
    V2[2 * I] = uint32_t(Y), V2[2 * I + 1] = uint32_t(Y >> 32);
  }
  // A 32-bit access must leave the high half of its 8-byte slot alone.
  for (uint32_t I = 0; I < SlotWords / 2; ++I)
    Slot[2 * I] = uint32_t(Op.Init),
             Slot[2 * I + 1] = Op.Bits == 64 ? uint32_t(Op.Init >> 32) : 0x5a5a5a5a;
  C.Buffers = {V, V2, Slot, Words(2 * N, Sentinel)};
  const bool Wide = Op.Bits == 64;
  const std::string Reg = Wide ? "%rd" : "%r";
  C.Globals = Shared ? ".shared .align 8 .b64 {K}_s[2];\n" : "";
  std::string Body = prologue(4) + "  .reg .b32 %old32;\n  .reg .b64 %old64;\n";
  Body += "  add.s64 %rd0, %b0, %o8;\n  ld.global.u64 %rd11, [%rd0];\n"
          "  add.s64 %rd0, %b1, %o8;\n  ld.global.u64 %rd12, [%rd0];\n"
          "  cvt.u32.u64 %r11, %rd11;\n  cvt.u32.u64 %r12, %rd12;\n";
  std::string Addr;
  if (!Shared) {
    Body += "  rem.u32 %r2, %gid, " + std::to_string(Slots) +
            ";\n  mul.wide.u32 %rd4, %r2, 8;\n  add.s64 %rd5, %b2, %rd4;\n";
    Addr = "%rd5";
    if (Sp == Space::GenericGlobal)
      Body += "  cvta.to.global.u64 %rd5, %rd5;\n  cvta.global.u64 %rd6, %rd5;\n", Addr = "%rd6";
  } else {
    // The block's slots, copied in and out around the contention.
    Body += "  rem.u32 %r2, %tid, " + std::to_string(Slots) +
            ";\n  mov.u32 %r3, {K}_s;\n  shl.b32 %r4, %r2, 3;\n  add.u32 %r5, %r3, %r4;\n"
            "  mad.lo.u32 %r6, %cta, " +
            std::to_string(Slots) +
            ", %r2;\n  mul.wide.u32 %rd4, %r6, 8;\n  add.s64 %rd5, %b2, %rd4;\n"
            "  setp.lt.u32 %p1, %tid, " +
            std::to_string(Slots) +
            ";\n  @%p1 ld.global.u64 %rd7, [%rd5];\n  @%p1 st.shared.u64 [%r5], %rd7;\n"
            "  bar.sync 0;\n";
    Addr = "%r5";
    if (Sp == Space::GenericShared)
      Body += "  cvt.u64.u32 %rd8, %r5;\n  cvta.shared.u64 %rd6, %rd8;\n", Addr = "%rd6";
  }
  const std::string SpaceSuffix = Sp == Space::Global   ? ".global"
                                  : Sp == Space::Shared ? ".shared"
                                                        : "";
  Body += fill(Op.Ptx, {{"{old}", Wide ? "%old64" : "%old32"},
                        {"{a}", Addr},
                        {"{v}", Reg + "11"},
                        {"{v2}", Reg + "12"},
                        {"{sp}", SpaceSuffix}}) +
          "\n";
  if (!Op.Red)
    Body += std::string(Wide ? "" : "  cvt.u64.u32 %old64, %old32;\n") +
            "  add.s64 %rd9, %b3, %o8;\n  st.global.u64 [%rd9], %old64;\n";
  if (Shared)
    Body += "  bar.sync 0;\n  @%p1 ld.shared.u64 %rd7, [%r5];\n  @%p1 st.global.u64 [%rd5], "
            "%rd7;\n";
  C.Body = Body + "  ret;";
  C.Check = [Op, N, B, Slots, Shared](const std::vector<Words> &In,
                                      const std::vector<Words> &Out) -> std::string {
    auto Q = [](const Words &W, size_t I) {
      return uint64_t(W[2 * I]) | uint64_t(W[2 * I + 1]) << 32;
    };
    const uint64_t M = mask(Op.Bits);
    std::map<size_t, std::vector<std::array<uint64_t, 3>>> BySlot;
    for (uint32_t I = 0; I < N; ++I) {
      const size_t S = Shared ? I / B * Slots + I % B % Slots : I % Slots;
      BySlot[S].push_back({Q(In[0], I) & M, Q(In[1], I) & M, Q(Out[3], I)});
    }
    for (auto &[S, Accesses] : BySlot) {
      const uint64_t Init = Q(In[2], S), Final = Q(Out[2], S);
      const std::string Where = "slot " + std::to_string(S) + ": ";
      if ((Final & ~M) != (Init & ~M))
        return Where + "the high half of a 32-bit location changed";
      if (!Op.Red) {
        if (std::string R = serialOrder(Op, Init, Final, Accesses); !R.empty())
          return Where + R;
        continue;
      }
      uint64_t Want = Init & M; // red: the operations commute (or are all the same)
      for (const auto &A : Accesses)
        Want = Op.F(Want, A[0], A[1]) & M;
      if (Want != (Final & M))
        return Where + "expected " + std::to_string(Want) + " got " + std::to_string(Final & M);
    }
    return {};
  };
  return C;
}

std::vector<Rmw> rmws() {
  using R64 = std::mt19937_64;
  auto Small = [](R64 &R, uint32_t) { return 1 + R() % 4; };
  auto Wide = [](R64 &R, uint32_t) { return (R() >> 24) + 1; };
  auto Any = [](R64 &R, uint32_t) { return R() >> (R() % 2 ? 0 : 40); };
  auto Float = [](R64 &R, uint32_t) {
    return uint64_t(std::bit_cast<uint32_t>(float(1 + R() % 4)));
  };
  auto Const = [](uint64_t X) { return [X](R64 &, uint32_t) { return X; }; };
  auto Gid = [](R64 &, uint32_t G) { return uint64_t(G) + 1; };
  auto ClearBit = [](R64 &R, uint32_t) { return ~(1ull << R() % 64); };
  auto SetBit = [](R64 &R, uint32_t) { return 1ull << R() % 64; };
  auto Add = [](uint64_t O, uint64_t V, uint64_t) { return O + V; };
  auto FAdd = [](uint64_t O, uint64_t V, uint64_t) {
    return uint64_t(std::bit_cast<uint32_t>(std::bit_cast<float>(uint32_t(O)) +
                                            std::bit_cast<float>(uint32_t(V))));
  };
  auto Inc = [](uint64_t O, uint64_t V, uint64_t) {
    return uint32_t(O) >= uint32_t(V) ? 0 : O + 1;
  };
  auto Dec = [](uint64_t O, uint64_t V, uint64_t) {
    return O == 0 || uint32_t(O) > uint32_t(V) ? V : O - 1;
  };
  auto MinU = [](uint64_t O, uint64_t V, uint64_t) { return std::min(O, V); };
  auto MaxU = [](uint64_t O, uint64_t V, uint64_t) { return std::max(O, V); };
  auto MinS32 = [](uint64_t O, uint64_t V, uint64_t) { return int32_t(O) < int32_t(V) ? O : V; };
  auto MaxS32 = [](uint64_t O, uint64_t V, uint64_t) { return int32_t(O) > int32_t(V) ? O : V; };
  auto MaxS64 = [](uint64_t O, uint64_t V, uint64_t) { return int64_t(O) > int64_t(V) ? O : V; };
  auto And = [](uint64_t O, uint64_t V, uint64_t) { return O & V; };
  auto Or = [](uint64_t O, uint64_t V, uint64_t) { return O | V; };
  auto Xor = [](uint64_t O, uint64_t V, uint64_t) { return O ^ V; };
  auto Exch = [](uint64_t, uint64_t V, uint64_t) { return V; };
  auto Cas = [](uint64_t O, uint64_t Cmp, uint64_t New) { return O == Cmp ? New : O; };
  const std::string A = "  atom{sp}.", Args = " {old}, [{a}], {v};";
  const std::string Rd = "  red{sp}.", RArgs = " [{a}], {v};";
  std::vector<Rmw> L = {
      {"atom.add.u32", A + "add.u32" + Args, 32, Add, Small, {}, 0},
      {"atom.add.u64", A + "add.u64" + Args, 64, Add, Wide, {}, 0xffffff00},
      {"atom.add.f32", A + "add.f32" + Args, 32, FAdd, Float, {}, 0},
      {"atom.inc.u32", A + "inc.u32" + Args, 32, Inc, Const(37), {}, 0},
      {"atom.dec.u32", A + "dec.u32" + Args, 32, Dec, Const(37), {}, 5},
      {"atom.min.u32", A + "min.u32" + Args, 32, MinU, Any, {}, 0x80000000},
      {"atom.max.u32", A + "max.u32" + Args, 32, MaxU, Any, {}, 0x7fffffff},
      {"atom.min.s32", A + "min.s32" + Args, 32, MinS32, Any, {}, 0},
      {"atom.max.s32", A + "max.s32" + Args, 32, MaxS32, Any, {}, 0x80000000},
      {"atom.min.u64", A + "min.u64" + Args, 64, MinU, Any, {}, ~0ull},
      {"atom.max.s64", A + "max.s64" + Args, 64, MaxS64, Any, {}, 1ull << 63},
      {"atom.and.b32", A + "and.b32" + Args, 32, And, ClearBit, {}, ~0ull},
      {"atom.or.b32", A + "or.b32" + Args, 32, Or, SetBit, {}, 0},
      {"atom.xor.b32", A + "xor.b32" + Args, 32, Xor, Any, {}, 0x12345678},
      {"atom.and.b64", A + "and.b64" + Args, 64, And, ClearBit, {}, ~0ull},
      {"atom.or.b64", A + "or.b64" + Args, 64, Or, SetBit, {}, 0},
      {"atom.xor.b64", A + "xor.b64" + Args, 64, Xor, Any, {}, 1},
      {"atom.exch.b32", A + "exch.b32" + Args, 32, Exch, Gid, {}, 0},
      {"atom.exch.b64",
       A + "exch.b64" + Args,
       64,
       Exch,
       [](R64 &, uint32_t G) { return (uint64_t(G) + 1) << 32 | G; },
       {},
       0},
      {"atom.cas.b32 (one winner)", A + "cas.b32 {old}, [{a}], {v}, {v2};", 32, Cas, Const(0x1234),
       Gid, 0x1234},
      {"atom.cas.b64 (one winner)", A + "cas.b64 {old}, [{a}], {v}, {v2};", 64, Cas,
       Const(1ull << 40), Gid, 1ull << 40},
      // A compare-and-swap loop adding v: the successful swaps' old values form the order.
      {"atom.cas.b32 add loop",
       A +
           "cas.b32 {old}, [{a}], 0, 0;\n$RETRY:\n"
           "  add.u32 %r13, {old}, {v};\n  mov.u32 %r14, {old};\n" +
           A +
           "cas.b32 {old}, [{a}], %r14, %r13;\n"
           "  setp.ne.u32 %p2, {old}, %r14;\n  @%p2 bra $RETRY;",
       32,
       Add,
       Small,
       {},
       7},
      {"red.add.u32", Rd + "add.u32" + RArgs, 32, Add, Small, {}, 0, true},
      {"red.add.u64", Rd + "add.u64" + RArgs, 64, Add, Wide, {}, 0xffffff00, true},
      {"red.add.f32", Rd + "add.f32" + RArgs, 32, FAdd, Float, {}, 0, true},
      {"red.inc.u32", Rd + "inc.u32" + RArgs, 32, Inc, Const(37), {}, 0, true},
      {"red.dec.u32", Rd + "dec.u32" + RArgs, 32, Dec, Const(37), {}, 5, true},
      {"red.min.s32", Rd + "min.s32" + RArgs, 32, MinS32, Any, {}, 0, true},
      {"red.max.u64", Rd + "max.u64" + RArgs, 64, MaxU, Any, {}, 0, true},
      {"red.and.b32", Rd + "and.b32" + RArgs, 32, And, ClearBit, {}, ~0ull, true},
      {"red.or.b64", Rd + "or.b64" + RArgs, 64, Or, SetBit, {}, 0, true},
      {"red.xor.b32", Rd + "xor.b32" + RArgs, 32, Xor, Any, {}, 0, true},
  };
  return L;
}

KernelFamily atomics() {
  KernelFamily F{"memory-atomics", {}};
  uint64_t Seed = 0xa70;
  for (const Rmw &Op : rmws())
    for (Space S : {Space::Global, Space::Shared})
      F.Cases.push_back(atomicCase(Op, S, Seed++));
  for (const Rmw &Op : rmws())
    if (Op.Name == "atom.add.u32" || Op.Name == "atom.exch.b64" || Op.Name == "atom.add.f32")
      for (Space S : {Space::GenericGlobal, Space::GenericShared})
        F.Cases.push_back(atomicCase(Op, S, Seed++));
  return F;
}

// --- barriers ---------------------------------------------------------------------------------

/// Rounds of exchanges through shared memory, each between barriers of other forms and ids.
KernelCase barrierRounds(uint32_t B, bool Counted) {
  const uint32_t Blocks = 4, N = Blocks * B;
  KernelCase C;
  const std::string Bs = std::to_string(B);
  C.Name = Counted ? "bar.sync/barrier.sync with count = block (.reqntid " + Bs + ")"
                   : "bar.sync/barrier.sync ids 0-4, register id, block " + Bs;
  C.Grid = {Blocks};
  C.Block = {B};
  if (Counted)
    C.Directives = ".reqntid " + Bs + ", 1, 1";
  C.Globals = ".shared .align 4 .b32 {K}_s[" + Bs + "];\n";
  C.Buffers = {randomWords(N, 17 + B), Words(N, Sentinel)};
  // Each round: read the neighbour K away, barrier, write f(x), barrier.
  const char *Barriers[] = {"bar.sync 1", "barrier.sync 2", "bar.sync %r9",
                            "barrier.sync.aligned 4", "bar.sync 0"};
  const char *CountedBarriers[] = {"bar.sync 1, ", "barrier.sync 2, ", "bar.sync 3, ",
                                   "barrier.sync.aligned 4, ", "bar.sync 0, "};
  std::string Body = prologue(2) + "  add.s64 %rd0, %b0, %o4;\n  ld.global.u32 %r0, [%rd0];\n"
                                   "  mov.u32 %r1, {K}_s;\n  shl.b32 %r2, %tid, 2;\n"
                                   "  add.u32 %r3, %r1, %r2;\n  mov.u32 %r9, 3;\n"
                                   "  st.shared.u32 [%r3], %r0;\n  bar.sync 0;\n";
  for (unsigned K = 0; K < 5; ++K) {
    const std::string Step = std::to_string(2 * K + 1);
    Body += "  add.u32 %r4, %tid, " + Step +
            ";\n  rem.u32 %r4, %r4, %ntid;\n"
            "  shl.b32 %r4, %r4, 2;\n  add.u32 %r4, %r1, %r4;\n  ld.shared.u32 %r5, [%r4];\n  " +
            (Counted ? CountedBarriers[K] + Bs : std::string(Barriers[K])) +
            ";\n  mad.lo.u32 %r0, %r5, 3, " + Step + ";\n  st.shared.u32 [%r3], %r0;\n  " +
            (Counted ? CountedBarriers[(K + 1) % 5] + Bs : std::string(Barriers[(K + 1) % 5])) +
            ";\n";
  }
  C.Body = Body + "  add.s64 %rd1, %b1, %o4;\n  st.global.u32 [%rd1], %r0;\n  ret;";
  C.Check = [N, B](const std::vector<Words> &In, const std::vector<Words> &Out) {
    Words W(In[0]);
    for (uint32_t Blk = 0; Blk < N / B; ++Blk)
      for (unsigned K = 0; K < 5; ++K) {
        Words Next(B);
        for (uint32_t T = 0; T < B; ++T)
          Next[T] = W[Blk * B + (T + 2 * K + 1) % B] * 3 + 2 * K + 1;
        std::copy(Next.begin(), Next.end(), W.begin() + Blk * B);
      }
    return compareAll({all(W)}, Out, 1);
  };
  return C;
}

/// bar.red.popc/and/or over the block, twice in a row with other predicates (the reduction
/// must start afresh), optionally with the block's thread count.
KernelCase barrierReductions(uint32_t B, bool Counted) {
  const uint32_t Blocks = 6, N = Blocks * B;
  KernelCase C;
  const std::string Bs = std::to_string(B);
  C.Name = std::string("bar.red.popc/and/or") + (Counted ? " with count" : "") + ", block " + Bs;
  C.Grid = {Blocks};
  C.Block = {B};
  if (Counted)
    C.Directives = ".reqntid " + Bs + ", 1, 1";
  std::mt19937_64 R(0xba7 + B);
  Words P(N);
  for (uint32_t I = 0; I < N; ++I) {
    const uint32_t Blk = I / B, T = I % B;
    P[I] = Blk == 0   ? 0
           : Blk == 1 ? 1
           : Blk == 3 ? T == 7
           : Blk == 4 ? T != B - 1
                      : uint32_t(R() % 2);
  }
  C.Buffers = {P, Words(8 * N, Sentinel)};
  const std::string Cnt = Counted ? Bs + ", " : "";
  C.Body = prologue(2) +
           "  add.s64 %rd0, %b0, %o4;\n  ld.global.u32 %r0, [%rd0];\n"
           "  setp.ne.u32 %p0, %r0, 0;\n  and.b32 %r1, %tid, 1;\n"
           "  setp.ne.u32 %p1, %r1, 0;\n  xor.pred %p1, %p1, %p0;\n"
           "  bar.red.popc.u32 %r2, 0, " +
           Cnt +
           "%p0;\n"
           "  bar.red.and.pred %p2, 1, " +
           Cnt +
           "%p0;\n"
           "  bar.red.or.pred %p3, 2, " +
           Cnt +
           "%p0;\n"
           "  bar.red.popc.u32 %r3, 3, " +
           Cnt +
           "!%p1;\n"
           "  bar.red.and.pred %p4, 0, " +
           Cnt +
           "!%p0;\n"
           "  bar.red.or.pred %p5, 1, " +
           Cnt +
           "%p1;\n"
           "  selp.u32 %r4, 1, 0, %p2;\n  selp.u32 %r5, 1, 0, %p3;\n"
           "  selp.u32 %r6, 1, 0, %p4;\n  selp.u32 %r7, 1, 0, %p5;\n"
           "  mul.wide.u32 %rd1, %gid, 32;\n  add.s64 %rd1, %b1, %rd1;\n"
           "  st.global.v2.u32 [%rd1], {%r2, %r3};\n"
           "  st.global.v4.u32 [%rd1+16], {%r4, %r5, %r6, %r7};\n  ret;";
  C.Check = [N, B](const std::vector<Words> &In, const std::vector<Words> &Out) {
    Words W(8 * N, Sentinel);
    for (uint32_t Blk = 0; Blk < N / B; ++Blk) {
      uint32_t Pop = 0, Pop2 = 0;
      bool All = true, Any = false, AllNot = true, Any2 = false;
      for (uint32_t T = 0; T < B; ++T) {
        const bool P = In[0][Blk * B + T] != 0, P1 = (T & 1) != P;
        Pop += P, Pop2 += !P1, All &= P, Any |= P, AllNot &= !P, Any2 |= P1;
      }
      for (uint32_t T = 0; T < B; ++T) {
        uint32_t *Row = &W[8 * (Blk * B + T)];
        Row[0] = Pop, Row[1] = Pop2, Row[4] = All, Row[5] = Any, Row[6] = AllNot, Row[7] = Any2;
      }
    }
    return compareAll({all(W)}, Out, 1, 8);
  };
  return C;
}

KernelFamily barriers() {
  KernelFamily F{"memory-barriers", {}};
  F.Cases = {barrierRounds(256, false),    barrierRounds(96, false),
             barrierRounds(128, true),     barrierReductions(256, false),
             barrierReductions(96, false), barrierReductions(128, true)};
  return F;
}

} // namespace conformance::memory_families
