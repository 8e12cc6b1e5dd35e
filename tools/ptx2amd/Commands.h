// Subcommands of the ptx2amd command line; each takes the arguments after its name and returns
// the process exit code (0 success, 1 failure of the input, 2 usage error).
#pragma once

#include "ptx2amd/ptx-grammar/Source.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/Option/ArgList.h>
#include <llvm/Option/OptTable.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBufferRef.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ptx2amd::amdgpu {
struct Target;
}

namespace ptx2amd::tool {

int runParse(llvm::ArrayRef<std::string> Args);
int runDumpIR(llvm::ArrayRef<std::string> Args);
int runList(llvm::ArrayRef<std::string> Args);
int runExtract(llvm::ArrayRef<std::string> Args);
int runCompile(llvm::ArrayRef<std::string> Args);
int runCheck(llvm::ArrayRef<std::string> Args);
int runCache(llvm::ArrayRef<std::string> Args);
int runRun(llvm::ArrayRef<std::string> Args);
int runEnv(llvm::ArrayRef<std::string> Args);
int runAot(llvm::ArrayRef<std::string> Args);

/// The PTX modules of a file: the file itself when it is PTX text, or every PTX entry of a CUDA
/// binary (fatbin, cubin, executable, library, object).
llvm::Expected<std::vector<std::shared_ptr<const SourceText>>> loadSources(const std::string &Path);

/// A module linked from the per-TU PTX modules of relocatable device code (nvcc -rdc).
struct RdcModule {
  std::shared_ptr<const SourceText> Linked; ///< named "<file>: -rdc link of N modules"
  std::vector<std::string> Parts; ///< the PTX entries it replaces, named as loadSources names them
};

/// The -rdc registration units of a CUDA binary, each linked into one module; none for PTX text
/// and for binaries without relocatable device code.
llvm::Expected<std::vector<RdcModule>> linkRdcModules(llvm::MemoryBufferRef Bytes);

/// loadSources(), with the per-TU modules of each -rdc registration unit replaced by their
/// linked module (in the place of the first).
llvm::Expected<std::vector<std::shared_ptr<const SourceText>>>
loadLinkedSources(const std::string &Path);

/// Prints `ptx2amd: error: <Message>` to stderr.
void printError(const std::string &Message);

/// What `--help` prints around the list of options that a command's option table makes.
struct CommandHelp {
  const char *Name;         ///< the command as typed after `ptx2amd`; "" for ptx2amd itself
  const char *Usage;        ///< the USAGE line
  const char *Overview;     ///< what the command does
  llvm::StringRef Epilogue; ///< after the options: the exit statuses, and more where there is more
};

/// Parses a command's arguments with its option table (options/<Command>.td). Returns nothing
/// when the command is done, with Exit set: 0 after printing the help (option HelpID), 2 after
/// reporting an unknown option or a missing value.
std::optional<llvm::opt::InputArgList> parseCommandLine(const llvm::opt::OptTable &Table,
                                                        unsigned HelpID, const CommandHelp &Help,
                                                        llvm::ArrayRef<std::string> Args,
                                                        int &Exit);

/// Reports a usage error: `ptx2amd: error: <Message> (see 'ptx2amd <command> --help')`.
/// Returns 2, the exit status of usage errors.
int usageError(const CommandHelp &Help, const std::string &Message);

/// The value of option A as a number of at least Min (0 or 1), or nothing after a usage error.
std::optional<unsigned> numberArg(const CommandHelp &Help, const llvm::opt::Arg &A,
                                  unsigned Min = 0);

/// The targets that the options ArchID (`--arch`) name, in order, or nothing after a usage
/// error naming an unknown one.
std::optional<std::vector<const amdgpu::Target *>>
targetArgs(const CommandHelp &Help, const llvm::opt::InputArgList &Args, unsigned ArchID);

} // namespace ptx2amd::tool
