#include "TestKernels.h"

#include <catch2/catch.hpp>

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Alignment.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace amdgpu_test {

const TestKernel Saxpy = {"saxpy", R"(
define amdgpu_kernel void @saxpy(ptr addrspace(1) %out, float %a, ptr addrspace(1) %x,
                                 ptr addrspace(1) %y, i32 %n) #0 {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %in = icmp ult i32 %tid, %n
  br i1 %in, label %body, label %exit
body:
  %idx = zext i32 %tid to i64
  %px = getelementptr float, ptr addrspace(1) %x, i64 %idx
  %py = getelementptr float, ptr addrspace(1) %y, i64 %idx
  %vx = load float, ptr addrspace(1) %px
  %vy = load float, ptr addrspace(1) %py
  %m = fmul float %a, %vx
  %s = fadd float %m, %vy
  %po = getelementptr float, ptr addrspace(1) %out, i64 %idx
  store float %s, ptr addrspace(1) %po
  br label %exit
exit:
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
attributes #0 = { "amdgpu-flat-work-group-size"="1,256" }
)",
                          0, 256};

const TestKernel LdsReverse = {"reverse_block", R"(
@tile = internal addrspace(3) global [256 x float] poison, align 4

define amdgpu_kernel void @reverse_block(ptr addrspace(1) %out, ptr addrspace(1) %in) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  %idx = zext i32 %tid to i64
  %pin = getelementptr float, ptr addrspace(1) %in, i64 %idx
  %v = load float, ptr addrspace(1) %pin
  %ps = getelementptr [256 x float], ptr addrspace(3) @tile, i32 0, i32 %tid
  store float %v, ptr addrspace(3) %ps
  fence syncscope("workgroup") release
  call void @llvm.amdgcn.s.barrier()
  fence syncscope("workgroup") acquire
  %rev = sub i32 255, %tid
  %pr = getelementptr [256 x float], ptr addrspace(3) @tile, i32 0, i32 %rev
  %w = load float, ptr addrspace(3) %pr
  %po = getelementptr float, ptr addrspace(1) %out, i64 %idx
  store float %w, ptr addrspace(1) %po
  ret void
}
declare i32 @llvm.amdgcn.workitem.id.x()
declare void @llvm.amdgcn.s.barrier()
)",
                               1024, 1024};

const TestKernel Aggregate = {"aggregate", R"(
%struct.Params = type { i32, [3 x float], i64, double }

define amdgpu_kernel void @aggregate(i8 %flag, ptr addrspace(4) byref(%struct.Params) align 16 %p,
                                     { i32, i16 } %pair, ptr addrspace(1) %out) {
entry:
  %a = load i32, ptr addrspace(4) %p
  %pd = getelementptr inbounds i8, ptr addrspace(4) %p, i64 24
  %d = load double, ptr addrspace(4) %pd
  %pi = getelementptr inbounds i8, ptr addrspace(4) %p, i64 16
  %i = load i64, ptr addrspace(4) %pi
  %x = extractvalue { i32, i16 } %pair, 0
  %h = extractvalue { i32, i16 } %pair, 1
  %hz = zext i16 %h to i32
  %f = zext i8 %flag to i32
  %s1 = add i32 %a, %x
  %s2 = add i32 %s1, %f
  %s = add i32 %s2, %hz
  %dd = sitofp i32 %s to double
  %di = sitofp i64 %i to double
  %r1 = fadd double %dd, %d
  %r = fadd double %r1, %di
  store double %r, ptr addrspace(1) %out
  ret void
}
)",
                              0, 1024};

const TestKernel *const AllKernels[3] = {&Saxpy, &LdsReverse, &Aggregate};

