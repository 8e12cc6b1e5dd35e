//===- NvJitLink.cpp - libnvJitLink.so.13: the toolkit's, with CUBIN as PTX -===//
//
// Programs link LTO-IR (from NVRTC or nvcc -dlto) at run time with nvJitLink for the device's
// real architecture (-arch=sm_86 by default, from the compute capability reported) and load the
// linked CUBIN with cuModuleLoadData. SASS is of no use to libcuda.so.1, which translates PTX, so
// this library stands in for NVIDIA's: it loads the toolkit's libnvJitLink.so.13 (RTLD_LOCAL, so
// both live side by side) and forwards every function to it, except that an LTO link for a real
// architecture also asks for the linked PTX (-ptx), and its CUBIN is that PTX text, which
// cuModuleLoadData accepts.
//
//===----------------------------------------------------------------------===//

#include "../forward/Forward.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace fwd = ptx2amd::forward;

namespace {

// nvJitLink's C ABI as far as used here (written from the ABI: an int-sized result, an opaque
// handle).
struct Linker;
using nvJitLinkHandle = Linker *;
enum nvJitLinkResult : int {
  NVJITLINK_SUCCESS = 0,
  NVJITLINK_ERROR_INTERNAL = 6,
  NVJITLINK_ERROR_NULL_INPUT = 10,
};

/// What every slot holds until the toolkit's function is found. Every nvJitLink function
/// returns an nvJitLinkResult (__nvJitLinkAPI, undocumented, is taken to).
int missingNvJitLink() { return NVJITLINK_ERROR_INTERNAL; }

} // namespace

// One slot per export, filled at load. Hidden: the forwarding stubs reach them PC-relative.
extern "C" {
#define NVJITLINK_SLOT(Name)                                                                       \
  __attribute__((visibility("hidden"))) fwd::Slot ptx2amd_nvjitlink_##Name = &missingNvJitLink;
#define NVJITLINK_FORWARD(Name) NVJITLINK_SLOT(Name)
#define NVJITLINK_OWN(Name) NVJITLINK_SLOT(Name)
#include "NvJitLinkEntryPoints.def"
#undef NVJITLINK_FORWARD
#undef NVJITLINK_OWN
#undef NVJITLINK_SLOT
}

#define NVJITLINK_FORWARD(Name) PTX2AMD_FORWARD_STUB(Name, ptx2amd_nvjitlink_##Name)
#define NVJITLINK_OWN(Name)
#include "NvJitLinkEntryPoints.def"
#undef NVJITLINK_FORWARD
#undef NVJITLINK_OWN

