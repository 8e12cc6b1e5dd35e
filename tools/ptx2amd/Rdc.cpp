// Relocatable device code (nvcc -rdc) in the command line: `check` and `compile` see the per-TU
// PTX modules of a registration unit linked into one, as the runtime translates them.
#include "Commands.h"

#include "ptx2amd/fatbin/AllPtx.h"
#include "ptx2amd/fatbin/Select.h"
#include "ptx2amd/loader/ModuleLoader.h"

#include <fmt/format.h>
#include <llvm/ADT/STLExtras.h>
#include <llvm/Support/MemoryBuffer.h>

namespace ptx2amd::tool {

llvm::Expected<std::vector<RdcModule>> linkRdcModules(llvm::MemoryBufferRef Bytes) {
  std::vector<RdcModule> Out;
  fatbin::ReadOptions Opts;
  Opts.Name = Bytes.getBufferIdentifier().str();
  auto F = fatbin::Fatbin::parse(Bytes, Opts);
  if (!F) {
    // Not a binary, or a broken one: reading its PTX says what is wrong.
    llvm::consumeError(F.takeError());
    return Out;
  }
  for (const fatbin::Module &U : F->modules()) {
    auto S = fatbin::selectForModule(*F, U);
    if (!S) {
      llvm::consumeError(S.takeError());
      continue;
    }
    if (!S->NeedsLinking)
      continue;
    auto L = loader::linkRdcUnit(*F, S->PTX, Opts.Name);
    if (!L)
      return L.takeError();
    RdcModule M{std::make_shared<const SourceText>(std::move(L->Name), std::move(L->Text)), {}};
    // Every PTX entry of the unit's containers, the selected ones and those of other
    // architectures alike: none of them is a module of its own.
    for (const fatbin::Entry &E : F->entries())
      if (E.Kind == fatbin::EntryKind::PTX && llvm::is_contained(U.Prelinked, E.Container))
        M.Parts.push_back(F->describe(E));
    Out.push_back(std::move(M));
  }
  return Out;
}

llvm::Expected<std::vector<std::shared_ptr<const SourceText>>>
loadLinkedSources(const std::string &Path) {
  auto Bytes = llvm::MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/false,
                                                  /*RequiresNullTerminator=*/false);
  if (!Bytes)
    return llvm::createStringError(Bytes.getError(), "cannot read '%s': %s", Path.c_str(),
                                   Bytes.getError().message().c_str());
  std::string Name = Path == "-" ? "<stdin>" : Path;
  llvm::MemoryBufferRef Ref((*Bytes)->getBuffer(), Name);
  auto Rdc = linkRdcModules(Ref);
  if (!Rdc)
    return Rdc.takeError();
  auto Texts = fatbin::readAllPtx(llvm::MemoryBuffer::getMemBuffer(Ref, false), Name);
  if (!Texts)
    return Texts.takeError();
  // Each linked module takes the place of its first part.
  std::vector<std::shared_ptr<const SourceText>> Out;
  std::vector<bool> Placed(Rdc->size());
  for (fatbin::PtxText &T : *Texts) {
    auto Group = llvm::find_if(
        *Rdc, [&](const RdcModule &M) { return llvm::is_contained(M.Parts, T.Name); });
    if (Group == Rdc->end()) {
      Out.push_back(std::make_shared<const SourceText>(std::move(T.Name), std::move(T.Text)));
    } else if (!Placed[Group - Rdc->begin()]) {
      Placed[Group - Rdc->begin()] = true;
      Out.push_back(Group->Linked);
    }
  }
  return Out;
}

} // namespace ptx2amd::tool
