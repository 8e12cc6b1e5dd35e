// The translation pipeline in order: read, lower, expose the variables the host reads, link the
// device libraries and optimise, then AMDGPU codegen and link, or the optimised module for the
// host device. Every outcome is recorded per function and per kernel.
#include "ptx2amd/pipeline/Translate.h"

#include "ptx2amd/lowering/Lowering.h"
#include "ptx2amd/ptx-ir/Reader.h"

#include <fmt/format.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/ADT/SetVector.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/xxhash.h>

namespace ptx2amd::pipeline {
namespace {

constexpr unsigned GlobalAddressSpace = 1, LdsAddressSpace = 3, ConstantAddressSpace = 4;

/// `.extern .shared` arrays become external zero-sized LDS globals: their size comes at launch.
bool isDynamicLds(const llvm::GlobalVariable &G) {
  auto *AT = llvm::dyn_cast<llvm::ArrayType>(G.getValueType());
  return G.getAddressSpace() == LdsAddressSpace && G.isDeclaration() && AT &&
         AT->getNumElements() == 0;
}

/// The functions whose instructions use \p V, directly or through constant expressions.
void collectUsers(const llvm::Value *V, llvm::DenseSet<const llvm::Function *> &Out) {
  for (const llvm::User *U : V->users()) {
    if (auto *I = llvm::dyn_cast<llvm::Instruction>(U))
      Out.insert(I->getFunction());
    else if (llvm::isa<llvm::Constant>(U) && !llvm::isa<llvm::GlobalValue>(U))
      collectUsers(U, Out);
  }
}

/// Whether the kernel \p K, or a function it may call, uses dynamic LDS. Read from the lowered
/// module, before optimisation: the code object's metadata does not record it. An indirect call
/// may reach any function whose address is taken.
bool usesDynamicLds(const llvm::Function &K,
                    const llvm::DenseSet<const llvm::Function *> &UsesLds) {
  if (UsesLds.empty())
    return false;
  llvm::SetVector<const llvm::Function *> Work;
  Work.insert(&K);
  for (size_t N = 0; N < Work.size(); ++N) {
    const llvm::Function *F = Work[N];
    if (UsesLds.contains(F))
      return true;
    for (const llvm::BasicBlock &BB : *F)
      for (const llvm::Instruction &I : BB) {
        auto *CB = llvm::dyn_cast<llvm::CallBase>(&I);
        if (!CB)
          continue;
        if (const llvm::Function *Callee = CB->getCalledFunction()) {
          if (!Callee->isDeclaration())
            Work.insert(Callee);
        } else if (!CB->isInlineAsm()) {
          for (const llvm::Function &G : *F->getParent())
            if (!G.isDeclaration() && G.hasAddressTaken())
              Work.insert(&G);
        }
      }
  }
  return false;
}

std::string joinDiags(const std::vector<ir::Diagnostic> &Diags) {
  std::string S;
  for (const ir::Diagnostic &D : Diags)
    S += D.str() + "\n";
  return S;
}

/// The module's `.global` and `.const` variables keep their names and stay writable: the host
/// reads and writes them between launches (cudaMemcpyToSymbol), so the optimiser must neither
/// drop them nor fold their initial values into the code. Protected: the code reaches them
/// directly, not through the GOT.
void exposeGlobals(llvm::Module &M) {
  for (llvm::GlobalVariable &G : M.globals()) {
    unsigned AS = G.getAddressSpace();
    if ((AS != GlobalAddressSpace && AS != ConstantAddressSpace) || G.isDeclaration() ||
        !G.hasName() || G.getName().starts_with("__ptx2amd") || G.getName().starts_with("llvm.") ||
        G.hasGlobalUnnamedAddr())
      continue;
    G.setLinkage(llvm::GlobalValue::ExternalLinkage);
    G.setVisibility(llvm::GlobalValue::ProtectedVisibility);
    G.setConstant(false);
  }
}

/// Marks every kernel not translated because the module as a whole failed.
void failModule(Translation &T, Status Result, std::string Error, const std::string &Name) {
  T.Result = Result;
  T.Diagnostics += fmt::format("{}: error: {}\n", Name, Error);
  for (FunctionResult &F : T.Functions)
    if (F.translated()) {
      F.State = FunctionState::ModuleFailed;
      F.Reason = Error;
    }
  for (KernelResult &K : T.Kernels)
    K.Metadata.reset();
  T.Error = std::move(Error);
}

/// Records the kernels that \p Dropped lists as left out of the output, with the reason.
void leaveOut(Translation &T, const std::vector<amdgpu::DroppedKernel> &Dropped) {
  for (const amdgpu::DroppedKernel &D : Dropped)
    for (FunctionResult &F : T.Functions)
      if (F.IsKernel && F.Name == D.Name && F.translated()) {
        F.State = FunctionState::LeftOut;
        F.Reason = D.Reason;
        T.Diagnostics += fmt::format("{}: warning: kernel '{}' left out of the code object for "
                                     "{}: {}\n",
                                     T.Name, F.Name, T.Target, F.Reason);
      }
}

} // namespace

Translation::Translation() = default;
Translation::Translation(Translation &&) = default;
Translation &Translation::operator=(Translation &&) = default;
Translation::~Translation() = default;

std::string Translation::unavailableReason(const KernelResult &K) const {
  const FunctionResult &F = function(K);
  if (F.translated() && (K.Metadata || Module))
    return "";
  llvm::StringRef Reason = llvm::StringRef(F.Reason).trim();
  return Reason.empty() ? "not in the code object" : Reason.str();
}

llvm::Error Translation::moduleError() const {
  ErrorKind K = Result == Status::InvalidInput        ? ErrorKind::BadInput
                : Result == Status::TranslationFailed ? ErrorKind::Unsupported
                                                      : ErrorKind::Internal;
  return makeError(K, llvm::StringRef(Error.empty() ? Diagnostics : Error).trim());
}

uint64_t moduleHash(const llvm::Module &M) {
  llvm::SmallVector<char, 0> Bitcode;
  llvm::BitcodeWriter W(Bitcode);
  W.writeModule(M);
  W.writeSymtab();
  W.writeStrtab();
  return llvm::xxh3_64bits(
      llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(Bitcode.data()), Bitcode.size()));
}

