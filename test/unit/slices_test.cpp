// A PTX module's kernels as separate modules (ptx-grammar/Slices.h): each slice holds the kernel,
// what it reaches and the header, parses alone, and modules whose kernels share state are not
// sliced.
#include "ptx2amd/ptx-grammar/Slices.h"
#include "ptx2amd/ptx-ir/Reader.h"

#include <catch2/catch.hpp>

using namespace ptx2amd;
using namespace ptx2amd::grammar;

namespace {

const char *Header = ".version 8.0\n.target sm_80\n.address_size 64\n.file 1 \"a {b}.cu\"\n";

// Two kernels: one calls `twice` (declared before, defined after), which calls `leaf`; the other
// takes the address of `picked` for an indirect call. `unused` is reached by neither.
const char *Body = R"(
.extern .shared .align 16 .b8 dyn[];
.shared .align 4 .b8 tile[64];
.func (.param .b32 r) twice (.param .b32 x);
/* a comment with a brace { and a kernel's name: second */
.func (.param .b32 r) leaf (.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  add.s32 %r2, %r1, %r1; // }
  st.param.b32 [r], %r2;
  ret;
}
.func (.param .b32 r) unused (.param .b32 x)
{
  ret;
}
.visible .entry first (.param .u64 out)
.maxntid 64, 1, 1
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  mov.u32 %r1, 7;
  { .param .b32 a; .param .b32 b; st.param.b32 [a], %r1;
    call.uni (b), twice, (a); ld.param.b32 %r2, [b]; }
  ld.param.u64 %rd1, [out];
  st.shared.u32 [tile], %r2;
  st.global.u32 [%rd1], %r2;
  ret;
}
.func (.param .b32 r) twice (.param .b32 x)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [x];
  { .param .b32 a; .param .b32 b; st.param.b32 [a], %r1;
    call.uni (b), leaf, (a); ld.param.b32 %r2, [b]; }
  st.param.b32 [r], %r2;
  ret;
}
.func (.param .b32 r) picked (.param .b32 x)
{
  .reg .b32 %r<2>;
  ld.param.b32 %r1, [x];
  st.param.b32 [r], %r1;
  ret;
}
.visible .entry second (.param .u64 out)
.pragma "nounroll";
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<3>;
  mov.u64 %rd2, picked;
  mov.u32 %r1, 5;
  proto: .callprototype (.param .b32 _) _ (.param .b32 _);
  { .param .b32 a; .param .b32 b; st.param.b32 [a], %r1;
    call (b), %rd2, (a), proto; ld.param.b32 %r2, [b]; }
  ld.param.u64 %rd1, [out];
  st.shared.u32 [dyn], %r2;
  st.global.u32 [%rd1], %r2;
  ret;
}
)";

bool has(const std::string &Text, const std::string &What) {
  return Text.find(What) != std::string::npos;
}

void requireParses(const std::string &Ptx) {
  auto M = ir::readModule(std::make_shared<SourceText>("slice.ptx", Ptx));
  INFO(Ptx);
  if (!M)
    FAIL(llvm::toString(M.takeError()));
  ir::buildAll(**M);
  for (const auto &F : (*M)->Functions)
    CHECK(F->St != ir::Function::State::Failed);
}

} // namespace

TEST_CASE("a kernel's slice holds what it reaches, in the module's order", "[slices]") {
  std::string Ptx = std::string(Header) + Body;
  ModuleOutline O = outlineModule(Ptx);
  REQUIRE(O.unsliceable().empty());
  CHECK(O.kernels() == std::vector<std::string>{"first", "second"});

  std::string First = O.slice("first");
  CHECK(First.starts_with(".version 8.0\n.target sm_80\n.address_size 64\n.file 1"));
  CHECK(has(First, ".entry first"));
  CHECK(has(First, "twice (.param .b32 x);")); // the declaration before its use stays
  CHECK(has(First, "leaf"));
  CHECK(has(First, ".b8 tile[64]"));
  CHECK_FALSE(has(First, "unused"));
  CHECK_FALSE(has(First, ".entry second"));
  CHECK_FALSE(has(First, "picked"));
  CHECK_FALSE(has(First, "dyn[]"));
  CHECK_FALSE(has(First, "a comment"));
  CHECK(First.find("leaf (") < First.find(".entry first")); // the module's order
  requireParses(First);

  std::string Second = O.slice("second");
  CHECK(has(Second, ".func (.param .b32 r) picked")); // its address is taken
  CHECK(has(Second, "dyn[]"));
  CHECK_FALSE(has(Second, "twice"));
  requireParses(Second);

  CHECK(O.slice("twice").empty()); // a function, not a kernel
  CHECK(O.slice("none").empty());
  // A slice is the same text whatever else the module holds after it: the cache key of the
  // kernel. What it holds is on the module's lines (diagnostics give the module's positions).
  std::string Other = Ptx + ".visible .entry third () { ret; }\n";
  CHECK(outlineModule(Other).slice("first") == First);
  auto LineOf = [](const std::string &Text, const std::string &What) {
    return std::count(Text.begin(), Text.begin() + Text.find(What), '\n');
  };
  for (const char *What :
       {".visible .entry first", "add.s32", ".func (.param .b32 r) twice (", ".maxntid 64"})
    CHECK(LineOf(First, What) == LineOf(Ptx, What));
  CHECK(First.find("  add.s32") != std::string::npos);
}

