//===- DeviceLibraries.cpp - link device-library functions a module calls -===//
//
// The module's calls to `__ptx2amd_*` (the project's device library, per wave
// size) and `__ocml_*` / `__ockl_*` (ROCm's) are resolved from bitcode embedded
// in this library (see DeviceLibraries.S.in). Libraries are read lazily and
// linked with LinkOnlyNeeded, so only the called functions (and what they call)
// are materialised. ROCm's control variables (`__oclc_*`) are then defined for
// the target, and the linked functions made internal so that they inline and
// leave no symbols behind.
//
//===----------------------------------------------------------------------===//

#include "ptx2amd/amdgpu-backend/DeviceLibraries.h"
#include "ptx2amd/amdgpu-backend/Codegen.h"
#include "ptx2amd/support/Error.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"

#include <map>
#include <set>

extern "C" {
extern const char ptx2amd_device_wave32[], ptx2amd_device_wave32_end[];
extern const char ptx2amd_device_wave64[], ptx2amd_device_wave64_end[];
extern const char ptx2amd_rocm_ocml[], ptx2amd_rocm_ocml_end[];
extern const char ptx2amd_rocm_ockl[], ptx2amd_rocm_ockl_end[];
}

using namespace llvm;

namespace ptx2amd::amdgpu {
namespace {

struct Library {
  StringRef Name;
  StringRef Bitcode;
  StringRef Prefix; ///< the functions it provides
};

std::vector<Library> librariesFor(const Target &T) {
  auto Span = [](const char *B, const char *E) { return StringRef(B, E - B); };
  return {{"ptx2amd device library",
           T.WaveSize == 64 ? Span(ptx2amd_device_wave64, ptx2amd_device_wave64_end)
                            : Span(ptx2amd_device_wave32, ptx2amd_device_wave32_end),
           "__ptx2amd_"},
          {"ROCm ockl", Span(ptx2amd_rocm_ockl, ptx2amd_rocm_ockl_end), "__ockl_"},
          {"ROCm ocml", Span(ptx2amd_rocm_ocml, ptx2amd_rocm_ocml_end), "__ocml_"}};
}

/// Functions the module calls but does not define (intrinsics aside).
std::set<std::string> undefinedCallees(const Module &M) {
  std::set<std::string> Names;
  for (const Function &F : M)
    if (F.isDeclaration() && !F.isIntrinsic() && !F.use_empty())
      Names.insert(F.getName().str());
  return Names;
}

/// ROCm's control variables, as the target and our semantics want them.
void defineControlVariables(Module &M, const Target &T, unsigned CodeObjectVersion) {
  const std::map<StringRef, uint64_t> Values = {
      {"__oclc_ISA_version", T.IsaVersion},
      {"__oclc_wavefrontsize64", T.WaveSize == 64},
      {"__oclc_ABI_version", CodeObjectVersion * 100},
      {"__oclc_finite_only_opt", 0},
      {"__oclc_unsafe_math_opt", 0},
      {"__oclc_daz_opt", 0},
      {"__oclc_correctly_rounded_sqrt32", 1},
  };
  for (GlobalVariable &G : M.globals()) {
    auto It = Values.find(G.getName());
    if (It == Values.end() || !G.isDeclaration())
      continue;
    auto *IT = dyn_cast<IntegerType>(G.getValueType());
    if (!IT)
      continue;
    G.setInitializer(ConstantInt::get(IT, It->second));
    G.setConstant(true);
    G.setLinkage(GlobalValue::PrivateLinkage);
  }
}

} // namespace

uint64_t deviceLibrariesHash() {
  static const uint64_t Hash = [] {
    auto Bytes = [](const char *B, const char *E) {
      return ArrayRef(reinterpret_cast<const uint8_t *>(B), E - B);
    };
    uint64_t Parts[] = {xxh3_64bits(Bytes(ptx2amd_device_wave32, ptx2amd_device_wave32_end)),
                        xxh3_64bits(Bytes(ptx2amd_device_wave64, ptx2amd_device_wave64_end)),
                        xxh3_64bits(Bytes(ptx2amd_rocm_ocml, ptx2amd_rocm_ocml_end)),
                        xxh3_64bits(Bytes(ptx2amd_rocm_ockl, ptx2amd_rocm_ockl_end))};
    return xxh3_64bits(ArrayRef(reinterpret_cast<const uint8_t *>(Parts), sizeof(Parts)));
  }();
  return Hash;
}

Error linkDeviceLibraries(Module &M, const Target &T, unsigned CodeObjectVersion) {
  // A library may call into one after it (ours into ockl, ockl into ocml): one pass in order.
  for (const Library &L : librariesFor(T)) {
    std::set<std::string> Needed;
    for (const std::string &Name : undefinedCallees(M))
      if (StringRef(Name).starts_with(L.Prefix))
        Needed.insert(Name);
    if (Needed.empty())
      continue;
    auto Lib = getLazyBitcodeModule(MemoryBufferRef(L.Bitcode, L.Name), M.getContext());
    if (!Lib)
      return makeError(ErrorKind::Internal,
                       "cannot read the " + L.Name + ": " + toString(Lib.takeError()));
    // The library's module flags (code object version, wchar size, ...) are those of its own
    // build; the module's own flags stand.
    if (Error E = (*Lib)->materializeMetadata())
      return makeError(ErrorKind::Internal,
                       "cannot read the " + L.Name + ": " + toString(std::move(E)));
    if (NamedMDNode *Flags = (*Lib)->getModuleFlagsMetadata())
      (*Lib)->eraseNamedMetadata(Flags);
    (*Lib)->setDataLayout(M.getDataLayout());
    (*Lib)->setTargetTriple(M.getTargetTriple());
    std::set<std::string> Provided;
    for (Function &F : **Lib)
      if (Needed.count(F.getName().str()))
        Provided.insert(F.getName().str());
    if (Linker::linkModules(M, std::move(*Lib), Linker::Flags::LinkOnlyNeeded))
      return makeError(ErrorKind::Internal, "linking the " + L.Name + " failed");
    for (const std::string &Name : Provided)
      if (Function *F = M.getFunction(Name); F && !F->isDeclaration())
        F->setLinkage(GlobalValue::InternalLinkage);
    for (Function &F : M) // what the provided functions brought along
      if (!F.isDeclaration() && F.getName().starts_with("__o") &&
          (F.getName().starts_with("__ocml_") || F.getName().starts_with("__ockl_")))
        F.setLinkage(GlobalValue::InternalLinkage);
  }
  defineControlVariables(M, T, CodeObjectVersion);
  return Error::success();
}

std::vector<DroppedKernel> dropKernelsWithUnresolvedCalls(Module &M, bool ExternalVariables) {
  // Functions called and variables used that are declared but defined nowhere (dynamic shared
  // memory is an LDS declaration by design, and LDS is per workgroup, not linked).
  std::set<const GlobalValue *> Unresolved;
  for (Function &F : M)
    if (F.isDeclaration() && !F.isIntrinsic() && !F.use_empty())
      Unresolved.insert(&F);
  for (GlobalVariable &G : M.globals())
    if (G.isDeclaration() && G.getAddressSpace() != 3 && !G.use_empty() && !ExternalVariables)
      Unresolved.insert(&G);
  std::vector<DroppedKernel> Dropped;
  if (Unresolved.empty())
    return Dropped;
  // The unresolved symbols an instruction names, directly or inside constant expressions.
  auto Named = [&](const Instruction &I, const Function *&Callee) -> const GlobalValue * {
    const auto *Call = dyn_cast<CallBase>(&I);
    Callee = Call ? Call->getCalledFunction() : nullptr;
    SmallVector<const Value *, 8> Work(I.op_begin(), I.op_end());
    std::set<const Value *> Seen;
    while (!Work.empty()) {
      const Value *V = Work.pop_back_val();
      if (!Seen.insert(V).second)
        continue;
      if (const auto *GV = dyn_cast<GlobalValue>(V)) {
        if (Unresolved.count(GV))
          return GV;
      } else if (const auto *CE = dyn_cast<ConstantExpr>(V)) {
        Work.append(CE->op_begin(), CE->op_end());
      }
    }
    return nullptr;
  };
  // For every defined function, the first unresolved symbol it reaches.
  std::map<const Function *, const GlobalValue *> Reaches;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (Function &F : M) {
      if (F.isDeclaration() || Reaches.count(&F))
        continue;
      for (const BasicBlock &BB : F)
        for (const Instruction &I : BB) {
          const Function *Callee = nullptr;
          const GlobalValue *Missing = Named(I, Callee);
          if (!Missing && Callee)
            if (auto It = Reaches.find(Callee); It != Reaches.end())
              Missing = It->second;
          if (Missing && !Reaches.count(&F)) {
            Reaches[&F] = Missing;
            Changed = true;
          }
        }
    }
  }
  std::vector<Function *> Erase;
  for (auto &[F, Missing] : Reaches) {
    if (F->getCallingConv() == CallingConv::AMDGPU_KERNEL)
      Dropped.push_back({F->getName().str(), (isa<Function>(Missing) ? "it calls '" : "it uses '") +
                                                 Missing->getName().str() +
                                                 "', which is not defined in this module"});
    Erase.push_back(const_cast<Function *>(F));
  }
  for (Function *F : Erase)
    F->deleteBody();
  for (Function *F : Erase) {
    F->replaceAllUsesWith(PoisonValue::get(F->getType()));
    F->eraseFromParent();
  }
  std::sort(Dropped.begin(), Dropped.end(),
            [](const DroppedKernel &A, const DroppedKernel &B) { return A.Name < B.Name; });
  return Dropped;
}

} // namespace ptx2amd::amdgpu
