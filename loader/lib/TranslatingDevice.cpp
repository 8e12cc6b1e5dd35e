//===- TranslatingDevice.cpp - a device of one target that only translates ===//
//
// `ptx2amd aot` fills a cache with code objects for targets whose GPU the machine may not have.
// This device has the target and the format of a GPU's (ModuleFormat::CodeObject), so that the
// loader translates and keys exactly as on that GPU, and nothing else: a "loaded" module is its
// code object's metadata and symbol table, and memory, streams, events and launches are errors.
//
//===----------------------------------------------------------------------===//

#include "ptx2amd/loader/Device.h"
#include "ptx2amd/support/Error.h"

#include "ptx2amd/amdgpu-backend/KernelMetadata.h"
#include "ptx2amd/amdgpu-backend/Target.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Object/ELFObjectFile.h"

using namespace llvm;

namespace ptx2amd::loader {
namespace {

Error onlyTranslates(const Twine &What) {
  return makeError(ErrorKind::Unsupported,
                   What + ": this device only translates (ptx2amd aot), it runs nothing");
}

class MetadataKernel final : public Kernel {
public:
  explicit MetadataKernel(amdgpu::KernelMetadata M) : Meta(std::move(M)) {}
  const amdgpu::KernelMetadata &metadata() const override { return Meta; }

private:
  amdgpu::KernelMetadata Meta;
};

/// A code object as far as the loader looks at it: kernels and module variables by name.
class MetadataModule final : public Module {
public:
  Expected<const Kernel &> kernel(StringRef Name) override {
    auto It = Kernels.find(Name);
    if (It == Kernels.end())
      return makeError(ErrorKind::BadInput, "no kernel '" + Name + "' in the code object");
    return *It->second;
  }
  /// The variable's offset in the code object stands for its address: nothing is in memory.
  Expected<GlobalSymbol> global(StringRef Name) override {
    auto It = Globals.find(Name);
    if (It == Globals.end())
      return makeError(ErrorKind::BadInput, "no variable '" + Name + "' in the code object");
    return It->second;
  }
  std::vector<std::string> kernelNames() override {
    std::vector<std::string> Names;
    for (const auto &K : Kernels)
      Names.push_back(K.getKey().str());
    return Names;
  }

  StringMap<std::unique_ptr<MetadataKernel>> Kernels;
  StringMap<GlobalSymbol> Globals;
};

class TranslatingDevice final : public Device {
public:
  explicit TranslatingDevice(const amdgpu::Target &T) {
    Props.Name = "ptx2amd " + std::string(T.Name) + " code objects (translation only)";
    Props.Target = &T;
    Props.WaveSize = T.WaveSize;
    Props.LdsBytesPerWorkgroup = T.LdsBytesPerWorkgroup;
    Props.Format = ModuleFormat::CodeObject;
  }
  const DeviceProperties &properties() const override { return Props; }

  Expected<std::unique_ptr<Module>> loadModule(const ModuleImage &Image) override {
    auto Meta = amdgpu::readCodeObjectMetadata(Image.CodeObject);
    if (!Meta)
      return Meta.takeError();
    auto M = std::make_unique<MetadataModule>();
    for (amdgpu::KernelMetadata &K : Meta->Kernels) {
      std::string Name = K.Name;
      M->Kernels[Name] = std::make_unique<MetadataKernel>(std::move(K));
    }
    auto Elf = object::ObjectFile::createELFObjectFile(
        MemoryBufferRef(toStringRef(Image.CodeObject), Image.Name));
    if (!Elf)
      return Elf.takeError();
    for (const object::ELFSymbolRef &S : cast<object::ELFObjectFileBase>(**Elf).symbols()) {
      auto Name = S.getName();
      auto Address = S.getAddress();
      if (!Name || !Address) {
        consumeError(Name.takeError());
        consumeError(Address.takeError());
        continue;
      }
      if (S.getELFType() == ELF::STT_OBJECT)
        M->Globals[*Name] = {reinterpret_cast<void *>(uintptr_t(*Address)), S.getSize()};
    }
    return M;
  }

  Expected<void *> allocate(size_t, MemoryKind) override { return onlyTranslates("allocate"); }
  Error release(void *) override { return onlyTranslates("release"); }
  Error registerHostMemory(void *, size_t) override { return onlyTranslates("host memory"); }
  Error unregisterHostMemory(void *) override { return onlyTranslates("host memory"); }
  Error copy(void *, const void *, size_t, CopyKind, Stream *) override {
    return onlyTranslates("copy");
  }
  Error memset(void *, uint8_t, size_t, Stream *) override { return onlyTranslates("memset"); }
  Error launch(const Kernel &K, const amdgpu::LaunchGeometry &, void **, Stream *,
               const LaunchOptions &) override {
    return onlyTranslates("launch of '" + K.metadata().Name + "'");
  }
  Expected<std::unique_ptr<Stream>> createStream() override { return onlyTranslates("stream"); }
  Error synchronize(Stream *) override { return Error::success(); }
  Expected<std::unique_ptr<Event>> createEvent() override { return onlyTranslates("event"); }
  Error record(Event &, Stream *) override { return onlyTranslates("event"); }
  Error synchronize(Event &) override { return Error::success(); }
  Expected<bool> isComplete(Event &) override { return true; }
  Expected<float> elapsedMs(Event &, Event &) override { return onlyTranslates("event"); }

private:
  DeviceProperties Props;
};

} // namespace

std::unique_ptr<Device> createTranslatingDevice(const amdgpu::Target &T) {
  return std::make_unique<TranslatingDevice>(T);
}

} // namespace ptx2amd::loader
