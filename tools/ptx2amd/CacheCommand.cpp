// `ptx2amd cache stats|clear`: the JIT cache's folder, as the environment resolves it.
#include "Commands.h"

#include "ptx2amd/loader/Cache.h"

#include <fmt/format.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdio>

namespace ptx2amd::tool {
namespace {

const char CacheHelp[] =
    R"(usage: ptx2amd cache stats [--json]
       ptx2amd cache clear

The JIT cache keeps translated modules, keyed by the PTX text, the target, the options and the
translator's version, in a folder: PTX2AMD_CACHE_DIR, else $XDG_CACHE_HOME/ptx2amd, else
~/.cache/ptx2amd. PTX2AMD_CACHE=0 turns it off; PTX2AMD_CACHE_MAX_BYTES bounds the folder
(e.g. 512M, 2G; default 1G), the least recently used entries going first.

commands:
  stats    the folder, whether the cache is on, its entries and their bytes against the bound
  clear    remove every entry (other files in the folder are left alone)

options:
  --json   machine-readable output of stats

exit status: 0 on success, 1 when the folder cannot be read or cleared, 2 on usage errors
(including a malformed PTX2AMD_CACHE_MAX_BYTES).
)";

int usageError(const std::string &Message) {
  printError(Message + " (see 'ptx2amd cache --help')");
  return 2;
}

} // namespace

int runCache(llvm::ArrayRef<std::string> Args) {
  std::string Action;
  bool Json = false;
  for (const std::string &A : Args) {
    if (A == "-h" || A == "--help") {
      std::fputs(CacheHelp, stdout);
      return 0;
    } else if (A == "--json") {
      Json = true;
    } else if (A.size() > 1 && A[0] == '-') {
      return usageError(fmt::format("unknown option '{}'", A));
    } else if (Action.empty()) {
      Action = A;
    } else {
      return usageError(fmt::format("unexpected argument '{}'", A));
    }
  }
  if (Action != "stats" && Action != "clear")
    return usageError(Action.empty() ? "no command: 'stats' or 'clear'"
                                     : fmt::format("unknown cache command '{}'", Action));
  if (Json && Action != "stats")
    return usageError("'--json' goes with 'stats'");

  llvm::Expected<loader::CacheConfig> Config = loader::CacheConfig::fromEnvironment();
  if (!Config) {
    printError(llvm::toString(Config.takeError()));
    return 2;
  }
  llvm::Expected<std::unique_ptr<loader::Cache>> Cache = loader::Cache::open(*Config);
  if (!Cache) {
    printError(llvm::toString(Cache.takeError()));
    return 1;
  }
  llvm::Expected<loader::CacheStats> Stats = (*Cache)->stats();
  if (!Stats) {
    printError(llvm::toString(Stats.takeError()));
    return 1;
  }

  if (Action == "clear") {
    if (llvm::Error E = (*Cache)->clear()) {
      printError(llvm::toString(std::move(E)));
      return 1;
    }
    fmt::print("ptx2amd: removed {} {} ({} bytes) from {}\n", Stats->Entries,
               Stats->Entries == 1 ? "entry" : "entries", Stats->Bytes, Config->Directory);
    return 0;
  }
  if (Json) {
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(llvm::json::Object{
                                               {"folder", Config->Directory},
                                               {"enabled", Config->Enabled},
                                               {"entries", int64_t(Stats->Entries)},
                                               {"bytes", int64_t(Stats->Bytes)},
                                               {"max_bytes", int64_t(Config->MaxBytes)},
                                           }))
                 << "\n";
    return 0;
  }
  fmt::print("folder:  {}\nstate:   {}\nentries: {}\nbytes:   {} of {} ({:.1f}%)\n",
             Config->Directory, Config->Enabled ? "enabled" : "disabled (PTX2AMD_CACHE)",
             Stats->Entries, Stats->Bytes, Config->MaxBytes,
             100.0 * double(Stats->Bytes) / double(Config->MaxBytes));
  return 0;
}

} // namespace ptx2amd::tool
