// Warp operations on 32-lane warps: one warp per wave32 wave, two per wave64 wave (DESIGN.md).
#include "FunctionLowerer.h"

#include "ptx2amd/ptx-ir/Printer.h"

#include <fmt/format.h>

using namespace llvm;

namespace ptx2amd::lowering {
using ir::Mod;
using ir::Opcode;
using ir::Operand;

// ---- warp operations: 32-lane warps, two per wave on wave64 ----
/// The 32 bits of a wave-wide ballot that belong to this lane's warp.
Value *FunctionLowerer::warpBallot(Value *Pred) {
  if (S.Target.WaveSize == 32)
    return intrinsic(Intrinsic::amdgcn_ballot, {B.getInt32Ty()}, {Pred});
  Value *Wide = intrinsic(Intrinsic::amdgcn_ballot, {B.getInt64Ty()}, {Pred});
  Value *Shift = B.CreateZExt(B.CreateAnd(laneInWave(), 32), B.getInt64Ty());
  return B.CreateTrunc(B.CreateLShr(Wide, Shift), B.getInt32Ty());
}

void FunctionLowerer::vote(const ir::Instruction &I) {
  if (!I.has(Mod::Sync))
    unsupported();
  Value *P = get(I.Operands[1], ir::Type::Pred);
  Value *Mask = get(I.Operands[2], ir::Type::B32);
  if (I.has(Mod::Ballot)) {
    def(I.Operands[0], B.CreateAnd(warpBallot(P), Mask));
    return;
  }
  Value *Active = B.CreateAnd(warpBallot(B.getTrue()), Mask);
  Value *Yes = B.CreateAnd(warpBallot(P), Active);
  Value *Zero = B.getInt32(0);
  Value *R;
  if (I.has(Mod::Any))
    R = B.CreateICmpNE(Yes, Zero);
  else if (I.has(Mod::All))
    R = B.CreateICmpEQ(Yes, Active);
  else if (I.has(Mod::Uni)) {
    Value *None = B.CreateICmpEQ(Yes, Zero);
    R = B.CreateOr(None, B.CreateICmpEQ(Yes, Active));
  } else
    unsupported();
  def(I.Operands[0], R);
}

void FunctionLowerer::shfl(const ir::Instruction &I) {
  // shfl.sync.mode.b32 d[|p], a, b, c, membermask
  if (!I.has(Mod::Sync) || I.Operands.size() != 4u + I.NumDefs)
    unsupported();
  size_t S0 = I.NumDefs;
  Value *A = get(I.Operands[S0], ir::Type::B32);
  Value *Bv = B.CreateAnd(get(I.Operands[S0 + 1], ir::Type::B32), 31);
  Value *C = get(I.Operands[S0 + 2], ir::Type::B32);
  Value *Lane = laneId();
  Value *CVal = B.CreateAnd(C, 31), *SegMask = B.CreateAnd(B.CreateLShr(C, 8), 31);
  Value *MinLane = B.CreateAnd(Lane, SegMask);
  Value *NotSeg = B.CreateNot(SegMask);
  Value *MaxLane = B.CreateOr(MinLane, B.CreateAnd(CVal, NotSeg));
  Value *J, *InRange;
  if (I.has(Mod::Up)) {
    J = B.CreateSub(Lane, Bv);
    InRange = B.CreateICmpSGE(J, MaxLane);
  } else if (I.has(Mod::Down)) {
    J = B.CreateAdd(Lane, Bv);
    InRange = B.CreateICmpSLE(J, MaxLane);
  } else if (I.has(Mod::Bfly)) {
    J = B.CreateXor(Lane, Bv);
    InRange = B.CreateICmpSLE(J, MaxLane);
  } else if (I.has(Mod::Idx)) {
    J = B.CreateOr(MinLane, B.CreateAnd(Bv, NotSeg));
    InRange = B.CreateICmpSLE(J, MaxLane);
  } else {
    unsupported();
  }
  J = B.CreateSelect(InRange, J, Lane);
  // The source lane inside this lane's half of a wave64: ds_bpermute takes a byte address.
  Value *WaveLane = S.Target.WaveSize == 64 ? B.CreateOr(B.CreateAnd(laneInWave(), 32), J) : J;
  Value *R = intrinsic(Intrinsic::amdgcn_ds_bpermute, {}, {B.CreateShl(WaveLane, 2), A});
  def(I.Operands[0], R);
  if (I.NumDefs == 2)
    def(I.Operands[1], InRange);
}

/// redux.sync over the lanes of the member mask, inside this lane's 32-lane warp: a butterfly
/// that only reads partners in the mask (the others may be inactive).
void FunctionLowerer::redux(const ir::Instruction &I) {
  ir::Type T = type0(I);
  if (isFloat(T) || I.Operands.size() != 3)
    unsupported();
  bool Signed = isSigned(T);
  Value *V = get(I.Operands[1], T);
  Value *Mask = get(I.Operands[2], ir::Type::B32);
  Value *Base = S.Target.WaveSize == 64 ? B.CreateAnd(laneInWave(), 32) : nullptr;
  Value *Identity;
  if (I.has(Mod::Add) || I.has(Mod::Or) || I.has(Mod::Xor))
    Identity = B.getInt32(0);
  else if (I.has(Mod::And))
    Identity = B.getInt32(~0u);
  else if (I.has(Mod::Min))
    Identity = B.getInt32(Signed ? 0x7fffffff : ~0u);
  else if (I.has(Mod::Max))
    Identity = B.getInt32(Signed ? 0x80000000u : 0);
  else
    unsupported();
  auto Combine = [&](Value *X, Value *Y) -> Value * {
    if (I.has(Mod::Add))
      return B.CreateAdd(X, Y);
    if (I.has(Mod::And))
      return B.CreateAnd(X, Y);
    if (I.has(Mod::Or))
      return B.CreateOr(X, Y);
    if (I.has(Mod::Xor))
      return B.CreateXor(X, Y);
    Intrinsic::ID ID = I.has(Mod::Min) ? (Signed ? Intrinsic::smin : Intrinsic::umin)
                                       : (Signed ? Intrinsic::smax : Intrinsic::umax);
    return intrinsic(ID, {X->getType()}, {X, Y});
  };
  const Operand &MaskOp = I.Operands[2];
  if (MaskOp.K == Operand::Imm && uint32_t(MaskOp.Offset) == ~0u) {
    // The whole warp takes part: a butterfly over its 32 lanes.
    Value *Lane = laneId();
    for (unsigned Step = 16; Step >= 1; Step /= 2) {
      Value *Partner = B.CreateXor(Lane, Step);
      Value *WaveLane = Base ? B.CreateOr(Base, Partner) : Partner;
      V = Combine(V, intrinsic(Intrinsic::amdgcn_ds_bpermute, {}, {B.CreateShl(WaveLane, 2), V}));
    }
    def(I.Operands[0], V);
    return;
  }
  // A member mask (the other lanes may be inactive): every lane reads each of the 32 lanes and
  // combines the members' values.
  Value *Acc = Identity;
  for (unsigned K = 0; K < 32; ++K) {
    Value *WaveLane = Base ? B.CreateOr(Base, B.getInt32(K)) : B.getInt32(K);
    Value *Other = intrinsic(Intrinsic::amdgcn_ds_bpermute, {}, {B.CreateShl(WaveLane, 2), V});
    Value *InMask = B.CreateICmpNE(B.CreateAnd(Mask, B.getInt32(1u << K)), B.getInt32(0));
    Acc = Combine(Acc, B.CreateSelect(InMask, Other, Identity));
  }
  V = Acc;
  def(I.Operands[0], V);
}

} // namespace ptx2amd::lowering
