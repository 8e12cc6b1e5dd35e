#include "Builder.h"

#include "Tables.h"

#include <fmt/format.h>
#include <llvm/ADT/StringRef.h>

#include <cstring>
#include <map>

using namespace antlr4;
using ptx2amd::grammar::PtxParser;
using P = ptx2amd::grammar::PtxParser;

namespace ptx2amd::ir {
namespace {

/// Thrown only inside this file (caught in buildBody/buildModuleHeader): a located problem that
/// fails the current declaration or statement.
struct BuildError {
  SourceLoc Loc;
  std::string Message;
};

/// The value of an integer literal (decimal, 0x.., 0b.., octal with a leading 0, optional U
/// suffix); nullopt when a digit is invalid or the value needs more than 64 bits.
std::optional<uint64_t> integerLiteral(std::string_view S) {
  if (!S.empty() && S.back() == 'U')
    S.remove_suffix(1);
  unsigned Base = 10;
  if (S.size() > 2 && S[0] == '0' && (S[1] | 0x20) == 'x') {
    Base = 16;
    S.remove_prefix(2);
  } else if (S.size() > 2 && S[0] == '0' && (S[1] | 0x20) == 'b') {
    Base = 2;
    S.remove_prefix(2);
  } else if (S.size() > 1 && S[0] == '0') {
    Base = 8;
    S.remove_prefix(1);
  }
  if (S.empty())
    return std::nullopt;
  unsigned __int128 V = 0;
  for (char C : S) {
    unsigned D = C >= '0' && C <= '9'                          ? C - '0'
                 : std::isalpha(static_cast<unsigned char>(C)) ? (C | 0x20) - 'a' + 10
                                                               : 99;
    if (D >= Base)
      return std::nullopt;
    V = V * Base + D;
    if (V > UINT64_MAX)
      return std::nullopt;
  }
  return static_cast<uint64_t>(V);
}

/// The raw bits and width of a `0f` (8 hex digits) or `0d` (16) literal; nullopt otherwise.
std::optional<std::pair<uint64_t, uint8_t>> hexFloatLiteral(std::string_view S) {
  if (S.size() < 3 || S[0] != '0' || ((S[1] | 0x20) != 'f' && (S[1] | 0x20) != 'd'))
    return std::nullopt;
  uint64_t V = 0;
  for (char C : S.substr(2)) {
    if (!std::isxdigit(static_cast<unsigned char>(C)))
      return std::nullopt;
    V = V << 4 | (C <= '9' ? C - '0' : (C | 0x20) - 'a' + 10);
  }
  return std::pair<uint64_t, uint8_t>{V, (S[1] | 0x20) == 'f' ? 32 : 64};
}

class Context {
public:
  Context(std::string_view Whole) : Whole(Whole) {}
  std::string_view text(Token *T) const { return grammar::tokenText(Whole, T); }
  std::string_view text(tree::TerminalNode *N) const { return text(N->getSymbol()); }
  std::string_view text(ParserRuleContext *C) const {
    size_t B = C->getStart()->getStartIndex(), E = C->getStop()->getStopIndex();
    return Whole.substr(B, E + 1 - B);
  }
  static SourceLoc loc(Token *T) { return grammar::tokenLoc(T); }
  static SourceLoc loc(tree::TerminalNode *N) { return loc(N->getSymbol()); }
  static SourceLoc loc(ParserRuleContext *C) { return loc(C->getStart()); }

  uint64_t parseUnsigned(Token *T) const {
    int64_t V = parseInt(T);
    if (V < 0)
      throw BuildError{loc(T), fmt::format("expected a non-negative integer, found '{}'", text(T))};
    return static_cast<uint64_t>(V);
  }

  int64_t parseInt(Token *T) const {
    auto V = integerLiteral(text(T));
    if (!V)
      throw BuildError{
          loc(T), fmt::format("invalid integer '{}' (bad digit, or more than 64 bits)", text(T))};
    return static_cast<int64_t>(*V);
  }

  /// Float literal -> (bits, width). 0f/0d give raw bits; decimal literals are f64 as in PTX.
  std::pair<uint64_t, uint8_t> parseFloat(Token *T) const {
    std::string_view S = text(T);
    if (auto Hex = hexFloatLiteral(S))
      return *Hex; // the lexer has checked the digit count
    double D = std::strtod(std::string(S).c_str(), nullptr);
    uint64_t Bits;
    std::memcpy(&Bits, &D, 8);
    return {Bits, 64};
  }

