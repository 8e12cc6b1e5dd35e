//===- Codegen.cpp - optimise and generate AMDGPU code in-process ---------===//
//
// The LLVM-heavy translation unit of amdgpu-backend/ (pass builder, target
// machine, codegen). The lld step is in Link.cpp and the metadata reader in
// KernelMetadata.cpp.
//
//===----------------------------------------------------------------------===//

#include "ptx2amd/amdgpu-backend/Codegen.h"
#include "ptx2amd/support/Error.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/DiagnosticHandler.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <set>

using namespace llvm;

namespace ptx2amd::amdgpu {

namespace {

/// Registers the AMDGPU target with LLVM once per process. Only the AMDGPU
/// backend is registered; components that need others (the host backend)
/// register their own.
const llvm::Target *amdgpuLLVMTarget(std::string &Err) {
  static std::once_flag Once;
  std::call_once(Once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
    LLVMInitializeAMDGPUAsmParser(); // inline asm in kernels
  });
  return TargetRegistry::lookupTarget(Triple(AmdgpuTriple), Err);
}

CodeGenOptLevel codegenLevel(unsigned OptLevel) {
  switch (OptLevel) {
  case 0:
    return CodeGenOptLevel::None;
  case 1:
    return CodeGenOptLevel::Less;
  case 2:
    return CodeGenOptLevel::Default;
  default:
    return CodeGenOptLevel::Aggressive;
  }
}

OptimizationLevel irLevel(unsigned OptLevel) {
  switch (OptLevel) {
  case 0:
    return OptimizationLevel::O0;
  case 1:
    return OptimizationLevel::O1;
  case 2:
    return OptimizationLevel::O2;
  default:
    return OptimizationLevel::O3;
  }
}

Expected<std::unique_ptr<TargetMachine>> createTargetMachine(const Target &T,
                                                             const CodegenOptions &Opts) {
  std::string Err;
  const llvm::Target *LT = amdgpuLLVMTarget(Err);
  if (!LT)
    return makeError(ErrorKind::Internal, "AMDGPU backend not available in this LLVM: " + Err);
  TargetOptions TO;
  std::unique_ptr<TargetMachine> TM(
      LT->createTargetMachine(Triple(AmdgpuTriple), StringRef(T.Name.data(), T.Name.size()),
                              StringRef(T.Features.data(), T.Features.size()), TO, Reloc::PIC_,
                              std::nullopt, codegenLevel(Opts.OptLevel)));
  if (!TM)
    return makeError(ErrorKind::Internal,
                     "cannot create an AMDGPU target machine for " + StringRef(T.Name));
  return TM;
}

/// Collects the error and warning diagnostics that the optimiser and code
/// generator send to the module's LLVMContext. The default handler prints
/// errors and exits the process; this one lets us return them as an Error.
struct CollectingHandler : DiagnosticHandler {
  std::vector<std::string> Errors, Warnings;
  bool handleDiagnostics(const DiagnosticInfo &DI) override {
    DiagnosticSeverity S = DI.getSeverity();
    if (S != DS_Error && S != DS_Warning)
      return true;
    std::string Text;
    raw_string_ostream OS(Text);
    DiagnosticPrinterRawOStream DP(OS);
    DI.print(DP);
    // Diagnostics without a source location print as "<unknown>:0:0: ...".
    StringRef T = StringRef(Text).trim();
    T.consume_front("<unknown>:0:0: ");
    (S == DS_Error ? Errors : Warnings).push_back(T.str());
    return true;
  }
};

/// Installs a CollectingHandler on a context for its lifetime, then puts the
/// caller's handler back.
class DiagnosticScope {
public:
  explicit DiagnosticScope(LLVMContext &Ctx) : Ctx(Ctx), Saved(Ctx.getDiagnosticHandler()) {
    auto H = std::make_unique<CollectingHandler>();
    Handler = H.get();
    Ctx.setDiagnosticHandler(std::move(H), /*RespectFilters=*/true);
  }
  ~DiagnosticScope() { Ctx.setDiagnosticHandler(std::move(Saved), true); }
  DiagnosticScope(const DiagnosticScope &) = delete;
  DiagnosticScope &operator=(const DiagnosticScope &) = delete;

