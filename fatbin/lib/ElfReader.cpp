//===- ElfReader.cpp - containers inside host ELF files -------------------===//
//
// A host executable, shared library or object keeps fatbin containers in
// .nv_fatbin and __nv_relfatbin, and __fatBinC_Wrapper_t records in
// .nvFatBinSegment. Libraries also keep wrapper-less containers in other
// sections (.ldata, .rodata, .cask_resource), found by a validated scan.
//
//===----------------------------------------------------------------------===//
#include "Reader.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/ELF.h"
#include "llvm/Object/ELF.h"

#include <algorithm>
#include <map>

using namespace llvm;

namespace ptx2amd::fatbin {

namespace {
using ELFT = object::ELF64LE;
using ELFFile = object::ELFFile<ELFT>;

struct SectionInfo {
  StringRef Name;
  uint64_t Offset = 0;
  uint64_t Size = 0;
  uint32_t Type = 0;
  bool HasFileData = false; ///< not NOBITS, and within the file
};

constexpr StringLiteral FatbinSection = ".nv_fatbin";
constexpr StringLiteral RelFatbinSection = "__nv_relfatbin";
constexpr StringLiteral SegmentSection = ".nvFatBinSegment";

std::string hex(uint64_t V) { return "0x" + utohexstr(V, /*LowerCase=*/true); }
} // namespace

Error Reader::parseELF(ArrayRef<uint8_t> Buf) {
  if (Buf.size() < 20)
    return fail(0, "truncated ELF header (" + Twine(Buf.size()) + " bytes)");
  const uint16_t Machine = rd16(Buf, 18);
  if (Buf[4] != ELF::ELFCLASS64 || Buf[5] != ELF::ELFDATA2LSB)
    return fail(4, Twine(Machine == ELF::EM_CUDA ? "cubin" : "host ELF") +
                       ": only 64-bit little-endian ELF files are supported (class " +
                       Twine(unsigned(Buf[4])) + ", data " + Twine(unsigned(Buf[5])) + ")");
  if (Machine == ELF::EM_CUDA)
    return parseCubin(Buf);

  Expected<ELFFile> EFOrErr =
      ELFFile::create(StringRef(reinterpret_cast<const char *>(Buf.data()), Buf.size()));
  if (!EFOrErr)
    return fail(0, "malformed ELF file: " + toString(EFOrErr.takeError()));
  const ELFFile &EF = *EFOrErr;
  F.Format = InputFormat::HostELF;
  const auto &Ehdr = EF.getHeader();

  Expected<ELFFile::Elf_Shdr_Range> SecsOrErr = EF.sections();
  if (!SecsOrErr)
    return fail(Ehdr.e_shoff, "malformed ELF section headers: " + toString(SecsOrErr.takeError()));
  ELFFile::Elf_Shdr_Range Secs = *SecsOrErr;
  StringRef ShStrTab;
  if (!Secs.empty()) {
    Expected<StringRef> StrOrErr = EF.getSectionStringTable(Secs);
    if (!StrOrErr)
      return fail(Ehdr.e_shoff,
                  "malformed ELF section name table: " + toString(StrOrErr.takeError()));
    ShStrTab = *StrOrErr;
  }
  std::vector<SectionInfo> Infos;
  Infos.reserve(Secs.size());
  for (const auto &S : Secs) {
    SectionInfo I;
    Expected<StringRef> NameOrErr = EF.getSectionName(S, ShStrTab);
    if (NameOrErr)
      I.Name = *NameOrErr;
    else
      consumeError(NameOrErr.takeError());
    I.Offset = S.sh_offset;
    I.Size = S.sh_size;
    I.Type = S.sh_type;
    I.HasFileData = S.sh_type != ELF::SHT_NOBITS && S.sh_offset <= Buf.size() &&
                    S.sh_size <= Buf.size() - S.sh_offset;
    Infos.push_back(I);
  }
  // Sections with file data, by offset, to name the section of any offset.
  std::vector<const SectionInfo *> ByStart;
  for (const SectionInfo &I : Infos)
    if (I.HasFileData && I.Size)
      ByStart.push_back(&I);
  std::sort(ByStart.begin(), ByStart.end(),
            [](const SectionInfo *A, const SectionInfo *B) { return A->Offset < B->Offset; });
  auto SectionOf = [&](uint64_t Off) -> const SectionInfo * {
    auto It = std::upper_bound(ByStart.begin(), ByStart.end(), Off,
                               [](uint64_t O, const SectionInfo *S) { return O < S->Offset; });
    if (It == ByStart.begin())
      return nullptr;
    const SectionInfo *S = *(It - 1);
    return Off - S->Offset < S->Size ? S : nullptr;
  };

  // 1. .nv_fatbin and __nv_relfatbin: containers back to back.
  for (const SectionInfo &I : Infos) {
    Prefix = F.Name;
    if (I.Name != FatbinSection && I.Name != RelFatbinSection)
      continue;
    if (I.Type == ELF::SHT_NOBITS)
      continue;
    if (!I.HasFileData)
      return fail(I.Offset, "section " + I.Name + " [" + hex(I.Offset) + ", +" + hex(I.Size) +
                                ") runs past the end of the file (" + hex(Buf.size()) + " bytes)");
    Prefix = F.Name + ": section " + I.Name.str();
    if (Error E = parseContainerSequence(Buf, I.Offset, I.Offset + I.Size, ContainerOrigin::Section,
                                         I.Name))
      return E;
  }
  Prefix = F.Name;

  // Index of known containers by offset (for wrapper targets and the scan).
  std::map<uint64_t, unsigned> ByOffset;
  for (const Container &C : F.Containers)
    ByOffset[C.Offset] = C.Index;
  std::vector<unsigned> RelContainers;
  for (const Container &C : F.Containers)
    if (C.isRelocatable())
      RelContainers.push_back(C.Index);

  // 2. .nvFatBinSegment: wrappers. In executables and shared libraries the
  // data pointer is a VA; in objects it is 0 with a relocation.
  const bool IsObject = Ehdr.e_type == ELF::ET_REL;
  ELFFile::Elf_Phdr_Range Phdrs;
  if (!IsObject) {
    Expected<ELFFile::Elf_Phdr_Range> PhOrErr = EF.program_headers();
    if (!PhOrErr)
      return fail(Ehdr.e_phoff, "malformed ELF program headers: " + toString(PhOrErr.takeError()));
    Phdrs = *PhOrErr;
  }
  auto VAToOffset = [&](uint64_t VA) -> std::optional<uint64_t> {
    for (const auto &P : Phdrs)
      if (P.p_type == ELF::PT_LOAD && VA >= P.p_vaddr && VA - P.p_vaddr < P.p_filesz)
        return P.p_offset + (VA - P.p_vaddr);
    return std::nullopt;
  };

  for (size_t SI = 0; SI < Infos.size(); ++SI) {
    const SectionInfo &Seg = Infos[SI];
    if (Seg.Name != SegmentSection || Seg.Type == ELF::SHT_NOBITS)
      continue;
    if (!Seg.HasFileData)
      return fail(Seg.Offset, "section .nvFatBinSegment runs past the end of the file");
    if (Seg.Size % WrapperSize)
      return fail(Seg.Offset, "section .nvFatBinSegment size " + hex(Seg.Size) +
                                  " is not a multiple of the 24-byte wrapper");
    // Objects: section offset of each relocated field -> target file offset.
    std::map<uint64_t, std::optional<uint64_t>> RelocTargets;
    if (IsObject) {
      for (const auto &R : Secs) {
        if (R.sh_type != ELF::SHT_RELA || R.sh_info != SI)
          continue;
        Expected<ELFFile::Elf_Rela_Range> RelasOrErr = EF.relas(R);
        if (!RelasOrErr)
          return fail(R.sh_offset, "malformed relocations for .nvFatBinSegment: " +
                                       toString(RelasOrErr.takeError()));
        Expected<const ELFFile::Elf_Shdr *> SymTab = EF.getSection(R.sh_link);
        if (!SymTab)
          return fail(R.sh_offset,
                      "malformed relocation symbol table: " + toString(SymTab.takeError()));
        for (const auto &Rela : *RelasOrErr) {
          std::optional<uint64_t> Target;
          Expected<const ELFFile::Elf_Sym *> Sym = EF.getRelocationSymbol(Rela, *SymTab);
          if (!Sym)
            consumeError(Sym.takeError());
          else if (*Sym && (*Sym)->st_shndx != ELF::SHN_UNDEF &&
                   (*Sym)->st_shndx < ELF::SHN_LORESERVE && (*Sym)->st_shndx < Infos.size()) {
            const SectionInfo &T = Infos[(*Sym)->st_shndx];
            uint64_t In = (*Sym)->st_value + uint64_t(int64_t(Rela.r_addend));
            if (T.HasFileData && In < T.Size)
              Target = T.Offset + In;
          }
          RelocTargets[Rela.r_offset] = Target;
        }
      }
    }

    for (uint64_t W = 0; W < Seg.Size / WrapperSize; ++W) {
      const uint64_t Off = Seg.Offset + W * WrapperSize;
      const std::string Which = "wrapper " + std::to_string(W) + " in .nvFatBinSegment: ";
      uint32_t Magic = rd32(Buf, Off);
      uint32_t Version = rd32(Buf, Off + 4);
      uint64_t Data = rd64(Buf, Off + 8);
      if (Magic != WrapperMagic)
        return fail(Off, Which + "bad magic " + hex(Magic) + " (expected 0x466243b1)");
      if (Version != 1 && Version != 2)
        return fail(Off, Which + "unsupported version " + Twine(Version) + " (expected 1 or 2)");
      Module M;
      M.Index = F.Modules.size();
      M.WrapperVersion = Version;
      M.WrapperOffset = Off;
      std::optional<uint64_t> Target;
      if (IsObject) {
        auto It = RelocTargets.find(W * WrapperSize + 8);
        if (It != RelocTargets.end())
          Target = It->second;
        else if (Data)
          Target = Data; // no relocation: an absolute file offset is all we can assume
      } else if (Data) {
        Target = VAToOffset(Data);
      }
      if (!Target && (Data || IsObject))
        F.Notes.push_back(Prefix + ": offset " + hex(Off) + ": " + Which +
                          "data pointer could not be resolved to a file offset");
      if (Target) {
        auto It = ByOffset.upper_bound(*Target);
        std::optional<unsigned> Found;
        if (It != ByOffset.begin()) {
          --It;
          const Container &C = F.Containers[It->second];
          if (C.Offset == *Target)
            Found = C.Index;
          else if (*Target - C.Offset < C.Size)
            return fail(Off, Which + "data " + hex(*Target) + " points inside container " +
                                 Twine(C.Index) + " [" + hex(C.Offset) + ", +" + hex(C.Size) +
                                 ") instead of at its start");
        }
        if (!Found) {
          const SectionInfo *S = SectionOf(*Target);
          uint64_t Limit = S ? S->Offset + S->Size : Buf.size();
          // Never let the new container overlap the next known one.
          auto Next = ByOffset.upper_bound(*Target);
          if (Next != ByOffset.end())
            Limit = std::min(Limit, Next->first);
          Expected<unsigned> C = parseContainer(Buf, *Target, Limit, ContainerOrigin::WrapperTarget,
                                                S ? S->Name : StringRef());
          if (!C)
            return joinErrors(fail(Off, Which + "its data pointer leads to a bad container"),
                              C.takeError());
          ByOffset[*Target] = *C;
          Found = *C;
        }
        M.MainContainer = Found;
      }
      if (Version == 1) {
        // Per-TU wrappers of relocatable code are reached through the v2
        // wrapper's prelinked list, not registered themselves.
        M.Registered = !(M.MainContainer && F.Containers[*M.MainContainer].isRelocatable());
      } else {
        // The prelinked list lives in .bss; statically it is every
        // __nv_relfatbin container of this (linked) file.
        if (!IsObject)
          M.Prelinked = RelContainers;
        M.Registered = !M.Prelinked.empty();
      }
      F.Modules.push_back(std::move(M));
    }
  }

  // 3. Validated scan of the whole file for containers in other sections.
  if (Opts.ScanWholeFile) {
    std::vector<std::pair<uint64_t, uint64_t>> Known; // [begin, end)
    for (const Container &C : F.Containers)
      Known.emplace_back(C.Offset, C.Offset + C.Size);
    std::sort(Known.begin(), Known.end());
    size_t K = 0;
    // Work spent on rejected candidates is bounded so that a crafted file
    // cannot make the scan quadratic.
    uint64_t Budget = std::max<uint64_t>(1u << 20, Buf.size() / 8);
    uint64_t Off = 0;
    while (Buf.size() >= ContainerHeaderSize && Off <= Buf.size() - ContainerHeaderSize) {
      while (K < Known.size() && Known[K].second <= Off)
        ++K;
      if (K < Known.size() && Known[K].first <= Off) {
        Off = alignTo(Known[K].second, 8);
        continue;
      }
      if (rd32(Buf, Off) != ContainerMagic || rd16(Buf, Off + 4) != 1 ||
          rd16(Buf, Off + 6) != ContainerHeaderSize || rd64(Buf, Off + 8) < EntryHeaderMinSize ||
          Buf.size() - Off < ContainerHeaderSize + EntryHeaderMinSize ||
          rd16(Buf, Off + ContainerHeaderSize + 2) != EntryHeaderVersion) {
        Off += 8;
        continue;
      }
      uint64_t Limit = Buf.size();
      if (K < Known.size())
        Limit = Known[K].first; // must not overlap a known container
      const SectionInfo *S = SectionOf(Off);
      Expected<unsigned> C =
          parseContainer(Buf, Off, Limit, ContainerOrigin::Scan, S ? S->Name : StringRef());
      if (!C) {
        consumeError(C.takeError());
        uint64_t Cost = 1 + LastWalkSteps;
        if (Cost >= Budget) {
          F.Notes.push_back(F.Name + ": the container scan stopped at offset " + hex(Off) +
                            ": too many invalid candidates");
          break;
        }
        Budget -= Cost;
        Off += 8;
        continue;
      }
      Off = alignTo(Off + F.Containers[*C].Size, 8);
    }
  }
  return Error::success();
}

} // namespace ptx2amd::fatbin
