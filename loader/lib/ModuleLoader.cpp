//===- ModuleLoader.cpp - CUDA images to loaded modules, lazily and cached ===//

#include "ptx2amd/loader/ModuleLoader.h"
#include "ptx2amd/ptx-grammar/Slices.h"
#include "ptx2amd/support/Error.h"

#include "ptx2amd/amdgpu-backend/DeviceHeap.h"

#include "ptx2amd/pipeline/Translate.h"

#include "ptx2amd/fatbin/Fatbin.h"
#include "ptx2amd/ptx-grammar/Source.h"
#include "ptx2amd/ptx-ir/Link.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <optional>
#include <thread>
#include <unistd.h>

using namespace llvm;

namespace ptx2amd::loader {
namespace {

double msSince(std::chrono::steady_clock::time_point Start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - Start)
      .count();
}

/// A translation for a code object device, as the cache stores it (little-endian):
///   "P2LM", u32 format version, u64 code object size, the code object, u32 kernel count, then
///   per kernel: u32 name size, name, u32 reason size, reason (empty: the kernel is available).
constexpr uint32_t PayloadMagic = 0x4d4c3250; // "P2LM"
constexpr uint32_t PayloadVersion = 1;

struct CodeObjectPayload {
  std::vector<uint8_t> Bytes;         ///< the whole payload
  ArrayRef<uint8_t> CodeObject;       ///< into Bytes
  StringMap<std::string> Unavailable; ///< kernel -> why
};

void put32(std::vector<uint8_t> &Out, uint32_t V) {
  uint8_t B[4];
  support::endian::write32le(B, V);
  Out.insert(Out.end(), B, B + 4);
}

void putString(std::vector<uint8_t> &Out, StringRef S) {
  put32(Out, uint32_t(S.size()));
  Out.insert(Out.end(), S.bytes_begin(), S.bytes_end());
}

std::vector<uint8_t>
encodePayload(ArrayRef<uint8_t> CodeObject,
              const std::vector<std::pair<std::string, std::string>> &Kernels) {
  std::vector<uint8_t> Out;
  put32(Out, PayloadMagic);
  put32(Out, PayloadVersion);
  uint8_t Size[8];
  support::endian::write64le(Size, CodeObject.size());
  Out.insert(Out.end(), Size, Size + 8);
  Out.insert(Out.end(), CodeObject.begin(), CodeObject.end());
  put32(Out, uint32_t(Kernels.size()));
  for (const auto &[Name, Reason] : Kernels) {
    putString(Out, Name);
    putString(Out, Reason);
  }
  return Out;
}

/// The cache checksums entries; this only guards against a payload of another format.
Expected<CodeObjectPayload> decodePayload(std::vector<uint8_t> Bytes) {
  CodeObjectPayload P;
  P.Bytes = std::move(Bytes);
  ArrayRef<uint8_t> In = P.Bytes;
  auto Take = [&](uint64_t N) -> std::optional<ArrayRef<uint8_t>> {
    if (N > In.size())
      return std::nullopt;
    ArrayRef<uint8_t> R = In.take_front(N);
    In = In.drop_front(N);
    return R;
  };
  auto Get32 = [&]() -> std::optional<uint32_t> {
    auto B = Take(4);
    return B ? std::optional(support::endian::read32le(B->data())) : std::nullopt;
  };
  auto GetString = [&]() -> std::optional<StringRef> {
    auto N = Get32();
    auto B = N ? Take(*N) : std::nullopt;
    return B ? std::optional(toStringRef(*B)) : std::nullopt;
  };
  auto Malformed = [] {
    return makeError(ErrorKind::BadInput, "cached translation of an unknown format");
  };
  if (Get32() != PayloadMagic || Get32() != PayloadVersion)
    return Malformed();
  auto Size = Take(8);
  auto CO = Size ? Take(support::endian::read64le(Size->data())) : std::nullopt;
  auto Count = CO ? Get32() : std::nullopt;
  if (!Count)
    return Malformed();
  P.CodeObject = *CO;
  for (uint32_t I = 0; I < *Count; ++I) {
    auto Name = GetString();
    auto Reason = Name ? GetString() : std::nullopt;
    if (!Reason)
      return Malformed();
    if (!Reason->empty())
      P.Unavailable[*Name] = Reason->str();
  }
  if (!In.empty())
    return Malformed();
  return P;
}

/// Says once that a translation is taking a while: a second after it starts, when the user can
/// see it (standard error on a terminal, or PTX2AMD_LOG=info through the log).
class SlowTranslationNotice {
public:
  SlowTranslationNotice(std::function<void(const std::string &)> Say, std::string Line) {
    if (!Say)
      return;
    Waiter = std::thread([this, Say = std::move(Say), Line = std::move(Line)] {
      std::unique_lock<std::mutex> Lock(Mutex);
      if (!Finished.wait_for(Lock, std::chrono::seconds(1), [&] { return Done; }))
        Say(Line);
    });
  }
  ~SlowTranslationNotice() {
    if (!Waiter.joinable())
      return;
    {
      std::lock_guard<std::mutex> Lock(Mutex);
      Done = true;
    }
    Finished.notify_one();
    Waiter.join();
  }

private:
  std::mutex Mutex;
  std::condition_variable Finished;
  bool Done = false;
  std::thread Waiter;
};

/// The PTX of registration unit \p U under \p Policy (fatbin::selectForModule), but for NVIDIA's
/// device runtime in an -rdc unit: libcudadevrt carries PTX for its newest architecture only
/// (SASS for the others, which CUDA's driver would take), and linkRdcUnit leaves it out for the
/// device library's anyway, so its container is taken at that PTX whatever the policy's arch.
/// Every other container keeps to the policy.
Expected<fatbin::ModuleSelection> selectUnit(const fatbin::Fatbin &F, const fatbin::Module &U,
                                             const fatbin::SelectionPolicy &Policy) {
  auto S = fatbin::selectForModule(F, U, Policy);
  if (S || U.Prelinked.empty() || Policy.Kind != fatbin::SelectionPolicy::Mode::HighestArchAtMost)
    return S;
  fatbin::SelectionPolicy AnyArch = Policy;
  AnyArch.Kind = fatbin::SelectionPolicy::Mode::HighestArch;
  auto Newest = fatbin::selectForModule(F, U, AnyArch);
  if (!Newest) {
    consumeError(Newest.takeError());
    return S;
  }
  // selectRdcGroup keeps the order of U.Prelinked.
  for (size_t I = 0; I < Newest->PTX.size(); ++I) {
    if (Newest->PTX[I]->Arch <= Policy.MaxArch)
      continue;
    auto Own = fatbin::selectPTX(F.entries(F.containers()[U.Prelinked[I]]), Policy, F.name());
    if (Own) {
      Newest->PTX[I] = *Own;
      continue;
    }
    consumeError(Own.takeError());
    auto Text = F.ptx(*Newest->PTX[I]);
    if (!Text || !isNvidiaDeviceRuntime(Text->text())) {
      if (!Text)
        consumeError(Text.takeError());
      return S;
    }
  }
  consumeError(S.takeError());
  return Newest;
}

/// \p Why, a failure to select from \p F under \p Policy, as Unsupported when \p F has PTX that
/// only the policy's architecture bound excludes, or SASS alone: PTX for architectures above
/// the device's compute capability, and SASS, are no image for the device
/// (CUDA_ERROR_NO_BINARY_FOR_GPU, as CUDA's driver says of a cubin of another arch), not bad ones.
Error selectionFailure(Error Why, const fatbin::Fatbin &F, const fatbin::SelectionPolicy &Policy) {
  bool AnyPtx = false, AnySass = false;
  for (const fatbin::Entry &E : F.entries()) {
    AnyPtx |= E.Kind == fatbin::EntryKind::PTX;
    AnySass |= E.Kind == fatbin::EntryKind::ELF;
  }
  if (AnySass && !AnyPtx)
    return makeError(ErrorKind::Unsupported, toString(std::move(Why)));
  if (Policy.Kind != fatbin::SelectionPolicy::Mode::HighestArchAtMost)
    return Why;
  fatbin::SelectionPolicy AnyArch = Policy;
  AnyArch.Kind = fatbin::SelectionPolicy::Mode::HighestArch;
  bool Above = false;
  auto Try = [&](auto Selected) {
    if (Selected)
      Above = true;
    else
      consumeError(Selected.takeError());
  };
  if (F.modules().empty())
    Try(fatbin::selectPTX(F.entries(), AnyArch, F.name()));
  for (const fatbin::Module &U : F.modules())
    Try(fatbin::selectForModule(F, U, AnyArch));
  if (!Above)
    return Why;
  return makeError(ErrorKind::Unsupported, toString(std::move(Why)));
}

} // namespace

