// readKernelMetadata / readCodeObjectMetadata: bad input, and agreement with
// llvm-readelf-22 --notes (an independent reader of the same note).
#include "TestKernels.h"

#include "ptx2amd/amdgpu-backend/KernelMetadata.h"

#include <catch2/catch.hpp>

#include "llvm/ADT/SmallString.h"
#include "llvm/BinaryFormat/MsgPackDocument.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>

using namespace ptx2amd::amdgpu;
using namespace amdgpu_test;

TEST_CASE("malformed code objects are errors, not crashes", "[amdgpu][metadata]") {
  CHECK_THAT(errorText(readKernelMetadata({}).takeError()), Catch::Contains("not an ELF file"));
  const uint8_t Text[] = "hello, this is not an ELF file at all, but long enough";
  CHECK_THAT(errorText(readKernelMetadata(Text).takeError()), Catch::Contains("not an ELF file"));

  CodeObject CO = compileKernel(Saxpy, *findTarget("gfx90a"));
  const std::vector<uint8_t> &Good = CO.Bytes;
  // Every truncation fails cleanly (or still succeeds if the note survives: sections are last).
  for (size_t Len : {size_t(4), size_t(16), size_t(63), size_t(64), size_t(100), size_t(512),
                     Good.size() / 2, Good.size() - 1}) {
    INFO("truncated to " << Len);
    auto MD = readKernelMetadata(llvm::ArrayRef(Good).take_front(Len));
    if (!MD)
      CHECK_THAT(llvm::toString(MD.takeError()), Catch::Contains("AMDGPU code object"));
  }
  // Single-byte corruptions anywhere in the file: never a crash.
  size_t Failures = 0;
  for (size_t Off = 0; Off < Good.size(); ++Off)
    for (uint8_t X : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xff)}) {
      std::vector<uint8_t> Bad = Good;
      Bad[Off] ^= X;
      auto MD = readCodeObjectMetadata(Bad);
      if (!MD) {
        ++Failures;
        llvm::consumeError(MD.takeError());
      }
    }
  CHECK(Failures > 0);
  // An odd (unaligned) start is read as well.
  std::vector<uint8_t> Shifted(Good.size() + 1);
  std::copy(Good.begin(), Good.end(), Shifted.begin() + 1);
  auto MD = readKernelMetadata(llvm::ArrayRef(Shifted).drop_front(1));
  REQUIRE(bool(MD));
  CHECK(MD->at(0).Name == "saxpy");
  // Not AMDGPU: e_machine changed to x86-64.
  std::vector<uint8_t> X86 = Good;
  X86[18] = 62;
  X86[19] = 0;
  CHECK_THAT(errorText(readKernelMetadata(X86).takeError()), Catch::Contains("not EM_AMDGPU"));
}

TEST_CASE("code object metadata accessors", "[amdgpu][metadata]") {
  CodeObject CO = compileKernel(LdsReverse, *findTarget("gfx1100"));
  auto MD = readCodeObjectMetadata(CO.Bytes);
  REQUIRE(bool(MD));
  CHECK(MD->Machine == 224);
  CHECK(MD->elfMach() == findTarget("gfx1100")->ElfMach);
  CHECK(MD->codeObjectVersion() == 5);
  CHECK(MD->TargetId == "amdgcn-amd-amdhsa--gfx1100");
  REQUIRE(MD->findKernel("reverse_block"));
  CHECK(MD->findKernel("reverse_block")->GroupSegmentFixedSize == 1024);
  CHECK(MD->findKernel("nope") == nullptr);
  CHECK(MD->Kernels.size() == CO.Kernels.size());
}

