// Running the generated PTX parser: a module header, or one function body.
#pragma once

#include "ptx2amd/ptx-grammar/Lexer.h"

#include "PtxParser.h"

#include <memory>
#include <optional>

namespace ptx2amd::grammar {

struct SyntaxError {
  SourceLoc Loc;
  std::string Message;
};

/// One parse of a range of PTX: owns the token stream and the parser that own the tree's nodes, so
/// the tree lives exactly as long as this object.
template <typename Context> class Parse {
public:
  Context *Tree = nullptr;          ///< null when Error is set
  std::optional<SyntaxError> Error; ///< the first lexical or syntax error
  bool NeededFullLL = false; ///< SLL prediction failed and the range was parsed again with LL

  Parse(std::shared_ptr<const SourceText> Source, TextRange Range, PtxLexer::Mode M);
  ~Parse();
  Parse(const Parse &) = delete;
  Parse &operator=(const Parse &) = delete;

  std::string_view text(const antlr4::Token *T) const { return tokenText(Source->text(), T); }
  const SourceText &source() const { return *Source; }

private:
  std::shared_ptr<const SourceText> Source;
  ByteCharStream Chars;
  PtxLexer Lexer;
  antlr4::CommonTokenStream Tokens;
  PtxParser Parser;
};

using ModuleParse = Parse<PtxParser::ModuleContext>;
using BodyParse = Parse<PtxParser::FunctionBodyContext>;

/// What a parse-tree node is, found with one virtual call. (ANTLR's typed accessors find children
/// with dynamic_cast, which dominates the cost of walking a tree built from a shared library.)
struct NodeKind {
  bool Terminal;
  size_t Id; ///< token type for a terminal, PtxParser::Rule* index for a rule context
};
NodeKind classify(antlr4::tree::ParseTree *Node);

inline antlr4::Token *symbolOf(antlr4::tree::ParseTree *Terminal) {
  return static_cast<antlr4::tree::TerminalNode *>(Terminal)->getSymbol();
}

/// Parses the module level of \p Source; each function body is one BODY token.
std::unique_ptr<ModuleParse> parseModule(std::shared_ptr<const SourceText> Source);
/// Parses one function body, as given by PtxLexer::bodyRange of its BODY token.
std::unique_ptr<BodyParse> parseBody(std::shared_ptr<const SourceText> Source, TextRange Range);

} // namespace ptx2amd::grammar
