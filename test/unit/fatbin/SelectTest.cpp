//===- SelectTest.cpp - PTX selection policy ------------------------------===//
#include "FatbinTestUtil.h"

#include "ptx2amd/fatbin/Fatbin.h"
#include "ptx2amd/fatbin/Select.h"

#include "llvm/ADT/StringExtras.h"

#include <catch2/catch.hpp>

using namespace ptx2amd::fatbin;
using namespace fbtest;
using Catch::Contains;

namespace {
EntrySpec ptx(uint32_t Arch, uint64_t Extra = 0, uint32_t Version = 0x90000) {
  EntrySpec E = ptxEntry(".version 9.0\n", Compression::None, Arch);
  E.Flags |= Extra;
  E.CodeVersion = Version;
  return E;
}
EntrySpec sass(uint32_t Arch, uint64_t Extra = 0) {
  EntrySpec E = elfEntry(std::string(8, 'x'), Arch);
  E.Flags |= Extra;
  return E;
}
EntrySpec lto(uint32_t Arch) {
  EntrySpec E = elfEntry(std::string(8, 'x'), Arch);
  E.Kind = 8;
  E.Flags |= flags::Opaque;
  return E;
}

/// "arch/index" of the selected entry, or "error: ..." text.
std::string pick(const std::vector<EntrySpec> &Es, const SelectionPolicy &P) {
  llvm::Expected<Fatbin> F = parseBytes(buildContainer(Es));
  if (!F)
    return "parse error: " + llvm::toString(F.takeError());
  llvm::Expected<const Entry *> E = selectPTX(F->entries(), P, "mod");
  if (!E)
    return "error: " + llvm::toString(E.takeError());
  return (*E)->archName() + "/" + std::to_string((*E)->Index);
}
} // namespace

TEST_CASE("selection: highest arch by default", "[fatbin][select]") {
  CHECK(pick({ptx(75), ptx(90), ptx(80)}, {}) == "sm_90/1");
  CHECK(pick({sass(90), ptx(75), sass(75)}, {}) == "sm_75/1");
}

TEST_CASE("selection: highest arch at most N", "[fatbin][select]") {
  std::vector<EntrySpec> Es{ptx(75), ptx(90), ptx(120), ptx(86)};
  CHECK(pick(Es, SelectionPolicy::atMost(89)) == "sm_86/3");
  CHECK(pick(Es, SelectionPolicy::atMost(90)) == "sm_90/1");
  CHECK(pick(Es, SelectionPolicy::atMost(1000)) == "sm_120/2");
  std::string E = pick(Es, SelectionPolicy::atMost(70));
  CHECK_THAT(E, Contains("mod: no PTX entry for sm_70 or lower"));
  CHECK_THAT(E, Contains("sm_75 (PTX 9.0)"));
}

TEST_CASE("selection: the lowest generic PTX above N where none is at most N", "[fatbin][select]") {
  SelectionPolicy P = SelectionPolicy::atMost(86);
  P.AboveIfNone = true;
  CHECK(pick({ptx(120), ptx(90), ptx(100)}, P) == "sm_90/1");
  CHECK(pick({ptx(120), ptx(75)}, P) == "sm_75/1"); // one at most N comes first
  CHECK(pick({ptx(90, flags::ArchSpecific), ptx(120)}, P) == "sm_120/1");
  CHECK_THAT(pick({ptx(90, flags::ArchSpecific), ptx(100, flags::FamilySpecific)}, P),
             Contains("no PTX entry for sm_86 or lower"));
  CHECK_THAT(pick({sass(86)}, P), Contains("no PTX to translate"));
}

TEST_CASE("selection: ties prefer generic targets, then newer PTX", "[fatbin][select]") {
  CHECK(pick({ptx(90, flags::ArchSpecific), ptx(90)}, {}) == "sm_90/1");
  CHECK(pick({ptx(100), ptx(100, flags::FamilySpecific)}, {}) == "sm_100/0");
  CHECK(pick({ptx(90, 0, 0x80007), ptx(90, 0, 0x90000), ptx(90, 0, 0x80008)}, {}) == "sm_90/1");
  // A higher arch still wins over a generic lower one.
  CHECK(pick({ptx(80), ptx(90, flags::ArchSpecific)}, {}) == "sm_90a/1");
  SelectionPolicy Generic;
  Generic.AllowSpecific = false;
  CHECK(pick({ptx(80), ptx(90, flags::ArchSpecific)}, Generic) == "sm_80/0");
  CHECK_THAT(pick({ptx(90, flags::ArchSpecific)}, Generic), Contains("generic"));
}

TEST_CASE("selection: PTX ISA version limit", "[fatbin][select]") {
  SelectionPolicy P;
  P.MaxPTXVersion = 0x90000; // 9.0
  CHECK(pick({ptx(120, 0, 0x90001), ptx(100, 0, 0x90000)}, P) == "sm_100/1");
  CHECK_THAT(pick({ptx(120, 0, 0x90001)}, P), Contains("PTX ISA <= 9.0"));
}

TEST_CASE("selection: no PTX names what is there and how to rebuild", "[fatbin][select]") {
  std::string E = pick({sass(80), sass(90, flags::ArchSpecific), lto(90), sass(75)}, {});
  CHECK_THAT(E, Contains("mod: no PTX to translate"));
  CHECK_THAT(E, Contains("SASS for sm_75, sm_80, sm_90a"));
  CHECK_THAT(E, Contains("LTO-IR for sm_90"));
  CHECK_THAT(E, Contains("rebuild with `-gencode arch=compute_90a,code=compute_90a`"));
  std::string Empty = pick({}, {});
  CHECK_THAT(Empty, Contains("no entries at all"));
  CHECK_THAT(Empty, Contains("compute_75"));
}

TEST_CASE("selection: modules", "[fatbin][select]") {
  llvm::Expected<Fatbin> F = parseBytes(buildContainer({ptx(80)}));
  REQUIRE(bool(F));
  Module M;
  CHECK_THAT(llvm::toString(selectForModule(*F, M).takeError()), Contains("has no container"));
  CHECK_THAT(llvm::toString(selectRdcGroup(*F, M).takeError()), Contains("no prelinked"));
  M.MainContainer = 0;
  llvm::Expected<ModuleSelection> S = selectForModule(*F, M);
  REQUIRE(bool(S));
  CHECK(S->PTX.size() == 1);
  M.Prelinked = {0, 7};
  CHECK_THAT(llvm::toString(selectForModule(*F, M).takeError()), Contains("bad container index 7"));
}
