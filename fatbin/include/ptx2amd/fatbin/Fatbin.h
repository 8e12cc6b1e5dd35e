//===- ptx2amd/fatbin/Fatbin.h - CUDA fatbin reader -------------*- C++ -*-===//
//
// Reads every container form that CUDA binaries carry (see
// shared/notes/fatbin-format.md for the byte-level format):
//
//   * the __fatBinC_Wrapper_t a program passes to __cudaRegisterFatBinary
//     (in-process; v1 and v2 with its prelinked -rdc containers);
//   * bare fatbin containers, one or several back to back (.fatbin files);
//   * cubins (EM_CUDA ELF);
//   * host ELF executables, shared libraries and objects (.nv_fatbin,
//     __nv_relfatbin, .nvFatBinSegment wrappers, plus a validated scan of the
//     whole file for containers kept in other sections);
//   * plain PTX text.
//
// Parsing is zero-copy: entries point into the input, which must outlive the
// Fatbin unless the Fatbin owns it (open(), or parse() of a MemoryBuffer).
// Payloads are decompressed on request. Every malformed input is reported as
// an llvm::Error naming the input, the byte offset and the problem; nothing
// aborts, and no allocation exceeds a bound derived from the input size.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBufferRef.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llvm {
class MemoryBuffer;
}

namespace ptx2amd::fatbin {

/// Magic numbers (little-endian u32 at offset 0).
inline constexpr uint32_t WrapperMagic = 0x466243B1;   ///< __fatBinC_Wrapper_t
inline constexpr uint32_t ContainerMagic = 0xBA55ED50; ///< fatbin container
inline constexpr uint16_t EntryHeaderVersion = 0x0101;
inline constexpr uint32_t ContainerHeaderSize = 16;
inline constexpr uint32_t EntryHeaderMinSize = 64;
inline constexpr uint32_t WrapperSize = 24;

/// Bits of the u64 entry flags field.
namespace flags {
inline constexpr uint64_t Is64Bit = 0x1;
inline constexpr uint64_t Debug = 0x2;
inline constexpr uint64_t HostLinux = 0x10;
inline constexpr uint64_t HostMac = 0x20;
inline constexpr uint64_t HostWindows = 0x40;
inline constexpr uint64_t CompressedLZ4 = 0x2000;
inline constexpr uint64_t CompressedZstd = 0x8000;
inline constexpr uint64_t Opaque = 0x10000;          ///< kind 8 only: encrypted/obfuscated payload
inline constexpr uint64_t ArchSpecific = 0x100000;   ///< sm_XXa
inline constexpr uint64_t FamilySpecific = 0x200000; ///< sm_XXf
inline constexpr uint64_t Sm100Blob = 0x1000000;     ///< meaning unknown (ELF, sm >= 100)
} // namespace flags

/// A decompressed payload may be at most this many times larger than the
/// stored bytes, plus MaxExpansionSlack. Larger claims are rejected as errors
/// before anything is allocated.
inline constexpr uint64_t MaxExpansionRatio = 64;
inline constexpr uint64_t MaxExpansionSlack = 64ull << 20;

enum class EntryKind : uint8_t { PTX, ELF, LTOIR, Unknown };
enum class Compression : uint8_t { None, LZ4, Zstd };

/// What the input as a whole was.
enum class InputFormat : uint8_t {
  Wrapper,    ///< in-process __fatBinC_Wrapper_t (fromWrapper)
  FatbinFile, ///< one or more containers back to back
  Cubin,      ///< an EM_CUDA ELF
  HostELF,    ///< an executable, shared library or relocatable object
  PTXText,    ///< a PTX source file
};

/// How a container was found.
enum class ContainerOrigin : uint8_t {
  Wrapper,       ///< in-process: the wrapper's data pointer
  Prelinked,     ///< in-process: an element of a v2 wrapper's prelinked list
  FatbinFile,    ///< a container of a .fatbin file
  Section,       ///< walked in .nv_fatbin or __nv_relfatbin
  WrapperTarget, ///< host ELF: reached only through a .nvFatBinSegment wrapper
  Scan,          ///< host ELF: found by the validated whole-file scan
  Standalone,    ///< pseudo container standing for a whole cubin or PTX file
};

llvm::StringRef toString(EntryKind K);
llvm::StringRef toString(Compression C);
llvm::StringRef toString(InputFormat F);
llvm::StringRef toString(ContainerOrigin O);

/// One fatbin container (or the pseudo container of a cubin/PTX file).
struct Container {
  unsigned Index = 0;
  ContainerOrigin Origin = ContainerOrigin::FatbinFile;
  /// Byte offset of the container header in the input. For in-process inputs
  /// (fromWrapper) there is no file: Offset is 0 and Address tells where it is.
  uint64_t Offset = 0;
  const void *Address = nullptr;
  uint64_t Size = 0; ///< header_size + files_size (whole file for Standalone)
  uint16_t Version = 0;
  uint16_t HeaderSize = 0;
  std::string Section;     ///< ELF section holding it, "" when none or unknown
  unsigned FirstEntry = 0; ///< index into Fatbin::entries()
  unsigned NumEntries = 0;

