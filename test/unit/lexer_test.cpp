#include "ptx2amd/ptx-grammar/Parse.h"

#include <catch2/catch.hpp>

using namespace ptx2amd;
using namespace ptx2amd::grammar;
using P = PtxParser;

namespace {

struct Lexed {
  std::vector<size_t> Types;
  std::vector<std::string> Texts;
  std::optional<LexError> Error;
};

Lexed lex(const std::string &Text, PtxLexer::Mode M = PtxLexer::Mode::Body) {
  ByteCharStream Chars(Text, "t.ptx");
  PtxLexer L(Chars, Text, {0, Text.size(), {1, 1}}, M);
  Lexed Out;
  for (int K = 0; K < 10000; ++K) {
    auto T = L.nextToken();
    if (T->getType() == antlr4::Token::EOF)
      break;
    Out.Types.push_back(T->getType());
    Out.Texts.emplace_back(tokenText(Text, T.get()));
  }
  Out.Error = L.error();
  return Out;
}

} // namespace

TEST_CASE("an instruction is one opcode token and few operand tokens", "[lexer]") {
  auto L = lex("{ @!%p1 ld.global.nc.L1::evict_last.v4.f32 {%f1, _, %f3, %f4}, [%rd2+-16]; }");
  REQUIRE_FALSE(L.Error);
  std::vector<size_t> Want = {
      P::BLOCK_OPEN, P::GUARD,    P::OPCODE, P::LBRACE,   P::REGISTER, P::COMMA, P::UNDERSCORE,
      P::COMMA,      P::REGISTER, P::COMMA,  P::REGISTER, P::RBRACE,   P::COMMA, P::LBRACK,
      P::REGISTER,   P::PLUS,     P::MINUS,  P::INT,      P::RBRACK,   P::SEMI,  P::BLOCK_CLOSE};
  CHECK(L.Types == Want);
  CHECK(L.Texts[1] == "@!%p1");
  CHECK(L.Texts[2] == "ld.global.nc.L1::evict_last.v4.f32");
}

TEST_CASE("labels, call prototypes and special registers", "[lexer]") {
  auto L =
      lex("{ $L__BB0_1: prototype_0 : .callprototype (.param .b32 _) _ (); mov.u32 %r1, %tid.x; }");
  REQUIRE_FALSE(L.Error);
  CHECK(L.Types[1] == P::LABEL_DEF);
  CHECK(L.Texts[1] == "$L__BB0_1");
  CHECK(L.Types[2] == P::LABEL_DEF);
  CHECK(L.Texts[2] == "prototype_0");
  CHECK(L.Types[3] == P::CALLPROTOTYPE);
  auto It = std::find(L.Texts.begin(), L.Texts.end(), "%tid.x");
  CHECK(It != L.Texts.end());
}

TEST_CASE("a flat numeric initializer is one token", "[lexer]") {
  auto L = lex(".global .b8 d[4] = {1, 0x2, -3, 0f3F800000};", PtxLexer::Mode::Module);
  REQUIRE_FALSE(L.Error);
  CHECK(L.Types.back() == P::SEMI);
  CHECK(L.Types[L.Types.size() - 2] == P::INIT_LIST);
  auto N = lex(".global .u64 t[2] = {sym, generic(sym)+4};", PtxLexer::Mode::Module);
  CHECK(std::count(N.Types.begin(), N.Types.end(), P::INIT_LIST) == 0);
  CHECK(std::count(N.Types.begin(), N.Types.end(), P::LBRACE) == 1);
}

TEST_CASE("module mode folds each function body into one token", "[lexer]") {
  auto L = lex(".visible .entry k(.param .u32 a)\n.maxntid 64, 1, 1\n{\n  ret;\n  { nested }\n}\n"
               ".global .u32 g;",
               PtxLexer::Mode::Module);
  REQUIRE_FALSE(L.Error);
  CHECK(std::count(L.Types.begin(), L.Types.end(), P::BODY) == 1);
  CHECK(std::count(L.Types.begin(), L.Types.end(), P::OPCODE) == 0);
}

TEST_CASE("debug lines and sections are single tokens", "[lexer]") {
  auto L = lex(".file 1 \"/a/b.cu\"\n.loc 1 5 3, function_name $L__info, inlined_at 1 9 2\n"
               ".section .debug_abbrev\n{\n.b8 1\n.b8 17 // x\n@@DWARF .byte 1\n}\n",
               PtxLexer::Mode::Module);
  REQUIRE_FALSE(L.Error);
  std::vector<size_t> Want = {P::FILE_LINE, P::LOC_LINE, P::SECTION_BLOCK};
  CHECK(L.Types == Want);
}

TEST_CASE("lexical errors are located", "[lexer]") {
  struct Case {
    std::string Text;
    std::string Message;
    uint32_t Line, Column;
  } Cases[] = {
      {"{\n  mov.u32 %r1, \"abc;\n}", "unterminated string", 2, 16},
      {"{ /* never closed", "unterminated comment", 1, 3},
      {"{\n mov.u32 %r1, 0f123;\n}", "hexadecimal float literal needs exactly 8 digits", 2, 15},
      {"{ mov.u32 %r1, 12ab; }", "invalid character in number", 1, 16},
      {"{ mov.u32 %r1, \x01; }", "unexpected byte '\\x01'", 1, 16},
      {"}", "unmatched '}'", 1, 1},
  };
  for (const Case &C : Cases) {
    INFO(C.Text);
    auto L = lex(C.Text);
    REQUIRE(L.Error);
    CHECK(L.Error->Message == C.Message);
    CHECK(L.Error->Loc.line == C.Line);
    CHECK(L.Error->Loc.column == C.Column);
  }
}

TEST_CASE("nesting deeper than the limit is an error, not a deep recursion", "[lexer]") {
  std::string Deep(PtxLexer::MaxNesting + 10, '{');
  auto L = lex(Deep);
  REQUIRE(L.Error);
  CHECK(L.Error->Message.find("nested deeper") != std::string::npos);
  auto M = lex(".entry k() " + Deep, PtxLexer::Mode::Module);
  REQUIRE(M.Error);
}
