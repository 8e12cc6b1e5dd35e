#include "HostTestSupport.h"

#include "llvm/Support/MemoryBuffer.h"

#include <mutex>

namespace host_test {

host::Device &device() {
  static std::unique_ptr<host::Device> D = [] {
    auto R = host::Device::create();
    if (!R)
      FAIL(llvm::toString(R.takeError()));
    return std::move(*R);
  }();
  return *D;
}

std::unique_ptr<host::LoadedModule> loadText(const std::string &Ptx, const std::string &Target,
                                             bool Vectorize) {
  host::LoadOptions Opts;
  Opts.VectorizeWaves = Vectorize;
  return loadText(Ptx, Target, Opts);
}

std::unique_ptr<host::LoadedModule> loadText(const std::string &Ptx, const std::string &Target,
                                             const host::LoadOptions &Opts) {
  const amdgpu::Target *T = amdgpu::findTarget(Target);
  REQUIRE(T);
  auto M = device().loadPtx(Ptx, "test.ptx", *T, Opts);
  if (!M)
    FAIL(llvm::toString(M.takeError()));
  return std::move(*M);
}

host::LoadedModule &module(const std::string &File, const std::string &Target, bool Vectorize) {
  static std::map<std::tuple<std::string, std::string, bool>, std::unique_ptr<host::LoadedModule>>
      Cache;
  auto &Slot = Cache[{File, Target, Vectorize}];
  if (!Slot) {
    std::string Path = File[0] == '/' ? File : std::string(PTX2AMD_CUDA_PTX_DIR) + "/" + File;
    auto Text = llvm::MemoryBuffer::getFile(Path);
    INFO(Path);
    REQUIRE(bool(Text));
    const amdgpu::Target *T = amdgpu::findTarget(Target);
    REQUIRE(T);
    host::LoadOptions Opts;
    Opts.VectorizeWaves = Vectorize;
    auto M = device().loadPtx((*Text)->getBuffer(), Path, *T, Opts);
    if (!M)
      FAIL(llvm::toString(M.takeError()));
    Slot = std::move(*M);
  }
  return *Slot;
}

amdgpu::DeviceOutput launch(host::LoadedModule &M, const std::string &Kernel, host::Dim3 Grid,
                            host::Dim3 Block, std::vector<void *> Args, uint32_t Dynamic) {
  INFO("kernel " << Kernel << " on " << M.target().Name);
  auto R = device().launch(M, Kernel, {Grid, Block, Dynamic}, Args.data());
  if (!R)
    FAIL(llvm::toString(R.takeError()));
  return std::move(*R);
}

amdgpu::DeviceOutput launch(host::LoadedModule &M, const std::string &Kernel,
                            const host::LaunchConfig &C, std::vector<void *> Args) {
  INFO("kernel " << Kernel << " on " << M.target().Name << (C.Fibers ? " as fibers" : ""));
  auto R = device().launch(M, Kernel, C, Args.data());
  if (!R)
    FAIL(llvm::toString(R.takeError()));
  return std::move(*R);
}

std::string launchError(host::LoadedModule &M, const std::string &Kernel, host::Dim3 Grid,
                        host::Dim3 Block, std::vector<void *> Args, uint32_t Dynamic) {
  auto R = device().launch(M, Kernel, {Grid, Block, Dynamic}, Args.data());
  REQUIRE(!R);
  return llvm::toString(R.takeError());
}

} // namespace host_test
