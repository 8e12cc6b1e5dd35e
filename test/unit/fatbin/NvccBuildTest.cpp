//===- NvccBuildTest.cpp - the reader against binaries nvcc built ---------===//
#include "FatbinTestUtil.h"

#include "ptx2amd/fatbin/Fatbin.h"
#include "ptx2amd/fatbin/Select.h"

#include "llvm/Support/MemoryBuffer.h"

#include "llvm/ADT/StringExtras.h"

#include <catch2/catch.hpp>

#include <map>
#include <set>

using namespace ptx2amd::fatbin;
using namespace fbtest;

namespace {

Fatbin mustOpen(const std::string &Path, ReadOptions Opts = {}) {
  llvm::Expected<Fatbin> F = Fatbin::open(Path, std::move(Opts));
  if (!F)
    FAIL("cannot read " << Path << ": " << llvm::toString(F.takeError()));
  return std::move(*F);
}

Fatbin mustParse(const std::string &Bytes, ReadOptions Opts = {}) {
  llvm::Expected<Fatbin> F = parseBytes(Bytes, std::move(Opts));
  if (!F)
    FAIL(llvm::toString(F.takeError()));
  return std::move(*F);
}

std::string ptxText(const Fatbin &F, const Entry &E) {
  llvm::Expected<Payload> P = F.ptx(E);
  if (!P)
    FAIL(llvm::toString(P.takeError()));
  return P->text().str();
}

std::string refPTX(const char *Name) { return normalizePTX(readFile(cudaPath(Name))); }

unsigned countKind(llvm::ArrayRef<Entry> Es, EntryKind K) {
  unsigned N = 0;
  for (const Entry &E : Es)
    N += E.Kind == K;
  return N;
}

/// Every non-opaque payload decompresses to its recorded size; PTX is text
/// that starts (after blank lines) with .version.
void checkAllPayloads(const Fatbin &F) {
  for (const Entry &E : F.entries()) {
    INFO(F.describe(E));
    llvm::Expected<Payload> P = F.payload(E);
    if (E.isOpaque()) {
      REQUIRE_FALSE(bool(P));
      CHECK_THAT(llvm::toString(P.takeError()), Catch::Contains("opaque"));
      continue;
    }
    if (!P)
      FAIL(llvm::toString(P.takeError()));
    CHECK(P->size() == E.decompressedSize());
    if (E.Kind == EntryKind::ELF) {
      REQUIRE(P->size() >= 64);
      CHECK(P->text().starts_with("\x7f"
                                  "ELF"));
      CHECK(P->bytes()[18] == 190); // EM_CUDA
    }
    if (E.Kind == EntryKind::PTX) {
      llvm::Expected<Payload> T = F.ptx(E);
      REQUIRE(bool(T));
      CHECK(T->text().find('\0') == llvm::StringRef::npos);
      CHECK(T->text().ltrim().starts_with(".version"));
    }
  }
}

const Module *registeredV1(const Fatbin &F) {
  const Module *Found = nullptr;
  for (const Module &M : F.modules())
    if (M.Registered && M.WrapperVersion == 1) {
      REQUIRE(Found == nullptr);
      Found = &M;
    }
  REQUIRE(Found != nullptr);
  return Found;
}

/// The checks shared by the single-TU, non-rdc builds: one registered v1
/// wrapper whose container holds the PTX of kernels.cu; the v2 dlink wrapper
/// is not registered.
const Entry &checkSingleTU(const Fatbin &F, const char *RefPTX, Compression PTXCompression) {
  CHECK(F.format() == InputFormat::HostELF);
  for (const Container &C : F.containers())
    CHECK(C.Section == ".nv_fatbin");
  REQUIRE(F.modules().size() == 2);
  for (const Module &M : F.modules()) {
    REQUIRE(M.MainContainer.has_value());
    if (M.WrapperVersion == 2) {
      CHECK_FALSE(M.Registered);
      CHECK(M.Prelinked.empty());
    }
  }
  const Module *M = registeredV1(F);
  llvm::Expected<ModuleSelection> S = selectForModule(F, *M);
  if (!S)
    FAIL(llvm::toString(S.takeError()));
  REQUIRE(S->PTX.size() == 1);
  CHECK_FALSE(S->NeedsLinking);
  const Entry &E = *S->PTX.front();
  CHECK(E.Kind == EntryKind::PTX);
  CHECK(E.compression() == PTXCompression);
  CHECK(E.versionString() == "9.0");
  CHECK(E.is64Bit());
  CHECK(normalizePTX(ptxText(F, E)) == refPTX(RefPTX));
  checkAllPayloads(F);
  return E;
}

} // namespace

