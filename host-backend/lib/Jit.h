// ORC JIT of retargeted modules (the only file with ORC includes: they are slow to compile).
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
namespace orc {
class LLJIT;
}
} // namespace llvm

namespace ptx2amd::host {

/// The host's triple and the data layout retargeted modules get (Retarget.h).
struct HostTarget {
  std::string Triple;
  std::string DataLayout;
  /// Masked vector loads and stores, gathers and scatters are instructions (AVX-512), which
  /// kernels vectorised over their waves use where an access is not a vector's (elsewhere a
  /// loop over the active lanes: VectorizeWaves.h).
  bool MaskedVectorMemory = false;
};
llvm::Expected<HostTarget> hostTarget();

/// The triple, CPU and features host code is generated for: an object compiled for another
/// identity may use instructions this CPU lacks; and " no-wave-vectors" unless \p WaveVectors
/// (HostOverrides::NoWaveVectors), " every-plan" with \p EveryPlan (the differential mode's
/// modules keep every function), so that a cache keeps them apart.
llvm::Expected<std::string> hostIdentity(bool WaveVectors, bool EveryPlan);

using RuntimeSymbols = std::vector<std::pair<const char *, void *>>;

/// A retargeted module, optimised for the host, compiled to an x86-64 object and linked in
/// process.
class JitModule {
public:
  /// Optimises \p M at \p OptLevel (0..3) for the host, compiles it, then links the object.
  /// \p Runtime lists the symbols the module may call in the emulator; the C library is
  /// reachable too.
  static llvm::Expected<std::unique_ptr<JitModule>> create(std::unique_ptr<llvm::LLVMContext> Ctx,
                                                           std::unique_ptr<llvm::Module> M,
                                                           unsigned OptLevel,
                                                           const RuntimeSymbols &Runtime);
  /// Links an object that create() compiled (object()), for the same hostIdentity().
  static llvm::Expected<std::unique_ptr<JitModule>> link(llvm::ArrayRef<uint8_t> Object,
                                                         const RuntimeSymbols &Runtime);
  ~JitModule();

  /// The address of a symbol of the module (linking the object on first use).
  llvm::Expected<uint64_t> lookup(llvm::StringRef Name);
  /// The object code linked.
  llvm::ArrayRef<uint8_t> object() const { return Object; }

private:
  JitModule() = default;
  std::vector<uint8_t> Object; ///< before J: the LLJIT reads it until it is destroyed
  std::unique_ptr<llvm::orc::LLJIT> J;
};

} // namespace ptx2amd::host
