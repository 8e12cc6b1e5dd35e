// compileToCodeObject / compileToAssembly for every target of the table.
#include "TestKernels.h"

#include "ptx2amd/amdgpu-backend/Codegen.h"
#include "ptx2amd/amdgpu-backend/DeviceOutput.h"

#include <catch2/catch.hpp>

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <chrono>
#include <cstdio>
#include <set>
#include <thread>

using namespace ptx2amd::amdgpu;
using namespace amdgpu_test;

namespace {

constexpr uint8_t ElfClass64 = 2, ElfData2Lsb = 1, ElfOsAbiAmdgpuHsa = 64;
constexpr uint16_t EtDyn = 3, EmAmdgpu = 224;

uint8_t abiVersionFor(unsigned CodeObjectVersion) { return uint8_t(CodeObjectVersion - 2); }

/// The checks every code object of every test kernel must pass.
void checkCodeObject(const CodeObject &CO, const TestKernel &K, const Target &T,
                     const CodegenOptions &Opts) {
  INFO("kernel " << K.Kernel << ", target " << T.Name << ", -O" << Opts.OptLevel << ", v"
                 << Opts.CodeObjectVersion);
  CHECK(CO.Tgt == &T);
  CHECK(CO.CodeObjectVersion == Opts.CodeObjectVersion);

  // ELF header, read from the bytes.
  RawElfHeader H = rawElfHeader(CO.Bytes);
  CHECK(H.Class == ElfClass64);
  CHECK(H.Data == ElfData2Lsb);
  CHECK(H.OsAbi == ElfOsAbiAmdgpuHsa);
  CHECK(H.AbiVersion == abiVersionFor(Opts.CodeObjectVersion));
  CHECK(H.Type == EtDyn);
  CHECK(H.Machine == EmAmdgpu);
  CHECK((H.Flags & 0xff) == T.ElfMach);

  // Metadata against what the IR implies.
  REQUIRE(CO.Kernels.size() == 1);
  const KernelMetadata &M = CO.Kernels[0];
  CHECK(M.Name == K.Kernel);
  CHECK(M.Symbol == std::string(K.Kernel) + ".kd");
  CHECK(M.WavefrontSize == T.WaveSize);
  CHECK(M.GroupSegmentFixedSize == K.LdsBytes);
  CHECK(M.MaxFlatWorkgroupSize == K.MaxFlatWorkgroup);
  if (Opts.OptLevel > 0) // -O0 keeps allocas in scratch
    CHECK(M.PrivateSegmentFixedSize == 0);
  CHECK_FALSE(M.UsesDynamicStack);
  CHECK(M.VgprCount > 0);
  CHECK(M.SgprCount > 0);
  if (!T.isGfx9())
    CHECK(M.AgprCount == 0); // no AGPRs before CDNA... nor on RDNA
  CHECK(M.KernargSegmentAlign >= 8);

  llvm::LLVMContext Ctx;
  auto Mod = parseIR(Ctx, K.IR);
  REQUIRE(errorText(prepareModule(*Mod, T, Opts)).empty());
  llvm::Function *F = Mod->getFunction(K.Kernel);
  REQUIRE(F);
  std::vector<ArgSlot> Want = expectedKernargLayout(*F);
  std::vector<const KernelArgMetadata *> Explicit, Hidden;
  for (const KernelArgMetadata &A : M.Args)
    (A.isHidden() ? Hidden : Explicit).push_back(&A);
  REQUIRE(Explicit.size() == Want.size());
  uint64_t ExplicitEnd = 0;
  for (size_t I = 0; I < Want.size(); ++I) {
    INFO("argument " << I << " (" << Explicit[I]->Name << ")");
    CHECK(Explicit[I]->Name == F->getArg(I)->getName().str());
    CHECK(Explicit[I]->Offset == Want[I].Offset);
    CHECK(Explicit[I]->Size == Want[I].Size);
    ExplicitEnd = Want[I].Offset + Want[I].Size;
  }
  CHECK(M.explicitKernargSize() == ExplicitEnd);
  CHECK(M.KernargSegmentSize >= ExplicitEnd);
  for (const KernelArgMetadata *A : Hidden) {
    CHECK(A->Offset >= ExplicitEnd);
    CHECK(A->Offset + A->Size <= M.KernargSegmentSize);
  }
  // Code object v5+ puts the block count first among the hidden arguments (v4 the global offset).
  if (!Hidden.empty())
    CHECK(Hidden[0]->ValueKind ==
          (Opts.CodeObjectVersion >= 5 ? "hidden_block_count_x" : "hidden_global_offset_x"));
  if (Hidden.empty())
    CHECK(M.KernargSegmentSize == ExplicitEnd);
}

} // namespace

