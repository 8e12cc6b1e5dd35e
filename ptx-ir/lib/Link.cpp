// Linking -rdc PTX modules (see Link.h). Works on the module-level parse of each input, and on the
// parse of those function bodies that mention a renamed symbol; the text changes only where a
// parsed identifier or declaration does, so everything else reaches the output byte for byte.
#include "ptx2amd/ptx-ir/Link.h"

#include "Builder.h"

#include "ptx2amd/ptx-ir/Reader.h"

#include <fmt/format.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/ADT/StringSet.h>

#include <algorithm>
#include <optional>

using namespace antlr4;
using llvm::StringMap;
using llvm::StringSet;

namespace ptx2amd::ir {
namespace {

using P = grammar::PtxParser;

/// How a declaration binds its name across modules.
enum class Bind : uint8_t {
  Internal, ///< no linkage directive: private to its module
  Extern,   ///< `.extern`: defined elsewhere
  Weak,     ///< `.weak` or `.common`: the first definition wins unless a strong one exists
  Strong,   ///< `.visible`
};

Bind bindOf(std::string_view Linkage) {
  if (Linkage.empty())
    return Bind::Internal;
  if (Linkage == ".extern")
    return Bind::Extern;
  if (Linkage == ".visible")
    return Bind::Strong;
  return Bind::Weak;
}

/// What becomes of a declaration in the linked text.
enum class Action : uint8_t {
  Keep,
  Declare, ///< becomes a declaration of the winning definition (which comes later)
  Drop,    ///< the winning definition came earlier
};

/// One module-level name declared or defined by a module item (a variable item declares one
/// name per declarator).
struct Decl {
  std::string_view Name;
  bool IsFunction = false;
  Bind B = Bind::Internal;
  bool IsDefinition = false;
  std::string_view Linkage; ///< the linkage directive's text, empty when internal
  SourceLoc Loc;
  size_t Item = 0;
  size_t Declarator = 0; ///< variables: position in the item's declarator list
  Action Act = Action::Keep;
};

struct Edit {
  size_t Offset, Size;
  std::string Text;
};

struct Unit {
  std::string Name;
  std::shared_ptr<const SourceText> Src;
  std::unique_ptr<grammar::ModuleParse> Parse;
  std::vector<P::ModuleItemContext *> Items;
  std::vector<Decl> Decls;
  StringMap<std::string> Renames; ///< internal names of this module that get a new name
  std::vector<Edit> Edits;        ///< renamed identifiers, by offset

  unsigned VersionMajor = 0, VersionMinor = 0, Sm = 0, AddressSize = 32;
  std::string_view Version;
  std::vector<std::string_view> Targets;
  bool SawVersion = false, SawTarget = false;
  SourceLoc AddressLoc{1, 1};

  std::string_view text(Token *T) const { return grammar::tokenText(Src->text(), T); }
  std::string_view text(tree::TerminalNode *T) const { return text(T->getSymbol()); }
};

size_t startOf(Token *T) { return T->getStartIndex(); }
size_t endOf(Token *T) { return T->getStopIndex() + 1; }
size_t startOf(ParserRuleContext *C) { return startOf(C->getStart()); }
size_t endOf(ParserRuleContext *C) { return endOf(C->getStop()); }

bool isHeader(P::ModuleItemContext *Item) {
  return Item->VERSION() || Item->TARGET() || Item->ADDRESS_SIZE();
}

std::string_view rtrim(std::string_view S) {
  while (!S.empty() &&
         (S.back() == ' ' || S.back() == '\t' || S.back() == '\n' || S.back() == '\r'))
    S.remove_suffix(1);
  return S;
}

/// Renames the identifiers of one module that name its renamed internal symbols: declarations and
/// initializers at module level, and references in function bodies unless a parameter, label or
/// local declaration of the same name shadows the module symbol there.
class Renamer {
public:
  explicit Renamer(Unit &U) : U(U) {}

  void item(P::ModuleItemContext *Item) {
    Scopes.clear();
    Labels.clear();
    walk(Item, 0, 0, false);
    if (auto *FD = Item->functionDecl(); FD && FD->BODY() && mentionsRenamed(FD->BODY()))
      body(FD);
  }

private:
  bool mentionsRenamed(tree::TerminalNode *Body) const {
    std::string_view Text = U.text(Body);
    for (const auto &R : U.Renames)
      if (Text.find(R.getKey()) != std::string_view::npos)
        return true;
    return false;
  }

