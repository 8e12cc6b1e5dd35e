//===- InProcessTest.cpp - wrappers registered by real nvcc objects -------===//
//
// kernels.o (v1 wrapper) and rdc_a.o + rdc_b.o + rdc_dlink.o (v2 wrapper with
// two prelinked containers) are linked into this test; FakeCudart captures
// what their constructors pass to __cudaRegisterFatBinary.
//
//===----------------------------------------------------------------------===//
#include "FakeCudart.h"
#include "FatbinTestUtil.h"

#include "ptx2amd/fatbin/Fatbin.h"
#include "ptx2amd/fatbin/Select.h"

#include "llvm/ADT/StringExtras.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <set>

using namespace ptx2amd::fatbin;
using namespace fbtest;

namespace {
uint32_t versionOf(const void *W) {
  uint32_t V;
  std::memcpy(&V, static_cast<const char *>(W) + 4, 4);
  return V;
}

const void *wrapperOfVersion(uint32_t V) {
  const void *Found = nullptr;
  for (const void *W : registeredWrappers())
    if (versionOf(W) == V) {
      REQUIRE(Found == nullptr);
      Found = W;
    }
  REQUIRE(Found != nullptr);
  return Found;
}

std::string ptxOf(const Fatbin &F, const Entry *E) {
  llvm::Expected<Payload> P = F.ptx(*E);
  if (!P)
    FAIL(llvm::toString(P.takeError()));
  return normalizePTX(P->text());
}

} // namespace

TEST_CASE("in-process: the v1 wrapper kernels.o registers", "[fatbin][nvcc][inprocess]") {
  REQUIRE(registeredWrappers().size() == 2);
  llvm::Expected<Fatbin> F = Fatbin::fromWrapper(wrapperOfVersion(1));
  if (!F)
    FAIL(llvm::toString(F.takeError()));
  CHECK(F->format() == InputFormat::Wrapper);
  REQUIRE(F->modules().size() == 1);
  const Module &M = F->modules()[0];
  CHECK(M.WrapperVersion == 1);
  CHECK(M.Prelinked.empty());
  REQUIRE(M.MainContainer);
  const Container &C = F->containers()[*M.MainContainer];
  CHECK(C.Origin == ContainerOrigin::Wrapper);
  REQUIRE(F->entries(C).size() == 2);
  llvm::Expected<ModuleSelection> S = selectForModule(*F, M);
  if (!S)
    FAIL(llvm::toString(S.takeError()));
  REQUIRE(S->PTX.size() == 1);
  const Entry *E = S->PTX[0];
  CHECK(E->Arch == 75);
  // Zero-copy: the entry points into the registered memory.
  const uint8_t *Base = static_cast<const uint8_t *>(C.Address);
  CHECK(E->Stored.data() >= Base);
  CHECK(E->Stored.data() + E->Stored.size() <= Base + C.Size);
  CHECK(ptxOf(*F, E) == normalizePTX(readFile(cudaPath("ref_sm75.ptx"))));
  CHECK_THAT(F->describe(*E), Catch::Contains("container at 0x"));
}

TEST_CASE("in-process: the -rdc v2 wrapper and its prelinked list", "[fatbin][nvcc][inprocess]") {
  llvm::Expected<Fatbin> F = Fatbin::fromWrapper(wrapperOfVersion(2));
  if (!F)
    FAIL(llvm::toString(F.takeError()));
  REQUIRE(F->modules().size() == 1);
  const Module &M = F->modules()[0];
  CHECK(M.WrapperVersion == 2);
  REQUIRE(M.MainContainer);
  REQUIRE(M.Prelinked.size() == 2);
  // The device-linked container: SASS only.
  for (const Entry &E : F->entries(F->containers()[*M.MainContainer]))
    CHECK(E.Kind != EntryKind::PTX);
  for (unsigned P : M.Prelinked)
    CHECK(F->containers()[P].Origin == ContainerOrigin::Prelinked);
  llvm::Expected<ModuleSelection> S = selectForModule(*F, M);
  if (!S)
    FAIL(llvm::toString(S.takeError()));
  CHECK(S->NeedsLinking);
  REQUIRE(S->PTX.size() == 2);
  std::multiset<std::string> Got, Want{normalizePTX(readFile(cudaPath("ref_rdc_a.ptx"))),
                                       normalizePTX(readFile(cudaPath("ref_rdc_b.ptx")))};
  for (const Entry *E : S->PTX)
    Got.insert(ptxOf(*F, E));
  CHECK(Got == Want);
  llvm::Expected<std::vector<const Entry *>> G = selectRdcGroup(*F, M);
  REQUIRE(bool(G));
  CHECK(G->size() == 2);
}
