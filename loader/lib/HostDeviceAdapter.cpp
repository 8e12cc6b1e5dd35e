//===- HostDeviceAdapter.cpp - Device over host-backend/ (the CPU) --------===//
//
// The host device runs what host-backend/ builds from PTX: the final LLVM module of the
// translation for an AMDGPU target, re-targeted to the CPU. Its memory is host memory, so every
// pointer is valid on both sides and copies are memcpy.
//
// Streams run their work in order on a thread of their own, as a GPU's queues do: a launch
// returns once its arguments are copied, and the host runs on meanwhile (a kernel may spin on
// a flag the host sets after launching it). host-backend runs one launch at a time on its
// workers, so streams overlap with the host, not with each other. The first failure of a
// stream's work skips the rest of it (an event's point still passes) and is what the next
// synchronize() reports. Copies wait where one side is memory the device does not know
// (pageable host memory), as CUDA's do; memset() waits, as the interface says.
//
// Virtual memory management is the process's own: a reservation is an inaccessible anonymous
// mapping, physical memory a memfd (so it exports as a file descriptor), mapped over the
// reservation with MAP_FIXED | MAP_SHARED, and access is mprotect().

#include "ptx2amd/loader/Device.h"
#include "ptx2amd/loader/ModuleLoader.h"
#include "ptx2amd/support/Error.h"

#include "ptx2amd/amdgpu-backend/DeviceHeap.h"
#include "ptx2amd/amdgpu-backend/DeviceLaunches.h"
#include "ptx2amd/amdgpu-backend/DeviceOutput.h"
#include "ptx2amd/amdgpu-backend/KernelFault.h"
#include "ptx2amd/host-backend/HostDevice.h"
#include "ptx2amd/lowering/Lowering.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <sys/mman.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

using namespace llvm;

namespace ptx2amd::loader {
namespace {

/// Errors of this file, prefixed with what failed.
Error fail(ErrorKind K, const Twine &Msg) { return makeError(K, "host device: " + Msg); }

/// The CPU's clock in kHz, whose cores run the kernels: its highest frequency, else the one
/// the kernel reports now; 0 when neither is known.
uint32_t cpuClockKHz() {
  if (FILE *F = std::fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r")) {
    long KHz = 0;
    bool Read = std::fscanf(F, "%ld", &KHz) == 1;
    std::fclose(F);
    if (Read && KHz > 0 && KHz < INT32_MAX)
      return uint32_t(KHz);
  }
  FILE *F = std::fopen("/proc/cpuinfo", "r");
  if (!F)
    return 0;
  char Line[256];
  double MHz = 0;
  while (std::fgets(Line, sizeof(Line), F))
    if (std::sscanf(Line, "cpu MHz : %lf", &MHz) == 1)
      break;
  std::fclose(F);
  return MHz > 0 && MHz < 1e6 ? uint32_t(MHz * 1000) : 0;
}

class HostModule;

class HostKernel final : public Kernel {
public:
  const amdgpu::KernelMetadata &metadata() const override { return Meta; }
  amdgpu::KernelMetadata Meta;
  HostModule *Owner = nullptr;
};

class HostModule final : public Module {
public:
  Expected<const Kernel &> kernel(StringRef Name) override;
  Expected<GlobalSymbol> global(StringRef Name) override;
  std::vector<std::string> kernelNames() override {
    std::vector<std::string> Names;
    for (const auto &N : Loaded->kernels())
      Names.emplace_back(N);
    return Names;
  }

