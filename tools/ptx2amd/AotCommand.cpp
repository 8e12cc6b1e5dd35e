// `ptx2amd aot`: every kernel that executables and libraries carry, and those of the CUDA
// libraries they link, translated ahead of time into the JIT cache, exactly as their first
// launches would translate them (the loader's own path, LoaderOptions::TranslateOnly), so that
// the programs' runs translate nothing.
#include "Commands.h"
#include "Progress.h"

#include "ptx2amd/amdgpu-backend/Target.h"
#include "ptx2amd/loader/Device.h"
#include "ptx2amd/loader/HsaDevice.h"
#include "ptx2amd/loader/ModuleLoader.h"

#include <fmt/format.h>
#include <llvm/ADT/StringSet.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/FileUtilities.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/ThreadPool.h>
#include <llvm/Support/raw_ostream.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <unistd.h>

namespace ptx2amd::tool {
namespace {

namespace aot_opts {
#define PTX2AMD_OPTIONS "AotOptions.inc"
#include "OptionTable.def"
} // namespace aot_opts
using namespace aot_opts;

const CommandHelp AotHelp = {
    "aot", "ptx2amd aot FILE... [--arch LIST] [--device auto|host|hsa] [--jobs N] [--cache DIR]",
    R"(Translates ahead of time every kernel that FILE (a CUDA executable or shared library) carries,
and those of the CUDA libraries it links (libcublas, libcufft, ...; resolved as the dynamic
loader resolves them), into the JIT cache, as the program's first launches would: its next run
translates nothing (PTX2AMD_LOG=info shows only cache hits). Each registration unit's PTX is the
one the runtime takes at the compute capability; kernels translate on all cores. A kernel already
in the cache is not translated again, so an interrupted aot resumes where it stopped, and a
second one does nothing. Code objects (a GPU's) are the same on every machine, and a copied cache
is valid anywhere; the CPU device's translations are for the CPU they were made on.)",
    R"(On a terminal a progress line shows the kernels done of all, the rate and the time left (at
PTX2AMD_LOG=info, a line every tenth elsewhere); a summary follows on standard output.

EXIT STATUS: 0 when every kernel is in the cache, 1 when some kernel or file failed, 2 on usage
errors.
)"};

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point Start) {
  return std::chrono::duration<double>(Clock::now() - Start).count();
}

/// Whether the ELF at \p Path holds fatbins (.nv_fatbin or __nv_relfatbin).
bool carriesFatbins(const std::string &Path) {
  auto Bin = llvm::object::ObjectFile::createObjectFile(Path);
  if (!Bin) {
    llvm::consumeError(Bin.takeError());
    return false;
  }
  for (const llvm::object::SectionRef &S : Bin->getBinary()->sections())
    if (auto Name = S.getName(); Name && (*Name == ".nv_fatbin" || *Name == "__nv_relfatbin"))
      return true;
    else if (!Name)
      llvm::consumeError(Name.takeError());
  return false;
}

/// The shared libraries \p Path needs, as the dynamic loader resolves them (`ld.so --list`).
llvm::Expected<std::vector<std::string>> neededLibraries(const std::string &Path) {
  const char *Loader = "/lib64/ld-linux-x86-64.so.2";
  llvm::SmallString<128> Out;
  if (std::error_code EC = llvm::sys::fs::createTemporaryFile("ptx2amd-aot", "txt", Out))
    return llvm::errorCodeToError(EC);
  llvm::FileRemover Remove(Out);
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, llvm::StringRef(Out),
                                                llvm::StringRef("")};
  std::string Error;
  int Status = llvm::sys::ExecuteAndWait(Loader, {Loader, "--list", Path}, std::nullopt, Redirects,
                                         0, 0, &Error);
  if (Status != 0)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        fmt::format("cannot list the libraries of '{}' ({} --list: {})", Path, Loader,
                    Error.empty() ? "exit status " + std::to_string(Status) : Error));
  auto Text = llvm::MemoryBuffer::getFile(Out);
  if (!Text)
    return llvm::errorCodeToError(Text.getError());
  std::vector<std::string> Libraries;
  llvm::SmallVector<llvm::StringRef> Lines;
  (*Text)->getBuffer().split(Lines, '\n');
  for (llvm::StringRef Line : Lines) {
    auto [Name, Rest] = Line.split(" => ");
    if (Rest.empty() || Rest.starts_with("not found"))
      continue;
    Libraries.push_back(Rest.split(" (").first.trim().str());
  }
  return Libraries;
}

