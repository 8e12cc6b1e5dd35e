// Special registers: thread and block ids and sizes from the dispatch packet, lanes and warps
// (32-lane warps on every wave size), clocks.
#include "FunctionLowerer.h"

#include "ptx2amd/ptx-ir/Printer.h"

#include <fmt/format.h>

using namespace llvm;

namespace ptx2amd::lowering {
using ir::Mod;
using ir::Opcode;
using ir::Operand;

/// A u16/u32 field of the HSA dispatch packet.
Value *FunctionLowerer::dispatchField(unsigned Offset, unsigned Bits) {
  Value *P = intrinsic(Intrinsic::amdgcn_dispatch_ptr);
  Value *F = B.CreateGEP(B.getInt8Ty(), P, B.getInt64(Offset));
  auto *L = B.CreateAlignedLoad(B.getIntNTy(Bits), F, Align(Bits / 8));
  L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(S.Ctx, {}));
  return B.CreateZExt(L, B.getInt32Ty());
}

Value *FunctionLowerer::localSize(unsigned C) { return dispatchField(4 + 2 * C, 16); }

/// The lane of this work-item in its wave (0..63 on wave64).
Value *FunctionLowerer::laneInWave() {
  Value *Lo = intrinsic(Intrinsic::amdgcn_mbcnt_lo, {}, {B.getInt32(~0u), B.getInt32(0)});
  if (S.Target.WaveSize == 32)
    return Lo;
  return intrinsic(Intrinsic::amdgcn_mbcnt_hi, {}, {B.getInt32(~0u), Lo});
}

Value *FunctionLowerer::laneId() { return B.CreateAnd(laneInWave(), 31); }