namespace {

/// The toolkit's function in \p S, as type \p Fn; null when the library or the name is missing.
template <typename Fn> Fn real(fwd::Slot S) { return fwd::real<Fn>(S, &missingNvJitLink); }

using CreateFn = nvJitLinkResult (*)(nvJitLinkHandle *, uint32_t, const char *const *);
using DestroyFn = nvJitLinkResult (*)(nvJitLinkHandle *);
using SizeFn = nvJitLinkResult (*)(nvJitLinkHandle, size_t *);
using BytesFn = nvJitLinkResult (*)(nvJitLinkHandle, void *);

void log(int Level, const std::string &Line) { fwd::log(Level, Line); }

//===-- state --------------------------------------------------------------===//

struct State {
  bool Loaded = false;
  std::string NotFound; ///< the error log of every handle when no library was found
  std::mutex Mutex;
  /// The links asked for the linked PTX here: their CUBIN is their PTX.
  std::unordered_set<nvJitLinkHandle> PtxAsCubin;
  std::once_flag RewriteLogged, SassLogged;
};

/// Never destroyed: programs may call nvJitLink from their own destructors at exit.
State &state() {
  static State *S = new State;
  return *S;
}

bool servesPtx(nvJitLinkHandle Handle) {
  State &S = state();
  std::lock_guard<std::mutex> Lock(S.Mutex);
  return S.PtxAsCubin.count(Handle) != 0;
}

void forget(nvJitLinkHandle Handle) {
  State &S = state();
  std::lock_guard<std::mutex> Lock(S.Mutex);
  S.PtxAsCubin.erase(Handle);
}

void remember(nvJitLinkHandle Handle) {
  State &S = state();
  std::lock_guard<std::mutex> Lock(S.Mutex);
  S.PtxAsCubin.insert(Handle);
}

/// The handle nvJitLinkCreate gives without the toolkit's library, so that the program can
/// read the error log that says why; never dereferenced.
nvJitLinkHandle notLoadedHandle() {
  static char Byte;
  return reinterpret_cast<nvJitLinkHandle>(&Byte);
}

//===-- loading the toolkit's library --------------------------------------===//

const fwd::SlotEntry Slots[] = {
#define NVJITLINK_SLOT(Name) {#Name, &ptx2amd_nvjitlink_##Name},
#define NVJITLINK_FORWARD(Name) NVJITLINK_SLOT(Name)
#define NVJITLINK_OWN(Name) NVJITLINK_SLOT(Name)
#include "NvJitLinkEntryPoints.def"
#undef NVJITLINK_FORWARD
#undef NVJITLINK_OWN
#undef NVJITLINK_SLOT
};

/// Fills the slots from the toolkit's nvJitLink; without one every function answers
/// NVJITLINK_ERROR_INTERNAL and the error log says why.
void loadToolkitNvJitLink() {
  State &S = state();
  fwd::Loaded L = fwd::load({"libnvJitLink.so.13", "PTX2AMD_NVJITLINK", "__nvJitLinkCreate_13_0"},
                            std::span(Slots));
  if (L.Path.empty()) {
    S.NotFound = "ptx2amd: the CUDA toolkit's libnvJitLink.so.13 was not found; set "
                 "PTX2AMD_NVJITLINK to its path. Tried: " +
                 L.Tried;
    log(1, "nvjitlink: the CUDA toolkit's libnvJitLink.so.13 was not found, every nvJitLink "
           "function returns NVJITLINK_ERROR_INTERNAL. Tried: " +
               L.Tried);
    return;
  }
  S.Loaded = true;
  std::string Version;
  unsigned Major = 0, Minor = 0;
  using VersionFn = nvJitLinkResult (*)(unsigned *, unsigned *);
  if (auto V = real<VersionFn>(ptx2amd_nvjitlink_nvJitLinkVersion); V && V(&Major, &Minor) == 0)
    Version = " (nvJitLink " + std::to_string(Major) + "." + std::to_string(Minor) + ")";
  log(1, "nvjitlink: using " + L.Path + Version + ", found by " + L.From);
  if (!L.Lacks.empty())
    log(1, "nvjitlink: " + L.Path + " lacks" + L.Lacks + ", which return NVJITLINK_ERROR_INTERNAL");
}

// At load, before the program's code runs: the forwarding stubs read the slots unguarded.
__attribute__((constructor)) void loadAtStart() {
  try {
    loadToolkitNvJitLink();
  } catch (...) {
    // Out of memory at start-up: the slots stay as they were, answering an internal error.
  }
}

//===-- options ------------------------------------------------------------===//

/// What nvJitLinkCreate's options ask for. nvJitLink 13 takes only -arch=sm_XX (not -arch
/// sm_XX nor --gpu-architecture), -lto or -dlto for LTO, and -ptx, which it refuses without
/// LTO ("-ptx requires -lto").
struct Request {
  std::string RealArch; ///< the first -arch=sm_XX, when there is one
  bool Lto = false, Ptx = false;
};

Request requestOf(uint32_t NumOptions, const char *const *Options) {
  Request R;
  for (uint32_t I = 0; Options && I < NumOptions; ++I) {
    if (!Options[I])
      continue;
    std::string_view O = Options[I];
    if (O == "-lto" || O == "-dlto")
      R.Lto = true;
    else if (O == "-ptx")
      R.Ptx = true;
    else if (O.starts_with("-arch=") && R.RealArch.empty() && fwd::virtualFor(O.substr(6)))
      R.RealArch = std::string(O.substr(6));
  }
  return R;
}

//===-- the functions whose behaviour changes ------------------------------===//

nvJitLinkResult create(fwd::Slot Create, nvJitLinkHandle *Handle, uint32_t NumOptions,
                       const char *const *Options) {
  auto F = real<CreateFn>(Create);
  if (!F) {
    if (Handle && !state().Loaded)
      *Handle = notLoadedHandle();
    return NVJITLINK_ERROR_INTERNAL;
  }
  try {
    Request R = requestOf(NumOptions, Options);
    if (R.RealArch.empty() || R.Ptx)
      return F(Handle, NumOptions, Options);
    if (!R.Lto) {
      // Without LTO there is no linked PTX to ask for: the CUBIN stays SASS.
      std::call_once(state().SassLogged, [&] {
        log(1, "nvjitlink: linking for " + R.RealArch +
                   " without -lto: the linked CUBIN is SASS, which ptx2amd cannot load");
      });
      return F(Handle, NumOptions, Options);
    }
    std::vector<const char *> WithPtx(Options, Options + NumOptions);
    WithPtx.push_back("-ptx");
    nvJitLinkResult Result = F(Handle, uint32_t(WithPtx.size()), WithPtx.data());
    if (Result != NVJITLINK_SUCCESS || !Handle)
      return Result;
    remember(*Handle);
    std::call_once(state().RewriteLogged, [&] {
      log(1, "nvjitlink: linking for " + R.RealArch +
                 " with -ptx: the linked CUBIN is the linked PTX");
    });
    log(2, "nvjitlink: link for " + R.RealArch + " asked for its PTX");
    return Result;
  } catch (...) {
    // Out of memory: nvJitLink has no result of its own for it.
    return NVJITLINK_ERROR_INTERNAL;
  }
}

nvJitLinkResult destroy(fwd::Slot Destroy, nvJitLinkHandle *Handle) {
  // Forgotten first: once nvJitLink frees it, another thread's new link may get its address.
  if (Handle)
    forget(*Handle);
  auto F = real<DestroyFn>(Destroy);
  return F ? F(Handle) : NVJITLINK_ERROR_INTERNAL;
}

nvJitLinkResult cubinSize(fwd::Slot Cubin, fwd::Slot Ptx, nvJitLinkHandle Handle, size_t *Size) {
  // The PTX's size counts its terminating NUL, which cuModuleLoadData reads up to.
  auto F = real<SizeFn>(servesPtx(Handle) ? Ptx : Cubin);
  return F ? F(Handle, Size) : NVJITLINK_ERROR_INTERNAL;
}

nvJitLinkResult cubin(fwd::Slot Cubin, fwd::Slot Ptx, nvJitLinkHandle Handle, void *Bytes) {
  auto F = real<BytesFn>(servesPtx(Handle) ? Ptx : Cubin);
  return F ? F(Handle, Bytes) : NVJITLINK_ERROR_INTERNAL;
}

// Without the toolkit's library the error log of any handle says why, so that a program that
// prints it on failure (as the toolkit's samples do) shows it.
nvJitLinkResult errorLogSize(fwd::Slot Real, nvJitLinkHandle Handle, size_t *Size) {
  if (auto F = real<SizeFn>(Real))
    return F(Handle, Size);
  if (state().Loaded)
    return NVJITLINK_ERROR_INTERNAL;
  if (!Size)
    return NVJITLINK_ERROR_NULL_INPUT;
  *Size = state().NotFound.size() + 1;
  return NVJITLINK_SUCCESS;
}

nvJitLinkResult errorLog(fwd::Slot Real, nvJitLinkHandle Handle, char *Log) {
  using LogFn = nvJitLinkResult (*)(nvJitLinkHandle, char *);
  if (auto F = real<LogFn>(Real))
    return F(Handle, Log);
  if (state().Loaded)
    return NVJITLINK_ERROR_INTERNAL;
  if (!Log)
    return NVJITLINK_ERROR_NULL_INPUT;
  const std::string &Why = state().NotFound;
  std::memcpy(Log, Why.c_str(), Why.size() + 1);
  return NVJITLINK_SUCCESS;
}

} // namespace

