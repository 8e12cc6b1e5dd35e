//===- ptx2amd/loader/Device.h - the device interface of the runtime -*- C++ -*-===//
//
// What the CUDA runtime replacement (runtime/) asks of a device: properties, memory (virtual
// memory management too), code objects and their kernels and globals, launches, streams and
// events. Two implementations:
// HSA (HsaDevice.h, an AMD GPU through ROCr) and the host backend (HostDeviceAdapter.cpp, the CPU
// through host-backend/). ModuleLoader.h turns fatbins and PTX into what a device loads.
//
//   auto Dev = loader::selectDevice();          // PTX2AMD_DEVICE=auto|hsa|host
//   auto Mod = Dev->loadModule({"saxpy.ptx", CodeObject.Bytes});
//   auto K = (*Mod)->kernel("_Z5saxpyifPKfPf");
//   void *Args[] = {&N, &A, &X, &Y};
//   Dev->launch(*K, Geometry, Args, nullptr);  // null: the device's default stream
//   Dev->synchronize(nullptr);
//
// Every call reports failure as an llvm::Error; none aborts. Pointers handed out by allocate()
// are device addresses, valid in kernel arguments and in copy()/memset() of the same device.
// Calls may come from several threads.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ptx2amd/amdgpu-backend/Kernarg.h"
#include "ptx2amd/amdgpu-backend/KernelMetadata.h"
#include "ptx2amd/amdgpu-backend/Target.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ptx2amd::loader {

/// What a device runs, so what loadModule() reads from a ModuleImage.
enum class ModuleFormat {
  CodeObject, ///< an AMDGPU code object (HSA)
  Ptx,        ///< the PTX text: the host device translates it itself, to the final LLVM module
              ///< that it re-targets to the CPU (host-backend/ has no entry point below that)
};

struct DeviceProperties {
  std::string Name;                       ///< product name, e.g. "AMD Instinct MI210"
  std::string IsaName;                    ///< e.g. "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"
  const amdgpu::Target *Target = nullptr; ///< what code objects for this device are built for
  unsigned WaveSize = 0;                  ///< of the code we compile for it (Target->WaveSize)
  unsigned ComputeUnits = 0;              ///< 0 when unknown
  uint64_t LdsBytesPerWorkgroup = 0;      ///< static + dynamic LDS one block may use
  uint64_t GlobalMemoryBytes = 0;         ///< device memory
  /// What CUDA reports of the device's clocks and memory system (cudaDevAttrClockRate,
  /// MemoryClockRate, GlobalMemoryBusWidth, L2CacheSize); 0 where the device does not say.
  uint32_t ClockKHz = 0;       ///< the compute units' highest clock
  uint32_t MemoryClockKHz = 0; ///< the memory's highest clock
  uint32_t MemoryBusBits = 0;  ///< the width of the memory interface
  uint64_t L2CacheBytes = 0;
  ModuleFormat Format = ModuleFormat::CodeObject;
  /// What the device's compiled modules depend on besides Target (the host device: the CPU and
  /// features its code is generated for); part of their cache keys. Empty for code objects.
  std::string CompiledFor;
  /// Virtual memory management (Device::reserveAddressRange and after): the granule of its
  /// sizes, offsets and addresses, 0 when the device has none; and the granule it recommends.
  uint64_t VirtualMemoryGranule = 0;
  uint64_t VirtualMemoryRecommendedGranule = 0;
  /// Physical memory can be exported to a file descriptor and imported from one.
  bool ShareableFileDescriptors = false;
};

/// A module variable (`.global`/`.const` in PTX) as the device sees it.
struct GlobalSymbol {
  void *Address = nullptr; ///< device address: copy() to and from it
  uint64_t Size = 0;
};

/// One PTX module, translated for a device's target or to be: loadModule() reads the member of
/// the device's properties().Format. The bytes and text are the caller's and are not kept.
struct ModuleImage {
  std::string Name;                   ///< the module in messages (its PTX's name)
  llvm::ArrayRef<uint8_t> CodeObject; ///< ModuleFormat::CodeObject: for properties().Target
  llvm::StringRef Ptx;                ///< ModuleFormat::Ptx
  unsigned OptLevel = 3;              ///< ModuleFormat::Ptx: of the translation, 0..3
  unsigned CodeObjectVersion = 5;     ///< ModuleFormat::Ptx: as for a code object of it
  /// The module variables the module declares and another module defines, with their addresses
  /// and sizes (lazy per-kernel translation: a kernel's slice and its module's data slice). The
  /// module is translated with amdgpu::CodegenOptions::ExternalVariables.
  using VariableAddresses = std::vector<std::pair<std::string, GlobalSymbol>>;
  VariableAddresses Variables{};
  /// ModuleFormat::Ptx: translated with amdgpu::CodegenOptions::DynamicSharedInGlobal (its
  /// kernels launch with LaunchGeometry::DynamicSharedAddress).
  bool DynamicSharedInGlobal = false;
};

