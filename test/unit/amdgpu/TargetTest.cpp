// The target table: six rows, lookups, and a clear error for unknown names.
#include "ptx2amd/amdgpu-backend/Target.h"

#include <catch2/catch.hpp>

#include <set>
#include <string>

using namespace ptx2amd::amdgpu;

TEST_CASE("target table holds the six supported targets", "[amdgpu][target]") {
  REQUIRE(allTargets().size() == 6);
  struct Row {
    const char *Name;
    unsigned Wave, Isa, Lds;
    bool Gfx9, Gfx10Plus, Gfx12;
  };
  const Row Rows[] = {
      {"gfx90a", 64, 9010, 65536, true, false, false},
      {"gfx942", 64, 9402, 65536, true, false, false},
      {"gfx950", 64, 9500, 163840, true, false, false},
      {"gfx1030", 32, 10300, 65536, false, true, false},
      {"gfx1100", 32, 11000, 65536, false, true, false},
      {"gfx1201", 32, 12001, 65536, false, true, true},
  };
  for (const Row &R : Rows) {
    INFO(R.Name);
    const Target *T = findTarget(R.Name);
    REQUIRE(T);
    CHECK(T->WaveSize == R.Wave);
    CHECK(T->IsaVersion == R.Isa);
    CHECK(T->LdsBytesPerWorkgroup == R.Lds);
    CHECK(T->isGfx9() == R.Gfx9);
    CHECK(T->isGfx10Plus() == R.Gfx10Plus);
    CHECK(T->isGfx12() == R.Gfx12);
    CHECK(T->warpsPerWave() == R.Wave / 32);
    CHECK(T->Features.find(R.Wave == 64 ? "+wavefrontsize64" : "+wavefrontsize32") !=
          std::string_view::npos);
    auto L = lookupTarget(R.Name);
    REQUIRE(bool(L));
    CHECK(&*L == T);
  }
  std::set<std::string_view> Names;
  for (const Target &T : allTargets())
    Names.insert(T.Name);
  CHECK(Names.size() == allTargets().size());
  static_assert(findTarget("gfx942")->WaveSize == 64, "usable at compile time");
}

TEST_CASE("unknown target names are an error listing the known ones", "[amdgpu][target]") {
  for (const char *Bad : {"gfx908", "sm_80", "", "GFX90A", "gfx1200x"}) {
    INFO(Bad);
    CHECK(findTarget(Bad) == nullptr);
    auto L = lookupTarget(Bad);
    REQUIRE_FALSE(bool(L));
    std::string Msg = llvm::toString(L.takeError());
    CHECK_THAT(Msg, Catch::Contains("unknown AMDGPU target '" + std::string(Bad) + "'"));
    for (const Target &T : allTargets())
      CHECK_THAT(Msg, Catch::Contains(std::string(T.Name)));
  }
  CHECK(knownTargetNames() == "gfx90a, gfx942, gfx950, gfx1030, gfx1100, gfx1201");
}