TEST_CASE("every test kernel compiles for every target", "[amdgpu][codegen]") {
  for (const Target &T : allTargets())
    for (const TestKernel *K : AllKernels) {
      CodegenOptions Opts;
      CodeObject CO = compileKernel(*K, T, Opts);
      checkCodeObject(CO, *K, T, Opts);
    }
}

TEST_CASE("saxpy argument kinds", "[amdgpu][codegen]") {
  CodeObject CO = compileKernel(Saxpy, *findTarget("gfx942"));
  REQUIRE(CO.Kernels.size() == 1);
  const auto &Args = CO.Kernels[0].Args;
  REQUIRE(Args.size() >= 5);
  const char *Kinds[] = {"global_buffer", "by_value", "global_buffer", "global_buffer", "by_value"};
  const uint64_t Offsets[] = {0, 8, 16, 24, 32};
  for (size_t I = 0; I < 5; ++I) {
    INFO("argument " << I);
    CHECK(Args[I].ValueKind == Kinds[I]);
    CHECK(Args[I].Offset == Offsets[I]);
    CHECK(Args[I].AddressSpace == (I == 1 || I == 4 ? "" : "global"));
  }
}

TEST_CASE("every optimisation level works", "[amdgpu][codegen]") {
  for (const Target &T : allTargets())
    for (unsigned O = 0; O <= 3; ++O) {
      CodegenOptions Opts;
      Opts.OptLevel = O;
      for (const TestKernel *K : AllKernels) {
        if (O != 0 && O != 3 && K != &Saxpy)
          continue;
        CodeObject CO = compileKernel(*K, T, Opts);
        checkCodeObject(CO, *K, T, Opts);
      }
    }
}

TEST_CASE("code object versions 4, 5 and 6", "[amdgpu][codegen]") {
  for (const Target &T : allTargets())
    for (unsigned V : {4u, 5u, 6u})
      for (unsigned O : {0u, 3u}) {
        CodegenOptions Opts;
        Opts.CodeObjectVersion = V;
        Opts.OptLevel = O;
        CodeObject CO = compileKernel(Saxpy, T, Opts);
        checkCodeObject(CO, Saxpy, T, Opts);
        auto MD = readCodeObjectMetadata(CO.Bytes);
        REQUIRE(bool(MD));
        CHECK(MD->codeObjectVersion() == V);
        REQUIRE(MD->Version.size() == 2);
        CHECK(MD->Version[0] == 1);
        CHECK(MD->Version[1] == (V == 4 ? 1 : 2)); // LLVM 22 writes 1.2 for v5 and v6
        CHECK_THAT(MD->TargetId, Catch::StartsWith("amdgcn-amd-amdhsa--" + std::string(T.Name)));
      }
}

TEST_CASE("LDS limit of each target is the table's", "[amdgpu][codegen]") {
  for (const Target &T : allTargets()) {
    INFO(T.Name);
    CodegenOptions Opts;
    {
      llvm::LLVMContext Ctx;
      auto M = parseIR(Ctx, ldsKernelOfSize(T.LdsBytesPerWorkgroup));
      auto CO = compileToCodeObject(*M, T, Opts);
      REQUIRE(errorText(CO.takeError()) == "");
      CHECK(CO->Kernels.at(0).GroupSegmentFixedSize == T.LdsBytesPerWorkgroup);
    }
    {
      llvm::LLVMContext Ctx;
      auto M = parseIR(Ctx, ldsKernelOfSize(T.LdsBytesPerWorkgroup + 1024));
      auto CO = compileToCodeObject(*M, T, Opts);
      std::string Err = errorText(CO.takeError());
      CHECK_THAT(Err, Catch::Contains("code generation for " + std::string(T.Name) + " failed"));
      CHECK_THAT(Err, Catch::Contains("\n  local memory ("));
    }
  }
}