  /// An error made of every error diagnostic so far, or success.
  Error takeErrors(StringRef Stage) {
    if (Handler->Errors.empty())
      return Error::success();
    std::string Msg = (Stage + " failed:").str();
    for (const std::string &E : Handler->Errors)
      Msg += "\n  " + E;
    Handler->Errors.clear();
    return makeError(ErrorKind::Internal, Msg);
  }
  std::vector<std::string> takeWarnings() { return std::move(Handler->Warnings); }

private:
  LLVMContext &Ctx;
  std::unique_ptr<DiagnosticHandler> Saved;
  CollectingHandler *Handler;
};

Error prepareWith(Module &M, const Target &T, const CodegenOptions &Opts, TargetMachine &TM,
                  std::vector<DroppedKernel> *Dropped) {
  {
    std::string Text;
    raw_string_ostream OS(Text);
    if (verifyModule(M, &OS)) {
      StringRef Msg = StringRef(Text).rtrim();
      return makeError(ErrorKind::Internal,
                       "invalid LLVM module '" + M.getModuleIdentifier() +
                           "': " + (Msg.empty() ? StringRef("verifier failed") : Msg));
    }
  }
  const Triple &Old = M.getTargetTriple();
  if (!Old.str().empty() && Old.getArch() != Triple::amdgcn)
    return makeError(ErrorKind::BadInput, "module '" + M.getModuleIdentifier() + "' is for '" +
                                              Old.str() + "', not " + AmdgpuTriple);
  M.setTargetTriple(Triple(AmdgpuTriple));
  M.setDataLayout(TM.createDataLayout());
  M.setModuleFlag(Module::Error, "amdhsa_code_object_version", Opts.CodeObjectVersion * 100);
  if (Error E = linkDeviceLibraries(M, T, Opts.CodeObjectVersion))
    return E;
  if (Opts.DynamicSharedInGlobal)
    if (Error E = placeDynamicSharedInGlobal(M))
      return E;
  if (Opts.OutlineSoftwareTextures)
    for (Function &F : M)
      if (!F.isDeclaration() && isSoftwareTextureEntry(F.getName()))
        F.addFnAttr(Attribute::NoInline);
  std::vector<DroppedKernel> Unresolved = dropKernelsWithUnresolvedCalls(M, Opts.ExternalVariables);
  if (Dropped)
    Dropped->insert(Dropped->end(), Unresolved.begin(), Unresolved.end());
  return Error::success();
}

Error optimizeWith(Module &M, const CodegenOptions &Opts, TargetMachine &TM) {
  runDefaultPipeline(M, TM, Opts.OptLevel);
  return Error::success();
}

Error emitWith(Module &M, TargetMachine &TM, CodeGenFileType Kind, SmallVectorImpl<char> &Out) {
  raw_svector_ostream OS(Out);
  legacy::PassManager PM;
  if (TM.addPassesToEmitFile(PM, OS, nullptr, Kind))
    return makeError(ErrorKind::Internal, "the AMDGPU target machine cannot emit this file type");
  PM.run(M);
  return Error::success();
}

/// Target machine, diagnostics scope, prepare and optimise: the common start of
/// every entry point.
struct Session {
  std::unique_ptr<TargetMachine> TM;
  std::unique_ptr<DiagnosticScope> Diags;
};

/// How far startSession takes the module: an already optimised one only gets the session.
enum class Stage { None, Prepare, Optimize };

Expected<Session> startSession(Module &M, const Target &T, const CodegenOptions &Opts, Stage Upto,
                               std::vector<DroppedKernel> *Dropped = nullptr) {
  if (Error E = validateOptions(Opts))
    return E;
  Session S;
  auto TM = createTargetMachine(T, Opts);
  if (!TM)
    return TM.takeError();
  S.TM = std::move(*TM);
  S.Diags = std::make_unique<DiagnosticScope>(M.getContext());
  if (Upto == Stage::None)
    return S;
  if (Error E = prepareWith(M, T, Opts, *S.TM, Dropped))
    return joinErrors(std::move(E), S.Diags->takeErrors("linking"));
  if (Upto == Stage::Optimize) {
    if (Error E = optimizeWith(M, Opts, *S.TM))
      return E;
    if (Error E = S.Diags->takeErrors("optimisation for " + std::string(T.Name)))
      return E;
  }
  return S;
}

} // namespace

