// Subcommands of the ptx2amd command line; each takes the arguments after its name and returns
// the process exit code (0 success, 1 failure of the input, 2 usage error).
#pragma once

#include "ptx2amd/ptx-grammar/Source.h"

#include <llvm/ADT/ArrayRef.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBufferRef.h>

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

} // namespace ptx2amd::tool
