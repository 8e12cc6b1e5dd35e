// amdgcn intrinsics: each llvm.amdgcn.* call becomes a LaneState read (work-item and workgroup
// ids, dispatch and implicit argument pointers, dispatch id), plain IR (mbcnt, groupstaticsize,
// the math, is.shared/is.private, s.memtime) or a call into the wave emulator (barriers,
// cross-lane operations, s.sleep; Runtime.cpp); matrix instructions (MatrixEmulation.cpp) and
// image instructions (ImageUnit.cpp) have their own files. One the host backend does not know
// makes the functions that call it, and the kernels that reach them, unavailable with a reason
// naming it. llvm.trap calls the emulator's trap; lifetime markers go.
#include "Retargeter.h"

#include "ImageUnit.h"
#include "LaneState.h"
#include "MatrixEmulation.h"

#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/IR/Module.h"

#include <numbers>

using namespace llvm;

namespace ptx2amd::host {
namespace {

/// The math intrinsics (rcp, rsq, sqrt, exp2, log, sin, cos) as the generic ones; null for
/// another call.
Value *lowerAmdgcnMath(CallInst *CI, IRBuilder<> &B) {
  Type *RT = CI->getType();
  auto Arg = [&](unsigned K) { return CI->getArgOperand(K); };
  auto Unary = [&](Intrinsic::ID Generic) { return B.CreateUnaryIntrinsic(Generic, Arg(0)); };
  auto Revolutions = [&](Intrinsic::ID Generic) -> Value * {
    // amdgcn.sin/cos take turns, not radians; work in double for the scaling.
    Value *X = B.CreateFPExt(Arg(0), B.getDoubleTy());
    Value *Lowered = B.CreateUnaryIntrinsic(
        Generic, B.CreateFMul(X, ConstantFP::get(B.getDoubleTy(), 2 * std::numbers::pi)));
    return B.CreateFPTrunc(Lowered, RT);
  };
  switch (CI->getIntrinsicID()) {
  case Intrinsic::amdgcn_rcp:
    return B.CreateFDiv(ConstantFP::get(RT, 1.0), Arg(0));
  case Intrinsic::amdgcn_rsq:
    return B.CreateFDiv(ConstantFP::get(RT, 1.0), Unary(Intrinsic::sqrt));
  case Intrinsic::amdgcn_sqrt:
    return Unary(Intrinsic::sqrt);
  case Intrinsic::amdgcn_exp2:
    return Unary(Intrinsic::exp2);
  case Intrinsic::amdgcn_log: // base 2
    return Unary(Intrinsic::log2);
  case Intrinsic::amdgcn_sin:
    return Revolutions(Intrinsic::sin);
  case Intrinsic::amdgcn_cos:
    return Revolutions(Intrinsic::cos);
  default:
    return nullptr;
  }
}

/// Replaces one llvm.amdgcn.* call; false when the host backend does not implement it.
bool lowerAmdgcn(Retargeter &R, CallInst *CI, IRBuilder<> &B) {
  Type *I32 = R.I32, *I64 = R.I64;
  Intrinsic::ID ID = CI->getIntrinsicID();
  Type *RT = CI->getType();
  auto Arg = [&](unsigned K) { return CI->getArgOperand(K); };
  auto Call = [&](StringRef Name, Type *Ret, ArrayRef<Value *> Args, bool Convergent) {
    SmallVector<Type *, 4> Types;
    for (Value *V : Args)
      Types.push_back(V->getType());
    return B.CreateCall(R.runtimeFunction(Name, Ret, Types, Convergent), Args);
  };
  // Any first-class value of up to 64 bits through the emulator's i64.
  auto ToI64 = [&](Value *V) -> Value * {
    Type *Ty = V->getType();
    if (Ty->isPointerTy())
      return B.CreatePtrToInt(V, I64);
    unsigned Bits = Ty->getPrimitiveSizeInBits();
    return B.CreateZExt(B.CreateBitCast(V, B.getIntNTy(Bits)), I64);
  };
  auto FromI64 = [&](Value *V, Type *Ty) -> Value * {
    if (Ty->isPointerTy())
      return B.CreateIntToPtr(V, Ty);
    return B.CreateBitCast(B.CreateTrunc(V, B.getIntNTy(Ty->getPrimitiveSizeInBits())), Ty);
  };
  Value *Lowered = nullptr;
  switch (ID) {
  case Intrinsic::amdgcn_workitem_id_x:
  case Intrinsic::amdgcn_workitem_id_y:
  case Intrinsic::amdgcn_workitem_id_z:
    Lowered = R.field(B, state::ItemId + 4 * (ID - Intrinsic::amdgcn_workitem_id_x), I32);
    break;
  case Intrinsic::amdgcn_workgroup_id_x:
  case Intrinsic::amdgcn_workgroup_id_y:
  case Intrinsic::amdgcn_workgroup_id_z:
    Lowered = R.field(B, state::GroupId + 4 * (ID - Intrinsic::amdgcn_workgroup_id_x), I32);
    break;
  case Intrinsic::amdgcn_dispatch_ptr:
    Lowered = R.field(B, state::Dispatch, RT);
    break;
  case Intrinsic::amdgcn_implicitarg_ptr:
    Lowered = R.field(B, state::ImplicitArgs, RT);
    break;
  case Intrinsic::amdgcn_dispatch_id:
    Lowered = R.field(B, state::DispatchId, I64);
    break;
  case Intrinsic::amdgcn_groupstaticsize:
    Lowered = B.getInt32(R.Out.StaticLdsBytes);
    break;
  case Intrinsic::amdgcn_mbcnt_lo:
  case Intrinsic::amdgcn_mbcnt_hi: {
    // acc + popcount(mask & the lanes below this one, in this 32-lane half of the lane mask).
    Value *Lane = B.CreateZExt(R.field(B, state::LaneInWave, I32), I64);
    Value *Below = B.CreateSub(B.CreateShl(B.getInt64(1), Lane), B.getInt64(1));
    if (ID == Intrinsic::amdgcn_mbcnt_hi)
      Below = B.CreateLShr(Below, 32);
    Value *Bits = B.CreateAnd(Arg(0), B.CreateTrunc(Below, I32));
    Lowered = B.CreateAdd(Arg(1), B.CreateUnaryIntrinsic(Intrinsic::ctpop, Bits));
    break;
  }
  case Intrinsic::amdgcn_s_barrier:
    Call(rt::Barrier, B.getVoidTy(), {}, true);
    break;
  case Intrinsic::amdgcn_wave_barrier:
    Call(rt::WaveBarrier, B.getVoidTy(), {}, true);
    break;
  case Intrinsic::amdgcn_ballot:
    Lowered = B.CreateTrunc(Call(rt::Ballot, I64, {B.CreateZExt(Arg(0), I32)}, true), RT);
    break;
  case Intrinsic::amdgcn_ds_bpermute:
    Lowered = Call(rt::Bpermute, I32, {Arg(0), Arg(1)}, true);
    break;
  case Intrinsic::amdgcn_readlane:
    if (RT->getPrimitiveSizeInBits() > 64 && !RT->isPointerTy())
      return false;
    Lowered = FromI64(Call(rt::Readlane, I64, {ToI64(Arg(0)), Arg(1)}, true), RT);
    break;
  case Intrinsic::amdgcn_readfirstlane:
    if (RT->getPrimitiveSizeInBits() > 64 && !RT->isPointerTy())
      return false;
    Lowered = FromI64(Call(rt::Readfirstlane, I64, {ToI64(Arg(0))}, true), RT);
    break;
  case Intrinsic::amdgcn_s_sleep:
    // A lane that sleeps (spins on memory) lets the other work-items run.
    Call(rt::Sleep, B.getVoidTy(), {}, false);
    break;
  case Intrinsic::amdgcn_s_memtime:
    Lowered = B.CreateIntrinsic(Intrinsic::readcyclecounter, {});
    break;
  case Intrinsic::amdgcn_s_memrealtime:
    Lowered = Call(rt::SteadyCounter, I64, {}, false);
    break;
  case Intrinsic::amdgcn_is_shared: {
    Value *Offset = B.CreateSub(B.CreatePtrToInt(Arg(0), I64),
                                B.CreatePtrToInt(R.field(B, state::LdsWindow, R.Ptr), I64));
    Lowered = B.CreateICmpULT(Offset, B.CreateZExt(R.field(B, state::LdsBytes, I32), I64));
    break;
  }
  case Intrinsic::amdgcn_is_private: {
    Value *P = B.CreatePtrToInt(Arg(0), I64);
    Lowered = B.CreateAnd(B.CreateICmpUGE(P, R.field(B, state::PrivateLo, I64)),
                          B.CreateICmpULT(P, R.field(B, state::PrivateHi, I64)));
    break;
  }
  default:
    if (Value *Math = lowerAmdgcnMath(CI, B)) {
      Lowered = Math;
      break;
    }
    if (isEmulatedMatrixIntrinsic(ID)) {
      Lowered = emulateMatrixIntrinsic(CI, B, R.field(B, state::LaneInWave, I32),
                                       [&](Value *A, Value *D) {
                                         return Call(rt::Bpermute, I32, {A, D}, true);
                                       });
      if (!Lowered)
        return false;
      break;
    }
    // Textures and surfaces: the image unit (ImageUnit.cpp).
    return lowerImageIntrinsic(CI, B, R.T, [&](StringRef Name, Type *Ret, ArrayRef<Type *> Params) {
      return R.runtimeFunction(Name, Ret, Params, false);
    });
  }
  if (Lowered)
    CI->replaceAllUsesWith(Lowered);
  CI->eraseFromParent();
  return true;
}

} // namespace

void lowerIntrinsics(Retargeter &R) {
  IRBuilder<> B(R.C);
  std::vector<CallInst *> Calls;
  for (Function &F : R.M)
    if (F.isIntrinsic())
      for (User *U : F.users())
        if (auto *CI = dyn_cast<CallInst>(U); CI && CI->getCalledFunction() == &F)
          Calls.push_back(CI);
  for (CallInst *CI : Calls) {
    Function *Callee = CI->getCalledFunction();
    StringRef Name = Callee->getName();
    B.SetInsertPoint(CI);
    switch (CI->getIntrinsicID()) {
    case Intrinsic::trap:
    case Intrinsic::debugtrap:
    case Intrinsic::ubsantrap: {
      Function *Trap = R.runtimeFunction(rt::Trap, B.getVoidTy(), {}, false);
      Trap->setDoesNotReturn();
      B.CreateCall(Trap);
      CI->eraseFromParent();
      continue;
    }
    case Intrinsic::readsteadycounter: {
      CI->replaceAllUsesWith(B.CreateCall(R.runtimeFunction(rt::SteadyCounter, R.I64, {}, false)));
      CI->eraseFromParent();
      continue;
    }
    case Intrinsic::lifetime_start:
    case Intrinsic::lifetime_end:
      // Hints only; private allocas move to the host stack below.
      CI->eraseFromParent();
      continue;
    default:
      break;
    }
    if (!Name.starts_with("llvm.amdgcn."))
      continue;
    Function *F = CI->getFunction();
    if (lowerAmdgcn(R, CI, B))
      continue;
    // Not implemented here: the function (and the kernels that reach it) cannot run; keep the
    // module valid with a trap in its place.
    R.Broken.emplace(F, "intrinsic '" + Name.str() + "' (in function '" + F->getName().str() +
                            "') is not supported by the host backend");
    if (!CI->getType()->isVoidTy())
      CI->replaceAllUsesWith(PoisonValue::get(CI->getType()));
    Function *Trap = R.runtimeFunction(rt::Trap, B.getVoidTy(), {}, false);
    Trap->setDoesNotReturn();
    B.CreateCall(Trap);
    CI->eraseFromParent();
  }
}

} // namespace ptx2amd::host
