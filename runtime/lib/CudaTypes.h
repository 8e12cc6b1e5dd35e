//===- CudaTypes.h - the CUDA runtime's C ABI, as far as runtime/ implements it -*- C++ -*-===//
//
// The types and constants of CUDA 13's runtime API that the exported functions take and return,
// written from the ABI (values, field order and sizes as CUDA 13 defines them) so the library
// builds without the toolkit's headers. The static_asserts pin the layouts that programs read.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {

// Values fixed by CUDA, from the one table of both APIs' errors.
enum cudaError_t : int {
#define PTX2AMD_CUDA_ERROR(Value, RuntimeName, DriverName, Sticky, Text) RuntimeName = Value,
#define PTX2AMD_RUNTIME_ERROR(Value, RuntimeName, DriverName, Text) RuntimeName = Value,
#include "Errors.def"
};

enum cudaMemcpyKind : int {
  cudaMemcpyHostToHost = 0,
  cudaMemcpyHostToDevice = 1,
  cudaMemcpyDeviceToHost = 2,
  cudaMemcpyDeviceToDevice = 3,
  cudaMemcpyDefault = 4,
};

enum cudaFuncAttribute : int {
  cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
  cudaFuncAttributePreferredSharedMemoryCarveout = 9,
  cudaFuncAttributeClusterDimMustBeSet = 10,
  cudaFuncAttributeRequiredClusterWidth = 11,
  cudaFuncAttributeRequiredClusterHeight = 12,
  cudaFuncAttributeRequiredClusterDepth = 13,
  cudaFuncAttributeNonPortableClusterSizeAllowed = 14,
  cudaFuncAttributeClusterSchedulingPolicyPreference = 15,
};

// cudaDeviceAttr values that cudaDeviceGetAttribute answers.
enum cudaDeviceAttr : int {
#define DEVICE_ATTR(Name, Value, Answer) cudaDevAttr##Name = Value,
#include "DeviceAttributes.def"
};

struct dim3 {
  unsigned x, y, z;
};
struct uint3 {
  unsigned x, y, z;
};

struct CUuuid_st {
  char bytes[16];
};

