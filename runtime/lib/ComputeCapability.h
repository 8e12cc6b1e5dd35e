//===- ComputeCapability.h - the compute capability the device reports -*- C++ -*-===//
//
// One per process, read from PTX2AMD_COMPUTE_CAPABILITY when the context is made (8.6 when
// unset): cudaGetDeviceProperties and every attribute report it and its residency limits, the
// occupancy calculator and cooperative launches keep to them, and the loader selects the PTX of
// the highest architecture at most it, as CUDA's driver does.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace ptx2amd::runtime {

/// A compute capability and CUDA's residency limits for it (a row of ComputeCapabilities.def).
struct ComputeCapability {
  int Major = 0, Minor = 0;
  int ThreadsPerMultiprocessor = 0, BlocksPerMultiprocessor = 0;
  int SharedKBPerMultiprocessor = 0, SharedKBPerBlockOptin = 0;
  /// The architecture number of its PTX and SASS: 86 for 8.6.
  unsigned arch() const { return unsigned(Major * 10 + Minor); }
};

/// Reads a PTX2AMD_COMPUTE_CAPABILITY value: "" for the default, 8.6, or M.m, a row of
/// ComputeCapabilities.def; anything else is an error that lists them.
llvm::Expected<ComputeCapability> parseComputeCapability(llvm::StringRef Value);

} // namespace ptx2amd::runtime