void runDefaultPipeline(Module &M, TargetMachine &TM, unsigned OptLevel) {
  LoopAnalysisManager LAM;
  FunctionAnalysisManager FAM;
  CGSCCAnalysisManager CGAM;
  ModuleAnalysisManager MAM;
  PassBuilder PB(&TM);
  PB.registerModuleAnalyses(MAM);
  PB.registerCGSCCAnalyses(CGAM);
  PB.registerFunctionAnalyses(FAM);
  PB.registerLoopAnalyses(LAM);
  PB.crossRegisterProxies(LAM, FAM, CGAM, MAM);
  OptimizationLevel L = irLevel(OptLevel);
  ModulePassManager MPM = L == OptimizationLevel::O0 ? PB.buildO0DefaultPipeline(L)
                                                     : PB.buildPerModuleDefaultPipeline(L);
  MPM.run(M, MAM);
}

Error validateOptions(const CodegenOptions &Opts) {
  if (Opts.OptLevel > 3)
    return makeError(ErrorKind::BadInput,
                     "invalid optimisation level " + Twine(Opts.OptLevel) + " (0..3)");
  if (Opts.CodeObjectVersion < 4 || Opts.CodeObjectVersion > 6)
    return makeError(ErrorKind::BadInput, "unsupported code object version " +
                                              Twine(Opts.CodeObjectVersion) + " (4, 5 or 6)");
  return Error::success();
}

Error prepareModule(Module &M, const Target &T, const CodegenOptions &Opts,
                    std::vector<DroppedKernel> *Dropped) {
  auto S = startSession(M, T, Opts, Stage::Prepare, Dropped);
  return S ? Error::success() : S.takeError();
}

bool isSoftwareTextureEntry(StringRef Name) {
  return Name.starts_with("__ptx2amd_tex_") || Name.starts_with("__ptx2amd_surface_");
}

Error optimizeModule(Module &M, const Target &T, const CodegenOptions &Opts,
                     std::vector<DroppedKernel> *Dropped) {
  auto S = startSession(M, T, Opts, Stage::Optimize, Dropped);
  return S ? Error::success() : S.takeError();
}

Expected<std::string> compileToAssembly(Module &M, const Target &T, const CodegenOptions &Opts) {
  if (Error E = optimizeModule(M, T, Opts))
    return E;
  return emitAssembly(M, T, Opts);
}

Expected<std::string> emitAssembly(Module &M, const Target &T, const CodegenOptions &Opts) {
  auto S = startSession(M, T, Opts, Stage::None);
  if (!S)
    return S.takeError();
  SmallString<0> Asm;
  if (Error E = emitWith(M, *S->TM, CodeGenFileType::AssemblyFile, Asm))
    return E;
  if (Error E = S->Diags->takeErrors("code generation for " + std::string(T.Name)))
    return E;
  return std::string(Asm.str());
}

namespace {
double msSince(std::chrono::steady_clock::time_point &Start) {
  auto Now = std::chrono::steady_clock::now();
  double Ms = std::chrono::duration<double, std::milli>(Now - Start).count();
  Start = Now;
  return Ms;
}
} // namespace

