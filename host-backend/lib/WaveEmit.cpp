// Each instruction of the prepared copy as the wave's (WaveVectorizer.h): a uniform one stays a
// scalar; a varying one becomes the same operation on vectors of WaveSize lanes (a lane's small
// vector or aggregate lies at its place in a wider one), a cross-lane call an operation on those
// vectors, and what has no vector form runs once for each active lane (scalarize).
#include "LaneState.h"
#include "WaveVectorizer.h"

#include "llvm/Analysis/ConstantFolding.h"
#include "llvm/Analysis/VectorUtils.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/ErrorHandling.h"

using namespace llvm;

namespace ptx2amd::host::detail {

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

namespace {

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

/// The elements a lane's value of type \p T takes in the wave's vector (1 unless a small vector).
unsigned lanesOf(Type *T) {
  auto *VT = dyn_cast<FixedVectorType>(T);
  return VT ? VT->getNumElements() : 1;
}

} // namespace

bool Vectorizer::bind(const Instruction &I, Value *V) {
  if (isa<Instruction>(V))
    V->setName(I.getName());
  Map[&I] = V;
  return true;
}

bool Vectorizer::emitVarying(Instruction &I) {
  Type *WT = widen(I.getType());
  if (!WT)
    return reject("a varying value of type that has no vector form");
  if (isa<BinaryOperator, UnaryOperator, CmpInst, CastInst, SelectInst, GetElementPtrInst,
          FreezeInst>(I))
    return emitVaryingOperation(I, WT);
  if (isa<LoadInst, StoreInst, AtomicRMWInst, AtomicCmpXchgInst, AllocaInst>(I))
    return emitVaryingAccess(I, WT);
  if (auto *CI = dyn_cast<CallInst>(&I))
    return emitVaryingCall(*CI, WT);
  if (isa<ExtractValueInst, InsertValueInst, ExtractElementInst, InsertElementInst,
          ShuffleVectorInst>(I))
    return emitVaryingElements(I);
  return reject("a lane-dependent '" + Twine(I.getOpcodeName()) + "'");
}

/// Arithmetic, comparisons, casts, selects, address arithmetic and freeze, lane by lane.
bool Vectorizer::emitVaryingOperation(Instruction &I, Type *WT) {
  if (auto *BO = dyn_cast<BinaryOperator>(&I)) {
    Value *R = vec(BO->getOperand(1));
    switch (BO->getOpcode()) {
    case Instruction::SDiv:
    case Instruction::UDiv:
    case Instruction::SRem:
    case Instruction::URem:
      // Inactive lanes divide by 1 (theirs may be 0: a fault no lane of the kernel makes).
      R = B->CreateSelect(laneMask(lanesOf(I.getType())), R, ConstantInt::get(R->getType(), 1));
      break;
    default:
      break;
    }
    Value *V = B->CreateBinOp(BO->getOpcode(), vec(BO->getOperand(0)), R);
    if (auto *NI = dyn_cast<Instruction>(V))
      NI->copyIRFlags(BO);
    // The deliberately broken vectorisation the differential mode's test catches.
    if (BreakXor && BO->getOpcode() == Instruction::Xor && I.getType()->isIntegerTy(32))
      V = B->CreateAdd(V, ConstantInt::get(V->getType(), 1));
    return bind(I, V);
  }
  if (auto *UO = dyn_cast<UnaryOperator>(&I)) {
    Value *V = B->CreateUnOp(UO->getOpcode(), vec(UO->getOperand(0)));
    if (auto *NI = dyn_cast<Instruction>(V))
      NI->copyIRFlags(UO);
    return bind(I, V);
  }
  if (auto *Cmp = dyn_cast<CmpInst>(&I)) {
    Value *V = B->CreateCmp(Cmp->getPredicate(), vec(Cmp->getOperand(0)), vec(Cmp->getOperand(1)));
    if (auto *NI = dyn_cast<Instruction>(V))
      NI->copyIRFlags(Cmp);
    return bind(I, V);
  }
  if (auto *Cast = dyn_cast<CastInst>(&I)) {
    Value *V = B->CreateCast(Cast->getOpcode(), vec(Cast->getOperand(0)), WT);
    if (auto *NI = dyn_cast<Instruction>(V))
      NI->copyIRFlags(Cast);
    return bind(I, V);
  }
  if (auto *Sel = dyn_cast<SelectInst>(&I)) {
    Value *Cond = Sel->getCondition();
    Value *WC = get(Cond);
    if (Varying.count(Cond)) {
      if (I.getType()->isStructTy())
        return reject("a lane-dependent select of aggregates");
      if (!Cond->getType()->isVectorTy())
        WC = repeatLanes(WC, lanesOf(I.getType()));
    }
    Value *V = B->CreateSelect(WC, vec(Sel->getTrueValue()), vec(Sel->getFalseValue()));
    if (auto *NI = dyn_cast<Instruction>(V))
      NI->copyIRFlags(Sel);
    return bind(I, V);
  }
  if (auto *G = dyn_cast<GetElementPtrInst>(&I)) {
    if (G->getType()->isVectorTy())
      return reject("a vector getelementptr");
    SmallVector<Value *, 4> Idx;
    for (Use &U : G->indices())
      Idx.push_back(get(U.get()));
    return bind(I, B->CreateGEP(G->getSourceElementType(), get(G->getPointerOperand()), Idx, "",
                                G->getNoWrapFlags()));
  }
  if (auto *Fr = dyn_cast<FreezeInst>(&I))
    return bind(I, B->CreateFreeze(vec(Fr->getOperand(0))));
  llvm_unreachable("not an operation");
}

/// Memory: the lanes' work-item ids and lane numbers, loads, stores, atomics and private
/// variables.
bool Vectorizer::emitVaryingAccess(Instruction &I, Type *WT) {
  if (auto *L = dyn_cast<LoadInst>(&I)) {
    int64_t Off = stateOffset(L->getPointerOperand());
    if (Off == state::LaneInWave)
      return bind(I, iota(B->getInt32Ty(), 1));
    if (Off >= state::ItemId && Off < state::ItemId + 12) {
      Value *P =
          B->CreateConstInBoundsGEP1_32(B->getInt8Ty(), Ids, (Off - state::ItemId) / 4 * W * 4);
      return bind(I, B->CreateAlignedLoad(WT, P, Align(4)));
    }
    if (L->isAtomic() || !(I.getType()->isIntOrPtrTy() || I.getType()->isFloatingPointTy()))
      return bind(I, scalarize(I));
    return bind(I, load(*L));
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
    return bind(I, scalarize(I));
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
    return bind(I, B->CreateGEP(B->getInt8Ty(), Arena, iota(B->getInt64Ty(), Stride)));
  }
  llvm_unreachable("not a memory access");
}

/// A call with a varying operand or result: a cross-lane operation, an intrinsic's vector form,
/// or the call once for each active lane.
bool Vectorizer::emitVaryingCall(CallInst &CI, Type *WT) {
  CallKind K = callKind(CI);
  if (K == CallKind::Bpermute) {
    // ds_bpermute(byte address, data): each lane reads the lane its address names; an
    // inactive source reads 0.
    Type *I32 = B->getInt32Ty();
    auto *VT = FixedVectorType::get(I32, W);
    Value *Mk = Mask.lookup(CurOld);
    Value *Data = B->CreateSelect(Mk, vec(CI.getArgOperand(1)), Constant::getNullValue(VT));
    Value *Src =
        B->CreateAnd(B->CreateLShr(vec(CI.getArgOperand(0)), 2),
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
        return bind(CI, B->CreateShuffleVector(Data, Pick));
    }
    if (!PermuteBuffer) {
      IRBuilder<> EB(&F->getEntryBlock(), F->getEntryBlock().begin());
      PermuteBuffer = EB.CreateAlloca(VT);
      PermuteBuffer->setAlignment(Align(64));
    }
    B->CreateAlignedStore(Data, PermuteBuffer, Align(64));
    // Every lane reads (the buffer is the wave's own, the indices in range): no mask.
    return bind(CI, B->CreateMaskedGather(VT, B->CreateGEP(I32, PermuteBuffer, Src), Align(4),
                                          Constant::getAllOnesValue(Mk->getType())));
  }
  if (K == CallKind::Vector) {
    Intrinsic::ID ID = CI.getIntrinsicID();
    SmallVector<Type *, 4> Tys;
    SmallVector<Value *, 4> Args;
    if (isVectorIntrinsicWithOverloadTypeAtArg(ID, -1, nullptr))
      Tys.push_back(WT);
    for (unsigned A = 0; A < CI.arg_size(); ++A) {
      Value *Op = CI.getArgOperand(A);
      bool Scalar = isVectorIntrinsicWithScalarOpAtArg(ID, A, nullptr);
      Args.push_back(Scalar ? get(Op) : vec(Op));
      if (isVectorIntrinsicWithOverloadTypeAtArg(ID, A, nullptr))
        Tys.push_back(Args.back()->getType());
    }
    Function *Decl = Intrinsic::getOrInsertDeclaration(&M, ID, Tys);
    CallInst *V = B->CreateCall(Decl, Args);
    if (isa<FPMathOperator>(CI))
      V->copyFastMathFlags(&CI);
    return bind(CI, V);
  }
  Value *R = scalarize(CI);
  if (R)
    bind(CI, R);
  return true;
}

/// Elements of a lane's small vector or aggregate, which lie at the lane's place in the wave's.
bool Vectorizer::emitVaryingElements(Instruction &I) {
  if (auto *EV = dyn_cast<ExtractValueInst>(&I)) {
    if (EV->getNumIndices() != 1)
      return reject("a nested extractvalue");
    return bind(I, B->CreateExtractValue(vec(EV->getAggregateOperand()), EV->getIndices()));
  }
  if (auto *IV = dyn_cast<InsertValueInst>(&I)) {
    if (IV->getNumIndices() != 1)
      return reject("a nested insertvalue");
    return bind(I, B->CreateInsertValue(vec(IV->getAggregateOperand()),
                                        vec(IV->getInsertedValueOperand()), IV->getIndices()));
  }
  if (auto *EE = dyn_cast<ExtractElementInst>(&I)) {
    auto *Idx = dyn_cast<ConstantInt>(EE->getIndexOperand());
    unsigned K = cast<FixedVectorType>(EE->getVectorOperandType())->getNumElements();
    if (!Idx || Idx->getZExtValue() >= K)
      return bind(I, scalarize(I));
    SmallVector<int, 64> Sel;
    for (unsigned L = 0; L < W; ++L)
      Sel.push_back(L * K + Idx->getZExtValue());
    return bind(I, B->CreateShuffleVector(vec(EE->getVectorOperand()), Sel));
  }
  if (auto *IE = dyn_cast<InsertElementInst>(&I)) {
    auto *Idx = dyn_cast<ConstantInt>(IE->getOperand(2));
    unsigned K = cast<FixedVectorType>(IE->getType())->getNumElements();
    if (!Idx || Idx->getZExtValue() >= K)
      return bind(I, scalarize(I));
    // The lanes' elements, padded to the vector's width (both shuffle operands have one type).
    SmallVector<int, 256> Pad(W * K, -1), Sel;
    for (unsigned L = 0; L < W; ++L)
      Pad[L] = int(L);
    Value *Elements = B->CreateShuffleVector(vec(IE->getOperand(1)), Pad);
    for (unsigned L = 0; L < W; ++L)
      for (unsigned J = 0; J < K; ++J)
        Sel.push_back(J == Idx->getZExtValue() ? int(W * K + L) : int(L * K + J));
    return bind(I, B->CreateShuffleVector(vec(IE->getOperand(0)), Elements, Sel));
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
    return bind(I, B->CreateShuffleVector(vec(SV->getOperand(0)), vec(SV->getOperand(1)), Sel));
  }
  llvm_unreachable("not an element operation");
}

bool Vectorizer::emit(Instruction &I) {
  return Varying.count(&I) ? emitVarying(I) : emitUniform(I);
}

} // namespace ptx2amd::host::detail
