// The command line's one way of reading options: LLVM's Option library over the tables that
// llvm-tblgen makes of options/*.td, and the usage errors every command reports alike.
#include "Commands.h"

#include "ptx2amd/amdgpu-backend/Target.h"

#include <fmt/format.h>
#include <llvm/Support/raw_ostream.h>

namespace ptx2amd::tool {

int usageError(const CommandHelp &Help, const std::string &Message) {
  printError(
      fmt::format("{} (see 'ptx2amd {}{}--help')", Message, Help.Name, *Help.Name ? " " : ""));
  return 2;
}

std::optional<llvm::opt::InputArgList> parseCommandLine(const llvm::opt::OptTable &Table,
                                                        unsigned HelpID, const CommandHelp &Help,
                                                        llvm::ArrayRef<std::string> Args,
                                                        int &Exit) {
  std::vector<const char *> Argv;
  for (const std::string &A : Args)
    Argv.push_back(A.c_str());
  unsigned MissingIndex = 0, MissingCount = 0;
  llvm::opt::InputArgList List = Table.ParseArgs(Argv, MissingIndex, MissingCount);
  // --help answers whatever else is there, as it always has.
  if (List.hasArg(HelpID)) {
    Table.printHelp(llvm::outs(), Help.Usage, Help.Overview);
    if (!Help.Epilogue.empty())
      llvm::outs() << "\n" << Help.Epilogue;
    Exit = 0;
    return std::nullopt;
  }
  Exit = 2;
  // The first unknown option, as the hand-written parsers reported it, with a near spelling.
  for (const llvm::opt::Arg *A : List)
    if (A->getOption().getKind() == llvm::opt::Option::UnknownClass) {
      std::string Spelled = List.getArgString(A->getIndex()), Nearest;
      std::string Message = fmt::format("unknown option '{}'", Spelled);
      if (Table.findNearest(Spelled, Nearest) <= 1)
        Message += fmt::format("; did you mean '{}'?", Nearest);
      usageError(Help, Message);
      return std::nullopt;
    }
  if (MissingCount) {
    usageError(Help, fmt::format("'{}' needs an argument", List.getArgString(MissingIndex)));
    return std::nullopt;
  }
  return List;
}

std::optional<unsigned> numberArg(const CommandHelp &Help, const llvm::opt::Arg &A, unsigned Min) {
  unsigned N = 0;
  // getAsInteger rejects signs, spaces, trailing text and values that overflow.
  if (llvm::StringRef(A.getValue()).getAsInteger(10, N) || N < Min) {
    // Named as typed: an alias (--threads) keeps its own spelling there.
    const llvm::opt::Arg &Typed = A.getAlias() ? *A.getAlias() : A;
    usageError(Help, fmt::format("{} takes a {}number, not '{}'", Typed.getSpelling(),
                                 Min ? "positive " : "", A.getValue()));
    return std::nullopt;
  }
  return N;
}

std::optional<std::vector<const amdgpu::Target *>>
targetArgs(const CommandHelp &Help, const llvm::opt::InputArgList &Args, unsigned ArchID) {
  std::vector<const amdgpu::Target *> Targets;
  for (const llvm::opt::Arg *A : Args.filtered(ArchID)) {
    const amdgpu::Target *T = amdgpu::findTarget(A->getValue());
    if (!T) {
      usageError(Help, fmt::format("unknown target '{}' (known: {})", A->getValue(),
                                   amdgpu::knownTargetNames()));
      return std::nullopt;
    }
    Targets.push_back(T);
  }
  return Targets;
}

} // namespace ptx2amd::tool