TEST_CASE("default nvcc build: sm_75 SASS + zstd PTX", "[fatbin][nvcc]") {
  Fatbin F = mustOpen(cudaPath("k_default"));
  REQUIRE(F.containers().size() == 2);
  const Entry &P = checkSingleTU(F, "ref_sm75.ptx", Compression::Zstd);
  CHECK(P.Arch == 75);
  CHECK(P.archName() == "sm_75");
  CHECK(P.Flags == 0x8011);
  CHECK(P.Identifier.empty());
  // The registered container: ELF sm_75 (uncompressed) + PTX.
  llvm::ArrayRef<Entry> Es = F.entries(F.containers()[P.Container]);
  REQUIRE(Es.size() == 2);
  CHECK(Es[0].Kind == EntryKind::ELF);
  CHECK(Es[0].Arch == 75);
  CHECK(Es[0].compression() == Compression::None);
  CHECK(Es[0].versionString() == "1.8");
  CHECK(Es[0].storedSize() == Es[0].PaddedSize);
  CHECK(P.storedSize() == P.PayloadSize);
  CHECK(P.decompressedSize() == P.UncompressedSize);
}

TEST_CASE("-cudart shared: wrapper VAs map through PT_LOAD", "[fatbin][nvcc]") {
  std::string Bytes = readFile(cudaPath("k_shared"));
  std::vector<SectionRef> Secs = sectionsOf(Bytes);
  const SectionRef *Seg = findSection(Secs, ".nvFatBinSegment");
  REQUIRE(Seg != nullptr);
  // The reason the mapping matters: here VA != file offset.
  CHECK(Seg->Addr != Seg->Offset);
  Fatbin F = mustOpen(cudaPath("k_shared"));
  checkSingleTU(F, "ref_sm75.ptx", Compression::Zstd);
  for (const Container &C : F.containers())
    CHECK(C.Origin == ContainerOrigin::Section);
}

TEST_CASE("--compress-mode=speed: LZ4 PTX", "[fatbin][nvcc]") {
  Fatbin F = mustOpen(cudaPath("k_lz4"));
  const Entry &P = checkSingleTU(F, "ref_sm75.ptx", Compression::LZ4);
  CHECK(P.Flags == 0x2011);
  CHECK(P.PayloadSize > 0);
  for (const Entry &E : F.entries())
    if (E.Kind == EntryKind::ELF)
      CHECK(E.compression() == Compression::None);
}

TEST_CASE("--compress-mode=none: uncompressed PTX is read in place", "[fatbin][nvcc]") {
  Fatbin F = mustOpen(cudaPath("k_none"));
  const Entry &P = checkSingleTU(F, "ref_sm75.ptx", Compression::None);
  CHECK(P.PayloadSize == 0);
  CHECK(P.UncompressedSize == 0);
  CHECK(P.storedSize() % 8 == 0);
  llvm::Expected<Payload> T = F.ptx(P);
  REQUIRE(bool(T));
  CHECK_FALSE(T->isOwned());
  CHECK(T->bytes().data() == P.Stored.data()); // zero-copy
  CHECK(T->size() < P.storedSize());           // cut at the first NUL
}

TEST_CASE("-Xfatbin -compress-all: SASS compressed too", "[fatbin][nvcc]") {
  Fatbin F = mustOpen(cudaPath("k_all"));
  checkSingleTU(F, "ref_sm75.ptx", Compression::Zstd);
  unsigned Elf = 0;
  for (const Entry &E : F.entries())
    if (E.Kind == EntryKind::ELF) {
      ++Elf;
      CHECK(E.compression() == Compression::Zstd);
      CHECK(E.UncompressedSize > E.PayloadSize);
    }
  CHECK(Elf >= 1);
}

