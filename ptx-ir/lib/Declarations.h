// Internal to the IR builder: declarations shared by module and body (variables and their
// qualifiers, parameters, initializers, function directives).
#pragma once

#include "ConstantExpressions.h"
#include "Tables.h"

#include <algorithm>
#include <cstring>

namespace ptx2amd::ir::build {

class DeclBuilder : public ExprBuilder {
public:
  using ExprBuilder::ExprBuilder;

  /// Applies the qualifiers of a declaration to a variable template.
  void qualifiers(Variable &V, Space DeclSpace,
                  const std::vector<PtxParser::DeclQualifierContext *> &Qs,
                  ParserRuleContext *Decl) {
    V.Sp = DeclSpace;
    bool SawType = false;
    for (auto *Q : Qs) {
      if (Q->ALIGN()) {
        uint64_t A = parseUnsigned(Q->INT()->getSymbol());
        if (A == 0 || (A & (A - 1)) || A > (1u << 20))
          throw BuildError{loc(Q), fmt::format("alignment {} is not a power of two", A)};
        (V.IsPtr ? V.PtrAlign : V.Align) = static_cast<uint32_t>(A);
      } else if (auto *Attr = Q->attribute()) {
        attribute(Attr, V.Managed, V.Unified, V.UnifiedId, true);
      } else if (Q->VEC()) {
        V.VecWidth = static_cast<uint8_t>(text(Q->VEC()).back() == '2'   ? 2
                                          : text(Q->VEC()).back() == '4' ? 4
                                                                         : 8);
      } else if (Q->TYPE()) {
        auto T = parseType(text(Q->TYPE()).substr(1));
        if (!T)
          throw BuildError{loc(Q), fmt::format("unknown type '{}'", text(Q->TYPE()))};
        if (SawType)
          throw BuildError{loc(Q), "more than one type in a declaration"};
        SawType = true;
        V.Ty = *T;
      } else if (Q->PTR()) {
        if (DeclSpace != Space::Param)
          throw BuildError{loc(Q), "'.ptr' is only valid on parameters"};
        V.IsPtr = true;
      } else if (Q->SPACE()) {
        Space S = spaceOf(Q->SPACE());
        if (!V.IsPtr)
          throw BuildError{loc(Q), fmt::format("unexpected state space '{}'", text(Q->SPACE()))};
        V.PtrSpace = S;
      }
    }
    if (!SawType)
      throw BuildError{loc(Decl), "declaration without a type"};
  }

  void attribute(PtxParser::AttributeContext *A, bool &Managed, bool &Unified, uint64_t (&Id)[2],
                 bool ManagedAllowed) {
    for (auto *Item : A->attributeItem()) {
      std::string_view N = text(Item->DOTNAME());
      if (N == ".managed" && ManagedAllowed && Item->INT().empty()) {
        Managed = true;
      } else if (N == ".unified") {
        if (Item->INT().size() != 2)
          throw BuildError{loc(Item), "'.unified' takes two identifiers: .unified(uuid1, uuid2)"};
        Unified = true;
        Id[0] = parseUnsigned(Item->INT(0)->getSymbol());
        Id[1] = parseUnsigned(Item->INT(1)->getSymbol());
      } else {
        throw BuildError{loc(Item), fmt::format("unknown attribute '{}'", N)};
      }
    }
  }

  Space spaceOf(tree::TerminalNode *N) {
    std::string_view S = text(N);
    size_t C = S.find("::");
    if (C != std::string_view::npos)
      S = S.substr(0, C);
    if (S == ".reg")
      return Space::Reg;
    if (S == ".param")
      return Space::Param;
    if (S == ".global")
      return Space::Global;
    if (S == ".const")
      return Space::Const;
    if (S == ".shared")
      return Space::Shared;
    if (S == ".local")
      return Space::Local;
    if (S == ".tex")
      return Space::Tex;
    return Space::Sreg;
  }

