//===- DriverModules.cpp - the driver API: modules, functions, launches ===//
//
// A driver module is a FatbinRecord that the runtime's registry does not hold: opened at once
// (the image's PTX selected), translated at its first cuModuleGetFunction or cuModuleGetGlobal.
// A CUfunction is its KernelRecord, so driver launches take the runtime's launch path (checks,
// logging, an unavailable kernel's error naming it and why).

#include "Driver.h"

#include "ptx2amd/fatbin/Fatbin.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cstring>
#include <dlfcn.h>

using namespace llvm;
using namespace ptx2amd;
using namespace ptx2amd::runtime;

namespace {

/// The extent of an image passed by address alone (cuModuleLoadData): a fatbin container's
/// comes from its header, an ELF's from its headers, and anything else is NUL-terminated PTX.
ArrayRef<uint8_t> imageExtent(const void *Image) {
  auto *P = static_cast<const uint8_t *>(Image);
  uint32_t Magic;
  std::memcpy(&Magic, P, sizeof Magic);
  if (Magic == fatbin::ContainerMagic) {
    uint16_t HeaderSize;
    uint64_t Body;
    std::memcpy(&HeaderSize, P + 6, sizeof HeaderSize);
    std::memcpy(&Body, P + 8, sizeof Body);
    if (HeaderSize != fatbin::ContainerHeaderSize || Body >= (uint64_t(1) << 32))
      return {P, 16}; // not a container nvcc writes: refused by the reader, as above
    return {P, size_t(HeaderSize + Body)};
  }
  if (std::memcmp(P,
                  "\x7f"
                  "ELF",
                  4) == 0 &&
      P[4] == 2) {
    // ELF64: the section header table is last in the files nvcc writes; the program headers
    // bound it too.
    uint64_t PhOff, ShOff;
    uint16_t PhEntSize, PhNum, ShEntSize, ShNum;
    std::memcpy(&PhOff, P + 0x20, 8);
    std::memcpy(&ShOff, P + 0x28, 8);
    std::memcpy(&PhEntSize, P + 0x36, 2);
    std::memcpy(&PhNum, P + 0x38, 2);
    std::memcpy(&ShEntSize, P + 0x3a, 2);
    std::memcpy(&ShNum, P + 0x3c, 2);
    uint16_t EhSize;
    std::memcpy(&EhSize, P + 0x34, 2);
    // A header that no ELF writer makes (garbage after the magic) bounds nothing: the image is its
    // 64 bytes, which the reader then refuses, rather than a read far past the caller's bytes.
    constexpr uint64_t Plausible = uint64_t(1) << 32;
    if (P[5] != 1 || P[6] != 1 || EhSize != 64 || (PhNum && PhEntSize != 56) ||
        (ShNum && ShEntSize != 64) || PhOff >= Plausible || ShOff >= Plausible)
      return {P, 64};
    uint64_t End = std::max<uint64_t>(
        {64, PhOff + uint64_t(PhEntSize) * PhNum, ShOff + uint64_t(ShEntSize) * ShNum});
    return {P, size_t(End)};
  }
  return {P, std::strlen(static_cast<const char *>(Image))};
}

/// " (image in libfoo.so at +0x1234)" for an image inside a loaded shared object: which
/// library's module failed, for the log alone (module names stay free of addresses).
std::string imageOwner(const void *Image) {
  Dl_info Info{};
  if (!Image || !dladdr(Image, &Info) || !Info.dli_fname || !Info.dli_fbase)
    return "";
  uintptr_t Offset =
      reinterpret_cast<uintptr_t>(Image) - reinterpret_cast<uintptr_t>(Info.dli_fbase);
  return formatv(" (image in {0} at +{1:x})", sys::path::filename(Info.dli_fname), Offset).str();
}

/// Registers a module opened from \p Bytes in the current context.
cudaError_t loadModule(CUmodule *Out, ArrayRef<uint8_t> Bytes, const std::string &Name,
                       std::string *ErrorLog = nullptr) {
  return loadInCurrentContext(
      Out, [&](loader::ModuleLoader &L) { return L.open(Bytes, Name); }, Name, ErrorLog,
      Bytes.data());
}

} // namespace

