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
  // vote.sync.mode d, {!}a, membermask; the older form without .sync (and without a member
  // mask) works on the active lanes of the warp, as the full mask does.
  bool Sync = I.has(Mod::Sync);
  if (I.Operands.size() != (Sync ? 3u : 2u))
    unsupported();
  Value *P = get(I.Operands[1], ir::Type::Pred);
  Value *Mask = Sync ? get(I.Operands[2], ir::Type::B32) : B.getInt32(~0u);
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
  // shfl.sync.mode.b32 d[|p], a, b, c, membermask; the older shfl.mode.b32 d[|p], a, b, c
  // (before sm_70) reads the same source lanes.
  if (I.Operands.size() != (I.has(Mod::Sync) ? 4u : 3u) + I.NumDefs)
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

/// match.any / match.all: which member lanes of the warp hold the same value as this one. Every
/// lane reads the value of each of the 32 lanes of its warp and compares; only non-exited member
/// lanes count (the others may hold anything).
void FunctionLowerer::match(const ir::Instruction &I) {
  // match.any.sync.type d, a, membermask;  match.all.sync.type d[|p], a, membermask;
  ir::Type T = type0(I);
  bool All = I.has(Mod::All);
  size_t S0 = I.NumDefs;
  if (!I.has(Mod::Sync) || (!All && !I.has(Mod::Any)) || (!All && S0 != 1) ||
      I.Operands.size() != S0 + 2 || (ir::typeBits(T) != 32 && ir::typeBits(T) != 64))
    unsupported();
  bool Wide = ir::typeBits(T) == 64;
  Value *A = get(I.Operands[S0], Wide ? ir::Type::B64 : ir::Type::B32);
  Value *Mask = get(I.Operands[S0 + 1], ir::Type::B32);
  Value *Members = B.CreateAnd(Mask, warpBallot(B.getTrue()));
  // ds_bpermute moves 32 bits: a 64-bit value goes as two halves.
  Value *Lo = Wide ? B.CreateTrunc(A, B.getInt32Ty()) : A;
  Value *Hi = Wide ? B.CreateTrunc(B.CreateLShr(A, 32), B.getInt32Ty()) : nullptr;
  Value *Base = S.Target.WaveSize == 64 ? B.CreateAnd(laneInWave(), 32) : nullptr;
  Value *Same = nullptr;
  for (unsigned K = 0; K < 32; ++K) {
    Value *WaveLane = Base ? B.CreateOr(Base, B.getInt32(K)) : B.getInt32(K);
    Value *Address = B.CreateShl(WaveLane, 2);
    Value *OtherLo = intrinsic(Intrinsic::amdgcn_ds_bpermute, {}, {Address, Lo});
    Value *Equal = B.CreateICmpEQ(OtherLo, Lo);
    if (Wide) {
      Value *OtherHi = intrinsic(Intrinsic::amdgcn_ds_bpermute, {}, {Address, Hi});
      Equal = B.CreateAnd(Equal, B.CreateICmpEQ(OtherHi, Hi));
    }
    Value *Bit = B.CreateSelect(Equal, B.getInt32(1u << K), B.getInt32(0));
    Same = Same ? B.CreateOr(Same, Bit) : Bit;
  }
  Same = B.CreateAnd(Same, Members);
  if (!All) {
    def(I.Operands[0], Same);
    return;
  }
  // All members agree exactly when this member's matches are all of them.
  Value *Agree = B.CreateICmpEQ(Same, Members);
  def(I.Operands[0], B.CreateSelect(Agree, Members, B.getInt32(0)));
  if (S0 == 2)
    def(I.Operands[1], Agree);
}

/// elect.sync d|p, membermask: the lowest active lane of the member mask leads; d is its
/// %laneid, p is true in the leader only.
void FunctionLowerer::elect(const ir::Instruction &I) {
  if (!I.has(Mod::Sync) || I.NumDefs != 2 || I.Operands.size() != 3)
    unsupported();
  Value *Mask = get(I.Operands[2], ir::Type::B32);
  Value *Members = B.CreateAnd(Mask, warpBallot(B.getTrue()));
  Value *Leader = intrinsic(Intrinsic::cttz, {B.getInt32Ty()}, {Members, B.getFalse()});
  def(I.Operands[0], Leader);
  def(I.Operands[1], B.CreateICmpEQ(laneId(), Leader));
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