/// FILEs, then (unless NoLibraries) the libraries they link that carry fatbins, each once.
llvm::Expected<std::vector<std::string>> filesToTranslate(llvm::ArrayRef<std::string> Inputs,
                                                          bool NoLibraries) {
  std::vector<std::string> Files;
  llvm::StringSet<> Seen;
  auto Add = [&](const std::string &Path) {
    llvm::SmallString<256> Real;
    if (llvm::sys::fs::real_path(Path, Real))
      Real = Path;
    if (Seen.insert(Real).second)
      Files.push_back(std::string(Real));
  };
  for (const std::string &In : Inputs) {
    if (!llvm::sys::fs::exists(In))
      return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                     fmt::format("no such file '{}'", In));
    Add(In);
  }
  if (NoLibraries)
    return Files;
  for (const std::string &In : Inputs) {
    auto Needed = neededLibraries(In);
    if (!Needed) { // not a dynamic ELF: nothing it links
      llvm::consumeError(Needed.takeError());
      continue;
    }
    for (const std::string &Lib : *Needed)
      if (carriesFatbins(Lib))
        Add(Lib);
  }
  return Files;
}

struct Failure {
  std::string Kernel, Module, Reason;
};

/// What one target's aot did.
struct TargetReport {
  std::string Target, Device;
  size_t Files = 0, Modules = 0, Kernels = 0, Translated = 0, Cached = 0;
  std::vector<Failure> Failed;
  std::vector<std::string> FileErrors;
  double Seconds = 0;
};

/// Opens every file's modules with \p L, and translates every kernel on \p Jobs threads.
TargetReport translateAll(loader::ModuleLoader &L, llvm::ArrayRef<std::string> Files, unsigned Jobs,
                          bool Verbose) {
  TargetReport R;
  const auto Start = Clock::now();
  R.Target = std::string(L.device().properties().Target->Name);
  R.Device = L.device().properties().Name;
  std::vector<std::unique_ptr<loader::LazyModule>> Modules;
  std::vector<std::pair<loader::LazyModule *, std::string>> Work;
  for (const std::string &File : Files) {
    auto Bytes = llvm::MemoryBuffer::getFile(File, /*IsText=*/false,
                                             /*RequiresNullTerminator=*/false);
    if (!Bytes) {
      R.FileErrors.push_back(fmt::format("{}: {}", File, Bytes.getError().message()));
      continue;
    }
    auto Opened =
        L.openEach(llvm::ArrayRef(reinterpret_cast<const uint8_t *>((*Bytes)->getBufferStart()),
                                  (*Bytes)->getBufferSize()),
                   llvm::sys::path::filename(File));
    if (!Opened) {
      R.FileErrors.push_back(fmt::format("{}: {}", File, llvm::toString(Opened.takeError())));
      continue;
    }
    ++R.Files;
    for (auto &M : *Opened) {
      // A module that fails as a whole fails each of its kernels below, with its reason.
      if (llvm::Error E = M->load())
        R.FileErrors.push_back(fmt::format("{}: {}", M->name(), llvm::toString(std::move(E))));
      for (std::string &K : M->kernelNames())
        Work.emplace_back(M.get(), std::move(K));
      Modules.push_back(std::move(M));
    }
  }
  R.Modules = Modules.size();
  R.Kernels = Work.size();
  Progress Bar("aot", R.Target, Work.size(), "kernels", Verbose);
  std::mutex Mutex;
  llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(Jobs));
  for (auto &[M, Kernel] : Work)
    Pool.async([&, M = M, &Kernel = Kernel] {
      auto Translated = M->precompile(Kernel);
      std::lock_guard<std::mutex> Lock(Mutex);
      if (!Translated)
        R.Failed.push_back({Kernel, M->name(), llvm::toString(Translated.takeError())});
      else
        ++(*Translated ? R.Translated : R.Cached);
      Bar.update(R.Translated + R.Cached + R.Failed.size(), R.Translated,
                 fmt::format("{} translated, {} cached, {} failed", R.Translated, R.Cached,
                             R.Failed.size()));
    });
  Pool.wait();
  R.Seconds = secondsSince(Start);
  return R;
}