#ifdef PTX2AMD_LLVM_READELF
namespace {

/// `llvm-readelf-22 --notes` of \p Bytes: the YAML of the metadata note.
std::string readelfNotesYaml(const std::vector<uint8_t> &Bytes) {
  llvm::SmallString<128> In, Out;
  int FD;
  REQUIRE(!llvm::sys::fs::createTemporaryFile("amdgpu-test", "hsaco", FD, In));
  llvm::FileRemover RemoveIn(In);
  {
    llvm::raw_fd_ostream OS(FD, true);
    OS.write(reinterpret_cast<const char *>(Bytes.data()), Bytes.size());
  }
  REQUIRE(!llvm::sys::fs::createTemporaryFile("amdgpu-test", "txt", Out));
  llvm::FileRemover RemoveOut(Out);
  llvm::StringRef Args[] = {PTX2AMD_LLVM_READELF, "--notes", In};
  std::optional<llvm::StringRef> Redirects[] = {std::nullopt, llvm::StringRef(Out), std::nullopt};
  std::string ErrMsg;
  int RC = llvm::sys::ExecuteAndWait(PTX2AMD_LLVM_READELF, Args, std::nullopt, Redirects, 60, 0,
                                     &ErrMsg);
  REQUIRE(RC == 0);
  auto Buf = llvm::MemoryBuffer::getFile(Out);
  REQUIRE(bool(Buf));
  llvm::StringRef Text = (*Buf)->getBuffer();
  size_t Begin = Text.find("---\n");
  size_t End = Text.find("\n...", Begin);
  REQUIRE(Begin != llvm::StringRef::npos);
  REQUIRE(End != llvm::StringRef::npos);
  return Text.slice(Begin, End + 4).str();
}

uint64_t yamlUInt(llvm::msgpack::MapDocNode &M, llvm::StringRef Key) {
  auto It = M.find(Key);
  REQUIRE(It != M.end());
  if (It->second.getKind() == llvm::msgpack::Type::Int)
    return uint64_t(It->second.getInt());
  REQUIRE(It->second.getKind() == llvm::msgpack::Type::UInt);
  return It->second.getUInt();
}

std::string yamlString(llvm::msgpack::MapDocNode &M, llvm::StringRef Key) {
  auto It = M.find(Key);
  if (It == M.end())
    return "";
  REQUIRE(It->second.isString());
  return It->second.getString().str();
}

} // namespace

namespace amdgpu_test {
void checkMetadataAgainstReadelf(const Target &T, const CodeObject &CO) {
  llvm::msgpack::Document Doc;
  REQUIRE(Doc.fromYAML(readelfNotesYaml(CO.Bytes)));
  auto &Root = Doc.getRoot().getMap();
  auto &Kernels = Root["amdhsa.kernels"].getArray();
  REQUIRE(Kernels.size() == CO.Kernels.size());
  for (size_t I = 0; I < Kernels.size(); ++I) {
    auto &KM = Kernels[I].getMap();
    const KernelMetadata &Ours = CO.Kernels[I];
    CHECK(yamlString(KM, ".name") == Ours.Name);
    CHECK(yamlString(KM, ".symbol") == Ours.Symbol);
    CHECK(yamlUInt(KM, ".kernarg_segment_size") == Ours.KernargSegmentSize);
    CHECK(yamlUInt(KM, ".kernarg_segment_align") == Ours.KernargSegmentAlign);
    CHECK(yamlUInt(KM, ".group_segment_fixed_size") == Ours.GroupSegmentFixedSize);
    CHECK(yamlUInt(KM, ".private_segment_fixed_size") == Ours.PrivateSegmentFixedSize);
    CHECK(yamlUInt(KM, ".vgpr_count") == Ours.VgprCount);
    CHECK(yamlUInt(KM, ".sgpr_count") == Ours.SgprCount);
    CHECK(yamlUInt(KM, ".wavefront_size") == Ours.WavefrontSize);
    CHECK(yamlUInt(KM, ".max_flat_workgroup_size") == Ours.MaxFlatWorkgroupSize);
    if (KM.find(".agpr_count") != KM.end())
      CHECK(yamlUInt(KM, ".agpr_count") == Ours.AgprCount);
    auto &Args = KM[".args"].getArray();
    REQUIRE(Args.size() == Ours.Args.size());
    for (size_t A = 0; A < Args.size(); ++A) {
      INFO("argument " << A);
      auto &AM = Args[A].getMap();
      CHECK(yamlUInt(AM, ".offset") == Ours.Args[A].Offset);
      CHECK(yamlUInt(AM, ".size") == Ours.Args[A].Size);
      CHECK(yamlString(AM, ".value_kind") == Ours.Args[A].ValueKind);
      CHECK(yamlString(AM, ".name") == Ours.Args[A].Name);
      CHECK(yamlString(AM, ".address_space") == Ours.Args[A].AddressSpace);
    }
  }
}
} // namespace amdgpu_test

TEST_CASE("metadata agrees with llvm-readelf --notes", "[amdgpu][metadata][readelf]") {
  forEachKernelTargetVersion(checkMetadataAgainstReadelf);
}
#endif
