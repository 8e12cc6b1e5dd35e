// Subcommands of the ptx2amd command line; each takes the arguments after its name and returns
// the process exit code (0 success, 1 failure of the input, 2 usage error).
#pragma once

#include <llvm/ADT/ArrayRef.h>

#include <string>

namespace ptx2amd::tool {

int runParse(llvm::ArrayRef<std::string> Args);
int runDumpIR(llvm::ArrayRef<std::string> Args);
int runList(llvm::ArrayRef<std::string> Args);
int runExtract(llvm::ArrayRef<std::string> Args);
int runCompile(llvm::ArrayRef<std::string> Args);
int runCheck(llvm::ArrayRef<std::string> Args);

/// Prints `ptx2amd: error: <Message>` to stderr.
void printError(const std::string &Message);

} // namespace ptx2amd::tool
