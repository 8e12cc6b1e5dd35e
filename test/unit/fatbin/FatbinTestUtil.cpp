//===- FatbinTestUtil.cpp - helpers for the fatbin tests ------------------===//
#include "FatbinTestUtil.h"

#include "llvm/Support/MemoryBuffer.h"

#include <lz4.h>
#include <zstd.h>

#include <cstring>
#include <fstream>
#include <sstream>

using namespace ptx2amd::fatbin;

namespace fbtest {

std::string cudaPath(llvm::StringRef Name) {
  return std::string(FATBIN_TEST_CUDA_DIR) + "/" + Name.str();
}

std::string readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  std::ostringstream S;
  S << In.rdbuf();
  return S.str();
}

std::string normalizePTX(llvm::StringRef PTX) {
  // Drop comments (not inside string literals: PTX has none worth keeping).
  std::string NoComments;
  for (size_t I = 0; I < PTX.size();) {
    if (PTX.substr(I).starts_with("//")) {
      size_t NL = PTX.find('\n', I);
      I = NL == llvm::StringRef::npos ? PTX.size() : NL;
    } else if (PTX.substr(I).starts_with("/*")) {
      size_t E = PTX.find("*/", I + 2);
      I = E == llvm::StringRef::npos ? PTX.size() : E + 2;
      NoComments += ' ';
    } else {
      NoComments += PTX[I++];
    }
  }
  std::string Out;
  llvm::StringRef Rest(NoComments);
  while (!Rest.empty()) {
    auto [Line, Tail] = Rest.split('\n');
    Rest = Tail;
    std::string L;
    bool Space = false;
    for (char C : Line.trim()) {
      if (C == ' ' || C == '\t' || C == '\r') {
        Space = true;
        continue;
      }
      if (Space && !L.empty())
        L += ' ';
      Space = false;
      L += C;
    }
    if (!L.empty())
      Out += L + "\n";
  }
  return Out;
}

std::string compressZstd(const std::string &Data) {
  std::string Out(ZSTD_compressBound(Data.size()), '\0');
  size_t N = ZSTD_compress(Out.data(), Out.size(), Data.data(), Data.size(), 3);
  Out.resize(ZSTD_isError(N) ? 0 : N);
  return Out;
}

std::string compressLZ4(const std::string &Data) {
  std::string Out(LZ4_compressBound(int(Data.size())), '\0');
  int N = LZ4_compress_default(Data.data(), Out.data(), int(Data.size()), int(Out.size()));
  Out.resize(N > 0 ? N : 0);
  return Out;
}

EntrySpec ptxEntry(const std::string &Text, Compression C, uint32_t Arch) {
  EntrySpec E;
  E.Kind = 1;
  E.Arch = Arch;
  std::string Raw = Text + std::string(1, '\0');
  if (C == Compression::Zstd) {
    E.Stored = compressZstd(Raw);
    E.Flags |= flags::CompressedZstd;
  } else if (C == Compression::LZ4) {
    E.Stored = compressLZ4(Raw);
    E.Flags |= flags::CompressedLZ4;
  } else {
    E.Stored = Raw;
  }
  if (C != Compression::None) {
    E.PayloadSize = uint32_t(E.Stored.size());
    E.UncompressedSize = Raw.size();
  }
  return E;
}

EntrySpec elfEntry(const std::string &Bytes, uint32_t Arch) {
  EntrySpec E;
  E.Kind = 2;
  E.Arch = Arch;
  E.CodeVersion = 0x00010008;
  E.Stored = Bytes;
  return E;
}

void put16(std::string &S, size_t Off, uint16_t V) { std::memcpy(&S[Off], &V, 2); }
void put32(std::string &S, size_t Off, uint32_t V) { std::memcpy(&S[Off], &V, 4); }
void put64(std::string &S, size_t Off, uint64_t V) { std::memcpy(&S[Off], &V, 8); }
uint32_t get32(const std::string &S, size_t Off) {
  uint32_t V;
  std::memcpy(&V, &S[Off], 4);
  return V;
}
uint64_t get64(const std::string &S, size_t Off) {
  uint64_t V;
  std::memcpy(&V, &S[Off], 8);
  return V;
}

static size_t align8(size_t N) { return (N + 7) & ~size_t(7); }