#define NVJITLINK_API extern "C" __attribute__((visibility("default")))
#define SLOT(Name) ptx2amd_nvjitlink_##Name

// Each under both names, each name calling the toolkit's function of that name.
NVJITLINK_API nvJitLinkResult nvJitLinkCreate(nvJitLinkHandle *Handle, uint32_t NumOptions,
                                              const char *const *Options) {
  return create(SLOT(nvJitLinkCreate), Handle, NumOptions, Options);
}
NVJITLINK_API nvJitLinkResult __nvJitLinkCreate_13_0(nvJitLinkHandle *Handle, uint32_t NumOptions,
                                                     const char *const *Options) {
  return create(SLOT(__nvJitLinkCreate_13_0), Handle, NumOptions, Options);
}

NVJITLINK_API nvJitLinkResult nvJitLinkDestroy(nvJitLinkHandle *Handle) {
  return destroy(SLOT(nvJitLinkDestroy), Handle);
}
NVJITLINK_API nvJitLinkResult __nvJitLinkDestroy_13_0(nvJitLinkHandle *Handle) {
  return destroy(SLOT(__nvJitLinkDestroy_13_0), Handle);
}

NVJITLINK_API nvJitLinkResult nvJitLinkGetLinkedCubinSize(nvJitLinkHandle Handle, size_t *Size) {
  return cubinSize(SLOT(nvJitLinkGetLinkedCubinSize), SLOT(nvJitLinkGetLinkedPtxSize), Handle,
                   Size);
}
NVJITLINK_API nvJitLinkResult __nvJitLinkGetLinkedCubinSize_13_0(nvJitLinkHandle Handle,
                                                                 size_t *Size) {
  return cubinSize(SLOT(__nvJitLinkGetLinkedCubinSize_13_0), SLOT(__nvJitLinkGetLinkedPtxSize_13_0),
                   Handle, Size);
}