  std::string Name;
  std::unique_ptr<host::LoadedModule> Loaded;
  std::mutex Mutex;
  std::map<std::string, std::unique_ptr<HostKernel>, std::less<>> Kernels;
};

Expected<const Kernel &> HostModule::kernel(StringRef KernelName) {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (auto It = Kernels.find(KernelName); It != Kernels.end())
    return *It->second;
  // host-backend's reason names a missing kernel as well as one that cannot run.
  if (std::string Why = Loaded->unavailableReason(KernelName); !Why.empty())
    return fail(ErrorKind::Unsupported,
                "kernel '" + KernelName + "' of '" + Name + "' cannot run: " + Why);
  const amdgpu::KernelMetadata *Meta = Loaded->metadata(KernelName);
  if (!Meta)
    return fail(ErrorKind::BadInput, "no kernel '" + KernelName + "' in '" + Name + "'");
  auto K = std::make_unique<HostKernel>();
  K->Meta = *Meta;
  K->Owner = this;
  return *Kernels.emplace(KernelName.str(), std::move(K)).first->second;
}

Expected<GlobalSymbol> HostModule::global(StringRef VarName) {
  // The device library's variables (the heap's and the launch queue's addresses) and lowering's
  // kernel handles are not the program's: found by name.
  if (VarName.starts_with(lowering::KernelHandlePrefix) || VarName == amdgpu::HeapSymbol ||
      VarName == amdgpu::LaunchQueueSymbol) {
    auto Address = Loaded->global(VarName);
    if (!Address)
      return Address.takeError();
    return GlobalSymbol{*Address, VarName.starts_with(lowering::KernelHandlePrefix)
                                      ? uint64_t(lowering::KernelHandleBytes)
                                      : sizeof(void *)};
  }
  const std::vector<host::GlobalInfo> &Globals = Loaded->globals();
  auto G = llvm::find_if(Globals, [&](const host::GlobalInfo &G) { return G.Name == VarName; });
  if (G == Globals.end())
    return fail(ErrorKind::BadInput, "no variable '" + VarName + "' in '" + Name + "'");
  auto Address = Loaded->global(VarName);
  if (!Address)
    return Address.takeError();
  return GlobalSymbol{*Address, G->Size};
}

/// A failure of a stream's work, kept to be reported (llvm::Error is reported once).
struct Failure {
  amdgpu::FaultKind Kind;
  std::string Text;
};

/// A point in a stream's work: passed once the work before it is done.
struct Marker {
  std::mutex Mutex;
  std::condition_variable Passed;
  bool Done = false;
  std::chrono::steady_clock::time_point At;
  std::optional<Failure> Failed; ///< the stream's failure before the point, if any
};

/// One stream's work, run in order by a thread of its own (started on first use).
class WorkQueue {
public:
  using Work = std::function<Error()>;
  ~WorkQueue() {
    {
      std::unique_lock<std::mutex> Lock(Mutex);
      Stopping = true;
    }
    Changed.notify_all();
    if (Worker.joinable())
      Worker.join();
  }

  /// Queues \p W after the earlier work. A \p Point always runs (it only marks a place).
  void push(Work W, bool Point = false) {
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      Items.push_back({std::move(W), Point});
      ++Pending;
      if (!Worker.joinable())
        Worker = std::thread([this] { run(); });
    }
    Changed.notify_all();
  }

  /// Places \p P after the queued work; on an idle queue it has passed already.
  void mark(std::shared_ptr<Marker> P) {
    std::unique_lock<std::mutex> Lock(Mutex);
    if (Pending == 0) {
      std::optional<Failure> F = Failed;
      Lock.unlock();
      pass(*P, std::move(F));
      return;
    }
    Lock.unlock();
    push(
        [this, P]() -> Error {
          pass(*P, failure());
          return Error::success();
        },
        /*Point=*/true);
  }

  /// Waits for all queued work; the first failure since the last call is the error.
  Error drain() {
    std::unique_lock<std::mutex> Lock(Mutex);
    Changed.wait(Lock, [&] { return Pending == 0; });
    if (!Failed)
      return Error::success();
    Failure F = std::move(*Failed);
    Failed.reset();
    return amdgpu::makeFault(F.Kind, std::move(F.Text));
  }

private:
  /// The failure a point placed now would carry.
  std::optional<Failure> failure() {
    std::lock_guard<std::mutex> Lock(Mutex);
    return Failed;
  }

  struct Item {
    Work W;
    bool Point;
  };

  static void pass(Marker &P, std::optional<Failure> F) {
    {
      std::lock_guard<std::mutex> Lock(P.Mutex);
      P.At = std::chrono::steady_clock::now();
      P.Failed = std::move(F);
      P.Done = true;
    }
    P.Passed.notify_all();
  }

