//===- Registration.cpp - what nvcc's host code calls: registration and launch ===//
//
// A program built by nvcc registers each translation unit's fatbin from a constructor
// (__cudaRegisterFatBinary, then __cudaRegisterFunction/Var for each kernel and variable, then
// __cudaRegisterFatBinaryEnd) and unregisters it from an atexit handler. A launch `k<<<g, b, s,
// st>>>(args)` becomes __cudaPushCallConfiguration, then in k's stub __cudaGetKernel (first use
// only), __cudaPopCallConfiguration and __cudaLaunchKernel. Nothing is translated at
// registration: a fatbin's PTX is selected and translated at its first launch or variable use.

#include "Runtime.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <dlfcn.h>

using namespace llvm;
using namespace ptx2amd;
using namespace ptx2amd::runtime;

namespace {

struct CallConfiguration {
  dim3 Grid, Block;
  size_t SharedBytes;
  cudaStream_t Stream;
};
/// The thread's pushed <<<...>>> configurations; threadHeap, for exit handlers.
struct ConfigurationsOf {
  std::vector<CallConfiguration> List;
};
std::vector<CallConfiguration> &configurations() { return threadHeap<ConfigurationsOf>().List; }

/// The binary that holds \p Address, for messages.
std::string binaryOf(const void *Address) {
  Dl_info Info;
  if (dladdr(Address, &Info) && Info.dli_fname && *Info.dli_fname)
    return Info.dli_fname;
  return formatv("fatbin at {0}", Address).str();
}

FatbinRecord *fatbinOf(void **Handle) { return reinterpret_cast<FatbinRecord *>(Handle); }

} // namespace