Expected<LogLevel> parseLogLevel(StringRef Value) {
  auto L = StringSwitch<std::optional<LogLevel>>(Value)
               .Cases({"", "off"}, LogLevel::Off)
               .Case("info", LogLevel::Info)
               .Case("debug", LogLevel::Debug)
               .Default(std::nullopt);
  if (!L)
    return makeError(ErrorKind::BadInput,
                     "PTX2AMD_LOG='" + Value + "' is not one of off, info, debug");
  return *L;
}

Expected<LoaderOptions> LoaderOptions::fromEnvironment() {
  LoaderOptions O;
  const char *Env = std::getenv("PTX2AMD_LOG");
  auto Level = parseLogLevel(Env ? Env : "");
  if (!Level)
    return Level.takeError();
  O.Log = *Level;
  // CUDA's own setting: DEFAULT and LAZY are what we do anyway.
  const char *Loading = std::getenv("CUDA_MODULE_LOADING");
  O.Eager = Loading && StringRef(Loading) == "EAGER";
  auto Config = CacheConfig::fromEnvironment();
  if (!Config)
    return Config.takeError();
  auto C = Cache::open(std::move(*Config));
  if (!C)
    return C.takeError();
  O.JitCache = std::move(*C);
  return O;
}

Expected<LinkedPtx> linkRdcUnit(const fatbin::Fatbin &F, ArrayRef<const fatbin::Entry *> Units,
                                StringRef Name) {
  std::vector<fatbin::Payload> Texts;
  std::vector<ir::LinkInput> Inputs, DeviceRuntime;
  for (const fatbin::Entry *E : Units) {
    auto Text = F.ptx(*E);
    if (!Text)
      return Text.takeError();
    Texts.push_back(std::move(*Text));
    // CUDA's device runtime is the device library's here, unless it is all there is.
    (isNvidiaDeviceRuntime(Texts.back().text()) ? DeviceRuntime : Inputs)
        .push_back({F.describe(*E), Texts.back().text()});
  }
  if (Inputs.empty())
    Inputs = std::move(DeviceRuntime);
  auto Linked = ir::linkModules(Inputs);
  if (!Linked)
    return makeError(ErrorKind::BadInput,
                     "'" + Name + "' is relocatable device code (-rdc) of " + Twine(Inputs.size()) +
                         " PTX modules, which do not link:\n" + toString(Linked.takeError()));
  return LinkedPtx{(Name + ": -rdc link of " + Twine(Inputs.size()) + " modules").str(),
                   std::move(*Linked)};
}

