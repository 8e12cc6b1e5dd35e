// The -rdc PTX linker: the linked text must read as one module with the expected symbols.
#include "Helpers.h"

#include "ptx2amd/ptx-ir/Link.h"

#include <catch2/catch.hpp>

using namespace ptx2amd;
using namespace ptx2amd::test;

namespace {

struct Linked {
  std::string Text;
  std::string Error; ///< link error text, empty on success
};

Linked link(std::vector<std::pair<std::string, std::string>> Modules) {
  std::vector<ir::LinkInput> Inputs;
  for (auto &[Name, Text] : Modules)
    Inputs.push_back({Name, Text});
  Linked L;
  auto R = ir::linkModules(Inputs);
  if (R)
    L.Text = std::move(*R);
  else
    L.Error = llvm::toString(R.takeError());
  return L;
}

/// Reads the linked text and builds every body; any error fails the test.
std::unique_ptr<ir::Module> readLinked(const std::string &Text) {
  auto R = read(Text);
  INFO(Text);
  REQUIRE(R.Error == "");
  ir::buildAll(*R.M);
  for (const auto &F : R.M->Functions) {
    INFO(F->Name);
    CHECK(F->St != ir::Function::State::Failed);
  }
  return std::move(R.M);
}

size_t count(const std::string &Text, const std::string &Needle) {
  size_t N = 0;
  for (size_t P = Text.find(Needle); P != std::string::npos; P = Text.find(Needle, P + 1))
    ++N;
  return N;
}

// Module A uses a function and a variable that module B defines (what nvcc -rdc writes).
const std::string UseA = R"(.version 8.5
.target sm_75
.address_size 64
.extern .func (.param .b32 r) twice(.param .b32 x);
.extern .global .align 4 .u32 calls;
.visible .entry useA(.param .u64 p)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  ld.param.u64 %rd1, [p];
  ld.global.u32 %r1, [%rd1];
  {
  .param .b32 param0;
  .param .b32 retval0;
  st.param.b32 [param0], %r1;
  call.uni (retval0), twice, (param0);
  ld.param.b32 %r2, [retval0];
  }
  st.global.u32 [%rd1], %r2;
  atom.global.add.u32 %r1, [calls], 1;
  ret;
}
)";

const std::string DefB = R"(.version 9.0
.target sm_80
.address_size 64
.visible .global .align 4 .u32 calls = 5;
.visible .func (.param .b32 r) twice(.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  add.s32 %r2, %r1, %r1;
  st.param.b32 [r], %r2;
  ret;
}
)";

} // namespace

TEST_CASE("link: header takes the highest version and target", "[link]") {
  Linked L = link({{"a.ptx", UseA}, {"b.ptx", DefB}});
  REQUIRE(L.Error == "");
  CHECK(L.Text.find(".version 9.0\n.target sm_80\n.address_size 64\n") != std::string::npos);
  CHECK(count(L.Text, ".version") == 1);
  CHECK(count(L.Text, ".target") == 1);
  CHECK(count(L.Text, ".address_size") == 1);
  auto M = readLinked(L.Text);
  CHECK(M->VersionMajor == 9);
  CHECK(M->VersionMinor == 0);
  CHECK(M->Target == std::vector<std::string>{"sm_80"});

  // Names (which may hold addresses) do not reach the text: a cache key hashes it.
  CHECK(link({{"0x1234: a", UseA}, {"0x5678: b", DefB}}).Text == L.Text);

  // The same the other way round: the header does not follow the first module.
  Linked R = link({{"b.ptx", DefB}, {"a.ptx", UseA}});
  REQUIRE(R.Error == "");
  CHECK(R.Text.find(".version 9.0\n.target sm_80\n") != std::string::npos);
}

TEST_CASE("link: differing address sizes are an error", "[link]") {
  std::string A32 = UseA;
  A32.replace(A32.find(".address_size 64"), 16, ".address_size 32");
  Linked L = link({{"b.ptx", DefB}, {"a.ptx", A32}});
  CHECK(L.Text.empty());
  CHECK_THAT(L.Error, Catch::Contains("a.ptx:3:1: error: .address_size 32 differs from "
                                      ".address_size 64 of 'b.ptx'"));
}

