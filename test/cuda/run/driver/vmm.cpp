// vmm: virtual memory management as cuda-samples' vectorAddMMAP uses it, through the driver API
// alone: the device says it has it, an address range is reserved, two physical chunks are
// created and mapped behind it one after the other, access is set, a kernel writes across the
// chunks' boundary, copies and memsets read and write the range, the memory is exported to a
// POSIX file descriptor and imported again at a second address (the same memory), and all is
// unmapped, released and freed; calls that CUDA refuses are refused with its results.
//
// The kernel is driver_api's (driver_kernels.ptx, next to the executable).
#include <cstdio>
#include <cstring>
#include <cuda.h>
#include <string>
#include <unistd.h>
#include <vector>

static const char *kName = "vmm";

#include "../../check.h"

static std::string besideExecutable(const char *File) {
  char Path[4096];
  ssize_t N = readlink("/proc/self/exe", Path, sizeof Path - 1);
  if (N <= 0)
    return File;
  Path[N] = 0;
  std::string Dir(Path);
  return Dir.substr(0, Dir.rfind('/') + 1) + File;
}

int main() {
  CU(cuInit(0));
  CUdevice dev;
  CU(cuDeviceGet(&dev, 0));
  CUcontext ctx;
  CU(cuDevicePrimaryCtxRetain(&ctx, dev));
  CU(cuCtxSetCurrent(ctx));

  int vmm = 0, fds = 0, compression = -1;
  CU(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev));
  CU(cuDeviceGetAttribute(&fds, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
                          dev));
  CU(cuDeviceGetAttribute(&compression, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED, dev));
  EXPECT(vmm == 1 && fds == 1 && compression == 0);

  CUmemAllocationProp prop = {};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  size_t granularity = 0, recommended = 0;
  CU(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  CU(cuMemGetAllocationGranularity(&recommended, &prop, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
  EXPECT(granularity >= 4096 && (granularity & (granularity - 1)) == 0);
  EXPECT(recommended >= granularity && recommended % granularity == 0);

  // Two chunks of two granules each, behind one range.
  const size_t chunk = 2 * granularity, total = 2 * chunk;
  CUdeviceptr base;
  CU(cuMemAddressReserve(&base, total, 0, 0, 0));
  EXPECT(base && base % granularity == 0);
  CUmemGenericAllocationHandle h0, h1;
  CU(cuMemCreate(&h0, chunk, &prop, 0));
  CU(cuMemCreate(&h1, chunk, &prop, 0));
  EXPECT(cuMemCreate(&h0, granularity + 1, &prop, 0) == CUDA_ERROR_INVALID_VALUE);
  CUmemAllocationProp managed = prop;
  managed.type = CU_MEM_ALLOCATION_TYPE_MANAGED;
  EXPECT(cuMemCreate(&h0, chunk, &managed, 0) == CUDA_ERROR_INVALID_VALUE);

  // Refused mappings: a misaligned offset, address or size, past the chunk's end.
  EXPECT(cuMemMap(base, chunk, 256, h0, 0) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuMemMap(base + 256, chunk, 0, h0, 0) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuMemMap(base, chunk - 256, 0, h0, 0) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuMemMap(base, chunk, granularity, h0, 0) == CUDA_ERROR_INVALID_VALUE);
  CU(cuMemMap(base, chunk, 0, h0, 0));
  CU(cuMemMap(base + chunk, chunk, 0, h1, 0));
  EXPECT(cuMemMap(base + granularity, granularity, 0, h1, 0) == CUDA_ERROR_INVALID_VALUE);

  // Released as soon as mapped, as vectorAddMMAP does: the mappings keep the memory.
  CU(cuMemRelease(h0));
  CU(cuMemRelease(h1));
  CUmemAllocationProp got = {};
  EXPECT(cuMemGetAllocationPropertiesFromHandle(&got, h0) == CUDA_ERROR_INVALID_VALUE);
  CUmemGenericAllocationHandle retained;
  CU(cuMemRetainAllocationHandle(&retained, reinterpret_cast<void *>(base + chunk + 8)));
  CU(cuMemGetAllocationPropertiesFromHandle(&got, retained));
  EXPECT(got.type == CU_MEM_ALLOCATION_TYPE_PINNED && got.location.id == dev &&
         got.requestedHandleTypes == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
  CU(cuMemRelease(retained));

  // No access until it is set: a memset is refused, the process goes on.
  CUmemLocation where = {CU_MEM_LOCATION_TYPE_DEVICE, dev};
  unsigned long long access = 99;
  CU(cuMemGetAccess(&access, &where, base));
  EXPECT(access == CU_MEM_ACCESS_FLAGS_PROT_NONE);
  EXPECT(cuMemsetD8(base + chunk - 8, 0, 16) != CUDA_SUCCESS);
  CUmemAccessDesc desc = {};
  desc.location = where;
  desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  EXPECT(cuMemSetAccess(base, total + granularity, &desc, 1) == CUDA_ERROR_INVALID_VALUE);
  CU(cuMemSetAccess(base, total, &desc, 1));
  CU(cuMemGetAccess(&access, &where, base + chunk + 100));
  EXPECT(access == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);

  // The range is device memory to pointer queries.
  unsigned memType = 0;
  CUdeviceptr start = 0;
  unsigned long long handleTypes = 0;
  CU(cuPointerGetAttribute(&memType, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, base + 4));
  CU(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, base + chunk + 4));
  CU(cuPointerGetAttribute(&handleTypes, CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, base));
  EXPECT(memType == CU_MEMORYTYPE_DEVICE && start == base + chunk &&
         handleTypes == CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);

  // A kernel writes y = scale[i % 4] * x + offset over the whole range, across the boundary.
  CUmodule m;
  CU(cuModuleLoad(&m, besideExecutable("driver_kernels.ptx").c_str()));
  CUfunction f;
  CU(cuModuleGetFunction(&f, m, "scale_add"));
  CUdeviceptr gOffset, cScale;
  CU(cuModuleGetGlobal(&gOffset, nullptr, m, "g_offset"));
  CU(cuModuleGetGlobal(&cScale, nullptr, m, "c_scale"));
  const int offset = 3;
  const float scale[4] = {2.0f, -1.0f, 0.5f, 4.0f};
  CU(cuMemcpyHtoD(gOffset, &offset, sizeof offset));
  CU(cuMemcpyHtoD(cScale, scale, sizeof scale));
  int n = int(total / sizeof(float));
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i)
    x[i] = float(i % 1000) - 17.0f;
  CUdeviceptr dx;
  CU(cuMemAlloc(&dx, total));
  CU(cuMemcpyHtoD(dx, x.data(), total));
  CUdeviceptr dy = base;
  void *params[] = {&dx, &dy, &n};
  CU(cuLaunchKernel(f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr));
  CU(cuCtxSynchronize());
  CU(cuMemcpyDtoH(y.data(), base, total));
  for (int i = 0; i < n; ++i)
    EXPECT(y[i] == scale[i % 4] * x[i] + float(offset));

  // Copies of unspecified direction and memsets find the range as device memory.
  const int across = int(chunk / sizeof(float)) - 8; // 16 floats over the boundary
  std::vector<float> part(16);
  CU(cuMemcpy(CUdeviceptr(uintptr_t(part.data())), base + across * sizeof(float),
              16 * sizeof(float)));
  for (int i = 0; i < 16; ++i)
    EXPECT(part[i] == y[across + i]);
  CU(cuMemsetD32(base + across * sizeof(float), 0x40490fdbu, 16)); // pi
  CU(cuMemcpyDtoH(y.data(), base, total));
  for (int i = 0; i < n; ++i)
    EXPECT(i >= across && i < across + 16 ? y[i] == 3.14159274f
                                          : y[i] == scale[i % 4] * x[i] + float(offset));

  // The first chunk exported to a file descriptor, imported, and mapped at a second address:
  // the same memory under both.
  CUmemGenericAllocationHandle first;
  CU(cuMemRetainAllocationHandle(&first, reinterpret_cast<void *>(base)));
  int fd = -1;
  CU(cuMemExportToShareableHandle(&fd, first, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  EXPECT(fd >= 0);
  CUmemGenericAllocationHandle imported;
  CU(cuMemImportFromShareableHandle(&imported, reinterpret_cast<void *>(uintptr_t(fd)),
                                    CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
  close(fd);
  CUdeviceptr alias;
  CU(cuMemAddressReserve(&alias, chunk, 0, 0, 0));
  CU(cuMemMap(alias, chunk, 0, imported, 0));
  CU(cuMemSetAccess(alias, chunk, &desc, 1));
  std::vector<float> seen(chunk / sizeof(float));
  CU(cuMemcpyDtoH(seen.data(), alias, chunk));
  EXPECT(memcmp(seen.data(), y.data(), chunk) == 0);
  CU(cuMemsetD8(alias, 0, 64));
  CU(cuMemcpyDtoH(seen.data(), base, 64));
  EXPECT(seen[0] == 0.0f && seen[15] == 0.0f);
  CU(cuMemUnmap(alias, chunk));
  CU(cuMemRelease(imported));
  CU(cuMemAddressFree(alias, chunk));
  CU(cuMemRelease(first));

  // A memory created without a shareable handle type is not exported.
  CUmemAllocationProp plain = prop;
  plain.requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE;
  CUmemGenericAllocationHandle h2;
  CU(cuMemCreate(&h2, granularity, &plain, 0));
  EXPECT(cuMemExportToShareableHandle(&fd, h2, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0) ==
         CUDA_ERROR_INVALID_VALUE);
  CU(cuMemRelease(h2));
  EXPECT(cuMemRelease(h2) == CUDA_ERROR_INVALID_VALUE);

  // Unmapped whole (part of a mapping is refused), then the range freed.
  EXPECT(cuMemUnmap(base + granularity, granularity) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuMemFree(base) == CUDA_ERROR_INVALID_VALUE);
  CU(cuMemUnmap(base, total));
  EXPECT(cuMemGetAccess(&access, &where, base) == CUDA_ERROR_INVALID_VALUE);
  EXPECT(cuMemcpyDtoH(y.data(), base, 64) != CUDA_SUCCESS);
  CU(cuMemAddressFree(base, total));
  EXPECT(cuMemAddressFree(base, total) == CUDA_ERROR_INVALID_VALUE);

  CU(cuMemFree(dx));
  CU(cuModuleUnload(m));
  CU(cuDevicePrimaryCtxRelease(dev));
  printf("PASS %s\n", kName);
  return 0;
}
