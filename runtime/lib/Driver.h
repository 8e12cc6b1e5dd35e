//===- Driver.h - libcuda.so.1's entry points and their shared state -*- C++ -*-===//
//
// The CUDA driver API over the same context as the runtime API (Runtime.h): one device, one
// module loader, one set of allocations, streams and events, whichever API a program calls.
// Driver contexts (primary or created) are handles over that one device context; each owns the
// modules loaded while it was current.
//
// Every entry point runs its body through driverCall(): CUDA_ERROR_NOT_INITIALIZED before
// cuInit, the sticky error after one, CUresult codes for the runtime's errors, and a per-thread
// text for cuGetErrorString that says what failed.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "DriverTypes.h"
#include "Runtime.h"

#include <map>
#include <unordered_set>

namespace ptx2amd::runtime {

/// cuCtxGetId's answers: 1, 2, ... in order of creation.
unsigned long long nextContextId();

/// Called with (context, key, value) when a context-local value goes with its context.
using LocalStorageDestructor = void (*)(CUcontext, void *, void *);

struct DriverContext {
  explicit DriverContext(bool IsPrimary = false) : Primary(IsPrimary) {}
  bool Primary;
  unsigned Flags = 0;
  unsigned long long Id = nextContextId();
  std::vector<FatbinRecord *> Modules; ///< loaded while it was current
  /// The static runtime's per-context state (ExportTables.cpp), by its key; guarded by
  /// DriverState::Mutex.
  std::map<void *, std::pair<void *, LocalStorageDestructor>> LocalStorage;
};

struct DriverState {
  std::mutex Mutex; ///< guards what follows
  DriverContext PrimaryContext{/*IsPrimary=*/true};
  unsigned PrimaryRetains = 0;
  std::unordered_set<DriverContext *> Created; ///< live cuCtxCreate contexts
  std::unordered_map<const FatbinRecord *, std::unique_ptr<FatbinRecord>> Modules;
  std::unordered_set<const KernelRecord *> Functions; ///< of live modules
  std::unordered_set<const FatbinRecord *> Libraries; ///< the modules that are CUlibrary
};
DriverState &driverState();

/// The CUresult of a runtime error code.
CUresult toResult(cudaError_t E);
/// Records \p R with the calling thread's detail of \p E for cuGetErrorString, and returns it.
CUresult recordResult(CUresult R, cudaError_t E);
bool driverInitialized();

template <typename Body> CUresult driverCall(Body &&B) noexcept {
  if (!driverInitialized())
    return CUDA_ERROR_NOT_INITIALIZED;
  DriverApiScope Scope;
  cudaError_t E = guarded(B);
  return E == cudaSuccess ? CUDA_SUCCESS : recordResult(toResult(E), E);
}

/// The thread's current context: the top of its context stack, or the primary context when the
/// thread has used the runtime API (which makes it current there, as CUDA's runtime does).
/// None is cudaErrorDeviceUninitialized (CUDA_ERROR_INVALID_CONTEXT).
cudaError_t currentContext(DriverContext *&Out);

/// driverCall() for calls that need a current context.
template <typename Body> CUresult inContext(Body &&B) noexcept {
  return driverCall([&] {
    DriverContext *DC = nullptr;
    if (cudaError_t E = currentContext(DC))
      return E;
    return B();
  });
}

/// Where one side of a described copy (CUDA_MEMCPY2D/3D) is: host or device memory by \p Type
/// (the callers place arrays, CU_MEMORYTYPE_ARRAY, with arrayRegion). \p What ("a 3D copy from")
/// begins the messages.
cudaError_t copyMemory(CUmemorytype Type, const void *Host, CUdeviceptr Device, const char *What,
                       const char *&Out);
/// A CUdeviceptr as the address it is (one address space).
inline void *pointer(CUdeviceptr P) { return reinterpret_cast<void *>(uintptr_t(P)); }

/// A log buffer of JIT options (cuModuleLoadDataEx, cuLink*): buffer and size, both optional.
struct JitLog {
  char *Buffer = nullptr;
  unsigned *Size = nullptr; ///< in: the buffer's size; out: the bytes written
  unsigned Capacity = 0;    ///< the size given, kept for later writes (a link's log grows)
  void write(const std::string &Text) const;
};
struct JitLogs {
  JitLog Info, Errors;
};
/// The log buffers among \p N JIT options (the other options change nothing here).
JitLogs jitLogs(unsigned N, const CUjit_option *Options, void **Values);

/// The bytes of an image passed by address alone (a fatbin container, an ELF, PTX text).
llvm::ArrayRef<uint8_t> imageBytes(const void *Image);
/// Keeps the module \p M (opened as \p Name) as a FatbinRecord owned by context \p Owner, or by
/// no context (a library) when null; an open failure is cudaErrorInvalidSource, its text also
/// in \p ErrorLog; the log line names the shared object holding \p Image, where known.
cudaError_t registerModule(llvm::Expected<std::unique_ptr<loader::LazyModule>> M,
                           const std::string &Name, DriverContext *Owner, FatbinRecord *&Out,
                           std::string *ErrorLog = nullptr, const void *Image = nullptr);
/// A module of the current context, opened by \p Open (from bytes, a fatbin wrapper, ...).
cudaError_t loadInCurrentContext(
    CUmodule *Out,
    llvm::function_ref<llvm::Expected<std::unique_ptr<loader::LazyModule>>(loader::ModuleLoader &)>
        Open,
    const std::string &Name, std::string *ErrorLog = nullptr, const void *Image = nullptr);
/// Module \p F's kernel \p Name, translating the module at the first lookup.
cudaError_t functionIn(FatbinRecord &F, const char *Name, KernelRecord *&Out);
/// Libraries (DriverLibraries.cpp), for both APIs: a library (CUlibrary, cudaLibrary_t) is its
/// FatbinRecord, a kernel of one (CUkernel, cudaKernel_t) its KernelRecord. The options change
/// nothing (translation happens at first use) and are only checked.
cudaError_t loadLibrary(CUlibrary *Library, const void *Code, unsigned NumJitOptions,
                        void *JitOptions, void *JitValues, unsigned NumLibraryOptions,
                        void *LibraryOptions, void *LibraryValues);
cudaError_t loadLibraryFromFile(CUlibrary *Library, const char *Path, unsigned NumJitOptions,
                                void *JitOptions, void *JitValues, unsigned NumLibraryOptions,
                                void *LibraryOptions, void *LibraryValues);
cudaError_t unloadLibrary(CUlibrary Library);
cudaError_t libraryKernel(CUkernel *Kernel, CUlibrary Library, const char *Name);
cudaError_t libraryGlobal(CUdeviceptr *Address, size_t *Bytes, CUlibrary Library, const char *Name);
/// Every kernel of \p Library, at most *Count of them into \p Kernels; with no Kernels, their
/// count into *Count.
cudaError_t libraryKernels(CUkernel *Kernels, unsigned *Count, CUlibrary Library);
/// cudaFuncGetParamInfo, cuFuncGetParamInfo: where parameter \p Index is in CUDA's parameter
/// buffer, and its size.
cudaError_t kernelParamInfo(KernelRecord *K, size_t Index, size_t *Offset, size_t *Size);
/// Module \p F's variable \p Name: its device address and size (either may be null).
cudaError_t globalIn(FatbinRecord &F, const char *Name, CUdeviceptr *Address, size_t *Bytes);

/// CUlaunchConfig, of cuLaunchKernelEx.
struct CuLaunchConfig {
  unsigned GridX, GridY, GridZ, BlockX, BlockY, BlockZ, SharedBytes;
  CUstream Stream;
  const LaunchAttribute *Attrs;
  unsigned NumAttrs;
};

/// CUDA_LAUNCH_PARAMS, of cuLaunchCooperativeKernelMultiDevice.
struct CuLaunchParams {
  CUfunction Function;
  unsigned GridX, GridY, GridZ, BlockX, BlockY, BlockZ, SharedBytes;
  CUstream Stream;
  void **Params;
};

/// The live context behind a handle.
cudaError_t contextOf(CUcontext Ctx, DriverContext *&Out);
/// Runs and forgets the context-local values' destructors of \p C (reset or destroyed).
void releaseLocalStorage(DriverContext &C);

/// The live module or function behind a handle.
cudaError_t moduleOf(CUmodule M, FatbinRecord *&Out);
cudaError_t functionOf(CUfunction F, KernelRecord *&Out);

/// Unloads the modules of \p Ctx (which the caller has made unreachable), after the device's
/// work.
cudaError_t unloadModules(std::vector<FatbinRecord *> Modules);

/// The copy a CUDA_MEMCPY3D describes (cuMemcpy3D, memcpy graph nodes), between linear memories:
/// CUDA arrays are cudaErrorNotSupported.
cudaError_t describeCopy3D(const CUDA_MEMCPY3D &C, Copy3D &Out);
/// Of the cuMemMap mapping that \p P lies in (DriverVirtualMemory.cpp): the handle types its
/// memory exports as and its access flags; false when \p P is in none.
bool mappingAttributes(const void *P, int &HandleTypes, int &Access);

} // namespace ptx2amd::runtime

