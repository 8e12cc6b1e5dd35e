// Compiled workgroups: a kernel that meets at barriers or cross-lane operations runs each
// work-item as a switched-resume coroutine (LLVM's coroutine lowering does the cutting into
// regions and keeps what lives across a cut in the frame), so the workgroup's loop in
// WorkItems.cpp runs work-item after work-item up to their next synchronisation point and
// computes the wave's or workgroup's operation between two regions; no fiber, no context
// switch. A kernel whose synchronisation points cannot all be brought into its body stays on
// fibers.
#include "WorkGroup.h"

#include "LaneState.h"
#include "PassSetup.h"
#include "SyncOps.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace llvm;

namespace ptx2amd::host {
namespace {

/// Inlining steps before a kernel is left to fibers (recursion through a synchronisation point
/// never ends).
constexpr unsigned MaxInlined = 512;

Function *declare(Module &M, StringRef Name, Type *Ret, ArrayRef<Type *> Params) {
  if (Function *F = M.getFunction(Name))
    return F;
  auto *F = Function::Create(FunctionType::get(Ret, Params, false), GlobalValue::ExternalLinkage,
                             Name, M);
  F->addFnAttr(Attribute::NoUnwind);
  return F;
}

const SyncOp *syncOpOf(const CallBase &CB) {
  const Function *Callee = CB.getCalledFunction();
  return Callee && Callee->isDeclaration() ? findSyncOp(Callee->getName()) : nullptr;
}

/// What the coroutine lowering cannot keep in a frame.
std::string unsupportedFrame(Function &F) {
  for (Instruction &I : instructions(F)) {
    if (auto *AI = dyn_cast<AllocaInst>(&I); AI && !AI->isStaticAlloca())
      return "a dynamically sized private allocation";
    if (auto *II = dyn_cast<IntrinsicInst>(&I))
      if (II->getIntrinsicID() == Intrinsic::stacksave ||
          II->getIntrinsicID() == Intrinsic::stackrestore)
        return "a stack save/restore";
  }
  return "";
}

} // namespace

std::string inlineSyncPaths(Function &F, const SetVector<const Function *> &ReachesSync) {
  bool AddressTakenSyncs = any_of(
      ReachesSync, [](const Function *G) { return !G->isDeclaration() && G->hasAddressTaken(); });
  for (unsigned Inlined = 0;; ++Inlined) {
    CallBase *Next = nullptr;
    for (Instruction &I : instructions(F)) {
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB || CB->isInlineAsm())
        continue;
      const Function *Callee = CB->getCalledFunction();
      if (!Callee) {
        if (AddressTakenSyncs)
          return "an indirect call may reach a synchronisation point";
        continue;
      }
      if (!Callee->isDeclaration() && ReachesSync.contains(Callee)) {
        Next = CB;
        break;
      }
    }
    if (!Next)
      return "";
    if (Inlined == MaxInlined)
      return "a synchronisation point in a function called recursively or too often";
    std::string Callee = Next->getCalledFunction()->getName().str();
    InlineFunctionInfo IFI;
    if (InlineResult R = InlineFunction(*Next, IFI); !R.isSuccess())
      return "a synchronisation point in function '" + Callee + "', which cannot be inlined (" +
             R.getFailureReason() + ")";
  }
}

std::vector<CallInst *> syncCalls(Function &F) {
  std::vector<CallInst *> Syncs;
  ReversePostOrderTraversal<Function *> RPO(&F);
  for (BasicBlock *BB : RPO)
    for (Instruction &I : *BB)
      if (auto *CI = dyn_cast<CallInst>(&I); CI && syncOpOf(*CI))
        Syncs.push_back(CI);
  return Syncs;
}

