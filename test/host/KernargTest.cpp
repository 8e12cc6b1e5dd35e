// The kernarg packing shared with the HSA path (amdgpu-backend/Kernarg.h): the v5 hidden argument
// layout the host backend assumes is the one LLVM puts in real code objects, and the packed bytes
// hold the launch's values at the metadata's offsets.
#include "HostTestSupport.h"

#include "ptx2amd/amdgpu-backend/Codegen.h"
#include "ptx2amd/amdgpu-backend/Kernarg.h"
#include "ptx2amd/pipeline/Translate.h"

#include "llvm/Support/MemoryBuffer.h"

using namespace host_test;

namespace {

/// The kernels of the code object the GPU path gets for \p Ptx, through the pipeline.
std::vector<amdgpu::KernelMetadata> codeObject(const std::string &Name, llvm::StringRef Ptx,
                                               const amdgpu::Target &T) {
  pipeline::Options Opts;
  Opts.Target = &T;
  pipeline::Translation Tr =
      pipeline::translate(std::make_shared<SourceText>(Name, Ptx.str()), Opts);
  if (!Tr.HasCodeObject)
    FAIL(Tr.Diagnostics);
  std::vector<amdgpu::KernelMetadata> Out;
  for (pipeline::KernelResult &K : Tr.Kernels)
    if (K.Metadata)
      Out.push_back(*K.Metadata);
  return Out;
}

} // namespace

TEST_CASE("v5 hidden arguments sit where LLVM's code objects put them", "[kernarg]") {
  // vector_add's saxpy reads gridDim: its code object lists the hidden arguments.
  auto Text = llvm::MemoryBuffer::getFile(PTX2AMD_CUDA_PTX_DIR "/vector_add.sm90.ptx");
  REQUIRE(bool(Text));
  for (const char *Name : WaveTargets) {
    const amdgpu::Target &T = *amdgpu::findTarget(Name);
    auto CO = codeObject("vector_add.ptx", (*Text)->getBuffer(), T);
    auto KIt = std::find_if(CO.begin(), CO.end(), [](const amdgpu::KernelMetadata &K) {
      return K.Name == "_Z5saxpyifPKfS0_Pf";
    });
    REQUIRE(KIt != CO.end());
    const amdgpu::KernelMetadata &K = *KIt;
    std::vector<amdgpu::KernelArgMetadata> Ours =
        amdgpu::codeObjectV5HiddenArgs(K.explicitKernargSize());
    unsigned Compared = 0;
    for (const amdgpu::KernelArgMetadata &A : K.Args) {
      if (!A.isHidden() || A.ValueKind == "hidden_none")
        continue;
      auto It = std::find_if(Ours.begin(), Ours.end(), [&](const amdgpu::KernelArgMetadata &O) {
        return O.ValueKind == A.ValueKind;
      });
      INFO(Name << ": " << A.ValueKind);
      REQUIRE(It != Ours.end());
      CHECK(It->Offset == A.Offset);
      CHECK(It->Size == A.Size);
      ++Compared;
    }
    CHECK(Compared >= 9); // block counts, group sizes, remainders at least

    // Packing with the code object's own metadata.
    int N = 7;
    float A = 0.5f;
    uint64_t X = 0x1111, Y = 0x2222, S = 0x3333;
    void *Args[] = {&N, &A, &X, &Y, &S};
    amdgpu::LaunchGeometry G;
    G.Grid[0] = 9;
    G.Grid[1] = 2;
    G.Block[0] = 256;
    G.DynamicLdsBytes = 64;
    std::vector<uint8_t> Bytes(K.KernargSegmentSize);
    REQUIRE(!amdgpu::packKernargs(K, Args, G, {}, Bytes));
    auto Read = [&](uint64_t Off, unsigned Size) {
      uint64_t V = 0;
      std::memcpy(&V, Bytes.data() + Off, Size);
      return V;
    };
    CHECK(Read(K.Args[0].Offset, 4) == 7);
    CHECK(Read(K.Args[2].Offset, 8) == 0x1111);
    CHECK(Read(K.Args[4].Offset, 8) == 0x3333);
    for (const amdgpu::KernelArgMetadata &H : K.Args) {
      if (H.ValueKind == "hidden_block_count_x")
        CHECK(Read(H.Offset, 4) == 9);
      if (H.ValueKind == "hidden_block_count_y")
        CHECK(Read(H.Offset, 4) == 2);
      if (H.ValueKind == "hidden_group_size_x")
        CHECK(Read(H.Offset, 2) == 256);
      if (H.ValueKind == "hidden_group_size_z")
        CHECK(Read(H.Offset, 2) == 1);
      if (H.ValueKind == "hidden_grid_dims")
        CHECK(Read(H.Offset, 2) == 2);
      if (H.ValueKind == "hidden_dynamic_lds_size")
        CHECK(Read(H.Offset, 4) == 64);
    }
    auto P = amdgpu::makeDispatchPacket(K, G, 0, 0x1000);
    REQUIRE(bool(P));
    CHECK(P->GridSize[0] == 9 * 256);
    CHECK(P->WorkgroupSize[0] == 256);
    CHECK(P->GroupSegmentSize == K.GroupSegmentFixedSize + 64);
    CHECK(P->KernargAddress == 0x1000);
    std::vector<uint8_t> Small(8);
    CHECK(bool(llvm::errorToBool(amdgpu::packKernargs(K, Args, G, {}, Small))));
  }
}

TEST_CASE("each kernel's static LDS is the code object's figure", "[kernarg]") {
  // Programs whose kernels use different shared variables of one module, and one with only
  // dynamic shared memory: the host reports, per kernel, what AMDGPU's code object reports.
  for (const char *Program : {"dynamic_shared", "transpose", "reduce_shared", "matmul_tiled",
                              "histogram", "runtime_api"}) {
    std::string Path = std::string(PTX2AMD_CUDA_PTX_DIR "/") + Program + ".sm90.ptx";
    auto Text = llvm::MemoryBuffer::getFile(Path);
    if (!Text)
      continue; // runtime_api's PTX is not among the test/cuda flavours
    for (const char *Name : WaveTargets) {
      INFO(Program << " on " << Name);
      const amdgpu::Target &T = *amdgpu::findTarget(Name);
      auto CO = codeObject(Path, (*Text)->getBuffer(), T);
      host::LoadedModule &Host = module(Path, Name);
      unsigned Compared = 0;
      for (const amdgpu::KernelMetadata &K : CO) {
        INFO(K.Name);
        const amdgpu::KernelMetadata *H = Host.metadata(K.Name);
        REQUIRE(H);
        CHECK(H->GroupSegmentFixedSize == K.GroupSegmentFixedSize);
        ++Compared;
      }
      CHECK(Compared > 0);
    }
  }
}
