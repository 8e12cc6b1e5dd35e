#include "Helpers.h"

#include "ptx2amd/ptx-ir/Verifier.h"

#include <catch2/catch.hpp>

using namespace ptx2amd;
using namespace ptx2amd::test;
using ir::Function;

TEST_CASE("module header: version, target, globals, signatures", "[reader]") {
  auto R = read(R"(.version 9.1
.target sm_100a, debug
.address_size 64
.extern .func (.param .b32 r) ext(.param .b64 p);
.visible .global .align 8 .u64 tbl[3] = {1, 2, 3};
.const .align 4 .f32 c[2] = {0f3F800000, 2.0};
.global .attribute(.managed) .align 4 .u32 m;
.global .u64 addr = generic(m)+8;
.visible .entry k(.param .u64 .ptr .global .align 16 a, .param .align 8 .b8 s[24])
.maxntid 128, 1, 1
.minnctapersm 2
{
  ret;
}
)");
  REQUIRE(R.Error == "");
  const ir::Module &M = *R.M;
  CHECK(M.VersionMajor == 9);
  CHECK(M.VersionMinor == 1);
  CHECK(M.Target == std::vector<std::string>{"sm_100a", "debug"});
  REQUIRE(M.Globals.size() == 4);
  CHECK(M.Globals[0].Link == ir::Linkage::Visible);
  CHECK(M.Globals[0].Init.K == ir::Initializer::Data);
  CHECK(M.Globals[0].Init.Bytes.size() == 24);
  CHECK(M.Globals[1].Init.K == ir::Initializer::List); // decimal floats take the token path
  CHECK(M.Globals[1].Init.Elements.size() == 2);
  CHECK(M.Globals[2].Managed);
  CHECK(M.Globals[3].Init.K == ir::Initializer::Symbol);
  CHECK(M.Globals[3].Init.Wrapper == "generic");
  CHECK(M.Globals[3].Init.Value == 8);
  REQUIRE(M.Functions.size() == 2);
  const Function &K = *M.Functions[1];
  CHECK(K.IsKernel);
  CHECK(K.St == Function::State::Built);
  CHECK(K.MaxNTid == llvm::SmallVector<uint32_t, 3>{128, 1, 1});
  CHECK(K.MinNCtaPerSm == 2);
  REQUIRE(K.Params.size() == 2);
  CHECK(K.Params[0].IsPtr);
  CHECK(K.Params[0].PtrSpace == ir::Space::Global);
  CHECK(K.Params[0].PtrAlign == 16);
  CHECK(K.Params[1].Align == 8);
  CHECK(K.Params[1].sizeInBytes() == 24);
  CHECK(M.Functions[0]->St == Function::State::Declared);
  CHECK(M.Functions[0]->Returns.size() == 1);
}

TEST_CASE("module-level errors fail the read with a location", "[reader]") {
  auto R = read(".version 9.0\n.target sm_90\n.address_size 64\n.global .u32 x\n.global .u32 y;\n");
  REQUIRE(R.Error != "");
  CHECK(R.Error.find(
            "t.ptx:4:15: error: expected ';' at the end of the statement\n    .global .u32 x") !=
        std::string::npos);
  auto Missing = read(".target sm_90\n");
  CHECK(Missing.Error.find("missing .version directive") != std::string::npos);
  auto Unknown = read(module(".frobnicate 3;\n"));
  CHECK(Unknown.Error.find("t.ptx:4:1: error: unexpected '.frobnicate'") != std::string::npos);
}

