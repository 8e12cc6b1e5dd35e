//===- Driver.cpp - the driver API: initialisation, errors, devices, contexts ===//

#include "Driver.h"
#include "Graphs.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/SHA256.h"

#include <algorithm>
#include <atomic>
#include <cstring>

using namespace llvm;
using namespace ptx2amd;
using namespace ptx2amd::runtime;

namespace {

std::atomic<bool> Initialized{false};

struct ResultInfo {
  CUresult Code;
  const char *Name;
  const char *Text;
};

constexpr ResultInfo Results[] = {
#define PTX2AMD_CUDA_ERROR(Value, RuntimeName, DriverName, Sticky, Text)                           \
  {DriverName, #DriverName, Text},
#define PTX2AMD_DRIVER_ERROR(Value, DriverName, Text) {DriverName, #DriverName, Text},
#include "Errors.def"
};

const ResultInfo *find(CUresult R) {
  for (const ResultInfo &I : Results)
    if (I.Code == R)
      return &I;
  return nullptr;
}

thread_local CUresult DetailResult = CUDA_SUCCESS; ///< the result threadTexts().DriverText is of

/// The thread's context stack (cuCtxPushCurrent/PopCurrent; cuCtxSetCurrent replaces the top).
/// The calling thread's context stack (cuCtxPushCurrent): threadHeap, for exit handlers.
struct ContextStackOf {
  std::vector<DriverContext *> Stack;
};
std::vector<DriverContext *> &contextStack() { return threadHeap<ContextStackOf>().Stack; }

cudaError_t checkOrdinal(CUdevice Device) {
  if (Device != 0)
    return fail(cudaErrorInvalidDevice, formatv("device {0}; there is one, 0", Device).str());
  return cudaSuccess;
}

/// The context of device \p Device, which must be the one there is.
cudaError_t deviceContext(CUdevice Device, Context *&C) {
  if (cudaError_t E = checkOrdinal(Device))
    return E;
  return context(C);
}

/// A handle of a live context: the primary one or a created one.
cudaError_t createContext(CUcontext *Out, unsigned Flags, CUdevice Device) {
  if (!Out)
    return fail(cudaErrorInvalidValue);
  if (cudaError_t E = checkOrdinal(Device))
    return E;
  auto C = std::make_unique<DriverContext>();
  C->Flags = Flags;
  DriverState &S = driverState();
  {
    std::lock_guard<std::mutex> Lock(S.Mutex);
    S.Created.insert(C.get());
  }
  contextStack().push_back(C.get());
  *Out = reinterpret_cast<CUcontext>(C.release());
  return cudaSuccess;
}

/// Unloads the modules of the primary context (its reset, or its last release).
cudaError_t resetPrimary() {
  DriverState &S = driverState();
  releaseLocalStorage(S.PrimaryContext);
  std::vector<FatbinRecord *> Modules;
  {
    std::lock_guard<std::mutex> Lock(S.Mutex);
    Modules.swap(S.PrimaryContext.Modules);
  }
  return unloadModules(std::move(Modules));
}

} // namespace

namespace ptx2amd::runtime {

unsigned long long nextContextId() {
  static std::atomic<unsigned long long> Next{1};
  return Next++;
}

DriverState &driverState() {
  static DriverState *S = new DriverState;
  return *S;
}

cudaError_t contextOf(CUcontext Ctx, DriverContext *&Out) {
  auto *C = reinterpret_cast<DriverContext *>(Ctx);
  DriverState &S = driverState();
  std::lock_guard<std::mutex> Lock(S.Mutex);
  if (C != &S.PrimaryContext && !S.Created.count(C))
    return fail(cudaErrorDeviceUninitialized, formatv("no context {0}", (const void *)Ctx).str());
  Out = C;
  return cudaSuccess;
}

// The runtime API initialises the driver as CUDA's does: a program may call the driver API
// after runtime calls without cuInit.
bool driverInitialized() { return Initialized.load() || contextMade(); }

CUresult toResult(cudaError_t E) {
  switch (E) {
#define PTX2AMD_CUDA_ERROR(Value, RuntimeName, DriverName, Sticky, Text)                           \
  case RuntimeName:                                                                                \
    return DriverName;
#define PTX2AMD_RUNTIME_ERROR(Value, RuntimeName, DriverName, Text)                                \
  case RuntimeName:                                                                                \
    return DriverName;
#include "Errors.def"
  }
  return CUDA_ERROR_UNKNOWN;
}

CUresult recordResult(CUresult R, cudaError_t E) {
  DetailResult = R;
  const ResultInfo *I = find(R);
  std::string &Text = threadTexts().DriverText;
  Text = I ? I->Text : "unknown error";
  std::string Why = detailOf(E);
  if (!Why.empty())
    Text += ": " + Why;
  // Programs built with the static runtime see driver errors only as the runtime's own.
  log(loader::LogLevel::Debug, "driver call failed: " + Text);
  return R;
}

cudaError_t currentContext(DriverContext *&Out) {
  if (!contextStack().empty()) {
    Out = contextStack().back();
    return cudaSuccess;
  }
  if (runtimeApiUsedOnThread()) {
    Out = &driverState().PrimaryContext;
    return cudaSuccess;
  }
  return fail(cudaErrorDeviceUninitialized, "no current context on this thread (cuCtxCreate, "
                                            "cuCtxSetCurrent or cuDevicePrimaryCtxRetain first)");
}

} // namespace ptx2amd::runtime

extern "C" {

//===-- initialisation, versions, errors -----------------------------------===//

CUresult cuInit(unsigned Flags) {
  if (Flags)
    return CUDA_ERROR_INVALID_VALUE;
  DriverApiScope Scope;
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return recordResult(toResult(E), E);
  Initialized.store(true);
  return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int *Version) {
  if (!Version)
    return CUDA_ERROR_INVALID_VALUE;
  *Version = CudaVersion;
  return CUDA_SUCCESS;
}

// These work before cuInit, as CUDA's do.
CUresult cuGetErrorString(CUresult R, const char **Text) {
  if (!Text)
    return CUDA_ERROR_INVALID_VALUE;
  const ResultInfo *I = find(R);
  if (!I) {
    *Text = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
  }
  *Text = R != CUDA_SUCCESS && R == DetailResult ? threadTexts().DriverText.c_str() : I->Text;
  return CUDA_SUCCESS;
}

CUresult cuGetErrorName(CUresult R, const char **Name) {
  if (!Name)
    return CUDA_ERROR_INVALID_VALUE;
  const ResultInfo *I = find(R);
  *Name = I ? I->Name : nullptr;
  return I ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

//===-- devices ------------------------------------------------------------===//

CUresult cuDeviceGet(CUdevice *Device, int Ordinal) {
  return driverCall([&] {
    if (!Device)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = checkOrdinal(Ordinal))
      return E;
    *Device = 0;
    return cudaSuccess;
  });
}

CUresult cuDeviceGetCount(int *Count) {
  return driverCall([&] {
    if (!Count)
      return fail(cudaErrorInvalidValue);
    *Count = 1;
    return cudaSuccess;
  });
}

CUresult cuDeviceGetName(char *Name, int Length, CUdevice Device) {
  return driverCall([&] {
    if (!Name || Length <= 0)
      return fail(cudaErrorInvalidValue);
    Context *C = nullptr;
    if (cudaError_t E = deviceContext(Device, C))
      return E;
    size_t N = std::min(std::strlen(C->Props.name), size_t(Length - 1));
    std::memcpy(Name, C->Props.name, N);
    Name[N] = 0;
    return cudaSuccess;
  });
}

// A stable identity: a hash of the device's name and ISA.
CUresult cuDeviceGetUuid_v2(CUuuid *Uuid, CUdevice Device) {
  return driverCall([&] {
    if (!Uuid)
      return fail(cudaErrorInvalidValue);
    Context *C = nullptr;
    if (cudaError_t E = deviceContext(Device, C))
      return E;
    SHA256 H;
    H.update(C->Dev.properties().Name);
    H.update(C->Dev.properties().IsaName);
    auto Digest = H.final();
    std::memcpy(Uuid->bytes, Digest.data(), sizeof(Uuid->bytes));
    return cudaSuccess;
  });
}

CUresult cuDeviceGetUuid(CUuuid *Uuid, CUdevice Device) { return cuDeviceGetUuid_v2(Uuid, Device); }

CUresult cuDeviceTotalMem_v2(size_t *Bytes, CUdevice Device) {
  return driverCall([&] {
    if (!Bytes)
      return fail(cudaErrorInvalidValue);
    Context *C = nullptr;
    if (cudaError_t E = deviceContext(Device, C))
      return E;
    *Bytes = C->Props.totalGlobalMem;
    return cudaSuccess;
  });
}

CUresult cuDeviceGetAttribute(int *Value, int Attribute, CUdevice Device) {
  return driverCall([&] {
    if (!Value)
      return fail(cudaErrorInvalidValue);
    Context *C = nullptr;
    if (cudaError_t E = deviceContext(Device, C))
      return E;
    if (!deviceAttribute(*C, cudaDeviceAttr(Attribute), *Value))
      return fail(cudaErrorInvalidValue, formatv("device attribute {0}", Attribute).str());
    return cudaSuccess;
  });
}

/// CUdevprop, of the deprecated cuDeviceGetProperties.
struct CuDevProp {
  int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], sharedMemPerBlock, totalConstantMemory,
      SIMDWidth, memPitch, regsPerBlock, clockRate, textureAlign;
};

CUresult cuDeviceGetProperties(CuDevProp *Prop, CUdevice Device) {
  return driverCall([&] {
    if (!Prop)
      return fail(cudaErrorInvalidValue);
    Context *C = nullptr;
    if (cudaError_t E = deviceContext(Device, C))
      return E;
    const cudaDeviceProp &P = C->Props;
    Prop->maxThreadsPerBlock = P.maxThreadsPerBlock;
    for (int I = 0; I < 3; ++I) {
      Prop->maxThreadsDim[I] = P.maxThreadsDim[I];
      Prop->maxGridSize[I] = P.maxGridSize[I];
    }
    Prop->sharedMemPerBlock = int(P.sharedMemPerBlock);
    Prop->totalConstantMemory = int(P.totalConstMem);
    Prop->SIMDWidth = P.warpSize;
    Prop->memPitch = int(P.memPitch);
    Prop->regsPerBlock = P.regsPerBlock;
    Prop->clockRate = C->ClockRateKHz;
    Prop->textureAlign = int(P.textureAlignment);
    return cudaSuccess;
  });
}

// A LUID names an adapter on Windows only.
CUresult cuDeviceGetLuid(char *Luid, unsigned *NodeMask, CUdevice Device) {
  return driverCall([&] {
    if (!Luid || !NodeMask)
      return fail(cudaErrorInvalidValue);
    Context *C = nullptr;
    if (cudaError_t E = deviceContext(Device, C))
      return E;
    return fail(cudaErrorNotSupported, "a device LUID (Windows only)");
  });
}

CUresult cuDeviceComputeCapability(int *Major, int *Minor, CUdevice Device) {
  return driverCall([&] {
    if (!Major || !Minor)
      return fail(cudaErrorInvalidValue);
    Context *C = nullptr;
    if (cudaError_t E = deviceContext(Device, C))
      return E;
    *Major = C->Props.major;
    *Minor = C->Props.minor;
    return cudaSuccess;
  });
}

//===-- contexts -----------------------------------------------------------===//

CUresult cuDevicePrimaryCtxRetain(CUcontext *Ctx, CUdevice Device) {
  return driverCall([&] {
    if (!Ctx)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = checkOrdinal(Device))
      return E;
    DriverState &S = driverState();
    std::lock_guard<std::mutex> Lock(S.Mutex);
    ++S.PrimaryRetains;
    *Ctx = reinterpret_cast<CUcontext>(&S.PrimaryContext);
    return cudaSuccess;
  });
}

