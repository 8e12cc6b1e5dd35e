// The lanes' memory accesses in a wave (WaveVectorizer.h). A varying address is, where it can
// be, an affine function of the lanes' work-item ids and lane number (affine, pattern), and the
// wave's shape (flat, or rows of a 2-D block) is found once at its entry: a whole wave then
// loads or stores one vector, or one a row. Other addresses are checked at run time: consecutive
// active lanes make one vector access, rows of consecutive elements one a row (without AVX-512),
// the rest is a masked gather or scatter on AVX-512 and a loop over the active lanes elsewhere.
#include "LaneState.h"
#include "WaveVectorizer.h"

#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace ptx2amd::host::detail {

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

} // namespace ptx2amd::host::detail