enum class MemoryKind {
  Device,     ///< device memory, not host-accessible (cudaMalloc)
  HostPinned, ///< host memory the device reads and writes directly (cudaMallocHost)
  Managed,    ///< accessible from host and device through the same address (cudaMallocManaged);
              ///< no migration: HSA places it in fine-grained host memory
};

/// The two sides of a copy. Host memory may be any host memory (pageable or pinned).
enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice };

/// A kernel of a loaded module. Owned by its Module.
class Kernel {
public:
  virtual ~Kernel() = default;
  /// The code object's metadata of this kernel (argument offsets, segment sizes, ...).
  virtual const amdgpu::KernelMetadata &metadata() const = 0;
};

/// A code object loaded on a device. Destroying it while its kernels run is undefined; the
/// runtime synchronizes first.
class Module {
public:
  virtual ~Module() = default;
  /// The kernel called \p Name (its PTX entry name); an error names a missing one.
  virtual llvm::Expected<const Kernel &> kernel(llvm::StringRef Name) = 0;
  /// The module variable called \p Name: for cudaMemcpyToSymbol, cuModuleGetGlobal and the
  /// device output buffer (amdgpu::OutputBufferSymbol).
  virtual llvm::Expected<GlobalSymbol> global(llvm::StringRef Name) = 0;
  /// The kernels the module holds (PTX entry names), whether or not each can run.
  virtual std::vector<std::string> kernelNames() = 0;
  /// Whether the module's PTX declares kernel \p Name, whether or not it can run.
  bool declaresKernel(llvm::StringRef Name);
};

/// An in-order sequence of device work. Work of different streams may overlap.
class Stream {
public:
  virtual ~Stream() = default;
};

/// How a launch runs, besides its geometry.
struct LaunchOptions {
  /// cudaLaunchCooperativeKernel: every block of the grid runs at once (the caller checked that
  /// they fit the device), and the kernel gets a zeroed grid workspace of its own for
  /// cooperative_groups' grid barrier (hidden_multigrid_sync_arg, %envreg1/%envreg2).
  bool Cooperative = false;
};

/// A point in a stream, for waiting and timing.
class Event {
public:
  virtual ~Event() = default;
};

/// Memory without an address of its own (cuMemCreate), which Device::map() places in reserved
/// address ranges. Owned by the caller; it must be unmapped before it is destroyed.
class PhysicalMemory {
public:
  virtual ~PhysicalMemory() = default;
  virtual size_t size() const = 0;
};

/// One device. A null Stream * names the device's default stream, which has no implicit ordering
/// with other streams (the runtime implements CUDA's legacy default stream on top).
class Device {
public:
  virtual ~Device() = default;
  virtual const DeviceProperties &properties() const = 0;

  /// \p Bytes of zero-initialised memory of \p Kind, aligned to at least 256 bytes.
  virtual llvm::Expected<void *> allocate(size_t Bytes, MemoryKind Kind) = 0;
  /// Frees memory from allocate(); anything else is an error. Work using it must be finished.
  virtual llvm::Error release(void *Ptr) = 0;
  /// Makes \p Bytes of the program's own host memory at \p Ptr (cudaHostRegister) reachable by
  /// kernels and copies at the same address, until unregisterHostMemory(Ptr).
  virtual llvm::Error registerHostMemory(void *Ptr, size_t Bytes) = 0;
  virtual llvm::Error unregisterHostMemory(void *Ptr) = 0;
  /// Copies after the earlier work of \p S. It may return before the copy is done (synchronize
  /// \p S to wait), except from or to pageable host memory, which it waits for.
  virtual llvm::Error copy(void *Dst, const void *Src, size_t Bytes, CopyKind Kind, Stream *S) = 0;
  /// Sets \p Bytes bytes at \p Dst to \p Value after the earlier work of \p S, and waits for it.
  virtual llvm::Error memset(void *Dst, uint8_t Value, size_t Bytes, Stream *S) = 0;

  /// Loads \p Image in the device's format (a code object for properties().Target, or PTX); an
  /// image without it is an error. A kernel that cannot run is reported by Module::kernel().
  virtual llvm::Expected<std::unique_ptr<Module>> loadModule(const ModuleImage &Image) = 0;