  std::string_view Whole;
};

// ---------------------------------------------------------------------------------------------
// Declarations shared by module and body: variables, parameters, initializers.

class DeclBuilder : public Context {
public:
  using Context::Context;

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
    for (auto *A : D->arrayDim()) {
      uint64_t N = A->INT() ? parseUnsigned(A->INT()->getSymbol()) : 0;
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

  /// The value of an operand expression: an optional base (register, symbol or float) plus a
  /// constant.
  struct Linear {
    enum BaseKind : uint8_t { NoBase, RegBase, SymBase, FloatBase } B = NoBase;
    Token *Tok = nullptr; ///< the register or symbol
    bool Negated = false; ///< `!%p` or `-%r`
    size_t NegOp = 0;
    bool Indexed = false; ///< `sym[Index]`: Index elements past the symbol
    int64_t Index = 0;
    int64_t C = 0;
    uint64_t FBits = 0;
    uint8_t FWidth = 0;
    bool hasBase() const { return B != NoBase; }
  };

  /// One element of a flat expression: a prefix or binary operator, an atom token (with its
  /// optional `(...)`/`[...]` suffix), or a parenthesised sub-expression.
  struct Item {
    enum Kind : uint8_t { Pre, Atom, Paren, Bin } K;
    size_t Op = 0;
    Token *Tok = nullptr;
    PtxParser::AtomSuffixContext *Suffix = nullptr;
    PtxParser::ExprContext *Inner = nullptr;
  };

  /// Splits children [Begin, End) of an expression-shaped node (expr, or operand's expression
  /// alternative) into items.
  static void itemize(ParserRuleContext *C, size_t Begin, size_t End, std::vector<Item> &Out) {
    Out.clear();
    bool WantOperand = true;
    for (size_t K = Begin; K < End; ++K) {
      grammar::NodeKind N = grammar::classify(C->children[K]);
      if (!N.Terminal) {
        if (N.Id == P::RuleAtomSuffix && !Out.empty())
          Out.back().Suffix = static_cast<PtxParser::AtomSuffixContext *>(C->children[K]);
        continue;
      }
      switch (N.Id) {
      case P::LPAREN:
        Out.push_back({Item::Paren, 0, nullptr, nullptr,
                       static_cast<PtxParser::ExprContext *>(C->children[K + 1])});
        K += 2;
        WantOperand = false;
        break;
      case P::REGISTER:
      case P::FLOAT:
      case P::INT:
      case P::IDENT:
        Out.push_back({Item::Atom, 0, grammar::symbolOf(C->children[K]), nullptr, nullptr});
        WantOperand = false;
        break;
      default:
        Out.push_back({WantOperand ? Item::Pre : Item::Bin, N.Id, nullptr, nullptr, nullptr});
        WantOperand = true;
        break;
      }
    }
  }

  Linear evalRange(ParserRuleContext *C, size_t Begin, size_t End) {
    std::vector<Item> Items;
    itemize(C, Begin, End, Items);
    size_t Pos = 0;
    return climb(Items, Pos, 0, C);
  }
  Linear evalExpr(PtxParser::ExprContext *E) { return evalRange(E, 0, E->children.size()); }

  Initializer exprInitializer(PtxParser::ExprContext *E) {
    // Forms: number, -number, symbol[+/-constant], generic(symbol)[+/-constant], 0xFF00(symbol...)
    Initializer Out;
    std::vector<Item> Items;
    itemize(E, 0, E->children.size(), Items);
    size_t P = 0;
    bool Neg = false;
    while (P < Items.size() && Items[P].K == Item::Pre) {
      if (Items[P].Op == P::MINUS)
        Neg = !Neg;
      else if (Items[P].Op != P::PLUS)
        break;
      ++P;
    }
    if (P < Items.size() && Items[P].K == Item::Atom) {
      const Item &A = Items[P];
      size_t Type = A.Tok->getType();
      bool Single = P + 1 == Items.size();
      if (Type == P::INT && A.Suffix && A.Suffix->LPAREN()) {
        // `0xFF00(sym)`, `0xFF(sym+4)`, `0xFF(generic(sym)+4)`
        if (Neg || !Single || A.Suffix->expr().size() != 1)
          throw BuildError{loc(A.Tok), "unsupported expression around a byte-mask initializer"};
        Out = exprInitializer(A.Suffix->expr(0));
        if (Out.K != Initializer::Symbol)
          throw BuildError{loc(A.Tok), "a byte-mask initializer takes a symbol address"};
        Out.Mask = static_cast<uint64_t>(parseInt(A.Tok)); // all 64 bits
        uint64_t M = Out.Mask;
        unsigned Shift = 0;
        while (M && !(M & 0xFF))
          M >>= 8, Shift += 8;
        if (M != 0xFF || Shift > 56)
          throw BuildError{loc(A.Tok),
                           fmt::format("byte mask 0x{:X} must select one byte", Out.Mask)};
        return Out;
      }
      if (Type == P::FLOAT && Single) {
        Out.K = Initializer::Float;
        auto [Bits, W] = parseFloat(A.Tok);
        Out.Value = static_cast<int64_t>(Neg ? Bits ^ (1ull << (W - 1)) : Bits);
        Out.ElemBytes = W / 8;
        return Out;
      }
      if (Type == P::IDENT && !Neg && P == 0) {
        Out.K = Initializer::Symbol;
        if (A.Suffix) {
          Out.Wrapper = std::string(text(A.Tok));
          if (Out.Wrapper != "generic" || !A.Suffix->LPAREN() || A.Suffix->expr().size() != 1)
            throw BuildError{loc(A.Tok),
                             fmt::format("unknown initializer operator '{}'", text(A.Tok))};
          auto *Inner = A.Suffix->expr(0);
          if (Inner->children.size() != 1 || grammar::classify(Inner->children[0]).Id != P::IDENT)
            throw BuildError{loc(A.Tok), "expected a symbol inside generic()"};
          Out.Name = std::string(text(grammar::symbolOf(Inner->children[0])));
        } else {
          Out.Name = std::string(text(A.Tok));
        }
        if (!Single) {
          // The rest is `+ constant` or `- constant`.
          if (Items[P + 1].K != Item::Bin ||
              (Items[P + 1].Op != P::PLUS && Items[P + 1].Op != P::MINUS))
            throw BuildError{loc(E), "unsupported symbol offset expression"};
          std::vector<Item> Rest(Items.begin() + P + 2, Items.end());
          size_t Pos = 0;
          Linear R = climb(Rest, Pos, 0, E);
          if (R.hasBase() || Pos != Rest.size())
            throw BuildError{loc(E), "a symbol offset must be constant"};
          Out.Value = Items[P + 1].Op == P::PLUS ? R.C : -R.C;
        }
        return Out;
      }
    }
    Out.K = Initializer::Int;
    Out.Value = constantExpr(E);
    return Out;
  }

  int64_t constantExpr(PtxParser::ExprContext *E) {
    Linear L = evalExpr(E);
    if (L.hasBase())
      throw BuildError{loc(E), "expected a constant expression"};
    return L.C;
  }

  static int precedence(size_t Tok) {
    switch (Tok) {
    case P::STAR:
    case P::SLASH:
    case P::PERCENT:
      return 5;
    case P::PLUS:
    case P::MINUS:
      return 4;
    case P::SHL:
    case P::SHR:
      return 3;
    case P::AMP:
      return 2;
    case P::CARET:
      return 1;
    default:
      return 0;
    }
  }

  Linear unary(std::vector<Item> &Items, size_t &Pos, ParserRuleContext *At) {
    if (Pos >= Items.size())
      throw BuildError{loc(At), "incomplete expression"};
    if (Items[Pos].K == Item::Pre) {
      size_t Op = Items[Pos++].Op;
      Linear V = unary(Items, Pos, At);
      if (Op == P::PLUS)
        return V;
      if ((Op == P::BANG || Op == P::MINUS) && V.B == Linear::RegBase && V.C == 0 && !V.Negated) {
        V.Negated = true;
        V.NegOp = Op;
        return V;
      }
      if (Op == P::MINUS && V.B == Linear::FloatBase) {
        V.FBits ^= 1ull << (V.FWidth - 1);
        return V;
      }
      if (V.hasBase())
        throw BuildError{loc(At), fmt::format("operator not supported on '{}'", text(At))};
      if (Op == P::MINUS)
        V.C = static_cast<int64_t>(0 - static_cast<uint64_t>(V.C));
      else if (Op == P::TILDE)
        V.C = ~V.C;
      else
        V.C = !V.C;
      return V;
    }
    Item &I = Items[Pos++];
    if (I.K == Item::Paren)
      return evalExpr(I.Inner);
    if (I.K != Item::Atom)
      throw BuildError{loc(At), fmt::format("malformed expression '{}'", text(At))};
    Linear V;
    switch (I.Tok->getType()) {
    case P::INT:
      if (I.Suffix)
        throw BuildError{loc(I.Tok),
                         "byte-mask address expressions are only valid in initializers"};
      V.C = parseInt(I.Tok);
      break;
    case P::FLOAT: {
      V.B = Linear::FloatBase;
      auto [Bits, W] = parseFloat(I.Tok);
      V.FBits = Bits;
      V.FWidth = W;
      break;
    }
    case P::REGISTER:
      V.B = Linear::RegBase;
      V.Tok = I.Tok;
      break;
    default:
      V.B = Linear::SymBase;
      V.Tok = I.Tok;
      if (I.Suffix && I.Suffix->LBRACK()) {
        // `A[5]`: the address of an array element.
        V.Index = static_cast<int64_t>(parseUnsigned(I.Suffix->INT()->getSymbol()));
        V.Indexed = true;
      } else if (I.Suffix) {
        throw BuildError{loc(I.Tok),
                         fmt::format("'{}(...)' is only valid in initializers", text(I.Tok))};
      }
      break;
    }
    return V;
  }

  Linear climb(std::vector<Item> &Items, size_t &Pos, int MinPrec, ParserRuleContext *At) {
    Linear L = unary(Items, Pos, At);
    while (Pos < Items.size() && Items[Pos].K == Item::Bin && precedence(Items[Pos].Op) > MinPrec) {
      size_t Op = Items[Pos++].Op;
      Linear R = climb(Items, Pos, precedence(Op), At);
      if (L.B == Linear::FloatBase || R.B == Linear::FloatBase || (L.hasBase() && R.hasBase()) ||
          (R.hasBase() && Op != P::PLUS) || (L.hasBase() && Op != P::PLUS && Op != P::MINUS) ||
          L.Negated || R.Negated)
        throw BuildError{loc(At), fmt::format("unsupported expression '{}'", text(At))};
      if (R.hasBase()) {
        R.C += L.C;
        L = R;
        continue;
      }
      uint64_t A = static_cast<uint64_t>(L.C), B = static_cast<uint64_t>(R.C);
      switch (Op) {
      case P::PLUS:
        A += B;
        break;
      case P::MINUS:
        A -= B;
        break;
      case P::STAR:
        A *= B;
        break;
      case P::SLASH:
      case P::PERCENT:
        if (B == 0)
          throw BuildError{loc(At), "division by zero in constant expression"};
        A = Op == P::SLASH
                ? static_cast<uint64_t>(static_cast<int64_t>(A) / static_cast<int64_t>(B))
                : static_cast<uint64_t>(static_cast<int64_t>(A) % static_cast<int64_t>(B));
        break;
      case P::SHL:
        A = B >= 64 ? 0 : A << B;
        break;
      case P::SHR:
        A = B >= 64 ? 0 : A >> B;
        break;
      case P::AMP:
        A &= B;
        break;
      case P::CARET:
        A ^= B;
        break;
      }
      L.C = static_cast<int64_t>(A);
    }
    return L;
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

} // namespace

// ---------------------------------------------------------------------------------------------
// Module header

std::vector<Diagnostic> buildModuleHeader(Module &M, const grammar::ModuleParse &Parse) {
  std::vector<Diagnostic> Diags;
  DeclBuilder B(M.Source->text());
  auto Fail = [&](SourceLoc L, std::string Msg) {
    Diagnostic D;
    D.File = M.Source->name();
    D.Loc = L;
    D.Message = std::move(Msg);
    if (L.line > 1 || L.column > 1)
      D.Text = sourceLine(M.Source->text(), L.line);
    Diags.push_back(std::move(D));
  };
  bool SawVersion = false, SawTarget = false;
  for (auto *Item : Parse.Tree->moduleItem()) {
    try {
      if (Item->VERSION()) {
        std::string_view V = B.text(Item->FLOAT() ? Item->FLOAT() : Item->INT());
        size_t Dot = V.find('.');
        if (Dot == std::string_view::npos || Dot == 0 || Dot + 1 >= V.size())
          throw BuildError{B.loc(Item), fmt::format("malformed .version '{}'", V)};
        unsigned Major = 0, Minor = 0;
        if (llvm::StringRef(V.substr(0, Dot)).getAsInteger(10, Major) ||
            llvm::StringRef(V.substr(Dot + 1)).getAsInteger(10, Minor))
          throw BuildError{B.loc(Item), fmt::format("unsupported PTX ISA version {}", V)};
        M.VersionMajor = Major;
        M.VersionMinor = Minor;
        if (M.VersionMajor < 1 || M.VersionMajor > 9)
          throw BuildError{B.loc(Item), fmt::format("unsupported PTX ISA version {}", V)};
        SawVersion = true;
      } else if (Item->TARGET()) {
        for (auto *T : Item->IDENT())
          M.Target.emplace_back(B.text(T));
        SawTarget = true;
      } else if (Item->ADDRESS_SIZE()) {
        uint64_t S = B.parseUnsigned(Item->INT()->getSymbol());
        if (S != 32 && S != 64)
          throw BuildError{B.loc(Item), ".address_size must be 32 or 64"};
        M.AddressSize = static_cast<uint32_t>(S);
      } else if (auto *VD = Item->variableDecl()) {
        Variable Tmpl;
        for (auto *L : VD->LINKAGE())
          Tmpl.Link = DeclBuilder::linkageOf(B.text(L));
        Space S = B.spaceOf(VD->SPACE());
        if (S == Space::Reg || S == Space::Param || S == Space::Local)
          throw BuildError{B.loc(VD), fmt::format("'{}' variables are not allowed at module scope",
                                                  B.text(VD->SPACE()))};
        B.qualifiers(Tmpl, S, VD->declQualifier(), VD);
        for (auto *D : VD->declarator()) {
          Variable V = Tmpl;
          uint64_t Range;
          B.declarator(V, D, Range);
          if (Range)
            throw BuildError{B.loc(D), "register ranges are only valid in .reg declarations"};
          auto [It, New] = M.Symbols.try_emplace(
              V.Name, SymbolRef{SymbolRef::Global, static_cast<uint32_t>(M.Globals.size())});
          if (!New) {
            // A definition may follow an .extern declaration.
            if (It->second.K != SymbolRef::Global)
              throw BuildError{V.Loc,
                               fmt::format("'{}' is already declared as a function", V.Name)};
            Variable &Old = M.Globals[It->second.Index];
            if (Old.Link != Linkage::Extern && V.Link != Linkage::Extern)
              throw BuildError{V.Loc, fmt::format("redefinition of '{}'", V.Name)};
            if (V.Link != Linkage::Extern)
              Old = std::move(V);
            continue;
          }
          M.Globals.push_back(std::move(V));
        }
      } else if (auto *FD = Item->functionDecl()) {
        auto F = std::make_unique<Function>();
        for (auto *L : FD->LINKAGE())
          F->Link = DeclBuilder::linkageOf(B.text(L));
        F->IsKernel = FD->ENTRY() != nullptr;
        if (auto *Attr = FD->attribute()) {
          bool Managed = false;
          B.attribute(Attr, Managed, F->Unified, F->UnifiedId, false);
        }
        F->Name = std::string(B.text(FD->IDENT()));
        F->Loc = B.loc(FD->IDENT());
        // Parenthesised lists before the name are return parameters; after it, parameters.
        size_t NameIdx = 0;
        for (size_t K = 0; K < FD->children.size(); ++K)
          if (FD->children[K] == FD->IDENT())
            NameIdx = K;
        for (auto *PL : FD->paramList()) {
          size_t K = 0;
          while (FD->children[K] != PL)
            ++K;
          auto Ps = B.params(PL);
          (K < NameIdx ? F->Returns : F->Params) = std::move(Ps);
        }
        if (F->IsKernel && !F->Returns.empty())
          throw BuildError{F->Loc, "a kernel (.entry) cannot return values"};
        for (auto *A : FD->functionAttribute())
          B.functionAttribute(*F, A);
        if (FD->BODY()) {
          F->St = Function::State::Unparsed;
          F->Body = grammar::PtxLexer::bodyRange(*FD->BODY()->getSymbol());
        }
        auto [It, New] = M.Symbols.try_emplace(
            F->Name, SymbolRef{SymbolRef::Function, static_cast<uint32_t>(M.Functions.size())});
        if (!New) {
          if (It->second.K != SymbolRef::Function)
            throw BuildError{F->Loc,
                             fmt::format("'{}' is already declared as a variable", F->Name)};
          Function &Old = *M.Functions[It->second.Index];
          if (Old.isDefinition() && F->isDefinition())
            throw BuildError{F->Loc, fmt::format("redefinition of function '{}'", F->Name)};
          if (F->isDefinition() || Old.Link == Linkage::Extern)
            Old = std::move(*F);
          continue;
        }
        M.Functions.push_back(std::move(F));
      } else if (Item->ALIAS()) {
        M.Aliases.emplace_back(B.text(Item->IDENT(0)), B.text(Item->IDENT(1)));
      } else if (auto *Pr = Item->pragma()) {
        for (auto *S : Pr->STRING())
          M.Pragmas.emplace_back(B.text(S).substr(1, B.text(S).size() - 2));
      }
      // .pragma, .file, .loc and .section at module level carry nothing we use.
    } catch (const BuildError &E) {
      Fail(E.Loc, E.Message);
    }
  }
  if (!SawVersion)
    Fail({1, 1}, "missing .version directive");
  if (!SawTarget)
    Fail({1, 1}, "missing .target directive");
  for (auto &[Alias, Aliasee] : M.Aliases) {
    auto It = M.Symbols.find(Aliasee);
    if (It == M.Symbols.end() || It->second.K != SymbolRef::Function)
      Fail({1, 1}, fmt::format(".alias target '{}' is not a function", Aliasee));
    else
      M.Symbols.try_emplace(Alias, It->second);
  }
  return Diags;
}

// ---------------------------------------------------------------------------------------------
// Function bodies

namespace {

class BodyBuilder : public DeclBuilder {
public:
  BodyBuilder(const Module &M, Function &F, std::string_view Whole)
      : DeclBuilder(Whole), M(M), F(F) {}

  void run(PtxParser::FunctionBodyContext *Body) {
    F.Blocks.emplace_back(); // entry block, never the target of a label
    for (size_t K = 0; K < F.Params.size(); ++K) {
      if (F.Params[K].Sp == Space::Reg) {
        addReg(F.Params[K].Name, F.Params[K], F.Params[K].Loc);
        F.Vars.back().ParamIndex = static_cast<uint32_t>(K);
        continue;
      }
      declare(F.Params[K].Name, {Entry::Param, static_cast<uint32_t>(K)}, F.Params[K].Loc);
    }
    for (size_t K = 0; K < F.Returns.size(); ++K) {
      uint32_t Index = static_cast<uint32_t>(F.Params.size() + K);
      if (F.Returns[K].Sp == Space::Reg) {
        addReg(F.Returns[K].Name, F.Returns[K], F.Returns[K].Loc);
        F.Vars.back().ReturnIndex = static_cast<uint32_t>(K);
        RegReturns.push_back(static_cast<VarId>(F.Vars.size() - 1));
        continue;
      }
      declare(F.Returns[K].Name, {Entry::Param, Index}, F.Returns[K].Loc);
    }
    collectLabels(Body->statement());
    statements(Body->statement());
    if (Failed)
      return;
    // A return or branch at the very end leaves an empty, unreachable block behind.
    if (F.Blocks.size() > 1 && F.Blocks.back().Insts.empty() && F.Blocks.back().Label.empty())
      F.Blocks.pop_back();
    resolveLabelsAndCFG();
  }

  bool Failed = false;
  std::vector<Diagnostic> Diags;

private:
  struct Entry {
    enum Kind : uint8_t { Reg, Local, Param, Label, Table, Proto } K;
    uint32_t Index;
  };

  void declare(std::string_view Name, Entry E, SourceLoc L) {
    auto [It, New] = Names.try_emplace(Name, E);
    if (!New) {
      if (ScopeDepth == ScopeOf(It->second))
        throw BuildError{L, fmt::format("'{}' is already declared in this scope", Name)};
      Undo.push_back({std::string(Name), It->second, true});
      It->second = E;
    } else {
      Undo.push_back({std::string(Name), E, false});
    }
    DeclDepth[{E.K, E.Index}] = ScopeDepth;
  }
  unsigned ScopeOf(Entry E) {
    auto It = DeclDepth.find({E.K, E.Index});
    return It == DeclDepth.end() ? ~0u : It->second;
  }

  void enterScope() {
    ++ScopeDepth;
    ScopeMarks.push_back(Undo.size());
  }
  void exitScope() {
    size_t Mark = ScopeMarks.back();
    ScopeMarks.pop_back();
    while (Undo.size() > Mark) {
      auto &U = Undo.back();
      if (U.HadPrevious)
        Names[U.Name] = U.Previous;
      else
        Names.erase(U.Name);
      Undo.pop_back();
    }
    --ScopeDepth;
  }

  void error(SourceLoc L, std::string Msg, std::string_view Text = {}) {
    Failed = true;
    if (Diags.size() >= 50)
      return;
    Diagnostic D;
    D.File = M.Source->name();
    D.Loc = L;
    D.Function = F.Name;
    D.Message = std::move(Msg);
    D.Text = std::string(Text.substr(0, 200));
    Diags.push_back(std::move(D));
  }

  void collectLabels(const std::vector<PtxParser::StatementContext *> &Stmts) {
    for (auto *S : Stmts) {
      grammar::NodeKind K = grammar::classify(S->children[0]);
      if (!K.Terminal)
        continue;
      if (K.Id == P::LABEL_DEF) {
        auto *L = static_cast<tree::TerminalNode *>(S->children[0]);
        std::string_view Name = text(L);
        if (S->children.size() > 1) {
          if (S->labeledDirective()->CALLPROTOTYPE())
            ProtoByName[Name] = 0; // declared when reached
          continue;
        }
        auto [It, New] = LabelIds.try_emplace(Name, static_cast<uint32_t>(LabelNames.size()));
        if (!New) {
          error(loc(L), fmt::format("label '{}' is defined more than once", Name));
          continue;
        }
        LabelNames.emplace_back(Name);
      } else if (K.Id == P::BLOCK_OPEN) {
        collectLabels(S->statement());
      }
    }
    LabelBlock.assign(LabelNames.size(), None);
  }

  void statements(const std::vector<PtxParser::StatementContext *> &Stmts) {
    for (auto *S : Stmts) {
      try {
        statement(S);
      } catch (const BuildError &E) {
        error(E.Loc, E.Message, text(S));
      }
    }
  }

  Block &current() { return F.Blocks.back(); }

  void startBlock(std::string Label) {
    Block &Cur = current();
    if (F.Blocks.size() > 1 && Cur.Insts.empty() && Cur.Label.empty() && !Label.empty()) {
      Cur.Label = std::move(Label);
      return;
    }
    F.Blocks.emplace_back();
    current().Label = std::move(Label);
  }

  void statement(PtxParser::StatementContext *S) {
    grammar::NodeKind K = grammar::classify(S->children[0]);
    if (!K.Terminal) {
      switch (K.Id) {
      case P::RuleVariableDecl:
        localDecl(static_cast<PtxParser::VariableDeclContext *>(S->children[0]));
        break;
      case P::RulePragma:
        for (auto *Str : static_cast<PtxParser::PragmaContext *>(S->children[0])->STRING())
          current().Pragmas.emplace_back(static_cast<uint32_t>(current().Insts.size()),
                                         std::string(text(Str).substr(1, text(Str).size() - 2)));
        break;
      }
      return;
    }
    if (K.Id == P::OPCODE || K.Id == P::GUARD) {
      instruction(S);
    } else if (K.Id == P::LABEL_DEF) {
      auto *L = static_cast<tree::TerminalNode *>(S->children[0]);
      if (S->children.size() > 1) {
        labeledDirective(text(L),
                         static_cast<PtxParser::LabeledDirectiveContext *>(S->children[1]));
        return;
      }
      auto It = LabelIds.find(text(L));
      if (It == LabelIds.end())
        return; // duplicate, reported
      startBlock(std::string(text(L)));
      LabelBlock[It->second] = static_cast<uint32_t>(F.Blocks.size() - 1);
    } else if (K.Id == P::BLOCK_OPEN) {
      enterScope();
      statements(S->statement());
      exitScope();
    }
    // .loc/.file/.section: debug information, skipped.
  }

  void labeledDirective(std::string_view Name, PtxParser::LabeledDirectiveContext *LD) {
    if (LD->CALLPROTOTYPE()) {
      CallPrototype P;
      P.Name = std::string(Name);
      size_t Under = 0;
      for (size_t K = 0; K < LD->children.size(); ++K)
        if (LD->children[K] == LD->UNDERSCORE())
          Under = K;
      for (auto *PL : LD->paramList()) {
        size_t K = 0;
        while (LD->children[K] != PL)
          ++K;
        (K < Under ? P.Returns : P.Params) = params(PL);
      }
      Function Tmp;
      for (auto *A : LD->functionAttribute())
        functionAttribute(Tmp, A);
      P.NoReturn = Tmp.NoReturn;
      declare(Name, {Entry::Proto, static_cast<uint32_t>(F.Prototypes.size())}, loc(LD));
      F.Prototypes.push_back(std::move(P));
      return;
    }
    BranchTable T;
    T.Name = std::string(Name);
    T.IsCallTargets = LD->CALLTARGETS() != nullptr;
    for (auto *I : LD->IDENT())
      T.Targets.emplace_back(text(I));
    declare(Name, {Entry::Table, static_cast<uint32_t>(F.Tables.size())}, loc(LD));
    F.Tables.push_back(std::move(T));
  }

  void localDecl(PtxParser::VariableDeclContext *VD) {
    Space S = spaceOf(VD->SPACE());
    if (!VD->LINKAGE().empty() && S != Space::Shared && S != Space::Global && S != Space::Const)
      throw BuildError{loc(VD), "linkage is not allowed here"};
    Variable Tmpl;
    for (auto *L : VD->LINKAGE())
      Tmpl.Link = linkageOf(text(L));
    qualifiers(Tmpl, S, VD->declQualifier(), VD);
    for (auto *D : VD->declarator()) {
      Variable V = Tmpl;
      uint64_t Range;
      declarator(V, D, Range);
      if (S == Space::Reg) {
        if (!V.Dims.empty() || V.Init.K != Initializer::None)
          throw BuildError{loc(D), "registers have no array dimensions or initializers"};
        if (V.Name.empty() || V.Name[0] != '%') {
          // Registers without '%' are legal PTX too.
        }
        if (D->LT()) {
          for (uint64_t K = 0; K < Range; ++K)
            addReg(V.Name + std::to_string(K), V, loc(D));
        } else {
          addReg(V.Name, V, loc(D));
        }
        continue;
      }
      if (Range)
        throw BuildError{loc(D), "register ranges are only valid in .reg declarations"};
      declare(V.Name, {Entry::Local, static_cast<uint32_t>(F.Locals.size())}, V.Loc);
      F.Locals.push_back(std::move(V));
    }
  }

  void addReg(std::string Name, const Variable &V, SourceLoc L) {
    VarId Id = static_cast<VarId>(F.Vars.size());
    F.Vars.push_back({Name, V.Ty, V.VecWidth});
    declare(F.Vars.back().Name, {Entry::Reg, Id}, L);
  }

  // -- instructions --

  Operand registerOperand(Token *N) {
    std::string_view Name = text(N);
    Operand O;
    auto It = Names.find(Name);
    if (It != Names.end() && It->second.K == Entry::Reg) {
      O.K = Operand::Value;
      O.V = It->second.Index;
      return O;
    }
    if (auto S = parseSpecialRegister(Name.substr(1))) {
      if (!S->Complete)
        throw BuildError{
            loc(N), fmt::format("special register '{}' needs a component (.x, .y or .z)", Name)};
      O.K = Operand::Special;
      O.SReg = S->Reg;
      O.Component = S->Component;
      return O;
    }
    if (size_t Dot = Name.find('.'); Dot != std::string_view::npos) {
      std::string_view Sel = Name.substr(Dot + 1);
      auto V = Names.find(Name.substr(0, Dot));
      // Components of vector registers: %v.x .. %v.w (or .r .g .b .a)
      if (V != Names.end() && V->second.K == Entry::Reg && F.Vars[V->second.Index].VecWidth &&
          Sel.size() == 1) {
        size_t C = std::string_view("xyzw").find(Sel[0]);
        if (C == std::string_view::npos)
          C = std::string_view("rgba").find(Sel[0]);
        if (C != std::string_view::npos && C < F.Vars[V->second.Index].VecWidth) {
          O.K = Operand::Value;
          O.V = V->second.Index;
          O.Component = static_cast<uint8_t>(1 + C);
          return O;
        }
      }
      // Video instruction selectors: .b0-.b3 (.b0000-.b7777 for SIMD), .h0/.h1 (.h00-.h11)
      if (V != Names.end() && V->second.K == Entry::Reg && Sel.size() >= 2 && Sel.size() <= 5 &&
          (Sel[0] == 'b' || Sel[0] == 'h')) {
        char Max = Sel[0] == 'b' ? '7' : '3';
        uint16_t Digits = 0;
        bool Ok = Sel.size() <= (Sel[0] == 'b' ? 5u : 3u);
        for (char C : Sel.substr(1)) {
          Ok &= C >= '0' && C <= Max;
          Digits = static_cast<uint16_t>(Digits << 3 | ((C - '0') & 7));
        }
        if (Ok) {
          O.K = Operand::Value;
          O.V = V->second.Index;
          O.Select =
              static_cast<uint16_t>((Sel[0] == 'h' ? 0x8000 : 0) | (Sel.size() - 1) << 12 | Digits);
          return O;
        }
      }
    }
    throw BuildError{loc(N), fmt::format("undeclared register '{}'", Name)};
  }

  SymbolRef symbol(Token *N) {
    std::string_view Name = text(N);
    if (auto It = Names.find(Name); It != Names.end()) {
      switch (It->second.K) {
      case Entry::Local:
        return {SymbolRef::Local, It->second.Index};
      case Entry::Param:
        return {SymbolRef::Param, It->second.Index};
      case Entry::Table:
        return {SymbolRef::BranchTable, It->second.Index};
      case Entry::Proto:
        return {SymbolRef::Prototype, It->second.Index};
      case Entry::Reg:
      case Entry::Label:
        break;
      }
    }
    if (auto It = LabelIds.find(Name); It != LabelIds.end())
      return {SymbolRef::Label, It->second}; // label id; a block index after resolveLabelsAndCFG
    if (auto It = M.Symbols.find(Name); It != M.Symbols.end())
      return It->second;
    if (ProtoByName.count(Name))
      throw BuildError{loc(N),
                       fmt::format("call prototype '{}' is used before its declaration", Name)};
    throw BuildError{loc(N), fmt::format("undefined symbol '{}'", Name)};
  }

  uint64_t elementBytes(const SymbolRef &S, ParserRuleContext *At) {
    const Variable *V = S.K == SymbolRef::Global  ? &M.Globals[S.Index]
                        : S.K == SymbolRef::Local ? &F.Locals[S.Index]
                                                  : nullptr;
    if (!V || V->Dims.empty())
      throw BuildError{loc(At), "only arrays can be indexed"};
    uint64_t N = std::max(1u, typeBits(V->Ty) / 8) * std::max<uint64_t>(1, V->VecWidth);
    for (size_t K = 1; K < V->Dims.size(); ++K)
      N *= V->Dims[K];
    return N;
  }

  Operand fromLinear(const Linear &L, ParserRuleContext *At) {
    Operand O;
    switch (L.B) {
    case Linear::NoBase:
      O.K = Operand::Imm;
      O.Offset = L.C;
      return O;
    case Linear::FloatBase:
      O.K = Operand::FImm;
      O.Offset = static_cast<int64_t>(L.FBits);
      O.FBits = L.FWidth;
      return O;
    case Linear::RegBase:
      O = registerOperand(L.Tok);
      if (L.C != 0)
        throw BuildError{
            loc(At), fmt::format("register offsets are only valid in addresses: '{}'", text(At))};
      if (L.Negated) {
        bool Pred = O.K == Operand::Value && F.Vars[O.V].Ty == Type::Pred;
        if (L.NegOp == P::BANG && !Pred)
          throw BuildError{loc(At), "'!' applies to predicates only"};
        if (L.NegOp == P::MINUS && (O.K != Operand::Value || Pred))
          throw BuildError{loc(At), "'-' applies to integer registers only"};
        O.Negated = true;
      }
      return O;
    case Linear::SymBase:
      if (text(L.Tok) == "WARP_SZ" && !Names.count("WARP_SZ")) {
        if (L.C != 0)
          throw BuildError{loc(At), "WARP_SZ takes no offset"};
        O.K = Operand::Special;
        O.SReg = SpecialReg::WarpSz;
        return O;
      }
      if (auto It = Names.find(text(L.Tok)); It != Names.end() && It->second.K == Entry::Reg) {
        // Registers may be named without '%' (common in inline PTX).
        if (L.C != 0)
          throw BuildError{
              loc(At), fmt::format("register offsets are only valid in addresses: '{}'", text(At))};
        O.K = Operand::Value;
        O.V = It->second.Index;
        return O;
      }
      O.K = Operand::Symbol;
      O.Sym = symbol(L.Tok);
      O.Offset = L.C + (L.Indexed ? L.Index * static_cast<int64_t>(elementBytes(O.Sym, At)) : 0);
      return O;
    }
    return O;
  }

  Operand operand(PtxParser::OperandContext *C) {
    grammar::NodeKind First = grammar::classify(C->children[0]);
    // The most common operands, a register or an integer, skip the expression evaluator.
    if (C->children.size() == 1 && First.Id == P::REGISTER)
      return registerOperand(grammar::symbolOf(C->children[0]));
    if (C->children.size() == 1 && First.Id == P::INT) {
      Operand O;
      O.K = Operand::Imm;
      O.Offset = parseInt(grammar::symbolOf(C->children[0]));
      return O;
    }
    bool ParenList =
        First.Id == P::LPAREN &&
        (C->children.size() == 2 || grammar::classify(C->children[1]).Id == P::RuleOperand);
    Operand O;
    switch (First.Id) {
    case P::UNDERSCORE:
      O.K = Operand::Sink;
      return O;
    case P::LBRACE:
    case P::LPAREN:
      if (First.Id == P::LPAREN && !ParenList)
        break;
      O.K = First.Id == P::LBRACE ? Operand::Vector : Operand::List;
      for (size_t K = 1; K + 1 < C->children.size(); K += 2)
        O.Elements.push_back(operand(static_cast<PtxParser::OperandContext *>(C->children[K])));
      if (O.K == Operand::Vector && O.Elements.empty())
        throw BuildError{loc(C), "empty vector operand"};
      return O;
    case P::LBRACK:
      break;
    default:
      break;
    }
    if (First.Id != P::LBRACK)
      return fromLinear(evalRange(C, 0, C->children.size()), C);
    // Address: '[' expr (',' operand)* ']'
    O.K = Operand::Address;
    Linear L = evalExpr(static_cast<PtxParser::ExprContext *>(C->children[1]));
    if (L.B == Linear::RegBase) {
      Operand R = registerOperand(L.Tok);
      if (R.K != Operand::Value)
        throw BuildError{loc(C), "an address base must be a register or a symbol"};
      O.V = R.V;
    } else if (L.B == Linear::SymBase) {
      if (auto It = Names.find(text(L.Tok)); It != Names.end() && It->second.K == Entry::Reg)
        O.V = It->second.Index;
      else
        O.Sym = symbol(L.Tok);
    } else if (L.B == Linear::FloatBase || L.Negated) {
      throw BuildError{loc(C), "invalid address"};
    }
    O.Offset = L.C;
    size_t End = C->children.size();
    if (grammar::classify(C->children.back()).Id == P::DOTNAME) {
      auto *Suffix = static_cast<tree::TerminalNode *>(C->children.back());
      if (text(Suffix) != ".unified")
        throw BuildError{loc(Suffix), fmt::format("unknown address qualifier '{}'", text(Suffix))};
      O.Unified = true;
      --End;
    }
    for (size_t K = 3; K + 1 < End; K += 2)
      O.Elements.push_back(operand(static_cast<PtxParser::OperandContext *>(C->children[K])));
    return O;
  }

  /// An instruction statement: GUARD? OPCODE (operand ((',' | '|') operand)*)? ';'
  void instruction(PtxParser::StatementContext *IC) {
    Instruction I;
    Token *GuardTok = nullptr, *OpTok = nullptr;
    bool AfterPipe = false;
    for (auto *Child : IC->children) {
      grammar::NodeKind K = grammar::classify(Child);
      if (!K.Terminal) {
        if (!OpTok)
          break;
        I.Operands.push_back(operand(static_cast<PtxParser::OperandContext *>(Child)));
        I.Operands.back().AfterPipe = AfterPipe;
        continue;
      }
      if (K.Id == P::GUARD)
        GuardTok = grammar::symbolOf(Child);
      else if (K.Id == P::OPCODE) {
        OpTok = grammar::symbolOf(Child);
        DecodedOpcode D;
        if (auto Problem = decodeOpcode(text(OpTok), D))
          throw BuildError{loc(OpTok), *Problem};
        I.Op = D.Op;
        I.Mods = std::move(D.Mods);
        I.Types = std::move(D.Types);
        I.TypeSlots = D.TypeSlots;
      }
      AfterPipe = K.Id == P::PIPE;
    }
    I.Loc = loc(GuardTok ? GuardTok : OpTok);
    size_t B = IC->getStart()->getStartIndex(), E = IC->getStop()->getStopIndex();
    I.TextOffset = static_cast<uint32_t>(std::min<size_t>(B, UINT32_MAX));
    I.TextSize = static_cast<uint32_t>(std::min<size_t>(E + 1 - B, UINT32_MAX));
    if (GuardTok) {
      std::string_view GT = text(GuardTok).substr(1);
      if (!GT.empty() && GT[0] == '!') {
        I.GuardNegated = true;
        GT.remove_prefix(1);
      }
      auto It = Names.find(GT);
      if (It == Names.end() || It->second.K != Entry::Reg)
        throw BuildError{loc(GuardTok), fmt::format("undeclared predicate '{}'", GT)};
      I.Guard = It->second.Index;
      if (F.Vars[I.Guard].Ty != Type::Pred)
        throw BuildError{loc(GuardTok), fmt::format("guard '{}' is not a predicate", GT)};
    }
    mergeOrExpressions(I);
    countDefs(I);
    if (auto Problem = validateInstruction(I, F))
      throw BuildError{I.Loc, *Problem};
    if (I.Op == Opcode::Ret && !RegReturns.empty()) {
      // A `ret` returns the current values of `.reg` return parameters: make that use explicit.
      Operand L;
      L.K = Operand::List;
      for (VarId V : RegReturns) {
        Operand R;
        R.K = Operand::Value;
        R.V = V;
        L.Elements.push_back(R);
      }
      I.Operands.push_back(std::move(L));
    }
    bool Terminates = false;
    if (I.Op == Opcode::Bra || I.Op == Opcode::Brx || I.Op == Opcode::Ret || I.Op == Opcode::Exit) {
      Terminates = true;
      if (I.Op == Opcode::Bra && (I.Operands.size() != 1 || I.Operands[0].K != Operand::Symbol ||
                                  I.Operands[0].Sym.K != SymbolRef::Label))
        throw BuildError{I.Loc, "'bra' needs one label operand"};
    }
    current().Insts.push_back(std::move(I));
    if (Terminates)
      startBlock({});
  }

  /// Right after the first operand '|' separates a second destination (`setp.lt.s32 %p|%q`,
  /// `shfl.sync ... %r|%p`); anywhere later it is the bitwise or of a constant expression.
  void mergeOrExpressions(Instruction &I) {
    for (size_t K = 1; K < I.Operands.size(); ++K) {
      if (!I.Operands[K].AfterPipe || K == 1)
        continue;
      Operand &A = I.Operands[K - 1], &B = I.Operands[K];
      if (A.K != Operand::Imm || B.K != Operand::Imm)
        throw BuildError{I.Loc, "'|' after the second operand may only join constants"};
      A.Offset |= B.Offset;
      I.Operands.erase(I.Operands.begin() + K);
      --K;
    }
  }

  void countDefs(Instruction &I) {
    const OpcodeInfo &Info = opcodeInfo(I.Op);
    auto IsReg = [](const Operand &O) {
      if (O.K == Operand::Value || O.K == Operand::Sink)
        return true;
      if (O.K != Operand::Vector)
        return false;
      for (const Operand &E : O.Elements)
        if (E.K != Operand::Value && E.K != Operand::Sink)
          return false;
      return true;
    };
    if (I.Op == Opcode::Call) {
      // `call (ret...), f, (args...)`: registers in the return list are written.
      if (!I.Operands.empty() && I.Operands[0].K == Operand::List)
        I.NumDefs = 1;
      return;
    }
    bool Writes = false;
    switch (Info.Dests) {
    case DestKind::D0:
      break;
    case DestKind::D1:
      Writes = true;
      break;
    case DestKind::DA:
      Writes = !I.Operands.empty() && IsReg(I.Operands[0]);
      if (I.Op == Opcode::Bar || I.Op == Opcode::Barrier)
        Writes = I.has(Mod::Red);
      break;
    }
    if (!Writes)
      return;
    if (I.Operands.empty())
      throw BuildError{I.Loc, fmt::format("'{}' needs a destination operand", Info.Name)};
    if (!IsReg(I.Operands[0]) || I.Operands[0].Negated)
      throw BuildError{I.Loc, fmt::format("the destination of '{}' must be a register", Info.Name)};
    I.NumDefs = 1;
    if (I.Operands.size() > 1 && I.Operands[1].AfterPipe) {
      if (!IsReg(I.Operands[1]))
        throw BuildError{I.Loc, "the second destination after '|' must be a register"};
      I.NumDefs = 2;
    }
  }

  void resolveLabelsAndCFG() {
    // Label ids -> block indices in operands and branch tables.
    auto Fix = [&](Operand &O, auto &Self) -> void {
      if (O.Sym.K == SymbolRef::Label)
        O.Sym.Index = LabelBlock[O.Sym.Index];
      for (Operand &E : O.Elements)
        Self(E, Self);
    };
    for (Block &Bk : F.Blocks)
      for (Instruction &I : Bk.Insts)
        for (Operand &O : I.Operands)
          Fix(O, Fix);
    for (BranchTable &T : F.Tables) {
      for (const std::string &Name : T.Targets) {
        if (T.IsCallTargets) {
          auto It = M.Symbols.find(Name);
          if (It == M.Symbols.end() || It->second.K != SymbolRef::Function) {
            error(F.Loc, fmt::format(".calltargets entry '{}' is not a function", Name));
            continue;
          }
          T.Resolved.push_back(It->second.Index);
        } else {
          auto It = LabelIds.find(Name);
          if (It == LabelIds.end()) {
            error(F.Loc, fmt::format(".branchtargets entry '{}' is not a label", Name));
            continue;
          }
          T.Resolved.push_back(LabelBlock[It->second]);
        }
      }
    }
    // Successors and predecessors.
    uint32_t N = static_cast<uint32_t>(F.Blocks.size());
    for (uint32_t K = 0; K < N; ++K) {
      Block &Bk = F.Blocks[K];
      auto AddSucc = [&](uint32_t S) {
        if (std::find(Bk.Succs.begin(), Bk.Succs.end(), S) == Bk.Succs.end())
          Bk.Succs.push_back(S);
      };
      bool FallsThrough = true;
      if (!Bk.Insts.empty()) {
        const Instruction &Last = Bk.Insts.back();
        bool Guarded = Last.Guard != None;
        if (Last.Op == Opcode::Bra) {
          AddSucc(Last.Operands[0].Sym.Index);
          FallsThrough = Guarded;
        } else if (Last.Op == Opcode::Brx) {
          if (Last.Operands.size() != 2 || Last.Operands[1].K != Operand::Symbol ||
              Last.Operands[1].Sym.K != SymbolRef::BranchTable ||
              F.Tables[Last.Operands[1].Sym.Index].IsCallTargets) {
            error(Last.Loc, "'brx.idx' needs an index and a .branchtargets label");
            return;
          }
          for (uint32_t T : F.Tables[Last.Operands[1].Sym.Index].Resolved)
            AddSucc(T);
          FallsThrough = Guarded;
        } else if (Last.Op == Opcode::Ret || Last.Op == Opcode::Exit) {
          Bk.ReturnsOrExits = true;
          FallsThrough = Guarded;
        }
      }
      if (FallsThrough) {
        if (K + 1 < N)
          AddSucc(K + 1);
        else
          Bk.ReturnsOrExits = true; // falling off the end returns
      }
    }
    for (uint32_t K = 0; K < N; ++K)
      for (uint32_t S : F.Blocks[K].Succs)
        F.Blocks[S].Preds.push_back(K);
  }

  const Module &M;
  Function &F;
  llvm::StringMap<Entry> Names;
  struct UndoRec {
    std::string Name;
    Entry Previous;
    bool HadPrevious;
  };
  std::vector<UndoRec> Undo;
  std::vector<size_t> ScopeMarks;
  unsigned ScopeDepth = 0;
  std::map<std::pair<uint8_t, uint32_t>, unsigned> DeclDepth;
  std::vector<VarId> RegReturns; ///< `.reg` return parameters: read by every `ret`
  llvm::StringMap<uint32_t> LabelIds;
  llvm::StringMap<uint32_t> ProtoByName;
  std::vector<std::string> LabelNames;
  std::vector<uint32_t> LabelBlock;
};

} // namespace

std::string sourceLine(std::string_view Text, uint32_t Line) {
  size_t Pos = 0;
  for (uint32_t L = 1; L < Line && Pos != std::string_view::npos; ++L) {
    Pos = Text.find('\n', Pos);
    if (Pos != std::string_view::npos)
      ++Pos;
  }
  if (Pos == std::string_view::npos || Pos >= Text.size())
    return {};
  size_t End = Text.find('\n', Pos);
  std::string_view L = Text.substr(Pos, End == std::string_view::npos ? End : End - Pos);
  while (!L.empty() && (L.front() == ' ' || L.front() == '\t'))
    L.remove_prefix(1);
  return std::string(L.substr(0, 200));
}

void buildBody(const Module &M, Function &F, const grammar::BodyParse &P) {
  F.Diags.clear();
  if (P.Error) {
    Diagnostic D;
    D.File = M.Source->name();
    D.Loc = P.Error->Loc;
    D.Function = F.Name;
    D.Message = P.Error->Message;
    D.Text = sourceLine(M.Source->text(), D.Loc.line);
    F.Diags.push_back(std::move(D));
    F.St = Function::State::Failed;
    return;
  }
  BodyBuilder B(M, F, M.Source->text());
  try {
    B.run(P.Tree);
  } catch (const BuildError &E) {
    B.Failed = true;
    Diagnostic D;
    D.File = M.Source->name();
    D.Loc = E.Loc;
    D.Function = F.Name;
    D.Message = E.Message;
    B.Diags.push_back(std::move(D));
  }
  if (B.Failed) {
    F.Diags = std::move(B.Diags);
    F.St = Function::State::Failed;
    F.Vars.clear();
    F.Locals.clear();
    F.Blocks.clear();
    return;
  }
  constructSSA(F);
  F.St = Function::State::Built;
}

} // namespace ptx2amd::ir
