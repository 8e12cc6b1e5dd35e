// The JIT cache (loader/include/ptx2amd/loader/Cache.h): round trip, keys, corrupt entries, the
// size bound, processes racing on one folder, the environment, the in-memory layer.
#include "ptx2amd/loader/Cache.h"

#include "LoaderTestSupport.h"

#include <catch2/catch.hpp>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Process.h>
#include <llvm/Support/Program.h>

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <thread>

extern char **environ;

using namespace ptx2amd::loader;
using loader_test::ScopedEnv;
namespace fs = llvm::sys::fs;

namespace {

constexpr size_t HeaderSize = 72; // the entry format's header (see Cache.cpp)

/// A fresh folder, removed afterwards.
struct TempDir {
  llvm::SmallString<128> Path;
  TempDir() { REQUIRE(!fs::createUniqueDirectory("ptx2amd-cache-test", Path)); }
  ~TempDir() { fs::remove_directories(Path); }
  std::string sub(const std::string &Name) const { return (Path + "/" + Name).str(); }
};

struct Warnings {
  std::vector<std::string> Lines;
  std::mutex Mutex;
  std::function<void(const std::string &)> sink() {
    return [this](const std::string &L) {
      std::lock_guard<std::mutex> Lock(Mutex);
      Lines.push_back(L);
    };
  }
};

CacheConfig config(const std::string &Dir, uint64_t MaxBytes = uint64_t(1) << 30,
                   uint64_t MemoryMaxBytes = 0, Warnings *W = nullptr) {
  CacheConfig C;
  C.Directory = Dir;
  C.MaxBytes = MaxBytes;
  C.MemoryMaxBytes = MemoryMaxBytes;
  if (W)
    C.Warn = W->sink();
  return C;
}

std::unique_ptr<Cache> openCache(CacheConfig C) {
  auto Opened = Cache::open(std::move(C));
  REQUIRE(bool(Opened));
  return std::move(*Opened);
}

CacheKey keyFor(int N) {
  std::string Ptx = fmt::format(".version 9.0\n.target sm_90\n// module {}\n", N);
  CacheKeyFields F;
  F.Ptx = Ptx;
  F.Target = "gfx90a";
  return CacheKey::compute(F);
}

/// Deterministic bytes of a size that varies with the key, so that any mix-up shows.
std::vector<uint8_t> payloadFor(const CacheKey &Key, size_t Size) {
  std::vector<uint8_t> P(Size);
  for (size_t I = 0; I < Size; ++I)
    P[I] = uint8_t(Key.digest()[I % 32] + I / 32);
  return P;
}

size_t raceSize(int K) { return 1000 + size_t(K) * 3000; }

std::vector<std::string> folderNames(const std::string &Dir) {
  std::vector<std::string> Names;
  std::error_code EC;
  for (fs::directory_iterator It(Dir, EC), End; !EC && It != End; It.increment(EC))
    Names.push_back(llvm::sys::path::filename(It->path()).str());
  return Names;
}

bool hasTempFiles(const std::string &Dir) {
  for (const std::string &N : folderNames(Dir))
    if (llvm::StringRef(N).ends_with(".tmp"))
      return true;
  return false;
}

std::vector<char> readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  return {std::istreambuf_iterator<char>(In), {}};
}

void writeFile(const std::string &Path, const std::vector<char> &Bytes) {
  std::ofstream Out(Path, std::ios::binary | std::ios::trunc);
  Out.write(Bytes.data(), Bytes.size());
}

} // namespace