namespace {

/// The message of the fatal error that ended this thread's code generation attempt.
thread_local std::string FatalMessage;

/// LLVM reports IR it cannot select (and some other codegen failures) with
/// report_fatal_error, which exits the process. Inside a CrashRecoveryContext our
/// handler turns that into a failed attempt instead; elsewhere it keeps LLVM's
/// behaviour. Crashes (signals) inside the context are recovered the same way.
void installFatalErrorRecovery() {
  static std::once_flag Once;
  std::call_once(Once, [] {
    CrashRecoveryContext::Enable();
    install_fatal_error_handler([](void *, const char *Reason, bool) {
      if (CrashRecoveryContext *CRC = CrashRecoveryContext::GetCurrent()) {
        FatalMessage = Reason;
        CRC->HandleExit(1);
      }
      errs() << "LLVM ERROR: " << Reason << "\n";
    });
  });
}

/// Code generation of \p M into \p Obj in a recovery context: false (and the
/// reason in \p Why) when LLVM hit a fatal error or crashed; \p M is unusable then.
Expected<bool> emitObjectSafely(Module &M, TargetMachine &TM, SmallVectorImpl<char> &Obj,
                                std::string &Why) {
  installFatalErrorRecovery();
  FatalMessage.clear();
  std::optional<Error> Result;
  CrashRecoveryContext CRC;
  if (!CRC.RunSafely([&] { Result.emplace(emitWith(M, TM, CodeGenFileType::ObjectFile, Obj)); })) {
    if (Result)
      consumeError(std::move(*Result));
    Why = FatalMessage.empty() ? "LLVM crashed in code generation" : FatalMessage;
    return false;
  }
  if (*Result)
    return std::move(*Result);
  return true;
}

/// Deletes functions and variables nothing refers to any more (after kernels were removed), so
/// that a function only a removed kernel called is not compiled.
void removeUnreferenced(Module &M) {
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (Function &F : llvm::make_early_inc_range(M))
      if (F.hasLocalLinkage() && F.use_empty()) {
        F.eraseFromParent();
        Changed = true;
      }
    for (GlobalVariable &G : llvm::make_early_inc_range(M.globals()))
      if (G.hasLocalLinkage() && G.use_empty()) {
        G.eraseFromParent();
        Changed = true;
      }
  }
}

void eraseKernels(Module &M, function_ref<bool(const Function &)> Erase) {
  for (Function &F : llvm::make_early_inc_range(M))
    if (F.getCallingConv() == CallingConv::AMDGPU_KERNEL && !F.isDeclaration() && Erase(F)) {
      F.replaceAllUsesWith(PoisonValue::get(F.getType()));
      F.eraseFromParent();
    }
  removeUnreferenced(M);
}

/// How many partitions code generation of \p M runs on (1: no split), from the module and the
/// options only, so that the code object does not depend on the machine.
unsigned partitionCount(const Module &M, const CodegenOptions &Opts) {
  if (Opts.CodegenPartitions == 1)
    return 1;
  unsigned Kernels = 0;
  uint64_t Instructions = 0;
  for (const Function &F : M) {
    Kernels += F.getCallingConv() == CallingConv::AMDGPU_KERNEL && !F.isDeclaration();
    Instructions += F.getInstructionCount();
  }
  if (Opts.CodegenPartitions == 0) {
    if (Kernels < Opts.MinPartitionKernels)
      return 1;
    uint64_t BySize = Instructions / std::max(1u, Opts.PartitionInstructions);
    return unsigned(std::clamp<uint64_t>(BySize, 1, std::min(8u, Kernels)));
  }
  return std::max(1u, std::min(Opts.CodegenPartitions, Kernels));
}

