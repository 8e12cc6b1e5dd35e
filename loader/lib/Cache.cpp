//===- Cache.cpp - the JIT cache: content-addressed, bounded, process-safe -===//
//
// See Cache.h for the model. An entry file is a 72-byte little-endian header and the payload:
//
//   0  magic "P2ACACHE"        16  key digest (32 bytes)      56  xxh3-64 of the payload
//   8  u32 format version      48  u64 payload size           64  xxh3-64 of bytes 0..63
//  12  u32 header size (72)
//
// Files are never modified in place: a writer fills a temporary file, fsyncs it and renames it
// over the entry's name; readers read through one descriptor, so an entry that is replaced or
// evicted meanwhile is still read whole. Anything that does not verify is deleted (when the file
// at the path is still the one that was read) and the lookup misses.
//
//===----------------------------------------------------------------------===//

#include "ptx2amd/loader/Cache.h"
#include "ptx2amd/support/Error.h"

#include "ptx2amd/amdgpu-backend/DeviceLibraries.h"

#include <llvm/ADT/ScopeExit.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/ADT/StringExtras.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/Support/Endian.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Process.h>
#include <llvm/Support/SHA256.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Support/xxhash.h>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <unistd.h>

using namespace llvm;
namespace fs = llvm::sys::fs;
namespace endian = llvm::support::endian;