ModuleLoader::ModuleLoader(Device &D, LoaderOptions Options) : Dev(D), Opts(std::move(Options)) {}

LoaderStats ModuleLoader::stats() const {
  return {Opened.load(), Loaded.load(), Translations.load(), CacheHits.load(), CacheMisses.load()};
}

void ModuleLoader::log(LogLevel Level, const std::string &Line) {
  if (Opts.Log < Level)
    return;
  if (Opts.LogSink)
    Opts.LogSink(Line);
  else
    errs() << "ptx2amd: " << Line << "\n";
}

Expected<std::unique_ptr<LazyModule>> ModuleLoader::open(ArrayRef<uint8_t> Image, StringRef Name) {
  // The Fatbin owns its copy: the caller's bytes need not outlive the call.
  auto F = fatbin::Fatbin::parse(MemoryBuffer::getMemBufferCopy(toStringRef(Image), Name),
                                 {/*ScanWholeFile=*/true, Name.str()});
  if (!F)
    return F.takeError();
  return openSelected(*F, Name);
}

Expected<std::unique_ptr<LazyModule>> ModuleLoader::openWrapper(const void *Wrapper,
                                                                StringRef Name) {
  auto F = fatbin::Fatbin::fromWrapper(Wrapper, {/*ScanWholeFile=*/true, Name.str()});
  if (!F)
    return F.takeError();
  return openSelected(*F, Name);
}

