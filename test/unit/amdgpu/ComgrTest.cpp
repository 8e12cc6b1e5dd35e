// Metadata agreement with ROCm comgr (libamd-comgr-dev), an independent reader
// built on its own LLVM. Compiled only when CMake finds amd_comgr.h.
#include "TestKernels.h"

#include "ptx2amd/amdgpu-backend/KernelMetadata.h"

#include <catch2/catch.hpp>

#include <amd_comgr.h>

#include <cstdlib>
#include <optional>
#include <string>

using namespace ptx2amd::amdgpu;
using namespace amdgpu_test;

namespace {

#define COMGR_REQUIRE(Call)                                                                        \
  do {                                                                                             \
    amd_comgr_status_t Status_ = (Call);                                                           \
    INFO(#Call);                                                                                   \
    REQUIRE(Status_ == AMD_COMGR_STATUS_SUCCESS);                                                  \
  } while (0)

/// Owns one comgr metadata node.
class Node {
public:
  Node() { H.handle = 0; }
  explicit Node(amd_comgr_metadata_node_t H) : H(H) {}
  Node(const Node &) = delete;
  Node &operator=(const Node &) = delete;
  ~Node() {
    if (H.handle)
      amd_comgr_destroy_metadata(H);
  }
  amd_comgr_metadata_node_t get() const { return H; }
  amd_comgr_metadata_node_t *out() { return &H; }

  /// The value under Key of a map node; nullopt-like (handle 0) when absent.
  bool lookup(const char *Key, Node &Out) const {
    return amd_comgr_metadata_lookup(H, Key, Out.out()) == AMD_COMGR_STATUS_SUCCESS;
  }
  std::string str() const {
    amd_comgr_metadata_kind_t Kind;
    COMGR_REQUIRE(amd_comgr_get_metadata_kind(H, &Kind));
    REQUIRE(Kind == AMD_COMGR_METADATA_KIND_STRING);
    size_t Size = 0;
    COMGR_REQUIRE(amd_comgr_get_metadata_string(H, &Size, nullptr));
    std::string S(Size, '\0');
    COMGR_REQUIRE(amd_comgr_get_metadata_string(H, &Size, S.data()));
    if (!S.empty() && S.back() == '\0')
      S.pop_back();
    return S;
  }
  size_t listSize() const {
    size_t N = 0;
    COMGR_REQUIRE(amd_comgr_get_metadata_list_size(H, &N));
    return N;
  }

private:
  amd_comgr_metadata_node_t H;
};

std::string field(const Node &Map, const char *Key) {
  Node V;
  if (!Map.lookup(Key, V))
    return "";
  return V.str();
}

uint64_t number(const Node &Map, const char *Key) {
  std::string S = field(Map, Key);
  INFO(Key << " = '" << S << "'");
  REQUIRE(!S.empty());
  return std::strtoull(S.c_str(), nullptr, 0);
}

} // namespace

void amdgpu_test::checkMetadataAgainstComgr(const Target &T, const CodeObject &CO) {
  amd_comgr_data_t Data;
  COMGR_REQUIRE(amd_comgr_create_data(AMD_COMGR_DATA_KIND_EXECUTABLE, &Data));
  COMGR_REQUIRE(
      amd_comgr_set_data(Data, CO.Bytes.size(), reinterpret_cast<const char *>(CO.Bytes.data())));
  COMGR_REQUIRE(amd_comgr_set_data_name(Data, "test.hsaco"));
  Node Root;
  amd_comgr_status_t St = amd_comgr_get_data_metadata(Data, Root.out());
  amd_comgr_release_data(Data);
  REQUIRE(St == AMD_COMGR_STATUS_SUCCESS);

  Node Kernels;
  REQUIRE(Root.lookup("amdhsa.kernels", Kernels));
  REQUIRE(Kernels.listSize() == CO.Kernels.size());
  for (size_t I = 0; I < CO.Kernels.size(); ++I) {
    Node KM;
    COMGR_REQUIRE(amd_comgr_index_list_metadata(Kernels.get(), I, KM.out()));
    const KernelMetadata &Ours = CO.Kernels[I];
    CHECK(field(KM, ".name") == Ours.Name);
    CHECK(field(KM, ".symbol") == Ours.Symbol);
    CHECK(number(KM, ".kernarg_segment_size") == Ours.KernargSegmentSize);
    CHECK(number(KM, ".kernarg_segment_align") == Ours.KernargSegmentAlign);
    CHECK(number(KM, ".group_segment_fixed_size") == Ours.GroupSegmentFixedSize);
    CHECK(number(KM, ".private_segment_fixed_size") == Ours.PrivateSegmentFixedSize);
    CHECK(number(KM, ".wavefront_size") == Ours.WavefrontSize);
    CHECK(number(KM, ".wavefront_size") == T.WaveSize);
    CHECK(number(KM, ".vgpr_count") == Ours.VgprCount);
    CHECK(number(KM, ".sgpr_count") == Ours.SgprCount);
    CHECK(number(KM, ".max_flat_workgroup_size") == Ours.MaxFlatWorkgroupSize);
    Node Args;
    REQUIRE(KM.lookup(".args", Args));
    REQUIRE(Args.listSize() == Ours.Args.size());
    for (size_t A = 0; A < Ours.Args.size(); ++A) {
      INFO("argument " << A);
      Node AM;
      COMGR_REQUIRE(amd_comgr_index_list_metadata(Args.get(), A, AM.out()));
      CHECK(number(AM, ".offset") == Ours.Args[A].Offset);
      CHECK(number(AM, ".size") == Ours.Args[A].Size);
      CHECK(field(AM, ".value_kind") == Ours.Args[A].ValueKind);
      CHECK(field(AM, ".name") == Ours.Args[A].Name);
    }
  }
}

TEST_CASE("metadata agrees with ROCm comgr", "[amdgpu][metadata][comgr]") {
  forEachKernelTargetVersion(checkMetadataAgainstComgr);
}
