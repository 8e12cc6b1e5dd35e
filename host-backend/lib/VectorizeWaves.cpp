// Whole-function vectorisation over a wave's lanes. The work-item entry is copied, everything it
// calls is inlined, and its control flow is put in the structured form AMDGPU's own code
// generation gives it (one exit, no switches, no irreducible loops, loops exiting at their latch,
// each divergent branch a region that joins at a flow block): the form in which a branch is
// executed by the lanes that take it under EXEC. Then every value is classified uniform (one
// scalar for the wave: kernel arguments, workgroup ids, what only those reach) or varying (a
// vector of WaveSize lanes), and the copy is rewritten as a wave:
//   - a divergent branch runs its region under mask & condition and is skipped when no lane
//     takes it; at the flow block, values from the region are blended with the others' (select);
//   - a divergent loop runs while any lane stays; a value leaving it is the one each lane had
//     when it left (an accumulator blended at the latch);
//   - loads and stores become masked vector accesses when the lanes' addresses are consecutive
//     (checked at run time), gathers and scatters otherwise; atomics, calls with side effects
//     and what has no vector form run lane by lane over the active lanes;
//   - ballot, ds_bpermute, readlane, readfirstlane act on the vectors; a wave barrier is a no-op,
//     since the lanes run each instruction together, which is the lockstep order of a wave.
//
// The class is declared in WaveVectorizer.h; this file holds the driver (the prepared copy, the
// uniformity fixed point, the wave's blocks under their masks, branches, loops and phis),
// WaveEmit.cpp each instruction's wave form, WaveMemory.cpp the lanes' addresses and accesses.
#include "VectorizeWaves.h"

#include "LaneState.h"
#include "PassSetup.h"
#include "WaveVectorizer.h"

#include "ptx2amd/amdgpu-backend/Codegen.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Scalar/StructurizeCFG.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/FixIrreducible.h"
#include "llvm/Transforms/Utils/LCSSA.h"
#include "llvm/Transforms/Utils/Local.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/LowerSwitch.h"
#include "llvm/Transforms/Utils/UnifyFunctionExitNodes.h"
#include "llvm/Transforms/Utils/UnifyLoopExits.h"

using namespace llvm;

