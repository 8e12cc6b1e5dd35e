// `ptx2amd parse` and `ptx2amd dump-ir`.
#include "Commands.h"

#include "ptx2amd/fatbin/AllPtx.h"
#include "ptx2amd/ptx-ir/Printer.h"
#include "ptx2amd/ptx-ir/Reader.h"

#include <fmt/format.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <chrono>

namespace ptx2amd::tool {
llvm::Expected<std::vector<std::shared_ptr<const SourceText>>>
loadSources(const std::string &Path) {
  auto Texts = fatbin::readAllPtx(Path);
  if (!Texts)
    return Texts.takeError();
  std::vector<std::shared_ptr<const SourceText>> Out;
  for (auto &T : *Texts)
    Out.push_back(std::make_shared<const SourceText>(std::move(T.Name), std::move(T.Text)));
  return Out;
}

namespace {

bool parseUnsigned(const std::string &S, unsigned &Out) {
  if (S.empty() || S.size() > 6 || S.find_first_not_of("0123456789") != std::string::npos)
    return false;
  Out = static_cast<unsigned>(std::stoul(S));
  return true;
}

const char ParseHelp[] =
    R"(usage: ptx2amd parse [options] FILE...

Parses each PTX file (or '-' for standard input; or every PTX entry of a CUDA binary, fatbin or
cubin), builds its SSA IR and verifies it. Prints every
diagnostic as file:line:column: error: in function 'f': message. A function with an error fails
alone; the rest of its module is still built.

options:
  -j, --threads N   build function bodies on N threads (0 = all cores; default 1)
  --no-verify       skip the IR verifier
  --stats           print per-file counts (functions, kernels, blocks, instructions) and MB/s
  -q, --quiet       print nothing but diagnostics

exit status: 0 when every file and function built cleanly, 1 otherwise, 2 on usage errors.
)";

const char DumpHelp[] =
    R"(usage: ptx2amd dump-ir [options] FILE

Prints the IR of a PTX file (or '-' for standard input), or of every PTX entry of a CUDA binary.

options:
  --ptx             print PTX text again instead of the SSA form
  --function NAME   print only this function (or kernel)
  -o FILE           write to FILE instead of standard output

exit status: 0 when everything built, 1 when the module or a function failed, 2 on usage errors.
)";

} // namespace

/// Reads and builds one module and reports on it; returns 1 when anything failed.
int parseOne(const std::shared_ptr<const SourceText> &Src, const ir::ReadOptions &Opts, bool Stats,
             bool Quiet) {
  const std::string &Name = Src->name();
  auto T0 = std::chrono::steady_clock::now();
  auto M = ir::readModule(Src, Opts);
  double Secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
  if (!M) {
    llvm::errs() << llvm::toString(M.takeError()) << "\n";
    return 1;
  }
  size_t Kernels = 0, Funcs = 0, Failed = 0, Blocks = 0, Insts = 0;
  for (const auto &F : (*M)->Functions) {
    if (!F->isDefinition())
      continue;
    (F->IsKernel ? Kernels : Funcs)++;
    if (F->St == ir::Function::State::Failed) {
      ++Failed;
      for (const ir::Diagnostic &D : F->Diags)
        llvm::errs() << D.str() << "\n";
      continue;
    }
    Blocks += F->Blocks.size();
    for (const ir::Block &B : F->Blocks)
      Insts += B.Insts.size();
  }
  if (Stats)
    llvm::outs() << fmt::format("{}: {} kernels, {} functions, {} failed, {} blocks, {} "
                                "instructions, {:.1f} ms, {:.1f} MB/s\n",
                                Name, Kernels, Funcs, Failed, Blocks, Insts, Secs * 1e3,
                                Src->text().size() / 1e6 / std::max(Secs, 1e-9));
  else if (!Quiet && !Failed)
    llvm::outs() << fmt::format("{}: ok ({} kernels, {} functions)\n", Name, Kernels, Funcs);
  return Failed ? 1 : 0;
}

