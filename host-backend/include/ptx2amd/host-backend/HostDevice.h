//===- ptx2amd/host-backend/HostDevice.h - translated kernels on the CPU -*- C++ -*-===//
//
// The host backend: the final AMDGPU module of a translation (after lowering, device libraries
// and optimisation, the IR that goes to instruction selection) re-targeted to the host and run
// by a wave emulator with the target's wave size. See host-backend/README.md.
//
//   auto Dev = host::Device::create();
//   auto Mod = (*Dev)->loadPtx(PtxText, "saxpy.ptx", *amdgpu::findTarget("gfx90a"));
//   float *X = static_cast<float *>((*Dev)->allocate(N * sizeof(float)));
//   void *Args[] = {&N, &A, &X, &Y};
//   auto Out = (*Dev)->launch(**Mod, "_Z5saxpyifPKfPf", {{Blocks}, {256}}, Args);
//
// A loaded module can be exported in compiled form (LoadedModule::compiled(): the x86-64 object
// and the kernel table, versioned and checksummed) and loaded again by Device::loadCompiled()
// without parsing, lowering, optimising or compiling: the loader's JIT cache keeps it.
//
// Every failure is an llvm::Error: a kernel that cannot run here (with the reason), a trap or
// failed device assertion, a memory fault in the kernel, a workgroup that stops making progress
// (a deadlock at a barrier, an endless loop: see LaunchConfig::WatchdogMs). After a failed launch
// the device and the module stay usable.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ptx2amd/amdgpu-backend/DeviceOutput.h"
#include "ptx2amd/amdgpu-backend/KernelMetadata.h"
#include "ptx2amd/amdgpu-backend/Target.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace llvm {
class Module;
} // namespace llvm

#include <cstdint>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

