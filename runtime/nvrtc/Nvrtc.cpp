//===- Nvrtc.cpp - libnvrtc.so.13: the toolkit's NVRTC, with CUBIN as PTX -===//
//
// Programs compile CUDA C++ at run time with NVRTC, often for the device's real architecture
// (sm_75, from the compute capability reported), and load the CUBIN with cuModuleLoadData. SASS
// is of no use to libcuda.so.1, which translates PTX, so this library stands in for NVIDIA's: it
// loads the toolkit's libnvrtc.so.13 (RTLD_LOCAL, so both live side by side) and forwards every
// function to it, except that a program compiled for a real architecture is compiled for the
// matching virtual one, and its CUBIN is its PTX text, which cuModuleLoadData accepts.
//
//===----------------------------------------------------------------------===//

#include "../lib/EntryPoints.h" // PTX2AMD_ENTRY_LANDING

#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

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
/// nvrtcGetErrorString (ours) returns an nvrtcResult (__nvrtcCPEx, undocumented, is taken to),
/// and under the C calling convention a function that takes no arguments may answer a caller
/// that passed any.
int missingNvrtc() { return NVRTC_ERROR_INTERNAL_ERROR; }

using Slot = int (*)();

} // namespace

// One slot per export, filled at load. Hidden: the forwarding stubs reach them PC-relative.
extern "C" {
#define NVRTC_SLOT(Name)                                                                           \
  __attribute__((visibility("hidden"))) Slot ptx2amd_nvrtc_##Name = &missingNvrtc;
#define NVRTC_FORWARD(Name) NVRTC_SLOT(Name)
#define NVRTC_OWN(Name) NVRTC_SLOT(Name)
#include "NvrtcEntryPoints.def"
#undef NVRTC_FORWARD
#undef NVRTC_OWN
#undef NVRTC_SLOT
}

// A forwarded export jumps through its slot: the argument registers, the stack and the return
// address stay as the caller made them, so one definition serves every signature.
#if defined(__x86_64__)
#define NVRTC_FORWARD(Name)                                                                        \
  asm(".pushsection .text\n.globl " #Name "\n.type " #Name ", @function\n.p2align 4\n" #Name       \
      ":\n" PTX2AMD_ENTRY_LANDING "jmp *ptx2amd_nvrtc_" #Name "(%rip)\n.size " #Name ", .-" #Name  \
      "\n.popsection\n");
