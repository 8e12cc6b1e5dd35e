// bench-corpus: every PTX entry that the CUDA toolkit's own libraries carry, found with the fatbin
// reader, decompressed, parsed and built into IR. Prints one figure per line.
// Usage: bench-corpus [-j N] [--limit N] [DIR_OR_FILE...]   (default: <toolkit>/lib64)
#include "ptx2amd/fatbin/AllPtx.h"
#include "ptx2amd/fatbin/Fatbin.h"
#include "ptx2amd/ptx-ir/Reader.h"

#include <fmt/format.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/ThreadPool.h>
#include <llvm/Support/Threading.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>

using namespace ptx2amd;
using Clock = std::chrono::steady_clock;

namespace {

/// Shared libraries of a folder, each file once (symlinks to the same file are skipped).
std::vector<std::string> listLibraries(const std::string &Dir) {
  std::vector<std::string> Out;
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(Dir, EC), End; It != End && !EC; It.increment(EC)) {
    llvm::StringRef Name = llvm::sys::path::filename(It->path());
    if (!Name.starts_with("lib") || !Name.contains(".so"))
      continue;
    llvm::sys::fs::file_status St;
    if (llvm::sys::fs::status(It->path(), St, /*follow=*/false) ||
        St.type() != llvm::sys::fs::file_type::regular_file)
      continue;
    Out.push_back(It->path());
  }
  std::sort(Out.begin(), Out.end());
  return Out;
}

struct Stats {
  std::atomic<uint64_t> Containers{0}, Entries{0}, PtxEntries{0}, Elf{0}, Opaque{0}, OtherKind{0};
  std::atomic<uint64_t> Parsed{0}, Failed{0}, PtxBytes{0}, Functions{0}, FailedFunctions{0};
  std::atomic<uint64_t> Instructions{0}, ParseNanos{0}, ReadErrors{0};
  std::mutex Lock;
  std::vector<std::string> FirstFailures;
  void failure(std::string S) {
    std::lock_guard<std::mutex> G(Lock);
    if (FirstFailures.size() < 10)
      FirstFailures.push_back(std::move(S));
  }
};

/// Parses one PTX module and builds every function, dropping each body after it is built so
/// that memory stays bounded by the largest function.
void parseOne(std::string Name, std::string Text, Stats &S) {
  auto T0 = Clock::now();
  auto Src = std::make_shared<const SourceText>(std::move(Name), std::move(Text));
  auto M = ir::readModule(Src, {true, 1, true});
  bool Ok = true;
  if (!M) {
    Ok = false;
    S.failure(llvm::toString(M.takeError()));
  } else {
    for (auto &F : (*M)->Functions) {
      if (F->St != ir::Function::State::Unparsed)
        continue;
      ++S.Functions;
      if (!ir::buildFunction(**M, *F)) {
        Ok = false;
        ++S.FailedFunctions;
        if (!F->Diags.empty())
          S.failure(F->Diags[0].str());
      }
      for (auto &B : F->Blocks)
        S.Instructions += B.Insts.size();
      F->dropBody();
    }
  }
  S.ParseNanos += std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - T0).count();
  (Ok ? S.Parsed : S.Failed)++;
}

long peakRssMiB() {
  rusage U{};
  getrusage(RUSAGE_SELF, &U);
  return U.ru_maxrss / 1024;
}

} // namespace

