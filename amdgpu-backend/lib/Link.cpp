//===- Link.cpp - link relocatable AMDGPU objects with in-process lld ----===//
//
// The only translation unit that includes lld. lld's ELF driver keeps its state
// in process-wide globals (the CommonLinkerContext, the error handler, the
// llvm::parallel strategy), so lld as a library is NOT thread-safe: every call
// below holds LldMutex. lld cannot write its output to a memfd, so input and
// output go through temporary files that are always removed.
//
//===----------------------------------------------------------------------===//

#include "ptx2amd/amdgpu-backend/Codegen.h"
#include "ptx2amd/support/Error.h"

#include "lld/Common/Driver.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <mutex>

LLD_HAS_DRIVER(elf)

using namespace llvm;

namespace ptx2amd::amdgpu {

namespace {
std::mutex LldMutex;
/// Set when lld reports that it cannot safely run again in this process (after a
/// crash it recovered from); later links then fail instead of risking memory corruption.
std::atomic<bool> LldUnusable{false};

/// lld keeps one NT_AMDGPU_METADATA note per input object, and loaders read one: when a code
/// object was linked from several objects (parallel code generation), their notes become one
/// whose "amdhsa.kernels" lists every kernel. The merged note is smaller than the notes it
/// replaces (it holds the target and version once), so the note segment and section shrink in
/// place and nothing else moves.
Error mergeMetadataNotes(std::vector<uint8_t> &Bytes) {
  auto Read = [&](uint64_t Offset, auto &Out) -> bool {
    if (Offset + sizeof(Out) > Bytes.size())
      return false;
    std::memcpy(&Out, Bytes.data() + Offset, sizeof(Out));
    return true;
  };
  ELF::Elf64_Ehdr H;
  if (!Read(0, H))
    return makeError(ErrorKind::Internal, "linked code object: truncated ELF header");
  for (unsigned I = 0; I < H.e_phnum; ++I) {
    uint64_t PhOff = H.e_phoff + uint64_t(I) * H.e_phentsize;
    ELF::Elf64_Phdr P;
    if (!Read(PhOff, P))
      return makeError(ErrorKind::Internal, "linked code object: truncated program headers");
    if (P.p_type != ELF::PT_NOTE)
      continue;
    const uint64_t Align = P.p_align == 8 ? 8 : 4;
    if (P.p_offset + P.p_filesz > Bytes.size())
      return makeError(ErrorKind::Internal,
                       "linked code object: the note segment passes the end of the file");
    std::vector<StringRef> Metadata;
    std::vector<uint8_t> Others;
    for (uint64_t At = P.p_offset, End = P.p_offset + P.p_filesz; At < End;) {
      ELF::Elf64_Nhdr N;
      if (!Read(At, N) || At + sizeof(N) > End)
        return makeError(ErrorKind::Internal, "linked code object: a malformed note");
      uint64_t Name = At + sizeof(N), Desc = Name + alignTo(N.n_namesz, Align);
      uint64_t Next = Desc + alignTo(N.n_descsz, Align);
      if (Next > End)
        return makeError(ErrorKind::Internal,
                         "linked code object: a note passes the end of its segment");
      StringRef NoteName(reinterpret_cast<const char *>(Bytes.data() + Name),
                         N.n_namesz ? N.n_namesz - 1 : 0);
      if (NoteName == "AMDGPU" && N.n_type == ELF::NT_AMDGPU_METADATA)
        Metadata.push_back(
            StringRef(reinterpret_cast<const char *>(Bytes.data() + Desc), N.n_descsz));
      else
        Others.insert(Others.end(), Bytes.begin() + At, Bytes.begin() + Next);
      At = Next;
    }
    if (Metadata.size() < 2)
      continue;
    msgpack::Document Doc;
    // Maps merge key by key; "amdhsa.kernels" arrays append; anything else must agree.
    auto Merger = [](msgpack::DocNode *Dest, msgpack::DocNode Src, msgpack::DocNode Key) -> int {
      if (Src.isMap() && Dest->isMap())
        return 0;
      if (Src.isArray() && Dest->isArray())
        return Key.isString() && Key.getString() == "amdhsa.kernels" ? int(Dest->getArray().size())
                                                                     : 0;
      return Src == *Dest ? 0 : -1;
    };
    for (StringRef Blob : Metadata)
      if (!Doc.readFromBlob(Blob, /*Multi=*/false, Merger))
        return makeError(ErrorKind::Internal,
                         "linked code object: the objects' AMDGPU metadata notes do not merge "
                         "(another target or version, or malformed)");
    std::string Merged;
    Doc.writeToBlob(Merged);
    std::vector<uint8_t> Area;
    auto Append = [&](const void *Data, size_t N) {
      const uint8_t *B = static_cast<const uint8_t *>(Data);
      Area.insert(Area.end(), B, B + N);
      Area.resize(alignTo(Area.size(), Align));
    };
    ELF::Elf64_Nhdr N{7, uint32_t(Merged.size()), ELF::NT_AMDGPU_METADATA};
    Append(&N, sizeof(N));
    Append("AMDGPU", 7);
    Append(Merged.data(), Merged.size());
    Area.insert(Area.end(), Others.begin(), Others.end());
    if (Area.size() > P.p_filesz)
      return makeError(ErrorKind::Internal,
                       "linked code object: the merged metadata note does not fit");
    std::fill(Bytes.begin() + P.p_offset, Bytes.begin() + P.p_offset + P.p_filesz, 0);
    std::copy(Area.begin(), Area.end(), Bytes.begin() + P.p_offset);
    // The note section that the segment holds shrinks with it.
    for (unsigned K = 0; K < H.e_shnum; ++K) {
      uint64_t ShOff = H.e_shoff + uint64_t(K) * H.e_shentsize;
      ELF::Elf64_Shdr S;
      if (!Read(ShOff, S))
        return makeError(ErrorKind::Internal, "linked code object: truncated section headers");
      if (S.sh_type == ELF::SHT_NOTE && S.sh_offset == P.p_offset) {
        S.sh_size = Area.size();
        std::memcpy(Bytes.data() + ShOff, &S, sizeof(S));
      }
    }
    P.p_filesz = P.p_memsz = Area.size();
    std::memcpy(Bytes.data() + PhOff, &P, sizeof(P));
  }
  return Error::success();
}

} // namespace

Expected<std::vector<uint8_t>> linkCodeObject(ArrayRef<uint8_t> RelocatableObject,
                                              bool AllowUndefined) {
  const ArrayRef<uint8_t> One[] = {RelocatableObject};
  return linkCodeObject(ArrayRef<ArrayRef<uint8_t>>(One), AllowUndefined);
}

Expected<std::vector<uint8_t>> linkCodeObject(ArrayRef<ArrayRef<uint8_t>> RelocatableObjects,
                                              bool AllowUndefined) {
  std::vector<SmallString<128>> InPaths;
  // Not FileRemover by value: a vector's reallocation would remove the files it moves.
  std::vector<std::unique_ptr<FileRemover>> RemoveIns;
  for (ArrayRef<uint8_t> Object : RelocatableObjects) {
    SmallString<128> InPath;
    int InFD = -1;
    if (std::error_code EC = sys::fs::createTemporaryFile("ptx2amd-link", "o", InFD, InPath))
      return makeError(ErrorKind::Io,
                       "cannot create a temporary file for lld's input: " + EC.message());
    RemoveIns.push_back(std::make_unique<FileRemover>(InPath));
    raw_fd_ostream OS(InFD, /*shouldClose=*/true);
    OS.write(reinterpret_cast<const char *>(Object.data()), Object.size());
    OS.close();
    if (OS.has_error()) {
      std::error_code EC = OS.error();
      OS.clear_error();
      return makeError(ErrorKind::Io, "cannot write lld's input " + InPath + ": " + EC.message());
    }
    InPaths.push_back(std::move(InPath));
  }
  SmallString<128> OutPath;
  if (std::error_code EC = sys::fs::createTemporaryFile("ptx2amd-link", "hsaco", OutPath))
    return makeError(ErrorKind::Io,
                     "cannot create a temporary file for lld's output: " + EC.message());
  FileRemover RemoveOut(OutPath);

  std::vector<const char *> Args = {"ld.lld", "-shared"};
  if (!AllowUndefined)
    Args.push_back("--no-undefined");
  for (SmallString<128> &In : InPaths)
    Args.push_back(In.c_str());
  Args.push_back("-o");
  Args.push_back(OutPath.c_str());
  std::string Out, Err;
  raw_string_ostream OutOS(Out), ErrOS(Err);
  lld::Result R;
  {
    // lld is not thread-safe (global linker context and error handler): one link at a time.
    std::lock_guard<std::mutex> Lock(LldMutex);
    if (LldUnusable)
      return makeError(ErrorKind::Internal,
                       "lld cannot run again in this process (an earlier link crashed)");
    R = lld::lldMain(Args, OutOS, ErrOS, {{lld::Gnu, &lld::elf::link}});
    if (!R.canRunAgain)
      LldUnusable = true;
  }
  if (R.retCode != 0) {
    // Name the inputs by what they are, not by their random temporary paths.
    std::string Text = StringRef(Err).trim().str();
    for (const SmallString<128> &In : InPaths)
      for (size_t Pos; (Pos = Text.find(In.str())) != std::string::npos;)
        Text.replace(Pos, In.size(), "<relocatable object>");
    StringRef Msg = Text;
    return makeError(ErrorKind::Internal, "lld failed (exit code " + Twine(R.retCode) + "): " +
                                              (Msg.empty() ? StringRef("no message") : Msg));
  }

  auto Buf = MemoryBuffer::getFile(OutPath, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!Buf)
    return makeError(ErrorKind::Io,
                     "cannot read lld's output " + OutPath + ": " + Buf.getError().message());
  StringRef B = (*Buf)->getBuffer();
  std::vector<uint8_t> Linked(B.bytes_begin(), B.bytes_end());
  if (RelocatableObjects.size() > 1)
    if (Error E = mergeMetadataNotes(Linked))
      return E;
  return Linked;
}

} // namespace ptx2amd::amdgpu
