// The project's CUDA programs (test/cuda/*.cu) as nvcc's sm_90 PTX, which the build writes to
// PTX2AMD_CUDA_PTX_DIR (defined by each test target that reads them).
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <string>
#include <vector>

namespace ptx2amd_test {

/// The paths of the programs' PTX files, sorted.
inline std::vector<std::string> cudaProgramPtx() {
  std::vector<std::string> Files;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(PTX2AMD_CUDA_PTX_DIR, EC), End; It != End && !EC;
       It.increment(EC))
    if (llvm::StringRef(It->path()).ends_with(".sm90.ptx"))
      Files.push_back(It->path());
  std::sort(Files.begin(), Files.end());
  return Files;
}

} // namespace ptx2amd_test
