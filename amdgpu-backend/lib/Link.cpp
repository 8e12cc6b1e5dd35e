//===- Link.cpp - link a relocatable AMDGPU object with in-process lld ----===//
//
// The only translation unit that includes lld. lld's ELF driver keeps its state
// in process-wide globals (the CommonLinkerContext, the error handler, the
// llvm::parallel strategy), so lld as a library is NOT thread-safe: every call
// below holds LldMutex. lld cannot write its output to a memfd, so input and
// output go through temporary files that are always removed.
//
//===----------------------------------------------------------------------===//

#include "ptx2amd/amdgpu-backend/Codegen.h"

#include "lld/Common/Driver.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <mutex>

LLD_HAS_DRIVER(elf)

using namespace llvm;

namespace ptx2amd::amdgpu {

namespace {
std::mutex LldMutex;
/// Set when lld reports that it cannot safely run again in this process (after a
/// crash it recovered from); later links then fail instead of risking memory corruption.
std::atomic<bool> LldUnusable{false};

Error makeError(const Twine &Msg) { return createStringError(inconvertibleErrorCode(), Msg); }
} // namespace

Expected<std::vector<uint8_t>> linkCodeObject(ArrayRef<uint8_t> RelocatableObject) {
  SmallString<128> InPath, OutPath;
  int InFD = -1;
  if (std::error_code EC = sys::fs::createTemporaryFile("ptx2amd-link", "o", InFD, InPath))
    return makeError("cannot create a temporary file for lld's input: " + EC.message());
  FileRemover RemoveIn(InPath);
  {
    raw_fd_ostream OS(InFD, /*shouldClose=*/true);
    OS.write(reinterpret_cast<const char *>(RelocatableObject.data()), RelocatableObject.size());
    OS.close();
    if (OS.has_error()) {
      std::error_code EC = OS.error();
      OS.clear_error();
      return makeError("cannot write lld's input " + InPath + ": " + EC.message());
    }
  }
  if (std::error_code EC = sys::fs::createTemporaryFile("ptx2amd-link", "hsaco", OutPath))
    return makeError("cannot create a temporary file for lld's output: " + EC.message());
  FileRemover RemoveOut(OutPath);

  const char *Args[] = {"ld.lld",       "-shared", "--no-undefined",
                        InPath.c_str(), "-o",      OutPath.c_str()};
  std::string Out, Err;
  raw_string_ostream OutOS(Out), ErrOS(Err);
  lld::Result R;
  {
    // lld is not thread-safe (global linker context and error handler): one link at a time.
    std::lock_guard<std::mutex> Lock(LldMutex);
    if (LldUnusable)
      return makeError("lld cannot run again in this process (an earlier link crashed)");
    R = lld::lldMain(Args, OutOS, ErrOS, {{lld::Gnu, &lld::elf::link}});
    if (!R.canRunAgain)
      LldUnusable = true;
  }
  if (R.retCode != 0) {
    // Name the input by what it is, not by its random temporary path.
    std::string Text = StringRef(Err).trim().str();
    for (size_t Pos; (Pos = Text.find(InPath.str())) != std::string::npos;)
      Text.replace(Pos, InPath.size(), "<relocatable object>");
    StringRef Msg = Text;
    return makeError("lld failed (exit code " + Twine(R.retCode) +
                     "): " + (Msg.empty() ? StringRef("no message") : Msg));
  }

  auto Buf = MemoryBuffer::getFile(OutPath, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf)
    return makeError("cannot read lld's output " + OutPath + ": " + Buf.getError().message());
  StringRef B = (*Buf)->getBuffer();
  return std::vector<uint8_t>(B.bytes_begin(), B.bytes_end());
}

} // namespace ptx2amd::amdgpu
