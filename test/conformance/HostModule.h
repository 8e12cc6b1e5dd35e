// The host device the conformance families run on, and loading a family's module on it: shared
// by the one-thread-per-input harness (Harness.cpp) and the whole-kernel one (KernelHarness.cpp).
#pragma once

#include "ptx2amd/host-backend/HostDevice.h"

#include <memory>
#include <string>

namespace conformance {

/// One host device per process; null with the reason in \p Error when it cannot be created.
ptx2amd::host::Device *hostDevice(std::string &Error);

/// Whether modules loaded from now on have their kernels vectorised over waves (the host
/// device's default) or run their work-items one at a time, in the differential mode (each
/// launch of a kernel that meets also as fibers, compared).
void setWaveVectors(bool On);

/// \p Ptx loaded on the host device for \p Target; null with the reason in \p Error.
std::unique_ptr<ptx2amd::host::LoadedModule> loadFamilyModule(const std::string &Ptx,
                                                              const std::string &Name,
                                                              const std::string &Target,
                                                              std::string &Error);

} // namespace conformance
