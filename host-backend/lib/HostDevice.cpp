// The C++ API of the host backend: load (the translation pipeline's optimised module, retargeted
// and JIT-compiled) and launch (kernarg segment and dispatch packet as the HSA path builds them,
// device output); the compiled form of a loaded module (compiled(), loadCompiled()).
#include "ptx2amd/host-backend/HostDevice.h"
#include "ptx2amd/support/Error.h"

#include "Differential.h"
#include "Jit.h"
#include "LaneState.h"
#include "Retarget.h"
#include "Runtime.h"

#include "ptx2amd/amdgpu-backend/Codegen.h"
#include "ptx2amd/amdgpu-backend/Kernarg.h"
#include "ptx2amd/amdgpu-backend/KernelFault.h"
#include "ptx2amd/pipeline/Translate.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

using namespace llvm;

namespace ptx2amd::host {
namespace {

constexpr uint32_t OutputBufferBytes = 1 << 20;

unsigned defaultWatchdogMs() {
  static const unsigned Ms = [] {
    const char *Env = getenv("PTX2AMD_HOST_WATCHDOG_MS");
    int V = Env ? atoi(Env) : 0;
    return V > 0 ? unsigned(V) : 5000u;
  }();
  return Ms;
}

struct FreeDeleter {
  void operator()(void *P) const { std::free(P); }
};

/// The variables the pipeline exposed (`.global` and `.const`, under their names) with their
/// sizes; the host JIT exports them with default visibility, for the runtime to look up.
std::vector<GlobalInfo> exportGlobals(Module &M) {
  std::vector<GlobalInfo> Out;
  for (GlobalVariable &G : M.globals())
    if ((G.getAddressSpace() == 1 || G.getAddressSpace() == 4) && !G.isDeclaration() &&
        G.hasExternalLinkage() && !G.getName().starts_with("__ptx2amd")) {
      G.setVisibility(GlobalValue::DefaultVisibility);
      Out.push_back({G.getName().str(), M.getDataLayout().getTypeAllocSize(G.getValueType())});
    }
  return Out;
}

/// What a module's object is linked to: the emulator's runtime and the variables other modules
/// define (LoadOptions::Variables, whose names \p Opts keeps).
RuntimeSymbols linkedSymbols(const LoadOptions &Opts) {
  RuntimeSymbols Symbols = runtimeSymbols();
  for (const ExternalVariable &V : Opts.Variables)
    Symbols.emplace_back(V.Name.c_str(), V.Address);
  return Symbols;
}

constexpr uint32_t CompiledMagic = 0x43483250; // "P2HC"
constexpr size_t CompiledHeaderSize = 4 + 4 + 8 + 8;

class Writer {
public:
  std::vector<uint8_t> Out;
  void u8(uint8_t V) { Out.push_back(V); }
  void u32(uint32_t V) { put(support::endian::byte_swap(V, endianness::little)); }
  void u64(uint64_t V) { put(support::endian::byte_swap(V, endianness::little)); }
  void bytes(ArrayRef<uint8_t> B) {
    u64(B.size());
    Out.insert(Out.end(), B.begin(), B.end());
  }
  void str(StringRef S) { bytes(ArrayRef<uint8_t>(S.bytes_begin(), S.bytes_end())); }

private:
  template <typename T> void put(T V) {
    auto *B = reinterpret_cast<const uint8_t *>(&V);
    Out.insert(Out.end(), B, B + sizeof(T));
  }
};

/// Reads until the input runs out; then every read yields zeroes and ok() is false.
class Reader {
public:
  explicit Reader(ArrayRef<uint8_t> In) : In(In) {}
  bool ok() const { return Ok; }
  bool atEnd() const { return In.empty(); }
  uint8_t u8() { return take(1).empty() ? 0 : Last[0]; }
  uint32_t u32() { return take(4).empty() ? 0 : support::endian::read32le(Last.data()); }
  uint64_t u64() { return take(8).empty() ? 0 : support::endian::read64le(Last.data()); }
  ArrayRef<uint8_t> bytes() { return take(u64()); }
  std::string str() { return toStringRef(bytes()).str(); }

private:
  ArrayRef<uint8_t> take(uint64_t N) {
    if (!Ok || N > In.size()) {
      Ok = false;
      In = {};
      return Last = {};
    }
    Last = In.take_front(N);
    In = In.drop_front(N);
    return Last;
  }
  ArrayRef<uint8_t> In, Last;
  bool Ok = true;
};

void writeMetadata(Writer &W, const amdgpu::KernelMetadata &M) {
  W.str(M.Name);
  W.str(M.Symbol);
  for (uint64_t V : {M.KernargSegmentSize, M.KernargSegmentAlign, M.GroupSegmentFixedSize,
                     M.PrivateSegmentFixedSize, M.VgprCount, M.SgprCount, M.AgprCount,
                     M.VgprSpillCount, M.SgprSpillCount, M.WavefrontSize, M.MaxFlatWorkgroupSize})
    W.u64(V);
  W.u8(M.UsesDynamicStack);
  W.u32(uint32_t(M.Args.size()));
  for (const amdgpu::KernelArgMetadata &A : M.Args) {
    W.str(A.Name);
    W.str(A.TypeName);
    W.u64(A.Offset);
    W.u64(A.Size);
    W.str(A.ValueKind);
    W.str(A.AddressSpace);
  }
}

void readMetadata(Reader &R, amdgpu::KernelMetadata &M) {
  M.Name = R.str();
  M.Symbol = R.str();
  for (uint64_t *V :
       {&M.KernargSegmentSize, &M.KernargSegmentAlign, &M.GroupSegmentFixedSize,
        &M.PrivateSegmentFixedSize, &M.VgprCount, &M.SgprCount, &M.AgprCount, &M.VgprSpillCount,
        &M.SgprSpillCount, &M.WavefrontSize, &M.MaxFlatWorkgroupSize})
    *V = R.u64();
  M.UsesDynamicStack = R.u8();
  uint32_t N = R.u32();
  for (uint32_t I = 0; I < N && R.ok(); ++I) {
    amdgpu::KernelArgMetadata A;
    A.Name = R.str();
    A.TypeName = R.str();
    A.Offset = R.u64();
    A.Size = R.u64();
    A.ValueKind = R.str();
    A.AddressSpace = R.str();
    M.Args.push_back(std::move(A));
  }
}

} // namespace

/// A kernel of a loaded module.
struct KernelEntry {
  std::string Name;
  amdgpu::KernelMetadata Meta;
  ExecutionPlan Plan;                ///< Plan.Unavailable also says why the translation lost it
  KernelFunctions Made;              ///< Plan's function, or every one made (the differential mode)
  std::vector<ExecutionPlan> Others; ///< a plan for each other function of Made, bound
};

struct LoadedModule::Impl {
  const amdgpu::Target *T = nullptr;
  std::unique_ptr<JitModule> Jit;
  std::vector<KernelEntry> Kernels;
  std::vector<GlobalInfo> Globals;
  uint32_t StaticLdsBytes = 0;
  bool HasOutput = false;
  std::string HostIdentity;           ///< what the object was compiled for (hostIdentity())
  void **OutputBuffer = nullptr;      ///< the module's __ptx2amd_output_buffer, when it has one
  void (*Resume)(void *) = nullptr;   ///< resumes a compiled workgroup's work-item
  std::mutex LaunchMutex;             ///< the output buffer variable is per module
  bool ForceFibers = false;           ///< every launch as LaunchConfig::Fibers (HostOverrides)
  bool Differential = false;          ///< every launch under every plan (HostOverrides)
  std::vector<MemoryRange> Variables; ///< the globals' memory, for the differential mode

