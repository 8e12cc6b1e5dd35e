// bench-parse: parse + IR throughput of the PTX front end, on one core and on all cores.
// Usage: bench-parse [--repeat N] [FILE...]   Each PTX file, and each PTX entry of a CUDA binary,
// is one module; the default input is every PTX module of the toolkit's libcurand. Prints one
// figure a line.
#include "ptx2amd/fatbin/AllPtx.h"
#include "ptx2amd/ptx-ir/Reader.h"

#include <fmt/format.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/ThreadPool.h>
#include <llvm/Support/Threading.h>

#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>

using namespace ptx2amd;

namespace {

struct Totals {
  std::atomic<uint64_t> Functions{0}, Instructions{0}, Failed{0};
};

/// Reads one module, builds every body and drops it again, as a streaming consumer would.
void processModule(const std::shared_ptr<const SourceText> &S, Totals &T) {
  ir::ReadOptions Opts;
  Opts.Lazy = true;
  auto M = ir::readModule(S, Opts);
  if (!M) {
    std::fprintf(stderr, "%s\n", llvm::toString(M.takeError()).c_str());
    ++T.Failed;
    return;
  }
  for (auto &F : (*M)->Functions) {
    if (F->St != ir::Function::State::Unparsed)
      continue;
    if (!ir::buildFunction(**M, *F)) {
      ++T.Failed;
      if (T.Failed < 5)
        for (auto &D : F->Diags)
          std::fprintf(stderr, "%s\n", D.str().c_str());
    }
    ++T.Functions;
    for (auto &B : F->Blocks)
      T.Instructions += B.Insts.size();
    F->dropBody();
  }
}

long peakRssKiB() {
  rusage U{};
  getrusage(RUSAGE_SELF, &U);
  return U.ru_maxrss;
}

} // namespace

int main(int argc, char **argv) {
  unsigned Repeat = 1;
  std::vector<std::shared_ptr<const SourceText>> Sources;
  std::vector<std::string> Files;
  uint64_t Bytes = 0;
  for (int K = 1; K < argc; ++K) {
    std::string A = argv[K];
    if (A == "--repeat" && K + 1 < argc) {
      Repeat = std::max(1, std::atoi(argv[++K]));
      continue;
    }
    Files.push_back(A);
  }
  if (Files.empty()) {
    std::string Curand = fatbin::cudaToolkitLibDir() + "/libcurand.so";
    std::printf("input: %s\n", Curand.c_str());
    Files.push_back(Curand);
  }
  for (const std::string &File : Files) {
    auto Texts = fatbin::readAllPtx(File);
    if (!Texts) {
      std::fprintf(stderr, "bench-parse: %s\n", llvm::toString(Texts.takeError()).c_str());
      return 1;
    }
    for (auto &T : *Texts) {
      Bytes += T.Text.size();
      Sources.push_back(std::make_shared<const SourceText>(std::move(T.Name), std::move(T.Text)));
    }
  }
  if (Sources.empty()) {
    std::fprintf(stderr, "bench-parse: no PTX in the input\n");
    return 1;
  }
  long RssBefore = peakRssKiB();
  Totals T1;
  auto Start = std::chrono::steady_clock::now();
  for (unsigned R = 0; R < Repeat; ++R)
    for (auto &S : Sources)
      processModule(S, T1);
  double One = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
  long RssOne = peakRssKiB();

  unsigned Cores = llvm::hardware_concurrency().compute_thread_count();
  Totals TN;
  Start = std::chrono::steady_clock::now();
  {
    // Module headers in order (they are small), then every function body of every module on the
    // pool: bodies are independent, so this balances work across cores.
    llvm::DefaultThreadPool Pool(llvm::hardware_concurrency(Cores));
    std::vector<std::unique_ptr<ir::Module>> Modules;
    for (unsigned R = 0; R < Repeat; ++R) {
      Modules.clear();
      for (auto &S : Sources) {
        auto M = ir::readModule(S, {true, 1, true});
        if (!M) {
          llvm::consumeError(M.takeError());
          continue;
        }
        Modules.push_back(std::move(*M));
      }
      for (auto &M : Modules)
        for (auto &F : M->Functions)
          if (F->St == ir::Function::State::Unparsed)
            Pool.async([&M = *M, F = F.get(), &TN] {
              ir::buildFunction(M, *F);
              uint64_t N = 0;
              for (auto &B : F->Blocks)
                N += B.Insts.size();
              TN.Instructions += N;
              F->dropBody();
            });
      Pool.wait();
    }
  }
  double All = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();

  double MB = Bytes * double(Repeat) / 1e6;
  std::printf(
      "input: %zu modules, %.1f MB of PTX, %llu functions, %llu instructions, %llu failed\n",
      Sources.size(), MB / Repeat, (unsigned long long)T1.Functions.load() / Repeat,
      (unsigned long long)T1.Instructions.load() / Repeat,
      (unsigned long long)T1.Failed.load() / Repeat);
  std::printf("parse+IR, 1 core: %.2f MB/s\n", MB / One);
  std::printf("parse+IR, %u cores: %.2f MB/s\n", Cores, MB / All);
  std::printf("peak RSS, 1 core run: %.1f MB (%.1f MB before parsing)\n", RssOne / 1024.0,
              RssBefore / 1024.0);
  std::printf("peak RSS, after all runs: %.1f MB\n", peakRssKiB() / 1024.0);
  return T1.Failed ? 1 : 0;
}