namespace ptx2amd::loader {
namespace {

constexpr char Magic[8] = {'P', '2', 'A', 'C', 'A', 'C', 'H', 'E'};
constexpr uint32_t FormatVersion = 1;
constexpr size_t HeaderSize = 72;
constexpr StringRef EntrySuffix = ".p2ac";
constexpr StringRef TempPrefix = ".p2ac-";
constexpr StringRef TempSuffix = ".tmp";
// A temporary file this old belongs to a writer that died; younger ones may still be written.
constexpr auto StaleTemp = std::chrono::hours(1);

std::array<uint8_t, HeaderSize> makeHeader(const CacheKey &Key, ArrayRef<uint8_t> Payload) {
  std::array<uint8_t, HeaderSize> H{};
  std::copy(std::begin(Magic), std::end(Magic), H.begin());
  endian::write32le(&H[8], FormatVersion);
  endian::write32le(&H[12], HeaderSize);
  std::copy(Key.digest().begin(), Key.digest().end(), &H[16]);
  endian::write64le(&H[48], Payload.size());
  endian::write64le(&H[56], xxh3_64bits(Payload));
  endian::write64le(&H[64], xxh3_64bits(ArrayRef(H.data(), 64)));
  return H;
}

/// Why \p File is not a valid entry for \p Key, or nothing when it is.
std::optional<std::string> invalidity(ArrayRef<uint8_t> File, const CacheKey &Key) {
  if (File.size() < HeaderSize)
    return fmt::format("truncated header ({} bytes)", File.size());
  if (!std::equal(std::begin(Magic), std::end(Magic), File.begin()))
    return std::string("bad magic");
  if (endian::read64le(&File[64]) != xxh3_64bits(File.take_front(64)))
    return std::string("header checksum mismatch");
  if (endian::read32le(&File[8]) != FormatVersion || endian::read32le(&File[12]) != HeaderSize)
    return fmt::format("unsupported format version {}", endian::read32le(&File[8]));
  if (!std::equal(Key.digest().begin(), Key.digest().end(), &File[16]))
    return std::string("entry holds another key");
  uint64_t Size = endian::read64le(&File[48]);
  if (Size != File.size() - HeaderSize)
    return fmt::format("payload of {} bytes, header says {}", File.size() - HeaderSize, Size);
  if (endian::read64le(&File[56]) != xxh3_64bits(File.drop_front(HeaderSize)))
    return std::string("payload checksum mismatch");
  return std::nullopt;
}

bool isEntryName(StringRef Name) {
  return Name.consume_back(EntrySuffix) && Name.size() == 64 &&
         all_of(Name, [](char C) { return isHexDigit(C) && !isUpper(C); });
}

bool isTempName(StringRef Name) {
  return Name.starts_with(TempPrefix) && Name.ends_with(TempSuffix);
}

struct FileInfo {
  std::string Path;
  uint64_t Size;
  sys::TimePoint<> Modified;
  bool Temp;
};

/// Our files in \p Dir. Files that vanish while listing are skipped; a missing folder is empty.
Expected<std::vector<FileInfo>> listFolder(StringRef Dir) {
  std::vector<FileInfo> Files;
  std::error_code EC;
  fs::directory_iterator It(Dir, EC), End;
  if (EC == std::errc::no_such_file_or_directory)
    return Files;
  for (; !EC && It != End; It.increment(EC)) {
    StringRef Name = sys::path::filename(It->path());
    bool Temp = isTempName(Name);
    if (!Temp && !isEntryName(Name))
      continue;
    fs::file_status Status;
    if (fs::status(It->path(), Status) || Status.type() != fs::file_type::regular_file)
      continue;
    Files.push_back({It->path(), Status.getSize(), Status.getLastModificationTime(), Temp});
  }
  if (EC)
    return makeError(ErrorKind::Io, Twine("cannot list cache folder ") + Dir + ": " + EC.message());
  return Files;
}

/// "1073741824", "512M", "2g": a positive byte count, K/M/G being powers of 1024.
std::optional<uint64_t> parseSize(StringRef Text) {
  Text = Text.trim();
  uint64_t Scale = 1;
  if (!Text.empty()) {
    switch (toLower(Text.back())) {
    case 'k':
      Scale = uint64_t(1) << 10;
      break;
    case 'm':
      Scale = uint64_t(1) << 20;
      break;
    case 'g':
      Scale = uint64_t(1) << 30;
      break;
    }
    if (Scale != 1)
      Text = Text.drop_back();
  }
  uint64_t Value;
  if (Text.getAsInteger(10, Value) || Value == 0 || Value > UINT64_MAX / Scale)
    return std::nullopt;
  return Value * Scale;
}

void appendField(SHA256 &H, uint8_t Tag, StringRef Bytes) {
  uint8_t Prefix[9];
  Prefix[0] = Tag;
  endian::write64le(&Prefix[1], Bytes.size());
  H.update(ArrayRef(Prefix));
  H.update(Bytes);
}

void appendField(SHA256 &H, uint8_t Tag, unsigned Value) {
  char Bytes[4];
  endian::write32le(Bytes, Value);
  appendField(H, Tag, StringRef(Bytes, 4));
}

} // namespace

const std::string &translatorVersion() {
  static const std::string Version = [] {
    // A rebuilt device library changes every code object: its hash is part of the identity.
    return fmt::format("ptx2amd {} llvm {} device-libs {:016x}", PTX2AMD_PROJECT_VERSION,
                       LLVM_VERSION_STRING, amdgpu::deviceLibrariesHash());
  }();
  return Version;
}

CacheKey CacheKey::compute(const CacheKeyFields &F) {
  // Tagged, length-prefixed fields: no two different field tuples encode the same bytes.
  SHA256 H;
  H.update(StringRef("ptx2amd cache key 1"));
  appendField(H, 1, F.Ptx);
  appendField(H, 2, F.Target);
  appendField(H, 3, F.OptLevel);
  appendField(H, 4, F.CodeObjectVersion);
  appendField(H, 5, F.Output);
  appendField(H, 6, F.Options);
  appendField(H, 7, F.Translator);
  CacheKey K;
  K.Digest = H.final();
  return K;
}

std::string CacheKey::hex() const { return toHex(Digest, /*LowerCase=*/true); }

Expected<CacheConfig> CacheConfig::fromEnvironment() {
  CacheConfig C;
  if (std::optional<std::string> On = sys::Process::GetEnv("PTX2AMD_CACHE")) {
    std::string V = StringRef(*On).trim().lower();
    C.Enabled = !(V == "0" || V == "off" || V == "false" || V == "no");
  }
  if (std::optional<std::string> Max = sys::Process::GetEnv("PTX2AMD_CACHE_MAX_BYTES")) {
    std::optional<uint64_t> Bytes = parseSize(*Max);
    if (!Bytes)
      return makeError(ErrorKind::BadInput,
                       "PTX2AMD_CACHE_MAX_BYTES: expected a positive size such as 1073741824, "
                       "512M or 2G, got '" +
                           *Max + "'");
    C.MaxBytes = *Bytes;
  }
  SmallString<256> Dir;
  std::optional<std::string> Override = sys::Process::GetEnv("PTX2AMD_CACHE_DIR");
  if (Override && !Override->empty()) {
    Dir = *Override;
  } else {
    // $XDG_CACHE_HOME, else ~/.cache.
    if (!sys::path::cache_directory(Dir))
      return makeError(ErrorKind::BadInput,
                       "no cache folder: set PTX2AMD_CACHE_DIR, XDG_CACHE_HOME or HOME");
    sys::path::append(Dir, "ptx2amd");
  }
  if (std::error_code EC = fs::make_absolute(Dir))
    return makeError(ErrorKind::Io, "cache folder " + Dir + ": " + EC.message());
  C.Directory = std::string(Dir);
  return C;
}

Expected<std::unique_ptr<Cache>> Cache::open(CacheConfig Config) {
  if (Config.Directory.empty() || !sys::path::is_absolute(Config.Directory))
    return makeError(ErrorKind::BadInput,
                     "the cache folder must be an absolute path, not '" + Config.Directory + "'");
  if (Config.MaxBytes == 0)
    return makeError(ErrorKind::BadInput, "the cache bound must be positive");
  return std::unique_ptr<Cache>(new Cache(std::move(Config)));
}

std::string Cache::pathOf(const CacheKey &Key) const {
  SmallString<256> P(Config.Directory);
  sys::path::append(P, Key.hex() + EntrySuffix);
  return std::string(P);
}

void Cache::warn(const std::string &Message) {
  if (Config.Warn)
    Config.Warn(Message);
  else
    fmt::print(stderr, "ptx2amd: warning: {}\n", Message);
}

std::optional<std::vector<uint8_t>> Cache::lookup(const CacheKey &Key) {
  if (!Config.Enabled) {
    ++Misses;
    return std::nullopt;
  }
  {
    std::lock_guard<std::mutex> Lock(MemoryMutex);
    auto It = Memory.find(Key.hex());
    if (It != Memory.end()) {
      Ages.splice(Ages.begin(), Ages, It->second.Age);
      ++MemoryHits;
      return It->second.Payload;
    }
  }
  std::optional<std::vector<uint8_t>> Payload = readEntry(Key);
  if (!Payload) {
    ++Misses;
    return std::nullopt;
  }
  ++DiskHits;
  remember(Key, *Payload);
  return Payload;
}

std::optional<std::vector<uint8_t>> Cache::readEntry(const CacheKey &Key) {
  std::string Path = pathOf(Key);
  Expected<fs::file_t> FD = fs::openNativeFileForRead(Path);
  if (!FD) {
    std::error_code EC = errorToErrorCode(FD.takeError());
    if (EC != std::errc::no_such_file_or_directory)
      warn(fmt::format("cannot read cache entry {}: {}", Path, EC.message()));
    return std::nullopt;
  }
  scope_exit Close([&] { fs::closeFile(*FD); });
  fs::file_status Status;
  if (std::error_code EC = fs::status(*FD, Status)) {
    warn(fmt::format("cannot read cache entry {}: {}", Path, EC.message()));
    return std::nullopt;
  }
  fs::UniqueID Identity = Status.getUniqueID();
  // Never read more than an entry can hold: the file is not trusted.
  if (Status.getSize() > HeaderSize + Config.MaxBytes) {
    discard(Path, fmt::format("{} bytes, more than the cache bound", Status.getSize()), Identity);
    return std::nullopt;
  }
  SmallVector<char, 0> Bytes;
  if (Error E = fs::readNativeFileToEOF(*FD, Bytes)) {
    warn(fmt::format("cannot read cache entry {}: {}", Path, toString(std::move(E))));
    return std::nullopt;
  }
  ArrayRef<uint8_t> File(reinterpret_cast<const uint8_t *>(Bytes.data()), Bytes.size());
  if (std::optional<std::string> Why = invalidity(File, Key)) {
    discard(Path, *Why, Identity);
    return std::nullopt;
  }
  // Least recently used is by modification time; failing to refresh it only ages the entry.
  (void)fs::setLastAccessAndModificationTime(*FD, std::chrono::system_clock::now());
  return std::vector<uint8_t>(File.begin() + HeaderSize, File.end());
}

void Cache::discard(const std::string &Path, const std::string &Why, const fs::UniqueID &Identity) {
  // Another process may have renamed a good entry over the bad one since it was opened: only
  // the file that was read is removed.
  fs::file_status Now;
  if (!fs::status(Path, Now) && Now.getUniqueID() == Identity)
    (void)fs::remove(Path);
  ++Corrupt;
  warn(fmt::format("discarded corrupt cache entry {} ({}); it will be rebuilt", Path, Why));
}

void Cache::remember(const CacheKey &Key, ArrayRef<uint8_t> Payload) {
  std::lock_guard<std::mutex> Lock(MemoryMutex);
  std::string Hex = Key.hex();
  auto It = Memory.find(Hex);
  if (It != Memory.end()) {
    MemoryBytes -= It->second.Payload.size();
    Ages.erase(It->second.Age);
    Memory.erase(It);
  }
  if (Payload.size() > Config.MemoryMaxBytes)
    return;
  Ages.push_front(Hex);
  Memory.emplace(Hex, MemoryEntry{{Payload.begin(), Payload.end()}, Ages.begin()});
  MemoryBytes += Payload.size();
  while (MemoryBytes > Config.MemoryMaxBytes) {
    auto Oldest = Memory.find(Ages.back());
    MemoryBytes -= Oldest->second.Payload.size();
    Memory.erase(Oldest);
    Ages.pop_back();
  }
}

Error Cache::store(const CacheKey &Key, ArrayRef<uint8_t> Payload) {
  if (!Config.Enabled)
    return Error::success();
  uint64_t FileSize = HeaderSize + Payload.size();
  if (FileSize > Config.MaxBytes)
    return makeError(ErrorKind::OutOfResources,
                     fmt::format("a cache entry of {} bytes does not fit the cache bound of {}",
                                 FileSize, Config.MaxBytes));
  if (std::error_code EC = fs::create_directories(Config.Directory))
    return makeError(ErrorKind::Io,
                     "cannot create cache folder " + Config.Directory + ": " + EC.message());

  SmallString<256> Model(Config.Directory);
  sys::path::append(Model, Twine(TempPrefix) + "%%%%%%%%%%%%%%%%" + TempSuffix);
  int FD;
  SmallString<256> Temp;
  if (std::error_code EC = fs::createUniqueFile(Model, FD, Temp))
    return makeError(ErrorKind::Io, "cannot create a file in cache folder " + Config.Directory +
                                        ": " + EC.message());
  auto Fail = [&](const Twine &What) {
    ::close(FD);
    (void)fs::remove(Temp);
    return makeError(ErrorKind::Io, "cannot write cache entry " + Temp + ": " + What);
  };
  {
    raw_fd_ostream OS(FD, /*shouldClose=*/false);
    std::array<uint8_t, HeaderSize> Header = makeHeader(Key, Payload);
    OS.write(reinterpret_cast<const char *>(Header.data()), Header.size());
    OS.write(reinterpret_cast<const char *>(Payload.data()), Payload.size());
    OS.flush();
    if (std::error_code EC = OS.error()) {
      OS.clear_error();
      return Fail(EC.message());
    }
  }
  // The timestamp is set explicitly: the kernel's own is coarse, and LRU order needs a fine one.
  (void)fs::setLastAccessAndModificationTime(FD, std::chrono::system_clock::now());
  // Durable before it is visible: a crash after the rename never leaves a file of zeros.
  if (::fsync(FD) != 0)
    return Fail(std::error_code(errno, std::generic_category()).message());
  if (::close(FD) != 0) {
    (void)fs::remove(Temp);
    return makeError(ErrorKind::Io, "cannot write cache entry " + Temp);
  }
  std::string Path = pathOf(Key);
  if (std::error_code EC = fs::rename(Temp, Path)) {
    (void)fs::remove(Temp);
    return makeError(ErrorKind::Io, "cannot publish cache entry " + Path + ": " + EC.message());
  }
  ++Stores;
  remember(Key, Payload);

  std::lock_guard<std::mutex> Lock(EvictMutex);
  if (DiskEstimate && *DiskEstimate + FileSize <= Config.MaxBytes) {
    *DiskEstimate += FileSize;
    return Error::success();
  }
  return evict(Path);
}

Error Cache::evict(const std::string &Keep) {
  Expected<std::vector<FileInfo>> Files = listFolder(Config.Directory);
  if (!Files)
    return Files.takeError();
  auto Now = std::chrono::system_clock::now();
  uint64_t Total = 0;
  std::vector<FileInfo *> Entries;
  for (FileInfo &F : *Files) {
    if (F.Temp && Now - F.Modified > StaleTemp) {
      (void)fs::remove(F.Path);
      continue;
    }
    Total += F.Size;
    if (!F.Temp && F.Path != Keep)
      Entries.push_back(&F);
  }
  if (Total > Config.MaxBytes) {
    std::sort(Entries.begin(), Entries.end(), [](const FileInfo *A, const FileInfo *B) {
      return std::tie(A->Modified, A->Path) < std::tie(B->Modified, B->Path);
    });
    uint64_t Target = Config.MaxBytes / 10 * 9;
    for (const FileInfo *F : Entries) {
      if (Total <= Target)
        break;
      // Another process may have evicted it first: either way it is gone.
      std::error_code EC = fs::remove(F->Path, /*IgnoreNonExisting=*/false);
      if (!EC)
        ++Evictions;
      if (!EC || EC == std::errc::no_such_file_or_directory)
        Total -= F->Size;
    }
  }
  DiskEstimate = Total;
  return Error::success();
}

Expected<CacheStats> Cache::stats() {
  Expected<std::vector<FileInfo>> Files = listFolder(Config.Directory);
  if (!Files)
    return Files.takeError();
  CacheStats S;
  for (const FileInfo &F : *Files)
    if (!F.Temp) {
      ++S.Entries;
      S.Bytes += F.Size;
    }
  S.MemoryHits = MemoryHits;
  S.DiskHits = DiskHits;
  S.Misses = Misses;
  S.Stores = Stores;
  S.Evictions = Evictions;
  S.Corrupt = Corrupt;
  std::lock_guard<std::mutex> Lock(MemoryMutex);
  S.MemoryEntries = Memory.size();
  S.MemoryBytes = MemoryBytes;
  return S;
}

Error Cache::clear() {
  {
    std::lock_guard<std::mutex> Lock(MemoryMutex);
    Memory.clear();
    Ages.clear();
    MemoryBytes = 0;
  }
  std::lock_guard<std::mutex> Lock(EvictMutex);
  DiskEstimate.reset();
  Expected<std::vector<FileInfo>> Files = listFolder(Config.Directory);
  if (!Files)
    return Files.takeError();
  for (const FileInfo &F : *Files)
    if (std::error_code EC = fs::remove(F.Path))
      return makeError(ErrorKind::Io, "cannot remove " + F.Path + ": " + EC.message());
  return Error::success();
}

} // namespace ptx2amd::loader