TEST_CASE("cache: a stored entry is found again, by another Cache on the same folder", "[cache]") {
  TempDir D;
  std::string Dir = D.sub("cache"); // does not exist yet: the first store creates it
  CacheKey K = keyFor(1);
  std::vector<uint8_t> P = payloadFor(K, 100000);
  {
    auto C = openCache(config(Dir));
    CHECK(!C->lookup(K));
    CHECK(!fs::exists(Dir)); // a lookup creates nothing
    REQUIRE(!llvm::errorToBool(C->store(K, P)));
  }
  auto C = openCache(config(Dir));
  std::optional<std::vector<uint8_t>> Got = C->lookup(K);
  REQUIRE(Got);
  CHECK(*Got == P);
  CHECK(fs::exists(C->pathOf(K)));
  CHECK(!hasTempFiles(Dir));
  auto S = C->stats();
  REQUIRE(bool(S));
  CHECK(S->Entries == 1);
  CHECK(S->Bytes == HeaderSize + P.size());
  CHECK(S->DiskHits == 1);
  CHECK(S->Corrupt == 0);

  SECTION("an empty payload round-trips too") {
    CacheKey E = keyFor(2);
    REQUIRE(!llvm::errorToBool(C->store(E, {})));
    Got = openCache(config(Dir))->lookup(E);
    REQUIRE(Got);
    CHECK(Got->empty());
  }
  SECTION("storing a key again replaces its entry") {
    std::vector<uint8_t> Q = payloadFor(K, 10);
    REQUIRE(!llvm::errorToBool(C->store(K, Q)));
    CHECK(openCache(config(Dir))->lookup(K) == Q);
    CHECK(C->stats()->Entries == 1);
  }
}

TEST_CASE("cache: every key field changes the key", "[cache]") {
  CacheKeyFields Base;
  Base.Ptx = "ptx";
  Base.Target = "gfx90a";
  Base.Translator = "t1";
  CacheKey K = CacheKey::compute(Base);
  CHECK(CacheKey::compute(Base) == K);
  CHECK(K.hex().size() == 64);
  CHECK(K.hex().find_first_not_of("0123456789abcdef") == std::string::npos);

  std::vector<CacheKeyFields> Variants(8, Base);
  Variants[0].Ptx = "ptx ";
  Variants[1].Target = "gfx1100";
  Variants[2].OptLevel = 2;
  Variants[3].CodeObjectVersion = 6;
  Variants[4].Output = 2;
  Variants[5].Options = "-ftz";
  Variants[6].Translator = "t2";
  // Bytes moved between fields: the encoding keeps field boundaries.
  Variants[7].Ptx = "ptxgfx90a";
  Variants[7].Target = "";
  std::set<std::string> Seen{K.hex()};
  for (const CacheKeyFields &F : Variants)
    CHECK(Seen.insert(CacheKey::compute(F).hex()).second);

  // By default the key carries this build's translator identity.
  CHECK(CacheKeyFields{}.Translator == translatorVersion());
  CHECK(llvm::StringRef(translatorVersion()).starts_with("ptx2amd "));
  CHECK(llvm::StringRef(translatorVersion()).contains("device-libs "));
}