namespace ptx2amd::runtime {

ArrayRef<uint8_t> imageBytes(const void *Image) { return imageExtent(Image); }

void JitLog::write(const std::string &Text) const {
  if (!Buffer || !Size || !Capacity)
    return;
  size_t N = std::min<size_t>(Text.size(), Capacity - 1);
  std::memcpy(Buffer, Text.data(), N);
  Buffer[N] = 0;
  *Size = unsigned(N + 1);
}

JitLogs jitLogs(unsigned N, const CUjit_option *Options, void **Values) {
  JitLogs L;
  for (unsigned I = 0; Options && Values && I < N; ++I) {
    switch (Options[I]) {
    case CU_JIT_INFO_LOG_BUFFER:
      L.Info.Buffer = static_cast<char *>(Values[I]);
      break;
    case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
      L.Info.Size = reinterpret_cast<unsigned *>(&Values[I]);
      break;
    case CU_JIT_ERROR_LOG_BUFFER:
      L.Errors.Buffer = static_cast<char *>(Values[I]);
      break;
    case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
      L.Errors.Size = reinterpret_cast<unsigned *>(&Values[I]);
      break;
    default:
      break;
    }
  }
  for (JitLog *Log : {&L.Info, &L.Errors})
    Log->Capacity = Log->Size ? *Log->Size : 0;
  return L;
}

cudaError_t loadInCurrentContext(
    CUmodule *Out,
    function_ref<Expected<std::unique_ptr<loader::LazyModule>>(loader::ModuleLoader &)> Open,
    const std::string &Name, std::string *ErrorLog, const void *Image) {
  DriverContext *DC = nullptr;
  if (cudaError_t E = currentContext(DC))
    return E;
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  FatbinRecord *F = nullptr;
  if (cudaError_t E = registerModule(Open(C->Loader), Name, DC, F, ErrorLog, Image))
    return E;
  *Out = reinterpret_cast<CUmodule>(F);
  return cudaSuccess;
}

cudaError_t registerModule(Expected<std::unique_ptr<loader::LazyModule>> M, const std::string &Name,
                           DriverContext *Owner, FatbinRecord *&Out, std::string *ErrorLog,
                           const void *Image) {
  if (!M) {
    ErrorReport Why = takeError(M.takeError());
    if (ErrorLog)
      *ErrorLog = Why.Message;
    // PTX only for architectures above the device's compute capability is what CUDA's driver
    // calls no binary for the GPU; any other image without usable PTX is not a source we take.
    return fail(Why.Kind == ErrorKind::Unsupported ? cudaErrorNoKernelImageForDevice
                                                   : cudaErrorInvalidSource,
                Why.Message + imageOwner(Image));
  }
  auto F = std::make_unique<FatbinRecord>();
  F->Name = Name;
  F->Opened = true;
  F->Module = std::move(*M);
  FatbinRecord *Handle = F.get();
  DriverState &S = driverState();
  {
    std::lock_guard<std::mutex> Lock(S.Mutex);
    S.Modules.emplace(Handle, std::move(F));
    if (Owner)
      Owner->Modules.push_back(Handle);
  }
  log(loader::LogLevel::Debug, "loaded module '" + Name + "'");
  Out = Handle;
  return cudaSuccess;
}

cudaError_t functionIn(FatbinRecord &F, const char *Name, KernelRecord *&Out) {
  std::lock_guard<std::mutex> Lock(F.Mutex);
  for (auto &K : F.Kernels)
    if (K->Name == Name) {
      Out = K.get();
      return cudaSuccess;
    }
  if (Error E = F.Module->load())
    return failByKind(std::move(E), cudaErrorInvalidPtx);
  if (!F.Module->hasKernel(Name))
    return fail(cudaErrorSymbolNotFound,
                formatv("no kernel '{0}' in {1}", Name, F.Module->name()).str());
  auto K = std::make_unique<KernelRecord>();
  K->Fatbin = &F;
  K->Name = Name;
  Out = K.get();
  F.Kernels.push_back(std::move(K));
  DriverState &S = driverState();
  std::lock_guard<std::mutex> StateLock(S.Mutex);
  S.Functions.insert(Out);
  return cudaSuccess;
}

cudaError_t globalIn(FatbinRecord &F, const char *Name, CUdeviceptr *Address, size_t *Bytes) {
  auto G = F.Module->global(Name);
  if (!G)
    return fail(cudaErrorSymbolNotFound, G.takeError());
  if (Address)
    *Address = CUdeviceptr(uintptr_t(G->Address));
  if (Bytes)
    *Bytes = G->Size;
  return cudaSuccess;
}

cudaError_t moduleOf(CUmodule M, FatbinRecord *&Out) {
  DriverState &S = driverState();
  std::lock_guard<std::mutex> Lock(S.Mutex);
  auto It = S.Modules.find(reinterpret_cast<const FatbinRecord *>(M));
  if (It == S.Modules.end())
    return fail(cudaErrorInvalidResourceHandle, formatv("no module {0}", (const void *)M).str());
  Out = It->second.get();
  return cudaSuccess;
}

cudaError_t functionOf(CUfunction F, KernelRecord *&Out) {
  DriverState &S = driverState();
  std::lock_guard<std::mutex> Lock(S.Mutex);
  auto *K = reinterpret_cast<KernelRecord *>(F);
  if (!S.Functions.count(K))
    return fail(cudaErrorInvalidResourceHandle, formatv("no function {0}", (const void *)F).str());
  Out = K;
  return cudaSuccess;
}

cudaError_t unloadModules(std::vector<FatbinRecord *> Modules) {
  if (Modules.empty())
    return cudaSuccess;
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  // Their kernels may still run.
  if (cudaError_t E = synchronizeAll(*C))
    return E;
  DriverState &S = driverState();
  std::lock_guard<std::mutex> Lock(S.Mutex);
  for (FatbinRecord *F : Modules) {
    for (auto &K : F->Kernels)
      S.Functions.erase(K.get());
    S.Modules.erase(F);
  }
  return cudaSuccess;
}

} // namespace ptx2amd::runtime

