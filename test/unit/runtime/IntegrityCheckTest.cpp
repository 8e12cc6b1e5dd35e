// The static runtime's integrity check (runtime/lib/IntegrityCheck.h): MD2 against RFC 1319's
// test suite, intermediate states that ZLUDA recorded from a CUDA 12.8 runtime, and whole
// answers, one of which CUDA 13.0's libcudart_static accepted on this machine.

#include "IntegrityCheck.h"

#include <catch2/catch.hpp>

#include <cstdio>
#include <string>
#include <string_view>

using namespace ptx2amd::runtime;

namespace {

std::string hex(std::span<const uint8_t> Bytes) {
  std::string S;
  char Buf[3];
  for (uint8_t B : Bytes) {
    std::snprintf(Buf, sizeof Buf, "%02x", B);
    S += Buf;
  }
  return S;
}

std::string md2(std::string_view Text) {
  Md2 H;
  H.update(std::span(reinterpret_cast<const uint8_t *>(Text.data()), Text.size()));
  return hex(H.finish());
}

} // namespace

TEST_CASE("MD2 gives RFC 1319's test suite digests", "[integrity]") {
  CHECK(md2("") == "8350e5a3e24c153df2275c9f80692773");
  CHECK(md2("a") == "32ec01ec4a6dac72c0ab96fb34c0b5d1");
  CHECK(md2("abc") == "da853b0d3f88d99b30283a69e6ded6bb");
  CHECK(md2("message digest") == "ab4f496bfb2a530b219ff33031fe06b0");
  CHECK(md2("abcdefghijklmnopqrstuvwxyz") == "4e8ddff3650292ab5a4108c3aa47940b");
  CHECK(md2("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") ==
        "da33def2a42df13975352846c30338cd");
  CHECK(md2("1234567890123456789012345678901234567890123456789012345678901234567890123456789"
            "0") == "d5976f79d83d3a0dc9806c3c66f3efd8");
}

TEST_CASE("the inner hash takes the runtime's 48-byte record as CUDA 12.8's runtime did "
          "(runtime 12082, driver 12080)",
          "[integrity]") {
  IntegrityInputs In;
  In.DriverVersion = 12080;
  In.RuntimeVersion = 12082;
  In.ProcessId = 0x002fa423;
  In.ThreadId = 0xf79c1000;
  In.CudartTable = 0x00007ffff6958240;
  In.IntegrityTable = 0x00007ffff6958220;
  In.CheckFunction = 0x00007ffff2aaf4a0;
  In.UnixSeconds = 0x682b9cee;
  std::vector<uint8_t> Message = integrityMessage(In);
  REQUIRE(Message.size() == 48);
  // Where the inner hash starts: the key's block xor 0x36.
  Md2 H = integrityInnerHash();
  const Md2::Snapshot Keyed = {0x8b, 0x21, 0x9a, 0x49, 0xe8, 0x6d, 0x1a, 0xee, 0xf2, 0x37, 0xf9,
                               0xb5, 0x4a, 0x8c, 0x3c, 0x75, 0xc7, 0x1e, 0xee, 0x21, 0xcf, 0x29,
                               0x8a, 0xe5, 0x13, 0x83, 0xf4, 0xec, 0x33, 0x04, 0xe2, 0xfd, 0xb0,
                               0x2f, 0x09, 0x01, 0x4f, 0xf7, 0x68, 0x6d, 0x69, 0x46, 0x43, 0x7e,
                               0xb6, 0x2b, 0x21, 0xed, 0x57, 0xa1, 0x10, 0x86, 0x0e, 0x60, 0x44,
                               0x1e, 0x70, 0x5f, 0x67, 0xd1, 0xeb, 0x67, 0xa1, 0x3d, 0x00, 0x3d};
  CHECK(hex(H.snapshot()) == hex(Keyed));
  H.update(Message);
  const Md2::Snapshot Want = {0x0a, 0xfd, 0xab, 0xc9, 0xff, 0x9b, 0xa0, 0xbe, 0x4d, 0x30, 0x32,
                              0x82, 0x74, 0x4f, 0xa7, 0x48, 0x9d, 0x23, 0x82, 0xa3, 0x87, 0xfa,
                              0x6c, 0xdb, 0x92, 0x49, 0xd9, 0xb5, 0x4b, 0x2b, 0x5e, 0x51, 0x6e,
                              0xf7, 0xf9, 0x4d, 0x28, 0x8a, 0x64, 0x06, 0x19, 0xb3, 0xe6, 0xbe,
                              0xa4, 0xec, 0x7e, 0x54, 0x64, 0x28, 0xd9, 0xe1, 0xd4, 0x34, 0xc0,
                              0xa9, 0x49, 0x88, 0xc9, 0x61, 0x58, 0xdd, 0x66, 0x74, 0x00, 0x74};
  CHECK(hex(H.snapshot()) == hex(Want));
}

