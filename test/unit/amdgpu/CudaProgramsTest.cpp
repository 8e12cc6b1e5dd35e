// Every kernel of the project's CUDA test programs (test/cuda/*.cu, nvcc's sm_90 PTX, made at
// build time) translates for every target of the table: lowering without failures, the LLVM
// verifier clean, a code object whose metadata agrees with llvm-readelf and ROCm comgr, and a
// kernarg layout that is CUDA's (offsets worked out here from the PTX parameters).
#include "../../CudaProgramPtx.h"
#include "TestKernels.h"

#include "ptx2amd/amdgpu-backend/Codegen.h"
#include "ptx2amd/lowering/Lowering.h"
#include "ptx2amd/ptx-ir/Reader.h"

#include <catch2/catch.hpp>

#include "llvm/IR/Verifier.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <map>

using namespace ptx2amd;
using namespace ptx2amd::amdgpu;
using namespace amdgpu_test;

using ptx2amd_test::cudaProgramPtx;

namespace {

/// CUDA's parameter buffer: each parameter at its alignment (.align, else its element size).
std::vector<std::pair<uint64_t, uint64_t>> cudaKernargLayout(const ir::Function &F) {
  std::vector<std::pair<uint64_t, uint64_t>> Slots;
  uint64_t At = 0;
  for (const ir::Variable &P : F.Params) {
    uint64_t Elem =
        std::max<uint64_t>(1, ir::typeBits(P.Ty) / 8) * std::max<uint8_t>(1, P.VecWidth);
    uint64_t Align = P.Align ? P.Align : Elem;
    At = llvm::alignTo(At, Align);
    Slots.push_back({At, P.sizeInBytes()});
    At += P.sizeInBytes();
  }
  return Slots;
}

struct Translated {
  std::string File;
  const Target *T;
  CodeObject CO;
};

/// Every program for every target, compiled once for all the test cases below.
const std::vector<Translated> &translatedPrograms() {
  static std::vector<Translated> All = [] {
    std::vector<Translated> Out;
    std::vector<std::string> Files = cudaProgramPtx();
    REQUIRE(Files.size() >= 24); // the 24 programs of test/cuda
    for (const std::string &File : Files) {
      auto Text = llvm::MemoryBuffer::getFile(File);
      REQUIRE(bool(Text));
      for (const Target &T : allTargets()) {
        INFO(File << " for " << T.Name);
        auto M = ir::readModule(
            std::make_shared<ptx2amd::SourceText>(File, (*Text)->getBuffer().str()), {});
        if (!M)
          FAIL(llvm::toString(M.takeError()));
        auto L = lowering::lowerModule(**M, {std::string(T.Name), T.WaveSize, T.IsaVersion});
        if (!L)
          FAIL(llvm::toString(L.takeError()));
        for (const lowering::FunctionStatus &St : L->Functions) {
          INFO((St.IsKernel ? "kernel " : "function ") << St.Name);
          for (const ir::Diagnostic &D : St.Diags)
            UNSCOPED_INFO(D.str());
          CHECK(St.Diags.empty()); // declarations (vprintf) are not lowered and have none
        }
        std::string Broken;
        llvm::raw_string_ostream OS(Broken);
        CHECK_FALSE(llvm::verifyModule(*L->Module, &OS));
        INFO(Broken);
        auto CO = compileToCodeObject(*L->Module, T, {});
        if (!CO)
          FAIL(llvm::toString(CO.takeError()));
        for (const DroppedKernel &D : CO->Dropped)
          FAIL_CHECK("kernel " << D.Name << " left out: " << D.Reason);
        // The kernarg layout, against the PTX parameters read again.
        for (const std::unique_ptr<ir::Function> &F : (*M)->Functions) {
          if (!F->IsKernel)
            continue;
          const KernelMetadata *KM = nullptr;
          for (const KernelMetadata &K : CO->Kernels)
            if (K.Name == F->Name)
              KM = &K;
          INFO("kernel " << F->Name);
          REQUIRE(KM);
          auto Slots = cudaKernargLayout(*F);
          REQUIRE(KM->Args.size() >= Slots.size());
          for (size_t A = 0; A < Slots.size(); ++A) {
            INFO("parameter " << A);
            CHECK(KM->Args[A].Offset == Slots[A].first);
            CHECK(KM->Args[A].Size == Slots[A].second);
            CHECK_FALSE(KM->Args[A].isHidden());
          }
          CHECK(KM->WavefrontSize == T.WaveSize);
        }
        Out.push_back({File, &T, std::move(*CO)});
      }
    }
    return Out;
  }();
  return All;
}

} // namespace