TEST_CASE("cache: a corrupt entry is discarded with a warning and rebuilt", "[cache]") {
  TempDir D;
  CacheKey K = keyFor(7);
  std::vector<uint8_t> P = payloadFor(K, 5000);
  REQUIRE(!llvm::errorToBool(openCache(config(D.sub("c")))->store(K, P)));
  std::string Path = openCache(config(D.sub("c")))->pathOf(K);
  std::vector<char> Good = readFile(Path);
  REQUIRE(Good.size() == HeaderSize + P.size());

  std::string Why;
  std::vector<char> Bad = Good;
  SECTION("truncated payload") {
    Bad.resize(Good.size() - 100);
    Why = "payload of";
  }
  SECTION("truncated header") {
    Bad.resize(30);
    Why = "truncated header";
  }
  SECTION("empty file") {
    Bad.clear();
    Why = "truncated header";
  }
  SECTION("a flipped payload byte") {
    Bad[HeaderSize + 1234] ^= 0x10;
    Why = "payload checksum";
  }
  SECTION("a flipped last byte") {
    Bad.back() ^= 0x01;
    Why = "payload checksum";
  }
  SECTION("a flipped magic byte") {
    Bad[3] ^= 0x01;
    Why = "bad magic";
  }
  // Every other header field is covered by the header checksum.
  for (size_t Offset : {8, 12, 20, 48, 56, 64, 71})
    SECTION(fmt::format("a flipped header byte at {}", Offset)) {
      Bad[Offset] ^= 0x80;
      Why = "header checksum";
    }
  SECTION("another key's entry under this key's name") {
    CacheKey Other = keyFor(8);
    REQUIRE(!llvm::errorToBool(openCache(config(D.sub("c")))->store(Other, P)));
    Bad = readFile(openCache(config(D.sub("c")))->pathOf(Other));
    Why = "another key";
  }
  writeFile(Path, Bad);

  Warnings W;
  auto C = openCache(config(D.sub("c"), uint64_t(1) << 30, 0, &W));
  CHECK(!C->lookup(K));
  REQUIRE(W.Lines.size() == 1);
  CHECK_THAT(W.Lines[0], Catch::Contains("discarded corrupt cache entry") &&
                             Catch::Contains(Path) && Catch::Contains(Why));
  CHECK(!fs::exists(Path));
  CHECK(C->stats()->Corrupt == 1);
  CHECK(C->stats()->Misses == 1);

  // The caller translates again and stores: the entry is whole again.
  REQUIRE(!llvm::errorToBool(C->store(K, P)));
  CHECK(readFile(Path) == Good);
  CHECK(openCache(config(D.sub("c")))->lookup(K) == P);
  CHECK(W.Lines.size() == 1);
}

TEST_CASE("cache: a full cache evicts the least recently used entries", "[cache]") {
  TempDir D;
  constexpr size_t Size = 1000, File = HeaderSize + Size;
  // Room for exactly ten entries; eviction goes down to nine.
  auto C = openCache(config(D.sub("c"), 10 * File));
  for (int I = 0; I < 10; ++I)
    REQUIRE(!llvm::errorToBool(C->store(keyFor(I), payloadFor(keyFor(I), Size))));
  CHECK(C->stats()->Entries == 10);
  CHECK(C->stats()->Evictions == 0);
  for (int I = 0; I < 5; ++I) // used again: younger than 5..9
    REQUIRE(C->lookup(keyFor(I)));
  for (int I = 10; I < 13; ++I)
    REQUIRE(!llvm::errorToBool(C->store(keyFor(I), payloadFor(keyFor(I), Size))));

  auto S = C->stats();
  REQUIRE(bool(S));
  CHECK(S->Bytes <= 10 * File);
  CHECK(S->Entries == 9);
  CHECK(S->Evictions == 4);
  for (int I = 0; I < 13; ++I) {
    INFO("entry " << I);
    bool Evicted = I >= 5 && I <= 8; // the four least recently used
    CHECK(fs::exists(C->pathOf(keyFor(I))) == !Evicted);
    if (!Evicted)
      CHECK(C->lookup(keyFor(I)) == payloadFor(keyFor(I), Size));
  }

  SECTION("an entry larger than the bound is refused") {
    CacheKey Big = keyFor(100);
    llvm::Error E = C->store(Big, payloadFor(Big, 10 * File));
    REQUIRE(bool(E));
    CHECK_THAT(llvm::toString(std::move(E)), Catch::Contains("does not fit"));
    CHECK(!fs::exists(C->pathOf(Big)));
    CHECK(C->stats()->Entries == 9);
  }
  SECTION("another process's entries count: a fresh Cache scans the folder") {
    auto C2 = openCache(config(D.sub("c"), 10 * File));
    for (int I = 20; I < 23; ++I)
      REQUIRE(!llvm::errorToBool(C2->store(keyFor(I), payloadFor(keyFor(I), Size))));
    CHECK(C2->stats()->Bytes <= 10 * File);
    CHECK(fs::exists(C2->pathOf(keyFor(22))));
  }
}

