// The module header: version, target, address size, module-scope variables, function signatures
// and the ranges of their bodies.
#include "Builder.h"
#include "Declarations.h"

#include <llvm/ADT/StringRef.h>

#include <cctype>

namespace ptx2amd::ir {

using namespace build;

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
        for (auto *T : Item->IDENT()) {
          std::string_view Name = B.text(T);
          // sm_NN with an optional a/f suffix; the number names an architecture, so it is small.
          if (Name.substr(0, 3) == "sm_") {
            std::string_view Digits = Name.substr(3);
            while (!Digits.empty() && !std::isdigit(static_cast<unsigned char>(Digits.back())))
              Digits.remove_suffix(1);
            if (Digits.empty() || Digits.size() > 4 ||
                Digits.find_first_not_of("0123456789") != std::string_view::npos)
              throw BuildError{B.loc(T), fmt::format("invalid target '{}'", Name)};
          }
          M.Target.emplace_back(Name);
        }
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

} // namespace ptx2amd::ir