Expected<std::unique_ptr<LazyModule>> ModuleLoader::openSelected(const fatbin::Fatbin &F,
                                                                 StringRef Name) {
  const fatbin::Entry *Chosen = nullptr;
  if (F.modules().empty()) {
    auto E = fatbin::selectPTX(F.entries(), Opts.Selection, Name);
    if (!E)
      return selectionFailure(E.takeError(), F, Opts.Selection);
    Chosen = *E;
  } else {
    // An executable also holds wrappers without PTX (the device link's): the one unit with PTX
    // is the module.
    std::optional<fatbin::ModuleSelection> Found;
    Error NoPtx = Error::success();
    unsigned WithPtx = 0;
    for (const fatbin::Module &U : F.modules()) {
      auto S = selectUnit(F, U, Opts.Selection);
      if (!S) {
        NoPtx = joinErrors(std::move(NoPtx), S.takeError());
        continue;
      }
      ++WithPtx;
      Found = std::move(*S);
    }
    if (!Found)
      return selectionFailure(std::move(NoPtx), F, Opts.Selection);
    consumeError(std::move(NoPtx));
    if (WithPtx > 1)
      return makeError(ErrorKind::BadInput,
                       "'" + Name + "' holds " + Twine(WithPtx) +
                           " registration units with PTX; open each one's fatbin wrapper");
    return openChosen(F, *Found, Name);
  }
  return openChosen(F, {{Chosen}, false}, Name);
}

Expected<std::vector<std::unique_ptr<LazyModule>>> ModuleLoader::openEach(ArrayRef<uint8_t> Image,
                                                                          StringRef Name) {
  auto F = fatbin::Fatbin::parse(MemoryBuffer::getMemBufferCopy(toStringRef(Image), Name),
                                 {/*ScanWholeFile=*/true, Name.str()});
  if (!F)
    return F.takeError();
  std::vector<std::unique_ptr<LazyModule>> Out;
  if (F->modules().empty()) {
    auto M = openSelected(*F, Name);
    if (!M)
      return M.takeError();
    Out.push_back(std::move(*M));
    return Out;
  }
  // As the runtime registers them: each wrapper the CUDA runtime registers, with PTX for the
  // device (the device link's wrappers have none).
  for (const fatbin::Module &U : F->modules()) {
    if (!U.Registered)
      continue;
    auto S = selectUnit(*F, U, Opts.Selection);
    if (!S) {
      consumeError(S.takeError());
      continue;
    }
    auto M = openChosen(*F, *S, Name);
    if (!M)
      return M.takeError();
    Out.push_back(std::move(*M));
  }
  return Out;
}

Expected<std::unique_ptr<LazyModule>> ModuleLoader::openChosen(const fatbin::Fatbin &F,
                                                               const fatbin::ModuleSelection &S,
                                                               StringRef Name) {
  if (S.NeedsLinking) {
    auto Linked = linkRdcUnit(F, S.PTX, Name);
    if (!Linked)
      return Linked.takeError();
    ++Opened;
    log(LogLevel::Debug, "opened '" + Linked->Name + "': " + Twine(Linked->Text.size()).str() +
                             " bytes of linked PTX");
    return std::unique_ptr<LazyModule>(
        new LazyModule(*this, std::move(Linked->Name), std::move(Linked->Text)));
  }
  const fatbin::Entry *Chosen = S.PTX.front();
  auto Text = F.ptx(*Chosen);
  if (!Text)
    return Text.takeError();
  std::string ModuleName =
      F.format() == fatbin::InputFormat::PTXText ? Name.str() : F.describe(*Chosen);
  ++Opened;
  log(LogLevel::Debug, "opened '" + ModuleName + "': PTX " + Chosen->archName() + ", " +
                           Twine(Text->size()).str() + " bytes");
  if (Opts.Selection.Kind == fatbin::SelectionPolicy::Mode::HighestArchAtMost &&
      Chosen->Arch > Opts.Selection.MaxArch)
    log(LogLevel::Info, "'" + ModuleName + "' has no PTX for sm_" +
                            Twine(Opts.Selection.MaxArch).str() + " or lower: taking " +
                            Chosen->archName() + "'s, which CUDA's driver would refuse");
  return std::unique_ptr<LazyModule>(new LazyModule(*this, ModuleName, Text->text().str()));
}

