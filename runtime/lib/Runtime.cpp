//===- Runtime.cpp - the registry, the context, streams, kernels and launches ===//

#include "Runtime.h"
#include "Driver.h"
#include "Graphs.h"

#include "ptx2amd/amdgpu-backend/ImageDescriptors.h"

#include "llvm/Support/FormatVariadic.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace llvm;

namespace ptx2amd::runtime {
namespace {

loader::LogLevel logLevel() {
  // Read here, not through the context: registrations are logged before any device exists. A
  // malformed value is the context's error.
  static const loader::LogLevel Level = [] {
    const char *Env = std::getenv("PTX2AMD_LOG");
    auto L = loader::parseLogLevel(Env ? Env : "");
    if (!L) {
      consumeError(L.takeError());
      return loader::LogLevel::Off;
    }
    return *L;
  }();
  return Level;
}

/// Our driver runs PTX and never SASS, which CUDA_FORCE_PTX_JIT=1 tells NVIDIA's libraries:
/// cuBLASLt then takes its forward-compatible PTX kernels instead of loading SASS-only ones.
/// Set when the library loads, before any library reads it; a value the user set stays.
[[gnu::constructor]] void announcePtxOnly() { setenv("CUDA_FORCE_PTX_JIT", "1", 0); }

/// A memory the device does not describe is one DDR4-3200 channel: 64 bits wide at 1600 MHz
/// (two transfers a clock), what programs that work out bandwidth from these then see.
constexpr int StandInMemoryBusBits = 64;
constexpr int StandInMemoryClockKHz = 1600000;

/// CUDA's view of the device: honest limits of the device, 32-lane warps, and what compute
/// capability \p CC has (its residency limits and the features that come with it).
cudaDeviceProp deviceProperties(const loader::DeviceProperties &P, const ComputeCapability &CC) {
  cudaDeviceProp D{};
  std::snprintf(D.name, sizeof(D.name), "%s", P.Name.c_str());
  D.totalGlobalMem = P.GlobalMemoryBytes;
  // Every target's LDS is available to a block without opting in; a block may opt in to the
  // capability's figure, where it is larger (past the LDS, dynamic shared memory lies in
  // global memory: LazyModule::launchDynamicSharedInGlobal).
  D.sharedMemPerBlock = P.LdsBytesPerWorkgroup;
  D.sharedMemPerBlockOptin =
      std::max<size_t>(P.LdsBytesPerWorkgroup, size_t(CC.SharedKBPerBlockOptin) << 10);
  D.sharedMemPerMultiprocessor =
      std::max<size_t>(P.LdsBytesPerWorkgroup, size_t(CC.SharedKBPerMultiprocessor) << 10);
  // A block of 1024 work-items can use 64 VGPRs each on every supported target.
  D.regsPerBlock = D.regsPerMultiprocessor = 65536;
  D.warpSize = 32;
  D.memPitch = 0x7fffffff;
  D.maxThreadsPerBlock = 1024;
  D.maxThreadsDim[0] = D.maxThreadsDim[1] = D.maxThreadsDim[2] = 1024;
  // CUDA's grid limits; a grid past the dispatch packet's 32-bit work-item counts is refused at
  // launch.
  D.maxGridSize[0] = 0x7fffffff;
  D.maxGridSize[1] = D.maxGridSize[2] = 65535;
  D.totalConstMem = 65536;
  D.major = CC.Major;
  D.minor = CC.Minor;
  D.textureAlignment = D.texturePitchAlignment = D.surfaceAlignment = 256;
  D.multiProcessorCount = P.ComputeUnits ? int(P.ComputeUnits) : 1;
  // The host device's memory is the host's.
  D.integrated = P.Format == loader::ModuleFormat::Ptx;
  D.canMapHostMemory = 1;
  D.concurrentKernels = 1;
  D.unifiedAddressing = 1;
  D.managedMemory = 1;
  // Every block of a grid that fits (occupancy times multiprocessors, bounded by these) runs at
  // once: the host device holds up to 2048 threads in up to 32 blocks on each worker, which no
  // capability's limits exceed; on AMDGPU such a dispatch is taken to be co-resident (the
  // target's wave slots and registers are not modelled).
  D.maxThreadsPerMultiProcessor = CC.ThreadsPerMultiprocessor;
  D.maxBlocksPerMultiProcessor = CC.BlocksPerMultiprocessor;
  D.cooperativeLaunch = 1;
  D.globalL1CacheSupported = D.localL1CacheSupported = 1;
  // cudaHostRegister: the program's memory, at its own address on both sides.
  D.hostRegisterSupported = D.canUseHostPointerForRegisteredMem = 1;
  // cudaMallocAsync and memory pools (not exportable to shareable handles).
  D.memoryPoolsSupported = 1;
  // Widths and heights up to amdgpu::MaxImageExtent (beyond the T#'s 14-bit fields, images take
  // the software texture path); depth and array size are the T#'s 13-bit fields.
  const int Dim = int(amdgpu::MaxImageExtent), Depth = 8192, Layers = 8192;
  D.maxTexture1D = D.maxTexture1DMipmap = D.maxTextureCubemap = Dim;
  D.maxTexture2D[0] = D.maxTexture2D[1] = D.maxTexture2DMipmap[0] = D.maxTexture2DMipmap[1] = Dim;
  D.maxTexture2DLinear[0] = D.maxTexture2DLinear[1] = Dim;
  D.maxTexture2DLinear[2] = Dim * 16;
  D.maxTexture2DGather[0] = D.maxTexture2DGather[1] = Dim;
  D.maxTexture3D[0] = D.maxTexture3D[1] = D.maxTexture3DAlt[0] = D.maxTexture3DAlt[1] = Dim;
  D.maxTexture3D[2] = D.maxTexture3DAlt[2] = Depth;
  D.maxTexture1DLayered[0] = D.maxTexture2DLayered[0] = D.maxTexture2DLayered[1] = Dim;
  D.maxTexture1DLayered[1] = D.maxTexture2DLayered[2] = Layers;
  // Layers of cube maps come six at a time.
  D.maxTextureCubemapLayered[0] = Dim;
  D.maxTextureCubemapLayered[1] = Layers / 6 * 6;
  D.maxSurface1D = D.maxSurfaceCubemap = Dim;
  D.maxSurface2D[0] = D.maxSurface2D[1] = D.maxSurface3D[0] = D.maxSurface3D[1] = Dim;
  D.maxSurface3D[2] = Depth;
  D.maxSurface1DLayered[0] = D.maxSurface2DLayered[0] = D.maxSurface2DLayered[1] = Dim;
  D.maxSurface1DLayered[1] = D.maxSurface2DLayered[2] = Layers;
  D.maxSurfaceCubemapLayered[0] = Dim;
  D.maxSurfaceCubemapLayered[1] = Layers / 6 * 6;
  // Not placed on a NUMA node the runtime knows of.
  D.deviceNumaId = D.hostNumaId = -1;
  if (D.integrated) {
    // The host device's memory is the host's: kernels reach any of it, atomics included.
    D.hostNativeAtomicSupported = D.pageableMemoryAccess = 1;
    D.pageableMemoryAccessUsesHostPageTables = D.directManagedMemAccessFromHost = 1;
  }
  D.l2CacheSize = int(std::min<uint64_t>(P.L2CacheBytes, INT32_MAX));
  // CUDA reports no device without a memory bus (and programs divide by it); where the device
  // does not say (the host's DIMMs, a ROCr without the deprecated width), one DDR channel's.
  D.memoryBusWidth = P.MemoryBusBits ? int(P.MemoryBusBits) : StandInMemoryBusBits;
  // Access policy windows (persisting accesses) are cache hints: accepted and kept, with nothing
  // set aside. CUDA's semantics allow that (persisting lines may still be evicted); the sizes
  // are CUDA's usual ones, three quarters of the L2 and a 128 MiB window. They came with 8.0:
  // a 7.5 device has neither.
  if (D.l2CacheSize && CC.arch() >= 80) {
    D.persistingL2CacheMaxSize = D.l2CacheSize / 4 * 3;
    D.accessPolicyMaxWindowSize = 128 << 20;
  }
  return D;
}

/// ComputeCapabilities.def, in its order.
constexpr ComputeCapability Capabilities[] = {
#define COMPUTE_CAPABILITY(Major, Minor, Threads, Blocks, SharedKB, OptinKB)                       \
  {Major, Minor, Threads, Blocks, SharedKB, OptinKB},
#include "ComputeCapabilities.def"
};

} // namespace

Expected<ComputeCapability> parseComputeCapability(StringRef Value) {
  // 8.6 (Ampere's GA10x) unless chosen: at or above what CUDA 13 programs are commonly built for
  // (nvcc's default compute_75, and sm_80 for Ampere's instructions), so their PTX loads and
  // their sm_80 paths are taken.
  if (Value.empty())
    Value = "8.6";
  std::string Known;
  for (const ComputeCapability &CC : Capabilities) {
    std::string Name = formatv("{0}.{1}", CC.Major, CC.Minor).str();
    if (Value == Name)
      return CC;
    Known += (Known.empty() ? "" : ", ") + Name;
  }
  return makeError(ErrorKind::BadInput,
                   "PTX2AMD_COMPUTE_CAPABILITY='" + Value + "' is not one of " + Known);
}

bool logging(loader::LogLevel Level) {
  return logLevel() >= Level && Level != loader::LogLevel::Off;
}

void log(loader::LogLevel Level, const std::string &Line) {
  if (logging(Level))
    std::fprintf(stderr, "ptx2amd: %s\n", Line.c_str());
}

Registry &registry() {
  static Registry *R = new Registry;
  return *R;
}

KernelRecord *findKernel(const void *HostFun) {
  {
    Registry &R = registry();
    std::lock_guard<std::mutex> Lock(R.Mutex);
    if (auto It = R.KernelsByHost.find(HostFun); It != R.KernelsByHost.end())
      return It->second;
    for (auto &[Host, K] : R.KernelsByHost)
      if (K == HostFun)
        return K;
  }
  // A cudaKernel_t (cudaGetKernel, cudaLibraryGetKernel) names its kernel too.
  DriverState &S = driverState();
  std::lock_guard<std::mutex> Lock(S.Mutex);
  auto *K = const_cast<KernelRecord *>(static_cast<const KernelRecord *>(HostFun));
  return S.Functions.count(K) ? K : nullptr;
}

namespace {
std::atomic<bool> ContextMade{false};
} // namespace

bool contextMade() { return ContextMade.load(); }

Context::Context(loader::Device &D, loader::LoaderOptions Opts, ComputeCapability CC)
    : Dev(D), Loader(D, std::move(Opts)), Capability(CC),
      Props(deviceProperties(D.properties(), CC)) {
  ClockRateKHz = int(D.properties().ClockKHz);
  MemoryClockKHz =
      D.properties().MemoryClockKHz ? int(D.properties().MemoryClockKHz) : StandInMemoryClockKHz;
  // CDNA computes f64 at the f32 rate; RDNA at 1/16 of it; the CPU's SIMD units at half.
  if (D.properties().Format == loader::ModuleFormat::Ptx) {
    SingleToDoubleRatio = 2;
  } else if (D.properties().WaveSize == 32) {
    SingleToDoubleRatio = 16;
  }
  publishDeviceRuntime(*this);
}

cudaError_t context(Context *&Out) {
  static std::once_flag Once;
  static Context *C = nullptr;
  static cudaError_t Code = cudaSuccess;
  static std::string Why;
  std::call_once(Once, [] {
    auto Opts = loader::LoaderOptions::fromEnvironment();
    if (!Opts) {
      Code = cudaErrorInitializationError;
      Why = toString(Opts.takeError());
      return;
    }
    const char *Env = std::getenv("PTX2AMD_COMPUTE_CAPABILITY");
    auto CC = parseComputeCapability(Env ? Env : "");
    if (!CC) {
      Code = cudaErrorInitializationError;
      Why = toString(CC.takeError());
      // Once, whether or not the program looks at the error: nothing runs without a device.
      std::fprintf(stderr, "ptx2amd: %s\n", Why.c_str());
      return;
    }
    // As CUDA's driver: the PTX of the highest architecture the device's capability runs; but
    // where there is none, the lowest above it (the toolkit's libraries carry PTX only for their
    // newest architecture, and any PTX translates).
    Opts->Selection.Kind = fatbin::SelectionPolicy::Mode::HighestArchAtMost;
    Opts->Selection.MaxArch = CC->arch();
    Opts->Selection.AboveIfNone = true;
    auto Dev = loader::selectDevice();
    if (!Dev) {
      Code = cudaErrorNoDevice;
      Why = toString(Dev.takeError());
      return;
    }
    C = new Context(*Dev, std::move(*Opts), *CC);
    ContextMade.store(true);
    log(loader::LogLevel::Info, "device: " + Dev->properties().Name);
  });
  if (!C)
    return fail(Code, Why);
  Out = C;
  return cudaSuccess;
}

cudaError_t synchronizeAll(Context &C) {
  std::vector<std::shared_ptr<loader::Stream>> All{nullptr};
  {
    std::lock_guard<std::mutex> Lock(C.Mutex);
    for (auto &[Handle, S] : C.Streams)
      All.push_back(S->Stream);
  }
  for (const std::shared_ptr<loader::Stream> &S : All)
    if (Error E = C.Dev.synchronize(S.get()))
      return failDeviceWork(std::move(E));
  return cudaSuccess;
}

namespace {
/// Return addresses of the per-thread entry points the thread is in (EntryPoints.h); threadHeap,
/// for exit handlers.
struct PerThreadCallsOf {
  std::vector<void *> Calls;
};
std::vector<void *> &perThreadCalls() { return threadHeap<PerThreadCallsOf>().Calls; }
} // namespace

bool inPerThreadCall() { return !perThreadCalls().empty(); }

cudaStream_t resolveStream(cudaStream_t S) {
  if (S != StreamPerThread && (S || !inPerThreadCall()))
    return S;
  // Made on the thread's first use and kept for the process: a thread's stream outlives it
  // when its work does.
  thread_local cudaStream_t Mine = nullptr;
  if (!Mine && createStream(&Mine, 0) != cudaSuccess)
    return S;
  return Mine;
}

cudaError_t streamFor(Context &C, cudaStream_t S, loader::Stream *&Out) {
  std::vector<std::shared_ptr<loader::Stream>> Wait;
  S = resolveStream(S);
  if (S == nullptr || S == StreamLegacy) {
    Out = nullptr;
    std::lock_guard<std::mutex> Lock(C.Mutex);
    for (auto &[Handle, R] : C.Streams)
      if (!(R->Flags & StreamNonBlocking))
        Wait.push_back(R->Stream);
  } else {
    std::lock_guard<std::mutex> Lock(C.Mutex);
    auto It = C.Streams.find(S);
    if (It == C.Streams.end())
      return fail(cudaErrorInvalidResourceHandle, formatv("no stream {0}", (const void *)S));
    Out = It->second->Stream.get();
    if (!(It->second->Flags & StreamNonBlocking))
      Wait.push_back(nullptr);
  }
  for (const std::shared_ptr<loader::Stream> &W : Wait)
    if (Error E = C.Dev.synchronize(W.get()))
      return failDeviceWork(std::move(E));
  return cudaSuccess;
}

cudaError_t moduleOf(Context &C, FatbinRecord &F, loader::LazyModule *&Out) {
  std::lock_guard<std::mutex> Lock(F.Mutex);
  if (!F.Opened) {
    F.Opened = true;
    auto M = C.Loader.openWrapper(F.Wrapper, F.Name);
    if (M)
      F.Module = std::move(*M);
    else
      F.OpenFailure = toString(M.takeError());
  }
  if (!F.Module)
    return fail(cudaErrorNoKernelImageForDevice, F.OpenFailure);
  Out = F.Module.get();
  return cudaSuccess;
}

cudaError_t resolveKernel(Context &C, KernelRecord &K, const loader::Kernel *&Out) {
  std::lock_guard<std::mutex> Lock(K.Mutex);
  if (!K.Resolved) {
    loader::LazyModule *M = nullptr;
    Error Why = Error::success();
    if (moduleOf(C, *K.Fatbin, M) != cudaSuccess) {
      Why = makeError(ErrorKind::BadInput, "kernel '" + K.Name + "': " + K.Fatbin->OpenFailure);
    } else if (auto Found = M->kernel(K.Name)) {
      K.Resolved = &*Found;
      K.Module = M;
    } else {
      Why = Found.takeError();
    }
    if (!K.Resolved) {
      ErrorReport R = takeError(std::move(Why));
      // Once per kernel, whether or not the program looks at the error.
      if (!K.Reported)
        std::fprintf(stderr, "ptx2amd: %s\n", R.Message.c_str());
      K.Reported = true;
      // A kernel that is not there or did not translate has no image for this device.
      return failByKind(makeError(R.Kind, R.Message), cudaErrorNoKernelImageForDevice,
                        cudaErrorNoKernelImageForDevice);
    }
  }
  Out = K.Resolved;
  return cudaSuccess;
}

cudaError_t contextAndKernel(KernelRecord &K, Context *&C, const loader::Kernel *&Out) {
  if (cudaError_t E = context(C))
    return E;
  return resolveKernel(*C, K, Out);
}

cudaError_t resolveSymbol(Context &C, const void *Symbol, loader::GlobalSymbol &Out) {
  VarRecord *V = nullptr;
  {
    Registry &R = registry();
    std::lock_guard<std::mutex> Lock(R.Mutex);
    if (auto It = R.VarsByHost.find(Symbol); It != R.VarsByHost.end())
      V = It->second;
  }
  if (!V)
    return fail(cudaErrorInvalidSymbol,
                formatv("{0} is not a registered device variable", Symbol).str());
  loader::LazyModule *M = nullptr;
  if (cudaError_t E = moduleOf(C, *V->Fatbin, M))
    return E;
  auto G = M->global(V->Name);
  if (!G)
    return fail(cudaErrorInvalidSymbol, G.takeError());
  Out = *G;
  return cudaSuccess;
}

cudaError_t launchKernel(KernelRecord *K, dim3 Grid, dim3 Block, void **Args, size_t SharedBytes,
                         cudaStream_t S, bool Cooperative) {
  if (!K)
    return fail(cudaErrorInvalidDeviceFunction, "launch of a function that is not a registered "
                                                "kernel");
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  const cudaDeviceProp &P = C->Props;
  uint64_t Threads = uint64_t(Block.x) * Block.y * Block.z;
  if (!Grid.x || !Grid.y || !Grid.z || !Threads || Threads > unsigned(P.maxThreadsPerBlock) ||
      Block.x > unsigned(P.maxThreadsDim[0]) || Block.y > unsigned(P.maxThreadsDim[1]) ||
      Block.z > unsigned(P.maxThreadsDim[2]) || Grid.y > unsigned(P.maxGridSize[1]) ||
      Grid.z > unsigned(P.maxGridSize[2]) || uint64_t(Grid.x) * Block.x > UINT32_MAX ||
      uint64_t(Grid.y) * Block.y > UINT32_MAX || uint64_t(Grid.z) * Block.z > UINT32_MAX)
    return fail(cudaErrorInvalidConfiguration,
                formatv("kernel '{0}': grid ({1},{2},{3}) of blocks ({4},{5},{6})", K->Name, Grid.x,
                        Grid.y, Grid.z, Block.x, Block.y, Block.z)
                    .str());
  const loader::Kernel *DK = nullptr;
  if (cudaError_t E = resolveKernel(*C, *K, DK))
    return E;
  uint64_t StaticLds = DK->metadata().GroupSegmentFixedSize;
  int MaxDynamic;
  {
    std::lock_guard<std::mutex> Lock(K->Mutex);
    MaxDynamic = K->MaxDynamicSharedBytes;
  }
  // cudaFuncAttributeMaxDynamicSharedMemorySize, when the program set it, bounds every launch.
  if (MaxDynamic >= 0 && SharedBytes > uint64_t(MaxDynamic))
    return fail(cudaErrorInvalidValue,
                formatv("kernel '{0}': {1} bytes of dynamic shared memory; its "
                        "MaxDynamicSharedMemorySize attribute allows {2}",
                        K->Name, SharedBytes, MaxDynamic)
                    .str());
  // Past sharedMemPerBlock only by opting in, as CUDA has it.
  const uint64_t Limit = MaxDynamic >= 0 ? P.sharedMemPerBlockOptin : P.sharedMemPerBlock;
  if (StaticLds + SharedBytes > Limit)
    return fail(
        cudaErrorInvalidValue,
        formatv("kernel '{0}': {1} bytes of dynamic shared memory after {2} static ones "
                "exceed the {3} bytes a block may use{4}",
                K->Name, SharedBytes, StaticLds, Limit,
                MaxDynamic >= 0 ? "" : " without cudaFuncAttributeMaxDynamicSharedMemorySize")
            .str());
  if (Cooperative) {
    int PerUnit = 0;
    if (cudaError_t E = occupancyBlocks(*K, int(Threads), SharedBytes, &PerUnit))
      return E;
    const uint64_t Blocks = uint64_t(Grid.x) * Grid.y * Grid.z;
    const uint64_t Resident = uint64_t(PerUnit) * uint64_t(P.multiProcessorCount);
    if (Blocks > Resident)
      return fail(cudaErrorCooperativeLaunchTooLarge,
                  formatv("kernel '{0}': a cooperative grid of {1} blocks; {2} blocks of {3} "
                          "threads and {4} bytes of dynamic shared memory fit the device at once "
                          "({5} per multiprocessor, {6} multiprocessors)",
                          K->Name, Blocks, Resident, Threads, SharedBytes, PerUnit,
                          P.multiProcessorCount)
                      .str());
  }
  if (isCapturing(S)) {
    GraphNode Proto;
    Proto.Kind = NodeKind::Kernel;
    if (cudaError_t E =
            captureKernelLaunch(K, Grid, Block, unsigned(SharedBytes), Args, Proto.Kernel))
      return E;
    if (Cooperative) {
      // The node launches as it was captured: with the cooperative attribute.
      LaunchAttribute A{};
      A.Id = 2;
      const int On = 1;
      std::memcpy(A.Value, &On, sizeof On);
      Proto.Kernel.Attributes.push_back(A);
    }
    return captureNode(S, Proto);
  }
  loader::Stream *Stream = nullptr;
  if (cudaError_t E = streamFor(*C, S, Stream))
    return E;

  amdgpu::LaunchGeometry G;
  G.Grid[0] = Grid.x, G.Grid[1] = Grid.y, G.Grid[2] = Grid.z;
  G.Block[0] = Block.x, G.Block[1] = Block.y, G.Block[2] = Block.z;
  G.DynamicLdsBytes = uint32_t(SharedBytes);
  uint64_t N;
  {
    std::lock_guard<std::mutex> Lock(K->Mutex);
    N = ++K->Launches;
  }
  loader::LogLevel Level = N == 1 ? loader::LogLevel::Info : loader::LogLevel::Debug;
  if (logging(Level))
    log(Level, formatv("launch '{0}' grid ({1},{2},{3}) block ({4},{5},{6}) shared {7} stream "
                       "{8}",
                       K->Name, Grid.x, Grid.y, Grid.z, Block.x, Block.y, Block.z, SharedBytes,
                       (const void *)S)
                   .str());
  loader::LaunchOptions O;
  O.Cooperative = Cooperative;
  // The module runs what the grid launches from the device too (CUDA dynamic parallelism).
  if (Error E = K->Module->launch(*DK, G, Args, Stream, O)) {
    cudaError_t R = failDeviceWork(std::move(E));
    // The kernel's own failure is CUDA's asynchronous error: the launch itself succeeded, and
    // the (sticky) error comes with the next call, as on a device that runs the kernel later.
    return R == stickyError() ? cudaSuccess : R;
  }
  return cudaSuccess;
}

cudaError_t launchKernelEx(KernelRecord *K, dim3 Grid, dim3 Block, void **Args, size_t SharedBytes,
                           cudaStream_t Stream, const LaunchAttribute *Attrs, unsigned NumAttrs) {
  if (NumAttrs && !Attrs)
    return fail(cudaErrorInvalidValue);
  std::vector<cudaEvent_t> After;
  bool Cooperative = false;
  for (unsigned I = 0; I < NumAttrs; ++I) {
    const LaunchAttribute &A = Attrs[I];
    switch (A.Id) {
    case 0:  // ignore
    case 1:  // access policy window: a cache hint
    case 3:  // synchronisation policy
    case 5:  // cluster scheduling preference
    case 6:  // programmatic stream serialisation: launches are stream-ordered anyway
    case 8:  // priority
    case 9:  // memory synchronisation domain map
    case 10: // memory synchronisation domain
    case 11: // preferred cluster dimension: a preference
    case 14: // preferred shared memory carve-out
    case 16: // NVLink-centric scheduling
      break;
    case 2: { // cooperative
      int On;
      std::memcpy(&On, A.Value, sizeof On);
      Cooperative = On != 0;
      break;
    }
    case ClusterDimensionAttribute: {
      dim3 D = clusterDimension(A);
      if (uint64_t(D.x) * D.y * D.z > 1)
        return fail(
            cudaErrorInvalidClusterSize,
            formatv("clusters of {0}x{1}x{2} blocks (the device has no clusters)", D.x, D.y, D.z)
                .str());
      break;
    }
    case 7:    // programmatic event: triggered at the latest when the kernel completes
    case 12: { // launch completion event
      cudaEvent_t E;
      std::memcpy(&E, A.Value, sizeof E);
      After.push_back(E);
      break;
    }
    default:
      return fail(cudaErrorInvalidValue, formatv("launch attribute {0}", A.Id).str());
    }
  }
  if (cudaError_t E = launchKernel(K, Grid, Block, Args, SharedBytes, Stream, Cooperative))
    return E;
  for (cudaEvent_t E : After)
    if (cudaError_t R = recordEvent(E, Stream))
      return R;
  return cudaSuccess;
}

} // namespace ptx2amd::runtime

extern "C" void ptx2amd_per_thread_enter(void *ReturnAddress) {
  ptx2amd::runtime::perThreadCalls().push_back(ReturnAddress);
}

extern "C" void *ptx2amd_per_thread_leave() {
  void *R = ptx2amd::runtime::perThreadCalls().back();
  ptx2amd::runtime::perThreadCalls().pop_back();
  return R;
}
