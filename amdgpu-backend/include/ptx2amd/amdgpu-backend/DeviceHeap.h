// The device heap through which translated kernels allocate (malloc, free, new and delete, and
// __nv_aligned_device_malloc). The device side is the project's device library
// (amdgpu-backend/device-lib/); the loader allocates one heap per device and stores its address
// in each module's `__ptx2amd_heap` variable.
#pragma once

#include <cstdint>

namespace ptx2amd::amdgpu {

/// Name of the global variable (address space 1, holding a pointer) that the loader sets.
inline constexpr const char *HeapSymbol = "__ptx2amd_heap";

/// Layout, little-endian, shared with device-lib/ptx2amd-device.c: u64 capacity (bytes after the
/// header), u64 bump offset, u64 free-list heads of the size classes; the blocks from
/// HeapHeaderSize on. The rest of the header starts as zero.
inline constexpr uint64_t HeapHeaderSize = 384;

} // namespace ptx2amd::amdgpu
