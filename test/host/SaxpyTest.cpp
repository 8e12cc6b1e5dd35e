// The bundled example (examples/saxpy.ptx): y = a*x + y and per-block sums in shared memory with
// __syncthreads, on a wave64 and a wave32 target.
#include "HostTestSupport.h"

#include <fstream>
#include <iterator>

using namespace host_test;

/// Runs saxpy on \p M and checks y and the per-block sums.
static void runSaxpy(host::LoadedModule &M) {
  const char *K = "_Z5saxpyifPKfPfS1_";
  int N = 1000;
  float A = 1.5f;
  std::vector<float> X(N), Y(N);
  for (int I = 0; I < N; ++I) {
    X[I] = float(I % 17) - 3.0f;
    Y[I] = float(I % 5) * 0.5f;
  }
  Buffer<float> DX(X), DY(Y), DSums(4);
  float *PX = DX.get(), *PY = DY.get(), *PS = DSums.get();
  launch(M, K, {4}, {256}, {&N, &A, &PX, &PY, &PS});
  std::vector<float> Got = DY.read(), Sums = DSums.read();
  for (int I = 0; I < N; ++I)
    REQUIRE(Got[I] == A * X[I] + Y[I]);
  for (int B = 0; B < 4; ++B) {
    float Want = 0;
    for (int I = B * 256; I < std::min(N, B * 256 + 256); ++I)
      Want += A * X[I] + Y[I];
    CHECK(Sums[B] == Approx(Want).epsilon(1e-5));
  }
}

TEST_CASE("saxpy runs on the host backend", "[saxpy]") {
  for (const char *Target : WaveTargets)
    for (bool Vectorize : {true, false}) {
      INFO(Target << (Vectorize ? " as waves" : " as a compiled workgroup"));
      host::LoadedModule &M = module(PTX2AMD_SOURCE_DIR "/examples/saxpy.ptx", Target, Vectorize);
      const char *K = "_Z5saxpyifPKfPfS1_";
      REQUIRE(M.unavailableReason(K) == "");
      CHECK(M.execution(K) == (Vectorize ? host::Execution::Waves : host::Execution::WorkGroup));
      runSaxpy(M);
    }
}

// The differential mode (DifferentialTest.cpp): a kernel with barriers runs as waves that meet,
// as a compiled workgroup of work-items and as fibers, each launch compared.
TEST_CASE("saxpy runs under every plan in the differential mode", "[saxpy][differential]") {
  std::ifstream In(PTX2AMD_SOURCE_DIR "/examples/saxpy.ptx");
  std::string Ptx((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
  host::LoadOptions Opts;
  Opts.Forced.Differential = true;
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto M = loadText(Ptx, Target, Opts);
    REQUIRE(M->execution("_Z5saxpyifPKfPfS1_") == host::Execution::Waves);
    runSaxpy(*M);
  }
}
