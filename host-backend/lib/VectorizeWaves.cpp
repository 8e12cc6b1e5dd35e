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
#include "VectorizeWaves.h"

#include "LaneState.h"
#include "PassSetup.h"
#include "SyncOps.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
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

#include <map>

using namespace llvm;

namespace ptx2amd::host {
namespace {

/// Inlined instructions past which a kernel is not vectorised (compile time).
constexpr unsigned MaxInstructions = 40000;
/// Private bytes a wave may take on its worker's stack (WaveSize copies of each variable).
constexpr uint64_t MaxPrivateBytes = 2u << 20;
/// The same for a wave that meets at barriers, whose private memory and scratch lie in its
/// frame (a fiber stack's 60 KiB also holds what lives across a barrier).
constexpr uint64_t MaxFramedBytes = 32u << 10;

/// The offset of the LaneState field \p P points at, or -1 when it points elsewhere.
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

enum class CallKind {
  Drop,          ///< no effect on a wave's result (lifetime, assume, wave barrier)
  Vector,        ///< an intrinsic with a vector form
  Once,          ///< no lane-dependent effect: one scalar call for the wave
  PerLane,       ///< side effects or no vector form: one call per active lane
  State,         ///< the LaneState accessor
  Ballot,        ///< the wave's lane mask of a predicate
  Bpermute,      ///< ds_bpermute
  Readlane,      ///< one lane's value
  Readfirstlane, ///< the first active lane's value
  Reject,
};

class Vectorizer {
public:
  Vectorizer(Function &Src, unsigned W)
      : Src(Src), M(*Src.getParent()), C(M.getContext()), DL(M.getDataLayout()), W(W) {}

  /// Builds the wave function \p Name; an empty reason on success.
  std::string run(StringRef Name);
  /// Whether the wave function calls the workgroup barrier.
  bool hasBarrier() const { return HasBarrier; }

private:
  Function &Src; ///< the prepared copy (structured, LCSSA)
  Module &M;
  LLVMContext &C;
  const DataLayout &DL;
  unsigned W;
  Function *F = nullptr; ///< the wave
  std::string Why;
  DominatorTree DT;
  PostDominatorTree PDT;
  LoopInfo LI;
  DenseSet<const Value *> Varying;
  DenseSet<const BasicBlock *> Divergent; ///< blocks ending in a branch on a varying condition
  DenseSet<const Loop *> DivergentLoops;
  /// Divergent non-latch branch: block -> (region entry, join)
  DenseMap<const BasicBlock *, std::pair<BasicBlock *, BasicBlock *>> Regions;
  DenseMap<const BasicBlock *, const BasicBlock *> JoinOf; ///< join -> its divergent branch

  // Emission state.
  IRBuilder<> *B = nullptr;
  const BasicBlock *CurOld = nullptr; ///< the old block being emitted
  DenseMap<const Value *, Value *> Map;
  DenseMap<const BasicBlock *, BasicBlock *> First, Last; ///< old block -> its new first/last
  DenseMap<const BasicBlock *, Value *> Mask;
  std::map<std::pair<const BasicBlock *, const BasicBlock *>, Value *> EdgeMask;
  MapVector<const BasicBlock *, PHINode *> MaskPhi;
  std::vector<std::pair<PHINode *, PHINode *>> Phis; ///< (old, new) to fill
  /// Divergent loops: each exit phi's accumulator (header phi) and its value at the latch.
  MapVector<const PHINode *, std::pair<PHINode *, Value *>> Accumulators;
  Value *Ids = nullptr, *Exec = nullptr;
  AllocaInst *PermuteBuffer = nullptr;
  AllocaInst *Scratch = nullptr; ///< operands and results of lanes run one by one
  uint64_t ScratchBytes = 0;
  bool HasBarrier = false;
  uint64_t PrivateBytes = 0;

  bool reject(const Twine &Reason) {
    if (Why.empty())
      Why = Reason.str();
    return false;
  }
  CallKind callKind(const CallInst &CI) const;
  bool classify();
  bool checkShape();
  bool isDivergentJoin(const BasicBlock *BB) const { return JoinOf.count(BB); }
  const Loop *divergentExitOf(const BasicBlock *BB) const;

