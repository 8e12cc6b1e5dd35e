// readDeviceOutput: the host side of device printf and assertions (records built here as
// device-lib/ptx2amd-device.c writes them).
#include "ptx2amd/amdgpu-backend/DeviceOutput.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

using namespace ptx2amd::amdgpu;

namespace {

struct Writer {
  std::vector<uint8_t> Bytes;
  void u32(uint32_t V) { raw(&V, 4); }
  void u64(uint64_t V) { raw(&V, 8); }
  void f64(double V) { raw(&V, 8); }
  void raw(const void *P, size_t N) {
    auto *B = static_cast<const uint8_t *>(P);
    Bytes.insert(Bytes.end(), B, B + N);
  }
  void str(const std::string &S) { raw(S.c_str(), S.size() + 1); }
  void pad() {
    while (Bytes.size() % 8)
      Bytes.push_back(0);
  }
};

std::vector<uint8_t> buffer(const std::vector<std::vector<uint8_t>> &Records, uint32_t Dropped = 0,
                            uint32_t Extra = 64) {
  uint32_t Used = 0;
  for (auto &R : Records)
    Used += R.size();
  Writer W;
  W.u32(Used + Extra); // capacity
  W.u32(Used);
  W.u32(Dropped);
  W.u32(0);
  for (auto &R : Records)
    W.raw(R.data(), R.size());
  W.Bytes.resize(W.Bytes.size() + Extra);
  return W.Bytes;
}

/// A printf record: the format, the argument buffer (natural alignment) and string copies.
std::vector<uint8_t> printfRecord(const std::string &Fmt, const std::vector<uint8_t> &Args,
                                  const std::vector<std::string> &Strings = {}) {
  Writer Body;
  Body.str(Fmt);
  Body.pad();
  Body.raw(Args.data(), Args.size());
  Body.pad();
  for (const std::string &S : Strings) {
    Body.str(S);
    Body.pad();
  }
  Writer R;
  R.u32(16 + Body.Bytes.size());
  R.u32(uint32_t(OutputKind::Printf));
  R.u32(Fmt.size() + 1);
  R.u32(Args.size());
  R.raw(Body.Bytes.data(), Body.Bytes.size());
  return R.Bytes;
}

} // namespace

TEST_CASE("device printf records format like printf", "[amdgpu][device-output]") {
  Writer A; // int, then a double at 8, then a long long, then a char
  A.u32(uint32_t(-42));
  A.u32(0);
  A.f64(2.5);
  A.u64(1ull << 40);
  A.u32('x');
  auto R1 = printfRecord("i=%d f=%.2f big=%lld c=%c 100%%\n", A.Bytes);
  Writer B; // %s: the offset of the string copy inside the record
  std::string Fmt = "[%5s|%-3u]\n";
  size_t StringAt = 16 + ((Fmt.size() + 1 + 7) / 8) * 8 + 16;
  B.u64(StringAt);
  B.u32(7);
  B.u32(0);
  auto R2 = printfRecord(Fmt, B.Bytes, {"ab"});
  auto Out = readDeviceOutput(buffer({R1, R2}, 3));
  if (!Out)
    FAIL(llvm::toString(Out.takeError()));
  CHECK(Out->Text == "i=-42 f=2.50 big=1099511627776 c=x 100%\n[   ab|7  ]\n");
  CHECK(Out->Dropped == 3);
  CHECK(Out->Assertions.empty());
}

TEST_CASE("device assertion records", "[amdgpu][device-output]") {
  Writer R;
  std::string Msg = "x < n", File = "k.cu", Func = "void k(int)";
  uint32_t Size = 16 + Msg.size() + 1 + File.size() + 1 + Func.size() + 1;
  Size = (Size + 7) / 8 * 8;
  R.u32(Size);
  R.u32(uint32_t(OutputKind::Assert));
  R.u32(12);
  R.u32(0);
  R.str(Msg);
  R.str(File);
  R.str(Func);
  R.pad();
  auto Out = readDeviceOutput(buffer({R.Bytes}));
  if (!Out)
    FAIL(llvm::toString(Out.takeError()));
  REQUIRE(Out->Assertions.size() == 1);
  CHECK(Out->Assertions[0] == "k.cu:12: void k(int): Assertion `x < n' failed.");
}

TEST_CASE("malformed device output buffers are errors", "[amdgpu][device-output]") {
  auto Text = [](llvm::Expected<DeviceOutput> E) {
    return E ? std::string() : llvm::toString(E.takeError());
  };
  CHECK_THAT(Text(readDeviceOutput({})), Catch::Contains("shorter than its header"));
  Writer Bad;
  Bad.u32(1000); // capacity past the buffer
  Bad.u32(0);
  Bad.u32(0);
  Bad.u32(0);
  CHECK_THAT(Text(readDeviceOutput(Bad.Bytes)), Catch::Contains("capacity past the buffer"));
  Writer Odd;
  Odd.u32(12); // not a multiple of 8
  Odd.u32(1);
  Odd.u32(0);
  CHECK_THAT(Text(readDeviceOutput(buffer({Odd.Bytes}))), Catch::Contains("record size of 12"));
  auto Short = printfRecord("%d %d\n", std::vector<uint8_t>(4, 0)); // one argument for two
  CHECK_THAT(Text(readDeviceOutput(buffer({Short}))), Catch::Contains("fewer printf arguments"));
  Writer Unknown;
  Unknown.u32(8);
  Unknown.u32(9);
  CHECK_THAT(Text(readDeviceOutput(buffer({Unknown.Bytes}))),
             Catch::Contains("unknown record kind"));
  // Records past the used size are not read: an empty buffer is fine.
  auto Empty = readDeviceOutput(buffer({}));
  if (!Empty)
    FAIL(llvm::toString(Empty.takeError()));
  CHECK(Empty->Text.empty());
}
