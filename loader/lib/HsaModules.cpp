//===- HsaModules.cpp - the HSA device's code objects: loading, kernels, variables ===//
//
// A code object is loaded through hsa_code_object_reader and hsa_executable; a kernel is looked
// up by its descriptor's symbol and checked against the metadata note that launches use.

#include "HsaObjects.h"

#include "ptx2amd/amdgpu-backend/DeviceOutput.h"

#include <cstring>
#include <mutex>

using namespace llvm;

namespace ptx2amd::loader::hsa {
namespace {

template <typename T> T symbolInfo(hsa_executable_symbol_t S, hsa_executable_symbol_info_t Attr) {
  T V{};
  hsa_executable_symbol_get_info(S, Attr, &V);
  return V;
}

} // namespace

Expected<std::unique_ptr<Module>> HsaDevice::loadModule(const ModuleImage &Image) {
  ArrayRef<uint8_t> CodeObject = Image.CodeObject;
  if (CodeObject.empty())
    return fail(ErrorKind::BadInput, "module '" + Image.Name + "' has no code object to load");
  auto Meta = amdgpu::readCodeObjectMetadata(CodeObject);
  if (!Meta)
    return Meta.takeError();
  if (Meta->elfMach() != Props.Target->ElfMach)
    return fail(ErrorKind::Unsupported,
                "code object for '" + Meta->TargetId + "' on a device of '" + Props.IsaName + "'");
  auto M = std::make_unique<HsaModule>(*this);
  M->Bytes.assign(CodeObject.begin(), CodeObject.end());
  M->Meta = std::move(*Meta);
  PTX2AMD_HSA_CHECK(
      hsa_code_object_reader_create_from_memory(M->Bytes.data(), M->Bytes.size(), &M->Reader));
  PTX2AMD_HSA_CHECK(hsa_executable_create_alt(Profile, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT,
                                              nullptr, &M->Executable));
  // Variables another module defines: the loader resolves the code object's references to them.
  for (const auto &[Name, Symbol] : Image.Variables)
    PTX2AMD_HSA_CHECK(hsa_executable_agent_global_variable_define(M->Executable, Gpu, Name.c_str(),
                                                                  Symbol.Address));
  PTX2AMD_HSA_CHECK(
      hsa_executable_load_agent_code_object(M->Executable, Gpu, M->Reader, nullptr, nullptr));
  PTX2AMD_HSA_CHECK(hsa_executable_freeze(M->Executable, nullptr));
  // Kernels that call printf or assert write records to the buffer the variable points to.
  if (auto G = M->global(amdgpu::OutputBufferSymbol)) {
    auto Data = poolAllocate(Mem.Host, OutputBufferBytes, /*Zero=*/true);
    if (!Data)
      return Data.takeError();
    M->Output = std::make_shared<OutputBuffer>();
    M->Output->Module = Image.Name;
    M->Output->Data = static_cast<uint8_t *>(*Data);
    uint32_t Capacity = OutputBufferBytes - amdgpu::OutputHeaderSize;
    std::memcpy(M->Output->Data, &Capacity, sizeof Capacity);
    void *Address = M->Output->Data;
    if (Error E = copy(G->Address, &Address, sizeof Address, CopyKind::HostToDevice, nullptr))
      return E;
    if (Error E = synchronize(nullptr))
      return E;
  } else {
    consumeError(G.takeError());
  }
  return M;
}

HsaModule::~HsaModule() {
  if (Executable.handle)
    hsa_executable_destroy(Executable);
  if (Reader.handle)
    hsa_code_object_reader_destroy(Reader);
}

Expected<const Kernel &> HsaModule::kernel(StringRef Name) {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (auto It = Kernels.find(Name); It != Kernels.end())
    return *It->second;
  const amdgpu::KernelMetadata *Meta = this->Meta.findKernel(Name);
  if (!Meta)
    return fail(ErrorKind::BadInput, "no kernel '" + Name + "' in the code object");
  std::string Symbol = Meta->Symbol.empty() ? (Name + ".kd").str() : Meta->Symbol;
  hsa_executable_symbol_t Sym;
  if (hsa_status_t S =
          hsa_executable_get_symbol_by_name(Executable, Symbol.c_str(), &Dev.Gpu, &Sym);
      S != HSA_STATUS_SUCCESS)
    return hsaError(S, "looking up kernel symbol '" + Symbol + "'");
  auto K = std::make_unique<HsaKernel>();
  K->Meta = *Meta;
  K->Output = Output;
  K->Object = symbolInfo<uint64_t>(Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT);
  // The runtime reads the kernel descriptor, we read the metadata note: the launch uses the
  // metadata, so both must agree.
  uint32_t Kernarg =
      symbolInfo<uint32_t>(Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE);
  uint32_t Group = symbolInfo<uint32_t>(Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE);
  uint32_t Private =
      symbolInfo<uint32_t>(Sym, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE);
  if (Kernarg != Meta->KernargSegmentSize || Group != Meta->GroupSegmentFixedSize ||
      Private != Meta->PrivateSegmentFixedSize)
    return fail(ErrorKind::Internal,
                "kernel '" + Name + "': the runtime reports kernarg/group/private sizes " +
                    Twine(Kernarg) + "/" + Twine(Group) + "/" + Twine(Private) + ", its metadata " +
                    Twine(Meta->KernargSegmentSize) + "/" + Twine(Meta->GroupSegmentFixedSize) +
                    "/" + Twine(Meta->PrivateSegmentFixedSize));
  return *Kernels.emplace(Name.str(), std::move(K)).first->second;
}

Expected<GlobalSymbol> HsaModule::global(StringRef Name) {
  hsa_executable_symbol_t Sym;
  std::string N = Name.str();
  if (hsa_status_t S = hsa_executable_get_symbol_by_name(Executable, N.c_str(), &Dev.Gpu, &Sym);
      S != HSA_STATUS_SUCCESS)
    return hsaError(S, "looking up variable '" + Name + "'");
  if (symbolInfo<hsa_symbol_kind_t>(Sym, HSA_EXECUTABLE_SYMBOL_INFO_TYPE) !=
      HSA_SYMBOL_KIND_VARIABLE)
    return fail(ErrorKind::BadInput, "'" + Name + "' is not a variable");
  return GlobalSymbol{reinterpret_cast<void *>(
                          symbolInfo<uint64_t>(Sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_ADDRESS)),
                      symbolInfo<uint32_t>(Sym, HSA_EXECUTABLE_SYMBOL_INFO_VARIABLE_SIZE)};
}

} // namespace ptx2amd::loader::hsa
