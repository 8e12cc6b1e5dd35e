// Subcommands of the ptx2amd command line; each takes the arguments after its name and returns
// the process exit code (0 success, 1 failure of the input, 2 usage error).
#pragma once

#include "ptx2amd/ptx-grammar/Source.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/Error.h>

#include <memory>
#include <string>
#include <vector>

namespace ptx2amd::tool {

int runParse(llvm::ArrayRef<std::string> Args);
int runDumpIR(llvm::ArrayRef<std::string> Args);
int runList(llvm::ArrayRef<std::string> Args);
int runExtract(llvm::ArrayRef<std::string> Args);
int runCompile(llvm::ArrayRef<std::string> Args);
int runCheck(llvm::ArrayRef<std::string> Args);
int runCache(llvm::ArrayRef<std::string> Args);

/// The PTX modules of a file: the file itself when it is PTX text, or every PTX entry of a CUDA
/// binary (fatbin, cubin, executable, library, object).
llvm::Expected<std::vector<std::shared_ptr<const SourceText>>> loadSources(const std::string &Path);

/// Prints `ptx2amd: error: <Message>` to stderr.
void printError(const std::string &Message);

} // namespace ptx2amd::tool
