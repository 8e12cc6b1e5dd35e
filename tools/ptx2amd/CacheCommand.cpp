// `ptx2amd cache stats|clear`: the JIT cache's folder, as the environment resolves it.
#include "Commands.h"

#include "ptx2amd/loader/Cache.h"

#include <fmt/format.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/raw_ostream.h>

#include <cstdio>

namespace ptx2amd::tool {
namespace {

namespace cache_opts {
#define PTX2AMD_OPTIONS "CacheOptions.inc"
#include "OptionTable.def"
} // namespace cache_opts

const CommandHelp CacheHelp = {
    "cache", "ptx2amd cache stats [--json]\n       ptx2amd cache clear",
    R"(The JIT cache keeps translated modules, keyed by the PTX text, the target, the
options and the translator's version, in a folder: PTX2AMD_CACHE_DIR, else $XDG_CACHE_HOME/ptx2amd,
else ~/.cache/ptx2amd. PTX2AMD_CACHE=0 turns it off; PTX2AMD_CACHE_MAX_BYTES bounds the folder
(e.g. 512M, 2G; default 1G), the least recently used entries going first.)",
    R"(COMMANDS:
  stats    the folder, whether the cache is on, its entries and their bytes against the bound
  clear    remove every entry (other files in the folder are left alone)

EXIT STATUS: 0 on success, 1 when the folder cannot be read or cleared, 2 on usage errors
(including a malformed PTX2AMD_CACHE_MAX_BYTES).
)"};

} // namespace

int runCache(llvm::ArrayRef<std::string> Argv) {
  using namespace cache_opts;
  int Exit = 0;
  auto Args = parseCommandLine(table(), OPT_help, CacheHelp, Argv, Exit);
  if (!Args)
    return Exit;
  const bool Json = Args->hasArg(OPT_json);
  const std::vector<std::string> Words = Args->getAllArgValues(OPT_INPUT);
  if (Words.size() > 1)
    return usageError(CacheHelp, fmt::format("unexpected argument '{}'", Words[1]));
  const std::string Action = Words.empty() ? "" : Words.front();
  if (Action != "stats" && Action != "clear")
    return usageError(CacheHelp, Action.empty()
                                     ? "no command: 'stats' or 'clear'"
                                     : fmt::format("unknown cache command '{}'", Action));
  if (Json && Action != "stats")
    return usageError(CacheHelp, "'--json' goes with 'stats'");

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
