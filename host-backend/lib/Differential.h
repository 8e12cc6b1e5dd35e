// The differential mode (PTX2AMD_HOST_DIFFERENTIAL=1, host-backend/README.md): each launch runs
// under every plan that applies to its kernel, each from the same device memory, and the memory
// each leaves is compared with the default plan's.
#pragma once

#include "ExecutionPlan.h"

#include "ptx2amd/amdgpu-backend/DeviceOutput.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ptx2amd::host {

/// Memory a kernel may write, which a differential launch snapshots.
struct MemoryRange {
  uint8_t *Begin = nullptr;
  size_t Bytes = 0;
  std::string Name; ///< a module variable's ("variable 'x'"); empty for device memory
};

/// Most bytes of memory a differential launch snapshots (it keeps two copies: before the launch
/// and after the default plan); a launch with more runs only its default plan, and says so.
inline constexpr uint64_t MaxDifferentialBytes = 256ull << 20;

/// Memory kernels may reach: device memory (Device::allocate's), which the differential mode
/// snapshots, or \p HostWritable memory (pinned, managed, registered: Device::knowMemory's),
/// which the program's threads may write while a kernel runs, so a launch given a pointer into
/// it runs only its default plan.
void trackMemory(void *P, size_t Bytes, bool HostWritable);
void untrackMemory(void *P);

/// One launch in the differential mode.
struct DifferentialLaunch {
  std::string Kernel;
  const ExecutionPlan *Plan = nullptr; ///< the kernel's
  Mode How = Mode::Fibers;             ///< the launch's default (launchMode)
  /// Every other way the launch can run, each with the plan whose functions it calls.
  std::vector<std::pair<Mode, const ExecutionPlan *>> Others;
  std::vector<MemoryRange> Globals;  ///< the module's variables
  llvm::ArrayRef<uint8_t> Arguments; ///< the explicit kernel arguments, as packed
};

/// Runs one plan of the launch: the device output, or the launch's error.
using PlanRunner =
    llvm::function_ref<llvm::Expected<amdgpu::DeviceOutput>(Mode, const ExecutionPlan &)>;

/// Runs \p D's default plan and then each other plan from the memory it started with, and leaves
/// the memory as the default plan did. A plan that fails where the default did not, or (for a
/// kernel that is not order-dependent) leaves memory that differs from the default's by a byte,
/// fails the launch with an error that names the kernel, both plans, the memory, the first
/// differing offset with both values, and how many bytes differ; it is logged too. Returns the
/// default plan's output.
llvm::Expected<amdgpu::DeviceOutput> runDifferential(const DifferentialLaunch &D, PlanRunner Run);

} // namespace ptx2amd::host