Error ModuleLoader::loadUnit(StringRef ModuleName, StringRef Kernel, StringRef Ptx,
                             LazyModule::Unit &M, ModuleImage::VariableAddresses Variables,
                             bool InGlobal, bool TranslateOnly) {
  // Logs name the kernel of a slice; diagnostics, on the module's lines, the module.
  const std::string Name =
      (Kernel.empty() ? ModuleName.str() : (ModuleName + " [" + Kernel + "]").str()) +
      (InGlobal ? " (dynamic shared memory in global memory)" : "");
  const DeviceProperties &P = Dev.properties();
  std::string Target(P.Target->Name);
  auto Start = std::chrono::steady_clock::now();
  ModuleImage Image{ModuleName.str(),     {},      Ptx, Opts.OptLevel, Opts.CodeObjectVersion,
                    std::move(Variables), InGlobal};

  // The host device translates PTX itself; what it caches is its compiled form of the module.
  const bool Host = P.Format == ModuleFormat::Ptx;
  CacheKeyFields Fields;
  Fields.Ptx = Ptx;
  Fields.Target = Target;
  Fields.OptLevel = Opts.OptLevel;
  Fields.CodeObjectVersion = Opts.CodeObjectVersion;
  Fields.Output = Host ? HostCompiledOutput : CodeObjectOutput;
  // Host code for one CPU may not run on another (a cache shared over NFS). Variables defined
  // at load are left undefined where a translation of the same text alone leaves kernels out.
  Fields.Options = P.CompiledFor + (Image.Variables.empty() ? "" : "\nexternal variables") +
                   (InGlobal ? "\ndynamic shared memory in global memory" : "");
  CacheKey Key = CacheKey::compute(Fields);
  std::string KeyNote = Opts.Log >= LogLevel::Debug ? " (key " + Key.hex() + ")" : std::string();

  std::optional<CodeObjectPayload> Payload;
  if (Opts.JitCache) {
    if (auto Hit = Opts.JitCache->lookup(Key)) {
      if (TranslateOnly) {
        ++CacheHits;
        M.FromCache = true;
        if (!Host) {
          if (auto Decoded = decodePayload(std::move(*Hit)))
            M.Unavailable = std::move(Decoded->Unavailable);
          else
            consumeError(Decoded.takeError());
        }
        log(LogLevel::Debug, formatv("cache hit for '{0}' ({1}){2}", Name, Target, KeyNote).str());
        return Error::success();
      }
      if (Host) {
        auto DM = loadHostCompiled(Dev, Name, *Hit, Image.Variables);
        if (DM) {
          ++CacheHits;
          ++Loaded;
          M.FromCache = true;
          M.DeviceModule = std::move(*DM);
          log(LogLevel::Info, formatv("cache hit for '{0}' ({1}){2}: loaded in {3:F1} ms", Name,
                                      Target, KeyNote, msSince(Start))
                                  .str());
          return Error::success();
        }
        log(LogLevel::Info,
            "cache entry for '" + Name + "' discarded: " + toString(DM.takeError()));
      } else if (auto Decoded = decodePayload(std::move(*Hit))) {
        Payload = std::move(*Decoded);
        ++CacheHits;
        M.FromCache = true;
        log(LogLevel::Info, formatv("cache hit for '{0}' ({1}){2}", Name, Target, KeyNote).str());
      } else {
        log(LogLevel::Info,
            "cache entry for '" + Name + "' discarded: " + toString(Decoded.takeError()));
      }
    }
    if (!Payload) {
      ++CacheMisses;
      log(LogLevel::Info, formatv("cache miss for '{0}' ({1}){2}", Name, Target, KeyNote).str());
    }
  }

  // The one line a user waiting on a first launch sees (not `ptx2amd aot`, which shows its own
  // progress).
  std::function<void(const std::string &)> Say;
  if (Opts.Log >= LogLevel::Info)
    Say = [this](const std::string &Line) { log(LogLevel::Info, Line); };
  else if (!TranslateOnly && isatty(STDERR_FILENO))
    Say = [](const std::string &Line) { errs() << "ptx2amd: " << Line << "\n"; };
  SlowTranslationNotice Notice(
      std::move(Say),
      formatv("translating '{0}' for {1}: each kernel once, at its first use, into the JIT cache "
              "('ptx2amd aot PROGRAM' translates ahead of time)",
              Name, Target)
          .str());

  if (Host) {
    auto DM = Dev.loadModule(Image);
    if (!DM)
      return DM.takeError();
    ++Translations;
    ++Loaded;
    log(LogLevel::Info, formatv("translated '{0}' for {1} on {2} in {3:F1} ms", Name, Target,
                                P.Name, msSince(Start))
                            .str());
    if (Opts.JitCache)
      if (Error E = Opts.JitCache->store(Key, hostCompiledForm(**DM)))
        log(LogLevel::Info, "cache store for '" + Name + "' failed: " + toString(std::move(E)));
    if (!TranslateOnly) {
      M.DeviceModule = std::move(*DM);
    } else if (auto K = (*DM)->kernel(Kernel); !K) {
      M.Unavailable[Kernel] = toString(K.takeError());
    }
    return Error::success();
  }

  if (!Payload) {
    pipeline::Options PO;
    PO.Target = P.Target;
    PO.Codegen = {Opts.OptLevel, Opts.CodeObjectVersion};
    PO.Codegen.ExternalVariables = !Image.Variables.empty();
    PO.Codegen.DynamicSharedInGlobal = InGlobal;
    pipeline::Translation T = pipeline::translate(SourceText::borrow(ModuleName.str(), Ptx), PO);
    ++Translations;
    if (!T.HasCodeObject)
      return withContext(T.moduleError(),
                         "module '" + Name + "' failed to translate for " + Target);
    std::vector<std::pair<std::string, std::string>> Kernels;
    unsigned Failed = 0;
    for (const pipeline::KernelResult &K : T.Kernels) {
      Kernels.emplace_back(T.function(K).Name, T.unavailableReason(K));
      Failed += !Kernels.back().second.empty();
    }
    log(LogLevel::Info, formatv("translated '{0}' for {1} in {2:F1} ms ({3} kernels, {4} "
                                "unavailable)",
                                Name, Target, msSince(Start), Kernels.size(), Failed)
                            .str());
    std::vector<uint8_t> Bytes = encodePayload(T.CodeObject, Kernels);
    if (Opts.JitCache)
      if (Error E = Opts.JitCache->store(Key, Bytes))
        // The translation is good: only the next process pays for the failed store.
        log(LogLevel::Info, "cache store for '" + Name + "' failed: " + toString(std::move(E)));
    Payload = cantFail(decodePayload(std::move(Bytes)));
    if (TranslateOnly) {
      M.Unavailable = std::move(Payload->Unavailable);
      return Error::success();
    }
  }

  Image.CodeObject = Payload->CodeObject;
  auto DM = Dev.loadModule(Image);
  if (!DM)
    return DM.takeError();
  ++Loaded;
  M.Unavailable = std::move(Payload->Unavailable);
  M.DeviceModule = std::move(*DM);
  return Error::success();
}

