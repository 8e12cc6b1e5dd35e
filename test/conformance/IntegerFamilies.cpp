// Integer families: references written from the PTX ISA's description of each instruction
// (its "Semantics" pseudo-code where it has one), not from the lowering.
// The types and helpers every family uses are in IntegerSupport.h; shifts, bit manipulation,
// logic, comparison and cvt are in IntegerBitFamilies.cpp.
#include "IntegerSupport.h"

#include <array>
#include <bit>
#include <map>

namespace conformance {

namespace integer_families {

// --- integer arithmetic -------------------------------------------------------------------

Family arithmetic() {
  Family F{"int-arith", {}};
  auto &C = F.Cases;
  for (const IntType &T : Ints) {
    const unsigned B = T.Bits;
    const std::string S = sfx(T);
    C.push_back(make(bin("add" + S), {op("a", T), op("b", T)}, op("d", T),
                     [](const uint64_t *I) -> Opt { return I[0] + I[1]; }));
    C.push_back(make(bin("sub" + S), {op("a", T), op("b", T)}, op("d", T),
                     [](const uint64_t *I) -> Opt { return I[0] - I[1]; }));
    C.push_back(make(bin("mul.lo" + S), {op("a", T), op("b", T)}, op("d", T),
                     [](const uint64_t *I) -> Opt { return I[0] * I[1]; }));
    C.push_back(make(
        bin("mul.hi" + S), {op("a", T), op("b", T)}, op("d", T),
        [T, B](const uint64_t *I) -> Opt { return uint64_t((val(I[0], T) * val(I[1], T)) >> B); }));
    C.push_back(make(ter("mad.lo" + S), {op("a", T), op("b", T), op("c", T)}, op("d", T),
                     [](const uint64_t *I) -> Opt { return I[0] * I[1] + I[2]; }));
    C.push_back(make(ter("mad.hi" + S), {op("a", T), op("b", T), op("c", T)}, op("d", T),
                     [T, B](const uint64_t *I) -> Opt {
                       return uint64_t((val(I[0], T) * val(I[1], T)) >> B) + I[2];
                     }));
    if (B < 64) {
      C.push_back(
          make(bin("mul.wide" + S), {op("a", T), op("b", T)}, ofBits("d", 2 * B),
               [T](const uint64_t *I) -> Opt { return uint64_t(val(I[0], T) * val(I[1], T)); }));
      C.push_back(make(
          ter("mad.wide" + S), {op("a", T), op("b", T), ofBits("c", 2 * B)}, ofBits("d", 2 * B),
          [T](const uint64_t *I) -> Opt { return uint64_t(val(I[0], T) * val(I[1], T)) + I[2]; }));
    }
    // sad: c + |a - b|, the difference taken in the type's signedness.
    C.push_back(make(ter("sad" + S), {op("a", T), op("b", T), op("c", T)}, op("d", T),
                     [T](const uint64_t *I) -> Opt {
                       I128 A = val(I[0], T), Bv = val(I[1], T);
                       return uint64_t(A < Bv ? Bv - A : A - Bv) + I[2];
                     }));
    // Division by zero is machine-specific in PTX, and MIN / -1 overflows: only run those.
    auto Undefined = [T](const uint64_t *I) {
      return val(I[1], T) == 0 || (T.Signed && val(I[0], T) == minOf(T) && val(I[1], T) == -1);
    };
    C.push_back(make(bin("div" + S), {op("a", T), op("b", T)}, op("d", T),
                     [T, Undefined](const uint64_t *I) -> Opt {
                       if (Undefined(I))
                         return {};
                       return uint64_t(val(I[0], T) / val(I[1], T));
                     }));
    C.push_back(make(bin("rem" + S), {op("a", T), op("b", T)}, op("d", T),
                     [T, Undefined](const uint64_t *I) -> Opt {
                       if (Undefined(I))
                         return {};
                       return uint64_t(val(I[0], T) % val(I[1], T));
                     }));
  }
  // .sat exists for s32 only: the exact result clamped to [INT_MIN, INT_MAX].
  C.push_back(make(bin("add.sat.s32"), {op("a", S32), op("b", S32)}, op("d", S32),
                   [](const uint64_t *I) -> Opt {
                     return uint64_t(clamp(val(I[0], S32) + val(I[1], S32), S32));
                   }));
  C.push_back(make(bin("sub.sat.s32"), {op("a", S32), op("b", S32)}, op("d", S32),
                   [](const uint64_t *I) -> Opt {
                     return uint64_t(clamp(val(I[0], S32) - val(I[1], S32), S32));
                   }));
  C.push_back(make(ter("mad.hi.sat.s32"), {op("a", S32), op("b", S32), op("c", S32)}, op("d", S32),
                   [](const uint64_t *I) -> Opt {
                     I128 Hi = (val(I[0], S32) * val(I[1], S32)) >> 32;
                     return uint64_t(clamp(Hi + val(I[2], S32), S32));
                   }));
  // mul24/mad24: the product of two 24-bit values held in 32-bit registers; operands outside
  // the 24-bit range are not described by the ISA.
  for (const IntType &T : {U32, S32}) {
    auto Fits24 = [T](uint64_t V) {
      I128 X = val(V, T);
      return T.Signed ? X >= -(1 << 23) && X < (1 << 23) : X < (1 << 24);
    };
    Operand A = op("a", T), Bo = op("b", T);
    A.SmallBelow = Bo.SmallBelow = 1u << 24;
    for (const char *Mode : {"lo", "hi"}) {
      const bool Hi = Mode[0] == 'h';
      C.push_back(make(bin(std::string("mul24.") + Mode + sfx(T)), {A, Bo}, op("d", T),
                       [=](const uint64_t *I) -> Opt {
                         if (!Fits24(I[0]) || !Fits24(I[1]))
                           return {};
                         I128 P = val(I[0], T) * val(I[1], T);
                         return uint64_t(Hi ? P >> 16 : P);
                       }));
      C.push_back(make(ter(std::string("mad24.") + Mode + sfx(T)), {A, Bo, op("c", T)}, op("d", T),
                       [=](const uint64_t *I) -> Opt {
                         if (!Fits24(I[0]) || !Fits24(I[1]))
                           return {};
                         I128 P = val(I[0], T) * val(I[1], T);
                         return uint64_t(Hi ? P >> 16 : P) + I[2];
                       }));
    }
    if (T.Signed)
      C.push_back(make(ter("mad24.hi.sat.s32"), {A, Bo, op("c", T)}, op("d", T),
                       [=](const uint64_t *I) -> Opt {
                         if (!Fits24(I[0]) || !Fits24(I[1]))
                           return {};
                         I128 P = (val(I[0], T) * val(I[1], T)) >> 16;
                         return uint64_t(clamp(I128(int32_t(P)) + val(I[2], T), S32));
                       }));
  }
  return F;
}

// --- min/max, abs/neg -----------------------------------------------------------------------

/// Applies \p F to each 16-bit half of two 32-bit values.
uint64_t halves(uint64_t A, uint64_t B, const std::function<I128(I128, I128)> &F, bool Signed) {
  const IntType T = Signed ? S16 : U16;
  uint64_t R = 0;
  for (unsigned K = 0; K < 32; K += 16)
    R |= (uint64_t(F(val(A >> K, T), val(B >> K, T))) & 0xffff) << K;
  return R;
}

Family minMax() {
  Family F{"minmax-abs-neg", {}};
  auto &C = F.Cases;
  auto Min = [](I128 A, I128 B) { return std::min(A, B); };
  auto Max = [](I128 A, I128 B) { return std::max(A, B); };
  for (const IntType &T : Ints) {
    C.push_back(
        make(bin("min" + sfx(T)), {op("a", T), op("b", T)}, op("d", T),
             [=](const uint64_t *I) -> Opt { return uint64_t(Min(val(I[0], T), val(I[1], T))); }));
    C.push_back(
        make(bin("max" + sfx(T)), {op("a", T), op("b", T)}, op("d", T),
             [=](const uint64_t *I) -> Opt { return uint64_t(Max(val(I[0], T), val(I[1], T))); }));
  }
  // .relu clamps a negative result to 0 (s32 and s16x2 only).
  C.push_back(make(bin("min.relu.s32"), {op("a", S32), op("b", S32)}, op("d", S32),
                   [=](const uint64_t *I) -> Opt {
                     return uint64_t(Max(Min(val(I[0], S32), val(I[1], S32)), 0));
                   }));
  C.push_back(make(bin("max.relu.s32"), {op("a", S32), op("b", S32)}, op("d", S32),
                   [=](const uint64_t *I) -> Opt {
                     return uint64_t(Max(Max(val(I[0], S32), val(I[1], S32)), 0));
                   }));
  for (bool Signed : {false, true}) {
    const std::string Ty = Signed ? ".s16x2" : ".u16x2";
    C.push_back(make(bin("min" + Ty), {b32("a"), b32("b")}, b32("d"),
                     [=](const uint64_t *I) -> Opt { return halves(I[0], I[1], Min, Signed); }));
    C.push_back(make(bin("max" + Ty), {b32("a"), b32("b")}, b32("d"),
                     [=](const uint64_t *I) -> Opt { return halves(I[0], I[1], Max, Signed); }));
  }
  C.push_back(
      make(bin("min.relu.s16x2"), {b32("a"), b32("b")}, b32("d"), [=](const uint64_t *I) -> Opt {
        return halves(
            I[0], I[1], [&](I128 A, I128 B) { return Max(Min(A, B), 0); }, true);
      }));
  C.push_back(
      make(bin("max.relu.s16x2"), {b32("a"), b32("b")}, b32("d"), [=](const uint64_t *I) -> Opt {
        return halves(
            I[0], I[1], [&](I128 A, I128 B) { return Max(Max(A, B), 0); }, true);
      }));
  for (const IntType &T : {S16, S32, S64}) {
    // abs(MIN) is MIN: the negation wraps.
    C.push_back(
        make("abs" + sfx(T) + " %d, %a;", {op("a", T)}, op("d", T), [=](const uint64_t *I) -> Opt {
          I128 A = val(I[0], T);
          return uint64_t(A < 0 ? -A : A);
        }));
    C.push_back(make("neg" + sfx(T) + " %d, %a;", {op("a", T)}, op("d", T),
                     [=](const uint64_t *I) -> Opt { return uint64_t(-val(I[0], T)); }));
  }
  return F;
}

// --- extended precision ----------------------------------------------------------------------

/// \p Limbs limbs of \p W bits each, least significant first, from In[First...].
U128 wide(const uint64_t *In, unsigned First, unsigned Limbs, unsigned W) {
  U128 V = 0;
  for (unsigned K = 0; K < Limbs; ++K)
    V |= U128(In[First + K] & mask(W)) << (K * W);
  return V;
}

Family extended() {
  Family F{"extended", {}};
  // 128-bit add and subtract as carry chains of four 32-bit or two 64-bit limbs, then the carry
  // (borrow) out read with addc/subc of zeros.
  for (unsigned W : {32u, 64u})
    for (const char *Ty : {"u", "s"})
      for (bool Sub : {false, true}) {
        const unsigned N = 128 / W;
        const std::string T = std::string(".") + Ty + std::to_string(W);
        const std::string Op = Sub ? "sub" : "add";
        Case C;
        C.Name = Op + "128 chain" + T;
        for (unsigned K = 0; K < N; ++K) {
          const std::string Ks = std::to_string(K);
          C.Inputs.push_back(ofBits("a" + Ks, W));
          C.Outputs.push_back(ofBits("d" + Ks, W));
          C.Body += (K == 0 ? Op + ".cc" : Op + "c.cc") + T + " %d" + Ks + ", %a" + Ks + ", %b" +
                    Ks + ";\n";
        }
        for (unsigned K = 0; K < N; ++K)
          C.Inputs.push_back(ofBits("b" + std::to_string(K), W));
        C.Body += Op + "c" + T + " %cy, 0, 0;";
        C.Outputs.push_back(ofBits("cy", W));
        C.Ref = [=](const uint64_t *I, uint64_t *O) {
          const U128 A = wide(I, 0, N, W), B = wide(I, N, N, W);
          const U128 D = Sub ? A - B : A + B;
          const bool Carry = Sub ? A < B : D < A;
          for (unsigned K = 0; K < N; ++K)
            O[K] = uint64_t(D >> (K * W));
          // subc of zeros subtracts the borrow: 0 or all ones.
          O[N] = Sub ? 0 - uint64_t(Carry) : uint64_t(Carry);
          return true;
        };
        F.Cases.push_back(std::move(C));
      }
  // 64x64 -> 128-bit product from 32-bit limbs, as in the ISA's madc example.
  {
    Case C;
    C.Name = "mul64x64 madc chain.u32";
    C.Inputs = {b32("a0"), b32("a1"), b32("b0"), b32("b1")};
    C.Outputs = {b32("d0"), b32("d1"), b32("d2"), b32("d3")};
    C.Body = "mul.lo.u32 %d0, %a0, %b0;\n"
             "mul.hi.u32 %d1, %a0, %b0;\n"
             "mad.lo.cc.u32 %d1, %a1, %b0, %d1;\n"
             "madc.hi.u32 %d2, %a1, %b0, 0;\n"
             "mad.lo.cc.u32 %d1, %a0, %b1, %d1;\n"
             "madc.hi.cc.u32 %d2, %a0, %b1, %d2;\n"
             "addc.u32 %d3, 0, 0;\n"
             "mad.lo.cc.u32 %d2, %a1, %b1, %d2;\n"
             "madc.hi.u32 %d3, %a1, %b1, %d3;";
    C.Ref = [](const uint64_t *I, uint64_t *O) {
      const U128 P = U128(wide(I, 0, 2, 32)) * U128(wide(I, 2, 2, 32));
      for (unsigned K = 0; K < 4; ++K)
        O[K] = uint64_t(P >> (32 * K)) & 0xffffffff;
      return true;
    };
    F.Cases.push_back(std::move(C));
  }
  // (a * b) + {c1, c0} over 128 bits with 64-bit mad.lo.cc / madc.hi.
  for (const IntType &T : {U64, S64}) {
    Case C;
    C.Name = std::string("mad128 madc chain") + sfx(T);
    C.Inputs = {b64("a"), b64("b"), b64("c0"), b64("c1")};
    C.Outputs = {b64("d0"), b64("d1")};
    C.Body = "mad.lo.cc" + sfx(T) + " %d0, %a, %b, %c0;\nmadc.hi" + sfx(T) + " %d1, %a, %b, %c1;";
    C.Ref = [=](const uint64_t *I, uint64_t *O) {
      const U128 P = U128(val(I[0], T) * val(I[1], T));
      const U128 Lo = U128(uint64_t(P)) + I[2];
      O[0] = uint64_t(Lo);
      O[1] = uint64_t(P >> 64) + I[3] + uint64_t(Lo >> 64);
      return true;
    };
    F.Cases.push_back(std::move(C));
  }
  return F;
}

// --- dp4a / dp2a -----------------------------------------------------------------------------

Family dotProducts() {
  Family F{"dp4a-dp2a", {}};
  const IntType U8{"u8", 8, false}, S8{"s8", 8, true};
  for (const IntType &A : {U32, S32})
    for (const IntType &B : {U32, S32}) {
      const IntType &Ea = A.Signed ? S8 : U8, &Eb = B.Signed ? S8 : U8;
      // d = c + the sum of the four byte products, each byte extended by its operand's type.
      F.Cases.push_back(make("dp4a" + sfx(A) + sfx(B) + " %d, %a, %b, %c;",
                             {b32("a"), b32("b"), b32("c")}, b32("d"),
                             [=](const uint64_t *I) -> Opt {
                               I128 Sum = val(I[2], S32);
                               for (unsigned K = 0; K < 32; K += 8)
                                 Sum += val(I[0] >> K, Ea) * val(I[1] >> K, Eb);
                               return uint64_t(Sum);
                             }));
      // dp2a: a's two 16-bit halves times two bytes of b (bytes 0-1 for .lo, 2-3 for .hi).
      const IntType &Ha = A.Signed ? S16 : U16;
      for (bool Hi : {false, true})
        F.Cases.push_back(
            make(std::string("dp2a") + (Hi ? ".hi" : ".lo") + sfx(A) + sfx(B) + " %d, %a, %b, %c;",
                 {b32("a"), b32("b"), b32("c")}, b32("d"), [=](const uint64_t *I) -> Opt {
                   I128 Sum = val(I[2], S32);
                   for (unsigned K = 0; K < 2; ++K)
                     Sum += val(I[0] >> (16 * K), Ha) * val(I[1] >> (8 * (K + (Hi ? 2 : 0))), Eb);
                   return uint64_t(Sum);
                 }));
    }
  return F;
}

// --- scalar video instructions ---------------------------------------------------------------

/// Whether \p V fits the scalar video instructions' signed 34-bit intermediate result.
bool fitsS34(I128 V) { return V >= -(I128(1) << 33) && V < (I128(1) << 33); }

/// The selected byte (.b0-.b3), half (.h0, .h1) or whole word of \p V, extended by its type.
I128 part(uint64_t V, const std::string &Sel, bool Signed) {
  if (Sel.empty())
    return val(V, Signed ? S32 : U32);
  const unsigned Index = Sel[1] - '0';
  const bool Byte = Sel[0] == 'b';
  const IntType T{"", Byte ? 8u : 16u, Signed};
  return val(V >> (Index * (Byte ? 8 : 16)), T);
}

Family video() {
  Family F{"video-scalar", {}};
  struct Variant {
    std::string Op2, ASel, BSel;
    bool AllTypes; ///< every dtype/atype/btype combination, else u32 and s32 throughout
  };
  const Variant Variants[] = {{"", "", "", true},        {"add", "", "", false},
                              {"min", "", "", false},    {"max", "", "", false},
                              {"", "b1", "h1", false},   {"", "h0", "b3", false},
                              {"add", "b2", "b0", false}};
  for (const char *Vop : {"vadd", "vsub", "vabsdiff", "vmin", "vmax"})
    for (const Variant &V : Variants)
      for (unsigned Types = 0; Types < 8; ++Types) {
        const bool DS = Types & 4, AS = Types & 2, BS = Types & 1;
        if (!V.AllTypes && Types != 0 && Types != 7)
          continue;
        for (bool Sat : {false, true}) {
          auto Ty = [](bool S) { return S ? ".s32" : ".u32"; };
          std::string Body = std::string(Vop) + Ty(DS) + Ty(AS) + Ty(BS) + (Sat ? ".sat" : "") +
                             (V.Op2.empty() ? "" : "." + V.Op2) + " %d, %a" +
                             (V.ASel.empty() ? "" : "." + V.ASel) + ", %b" +
                             (V.BSel.empty() ? "" : "." + V.BSel) + (V.Op2.empty() ? ";" : ", %c;");
          std::vector<Operand> In = {b32("a"), b32("b")};
          if (!V.Op2.empty())
            In.push_back(b32("c"));
          const std::string Name = Vop;
          F.Cases.push_back(make(Body, In, b32("d"), [=](const uint64_t *I) -> Opt {
            const I128 A = part(I[0], V.ASel, AS), B = part(I[1], V.BSel, BS);
            I128 T = Name == "vadd"       ? A + B
                     : Name == "vsub"     ? A - B
                     : Name == "vabsdiff" ? (A > B ? A - B : B - A)
                     : Name == "vmin"     ? std::min(A, B)
                                          : std::max(A, B);
            // Saturation to the destination type comes before the secondary operation.
            if (Sat)
              T = clamp(T, DS ? S32 : U32);
            else
              T = val(uint64_t(T), DS ? S32 : U32);
            if (V.Op2.empty())
              return uint64_t(T);
            const I128 C = val(I[2], DS ? S32 : U32);
            return uint64_t(V.Op2 == "add"   ? T + C
                            : V.Op2 == "min" ? std::min(T, C)
                                             : std::max(T, C));
          }));
        }
      }
  // vshl/vshr: the count is b's selected part, unsigned; .clamp stops it at 32, .wrap keeps its
  // low five bits. The ISA's intermediate result is a signed 34-bit value: a left shift beyond
  // it has no defined saturation (wrapping it to 34 bits would clamp 2 << 32 to 0), so with
  // .sat those inputs only have to run; without .sat only the low 32 bits count.
  struct Shift {
    std::string Mode, Op2, ASel, BSel;
  };
  const Shift Shifts[] = {{"clamp", "", "", ""},    {"wrap", "", "", ""},
                          {"clamp", "add", "", ""}, {"wrap", "min", "", ""},
                          {"clamp", "max", "", ""}, {"clamp", "", "h1", "b0"},
                          {"wrap", "", "b2", "h1"}};
  for (const char *Vop : {"vshl", "vshr"})
    for (const Shift &V : Shifts)
      for (unsigned Types = 0; Types < 4; ++Types) {
        const bool DS = Types & 2, AS = Types & 1;
        for (bool Sat : {false, true}) {
          auto Ty = [](bool S) { return S ? ".s32" : ".u32"; };
          std::string Body = std::string(Vop) + Ty(DS) + Ty(AS) + ".u32" + (Sat ? ".sat" : "") +
                             "." + V.Mode + (V.Op2.empty() ? "" : "." + V.Op2) + " %d, %a" +
                             (V.ASel.empty() ? "" : "." + V.ASel) + ", %b" +
                             (V.BSel.empty() ? "" : "." + V.BSel) + (V.Op2.empty() ? ";" : ", %c;");
          std::vector<Operand> In = {b32("a"), count("b", 32, 32)};
          if (!V.Op2.empty())
            In.push_back(b32("c"));
          const bool Left = std::string(Vop) == "vshl";
          F.Cases.push_back(make(Body, In, b32("d"), [=](const uint64_t *I) -> Opt {
            const I128 A = part(I[0], V.ASel, AS);
            I128 N = part(I[1], V.BSel, false);
            N = V.Mode == "clamp" ? std::min<I128>(N, 32) : N & 31;
            const I128 T = Left ? A << int(N) : A >> int(N);
            if (Sat && !fitsS34(T))
              return std::nullopt;
            const I128 R = Sat ? clamp(T, DS ? S32 : U32) : val(uint64_t(T), DS ? S32 : U32);
            if (V.Op2.empty())
              return uint64_t(R);
            const I128 C = val(I[2], DS ? S32 : U32);
            return uint64_t(V.Op2 == "add"   ? R + C
                            : V.Op2 == "min" ? std::min(R, C)
                                             : std::max(R, C));
          }));
        }
      }
  // Data merge (d.dsel): the result, clamped to the byte or half for .sat, replaces that part of
  // c.
  for (const char *Vop : {"vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr"})
    for (const char *DSel : {"b0", "b1", "b2", "b3", "h0", "h1"})
      for (unsigned Types = 0; Types < 8; Types += 7)
        for (bool Sat : {false, true}) {
          const bool DS = Types & 4, AS = Types & 2, BS = Types & 1;
          const std::string Name = Vop;
          const bool IsShift = Name == "vshl" || Name == "vshr";
          auto Ty = [](bool S) { return S ? ".s32" : ".u32"; };
          const std::string Body = Name + Ty(DS) + Ty(AS) + (IsShift ? ".u32" : Ty(BS)) +
                                   (Sat ? ".sat" : "") + (IsShift ? ".wrap" : "") + " %d." + DSel +
                                   ", %a.b1, %b.h0, %c;";
          const std::string D = DSel;
          F.Cases.push_back(
              make(Body, {b32("a"), b32("b"), b32("c")}, b32("d"), [=](const uint64_t *I) -> Opt {
                const I128 A = part(I[0], "b1", AS), B = part(I[1], "h0", IsShift ? false : BS);
                I128 T = Name == "vadd"       ? A + B
                         : Name == "vsub"     ? A - B
                         : Name == "vabsdiff" ? (A > B ? A - B : B - A)
                         : Name == "vmin"     ? std::min(A, B)
                         : Name == "vmax"     ? std::max(A, B)
                         : Name == "vshl"     ? A << int(B & 31)
                                              : A >> int(B & 31);
                if (Sat && !fitsS34(T))
                  return std::nullopt;
                const bool Byte = D[0] == 'b';
                const unsigned Bits = Byte ? 8 : 16, Shift = (D[1] - '0') * Bits;
                if (Sat)
                  T = clamp(T, IntType{"", Bits, DS});
                const uint64_t Field = mask(Bits) << Shift;
                return ((uint64_t(T) << Shift) & Field) | (I[2] & ~Field & mask(32));
              }));
        }
  // vset: the comparison of the selected, extended parts as a u32 0 or 1, then a secondary
  // operation (unsigned: d is a u32) or a merge into c.
  struct SetVariant {
    std::string Op2, DSel, ASel, BSel;
  };
  const SetVariant SetVariants[] = {
      {"", "", "", ""},     {"add", "", "", ""}, {"min", "", "", ""},   {"max", "", "", ""},
      {"", "", "b2", "h1"}, {"", "b1", "", ""},  {"", "h0", "h1", "b3"}};
  for (const char *Cmp : {"eq", "ne", "lt", "le", "gt", "ge"})
    for (const SetVariant &V : SetVariants)
      for (unsigned Types = 0; Types < 4; ++Types) {
        const bool AS = Types & 2, BS = Types & 1;
        auto Ty = [](bool S) { return S ? ".s32" : ".u32"; };
        const bool C = !V.Op2.empty() || !V.DSel.empty();
        const std::string Body = std::string("vset") + Ty(AS) + Ty(BS) + "." + Cmp +
                                 (V.Op2.empty() ? "" : "." + V.Op2) + " %d" +
                                 (V.DSel.empty() ? "" : "." + V.DSel) + ", %a" +
                                 (V.ASel.empty() ? "" : "." + V.ASel) + ", %b" +
                                 (V.BSel.empty() ? "" : "." + V.BSel) + (C ? ", %c;" : ";");
        std::vector<Operand> In = {b32("a"), b32("b")};
        if (C)
          In.push_back(b32("c"));
        const std::string Op = Cmp;
        F.Cases.push_back(make(Body, In, b32("d"), [=](const uint64_t *I) -> Opt {
          const I128 A = part(I[0], V.ASel, AS), B = part(I[1], V.BSel, BS);
          const uint64_t T = Op == "eq"   ? A == B
                             : Op == "ne" ? A != B
                             : Op == "lt" ? A < B
                             : Op == "le" ? A <= B
                             : Op == "gt" ? A > B
                                          : A >= B;
          if (!V.DSel.empty()) {
            const bool Byte = V.DSel[0] == 'b';
            const unsigned Bits = Byte ? 8 : 16, Shift = (V.DSel[1] - '0') * Bits;
            const uint64_t Field = mask(Bits) << Shift;
            return (T << Shift) | (I[2] & ~Field & mask(32));
          }
          if (V.Op2.empty())
            return T;
          const uint64_t Cv = I[2] & mask(32);
          return V.Op2 == "add"   ? (T + Cv) & mask(32)
                 : V.Op2 == "min" ? std::min(T, Cv)
                                  : std::max(T, Cv);
        }));
      }
  // vmad: (a*b) + c in 128 bits from the selected, extended parts. Negating exactly one of a and
  // b negates the product (its complement plus one); negating c adds its complement plus one;
  // .po adds one; then the scale's shift, and .sat clamps to s32 when the result is signed (a
  // signed source or a negation) and to u32 otherwise.
  struct MadVariant {
    bool NegA, NegB, NegC, PlusOne;
    std::string ASel, BSel;
  };
  const MadVariant MadVariants[] = {
      {false, false, false, false, "", ""},    {true, false, false, false, "", ""},
      {false, true, false, false, "", ""},     {true, true, false, false, "", ""},
      {false, false, true, false, "", ""},     {true, true, true, false, "", ""},
      {false, false, false, true, "", ""},     {false, false, false, false, "b1", "h0"},
      {true, false, false, false, "h1", "b3"}, {false, false, true, true, "", ""}};
  for (const MadVariant &V : MadVariants)
    for (unsigned Types = 0; Types < 4; ++Types)
      for (const char *Scale : {"", "shr7", "shr15"})
        for (bool Sat : {false, true}) {
          const bool AS = Types & 2, BS = Types & 1;
          if (V.PlusOne && V.NegC)
            continue; // .po takes no negation
          const bool ProductNegated = V.NegA != V.NegB;
          const bool SignedFinal = AS || BS || ProductNegated || V.NegC;
          auto Ty = [](bool S) { return S ? ".s32" : ".u32"; };
          const std::string Sc = Scale;
          const std::string Body =
              std::string("vmad") + Ty(SignedFinal) + Ty(AS) + Ty(BS) + (V.PlusOne ? ".po" : "") +
              (Sat ? ".sat" : "") + (Sc.empty() ? "" : "." + Sc) + " %d, " + (V.NegA ? "-" : "") +
              "%a" + (V.ASel.empty() ? "" : "." + V.ASel) + ", " + (V.NegB ? "-" : "") + "%b" +
              (V.BSel.empty() ? "" : "." + V.BSel) + ", " + (V.NegC ? "-" : "") + "%c;";
          F.Cases.push_back(
              make(Body, {b32("a"), b32("b"), b32("c")}, b32("d"), [=](const uint64_t *I) -> Opt {
                I128 T = part(I[0], V.ASel, AS) * part(I[1], V.BSel, BS);
                uint64_t C = I[2] & mask(32);
                I128 Lsb = 0;
                if (V.PlusOne) {
                  Lsb = 1;
                } else if (ProductNegated) {
                  T = ~T;
                  Lsb = 1;
                } else if (V.NegC) {
                  C = ~C & mask(32);
                  Lsb = 1;
                }
                T += val(C, SignedFinal ? S32 : U32) + Lsb;
                const unsigned Shift = Sc == "shr7" ? 7 : Sc == "shr15" ? 15 : 0;
                uint64_t R = uint64_t(static_cast<unsigned __int128>(T) >> Shift);
                if (Sat)
                  R = SignedFinal ? uint64_t(clamp(I128(int64_t(R)), S32))
                                  : std::min<uint64_t>(R, mask(32));
                return R & mask(32);
              }));
        }
  return F;
}

} // namespace integer_families

using namespace integer_families;

Case make(std::string Body, std::vector<Operand> In, Operand Out,
          std::function<std::optional<uint64_t>(const uint64_t *)> F) {
  Case C;
  C.Body = std::move(Body);
  C.Inputs = std::move(In);
  C.Outputs = {std::move(Out)};
  C.Ref = [F = std::move(F)](const uint64_t *I, uint64_t *O) {
    std::optional<uint64_t> R = F(I);
    if (R)
      O[0] = *R;
    return R.has_value();
  };
  return C;
}

std::vector<Family> integerFamilies() {
  return {arithmetic(),    minMax(),     shifts(),      bitOps(), logic(),    extended(),
          compareSelect(), integerCvt(), dotProducts(), video(),  simdVideo()};
}

} // namespace conformance
