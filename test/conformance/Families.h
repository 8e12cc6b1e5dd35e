// The instruction families of the conformance suite and the known failures.
#pragma once

#include "Harness.h"
#include "KernelHarness.h"

#include <optional>

namespace conformance {

std::vector<Family> integerFamilies();
std::vector<Family> floatFamilies();
/// The SIMD video instructions (VideoFamilies.cpp), one of the integer families.
Family simdVideo();
/// Whole-kernel families (KernelHarness.h).
std::vector<KernelFamily> warpFamilies();
std::vector<KernelFamily> memoryFamilies();
/// Named barriers, bar.arrive and bar.red for part of a block (BarrierFamilies.cpp).
KernelFamily namedBarriers();
/// mbarrier, cp.async.bulk and cp.reduce.async.bulk (AsyncFamilies.cpp).
KernelFamily asyncCopies();
/// mma.sync, ldmatrix, stmatrix and movmatrix (TensorFamilies.cpp).
KernelFamily tensorCores();

/// tex, tld4, suld and sust against the CUDA Programming Guide's texture fetching
/// (TextureFamilies.cpp); \p Full: every combination, else the CI sample.
/// \p Software: every texture and surface object takes the software path.
KernelFamily textureFamily(bool Full, bool Software);

/// Cases that fail because of a lowering or host-backend bug (KnownFailures.cpp).
const std::vector<KnownFailure> &knownFailures();

/// A case with one output: \p F returns the result, or nothing where PTX leaves it unspecified.
Case make(std::string Body, std::vector<Operand> In, Operand Out,
          std::function<std::optional<uint64_t>(const uint64_t *)> F);

} // namespace conformance
