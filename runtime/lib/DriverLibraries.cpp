//===- DriverLibraries.cpp - the driver API: libraries and their kernels ===//
//
// A CUlibrary is a module that belongs to no context (CUDA's libraries are context-independent,
// and there is one device context): the same FatbinRecord a CUmodule is, so cuLibraryGetModule
// hands out the library itself. A CUkernel is its KernelRecord, the very handle
// cuKernelGetFunction returns as a CUfunction, which cuLaunchKernel also accepts. The static
// runtime registers every fatbin of a program this way.

#include "Driver.h"

#include "ptx2amd/fatbin/Fatbin.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstring>

using namespace llvm;
using namespace ptx2amd;
using namespace ptx2amd::runtime;

namespace {

/// Opens \p Image as a library: a __fatBinC_Wrapper_t, or what cuModuleLoadData takes.
cudaError_t openLibrary(CUlibrary *Out, const void *Image, ArrayRef<uint8_t> Bytes,
                        const std::string &Name) {
  Context *C = nullptr;
  if (cudaError_t E = context(C))
    return E;
  uint32_t Magic = 0;
  std::memcpy(&Magic, Image, sizeof Magic);
  FatbinRecord *F = nullptr;
  if (cudaError_t E =
          registerModule(Magic == fatbin::WrapperMagic ? C->Loader.openWrapper(Image, Name)
                                                       : C->Loader.open(Bytes, Name),
                         Name, /*Owner=*/nullptr, F, /*ErrorLog=*/nullptr, Image))
    return E;
  {
    DriverState &S = driverState();
    std::lock_guard<std::mutex> Lock(S.Mutex);
    S.Libraries.insert(F);
  }
  *Out = reinterpret_cast<CUlibrary>(F);
  return cudaSuccess;
}

cudaError_t libraryOf(CUlibrary L, FatbinRecord *&Out) {
  auto *F = reinterpret_cast<FatbinRecord *>(L);
  DriverState &S = driverState();
  {
    std::lock_guard<std::mutex> Lock(S.Mutex);
    if (!S.Libraries.count(F))
      return fail(cudaErrorInvalidResourceHandle, formatv("no library {0}", (const void *)L).str());
  }
  Out = F;
  return cudaSuccess;
}

/// Library options and JIT options change nothing here: translation happens at first use, and
/// the code is kept until the library is unloaded. What is wrong with them, or "".
std::string invalidOptions(unsigned NumJit, void *JitOptions, void *JitValues, unsigned NumLibrary,
                           void *LibraryOptions, void *LibraryValues) {
  if (NumJit && (!JitOptions || !JitValues))
    return formatv("{0} JIT options without {1}", NumJit, JitOptions ? "values" : "options").str();
  if (NumLibrary && !LibraryOptions)
    return formatv("{0} library options without options", NumLibrary).str();
  // CU_LIBRARY_BINARY_IS_PRESERVED says all by being there: cuBLASLt passes it without values.
  constexpr unsigned HostTable = 0, BinaryIsPreserved = 1;
  for (unsigned I = 0; I < NumLibrary; ++I) {
    unsigned Option = static_cast<const unsigned *>(LibraryOptions)[I];
    if (Option != HostTable && Option != BinaryIsPreserved)
      return formatv("unknown library option {0}", Option).str();
    if (Option == HostTable && !LibraryValues)
      return "library options without values";
  }
  return "";
}

} // namespace

namespace ptx2amd::runtime {

cudaError_t loadLibrary(CUlibrary *Library, const void *Code, unsigned NumJitOptions,
                        void *JitOptions, void *JitValues, unsigned NumLibraryOptions,
                        void *LibraryOptions, void *LibraryValues) {
  if (!Library || !Code)
    return fail(cudaErrorInvalidValue);
  std::string Invalid = invalidOptions(NumJitOptions, JitOptions, JitValues, NumLibraryOptions,
                                       LibraryOptions, LibraryValues);
  if (!Invalid.empty())
    return fail(cudaErrorInvalidValue, Invalid);
  uint32_t Magic = 0;
  std::memcpy(&Magic, Code, sizeof Magic);
  ArrayRef<uint8_t> Bytes = Magic == fatbin::WrapperMagic ? ArrayRef<uint8_t>() : imageBytes(Code);
  return openLibrary(Library, Code, Bytes,
                     Magic == fatbin::WrapperMagic
                         ? std::string("registered fatbin")
                         : formatv("in-memory image of {0} bytes", Bytes.size()).str());
}

cudaError_t loadLibraryFromFile(CUlibrary *Library, const char *Path, unsigned NumJitOptions,
                                void *JitOptions, void *JitValues, unsigned NumLibraryOptions,
                                void *LibraryOptions, void *LibraryValues) {
  if (!Library || !Path)
    return fail(cudaErrorInvalidValue);
  std::string Invalid = invalidOptions(NumJitOptions, JitOptions, JitValues, NumLibraryOptions,
                                       LibraryOptions, LibraryValues);
  if (!Invalid.empty())
    return fail(cudaErrorInvalidValue, Invalid);
  auto Buffer = MemoryBuffer::getFile(Path, /*IsText=*/false, /*RequiresNullTerminator=*/true);
  if (!Buffer)
    return fail(cudaErrorFileNotFound,
                formatv("{0}: {1}", Path, Buffer.getError().message()).str());
  auto Bytes = ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>((*Buffer)->getBufferStart()),
                                 (*Buffer)->getBufferSize());
  // The loader copies what it keeps: the buffer may go.
  return openLibrary(Library, Bytes.data(), Bytes, Path);
}

