// The table of synchronisation points (SyncOps.h) and each cross-lane operation's semantics.
#include "SyncOps.h"

#include "LaneState.h"

#include "llvm/IR/IntrinsicsAMDGPU.h"

namespace ptx2amd::host {
namespace {

bool active(const WaveOperands &W, unsigned Lane) { return Lane < W.Count && (W.Exec >> Lane & 1); }

void combineNone(WaveOperands &W) {
  for (unsigned I = 0; I < W.Count; ++I)
    W.Result[I] = 0;
}

/// The mask of the lanes in EXEC whose predicate is set (the lowering takes its warp's half).
void combineBallot(WaveOperands &W) {
  uint64_t Mask = 0;
  for (unsigned I = 0; I < W.Count; ++I)
    if (active(W, I) && W.A[I])
      Mask |= uint64_t(1) << I;
  for (unsigned I = 0; I < W.Count; ++I)
    W.Result[I] = Mask;
}

/// ds_bpermute: A is the byte address selecting the source lane, B the data; an inactive source
/// reads 0.
void combineBpermute(WaveOperands &W) {
  for (unsigned I = 0; I < W.Count; ++I) {
    unsigned Src = unsigned(W.A[I] >> 2) & (W.WaveSize - 1);
    W.Result[I] = active(W, Src) ? uint32_t(W.B[Src]) : 0;
  }
}

/// readlane: A is the value, B the lane to read.
void combineReadlane(WaveOperands &W) {
  for (unsigned I = 0; I < W.Count; ++I) {
    unsigned Src = unsigned(W.B[I]) & (W.WaveSize - 1);
    W.Result[I] = active(W, Src) ? W.A[Src] : 0;
  }
}

void combineReadfirstlane(WaveOperands &W) {
  uint64_t First = 0;
  for (unsigned I = 0; I < W.Count; ++I)
    if (active(W, I)) {
      First = W.A[I];
      break;
    }
  for (unsigned I = 0; I < W.Count; ++I)
    W.Result[I] = First;
}

using namespace llvm;

constexpr SyncOp Table[] = {
    {Op::Barrier, rt::Barrier, Intrinsic::amdgcn_s_barrier, SyncKind::Workgroup},
    {Op::WaveBarrier, rt::WaveBarrier, Intrinsic::amdgcn_wave_barrier, SyncKind::Wave, combineNone},
    {Op::Ballot, rt::Ballot, Intrinsic::amdgcn_ballot, SyncKind::Wave, combineBallot},
    {Op::Bpermute, rt::Bpermute, Intrinsic::amdgcn_ds_bpermute, SyncKind::Wave, combineBpermute},
    {Op::Readlane, rt::Readlane, Intrinsic::amdgcn_readlane, SyncKind::Wave, combineReadlane},
    {Op::Readfirstlane, rt::Readfirstlane, Intrinsic::amdgcn_readfirstlane, SyncKind::Wave,
     combineReadfirstlane},
    {Op::Sleep, rt::Sleep, Intrinsic::amdgcn_s_sleep, SyncKind::Yield},
};
static_assert(std::size(Table) == size_t(Op::Count), "one row per Op");

constexpr bool inOrder() {
  for (size_t I = 0; I < std::size(Table); ++I)
    if (size_t(Table[I].Id) != I)
      return false;
  return true;
}
static_assert(inOrder(), "rows in Op order");

} // namespace

llvm::ArrayRef<SyncOp> syncOps() { return Table; }

const SyncOp *findSyncOp(llvm::StringRef Runtime) {
  for (const SyncOp &S : Table)
    if (Runtime == S.Runtime)
      return &S;
  return nullptr;
}

const SyncOp *findSyncOp(llvm::Intrinsic::ID Amdgcn) {
  for (const SyncOp &S : Table)
    if (Amdgcn == S.Amdgcn)
      return &S;
  return nullptr;
}

} // namespace ptx2amd::host
