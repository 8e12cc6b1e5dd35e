//===- ptx2amd/loader/ModuleLoader.h - CUDA images to loaded modules -*- C++ -*-===//
//
// What the runtime calls when a program registers a fatbin (__cudaRegisterFatBinary) or loads a
// module (cuModuleLoadData): the image's PTX is selected at once (fatbin/Select.h), and translated
// for the device's target lazily, as CUDA's lazy loading does: one kernel at a time, at its first
// lookup (launch or attribute query), with the functions it reaches (grammar::outlineModule),
// where the module's kernels share no state; else the whole module at its first kernel or
// variable lookup (see loader/README.md).
//
//   loader::ModuleLoader L(Dev, cantFail(loader::LoaderOptions::fromEnvironment()));
//   auto M = L.open(ImageBytes, "prog");      // selects the PTX, translates nothing
//   auto K = (*M)->kernel("_Z5saxpyifPKfPf");  // translates (or takes from the cache), loads
//   Dev.launch(*K, Geometry, Args, nullptr);
//
// A device that loads code objects (HSA) gets them through the JIT cache (Cache.h): the key is
// the PTX text (a kernel's: its slice), the target, the options and translatorVersion(); the
// payload is the code object
// and each kernel's state (its metadata is in the code object). The host device translates the
// PTX itself (ModuleFormat::Ptx); its cache entries (same key, output kind "host") hold
// host-backend's compiled form of the module (the x86-64 object and the kernel table), which it
// loads without translating. An entry it refuses (another format version or host CPU) is
// translated again and replaced.
//
// A kernel that failed to translate gives an error naming it and why; the module's other kernels
// keep working. PTX2AMD_LOG=info writes each translation and each cache hit or miss to stderr,
// one line each; debug adds the cache keys and each module opened.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ptx2amd/fatbin/Select.h"
#include "ptx2amd/loader/Cache.h"
#include "ptx2amd/loader/Device.h"
#include "ptx2amd/support/Error.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ptx2amd::grammar {
class ModuleOutline;
}

namespace ptx2amd::loader {

enum class LogLevel { Off, Info, Debug };

/// The cache's output kinds: a code object with its kernels' states, or the host device's
/// compiled form of a module.
inline constexpr unsigned CodeObjectOutput = 0x68736361;   // "hsca"
inline constexpr unsigned HostCompiledOutput = 0x686f7374; // "host"

/// The compiled form of \p M, a module a host device (ModuleFormat::Ptx) loaded: host-backend's
/// LoadedModule::compiled().
std::vector<uint8_t> hostCompiledForm(Module &M);
/// Loads \p Compiled (from hostCompiledForm) on host device \p D without translating; bytes of
/// another format version, target or host, or corrupt ones, are an error. \p Variables: as
/// ModuleImage's, for the module's object to link to.
llvm::Expected<std::unique_ptr<Module>>
loadHostCompiled(Device &D, llvm::StringRef Name, llvm::ArrayRef<uint8_t> Compiled,
                 const ModuleImage::VariableAddresses &Variables = {});

/// Reads a PTX2AMD_LOG value: "" or off, info, debug; anything else is an error.
llvm::Expected<LogLevel> parseLogLevel(llvm::StringRef Value);

struct LoaderOptions {
  unsigned OptLevel = 3;          ///< of the translation, 0..3
  unsigned CodeObjectVersion = 5; ///< 4, 5 or 6
  /// The runtime bounds the arch by the compute capability it reports (HighestArchAtMost, as
  /// CUDA's driver); a selection that fails only for that bound is ErrorKind::Unsupported (no
  /// image for the device). NVIDIA's device runtime in an -rdc unit, PTX for its newest arch
  /// only, is taken whatever the bound (linkRdcUnit leaves it out).
  fatbin::SelectionPolicy Selection;
  std::shared_ptr<Cache> JitCache; ///< null: every module is translated
  LogLevel Log = LogLevel::Off;
  /// Receives each log line (without its newline), possibly from several threads; by default
  /// they go to stderr.
  std::function<void(const std::string &)> LogSink;
  /// Translate a module's kernels one at a time where its kernels share no state; false: every
  /// module whole.
  bool PerKernel = true;
  /// Translate at the first lookup every kernel of the module (CUDA_MODULE_LOADING=EAGER), not
  /// each at its own.
  bool Eager = false;
  /// Kernels' translations go into the cache and are not loaded (`ptx2amd aot`); a kernel
  /// whose entry is there is not read. Variables and whole modules still load.
  bool TranslateOnly = false;