namespace ptx2amd::host {

struct Dim3 {
  uint32_t X = 1, Y = 1, Z = 1;
};

struct LaunchConfig {
  Dim3 Grid;  ///< blocks
  Dim3 Block; ///< threads per block (at most 1024)
  uint32_t DynamicSharedBytes = 0;
  /// A workgroup that makes no progress for this long (no work-item reaches a barrier or a
  /// cross-lane operation, or exits; a plain loop stays at one work-item) is stopped and the
  /// launch fails. 0: PTX2AMD_HOST_WATCHDOG_MS when set, else 5000.
  unsigned WatchdogMs = 0;
  /// A cooperative launch (cudaLaunchCooperativeKernel): every block runs at once, each worker
  /// holding its share (Device::computeUnits), so that blocks may wait for each other;
  /// the kernel finds the grid workspace of cooperative_groups' grid barrier in
  /// hidden_multigrid_sync_arg (%envreg1/%envreg2). A grid that does not fit is an error.
  bool Cooperative = false;
  /// Runs a compiled workgroup's kernel as fibers, the fallback (PTX2AMD_HOST_FIBERS=1 does so
  /// for every launch: HostOverrides::Fibers): to compare the two.
  bool Fibers = false;
  /// Runs a vectorised kernel's work-items one at a time instead, as fibers (a vectorised kernel
  /// has no plain loop or compiled workgroup; loaded with PTX2AMD_HOST_VECTOR=0, no kernel is
  /// vectorised and each gets those instead): to compare the two.
  bool Scalar = false;
  /// At most this many of the process's workers take this launch's workgroups (0: all of them;
  /// more than there are: all). To time a kernel on one core beside all of them in one process.
  /// A cooperative launch uses every worker.
  unsigned Workers = 0;
  /// Not 0: where the blocks' dynamic shared memory lies (amdgpu::LaunchGeometry). Last, so
  /// that configurations written field by field keep their meaning.
  uint64_t DynamicSharedAddress = 0;
};

/// What the process's environment forces on the host device, for comparing its ways of running
/// kernels: read once, into every LoadOptions made (LoadOptions::Forced).
struct HostOverrides {
  /// PTX2AMD_HOST_VECTOR=0: no kernel is vectorised over its waves, whatever
  /// LoadOptions::VectorizeWaves says; the host identity says so, so that a cache keeps the two
  /// apart.
  bool NoWaveVectors = false;
  /// PTX2AMD_HOST_FIBERS=1: every launch of the module runs as LaunchConfig::Fibers asks.
  bool Fibers = false;
  /// PTX2AMD_HOST_DIFFERENTIAL=1: the module keeps every function its kernels could run by, and
  /// each launch runs under every plan that applies to its kernel, each from the same device
  /// memory, and fails when one plan's memory differs from the default plan's
  /// (host-backend/README.md, "Differential mode"). The host identity says so.
  bool Differential = false;
  /// The process's, read from its environment on first use.
  static const HostOverrides &environment();
};

/// How a module is translated for the host: as for a code object of these options.
/// A module variable that another module defines.
struct ExternalVariable {
  std::string Name;
  void *Address = nullptr;
  uint64_t Size = 0;
};

struct LoadOptions {
  unsigned OptLevel = 3; ///< the AMDGPU pipeline's level (as for code objects); also the host's
  unsigned CodeObjectVersion = 5; ///< of the hidden kernel arguments the module reads
  /// Called with the optimised module as the pipeline hands it over, before retargeting.
  std::function<void(const llvm::Module &)> OnOptimized;
  /// Vectorises kernels over their waves where it can (hosts with AVX-512; host-backend/README.md,
  /// "Waves as vectors"); false (or PTX2AMD_HOST_VECTOR=0 for every load): each kernel's work-items
  /// one at a time, a plain loop or a compiled workgroup.
  bool VectorizeWaves = true;
  /// What the environment forces on the module and each of its launches.
  HostOverrides Forced = HostOverrides::environment();
  /// Tests only: the wave vectoriser gives every lane's 32-bit `xor` plus one, a deliberately
  /// broken vectorisation that the differential mode must catch.
  bool BreakWaveXorForTests = false;
  /// Tests only: a wave function's instructions past which its kernel runs as work-items
  /// (0: the vectoriser's limit, MaxWaveInstructions in WaveVectorizer.h).
  unsigned MaxWaveInstructionsForTests = 0;
  /// The module variables the module declares and another module defines (lazy per-kernel
  /// translation's data slice): translated with amdgpu::CodegenOptions::ExternalVariables,
  /// linked to these addresses, and snapshot in the differential mode as the module's own.
  std::vector<ExternalVariable> Variables;
  /// Translated with amdgpu::CodegenOptions::DynamicSharedInGlobal.
  bool DynamicSharedInGlobal = false;
};

/// The version of LoadedModule::compiled()'s format; loadCompiled() refuses every other. 4: kernels
/// carry lockstep points (code cached before them would run warp-synchronous code wrongly); 5:
/// each kernel's count of them, and LaneState's posts first (the code reads other offsets); 6:
/// each kernel's wave function (or why it has none); 7: fibers' synchronisation calls post
/// their sites (the runtime reads the site the code stored, no longer the return address); 8:
/// each kernel's reason its results may depend on its work-items' order, and every function
/// made for it where the module keeps them all (the differential mode); 9: loops that make the
/// wave meet end each iteration with a wave barrier (code cached before ran work-items of two
/// iterations into one meeting).
inline constexpr uint32_t CompiledFormatVersion = 9;

/// How a kernel's workgroup runs.
enum class Execution {
  Waves,     ///< vectorised: a wave at a time, its lanes as vector elements (VectorizeWaves)
  Loop,      ///< no barrier or cross-lane operation: its work-items one after another
  WorkGroup, ///< compiled workgroup: work-items in turn from one synchronisation point to the next
  Fibers,    ///< the fallback: a fiber per work-item
};

/// A module variable (`.global`/`.const`) of a loaded module.
struct GlobalInfo {
  std::string Name;
  uint64_t Size = 0;
};

/// A translated module, compiled for the host.
class LoadedModule {
public:
  ~LoadedModule();
  const amdgpu::Target &target() const;
  /// Every kernel of the PTX module, in module order.
  std::vector<std::string> kernels() const;
  /// Why \p Kernel cannot run here (translation failed, or something the host backend does not
  /// implement), or an empty string.
  std::string unavailableReason(llvm::StringRef Kernel) const;
  /// How \p Kernel runs its work-items.
  Execution execution(llvm::StringRef Kernel) const;
  /// Whether \p Kernel runs on the fiber fallback (it meets, and region formation could not
  /// make it a compiled workgroup).
  bool usesFibers(llvm::StringRef Kernel) const;
  /// Why \p Kernel runs on the fiber fallback (empty: it does not).
  std::string fiberReason(llvm::StringRef Kernel) const;
  /// Why \p Kernel is not vectorised over its waves (empty: it is).
  std::string vectorReason(llvm::StringRef Kernel) const;
  /// How many places of \p Kernel its wave meets at so that its lanes keep a real wave's
  /// lockstep order through memory (host-backend/README.md, "Lockstep"); 0 for most kernels.
  unsigned lockstepPoints(llvm::StringRef Kernel) const;
  /// The host address of a global variable of the module (`.global`/`.const`), or an error.
  /// Every such variable stays in the compiled module and writable: what the host writes there
  /// between launches (cudaMemcpyToSymbol) the next launch reads.
  llvm::Expected<void *> global(llvm::StringRef Name) const;
  /// The module's `.global`/`.const` variables, in module order.
  const std::vector<GlobalInfo> &globals() const;
  /// The metadata launches pack the kernarg segment by (explicit arguments, v5 hidden ones,
  /// static LDS), or null for a kernel that is missing or cannot run.
  const amdgpu::KernelMetadata *metadata(llvm::StringRef Kernel) const;