namespace ptx2amd::host {
namespace {

/// A function a wave calls once for each active lane, with that lane's operands, instead of
/// inlining and vectorising it: the software texture path's entry points (kept out of line for
/// the CPU device, CodegenOptions::OutlineSoftwareTextures), whose thousands of divergent
/// instructions a wave of vectors makes slow to compile and no faster to run. They read no
/// work-item state.
bool isLaneSubroutine(const Function &F) {
  return !F.isDeclaration() && F.hasFnAttribute(Attribute::NoInline) &&
         amdgpu::isSoftwareTextureEntry(F.getName());
}

} // namespace

namespace detail {

int64_t stateOffset(const Value *P) {
  int64_t Off = 0;
  if (auto *G = dyn_cast<GetElementPtrInst>(P)) {
    APInt A(64, 0);
    if (!G->getSourceElementType()->isIntegerTy(8) || G->getNumIndices() != 1 ||
        !G->accumulateConstantOffset(G->getDataLayout(), A))
      return -1;
    Off = A.getSExtValue();
    P = G->getPointerOperand();
  }
  auto *CI = dyn_cast<CallInst>(P);
  if (!CI || !CI->getCalledFunction() || CI->getCalledFunction()->getName() != rt::State)
    return -1;
  return Off;
}

CallKind Vectorizer::callKind(const CallInst &CI) const {
  const Function *Callee = CI.getCalledFunction();
  if (!Callee || CI.isInlineAsm())
    return CallKind::Reject;
  auto AnyVarying = [&] {
    return any_of(CI.args(), [&](const Value *A) { return Varying.count(A) != 0; });
  };
  if (Intrinsic::ID ID = Callee->getIntrinsicID()) {
    switch (ID) {
    case Intrinsic::lifetime_start:
    case Intrinsic::lifetime_end:
    case Intrinsic::assume:
    case Intrinsic::experimental_noalias_scope_decl:
    case Intrinsic::sideeffect:
    case Intrinsic::dbg_declare:
    case Intrinsic::dbg_value:
    case Intrinsic::dbg_label:
      return CallKind::Drop;
    default:
      break;
    }
    if (isTriviallyVectorizable(ID) && !CI.getType()->isVectorTy()) {
      for (unsigned I = 0; I < CI.arg_size(); ++I)
        if (isVectorIntrinsicWithScalarOpAtArg(ID, I, nullptr) &&
            Varying.count(CI.getArgOperand(I)))
          return CallKind::PerLane;
      return CallKind::Vector;
    }
    return AnyVarying() ? CallKind::PerLane : CallKind::Once;
  }
  StringRef N = Callee->getName();
  if (N == rt::State)
    return CallKind::State;
  if (N == rt::WaveBarrier)
    return CallKind::Drop;
  if (N == rt::Ballot)
    return CallKind::Ballot;
  if (N == rt::Bpermute)
    return CallKind::Bpermute;
  if (N == rt::Readlane)
    return Varying.count(CI.getArgOperand(1)) ? CallKind::Reject : CallKind::Readlane;
  if (N == rt::Readfirstlane)
    return CallKind::Readfirstlane;
  if (N == rt::Trap || N == rt::SteadyCounter || N == rt::Barrier)
    return CallKind::Once; // a barrier: the wave arrives (WorkGroup.cpp cuts the wave there)
  if (N.starts_with("__ptx2amd_host_") && !N.starts_with("__ptx2amd_host_image") &&
      !N.starts_with("__ptx2amd_host_cube"))
    return CallKind::Reject; // barriers, yields, frames
  if (isLaneSubroutine(*Callee))
    return CallKind::PerLane;
  if (!Callee->isDeclaration())
    return CallKind::Reject; // left uninlined (recursion): it may read its work-item's state
  if (CI.doesNotAccessMemory() && !AnyVarying())
    return CallKind::Once;
  return CallKind::PerLane;
}

/// Uniform or varying, to a fixed point: a value is varying when an operand is, when it is a
/// lane's own (work-item ids, private memory, an atomic's result, a per-lane call), or when it
/// is a phi where lanes from two paths meet (the join of a divergent branch, the exit of a
/// divergent loop).
bool Vectorizer::classify() {
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (BasicBlock &BB : Src) {
      for (Instruction &I : BB) {
        if (Varying.count(&I))
          continue;
        bool V = any_of(I.operands(), [&](const Use &U) { return Varying.count(U.get()) != 0; });
        if (auto *L = dyn_cast<LoadInst>(&I)) {
          int64_t Off = stateOffset(L->getPointerOperand());
          if (Off >= 0 && (Off == state::ItemId || Off == state::ItemId + 4 ||
                           Off == state::ItemId + 8 || Off == state::LaneInWave))
            V = true;
          if (Off == state::PrivateLo || Off == state::PrivateHi)
            return reject("it reads its private stack's bounds (is.private)");
          V |= L->isAtomic();
        } else if (isa<AllocaInst>(I) || isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I)) {
          V = true;
        } else if (auto *S = dyn_cast<StoreInst>(&I)) {
          V |= S->isAtomic();
        } else if (auto *CI = dyn_cast<CallInst>(&I)) {
          CallKind K = callKind(*CI);
          if (K == CallKind::Reject)
            return reject("it calls '" +
                          (CI->getCalledFunction() ? CI->getCalledFunction()->getName()
                                                   : StringRef("an indirect function")) +
                          "'");
          if (K == CallKind::PerLane || K == CallKind::Bpermute)
            V = true;
          if (K == CallKind::Ballot || K == CallKind::Readlane || K == CallKind::Readfirstlane ||
              K == CallKind::State || K == CallKind::Drop)
            V = false;
        } else if (isa<PHINode>(I)) {
          V |= isDivergentJoin(&BB) || divergentExitOf(&BB);
        }
        if (V) {
          Varying.insert(&I);
          Changed = true;
        }
      }
      auto *Br = dyn_cast<BranchInst>(BB.getTerminator());
      if (Br && Br->isConditional() && Br->getSuccessor(0) != Br->getSuccessor(1) &&
          Varying.count(Br->getCondition()) && Divergent.insert(&BB).second) {
        Changed = true;
        Loop *L = LI.getLoopFor(&BB);
        if (L && L->getLoopLatch() == &BB && is_contained(successors(&BB), L->getHeader())) {
          if (L->getExitingBlock() != &BB || !L->getExitBlock() ||
              !L->getExitBlock()->getSinglePredecessor())
            return reject("a divergent loop that does not exit at its latch alone");
          DivergentLoops.insert(L);
          continue;
        }
        // A divergent region: one successor is entered only from here, the other is where the
        // region's lanes and the others join.
        BasicBlock *S0 = Br->getSuccessor(0), *S1 = Br->getSuccessor(1);
        BasicBlock *Join = PDT.dominates(S0, &BB) ? S0 : PDT.dominates(S1, &BB) ? S1 : nullptr;
        BasicBlock *Entry = Join == S0 ? S1 : S0;
        if (!Join || !Entry->getSinglePredecessor() ||
            DT.getNode(Join)->getIDom()->getBlock() != &BB || pred_size(Join) != 2 ||
            JoinOf.count(Join) || LI.isLoopHeader(Entry) || LI.isLoopHeader(Join))
          return reject("a divergent branch in '" + BB.getName() +
                        "' that is not a structured region");
        Regions[&BB] = {Entry, Join};
        JoinOf[Join] = &BB;
      }
    }
  }
  return true;
}

