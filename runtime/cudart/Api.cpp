//===- Api.cpp - the runtime API's devices, errors, versions, streams and events ===//

#include "Driver.h"
#include "Graphs.h"
#include "Runtime.h"

#include "llvm/Support/FormatVariadic.h"

#include <atomic>
#include <cstdio>
#include <mutex>

using namespace llvm;
using namespace ptx2amd;
using namespace ptx2amd::runtime;

namespace {

/// cudaGetDriverEntryPoint(ByVersion): cuGetProcAddress's answer, found or not, as a success
/// (the runtime's contract: a null function and the status say what was missing). The flags
/// are the driver's (cudaEnableDefault 0, legacy 1, per-thread 2); \p PerThreadDefault: the
/// caller was built for the per-thread default stream (the _ptsz entry points), which is what
/// cudaEnableDefault then means.
cudaError_t driverEntryPoint(const char *Symbol, void **Fn, unsigned CudaVersion,
                             unsigned long long Flags, cudaDriverEntryPointQueryResult *Status,
                             bool PerThreadDefault) {
  return guarded([&] {
    if (!Symbol || !Fn || Flags > 2)
      return fail(cudaErrorInvalidValue);
    // The runtime initialises the driver first, as CUDA's does: what it returns is callable.
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    if (Flags == 0 && PerThreadDefault)
      Flags = 2;
    CUdriverProcAddressQueryResult S = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    if (cuGetProcAddress_v2(Symbol, Fn, int(CudaVersion), Flags, &S) == CUDA_ERROR_INVALID_VALUE)
      return fail(cudaErrorInvalidValue);
    if (Status)
      *Status = cudaDriverEntryPointQueryResult(int(S));
    return cudaSuccess;
  });
}

} // namespace

extern "C" {

//===-- errors and versions ------------------------------------------------===//

// These never fail, not even after a sticky error: they report it.
cudaError_t cudaGetLastError() { return lastError(true); }
cudaError_t cudaPeekAtLastError() { return lastError(false); }
const char *cudaGetErrorName(cudaError_t E) { return errorName(E); }
const char *cudaGetErrorString(cudaError_t E) { return errorString(E); }

cudaError_t cudaRuntimeGetVersion(int *Version) {
  if (!Version)
    return fail(cudaErrorInvalidValue);
  *Version = CudaVersion;
  return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *Version) {
  if (!Version)
    return fail(cudaErrorInvalidValue);
  *Version = CudaVersion;
  return cudaSuccess;
}

cudaError_t cudaGetDriverEntryPointByVersion(const char *Symbol, void **Fn, unsigned CudaVersion,
                                             unsigned long long Flags,
                                             cudaDriverEntryPointQueryResult *Status) {
  return driverEntryPoint(Symbol, Fn, CudaVersion, Flags, Status, false);
}

cudaError_t cudaGetDriverEntryPointByVersion_ptsz(const char *Symbol, void **Fn,
                                                  unsigned CudaVersion, unsigned long long Flags,
                                                  cudaDriverEntryPointQueryResult *Status) {
  return driverEntryPoint(Symbol, Fn, CudaVersion, Flags, Status, true);
}

// The driver functions of the runtime's own version.
cudaError_t cudaGetDriverEntryPoint(const char *Symbol, void **Fn, unsigned long long Flags,
                                    cudaDriverEntryPointQueryResult *Status) {
  return driverEntryPoint(Symbol, Fn, CudaVersion, Flags, Status, false);
}

cudaError_t cudaGetDriverEntryPoint_ptsz(const char *Symbol, void **Fn, unsigned long long Flags,
                                         cudaDriverEntryPointQueryResult *Status) {
  return driverEntryPoint(Symbol, Fn, CudaVersion, Flags, Status, true);
}

//===-- devices ------------------------------------------------------------===//

cudaError_t cudaGetDeviceCount(int *Count) {
  return guarded([&] {
    if (!Count)
      return fail(cudaErrorInvalidValue);
    *Count = 0;
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    *Count = 1;
    return cudaSuccess;
  });
}

cudaError_t cudaGetDevice(int *Device) {
  return guarded([&] {
    if (!Device)
      return fail(cudaErrorInvalidValue);
    *Device = 0;
    return checkDevice(0);
  });
}

cudaError_t cudaSetDevice(int Device) {
  return guarded([&] { return checkDevice(Device); });
}

// Scheduling and mapping flags: kept and reported; the host waits the same way whatever they
// say, and host memory is always mapped.
std::atomic<unsigned> DeviceFlags{0};
constexpr unsigned KnownDeviceFlags = 0x1f; // cudaDeviceSchedule* | MapHost | LmemResizeToMax

cudaError_t cudaSetDeviceFlags(unsigned Flags) {
  return guarded([&] {
    if (Flags & ~KnownDeviceFlags)
      return fail(cudaErrorInvalidValue, formatv("device flags {0:x}", Flags).str());
    DeviceFlags = Flags;
    return checkDevice(0);
  });
}

cudaError_t cudaInitDevice(int Device, unsigned DeviceFlags, unsigned Flags) {
  return guarded([&] {
    if (Flags & ~1u) // cudaInitDeviceFlagsAreValid
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = checkDevice(Device))
      return E;
    return Flags ? cudaSetDeviceFlags(DeviceFlags) : cudaSuccess;
  });
}

