// `ptx2amd run` and `ptx2amd env`: an unmodified CUDA program with ptx2amd's CUDA libraries
// (libcuda.so.1, libcudart.so.13, libnvrtc.so.13, libnvJitLink.so.13) first on its library
// path, found beside the command itself: in the build tree, or in the private folder an install
// puts them in (never the system's library path, where they would shadow NVIDIA's driver).
#include "Commands.h"

#include "ptx2amd/amdgpu-backend/Target.h"

#include <fmt/format.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace ptx2amd::tool {
namespace {

namespace run_opts {
#define PTX2AMD_OPTIONS "RunOptions.inc"
#include "OptionTable.def"
} // namespace run_opts
using namespace run_opts;

constexpr const char *Settings =
    R"(The program's kernels are translated from the PTX it carries, at their first launch, into
the JIT cache (see 'ptx2amd cache --help'). Settings that the program's environment may also
hold: PTX2AMD_DEVICE and PTX2AMD_HOST_TARGET (the options above), PTX2AMD_LOG=info|debug (what
is translated and launched), PTX2AMD_COMPUTE_CAPABILITY=M.m (default 8.6).
)";

const CommandHelp RunHelp = {
    "run", "ptx2amd run [--device auto|host|hsa] [--arch TARGET] [--] PROGRAM [ARGS...]",
    "Runs PROGRAM, an unmodified CUDA program (built by nvcc with the static or the shared CUDA\n"
    "runtime, or a program that links NVIDIA's CUDA libraries), with ptx2amd's CUDA libraries\n"
    "first on its library path. PROGRAM replaces this command: its standard streams, exit status\n"
    "and signals are its own. Options after PROGRAM are PROGRAM's.",
    Settings};

const CommandHelp EnvHelp = {
    "env", "ptx2amd env [--device auto|host|hsa] [--arch TARGET]",
    "Prints the shell lines that make every CUDA program of a shell session run as 'ptx2amd run'\n"
    "runs one: eval \"$(ptx2amd env)\".",
    Settings};

/// The folder of the CUDA libraries, beside this executable: installed
/// (PTX2AMD_INSTALLED_RUNTIME_DIR from its bin folder) or in the build tree.
llvm::Expected<std::string> libraryDir() {
  llvm::SmallString<256> Exe;
  if (std::error_code EC = llvm::sys::fs::real_path("/proc/self/exe", Exe))
    return llvm::createStringError(EC, "cannot find the ptx2amd executable: %s",
                                   EC.message().c_str());
  llvm::StringRef Bin = llvm::sys::path::parent_path(Exe);
  std::vector<std::string> Tried;
  for (const char *Relative : {PTX2AMD_INSTALLED_RUNTIME_DIR, PTX2AMD_BUILT_RUNTIME_DIR}) {
    llvm::SmallString<256> Dir(Bin);
    llvm::sys::path::append(Dir, Relative);
    llvm::SmallString<256> Real;
    if (!llvm::sys::fs::real_path(Dir, Real) &&
        llvm::sys::fs::exists(llvm::Twine(Real) + "/libcuda.so.1"))
      return std::string(Real);
    Tried.push_back(std::string(Dir));
  }
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      fmt::format("ptx2amd's CUDA libraries (libcuda.so.1) are not beside {}: not in {} (an "
                  "install) nor in {} (a build tree)",
                  std::string(Exe), Tried[0], Tried[1]));
}

/// The environment a program runs in: NAME=VALUE, the library path last (it extends the one
/// there is).
struct Environment {
  std::string LibraryDir;
  std::vector<std::pair<std::string, std::string>> Set;
};

/// Parses the options of run (up to PROGRAM) or env into the environment; an exit status when
/// the command is done (help printed, or a usage error).
std::optional<int> environmentFrom(const CommandHelp &Help, llvm::ArrayRef<std::string> Options,
                                   Environment &Env) {
  int Exit = 0;
  auto Args = parseCommandLine(table(), OPT_help, Help, Options, Exit);
  if (!Args)
    return Exit;
  if (const llvm::opt::Arg *A = Args->getLastArg(OPT_INPUT))
    return usageError(Help, fmt::format("unexpected argument '{}'", A->getValue()));
  std::string Device = Args->getLastArgValue(OPT_device).str();
  if (!Device.empty()) {
    if (Device != "auto" && Device != "host" && Device != "hsa")
      return usageError(Help, fmt::format("--device takes auto, host or hsa, not '{}'", Device));
    Env.Set.emplace_back("PTX2AMD_DEVICE", Device);
  }
  if (Args->hasArg(OPT_arch)) {
    auto Targets = targetArgs(Help, *Args, OPT_arch);
    if (!Targets)
      return 2;
    if (Device == "hsa")
      return usageError(Help, "--arch chooses the CPU device's target; a GPU's is its own");
    Env.Set.emplace_back("PTX2AMD_HOST_TARGET", std::string(Targets->back()->Name));
  }
  auto Dir = libraryDir();
  if (!Dir) {
    printError(llvm::toString(Dir.takeError()));
    return 1;
  }
  Env.LibraryDir = std::move(*Dir);
  return std::nullopt;
}

/// \p S quoted for a POSIX shell.
std::string shellQuoted(llvm::StringRef S) {
  std::string Out = "'";
  for (char C : S)
    Out += C == '\'' ? std::string("'\\''") : std::string(1, C);
  return Out + "'";
}

} // namespace

int runRun(llvm::ArrayRef<std::string> Argv) {
  // The options are those before PROGRAM (or before `--`); the rest is PROGRAM's command line.
  size_t First = 0;
  bool DashDash = false;
  while (First < Argv.size()) {
    llvm::StringRef A = Argv[First];
    if (A == "--") {
      DashDash = true;
      break;
    }
    if (!A.starts_with("-") || A == "-")
      break;
    First += (A == "--device" || A == "--arch") ? 2 : 1;
  }
  First = std::min(First, Argv.size());
  Environment Env;
  if (auto Exit = environmentFrom(RunHelp, Argv.take_front(First), Env))
    return *Exit;
  llvm::ArrayRef<std::string> Program = Argv.drop_front(First + DashDash);
  if (Program.empty())
    return usageError(RunHelp, "no program to run");

  for (const auto &[Name, Value] : Env.Set)
    setenv(Name.c_str(), Value.c_str(), 1);
  const char *Old = std::getenv("LD_LIBRARY_PATH");
  std::string Path = Env.LibraryDir + (Old && *Old ? ":" + std::string(Old) : "");
  setenv("LD_LIBRARY_PATH", Path.c_str(), 1);
  std::vector<char *> Args;
  for (const std::string &A : Program)
    Args.push_back(const_cast<char *>(A.c_str()));
  Args.push_back(nullptr);
  std::fflush(nullptr);
  execvp(Args[0], Args.data());
  // As a shell says it: 127 for a program not found, 126 for one that cannot be run.
  const int Errno = errno;
  printError(fmt::format("cannot run '{}': {}", Program.front(), std::strerror(Errno)));
  return Errno == ENOENT ? 127 : 126;
}

int runEnv(llvm::ArrayRef<std::string> Argv) {
  Environment Env;
  if (auto Exit = environmentFrom(EnvHelp, Argv, Env))
    return *Exit;
  for (const auto &[Name, Value] : Env.Set)
    fmt::print("export {}={}\n", Name, shellQuoted(Value));
  fmt::print("export LD_LIBRARY_PATH={}\"${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}\"\n",
             shellQuoted(Env.LibraryDir));
  return 0;
}

} // namespace ptx2amd::tool
