// The `tensor` family: mma.sync of every shape and type the PTX ISA defines for sm_70-sm_90
// (the m8n8k4 f16 quad-pair form in all four layouts, f16/bf16 with f32 and f16 accumulators, tf32,
// f64, s8/u8 with and without .satfinite, s4/u4, b1 with .xor.popc and .and.popc), ldmatrix
// (x1/x2/x4, .trans, shared and generic addresses), stmatrix and movmatrix. Each warp of a block
// works on its own fragments (raw register words per lane in the buffers); warp 2 of every block
// skips the instruction (on wave64 its wave's other warp still runs it). References decode the
// fragments with the ISA's tables ("Matrix fragments for mma.mMnNkK": the row and column of each
// element from groupID = %laneid >> 2 and threadID_in_group = %laneid % 4), multiply exactly and
// encode D the same way. Integer results are exact; float inputs are small multiples of 1/2 (C of
// 1/4), so every summation order gives the same value and the comparison is exact.
#include "Families.h"
#include "KernelHarness.h"

#include <cstring>
#include <functional>
#include <random>
#include <sstream>

namespace conformance {

namespace {

constexpr uint32_t Sentinel = 0xdeadbeef;
constexpr uint32_t Blocks = 3, Warps = 4, SkippedWarp = 2, Tiles = Blocks * Warps;

/// Declarations and indices: %tid, %warp, %lane, %tile (launch-wide warp), %b<J> = buffer J;
/// warp 2 of each block branches to DONE. Scratch: %r<24>, %rd<8>, %p<8>.
std::string prologue(unsigned Buffers) {
  std::ostringstream S;
  S << "  .reg .b32 %tid, %cta, %warp, %lane, %tile, %r<24>;\n"
    << "  .reg .b64 %rd<8>, %b<" << Buffers << ">;\n  .reg .pred %p<8>;\n"
    << "  mov.u32 %cta, %ctaid.x;\n  mov.u32 %tid, %tid.x;\n"
    << "  shr.u32 %warp, %tid, 5;\n  and.b32 %lane, %tid, 31;\n"
    << "  mad.lo.u32 %tile, %cta, " << Warps << ", %warp;\n";
  for (unsigned J = 0; J < Buffers; ++J)
    S << "  ld.param.u64 %b" << J << ", [buf" << J << "];\n";
  S << "  setp.eq.u32 %p0, %warp, " << SkippedWarp << ";\n  @%p0 bra DONE;\n";
  return S.str();
}

bool skipped(uint32_t Tile) { return Tile % Warps == SkippedWarp; }

// ---- element formats ----
enum class Kind { F16, BF16, TF32, F32, F64, S8, U8, S4, U4, B1, S32, E4M3, E5M2 };

bool isF8(Kind K) { return K == Kind::E4M3 || K == Kind::E5M2; }

unsigned bitsOf(Kind K) {
  switch (K) {
  case Kind::F16:
  case Kind::BF16:
    return 16;
  case Kind::S8:
  case Kind::U8:
  case Kind::E4M3:
  case Kind::E5M2:
    return 8;
  case Kind::S4:
  case Kind::U4:
    return 4;
  case Kind::B1:
    return 1;
  case Kind::F64:
    return 64;
  default:
    return 32;
  }
}

const char *nameOf(Kind K) {
  switch (K) {
  case Kind::F16:
    return "f16";
  case Kind::BF16:
    return "bf16";
  case Kind::TF32:
    return "tf32";
  case Kind::F32:
    return "f32";
  case Kind::F64:
    return "f64";
  case Kind::S8:
    return "s8";
  case Kind::U8:
    return "u8";
  case Kind::S4:
    return "s4";
  case Kind::U4:
    return "u4";
  case Kind::B1:
    return "b1";
  case Kind::S32:
    return "s32";
  case Kind::E4M3:
    return "e4m3";
  case Kind::E5M2:
    return "e5m2";
  }
  return "?";
}

/// The bits of \p V, a normal number exactly representable with \p Man mantissa bits and an
/// exponent bias of \p Bias, in a 1-sign, 7 - Man exponent, Man mantissa byte (e4m3, e5m2).
uint64_t encodeF8(double V, int Man, int Bias) {
  if (V == 0)
    return 0;
  uint64_t Sign = V < 0 ? 0x80 : 0;
  int E;
  double F = std::frexp(std::fabs(V), &E); // |V| = F 2^E, F in [0.5, 1)
  uint64_t Mantissa = uint64_t(std::ldexp(F * 2 - 1, Man));
  return Sign | uint64_t(E - 1 + Bias) << Man | Mantissa;
}

double decodeF8(uint64_t Bits, int Man, int Bias) {
  int Exp = int(Bits >> Man & ((1u << (7 - Man)) - 1));
  double Mantissa = double(Bits & ((1u << Man) - 1));
  double V = Exp ? std::ldexp(1 + std::ldexp(Mantissa, -Man), Exp - Bias)
                 : std::ldexp(Mantissa, 1 - Bias - Man);
  return Bits & 0x80 ? -V : V;
}

/// The bits of value \p V (exactly representable) in format \p K.
uint64_t encode(Kind K, double V) {
  switch (K) {
  case Kind::E4M3:
    return encodeF8(V, 3, 7);
  case Kind::E5M2:
    return encodeF8(V, 2, 15);
  case Kind::F16: {
    _Float16 H = static_cast<_Float16>(V);
    uint16_t Bits;
    std::memcpy(&Bits, &H, 2);
    return Bits;
  }
  case Kind::BF16:
  case Kind::TF32:
  case Kind::F32: {
    float F = static_cast<float>(V);
    uint32_t Bits;
    std::memcpy(&Bits, &F, 4);
    return K == Kind::BF16 ? Bits >> 16 : Bits;
  }
  case Kind::F64: {
    uint64_t Bits;
    std::memcpy(&Bits, &V, 8);
    return Bits;
  }
  default:
    return static_cast<uint64_t>(static_cast<int64_t>(V)) & ((1ull << bitsOf(K)) - 1);
  }
}

double decode(Kind K, uint64_t Bits) {
  switch (K) {
  case Kind::E4M3:
    return decodeF8(Bits, 3, 7);
  case Kind::E5M2:
    return decodeF8(Bits, 2, 15);
  case Kind::F16: {
    uint16_t B = uint16_t(Bits);
    _Float16 H;
    std::memcpy(&H, &B, 2);
    return double(H);
  }
  case Kind::BF16:
  case Kind::TF32:
  case Kind::F32: {
    uint32_t B = K == Kind::BF16 ? uint32_t(Bits) << 16 : uint32_t(Bits);
    float F;
    std::memcpy(&F, &B, 4);
    return F;
  }
  case Kind::F64: {
    double D;
    std::memcpy(&D, &Bits, 8);
    return D;
  }
  case Kind::S8:
    return int8_t(Bits);
  case Kind::S4:
    return int(Bits << 28) >> 28;
  case Kind::S32:
    return int32_t(Bits);
  default:
    return double(Bits);
  }
}

// ---- fragment layouts, from the ISA's tables ----
/// Element i of a fragment for the lane with groupID g and threadID_in_group t: its row and
/// column.
using Position = std::function<std::pair<unsigned, unsigned>(unsigned I, unsigned G, unsigned T)>;

struct MmaShape {
  unsigned M, N, K;
  unsigned AElems, BElems; ///< elements per lane
  Position A, B;
};

/// C/D: rows g (and g + 8 for M = 16), columns 2t + (i & 1).
std::pair<unsigned, unsigned> accumulator(unsigned M, unsigned I, unsigned G, unsigned T) {
  return {M == 16 ? G + 8 * (I >= 2) : G, 2 * T + (I & 1)};
}

/// The shapes of each input type (ISA 9.7.14.5.x).
MmaShape shape(unsigned M, unsigned K, Kind In) {
  using P = std::pair<unsigned, unsigned>;
  unsigned Bits = bitsOf(In);
  MmaShape S{M, 8, K, M * K / 32, 8 * K / 32, nullptr, nullptr};
  if (In == Kind::F16 || In == Kind::BF16) {
    if (K == 16) { // m16n8k16
      S.A = [](unsigned I, unsigned G, unsigned T) {
        return P{(I < 2 || (I >= 4 && I < 6)) ? G : G + 8, T * 2 + (I & 1) + (I >= 4 ? 8 : 0)};
      };
      S.B = [](unsigned I, unsigned G, unsigned T) {
        return P{T * 2 + (I & 1) + (I >= 2 ? 8 : 0), G};
      };
    } else { // m16n8k8
      S.A = [](unsigned I, unsigned G, unsigned T) {
        return P{I < 2 ? G : G + 8, T * 2 + (I & 1)};
      };
      S.B = [](unsigned I, unsigned G, unsigned T) { return P{T * 2 + I, G}; };
    }
  } else if (In == Kind::TF32 || In == Kind::F64) {
    if (M == 8) { // m8n8k4 f64
      S.A = [](unsigned, unsigned G, unsigned T) { return P{G, T}; };
      S.B = [](unsigned, unsigned G, unsigned T) { return P{T, G}; };
    } else if (K == 4) {
      S.A = [](unsigned I, unsigned G, unsigned T) { return P{I == 0 ? G : G + 8, T}; };
      S.B = [](unsigned, unsigned G, unsigned T) { return P{T, G}; };
    } else if (K == 8) {
      S.A = [](unsigned I, unsigned G, unsigned T) {
        return P{(I == 0 || I == 2) ? G : G + 8, I < 2 ? T : T + 4};
      };
      S.B = [](unsigned I, unsigned G, unsigned T) { return P{I == 0 ? T : T + 4, G}; };
    } else { // m16n8k16 f64
      S.A = [](unsigned I, unsigned G, unsigned T) {
        return P{I % 2 == 0 ? G : G + 8, I % 2 == 0 ? I * 2 + T : I * 2 - 2 + T};
      };
      S.B = [](unsigned I, unsigned G, unsigned T) { return P{T + 4 * I, G}; };
    }
  } else {
    // Integer and b1 types: E = 32 / bits elements per register, 4E of k per thread group.
    unsigned E = 32 / Bits, Regs = S.AElems / E;
    if (M == 8) {
      S.A = [E](unsigned I, unsigned G, unsigned T) { return P{G, T * E + I}; };
      S.B = [E](unsigned I, unsigned G, unsigned T) { return P{T * E + I, G}; };
    } else if (Regs == 2) { // m16n8k16 s8, m16n8k32 s4, m16n8k128 b1
      S.A = [E](unsigned I, unsigned G, unsigned T) {
        return P{I < E ? G : G + 8, T * E + (I % E)};
      };
      S.B = [E](unsigned I, unsigned G, unsigned T) { return P{T * E + I, G}; };
    } else { // m16n8k32 s8, m16n8k64 s4, m16n8k256 b1
      S.A = [E](unsigned I, unsigned G, unsigned T) {
        return P{(I < E || (I >= 2 * E && I < 3 * E)) ? G : G + 8,
                 T * E + (I % E) + (I >= 2 * E ? 4 * E : 0)};
      };
      S.B = [E](unsigned I, unsigned G, unsigned T) {
        return P{T * E + (I % E) + (I >= E ? 4 * E : 0), G};
      };
    }
  }
  return S;
}

/// Registers (32-bit words each, two for f64) of \p Elems elements of \p K.
unsigned wordsOf(Kind K, unsigned Elems) {
  if (K == Kind::F64)
    return 2 * Elems;
  return Elems * bitsOf(K) / 32;
}

/// The element values of fragment words: element i at bits (i % E) * bits of register i / E.
uint64_t elementBits(Kind K, const uint32_t *Words, unsigned I) {
  if (K == Kind::F64)
    return Words[2 * I] | uint64_t(Words[2 * I + 1]) << 32;
  unsigned Bits = bitsOf(K), E = 32 / Bits;
  return (Words[I / E] >> ((I % E) * Bits)) & (Bits == 32 ? ~0u : (1u << Bits) - 1);
}

void setElement(Kind K, uint32_t *Words, unsigned I, uint64_t V) {
  if (K == Kind::F64) {
    Words[2 * I] = uint32_t(V), Words[2 * I + 1] = uint32_t(V >> 32);
    return;
  }
  unsigned Bits = bitsOf(K), E = 32 / Bits, Shift = (I % E) * Bits;
  uint32_t Mask = (Bits == 32 ? ~0u : (1u << Bits) - 1) << Shift;
  Words[I / E] = (Words[I / E] & ~Mask) | (uint32_t(V) << Shift & Mask);
}

/// A PTX register list {%<P>0, ...} of \p N registers.
std::string list(const std::string &P, unsigned N) {
  std::string S = "{";
  for (unsigned J = 0; J < N; ++J)
    S += (J ? ", %" : "%") + P + std::to_string(J);
  return S + "}";
}

struct MmaSpec {
  unsigned M, K;
  Kind D, A, B, C;
  std::string Extra; ///< modifiers before the types (".satfinite", ".xor.popc")
};

/// One mma.sync form: A, B and C fragment words per lane in buffers 0-2, D into buffer 3.
KernelCase mmaCase(const MmaSpec &Sp, uint64_t Seed) {
  MmaShape Sh = shape(Sp.M, Sp.K, Sp.A);
  unsigned CElems = Sp.M / 4;
  unsigned WA = wordsOf(Sp.A, Sh.AElems), WB = wordsOf(Sp.B, Sh.BElems);
  unsigned WC = Sp.C == Kind::F16 ? CElems / 2 : wordsOf(Sp.C, CElems);
  unsigned WD = Sp.D == Kind::F16 ? CElems / 2 : wordsOf(Sp.D, CElems);
  // .satfinite goes before the types, a b1 operation (.xor.popc, .and.popc) after them.
  bool BitOp = Sp.A == Kind::B1;
  const std::string Name = "mma.sync.aligned.m" + std::to_string(Sp.M) + "n8k" +
                           std::to_string(Sp.K) + ".row.col" + (BitOp ? "" : Sp.Extra) + "." +
                           nameOf(Sp.D) + "." + nameOf(Sp.A) + "." + nameOf(Sp.B) + "." +
                           nameOf(Sp.C) + (BitOp ? Sp.Extra : "");
  KernelCase C;
  C.Name = Name;
  C.Grid = {Blocks};
  C.Block = {32 * Warps};
  // Inputs: bit patterns for integers, multiples of 1/2 in [-4, 4] for floats (C: of 1/4).
  std::mt19937_64 R(Seed);
  auto Fill = [&](Kind K, unsigned Elems, bool Acc) {
    unsigned N = Acc && K == Kind::F16 ? Elems / 2 : wordsOf(K, Elems);
    Words W(Tiles * 32 * N, 0);
    for (uint32_t L = 0; L < Tiles * 32; ++L)
      for (unsigned I = 0; I < Elems; ++I) {
        uint64_t V;
        if (K == Kind::S32)
          V = Sp.Extra == ".satfinite" && R() % 4 == 0 ? (R() % 2 ? 0x7ffffff0u : 0x80000010u)
                                                       : uint32_t(R());
        else if (bitsOf(K) <= 8 && !isF8(K))
          V = R();
        else
          V = encode(K, double(int(R() % (Acc ? 33 : 17)) - (Acc ? 16 : 8)) / (Acc ? 4 : 2));
        uint32_t *P = &W[L * N];
        if (Acc && K == Kind::F16) { // two halves per register
          P[I / 2] |= uint32_t(V & 0xffff) << (16 * (I % 2));
          continue;
        }
        setElement(K, P, I, V);
      }
    return W;
  };
  C.Buffers = {Fill(Sp.A, Sh.AElems, false), Fill(Sp.B, Sh.BElems, false), Fill(Sp.C, CElems, true),
               Words(Tiles * 32 * WD, Sentinel)};
  auto RegType = [](Kind K, bool Acc) {
    return K == Kind::F64          ? ".f64"
           : Acc && K == Kind::F32 ? ".f32"
           : Acc && K == Kind::S32 ? ".s32"
                                   : ".b32";
  };
  auto Regs = [](Kind K, unsigned Words) { return K == Kind::F64 ? Words / 2 : Words; };
  unsigned NA = Regs(Sp.A, WA), NB = Regs(Sp.B, WB), NC = Regs(Sp.C, WC), ND = Regs(Sp.D, WD);
  std::ostringstream S;
  S << prologue(4) << "  .reg " << RegType(Sp.A, false) << " %fa<" << NA << ">;\n  .reg "
    << RegType(Sp.B, false) << " %fb<" << NB << ">;\n  .reg " << RegType(Sp.C, true) << " %fc<"
    << NC << ">;\n  .reg " << RegType(Sp.D, true) << " %fd<" << ND << ">;\n"
    << "  mad.lo.u32 %r0, %tile, 32, %lane;\n";
  auto Load = [&](const std::string &P, unsigned Buf, unsigned Words, unsigned N, Kind K,
                  bool Acc) {
    unsigned Bytes = 4 * Words;
    S << "  mul.wide.u32 %rd0, %r0, " << Bytes << ";\n  add.s64 %rd1, %b" << Buf << ", %rd0;\n";
    for (unsigned J = 0; J < N; ++J)
      S << "  ld.global" << RegType(K, Acc) << " %" << P << J << ", [%rd1+" << J * Bytes / N
        << "];\n";
  };
  Load("fa", 0, WA, NA, Sp.A, false);
  Load("fb", 1, WB, NB, Sp.B, false);
  Load("fc", 2, WC, NC, Sp.C, true);
  S << "  " << Name << " " << list("fd", ND) << ", " << list("fa", NA) << ", " << list("fb", NB)
    << ", " << list("fc", NC) << ";\n";
  S << "  mul.wide.u32 %rd0, %r0, " << 4 * WD << ";\n  add.s64 %rd1, %b3, %rd0;\n";
  for (unsigned J = 0; J < ND; ++J)
    S << "  st.global" << RegType(Sp.D, true) << " [%rd1+" << J * 4 * WD / ND << "], %fd" << J
      << ";\n";
  C.Body = S.str() + "DONE:\n  ret;";
  C.Check = [=](const std::vector<Words> &In, const std::vector<Words> &Out) {
    Expected Want(Tiles * 32 * WD, Sentinel);
    for (uint32_t Tile = 0; Tile < Tiles; ++Tile) {
      if (skipped(Tile))
        continue;
      // The whole matrices of this warp from its lanes' fragments.
      std::vector<double> A(Sp.M * Sp.K), B(Sp.K * 8), Cm(Sp.M * 8);
      for (unsigned L = 0; L < 32; ++L) {
        unsigned G = L >> 2, T = L % 4, Lane = Tile * 32 + L;
        for (unsigned I = 0; I < Sh.AElems; ++I) {
          auto [Row, Col] = Sh.A(I, G, T);
          A[Row * Sp.K + Col] = decode(Sp.A, elementBits(Sp.A, &In[0][Lane * WA], I));
        }
        for (unsigned I = 0; I < Sh.BElems; ++I) {
          auto [Row, Col] = Sh.B(I, G, T);
          B[Row * 8 + Col] = decode(Sp.B, elementBits(Sp.B, &In[1][Lane * WB], I));
        }
        for (unsigned I = 0; I < CElems; ++I) {
          auto [Row, Col] = accumulator(Sp.M, I, G, T);
          Cm[Row * 8 + Col] =
              decode(Sp.C, Sp.C == Kind::F16 ? In[2][Lane * WC + I / 2] >> (16 * (I % 2))
                                             : elementBits(Sp.C, &In[2][Lane * WC], I));
        }
      }
      for (unsigned L = 0; L < 32; ++L) {
        unsigned G = L >> 2, T = L % 4, Lane = Tile * 32 + L;
        uint32_t Words[8] = {};
        for (unsigned I = 0; I < CElems; ++I) {
          auto [Row, Col] = accumulator(Sp.M, I, G, T);
          uint64_t Bits;
          if (Sp.A == Kind::B1) {
            int64_t Sum = int64_t(Cm[Row * 8 + Col]);
            for (unsigned K = 0; K < Sp.K; ++K) {
              bool X = A[Row * Sp.K + K] != 0, Y = B[K * 8 + Col] != 0;
              Sum += Sp.Extra == ".xor.popc" ? (X != Y) : (X && Y);
            }
            Bits = uint32_t(Sum);
          } else if (Sp.D == Kind::S32) {
            int64_t Sum = int64_t(Cm[Row * 8 + Col]);
            for (unsigned K = 0; K < Sp.K; ++K)
              Sum += int64_t(A[Row * Sp.K + K]) * int64_t(B[K * 8 + Col]);
            if (Sp.Extra == ".satfinite")
              Sum = std::min<int64_t>(std::max<int64_t>(Sum, INT32_MIN), INT32_MAX);
            Bits = uint32_t(Sum);
          } else {
            double Sum = Cm[Row * 8 + Col]; // exact for these inputs
            for (unsigned K = 0; K < Sp.K; ++K)
              Sum += A[Row * Sp.K + K] * B[K * 8 + Col];
            Bits = encode(Sp.D, Sum);
          }
          if (Sp.D == Kind::F16)
            Words[I / 2] |= uint32_t(Bits) << (16 * (I % 2));
          else
            setElement(Sp.D, Words, I, Bits);
        }
        for (unsigned J = 0; J < WD; ++J)
          Want[Lane * WD + J] = Words[J];
      }
    }
    auto Describe = [WD](size_t I) {
      return "warp " + std::to_string(I / WD / 32) + " lane " + std::to_string(I / WD % 32) +
             " word " + std::to_string(I % WD);
    };
    return compareWords("D", Want, Out[3], Describe);
  };
  return C;
}

/// mma.sync.aligned.m8n8k4 with f16 inputs (ISA 9.7.14.5.1): four 8x8x4 products, product q on
/// lanes 4q..4q+3 ("low") and 16+4q..16+4q+3 ("high"); buffers as in mmaCase.
KernelCase quadPairCase(bool RowA, bool RowB, Kind Acc, uint64_t Seed) {
  const std::string Name = std::string("mma.sync.aligned.m8n8k4.") + (RowA ? "row" : "col") + "." +
                           (RowB ? "row" : "col") + "." + nameOf(Acc) + ".f16.f16." + nameOf(Acc);
  const unsigned WC = Acc == Kind::F16 ? 4 : 8; // accumulator registers
  KernelCase C;
  C.Name = Name;
  C.Grid = {Blocks};
  C.Block = {32 * Warps};
  std::mt19937_64 R(Seed);
  auto Value = [&](unsigned Scale) {
    return double(int(R() % (4 * Scale + 1)) - 2 * int(Scale)) / Scale;
  };
  Words A(Tiles * 32 * 2), B(Tiles * 32 * 2), Cw(Tiles * 32 * WC);
  for (size_t I = 0; I < A.size(); ++I)
    A[I] = uint32_t(encode(Kind::F16, Value(2))) | uint32_t(encode(Kind::F16, Value(2))) << 16;
  for (size_t I = 0; I < B.size(); ++I)
    B[I] = uint32_t(encode(Kind::F16, Value(2))) | uint32_t(encode(Kind::F16, Value(2))) << 16;
  for (uint32_t L = 0; L < Tiles * 32; ++L)
    for (unsigned I = 0; I < 8; ++I) {
      uint64_t Bits = encode(Acc, Value(4));
      if (Acc == Kind::F16)
        Cw[L * 4 + I / 2] |= uint32_t(Bits) << (16 * (I % 2));
      else
        Cw[L * 8 + I] = uint32_t(Bits);
    }
  C.Buffers = {A, B, Cw, Words(Tiles * 32 * WC, Sentinel)};
  const char *RT = Acc == Kind::F16 ? ".b32" : ".f32";
  std::ostringstream S;
  S << prologue(4) << "  .reg .b32 %fa<2>, %fb<2>;\n  .reg " << RT << " %fc<" << WC << ">, %fd<"
    << WC << ">;\n  mad.lo.u32 %r0, %tile, 32, %lane;\n  mul.wide.u32 %rd0, %r0, 8;\n"
    << "  add.s64 %rd1, %b0, %rd0;\n  ld.global.v2.b32 {%fa0, %fa1}, [%rd1];\n"
    << "  add.s64 %rd1, %b1, %rd0;\n  ld.global.v2.b32 {%fb0, %fb1}, [%rd1];\n"
    << "  mul.wide.u32 %rd2, %r0, " << 4 * WC << ";\n  add.s64 %rd1, %b2, %rd2;\n";
  for (unsigned J = 0; J < WC; ++J)
    S << "  ld.global" << RT << " %fc" << J << ", [%rd1+" << 4 * J << "];\n";
  S << "  " << Name << " " << list("fd", WC) << ", " << list("fa", 2) << ", " << list("fb", 2)
    << ", " << list("fc", WC) << ";\n  add.s64 %rd1, %b3, %rd2;\n";
  for (unsigned J = 0; J < WC; ++J)
    S << "  st.global" << RT << " [%rd1+" << 4 * J << "], %fd" << J << ";\n";
  C.Body = S.str() + "DONE:\n  ret;";
  C.Check = [=](const std::vector<Words> &In, const std::vector<Words> &Out) {
    Expected Want(Tiles * 32 * WC, Sentinel);
    // Element (row, column) of accumulator element i of lane L (h = 4 for the high lanes).
    auto AccAt = [Acc](unsigned L, unsigned I) {
      unsigned H = L >= 16 ? 4 : 0;
      if (Acc == Kind::F16)
        return std::pair<unsigned, unsigned>{L % 4 + H, I};
      return std::pair<unsigned, unsigned>{(L & 1) + (I & 2) + H, (I & 4) + (L & 2) + (I & 1)};
    };
    auto Half = [](const Words &W, size_t Word, unsigned I) {
      return decode(Kind::F16, W[Word + I / 2] >> (16 * (I % 2)) & 0xffff);
    };
    for (uint32_t Tile = 0; Tile < Tiles; ++Tile) {
      if (skipped(Tile))
        continue;
      for (unsigned Q = 0; Q < 4; ++Q) {
        double Am[8][4], Bm[4][8], Cm[8][8];
        for (unsigned Side = 0; Side < 2; ++Side)
          for (unsigned J = 0; J < 4; ++J) {
            unsigned L = 16 * Side + 4 * Q + J, Lane = Tile * 32 + L, H = 4 * Side;
            for (unsigned I = 0; I < 4; ++I) {
              double Av = Half(In[0], Lane * 2, I), Bv = Half(In[1], Lane * 2, I);
              if (RowA)
                Am[J + H][I] = Av; // row L % 4 + h, column i
              else
                Am[I + H][J] = Av; // row i + h, column L % 4
              if (RowB)
                Bm[J][I + H] = Bv; // row L % 4, column i + h
              else
                Bm[I][J + H] = Bv; // row i, column L % 4 + h
            }
            for (unsigned I = 0; I < 8; ++I) {
              auto [Row, Col] = AccAt(L, I);
              Cm[Row][Col] = Acc == Kind::F16 ? Half(In[2], Lane * 4, I)
                                              : decode(Kind::F32, In[2][Lane * 8 + I]);
            }
          }
        for (unsigned Side = 0; Side < 2; ++Side)
          for (unsigned J = 0; J < 4; ++J) {
            unsigned L = 16 * Side + 4 * Q + J, Lane = Tile * 32 + L;
            uint32_t W[8] = {};
            for (unsigned I = 0; I < 8; ++I) {
              auto [Row, Col] = AccAt(L, I);
              double Sum = Cm[Row][Col];
              for (unsigned K = 0; K < 4; ++K)
                Sum += Am[Row][K] * Bm[K][Col];
              uint64_t Bits = encode(Acc, Sum);
              if (Acc == Kind::F16)
                W[I / 2] |= uint32_t(Bits) << (16 * (I % 2));
              else
                W[I] = uint32_t(Bits);
            }
            for (unsigned I = 0; I < WC; ++I)
              Want[Lane * WC + I] = W[I];
          }
      }
    }
    return compareWords("D", Want, Out[3]);
  };
  return C;
}

// ---- ldmatrix, stmatrix, movmatrix ----
constexpr unsigned RowsPerWarp = 64, RowBytes = 16, WarpBytes = RowsPerWarp * RowBytes;

/// The row offset each lane gives (a multiple of 16 below WarpBytes), a permutation so that
/// matrix rows are scattered.
Words rowOffsets(uint64_t Seed) {
  std::mt19937_64 R(Seed);
  Words W(Tiles * 32);
  for (uint32_t Tile = 0; Tile < Tiles; ++Tile) {
    std::vector<uint32_t> Rows(RowsPerWarp);
    for (unsigned J = 0; J < RowsPerWarp; ++J)
      Rows[J] = J;
    std::shuffle(Rows.begin(), Rows.end(), R);
    for (unsigned L = 0; L < 32; ++L)
      W[Tile * 32 + L] = Rows[L] * RowBytes;
  }
  return W;
}

/// The byte at \p Offset of a warp's shared words.
uint16_t halfAt(const uint32_t *Mem, uint32_t Offset) {
  return uint16_t(Mem[Offset / 4] >> (8 * (Offset % 4)));
}

/// ldmatrix: buffer 0 the shared contents of each warp, buffer 1 each lane's row offset,
/// buffer 2 the loaded registers.
KernelCase ldmatrixCase(unsigned Count, bool Trans, bool Generic) {
  KernelCase C;
  const std::string X = ".x" + std::to_string(Count);
  C.Name = "ldmatrix.sync.aligned.m8n8" + X + (Trans ? ".trans" : "") + (Generic ? "" : ".shared") +
           ".b16";
  C.Grid = {Blocks};
  C.Block = {32 * Warps};
  C.Globals = ".shared .align 16 .b8 {K}_s[" + std::to_string(Warps * WarpBytes) + "];\n";
  const unsigned WordsPerWarp = WarpBytes / 4;
  C.Buffers = {randomWords(Tiles * WordsPerWarp, 0x1d0 + Count + 8 * Trans),
               rowOffsets(0x1d8 + Count + 8 * Trans), Words(Tiles * 32 * Count, Sentinel)};
  std::ostringstream S;
  S << prologue(3) << "  .reg .b32 %m<" << Count << ">;\n"
    << "  mov.u32 %r1, {K}_s;\n  mad.lo.u32 %r1, %warp, " << WarpBytes << ", %r1;\n"
    << "  mul.lo.u32 %r2, %tile, " << WordsPerWarp << ";\n";
  // Copy the warp's words into its shared region (lane j copies words j, j + 32, ...).
  S << "  mov.u32 %r3, %lane;\nCOPY:\n  add.u32 %r4, %r2, %r3;\n  mul.wide.u32 %rd0, %r4, 4;\n"
    << "  add.s64 %rd0, %b0, %rd0;\n  ld.global.u32 %r5, [%rd0];\n  shl.b32 %r6, %r3, 2;\n"
    << "  add.u32 %r6, %r1, %r6;\n  st.shared.u32 [%r6], %r5;\n  add.u32 %r3, %r3, 32;\n"
    << "  setp.lt.u32 %p1, %r3, " << WordsPerWarp << ";\n  @%p1 bra COPY;\n"
    << "  bar.warp.sync -1;\n  mad.lo.u32 %r7, %tile, 32, %lane;\n"
    << "  mul.wide.u32 %rd2, %r7, 4;\n  add.s64 %rd3, %b1, %rd2;\n  ld.global.u32 %r8, [%rd3];\n"
    << "  add.u32 %r9, %r1, %r8;\n";
  if (Generic)
    S << "  cvt.u64.u32 %rd4, %r9;\n  cvta.shared.u64 %rd4, %rd4;\n  " << C.Name << " "
      << list("m", Count) << ", [%rd4];\n";
  else
    S << "  " << C.Name << " " << list("m", Count) << ", [%r9];\n";
  S << "  mul.wide.u32 %rd5, %r7, " << 4 * Count << ";\n  add.s64 %rd5, %b2, %rd5;\n";
  for (unsigned J = 0; J < Count; ++J)
    S << "  st.global.u32 [%rd5+" << 4 * J << "], %m" << J << ";\n";
  C.Body = S.str() + "DONE:\n  ret;";
  C.Check = [=](const std::vector<Words> &In, const std::vector<Words> &Out) {
    Expected Want(Tiles * 32 * Count, Sentinel);
    for (uint32_t Tile = 0; Tile < Tiles; ++Tile) {
      if (skipped(Tile))
        continue;
      const uint32_t *Mem = &In[0][Tile * WordsPerWarp];
      auto Row = [&](unsigned Lane) { return In[1][Tile * 32 + Lane]; };
      for (unsigned L = 0; L < 32; ++L)
        for (unsigned I = 0; I < Count; ++I) {
          uint32_t W;
          if (!Trans) { // row L / 4 of matrix I, columns 2 (L % 4) and + 1
            uint32_t Off = Row(8 * I + L / 4) + 4 * (L % 4);
            W = halfAt(Mem, Off) | uint32_t(halfAt(Mem, Off + 2)) << 16;
          } else { // the transpose: rows 2 (L % 4) and + 1 of memory, column L / 4
            W = halfAt(Mem, Row(8 * I + 2 * (L % 4)) + 2 * (L / 4)) |
                uint32_t(halfAt(Mem, Row(8 * I + 2 * (L % 4) + 1) + 2 * (L / 4))) << 16;
          }
          Want[(Tile * 32 + L) * Count + I] = W;
        }
    }
    return compareWords("D", Want, Out[2]);
  };
  return C;
}

/// stmatrix: buffer 0 each lane's registers, buffer 1 row offsets, buffer 2 the shared region
/// of each warp afterwards (filled with the sentinel before).
KernelCase stmatrixCase(unsigned Count, bool Trans) {
  KernelCase C;
  C.Name = "stmatrix.sync.aligned.m8n8.x" + std::to_string(Count) + (Trans ? ".trans" : "") +
           ".shared.b16";
  C.Grid = {Blocks};
  C.Block = {32 * Warps};
  C.Globals = ".shared .align 16 .b8 {K}_s[" + std::to_string(Warps * WarpBytes) + "];\n";
  const unsigned WordsPerWarp = WarpBytes / 4;
  C.Buffers = {randomWords(Tiles * 32 * Count, 0x5d0 + Count + 8 * Trans),
               rowOffsets(0x5d8 + Count + 8 * Trans), Words(Tiles * WordsPerWarp, 0)};
  std::ostringstream S;
  S << prologue(3) << "  .reg .b32 %m<" << Count << ">;\n"
    << "  mov.u32 %r1, {K}_s;\n  mad.lo.u32 %r1, %warp, " << WarpBytes << ", %r1;\n"
    << "  mov.u32 %r3, %lane;\nFILL:\n  shl.b32 %r6, %r3, 2;\n  add.u32 %r6, %r1, %r6;\n"
    << "  st.shared.u32 [%r6], " << Sentinel << ";\n  add.u32 %r3, %r3, 32;\n"
    << "  setp.lt.u32 %p1, %r3, " << WordsPerWarp << ";\n  @%p1 bra FILL;\n"
    << "  bar.warp.sync -1;\n  mad.lo.u32 %r7, %tile, 32, %lane;\n"
    << "  mul.wide.u32 %rd2, %r7, 4;\n  add.s64 %rd3, %b1, %rd2;\n  ld.global.u32 %r8, [%rd3];\n"
    << "  add.u32 %r9, %r1, %r8;\n  mul.wide.u32 %rd5, %r7, " << 4 * Count
    << ";\n  add.s64 %rd5, %b0, %rd5;\n";
  for (unsigned J = 0; J < Count; ++J)
    S << "  ld.global.u32 %m" << J << ", [%rd5+" << 4 * J << "];\n";
  S << "  " << C.Name << " [%r9], " << list("m", Count) << ";\n  bar.warp.sync -1;\n"
    << "  mul.lo.u32 %r2, %tile, " << WordsPerWarp << ";\n  mov.u32 %r3, %lane;\n"
    << "BACK:\n  shl.b32 %r6, %r3, 2;\n  add.u32 %r6, %r1, %r6;\n  ld.shared.u32 %r5, [%r6];\n"
    << "  add.u32 %r4, %r2, %r3;\n  mul.wide.u32 %rd0, %r4, 4;\n  add.s64 %rd0, %b2, %rd0;\n"
    << "  st.global.u32 [%rd0], %r5;\n  add.u32 %r3, %r3, 32;\n  setp.lt.u32 %p1, %r3, "
    << WordsPerWarp << ";\n  @%p1 bra BACK;\n";
  C.Body = S.str() + "DONE:\n  ret;";
  C.Check = [=](const std::vector<Words> &In, const std::vector<Words> &Out) {
    Expected Want(Tiles * WordsPerWarp, 0u);
    for (uint32_t Tile = 0; Tile < Tiles; ++Tile) {
      if (skipped(Tile))
        continue;
      std::vector<uint32_t> Mem(WordsPerWarp, Sentinel);
      auto Put = [&](uint32_t Off, uint16_t H) {
        uint32_t &W = Mem[Off / 4];
        W = (W & ~(0xffffu << (8 * (Off % 4)))) | uint32_t(H) << (8 * (Off % 4));
      };
      auto Row = [&](unsigned Lane) { return In[1][Tile * 32 + Lane]; };
      for (unsigned L = 0; L < 32; ++L)
        for (unsigned I = 0; I < Count; ++I) {
          uint32_t W = In[0][(Tile * 32 + L) * Count + I];
          for (unsigned J = 0; J < 2; ++J) {
            // Element (row L / 4, column 2 (L % 4) + j) of matrix I, or of its transpose.
            uint32_t Off = Trans ? Row(8 * I + 2 * (L % 4) + J) + 2 * (L / 4)
                                 : Row(8 * I + L / 4) + 4 * (L % 4) + 2 * J;
            Put(Off, uint16_t(W >> (16 * J)));
          }
        }
      for (unsigned J = 0; J < WordsPerWarp; ++J)
        Want[Tile * WordsPerWarp + J] = Mem[J];
    }
    return compareWords("shared", Want, Out[2]);
  };
  return C;
}

/// movmatrix.sync.aligned.m8n8.trans.b16: buffer 0 each lane's register, buffer 1 the result.
KernelCase movmatrixCase() {
  KernelCase C;
  C.Name = "movmatrix.sync.aligned.m8n8.trans.b16";
  C.Grid = {Blocks};
  C.Block = {32 * Warps};
  C.Buffers = {randomWords(Tiles * 32, 0x77), Words(Tiles * 32, Sentinel)};
  C.Body = prologue(2) + "  mad.lo.u32 %r7, %tile, 32, %lane;\n  mul.wide.u32 %rd2, %r7, 4;\n"
                         "  add.s64 %rd3, %b0, %rd2;\n  ld.global.u32 %r1, [%rd3];\n"
                         "  movmatrix.sync.aligned.m8n8.trans.b16 %r2, %r1;\n"
                         "  add.s64 %rd4, %b1, %rd2;\n  st.global.u32 [%rd4], %r2;\nDONE:\n  ret;";
  C.Check = [=](const std::vector<Words> &In, const std::vector<Words> &Out) {
    Expected Want(Tiles * 32, Sentinel);
    for (uint32_t Tile = 0; Tile < Tiles; ++Tile) {
      if (skipped(Tile))
        continue;
      // Element (r, c) of the matrix: lane r * 4 + c / 2, half c % 2.
      auto At = [&](unsigned R, unsigned Col) {
        return uint16_t(In[0][Tile * 32 + R * 4 + Col / 2] >> (16 * (Col % 2)));
      };
      for (unsigned L = 0; L < 32; ++L) {
        unsigned R = L / 4, Col = 2 * (L % 4);
        Want[Tile * 32 + L] = At(Col, R) | uint32_t(At(Col + 1, R)) << 16;
      }
    }
    return compareWords("D", Want, Out[1]);
  };
  return C;
}

} // namespace

KernelFamily tensorCores() {
  KernelFamily F{"tensor", {}};
  using K = Kind;
  const MmaSpec Mmas[] = {
      {16, 16, K::F32, K::F16, K::F16, K::F32, ""},
      {16, 16, K::F16, K::F16, K::F16, K::F16, ""},
      {16, 16, K::F32, K::F16, K::F16, K::F16, ""},
      {16, 16, K::F16, K::F16, K::F16, K::F32, ""},
      {16, 16, K::F32, K::BF16, K::BF16, K::F32, ""},
      {16, 8, K::F32, K::F16, K::F16, K::F32, ""},
      {16, 8, K::F16, K::F16, K::F16, K::F16, ""},
      {16, 8, K::F32, K::BF16, K::BF16, K::F32, ""},
      {16, 8, K::F32, K::TF32, K::TF32, K::F32, ""},
      {16, 4, K::F32, K::TF32, K::TF32, K::F32, ""},
      {8, 4, K::F64, K::F64, K::F64, K::F64, ""},
      {16, 4, K::F64, K::F64, K::F64, K::F64, ""},
      {16, 8, K::F64, K::F64, K::F64, K::F64, ""},
      {16, 16, K::F64, K::F64, K::F64, K::F64, ""},
      {8, 16, K::S32, K::S8, K::U8, K::S32, ""},
      {16, 16, K::S32, K::S8, K::S8, K::S32, ""},
      {16, 16, K::S32, K::U8, K::U8, K::S32, ".satfinite"},
      {16, 32, K::S32, K::S8, K::S8, K::S32, ".satfinite"},
      {16, 32, K::S32, K::U8, K::S8, K::S32, ""},
      {8, 32, K::S32, K::S4, K::S4, K::S32, ""},
      {16, 32, K::S32, K::U4, K::S4, K::S32, ".satfinite"},
      {16, 64, K::S32, K::S4, K::U4, K::S32, ""},
      {8, 128, K::S32, K::B1, K::B1, K::S32, ".xor.popc"},
      {16, 128, K::S32, K::B1, K::B1, K::S32, ".and.popc"},
      {16, 256, K::S32, K::B1, K::B1, K::S32, ".xor.popc"},
      {16, 32, K::F32, K::E4M3, K::E4M3, K::F32, ""},
      {16, 32, K::F32, K::E4M3, K::E5M2, K::F32, ""},
      {16, 32, K::F32, K::E5M2, K::E5M2, K::F32, ""},
  };
  uint64_t Seed = 0x7e50;
  for (const MmaSpec &S : Mmas)
    F.Cases.push_back(mmaCase(S, Seed++));
  for (bool RowA : {false, true})
    for (bool RowB : {false, true})
      for (Kind Acc : {Kind::F16, Kind::F32})
        F.Cases.push_back(quadPairCase(RowA, RowB, Acc, Seed++));
  for (unsigned Count : {1u, 2u, 4u})
    for (bool Trans : {false, true}) {
      F.Cases.push_back(ldmatrixCase(Count, Trans, false));
      F.Cases.push_back(stmatrixCase(Count, Trans));
    }
  F.Cases.push_back(ldmatrixCase(4, true, true));
  F.Cases.push_back(movmatrixCase());
  return F;
}

} // namespace conformance
