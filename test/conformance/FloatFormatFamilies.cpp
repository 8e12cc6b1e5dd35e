// Floating-point families of the narrow formats and of conversions: f16/bf16 and packed pairs
// (9.7.4) and cvt (9.7.9.21), with references computed as FloatFamilies.cpp describes
// (FloatSupport.h).
#include "FloatSupport.h"

#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdlib>

namespace conformance::float_families {

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

} // namespace conformance::float_families