  void run() {
    std::unique_lock<std::mutex> Lock(Mutex);
    for (;;) {
      Changed.wait(Lock, [&] { return Stopping || !Items.empty(); });
      if (Items.empty())
        return; // stopping, and nothing is left
      Item I = std::move(Items.front());
      Items.pop_front();
      bool Skip = Failed && !I.Point;
      Lock.unlock();
      Error E = Skip ? Error::success() : I.W();
      Lock.lock();
      if (E) {
        auto [Kind, Text] = amdgpu::takeFault(std::move(E));
        if (!Failed)
          Failed = Failure{Kind, std::move(Text)};
      }
      --Pending;
      Changed.notify_all();
    }
  }

  std::mutex Mutex;
  std::condition_variable Changed;
  std::deque<Item> Items;
  size_t Pending = 0; ///< queued or running
  bool Stopping = false;
  std::optional<Failure> Failed;
  std::thread Worker;
};

class HostStream final : public Stream {
public:
  WorkQueue Queue;
};

/// Physical memory of virtual memory management: a memfd of its size.
class HostPhysical final : public PhysicalMemory {
public:
  HostPhysical(int Fd, size_t Bytes) : Fd(Fd), Bytes(Bytes) {}
  ~HostPhysical() override { ::close(Fd); }
  size_t size() const override { return Bytes; }
  const int Fd;
  const size_t Bytes;
};

Error systemError(const Twine &What) {
  return fail(ErrorKind::OutOfResources, What + ": " + std::strerror(errno));
}

class HostEvent final : public Event {
public:
  /// The newest record()'s point; null: never recorded.
  std::shared_ptr<Marker> point() {
    std::lock_guard<std::mutex> Lock(Mutex);
    return Point;
  }
  void setPoint(std::shared_ptr<Marker> P) {
    std::lock_guard<std::mutex> Lock(Mutex);
    Point = std::move(P);
  }

private:
  std::mutex Mutex;
  std::shared_ptr<Marker> Point;
};

/// Whether [Begin, Begin + Bytes) lies inside one range of \p Ranges (start → size).
template <typename Key>
static bool insideOne(const std::map<Key, size_t> &Ranges, uintptr_t Begin, size_t Bytes) {
  auto It = Ranges.upper_bound(Key(Begin));
  if (It == Ranges.begin())
    return false;
  --It;
  const uintptr_t Start = uintptr_t(It->first);
  return Begin - Start <= It->second && Bytes <= It->second - (Begin - Start);
}

/// In the differential mode, a copy or memset on one stream waits while a launch on another
/// restores device memory (host::Device::memoryMutex).
class SharedMemory {
public:
  SharedMemory() {
    if (host::HostOverrides::environment().Differential)
      Lock = std::shared_lock<std::shared_mutex>(host::Device::memoryMutex());
  }

private:
  std::shared_lock<std::shared_mutex> Lock;
};

class HostDevice final : public Device {
public:
  HostDevice(std::unique_ptr<host::Device> Impl, const amdgpu::Target &T, std::string Identity);

