// Lockstep points (Lockstep.h). Between two synchronisation points the host runs a wave's lanes
// one after the other, where the GPU runs them together. The two orders differ only through
// memory: a lane that loads what a higher lane stores at an earlier instruction sees the old
// value, and a lane that loads what a lower lane stores at a later instruction sees the new one.
// So the wave meets (wave.barrier) before an access that may touch what another lane of the wave
// accessed since the wave last met, unless one of the two only reads; between meetings, the
// lanes' accesses cannot see each other's order.
//
// Whether two accesses may touch the same bytes for two different lanes is decided from their
// addresses as scalar evolutions, over a forward data flow of the accesses made since the last
// meeting. An address is lane-spread with stride s when it is (wave-uniform) + s * t, t an
// injective function of the lane's x id: then two lanes' accesses at the same address expression
// are apart by at least |s| bytes, and accesses at two expressions a constant D apart are apart
// when |D| is past the wave's spread. Loops need care: lanes are not at the same iteration
// between meetings, so an address that changes with the iteration is lane-spread only when its
// step is at least the block's width times s (grid-stride loops), and uniform values computed
// inside a loop count as varying.
#include "Lockstep.h"

#include "MatrixEmulation.h"
#include "SyncOps.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsAMDGPU.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/AMDGPUAddrSpace.h"

#include <optional>
#include <tuple>

using namespace llvm;

namespace ptx2amd::host {
namespace {

constexpr unsigned ASFlat = AMDGPUAS::FLAT_ADDRESS, ASConst = AMDGPUAS::CONSTANT_ADDRESS;

/// A work-item's own memory: no other lane sees it.
bool isPrivate(const Value *P) {
  return P->getType()->getPointerAddressSpace() == AMDGPUAS::PRIVATE_ADDRESS ||
         isa<AllocaInst>(getUnderlyingObject(P));
}
/// Accesses remembered since the last meeting before the state counts as "anything".
constexpr size_t MaxAccesses = 64;
/// Passes of the data flow before every access is given a meeting.
constexpr unsigned MaxPasses = 64;

enum class Kind : uint8_t { Read, Write, Atomic };

/// One memory access since the wave last met; S is null when its address is not known.
struct Access {
  const SCEV *S;
  unsigned AS;
  uint64_t Size;
  Kind K;
  auto key() const { return std::make_tuple(S, AS, Size, K); }
  bool operator==(const Access &O) const { return key() == O.key(); }
  bool operator<(const Access &O) const { return key() < O.key(); }
};

/// The accesses since the last meeting, sorted; Any: more than MaxAccesses (anything).
struct State {
  SmallVector<Access, 8> List;
  bool Any = false;
  bool operator==(const State &O) const { return Any == O.Any && List == O.List; }
  void add(const Access &A) {
    if (Any)
      return;
    auto It = llvm::lower_bound(List, A);
    if (It != List.end() && *It == A)
      return;
    List.insert(It, A);
    if (List.size() > MaxAccesses) {
      List.clear();
      Any = true;
    }
  }
  void merge(const State &O) {
    Any |= O.Any;
    for (const Access &A : O.List)
      add(A);
    if (Any)
      List.clear();
  }
};

/// What a value is across the lanes of a wave and over time between meetings.
enum class Leaf : uint8_t {
  Uniform,    ///< one value for every lane
  BlockSizeX, ///< the block's x size (uniform, at least 1)
  LaunchDim,  ///< another block or grid size (uniform, at least 1)
  LaneX,      ///< the work-item's x id
  LaneYZ,     ///< its y or z id
  Varying,
};

/// An address across the lanes of a wave: (wave-uniform) + Stride * t + (terms in the y and z
/// ids), t an injective function of the x id (Stride 0: no x term). Rows: y or z terms, whose
/// coefficients may be uniform values (a row pitch). Loop: it changes with a loop's iteration.
struct Spread {
  int64_t Stride = 0;
  bool Rows = false;
  bool Loop = false;
  bool uniform() const { return !Stride && !Rows; }
};

/// ptrtoint(inttoptr X) is X: the lowering computes addresses as integers, then offsets the
/// pointers it makes of them.
class IntegerAddresses : public SCEVRewriteVisitor<IntegerAddresses> {
public:
  using SCEVRewriteVisitor::SCEVRewriteVisitor;
  static const SCEV *rewrite(const SCEV *S, ScalarEvolution &SE) {
    return IntegerAddresses(SE).visit(S);
  }
  const SCEV *visitPtrToIntExpr(const SCEVPtrToIntExpr *E) {
    if (auto *U = dyn_cast<SCEVUnknown>(E->getOperand())) {
      Value *Int = nullptr;
      if (auto *Cast = dyn_cast<IntToPtrInst>(U->getValue()))
        Int = Cast->getOperand(0);
      else if (auto *CE = dyn_cast<ConstantExpr>(U->getValue());
               CE && CE->getOpcode() == Instruction::IntToPtr)
        Int = CE->getOperand(0);
      if (Int && SE.isSCEVable(Int->getType()))
        return SE.getTruncateOrZeroExtend(SE.getSCEV(Int), E->getType());
    }
    return SCEVRewriteVisitor::visitPtrToIntExpr(E);
  }
};

/// s_sleep, or the yield Retarget puts into spin loops: the lane waits for memory that others
/// write, letting them run first.
bool sleeps(const CallBase &CB) {
  const Function *Callee = CB.getCalledFunction();
  if (!Callee)
    return false;
  const SyncOp *Row =
      Callee->isIntrinsic() ? findSyncOp(Callee->getIntrinsicID()) : findSyncOp(Callee->getName());
  return Row && Row->Kind == SyncKind::Yield;
}

class LockstepPoints {
public:
  LockstepPoints(Function &F, unsigned WaveSize)
      : F(F), WaveSize(WaveSize), DL(F.getDataLayout()), DT(F), LI(DT),
        TLII(F.getParent()->getTargetTriple()), TLI(TLII), AC(F), SE(F, TLI, AC, DT, LI) {}