const Loop *Vectorizer::divergentExitOf(const BasicBlock *BB) const {
  const BasicBlock *P = BB->getSinglePredecessor();
  if (!P)
    return nullptr;
  const Loop *L = LI.getLoopFor(P);
  for (; L; L = L->getParentLoop())
    if (DivergentLoops.count(L) && L->getExitBlock() == BB)
      return L;
  return nullptr;
}

bool Vectorizer::checkShape() {
  for (Loop *L : LI.getLoopsInPreorder())
    if (!L->getLoopPreheader() || !L->getLoopLatch())
      return reject("a loop without a preheader or one latch");
  for (BasicBlock &BB : Src) {
    Instruction *T = BB.getTerminator();
    if (!isa<BranchInst>(T) && !isa<ReturnInst>(T))
      return reject("a '" + Twine(T->getOpcodeName()) + "' terminator");
  }
  return true;
}

void Vectorizer::emitBlock(BasicBlock &BB) {
  CurOld = &BB;
  B->SetInsertPoint(First[&BB]);
  Type *MT = FixedVectorType::get(B->getInt1Ty(), W);
  // The lanes that run this block.
  if (&BB == &Src.getEntryBlock()) {
    Mask[&BB] = B->CreateBitCast(B->CreateTrunc(Exec, B->getIntNTy(W)), MT);
  } else if (LI.isLoopHeader(&BB) || (!BB.getSinglePredecessor() && !isDivergentJoin(&BB))) {
    PHINode *P = B->CreatePHI(MT, 2, "mask");
    MaskPhi[&BB] = P;
    Mask[&BB] = P;
  } else if (isDivergentJoin(&BB)) {
    Mask[&BB] = Mask.lookup(JoinOf.lookup(&BB));
  } else if (const Loop *L = divergentExitOf(&BB)) {
    Mask[&BB] = Mask.lookup(L->getLoopPreheader());
  } else {
    Mask[&BB] = EdgeMask.at({BB.getSinglePredecessor(), &BB});
  }
  // Accumulators of a divergent loop's exit values.
  if (Loop *L = LI.isLoopHeader(&BB) ? LI.getLoopFor(&BB) : nullptr; L && DivergentLoops.count(L))
    for (PHINode &XP : L->getExitBlock()->phis()) {
      Type *T = widen(XP.getType());
      if (!T) {
        reject("a value of a type that has no vector form leaves a divergent loop");
        return;
      }
      Accumulators[&XP] = {B->CreatePHI(T, 2, "acc"), nullptr};
    }
  for (Instruction &I : BB) {
    if (auto *P = dyn_cast<PHINode>(&I)) {
      if (auto It = Accumulators.find(P); It != Accumulators.end()) {
        Map[P] = It->second.second; // each lane's value when it left, blended at the latch
        continue;
      }
      Type *T = Varying.count(P) ? widen(P->getType()) : P->getType();
      if (!T) {
        reject("a varying phi of a type that has no vector form");
        return;
      }
      PHINode *N = B->CreatePHI(T, P->getNumIncomingValues(), P->getName());
      Map[P] = N;
      Phis.push_back({P, N});
      continue;
    }
    if (I.isTerminator())
      break;
    if (!emit(I))
      return;
  }
  emitTerminator(BB);
  Last[&BB] = B->GetInsertBlock();
}