llvm::json::Object toJson(const TargetReport &R) {
  llvm::json::Array Failed, FileErrors;
  for (const Failure &F : R.Failed)
    Failed.push_back(
        llvm::json::Object{{"kernel", F.Kernel}, {"module", F.Module}, {"reason", F.Reason}});
  for (const std::string &E : R.FileErrors)
    FileErrors.push_back(E);
  return llvm::json::Object{{"target", R.Target},
                            {"device", R.Device},
                            {"files", int64_t(R.Files)},
                            {"modules", int64_t(R.Modules)},
                            {"kernels", int64_t(R.Kernels)},
                            {"translated", int64_t(R.Translated)},
                            {"cached", int64_t(R.Cached)},
                            {"failed", std::move(Failed)},
                            {"file_errors", std::move(FileErrors)},
                            {"seconds", R.Seconds}};
}

void printReport(const TargetReport &R) {
  fmt::print("{} on {}: {} files, {} modules, {} kernels: {} translated, {} already in the "
             "cache, {} failed, in {:.1f} s\n",
             R.Target, R.Device, R.Files, R.Modules, R.Kernels, R.Translated, R.Cached,
             R.Failed.size(), R.Seconds);
  for (const std::string &E : R.FileErrors)
    fmt::print("  error: {}\n", E);
  constexpr size_t Shown = 10;
  for (size_t I = 0; I < R.Failed.size() && I < Shown; ++I)
    fmt::print("  failed: {}\n", llvm::StringRef(R.Failed[I].Reason).split('\n').first.rtrim());
  if (R.Failed.size() > Shown)
    fmt::print("  ... and {} more (--json lists them all)\n", R.Failed.size() - Shown);
}

/// The devices to translate for: for the GPU's code objects (--device hsa), the GPU where it is
/// of the target and a translating device for any other target; for the CPU device, one per
/// target; auto: the GPU where one is usable, else the CPU device.
std::optional<int> devicesFor(const llvm::opt::InputArgList &Args,
                              std::vector<std::unique_ptr<loader::Device>> &Owned,
                              std::vector<loader::Device *> &Devices) {
  std::string Choice = Args.getLastArgValue(OPT_device).str();
  if (Choice.empty())
    Choice = std::getenv("PTX2AMD_DEVICE") ? std::getenv("PTX2AMD_DEVICE") : "auto";
  if (Choice != "auto" && Choice != "host" && Choice != "hsa")
    return usageError(AotHelp, fmt::format("--device takes auto, host or hsa, not '{}'", Choice));
  std::vector<const amdgpu::Target *> Targets;
  for (const std::string &V : Args.getAllArgValues(OPT_arch))
    for (llvm::StringRef N : llvm::split(V, ','))
      if (!N.trim().empty()) {
        auto T = amdgpu::lookupTarget(N.trim());
        if (!T)
          return usageError(AotHelp, llvm::toString(T.takeError()));
        Targets.push_back(&*T);
      }
  loader::Device *Gpu = nullptr;
  if (Choice != "host") {
    auto D = loader::hsaDevice();
    if (D)
      Gpu = &*D;
    else
      llvm::consumeError(D.takeError());
  }
  if (Choice == "hsa" || (Choice == "auto" && Gpu)) {
    if (Targets.empty() && !Gpu)
      return usageError(AotHelp, "no GPU here: --device hsa needs the targets (--arch)");
    if (Targets.empty())
      Targets.push_back(Gpu->properties().Target);
    for (const amdgpu::Target *T : Targets)
      if (Gpu && Gpu->properties().Target == T) {
        Devices.push_back(Gpu);
      } else {
        Owned.push_back(loader::createTranslatingDevice(*T));
        Devices.push_back(Owned.back().get());
      }
    return std::nullopt;
  }
  if (Targets.empty()) {
    const char *Env = std::getenv("PTX2AMD_HOST_TARGET");
    auto T = amdgpu::lookupTarget(Env && *Env ? Env : "gfx90a");
    if (!T)
      return usageError(AotHelp, llvm::toString(T.takeError()) + " (PTX2AMD_HOST_TARGET)");
    Targets.push_back(&*T);
  }
  for (const amdgpu::Target *T : Targets) {
    auto D = loader::createHostDevice(*T);
    if (!D) {
      printError(llvm::toString(D.takeError()));
      return 1;
    }
    Devices.push_back(D->get());
    Owned.push_back(std::move(*D));
  }
  return std::nullopt;
}

