//===- KernelFault.cpp - the kernel failure error ===//

#include "ptx2amd/amdgpu-backend/KernelFault.h"

#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace ptx2amd::amdgpu {

char KernelFault::ID = 0;

void KernelFault::log(raw_ostream &OS) const { OS << Message; }

std::error_code KernelFault::convertToErrorCode() const { return inconvertibleErrorCode(); }

std::pair<FaultKind, std::string> takeFault(Error E) {
  std::pair<FaultKind, std::string> Out{FaultKind::Other, ""};
  handleAllErrors(
      std::move(E),
      [&](const KernelFault &F) {
        Out.first = F.Kind;
        Out.second = F.Message;
      },
      [&](const ErrorInfoBase &Other) { Out.second = Other.message(); });
  return Out;
}

} // namespace ptx2amd::amdgpu