bool Vectorizer::emitTerminator(BasicBlock &BB) {
  Instruction *T = BB.getTerminator();
  Value *Mk = Mask.lookup(&BB);
  if (isa<ReturnInst>(T)) {
    B->CreateRetVoid();
    return true;
  }
  auto *Br = cast<BranchInst>(T);
  if (!Br->isConditional() || Br->getSuccessor(0) == Br->getSuccessor(1)) {
    EdgeMask[{&BB, Br->getSuccessor(0)}] = Mk;
    B->CreateBr(First[Br->getSuccessor(0)]);
    return true;
  }
  BasicBlock *S0 = Br->getSuccessor(0), *S1 = Br->getSuccessor(1);
  if (!Divergent.count(&BB)) {
    EdgeMask[{&BB, S0}] = Mk;
    EdgeMask[{&BB, S1}] = Mk;
    B->CreateCondBr(get(Br->getCondition()), First[S0], First[S1]);
    return true;
  }
  Value *Cond = get(Br->getCondition());
  if (auto It = Regions.find(&BB); It != Regions.end()) {
    auto [Entry, Join] = It->second;
    Value *In = B->CreateAnd(Mk, Entry == S0 ? Cond : B->CreateNot(Cond));
    EdgeMask[{&BB, Entry}] = In;
    EdgeMask[{&BB, Join}] = Mk;
    B->CreateCondBr(any(In), First[Entry], First[Join]);
    return true;
  }
  // The latch of a divergent loop: lanes leave one by one, the loop runs while any stays.
  Loop *L = LI.getLoopFor(&BB);
  BasicBlock *Exit = L->getExitBlock(), *Header = L->getHeader();
  Value *Leave = B->CreateAnd(Mk, S0 == Exit ? Cond : B->CreateNot(Cond));
  Value *Stay = B->CreateAnd(Mk, B->CreateNot(Leave));
  for (PHINode &XP : Exit->phis()) {
    auto &[Acc, Next] = Accumulators[&XP];
    Next = B->CreateSelect(Leave, vec(XP.getIncomingValueForBlock(&BB)), Acc);
  }
  EdgeMask[{&BB, Header}] = Stay;
  B->CreateCondBr(any(Stay), First[Header], First[Exit]);
  return true;
}

/// Phi operands, once every block has its new last block: an operand that reaches a divergent
/// join from its region is blended with the value of the lanes that skipped the region.
void Vectorizer::fillPhis() {
  for (auto &[Old, New] : Phis) {
    const BasicBlock *BB = Old->getParent();
    const BasicBlock *Branch = JoinOf.lookup(BB);
    for (unsigned K = 0; K < Old->getNumIncomingValues(); ++K) {
      const BasicBlock *P = Old->getIncomingBlock(K);
      BasicBlock *NP = Last.lookup(P);
      B->SetInsertPoint(NP->getTerminator());
      CurOld = P;
      const Value *V = Old->getIncomingValue(K);
      Value *NV = Varying.count(Old) ? vec(V) : get(V);
      if (Branch && P != Branch) {
        Value *Other = vec(Old->getIncomingValueForBlock(Branch));
        Value *Sel = Mask.lookup(P);
        if (auto *VT = dyn_cast<FixedVectorType>(Old->getType()); VT && VT->getNumElements() > 1)
          Sel = laneMask(VT->getNumElements());
        if (Old->getType()->isStructTy()) {
          Value *R = PoisonValue::get(NV->getType());
          for (unsigned J = 0; J < Old->getType()->getStructNumElements(); ++J)
            R = B->CreateInsertValue(
                R,
                B->CreateSelect(Sel, B->CreateExtractValue(NV, J), B->CreateExtractValue(Other, J)),
                J);
          NV = R;
        } else {
          NV = B->CreateSelect(Sel, NV, Other);
        }
      }
      New->addIncoming(NV, NP);
    }
  }
  for (auto &[BB, P] : MaskPhi)
    for (const BasicBlock *Pred : predecessors(BB))
      P->addIncoming(EdgeMask.at({Pred, BB}), Last.lookup(Pred));
  for (auto &[XP, AN] : Accumulators) {
    auto [Acc, Next] = AN;
    const Loop *L = LI.getLoopFor(XP->getParent()->getSinglePredecessor());
    while (L->getExitBlock() != XP->getParent())
      L = L->getParentLoop();
    Acc->addIncoming(PoisonValue::get(Acc->getType()), Last.lookup(L->getLoopPreheader()));
    Acc->addIncoming(Next, Last.lookup(L->getLoopLatch()));
  }
}