TEST_CASE("a device adds its UUID and PCI domain, bus and device", "[integrity]") {
  const Md2::Snapshot Before = {0x84, 0xfd, 0x93, 0x10, 0xc6, 0xdb, 0xb3, 0xbc, 0x49, 0xc2, 0x25,
                                0xe7, 0xda, 0x6e, 0x22, 0x6f, 0x9b, 0xbd, 0x81, 0x59, 0xc3, 0x01,
                                0x9a, 0x7a, 0x26, 0x34, 0x39, 0x0f, 0x2a, 0x56, 0x13, 0xb1, 0xf6,
                                0xbc, 0x7f, 0xa1, 0x8f, 0x04, 0xa5, 0x4d, 0x0d, 0x78, 0xab, 0x20,
                                0xf8, 0x23, 0x20, 0xa5, 0x3f, 0x67, 0x36, 0xe2, 0xde, 0x8a, 0xe5,
                                0xdf, 0xe1, 0xf2, 0x03, 0x94, 0xad, 0xdc, 0x9a, 0xda, 0x00, 0xda};
  IntegrityInputs In;
  In.Devices.push_back({{0x9a, 0xfe, 0x2b, 0x8a, 0xac, 0x25, 0x2d, 0x38, 0xea, 0x37, 0xae, 0xc5,
                         0x6d, 0x71, 0x32, 0x5f},
                        0,
                        2,
                        0});
  std::vector<uint8_t> Message = integrityMessage(In);
  REQUIRE(Message.size() == 48 + 28);
  Md2 H(Before);
  H.update(std::span(Message).subspan(48));
  const Md2::Snapshot Want = {0x1f, 0xd8, 0x25, 0xd2, 0xdf, 0xfa, 0x64, 0xc7, 0xb6, 0x1a, 0xaf,
                              0x22, 0xb8, 0x79, 0xfb, 0x96, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00,
                              0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x7c, 0x9d, 0x46, 0xd2, 0x1f,
                              0xd8, 0x25, 0xd2, 0xdd, 0xfa, 0x64, 0xc7, 0xb6, 0x1a, 0xaf, 0x22,
                              0xe6, 0x17, 0xbd, 0x3a, 0xd7, 0xdd, 0x5f, 0x82, 0x8c, 0x87, 0xce,
                              0x86, 0x66, 0xaf, 0xa0, 0x50, 0x7a, 0x7d, 0xbb, 0xbc, 0x0c, 0x50};
  CHECK(hex(H.snapshot()) == hex(Want));
}