int runParse(llvm::ArrayRef<std::string> Args) {
  ir::ReadOptions Opts;
  bool Stats = false, Quiet = false;
  std::vector<std::string> Files;
  for (size_t K = 0; K < Args.size(); ++K) {
    const std::string &A = Args[K];
    if (A == "-h" || A == "--help") {
      std::fputs(ParseHelp, stdout);
      return 0;
    } else if (A.rfind("-j", 0) == 0 && A.size() > 2) {
      if (!parseUnsigned(A.substr(2), Opts.Threads)) {
        printError(fmt::format("'{}' needs a number", A));
        return 2;
      }
    } else if (A == "-j" || A == "--threads") {
      if (K + 1 >= Args.size() || !parseUnsigned(Args[K + 1], Opts.Threads)) {
        printError(fmt::format("'{}' needs a number", A));
        return 2;
      }
      ++K;
    } else if (A == "--no-verify") {
      Opts.Verify = false;
    } else if (A == "--stats") {
      Stats = true;
    } else if (A == "-q" || A == "--quiet") {
      Quiet = true;
    } else if (A.size() > 1 && A[0] == '-') {
      printError(fmt::format("unknown option '{}' (see 'ptx2amd parse --help')", A));
      return 2;
    } else {
      Files.push_back(A);
    }
  }
  if (Files.empty()) {
    printError("no input files (see 'ptx2amd parse --help')");
    return 2;
  }
  int Status = 0;
  for (const std::string &Path : Files) {
    auto Sources = loadSources(Path);
    if (!Sources) {
      printError(llvm::toString(Sources.takeError()));
      Status = 1;
      continue;
    }
    if (Sources->empty() && !Quiet)
      llvm::outs() << fmt::format("{}: no PTX\n", Path);
    for (const auto &Src : *Sources)
      Status |= parseOne(Src, Opts, Stats, Quiet);
  }
  return Status;
}

int runDumpIR(llvm::ArrayRef<std::string> Args) {
  ir::PrintMode Mode = ir::PrintMode::SSA;
  std::string Only, Out, File;
  for (size_t K = 0; K < Args.size(); ++K) {
    const std::string &A = Args[K];
    if (A == "-h" || A == "--help") {
      std::fputs(DumpHelp, stdout);
      return 0;
    } else if (A == "--ptx") {
      Mode = ir::PrintMode::PTX;
    } else if (A == "--function" || A == "-o") {
      if (K + 1 >= Args.size()) {
        printError(fmt::format("'{}' needs an argument", A));
        return 2;
      }
      (A == "-o" ? Out : Only) = Args[++K];
    } else if (A.size() > 1 && A[0] == '-') {
      printError(fmt::format("unknown option '{}' (see 'ptx2amd dump-ir --help')", A));
      return 2;
    } else if (File.empty()) {
      File = A;
    } else {
      printError("dump-ir takes one input file");
      return 2;
    }
  }
  if (File.empty()) {
    printError("no input file (see 'ptx2amd dump-ir --help')");
    return 2;
  }
  auto Sources = loadSources(File);
  if (!Sources) {
    printError(llvm::toString(Sources.takeError()));
    return 1;
  }
  if (Sources->empty()) {
    printError(fmt::format("'{}' holds no PTX", File));
    return 1;
  }
  std::error_code EC;
  llvm::raw_fd_ostream OS(Out.empty() ? "-" : Out, EC);
  if (EC) {
    printError(fmt::format("cannot write '{}': {}", Out, EC.message()));
    return 1;
  }
  int Status = 0;
  bool Found = Only.empty();
  for (const auto &Src : *Sources) {
    ir::ReadOptions Opts;
    Opts.Lazy = !Only.empty();
    auto M = ir::readModule(Src, Opts);
    if (!M) {
      llvm::errs() << llvm::toString(M.takeError()) << "\n";
      Status = 1;
      continue;
    }
    if (!Only.empty()) {
      ir::Function *F = (*M)->function(Only);
      if (!F)
        continue;
      Found = true;
      ir::buildFunction(**M, *F);
      ir::printFunction(OS, **M, *F, Mode);
      for (const ir::Diagnostic &D : F->Diags)
        llvm::errs() << D.str() << "\n";
      Status |= F->St == ir::Function::State::Failed;
      continue;
    }
    ir::printModule(OS, **M, Mode);
    for (const auto &F : (*M)->Functions) {
      Status |= F->St == ir::Function::State::Failed;
      for (const ir::Diagnostic &D : F->Diags)
        llvm::errs() << D.str() << "\n";
    }
  }
  if (!Found) {
    printError(fmt::format("no function named '{}' in '{}'", Only, File));
    return 1;
  }
  return Status;
}

} // namespace ptx2amd::tool