std::string formWorkGroup(Function &Entry, StringRef Name, Function &State,
                          const SetVector<const Function *> &ReachesSync) {
  Module &M = *Entry.getParent();
  LLVMContext &C = M.getContext();
  ValueToValueMapTy VMap;
  Function *F = CloneFunction(&Entry, VMap);
  F->setName(Name);
  F->setLinkage(GlobalValue::ExternalLinkage);
  auto Drop = [&](std::string Why) {
    F->eraseFromParent();
    return Why;
  };
  if (std::string Why = inlineSyncPaths(*F, ReachesSync); !Why.empty())
    return Drop(std::move(Why));
  if (std::string Why = unsupportedFrame(*F); !Why.empty())
    return Drop(std::move(Why));

  // Synchronisation points in reverse post-order: a wave runs the group at the lowest site
  // first, so lanes that went ahead to where the wave reconverges (after a loop, past a
  // divergent branch) wait for the others to get there.
  std::vector<CallInst *> Syncs = syncCalls(*F);
  for (CallInst *CI : Syncs)
    if (CI->arg_size() > 2)
      return Drop("synchronisation point '" + CI->getCalledFunction()->getName().str() +
                  "' with more than two operands");
  // Unreachable blocks may still hold some: they never run, a trap keeps them valid.
  for (Instruction &I : make_early_inc_range(instructions(*F)))
    if (auto *CI = dyn_cast<CallInst>(&I); CI && syncOpOf(*CI) && !is_contained(Syncs, CI)) {
      if (!CI->getType()->isVoidTy())
        CI->replaceAllUsesWith(PoisonValue::get(CI->getType()));
      CI->eraseFromParent();
    }

  Type *I8 = Type::getInt8Ty(C), *I64 = Type::getInt64Ty(C);
  Type *Ptr = PointerType::get(C, 0);
  Function *FrameFn = declare(M, rt::Frame, Ptr, {I64});

  // The frame: this work-item's, from the runtime. The entry block's allocas (a vectorised
  // wave's scratch, what inlining brought) stay before it is made: the coroutine lowering puts
  // those that live across a synchronisation point in the frame, but one left after the start
  // would be in the resumed body's first piece only and not dominate its later uses.
  BasicBlock &EntryBB = F->getEntryBlock();
  for (Instruction &I : make_early_inc_range(EntryBB))
    if (isa<AllocaInst>(I))
      I.moveBefore(EntryBB.begin());
  IRBuilder<> B(&*EntryBB.getFirstNonPHIOrDbgOrAlloca());
  Value *Id = B.CreateIntrinsic(Intrinsic::coro_id, {},
                                {B.getInt32(16), ConstantPointerNull::get(cast<PointerType>(Ptr)),
                                 ConstantPointerNull::get(cast<PointerType>(Ptr)),
                                 ConstantPointerNull::get(cast<PointerType>(Ptr))});
  Value *Size = B.CreateIntrinsic(Intrinsic::coro_size, {I64}, {});
  Value *Mem = B.CreateCall(FrameFn, {Size});
  Value *Handle = B.CreateIntrinsic(Intrinsic::coro_begin, {}, {Id, Mem});
  // The work-item's state pointer, read once at the start: the frame keeps it (each read is a
  // thread-local access).
  CallInst *Mine = B.CreateCall(&State);
  for (Use &U : make_early_inc_range(State.uses()))
    if (auto *CB = dyn_cast<CallInst>(U.getUser());
        CB && CB != Mine && CB->getFunction() == F && CB->getCalledOperand() == &State) {
      CB->replaceAllUsesWith(Mine);
      CB->eraseFromParent();
    }
  // What a work-item posts and reads back: fields of its LaneState.
  auto Field = [&](unsigned Offset) { return B.CreateConstInBoundsGEP1_32(I8, Mine, Offset); };

  // Returning to the workgroup's loop, and the destroy path (nothing to free).
  auto *Return = BasicBlock::Create(C, "wg.return", F);
  auto *Cleanup = BasicBlock::Create(C, "wg.cleanup", F);
  B.SetInsertPoint(Cleanup);
  B.CreateIntrinsic(Intrinsic::coro_free, {}, {Id, Handle});
  B.CreateBr(Return);
  B.SetInsertPoint(Return);
  B.CreateIntrinsic(Intrinsic::coro_end, {}, {Handle, B.getFalse(), ConstantTokenNone::get(C)});
  B.CreateRetVoid();

  auto Suspend = [&](Instruction *Before, bool Final, BasicBlock *Resume) {
    B.SetInsertPoint(Before);
    Value *S = B.CreateIntrinsic(Intrinsic::coro_suspend, {},
                                 {ConstantTokenNone::get(C), B.getInt1(Final)});
    SwitchInst *Sw = B.CreateSwitch(S, Return, 2);
    Sw->addCase(ConstantInt::get(cast<IntegerType>(I8), 0), Resume ? Resume : Return);
    Sw->addCase(ConstantInt::get(cast<IntegerType>(I8), 1), Cleanup);
  };

  // The start only makes the frame: the whole body runs in the resumed function, whose frame
  // argument nothing else reaches (lowerWorkGroups), so what is kept there stays in registers
  // across the body's memory accesses.
  {
    BasicBlock *Body = SplitBlock(&EntryBB, Mine->getNextNode());
    Instruction *Br = EntryBB.getTerminator();
    Suspend(Br, false, Body);
    Br->eraseFromParent();
  }

  uint64_t Site = 0;
  for (CallInst *CI : Syncs) {
    const SyncOp &Row = *syncOpOf(*CI);
    B.SetInsertPoint(CI);
    Value *Ops[2] = {B.getInt64(0), B.getInt64(0)};
    for (unsigned K = 0; K < CI->arg_size(); ++K) {
      Value *A = CI->getArgOperand(K);
      Ops[K] = A->getType()->isPointerTy() ? B.CreatePtrToInt(A, I64) : B.CreateZExt(A, I64);
    }
    B.CreateAlignedStore(B.getInt32(unsigned(Row.Id)), Field(state::PostOp), Align(4));
    B.CreateAlignedStore(Ops[0], Field(state::PostA), Align(8));
    B.CreateAlignedStore(Ops[1], Field(state::PostB), Align(8));
    B.CreateAlignedStore(B.getInt64(++Site), Field(state::PostSite), Align(8));
    BasicBlock *Before = CI->getParent();
    BasicBlock *After = SplitBlock(Before, CI);
    Instruction *Br = Before->getTerminator();
    Suspend(Br, false, After);
    Br->eraseFromParent();
    B.SetInsertPoint(CI);
    if (!CI->getType()->isVoidTy()) {
      Value *R = B.CreateAlignedLoad(I64, Field(state::Result), Align(8));
      CI->replaceAllUsesWith(B.CreateTrunc(R, CI->getType()));
    }
    CI->eraseFromParent();
  }
  // Every return ends the work-item's run at the final suspend point.
  for (BasicBlock &BB : *F)
    if (auto *Ret = dyn_cast<ReturnInst>(BB.getTerminator()); Ret && &BB != Return) {
      Suspend(Ret, true, nullptr);
      Ret->eraseFromParent();
    }
  F->setPresplitCoroutine();
  return "";
}