NVJITLINK_API nvJitLinkResult nvJitLinkGetLinkedCubin(nvJitLinkHandle Handle, void *Cubin) {
  return cubin(SLOT(nvJitLinkGetLinkedCubin), SLOT(nvJitLinkGetLinkedPtx), Handle, Cubin);
}
NVJITLINK_API nvJitLinkResult __nvJitLinkGetLinkedCubin_13_0(nvJitLinkHandle Handle, void *Cubin) {
  return cubin(SLOT(__nvJitLinkGetLinkedCubin_13_0), SLOT(__nvJitLinkGetLinkedPtx_13_0), Handle,
               Cubin);
}

NVJITLINK_API nvJitLinkResult nvJitLinkGetErrorLogSize(nvJitLinkHandle Handle, size_t *Size) {
  return errorLogSize(SLOT(nvJitLinkGetErrorLogSize), Handle, Size);
}
NVJITLINK_API nvJitLinkResult __nvJitLinkGetErrorLogSize_13_0(nvJitLinkHandle Handle,
                                                              size_t *Size) {
  return errorLogSize(SLOT(__nvJitLinkGetErrorLogSize_13_0), Handle, Size);
}

NVJITLINK_API nvJitLinkResult nvJitLinkGetErrorLog(nvJitLinkHandle Handle, char *Log) {
  return errorLog(SLOT(nvJitLinkGetErrorLog), Handle, Log);
}
NVJITLINK_API nvJitLinkResult __nvJitLinkGetErrorLog_13_0(nvJitLinkHandle Handle, char *Log) {
  return errorLog(SLOT(__nvJitLinkGetErrorLog_13_0), Handle, Log);
}
