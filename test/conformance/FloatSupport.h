// What the floating-point families (FloatFamilies.cpp, FloatFormatFamilies.cpp) share: the
// formats, rounding in software and under the host's rounding modes, special inputs and the
// cases' NaN rules. FloatFamilies.cpp says how the references are computed.
#pragma once

#include "Families.h"

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdlib>

namespace conformance::float_families {

using Opt = std::optional<uint64_t>;
using LD = long double;

enum class Rnd { RN, RZ, RM, RP, RNA };
const Rnd Modes[] = {Rnd::RN, Rnd::RZ, Rnd::RM, Rnd::RP};
inline std::string rn(Rnd R) {
  static const char *N[] = {".rn", ".rz", ".rm", ".rp", ".rna"};
  return N[int(R)];
}
/// The integer-rounding spelling of \p R (cvt to integers and to integral floats).
inline std::string rni(Rnd R) { return rn(R) + "i"; }
inline int fenvMode(Rnd R) {
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

inline bool isNaN(uint64_t V, const Fmt &F) {
  return (V & ~F.sign() & mask(F.Bits)) > (mask(F.expBits()) << (F.P - 1));
}
inline bool isSubnormal(uint64_t V, const Fmt &F) {
  return !((V >> (F.P - 1)) & mask(F.expBits())) && (V & mask(F.P - 1));
}
/// .ftz: a subnormal becomes a zero of the same sign.
inline uint64_t flush(uint64_t V, const Fmt &F) { return isSubnormal(V, F) ? V & F.sign() : V; }

inline LD decode(uint64_t V, const Fmt &F) {
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
inline uint64_t encode(LD X, const Fmt &F) {
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

inline LD maxFinite(const Fmt &F) {
  return std::ldexp(LD(2) - std::ldexp(LD(1), 1 - int(F.P)), F.Emax);
}

/// \p X rounded to \p F in mode \p R (IEEE 754: overflow gives inf or the largest finite value
/// depending on the direction; the sign of a zero result is the sign of X).
inline LD roundTo(LD X, const Fmt &F, Rnd R) {
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

inline uint64_t bitsOf(float V) { return std::bit_cast<uint32_t>(V); }
inline uint64_t bitsOf(double V) { return std::bit_cast<uint64_t>(V); }
inline float f32(uint64_t V) { return std::bit_cast<float>(uint32_t(V)); }
inline double f64(uint64_t V) { return std::bit_cast<double>(V); }

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
inline double roundOdd(Op O, double A, double B = 0, double C = 0) {
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
inline uint64_t saturate(uint64_t V, const Fmt &F) {
  if (isNaN(V, F) || (V & F.sign()))
    return 0;
  return decode(V, F) > 1 ? encode(1, F) : V;
}
/// .relu: "clamps the result to 0 if negative" (-0 is not negative and stays), a NaN becomes the
/// canonical NaN.
inline uint64_t relu(uint64_t V, const Fmt &F) {
  if (isNaN(V, F))
    return F.CanonicalNaN;
  return decode(V, F) < 0 ? 0 : V;
}

// --- inputs -------------------------------------------------------------------------------

/// Special values of \p F beside the harness's bit patterns: zeros, infinities, NaNs with and
/// without payloads (quiet and signalling), subnormals of every exponent, normal limits, values
/// around one, ties and integer-conversion boundaries; each of either sign.
inline std::vector<uint64_t> floatSpecials(const Fmt &F) {
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

inline Operand fop(const char *Name, const Fmt &F) {
  Operand O = ofBits(Name, F.Bits);
  O.Extra = floatSpecials(F);
  return O;
}
/// A packed pair of 16-bit values: specials in either half, or in both.
inline Operand pairOp(const char *Name, const Fmt &F) {
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
inline bool sameUpToNaN(uint64_t Expected, uint64_t Got, const Fmt &F, unsigned Lanes, NaNs Rule,
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
inline Canonicalizer oneNaN(const Fmt &F, unsigned Lanes) {
  return [=, &F](size_t, uint64_t V) {
    for (unsigned L = 0; L < Lanes; ++L)
      if (isNaN((V >> (L * F.Bits)) & mask(F.Bits), F))
        V = (V & ~(mask(F.Bits) << (L * F.Bits))) | (F.CanonicalNaN << (L * F.Bits));
    return V;
  };
}

/// A case whose output is \p Out.Bits / \p F.Bits lanes of format \p F, with NaN rule \p Rule
/// (for NaNs::Payload, the NaN inputs of format \p F are the payloads a NaN result may carry).
inline Case fcase(std::string Body, std::vector<Operand> In, Operand Out, const Fmt &F, NaNs Rule,
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
inline std::function<Opt(const uint64_t *)> perLane(unsigned Lanes, unsigned Arity,
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

inline std::string opName(Op O) {
  static const char *N[] = {"add", "sub", "mul", "fma", "div", "rcp", "sqrt"};
  return N[int(O)];
}
inline unsigned arity(Op O) { return O == Op::Fma ? 3 : O == Op::Rcp || O == Op::Sqrt ? 1 : 2; }
inline std::string operands(unsigned N) {
  return N == 1 ? " %d, %a;" : N == 2 ? " %d, %a, %b;" : " %d, %a, %b, %c;";
}

/// min/max by the ISA's pseudo-code: one NaN gives the other operand, -0 < +0; .NaN: any NaN
/// gives the canonical NaN; .xorsign.abs: magnitudes compared, the sign is the XOR of the signs.
inline uint64_t minMax(uint64_t A, uint64_t B, const Fmt &F, bool Max, bool Ftz, bool NaN,
                       bool XorAbs) {
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

// FloatFormatFamilies.cpp.
Family halfArith();
Family floatCvt();

} // namespace conformance::float_families
