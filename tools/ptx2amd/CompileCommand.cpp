// `ptx2amd compile`: PTX (or the PTX of a CUDA binary) to LLVM IR, assembly or code objects.
#include "Commands.h"

#include "ptx2amd/amdgpu-backend/Codegen.h"
#include "ptx2amd/lowering/Lowering.h"
#include "ptx2amd/ptx-ir/Reader.h"

#include <fmt/format.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

namespace ptx2amd::tool {
namespace {

const char CompileHelp[] =
    R"(usage: ptx2amd compile INPUT --arch TARGET [--arch ...|--all-targets] [options]

Translates PTX to AMDGPU. INPUT is a PTX file or anything that carries PTX (a CUDA executable,
library, object, .fatbin or cubin): each of its PTX modules is translated. A kernel that uses
something not supported yet is left out of the output with a warning naming it and the reason;
the rest of the module is still translated.

options:
  --arch TARGET          a target: gfx90a, gfx942, gfx950 (wave64), gfx1030, gfx1100, gfx1201 (wave32)
  --all-targets          every target above
  --emit llvm|asm|obj    what to write (default obj: a code object, HSACO)
  -O0 .. -O3             optimisation level (default -O3)
  --code-object-version 4|5|6   (default 5)
  -o OUT                 output file for one module and one target; a folder otherwise
                         (default: <input>.<target>.{ll,s,hsaco} in the current folder)

exit status: 0 when every kernel was translated, 1 when some kernel or module failed, 2 on usage
errors.
)";

struct Job {
  std::string Stem;
  std::shared_ptr<const SourceText> Source;
};

} // namespace

int runCompile(llvm::ArrayRef<std::string> Args) {
  std::vector<const amdgpu::Target *> Targets;
  std::string Input, Out, Emit = "obj";
  amdgpu::CodegenOptions CG;
  for (size_t K = 0; K < Args.size(); ++K) {
    const std::string &A = Args[K];
    auto Next = [&]() -> const std::string * {
      if (K + 1 >= Args.size()) {
        printError(fmt::format("'{}' needs an argument", A));
        return nullptr;
      }
      return &Args[++K];
    };
    if (A == "-h" || A == "--help") {
      std::fputs(CompileHelp, stdout);
      return 0;
    } else if (A == "--arch") {
      const std::string *V = Next();
      if (!V)
        return 2;
      const amdgpu::Target *T = amdgpu::findTarget(*V);
      if (!T) {
        printError(fmt::format("unknown target '{}' (known: {})", *V, amdgpu::knownTargetNames()));
        return 2;
      }
      Targets.push_back(T);
    } else if (A == "--all-targets") {
      for (const amdgpu::Target &T : amdgpu::allTargets())
        Targets.push_back(&T);
    } else if (A == "--emit") {
      const std::string *V = Next();
      if (!V)
        return 2;
      if (*V != "llvm" && *V != "asm" && *V != "obj") {
        printError(fmt::format("--emit takes llvm, asm or obj, not '{}'", *V));
        return 2;
      }
      Emit = *V;
    } else if (A.size() == 3 && A[0] == '-' && A[1] == 'O' && A[2] >= '0' && A[2] <= '3') {
      CG.OptLevel = A[2] - '0';
    } else if (A == "--code-object-version") {
      const std::string *V = Next();
      if (!V)
        return 2;
      if (*V != "4" && *V != "5" && *V != "6") {
        printError("--code-object-version takes 4, 5 or 6");
        return 2;
      }
      CG.CodeObjectVersion = std::stoi(*V);
    } else if (A == "-o") {
      const std::string *V = Next();
      if (!V)
        return 2;
      Out = *V;
    } else if (A.size() > 1 && A[0] == '-') {
      printError(fmt::format("unknown option '{}' (see 'ptx2amd compile --help')", A));
      return 2;
    } else if (Input.empty()) {
      Input = A;
    } else {
      printError("compile takes one input");
      return 2;
    }
  }
  if (Input.empty() || Targets.empty()) {
    printError("compile needs an input and at least one --arch (see 'ptx2amd compile --help')");
    return 2;
  }
  auto Sources = loadSources(Input);
  if (!Sources) {
    printError(llvm::toString(Sources.takeError()));
    return 1;
  }
  if (Sources->empty()) {
    printError(fmt::format("'{}' holds no PTX", Input));
    return 1;
  }
  std::vector<Job> Jobs;
  std::string Stem = llvm::sys::path::stem(Input).str();
  for (size_t K = 0; K < Sources->size(); ++K)
    Jobs.push_back({Sources->size() == 1 ? Stem : fmt::format("{}.m{}", Stem, K), (*Sources)[K]});
  bool OneOutput = Jobs.size() == 1 && Targets.size() == 1;
  if (!OneOutput && !Out.empty())
    if (auto EC = llvm::sys::fs::create_directories(Out)) {
      printError(fmt::format("cannot create '{}': {}", Out, EC.message()));
      return 1;
    }
  const char *Ext = Emit == "llvm" ? "ll" : Emit == "asm" ? "s" : "hsaco";
  int Status = 0;
  for (const Job &J : Jobs) {
    // One read of the module serves every target: lowering does not change the PTX IR.
    auto M = ir::readModule(J.Source, {true, 1, true});
    if (!M) {
      llvm::errs() << llvm::toString(M.takeError()) << "\n";
      Status = 1;
      continue;
    }
    for (const amdgpu::Target *T : Targets) {
      lowering::TargetDesc Desc{std::string(T->Name), T->WaveSize, T->IsaVersion};
      auto L = lowering::lowerModule(**M, Desc);
      if (!L) {
        printError(llvm::toString(L.takeError()));
        Status = 1;
        continue;
      }
      for (const lowering::FunctionStatus &F : L->Functions) {
        if (F.Lowered || F.Diags.empty())
          continue;
        Status = 1;
        llvm::errs() << fmt::format("ptx2amd: warning: {} '{}' not translated for {}:\n",
                                    F.IsKernel ? "kernel" : "function", F.Name, T->Name);
        for (const ir::Diagnostic &D : F.Diags)
          llvm::errs() << "  " << D.str() << "\n";
      }
      std::string Path =
          OneOutput
              ? (Out.empty() ? fmt::format("{}.{}.{}", J.Stem, T->Name, Ext) : Out)
              : fmt::format("{}{}{}.{}.{}", Out, Out.empty() ? "" : "/", J.Stem, T->Name, Ext);
      std::error_code EC;
      llvm::raw_fd_ostream OS(Path, EC,
                              Emit == "obj" ? llvm::sys::fs::OF_None : llvm::sys::fs::OF_Text);
      if (EC) {
        printError(fmt::format("cannot write '{}': {}", Path, EC.message()));
        return 1;
      }
      if (Emit == "llvm") {
        L->Module->print(OS, nullptr);
        continue;
      }
      if (Emit == "asm") {
        auto Asm = amdgpu::compileToAssembly(*L->Module, *T, CG);
        if (!Asm) {
          printError(llvm::toString(Asm.takeError()));
          Status = 1;
          continue;
        }
        OS << *Asm;
        continue;
      }
      auto CO = amdgpu::compileToCodeObject(*L->Module, *T, CG);
      if (!CO) {
        printError(llvm::toString(CO.takeError()));
        Status = 1;
        continue;
      }
      OS.write(reinterpret_cast<const char *>(CO->Bytes.data()), CO->Bytes.size());
    }
  }
  return Status;
}

} // namespace ptx2amd::tool