uint64_t ModuleLoader::heapBytes() const {
  std::lock_guard<std::mutex> Lock(HeapMutex);
  return HeapBytes;
}

Error ModuleLoader::setHeapBytes(uint64_t Bytes) {
  std::lock_guard<std::mutex> Lock(HeapMutex);
  if (Heap && Bytes != HeapBytes)
    return makeError(ErrorKind::BadInput, "the device heap is in use: its size is fixed");
  if (Bytes <= amdgpu::HeapHeaderSize)
    return makeError(ErrorKind::BadInput, formatv("a device heap of {0} bytes", Bytes).str());
  HeapBytes = Bytes;
  return Error::success();
}

Error ModuleLoader::attachHeap(Module &M) {
  auto G = M.global(amdgpu::HeapSymbol);
  if (!G) { // the module does not allocate
    consumeError(G.takeError());
    return Error::success();
  }
  std::lock_guard<std::mutex> Lock(HeapMutex);
  if (!Heap) {
    auto P = Dev.allocate(HeapBytes, MemoryKind::Device);
    if (!P)
      return makeError(ErrorKind::OutOfResources, "the device heap of " + Twine(HeapBytes) +
                                                      " bytes: " + toString(P.takeError()));
    const uint64_t Capacity = HeapBytes - amdgpu::HeapHeaderSize;
    if (Error E = Dev.copy(*P, &Capacity, sizeof Capacity, CopyKind::HostToDevice, nullptr))
      return E;
    Heap = *P;
  }
  if (Error E = Dev.copy(G->Address, &Heap, sizeof Heap, CopyKind::HostToDevice, nullptr))
    return E;
  return Dev.synchronize(nullptr);
}

