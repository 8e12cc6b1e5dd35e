// ModuleLoader: PTX text and nvcc-built fatbins in memory, translated lazily at the first lookup,
// run on the host device (wave64 and wave32) against CPU references; code object devices (the
// HSA path, here a stand-in that runs nothing) through the JIT cache, where a second loader on
// the same folder translates nothing; per-kernel failures; the log lines.
#include "ptx2amd/loader/ModuleLoader.h"
#include "LoaderTestSupport.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Host.h"

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <type_traits>

using namespace ptx2amd;
using namespace loader_test;
using loader::CopyKind;
using loader::MemoryKind;

namespace {

template <typename T> std::string errorText(llvm::Expected<T> V) {
  REQUIRE(!V);
  return llvm::toString(V.takeError());
}

std::vector<uint8_t> readBytes(const std::string &Path) {
  auto B = llvm::MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  REQUIRE(bool(B));
  return std::vector<uint8_t>((*B)->getBufferStart(), (*B)->getBufferEnd());
}

llvm::ArrayRef<uint8_t> bytesOf(llvm::StringRef S) {
  return llvm::ArrayRef<uint8_t>(S.bytes_begin(), S.bytes_end());
}

/// Log lines of a loader, kept; shown on stderr too when PTX2AMD_LOG is set.
struct LogLines {
  std::mutex Mutex;
  std::vector<std::string> Lines;
  loader::LoaderOptions options(std::shared_ptr<loader::Cache> C = nullptr) {
    loader::LoaderOptions O;
    O.Log = loader::LogLevel::Debug;
    O.JitCache = std::move(C);
    O.LogSink = [this](const std::string &L) {
      std::lock_guard<std::mutex> Lock(Mutex);
      Lines.push_back(L);
      if (std::getenv("PTX2AMD_LOG"))
        llvm::errs() << "ptx2amd: " << L << "\n";
    };
    return O;
  }
  size_t count(llvm::StringRef Prefix) {
    std::lock_guard<std::mutex> Lock(Mutex);
    return llvm::count_if(Lines, [&](const std::string &L) { return L.starts_with(Prefix); });
  }
};

template <typename T> T *upload(loader::Device &D, const std::vector<T> &Host) {
  void *P = ok(D.allocate(Host.size() * sizeof(T), MemoryKind::Device));
  ok(D.copy(P, Host.data(), Host.size() * sizeof(T), CopyKind::HostToDevice, nullptr));
  return static_cast<T *>(P);
}

template <typename T> std::vector<T> download(loader::Device &D, const T *P, size_t N) {
  std::vector<T> Host(N);
  ok(D.copy(Host.data(), P, N * sizeof(T), CopyKind::DeviceToHost, nullptr));
  return Host;
}

amdgpu::LaunchGeometry geometry(uint32_t Grid, uint32_t Block) {
  amdgpu::LaunchGeometry G;
  G.Grid[0] = Grid;
  G.Block[0] = Block;
  return G;
}

/// A device that loads code objects and runs nothing: what the HSA device receives from the
/// loader, checked without a GPU.
class CodeObjectDevice final : public loader::Device {
public:
  CodeObjectDevice() {
    Props.Name = "code objects (gfx90a)";
    Props.Target = amdgpu::findTarget("gfx90a");
    Props.WaveSize = 64;
  }
  std::vector<std::vector<uint8_t>> Loaded;

  const loader::DeviceProperties &properties() const override { return Props; }
  llvm::Expected<std::unique_ptr<loader::Module>>
  loadModule(const loader::ModuleImage &Image) override {
    auto Meta = amdgpu::readCodeObjectMetadata(Image.CodeObject);
    if (!Meta)
      return Meta.takeError();
    Loaded.emplace_back(Image.CodeObject.begin(), Image.CodeObject.end());
    return std::make_unique<CodeObjectModule>(std::move(*Meta));
  }
  llvm::Expected<void *> allocate(size_t, MemoryKind) override { return none(); }
  llvm::Error release(void *) override { return none(); }
  llvm::Error registerHostMemory(void *, size_t) override { return none(); }
  llvm::Error unregisterHostMemory(void *) override { return none(); }
  llvm::Error copy(void *, const void *, size_t, CopyKind, loader::Stream *) override {
    return none();
  }
  llvm::Error memset(void *, uint8_t, size_t, loader::Stream *) override { return none(); }
  llvm::Error launch(const loader::Kernel &, const amdgpu::LaunchGeometry &, void **,
                     loader::Stream *, const loader::LaunchOptions &) override {
    return none();
  }
  llvm::Expected<std::unique_ptr<loader::Stream>> createStream() override { return none(); }
  llvm::Error synchronize(loader::Stream *) override { return none(); }
  llvm::Expected<std::unique_ptr<loader::Event>> createEvent() override { return none(); }
  llvm::Error record(loader::Event &, loader::Stream *) override { return none(); }
  llvm::Error synchronize(loader::Event &) override { return none(); }
  llvm::Expected<bool> isComplete(loader::Event &) override { return none(); }
  llvm::Expected<float> elapsedMs(loader::Event &, loader::Event &) override { return none(); }

private:
  struct CodeObjectKernel final : loader::Kernel {
    amdgpu::KernelMetadata Meta;
    const amdgpu::KernelMetadata &metadata() const override { return Meta; }
  };
  struct CodeObjectModule final : loader::Module {
    explicit CodeObjectModule(amdgpu::CodeObjectMetadata M) {
      for (amdgpu::KernelMetadata &K : M.Kernels)
        Kernels[K.Name].Meta = std::move(K);
    }
    llvm::Expected<const loader::Kernel &> kernel(llvm::StringRef Name) override {
      auto It = Kernels.find(Name.str());
      if (It == Kernels.end())
        return llvm::createStringError(llvm::inconvertibleErrorCode(), "no kernel " + Name);
      return It->second;
    }
    llvm::Expected<loader::GlobalSymbol> global(llvm::StringRef) override { return none(); }
    std::vector<std::string> kernelNames() override {
      std::vector<std::string> Names;
      for (const auto &[Name, K] : Kernels)
        Names.push_back(Name);
      return Names;
    }
    std::map<std::string, CodeObjectKernel> Kernels;
  };
  static llvm::Error none() {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), "runs nothing");
  }
  loader::DeviceProperties Props;
};

