//===- Libraries.cpp - the runtime API's libraries and their kernels ===//
//
// cudaLibrary_t is the driver's CUlibrary and cudaKernel_t its CUkernel (DriverLibraries.cpp);
// a cudaKernel_t is launched and queried as any kernel (findKernel takes it).

#include "Driver.h"
#include "Runtime.h"

using namespace ptx2amd;
using namespace ptx2amd::runtime;

extern "C" {

cudaError_t cudaLibraryLoadData(CUlibrary *Library, const void *Code, void *JitOptions,
                                void **JitValues, unsigned NumJitOptions, void *LibraryOptions,
                                void **LibraryValues, unsigned NumLibraryOptions) {
  return guarded([&] {
    return loadLibrary(Library, Code, NumJitOptions, JitOptions, JitValues, NumLibraryOptions,
                       LibraryOptions, LibraryValues);
  });
}

cudaError_t cudaLibraryLoadFromFile(CUlibrary *Library, const char *Path, void *JitOptions,
                                    void **JitValues, unsigned NumJitOptions, void *LibraryOptions,
                                    void **LibraryValues, unsigned NumLibraryOptions) {
  return guarded([&] {
    return loadLibraryFromFile(Library, Path, NumJitOptions, JitOptions, JitValues,
                               NumLibraryOptions, LibraryOptions, LibraryValues);
  });
}

cudaError_t cudaLibraryUnload(CUlibrary Library) {
  return guarded([&] { return unloadLibrary(Library); });
}

cudaError_t cudaLibraryGetKernel(CUkernel *Kernel, CUlibrary Library, const char *Name) {
  return guarded([&] { return libraryKernel(Kernel, Library, Name); });
}

cudaError_t cudaLibraryGetGlobal(void **Address, size_t *Bytes, CUlibrary Library,
                                 const char *Name) {
  return guarded([&] {
    CUdeviceptr P = 0;
    if (cudaError_t E = libraryGlobal(Address ? &P : nullptr, Bytes, Library, Name))
      return E;
    if (Address)
      *Address = reinterpret_cast<void *>(uintptr_t(P));
    return cudaSuccess;
  });
}

// Managed variables are ordinary device variables here (cuLibraryGetManaged).
cudaError_t cudaLibraryGetManaged(void **Address, size_t *Bytes, CUlibrary Library,
                                  const char *Name) {
  return cudaLibraryGetGlobal(Address, Bytes, Library, Name);
}

cudaError_t cudaLibraryGetKernelCount(unsigned *Count, CUlibrary Library) {
  return guarded([&] { return libraryKernels(nullptr, Count, Library); });
}

cudaError_t cudaLibraryEnumerateKernels(CUkernel *Kernels, unsigned Count, CUlibrary Library) {
  return guarded([&] {
    if (!Kernels)
      return fail(cudaErrorInvalidValue);
    return libraryKernels(Kernels, &Count, Library);
  });
}

cudaError_t cudaKernelSetAttributeForDevice(CUkernel Kernel, cudaFuncAttribute Attr, int Value,
                                            int Device) {
  return guarded([&] {
    if (cudaError_t E = checkDevice(Device))
      return E;
    KernelRecord *K = nullptr;
    if (cudaError_t E = functionOf(reinterpret_cast<CUfunction>(Kernel), K))
      return E;
    return setFunctionAttribute(*K, int(Attr), Value);
  });
}

cudaError_t cudaFuncGetParamInfo(const void *Func, size_t Index, size_t *Offset, size_t *Size) {
  return guarded([&] { return kernelParamInfo(findKernel(Func), Index, Offset, Size); });
}

} // extern "C"