// There is one device: it is the best match for any properties.
cudaError_t cudaChooseDevice(int *Device, const cudaDeviceProp *Prop) {
  return guarded([&] {
    if (!Device || !Prop)
      return fail(cudaErrorInvalidValue);
    *Device = 0;
    return checkDevice(0);
  });
}

// The L1/LDS split and the LDS bank width are fixed on AMD GPUs: preferences are accepted and
// reported as what the device has (no preference, 4-byte banks).
cudaError_t cudaDeviceGetCacheConfig(int *Config) {
  return guarded([&] {
    if (!Config)
      return fail(cudaErrorInvalidValue);
    *Config = 0; // cudaFuncCachePreferNone
    return checkDevice(0);
  });
}
cudaError_t cudaDeviceSetCacheConfig(int Config) {
  return guarded([&] {
    if (Config < 0 || Config > 3)
      return fail(cudaErrorInvalidValue);
    return checkDevice(0);
  });
}
cudaError_t cudaDeviceGetSharedMemConfig(int *Config) {
  return guarded([&] {
    if (!Config)
      return fail(cudaErrorInvalidValue);
    *Config = 1; // cudaSharedMemBankSizeFourByte
    return checkDevice(0);
  });
}
cudaError_t cudaDeviceSetSharedMemConfig(int Config) {
  return guarded([&] {
    if (Config < 0 || Config > 2)
      return fail(cudaErrorInvalidValue);
    return checkDevice(0);
  });
}
cudaError_t cudaFuncSetSharedMemConfig(const void *Func, int Config) {
  return guarded([&] {
    if (!Func || Config < 0 || Config > 2)
      return fail(cudaErrorInvalidValue);
    return findKernel(Func) ? cudaSuccess : fail(cudaErrorInvalidDeviceFunction);
  });
}

cudaError_t cudaDeviceGetPCIBusId(char *Id, int Length, int Device) {
  return guarded([&] {
    if (!Id || Length <= 0)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = checkDevice(Device))
      return E;
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    writePciBusId(C->Props, Id, Length);
    return cudaSuccess;
  });
}

cudaError_t cudaDeviceGetByPCIBusId(int *Device, const char *Id) {
  return guarded([&] {
    if (!Device || !Id)
      return fail(cudaErrorInvalidValue);
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    unsigned Domain = 0, Bus = 0, Dev = 0, Fn = 0;
    // Both "domain:bus:device.function" and "bus:device.function".
    int N = std::sscanf(Id, "%x:%x:%x.%x", &Domain, &Bus, &Dev, &Fn);
    if (N < 4) {
      Domain = 0;
      N = std::sscanf(Id, "%x:%x.%x", &Bus, &Dev, &Fn) + 1;
    }
    if (N < 4)
      return fail(cudaErrorInvalidValue, formatv("PCI bus id '{0}'", Id).str());
    if (Domain != unsigned(C->Props.pciDomainID) || Bus != unsigned(C->Props.pciBusID) ||
        Dev != unsigned(C->Props.pciDeviceID))
      return fail(cudaErrorInvalidDevice, formatv("no device at PCI {0}", Id).str());
    *Device = 0;
    return cudaSuccess;
  });
}