/// Code generation of \p M on \p Parts partitions in parallel, each in its own LLVMContext, or
/// nothing when one of them failed (the caller then compiles the module whole, which isolates
/// the failing kernels). Everything a kernel reaches through internal symbols, its functions and
/// LDS variables included, is in its partition; the module's other functions are made internal
/// first (nothing outside the code object calls them), variables stay where SplitModule puts
/// them and are reached through the GOT as in a whole-module compile.
Expected<std::optional<std::vector<SmallString<0>>>>
emitPartitioned(const Module &M, const Target &T, const CodegenOptions &Opts, unsigned Parts,
                std::vector<std::string> &Warnings, unsigned &WithKernels) {
  std::unique_ptr<Module> Copy = CloneModule(M);
  for (Function &F : *Copy)
    if (!F.isDeclaration() && F.getCallingConv() != CallingConv::AMDGPU_KERNEL)
      F.setLinkage(GlobalValue::InternalLinkage);
  // LDS variables stay with the kernels that use them (LDS is allocated per kernel); other
  // variables need not cluster their users: hidden, they are reached PC-relative from any part.
  for (GlobalVariable &G : Copy->globals()) {
    if (G.isDeclaration())
      continue;
    if (G.getAddressSpace() == 3) {
      G.setLinkage(GlobalValue::InternalLinkage);
    } else if (G.hasLocalLinkage()) {
      if (!G.hasName())
        G.setName("__ptx2amd_unnamed"); // made unique by the module
      G.setLinkage(GlobalValue::ExternalLinkage);
      G.setVisibility(GlobalValue::HiddenVisibility);
    }
  }
  std::vector<SmallString<0>> Bitcode;
  SplitModule(
      *Copy, Parts,
      [&](std::unique_ptr<Module> Part) {
        WithKernels += llvm::any_of(*Part, [](const Function &F) {
          return F.getCallingConv() == CallingConv::AMDGPU_KERNEL && !F.isDeclaration();
        });
        Bitcode.emplace_back();
        raw_svector_ostream OS(Bitcode.back());
        WriteBitcodeToFile(*Part, OS);
      },
      /*PreserveLocals=*/true);

  struct Outcome {
    SmallString<0> Object;
    std::string Failure; ///< a fatal error or crash: fall back to the whole module
    std::optional<Error> Err;
    std::vector<std::string> Warnings;
  };
  std::vector<Outcome> Out(Bitcode.size());
  DefaultThreadPool Pool(hardware_concurrency(unsigned(Bitcode.size())));
  for (size_t I = 0; I < Bitcode.size(); ++I)
    Pool.async([&, I] {
      Outcome &O = Out[I];
      LLVMContext Ctx;
      DiagnosticScope Diags(Ctx);
      auto Part = parseBitcodeFile(MemoryBufferRef(Bitcode[I].str(), "partition"), Ctx);
      if (!Part) {
        O.Err = Part.takeError();
        return;
      }
      auto TM = createTargetMachine(T, Opts);
      if (!TM) {
        O.Err = TM.takeError();
        return;
      }
      Expected<bool> Ok = emitObjectSafely(**Part, **TM, O.Object, O.Failure);
      if (!Ok)
        O.Err = Ok.takeError();
      else if (*Ok)
        O.Err = Diags.takeErrors("code generation for " + std::string(T.Name));
      O.Warnings = Diags.takeWarnings();
    });
  Pool.wait();
  bool Failed = false;
  for (Outcome &O : Out) {
    if (O.Err && *O.Err) {
      Error E = std::move(*O.Err);
      for (Outcome &Other : Out)
        if (&Other != &O && Other.Err)
          consumeError(std::move(*Other.Err));
      return E;
    }
    if (O.Err)
      consumeError(std::move(*O.Err));
    Failed |= !O.Failure.empty();
    Warnings.insert(Warnings.end(), O.Warnings.begin(), O.Warnings.end());
  }
  if (Failed)
    return std::nullopt;
  std::vector<SmallString<0>> Objects;
  for (Outcome &O : Out)
    Objects.push_back(std::move(O.Object));
  return Objects;
}

/// The code object's metadata read back into \p CO, and checked against the target.
Expected<CodeObject> finishCodeObject(CodeObject CO, const Target &T, const CodegenOptions &Opts) {
  CO.Tgt = &T;
  CO.CodeObjectVersion = Opts.CodeObjectVersion;
  auto MD = readCodeObjectMetadata(CO.Bytes);
  if (!MD)
    return MD.takeError();
  if (MD->elfMach() != T.ElfMach || MD->codeObjectVersion() != Opts.CodeObjectVersion)
    return makeError(ErrorKind::Internal, "internal error: the code object for " +
                                              StringRef(T.Name) + " has e_flags 0x" +
                                              Twine::utohexstr(MD->Flags) + " and ABI version " +
                                              Twine(MD->AbiVersion) + ", not what was asked for");
  CO.Kernels = std::move(MD->Kernels);
  return CO;
}

} // namespace

