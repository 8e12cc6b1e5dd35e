// The JIT cache: translated modules, content-addressed, in memory and on disk.
//
// A CacheKey is the SHA-256 of everything that decides a translation's output: the PTX text,
// the target, the options (for the host device, the CPU its code is generated for:
// DeviceProperties::CompiledFor) and the translator's identity (translatorVersion()). Bumping the
// project version (CMake's project(VERSION)), changing LLVM or rebuilding the device libraries
// therefore gives new keys: old entries are never read again and age out by LRU eviction.
//
// On disk an entry is one file, <dir>/<64 hex digits of the key>.p2ac: a header (magic, format
// version, key, payload size, payload checksum, header checksum) and the payload. Writers publish
// by rename(2) from a unique temporary file in the same folder, so a reader sees a whole entry
// or none, and several processes storing the same key at once are harmless (the last rename
// wins; the contents are the same). A lookup verifies the entry; a corrupt or truncated one is
// deleted, reported through Config::Warn, and the lookup misses, so the caller translates again
// and stores a good entry.
//
// The folder has a size bound: after a store takes the total past it, the least recently used
// entries (file modification time, refreshed on every disk hit) are evicted until the total is
// under 90% of the bound; the entry just stored is never evicted. Each process keeps an estimate
// of the total and scans the folder when the estimate crosses the bound, so with several writing
// processes the bound can be overshot by what the others stored since their last scan.
//
// In front of the disk sits an in-memory LRU map with its own bound. A Cache is thread-safe.
#pragma once

#include <llvm/ADT/StringRef.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/FileSystem/UniqueID.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace ptx2amd::loader {

/// The identity of the code that translates: project version, LLVM version and a hash of the
/// embedded device libraries. Part of every key.
const std::string &translatorVersion();

/// Everything that decides a translation's output.
struct CacheKeyFields {
  llvm::StringRef Ptx;            ///< the PTX text, byte for byte
  std::string Target;             ///< "gfx90a", ...
  unsigned OptLevel = 3;          ///< 0..3
  unsigned CodeObjectVersion = 5; ///< 4, 5 or 6
  unsigned Output = 0;            ///< what is produced (ptx2amd_output: code object, IR, asm)
  std::string Options;            ///< any further option that changes the output, canonical
  std::string Translator = translatorVersion();
};

class CacheKey {
public:
  static CacheKey compute(const CacheKeyFields &Fields);

  const std::array<uint8_t, 32> &digest() const { return Digest; }
  std::string hex() const;

  bool operator==(const CacheKey &) const = default;

private:
  std::array<uint8_t, 32> Digest{};
};

struct CacheConfig {
  std::string Directory;                        ///< absolute; created on the first store
  bool Enabled = true;                          ///< false: every lookup misses, stores do nothing
  uint64_t MaxBytes = uint64_t(1) << 30;        ///< bound of the folder
  uint64_t MemoryMaxBytes = uint64_t(64) << 20; ///< bound of the in-memory layer; 0: none
  /// Receives one line per problem that is handled (a corrupt entry discarded), possibly from
  /// several threads at once; by default they go to stderr.
  std::function<void(const std::string &)> Warn;

  /// From the environment: PTX2AMD_CACHE_DIR, else $XDG_CACHE_HOME/ptx2amd, else
  /// ~/.cache/ptx2amd; PTX2AMD_CACHE=0 (or off/false/no) disables; PTX2AMD_CACHE_MAX_BYTES is
  /// the bound (a number with an optional K, M or G suffix, powers of 1024). Fails on a
  /// malformed bound or when no folder can be found.
  static llvm::Expected<CacheConfig> fromEnvironment();
};

struct CacheStats {
  // The folder, from a scan at the time of the call.
  uint64_t Entries = 0, Bytes = 0;
  // This Cache object's counters.
  uint64_t MemoryHits = 0, DiskHits = 0, Misses = 0, Stores = 0, Evictions = 0, Corrupt = 0;
  uint64_t MemoryEntries = 0, MemoryBytes = 0;
};

class Cache {
public:
  /// Touches no file: the folder is created by the first store.
  static llvm::Expected<std::unique_ptr<Cache>> open(CacheConfig Config);

  const CacheConfig &config() const { return Config; }

  /// The payload stored under \p Key, or nothing (absent, disabled, or discarded as corrupt).
  std::optional<std::vector<uint8_t>> lookup(const CacheKey &Key);

  /// Publishes \p Payload under \p Key (replacing any entry), then evicts if the folder is past
  /// its bound. A payload larger than the bound is refused. Failures leave the cache consistent.
  llvm::Error store(const CacheKey &Key, llvm::ArrayRef<uint8_t> Payload);

  /// Scans the folder; a folder that does not exist is an empty cache.
  llvm::Expected<CacheStats> stats();

  /// Removes every entry and leftover temporary file of the folder (nothing else) and empties
  /// the in-memory layer.
  llvm::Error clear();

  /// The file of \p Key's entry.
  std::string pathOf(const CacheKey &Key) const;

private:
  explicit Cache(CacheConfig Config) : Config(std::move(Config)) {}

  std::optional<std::vector<uint8_t>> readEntry(const CacheKey &Key);
  void discard(const std::string &Path, const std::string &Why,
               const llvm::sys::fs::UniqueID &Identity);
  void remember(const CacheKey &Key, llvm::ArrayRef<uint8_t> Payload);
  llvm::Error evict(const std::string &Keep);
  void warn(const std::string &Message);

  CacheConfig Config;

  struct MemoryEntry {
    std::vector<uint8_t> Payload;
    std::list<std::string>::iterator Age;
  };
  std::mutex MemoryMutex;                              ///< guards Memory, Ages, MemoryBytes
  std::unordered_map<std::string, MemoryEntry> Memory; ///< by key hex
  std::list<std::string> Ages;                         ///< most recently used first
  uint64_t MemoryBytes = 0;

  std::mutex EvictMutex;                ///< one scan at a time; guards DiskEstimate
  std::optional<uint64_t> DiskEstimate; ///< the folder's total as last scanned plus our stores

  std::atomic<uint64_t> MemoryHits{0}, DiskHits{0}, Misses{0}, Stores{0}, Evictions{0}, Corrupt{0};
};

} // namespace ptx2amd::loader
