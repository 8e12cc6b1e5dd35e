//===- Reader.h - fatbin parsing internals ----------------------*- C++ -*-===//
#pragma once

#include "ptx2amd/fatbin/Fatbin.h"

#include "llvm/ADT/Twine.h"

namespace ptx2amd::fatbin {

/// Fills a Fatbin from one input. All offsets are relative to the buffer
/// passed to each function (the whole file, or one in-memory container).
class Reader {
public:
  Reader(Fatbin &F, const ReadOptions &Opts) : F(F), Opts(Opts), Prefix(F.Name) {}

  llvm::Error parseBuffer(llvm::ArrayRef<uint8_t> Buf);
  /// Parses the container at Off, which must end by Limit. On success the
  /// container and its entries are appended; on error nothing is.
  llvm::Expected<unsigned> parseContainer(llvm::ArrayRef<uint8_t> Buf, uint64_t Off, uint64_t Limit,
                                          ContainerOrigin Origin, llvm::StringRef Section);
  /// Containers back to back in [Begin, End), zero padding allowed.
  llvm::Error parseContainerSequence(llvm::ArrayRef<uint8_t> Buf, uint64_t Begin, uint64_t End,
                                     ContainerOrigin Origin, llvm::StringRef Section);
  llvm::Error parseELF(llvm::ArrayRef<uint8_t> Buf);
  llvm::Error parseCubin(llvm::ArrayRef<uint8_t> Buf);
  llvm::Error parsePTXText(llvm::ArrayRef<uint8_t> Buf);
  static bool looksLikePTX(llvm::ArrayRef<uint8_t> Buf);
  void sortContainers();

  /// "<Prefix>: offset 0x<Off>: <What>"
  llvm::Error fail(uint64_t Off, const llvm::Twine &What) const;

  static uint16_t rd16(llvm::ArrayRef<uint8_t> B, uint64_t Off);
  static uint32_t rd32(llvm::ArrayRef<uint8_t> B, uint64_t Off);
  static uint64_t rd64(llvm::ArrayRef<uint8_t> B, uint64_t Off);
  static uint32_t rdSafe32(llvm::ArrayRef<uint8_t> B, uint64_t Off, uint64_t End);

  Fatbin &F;
  const ReadOptions &Opts;
  std::string Prefix;
  /// Entries walked by the last parseContainer call (bounds the scan's work).
  uint64_t LastWalkSteps = 0;

private:
  void addStandalone(Entry E, llvm::ArrayRef<uint8_t> Buf);
  void scanForContainers(llvm::ArrayRef<uint8_t> Buf);
};

} // namespace ptx2amd::fatbin