int main(int argc, char **argv) {
  unsigned Threads = 0;
  uint64_t Limit = UINT64_MAX;
  std::vector<std::string> Inputs;
  for (int K = 1; K < argc; ++K) {
    std::string A = argv[K];
    if ((A == "-j" || A == "--limit") && K + 1 < argc) {
      if (A == "-j")
        Threads = static_cast<unsigned>(std::stoul(argv[++K]));
      else
        Limit = std::stoull(argv[++K]);
    } else if (A == "-h" || A == "--help") {
      std::printf(
          "usage: bench-corpus [-j N] [--limit N] [DIR_OR_FILE...]\n"
          "Parses every PTX entry of the given CUDA binaries (default: the toolkit's lib64).\n");
      return 0;
    } else {
      Inputs.push_back(A);
    }
  }
  if (Inputs.empty())
    Inputs.push_back(fatbin::cudaToolkitLibDir());
  std::vector<std::string> Files;
  for (const std::string &In : Inputs) {
    if (llvm::sys::fs::is_directory(In)) {
      auto L = listLibraries(In);
      Files.insert(Files.end(), L.begin(), L.end());
    } else {
      Files.push_back(In);
    }
  }
  unsigned N = Threads ? Threads : llvm::hardware_concurrency().compute_thread_count();
  bool Tty = isatty(2);
  Stats S;
  auto Start = Clock::now();
  {
    llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(N));
    std::atomic<unsigned> InFlight{0};
    for (size_t FI = 0; FI < Files.size() && S.PtxEntries < Limit; ++FI) {
      auto FB = fatbin::Fatbin::open(Files[FI]);
      if (!FB) {
        llvm::consumeError(FB.takeError()); // not a CUDA binary: nothing to count
        continue;
      }
      S.Containers += FB->containers().size();
      for (const fatbin::Entry &E : FB->entries()) {
        ++S.Entries;
        if (E.Kind == fatbin::EntryKind::ELF) {
          ++S.Elf;
          continue;
        }
        if (E.isOpaque()) {
          ++S.Opaque;
          continue;
        }
        if (E.Kind != fatbin::EntryKind::PTX) {
          ++S.OtherKind;
          continue;
        }
        if (S.PtxEntries >= Limit)
          break;
        ++S.PtxEntries;
        auto Text = FB->ptx(E);
        if (!Text) {
          ++S.ReadErrors;
          ++S.Failed;
          S.failure(llvm::toString(Text.takeError()));
          continue;
        }
        S.PtxBytes += Text->text().size();
        // Bound memory: at most 2 modules per worker waiting or in flight.
        while (InFlight >= 2 * N)
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
        ++InFlight;
        Pool.async([&S, &InFlight, Name = FB->describe(E), T = Text->text().str()]() mutable {
          parseOne(std::move(Name), std::move(T), S);
          --InFlight;
        });
      }
      if (Tty)
        std::fprintf(stderr, "\r[%zu/%zu] %-40s %llu PTX entries, %.0f MB", FI + 1, Files.size(),
                     llvm::sys::path::filename(Files[FI]).str().c_str(),
                     (unsigned long long)S.PtxEntries.load(), S.PtxBytes.load() / 1e6);
    }
    Pool.wait();
  }
  if (Tty)
    std::fprintf(stderr, "\n");
  double Secs = std::chrono::duration<double>(Clock::now() - Start).count();
  double ParseSecs = S.ParseNanos / 1e9;
  std::printf("libraries scanned: %zu\n", Files.size());
  std::printf("containers: %llu\n", (unsigned long long)S.Containers.load());
  std::printf("entries: %llu (ELF %llu, LTO-IR/opaque skipped %llu, other %llu)\n",
              (unsigned long long)S.Entries.load(), (unsigned long long)S.Elf.load(),
              (unsigned long long)S.Opaque.load(), (unsigned long long)S.OtherKind.load());
  std::printf("PTX entries found: %llu\n", (unsigned long long)S.PtxEntries.load());
  std::printf("PTX entries parsed and built: %llu\n", (unsigned long long)S.Parsed.load());
  std::printf("PTX entries failed: %llu (%llu of %llu functions, %llu unreadable payloads)\n",
              (unsigned long long)S.Failed.load(), (unsigned long long)S.FailedFunctions.load(),
              (unsigned long long)S.Functions.load(), (unsigned long long)S.ReadErrors.load());
  std::printf("instructions built: %llu\n", (unsigned long long)S.Instructions.load());
  std::printf("PTX decompressed: %.1f MB\n", S.PtxBytes / 1e6);
  std::printf("parse+IR throughput, per core: %.2f MB/s\n",
              S.PtxBytes / 1e6 / std::max(ParseSecs, 1e-9));
  std::printf("wall time, %u threads: %.1f s (%.2f MB/s)\n", N, Secs, S.PtxBytes / 1e6 / Secs);
  std::printf("peak RSS: %ld MB\n", peakRssMiB());
  for (const std::string &F : S.FirstFailures)
    std::printf("failure: %s\n", F.c_str());
  return S.Failed ? 1 : 0;
}