  /// PTX2AMD_LOG, CUDA_MODULE_LOADING and the cache of CacheConfig::fromEnvironment(); a
  /// malformed PTX2AMD_LOG is an error.
  static llvm::Expected<LoaderOptions> fromEnvironment();
};

/// What a ModuleLoader did, since it was made.
struct LoaderStats {
  uint64_t Opened = 0;       ///< images opened
  uint64_t Loaded = 0;       ///< modules loaded on the device
  uint64_t Translations = 0; ///< PTX modules (or kernels' slices) translated: cache misses
  uint64_t CacheHits = 0, CacheMisses = 0;
};

class ModuleLoader;

/// One image's PTX, loaded on the device at the first kernel() or global(). Thread-safe; the
/// ModuleLoader must outlive it.
class LazyModule final : public Module {
public:
  ~LazyModule() override;
  /// The kernel called \p Name; an error names it and says why it is not available (its
  /// translation failed, or the module's did).
  llvm::Expected<const Kernel &> kernel(llvm::StringRef Name) override;
  llvm::Expected<GlobalSymbol> global(llvm::StringRef Name) override;
  /// Translates and loads now, as the first lookup would: the whole module, or, where it is
  /// translated per kernel, nothing (every kernel when LoaderOptions::Eager). A module-level
  /// failure is the error, and every later call returns it again.
  llvm::Error load();
  /// After a successful load(): whether the PTX declares kernel \p Name (available or not).
  bool hasKernel(llvm::StringRef Name);
  /// The kernels the PTX declares (available or not); none when the module does not load.
  std::vector<std::string> kernelNames() override;
  /// Translates kernel \p Name as its first lookup would (with LoaderOptions::TranslateOnly,
  /// into the cache only): whether it was translated now, false when the cache had it; an error
  /// says why it cannot be. The kernels of a module translated whole share its answer.
  llvm::Expected<bool> precompile(llvm::StringRef Name);

  /// The selected PTX: its name in messages ("prog: container 0 entry 1 (offset 0x...)") and text.
  const std::string &name() const { return Name; }
  const std::string &ptx() const { return Ptx; }

  /// Launches \p K, a kernel of this module, as Device::launch does, and then what its grid
  /// launched from the device (CUDA dynamic parallelism: `<<<>>>`, cudaMemcpyAsync and
  /// cudaMemsetAsync in kernels; amdgpu-backend/DeviceLaunches.h), on \p S: a grid is complete
  /// when all it launched is. In a module that launches nothing from the device this is
  /// Device::launch; in one that does it returns when all is done (DeviceLaunches.cpp).
  llvm::Error launch(const Kernel &K, const amdgpu::LaunchGeometry &G, void **Args, Stream *S,
                     const LaunchOptions &O = {});

private:
  friend class ModuleLoader;
  struct DeviceLaunches;
  LazyModule(ModuleLoader &L, std::string Name, std::string Ptx);
  /// Gives the module its launch queue when it has one (amdgpu::LaunchQueueSymbol) and fills its
  /// kernel handles; with Mutex held, after the module loaded.
  llvm::Error attachDeviceLaunches();
  /// Device::launch, or runGrid where the module launches from the device.
  llvm::Error start(const Kernel &K, const amdgpu::LaunchGeometry &G, void **Args, Stream *S,
                    const LaunchOptions &O);
  llvm::Error runGrid(const Kernel &K, const amdgpu::LaunchGeometry &G, void **Args, Stream *S,
                      const LaunchOptions &O, uint32_t Depth, uint64_t &Pending);