Value *FunctionLowerer::special(const Operand &O) {
  unsigned C = O.Component;
  static constexpr Intrinsic::ID Tid[] = {Intrinsic::amdgcn_workitem_id_x,
                                          Intrinsic::amdgcn_workitem_id_y,
                                          Intrinsic::amdgcn_workitem_id_z};
  static constexpr Intrinsic::ID Ctaid[] = {Intrinsic::amdgcn_workgroup_id_x,
                                            Intrinsic::amdgcn_workgroup_id_y,
                                            Intrinsic::amdgcn_workgroup_id_z};
  switch (O.SReg) {
  case ir::SpecialReg::Tid:
    return C < 3 ? intrinsic(Tid[C]) : B.getInt32(0);
  case ir::SpecialReg::Ntid:
    return C < 3 ? localSize(C) : B.getInt32(1);
  case ir::SpecialReg::Ctaid:
    return C < 3 ? intrinsic(Ctaid[C]) : B.getInt32(0);
  case ir::SpecialReg::Nctaid: {
    if (C >= 3)
      return B.getInt32(1);
    if (S.Target.CodeObjectVersion >= 5) {
      // hidden_block_count_{x,y,z}: the first implicit kernel arguments of code object v5.
      Value *P = intrinsic(Intrinsic::amdgcn_implicitarg_ptr);
      Value *F = B.CreateGEP(B.getInt8Ty(), P, B.getInt64(4 * C));
      auto *L = B.CreateAlignedLoad(B.getInt32Ty(), F, Align(4));
      L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(S.Ctx, {}));
      return L;
    }
    // grid_size_{x,y,z} (work-items) at 12/16/20, divided by the block size, rounded up.
    Value *Grid = dispatchField(12 + 4 * C, 32);
    Value *Block = localSize(C);
    return B.CreateUDiv(B.CreateAdd(Grid, B.CreateSub(Block, B.getInt32(1))), Block);
  }
  case ir::SpecialReg::Laneid:
    return laneId();
  case ir::SpecialReg::WarpSz:
    return B.getInt32(32);
  case ir::SpecialReg::Warpid: {
    // 32-lane warps of the block, numbered by linear thread id.
    Value *X = intrinsic(Intrinsic::amdgcn_workitem_id_x);
    Value *Y = intrinsic(Intrinsic::amdgcn_workitem_id_y);
    Value *Z = intrinsic(Intrinsic::amdgcn_workitem_id_z);
    Value *NX = localSize(0);
    Value *NY = localSize(1);
    Value *YZ = B.CreateAdd(Y, B.CreateMul(NY, Z));
    return B.CreateLShr(B.CreateAdd(X, B.CreateMul(NX, YZ)), 5);
  }
  case ir::SpecialReg::LanemaskEq:
  case ir::SpecialReg::LanemaskLt:
  case ir::SpecialReg::LanemaskLe:
  case ir::SpecialReg::LanemaskGt:
  case ir::SpecialReg::LanemaskGe: {
    Value *Bit = B.CreateShl(B.getInt64(1), B.CreateZExt(laneId(), B.getInt64Ty()));
    Value *Lt = B.CreateSub(Bit, B.getInt64(1)), *Le = B.CreateOr(Lt, Bit);
    Value *R = O.SReg == ir::SpecialReg::LanemaskEq   ? Bit
               : O.SReg == ir::SpecialReg::LanemaskLt ? Lt
               : O.SReg == ir::SpecialReg::LanemaskLe ? Le
               : O.SReg == ir::SpecialReg::LanemaskGt ? B.CreateNot(Le)
                                                      : B.CreateNot(Lt);
    return B.CreateTrunc(R, B.getInt32Ty());
  }
  case ir::SpecialReg::Clock:
    return B.CreateTrunc(intrinsic(Intrinsic::readcyclecounter), B.getInt32Ty());
  case ir::SpecialReg::Clock64:
    return intrinsic(Intrinsic::readcyclecounter);
  case ir::SpecialReg::ClockHi:
    return B.CreateTrunc(B.CreateLShr(intrinsic(Intrinsic::readcyclecounter), 32), B.getInt32Ty());
  case ir::SpecialReg::Globaltimer:
  case ir::SpecialReg::GlobaltimerLo:
  case ir::SpecialReg::GlobaltimerHi: {
    // Nanoseconds: AMD GPUs count their constant real-time clock at 100 MHz.
    Value *Ns = B.CreateMul(intrinsic(Intrinsic::readsteadycounter), B.getInt64(10));
    if (O.SReg == ir::SpecialReg::GlobaltimerLo)
      return B.CreateTrunc(Ns, B.getInt32Ty());
    if (O.SReg == ir::SpecialReg::GlobaltimerHi)
      return B.CreateTrunc(B.CreateLShr(Ns, 32), B.getInt32Ty());
    return Ns;
  }
  case ir::SpecialReg::DynamicSmemSize: {
    // group_segment_size (static + dynamic LDS) minus the static part.
    Value *Group = dispatchField(28, 32);
    return B.CreateSub(Group, intrinsic(Intrinsic::amdgcn_groupstaticsize));
  }
  case ir::SpecialReg::TotalSmemSize:
  case ir::SpecialReg::AggrSmemSize:
    // The block's whole LDS allocation, static and dynamic: group_segment_size.
    return dispatchField(28, 32);
  case ir::SpecialReg::Nwarpid: {
    // Warp ids run over the block's 32-lane warps (see %warpid).
    Value *X = localSize(0);
    Value *Y = localSize(1);
    Value *Z = localSize(2);
    Value *Threads = B.CreateMul(B.CreateMul(X, Y), Z);
    return B.CreateLShr(B.CreateAdd(Threads, B.getInt32(31)), 5);
  }
  case ir::SpecialReg::Gridid:
    // A 64-bit id of this launch: the HSA dispatch id.
    return intrinsic(Intrinsic::amdgcn_dispatch_id);
  case ir::SpecialReg::Smid:
    // Any value below %nsmid is allowed and it may change during execution: one "SM" for all.
    return B.getInt32(0);
  case ir::SpecialReg::Nsmid:
    return B.getInt32(1);
  // Clusters of one block (LowerCluster.cpp): the cluster is the block.
  case ir::SpecialReg::ClusterId:
  case ir::SpecialReg::Nclusterid: {
    ir::Operand Block = O;
    Block.SReg =
        O.SReg == ir::SpecialReg::ClusterId ? ir::SpecialReg::Ctaid : ir::SpecialReg::Nctaid;
    return special(Block);
  }
  case ir::SpecialReg::ClusterCtaid:
  case ir::SpecialReg::ClusterCtarank:
    return B.getInt32(0);
  case ir::SpecialReg::ClusterNctaid:
  case ir::SpecialReg::ClusterNctarank:
    return B.getInt32(1);
  case ir::SpecialReg::IsExplicitCluster:
    return B.getFalse();
  case ir::SpecialReg::CurrentGraphExec:
    // Graphs are not launched from the device: no kernel runs in one that could be.
    return B.getInt64(0);
  case ir::SpecialReg::Envreg: {
    // CUDA's driver puts the grid workspace of a cooperative launch (cooperative_groups'
    // grid_group::sync()) in %envreg1 (high half) and %envreg2 (low half) and sets none of the
    // others. Ours is hidden_multigrid_sync_arg, 0 unless the launch is cooperative; code object
    // v4 and older have no fixed place for it.
    if ((C != 1 && C != 2) || S.Target.CodeObjectVersion < 5)
      return B.getInt32(0);
    Value *P = intrinsic(Intrinsic::amdgcn_implicitarg_ptr);
    Value *F = B.CreateGEP(B.getInt8Ty(), P, B.getInt64(C == 1 ? 92 : 88));
    auto *L = B.CreateAlignedLoad(B.getInt32Ty(), F, Align(4));
    L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(S.Ctx, {}));
    return L;
  }
  default:
    fail(fmt::format("special register '%{}' is not supported yet", ir::specialRegName(O.SReg)));
  }
}

} // namespace ptx2amd::lowering