/// A fresh cache folder, removed at the end.
struct TempCacheDir {
  llvm::SmallString<128> Path;
  TempCacheDir() { REQUIRE(!llvm::sys::fs::createUniqueDirectory("loader-cache", Path)); }
  ~TempCacheDir() { llvm::sys::fs::remove_directories(Path); }
  std::shared_ptr<loader::Cache> open() const {
    loader::CacheConfig C;
    C.Directory = std::string(Path);
    return ok(loader::Cache::open(std::move(C)));
  }
};

// A kernel that fails (an unsupported instruction) beside one that translates.
const char *PartialPtx = R"(.version 7.0
.target sm_70
.address_size 64
.visible .entry uses_tex(.param .u64 t)
{
  .reg .b32 %r<5>;
  .reg .b64 %rd1;
  ld.param.u64 %rd1, [t];
  tex.2dms.v4.s32.s32 {%r1, %r2, %r3, %r4}, [%rd1, {%r1, %r1, %r1, %r1}];
  st.global.u32 [%rd1], %r1;
  ret;
}
.visible .entry plain(.param .u64 p, .param .u32 v)
{
  .reg .b64 %rd<2>;
  .reg .b32 %r<3>;
  ld.param.u64 %rd1, [p];
  ld.param.u32 %r1, [v];
  mov.u32 %r2, %tid.x;
  add.u32 %r1, %r1, %r2;
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd0, %r2, 4;
  add.s64 %rd1, %rd1, %rd0;
  st.global.u32 [%rd1], %r1;
  ret;
}
)";

const std::string FatbinDir = PTX2AMD_FATBIN_TEST_DIR;

bool haveFile(const std::string &Path) {
  if (llvm::sys::fs::exists(Path))
    return true;
  WARN(Path << " is not built (no nvcc): skipped");
  return false;
}

/// add(out, in, n) and count(v, n, key) with the module variable `hits`, from
/// test/unit/fatbin/inputs/kernels.cu, run from \p M and checked.
void runFatbinKernels(loader::Device &D, loader::Module &M) {
  int N = 300;
  std::vector<float> Out(N), In(N);
  for (int I = 0; I < N; ++I) {
    Out[I] = float(I);
    In[I] = 0.5f * float(I % 7);
  }
  float *DOut = upload(D, Out), *DIn = upload(D, In);
  void *AddArgs[] = {&DOut, &DIn, &N};
  ok(D.launch(ok(M.kernel("_Z3addPfPKfi")), geometry(3, 128), AddArgs, nullptr));
  std::vector<float> Got = download(D, DOut, N);
  for (int I = 0; I < N; ++I)
    CHECK(Got[I] == Out[I] + In[I]);

  std::vector<int> V(N);
  int Want = 0, Key = 3;
  for (int I = 0; I < N; ++I)
    Want += (V[I] = I % 5) == Key;
  int *DV = upload(D, V);
  loader::GlobalSymbol Hits = ok(M.global("hits"));
  CHECK(Hits.Size == 4);
  int Zero = 0;
  ok(D.copy(Hits.Address, &Zero, 4, CopyKind::HostToDevice, nullptr));
  void *CountArgs[] = {&DV, &N, &Key};
  ok(D.launch(ok(M.kernel("_Z5countPKiii")), geometry(3, 128), CountArgs, nullptr));
  CHECK(download(D, static_cast<const int *>(Hits.Address), 1)[0] == Want);
  for (void *P : {static_cast<void *>(DOut), static_cast<void *>(DIn), static_cast<void *>(DV)})
    ok(D.release(P));
}

} // namespace

TEST_CASE("PTX2AMD_LOG values", "[module-loader]") {
  CHECK(ok(loader::parseLogLevel("")) == loader::LogLevel::Off);
  CHECK(ok(loader::parseLogLevel("off")) == loader::LogLevel::Off);
  CHECK(ok(loader::parseLogLevel("info")) == loader::LogLevel::Info);
  CHECK(ok(loader::parseLogLevel("debug")) == loader::LogLevel::Debug);
  CHECK(errorText(loader::parseLogLevel("loud")) ==
        "PTX2AMD_LOG='loud' is not one of off, info, debug");
}