TEST_CASE("link: extern functions and variables resolve to another module's definitions",
          "[link]") {
  for (bool DefinitionFirst : {false, true}) {
    INFO("definitions first: " << DefinitionFirst);
    Linked L = DefinitionFirst ? link({{"b.ptx", DefB}, {"a.ptx", UseA}})
                               : link({{"a.ptx", UseA}, {"b.ptx", DefB}});
    REQUIRE(L.Error == "");
    // No function is declared .extern any more (ptxas rejects an .extern declaration of a
    // function the module defines); before its definition it is a prototype, after it nothing.
    CHECK(L.Text.find(".extern .func") == std::string::npos);
    CHECK(count(L.Text, ".visible .func (.param .b32 r) twice(.param .b32 x)") ==
          (DefinitionFirst ? 1u : 2u));
    CHECK(count(L.Text, ".extern .global .align 4 .u32 calls;") == (DefinitionFirst ? 0u : 1u));
    auto M = readLinked(L.Text);
    ir::Function *Twice = M->function("twice");
    REQUIRE(Twice);
    CHECK(Twice->isDefinition());
    CHECK(Twice->Link == ir::Linkage::Visible);
    const ir::Variable *Calls = M->global("calls");
    REQUIRE(Calls);
    CHECK(Calls->Link == ir::Linkage::Visible);
    CHECK(Calls->Init.K == ir::Initializer::Int);
    REQUIRE(M->function("useA"));
    CHECK(M->function("useA")->IsKernel);
  }
}

TEST_CASE("link: an extern nobody defines stays extern", "[link]") {
  Linked L = link({{"a.ptx", UseA}, {"c.ptx", module(".visible .entry other() { ret; }\n")}});
  REQUIRE(L.Error == "");
  auto M = readLinked(L.Text);
  REQUIRE(M->function("twice"));
  CHECK_FALSE(M->function("twice")->isDefinition());
  CHECK(M->function("twice")->Link == ir::Linkage::Extern);
  REQUIRE(M->global("calls"));
  CHECK(M->global("calls")->Link == ir::Linkage::Extern);
  CHECK(M->function("other"));

  // Dynamic shared memory: each file declares its own `extern __shared__` array, never defined.
  std::string Dyn = module(".extern .shared .align 16 .b8 smem[];\n"
                           ".visible .entry dyn() {\n  .reg .b32 %r<2>;\n"
                           "  ld.shared.u32 %r1, [smem];\n  ret;\n}\n");
  std::string Dyn2 = Dyn;
  Dyn2.replace(Dyn2.find("entry dyn"), 9, "entry dyn2");
  Linked S = link({{"d1.ptx", Dyn}, {"d2.ptx", Dyn2}});
  REQUIRE(S.Error == "");
  CHECK(count(S.Text, ".extern .shared .align 16 .b8 smem[];") == 2);
  auto MS = readLinked(S.Text);
  REQUIRE(MS->global("smem"));
  CHECK(MS->global("smem")->Link == ir::Linkage::Extern);
  CHECK(MS->function("dyn"));
  CHECK(MS->function("dyn2"));
}

TEST_CASE("link: two strong definitions of one name are an error naming both modules", "[link]") {
  Linked L = link({{"b.ptx", DefB}, {"a.ptx", UseA}, {"b2.ptx", DefB}});
  CHECK(L.Text.empty());
  CHECK_THAT(L.Error, Catch::Contains(
                          "b2.ptx:4:32: error: 'calls' is defined in both 'b.ptx' and 'b2.ptx'"));
  CHECK_THAT(L.Error, Catch::Contains("b.ptx:4:32: note: first definition of 'calls'"));
  CHECK_THAT(L.Error, Catch::Contains("'twice' is defined in both 'b.ptx' and 'b2.ptx'"));

  // Two kernels of one name as well.
  std::string K = module(".visible .entry k() { ret; }\n");
  CHECK_THAT(link({{"x.ptx", K}, {"y.ptx", K}}).Error,
             Catch::Contains("'k' is defined in both 'x.ptx' and 'y.ptx'"));
}

TEST_CASE("link: a name that is a function in one module and a variable in another", "[link]") {
  Linked L = link({{"a.ptx", UseA}, {"c.ptx", module(".visible .global .u32 twice;\n")}});
  CHECK_THAT(L.Error, Catch::Contains("c.ptx:4:23: error: 'twice' is a variable here but a "
                                      "function in 'a.ptx'"));
}

