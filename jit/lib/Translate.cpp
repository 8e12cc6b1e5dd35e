// PTX text -> code object, the sequence of the pipeline (read, lower, compile) with every outcome
// recorded per function and per kernel.
#include "ptx2amd/jit/Translate.h"

#include "ptx2amd/lowering/Lowering.h"
#include "ptx2amd/ptx-ir/Reader.h"

#include <fmt/format.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/ADT/SetVector.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/InstrTypes.h>
#include <llvm/IR/Instructions.h>
#include <llvm/Support/raw_ostream.h>

namespace ptx2amd::jit {
namespace {

constexpr unsigned LdsAddressSpace = 3;

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

/// Marks every kernel not translated because the module as a whole failed.
void failModule(Translation &T, ptx2amd_status Status, std::string Error, const std::string &Name) {
  T.Status = Status;
  T.Diagnostics += fmt::format("{}: error: {}\n", Name, Error);
  for (FunctionResult &F : T.Functions)
    if (F.translated()) {
      F.State = PTX2AMD_FUNCTION_MODULE_FAILED;
      F.Reason = Error;
    }
  for (KernelResult &K : T.Kernels)
    K.Metadata.reset();
  T.Error = std::move(Error);
}

} // namespace

Translation translate(std::shared_ptr<const SourceText> Source, const Options &Opts) {
  Translation T;
  T.Target = std::string(Opts.Target->Name);
  const std::string Name = Source->name();
  // Bodies are built lazily, by the lowering, one function at a time.
  auto M = ir::readModule(Source, {/*Lazy=*/true, /*Threads=*/1, /*Verify=*/true});
  if (!M) {
    T.Status = PTX2AMD_ERROR_INVALID_INPUT;
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
    failModule(T, PTX2AMD_ERROR_TRANSLATION_FAILED, llvm::toString(L.takeError()), Name);
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
    FunctionResult FR{F.Name, F.IsKernel,
                      F.Lowered ? PTX2AMD_FUNCTION_TRANSLATED : PTX2AMD_FUNCTION_FAILED,
                      joinDiags(F.Diags)};
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

  switch (Opts.Output) {
  case PTX2AMD_OUTPUT_LLVM_IR: {
    llvm::raw_string_ostream OS(T.Text);
    L->Module->print(OS, nullptr);
    T.HasText = true;
    return T;
  }
  case PTX2AMD_OUTPUT_ASSEMBLY: {
    auto Asm = amdgpu::compileToAssembly(*L->Module, Tgt, Opts.Codegen);
    if (!Asm) {
      failModule(T, PTX2AMD_ERROR_TRANSLATION_FAILED, llvm::toString(Asm.takeError()), Name);
      return T;
    }
    T.Text = std::move(*Asm);
    T.HasText = true;
    return T;
  }
  case PTX2AMD_OUTPUT_CODE_OBJECT:
    break;
  }

  auto CO = amdgpu::compileToCodeObject(*L->Module, Tgt, Opts.Codegen);
  if (!CO) {
    failModule(T, PTX2AMD_ERROR_TRANSLATION_FAILED, llvm::toString(CO.takeError()), Name);
    return T;
  }
  for (const std::string &W : CO->Warnings)
    T.Diagnostics += fmt::format("{}: warning: {}\n", Name, W);
  for (KernelResult &K : T.Kernels) {
    FunctionResult &F = T.Functions[K.Function];
    if (!F.translated())
      continue;
    auto It = llvm::find_if(CO->Kernels,
                            [&](const amdgpu::KernelMetadata &MD) { return MD.Name == F.Name; });
    if (It == CO->Kernels.end()) {
      // Left out by the backend (an undefined symbol, or code generation failed for it alone):
      // the others are in the code object.
      auto D = llvm::find_if(CO->Dropped,
                             [&](const amdgpu::DroppedKernel &DK) { return DK.Name == F.Name; });
      F.State = PTX2AMD_FUNCTION_LEFT_OUT;
      F.Reason = D == CO->Dropped.end() ? "missing from the code object" : D->Reason;
      T.Diagnostics +=
          fmt::format("{}: warning: kernel '{}' left out of the code object for {}: {}\n", Name,
                      F.Name, T.Target, F.Reason);
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

} // namespace ptx2amd::jit