  void body(P::FunctionDeclContext *FD) {
    auto Parse = grammar::parseBody(U.Src, grammar::PtxLexer::bodyRange(*FD->BODY()->getSymbol()));
    // A body that does not parse fails its function when the linked module is read; its
    // identifiers cannot be told apart here, so it is left as it is.
    if (!Parse->Tree)
      return;
    Scopes.emplace_back();
    for (auto *PL : FD->paramList())
      for (auto *PD : PL->paramDecl())
        if (auto *Id = PD->declarator()->IDENT())
          Scopes.back().insert(U.text(Id));
    collectLabels(Parse->Tree);
    walk(Parse->Tree, 0, 0, false);
  }

  void collectLabels(tree::ParseTree *N) {
    for (tree::ParseTree *C : N->children) {
      grammar::NodeKind K = grammar::classify(C);
      if (!K.Terminal)
        collectLabels(C);
      else if (K.Id == P::LABEL_DEF)
        Labels.insert(U.text(grammar::symbolOf(C)));
    }
  }

  /// \p KeyValue: the node is a child of a `name = value` initializer, whose identifiers are
  /// keys and values, not symbols.
  void walk(tree::ParseTree *N, size_t Parent, size_t Grand, bool KeyValue) {
    grammar::NodeKind K = grammar::classify(N);
    if (K.Terminal) {
      if (K.Id == P::BLOCK_OPEN)
        Scopes.emplace_back();
      else if (K.Id == P::BLOCK_CLOSE && Scopes.size() > 1)
        Scopes.pop_back();
      else if (K.Id == P::IDENT && !KeyValue)
        ident(grammar::symbolOf(N), Parent, Grand);
      return;
    }
    bool KV = false;
    if (K.Id == P::RuleInitializer)
      for (tree::ParseTree *C : N->children) {
        grammar::NodeKind CK = grammar::classify(C);
        KV |= CK.Terminal && CK.Id == P::EQUALS;
      }
    for (tree::ParseTree *C : N->children)
      walk(C, K.Id, Parent, KV);
  }

  void ident(Token *T, size_t Parent, size_t Grand) {
    std::string_view Name = U.text(T);
    const bool InBody = !Scopes.empty();
    if (Parent == P::RuleDeclarator) {
      if (Grand == P::RuleParamDecl)
        return; // a parameter's own name
      if (InBody) {
        Scopes.back().insert(Name); // a local declaration shadows the module symbol
        return;
      }
    } else if (InBody && shadowed(Name)) {
      return;
    }
    auto It = U.Renames.find(Name);
    if (It != U.Renames.end())
      U.Edits.push_back({startOf(T), Name.size(), It->second});
  }

  bool shadowed(std::string_view Name) const {
    if (Labels.contains(Name))
      return true;
    return std::any_of(Scopes.begin(), Scopes.end(),
                       [&](const StringSet<> &S) { return S.contains(Name); });
  }

  Unit &U;
  std::vector<StringSet<>> Scopes; ///< empty at module level
  StringSet<> Labels;
};

class Linker {
public:
  llvm::Expected<std::string> run(llvm::ArrayRef<LinkInput> Inputs) {
    Units.resize(Inputs.size());
    for (size_t K = 0; K < Inputs.size(); ++K)
      read(Units[K], Inputs[K]);
    if (!Diags.empty())
      return fail();
    resolve();
    if (!Diags.empty())
      return fail();
    rename();
    std::string Header = header();
    if (!Diags.empty())
      return fail();
    return emit(Header);
  }

private:
  llvm::Error fail() { return llvm::make_error<DiagnosticError>(std::move(Diags)); }

  void diag(const Unit &U, SourceLoc L, std::string Message,
            Diagnostic::Severity Sev = Diagnostic::Error) {
    Diagnostic D;
    D.Sev = Sev;
    D.File = U.Name;
    D.Loc = L;
    D.Message = std::move(Message);
    if (L.line)
      D.Text = sourceLine(U.Src->text(), L.line);
    Diags.push_back(std::move(D));
  }

  // ---- reading: header and module-level declarations of one module

