//===- DriverTypes.h - the CUDA driver API's C ABI, as far as runtime/ implements it -*- C++
//-*-===//
//
// The types and constants of CUDA 13's driver API (cuda.h) that libcuda.so.1's exported functions
// take and return, written from the ABI so the library builds without the toolkit's headers.
// Handles that both APIs share are the same types: CUstream is cudaStream_t, CUevent is
// cudaEvent_t.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "CudaTypes.h"

#include <cstddef>
#include <cstdint>

extern "C" {

// Values fixed by CUDA, from the one table of both APIs' errors.
enum CUresult : int {
#define PTX2AMD_CUDA_ERROR(Value, RuntimeName, DriverName, Sticky, Text) DriverName = Value,
#define PTX2AMD_DRIVER_ERROR(Value, DriverName, Text) DriverName = Value,
#include "Errors.def"
};

typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUlib_st *CUlibrary;
typedef struct CUkern_st *CUkernel;
typedef cudaStream_t CUstream;
typedef cudaEvent_t CUevent;

struct CUuuid {
  char bytes[16];
};

enum CUfunction_attribute : int {
  CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0,
  CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1,
  CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
  CU_FUNC_ATTRIBUTE_PTX_VERSION = 5,
  CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6,
  CU_FUNC_ATTRIBUTE_CACHE_MODE_CA = 7,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = 9,
  CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET = 10,
  CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH = 11,
  CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT = 12,
  CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH = 13,
  CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED = 14,
  CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE = 15,
};

enum CUjit_option : int {
  CU_JIT_INFO_LOG_BUFFER = 3,
  CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
};

/// cuCtxCreate_v4's parameters (the pointed-to types are not needed here).
struct CUctxCreateParams {
  void *execAffinityParams;
  int numExecAffinityParams;
  void *cigParams;
};

enum CUmoduleLoadingMode : int {
  CU_MODULE_EAGER_LOADING = 1,
  CU_MODULE_LAZY_LOADING = 2,
};

enum CUdriverProcAddressQueryResult : int {
  CU_GET_PROC_ADDRESS_SUCCESS = 0,
  CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND = 1,
  CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT = 2,
};

/// cuLaunchKernel's `extra` keys.
inline void *const CuLaunchParamEnd = reinterpret_cast<void *>(0);
inline void *const CuLaunchParamBufferPointer = reinterpret_cast<void *>(1);
inline void *const CuLaunchParamBufferSize = reinterpret_cast<void *>(2);

enum CUmemorytype : int {
  CU_MEMORYTYPE_HOST = 1,
  CU_MEMORYTYPE_DEVICE = 2,
  CU_MEMORYTYPE_ARRAY = 3,
  CU_MEMORYTYPE_UNIFIED = 4,
};

struct CUDA_MEMCPY2D {
  size_t srcXInBytes, srcY;
  CUmemorytype srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  void *srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  CUmemorytype dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  void *dstArray;
  size_t dstPitch;
  size_t WidthInBytes, Height;
};

typedef struct CUarray_st *CUarray;
typedef struct CUmipmappedArray_st *CUmipmappedArray;
typedef unsigned long long CUtexObject;
typedef unsigned long long CUsurfObject;

/// CUarray_format: element formats of arrays and texture resources (Textures.h maps them to
/// channel descriptions).
typedef int CUarray_format;

struct CUDA_ARRAY_DESCRIPTOR {
  size_t Width, Height;
  CUarray_format Format;
  unsigned NumChannels;
};
static_assert(sizeof(CUDA_ARRAY_DESCRIPTOR) == 24);

struct CUDA_ARRAY3D_DESCRIPTOR {
  size_t Width, Height, Depth;
  CUarray_format Format;
  unsigned NumChannels;
  unsigned Flags; ///< CUDA_ARRAY3D_*, the same bits as cudaArray* flags
};
static_assert(sizeof(CUDA_ARRAY3D_DESCRIPTOR) == 40);

struct CUDA_ARRAY_MEMORY_REQUIREMENTS {
  size_t size, alignment;
  unsigned reserved[4];
};

struct CUDA_RESOURCE_DESC {
  int resType; ///< CUresourcetype: the values of cudaResourceType
  union {
    struct {
      CUarray hArray;
    } array;
    struct {
      CUmipmappedArray hMipmappedArray;
    } mipmap;
    struct {
      CUdeviceptr devPtr;
      CUarray_format format;
      unsigned numChannels;
      size_t sizeInBytes;
    } linear;
    struct {
      CUdeviceptr devPtr;
      CUarray_format format;
      unsigned numChannels;
      size_t width, height, pitchInBytes;
    } pitch2D;
    int reserved[32];
  } res;
  unsigned flags;
};
static_assert(sizeof(CUDA_RESOURCE_DESC) == 144 && offsetof(CUDA_RESOURCE_DESC, flags) == 136);

/// CUDA_TEXTURE_DESC's flags (CU_TRSF_*).
inline constexpr unsigned CuTrsfReadAsInteger = 0x01;
inline constexpr unsigned CuTrsfNormalizedCoordinates = 0x02;
inline constexpr unsigned CuTrsfSrgb = 0x10;
inline constexpr unsigned CuTrsfDisableTrilinearOptimization = 0x20;
inline constexpr unsigned CuTrsfSeamlessCubemap = 0x40;

struct CUDA_TEXTURE_DESC {
  int addressMode[3]; ///< CUaddress_mode: the values of cudaTextureAddressMode
  int filterMode;     ///< CUfilter_mode: the values of cudaTextureFilterMode
  unsigned flags;
  unsigned maxAnisotropy;
  int mipmapFilterMode;
  float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
  float borderColor[4];
  int reserved[12];
};
static_assert(sizeof(CUDA_TEXTURE_DESC) == 104);

/// The runtime's cudaResourceViewDesc, field for field (the formats have the same values).
typedef cudaResourceViewDesc CUDA_RESOURCE_VIEW_DESC;

struct CUDA_MEMCPY3D {
  size_t srcXInBytes, srcY, srcZ, srcLOD;
  CUmemorytype srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  void *reserved0;
  size_t srcPitch, srcHeight;
  size_t dstXInBytes, dstY, dstZ, dstLOD;
  CUmemorytype dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  void *reserved1;
  size_t dstPitch, dstHeight;
  size_t WidthInBytes, Height, Depth;
};
static_assert(sizeof(CUDA_MEMCPY3D) == 200 && offsetof(CUDA_MEMCPY3D, dstHeight) == 168);

/// CUDA_MEMCPY3D with the contexts of both sides where it has reserved pointers.
struct CUDA_MEMCPY3D_PEER {
  size_t srcXInBytes, srcY, srcZ, srcLOD;
  CUmemorytype srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  CUarray srcArray;
  CUcontext srcContext;
  size_t srcPitch, srcHeight;
  size_t dstXInBytes, dstY, dstZ, dstLOD;
  CUmemorytype dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  CUarray dstArray;
  CUcontext dstContext;
  size_t dstPitch, dstHeight;
  size_t WidthInBytes, Height, Depth;
};
static_assert(sizeof(CUDA_MEMCPY3D_PEER) == 200 && offsetof(CUDA_MEMCPY3D_PEER, dstContext) == 152);

// Batched copies share the runtime's layouts.
typedef cudaMemcpyAttributes CUmemcpyAttributes;
typedef cudaMemcpy3DBatchOp CUDA_MEMCPY3D_BATCH_OP;

// Virtual memory management.
typedef unsigned long long CUmemGenericAllocationHandle;
inline constexpr int CuMemAllocationTypePinned = 1;
inline constexpr int CuMemHandleTypePosixFileDescriptor = 1;
inline constexpr int CuMemLocationTypeDevice = 1;
struct CUmemLocation {
  int type, id;
};
struct CUmemAllocationProp {
  int type;                 ///< CUmemAllocationType
  int requestedHandleTypes; ///< CUmemAllocationHandleType bits
  CUmemLocation location;
  void *win32HandleMetaData;
  struct {
    unsigned char compressionType;
    unsigned char gpuDirectRDMACapable;
    unsigned short usage;
    unsigned char reserved[4];
  } allocFlags;
};
static_assert(sizeof(CUmemAllocationProp) == 32 && offsetof(CUmemAllocationProp, allocFlags) == 24);
struct CUmemAccessDesc {
  CUmemLocation location;
  int flags; ///< CUmemAccess_flags: 0 none, 1 read, 3 read and write
};
static_assert(sizeof(CUmemAccessDesc) == 12);

inline constexpr unsigned CuMemHostAllocDevicemap = 0x02;
inline constexpr unsigned CuStreamNonBlocking = 0x1;
inline constexpr unsigned CuEventDisableTiming = 0x2;
}