extern "C" {

CUresult cuModuleLoad(CUmodule *Module, const char *Path) {
  return driverCall([&] {
    if (!Module || !Path)
      return fail(cudaErrorInvalidValue);
    auto Buffer = MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
    if (!Buffer)
      return fail(cudaErrorFileNotFound,
                  formatv("{0}: {1}", Path, Buffer.getError().message()).str());
    auto Bytes = ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>((*Buffer)->getBufferStart()),
                                   (*Buffer)->getBufferSize());
    return loadModule(Module, Bytes, Path);
  });
}

CUresult cuModuleLoadDataEx(CUmodule *Module, const void *Image, unsigned NumOptions,
                            CUjit_option *Options, void **Values) {
  return driverCall([&] {
    if (!Module || !Image || (NumOptions && (!Options || !Values)))
      return fail(cudaErrorInvalidValue);
    // Of the JIT options only the logs mean something here: translation happens at first use,
    // so the error log gets what opening the image found wrong, and the info log stays empty.
    auto [Info, Errors] = jitLogs(NumOptions, Options, Values);
    Info.write("");
    std::string Log;
    ArrayRef<uint8_t> Bytes = imageExtent(Image);
    // Named by what it is, not where: the name ends up in cached diagnostics.
    cudaError_t E = loadModule(Module, Bytes,
                               formatv("in-memory image of {0} bytes", Bytes.size()).str(), &Log);
    Errors.write(Log);
    return E;
  });
}

CUresult cuModuleLoadData(CUmodule *Module, const void *Image) {
  return cuModuleLoadDataEx(Module, Image, 0, nullptr, nullptr);
}

CUresult cuModuleLoadFatBinary(CUmodule *Module, const void *FatBinary) {
  return cuModuleLoadDataEx(Module, FatBinary, 0, nullptr, nullptr);
}

// Kernels are translated at their first use: lazy loading, which is all there is.
CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode *Mode) {
  return driverCall([&] {
    if (!Mode)
      return fail(cudaErrorInvalidValue);
    *Mode = CU_MODULE_LAZY_LOADING;
    return cudaSuccess;
  });
}

CUresult cuModuleUnload(CUmodule Module) {
  return driverCall([&] {
    FatbinRecord *F = nullptr;
    if (cudaError_t E = moduleOf(Module, F))
      return E;
    {
      DriverState &S = driverState();
      std::lock_guard<std::mutex> Lock(S.Mutex);
      std::erase(S.PrimaryContext.Modules, F);
      for (DriverContext *C : S.Created)
        std::erase(C->Modules, F);
    }
    return unloadModules({F});
  });
}

// Looking a function up translates the module (or takes it from the JIT cache). A kernel the
// PTX declares but that failed to translate is still a function: its launches fail, naming it
// and the reason, as the runtime API's do.
CUresult cuModuleGetFunction(CUfunction *Function, CUmodule Module, const char *Name) {
  return driverCall([&] {
    if (!Function || !Name)
      return fail(cudaErrorInvalidValue);
    FatbinRecord *F = nullptr;
    if (cudaError_t E = moduleOf(Module, F))
      return E;
    KernelRecord *K = nullptr;
    if (cudaError_t E = functionIn(*F, Name, K))
      return E;
    *Function = reinterpret_cast<CUfunction>(K);
    return cudaSuccess;
  });
}

