// The buffer through which translated kernels report device printf (`vprintf`) and failed
// assertions (`__assertfail`), and its host-side reader. The device side is the project's device
// library (amdgpu-backend/device-lib/); the runtime allocates the buffer, stores its address in the
// code object's `__ptx2amd_output_buffer` variable, and drains it after a launch.
#pragma once

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ptx2amd::amdgpu {

/// Name of the global variable (address space 1, holding a pointer) that the loader sets.
inline constexpr const char *OutputBufferSymbol = "__ptx2amd_output_buffer";

/// Layout, little-endian, shared with device-lib/ptx2amd-device.c:
///   header: u32 capacity (bytes of records), u32 used (bytes reserved, may pass capacity),
///           u32 dropped (records that did not fit), u32 reserved; then the records.
///   record: u32 size (whole record, a multiple of 8), u32 kind, then by kind
///     printf: u32 format bytes (with its NUL), u32 argument bytes, the format (padded to 8), the
///             argument buffer as vprintf received it (each argument at its natural alignment),
///             with every %s pointer replaced by the offset of a copy of its string in the record;
///     assert: u32 line, u32 reserved, then message, file and function as NUL-terminated strings.
inline constexpr uint32_t OutputHeaderSize = 16;
enum class OutputKind : uint32_t { Printf = 1, Assert = 2 };

struct DeviceOutput {
  std::string Text;                    ///< printf output, in record order
  std::vector<std::string> Assertions; ///< "file:line: function: Assertion `message' failed."
  uint32_t Dropped = 0;                ///< records that did not fit in the buffer
};

/// Formats the records of a drained buffer (header included). A malformed buffer is an error.
llvm::Expected<DeviceOutput> readDeviceOutput(llvm::ArrayRef<uint8_t> Buffer);

} // namespace ptx2amd::amdgpu
