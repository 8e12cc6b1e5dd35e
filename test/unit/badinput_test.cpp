// Malformed input must give an error value: never a crash, a hang or a deep recursion.
#include "Helpers.h"

#include <catch2/catch.hpp>

#include <fstream>
#include <random>
#include <sstream>

using namespace ptx2amd;
using namespace ptx2amd::test;

namespace {

std::string exampleText() {
  std::ifstream In(std::string(PTX2AMD_TEST_DIR) + "/../examples/saxpy.ptx");
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}

/// True when reading \p Text reported at least one located error (module or function level).
bool reportsError(const std::string &Text) {
  auto R = read(Text, {false, 1, true});
  if (!R.M)
    return R.Error.find("t.ptx:") != std::string::npos;
  for (const auto &F : R.M->Functions)
    if (F->St == ir::Function::State::Failed)
      return !F->Diags.empty() && F->Diags[0].Loc.line > 0;
  return false;
}

} // namespace

TEST_CASE("every truncation of a real module is read or rejected cleanly", "[bad-input]") {
  std::string Text = exampleText();
  REQUIRE(Text.size() > 1000);
  REQUIRE_FALSE(reportsError(Text));
  size_t Rejected = 0;
  for (size_t Cut = 0; Cut < Text.size(); Cut += 7) {
    auto R = read(Text.substr(0, Cut));
    bool Failed = !R.M;
    if (R.M)
      for (const auto &F : R.M->Functions)
        Failed |= F->St == ir::Function::State::Failed;
    Rejected += Failed;
  }
  // Cutting inside the kernel body always leaves an unclosed brace.
  CHECK(Rejected > Text.size() / 7 / 2);
}

TEST_CASE("random garbage and mutated modules never crash", "[bad-input]") {
  std::string Text = exampleText();
  std::mt19937 Rng(1234);
  for (int K = 0; K < 300; ++K) {
    std::string T = Text;
    int Edits = 1 + K % 8;
    for (int E = 0; E < Edits; ++E) {
      size_t At = Rng() % T.size();
      switch (Rng() % 3) {
      case 0:
        T[At] = static_cast<char>(Rng());
        break;
      case 1:
        T.erase(At, Rng() % 16);
        break;
      default:
        T.insert(At, 1, "{}[]();,.%@!_"[Rng() % 13]);
        break;
      }
    }
    (void)read(T);
  }
  for (int K = 0; K < 50; ++K) {
    std::string G(1 + Rng() % 4096, '\0');
    for (char &C : G)
      C = static_cast<char>(Rng());
    CHECK(reportsError(G));
  }
}

TEST_CASE("pathological sizes and nesting are errors", "[bad-input]") {
  // Deep braces inside a body, in an initializer, and in operand brackets.
  CHECK(reportsError(module(".func f()\n{\n" + std::string(100000, '{') + "\n}\n")));
  CHECK(reportsError(module(".global .u32 a[1] = " + std::string(100000, '{') + "1;\n")));
  CHECK(reportsError(module(".func f()\n{\nmov.u32 %r1, " + std::string(100000, '[') + ";\n}\n")));
  // A 100 MB line of garbage, and a 100 MB line of valid tokens without an end.
  CHECK(reportsError(module(std::string(100u << 20, 'x'))));
  std::string Long = module(".func f()\n{\n.reg .b32 %r;\n");
  Long.reserve(Long.size() + (100u << 20));
  while (Long.size() < (100u << 20))
    Long += "add.s32 %r, %r, 1; ";
  CHECK(reportsError(Long)); // the body never closes
}

TEST_CASE("unknown directives and instructions are located errors", "[bad-input]") {
  CHECK(reportsError(module(".shiny 1;\n")));
  CHECK(reportsError(module(".func f()\n{\n.shiny 1;\n}\n")));
  CHECK(reportsError(module(".func f()\n{\nshiny.u32 %r1;\n}\n")));
  CHECK(reportsError(module(".entry k() .shiny 4\n{\n}\n")));
  CHECK(reportsError(".version 99.0\n.target sm_90\n"));
}

TEST_CASE("overflowing literals in every numeric field are located errors", "[bad-input]") {
  const std::string Huge = "99999999999999999999999"; // past 64 bits
  // Module header.
  CHECK(reportsError(".version " + Huge + ".0\n.target sm_90\n.address_size 64\n"));
  CHECK(reportsError(".version 8." + Huge + "\n.target sm_90\n.address_size 64\n"));
  CHECK(reportsError(".version 8.0\n.target sm_90\n.address_size " + Huge + "\n"));
  // Declarations: alignment, array dimensions, register ranges, attributes.
  CHECK(reportsError(module(".global .align " + Huge + " .b8 a[4];\n")));
  CHECK(reportsError(module(".global .b8 a[" + Huge + "];\n")));
  CHECK(reportsError(module(".global .b8 a[4][" + Huge + "];\n")));
  CHECK(reportsError(module(".func f()\n{\n.reg .b32 %r<" + Huge + ">;\n}\n")));
  CHECK(reportsError(module(".func f()\n{\n.local .b8 l[" + Huge + "];\n}\n")));
  CHECK(reportsError(module(".global .attribute(.unified(" + Huge + ", 1)) .b8 a[4];\n")));
  // Function directives and parameters.
  CHECK(reportsError(module(".entry k() .maxntid " + Huge + "\n{\nret;\n}\n")));
  CHECK(reportsError(module(".entry k() .reqntid 32, " + Huge + "\n{\nret;\n}\n")));
  CHECK(reportsError(module(".entry k() .maxnreg " + Huge + "\n{\nret;\n}\n")));
  CHECK(reportsError(module(".entry k(.param .align " + Huge + " .b8 p[8])\n{\nret;\n}\n")));
  CHECK(reportsError(module(".entry k(.param .b8 p[" + Huge + "])\n{\nret;\n}\n")));
  // Operands: integer immediates, element indices, vector counts of initializers.
  CHECK(reportsError(
      module(".func f()\n{\n.reg .b32 %r<2>;\nmov.u32 %r1, " + Huge + ";\nret;\n}\n")));
  CHECK(reportsError(module(".global .b8 a[4];\n.func f()\n{\n.reg .b64 %rd<2>;\n"
                            "mov.u64 %rd1, a[" +
                            Huge + "];\nret;\n}\n")));
  CHECK(reportsError(module(".global .u32 a[2] = {1, " + Huge + "};\n")));
}