TEST_CASE("-gencode PTX only", "[fatbin][nvcc]") {
  Fatbin F = mustOpen(cudaPath("k_ptxonly"));
  REQUIRE(F.containers().size() == 2);
  const Entry &P = checkSingleTU(F, "ref_c80.ptx", Compression::Zstd);
  CHECK(P.Arch == 80);
  CHECK(F.entries().size() == 1);
  // The nvlink dlink container of a PTX-only build is empty (files_size 0).
  unsigned Empty = 0;
  for (const Container &C : F.containers())
    if (C.NumEntries == 0) {
      ++Empty;
      CHECK(C.Size == 16);
    }
  CHECK(Empty == 1);
}

TEST_CASE("-gencode SASS only: selection explains how to rebuild", "[fatbin][nvcc]") {
  Fatbin F = mustOpen(cudaPath("k_sassonly"));
  CHECK(countKind(F.entries(), EntryKind::PTX) == 0);
  CHECK(countKind(F.entries(), EntryKind::ELF) == 2);
  checkAllPayloads(F);
  const Module *M = registeredV1(F);
  llvm::Expected<ModuleSelection> S = selectForModule(F, *M);
  REQUIRE_FALSE(bool(S));
  std::string Msg = llvm::toString(S.takeError());
  CHECK_THAT(Msg, Catch::Contains("k_sassonly"));
  CHECK_THAT(Msg, Catch::Contains("SASS for sm_80"));
  CHECK_THAT(Msg, Catch::Contains("-gencode arch=compute_80,code=compute_80"));
}

TEST_CASE("several -gencode: arch suffixes, LTO-IR and selection", "[fatbin][nvcc]") {
  Fatbin F = mustOpen(cudaPath("k_multi"));
  checkAllPayloads(F);
  const Module *M = registeredV1(F);
  REQUIRE(M->MainContainer);
  llvm::ArrayRef<Entry> Es = F.entries(F.containers()[*M->MainContainer]);
  std::map<std::string, const Entry *> Ptx, Sass;
  const Entry *Lto = nullptr;
  for (const Entry &E : Es) {
    if (E.Kind == EntryKind::PTX)
      Ptx[E.archName()] = &E;
    else if (E.Kind == EntryKind::ELF)
      Sass[E.archName()] = &E;
    else if (E.Kind == EntryKind::LTOIR)
      Lto = &E;
  }
  CHECK(Es.size() == 7);
  CHECK(Ptx.size() == 3);
  CHECK(Sass.size() == 3);
  for (const char *A : {"sm_80", "sm_90a", "sm_100f"}) {
    CHECK(Ptx.count(A) == 1);
    CHECK(Sass.count(A) == 1);
  }
  REQUIRE(Ptx.count("sm_90a"));
  CHECK(Ptx["sm_90a"]->isArchSpecific());
  CHECK(Ptx["sm_90a"]->Arch == 90);
  REQUIRE(Ptx.count("sm_100f"));
  CHECK(Ptx["sm_100f"]->isFamilySpecific());
  CHECK((Sass["sm_100f"]->Flags & flags::Sm100Blob) != 0);
  REQUIRE(Lto != nullptr);
  CHECK(Lto->RawKind == 8);
  CHECK(Lto->Arch == 90);
  CHECK(Lto->isOpaque());
  CHECK((Lto->Flags & flags::Opaque) != 0);
  llvm::Expected<Payload> LP = F.payload(*Lto);
  REQUIRE_FALSE(bool(LP));
  CHECK_THAT(llvm::toString(LP.takeError()), Catch::Contains("LTO-IR"));

  CHECK(normalizePTX(ptxText(F, *Ptx["sm_80"])) == refPTX("ref_c80.ptx"));
  CHECK(normalizePTX(ptxText(F, *Ptx["sm_90a"])) == refPTX("ref_c90a.ptx"));
  CHECK(normalizePTX(ptxText(F, *Ptx["sm_100f"])) == refPTX("ref_c100f.ptx"));

  auto Pick = [&](const SelectionPolicy &P) -> std::string {
    llvm::Expected<const Entry *> E = selectPTX(Es, P, "k_multi");
    if (!E)
      return "error: " + llvm::toString(E.takeError());
    return (*E)->archName();
  };
  CHECK(Pick(SelectionPolicy::highest()) == "sm_100f");
  CHECK(Pick(SelectionPolicy::atMost(120)) == "sm_100f");
  CHECK(Pick(SelectionPolicy::atMost(90)) == "sm_90a");
  CHECK(Pick(SelectionPolicy::atMost(89)) == "sm_80");
  CHECK(Pick(SelectionPolicy::atMost(80)) == "sm_80");
  SelectionPolicy Generic;
  Generic.AllowSpecific = false;
  CHECK(Pick(Generic) == "sm_80");
  std::string Err = Pick(SelectionPolicy::atMost(75));
  CHECK_THAT(Err, Catch::StartsWith("error: k_multi: no PTX entry for sm_75 or lower"));
  CHECK_THAT(Err, Catch::Contains("sm_90a"));
}

