// Shared helpers of the host backend tests: PTX files loaded once per target, typed buffers.
#pragma once

#include "ptx2amd/host-backend/HostDevice.h"

#include <catch2/catch.hpp>

#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace host_test {

using namespace ptx2amd;

/// The two targets every kernel runs on: wave64 CDNA and wave32 RDNA.
inline const char *const WaveTargets[] = {"gfx90a", "gfx1100"};

host::Device &device();

/// A PTX file (path relative to the build's test/cuda/ptx, or absolute) loaded for \p Target,
/// once per process.
/// Vectorize = false: no kernel vectorised over its waves (plain loops and compiled workgroups
/// of work-items instead).
host::LoadedModule &module(const std::string &File, const std::string &Target,
                           bool Vectorize = true);

/// Loads PTX text (not cached).
std::unique_ptr<host::LoadedModule> loadText(const std::string &Ptx, const std::string &Target,
                                             bool Vectorize = true);
/// Loads PTX text with \p Opts (not cached).
std::unique_ptr<host::LoadedModule> loadText(const std::string &Ptx, const std::string &Target,
                                             const host::LoadOptions &Opts);

/// Device memory holding a copy of \p Host; read() copies it back.
template <typename T> class Buffer {
public:
  explicit Buffer(const std::vector<T> &Host) : N(Host.size()) {
    P = static_cast<T *>(device().allocate(N * sizeof(T)));
    REQUIRE(P);
    if (N)
      std::memcpy(P, Host.data(), N * sizeof(T));
  }
  explicit Buffer(size_t N) : Buffer(std::vector<T>(N)) {}
  ~Buffer() { device().release(P); }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  T *get() const { return P; }
  std::vector<T> read() const { return std::vector<T>(P, P + N); }

private:
  size_t N;
  T *P;
};

/// Launches and requires success; returns the device output.
amdgpu::DeviceOutput launch(host::LoadedModule &M, const std::string &Kernel, host::Dim3 Grid,
                            host::Dim3 Block, std::vector<void *> Args, uint32_t Dynamic = 0);

/// Launches with \p C (a watchdog, fibers) and requires success; returns the device output.
amdgpu::DeviceOutput launch(host::LoadedModule &M, const std::string &Kernel,
                            const host::LaunchConfig &C, std::vector<void *> Args);

/// Launches and requires failure; returns the error text.
std::string launchError(host::LoadedModule &M, const std::string &Kernel, host::Dim3 Grid,
                        host::Dim3 Block, std::vector<void *> Args, uint32_t Dynamic = 0);

} // namespace host_test