extern "C" {

// Registration cannot report errors: one that fails (out of memory) leaves the fatbin, kernel or
// variable unregistered, and its use fails later with an error.
void **__cudaRegisterFatBinary(void *FatCubin) {
  try {
    Registry &R = registry();
    auto F = std::make_unique<FatbinRecord>();
    F->Wrapper = FatCubin;
    F->Name = binaryOf(FatCubin);
    std::lock_guard<std::mutex> Lock(R.Mutex);
    R.Fatbins.push_back(std::move(F));
    return reinterpret_cast<void **>(R.Fatbins.back().get());
  } catch (...) {
    return nullptr;
  }
}

void __cudaRegisterFatBinaryEnd(void **Handle) {
  FatbinRecord *F = fatbinOf(Handle);
  if (!F || !logging(loader::LogLevel::Info))
    return;
  try {
    log(loader::LogLevel::Info,
        formatv("registered the fatbin of '{0}': {1} kernels, {2} variables", F->Name,
                F->Kernels.size(), F->Vars.size())
            .str());
  } catch (...) {
  }
}

void __cudaUnregisterFatBinary(void **Handle) {
  FatbinRecord *F = fatbinOf(Handle);
  if (!F)
    return;
  Registry &R = registry();
  std::lock_guard<std::mutex> Lock(R.Mutex);
  for (const auto &K : F->Kernels)
    R.KernelsByHost.erase(K->HostFun);
  for (const auto &V : F->Vars)
    R.VarsByHost.erase(V->Address);
  // The device module stays loaded (see Runtime.h); the records stay for handles the program
  // may still hold.
}

void __cudaRegisterFunction(void **Handle, const char *HostFun, char *DeviceFun,
                            const char *DeviceName, int ThreadLimit, uint3 *Tid, uint3 *Bid,
                            dim3 *BlockDim, dim3 *GridDim, int *WarpSize) {
  FatbinRecord *F = fatbinOf(Handle);
  const char *Name = DeviceName ? DeviceName : DeviceFun;
  if (!F || !Name)
    return;
  try {
    auto K = std::make_unique<KernelRecord>();
    K->Fatbin = F;
    K->Name = Name;
    K->HostFun = HostFun;
    log(loader::LogLevel::Debug, "registered kernel '" + K->Name + "'");
    Registry &R = registry();
    std::lock_guard<std::mutex> Lock(R.Mutex);
    F->Kernels.push_back(std::move(K));
    R.KernelsByHost[HostFun] = F->Kernels.back().get();
  } catch (...) {
  }
}

static void registerVar(void **Handle, void *HostVar, const char *DeviceName, size_t Size,
                        int Constant, void **ManagedPointer) {
  FatbinRecord *F = fatbinOf(Handle);
  if (!F || !DeviceName)
    return;
  try {
    auto V = std::make_unique<VarRecord>();
    V->Fatbin = F;
    V->Name = DeviceName;
    V->Address = HostVar;
    V->Size = Size;
    V->Constant = Constant;
    V->ManagedPointer = ManagedPointer;
    log(loader::LogLevel::Debug, formatv("registered {0}variable '{1}' ({2} bytes)",
                                         ManagedPointer ? "managed " : "", V->Name, Size)
                                     .str());
    Registry &R = registry();
    std::lock_guard<std::mutex> Lock(R.Mutex);
    F->Vars.push_back(std::move(V));
    R.VarsByHost[HostVar] = F->Vars.back().get();
  } catch (...) {
  }
}

void __cudaRegisterVar(void **Handle, char *HostVar, char *DeviceAddress, const char *DeviceName,
                       int Ext, size_t Size, int Constant, int Global) {
  registerVar(Handle, HostVar, DeviceName, Size, Constant, nullptr);
}

void __cudaRegisterManagedVar(void **Handle, void **HostVarPtrAddress, char *DeviceAddress,
                              const char *DeviceName, int Ext, size_t Size, int Constant,
                              int Global) {
  registerVar(Handle, HostVarPtrAddress, DeviceName, Size, Constant, HostVarPtrAddress);
}

// Called before the host first touches a __managed__ variable of the module: loads it and points
// each managed variable's host pointer at the device variable. Nonzero on success.
char __cudaInitModule(void **Handle) {
  FatbinRecord *F = fatbinOf(Handle);
  if (!F)
    return 0;
  cudaError_t E = guarded([&]() -> cudaError_t {
    Context *C = nullptr;
    loader::LazyModule *M = nullptr;
    if (cudaError_t E = context(C))
      return E;
    if (cudaError_t E = moduleOf(*C, *F, M))
      return E;
    for (const auto &V : F->Vars) {
      if (!V->ManagedPointer)
        continue;
      auto G = M->global(V->Name);
      if (!G)
        return fail(cudaErrorInvalidSymbol, G.takeError());
      *V->ManagedPointer = G->Address;
    }
    return cudaSuccess;
  });
  return E == cudaSuccess;
}

unsigned __cudaPushCallConfiguration(dim3 Grid, dim3 Block, size_t SharedBytes,
                                     cudaStream_t Stream) {
  try {
    configurations().push_back({Grid, Block, SharedBytes, Stream});
    return 0;
  } catch (...) {
    return 1;
  }
}

cudaError_t __cudaPopCallConfiguration(dim3 *Grid, dim3 *Block, size_t *SharedBytes, void *Stream) {
  if (configurations().empty())
    return fail(cudaErrorMissingConfiguration);
  const CallConfiguration &C = configurations().back();
  *Grid = C.Grid;
  *Block = C.Block;
  *SharedBytes = C.SharedBytes;
  *static_cast<cudaStream_t *>(Stream) = C.Stream;
  configurations().pop_back();
  return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t *Kernel, const void *HostFun) {
  return guarded([&] {
    KernelRecord *K = findKernel(HostFun);
    if (!K)
      return fail(cudaErrorInvalidDeviceFunction,
                  formatv("{0} is not a registered kernel", HostFun).str());
    *Kernel = reinterpret_cast<cudaKernel_t>(K);
    return cudaSuccess;
  });
}

cudaError_t cudaGetKernel(cudaKernel_t *Kernel, const void *HostFun) {
  return __cudaGetKernel(Kernel, HostFun);
}

cudaError_t __cudaLaunchKernel(cudaKernel_t Kernel, dim3 Grid, dim3 Block, void **Args,
                               size_t SharedBytes, cudaStream_t Stream) {
  return guarded([&] {
    return launchKernel(reinterpret_cast<KernelRecord *>(Kernel), Grid, Block, Args, SharedBytes,
                        Stream);
  });
}

// The null stream of a program built with --default-stream per-thread is its thread's stream.
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t Kernel, dim3 Grid, dim3 Block, void **Args,
                                    size_t SharedBytes, cudaStream_t Stream) {
  return __cudaLaunchKernel(Kernel, Grid, Block, Args, SharedBytes,
                            Stream ? Stream : StreamPerThread);
}

/// cudaLaunchConfig_t.
struct LaunchConfig {
  dim3 Grid, Block;
  size_t DynamicSharedBytes;
  cudaStream_t Stream;
  const LaunchAttribute *Attrs;
  unsigned NumAttrs;
};

cudaError_t cudaLaunchKernelExC(const LaunchConfig *Config, const void *Func, void **Args) {
  return guarded([&] {
    if (!Config)
      return fail(cudaErrorInvalidValue);
    return launchKernelEx(findKernel(Func), Config->Grid, Config->Block, Args,
                          Config->DynamicSharedBytes, Config->Stream, Config->Attrs,
                          Config->NumAttrs);
  });
}

cudaError_t cudaFuncGetName(const char **Name, const void *Func) {
  return guarded([&] {
    if (!Name)
      return fail(cudaErrorInvalidValue);
    KernelRecord *K = findKernel(Func);
    if (!K)
      return fail(cudaErrorInvalidDeviceFunction);
    *Name = K->Name.c_str();
    return cudaSuccess;
  });
}

// A cudaFunction_t is the kernel's record, the handle the driver's CUfunction is too.
cudaError_t cudaGetFuncBySymbol(void **Function, const void *Symbol) {
  return guarded([&] {
    if (!Function)
      return fail(cudaErrorInvalidValue);
    KernelRecord *K = findKernel(Symbol);
    if (!K)
      return fail(cudaErrorInvalidDeviceFunction);
    *Function = K;
    return cudaSuccess;
  });
}