Error LazyModule::Unit::error() const {
  if (Failure.empty())
    return Error::success();
  return makeError(FailureKind, Failure);
}

void LazyModule::Unit::settle(Error E) {
  Attempted = true;
  if (!E)
    return;
  ErrorReport R = takeError(std::move(E));
  Failure = std::move(R.Message);
  FailureKind = R.Kind;
}

Error LazyModule::load() {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (Attempted)
      return Outline ? loadData() : Whole.error();
    Attempted = true;
    if (Loader.options().PerKernel) {
      auto O = std::make_unique<grammar::ModuleOutline>(grammar::outlineModule(Ptx));
      if (O->unsliceable().empty() && !O->kernels().empty())
        Outline = std::move(O);
      else if (!O->unsliceable().empty())
        Loader.log(LogLevel::Debug, "'" + Name + "' is translated whole: " + O->unsliceable());
    }
    if (!Outline) {
      Error E = Loader.loadUnit(Name, "", Ptx, Whole);
      // What running kernels need, which translating alone does not.
      if (!E && !Loader.options().TranslateOnly)
        E = Loader.attachHeap(*Whole.DeviceModule);
      if (!E && !Loader.options().TranslateOnly)
        E = attachDeviceLaunches();
      Whole.settle(std::move(E));
      return Whole.error();
    }
  }
  // A module's variables are translated at once, as the whole module would be: one that is
  // malformed fails the module, not a later lookup of it.
  if (Error E = loadData())
    return E;
  // CUDA_MODULE_LOADING=EAGER: every kernel now, independent ones on all cores. A kernel that
  // fails is that kernel's failure, as at its own lookup.
  if (Loader.options().Eager) {
    llvm::DefaultThreadPool Pool(llvm::hardware_concurrency());
    for (const std::string &K : Outline->kernels())
      Pool.async([this, &K] { kernelUnit(K); });
    Pool.wait();
  }
  return Error::success();
}

Error LazyModule::loadData() {
  if (!Outline->hasVariables())
    return Error::success();
  std::lock_guard<std::mutex> Lock(Data.Mutex);
  if (!Data.Attempted)
    Data.settle(Loader.loadUnit(Name, "variables", Outline->dataSlice(), Data));
  return Data.error();
}

