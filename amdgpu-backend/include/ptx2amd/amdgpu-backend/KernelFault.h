//===- ptx2amd/amdgpu-backend/KernelFault.h - why a kernel's launch failed -*- C++ -*-===//
//
// The error a device returns when a kernel fails while it runs, with what kind of failure it
// was, so that the CUDA runtimes can return CUDA's error for it (cudaErrorAssert,
// cudaErrorIllegalAddress, cudaErrorLaunchTimeout, ...) without reading the message. Both
// devices make it: the host backend from its traps, signals and watchdog, HSA from its queue
// and the device output's assertion records.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/Support/Error.h"

#include <string>
#include <utility>

namespace ptx2amd::amdgpu {

enum class FaultKind {
  Trap,        ///< a trap instruction (`trap`, `__trap()`)
  Assertion,   ///< a failed device assertion (`__assertfail`)
  MemoryFault, ///< an access outside mapped memory or the workgroup's LDS
  Arithmetic,  ///< a hardware arithmetic exception (integer division by zero on the CPU)
  Timeout,     ///< no progress: a deadlock at a barrier, an endless loop
  Other,       ///< anything else that stopped the kernel
};

class KernelFault : public llvm::ErrorInfo<KernelFault> {
public:
  static char ID;
  KernelFault(FaultKind K, std::string Msg) : Kind(K), Message(std::move(Msg)) {}
  void log(llvm::raw_ostream &OS) const override;
  std::error_code convertToErrorCode() const override;

  FaultKind Kind;
  std::string Message;
};

inline llvm::Error makeFault(FaultKind K, std::string Msg) {
  return llvm::make_error<KernelFault>(K, std::move(Msg));
}

/// The kind and text of \p E, consumed: FaultKind::Other with its text for an error that is not
/// a KernelFault.
std::pair<FaultKind, std::string> takeFault(llvm::Error E);

} // namespace ptx2amd::amdgpu
