// Wide lane masks for x86 hosts without AVX-512's mask registers (MaskBits.cpp).
#pragma once

namespace llvm {
class Module;
}

namespace ptx2amd::host {

/// Rewrites the lane masks of \p M's wave functions so that x86's code generation keeps them
/// in registers on a host without AVX-512BW: an integer becomes a mask by a broadcast, an and
/// and a compare per register (the code generator expands `bitcast iN to <N x i1>` bit by
/// bit), and a mask of more than 32 lanes crosses blocks as an integer (it would cross them
/// as one byte register per lane). Runs after the optimisation pipeline, which would fold the
/// integers back into vectors of i1.
void carryMasksAsBits(llvm::Module &M);

} // namespace ptx2amd::host
