// `ptx2amd compile`: PTX (or the PTX of a CUDA binary) to LLVM IR, assembly or code objects.
#include "Commands.h"

#include "ptx2amd/amdgpu-backend/Target.h"
#include "ptx2amd/host-backend/HostDevice.h"
#include "ptx2amd/ptx2amd.h"

#include <fmt/format.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/ThreadPool.h>
#include <llvm/Support/Threading.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <optional>
#include <vector>

namespace ptx2amd::tool {
namespace {

namespace compile_opts {
#define PTX2AMD_OPTIONS "CompileOptions.inc"
#include "OptionTable.def"
} // namespace compile_opts

const CommandHelp CompileHelp = {
    "compile", "ptx2amd compile INPUT --arch TARGET [--arch ...|--all-targets] [options]",
    R"(Translates PTX to AMDGPU. INPUT is a PTX file or anything that carries PTX (a CUDA
executable, library, object, .fatbin or cubin): each of its PTX modules is translated (the per-TU
modules of relocatable device code, nvcc -rdc, as the one module they link into). A kernel that
uses something not supported yet is left out of the output with a warning naming it and the
reason; the rest of the module is still translated. --emit host-ll writes what the CPU device
(PTX2AMD_DEVICE=host) compiles instead: the same optimised module re-targeted to this host, each
kernel's execution (waves, compiled workgroup, work-item loop or fibers) and reasons at the top.)",
    "EXIT STATUS: 0 when every kernel was translated, 1 when some kernel or module failed, 2 on\n"
    "usage errors.\n"};

/// Owns a C API handle for a scope.
template <typename T, ptx2amd_status (*Destroy)(T *)> struct Handle {
  T *Ptr = nullptr;
  Handle() = default;
  Handle(const Handle &) = delete;
  Handle &operator=(const Handle &) = delete;
  ~Handle() { Destroy(Ptr); }
};
using Context = Handle<ptx2amd_context, ptx2amd_context_destroy>;
using Image = Handle<ptx2amd_image, ptx2amd_image_destroy>;
using Result = Handle<ptx2amd_result, ptx2amd_result_destroy>;

/// Prints, as warnings, the functions a translation could not translate and the kernels it left
/// out of the code object (they need a symbol from elsewhere, or code generation failed); returns
/// whether there were any.
bool reportUntranslated(const ptx2amd_result *R) {
  size_t N = 0;
  ptx2amd_result_function_count(R, &N);
  const char *Target = "";
  ptx2amd_result_target(R, &Target);
  bool Any = false;
  for (size_t K = 0; K < N; ++K) {
    const char *Name, *Reason;
    int IsKernel;
    ptx2amd_function_state State;
    ptx2amd_result_function(R, K, &Name, &IsKernel, nullptr, &Reason);
    ptx2amd_result_function_state(R, K, &State);
    if (State == PTX2AMD_FUNCTION_LEFT_OUT) {
      Any = true;
      llvm::errs() << fmt::format("ptx2amd: warning: kernel '{}' left out of the code object for "
                                  "{}: {}\n",
                                  Name, Target, Reason);
      continue;
    }
    if (State != PTX2AMD_FUNCTION_FAILED || !*Reason)
      continue;
    Any = true;
    llvm::errs() << fmt::format("ptx2amd: warning: {} '{}' not translated for {}:\n",
                                IsKernel ? "kernel" : "function", Name, Target);
    for (llvm::StringRef Line : llvm::split(llvm::StringRef(Reason).rtrim('\n'), '\n'))
      // A diagnostic's PTX text line is already indented.
      llvm::errs() << (Line.starts_with("    ") ? "" : "  ") << Line << "\n";
  }
  return Any;
}

} // namespace