TEST_CASE("a test program's PTX runs on the host device, translated at the first lookup",
          "[module-loader]") {
  std::string Ptx =
      std::string(llvm::toStringRef(readBytes(PTX2AMD_CUDA_PTX_DIR "/vector_add.sm90.ptx")));
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto D = ok(loader::createHostDevice(*amdgpu::findTarget(Target)));
    LogLines Log;
    loader::ModuleLoader L(*D, Log.options());
    auto M = ok(L.open(bytesOf(Ptx), "vector_add.sm90.ptx"));
    CHECK(M->name() == "vector_add.sm90.ptx");
    CHECK(L.stats().Opened == 1);
    CHECK(L.stats().Translations == 0);

    // Its kernels share no state: each is translated alone, at its first lookup.
    CHECK(M->kernelNames().size() == 2);
    CHECK(L.stats().Translations == 0);
    const loader::Kernel &Saxpy = ok(M->kernel("_Z5saxpyifPKfS0_Pf"));
    CHECK(L.stats().Translations == 1);
    CHECK(L.stats().Loaded == 1);
    CHECK(Log.count("translated 'vector_add.sm90.ptx [_Z5saxpyifPKfS0_Pf]' for " +
                    std::string(Target)) == 1);
    int N = 5000;
    float A = -1.5f;
    std::vector<float> X(N), Y(N);
    for (int I = 0; I < N; ++I) {
      X[I] = float(I % 101) * 0.25f;
      Y[I] = float(I % 13);
    }
    float *DX = upload(*D, X), *DY = upload(*D, Y);
    float *DOut = static_cast<float *>(ok(D->allocate(N * sizeof(float), MemoryKind::Device)));
    void *SaxpyArgs[] = {&N, &A, &DX, &DY, &DOut};
    ok(D->launch(Saxpy, geometry(8, 128), SaxpyArgs, nullptr));
    std::vector<float> Got = download(*D, DOut, N);
    for (int I = 0; I < N; ++I)
      CHECK(Got[I] == A * X[I] + Y[I]);

    // The second kernel is translated at its own first lookup.
    long long LN = N;
    int IA = 7;
    std::vector<int> IX(N), IY(N);
    for (int I = 0; I < N; ++I) {
      IX[I] = I - 2500;
      IY[I] = I * 3;
    }
    int *DIX = upload(*D, IX), *DIY = upload(*D, IY);
    int *DIOut = static_cast<int *>(ok(D->allocate(N * sizeof(int), MemoryKind::Device)));
    void *IaxpyArgs[] = {&LN, &IA, &DIX, &DIY, &DIOut};
    ok(D->launch(ok(M->kernel("_Z5iaxpyxiPKiS0_Pi")), geometry(5, 64), IaxpyArgs, nullptr));
    std::vector<int> GotI = download(*D, DIOut, N);
    for (int I = 0; I < N; ++I)
      CHECK(GotI[I] == IA * IX[I] - IY[I]);
    CHECK(L.stats().Translations == 2);
    ok(M->kernel("_Z5saxpyifPKfS0_Pf"));
    CHECK(L.stats().Translations == 2);
    for (void *P : {static_cast<void *>(DX), static_cast<void *>(DY), static_cast<void *>(DOut),
                    static_cast<void *>(DIX), static_cast<void *>(DIY), static_cast<void *>(DIOut)})
      ok(D->release(P));
  }
}

TEST_CASE("examples/saxpy.ptx through the loader on the process's host device", "[module-loader]") {
  // PTX2AMD_DEVICE and PTX2AMD_HOST_TARGET choose; without /dev/kfd, auto is the host device.
  loader::Device &D = ok(loader::hostDevice());
  loader::ModuleLoader L(D);
  std::vector<uint8_t> Ptx = readBytes(PTX2AMD_SOURCE_DIR "/examples/saxpy.ptx");
  auto M = ok(L.open(Ptx, "saxpy.ptx"));
  int N = 512;
  float A = 3;
  std::vector<float> X(N, 2.0f), Y(N, 1.0f);
  float *DX = upload(D, X), *DY = upload(D, Y);
  float *DS = static_cast<float *>(ok(D.allocate(2 * sizeof(float), MemoryKind::Device)));
  void *Args[] = {&N, &A, &DX, &DY, &DS};
  ok(D.launch(ok(M->kernel("_Z5saxpyifPKfPfS1_")), geometry(2, 256), Args, nullptr));
  CHECK(download(D, DY, N) == std::vector<float>(N, 7.0f));
  CHECK(download(D, DS, 2) == std::vector<float>(2, 7.0f * 256));
  for (void *P : {static_cast<void *>(DX), static_cast<void *>(DY), static_cast<void *>(DS)})
    ok(D.release(P));
}

TEST_CASE("nvcc-built fatbins run on the host device", "[module-loader]") {
  const std::string Fatbin = FatbinDir + "/keep_default/kernels.fatbin";
  const std::string Program = FatbinDir + "/k_default";
  if (!haveFile(Fatbin) || !haveFile(Program))
    return;
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto D = ok(loader::createHostDevice(*amdgpu::findTarget(Target)));
    loader::ModuleLoader L(*D);
    for (const std::string &Path : {Fatbin, Program}) {
      INFO(Path);
      auto M = ok(L.open(readBytes(Path), Path));
      CHECK(llvm::StringRef(M->name()).starts_with(Path + ": container"));
      runFatbinKernels(*D, *M);
    }
    // As a program registers it: a __fatBinC_Wrapper_t pointing at the container.
    std::vector<uint8_t> Bytes = readBytes(Fatbin);
    std::vector<uint64_t> Container((Bytes.size() + 7) / 8);
    std::memcpy(Container.data(), Bytes.data(), Bytes.size());
    struct {
      uint32_t Magic = fatbin::WrapperMagic;
      uint32_t Version = 1;
      const void *Data;
      const void *Unused = nullptr;
    } Wrapper{.Data = Container.data()};
    auto M = ok(L.openWrapper(&Wrapper, "registered"));
    runFatbinKernels(*D, *M);
    // Each of the three opens: the variables (`hits`), add and count.
    CHECK(L.stats().Translations == 9);
  }
}