  /// One translation: the whole module's, or one kernel's slice.
  struct Unit {
    std::mutex Mutex; ///< held while it is translated and loaded
    bool Attempted = false;
    std::string Failure;                         ///< the failure, when Attempted
    ErrorKind FailureKind = ErrorKind::Internal; ///< and its kind
    llvm::StringMap<std::string> Unavailable;    ///< kernel -> why, from the translation
    std::unique_ptr<Module> DeviceModule;        ///< null for a kernel under TranslateOnly
    bool FromCache = false;                      ///< loaded (or found) in the cache, not translated
    llvm::Error error() const;
    /// Marks the unit attempted, keeping \p E's failure for every later lookup.
    void settle(llvm::Error E);
  };
  /// Translates and loads kernel \p KernelName's slice once (Outline set); kernels of one
  /// module translate concurrently, each once. \p InGlobal: its translation with dynamic shared
  /// memory in global memory, made at the first launch that needs it.
  Unit &kernelUnit(llvm::StringRef KernelName, bool InGlobal = false);
  /// Launches \p K, whose static and dynamic shared memory do not fit the device's LDS, from
  /// its translation that places dynamic shared memory in global memory (a slice per block,
  /// allocated for the grid and freed when it is done: the launch waits for the grid).
  llvm::Error launchDynamicSharedInGlobal(const Kernel &K, const amdgpu::LaunchGeometry &G,
                                          void **Args, Stream *S, const LaunchOptions &O);
  /// Translates and loads the data slice once, where the module (Outline set) has variables.
  llvm::Error loadData();
  /// \p U's kernel \p KernelName, once \p U is loaded.
  llvm::Expected<const Kernel &> kernelOf(Unit &U, llvm::StringRef KernelName);
  /// The unit that holds kernel \p KernelName (the module loaded, the kernel's slice translated).
  llvm::Expected<Unit &> unitOf(llvm::StringRef KernelName);
  /// Why \p U's kernel \p KernelName cannot run: the unit failed, or the kernel did; success
  /// when it can.
  llvm::Error usable(const Unit &U, llvm::StringRef KernelName) const;

  ModuleLoader &Loader;
  std::string Name, Ptx;
  std::mutex Mutex;
  bool Attempted = false;
  Unit Whole; ///< the whole module, when not translated per kernel
  /// The kernels and their slices when the module is translated per kernel (its Ptx outlined
  /// once, at the first lookup); null otherwise.
  std::unique_ptr<grammar::ModuleOutline> Outline;
  llvm::StringMap<Unit> Kernels;         ///< per kernel, as each is looked up
  llvm::StringMap<Unit> InGlobalKernels; ///< per kernel, launches past the LDS (kernelUnit)
  Unit Data; ///< the module's variables (the data slice), at its first lookup (Outline set)
  std::unique_ptr<DeviceLaunches> Launches; ///< null: the module launches nothing itself
};

/// One PTX module linked from the per-TU modules of relocatable device code (nvcc -rdc).
struct LinkedPtx {
  std::string Name; ///< "<binary>: -rdc link of N modules"
  std::string Text; ///< what is translated, and what the cache key hashes
};

/// Whether \p Ptx is NVIDIA's device runtime (the PTX of libcudadevrt, which -rdc programs that
/// launch kernels from the device link): CUDA's device runtime over syscalls of NVIDIA's driver,
/// which the project's device library serves instead (amdgpu-backend/DeviceLaunches.h).
bool isNvidiaDeviceRuntime(llvm::StringRef Ptx);

/// Links \p Units, the PTX entries of one -rdc registration unit of \p F (a ModuleSelection with
/// NeedsLinking), into one module (ir::linkModules); \p Name names the binary. NVIDIA's device
/// runtime among them (isNvidiaDeviceRuntime) is left out, unless it is all there is.
llvm::Expected<LinkedPtx> linkRdcUnit(const fatbin::Fatbin &F,
                                      llvm::ArrayRef<const fatbin::Entry *> Units,
                                      llvm::StringRef Name);

class ModuleLoader {
public:
  explicit ModuleLoader(Device &D, LoaderOptions Opts = {});

