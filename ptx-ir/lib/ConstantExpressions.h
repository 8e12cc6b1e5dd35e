// Internal to the IR builder: operand and initializer expressions (an optional register, symbol
// or float base plus a constant), evaluated by precedence climbing over PTX's C-like operators.
#pragma once

#include "BuildContext.h"

#include <vector>

namespace ptx2amd::ir::build {

class ExprBuilder : public Context {
public:
  using Context::Context;

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
};

} // namespace ptx2amd::ir::build