CUresult cuModuleGetGlobal_v2(CUdeviceptr *Address, size_t *Bytes, CUmodule Module,
                              const char *Name) {
  return driverCall([&] {
    if (!Name || (!Address && !Bytes))
      return fail(cudaErrorInvalidValue);
    FatbinRecord *F = nullptr;
    if (cudaError_t E = moduleOf(Module, F))
      return E;
    return globalIn(*F, Name, Address, Bytes);
  });
}

CUresult cuFuncGetAttribute(int *Value, CUfunction_attribute Attribute, CUfunction Function) {
  return driverCall([&] {
    if (!Value)
      return fail(cudaErrorInvalidValue);
    KernelRecord *K = nullptr;
    if (cudaError_t E = functionOf(Function, K))
      return E;
    cudaFuncAttributes A;
    if (cudaError_t E = functionAttributes(*K, A))
      return E;
    switch (Attribute) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
      *Value = A.maxThreadsPerBlock;
      break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
      *Value = int(A.sharedSizeBytes);
      break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES:
      *Value = int(A.constSizeBytes);
      break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES:
      *Value = int(A.localSizeBytes);
      break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS:
      *Value = A.numRegs;
      break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION:
      *Value = A.ptxVersion;
      break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION:
      *Value = A.binaryVersion;
      break;
    case CU_FUNC_ATTRIBUTE_CACHE_MODE_CA:
      *Value = A.cacheModeCA;
      break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
      *Value = A.maxDynamicSharedSizeBytes;
      break;
    case CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
      *Value = A.preferredShmemCarveout;
      break;
    // Clusters: a kernel here never requires one (cudaFuncAttributes says the same).
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET:
      *Value = A.clusterDimMustBeSet;
      break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH:
      *Value = A.requiredClusterWidth;
      break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT:
      *Value = A.requiredClusterHeight;
      break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH:
      *Value = A.requiredClusterDepth;
      break;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
      *Value = A.nonPortableClusterSizeAllowed;
      break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
      *Value = A.clusterSchedulingPolicyPreference;
      break;
    default:
      return fail(cudaErrorInvalidValue, formatv("function attribute {0}", int(Attribute)).str());
    }
    return cudaSuccess;
  });
}

CUresult cuFuncSetAttribute(CUfunction Function, CUfunction_attribute Attribute, int Value) {
  return driverCall([&] {
    KernelRecord *K = nullptr;
    if (cudaError_t E = functionOf(Function, K))
      return E;
    return setFunctionAttribute(*K, int(Attribute), Value);
  });
}

CUresult cuFuncSetCacheConfig(CUfunction Function, int Config) {
  return driverCall([&] {
    KernelRecord *K = nullptr;
    return functionOf(Function, K);
  });
}

CUresult cuFuncGetName(const char **Name, CUfunction Function) {
  return driverCall([&] {
    if (!Name)
      return fail(cudaErrorInvalidValue);
    KernelRecord *K = nullptr;
    if (cudaError_t E = functionOf(Function, K))
      return E;
    *Name = K->Name.c_str();
    return cudaSuccess;
  });
}

// With `extra`, the arguments come packed as CUDA lays them out, which is the kernarg layout of
// the translated kernel's explicit arguments: each argument's pointer is its offset there.
} // extern "C"