  void read(Unit &U, const LinkInput &In) {
    U.Name = In.Name;
    U.Src = SourceText::borrow(In.Name, In.Text);
    U.Parse = grammar::parseModule(U.Src);
    if (!U.Parse->Tree) {
      diag(U, U.Parse->Error->Loc, U.Parse->Error->Message);
      return;
    }
    U.Items = U.Parse->Tree->moduleItem();
    std::vector<std::string_view> Aliases;
    for (size_t I = 0; I < U.Items.size(); ++I) {
      P::ModuleItemContext *Item = U.Items[I];
      if (Item->VERSION())
        version(U, Item);
      else if (Item->TARGET())
        target(U, Item);
      else if (Item->ADDRESS_SIZE()) {
        U.AddressLoc = grammar::tokenLoc(Item->getStart());
        if (llvm::StringRef(U.text(Item->INT())).getAsInteger(10, U.AddressSize))
          diag(U, U.AddressLoc, "malformed .address_size");
      } else if (auto *VD = Item->variableDecl()) {
        Decl D;
        for (auto *L : VD->LINKAGE())
          D.Linkage = U.text(L);
        D.B = bindOf(D.Linkage);
        D.IsDefinition = D.B != Bind::Extern;
        D.Item = I;
        auto Declarators = VD->declarator();
        for (size_t K = 0; K < Declarators.size(); ++K) {
          auto *Id = Declarators[K]->IDENT();
          if (!Id)
            continue; // not a symbol: the reader rejects it
          D.Name = U.text(Id);
          D.Loc = grammar::tokenLoc(Id->getSymbol());
          D.Declarator = K;
          U.Decls.push_back(D);
        }
      } else if (auto *FD = Item->functionDecl()) {
        Decl D;
        D.IsFunction = true;
        for (auto *L : FD->LINKAGE())
          D.Linkage = U.text(L);
        D.B = bindOf(D.Linkage);
        D.IsDefinition = FD->BODY() != nullptr;
        D.Name = U.text(FD->IDENT());
        D.Loc = grammar::tokenLoc(FD->IDENT()->getSymbol());
        D.Item = I;
        U.Decls.push_back(D);
      } else if (Item->ALIAS()) {
        Aliases.push_back(U.text(Item->IDENT(0)));
      }
    }
    // `.alias A, B` defines A, declared by a prototype.
    for (std::string_view A : Aliases)
      for (Decl &D : U.Decls)
        D.IsDefinition |= D.IsFunction && D.Name == A;
    if (!U.SawVersion)
      diag(U, {1, 1}, "missing .version directive");
    if (!U.SawTarget)
      diag(U, {1, 1}, "missing .target directive");
  }

  void version(Unit &U, P::ModuleItemContext *Item) {
    U.Version = U.text(Item->FLOAT() ? Item->FLOAT() : Item->INT());
    auto [Major, Minor] = llvm::StringRef(U.Version).split('.');
    if (Major.getAsInteger(10, U.VersionMajor) || Minor.getAsInteger(10, U.VersionMinor))
      diag(U, grammar::tokenLoc(Item->getStart()),
           fmt::format("malformed .version '{}'", U.Version));
    U.SawVersion = true;
  }

  void target(Unit &U, P::ModuleItemContext *Item) {
    U.SawTarget = true;
    for (auto *T : Item->IDENT()) {
      std::string_view Name = U.text(T);
      U.Targets.push_back(Name);
      // sm_90, sm_90a, sm_100f: the number is what orders architectures.
      llvm::StringRef Arch(Name);
      unsigned Sm = 0;
      if (Arch.consume_front("sm_") && !Arch.consumeInteger(10, Sm))
        U.Sm = std::max(U.Sm, Sm);
    }
  }

  // ---- resolution: which definition each external name binds to

  struct Symbol {
    size_t FirstUnit, FirstDecl; ///< the first external declaration, for messages
    std::optional<std::pair<size_t, size_t>> Winner;
  };

  Decl &decl(std::pair<size_t, size_t> Ref) { return Units[Ref.first].Decls[Ref.second]; }