TEST_CASE("kernels that share state are not sliced, and say why", "[slices]") {
  auto Why = [](const std::string &Extra) {
    return outlineModule(std::string(Header) + Extra + Body).unsliceable();
  };
  CHECK(Why(".global .align 8 .u64 table[1] = {generic(leaf)};\n").find("names function 'leaf'") !=
        std::string::npos);
  CHECK(Why(".global .texref tex;\n.func t() { mov.u64 %rd1, tex; ret; }\n").find(": tex)") !=
        std::string::npos);
  CHECK(Why(".global .attribute(.managed) .align 4 .u32 total;\n"
            ".func m() { ld.global.u32 %r1, [total]; ret; }\n")
            .find(": total)") != std::string::npos);
  CHECK(Why(".global .u32 a, b;\n.func m() { ld.global.u32 %r1, [a]; ret; }\n").find(": a)") !=
        std::string::npos);
  CHECK(Why(".extern .func (.param .b32 r) cudaLaunchDeviceV2 (.param .b64 p, .param .b64 s);\n")
            .find("launches kernels from the device") != std::string::npos);
  CHECK(Why(".section .debug_str { }\n").find(".section") != std::string::npos);
  CHECK(Why(".visible .entry k() { mov.u64 %rd1, first; ret; }\n").find("names kernel 'first'") !=
        std::string::npos);
  CHECK(Why("garbage\n").find("no directive") != std::string::npos);
  CHECK(Why(".func f() { ret;\n").find("unbalanced") != std::string::npos);
  CHECK(outlineModule(std::string(Header) + Body).slice("first") != "");
}

TEST_CASE("variables no code names stay out of the kernels' slices, in the data slice",
          "[slices]") {
  std::string Vars = ".global .align 1 .b8 ignore[1];\n"
                     ".visible .const .align 4 .b8 unused_table[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n";
  std::string Ptx = std::string(Header) + Vars + Body;
  ModuleOutline O = outlineModule(Ptx);
  REQUIRE(O.unsliceable().empty());
  CHECK(O.hasVariables());
  CHECK_FALSE(has(O.slice("first"), "ignore"));
  std::string Data = O.dataSlice();
  CHECK(has(Data, ".global .align 1 .b8 ignore[1];"));
  CHECK(has(Data, "unused_table[8] = {1, 2, 3, 4, 5, 6, 7, 8};"));
  CHECK_FALSE(has(Data, ".entry"));
  requireParses(Data);
  CHECK(outlineModule(std::string(Header) + Body).dataSlice().empty());
}

TEST_CASE("a slice declares the module variables its code names; the data slice defines them",
          "[slices]") {
  // `counter` is named by first's callee, `table` (initialised over two lines, naming `counter`)
  // by second; `ignore` by no code.
  std::string Vars = ".global .align 1 .b8 ignore[1];\n"
                     ".visible .global .align 4 .u32 counter;\n"
                     ".const .align 8 .u64 table[3] = {1, 2,\n"
                     "  generic(counter)};\n";
  std::string Code = ".func use() { .reg .b32 %r<2>; ld.global.u32 %r1, [counter]; ret; }\n"
                     ".visible .entry one() { call.uni use, (); ret; }\n"
                     ".visible .entry two() { .reg .b64 %rd<2>; ld.const.u64 %rd1, [table+8]; "
                     "ret; }\n"
                     ".visible .entry three() { ret; }\n";
  std::string Ptx = std::string(".version 8.0\n.target sm_80\n.address_size 64\n") + Vars + Code;
  ModuleOutline O = outlineModule(Ptx);
  REQUIRE(O.unsliceable().empty());
  std::string One = O.slice("one"), Two = O.slice("two"), Three = O.slice("three");
  CHECK(has(One, ".extern .global .align 4 .u32 counter;"));
  CHECK_FALSE(has(One, "table"));
  CHECK(has(Two, ".extern .const .align 8 .u64 table[3];"));
  CHECK_FALSE(has(Two, "counter")); // named by table's initializer only: the data slice's
  CHECK_FALSE(has(Three, ".extern"));
  CHECK(O.variablesOf("one") == std::vector<std::string>{"counter"});
  CHECK(O.variablesOf("two") == std::vector<std::string>{"table"});
  CHECK(O.variablesOf("three").empty());
  CHECK(O.variablesOf("use").empty()); // no kernel
  // Every line where it was in the module (table's initializer took two).
  auto LineOf = [](const std::string &Text, const std::string &What) {
    return std::count(Text.begin(), Text.begin() + Text.find(What), '\n');
  };
  CHECK(LineOf(Two, ".visible .entry two") == LineOf(Ptx, ".visible .entry two"));
  CHECK(LineOf(One, ".visible .entry one") == LineOf(Ptx, ".visible .entry one"));
  for (const std::string *S : {&One, &Two, &Three})
    requireParses(*S);
  std::string Data = O.dataSlice();
  CHECK(has(Data, "generic(counter)};"));
  CHECK(has(Data, ".visible .global .align 4 .u32 counter;"));
  CHECK_FALSE(has(Data, ".entry"));
  requireParses(Data);
}