TEST_CASE("-G: debug flag, identifier and ptxas options", "[fatbin][nvcc]") {
  Fatbin F = mustOpen(cudaPath("k_debug"));
  const Entry &P = checkSingleTU(F, "ref_debug.ptx", Compression::Zstd);
  CHECK(P.isDebug());
  CHECK(P.Flags == 0x8013);
  CHECK_THAT(P.Identifier.str(), Catch::EndsWith("kernels.cu"));
  CHECK_THAT(P.Options.str(), Catch::Contains("-g"));
  for (const Entry &E : F.entries(F.containers()[P.Container]))
    if (E.Kind == EntryKind::ELF) {
      CHECK(E.isDebug());
      CHECK(E.compression() == Compression::Zstd);
    }
}

TEST_CASE("-rdc with two TUs: per-TU PTX grouped under the v2 wrapper", "[fatbin][nvcc]") {
  Fatbin F = mustOpen(cudaPath("rdc_prog"));
  checkAllPayloads(F);
  std::vector<const Container *> Linked, Rel;
  for (const Container &C : F.containers()) {
    if (C.Section == ".nv_fatbin")
      Linked.push_back(&C);
    else if (C.Section == "__nv_relfatbin")
      Rel.push_back(&C);
  }
  REQUIRE(Rel.size() == 2);
  REQUIRE(Linked.size() == 1);
  // The nvlink-linked container holds SASS only.
  CHECK(countKind(F.entries(*Linked[0]), EntryKind::PTX) == 0);
  CHECK(countKind(F.entries(*Linked[0]), EntryKind::ELF) == 1);

  const Module *V2 = nullptr;
  unsigned V1 = 0;
  for (const Module &M : F.modules()) {
    if (M.WrapperVersion == 2) {
      V2 = &M;
      continue;
    }
    ++V1;
    // The per-TU v1 wrappers point into __nv_relfatbin and are not registered.
    REQUIRE(M.MainContainer);
    CHECK(F.containers()[*M.MainContainer].isRelocatable());
    CHECK_FALSE(M.Registered);
  }
  CHECK(V1 == 2);
  REQUIRE(V2 != nullptr);
  CHECK(V2->Registered);
  REQUIRE(V2->MainContainer);
  CHECK(*V2->MainContainer == Linked[0]->Index);
  REQUIRE(V2->Prelinked.size() == 2);

  llvm::Expected<ModuleSelection> S = selectForModule(F, *V2);
  if (!S)
    FAIL(llvm::toString(S.takeError()));
  CHECK(S->NeedsLinking);
  REQUIRE(S->PTX.size() == 2);
  std::multiset<std::string> Got, Want{refPTX("ref_rdc_a.ptx"), refPTX("ref_rdc_b.ptx")};
  for (const Entry *E : S->PTX) {
    CHECK_THAT(E->Options.str(), Catch::Contains("--compile-only"));
    Got.insert(normalizePTX(ptxText(F, *E)));
  }
  CHECK(Got == Want);
}

TEST_CASE("shared library", "[fatbin][nvcc]") {
  Fatbin F = mustOpen(cudaPath("libkernels.so"));
  checkSingleTU(F, "ref_sm75.ptx", Compression::Zstd);
}