struct cudaDeviceProp {
  char name[256];
  CUuuid_st uuid;
  char luid[8];
  unsigned luidDeviceNodeMask;
  size_t totalGlobalMem;
  size_t sharedMemPerBlock;
  int regsPerBlock;
  int warpSize;
  size_t memPitch;
  int maxThreadsPerBlock;
  int maxThreadsDim[3];
  int maxGridSize[3];
  size_t totalConstMem;
  int major;
  int minor;
  size_t textureAlignment;
  size_t texturePitchAlignment;
  int multiProcessorCount;
  int integrated;
  int canMapHostMemory;
  int maxTexture1D;
  int maxTexture1DMipmap;
  int maxTexture2D[2];
  int maxTexture2DMipmap[2];
  int maxTexture2DLinear[3];
  int maxTexture2DGather[2];
  int maxTexture3D[3];
  int maxTexture3DAlt[3];
  int maxTextureCubemap;
  int maxTexture1DLayered[2];
  int maxTexture2DLayered[3];
  int maxTextureCubemapLayered[2];
  int maxSurface1D;
  int maxSurface2D[2];
  int maxSurface3D[3];
  int maxSurface1DLayered[2];
  int maxSurface2DLayered[3];
  int maxSurfaceCubemap;
  int maxSurfaceCubemapLayered[2];
  size_t surfaceAlignment;
  int concurrentKernels;
  int ECCEnabled;
  int pciBusID;
  int pciDeviceID;
  int pciDomainID;
  int tccDriver;
  int asyncEngineCount;
  int unifiedAddressing;
  int memoryBusWidth;
  int l2CacheSize;
  int persistingL2CacheMaxSize;
  int maxThreadsPerMultiProcessor;
  int streamPrioritiesSupported;
  int globalL1CacheSupported;
  int localL1CacheSupported;
  size_t sharedMemPerMultiprocessor;
  int regsPerMultiprocessor;
  int managedMemory;
  int isMultiGpuBoard;
  int multiGpuBoardGroupID;
  int hostNativeAtomicSupported;
  int pageableMemoryAccess;
  int concurrentManagedAccess;
  int computePreemptionSupported;
  int canUseHostPointerForRegisteredMem;
  int cooperativeLaunch;
  size_t sharedMemPerBlockOptin;
  int pageableMemoryAccessUsesHostPageTables;
  int directManagedMemAccessFromHost;
  int maxBlocksPerMultiProcessor;
  int accessPolicyMaxWindowSize;
  size_t reservedSharedMemPerBlock;
  int hostRegisterSupported;
  int sparseCudaArraySupported;
  int hostRegisterReadOnlySupported;
  int timelineSemaphoreInteropSupported;
  int memoryPoolsSupported;
  int gpuDirectRDMASupported;
  unsigned gpuDirectRDMAFlushWritesOptions;
  int gpuDirectRDMAWritesOrdering;
  unsigned memoryPoolSupportedHandleTypes;
  int deferredMappingCudaArraySupported;
  int ipcEventSupported;
  int clusterLaunch;
  int unifiedFunctionPointers;
  int deviceNumaConfig;
  int deviceNumaId;
  int mpsEnabled;
  int hostNumaId;
  unsigned gpuPciDeviceID;
  unsigned gpuPciSubsystemID;
  int hostNumaMultinodeIpcSupported;
  int reserved[56];
};
static_assert(sizeof(cudaDeviceProp) == 1008, "CUDA 13's cudaDeviceProp is 1008 bytes");
static_assert(offsetof(cudaDeviceProp, warpSize) == 308);
static_assert(offsetof(cudaDeviceProp, multiProcessorCount) == 384);
static_assert(offsetof(cudaDeviceProp, sharedMemPerBlockOptin) == 672);
static_assert(offsetof(cudaDeviceProp, maxSurfaceCubemapLayered) == 544);
static_assert(offsetof(cudaDeviceProp, hostRegisterSupported) == 704);
static_assert(offsetof(cudaDeviceProp, reserved) == 784);

struct cudaFuncAttributes {
  size_t sharedSizeBytes;
  size_t constSizeBytes;
  size_t localSizeBytes;
  int maxThreadsPerBlock;
  int numRegs;
  int ptxVersion;
  int binaryVersion;
  int cacheModeCA;
  int maxDynamicSharedSizeBytes;
  int preferredShmemCarveout;
  int clusterDimMustBeSet;
  int requiredClusterWidth;
  int requiredClusterHeight;
  int requiredClusterDepth;
  int clusterSchedulingPolicyPreference;
  int nonPortableClusterSizeAllowed;
  int reserved[16];
};
static_assert(sizeof(cudaFuncAttributes) == 144, "CUDA 13's cudaFuncAttributes is 144 bytes");
static_assert(offsetof(cudaFuncAttributes, maxDynamicSharedSizeBytes) == 44);

enum cudaChannelFormatKind : int {
  cudaChannelFormatKindSigned = 0,
  cudaChannelFormatKindUnsigned = 1,
  cudaChannelFormatKindFloat = 2,
  cudaChannelFormatKindNone = 3,
  cudaChannelFormatKindNV12 = 4,
  // 5 to 16: UnsignedNormalized8X1, 8X2, 8X4, 16X1, 16X2, 16X4, then the same signed.
  cudaChannelFormatKindUnsignedNormalized8X1 = 5,
  cudaChannelFormatKindSignedNormalized16X4 = 16,
  // 17 to 30: block-compressed formats; 31: UnsignedNormalized1010102.
  cudaChannelFormatKindUnsignedBlockCompressed1 = 17,
  cudaChannelFormatKindUnsignedNormalized1010102 = 31,
};

struct cudaChannelFormatDesc {
  int x, y, z, w; ///< bits per component
  cudaChannelFormatKind f;
};
static_assert(sizeof(cudaChannelFormatDesc) == 20);

