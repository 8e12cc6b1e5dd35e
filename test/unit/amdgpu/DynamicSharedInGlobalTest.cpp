// placeDynamicSharedInGlobal (CodegenOptions::DynamicSharedInGlobal): a kernel's dynamic shared
// memory moved to a global slice per block, its descriptor argument filled by packKernargs, and
// the static shared memory left in LDS.
#include "TestKernels.h"

#include "ptx2amd/amdgpu-backend/Codegen.h"
#include "ptx2amd/amdgpu-backend/Kernarg.h"

#include <catch2/catch.hpp>

#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"

#include <cstring>

using namespace ptx2amd::amdgpu;
using namespace amdgpu_test;

namespace {

// As the lowering writes shared memory: a static variable, the dynamic one, a function that takes
// a shared address, generic casts both ways and isspacep.shared.
const char *KernelIR = R"(
@fixed = internal addrspace(3) global [16 x i32] undef, align 4
@dyn = external addrspace(3) global [0 x i8], align 16

define internal void @helper(ptr addrspace(3) %p, i32 %v) noinline {
  store i32 %v, ptr addrspace(3) %p
  ret void
}

define amdgpu_kernel void @k(ptr addrspace(4) byref(i64) align 8 %out.ref) {
  %raw = load i64, ptr addrspace(4) %out.ref
  %out = inttoptr i64 %raw to ptr addrspace(1)
  %g = getelementptr i8, ptr addrspace(3) @dyn, i32 4096
  call void @helper(ptr addrspace(3) %g, i32 7)
  store i32 1, ptr addrspace(3) @fixed
  %flat = addrspacecast ptr addrspace(3) %g to ptr
  %s = call i1 @llvm.amdgcn.is.shared(ptr %flat)
  %back = addrspacecast ptr %flat to ptr addrspace(3)
  %v = load i32, ptr addrspace(3) %back
  %old = atomicrmw add ptr addrspace(3) %g, i32 1 seq_cst
  %s32 = zext i1 %s to i32
  %sum = add i32 %v, %s32
  store i32 %sum, ptr addrspace(1) %out
  ret void
}

declare i1 @llvm.amdgcn.is.shared(ptr)
)";

bool touchesLds(const llvm::Module &M) {
  for (const llvm::Function &F : M)
    for (const llvm::BasicBlock &BB : F)
      for (const llvm::Instruction &I : BB) {
        const llvm::Value *P = llvm::getLoadStorePointerOperand(&I);
        if (auto *A = llvm::dyn_cast<llvm::AtomicRMWInst>(&I))
          P = A->getPointerOperand();
        if (P && P->getType()->getPointerAddressSpace() == 3)
          return true;
      }
  return false;
}

} // namespace

TEST_CASE("dynamic shared memory in global memory: no LDS access is left, the kernel takes the "
          "descriptor last",
          "[amdgpu][codegen]") {
  llvm::LLVMContext Ctx;
  auto M = parseIR(Ctx, KernelIR);
  REQUIRE(touchesLds(*M));
  REQUIRE(errorText(placeDynamicSharedInGlobal(*M)).empty());
  CHECK_FALSE(touchesLds(*M));
  const llvm::Function *K = M->getFunction("k");
  REQUIRE(K);
  REQUIRE(K->arg_size() == 2);
  CHECK(K->getArg(1)->getName() == DynamicSharedArgName);
  CHECK(K->getParamByRefType(1));
  CHECK(K->getArg(0)->getName() == "out.ref");
}

TEST_CASE("dynamic shared memory in global memory: the code object's LDS is the static part, and "
          "a launch fills the descriptor",
          "[amdgpu][codegen]") {
  for (const char *Name : {"gfx90a", "gfx1100"}) {
    INFO(Name);
    llvm::LLVMContext Ctx;
    auto M = parseIR(Ctx, KernelIR);
    CodegenOptions Opts;
    Opts.DynamicSharedInGlobal = true;
    auto CO = compileToCodeObject(*M, *findTarget(Name), Opts);
    REQUIRE(errorText(CO.takeError()).empty());
    REQUIRE(CO->Kernels.size() == 1);
    const KernelMetadata &Meta = CO->Kernels[0];
    CHECK(Meta.GroupSegmentFixedSize == 64); // @fixed, nothing dynamic
    REQUIRE(Meta.Args.size() > 2);
    const KernelArgMetadata &D = Meta.Args[1];
    CHECK(D.Name == DynamicSharedArgName);
    CHECK(D.Offset == 8);
    CHECK(D.Size == DynamicSharedArgBytes);
    CHECK(Meta.Args[2].isHidden());
    CHECK(Meta.Args[2].Offset == 8 + DynamicSharedArgBytes);

    uint64_t Out = 0x1234;
    void *Args[] = {&Out};
    LaunchGeometry G;
    G.Grid[0] = 3, G.Grid[1] = 2, G.Grid[2] = 5;
    G.DynamicLdsBytes = 98304;
    std::vector<uint8_t> Kernarg(Meta.KernargSegmentSize);
    // The translation needs the slices: a launch without them is an error, not a wild write.
    CHECK_FALSE(errorText(packKernargs(Meta, Args, G, {}, Kernarg)).empty());
    G.DynamicSharedAddress = 0x7f0000001000;
    REQUIRE(errorText(packKernargs(Meta, Args, G, {}, Kernarg)).empty());
    uint64_t Words[2];
    uint32_t Blocks[2];
    std::memcpy(Words, Kernarg.data() + 8, 16);
    std::memcpy(Blocks, Kernarg.data() + 24, 8);
    CHECK(Words[0] == 0x7f0000001000);
    CHECK(Words[1] == 98304);
    CHECK(Blocks[0] == 3);
    CHECK(Blocks[1] == 2);
    auto Packet = makeDispatchPacket(Meta, G, 0, 0);
    REQUIRE(errorText(Packet.takeError()).empty());
    CHECK(Packet->GroupSegmentSize == 64);
  }
}

TEST_CASE("dynamic shared memory in global memory: a standard kernel refuses a launch that "
          "placed it there",
          "[amdgpu][codegen]") {
  llvm::LLVMContext Ctx;
  auto M = parseIR(Ctx, KernelIR);
  auto CO = compileToCodeObject(*M, *findTarget("gfx90a"), {});
  REQUIRE(errorText(CO.takeError()).empty());
  uint64_t Out = 0;
  void *Args[] = {&Out};
  LaunchGeometry G;
  G.DynamicLdsBytes = 1024;
  G.DynamicSharedAddress = 0x1000;
  std::vector<uint8_t> Kernarg(CO->Kernels[0].KernargSegmentSize);
  CHECK(errorText(packKernargs(CO->Kernels[0], Args, G, {}, Kernarg))
            .find("keeps dynamic shared "
                  "memory in LDS") != std::string::npos);
}

TEST_CASE("dynamic shared memory in global memory: a shared address passed to a function defined "
          "elsewhere is an error",
          "[amdgpu][codegen]") {
  llvm::LLVMContext Ctx;
  auto M = parseIR(Ctx, R"(
@dyn = external addrspace(3) global [0 x i8], align 16
declare void @elsewhere(ptr addrspace(3))
define amdgpu_kernel void @k() {
  call void @elsewhere(ptr addrspace(3) @dyn)
  ret void
}
)");
  std::string Error = errorText(placeDynamicSharedInGlobal(*M));
  CHECK(Error.find("function 'k' passes a shared address to 'elsewhere'") != std::string::npos);
}
