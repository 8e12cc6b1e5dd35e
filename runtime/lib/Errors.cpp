//===- Errors.cpp - CUDA's error state: per-thread last error, sticky errors, texts ===//

#include "Runtime.h"

#include "ptx2amd/amdgpu-backend/KernelFault.h"

#include <atomic>

namespace ptx2amd::runtime {
namespace {

struct ErrorInfo {
  cudaError_t Code;
  const char *Name;
  const char *Text;
};

// The runtime's own wording of each error it can return.
constexpr ErrorInfo Errors[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError",
     "initialization of the runtime failed"},
    {cudaErrorCudartUnloading, "cudaErrorCudartUnloading", "the runtime is shutting down"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration",
     "invalid launch configuration"},
    {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch"},
    {cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {cudaErrorInvalidHostPointer, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {cudaErrorInvalidTexture, "cudaErrorInvalidTexture", "invalid texture"},
    {cudaErrorInvalidChannelDescriptor, "cudaErrorInvalidChannelDescriptor",
     "invalid channel descriptor"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection", "invalid copy direction"},
    {cudaErrorInvalidFilterSetting, "cudaErrorInvalidFilterSetting",
     "linear filtering is not supported for textures read as integers"},
    {cudaErrorInvalidNormSetting, "cudaErrorInvalidNormSetting",
     "32-bit integers cannot be read as normalized floats"},
    {cudaErrorNotYetImplemented, "cudaErrorNotYetImplemented", "not implemented yet"},
    {cudaErrorInsufficientDriver, "cudaErrorInsufficientDriver", "the driver is too old"},
    {cudaErrorMissingConfiguration, "cudaErrorMissingConfiguration",
     "no launch configuration was pushed"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is available"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorStartupFailure, "cudaErrorStartupFailure", "runtime start-up failed"},
    {cudaErrorInvalidKernelImage, "cudaErrorInvalidKernelImage", "invalid device kernel image"},
    {cudaErrorDeviceUninitialized, "cudaErrorDeviceUninitialized", "invalid device context"},
    {cudaErrorNoKernelImageForDevice, "cudaErrorNoKernelImageForDevice",
     "no kernel image is available for execution on the device"},
    {cudaErrorInvalidPtx, "cudaErrorInvalidPtx", "PTX translation failed"},
    {cudaErrorInvalidSource, "cudaErrorInvalidSource", "device kernel image is invalid"},
    {cudaErrorFileNotFound, "cudaErrorFileNotFound", "file not found"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorIllegalState, "cudaErrorIllegalState",
     "the operation cannot be performed in the present state"},
    {cudaErrorSymbolNotFound, "cudaErrorSymbolNotFound", "named symbol not found"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device work not completed yet"},
    {cudaErrorStreamCaptureUnsupported, "cudaErrorStreamCaptureUnsupported",
     "operation not permitted when stream is capturing"},
    {cudaErrorStreamCaptureInvalidated, "cudaErrorStreamCaptureInvalidated",
     "operation failed due to a previous error during capture"},
    {cudaErrorStreamCaptureMerge, "cudaErrorStreamCaptureMerge",
     "operation would result in a merge of separate capture sequences"},
    {cudaErrorStreamCaptureUnmatched, "cudaErrorStreamCaptureUnmatched",
     "capture was not ended in the same stream as it began"},
    {cudaErrorStreamCaptureUnjoined, "cudaErrorStreamCaptureUnjoined",
     "capturing stream has unjoined work"},
    {cudaErrorStreamCaptureIsolation, "cudaErrorStreamCaptureIsolation",
     "dependency created on uncaptured work in another stream"},
    {cudaErrorStreamCaptureImplicit, "cudaErrorStreamCaptureImplicit",
     "operation would make the legacy stream depend on a capturing blocking stream"},
    {cudaErrorCapturedEvent, "cudaErrorCapturedEvent",
     "operation not permitted on an event last recorded in a capturing stream"},
    {cudaErrorStreamCaptureWrongThread, "cudaErrorStreamCaptureWrongThread",
     "attempt to terminate a thread-local capture sequence from another thread"},
    {cudaErrorGraphExecUpdateFailure, "cudaErrorGraphExecUpdateFailure",
     "the graph update was not performed because it included changes which violated "
     "constraints specific to instantiated graph update"},
    {cudaErrorInvalidClusterSize, "cudaErrorInvalidClusterSize", "invalid cluster size"},
    {cudaErrorHostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered",
     "part or all of the requested memory range is already mapped"},
    {cudaErrorHostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered",
     "pointer does not correspond to a registered memory region"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "illegal memory access in a kernel"},
    {cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources",
     "too many resources requested for launch"},
    {cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the kernel timed out"},
    {cudaErrorAssert, "cudaErrorAssert", "device-side assertion failed"},
    {cudaErrorHardwareStackError, "cudaErrorHardwareStackError", "device stack error"},
    {cudaErrorIllegalInstruction, "cudaErrorIllegalInstruction", "illegal instruction"},
    {cudaErrorMisalignedAddress, "cudaErrorMisalignedAddress", "misaligned address"},
    {cudaErrorInvalidAddressSpace, "cudaErrorInvalidAddressSpace", "invalid address space"},
    {cudaErrorInvalidPc, "cudaErrorInvalidPc", "invalid program counter"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "the kernel failed"},
    {cudaErrorCooperativeLaunchTooLarge, "cudaErrorCooperativeLaunchTooLarge",
     "too many blocks for a cooperative launch"},
    {cudaErrorNotPermitted, "cudaErrorNotPermitted", "operation not permitted"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

const ErrorInfo *find(cudaError_t E) {
  for (const ErrorInfo &I : Errors)
    if (I.Code == E)
      return &I;
  return nullptr;
}

const char *genericText(cudaError_t E) {
  const ErrorInfo *I = find(E);
  return I ? I->Text : "unrecognized error code";
}

/// Errors after which CUDA's context is unusable: every later call returns them.
bool isSticky(cudaError_t E) {
  switch (E) {
  case cudaErrorIllegalAddress:
  case cudaErrorLaunchTimeout:
  case cudaErrorAssert:
  case cudaErrorHardwareStackError:
  case cudaErrorIllegalInstruction:
  case cudaErrorMisalignedAddress:
  case cudaErrorInvalidAddressSpace:
  case cudaErrorInvalidPc:
  case cudaErrorLaunchFailure:
    return true;
  default:
    return false;
  }
}

thread_local cudaError_t LastError = cudaSuccess;
thread_local cudaError_t DetailCode = cudaSuccess; ///< the error Detail belongs to
thread_local std::string Detail;                   ///< "<text>: <detail>"
thread_local std::string Why;                      ///< <detail> alone
thread_local bool InDriverApi = false;
thread_local bool RuntimeApiThread = false;

std::atomic<cudaError_t> Sticky{cudaSuccess};
std::once_flag StickyOnce;
std::string StickyText; ///< written once, before Sticky is published

} // namespace

cudaError_t fail(cudaError_t E, const std::string &Text) {
  // The driver API has no last error; its calls leave the runtime's alone.
  if (!InDriverApi)
    LastError = E;
  DetailCode = Text.empty() ? cudaSuccess : E;
  Why = Text;
  if (!Text.empty())
    Detail = std::string(genericText(E)) + ": " + Text;
  if (isSticky(E))
    std::call_once(StickyOnce, [&] {
      StickyText = Text.empty() ? genericText(E) : Detail;
      Sticky.store(E);
    });
  return E;
}

DriverApiScope::DriverApiScope() : Outer(InDriverApi) { InDriverApi = true; }
DriverApiScope::~DriverApiScope() { InDriverApi = Outer; }

void noteRuntimeApiCall() {
  if (!InDriverApi)
    RuntimeApiThread = true;
}

bool runtimeApiUsedOnThread() { return RuntimeApiThread; }

std::string detailOf(cudaError_t E) {
  if (E != cudaSuccess && E == Sticky.load())
    return StickyText;
  return E != cudaSuccess && E == DetailCode ? Why : std::string();
}

cudaError_t fail(cudaError_t E, llvm::Error Why) { return fail(E, llvm::toString(std::move(Why))); }

cudaError_t failDeviceWork(llvm::Error Why) {
  auto [Kind, Text] = amdgpu::takeFault(std::move(Why));
  switch (Kind) {
  case amdgpu::FaultKind::Assertion:
    return fail(cudaErrorAssert, Text);
  case amdgpu::FaultKind::MemoryFault:
    return fail(cudaErrorIllegalAddress, Text);
  case amdgpu::FaultKind::Timeout:
    return fail(cudaErrorLaunchTimeout, Text);
  case amdgpu::FaultKind::Trap:
  case amdgpu::FaultKind::Arithmetic:
  case amdgpu::FaultKind::Other:
    break;
  }
  return fail(cudaErrorLaunchFailure, Text);
}

cudaError_t notSupported(const char *Name, std::atomic<bool> &Logged) {
  if (!Logged.exchange(true))
    log(loader::LogLevel::Info, std::string("not supported: ") + Name);
  return fail(cudaErrorNotSupported, std::string(Name) + " is not implemented by ptx2amd");
}

cudaError_t stickyError() { return Sticky.load(); }

cudaError_t stickyErrorAsLast() {
  cudaError_t S = Sticky.load();
  if (S != cudaSuccess)
    LastError = S;
  return S;
}

// As NVIDIA's runtime: the last error is reset even when it is the sticky one (the calls that
// follow return the sticky error again, and make it the last error again).
cudaError_t lastError(bool Reset) {
  cudaError_t E = LastError;
  if (Reset)
    LastError = cudaSuccess;
  return E;
}

const char *errorName(cudaError_t E) {
  const ErrorInfo *I = find(E);
  return I ? I->Name : "cudaErrorUnknown";
}

const char *errorString(cudaError_t E) {
  if (E != cudaSuccess && E == Sticky.load())
    return StickyText.c_str();
  if (E != cudaSuccess && E == DetailCode)
    return Detail.c_str();
  return genericText(E);
}

} // namespace ptx2amd::runtime