// The last release unloads the primary context's modules, as CUDA destroys the context then.
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice Device) {
  return driverCall([&] {
    if (cudaError_t E = checkOrdinal(Device))
      return E;
    DriverState &S = driverState();
    {
      std::lock_guard<std::mutex> Lock(S.Mutex);
      if (!S.PrimaryRetains)
        return fail(cudaErrorDeviceUninitialized, "the primary context is not retained");
      if (--S.PrimaryRetains)
        return cudaSuccess;
    }
    return resetPrimary();
  });
}

CUresult cuDevicePrimaryCtxReset_v2(CUdevice Device) {
  return driverCall([&] {
    if (cudaError_t E = checkOrdinal(Device))
      return E;
    return resetPrimary();
  });
}

CUresult cuDevicePrimaryCtxGetState(CUdevice Device, unsigned *Flags, int *Active) {
  return driverCall([&] {
    if (!Flags || !Active)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = checkOrdinal(Device))
      return E;
    DriverState &S = driverState();
    std::lock_guard<std::mutex> Lock(S.Mutex);
    *Flags = S.PrimaryContext.Flags;
    *Active = S.PrimaryRetains > 0 || runtimeApiUsedOnThread();
    return cudaSuccess;
  });
}

// Scheduling flags are kept and reported; the host waits the same way whatever they say.
CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice Device, unsigned Flags) {
  return driverCall([&] {
    if (cudaError_t E = checkOrdinal(Device))
      return E;
    DriverState &S = driverState();
    std::lock_guard<std::mutex> Lock(S.Mutex);
    S.PrimaryContext.Flags = Flags;
    return cudaSuccess;
  });
}