TEST_CASE("an invalid module is an error with the verifier's text", "[amdgpu][codegen]") {
  llvm::LLVMContext Ctx;
  llvm::Module M("broken", Ctx);
  auto *FT = llvm::FunctionType::get(llvm::Type::getVoidTy(Ctx), false);
  auto *F = llvm::Function::Create(FT, llvm::Function::ExternalLinkage, "k", M);
  F->setCallingConv(llvm::CallingConv::AMDGPU_KERNEL);
  llvm::BasicBlock::Create(Ctx, "entry", F); // no terminator
  for (const Target &T : allTargets()) {
    auto CO = compileToCodeObject(M, T, {});
    std::string Err = errorText(CO.takeError());
    CHECK_THAT(Err, Catch::Contains("invalid LLVM module 'broken'"));
    CHECK_THAT(Err, Catch::Contains("does not have terminator"));
  }
  CHECK_THAT(errorText(compileToAssembly(M, *findTarget("gfx90a"), {}).takeError()),
             Catch::Contains("does not have terminator"));
}

TEST_CASE("bad options and foreign modules are errors", "[amdgpu][codegen]") {
  const Target &T = *findTarget("gfx1100");
  for (auto [O, V, Want] : {std::tuple{4u, 5u, "invalid optimisation level 4"},
                            std::tuple{3u, 3u, "unsupported code object version 3"},
                            std::tuple{3u, 7u, "unsupported code object version 7"}}) {
    llvm::LLVMContext Ctx;
    auto M = parseIR(Ctx, Saxpy.IR);
    CodegenOptions Opts;
    Opts.OptLevel = O;
    Opts.CodeObjectVersion = V;
    CHECK_THAT(errorText(compileToCodeObject(*M, T, Opts).takeError()), Catch::Contains(Want));
  }
  llvm::LLVMContext Ctx;
  auto M = parseIR(Ctx, Saxpy.IR);
  M->setTargetTriple(llvm::Triple("x86_64-pc-linux-gnu"));
  CHECK_THAT(errorText(compileToCodeObject(*M, T, {}).takeError()),
             Catch::Contains("is for 'x86_64-pc-linux-gnu', not amdgcn-amd-amdhsa"));
}

TEST_CASE("a kernel that needs an undefined symbol is left out, the others stay",
          "[amdgpu][codegen]") {
  llvm::LLVMContext Ctx;
  auto M = parseIR(Ctx, R"(
declare void @external_fn(ptr addrspace(1))
@external_var = external addrspace(1) global i32
define internal void @helper(ptr addrspace(1) %p) {
  call void @external_fn(ptr addrspace(1) %p)
  ret void
}
define amdgpu_kernel void @calls_out(ptr addrspace(1) %p) {
  call void @helper(ptr addrspace(1) %p)
  ret void
}
define amdgpu_kernel void @uses_var(ptr addrspace(1) %p) {
  store i32 1, ptr addrspace(1) @external_var
  ret void
}
define amdgpu_kernel void @fine(ptr addrspace(1) %p) {
  store i32 1, ptr addrspace(1) %p
  ret void
}
)");
  auto CO = compileToCodeObject(*M, *findTarget("gfx90a"), {});
  REQUIRE(errorText(CO.takeError()).empty());
  REQUIRE(CO->Kernels.size() == 1);
  CHECK(CO->Kernels[0].Name == "fine");
  REQUIRE(CO->Dropped.size() == 2);
  CHECK(CO->Dropped[0].Name == "calls_out");
  CHECK(CO->Dropped[0].Reason == "it calls 'external_fn', which is not defined in this module");
  CHECK(CO->Dropped[1].Name == "uses_var");
  CHECK(CO->Dropped[1].Reason == "it uses 'external_var', which is not defined in this module");
}

