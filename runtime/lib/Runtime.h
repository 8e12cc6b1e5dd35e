//===- Runtime.h - state shared by the runtime and driver APIs' entry points -*- C++ -*-===//
//
// libcuda.so.1 holds this state and the operations on it; libcudart.so.13's entry points and the
// driver API's (Driver.h) both go through it. Three kinds of state:
//  - the registry: what the program registered at start-up (fatbins, kernels by host function,
//    variables by host shadow), filled before main() and before any device exists;
//  - the context: the device of the process (loader::selectDevice()) with its module loader,
//    streams and events, made at the first call that needs the device;
//  - the error state: CUDA's per-thread last error, and the process-wide sticky error after
//    which every call fails.
// None of it is ever destroyed: programs unregister their fatbins from atexit handlers, after
// function-local statics of the libraries below may be gone.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ComputeCapability.h"
#include "CudaTypes.h"

#include "ptx2amd/loader/Device.h"
#include "ptx2amd/loader/ModuleLoader.h"
#include "ptx2amd/support/Error.h"

#include "llvm/Support/Error.h"

#include <array>
#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <pthread.h>
#include <string>
#include <unordered_map>
#include <vector>

namespace ptx2amd::runtime {

//===-- errors -------------------------------------------------------------===//

/// The calling thread's \p T, on the heap from the thread's first use until the thread ends (a
/// pthread key's destructor), never in a thread_local object with a destructor: glibc runs the
/// main thread's TLS destructors before the exit handlers, where programs and NVIDIA's libraries
/// still call the driver (cublasDestroy from an atexit handler, the static runtime's cleanup).
template <typename T> T &threadHeap() {
  static constinit thread_local T *Mine = nullptr; // trivially destructible
  static pthread_key_t Key = [] {
    pthread_key_t K;
    // Runs when a thread ends (never for the main thread, which exit() ends), after its C++
    // TLS destructors, which may still make CUDA calls.
    if (pthread_key_create(&K, [](void *P) {
          delete static_cast<T *>(P);
          Mine = nullptr;
        }))
      std::abort(); // no key left: the process has used up PTHREAD_KEYS_MAX
    return K;
  }();
  if (!Mine) {
    Mine = new T;
    pthread_setspecific(Key, Mine);
  }
  return *Mine;
}

/// The calling thread's error texts (threadHeap: after a sticky error every call from an exit
/// handler fails and records its text).
struct ThreadTexts {
  std::string Detail;     ///< "<CUDA's text>: <detail>" of the runtime's last detailed error
  std::string Why;        ///< <detail> alone
  std::string DriverText; ///< cuGetErrorString's text of the thread's last driver error
};
ThreadTexts &threadTexts();

/// Records \p E as the calling thread's last error (and as the process's sticky error when CUDA
/// treats it so) and returns it. \p Detail, when given, is what cudaGetErrorString(E) adds to
/// CUDA's text on this thread until the next error; a sticky error keeps CUDA's text, and its
/// detail is written to stderr ("ptx2amd: <CUDA's text>: <detail>") instead.
cudaError_t fail(cudaError_t E, const std::string &Detail = {});
/// fail() with an llvm::Error's text as the detail.
cudaError_t fail(cudaError_t E, llvm::Error Why);
/// Fails with the code for \p Why's kind (ptx2amd::ErrorKind), the one mapping of kinds to CUDA's
/// codes: bad input is \p ForBadInput (what the call site's API says of a malformed argument or
/// image), unsupported \p ForUnsupported, out of resources cudaErrorMemoryAllocation, I/O
/// cudaErrorFileNotFound, internal cudaErrorUnknown.
cudaError_t failByKind(llvm::Error Why, cudaError_t ForBadInput,
                       cudaError_t ForUnsupported = cudaErrorNotSupported);
/// fail() with the error CUDA gives a failure of device work (amdgpu::KernelFault's kind: a
/// failed assertion, an illegal address, a timeout; else cudaErrorLaunchFailure). All are sticky.
cudaError_t failDeviceWork(llvm::Error Why);
/// The error of a device call that may carry earlier work's failure (loader::Device::copy and
/// memset wait for it): failDeviceWork() for an amdgpu::KernelFault, else fail(\p Otherwise).
cudaError_t failDeviceCall(llvm::Error Why, cudaError_t Otherwise);
/// The sticky error, or cudaSuccess.
cudaError_t stickyError();
/// The sticky error, made the thread's last error too when there is one (an entry point that
/// returns it).
cudaError_t stickyErrorAsLast();
/// Takes (\p Reset) or reads the last error, as cudaGetLastError/PeekAtLastError do.
cudaError_t lastError(bool Reset);
/// What the thread's last fail() with \p E said beyond CUDA's text; empty when nothing (always
/// for a sticky error).
std::string detailOf(cudaError_t E);
/// While one exists on a thread, fail() leaves the runtime API's last error alone: the driver
/// API's calls have no last error.
struct DriverApiScope {
  DriverApiScope();
  ~DriverApiScope();
  DriverApiScope(const DriverApiScope &) = delete;
  DriverApiScope &operator=(const DriverApiScope &) = delete;

private:
  bool Outer;
};
/// Marks the thread as one that called the runtime API (outside a DriverApiScope): CUDA's runtime
/// makes the primary context current there, which the driver API then sees.
void noteRuntimeApiCall();
bool runtimeApiUsedOnThread();
/// The body of a runtime or driver entry point that is not implemented: cudaErrorNotSupported,
/// recorded as the thread's error with \p Name, which is logged (PTX2AMD_LOG=info) the first
/// time (\p Logged is the entry point's own flag).
cudaError_t notSupported(const char *Name, std::atomic<bool> &Logged);
/// CUDA's name, and its text with this thread's detail when \p E is the error it belongs to.
const char *errorName(cudaError_t E);
const char *errorString(cudaError_t E);

/// Runs an entry point's body: returns the sticky error (as the thread's last error) without
/// running it, and turns an exception into an error (C entry points never throw).
template <typename Body> cudaError_t guarded(Body &&B) noexcept {
  noteRuntimeApiCall();
  if (cudaError_t S = stickyErrorAsLast())
    return S;
  try {
    return B();
  } catch (const std::bad_alloc &) {
    return fail(cudaErrorMemoryAllocation, "out of host memory");
  } catch (...) {
    return fail(cudaErrorUnknown, "internal error (exception)");
  }
}

//===-- logging ------------------------------------------------------------===//

/// One line on stderr when PTX2AMD_LOG is at least \p Level.
void log(loader::LogLevel Level, const std::string &Line);
bool logging(loader::LogLevel Level);

//===-- registry -----------------------------------------------------------===//

struct FatbinRecord;

struct KernelRecord {
  FatbinRecord *Fatbin = nullptr;
  std::string Name; ///< the PTX entry (mangled) name
  const void *HostFun = nullptr;
  std::mutex Mutex;
  const loader::Kernel *Resolved = nullptr;
  loader::LazyModule *Module = nullptr; ///< Resolved's, which launches it
  bool Reported = false;                ///< its unavailability was written to stderr
  int MaxDynamicSharedBytes = -1;  ///< cudaFuncAttributeMaxDynamicSharedMemorySize; -1: default
  int RequiredCluster = 0;         ///< 1: a required cluster of 1x1x1 set; 0: none
  int NonPortableClusterSize = 0;  ///< cudaFuncAttributeNonPortableClusterSizeAllowed, as set
  int ClusterSchedulingPolicy = 0; ///< cudaFuncAttributeClusterSchedulingPolicyPreference
  uint64_t Launches = 0;
};

struct VarRecord {
  FatbinRecord *Fatbin = nullptr;
  std::string Name;
  const void *Address = nullptr; ///< the host shadow the program names the variable by
  size_t Size = 0;
  bool Constant = false;
  void **ManagedPointer = nullptr; ///< __managed__: where the host reads the variable's address
};

struct FatbinRecord {
  const void *Wrapper = nullptr;
  std::string Name; ///< the binary that registered it, for messages
  std::mutex Mutex;
  bool Opened = false;
  std::string OpenFailure;
  std::unique_ptr<loader::LazyModule> Module;
  std::vector<std::unique_ptr<KernelRecord>> Kernels;
  std::vector<std::unique_ptr<VarRecord>> Vars;
};

struct Registry {
  std::mutex Mutex;
  std::vector<std::unique_ptr<FatbinRecord>> Fatbins;
  std::unordered_map<const void *, KernelRecord *> KernelsByHost;
  std::unordered_map<const void *, VarRecord *> VarsByHost;
};
Registry &registry();

/// The registered kernel of host function \p HostFun, or null.
KernelRecord *findKernel(const void *HostFun);

//===-- context ------------------------------------------------------------===//

/// Stream ids: 1 and 2 are the legacy and the per-thread default stream, created ones follow.
unsigned long long nextStreamId();

struct StreamRecord {
  /// Shared with the calls that wait for every stream while another thread may destroy one.
  std::shared_ptr<loader::Stream> Stream;
  unsigned Flags = 0;
  unsigned long long Id = nextStreamId(); ///< cudaStreamGetId: unique in the process
};

struct EventRecord {
  std::unique_ptr<loader::Event> Event;
  unsigned Flags = 0;
  bool Recorded = false;
};

struct Allocation {
  size_t Bytes = 0;
  loader::MemoryKind Kind = loader::MemoryKind::Device;
  bool Registered = false; ///< the program's own memory (cudaHostRegister), not ours to free
  unsigned Flags = 0;      ///< cudaHostAlloc's or cudaHostRegister's flags
  bool Mapped = false;     ///< a cuMemMap mapping (device memory), which cuMemUnmap removes
};

struct Context {
  loader::Device &Dev;
  loader::ModuleLoader Loader;
  /// What the device reports (PTX2AMD_COMPUTE_CAPABILITY), for which the loader selects PTX.
  ComputeCapability Capability;
  cudaDeviceProp Props{};
  /// cudaDevAttrClockRate (0: not known) and cudaDevAttrMemoryClockRate, which CUDA 13's
  /// properties no longer hold.
  int ClockRateKHz = 0, MemoryClockKHz = 0;
  /// cudaDevAttrSingleToDoublePrecisionPerfRatio: f32 over f64 throughput.
  int SingleToDoubleRatio = 1;

