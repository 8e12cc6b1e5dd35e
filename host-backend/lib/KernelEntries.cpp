// Kernel entries: each kernel becomes C functions of its kernarg segment (the kernel itself
// becomes internal): an entry that runs one work-item (a fiber's, which every kernel has) and
// either a loop over a workgroup's work-items, where no barrier or cross-lane operation is
// reachable, or a compiled workgroup's resumable work-item (WorkGroup.cpp), where one is. Kernels
// that meet and cannot run here get only their entry. Once every other function is made, the
// synchronisation calls that fibers make post their sites (numberFiberSites).
#include "Retargeter.h"

#include "LaneState.h"
#include "SyncOps.h"
#include "WorkGroup.h"

#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace ptx2amd::host {
namespace {

/// The kernel's arguments, pointers into the kernarg segment \p Kernarg (the kernel takes them
/// byref), built at \p B.
SmallVector<Value *, 8> kernelArguments(Retargeter &R, IRBuilder<> &B, const RetargetedKernel &K,
                                        Value *Kernarg) {
  Function &KF = R.kernel(K);
  Value *KA = B.CreateAddrSpaceCast(Kernarg, PointerType::get(R.C, ASConst));
  SmallVector<Value *, 8> Args;
  for (unsigned I = 0; I < KF.arg_size(); ++I)
    Args.push_back(B.CreateConstInBoundsGEP1_64(R.I8, KA, K.Meta.Args[I].Offset));
  return Args;
}

/// void entry(kernarg): one work-item.
Function *buildEntry(Retargeter &R, IRBuilder<> &B, const RetargetedKernel &K) {
  auto *Entry = Function::Create(FunctionType::get(B.getVoidTy(), {R.Ptr}, false),
                                 GlobalValue::ExternalLinkage, K.Plan.EntrySymbol, R.M);
  Entry->addFnAttr(Attribute::NoUnwind);
  B.SetInsertPoint(BasicBlock::Create(R.C, "entry", Entry));
  B.CreateCall(&R.kernel(K), kernelArguments(R, B, K, Entry->getArg(0)));
  B.CreateRetVoid();
  return Entry;
}

/// void loop(kernarg, nx, ny, nz) named \p Name: every work-item of one workgroup, x fastest.
void buildLoop(Retargeter &R, IRBuilder<> &B, const RetargetedKernel &K, StringRef Name) {
  Function &KF = R.kernel(K);
  auto *Loop =
      Function::Create(FunctionType::get(B.getVoidTy(), {R.Ptr, R.I32, R.I32, R.I32}, false),
                       GlobalValue::ExternalLinkage, Name, R.M);
  Loop->addFnAttr(Attribute::NoUnwind);
  Value *N[3] = {Loop->getArg(1), Loop->getArg(2), Loop->getArg(3)};
  auto *EntryBB = BasicBlock::Create(R.C, "entry", Loop);
  B.SetInsertPoint(EntryBB);
  SmallVector<Value *, 8> Args = kernelArguments(R, B, K, Loop->getArg(0));
  BasicBlock *Pre = EntryBB;
  PHINode *Id[3];
  BasicBlock *Header[3];
  for (int D = 2; D >= 0; --D) {
    Header[D] = BasicBlock::Create(R.C, "loop" + Twine(D), Loop);
    B.CreateBr(Header[D]);
    B.SetInsertPoint(Header[D]);
    Id[D] = B.CreatePHI(R.I32, 2);
    Id[D]->addIncoming(B.getInt32(0), Pre);
    Pre = Header[D];
  }
  Value *S = B.CreateCall(R.stateFunction());
  for (unsigned D = 0; D < 3; ++D)
    B.CreateAlignedStore(Id[D], B.CreateConstInBoundsGEP1_32(R.I8, S, state::ItemId + 4 * D),
                         Align(4))
        ->setMetadata(LLVMContext::MD_alias_scope, R.StateScope);
  // Waves start at multiples of the wave size of the linear work-item id.
  Value *Linear =
      B.CreateAdd(Id[0], B.CreateMul(N[0], B.CreateAdd(Id[1], B.CreateMul(N[1], Id[2]))));
  B.CreateAlignedStore(B.CreateAnd(Linear, R.T.WaveSize - 1),
                       B.CreateConstInBoundsGEP1_32(R.I8, S, state::LaneInWave), Align(4))
      ->setMetadata(LLVMContext::MD_alias_scope, R.StateScope);
  CallInst *Run = B.CreateCall(&KF, Args);
  Run->addFnAttr(Attribute::AlwaysInline);
  for (unsigned D = 0; D < 3; ++D) {
    BasicBlock *Latch = B.GetInsertBlock();
    Value *Next = B.CreateAdd(Id[D], B.getInt32(1));
    Id[D]->addIncoming(Next, Latch);
    auto *After = BasicBlock::Create(R.C, "done" + Twine(D), Loop);
    B.CreateCondBr(B.CreateICmpULT(Next, N[D]), Header[D], After);
    B.SetInsertPoint(After);
  }
  B.CreateRetVoid();
}

} // namespace

