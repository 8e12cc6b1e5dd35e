// bench-translate: PTX -> AMDGPU code object time per module, beside NVIDIA's ptxas compiling the
// same PTX in the same run. Prints one line per module and the totals.
// Usage: bench-translate [--arch gfxNNN] FILE...   (PTX files or CUDA binaries; each PTX module
// once)
#include "ptx2amd/amdgpu-backend/Codegen.h"
#include "ptx2amd/fatbin/AllPtx.h"
#include "ptx2amd/lowering/Lowering.h"
#include "ptx2amd/ptx-ir/Reader.h"

#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Program.h>
#include <llvm/Support/raw_ostream.h>

#include <chrono>
#include <cmath>
#include <cstdio>

using namespace ptx2amd;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point T0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - T0).count();
}

/// The ptxas architecture for a module: its own .target when newer than sm_90, else sm_90.
std::string ptxasArch(std::string_view Text) {
  size_t At = Text.find(".target");
  unsigned N = 90;
  if (At != std::string_view::npos) {
    size_t Sm = Text.find("sm_", At);
    if (Sm != std::string_view::npos && Sm < At + 40) {
      unsigned V = 0;
      for (size_t K = Sm + 3; K < Text.size() && std::isdigit(static_cast<unsigned char>(Text[K]));
           ++K)
        V = V * 10 + (Text[K] - '0');
      N = std::max(N, V);
    }
  }
  return "sm_" + std::to_string(N);
}

} // namespace

int main(int argc, char **argv) {
  std::string Arch = "gfx90a";
  std::vector<std::string> Files;
  for (int K = 1; K < argc; ++K) {
    std::string A = argv[K];
    if (A == "--arch" && K + 1 < argc)
      Arch = argv[++K];
    else if (A == "--curand") // the toolkit's libcurand, found from nvcc on PATH
      Files.push_back(fatbin::cudaToolkitLibDir() + "/libcurand.so");
    else
      Files.push_back(A);
  }
  const amdgpu::Target *T = amdgpu::findTarget(Arch);
  if (!T || Files.empty()) {
    std::fprintf(stderr, "usage: bench-translate [--arch gfx90a|...] FILE...\n");
    return 2;
  }
  auto Ptxas = llvm::sys::findProgramByName("ptxas");
  double OursTotal = 0, PtxasTotal = 0, LogRatios = 0;
  unsigned Compared = 0, Modules = 0;
  std::printf("%-60s %10s %10s %7s %s\n", "module", "ours ms", "ptxas ms", "ratio", "kernels");
  for (const std::string &File : Files) {
    auto Texts = fatbin::readAllPtx(File);
    if (!Texts) {
      std::fprintf(stderr, "bench-translate: %s\n", llvm::toString(Texts.takeError()).c_str());
      return 1;
    }
    for (auto &Text : *Texts) {
      ++Modules;
      std::string Name = Text.Name, Body = Text.Text;
      auto T0 = Clock::now();
      auto M = ir::readModule(std::make_shared<const SourceText>(Name, Body));
      unsigned Ok = 0, All = 0;
      bool Compiled = false;
      if (M) {
        auto L = lowering::lowerModule(**M, {std::string(T->Name), T->WaveSize, T->IsaVersion});
        if (L) {
          for (auto &F : L->Functions)
            if (F.IsKernel) {
              ++All;
              Ok += F.Lowered;
            }
          auto CO = amdgpu::compileToCodeObject(*L->Module, *T, {});
          Compiled = static_cast<bool>(CO);
          if (!CO)
            llvm::consumeError(CO.takeError());
        } else {
          llvm::consumeError(L.takeError());
        }
      } else {
        llvm::consumeError(M.takeError());
      }
      double Ours = msSince(T0);
      double Theirs = -1;
      if (Ptxas) {
        llvm::SmallString<128> Tmp;
        int FD;
        if (!llvm::sys::fs::createTemporaryFile("bench-translate", "ptx", FD, Tmp)) {
          {
            llvm::raw_fd_ostream OS(FD, /*shouldClose=*/true);
            OS << Body;
          }
          std::string ArchFlag = "-arch=" + ptxasArch(Body);
          llvm::StringRef Args[] = {*Ptxas, ArchFlag, Tmp, "-o", "/dev/null"};
          std::optional<llvm::StringRef> Redirects[] = {std::nullopt, llvm::StringRef("/dev/null"),
                                                        llvm::StringRef("/dev/null")};
          auto T1 = Clock::now();
          int RC = llvm::sys::ExecuteAndWait(*Ptxas, Args, std::nullopt, Redirects);
          Theirs = RC == 0 ? msSince(T1) : -1;
          llvm::sys::fs::remove(Tmp);
        }
      }
      std::string Short = Name.size() > 60 ? "..." + Name.substr(Name.size() - 57) : Name;
      if (Theirs > 0 && Compiled) {
        OursTotal += Ours;
        PtxasTotal += Theirs;
        LogRatios += std::log(Ours / Theirs);
        ++Compared;
        std::printf("%-60s %10.1f %10.1f %7.2f %u/%u\n", Short.c_str(), Ours, Theirs, Ours / Theirs,
                    Ok, All);
      } else {
        std::printf("%-60s %10.1f %10s %7s %u/%u\n", Short.c_str(), Ours, Theirs < 0 ? "n/a" : "-",
                    "-", Ok, All);
      }
    }
  }
  std::printf("modules: %u, compared with ptxas: %u\n", Modules, Compared);
  std::printf("total ours (%s): %.1f ms\n", T->Name.data(), OursTotal);
  std::printf("total ptxas: %.1f ms\n", PtxasTotal);
  if (Compared)
    std::printf("ratio ours/ptxas: total %.2f, geometric mean %.2f\n", OursTotal / PtxasTotal,
                std::exp(LogRatios / Compared));
  return 0;
}