  static Linkage linkageOf(std::string_view S) {
    if (S == ".visible")
      return Linkage::Visible;
    if (S == ".extern")
      return Linkage::Extern;
    if (S == ".weak")
      return Linkage::Weak;
    return Linkage::Common;
  }

  /// One declarator: name, `<N>` range count (0 if none), dimensions, initializer.
  void declarator(Variable &V, PtxParser::DeclaratorContext *D, uint64_t &RangeCount) {
    tree::TerminalNode *Name = D->IDENT()      ? D->IDENT()
                               : D->REGISTER() ? D->REGISTER()
                                               : D->UNDERSCORE();
    V.Name = std::string(text(Name));
    V.Loc = loc(Name);
    RangeCount = 0;
    if (D->LT()) {
      RangeCount = parseUnsigned(D->INT()->getSymbol());
      if (RangeCount > (1u << 22))
        throw BuildError{loc(D->INT()),
                         fmt::format("register range of {} is too large", RangeCount)};
    }
    V.Dims.clear();
    // No address space of a GPU holds more than 2^48 bytes (AMDGPU's virtual addresses).
    constexpr uint64_t MaxBytes = uint64_t(1) << 48;
    uint64_t Bytes = std::max(1u, typeBits(V.Ty) / 8) * std::max<uint64_t>(1, V.VecWidth);
    for (auto *A : D->arrayDim()) {
      uint64_t N = A->INT() ? parseUnsigned(A->INT()->getSymbol()) : 0;
      if (N && (__builtin_mul_overflow(Bytes, N, &Bytes) || Bytes > MaxBytes))
        throw BuildError{loc(A->INT()),
                         fmt::format("'{}' would take more than 2^48 bytes", V.Name)};
      V.Dims.push_back(N);
    }
    if (D->initializer()) {
      uint64_t Count = 1;
      for (uint64_t N : V.Dims)
        Count = N ? Count * N : Count;
      V.Init = initializer(D->initializer(), V.Ty, Count);
    }
  }

  Initializer initializer(PtxParser::InitializerContext *I, Type Elem, uint64_t MaxElems) {
    Initializer Out;
    if (I->INIT_LIST()) {
      Out.K = Initializer::Data;
      unsigned Bytes = std::max(1u, typeBits(Elem) / 8);
      Out.ElemBytes = Bytes;
      std::string_view S = text(I->INIT_LIST());
      // Flat numeric list: parsed here without tokens (large data arrays are common).
      size_t P = 1;
      Out.Bytes.reserve(std::min<uint64_t>(MaxElems, S.size() / 2) * Bytes);
      while (P < S.size()) {
        while (P < S.size() &&
               (S[P] == ' ' || S[P] == ',' || S[P] == '\n' || S[P] == '\t' || S[P] == '\r'))
          ++P;
        if (P >= S.size() || S[P] == '}')
          break;
        bool Neg = S[P] == '-';
        if (Neg)
          ++P;
        size_t B = P;
        while (P < S.size() && S[P] != ',' && S[P] != '}' && S[P] != ' ' && S[P] != '\n' &&
               S[P] != '\t' && S[P] != '\r')
          ++P;
        uint64_t V = numberBits(S.substr(B, P - B), Elem, I);
        if (Neg)
          V = typeClass(Elem) == 'F' ? V ^ (1ull << (typeBits(Elem) - 1)) : ~V + 1;
        for (unsigned K = 0; K < Bytes; ++K)
          Out.Bytes.push_back(static_cast<uint8_t>(K < 8 ? V >> (8 * K) : 0));
      }
      return Out;
    }
    if (I->LBRACE()) {
      Out.K = Initializer::List;
      for (auto *E : I->initializer())
        Out.Elements.push_back(initializer(E, Elem, MaxElems));
      return Out;
    }
    if (I->EQUALS()) {
      Out.K = Initializer::Named;
      Out.Name = std::string(text(I->IDENT(0)));
      Out.Wrapper = std::string(I->INT() ? text(I->INT()) : text(I->IDENT(1)));
      return Out;
    }
    return exprInitializer(I->expr());
  }