// The exported functions, as CUDA 13's cuda.h declares them (under their versioned names).
extern "C" {
CUresult cuInit(unsigned Flags);
CUresult cuDriverGetVersion(int *Version);
CUresult cuGetErrorString(CUresult R, const char **Text);
CUresult cuGetErrorName(CUresult R, const char **Name);
CUresult cuGetExportTable(const void **Table, const CUuuid *Id);
CUresult cuGetProcAddress(const char *Symbol, void **Fn, int CudaVersion, uint64_t Flags);
CUresult cuGetProcAddress_v2(const char *Symbol, void **Fn, int CudaVersion, uint64_t Flags,
                             CUdriverProcAddressQueryResult *Status);

CUresult cuDeviceGet(CUdevice *Device, int Ordinal);
CUresult cuDeviceGetCount(int *Count);
CUresult cuDeviceGetName(char *Name, int Length, CUdevice Device);
CUresult cuDeviceGetUuid(CUuuid *Uuid, CUdevice Device);
CUresult cuDeviceGetUuid_v2(CUuuid *Uuid, CUdevice Device);
CUresult cuDeviceTotalMem_v2(size_t *Bytes, CUdevice Device);
CUresult cuDeviceGetAttribute(int *Value, int Attribute, CUdevice Device);
CUresult cuDeviceComputeCapability(int *Major, int *Minor, CUdevice Device);
struct CuDevProp;
CUresult cuDeviceGetProperties(CuDevProp *Prop, CUdevice Device);
CUresult cuDeviceGetLuid(char *Luid, unsigned *NodeMask, CUdevice Device);

CUresult cuDevicePrimaryCtxRetain(CUcontext *Ctx, CUdevice Device);
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice Device);
CUresult cuDevicePrimaryCtxReset_v2(CUdevice Device);
CUresult cuDevicePrimaryCtxGetState(CUdevice Device, unsigned *Flags, int *Active);
CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice Device, unsigned Flags);
CUresult cuCtxCreate_v2(CUcontext *Ctx, unsigned Flags, CUdevice Device);
CUresult cuCtxCreate_v3(CUcontext *Ctx, void *AffinityParams, int NumParams, unsigned Flags,
                        CUdevice Device);