std::string Vectorizer::run(StringRef Name, unsigned MaxSize) {
  DT.recalculate(Src);
  PDT.recalculate(Src);
  LI.analyze(DT);
  if (!checkShape() || !classify())
    return Why;
  F = Function::Create(Src.getFunctionType(), GlobalValue::ExternalLinkage, Name, M);
  F->addFnAttr(Attribute::NoUnwind);
  F->getArg(1)->addAttr(Attribute::NoAlias);
  Ids = F->getArg(1);
  Exec = F->getArg(2);
  IRBuilder<> Builder(C);
  B = &Builder;
  ReversePostOrderTraversal<Function *> RPO(&Src);
  for (BasicBlock *BB : RPO)
    First[BB] = BasicBlock::Create(C, BB->getName(), F);
  for (BasicBlock *BB : RPO) {
    emitBlock(*BB);
    if (!Why.empty())
      break;
  }
  if (Why.empty())
    fillPhis();
  if (Scratch)
    Scratch->setAllocatedType(ArrayType::get(B->getInt8Ty(), std::max<uint64_t>(ScratchBytes, 64)));
  if (Function *Barrier = M.getFunction(rt::Barrier))
    HasBarrier = any_of(Barrier->users(),
                        [&](const User *U) { return cast<Instruction>(U)->getFunction() == F; });
  if (unsigned Size = F->getInstructionCount(); Why.empty() && Size > MaxSize)
    Why = "its waves would be " + std::to_string(Size) + " instructions, more than " +
          std::to_string(MaxSize) + " (their code generation for the host would take minutes)";
  if (Why.empty() && HasBarrier && PrivateBytes + ScratchBytes > MaxFramedBytes)
    Why = "its waves would keep more than " + std::to_string(MaxFramedBytes >> 10) +
          " KiB of private memory across barriers";
  if (Why.empty()) {
    std::string Text;
    raw_string_ostream OS(Text);
    if (verifyFunction(*F, &OS))
      Why = "internal: the wave function is invalid: " + StringRef(Text).rtrim().str();
  }
  if (!Why.empty()) {
    F->dropAllReferences();
    F->eraseFromParent();
  }
  return Why;
}

} // namespace detail

namespace {

/// The copy of \p Entry to vectorise: its kernel and every callee inlined, in structured form.
Function *prepare(Function &Entry, std::string &Why) {
  Module &M = *Entry.getParent();
  LLVMContext &C = M.getContext();
  auto *Ty = FunctionType::get(
      Type::getVoidTy(C), {PointerType::get(C, 0), PointerType::get(C, 0), Type::getInt64Ty(C)},
      false);
  Function *V = Function::Create(Ty, GlobalValue::InternalLinkage, Entry.getName() + ".wave", M);
  ValueToValueMapTy VMap;
  VMap[Entry.getArg(0)] = V->getArg(0);
  SmallVector<ReturnInst *, 4> Returns;
  CloneFunctionInto(V, &Entry, VMap, CloneFunctionChangeType::LocalChangesOnly, Returns);
  for (bool Inlined = true; Inlined;) {
    Inlined = false;
    for (Instruction &I : make_early_inc_range(instructions(*V))) {
      auto *CB = dyn_cast<CallBase>(&I);
      Function *Callee = CB ? CB->getCalledFunction() : nullptr;
      if (!Callee || Callee->isDeclaration() || Callee == V || isLaneSubroutine(*Callee))
        continue;
      InlineFunctionInfo IFI;
      if (InlineFunction(*CB, IFI).isSuccess())
        Inlined = true;
      break;
    }
    if (V->getInstructionCount() > detail::MaxInstructions) {
      Why = "more than " + std::to_string(detail::MaxInstructions) + " instructions once inlined";
      V->eraseFromParent();
      return nullptr;
    }
  }
  // One exit: the lanes that reach an unreachable (after a trap) leave as if they returned.
  for (BasicBlock &BB : *V)
    if (isa<UnreachableInst>(BB.getTerminator())) {
      BB.getTerminator()->eraseFromParent();
      ReturnInst::Create(C, &BB);
    }
  PassSetup P;
  FunctionPassManager FPM;
  FPM.addPass(LowerSwitchPass());
  FPM.addPass(UnifyFunctionExitNodesPass());
  FPM.addPass(FixIrreduciblePass());
  FPM.addPass(UnifyLoopExitsPass());
  FPM.addPass(LoopSimplifyPass());
  FPM.addPass(StructurizeCFGPass());
  FPM.addPass(LoopSimplifyPass());
  FPM.addPass(LCSSAPass());
  FPM.run(*V, P.FAM);
  removeUnreachableBlocks(*V);
  return V;
}

} // namespace

std::string vectorizeWave(Function &Entry, StringRef Name, unsigned WaveSize, bool MaskedMemory,
                          bool &Barriers, bool BreakXor, unsigned MaxSize) {
  std::string Why;
  Function *V = prepare(Entry, Why);
  if (!V)
    return Why;
  detail::Vectorizer Wave(*V, WaveSize, MaskedMemory, BreakXor);
  Why = Wave.run(Name, MaxSize ? MaxSize : detail::MaxWaveInstructions);
  V->eraseFromParent();
  Barriers = Why.empty() && Wave.hasBarrier();
  return Why;
}

} // namespace ptx2amd::host