  /// The module in compiled form, for Device::loadCompiled() (in another process too, on a host
  /// with the same CPU): "P2HC", u32 CompiledFormatVersion, u64 checksum (xxh3) of the body,
  /// u64 body size, then the body: the AMDGPU target, the host identity (triple, CPU, features),
  /// static LDS bytes, whether the module has a device output buffer, per kernel its name, why
  /// it is unavailable, whether it meets, its entry, loop and compiled-workgroup symbols, why it
  /// stays on fibers, its wave symbols, why it is not vectorised, why it is order-dependent, and
  /// its metadata;
  /// the globals (name, size); and the x86-64 object. Little-endian.
  std::vector<uint8_t> compiled() const;

  struct Impl;

private:
  friend class Device;
  explicit LoadedModule(std::unique_ptr<Impl> P);
  std::unique_ptr<Impl> P;
};

/// The CPU device. Workers (one per core, `PTX2AMD_HOST_THREADS` to choose) are shared by every
/// Device of the process; launches run one at a time.
class Device {
public:
  static llvm::Expected<std::unique_ptr<Device>> create();
  /// What compiled modules depend on besides the AMDGPU target: the triple, CPU and features host
  /// code is generated for (the detected CPU, or `PTX2AMD_HOST_CPU`: an LLVM CPU name such as
  /// x86-64, the baseline). A compiled form is only loaded where this is the same.
  /// (\p Opts: its Forced.NoWaveVectors, which the identity names.)
  static llvm::Expected<std::string> hostIdentity(const LoadOptions &Opts = {});
  /// The compute units a cooperative launch may fill, starting the workers if needed: one a
  /// worker, which holds up to 2048 threads in up to 32 blocks at once.
  static llvm::Expected<unsigned> computeUnits();
  ~Device();

  /// Translates PTX text for \p T (a target of the table; wave64 or wave32) through the
  /// translation pipeline, as for a code object, then re-targets the optimised module and
  /// compiles it for the host.
  llvm::Expected<std::unique_ptr<LoadedModule>> loadPtx(llvm::StringRef Ptx, llvm::StringRef Name,
                                                        const amdgpu::Target &T,
                                                        const LoadOptions &Opts = {});
  /// The module loadPtx() would compile for the host, as LLVM IR text: the optimised module
  /// re-targeted (kernel entries, compiled workgroups, vectorised waves), before the host's own
  /// optimisation and code generation, each kernel's execution and its reasons in comments at
  /// the top. What `ptx2amd compile --emit host-ll` writes. Starts no workers.
  static llvm::Expected<std::string> retargetedModule(llvm::StringRef Ptx, llvm::StringRef Name,
                                                      const amdgpu::Target &T,
                                                      const LoadOptions &Opts = {});
  /// Loads what LoadedModule::compiled() returned, for \p T, linking its object only. Bytes of
  /// another format version, target or host, or that fail the checksum, are an error saying so.
  /// Of \p Opts only Forced (the host identity, fibers for every launch) and Variables count.
  llvm::Expected<std::unique_ptr<LoadedModule>> loadCompiled(llvm::ArrayRef<uint8_t> Bytes,
                                                             const amdgpu::Target &T,
                                                             const LoadOptions &Opts = {});

  /// Device memory: host memory, zeroed, 256-byte aligned. Null when it cannot be allocated.
  /// The device knows it until release(): the differential mode snapshots it.
  void *allocate(size_t Bytes);
  void release(void *P);
  /// Host memory kernels may reach that the program's threads may write while a kernel runs
  /// (pinned, managed or registered; allocate()'s too, once named here), until forgetMemory(\p P)
  /// or release(): the differential mode runs only the default plan of a launch given a pointer
  /// into it.
  static void knowMemory(void *P, size_t Bytes);
  static void forgetMemory(void *P);
  /// In the differential mode, what writes device memory outside launches (copies on other
  /// streams) holds this shared: a differential launch holds it alone while it restores memory.
  static std::shared_mutex &memoryMutex();

  /// Runs \p Kernel of \p M and waits. \p Args holds one pointer per kernel parameter (CUDA's
  /// `kernelParams`). Returns the device printf output and assertions of the launch.
  llvm::Expected<amdgpu::DeviceOutput> launch(LoadedModule &M, llvm::StringRef Kernel,
                                              const LaunchConfig &C, void **Args);

private:
  Device() = default;
};

} // namespace ptx2amd::host
