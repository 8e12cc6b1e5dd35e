// The whole translation of a PTX module to LLVM IR, in order.
#include "LoweringContext.h"

#include "ptx2amd/ptx-ir/Reader.h"

#include <fmt/format.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <set>

namespace ptx2amd::lowering {

void dropFunctionsWithFailedCallees(ModuleState &S) {
  auto Failed = [&](size_t K) {
    return S.PTX.Functions[K]->isDefinition() && !S.Status[K].Lowered;
  };
  llvm::DenseMap<llvm::Function *, size_t> IndexOf;
  for (size_t K = 0; K < S.Functions.size(); ++K)
    IndexOf[S.Functions[K]] = K;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t K = 0; K < S.Functions.size(); ++K) {
      if (!S.Status[K].Lowered)
        continue;
      for (llvm::BasicBlock &BB : *S.Functions[K])
        for (llvm::Instruction &I : BB)
          if (auto *Call = llvm::dyn_cast<llvm::CallInst>(&I)) {
            auto It = IndexOf.find(Call->getCalledFunction());
            if (It == IndexOf.end() || !Failed(It->second) || !S.Status[K].Lowered)
              continue;
            ir::Diagnostic D;
            D.File = S.PTX.Source->name();
            D.Loc = S.PTX.Functions[K]->Loc;
            D.Function = S.Status[K].Name;
            D.Message =
                fmt::format("calls '{}', which could not be translated", S.Status[It->second].Name);
            S.Status[K].Diags.push_back(std::move(D));
            S.Status[K].Lowered = false;
            Changed = true;
          }
    }
  }
  for (size_t K = 0; K < S.Functions.size(); ++K)
    if (Failed(K))
      S.Functions[K]->deleteBody();
  for (size_t K = 0; K < S.Functions.size(); ++K)
    if (Failed(K)) {
      S.Functions[K]->eraseFromParent();
      S.Functions[K] = nullptr;
    }
}

void collectExternalCallees(ModuleState &S) {
  llvm::DenseMap<llvm::Function *, size_t> IndexOf;
  for (size_t K = 0; K < S.Functions.size(); ++K)
    if (S.Functions[K])
      IndexOf[S.Functions[K]] = K;
  // Direct callees first, then their closure over the call graph.
  std::vector<std::vector<size_t>> Callees(S.Functions.size());
  std::vector<std::set<std::string>> Externals(S.Functions.size());
  for (size_t K = 0; K < S.Functions.size(); ++K) {
    if (!S.Functions[K] || !S.Status[K].Lowered)
      continue;
    for (llvm::BasicBlock &BB : *S.Functions[K])
      for (llvm::Instruction &I : BB)
        if (auto *Call = llvm::dyn_cast<llvm::CallInst>(&I)) {
          auto It = IndexOf.find(Call->getCalledFunction());
          if (It == IndexOf.end())
            continue;
          if (S.PTX.Functions[It->second]->isDefinition())
            Callees[K].push_back(It->second);
          else if (!It->first->getName().starts_with("__ptx2amd_")) // the device library's
            Externals[K].insert(S.Status[It->second].Name);
        }
  }
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (size_t K = 0; K < S.Functions.size(); ++K)
      for (size_t C : Callees[K])
        for (const std::string &Name : Externals[C])
          Changed |= Externals[K].insert(Name).second;
  }
  for (size_t K = 0; K < S.Functions.size(); ++K)
    S.Status[K].ExternalCallees.assign(Externals[K].begin(), Externals[K].end());
}

llvm::Expected<LoweredModule> lowerModule(ir::Module &M, const TargetDesc &Target) {
  ir::buildAll(M);
  LoweredModule Out;
  Out.Context = std::make_unique<llvm::LLVMContext>();
  Out.Module = std::make_unique<llvm::Module>(M.Source->name(), *Out.Context);
  Out.Module->setTargetTriple(llvm::Triple("amdgcn-amd-amdhsa"));
  ModuleState S{M, Target, *Out.Context, *Out.Module, {}, {}, {}, {}};

  // The passes, in order. Each is one file of lib/.
  declareFunctions(S); // Declarations.cpp: kernels (byref kernargs) and functions
  declareGlobals(S);   // Declarations.cpp: variables (initializers may name functions)
  planBarriers(S);     // LowerSync.cpp: which barrier ids need the LDS barrier
  lowerBodies(S);      // LowerBodies.cpp: instructions, one function at a time
  dropFunctionsWithFailedCallees(S); // Pipeline.cpp: a failed function fails its callers
  initBarrierState(S);               // LowerSync.cpp: kernels clear the LDS barriers first
  collectExternalCallees(S);         // Pipeline.cpp: what must be linked in before loading

  std::string Problems;
  llvm::raw_string_ostream OS(Problems);
  if (llvm::verifyModule(*Out.Module, &OS))
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "internal error: the lowered module does not verify:\n%s",
                                   Problems.c_str());
  Out.Functions = std::move(S.Status);
  return Out;
}

} // namespace ptx2amd::lowering
