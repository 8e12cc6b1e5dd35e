//===- ptx2amd/fatbin/Select.h - choose what to translate -------*- C++ -*-===//
//
// Given the entries of one registered module, pick the PTX to translate by an
// explicit policy. When a module carries no usable PTX, the error names what
// it does carry and how to rebuild the program so that it embeds PTX.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ptx2amd/fatbin/Fatbin.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace ptx2amd::fatbin {

struct SelectionPolicy {
  enum class Mode : uint8_t {
    HighestArch,       ///< the PTX with the highest arch (default)
    HighestArchAtMost, ///< the PTX with the highest arch <= MaxArch
  };
  Mode Kind = Mode::HighestArch;
  unsigned MaxArch = 0;
  /// Skip PTX whose ISA version (major << 16 | minor) is above this; 0 = any.
  uint32_t MaxPTXVersion = 0;
  /// Accept arch-specific (sm_XXa) and family-specific (sm_XXf) PTX.
  bool AllowSpecific = true;
  /// With HighestArchAtMost: when no PTX is at most MaxArch, the lowest generic one above it
  /// rather than none (CUDA's driver takes none; the toolkit's libraries carry PTX for their
  /// newest arch only). Arch- and family-specific PTX (sm_90a, sm_100f) is never taken so.
  bool AboveIfNone = false;

  static SelectionPolicy highest() { return {}; }
  static SelectionPolicy atMost(unsigned Arch) {
    SelectionPolicy P;
    P.Kind = Mode::HighestArchAtMost;
    P.MaxArch = Arch;
    return P;
  }
};

/// Picks the PTX entry to translate. Ties on the arch number prefer the
/// generic target over sm_XXa/sm_XXf, then the higher PTX ISA version, then
/// the earlier entry. Context names the module in error messages.
llvm::Expected<const Entry *> selectPTX(llvm::ArrayRef<const Entry *> Entries,
                                        const SelectionPolicy &Policy, llvm::StringRef Context);
llvm::Expected<const Entry *> selectPTX(llvm::ArrayRef<Entry> Entries,
                                        const SelectionPolicy &Policy, llvm::StringRef Context);

/// The per-TU PTX modules of an -rdc registration unit (a v2 wrapper): one
/// entry per prelinked container, in order. They reference each other's
/// symbols (.extern) and must be linked into one module before translation.
llvm::Expected<std::vector<const Entry *>> selectRdcGroup(const Fatbin &F, const Module &M,
                                                          const SelectionPolicy &Policy = {});

/// What to translate for one registration unit.
struct ModuleSelection {
  std::vector<const Entry *> PTX; ///< one entry, or one per TU for -rdc
  bool NeedsLinking = false;      ///< -rdc: link PTX before translating
};

/// The PTX of one registration unit: the rdc group when the module has
/// prelinked containers, otherwise the selected PTX of its main container.
llvm::Expected<ModuleSelection> selectForModule(const Fatbin &F, const Module &M,
                                                const SelectionPolicy &Policy = {});

} // namespace ptx2amd::fatbin
