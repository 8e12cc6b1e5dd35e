// ORC JIT of retargeted modules (the only file with ORC includes: they are slow to compile).
#pragma once

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
};
llvm::Expected<HostTarget> hostTarget();

/// A retargeted module, optimised for the host and compiled in process.
class JitModule {
public:
  /// Optimises \p M at \p OptLevel (0..3) for the host, then JITs it. \p Runtime lists the
  /// symbols the module may call in the emulator; the C library is reachable too.
  static llvm::Expected<std::unique_ptr<JitModule>>
  create(std::unique_ptr<llvm::LLVMContext> Ctx, std::unique_ptr<llvm::Module> M, unsigned OptLevel,
         const std::vector<std::pair<const char *, void *>> &Runtime);
  ~JitModule();

  /// The address of a symbol of the module (compiling it on first use).
  llvm::Expected<uint64_t> lookup(llvm::StringRef Name);

private:
  JitModule() = default;
  std::unique_ptr<llvm::orc::LLJIT> J;
};

} // namespace ptx2amd::host
