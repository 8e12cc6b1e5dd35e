// The C++ API of the host backend: load (lower, link, optimise as for AMDGPU, retarget, JIT) and
// launch (kernarg segment and dispatch packet as the HSA path builds them, device output).
#include "ptx2amd/host-backend/HostDevice.h"

#include "Jit.h"
#include "Retarget.h"
#include "Runtime.h"

#include "ptx2amd/amdgpu-backend/Codegen.h"
#include "ptx2amd/amdgpu-backend/Kernarg.h"
#include "ptx2amd/ptx-ir/Reader.h"

#include "llvm/IR/Module.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

using namespace llvm;

namespace ptx2amd::host {
namespace {

Error makeError(const Twine &Msg) { return createStringError(inconvertibleErrorCode(), Msg); }

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

/// The module's `.global` and `.const` variables stay in the JIT-compiled module under their
/// names and writable: the host reads and writes them between launches (cudaMemcpyToSymbol), so
/// the optimiser must neither drop them nor fold their initial values into the code.
void exposeGlobals(Module &M) {
  for (GlobalVariable &G : M.globals()) {
    unsigned AS = G.getAddressSpace();
    if ((AS != 1 && AS != 4) || G.isDeclaration() || !G.hasName() ||
        G.getName().starts_with("__ptx2amd") || G.getName().starts_with("llvm.") ||
        G.hasGlobalUnnamedAddr())
      continue;
    G.setLinkage(GlobalValue::ExternalLinkage);
    G.setVisibility(GlobalValue::DefaultVisibility);
    G.setConstant(false);
  }
}

} // namespace

struct KernelEntry {
  std::string Name;
  std::string Unavailable;
  bool Fibers = false;
  amdgpu::KernelMetadata Meta;
  EntryFn Entry = nullptr;
  LoopFn Loop = nullptr;
};

struct LoadedModule::Impl {
  const amdgpu::Target *T = nullptr;
  std::unique_ptr<JitModule> Jit;
  std::vector<KernelEntry> Kernels;
  uint32_t StaticLdsBytes = 0;
  void **OutputBuffer = nullptr; ///< the module's __ptx2amd_output_buffer, when it has one
  std::mutex LaunchMutex;        ///< the output buffer variable is per module

  KernelEntry *find(StringRef Name) {
    for (KernelEntry &K : Kernels)
      if (K.Name == Name)
        return &K;
    return nullptr;
  }
};

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
  return K ? K->Unavailable : "no kernel '" + Kernel.str() + "' in the module";
}

bool LoadedModule::usesFibers(StringRef Kernel) const {
  KernelEntry *K = P->find(Kernel);
  return K && K->Fibers;
}

Expected<void *> LoadedModule::global(StringRef Name) const {
  auto A = P->Jit->lookup(Name);
  if (!A)
    return A.takeError();
  return reinterpret_cast<void *>(*A);
}

Expected<std::unique_ptr<Device>> Device::create() {
  if (auto N = workerCount(); !N)
    return N.takeError();
  return std::unique_ptr<Device>(new Device);
}

Device::~Device() = default;

Expected<std::unique_ptr<LoadedModule>>
Device::loadPtx(StringRef Ptx, StringRef Name, const amdgpu::Target &T, const LoadOptions &Opts) {
  auto M = ir::readModule(std::make_shared<SourceText>(Name.str(), Ptx.str()),
                          {/*Lazy=*/true, /*Threads=*/1, /*Verify=*/true});
  if (!M)
    return M.takeError();
  auto L = lowering::lowerModule(**M, {std::string(T.Name), T.WaveSize, T.IsaVersion, 5});
  if (!L)
    return L.takeError();
  return load(std::move(*L), T, Opts);
}