TEST_CASE("images without usable PTX are errors when opened", "[module-loader]") {
  auto D = ok(loader::createHostDevice(*amdgpu::findTarget("gfx90a")));
  loader::ModuleLoader L(*D);
  const uint8_t Garbage[] = {0x50, 0xed, 0x55, 0xba, 1, 0, 16, 0, 0xff, 0xff, 0xff, 0xff};
  CHECK(!errorText(L.open(Garbage, "garbage")).empty());
  const std::string SassOnly = FatbinDir + "/k_sassonly";
  if (haveFile(SassOnly))
    CHECK(errorText(L.open(readBytes(SassOnly), "k_sassonly")).find("PTX") != std::string::npos);
  CHECK(L.stats().Opened == 0);
}

TEST_CASE("a selection bounded by a compute capability takes the highest PTX at most it",
          "[module-loader]") {
  const std::string Multi = FatbinDir + "/k_multi", PtxOnly = FatbinDir + "/k_ptxonly",
                    SassOnly = FatbinDir + "/k_sassonly";
  if (!haveFile(Multi) || !haveFile(PtxOnly) || !haveFile(SassOnly))
    return;
  auto D = ok(loader::createHostDevice(*amdgpu::findTarget("gfx90a")));
  auto Bounded = [](unsigned Arch) {
    loader::LoaderOptions O;
    O.Selection = fatbin::SelectionPolicy::atMost(Arch);
    return O;
  };
  // k_multi carries PTX for sm_80, sm_90a and sm_100f.
  for (auto [Arch, Target] : {std::pair{86u, ".target sm_80"}, std::pair{90u, ".target sm_90a"},
                              std::pair{121u, ".target sm_100f"}}) {
    INFO(Arch);
    loader::ModuleLoader L(*D, Bounded(Arch));
    auto M = ok(L.open(readBytes(Multi), "k_multi"));
    CHECK(M->ptx().find(Target) != std::string::npos);
  }
  // PTX only above the bound is no image for the device: unsupported here, not a bad image.
  loader::ModuleLoader L(*D, Bounded(75));
  auto Above = L.open(readBytes(PtxOnly), "k_ptxonly");
  REQUIRE(!Above);
  ErrorReport R = takeError(Above.takeError());
  CHECK(R.Kind == ErrorKind::Unsupported);
  CHECK(R.Message.find("no PTX entry for sm_75 or lower; the module carries PTX for sm_80") !=
        std::string::npos);
  // SASS alone is for another GPU than this one, whatever the bound: no image for the device
  // either (CUDA_ERROR_NO_BINARY_FOR_GPU, as CUDA's driver says of a cubin of another arch).
  auto None = L.open(readBytes(SassOnly), "k_sassonly");
  REQUIRE(!None);
  CHECK(takeError(None.takeError()).Kind == ErrorKind::Unsupported);
  CHECK(L.stats().Opened == 0);
}

TEST_CASE("a kernel that failed to translate is named with the reason; the others run",
          "[module-loader]") {
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto D = ok(loader::createHostDevice(*amdgpu::findTarget(Target)));
    loader::ModuleLoader L(*D);
    auto M = ok(L.open(bytesOf(PartialPtx), "partial.ptx"));
    std::string Why = errorText(M->kernel("uses_tex"));
    INFO(Why);
    CHECK(Why.find("kernel 'uses_tex'") != std::string::npos);
    CHECK(Why.find("partial.ptx:9:3") != std::string::npos);
    CHECK(Why.find("'tex.2dms.v4.s32.s32' is not supported yet") != std::string::npos);
    CHECK(errorText(M->kernel("missing")).find("'missing'") != std::string::npos);
    int *Out = static_cast<int *>(ok(D->allocate(32 * sizeof(int), MemoryKind::Device)));
    int V = 40;
    void *Args[] = {&Out, &V};
    ok(D->launch(ok(M->kernel("plain")), geometry(1, 32), Args, nullptr));
    std::vector<int> Got = download(*D, Out, 32);
    for (int I = 0; I < 32; ++I)
      CHECK(Got[I] == 40 + I);
    ok(D->release(Out));
  }
  // A code object device: the reason comes from the translation (and the cache).
  CodeObjectDevice D;
  loader::ModuleLoader L(D);
  auto M = ok(L.open(bytesOf(PartialPtx), "partial.ptx"));
  std::string Why = errorText(M->kernel("uses_tex"));
  INFO(Why);
  CHECK(Why.rfind("kernel 'uses_tex' of 'partial.ptx' cannot be loaded: ", 0) == 0);
  CHECK(Why.find("partial.ptx:9:3") != std::string::npos);
  CHECK(Why.find("'tex.2dms.v4.s32.s32' is not supported yet") != std::string::npos);
  CHECK(ok(M->kernel("plain")).metadata().Name == "plain");
}

