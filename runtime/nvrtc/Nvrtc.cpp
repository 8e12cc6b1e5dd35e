//===- Nvrtc.cpp - libnvrtc.so.13: the toolkit's NVRTC, with CUBIN as PTX -===//
//
// Programs compile CUDA C++ at run time with NVRTC, often for the device's real architecture
// (sm_86 by default, from the compute capability reported), and load the CUBIN with
// cuModuleLoadData. SASS is of no use to libcuda.so.1, which translates PTX, so this library
// stands in for NVIDIA's: it loads the toolkit's libnvrtc.so.13 (RTLD_LOCAL, so both live side by
// side) and forwards every function to it, except that a program compiled for a real architecture
// is compiled for the matching virtual one, and its CUBIN is its PTX text, which cuModuleLoadData
// accepts.
//
//===----------------------------------------------------------------------===//

#include "../forward/Forward.h"

#include <cstddef>
#include <cstring>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace fwd = ptx2amd::forward;

namespace {

// NVRTC's C ABI as far as used here (written from the ABI: an int-sized result, an opaque
// program handle).
struct Program;
using nvrtcProgram = Program *;
enum nvrtcResult : int {
  NVRTC_SUCCESS = 0,
  NVRTC_ERROR_OUT_OF_MEMORY = 1,
  NVRTC_ERROR_INTERNAL_ERROR = 11,
};

/// NVRTC's texts for its results (nvrtcGetErrorString), for when the toolkit's is not there.
constexpr const char *ResultNames[] = {
    "NVRTC_SUCCESS",
    "NVRTC_ERROR_OUT_OF_MEMORY",
    "NVRTC_ERROR_PROGRAM_CREATION_FAILURE",
    "NVRTC_ERROR_INVALID_INPUT",
    "NVRTC_ERROR_INVALID_PROGRAM",
    "NVRTC_ERROR_INVALID_OPTION",
    "NVRTC_ERROR_COMPILATION",
    "NVRTC_ERROR_BUILTIN_OPERATION_FAILURE",
    "NVRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
    "NVRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
    "NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
    "NVRTC_ERROR_INTERNAL_ERROR",
    "NVRTC_ERROR_TIME_FILE_WRITE_FAILED",
    "NVRTC_ERROR_NO_PCH_CREATE_ATTEMPTED",
    "NVRTC_ERROR_PCH_CREATE_HEAP_EXHAUSTED",
    "NVRTC_ERROR_PCH_CREATE",
    "NVRTC_ERROR_CANCELLED",
    "NVRTC_ERROR_TIME_TRACE_FILE_WRITE_FAILED",
};

/// What every slot holds until the toolkit's function is found. Every NVRTC function but
/// nvrtcGetErrorString (ours) returns an nvrtcResult (__nvrtcCPEx, undocumented, is taken to).
int missingNvrtc() { return NVRTC_ERROR_INTERNAL_ERROR; }

} // namespace

// One slot per export, filled at load. Hidden: the forwarding stubs reach them PC-relative.
extern "C" {
#define NVRTC_SLOT(Name)                                                                           \
  __attribute__((visibility("hidden"))) fwd::Slot ptx2amd_nvrtc_##Name = &missingNvrtc;
#define NVRTC_FORWARD(Name) NVRTC_SLOT(Name)
#define NVRTC_OWN(Name) NVRTC_SLOT(Name)
#include "NvrtcEntryPoints.def"
#undef NVRTC_FORWARD
#undef NVRTC_OWN
#undef NVRTC_SLOT
}

#define NVRTC_FORWARD(Name) PTX2AMD_FORWARD_STUB(Name, ptx2amd_nvrtc_##Name)
#define NVRTC_OWN(Name)
#include "NvrtcEntryPoints.def"
#undef NVRTC_FORWARD
#undef NVRTC_OWN