  Type *widen(Type *T) const;
  Value *get(const Value *V);
  Value *vec(const Value *V);
  Value *broadcast(Value *V);
  Value *laneMask(unsigned PerLane);
  Value *repeatLanes(Value *V, unsigned PerLane);
  Constant *iota(Type *Elem, uint64_t Step) const;
  Value *any(Value *M) { return B->CreateOrReduce(M); }

  void emitBlock(BasicBlock &BB);
  bool emit(Instruction &I);
  bool emitUniform(Instruction &I);
  bool emitVarying(Instruction &I);
  Value *scalarize(Instruction &I);
  Value *consecutive(Value *Ptrs, Type *Elem);
  Value *load(LoadInst &L);
  void store(StoreInst &S);
  bool emitTerminator(BasicBlock &BB);
  void fillPhis();
};

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

Type *Vectorizer::widen(Type *T) const {
  if (T->isVoidTy())
    return T;
  if (T->isIntegerTy() || T->isFloatingPointTy() || T->isPointerTy())
    return FixedVectorType::get(T, W);
  if (auto *VT = dyn_cast<FixedVectorType>(T))
    return FixedVectorType::get(VT->getElementType(), VT->getNumElements() * W);
  if (auto *ST = dyn_cast<StructType>(T)) {
    SmallVector<Type *, 4> E;
    for (Type *X : ST->elements()) {
      Type *WX = X->isStructTy() ? nullptr : widen(X);
      if (!WX)
        return nullptr;
      E.push_back(WX);
    }
    return StructType::get(C, E, ST->isPacked());
  }
  return nullptr;
}

Constant *Vectorizer::iota(Type *Elem, uint64_t Step) const {
  SmallVector<Constant *, 64> E;
  for (unsigned L = 0; L < W; ++L)
    E.push_back(ConstantInt::get(Elem, L * Step));
  return ConstantVector::get(E);
}

Value *Vectorizer::get(const Value *V) {
  if (auto *A = dyn_cast<Argument>(V))
    return F->getArg(A->getArgNo());
  if (isa<Constant>(V) || isa<BasicBlock>(V) || isa<MetadataAsValue>(V) || isa<InlineAsm>(V))
    return const_cast<Value *>(V);
  auto It = Map.find(V);
  assert(It != Map.end() && "value used before its definition");
  return It->second;
}

Value *Vectorizer::broadcast(Value *V) {
  Type *T = V->getType();
  if (auto *VT = dyn_cast<FixedVectorType>(T)) {
    SmallVector<int, 64> Idx;
    for (unsigned L = 0; L < W; ++L)
      for (unsigned K = 0; K < VT->getNumElements(); ++K)
        Idx.push_back(K);
    return B->CreateShuffleVector(V, Idx);
  }
  if (auto *ST = dyn_cast<StructType>(T)) {
    Value *R = PoisonValue::get(widen(ST));
    for (unsigned K = 0; K < ST->getNumElements(); ++K)
      R = B->CreateInsertValue(R, broadcast(B->CreateExtractValue(V, K)), K);
    return R;
  }
  return B->CreateVectorSplat(W, V);
}

Value *Vectorizer::vec(const Value *V) {
  Value *N = get(V);
  return Varying.count(V) ? N : broadcast(N);
}

/// The current block's mask with each lane's bit repeated \p PerLane times (for values that are
/// small vectors in each lane).
Value *Vectorizer::laneMask(unsigned PerLane) { return repeatLanes(Mask.lookup(CurOld), PerLane); }

/// \p V (one element a lane) with each lane's element repeated \p PerLane times.
Value *Vectorizer::repeatLanes(Value *V, unsigned PerLane) {
  if (PerLane == 1)
    return V;
  SmallVector<int, 256> Idx;
  for (unsigned L = 0; L < W; ++L)
    for (unsigned K = 0; K < PerLane; ++K)
      Idx.push_back(L);
  return B->CreateShuffleVector(V, Idx);
}

/// \p I once for each active lane, in lane order, with that lane's operands: the varying
/// operands go to the wave's scratch memory, each lane reads its own there and writes its
/// result there, and the loop visits the set bits of the mask only.
Value *Vectorizer::scalarize(Instruction &I) {
  Value *Mk = Mask.lookup(CurOld);
  Type *I8 = B->getInt8Ty(), *I64 = B->getInt64Ty();
  if (!Scratch) {
    IRBuilder<> EB(&F->getEntryBlock(), F->getEntryBlock().begin());
    Scratch = EB.CreateAlloca(ArrayType::get(I8, 64));
    Scratch->setAlignment(Align(64));
  }
  // A buffer of WaveSize values per first-class part (struct members apart); i1 as bytes (a
  // vector of i1 is packed in memory).
  uint64_t Used = 0;
  auto Stored = [&](Type *T) -> Type * {
    return T->getScalarType()->isIntegerTy(1) ? T->getWithNewBitWidth(8) : T;
  };
  auto Place = [&](Type *T) {
    Value *P = B->CreateConstInBoundsGEP1_64(I8, Scratch, Used);
    Used = alignTo(Used + DL.getTypeAllocSize(widen(Stored(T))), 64);
    return P;
  };
  auto ToMemory = [&](Value *V, Type *T) {
    return T == Stored(T) ? V : B->CreateZExt(V, Stored(V->getType()));
  };
  auto FromMemory = [&](Value *V, Type *T) {
    return T == Stored(T) ? V : B->CreateTrunc(V, V->getType()->getWithNewBitWidth(1));
  };
  struct Part {
    Value *Buf;
    Type *T; // one lane's
  };
  auto Parts = [&](Type *T) {
    SmallVector<Part, 2> R;
    if (auto *ST = dyn_cast<StructType>(T))
      for (Type *E : ST->elements())
        R.push_back({Place(E), E});
    else
      R.push_back({Place(T), T});
    return R;
  };
  auto LanePtr = [&](const Part &P, Value *Lane) {
    auto *VT = dyn_cast<FixedVectorType>(P.T);
    Type *E = Stored(VT ? VT->getElementType() : P.T);
    return B->CreateGEP(E, P.Buf,
                        VT ? B->CreateMul(Lane, B->getInt32(VT->getNumElements())) : Lane);
  };
  auto LaneAlign = [&](Type *T) { return DL.getABITypeAlign(Stored(T->getScalarType())); };
  auto LaneLoad = [&](const Part &P, Value *Lane) {
    return FromMemory(B->CreateAlignedLoad(Stored(P.T), LanePtr(P, Lane), LaneAlign(P.T)), P.T);
  };
  SmallVector<std::pair<unsigned, SmallVector<Part, 2>>, 4> Ops;
  for (unsigned K = 0; K < I.getNumOperands(); ++K) {
    Value *Op = I.getOperand(K);
    if (!Varying.count(Op))
      continue;
    auto Ps = Parts(Op->getType());
    Value *V = get(Op);
    for (unsigned J = 0; J < Ps.size(); ++J)
      B->CreateAlignedStore(
          ToMemory(Op->getType()->isStructTy() ? B->CreateExtractValue(V, J) : V, Ps[J].T),
          Ps[J].Buf, Align(64));
    Ops.push_back({K, std::move(Ps)});
  }
  Type *RT = I.getType();
  SmallVector<Part, 2> Res;
  if (!RT->isVoidTy())
    Res = Parts(RT);
  BasicBlock *Pre = B->GetInsertBlock();
  BasicBlock *Head = BasicBlock::Create(C, "lane", F);
  BasicBlock *After = BasicBlock::Create(C, "lanes.done", F);
  Value *Bits = B->CreateZExt(B->CreateBitCast(Mk, B->getIntNTy(W)), I64);
  B->CreateCondBr(B->CreateICmpNE(Bits, B->getInt64(0)), Head, After);
  B->SetInsertPoint(Head);
  PHINode *Left = B->CreatePHI(I64, 2);
  Left->addIncoming(Bits, Pre);
  Value *Lane = B->CreateTrunc(B->CreateBinaryIntrinsic(Intrinsic::cttz, Left, B->getTrue()),
                               B->getInt32Ty());
  Instruction *S = I.clone();
  for (unsigned K = 0; K < I.getNumOperands(); ++K)
    if (!Varying.count(I.getOperand(K)))
      S->setOperand(K, get(I.getOperand(K)));
  for (auto &[K, Ps] : Ops) {
    Type *T = I.getOperand(K)->getType();
    Value *V;
    if (auto *ST = dyn_cast<StructType>(T)) {
      V = PoisonValue::get(ST);
      for (unsigned J = 0; J < Ps.size(); ++J)
        V = B->CreateInsertValue(V, LaneLoad(Ps[J], Lane), J);
    } else {
      V = LaneLoad(Ps[0], Lane);
    }
    S->setOperand(K, V);
  }
  B->Insert(S);
  for (unsigned J = 0; J < Res.size(); ++J)
    B->CreateAlignedStore(ToMemory(RT->isStructTy() ? B->CreateExtractValue(S, J) : S, Res[J].T),
                          LanePtr(Res[J], Lane), LaneAlign(Res[J].T));
  Value *Rest = B->CreateAnd(Left, B->CreateSub(Left, B->getInt64(1)));
  Left->addIncoming(Rest, B->GetInsertBlock());
  B->CreateCondBr(B->CreateICmpNE(Rest, B->getInt64(0)), Head, After);
  B->SetInsertPoint(After);
  Value *R = nullptr;
  if (!Res.empty()) {
    if (auto *ST = dyn_cast<StructType>(RT)) {
      R = PoisonValue::get(widen(ST));
      for (unsigned J = 0; J < Res.size(); ++J)
        R = B->CreateInsertValue(
            R,
            FromMemory(B->CreateAlignedLoad(widen(Stored(Res[J].T)), Res[J].Buf, Align(64)),
                       Res[J].T),
            J);
    } else {
      R = FromMemory(B->CreateAlignedLoad(widen(Stored(RT)), Res[0].Buf, Align(64)), RT);
    }
  }
  ScratchBytes = std::max(ScratchBytes, Used);
  return R;
}

/// Whether the active lanes of \p Ptrs address consecutive elements of \p Elem from lane 0's
/// address on (a scalar i1, or null when elements of \p Elem have padding).
Value *Vectorizer::consecutive(Value *Ptrs, Type *Elem) {
  uint64_t Size = DL.getTypeAllocSize(Elem);
  if (Size != DL.getTypeStoreSize(Elem) || Size == 0)
    return nullptr;
  Type *I64 = B->getInt64Ty();
  Value *Mk = Mask.lookup(CurOld);
  Value *P = B->CreatePtrToInt(Ptrs, FixedVectorType::get(I64, W));
  Value *Base = B->CreateVectorSplat(W, B->CreateExtractElement(P, uint64_t(0)));
  Value *Same = B->CreateICmpEQ(P, B->CreateAdd(Base, iota(I64, Size)));
  return B->CreateAndReduce(B->CreateOr(Same, B->CreateNot(Mk)));
}

/// A varying load of a first-class scalar: one masked vector load when the active lanes'
/// addresses are consecutive, a gather otherwise.
Value *Vectorizer::load(LoadInst &L) {
  Type *T = L.getType(), *WT = widen(T);
  Value *Mk = Mask.lookup(CurOld);
  Value *Ptrs = vec(L.getPointerOperand());
  Value *Ok = consecutive(Ptrs, T);
  if (!Ok)
    return B->CreateMaskedGather(WT, Ptrs, L.getAlign(), Mk);
  BasicBlock *Fast = BasicBlock::Create(C, "load.vector", F);
  BasicBlock *Slow = BasicBlock::Create(C, "load.gather", F);
  BasicBlock *Join = BasicBlock::Create(C, "load.done", F);
  B->CreateCondBr(Ok, Fast, Slow);
  B->SetInsertPoint(Fast);
  Value *VF = B->CreateMaskedLoad(WT, B->CreateExtractElement(Ptrs, uint64_t(0)), L.getAlign(), Mk,
                                  PoisonValue::get(WT));
  B->CreateBr(Join);
  B->SetInsertPoint(Slow);
  Value *VS = B->CreateMaskedGather(WT, Ptrs, L.getAlign(), Mk);
  B->CreateBr(Join);
  B->SetInsertPoint(Join);
  PHINode *R = B->CreatePHI(WT, 2);
  R->addIncoming(VF, Fast);
  R->addIncoming(VS, Slow);
  return R;
}

/// A varying store: a masked vector store or a scatter (several lanes storing to one address:
/// the highest lane's value stays, as a scatter orders them).
void Vectorizer::store(StoreInst &S) {
  Value *Mk = Mask.lookup(CurOld);
  Value *V = vec(S.getValueOperand());
  Value *Ptrs = vec(S.getPointerOperand());
  Value *Ok = Varying.count(S.getPointerOperand())
                  ? consecutive(Ptrs, S.getValueOperand()->getType())
                  : nullptr;
  if (!Ok) {
    B->CreateMaskedScatter(V, Ptrs, S.getAlign(), Mk);
    return;
  }
  BasicBlock *Fast = BasicBlock::Create(C, "store.vector", F);
  BasicBlock *Slow = BasicBlock::Create(C, "store.scatter", F);
  BasicBlock *Join = BasicBlock::Create(C, "store.done", F);
  B->CreateCondBr(Ok, Fast, Slow);
  B->SetInsertPoint(Fast);
  // A whole wave: a plain store (a masked one is slower on some hosts).
  Value *P0 = B->CreateExtractElement(Ptrs, uint64_t(0));
  BasicBlock *Whole = BasicBlock::Create(C, "store.whole", F);
  BasicBlock *Part = BasicBlock::Create(C, "store.part", F);
  B->CreateCondBr(B->CreateAndReduce(Mk), Whole, Part);
  B->SetInsertPoint(Whole);
  B->CreateAlignedStore(V, P0, S.getAlign());
  B->CreateBr(Join);
  B->SetInsertPoint(Part);
  B->CreateMaskedStore(V, P0, S.getAlign(), Mk);
  B->CreateBr(Join);
  B->SetInsertPoint(Slow);
  B->CreateMaskedScatter(V, Ptrs, S.getAlign(), Mk);
  B->CreateBr(Join);
  B->SetInsertPoint(Join);
}

bool Vectorizer::emitUniform(Instruction &I) {
  if (auto *CI = dyn_cast<CallInst>(&I)) {
    CallKind K = callKind(*CI);
    Value *Mk = Mask.lookup(CurOld);
    Type *IW = B->getIntNTy(W);
    switch (K) {
    case CallKind::Drop:
      if (!I.getType()->isVoidTy())
        Map[&I] = PoisonValue::get(I.getType());
      return true;
    case CallKind::Ballot: {
      // i64 ballot(i32 predicate): the active lanes whose predicate is not 0.
      Value *P = vec(CI->getArgOperand(0));
      Value *On = B->CreateAnd(Mk, B->CreateICmpNE(P, Constant::getNullValue(P->getType())));
      Map[&I] = B->CreateZExt(B->CreateBitCast(On, IW), I.getType());
      return true;
    }
    case CallKind::Readlane:
    case CallKind::Readfirstlane: {
      // An inactive lane reads 0, as the emulator's rows (SyncOps.cpp) say.
      Value *V = vec(CI->getArgOperand(0));
      V = B->CreateSelect(Mk, V, Constant::getNullValue(V->getType()));
      Value *Lane;
      if (K == CallKind::Readlane)
        Lane = B->CreateAnd(get(CI->getArgOperand(1)), B->getInt32(W - 1));
      else
        Lane = B->CreateTrunc(
            B->CreateBinaryIntrinsic(Intrinsic::cttz, B->CreateBitCast(Mk, IW), B->getTrue()),
            B->getInt32Ty());
      Map[&I] = B->CreateExtractElement(V, Lane);
      return true;
    }
    default:
      break;
    }
  }
  Instruction *N = I.clone();
  for (unsigned K = 0; K < I.getNumOperands(); ++K)
    N->setOperand(K, get(I.getOperand(K)));
  B->Insert(N);
  N->setName(I.getName());
  Map[&I] = N;
  return true;
}

bool Vectorizer::emitVarying(Instruction &I) {
  Type *WT = widen(I.getType());
  if (!WT)
    return reject("a varying value of type that has no vector form");
  auto Set = [&](Value *V) {
    if (isa<Instruction>(V))
      V->setName(I.getName());
    Map[&I] = V;
    return true;
  };
  auto PerLane = [&](Type *T) {
    auto *VT = dyn_cast<FixedVectorType>(T);
    return VT ? VT->getNumElements() : 1;
  };
  if (auto *BO = dyn_cast<BinaryOperator>(&I)) {
    Value *R = vec(BO->getOperand(1));
    switch (BO->getOpcode()) {
    case Instruction::SDiv:
    case Instruction::UDiv:
    case Instruction::SRem:
    case Instruction::URem:
      // Inactive lanes divide by 1 (theirs may be 0: a fault no lane of the kernel makes).
      R = B->CreateSelect(laneMask(PerLane(I.getType())), R, ConstantInt::get(R->getType(), 1));
      break;
    default:
      break;
    }
    Value *V = B->CreateBinOp(BO->getOpcode(), vec(BO->getOperand(0)), R);
    if (auto *NI = dyn_cast<Instruction>(V))
      NI->copyIRFlags(BO);
    return Set(V);
  }
  if (auto *UO = dyn_cast<UnaryOperator>(&I)) {
    Value *V = B->CreateUnOp(UO->getOpcode(), vec(UO->getOperand(0)));
    if (auto *NI = dyn_cast<Instruction>(V))
      NI->copyIRFlags(UO);
    return Set(V);
  }
  if (auto *Cmp = dyn_cast<CmpInst>(&I)) {
    Value *V = B->CreateCmp(Cmp->getPredicate(), vec(Cmp->getOperand(0)), vec(Cmp->getOperand(1)));
    if (auto *NI = dyn_cast<Instruction>(V))
      NI->copyIRFlags(Cmp);
    return Set(V);
  }
  if (auto *Cast = dyn_cast<CastInst>(&I)) {
    Value *V = B->CreateCast(Cast->getOpcode(), vec(Cast->getOperand(0)), WT);
    if (auto *NI = dyn_cast<Instruction>(V))
      NI->copyIRFlags(Cast);
    return Set(V);
  }
  if (auto *Sel = dyn_cast<SelectInst>(&I)) {
    Value *Cond = Sel->getCondition();
    Value *WC = get(Cond);
    if (Varying.count(Cond)) {
      if (I.getType()->isStructTy())
        return reject("a lane-dependent select of aggregates");
      if (!Cond->getType()->isVectorTy())
        WC = repeatLanes(WC, PerLane(I.getType()));
    }
    Value *V = B->CreateSelect(WC, vec(Sel->getTrueValue()), vec(Sel->getFalseValue()));
    if (auto *NI = dyn_cast<Instruction>(V))
      NI->copyIRFlags(Sel);
    return Set(V);
  }
  if (auto *G = dyn_cast<GetElementPtrInst>(&I)) {
    if (G->getType()->isVectorTy())
      return reject("a vector getelementptr");
    SmallVector<Value *, 4> Idx;
    for (Use &U : G->indices())
      Idx.push_back(get(U.get()));
    return Set(B->CreateGEP(G->getSourceElementType(), get(G->getPointerOperand()), Idx, "",
                            G->getNoWrapFlags()));
  }
  if (auto *L = dyn_cast<LoadInst>(&I)) {
    int64_t Off = stateOffset(L->getPointerOperand());
    if (Off == state::LaneInWave)
      return Set(iota(B->getInt32Ty(), 1));
    if (Off >= state::ItemId && Off < state::ItemId + 12) {
      Value *P =
          B->CreateConstInBoundsGEP1_32(B->getInt8Ty(), Ids, (Off - state::ItemId) / 4 * W * 4);
      return Set(B->CreateAlignedLoad(WT, P, Align(4)));
    }
    if (L->isAtomic() || !(I.getType()->isIntOrPtrTy() || I.getType()->isFloatingPointTy()))
      return Set(scalarize(I));
    return Set(load(*L));
  }
  if (auto *S = dyn_cast<StoreInst>(&I)) {
    Type *T = S->getValueOperand()->getType();
    if (S->isAtomic() || !(T->isIntOrPtrTy() || T->isFloatingPointTy()))
      scalarize(I);
    else
      store(*S);
    return true;
  }
  if (isa<AtomicRMWInst>(I) || isa<AtomicCmpXchgInst>(I))
    return Set(scalarize(I));
  if (auto *AI = dyn_cast<AllocaInst>(&I)) {
    std::optional<TypeSize> Size = AI->getAllocationSize(DL);
    if (!AI->isStaticAlloca() || !Size || Size->isScalable())
      return reject("a private allocation of run-time size");
    uint64_t Stride = alignTo(std::max<uint64_t>(*Size, 1), AI->getAlign());
    PrivateBytes += Stride * W;
    if (PrivateBytes > MaxPrivateBytes)
      return reject("more than " + Twine(MaxPrivateBytes >> 10) + " KiB of private memory a wave");
    IRBuilder<> EB(&F->getEntryBlock(), F->getEntryBlock().begin());
    auto *Arena =
        EB.CreateAlloca(ArrayType::get(B->getInt8Ty(), Stride * W), AI->getAddressSpace());
    Arena->setAlignment(std::max(AI->getAlign(), Align(64)));
    return Set(B->CreateGEP(B->getInt8Ty(), Arena, iota(B->getInt64Ty(), Stride)));
  }
  if (auto *CI = dyn_cast<CallInst>(&I)) {
    CallKind K = callKind(*CI);
    if (K == CallKind::Bpermute) {
      // ds_bpermute(byte address, data): each lane reads the lane its address names; an
      // inactive source reads 0.
      Type *I32 = B->getInt32Ty();
      auto *VT = FixedVectorType::get(I32, W);
      if (!PermuteBuffer) {
        IRBuilder<> EB(&F->getEntryBlock(), F->getEntryBlock().begin());
        PermuteBuffer = EB.CreateAlloca(VT);
        PermuteBuffer->setAlignment(Align(64));
      }
      Value *Mk = Mask.lookup(CurOld);
      B->CreateAlignedStore(
          B->CreateSelect(Mk, vec(CI->getArgOperand(1)), Constant::getNullValue(VT)), PermuteBuffer,
          Align(64));
      Value *Src =
          B->CreateAnd(B->CreateLShr(vec(CI->getArgOperand(0)), 2),
                       ConstantVector::getSplat(ElementCount::getFixed(W), B->getInt32(W - 1)));
      // Every lane reads (the buffer is the wave's own, the indices in range): no mask.
      return Set(B->CreateMaskedGather(VT, B->CreateGEP(I32, PermuteBuffer, Src), Align(4),
                                       Constant::getAllOnesValue(Mk->getType())));
    }
    if (K == CallKind::Vector) {
      Intrinsic::ID ID = CI->getIntrinsicID();
      SmallVector<Type *, 4> Tys;
      SmallVector<Value *, 4> Args;
      if (isVectorIntrinsicWithOverloadTypeAtArg(ID, -1, nullptr))
        Tys.push_back(WT);
      for (unsigned A = 0; A < CI->arg_size(); ++A) {
        Value *Op = CI->getArgOperand(A);
        bool Scalar = isVectorIntrinsicWithScalarOpAtArg(ID, A, nullptr);
        Args.push_back(Scalar ? get(Op) : vec(Op));
        if (isVectorIntrinsicWithOverloadTypeAtArg(ID, A, nullptr))
          Tys.push_back(Args.back()->getType());
      }
      Function *Decl = Intrinsic::getOrInsertDeclaration(&M, ID, Tys);
      CallInst *V = B->CreateCall(Decl, Args);
      if (isa<FPMathOperator>(CI))
        V->copyFastMathFlags(CI);
      return Set(V);
    }
    Value *R = scalarize(I);
    if (R)
      Set(R);
    return true;
  }
  if (auto *EV = dyn_cast<ExtractValueInst>(&I)) {
    if (EV->getNumIndices() != 1)
      return reject("a nested extractvalue");
    return Set(B->CreateExtractValue(vec(EV->getAggregateOperand()), EV->getIndices()));
  }
  if (auto *IV = dyn_cast<InsertValueInst>(&I)) {
    if (IV->getNumIndices() != 1)
      return reject("a nested insertvalue");
    return Set(B->CreateInsertValue(vec(IV->getAggregateOperand()),
                                    vec(IV->getInsertedValueOperand()), IV->getIndices()));
  }
  if (auto *EE = dyn_cast<ExtractElementInst>(&I)) {
    auto *Idx = dyn_cast<ConstantInt>(EE->getIndexOperand());
    unsigned K = cast<FixedVectorType>(EE->getVectorOperandType())->getNumElements();
    if (!Idx || Idx->getZExtValue() >= K)
      return Set(scalarize(I));
    SmallVector<int, 64> Sel;
    for (unsigned L = 0; L < W; ++L)
      Sel.push_back(L * K + Idx->getZExtValue());
    return Set(B->CreateShuffleVector(vec(EE->getVectorOperand()), Sel));
  }
  if (auto *IE = dyn_cast<InsertElementInst>(&I)) {
    auto *Idx = dyn_cast<ConstantInt>(IE->getOperand(2));
    unsigned K = cast<FixedVectorType>(IE->getType())->getNumElements();
    if (!Idx || Idx->getZExtValue() >= K)
      return Set(scalarize(I));
    SmallVector<int, 256> Sel;
    for (unsigned L = 0; L < W; ++L)
      for (unsigned J = 0; J < K; ++J)
        Sel.push_back(J == Idx->getZExtValue() ? int(W * K + L) : int(L * K + J));
    return Set(B->CreateShuffleVector(vec(IE->getOperand(0)), vec(IE->getOperand(1)), Sel));
  }
  if (auto *SV = dyn_cast<ShuffleVectorInst>(&I)) {
    unsigned K = cast<FixedVectorType>(SV->getOperand(0)->getType())->getNumElements();
    unsigned KR = cast<FixedVectorType>(SV->getType())->getNumElements();
    SmallVector<int, 256> Sel;
    for (unsigned L = 0; L < W; ++L)
      for (unsigned J = 0; J < KR; ++J) {
        int E = SV->getMaskValue(J);
        Sel.push_back(E < 0 ? -1 : E < int(K) ? int(L * K + E) : int(W * K + L * K + E - K));
      }
    return Set(B->CreateShuffleVector(vec(SV->getOperand(0)), vec(SV->getOperand(1)), Sel));
  }
  if (auto *Fr = dyn_cast<FreezeInst>(&I))
    return Set(B->CreateFreeze(vec(Fr->getOperand(0))));
  return reject("a lane-dependent '" + Twine(I.getOpcodeName()) + "'");
}

bool Vectorizer::emit(Instruction &I) {
  return Varying.count(&I) ? emitVarying(I) : emitUniform(I);
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

std::string Vectorizer::run(StringRef Name) {
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
      if (!Callee || Callee->isDeclaration() || Callee == V)
        continue;
      InlineFunctionInfo IFI;
      if (InlineFunction(*CB, IFI).isSuccess())
        Inlined = true;
      break;
    }
    if (V->getInstructionCount() > MaxInstructions) {
      Why = "more than " + std::to_string(MaxInstructions) + " instructions once inlined";
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

bool vectorizingWaves() {
  static const bool On = [] {
    const char *Env = getenv("PTX2AMD_HOST_VECTOR");
    return !(Env && StringRef(Env) == "0");
  }();
  return On;
}

std::string vectorizeWave(Function &Entry, StringRef Name, unsigned WaveSize, bool &Barriers) {
  std::string Why;
  Function *V = prepare(Entry, Why);
  if (!V)
    return Why;
  Vectorizer Wave(*V, WaveSize);
  Why = Wave.run(Name);
  V->eraseFromParent();
  Barriers = Why.empty() && Wave.hasBarrier();
  return Why;
}

} // namespace ptx2amd::host