TEST_CASE("every kernel of the CUDA test programs translates for every target",
          "[amdgpu][cuda-programs]") {
  std::map<std::string, size_t> KernelsPerTarget;
  for (const Translated &X : translatedPrograms())
    KernelsPerTarget[std::string(X.T->Name)] += X.CO.Kernels.size();
  REQUIRE(KernelsPerTarget.size() == allTargets().size());
  size_t First = KernelsPerTarget.begin()->second;
  CHECK(First >= 56); // the 24 programs have 56 kernels
  for (auto &[Name, N] : KernelsPerTarget) {
    INFO(Name);
    CHECK(N == First);
  }
}

#ifdef PTX2AMD_LLVM_READELF
TEST_CASE("CUDA test programs: metadata agrees with llvm-readelf --notes",
          "[amdgpu][cuda-programs][readelf]") {
  for (const Translated &X : translatedPrograms()) {
    INFO(X.File << " for " << X.T->Name);
    checkMetadataAgainstReadelf(*X.T, X.CO);
  }
}
#endif

#ifdef PTX2AMD_HAVE_COMGR
TEST_CASE("CUDA test programs: metadata agrees with ROCm comgr", "[amdgpu][cuda-programs][comgr]") {
  for (const Translated &X : translatedPrograms()) {
    INFO(X.File << " for " << X.T->Name);
    checkMetadataAgainstComgr(*X.T, X.CO);
  }
}
#endif

// Code generation on partitions of a module (CodegenOptions::CodegenPartitions), linked into one
// code object with one metadata note: the same kernels with the same ABI as a whole-module
// compile, a note llvm-readelf and comgr read, and the same bytes every time.
TEST_CASE("partitioned code generation gives the whole module's kernels",
          "[amdgpu][cuda-programs][partitions]") {
  unsigned Split = 0;
  for (const std::string &File : cudaProgramPtx()) {
    auto Text = llvm::MemoryBuffer::getFile(File);
    REQUIRE(bool(Text));
    for (const char *Name : {"gfx90a", "gfx1100"}) {
      const Target &T = *findTarget(Name);
      auto Compile = [&](unsigned Partitions) {
        auto M = ir::readModule(
            std::make_shared<ptx2amd::SourceText>(File, (*Text)->getBuffer().str()), {});
        REQUIRE(bool(M));
        auto L = lowering::lowerModule(**M, {std::string(T.Name), T.WaveSize, T.IsaVersion});
        REQUIRE(bool(L));
        CodegenOptions Opts;
        Opts.CodegenPartitions = Partitions;
        auto CO = compileToCodeObject(*L->Module, T, Opts);
        if (!CO)
          FAIL(llvm::toString(CO.takeError()));
        return std::move(*CO);
      };
      CodeObject Whole = Compile(1);
      if (Whole.Kernels.size() < 2)
        continue;
      INFO(File << " for " << Name);
      CodeObject Parts = Compile(4), Again = Compile(4);
      Split += Parts.Partitions > 1;
      CHECK(Whole.Partitions == 1);
      CHECK(Parts.Bytes == Again.Bytes);
      CHECK(Parts.Dropped.empty());
      auto ByName = [](const CodeObject &CO) {
        std::map<std::string, const KernelMetadata *> Out;
        for (const KernelMetadata &K : CO.Kernels)
          Out[K.Name] = &K;
        return Out;
      };
      auto W = ByName(Whole), P = ByName(Parts);
      REQUIRE(W.size() == P.size());
      for (auto &[KName, WK] : W) {
        INFO("kernel " << KName);
        REQUIRE(P.count(KName));
        const KernelMetadata &PK = *P[KName];
        CHECK(PK.KernargSegmentSize == WK->KernargSegmentSize);
        CHECK(PK.GroupSegmentFixedSize == WK->GroupSegmentFixedSize);
        CHECK(PK.WavefrontSize == WK->WavefrontSize);
        REQUIRE(PK.Args.size() == WK->Args.size());
        for (size_t A = 0; A < PK.Args.size(); ++A) {
          CHECK(PK.Args[A].Offset == WK->Args[A].Offset);
          CHECK(PK.Args[A].Size == WK->Args[A].Size);
          CHECK(PK.Args[A].ValueKind == WK->Args[A].ValueKind);
        }
      }
#ifdef PTX2AMD_LLVM_READELF
      checkMetadataAgainstReadelf(T, Parts);
#endif
#ifdef PTX2AMD_HAVE_COMGR
      checkMetadataAgainstComgr(T, Parts);
#endif
    }
  }
  CHECK(Split >= 20); // the programs with two or more kernels, on two targets
}