CUresult cuCtxCreate_v4(CUcontext *Ctx, CUctxCreateParams *Params, unsigned Flags, CUdevice Device);
CUresult cuCtxDestroy_v2(CUcontext Ctx);
CUresult cuCtxPushCurrent_v2(CUcontext Ctx);
CUresult cuCtxPopCurrent_v2(CUcontext *Ctx);
CUresult cuCtxSetCurrent(CUcontext Ctx);
CUresult cuCtxGetCurrent(CUcontext *Ctx);
CUresult cuCtxGetDevice(CUdevice *Device);
CUresult cuCtxGetDevice_v2(CUdevice *Device, CUcontext Ctx);
CUresult cuCtxGetFlags(unsigned *Flags);
CUresult cuCtxGetApiVersion(CUcontext Ctx, unsigned *Version);
CUresult cuCtxSynchronize();
CUresult cuCtxGetLimit(size_t *Value, int Limit);
CUresult cuCtxSetLimit(int Limit, size_t Value);
CUresult cuCtxGetCacheConfig(int *Config);
CUresult cuCtxSetCacheConfig(int Config);
CUresult cuCtxGetStreamPriorityRange(int *Least, int *Greatest);
CUresult cuCtxGetId(CUcontext Ctx, unsigned long long *Id);
CUresult cuDeviceGetPCIBusId(char *Id, int Length, CUdevice Device);
CUresult cuProfilerStart();
CUresult cuProfilerStop();
CUresult cuCtxSynchronize_v2(CUcontext Ctx);

