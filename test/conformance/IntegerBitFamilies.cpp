// Integer families of bits, logic, comparison and conversion: shifts, bit manipulation, logic,
// compare and select, integer cvt. References as IntegerFamilies.cpp writes them, from the PTX
// ISA's description of each instruction (IntegerSupport.h).
#include "IntegerSupport.h"

#include <array>
#include <bit>
#include <map>

namespace conformance::integer_families {

// --- shifts ----------------------------------------------------------------------------------

Family shifts() {
  Family F{"shift", {}};
  for (unsigned B : {16u, 32u, 64u}) {
    const std::string W = std::to_string(B);
    // Shift amounts above the register width are clamped to the width.
    auto Amount = [B](uint64_t N) { return std::min<uint64_t>(N & 0xffffffff, B); };
    std::vector<Operand> In = {ofBits("a", B), count("b", 32, B)};
    F.Cases.push_back(
        make("shl.b" + W + " %d, %a, %b;", In, ofBits("d", B), [=](const uint64_t *I) -> Opt {
          uint64_t N = Amount(I[1]);
          return N >= 64 ? 0 : I[0] << N;
        }));
    for (const char *Ty : {"b", "u"})
      F.Cases.push_back(make("shr." + std::string(Ty) + W + " %d, %a, %b;", In, ofBits("d", B),
                             [=](const uint64_t *I) -> Opt {
                               uint64_t N = Amount(I[1]);
                               return N >= 64 ? 0 : (I[0] & mask(B)) >> N;
                             }));
    F.Cases.push_back(
        make("shr.s" + W + " %d, %a, %b;", In, ofBits("d", B), [=](const uint64_t *I) -> Opt {
          return uint64_t(sext(I[0], B) >> std::min<uint64_t>(Amount(I[1]), 63));
        }));
  }
  return F;
}

// --- bit manipulation ----------------------------------------------------------------------

uint64_t bitsBfe(uint64_t A, uint64_t Pos, uint64_t Len, unsigned B, bool Signed) {
  const unsigned Msb = B - 1;
  Pos &= 0xff;
  Len &= 0xff;
  unsigned SBit = 0;
  if (Signed && Len != 0)
    SBit = (A >> std::min<uint64_t>(Pos + Len - 1, Msb)) & 1;
  uint64_t D = 0;
  for (unsigned I = 0; I <= Msb; ++I) {
    uint64_t Bit = (I < Len && Pos + I <= Msb) ? (A >> (Pos + I)) & 1 : SBit;
    D |= Bit << I;
  }
  return D;
}

uint64_t byteOf(uint64_t V64, unsigned K) { return (V64 >> (8 * K)) & 0xff; }

/// prmt: the bytes of {b, a} picked by the selector (generic form) or by c[1:0] and the mode.
uint64_t prmt(uint64_t A, uint64_t B, uint64_t C, const std::string &Mode) {
  const uint64_t Src = (B & 0xffffffff) << 32 | (A & 0xffffffff);
  unsigned Sel[4];
  if (Mode.empty()) {
    uint64_t D = 0;
    for (unsigned K = 0; K < 4; ++K) {
      unsigned Ctl = (C >> (4 * K)) & 0xf;
      uint64_t Byte = byteOf(Src, Ctl & 7);
      if (Ctl & 8)
        Byte = (Byte & 0x80) ? 0xff : 0;
      D |= Byte << (8 * K);
    }
    return D;
  }
  // Rows: the source byte of d.b0, d.b1, d.b2, d.b3 for c[1:0] = 0..3 (the ISA lists b3..b0).
  static const std::map<std::string, std::array<std::array<unsigned, 4>, 4>> Table = {
      {"f4e", {{{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}}}},
      {"b4e", {{{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}}}},
      {"rc8", {{{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}}}},
      {"ecl", {{{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}}}},
      {"ecr", {{{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}}}},
      {"rc16", {{{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}}}},
  };
  const auto &Row = Table.at(Mode)[C & 3];
  for (unsigned K = 0; K < 4; ++K)
    Sel[K] = Row[K];
  uint64_t D = 0;
  for (unsigned K = 0; K < 4; ++K)
    D |= byteOf(Src, Sel[K]) << (8 * K);
  return D;
}

Family bitOps() {
  Family F{"bits", {}};
  auto &C = F.Cases;
  for (unsigned B : {32u, 64u}) {
    const std::string W = std::to_string(B);
    C.push_back(make("popc.b" + W + " %d, %a;", {ofBits("a", B)}, b32("d"),
                     [](const uint64_t *I) -> Opt { return std::popcount(I[0]); }));
    C.push_back(
        make("clz.b" + W + " %d, %a;", {ofBits("a", B)}, b32("d"), [=](const uint64_t *I) -> Opt {
          return std::countl_zero(I[0] & mask(B)) - (64 - B);
        }));
    C.push_back(make("brev.b" + W + " %d, %a;", {ofBits("a", B)}, ofBits("d", B),
                     [=](const uint64_t *I) -> Opt {
                       uint64_t R = 0;
                       for (unsigned K = 0; K < B; ++K)
                         R |= ((I[0] >> K) & 1) << (B - 1 - K);
                       return R;
                     }));
    for (bool Signed : {false, true})
      for (bool ShiftAmt : {false, true}) {
        const std::string Ty = (Signed ? ".s" : ".u") + W;
        C.push_back(make(std::string("bfind") + (ShiftAmt ? ".shiftamt" : "") + Ty + " %d, %a;",
                         {ofBits("a", B)}, b32("d"), [=](const uint64_t *I) -> Opt {
                           uint64_t A = I[0] & mask(B);
                           if (Signed && (A >> (B - 1)))
                             A = ~A & mask(B);
                           if (!A)
                             return 0xffffffff;
                           unsigned Pos = 63 - std::countl_zero(A);
                           return ShiftAmt ? B - 1 - Pos : Pos;
                         }));
        C.push_back(
            make("bfe" + Ty + " %d, %a, %b, %c;",
                 {ofBits("a", B), count("b", 32, B), count("c", 32, B)}, ofBits("d", B),
                 [=](const uint64_t *I) -> Opt { return bitsBfe(I[0], I[1], I[2], B, Signed); }));
      }
    // bfi f, a, b, c, d: a's low bits inserted into b at position c, d bits long.
    C.push_back(make("bfi.b" + W + " %d, %a, %b, %c, %e;",
                     {ofBits("a", B), ofBits("b", B), count("c", 32, B), count("e", 32, B)},
                     ofBits("d", B), [=](const uint64_t *I) -> Opt {
                       uint64_t Pos = I[2] & 0xff, Len = I[3] & 0xff, D = I[1];
                       for (uint64_t K = 0; K < Len && Pos + K <= B - 1; ++K)
                         D = (D & ~(1ull << (Pos + K))) | (((I[0] >> K) & 1) << (Pos + K));
                       return D;
                     }));
  }
  // fns: base above 31 is undefined.
  {
    Operand Off = count("c", 32, 33);
    for (uint64_t K = 1; K <= 33; ++K)
      Off.Extra.push_back(0 - K);
    C.push_back(make("fns.b32 %d, %a, %b, %c;", {b32("a"), count("b", 32, 31), Off}, b32("d"),
                     [](const uint64_t *I) -> Opt {
                       const uint64_t Mask = I[0], Base = I[1];
                       const int32_t Offset = int32_t(I[2]);
                       if (Base > 31)
                         return {};
                       if (Offset == 0)
                         return ((Mask >> Base) & 1) ? Base : 0xffffffff;
                       int64_t Count = std::abs(int64_t(Offset)) - 1;
                       const int Inc = Offset > 0 ? 1 : -1;
                       for (int64_t Pos = int64_t(Base); Pos >= 0 && Pos < 32; Pos += Inc)
                         if ((Mask >> Pos) & 1) {
                           if (Count == 0)
                             return uint64_t(Pos);
                           --Count;
                         }
                       return 0xffffffff;
                     }));
  }
  for (bool Clamp : {true, false}) {
    const std::string Mode = Clamp ? ".clamp" : ".wrap";
    C.push_back(make("bmsk" + Mode + ".b32 %d, %a, %b;", {count("a", 32, 32), count("b", 32, 32)},
                     b32("d"), [=](const uint64_t *I) -> Opt {
                       const uint64_t A = I[0], B = I[1];
                       const uint64_t A1 = A & 0x1f, B1 = B & 0x1f, Sum = A1 + B1;
                       uint64_t Mask0 = (0xffffffffull << A1) & 0xffffffff;
                       uint64_t Mask1 = Sum >= 32 ? 0 : (0xffffffffull << Sum) & 0xffffffff;
                       bool PosOver = false, WidthOver = false;
                       if (Clamp) {
                         if (A >= 32) {
                           PosOver = true;
                           Mask0 = 0;
                         }
                         WidthOver = B >= 32;
                       }
                       if (Sum >= 32 || PosOver || WidthOver)
                         Mask1 = 0;
                       else if (B1 == 0)
                         Mask1 = 0xffffffff;
                       return Mask0 & ~Mask1;
                     }));
    for (bool Signed : {false, true})
      C.push_back(make("szext" + Mode + (Signed ? ".s32" : ".u32") + " %d, %a, %b;",
                       {b32("a"), count("b", 32, 32)}, b32("d"), [=](const uint64_t *I) -> Opt {
                         const uint64_t A = I[0], B = I[1], B1 = B & 0x1f;
                         const bool TooLarge = B >= 32 && Clamp;
                         const uint64_t M = TooLarge ? 0 : (0xffffffffull << B1) & 0xffffffff;
                         bool Sign = false;
                         if (B1 != 0 && !TooLarge && Signed)
                           Sign = (A >> ((B1 - 1) & 0x1f)) & 1;
                         return (A & ~M) | (Sign ? M : 0);
                       }));
  }
  for (const char *Mode : {"", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"}) {
    Operand Sel = b32("c");
    Sel.SmallBelow = std::string(Mode).empty() ? 0x10000 : 16;
    C.push_back(make(
        std::string("prmt.b32") + Mode + " %d, %a, %b, %c;", {b32("a"), b32("b"), Sel}, b32("d"),
        [=](const uint64_t *I) -> Opt { return prmt(I[0], I[1], I[2], *Mode ? Mode + 1 : ""); }));
  }
  // shf: funnel shift of {b, a}; .clamp caps the count at 32, .wrap takes it modulo 32.
  for (bool Left : {true, false})
    for (bool Clamp : {true, false}) {
      std::string Body = std::string("shf.") + (Left ? "l" : "r") + (Clamp ? ".clamp" : ".wrap") +
                         ".b32 %d, %a, %b, %c;";
      C.push_back(make(Body, {b32("a"), b32("b"), count("c", 32, 32)}, b32("d"),
                       [=](const uint64_t *I) -> Opt {
                         const uint64_t N = Clamp ? std::min<uint64_t>(I[2], 32) : I[2] & 31;
                         const U128 V = U128(I[1]) << 32 | I[0];
                         return Left ? uint64_t((V << N) >> 32) : uint64_t(V >> N);
                       }));
    }
  // lop3.BoolOp: p = (d != 0) BoolOp q beside d (or the sink _ in d's place), for a sample of
  // tables including the constant ones.
  for (unsigned Lut : {0x00u, 0xffu, 0x80u, 0xfeu, 0x3fu, 0x96u, 0x1au, 0xe8u})
    for (const char *Bool : {"and", "or"})
      for (bool Sink : {false, true}) {
        Case L;
        L.Body = std::string("lop3.") + Bool + ".b32 " + (Sink ? "_" : "%d") + "|%p, %a, %b, %c, " +
                 std::to_string(Lut) + ", %q;";
        L.Inputs = {b32("a"), b32("b"), b32("c"), pred("q")};
        L.Outputs = {pred("p")};
        if (!Sink)
          L.Outputs.push_back(b32("d"));
        const bool And = Bool[0] == 'a';
        L.Ref = [=](const uint64_t *I, uint64_t *O) {
          uint64_t D = 0;
          for (unsigned K = 0; K < 32; ++K) {
            unsigned Idx = ((I[0] >> K) & 1) << 2 | ((I[1] >> K) & 1) << 1 | ((I[2] >> K) & 1);
            D |= uint64_t((Lut >> Idx) & 1) << K;
          }
          const bool Q = I[3] & 1;
          O[0] = And ? (D != 0 && Q) : (D != 0 || Q);
          if (!Sink)
            O[1] = D;
          return true;
        };
        C.push_back(std::move(L));
      }
  // lop3: every lookup table; bit (a<<2 | b<<1 | c) of the table gives each result bit.
  for (unsigned Lut = 0; Lut < 256; ++Lut)
    C.push_back(make("lop3.b32 %d, %a, %b, %c, " + std::to_string(Lut) + ";",
                     {b32("a"), b32("b"), b32("c")}, b32("d"), [=](const uint64_t *I) -> Opt {
                       uint64_t D = 0;
                       for (unsigned K = 0; K < 32; ++K) {
                         unsigned Idx =
                             ((I[0] >> K) & 1) << 2 | ((I[1] >> K) & 1) << 1 | ((I[2] >> K) & 1);
                         D |= uint64_t((Lut >> Idx) & 1) << K;
                       }
                       return D;
                     }));
  return F;
}

// --- logic -----------------------------------------------------------------------------------

Family logic() {
  Family F{"logic", {}};
  for (unsigned B : {1u, 16u, 32u, 64u}) {
    const std::string Ty = B == 1 ? ".pred" : ".b" + std::to_string(B);
    std::vector<Operand> In = {ofBits("a", B), ofBits("b", B)};
    F.Cases.push_back(make("and" + Ty + " %d, %a, %b;", In, ofBits("d", B),
                           [](const uint64_t *I) -> Opt { return I[0] & I[1]; }));
    F.Cases.push_back(make("or" + Ty + " %d, %a, %b;", In, ofBits("d", B),
                           [](const uint64_t *I) -> Opt { return I[0] | I[1]; }));
    F.Cases.push_back(make("xor" + Ty + " %d, %a, %b;", In, ofBits("d", B),
                           [](const uint64_t *I) -> Opt { return I[0] ^ I[1]; }));
    F.Cases.push_back(make("not" + Ty + " %d, %a;", {ofBits("a", B)}, ofBits("d", B),
                           [](const uint64_t *I) -> Opt { return ~I[0]; }));
    if (B > 1)
      F.Cases.push_back(make("cnot" + Ty + " %d, %a;", {ofBits("a", B)}, ofBits("d", B),
                             [=](const uint64_t *I) -> Opt { return (I[0] & mask(B)) == 0; }));
  }
  return F;
}

// --- compare and select ----------------------------------------------------------------------

std::optional<bool> compare(const std::string &Cmp, uint64_t A, uint64_t B, const IntType &T) {
  const I128 X = val(A, T), Y = val(B, T);
  const U128 UX = A & mask(T.Bits), UY = B & mask(T.Bits);
  if (Cmp == "eq")
    return X == Y;
  if (Cmp == "ne")
    return X != Y;
  if (Cmp == "lt")
    return X < Y;
  if (Cmp == "le")
    return X <= Y;
  if (Cmp == "gt")
    return X > Y;
  if (Cmp == "ge")
    return X >= Y;
  if (Cmp == "lo")
    return UX < UY;
  if (Cmp == "ls")
    return UX <= UY;
  if (Cmp == "hi")
    return UX > UY;
  if (Cmp == "hs")
    return UX >= UY;
  return {};
}

bool combine(const std::string &Bool, bool A, bool C) {
  return Bool == "and" ? A && C : Bool == "or" ? A || C : A != C;
}

Family compareSelect() {
  Family F{"compare-select", {}};
  auto &C = F.Cases;
  const char *Signed[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  const char *Unsigned[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"};
  for (const IntType &T : Ints) {
    std::vector<const char *> Cmps(T.Signed ? std::begin(Signed) : std::begin(Unsigned),
                                   T.Signed ? std::end(Signed) : std::end(Unsigned));
    for (const char *Cmp : Cmps)
      C.push_back(make(std::string("setp.") + Cmp + sfx(T) + " %p, %a, %b;",
                       {op("a", T), op("b", T)}, pred("p"),
                       [=](const uint64_t *I) -> Opt { return *compare(Cmp, I[0], I[1], T); }));
  }
  for (unsigned B : {16u, 32u, 64u})
    for (const char *Cmp : {"eq", "ne"}) {
      const IntType T{"b", B, false};
      C.push_back(make(std::string("setp.") + Cmp + ".b" + std::to_string(B) + " %p, %a, %b;",
                       {ofBits("a", B), ofBits("b", B)}, pred("p"),
                       [=](const uint64_t *I) -> Opt { return *compare(Cmp, I[0], I[1], T); }));
    }
  // setp with a boolean combination: p = cmp BOOL c, q = !cmp BOOL c (c optionally negated).
  for (const IntType &T : {S32, U64})
    for (const char *Cmp : {"lt", "ge", "ne"})
      for (const char *Bool : {"and", "or", "xor"})
        for (bool Negate : {false, true}) {
          Case K;
          K.Body = std::string("setp.") + Cmp + "." + Bool + sfx(T) + " %p|%q, %a, %b, " +
                   (Negate ? "!" : "") + "%c;";
          K.Inputs = {op("a", T), op("b", T), pred("c")};
          K.Outputs = {pred("p"), pred("q")};
          K.Ref = [=](const uint64_t *I, uint64_t *O) {
            const bool R = *compare(Cmp, I[0], I[1], T);
            const bool Cv = Negate ? !I[2] : I[2];
            O[0] = combine(Bool, R, Cv);
            O[1] = combine(Bool, !R, Cv);
            return true;
          };
          C.push_back(std::move(K));
        }
  for (unsigned B : {16u, 32u, 64u})
    C.push_back(make("selp.b" + std::to_string(B) + " %d, %a, %b, %c;",
                     {ofBits("a", B), ofBits("b", B), pred("c")}, ofBits("d", B),
                     [](const uint64_t *I) -> Opt { return I[2] ? I[0] : I[1]; }));
  // set: all ones (integer destination) or 1.0 (f32) when true, else 0.
  for (const IntType &T : {S32, U32, S64, U16})
    for (const char *Cmp : {"eq", "lt", "ge", "hi"}) {
      if (T.Signed && Cmp[0] == 'h')
        continue;
      C.push_back(make(std::string("set.") + Cmp + ".u32" + sfx(T) + " %d, %a, %b;",
                       {op("a", T), op("b", T)}, b32("d"), [=](const uint64_t *I) -> Opt {
                         return *compare(Cmp, I[0], I[1], T) ? 0xffffffff : 0;
                       }));
    }
  C.push_back(make(
      "set.gt.f32.s32 %d, %a, %b;", {b32("a"), b32("b")}, b32("d"),
      [](const uint64_t *I) -> Opt { return *compare("gt", I[0], I[1], S32) ? 0x3f800000 : 0; }));
  C.push_back(make(
      "set.ne.s32.u64 %d, %a, %b;", {b64("a"), b64("b")}, b32("d"),
      [](const uint64_t *I) -> Opt { return *compare("ne", I[0], I[1], U64) ? 0xffffffff : 0; }));
  for (const char *Bool : {"and", "or", "xor"}) {
    Case K;
    K.Body = std::string("set.le.") + Bool + ".u32.s32 %d, %a, %b, %c;";
    K.Inputs = {b32("a"), b32("b"), pred("c")};
    K.Outputs = {b32("d")};
    K.Ref = [=](const uint64_t *I, uint64_t *O) {
      O[0] = combine(Bool, *compare("le", I[0], I[1], S32), I[2]) ? 0xffffffff : 0;
      return true;
    };
    C.push_back(std::move(K));
  }
  // slct: a when the s32 selector c is >= 0, else b.
  for (unsigned B : {16u, 32u, 64u})
    for (const char *Ty : {"b", "u", "s"})
      C.push_back(make(std::string("slct.") + Ty + std::to_string(B) + ".s32 %d, %a, %b, %c;",
                       {ofBits("a", B), ofBits("b", B), b32("c")}, ofBits("d", B),
                       [](const uint64_t *I) -> Opt { return int32_t(I[2]) >= 0 ? I[0] : I[1]; }));
  return F;
}

// --- integer cvt -----------------------------------------------------------------------------

Family integerCvt() {
  Family F{"cvt-int", {}};
  const IntType All[] = {{"u8", 8, false}, {"s8", 8, true}, U16, S16, U32, S32, U64, S64};
  for (const IntType &D : All)
    for (const IntType &S : All)
      for (bool Sat : {false, true}) {
        // 8-bit values live in 16-bit registers: a wider source register is cut to the
        // source type, a wider destination register gets the result sign- or zero-extended
        // by the destination type.
        const unsigned SReg = std::max(16u, S.Bits), DReg = std::max(16u, D.Bits);
        F.Cases.push_back(
            make(std::string("cvt") + (Sat ? ".sat" : "") + sfx(D) + sfx(S) + " %d, %a;",
                 {ofBits("a", SReg)}, ofBits("d", DReg), [=](const uint64_t *I) -> Opt {
                   I128 V = val(I[0], S);
                   if (Sat)
                     V = clamp(V, D);
                   return uint64_t(val(uint64_t(V), D));
                 }));
      }
  // The same with 32-bit registers for the 8-bit types.
  for (const IntType &T : {All[0], All[1]}) {
    auto Add = [&](std::string Body, std::function<Opt(const uint64_t *)> Fn) {
      Case K = make(Body, {b32("a")}, b32("d"), std::move(Fn));
      K.Name = Body.substr(0, Body.find(' ')) + " (b32 registers)";
      F.Cases.push_back(std::move(K));
    };
    Add(std::string("cvt.s32") + sfx(T) + " %d, %a;",
        [=](const uint64_t *I) -> Opt { return uint64_t(val(I[0], T)); });
    Add(std::string("cvt") + sfx(T) + ".s32 %d, %a;",
        [=](const uint64_t *I) -> Opt { return uint64_t(val(I[0], T)); });
    Add(std::string("cvt.sat") + sfx(T) + ".s32 %d, %a;",
        [=](const uint64_t *I) -> Opt { return uint64_t(clamp(val(I[0], S32), T)); });
  }
  return F;
}

} // namespace conformance::integer_families
