// Every kernel of the project's CUDA test programs (nvcc's sm_90 PTX) loads on the host backend
// for a wave64 and a wave32 target: nothing the host backend does not implement.
#include "../CudaProgramPtx.h"
#include "HostTestSupport.h"

using namespace host_test;

TEST_CASE("every kernel of the test programs can run on the host backend", "[programs]") {
  std::vector<std::string> Files = ptx2amd_test::cudaProgramPtx();
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