cudaError_t cudaLaunchKernel(const void *Func, dim3 Grid, dim3 Block, void **Args,
                             size_t SharedBytes, cudaStream_t Stream) {
  return guarded(
      [&] { return launchKernel(findKernel(Func), Grid, Block, Args, SharedBytes, Stream); });
}

cudaError_t cudaLaunchKernel_ptsz(const void *Func, dim3 Grid, dim3 Block, void **Args,
                                  size_t SharedBytes, cudaStream_t Stream) {
  return cudaLaunchKernel(Func, Grid, Block, Args, SharedBytes, Stream ? Stream : StreamPerThread);
}

cudaError_t cudaLaunchCooperativeKernel(const void *Func, dim3 Grid, dim3 Block, void **Args,
                                        size_t SharedBytes, cudaStream_t Stream) {
  return guarded(
      [&] { return launchKernel(findKernel(Func), Grid, Block, Args, SharedBytes, Stream, true); });
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *Attr, const void *Func) {
  return guarded([&] {
    KernelRecord *K = findKernel(Func);
    if (!K)
      return fail(cudaErrorInvalidDeviceFunction);
    if (!Attr)
      return fail(cudaErrorInvalidValue);
    return functionAttributes(*K, *Attr);
  });
}

cudaError_t cudaFuncSetAttribute(const void *Func, cudaFuncAttribute Attr, int Value) {
  return guarded([&] {
    KernelRecord *K = findKernel(Func);
    if (!K)
      return fail(cudaErrorInvalidDeviceFunction);
    return setFunctionAttribute(*K, int(Attr), Value);
  });
}

// Caches have no configuration here: accepted, as CUDA does on devices without the choice.
cudaError_t cudaFuncSetCacheConfig(const void *Func, int CacheConfig) {
  return guarded(
      [&] { return findKernel(Func) ? cudaSuccess : fail(cudaErrorInvalidDeviceFunction); });
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *NumBlocks, const void *Func,
                                                                   int BlockSize,
                                                                   size_t DynamicShared,
                                                                   unsigned Flags) {
  return guarded([&] {
    KernelRecord *K = findKernel(Func);
    if (!K)
      return fail(cudaErrorInvalidDeviceFunction);
    return occupancyBlocks(*K, BlockSize, DynamicShared, NumBlocks);
  });
}

cudaError_t cudaOccupancyMaxActiveClusters(int *NumClusters, const void *Func,
                                           const LaunchConfig *Config) {
  return guarded([&] {
    KernelRecord *K = findKernel(Func);
    if (!K)
      return fail(cudaErrorInvalidDeviceFunction);
    if (!Config)
      return fail(cudaErrorInvalidValue);
    return activeClusters(*K, Config->Block, Config->DynamicSharedBytes, Config->Attrs,
                          Config->NumAttrs, NumClusters);
  });
}

// The device's clusters are of one block.
cudaError_t cudaOccupancyMaxPotentialClusterSize(int *ClusterSize, const void *Func,
                                                 const LaunchConfig *Config) {
  return guarded([&] {
    if (!findKernel(Func))
      return fail(cudaErrorInvalidDeviceFunction);
    if (!ClusterSize || !Config)
      return fail(cudaErrorInvalidValue);
    *ClusterSize = 1;
    return cudaSuccess;
  });
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *NumBlocks, const void *Func,
                                                          int BlockSize, size_t DynamicShared) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(NumBlocks, Func, BlockSize,
                                                                DynamicShared, 0);
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *Bytes, const void *Func,
                                                      int NumBlocks, int BlockSize) {
  return guarded([&] {
    KernelRecord *K = findKernel(Func);
    if (!K)
      return fail(cudaErrorInvalidDeviceFunction);
    return availableDynamicShared(*K, NumBlocks, BlockSize, Bytes);
  });
}

// NVIDIA's runtime exports these three; CUDA's headers do not declare them and nvcc 13's host
// code does not call them. Registrations are void (they cannot report): one here is not
// performed, says so in the log and leaves cudaErrorNotSupported as the thread's last error.
void __cudaRegisterHostVar(void **Handle, const char *DeviceName, void *HostVar, size_t Size) {
  static std::atomic<bool> Logged{false};
  guarded([] { return notSupported("__cudaRegisterHostVar", Logged); });
}

void __cudaRegisterUnifiedTable(void **Handle, void *Table, void *A, void *B, void *C) {
  static std::atomic<bool> Logged{false};
  guarded([] { return notSupported("__cudaRegisterUnifiedTable", Logged); });
}

// NVIDIA's returns 0 whatever it is asked: no function here either.
void *__cudaGetProcAddress() {
  static std::atomic<bool> Logged{false};
  guarded([] { return notSupported("__cudaGetProcAddress", Logged); });
  return nullptr;
}

} // extern "C"
