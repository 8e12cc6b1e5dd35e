// Device-side launches (CUDA dynamic parallelism, CDP2): the launch queue through which a running
// grid's `<<<>>>` launches, cudaMemcpyAsync and cudaMemsetAsync reach the loader, and the kernel
// handles that a kernel's address is in device code. The device side is the project's device
// library (amdgpu-backend/device-lib/), which serves CUDA's device runtime (`__cudaCDP2*`); the
// loader gives each module that has `__ptx2amd_launch_queue` a queue, fills the header before each
// grid it launches and runs the grid's records when the grid is done.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ptx2amd::amdgpu {

/// Name of the global variable (address space 1, holding a pointer) that the loader sets.
inline constexpr const char *LaunchQueueSymbol = "__ptx2amd_launch_queue";

/// What `mov.u64 %rd, kernel;` yields: the address of the kernel's handle variable, which lowering
/// makes (lowering::KernelHandlePrefix + the kernel's name) and the loader fills.
struct KernelHandle {
  uint32_t Number;         ///< the loader's number of the kernel (from 1); 0: it cannot run
  uint32_t ParamBytes;     ///< bytes of its parameters (CUDA's layout)
  uint32_t StaticLdsBytes; ///< its static shared memory
  uint32_t MaxThreads;     ///< threads a block of it may have
};

inline constexpr uint32_t LaunchAttributeCount = 160; ///< cudaDeviceAttr values answered
inline constexpr uint32_t LaunchErrorSlots = 256;     ///< threads with a last error, per grid
inline constexpr uint32_t MaxNestingDepth = 24;       ///< CUDA's: launches from deeper fail
inline constexpr uint64_t TailLaunchStream = 3;       ///< cudaStreamTailLaunch
inline constexpr uint64_t FireAndForgetStream = 4;    ///< cudaStreamFireAndForget

/// A device thread's last error (cudaGetLastError): the grid it belongs to (entries of earlier
/// grids are stale), its block and thread ids and the error.
struct LaunchLastError {
  uint32_t Generation;
  uint32_t BlockX, BlockYZ; ///< y | z << 16
  uint32_t Thread;          ///< x | y << 10 | z << 20
  uint32_t Error;
  uint32_t Reserved[3];
};

/// The queue's header, little-endian, shared with device-lib/ptx2amd-device.c. The loader writes
/// it before each grid; counters marked atomic are the device's.
struct LaunchQueueHeader {
  uint32_t Capacity;   ///< records this grid may make: the pending-launch limit left to it
  uint32_t Records;    ///< records reserved (atomic; may pass Capacity: those are refused)
  uint32_t Tickets;    ///< launches made (atomic): a record's ticket is its launch order
  uint32_t Depth;      ///< the grid's nesting depth; 0: launched by the host
  uint64_t ArenaBytes; ///< bytes of the record arena, from LaunchArenaOffset
  uint64_t ArenaUsed;  ///< bytes reserved (atomic; may pass ArenaBytes)
  uint32_t MaxDepth;   ///< MaxNestingDepth
  uint32_t LdsBytes;   ///< shared memory a block may use
  uint32_t Handles;    ///< device streams and events made (atomic)
  uint32_t ErrorsUsed; ///< entries of Errors in use (atomic; may pass LaunchErrorSlots)
  uint32_t Generation; ///< the grid's number, different for each grid
  uint32_t Reserved[3];
  uint64_t Limits[8];                       ///< cudaDeviceGetLimit's answers, by cudaLimit
  int32_t Attributes[LaunchAttributeCount]; ///< cudaDeviceGetAttribute's, by cudaDeviceAttr
  LaunchLastError Errors[LaunchErrorSlots];
};
inline constexpr uint64_t LaunchArenaOffset = 16384;
static_assert(sizeof(LaunchQueueHeader) <= LaunchArenaOffset);
static_assert(offsetof(LaunchQueueHeader, Limits) == 64);

enum class LaunchKind : uint32_t {
  Pending = 0, ///< a parameter buffer handed out, never launched
  Kernel = 1,
  Copy = 2, ///< cudaMemcpyAsync: the parameters are u64 destination, source, bytes
  Set = 3,  ///< cudaMemsetAsync: u64 destination, value, bytes
};

/// One record of the arena (at a multiple of 64), its parameters after it; Size covers both.
struct LaunchRecord {
  uint32_t Size;
  uint32_t Kind;   ///< LaunchKind
  uint32_t Ticket; ///< launch order within the grid
  uint32_t Kernel; ///< KernelHandle::Number
  uint32_t Grid[3];
  uint32_t Block[3];
  uint32_t SharedBytes;
  uint32_t ParamBytes;
  uint64_t Stream; ///< 0: the block's NULL stream; TailLaunchStream; FireAndForgetStream; else a
                   ///< stream the grid made
  uint64_t Reserved;
};
static_assert(sizeof(LaunchRecord) == 64);

/// Arena bytes per record of the pending-launch limit: a record and CUDA's 4 KiB of parameters.
inline constexpr uint64_t LaunchArenaBytesPerRecord = sizeof(LaunchRecord) + 4096;

} // namespace ptx2amd::amdgpu