/// The functions LLVM's switched-resume lowering makes of a coroutine beside its ramp.
constexpr const char *ResumedParts[] = {".resume", ".destroy", ".cleanup"};

Error lowerWorkGroups(Module &M) {
  bool Any = any_of(M, [](const Function &F) { return F.isPresplitCoroutine(); });
  if (!Any)
    return Error::success();
  PassSetup P;
  ModulePassManager MPM;
  if (Error E = P.PB.parsePassPipeline(MPM, "coro-early,cgscc(coro-split),coro-cleanup"))
    return E;

  // resume(frame): what the workgroup's loop calls (the resume function's own calling
  // convention is the coroutine lowering's business).
  LLVMContext &C = M.getContext();
  Type *Ptr = PointerType::get(C, 0);
  auto *Resume = Function::Create(FunctionType::get(Type::getVoidTy(C), {Ptr}, false),
                                  GlobalValue::ExternalLinkage, rt::Resume, M);
  Resume->addFnAttr(Attribute::NoUnwind);
  IRBuilder<> B(BasicBlock::Create(C, "entry", Resume));
  B.CreateIntrinsic(Intrinsic::coro_resume, {}, {Resume->getArg(0)});
  B.CreateRetVoid();

  std::vector<std::string> Ramps;
  for (Function &F : M)
    if (F.isPresplitCoroutine())
      Ramps.push_back(F.getName().str());
  MPM.run(M, P.MAM);
  // The resumed regions: the frame is reached through their argument only (see FrameFn).
  for (const std::string &Ramp : Ramps)
    for (const char *Part : ResumedParts)
      if (Function *F = M.getFunction(Ramp + Part))
        F->addParamAttr(0, Attribute::NoAlias);
  return Error::success();
}

void eraseWorkGroup(Module &M, StringRef Name) {
  SmallVector<Function *, 4> Parts;
  if (Function *Ramp = M.getFunction(Name))
    Parts.push_back(Ramp);
  for (const char *Part : ResumedParts)
    if (Function *F = M.getFunction((Name + Part).str()))
      Parts.push_back(F);
  for (Function *F : Parts)
    F->dropAllReferences();
  // The coroutine lowering's table of the resumed parts goes with them.
  if (GlobalVariable *Table = M.getGlobalVariable((Name + ".resumers").str(), true))
    Table->eraseFromParent();
  for (Function *F : Parts)
    F->eraseFromParent();
}

uint64_t frameBytes(Module &M, StringRef Name) {
  Function *Ramp = M.getFunction(Name);
  Function *FrameFn = M.getFunction(rt::Frame);
  if (!Ramp || !FrameFn)
    return 0;
  for (User *U : FrameFn->users())
    if (auto *CI = dyn_cast<CallInst>(U); CI && CI->getFunction() == Ramp)
      if (auto *Bytes = dyn_cast<ConstantInt>(CI->getArgOperand(0)))
        return Bytes->getZExtValue();
  return 0;
}

} // namespace ptx2amd::host