TEST_CASE("kernels that share a module variable are translated one at a time and see one "
          "variable; EAGER translates all",
          "[module-loader]") {
  // Both kernels read and write `counter`, and `twice` reads `scale` (a .const table): one
  // address each for the module, whichever kernels are translated. The variables are translated
  // once, at the module's first lookup; each kernel's translation declares them and is given
  // their addresses, in a process of its own too (a second loader on the same cache).
  const std::string Shared = R"(.version 7.0
.target sm_70
.address_size 64
.global .align 4 .u32 counter;
.const .align 4 .u32 scale[2] = {3, 2};
.visible .entry bump() { .reg .b32 %r<3>; ld.global.u32 %r1, [counter];
  add.s32 %r2, %r1, 1; st.global.u32 [counter], %r2; ret; }
.visible .entry twice() { .reg .b32 %r<4>; ld.global.u32 %r1, [counter];
  ld.const.u32 %r3, [scale+4]; mul.lo.s32 %r2, %r1, %r3; st.global.u32 [counter], %r2; ret; }
)";
  for (const char *Target : WaveTargets) {
    INFO(Target);
    auto D = ok(loader::createHostDevice(*amdgpu::findTarget(Target)));
    TempCacheDir Dir;
    auto Run = [&](LogLines &Log) {
      loader::ModuleLoader L(*D, Log.options(Dir.open()));
      auto M = ok(L.open(bytesOf(Shared), "shared.ptx"));
      const loader::Kernel &Bump = ok(M->kernel("bump"));
      loader::GlobalSymbol Counter = ok(M->global("counter"));
      uint32_t Value = 20;
      ok(D->copy(Counter.Address, &Value, sizeof Value, loader::CopyKind::HostToDevice, nullptr));
      ok(D->launch(Bump, geometry(1, 1), nullptr, nullptr));
      const loader::Kernel &Twice = ok(M->kernel("twice"));
      for (const loader::Kernel *K : {&Twice, &Bump})
        ok(D->launch(*K, geometry(1, 1), nullptr, nullptr));
      ok(D->copy(&Value, Counter.Address, sizeof Value, loader::CopyKind::DeviceToHost, nullptr));
      CHECK(Value == 43);
      // The host's writes between launches reach every kernel.
      uint32_t Scale[2] = {0, 5};
      ok(D->copy(ok(M->global("scale")).Address, Scale, sizeof Scale,
                 loader::CopyKind::HostToDevice, nullptr));
      ok(D->launch(Twice, geometry(1, 1), nullptr, nullptr));
      ok(D->copy(&Value, Counter.Address, sizeof Value, loader::CopyKind::DeviceToHost, nullptr));
      CHECK(Value == 215);
      return L.stats();
    };
    LogLines First, Second;
    loader::LoaderStats S1 = Run(First);
    CHECK(S1.Translations == 3); // the variables, bump, twice
    CHECK(First.count("translated 'shared.ptx [variables]'") == 1);
    CHECK(First.count("translated 'shared.ptx [bump]'") == 1);
    CHECK(First.count("is translated whole") == 0);
    loader::LoaderStats S2 = Run(Second);
    CHECK(S2.Translations == 0);
    CHECK(S2.CacheHits == 3);
  }

  // Texture references stay the module's: it is translated whole.
  auto D = ok(loader::createHostDevice(*amdgpu::findTarget("gfx90a")));
  LogLines Log;
  loader::ModuleLoader LT(*D, Log.options());
  const std::string Textured = R"(.version 7.0
.target sm_70
.address_size 64
.global .texref tex;
.visible .entry fetch(.param .u64 p) { .reg .b32 %r<5>; .reg .b64 %rd<2>; ld.param.u64 %rd1, [p];
  mov.u32 %r1, 0; tex.1d.v4.s32.s32 {%r1, %r2, %r3, %r4}, [tex, {%r1}];
  st.global.u32 [%rd1], %r1; ret; }
)";
  auto T = ok(LT.open(bytesOf(Textured), "textured.ptx"));
  ok(T->load());
  CHECK(Log.count("'textured.ptx' is translated whole: its kernels share module variables that "
                  "cannot be declared apart") == 1);

  // A variable no code names leaves the kernels to themselves; its address comes from a module
  // of the variables alone, translated at the module's first lookup (a malformed variable fails
  // the module then, as a whole translation would).
  const std::string Apart = R"(.version 7.0
.target sm_70
.address_size 64
.visible .global .align 4 .u32 tag[2] = {7, 9};
.visible .entry one(.param .u64 p) { .reg .b64 %rd<2>; ld.param.u64 %rd1, [p];
  st.global.u32 [%rd1], 1; ret; }
.visible .entry two(.param .u64 p) { .reg .b64 %rd<2>; ld.param.u64 %rd1, [p];
  st.global.u32 [%rd1], 2; ret; }
)";
  loader::ModuleLoader LA(*D, Log.options());
  auto A = ok(LA.open(bytesOf(Apart), "apart.ptx"));
  ok(A->kernel("one")); // the variables at the module's first lookup, then the kernel
  CHECK(LA.stats().Translations == 2);
  loader::GlobalSymbol Tag = ok(A->global("tag"));
  CHECK(LA.stats().Translations == 2);
  CHECK(Log.count("translated 'apart.ptx [variables]'") == 1);
  uint32_t TagValues[2] = {0, 0};
  ok(D->copy(TagValues, Tag.Address, sizeof TagValues, loader::CopyKind::DeviceToHost, nullptr));
  CHECK((TagValues[0] == 7 && TagValues[1] == 9));
  CHECK(ok(A->global("tag")).Address == Tag.Address);
  CHECK(errorText(A->global("none")).find("none") != std::string::npos);
  CHECK(LA.stats().Translations == 2);

  // CUDA_MODULE_LOADING=EAGER: a module's first lookup translates each of its kernels.
  std::string Ptx =
      std::string(llvm::toStringRef(readBytes(PTX2AMD_CUDA_PTX_DIR "/vector_add.sm90.ptx")));
  {
    ScopedEnv Eager("CUDA_MODULE_LOADING", "EAGER");
    loader::LoaderOptions O = ok(loader::LoaderOptions::fromEnvironment());
    CHECK(O.Eager);
    O.JitCache = nullptr;
    loader::ModuleLoader E(*D, std::move(O));
    auto EM = ok(E.open(bytesOf(Ptx), "vector_add"));
    CHECK(E.stats().Translations == 0);
    ok(EM->load());
    CHECK(E.stats().Translations == 2);
    ok(EM->kernel("_Z5iaxpyxiPKiS0_Pi"));
    CHECK(E.stats().Translations == 2);
  }
  ScopedEnv Lazy("CUDA_MODULE_LOADING", "LAZY");
  CHECK_FALSE(ok(loader::LoaderOptions::fromEnvironment()).Eager);
}

