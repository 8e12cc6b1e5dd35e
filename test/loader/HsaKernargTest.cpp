// Kernarg segments of real code objects as the HSA device packs them (hsa::prepareDispatch):
// byte-identical to the host path's packKernargs, every explicit argument at CUDA's offset (read
// independently from the PTX parameter list), the hidden arguments holding the launch.
#include "ptx2amd/amdgpu-backend/Codegen.h"
#include "ptx2amd/loader/HsaDevice.h"
#include "ptx2amd/lowering/Lowering.h"
#include "ptx2amd/ptx-ir/Reader.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <map>

using namespace ptx2amd;

namespace {

std::string readFile(const std::string &Path) {
  auto Text = llvm::MemoryBuffer::getFile(Path);
  INFO(Path);
  REQUIRE(bool(Text));
  return (*Text)->getBuffer().str();
}

amdgpu::CodeObject compile(const std::string &Ptx, const std::string &Name,
                           const amdgpu::Target &T) {
  auto M = ir::readModule(std::make_shared<SourceText>(Name, Ptx), {});
  if (!M)
    FAIL(llvm::toString(M.takeError()));
  auto L = lowering::lowerModule(**M, {std::string(T.Name), T.WaveSize, T.IsaVersion, 5});
  if (!L)
    FAIL(llvm::toString(L.takeError()));
  auto CO = amdgpu::compileToCodeObject(*L->Module, T, {3, 5});
  if (!CO)
    FAIL(llvm::toString(CO.takeError()));
  return std::move(*CO);
}

/// CUDA's parameter buffer layout of kernel \p Entry, read from its `.param` list: each
/// parameter at the next multiple of its alignment (`.align N`, else its type's size).
std::vector<std::pair<uint64_t, uint64_t>> cudaParamLayout(llvm::StringRef Ptx,
                                                           llvm::StringRef Entry) {
  size_t At = Ptx.find((".entry " + Entry + "(").str());
  REQUIRE(At != llvm::StringRef::npos);
  llvm::StringRef List = Ptx.substr(At).take_until([](char C) { return C == ')'; });
  std::vector<std::pair<uint64_t, uint64_t>> Out; // offset, size
  uint64_t End = 0;
  llvm::SmallVector<llvm::StringRef, 8> Lines;
  List.split(Lines, '\n');
  for (llvm::StringRef Line : Lines) {
    llvm::SmallVector<llvm::StringRef, 6> Words;
    Line.trim().rtrim(',').split(Words, ' ', -1, false);
    if (Words.empty() || Words[0] != ".param")
      continue;
    uint64_t Align = 0;
    size_t I = 1; // the type
    if (Words[1] == ".align") {
      Words[2].getAsInteger(10, Align);
      I = 3;
    }
    uint64_t Elem = 0;
    Words[I].drop_front(2).getAsInteger(10, Elem); // .u32 .f64 .b8 ...
    Elem /= 8;
    uint64_t Count = 1;
    llvm::StringRef Name = Words[I + 1];
    if (size_t B = Name.find('['); B != llvm::StringRef::npos)
      Name.substr(B + 1).drop_back().getAsInteger(10, Count);
    uint64_t Size = Elem * Count;
    uint64_t Offset = llvm::alignTo(End, Align ? Align : Elem);
    Out.push_back({Offset, Size});
    End = Offset + Size;
  }
  return Out;
}

uint64_t readLe(const uint8_t *P, uint64_t Size) {
  uint64_t V = 0;
  for (uint64_t B = 0; B < Size && B < 8; ++B)
    V |= uint64_t(P[B]) << (8 * B);
  return V;
}

/// Packs every kernel of \p File's code object for \p Target the HSA way and the host way.
void checkKernargs(const std::string &Path, const amdgpu::Target &T) {
  std::string Ptx = readFile(Path);
  amdgpu::CodeObject CO = compile(Ptx, Path, T);
  // Every kernel of the module.
  size_t Entries = 0;
  for (size_t At = Ptx.find(".entry "); At != std::string::npos; At = Ptx.find(".entry ", At + 1))
    ++Entries;
  REQUIRE(Entries > 0);
  REQUIRE(CO.Kernels.size() == Entries);
  const amdgpu::LaunchGeometry G{{5, 4, 3}, {32, 2, 2}, 128};
  amdgpu::HiddenArgValues H;
  H.QueuePtr = 0x7f0000001000;
  for (const amdgpu::KernelMetadata &K : CO.Kernels) {
    INFO(T.Name << " " << K.Name);
    // Each argument's bytes distinct: argument I holds 0x10*(I+1) + byte index.
    std::vector<std::vector<uint8_t>> Values;
    std::vector<const void *> Args;
    for (const amdgpu::KernelArgMetadata &A : K.Args)
      if (!A.isHidden()) {
        std::vector<uint8_t> V(A.Size);
        for (size_t B = 0; B < V.size(); ++B)
          V[B] = uint8_t(0x10 * (Values.size() + 1) + B);
        Values.push_back(std::move(V));
      }
    for (const auto &V : Values)
      Args.push_back(V.data());

    std::vector<uint8_t> Hsa(K.KernargSegmentSize, 0xcc), Host(K.KernargSegmentSize, 0x33);
    auto P = loader::hsa::prepareDispatch(K, Args.data(), G, H, Hsa, 0x9000, 0xa000);
    if (!P)
      FAIL(llvm::toString(P.takeError()));
    REQUIRE(!amdgpu::packKernargs(K, Args.data(), G, H, Host));
    CHECK(Hsa == Host);

    // The packet points at these bytes, and is otherwise Kernarg.h's.
    auto HostPacket =
        amdgpu::makeDispatchPacket(K, G, 0x9000, reinterpret_cast<uint64_t>(Hsa.data()));
    REQUIRE(bool(HostPacket));
    CHECK(P->KernargAddress == reinterpret_cast<uint64_t>(Hsa.data()));
    HostPacket->Header = P->Header;
    HostPacket->CompletionSignal = 0xa000;
    CHECK(std::memcmp(&*HostPacket, &*P, 64) == 0);
    CHECK(P->GroupSegmentSize == K.GroupSegmentFixedSize + 128);

    // Explicit arguments at CUDA's offsets, with their values; hidden ones with the launch's.
    auto Cuda = cudaParamLayout(Ptx, K.Name);
    std::vector<bool> Covered(Hsa.size());
    unsigned I = 0;
    for (const amdgpu::KernelArgMetadata &A : K.Args) {
      INFO("argument at " << A.Offset << " " << A.ValueKind);
      REQUIRE(A.Offset + A.Size <= Hsa.size());
      std::fill(Covered.begin() + A.Offset, Covered.begin() + A.Offset + A.Size, true);
      const uint8_t *At = Hsa.data() + A.Offset;
      if (!A.isHidden()) {
        REQUIRE(I < Cuda.size());
        CHECK(A.Offset == Cuda[I].first);
        CHECK(A.Size == Cuda[I].second);
        CHECK(std::memcmp(At, Values[I].data(), A.Size) == 0);
        ++I;
        continue;
      }
      static const std::map<std::string, uint64_t> Expected = {
          {"hidden_block_count_x", 5},      {"hidden_block_count_y", 4},
          {"hidden_block_count_z", 3},      {"hidden_group_size_x", 32},
          {"hidden_group_size_y", 2},       {"hidden_group_size_z", 2},
          {"hidden_remainder_x", 0},        {"hidden_grid_dims", 3},
          {"hidden_dynamic_lds_size", 128}, {"hidden_queue_ptr", 0x7f0000001000},
          {"hidden_global_offset_x", 0},    {"hidden_printf_buffer", 0},
      };
      if (auto It = Expected.find(A.ValueKind); It != Expected.end())
        CHECK(readLe(At, A.Size) == It->second);
    }
    CHECK(I == Cuda.size());
    for (size_t B = 0; B < Hsa.size(); ++B)
      if (!Covered[B] && Hsa[B] != 0)
        FAIL("byte " << B << " is covered by no argument and not zero");
  }
}

} // namespace

TEST_CASE("kernargs of examples/saxpy.ptx, packed the HSA way", "[hsa][kernarg]") {
  for (const char *Name : {"gfx90a", "gfx1100"})
    checkKernargs(PTX2AMD_SOURCE_DIR "/examples/saxpy.ptx", *amdgpu::findTarget(Name));
}

TEST_CASE("kernargs of the structs test program, packed the HSA way", "[hsa][kernarg]") {
  // By-value structs with .align 2..16, chars, shorts, doubles: CUDA's offsets matter.
  for (const char *Name : {"gfx90a", "gfx1100"})
    checkKernargs(PTX2AMD_CUDA_PTX_DIR "/templates_structs.sm90.ptx", *amdgpu::findTarget(Name));
}
