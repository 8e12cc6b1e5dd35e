//===- ptx2amd/amdgpu-backend/Target.h - AMDGPU target table ---*- C++ -*-===//
//
// The AMDGPU targets ptx2amd supports, described in one table (Targets.def).
// Everything else that depends on the target (lowering, device-library
// selection, code generation, tests) reads it from here.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace ptx2amd::amdgpu {

/// ISA generation. Gfx9 is CDNA (gfx90a, gfx942, gfx950); Gfx10 and later are RDNA.
enum class Generation : uint8_t { Gfx9 = 9, Gfx10 = 10, Gfx11 = 11, Gfx12 = 12 };

struct Target {
  std::string_view Name;         ///< LLVM processor name, e.g. "gfx90a"
  unsigned WaveSize;             ///< 64 or 32 lanes
  unsigned IsaVersion;           ///< value of __oclc_ISA_version, e.g. 9010
  std::string_view Features;     ///< LLVM target features for the TargetMachine
  unsigned LdsBytesPerWorkgroup; ///< LDS (group segment) available to one workgroup
  Generation Gen;
  unsigned ElfMach; ///< EF_AMDGPU_MACH_* (low byte of e_flags) of code objects for it

  constexpr bool isGfx9() const { return Gen == Generation::Gfx9; }
  constexpr bool isGfx10Plus() const { return Gen >= Generation::Gfx10; }
  constexpr bool isGfx11Plus() const { return Gen >= Generation::Gfx11; }
  constexpr bool isGfx12() const { return Gen == Generation::Gfx12; }
  constexpr bool isWave64() const { return WaveSize == 64; }
  /// CUDA warps (always 32 lanes) per hardware wave: 2 on wave64, 1 on wave32.
  constexpr unsigned warpsPerWave() const { return WaveSize / 32; }
  /// CDNA3 and CDNA4 (gfx942, gfx950) have no image instructions at all: textures and
  /// surfaces take the software path there.
  constexpr bool hasImageInstructions() const { return !(isGfx9() && IsaVersion >= 9400); }
  /// CDNA's image unit samples at the implicit level only: no image_sample_l/_d and no
  /// gather4, so tex.level, tex.grad and tld4 take the software path there.
  constexpr bool hasExplicitLodSampling() const { return isGfx10Plus(); }
};

/// Every supported target, in the order of Targets.def.
inline constexpr Target Targets[] = {
#define PTX2AMD_AMDGPU_TARGET(NAME, WAVE, ISA, FEATURES, LDS, GEN, MACH)                           \
  Target{NAME, WAVE, ISA, FEATURES, LDS, Generation::GEN, MACH},
#include "ptx2amd/amdgpu-backend/Targets.def"
};

inline llvm::ArrayRef<Target> allTargets() { return Targets; }

/// The target called \p Name, or nullptr.
constexpr const Target *findTarget(std::string_view Name) {
  for (const Target &T : Targets)
    if (T.Name == Name)
      return &T;
  return nullptr;
}

/// The target called \p Name, or an error that lists the known targets.
llvm::Expected<const Target &> lookupTarget(llvm::StringRef Name);

/// "gfx90a, gfx942, ..." in table order.
std::string knownTargetNames();

} // namespace ptx2amd::amdgpu