TEST_CASE("variables defined at load stay undefined in the code object, for the loader",
          "[amdgpu][codegen]") {
  // Lazy per-kernel translation: a kernel's slice declares the module's variables, which the
  // loader defines (hsa_executable_agent_global_variable_define) before loading the code object.
  llvm::LLVMContext Ctx;
  auto M = parseIR(Ctx, R"(
declare void @external_fn(ptr addrspace(1))
@table = external addrspace(1) global [4 x i32]
@scale = external addrspace(4) global i32
define amdgpu_kernel void @uses_vars(ptr addrspace(1) %p) {
  %s = load i32, ptr addrspace(4) @scale
  store i32 %s, ptr addrspace(1) getelementptr (i8, ptr addrspace(1) @table, i64 8)
  ret void
}
define amdgpu_kernel void @calls_out(ptr addrspace(1) %p) {
  call void @external_fn(ptr addrspace(1) %p)
  ret void
}
)");
  CodegenOptions Opts;
  Opts.ExternalVariables = true;
  auto CO = compileToCodeObject(*M, *findTarget("gfx90a"), Opts);
  REQUIRE(errorText(CO.takeError()).empty());
  REQUIRE(CO->Kernels.size() == 1);
  CHECK(CO->Kernels[0].Name == "uses_vars");
  REQUIRE(CO->Dropped.size() == 1); // functions must still be defined
  CHECK(CO->Dropped[0].Name == "calls_out");
  auto Bin = llvm::object::ObjectFile::createELFObjectFile(llvm::MemoryBufferRef(
      llvm::StringRef(reinterpret_cast<const char *>(CO->Bytes.data()), CO->Bytes.size()),
      "code object"));
  REQUIRE(errorText(Bin.takeError()).empty());
  auto *Elf = llvm::cast<llvm::object::ELFObjectFileBase>(Bin->get());
  std::set<std::string> Undefined;
  for (const llvm::object::ELFSymbolRef &Sym : Elf->getDynamicSymbolIterators())
    if (auto Flags = Sym.getFlags(); Flags && (*Flags & llvm::object::SymbolRef::SF_Undefined))
      if (auto Name = Sym.getName())
        Undefined.insert(Name->str());
  CHECK(Undefined == std::set<std::string>{"scale", "table"});
}

TEST_CASE("a kernel LLVM cannot compile is left out, the others stay", "[amdgpu][codegen]") {
  // LLVM 22 crashes (a segmentation fault in post-RA pseudo expansion) on this f16 copysign for
  // gfx1100; gfx90a compiles it.
  const char *IR = R"(
define amdgpu_kernel void @crashes(ptr addrspace(1) %p, float %x) {
  %h = fptrunc float %x to half
  %z = call half @llvm.copysign.f16(half 0.0, half %h)
  %s = fadd half %z, %h
  store half %s, ptr addrspace(1) %p
  ret void
}
define amdgpu_kernel void @fine(ptr addrspace(1) %p) {
  store i32 1, ptr addrspace(1) %p
  ret void
}
declare half @llvm.copysign.f16(half, half)
)";
  for (int Round = 0; Round < 2; ++Round) { // and the process keeps working
    llvm::LLVMContext Ctx;
    auto M = parseIR(Ctx, IR);
    auto CO = compileToCodeObject(*M, *findTarget("gfx1100"), {});
    REQUIRE(errorText(CO.takeError()).empty());
    REQUIRE(CO->Kernels.size() == 1);
    CHECK(CO->Kernels[0].Name == "fine");
    REQUIRE(CO->Dropped.size() == 1);
    CHECK(CO->Dropped[0].Name == "crashes");
    CHECK_THAT(CO->Dropped[0].Reason, Catch::StartsWith("code generation failed"));
  }
  llvm::LLVMContext Ctx;
  auto M = parseIR(Ctx, IR);
  auto CO = compileToCodeObject(*M, *findTarget("gfx90a"), {});
  REQUIRE(errorText(CO.takeError()).empty());
  CHECK(CO->Kernels.size() == 2);
  CHECK(CO->Dropped.empty());
  compileKernel(Saxpy, *findTarget("gfx1100"));
}

TEST_CASE("device-library functions are linked in, only those called", "[amdgpu][codegen]") {
  for (const Target &T : allTargets()) {
    INFO("target " << T.Name);
    llvm::LLVMContext Ctx;
    auto M = parseIR(Ctx, R"(
declare i32 @__ptx2amd_vprintf(i64, i64)
declare float @__ocml_sin_f32(float)
define amdgpu_kernel void @k(ptr addrspace(1) %p, float %x, i64 %fmt) {
  %r = call i32 @__ptx2amd_vprintf(i64 %fmt, i64 0)
  %s = call float @__ocml_sin_f32(float %x)
  store float %s, ptr addrspace(1) %p
  ret void
}
)");
    REQUIRE(errorText(prepareModule(*M, T, {})).empty());
    const llvm::Function *Printf = M->getFunction("__ptx2amd_vprintf");
    REQUIRE(Printf);
    CHECK_FALSE(Printf->isDeclaration());
    CHECK(Printf->hasInternalLinkage());
    const llvm::Function *Sin = M->getFunction("__ocml_sin_f32");
    REQUIRE(Sin);
    CHECK_FALSE(Sin->isDeclaration());
    CHECK_FALSE(M->getFunction("__ptx2amd_assertfail")); // not called, not linked
    CHECK_FALSE(M->getFunction("__ocml_cos_f64"));
    const llvm::GlobalVariable *Buffer = M->getGlobalVariable(OutputBufferSymbol);
    REQUIRE(Buffer);
    CHECK_FALSE(Buffer->hasLocalLinkage()); // the loader finds it by name
    if (const llvm::GlobalVariable *Isa = M->getGlobalVariable("__oclc_ISA_version", true))
      CHECK(llvm::cast<llvm::ConstantInt>(Isa->getInitializer())->getZExtValue() == T.IsaVersion);
    auto CO = compileToCodeObject(*M, T, {});
    REQUIRE(errorText(CO.takeError()).empty());
    CHECK(CO->Kernels.size() == 1);
  }
}