TEST_CASE("a second loader on the same cache folder translates nothing", "[module-loader]") {
  TempCacheDir Dir;
  std::string Ptx =
      std::string(llvm::toStringRef(readBytes(PTX2AMD_CUDA_PTX_DIR "/vector_add.sm90.ptx")));
  auto Load = [&](CodeObjectDevice &D, LogLines &Log, const std::string &Text, const char *Name) {
    // A Cache of its own, as another process would have: the hit comes from the folder.
    loader::ModuleLoader L(D, Log.options(Dir.open()));
    auto M = ok(L.open(bytesOf(Text), Name));
    auto Start = std::chrono::steady_clock::now();
    const loader::Kernel &K = ok(M->kernel("_Z5saxpyifPKfS0_Pf"));
    double Ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - Start).count();
    if (std::getenv("PTX2AMD_LOG"))
      llvm::errs() << "first kernel lookup: " << llvm::format("%.1f", Ms) << " ms\n";
    CHECK(K.metadata().explicitKernargSize() == 32);
    CHECK(ok(M->kernel("_Z5iaxpyxiPKiS0_Pi")).metadata().explicitKernargSize() == 40);
    return L.stats();
  };
  CodeObjectDevice First, Second;
  LogLines FirstLog, SecondLog;
  loader::LoaderStats S1 = Load(First, FirstLog, Ptx, "vector_add");
  // An entry per kernel.
  CHECK(S1.Translations == 2);
  CHECK(S1.CacheMisses == 2);
  CHECK(S1.CacheHits == 0);
  CHECK(FirstLog.count("cache miss for 'vector_add [_Z5saxpyifPKfS0_Pf]' (gfx90a) (key ") == 1);
  CHECK(FirstLog.count("translated 'vector_add [_Z5saxpyifPKfS0_Pf]' for gfx90a") == 1);
  CHECK(Dir.open()->stats()->Entries == 2);

  loader::LoaderStats S2 = Load(Second, SecondLog, Ptx, "vector_add");
  CHECK(S2.Translations == 0);
  CHECK(S2.CacheHits == 2);
  CHECK(S2.CacheMisses == 0);
  CHECK(SecondLog.count("cache hit for 'vector_add [_Z5saxpyifPKfS0_Pf]' (gfx90a)") == 1);
  CHECK(SecondLog.count("translated") == 0);
  REQUIRE(First.Loaded.size() == 2);
  REQUIRE(Second.Loaded.size() == 2);
  CHECK(First.Loaded == Second.Loaded);

  // Other options are another key.
  CodeObjectDevice Third;
  LogLines ThirdLog;
  loader::LoaderOptions O = ThirdLog.options(Dir.open());
  O.OptLevel = 1;
  loader::ModuleLoader L(Third, std::move(O));
  auto M = ok(L.open(bytesOf(Ptx), "vector_add"));
  ok(M->load()); // translates nothing: the kernels are translated one at a time
  CHECK(L.stats().Translations == 0);
  ok(M->kernel("_Z5iaxpyxiPKiS0_Pi"));
  CHECK(L.stats().Translations == 1);
  CHECK(L.stats().CacheMisses == 1);
}

TEST_CASE("kernels translated ahead of time for a GPU this machine lacks are what its loader "
          "finds",
          "[module-loader][aot]") {
  // ptx2amd aot --device hsa --arch gfx90a: a translating device, translation only; then a
  // loader of the GPU's format (CodeObjectDevice, as the HSA device) on the same folder.
  TempCacheDir Dir;
  std::string Ptx =
      std::string(llvm::toStringRef(readBytes(PTX2AMD_CUDA_PTX_DIR "/vector_add.sm90.ptx")));
  const char *Kernels[] = {"_Z5saxpyifPKfS0_Pf", "_Z5iaxpyxiPKiS0_Pi"};
  auto Translator = loader::createTranslatingDevice(*amdgpu::findTarget("gfx90a"));
  CHECK(Translator->properties().Format == loader::ModuleFormat::CodeObject);
  for (bool Again : {false, true}) {
    LogLines Log;
    loader::LoaderOptions O = Log.options(Dir.open());
    O.TranslateOnly = true;
    loader::ModuleLoader L(*Translator, std::move(O));
    auto M = ok(L.openEach(bytesOf(Ptx), "vector_add"));
    REQUIRE(M.size() == 1);
    for (const char *K : Kernels)
      CHECK(ok(M[0]->precompile(K)) == !Again); // translated, then found
    CHECK(L.stats().Translations == (Again ? 0 : 2));
    // The translating device refuses to run anything, saying why.
    auto Buffer = Translator->allocate(16, loader::MemoryKind::Device);
    REQUIRE(!Buffer);
    CHECK(llvm::toString(Buffer.takeError()).find("only translates") != std::string::npos);
  }
  CodeObjectDevice Gpu;
  LogLines Log;
  loader::ModuleLoader L(Gpu, Log.options(Dir.open()));
  auto M = ok(L.open(bytesOf(Ptx), "vector_add"));
  for (const char *K : Kernels)
    ok(M->kernel(K));
  CHECK(L.stats().Translations == 0);
  CHECK(L.stats().CacheHits == 2);
  CHECK(Gpu.Loaded.size() == 2);
}

