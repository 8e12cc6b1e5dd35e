#include "ptx2amd/ptx-ir/Reader.h"

#include "Builder.h"
#include "ptx2amd/ptx-ir/Verifier.h"

#include <fmt/format.h>
#include <llvm/Support/ThreadPool.h>
#include <llvm/Support/Threading.h>

namespace ptx2amd::ir {

char DiagnosticError::ID = 0;

void DiagnosticError::log(llvm::raw_ostream &OS) const {
  for (size_t K = 0; K < Diags.size(); ++K)
    OS << (K ? "\n" : "") << Diags[K].str();
}

std::string Diagnostic::str() const {
  std::string S = File;
  if (Loc.line)
    S += fmt::format(":{}:{}", Loc.line, Loc.column);
  S += Sev == Error ? ": error: " : Sev == Warning ? ": warning: " : ": note: ";
  if (!Function.empty())
    S += fmt::format("in function '{}': ", Function);
  S += Message;
  if (!Text.empty()) {
    std::string T = Text;
    for (char &C : T)
      if (C == '\n' || C == '\r' || C == '\t')
        C = ' ';
    S += "\n    " + T;
  }
  return S;
}

uint64_t Variable::sizeInBytes() const {
  uint64_t N = std::max(1u, typeBits(Ty) / 8) * std::max<uint64_t>(1, VecWidth);
  for (uint64_t D : Dims)
    N *= D;
  return N;
}

void Function::dropBody() {
  if (St != State::Built && St != State::Failed)
    return;
  Vars = {};
  Locals = {};
  Blocks = {};
  Values = {};
  Prototypes = {};
  Tables = {};
  Diags = {};
  St = State::Unparsed;
}

Function *Module::function(std::string_view Name) {
  auto It = Symbols.find(Name);
  return It == Symbols.end() || It->second.K != SymbolRef::Function
             ? nullptr
             : Functions[It->second.Index].get();
}

const Variable *Module::global(std::string_view Name) const {
  auto It = Symbols.find(Name);
  return It == Symbols.end() || It->second.K != SymbolRef::Global ? nullptr
                                                                  : &Globals[It->second.Index];
}

bool buildFunction(const Module &M, Function &F, bool Verify) {
  if (F.St == Function::State::Built)
    return true;
  if (F.St != Function::State::Unparsed)
    return F.St != Function::State::Failed;
  {
    auto P = grammar::parseBody(M.Source, F.Body);
    buildBody(M, F, *P);
  } // the parse tree is gone before the next function is parsed
  if (F.St == Function::State::Built && Verify) {
    auto Problems = verifyFunction(M, F);
    if (!Problems.empty()) {
      F.dropBody();
      F.Diags = std::move(Problems);
      F.St = Function::State::Failed;
    }
  }
  return F.St == Function::State::Built;
}

void buildAll(Module &M, unsigned Threads, bool Verify) {
  unsigned N = Threads ? Threads : llvm::hardware_concurrency().compute_thread_count();
  std::vector<Function *> Todo;
  for (auto &F : M.Functions)
    if (F->St == Function::State::Unparsed)
      Todo.push_back(F.get());
  if (N <= 1 || Todo.size() <= 1) {
    for (Function *F : Todo)
      buildFunction(M, *F, Verify);
    return;
  }
  llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(N));
  for (Function *F : Todo)
    Pool.async([&M, F, Verify] { buildFunction(M, *F, Verify); });
  Pool.wait();
}

llvm::Expected<std::unique_ptr<Module>> readModule(std::shared_ptr<const SourceText> Source,
                                                   const ReadOptions &Opts) {
  auto M = std::make_unique<Module>();
  M->Source = Source;
  {
    auto P = grammar::parseModule(Source);
    if (P->Error) {
      Diagnostic D;
      D.File = Source->name();
      D.Loc = P->Error->Loc;
      D.Message = P->Error->Message;
      D.Text = sourceLine(Source->text(), D.Loc.line);
      return llvm::make_error<DiagnosticError>(std::vector<Diagnostic>{std::move(D)});
    }
    auto Diags = buildModuleHeader(*M, *P);
    if (!Diags.empty())
      return llvm::make_error<DiagnosticError>(std::move(Diags));
  }
  if (!Opts.Lazy)
    buildAll(*M, Opts.Threads, Opts.Verify);
  return M;
}

} // namespace ptx2amd::ir