namespace {

/// The toolkit's function in \p S, as type \p Fn; null when the library or the name is missing.
template <typename Fn> Fn real(fwd::Slot S) { return fwd::real<Fn>(S, &missingNvrtc); }

using SizeFn = nvrtcResult (*)(nvrtcProgram, size_t *);
using BytesFn = nvrtcResult (*)(nvrtcProgram, char *);

void log(int Level, const std::string &Line) { fwd::log(Level, Line); }

//===-- state --------------------------------------------------------------===//

struct State {
  std::string NotFound; ///< nvrtcGetErrorString(NVRTC_ERROR_INTERNAL_ERROR) when none is
  std::mutex Mutex;
  /// The programs compiled for a virtual architecture in place of a real one: their CUBIN is
  /// their PTX.
  std::unordered_set<nvrtcProgram> PtxAsCubin;
  std::once_flag RewriteLogged;
};

/// Never destroyed: programs may call NVRTC from their own destructors at exit.
State &state() {
  static State *S = new State;
  return *S;
}

bool servesPtx(nvrtcProgram Prog) {
  State &S = state();
  std::lock_guard<std::mutex> Lock(S.Mutex);
  return S.PtxAsCubin.count(Prog) != 0;
}

void forget(nvrtcProgram Prog) {
  State &S = state();
  std::lock_guard<std::mutex> Lock(S.Mutex);
  S.PtxAsCubin.erase(Prog);
}

void remember(nvrtcProgram Prog) {
  State &S = state();
  std::lock_guard<std::mutex> Lock(S.Mutex);
  S.PtxAsCubin.insert(Prog);
}

//===-- loading the toolkit's library --------------------------------------===//

const fwd::SlotEntry Slots[] = {
#define NVRTC_SLOT(Name) {#Name, &ptx2amd_nvrtc_##Name},
#define NVRTC_FORWARD(Name) NVRTC_SLOT(Name)
#define NVRTC_OWN(Name) NVRTC_SLOT(Name)
#include "NvrtcEntryPoints.def"
#undef NVRTC_FORWARD
#undef NVRTC_OWN
#undef NVRTC_SLOT
};

/// Fills the slots from the toolkit's NVRTC; without one every function answers
/// NVRTC_ERROR_INTERNAL_ERROR and says why.
void loadToolkitNvrtc() {
  fwd::Loaded L =
      fwd::load({"libnvrtc.so.13", "PTX2AMD_NVRTC", "nvrtcCompileProgram"}, std::span(Slots));
  if (L.Path.empty()) {
    state().NotFound = "NVRTC_ERROR_INTERNAL_ERROR (ptx2amd: the CUDA toolkit's libnvrtc.so.13 "
                       "was not found; set PTX2AMD_NVRTC to its path. Tried: " +
                       L.Tried + ")";
    log(1, "nvrtc: the CUDA toolkit's libnvrtc.so.13 was not found, every NVRTC function returns "
           "NVRTC_ERROR_INTERNAL_ERROR. Tried: " +
               L.Tried);
    return;
  }
  std::string Version;
  int Major = 0, Minor = 0;
  using VersionFn = nvrtcResult (*)(int *, int *);
  if (auto V = real<VersionFn>(ptx2amd_nvrtc_nvrtcVersion); V && V(&Major, &Minor) == 0)
    Version = " (NVRTC " + std::to_string(Major) + "." + std::to_string(Minor) + ")";
  log(1, "nvrtc: using " + L.Path + Version + ", found by " + L.From);
  if (!L.Lacks.empty())
    log(1, "nvrtc: " + L.Path + " lacks" + L.Lacks + ", which return NVRTC_ERROR_INTERNAL_ERROR");
}

// At load, before the program's code runs: the forwarding stubs read the slots unguarded.
__attribute__((constructor)) void loadAtStart() {
  try {
    loadToolkitNvrtc();
  } catch (...) {
    // Out of memory at start-up: the slots stay as they were, answering an internal error.
  }
}

//===-- architectures ------------------------------------------------------===//

using fwd::virtualFor;

/// Options that ask for an IR instead of machine code: NVRTC's own answer stays.
bool asksForIr(std::string_view O) {
  return O == "-dlto" || O == "--dlink-time-opt" || O == "-gen-opt-lto" || O == "--gen-opt-lto" ||
         O == "-optix-ir" || O == "--optix-ir";
}

struct Rewrite {
  bool Changed = false;
  std::string From, To; ///< the first architecture replaced, for the log
  std::vector<std::string> Storage;
  std::vector<const char *> Options;
};

/// The options with every real architecture (-arch=sm_XX, --gpu-architecture=sm_XX, or either
/// flag followed by sm_XX) replaced by its virtual one.
Rewrite virtualArchitecture(int NumOptions, const char *const *Options) {
  Rewrite R;
  if (NumOptions <= 0 || !Options)
    return R;
  for (int I = 0; I < NumOptions; ++I)
    if (Options[I] && asksForIr(Options[I]))
      return R;
  R.Options.assign(Options, Options + NumOptions);
  // Reserved: the pointers into it stay valid as it grows.
  R.Storage.reserve(NumOptions);
  auto replace = [&](int I, std::string_view Arch, const std::string &Virtual, std::string Text) {
    if (!R.Changed) {
      R.From = std::string(Arch);
      R.To = Virtual;
    }
    R.Changed = true;
    R.Storage.push_back(std::move(Text));
    R.Options[I] = R.Storage.back().c_str();
  };
  for (int I = 0; I < NumOptions; ++I) {
    if (!Options[I])
      continue;
    std::string_view O = Options[I];
    for (std::string_view Flag : {"-arch", "--gpu-architecture"}) {
      if (O == Flag && I + 1 < NumOptions && Options[I + 1]) {
        std::string_view Arch = Options[I + 1];
        if (auto V = virtualFor(Arch)) {
          replace(I + 1, Arch, *V, *V);
          ++I;
        }
        break;
      }
      if (O.size() > Flag.size() && O.starts_with(Flag) && O[Flag.size()] == '=') {
        std::string_view Arch = O.substr(Flag.size() + 1);
        if (auto V = virtualFor(Arch))
          replace(I, Arch, *V, std::string(Flag) + "=" + *V);
        break;
      }
    }
  }
  return R;
}

} // namespace

