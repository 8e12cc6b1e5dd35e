//===- Errors.cpp - CUDA's error state: per-thread last error, sticky errors, texts ===//

#include "Runtime.h"

#include "ptx2amd/amdgpu-backend/KernelFault.h"
#include "ptx2amd/support/Error.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <pthread.h>
#include <set>
#include <string>

namespace ptx2amd::runtime {
namespace {

struct ErrorInfo {
  cudaError_t Code;
  const char *Name;
  const char *Text;
  bool Sticky;
};

constexpr ErrorInfo Errors[] = {
#define PTX2AMD_CUDA_ERROR(Value, RuntimeName, DriverName, Sticky, Text)                           \
  {RuntimeName, #RuntimeName, Text, Sticky},
#define PTX2AMD_RUNTIME_ERROR(Value, RuntimeName, DriverName, Text)                                \
  {RuntimeName, #RuntimeName, Text, false},
#include "Errors.def"
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
  const ErrorInfo *I = find(E);
  return I && I->Sticky;
}

thread_local cudaError_t LastError = cudaSuccess;
thread_local cudaError_t DetailCode = cudaSuccess; ///< the error threadTexts().Detail is of
thread_local bool InDriverApi = false;
thread_local bool RuntimeApiThread = false;

std::atomic<cudaError_t> Sticky{cudaSuccess};

} // namespace

ThreadTexts &threadTexts() { return threadHeap<ThreadTexts>(); }

cudaError_t fail(cudaError_t E, const std::string &Text) {
  // The driver API has no last error; its calls leave the runtime's alone.
  if (!InDriverApi)
    LastError = E;
  if (isSticky(E)) {
    // A failure of device work keeps CUDA's text in cudaGetErrorString/cuGetErrorString, which
    // programs print and compare, and which NVIDIA's static runtime answers from its own table
    // anyway: what failed and why goes to stderr, at every log level, for both runtimes. Each
    // failure reaches here once (a device reports it once, and calls after it return the sticky
    // error without running).
    std::string Line = genericText(E);
    if (!Text.empty())
      Line += ": " + Text;
    std::fprintf(stderr, "ptx2amd: %s\n", Line.c_str());
    cudaError_t None = cudaSuccess;
    Sticky.compare_exchange_strong(None, E);
    DetailCode = cudaSuccess;
    return E;
  }
  DetailCode = Text.empty() ? cudaSuccess : E;
  ThreadTexts &T = threadTexts();
  T.Why = Text;
  if (!Text.empty())
    T.Detail = std::string(genericText(E)) + ": " + Text;
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
  return E != cudaSuccess && E == DetailCode ? threadTexts().Why : std::string();
}

cudaError_t fail(cudaError_t E, llvm::Error Why) { return fail(E, llvm::toString(std::move(Why))); }

cudaError_t failByKind(llvm::Error Why, cudaError_t ForBadInput, cudaError_t ForUnsupported) {
  ErrorReport R = takeError(std::move(Why));
  switch (R.Kind) {
  case ErrorKind::BadInput:
    return fail(ForBadInput, R.Message);
  case ErrorKind::Unsupported:
    return fail(ForUnsupported, R.Message);
  case ErrorKind::OutOfResources:
    return fail(cudaErrorMemoryAllocation, R.Message);
  case ErrorKind::Io:
    return fail(cudaErrorFileNotFound, R.Message);
  case ErrorKind::Internal:
    break;
  }
  // Our own defect (a module the translation or the host device could not handle): NVIDIA's
  // static runtime shows only "unknown error", so the reason goes to stderr at every log level,
  // once per message (a program may retry the call).
  static std::mutex Mutex;
  static std::set<std::string> Printed;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (Printed.insert(R.Message).second)
      std::fprintf(stderr, "ptx2amd: internal error: %s\n", R.Message.c_str());
  }
  return fail(cudaErrorUnknown, R.Message);
}

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

cudaError_t failDeviceCall(llvm::Error Why, cudaError_t Otherwise) {
  // A device call that waits for earlier work (a copy from pageable memory, a memset) reports
  // that work's failure: the kernel's error, never the call's own.
  if (Why.isA<amdgpu::KernelFault>())
    return failDeviceWork(std::move(Why));
  return fail(Otherwise, std::move(Why));
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
  if (E != cudaSuccess && E == DetailCode)
    return threadTexts().Detail.c_str();
  return genericText(E);
}

} // namespace ptx2amd::runtime
