// Every PTX module an input holds, for tools that read PTX from any kind of file.
#pragma once

#include <llvm/Support/Error.h>

#include <string>
#include <vector>

namespace ptx2amd::fatbin {

struct PtxText {
  std::string Name; ///< the file, or "file: container C entry I (offset 0x...)"
  std::string Text;
};

/// The PTX of \p Path: the file itself when it is PTX text, otherwise the text of each PTX entry
/// of the binary (fatbin, cubin, executable, library, object), decompressed. Opaque entries are
/// skipped; an unreadable PTX payload is an error.
llvm::Expected<std::vector<PtxText>> readAllPtx(const std::string &Path);

/// The CUDA toolkit's library folder (`lib64`): $CUDA_PATH/lib64, else next to the nvcc found on
/// PATH (following a wrapper script through `nvcc --dryrun`), else /usr/local/cuda/lib64.
std::string cudaToolkitLibDir();

} // namespace ptx2amd::fatbin