TEST_CASE("whole answers", "[integrity]") {
  SECTION("CUDA 11.8's runtime on driver 12020 (ZLUDA's recorded answer)") {
    IntegrityInputs In;
    In.DriverVersion = 12020;
    In.RuntimeVersion = 11082;
    In.ProcessId = 0x4d08;
    In.ThreadId = 0x2b78;
    In.CudartTable = 0x00007ff8c80717f0;
    In.IntegrityTable = 0x00007ff8c825e4b0;
    In.CheckFunction = 0x00007ff8c7dd0ad0;
    In.UnixSeconds = 0x64a365ee;
    In.Devices.push_back({{0x67, 0x22, 0xcb, 0xcf, 0xc6, 0x61, 0xf2, 0x92, 0x74, 0xd6, 0xed, 0x23,
                           0x2a, 0x32, 0x13, 0x1c},
                          0,
                          4,
                          0});
    // out[0] = 0xa7c34628f214707a, out[1] = 0xeaf1313342bfcd84, in memory order.
    CHECK(hex(integrityAnswer(In)) == "7a7014f22846c3a784cdbf423331f1ea");
  }
  SECTION("CUDA 13.0's libcudart_static on libcuda.so.1 of ptx2amd (its own computation, read "
          "under gdb, and accepted)") {
    IntegrityInputs In;
    In.DriverVersion = 13000;
    In.RuntimeVersion = 13002;
    In.ProcessId = 0x5280;
    In.ThreadId = 0xf7eb0000;
    In.CudartTable = 0x00007ffff7165d60;
    In.IntegrityTable = 0x00007ffff71656f0;
    In.CheckFunction = 0x00007ffff6cc1420;
    In.UnixSeconds = 0x6b0f40b6;
    In.Devices.push_back({{0x5d, 0x4d, 0x43, 0xba, 0xfe, 0x0d, 0xa9, 0xe9, 0xe2, 0xc0, 0x79, 0xcc,
                           0x8e, 0x46, 0xbf, 0xf3},
                          0,
                          0,
                          0});
    CHECK(hex(integrityAnswer(In)) == "a3c9779fbac47de494ab260ef7a47ad0");
  }
  SECTION("a release's runtime and its first update get fixed answers") {
    IntegrityInputs In;
    In.RuntimeVersion = 13000;
    CHECK(hex(integrityAnswer(In)) == "5c67cb031c184133e8d14c1faa83d38e");
    In.RuntimeVersion = 13001;
    CHECK(hex(integrityAnswer(In)) == "5c67cb031c184118e8d14c1faa83d38e");
  }
}

TEST_CASE("every input is hashed", "[integrity]") {
  IntegrityInputs Base;
  Base.RuntimeVersion = 13002;
  Base.Devices.resize(1);
  const std::string Answer = hex(integrityAnswer(Base));
  auto differs = [&](auto Change) {
    IntegrityInputs In = Base;
    Change(In);
    return hex(integrityAnswer(In)) != Answer;
  };
  CHECK(differs([](IntegrityInputs &I) { I.DriverVersion = 13000; }));
  CHECK(differs([](IntegrityInputs &I) { I.RuntimeVersion = 13003; }));
  CHECK(differs([](IntegrityInputs &I) { I.ProcessId = 1; }));
  CHECK(differs([](IntegrityInputs &I) { I.ThreadId = 1; }));
  CHECK(differs([](IntegrityInputs &I) { I.CudartTable = 1; }));
  CHECK(differs([](IntegrityInputs &I) { I.IntegrityTable = 1; }));
  CHECK(differs([](IntegrityInputs &I) { I.CheckFunction = 1; }));
  CHECK(differs([](IntegrityInputs &I) { I.UnixSeconds = 1; }));
  CHECK(differs([](IntegrityInputs &I) { I.Devices[0].Uuid[15] = 1; }));
  CHECK(differs([](IntegrityInputs &I) { I.Devices[0].PciDomain = 1; }));
  CHECK(differs([](IntegrityInputs &I) { I.Devices[0].PciBus = 1; }));
  CHECK(differs([](IntegrityInputs &I) { I.Devices[0].PciDevice = 1; }));
  CHECK(differs([](IntegrityInputs &I) { I.Devices.clear(); }));
}
