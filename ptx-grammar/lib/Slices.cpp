//===- Slices.cpp - a PTX module's kernels as separate modules ===//
//
// A scanner of the top level only: what lazy per-kernel translation needs is where each item
// starts and ends and which names a body uses, which comments, braces and identifiers give
// without the grammar (a library module of 200k lines outlines in milliseconds).

#include "ptx2amd/ptx-grammar/Slices.h"

#include <algorithm>
#include <cctype>

namespace ptx2amd::grammar {
namespace {

bool identStart(char C) {
  return std::isalpha(static_cast<unsigned char>(C)) || C == '_' || C == '$';
}
bool identChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '$';
}

struct Scanner {
  std::string_view S;
  size_t P = 0;

  bool done() const { return P >= S.size(); }
  char peek() const { return done() ? '\0' : S[P]; }

  /// Skips a comment at P; false when there is none.
  bool skipComment() {
    if (P + 1 >= S.size() || S[P] != '/')
      return false;
    if (S[P + 1] == '/') {
      P = std::min(S.find('\n', P), S.size());
      return true;
    }
    if (S[P + 1] == '*') {
      size_t E = S.find("*/", P + 2);
      P = E == std::string_view::npos ? S.size() : E + 2;
      return true;
    }
    return false;
  }
  void skipSpace() {
    while (!done())
      if (std::isspace(static_cast<unsigned char>(S[P])))
        ++P;
      else if (!skipComment())
        break;
  }
  /// A directive (.name), an identifier, a register or a number at P; empty at punctuation.
  std::string_view word() {
    size_t B = P;
    if (!done() && (S[P] == '.' || S[P] == '%' || identChar(S[P])))
      for (++P; !done() && identChar(S[P]); ++P)
        ;
    return S.substr(B, P - B);
  }
  /// Skips a string literal at P.
  void skipString() {
    for (++P; !done() && S[P] != '"'; ++P)
      if (S[P] == '\\')
        ++P;
    ++P;
  }
  /// From an opening bracket at P to just past its match; false when unbalanced. \p Names gets
  /// the identifiers within (not registers, directives or numbers) when not null.
  bool skipBalanced(std::vector<std::string_view> *Names) {
    unsigned Depth = 0;
    while (!done()) {
      char C = S[P];
      if (skipComment())
        continue;
      if (C == '"') {
        skipString();
        continue;
      }
      if (C == '{' || C == '(' || C == '[') {
        ++Depth;
        ++P;
        continue;
      }
      if (C == '}' || C == ')' || C == ']') {
        ++P;
        if (--Depth == 0)
          return true;
        continue;
      }
      if (C == '.' || C == '%' || std::isdigit(static_cast<unsigned char>(C))) {
        // A directive or type (.global), a register (%r1) or a number (0f3F800000): no name.
        for (++P; !done() && identChar(S[P]); ++P)
          ;
        continue;
      }
      if (identStart(C)) {
        size_t B = P;
        for (++P; !done() && identChar(S[P]); ++P)
          ;
        if (Names)
          Names->push_back(S.substr(B, P - B));
        continue;
      }
      ++P;
    }
    return false;
  }
  /// Past the `;` that ends a declaration at P (initializers' braces included); false without one.
  /// \p Names gets the identifiers of an initializer `= {...}` when not null.
  bool skipToSemicolon(std::vector<std::string_view> *Names = nullptr) {
    while (!done()) {
      if (skipComment())
        continue;
      char C = S[P];
      if (C == '"')
        skipString();
      else if (C == '{' || C == '(' || C == '[') {
        if (!skipBalanced(C == '{' ? Names : nullptr))
          return false;
      } else if (C == ';') {
        ++P;
        return true;
      } else
        ++P;
    }
    return false;
  }
  /// The name a variable declaration at P declares: its first identifier after the directives.
  std::string_view variableName() {
    for (;;) {
      skipSpace();
      if (peek() == '(') { // .attribute(.managed)
        if (!skipBalanced(nullptr))
          return {};
        continue;
      }
      std::string_view W = word();
      if (W.empty())
        return {};
      if (W[0] != '.' && !std::isdigit(static_cast<unsigned char>(W[0])))
        return W;
    }
  }
};

bool isLinkage(std::string_view W) {
  return W == ".visible" || W == ".extern" || W == ".weak" || W == ".common";
}
bool isModuleVariable(std::string_view W) {
  return W == ".global" || W == ".const" || W == ".tex" || W == ".texref" || W == ".surfref" ||
         W == ".samplerref" || W == ".local";
}
/// The `.extern` declaration of the module variable \p Text declares (its linkage dropped, its
/// initializer left out; comments and line breaks before the initializer kept, so that what
/// follows stays on its line); empty when it declares several variables.
std::string externDeclaration(std::string_view Text) {
  Scanner Sc{Text};
  size_t Start = 0;
  for (;;) {
    Sc.skipSpace();
    Start = Sc.P;
    if (!isLinkage(Sc.word()))
      break;
  }
  Sc.P = Start;
  size_t End = Text.size();
  while (!Sc.done()) {
    if (Sc.skipComment())
      continue;
    char C = Sc.peek();
    if (C == '(' || C == '[' || C == '{') {
      if (!Sc.skipBalanced(nullptr))
        return {};
      continue;
    }
    if (C == ',')
      return {};
    if (C == '=' || C == ';') {
      End = Sc.P;
      break;
    }
    ++Sc.P;
  }
  while (End > Start && std::isspace(static_cast<unsigned char>(Text[End - 1])))
    --End;
  return ".extern " + std::string(Text.substr(Start, End - Start)) + ";";
}

/// Functions of CUDA's device runtime through which a kernel launches kernels.
bool launchesFromDevice(std::string_view Name) {
  return Name.starts_with("cudaLaunchDevice") || Name.starts_with("cudaGetParameterBuffer");
}

} // namespace