std::string ldsKernelOfSize(uint64_t Bytes) {
  std::string S;
  raw_string_ostream OS(S);
  OS << "@big = internal addrspace(3) global [" << Bytes / 4 << " x float] poison, align 4\n"
     << R"(
define amdgpu_kernel void @big_lds(ptr addrspace(1) %out, i32 %i, i32 %j) {
  %p = getelementptr [)"
     << Bytes / 4 << R"( x float], ptr addrspace(3) @big, i32 0, i32 %i
  store float 1.0, ptr addrspace(3) %p
  call void @llvm.amdgcn.s.barrier()
  %q = getelementptr [)"
     << Bytes / 4 << R"( x float], ptr addrspace(3) @big, i32 0, i32 %j
  %v = load float, ptr addrspace(3) %q
  store float %v, ptr addrspace(1) %out
  ret void
}
declare void @llvm.amdgcn.s.barrier()
)";
  return S;
}

std::unique_ptr<Module> parseIR(LLVMContext &Ctx, StringRef IR) {
  SMDiagnostic Diag;
  std::unique_ptr<Module> M = parseAssemblyString(IR, Diag, Ctx);
  if (!M) {
    std::string Msg;
    raw_string_ostream OS(Msg);
    Diag.print("test", OS);
    FAIL("IR parse error: " << Msg);
  }
  return M;
}

std::vector<ArgSlot> expectedKernargLayout(const Function &F) {
  const DataLayout &DL = F.getParent()->getDataLayout();
  std::vector<ArgSlot> Slots;
  uint64_t Offset = 0;
  for (const Argument &A : F.args()) {
    Type *Ty = A.getType();
    Align Al = DL.getABITypeAlign(Ty);
    if (Type *ByRef = A.getParamByRefType()) {
      Ty = ByRef;
      Al = A.getParamAlign().value_or(DL.getABITypeAlign(ByRef));
    }
    Offset = alignTo(Offset, Al);
    uint64_t Size = DL.getTypeAllocSize(Ty);
    Slots.push_back({Offset, Size});
    Offset += Size;
  }
  return Slots;
}

RawElfHeader rawElfHeader(ArrayRef<uint8_t> B) {
  REQUIRE(B.size() >= 64);
  auto U16 = [&](size_t O) { return uint16_t(B[O] | B[O + 1] << 8); };
  auto U32 = [&](size_t O) { return uint32_t(U16(O) | uint32_t(U16(O + 2)) << 16); };
  REQUIRE(B[0] == 0x7f);
  REQUIRE(B[1] == 'E');
  REQUIRE(B[2] == 'L');
  REQUIRE(B[3] == 'F');
  return RawElfHeader{B[4], B[5], B[7], B[8], U16(16), U16(18), U32(48)};
}

std::string errorText(Error E) {
  if (!E)
    return "";
  return toString(std::move(E));
}

ptx2amd::amdgpu::CodeObject compileKernel(const TestKernel &K, const ptx2amd::amdgpu::Target &T,
                                          const ptx2amd::amdgpu::CodegenOptions &Opts) {
  LLVMContext Ctx;
  std::unique_ptr<Module> M = parseIR(Ctx, K.IR);
  auto CO = ptx2amd::amdgpu::compileToCodeObject(*M, T, Opts);
  if (!CO)
    FAIL("compiling " << K.Kernel << " for " << T.Name << " -O" << Opts.OptLevel << " v"
                      << Opts.CodeObjectVersion << ": " << toString(CO.takeError()));
  return std::move(*CO);
}

void forEachKernelTargetVersion(
    llvm::function_ref<void(const ptx2amd::amdgpu::Target &, const ptx2amd::amdgpu::CodeObject &)>
        Check) {
  for (const ptx2amd::amdgpu::Target &T : ptx2amd::amdgpu::allTargets())
    for (const TestKernel *K : AllKernels)
      for (unsigned V : {4u, 5u, 6u}) {
        INFO(K->Kernel << " for " << T.Name << " v" << V);
        ptx2amd::amdgpu::CodegenOptions Opts;
        Opts.CodeObjectVersion = V;
        Opts.OptLevel = V == 5 ? 3 : 0;
        Check(T, compileKernel(*K, T, Opts));
      }
}

} // namespace amdgpu_test
