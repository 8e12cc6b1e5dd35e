//===- RegressTest.cpp - inputs the fuzzer found interesting --------------===//
//
// Every file in test/unit/fatbin/regress/ is run through the same code as the
// fuzz target (test/fuzz/fatbin_fuzz.cpp); see regress/README.md for the
// naming rules.
//
//===----------------------------------------------------------------------===//
#include "FatbinTestUtil.h"
#include "FuzzBody.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

TEST_CASE("fuzzer regression corpus", "[fatbin][regress]") {
  std::vector<std::filesystem::path> Files;
  std::error_code EC;
  for (const auto &D : std::filesystem::directory_iterator(FATBIN_TEST_REGRESS_DIR, EC))
    if (D.is_regular_file() && D.path().filename().string()[0] != '.' &&
        D.path().extension() != ".md")
      Files.push_back(D.path());
  REQUIRE_FALSE(EC);
  REQUIRE(!Files.empty());
  std::sort(Files.begin(), Files.end());
  for (const auto &P : Files) {
    const std::string Name = P.filename().string();
    INFO(Name);
    const std::string Bytes = fbtest::readFile(P.string());
    fbtest::exerciseFatbinInput(reinterpret_cast<const uint8_t *>(Bytes.data()), Bytes.size());
    const bool FuzzerArtifact = Name.rfind("crash-", 0) == 0 || Name.rfind("timeout-", 0) == 0 ||
                                Name.rfind("oom-", 0) == 0 || Name.rfind("slow-unit-", 0) == 0;
    if (FuzzerArtifact)
      continue;
    const std::string Err = fbtest::parseError(Bytes);
    if (Name.size() > 3 && Name.compare(Name.size() - 3, 3, "_ok") == 0)
      CHECK(Err.empty());
    else
      CHECK_THAT(Err, Catch::StartsWith("test-input: "));
  }
}
