// The compute capability the runtime reports (PTX2AMD_COMPUTE_CAPABILITY): 8.6 by default, any
// row of runtime/lib/ComputeCapabilities.def when chosen, with CUDA's residency limits for it;
// anything else is an error that says what may be chosen.

#include "ComputeCapability.h"

#include <catch2/catch.hpp>

#include <string>

using namespace ptx2amd::runtime;

namespace {

ComputeCapability parse(const std::string &Value) {
  auto CC = parseComputeCapability(Value);
  REQUIRE(static_cast<bool>(CC));
  return *CC;
}

std::string refusal(const std::string &Value) {
  auto CC = parseComputeCapability(Value);
  REQUIRE_FALSE(static_cast<bool>(CC));
  return llvm::toString(CC.takeError());
}

} // namespace

TEST_CASE("compute capability: 8.6 by default", "[runtime][cc]") {
  ComputeCapability CC = parse("");
  CHECK(CC.Major == 8);
  CHECK(CC.Minor == 6);
  CHECK(CC.arch() == 86);
  CHECK(CC.ThreadsPerMultiprocessor == 1536);
  CHECK(CC.BlocksPerMultiprocessor == 16);
}

TEST_CASE("compute capability: CUDA's limits per capability", "[runtime][cc]") {
  struct Row {
    const char *Name;
    int Major, Minor, Threads, Blocks, SharedKB, OptinKB;
  };
  // The CUDA programming guide's table and cuda_occupancy.h.
  const Row Rows[] = {{"7.5", 7, 5, 1024, 16, 64, 64},    {"8.0", 8, 0, 2048, 32, 164, 163},
                      {"8.6", 8, 6, 1536, 16, 100, 99},   {"8.9", 8, 9, 1536, 24, 100, 99},
                      {"9.0", 9, 0, 2048, 32, 228, 227},  {"10.0", 10, 0, 2048, 32, 228, 227},
                      {"12.0", 12, 0, 1536, 24, 100, 99}, {"12.1", 12, 1, 1536, 24, 100, 99}};
  for (const Row &R : Rows) {
    INFO(R.Name);
    ComputeCapability CC = parse(R.Name);
    CHECK(CC.Major == R.Major);
    CHECK(CC.Minor == R.Minor);
    CHECK(CC.arch() == unsigned(R.Major * 10 + R.Minor));
    CHECK(CC.ThreadsPerMultiprocessor == R.Threads);
    CHECK(CC.BlocksPerMultiprocessor == R.Blocks);
    CHECK(CC.SharedKBPerMultiprocessor == R.SharedKB);
    CHECK(CC.SharedKBPerBlockOptin == R.OptinKB);
  }
}

TEST_CASE("compute capability: every row fits a cooperative launch", "[runtime][cc]"){
// The host device holds 2048 work-items in 32 workgroups on each worker at once
// (host-backend's CooperativeWorkItems and CooperativeWorkgroups): a grid the occupancy
// calculator lets through must fit, whatever capability is reported.
#define COMPUTE_CAPABILITY(Major, Minor, Threads, Blocks, SharedKB, OptinKB)                       \
  {                                                                                                \
    ComputeCapability CC = parse(#Major "." #Minor);                                               \
    CHECK(CC.ThreadsPerMultiprocessor == Threads);                                                 \
    CHECK(CC.BlocksPerMultiprocessor == Blocks);                                                   \
    CHECK(CC.SharedKBPerMultiprocessor == SharedKB);                                               \
    CHECK(CC.SharedKBPerBlockOptin == OptinKB);                                                    \
    CHECK(OptinKB >= 64);                                                                          \
    CHECK(OptinKB <= SharedKB);                                                                    \
    CHECK(Threads % 32 == 0);                                                                      \
    CHECK(Threads >= 1024);                                                                        \
    CHECK(Threads <= 2048);                                                                        \
    CHECK(Blocks <= 32);                                                                           \
    CHECK(Major * 10 + Minor >= 75);                                                               \
  }
#include "ComputeCapabilities.def"
}

TEST_CASE("compute capability: anything else is refused with the choices", "[runtime][cc]") {
  for (const char *Bad : {"8.5", "86", "8", "8.", ".6", "8.6.0", "08.6", " 8.6", "8.6 ", "sm_86",
                          "7.0", "5.0", "13.0", "x"}) {
    INFO(Bad);
    std::string Why = refusal(Bad);
    CHECK(Why.find(std::string("PTX2AMD_COMPUTE_CAPABILITY='") + Bad + "'") == 0);
    CHECK(Why.find("7.5, 8.0, 8.6, 8.7, 8.8, 8.9, 9.0, 10.0, 10.3, 11.0, 12.0, 12.1") !=
          std::string::npos);
  }
}