  void resolve() {
    for (size_t UI = 0; UI < Units.size(); ++UI) {
      Unit &U = Units[UI];
      for (size_t DI = 0; DI < U.Decls.size(); ++DI) {
        Decl &D = U.Decls[DI];
        if (D.B == Bind::Internal)
          continue;
        auto [It, New] = External.try_emplace(D.Name, Symbol{UI, DI, std::nullopt});
        Symbol &S = It->second;
        const Decl &First = decl({S.FirstUnit, S.FirstDecl});
        if (First.IsFunction != D.IsFunction) {
          auto Kind = [](const Decl &X) { return X.IsFunction ? "a function" : "a variable"; };
          diag(U, D.Loc,
               fmt::format("'{}' is {} here but {} in '{}'", D.Name, Kind(D), Kind(First),
                           Units[S.FirstUnit].Name));
          diag(Units[S.FirstUnit], First.Loc, fmt::format("'{}' declared here", D.Name),
               Diagnostic::Note);
          continue;
        }
        if (!D.IsDefinition)
          continue;
        if (!S.Winner) {
          S.Winner = {UI, DI};
          continue;
        }
        const Decl &W = decl(*S.Winner);
        if (D.B == Bind::Strong && W.B == Bind::Strong) {
          const Unit &WU = Units[S.Winner->first];
          diag(U, D.Loc,
               fmt::format("'{}' is defined in both '{}' and '{}'", D.Name, WU.Name, U.Name));
          diag(WU, W.Loc, fmt::format("first definition of '{}'", D.Name), Diagnostic::Note);
        } else if (D.B == Bind::Strong) {
          S.Winner = {UI, DI};
        }
      }
    }
    // What each declaration becomes, now that every winner is known.
    for (size_t UI = 0; UI < Units.size(); ++UI)
      for (size_t DI = 0; DI < Units[UI].Decls.size(); ++DI) {
        Decl &D = Units[UI].Decls[DI];
        if (D.B == Bind::Internal)
          continue;
        const Symbol &S = External.find(D.Name)->second;
        if (!S.Winner || *S.Winner == std::pair(UI, DI))
          continue;
        const Decl &W = decl(*S.Winner);
        if (std::pair(UI, D.Item) >= std::pair(S.Winner->first, W.Item))
          D.Act = Action::Drop;
        else if (D.IsFunction ? D.IsDefinition || D.Linkage != W.Linkage : D.B != Bind::Extern)
          D.Act = Action::Declare;
      }
  }

  // ---- renaming: internal names that another module also uses

  void rename() {
    StringSet<> AllNames;
    StringMap<std::vector<size_t>> InternalIn; // name -> modules where it is internal, in order
    for (size_t UI = 0; UI < Units.size(); ++UI) {
      StringMap<bool> ExternalHere;
      for (const Decl &D : Units[UI].Decls) {
        AllNames.insert(D.Name);
        ExternalHere[D.Name] |= D.B != Bind::Internal;
      }
      // In declaration order, so that the result does not depend on hashing.
      for (const Decl &D : Units[UI].Decls) {
        auto It = ExternalHere.find(D.Name);
        if (It->second)
          continue;
        It->second = true; // listed once
        InternalIn[D.Name].push_back(UI);
      }
    }
    for (size_t UI = 0; UI < Units.size(); ++UI) {
      Unit &U = Units[UI];
      for (const Decl &D : U.Decls) {
        auto It = InternalIn.find(D.Name);
        if (It == InternalIn.end() || U.Renames.count(D.Name) ||
            !llvm::is_contained(It->second, UI))
          continue;
        const bool IsExternal = External.count(D.Name) != 0;
        if (!IsExternal && (It->second.size() == 1 || It->second.front() == UI))
          continue; // unique, or the first module's: keeps its name
        std::string New = fmt::format("{}_ptx2amd{}", D.Name, UI + 1);
        while (AllNames.contains(New))
          New += '_';
        AllNames.insert(New);
        U.Renames[D.Name] = std::move(New);
      }
      if (U.Renames.empty())
        continue;
      Renamer R(U);
      for (P::ModuleItemContext *Item : U.Items)
        if (!isHeader(Item))
          R.item(Item);
      llvm::sort(U.Edits, [](const Edit &A, const Edit &B) { return A.Offset < B.Offset; });
    }
  }

  // ---- output

  std::string header() {
    const Unit *Version = &Units[0], *Target = &Units[0];
    for (const Unit &U : Units) {
      if (std::pair(U.VersionMajor, U.VersionMinor) >
          std::pair(Version->VersionMajor, Version->VersionMinor))
        Version = &U;
      if (U.Sm > Target->Sm)
        Target = &U;
      if (U.AddressSize != Units[0].AddressSize)
        diag(U, U.AddressLoc,
             fmt::format(".address_size {} differs from .address_size {} of '{}'", U.AddressSize,
                         Units[0].AddressSize, Units[0].Name));
    }
    std::string Targets;
    for (std::string_view T : Target->Targets)
      Targets += (Targets.empty() ? "" : ", ") + std::string(T);
    return fmt::format(".version {}\n.target {}\n.address_size {}\n", Version->Version, Targets,
                       Units[0].AddressSize);
  }

