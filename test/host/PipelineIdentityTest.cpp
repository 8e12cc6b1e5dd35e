// The host device runs what the GPU gets: for every module of the project's CUDA programs, the
// optimised module the pipeline hands to AMDGPU codegen and the one the host device receives
// before retargeting it have the same content hash, on a wave64 and a wave32 target.
#include "../CudaProgramPtx.h"
#include "HostTestSupport.h"

#include "ptx2amd/pipeline/Translate.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace host_test;

TEST_CASE("the host device gets the optimised module the GPU's codegen gets", "[pipeline]") {
  std::vector<std::string> Files = ptx2amd_test::cudaProgramPtx();
  REQUIRE(Files.size() >= 24);
  unsigned Kernels = 0;
  for (const std::string &File : Files) {
    auto Text = llvm::MemoryBuffer::getFile(File);
    REQUIRE(bool(Text));
    const std::string Name = llvm::sys::path::filename(File).str();
    for (const char *TargetName : WaveTargets) {
      INFO(Name << " for " << TargetName);
      const amdgpu::Target &T = *amdgpu::findTarget(TargetName);

      std::optional<uint64_t> ForCodegen, ForHost;
      pipeline::Options Opts;
      Opts.Target = &T;
      Opts.OnOptimized = [&](const llvm::Module &M) { ForCodegen = pipeline::moduleHash(M); };
      pipeline::Translation Gpu =
          pipeline::translate(std::make_shared<SourceText>(Name, (*Text)->getBuffer().str()), Opts);
      INFO(Gpu.Diagnostics);
      REQUIRE(Gpu.HasCodeObject);

      host::LoadOptions HostOpts;
      HostOpts.OnOptimized = [&](const llvm::Module &M) { ForHost = pipeline::moduleHash(M); };
      auto Loaded = device().loadPtx((*Text)->getBuffer(), Name, T, HostOpts);
      if (!Loaded)
        FAIL(llvm::toString(Loaded.takeError()));

      REQUIRE(ForCodegen);
      REQUIRE(ForHost);
      CHECK(*ForCodegen == *ForHost);
      for (const pipeline::KernelResult &K : Gpu.Kernels)
        Kernels += K.Metadata.has_value();
    }
  }
  CHECK(Kernels > 50);
}

TEST_CASE("the module hash tells modules of other options apart", "[pipeline]") {
  // What the identity test above would see if the host device translated with options of its
  // own (it once hard-coded code object version 5).
  auto Text = llvm::MemoryBuffer::getFile(PTX2AMD_CUDA_PTX_DIR "/vector_add.sm90.ptx");
  REQUIRE(bool(Text));
  auto HashFor = [&](unsigned CodeObjectVersion) {
    std::optional<uint64_t> Hash;
    pipeline::Options Opts;
    Opts.Target = amdgpu::findTarget("gfx90a");
    Opts.Codegen.CodeObjectVersion = CodeObjectVersion;
    Opts.Out = pipeline::Output::OptimizedModule;
    Opts.OnOptimized = [&](const llvm::Module &M) { Hash = pipeline::moduleHash(M); };
    pipeline::translate(std::make_shared<SourceText>("vector_add.ptx", (*Text)->getBuffer().str()),
                        Opts);
    REQUIRE(Hash);
    return *Hash;
  };
  CHECK(HashFor(5) == HashFor(5));
  CHECK(HashFor(5) != HashFor(4));
}