  /// Relocatable device code (-rdc / -dc): the container sits in __nv_relfatbin.
  bool isRelocatable() const { return Section == "__nv_relfatbin"; }
};

/// One entry (PTX, cubin, LTO-IR, ...) of a container. The string and byte
/// views point into the input.
struct Entry {
  unsigned Container = 0; ///< index into Fatbin::containers()
  unsigned Index = 0;     ///< position within its container
  /// Offset of the entry header: in the input file, or from the container
  /// start for in-process inputs.
  uint64_t Offset = 0;

  EntryKind Kind = EntryKind::Unknown;
  uint16_t RawKind = 0;
  uint16_t Version = 0;
  uint32_t HeaderSize = 0;
  uint64_t PaddedSize = 0;
  uint32_t PayloadSize = 0; ///< compressed size; 0 when stored uncompressed
  uint32_t CodeVersion = 0; ///< major << 16 | minor (PTX ISA, or cubin ABI)
  uint32_t Arch = 0;        ///< SM number, e.g. 90
  uint64_t Flags = 0;
  uint64_t Reserved = 0;
  uint64_t UncompressedSize = 0; ///< 0 when not compressed

  llvm::StringRef Identifier;     ///< set by fatbinary --ident (-G, -lineinfo)
  llvm::StringRef Options;        ///< ptxas options (PTX) / cicc options (LTO-IR)
  llvm::ArrayRef<uint8_t> Header; ///< the whole HeaderSize bytes (empty for Standalone)
  llvm::ArrayRef<uint8_t> Stored; ///< payload bytes as stored

