// The AQL packets the HSA device writes, held field by field against Kernarg.h's
// makeDispatchPacket (what the host backend runs from) and against ROCr's own packet structs and
// header bits.
#include "ptx2amd/loader/HsaDevice.h"

#include <catch2/catch.hpp>
#include <hsa/hsa.h>

#include <cstring>

using namespace ptx2amd;

namespace {

amdgpu::KernelMetadata kernel() {
  amdgpu::KernelMetadata K;
  K.Name = "k";
  K.Symbol = "k.kd";
  K.KernargSegmentSize = 272;
  K.GroupSegmentFixedSize = 1024;
  K.PrivateSegmentFixedSize = 48;
  return K;
}

unsigned bits(uint16_t Header, unsigned Shift, unsigned Width) {
  return (Header >> Shift) & ((1u << Width) - 1);
}

} // namespace

TEST_CASE("the HSA dispatch packet is Kernarg.h's, with header and completion signal", "[hsa]") {
  amdgpu::KernelMetadata K = kernel();
  struct Case {
    amdgpu::LaunchGeometry G;
    unsigned Dims;
  } Cases[] = {
      {{{7, 3, 2}, {64, 2, 1}, 512}, 3},
      {{{100, 5, 1}, {16, 16, 1}, 0}, 2},
      {{{1000, 1, 1}, {256, 1, 1}, 4096}, 1},
  };
  for (const Case &C : Cases) {
    const amdgpu::LaunchGeometry &G = C.G;
    auto Host = amdgpu::makeDispatchPacket(K, G, 0xabc000, 0x10000);
    auto Aql = loader::hsa::makeAqlPacket(K, G, 0xabc000, 0x10000, 0x5555);
    REQUIRE(bool(Host));
    REQUIRE(bool(Aql));

    uint16_t H = Aql->Header;
    CHECK(bits(H, HSA_PACKET_HEADER_TYPE, HSA_PACKET_HEADER_WIDTH_TYPE) ==
          HSA_PACKET_TYPE_KERNEL_DISPATCH);
    CHECK(bits(H, HSA_PACKET_HEADER_BARRIER, HSA_PACKET_HEADER_WIDTH_BARRIER) == 1);
    CHECK(bits(H, HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE,
               HSA_PACKET_HEADER_WIDTH_SCACQUIRE_FENCE_SCOPE) == HSA_FENCE_SCOPE_SYSTEM);
    CHECK(bits(H, HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE,
               HSA_PACKET_HEADER_WIDTH_SCRELEASE_FENCE_SCOPE) == HSA_FENCE_SCOPE_SYSTEM);
    CHECK(H >> 13 == 0); // reserved bits

    CHECK(Aql->Setup == Host->Setup);
    CHECK(bits(Aql->Setup, HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS,
               HSA_KERNEL_DISPATCH_PACKET_SETUP_WIDTH_DIMENSIONS) == C.Dims);
    for (unsigned D = 0; D < 3; ++D) {
      CHECK(Aql->WorkgroupSize[D] == G.Block[D]);
      CHECK(Aql->GridSize[D] == G.Grid[D] * G.Block[D]);
    }
    CHECK(Aql->GroupSegmentSize == K.GroupSegmentFixedSize + G.DynamicLdsBytes);
    CHECK(Aql->PrivateSegmentSize == K.PrivateSegmentFixedSize);
    CHECK(Aql->KernelObject == 0xabc000);
    CHECK(Aql->KernargAddress == 0x10000);
    CHECK(Aql->CompletionSignal == 0x5555);
    CHECK(Aql->Reserved0 == 0);
    CHECK(Aql->Reserved2 == 0);

    // Byte for byte: Kernarg.h's packet plus the two fields only the queue fills in.
    amdgpu::DispatchPacket Expected = *Host;
    Expected.Header = H;
    Expected.CompletionSignal = 0x5555;
    CHECK(std::memcmp(&Expected, &*Aql, 64) == 0);

    // And ROCr's struct holding the same values has the same bytes.
    hsa_kernel_dispatch_packet_t R{};
    R.header = H;
    R.setup = Aql->Setup;
    R.workgroup_size_x = uint16_t(G.Block[0]);
    R.workgroup_size_y = uint16_t(G.Block[1]);
    R.workgroup_size_z = uint16_t(G.Block[2]);
    R.grid_size_x = G.Grid[0] * G.Block[0];
    R.grid_size_y = G.Grid[1] * G.Block[1];
    R.grid_size_z = G.Grid[2] * G.Block[2];
    R.private_segment_size = 48;
    R.group_segment_size = uint32_t(1024 + G.DynamicLdsBytes);
    R.kernel_object = 0xabc000;
    R.kernarg_address = reinterpret_cast<void *>(uintptr_t(0x10000));
    R.completion_signal.handle = 0x5555;
    CHECK(std::memcmp(&R, &*Aql, 64) == 0);
  }
}