enum cudaDriverEntryPointQueryResult : int {
  cudaDriverEntryPointSuccess = 0,
  cudaDriverEntryPointSymbolNotFound = 1,
  cudaDriverEntryPointVersionNotSufficent = 2,
};

// CUDA arrays and the objects that read them (Textures.h): handles, descriptions and flags.
typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;
typedef struct cudaMipmappedArray *cudaMipmappedArray_t;
typedef const struct cudaMipmappedArray *cudaMipmappedArray_const_t;
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

enum cudaResourceType : int {
  cudaResourceTypeArray = 0,
  cudaResourceTypeMipmappedArray = 1,
  cudaResourceTypeLinear = 2,
  cudaResourceTypePitch2D = 3,
};

struct cudaResourceDesc {
  cudaResourceType resType;
  union {
    struct {
      cudaArray_t array;
    } array;
    struct {
      cudaMipmappedArray_t mipmap;
    } mipmap;
    struct {
      void *devPtr;
      cudaChannelFormatDesc desc;
      size_t sizeInBytes;
    } linear;
    struct {
      void *devPtr;
      cudaChannelFormatDesc desc;
      size_t width, height; ///< elements
      size_t pitchInBytes;
    } pitch2D;
    int reserved[32];
  } res;
  unsigned flags; ///< must be 0
};
static_assert(sizeof(cudaResourceDesc) == 144 && offsetof(cudaResourceDesc, flags) == 136);

enum cudaTextureAddressMode : int {
  cudaAddressModeWrap = 0,
  cudaAddressModeClamp = 1,
  cudaAddressModeMirror = 2,
  cudaAddressModeBorder = 3,
};
enum cudaTextureFilterMode : int { cudaFilterModePoint = 0, cudaFilterModeLinear = 1 };
enum cudaTextureReadMode : int { cudaReadModeElementType = 0, cudaReadModeNormalizedFloat = 1 };

struct cudaTextureDesc {
  cudaTextureAddressMode addressMode[3];
  cudaTextureFilterMode filterMode;
  cudaTextureReadMode readMode;
  int sRGB;
  float borderColor[4];
  int normalizedCoords;
  unsigned maxAnisotropy;
  cudaTextureFilterMode mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  int disableTrilinearOptimization;
  int seamlessCubemap;
};
static_assert(sizeof(cudaTextureDesc) == 72);

/// cudaResourceViewFormat (CUresourceViewFormat has the same values): 0 none, 0x01 to 0x18
/// unsigned/signed char, short, int and half, float in 1, 2 and 4 channels, 0x19 to 0x22 BC.
typedef int cudaResourceViewFormat;

struct cudaResourceViewDesc {
  cudaResourceViewFormat format;
  size_t width, height, depth;
  unsigned firstMipmapLevel, lastMipmapLevel;
  unsigned firstLayer, lastLayer;
  unsigned reserved[16];
};
static_assert(sizeof(cudaResourceViewDesc) == 112);

struct cudaArrayMemoryRequirements {
  size_t size;
  size_t alignment;
  unsigned reserved[4];
};
static_assert(sizeof(cudaArrayMemoryRequirements) == 32);

// Opaque handles: programs only pass them back.
typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef struct CUkern_st *cudaKernel_t;

// 3D copies and sets of linear memory (cudaMemcpy3D, cudaMemset3D, cudaMalloc3D): widths and
// x positions in bytes, rows a pitch apart, slices ysize rows apart.
struct cudaPos {
  size_t x, y, z;
};
struct cudaExtent {
  size_t width, height, depth;
};
struct cudaPitchedPtr {
  void *ptr;
  size_t pitch;
  size_t xsize, ysize;
};
static_assert(sizeof(cudaPitchedPtr) == 32 && sizeof(cudaExtent) == 24);

struct cudaMemcpy3DParms {
  struct cudaArray *srcArray;
  cudaPos srcPos;
  cudaPitchedPtr srcPtr;
  struct cudaArray *dstArray;
  cudaPos dstPos;
  cudaPitchedPtr dstPtr;
  cudaExtent extent;
  cudaMemcpyKind kind;
};
static_assert(sizeof(cudaMemcpy3DParms) == 160 && offsetof(cudaMemcpy3DParms, kind) == 152);