CUresult cuModuleLoad(CUmodule *Module, const char *Path);
CUresult cuModuleLoadData(CUmodule *Module, const void *Image);
CUresult cuModuleLoadDataEx(CUmodule *Module, const void *Image, unsigned NumOptions,
                            CUjit_option *Options, void **Values);
CUresult cuModuleLoadFatBinary(CUmodule *Module, const void *FatBinary);
CUresult cuModuleUnload(CUmodule Module);
CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode *Mode);
CUresult cuModuleGetFunction(CUfunction *Function, CUmodule Module, const char *Name);
CUresult cuModuleGetGlobal_v2(CUdeviceptr *Address, size_t *Bytes, CUmodule Module,
                              const char *Name);
CUresult cuLinkCreate_v2(unsigned NumOptions, CUjit_option *Options, void **Values, void **Out);
CUresult cuLinkCreate(unsigned NumOptions, CUjit_option *Options, void **Values, void **Out);
CUresult cuLinkAddData_v2(void *State, int Type, void *Data, size_t Size, const char *Name,
                          unsigned NumOptions, CUjit_option *Options, void **Values);
CUresult cuLinkAddData(void *State, int Type, void *Data, size_t Size, const char *Name,
                       unsigned NumOptions, CUjit_option *Options, void **Values);
CUresult cuLinkAddFile_v2(void *State, int Type, const char *Path, unsigned NumOptions,
                          CUjit_option *Options, void **Values);
CUresult cuLinkAddFile(void *State, int Type, const char *Path, unsigned NumOptions,
                       CUjit_option *Options, void **Values);
CUresult cuLinkComplete(void *State, void **Image, size_t *Size);
CUresult cuLinkDestroy(void *State);
CUresult cuLibraryLoadData(CUlibrary *Library, const void *Code, CUjit_option *JitOptions,
                           void **JitValues, unsigned NumJitOptions, void *LibraryOptions,
                           void **LibraryValues, unsigned NumLibraryOptions);
CUresult cuLibraryLoadFromFile(CUlibrary *Library, const char *Path, CUjit_option *JitOptions,
                               void **JitValues, unsigned NumJitOptions, void *LibraryOptions,
                               void **LibraryValues, unsigned NumLibraryOptions);
CUresult cuLibraryUnload(CUlibrary Library);
CUresult cuLibraryEnumerateKernels(CUkernel *Kernels, unsigned Count, CUlibrary Library);
CUresult cuLibraryGetKernelCount(unsigned *Count, CUlibrary Library);
CUresult cuFuncGetParamInfo(CUfunction Function, size_t Index, size_t *Offset, size_t *Size);
CUresult cuKernelGetParamInfo(CUkernel Kernel, size_t Index, size_t *Offset, size_t *Size);
CUresult cuLibraryGetModule(CUmodule *Module, CUlibrary Library);
CUresult cuLibraryGetKernel(CUkernel *Kernel, CUlibrary Library, const char *Name);
CUresult cuLibraryGetGlobal(CUdeviceptr *Address, size_t *Bytes, CUlibrary Library,
                            const char *Name);
CUresult cuLibraryGetManaged(CUdeviceptr *Address, size_t *Bytes, CUlibrary Library,
                             const char *Name);
CUresult cuKernelGetFunction(CUfunction *Function, CUkernel Kernel);
CUresult cuKernelGetLibrary(CUlibrary *Library, CUkernel Kernel);
CUresult cuKernelGetAttribute(int *Value, CUfunction_attribute Attribute, CUkernel Kernel,
                              CUdevice Device);
CUresult cuKernelSetAttribute(CUfunction_attribute Attribute, int Value, CUkernel Kernel,
                              CUdevice Device);
CUresult cuKernelSetCacheConfig(CUkernel Kernel, int Config, CUdevice Device);
CUresult cuKernelGetName(const char **Name, CUkernel Kernel);
CUresult cuFuncGetAttribute(int *Value, CUfunction_attribute Attribute, CUfunction Function);
CUresult cuFuncSetAttribute(CUfunction Function, CUfunction_attribute Attribute, int Value);
CUresult cuFuncSetCacheConfig(CUfunction Function, int Config);
CUresult cuFuncGetName(const char **Name, CUfunction Function);
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *NumBlocks, CUfunction Function,
                                                     int BlockSize, size_t DynamicShared);
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *NumBlocks, CUfunction Function,
                                                              int BlockSize, size_t DynamicShared,
                                                              unsigned Flags);
CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *Bytes, CUfunction Function, int NumBlocks,
                                                 int BlockSize);
CUresult cuOccupancyMaxPotentialBlockSize(int *MinGrid, int *Block, CUfunction Function,
                                          size_t (*DynamicFor)(int), size_t Dynamic, int Limit);
CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *MinGrid, int *Block, CUfunction Function,
                                                   size_t (*DynamicFor)(int), size_t Dynamic,
                                                   int Limit, unsigned Flags);
CUresult cuOccupancyMaxActiveClusters(int *NumClusters, CUfunction Function,
                                      const ptx2amd::runtime::CuLaunchConfig *Config);
CUresult cuOccupancyMaxPotentialClusterSize(int *ClusterSize, CUfunction Function,
                                            const ptx2amd::runtime::CuLaunchConfig *Config);
CUresult cuLaunchKernel(CUfunction Function, unsigned GridX, unsigned GridY, unsigned GridZ,
                        unsigned BlockX, unsigned BlockY, unsigned BlockZ, unsigned SharedBytes,
                        CUstream Stream, void **Params, void **Extra);
CUresult cuLaunchKernelEx(const ptx2amd::runtime::CuLaunchConfig *Config, CUfunction Function,
                          void **Params, void **Extra);
CUresult cuLaunchCooperativeKernel(CUfunction Function, unsigned GridX, unsigned GridY,
                                   unsigned GridZ, unsigned BlockX, unsigned BlockY,
                                   unsigned BlockZ, unsigned SharedBytes, CUstream Stream,
                                   void **Params);
CUresult cuLaunchCooperativeKernelMultiDevice(ptx2amd::runtime::CuLaunchParams *List,
                                              unsigned NumDevices, unsigned Flags);

CUresult cuMemAlloc_v2(CUdeviceptr *Ptr, size_t Bytes);
CUresult cuMemFree_v2(CUdeviceptr Ptr);
CUresult cuMemAllocHost_v2(void **Ptr, size_t Bytes);
CUresult cuMemHostAlloc(void **Ptr, size_t Bytes, unsigned Flags);
CUresult cuMemFreeHost(void *Ptr);
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *DevicePtr, void *HostPtr, unsigned Flags);
CUresult cuMemAllocManaged(CUdeviceptr *Ptr, size_t Bytes, unsigned Flags);
CUresult cuMemGetInfo_v2(size_t *Free, size_t *Total);
CUresult cuMemGetAddressRange_v2(CUdeviceptr *Base, size_t *Bytes, CUdeviceptr Ptr);
CUresult cuMemcpy(CUdeviceptr Dst, CUdeviceptr Src, size_t Bytes);
CUresult cuMemcpyAsync(CUdeviceptr Dst, CUdeviceptr Src, size_t Bytes, CUstream Stream);
CUresult cuMemcpyHtoD_v2(CUdeviceptr Dst, const void *Src, size_t Bytes);
CUresult cuMemcpyDtoH_v2(void *Dst, CUdeviceptr Src, size_t Bytes);
CUresult cuMemcpyDtoD_v2(CUdeviceptr Dst, CUdeviceptr Src, size_t Bytes);
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr Dst, const void *Src, size_t Bytes, CUstream Stream);
CUresult cuMemcpyDtoHAsync_v2(void *Dst, CUdeviceptr Src, size_t Bytes, CUstream Stream);
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr Dst, CUdeviceptr Src, size_t Bytes, CUstream Stream);
CUresult cuMemAllocPitch_v2(CUdeviceptr *Ptr, size_t *Pitch, size_t Width, size_t Height,
                            unsigned ElementBytes);
CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *Copy);
CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *Copy);
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *Copy, CUstream Stream);
CUresult cuMemsetD2D8_v2(CUdeviceptr Dst, size_t Pitch, unsigned char Value, size_t Width,
                         size_t Height);
CUresult cuMemsetD2D16_v2(CUdeviceptr Dst, size_t Pitch, unsigned short Value, size_t Width,
                          size_t Height);
CUresult cuMemsetD2D32_v2(CUdeviceptr Dst, size_t Pitch, unsigned Value, size_t Width,
                          size_t Height);
CUresult cuMemsetD2D8Async(CUdeviceptr Dst, size_t Pitch, unsigned char Value, size_t Width,
                           size_t Height, CUstream Stream);
