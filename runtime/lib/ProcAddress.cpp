//===- ProcAddress.cpp - cuGetProcAddress: the driver's functions by name ===//
//
// Programs and libraries (the static runtime, NVRTC users, frameworks) find driver functions by
// their base name ("cuMemAlloc"); the answer is the newest variant this library has
// (cuMemAlloc_v2), whichever CUDA version or stream flavour is asked for: each variant here
// behaves as the newest does.

#include "Driver.h"

#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <iterator>

namespace {

struct ProcEntry {
  llvm::StringLiteral Name;
  void *Fn;
};

// Sorted by name.
const ProcEntry Procs[] = {
    {"cuCtxCreate", reinterpret_cast<void *>(&cuCtxCreate_v4)},
    {"cuCtxDestroy", reinterpret_cast<void *>(&cuCtxDestroy_v2)},
    {"cuCtxGetApiVersion", reinterpret_cast<void *>(&cuCtxGetApiVersion)},
    {"cuCtxGetCurrent", reinterpret_cast<void *>(&cuCtxGetCurrent)},
    {"cuCtxGetDevice", reinterpret_cast<void *>(&cuCtxGetDevice)},
    {"cuCtxGetFlags", reinterpret_cast<void *>(&cuCtxGetFlags)},
    {"cuCtxPopCurrent", reinterpret_cast<void *>(&cuCtxPopCurrent_v2)},
    {"cuCtxPushCurrent", reinterpret_cast<void *>(&cuCtxPushCurrent_v2)},
    {"cuCtxSetCurrent", reinterpret_cast<void *>(&cuCtxSetCurrent)},
    {"cuCtxSynchronize", reinterpret_cast<void *>(&cuCtxSynchronize)},
    {"cuDeviceComputeCapability", reinterpret_cast<void *>(&cuDeviceComputeCapability)},
    {"cuDeviceGet", reinterpret_cast<void *>(&cuDeviceGet)},
    {"cuDeviceGetAttribute", reinterpret_cast<void *>(&cuDeviceGetAttribute)},
    {"cuDeviceGetCount", reinterpret_cast<void *>(&cuDeviceGetCount)},
    {"cuDeviceGetName", reinterpret_cast<void *>(&cuDeviceGetName)},
    {"cuDeviceGetUuid", reinterpret_cast<void *>(&cuDeviceGetUuid_v2)},
    {"cuDevicePrimaryCtxGetState", reinterpret_cast<void *>(&cuDevicePrimaryCtxGetState)},
    {"cuDevicePrimaryCtxRelease", reinterpret_cast<void *>(&cuDevicePrimaryCtxRelease_v2)},
    {"cuDevicePrimaryCtxReset", reinterpret_cast<void *>(&cuDevicePrimaryCtxReset_v2)},
    {"cuDevicePrimaryCtxRetain", reinterpret_cast<void *>(&cuDevicePrimaryCtxRetain)},
    {"cuDevicePrimaryCtxSetFlags", reinterpret_cast<void *>(&cuDevicePrimaryCtxSetFlags_v2)},
    {"cuDeviceTotalMem", reinterpret_cast<void *>(&cuDeviceTotalMem_v2)},
    {"cuDriverGetVersion", reinterpret_cast<void *>(&cuDriverGetVersion)},
    {"cuEventCreate", reinterpret_cast<void *>(&cuEventCreate)},
    {"cuEventDestroy", reinterpret_cast<void *>(&cuEventDestroy_v2)},
    {"cuEventElapsedTime", reinterpret_cast<void *>(&cuEventElapsedTime_v2)},
    {"cuEventQuery", reinterpret_cast<void *>(&cuEventQuery)},
    {"cuEventRecord", reinterpret_cast<void *>(&cuEventRecord)},
    {"cuEventSynchronize", reinterpret_cast<void *>(&cuEventSynchronize)},
    {"cuFuncGetAttribute", reinterpret_cast<void *>(&cuFuncGetAttribute)},
    {"cuFuncGetName", reinterpret_cast<void *>(&cuFuncGetName)},
    {"cuFuncSetAttribute", reinterpret_cast<void *>(&cuFuncSetAttribute)},
    {"cuFuncSetCacheConfig", reinterpret_cast<void *>(&cuFuncSetCacheConfig)},
    {"cuGetErrorName", reinterpret_cast<void *>(&cuGetErrorName)},
    {"cuGetErrorString", reinterpret_cast<void *>(&cuGetErrorString)},
    {"cuGetProcAddress", reinterpret_cast<void *>(&cuGetProcAddress_v2)},
    {"cuInit", reinterpret_cast<void *>(&cuInit)},
    {"cuLaunchCooperativeKernel", reinterpret_cast<void *>(&cuLaunchCooperativeKernel)},
    {"cuLaunchKernel", reinterpret_cast<void *>(&cuLaunchKernel)},
    {"cuMemAlloc", reinterpret_cast<void *>(&cuMemAlloc_v2)},
    {"cuMemAllocHost", reinterpret_cast<void *>(&cuMemAllocHost_v2)},
    {"cuMemAllocManaged", reinterpret_cast<void *>(&cuMemAllocManaged)},
    {"cuMemFree", reinterpret_cast<void *>(&cuMemFree_v2)},
    {"cuMemFreeHost", reinterpret_cast<void *>(&cuMemFreeHost)},
    {"cuMemGetAddressRange", reinterpret_cast<void *>(&cuMemGetAddressRange_v2)},
    {"cuMemGetInfo", reinterpret_cast<void *>(&cuMemGetInfo_v2)},
    {"cuMemHostAlloc", reinterpret_cast<void *>(&cuMemHostAlloc)},
    {"cuMemHostGetDevicePointer", reinterpret_cast<void *>(&cuMemHostGetDevicePointer_v2)},
    {"cuMemcpy", reinterpret_cast<void *>(&cuMemcpy)},
    {"cuMemcpyAsync", reinterpret_cast<void *>(&cuMemcpyAsync)},
    {"cuMemcpyDtoD", reinterpret_cast<void *>(&cuMemcpyDtoD_v2)},
    {"cuMemcpyDtoDAsync", reinterpret_cast<void *>(&cuMemcpyDtoDAsync_v2)},
    {"cuMemcpyDtoH", reinterpret_cast<void *>(&cuMemcpyDtoH_v2)},
    {"cuMemcpyDtoHAsync", reinterpret_cast<void *>(&cuMemcpyDtoHAsync_v2)},
    {"cuMemcpyHtoD", reinterpret_cast<void *>(&cuMemcpyHtoD_v2)},
    {"cuMemcpyHtoDAsync", reinterpret_cast<void *>(&cuMemcpyHtoDAsync_v2)},
    {"cuMemsetD16", reinterpret_cast<void *>(&cuMemsetD16_v2)},
    {"cuMemsetD16Async", reinterpret_cast<void *>(&cuMemsetD16Async)},
    {"cuMemsetD32", reinterpret_cast<void *>(&cuMemsetD32_v2)},
    {"cuMemsetD32Async", reinterpret_cast<void *>(&cuMemsetD32Async)},
    {"cuMemsetD8", reinterpret_cast<void *>(&cuMemsetD8_v2)},
    {"cuMemsetD8Async", reinterpret_cast<void *>(&cuMemsetD8Async)},
    {"cuModuleGetFunction", reinterpret_cast<void *>(&cuModuleGetFunction)},
    {"cuModuleGetGlobal", reinterpret_cast<void *>(&cuModuleGetGlobal_v2)},
    {"cuModuleLoad", reinterpret_cast<void *>(&cuModuleLoad)},
    {"cuModuleLoadData", reinterpret_cast<void *>(&cuModuleLoadData)},
    {"cuModuleLoadDataEx", reinterpret_cast<void *>(&cuModuleLoadDataEx)},
    {"cuModuleLoadFatBinary", reinterpret_cast<void *>(&cuModuleLoadFatBinary)},
    {"cuModuleUnload", reinterpret_cast<void *>(&cuModuleUnload)},
    {"cuStreamCreate", reinterpret_cast<void *>(&cuStreamCreate)},
    {"cuStreamCreateWithPriority", reinterpret_cast<void *>(&cuStreamCreateWithPriority)},
    {"cuStreamDestroy", reinterpret_cast<void *>(&cuStreamDestroy_v2)},
    {"cuStreamQuery", reinterpret_cast<void *>(&cuStreamQuery)},
    {"cuStreamSynchronize", reinterpret_cast<void *>(&cuStreamSynchronize)},
    {"cuStreamWaitEvent", reinterpret_cast<void *>(&cuStreamWaitEvent)},
};

void *findProc(llvm::StringRef Name) {
  // The per-thread-default-stream names (cuMemcpy_ptds, cuLaunchKernel_ptsz) are the same
  // functions here.
  Name.consume_back("_ptds") || Name.consume_back("_ptsz");
  auto It = std::lower_bound(std::begin(Procs), std::end(Procs), Name,
                             [](const ProcEntry &E, llvm::StringRef N) { return E.Name < N; });
  return It != std::end(Procs) && It->Name == Name ? It->Fn : nullptr;
}

} // namespace

extern "C" {

CUresult cuGetProcAddress_v2(const char *Symbol, void **Fn, int CudaVersion, uint64_t Flags,
                             CUdriverProcAddressQueryResult *Status) {
  if (!Symbol || !Fn)
    return CUDA_ERROR_INVALID_VALUE;
  *Fn = findProc(Symbol);
  if (Status)
    *Status = *Fn ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return *Fn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

CUresult cuGetProcAddress(const char *Symbol, void **Fn, int CudaVersion, uint64_t Flags) {
  return cuGetProcAddress_v2(Symbol, Fn, CudaVersion, Flags, nullptr);
}

} // extern "C"
