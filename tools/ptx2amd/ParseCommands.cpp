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

namespace parse_opts {
#define PTX2AMD_OPTIONS "ParseOptions.inc"
#include "OptionTable.def"
} // namespace parse_opts

namespace dump_opts {
#define PTX2AMD_OPTIONS "DumpIROptions.inc"
#include "OptionTable.def"
} // namespace dump_opts

const CommandHelp ParseHelp = {
    "parse", "ptx2amd parse [options] FILE...",
    R"(Parses each PTX file (or '-' for standard input; or every PTX entry of a
CUDA binary, fatbin or cubin), builds its SSA IR and verifies it. Prints every diagnostic as
file:line:column: error: in function 'f': message. A function with an error fails alone; the rest
of its module is still built.)",
    "EXIT STATUS: 0 when every file and function built cleanly, 1 otherwise, 2 on usage errors.\n"};

const CommandHelp DumpHelp = {
    "dump-ir", "ptx2amd dump-ir [options] FILE",
    "Prints the IR of a PTX file (or '-' for standard input), or of every PTX entry of a CUDA\n"
    "binary.",
    "EXIT STATUS: 0 when everything built, 1 when the module or a function failed, 2 on usage\n"
    "errors.\n"};

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

int runParse(llvm::ArrayRef<std::string> Argv) {
  using namespace parse_opts;
  int Exit = 0;
  auto Args = parseCommandLine(table(), OPT_help, ParseHelp, Argv, Exit);
  if (!Args)
    return Exit;
  ir::ReadOptions Opts;
  if (const llvm::opt::Arg *A = Args->getLastArg(OPT_j)) {
    std::optional<unsigned> N = numberArg(ParseHelp, *A);
    if (!N)
      return 2;
    Opts.Threads = *N;
  }
  Opts.Verify = !Args->hasArg(OPT_no_verify);
  const bool Stats = Args->hasArg(OPT_stats), Quiet = Args->hasArg(OPT_quiet);
  const std::vector<std::string> Files = Args->getAllArgValues(OPT_INPUT);
  if (Files.empty())
    return usageError(ParseHelp, "no input files");
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

int runDumpIR(llvm::ArrayRef<std::string> Argv) {
  using namespace dump_opts;
  int Exit = 0;
  auto Args = parseCommandLine(table(), OPT_help, DumpHelp, Argv, Exit);
  if (!Args)
    return Exit;
  const ir::PrintMode Mode = Args->hasArg(OPT_ptx) ? ir::PrintMode::PTX : ir::PrintMode::SSA;
  const std::string Only = Args->getLastArgValue(OPT_function).str();
  const std::string Out = Args->getLastArgValue(OPT_o).str();
  const std::vector<std::string> Inputs = Args->getAllArgValues(OPT_INPUT);
  if (Inputs.empty())
    return usageError(DumpHelp, "no input file");
  if (Inputs.size() > 1)
    return usageError(DumpHelp, "dump-ir takes one input file");
  const std::string &File = Inputs.front();
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