CUresult cuMemsetD2D16Async(CUdeviceptr Dst, size_t Pitch, unsigned short Value, size_t Width,
                            size_t Height, CUstream Stream);
CUresult cuMemsetD2D32Async(CUdeviceptr Dst, size_t Pitch, unsigned Value, size_t Width,
                            size_t Height, CUstream Stream);
CUresult cuMemsetD8_v2(CUdeviceptr Dst, unsigned char Value, size_t Count);
CUresult cuMemsetD16_v2(CUdeviceptr Dst, unsigned short Value, size_t Count);
CUresult cuMemsetD32_v2(CUdeviceptr Dst, unsigned Value, size_t Count);
CUresult cuMemsetD8Async(CUdeviceptr Dst, unsigned char Value, size_t Count, CUstream Stream);
CUresult cuMemsetD16Async(CUdeviceptr Dst, unsigned short Value, size_t Count, CUstream Stream);
CUresult cuMemsetD32Async(CUdeviceptr Dst, unsigned Value, size_t Count, CUstream Stream);

CUresult cuStreamAttachMemAsync(CUstream Stream, CUdeviceptr Ptr, size_t Bytes, unsigned Flags);
CUresult cuMemPrefetchAsync_v2(CUdeviceptr Ptr, size_t Bytes, ptx2amd::runtime::MemLocation To,
                               unsigned Flags, CUstream Stream);
CUresult cuMemPrefetchAsync(CUdeviceptr Ptr, size_t Bytes, CUdevice Device, CUstream Stream);
CUresult cuMemAdvise_v2(CUdeviceptr Ptr, size_t Bytes, int Advice, ptx2amd::runtime::MemLocation L);
CUresult cuMemAdvise(CUdeviceptr Ptr, size_t Bytes, int Advice, CUdevice Device);
CUresult cuMemRangeGetAttribute(void *Data, size_t DataSize, int Attribute, CUdeviceptr Ptr,
                                size_t Bytes);
CUresult cuMemRangeGetAttributes(void **Data, size_t *DataSizes, int *Attributes, size_t Count,
                                 CUdeviceptr Ptr, size_t Bytes);
CUresult cuDeviceGetDefaultMemPool(void **Pool, CUdevice Device);
CUresult cuDeviceGetMemPool(void **Pool, CUdevice Device);
CUresult cuDeviceSetMemPool(CUdevice Device, void *Pool);
CUresult cuMemPoolCreate(void **Pool, const ptx2amd::runtime::MemPoolProps *Props);
CUresult cuMemPoolDestroy(void *Pool);
CUresult cuMemAllocAsync(CUdeviceptr *Ptr, size_t Bytes, CUstream Stream);
CUresult cuMemAllocFromPoolAsync(CUdeviceptr *Ptr, size_t Bytes, void *Pool, CUstream Stream);
CUresult cuMemFreeAsync(CUdeviceptr Ptr, CUstream Stream);
CUresult cuMemPoolTrimTo(void *Pool, size_t Keep);
CUresult cuMemPoolSetAttribute(void *Pool, int Attribute, void *Value);
CUresult cuMemPoolGetAttribute(void *Pool, int Attribute, void *Value);
CUresult cuMemPoolGetAccess(int *Flags, void *Pool, ptx2amd::runtime::MemLocation *Location);
CUresult cuMemPoolSetAccess(void *Pool, const ptx2amd::runtime::MemAccessDesc *Descs, size_t Count);
CUresult cuMemHostRegister_v2(void *Ptr, size_t Bytes, unsigned Flags);
// 3D, peer and batched copies (DriverCopies.cpp).
CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *Copy);
CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *Copy, CUstream Stream);
CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *Copy);
CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *Copy, CUstream Stream);
CUresult cuMemcpyPeer(CUdeviceptr Dst, CUcontext DstContext, CUdeviceptr Src, CUcontext SrcContext,
                      size_t Bytes);
CUresult cuMemcpyPeerAsync(CUdeviceptr Dst, CUcontext DstContext, CUdeviceptr Src,
                           CUcontext SrcContext, size_t Bytes, CUstream Stream);
CUresult cuMemcpyBatchAsync(CUdeviceptr *Dsts, CUdeviceptr *Srcs, size_t *Sizes, size_t Count,
                            CUmemcpyAttributes *Attrs, size_t *AttrIdxs, size_t NumAttrs,
                            size_t *FailIdx, CUstream Stream);