// Run by the racing test in child processes (hidden; selected by its tag).
TEST_CASE("cache: race child", "[.cache-race-child]") {
  std::optional<std::string> Dir = llvm::sys::Process::GetEnv("PTX2AMD_TEST_RACE_DIR");
  std::optional<std::string> Id = llvm::sys::Process::GetEnv("PTX2AMD_TEST_RACE_ID");
  REQUIRE(Dir);
  REQUIRE(Id);
  int Seed = std::atoi(Id->c_str());
  Warnings W;
  // A bound of about half the keys' bytes: evictions race with lookups and stores.
  auto C = openCache(config(*Dir, 120000, 0, &W));
  for (int I = 0; I < 800; ++I) {
    // Key 0 is everyone's every other time; the rest spread over twelve keys.
    int K = I % 2 ? 0 : (I * 7 + Seed * 5) % 12;
    CacheKey Key = keyFor(K);
    std::vector<uint8_t> Expected = payloadFor(Key, raceSize(K));
    if (I % 3 == 0 || !C->lookup(Key))
      REQUIRE(!llvm::errorToBool(C->store(Key, Expected)));
    std::optional<std::vector<uint8_t>> Got = C->lookup(Key);
    if (Got)
      REQUIRE(*Got == Expected);
  }
  CHECK(C->stats()->Corrupt == 0);
  CHECK(W.Lines.empty());
}

TEST_CASE("cache: processes racing on one folder lose nothing and corrupt nothing", "[cache]") {
  TempDir D;
  std::string Dir = D.sub("c");
  static int Anchor;
  std::string Self = fs::getMainExecutable(nullptr, &Anchor);
  REQUIRE(!Self.empty());

  std::vector<std::string> BaseEnv;
  for (char **E = environ; *E; ++E)
    BaseEnv.push_back(*E);
  constexpr int Children = 6;
  std::vector<llvm::sys::ProcessInfo> Running;
  std::vector<std::string> Logs;
  for (int I = 0; I < Children; ++I) {
    std::vector<std::string> Env = BaseEnv;
    Env.push_back("PTX2AMD_TEST_RACE_DIR=" + Dir);
    Env.push_back(fmt::format("PTX2AMD_TEST_RACE_ID={}", I));
    std::vector<llvm::StringRef> EnvRefs(Env.begin(), Env.end());
    Logs.push_back(D.sub(fmt::format("child{}.log", I)));
    std::optional<llvm::StringRef> Redirects[] = {std::nullopt, llvm::StringRef(Logs.back()),
                                                  llvm::StringRef(Logs.back())};
    std::string Error;
    Running.push_back(llvm::sys::ExecuteNoWait(Self, {Self, "[cache-race-child]"}, EnvRefs,
                                               Redirects, 0, &Error));
    REQUIRE(Running.back().Pid > 0);
  }
  for (int I = 0; I < Children; ++I) {
    llvm::sys::ProcessInfo Done = llvm::sys::Wait(Running[I], std::nullopt);
    std::vector<char> Log = readFile(Logs[I]);
    INFO("child " << I << " output:\n" << std::string(Log.begin(), Log.end()));
    CHECK(Done.ReturnCode == 0);
  }

  // Afterwards every entry verifies, and no temporary file is left behind.
  Warnings W;
  auto C = openCache(config(Dir, 120000, 0, &W));
  int Found = 0;
  for (int K = 0; K < 12; ++K)
    if (std::optional<std::vector<uint8_t>> Got = C->lookup(keyFor(K))) {
      CHECK(*Got == payloadFor(keyFor(K), raceSize(K)));
      ++Found;
    }
  CHECK(Found > 0);
  CHECK(W.Lines.empty());
  CHECK(C->stats()->Corrupt == 0);
  CHECK(!hasTempFiles(Dir));
}

