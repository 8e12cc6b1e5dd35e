//===- Target.cpp - AMDGPU target table -----------------------------------===//

#include "ptx2amd/amdgpu-backend/Target.h"

#include "llvm/BinaryFormat/ELF.h"

namespace ptx2amd::amdgpu {

// The ElfMach column must agree with LLVM's names for the processors.
static_assert(findTarget("gfx90a")->ElfMach == llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX90A);
static_assert(findTarget("gfx942")->ElfMach == llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX942);
static_assert(findTarget("gfx950")->ElfMach == llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX950);
static_assert(findTarget("gfx1030")->ElfMach == llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX1030);
static_assert(findTarget("gfx1100")->ElfMach == llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX1100);
static_assert(findTarget("gfx1201")->ElfMach == llvm::ELF::EF_AMDGPU_MACH_AMDGCN_GFX1201);

std::string knownTargetNames() {
  std::string S;
  for (const Target &T : Targets) {
    if (!S.empty())
      S += ", ";
    S += T.Name;
  }
  return S;
}

llvm::Expected<const Target &> lookupTarget(llvm::StringRef Name) {
  if (const Target *T = findTarget(std::string_view(Name.data(), Name.size())))
    return *T;
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "unknown AMDGPU target '%s' (known targets: %s)",
                                 Name.str().c_str(), knownTargetNames().c_str());
}

} // namespace ptx2amd::amdgpu
