// Hand-written PTX lexer feeding the ANTLR parser generated from PtxParser.g4.
#pragma once

#include "ptx2amd/ptx-grammar/Source.h"

#include <antlr4-runtime.h>

#include <optional>

namespace ptx2amd::grammar {

/// A CharStream over raw bytes (ANTLR's own streams convert the whole input to UTF-32 first). Token
/// start/stop indices are byte offsets into the whole source text.
class ByteCharStream : public antlr4::CharStream {
public:
  ByteCharStream(std::string_view text, std::string name) : Text(text), Name(std::move(name)) {}
  std::string getText(const antlr4::misc::Interval &I) override;
  std::string toString() const override { return std::string(Text); }
  void consume() override { ++Pos; }
  size_t LA(ssize_t i) override;
  ssize_t mark() override { return -1; }
  void release(ssize_t) override {}
  size_t index() override { return Pos; }
  void seek(size_t index) override { Pos = index; }
  size_t size() override { return Text.size(); }
  std::string getSourceName() const override { return Name; }

private:
  std::string_view Text;
  std::string Name;
  size_t Pos = 0;
};

struct LexError {
  SourceLoc Loc;
  std::string Message;
};

/// Turns a range of PTX text into tokens of PtxParser's vocabulary.
///
/// In Module mode every function body `{...}` at the top level becomes one BODY token, so the
/// module header parses without touching instructions; Body mode lexes one such range for
/// `functionBody`. An OPCODE token is the whole dotted instruction name (`ld.global.nc.v4.f32`), a
/// GUARD token is
/// `@%p` / `@!%p`, and a flat list of numbers after `=` is one INIT_LIST token.
class PtxLexer : public antlr4::TokenSource {
public:
  enum class Mode { Module, Body };
  /// Deeper nesting of braces, brackets or parentheses is an error (it would recurse in the
  /// parser).
  static constexpr unsigned MaxNesting = 256;

  PtxLexer(ByteCharStream &Stream, std::string_view Whole, TextRange Range, Mode M);

  std::unique_ptr<antlr4::Token> nextToken() override;
  size_t getLine() const override { return Line; }
  size_t getCharPositionInLine() override { return Pos - LineStart; }
  antlr4::CharStream *getInputStream() override { return &Stream; }
  std::string getSourceName() override { return Stream.getSourceName(); }
  antlr4::TokenFactory<antlr4::CommonToken> *getTokenFactory() override;

  /// The first lexical error, if any (the lexer then returns ERROR_CHAR and EOF).
  const std::optional<LexError> &error() const { return Error; }

  /// Returns the range of a BODY token (the braces included) for parsing it with Mode::Body.
  static TextRange bodyRange(const antlr4::Token &BodyToken);

private:
  std::unique_ptr<antlr4::Token> make(size_t Type, size_t Start, SourceLoc Loc);
  std::unique_ptr<antlr4::Token> fail(size_t Start, SourceLoc Loc, std::string Message);
  void skipTrivia();
  bool skipToEndOfBlock(SourceLoc OpenLoc);
  bool tryInitList();
  size_t lexDotWord(size_t Start);
  void advanceTo(size_t NewPos);

  ByteCharStream &Stream;
  std::string_view Text;
  size_t Pos, End;
  size_t Line, LineStart; // LineStart: offset of the current line's column 1
  Mode M;
  bool StmtStart = true;
  bool InInitializer = false;
  size_t PrevType = 0;
  std::vector<bool> BraceIsBlock; // open braces; true for a scope, false for a vector/initializer
  unsigned Nesting = 0;
  std::optional<LexError> Error;
  bool Done = false;
};

/// The text of a token, straight from the source bytes.
inline std::string_view tokenText(std::string_view Whole, const antlr4::Token *T) {
  return Whole.substr(T->getStartIndex(), T->getStopIndex() + 1 - T->getStartIndex());
}
inline SourceLoc tokenLoc(const antlr4::Token *T) {
  return {static_cast<uint32_t>(T->getLine()),
          static_cast<uint32_t>(T->getCharPositionInLine() + 1)};
}

} // namespace ptx2amd::grammar
