#include "ptx2amd/fatbin/AllPtx.h"

#include "ptx2amd/fatbin/Fatbin.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>

#include <unistd.h>

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

/// The toolkit's lib64: next to the real nvcc binary, or where `nvcc --dryrun` says it runs from.
std::string cudaToolkitLibDir() {
  if (const char *Env = std::getenv("CUDA_PATH"))
    return std::string(Env) + "/lib64";
  auto Nvcc = llvm::sys::findProgramByName("nvcc");
  if (!Nvcc)
    return "/usr/local/cuda/lib64";
  llvm::SmallString<256> Real;
  if (!llvm::sys::fs::real_path(*Nvcc, Real)) {
    std::string Lib =
        (llvm::sys::path::parent_path(llvm::sys::path::parent_path(Real)) + "/lib64").str();
    if (llvm::sys::fs::exists(Lib + "/libcudart.so"))
      return Lib;
  }
  // A wrapper script: ask nvcc where it lives (it prints `_HERE_=<bin dir>`).
  std::string Out = "/tmp/bench-corpus-nvcc-" + std::to_string(getpid());
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, llvm::StringRef(Out),
                                                llvm::StringRef(Out)};
  llvm::sys::ExecuteAndWait(*Nvcc,
                            {*Nvcc, "--dryrun", "-x", "cu", "-ptx", "/dev/null", "-o", "/dev/null"},
                            std::nullopt, Redirects);
  std::string Dir = "/usr/local/cuda/lib64";
  if (auto Buf = llvm::MemoryBuffer::getFile(Out)) {
    llvm::StringRef Text = (*Buf)->getBuffer();
    size_t At = Text.find("_HERE_=");
    if (At != llvm::StringRef::npos) {
      llvm::StringRef Here = Text.substr(At + 7).split('\n').first.trim();
      Dir = (llvm::sys::path::parent_path(Here) + "/lib64").str();
    }
  }
  llvm::sys::fs::remove(Out);
  return Dir;
}

llvm::Expected<std::vector<PtxText>> readAllPtx(const std::string &Path) {
  auto Buf = llvm::MemoryBuffer::getFileOrSTDIN(Path, /*IsText=*/false,
                                                /*RequiresNullTerminator=*/false);
  if (!Buf)
    return llvm::createStringError(Buf.getError(), "cannot read '%s': %s", Path.c_str(),
                                   Buf.getError().message().c_str());
  return readAllPtx(std::move(*Buf), Path == "-" ? "<stdin>" : Path);
}

llvm::Expected<std::vector<PtxText>> readAllPtx(std::unique_ptr<llvm::MemoryBuffer> Bytes,
                                                const std::string &Name) {
  if (!looksBinary(Bytes->getBuffer()))
    return std::vector<PtxText>{{Name, Bytes->getBuffer().str()}};
  ReadOptions Opts;
  Opts.Name = Name;
  auto F = Fatbin::parse(std::move(Bytes), Opts);
  if (!F)
    return F.takeError();
  std::vector<PtxText> Out;
  for (const Entry &E : F->entries()) {
    if (E.Kind != EntryKind::PTX || E.isOpaque())
      continue;
    auto Text = F->ptx(E);
    if (!Text)
      return Text.takeError();
    Out.push_back({F->describe(E), Text->text().str(), E.Arch});
  }
  return Out;
}

} // namespace ptx2amd::fatbin
