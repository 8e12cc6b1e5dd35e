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
//
// The formats and rounding that every family uses are in FloatSupport.h; the f16/bf16 families
// and cvt are in FloatFormatFamilies.cpp.
#include "FloatSupport.h"

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdlib>

namespace conformance {
namespace float_families {

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

} // namespace float_families

using namespace float_families;

std::vector<Family> floatFamilies() {
  return {floatArith(), floatMisc(), halfArith(), floatCvt(), floatCompare(), floatApprox()};
}

} // namespace conformance