  /// Starts \p K on \p S after the earlier work of \p S and returns. \p Args holds one pointer
  /// per explicit kernel argument (CUDA's kernelParams); the values are copied before returning.
  virtual llvm::Error launch(const Kernel &K, const amdgpu::LaunchGeometry &G, void **Args,
                             Stream *S, const LaunchOptions &O = {}) = 0;

  virtual llvm::Expected<std::unique_ptr<Stream>> createStream() = 0;
  /// Waits for all work of \p S; a failure of that work is the error.
  virtual llvm::Error synchronize(Stream *S) = 0;

  virtual llvm::Expected<std::unique_ptr<Event>> createEvent() = 0;
  /// Marks the point after the work \p S holds now (cudaEventRecord).
  virtual llvm::Error record(Event &E, Stream *S) = 0;
  /// Waits until the work before \p E is done. An event never recorded is complete.
  virtual llvm::Error synchronize(Event &E) = 0;
  /// Whether the work before \p E is done, without waiting.
  virtual llvm::Expected<bool> isComplete(Event &E) = 0;
  /// Milliseconds between two completed events (cudaEventElapsedTime).
  virtual llvm::Expected<float> elapsedMs(Event &Start, Event &End) = 0;

  /// Virtual memory management, where properties().VirtualMemoryGranule is not 0 (elsewhere
  /// these fail). Sizes, offsets and addresses are multiples of the granule; mapped memory is
  /// device memory to kernels and copy() once setAccess() allows it.
  /// An address range of \p Bytes with nothing behind it, aligned to \p Alignment (a power of
  /// two; 0: the granule), at \p Hint when that is free.
  virtual llvm::Expected<void *> reserveAddressRange(size_t Bytes, size_t Alignment, void *Hint);
  /// Frees a whole range of reserveAddressRange(), with nothing mapped in it any more.
  virtual llvm::Error freeAddressRange(void *Start, size_t Bytes);
  /// \p Bytes of zeroed physical memory.
  virtual llvm::Expected<std::unique_ptr<PhysicalMemory>> createPhysical(size_t Bytes);
  /// Maps [Offset, Offset + Bytes) of \p P at \p At, where a reserved range has nothing mapped;
  /// it is not accessible until setAccess().
  virtual llvm::Error map(void *At, size_t Bytes, PhysicalMemory &P, size_t Offset);
  /// Unmaps [At, At + Bytes) of what map() mapped; the addresses stay reserved.
  virtual llvm::Error unmap(void *At, size_t Bytes);
  /// Makes mapped [At, At + Bytes) readable (and writable when \p Write), or inaccessible.
  virtual llvm::Error setAccess(void *At, size_t Bytes, bool Read, bool Write);
  /// A new file descriptor (the caller's) for \p P, where properties().ShareableFileDescriptors.
  virtual llvm::Expected<int> exportPhysical(PhysicalMemory &P);
  /// The physical memory behind \p Fd, which exportPhysical() gave (\p Fd stays the caller's).
  virtual llvm::Expected<std::unique_ptr<PhysicalMemory>> importPhysical(int Fd);
};

/// What PTX2AMD_DEVICE asks for.
enum class DeviceChoice {
  Auto, ///< HSA when an AMD GPU is usable, else the host device (the default)
  Hsa,  ///< HSA or nothing
  Host, ///< the host backend
};

/// Reads a PTX2AMD_DEVICE value ("" means auto); an unknown one is an error listing the valid.
llvm::Expected<DeviceChoice> parseDeviceChoice(llvm::StringRef Value);

/// The device of the process, chosen by PTX2AMD_DEVICE once (later calls return the same outcome
/// without initialising anything again). When HSA is not usable, why is written to stderr once,
/// in one line: with auto the host device is used instead, with hsa the error says it too.
llvm::Expected<Device &> selectDevice();

/// The host device of the process (the CPU, through host-backend/), for the target that
/// PTX2AMD_HOST_TARGET names (default gfx90a, wave64; gfx1100 is wave32). Created once; an
/// unknown target is an error listing the known ones.
llvm::Expected<Device &> hostDevice();

/// A host device for \p T, owned by the caller (both wave sizes in one process). Host devices
/// share host-backend's workers.
llvm::Expected<std::unique_ptr<Device>> createHostDevice(const amdgpu::Target &T);

/// A device of target \p T's code objects that only translates (`ptx2amd aot` for a GPU the
/// machine need not have): the loader translates and keys as on that GPU; a loaded module is
/// its metadata and symbols (a variable's offset in the code object for its address), and
/// memory, streams and launches are errors.
std::unique_ptr<Device> createTranslatingDevice(const amdgpu::Target &T);

} // namespace ptx2amd::loader