/// The loader's options as the runtime makes them, at the capability the runs will report.
std::optional<int> loaderOptions(const llvm::opt::InputArgList &Args, loader::LoaderOptions &O) {
  auto Env = loader::LoaderOptions::fromEnvironment();
  if (!Env) {
    printError(llvm::toString(Env.takeError()));
    return 2;
  }
  O = std::move(*Env);
  std::string CC = Args.getLastArgValue(OPT_compute_capability).str();
  if (CC.empty())
    CC = std::getenv("PTX2AMD_COMPUTE_CAPABILITY") ? std::getenv("PTX2AMD_COMPUTE_CAPABILITY") : "";
  if (CC.empty())
    CC = "8.6";
  unsigned Major = 0, Minor = 0;
  auto [M, m] = llvm::StringRef(CC).split('.');
  if (M.getAsInteger(10, Major) || m.size() != 1 || m.getAsInteger(10, Minor) || Major < 5)
    return usageError(AotHelp, fmt::format("a compute capability is M.m (8.6), not '{}'", CC));
  // As the runtime selects (runtime/lib/Runtime.cpp): the highest arch at most the capability,
  // else the lowest above.
  O.Selection.Kind = fatbin::SelectionPolicy::Mode::HighestArchAtMost;
  O.Selection.MaxArch = Major * 10 + Minor;
  O.Selection.AboveIfNone = true;
  O.PerKernel = true;
  O.Eager = false;
  O.TranslateOnly = true;
  auto Config = loader::CacheConfig::fromEnvironment();
  if (!Config) {
    printError(llvm::toString(Config.takeError()));
    return 2;
  }
  if (const llvm::opt::Arg *A = Args.getLastArg(OPT_cache)) {
    llvm::SmallString<256> Dir(A->getValue());
    llvm::sys::fs::make_absolute(Dir);
    Config->Directory = std::string(Dir);
  }
  Config->Enabled = true;
  auto Cache = loader::Cache::open(*Config);
  if (!Cache) {
    printError(llvm::toString(Cache.takeError()));
    return 1;
  }
  O.JitCache = std::move(*Cache);
  return std::nullopt;
}

} // namespace

int runAot(llvm::ArrayRef<std::string> Argv) {
  int Exit = 0;
  auto Args = parseCommandLine(table(), OPT_help, AotHelp, Argv, Exit);
  if (!Args)
    return Exit;
  const std::vector<std::string> Inputs = Args->getAllArgValues(OPT_INPUT);
  if (Inputs.empty())
    return usageError(AotHelp, "aot needs at least one FILE");
  unsigned Jobs = llvm::hardware_concurrency().compute_thread_count();
  if (const llvm::opt::Arg *A = Args->getLastArg(OPT_jobs)) {
    std::optional<unsigned> N = numberArg(AotHelp, *A, 1);
    if (!N)
      return 2;
    Jobs = *N;
  }
  loader::LoaderOptions Opts;
  if (auto Failed = loaderOptions(*Args, Opts))
    return *Failed;
  std::vector<std::unique_ptr<loader::Device>> Owned;
  std::vector<loader::Device *> Devices;
  if (auto Failed = devicesFor(*Args, Owned, Devices))
    return *Failed;
  auto Files = filesToTranslate(Inputs, Args->hasArg(OPT_no_libraries));
  if (!Files) {
    printError(llvm::toString(Files.takeError()));
    return 1;
  }

  const bool Json = Args->hasArg(OPT_json);
  llvm::json::Array Reports;
  bool Clean = true;
  for (loader::Device *D : Devices) {
    loader::ModuleLoader L(*D, Opts);
    TargetReport R = translateAll(L, *Files, Jobs, Opts.Log >= loader::LogLevel::Info);
    Clean &= R.Failed.empty() && R.FileErrors.empty();
    if (Json)
      Reports.push_back(toJson(R));
    else
      printReport(R);
  }
  auto Stats = Opts.JitCache->stats();
  const std::string Directory = Opts.JitCache->config().Directory;
  if (!Stats) {
    printError(llvm::toString(Stats.takeError()));
    return 1;
  }
  if (Json) {
    llvm::json::Array Names;
    for (const std::string &F : *Files)
      Names.push_back(F);
    llvm::outs() << llvm::formatv(
        "{0:2}\n", llvm::json::Value(llvm::json::Object{
                       {"files", std::move(Names)},
                       {"targets", std::move(Reports)},
                       {"cache", llvm::json::Object{{"directory", Directory},
                                                    {"entries", int64_t(Stats->Entries)},
                                                    {"bytes", int64_t(Stats->Bytes)}}}}));
  } else {
    fmt::print("files: {}\n", fmt::join(*Files, ", "));
    fmt::print("cache: {}, {} entries, {:.1f} MiB\n", Directory, Stats->Entries,
               Stats->Bytes / 1048576.0);
  }
  return Clean ? 0 : 1;
}

} // namespace ptx2amd::tool
