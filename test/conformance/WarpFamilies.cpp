// Warp families: shfl.sync, vote.sync, activemask, match.sync, redux.sync, elect.sync. The
// references follow the PTX ISA's description of each instruction over one 32-lane warp (its
// "Semantics" pseudo-code for shfl.sync); on wave64 targets two warps share a wave, and every
// warp gets inputs of its own, so a lane that sees the other warp's lanes gives a wrong result.
#include "Families.h"
#include "KernelHarness.h"

#include <array>
#include <bit>
#include <map>
#include <optional>
#include <random>
#include <sstream>

namespace conformance {

namespace {

constexpr uint32_t Sentinel = 0xdeadbeef;

/// A kernel over per-thread words: input buffer J is loaded into %in<J>, then \p Op runs, then
/// %out<J> is stored into output buffer J (after the inputs). %gid is the launch-wide thread
/// index, %lane its %laneid; %t<8>, %q<8> and %d<4> (b64) are scratch.
struct PerThread {
  std::string Name;
  Dims Grid, Block;
  std::vector<Words> Inputs;
  unsigned Outputs = 1;
  std::string Op;
  /// The expected outputs from the inputs: one Expected per output, one word per thread.
  std::function<std::vector<Expected>(const std::vector<Words> &)> Ref;
  /// Names a thread's inputs in a report.
  std::function<std::string(const std::vector<Words> &, size_t)> Describe;
  /// An extra check over the outputs (an empty string when it holds).
  std::function<std::string(const std::vector<Words> &, const std::vector<Words> &)> Extra;
};

KernelCase kernel(PerThread P) {
  KernelCase C;
  C.Name = P.Name;
  C.Grid = P.Grid;
  C.Block = P.Block;
  const size_t N = size_t(P.Grid.X) * P.Block.X;
  const size_t NIn = P.Inputs.size();
  std::ostringstream B;
  // membersOnly sets %out1 even in cases with one output.
  B << "  .reg .b32 %gid, %lane, %t<8>, %in<" << NIn << ">, %out<" << std::max(P.Outputs, 2u)
    << ">;\n"
    << "  .reg .b64 %off, %d<4>, %adr<" << NIn + P.Outputs << ">;\n  .reg .pred %q<8>;\n"
    << "  mov.u32 %t0, %ctaid.x;\n  mov.u32 %t1, %ntid.x;\n  mov.u32 %t2, %tid.x;\n"
    << "  mad.lo.u32 %gid, %t0, %t1, %t2;\n  mov.u32 %lane, %laneid;\n"
    << "  mul.wide.u32 %off, %gid, 4;\n";
  for (size_t J = 0; J < NIn + P.Outputs; ++J)
    B << "  ld.param.u64 %adr" << J << ", [buf" << J << "];\n  add.s64 %adr" << J << ", %adr" << J
      << ", %off;\n";
  for (size_t J = 0; J < NIn; ++J)
    B << "  ld.global.u32 %in" << J << ", [%adr" << J << "];\n";
  B << P.Op << "\n";
  for (size_t J = 0; J < P.Outputs; ++J)
    B << "  st.global.u32 [%adr" << NIn + J << "], %out" << J << ";\n";
  B << "  ret;\n";
  C.Body = B.str();
  C.Buffers = P.Inputs;
  for (unsigned J = 0; J < P.Outputs; ++J)
    C.Buffers.push_back(Words(N, Sentinel));
  C.Check = [P = std::move(P), NIn](const std::vector<Words> &In, const std::vector<Words> &Out) {
    const std::vector<Words> Inputs(In.begin(), In.begin() + NIn);
    const std::vector<Words> Outputs(Out.begin() + NIn, Out.end());
    std::vector<Expected> Want = P.Ref(Inputs);
    std::string Report;
    for (size_t J = 0; J < Want.size(); ++J) {
      std::string R = compareWords("out" + std::to_string(J), Want[J], Outputs[J], [&](size_t I) {
        return P.Describe ? P.Describe(Inputs, I) : std::string();
      });
      Report += Report.empty() || R.empty() ? R : "\n  " + R;
    }
    // The extra check holds for words the reference leaves open too (isolation of warps).
    if (std::string R = P.Extra ? P.Extra(Inputs, Outputs) : ""; !R.empty())
      Report += Report.empty() ? R : "\n  " + R;
    return Report;
  };
  return C;
}

std::string hex32(uint32_t V) {
  char Buf[16];
  std::snprintf(Buf, sizeof Buf, "0x%08x", V);
  return Buf;
}

bool member(uint32_t Mask, unsigned Lane) { return (Mask >> Lane) & 1; }

/// Member masks, one per warp: full, random, patterned (halves, odd/even, ends, single lanes).
Words memberMasks(size_t Warps, std::mt19937_64 &R) {
  static const uint32_t Patterns[] = {0x0000ffff, 0xffff0000, 0x55555555, 0xaaaaaaaa, 0x0f0f0f0f,
                                      0x80000001, 0x00000001, 0x80000000, 0x7fffffff, 0xfffffffe};
  Words M(Warps);
  for (size_t W = 0; W < Warps; ++W)
    switch (W % 4) {
    case 0:
      M[W] = 0xffffffff;
      break;
    case 1:
      M[W] = uint32_t(R()) | 1u << (R() % 32);
      break;
    case 2:
      M[W] = Patterns[R() % std::size(Patterns)];
      break;
    default:
      M[W] = (uint32_t(R()) & uint32_t(R()) & uint32_t(R())) | 1u << (R() % 32);
    }
  return M;
}

/// The per-thread copy of per-warp values.
Words perLane(const Words &PerWarp) {
  Words W(PerWarp.size() * 32);
  for (size_t I = 0; I < W.size(); ++I)
    W[I] = PerWarp[I / 32];
  return W;
}

/// Only the member lanes (bit %lane of %in<MaskIn>) run \p Op, in a divergent if; the others
/// keep %out0 = Sentinel and %out1 = 0.
std::string membersOnly(unsigned MaskIn, const std::string &Op) {
  return "  mov.u32 %out0, " + hex32(Sentinel) + ";\n  mov.u32 %out1, 0;\n  shr.b32 %t3, %in" +
         std::to_string(MaskIn) +
         ", %lane;\n  and.b32 %t3, %t3, 1;\n  setp.eq.u32 %q0, %t3, 0;\n  @%q0 bra $SKIP;\n" + Op +
         "\n$SKIP:";
}

// --- shfl.sync ----------------------------------------------------------------------------

enum class Shfl { Up, Down, Bfly, Idx };
const char *shflName(Shfl M) {
  return M == Shfl::Up ? "up" : M == Shfl::Down ? "down" : M == Shfl::Bfly ? "bfly" : "idx";
}

/// shfl.sync's "Semantics" pseudo-code for one lane: the source lane and the predicate.
std::pair<unsigned, bool> shflSource(Shfl M, unsigned Lane, uint32_t B, uint32_t C) {
  const int Bval = int(B & 31), Cval = int(C & 31), Seg = int((C >> 8) & 31);
  const int L = int(Lane);
  const int MaxLane = (L & Seg) | (Cval & ~Seg), MinLane = L & Seg;
  int J = 0;
  bool P = false;
  switch (M) {
  case Shfl::Up:
    J = L - Bval;
    P = J >= MaxLane;
    break;
  case Shfl::Down:
    J = L + Bval;
    P = J <= MaxLane;
    break;
  case Shfl::Bfly:
    J = L ^ Bval;
    P = J <= MaxLane;
    break;
  case Shfl::Idx:
    J = MinLane | (Bval & ~Seg);
    P = J <= MaxLane;
    break;
  }
  return {P ? unsigned(J) : Lane, P};
}

/// Lane values that name their thread (low 16 bits), so a value read across warps shows.
Words laneValues(size_t N, std::mt19937_64 &R) {
  Words A(N);
  for (size_t I = 0; I < N; ++I)
    A[I] = uint32_t(R()) << 16 | uint32_t(I & 0xffff);
  return A;
}

/// A value some lane read from a thread of another warp (the two warps of a wave64 wave).
std::string crossWarpReads(const Words &A, const Words &D, const Words &Mask) {
  for (size_t I = 0; I < D.size(); ++I) {
    if (!member(Mask[I], I % 32))
      continue;
    const size_t From = D[I] & 0xffff;
    if (From < A.size() && A[From] == D[I] && From / 32 != I / 32)
      return "thread " + std::to_string(I) + " (warp " + std::to_string(I / 32) + ") read thread " +
             std::to_string(From) + " of warp " + std::to_string(From / 32);
  }
  return {};
}

/// b and c operands per lane: registers over many values (c per warp, or per lane when
/// \p LaneC), or immediates.
using ShflImm = std::optional<std::pair<uint32_t, uint32_t>>;

KernelCase shflCase(Shfl M, std::string Name, uint32_t Seed, bool LaneC, ShflImm Imm, Dims Grid,
                    Dims Block) {
  std::mt19937_64 R(Seed);
  const size_t N = size_t(Grid.X) * Block.X, Warps = N / 32;
  Words A = laneValues(N, R), Bv(N), Cw(Warps), Masks = perLane(memberMasks(Warps, R));
  for (size_t I = 0; I < N; ++I) // mostly lanes and offsets, sometimes high bits (ignored)
    Bv[I] = R() % 4 == 0 ? uint32_t(R())
                         : uint32_t(R() % (M == Shfl::Bfly || M == Shfl::Idx ? 32 : 34));
  for (size_t W = 0; W < Warps; ++W) {
    const unsigned Width = 1u << (R() % 6);
    const uint32_t Clamp = M == Shfl::Up ? 0 : 31;
    Cw[W] = R() % 3 ? (32 - Width) << 8 | Clamp : uint32_t(R() % 3 ? R() % 0x2000 : R());
  }
  Words Cv = perLane(Cw);
  if (LaneC)
    for (uint32_t &C : Cv)
      C = uint32_t(R() % 0x2000);
  // Immediate operands: b and c come from the PTX text, not the buffers.
  const std::string Operands =
      Imm ? std::to_string(Imm->first) + ", " + hex32(Imm->second) : "%in1, %in2";
  std::string Op = std::string("  shfl.sync.") + shflName(M) + ".b32 %out0|%q1, %in0, " + Operands +
                   ", %in3;\n  selp.u32 %out1, 1, 0, %q1;";
  PerThread P;
  P.Name = std::move(Name);
  P.Grid = Grid;
  P.Block = Block;
  P.Inputs = {A, Bv, Cv, Masks};
  P.Outputs = 2;
  P.Op = membersOnly(3, Op);
  P.Ref = [M, Imm](const std::vector<Words> &In) {
    const size_t N = In[0].size();
    std::vector<Expected> Want(2, Expected(N));
    for (size_t I = 0; I < N; ++I) {
      const unsigned Lane = I % 32;
      const uint32_t Mask = In[3][I];
      if (!member(Mask, Lane)) {
        Want[0][I] = Sentinel;
        Want[1][I] = 0;
        continue;
      }
      auto [J, Pval] =
          shflSource(M, Lane, Imm ? Imm->first : In[1][I], Imm ? Imm->second : In[2][I]);
      // A source lane outside the member mask gives an unpredictable value.
      if (member(Mask, J))
        Want[0][I] = In[0][I - Lane + J];
      Want[1][I] = Pval;
    }
    return Want;
  };
  P.Describe = [](const std::vector<Words> &In, size_t I) {
    return "lane " + std::to_string(I % 32) + " b=" + hex32(In[1][I]) + " c=" + hex32(In[2][I]) +
           " mask=" + hex32(In[3][I]);
  };
  P.Extra = [](const std::vector<Words> &In, const std::vector<Words> &Out) {
    return crossWarpReads(In[0], Out[0], In[3]);
  };
  return kernel(std::move(P));
}

/// 64-bit values through two 32-bit shuffles of the halves of a b64 register.
KernelCase shfl64(Shfl M, uint32_t Seed, Dims Grid, Dims Block) {
  KernelCase C = shflCase(M, std::string("shfl.sync.") + shflName(M) + ".b64-as-2x32", Seed, false,
                          {}, Grid, Block);
  std::mt19937_64 R(Seed ^ 0x64);
  const size_t N = C.Buffers[0].size();
  C.Buffers.insert(C.Buffers.begin() + 4, randomWords(N, R())); // the high halves
  C.Buffers.push_back(Words(N, Sentinel));                      // the high halves' results
  const std::string Mode = shflName(M);
  std::ostringstream B;
  B << "  .reg .b32 %gid, %lane, %t<8>, %in<5>, %out<3>;\n"
    << "  .reg .b64 %off, %v, %r, %adr<8>;\n  .reg .pred %q<4>;\n"
    << "  mov.u32 %t0, %ctaid.x;\n  mov.u32 %t1, %ntid.x;\n  mov.u32 %t2, %tid.x;\n"
    << "  mad.lo.u32 %gid, %t0, %t1, %t2;\n  mov.u32 %lane, %laneid;\n"
    << "  mul.wide.u32 %off, %gid, 4;\n";
  for (int J = 0; J < 8; ++J)
    B << "  ld.param.u64 %adr" << J << ", [buf" << J << "];\n  add.s64 %adr" << J << ", %adr" << J
      << ", %off;\n";
  for (int J = 0; J < 5; ++J)
    B << "  ld.global.u32 %in" << J << ", [%adr" << J << "];\n";
  B << "  mov.b64 %v, {%in0, %in4};\n  mov.u32 %out0, " << hex32(Sentinel)
    << ";\n  mov.u32 %out1, 0;\n  mov.u32 %out2, " << hex32(Sentinel)
    << ";\n  shr.b32 %t3, %in3, %lane;\n  and.b32 %t3, %t3, 1;\n  setp.eq.u32 %q0, %t3, 0;\n"
    << "  @%q0 bra $SKIP;\n  mov.b64 {%t4, %t5}, %v;\n"
    << "  shfl.sync." << Mode << ".b32 %t6, %t4, %in1, %in2, %in3;\n"
    << "  shfl.sync." << Mode << ".b32 %t7|%q1, %t5, %in1, %in2, %in3;\n"
    << "  mov.b64 %r, {%t6, %t7};\n  mov.b64 {%out0, %out2}, %r;\n  selp.u32 %out1, 1, 0, %q1;\n"
    << "$SKIP:\n  st.global.u32 [%adr5], %out0;\n  st.global.u32 [%adr6], %out1;\n"
    << "  st.global.u32 [%adr7], %out2;\n  ret;\n";
  C.Body = B.str();
  auto Low = C.Check;
  C.Check = [Low, M](const std::vector<Words> &In, const std::vector<Words> &Out) {
    // The low halves and the predicate as for 32 bits; the high halves from the same lane.
    std::vector<Words> In32 = {In[0], In[1], In[2], In[3], In[5], In[6]};
    std::vector<Words> Out32 = {Out[0], Out[1], Out[2], Out[3], Out[5], Out[6]};
    std::string Report = Low(In32, Out32);
    Expected Hi(In[0].size());
    for (size_t I = 0; I < Hi.size(); ++I) {
      const unsigned Lane = I % 32;
      if (!member(In[3][I], Lane)) {
        Hi[I] = Sentinel;
        continue;
      }
      const unsigned J = shflSource(M, Lane, In[1][I], In[2][I]).first;
      if (member(In[3][I], J))
        Hi[I] = In[4][I - Lane + J];
    }
    std::string R = compareWords("high", Hi, Out[7]);
    return Report.empty() ? R : R.empty() ? Report : Report + "\n  " + R;
  };
  return C;
}

KernelFamily shfl() {
  KernelFamily F{"warp-shfl", {}};
  const Dims G{8}, B256{256}, B96{96};
  uint32_t Seed = 1;
  for (Shfl M : {Shfl::Up, Shfl::Down, Shfl::Bfly, Shfl::Idx}) {
    const std::string S = std::string("shfl.sync.") + shflName(M);
    F.Cases.push_back(shflCase(M, S + ".b32 b,c per warp", Seed++, false, {}, G, B256));
    F.Cases.push_back(
        shflCase(M, S + ".b32 b,c per warp (block 96)", Seed++, false, {}, Dims{16}, B96));
    F.Cases.push_back(shflCase(M, S + ".b32 c per lane", Seed++, true, {}, G, B256));
    F.Cases.push_back(shfl64(M, Seed++, G, B256));
  }
  // Immediate b and c, as CUDA's __shfl_*_sync(mask, v, b, width) emit them.
  struct Imm {
    Shfl M;
    uint32_t B, C;
  };
  for (Imm I : {Imm{Shfl::Bfly, 1, 0x1f}, Imm{Shfl::Bfly, 16, 0x1f}, Imm{Shfl::Bfly, 2, 0x181f},
                Imm{Shfl::Down, 1, 0x1f}, Imm{Shfl::Down, 4, 0x101f}, Imm{Shfl::Down, 16, 0x1f},
                Imm{Shfl::Up, 1, 0}, Imm{Shfl::Up, 3, 0x1800}, Imm{Shfl::Idx, 0, 0x1f},
                Imm{Shfl::Idx, 5, 0x1c1f}, Imm{Shfl::Idx, 31, 0x1f}, Imm{Shfl::Idx, 7, 0}})
    F.Cases.push_back(shflCase(I.M,
                               std::string("shfl.sync.") + shflName(I.M) + ".b32 " +
                                   std::to_string(I.B) + ", " + hex32(I.C),
                               Seed++, false, std::pair{I.B, I.C}, G, B96));
  return F;
}

// --- vote, activemask, match, redux, elect --------------------------------------------------

/// Per-warp predicates: none, all, random, one lane, all but one lane.
Words predicates(size_t N, std::mt19937_64 &R) {
  Words P(N);
  for (size_t W = 0; W < N / 32; ++W) {
    const unsigned Style = W % 5, One = R() % 32;
    for (unsigned L = 0; L < 32; ++L)
      P[W * 32 + L] = Style == 0   ? 0
                      : Style == 1 ? 1
                      : Style == 2 ? uint32_t(R() % 2)
                      : Style == 3 ? L == One
                                   : L != One;
  }
  return P;
}

/// Per-warp values with few distinct ones (match), or wide-ranging ones (redux).
Words warpValues(size_t N, std::mt19937_64 &R) {
  Words V(N);
  for (size_t W = 0; W < N / 32; ++W) {
    const unsigned Distinct = std::array<unsigned, 6>{1, 2, 3, 5, 32, 32}[W % 6];
    uint32_t Pool[32];
    for (uint32_t &X : Pool)
      X = W % 3 == 0 ? uint32_t(R() % 8) : W % 3 == 1 ? uint32_t(R()) : 0x80000000u - R() % 8;
    for (unsigned L = 0; L < 32; ++L)
      V[W * 32 + L] = Pool[R() % Distinct];
  }
  return V;
}

/// A case whose members (per-warp mask in input \p MaskIn) compute \p Op, and whose reference
/// \p PerWarp maps a warp's inputs (indexed [input][lane]) and member mask to each lane's outputs.
using WarpRef = std::function<void(const std::vector<const uint32_t *> &In, uint32_t Mask,
                                   std::vector<uint32_t *> &Out)>;

KernelCase warpCase(std::string Name, std::vector<Words> Inputs, unsigned MaskIn, unsigned Outputs,
                    const std::string &Op, WarpRef Ref, Dims Grid, Dims Block) {
  PerThread P;
  P.Name = std::move(Name);
  P.Grid = Grid;
  P.Block = Block;
  P.Inputs = std::move(Inputs);
  P.Outputs = Outputs;
  P.Op = membersOnly(MaskIn, Op);
  P.Ref = [Ref, MaskIn, Outputs](const std::vector<Words> &In) {
    const size_t N = In[0].size();
    std::vector<Expected> Want(Outputs, Expected(N));
    std::vector<uint32_t> Lanes(Outputs * 32);
    for (size_t W = 0; W < N / 32; ++W) {
      std::vector<const uint32_t *> WIn;
      for (const Words &X : In)
        WIn.push_back(X.data() + W * 32);
      std::vector<uint32_t *> WOut;
      for (unsigned J = 0; J < Outputs; ++J)
        WOut.push_back(Lanes.data() + J * 32);
      const uint32_t Mask = In[MaskIn][W * 32];
      Ref(WIn, Mask, WOut);
      for (unsigned L = 0; L < 32; ++L)
        for (unsigned J = 0; J < Outputs; ++J)
          Want[J][W * 32 + L] =
              member(Mask, L) ? WOut[J][L] : (J == 0 ? Sentinel : 0); // membersOnly's defaults
    }
    return Want;
  };
  P.Describe = [MaskIn](const std::vector<Words> &In, size_t I) {
    std::string S = "warp " + std::to_string(I / 32) + " lane " + std::to_string(I % 32) + " in";
    for (size_t J = 0; J < In.size(); ++J)
      if (J != MaskIn)
        S += " " + hex32(In[J][I]);
    return S + " mask=" + hex32(In[MaskIn][I]);
  };
  return kernel(std::move(P));
}

/// Over the member lanes of a warp.
template <typename F> void members(uint32_t Mask, F Fn) {
  for (unsigned L = 0; L < 32; ++L)
    if (member(Mask, L))
      Fn(L);
}

KernelFamily vote() {
  KernelFamily F{"warp-vote", {}};
  const Dims G{8}, B256{256}, B96{96};
  std::mt19937_64 R(0x707e);
  const size_t N = 8 * 256;
  auto Inputs = [&](size_t N) {
    return std::vector<Words>{predicates(N, R), perLane(memberMasks(N / 32, R))};
  };
  struct Mode {
    const char *Name;
    bool Negate;
    std::function<uint32_t(const uint32_t *, uint32_t)> Ref; // (predicates, mask)
  };
  auto All = [](const uint32_t *P, uint32_t M) {
    bool R = true;
    members(M, [&](unsigned L) { R &= P[L] != 0; });
    return uint32_t(R);
  };
  auto Any = [](const uint32_t *P, uint32_t M) {
    bool R = false;
    members(M, [&](unsigned L) { R |= P[L] != 0; });
    return uint32_t(R);
  };
  auto Uni = [](const uint32_t *P, uint32_t M) {
    const int First = std::countr_zero(M);
    bool R = true;
    members(M, [&](unsigned L) { R &= (P[L] != 0) == (P[First] != 0); });
    return uint32_t(R);
  };
  auto Ballot = [](const uint32_t *P, uint32_t M) {
    uint32_t R = 0;
    members(M, [&](unsigned L) { R |= uint32_t(P[L] != 0) << L; });
    return R;
  };
  auto Not = [](auto Fn) {
    return [Fn](const uint32_t *P, uint32_t M) {
      uint32_t Q[32];
      for (unsigned L = 0; L < 32; ++L)
        Q[L] = !P[L];
      return Fn(Q, M);
    };
  };
  for (const Mode &M : {Mode{"all", false, All}, Mode{"any", false, Any}, Mode{"uni", false, Uni},
                        Mode{"ballot", false, Ballot}, Mode{"all", true, Not(All)},
                        Mode{"any", true, Not(Any)}, Mode{"ballot", true, Not(Ballot)}}) {
    const bool IsBallot = std::string(M.Name) == "ballot";
    const std::string Src = M.Negate ? "!%q2" : "%q2";
    const std::string Op = "  setp.ne.u32 %q2, %in0, 0;\n" +
                           (IsBallot ? "  vote.sync.ballot.b32 %out0, " + Src + ", %in1;"
                                     : "  vote.sync." + std::string(M.Name) + ".pred %q3, " + Src +
                                           ", %in1;\n  selp.u32 %out0, 1, 0, %q3;");
    auto Fn = M.Ref;
    WarpRef Ref = [Fn](const std::vector<const uint32_t *> &In, uint32_t Mask,
                       std::vector<uint32_t *> &Out) {
      const uint32_t V = Fn(In[0], Mask);
      for (unsigned L = 0; L < 32; ++L)
        Out[0][L] = V;
    };
    const std::string Name = std::string("vote.sync.") + M.Name + (IsBallot ? ".b32" : ".pred") +
                             (M.Negate ? " !p" : "");
    F.Cases.push_back(warpCase(Name, Inputs(N), 1, 1, Op, Ref, G, B256));
    F.Cases.push_back(
        warpCase(Name + " (block 96)", Inputs(16 * 96), 1, 1, Op, Ref, Dims{16}, B96));
    // Only the odd lanes take the branch, naming them with an immediate member mask.
    std::string OddOp = Op;
    OddOp.replace(OddOp.find("%in1;"), 5, "0xaaaaaaaa;");
    // One input and one result per launched thread: 8 blocks of 96.
    const size_t OddN = size_t(G.X) * B96.X;
    std::vector<Words> Odd = Inputs(OddN);
    Odd[1] = Words(OddN, 0xaaaaaaaa);
    F.Cases.push_back(warpCase(Name + " odd lanes", Odd, 1, 1, OddOp, Ref, G, B96));
  }
  // activemask: the lanes that take the branch (the member mask input decides).
  WarpRef Active = [](const std::vector<const uint32_t *> &, uint32_t Mask,
                      std::vector<uint32_t *> &Out) {
    for (unsigned L = 0; L < 32; ++L)
      Out[0][L] = Mask;
  };
  F.Cases.push_back(warpCase("activemask divergent", Inputs(N), 1, 1, "  activemask.b32 %out0;",
                             Active, G, B256));
  F.Cases.push_back(warpCase("activemask divergent (block 96)", Inputs(16 * 96), 1, 1,
                             "  activemask.b32 %out0;", Active, Dims{16}, B96));
  // A block of 48 work-items: its second warp has 16 lanes, all active.
  {
    PerThread P;
    P.Name = "activemask block 48";
    P.Grid = Dims{4};
    P.Block = Dims{48};
    P.Inputs = {Words(4 * 48)};
    P.Op = "  activemask.b32 %out0;";
    P.Ref = [](const std::vector<Words> &In) {
      Expected W(In[0].size());
      for (size_t I = 0; I < W.size(); ++I)
        W[I] = I % 48 < 32 ? 0xffffffffu : 0x0000ffffu;
      return std::vector<Expected>{W};
    };
    F.Cases.push_back(kernel(std::move(P)));
  }
  return F;
}

KernelFamily matchRedux() {
  KernelFamily F{"warp-match-redux", {}};
  const Dims G{8}, B256{256}, B96{96};
  std::mt19937_64 R(0x3a7c);
  auto Sized = [](bool Odd) { return Odd ? size_t(16 * 96) : size_t(8 * 256); };
  unsigned Index = 0;
  auto Push = [&](std::string Name, std::vector<Words> In, unsigned MaskIn, unsigned Outputs,
                  const std::string &Op, WarpRef Ref) {
    const bool Odd = Index++ % 2;
    F.Cases.push_back(warpCase(std::move(Name), std::move(In), MaskIn, Outputs, Op, Ref,
                               Odd ? Dims{16} : G, Odd ? B96 : B256));
  };
  // match: values with few distinct ones; for b64 the halves differ independently.
  for (bool Wide : {false, true}) {
    for (bool All : {false, true}) {
      const bool Odd = Index % 2;
      const size_t N = Sized(Odd);
      std::vector<Words> In = {warpValues(N, R), perLane(memberMasks(N / 32, R)), warpValues(N, R)};
      const std::string T = Wide ? ".b64" : ".b32";
      const std::string Src = Wide ? "%d0" : "%in0";
      std::string Op = Wide ? "  mov.b64 %d0, {%in0, %in2};\n" : "";
      Op += All ? "  match.all.sync" + T + " %out0|%q3, " + Src +
                      ", %in1;\n  selp.u32 %out1, 1, 0, %q3;"
                : "  match.any.sync" + T + " %out0, " + Src + ", %in1;";
      WarpRef Ref = [Wide, All](const std::vector<const uint32_t *> &In, uint32_t Mask,
                                std::vector<uint32_t *> &Out) {
        auto Value = [&](unsigned L) {
          return uint64_t(In[0][L]) | (Wide ? uint64_t(In[2][L]) << 32 : 0);
        };
        const uint64_t First = Value(unsigned(std::countr_zero(Mask)));
        bool Same = true;
        members(Mask, [&](unsigned L) { Same &= Value(L) == First; });
        for (unsigned L = 0; L < 32; ++L) {
          uint32_t D = 0;
          members(Mask, [&](unsigned K) { D |= uint32_t(Value(K) == Value(L)) << K; });
          Out[0][L] = All ? (Same ? Mask : 0) : D;
          if (All)
            Out[1][L] = Same;
        }
      };
      Push(std::string(All ? "match.all.sync" : "match.any.sync") + T, In, 1, All ? 2 : 1, Op, Ref);
    }
  }
  // redux: over the members, the result in every member.
  struct Redux {
    const char *Op, *Type;
    std::function<uint32_t(uint32_t, uint32_t)> Fn;
    uint32_t Identity;
  };
  auto S = [](uint32_t V) { return int32_t(V); };
  for (const Redux &X : {
           Redux{"add", "u32", [](uint32_t A, uint32_t B) { return A + B; }, 0},
           Redux{"add", "s32", [](uint32_t A, uint32_t B) { return A + B; }, 0},
           Redux{"min", "u32", [](uint32_t A, uint32_t B) { return std::min(A, B); }, ~0u},
           Redux{"max", "u32", [](uint32_t A, uint32_t B) { return std::max(A, B); }, 0},
           Redux{"min", "s32", [S](uint32_t A, uint32_t B) { return S(A) < S(B) ? A : B; },
                 0x7fffffff},
           Redux{"max", "s32", [S](uint32_t A, uint32_t B) { return S(A) > S(B) ? A : B; },
                 0x80000000},
           Redux{"and", "b32", [](uint32_t A, uint32_t B) { return A & B; }, ~0u},
           Redux{"or", "b32", [](uint32_t A, uint32_t B) { return A | B; }, 0},
           Redux{"xor", "b32", [](uint32_t A, uint32_t B) { return A ^ B; }, 0},
       }) {
    const size_t N = Sized(Index % 2);
    std::vector<Words> In = {warpValues(N, R), perLane(memberMasks(N / 32, R))};
    // Random lanes for half of the warps: a sum that carries, extremes of either sign.
    Words Rand = randomWords(N, R());
    for (size_t I = 0; I < N; ++I)
      if ((I / 32) % 2)
        In[0][I] = Rand[I];
    auto Fn = X.Fn;
    const uint32_t Id = X.Identity;
    WarpRef Ref = [Fn, Id](const std::vector<const uint32_t *> &In, uint32_t Mask,
                           std::vector<uint32_t *> &Out) {
      uint32_t V = Id;
      members(Mask, [&](unsigned L) { V = Fn(V, In[0][L]); });
      for (unsigned L = 0; L < 32; ++L)
        Out[0][L] = V;
    };
    Push(std::string("redux.sync.") + X.Op + "." + X.Type, In, 1, 1,
         std::string("  redux.sync.") + X.Op + "." + X.Type + " %out0, %in0, %in1;", Ref);
  }
  // elect: one leader per member mask, the same for the same mask; every member gets its lane.
  {
    const size_t N = Sized(false);
    Words Masks = memberMasks(N / 32, R);
    for (size_t W = 0; W < Masks.size(); W += 8) // repeated masks: the leader must repeat too
      Masks[W] = 0x00f0f000;
    KernelCase C =
        warpCase("elect.sync", {perLane(Masks)}, 0, 2,
                 "  elect.sync %out0|%q3, %in0;\n  selp.u32 %out1, 1, 0, %q3;", {}, G, B256);
    C.Check = [](const std::vector<Words> &In, const std::vector<Words> &Out) -> std::string {
      std::map<uint32_t, uint32_t> Leader;
      for (size_t W = 0; W < In[0].size() / 32; ++W) {
        const uint32_t Mask = In[0][W * 32];
        const uint32_t First = Out[1][W * 32 + unsigned(std::countr_zero(Mask))];
        const std::string Where = "warp " + std::to_string(W) + " mask " + hex32(Mask);
        if (First >= 32 || !member(Mask, First))
          return Where + ": elected lane " + std::to_string(First) + " is not a member";
        if (Leader.emplace(Mask, First).first->second != First)
          return Where + ": elected lane " + std::to_string(First) + ", another warp " +
                 std::to_string(Leader[Mask]);
        for (unsigned L = 0; L < 32; ++L) {
          const uint32_t D = Out[1][W * 32 + L], P = Out[2][W * 32 + L];
          const bool M = member(Mask, L);
          if (D != (M ? First : Sentinel) || P != (M && L == First))
            return Where + " lane " + std::to_string(L) + ": got d=" + hex32(D) +
                   " p=" + std::to_string(P) + ", leader " + std::to_string(First);
        }
      }
      return {};
    };
    F.Cases.push_back(std::move(C));
  }
  return F;
}

} // namespace

std::vector<KernelFamily> warpFamilies() { return {shfl(), vote(), matchRedux()}; }

} // namespace conformance
