#include "KernelHarness.h"
#include "HostModule.h"

#include "ptx2amd/host-backend/HostDevice.h"

#include "llvm/Support/Error.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <sstream>

namespace conformance {

using namespace ptx2amd;

namespace {

std::string substitute(std::string Text, const std::string &Kernel) {
  for (size_t At = Text.find("{K}"); At != std::string::npos; At = Text.find("{K}", At))
    Text.replace(At, 3, Kernel);
  return Text;
}

std::string kernelModule(const KernelFamily &F) {
  std::ostringstream S;
  S << ".version 8.0\n.target sm_90\n.address_size 64\n\n";
  for (size_t I = 0; I < F.Cases.size(); ++I) {
    const KernelCase &C = F.Cases[I];
    const std::string K = "k" + std::to_string(I);
    S << substitute(C.Globals, K) << "\n.visible .entry " << K << "(";
    if (!C.Params.empty()) {
      S << C.Params;
    } else {
      for (size_t J = 0; J < C.Buffers.size(); ++J)
        S << (J ? ", " : "") << ".param .u64 buf" << J;
    }
    S << ")\n" << C.Directives << "\n{\n" << substitute(C.Body, K) << "\n}\n\n";
  }
  return S.str();
}

/// Runs case \p C (kernel `k<Index>` of \p M); returns the failure text, or empty on success.
std::string runCase(host::Device &D, host::LoadedModule &M, const KernelCase &C, size_t Index,
                    const std::string &Target) {
  const std::string Kernel = "k" + std::to_string(Index);
  if (std::string Why = M.unavailableReason(Kernel); !Why.empty())
    return "unavailable: " + Why;
  std::vector<void *> Device;
  struct Release {
    host::Device &D;
    std::vector<void *> &P;
    ~Release() {
      for (void *X : P)
        D.release(X);
    }
  } Releaser{D, Device};
  for (const Words &B : C.Buffers) {
    Device.push_back(D.allocate(std::max<size_t>(B.size() * 4, 8)));
    if (!Device.back())
      return "out of device memory";
  }
  std::vector<Words> Initial = C.Buffers;
  if (C.Place) {
    std::vector<uint64_t> Addresses;
    for (void *P : Device)
      Addresses.push_back(reinterpret_cast<uint64_t>(P));
    if (std::string Why = C.Place(Target, Addresses, Initial); !Why.empty())
      return Why;
  }
  for (size_t J = 0; J < Initial.size(); ++J)
    std::memcpy(Device[J], Initial[J].data(), Initial[J].size() * 4);
  std::vector<Arg> Args = C.Args;
  if (Args.empty())
    for (size_t J = 0; J < C.Buffers.size(); ++J)
      Args.push_back(Arg{int(J), {}});
  std::vector<std::vector<uint8_t>> Values;
  for (const Arg &A : Args) {
    if (A.Buffer < 0) {
      Values.push_back(A.Bytes);
      continue;
    }
    std::vector<uint8_t> P(sizeof(void *));
    std::memcpy(P.data(), &Device[size_t(A.Buffer)], sizeof(void *));
    Values.push_back(std::move(P));
  }
  std::vector<void *> Pointers;
  for (auto &V : Values)
    Pointers.push_back(V.data());
  host::LaunchConfig LC;
  LC.Grid = {C.Grid.X, C.Grid.Y, C.Grid.Z};
  LC.Block = {C.Block.X, C.Block.Y, C.Block.Z};
  LC.DynamicSharedBytes = C.DynamicSharedBytes;
  if (auto R = D.launch(M, Kernel, LC, Pointers.data()); !R)
    return "launch failed: " + llvm::toString(R.takeError());
  std::vector<Words> Out;
  for (size_t J = 0; J < C.Buffers.size(); ++J) {
    Out.emplace_back(C.Buffers[J].size());
    std::memcpy(Out.back().data(), Device[J], Out.back().size() * 4);
  }
  return C.Check(C.Buffers, Out);
}

} // namespace

std::string compareWords(const std::string &What, const Expected &Want, const Words &Got,
                         const std::function<std::string(size_t)> &Describe, unsigned Shown) {
  // A buffer of another length, or one where nothing was expected, checks nothing: a failure.
  if (Want.size() != Got.size())
    return What + ": expected " + std::to_string(Want.size()) + " words, the kernel left " +
           std::to_string(Got.size());
  if (std::none_of(Want.begin(), Want.end(), [](const auto &W) { return W.has_value(); }))
    return What + ": nothing to compare (no word has an expected value)";
  std::ostringstream S;
  size_t Mismatches = 0;
  for (size_t I = 0; I < Want.size(); ++I) {
    if (!Want[I] || *Want[I] == Got[I])
      continue;
    if (Mismatches++ < Shown) {
      char Buf[64];
      std::snprintf(Buf, sizeof Buf, ": expected 0x%08x got 0x%08x", *Want[I], Got[I]);
      S << "\n    " << What << "[" << I << "]" << (Describe ? " (" + Describe(I) + ")" : "") << Buf;
    }
  }
  if (!Mismatches)
    return {};
  return What + ": " + std::to_string(Mismatches) + " of " + std::to_string(Want.size()) +
         " words differ" + S.str();
}

Words randomWords(size_t Count, uint64_t Seed) {
  std::mt19937_64 R(Seed);
  Words W(Count);
  for (uint32_t &X : W)
    X = uint32_t(R());
  return W;
}

FamilyResult runKernelFamily(const KernelFamily &F, const std::string &Target, const Options &O,
                             const std::vector<KnownFailure> &Known) {
  FamilyResult Res;
  Res.Family = F.Name;
  Res.Target = Target;
  Res.Cases = unsigned(F.Cases.size());
  std::string LoadError;
  std::unique_ptr<host::LoadedModule> M =
      loadFamilyModule(kernelModule(F), F.Name + ".ptx", Target, LoadError);
  host::Device *D = hostDevice(LoadError);
  for (size_t I = 0; I < F.Cases.size(); ++I) {
    const KernelCase &C = F.Cases[I];
    Res.Inputs += uint64_t(C.Grid.X) * C.Grid.Y * C.Grid.Z * C.Block.X * C.Block.Y * C.Block.Z;
    ++Res.Sampled;
    std::string Failure = M ? runCase(*D, *M, C, I, Target) : "module not loaded: " + LoadError;
    const bool IsKnown = std::any_of(Known.begin(), Known.end(), [&](const KnownFailure &K) {
      return K.Family == F.Name && K.Case == C.Name && (K.Target.empty() || K.Target == Target);
    });
    if (Failure.empty() && !IsKnown) {
      ++Res.Passed;
    } else if (Failure.empty()) {
      ++Res.Failed;
      ++Res.UnexpectedPasses;
      Res.Report.push_back(C.Name + ": listed as a known failure but passed");
    } else if (IsKnown) {
      ++Res.ExpectedFailures;
      Res.Report.push_back(C.Name + " (known failure): " + Failure);
    } else {
      ++Res.Failed;
      Res.Report.push_back(C.Name + ": " + Failure);
    }
  }
  return Res;
}

} // namespace conformance
