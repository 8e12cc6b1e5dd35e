//===- FatbinTestUtil.h - helpers for the fatbin tests ----------*- C++ -*-===//
#pragma once

#include "ptx2amd/fatbin/Fatbin.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fbtest {

/// Path of a file nvcc built for the tests (FATBIN_TEST_CUDA_DIR/name).
std::string cudaPath(llvm::StringRef Name);
std::string readFile(const std::string &Path);

/// PTX with comments, blank lines, leading/trailing whitespace removed and
/// whitespace runs collapsed (what fatbinary's minification keeps).
std::string normalizePTX(llvm::StringRef PTX);

/// One hand-made entry. The optional fields override what buildEntry would
/// compute, to make malformed entries.
struct EntrySpec {
  uint16_t Kind = 1;
  uint16_t Version = 0x0101;
  uint32_t CodeVersion = 0x00090000;
  uint32_t Arch = 80;
  uint64_t Flags = 0x11;
  uint64_t Reserved = 0;
  std::string Stored;            ///< payload bytes as stored
  uint32_t PayloadSize = 0;      ///< compressed size (0 = uncompressed)
  uint64_t UncompressedSize = 0; ///< 0 = uncompressed
  std::string Identifier;
  std::string Options;
  std::optional<uint32_t> HeaderSize;
  std::optional<uint64_t> PaddedSize;
  std::optional<uint32_t> NameOff, NameLen, OptsDescOff;
  std::optional<uint32_t> OptsOff, OptsLen;
};

/// A PTX entry whose payload is Text + NUL, stored with compression C.
EntrySpec ptxEntry(const std::string &Text, ptx2amd::fatbin::Compression C, uint32_t Arch = 80);
/// An ELF entry with Bytes as payload, stored uncompressed.
EntrySpec elfEntry(const std::string &Bytes, uint32_t Arch = 80);

std::string compressZstd(const std::string &Data);
std::string compressLZ4(const std::string &Data);

std::string buildEntry(const EntrySpec &E);
/// A container of these entries; FilesSize overrides the files_size field.
std::string buildContainer(const std::vector<EntrySpec> &Entries,
                           std::optional<uint64_t> FilesSize = std::nullopt, uint16_t Version = 1,
                           uint16_t HeaderSize = 16);

void put16(std::string &S, size_t Off, uint16_t V);
void put32(std::string &S, size_t Off, uint32_t V);
void put64(std::string &S, size_t Off, uint64_t V);
uint32_t get32(const std::string &S, size_t Off);
uint64_t get64(const std::string &S, size_t Off);

/// Parses Bytes (copied into an owned buffer).
llvm::Expected<ptx2amd::fatbin::Fatbin> parseBytes(const std::string &Bytes,
                                                   ptx2amd::fatbin::ReadOptions Opts = {});
/// The error text of parsing Bytes, or "" if it parsed.
std::string parseError(const std::string &Bytes);
/// Parses, then reads every payload; returns the first error text or "".
std::string firstError(const std::string &Bytes);

/// Section headers of a host ELF file (for patching test inputs).
struct SectionRef {
  std::string Name;
  uint64_t HeaderOffset; ///< of the Elf64_Shdr in the file
  uint64_t Offset, Size, Addr;
  uint32_t NameOffset; ///< in .shstrtab, absolute file offset of the name
};
std::vector<SectionRef> sectionsOf(const std::string &ELF);
const SectionRef *findSection(const std::vector<SectionRef> &S, llvm::StringRef Name);

} // namespace fbtest
