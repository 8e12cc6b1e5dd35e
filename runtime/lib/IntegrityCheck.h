//===- IntegrityCheck.h - the answer to the static runtime's integrity check -*- C++ -*-===//
//
// NVIDIA's static runtime asks the driver (INTEGRITY_CHECK table, slot 1) for a 16-byte answer
// per runtime version and, for one of them, recomputes the answer itself and refuses to start
// when they differ. The answer is HMAC-MD2 (RFC 2104 over RFC 1319's MD2, block and digest 16
// bytes) under a fixed key, of facts both sides can see: the driver's version, the process and
// thread, the tables' addresses, the time, and each device's UUID and PCI location.
// test/unit/runtime/IntegrityCheckTest.cpp holds it to answers the real runtimes computed.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

namespace ptx2amd::runtime {

/// MD2 (RFC 1319), fed a byte at a time as the runtime feeds it.
class Md2 {
public:
  /// The state in the runtime's own layout: X (48 bytes), the checksum (16), the count of bytes
  /// in the current block, the checksum's last byte. Tests compare states recorded from the
  /// runtime against it.
  using Snapshot = std::array<uint8_t, 66>;

  Md2() = default;
  explicit Md2(const Snapshot &S);

  void update(uint8_t Byte);
  void update(std::span<const uint8_t> Bytes) {
    for (uint8_t B : Bytes)
      update(B);
  }
  /// Pads, appends the checksum and returns the digest; the object is spent afterwards.
  std::array<uint8_t, 16> finish();

  Snapshot snapshot() const;

private:
  std::array<uint8_t, 48> X{}; ///< chaining state, the block, and their xor
  std::array<uint8_t, 16> Checksum{};
  uint8_t Count = 0; ///< bytes of the current block seen
  uint8_t Last = 0;  ///< the checksum byte last updated
};

/// MD2 after the key's block xor 0x36, where HMAC's inner hash starts.
Md2 integrityInnerHash();

/// HMAC (RFC 2104) over MD2 with the runtime's key.
std::array<uint8_t, 16> integrityHmac(std::span<const uint8_t> Message);

struct IntegrityDevice {
  std::array<uint8_t, 16> Uuid{}; ///< as cuDeviceGetUuid_v2 reports it
  int32_t PciDomain = 0, PciBus = 0, PciDevice = 0;
};

/// What the runtime hashes, in the order it hashes it (little-endian, as laid out in memory).
struct IntegrityInputs {
  uint32_t DriverVersion = 0;  ///< as cuDriverGetVersion reports it
  uint32_t RuntimeVersion = 0; ///< the runtime's argument
  uint32_t ProcessId = 0;
  uint32_t ThreadId = 0;       ///< pthread_self(), truncated
  uint64_t CudartTable = 0;    ///< address of the CUDART_INTERFACE table
  uint64_t IntegrityTable = 0; ///< address of the INTEGRITY_CHECK table
  uint64_t CheckFunction = 0;  ///< that table's slot 1
  uint64_t UnixSeconds = 0;    ///< the runtime's argument
  std::vector<IntegrityDevice> Devices;
};

/// The message: 48 bytes of the scalars, then 28 per device.
std::vector<uint8_t> integrityMessage(const IntegrityInputs &In);

/// The 16 bytes the driver writes to the runtime's out[2]: fixed answers for a release's runtime
/// (version % 10 == 0) and its first update (== 1), integrityHmac of the message otherwise.
std::array<uint8_t, 16> integrityAnswer(const IntegrityInputs &In);

} // namespace ptx2amd::runtime