CUresult cuMemcpyBatchAsync_v2(CUdeviceptr *Dsts, CUdeviceptr *Srcs, size_t *Sizes, size_t Count,
                               CUmemcpyAttributes *Attrs, size_t *AttrIdxs, size_t NumAttrs,
                               CUstream Stream);
CUresult cuMemcpy3DBatchAsync(size_t NumOps, CUDA_MEMCPY3D_BATCH_OP *Ops, size_t *FailIdx,
                              unsigned long long Flags, CUstream Stream);
CUresult cuMemcpy3DBatchAsync_v2(size_t NumOps, CUDA_MEMCPY3D_BATCH_OP *Ops,
                                 unsigned long long Flags, CUstream Stream);
// Virtual memory management (DriverVirtualMemory.cpp).
CUresult cuMemGetAllocationGranularity(size_t *Granularity, const CUmemAllocationProp *Prop,
                                       int Option);
CUresult cuMemCreate(CUmemGenericAllocationHandle *Handle, size_t Bytes,
                     const CUmemAllocationProp *Prop, unsigned long long Flags);
CUresult cuMemRelease(CUmemGenericAllocationHandle Handle);
CUresult cuMemAddressReserve(CUdeviceptr *Ptr, size_t Bytes, size_t Alignment, CUdeviceptr Addr,
                             unsigned long long Flags);
CUresult cuMemAddressFree(CUdeviceptr Ptr, size_t Bytes);
CUresult cuMemMap(CUdeviceptr Ptr, size_t Bytes, size_t Offset, CUmemGenericAllocationHandle Handle,
                  unsigned long long Flags);
CUresult cuMemUnmap(CUdeviceptr Ptr, size_t Bytes);
CUresult cuMemSetAccess(CUdeviceptr Ptr, size_t Bytes, const CUmemAccessDesc *Desc, size_t Count);
CUresult cuMemGetAccess(unsigned long long *Flags, const CUmemLocation *Location, CUdeviceptr Ptr);
CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *Handle, void *Addr);
CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *Prop,
                                                CUmemGenericAllocationHandle Handle);
CUresult cuMemExportToShareableHandle(void *Shareable, CUmemGenericAllocationHandle Handle,
                                      int Type, unsigned long long Flags);
CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *Handle, void *OsHandle,
                                        int Type);
CUresult cuMemHostRegister(void *Ptr, size_t Bytes, unsigned Flags);
CUresult cuMemHostUnregister(void *Ptr);
CUresult cuMemHostGetFlags(unsigned *Flags, void *Ptr);
CUresult cuPointerGetAttribute(void *Data, int Attribute, CUdeviceptr Ptr);
CUresult cuPointerGetAttributes(unsigned Count, int *Attributes, void **Data, CUdeviceptr Ptr);
CUresult cuStreamGetFlags(CUstream Stream, unsigned *Flags);
CUresult cuStreamGetId(CUstream Stream, unsigned long long *Id);
CUresult cuStreamIsCapturing(CUstream Stream, int *Status);
CUresult cuStreamGetCaptureInfo_v3(CUstream Stream, int *Status, unsigned long long *Id,
                                   void **Graph, const void **Dependencies, const void **EdgeData,
                                   size_t *Count);
CUresult cuStreamGetCaptureInfo_v2(CUstream Stream, int *Status, unsigned long long *Id,
                                   void **Graph, const void **Dependencies, size_t *Count);
CUresult cuStreamGetCaptureInfo(CUstream Stream, int *Status, unsigned long long *Id);
CUresult cuThreadExchangeStreamCaptureMode(int *Mode);
CUresult cuStreamGetDevice(CUstream Stream, CUdevice *Device);
CUresult cuStreamGetCtx(CUstream Stream, CUcontext *Ctx);
CUresult cuStreamGetPriority(CUstream Stream, int *Priority);
CUresult cuStreamGetAttribute(CUstream Stream, int Id, void *Value);
CUresult cuStreamSetAttribute(CUstream Stream, int Id, const void *Value);
CUresult cuStreamCopyAttributes(CUstream Dst, CUstream Src);
CUresult cuCtxResetPersistingL2Cache();
CUresult cuLaunchHostFunc(CUstream Stream, void (*Fn)(void *), void *UserData);
CUresult cuStreamAddCallback(CUstream Stream, void (*Callback)(CUstream, CUresult, void *),
                             void *UserData, unsigned Flags);