Translation translate(std::shared_ptr<const SourceText> Source, const Options &Opts) {
  Translation T;
  T.Target = std::string(Opts.Target->Name);
  T.Name = Source->name();
  const std::string &Name = T.Name;
  // Bodies are built lazily, by the lowering, one function at a time.
  auto M = ir::readModule(Source, {/*Lazy=*/true, /*Threads=*/1, /*Verify=*/true});
  if (!M) {
    T.Result = Status::InvalidInput;
    T.Error = llvm::toString(M.takeError());
    T.Diagnostics = T.Error + "\n";
    return T;
  }
  for (const ir::Diagnostic &D : (*M)->Diags)
    T.Diagnostics += D.str() + "\n";

  const amdgpu::Target &Tgt = *Opts.Target;
  auto L = lowering::lowerModule(
      **M, {T.Target, Tgt.WaveSize, Tgt.IsaVersion, Opts.Codegen.CodeObjectVersion});
  if (!L) {
    failModule(T, Status::TranslationFailed, llvm::toString(L.takeError()), Name);
    return T;
  }

  llvm::DenseSet<const llvm::Function *> UsesLds;
  for (const llvm::GlobalVariable &G : L->Module->globals())
    if (isDynamicLds(G))
      collectUsers(&G, UsesLds);
  for (lowering::FunctionStatus &F : L->Functions) {
    // Declarations (`.extern .func`) are not the module's to translate.
    if (const ir::Function *IF = (*M)->function(F.Name); IF && !IF->isDefinition())
      continue;
    FunctionResult FR{F.Name,
                      F.IsKernel,
                      F.Lowered ? FunctionState::Translated : FunctionState::Failed,
                      joinDiags(F.Diags),
                      std::move(F.Diags),
                      std::move(F.ExternalCallees)};
    T.Diagnostics += FR.Reason;
    if (F.IsKernel) {
      KernelResult K;
      K.Function = T.Functions.size();
      if (const llvm::Function *LF = F.Lowered ? L->Module->getFunction(F.Name) : nullptr)
        K.UsesDynamicLds = usesDynamicLds(*LF, UsesLds);
      T.Kernels.push_back(std::move(K));
    }
    T.Functions.push_back(std::move(FR));
  }

  if (Opts.Out == Output::LoweredIr) {
    llvm::raw_string_ostream OS(T.Text);
    L->Module->print(OS, nullptr);
    T.HasText = true;
    return T;
  }

  llvm::Module &LM = *L->Module;
  exposeGlobals(LM);
  std::vector<amdgpu::DroppedKernel> Dropped;
  if (llvm::Error E = amdgpu::optimizeModule(LM, Tgt, Opts.Codegen, &Dropped)) {
    failModule(T, Status::TranslationFailed, llvm::toString(std::move(E)), Name);
    return T;
  }
  leaveOut(T, Dropped);
  if (Opts.OnOptimized)
    Opts.OnOptimized(LM);

  switch (Opts.Out) {
  case Output::LoweredIr:
    break;
  case Output::OptimizedModule:
    T.Module = std::move(L->Module);
    T.Context = std::move(L->Context);
    return T;
  case Output::Assembly: {
    auto Asm = amdgpu::emitAssembly(LM, Tgt, Opts.Codegen);
    if (!Asm) {
      failModule(T, Status::TranslationFailed, llvm::toString(Asm.takeError()), Name);
      return T;
    }
    T.Text = std::move(*Asm);
    T.HasText = true;
    return T;
  }
  case Output::CodeObject:
    if (Opts.SkipCodegen)
      return T;
    break;
  }

  auto CO = amdgpu::emitCodeObject(LM, Tgt, Opts.Codegen);
  if (!CO) {
    failModule(T, Status::TranslationFailed, llvm::toString(CO.takeError()), Name);
    return T;
  }
  for (const std::string &W : CO->Warnings)
    T.Diagnostics += fmt::format("{}: warning: {}\n", Name, W);
  leaveOut(T, CO->Dropped);
  for (KernelResult &K : T.Kernels) {
    FunctionResult &F = T.Functions[K.Function];
    if (!F.translated())
      continue;
    auto It = llvm::find_if(CO->Kernels,
                            [&](const amdgpu::KernelMetadata &MD) { return MD.Name == F.Name; });
    if (It == CO->Kernels.end()) {
      leaveOut(T, {{F.Name, "missing from the code object"}});
      continue;
    }
    K.ExplicitArgs =
        llvm::count_if(It->Args, [](const amdgpu::KernelArgMetadata &A) { return !A.isHidden(); });
    K.Metadata = std::move(*It);
  }
  T.CodeObject = std::move(CO->Bytes);
  T.HasCodeObject = true;
  return T;
}

} // namespace ptx2amd::pipeline