  unsigned run();

private:
  Function &F;
  unsigned WaveSize;
  const DataLayout &DL;
  DominatorTree DT;
  LoopInfo LI;
  TargetLibraryInfoImpl TLII;
  TargetLibraryInfo TLI;
  AssumptionCache AC;
  ScalarEvolution SE;
  DenseMap<const Value *, Leaf> Leaves;
  DenseMap<const SCEV *, std::optional<Spread>> Spreads;
  SmallPtrSet<Instruction *, 16> Cuts;
  SmallPtrSet<const BasicBlock *, 8> Spinning; ///< blocks of loops that sleep

  Leaf classify(const Value *V, unsigned Depth = 0);
  std::optional<Spread> spread(const SCEV *S);
  bool stepCoversBlock(const SCEV *Step, int64_t Stride);
  bool laneApart(const SCEV *S, uint64_t Size);
  const Value *objectOf(const SCEV *S, const SCEV *&Offset);
  const SCEV *addressOf(Value *P);
  bool mayConflict(const Access &A, const Access &B);
  std::optional<Access> accessOf(Instruction &I);
  bool meets(const Instruction &I) const;
  void transfer(BasicBlock &BB, State &S);
};

Leaf LockstepPoints::classify(const Value *V, unsigned Depth) {
  if (isa<Constant>(V) || isa<Argument>(V))
    return Leaf::Uniform;
  auto *I = dyn_cast<Instruction>(V);
  if (!I || Depth > 16)
    return Leaf::Varying;
  if (auto It = Leaves.find(V); It != Leaves.end())
    return It->second;
  Leaf R = Leaf::Varying;
  // Between meetings lanes are at different iterations: what a loop computes varies.
  if (LI.getLoopFor(I->getParent())) {
  } else if (auto *II = dyn_cast<IntrinsicInst>(I)) {
    switch (II->getIntrinsicID()) {
    case Intrinsic::amdgcn_workitem_id_x:
      R = Leaf::LaneX;
      break;
    case Intrinsic::amdgcn_workitem_id_y:
    case Intrinsic::amdgcn_workitem_id_z:
      R = Leaf::LaneYZ;
      break;
    case Intrinsic::amdgcn_workgroup_id_x:
    case Intrinsic::amdgcn_workgroup_id_y:
    case Intrinsic::amdgcn_workgroup_id_z:
    case Intrinsic::amdgcn_dispatch_ptr:
    case Intrinsic::amdgcn_implicitarg_ptr:
    case Intrinsic::amdgcn_kernarg_segment_ptr:
    case Intrinsic::amdgcn_dispatch_id:
    case Intrinsic::amdgcn_groupstaticsize:
    case Intrinsic::amdgcn_readfirstlane:
      R = Leaf::Uniform;
      break;
    default:
      break;
    }
  } else if (auto *L = dyn_cast<LoadInst>(I)) {
    const Value *P = L->getPointerOperand();
    bool Constant =
        L->getPointerAddressSpace() == ASConst || L->hasMetadata(LLVMContext::MD_invariant_load);
    if (Constant && !L->isVolatile() && classify(P, Depth + 1) == Leaf::Uniform) {
      R = Leaf::Uniform;
      // The dispatch packet's sizes (the lowering reads them there) and code object v5's
      // block counts.
      APInt Offset(64, 0);
      const Value *Base = P->stripAndAccumulateConstantOffsets(DL, Offset, true);
      if (auto *Src = dyn_cast<IntrinsicInst>(Base)) {
        if (Src->getIntrinsicID() == Intrinsic::amdgcn_dispatch_ptr)
          R = Offset == 4 && L->getType()->isIntegerTy(16) ? Leaf::BlockSizeX : Leaf::LaunchDim;
        else if (Src->getIntrinsicID() == Intrinsic::amdgcn_implicitarg_ptr && Offset.ult(12) &&
                 L->getType()->isIntegerTy(32))
          R = Leaf::LaunchDim;
      }
    }
  } else if (isa<CastInst, BinaryOperator, GetElementPtrInst, SelectInst, CmpInst, FreezeInst,
                 ExtractValueInst, ExtractElementInst, InsertElementInst>(I)) {
    R = Leaf::Uniform;
    for (const Value *Op : I->operands())
      if (Leaf K = classify(Op, Depth + 1);
          K == Leaf::LaneX || K == Leaf::LaneYZ || K == Leaf::Varying) {
        R = Leaf::Varying;
        break;
      }
  }
  Leaves[V] = R;
  return R;
}

/// Whether a loop's step is at least |Stride| times the block's x size: a product of constants
/// (a multiple of Stride) and launch sizes, one of them the block's x size. The lanes of a wave
/// lie in one block, so their x ids are less than its x size apart.
bool LockstepPoints::stepCoversBlock(const SCEV *Step, int64_t Stride) {
  if (auto *C = dyn_cast<SCEVConstant>(Step))
    return C->getAPInt().abs().uge(uint64_t(std::abs(Stride)) * WaveSize);
  SmallVector<const SCEV *, 4> Factors;
  if (auto *Mul = dyn_cast<SCEVMulExpr>(Step))
    Factors.append(Mul->operands().begin(), Mul->operands().end());
  else
    Factors.push_back(Step);
  int64_t Constant = 1;
  bool Block = false;
  for (const SCEV *Op : Factors) {
    if (auto *C = dyn_cast<SCEVConstant>(Op)) {
      if (C->getAPInt().getSignificantBits() > 32)
        return false;
      Constant *= C->getAPInt().getSExtValue();
      continue;
    }
    while (auto *Cast = dyn_cast<SCEVZeroExtendExpr>(Op))
      Op = Cast->getOperand();
    auto *U = dyn_cast<SCEVUnknown>(Op);
    if (!U)
      return false;
    Leaf K = classify(U->getValue());
    if (K == Leaf::BlockSizeX)
      Block = true;
    else if (K != Leaf::LaunchDim)
      return false;
  }
  return Block && Constant != 0 && Constant % Stride == 0;
}

std::optional<Spread> LockstepPoints::spread(const SCEV *S) {
  if (auto It = Spreads.find(S); It != Spreads.end())
    return It->second;
  std::optional<Spread> R;
  if (isa<SCEVConstant>(S)) {
    R = Spread();
  } else if (auto *U = dyn_cast<SCEVUnknown>(S)) {
    switch (classify(U->getValue())) {
    case Leaf::Uniform:
    case Leaf::BlockSizeX:
    case Leaf::LaunchDim:
      R = Spread();
      break;
    case Leaf::LaneX:
      R = Spread{1, false, false};
      break;
    case Leaf::LaneYZ:
      R = Spread{0, true, false};
      break;
    case Leaf::Varying:
      break;
    }
  } else if (auto *T = dyn_cast<SCEVTruncateExpr>(S)) {
    if (auto In = spread(T->getOperand()); In && In->uniform())
      R = In;
  } else if (auto *Cast = dyn_cast<SCEVCastExpr>(S)) {
    // zext, sext, ptrtoint: indices do not wrap within a wave (taken, as nvcc's code does).
    R = spread(Cast->getOperand(0));
  } else if (auto *Add = dyn_cast<SCEVAddExpr>(S)) {
    R = Spread();
    for (const SCEV *Op : Add->operands()) {
      auto P = spread(Op);
      if (!P || (P->Stride && R->Stride)) {
        R.reset();
        break;
      }
      R->Stride |= P->Stride;
      R->Rows |= P->Rows;
      R->Loop |= P->Loop;
    }
  } else if (auto *Mul = dyn_cast<SCEVMulExpr>(S)) {
    // One factor in the ids; the others constants (an x term) or uniform (a row pitch).
    R = Spread();
    int64_t Constant = 1;
    bool OnlyConstants = true, Lanes = false;
    for (const SCEV *Op : Mul->operands()) {
      auto P = spread(Op);
      if (!P || (!P->uniform() && Lanes)) {
        R.reset();
        break;
      }
      Lanes |= !P->uniform();
      R->Stride |= P->Stride;
      R->Rows |= P->Rows;
      R->Loop |= P->Loop;
      if (auto *C = dyn_cast<SCEVConstant>(Op)) {
        if (C->getAPInt().getSignificantBits() > 32) {
          R.reset();
          break;
        }
        Constant *= C->getAPInt().getSExtValue();
      } else if (P->uniform()) {
        OnlyConstants = false; // a uniform factor, which may be 0
      }
    }
    if (R && Lanes) {
      if (Constant == 0 || std::abs(Constant) > (int64_t(1) << 30) || (R->Stride && !OnlyConstants))
        R.reset();
      else
        R->Stride *= Constant;
    }
  } else if (auto *Rec = dyn_cast<SCEVAddRecExpr>(S); Rec && Rec->isAffine()) {
    auto Start = spread(Rec->getStart());
    auto Step = spread(Rec->getOperand(1));
    if (Start && Start->Stride && !Start->Rows && Step && Step->uniform() && !Step->Loop &&
        stepCoversBlock(Rec->getOperand(1), Start->Stride))
      R = Spread{Start->Stride, false, true};
  }
  Spreads[S] = R;
  return R;
}

/// Two lanes' accesses of Size bytes at address S never overlap. With y and z terms, the
/// lanes' coordinates are taken to give different addresses (two lanes at one address
/// expression that reads and writes would race in CUDA).
bool LockstepPoints::laneApart(const SCEV *S, uint64_t Size) {
  auto P = spread(S);
  return P && P->Stride && uint64_t(std::abs(P->Stride)) >= Size;
}

/// The object an address is based on: an LDS or global variable, or a pointer loaded from the
/// kernel's arguments (through casts); null when it is none of those.
const Value *LockstepPoints::objectOf(const SCEV *S, const SCEV *&Offset) {
  auto Object = [&](const SCEV *T) -> const Value * {
    while (auto *Cast = dyn_cast<SCEVCastExpr>(T))
      T = Cast->getOperand(0);
    auto *U = dyn_cast<SCEVUnknown>(T);
    if (!U)
      return nullptr;
    const Value *V = U->getValue()->stripPointerCasts();
    while (auto *Cast = dyn_cast<CastInst>(V))
      V = Cast->getOperand(0);
    if (isa<GlobalVariable>(V))
      return V;
    auto *L = dyn_cast<LoadInst>(V);
    return L && L->getPointerAddressSpace() == ASConst && classify(L) == Leaf::Uniform ? L
                                                                                       : nullptr;
  };
  SmallVector<const SCEV *, 4> Terms;
  if (auto *Rec = dyn_cast<SCEVAddRecExpr>(S)) {
    // The base of a loop's addresses is in its start.
    const SCEV *StartOffset = nullptr;
    const Value *O = objectOf(Rec->getStart(), StartOffset);
    if (O)
      Offset = SE.getMinusSCEV(S, SE.getMinusSCEV(Rec->getStart(), StartOffset));
    return O;
  }
  if (auto *Add = dyn_cast<SCEVAddExpr>(S))
    Terms.append(Add->operands().begin(), Add->operands().end());
  else
    Terms.push_back(S);
  const Value *Found = nullptr;
  for (const SCEV *T : Terms)
    if (const Value *O = Object(T)) {
      if (Found)
        return nullptr;
      Found = O;
      Offset = SE.getMinusSCEV(S, T);
    }
  return Found;
}

bool LockstepPoints::mayConflict(const Access &A, const Access &B) {
  if (A.K == Kind::Read && B.K == Kind::Read)
    return false;
  // Atomic operations commute; CUDA leaves their order among the lanes open.
  if (A.K == Kind::Atomic && B.K == Kind::Atomic)
    return false;
  if (A.AS != B.AS && A.AS != ASFlat && B.AS != ASFlat)
    return false;
  if (!A.S || !B.S || A.S->getType() != B.S->getType())
    return true;
  uint64_t Size = std::max(A.Size, B.Size);
  if (A.S == B.S)
    return !laneApart(A.S, Size);
  if (auto *D = dyn_cast<SCEVConstant>(SE.getMinusSCEV(A.S, B.S))) {
    // One expression a constant apart: apart when past the wave's spread.
    auto P = spread(A.S);
    if (!P || !P->Stride || P->Rows || P->Loop)
      return true;
    if (D->getAPInt().getSignificantBits() > 40)
      return false;
    // Lanes Delta apart: A's address - B's is Stride * Delta + D.
    const int64_t Distance = D->getAPInt().getSExtValue();
    for (int64_t Delta = 1 - int64_t(WaveSize); Delta < int64_t(WaveSize); ++Delta)
      if (int64_t V = P->Stride * Delta + Distance; Delta && std::abs(V) < int64_t(Size))
        return true;
    return false;
  }
  const SCEV *OffA = nullptr, *OffB = nullptr;
  const Value *ObjA = objectOf(A.S, OffA), *ObjB = objectOf(B.S, OffB);
  if (!ObjA || !ObjB || ObjA == ObjB)
    return true;
  // Two variables are two objects. Two pointers the kernel was given, at the same offset: taken
  // to be one array or apart (README.md, Lockstep).
  if (isa<GlobalVariable>(ObjA) && isa<GlobalVariable>(ObjB))
    return false;
  if (isa<LoadInst>(ObjA) && isa<LoadInst>(ObjB) && OffA == OffB)
    return !laneApart(OffA, Size);
  return true;
}

/// An address as an integer expression (the lowering's pointers are often inttoptr of integer
/// arithmetic); null when it has none.
const SCEV *LockstepPoints::addressOf(Value *P) {
  if (auto *Cast = dyn_cast<IntToPtrInst>(P); Cast && SE.isSCEVable(Cast->getSrcTy()))
    return SE.getSCEV(Cast->getOperand(0));
  if (auto *CE = dyn_cast<ConstantExpr>(P); CE && CE->getOpcode() == Instruction::IntToPtr)
    return SE.getSCEV(CE->getOperand(0));
  if (!SE.isSCEVable(P->getType()))
    return nullptr;
  const SCEV *S = SE.getPtrToIntExpr(SE.getSCEV(P), DL.getIntPtrType(P->getType()));
  if (isa<SCEVCouldNotCompute>(S))
    return nullptr;
  return IntegerAddresses::rewrite(S, SE);
}

/// The memory access \p I makes that another lane could see, if any.
std::optional<Access> LockstepPoints::accessOf(Instruction &I) {
  auto Located = [&](Value *P, Type *Ty, Kind K) -> std::optional<Access> {
    if (isPrivate(P))
      return std::nullopt;
    return Access{addressOf(P), P->getType()->getPointerAddressSpace(),
                  DL.getTypeStoreSize(Ty).getKnownMinValue(), K};
  };
  if (auto *L = dyn_cast<LoadInst>(&I)) {
    if (L->getPointerAddressSpace() == ASConst || L->hasMetadata(LLVMContext::MD_invariant_load))
      return std::nullopt;
    return Located(L->getPointerOperand(), L->getType(), Kind::Read);
  }
  if (auto *St = dyn_cast<StoreInst>(&I))
    return Located(St->getPointerOperand(), St->getValueOperand()->getType(), Kind::Write);
  if (auto *RMW = dyn_cast<AtomicRMWInst>(&I))
    return Located(RMW->getPointerOperand(), RMW->getValOperand()->getType(), Kind::Atomic);
  if (auto *Cas = dyn_cast<AtomicCmpXchgInst>(&I))
    return Located(Cas->getPointerOperand(), Cas->getNewValOperand()->getType(), Kind::Atomic);
  auto *CB = dyn_cast<CallBase>(&I);
  if (!CB || !CB->mayReadOrWriteMemory() || CB->onlyAccessesInaccessibleMemory() || sleeps(*CB))
    return std::nullopt;
  if (auto *MI = dyn_cast<MemIntrinsic>(CB)) {
    auto *MT = dyn_cast<MemTransferInst>(MI);
    if (isPrivate(MI->getRawDest()) && (!MT || isPrivate(MT->getRawSource())))
      return std::nullopt;
  }
  // A call that may touch memory anywhere.
  return Access{nullptr, ASFlat, 0, CB->mayWriteToMemory() ? Kind::Write : Kind::Read};
}

/// Whether the host makes the wave meet at \p I (SyncOps.h, after Retarget's lowering).
bool LockstepPoints::meets(const Instruction &I) const {
  auto *II = dyn_cast<IntrinsicInst>(&I);
  if (!II)
    return false;
  // A sleep is no meeting (the lane spins alone); the matrix units' emulation gathers its
  // operands through ds_bpermute (MatrixEmulation.cpp).
  const SyncOp *Row = findSyncOp(II->getIntrinsicID());
  return (Row && Row->Kind != SyncKind::Yield) || isEmulatedMatrixIntrinsic(II->getIntrinsicID());
}

void LockstepPoints::transfer(BasicBlock &BB, State &S) {
  for (Instruction &I : BB) {
    if (meets(I)) {
      S = State();
      continue;
    }
    std::optional<Access> A = accessOf(I);
    if (!A)
      continue;
    // A lane spinning on memory must not wait for its wave: the lanes it waits for may be
    // elsewhere in it (named barriers, locks).
    bool Cut = !Spinning.contains(&BB) &&
               (Cuts.contains(&I) || S.Any ||
                any_of(S.List, [&](const Access &B) { return mayConflict(B, *A); }));
    if (Cut) {
      Cuts.insert(&I);
      S = State();
    }
    S.add(*A);
  }
}

unsigned LockstepPoints::run() {
  for (Loop *L : LI.getLoopsInPreorder())
    if (any_of(L->blocks(), [](const BasicBlock *BB) {
          return any_of(*BB, [](const Instruction &I) {
            auto *CB = dyn_cast<CallBase>(&I);
            return CB && sleeps(*CB);
          });
        }))
      Spinning.insert(L->block_begin(), L->block_end());
  ReversePostOrderTraversal<Function *> RPO(&F);
  DenseMap<BasicBlock *, State> Out;
  bool Stable = false;
  for (unsigned Pass = 0; Pass < MaxPasses && !Stable; ++Pass) {
    Stable = true;
    for (BasicBlock *BB : RPO) {
      State S;
      for (BasicBlock *Pred : predecessors(BB))
        if (auto It = Out.find(Pred); It != Out.end())
          S.merge(It->second);
      transfer(*BB, S);
      State &Old = Out[BB];
      if (!(Old == S)) {
        Old = std::move(S);
        Stable = false;
      }
    }
  }
  if (!Stable) // no fixed point in time: every access meets
    for (BasicBlock *BB : RPO)
      for (Instruction &I : *BB)
        if (accessOf(I) && !Spinning.contains(BB))
          Cuts.insert(&I);
  for (Instruction *I : Cuts) {
    IRBuilder<> B(I);
    B.CreateIntrinsic(Intrinsic::amdgcn_wave_barrier, ArrayRef<Type *>{}, ArrayRef<Value *>{});
  }
  return Cuts.size();
}

} // namespace

unsigned insertLockstepPoints(Function &F, unsigned WaveSize) {
  if (F.isDeclaration())
    return 0;
  return LockstepPoints(F, WaveSize).run();
}

} // namespace ptx2amd::host