namespace {

/// cuLaunchKernel, and cuLaunchCooperativeKernel when \p Cooperative.
cudaError_t launchFunction(CUfunction Function, unsigned GridX, unsigned GridY, unsigned GridZ,
                           unsigned BlockX, unsigned BlockY, unsigned BlockZ, unsigned SharedBytes,
                           CUstream Stream, void **Params, void **Extra, bool Cooperative) {
  KernelRecord *K = nullptr;
  if (cudaError_t E = functionOf(Function, K))
    return E;
  if (Params && Extra)
    return fail(cudaErrorInvalidValue, "both kernelParams and extra");
  std::vector<void *> Packed;
  if (Extra) {
    char *Buffer = nullptr;
    size_t *Size = nullptr;
    for (void **P = Extra; *P != CuLaunchParamEnd; P += 2) {
      if (*P == CuLaunchParamBufferPointer)
        Buffer = static_cast<char *>(P[1]);
      else if (*P == CuLaunchParamBufferSize)
        Size = static_cast<size_t *>(P[1]);
      else
        return fail(cudaErrorInvalidValue,
                    formatv("unknown key {0} in extra", (const void *)*P).str());
    }
    if (!Buffer || !Size)
      return fail(cudaErrorInvalidValue, "extra without CU_LAUNCH_PARAM_BUFFER_POINTER and "
                                         "CU_LAUNCH_PARAM_BUFFER_SIZE");
    Context *C = nullptr;
    const loader::Kernel *DK = nullptr;
    if (cudaError_t E = contextAndKernel(*K, C, DK))
      return E;
    for (const amdgpu::KernelArgMetadata &A : DK->metadata().Args) {
      if (A.isHidden())
        continue;
      if (A.Offset + A.Size > *Size)
        return fail(cudaErrorInvalidValue,
                    formatv("kernel '{0}': the {1}-byte argument buffer ends before argument "
                            "{2} (offset {3}, {4} bytes)",
                            K->Name, *Size, Packed.size(), A.Offset, A.Size)
                        .str());
      Packed.push_back(Buffer + A.Offset);
    }
    Params = Packed.data();
  } else if (!Params) {
    // Without arguments, only a kernel that takes none can run.
    Context *C = nullptr;
    const loader::Kernel *DK = nullptr;
    if (cudaError_t E = contextAndKernel(*K, C, DK))
      return E;
    if (DK->metadata().explicitKernargSize())
      return fail(
          cudaErrorInvalidValue,
          formatv("kernel '{0}' takes arguments: kernelParams or extra is needed", K->Name).str());
  }
  return launchKernel(K, dim3{GridX, GridY, GridZ}, dim3{BlockX, BlockY, BlockZ}, Params,
                      SharedBytes, Stream, Cooperative);
}

} // namespace

extern "C" {

CUresult cuLaunchKernel(CUfunction Function, unsigned GridX, unsigned GridY, unsigned GridZ,
                        unsigned BlockX, unsigned BlockY, unsigned BlockZ, unsigned SharedBytes,
                        CUstream Stream, void **Params, void **Extra) {
  return driverCall([&] {
    return launchFunction(Function, GridX, GridY, GridZ, BlockX, BlockY, BlockZ, SharedBytes,
                          Stream, Params, Extra, false);
  });
}

CUresult cuLaunchKernelEx(const CuLaunchConfig *Config, CUfunction Function, void **Params,
                          void **Extra) {
  return driverCall([&] {
    if (!Config || Extra)
      return fail(cudaErrorInvalidValue, Extra ? "cuLaunchKernelEx with `extra`" : "");
    KernelRecord *K = nullptr;
    if (cudaError_t E = functionOf(Function, K))
      return E;
    return launchKernelEx(K, dim3{Config->GridX, Config->GridY, Config->GridZ},
                          dim3{Config->BlockX, Config->BlockY, Config->BlockZ}, Params,
                          Config->SharedBytes, Config->Stream, Config->Attrs, Config->NumAttrs);
  });
}

CUresult cuLaunchCooperativeKernel(CUfunction Function, unsigned GridX, unsigned GridY,
                                   unsigned GridZ, unsigned BlockX, unsigned BlockY,
                                   unsigned BlockZ, unsigned SharedBytes, CUstream Stream,
                                   void **Params) {
  return driverCall([&] {
    return launchFunction(Function, GridX, GridY, GridZ, BlockX, BlockY, BlockZ, SharedBytes,
                          Stream, Params, nullptr, true);
  });
}

// Deprecated since CUDA 11.3: one launch per device, and there is one device. Without
// CUDA_COOPERATIVE_LAUNCH_MULTI_DEVICE_NO_PRE_LAUNCH_SYNC the kernel waits for all earlier work of
// the device, without ..._NO_POST_LAUNCH_SYNC all later work waits for it: a device synchronisation
// before and after.
CUresult cuLaunchCooperativeKernelMultiDevice(CuLaunchParams *List, unsigned NumDevices,
                                              unsigned Flags) {
  return driverCall([&] {
    constexpr unsigned NoPreSync = 1, NoPostSync = 2;
    if (!List || NumDevices != 1 || (Flags & ~(NoPreSync | NoPostSync)))
      return fail(cudaErrorInvalidValue,
                  formatv("{0} launches with flags {1:x} (one device)", NumDevices, Flags).str());
    const CuLaunchParams &L = List[0];
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    if (!(Flags & NoPreSync))
      if (cudaError_t E = synchronizeAll(*C))
        return E;
    if (cudaError_t E = launchFunction(L.Function, L.GridX, L.GridY, L.GridZ, L.BlockX, L.BlockY,
                                       L.BlockZ, L.SharedBytes, L.Stream, L.Params, nullptr, true))
      return E;
    if (!(Flags & NoPostSync))
      return synchronizeAll(*C);
    return cudaSuccess;
  });
}

} // extern "C"
