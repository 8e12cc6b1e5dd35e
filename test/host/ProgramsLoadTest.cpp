// Every kernel of the project's CUDA test programs (nvcc's sm_90 PTX) loads on the host backend
// for a wave64 and a wave32 target: nothing the host backend does not implement.
#include "HostTestSupport.h"

#include "llvm/Support/FileSystem.h"

#include <algorithm>

using namespace host_test;

TEST_CASE("every kernel of the test programs can run on the host backend", "[programs]") {
  std::vector<std::string> Files;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(PTX2AMD_CUDA_PTX_DIR, EC), End; It != End && !EC;
       It.increment(EC))
    if (llvm::StringRef(It->path()).ends_with(".sm90.ptx"))
      Files.push_back(It->path());
  std::sort(Files.begin(), Files.end());
  REQUIRE(Files.size() >= 24); // the 24 programs of test/cuda
  for (const std::string &File : Files)
    for (const char *Target : WaveTargets) {
      host::LoadedModule &M = module(File, Target);
      for (const std::string &K : M.kernels()) {
        INFO(File << " for " << Target << ": kernel " << K);
        CHECK(M.unavailableReason(K) == "");
      }
    }
}
