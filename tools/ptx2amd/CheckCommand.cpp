// `ptx2amd check`: a pre-flight report of what translates, without a GPU.
#include "Commands.h"
#include "Progress.h"

#include "ptx2amd/amdgpu-backend/Target.h"
#include "ptx2amd/pipeline/Translate.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <llvm/Support/JSON.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/raw_ostream.h>

#include <map>
#include <set>

namespace ptx2amd::tool {
namespace {

namespace check_opts {
#define PTX2AMD_OPTIONS "CheckOptions.inc"
#include "OptionTable.def"
} // namespace check_opts

const CommandHelp CheckHelp = {
    "check", "ptx2amd check INPUT... [--arch TARGET ...] [--no-codegen] [--json] [--verbose]",
    R"(Reports, for each PTX module of each input (PTX text or a CUDA binary) and each
target, which kernels translate and why the others do not, then every reason with its count, the
kernels it affects and its first location. It runs the whole translation that `ptx2amd compile`
runs (code generation included), so a kernel translates here exactly when compile puts it in the
code object. The per-TU PTX modules of relocatable device code (nvcc -rdc) are linked into one
module first, as the runtime links them. A kernel that calls functions declared `.extern` in its
module (supplied by the user at link time, as with cuSPARSE's callback kernels) translates, and is
listed with the functions its code object needs before it can be loaded. Needs no GPU.)",
    "EXIT STATUS: 0 when every kernel translates, 1 otherwise, 2 on usage errors.\n"};

struct Reason {
  uint64_t Count = 0;
  std::set<std::string> Kernels;
  std::string First; ///< file:line:column of the first occurrence
};

} // namespace

int runCheck(llvm::ArrayRef<std::string> Argv) {
  using namespace check_opts;
  int Exit = 0;
  auto Args = parseCommandLine(table(), OPT_help, CheckHelp, Argv, Exit);
  if (!Args)
    return Exit;
  auto Targets = targetArgs(CheckHelp, *Args, OPT_arch);
  if (!Targets)
    return 2;
  if (Targets->empty())
    Targets->push_back(amdgpu::findTarget("gfx90a"));
  const bool Json = Args->hasArg(OPT_json), Verbose = Args->hasArg(OPT_verbose),
             NoCodegen = Args->hasArg(OPT_no_codegen);
  const std::vector<std::string> Inputs = Args->getAllArgValues(OPT_INPUT);
  if (Inputs.empty())
    return usageError(CheckHelp, "no input");

  llvm::json::Array JModules;
  int Status = 0;
  for (const amdgpu::Target *T : *Targets) {
    std::map<std::string, Reason> Reasons;
    uint64_t Kernels = 0, Translated = 0, NeedLink = 0, Modules = 0, ModuleErrors = 0;
    for (const std::string &Input : Inputs) {
      // Read again for each target: one module's IR at a time keeps memory bounded on large
      // libraries.
      auto Sources = loadLinkedSources(Input);
      if (!Sources) {
        printError(llvm::toString(Sources.takeError()));
        Status = 1;
        continue;
      }
      // A library of thousands of modules takes minutes: the progress line says how far.
      Progress Bar("check", fmt::format("{} [{}]", llvm::sys::path::filename(Input), T->Name),
                   Sources->size(), "modules", false);
      size_t Done = 0;
      for (auto &Src : *Sources) {
        Bar.update(Done, Done);
        ++Done;
        ++Modules;
        llvm::json::Array JKernels;
        auto Report = [&](const std::string &Module, const std::string &Error) {
          ++ModuleErrors;
          Status = 1;
          if (Json)
            JModules.push_back(llvm::json::Object{
                {"module", Module}, {"target", std::string(T->Name)}, {"error", Error}});
          else
            llvm::outs() << fmt::format("{} [{}]: module not translatable: {}\n", Module, T->Name,
                                        Error);
        };
        pipeline::Options Opts;
        Opts.Target = T;
        Opts.SkipCodegen = NoCodegen;
        pipeline::Translation Tr = pipeline::translate(Src, Opts);
        if (Tr.Result != pipeline::Status::Success) {
          Report(Src->name(), llvm::StringRef(Tr.Error).trim().str());
          continue;
        }
        uint64_t ModKernels = 0, ModOk = 0, ModNeedLink = 0;
        std::string Lines;
        auto Count = [&](const std::string &Message, const std::string &Where,
                         const pipeline::FunctionResult &F) {
          Reason &R = Reasons[Message];
          if (R.Count++ == 0)
            R.First = Where;
          if (F.IsKernel)
            R.Kernels.insert(F.Name);
        };
        for (const pipeline::FunctionResult &F : Tr.Functions) {
          for (const ir::Diagnostic &D : F.Diags)
            Count(D.Message, fmt::format("{}:{}:{}", D.File, D.Loc.line, D.Loc.column), F);
          if (!F.IsKernel)
            continue;
          ++ModKernels;
          const bool NeedsLink =
              F.State == pipeline::FunctionState::LeftOut && !F.ExternalCallees.empty();
          // Left out for its code generation alone: the reason has no PTX location.
          const bool CodegenFailed = F.State == pipeline::FunctionState::LeftOut && !NeedsLink;
          const std::string Why = llvm::StringRef(F.Reason).trim().str();
          if (CodegenFailed)
            Count(Why, Src->name(), F);
          const bool Translates = F.translated() || NeedsLink;
          ModOk += Translates;
          llvm::json::Array JReasons;
          for (const ir::Diagnostic &D : F.Diags)
            JReasons.push_back(
                llvm::json::Object{{"location", fmt::format("{}:{}", D.Loc.line, D.Loc.column)},
                                   {"reason", D.Message}});
          if (CodegenFailed)
            JReasons.push_back(llvm::json::Object{{"location", ""}, {"reason", Why}});
          llvm::json::Array JExternals;
          for (const std::string &E : F.ExternalCallees)
            JExternals.push_back(E);
          JKernels.push_back(llvm::json::Object{{"name", F.Name},
                                                {"translates", Translates},
                                                {"in_code_object", F.translated()},
                                                {"reasons", std::move(JReasons)},
                                                {"external_callees", std::move(JExternals)}});
          if (NeedsLink) {
            ++ModNeedLink;
            Lines += fmt::format("  kernel {}: translates; needs at link time: {}\n", F.Name,
                                 fmt::join(F.ExternalCallees, ", "));
            continue;
          }
          if (Translates) {
            if (Verbose)
              Lines += fmt::format("  kernel {}: translates\n", F.Name);
            continue;
          }
          Lines += fmt::format("  kernel {}: not translatable\n", F.Name);
          for (const ir::Diagnostic &D : F.Diags)
            Lines += fmt::format("    {}:{}: {}\n", D.Loc.line, D.Loc.column, D.Message);
          if (CodegenFailed)
            Lines += fmt::format("    {}\n", Why);
        }
        Kernels += ModKernels;
        Translated += ModOk;
        NeedLink += ModNeedLink;
        if (ModOk != ModKernels)
          Status = 1;
        if (Json)
          JModules.push_back(llvm::json::Object{{"module", Src->name()},
                                                {"target", std::string(T->Name)},
                                                {"kernels", std::move(JKernels)}});
        else {
          Bar.clear();
          llvm::outs() << fmt::format("{} [{}]: {} of {} kernels translate\n{}", Src->name(),
                                      T->Name, ModOk, ModKernels, Lines);
          llvm::outs().flush();
        }
      }
      Bar.update(Sources->size(), Sources->size());
    }
    if (Json)
      continue;
    llvm::outs() << fmt::format("\n{}: {} modules ({} not readable), {} of {} kernels translate "
                                "({:.1f}%)\n",
                                T->Name, Modules, ModuleErrors, Translated, Kernels,
                                Kernels ? 100.0 * Translated / Kernels : 100.0);
    if (NeedLink)
      llvm::outs() << fmt::format("  {} of them call functions defined outside their module and "
                                  "load once those are linked in ({:.1f}% translate without any)\n",
                                  NeedLink,
                                  Kernels ? 100.0 * (Translated - NeedLink) / Kernels : 100.0);
    if (Reasons.empty())
      continue;
    std::vector<std::pair<std::string, Reason>> Sorted(Reasons.begin(), Reasons.end());
    std::sort(Sorted.begin(), Sorted.end(), [](const auto &A, const auto &B) {
      return A.second.Count != B.second.Count ? A.second.Count > B.second.Count : A.first < B.first;
    });
    llvm::outs() << fmt::format("{:>7} {:>8}  {:<50} {}\n", "count", "kernels", "reason",
                                "first at");
    for (auto &[Text, R] : Sorted)
      llvm::outs() << fmt::format("{:>7} {:>8}  {:<50} {}\n", R.Count, R.Kernels.size(), Text,
                                  R.First);
  }
  if (Json)
    llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(JModules))) << "\n";
  return Status;
}

} // namespace ptx2amd::tool
