// Every PTX module an input holds, for tools that read PTX from any kind of file.
#pragma once

#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include <memory>
#include <string>
#include <vector>

namespace ptx2amd::fatbin {

struct PtxText {
  std::string Name; ///< the file, or "file: container C entry I (offset 0x...)"
  std::string Text;
  unsigned Arch = 0; ///< the entry's SM number (90 for sm_90); 0 for a PTX text file
};

/// The PTX of \p Path: the file itself when it is PTX text, otherwise the text of each PTX entry
/// of the binary (fatbin, cubin, executable, library, object), decompressed. Opaque entries are
/// skipped; an unreadable PTX payload is an error.
llvm::Expected<std::vector<PtxText>> readAllPtx(const std::string &Path);

/// readAllPtx() of bytes in memory; \p Name names them in messages.
llvm::Expected<std::vector<PtxText>> readAllPtx(std::unique_ptr<llvm::MemoryBuffer> Bytes,
                                                const std::string &Name);

/// The CUDA toolkit's library folder (`lib64`): $CUDA_PATH/lib64, else next to the nvcc found on
/// PATH (following a wrapper script through `nvcc --dryrun`), else /usr/local/cuda/lib64.
std::string cudaToolkitLibDir();

} // namespace ptx2amd::fatbin