TEST_CASE("linking garbage is an error", "[amdgpu][codegen]") {
  const uint8_t Junk[] = {1, 2, 3, 4, 5};
  CHECK_THAT(errorText(linkCodeObject(Junk).takeError()), Catch::Contains("lld failed"));
  CHECK_THAT(errorText(linkCodeObject(llvm::ArrayRef<uint8_t>()).takeError()),
             Catch::Contains("lld failed"));
}

TEST_CASE("assembly output", "[amdgpu][codegen]") {
  for (const Target &T : allTargets()) {
    INFO(T.Name);
    llvm::LLVMContext Ctx;
    auto M = parseIR(Ctx, Saxpy.IR);
    auto Asm = compileToAssembly(*M, T, {});
    REQUIRE(errorText(Asm.takeError()) == "");
    CHECK_THAT(*Asm, Catch::Contains(".amdgcn_target \"amdgcn-amd-amdhsa--" + std::string(T.Name)));
    CHECK_THAT(*Asm, Catch::Contains(".amdhsa_kernel saxpy"));
    CHECK_THAT(*Asm, Catch::Contains("s_endpgm"));
    CHECK_THAT(*Asm, Catch::Contains(".amdhsa_code_object_version 5"));
  }
}

TEST_CASE("optimizeModule prepares and optimises in place", "[amdgpu][codegen]") {
  llvm::LLVMContext Ctx;
  auto M = parseIR(Ctx, Saxpy.IR);
  CodegenOptions Opts;
  Opts.CodeObjectVersion = 6;
  REQUIRE(errorText(optimizeModule(*M, *findTarget("gfx950"), Opts)) == "");
  CHECK(M->getTargetTriple().str() == AmdgpuTriple);
  CHECK_FALSE(M->getDataLayout().isDefault());
  auto *Flag = llvm::mdconst::extract_or_null<llvm::ConstantInt>(
      M->getModuleFlag("amdhsa_code_object_version"));
  REQUIRE(Flag);
  CHECK(Flag->getZExtValue() == 600);
  // A second preparation (another version) replaces the flag rather than adding one.
  Opts.CodeObjectVersion = 4;
  REQUIRE(errorText(prepareModule(*M, *findTarget("gfx950"), Opts)) == "");
  Flag = llvm::mdconst::extract_or_null<llvm::ConstantInt>(
      M->getModuleFlag("amdhsa_code_object_version"));
  REQUIRE(Flag);
  CHECK(Flag->getZExtValue() == 400);
}

TEST_CASE("the software texture path stays out of line only where asked", "[amdgpu][codegen]") {
  // A kernel that fetches through the software path: the GPU inlines the device library's
  // entry point; the CPU device (OutlineSoftwareTextures) keeps it a call it makes per lane.
  const char *IR = R"(
declare <4 x i32> @__ptx2amd_tex_fetch(ptr addrspace(1), i32, i32, i32, i32, i32, i32)
define amdgpu_kernel void @k(ptr addrspace(1) %o, ptr addrspace(1) %out, i32 %x) {
  %t = call <4 x i32> @__ptx2amd_tex_fetch(ptr addrspace(1) %o, i32 1, i32 %x, i32 0, i32 0,
                                           i32 0, i32 0)
  store <4 x i32> %t, ptr addrspace(1) %out
  ret void
}
)";
  for (bool Outline : {false, true}) {
    INFO("OutlineSoftwareTextures " << Outline);
    llvm::LLVMContext Ctx;
    auto M = parseIR(Ctx, IR);
    CodegenOptions Opts;
    Opts.OutlineSoftwareTextures = Outline;
    REQUIRE(errorText(optimizeModule(*M, *findTarget("gfx942"), Opts)) == "");
    llvm::Function *Fetch = M->getFunction("__ptx2amd_tex_fetch");
    bool Called = Fetch && !Fetch->isDeclaration() && !Fetch->use_empty();
    CHECK(Called == Outline);
    CHECK(isSoftwareTextureEntry("__ptx2amd_tex_fetch"));
    CHECK_FALSE(isSoftwareTextureEntry("__ptx2amd_vprintf"));
  }
}