// There is no profiler to start or stop: success, as CUDA's runtime gives without one attached.
cudaError_t cudaProfilerStart() { return cudaSuccess; }
cudaError_t cudaProfilerStop() { return cudaSuccess; }

cudaError_t cudaDeviceReset() {
  return guarded([&] {
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    return synchronizeAll(*C);
  });
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *Prop, int Device) {
  return guarded([&] {
    if (!Prop)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = checkDevice(Device))
      return E;
    Context *C = nullptr;
    context(C);
    *Prop = C->Props;
    return cudaSuccess;
  });
}

cudaError_t cudaDeviceGetAttribute(int *Value, cudaDeviceAttr Attr, int Device) {
  return guarded([&] {
    if (!Value)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = checkDevice(Device))
      return E;
    Context *C = nullptr;
    context(C);
    if (!deviceAttribute(*C, Attr, *Value))
      return fail(cudaErrorInvalidValue, formatv("device attribute {0}", int(Attr)).str());
    return cudaSuccess;
  });
}

cudaError_t cudaGetDeviceFlags(unsigned *Flags) {
  return guarded([&] {
    if (!Flags)
      return fail(cudaErrorInvalidValue);
    *Flags = DeviceFlags;
    return checkDevice(0);
  });
}

cudaError_t cudaDeviceGetLimit(size_t *Value, cudaLimit Limit) {
  return guarded([&] { return deviceLimit(Limit, Value); });
}

cudaError_t cudaDeviceSetLimit(cudaLimit Limit, size_t Value) {
  return guarded([&] { return setDeviceLimit(Limit, Value); });
}

// One device: no peers.
cudaError_t cudaDeviceCanAccessPeer(int *Can, int Device, int Peer) {
  return guarded([&] {
    if (!Can)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = checkDevice(Device))
      return E;
    if (cudaError_t E = checkDevice(Peer))
      return E;
    *Can = 0;
    return cudaSuccess;
  });
}

// Streams have no priorities here: the range is [0, 0].
cudaError_t cudaDeviceGetStreamPriorityRange(int *Least, int *Greatest) {
  return guarded([&] {
    if (Least)
      *Least = 0;
    if (Greatest)
      *Greatest = 0;
    return checkDevice(0);
  });
}

cudaError_t cudaDeviceSynchronize() {
  return guarded([&] {
    if (auto R = refuseUnsafeCall("cudaDeviceSynchronize"))
      return *R;
    Context *C = nullptr;
    if (cudaError_t E = context(C))
      return E;
    return synchronizeAll(*C);
  });
}

//===-- streams ------------------------------------------------------------===//

cudaError_t cudaStreamCreate(cudaStream_t *S) {
  return guarded([&] { return createStream(S, 0); });
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *S, unsigned Flags) {
  return guarded([&] { return createStream(S, Flags & StreamNonBlocking); });
}

// Priorities are accepted and not used.
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *S, unsigned Flags, int Priority) {
  return guarded([&] { return createStream(S, Flags & StreamNonBlocking); });
}

cudaError_t cudaStreamGetFlags(cudaStream_t S, unsigned *Flags) {
  return guarded([&] {
    if (!Flags)
      return fail(cudaErrorInvalidValue);
    return streamFlags(S, *Flags);
  });
}

cudaError_t cudaStreamGetId(cudaStream_t S, unsigned long long *Id) {
  return guarded([&] {
    if (!Id)
      return fail(cudaErrorInvalidValue);
    return streamId(S, *Id);
  });
}

// One device: every stream is device 0's.
cudaError_t cudaStreamGetDevice(cudaStream_t S, int *Device) {
  return guarded([&] {
    if (!Device)
      return fail(cudaErrorInvalidValue);
    unsigned Flags;
    *Device = 0;
    return streamFlags(S, Flags);
  });
}

// No GPUDirect RDMA writes reach this device: there is nothing to flush.
cudaError_t cudaDeviceFlushGPUDirectRDMAWrites(int Target, int Scope) {
  return guarded([&] {
    if (Target != 0 || Scope < 100 || Scope > 200) // the current device; owner or all devices
      return fail(cudaErrorInvalidValue);
    return checkDevice(0);
  });
}