int runCompile(llvm::ArrayRef<std::string> Argv) {
  using namespace compile_opts;
  int Exit = 0;
  auto Args = parseCommandLine(table(), OPT_help, CompileHelp, Argv, Exit);
  if (!Args)
    return Exit;
  auto Named = targetArgs(CompileHelp, *Args, OPT_arch);
  if (!Named)
    return 2;
  std::vector<const char *> Targets;
  for (const amdgpu::Target *T : *Named)
    Targets.push_back(T->Name.data());
  // --all-targets covers whatever --arch names too.
  if (Args->hasArg(OPT_all_targets)) {
    Targets.clear();
    for (const amdgpu::Target &T : amdgpu::allTargets())
      Targets.push_back(T.Name.data());
  }
  const std::string Emit = Args->getLastArgValue(OPT_emit, "obj").str();
  if (Emit != "llvm" && Emit != "asm" && Emit != "obj" && Emit != "host-ll")
    return usageError(CompileHelp,
                      fmt::format("--emit takes llvm, asm, obj or host-ll, not '{}'", Emit));
  int OptLevel = 3, CodeObjectVersion = 5;
  if (const llvm::opt::Arg *A = Args->getLastArg(OPT_O)) {
    llvm::StringRef V = A->getValue();
    if (V.getAsInteger(10, OptLevel) || OptLevel < 0 || OptLevel > 3)
      return usageError(CompileHelp, fmt::format("-O takes 0, 1, 2 or 3, not '{}'", V.str()));
  }
  if (const llvm::opt::Arg *A = Args->getLastArg(OPT_code_object_version)) {
    llvm::StringRef V = A->getValue();
    if (V.getAsInteger(10, CodeObjectVersion) || CodeObjectVersion < 4 || CodeObjectVersion > 6)
      return usageError(CompileHelp,
                        fmt::format("--code-object-version takes 4, 5 or 6, not '{}'", V.str()));
  }
  unsigned Partitions = 0;
  if (const llvm::opt::Arg *A = Args->getLastArg(OPT_codegen_partitions)) {
    std::optional<unsigned> N = numberArg(CompileHelp, *A);
    if (!N)
      return 2;
    Partitions = *N;
  }
  unsigned Jobs = llvm::hardware_concurrency().compute_thread_count();
  if (const llvm::opt::Arg *A = Args->getLastArg(OPT_j)) {
    std::optional<unsigned> N = numberArg(CompileHelp, *A, 1);
    if (!N)
      return 2;
    Jobs = *N;
  }
  const std::string Out = Args->getLastArgValue(OPT_o).str();
  const std::vector<std::string> Inputs = Args->getAllArgValues(OPT_INPUT);
  if (Inputs.size() > 1)
    return usageError(CompileHelp, "compile takes one input");
  if (Inputs.empty() || Targets.empty())
    return usageError(CompileHelp, "compile needs an input and at least one --arch");
  const std::string &Input = Inputs.front();

  // The same C API that libptx2amd exports does the work.
  Context Ctx;
  ptx2amd_output Output = Emit == "llvm"  ? PTX2AMD_OUTPUT_LLVM_IR
                          : Emit == "asm" ? PTX2AMD_OUTPUT_ASSEMBLY
                                          : PTX2AMD_OUTPUT_CODE_OBJECT;
  if (ptx2amd_context_create(&Ctx.Ptr) != PTX2AMD_SUCCESS ||
      ptx2amd_context_set_opt_level(Ctx.Ptr, OptLevel) != PTX2AMD_SUCCESS ||
      ptx2amd_context_set_code_object_version(Ctx.Ptr, CodeObjectVersion) != PTX2AMD_SUCCESS ||
      ptx2amd_context_set_codegen_partitions(Ctx.Ptr, Partitions) != PTX2AMD_SUCCESS ||
      ptx2amd_context_set_output(Ctx.Ptr, Output) != PTX2AMD_SUCCESS) {
    printError("cannot set up the translation context");
    return 1;
  }
  auto Bytes = llvm::MemoryBuffer::getFileOrSTDIN(Input, /*IsText=*/false,
                                                  /*RequiresNullTerminator=*/false);
  if (!Bytes) {
    printError(fmt::format("cannot read '{}': {}", Input, Bytes.getError().message()));
    return 1;
  }
  Image Img;
  llvm::StringRef Data = (*Bytes)->getBuffer();
  ptx2amd_image_open(Ctx.Ptr, Data.data(), Data.size(), Input == "-" ? "<stdin>" : Input.c_str(),
                     &Img.Ptr);
  size_t Modules = 0;
  if (!Img.Ptr || ptx2amd_image_module_count(Img.Ptr, &Modules) != PTX2AMD_SUCCESS ||
      Modules == 0) {
    const char *Why = "out of memory";
    if (Img.Ptr)
      ptx2amd_image_diagnostics(Img.Ptr, &Why);
    printError(Why);
    return 1;
  }
  // What to translate: the image's modules, except that the per-TU modules of -rdc code are
  // translated as the one module they link into (in the place of the first).
  auto Rdc = linkRdcModules(llvm::MemoryBufferRef(Data, Input == "-" ? "<stdin>" : Input));
  if (!Rdc) {
    printError(llvm::toString(Rdc.takeError()));
    return 1;
  }
  struct Unit {
    size_t ImageModule = 0;
    const SourceText *Linked = nullptr;
  };
  std::vector<Unit> Units;
  std::vector<bool> Placed(Rdc->size());
  for (size_t M = 0; M < Modules; ++M) {
    const char *Ptx = nullptr, *Name = "";
    size_t Size = 0;
    ptx2amd_image_module(Img.Ptr, M, &Ptx, &Size, &Name, nullptr);
    auto Group =
        llvm::find_if(*Rdc, [&](const RdcModule &R) { return llvm::is_contained(R.Parts, Name); });
    if (Group == Rdc->end()) {
      Units.push_back({M, nullptr});
    } else if (!Placed[Group - Rdc->begin()]) {
      Placed[Group - Rdc->begin()] = true;
      Units.push_back({0, Group->Linked.get()});
    }
  }
  Modules = Units.size();

  std::string Stem = llvm::sys::path::stem(Input).str();
  bool OneOutput = Modules == 1 && Targets.size() == 1;
  if (!OneOutput && !Out.empty())
    if (auto EC = llvm::sys::fs::create_directories(Out)) {
      printError(fmt::format("cannot create '{}': {}", Out, EC.message()));
      return 1;
    }
  const char *Ext = Emit == "llvm"      ? "ll"
                    : Emit == "asm"     ? "s"
                    : Emit == "host-ll" ? "host.ll"
                                        : "hsaco";
  // Every (module, target) pair on a thread pool; results are reported and written in order, so
  // the output is the same whatever the number of threads.
  struct Job {
    size_t Module;
    const char *Target;
    Result R;
    ptx2amd_status S = PTX2AMD_SUCCESS;
    std::optional<llvm::Expected<std::string>> Host; ///< --emit host-ll: the host device's module
  };
  std::vector<Job> Work(Modules * Targets.size());
  for (size_t M = 0; M < Modules; ++M)
    for (size_t K = 0; K < Targets.size(); ++K) {
      Work[M * Targets.size() + K].Module = M;
      Work[M * Targets.size() + K].Target = Targets[K];
    }
  {
    llvm::StdThreadPool Pool(llvm::hardware_concurrency(std::min<size_t>(Jobs, Work.size())));
    for (Job &J : Work)
      Pool.async([&Ctx, &Img, &J, &Units, &Emit, OptLevel, CodeObjectVersion] {
        const Unit &U = Units[J.Module];
        if (Emit == "host-ll") {
          // The host device's own path (host::Device::loadPtx up to its JIT), not the C API's.
          const char *Ptx = nullptr, *Name = "";
          size_t Size = 0;
          if (U.Linked) {
            Ptx = U.Linked->text().data(), Size = U.Linked->text().size();
            Name = U.Linked->name().c_str();
          } else {
            ptx2amd_image_module(Img.Ptr, U.ImageModule, &Ptx, &Size, &Name, nullptr);
          }
          host::LoadOptions O;
          O.OptLevel = unsigned(OptLevel);
          O.CodeObjectVersion = unsigned(CodeObjectVersion);
          J.Host.emplace(host::Device::retargetedModule(llvm::StringRef(Ptx, Size), Name,
                                                        *amdgpu::findTarget(J.Target), O));
          return;
        }
        if (U.Linked)
          J.S = ptx2amd_translate_ptx(Ctx.Ptr, U.Linked->text().data(), U.Linked->text().size(),
                                      U.Linked->name().c_str(), J.Target, &J.R.Ptr);
        else
          J.S = ptx2amd_translate_image_module(Ctx.Ptr, Img.Ptr, U.ImageModule, J.Target, &J.R.Ptr);
      });
    Pool.wait();
  }
  int Status = 0;
  // Writes one output; false when it cannot.
  auto Write = [&](const std::string &ModStem, const char *T, llvm::StringRef Data) {
    std::string Path =
        OneOutput ? (Out.empty() ? fmt::format("{}.{}.{}", ModStem, T, Ext) : Out)
                  : fmt::format("{}{}{}.{}.{}", Out, Out.empty() ? "" : "/", ModStem, T, Ext);
    std::error_code EC;
    llvm::raw_fd_ostream OS(Path, EC,
                            Emit == "obj" ? llvm::sys::fs::OF_None : llvm::sys::fs::OF_Text);
    if (EC) {
      printError(fmt::format("cannot write '{}': {}", Path, EC.message()));
      return false;
    }
    OS << Data;
    return true;
  };
  for (size_t M = 0; M < Modules; ++M) {
    std::string ModStem = Modules == 1 ? Stem : fmt::format("{}.m{}", Stem, M);
    for (size_t K = 0; K < Targets.size(); ++K) {
      const char *T = Targets[K];
      Job &J = Work[M * Targets.size() + K];
      if (J.Host) {
        if (!*J.Host) {
          printError(llvm::toString(J.Host->takeError()));
          Status = 1;
        } else if (!Write(ModStem, T, **J.Host)) {
          return 1;
        }
        continue;
      }
      Result &R = J.R;
      ptx2amd_status S = J.S;
      if (!R.Ptr) {
        printError(ptx2amd_status_string(S));
        return 1;
      }
      const char *Error = "";
      ptx2amd_result_error(R.Ptr, &Error);
      if (S == PTX2AMD_ERROR_INVALID_INPUT) {
        // The PTX could not be read: its located diagnostics, once for all targets.
        llvm::errs() << Error << "\n";
        Status = 1;
        break;
      }
      if (reportUntranslated(R.Ptr))
        Status = 1;
      if (S != PTX2AMD_SUCCESS) {
        printError(Error);
        Status = 1;
        continue;
      }
      const void *Data = nullptr;
      size_t Size = 0;
      if (ptx2amd_result_code_object(R.Ptr, &Data, &Size) != PTX2AMD_SUCCESS) {
        const char *Text = "";
        ptx2amd_result_text(R.Ptr, &Text, &Size);
        Data = Text;
      }
      if (!Write(ModStem, T, llvm::StringRef(static_cast<const char *>(Data), Size)))
        return 1;
    }
  }
  return Status;
}

} // namespace ptx2amd::tool