  uint64_t numberBits(std::string_view S, Type Elem, ParserRuleContext *At) {
    if (auto Hex = hexFloatLiteral(S))
      return Hex->first;
    auto Int = integerLiteral(S);
    if (!Int)
      throw BuildError{loc(At), fmt::format("invalid number '{}' in initializer", S)};
    uint64_t V = *Int;
    if (typeClass(Elem) == 'F') {
      // An integer in a float initializer is a value, not bits.
      if (typeBits(Elem) == 32) {
        float F = static_cast<float>(V);
        uint32_t B;
        std::memcpy(&B, &F, 4);
        return B;
      }
      double F = static_cast<double>(V);
      std::memcpy(&V, &F, 8);
    }
    return V;
  }

  /// A parameter list of a function or prototype.
  std::vector<Variable> params(PtxParser::ParamListContext *PL) {
    std::vector<Variable> Out;
    if (!PL)
      return Out;
    for (auto *PD : PL->paramDecl()) {
      Variable V;
      Space S = spaceOf(PD->SPACE());
      if (S != Space::Param && S != Space::Reg)
        throw BuildError{
            loc(PD), fmt::format("parameters must be .param or .reg, not '{}'", text(PD->SPACE()))};
      qualifiers(V, S, PD->declQualifier(), PD);
      uint64_t Range;
      declarator(V, PD->declarator(), Range);
      if (Range || V.Init.K != Initializer::None)
        throw BuildError{loc(PD), "a parameter has no register range or initializer"};
      Out.push_back(std::move(V));
    }
    return Out;
  }

  void functionAttribute(Function &F, PtxParser::FunctionAttributeContext *A) {
    if (A->pragma()) {
      for (auto *S : A->pragma()->STRING())
        F.Pragmas.emplace_back(text(S).substr(1, text(S).size() - 2));
      return;
    }
    std::string_view N = text(A->DOTNAME());
    std::vector<uint32_t> Args;
    for (auto *I : A->INT()) {
      uint64_t V = parseUnsigned(I->getSymbol());
      if (V > UINT32_MAX)
        throw BuildError{loc(I), "directive argument out of range"};
      Args.push_back(static_cast<uint32_t>(V));
    }
    auto Need = [&](size_t Lo, size_t Hi) {
      if (Args.size() < Lo || Args.size() > Hi)
        throw BuildError{loc(A), fmt::format("'{}' takes {} to {} arguments", N, Lo, Hi)};
    };
    if (N == ".maxntid" || N == ".reqntid" || N == ".reqnctapercluster") {
      Need(1, 3);
      auto &Dst = N == ".maxntid" ? F.MaxNTid : N == ".reqntid" ? F.ReqNTid : F.ReqNCtaPerCluster;
      Dst.assign(Args.begin(), Args.end());
    } else if (N == ".minnctapersm") {
      Need(1, 1);
      F.MinNCtaPerSm = Args[0];
    } else if (N == ".maxnctapersm") {
      Need(1, 1);
      F.MaxNCtaPerSm = Args[0];
    } else if (N == ".maxnreg") {
      Need(1, 1);
      F.MaxNReg = Args[0];
    } else if (N == ".maxclusterrank") {
      Need(1, 1);
      F.MaxClusterRank = Args[0];
    } else if (N == ".noreturn") {
      Need(0, 0);
      F.NoReturn = true;
    } else if (N == ".explicitcluster") {
      Need(0, 0);
      F.ExplicitCluster = true;
    } else if (N == ".abi_preserve" || N == ".abi_preserve_control") {
      Need(1, 1);
      (N == ".abi_preserve" ? F.AbiPreserve : F.AbiPreserveControl) = Args[0];
    } else if (N == ".blocksareclusters") {
      Need(0, 0);
      F.BlocksAreClusters = true;
    } else {
      throw BuildError{loc(A), fmt::format("unknown function directive '{}'", N)};
    }
  }
};

} // namespace ptx2amd::ir::build
