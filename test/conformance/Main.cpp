// The conformance driver: ctest runs it as is (a reduced sample on gfx90a and gfx1100);
// bench/conformance runs it with --full. One line per family and target; the exit status says
// whether any case failed that is not a listed known failure.
#include "Families.h"
#include "HostModule.h"

#include "ptx2amd/amdgpu-backend/Target.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace conformance;

namespace {

/// One line of the table: a family on a target, or the total.
void print(const FamilyResult &R, double Secs) {
  std::printf("%-17s %-8s cases %4u, inputs %9llu, exhaustive %3u, sampled %4u, passed %4u, "
              "failed %u, known failures %u (%.1f s)\n",
              R.Family.c_str(), R.Target.c_str(), R.Cases, (unsigned long long)R.Inputs,
              R.Exhaustive, R.Sampled, R.Passed, R.Failed, R.ExpectedFailures, Secs);
}

int usage() {
  std::fprintf(stderr, "usage: conformance [--full] [--family NAME]... [--target NAME]... "
                       "[--random N] [--seed N] [--compare-host-cpu CPU] [--software-textures] "
                       "[--verbose] [--list]\n");
  return 2;
}

/// Runs \p Run with PTX2AMD_HOST_CPU set to \p Cpu, then restores the variable.
template <typename Fn> auto withHostCpu(const char *Cpu, Fn &&Run) {
  const char *Old = std::getenv("PTX2AMD_HOST_CPU");
  std::string Saved = Old ? Old : "";
  setenv("PTX2AMD_HOST_CPU", Cpu, 1);
  auto R = Run();
  if (Old)
    setenv("PTX2AMD_HOST_CPU", Saved.c_str(), 1);
  else
    unsetenv("PTX2AMD_HOST_CPU");
  return R;
}

} // namespace

int main(int argc, char **argv) {
  Options O;
  std::vector<std::string> Families, Targets;
  bool Verbose = false, List = false, SoftwareTextures = false;
  const char *CompareCpu = nullptr;
  for (int I = 1; I < argc; ++I) {
    const bool HasValue = I + 1 < argc;
    if (!std::strcmp(argv[I], "--full")) {
      O.Random = 200000;
      O.SpecialCross = 1u << 18;
    } else if (!std::strcmp(argv[I], "--family") && HasValue) {
      Families.push_back(argv[++I]);
    } else if (!std::strcmp(argv[I], "--target") && HasValue) {
      Targets.push_back(argv[++I]);
    } else if (!std::strcmp(argv[I], "--random") && HasValue) {
      O.Random = std::strtoull(argv[++I], nullptr, 0);
    } else if (!std::strcmp(argv[I], "--seed") && HasValue) {
      O.Seed = std::strtoull(argv[++I], nullptr, 0);
    } else if (!std::strcmp(argv[I], "--compare-host-cpu") && HasValue) {
      CompareCpu = argv[++I];
    } else if (!std::strcmp(argv[I], "--software-textures")) {
      SoftwareTextures = true;
    } else if (!std::strcmp(argv[I], "--verbose")) {
      Verbose = true;
    } else if (!std::strcmp(argv[I], "--list")) {
      List = true;
    } else {
      return usage();
    }
  }
  // The reduced sample on a wave64 and a wave32 target; --full on every target.
  if (Targets.empty() && O.Random >= 200000)
    for (const ptx2amd::amdgpu::Target &T : ptx2amd::amdgpu::allTargets())
      Targets.emplace_back(T.Name);
  if (Targets.empty())
    Targets = {"gfx90a", "gfx1100"};
  std::vector<Family> All = integerFamilies();
  for (Family &F : floatFamilies())
    All.push_back(std::move(F));
  std::vector<KernelFamily> Kernels = warpFamilies();
  for (KernelFamily &F : memoryFamilies())
    Kernels.push_back(std::move(F));
  Kernels.push_back(namedBarriers());
  Kernels.push_back(asyncCopies());
  Kernels.push_back(tensorCores());
  Kernels.push_back(textureFamily(/*Full=*/O.Random >= 200000, SoftwareTextures));
  if (List) {
    for (const Family &F : All)
      std::printf("%s: %zu cases\n", F.Name.c_str(), F.Cases.size());
    for (const KernelFamily &F : Kernels)
      std::printf("%s: %zu cases\n", F.Name.c_str(), F.Cases.size());
    return 0;
  }
  auto Named = [&](const std::string &Name) {
    return [&](const auto &F) { return F.Name == Name; };
  };
  for (const std::string &Name : Families)
    if (std::none_of(All.begin(), All.end(), Named(Name)) &&
        std::none_of(Kernels.begin(), Kernels.end(), Named(Name))) {
      std::fprintf(stderr, "conformance: no family '%s' (--list shows them)\n", Name.c_str());
      return 2;
    }

  unsigned Failed = 0;
  FamilyResult Total;
  double TotalSecs = 0;
  auto Run = [&](const auto &F, auto Runner) {
    if (!Families.empty() && std::find(Families.begin(), Families.end(), F.Name) == Families.end())
      return;
    for (const std::string &T : Targets) {
      auto Start = std::chrono::steady_clock::now();
      FamilyResult R = Runner(F, T, O, knownFailures());
      double Secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
      print(R, Secs);
      for (const std::string &Line : R.Report)
        if (Verbose || Line.find("(known failure)") == std::string::npos)
          std::printf("  %s\n", Line.c_str());
      double OtherSecs = 0;
      if (CompareCpu) {
        // The same cases once more, with host code generated for another CPU and work-items
        // run one at a time instead of as vectorised waves: the host device's results must
        // depend neither on the instructions the CPU offers nor on how it runs a wave.
        const auto OtherStart = std::chrono::steady_clock::now();
        setWaveVectors(false);
        FamilyResult Other =
            withHostCpu(CompareCpu, [&] { return Runner(F, T, O, knownFailures()); });
        setWaveVectors(true);
        OtherSecs =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - OtherStart).count();
        std::vector<std::string> Differ;
        for (size_t I = 0; I < R.Digests.size() && I < Other.Digests.size(); ++I)
          if (R.Digests[I] != Other.Digests[I])
            Differ.push_back(R.Digests[I].first);
        const bool Same = Differ.empty() && R.Digests.size() == Other.Digests.size();
        std::printf("  on host CPU %s, work-items one at a time: passed %u, failed %u, outputs %s "
                    "(%.1f s)\n",
                    CompareCpu, Other.Passed, Other.Failed,
                    Same ? "identical"
                         : ("differ in " + std::to_string(Differ.size()) + " cases").c_str(),
                    OtherSecs);
        for (const std::string &Name : Differ)
          std::printf("    %s: outputs differ\n", Name.c_str());
        for (const std::string &Line : Other.Report)
          if (Verbose || Line.find("(known failure)") == std::string::npos)
            std::printf("    %s\n", Line.c_str());
        R.Failed += Other.Failed + !Same;
      }
      std::fflush(stdout);
      Failed += R.Failed;
      Total.Failed += R.Failed;
      Total.Cases += R.Cases;
      Total.Inputs += R.Inputs;
      Total.Exhaustive += R.Exhaustive;
      Total.Sampled += R.Sampled;
      Total.Passed += R.Passed;
      Total.ExpectedFailures += R.ExpectedFailures;
      TotalSecs += Secs + OtherSecs;
    }
  };
  for (const Family &F : All)
    Run(F, runFamily);
  // Kernel families report work-items launched as their inputs.
  for (const KernelFamily &F : Kernels)
    Run(F, runKernelFamily);
  Total.Family = "total";
  print(Total, TotalSecs);
  return Failed ? 1 : 0;
}