  Compression compression() const;
  /// LTO-IR entries and entries with flag 0x10000 cannot be read.
  bool isOpaque() const { return Kind == EntryKind::LTOIR || (Flags & flags::Opaque); }
  bool is64Bit() const { return Flags & flags::Is64Bit; }
  bool isDebug() const { return Flags & flags::Debug; }
  bool isArchSpecific() const { return Flags & flags::ArchSpecific; }
  bool isFamilySpecific() const { return Flags & flags::FamilySpecific; }
  unsigned versionMajor() const { return CodeVersion >> 16; }
  unsigned versionMinor() const { return CodeVersion & 0xffff; }
  /// "9.0"
  std::string versionString() const;
  /// "a", "f" or "".
  llvm::StringRef archSuffix() const;
  /// "sm_90a" (also used for PTX and LTO-IR entries).
  std::string archName() const;
  uint64_t storedSize() const { return Stored.size(); }
  /// The size of the payload once decompressed (the stored size if it is not
  /// compressed).
  uint64_t decompressedSize() const {
    return compression() == Compression::None ? Stored.size() : UncompressedSize;
  }
};

/// One registration unit: what one __cudaRegisterFatBinary call receives.
struct Module {
  unsigned Index = 0;
  unsigned WrapperVersion = 0; ///< 1 or 2
  /// Offset of the wrapper in the input (its address for in-process inputs).
  uint64_t WrapperOffset = 0;
  /// The container the wrapper's data points to; none when the pointer is NULL
  /// or cannot be resolved statically.
  std::optional<unsigned> MainContainer;
  /// v2 wrappers: the per-TU relocatable containers (-rdc). In-process these
  /// are the wrapper's prelinked list; in a host ELF (where that list lives in
  /// .bss) they are the containers of __nv_relfatbin. Their PTX modules form
  /// one group that must be linked before translation.
  std::vector<unsigned> Prelinked;
  /// Whether the CUDA runtime registers this wrapper itself. v1 wrappers of
  /// relocatable code and v2 wrappers without prelinked objects are not.
  bool Registered = true;
};

struct ReadOptions {
  /// Host ELF: also scan the whole file at 8-byte alignment for containers
  /// outside .nv_fatbin/__nv_relfatbin (accepted only if they validate fully).
  bool ScanWholeFile = true;
  /// Input name used in messages; defaults to the file name / buffer id.
  std::string Name;
};

/// A payload: a view into the input (zero-copy) or an owned decompressed copy.
class Payload {
public:
  Payload() = default;
  static Payload view(llvm::ArrayRef<uint8_t> Bytes) {
    Payload P;
    P.View = Bytes;
    return P;
  }
  static Payload owned(std::unique_ptr<uint8_t[]> Buf, size_t Size) {
    Payload P;
    P.View = llvm::ArrayRef<uint8_t>(Buf.get(), Size);
    P.Buf = std::move(Buf);
    return P;
  }
  llvm::ArrayRef<uint8_t> bytes() const { return View; }
  llvm::StringRef text() const {
    return llvm::StringRef(reinterpret_cast<const char *>(View.data()), View.size());
  }
  size_t size() const { return View.size(); }
  bool isOwned() const { return Buf != nullptr; }
  /// Shortens the view (used to cut PTX at its first NUL).
  void truncate(size_t N) {
    if (N < View.size())
      View = View.take_front(N);
  }

private:
  std::unique_ptr<uint8_t[]> Buf;
  llvm::ArrayRef<uint8_t> View;
};

/// The parsed contents of one input.
class Fatbin {
public:
  /// Reads a file (memory-mapped) and parses it.
  static llvm::Expected<Fatbin> open(llvm::StringRef Path, ReadOptions Opts = {});
  /// Parses a buffer the caller keeps alive for the Fatbin's lifetime.
  static llvm::Expected<Fatbin> parse(llvm::MemoryBufferRef Buffer, ReadOptions Opts = {});
  /// Parses a buffer and takes ownership of it.
  static llvm::Expected<Fatbin> parse(std::unique_ptr<llvm::MemoryBuffer> Buffer,
                                      ReadOptions Opts = {});
  /// Reads the __fatBinC_Wrapper_t a program passes to __cudaRegisterFatBinary.
  /// The containers are read in place; their sizes come from their headers,
  /// so the memory must be what the CUDA toolchain produced.
  static llvm::Expected<Fatbin> fromWrapper(const void *Wrapper, ReadOptions Opts = {});

  Fatbin(Fatbin &&) noexcept;
  Fatbin &operator=(Fatbin &&) noexcept;
  ~Fatbin();

  llvm::StringRef name() const { return Name; }
  InputFormat format() const { return Format; }
  llvm::ArrayRef<Container> containers() const { return Containers; }
  llvm::ArrayRef<Entry> entries() const { return Entries; }
  /// Entries of one container.
  llvm::ArrayRef<Entry> entries(const Container &C) const {
    return llvm::ArrayRef<Entry>(Entries).slice(C.FirstEntry, C.NumEntries);
  }
  /// Registration units (wrappers). Empty for inputs without wrappers.
  llvm::ArrayRef<Module> modules() const { return Modules; }
  /// Things worth knowing that are not errors (e.g. a wrapper whose data
  /// pointer could not be resolved).
  llvm::ArrayRef<std::string> notes() const { return Notes; }

  /// The payload of an entry, decompressed to exactly its recorded size.
  /// Errors for opaque entries (LTO-IR, flag 0x10000), corrupt or lying
  /// compressed data and sizes beyond the expansion bound.
  llvm::Expected<Payload> payload(const Entry &E) const;
  /// The PTX text of a PTX entry, cut at its first NUL.
  llvm::Expected<Payload> ptx(const Entry &E) const;

  /// "name: container C entry I (offset 0x...)" for messages.
  std::string describe(const Entry &E) const;

private:
  Fatbin();
  friend class Reader;

  std::string Name;
  InputFormat Format = InputFormat::FatbinFile;
  bool InMemory = false;
  std::unique_ptr<llvm::MemoryBuffer> Owned;
  std::vector<Container> Containers;
  std::vector<Entry> Entries;
  std::vector<Module> Modules;
  std::vector<std::string> Notes;
};

/// Decompresses Src (LZ4 raw block or zstd frames) to exactly Size bytes.
/// Context names the data in error messages.
llvm::Expected<Payload> decompress(Compression C, llvm::ArrayRef<uint8_t> Src, uint64_t Size,
                                   llvm::StringRef Context);

} // namespace ptx2amd::fatbin