TEST_CASE("compiling the same module twice gives identical code objects", "[amdgpu][codegen]") {
  for (const Target &T : allTargets())
    for (const TestKernel *K : AllKernels) {
      INFO(K->Kernel << " for " << T.Name);
      CodeObject A = compileKernel(*K, T);
      CodeObject B = compileKernel(*K, T);
      CHECK(A.Bytes == B.Bytes);
      // A clone of one module, too.
      llvm::LLVMContext Ctx;
      auto M = parseIR(Ctx, K->IR);
      auto Clone = llvm::CloneModule(*M);
      auto C1 = compileToCodeObject(*M, T, {});
      auto C2 = compileToCodeObject(*Clone, T, {});
      REQUIRE(bool(C1));
      REQUIRE(bool(C2));
      CHECK(C1->Bytes == A.Bytes);
      CHECK(C2->Bytes == A.Bytes);
    }
}

TEST_CASE("concurrent compilations match serial ones", "[amdgpu][codegen][threads]") {
  struct Job {
    const TestKernel *K;
    const Target *T;
    std::vector<uint8_t> Serial, Parallel;
    std::string Err;
  };
  std::vector<Job> Jobs;
  for (const Target &T : allTargets())
    for (const TestKernel *K : AllKernels)
      Jobs.push_back({K, &T, {}, {}, {}});
  for (Job &J : Jobs)
    J.Serial = compileKernel(*J.K, *J.T).Bytes;
  constexpr unsigned NumThreads = 4;
  std::vector<std::thread> Threads;
  for (unsigned I = 0; I < NumThreads; ++I)
    Threads.emplace_back([&, I] {
      for (size_t J = I; J < Jobs.size(); J += NumThreads) {
        llvm::LLVMContext Ctx;
        llvm::SMDiagnostic Diag;
        auto M = llvm::parseAssemblyString(Jobs[J].K->IR, Diag, Ctx);
        if (!M) {
          Jobs[J].Err = "parse error";
          continue;
        }
        auto CO = compileToCodeObject(*M, *Jobs[J].T, {});
        if (!CO)
          Jobs[J].Err = llvm::toString(CO.takeError());
        else
          Jobs[J].Parallel = std::move(CO->Bytes);
      }
    });
  for (std::thread &Th : Threads)
    Th.join();
  for (const Job &J : Jobs) {
    INFO(J.K->Kernel << " for " << J.T->Name);
    CHECK(J.Err == "");
    CHECK(J.Parallel == J.Serial);
  }
}

// Not part of the suite: `amdgpu_tests "[.timing]"` prints compile times.
TEST_CASE("timing of saxpy", "[.timing]") {
  using Clock = std::chrono::steady_clock;
  for (const Target &T : allTargets()) {
    compileKernel(Saxpy, T); // warm-up
    constexpr int N = 20;
    double Total = 0, Opt = 0, Cg = 0, Link = 0;
    for (int I = 0; I < N; ++I) {
      llvm::LLVMContext Ctx;
      auto M = parseIR(Ctx, Saxpy.IR);
      auto Start = Clock::now();
      auto CO = compileToCodeObject(*M, T, {});
      Total += std::chrono::duration<double, std::milli>(Clock::now() - Start).count();
      REQUIRE(bool(CO));
      Opt += CO->Times.OptimizeMs;
      Cg += CO->Times.CodegenMs;
      Link += CO->Times.LinkMs;
    }
    std::printf("saxpy %-8s -O3 v5: %.2f ms per compile: optimise %.2f, codegen %.2f, lld %.2f\n",
                std::string(T.Name).c_str(), Total / N, Opt / N, Cg / N, Link / N);
  }
}