cudaError_t unloadLibrary(CUlibrary Library) {
  FatbinRecord *F = nullptr;
  if (cudaError_t E = libraryOf(Library, F))
    return E;
  {
    DriverState &S = driverState();
    std::lock_guard<std::mutex> Lock(S.Mutex);
    S.Libraries.erase(F);
  }
  return unloadModules({F});
}

cudaError_t libraryKernel(CUkernel *Kernel, CUlibrary Library, const char *Name) {
  if (!Kernel || !Name)
    return fail(cudaErrorInvalidValue);
  FatbinRecord *F = nullptr;
  if (cudaError_t E = libraryOf(Library, F))
    return E;
  KernelRecord *K = nullptr;
  if (cudaError_t E = functionIn(*F, Name, K))
    return E;
  *Kernel = reinterpret_cast<CUkernel>(K);
  return cudaSuccess;
}

cudaError_t libraryGlobal(CUdeviceptr *Address, size_t *Bytes, CUlibrary Library,
                          const char *Name) {
  if (!Name || (!Address && !Bytes))
    return fail(cudaErrorInvalidValue);
  FatbinRecord *F = nullptr;
  if (cudaError_t E = libraryOf(Library, F))
    return E;
  return globalIn(*F, Name, Address, Bytes);
}

cudaError_t libraryKernels(CUkernel *Kernels, unsigned *Count, CUlibrary Library) {
  FatbinRecord *F = nullptr;
  if (cudaError_t E = libraryOf(Library, F))
    return E;
  if (Error E = F->Module->load())
    return failByKind(std::move(E), cudaErrorInvalidPtx);
  std::vector<std::string> Names = F->Module->kernelNames();
  if (!Kernels) { // the count
    if (!Count)
      return fail(cudaErrorInvalidValue);
    *Count = unsigned(Names.size());
    return cudaSuccess;
  }
  if (!Count)
    return fail(cudaErrorInvalidValue);
  unsigned N = std::min<unsigned>(*Count, unsigned(Names.size()));
  for (unsigned I = 0; I < N; ++I)
    if (cudaError_t E = libraryKernel(&Kernels[I], Library, Names[I].c_str()))
      return E;
  return cudaSuccess;
}

cudaError_t kernelParamInfo(KernelRecord *K, size_t Index, size_t *Offset, size_t *Size) {
  if (!K)
    return fail(cudaErrorInvalidDeviceFunction);
  if (!Offset && !Size)
    return fail(cudaErrorInvalidValue);
  Context *C = nullptr;
  const loader::Kernel *DK = nullptr;
  if (cudaError_t E = contextAndKernel(*K, C, DK))
    return E;
  // The explicit parameters, in order, at their offsets in CUDA's parameter buffer (which the
  // kernarg segment keeps).
  size_t I = 0;
  for (const amdgpu::KernelArgMetadata &A : DK->metadata().Args) {
    if (A.isHidden())
      continue;
    if (I++ != Index)
      continue;
    if (Offset)
      *Offset = A.Offset;
    if (Size)
      *Size = A.Size;
    return cudaSuccess;
  }
  return fail(cudaErrorInvalidValue,
              formatv("kernel '{0}' has {1} parameters, not {2}", K->Name, I, Index + 1).str());
}

} // namespace ptx2amd::runtime