ModuleOutline outlineModule(std::string_view Ptx) {
  ModuleOutline O;
  Scanner Sc{Ptx};
  size_t Counted = 0, LineStart = 0; // newlines counted up to Counted; the last line's start
  uint32_t Line = 1;
  auto Refuse = [&](std::string Why) {
    O.Why = std::move(Why);
    return O;
  };
  for (;;) {
    Sc.skipSpace();
    if (Sc.done())
      break;
    const size_t Start = Sc.P;
    std::string_view W = Sc.word();
    if (W.empty() || W[0] != '.')
      return Refuse("text at the top level that is no directive, at byte " + std::to_string(Start));
    while (isLinkage(W)) {
      Sc.skipSpace();
      W = Sc.word();
    }
    ModuleOutline::Item It{ModuleOutline::ItemKind::Header, {}, {}, false, {}, {}, {}, {}};
    if (W == ".version" || W == ".target" || W == ".address_size" || W == ".file") {
      Sc.P = std::min(Ptx.find('\n', Sc.P), Ptx.size());
    } else if (W == ".pragma") {
      if (!Sc.skipToSemicolon())
        return Refuse("an unterminated .pragma");
    } else if (W == ".entry" || W == ".func") {
      It.Kind = ModuleOutline::ItemKind::Function;
      It.IsKernel = W == ".entry";
      Sc.skipSpace();
      if (Sc.peek() == '(' && !Sc.skipBalanced(nullptr)) // the return parameters
        return Refuse("unbalanced parentheses");
      Sc.skipSpace();
      It.Name = Sc.word();
      if (It.Name.empty() || !identStart(It.Name[0]))
        return Refuse("a function without a name, at byte " + std::to_string(Start));
      for (;;) { // parameters and performance directives, then `;` or the body
        Sc.skipSpace();
        char C = Sc.peek();
        if (Sc.done())
          return Refuse("function '" + std::string(It.Name) + "' is not terminated");
        if (C == ';') {
          ++Sc.P;
          break;
        }
        if (C == '{') {
          if (!Sc.skipBalanced(&It.Names))
            return Refuse("unbalanced braces in '" + std::string(It.Name) + "'");
          break;
        }
        if (C == '(') {
          if (!Sc.skipBalanced(nullptr))
            return Refuse("unbalanced parentheses in '" + std::string(It.Name) + "'");
          continue;
        }
        std::string_view D = Sc.word();
        if (D.empty())
          ++Sc.P;
        else if (D == ".pragma" && !Sc.skipToSemicolon()) // an entry-scope .pragma "...";
          return Refuse("an unterminated .pragma in '" + std::string(It.Name) + "'");
      }
      if (launchesFromDevice(It.Name))
        return Refuse("it launches kernels from the device");
    } else if (W == ".shared") {
      It.Kind = ModuleOutline::ItemKind::Shared;
      It.Name = Sc.variableName();
      if (!Sc.skipToSemicolon())
        return Refuse("an unterminated .shared variable");
    } else if (isModuleVariable(W)) {
      It.Kind = ModuleOutline::ItemKind::Variable;
      It.Name = Sc.variableName();
      if (It.Name.empty())
        return Refuse("a " + std::string(W) + " variable without a name");
      if (!Sc.skipToSemicolon(&It.Names)) // an initializer may name functions or variables
        return Refuse("an unterminated " + std::string(W) + " variable");
      // Managed variables are the runtime's to place; references, per-thread .local variables
      // and declarations of several variables have no declaration of their own.
      std::string_view Text = Ptx.substr(Start, Sc.P - Start);
      auto Mentions = [&](std::string_view D) { return Text.find(D) != std::string_view::npos; };
      if ((W == ".global" || W == ".const") && !Mentions(".managed") && !Mentions(".texref") &&
          !Mentions(".surfref") && !Mentions(".samplerref"))
        It.Declaration = externDeclaration(Text);
    } else {
      return Refuse("top-level directive " + std::string(W));
    }
    It.Text = Ptx.substr(Start, Sc.P - Start);
    for (; Counted < Start; ++Counted)
      if (Ptx[Counted] == '\n') {
        ++Line;
        LineStart = Counted + 1;
      }
    It.Line = Line;
    It.Column = uint32_t(Start - LineStart + 1);
    std::sort(It.Names.begin(), It.Names.end());
    It.Names.erase(std::unique(It.Names.begin(), It.Names.end()), It.Names.end());
    if (It.Kind != ModuleOutline::ItemKind::Header)
      O.ByName[It.Name].push_back(uint32_t(O.Items.size()));
    if (It.IsKernel && It.Text.back() == '}')
      O.Kernels.emplace_back(It.Name);
    O.Items.push_back(std::move(It));
  }
  // Module variables have one address per module: the data slice defines them, and the slices
  // declare those their code names. Code naming a variable that cannot be declared, or an
  // initializer naming a function (which the data slice lacks), keeps the module whole.
  std::string Apart;
  for (const ModuleOutline::Item &It : O.Items)
    for (std::string_view N : It.Names)
      if (auto F = O.ByName.find(N); F != O.ByName.end())
        for (uint32_t I : F->second) {
          const ModuleOutline::Item &Named = O.Items[I];
          if (It.Kind == ModuleOutline::ItemKind::Variable &&
              Named.Kind == ModuleOutline::ItemKind::Function)
            return Refuse("the initializer of '" + std::string(It.Name) + "' names function '" +
                          std::string(N) + "'");
          if (It.Kind == ModuleOutline::ItemKind::Function &&
              Named.Kind == ModuleOutline::ItemKind::Variable && Named.Declaration.empty() &&
              Apart.find(std::string(N)) == std::string::npos)
            Apart += (Apart.empty() ? "" : ", ") + std::string(N);
        }
  if (!Apart.empty())
    return Refuse("its kernels share module variables that cannot be declared apart (texture, "
                  "surface or sampler references, managed or .local variables: " +
                  Apart + ")");
  // A kernel named in a body is launched, or its address taken, from the device.
  for (const ModuleOutline::Item &It : O.Items)
    for (std::string_view N : It.Names)
      if (auto F = O.ByName.find(N); F != O.ByName.end())
        for (uint32_t I : F->second)
          if (O.Items[I].IsKernel)
            return Refuse("'" + std::string(It.Name) + "' names kernel '" + std::string(N) + "'");
  return O;
}

