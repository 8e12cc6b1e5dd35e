// The final AMDGPU module, re-targeted to the host. Everything the translation produced stays as
// it is; only what has no meaning on x86-64 is replaced:
//   - LDS variables (address space 3) become constant LDS addresses (offsets in the
//     workgroup's arena, from 0 as on AMDGPU); an LDS access goes to the arena's host address
//     (each work-item reads it from its LaneState) plus the 32-bit LDS address;
//   - llvm.amdgcn.* calls become LaneState reads, plain IR (math, mbcnt) or calls into the wave
//     emulator (Runtime.cpp); one the host backend does not know makes the functions that call
//     it, and the kernels that reach them, unavailable with a reason naming it;
//   - memory accesses through 32-bit private pointers go through zero-extended addresses;
//     private allocas move to the (low) host stack and keep a 32-bit address;
//   - kernels become C functions of the kernarg segment: an entry (one work-item, for fibers)
//     and either a loop over a workgroup's work-items (no barrier or cross-lane operation is
//     reachable) or a compiled workgroup's resumable work-item (WorkGroup.cpp).
#include "Retarget.h"

#include "ImageUnit.h"

#include "LaneState.h"
#include "Lockstep.h"
#include "MatrixEmulation.h"
#include "Runtime.h"
#include "SpinLoops.h"
#include "SyncOps.h"
#include "VectorDivision.h"
#include "VectorizeWaves.h"
#include "WorkGroup.h"

#include "ptx2amd/amdgpu-backend/Kernarg.h"
#include "ptx2amd/support/Error.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/AttributeMask.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ReplaceConstant.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/AMDGPUAddrSpace.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/LowerAtomic.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <map>
#include <numbers>
#include <set>

using namespace llvm;

namespace ptx2amd::host {
namespace {

/// Errors of this file, prefixed with what failed.
Error fail(ErrorKind K, const Twine &Msg) { return makeError(K, "host backend: " + Msg); }

constexpr unsigned ASFlat = AMDGPUAS::FLAT_ADDRESS, ASLds = AMDGPUAS::LOCAL_ADDRESS,
                   ASConst = AMDGPUAS::CONSTANT_ADDRESS, ASPrivate = AMDGPUAS::PRIVATE_ADDRESS;

bool isNarrow(unsigned AS) { return AS == ASLds || AS == ASPrivate; }

/// Marks an LDS atomic until the module's work-item functions are all made (the wave function
/// runs its lanes' atomics one by one, which must stay read-modify-writes until then).
constexpr const char *LdsAtomicKind = "ptx2amd.lds.atomic";

/// A workgroup's LDS is its worker's alone and its work-items (and waves) run one at a time, so
/// an LDS atomic is a plain read-modify-write (no lock prefix).
void lowerLdsAtomics(Module &M) {
  for (Function &F : M)
    for (Instruction &I : make_early_inc_range(instructions(F))) {
      if (!I.getMetadata(LdsAtomicKind))
        continue;
      if (auto *RMW = dyn_cast<AtomicRMWInst>(&I))
        lowerAtomicRMWInst(RMW);
      else if (auto *Cas = dyn_cast<AtomicCmpXchgInst>(&I))
        lowerAtomicCmpXchgInst(Cas);
    }
}

class Retargeter {
public:
  Retargeter(Module &M, const amdgpu::Target &T, bool Vectorize, bool MaskedMemory)
      : M(M), T(T), Vectorize(Vectorize), MaskedMemory(MaskedMemory), C(M.getContext()),
        I8(Type::getInt8Ty(C)), I32(Type::getInt32Ty(C)), I64(Type::getInt64Ty(C)),
        Ptr(PointerType::get(C, ASFlat)) {}

  Expected<RetargetedModule> run(StringRef Triple, StringRef Layout);

private:
  Module &M;
  const amdgpu::Target &T;
  bool Vectorize;    ///< make wave functions (VectorizeWaves.cpp)
  bool MaskedMemory; ///< the host has masked vector memory instructions (VectorizeWaves.h)
  LLVMContext &C;
  Type *I8, *I32, *I64;
  PointerType *Ptr;
  Function *StateFn = nullptr;
  MDNode *StateScope = nullptr; ///< alias scope of LaneState accesses
  RetargetedModule Out;
  std::map<const Function *, std::string> Broken; ///< function -> why it cannot run here