TEST_CASE("object files: wrapper data resolved through relocations", "[fatbin][nvcc]") {
  SECTION("nvcc -c") {
    Fatbin F = mustOpen(cudaPath("kernels.o"));
    REQUIRE(F.modules().size() == 1);
    const Module &M = F.modules()[0];
    CHECK(M.WrapperVersion == 1);
    CHECK(M.Registered);
    REQUIRE(M.MainContainer);
    CHECK(F.containers()[*M.MainContainer].Section == ".nv_fatbin");
    llvm::Expected<ModuleSelection> S = selectForModule(F, M);
    REQUIRE(bool(S));
    CHECK(normalizePTX(ptxText(F, *S->PTX[0])) == refPTX("ref_sm75.ptx"));
    checkAllPayloads(F);
  }
  SECTION("nvcc -dc") {
    Fatbin F = mustOpen(cudaPath("rdc_a.o"));
    REQUIRE(F.modules().size() == 1);
    const Module &M = F.modules()[0];
    REQUIRE(M.MainContainer);
    CHECK(F.containers()[*M.MainContainer].isRelocatable());
    CHECK_FALSE(M.Registered);
    llvm::Expected<ModuleSelection> S = selectForModule(F, M);
    REQUIRE(bool(S));
    CHECK(S->NeedsLinking);
    CHECK(normalizePTX(ptxText(F, *S->PTX[0])) == refPTX("ref_rdc_a.ptx"));
  }
  SECTION("nvcc -dlink") {
    Fatbin F = mustOpen(cudaPath("rdc_dlink.o"));
    REQUIRE(F.modules().size() == 1);
    CHECK(F.modules()[0].WrapperVersion == 2);
    CHECK(countKind(F.entries(), EntryKind::PTX) == 0);
    checkAllPayloads(F);
  }
}

TEST_CASE("bare .fatbin files, cubins and PTX files", "[fatbin][nvcc]") {
  const std::string Fatbin1 = readFile(cudaPath("keep_default/kernels.fatbin"));
  REQUIRE(Fatbin1.size() > 16);
  SECTION("one container") {
    Fatbin F = mustOpen(cudaPath("keep_default/kernels.fatbin"));
    CHECK(F.format() == InputFormat::FatbinFile);
    REQUIRE(F.containers().size() == 1);
    CHECK(F.containers()[0].Origin == ContainerOrigin::FatbinFile);
    CHECK(F.entries().size() == 2);
    llvm::Expected<const Entry *> E = selectPTX(F.entries(), {}, "kernels.fatbin");
    REQUIRE(bool(E));
    CHECK(normalizePTX(ptxText(F, **E)) == refPTX("ref_sm75.ptx"));
  }
  SECTION("containers back to back, and after zero padding") {
    Fatbin F = mustParse(Fatbin1 + Fatbin1 + std::string(8, '\0') + Fatbin1 + std::string(5, '\0'));
    REQUIRE(F.containers().size() == 3);
    CHECK(F.containers()[1].Offset == Fatbin1.size());
    CHECK(F.containers()[2].Offset == 2 * Fatbin1.size() + 8);
    CHECK(F.entries().size() == 6);
    CHECK(F.entries()[5].Container == 2);
    CHECK(F.entries()[5].Index == 1);
    checkAllPayloads(F);
  }
  SECTION("cubin") {
    Fatbin F = mustOpen(cudaPath("keep_default/kernels.sm_75.cubin"));
    CHECK(F.format() == InputFormat::Cubin);
    REQUIRE(F.entries().size() == 1);
    const Entry &E = F.entries()[0];
    CHECK(E.Kind == EntryKind::ELF);
    CHECK(E.Arch == 75);
    CHECK(E.versionString() == "1.8");
    CHECK(E.storedSize() == readFile(cudaPath("keep_default/kernels.sm_75.cubin")).size());
    llvm::Expected<const Entry *> S = selectPTX(F.entries(), {}, "kernels.sm_75.cubin");
    REQUIRE_FALSE(bool(S));
    CHECK_THAT(llvm::toString(S.takeError()),
               Catch::Contains("-gencode arch=compute_75,code=compute_75"));
  }
  SECTION("PTX text") {
    Fatbin F = mustOpen(cudaPath("ref_c90a.ptx"));
    CHECK(F.format() == InputFormat::PTXText);
    REQUIRE(F.entries().size() == 1);
    const Entry &E = F.entries()[0];
    CHECK(E.Kind == EntryKind::PTX);
    CHECK(E.archName() == "sm_90a");
    CHECK(E.versionString() == "9.0");
    CHECK(ptxText(F, E) == readFile(cudaPath("ref_c90a.ptx")));
  }
}

