// Helpers shared by the loader tests that run on the host device.
#pragma once

#include <catch2/catch.hpp>

#include "llvm/Support/Error.h"

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

} // namespace loader_test
