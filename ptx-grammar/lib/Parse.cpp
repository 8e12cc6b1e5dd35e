#include "ptx2amd/ptx-grammar/Parse.h"

using namespace antlr4;

namespace ptx2amd::grammar {
namespace {

class Classifier : public tree::ParseTreeVisitor {
public:
  bool Terminal = false;
  antlrcpp::Any visit(tree::ParseTree *) override { return {}; }
  antlrcpp::Any visitChildren(tree::ParseTree *) override {
    Terminal = false;
    return {};
  }
  antlrcpp::Any visitTerminal(tree::TerminalNode *) override {
    Terminal = true;
    return {};
  }
  antlrcpp::Any visitErrorNode(tree::ErrorNode *) override {
    Terminal = true;
    return {};
  }
};

/// Records the first syntax error and stops the parse: a function with a syntax error fails as a
/// whole, so recovering further only costs time (and could take long on garbage input).
class FirstErrorListener : public BaseErrorListener {
public:
  explicit FirstErrorListener(std::optional<SyntaxError> &Out, const PtxLexer &Lexer)
      : Out(Out), Lexer(Lexer) {}
  void syntaxError(Recognizer *R, Token *Offending, size_t Line, size_t Col, const std::string &Msg,
                   std::exception_ptr) override {
    if (!Out) {
      if (Lexer.error())
        Out = SyntaxError{Lexer.error()->Loc, Lexer.error()->Message};
      else if (auto Missing = missingSemicolon(static_cast<Parser *>(R), Offending))
        Out = std::move(Missing);
      else
        Out = SyntaxError{{static_cast<uint32_t>(Line), static_cast<uint32_t>(Col + 1)},
                          describe(Offending, Msg)};
    }
    throw ParseCancellationException();
  }

private:
  /// A statement that runs into the next line without its ';' is reported where the ';' belongs.
  static std::optional<SyntaxError> missingSemicolon(Parser *P, Token *Offending) {
    if (!P || !Offending)
      return std::nullopt;
    Token *Prev = P->getTokenStream()->LT(-1);
    if (!Prev || Prev->getLine() >= Offending->getLine() ||
        !P->getExpectedTokens().contains(static_cast<size_t>(PtxParser::SEMI)))
      return std::nullopt;
    size_t Width = Prev->getStopIndex() + 1 - Prev->getStartIndex();
    return SyntaxError{{static_cast<uint32_t>(Prev->getLine()),
                        static_cast<uint32_t>(Prev->getCharPositionInLine() + Width + 1)},
                       "expected ';' at the end of the statement"};
  }

  static std::string describe(Token *T, const std::string &Msg) {
    if (!T)
      return Msg;
    if (T->getType() == Token::EOF)
      return "unexpected end of input";
    std::string Text = T->getText();
    if (Text.size() > 40)
      Text = Text.substr(0, 37) + "...";
    // ANTLR's own text lists every expected token; the offending text is what helps a reader.
    if (Msg.rfind("extraneous input", 0) == 0 || Msg.rfind("mismatched input", 0) == 0 ||
        Msg.rfind("no viable alternative", 0) == 0)
      return "unexpected '" + Text + "'";
    return Msg;
  }
  std::optional<SyntaxError> &Out;
  const PtxLexer &Lexer;
};

} // namespace

template <typename Context>
Parse<Context>::Parse(std::shared_ptr<const SourceText> Src, TextRange Range, PtxLexer::Mode M)
    : Source(std::move(Src)), Chars(Source->text(), Source->name()),
      Lexer(Chars, Source->text(), Range, M), Tokens(&Lexer), Parser(&Tokens) {
  auto Run = [&]() -> Context * {
    if constexpr (std::is_same_v<Context, PtxParser::ModuleContext>)
      return Parser.module();
    else
      return Parser.functionBody();
  };
  Parser.removeErrorListeners();
  // Stage 1: SLL prediction, bail out at the first problem.
  Parser.getInterpreter<atn::ParserATNSimulator>()->setPredictionMode(atn::PredictionMode::SLL);
  Parser.setErrorHandler(std::make_shared<BailErrorStrategy>());
  try {
    Tree = Run();
  } catch (ParseCancellationException &) {
    Tree = nullptr;
  } catch (std::exception &E) {
    Error = SyntaxError{Range.start, std::string("parser failure: ") + E.what()};
    return;
  }
  if (Tree && !Lexer.error())
    return;
  if (Lexer.error()) {
    Tree = nullptr;
    Error = SyntaxError{Lexer.error()->Loc, Lexer.error()->Message};
    return;
  }
  // Stage 2: full LL with error reporting, for input SLL could not decide or that is invalid.
  NeededFullLL = true;
  Tokens.seek(0);
  Parser.reset();
  Parser.getInterpreter<atn::ParserATNSimulator>()->setPredictionMode(atn::PredictionMode::LL);
  Parser.setErrorHandler(std::make_shared<DefaultErrorStrategy>());
  FirstErrorListener Listener(Error, Lexer);
  Parser.addErrorListener(&Listener);
  try {
    Tree = Run();
  } catch (ParseCancellationException &) {
    Tree = nullptr;
  } catch (std::exception &E) {
    Tree = nullptr;
    if (!Error)
      Error = SyntaxError{Range.start, std::string("parser failure: ") + E.what()};
  }
  Parser.removeErrorListeners();
  if (!Error && Lexer.error())
    Error = SyntaxError{Lexer.error()->Loc, Lexer.error()->Message};
  if (Error)
    Tree = nullptr;
}

template <typename Context> Parse<Context>::~Parse() = default;

template class Parse<PtxParser::ModuleContext>;
template class Parse<PtxParser::FunctionBodyContext>;

NodeKind classify(tree::ParseTree *Node) {
  thread_local Classifier C;
  Node->accept(&C);
  if (C.Terminal)
    return {true, static_cast<tree::TerminalNode *>(Node)->getSymbol()->getType()};
  return {false, static_cast<RuleContext *>(Node)->getRuleIndex()};
}

std::unique_ptr<ModuleParse> parseModule(std::shared_ptr<const SourceText> Source) {
  TextRange R = Source->whole();
  return std::make_unique<ModuleParse>(std::move(Source), R, PtxLexer::Mode::Module);
}

std::unique_ptr<BodyParse> parseBody(std::shared_ptr<const SourceText> Source, TextRange Range) {
  return std::make_unique<BodyParse>(std::move(Source), Range, PtxLexer::Mode::Body);
}

} // namespace ptx2amd::grammar
