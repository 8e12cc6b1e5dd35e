// Internal to the IR builder: the located error a declaration or statement fails with, literal
// parsing, and the token helpers every builder step shares.
#pragma once

#include "ptx2amd/ptx-grammar/Parse.h"
#include "ptx2amd/ptx-ir/IR.h"

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ptx2amd::ir::build {

using antlr4::ParserRuleContext;
using antlr4::Token;
namespace tree = antlr4::tree;
using ptx2amd::grammar::PtxParser;
using P = ptx2amd::grammar::PtxParser;

/// Thrown only inside the builder (caught in buildBody/buildModuleHeader): a located problem that
/// fails the current declaration or statement.
struct BuildError {
  SourceLoc Loc;
  std::string Message;
};

/// The value of an integer literal (decimal, 0x.., 0b.., octal with a leading 0, optional U
/// suffix); nullopt when a digit is invalid or the value needs more than 64 bits.
std::optional<uint64_t> integerLiteral(std::string_view S);

/// The raw bits and width of a `0f` (8 hex digits) or `0d` (16) literal; nullopt otherwise.
std::optional<std::pair<uint64_t, uint8_t>> hexFloatLiteral(std::string_view S);

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

} // namespace ptx2amd::ir::build
