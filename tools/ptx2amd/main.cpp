#include "Commands.h"

#include <fmt/format.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdio>
#include <vector>

using namespace ptx2amd::tool;

namespace {

namespace main_opts {
#define PTX2AMD_OPTIONS "MainOptions.inc"
#include "OptionTable.def"
} // namespace main_opts

struct Command {
  const char *Name;
  int (*Run)(llvm::ArrayRef<std::string>);
  const char *Help;
};

const Command Commands[] = {
    {"parse", runParse, "parse PTX files, build and verify their IR, report diagnostics"},
    {"dump-ir", runDumpIR, "print the SSA IR (or, with --ptx, PTX again) of a PTX file"},
    {"list", runList, "list the entries of CUDA binaries, fatbins and cubins"},
    {"extract", runExtract, "write the PTX and cubin entries of a CUDA binary to a folder"},
    {"compile", runCompile, "translate PTX to AMDGPU LLVM IR, assembly or code objects"},
    {"check", runCheck, "report which kernels translate and why the others do not"},
    {"cache", runCache, "show or clear the JIT cache"},
    {"run", runRun, "run a CUDA program with ptx2amd's CUDA libraries"},
    {"aot", runAot, "translate the kernels of programs and their CUDA libraries ahead of time"},
    {"env", runEnv, "print the shell lines that do what 'run' does, for a whole session"},
};

const std::string &commandList() {
  static const std::string List = [] {
    std::string S = "COMMANDS:\n";
    for (const Command &C : Commands)
      S += fmt::format("  {:<10} {}\n", C.Name, C.Help);
    return S + "\n'ptx2amd <command> --help' describes a command's options.\n";
  }();
  return List;
}

const CommandHelp MainHelp = {
    "", "ptx2amd <command> [options] FILE...",
    "runs CUDA programs from their PTX, and translates it to AMDGPU code objects", commandList()};

void printUsage(const main_opts::Table &Table, llvm::raw_ostream &OS) {
  Table.printHelp(OS, MainHelp.Usage, MainHelp.Overview);
  OS << "\n" << MainHelp.Epilogue;
}

} // namespace

void ptx2amd::tool::printError(const std::string &Message) {
  std::fprintf(stderr, "ptx2amd: error: %s\n", Message.c_str());
}

int main(int argc, char **argv) {
  const main_opts::Table &Table = main_opts::table();
  if (argc < 2) {
    printUsage(Table, llvm::errs());
    return 2;
  }
  std::vector<std::string> Args(argv + 1, argv + argc);
  // Options before a command are ptx2amd's own.
  if (llvm::StringRef(Args[0]).starts_with("-") && Args[0] != "-") {
    int Exit = 0;
    auto List = parseCommandLine(Table, main_opts::OPT_help, MainHelp, Args, Exit);
    if (!List)
      return Exit;
    if (List->hasArg(main_opts::OPT_version)) {
      std::printf("ptx2amd 0.1.0\n");
      return 0;
    }
    return usageError(MainHelp, "options go after the command");
  }
  if (Args[0] == "help") {
    printUsage(Table, llvm::outs());
    return 0;
  }
  for (const Command &C : Commands)
    if (Args[0] == C.Name)
      return C.Run(llvm::ArrayRef(Args).drop_front());
  return usageError(MainHelp, fmt::format("unknown command '{}'", Args[0]));
}