cudaError_t cudaStreamIsCapturing(cudaStream_t S, int *Status) {
  return guarded(
      [&] { return captureInfo(S, Status, nullptr, nullptr, nullptr, nullptr, nullptr); });
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t S, int *Status, unsigned long long *Id,
                                     void **Graph, const void **Dependencies, const void **EdgeData,
                                     size_t *Count) {
  return guarded([&] { return captureInfo(S, Status, Id, Graph, Dependencies, EdgeData, Count); });
}

cudaError_t cudaStreamGetAttribute(cudaStream_t S, int Id, void *Value) {
  return guarded([&] { return streamAttribute(S, Id, Value, false); });
}

cudaError_t cudaStreamSetAttribute(cudaStream_t S, int Id, const void *Value) {
  return guarded([&] { return streamAttribute(S, Id, const_cast<void *>(Value), true); });
}

cudaError_t cudaStreamCopyAttributes(cudaStream_t Dst, cudaStream_t Src) {
  return guarded([&] { return copyStreamAttributes(Dst, Src); });
}

cudaError_t cudaCtxResetPersistingL2Cache() {
  // Nothing is set aside for persisting lines (streamAttribute): nothing to reset.
  return guarded([] { return cudaSuccess; });
}

cudaError_t cudaThreadExchangeStreamCaptureMode(int *Mode) {
  return guarded([&] { return exchangeCaptureMode(Mode); });
}

cudaError_t cudaStreamGetPriority(cudaStream_t S, int *Priority) {
  return guarded([&] {
    if (!Priority)
      return fail(cudaErrorInvalidValue);
    unsigned Flags;
    *Priority = 0;
    return streamFlags(S, Flags);
  });
}

// Host functions run on the calling thread once the stream's earlier work is done: later work
// of the stream still comes after them, at the cost of the call waiting.
cudaError_t cudaLaunchHostFunc(cudaStream_t S, cudaHostFn_t Fn, void *UserData) {
  return guarded([&] { return launchHostFunc(S, Fn, UserData); });
}

cudaError_t cudaStreamAddCallback(cudaStream_t S, cudaStreamCallback_t Callback, void *UserData,
                                  unsigned Flags) {
  return guarded([&] {
    if (!Callback || Flags)
      return fail(cudaErrorInvalidValue);
    if (cudaError_t E = synchronizeStream(S))
      return E;
    Callback(S, cudaSuccess, UserData);
    return cudaSuccess;
  });
}

cudaError_t cudaStreamDestroy(cudaStream_t S) {
  return guarded([&] { return destroyStream(S); });
}

cudaError_t cudaStreamSynchronize(cudaStream_t S) {
  return guarded([&] { return synchronizeStream(S); });
}

cudaError_t cudaStreamQuery(cudaStream_t S) {
  return guarded([&] { return queryStream(S); });
}

cudaError_t cudaStreamWaitEvent(cudaStream_t S, cudaEvent_t Event, unsigned Flags) {
  return guarded([&] { return streamWaitEvent(S, Event); });
}

//===-- events -------------------------------------------------------------===//

cudaError_t cudaEventCreate(cudaEvent_t *Event) {
  return guarded([&] { return createEvent(Event, 0); });
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *Event, unsigned Flags) {
  return guarded([&] { return createEvent(Event, Flags); });
}

cudaError_t cudaEventDestroy(cudaEvent_t Event) {
  return guarded([&] { return destroyEvent(Event); });
}

cudaError_t cudaEventRecord(cudaEvent_t Event, cudaStream_t S) {
  return guarded([&] { return recordEvent(Event, S); });
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t Event, cudaStream_t S, unsigned Flags) {
  return guarded([&] { return recordEvent(Event, S); });
}

cudaError_t cudaEventSynchronize(cudaEvent_t Event) {
  return guarded([&] { return synchronizeEvent(Event); });
}

cudaError_t cudaEventQuery(cudaEvent_t Event) {
  return guarded([&] { return queryEvent(Event); });
}

cudaError_t cudaEventElapsedTime(float *Ms, cudaEvent_t Start, cudaEvent_t End) {
  return guarded([&] { return eventElapsedTime(Ms, Start, End); });
}

} // extern "C"