CUresult cuCtxCreate_v2(CUcontext *Ctx, unsigned Flags, CUdevice Device) {
  return driverCall([&] { return createContext(Ctx, Flags, Device); });
}

// CUDA 11.4's cuCtxCreate: execution-affinity parameters are not supported.
CUresult cuCtxCreate_v3(CUcontext *Ctx, void *AffinityParams, int NumParams, unsigned Flags,
                        CUdevice Device) {
  return driverCall([&] {
    if (NumParams > 0)
      return fail(cudaErrorNotSupported, "execution affinity parameters of a context");
    return createContext(Ctx, Flags, Device);
  });
}

// CUDA 13's cuCtxCreate: parameters without execution affinity or CIG (null, or empty, as
// programs pass them) are what cuCtxCreate_v2 does; real ones are not supported.
CUresult cuCtxCreate_v4(CUcontext *Ctx, CUctxCreateParams *Params, unsigned Flags,
                        CUdevice Device) {
  return driverCall([&] {
    if (Params && Params->numExecAffinityParams < 0)
      return fail(cudaErrorInvalidValue);
    if (Params && (Params->numExecAffinityParams > 0 || Params->cigParams))
      return fail(cudaErrorNotSupported, Params->cigParams
                                             ? "CIG parameters of a context"
                                             : "execution affinity parameters of a context");
    return createContext(Ctx, Flags, Device);
  });
}