  KernelEntry *find(StringRef Name) {
    for (KernelEntry &K : Kernels)
      if (K.Name == Name)
        return &K;
    return nullptr;
  }

  /// The function \p Symbol of the linked object, as \p Fn.
  template <typename FnT> Error lookup(StringRef Symbol, FnT &Fn) {
    auto A = Jit->lookup(Symbol);
    if (!A)
      return A.takeError();
    Fn = reinterpret_cast<FnT>(*A);
    return Error::success();
  }

  /// Resolves \p Plan's functions in the linked object.
  Error bind(ExecutionPlan &Plan) {
    if (Error E = lookup(Plan.EntrySymbol, Plan.Entry))
      return E;
    switch (Plan.How) {
    case Mode::Loop:
      return lookup(Plan.Symbol, Plan.Loop);
    case Mode::Waves:
      return lookup(Plan.Symbol, Plan.Wave);
    case Mode::WorkGroup:
    case Mode::WavesWithBarriers:
      if (Error E = lookup(Plan.Symbol, Plan.Item))
        return E;
      return Resume ? Error::success() : lookup(rt::Resume, Resume);
    case Mode::Fibers:
      break;
    }
    return Error::success();
  }

  /// Resolves each plan's functions and the output buffer in the linked object.
  Error bind(const std::vector<ExternalVariable> &External) {
    for (KernelEntry &K : Kernels) {
      if (!K.Plan.Unavailable.empty())
        continue;
      if (K.Plan.EntrySymbol.empty()) {
        K.Plan.Unavailable = "not in the translated module";
        continue;
      }
      if (Error E = bind(K.Plan))
        return E;
      K.Others = otherPlans(K.Plan, K.Made);
      for (ExecutionPlan &O : K.Others)
        if (Error E = bind(O))
          return E;
    }
    for (const GlobalInfo &G : Differential ? Globals : std::vector<GlobalInfo>()) {
      auto A = Jit->lookup(G.Name);
      if (!A)
        return A.takeError();
      Variables.push_back({reinterpret_cast<uint8_t *>(*A), G.Size, "variable '" + G.Name + "'"});
    }
    for (const ExternalVariable &V : Differential ? External : std::vector<ExternalVariable>())
      Variables.push_back({static_cast<uint8_t *>(V.Address), V.Size, "variable '" + V.Name + "'"});
    if (HasOutput) {
      auto A = Jit->lookup(amdgpu::OutputBufferSymbol);
      if (!A)
        return A.takeError();
      OutputBuffer = reinterpret_cast<void **>(*A);
    }
    return Error::success();
  }
};

namespace {

/// The load's: vectorised waves, unless the environment forbids them; every plan's function in
/// the differential mode.
RetargetOptions retargetOptions(const LoadOptions &Opts) {
  RetargetOptions R;
  R.Vectorize = Opts.VectorizeWaves && !Opts.Forced.NoWaveVectors;
  R.EveryPlan = Opts.Forced.Differential;
  R.BreakWaveXor = Opts.BreakWaveXorForTests;
  R.MaxWaveInstructions = Opts.MaxWaveInstructionsForTests;
  return R;
}

/// At PTX2AMD_LOG=info, how each kernel runs, and the module's counts.
void logExecutions(const LoadedModule::Impl &P, StringRef Module) {
  static const bool Info = [] {
    const char *Env = getenv("PTX2AMD_LOG");
    return Env && (StringRef(Env) == "info" || StringRef(Env) == "debug");
  }();
  if (!Info)
    return;
  unsigned Available = 0, Vector = 0, Fallback = 0;
  for (const KernelEntry &K : P.Kernels) {
    errs() << "ptx2amd: host: kernel '" << K.Name << "': " << describe(K.Plan) << "\n";
    if (!K.Plan.Unavailable.empty())
      continue;
    ++Available;
    Vector += toExecution(K.Plan.How) == Execution::Waves;
    Fallback += K.Plan.How == Mode::Fibers;
  }
  if (Available)
    errs() << "ptx2amd: host: " << Module << ": " << Vector << " of " << Available
           << " kernels vectorised over their waves, " << Fallback << " on fibers\n";
}

} // namespace

LoadedModule::LoadedModule(std::unique_ptr<Impl> P) : P(std::move(P)) {}
LoadedModule::~LoadedModule() = default;

const amdgpu::Target &LoadedModule::target() const { return *P->T; }

std::vector<std::string> LoadedModule::kernels() const {
  std::vector<std::string> Names;
  for (const KernelEntry &K : P->Kernels)
    Names.push_back(K.Name);
  return Names;
}

std::string LoadedModule::unavailableReason(StringRef Kernel) const {
  KernelEntry *K = P->find(Kernel);
  return K ? K->Plan.Unavailable : "no kernel '" + Kernel.str() + "' in the module";
}

Execution LoadedModule::execution(StringRef Kernel) const {
  KernelEntry *K = P->find(Kernel);
  return K ? toExecution(K->Plan.How) : Execution::Loop;
}

bool LoadedModule::usesFibers(StringRef Kernel) const {
  return execution(Kernel) == Execution::Fibers;
}

std::string LoadedModule::vectorReason(StringRef Kernel) const {
  KernelEntry *K = P->find(Kernel);
  return K ? K->Plan.VectorReason : "no kernel '" + Kernel.str() + "' in the module";
}

std::string LoadedModule::fiberReason(StringRef Kernel) const {
  KernelEntry *K = P->find(Kernel);
  return K ? K->Plan.FiberReason : "";
}

unsigned LoadedModule::lockstepPoints(StringRef Kernel) const {
  KernelEntry *K = P->find(Kernel);
  return K ? K->Plan.LockstepPoints : 0;
}

Expected<void *> LoadedModule::global(StringRef Name) const {
  auto A = P->Jit->lookup(Name);
  if (!A)
    return A.takeError();
  return reinterpret_cast<void *>(*A);
}

const std::vector<GlobalInfo> &LoadedModule::globals() const { return P->Globals; }

const amdgpu::KernelMetadata *LoadedModule::metadata(StringRef Kernel) const {
  KernelEntry *K = P->find(Kernel);
  return K && K->Plan.Unavailable.empty() ? &K->Meta : nullptr;
}

std::vector<uint8_t> LoadedModule::compiled() const {
  Writer Body;
  Body.str(P->T->Name);
  Body.str(P->HostIdentity);
  Body.u32(P->StaticLdsBytes);
  Body.u8(P->HasOutput);
  Body.u32(uint32_t(P->Kernels.size()));
  for (const KernelEntry &K : P->Kernels) {
    // The plan's function in its slot, the others empty but in the differential mode.
    const KernelFunctions &Made = K.Made;
    Body.str(K.Name);
    Body.str(K.Plan.Unavailable);
    Body.u8(K.Plan.Meets);
    Body.u32(K.Plan.LockstepPoints);
    Body.str(K.Plan.EntrySymbol);
    Body.str(Made.Loop);
    Body.str(Made.WorkGroup);
    Body.str(K.Plan.FiberReason);
    Body.str(Made.Wave);
    Body.str(Made.WaveGroup);
    Body.str(K.Plan.VectorReason);
    Body.str(K.Plan.OrderReason);
    writeMetadata(Body, K.Meta);
  }
  Body.u32(uint32_t(P->Globals.size()));
  for (const GlobalInfo &G : P->Globals) {
    Body.str(G.Name);
    Body.u64(G.Size);
  }
  Body.bytes(P->Jit->object());
  Writer W;
  W.u32(CompiledMagic);
  W.u32(CompiledFormatVersion);
  W.u64(xxh3_64bits(Body.Out));
  W.u64(Body.Out.size());
  W.Out.insert(W.Out.end(), Body.Out.begin(), Body.Out.end());
  return std::move(W.Out);
}

const HostOverrides &HostOverrides::environment() {
  static const HostOverrides Env = [] {
    HostOverrides O;
    const char *Vector = getenv("PTX2AMD_HOST_VECTOR");
    O.NoWaveVectors = Vector && StringRef(Vector) == "0";
    const char *Fibers = getenv("PTX2AMD_HOST_FIBERS");
    O.Fibers = Fibers && StringRef(Fibers) == "1";
    const char *Differential = getenv("PTX2AMD_HOST_DIFFERENTIAL");
    O.Differential = Differential && StringRef(Differential) == "1";
    return O;
  }();
  return Env;
}

Expected<std::string> Device::hostIdentity(const LoadOptions &Opts) {
  return host::hostIdentity(!Opts.Forced.NoWaveVectors, Opts.Forced.Differential);
}

Expected<unsigned> Device::computeUnits() { return workerCount(); }

Expected<std::unique_ptr<Device>> Device::create() {
  if (auto N = workerCount(); !N)
    return N.takeError();
  return std::unique_ptr<Device>(new Device);
}

Device::~Device() = default;

/// The translation pipeline's optimised module of \p Ptx, as the host device takes it.
static pipeline::Translation optimisedModule(StringRef Ptx, StringRef Name, const amdgpu::Target &T,
                                             const LoadOptions &Opts) {
  pipeline::Options PO;
  PO.Target = &T;
  PO.Codegen = {Opts.OptLevel, Opts.CodeObjectVersion};
  PO.Codegen.OutlineSoftwareTextures = true;
  PO.Codegen.ExternalVariables = !Opts.Variables.empty();
  PO.Codegen.DynamicSharedInGlobal = Opts.DynamicSharedInGlobal;
  PO.Out = pipeline::Output::OptimizedModule;
  PO.OnOptimized = Opts.OnOptimized;
  return pipeline::translate(std::make_shared<SourceText>(Name.str(), Ptx.str()), PO);
}

Expected<std::string> Device::retargetedModule(StringRef Ptx, StringRef Name,
                                               const amdgpu::Target &T, const LoadOptions &Opts) {
  pipeline::Translation Tr = optimisedModule(Ptx, Name, T, Opts);
  if (!Tr.Module)
    return Tr.moduleError();
  auto HT = hostTarget();
  if (!HT)
    return HT.takeError();
  auto R = retargetModule(*Tr.Module, T, *HT, retargetOptions(Opts));
  if (!R)
    return R.takeError();
  std::string S;
  raw_string_ostream OS(S);
  for (const pipeline::KernelResult &KR : Tr.Kernels)
    if (std::string Why = Tr.unavailableReason(KR); !Why.empty()) {
      std::replace(Why.begin(), Why.end(), '\n', ' ');
      OS << "; kernel " << Tr.function(KR).Name << ": not translated: " << Why << "\n";
    }
  for (const RetargetedKernel &RK : R->Kernels)
    OS << "; kernel " << RK.Meta.Name << ": " << describe(RK.Plan) << "\n";
  Tr.Module->print(OS, nullptr);
  return S;
}

Expected<std::unique_ptr<LoadedModule>>
Device::loadPtx(StringRef Ptx, StringRef Name, const amdgpu::Target &T, const LoadOptions &Opts) {
  pipeline::Translation Tr = optimisedModule(Ptx, Name, T, Opts);
  if (!Tr.Module)
    return Tr.moduleError();
  auto P = std::make_unique<LoadedModule::Impl>();
  P->T = &T;
  // Kernels that did not translate stay listed, with the reason.
  for (const pipeline::KernelResult &KR : Tr.Kernels) {
    KernelEntry K;
    K.Name = Tr.function(KR).Name;
    if (std::string Why = Tr.unavailableReason(KR); !Why.empty()) {
      std::replace(Why.begin(), Why.end(), '\n', ' ');
      K.Plan.Unavailable = Tr.function(KR).State == pipeline::FunctionState::Failed
                               ? "translation failed: " + Why
                               : Why;
    }
    P->Kernels.push_back(std::move(K));
  }
  Module &M = *Tr.Module;
  const std::string ModuleName = M.getModuleIdentifier();
  P->Globals = exportGlobals(M);
  P->HasOutput = M.getNamedGlobal(amdgpu::OutputBufferSymbol) != nullptr;

  auto HT = hostTarget();
  if (!HT)
    return HT.takeError();
  auto Identity = hostIdentity(Opts);
  if (!Identity)
    return Identity.takeError();
  P->HostIdentity = std::move(*Identity);
  P->ForceFibers = Opts.Forced.Fibers;
  P->Differential = Opts.Forced.Differential;
  auto R = retargetModule(M, T, *HT, retargetOptions(Opts));
  if (!R)
    return R.takeError();
  P->StaticLdsBytes = R->StaticLdsBytes;
  auto J = JitModule::create(std::move(Tr.Context), std::move(Tr.Module), Opts.OptLevel,
                             linkedSymbols(Opts));
  if (!J)
    return J.takeError();
  P->Jit = std::move(*J);
  for (RetargetedKernel &RK : R->Kernels) {
    KernelEntry *K = P->find(RK.Meta.Name);
    if (!K || !K->Plan.Unavailable.empty())
      continue;
    K->Meta = std::move(RK.Meta);
    K->Plan = std::move(RK.Plan);
    K->Made = std::move(RK.Made);
  }
  if (Error E = P->bind(Opts.Variables))
    return E;
  logExecutions(*P, ModuleName);
  return std::unique_ptr<LoadedModule>(new LoadedModule(std::move(P)));
}

Expected<std::unique_ptr<LoadedModule>>
Device::loadCompiled(ArrayRef<uint8_t> Bytes, const amdgpu::Target &T, const LoadOptions &Opts) {
  auto Refuse = [](const Twine &Why) {
    return makeError(ErrorKind::BadInput, "compiled host module refused: " + Why);
  };
  Reader Header(Bytes.take_front(CompiledHeaderSize));
  uint32_t Magic = Header.u32(), Version = Header.u32();
  uint64_t Checksum = Header.u64(), Size = Header.u64();
  if (!Header.ok() || Magic != CompiledMagic)
    return Refuse("not a compiled host module");
  if (Version != CompiledFormatVersion)
    return Refuse("format version " + Twine(Version) + ", expected " +
                  Twine(CompiledFormatVersion));
  ArrayRef<uint8_t> Body = Bytes.drop_front(CompiledHeaderSize);
  if (Body.size() != Size || xxh3_64bits(Body) != Checksum)
    return Refuse("checksum mismatch (truncated or corrupt)");
  Reader R(Body);
  auto P = std::make_unique<LoadedModule::Impl>();
  P->T = &T;
  if (std::string Target = R.str(); Target != T.Name)
    return Refuse("compiled for " + Target + ", not " + T.Name);
  auto Identity = hostIdentity(Opts);
  if (!Identity)
    return Identity.takeError();
  if (std::string Host = R.str(); Host != *Identity)
    return Refuse("compiled for host '" + Host + "', this one is '" + *Identity + "'");
  P->HostIdentity = std::move(*Identity);
  P->ForceFibers = Opts.Forced.Fibers;
  P->Differential = Opts.Forced.Differential;
  P->StaticLdsBytes = R.u32();
  P->HasOutput = R.u8();
  uint32_t NumKernels = R.u32();
  for (uint32_t I = 0; I < NumKernels && R.ok(); ++I) {
    KernelEntry K;
    KernelFunctions Made;
    K.Name = R.str();
    K.Plan.Unavailable = R.str();
    K.Plan.Meets = R.u8();
    K.Plan.LockstepPoints = R.u32();
    K.Plan.EntrySymbol = R.str();
    Made.Loop = R.str();
    Made.WorkGroup = R.str();
    K.Plan.FiberReason = R.str();
    Made.Wave = R.str();
    Made.WaveGroup = R.str();
    K.Plan.VectorReason = R.str();
    K.Plan.OrderReason = R.str();
    choosePlan(K.Plan, Made);
    K.Made = std::move(Made);
    readMetadata(R, K.Meta);
    P->Kernels.push_back(std::move(K));
  }
  uint32_t NumGlobals = R.u32();
  for (uint32_t I = 0; I < NumGlobals && R.ok(); ++I) {
    GlobalInfo G;
    G.Name = R.str();
    G.Size = R.u64();
    P->Globals.push_back(std::move(G));
  }
  ArrayRef<uint8_t> Object = R.bytes();
  if (!R.ok() || !R.atEnd())
    return Refuse("malformed body");
  auto J = JitModule::link(Object, linkedSymbols(Opts));
  if (!J)
    return J.takeError();
  P->Jit = std::move(*J);
  if (Error E = P->bind(Opts.Variables))
    return E;
  logExecutions(*P, "a compiled module");
  return std::unique_ptr<LoadedModule>(new LoadedModule(std::move(P)));
}

void *Device::allocate(size_t Bytes) {
  size_t Rounded = (std::max<size_t>(Bytes, 1) + 255) & ~size_t(255);
  // Called through a volatile pointer: the compiler would take the alignment as given.
  void *(*volatile Allocate)(size_t, size_t) = std::aligned_alloc;
  void *P = Allocate(256, Rounded);
  if (P && reinterpret_cast<uintptr_t>(P) % 256) {
    // mimalloc 2.0.9 (Debian's) returns 128-byte aligned blocks for some sizes below 4 KiB;
    // image descriptors need 256 (textures, ImageDescriptors.h): take a page instead.
    std::free(P);
    Rounded = (Rounded + 4095) & ~size_t(4095);
    P = Allocate(4096, Rounded);
  }
  if (P) {
    std::memset(P, 0, Rounded);
    trackMemory(P, Rounded, false);
  }
  return P;
}

void Device::release(void *P) {
  if (!P)
    return;
  untrackMemory(P);
  std::free(P);
}

void Device::knowMemory(void *P, size_t Bytes) { trackMemory(P, Bytes, true); }

void Device::forgetMemory(void *P) { untrackMemory(P); }

std::shared_mutex &Device::memoryMutex() {
  static std::shared_mutex *M = new std::shared_mutex; // never destroyed: used until exit
  return *M;
}

/// Runs \p L with a device output buffer of its own: the output, or the launch's error with the
/// assertions and printf output it left.
static Expected<amdgpu::DeviceOutput> runPlan(LoadedModule::Impl &P, const KernelLaunch &L) {
  std::unique_ptr<uint8_t, FreeDeleter> Output;
  if (P.OutputBuffer) {
    Output.reset(static_cast<uint8_t *>(std::calloc(1, OutputBufferBytes)));
    if (!Output)
      return makeError(ErrorKind::OutOfResources, "out of memory for the device output buffer");
    uint32_t Capacity = OutputBufferBytes - amdgpu::OutputHeaderSize;
    std::memcpy(Output.get(), &Capacity, 4);
    *P.OutputBuffer = Output.get();
  }
  Error Run = runLaunch(L);
  amdgpu::DeviceOutput Out;
  if (P.OutputBuffer) {
    *P.OutputBuffer = nullptr;
    auto Read = amdgpu::readDeviceOutput(ArrayRef<uint8_t>(Output.get(), OutputBufferBytes));
    if (!Read)
      return joinErrors(std::move(Run), Read.takeError());
    Out = std::move(*Read);
  }
  if (Run) {
    auto [Kind, Msg] = amdgpu::takeFault(std::move(Run));
    for (const std::string &A : Out.Assertions)
      Msg += "\n  device assertion: " + A;
    // An assertion traps after writing its record.
    if (!Out.Assertions.empty())
      Kind = amdgpu::FaultKind::Assertion;
    if (!Out.Text.empty())
      Msg += "\n  device printf output before the failure:\n" + Out.Text;
    return amdgpu::makeFault(Kind, Msg);
  }
  return Out;
}

Expected<amdgpu::DeviceOutput> Device::launch(LoadedModule &LM, StringRef Kernel,
                                              const LaunchConfig &C, void **Args) {
  LoadedModule::Impl &P = *LM.P;
  KernelEntry *K = P.find(Kernel);
  if (!K)
    return makeError(ErrorKind::BadInput, "no kernel '" + Kernel + "' in the module");
  if (!K->Plan.Unavailable.empty())
    return makeError(ErrorKind::Unsupported,
                     "kernel '" + Kernel +
                         "' cannot run on the host backend: " + K->Plan.Unavailable);
  amdgpu::LaunchGeometry G;
  G.Grid[0] = C.Grid.X;
  G.Grid[1] = C.Grid.Y;
  G.Grid[2] = C.Grid.Z;
  G.Block[0] = C.Block.X;
  G.Block[1] = C.Block.Y;
  G.Block[2] = C.Block.Z;
  G.DynamicLdsBytes = C.DynamicSharedBytes;
  G.DynamicSharedAddress = C.DynamicSharedAddress;

  std::unique_ptr<uint8_t, FreeDeleter> Kernarg(
      static_cast<uint8_t *>(std::aligned_alloc(64, alignTo(K->Meta.KernargSegmentSize, 64))));
  if (!Kernarg)
    return makeError(ErrorKind::OutOfResources, "out of memory for the kernarg segment");
  MutableArrayRef<uint8_t> KernargBytes(Kernarg.get(), K->Meta.KernargSegmentSize);
  // The grid workspace, zeroed for each launch: cooperative_groups' grid_group::sync() counts
  // arrivals in its second word.
  alignas(64) uint32_t Workspace[16] = {};
  amdgpu::HiddenArgValues Hidden;
  if (C.Cooperative)
    Hidden.MultigridSyncArg = reinterpret_cast<uint64_t>(Workspace);
  if (Error E = amdgpu::packKernargs(K->Meta, Args, G, Hidden, KernargBytes))
    return E;
  auto Packet =
      amdgpu::makeDispatchPacket(K->Meta, G, 0, reinterpret_cast<uint64_t>(Kernarg.get()));
  if (!Packet)
    return Packet.takeError();

  static std::atomic<uint64_t> DispatchIds{0};
  KernelLaunch L;
  L.Name = K->Name;
  L.Plan = &K->Plan;
  L.How = launchMode(K->Plan, C, P.ForceFibers);
  L.Resume = P.Resume;
  L.Cooperative = C.Cooperative;
  L.Workers = C.Workers;
  L.WaveSize = P.T->WaveSize;
  L.Geometry = &G;
  L.Kernarg = Kernarg.get();
  L.ImplicitArgs = Kernarg.get() + alignTo(K->Meta.explicitKernargSize(), 8);
  L.Packet = &*Packet;
  // The kernel asks for its own static LDS and the dynamic LDS (the packet's figure, which the
  // target's limit applies to); its arena holds the module's static layout and the dynamic LDS
  // after it.
  if (Packet->GroupSegmentSize > P.T->LdsBytesPerWorkgroup)
    return makeError(ErrorKind::OutOfResources,
                     "kernel '" + Kernel + "': " + Twine(Packet->GroupSegmentSize) +
                         " bytes of shared memory, more than the " +
                         Twine(P.T->LdsBytesPerWorkgroup) + " of " + P.T->Name);
  L.LdsBytes = P.StaticLdsBytes + (G.DynamicSharedAddress ? 0 : G.DynamicLdsBytes);
  L.DispatchId = ++DispatchIds;
  L.WatchdogMs = C.WatchdogMs ? C.WatchdogMs : defaultWatchdogMs();

  std::lock_guard<std::mutex> Lock(P.LaunchMutex);
  auto RunPlan = [&](Mode How, const ExecutionPlan &Plan) {
    KernelLaunch Run = L;
    Run.How = How;
    Run.Plan = &Plan;
    std::memset(Workspace, 0, sizeof Workspace);
    return runPlan(P, Run);
  };
  if (!P.Differential)
    return RunPlan(L.How, K->Plan);
  // Every other way this launch can run: each plan made for the kernel, fibers for a kernel
  // that meets (as LaunchConfig::Fibers would), none that a cooperative launch rules out.
  DifferentialLaunch D;
  D.Kernel = K->Name;
  D.Plan = &K->Plan;
  D.How = L.How;
  D.Globals = P.Variables;
  D.Arguments = KernargBytes.take_front(K->Meta.explicitKernargSize());
  auto Add = [&](Mode How, const ExecutionPlan &Plan) {
    if (How != D.How && none_of(D.Others, [&](const auto &O) { return O.first == How; }))
      D.Others.push_back({How, &Plan});
  };
  Add(launchMode(K->Plan, C, false), K->Plan);
  for (const ExecutionPlan &O : K->Others)
    Add(launchMode(O, C, false), O);
  if (K->Plan.Meets)
    Add(Mode::Fibers, K->Plan);
  // Copies on other streams wait while this launch restores memory.
  std::unique_lock<std::shared_mutex> Memory(memoryMutex());
  return runDifferential(D, RunPlan);
}

} // namespace ptx2amd::host
