// Whole-function vectorisation of a kernel over the lanes of its wave (VectorizeWaves.cpp).
#pragma once

#include "llvm/ADT/StringRef.h"

#include <string>

namespace llvm {
class Function;
}

namespace ptx2amd::host {

/// Builds \p Name, a WaveFn (Runtime.h: void(kernarg, ids, exec), ids holding the lanes'
/// work-item ids, x then y then z, WaveSize u32 each, exec the lanes the wave has), from the
/// work-item entry \p Entry (void(kernarg), its kernel and callees inlined into a copy): uniform
/// values stay scalar, the others become vectors of \p WaveSize lanes, divergent branches and loops
/// run under lane masks, and cross-lane operations (ballot, ds_bpermute, readlane, wave barriers)
/// become operations on those vectors. A workgroup barrier stays a call, made once by the wave (\p
/// Barriers says whether there is one: the wave then runs as a compiled workgroup's item,
/// WorkGroup.cpp). Returns why it cannot (a yield is reachable, a construct it does not vectorise,
/// control flow it cannot structure); empty when \p Name was built. \p MaskedMemory: the host
/// has masked vector loads, stores, gathers and scatters (AVX-512); elsewhere what is not a
/// whole vector's or row's access runs as a loop over the active lanes. \p BreakXor (tests
/// only): each lane's 32-bit `xor` comes out one too high, for the differential mode to catch.
/// A wave function of more than \p MaxSize instructions (0: MaxWaveInstructions) is not made.
std::string vectorizeWave(llvm::Function &Entry, llvm::StringRef Name, unsigned WaveSize,
                          bool MaskedMemory, bool &Barriers, bool BreakXor = false,
                          unsigned MaxSize = 0);

} // namespace ptx2amd::host