bool ModuleOutline::hasVariables() const {
  return std::any_of(Items.begin(), Items.end(),
                     [](const Item &It) { return It.Kind == ItemKind::Variable; });
}

std::string ModuleOutline::dataSlice() const {
  if (!Why.empty() || !hasVariables())
    return {};
  std::vector<Use> Keep(Items.size(), Use::None);
  for (size_t I = 0; I < Items.size(); ++I)
    if (Items[I].Kind == ItemKind::Variable)
      Keep[I] = Use::Whole;
  return render(Keep);
}

std::vector<ModuleOutline::Use> ModuleOutline::reach(std::string_view Kernel) const {
  auto K = ByName.find(Kernel);
  if (!Why.empty() || K == ByName.end() ||
      std::none_of(K->second.begin(), K->second.end(),
                   [&](uint32_t I) { return Items[I].IsKernel; }))
    return {};
  std::vector<Use> Keep(Items.size(), Use::None);
  std::vector<std::string_view> Work{Kernel};
  while (!Work.empty()) {
    std::string_view N = Work.back();
    Work.pop_back();
    auto F = ByName.find(N);
    if (F == ByName.end())
      continue;
    for (uint32_t I : F->second) {
      if (Keep[I] != Use::None)
        continue;
      if (Items[I].Kind == ItemKind::Variable) {
        Keep[I] = Use::Declaration; // its first item: one declaration a variable
        break;
      }
      Keep[I] = Use::Whole;
      Work.insert(Work.end(), Items[I].Names.begin(), Items[I].Names.end());
    }
  }
  return Keep;
}

std::string ModuleOutline::slice(std::string_view Kernel) const {
  std::vector<Use> Keep = reach(Kernel);
  return Keep.empty() ? std::string() : render(Keep);
}

std::vector<std::string> ModuleOutline::variablesOf(std::string_view Kernel) const {
  std::vector<Use> Keep = reach(Kernel);
  std::vector<std::string> Names;
  for (size_t I = 0; I < Keep.size(); ++I)
    if (Keep[I] == Use::Declaration)
      Names.emplace_back(Items[I].Name);
  return Names;
}

std::string ModuleOutline::render(const std::vector<Use> &Keep) const {
  std::string Out;
  uint32_t Line = 1; // where Out ends
  for (size_t I = 0; I < Items.size(); ++I) {
    const Item &It = Items[I];
    if (Keep[I] == Use::None && It.Kind != ItemKind::Header)
      continue;
    if (It.Line > Line) {
      Out.append(It.Line - Line, '\n');
      Out.append(It.Column - 1, ' ');
      Line = It.Line;
    } else if (!Out.empty()) {
      Out += ' '; // on the line of the item before it
    }
    std::string_view Text = Keep[I] == Use::Declaration ? std::string_view(It.Declaration) : It.Text;
    Out += Text;
    Line += uint32_t(std::count(Text.begin(), Text.end(), '\n'));
  }
  Out += '\n';
  return Out;
}

} // namespace ptx2amd::grammar