struct cudaMemcpy3DPeerParms {
  struct cudaArray *srcArray;
  cudaPos srcPos;
  cudaPitchedPtr srcPtr;
  int srcDevice;
  struct cudaArray *dstArray;
  cudaPos dstPos;
  cudaPitchedPtr dstPtr;
  int dstDevice;
  cudaExtent extent;
};
static_assert(sizeof(cudaMemcpy3DPeerParms) == 168 &&
              offsetof(cudaMemcpy3DPeerParms, dstDevice) == 136);

// Batched copies (CUDA 12.8): the runtime's and the driver's structures are the same.
enum cudaMemcpySrcAccessOrder : int {
  cudaMemcpySrcAccessOrderInvalid = 0,
  cudaMemcpySrcAccessOrderStream = 1,
  cudaMemcpySrcAccessOrderDuringApiCall = 2,
  cudaMemcpySrcAccessOrderAny = 3,
};
struct cudaMemLocationAbi {
  int type, id;
};
struct cudaMemcpyAttributes {
  cudaMemcpySrcAccessOrder srcAccessOrder;
  cudaMemLocationAbi srcLocHint, dstLocHint; ///< hints for managed memory: one memory here
  unsigned flags;
};
static_assert(sizeof(cudaMemcpyAttributes) == 24);

enum cudaMemcpy3DOperandType : int {
  cudaMemcpyOperandTypePointer = 1,
  cudaMemcpyOperandTypeArray = 2,
};
struct cudaMemcpy3DOperand {
  cudaMemcpy3DOperandType type;
  union {
    struct {
      void *ptr;
      size_t rowLength;   ///< elements (bytes between pointers); 0: the copy's width
      size_t layerHeight; ///< rows; 0: the copy's height
      cudaMemLocationAbi locHint;
    } ptr;
    struct {
      struct cudaArray *array;
      size_t x, y, z;
    } array;
  } op;
};
struct cudaMemcpy3DBatchOp {
  cudaMemcpy3DOperand src, dst;
  cudaExtent extent;
  cudaMemcpySrcAccessOrder srcAccessOrder;
  unsigned flags;
};
static_assert(sizeof(cudaMemcpy3DOperand) == 40 && sizeof(cudaMemcpy3DBatchOp) == 112);

} // extern "C"

namespace ptx2amd::runtime {

// Flags and special handles, as CUDA defines them.
enum cudaMemoryType : int {
  cudaMemoryTypeUnregistered = 0,
  cudaMemoryTypeHost = 1,
  cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3,
};

struct cudaPointerAttributes {
  cudaMemoryType type;
  int device;
  void *devicePointer;
  void *hostPointer;
  long reserved[8];
};
static_assert(sizeof(cudaPointerAttributes) == 88);

enum cudaLimit : int {
  cudaLimitStackSize = 0,
  cudaLimitPrintfFifoSize = 1,
  cudaLimitMallocHeapSize = 2,
  cudaLimitDevRuntimeSyncDepth = 3,
  cudaLimitDevRuntimePendingLaunchCount = 4,
  cudaLimitMaxL2FetchGranularity = 5,
  cudaLimitPersistingL2CacheSize = 6,
};

typedef void (*cudaHostFn_t)(void *UserData);
typedef void (*cudaStreamCallback_t)(cudaStream_t Stream, cudaError_t Status, void *UserData);

inline constexpr unsigned StreamNonBlocking = 0x1;
inline constexpr unsigned EventDisableTiming = 0x2;
inline const cudaStream_t StreamLegacy = reinterpret_cast<cudaStream_t>(0x1);
inline const cudaStream_t StreamPerThread = reinterpret_cast<cudaStream_t>(0x2);

/// What the runtime reports: CUDA 13.0.
inline constexpr int CudaVersion = 13000;

} // namespace ptx2amd::runtime