std::string buildEntry(const EntrySpec &E) {
  // Extension: identifier (NUL-padded to 8), options descriptor, options blob.
  std::string Ext;
  uint32_t NameOff = 0, NameLen = 0, OptsDesc = 0;
  if (!E.Identifier.empty()) {
    NameOff = 64;
    NameLen = uint32_t(align8(E.Identifier.size() + 1));
    Ext += E.Identifier;
    Ext.resize(NameLen, '\0');
  }
  if (!E.Options.empty()) {
    OptsDesc = uint32_t(64 + Ext.size());
    std::string Desc(8, '\0');
    put32(Desc, 0, OptsDesc + 8);
    put32(Desc, 4, uint32_t(E.Options.size()));
    Ext += Desc + E.Options;
    Ext.resize(align8(Ext.size()), '\0');
  }
  std::string H(64, '\0');
  H += Ext;
  uint32_t HeaderSize = E.HeaderSize.value_or(uint32_t(H.size()));
  std::string Payload = E.Stored;
  Payload.resize(align8(Payload.size()), '\0');
  uint64_t Padded = E.PaddedSize.value_or(Payload.size());
  put16(H, 0x00, E.Kind);
  put16(H, 0x02, E.Version);
  put32(H, 0x04, HeaderSize);
  put64(H, 0x08, Padded);
  put32(H, 0x10, E.PayloadSize);
  put32(H, 0x14, E.OptsDescOff.value_or(OptsDesc));
  put32(H, 0x18, E.CodeVersion);
  put32(H, 0x1c, E.Arch);
  put32(H, 0x20, E.NameOff.value_or(NameOff));
  put32(H, 0x24, E.NameLen.value_or(NameLen));
  put64(H, 0x28, E.Flags);
  put64(H, 0x30, E.Reserved);
  put64(H, 0x38, E.UncompressedSize);
  if (E.OptsOff || E.OptsLen) {
    uint32_t D = E.OptsDescOff.value_or(OptsDesc);
    if (D + 8 <= H.size()) {
      if (E.OptsOff)
        put32(H, D, *E.OptsOff);
      if (E.OptsLen)
        put32(H, D + 4, *E.OptsLen);
    }
  }
  return H + Payload;
}

std::string buildContainer(const std::vector<EntrySpec> &Entries, std::optional<uint64_t> FilesSize,
                           uint16_t Version, uint16_t HeaderSize) {
  std::string Body;
  for (const EntrySpec &E : Entries)
    Body += buildEntry(E);
  std::string H(16, '\0');
  put32(H, 0, ContainerMagic);
  put16(H, 4, Version);
  put16(H, 6, HeaderSize);
  put64(H, 8, FilesSize.value_or(Body.size()));
  return H + Body;
}

llvm::Expected<Fatbin> parseBytes(const std::string &Bytes, ReadOptions Opts) {
  return Fatbin::parse(llvm::MemoryBuffer::getMemBufferCopy(Bytes, "test-input"), std::move(Opts));
}

std::string parseError(const std::string &Bytes) {
  llvm::Expected<Fatbin> F = parseBytes(Bytes);
  if (F)
    return "";
  return llvm::toString(F.takeError());
}

std::string firstError(const std::string &Bytes) {
  llvm::Expected<Fatbin> F = parseBytes(Bytes);
  if (!F)
    return llvm::toString(F.takeError());
  for (const Entry &E : F->entries()) {
    llvm::Expected<Payload> P = F->payload(E);
    if (!P)
      return llvm::toString(P.takeError());
  }
  return "";
}

std::vector<SectionRef> sectionsOf(const std::string &ELF) {
  std::vector<SectionRef> Out;
  if (ELF.size() < 64)
    return Out;
  uint64_t ShOff = get64(ELF, 0x28);
  uint16_t ShEntSize, ShNum, ShStrNdx;
  std::memcpy(&ShEntSize, &ELF[0x3a], 2);
  std::memcpy(&ShNum, &ELF[0x3c], 2);
  std::memcpy(&ShStrNdx, &ELF[0x3e], 2);
  if (ShEntSize != 64 || ShOff + uint64_t(ShNum) * 64 > ELF.size() || ShStrNdx >= ShNum)
    return Out;
  uint64_t StrOff = get64(ELF, ShOff + ShStrNdx * 64 + 0x18);
  for (unsigned I = 0; I < ShNum; ++I) {
    uint64_t H = ShOff + I * 64;
    SectionRef S;
    S.HeaderOffset = H;
    S.NameOffset = uint32_t(StrOff + get32(ELF, H));
    S.Name = std::string(ELF.c_str() + S.NameOffset);
    S.Addr = get64(ELF, H + 0x10);
    S.Offset = get64(ELF, H + 0x18);
    S.Size = get64(ELF, H + 0x20);
    Out.push_back(S);
  }
  return Out;
}

const SectionRef *findSection(const std::vector<SectionRef> &S, llvm::StringRef Name) {
  for (const SectionRef &R : S)
    if (R.Name == Name)
      return &R;
  return nullptr;
}

} // namespace fbtest
