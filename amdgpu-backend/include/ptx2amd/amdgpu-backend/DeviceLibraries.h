// Identity of the device libraries embedded in this build (see DeviceLibraries.cpp).
#pragma once

#include <cstdint>

namespace ptx2amd::amdgpu {

/// A hash of the embedded device-library bitcode (ours for both wave sizes, ROCm's ocml and
/// ockl): a rebuilt device library changes every code object, so caches key on it.
uint64_t deviceLibrariesHash();

} // namespace ptx2amd::amdgpu