void buildKernelEntries(Retargeter &R) {
  // Within kernels that meet, every synchronisation point (s_sleep's yield too) must reach the
  // body.
  std::set<const Function *> Syncs;
  for (const SyncOp &S : syncOps())
    if (Function *F = R.M.getFunction(S.Runtime))
      Syncs.insert(F);
  SetVector<const Function *> ReachesSync = R.reachingCallers(Syncs);
  IRBuilder<> B(R.C);
  for (size_t I = 0; I < R.Out.Kernels.size(); ++I) {
    RetargetedKernel &K = R.Out.Kernels[I];
    KernelFunctions &Made = R.Made[I];
    R.kernel(K).setLinkage(GlobalValue::InternalLinkage);
    Function *Entry = buildEntry(R, B, K);
    if (!K.Plan.Meets) {
      Made.Loop = "__ptx2amd_host_loop_" + K.Meta.Name;
      buildLoop(R, B, K, Made.Loop);
    } else if (K.Plan.Unavailable.empty()) {
      std::string Name = "__ptx2amd_host_wg_" + K.Meta.Name;
      K.Plan.FiberReason = formWorkGroup(*Entry, Name, *R.stateFunction(), ReachesSync);
      if (K.Plan.FiberReason.empty())
        Made.WorkGroup = std::move(Name);
    }
  }
}

void numberFiberSites(Retargeter &R) {
  std::set<const Function *> Syncs;
  for (const SyncOp &S : syncOps())
    if (Function *F = R.M.getFunction(S.Runtime))
      Syncs.insert(F);
  if (Syncs.empty())
    return;
  // Inlined, each call of a function is its own site, as in the compiled workgroup: two calls of
  // one shuffle function are two operations. (Where one cannot be, FiberReason says so.)
  SetVector<const Function *> ReachesSync = R.reachingCallers(Syncs);
  for (RetargetedKernel &K : R.Out.Kernels)
    if (K.Plan.Meets && K.Plan.Unavailable.empty() && K.Plan.FiberReason.empty())
      (void)inlineSyncPaths(R.kernel(K), ReachesSync);
  // Numbered in reverse post-order, as the compiled workgroup's sites: a lane at the join of a
  // divergent branch waits for the lanes still in it. (Return addresses, the sites before,
  // follow the host's code layout, which may put a rarely taken branch after its join: the
  // join's shuffle ran without the lanes in it.) The generated functions make no calls that
  // fibers run.
  uint64_t Site = 0;
  IRBuilder<> B(R.C);
  for (Function &F : R.M) {
    if (F.isDeclaration() || F.getName().starts_with("__ptx2amd_host_"))
      continue;
    std::vector<CallInst *> Calls = syncCalls(F);
    // A yield (s_sleep) meets nobody: no site.
    erase_if(Calls, [](CallInst *CI) {
      return findSyncOp(CI->getCalledFunction()->getName())->Kind == SyncKind::Yield;
    });
    if (Calls.empty())
      continue;
    B.SetInsertPoint(&*F.getEntryBlock().getFirstNonPHIOrDbgOrAlloca());
    Value *State = B.CreateCall(R.stateFunction());
    for (CallInst *CI : Calls) {
      // No alias scope: the call reads it, and the calls are marked not to touch LaneState.
      B.SetInsertPoint(CI);
      B.CreateAlignedStore(B.getInt64(++Site),
                           B.CreateConstInBoundsGEP1_32(R.I8, State, state::PostSite), Align(8));
    }
  }
}

} // namespace ptx2amd::host
