#include "Harness.h"
#include "HostModule.h"

#include "ptx2amd/host-backend/HostDevice.h"

#include "llvm/Support/Error.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <set>
#include <sstream>

namespace conformance {

using namespace ptx2amd;

Operand ofBits(std::string Name, unsigned Bits) { return Operand{std::move(Name), Bits, {}, 0}; }
Operand pred(std::string Name) { return ofBits(std::move(Name), 1); }
Operand b16(std::string Name) { return ofBits(std::move(Name), 16); }
Operand b32(std::string Name) { return ofBits(std::move(Name), 32); }
Operand b64(std::string Name) { return ofBits(std::move(Name), 64); }

Operand count(std::string Name, unsigned Bits, unsigned Limit) {
  Operand O = ofBits(std::move(Name), Bits);
  for (uint64_t V = 0; V <= Limit + 1ull; ++V)
    O.Extra.push_back(V);
  for (uint64_t V :
       {255ull, 256ull, 257ull, 0x7fffffffull, 0x80000000ull, 0xffffffffull, 0x100000000ull, ~0ull})
    O.Extra.push_back(V);
  O.SmallBelow = Limit + 2;
  return O;
}

namespace {

/// The width's special values: zero, one, limits either side of each signed and unsigned bound,
/// powers of two and their neighbours, and per-byte and per-half edges (SIMD operations).
std::vector<uint64_t> specialValues(const Operand &Op) {
  std::set<uint64_t> S;
  const unsigned B = Op.Bits;
  const uint64_t M = mask(B);
  if (B == 1)
    return {0, 1};
  auto Add = [&](uint64_t V) { S.insert(V & M); };
  const uint64_t SMin = 1ull << (B - 1);
  for (uint64_t V : {uint64_t(0), uint64_t(1), uint64_t(2), uint64_t(3), M, M - 1, M - 2, SMin,
                     SMin - 1, SMin + 1, SMin - 2})
    Add(V);
  for (unsigned K = 0; K < B; ++K) {
    Add(1ull << K);
    Add((1ull << K) - 1);
    Add((1ull << K) + 1);
    Add(0 - (1ull << K));
  }
  auto Repeat = [&](uint64_t Pattern, unsigned Width) {
    uint64_t V = 0;
    for (unsigned K = 0; K < 64; K += Width)
      V |= Pattern << K;
    Add(V);
  };
  for (uint64_t P :
       {0x7full, 0x80ull, 0xffull, 0x01ull, 0xfeull, 0x81ull, 0x55ull, 0xaaull, 0x0full, 0xf0ull})
    Repeat(P, 8);
  for (uint64_t P : {0x7fffull, 0x8000ull, 0x00ffull, 0xff00ull, 0x8001ull})
    Repeat(P, 16);
  Repeat(0xffff0000ull, 32);
  Repeat(0x0000ffffull, 32);
  for (uint64_t V : Op.Extra)
    Add(V);
  return {S.begin(), S.end()};
}

uint64_t randomValue(const Operand &Op, const std::vector<uint64_t> &Specials, std::mt19937_64 &R) {
  const uint64_t M = mask(Op.Bits);
  if (Op.SmallBelow && R() % 2)
    return (R() % Op.SmallBelow) & M;
  switch (R() % 4) {
  case 0: // near a special value
    return (Specials[R() % Specials.size()] + int64_t(R() % 9) - 4) & M;
  case 1: { // few significant bits, either sign
    uint64_t V = R() >> (R() % 64);
    return (R() % 2 ? V : 0 - V) & M;
  }
  default:
    return R() & M;
  }
}

struct Inputs {
  std::vector<std::vector<uint64_t>> Columns; ///< one per input operand
  uint64_t Count = 0;
  bool Exhaustive = false;
};

Inputs makeInputs(const Case &C, const Options &O, uint64_t Seed) {
  Inputs In;
  const size_t K = C.Inputs.size();
  In.Columns.resize(K);
  unsigned Total = 0;
  for (const Operand &Op : C.Inputs)
    Total += Op.Bits;
  if (Total <= O.ExhaustiveBits) {
    In.Exhaustive = true;
    In.Count = 1ull << Total;
    for (uint64_t I = 0; I < In.Count; ++I) {
      unsigned Shift = 0;
      for (size_t J = 0; J < K; ++J) {
        In.Columns[J].push_back((I >> Shift) & mask(C.Inputs[J].Bits));
        Shift += C.Inputs[J].Bits;
      }
    }
    return In;
  }
  std::mt19937_64 R(Seed);
  std::vector<std::vector<uint64_t>> Specials;
  uint64_t Product = 1;
  for (const Operand &Op : C.Inputs) {
    Specials.push_back(specialValues(Op));
    Product = std::min<uint64_t>(Product * Specials.back().size(), ~0u);
  }
  auto Push = [&](const std::vector<uint64_t> &Row) {
    for (size_t J = 0; J < K; ++J)
      In.Columns[J].push_back(Row[J]);
  };
  std::vector<uint64_t> Row(K);
  if (Product <= O.SpecialCross) {
    for (uint64_t I = 0; I < Product; ++I) {
      uint64_t Rest = I;
      for (size_t J = 0; J < K; ++J) {
        Row[J] = Specials[J][Rest % Specials[J].size()];
        Rest /= Specials[J].size();
      }
      Push(Row);
    }
  } else {
    // Every special value of every operand at least once, the others special too.
    uint64_t Made = 0;
    for (size_t J = 0; J < K; ++J)
      for (uint64_t V : Specials[J]) {
        for (size_t L = 0; L < K; ++L)
          Row[L] = L == J ? V : Specials[L][R() % Specials[L].size()];
        Push(Row);
        ++Made;
      }
    for (; Made < O.SpecialCross; ++Made) {
      for (size_t L = 0; L < K; ++L)
        Row[L] = Specials[L][R() % Specials[L].size()];
      Push(Row);
    }
  }
  for (uint64_t I = 0; I < O.Random; ++I) {
    for (size_t J = 0; J < K; ++J)
      Row[J] = randomValue(C.Inputs[J], Specials[J], R);
    Push(Row);
  }
  In.Count = In.Columns.empty() ? 0 : In.Columns[0].size();
  return In;
}

std::string caseName(const Case &C) {
  if (!C.Name.empty())
    return C.Name;
  std::string N;
  for (char Ch : C.Body) {
    if (Ch == '\n' || Ch == '\t')
      Ch = ' ';
    if (Ch == ' ' && (N.empty() || N.back() == ' '))
      continue;
    N += Ch;
  }
  while (!N.empty() && (N.back() == ' ' || N.back() == ';'))
    N.pop_back();
  return N;
}

std::string regType(unsigned Bits) { return Bits == 1 ? ".pred" : ".b" + std::to_string(Bits); }

void appendKernel(std::ostringstream &S, const Case &C, size_t Index) {
  S << ".visible .entry k" << Index << "(";
  for (size_t J = 0; J < C.Inputs.size(); ++J)
    S << ".param .u64 in" << J << ", ";
  for (size_t J = 0; J < C.Outputs.size(); ++J)
    S << ".param .u64 out" << J << ", ";
  S << ".param .u32 n)\n{\n"
       "  .reg .pred %h_guard;\n  .reg .b32 %h_r<8>;\n  .reg .b64 %h_p<4>;\n";
  for (const auto *Ops : {&C.Inputs, &C.Outputs})
    for (const Operand &Op : *Ops)
      S << "  .reg " << regType(Op.Bits) << " %" << Op.Name << ";\n";
  S << C.Decls << "\n"
    << "  mov.u32 %h_r0, %ctaid.x;\n  mov.u32 %h_r1, %ntid.x;\n  mov.u32 %h_r2, %tid.x;\n"
       "  mad.lo.u32 %h_r3, %h_r0, %h_r1, %h_r2;\n  ld.param.u32 %h_r4, [n];\n"
       "  setp.ge.u32 %h_guard, %h_r3, %h_r4;\n  @%h_guard bra $DONE;\n"
       "  mul.wide.u32 %h_p0, %h_r3, 8;\n";
  for (size_t J = 0; J < C.Inputs.size(); ++J) {
    const Operand &Op = C.Inputs[J];
    S << "  ld.param.u64 %h_p1, [in" << J << "];\n  add.s64 %h_p1, %h_p1, %h_p0;\n";
    if (Op.Bits == 1)
      S << "  ld.global.u32 %h_r5, [%h_p1];\n  setp.ne.u32 %" << Op.Name << ", %h_r5, 0;\n";
    else
      S << "  ld.global.b" << Op.Bits << " %" << Op.Name << ", [%h_p1];\n";
  }
  S << C.Body << "\n";
  for (size_t J = 0; J < C.Outputs.size(); ++J) {
    const Operand &Op = C.Outputs[J];
    S << "  ld.param.u64 %h_p1, [out" << J << "];\n  add.s64 %h_p1, %h_p1, %h_p0;\n";
    if (Op.Bits == 1)
      S << "  selp.u32 %h_r5, 1, 0, %" << Op.Name << ";\n  st.global.u32 [%h_p1], %h_r5;\n";
    else
      S << "  st.global.b" << Op.Bits << " [%h_p1], %" << Op.Name << ";\n";
  }
  S << "$DONE:\n  ret;\n}\n";
}

std::string hex(uint64_t V, unsigned Bits) {
  char Buf[40];
  std::snprintf(Buf, sizeof Buf, "0x%0*llx", int(std::max(1u, (Bits + 3) / 4)),
                static_cast<unsigned long long>(V));
  return Buf;
}

/// Device memory freed on scope exit.
struct DeviceBuffer {
  host::Device &D;
  void *P;
  DeviceBuffer(host::Device &D, size_t Bytes) : D(D), P(D.allocate(std::max<size_t>(Bytes, 8))) {}
  ~DeviceBuffer() { D.release(P); }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  uint64_t *get() const { return static_cast<uint64_t *>(P); }
};

/// Runs case \p C (kernel `k<Index>` of \p M); returns the failure text, or empty on success.
std::string runCase(host::Device &D, host::LoadedModule &M, const Case &C, size_t Index,
                    const Inputs &In, const Options &O, uint64_t &Digest) {
  const std::string Kernel = "k" + std::to_string(Index);
  if (std::string Why = M.unavailableReason(Kernel); !Why.empty())
    return "unavailable: " + Why;
  const uint64_t N = In.Count;
  std::vector<std::unique_ptr<DeviceBuffer>> Buffers;
  std::vector<uint64_t *> InPtrs, OutPtrs;
  for (const auto &Col : In.Columns) {
    Buffers.push_back(std::make_unique<DeviceBuffer>(D, N * 8));
    if (!Buffers.back()->P)
      return "out of device memory";
    std::memcpy(Buffers.back()->get(), Col.data(), N * 8);
    InPtrs.push_back(Buffers.back()->get());
  }
  for (size_t J = 0; J < C.Outputs.size(); ++J) {
    Buffers.push_back(std::make_unique<DeviceBuffer>(D, N * 8));
    if (!Buffers.back()->P)
      return "out of device memory";
    OutPtrs.push_back(Buffers.back()->get());
  }
  uint32_t Count = uint32_t(N);
  std::vector<void *> Args;
  for (uint64_t *&P : InPtrs)
    Args.push_back(&P);
  for (uint64_t *&P : OutPtrs)
    Args.push_back(&P);
  Args.push_back(&Count);
  const uint32_t Block = 256;
  host::LaunchConfig LC;
  LC.Grid.X = uint32_t((N + Block - 1) / Block);
  LC.Block.X = Block;
  if (auto R = D.launch(M, Kernel, LC, Args.data()); !R)
    return "launch failed: " + llvm::toString(R.takeError());
  std::vector<uint64_t> Column(N + 1);
  Digest = 0;
  for (size_t J = 0; J < C.Outputs.size(); ++J) {
    Column[0] = Digest;
    for (uint64_t I = 0; I < N; ++I)
      Column[I + 1] = C.Canonical ? C.Canonical(J, OutPtrs[J][I] & mask(C.Outputs[J].Bits))
                                  : OutPtrs[J][I] & mask(C.Outputs[J].Bits);
    Digest = llvm::xxh3_64bits(llvm::ArrayRef(reinterpret_cast<const uint8_t *>(Column.data()),
                                              Column.size() * sizeof(uint64_t)));
  }

  std::ostringstream Report;
  unsigned Mismatches = 0;
  uint64_t Compared = 0;
  std::vector<uint64_t> Row(C.Inputs.size()), Expected(C.Outputs.size()), Got(C.Outputs.size());
  for (uint64_t I = 0; I < N; ++I) {
    for (size_t J = 0; J < Row.size(); ++J)
      Row[J] = In.Columns[J][I];
    if (!C.Ref(Row.data(), Expected.data()))
      continue;
    ++Compared;
    bool Same = true;
    for (size_t J = 0; J < Got.size(); ++J) {
      const uint64_t Mk = mask(C.Outputs[J].Bits);
      Got[J] = OutPtrs[J][I] & Mk;
      Expected[J] &= Mk;
      Same &= Got[J] == Expected[J];
    }
    if (Same || (C.Accept && C.Accept(Row.data(), Expected.data(), Got.data())))
      continue;
    if (Mismatches++ < O.MaxMismatchesShown) {
      Report << "\n    ";
      for (size_t J = 0; J < Row.size(); ++J)
        Report << C.Inputs[J].Name << "=" << hex(Row[J], C.Inputs[J].Bits) << " ";
      Report << "->";
      for (size_t J = 0; J < Got.size(); ++J)
        Report << " " << C.Outputs[J].Name << ": expected " << hex(Expected[J], C.Outputs[J].Bits)
               << " got " << hex(Got[J], C.Outputs[J].Bits);
    }
  }
  // A case whose reference defines no result for any of its inputs tests nothing.
  if (!Compared)
    return "compared no input: the reference defines none of the " + std::to_string(N) + " results";
  if (!Mismatches)
    return {};
  return std::to_string(Mismatches) + " of " + std::to_string(N) + " inputs differ:" + Report.str();
}

} // namespace

host::Device *hostDevice(std::string &Error) {
  static std::unique_ptr<host::Device> D;
  static std::string Failure;
  if (!D && Failure.empty()) {
    auto R = host::Device::create();
    if (R)
      D = std::move(*R);
    else
      Failure = llvm::toString(R.takeError());
  }
  if (!D)
    Error = Failure;
  return D.get();
}

static bool WaveVectors = true;

void setWaveVectors(bool On) { WaveVectors = On; }

std::unique_ptr<host::LoadedModule> loadFamilyModule(const std::string &Ptx,
                                                     const std::string &Name,
                                                     const std::string &Target,
                                                     std::string &Error) {
  host::Device *D = hostDevice(Error);
  if (!D)
    return nullptr;
  const amdgpu::Target *T = amdgpu::findTarget(Target);
  if (!T) {
    Error = "unknown target " + Target;
    return nullptr;
  }
  host::LoadOptions Opts;
  Opts.VectorizeWaves = WaveVectors;
  // The work-items' pass (--compare-host-cpu) is differential too: a kernel that meets runs as
  // a compiled workgroup and as fibers, compared, with nothing more to compile (no waves).
  Opts.Forced.Differential |= !WaveVectors;
  auto R = D->loadPtx(Ptx, Name, *T, Opts);
  if (!R) {
    Error = llvm::toString(R.takeError());
    return nullptr;
  }
  return std::move(*R);
}

std::string familyModule(const Family &F) {
  std::ostringstream S;
  S << ".version 8.0\n.target sm_90\n.address_size 64\n\n";
  for (size_t I = 0; I < F.Cases.size(); ++I)
    appendKernel(S, F.Cases[I], I);
  return S.str();
}

FamilyResult runFamily(const Family &F, const std::string &Target, const Options &O,
                       const std::vector<KnownFailure> &Known) {
  FamilyResult Res;
  Res.Family = F.Name;
  Res.Target = Target;
  Res.Cases = unsigned(F.Cases.size());
  std::string LoadError;
  std::unique_ptr<host::LoadedModule> M =
      loadFamilyModule(familyModule(F), F.Name + ".ptx", Target, LoadError);
  host::Device *D = hostDevice(LoadError);
  for (size_t I = 0; I < F.Cases.size(); ++I) {
    const Case &C = F.Cases[I];
    const std::string Name = caseName(C);
    // Each case draws its own inputs, so adding a case leaves the others' inputs alone.
    const Inputs In = makeInputs(C, O, O.Seed ^ std::hash<std::string>()(Name));
    Res.Inputs += In.Count;
    ++(In.Exhaustive ? Res.Exhaustive : Res.Sampled);
    uint64_t Digest = 0;
    std::string Failure =
        M ? runCase(*D, *M, C, I, In, O, Digest) : "module not loaded: " + LoadError;
    Res.Digests.emplace_back(Name, Digest);
    const bool IsKnown = std::any_of(Known.begin(), Known.end(), [&](const KnownFailure &K) {
      return K.Family == F.Name && K.Case == Name && (K.Target.empty() || K.Target == Target);
    });
    if (Failure.empty() && !IsKnown) {
      ++Res.Passed;
    } else if (Failure.empty()) {
      ++Res.Failed;
      ++Res.UnexpectedPasses;
      Res.Report.push_back(Name + ": listed as a known failure but passed");
    } else if (IsKnown) {
      ++Res.ExpectedFailures;
      Res.Report.push_back(Name + " (known failure): " + Failure);
    } else {
      ++Res.Failed;
      Res.Report.push_back(Name + ": " + Failure);
    }
  }
  return Res;
}

} // namespace conformance