namespace {
/// A module with a weak or strong function `pick` returning \p Value and a variable `wv`.
std::string weakDefs(const std::string &Linkage, int Value) {
  return module(Linkage + " .global .align 4 .u32 wv = " + std::to_string(Value) + ";\n" + Linkage +
                " .func (.param .b32 r) pick()\n{\n  st.param.b32 [r], " + std::to_string(Value) +
                ";\n  ret;\n}\n");
}
const std::string CallPick = module(R"(.extern .func (.param .b32 r) pick();
.extern .global .align 4 .u32 wv;
.visible .entry callPick(.param .u64 p)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  {
  .param .b32 retval0;
  call.uni (retval0), pick, ();
  ld.param.b32 %r1, [retval0];
  }
  ld.global.u32 %r2, [wv];
  add.s32 %r1, %r1, %r2;
  st.global.u32 [%rd1], %r1;
  ret;
}
)");
} // namespace

TEST_CASE("link: the first weak definition wins, a strong one overrides", "[link]") {
  SECTION("weak and weak") {
    Linked L = link({{"w1.ptx", weakDefs(".weak", 11)},
                     {"use.ptx", CallPick},
                     {"w2.ptx", weakDefs(".weak", 22)}});
    REQUIRE(L.Error == "");
    CHECK(L.Text.find("st.param.b32 [r], 11;") != std::string::npos);
    CHECK(L.Text.find("st.param.b32 [r], 22;") == std::string::npos);
    CHECK(L.Text.find("wv = 22") == std::string::npos);
    auto M = readLinked(L.Text);
    REQUIRE(M->function("pick"));
    CHECK(M->function("pick")->Link == ir::Linkage::Weak);
    REQUIRE(M->global("wv"));
    CHECK(M->global("wv")->Init.Value == 11);
  }
  SECTION("weak, then strong") {
    Linked L = link({{"w1.ptx", weakDefs(".weak", 11)},
                     {"use.ptx", CallPick},
                     {"s.ptx", weakDefs(".visible", 33)}});
    REQUIRE(L.Error == "");
    CHECK(L.Text.find("st.param.b32 [r], 11;") == std::string::npos);
    CHECK(L.Text.find("st.param.b32 [r], 33;") != std::string::npos);
    // The weak definitions became declarations of the strong ones.
    CHECK(L.Text.find(".extern .global .align 4 .u32 wv;") != std::string::npos);
    CHECK(L.Text.find(".visible .func (.param .b32 r) pick();") != std::string::npos);
    auto M = readLinked(L.Text);
    CHECK(M->function("pick")->Link == ir::Linkage::Visible);
    CHECK(M->global("wv")->Init.Value == 33);
  }
  SECTION("strong, then weak") {
    Linked L = link({{"s.ptx", weakDefs(".visible", 33)},
                     {"use.ptx", CallPick},
                     {"w1.ptx", weakDefs(".weak", 11)}});
    REQUIRE(L.Error == "");
    CHECK(L.Text.find("11") == std::string::npos);
    auto M = readLinked(L.Text);
    CHECK(M->global("wv")->Init.Value == 33);
  }
}

namespace {
/// A module with internal `helper` and `counter`, used by kernel \p Kernel; \p Extra is added.
std::string internals(const std::string &Kernel, int Value, const std::string &Extra = "") {
  return module(".global .align 4 .u32 counter = " + std::to_string(Value) +
                ";\n.global .u64 counterAddr = counter;\n"
                ".func (.param .b32 r) helper()\n{\n  .reg .b32 %r<2>;\n"
                "  ld.global.u32 %r1, [counter];\n  st.param.b32 [r], %r1;\n  ret;\n}\n"
                ".visible .entry " +
                Kernel +
                "(.param .u64 p)\n{\n  .reg .b32 %r<2>;\n  .reg .b64 %rd<2>;\n"
                "  ld.param.u64 %rd1, [p];\n  {\n  .param .b32 retval0;\n"
                "  call.uni (retval0), helper, ();\n  ld.param.b32 %r1, [retval0];\n  }\n"
                "  st.global.u32 [%rd1], %r1;\n  ret;\n}\n" +
                Extra);
}
} // namespace