#elif defined(__aarch64__)
#define NVRTC_FORWARD(Name)                                                                        \
  asm(".pushsection .text\n.globl " #Name "\n.type " #Name ", %function\n.p2align 4\n" #Name       \
      ":\nadrp x16, ptx2amd_nvrtc_" #Name "\nldr x16, [x16, :lo12:ptx2amd_nvrtc_" #Name            \
      "]\nbr x16\n.size " #Name ", .-" #Name "\n.popsection\n");
#else
#error "NVRTC_FORWARD: tail jump not written for this architecture"
#endif
#define NVRTC_OWN(Name)
#include "NvrtcEntryPoints.def"
#undef NVRTC_FORWARD
#undef NVRTC_OWN

namespace {

/// The toolkit's function in \p S, as type \p Fn; null when the library or the name is missing.
/// (Through void (*)(), the type that converts to any function pointer type without a warning.)
template <typename Fn> Fn real(Slot S) {
  using Generic = void (*)();
  return S == &missingNvrtc ? nullptr : reinterpret_cast<Fn>(reinterpret_cast<Generic>(S));
}

using SizeFn = nvrtcResult (*)(nvrtcProgram, size_t *);
using BytesFn = nvrtcResult (*)(nvrtcProgram, char *);

//===-- logging ------------------------------------------------------------===//

/// PTX2AMD_LOG, read here: this library holds none of libcuda.so.1's code. 0 off, 1 info,
/// 2 debug; an unknown value is libcuda.so.1's to report.
int logLevel() {
  static const int Level = [] {
    const char *Env = std::getenv("PTX2AMD_LOG");
    if (!Env)
      return 0;
    std::string_view V = Env;
    return V == "debug" ? 2 : V == "info" ? 1 : 0;
  }();
  return Level;
}

void log(int Level, const std::string &Line) {
  if (logLevel() >= Level)
    std::fprintf(stderr, "ptx2amd: %s\n", Line.c_str());
}

//===-- state --------------------------------------------------------------===//

struct State {
  std::string Path;     ///< the toolkit's library in use
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

//===-- finding the toolkit's library --------------------------------------===//

constexpr const char *LibraryName = "libnvrtc.so.13";

std::string canonical(const std::string &Path) {
  char Buffer[PATH_MAX];
  return realpath(Path.c_str(), Buffer) ? std::string(Buffer) : std::string();
}

/// This library's own file, which a candidate must not be (a toolkit folder may hold ours).
std::string ownPath() {
  static const char Anchor = 0;
  Dl_info Info;
  if (dladdr(&Anchor, &Info) && Info.dli_fname)
    return canonical(Info.dli_fname);
  return {};
}

/// The folder of the first nvcc on PATH, through its links (/usr/bin/nvcc may be a link into
/// a toolkit); empty when there is none.
std::string nvccFolder() {
  const char *Env = std::getenv("PATH");
  std::string_view Path = Env ? Env : "";
  while (true) {
    size_t Colon = Path.find(':');
    std::string Dir(Path.substr(0, Colon));
    std::string Nvcc = (Dir.empty() ? "." : Dir) + "/nvcc";
    if (access(Nvcc.c_str(), X_OK) == 0) {
      std::string Real = canonical(Nvcc);
      size_t Slash = Real.rfind('/');
      return Slash == std::string::npos ? std::string() : Real.substr(0, Slash);
    }
    if (Colon == std::string_view::npos)
      return {};
    Path.remove_prefix(Colon + 1);
  }
}

struct Candidate {
  std::string Path;
  std::string From; ///< why it is a candidate, for the logs
};

std::vector<Candidate> candidates() {
  std::vector<Candidate> C;
  if (const char *Env = std::getenv("PTX2AMD_NVRTC"); Env && *Env) {
    std::string Path = Env;
    struct stat St;
    if (stat(Path.c_str(), &St) == 0 && S_ISDIR(St.st_mode))
      Path += std::string("/") + LibraryName;
    // The only one: falling back to another toolkit would hide a wrong setting.
    C.push_back({Path, "PTX2AMD_NVRTC"});
    return C;
  }
  for (const char *Var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *Env = std::getenv(Var); Env && *Env)
      C.push_back({std::string(Env) + "/lib64/" + LibraryName, Var});
  if (std::string Bin = nvccFolder(); !Bin.empty())
    C.push_back({Bin + "/../lib64/" + LibraryName, "nvcc on PATH"});
  C.push_back({std::string("/usr/local/cuda/lib64/") + LibraryName, "default"});
#if defined(__x86_64__)
  C.push_back({std::string("/usr/lib/x86_64-linux-gnu/") + LibraryName, "default"});
#elif defined(__aarch64__)
  C.push_back({std::string("/usr/lib/aarch64-linux-gnu/") + LibraryName, "default"});
#endif
  return C;
}

/// Fills the slots from the first candidate that is a loadable NVRTC other than this library;
/// otherwise every function answers NVRTC_ERROR_INTERNAL_ERROR and says why.
void loadToolkitNvrtc() {
  State &S = state();
  const std::string Self = ownPath();
  std::string Tried;
  std::vector<std::string> Seen;
  for (const Candidate &C : candidates()) {
    auto note = [&](const std::string &Why) {
      Tried += (Tried.empty() ? "" : "; ") + C.Path + " (" + C.From + "): " + Why;
    };
    std::string Real = canonical(C.Path);
    if (Real.empty()) {
      note("no such file");
      continue;
    }
    bool Again = false;
    for (const std::string &P : Seen)
      Again = Again || P == Real;
    if (Again)
      continue;
    Seen.push_back(Real);
    if (Real == Self) {
      note("this library (ptx2amd's)");
      continue;
    }
    void *Handle = dlopen(Real.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!Handle) {
      const char *Why = dlerror();
      note(Why ? Why : "dlopen failed");
      continue;
    }
    if (!dlsym(Handle, "nvrtcCompileProgram")) {
      note("not NVRTC (no nvrtcCompileProgram)");
      dlclose(Handle);
      continue;
    }
    std::string Lacks;
#define NVRTC_SLOT(Name)                                                                           \
  if (void *F = dlsym(Handle, #Name))                                                              \
    ptx2amd_nvrtc_##Name = reinterpret_cast<Slot>(F);                                              \
  else                                                                                             \
    Lacks += " " #Name;
#define NVRTC_FORWARD(Name) NVRTC_SLOT(Name)
#define NVRTC_OWN(Name) NVRTC_SLOT(Name)
#include "NvrtcEntryPoints.def"
#undef NVRTC_FORWARD
#undef NVRTC_OWN
#undef NVRTC_SLOT
    S.Path = Real;
    std::string Version;
    int Major = 0, Minor = 0;
    using VersionFn = nvrtcResult (*)(int *, int *);
    if (auto V = real<VersionFn>(ptx2amd_nvrtc_nvrtcVersion); V && V(&Major, &Minor) == 0)
      Version = " (NVRTC " + std::to_string(Major) + "." + std::to_string(Minor) + ")";
    log(1, "nvrtc: using " + Real + Version + ", found by " + C.From);
    if (!Lacks.empty())
      log(1, "nvrtc: " + Real + " lacks" + Lacks + ", which return NVRTC_ERROR_INTERNAL_ERROR");
    return;
  }
  S.NotFound = "NVRTC_ERROR_INTERNAL_ERROR (ptx2amd: the CUDA toolkit's libnvrtc.so.13 was not "
               "found; set PTX2AMD_NVRTC to its path. Tried: " +
               Tried + ")";
  log(1, "nvrtc: the CUDA toolkit's libnvrtc.so.13 was not found, every NVRTC function returns "
         "NVRTC_ERROR_INTERNAL_ERROR. Tried: " +
             Tried);
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

/// The virtual architecture for a real one: compute_75 for sm_75 (also sm_90a, sm_100f);
/// nothing for anything else.
std::optional<std::string> virtualFor(std::string_view Arch) {
  if (!Arch.starts_with("sm_"))
    return std::nullopt;
  std::string_view Number = Arch.substr(3);
  size_t Digits = 0;
  while (Digits < Number.size() && Number[Digits] >= '0' && Number[Digits] <= '9')
    ++Digits;
  std::string_view Suffix = Number.substr(Digits);
  if (Digits == 0 || !(Suffix.empty() || Suffix == "a" || Suffix == "f"))
    return std::nullopt;
  return "compute_" + std::string(Number);
}

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