extern "C" {

CUresult cuLibraryLoadData(CUlibrary *Library, const void *Code, CUjit_option *JitOptions,
                           void **JitValues, unsigned NumJitOptions, void *LibraryOptions,
                           void **LibraryValues, unsigned NumLibraryOptions) {
  return driverCall([&] {
    return loadLibrary(Library, Code, NumJitOptions, JitOptions, JitValues, NumLibraryOptions,
                       LibraryOptions, LibraryValues);
  });
}

CUresult cuLibraryLoadFromFile(CUlibrary *Library, const char *Path, CUjit_option *JitOptions,
                               void **JitValues, unsigned NumJitOptions, void *LibraryOptions,
                               void **LibraryValues, unsigned NumLibraryOptions) {
  return driverCall([&] {
    return loadLibraryFromFile(Library, Path, NumJitOptions, JitOptions, JitValues,
                               NumLibraryOptions, LibraryOptions, LibraryValues);
  });
}

CUresult cuLibraryUnload(CUlibrary Library) {
  return driverCall([&] { return unloadLibrary(Library); });
}

CUresult cuLibraryEnumerateKernels(CUkernel *Kernels, unsigned Count, CUlibrary Library) {
  return driverCall([&] {
    if (!Kernels)
      return fail(cudaErrorInvalidValue);
    return libraryKernels(Kernels, &Count, Library);
  });
}

CUresult cuLibraryGetKernelCount(unsigned *Count, CUlibrary Library) {
  return driverCall([&] { return libraryKernels(nullptr, Count, Library); });
}

CUresult cuFuncGetParamInfo(CUfunction Function, size_t Index, size_t *Offset, size_t *Size) {
  return driverCall([&] {
    KernelRecord *K = nullptr;
    if (cudaError_t E = functionOf(Function, K))
      return E;
    return kernelParamInfo(K, Index, Offset, Size);
  });
}

CUresult cuKernelGetParamInfo(CUkernel Kernel, size_t Index, size_t *Offset, size_t *Size) {
  return cuFuncGetParamInfo(reinterpret_cast<CUfunction>(Kernel), Index, Offset, Size);
}

CUresult cuLibraryGetModule(CUmodule *Module, CUlibrary Library) {
  return driverCall([&] {
    if (!Module)
      return fail(cudaErrorInvalidValue);
    FatbinRecord *F = nullptr;
    if (cudaError_t E = libraryOf(Library, F))
      return E;
    *Module = reinterpret_cast<CUmodule>(F);
    return cudaSuccess;
  });
}

CUresult cuLibraryGetKernel(CUkernel *Kernel, CUlibrary Library, const char *Name) {
  return driverCall([&] { return libraryKernel(Kernel, Library, Name); });
}

CUresult cuLibraryGetGlobal(CUdeviceptr *Address, size_t *Bytes, CUlibrary Library,
                            const char *Name) {
  return driverCall([&] { return libraryGlobal(Address, Bytes, Library, Name); });
}

// Managed variables are ordinary device variables here: the device's memory is the host's, or
// HSA's coarse-grained memory is reached by both.
CUresult cuLibraryGetManaged(CUdeviceptr *Address, size_t *Bytes, CUlibrary Library,
                             const char *Name) {
  return cuLibraryGetGlobal(Address, Bytes, Library, Name);
}

CUresult cuKernelGetFunction(CUfunction *Function, CUkernel Kernel) {
  return driverCall([&] {
    if (!Function)
      return fail(cudaErrorInvalidValue);
    KernelRecord *K = nullptr;
    if (cudaError_t E = functionOf(reinterpret_cast<CUfunction>(Kernel), K))
      return E;
    *Function = reinterpret_cast<CUfunction>(K);
    return cudaSuccess;
  });
}

CUresult cuKernelGetLibrary(CUlibrary *Library, CUkernel Kernel) {
  return driverCall([&] {
    if (!Library)
      return fail(cudaErrorInvalidValue);
    KernelRecord *K = nullptr;
    if (cudaError_t E = functionOf(reinterpret_cast<CUfunction>(Kernel), K))
      return E;
    DriverState &S = driverState();
    std::lock_guard<std::mutex> Lock(S.Mutex);
    if (!S.Libraries.count(K->Fatbin))
      return fail(cudaErrorInvalidResourceHandle, "the kernel is of a module, not a library");
    *Library = reinterpret_cast<CUlibrary>(K->Fatbin);
    return cudaSuccess;
  });
}

// One device: a kernel's attributes are its function's.
CUresult cuKernelGetAttribute(int *Value, CUfunction_attribute Attribute, CUkernel Kernel,
                              CUdevice Device) {
  if (Device != 0)
    return driverCall([] { return fail(cudaErrorInvalidDevice); });
  return cuFuncGetAttribute(Value, Attribute, reinterpret_cast<CUfunction>(Kernel));
}

CUresult cuKernelSetAttribute(CUfunction_attribute Attribute, int Value, CUkernel Kernel,
                              CUdevice Device) {
  if (Device != 0)
    return driverCall([] { return fail(cudaErrorInvalidDevice); });
  return cuFuncSetAttribute(reinterpret_cast<CUfunction>(Kernel), Attribute, Value);
}

CUresult cuKernelSetCacheConfig(CUkernel Kernel, int Config, CUdevice Device) {
  if (Device != 0)
    return driverCall([] { return fail(cudaErrorInvalidDevice); });
  return cuFuncSetCacheConfig(reinterpret_cast<CUfunction>(Kernel), Config);
}

CUresult cuKernelGetName(const char **Name, CUkernel Kernel) {
  return cuFuncGetName(Name, reinterpret_cast<CUfunction>(Kernel));
}

} // extern "C"