  Device &device() const { return Dev; }
  const LoaderOptions &options() const { return Opts; }

  /// An image in memory, copied as needed: fatbin containers (a .fatbin file's bytes), a host
  /// ELF or cubin that holds them, or PTX text; \p Name names it in messages. Its PTX is
  /// selected by the options' policy now; an image without usable PTX is an error. The per-TU
  /// PTX modules of relocatable device code (-rdc) are linked into one (ir::linkModules).
  llvm::Expected<std::unique_ptr<LazyModule>> open(llvm::ArrayRef<uint8_t> Image,
                                                   llvm::StringRef Name);
  /// Every registration unit of \p Image (an executable or library holds one per translation
  /// unit) that the CUDA runtime registers and that has PTX for the device, each opened as the
  /// runtime opens its wrapper (`ptx2amd aot`); a lone fatbin or PTX text as open() does.
  llvm::Expected<std::vector<std::unique_ptr<LazyModule>>> openEach(llvm::ArrayRef<uint8_t> Image,
                                                                    llvm::StringRef Name);
  /// The __fatBinC_Wrapper_t a program passes to __cudaRegisterFatBinary.
  llvm::Expected<std::unique_ptr<LazyModule>> openWrapper(const void *Wrapper,
                                                          llvm::StringRef Name);

  LoaderStats stats() const;

  /// The device heap of kernels' malloc (cudaLimitMallocHeapSize): its size may change until a
  /// module that allocates is loaded, which makes it.
  uint64_t heapBytes() const;
  llvm::Error setHeapBytes(uint64_t Bytes);

  /// What device code reads of the device runtime (CUDA dynamic parallelism): the runtime's
  /// answers to cudaDeviceGetAttribute (by cudaDeviceAttr; amdgpu::LaunchAttributeCount of them)
  /// and its limits (by cudaLimit; cudaLimitDevRuntimePendingLaunchCount, 4, bounds the launches
  /// a grid's tree holds at once).
  void setDeviceAttributes(llvm::ArrayRef<int32_t> Values);
  void setDeviceLimit(unsigned Limit, uint64_t Value);

private:
  friend class LazyModule;
  llvm::Expected<std::unique_ptr<LazyModule>> openSelected(const fatbin::Fatbin &F,
                                                           llvm::StringRef Name);
  llvm::Expected<std::unique_ptr<LazyModule>>
  openChosen(const fatbin::Fatbin &F, const fatbin::ModuleSelection &S, llvm::StringRef Name);
  /// Translates (or takes from the cache) and loads \p Ptx, module \p ModuleName's or its
  /// kernel \p Kernel's slice, into \p U; \p Variables: those it declares, which the module's
  /// data slice defines (ModuleImage::Variables); \p InGlobal: dynamic shared memory in global
  /// memory (ModuleImage::DynamicSharedInGlobal); \p TranslateOnly: into the cache only.
  llvm::Error loadUnit(llvm::StringRef ModuleName, llvm::StringRef Kernel, llvm::StringRef Ptx,
                       LazyModule::Unit &U, ModuleImage::VariableAddresses Variables = {},
                       bool InGlobal = false, bool TranslateOnly = false);
  void log(LogLevel Level, const std::string &Line);
  /// Points \p M's heap variable (amdgpu::HeapSymbol), when it has one, at the device heap,
  /// made on first need.
  llvm::Error attachHeap(Module &M);

  Device &Dev;
  mutable std::mutex HeapMutex;
  void *Heap = nullptr;
  uint64_t HeapBytes = 8 << 20; ///< CUDA's default
  mutable std::mutex RuntimeMutex;
  std::vector<int32_t> Attributes;                                  ///< setDeviceAttributes
  uint64_t Limits[8] = {1024, 1 << 20, 8 << 20, 2, 2048, 64, 0, 0}; ///< CUDA's defaults
  LoaderOptions Opts;
  std::atomic<uint64_t> Opened{0}, Loaded{0}, Translations{0}, CacheHits{0}, CacheMisses{0};
};

} // namespace ptx2amd::loader
