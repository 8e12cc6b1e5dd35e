// SIMD video family (vadd2 ... vmax2, vset2 and the four-byte forms): references written from the
// PTX ISA's pseudocode (9.7.18.2), not from the lowering.
//
// Elements (halves or bytes) are picked from the 64-bit pair {b, a} by the selectors: a
// selector's first digit names the source of the highest element (.h10: Va[1] = half 1, Va[0] =
// half 0). Each is sign- or zero-extended by its operand's type; the operation runs on the
// extended values; .sat clamps to the destination type's element range. Then .add sums the
// elements named by the mask into c (32-bit wrap-around), or the merge puts the masked elements
// into d and c's elements everywhere else. (vset2/vset4's prose says the other elements come from
// b, their pseudocode and every other SIMD form say c: the reference follows the pseudocode.)
#include "Families.h"

#include <algorithm>

namespace conformance {

namespace {

using Opt = std::optional<uint64_t>;

enum class Simd { Add, Sub, Avrg, Absdiff, Min, Max, Set };
enum class Cmp { Eq, Ne, Lt, Le, Gt, Ge };

const char *simdName(Simd O) {
  static const char *N[] = {"vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax", "vset"};
  return N[int(O)];
}
const char *cmpName(Cmp C) {
  static const char *N[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  return N[int(C)];
}

struct SimdForm {
  unsigned Lanes = 2; ///< 2 (halves) or 4 (bytes)
  Simd Op = Simd::Add;
  bool DS = false, AS = false, BS = false; ///< signedness of d (not vset), a, b
  bool Sat = false, Add = false;
  Cmp Compare = Cmp::Eq;        ///< vset only
  std::string Mask, ASel, BSel; ///< digits only ("10", "3210"); empty: the default
};

SimdForm form(unsigned Lanes, Simd Op, bool DS, bool AS, bool BS) {
  SimdForm F;
  F.Lanes = Lanes;
  F.Op = Op;
  F.DS = DS;
  F.AS = AS;
  F.BS = BS;
  return F;
}

/// The element indices of selector digits \p Digits (first digit: highest element).
std::vector<unsigned> selected(const std::string &Digits, unsigned Lanes, unsigned First) {
  std::vector<unsigned> R(Lanes);
  for (unsigned K = 0; K < Lanes; ++K)
    R[K] = Digits.empty() ? First + K : unsigned(Digits[Digits.size() - 1 - K] - '0');
  return R;
}

int64_t extend(uint64_t V, unsigned Bits, bool Signed) {
  return Signed ? sext(V, Bits) : int64_t(V & mask(Bits));
}

uint64_t simdRef(const SimdForm &F, uint64_t A, uint64_t B, uint64_t C) {
  const unsigned Bits = 32 / F.Lanes;
  const uint64_t Pair = (B & mask(32)) << 32 | (A & mask(32));
  const std::vector<unsigned> ASel = selected(F.ASel, F.Lanes, 0);
  const std::vector<unsigned> BSel = selected(F.BSel, F.Lanes, F.Lanes);
  unsigned Mask = F.Mask.empty() ? (1u << F.Lanes) - 1 : 0;
  for (char D : F.Mask)
    Mask |= 1u << (D - '0');
  uint64_t D = F.Add ? C : 0;
  for (unsigned I = 0; I < F.Lanes; ++I) {
    const uint64_t Field = mask(Bits) << (I * Bits);
    if (!(Mask >> I & 1)) {
      if (!F.Add)
        D |= C & Field;
      continue;
    }
    const int64_t Va = extend(Pair >> (ASel[I] * Bits), Bits, F.AS);
    const int64_t Vb = extend(Pair >> (BSel[I] * Bits), Bits, F.BS);
    int64_t T = 0;
    switch (F.Op) {
    case Simd::Add:
      T = Va + Vb;
      break;
    case Simd::Sub:
      T = Va - Vb;
      break;
    case Simd::Avrg: // rounds half away from zero for non-negative sums, down otherwise
      T = Va + Vb >= 0 ? (Va + Vb + 1) >> 1 : (Va + Vb) >> 1;
      break;
    case Simd::Absdiff:
      T = Va > Vb ? Va - Vb : Vb - Va;
      break;
    case Simd::Min:
      T = std::min(Va, Vb);
      break;
    case Simd::Max:
      T = std::max(Va, Vb);
      break;
    case Simd::Set: {
      const Cmp C = F.Compare;
      T = C == Cmp::Eq   ? Va == Vb
          : C == Cmp::Ne ? Va != Vb
          : C == Cmp::Lt ? Va < Vb
          : C == Cmp::Le ? Va <= Vb
          : C == Cmp::Gt ? Va > Vb
                         : Va >= Vb;
      break;
    }
    }
    if (F.Sat) {
      const int64_t Lo = F.DS ? -(int64_t(1) << (Bits - 1)) : 0;
      const int64_t Hi = F.DS ? (int64_t(1) << (Bits - 1)) - 1 : int64_t(mask(Bits));
      T = std::clamp(T, Lo, Hi);
    }
    if (F.Add)
      D += uint64_t(T);
    else
      D |= (uint64_t(T) << (I * Bits)) & Field;
  }
  return D & mask(32);
}

Case simdCase(const SimdForm &F) {
  auto Ty = [](bool S) { return S ? ".s32" : ".u32"; };
  const char H = F.Lanes == 2 ? 'h' : 'b';
  auto Sel = [&](const std::string &Digits) {
    return Digits.empty() ? std::string() : std::string(".") + H + Digits;
  };
  std::string Body = std::string(simdName(F.Op)) + char('0' + F.Lanes);
  if (F.Op == Simd::Set)
    Body += std::string(Ty(F.AS)) + Ty(F.BS) + "." + cmpName(F.Compare);
  else
    Body += std::string(Ty(F.DS)) + Ty(F.AS) + Ty(F.BS);
  Body += std::string(F.Sat ? ".sat" : "") + (F.Add ? ".add" : "") + " %d" + Sel(F.Mask) + ", %a" +
          Sel(F.ASel) + ", %b" + Sel(F.BSel) + ", %c;";
  return make(Body, {b32("a"), b32("b"), b32("c")}, b32("d"),
              [F](const uint64_t *I) -> Opt { return simdRef(F, I[0], I[1], I[2]); });
}

} // namespace

Family simdVideo() {
  Family Fam{"video-simd", {}};
  const Simd Arith[] = {Simd::Add, Simd::Sub, Simd::Avrg, Simd::Absdiff, Simd::Min, Simd::Max};
  // Masks and selectors beyond the defaults: single elements, elements of b in a's place and
  // the reverse, repeated and reversed elements.
  struct Picks {
    std::string Mask, ASel, BSel;
  };
  const Picks Two[] = {{"0", "01", "23"}, {"1", "00", "33"}, {"", "32", "10"}, {"", "21", "03"}};
  const Picks Four[] = {{"0", "", ""},
                        {"21", "0123", "7654"},
                        {"320", "7777", "0000"},
                        {"", "4567", "3210"},
                        {"31", "0246", "1357"}};
  for (unsigned Lanes : {2u, 4u}) {
    for (Simd Op : Arith) {
      // Every type combination, plain, saturating and accumulating.
      for (unsigned Types = 0; Types < 8; ++Types)
        for (int Mode = 0; Mode < 3; ++Mode) {
          SimdForm F = form(Lanes, Op, bool(Types & 4), bool(Types & 2), bool(Types & 1));
          F.Sat = Mode == 1;
          F.Add = Mode == 2;
          Fam.Cases.push_back(simdCase(F));
        }
      // Masks and selectors, each mode, unsigned and signed throughout.
      for (const Picks &P : Lanes == 2 ? std::vector<Picks>(std::begin(Two), std::end(Two))
                                       : std::vector<Picks>(std::begin(Four), std::end(Four)))
        for (bool S : {false, true})
          for (int Mode = 0; Mode < 3; ++Mode) {
            SimdForm F = form(Lanes, Op, S, S, S);
            F.Sat = Mode == 1;
            F.Add = Mode == 2;
            F.Mask = P.Mask;
            F.ASel = P.ASel;
            F.BSel = P.BSel;
            Fam.Cases.push_back(simdCase(F));
          }
    }
    // vset: every comparison and operand type, merge and accumulate; then masks and selectors.
    for (int C = 0; C < 6; ++C)
      for (unsigned Types = 0; Types < 4; ++Types)
        for (bool Add : {false, true}) {
          SimdForm F = form(Lanes, Simd::Set, false, bool(Types & 2), bool(Types & 1));
          F.Compare = Cmp(C);
          F.Add = Add;
          Fam.Cases.push_back(simdCase(F));
        }
    for (const Picks &P : Lanes == 2 ? std::vector<Picks>(std::begin(Two), std::end(Two))
                                     : std::vector<Picks>(std::begin(Four), std::end(Four)))
      for (bool Add : {false, true}) {
        SimdForm F = form(Lanes, Simd::Set, false, true, false);
        F.Compare = Cmp::Lt;
        F.Add = Add;
        F.Mask = P.Mask;
        F.ASel = P.ASel;
        F.BSel = P.BSel;
        Fam.Cases.push_back(simdCase(F));
      }
  }
  return Fam;
}

} // namespace conformance