TEST_CASE("the HSA packet refuses what Kernarg.h refuses", "[hsa]") {
  amdgpu::KernelMetadata K = kernel();
  amdgpu::LaunchGeometry G;
  G.Block[0] = 0;
  auto P = loader::hsa::makeAqlPacket(K, G, 1, 2, 3);
  REQUIRE(!P);
  CHECK(llvm::toString(P.takeError()).find("invalid grid or block size") != std::string::npos);
  G.Block[0] = 70000;
  CHECK(llvm::errorToBool(loader::hsa::makeAqlPacket(K, G, 1, 2, 3).takeError()));
}

TEST_CASE("a packet reaches its queue slot whole, header word last", "[hsa]") {
  amdgpu::LaunchGeometry G{{4, 1, 1}, {128, 1, 1}, 0};
  auto P = loader::hsa::makeAqlPacket(kernel(), G, 0x1000, 0x2000, 0x3000);
  REQUIRE(bool(P));
  alignas(64) uint8_t Slot[64];
  // A slot the packet processor has released: type INVALID, stale contents.
  std::memset(Slot, 0xee, sizeof(Slot));
  uint16_t Invalid = HSA_PACKET_TYPE_INVALID << HSA_PACKET_HEADER_TYPE;
  std::memcpy(Slot, &Invalid, 2);
  loader::hsa::writeAqlPacket(Slot, &*P);
  CHECK(std::memcmp(Slot, &*P, 64) == 0);

  auto B = loader::hsa::makeBarrierPacket({0x11, 0x22}, 0x33);
  REQUIRE(bool(B));
  loader::hsa::writeAqlPacket(Slot, &*B);
  CHECK(std::memcmp(Slot, &*B, 64) == 0);
}

TEST_CASE("barrier-AND packets for ordering after copies and for event markers", "[hsa]") {
  auto B = loader::hsa::makeBarrierPacket({0x11, 0x22}, 0x33);
  REQUIRE(bool(B));
  CHECK(bits(B->Header, HSA_PACKET_HEADER_TYPE, HSA_PACKET_HEADER_WIDTH_TYPE) ==
        HSA_PACKET_TYPE_BARRIER_AND);
  CHECK(bits(B->Header, HSA_PACKET_HEADER_BARRIER, HSA_PACKET_HEADER_WIDTH_BARRIER) == 1);
  hsa_barrier_and_packet_t R{};
  R.header = B->Header;
  R.dep_signal[0].handle = 0x11;
  R.dep_signal[1].handle = 0x22;
  R.completion_signal.handle = 0x33;
  CHECK(std::memcmp(&R, &*B, 64) == 0);

  auto Marker = loader::hsa::makeBarrierPacket({}, 0x44);
  REQUIRE(bool(Marker));
  for (uint64_t D : Marker->DepSignal)
    CHECK(D == 0);
  CHECK(Marker->CompletionSignal == 0x44);

  std::vector<uint64_t> Six(6, 1);
  CHECK(llvm::errorToBool(loader::hsa::makeBarrierPacket(Six, 0).takeError()));
}

TEST_CASE("HSA ISA names map to the target table's processors", "[hsa]") {
  using loader::hsa::isaProcessor;
  CHECK(isaProcessor("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-") == "gfx90a");
  CHECK(isaProcessor("amdgcn-amd-amdhsa--gfx1100") == "gfx1100");
  CHECK(isaProcessor("amdgcn-amd-amdhsa--gfx942:xnack+") == "gfx942");
  CHECK(isaProcessor("x86_64-unknown-linux-gnu") == "");
  CHECK(isaProcessor("") == "");
}