TEST_CASE("link: internal names of different modules do not collide", "[link]") {
  // In module 2 a parameter, a label and a local variable are named like the module symbols:
  // they shadow them, and keep their names.
  std::string Shadows = R"(.func shadows(.param .b32 helper)
{
  .reg .b32 %r<2>;
  .local .align 4 .u32 counter;
  ld.param.b32 %r1, [helper];
  st.local.u32 [counter], %r1;
  bra.uni counterAddr;
counterAddr:
  ret;
}
)";
  Linked L = link({{"m1.ptx", internals("k1", 1)}, {"m2.ptx", internals("k2", 2, Shadows)}});
  REQUIRE(L.Error == "");
  // The first module keeps its names; the second module's are renamed where they are declared
  // and used, in initializers and bodies alike.
  CHECK(count(L.Text, ".global .align 4 .u32 counter = 1;") == 1);
  CHECK(count(L.Text, ".global .align 4 .u32 counter_ptx2amd2 = 2;") == 1);
  CHECK(count(L.Text, ".global .u64 counterAddr_ptx2amd2 = counter_ptx2amd2;") == 1);
  CHECK(count(L.Text, "call.uni (retval0), helper, ();") == 1);
  CHECK(count(L.Text, "call.uni (retval0), helper_ptx2amd2, ();") == 1);
  CHECK(count(L.Text, "ld.global.u32 %r1, [counter_ptx2amd2];") == 1);
  CHECK(count(L.Text, "[helper];") == 1);
  CHECK(count(L.Text, "st.local.u32 [counter], %r1;") == 1);
  CHECK(count(L.Text, "counterAddr:") == 1);
  CHECK(count(L.Text, "bra.uni counterAddr;") == 1);
  auto M = readLinked(L.Text);
  for (const char *F : {"helper", "helper_ptx2amd2", "k1", "k2", "shadows"})
    CHECK(M->function(F));
  REQUIRE(M->global("counter_ptx2amd2"));
  CHECK(M->global("counter_ptx2amd2")->Init.Value == 2);
  REQUIRE(M->global("counterAddr_ptx2amd2"));
  CHECK(M->global("counterAddr_ptx2amd2")->Init.Name == "counter_ptx2amd2");
}

TEST_CASE("link: an internal name that another module exports is renamed", "[link]") {
  std::string Exports = module(".visible .func (.param .b32 r) helper()\n{\n"
                               "  st.param.b32 [r], 7;\n  ret;\n}\n");
  // Internal in the first module, visible in the second: the first one's is renamed.
  Linked L = link({{"m1.ptx", internals("k1", 1)}, {"ex.ptx", Exports}});
  REQUIRE(L.Error == "");
  CHECK(count(L.Text, "call.uni (retval0), helper_ptx2amd1, ();") == 1);
  CHECK(count(L.Text, ".visible .func (.param .b32 r) helper()") == 1);
  // `counter` does not collide: it keeps its name.
  CHECK(count(L.Text, "counter_ptx2amd") == 0);
  auto M = readLinked(L.Text);
  CHECK(M->function("helper")->Link == ir::Linkage::Visible);
  CHECK(M->function("helper_ptx2amd1")->Link == ir::Linkage::Internal);

  // A new name that is taken already gets one more underscore.
  std::string Taken = internals("k1", 1, ".global .u32 helper_ptx2amd1;\n");
  Linked T = link({{"m1.ptx", Taken}, {"ex.ptx", Exports}});
  REQUIRE(T.Error == "");
  CHECK(count(T.Text, "call.uni (retval0), helper_ptx2amd1_, ();") == 1);
  readLinked(T.Text);
}

TEST_CASE("link: errors of a module name it", "[link]") {
  Linked L = link({{"a.ptx", UseA}, {"bad.ptx", module(".visible .global .u32 x\n")}});
  CHECK_THAT(L.Error, Catch::StartsWith("bad.ptx:"));
  CHECK_THAT(link({{"a.ptx", UseA}, {"nohdr.ptx", ".address_size 64\n"}}).Error,
             Catch::Contains("nohdr.ptx:1:1: error: missing .version directive"));
}
