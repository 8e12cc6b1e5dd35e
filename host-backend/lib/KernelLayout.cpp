// Kernel layout: each AMDGPU kernel of the module as the host device reports and launches it,
// its kernarg segment laid out as the code object's (explicit arguments where the module's byref
// parameters put them, then the v5 hidden ones), and the name of its work-item entry.
#include "Retargeter.h"

#include "ptx2amd/amdgpu-backend/Kernarg.h"

#include "llvm/IR/Module.h"

using namespace llvm;

namespace ptx2amd::host {

/// Explicit arguments where the module's byref parameters put them, then the v5 hidden ones.
void layoutKernels(Retargeter &R) {
  Module &M = R.M;
  const DataLayout &DL = M.getDataLayout();
  for (Function &F : M) {
    if (F.isDeclaration() || F.getCallingConv() != CallingConv::AMDGPU_KERNEL)
      continue;
    RetargetedKernel K;
    K.Meta.Name = F.getName().str();
    uint64_t Offset = 0;
    for (Argument &A : F.args()) {
      Type *Ty = F.getParamByRefType(A.getArgNo());
      amdgpu::KernelArgMetadata AM;
      AM.Name = A.getName().str();
      AM.ValueKind = "by_value";
      AM.Size = Ty ? DL.getTypeAllocSize(Ty) : DL.getTypeAllocSize(A.getType());
      uint64_t Alignment = F.getParamAlign(A.getArgNo()).valueOrOne().value();
      Offset = alignTo(Offset, Alignment);
      AM.Offset = Offset;
      Offset += AM.Size;
      K.Meta.Args.push_back(std::move(AM));
    }
    for (amdgpu::KernelArgMetadata &H : amdgpu::codeObjectV5HiddenArgs(Offset))
      K.Meta.Args.push_back(std::move(H));
    K.Meta.KernargSegmentSize = alignTo(Offset, 8) + 256;
    K.Meta.KernargSegmentAlign = 16;
    K.Meta.WavefrontSize = R.T.WaveSize;
    K.Meta.MaxFlatWorkgroupSize = 1024;
    K.Plan.EntrySymbol = "__ptx2amd_host_entry_" + K.Meta.Name;
    R.Out.Kernels.push_back(std::move(K));
    R.Made.emplace_back();
  }
}

} // namespace ptx2amd::host