LazyModule::Unit &LazyModule::kernelUnit(StringRef KernelName, bool InGlobal) {
  Unit *U;
  {
    // StringMap entries stay where they are as the map grows.
    std::lock_guard<std::mutex> Lock(Mutex);
    U = &(InGlobal ? InGlobalKernels : Kernels)[KernelName];
  }
  std::lock_guard<std::mutex> Lock(U->Mutex);
  if (!U->Attempted) {
    std::string Slice = Outline->slice(KernelName);
    auto Load = [&]() -> Error {
      // The variables it names are the data slice's, which load() translated first.
      ModuleImage::VariableAddresses Variables;
      for (const std::string &V : Outline->variablesOf(KernelName)) {
        if (!Data.DeviceModule)
          return makeError(ErrorKind::Internal, "the variables of '" + Name + "' are not loaded");
        auto G = Data.DeviceModule->global(V);
        if (!G)
          return withContext(G.takeError(), "variable '" + V + "' of '" + Name + "'");
        Variables.emplace_back(V, *G);
      }
      return Loader.loadUnit(Name, KernelName, Slice, *U, std::move(Variables), InGlobal,
                             Loader.options().TranslateOnly && !InGlobal);
    };
    Error E = Load();
    if (!E && U->DeviceModule)
      E = Loader.attachHeap(*U->DeviceModule);
    U->settle(std::move(E));
  }
  return *U;
}

Error LazyModule::usable(const Unit &U, StringRef KernelName) const {
  if (Error E = U.error())
    return withContext(std::move(E), "kernel '" + KernelName + "'");
  if (auto It = U.Unavailable.find(KernelName); It != U.Unavailable.end())
    return makeError(ErrorKind::Unsupported, "kernel '" + KernelName + "' of '" + Name +
                                                 "' cannot be loaded: " + It->second);
  return Error::success();
}

Expected<const Kernel &> LazyModule::kernelOf(Unit &U, StringRef KernelName) {
  if (Error E = usable(U, KernelName))
    return E;
  return U.DeviceModule->kernel(KernelName);
}

Expected<LazyModule::Unit &> LazyModule::unitOf(StringRef KernelName) {
  if (Error E = load())
    return withContext(std::move(E), "kernel '" + KernelName + "'");
  if (!Outline)
    return Whole;
  if (!llvm::is_contained(Outline->kernels(), KernelName))
    return makeError(ErrorKind::BadInput, "no kernel '" + KernelName + "' in '" + Name + "'");
  return kernelUnit(KernelName);
}

Expected<const Kernel &> LazyModule::kernel(StringRef KernelName) {
  auto U = unitOf(KernelName);
  if (!U)
    return U.takeError();
  return kernelOf(*U, KernelName);
}

Expected<bool> LazyModule::precompile(StringRef KernelName) {
  auto U = unitOf(KernelName);
  if (!U)
    return U.takeError();
  if (Error E = usable(*U, KernelName))
    return E;
  // A loaded module (a whole one) knows its kernels that cannot run.
  if (U->DeviceModule)
    if (auto K = U->DeviceModule->kernel(KernelName); !K)
      return K.takeError();
  return !U->FromCache;
}

std::vector<std::string> LazyModule::kernelNames() {
  if (Error E = load()) {
    consumeError(std::move(E));
    return {};
  }
  std::vector<std::string> Names;
  if (Outline) {
    Names = Outline->kernels();
  } else {
    Names = Whole.DeviceModule->kernelNames();
    for (const auto &U : Whole.Unavailable)
      if (!llvm::is_contained(Names, U.getKey()))
        Names.push_back(U.getKey().str());
  }
  std::sort(Names.begin(), Names.end());
  return Names;
}

bool LazyModule::hasKernel(StringRef KernelName) {
  if (Error E = load()) {
    consumeError(std::move(E));
    return false;
  }
  if (Outline)
    return llvm::is_contained(Outline->kernels(), KernelName);
  return Whole.Unavailable.count(KernelName) || Whole.DeviceModule->declaresKernel(KernelName);
}

Expected<GlobalSymbol> LazyModule::global(StringRef VarName) {
  if (Error E = load())
    return withContext(std::move(E), "variable '" + VarName + "'");
  if (!Outline)
    return Whole.DeviceModule->global(VarName);
  // A module translated per kernel has its variables in the data slice
  // (grammar::ModuleOutline::dataSlice), which load() translated.
  if (!Outline->hasVariables())
    return makeError(ErrorKind::BadInput, "no variable '" + VarName + "' in '" + Name + "'");
  return Data.DeviceModule->global(VarName);
}

} // namespace ptx2amd::loader
