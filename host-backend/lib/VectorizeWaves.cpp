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

#include "ptx2amd/amdgpu-backend/Codegen.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/ConstantFolding.h"
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

/// The lanes of a row of a 2-D block that gathers and scatters check for (a 16-wide block).
constexpr unsigned RowLanes = 16;
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
  Vectorizer(Function &Src, unsigned W, bool MaskedMemory)
      : Src(Src), M(*Src.getParent()), C(M.getContext()), DL(M.getDataLayout()), W(W),
        MaskedMemory(MaskedMemory) {}

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
  bool MaskedMemory;     ///< masked loads, stores, gathers and scatters are instructions
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
  struct Run {
    Value *Ok = nullptr;    ///< scalar i1: the active lanes' values step as asked
    Value *First = nullptr; ///< lane 0's value
  };
  /// A varying integer as lane L's Base + Cx*x + Cy*y + Cz*z + CL*L of its work-item ids and
  /// lane number (Base and the multiples uniform scalars of its type, a null multiple 0), as
  /// long as Fits holds (no lane's value wrapped where the source widened it).
  struct Affine {
    Value *Base = nullptr;
    Value *C[4] = {nullptr, nullptr, nullptr, nullptr};
    Value *Fits = nullptr; ///< scalar i1; null: true
  };
  std::optional<Affine> affine(const Value *Old, unsigned Depth = 0);
  /// X and Y, either null for true.
  Value *both(Value *X, Value *Y) { return !X ? Y : !Y ? X : B->CreateAnd(X, Y); }
  /// \p A's value times \p K.
  void scale(Affine &A, Value *K) {
    A.Base = B->CreateMul(A.Base, K);
    for (Value *&C : A.C)
      C = C ? B->CreateMul(C, K) : nullptr;
  }
  std::optional<Affine> affinePointer(const Value *P, IntegerType *IT, unsigned Depth);
  /// What the wave's work-item ids are, found once at its entry: Flat, lane L's x is lane 0's
  /// plus L and y and z are lane 0's; Rows[K], lanes form rows of RowLanes[K] (lane L's x is
  /// lane 0's plus L % R, y lane 0's plus L / R, z lane 0's). Both only for a whole wave.
  struct Shape {
    Value *Flat = nullptr;
    SmallVector<std::pair<unsigned, Value *>, 2> Rows;
    Value *First[3] = {nullptr, nullptr, nullptr};
  };
  std::optional<Shape> WaveShape;
  const Shape &shape();
  /// A memory access whose lane L's address is Lane0 + Step * L when the wave is flat, and
  /// Lane0 + Step * (L % R) + RowStep[R] * (L / R) when it has rows of R lanes.
  struct Pattern {
    Value *Lane0 = nullptr; ///< a pointer
    int64_t Step = 0;       ///< 0 or the element's size
    bool Strided = false;   ///< another step: the lanes' elements are never adjacent
    SmallVector<Value *, 2> RowStep;
    Value *Fits = nullptr;
  };
  std::optional<Pattern> pattern(const Value *OldPtr, Type *Elem);
  Value *concat(ArrayRef<Value *> Parts);
  Value *loadAt(Type *T, Value *P, Align A, unsigned Lanes, bool Same);
  Value *loadGeneric(LoadInst &L, Value *Ptrs, Value *Mk);
  void storeGeneric(StoreInst &S, Value *V, Value *Ptrs, Value *Mk);
  Run stepsBy(Value *V, uint64_t Step);
  Run linear(const Value *Old, uint64_t Step, unsigned Depth = 0);
  Run consecutive(const Value *OldPtr, Value *Ptrs, Type *Elem);
  Value *inRows(Value *Ptrs, Type *Elem, Value *Mk);
  Value *gather(LoadInst &L, Value *Ptrs, Value *Mk, bool CheckRows = true);
  void scatter(StoreInst &S, Value *V, Value *Ptrs, Value *Mk, bool CheckRows = true);
  Value *load(LoadInst &L);
  void store(StoreInst &S);
  bool emitTerminator(BasicBlock &BB);
  void fillPhis();
};