  const DeviceProperties &properties() const override { return Props; }
  Expected<void *> allocate(size_t Bytes, MemoryKind Kind) override;
  Error release(void *Ptr) override;
  // The CPU device's memory is the host's: any of it is already reachable. Registering only
  // tells copies that it stays valid (they need not wait).
  Error registerHostMemory(void *Ptr, size_t Bytes) override {
    host::Device::knowMemory(Ptr, Bytes); // kernels may write it: the differential mode's too
    std::lock_guard<std::mutex> Lock(AllocMutex);
    Registered[uintptr_t(Ptr)] = Bytes;
    return Error::success();
  }
  Error unregisterHostMemory(void *Ptr) override {
    host::Device::forgetMemory(Ptr);
    std::lock_guard<std::mutex> Lock(AllocMutex);
    Registered.erase(uintptr_t(Ptr));
    return Error::success();
  }
  Error copy(void *Dst, const void *Src, size_t Bytes, CopyKind Kind, Stream *S) override;
  Error memset(void *Dst, uint8_t Value, size_t Bytes, Stream *S) override;
  Expected<std::unique_ptr<Module>> loadModule(const ModuleImage &Image) override;
  Expected<std::unique_ptr<Module>> loadCompiled(StringRef Name, ArrayRef<uint8_t> Compiled,
                                                 const ModuleImage::VariableAddresses &Variables);
  Error launch(const Kernel &K, const amdgpu::LaunchGeometry &G, void **Args, Stream *S,
               const LaunchOptions &O) override;
  Expected<std::unique_ptr<Stream>> createStream() override;
  Error synchronize(Stream *S) override;
  Expected<std::unique_ptr<Event>> createEvent() override;
  Error record(Event &E, Stream *S) override;
  Error synchronize(Event &E) override;
  Expected<bool> isComplete(Event &E) override;
  Expected<float> elapsedMs(Event &Start, Event &End) override;
  Expected<void *> reserveAddressRange(size_t Bytes, size_t Alignment, void *Hint) override;
  Error freeAddressRange(void *Start, size_t Bytes) override;
  Expected<std::unique_ptr<PhysicalMemory>> createPhysical(size_t Bytes) override;
  Error map(void *At, size_t Bytes, PhysicalMemory &P, size_t Offset) override;
  Error unmap(void *At, size_t Bytes) override;
  Error setAccess(void *At, size_t Bytes, bool Read, bool Write) override;
  Expected<int> exportPhysical(PhysicalMemory &P) override;
  Expected<std::unique_ptr<PhysicalMemory>> importPhysical(int Fd) override;

private:
  /// Whether [At, At + Bytes) is granule-aligned and inside one reserved range (AllocMutex held).
  bool reserved(const void *At, size_t Bytes) const;
  /// Whether [P, P + Bytes) lies in memory the device knows (allocated, registered, reserved):
  /// memory that stays valid until the program frees it through the device.
  bool known(const void *P, size_t Bytes);
  WorkQueue &queue(Stream *S) { return S ? static_cast<HostStream *>(S)->Queue : DefaultQueue; }
  /// The point of \p E once passed (null: never recorded).
  std::shared_ptr<Marker> passedPoint(Event &E);

