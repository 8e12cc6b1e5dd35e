// Determinism and thread safety of the C API: every input is translated once on one thread (the
// reference), again on one thread, then all at once on N threads sharing one context while
// another thread keeps setting that context's options. Each translation must reproduce the
// reference exactly: status, code object bytes, kernel metadata and diagnostics. Run under
// ThreadSanitizer by scripts/test (build-tsan/).
//
// usage: jit_thread_test [--threads N] [--target T]... FILE...
#include "ptx2amd/ptx2amd.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Item {
  std::string File, Target, Text;
};

/// Everything a translation yields, flattened so that two outcomes compare with ==.
struct Outcome {
  ptx2amd_status Status = PTX2AMD_SUCCESS;
  std::string CodeObject, Metadata, Diagnostics;
  bool operator==(const Outcome &) const = default;
};

Outcome translate(ptx2amd_context *Ctx, const Item &I) {
  Outcome O;
  ptx2amd_result *R = nullptr;
  O.Status = ptx2amd_translate_ptx(Ctx, I.Text.data(), I.Text.size(), I.File.c_str(),
                                   I.Target.c_str(), &R);
  if (!R)
    return O;
  const char *Diags = "";
  ptx2amd_result_diagnostics(R, &Diags);
  O.Diagnostics = Diags;
  const void *Data;
  size_t Size;
  if (ptx2amd_result_code_object(R, &Data, &Size) == PTX2AMD_SUCCESS)
    O.CodeObject.assign(static_cast<const char *>(Data), Size);
  size_t Kernels = 0;
  ptx2amd_result_kernel_count(R, &Kernels);
  std::ostringstream MD;
  for (size_t K = 0; K < Kernels; ++K) {
    const char *Name, *Reason;
    int Translated;
    ptx2amd_result_kernel_name(R, K, &Name);
    ptx2amd_result_kernel_translated(R, K, &Translated, &Reason);
    MD << Name << ' ' << Translated << ' ' << Reason;
    for (int P = PTX2AMD_KERNEL_KERNARG_SIZE; P <= PTX2AMD_KERNEL_MAX_FLAT_WORKGROUP_SIZE; ++P) {
      uint64_t V = 0;
      ptx2amd_result_kernel_property(R, K, static_cast<ptx2amd_kernel_property>(P), &V);
      MD << ' ' << V;
    }
    uint64_t Args = 0;
    ptx2amd_result_kernel_property(R, K, PTX2AMD_KERNEL_ARG_COUNT, &Args);
    for (size_t A = 0; A < Args; ++A) {
      uint64_t Offset, Size;
      const char *Kind;
      ptx2amd_result_kernel_arg(R, K, A, &Offset, &Size, &Kind);
      MD << ' ' << Offset << ':' << Size << ':' << Kind;
    }
    MD << '\n';
  }
  O.Metadata = MD.str();
  ptx2amd_result_destroy(R);
  return O;
}

double secondsSince(std::chrono::steady_clock::time_point T0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - T0).count();
}

/// Compares a pass with the reference; prints each difference.
int compare(const char *Pass, const std::vector<Item> &Items, const std::vector<Outcome> &Ref,
            const std::vector<Outcome> &Got) {
  int Bad = 0;
  for (size_t K = 0; K < Items.size(); ++K) {
    if (Got[K] == Ref[K])
      continue;
    ++Bad;
    const char *What = Got[K].Status != Ref[K].Status           ? "status"
                       : Got[K].CodeObject != Ref[K].CodeObject ? "code object"
                       : Got[K].Metadata != Ref[K].Metadata     ? "metadata"
                                                                : "diagnostics";
    std::fprintf(stderr, "jit_thread_test: %s: %s [%s]: %s differs from the reference\n", Pass,
                 Items[K].File.c_str(), Items[K].Target.c_str(), What);
  }
  return Bad;
}

} // namespace

int main(int argc, char **argv) {
  unsigned Threads = 8;
  std::vector<std::string> Files, Targets;
  for (int K = 1; K < argc; ++K) {
    if (!std::strcmp(argv[K], "--threads") && K + 1 < argc)
      Threads = static_cast<unsigned>(std::atoi(argv[++K]));
    else if (!std::strcmp(argv[K], "--target") && K + 1 < argc)
      Targets.push_back(argv[++K]);
    else
      Files.push_back(argv[K]);
  }
  if (Files.empty() || Threads == 0) {
    std::fprintf(stderr, "usage: jit_thread_test [--threads N] [--target T]... FILE...\n");
    return 2;
  }
  if (Targets.empty())
    Targets.push_back("gfx90a");
  std::vector<Item> Items;
  for (const std::string &F : Files) {
    std::ifstream In(F, std::ios::binary);
    if (!In) {
      std::fprintf(stderr, "jit_thread_test: cannot read '%s'\n", F.c_str());
      return 1;
    }
    std::string Text((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
    for (const std::string &T : Targets)
      Items.push_back({F, T, Text});
  }

  ptx2amd_context *Ctx = nullptr;
  if (ptx2amd_context_create(&Ctx) != PTX2AMD_SUCCESS)
    return 1;
  auto T0 = std::chrono::steady_clock::now();
  std::vector<Outcome> Ref, Again(Items.size()), Parallel(Items.size());
  for (const Item &I : Items)
    Ref.push_back(translate(Ctx, I));
  double RefSeconds = secondsSince(T0);

  T0 = std::chrono::steady_clock::now();
  for (size_t K = 0; K < Items.size(); ++K)
    Again[K] = translate(Ctx, Items[K]);
  double AgainSeconds = secondsSince(T0);

  T0 = std::chrono::steady_clock::now();
  std::atomic<size_t> Next{0};
  std::atomic<bool> Done{false};
  // Option setters race with translations starting: they must be atomic with respect to them
  // (the values set are the defaults, so the outcomes do not change).
  std::thread Setter([&] {
    while (!Done) {
      ptx2amd_context_set_opt_level(Ctx, 3);
      ptx2amd_context_set_code_object_version(Ctx, 5);
      ptx2amd_context_set_target(Ctx, "gfx90a");
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  });
  std::vector<std::thread> Pool;
  for (unsigned T = 0; T < Threads; ++T)
    Pool.emplace_back([&] {
      for (size_t K; (K = Next++) < Items.size();)
        Parallel[K] = translate(Ctx, Items[K]);
    });
  for (std::thread &T : Pool)
    T.join();
  Done = true;
  Setter.join();
  double ParallelSeconds = secondsSince(T0);
  ptx2amd_context_destroy(Ctx);

  size_t Ok = 0, Bytes = 0;
  for (const Outcome &O : Ref) {
    Ok += O.Status == PTX2AMD_SUCCESS;
    Bytes += O.CodeObject.size();
  }
  std::printf("%zu translations (%zu succeeded, %zu code object bytes)\n", Items.size(), Ok, Bytes);
  std::printf("one thread: %.2f s, again: %.2f s, %u threads: %.2f s\n", RefSeconds, AgainSeconds,
              Threads, ParallelSeconds);
  if (Ok == 0) {
    std::fprintf(stderr, "jit_thread_test: no translation succeeded\n");
    return 1;
  }
  int Bad = compare("repeat", Items, Ref, Again) + compare("threads", Items, Ref, Parallel);
  std::printf("%s\n", Bad ? "FAILED" : "all outcomes identical to the reference");
  return Bad ? 1 : 0;
}