TEST_CASE("the host device's second loader on the same cache folder translates nothing",
          "[module-loader]") {
  std::string Ptx =
      std::string(llvm::toStringRef(readBytes(PTX2AMD_CUDA_PTX_DIR "/vector_add.sm90.ptx")));
  for (const char *Target : WaveTargets) {
    INFO(Target);
    TempCacheDir Dir;
    auto D = ok(loader::createHostDevice(*amdgpu::findTarget(Target)));
    // Each loader has a Cache of its own, as another process would: a hit comes from the folder.
    auto Run = [&](LogLines &Log) {
      loader::ModuleLoader L(*D, Log.options(Dir.open()));
      auto M = ok(L.open(bytesOf(Ptx), "vector_add"));
      const loader::Kernel &K = ok(M->kernel("_Z5saxpyifPKfS0_Pf"));
      CHECK(K.metadata().explicitKernargSize() == 32);
      int N = 3000;
      float A = 2.5f;
      std::vector<float> X(N), Y(N);
      for (int I = 0; I < N; ++I) {
        X[I] = float(I % 37) * 0.5f;
        Y[I] = float(I % 11);
      }
      float *DX = upload(*D, X), *DY = upload(*D, Y);
      float *DOut = static_cast<float *>(ok(D->allocate(N * sizeof(float), MemoryKind::Device)));
      void *Args[] = {&N, &A, &DX, &DY, &DOut};
      ok(D->launch(K, geometry(6, 128), Args, nullptr));
      std::vector<float> Got = download(*D, DOut, N);
      for (int I = 0; I < N; ++I)
        CHECK(Got[I] == A * X[I] + Y[I]);
      for (void *P : {static_cast<void *>(DX), static_cast<void *>(DY), static_cast<void *>(DOut)})
        ok(D->release(P));
      // A kernel's reason for being unavailable is kept with the compiled form.
      auto Partial = ok(L.open(bytesOf(PartialPtx), "partial.ptx"));
      CHECK(errorText(Partial->kernel("uses_tex")).find("partial.ptx:9:3") != std::string::npos);
      ok(Partial->kernel("plain"));
      return L.stats();
    };
    LogLines FirstLog, SecondLog;
    loader::LoaderStats S1 = Run(FirstLog);
    // An entry per kernel looked up: saxpy, uses_tex (its reason) and plain.
    CHECK(S1.Translations == 3);
    CHECK(S1.CacheMisses == 3);
    CHECK(S1.CacheHits == 0);
    CHECK(FirstLog.count("translated 'vector_add [_Z5saxpyifPKfS0_Pf]' for " +
                         std::string(Target)) == 1);
    CHECK(Dir.open()->stats()->Entries == 3);

    loader::LoaderStats S2 = Run(SecondLog);
    CHECK(S2.Translations == 0);
    CHECK(S2.CacheHits == 3);
    CHECK(S2.CacheMisses == 0);
    CHECK(S2.Loaded == 3);
    CHECK(SecondLog.count("cache hit for 'vector_add [_Z5saxpyifPKfS0_Pf]' (" +
                          std::string(Target) + ")") == 1);
    CHECK(SecondLog.count("translated") == 0);
  }
}

/// \p O translating every module whole.
static loader::LoaderOptions wholeModules(loader::LoaderOptions O) {
  O.PerKernel = false;
  return O;
}

TEST_CASE("a host cache entry the host device refuses is translated again and replaced",
          "[module-loader]") {
  TempCacheDir Dir;
  auto D = ok(loader::createHostDevice(*amdgpu::findTarget("gfx90a")));
  // Whole modules: the entry's key is the module's text.
  auto Whole = [&](LogLines &Log) { return wholeModules(Log.options(Dir.open())); };
  LogLines First;
  {
    loader::ModuleLoader L(*D, Whole(First));
    ok(ok(L.open(bytesOf(PartialPtx), "partial.ptx"))->load());
  }
  // Another format version: the entry is still a valid cache entry, so the cache hands it over.
  auto C = Dir.open();
  loader::CacheKeyFields Fields;
  Fields.Ptx = PartialPtx;
  Fields.Target = "gfx90a";
  Fields.Output = loader::HostCompiledOutput;
  Fields.Options = D->properties().CompiledFor;
  loader::CacheKey Key = loader::CacheKey::compute(Fields);
  std::vector<uint8_t> Bytes = *C->lookup(Key);
  Bytes[4] ^= 0xff;
  ok(C->store(Key, Bytes));

  LogLines Second;
  loader::ModuleLoader L(*D, Whole(Second));
  auto M = ok(L.open(bytesOf(PartialPtx), "partial.ptx"));
  ok(M->kernel("plain"));
  CHECK(L.stats().Translations == 1);
  CHECK(L.stats().CacheMisses == 1);
  CHECK(Second.count("cache entry for 'partial.ptx' discarded: ") == 1);
  CHECK(Second.count("translated 'partial.ptx'") == 1);

  LogLines Third;
  loader::ModuleLoader L3(*D, Whole(Third));
  ok(ok(L3.open(bytesOf(PartialPtx), "partial.ptx"))->kernel("plain"));
  CHECK(L3.stats().CacheHits == 1);
  CHECK(L3.stats().Translations == 0);
}

