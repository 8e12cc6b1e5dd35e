//===- Fatbin.cpp - CUDA fatbin reader ------------------------------------===//
//
// Container and entry walking, input format detection, cubin and PTX inputs,
// in-process wrappers. Host ELF specifics are in ElfReader.cpp, payload
// decompression in Payload.cpp.
//
//===----------------------------------------------------------------------===//
#include "Reader.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cstring>

using namespace llvm;

namespace ptx2amd::fatbin {

StringRef toString(EntryKind K) {
  switch (K) {
  case EntryKind::PTX:
    return "ptx";
  case EntryKind::ELF:
    return "elf";
  case EntryKind::LTOIR:
    return "ltoir";
  case EntryKind::Unknown:
    break;
  }
  return "unknown";
}

StringRef toString(Compression C) {
  switch (C) {
  case Compression::None:
    return "none";
  case Compression::LZ4:
    return "lz4";
  case Compression::Zstd:
    return "zstd";
  }
  return "none";
}

StringRef toString(InputFormat F) {
  switch (F) {
  case InputFormat::Wrapper:
    return "registered wrapper";
  case InputFormat::FatbinFile:
    return "fatbin";
  case InputFormat::Cubin:
    return "cubin";
  case InputFormat::HostELF:
    return "host ELF";
  case InputFormat::PTXText:
    return "PTX text";
  }
  return "unknown";
}

StringRef toString(ContainerOrigin O) {
  switch (O) {
  case ContainerOrigin::Wrapper:
    return "wrapper";
  case ContainerOrigin::Prelinked:
    return "prelinked";
  case ContainerOrigin::FatbinFile:
    return "file";
  case ContainerOrigin::Section:
    return "section";
  case ContainerOrigin::WrapperTarget:
    return "wrapper-target";
  case ContainerOrigin::Scan:
    return "scan";
  case ContainerOrigin::Standalone:
    return "standalone";
  }
  return "unknown";
}

Compression Entry::compression() const {
  // The zstd bit wins when both are set (fatbin-format.md §10 step 4).
  if (Flags & flags::CompressedZstd)
    return Compression::Zstd;
  if (Flags & flags::CompressedLZ4)
    return Compression::LZ4;
  return Compression::None;
}

std::string Entry::versionString() const {
  return std::to_string(versionMajor()) + "." + std::to_string(versionMinor());
}

StringRef Entry::archSuffix() const {
  if (Flags & flags::ArchSpecific)
    return "a";
  if (Flags & flags::FamilySpecific)
    return "f";
  return "";
}

std::string Entry::archName() const { return "sm_" + std::to_string(Arch) + archSuffix().str(); }

Fatbin::Fatbin() = default;
Fatbin::Fatbin(Fatbin &&) noexcept = default;
Fatbin &Fatbin::operator=(Fatbin &&) noexcept = default;
Fatbin::~Fatbin() = default;

std::string Fatbin::describe(const Entry &E) const {
  std::string S =
      Name + ": container " + std::to_string(E.Container) + " entry " + std::to_string(E.Index);
  if (InMemory && E.Container < Containers.size())
    S += " (container at 0x" +
         utohexstr(reinterpret_cast<uintptr_t>(Containers[E.Container].Address),
                   /*LowerCase=*/true) +
         ", entry at +0x" + utohexstr(E.Offset, /*LowerCase=*/true) + ")";
  else
    S += " (offset 0x" + utohexstr(E.Offset, /*LowerCase=*/true) + ")";
  return S;
}

//===----------------------------------------------------------------------===//
// Reader
//===----------------------------------------------------------------------===//

uint16_t Reader::rd16(ArrayRef<uint8_t> B, uint64_t Off) {
  return support::endian::read16le(B.data() + Off);
}
uint32_t Reader::rd32(ArrayRef<uint8_t> B, uint64_t Off) {
  return support::endian::read32le(B.data() + Off);
}
uint64_t Reader::rd64(ArrayRef<uint8_t> B, uint64_t Off) {
  return support::endian::read64le(B.data() + Off);
}

Error Reader::fail(uint64_t Off, const Twine &What) const {
  return createStringError(inconvertibleErrorCode(), Twine(Prefix) + ": offset 0x" +
                                                         utohexstr(Off, /*LowerCase=*/true) + ": " +
                                                         What);
}

static std::string hex(uint64_t V) { return "0x" + utohexstr(V, /*LowerCase=*/true); }

/// Cuts trailing NUL padding off a string field.
static StringRef trimNul(StringRef S) { return S.take_front(S.find('\0')); }

Expected<unsigned> Reader::parseContainer(ArrayRef<uint8_t> Buf, uint64_t Off, uint64_t Limit,
                                          ContainerOrigin Origin, StringRef Section) {
  // Limit is the end of the region the container may occupy (<= Buf.size()).
  LastWalkSteps = 0;
  Limit = std::min<uint64_t>(Limit, Buf.size());
  if (Off > Limit || Limit - Off < ContainerHeaderSize)
    return fail(Off, "truncated fatbin container header: 16 bytes needed, " +
                         Twine(Off > Limit ? 0 : Limit - Off) + " available");
  uint32_t Magic = rd32(Buf, Off);
  if (Magic != ContainerMagic)
    return fail(Off, "bad fatbin container magic " + hex(Magic) + " (expected 0xba55ed50)");
  uint16_t Version = rd16(Buf, Off + 4);
  uint16_t HdrSize = rd16(Buf, Off + 6);
  uint64_t FilesSize = rd64(Buf, Off + 8);
  if (Version != 1)
    return fail(Off, "unsupported fatbin container version " + Twine(Version) + " (expected 1)");
  if (HdrSize < ContainerHeaderSize)
    return fail(Off, "fatbin container header_size " + hex(HdrSize) +
                         " is smaller than the 16-byte header");
  if (HdrSize > Limit - Off)
    return fail(Off, "fatbin container header_size " + hex(HdrSize) + " runs past the end (" +
                         hex(Limit - Off) + " bytes available)");
  uint64_t Avail = Limit - Off - HdrSize;
  if (FilesSize > Avail)
    return fail(Off, "fatbin container files_size " + hex(FilesSize) +
                         " runs past the end of the " + (Section.empty() ? "input" : Section) +
                         " (" + hex(Avail) + " bytes available)");

  const size_t EntriesBefore = F.Entries.size();
  Container C;
  C.Index = F.Containers.size();
  C.Origin = Origin;
  C.Offset = F.InMemory ? 0 : Off;
  C.Address = Buf.data() + Off;
  C.Size = HdrSize + FilesSize;
  C.Version = Version;
  C.HeaderSize = HdrSize;
  C.Section = Section.str();
  C.FirstEntry = EntriesBefore;

  const uint64_t End = Off + HdrSize + FilesSize;
  uint64_t Pos = Off + HdrSize;
  unsigned Index = 0;
  auto Bail = [&](Error E) -> Error {
    F.Entries.resize(EntriesBefore);
    return E;
  };
  while (Pos < End) {
    ++LastWalkSteps;
    const uint64_t Left = End - Pos;
    const std::string Which =
        "entry " + std::to_string(Index) + " of the container at " + hex(Off) + ": ";
    if (Left < EntryHeaderMinSize)
      return Bail(fail(Pos, Which + "truncated entry header: 64 bytes needed, " + Twine(Left) +
                                " left in the container"));
    Entry E;
    E.Container = C.Index;
    E.Index = Index;
    E.Offset = F.InMemory ? Pos - Off : Pos;
    E.RawKind = rd16(Buf, Pos + 0x00);
    E.Version = rd16(Buf, Pos + 0x02);
    E.HeaderSize = rd32(Buf, Pos + 0x04);
    E.PaddedSize = rd64(Buf, Pos + 0x08);
    E.PayloadSize = rd32(Buf, Pos + 0x10);
    uint32_t OptsDesc = rd32(Buf, Pos + 0x14);
    E.CodeVersion = rd32(Buf, Pos + 0x18);
    E.Arch = rd32(Buf, Pos + 0x1c);
    uint32_t NameOff = rd32(Buf, Pos + 0x20);
    uint32_t NameLen = rd32(Buf, Pos + 0x24);
    E.Flags = rd64(Buf, Pos + 0x28);
    E.Reserved = rd64(Buf, Pos + 0x30);
    E.UncompressedSize = rd64(Buf, Pos + 0x38);

    if (E.Version != EntryHeaderVersion)
      return Bail(fail(Pos, Which + "unsupported entry header version " + hex(E.Version) +
                                " (expected 0x101)"));
    if (E.HeaderSize < EntryHeaderMinSize)
      return Bail(fail(Pos, Which + "entry header_size " + hex(E.HeaderSize) +
                                " is smaller than the 64-byte fixed header (it would overlap "
                                "the payload)"));
    if (E.HeaderSize > Left)
      return Bail(fail(Pos, Which + "entry header_size " + hex(E.HeaderSize) +
                                " runs past the container end (" + hex(Left) + " bytes left)"));
    if (E.PaddedSize > Left - E.HeaderSize)
      return Bail(fail(Pos, Which + "entry padded_size " + hex(E.PaddedSize) +
                                " runs past the container end (" + hex(Left - E.HeaderSize) +
                                " bytes left after the header)"));
    if (E.PayloadSize > E.PaddedSize)
      return Bail(fail(Pos, Which + "entry payload_size " + hex(E.PayloadSize) +
                                " exceeds its padded_size " + hex(E.PaddedSize)));
    // The identifier and options live in the header extension, after the
    // 64-byte fixed part; anything else would overlap the fixed fields or
    // the payload.
    auto InExt = [&](uint64_t O, uint64_t L) {
      return O >= EntryHeaderMinSize && O <= E.HeaderSize && L <= E.HeaderSize - O;
    };
    if ((NameOff || NameLen) && !InExt(NameOff, NameLen))
      return Bail(fail(Pos, Which + "identifier [" + hex(NameOff) + ", +" + hex(NameLen) +
                                ") lies outside the header extension [0x40, " + hex(E.HeaderSize) +
                                ")"));
    ArrayRef<uint8_t> Hdr = Buf.slice(Pos, E.HeaderSize);
    auto Str = [&](uint64_t O, uint64_t L) {
      return trimNul(StringRef(reinterpret_cast<const char *>(Hdr.data()) + O, L));
    };
    if (NameLen)
      E.Identifier = Str(NameOff, NameLen);
    if (OptsDesc) {
      if (!InExt(OptsDesc, 8))
        return Bail(fail(Pos, Which + "options descriptor at " + hex(OptsDesc) +
                                  " lies outside the header extension [0x40, " + hex(E.HeaderSize) +
                                  ")"));
      uint32_t OOff = rd32(Hdr, OptsDesc);
      uint32_t OLen = rd32(Hdr, OptsDesc + 4);
      if (OLen && !InExt(OOff, OLen))
        return Bail(fail(Pos, Which + "options [" + hex(OOff) + ", +" + hex(OLen) +
                                  ") lie outside the header extension [0x40, " + hex(E.HeaderSize) +
                                  ")"));
      if (OLen)
        E.Options = Str(OOff, OLen);
    }
    switch (E.RawKind) {
    case 1:
      E.Kind = EntryKind::PTX;
      break;
    case 2:
      E.Kind = EntryKind::ELF;
      break;
    case 8:
      E.Kind = EntryKind::LTOIR;
      break;
    default:
      E.Kind = EntryKind::Unknown;
      break;
    }
    E.Header = Hdr;
    const uint64_t PayloadAt = Pos + E.HeaderSize;
    const bool Compressed = E.Flags & (flags::CompressedZstd | flags::CompressedLZ4);
    E.Stored = Buf.slice(PayloadAt, Compressed ? E.PayloadSize : E.PaddedSize);
    F.Entries.push_back(E);
    Pos = PayloadAt + E.PaddedSize;
    ++Index;
  }
  C.NumEntries = Index;
  F.Containers.push_back(std::move(C));
  return F.Containers.size() - 1;
}

Error Reader::parseContainerSequence(ArrayRef<uint8_t> Buf, uint64_t Begin, uint64_t End,
                                     ContainerOrigin Origin, StringRef Section) {
  uint64_t Pos = Begin;
  while (Pos < End) {
    // Zero padding between or after containers is tolerated; the next
    // container then starts at an 8-byte boundary.
    if (rdSafe32(Buf, Pos, End) == 0) {
      uint64_t Z = Pos;
      while (Z < End && Buf[Z] == 0)
        ++Z;
      if (Z == End)
        break;
      if (Z % 8 != 0)
        return fail(Z, "unexpected data after zero padding in the " +
                           (Section.empty() ? StringRef("input") : Section) +
                           " (containers start 8-byte aligned)");
      Pos = Z;
      continue;
    }
    Expected<unsigned> Idx = parseContainer(Buf, Pos, End, Origin, Section);
    if (!Idx)
      return Idx.takeError();
    Pos += F.Containers[*Idx].Size;
  }
  return Error::success();
}

uint32_t Reader::rdSafe32(ArrayRef<uint8_t> B, uint64_t Off, uint64_t End) {
  if (Off > End || End - Off < 4)
    return Off < End ? B[Off] : 0; // only zero-ness matters for short tails
  return rd32(B, Off);
}

/// Sorts containers by offset (file inputs) and renumbers entries and modules.
void Reader::sortContainers() {
  const size_t N = F.Containers.size();
  std::vector<unsigned> Order(N);
  for (unsigned I = 0; I < N; ++I)
    Order[I] = I;
  std::sort(Order.begin(), Order.end(), [&](unsigned A, unsigned B) {
    const uint64_t OA = F.Containers[A].Offset, OB = F.Containers[B].Offset;
    return OA != OB ? OA < OB : A < B;
  });
  bool Sorted = true;
  for (unsigned I = 0; I < N; ++I)
    Sorted &= Order[I] == I;
  if (Sorted)
    return;
  std::vector<unsigned> NewIndex(N);
  std::vector<Container> Cs;
  std::vector<Entry> Es;
  Cs.reserve(N);
  Es.reserve(F.Entries.size());
  for (unsigned I = 0; I < N; ++I) {
    Container C = std::move(F.Containers[Order[I]]);
    NewIndex[Order[I]] = I;
    unsigned First = Es.size();
    for (unsigned J = 0; J < C.NumEntries; ++J) {
      Entry E = F.Entries[C.FirstEntry + J];
      E.Container = I;
      Es.push_back(E);
    }
    C.Index = I;
    C.FirstEntry = First;
    Cs.push_back(std::move(C));
  }
  F.Containers = std::move(Cs);
  F.Entries = std::move(Es);
  for (Module &M : F.Modules) {
    if (M.MainContainer)
      M.MainContainer = NewIndex[*M.MainContainer];
    for (unsigned &P : M.Prelinked)
      P = NewIndex[P];
  }
}

//===----------------------------------------------------------------------===//
// Cubin and PTX text
//===----------------------------------------------------------------------===//

Error Reader::parseCubin(ArrayRef<uint8_t> Buf) {
  // e_ident: class @4, data @5, abiversion @8; e_flags @48 (ELF64).
  if (Buf.size() < 64)
    return fail(0, "truncated ELF header: 64 bytes needed, " + Twine(Buf.size()) + " available");
  if (Buf[4] != 2 || Buf[5] != 1)
    return fail(4, "unsupported cubin: only 64-bit little-endian ELF is read");
  F.Format = InputFormat::Cubin;
  uint8_t AbiVersion = Buf[8];
  uint32_t EFlags = rd32(Buf, 48);
  Entry E;
  E.Kind = EntryKind::ELF;
  E.RawKind = 2;
  E.Version = EntryHeaderVersion;
  E.CodeVersion = (1u << 16) | AbiVersion;
  // CUDA 13 cubins (ELF ABI version 8) keep the SM in bits 8..15 and set
  // 0x8 for 'a' targets; older ones keep it in bits 0..7 and set 0x800.
  bool Specific;
  if (AbiVersion >= 8) {
    E.Arch = (EFlags >> 8) & 0xff;
    Specific = EFlags & 0x8;
  } else {
    E.Arch = EFlags & 0xff;
    Specific = EFlags & 0x800;
  }
  E.Flags = flags::Is64Bit;
  if (Specific)
    E.Flags |= flags::ArchSpecific;
  // ptxas records its command line in .note.nv.tkinfo ("-arch sm_90a -m 64");
  // it tells 'a' and 'f' targets apart where e_flags do not.
  StringRef Text(reinterpret_cast<const char *>(Buf.data()), Buf.size());
  size_t At = Text.find("-arch sm_");
  if (At != StringRef::npos) {
    StringRef Tail = Text.substr(At + 9);
    size_t Digits = std::min(Tail.find_first_not_of("0123456789"), Tail.size());
    unsigned Sm = 0;
    if (Digits && !Tail.take_front(Digits).getAsInteger(10, Sm) && Sm == E.Arch &&
        Digits < Tail.size()) {
      if (Tail[Digits] == 'a')
        E.Flags |= flags::ArchSpecific;
      else if (Tail[Digits] == 'f')
        E.Flags |= flags::FamilySpecific;
    }
  }
  E.Stored = Buf;
  addStandalone(E, Buf);
  return Error::success();
}

void Reader::addStandalone(Entry E, ArrayRef<uint8_t> Buf) {
  Container C;
  C.Index = 0;
  C.Origin = ContainerOrigin::Standalone;
  C.Offset = 0;
  C.Address = Buf.data();
  C.Size = Buf.size();
  C.FirstEntry = 0;
  C.NumEntries = 1;
  E.Container = 0;
  E.Index = 0;
  E.Offset = 0;
  F.Containers.push_back(std::move(C));
  F.Entries.push_back(E);
}

/// Skips whitespace and comments; returns the position of the next token.
static size_t skipPTXTrivia(StringRef S, size_t I) {
  while (I < S.size()) {
    char C = S[I];
    if (C == ' ' || C == '\t' || C == '\r' || C == '\n' || C == '\f' || C == '\v') {
      ++I;
    } else if (S.substr(I).starts_with("//")) {
      size_t NL = S.find('\n', I);
      I = NL == StringRef::npos ? S.size() : NL + 1;
    } else if (S.substr(I).starts_with("/*")) {
      size_t EndC = S.find("*/", I + 2);
      if (EndC == StringRef::npos)
        return StringRef::npos;
      I = EndC + 2;
    } else {
      break;
    }
  }
  return I;
}

bool Reader::looksLikePTX(ArrayRef<uint8_t> Buf) {
  StringRef S(reinterpret_cast<const char *>(Buf.data()), Buf.size());
  S = S.take_front(S.find('\0'));
  if (S.starts_with("\xEF\xBB\xBF"))
    S = S.drop_front(3);
  size_t I = skipPTXTrivia(S, 0);
  if (I == StringRef::npos || I >= S.size())
    return false;
  // Every PTX module begins with a .version directive.
  StringRef Rest = S.substr(I);
  return Rest.starts_with(".version") && Rest.size() > 8 && (Rest[8] == ' ' || Rest[8] == '\t');
}

Error Reader::parsePTXText(ArrayRef<uint8_t> Buf) {
  F.Format = InputFormat::PTXText;
  StringRef S(reinterpret_cast<const char *>(Buf.data()), Buf.size());
  S = S.take_front(S.find('\0'));
  Entry E;
  E.Kind = EntryKind::PTX;
  E.RawKind = 1;
  E.Version = EntryHeaderVersion;
  // .version MAJOR.MINOR
  size_t V = S.find(".version");
  if (V != StringRef::npos) {
    StringRef T = S.substr(V + 8).ltrim(" \t");
    unsigned Major = 0, Minor = 0;
    StringRef MajorS = T.take_while(isDigit);
    T = T.drop_front(MajorS.size());
    if (!MajorS.empty() && T.consume_front(".")) {
      StringRef MinorS = T.take_while(isDigit);
      if (!MajorS.getAsInteger(10, Major) && !MinorS.getAsInteger(10, Minor) && Major < 0x10000 &&
          Minor < 0x10000)
        E.CodeVersion = Major << 16 | Minor;
    }
  }
  // .target sm_XX[a|f][, ...]
  size_t T = S.find(".target");
  if (T != StringRef::npos) {
    StringRef R = S.substr(T + 7).ltrim(" \t");
    if (R.consume_front("sm_")) {
      StringRef Num = R.take_while(isDigit);
      unsigned Sm = 0;
      if (!Num.empty() && !Num.getAsInteger(10, Sm)) {
        E.Arch = Sm;
        R = R.drop_front(Num.size());
        if (R.starts_with("a"))
          E.Flags |= flags::ArchSpecific;
        else if (R.starts_with("f"))
          E.Flags |= flags::FamilySpecific;
      }
    }
  }
  size_t A = S.find(".address_size");
  if (A == StringRef::npos || S.substr(A + 13).ltrim(" \t").starts_with("64"))
    E.Flags |= flags::Is64Bit;
  E.Stored = Buf;
  addStandalone(E, Buf);
  return Error::success();
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

Error Reader::parseBuffer(ArrayRef<uint8_t> Buf) {
  if (Buf.size() >= 4) {
    uint32_t Magic = rd32(Buf, 0);
    if (Magic == ContainerMagic) {
      F.Format = InputFormat::FatbinFile;
      return parseContainerSequence(Buf, 0, Buf.size(), ContainerOrigin::FatbinFile, "");
    }
    if (Magic == WrapperMagic)
      return fail(0, "this is a __fatBinC_Wrapper_t; its pointers are only meaningful in the "
                     "process that registered it (use Fatbin::fromWrapper there)");
    if (Buf[0] == 0x7f && Buf[1] == 'E' && Buf[2] == 'L' && Buf[3] == 'F')
      return parseELF(Buf);
  }
  if (looksLikePTX(Buf))
    return parsePTXText(Buf);
  if (Buf.size() < 4)
    return fail(0, "too short to be a CUDA binary (" + Twine(Buf.size()) + " bytes)");
  return fail(0, "not a CUDA binary: unrecognised magic " + hex(rd32(Buf, 0)) +
                     " (expected a fatbin container 0xba55ed50, an ELF file or PTX text)");
}

Expected<Fatbin> Fatbin::parse(MemoryBufferRef Buffer, ReadOptions Opts) {
  Fatbin F;
  F.Name = !Opts.Name.empty()                      ? Opts.Name
           : !Buffer.getBufferIdentifier().empty() ? Buffer.getBufferIdentifier().str()
                                                   : std::string("<buffer>");
  Reader R(F, Opts);
  ArrayRef<uint8_t> Buf(reinterpret_cast<const uint8_t *>(Buffer.getBufferStart()),
                        Buffer.getBufferSize());
  if (Error E = R.parseBuffer(Buf))
    return E;
  R.sortContainers();
  return F;
}

Expected<Fatbin> Fatbin::parse(std::unique_ptr<MemoryBuffer> Buffer, ReadOptions Opts) {
  if (!Buffer)
    return createStringError(inconvertibleErrorCode(), "null buffer");
  Expected<Fatbin> F = parse(Buffer->getMemBufferRef(), std::move(Opts));
  if (F)
    F->Owned = std::move(Buffer);
  return F;
}

Expected<Fatbin> Fatbin::open(StringRef Path, ReadOptions Opts) {
  ErrorOr<std::unique_ptr<MemoryBuffer>> MB =
      MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!MB)
    return createStringError(MB.getError(), Twine(Path) + ": " + MB.getError().message());
  if (Opts.Name.empty())
    Opts.Name = Path.str();
  return parse(std::move(*MB), std::move(Opts));
}

Expected<Fatbin> Fatbin::fromWrapper(const void *Wrapper, ReadOptions Opts) {
  Fatbin F;
  F.Format = InputFormat::Wrapper;
  F.InMemory = true;
  F.Name = !Opts.Name.empty()
               ? Opts.Name
               : "<registered fatbin at 0x" +
                     utohexstr(reinterpret_cast<uintptr_t>(Wrapper), /*LowerCase=*/true) + ">";
  auto Fail = [&](const Twine &What) {
    return createStringError(inconvertibleErrorCode(), Twine(F.Name) + ": " + What);
  };
  if (!Wrapper)
    return Fail("null fatbin wrapper pointer");
  // The wrapper: {int magic; int version; const void *data; void *fatbins;}
  uint8_t W[WrapperSize];
  std::memcpy(W, Wrapper, WrapperSize);
  ArrayRef<uint8_t> WB(W);
  uint32_t Magic = Reader::rd32(WB, 0);
  uint32_t Version = Reader::rd32(WB, 4);
  auto *Data = reinterpret_cast<const uint8_t *>(static_cast<uintptr_t>(Reader::rd64(WB, 8)));
  auto *List = reinterpret_cast<const uint8_t *>(static_cast<uintptr_t>(Reader::rd64(WB, 16)));
  if (Magic == ContainerMagic)
    return Fail("got a fatbin container where a __fatBinC_Wrapper_t was expected");
  if (Magic != WrapperMagic)
    return Fail("bad fatbin wrapper magic " + hex(Magic) + " (expected 0x466243b1)");
  if (Version != 1 && Version != 2)
    return Fail("unsupported fatbin wrapper version " + Twine(Version) + " (expected 1 or 2)");

  Reader R(F, Opts);
  Module M;
  M.Index = 0;
  M.WrapperVersion = Version;
  M.WrapperOffset = reinterpret_cast<uintptr_t>(Wrapper);
  // A container in memory: its extent comes from its own header.
  auto ParseAt = [&](const uint8_t *P, ContainerOrigin O) -> Expected<unsigned> {
    uint8_t H[ContainerHeaderSize];
    std::memcpy(H, P, sizeof H);
    ArrayRef<uint8_t> HB(H);
    R.Prefix = F.Name + ": container at 0x" +
               utohexstr(reinterpret_cast<uintptr_t>(P), /*LowerCase=*/true);
    if (Reader::rd32(HB, 0) != ContainerMagic)
      return R.fail(0, "bad fatbin container magic " + hex(Reader::rd32(HB, 0)) +
                           " (expected 0xba55ed50)");
    uint64_t Size = uint64_t(Reader::rd16(HB, 6)) + Reader::rd64(HB, 8);
    // Sanity bound: no real container comes near this.
    if (Reader::rd64(HB, 8) > (uint64_t(1) << 36))
      return R.fail(0, "implausible fatbin container files_size " + hex(Reader::rd64(HB, 8)));
    return R.parseContainer(ArrayRef<uint8_t>(P, Size), 0, Size, O, "");
  };
  if (Data) {
    Expected<unsigned> C = ParseAt(Data, ContainerOrigin::Wrapper);
    if (!C)
      return C.takeError();
    M.MainContainer = *C;
  }
  if (Version == 2 && List) {
    // NULL-terminated array of pointers to the per-TU containers.
    for (size_t I = 0;; ++I) {
      if (I >= (1u << 20))
        return Fail("prelinked fatbin list is not NULL-terminated within 2^20 elements");
      const void *Elem;
      std::memcpy(&Elem, List + I * sizeof(void *), sizeof(void *));
      if (!Elem)
        break;
      Expected<unsigned> C =
          ParseAt(static_cast<const uint8_t *>(Elem), ContainerOrigin::Prelinked);
      if (!C)
        return C.takeError();
      M.Prelinked.push_back(*C);
    }
  }
  F.Modules.push_back(std::move(M));
  return F;
}

} // namespace ptx2amd::fatbin
