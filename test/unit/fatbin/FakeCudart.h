//===- FakeCudart.h - registration capture for in-process tests -*- C++ -*-===//
#pragma once

#include <vector>

namespace fbtest {
/// The wrapper pointers passed to __cudaRegisterFatBinary by the nvcc-built
/// objects linked into this test, in call order.
const std::vector<const void *> &registeredWrappers();
} // namespace fbtest
