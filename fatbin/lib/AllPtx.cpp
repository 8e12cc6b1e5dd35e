#include "ptx2amd/fatbin/AllPtx.h"

#include "ptx2amd/fatbin/Fatbin.h"

#include <llvm/Support/MemoryBuffer.h>

namespace ptx2amd::fatbin {

namespace {
/// ELF, a fatbin container or a registration wrapper; anything else is taken as PTX text, so
/// that malformed text gets the PTX parser's located diagnostics.
bool looksBinary(llvm::StringRef Bytes) {
  return Bytes.starts_with("\x7f"
                           "ELF") ||
         Bytes.starts_with("\x50\xed\x55\xba") || Bytes.starts_with("\xb1\x43\x62\x46");
}
} // namespace

llvm::Expected<std::vector<PtxText>> readAllPtx(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/false,
                                                /*RequiresNullTerminator=*/false);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), "cannot read '%s': %s", Path.c_str(),
                                   Buf.getError().message().c_str());
  std::string Name = Path == "-" ? "<stdin>" : Path;
  if (!looksBinary((*Buf)->getBuffer()))
    return std::vector<PtxText>{{Name, (*Buf)->getBuffer().str()}};
  ReadOptions Opts;
  Opts.Name = Name;
  auto F = Fatbin::parse(std::move(*Buf), Opts);
  if (!F)
    return F.takeError();
  std::vector<PtxText> Out;
  for (const Entry &E : F->entries()) {
    if (E.Kind != EntryKind::PTX || E.isOpaque())
      continue;
    auto Text = F->ptx(E);
    if (!Text)
      return Text.takeError();
    Out.push_back({F->describe(E), Text->text().str()});
  }
  return Out;
}

} // namespace ptx2amd::fatbin
