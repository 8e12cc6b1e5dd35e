// Vector integer division for the host: see VectorDivision.cpp.
#pragma once

namespace llvm {
class Module;
}

namespace ptx2amd::host {

/// Rewrites each 32-bit vector udiv, urem, sdiv and srem of \p M (a vectorised wave's lanes
/// dividing) as a double-precision division, which is exact for 32-bit operands; returns how
/// many it rewrote.
unsigned widenVectorDivisions(llvm::Module &M);

} // namespace ptx2amd::host
