//===- Forward.h - a library of ours in front of one of the toolkit's -----===//
//
// libnvrtc.so.13 and libnvJitLink.so.13 stand in for the CUDA toolkit's libraries of those names:
// each finds the toolkit's at load, opens it RTLD_LOCAL (both live side by side) and forwards its
// exports through slots, a few with changed behaviour. What they share is here: finding and
// loading the toolkit's library, filling the slots, the forwarding stubs and logging.
//
//===----------------------------------------------------------------------===//

#ifndef PTX2AMD_RUNTIME_FORWARD_H
#define PTX2AMD_RUNTIME_FORWARD_H

#include "../lib/EntryPoints.h" // PTX2AMD_ENTRY_LANDING

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ptx2amd::forward {

/// A function of the toolkit's library. Every function forwarded returns an int-sized result
/// and, under the C calling convention, a function that takes no arguments may answer a caller
/// that passed any: so a library's "not loaded" function can stand in any slot.
using Slot = int (*)();

/// The toolkit's function in \p S, as type \p Fn; null while \p S holds \p Missing.
/// (Through void (*)(), the type that converts to any function pointer type without a warning.)
template <typename Fn> Fn real(Slot S, Slot Missing) {
  using Generic = void (*)();
  return S == Missing ? nullptr : reinterpret_cast<Fn>(reinterpret_cast<Generic>(S));
}

/// An export's name in the toolkit's library and the slot that holds it there.
struct SlotEntry {
  const char *Name;
  Slot *Where;
};

/// Which toolkit library to load.
struct Library {
  const char *FileName; ///< libnvrtc.so.13: also its name in each folder searched
  const char *EnvVar;   ///< PTX2AMD_NVRTC: a file or folder, then the only candidate
  const char *Probe;    ///< an export that tells the library from others of its name
};

/// What loading found: the library, or why there is none (Path empty).
struct Loaded {
  std::string Path;  ///< the toolkit's library in use
  std::string From;  ///< what named it: the variable or "nvcc on PATH", for the logs
  std::string Lacks; ///< the slots it did not fill, each after a space
  std::string Tried; ///< when none was found: each candidate and why it was not taken
};

/// Loads the first candidate for \p Lib that is a loadable library with its Probe and not the
/// calling library itself, from Lib.EnvVar, $CUDA_HOME/lib64, $CUDA_PATH/lib64, the nvcc on
/// PATH's ../lib64, /usr/local/cuda/lib64 and /usr/lib/<multiarch>; fills each slot in
/// \p Slots that it exports and leaves the others as they are. The library stays loaded.
Loaded load(const Library &Lib, std::span<const SlotEntry> Slots);

/// PTX2AMD_LOG, read here (these libraries hold none of libcuda.so.1's code): 0 off, 1 info,
/// 2 debug; an unknown value is libcuda.so.1's to report.
int logLevel();

/// "ptx2amd: Line" on stderr at \p Level and above.
void log(int Level, const std::string &Line);

/// The virtual architecture for a real one: compute_75 for sm_75 (also sm_90a, sm_100f);
/// nothing for anything else.
std::optional<std::string> virtualFor(std::string_view Arch);

} // namespace ptx2amd::forward

// An export \p Name that jumps through the hidden pointer \p SlotName: the argument registers,
// the stack and the return address stay as the caller made them, so one definition serves every
// signature.
#if defined(__x86_64__)
#define PTX2AMD_FORWARD_STUB(Name, SlotName)                                                       \
  asm(".pushsection .text\n.globl " #Name "\n.type " #Name ", @function\n.p2align 4\n" #Name       \
      ":\n" PTX2AMD_ENTRY_LANDING "jmp *" #SlotName "(%rip)\n.size " #Name ", .-" #Name            \
      "\n.popsection\n");
#elif defined(__aarch64__)
#define PTX2AMD_FORWARD_STUB(Name, SlotName)                                                       \
  asm(".pushsection .text\n.globl " #Name "\n.type " #Name ", %function\n.p2align 4\n" #Name       \
      ":\nadrp x16, " #SlotName "\nldr x16, [x16, :lo12:" #SlotName "]\nbr x16\n.size " #Name      \
      ", .-" #Name "\n.popsection\n");
#else
#error "PTX2AMD_FORWARD_STUB: tail jump not written for this architecture"
#endif

#endif // PTX2AMD_RUNTIME_FORWARD_H