TEST_CASE("an error fails only its function", "[reader]") {
  auto R = read(module(R"(
.func good(.param .b32 a)
{
  .reg .b32 %r<2>;
  ld.param.b32 %r0, [a];
  add.s32 %r1, %r0, 1;
  ret;
}
.func bad()
{
  .reg .b32 %r<2>;
  add.foo.s32 %r1, %r0, 1;
  frob.s32 %r1, %r0;
  mov.u32 %r1, %r7;
}
.func syntax()
{
  mov.u32 %r1, ;
}
)"));
  REQUIRE(R.Error == "");
  const ir::Module &M = *R.M;
  CHECK(M.Functions[0]->St == Function::State::Built);
  REQUIRE(M.Functions[1]->St == Function::State::Failed);
  std::string D = diags(*M.Functions[1]);
  CHECK(D.find("t.ptx:15:3: error: in function 'bad': unknown modifier '.foo' for 'add'\n"
               "    add.foo.s32 %r1, %r0, 1;") != std::string::npos);
  CHECK(D.find("t.ptx:16:3: error: in function 'bad': unknown instruction 'frob'") !=
        std::string::npos);
  CHECK(D.find("t.ptx:17:16: error: in function 'bad': undeclared register '%r7'") !=
        std::string::npos);
  REQUIRE(M.Functions[2]->St == Function::State::Failed);
  CHECK(diags(*M.Functions[2]).find("t.ptx:21:16: error: in function 'syntax': unexpected ';'") !=
        std::string::npos);
}

TEST_CASE("table checks: types and modifiers per opcode", "[reader]") {
  auto Check = [](const std::string &Inst, const std::string &Want) {
    auto R = read(
        module(".func f()\n{\n.reg .b32 %r<3>;\n.reg .pred %p;\n.reg .f32 %f;\n" + Inst + "\n}\n"));
    REQUIRE(R.Error == "");
    INFO(Inst);
    if (Want.empty()) {
      CHECK(R.M->Functions[0]->St == Function::State::Built);
      CHECK(diags(*R.M->Functions[0]) == "");
    } else {
      CHECK(diags(*R.M->Functions[0]).find(Want) != std::string::npos);
    }
  };
  Check("add.s32 %r0, %r1, %r2;", "");
  Check("add.s32.s32 %r0, %r1, %r2;", "'add' takes 1 type suffix, found 2");
  Check("popc.f32 %r0, %r1;", "type '.f32' is not valid for 'popc'");
  Check("add.ballot.s32 %r0, %r1, %r2;", "modifier '.ballot' is not valid for 'add'");
  Check("cvt.rn.f32.s32 %f, %r1;", "");
  Check("cvt.f32 %f, %r1;", "'cvt' takes 2 to 3 type suffixes, found 1");
  Check("mov.u32 5, %r1;", "the destination of 'mov' must be a register");
  Check("@%r1 mov.u32 %r0, %r1;", "guard '%r1' is not a predicate");
  Check("bra $nowhere;", "undefined symbol '$nowhere'");
  Check("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f, %f, %f, %f}, {%r0, %r1}, {%r2}, "
        "{%f, %f, %f, %f};",
        "");
}

TEST_CASE("SSA: loops get phis, predicated writes keep a prior value", "[ssa]") {
  auto R = read(module(R"(
.visible .entry k(.param .u32 n)
{
  .reg .b32 %r<4>;
  .reg .pred %p<2>;
  ld.param.u32 %r0, [n];
  mov.u32 %r1, 0;
$Lloop:
  add.s32 %r1, %r1, 2;
  setp.lt.s32 %p0, %r1, %r0;
  @%p0 bra $Lloop;
  setp.eq.s32 %p1, %r1, 8;
  @%p1 mov.u32 %r1, 7;
  @!%p1 add.s32 %r2, %r2, 1;
  st.global.u32 [%r3], %r1;
  ret;
}
)"));
  REQUIRE(R.Error == "");
  const Function &F = *R.M->Functions[0];
  REQUIRE(F.St == Function::State::Built);
  CHECK(ir::verifyFunction(*R.M, F).empty());
  std::string S = print(*R.M);
  CHECK(S.find("%r1.2 = phi.b32 [%r1.1, $__bb0], [%r1.3, $Lloop];") != std::string::npos);
  CHECK(S.find("add.s32 %r1.3, %r1.2, 2;") != std::string::npos);
  CHECK(S.find("@%p1.1 mov.u32 %r1.4, 7; // prior: %r1.3") != std::string::npos);
  // Reading a register never written gives undef.
  CHECK(S.find("@!%p1.1 add.s32 %r2.1, %r2.undef, 1; // prior: %r2.undef") != std::string::npos);
  CHECK(S.find("st.global.u32 [%r3.undef], %r1.4;") != std::string::npos);
}

TEST_CASE("SSA: nested scopes shadow registers; .reg parameters are arguments", "[ssa]") {
  auto R = read(module(R"(
.func (.param .b32 ret) f(.reg .b32 a)
{
  .reg .b32 %t;
  mov.b32 %t, a;
  {
    .reg .b32 %t;
    add.s32 %t, a, 1;
    mov.b32 a, %t;
  }
  add.s32 %t, %t, a;
  st.param.b32 [ret], %t;
  ret;
}
)"));
  REQUIRE(R.Error == "");
  const Function &F = *R.M->Functions[0];
  REQUIRE(F.St == Function::State::Built);
  REQUIRE(F.Vars.size() == 3);
  CHECK(F.Vars[0].Name == "a");
  CHECK(F.Vars[0].ParamIndex == 0);
  std::string S = print(*R.M);
  CHECK(S.find("mov.b32 %t.1, a.1;") != std::string::npos);
  CHECK(S.find("add.s32 %t_1.1, a.1, 1;") != std::string::npos); // the inner %t
  CHECK(S.find("mov.b32 a.2, %t_1.1;") != std::string::npos);
  CHECK(S.find("add.s32 %t.2, %t.1, a.2;") != std::string::npos);
  // Printed as PTX, the inner %t gets a unique name and the text parses to the same thing.
  std::string Ptx = print(*R.M, ir::PrintMode::PTX);
  CHECK(Ptx.find(".reg .b32 %t_1;") != std::string::npos);
  auto Again = read(Ptx);
  REQUIRE(Again.Error == "");
  CHECK(print(*Again.M, ir::PrintMode::PTX) == Ptx);
}

TEST_CASE("lazy, eager and parallel builds give the same IR", "[reader]") {
  std::string Text = module("");
  for (int K = 0; K < 40; ++K)
    Text += ".visible .entry k" + std::to_string(K) + R"((.param .u64 p)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  .reg .pred %p;
  ld.param.u64 %rd0, [p];
  mov.u32 %r0, %tid.x;
$L1:
  setp.gt.u32 %p, %r0, 3;
  @%p shr.u32 %r0, %r0, 1;
  @%p bra $L1;
  st.global.u32 [%rd0+4], %r0;
  ret;
}
)";
  auto Eager = read(Text);
  auto Parallel = read(Text, {false, 0, true});
  auto Lazy = read(Text, {true, 1, true});
  REQUIRE(Eager.Error == "");
  REQUIRE(Parallel.Error == "");
  REQUIRE(Lazy.Error == "");
  CHECK(Lazy.M->Functions[7]->St == Function::State::Unparsed);
  ir::buildAll(*Lazy.M, 2);
  CHECK(print(*Eager.M) == print(*Parallel.M));
  CHECK(print(*Eager.M) == print(*Lazy.M));
  // A body can be dropped and built again.
  Lazy.M->Functions[3]->dropBody();
  CHECK(ir::buildFunction(*Lazy.M, *Lazy.M->Functions[3]));
  CHECK(print(*Eager.M) == print(*Lazy.M));
}

TEST_CASE("the verifier finds broken SSA", "[verifier]") {
  auto R = read(module(R"(
.func f()
{
  .reg .b32 %r<2>;
  mov.u32 %r0, 1;
  add.s32 %r1, %r0, 1;
  ret;
}
)"));
  REQUIRE(R.Error == "");
  Function &F = *R.M->Functions[0];
  REQUIRE(F.St == Function::State::Built);
  CHECK(ir::verifyFunction(*R.M, F).empty());
  std::swap(F.Blocks[0].Insts[0], F.Blocks[0].Insts[1]); // use before definition
  auto Problems = ir::verifyFunction(*R.M, F);
  REQUIRE_FALSE(Problems.empty());
  CHECK(Problems[0].Message.find("verifier:") == 0);
}
