// `ptx2amd parse` and `ptx2amd dump-ir`.
#include "Commands.h"

#include "ptx2amd/ptx-ir/Printer.h"
#include "ptx2amd/ptx-ir/Reader.h"

#include <fmt/format.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include <chrono>

namespace ptx2amd::tool {
namespace {

llvm::Expected<std::shared_ptr<const SourceText>> loadSource(const std::string &Path) {
  auto Buf =
      llvm::MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), "cannot read '%s': %s", Path.c_str(),
                                   Buf.getError().message().c_str());
  return std::make_shared<const SourceText>(Path == "-" ? "<stdin>" : Path,
                                            std::string((*Buf)->getBuffer()));
}

bool parseUnsigned(const std::string &S, unsigned &Out) {
  if (S.empty() || S.size() > 6 || S.find_first_not_of("0123456789") != std::string::npos)
    return false;
  Out = static_cast<unsigned>(std::stoul(S));
  return true;
}

const char ParseHelp[] =
    R"(usage: ptx2amd parse [options] FILE...

Parses each PTX file (or '-' for standard input), builds its SSA IR and verifies it. Prints every
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

Prints the IR of a PTX file (or '-' for standard input).

options:
  --ptx             print PTX text again instead of the SSA form
  --function NAME   print only this function (or kernel)
  -o FILE           write to FILE instead of standard output

exit status: 0 when everything built, 1 when the module or a function failed, 2 on usage errors.
)";

} // namespace

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
    auto Src = loadSource(Path);
    if (!Src) {
      printError(llvm::toString(Src.takeError()));
      Status = 1;
      continue;
    }
    auto T0 = std::chrono::steady_clock::now();
    auto M = ir::readModule(*Src, Opts);
    double Secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
    if (!M) {
      llvm::errs() << llvm::toString(M.takeError()) << "\n";
      Status = 1;
      continue;
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
    if (Failed)
      Status = 1;
    if (Stats)
      llvm::outs() << fmt::format("{}: {} kernels, {} functions, {} failed, {} blocks, {} "
                                  "instructions, {:.1f} ms, {:.1f} MB/s\n",
                                  Path, Kernels, Funcs, Failed, Blocks, Insts, Secs * 1e3,
                                  (*Src)->text().size() / 1e6 / std::max(Secs, 1e-9));
    else if (!Quiet && !Failed)
      llvm::outs() << fmt::format("{}: ok ({} kernels, {} functions)\n", Path, Kernels, Funcs);
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
  auto Src = loadSource(File);
  if (!Src) {
    printError(llvm::toString(Src.takeError()));
    return 1;
  }
  ir::ReadOptions Opts;
  Opts.Lazy = !Only.empty();
  auto M = ir::readModule(*Src, Opts);
  if (!M) {
    llvm::errs() << llvm::toString(M.takeError()) << "\n";
    return 1;
  }
  std::error_code EC;
  llvm::raw_fd_ostream OS(Out.empty() ? "-" : Out, EC);
  if (EC) {
    printError(fmt::format("cannot write '{}': {}", Out, EC.message()));
    return 1;
  }
  int Status = 0;
  if (!Only.empty()) {
    ir::Function *F = (*M)->function(Only);
    if (!F) {
      printError(fmt::format("no function named '{}' in '{}'", Only, File));
      return 1;
    }
    ir::buildFunction(**M, *F);
    ir::printFunction(OS, **M, *F, Mode);
    if (F->St == ir::Function::State::Failed)
      Status = 1;
  } else {
    ir::printModule(OS, **M, Mode);
    for (const auto &F : (*M)->Functions)
      if (F->St == ir::Function::State::Failed)
        Status = 1;
  }
  for (const auto &F : (*M)->Functions)
    for (const ir::Diagnostic &D : F->Diags)
      llvm::errs() << D.str() << "\n";
  return Status;
}

} // namespace ptx2amd::tool