/// A function a wave calls once for each active lane, with that lane's operands, instead of
/// inlining and vectorising it: the software texture path's entry points (kept out of line for
/// the CPU device, CodegenOptions::OutlineSoftwareTextures), whose thousands of divergent
/// instructions a wave of vectors makes slow to compile and no faster to run. They read no
/// work-item state.
bool isLaneSubroutine(const Function &F) {
  return !F.isDeclaration() && F.hasFnAttribute(Attribute::NoInline) &&
         amdgpu::isSoftwareTextureEntry(F.getName());
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

const Vectorizer::Shape &Vectorizer::shape() {
  if (WaveShape)
    return *WaveShape;
  WaveShape.emplace();
  Shape &S = *WaveShape;
  IRBuilder<> EB(&F->getEntryBlock(), F->getEntryBlock().begin());
  Type *I32 = EB.getInt32Ty();
  auto *VT = FixedVectorType::get(I32, W);
  Value *Id[3];
  for (unsigned D = 0; D < 3; ++D) {
    Id[D] = EB.CreateAlignedLoad(VT, EB.CreateConstInBoundsGEP1_32(EB.getInt8Ty(), Ids, D * W * 4),
                                 Align(4));
    S.First[D] = EB.CreateExtractElement(Id[D], uint64_t(0));
  }
  uint64_t AllLanes = W == 64 ? ~uint64_t(0) : (uint64_t(1) << W) - 1;
  Value *Whole = EB.CreateICmpEQ(Exec, EB.getInt64(AllLanes));
  auto Is = [&](unsigned D, ArrayRef<Constant *> Lanes) {
    return EB.CreateAndReduce(EB.CreateICmpEQ(
        Id[D], EB.CreateAdd(EB.CreateVectorSplat(W, S.First[D]), ConstantVector::get(Lanes))));
  };
  SmallVector<Constant *, 64> Zero(W, EB.getInt32(0)), Iota;
  for (unsigned L = 0; L < W; ++L)
    Iota.push_back(EB.getInt32(L));
  Value *SameZ = Is(2, Zero);
  S.Flat = EB.CreateAnd(EB.CreateAnd(Whole, SameZ), EB.CreateAnd(Is(0, Iota), Is(1, Zero)));
  for (unsigned R : {RowLanes}) {
    if (R >= W)
      continue;
    SmallVector<Constant *, 64> InRow, Row;
    for (unsigned L = 0; L < W; ++L) {
      InRow.push_back(EB.getInt32(L % R));
      Row.push_back(EB.getInt32(L / R));
    }
    S.Rows.push_back(
        {R, EB.CreateAnd(EB.CreateAnd(Whole, SameZ), EB.CreateAnd(Is(0, InRow), Is(1, Row)))});
  }
  return S;
}

std::optional<Vectorizer::Affine> Vectorizer::affine(const Value *Old, unsigned Depth) {
  auto *IT = dyn_cast<IntegerType>(Old->getType());
  if (!IT || IT->getBitWidth() > 64)
    return std::nullopt;
  if (!Varying.count(Old))
    return Affine{get(Old)};
  auto *I = dyn_cast<Instruction>(Old);
  if (!I || Depth > 12)
    return std::nullopt;
  if (auto *L = dyn_cast<LoadInst>(I)) {
    int64_t Off = stateOffset(L->getPointerOperand());
    if (!IT->isIntegerTy(32) || Off < 0)
      return std::nullopt;
    Affine A{ConstantInt::get(IT, 0)};
    if (Off == state::LaneInWave)
      A.C[3] = ConstantInt::get(IT, 1);
    else if (Off >= state::ItemId && Off < state::ItemId + 12 && (Off - state::ItemId) % 4 == 0)
      A.C[(Off - state::ItemId) / 4] = ConstantInt::get(IT, 1);
    else
      return std::nullopt;
    return A;
  }
  auto Uniform = [](const Affine &A) { return !A.C[0] && !A.C[1] && !A.C[2] && !A.C[3]; };
  unsigned Op = I->getOpcode();
  bool Disjoint = isa<PossiblyDisjointInst>(I) && cast<PossiblyDisjointInst>(I)->isDisjoint();
  if (Op == Instruction::Add || Op == Instruction::Sub || Disjoint || Op == Instruction::Mul ||
      Op == Instruction::Shl) {
    auto X = affine(I->getOperand(0), Depth + 1);
    auto Y = X ? affine(I->getOperand(1), Depth + 1) : std::nullopt;
    if (!Y)
      return std::nullopt;
    Affine R;
    R.Fits = both(X->Fits, Y->Fits);
    if (Op == Instruction::Mul || Op == Instruction::Shl) {
      // By a uniform amount only (what is a product of two lanes' ids is not affine).
      if (Op == Instruction::Mul && Uniform(*X) && !Uniform(*Y))
        std::swap(X, Y);
      if (!Uniform(*Y))
        return std::nullopt;
      auto By = [&](Value *V) {
        return Op == Instruction::Mul ? B->CreateMul(V, Y->Base) : B->CreateShl(V, Y->Base);
      };
      R.Base = By(X->Base);
      for (unsigned D = 0; D < 4; ++D)
        R.C[D] = X->C[D] ? By(X->C[D]) : nullptr;
      return R;
    }
    bool Minus = Op == Instruction::Sub;
    auto Combine = [&](Value *P, Value *Q) -> Value * {
      if (!Q)
        return P;
      if (!P)
        return Minus ? B->CreateNeg(Q) : Q;
      return Minus ? B->CreateSub(P, Q) : B->CreateAdd(P, Q);
    };
    R.Base = Combine(X->Base, Y->Base);
    for (unsigned D = 0; D < 4; ++D)
      R.C[D] = Combine(X->C[D], Y->C[D]);
    return R;
  }
  if (Op == Instruction::PtrToInt)
    return affinePointer(I->getOperand(0), IT, Depth + 1);
  if (Op == Instruction::SExt || Op == Instruction::ZExt) {
    unsigned N = I->getOperand(0)->getType()->getIntegerBitWidth();
    if (N > 32)
      return std::nullopt;
    auto X = affine(I->getOperand(0), Depth + 1);
    if (!X)
      return std::nullopt;
    bool Signed = Op == Instruction::SExt;
    // Lane L's exact value, ext(Base) + the multiples (read as signed) times its ids, must be
    // one the narrow type holds: then it is what the lane's narrow value widens to. Computed
    // in 64 bits over the ranges the ids have in a flat wave or one of rows (ids are below
    // 2^16, multiples and Base below 2^32 in size: no term or sum overflows).
    const Shape &S = shape();
    Type *I64 = B->getInt64Ty();
    unsigned Rows = S.Rows.empty() ? 1 : W / S.Rows.front().first;
    Value *Lo[4], *Hi[4];
    for (unsigned D = 0; D < 3; ++D) {
      Lo[D] = B->CreateZExt(S.First[D], I64);
      Hi[D] = B->CreateAdd(Lo[D], B->getInt64(D == 0 ? W - 1 : D == 1 ? Rows - 1 : 0));
    }
    Lo[3] = B->getInt64(0);
    Hi[3] = B->getInt64(W - 1);
    Value *Min = Signed ? B->CreateSExt(X->Base, I64) : B->CreateZExt(X->Base, I64);
    Value *Max = Min;
    Affine R;
    for (unsigned D = 0; D < 4; ++D) {
      if (!X->C[D])
        continue;
      Value *K = B->CreateSExt(X->C[D], I64);
      Value *AtLo = B->CreateMul(K, Lo[D]), *AtHi = B->CreateMul(K, Hi[D]);
      Min = B->CreateAdd(Min, B->CreateBinaryIntrinsic(Intrinsic::smin, AtLo, AtHi));
      Max = B->CreateAdd(Max, B->CreateBinaryIntrinsic(Intrinsic::smax, AtLo, AtHi));
      R.C[D] = B->CreateSExt(X->C[D], IT);
    }
    APInt Least = Signed ? APInt::getSignedMinValue(N).sext(64) : APInt(64, 0);
    APInt Most = Signed ? APInt::getSignedMaxValue(N).sext(64) : APInt::getMaxValue(N).zext(64);
    Value *Fits = B->CreateAnd(B->CreateICmpSGE(Min, ConstantInt::get(I64, Least)),
                               B->CreateICmpSLE(Max, ConstantInt::get(I64, Most)));
    R.Base = Signed ? B->CreateSExt(X->Base, IT) : B->CreateZExt(X->Base, IT);
    R.Fits = both(X->Fits, Fits);
    return R;
  }
  return std::nullopt;
}

/// The address \p P holds as an integer of \p IT (an LDS address: an integer made a
/// pointer, or a base and indices).
std::optional<Vectorizer::Affine> Vectorizer::affinePointer(const Value *P, IntegerType *IT,
                                                            unsigned Depth) {
  if (!Varying.count(P))
    return Affine{B->CreatePtrToInt(get(P), IT)};
  if (Depth > 12)
    return std::nullopt;
  if (auto *IP = dyn_cast<IntToPtrInst>(P); IP && IP->getOperand(0)->getType() == IT)
    return affine(IP->getOperand(0), Depth + 1);
  auto *G = dyn_cast<GetElementPtrInst>(P);
  if (!G || G->getNumIndices() != 1 || G->getOperand(1)->getType() != IT)
    return std::nullopt;
  auto X = affinePointer(G->getPointerOperand(), IT, Depth + 1);
  auto Y = X ? affine(G->getOperand(1), Depth + 1) : std::nullopt;
  if (!Y)
    return std::nullopt;
  scale(*Y, ConstantInt::get(IT, DL.getTypeAllocSize(G->getSourceElementType())));
  Affine R;
  R.Base = B->CreateAdd(X->Base, Y->Base);
  for (unsigned D = 0; D < 4; ++D)
    R.C[D] = !Y->C[D] ? X->C[D] : !X->C[D] ? Y->C[D] : B->CreateAdd(X->C[D], Y->C[D]);
  R.Fits = both(X->Fits, Y->Fits);
  return R;
}

std::optional<Vectorizer::Pattern> Vectorizer::pattern(const Value *OldPtr, Type *Elem) {
  uint64_t Size = DL.getTypeAllocSize(Elem);
  if (Size != DL.getTypeStoreSize(Elem) || Size == 0)
    return std::nullopt;
  Type *I64 = B->getInt64Ty();
  std::optional<Affine> A;
  Value *BasePtr = nullptr;
  if (auto *P = dyn_cast<IntToPtrInst>(OldPtr)) {
    if (P->getOperand(0)->getType() != I64)
      return std::nullopt;
    A = affine(P->getOperand(0));
  } else if (auto *G = dyn_cast<GetElementPtrInst>(OldPtr);
             G && G->getNumIndices() == 1 && !Varying.count(G->getPointerOperand()) &&
             G->getOperand(1)->getType() == I64) {
    A = affine(G->getOperand(1));
    if (A)
      scale(*A, B->getInt64(DL.getTypeAllocSize(G->getSourceElementType())));
    BasePtr = get(G->getPointerOperand());
  }
  if (!A)
    return std::nullopt;
  // A lane's step must be known: 0 (one address for a row) or the element (consecutive).
  auto Sum = [&](Value *P, Value *Q) -> Value * { return !P ? Q : !Q ? P : B->CreateAdd(P, Q); };
  Value *Step = Sum(A->C[0], A->C[3]);
  auto *K = dyn_cast_or_null<ConstantInt>(Step);
  if (Step && !K)
    return std::nullopt;
  Pattern P;
  P.Step = K ? K->getSExtValue() : 0;
  if (P.Step != 0 && P.Step != int64_t(Size)) {
    P.Strided = true;
    return P;
  }
  const Shape &S = shape();
  for (auto &[R, Flag] : S.Rows) {
    Value *Lane = A->C[3] ? B->CreateMul(A->C[3], B->getInt64(R)) : nullptr;
    Value *Row = Sum(A->C[1], Lane);
    P.RowStep.push_back(Row ? Row : B->getInt64(0));
  }
  Value *Off = A->Base;
  for (unsigned D = 0; D < 3; ++D)
    if (A->C[D])
      Off = B->CreateAdd(Off, B->CreateMul(A->C[D], B->CreateZExt(S.First[D], I64)));
  P.Lane0 = BasePtr ? B->CreateGEP(B->getInt8Ty(), BasePtr, Off)
                    : B->CreateIntToPtr(Off, OldPtr->getType());
  P.Fits = A->Fits;
  return P;
}

/// One vector of \p Parts (each of the same type), in order.
Value *Vectorizer::concat(ArrayRef<Value *> Parts) {
  SmallVector<Value *, 4> Level(Parts.begin(), Parts.end());
  while (Level.size() > 1) {
    SmallVector<Value *, 4> Next;
    for (size_t K = 0; K + 1 < Level.size(); K += 2) {
      unsigned N = cast<FixedVectorType>(Level[K]->getType())->getNumElements();
      SmallVector<int, 64> Both;
      for (unsigned L = 0; L < 2 * N; ++L)
        Both.push_back(int(L));
      Next.push_back(B->CreateShuffleVector(Level[K], Level[K + 1], Both));
    }
    Level = std::move(Next);
  }
  return Level.front();
}

/// \p Lanes elements of \p T from \p P on, or (\p Same) the one at \p P in each of \p Lanes.
Value *Vectorizer::loadAt(Type *T, Value *P, Align A, unsigned Lanes, bool Same) {
  if (Same)
    return B->CreateVectorSplat(Lanes, B->CreateAlignedLoad(T, P, A));
  return B->CreateAlignedLoad(FixedVectorType::get(T, Lanes), P, A);
}

/// \p V as a constant when what it is computed from folds to one (the IR builder leaves
/// intrinsics such as ctpop of a lane number unfolded); null otherwise.
Constant *constantOf(Value *V, const DataLayout &DL, DenseMap<Value *, Constant *> &Known,
                     unsigned Depth = 0) {
  if (auto *K = dyn_cast<Constant>(V))
    return K;
  auto *I = dyn_cast<Instruction>(V);
  if (!I || Depth > 24 || I->mayReadOrWriteMemory() || isa<PHINode>(I))
    return nullptr;
  if (auto It = Known.find(I); It != Known.end())
    return It->second;
  SmallVector<Constant *, 4> Ops;
  Constant *R = nullptr;
  for (Value *Op : I->operands()) {
    Constant *K = constantOf(Op, DL, Known, Depth + 1);
    if (!K)
      break;
    Ops.push_back(K);
  }
  if (Ops.size() == I->getNumOperands())
    R = ConstantFoldInstOperands(I, Ops, DL);
  Known[I] = R;
  return R;
}

/// Whether the active lanes of the vector \p V hold lane 0's value plus Step times their lane
/// number (modulo its width), and lane 0's value. A poison value in an inactive lane counts
/// for nothing; lane 0's value is frozen, since it may be an inactive lane's.
Vectorizer::Run Vectorizer::stepsBy(Value *V, uint64_t Step) {
  Value *Mk = Mask.lookup(CurOld);
  Type *E = V->getType()->getScalarType();
  Value *First = B->CreateFreeze(B->CreateExtractElement(V, uint64_t(0)));
  Value *Same = B->CreateICmpEQ(V, B->CreateAdd(B->CreateVectorSplat(W, First), iota(E, Step)));
  return {B->CreateAndReduce(B->CreateSelect(Mk, Same, Constant::getAllOnesValue(Mk->getType()))),
          First};
}

/// The same for the varying integer \p Old of the source, looked at through what an address
/// computation puts around a lane's index (a uniform added, a constant scale, a widening), so
/// that accesses at one index check it once (the checks are the same instructions) and lane
/// 0's address is computed as a scalar. Below a widening the check is exact: no lane's value
/// may wrap.
Vectorizer::Run Vectorizer::linear(const Value *Old, uint64_t Step, unsigned Depth) {
  auto *I = dyn_cast<Instruction>(Old);
  if (!I || Depth > 8 || !Varying.count(I))
    return stepsBy(vec(Old), Step);
  auto *IT = dyn_cast<IntegerType>(I->getType());
  auto ConstantOp = [&](unsigned K) -> const ConstantInt * {
    return dyn_cast<ConstantInt>(I->getOperand(K));
  };
  if (IT && (isa<SExtInst>(I) || isa<ZExtInst>(I))) {
    auto *NT = cast<IntegerType>(I->getOperand(0)->getType());
    unsigned N = NT->getBitWidth();
    bool Signed = isa<SExtInst>(I);
    // The last lane's value must not pass the narrow type's maximum (Span < 2^(N-1)).
    if (N < 64 && N > 7 && Step < (uint64_t(1) << (N - 7))) {
      APInt Span(N, (W - 1) * Step);
      Run R = stepsBy(vec(I->getOperand(0)), Step);
      APInt Max = Signed ? APInt::getSignedMaxValue(N) : APInt::getMaxValue(N);
      Value *Limit = ConstantInt::get(NT, Max - Span);
      Value *Fits = Signed ? B->CreateICmpSLE(R.First, Limit) : B->CreateICmpULE(R.First, Limit);
      return {B->CreateAnd(R.Ok, Fits),
              Signed ? B->CreateSExt(R.First, IT) : B->CreateZExt(R.First, IT)};
    }
  } else if (IT && I->getOpcode() == Instruction::Shl && ConstantOp(1)) {
    uint64_t Sh = ConstantOp(1)->getZExtValue();
    if (Sh < 63 && Step % (uint64_t(1) << Sh) == 0) {
      Run R = linear(I->getOperand(0), Step >> Sh, Depth + 1);
      if (R.Ok)
        return {R.Ok, B->CreateShl(R.First, Sh)};
    }
  } else if (IT && I->getOpcode() == Instruction::Mul && ConstantOp(1) &&
             !ConstantOp(1)->isZero() && !ConstantOp(1)->isNegative() &&
             Step % ConstantOp(1)->getZExtValue() == 0) {
    Run R = linear(I->getOperand(0), Step / ConstantOp(1)->getZExtValue(), Depth + 1);
    if (R.Ok)
      return {R.Ok, B->CreateMul(R.First, get(I->getOperand(1)))};
  } else if (IT &&
             (I->getOpcode() == Instruction::Add ||
              (isa<PossiblyDisjointInst>(I) && cast<PossiblyDisjointInst>(I)->isDisjoint()))) {
    for (unsigned K = 0; K < 2; ++K)
      if (!Varying.count(I->getOperand(1 - K))) {
        Run R = linear(I->getOperand(K), Step, Depth + 1);
        if (R.Ok)
          return {R.Ok, B->CreateAdd(R.First, get(I->getOperand(1 - K)))};
      }
  }
  return stepsBy(vec(Old), Step);
}

/// Whether the active lanes of \p Ptrs (the new form of \p OldPtr) address consecutive
/// elements of \p Elem from lane 0's address on, and that address (Ok null when elements of
/// \p Elem have padding). A uniform base indexed by a varying value checks the index, an
/// integer address its varying part.
Vectorizer::Run Vectorizer::consecutive(const Value *OldPtr, Value *Ptrs, Type *Elem) {
  uint64_t Size = DL.getTypeAllocSize(Elem);
  if (Size != DL.getTypeStoreSize(Elem) || Size == 0)
    return {nullptr, nullptr};
  if (auto *G = dyn_cast<GetElementPtrInst>(OldPtr);
      G && G->getNumIndices() == 1 && !Varying.count(G->getPointerOperand()) &&
      Varying.count(G->getOperand(1)) && G->getOperand(1)->getType()->isIntegerTy(64)) {
    uint64_t Scale = DL.getTypeAllocSize(G->getSourceElementType());
    if (Scale && Size % Scale == 0) {
      Run R = linear(G->getOperand(1), Size / Scale);
      return {R.Ok, B->CreateGEP(G->getSourceElementType(), get(G->getPointerOperand()), R.First)};
    }
  }
  // PTX computes addresses as integers.
  if (auto *P = dyn_cast<IntToPtrInst>(OldPtr); P && Varying.count(P->getOperand(0))) {
    Run R = linear(P->getOperand(0), Size);
    return {R.Ok, B->CreateIntToPtr(R.First, Ptrs->getType()->getScalarType())};
  }
  Type *I64 = B->getInt64Ty();
  Run R = stepsBy(B->CreatePtrToInt(Ptrs, FixedVectorType::get(I64, W)), Size);
  return {R.Ok, B->CreateIntToPtr(R.First, Ptrs->getType()->getScalarType())};
}

/// Whether the whole wave accesses rows of RowLanes consecutive elements of \p Elem (one a
/// row of a 2-D block, each row anywhere), checked at run time; null where a wave is one row.
Value *Vectorizer::inRows(Value *Ptrs, Type *Elem, Value *Mk) {
  uint64_t Size = DL.getTypeAllocSize(Elem);
  if (W <= RowLanes || Size != DL.getTypeStoreSize(Elem) || Size == 0)
    return nullptr;
  Type *I64 = B->getInt64Ty();
  Value *P = B->CreatePtrToInt(Ptrs, FixedVectorType::get(I64, W));
  SmallVector<int, 64> Start;
  SmallVector<Constant *, 64> InRow;
  for (unsigned L = 0; L < W; ++L) {
    Start.push_back(int(L / RowLanes * RowLanes));
    InRow.push_back(B->getInt64(L % RowLanes * Size));
  }
  Value *Same = B->CreateICmpEQ(
      P, B->CreateAdd(B->CreateShuffleVector(P, Start), ConstantVector::get(InRow)));
  return B->CreateAnd(B->CreateAndReduce(Mk), B->CreateAndReduce(Same));
}

/// The active lanes' loads from their own addresses: a masked gather where the host has one
/// (AVX-512); elsewhere a vector load a row when the wave loads rows of consecutive elements,
/// else a loop over the active lanes (LLVM would expand the gather into a branch and a load
/// per lane, unrolled: slower to compile, and no faster).
Value *Vectorizer::gather(LoadInst &L, Value *Ptrs, Value *Mk, bool CheckRows) {
  Type *T = L.getType();
  if (MaskedMemory)
    return B->CreateMaskedGather(widen(T), Ptrs, L.getAlign(), Mk);
  Value *Rows = CheckRows ? inRows(Ptrs, T, Mk) : nullptr;
  if (!Rows)
    return scalarize(L);
  BasicBlock *Fast = BasicBlock::Create(C, "gather.rows", F);
  BasicBlock *Slow = BasicBlock::Create(C, "gather.lanes", F);
  BasicBlock *Join = BasicBlock::Create(C, "gather.done", F);
  B->CreateCondBr(Rows, Fast, Slow);
  B->SetInsertPoint(Fast);
  SmallVector<Value *, 4> Parts;
  for (unsigned J = 0; J < W / RowLanes; ++J)
    Parts.push_back(loadAt(T, B->CreateExtractElement(Ptrs, uint64_t(J * RowLanes)), L.getAlign(),
                           RowLanes, false));
  Value *VF = concat(Parts);
  B->CreateBr(Join);
  B->SetInsertPoint(Slow);
  Value *VS = scalarize(L);
  BasicBlock *SlowEnd = B->GetInsertBlock();
  B->CreateBr(Join);
  B->SetInsertPoint(Join);
  PHINode *R = B->CreatePHI(VF->getType(), 2);
  R->addIncoming(VF, Fast);
  R->addIncoming(VS, SlowEnd);
  return R;
}

/// The active lanes' stores, as gather (several lanes storing to one address: the highest
/// lane's value stays, as a scatter orders them).
void Vectorizer::scatter(StoreInst &S, Value *V, Value *Ptrs, Value *Mk, bool CheckRows) {
  if (MaskedMemory) {
    B->CreateMaskedScatter(V, Ptrs, S.getAlign(), Mk);
    return;
  }
  Value *Rows = CheckRows ? inRows(Ptrs, S.getValueOperand()->getType(), Mk) : nullptr;
  if (!Rows) {
    scalarize(S);
    return;
  }
  BasicBlock *Fast = BasicBlock::Create(C, "scatter.rows", F);
  BasicBlock *Slow = BasicBlock::Create(C, "scatter.lanes", F);
  BasicBlock *Join = BasicBlock::Create(C, "scatter.done", F);
  B->CreateCondBr(Rows, Fast, Slow);
  B->SetInsertPoint(Fast);
  for (unsigned J = 0; J < W / RowLanes; ++J) {
    SmallVector<int, 64> Pick;
    for (unsigned L = 0; L < RowLanes; ++L)
      Pick.push_back(int(J * RowLanes + L));
    B->CreateAlignedStore(B->CreateShuffleVector(V, Pick),
                          B->CreateExtractElement(Ptrs, uint64_t(J * RowLanes)), S.getAlign());
  }
  B->CreateBr(Join);
  B->SetInsertPoint(Slow);
  scalarize(S);
  B->CreateBr(Join);
  B->SetInsertPoint(Join);
}

/// A varying load of a first-class scalar. Where its address is an affine function of the
/// lanes' ids (pattern) and the whole wave loads: a flat wave's lanes load one vector (or one
/// element for all), a wave of rows one vector (or element) a row. Otherwise one vector load
/// when the active lanes' addresses are consecutive (checked at run time; a masked one unless
/// the whole wave loads, and where the host has masks), a gather when not.
Value *Vectorizer::load(LoadInst &L) {
  Type *T = L.getType(), *WT = widen(T);
  Value *Mk = Mask.lookup(CurOld);
  Value *Ptrs = vec(L.getPointerOperand());
  std::optional<Pattern> P = pattern(L.getPointerOperand(), T);
  if (!P)
    return loadGeneric(L, Ptrs, Mk);
  if (P->Strided)
    return gather(L, Ptrs, Mk, /*CheckRows=*/false);
  Value *Whole = B->CreateAndReduce(Mk);
  if (P->Fits)
    Whole = B->CreateAnd(Whole, P->Fits);
  bool Same = P->Step == 0;
  const Shape &S = shape();
  BasicBlock *Join = BasicBlock::Create(C, "load.done", F);
  SmallVector<std::pair<Value *, BasicBlock *>, 4> In;
  auto Path = [&](Value *Cond, StringRef Name, auto &&Load) {
    BasicBlock *Fast = BasicBlock::Create(C, Name, F);
    BasicBlock *Next = BasicBlock::Create(C, "load.other", F);
    B->CreateCondBr(B->CreateAnd(Whole, Cond), Fast, Next);
    B->SetInsertPoint(Fast);
    In.push_back({Load(), B->GetInsertBlock()});
    B->CreateBr(Join);
    B->SetInsertPoint(Next);
  };
  Path(S.Flat, "load.flat", [&] { return loadAt(T, P->Lane0, L.getAlign(), W, Same); });
  for (unsigned K = 0; K < S.Rows.size(); ++K)
    Path(S.Rows[K].second, "load.rows", [&] {
      unsigned R = S.Rows[K].first;
      SmallVector<Value *, 4> Parts;
      for (unsigned J = 0; J < W / R; ++J)
        Parts.push_back(loadAt(
            T, B->CreateGEP(B->getInt8Ty(), P->Lane0, B->CreateMul(P->RowStep[K], B->getInt64(J))),
            L.getAlign(), R, Same));
      return concat(Parts);
    });
  // The pattern covers what a run-time check would find: the rest is a gather.
  In.push_back({gather(L, Ptrs, Mk, /*CheckRows=*/false), B->GetInsertBlock()});
  B->CreateBr(Join);
  B->SetInsertPoint(Join);
  PHINode *R = B->CreatePHI(WT, In.size());
  for (auto &[V, From] : In)
    R->addIncoming(V, From);
  return R;
}

Value *Vectorizer::loadGeneric(LoadInst &L, Value *Ptrs, Value *Mk) {
  Type *T = L.getType(), *WT = widen(T);
  auto [Ok, P0] = consecutive(L.getPointerOperand(), Ptrs, T);
  if (!Ok)
    return gather(L, Ptrs, Mk);
  BasicBlock *Fast = BasicBlock::Create(C, "load.vector", F);
  BasicBlock *Slow = BasicBlock::Create(C, "load.gather", F);
  BasicBlock *Join = BasicBlock::Create(C, "load.done", F);
  B->CreateCondBr(MaskedMemory ? Ok : B->CreateAnd(Ok, B->CreateAndReduce(Mk)), Fast, Slow);
  B->SetInsertPoint(Fast);
  Value *VF = MaskedMemory ? static_cast<Value *>(B->CreateMaskedLoad(WT, P0, L.getAlign(), Mk,
                                                                      PoisonValue::get(WT)))
                           : B->CreateAlignedLoad(WT, P0, L.getAlign());
  B->CreateBr(Join);
  B->SetInsertPoint(Slow);
  Value *VS = gather(L, Ptrs, Mk);
  BasicBlock *SlowEnd = B->GetInsertBlock();
  B->CreateBr(Join);
  B->SetInsertPoint(Join);
  PHINode *R = B->CreatePHI(WT, 2);
  R->addIncoming(VF, Fast);
  R->addIncoming(VS, SlowEnd);
  return R;
}

/// A varying store, as a load (several lanes storing to one address: the highest lane's value
/// stays, as a scatter orders them).
void Vectorizer::store(StoreInst &S) {
  Value *Mk = Mask.lookup(CurOld);
  Value *V = vec(S.getValueOperand());
  Value *Ptrs = vec(S.getPointerOperand());
  Type *T = S.getValueOperand()->getType();
  std::optional<Pattern> P;
  if (Varying.count(S.getPointerOperand()))
    P = pattern(S.getPointerOperand(), T);
  if (!P)
    return storeGeneric(S, V, Ptrs, Mk);
  if (P->Strided)
    return scatter(S, V, Ptrs, Mk, /*CheckRows=*/false);
  Value *Whole = B->CreateAndReduce(Mk);
  if (P->Fits)
    Whole = B->CreateAnd(Whole, P->Fits);
  bool Same = P->Step == 0;
  const Shape &Sh = shape();
  BasicBlock *Join = BasicBlock::Create(C, "store.done", F);
  // Lanes First.. First + Lanes - 1 of V at \p At (or the last one's value).
  auto Part = [&](Value *At, unsigned First, unsigned Lanes) {
    if (Same) {
      B->CreateAlignedStore(B->CreateExtractElement(V, uint64_t(First + Lanes - 1)), At,
                            S.getAlign());
      return;
    }
    SmallVector<int, 64> Pick;
    for (unsigned L = 0; L < Lanes; ++L)
      Pick.push_back(int(First + L));
    B->CreateAlignedStore(Lanes == W ? V : B->CreateShuffleVector(V, Pick), At, S.getAlign());
  };
  auto Path = [&](Value *Cond, StringRef Name, auto &&Store) {
    BasicBlock *Fast = BasicBlock::Create(C, Name, F);
    BasicBlock *Next = BasicBlock::Create(C, "store.other", F);
    B->CreateCondBr(B->CreateAnd(Whole, Cond), Fast, Next);
    B->SetInsertPoint(Fast);
    Store();
    B->CreateBr(Join);
    B->SetInsertPoint(Next);
  };
  Path(Sh.Flat, "store.flat", [&] { Part(P->Lane0, 0, W); });
  for (unsigned K = 0; K < Sh.Rows.size(); ++K)
    Path(Sh.Rows[K].second, "store.rows", [&] {
      unsigned R = Sh.Rows[K].first;
      for (unsigned J = 0; J < W / R; ++J)
        Part(B->CreateGEP(B->getInt8Ty(), P->Lane0, B->CreateMul(P->RowStep[K], B->getInt64(J))),
             J * R, R);
    });
  scatter(S, V, Ptrs, Mk, /*CheckRows=*/false);
  B->CreateBr(Join);
  B->SetInsertPoint(Join);
}

void Vectorizer::storeGeneric(StoreInst &S, Value *V, Value *Ptrs, Value *Mk) {
  Run R;
  if (Varying.count(S.getPointerOperand()))
    R = consecutive(S.getPointerOperand(), Ptrs, S.getValueOperand()->getType());
  auto [Ok, P0] = R;
  if (!Ok) {
    scatter(S, V, Ptrs, Mk);
    return;
  }
  BasicBlock *Whole = BasicBlock::Create(C, "store.whole", F);
  BasicBlock *Part = BasicBlock::Create(C, "store.part", F);
  BasicBlock *Join = BasicBlock::Create(C, "store.done", F);
  B->CreateCondBr(B->CreateAnd(Ok, B->CreateAndReduce(Mk)), Whole, Part);
  B->SetInsertPoint(Whole);
  B->CreateAlignedStore(V, P0, S.getAlign());
  B->CreateBr(Join);
  B->SetInsertPoint(Part);
  if (MaskedMemory) {
    BasicBlock *Vector = BasicBlock::Create(C, "store.vector", F);
    BasicBlock *Scatter = BasicBlock::Create(C, "store.scatter", F);
    B->CreateCondBr(Ok, Vector, Scatter);
    B->SetInsertPoint(Vector);
    B->CreateMaskedStore(V, P0, S.getAlign(), Mk);
    B->CreateBr(Join);
    B->SetInsertPoint(Scatter);
  }
  scatter(S, V, Ptrs, Mk);
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
      Value *Mk = Mask.lookup(CurOld);
      Value *Data = B->CreateSelect(Mk, vec(CI->getArgOperand(1)), Constant::getNullValue(VT));
      Value *Src =
          B->CreateAnd(B->CreateLShr(vec(CI->getArgOperand(0)), 2),
                       ConstantVector::getSplat(ElementCount::getFixed(W), B->getInt32(W - 1)));
      // Lanes named by constants (a shuffle's xor, up or down from the lane number): one
      // shuffle of the register.
      DenseMap<Value *, Constant *> Known;
      if (Constant *Lanes = constantOf(Src, DL, Known)) {
        SmallVector<int, 64> Pick;
        for (unsigned L = 0; L < W; ++L)
          if (auto *E = dyn_cast_or_null<ConstantInt>(Lanes->getAggregateElement(L)))
            Pick.push_back(int(E->getZExtValue()));
        if (Pick.size() == W)
          return Set(B->CreateShuffleVector(Data, Pick));
      }
      if (!PermuteBuffer) {
        IRBuilder<> EB(&F->getEntryBlock(), F->getEntryBlock().begin());
        PermuteBuffer = EB.CreateAlloca(VT);
        PermuteBuffer->setAlignment(Align(64));
      }
      B->CreateAlignedStore(Data, PermuteBuffer, Align(64));
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
    // The lanes' elements, padded to the vector's width (both shuffle operands have one type).
    SmallVector<int, 256> Pad(W * K, -1), Sel;
    for (unsigned L = 0; L < W; ++L)
      Pad[L] = int(L);
    Value *Elements = B->CreateShuffleVector(vec(IE->getOperand(1)), Pad);
    for (unsigned L = 0; L < W; ++L)
      for (unsigned J = 0; J < K; ++J)
        Sel.push_back(J == Idx->getZExtValue() ? int(W * K + L) : int(L * K + J));
    return Set(B->CreateShuffleVector(vec(IE->getOperand(0)), Elements, Sel));
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
      if (!Callee || Callee->isDeclaration() || Callee == V || isLaneSubroutine(*Callee))
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

std::string vectorizeWave(Function &Entry, StringRef Name, unsigned WaveSize, bool MaskedMemory,
                          bool &Barriers) {
  std::string Why;
  Function *V = prepare(Entry, Why);
  if (!V)
    return Why;
  Vectorizer Wave(*V, WaveSize, MaskedMemory);
  Why = Wave.run(Name);
  V->eraseFromParent();
  Barriers = Why.empty() && Wave.hasBarrier();
  return Why;
}

} // namespace ptx2amd::host
