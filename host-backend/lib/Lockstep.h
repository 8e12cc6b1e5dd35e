// Lockstep points: the lanes of an AMDGPU wave execute each instruction together, so a lane's
// load sees what every other lane of its wave stored at an earlier instruction, and none of what
// they store later. The host runs a wave's lanes one after the other between synchronisation
// points; insertLockstepPoints makes the wave meet wherever that order could be seen through
// memory. See README.md ("Lockstep").
#pragma once

#include "llvm/IR/Function.h"

namespace ptx2amd::host {

/// Inserts llvm.amdgcn.wave.barrier before each memory access of the AMDGPU kernel \p F that may
/// read what another lane of its wave wrote since the wave last met, or write what another lane
/// read or wrote since then; returns how many it inserted. Runs on the AMDGPU module, before its
/// intrinsics are lowered for the host.
unsigned insertLockstepPoints(llvm::Function &F, unsigned WaveSize);

} // namespace ptx2amd::host
