//===- Forward.cpp - finding and loading the toolkit's library ------------===//

#include "Forward.h"

#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <dlfcn.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ptx2amd::forward {
namespace {

std::string canonical(const std::string &Path) {
  char Buffer[PATH_MAX];
  return realpath(Path.c_str(), Buffer) ? std::string(Buffer) : std::string();
}

/// The file of the library this code is linked into, which a candidate must not be (a toolkit
/// folder may hold ours).
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
  std::string From;
};

std::vector<Candidate> candidates(const Library &Lib) {
  const std::string Name = Lib.FileName;
  std::vector<Candidate> C;
  if (const char *Env = std::getenv(Lib.EnvVar); Env && *Env) {
    std::string Path = Env;
    struct stat St;
    if (stat(Path.c_str(), &St) == 0 && S_ISDIR(St.st_mode))
      Path += "/" + Name;
    // The only one: falling back to another toolkit would hide a wrong setting.
    C.push_back({Path, Lib.EnvVar});
    return C;
  }
  for (const char *Var : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *Env = std::getenv(Var); Env && *Env)
      C.push_back({std::string(Env) + "/lib64/" + Name, Var});
  if (std::string Bin = nvccFolder(); !Bin.empty())
    C.push_back({Bin + "/../lib64/" + Name, "nvcc on PATH"});
  C.push_back({"/usr/local/cuda/lib64/" + Name, "default"});
#if defined(__x86_64__)
  C.push_back({"/usr/lib/x86_64-linux-gnu/" + Name, "default"});
#elif defined(__aarch64__)
  C.push_back({"/usr/lib/aarch64-linux-gnu/" + Name, "default"});
#endif
  return C;
}

} // namespace

Loaded load(const Library &Lib, std::span<const SlotEntry> Slots) {
  const std::string Self = ownPath();
  Loaded L;
  std::vector<std::string> Seen;
  for (const Candidate &C : candidates(Lib)) {
    auto note = [&](const std::string &Why) {
      L.Tried += (L.Tried.empty() ? "" : "; ") + C.Path + " (" + C.From + "): " + Why;
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
    if (!dlsym(Handle, Lib.Probe)) {
      note(std::string("not the library looked for (no ") + Lib.Probe + ")");
      dlclose(Handle);
      continue;
    }
    for (const SlotEntry &S : Slots) {
      if (void *F = dlsym(Handle, S.Name))
        *S.Where = reinterpret_cast<Slot>(F);
      else
        L.Lacks += std::string(" ") + S.Name;
    }
    L.Path = Real;
    L.From = C.From;
    L.Tried.clear();
    return L;
  }
  return L;
}

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

} // namespace ptx2amd::forward