TEST_CASE("whole-file scan finds containers in other sections", "[fatbin][nvcc]") {
  std::string Bytes = readFile(cudaPath("k_default"));
  std::vector<SectionRef> Secs = sectionsOf(Bytes);
  const SectionRef *Fat = findSection(Secs, ".nv_fatbin");
  const SectionRef *Seg = findSection(Secs, ".nvFatBinSegment");
  REQUIRE(Fat != nullptr);
  REQUIRE(Seg != nullptr);
  // Rename the sections (same length) so only the scan can find the containers.
  Bytes[Fat->NameOffset + 9] = 'X';  // .nv_fatbiX
  Bytes[Seg->NameOffset + 15] = 'X'; // .nvFatBinSegmenX
  Fatbin F = mustParse(Bytes);
  CHECK(F.modules().empty());
  REQUIRE(F.containers().size() == 2);
  for (const Container &C : F.containers()) {
    CHECK(C.Origin == ContainerOrigin::Scan);
    CHECK(C.Section == ".nv_fatbiX");
  }
  CHECK(F.entries().size() == 3);
  checkAllPayloads(F);

  ReadOptions NoScan;
  NoScan.ScanWholeFile = false;
  Fatbin G = mustParse(Bytes, NoScan);
  CHECK(G.containers().empty());

  // Only the wrapper section renamed: the containers are reached through
  // .nv_fatbin, and nothing is found twice.
  std::string Bytes2 = readFile(cudaPath("k_default"));
  Bytes2[Seg->NameOffset + 15] = 'X';
  Fatbin H = mustParse(Bytes2);
  CHECK(H.containers().size() == 2);
  for (const Container &C : H.containers())
    CHECK(C.Origin == ContainerOrigin::Section);
}

TEST_CASE("malformed host ELF files give errors", "[fatbin][nvcc][malformed]") {
  const std::string Good = readFile(cudaPath("k_default"));
  std::vector<SectionRef> Secs = sectionsOf(Good);
  const SectionRef *Fat = findSection(Secs, ".nv_fatbin");
  const SectionRef *Seg = findSection(Secs, ".nvFatBinSegment");
  REQUIRE(Fat != nullptr);
  REQUIRE(Seg != nullptr);
  SECTION(".nv_fatbin size past the end of the file") {
    std::string B = Good;
    put64(B, Fat->HeaderOffset + 0x20, uint64_t(1) << 40);
    CHECK_THAT(parseError(B), Catch::Contains(".nv_fatbin") && Catch::Contains("past the end"));
  }
  SECTION("container files_size past the section end") {
    std::string B = Good;
    put64(B, Fat->Offset + 8, get64(B, Fat->Offset + 8) + Fat->Size);
    std::string E = parseError(B);
    CHECK_THAT(E, Catch::Contains("files_size") && Catch::Contains(".nv_fatbin"));
    CHECK_THAT(E, Catch::Contains("offset 0x"));
  }
  SECTION("bad wrapper magic") {
    std::string B = Good;
    put32(B, Seg->Offset, 0x12345678);
    CHECK_THAT(parseError(B), Catch::Contains("wrapper 0") && Catch::Contains("bad magic"));
  }
  SECTION("bad wrapper version") {
    std::string B = Good;
    put32(B, Seg->Offset + 4, 7);
    CHECK_THAT(parseError(B), Catch::Contains("unsupported version 7"));
  }
  SECTION("wrapper pointing inside a container (overlap)") {
    std::string B = Good;
    put64(B, Seg->Offset + 8, get64(B, Seg->Offset + 8) + 16);
    CHECK_THAT(parseError(B), Catch::Contains("points inside container"));
  }
  SECTION("wrapper pointing at no container") {
    std::string B = Good;
    // Point the v1 wrapper (the second) at the program headers: no container there.
    put64(B, Seg->Offset + 24 + 8, (Fat->Addr - Fat->Offset) + 0x40);
    CHECK_THAT(parseError(B),
               Catch::Contains("bad container") && Catch::Contains("bad fatbin container magic"));
  }
  SECTION("every truncation is an error or a smaller file, never a crash") {
    for (size_t N = 0; N < Good.size(); N += 1 + N / 7) {
      std::string B = Good.substr(0, N);
      llvm::Expected<Fatbin> F = parseBytes(B);
      if (!F) {
        llvm::consumeError(F.takeError());
        continue;
      }
      for (const Entry &E : F->entries()) {
        llvm::Expected<Payload> P = F->payload(E);
        if (!P)
          llvm::consumeError(P.takeError());
      }
    }
  }
}
