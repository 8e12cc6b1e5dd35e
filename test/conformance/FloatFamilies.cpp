// Floating-point families: references written from the PTX ISA text (9.7.3 floating-point,
// 9.7.4 half precision, 9.7.5/9.7.6 comparison and selection, 9.7.9.21 cvt), never from the
// lowering. IEEE operations are computed with the host's IEEE arithmetic under the
// instruction's rounding mode (fesetround), or exactly (long double holds every f32/f64 and
// 64-bit integer value) and then rounded in software; f16/bf16 results come from a double
// computed with round-to-odd, which rounds correctly again to any narrower format.
//
// NaNs (9.7.3, 9.7.4): single- and half-precision instructions return an unspecified NaN, so any
// NaN is accepted where a NaN is due; double-precision instructions support NaN payloads, so an
// f64 NaN result must carry the (quieted) payload of one of the NaN inputs, if there is one.
// Where the ISA names the canonical NaN (.NaN min/max, .relu), it is checked bit for bit.
#include "Families.h"

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdlib>

namespace conformance {

namespace {

using Opt = std::optional<uint64_t>;
using LD = long double;

enum class Rnd { RN, RZ, RM, RP, RNA };
const Rnd Modes[] = {Rnd::RN, Rnd::RZ, Rnd::RM, Rnd::RP};
std::string rn(Rnd R) {
  static const char *N[] = {".rn", ".rz", ".rm", ".rp", ".rna"};
  return N[int(R)];
}
/// The integer-rounding spelling of \p R (cvt to integers and to integral floats).
std::string rni(Rnd R) { return rn(R) + "i"; }
int fenvMode(Rnd R) {
  switch (R) {
  case Rnd::RZ:
    return FE_TOWARDZERO;
  case Rnd::RM:
    return FE_DOWNWARD;
  case Rnd::RP:
    return FE_UPWARD;
  default:
    return FE_TONEAREST;
  }
}

/// A binary interchange format: width, significand precision (with the hidden bit), Emax.
struct Fmt {
  const char *Name;
  unsigned Bits, P;
  int Emax;
  uint64_t CanonicalNaN;
  unsigned expBits() const { return Bits - P; }
  int emin() const { return 1 - Emax; }
  uint64_t sign() const { return 1ull << (Bits - 1); }
};
const Fmt F16{"f16", 16, 11, 15, 0x7fff}, BF16{"bf16", 16, 8, 127, 0x7fff},
    F32{"f32", 32, 24, 127, 0x7fffffff}, F64{"f64", 64, 53, 1023, 0x7fffffffffffffff};

bool isNaN(uint64_t V, const Fmt &F) {
  return (V & ~F.sign() & mask(F.Bits)) > (mask(F.expBits()) << (F.P - 1));
}
bool isSubnormal(uint64_t V, const Fmt &F) {
  return !((V >> (F.P - 1)) & mask(F.expBits())) && (V & mask(F.P - 1));
}
/// .ftz: a subnormal becomes a zero of the same sign.
uint64_t flush(uint64_t V, const Fmt &F) { return isSubnormal(V, F) ? V & F.sign() : V; }

LD decode(uint64_t V, const Fmt &F) {
  const unsigned M = F.P - 1;
  const uint64_t Mant = V & mask(M), Exp = (V >> M) & mask(F.expBits());
  LD R;
  if (Exp == mask(F.expBits()))
    R = Mant ? NAN : INFINITY;
  else if (Exp == 0)
    R = std::ldexp(LD(Mant), F.emin() - int(M));
  else
    R = std::ldexp(LD(Mant | (1ull << M)), int(Exp) - F.Emax - int(M));
  return (V >> (F.Bits - 1)) & 1 ? -R : R;
}

/// The encoding of \p X, which must be representable in \p F (NaN: the canonical NaN).
uint64_t encode(LD X, const Fmt &F) {
  const unsigned M = F.P - 1;
  if (std::isnan(X))
    return F.CanonicalNaN;
  const uint64_t Sign = std::signbit(X) ? F.sign() : 0;
  X = std::fabs(X);
  if (std::isinf(X))
    return Sign | (mask(F.expBits()) << M);
  if (X == 0)
    return Sign;
  const int E = std::ilogb(X);
  if (E < F.emin())
    return Sign | uint64_t(std::ldexp(X, int(M) - F.emin()));
  return Sign | (uint64_t(E + F.Emax) << M) | (uint64_t(std::ldexp(X, int(M) - E)) & mask(M));
}

LD maxFinite(const Fmt &F) { return std::ldexp(LD(2) - std::ldexp(LD(1), 1 - int(F.P)), F.Emax); }

/// \p X rounded to \p F in mode \p R (IEEE 754: overflow gives inf or the largest finite value
/// depending on the direction; the sign of a zero result is the sign of X).
LD roundTo(LD X, const Fmt &F, Rnd R) {
  if (std::isnan(X) || std::isinf(X) || X == 0)
    return X;
  const int Q = std::max(std::ilogb(X), F.emin()) - int(F.P - 1);
  LD S = std::ldexp(X, -Q), T = std::floor(S);
  switch (R) {
  case Rnd::RN: {
    const LD Frac = S - T;
    if (Frac > 0.5L || (Frac == 0.5L && std::fmod(T, LD(2)) != 0))
      T += 1;
    break;
  }
  case Rnd::RNA:
    T = std::round(S);
    break;
  case Rnd::RZ:
    T = std::trunc(S);
    break;
  case Rnd::RM:
    break;
  case Rnd::RP:
    T = std::ceil(S);
    break;
  }
  LD V = std::copysign(std::ldexp(T, Q), X);
  if (std::fabs(V) > maxFinite(F)) {
    const bool Up =
        R == Rnd::RN || R == Rnd::RNA || (R == Rnd::RP && X > 0) || (R == Rnd::RM && X < 0);
    V = std::copysign(Up ? LD(INFINITY) : maxFinite(F), X);
  }
  return V;
}

uint64_t bitsOf(float V) { return std::bit_cast<uint32_t>(V); }
uint64_t bitsOf(double V) { return std::bit_cast<uint64_t>(V); }
float f32(uint64_t V) { return std::bit_cast<float>(uint32_t(V)); }
double f64(uint64_t V) { return std::bit_cast<double>(V); }

enum class Op { Add, Sub, Mul, Fma, Div, Rcp, Sqrt };

/// One IEEE operation of the host in rounding mode \p R. The operands go through volatile
/// variables so that the compiler neither folds the operation nor moves it across fesetround.
template <class T> T ieee(Op O, Rnd R, T A, T B = 0, T C = 0) {
  const int Old = std::fegetround();
  std::fesetround(fenvMode(R));
  volatile T X = A, Y = B, Z = C;
  volatile T Res;
  switch (O) {
  case Op::Add:
    Res = X + Y;
    break;
  case Op::Sub:
    Res = X - Y;
    break;
  case Op::Mul:
    Res = X * Y;
    break;
  case Op::Fma:
    Res = std::fma(T(X), T(Y), T(Z));
    break;
  case Op::Div:
    Res = X / Y;
    break;
  case Op::Rcp:
    Res = T(1) / X;
    break;
  case Op::Sqrt:
    Res = std::sqrt(T(X));
    break;
  }
  const T Out = Res;
  std::fesetround(Old);
  return Out;
}

/// The double nearest-odd to the exact result of \p O (round toward zero, then set the last bit
/// if inexact): rounding it again to a format of at most 51 bits gives the correct rounding.
double roundOdd(Op O, double A, double B = 0, double C = 0) {
  const int Old = std::fegetround();
  std::fesetround(FE_TOWARDZERO);
  std::feclearexcept(FE_INEXACT);
  volatile double X = A, Y = B, Z = C;
  volatile double Res = O == Op::Add   ? X + Y
                        : O == Op::Sub ? X - Y
                        : O == Op::Mul ? X * Y
                                       : std::fma(double(X), double(Y), double(Z));
  const bool Inexact = std::fetestexcept(FE_INEXACT);
  const double R = Res;
  std::fesetround(Old);
  return Inexact && std::isfinite(R) ? f64(bitsOf(R) | 1) : R;
}

/// .sat: clamp to [+0.0, 1.0], NaN to +0.0.
uint64_t saturate(uint64_t V, const Fmt &F) {
  if (isNaN(V, F) || (V & F.sign()))
    return 0;
  return decode(V, F) > 1 ? encode(1, F) : V;
}
/// .relu: "clamps the result to 0 if negative" (-0 is not negative and stays), a NaN becomes the
/// canonical NaN.
uint64_t relu(uint64_t V, const Fmt &F) {
  if (isNaN(V, F))
    return F.CanonicalNaN;
  return decode(V, F) < 0 ? 0 : V;
}

// --- inputs -------------------------------------------------------------------------------

/// Special values of \p F beside the harness's bit patterns: zeros, infinities, NaNs with and
/// without payloads (quiet and signalling), subnormals of every exponent, normal limits, values
/// around one, ties and integer-conversion boundaries; each of either sign.
std::vector<uint64_t> floatSpecials(const Fmt &F) {
  const unsigned M = F.P - 1;
  const uint64_t Inf = mask(F.expBits()) << M, Quiet = 1ull << (M - 1);
  std::vector<uint64_t> V = {
      Inf | Quiet, Inf | 1,   Inf | Quiet | 0x15, Inf | mask(M), 1,       2,      mask(M),
      mask(M) - 1, 1ull << M, (1ull << M) + 1,    Inf,           Inf - 1, Inf - 2};
  for (LD X : {1.0L, 0.5L, 1.5L, 2.0L, 2.5L, 3.0L, 0.1L, 0.75L, 1e-3L, 100.0L, 3.14159265L})
    V.push_back(encode(roundTo(X, F, Rnd::RN), F));
  for (int K : {7, 8, 15, 16, 23, 24, 31, 32, 52, 53, 63, 64, 127})
    if (K <= F.Emax)
      V.push_back(encode(std::ldexp(LD(1), K), F));
  const uint64_t One = encode(1, F);
  V.push_back(One + 1);
  V.push_back(One - 1);
  // A subnormal of every exponent (leading bit K): alone, with every lower bit, a half below it,
  // just past that half, and a mixed pattern (narrowing conversions round at every position).
  for (unsigned K = 0; K < M; ++K) {
    const uint64_t Lead = 1ull << K, Below = Lead - 1;
    for (uint64_t X : std::initializer_list<uint64_t>{Lead, Lead | Below, Lead | (Lead >> 1),
                                                      Lead | (Lead >> 1) | 1,
                                                      Lead | (0x5555555555555555ull & Below)})
      V.push_back(X);
  }
  const size_t N = V.size();
  for (size_t I = 0; I < N; ++I)
    V.push_back(V[I] | F.sign());
  V.push_back(0);
  V.push_back(F.sign());
  for (uint64_t &X : V) // near the integer boundaries, either side
    X &= mask(F.Bits);
  for (int K : {15, 16, 31, 32, 63, 64})
    if (K <= F.Emax) {
      const uint64_t B = encode(std::ldexp(LD(1), K), F);
      V.push_back(B - 1);
      V.push_back((B - 1) | F.sign());
      V.push_back(B | F.sign());
    }
  return V;
}

Operand fop(const char *Name, const Fmt &F) {
  Operand O = ofBits(Name, F.Bits);
  O.Extra = floatSpecials(F);
  return O;
}
/// A packed pair of 16-bit values: specials in either half, or in both.
Operand pairOp(const char *Name, const Fmt &F) {
  Operand O = ofBits(Name, 32);
  const std::vector<uint64_t> S = floatSpecials(F);
  const uint64_t One = encode(1, F);
  for (size_t I = 0; I < S.size(); ++I) {
    O.Extra.push_back(S[I] | (One << 16));
    O.Extra.push_back(One | (S[I] << 16));
    O.Extra.push_back(S[I] | (S[(I * 7 + 3) % S.size()] << 16));
  }
  return O;
}

// --- cases --------------------------------------------------------------------------------

enum class NaNs { Exact, Any, Payload };

/// Whether \p Got matches \p Expected lane by lane (lanes of format \p F) under the NaN rule.
bool sameUpToNaN(uint64_t Expected, uint64_t Got, const Fmt &F, unsigned Lanes, NaNs Rule,
                 const std::vector<uint64_t> &NaNInputs) {
  for (unsigned L = 0; L < Lanes; ++L) {
    const uint64_t E = (Expected >> (L * F.Bits)) & mask(F.Bits);
    const uint64_t G = (Got >> (L * F.Bits)) & mask(F.Bits);
    if (E == G)
      continue;
    if (Rule == NaNs::Exact || !isNaN(E, F) || !isNaN(G, F))
      return false;
    if (Rule == NaNs::Payload && !NaNInputs.empty()) {
      const uint64_t Quiet = 1ull << (F.P - 2), Mag = ~F.sign() & mask(F.Bits);
      if (std::none_of(NaNInputs.begin(), NaNInputs.end(), [&](uint64_t N) {
            return (N & Mag) == (G & Mag) || ((N | Quiet) & Mag) == (G & Mag);
          }))
        return false;
    }
  }
  return true;
}

/// Every NaN lane (of \p Lanes of format \p F) made the canonical NaN: where the ISA leaves the
/// payload open.
Canonicalizer oneNaN(const Fmt &F, unsigned Lanes) {
  return [=, &F](size_t, uint64_t V) {
    for (unsigned L = 0; L < Lanes; ++L)
      if (isNaN((V >> (L * F.Bits)) & mask(F.Bits), F))
        V = (V & ~(mask(F.Bits) << (L * F.Bits))) | (F.CanonicalNaN << (L * F.Bits));
    return V;
  };
}

/// A case whose output is \p Out.Bits / \p F.Bits lanes of format \p F, with NaN rule \p Rule
/// (for NaNs::Payload, the NaN inputs of format \p F are the payloads a NaN result may carry).
Case fcase(std::string Body, std::vector<Operand> In, Operand Out, const Fmt &F, NaNs Rule,
           std::function<Opt(const uint64_t *)> Fn) {
  const unsigned Lanes = Out.Bits / F.Bits, Arity = unsigned(In.size());
  std::vector<bool> Payload;
  for (const Operand &O : In)
    Payload.push_back(O.Bits == F.Bits);
  Case C = make(std::move(Body), std::move(In), std::move(Out), std::move(Fn));
  if (Rule != NaNs::Exact)
    C.Canonical = oneNaN(F, Lanes);
  if (Rule != NaNs::Exact)
    C.Accept = [=, &F](const uint64_t *I, const uint64_t *E, const uint64_t *G) {
      std::vector<uint64_t> NaNInputs;
      for (unsigned K = 0; K < Arity; ++K)
        if (Payload[K] && isNaN(I[K], F))
          NaNInputs.push_back(I[K]);
      return sameUpToNaN(E[0], G[0], F, Lanes, Rule, NaNInputs);
    };
  return C;
}

/// Applies \p Fn to every 16-bit lane of the inputs (\p Lanes of them).
std::function<Opt(const uint64_t *)> perLane(unsigned Lanes, unsigned Arity,
                                             std::function<uint64_t(const uint64_t *)> Fn) {
  return [=](const uint64_t *I) -> Opt {
    uint64_t R = 0;
    for (unsigned L = 0; L < Lanes; ++L) {
      uint64_t X[3] = {};
      for (unsigned K = 0; K < Arity; ++K)
        X[K] = (I[K] >> (16 * L)) & 0xffff;
      R |= (Fn(X) & 0xffff) << (16 * L);
    }
    return R;
  };
}

std::string opName(Op O) {
  static const char *N[] = {"add", "sub", "mul", "fma", "div", "rcp", "sqrt"};
  return N[int(O)];
}
unsigned arity(Op O) { return O == Op::Fma ? 3 : O == Op::Rcp || O == Op::Sqrt ? 1 : 2; }
std::string operands(unsigned N) {
  return N == 1 ? " %d, %a;" : N == 2 ? " %d, %a, %b;" : " %d, %a, %b, %c;";
}

// --- f32/f64 IEEE arithmetic -----------------------------------------------------------------

Case f32Arith(const std::string &Name, Op O, Rnd R, bool Ftz, bool Sat) {
  const unsigned N = arity(O);
  std::vector<Operand> In;
  for (const char *Nm : {"a", "b", "c"})
    if (In.size() < N)
      In.push_back(fop(Nm, F32));
  const std::string Body =
      Name + rn(R) + (Ftz ? ".ftz" : "") + (Sat ? ".sat" : "") + ".f32" + operands(N);
  return fcase(Body, In, fop("d", F32), F32, NaNs::Any, [=](const uint64_t *I) -> Opt {
    float V[3] = {};
    for (unsigned K = 0; K < N; ++K)
      V[K] = f32(Ftz ? flush(I[K], F32) : I[K]);
    uint64_t B = bitsOf(ieee<float>(O, R, V[0], V[1], V[2]));
    if (Ftz)
      B = flush(B, F32);
    return Sat ? saturate(B, F32) : B;
  });
}

/// An f64 fma operand: the float specials and the powers of two where products and sums leave
/// the normal range (underflow of a product's low part near 2^-970, subnormal results,
/// overflow), with neighbours.
Operand f64FmaOp(const char *Name) {
  Operand O = fop(Name, F64);
  for (int K : {-1074, -1060, -1022, -1000, -970, -969, -900, -600, -538, -537, -512,
                -511,  -300,  200,   300,   511,  512,  600,  970,  1000, 1020, 1023})
    for (LD M : {1.0L, 1.5L})
      for (uint64_t Sign : {uint64_t(0), F64.sign()}) {
        const uint64_t V = encode(std::ldexp(M, K), F64) | Sign;
        O.Extra.insert(O.Extra.end(), {V, V + 1, V - 1});
      }
  return O;
}

/// fma.rnd.f64 d, a, b, t with t computed from a, b, c so that a * b + t cancels: t = c - a * b
/// (d is the product's rounding error plus c) or t = c - fma.rn(a, b, c) (d is about that fma's
/// rounding error). They reach the exact zeros, subnormal results and tie-breaking offsets that
/// independent operands rarely do.
Case f64FmaCancelling(Rnd R, bool OfFma) {
  const std::string Pre = OfFma ? "fma.rn.f64 %t, %a, %b, %c;" : "mul.rn.f64 %t, %a, %b;";
  Case C = fcase(Pre + " sub.rn.f64 %t, %c, %t; fma" + rn(R) + ".f64 %d, %a, %b, %t;",
                 {f64FmaOp("a"), f64FmaOp("b"), f64FmaOp("c")}, fop("d", F64), F64, NaNs::Payload,
                 [=](const uint64_t *I) -> Opt {
                   const double A = f64(I[0]), B = f64(I[1]), Cv = f64(I[2]);
                   const double P = OfFma ? ieee<double>(Op::Fma, Rnd::RN, A, B, Cv)
                                          : ieee<double>(Op::Mul, Rnd::RN, A, B);
                   const double T = ieee<double>(Op::Sub, Rnd::RN, Cv, P);
                   return bitsOf(ieee<double>(Op::Fma, R, A, B, T));
                 });
  C.Decls = ".reg .f64 %t;";
  return C;
}

Family floatArith() {
  Family F{"float-arith", {}};
  auto &C = F.Cases;
  for (Rnd R : Modes) {
    for (Op O : {Op::Add, Op::Sub, Op::Mul, Op::Fma})
      for (int V = 0; V < 3; ++V)
        C.push_back(f32Arith(opName(O), O, R, V == 1, V == 2));
    // mad.rnd.f32 is fma.rnd.f32 (9.7.3.7).
    C.push_back(f32Arith("mad", Op::Fma, R, false, false));
    for (Op O : {Op::Div, Op::Rcp, Op::Sqrt})
      for (bool Ftz : {false, true})
        C.push_back(f32Arith(opName(O), O, R, Ftz, false));
    for (Op O : {Op::Add, Op::Sub, Op::Mul, Op::Fma, Op::Div, Op::Rcp, Op::Sqrt}) {
      const unsigned N = arity(O);
      std::vector<Operand> In;
      for (const char *Nm : {"a", "b", "c"})
        if (In.size() < N)
          In.push_back(O == Op::Fma ? f64FmaOp(Nm) : fop(Nm, F64));
      for (const std::string &Name : O == Op::Fma ? std::vector<std::string>{"fma", "mad"}
                                                  : std::vector<std::string>{opName(O)})
        C.push_back(fcase(Name + rn(R) + ".f64" + operands(N), In, fop("d", F64), F64,
                          NaNs::Payload, [=](const uint64_t *I) -> Opt {
                            return bitsOf(ieee<double>(O, R, f64(I[0]), f64(I[1]), f64(I[2])));
                          }));
    }
  }
  for (Op O : {Op::Add, Op::Sub, Op::Mul, Op::Fma})
    C.push_back(f32Arith(opName(O), O, Rnd::RN, true, true));
  for (Rnd R : Modes)
    for (bool OfFma : {false, true})
      C.push_back(f64FmaCancelling(R, OfFma));
  return F;
}

// --- min/max, abs/neg, copysign, testp -----------------------------------------------------

/// min/max by the ISA's pseudo-code: one NaN gives the other operand, -0 < +0; .NaN: any NaN
/// gives the canonical NaN; .xorsign.abs: magnitudes compared, the sign is the XOR of the signs.
uint64_t minMax(uint64_t A, uint64_t B, const Fmt &F, bool Max, bool Ftz, bool NaN, bool XorAbs) {
  if (Ftz) {
    A = flush(A, F);
    B = flush(B, F);
  }
  const uint64_t Xor = (A ^ B) & F.sign();
  if (XorAbs) {
    A &= ~F.sign();
    B &= ~F.sign();
  }
  const bool NA = isNaN(A, F), NB = isNaN(B, F);
  if ((NA && NB) || (NaN && (NA || NB)))
    return F.CanonicalNaN;
  uint64_t R;
  if (NA || NB) {
    R = NA ? B : A;
  } else {
    const LD X = decode(A, F), Y = decode(B, F);
    // Order -0 below +0 by the sign bit when the values compare equal.
    const bool ALess = X < Y || (X == Y && (A & F.sign()) && !(B & F.sign()));
    R = (ALess != Max) ? A : B;
  }
  return XorAbs ? (R & ~F.sign()) | Xor : R;
}

Family floatMisc() {
  Family F{"float-minmax-misc", {}};
  auto &C = F.Cases;
  for (bool Max : {false, true}) {
    const std::string Name = Max ? "max" : "min";
    struct V {
      const char *Mods;
      bool Ftz, NaN, XorAbs;
    };
    for (V M :
         {V{"", false, false, false}, V{".ftz", true, false, false}, V{".NaN", false, true, false},
          V{".ftz.NaN", true, true, false}, V{".xorsign.abs", false, false, true}})
      // Both-NaN results are an unspecified NaN unless .NaN asks for the canonical one.
      C.push_back(fcase(Name + M.Mods + ".f32 %d, %a, %b;", {fop("a", F32), fop("b", F32)},
                        fop("d", F32), F32, M.NaN ? NaNs::Exact : NaNs::Any,
                        [=](const uint64_t *I) -> Opt {
                          return minMax(I[0], I[1], F32, Max, M.Ftz, M.NaN, M.XorAbs);
                        }));
    C.push_back(fcase(Name + ".f64 %d, %a, %b;", {fop("a", F64), fop("b", F64)}, fop("d", F64), F64,
                      NaNs::Payload, [=](const uint64_t *I) -> Opt {
                        return minMax(I[0], I[1], F64, Max, false, false, false);
                      }));
  }
  // abs/neg.f32 of a NaN is an unspecified NaN; abs.f64 passes a NaN through unchanged, neg.f64
  // keeps its payload (9.7.3.9, 9.7.3.10).
  for (bool Ftz : {false, true}) {
    const std::string M = Ftz ? ".ftz" : "";
    C.push_back(fcase(
        "abs" + M + ".f32 %d, %a;", {fop("a", F32)}, fop("d", F32), F32, NaNs::Any,
        [=](const uint64_t *I) -> Opt { return (Ftz ? flush(I[0], F32) : I[0]) & ~F32.sign(); }));
    C.push_back(fcase(
        "neg" + M + ".f32 %d, %a;", {fop("a", F32)}, fop("d", F32), F32, NaNs::Any,
        [=](const uint64_t *I) -> Opt { return (Ftz ? flush(I[0], F32) : I[0]) ^ F32.sign(); }));
  }
  C.push_back(fcase("abs.f64 %d, %a;", {fop("a", F64)}, fop("d", F64), F64, NaNs::Exact,
                    [](const uint64_t *I) -> Opt { return I[0] & ~F64.sign(); }));
  C.push_back(fcase("neg.f64 %d, %a;", {fop("a", F64)}, fop("d", F64), F64, NaNs::Payload,
                    [](const uint64_t *I) -> Opt { return I[0] ^ F64.sign(); }));
  // copysign d, a, b: the sign bit of a on the value of b.
  for (const Fmt *T : {&F32, &F64})
    C.push_back(fcase(std::string("copysign.") + T->Name + " %d, %a, %b;",
                      {fop("a", *T), fop("b", *T)}, fop("d", *T), *T, NaNs::Exact,
                      [T](const uint64_t *I) -> Opt {
                        return (I[0] & T->sign()) | (I[1] & ~T->sign() & mask(T->Bits));
                      }));
  // testp: zeros count as normal numbers.
  for (const Fmt *T : {&F32, &F64})
    for (const char *P : {"finite", "infinite", "number", "notanumber", "normal", "subnormal"}) {
      const std::string Prop = P;
      C.push_back(make(std::string("testp.") + P + "." + T->Name + " %p, %a;", {fop("a", *T)},
                       pred("p"), [T, Prop](const uint64_t *I) -> Opt {
                         const LD X = decode(I[0], *T);
                         const bool Sub = isSubnormal(I[0], *T);
                         bool R = Prop == "finite"       ? std::isfinite(X)
                                  : Prop == "infinite"   ? std::isinf(X)
                                  : Prop == "number"     ? !std::isnan(X)
                                  : Prop == "notanumber" ? bool(std::isnan(X))
                                  : Prop == "normal"     ? std::isfinite(X) && !Sub
                                                         : Sub;
                         return R;
                       }));
    }
  return F;
}

// --- f16/bf16 and packed pairs ----------------------------------------------------------------

Family halfArith() {
  Family F{"half-arith", {}};
  auto &C = F.Cases;
  for (const Fmt *T : {&F16, &BF16})
    for (unsigned Lanes : {1u, 2u}) {
      const bool IsF16 = T == &F16;
      const std::string Ty = std::string(".") + T->Name + (Lanes == 2 ? "x2" : "");
      auto Opnd = [&](const char *N) { return Lanes == 2 ? pairOp(N, *T) : fop(N, *T); };
      auto Add = [&](const std::string &Body, unsigned N, NaNs Rule,
                     std::function<uint64_t(const uint64_t *)> Fn) {
        std::vector<Operand> In;
        for (const char *Nm : {"a", "b", "c"})
          if (In.size() < N)
            In.push_back(Opnd(Nm));
        C.push_back(fcase(Body, In, Opnd("d"), *T, Rule, perLane(Lanes, N, std::move(Fn))));
      };
      // add/sub/mul/fma: .rn only; .ftz/.sat for f16, .relu for fma (canonical NaN).
      struct V {
        const char *Mods;
        bool Ftz, Sat, Relu;
      };
      std::vector<V> Variants = {{"", false, false, false}};
      if (IsF16) {
        Variants.push_back({".ftz", true, false, false});
        Variants.push_back({".sat", false, true, false});
      }
      for (Op O : {Op::Add, Op::Sub, Op::Mul, Op::Fma}) {
        std::vector<V> Vs = Variants;
        if (O == Op::Fma)
          Vs.push_back({".relu", false, false, true});
        for (V M : Vs) {
          const unsigned N = arity(O);
          Add(opName(O) + ".rn" + M.Mods + Ty + operands(N), N, M.Relu ? NaNs::Exact : NaNs::Any,
              [=](const uint64_t *X) {
                double D[3] = {};
                for (unsigned K = 0; K < N; ++K)
                  D[K] = double(decode(M.Ftz ? flush(X[K], *T) : X[K], *T));
                uint64_t R = encode(roundTo(roundOdd(O, D[0], D[1], D[2]), *T, Rnd::RN), *T);
                if (M.Ftz)
                  R = flush(R, *T);
                return M.Sat ? saturate(R, *T) : M.Relu ? relu(R, *T) : R;
              });
        }
      }
      for (bool Max : {false, true}) {
        struct W {
          const char *Mods;
          bool Ftz, NaN;
        };
        std::vector<W> Ws = {{"", false, false}, {".NaN", false, true}};
        if (IsF16)
          Ws.push_back({".ftz", true, false});
        for (W M : Ws)
          Add(std::string(Max ? "max" : "min") + M.Mods + Ty + " %d, %a, %b;", 2,
              M.NaN ? NaNs::Exact : NaNs::Any,
              [=](const uint64_t *X) { return minMax(X[0], X[1], *T, Max, M.Ftz, M.NaN, false); });
      }
      for (bool Ftz : IsF16 ? std::vector<bool>{false, true} : std::vector<bool>{false}) {
        const std::string M = Ftz ? ".ftz" : "";
        Add("neg" + M + Ty + " %d, %a;", 1, NaNs::Any,
            [=](const uint64_t *X) { return (Ftz ? flush(X[0], *T) : X[0]) ^ T->sign(); });
        Add("abs" + M + Ty + " %d, %a;", 1, NaNs::Any,
            [=](const uint64_t *X) { return (Ftz ? flush(X[0], *T) : X[0]) & ~T->sign(); });
      }
    }
  return F;
}

// --- cvt ------------------------------------------------------------------------------------

struct IntTy {
  const char *Name;
  unsigned Bits;
  bool Signed;
};
const IntTy S8{"s8", 8, true}, U8{"u8", 8, false}, S16{"s16", 16, true}, U16{"u16", 16, false},
    S32{"s32", 32, true}, U32{"u32", 32, false}, S64{"s64", 64, true}, U64{"u64", 64, false};

/// Integer rounding of \p X in mode \p R (ties to even for .rni).
LD roundInt(LD X, Rnd R) {
  switch (R) {
  case Rnd::RZ:
    return std::trunc(X);
  case Rnd::RM:
    return std::floor(X);
  case Rnd::RP:
    return std::ceil(X);
  default: {
    LD T = std::floor(X);
    const LD Frac = X - T;
    if (Frac > 0.5L || (Frac == 0.5L && std::fmod(T, LD(2)) != 0))
      T += 1;
    return std::copysign(T, X);
  }
  }
}

Family floatCvt() {
  Family F{"cvt-float", {}};
  auto &C = F.Cases;
  const Fmt *Floats[] = {&F16, &F32, &F64};

  // Narrowing float-to-float conversions round in the given mode; .ftz flushes f32 results.
  struct Narrow {
    const Fmt *D, *S;
  };
  for (Narrow N : {Narrow{&F32, &F64}, Narrow{&F16, &F32}, Narrow{&F16, &F64}})
    for (Rnd R : Modes)
      C.push_back(fcase(std::string("cvt") + rn(R) + "." + N.D->Name + "." + N.S->Name + " %d, %a;",
                        {fop("a", *N.S)}, fop("d", *N.D), *N.D, NaNs::Any,
                        [=](const uint64_t *I) -> Opt {
                          return encode(roundTo(decode(I[0], *N.S), *N.D, R), *N.D);
                        }));
  C.push_back(fcase("cvt.rn.ftz.f32.f64 %d, %a;", {fop("a", F64)}, fop("d", F32), F32, NaNs::Any,
                    [](const uint64_t *I) -> Opt {
                      return flush(encode(roundTo(decode(I[0], F64), F32, Rnd::RN), F32), F32);
                    }));
  // f32 to bf16 (.rn, .rz) and the .relu/.satfinite forms: .satfinite gives the largest finite
  // value of the result's sign where the rounded magnitude exceeds it, a NaN stays NaN.
  struct Down {
    const Fmt *D;
    Rnd R;
    bool Relu, SatFinite;
  };
  for (Down V : {Down{&BF16, Rnd::RN, false, false}, Down{&BF16, Rnd::RZ, false, false},
                 Down{&F16, Rnd::RN, true, false}, Down{&F16, Rnd::RN, false, true},
                 Down{&F16, Rnd::RZ, true, true}, Down{&BF16, Rnd::RN, true, false},
                 Down{&BF16, Rnd::RZ, false, true}})
    C.push_back(fcase(std::string("cvt") + rn(V.R) + (V.Relu ? ".relu" : "") +
                          (V.SatFinite ? ".satfinite" : "") + "." + V.D->Name + ".f32 %d, %a;",
                      {fop("a", F32)}, fop("d", *V.D), *V.D, V.Relu ? NaNs::Exact : NaNs::Any,
                      [=](const uint64_t *I) -> Opt {
                        LD X = roundTo(decode(I[0], F32), *V.D, V.R);
                        if (V.SatFinite && std::fabs(X) > maxFinite(*V.D))
                          X = std::copysign(maxFinite(*V.D), X);
                        const uint64_t B = encode(X, *V.D);
                        return V.Relu ? relu(B, *V.D) : B;
                      }));
  // Packed: a goes to the upper half, b to the lower.
  for (const Fmt *D : {&F16, &BF16})
    for (Rnd R : {Rnd::RN, Rnd::RZ})
      C.push_back(fcase(std::string("cvt") + rn(R) + "." + D->Name + "x2.f32 %d, %a, %b;",
                        {fop("a", F32), fop("b", F32)}, b32("d"), *D, NaNs::Any,
                        [=](const uint64_t *I) -> Opt {
                          return encode(roundTo(decode(I[0], F32), *D, R), *D) << 16 |
                                 encode(roundTo(decode(I[1], F32), *D, R), *D);
                        }));
  // tf32 (the upper 19 bits of an f32 register): round to nearest, ties away from zero.
  C.push_back(fcase("cvt.rna.tf32.f32 %d, %a;", {fop("a", F32)}, fop("d", F32), F32, NaNs::Any,
                    [](const uint64_t *I) -> Opt {
                      const Fmt TF32{"tf32", 19, 11, 127, 0};
                      return encode(roundTo(decode(I[0], F32), TF32, Rnd::RNA), F32);
                    }));
  // Widening conversions are exact.
  struct Widen {
    const Fmt *D, *S;
    bool Ftz;
  };
  for (Widen W : {Widen{&F32, &F16, false}, Widen{&F64, &F16, false}, Widen{&F32, &BF16, false},
                  Widen{&F64, &F32, false}, Widen{&F64, &F32, true}})
    C.push_back(fcase(
        std::string("cvt") + (W.Ftz ? ".ftz" : "") + "." + W.D->Name + "." + W.S->Name + " %d, %a;",
        {fop("a", *W.S)}, fop("d", *W.D), *W.D, NaNs::Any, [=](const uint64_t *I) -> Opt {
          return encode(decode(W.Ftz ? flush(I[0], *W.S) : I[0], *W.S), *W.D);
        }));
  // Rounding to an integral value in the same format.
  for (const Fmt *T : Floats)
    for (Rnd R : Modes)
      C.push_back(fcase("cvt" + rni(R) + "." + T->Name + "." + T->Name + " %d, %a;", {fop("a", *T)},
                        fop("d", *T), *T, NaNs::Any, [=](const uint64_t *I) -> Opt {
                          const LD X = decode(I[0], *T);
                          return encode(std::isfinite(X) ? roundInt(X, R) : X, *T);
                        }));
  C.push_back(fcase("cvt.rmi.ftz.f32.f32 %d, %a;", {fop("a", F32)}, fop("d", F32), F32, NaNs::Any,
                    [](const uint64_t *I) -> Opt {
                      const LD X = decode(flush(I[0], F32), F32);
                      return encode(std::isfinite(X) ? roundInt(X, Rnd::RM) : X, F32);
                    }));

  // Float to integer: rounded, then clamped to the destination's range. A NaN gives 0, except
  // from f64 or to a 64-bit type where it gives 1 << (width - 1).
  auto ToInt = [&](const Fmt &S, const IntTy &D, Rnd R, bool Ftz) {
    C.push_back(
        make("cvt" + rni(R) + (Ftz ? ".ftz" : "") + "." + D.Name + "." + S.Name + " %d, %a;",
             {fop("a", S)}, ofBits("d", std::max(D.Bits, 16u)), [=, &S](const uint64_t *I) -> Opt {
               const LD X = decode(Ftz ? flush(I[0], S) : I[0], S);
               if (std::isnan(X))
                 return &S == &F64 || D.Bits == 64 ? 1ull << (D.Bits - 1) : 0;
               const LD Lo = D.Signed ? -std::ldexp(LD(1), D.Bits - 1) : 0;
               const LD Hi = std::ldexp(LD(1), D.Bits - D.Signed) - 1;
               const LD V = std::clamp(roundInt(X, R), Lo, Hi);
               const uint64_t U = V < 0 ? uint64_t(int64_t(V)) : uint64_t(V); // two's complement
               // Narrow destinations in wider registers are sign/zero-extended.
               return D.Bits < 16 && D.Signed ? uint64_t(sext(U, D.Bits)) & 0xffff
                                              : U & mask(std::max(D.Bits, 16u));
             }));
  };
  for (const Fmt *S : {&F32, &F64})
    for (const IntTy *D : {&S32, &U32, &S64, &U64})
      for (Rnd R : Modes)
        ToInt(*S, *D, R, false);
  for (const IntTy *D : {&S8, &U8, &S16, &U16})
    ToInt(F32, *D, Rnd::RZ, false);
  ToInt(F32, S32, Rnd::RM, true);
  ToInt(F16, S32, Rnd::RN, false);
  ToInt(F16, U16, Rnd::RZ, false);
  ToInt(F16, S8, Rnd::RP, false);

  // Integer to float: the exact value rounded in the given mode.
  auto FromInt = [&](const IntTy &S, const Fmt &D, Rnd R) {
    Operand A = ofBits("a", S.Bits);
    C.push_back(make(std::string("cvt") + rn(R) + "." + D.Name + "." + S.Name + " %d, %a;", {A},
                     ofBits("d", D.Bits), [=, &D](const uint64_t *I) -> Opt {
                       const LD X = S.Signed ? LD(sext(I[0], S.Bits)) : LD(I[0] & mask(S.Bits));
                       return encode(roundTo(X, D, R), D);
                     }));
  };
  for (const IntTy *S : {&S32, &U32, &S64, &U64})
    for (const Fmt *D : {&F32, &F64})
      for (Rnd R : Modes)
        if (!(D == &F64 && S->Bits == 32 && R != Rnd::RN)) // exact: one mode suffices
          FromInt(*S, *D, R);
  for (Rnd R : Modes)
    FromInt(S32, F16, R);
  FromInt(U16, F16, Rnd::RN);
  FromInt(S16, F16, Rnd::RZ);
  return F;
}

// --- comparisons and selection ---------------------------------------------------------------

/// setp/set comparison \p Cmp of two values: the unordered forms (…u) and nan are true when an
/// operand is NaN, the ordered ones false.
bool compare(const std::string &Cmp, LD A, LD B) {
  const bool Unordered = std::isnan(A) || std::isnan(B);
  if (Cmp == "num")
    return !Unordered;
  if (Cmp == "nan")
    return Unordered;
  const bool U = Cmp.size() == 3 && Cmp.back() == 'u';
  if (Unordered)
    return U;
  const std::string Base = U ? Cmp.substr(0, 2) : Cmp;
  return Base == "eq"   ? A == B
         : Base == "ne" ? A != B
         : Base == "lt" ? A < B
         : Base == "le" ? A <= B
         : Base == "gt" ? A > B
                        : A >= B;
}

Family floatCompare() {
  Family F{"float-compare", {}};
  auto &C = F.Cases;
  const char *Cmps[] = {"eq",  "ne",  "lt",  "le",  "gt",  "ge",  "equ",
                        "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
  for (const Fmt *T : {&F32, &F64})
    for (const char *Cmp : Cmps)
      C.push_back(make(std::string("setp.") + Cmp + "." + T->Name + " %p, %a, %b;",
                       {fop("a", *T), fop("b", *T)}, pred("p"),
                       [T, Cmp = std::string(Cmp)](const uint64_t *I) -> Opt {
                         return compare(Cmp, decode(I[0], *T), decode(I[1], *T));
                       }));
  for (const char *Cmp : {"lt", "equ", "ge"})
    C.push_back(
        make(std::string("setp.") + Cmp + ".ftz.f32 %p, %a, %b;", {fop("a", F32), fop("b", F32)},
             pred("p"), [Cmp = std::string(Cmp)](const uint64_t *I) -> Opt {
               return compare(Cmp, decode(flush(I[0], F32), F32), decode(flush(I[1], F32), F32));
             }));
  for (const Fmt *T : {&F16, &BF16})
    for (const char *Cmp : {"lt", "neu"})
      C.push_back(make(std::string("setp.") + Cmp + "." + T->Name + " %p, %a, %b;",
                       {fop("a", *T), fop("b", *T)}, pred("p"),
                       [T, Cmp = std::string(Cmp)](const uint64_t *I) -> Opt {
                         return compare(Cmp, decode(I[0], *T), decode(I[1], *T));
                       }));
  // set: all ones (integer destination) or 1.0f (f32 destination) when true, else 0.
  C.push_back(make("set.lt.u32.f32 %d, %a, %b;", {fop("a", F32), fop("b", F32)}, b32("d"),
                   [](const uint64_t *I) -> Opt {
                     return compare("lt", decode(I[0], F32), decode(I[1], F32)) ? 0xffffffff : 0;
                   }));
  C.push_back(make("set.gtu.f32.f64 %d, %a, %b;", {fop("a", F64), fop("b", F64)}, b32("d"),
                   [](const uint64_t *I) -> Opt {
                     return compare("gtu", decode(I[0], F64), decode(I[1], F64)) ? 0x3f800000 : 0;
                   }));
  for (const Fmt *T : {&F32, &F64})
    C.push_back(make(std::string("selp.") + T->Name + " %d, %a, %b, %c;",
                     {fop("a", *T), fop("b", *T), pred("c")}, fop("d", *T),
                     [](const uint64_t *I) -> Opt { return I[2] ? I[0] : I[1]; }));
  // slct: a if c >= 0 (-0 counts as 0, NaN fails), else b; .ftz flushes c.
  for (const char *Ty : {"f32", "s32"})
    for (bool Ftz : {false, true}) {
      if (Ftz && Ty[0] == 's')
        continue;
      C.push_back(make(
          std::string("slct") + (Ftz ? ".ftz" : "") + "." + Ty + ".f32 %d, %a, %b, %c;",
          {fop("a", F32), fop("b", F32), fop("c", F32)}, b32("d"), [Ftz](const uint64_t *I) -> Opt {
            return decode(Ftz ? flush(I[2], F32) : I[2], F32) >= 0 ? I[0] : I[1];
          }));
    }
  return F;
}

// --- .approx --------------------------------------------------------------------------------

/// Distance in units in the last place of f32 at the magnitude of \p Exact; an infinity counts
/// as 2^128, the next value past the largest finite one.
LD ulpDistance(LD Exact, LD Got) {
  const LD Top = std::ldexp(LD(1), 128);
  Exact = std::clamp(Exact, -Top, Top);
  if (std::isinf(Got))
    Got = std::copysign(Top, Got);
  const LD Ulp = std::ldexp(LD(1), std::max(std::ilogb(Exact), -126) - 23);
  return std::fabs(Got - Exact) / Ulp;
}
/// How many representable f32 values lie between \p A and \p B (infinity past the largest).
int64_t stepsBetween(uint64_t A, uint64_t B) {
  auto Ordered = [](uint64_t V) {
    const int64_t M = int64_t(V & 0x7fffffff);
    return V & 0x80000000 ? -M : M;
  };
  return std::abs(Ordered(A) - Ordered(B));
}

struct Approx {
  std::string Body;
  std::function<LD(LD, LD)> Exact; ///< the mathematical function of the (flushed) inputs
  /// Whether \p Got is within the ISA's bound for inputs \p A, \p B; nullopt: no bound (the
  /// result is unspecified and only has to run).
  std::function<std::optional<bool>(LD A, LD B, LD Exact, LD Got)> Within;
  unsigned Arity = 1;
};

Case approxCase(const Approx &X, bool Ftz) {
  std::vector<Operand> In = {fop("a", F32)};
  if (X.Arity == 2)
    In.push_back(fop("b", F32));
  auto Inputs = [Ftz](const uint64_t *I, unsigned K) {
    return decode(Ftz ? flush(I[K], F32) : I[K], F32);
  };
  const unsigned N = X.Arity;
  Case C = make(X.Body + (Ftz ? ".ftz" : "") + ".f32" + operands(N), In, fop("d", F32),
                [=](const uint64_t *I) -> Opt {
                  const LD A = Inputs(I, 0), B = N == 2 ? Inputs(I, 1) : 0;
                  const LD E = X.Exact(A, B);
                  // Zeros, infinities and NaNs have fixed results (the ISA's tables); elsewhere
                  // a bound may not be documented.
                  const bool Special = N == 1 && (A == 0 || !std::isfinite(A));
                  if (!Special && !X.Within(A, B, E, E))
                    return {};
                  const uint64_t R = encode(roundTo(E, F32, Rnd::RN), F32);
                  return Ftz ? flush(R, F32) : R;
                });
  C.Canonical = oneNaN(F32, 1);
  C.Accept = [=](const uint64_t *I, const uint64_t *Exp, const uint64_t *Got) {
    if (isNaN(Exp[0], F32))
      return isNaN(Got[0], F32);
    const LD A = Inputs(I, 0), B = N == 2 ? Inputs(I, 1) : 0;
    const LD E = X.Exact(A, B), G = decode(Got[0], F32);
    // The ISA's tables fix the results for zeros, infinities and NaNs.
    if (std::isnan(G) || !std::isfinite(A) || A == 0 || !std::isfinite(B))
      return false;
    if (X.Within(A, B, E, G).value_or(false))
      return !Ftz || !isSubnormal(Got[0], F32);
    // .ftz: a result that would be subnormal is flushed to a zero of its sign.
    const LD Sub = std::copysign(std::ldexp(LD(1), -126) - std::ldexp(LD(1), -149), E);
    return Ftz && G == 0 && std::signbit(G) == std::signbit(E) &&
           (std::fabs(E) < std::ldexp(LD(1), -126) || X.Within(A, B, E, Sub).value_or(false));
  };
  return C;
}

Family floatApprox() {
  Family F{"float-approx", {}};
  auto Ulps = [](LD Bound) {
    return [=](LD, LD, LD E, LD G) -> std::optional<bool> { return ulpDistance(E, G) <= Bound; };
  };
  auto Rel = [](LD Bound) {
    return [=](LD, LD, LD E, LD G) -> std::optional<bool> {
      return std::fabs(G - E) <= Bound * std::fabs(E);
    };
  };
  const std::vector<Approx> Fns = {
      // 9.7.3.13: the maximum ulp error is 1 across the full range of inputs.
      {"rcp.approx", [](LD A, LD) { return 1 / A; }, Ulps(1)},
      // 9.7.3.15: maximum relative error 2^-23 over the positive finite range.
      {"sqrt.approx", [](LD A, LD) { return std::sqrt(A); }, Rel(std::ldexp(LD(1), -23))},
      // 9.7.3.16: maximum relative error 2^-22.9 over the positive finite range.
      {"rsqrt.approx", [](LD A, LD) { return 1 / std::sqrt(A); }, Rel(std::exp2(LD(-22.9)))},
      // 9.7.3.21: at most 2 ulp from the correctly rounded result, across the full range.
      {"ex2.approx", [](LD A, LD) { return std::exp2(A); },
       [](LD, LD, LD E, LD G) -> std::optional<bool> {
         return stepsBetween(encode(roundTo(E, F32, Rnd::RN), F32),
                             encode(roundTo(G, F32, Rnd::RN), F32)) <= 2;
       }},
      // 9.7.3.20: absolute error 2^-22 for inputs in (0.5, 2), relative error 2^-22 elsewhere.
      {"lg2.approx", [](LD A, LD) { return std::log2(A); },
       [](LD A, LD, LD E, LD G) -> std::optional<bool> {
         const LD B = std::ldexp(LD(1), -22);
         return std::fabs(G - E) <= (A > 0.5L && A < 2 ? B : B * std::fabs(E));
       }},
      // 9.7.3.18/19: absolute error 2^-20.5 in [-2pi, 2pi], 2^-14.7 in [-100pi, 100pi]; no
      // guarantee beyond.
      {"sin.approx", [](LD A, LD) { return std::sin(A); },
       [](LD A, LD, LD E, LD G) -> std::optional<bool> {
         const LD Pi = 3.14159265358979323846L;
         if (std::fabs(A) > 100 * Pi)
           return {};
         return std::fabs(G - E) <= std::exp2(std::fabs(A) <= 2 * Pi ? LD(-20.5) : LD(-14.7));
       }},
      {"cos.approx", [](LD A, LD) { return std::cos(A); },
       [](LD A, LD, LD E, LD G) -> std::optional<bool> {
         const LD Pi = 3.14159265358979323846L;
         if (std::fabs(A) > 100 * Pi)
           return {};
         return std::fabs(G - E) <= std::exp2(std::fabs(A) <= 2 * Pi ? LD(-20.5) : LD(-14.7));
       }},
  };
  for (const Approx &X : Fns)
    for (bool Ftz : {false, true})
      F.Cases.push_back(approxCase(X, Ftz));
  // 9.7.3.22: maximum relative error 2^-11 over the entire range (no .ftz form).
  Case Tanh = approxCase(
      {"tanh.approx", [](LD A, LD) { return std::tanh(A); }, Rel(std::ldexp(LD(1), -11))}, false);
  F.Cases.push_back(std::move(Tanh));
  // 9.7.3.8: div.approx: at most 2 ulp for |b| in [2^-126, 2^126]; for 2^126 < |b| < 2^128 the
  // result is NaN when a is infinite, else a zero of the quotient's sign; nothing is said
  // elsewhere. div.full: at most 2 ulp across the full range.
  const Approx DivApprox{"div.approx",
                         [](LD A, LD B) {
                           const LD M = std::fabs(B);
                           if (std::isfinite(B) && M > std::ldexp(LD(1), 126) && !std::isnan(A))
                             return std::isinf(A) ? LD(NAN)
                                                  : std::copysign(LD(0), A) * (B < 0 ? -1 : 1);
                           return A / B;
                         },
                         [](LD A, LD B, LD E, LD G) -> std::optional<bool> {
                           const LD M = std::fabs(B);
                           if (std::isnan(A) || std::isnan(B))
                             return true;
                           if (!(M >= std::ldexp(LD(1), -126) && std::isfinite(B)))
                             return {};
                           if (M > std::ldexp(LD(1), 126))
                             return G == E && std::signbit(G) == std::signbit(E);
                           return ulpDistance(E, G) <= 2;
                         },
                         2};
  const Approx DivFull{"div.full", [](LD A, LD B) { return A / B; }, Ulps(2), 2};
  for (const Approx *X : {&DivApprox, &DivFull})
    for (bool Ftz : {false, true})
      F.Cases.push_back(approxCase(*X, Ftz));
  return F;
}

} // namespace

std::vector<Family> floatFamilies() {
  return {floatArith(), floatMisc(), halfArith(), floatCvt(), floatCompare(), floatApprox()};
}

} // namespace conformance
