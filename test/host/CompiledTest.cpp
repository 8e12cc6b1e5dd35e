// The compiled form of a loaded module (LoadedModule::compiled, Device::loadCompiled): a module
// loaded from it runs like the original, keeps its kernel table, globals and metadata, and bytes
// of another version, target, or damaged ones are refused with the reason.
#include "HostTestSupport.h"

using namespace host_test;

namespace {

std::string refusal(llvm::ArrayRef<uint8_t> Bytes, const char *Target) {
  auto M = device().loadCompiled(Bytes, *amdgpu::findTarget(Target));
  REQUIRE(!M);
  return llvm::toString(M.takeError());
}

} // namespace

TEST_CASE("a module loaded from its compiled form runs as the original", "[compiled]") {
  for (const char *Target : WaveTargets) {
    INFO(Target);
    host::LoadedModule &Original = module(PTX2AMD_SOURCE_DIR "/examples/saxpy.ptx", Target);
    std::vector<uint8_t> Bytes = Original.compiled();
    auto Loaded = device().loadCompiled(Bytes, *amdgpu::findTarget(Target));
    REQUIRE(bool(Loaded));
    host::LoadedModule &M = **Loaded;
    const char *K = "_Z5saxpyifPKfPfS1_";
    CHECK(M.kernels() == Original.kernels());
    REQUIRE(M.unavailableReason(K) == "");
    CHECK(M.execution(K) == Original.execution(K));
    CHECK(M.execution(K) == host::Execution::Waves);
    CHECK(M.lockstepPoints(K) == Original.lockstepPoints(K));
    REQUIRE(M.metadata(K));
    CHECK(M.metadata(K)->KernargSegmentSize == Original.metadata(K)->KernargSegmentSize);
    CHECK(M.metadata(K)->Args.size() == Original.metadata(K)->Args.size());
    CHECK(M.metadata(K)->GroupSegmentFixedSize == Original.metadata(K)->GroupSegmentFixedSize);
    CHECK(M.compiled() == Bytes);

    int N = 600;
    float A = 2.0f;
    std::vector<float> X(N), Y(N);
    for (int I = 0; I < N; ++I) {
      X[I] = float(I % 9);
      Y[I] = float(I % 4);
    }
    Buffer<float> DX(X), DY(Y), DSums(3);
    float *PX = DX.get(), *PY = DY.get(), *PS = DSums.get();
    launch(M, K, {3}, {256}, {&N, &A, &PX, &PY, &PS});
    std::vector<float> Got = DY.read();
    for (int I = 0; I < N; ++I)
      REQUIRE(Got[I] == A * X[I] + Y[I]);
  }
}

TEST_CASE("the compiled form keeps the module's globals", "[compiled]") {
  host::LoadedModule &Original = module(PTX2AMD_CUDA_PTX_DIR "/const_globals.sm90.ptx", "gfx90a");
  auto Loaded = device().loadCompiled(Original.compiled(), *amdgpu::findTarget("gfx90a"));
  REQUIRE(bool(Loaded));
  const std::vector<host::GlobalInfo> &Globals = (*Loaded)->globals();
  REQUIRE(!Globals.empty());
  REQUIRE(Globals.size() == Original.globals().size());
  for (size_t I = 0; I < Globals.size(); ++I) {
    CHECK(Globals[I].Name == Original.globals()[I].Name);
    CHECK(Globals[I].Size == Original.globals()[I].Size);
    CHECK(bool((*Loaded)->global(Globals[I].Name)));
  }
}

TEST_CASE("compiled forms of another version or target, or damaged ones, are refused",
          "[compiled]") {
  std::vector<uint8_t> Bytes =
      module(PTX2AMD_SOURCE_DIR "/examples/saxpy.ptx", "gfx90a").compiled();
  CHECK(refusal(Bytes, "gfx1100").find("compiled for gfx90a, not gfx1100") != std::string::npos);

  std::vector<uint8_t> Version = Bytes;
  Version[4] += 1;
  CHECK(refusal(Version, "gfx90a")
            .find("format version " + std::to_string(host::CompiledFormatVersion + 1) +
                  ", expected " + std::to_string(host::CompiledFormatVersion)) !=
        std::string::npos);

  std::vector<uint8_t> Flipped = Bytes;
  Flipped[Flipped.size() / 2] ^= 1;
  CHECK(refusal(Flipped, "gfx90a").find("checksum mismatch") != std::string::npos);

  CHECK(refusal(llvm::ArrayRef(Bytes).drop_back(1), "gfx90a").find("checksum mismatch") !=
        std::string::npos);
  CHECK(refusal(llvm::ArrayRef(Bytes).take_front(10), "gfx90a").find("not a compiled host") !=
        std::string::npos);
}