Expected<CodeObject> compileToCodeObject(Module &M, const Target &T, const CodegenOptions &Opts) {
  std::vector<DroppedKernel> Dropped;
  auto Clock = std::chrono::steady_clock::now();
  if (Error E = optimizeModule(M, T, Opts, &Dropped))
    return E;
  double OptimizeMs = msSince(Clock);
  auto CO = emitCodeObject(M, T, Opts);
  if (!CO)
    return CO.takeError();
  CO->Times.OptimizeMs = OptimizeMs;
  CO->Dropped.insert(CO->Dropped.begin(), Dropped.begin(), Dropped.end());
  return CO;
}

Expected<CodeObject> emitCodeObject(Module &M, const Target &T, const CodegenOptions &Opts) {
  CodeObject CO;
  auto Clock = std::chrono::steady_clock::now();
  auto S = startSession(M, T, Opts, Stage::None);
  if (!S)
    return S.takeError();
  std::vector<std::string> PartitionWarnings;
  if (unsigned Parts = partitionCount(M, Opts); Parts > 1) {
    unsigned WithKernels = 0;
    auto Objects = emitPartitioned(M, T, Opts, Parts, PartitionWarnings, WithKernels);
    if (!Objects)
      return Objects.takeError();
    if (*Objects) {
      CO.Times.CodegenMs = msSince(Clock);
      std::vector<ArrayRef<uint8_t>> Inputs;
      for (const SmallString<0> &O : **Objects)
        Inputs.push_back(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(O.data()), O.size()));
      auto Linked = linkCodeObject(Inputs, Opts.ExternalVariables);
      if (!Linked)
        return Linked.takeError();
      CO.Bytes = std::move(*Linked);
      CO.Times.LinkMs = msSince(Clock);
      CO.Partitions = WithKernels;
      CO.Warnings = S->Diags->takeWarnings();
      CO.Warnings.insert(CO.Warnings.end(), PartitionWarnings.begin(), PartitionWarnings.end());
      return finishCodeObject(std::move(CO), T, Opts);
    }
  }
  // A copy to fall back on: a failed attempt leaves the module it compiled unusable.
  std::unique_ptr<Module> Intact = CloneModule(M);
  SmallString<0> Obj;
  std::string Why;
  Expected<bool> Emitted = emitObjectSafely(M, *S->TM, Obj, Why);
  if (!Emitted)
    return Emitted.takeError();
  if (!*Emitted) {
    // Find the kernels that fail on their own; compile the others together.
    std::set<std::string> Failing;
    for (Function &K : *Intact) {
      if (K.getCallingConv() != CallingConv::AMDGPU_KERNEL || K.isDeclaration())
        continue;
      std::unique_ptr<Module> One = CloneModule(*Intact);
      std::string Name = K.getName().str();
      eraseKernels(*One, [&](const Function &F) { return F.getName() != Name; });
      SmallString<0> Scratch;
      std::string OneWhy;
      Expected<bool> OneOk = emitObjectSafely(*One, *S->TM, Scratch, OneWhy);
      if (!OneOk)
        return OneOk.takeError();
      if (*OneOk)
        continue;
      Failing.insert(Name);
      CO.Dropped.push_back({Name, "code generation failed: " + OneWhy});
    }
    eraseKernels(*Intact, [&](const Function &F) { return Failing.count(F.getName().str()); });
    Obj.clear();
    Emitted = emitObjectSafely(*Intact, *S->TM, Obj, Why);
    if (!Emitted)
      return Emitted.takeError();
    if (!*Emitted)
      return makeError(ErrorKind::Internal,
                       "code generation for " + StringRef(T.Name) + " failed: " + Why);
  }
  if (Error E = S->Diags->takeErrors("code generation for " + std::string(T.Name)))
    return E;
  CO.Times.CodegenMs = msSince(Clock);
  CO.Warnings = S->Diags->takeWarnings();
  auto Linked =
      linkCodeObject(ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Obj.data()), Obj.size()),
                     Opts.ExternalVariables);
  if (!Linked)
    return Linked.takeError();
  CO.Bytes = std::move(*Linked);
  CO.Times.LinkMs = msSince(Clock);
  return finishCodeObject(std::move(CO), T, Opts);
}

} // namespace ptx2amd::amdgpu