TEST_CASE("cache: threads sharing one Cache", "[cache]") {
  TempDir D;
  Warnings W;
  auto C = openCache(config(D.sub("c"), 60000, 20000, &W));
  std::atomic<int> Wrong{0}, Failed{0};
  std::vector<std::thread> Threads;
  for (int T = 0; T < 8; ++T)
    Threads.emplace_back([&, T] {
      for (int I = 0; I < 200; ++I) {
        int K = (I * 5 + T) % 10;
        CacheKey Key = keyFor(K);
        std::vector<uint8_t> Expected = payloadFor(Key, raceSize(K) / 4);
        std::optional<std::vector<uint8_t>> Got = C->lookup(Key);
        if (Got && *Got != Expected)
          ++Wrong;
        if (!Got && llvm::errorToBool(C->store(Key, Expected)))
          ++Failed;
      }
    });
  for (std::thread &T : Threads)
    T.join();
  CHECK(Wrong == 0);
  CHECK(Failed == 0);
  CHECK(W.Lines.empty());
  auto S = C->stats();
  CHECK(S->MemoryBytes <= 20000);
  CHECK(S->MemoryHits + S->DiskHits + S->Misses == 8 * 200);
}

TEST_CASE("cache: the in-memory layer", "[cache]") {
  TempDir D;
  constexpr size_t Size = 1000;
  // Room for two payloads in memory.
  auto C = openCache(config(D.sub("c"), uint64_t(1) << 30, 2500));
  for (int I = 0; I < 3; ++I)
    REQUIRE(!llvm::errorToBool(C->store(keyFor(I), payloadFor(keyFor(I), Size))));
  CHECK(C->stats()->MemoryEntries == 2);
  CHECK(C->stats()->MemoryBytes == 2 * Size);
  // With the files gone, only memory answers: 1 and 2 are there, 0 was pushed out.
  for (int I = 0; I < 3; ++I)
    REQUIRE(fs::remove(C->pathOf(keyFor(I))) == std::error_code());
  CHECK(C->lookup(keyFor(2)) == payloadFor(keyFor(2), Size));
  CHECK(C->lookup(keyFor(1)) == payloadFor(keyFor(1), Size));
  CHECK(!C->lookup(keyFor(0)));
  auto S = C->stats();
  CHECK(S->MemoryHits == 2);
  CHECK(S->DiskHits == 0);
  CHECK(S->Misses == 1);

  SECTION("a disk hit enters memory, pushing out the least recently used") {
    std::vector<uint8_t> P = payloadFor(keyFor(5), Size);
    REQUIRE(!llvm::errorToBool(openCache(config(D.sub("c")))->store(keyFor(5), P)));
    CHECK(C->lookup(keyFor(5)) == P); // from disk
    REQUIRE(fs::remove(C->pathOf(keyFor(5))) == std::error_code());
    CHECK(C->lookup(keyFor(5)) == P); // from memory
    CHECK(C->lookup(keyFor(1)));      // 1 was used after 2: still there
    CHECK(!C->lookup(keyFor(2)));     // 2 was not
  }
  SECTION("clear empties memory and the folder, and leaves other files") {
    writeFile(D.sub("c/notes.txt"), {'h', 'i'});
    REQUIRE(!llvm::errorToBool(C->store(keyFor(3), payloadFor(keyFor(3), Size))));
    REQUIRE(!llvm::errorToBool(C->clear()));
    CHECK(!C->lookup(keyFor(1)));
    CHECK(!C->lookup(keyFor(3)));
    S = C->stats();
    CHECK(S->Entries == 0);
    CHECK(S->MemoryEntries == 0);
    CHECK(folderNames(D.sub("c")) == std::vector<std::string>{"notes.txt"});
  }
  SECTION("a payload larger than the memory bound stays on disk only") {
    REQUIRE(!llvm::errorToBool(C->store(keyFor(4), payloadFor(keyFor(4), 3000))));
    CHECK(C->stats()->MemoryEntries == 2);
    // Also when it replaces a payload that memory held.
    std::vector<uint8_t> Big = payloadFor(keyFor(1), 3000);
    REQUIRE(!llvm::errorToBool(C->store(keyFor(1), Big)));
    CHECK(C->stats()->MemoryEntries == 1);
    CHECK(C->lookup(keyFor(1)) == Big);
  }
}

