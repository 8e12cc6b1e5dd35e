// Helpers shared by the loader tests that run on the host device.
#pragma once

#include <catch2/catch.hpp>

#include "llvm/Support/Error.h"
#include "llvm/Support/Process.h"

#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

namespace loader_test {

/// The wave64 and the wave32 target the host-device tests run on.
inline const char *const WaveTargets[] = {"gfx90a", "gfx1100"};

/// Fails the current test with the error's text.
inline void ok(llvm::Error E) {
  if (E)
    FAIL(llvm::toString(std::move(E)));
}

/// The value, or fails the current test with the error's text.
template <typename T> T ok(llvm::Expected<T> V) {
  if (!V)
    FAIL(llvm::toString(V.takeError()));
  if constexpr (std::is_reference_v<T>)
    return *V;
  else
    return std::move(*V);
}

/// Sets an environment variable for the scope, then restores it.
struct ScopedEnv {
  std::string Name;
  std::optional<std::string> Old;
  ScopedEnv(const std::string &Name, const char *Value)
      : Name(Name), Old(llvm::sys::Process::GetEnv(Name)) {
    if (Value)
      setenv(Name.c_str(), Value, 1);
    else
      unsetenv(Name.c_str());
  }
  ~ScopedEnv() {
    if (Old)
      setenv(Name.c_str(), Old->c_str(), 1);
    else
      unsetenv(Name.c_str());
  }
};

} // namespace loader_test
