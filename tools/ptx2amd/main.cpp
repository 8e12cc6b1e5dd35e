#include "Commands.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <vector>

using namespace ptx2amd::tool;

namespace {

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
};

void usage(FILE *Out) {
  std::fprintf(Out, "usage: ptx2amd <command> [options] FILE...\n\ncommands:\n");
  for (const Command &C : Commands)
    std::fprintf(Out, "  %-10s %s\n", C.Name, C.Help);
  std::fprintf(Out, "\n'ptx2amd <command> --help' describes a command's options.\n");
}

} // namespace

void ptx2amd::tool::printError(const std::string &Message) {
  std::fprintf(stderr, "ptx2amd: error: %s\n", Message.c_str());
}

int main(int argc, char **argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  std::string Name = argv[1];
  if (Name == "-h" || Name == "--help" || Name == "help") {
    usage(stdout);
    return 0;
  }
  if (Name == "--version") {
    std::printf("ptx2amd 0.1.0\n");
    return 0;
  }
  std::vector<std::string> Args(argv + 2, argv + argc);
  for (const Command &C : Commands)
    if (Name == C.Name)
      return C.Run(Args);
  printError(fmt::format("unknown command '{}'", Name));
  usage(stderr);
  return 2;
}