//===-- the functions whose behaviour changes ------------------------------===//

#define NVRTC_API extern "C" __attribute__((visibility("default")))

NVRTC_API const char *nvrtcGetErrorString(nvrtcResult Result) {
  using Fn = const char *(*)(nvrtcResult);
  if (auto F = real<Fn>(ptx2amd_nvrtc_nvrtcGetErrorString))
    return F(Result);
  if (Result == NVRTC_ERROR_INTERNAL_ERROR && !state().NotFound.empty())
    return state().NotFound.c_str();
  int I = int(Result);
  if (I >= 0 && I < int(sizeof ResultNames / sizeof *ResultNames))
    return ResultNames[I];
  return "NVRTC_ERROR unknown";
}

NVRTC_API nvrtcResult nvrtcCompileProgram(nvrtcProgram Prog, int NumOptions,
                                          const char *const *Options) {
  using Fn = nvrtcResult (*)(nvrtcProgram, int, const char *const *);
  auto Compile = real<Fn>(ptx2amd_nvrtc_nvrtcCompileProgram);
  if (!Compile)
    return NVRTC_ERROR_INTERNAL_ERROR;
  try {
    // A program compiled again is what its last compilation made it.
    forget(Prog);
    Rewrite R = virtualArchitecture(NumOptions, Options);
    if (!R.Changed)
      return Compile(Prog, NumOptions, Options);
    nvrtcResult Result = Compile(Prog, int(R.Options.size()), R.Options.data());
    if (Result != NVRTC_SUCCESS)
      return Result;
    remember(Prog);
    std::call_once(state().RewriteLogged, [&] {
      log(1, "nvrtc: compiling for " + R.To + " instead of " + R.From +
                 ": the CUBIN of such a program is its PTX");
    });
    log(2, "nvrtc: program compiled for " + R.To + " instead of " + R.From);
    return Result;
  } catch (const std::bad_alloc &) {
    return NVRTC_ERROR_OUT_OF_MEMORY;
  } catch (...) {
    return NVRTC_ERROR_INTERNAL_ERROR;
  }
}

NVRTC_API nvrtcResult nvrtcGetCUBINSize(nvrtcProgram Prog, size_t *Size) {
  // The PTX's size counts its terminating NUL, which cuModuleLoadData reads up to.
  auto F = servesPtx(Prog) ? real<SizeFn>(ptx2amd_nvrtc_nvrtcGetPTXSize)
                           : real<SizeFn>(ptx2amd_nvrtc_nvrtcGetCUBINSize);
  return F ? F(Prog, Size) : NVRTC_ERROR_INTERNAL_ERROR;
}

NVRTC_API nvrtcResult nvrtcGetCUBIN(nvrtcProgram Prog, char *Cubin) {
  auto F = servesPtx(Prog) ? real<BytesFn>(ptx2amd_nvrtc_nvrtcGetPTX)
                           : real<BytesFn>(ptx2amd_nvrtc_nvrtcGetCUBIN);
  return F ? F(Prog, Cubin) : NVRTC_ERROR_INTERNAL_ERROR;
}

NVRTC_API nvrtcResult nvrtcDestroyProgram(nvrtcProgram *Prog) {
  using Fn = nvrtcResult (*)(nvrtcProgram *);
  // Forgotten first: once NVRTC frees it, another thread's new program may get its address.
  if (Prog)
    forget(*Prog);
  auto F = real<Fn>(ptx2amd_nvrtc_nvrtcDestroyProgram);
  return F ? F(Prog) : NVRTC_ERROR_INTERNAL_ERROR;
}
