#include "ptx2amd/ptx-grammar/Lexer.h"

#include "PtxParser.h"

#include <cstring>

using namespace antlr4;
using P = ptx2amd::grammar::PtxParser;

namespace ptx2amd::grammar {

std::string ByteCharStream::getText(const misc::Interval &I) {
  if (I.a < 0 || I.b < I.a || static_cast<size_t>(I.a) >= Text.size())
    return {};
  size_t B = std::min(static_cast<size_t>(I.b), Text.size() - 1);
  return std::string(Text.substr(I.a, B - I.a + 1));
}

size_t ByteCharStream::LA(ssize_t i) {
  ssize_t At = static_cast<ssize_t>(Pos) + (i > 0 ? i - 1 : i);
  if (i == 0 || At < 0 || static_cast<size_t>(At) >= Text.size())
    return IntStream::EOF;
  return static_cast<unsigned char>(Text[At]);
}

namespace {

enum CharClass : uint8_t { Other = 0, IdentStart = 1, IdentPart = 2, Digit = 4, Space = 8 };

constexpr auto makeClasses() {
  std::array<uint8_t, 256> C{};
  for (int c = 'a'; c <= 'z'; ++c)
    C[c] = IdentStart | IdentPart;
  for (int c = 'A'; c <= 'Z'; ++c)
    C[c] = IdentStart | IdentPart;
  for (int c = '0'; c <= '9'; ++c)
    C[c] = IdentPart | Digit;
  C['_'] = IdentStart | IdentPart;
  C['$'] = IdentStart | IdentPart;
  C[' '] = C['\t'] = C['\r'] = C['\n'] = C['\f'] = C['\v'] = Space;
  return C;
}
constexpr std::array<uint8_t, 256> Classes = makeClasses();

inline bool isIdentStart(char c) { return Classes[static_cast<unsigned char>(c)] & IdentStart; }
inline bool isIdentPart(char c) { return Classes[static_cast<unsigned char>(c)] & IdentPart; }
inline bool isDigit(char c) { return Classes[static_cast<unsigned char>(c)] & Digit; }
inline bool isHex(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

struct Keyword {
  std::string_view Word;
  size_t Type;
};

// Directive words after the dot; anything else starting with '.' is DOTNAME.
constexpr Keyword Keywords[] = {
    {"version", P::VERSION},
    {"target", P::TARGET},
    {"address_size", P::ADDRESS_SIZE},
    {"entry", P::ENTRY},
    {"func", P::FUNC},
    {"visible", P::LINKAGE},
    {"extern", P::LINKAGE},
    {"weak", P::LINKAGE},
    {"common", P::LINKAGE},
    {"reg", P::SPACE},
    {"param", P::SPACE},
    {"global", P::SPACE},
    {"const", P::SPACE},
    {"shared", P::SPACE},
    {"local", P::SPACE},
    {"tex", P::SPACE},
    {"sreg", P::SPACE},
    {"v2", P::VEC},
    {"v4", P::VEC},
    {"v8", P::VEC},
    {"align", P::ALIGN},
    {"ptr", P::PTR},
    {"attribute", P::ATTRIBUTE},
    {"alias", P::ALIAS},
    {"pragma", P::PRAGMA},
    {"callprototype", P::CALLPROTOTYPE},
    {"branchtargets", P::BRANCHTARGETS},
    {"calltargets", P::CALLTARGETS},
};

constexpr std::string_view TypeWords[] = {
    "pred",  "b8",   "b16",  "b32",  "b64",    "b128",   "u8",     "u16",        "u32",     "u64",
    "s8",    "s16",  "s32",  "s64",  "f16",    "f16x2",  "bf16",   "bf16x2",     "f32",     "f64",
    "f32x2", "tf32", "e4m3", "e5m2", "e4m3x2", "e5m2x2", "texref", "samplerref", "surfref",
};

size_t classifyDotWord(std::string_view W) {
  for (const Keyword &K : Keywords)
    if (K.Word == W)
      return K.Type;
  for (std::string_view T : TypeWords)
    if (T == W)
      return P::TYPE;
  return P::DOTNAME;
}

} // namespace

PtxLexer::PtxLexer(ByteCharStream &Stream, std::string_view Whole, TextRange Range, Mode M)
    : Stream(Stream), Text(Whole), Pos(Range.offset), End(Range.offset + Range.size),
      Line(Range.start.line), LineStart(Range.offset - (Range.start.column - 1)), M(M) {
  if (End > Text.size())
    End = Text.size();
}

TokenFactory<CommonToken> *PtxLexer::getTokenFactory() { return CommonTokenFactory::DEFAULT.get(); }

TextRange PtxLexer::bodyRange(const Token &T) {
  return {
      T.getStartIndex(),
      T.getStopIndex() + 1 - T.getStartIndex(),
      {static_cast<uint32_t>(T.getLine()), static_cast<uint32_t>(T.getCharPositionInLine() + 1)}};
}

void PtxLexer::advanceTo(size_t NewPos) {
  // Keeps line numbers right when skipping over a multi-line region.
  const char *P0 = Text.data() + Pos;
  const char *P1 = Text.data() + NewPos;
  while (P0 < P1) {
    const void *NL = std::memchr(P0, '\n', P1 - P0);
    if (!NL)
      break;
    P0 = static_cast<const char *>(NL) + 1;
    ++Line;
    LineStart = P0 - Text.data();
  }
  Pos = NewPos;
}

std::unique_ptr<Token> PtxLexer::make(size_t Type, size_t Start, SourceLoc Loc) {
  auto T = std::make_unique<CommonToken>(std::pair<TokenSource *, CharStream *>(this, &Stream),
                                         Type, Token::DEFAULT_CHANNEL, Start, Pos - 1);
  T->setLine(Loc.line);
  T->setCharPositionInLine(Loc.column - 1);
  StmtStart = Type == P::SEMI || Type == P::BLOCK_OPEN || Type == P::BLOCK_CLOSE ||
              Type == P::LABEL_DEF || Type == P::GUARD || Type == P::LOC_LINE ||
              Type == P::FILE_LINE || Type == P::SECTION_BLOCK;
  if (Type == P::EQUALS)
    InInitializer = true;
  else if (Type == P::SEMI)
    InInitializer = false;
  PrevType = Type;
  return T;
}

std::unique_ptr<Token> PtxLexer::fail(size_t Start, SourceLoc Loc, std::string Message) {
  if (!Error)
    Error = LexError{Loc, std::move(Message)};
  Done = true;
  if (Pos <= Start)
    Pos = Start + 1 <= End ? Start + 1 : End;
  auto T = make(P::ERROR_CHAR, Start, Loc);
  return T;
}

void PtxLexer::skipTrivia() {
  while (Pos < End) {
    char c = Text[Pos];
    if (c == '\n') {
      ++Pos;
      ++Line;
      LineStart = Pos;
    } else if (Classes[static_cast<unsigned char>(c)] & Space) {
      ++Pos;
    } else if (c == '/' && Pos + 1 < End && Text[Pos + 1] == '/') {
      const void *NL = std::memchr(Text.data() + Pos, '\n', End - Pos);
      Pos = NL ? static_cast<const char *>(NL) - Text.data() : End;
    } else if (c == '/' && Pos + 1 < End && Text[Pos + 1] == '*') {
      size_t Close = Text.substr(0, End).find("*/", Pos + 2);
      if (Close == std::string_view::npos)
        return; // reported by nextToken as an unterminated comment
      advanceTo(Close + 2);
    } else if (c == '@' && Pos + 1 < End && Text[Pos + 1] == '@') {
      // `@@DWARF ...` lines of old debug sections: parsed as a line and skipped.
      const void *NL = std::memchr(Text.data() + Pos, '\n', End - Pos);
      Pos = NL ? static_cast<const char *>(NL) - Text.data() : End;
    } else {
      return;
    }
  }
}

bool PtxLexer::skipToEndOfBlock(SourceLoc OpenLoc) {
  // Pos is just after '{'. Finds the matching '}' across comments and strings.
  unsigned Depth = 1;
  while (Pos < End) {
    char c = Text[Pos];
    switch (c) {
    case '\n':
      ++Pos;
      ++Line;
      LineStart = Pos;
      continue;
    case '{':
      // No nesting limit here: a body too deep to parse fails alone, when it is parsed.
      ++Depth;
      break;
    case '}':
      if (--Depth == 0) {
        ++Pos;
        return true;
      }
      break;
    case '"': {
      size_t Q = Pos + 1;
      while (Q < End && Text[Q] != '"' && Text[Q] != '\n')
        Q += Text[Q] == '\\' ? 2 : 1;
      if (Q >= End || Text[Q] != '"') {
        Error = LexError{{static_cast<uint32_t>(Line), static_cast<uint32_t>(Pos - LineStart + 1)},
                         "unterminated string"};
        return false;
      }
      Pos = Q;
      break;
    }
    case '/':
      if (Pos + 1 < End && Text[Pos + 1] == '/') {
        const void *NL = std::memchr(Text.data() + Pos, '\n', End - Pos);
        Pos = NL ? static_cast<const char *>(NL) - Text.data() : End;
        continue;
      }
      if (Pos + 1 < End && Text[Pos + 1] == '*') {
        size_t Close = Text.substr(0, End).find("*/", Pos + 2);
        if (Close == std::string_view::npos) {
          Error =
              LexError{{static_cast<uint32_t>(Line), static_cast<uint32_t>(Pos - LineStart + 1)},
                       "unterminated comment"};
          return false;
        }
        advanceTo(Close + 2);
        continue;
      }
      break;
    default:
      break;
    }
    ++Pos;
  }
  Error = LexError{OpenLoc, "'{' is never closed"};
  return false;
}

bool PtxLexer::tryInitList() {
  // Pos is at '{'. Accepts `{ n, n, ... }` with n an integer or a 0f/0d float, optionally negated.
  size_t Q = Pos + 1;
  size_t Count = 0;
  auto SkipSpace = [&] {
    while (Q < End && (Classes[static_cast<unsigned char>(Text[Q])] & Space))
      ++Q;
  };
  for (;;) {
    SkipSpace();
    if (Q < End && Text[Q] == '-')
      ++Q;
    if (Q >= End || !isDigit(Text[Q]))
      return false;
    while (Q < End && (isHex(Text[Q]) || Text[Q] == 'x' || Text[Q] == 'X' || Text[Q] == 'U' ||
                       Text[Q] == 'f' || Text[Q] == 'F' || Text[Q] == 'd' || Text[Q] == 'D'))
      ++Q;
    ++Count;
    SkipSpace();
    if (Q < End && Text[Q] == ',') {
      ++Q;
      continue;
    }
    if (Q < End && Text[Q] == '}')
      break;
    return false;
  }
  if (Count == 0)
    return false;
  advanceTo(Q + 1);
  return true;
}

size_t PtxLexer::lexDotWord(size_t Start) {
  // Pos is after '.'; a word may contain "::" (e.g. `.shared::cta`).
  while (Pos < End) {
    if (isIdentPart(Text[Pos]))
      ++Pos;
    else if (Text[Pos] == ':' && Pos + 2 < End && Text[Pos + 1] == ':' &&
             isIdentPart(Text[Pos + 2]))
      Pos += 2;
    else
      break;
  }
  std::string_view W = Text.substr(Start + 1, Pos - Start - 1);
  size_t Base = W.find("::");
  return classifyDotWord(Base == std::string_view::npos ? W : W.substr(0, Base));
}

std::unique_ptr<Token> PtxLexer::nextToken() {
  if (!Done)
    skipTrivia();
  size_t Start = Pos;
  SourceLoc Loc{static_cast<uint32_t>(Line), static_cast<uint32_t>(Pos - LineStart + 1)};
  if (Done || Pos >= End) {
    if (!Done && !BraceIsBlock.empty() && M == Mode::Body && !Error)
      return fail(Start, Loc, "unexpected end of input inside braces");
    Done = true;
    auto T = std::make_unique<CommonToken>(std::pair<TokenSource *, CharStream *>(this, &Stream),
                                           Token::EOF, Token::DEFAULT_CHANNEL, Pos, Pos - 1);
    T->setLine(Loc.line);
    T->setCharPositionInLine(Loc.column - 1);
    return T;
  }
  char c = Text[Pos];

  // Statement start: a label definition or an instruction opcode.
  if (StmtStart && isIdentStart(c)) {
    ++Pos;
    while (Pos < End && isIdentPart(Text[Pos]))
      ++Pos;
    size_t NameEnd = Pos, Q = Pos;
    while (Q < End && (Text[Q] == ' ' || Text[Q] == '\t'))
      ++Q;
    if (Q < End && Text[Q] == ':' && !(Q + 1 < End && Text[Q + 1] == ':')) {
      // The token covers the name only; the colon is consumed.
      Pos = Q + 1;
      auto L =
          std::make_unique<CommonToken>(std::pair<TokenSource *, CharStream *>(this, &Stream),
                                        P::LABEL_DEF, Token::DEFAULT_CHANNEL, Start, NameEnd - 1);
      L->setLine(Loc.line);
      L->setCharPositionInLine(Loc.column - 1);
      StmtStart = true;
      PrevType = P::LABEL_DEF;
      return L;
    }
    for (;;) {
      if (Pos + 1 < End && Text[Pos] == '.' && isIdentPart(Text[Pos + 1])) {
        Pos += 2;
      } else if (Pos + 2 < End && Text[Pos] == ':' && Text[Pos + 1] == ':' &&
                 isIdentPart(Text[Pos + 2])) {
        Pos += 3;
      } else {
        break;
      }
      while (Pos < End && isIdentPart(Text[Pos]))
        ++Pos;
    }
    return make(P::OPCODE, Start, Loc);
  }

  switch (c) {
  case '.': {
    ++Pos;
    if (Pos >= End || !isIdentPart(Text[Pos]))
      return fail(Start, Loc, "expected a directive name after '.'");
    size_t Type = lexDotWord(Start);
    std::string_view W = Text.substr(Start, Pos - Start);
    if (W == ".loc" || W == ".file") {
      const void *NL = std::memchr(Text.data() + Pos, '\n', End - Pos);
      Pos = NL ? static_cast<const char *>(NL) - Text.data() : End;
      while (Pos > Start && (Text[Pos - 1] == '\r' || Text[Pos - 1] == ' '))
        --Pos;
      return make(W == ".loc" ? P::LOC_LINE : P::FILE_LINE, Start, Loc);
    }
    if (W == ".section") {
      skipTrivia();
      // Section name, then its `{ ... }` data block.
      if (Pos < End && Text[Pos] == '.') {
        ++Pos;
        while (Pos < End && (isIdentPart(Text[Pos]) || Text[Pos] == '.'))
          ++Pos;
      }
      skipTrivia();
      if (Pos >= End || Text[Pos] != '{')
        return fail(Start, Loc, "expected '{' after .section name");
      SourceLoc OpenLoc{static_cast<uint32_t>(Line), static_cast<uint32_t>(Pos - LineStart + 1)};
      ++Pos;
      if (!skipToEndOfBlock(OpenLoc)) {
        Done = true;
        return make(P::ERROR_CHAR, Start, Loc);
      }
      return make(P::SECTION_BLOCK, Start, Loc);
    }
    return make(Type, Start, Loc);
  }
  case '%': {
    ++Pos;
    while (Pos < End && isIdentPart(Text[Pos]))
      ++Pos;
    if (Pos == Start + 1) // not a register: the remainder operator of constant expressions
      return make(P::PERCENT, Start, Loc);
    // Vector component or special register field (%tid.x, %v.w), or a video byte/half selector
    // (%r1.b2, %r1.h0).
    if (Pos + 1 < End && Text[Pos] == '.' && std::strchr("xyzwrgba", Text[Pos + 1]) &&
        !(Pos + 2 < End && isIdentPart(Text[Pos + 2])))
      Pos += 2;
    else if (Pos + 2 < End && Text[Pos] == '.' && (Text[Pos + 1] == 'b' || Text[Pos + 1] == 'h') &&
             isDigit(Text[Pos + 2])) {
      size_t Q = Pos + 2;
      while (Q < End && isDigit(Text[Q]))
        ++Q;
      if (Q - Pos - 2 <= 4 && !(Q < End && isIdentPart(Text[Q])))
        Pos = Q;
    }
    return make(P::REGISTER, Start, Loc);
  }
  case '@': {
    ++Pos;
    if (Pos < End && Text[Pos] == '!')
      ++Pos;
    size_t NameStart = Pos;
    if (Pos < End && Text[Pos] == '%')
      ++Pos;
    while (Pos < End && isIdentPart(Text[Pos]))
      ++Pos;
    if (Pos == NameStart || (Pos == NameStart + 1 && Text[NameStart] == '%'))
      return fail(Start, Loc, "expected a predicate after '@'");
    return make(P::GUARD, Start, Loc);
  }
  case '"': {
    ++Pos;
    while (Pos < End && Text[Pos] != '"' && Text[Pos] != '\n')
      Pos += Text[Pos] == '\\' ? 2 : 1;
    if (Pos >= End || Text[Pos] != '"')
      return fail(Start, Loc, "unterminated string");
    ++Pos;
    return make(P::STRING, Start, Loc);
  }
  case '{': {
    bool Vector = PrevType == P::OPCODE || PrevType == P::COMMA || PrevType == P::EQUALS ||
                  PrevType == P::LBRACE || PrevType == P::LBRACK || PrevType == P::PIPE ||
                  PrevType == P::LPAREN;
    if (Vector && InInitializer && tryInitList())
      return make(P::INIT_LIST, Start, Loc);
    ++Pos;
    if (!Vector && M == Mode::Module && BraceIsBlock.empty()) {
      if (!skipToEndOfBlock(Loc)) {
        Done = true;
        return make(P::ERROR_CHAR, Start, Loc);
      }
      return make(P::BODY, Start, Loc);
    }
    if (++Nesting > MaxNesting)
      return fail(Start, Loc, "braces nested deeper than " + std::to_string(MaxNesting));
    BraceIsBlock.push_back(!Vector);
    return make(Vector ? P::LBRACE : P::BLOCK_OPEN, Start, Loc);
  }
  case '}': {
    ++Pos;
    if (BraceIsBlock.empty())
      return fail(Start, Loc, "unmatched '}'");
    bool Block = BraceIsBlock.back();
    BraceIsBlock.pop_back();
    --Nesting;
    return make(Block ? P::BLOCK_CLOSE : P::RBRACE, Start, Loc);
  }
  case '(':
  case '[':
    ++Pos;
    if (++Nesting > MaxNesting)
      return fail(Start, Loc, "brackets nested deeper than " + std::to_string(MaxNesting));
    return make(c == '(' ? P::LPAREN : P::LBRACK, Start, Loc);
  case ')':
  case ']':
    ++Pos;
    if (Nesting > 0)
      --Nesting;
    return make(c == ')' ? P::RPAREN : P::RBRACK, Start, Loc);
  case '<':
    ++Pos;
    if (Pos < End && Text[Pos] == '<') {
      ++Pos;
      return make(P::SHL, Start, Loc);
    }
    return make(P::LT, Start, Loc);
  case '>':
    ++Pos;
    if (Pos < End && Text[Pos] == '>') {
      ++Pos;
      return make(P::SHR, Start, Loc);
    }
    return make(P::GT, Start, Loc);
  case ',':
    ++Pos;
    return make(P::COMMA, Start, Loc);
  case ';':
    ++Pos;
    return make(P::SEMI, Start, Loc);
  case '|':
    ++Pos;
    return make(P::PIPE, Start, Loc);
  case '=':
    ++Pos;
    return make(P::EQUALS, Start, Loc);
  case '+':
    ++Pos;
    return make(P::PLUS, Start, Loc);
  case '-':
    ++Pos;
    return make(P::MINUS, Start, Loc);
  case '*':
    ++Pos;
    return make(P::STAR, Start, Loc);
  case '/':
    if (Pos + 1 < End && Text[Pos + 1] == '*')
      return fail(Start, Loc, "unterminated comment");
    ++Pos;
    return make(P::SLASH, Start, Loc);
  case '&':
    ++Pos;
    return make(P::AMP, Start, Loc);
  case '^':
    ++Pos;
    return make(P::CARET, Start, Loc);
  case '~':
    ++Pos;
    return make(P::TILDE, Start, Loc);
  case '!':
    ++Pos;
    return make(P::BANG, Start, Loc);
  default:
    break;
  }

  if (isDigit(c)) {
    // 0f/0F + 8 hex digits, 0d/0D + 16 hex digits: raw IEEE bits.
    if (c == '0' && Pos + 1 < End &&
        ((Text[Pos + 1] | 0x20) == 'f' || (Text[Pos + 1] | 0x20) == 'd')) {
      size_t Digits = (Text[Pos + 1] | 0x20) == 'f' ? 8 : 16;
      size_t Q = Pos + 2;
      while (Q < End && isHex(Text[Q]))
        ++Q;
      if (Q - (Pos + 2) != Digits)
        return fail(Start, Loc,
                    "hexadecimal float literal needs exactly " + std::to_string(Digits) +
                        " digits");
      Pos = Q;
      return make(P::FLOAT, Start, Loc);
    }
    if (c == '0' && Pos + 1 < End &&
        ((Text[Pos + 1] | 0x20) == 'x' || (Text[Pos + 1] | 0x20) == 'b')) {
      bool Hex = (Text[Pos + 1] | 0x20) == 'x';
      size_t Q = Pos + 2;
      while (Q < End && (Hex ? isHex(Text[Q]) : (Text[Q] == '0' || Text[Q] == '1')))
        ++Q;
      if (Q == Pos + 2)
        return fail(Start, Loc, "missing digits in integer literal");
      Pos = Q;
      if (Pos < End && Text[Pos] == 'U')
        ++Pos;
      return make(P::INT, Start, Loc);
    }
    while (Pos < End && isDigit(Text[Pos]))
      ++Pos;
    bool IsFloat = false;
    if (Pos + 1 < End && Text[Pos] == '.' && isDigit(Text[Pos + 1])) {
      IsFloat = true;
      ++Pos;
      while (Pos < End && isDigit(Text[Pos]))
        ++Pos;
    }
    if (Pos < End && (Text[Pos] | 0x20) == 'e') {
      size_t Q = Pos + 1;
      if (Q < End && (Text[Q] == '+' || Text[Q] == '-'))
        ++Q;
      if (Q < End && isDigit(Text[Q])) {
        IsFloat = true;
        Pos = Q;
        while (Pos < End && isDigit(Text[Pos]))
          ++Pos;
      }
    }
    if (!IsFloat && Pos < End && Text[Pos] == 'U')
      ++Pos;
    if (Pos < End && isIdentStart(Text[Pos]))
      return fail(Start, Loc, "invalid character in number");
    return make(IsFloat ? P::FLOAT : P::INT, Start, Loc);
  }

  if (isIdentStart(c)) {
    ++Pos;
    while (Pos < End && isIdentPart(Text[Pos]))
      ++Pos;
    if (Pos == Start + 1 && c == '_')
      return make(P::UNDERSCORE, Start, Loc);
    return make(P::IDENT, Start, Loc);
  }

  if (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f)
    return fail(Start, Loc, std::string("unexpected character '") + c + "'");
  char Buf[8];
  std::snprintf(Buf, sizeof Buf, "\\x%02x", static_cast<unsigned char>(c));
  return fail(Start, Loc, std::string("unexpected byte '") + Buf + "'");
}

} // namespace ptx2amd::grammar