  std::mutex Mutex; ///< guards what follows
  std::unordered_map<cudaStream_t, std::unique_ptr<StreamRecord>> Streams;
  std::unordered_map<cudaEvent_t, std::unique_ptr<EventRecord>> Events;
  std::map<uintptr_t, Allocation> Allocations; ///< by start address
  /// Stream attributes set (streamAttribute), by stream (the legacy stream as StreamLegacy).
  std::map<cudaStream_t, std::map<int, std::array<unsigned char, 64>>> StreamAttributes;
  uint64_t DeviceBytes = 0; ///< allocated device memory

  Context(loader::Device &D, loader::LoaderOptions Opts, ComputeCapability CC);
};

/// Whether context() has made the context (the runtime API initialises the driver API with it).
bool contextMade();
/// The context, made on the first call; its failure (no device, a malformed setting) is
/// recorded as the last error and returned every time.
cudaError_t context(Context *&Out);

/// Whether the thread is in a per-thread-default-stream entry point (_ptsz, _ptds).
bool inPerThreadCall();
/// The stream \p S names: cudaStreamPerThread, and the null stream in a per-thread entry point,
/// are the thread's per-thread default stream, a blocking stream of its own (made on first
/// use); any other handle is itself.
cudaStream_t resolveStream(cudaStream_t S);
/// The stream behind \p S (null: the device's default stream, for the legacy and per-thread
/// default streams too), after ordering it as CUDA's legacy default stream requires: work on
/// the default stream waits for every blocking stream, work on a blocking stream waits for the
/// default stream. The waits are host-side: correct, at the cost of overlap.
cudaError_t streamFor(Context &C, cudaStream_t S, loader::Stream *&Out);
/// Waits for every stream of the device (cudaDeviceSynchronize).
cudaError_t synchronizeAll(Context &C);

/// The module of \p F, opened on first use (fatbin parsed, PTX selected; not yet translated).
cudaError_t moduleOf(Context &C, FatbinRecord &F, loader::LazyModule *&Out);
/// The device kernel of \p K, translated on first use. An unavailable kernel is
/// cudaErrorNoKernelImageForDevice with its name and reason (also written to stderr once).
cudaError_t resolveKernel(Context &C, KernelRecord &K, const loader::Kernel *&Out);
/// context() and resolveKernel() of \p K together: what a call about one kernel needs.
cudaError_t contextAndKernel(KernelRecord &K, Context *&C, const loader::Kernel *&Out);
/// Occupancy (Occupancy.cpp): blocks of \p K of \p BlockSize work-items that one compute unit
/// holds, and the dynamic shared memory a block may have when \p NumBlocks share one.
cudaError_t occupancyBlocks(KernelRecord &K, int BlockSize, size_t DynamicShared, int *Out);
cudaError_t availableDynamicShared(KernelRecord &K, int NumBlocks, int BlockSize, size_t *Out);
struct LaunchAttribute;
/// cudaOccupancyMaxActiveClusters, cuOccupancyMaxActiveClusters: the clusters of the launch's
/// size (its cluster-dimension attribute, else the kernel's required one, else one block) that
/// the device holds at once: blocks a compute unit holds times the units for clusters of one
/// block, none for larger clusters (the device's clusters are of one block).
cudaError_t activeClusters(KernelRecord &K, dim3 Block, size_t DynamicShared,
                           const LaunchAttribute *Attrs, unsigned NumAttrs, int *Out);
/// The device variable registered for host shadow \p Symbol.
cudaError_t resolveSymbol(Context &C, const void *Symbol, loader::GlobalSymbol &Out);
/// The device address of [Offset, Offset + Bytes) of the variable \p Symbol, checked to lie in it.
cudaError_t symbolRange(const void *Symbol, size_t Bytes, size_t Offset, char *&Out);

//===-- operations of both APIs (Memory.cpp, Objects.cpp) ------------------===//

/// The one device there is: ordinal 0.
cudaError_t checkDevice(int Device);
/// The device's value of \p A (cudaDeviceAttr and CUdevice_attribute share their values), from
/// the properties cudaGetDeviceProperties reports; false for one not answered.
bool deviceAttribute(const Context &C, cudaDeviceAttr A, int &Out);
/// Gives the loader what device code reads of the device runtime: the attributes and limits.
void publishDeviceRuntime(Context &C);
/// cudaDeviceGetLimit/SetLimit and cuCtxGetLimit/SetLimit (whose values are the same).
cudaError_t deviceLimit(cudaLimit Limit, size_t *Value);
/// cudaDeviceGetPCIBusId/cuDeviceGetPCIBusId: "domain:bus:device.function" of \p P into \p Id.
void writePciBusId(const cudaDeviceProp &P, char *Id, int Length);
cudaError_t setDeviceLimit(cudaLimit Limit, size_t Value);
/// cuCtxGetLimit/cuCtxSetLimit: the runtime's limits, and the driver's CUDA-in-graphics ones.
cudaError_t driverLimit(unsigned Limit, size_t *Value);
cudaError_t setDriverLimit(unsigned Limit, size_t Value);

cudaError_t allocate(void **Ptr, size_t Bytes, loader::MemoryKind Kind, unsigned Flags = 0);
/// cudaHostRegister/cuMemHostRegister: the program's memory as pinned host memory (flags
/// portable, mapped, read-only are what host memory is here; I/O memory is not supported).
cudaError_t registerHost(void *Ptr, size_t Bytes, unsigned Flags);
cudaError_t unregisterHost(void *Ptr);
/// A memory location of CUDA 12.2's managed memory calls (cudaMemLocation / CUmemLocation):
/// type (1 device, 2 host, ...) and id.
struct MemLocation {
  int Type = 0;
  int Id = 0;
};
/// Managed memory (Managed.cpp), for both APIs: stream attachment, prefetches and advice,
/// checked and remembered, and the range attributes they answer.
cudaError_t attachManaged(cudaStream_t S, const void *Ptr, size_t Bytes, unsigned Flags);
cudaError_t prefetchManaged(const void *Ptr, size_t Bytes, MemLocation To, cudaStream_t S);
cudaError_t adviseManaged(const void *Ptr, size_t Bytes, int Advice, MemLocation L);
cudaError_t managedRangeAttribute(void *Data, size_t DataSize, int Attribute, const void *Ptr,
                                  size_t Bytes);
/// cudaMemPoolProps / CUmemPoolProps as far as read: allocation type (1 pinned), handle types,
/// location.
struct MemPoolProps {
  int AllocType;
  int HandleTypes;
  MemLocation Location;
};
/// cudaMemAccessDesc / CUmemAccessDesc: a location and its access (3: read and write).
struct MemAccessDesc {
  MemLocation Location;
  int Flags;
};
/// Stream-ordered allocation and memory pools (Pools.cpp), for both APIs. A pool handle is
/// cudaMemPool_t / CUmemoryPool; null in allocateAsync means the device's current pool.
void *defaultMemPool();
cudaError_t currentMemPool(void **Out);
cudaError_t setCurrentMemPool(void *Pool);
cudaError_t createMemPool(void **Out, const MemPoolProps *Props);
cudaError_t destroyMemPool(void *Pool);
cudaError_t allocateAsync(void **Ptr, size_t Bytes, void *Pool, cudaStream_t S);
cudaError_t freeAsync(void *Ptr, cudaStream_t S);
cudaError_t trimMemPool(void *Pool, size_t Keep);
cudaError_t memPoolAttribute(void *Pool, int Attribute, void *Value, bool Set);
cudaError_t memPoolAccess(void *Pool, const MemLocation *Location, int *Flags);
cudaError_t setMemPoolAccess(void *Pool, const MemAccessDesc *Descs, size_t Count);
/// Forgets the hints of the managed allocation at \p Start (it is freed).
void forgetManaged(uintptr_t Start);
/// cudaHostGetFlags/cuMemHostGetFlags of pinned or registered memory at \p Ptr.
cudaError_t hostFlags(void *Ptr, unsigned *Flags);
/// Frees an allocation of allocate(): host-pinned memory when \p Host, else device or managed.
cudaError_t release(void *Ptr, bool Host);
/// The allocation (start address and record) that \p P points into, if any.
std::optional<std::pair<uintptr_t, Allocation>> findAllocation(Context &C, const void *P);
/// Whether \p P points into memory that only the device addresses (cudaMalloc).
bool isDeviceMemory(Context &C, const void *P);
/// Whether [P, P + Bytes) may be read (or written, when \p Write) as far as virtual memory
/// management says (DriverVirtualMemory.cpp): a range that reaches reserved addresses must lie
/// in mappings whose access allows it. Other memory is not its concern.
cudaError_t checkMappedAccess(const void *P, size_t Bytes, bool Write);
/// Copies \p Bytes after the earlier work of \p S; \p Wait: and waits for it.
cudaError_t copy(void *Dst, const void *Src, size_t Bytes, cudaMemcpyKind Kind, cudaStream_t S,
                 bool Wait);
cudaError_t fill(void *Dst, int Value, size_t Bytes, cudaStream_t S);
/// cudaMallocPitch, cuMemAllocPitch: rows of \p Width bytes padded to the texture pitch alignment.
cudaError_t allocatePitched(void **Ptr, size_t *Pitch, size_t Width, size_t Height);
/// Rows of a pitched copy, each after the earlier ones on \p S; \p Wait: and waits for the last.
cudaError_t copy2D(void *Dst, size_t DstPitch, const void *Src, size_t SrcPitch, size_t Width,
                   size_t Height, cudaMemcpyKind Kind, cudaStream_t S, bool Wait);

/// A 3D copy between linear memories: \p Depth slices of \p Height rows of \p Width bytes, rows
/// a pitch apart and slices a slice pitch apart (cudaMemcpy3DParms with its positions applied).
struct Copy3D {
  const char *Src = nullptr;
  size_t SrcPitch = 0, SrcSlice = 0;
  char *Dst = nullptr;
  size_t DstPitch = 0, DstSlice = 0;
  size_t Width = 0, Height = 0, Depth = 0;
  cudaMemcpyKind Kind = cudaMemcpyDefault;
};
cudaError_t copy3D(const Copy3D &P, cudaStream_t S, bool Wait);
/// \p Count elements of \p ElementBytes (1, 2 or 4) set to \p Value (cuMemsetD8/16/32).
cudaError_t fillElements(void *Dst, uint32_t Value, unsigned ElementBytes, size_t Count,
                         cudaStream_t S, bool Wait);
/// \p Height rows of \p Width elements, \p Pitch bytes apart (cudaMemset2D, cuMemsetD2D*,
/// memset graph nodes).
cudaError_t fill2D(void *Dst, size_t Pitch, uint32_t Value, unsigned ElementBytes, size_t Width,
                   size_t Height, cudaStream_t S, bool Wait);
/// The copy a cudaMemcpy3DParms describes (cudaMemcpy3D, memcpy graph nodes), between linear
/// memories and CUDA array levels (Textures.h), which are pitched memory.
cudaError_t describeCopy3D(const cudaMemcpy3DParms &P, Copy3D &Out);
/// cudaMemcpyBatchAsync, cuMemcpyBatchAsync: \p Count copies on \p S, copy i with the attributes
/// Attrs[k] of the last AttrIdxs[k] <= i. \p FailIdx (optional): the copy that failed, SIZE_MAX
/// for a failure of none in particular.
cudaError_t copyBatch(void *const *Dsts, const void *const *Srcs, const size_t *Sizes, size_t Count,
                      const cudaMemcpyAttributes *Attrs, const size_t *AttrIdxs, size_t NumAttrs,
                      size_t *FailIdx, cudaStream_t S);
/// cudaMemcpy3DBatchAsync, cuMemcpy3DBatchAsync: between pointer and array operands.
cudaError_t copy3DBatch(size_t NumOps, const cudaMemcpy3DBatchOp *Ops, unsigned long long Flags,
                        size_t *FailIdx, cudaStream_t S);

cudaError_t createStream(cudaStream_t *Out, unsigned Flags);
cudaError_t destroyStream(cudaStream_t S);
/// The flags \p S was created with (0 for the default streams).
cudaError_t streamFlags(cudaStream_t S, unsigned &Flags);
cudaError_t streamId(cudaStream_t S, unsigned long long &Id);
/// cudaStreamGetAttribute/SetAttribute, cuStreamGetAttribute/SetAttribute: the launch
/// attributes a stream may have (access policy window, synchronisation policy, priority, memory
/// synchronisation domain and map), kept and answered; a value is 64 bytes (a launch attribute's).
cudaError_t streamAttribute(cudaStream_t S, int Id, void *Value, bool Set);
/// cuStreamCopyAttributes.
cudaError_t copyStreamAttributes(cudaStream_t Dst, cudaStream_t Src);
/// cudaStreamGetCaptureInfo (StreamCapture.cpp); the thread's capture mode is kept and exchanged as
/// CUDA does.
cudaError_t captureInfo(cudaStream_t S, int *Status, unsigned long long *Id, void **Graph,
                        const void **Dependencies, const void **EdgeData, size_t *Count);
cudaError_t exchangeCaptureMode(int *Mode);
cudaError_t synchronizeStream(cudaStream_t S);
/// cudaLaunchHostFunc/cuLaunchHostFunc: \p Fn after the earlier work of \p S.
cudaError_t launchHostFunc(cudaStream_t S, void (*Fn)(void *), void *UserData);
/// cudaSuccess when the stream's work is done, else cudaErrorNotReady (not recorded as an error).
cudaError_t queryStream(cudaStream_t S);
cudaError_t streamWaitEvent(cudaStream_t S, cudaEvent_t Event);
cudaError_t createEvent(cudaEvent_t *Out, unsigned Flags);
cudaError_t destroyEvent(cudaEvent_t Event);
cudaError_t recordEvent(cudaEvent_t Event, cudaStream_t S);
cudaError_t synchronizeEvent(cudaEvent_t Event);
cudaError_t queryEvent(cudaEvent_t Event);
cudaError_t eventElapsedTime(float *Ms, cudaEvent_t Start, cudaEvent_t End);

/// The PTX's `.target sm_NN` as CUDA's version number (75), 0 when absent.
int ptxTarget(llvm::StringRef Ptx);
cudaError_t functionAttributes(KernelRecord &K, cudaFuncAttributes &Out);
/// cudaFuncSetAttribute and cuFuncSetAttribute (whose attributes have the same values).
cudaError_t setFunctionAttribute(KernelRecord &K, int Attribute, int Value);

/// Launches \p K with CUDA's launch arguments. A \p Cooperative launch
/// (cudaLaunchCooperativeKernel) runs every block at once with a grid workspace for
/// grid_group::sync(); a grid of more blocks than the device holds at once (the kernel's occupancy
/// times the compute units) is cudaErrorCooperativeLaunchTooLarge.
cudaError_t launchKernel(KernelRecord *K, dim3 Grid, dim3 Block, void **Args, size_t SharedBytes,
                         cudaStream_t S, bool Cooperative = false);
/// One launch attribute of cudaLaunchKernelExC / cuLaunchKernelEx (the two share the layout and
/// the numbering): its id, then a 64-byte value.
struct LaunchAttribute {
  int Id;
  char Pad[4];
  unsigned char Value[64];
};
static_assert(sizeof(LaunchAttribute) == 72);
/// The launch attribute id of a cluster dimension, and the dimension such an attribute holds.
inline constexpr int ClusterDimensionAttribute = 4;
inline dim3 clusterDimension(const LaunchAttribute &A) {
  dim3 D;
  std::memcpy(&D, A.Value, sizeof D);
  return D;
}
/// launchKernel with \p NumAttrs attributes: those that change nothing on this device are
/// accepted (access policy, priorities, memory domains, scheduling preferences, carve-outs,
/// programmatic serialisation: launches are stream-ordered anyway), clusters above one block
/// are refused (cudaErrorInvalidClusterSize), a non-zero cooperative attribute makes a
/// cooperative launch, and the
/// programmatic and completion events are recorded once the kernel is done.
cudaError_t launchKernelEx(KernelRecord *K, dim3 Grid, dim3 Block, void **Args, size_t SharedBytes,
                           cudaStream_t Stream, const LaunchAttribute *Attrs, unsigned NumAttrs);

} // namespace ptx2amd::runtime