CUresult cuCtxDestroy_v2(CUcontext Ctx) {
  return driverCall([&] {
    DriverContext *C = nullptr;
    if (cudaError_t E = contextOf(Ctx, C))
      return E;
    if (C->Primary)
      return fail(cudaErrorInvalidValue, "the primary context is released, not destroyed");
    releaseLocalStorage(*C);
    std::vector<FatbinRecord *> Modules;
    {
      DriverState &S = driverState();
      std::lock_guard<std::mutex> Lock(S.Mutex);
      S.Created.erase(C);
      Modules.swap(C->Modules);
    }
    std::erase(contextStack(), C);
    delete C;
    return unloadModules(std::move(Modules));
  });
}

CUresult cuCtxPushCurrent_v2(CUcontext Ctx) {
  return driverCall([&] {
    DriverContext *C = nullptr;
    if (cudaError_t E = contextOf(Ctx, C))
      return E;
    contextStack().push_back(C);
    return cudaSuccess;
  });
}

CUresult cuCtxPopCurrent_v2(CUcontext *Ctx) {
  return driverCall([&] {
    if (contextStack().empty())
      return fail(cudaErrorDeviceUninitialized, "the context stack is empty");
    if (Ctx)
      *Ctx = reinterpret_cast<CUcontext>(contextStack().back());
    contextStack().pop_back();
    return cudaSuccess;
  });
}

CUresult cuCtxSetCurrent(CUcontext Ctx) {
  return driverCall([&] {
    if (!Ctx) {
      if (!contextStack().empty())
        contextStack().pop_back();
      return cudaSuccess;
    }
    DriverContext *C = nullptr;
    if (cudaError_t E = contextOf(Ctx, C))
      return E;
    if (contextStack().empty())
      contextStack().push_back(C);
    else
      contextStack().back() = C;
    return cudaSuccess;
  });
}

CUresult cuCtxGetCurrent(CUcontext *Ctx) {
  return driverCall([&] {
    if (!Ctx)
      return fail(cudaErrorInvalidValue);
    *Ctx = nullptr;
    if (contextStack().empty() && !runtimeApiUsedOnThread())
      return cudaSuccess;
    DriverContext *C = nullptr;
    if (cudaError_t E = currentContext(C))
      return E;
    *Ctx = reinterpret_cast<CUcontext>(C);
    return cudaSuccess;
  });
}

CUresult cuCtxGetDevice(CUdevice *Device) {
  return driverCall([&] {
    if (!Device)
      return fail(cudaErrorInvalidValue);
    DriverContext *C = nullptr;
    if (cudaError_t E = currentContext(C))
      return E;
    *Device = 0;
    return cudaSuccess;
  });
}