  std::unique_ptr<host::Device> Impl;
  DeviceProperties Props;
  std::mutex AllocMutex;
  std::map<const void *, size_t> Allocations; ///< what release() accepts
  std::map<uintptr_t, size_t> Reservations;   ///< what freeAddressRange() accepts
  std::map<uintptr_t, size_t> Registered;     ///< registerHostMemory()'s ranges
  WorkQueue DefaultQueue;                     ///< the null stream's
};

HostDevice::HostDevice(std::unique_ptr<host::Device> D, const amdgpu::Target &T,
                       std::string Identity)
    : Impl(std::move(D)) {
  Props.CompiledFor = std::move(Identity);
  Props.Name = "ptx2amd host (" + std::string(T.Name) + ")";
  Props.IsaName = "amdgcn-amd-amdhsa--" + std::string(T.Name);
  Props.Target = &T;
  Props.WaveSize = T.WaveSize;
  // The workers, which a cooperative launch fills (each holds its share of the grid at once).
  auto Workers = host::Device::computeUnits();
  Props.ComputeUnits = Workers ? *Workers : std::thread::hardware_concurrency();
  consumeError(Workers.takeError());
  Props.LdsBytesPerWorkgroup = T.LdsBytesPerWorkgroup;
  long Pages = sysconf(_SC_PHYS_PAGES), PageSize = sysconf(_SC_PAGESIZE);
  Props.GlobalMemoryBytes = Pages > 0 && PageSize > 0 ? uint64_t(Pages) * uint64_t(PageSize) : 0;
  // The CPU's clock and L2. Its memory's clock and width (the DIMMs') are not known without
  // privileges (SMBIOS): left 0.
  Props.ClockKHz = cpuClockKHz();
  long L2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
  Props.L2CacheBytes = L2 > 0 ? uint64_t(L2) : 0;
  Props.Format = ModuleFormat::Ptx;
  // The page is what mmap() maps; huge pages are what large mappings are best made of.
  Props.VirtualMemoryGranule = PageSize > 0 ? uint64_t(PageSize) : 4096;
  Props.VirtualMemoryRecommendedGranule = std::max<uint64_t>(Props.VirtualMemoryGranule, 2 << 20);
  Props.ShareableFileDescriptors = true;
}

Expected<void *> HostDevice::allocate(size_t Bytes, MemoryKind Kind) {
  // Every kind is host memory, which both sides address alike.
  void *P = Impl->allocate(Bytes);
  if (!P)
    return fail(ErrorKind::OutOfResources, "out of memory allocating " + Twine(Bytes) + " bytes");
  if (Kind != MemoryKind::Device)
    host::Device::knowMemory(P, Bytes); // the program's threads may write it at any time
  std::lock_guard<std::mutex> Lock(AllocMutex);
  Allocations.emplace(P, Bytes);
  return P;
}

Error HostDevice::release(void *Ptr) {
  if (!Ptr)
    return Error::success();
  {
    std::lock_guard<std::mutex> Lock(AllocMutex);
    if (!Allocations.erase(Ptr))
      return fail(ErrorKind::BadInput, "release of " + Twine(utohexstr(uintptr_t(Ptr))) +
                                           ", which allocate() did not return");
  }
  Impl->release(Ptr);
  return Error::success();
}

bool HostDevice::known(const void *P, size_t Bytes) {
  std::lock_guard<std::mutex> Lock(AllocMutex);
  const uintptr_t Begin = uintptr_t(P);
  return insideOne(Allocations, Begin, Bytes) || insideOne(Registered, Begin, Bytes) ||
         insideOne(Reservations, Begin, Bytes);
}

Error HostDevice::copy(void *Dst, const void *Src, size_t Bytes, CopyKind, Stream *S) {
  if (!Bytes)
    return Error::success();
  WorkQueue &Q = queue(S);
  Q.push([=]() -> Error {
    SharedMemory Lock;
    std::memmove(Dst, Src, Bytes);
    return Error::success();
  });
  if (known(Dst, Bytes) && known(Src, Bytes))
    return Error::success();
  return Q.drain();
}

Error HostDevice::memset(void *Dst, uint8_t Value, size_t Bytes, Stream *S) {
  if (!Bytes)
    return Error::success();
  WorkQueue &Q = queue(S);
  Q.push([=]() -> Error {
    SharedMemory Lock;
    std::memset(Dst, Value, Bytes);
    return Error::success();
  });
  return Q.drain();
}

bool HostDevice::reserved(const void *At, size_t Bytes) const {
  const uintptr_t Begin = uintptr_t(At), Granule = Props.VirtualMemoryGranule;
  if (!Bytes || Begin % Granule || Bytes % Granule)
    return false;
  return insideOne(Reservations, Begin, Bytes);
}

Expected<void *> HostDevice::reserveAddressRange(size_t Bytes, size_t Alignment, void *Hint) {
  const size_t Granule = Props.VirtualMemoryGranule;
  const size_t Align = std::max(Alignment, Granule);
  if (!Bytes || Bytes % Granule || (Align & (Align - 1)))
    return fail(ErrorKind::OutOfResources,
                "reserving " + Twine(Bytes) + " bytes aligned to " + Twine(Alignment));
  // mmap() aligns to pages only: a larger alignment takes more and gives back the ends.
  const size_t Extra = Align > Granule ? Align : 0;
  if (Bytes + Extra < Bytes)
    return fail(ErrorKind::OutOfResources, "reserving " + Twine(Bytes) + " bytes: too many");
  void *P =
      ::mmap(Hint, Bytes + Extra, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (P == MAP_FAILED)
    return systemError("reserving " + Twine(Bytes) + " bytes of addresses");
  const uintptr_t Begin = uintptr_t(P), Start = alignTo(Begin, Align);
  if (Start > Begin)
    ::munmap(P, Start - Begin);
  if (Begin + Bytes + Extra > Start + Bytes)
    ::munmap(reinterpret_cast<void *>(Start + Bytes), Begin + Bytes + Extra - (Start + Bytes));
  std::lock_guard<std::mutex> Lock(AllocMutex);
  Reservations.emplace(Start, Bytes);
  return reinterpret_cast<void *>(Start);
}

Error HostDevice::freeAddressRange(void *Start, size_t Bytes) {
  std::lock_guard<std::mutex> Lock(AllocMutex);
  auto It = Reservations.find(uintptr_t(Start));
  if (It == Reservations.end() || It->second != Bytes)
    return fail(ErrorKind::BadInput, "freeing " + Twine(Bytes) + " bytes at " +
                                         utohexstr(uintptr_t(Start)) +
                                         ", which is not a reserved range");
  if (::munmap(Start, Bytes) != 0)
    return systemError("freeing a reserved range");
  Reservations.erase(It);
  return Error::success();
}

Expected<std::unique_ptr<PhysicalMemory>> HostDevice::createPhysical(size_t Bytes) {
  if (!Bytes || Bytes % Props.VirtualMemoryGranule)
    return fail(ErrorKind::OutOfResources, "physical memory of " + Twine(Bytes) + " bytes");
  int Fd = ::memfd_create("ptx2amd-physical", MFD_CLOEXEC);
  if (Fd < 0)
    return systemError("memfd_create");
  // A new file's bytes read as zero, as cuMemCreate's memory does.
  if (::ftruncate(Fd, off_t(Bytes)) != 0) {
    Error E = systemError("sizing physical memory of " + Twine(Bytes) + " bytes");
    ::close(Fd);
    return E;
  }
  return std::make_unique<HostPhysical>(Fd, Bytes);
}

Error HostDevice::map(void *At, size_t Bytes, PhysicalMemory &P, size_t Offset) {
  auto &Phys = static_cast<HostPhysical &>(P);
  std::lock_guard<std::mutex> Lock(AllocMutex);
  if (!reserved(At, Bytes) || Offset % Props.VirtualMemoryGranule || Offset > Phys.Bytes ||
      Bytes > Phys.Bytes - Offset)
    return fail(ErrorKind::OutOfResources, "mapping " + Twine(Bytes) + " bytes at offset " +
                                               Twine(Offset) + " to " + utohexstr(uintptr_t(At)));
  void *Got = ::mmap(At, Bytes, PROT_NONE, MAP_SHARED | MAP_FIXED, Phys.Fd, off_t(Offset));
  if (Got == MAP_FAILED)
    return systemError("mapping physical memory");
  return Error::success();
}

Error HostDevice::unmap(void *At, size_t Bytes) {
  std::lock_guard<std::mutex> Lock(AllocMutex);
  if (!reserved(At, Bytes))
    return fail(ErrorKind::BadInput,
                "unmapping " + Twine(Bytes) + " bytes at " + utohexstr(uintptr_t(At)));
  // Back to a reservation: inaccessible addresses that nothing else may take.
  if (::mmap(At, Bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1,
             0) == MAP_FAILED)
    return systemError("unmapping physical memory");
  return Error::success();
}

Error HostDevice::setAccess(void *At, size_t Bytes, bool Read, bool Write) {
  {
    std::lock_guard<std::mutex> Lock(AllocMutex);
    if (!reserved(At, Bytes))
      return fail(ErrorKind::BadInput,
                  "access to " + Twine(Bytes) + " bytes at " + utohexstr(uintptr_t(At)));
  }
  int Prot = Write ? PROT_READ | PROT_WRITE : Read ? PROT_READ : PROT_NONE;
  if (::mprotect(At, Bytes, Prot) != 0)
    return systemError("setting access");
  return Error::success();
}

Expected<int> HostDevice::exportPhysical(PhysicalMemory &P) {
  int Fd = ::fcntl(static_cast<HostPhysical &>(P).Fd, F_DUPFD_CLOEXEC, 0);
  if (Fd < 0)
    return systemError("exporting physical memory");
  return Fd;
}

Expected<std::unique_ptr<PhysicalMemory>> HostDevice::importPhysical(int Fd) {
  struct stat St;
  if (::fstat(Fd, &St) != 0)
    return systemError("importing file descriptor " + Twine(Fd));
  if (!S_ISREG(St.st_mode) || St.st_size <= 0 || uint64_t(St.st_size) % Props.VirtualMemoryGranule)
    return fail(ErrorKind::OutOfResources,
                "file descriptor " + Twine(Fd) + " is not physical memory of this device");
  int Own = ::fcntl(Fd, F_DUPFD_CLOEXEC, 0);
  if (Own < 0)
    return systemError("importing file descriptor " + Twine(Fd));
  return std::make_unique<HostPhysical>(Own, size_t(St.st_size));
}

/// ModuleImage::Variables as the host device takes them.
static std::vector<host::ExternalVariable>
hostVariables(const ModuleImage::VariableAddresses &Variables) {
  std::vector<host::ExternalVariable> Out;
  for (const auto &[Name, Symbol] : Variables)
    Out.push_back({Name, Symbol.Address, Symbol.Size});
  return Out;
}

Expected<std::unique_ptr<Module>> HostDevice::loadModule(const ModuleImage &Image) {
  if (Image.Ptx.empty())
    return fail(ErrorKind::BadInput,
                "module '" + Image.Name + "' has no PTX: the host device translates PTX");
  host::LoadOptions Opts;
  Opts.OptLevel = Image.OptLevel;
  Opts.CodeObjectVersion = Image.CodeObjectVersion;
  Opts.Variables = hostVariables(Image.Variables);
  Opts.DynamicSharedInGlobal = Image.DynamicSharedInGlobal;
  auto Loaded = Impl->loadPtx(Image.Ptx, Image.Name, *Props.Target, Opts);
  if (!Loaded)
    return Loaded.takeError();
  auto M = std::make_unique<HostModule>();
  M->Name = Image.Name;
  M->Loaded = std::move(*Loaded);
  return M;
}

Expected<std::unique_ptr<Module>>
HostDevice::loadCompiled(StringRef Name, ArrayRef<uint8_t> Compiled,
                         const ModuleImage::VariableAddresses &Variables) {
  host::LoadOptions Opts;
  Opts.Variables = hostVariables(Variables);
  auto Loaded = Impl->loadCompiled(Compiled, *Props.Target, Opts);
  if (!Loaded)
    return Loaded.takeError();
  auto M = std::make_unique<HostModule>();
  M->Name = Name.str();
  M->Loaded = std::move(*Loaded);
  return M;
}

Error HostDevice::launch(const Kernel &K, const amdgpu::LaunchGeometry &G, void **Args, Stream *S,
                         const LaunchOptions &O) {
  const auto &HK = static_cast<const HostKernel &>(K);
  host::LaunchConfig C;
  C.Grid = {G.Grid[0], G.Grid[1], G.Grid[2]};
  C.Block = {G.Block[0], G.Block[1], G.Block[2]};
  C.DynamicSharedBytes = G.DynamicLdsBytes;
  C.DynamicSharedAddress = G.DynamicSharedAddress;
  C.Cooperative = O.Cooperative;
  // The argument values, copied now (CUDA's launch copies them): 16-byte slots each, which
  // the queued launch owns; Pointers point into them.
  auto SlotsOf = [&](size_t I) { return std::max<size_t>(1, (HK.Meta.Args[I].Size + 15) / 16); };
  size_t Explicit = 0, Slots = 0;
  // The launch fills the argument of dynamic shared memory in global memory, last if there.
  for (; Explicit < HK.Meta.Args.size() && !HK.Meta.Args[Explicit].isHidden() &&
         HK.Meta.Args[Explicit].Name != amdgpu::DynamicSharedArgName;
       ++Explicit)
    Slots += SlotsOf(Explicit);
  if (Explicit && !Args)
    return fail(ErrorKind::BadInput, "kernel '" + HK.Meta.Name + "' has arguments, none given");
  auto Values = std::make_shared<std::vector<std::array<uint64_t, 2>>>(Slots);
  std::vector<void *> Pointers;
  for (size_t I = 0, Slot = 0; I < Explicit; ++I) {
    Pointers.push_back(&(*Values)[Slot]);
    std::memcpy(Pointers.back(), Args[I], HK.Meta.Args[I].Size);
    Slot += SlotsOf(I);
  }
  queue(S).push([this, &HK, C, Values, Pointers = std::move(Pointers)]() mutable -> Error {
    auto Out = Impl->launch(*HK.Owner->Loaded, HK.Meta.Name, C, Pointers.data());
    if (!Out)
      return Out.takeError();
    // Device printf goes where the program's own printf goes, in launch order.
    if (!Out->Text.empty()) {
      std::fwrite(Out->Text.data(), 1, Out->Text.size(), stdout);
      std::fflush(stdout);
    }
    if (Out->Dropped)
      std::fprintf(stderr,
                   "ptx2amd: kernel '%s': %u device printf records did not fit the buffer\n",
                   HK.Meta.Name.c_str(), Out->Dropped);
    if (Out->Assertions.empty())
      return Error::success();
    std::string Msg = "kernel '" + HK.Meta.Name + "' failed a device assertion:";
    for (const std::string &A : Out->Assertions)
      Msg += "\n  " + A;
    return amdgpu::makeFault(amdgpu::FaultKind::Assertion, Msg);
  });
  return Error::success();
}

Expected<std::unique_ptr<Stream>> HostDevice::createStream() {
  return std::make_unique<HostStream>();
}

Error HostDevice::synchronize(Stream *S) { return queue(S).drain(); }

Expected<std::unique_ptr<Event>> HostDevice::createEvent() { return std::make_unique<HostEvent>(); }

Error HostDevice::record(Event &E, Stream *S) {
  auto Point = std::make_shared<Marker>();
  static_cast<HostEvent &>(E).setPoint(Point);
  queue(S).mark(std::move(Point));
  return Error::success();
}

std::shared_ptr<Marker> HostDevice::passedPoint(Event &E) {
  std::shared_ptr<Marker> Point = static_cast<HostEvent &>(E).point();
  if (Point) {
    std::unique_lock<std::mutex> Lock(Point->Mutex);
    Point->Passed.wait(Lock, [&] { return Point->Done; });
  }
  return Point;
}

Error HostDevice::synchronize(Event &E) {
  std::shared_ptr<Marker> Point = passedPoint(E);
  if (!Point || !Point->Failed)
    return Error::success();
  return amdgpu::makeFault(Point->Failed->Kind, Point->Failed->Text);
}

Expected<bool> HostDevice::isComplete(Event &E) {
  std::shared_ptr<Marker> Point = static_cast<HostEvent &>(E).point();
  if (!Point)
    return true;
  std::lock_guard<std::mutex> Lock(Point->Mutex);
  return Point->Done;
}

Expected<float> HostDevice::elapsedMs(Event &Start, Event &End) {
  std::chrono::steady_clock::time_point Times[2];
  Event *Events[] = {&Start, &End};
  for (unsigned I = 0; I < 2; ++I) {
    std::shared_ptr<Marker> Point = passedPoint(*Events[I]);
    if (!Point)
      return fail(ErrorKind::BadInput, "elapsed time of an event that was never recorded");
    Times[I] = Point->At;
  }
  return std::chrono::duration<float, std::milli>(Times[1] - Times[0]).count();
}

} // namespace

// Every ModuleFormat::Ptx device is a HostDevice (Device.h), and its modules HostModules.
std::vector<uint8_t> hostCompiledForm(Module &M) {
  return static_cast<HostModule &>(M).Loaded->compiled();
}

Expected<std::unique_ptr<Module>>
loadHostCompiled(Device &D, StringRef Name, ArrayRef<uint8_t> Compiled,
                 const ModuleImage::VariableAddresses &Variables) {
  return static_cast<HostDevice &>(D).loadCompiled(Name, Compiled, Variables);
}

Expected<std::unique_ptr<Device>> createHostDevice(const amdgpu::Target &T) {
  auto D = host::Device::create();
  if (!D)
    return D.takeError();
  auto Identity = host::Device::hostIdentity();
  if (!Identity)
    return Identity.takeError();
  return std::make_unique<HostDevice>(std::move(*D), T, std::move(*Identity));
}

Expected<Device &> hostDevice() {
  static std::once_flag Once;
  // Never destroyed: modules and memory of the device may be in use until exit.
  static Device *Dev = nullptr;
  static std::string Failure;
  std::call_once(Once, [] {
    const char *Env = std::getenv("PTX2AMD_HOST_TARGET");
    std::string Name = Env && *Env ? Env : "gfx90a";
    const amdgpu::Target *T = amdgpu::findTarget(Name);
    if (!T) {
      Failure = "PTX2AMD_HOST_TARGET='" + Name + "' is not one of " + amdgpu::knownTargetNames();
      return;
    }
    if (auto D = createHostDevice(*T))
      Dev = D->release();
    else
      Failure = toString(D.takeError());
  });
  if (Dev)
    return *Dev;
  return createStringError(inconvertibleErrorCode(), Failure);
}

} // namespace ptx2amd::loader