Expected<std::unique_ptr<LoadedModule>>
Device::load(lowering::LoweredModule L, const amdgpu::Target &T, const LoadOptions &Opts) {
  auto P = std::make_unique<LoadedModule::Impl>();
  P->T = &T;
  // Kernels whose translation failed stay listed, with the reason.
  for (const lowering::FunctionStatus &F : L.Functions) {
    if (!F.IsKernel)
      continue;
    KernelEntry K;
    K.Name = F.Name;
    if (!F.Lowered) {
      K.Unavailable = "translation failed:";
      for (const ir::Diagnostic &D : F.Diags)
        K.Unavailable += " " + D.str();
    }
    P->Kernels.push_back(std::move(K));
  }
  Module &M = *L.Module;
  exposeGlobals(M);
  amdgpu::CodegenOptions CO{Opts.OptLevel, 5};
  std::vector<amdgpu::DroppedKernel> Dropped;
  if (Error E = amdgpu::optimizeModule(M, T, CO, &Dropped))
    return E;
  for (const amdgpu::DroppedKernel &D : Dropped)
    if (KernelEntry *K = P->find(D.Name); K && K->Unavailable.empty())
      K->Unavailable = D.Reason;
  bool HasOutput = M.getNamedGlobal(amdgpu::OutputBufferSymbol) != nullptr;

  auto HT = hostTarget();
  if (!HT)
    return HT.takeError();
  auto R = retargetModule(M, T, HT->Triple, HT->DataLayout);
  if (!R)
    return R.takeError();
  P->StaticLdsBytes = R->StaticLdsBytes;
  auto J =
      JitModule::create(std::move(L.Context), std::move(L.Module), Opts.OptLevel, runtimeSymbols());
  if (!J)
    return J.takeError();
  P->Jit = std::move(*J);
  for (RetargetedKernel &RK : R->Kernels) {
    KernelEntry *K = P->find(RK.Meta.Name);
    if (!K || !K->Unavailable.empty())
      continue;
    K->Unavailable = RK.Unavailable;
    K->Fibers = RK.NeedsFibers;
    K->Meta = std::move(RK.Meta);
    K->Meta.GroupSegmentFixedSize = P->StaticLdsBytes;
    if (!K->Unavailable.empty())
      continue;
    auto E = P->Jit->lookup(RK.Entry);
    if (!E)
      return E.takeError();
    K->Entry = reinterpret_cast<EntryFn>(*E);
    if (!RK.Loop.empty()) {
      auto Lp = P->Jit->lookup(RK.Loop);
      if (!Lp)
        return Lp.takeError();
      K->Loop = reinterpret_cast<LoopFn>(*Lp);
    }
  }
  for (KernelEntry &K : P->Kernels)
    if (K.Unavailable.empty() && !K.Entry)
      K.Unavailable = "not in the translated module";
  if (HasOutput) {
    auto A = P->Jit->lookup(amdgpu::OutputBufferSymbol);
    if (!A)
      return A.takeError();
    P->OutputBuffer = reinterpret_cast<void **>(*A);
  }
  return std::unique_ptr<LoadedModule>(new LoadedModule(std::move(P)));
}

void *Device::allocate(size_t Bytes) {
  size_t Rounded = (std::max<size_t>(Bytes, 1) + 255) & ~size_t(255);
  void *P = std::aligned_alloc(256, Rounded);
  if (P)
    std::memset(P, 0, Rounded);
  return P;
}

void Device::release(void *P) { std::free(P); }

Expected<amdgpu::DeviceOutput> Device::launch(LoadedModule &LM, StringRef Kernel,
                                              const LaunchConfig &C, void **Args) {
  LoadedModule::Impl &P = *LM.P;
  KernelEntry *K = P.find(Kernel);
  if (!K)
    return makeError("no kernel '" + Kernel + "' in the module");
  if (!K->Unavailable.empty())
    return makeError("kernel '" + Kernel + "' cannot run on the host backend: " + K->Unavailable);
  amdgpu::LaunchGeometry G;
  G.Grid[0] = C.Grid.X;
  G.Grid[1] = C.Grid.Y;
  G.Grid[2] = C.Grid.Z;
  G.Block[0] = C.Block.X;
  G.Block[1] = C.Block.Y;
  G.Block[2] = C.Block.Z;
  G.DynamicLdsBytes = C.DynamicSharedBytes;

  std::unique_ptr<uint8_t, FreeDeleter> Kernarg(
      static_cast<uint8_t *>(std::aligned_alloc(64, alignTo(K->Meta.KernargSegmentSize, 64))));
  if (!Kernarg)
    return makeError("out of memory for the kernarg segment");
  MutableArrayRef<uint8_t> KernargBytes(Kernarg.get(), K->Meta.KernargSegmentSize);
  if (Error E = amdgpu::packKernargs(K->Meta, Args, G, {}, KernargBytes))
    return E;
  auto Packet =
      amdgpu::makeDispatchPacket(K->Meta, G, 0, reinterpret_cast<uint64_t>(Kernarg.get()));
  if (!Packet)
    return Packet.takeError();

  static std::atomic<uint64_t> DispatchIds{0};
  KernelLaunch L;
  L.Name = K->Name;
  L.Entry = K->Entry;
  L.Loop = K->Loop;
  L.WaveSize = P.T->WaveSize;
  L.Geometry = &G;
  L.Kernarg = Kernarg.get();
  L.ImplicitArgs = Kernarg.get() + alignTo(K->Meta.explicitKernargSize(), 8);
  L.Packet = &*Packet;
  L.LdsBytes = Packet->GroupSegmentSize;
  L.DispatchId = ++DispatchIds;
  L.WatchdogMs = C.WatchdogMs ? C.WatchdogMs : defaultWatchdogMs();

  std::lock_guard<std::mutex> Lock(P.LaunchMutex);
  std::unique_ptr<uint8_t, FreeDeleter> Output;
  if (P.OutputBuffer) {
    Output.reset(static_cast<uint8_t *>(std::calloc(1, OutputBufferBytes)));
    if (!Output)
      return makeError("out of memory for the device output buffer");
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
    std::string Msg = toString(std::move(Run));
    for (const std::string &A : Out.Assertions)
      Msg += "\n  device assertion: " + A;
    if (!Out.Text.empty())
      Msg += "\n  device printf output before the failure:\n" + Out.Text;
    return makeError(Msg);
  }
  return Out;
}

} // namespace ptx2amd::host