// CUDA 13's cuCtxGetDevice: of a given context (null: the current one).
CUresult cuCtxGetDevice_v2(CUdevice *Device, CUcontext Ctx) {
  return driverCall([&] {
    if (!Device)
      return fail(cudaErrorInvalidValue);
    DriverContext *C = nullptr;
    if (cudaError_t E = Ctx ? contextOf(Ctx, C) : currentContext(C))
      return E;
    *Device = 0;
    return cudaSuccess;
  });
}

CUresult cuCtxGetFlags(unsigned *Flags) {
  return driverCall([&] {
    if (!Flags)
      return fail(cudaErrorInvalidValue);
    DriverContext *C = nullptr;
    if (cudaError_t E = currentContext(C))
      return E;
    *Flags = C->Flags;
    return cudaSuccess;
  });
}

// The context API of CUDA 3.2 and later, which every context here has.
CUresult cuCtxGetApiVersion(CUcontext Ctx, unsigned *Version) {
  return driverCall([&] {
    if (!Version)
      return fail(cudaErrorInvalidValue);
    DriverContext *C = nullptr;
    if (cudaError_t E = Ctx ? contextOf(Ctx, C) : currentContext(C))
      return E;
    *Version = 3020;
    return cudaSuccess;
  });
}

CUresult cuCtxGetLimit(size_t *Value, int Limit) {
  return driverCall([&] {
    DriverContext *C = nullptr;
    if (cudaError_t E = currentContext(C))
      return E;
    return driverLimit(unsigned(Limit), Value);
  });
}

CUresult cuCtxSetLimit(int Limit, size_t Value) {
  return driverCall([&] {
    DriverContext *C = nullptr;
    if (cudaError_t E = currentContext(C))
      return E;
    return setDriverLimit(unsigned(Limit), Value);
  });
}

// The L1/LDS split is fixed on AMD GPUs: a preference is accepted, none is reported.
CUresult cuCtxGetCacheConfig(int *Config) {
  return driverCall([&] {
    if (!Config)
      return fail(cudaErrorInvalidValue);
    DriverContext *C = nullptr;
    if (cudaError_t E = currentContext(C))
      return E;
    *Config = 0; // CU_FUNC_CACHE_PREFER_NONE
    return cudaSuccess;
  });
}

CUresult cuCtxSetCacheConfig(int Config) {
  return driverCall([&] {
    if (Config < 0 || Config > 3)
      return fail(cudaErrorInvalidValue);
    DriverContext *C = nullptr;
    return currentContext(C);
  });
}

// Streams have no priorities: the range is [0, 0], as cudaDeviceGetStreamPriorityRange says.
CUresult cuCtxGetStreamPriorityRange(int *Least, int *Greatest) {
  return driverCall([&] {
    DriverContext *C = nullptr;
    if (cudaError_t E = currentContext(C))
      return E;
    if (Least)
      *Least = 0;
    if (Greatest)
      *Greatest = 0;
    return cudaSuccess;
  });
}

// A context's id: unique in the process for its lifetime.
CUresult cuCtxGetId(CUcontext Ctx, unsigned long long *Id) {
  return driverCall([&] {
    if (!Id)
      return fail(cudaErrorInvalidValue);
    DriverContext *C = nullptr;
    if (cudaError_t E = Ctx ? contextOf(Ctx, C) : currentContext(C))
      return E;
    *Id = C->Id;
    return cudaSuccess;
  });
}

CUresult cuDeviceGetPCIBusId(char *Id, int Length, CUdevice Device) {
  return driverCall([&] {
    if (!Id || Length <= 0)
      return fail(cudaErrorInvalidValue);
    Context *C = nullptr;
    if (cudaError_t E = deviceContext(Device, C))
      return E;
    writePciBusId(C->Props, Id, Length);
    return cudaSuccess;
  });
}

// There is no profiler to start or stop: success, as CUDA's driver gives without one attached.
CUresult cuProfilerStart() {
  return driverCall([] { return cudaSuccess; });
}
CUresult cuProfilerStop() {
  return driverCall([] { return cudaSuccess; });
}

CUresult cuCtxSynchronize() { return cuCtxSynchronize_v2(nullptr); }

// Every context is over the one device: synchronising one waits for all the device's work.
CUresult cuCtxSynchronize_v2(CUcontext Ctx) {
  return driverCall([&] {
    DriverContext *DC = nullptr;
    if (cudaError_t E = Ctx ? contextOf(Ctx, DC) : currentContext(DC))
      return E;
    if (auto R = refuseUnsafeCall("cuCtxSynchronize"))
      return *R;
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    return synchronizeAll(*C);
  });
}

} // extern "C"