CUresult cuDeviceCanAccessPeer(int *Can, CUdevice Device, CUdevice Peer);
CUresult cuStreamCreate(CUstream *Stream, unsigned Flags);
CUresult cuStreamCreateWithPriority(CUstream *Stream, unsigned Flags, int Priority);
CUresult cuStreamDestroy_v2(CUstream Stream);
CUresult cuStreamSynchronize(CUstream Stream);
CUresult cuStreamQuery(CUstream Stream);
CUresult cuStreamWaitEvent(CUstream Stream, CUevent Event, unsigned Flags);
CUresult cuEventCreate(CUevent *Event, unsigned Flags);
CUresult cuEventDestroy_v2(CUevent Event);
CUresult cuEventRecord(CUevent Event, CUstream Stream);
CUresult cuEventSynchronize(CUevent Event);
CUresult cuEventQuery(CUevent Event);
CUresult cuEventElapsedTime(float *Ms, CUevent Start, CUevent End);
CUresult cuEventElapsedTime_v2(float *Ms, CUevent Start, CUevent End);
// Arrays, array copies, texture and surface objects (DriverTextures.cpp).
CUresult cuArrayCreate_v2(CUarray *Out, const CUDA_ARRAY_DESCRIPTOR *D);
CUresult cuArray3DCreate_v2(CUarray *Out, const CUDA_ARRAY3D_DESCRIPTOR *D);
CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *Out, CUarray A);
CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *Out, CUarray A);
CUresult cuArrayDestroy(CUarray A);
CUresult cuArrayGetMemoryRequirements(CUDA_ARRAY_MEMORY_REQUIREMENTS *Out, CUarray A, CUdevice Dev);
CUresult cuMipmappedArrayCreate(CUmipmappedArray *Out, const CUDA_ARRAY3D_DESCRIPTOR *D,
                                unsigned Levels);
CUresult cuMipmappedArrayGetLevel(CUarray *Out, CUmipmappedArray M, unsigned Level);
CUresult cuMipmappedArrayDestroy(CUmipmappedArray M);
CUresult cuMipmappedArrayGetMemoryRequirements(CUDA_ARRAY_MEMORY_REQUIREMENTS *Out,
                                               CUmipmappedArray M, CUdevice Dev);
CUresult cuMemcpyHtoA_v2(CUarray Dst, size_t DstOffset, const void *Src, size_t Bytes);
CUresult cuMemcpyHtoAAsync_v2(CUarray Dst, size_t DstOffset, const void *Src, size_t Bytes,
                              CUstream Stream);
CUresult cuMemcpyAtoH_v2(void *Dst, CUarray Src, size_t SrcOffset, size_t Bytes);
CUresult cuMemcpyAtoHAsync_v2(void *Dst, CUarray Src, size_t SrcOffset, size_t Bytes,
                              CUstream Stream);
CUresult cuMemcpyDtoA_v2(CUarray Dst, size_t DstOffset, CUdeviceptr Src, size_t Bytes);
CUresult cuMemcpyAtoD_v2(CUdeviceptr Dst, CUarray Src, size_t SrcOffset, size_t Bytes);
CUresult cuMemcpyAtoA_v2(CUarray Dst, size_t DstOffset, CUarray Src, size_t SrcOffset,
                         size_t Bytes);
CUresult cuTexObjectCreate(CUtexObject *Out, const CUDA_RESOURCE_DESC *Res,
                           const CUDA_TEXTURE_DESC *Tex, const CUDA_RESOURCE_VIEW_DESC *View);
CUresult cuTexObjectDestroy(CUtexObject Object);
CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *Out, CUtexObject Object);
CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *Out, CUtexObject Object);
CUresult cuTexObjectGetResourceViewDesc(CUDA_RESOURCE_VIEW_DESC *Out, CUtexObject Object);
CUresult cuSurfObjectCreate(CUsurfObject *Out, const CUDA_RESOURCE_DESC *Res);
CUresult cuSurfObjectDestroy(CUsurfObject Object);
CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *Out, CUsurfObject Object);
CUresult cuDeviceGetTexture1DLinearMaxWidth(size_t *Out, CUarray_format Format,
                                            unsigned NumChannels, CUdevice Dev);
}