TEST_CASE("cache: disabled", "[cache]") {
  TempDir D;
  CacheConfig Cfg = config(D.sub("c"));
  Cfg.Enabled = false;
  auto C = openCache(Cfg);
  REQUIRE(!llvm::errorToBool(C->store(keyFor(1), {1, 2, 3})));
  CHECK(!C->lookup(keyFor(1)));
  CHECK(!fs::exists(D.sub("c")));
  CHECK(C->stats()->Entries == 0);
}

TEST_CASE("cache: configuration from the environment", "[cache]") {
  ScopedEnv A("PTX2AMD_CACHE", nullptr), B("PTX2AMD_CACHE_DIR", nullptr),
      M("PTX2AMD_CACHE_MAX_BYTES", nullptr), X("XDG_CACHE_HOME", "/xdg/cache");
  auto Cfg = CacheConfig::fromEnvironment();
  REQUIRE(bool(Cfg));
  CHECK(Cfg->Enabled);
  CHECK(Cfg->Directory == "/xdg/cache/ptx2amd");
  CHECK(Cfg->MaxBytes == uint64_t(1) << 30);

  SECTION("PTX2AMD_CACHE_DIR overrides, and is made absolute") {
    ScopedEnv O("PTX2AMD_CACHE_DIR", "/elsewhere/c");
    CHECK(CacheConfig::fromEnvironment()->Directory == "/elsewhere/c");
    ScopedEnv R("PTX2AMD_CACHE_DIR", "relative");
    CHECK(llvm::sys::path::is_absolute(CacheConfig::fromEnvironment()->Directory));
  }
  SECTION("without XDG_CACHE_HOME: ~/.cache/ptx2amd") {
    ScopedEnv N("XDG_CACHE_HOME", nullptr), H("HOME", "/home/someone");
    CHECK(CacheConfig::fromEnvironment()->Directory == "/home/someone/.cache/ptx2amd");
  }
  SECTION("PTX2AMD_CACHE=0 disables") {
    for (const char *Off : {"0", "off", "FALSE", "no"}) {
      ScopedEnv O("PTX2AMD_CACHE", Off);
      CHECK(!CacheConfig::fromEnvironment()->Enabled);
    }
    ScopedEnv On("PTX2AMD_CACHE", "1");
    CHECK(CacheConfig::fromEnvironment()->Enabled);
  }
  SECTION("PTX2AMD_CACHE_MAX_BYTES") {
    std::pair<const char *, uint64_t> Good[] = {
        {"4096", 4096}, {"512M", uint64_t(512) << 20}, {"2g", uint64_t(2) << 30}, {"8K", 8192}};
    for (auto [Text, Bytes] : Good) {
      ScopedEnv S("PTX2AMD_CACHE_MAX_BYTES", Text);
      CHECK(CacheConfig::fromEnvironment()->MaxBytes == Bytes);
    }
    for (const char *Bad : {"", "0", "lots", "-5", "12T", "99999999999999999999"}) {
      INFO(Bad);
      ScopedEnv S("PTX2AMD_CACHE_MAX_BYTES", Bad);
      auto E = CacheConfig::fromEnvironment();
      REQUIRE(!E);
      CHECK_THAT(llvm::toString(E.takeError()), Catch::Contains("PTX2AMD_CACHE_MAX_BYTES"));
    }
  }
  SECTION("a relative folder is refused by open") {
    auto Opened = Cache::open(config("relative/dir"));
    REQUIRE(!Opened);
    CHECK_THAT(llvm::toString(Opened.takeError()), Catch::Contains("absolute"));
  }
}