TEST_CASE("a host cache entry compiled for another CPU is not used", "[module-loader]") {
  // x86-64 is the baseline CPU: every x86-64 host runs its code, and this host's own identity
  // (detected CPU and features) differs from it.
  // Whole modules: the entries' keys are the module's text.
  TempCacheDir Dir;
  std::unique_ptr<loader::Device> Baseline;
  {
    ScopedEnv Cpu("PTX2AMD_HOST_CPU", "x86-64");
    Baseline = ok(loader::createHostDevice(*amdgpu::findTarget("gfx90a")));
    LogLines Log;
    loader::ModuleLoader L(*Baseline, wholeModules(Log.options(Dir.open())));
    ok(ok(L.open(bytesOf(PartialPtx), "partial.ptx"))->kernel("plain"));
    CHECK(L.stats().Translations == 1);
  }
  ScopedEnv Cpu("PTX2AMD_HOST_CPU", nullptr);
  auto Native = ok(loader::createHostDevice(*amdgpu::findTarget("gfx90a")));
  const std::string &BaselineId = Baseline->properties().CompiledFor;
  const std::string &NativeId = Native->properties().CompiledFor;
  CHECK(BaselineId.find(" x86-64 ") != std::string::npos);
  REQUIRE(BaselineId != NativeId);

  // Another CPU's entry has another key: this CPU translates and stores its own.
  LogLines Second;
  loader::ModuleLoader L(*Native, wholeModules(Second.options(Dir.open())));
  ok(ok(L.open(bytesOf(PartialPtx), "partial.ptx"))->kernel("plain"));
  CHECK(L.stats().CacheHits == 0);
  CHECK(L.stats().Translations == 1);
  CHECK(Dir.open()->stats()->Entries == 2);

  // And where another CPU's compiled form sits under this CPU's key (a cache written by an older
  // version), the host device refuses it rather than running code this CPU may lack.
  auto C = Dir.open();
  loader::CacheKeyFields Fields;
  Fields.Ptx = PartialPtx;
  Fields.Target = "gfx90a";
  Fields.Output = loader::HostCompiledOutput;
  Fields.Options = BaselineId;
  std::vector<uint8_t> Foreign = *C->lookup(loader::CacheKey::compute(Fields));
  Fields.Options = NativeId;
  ok(C->store(loader::CacheKey::compute(Fields), Foreign));
  LogLines Third;
  loader::ModuleLoader L3(*Native, wholeModules(Third.options(Dir.open())));
  ok(ok(L3.open(bytesOf(PartialPtx), "partial.ptx"))->kernel("plain"));
  CHECK(L3.stats().CacheHits == 0);
  CHECK(L3.stats().Translations == 1);
  CHECK(Third.count("cache entry for 'partial.ptx' discarded: ") == 1);
}

TEST_CASE("PTX2AMD_HOST_CPU names a CPU LLVM knows, with no instruction this CPU lacks",
          "[module-loader]") {
  {
    ScopedEnv Cpu("PTX2AMD_HOST_CPU", "no-such-cpu");
    std::string Error = errorText(loader::createHostDevice(*amdgpu::findTarget("gfx90a")));
    CHECK(Error.find("PTX2AMD_HOST_CPU='no-such-cpu' is not an x86-64 CPU LLVM knows") !=
          std::string::npos);
  }
  {
    // A CPU of another architecture level than this one's, with some instruction it lacks.
    ScopedEnv Cpu("PTX2AMD_HOST_CPU", "diamondrapids");
    std::string Error = errorText(loader::createHostDevice(*amdgpu::findTarget("gfx90a")));
    CHECK(Error.find(") this CPU (") != std::string::npos);
  }
}

TEST_CASE("an AVX2 host takes haswell and x86-64-v3, whatever system instructions it lacks",
          "[module-loader]") {
  // haswell has invpcid, which many EPYC guests hide: only what code generation can use counts.
  if (!llvm::sys::getHostCPUFeatures().lookup("avx2"))
    SUCCEED("this host has no AVX2");
  else
    for (const char *Name : {"haswell", "x86-64-v3"}) {
      ScopedEnv Cpu("PTX2AMD_HOST_CPU", Name);
      auto D = ok(loader::createHostDevice(*amdgpu::findTarget("gfx1100")));
      CHECK(D->properties().CompiledFor.find(std::string(" ") + Name + " ") != std::string::npos);
    }
}

TEST_CASE("NVIDIA's device runtime is told from other PTX by its version variable",
          "[module-loader]") {
  CHECK(loader::isNvidiaDeviceRuntime(".version 9.0\n.target sm_121\n.address_size 64\n"
                                      ".visible .global .align 4 .u32 __CNPRT_VERSION_NUMBER__ "
                                      "= 6000;\n"));
  CHECK_FALSE(loader::isNvidiaDeviceRuntime(".version 9.0\n.target sm_75\n.address_size 64\n"
                                            ".extern .global .align 4 .u32 "
                                            "__CNPRT_VERSION_NUMBER__;\n"));
  CHECK_FALSE(loader::isNvidiaDeviceRuntime(".version 9.0\n.target sm_75\n"));
}
