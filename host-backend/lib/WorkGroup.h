// Compiled workgroups (WorkGroup.cpp): kernels that meet at synchronisation points run without a
// fiber per work-item.
#pragma once

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace llvm {
class CallInst;
class Function;
class Module;
} // namespace llvm

namespace ptx2amd::host {

/// Makes a resumable copy of \p Entry (the one-work-item wrapper of a kernel) named \p Name:
/// the kernel and what it calls on the way to a synchronisation point are inlined, and the body
/// is cut at each synchronisation point (SyncOps.h) into regions. Each work-item's run is one
/// switched-resume coroutine whose frame (from __ptx2amd_host_frame) holds what lives across a
/// synchronisation point and its private variables, and whose resume index is the region it
/// reaches next; at a synchronisation point it posts (op, operands, site) and returns to the
/// workgroup's loop, which computes the operation for the wave or workgroup and resumes each
/// work-item with its result. Sites are numbered in reverse post-order of the kernel's blocks.
/// \p State: the accessor of the work-item's LaneState (where it posts); \p ReachesSync: the
/// functions that may reach a synchronisation point.
/// Returns the reason when the kernel must stay on fibers (the copy is then not made).
std::string formWorkGroup(llvm::Function &Entry, llvm::StringRef Name, llvm::Function &State,
                          const llvm::SetVector<const llvm::Function *> &ReachesSync);

/// Inlines into \p F every call on the way to a synchronisation point; the reason when one
/// cannot be (what was inlined until then stays).
std::string inlineSyncPaths(llvm::Function &F,
                            const llvm::SetVector<const llvm::Function *> &ReachesSync);
/// \p F's synchronisation calls in reverse post-order of its blocks, the order their sites are
/// numbered in (those in unreachable blocks are left out).
std::vector<llvm::CallInst *> syncCalls(llvm::Function &F);

/// Splits the coroutines formWorkGroup made (LLVM's coroutine passes) and defines
/// __ptx2amd_host_resume(frame) when there are any; run once the module has the host's layout.
llvm::Error lowerWorkGroups(llvm::Module &M);
/// Removes the function \p Name and, when it is a lowered workgroup, its resumed parts.
void eraseWorkGroup(llvm::Module &M, llvm::StringRef Name);
/// The frame bytes each item of the lowered workgroup \p Name asks for; 0 when not known.
uint64_t frameBytes(llvm::Module &M, llvm::StringRef Name);

} // namespace ptx2amd::host