  std::string emit(const std::string &Header) {
    // Names stay out of the text: they may hold addresses, and the text is a cache key.
    std::string Out =
        fmt::format("// Linked by ptx2amd from {} PTX modules\n", Units.size()) + Header;
    for (size_t UI = 0; UI < Units.size(); ++UI) {
      Unit &U = Units[UI];
      std::string_view Text = U.Src->text();
      Out += fmt::format("\n// ---- module {}\n", UI + 1);
      // Decls by item, in order.
      std::vector<std::vector<const Decl *>> ByItem(U.Items.size());
      for (const Decl &D : U.Decls)
        ByItem[D.Item].push_back(&D);
      size_t Pos = 0;
      for (size_t I = 0; I < U.Items.size(); ++I) {
        P::ModuleItemContext *Item = U.Items[I];
        size_t Begin = startOf(Item), End = endOf(Item);
        Out += Text.substr(Pos, Begin - Pos); // comments and white space
        Pos = End;
        if (!isHeader(Item))
          Out += item(U, Item, ByItem[I]);
      }
      Out += Text.substr(Pos);
      if (!Out.empty() && Out.back() != '\n')
        Out += '\n';
    }
    return Out;
  }

  /// The text of [Begin, End) of \p U with its renamed identifiers.
  std::string render(const Unit &U, size_t Begin, size_t End) {
    std::string_view Text = U.Src->text();
    std::string S;
    auto It = std::lower_bound(U.Edits.begin(), U.Edits.end(), Begin,
                               [](const Edit &E, size_t Off) { return E.Offset < Off; });
    for (; It != U.Edits.end() && It->Offset < End; ++It) {
      S += Text.substr(Begin, It->Offset - Begin);
      S += It->Text;
      Begin = It->Offset + It->Size;
    }
    S += Text.substr(Begin, End - Begin);
    return S;
  }

  std::string item(const Unit &U, P::ModuleItemContext *Item, llvm::ArrayRef<const Decl *> Decls) {
    size_t Begin = startOf(Item), End = endOf(Item);
    if (llvm::all_of(Decls, [](const Decl *D) { return D->Act == Action::Keep; }))
      return render(U, Begin, End);
    if (auto *FD = Item->functionDecl()) {
      const Decl &D = *Decls.front();
      if (D.Act == Action::Drop)
        return "";
      // A prototype of the winning definition: its linkage, no body.
      Token *Kind = FD->ENTRY() ? FD->ENTRY()->getSymbol() : FD->FUNC()->getSymbol();
      const Decl &W = winner(D);
      return std::string(W.Linkage) + " " +
             std::string(rtrim(render(U, startOf(Kind), startOf(FD->getStop())))) + ";";
    }
    // A variable item: one declaration per remaining declarator.
    P::VariableDeclContext *VD = Item->variableDecl();
    auto Declarators = VD->declarator();
    size_t Space = startOf(VD->SPACE()->getSymbol());
    std::string Linkage = render(U, Begin, Space);
    std::string Prefix = render(U, Space, startOf(Declarators.front()));
    std::vector<Action> Acts(Declarators.size(), Action::Keep);
    for (const Decl *D : Decls)
      Acts[D->Declarator] = D->Act;
    std::string S;
    for (size_t K = 0; K < Declarators.size(); ++K) {
      P::DeclaratorContext *DC = Declarators[K];
      if (Acts[K] == Action::Drop)
        continue;
      if (!S.empty())
        S += "\n";
      if (Acts[K] == Action::Keep) {
        S += Linkage + Prefix + render(U, startOf(DC), endOf(DC)) + ";";
        continue;
      }
      size_t InitAt = DC->EQUALS() ? startOf(DC->EQUALS()->getSymbol()) : endOf(DC);
      S += ".extern " + Prefix + std::string(rtrim(render(U, startOf(DC), InitAt))) + ";";
    }
    return S;
  }

  const Decl &winner(const Decl &D) { return decl(*External.find(D.Name)->second.Winner); }

  std::vector<Unit> Units;
  StringMap<Symbol> External; ///< names with linkage (.visible, .extern, .weak, .common)
  std::vector<Diagnostic> Diags;
};

} // namespace

llvm::Expected<std::string> linkModules(llvm::ArrayRef<LinkInput> Inputs) {
  if (Inputs.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "no PTX modules to link");
  return Linker().run(Inputs);
}

} // namespace ptx2amd::ir