  Function *runtimeFunction(StringRef Name, Type *Ret, ArrayRef<Type *> Params, bool Convergent);
  Function *stateFunction();
  Value *field(IRBuilder<> &B, unsigned Offset, Type *Ty);
  Value *toNarrowFlat(IRBuilder<> &B, Value *P);
  void layoutKernels();
  Error replaceLds();
  void reportKernelLds(ArrayRef<std::pair<GlobalVariable *, uint64_t>> Placed);
  void lowerIntrinsics();
  bool lowerAmdgcn(CallInst *CI, IRBuilder<> &B);
  void lowerAddressSpaces();
  void makeHostFunctions();
  SetVector<const Function *> reachingCallers(const std::set<const Function *> &Seeds) const;
  void buildWrappers();
  void annotateMemory();
};

Function *Retargeter::runtimeFunction(StringRef Name, Type *Ret, ArrayRef<Type *> Params,
                                      bool Convergent) {
  if (Function *F = M.getFunction(Name))
    return F;
  auto *F = Function::Create(FunctionType::get(Ret, Params, false), GlobalValue::ExternalLinkage,
                             Name, M);
  F->addFnAttr(Attribute::NoUnwind);
  if (Convergent)
    F->addFnAttr(Attribute::Convergent);
  return F;
}

/// The accessor of this work-item's LaneState. The pointer is constant for a work-item's whole
/// run (each fiber and each loop worker has its own), so the accessor is readnone and CSEs.
Function *Retargeter::stateFunction() {
  if (!StateFn) {
    StateFn = runtimeFunction(rt::State, Ptr, {}, false);
    StateFn->setDoesNotAccessMemory();
    StateFn->addFnAttr(Attribute::WillReturn);
    StateFn->addFnAttr(Attribute::NoSync);
  }
  return StateFn;
}

Value *Retargeter::field(IRBuilder<> &B, unsigned Offset, Type *Ty) {
  Value *S = B.CreateCall(stateFunction());
  Value *P = B.CreateConstInBoundsGEP1_32(I8, S, Offset);
  auto *L =
      B.CreateAlignedLoad(Ty, P, Align(Ty->isPointerTy() ? 8 : Ty->getPrimitiveSizeInBits() / 8));
  L->setMetadata(LLVMContext::MD_alias_scope, StateScope);
  return L;
}

/// The kernel's own memory accesses never touch LaneState (only the accessor leads there), and
/// the kernarg segment does not change during a launch: alias information that lets the host
/// optimiser keep both in registers across a work-item loop.
void Retargeter::annotateMemory() {
  for (Function &F : M)
    for (Instruction &I : instructions(F)) {
      if (!I.mayReadOrWriteMemory() || I.getMetadata(LLVMContext::MD_alias_scope))
        continue;
      if (auto *CB = dyn_cast<CallBase>(&I); CB && CB->getCalledFunction() == StateFn)
        continue;
      I.setMetadata(LLVMContext::MD_noalias, StateScope);
      if (auto *L = dyn_cast<LoadInst>(&I))
        if (auto *A = dyn_cast<Argument>(getUnderlyingObject(L->getPointerOperand())))
          if (A->getParent()->getCallingConv() == CallingConv::AMDGPU_KERNEL)
            L->setMetadata(LLVMContext::MD_invariant_load, MDNode::get(C, {}));
    }
}

/// A 32-bit LDS/private pointer as the flat host address it stands for: private memory lies
/// below 4 GiB; an LDS address is an offset in the workgroup's arena, which starts a 4 GiB
/// window that is PROT_NONE past the arena (any LDS address outside it faults).
Value *Retargeter::toNarrowFlat(IRBuilder<> &B, Value *P) {
  Value *Low = B.CreateZExt(B.CreatePtrToInt(P, I32), I64);
  if (P->getType()->getPointerAddressSpace() == ASLds)
    return B.CreateGEP(I8, field(B, state::LdsWindow, Ptr), Low);
  return B.CreateIntToPtr(Low, Ptr);
}

/// Explicit arguments where the module's byref parameters put them, then the v5 hidden ones.
void Retargeter::layoutKernels() {
  const DataLayout &DL = M.getDataLayout();
  for (Function &F : M) {
    if (F.isDeclaration() || F.getCallingConv() != CallingConv::AMDGPU_KERNEL)
      continue;
    RetargetedKernel K;
    K.Meta.Name = F.getName().str();
    uint64_t Offset = 0;
    for (Argument &A : F.args()) {
      Type *Ty = F.getParamByRefType(A.getArgNo());
      amdgpu::KernelArgMetadata AM;
      AM.Name = A.getName().str();
      AM.ValueKind = "by_value";
      AM.Size = Ty ? DL.getTypeAllocSize(Ty) : DL.getTypeAllocSize(A.getType());
      uint64_t Alignment = F.getParamAlign(A.getArgNo()).valueOrOne().value();
      Offset = alignTo(Offset, Alignment);
      AM.Offset = Offset;
      Offset += AM.Size;
      K.Meta.Args.push_back(std::move(AM));
    }
    for (amdgpu::KernelArgMetadata &H : amdgpu::codeObjectV5HiddenArgs(Offset))
      K.Meta.Args.push_back(std::move(H));
    K.Meta.KernargSegmentSize = alignTo(Offset, 8) + 256;
    K.Meta.KernargSegmentAlign = 16;
    K.Meta.WavefrontSize = T.WaveSize;
    K.Meta.MaxFlatWorkgroupSize = 1024;
    K.Entry = "__ptx2amd_host_entry_" + K.Meta.Name;
    Out.Kernels.push_back(std::move(K));
  }
}

/// Each kernel's static LDS as AMDGPU reports it: the variables that the kernel and the
/// functions it reaches use, laid out alone. The arena itself keeps the module's layout.
void Retargeter::reportKernelLds(ArrayRef<std::pair<GlobalVariable *, uint64_t>> Placed) {
  const DataLayout &DL = M.getDataLayout();
  DenseMap<const Function *, SmallVector<GlobalVariable *, 4>> UsedBy;
  for (auto &[G, _] : Placed) {
    if (G->isDeclaration())
      continue;
    SmallPtrSet<const Function *, 8> Seen;
    for (User *U : G->users())
      if (auto *I = dyn_cast<Instruction>(U))
        if (Seen.insert(I->getFunction()).second)
          UsedBy[I->getFunction()].push_back(G);
  }
  for (RetargetedKernel &K : Out.Kernels) {
    Function *Kernel = M.getFunction(K.Meta.Name);
    SmallPtrSet<const Function *, 16> Reached;
    SmallVector<const Function *, 16> Work{Kernel};
    bool Indirect = false;
    while (!Work.empty()) {
      const Function *F = Work.pop_back_val();
      if (!F || !Reached.insert(F).second)
        continue;
      for (const BasicBlock &BB : *F)
        for (const Instruction &I : BB)
          if (auto *Call = dyn_cast<CallBase>(&I)) {
            if (const Function *Callee = Call->getCalledFunction())
              Work.push_back(Callee);
            else if (!Call->isInlineAsm())
              Indirect = true;
          }
    }
    SmallPtrSet<const GlobalVariable *, 16> Used;
    for (auto &[F, Gs] : UsedBy)
      if (Indirect || Reached.count(F))
        Used.insert(Gs.begin(), Gs.end());
    uint64_t Bytes = 0;
    for (auto &[G, _] : Placed)
      if (Used.count(G)) {
        Bytes = alignTo(Bytes, G->getAlign() ? G->getAlign()->value()
                                             : DL.getPrefTypeAlign(G->getValueType()).value());
        Bytes += DL.getTypeAllocSize(G->getValueType());
      }
    K.Meta.GroupSegmentFixedSize = Bytes;
  }
}

/// Static LDS variables at fixed offsets of one arena layout for the whole module (the sum of
/// all of them, which may exceed what one kernel may use: simpler than AMDGPU's per-kernel
/// layout; the arena of a launch holds them all, and dynamic LDS (`.extern .shared`, at
/// groupstaticsize) comes right after).
Error Retargeter::replaceLds() {
  const DataLayout &DL = M.getDataLayout();
  std::vector<std::pair<GlobalVariable *, uint64_t>> Placed;
  std::vector<GlobalVariable *> Dynamic;
  uint64_t Offset = 0, MaxAlign = 16;
  for (GlobalVariable &G : M.globals()) {
    if (G.getAddressSpace() != ASLds)
      continue;
    uint64_t A =
        G.getAlign() ? G.getAlign()->value() : DL.getPrefTypeAlign(G.getValueType()).value();
    MaxAlign = std::max(MaxAlign, A);
    if (G.isDeclaration()) {
      Dynamic.push_back(&G);
      continue;
    }
    Offset = alignTo(Offset, A);
    Placed.push_back({&G, Offset});
    Offset += DL.getTypeAllocSize(G.getValueType());
  }
  Offset = alignTo(Offset, MaxAlign);
  // Each kernel is held to the target's LDS by what it reaches (reportKernelLds); the module's
  // layout only has to fit an arena beside the most dynamic LDS.
  if (Offset + T.LdsBytesPerWorkgroup > MaxLdsArenaBytes)
    return fail(ErrorKind::OutOfResources,
                "the module's static LDS variables take " + Twine(Offset) +
                    " bytes, more than a launch's LDS arena holds beside " +
                    Twine(T.LdsBytesPerWorkgroup) + " bytes of dynamic LDS");
  Out.StaticLdsBytes = uint32_t(Offset);
  for (GlobalVariable *G : Dynamic)
    Placed.push_back({G, Offset});
  if (Placed.empty())
    return Error::success();
  SmallVector<Constant *, 16> Globals;
  for (auto &[G, _] : Placed)
    Globals.push_back(G);
  removeFromUsedLists(M, [&](Constant *CV) { return is_contained(Globals, CV); });
  convertUsersOfConstantsToInstructions(Globals);
  reportKernelLds(Placed);
  IRBuilder<> B(C);
  for (auto &[G, At] : Placed) {
    for (Use &U : make_early_inc_range(G->uses())) {
      auto *I = dyn_cast<Instruction>(U.getUser());
      if (!I)
        return fail(ErrorKind::Internal,
                    "LDS variable '" + G->getName() + "' is used outside of functions");
      if (auto *Phi = dyn_cast<PHINode>(I))
        B.SetInsertPoint(Phi->getIncomingBlock(U)->getTerminator());
      else
        B.SetInsertPoint(I);
      U.set(ConstantExpr::getIntToPtr(B.getInt32(uint32_t(At)), PointerType::get(C, ASLds)));
    }
    G->eraseFromParent();
  }
  return Error::success();
}

/// Replaces one llvm.amdgcn.* call; false when the host backend does not implement it.
bool Retargeter::lowerAmdgcn(CallInst *CI, IRBuilder<> &B) {
  Intrinsic::ID ID = CI->getIntrinsicID();
  Type *RT = CI->getType();
  auto Arg = [&](unsigned K) { return CI->getArgOperand(K); };
  auto Call = [&](StringRef Name, Type *Ret, ArrayRef<Value *> Args, bool Convergent) {
    SmallVector<Type *, 4> Types;
    for (Value *V : Args)
      Types.push_back(V->getType());
    CallInst *R = B.CreateCall(runtimeFunction(Name, Ret, Types, Convergent), Args);
    R->setTailCallKind(
        CallInst::TCK_NoTail); // the emulator identifies a call by its return address
    return R;
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
  auto Unary = [&](Intrinsic::ID Generic) { return B.CreateUnaryIntrinsic(Generic, Arg(0)); };
  auto Revolutions = [&](Intrinsic::ID Generic) -> Value * {
    // amdgcn.sin/cos take turns, not radians; work in double for the scaling.
    Value *X = B.CreateFPExt(Arg(0), B.getDoubleTy());
    Value *R = B.CreateUnaryIntrinsic(
        Generic, B.CreateFMul(X, ConstantFP::get(B.getDoubleTy(), 2 * std::numbers::pi)));
    return B.CreateFPTrunc(R, RT);
  };
  Value *R = nullptr;
  switch (ID) {
  case Intrinsic::amdgcn_workitem_id_x:
  case Intrinsic::amdgcn_workitem_id_y:
  case Intrinsic::amdgcn_workitem_id_z:
    R = field(B, state::ItemId + 4 * (ID - Intrinsic::amdgcn_workitem_id_x), I32);
    break;
  case Intrinsic::amdgcn_workgroup_id_x:
  case Intrinsic::amdgcn_workgroup_id_y:
  case Intrinsic::amdgcn_workgroup_id_z:
    R = field(B, state::GroupId + 4 * (ID - Intrinsic::amdgcn_workgroup_id_x), I32);
    break;
  case Intrinsic::amdgcn_dispatch_ptr:
    R = field(B, state::Dispatch, RT);
    break;
  case Intrinsic::amdgcn_implicitarg_ptr:
    R = field(B, state::ImplicitArgs, RT);
    break;
  case Intrinsic::amdgcn_dispatch_id:
    R = field(B, state::DispatchId, I64);
    break;
  case Intrinsic::amdgcn_groupstaticsize:
    R = B.getInt32(Out.StaticLdsBytes);
    break;
  case Intrinsic::amdgcn_mbcnt_lo:
  case Intrinsic::amdgcn_mbcnt_hi: {
    // acc + popcount(mask & the lanes below this one, in this 32-lane half of the lane mask).
    Value *Lane = B.CreateZExt(field(B, state::LaneInWave, I32), I64);
    Value *Below = B.CreateSub(B.CreateShl(B.getInt64(1), Lane), B.getInt64(1));
    if (ID == Intrinsic::amdgcn_mbcnt_hi)
      Below = B.CreateLShr(Below, 32);
    Value *Bits = B.CreateAnd(Arg(0), B.CreateTrunc(Below, I32));
    R = B.CreateAdd(Arg(1), B.CreateUnaryIntrinsic(Intrinsic::ctpop, Bits));
    break;
  }
  case Intrinsic::amdgcn_s_barrier:
    Call(rt::Barrier, B.getVoidTy(), {}, true);
    break;
  case Intrinsic::amdgcn_wave_barrier:
    Call(rt::WaveBarrier, B.getVoidTy(), {}, true);
    break;
  case Intrinsic::amdgcn_ballot:
    R = B.CreateTrunc(Call(rt::Ballot, I64, {B.CreateZExt(Arg(0), I32)}, true), RT);
    break;
  case Intrinsic::amdgcn_ds_bpermute:
    R = Call(rt::Bpermute, I32, {Arg(0), Arg(1)}, true);
    break;
  case Intrinsic::amdgcn_readlane:
    if (RT->getPrimitiveSizeInBits() > 64 && !RT->isPointerTy())
      return false;
    R = FromI64(Call(rt::Readlane, I64, {ToI64(Arg(0)), Arg(1)}, true), RT);
    break;
  case Intrinsic::amdgcn_readfirstlane:
    if (RT->getPrimitiveSizeInBits() > 64 && !RT->isPointerTy())
      return false;
    R = FromI64(Call(rt::Readfirstlane, I64, {ToI64(Arg(0))}, true), RT);
    break;
  case Intrinsic::amdgcn_s_sleep:
    // A lane that sleeps (spins on memory) lets the other work-items run.
    Call(rt::Sleep, B.getVoidTy(), {}, false);
    break;
  case Intrinsic::amdgcn_s_memtime:
    R = B.CreateIntrinsic(Intrinsic::readcyclecounter, {});
    break;
  case Intrinsic::amdgcn_s_memrealtime:
    R = Call(rt::SteadyCounter, I64, {}, false);
    break;
  case Intrinsic::amdgcn_rcp:
    R = B.CreateFDiv(ConstantFP::get(RT, 1.0), Arg(0));
    break;
  case Intrinsic::amdgcn_rsq:
    R = B.CreateFDiv(ConstantFP::get(RT, 1.0), Unary(Intrinsic::sqrt));
    break;
  case Intrinsic::amdgcn_sqrt:
    R = Unary(Intrinsic::sqrt);
    break;
  case Intrinsic::amdgcn_exp2:
    R = Unary(Intrinsic::exp2);
    break;
  case Intrinsic::amdgcn_log: // base 2
    R = Unary(Intrinsic::log2);
    break;
  case Intrinsic::amdgcn_sin:
    R = Revolutions(Intrinsic::sin);
    break;
  case Intrinsic::amdgcn_cos:
    R = Revolutions(Intrinsic::cos);
    break;
  case Intrinsic::amdgcn_is_shared: {
    Value *Offset = B.CreateSub(B.CreatePtrToInt(Arg(0), I64),
                                B.CreatePtrToInt(field(B, state::LdsWindow, Ptr), I64));
    R = B.CreateICmpULT(Offset, B.CreateZExt(field(B, state::LdsBytes, I32), I64));
    break;
  }
  case Intrinsic::amdgcn_is_private: {
    Value *P = B.CreatePtrToInt(Arg(0), I64);
    R = B.CreateAnd(B.CreateICmpUGE(P, field(B, state::PrivateLo, I64)),
                    B.CreateICmpULT(P, field(B, state::PrivateHi, I64)));
    break;
  }
  default:
    if (isEmulatedMatrixIntrinsic(ID)) {
      R = emulateMatrixIntrinsic(CI, B, field(B, state::LaneInWave, I32), [&](Value *A, Value *D) {
        return Call(rt::Bpermute, I32, {A, D}, true);
      });
      if (!R)
        return false;
      break;
    }
    // Textures and surfaces: the image unit (ImageUnit.cpp).
    return lowerImageIntrinsic(CI, B, T, [&](StringRef Name, Type *Ret, ArrayRef<Type *> Params) {
      return runtimeFunction(Name, Ret, Params, false);
    });
  }
  if (R)
    CI->replaceAllUsesWith(R);
  CI->eraseFromParent();
  return true;
}

void Retargeter::lowerIntrinsics() {
  IRBuilder<> B(C);
  std::vector<CallInst *> Calls;
  for (Function &F : M)
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
      Function *Trap = runtimeFunction(rt::Trap, B.getVoidTy(), {}, false);
      Trap->setDoesNotReturn();
      B.CreateCall(Trap);
      CI->eraseFromParent();
      continue;
    }
    case Intrinsic::readsteadycounter: {
      CI->replaceAllUsesWith(B.CreateCall(runtimeFunction(rt::SteadyCounter, I64, {}, false)));
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
    if (lowerAmdgcn(CI, B))
      continue;
    // Not implemented here: the function (and the kernels that reach it) cannot run; keep the
    // module valid with a trap in its place.
    Broken.emplace(F, "intrinsic '" + Name.str() + "' (in function '" + F->getName().str() +
                          "') is not supported by the host backend");
    if (!CI->getType()->isVoidTy())
      CI->replaceAllUsesWith(PoisonValue::get(CI->getType()));
    Function *Trap = runtimeFunction(rt::Trap, B.getVoidTy(), {}, false);
    Trap->setDoesNotReturn();
    B.CreateCall(Trap);
    CI->eraseFromParent();
  }
}

void Retargeter::lowerAddressSpaces() {
  IRBuilder<> B(C);
  // Constant casts from and to the 32-bit spaces become instructions, rewritten below.
  SmallVector<Constant *, 8> Casts;
  for (Function &F : M)
    for (Instruction &I : instructions(F))
      for (Value *Op : I.operands()) {
        SmallVector<Value *, 4> Work{Op};
        while (!Work.empty()) {
          auto *CE = dyn_cast<ConstantExpr>(Work.pop_back_val());
          if (!CE)
            continue;
          if (auto *AC = dyn_cast<AddrSpaceCastOperator>(CE))
            if (isNarrow(AC->getSrcAddressSpace()) || isNarrow(AC->getDestAddressSpace()))
              Casts.push_back(CE);
          Work.append(CE->op_begin(), CE->op_end());
        }
      }
  if (!Casts.empty())
    convertUsersOfConstantsToInstructions(Casts);

  for (Function &F : M) {
    for (Instruction &I : make_early_inc_range(instructions(F))) {
      B.SetInsertPoint(&I);
      auto Narrow = [&](unsigned OpNo) {
        Value *P = I.getOperand(OpNo);
        if (isNarrow(P->getType()->getPointerAddressSpace()))
          I.setOperand(OpNo, toNarrowFlat(B, P));
      };
      if (isa<LoadInst>(I)) {
        Narrow(LoadInst::getPointerOperandIndex());
      } else if (isa<StoreInst>(I)) {
        Narrow(StoreInst::getPointerOperandIndex());
      } else if (auto *RMW = dyn_cast<AtomicRMWInst>(&I)) {
        bool Lds = RMW->getPointerAddressSpace() == ASLds;
        Narrow(AtomicRMWInst::getPointerOperandIndex());
        if (Lds)
          RMW->setMetadata(LdsAtomicKind, MDNode::get(C, {}));
      } else if (auto *Cas = dyn_cast<AtomicCmpXchgInst>(&I)) {
        bool Lds = Cas->getPointerAddressSpace() == ASLds;
        Narrow(AtomicCmpXchgInst::getPointerOperandIndex());
        if (Lds)
          Cas->setMetadata(LdsAtomicKind, MDNode::get(C, {}));
      } else if (auto *AC = dyn_cast<AddrSpaceCastInst>(&I)) {
        unsigned From = AC->getSrcAddressSpace(), To = AC->getDestAddressSpace();
        if (!isNarrow(From) && !isNarrow(To))
          continue;
        Value *Src = AC->getPointerOperand(), *R;
        if (isNarrow(From) && isNarrow(To)) {
          R = B.CreateIntToPtr(B.CreatePtrToInt(Src, I32), AC->getType());
        } else if (isNarrow(From)) {
          R = toNarrowFlat(B, Src);
        } else {
          Value *Flat = B.CreatePtrToInt(Src, I64);
          if (To == ASLds)
            Flat = B.CreateSub(Flat, B.CreatePtrToInt(field(B, state::LdsWindow, Ptr), I64));
          R = B.CreateIntToPtr(B.CreateTrunc(Flat, I32), AC->getType());
        }
        AC->replaceAllUsesWith(R);
        AC->eraseFromParent();
      } else if (auto *AI = dyn_cast<AllocaInst>(&I)) {
        if (AI->getAddressSpace() != ASPrivate)
          continue;
        // On the work-item's stack, which lies below 4 GiB: its low 32 bits are its address.
        auto *New = B.CreateAlloca(AI->getAllocatedType(), ASFlat, AI->getArraySize());
        New->setAlignment(AI->getAlign());
        New->takeName(AI);
        Value *Low = B.CreateTrunc(B.CreatePtrToInt(New, I64), I32);
        AI->replaceAllUsesWith(B.CreateIntToPtr(Low, AI->getType()));
        AI->eraseFromParent();
      } else if (auto *MI = dyn_cast<MemIntrinsic>(&I)) {
        Value *Dst = MI->getRawDest();
        bool NarrowDst = isNarrow(Dst->getType()->getPointerAddressSpace());
        auto *MT = dyn_cast<MemTransferInst>(MI);
        bool NarrowSrc = MT && isNarrow(MT->getRawSource()->getType()->getPointerAddressSpace());
        if (!NarrowDst && !NarrowSrc)
          continue;
        Value *D = NarrowDst ? toNarrowFlat(B, Dst) : Dst;
        if (auto *MS = dyn_cast<MemSetInst>(MI)) {
          B.CreateMemSet(D, MS->getValue(), MS->getLength(), MS->getDestAlign(), MS->isVolatile());
        } else if (MT) {
          Value *S = NarrowSrc ? toNarrowFlat(B, MT->getRawSource()) : MT->getRawSource();
          if (isa<MemMoveInst>(MT))
            B.CreateMemMove(D, MT->getDestAlign(), S, MT->getSourceAlign(), MT->getLength(),
                            MT->isVolatile());
          else
            B.CreateMemCpy(D, MT->getDestAlign(), S, MT->getSourceAlign(), MT->getLength(),
                           MT->isVolatile());
        } else {
          Broken.emplace(&F, "intrinsic '" + MI->getCalledFunction()->getName().str() +
                                 "' on a 32-bit pointer is not supported by the host backend");
          continue;
        }
        MI->eraseFromParent();
      } else if (auto *II = dyn_cast<IntrinsicInst>(&I)) {
        for (Value *A : II->args())
          if (A->getType()->isPointerTy() && isNarrow(A->getType()->getPointerAddressSpace()) &&
              II->getIntrinsicID() != Intrinsic::ptrmask) {
            Broken.emplace(&F, "intrinsic '" + II->getCalledFunction()->getName().str() +
                                   "' on a 32-bit pointer is not supported by the host backend");
            break;
          }
      }
    }
  }
}

/// Plain C functions: no AMDGPU calling conventions, processor or features left.
void Retargeter::makeHostFunctions() {
  for (Function &F : M) {
    F.setCallingConv(CallingConv::C);
    AttributeList AL = F.getAttributes();
    AttributeMask Remove;
    for (Attribute A : AL.getFnAttrs())
      if (A.isStringAttribute() &&
          (A.getKindAsString().starts_with("amdgpu") || A.getKindAsString() == "target-cpu" ||
           A.getKindAsString() == "target-features" ||
           A.getKindAsString() == "uniform-work-group-size"))
        Remove.addAttribute(A.getKindAsString());
    F.removeFnAttrs(Remove);
    for (unsigned K = 0; K < F.arg_size(); ++K)
      F.removeParamAttr(K, Attribute::ByRef);
    for (Instruction &I : instructions(F))
      if (auto *CB = dyn_cast<CallBase>(&I))
        CB->setCallingConv(CallingConv::C);
  }
}

/// \p Seeds and every function that may call one of them (indirect calls reach every function
/// whose address is taken).
SetVector<const Function *>
Retargeter::reachingCallers(const std::set<const Function *> &Seeds) const {
  SetVector<const Function *> Reach(Seeds.begin(), Seeds.end());
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (const Function &F : M) {
      if (F.isDeclaration() || Reach.contains(&F))
        continue;
      for (const Instruction &I : instructions(F)) {
        auto *CB = dyn_cast<CallBase>(&I);
        if (!CB || CB->isInlineAsm())
          continue;
        const Function *Callee = CB->getCalledFunction();
        bool Hit = Callee ? Reach.contains(Callee)
                          : any_of(Reach, [](const Function *G) { return G->hasAddressTaken(); });
        if (Hit) {
          Changed |= Reach.insert(&F);
          break;
        }
      }
    }
  }
  return Reach;
}

void Retargeter::buildWrappers() {
  // Kernels that meet (a barrier or a cross-lane operation) need a workgroup's lanes together;
  // within those, every synchronisation point (s_sleep's yield too) must reach the body.
  std::set<const Function *> Meets, Syncs;
  for (const SyncOp &S : syncOps())
    if (Function *F = M.getFunction(S.Runtime)) {
      Syncs.insert(F);
      if (S.Kind != SyncKind::Yield)
        Meets.insert(F);
    }
  SetVector<const Function *> NeedFibers = reachingCallers(Meets);
  SetVector<const Function *> ReachesSync = reachingCallers(Syncs);
  std::set<const Function *> BrokenSet;
  for (auto &[F, _] : Broken)
    BrokenSet.insert(F);
  SetVector<const Function *> Unavailable = reachingCallers(BrokenSet);

  IRBuilder<> B(C);
  for (RetargetedKernel &K : Out.Kernels) {
    Function *KF = M.getFunction(K.Meta.Name);
    K.NeedsFibers = NeedFibers.contains(KF);
    if (Unavailable.contains(KF)) {
      // The first reason found along its call graph.
      for (auto &[F, Why] : Broken)
        if (reachingCallers(std::set<const Function *>{F}).contains(KF)) {
          K.Unavailable = Why;
          break;
        }
    }
    KF->setLinkage(GlobalValue::InternalLinkage);
    auto Params = [&](Value *Kernarg) {
      Value *KA = B.CreateAddrSpaceCast(Kernarg, PointerType::get(C, ASConst));
      SmallVector<Value *, 8> Args;
      for (unsigned I = 0; I < KF->arg_size(); ++I)
        Args.push_back(B.CreateConstInBoundsGEP1_64(I8, KA, K.Meta.Args[I].Offset));
      return Args;
    };
    auto *Entry = Function::Create(FunctionType::get(B.getVoidTy(), {Ptr}, false),
                                   GlobalValue::ExternalLinkage, K.Entry, M);
    Entry->addFnAttr(Attribute::NoUnwind);
    B.SetInsertPoint(BasicBlock::Create(C, "entry", Entry));
    B.CreateCall(KF, Params(Entry->getArg(0)));
    B.CreateRetVoid();
    if (K.NeedsFibers) {
      if (!K.Unavailable.empty())
        continue;
      K.WorkGroup = "__ptx2amd_host_wg_" + K.Meta.Name;
      K.FiberReason = formWorkGroup(*Entry, K.WorkGroup, *stateFunction(), ReachesSync);
      if (!K.FiberReason.empty())
        K.WorkGroup.clear();
      continue;
    }

    // void loop(kernarg, nx, ny, nz): every work-item of one workgroup, x fastest.
    K.Loop = "__ptx2amd_host_loop_" + K.Meta.Name;
    auto *Loop = Function::Create(FunctionType::get(B.getVoidTy(), {Ptr, I32, I32, I32}, false),
                                  GlobalValue::ExternalLinkage, K.Loop, M);
    Loop->addFnAttr(Attribute::NoUnwind);
    Value *N[3] = {Loop->getArg(1), Loop->getArg(2), Loop->getArg(3)};
    auto *EntryBB = BasicBlock::Create(C, "entry", Loop);
    B.SetInsertPoint(EntryBB);
    SmallVector<Value *, 8> Args = Params(Loop->getArg(0));
    BasicBlock *Pre = EntryBB;
    PHINode *Id[3];
    BasicBlock *Header[3];
    for (int D = 2; D >= 0; --D) {
      Header[D] = BasicBlock::Create(C, "loop" + Twine(D), Loop);
      B.CreateBr(Header[D]);
      B.SetInsertPoint(Header[D]);
      Id[D] = B.CreatePHI(I32, 2);
      Id[D]->addIncoming(B.getInt32(0), Pre);
      Pre = Header[D];
    }
    Value *S = B.CreateCall(stateFunction());
    for (unsigned D = 0; D < 3; ++D)
      B.CreateAlignedStore(Id[D], B.CreateConstInBoundsGEP1_32(I8, S, state::ItemId + 4 * D),
                           Align(4))
          ->setMetadata(LLVMContext::MD_alias_scope, StateScope);
    // Waves start at multiples of the wave size of the linear work-item id.
    Value *Linear =
        B.CreateAdd(Id[0], B.CreateMul(N[0], B.CreateAdd(Id[1], B.CreateMul(N[1], Id[2]))));
    B.CreateAlignedStore(B.CreateAnd(Linear, T.WaveSize - 1),
                         B.CreateConstInBoundsGEP1_32(I8, S, state::LaneInWave), Align(4))
        ->setMetadata(LLVMContext::MD_alias_scope, StateScope);
    CallInst *Run = B.CreateCall(KF, Args);
    Run->addFnAttr(Attribute::AlwaysInline);
    for (unsigned D = 0; D < 3; ++D) {
      BasicBlock *Latch = B.GetInsertBlock();
      Value *Next = B.CreateAdd(Id[D], B.getInt32(1));
      Id[D]->addIncoming(Next, Latch);
      auto *After = BasicBlock::Create(C, "done" + Twine(D), Loop);
      B.CreateCondBr(B.CreateICmpULT(Next, N[D]), Header[D], After);
      B.SetInsertPoint(After);
    }
    B.CreateRetVoid();
  }
}

Expected<RetargetedModule> Retargeter::run(StringRef Triple, StringRef Layout) {
  if (M.getTargetTriple().getArch() != llvm::Triple::amdgcn)
    return fail(ErrorKind::Internal,
                "module '" + M.getModuleIdentifier() + "' is not an AMDGPU module");
  MDBuilder MDB(C);
  StateScope =
      MDNode::get(C, {MDB.createAnonymousAliasScope(
                         MDB.createAnonymousAliasScopeDomain("ptx2amd.host"), "lane state")});
  layoutKernels();
  // Before the LDS variables become addresses: two variables are two objects to Lockstep.cpp.
  yieldInSpinLoops(M, [&] { return runtimeFunction(rt::Sleep, Type::getVoidTy(C), {}, false); });
  for (RetargetedKernel &K : Out.Kernels)
    K.LockstepPoints = insertLockstepPoints(*M.getFunction(K.Meta.Name), T.WaveSize);
  if (Error E = replaceLds())
    return E;
  lowerIntrinsics();
  lowerAddressSpaces();
  // What is left undefined must come from the runtime or from the host's C library (the
  // generic intrinsics that x86-64 code generation expands into libm calls).
  for (Function &F : M) {
    if (!F.isDeclaration() || F.use_empty() || F.isIntrinsic() ||
        F.getName().starts_with("__ptx2amd_host_"))
      continue;
    for (User *U : F.users())
      if (auto *I = dyn_cast<Instruction>(U))
        Broken.emplace(I->getFunction(),
                       "function '" + F.getName().str() + "' is not defined in the module");
  }
  annotateMemory();
  makeHostFunctions();
  buildWrappers();
  M.setTargetTriple(llvm::Triple(Triple));
  M.setDataLayout(Layout);
  IRBuilder<> B(C);
  for (RetargetedKernel &K : Out.Kernels) {
    if (!K.Unavailable.empty() || !Vectorize)
      continue;
    std::string Name = "__ptx2amd_host_wave_" + K.Meta.Name;
    bool Barriers = false;
    K.WaveReason = vectorizeWave(*M.getFunction(K.Entry), Name, T.WaveSize, MaskedMemory, Barriers);
    if (!K.WaveReason.empty())
      continue;
    if (Barriers) {
      // Waves that meet at barriers: each a compiled workgroup's item reading its lanes from
      // its LaneState.
      Function *Wave = M.getFunction(Name);
      auto *Item = Function::Create(FunctionType::get(B.getVoidTy(), {Ptr}, false),
                                    GlobalValue::InternalLinkage, Name + ".item", M);
      B.SetInsertPoint(BasicBlock::Create(C, "entry", Item));
      Value *S = B.CreateCall(stateFunction());
      auto Read = [&](unsigned Offset, Type *Ty) {
        auto *L = B.CreateAlignedLoad(Ty, B.CreateConstInBoundsGEP1_32(I8, S, Offset), Align(8));
        L->setMetadata(LLVMContext::MD_alias_scope, StateScope);
        return L;
      };
      B.CreateCall(Wave, {Item->getArg(0), Read(state::WaveIds, Ptr), Read(state::WaveExec, I64)});
      B.CreateRetVoid();
      std::string Group = "__ptx2amd_host_wavewg_" + K.Meta.Name;
      SetVector<const Function *> Reach;
      Reach.insert(Wave);
      std::string Why = formWorkGroup(*Item, Group, *stateFunction(), Reach);
      Item->eraseFromParent();
      Wave->eraseFromParent();
      if (!Why.empty()) {
        K.WaveReason = "its waves cannot be cut at barriers: " + Why;
        continue;
      }
      K.WaveGroup = std::move(Group);
    } else {
      K.Wave = std::move(Name);
    }
  }
  widenVectorDivisions(M);
  if (Error E = lowerWorkGroups(M))
    return E;
  for (RetargetedKernel &K : Out.Kernels) {
    if (K.Wave.empty() && K.WaveGroup.empty())
      continue;
    // A wave's frame holds what its lanes keep across barriers, in one work-item's stack:
    // where it does not fit, the work-items run (NVIDIA's binomialOptions kept 70400 bytes).
    if (uint64_t Bytes = frameBytes(M, K.WaveGroup); Bytes > FiberStack) {
      K.WaveReason = "its waves would keep " + std::to_string(Bytes) +
                     " bytes across barriers, more than a frame's " + std::to_string(FiberStack);
      eraseWorkGroup(M, K.WaveGroup);
      K.WaveGroup.clear();
      continue;
    }
    // Its waves replace the work-item loop and the compiled workgroup (compiling them too
    // would double the time a load takes); the fiber entry stays, for LaunchConfig::Fibers.
    for (std::string *Sym : {&K.Loop, &K.WorkGroup})
      if (!Sym->empty()) {
        eraseWorkGroup(M, *Sym);
        Sym->clear();
      }
  }
  lowerLdsAtomics(M);
  std::string Text;
  raw_string_ostream OS(Text);
  if (verifyModule(M, &OS))
    return fail(ErrorKind::Internal,
                "the retargeted module is invalid: " + StringRef(Text).rtrim());
  return Out;
}

} // namespace

std::string hostDataLayout(const DataLayout &Host) {
  return Host.getStringRepresentation() + "-p3:32:32-p5:32:32";
}

Expected<RetargetedModule> retargetModule(Module &M, const amdgpu::Target &T,
                                          const HostTarget &Host, bool Vectorize) {
  return Retargeter(M, T, Vectorize && vectorizingWaves(), Host.MaskedVectorMemory)
      .run(Host.Triple, Host.DataLayout);
}

} // namespace ptx2amd::host
