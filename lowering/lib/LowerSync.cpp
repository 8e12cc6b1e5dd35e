// Barriers and calls.
#include "FunctionLowerer.h"

#include "ptx2amd/ptx-ir/Printer.h"

#include <fmt/format.h>
#include <llvm/ADT/SmallPtrSet.h>

#include <optional>

using namespace llvm;

namespace ptx2amd::lowering {
using ir::Mod;
using ir::Opcode;
using ir::Operand;

/// bar.warp.sync: the lanes of a warp execute in lock step inside a wave; order their memory.
void FunctionLowerer::warpSync(const ir::Instruction &) {
  auto Wave = S.Ctx.getOrInsertSyncScopeID("wavefront");
  B.CreateFence(AtomicOrdering::Release, Wave);
  intrinsic(Intrinsic::amdgcn_wave_barrier);
  B.CreateFence(AtomicOrdering::Acquire, Wave);
}

void FunctionLowerer::workgroupBarrier() {
  auto WG = S.Ctx.getOrInsertSyncScopeID("workgroup");
  B.CreateFence(AtomicOrdering::Release, WG);
  intrinsic(Intrinsic::amdgcn_s_barrier);
  B.CreateFence(AtomicOrdering::Acquire, WG);
}

namespace {

/// The operands of a bar/barrier instruction that synchronises the block.
struct BarrierForm {
  bool Arrive = false, Red = false;
  const Operand *Id = nullptr;
  const Operand *Count = nullptr; ///< null: every thread of the block
};

/// bar{.cta}{.sync} / barrier{.cta}{.aligned}.sync a{, b}; .arrive a, b; .red d, a{, b}, {!}c.
std::optional<BarrierForm> barrierForm(const ir::Instruction &I) {
  BarrierForm Form;
  Form.Red = I.has(Mod::Red);
  Form.Arrive = I.has(Mod::Arrive);
  bool Sync = Form.Red || I.has(Mod::Sync) || (I.Op == Opcode::Bar && I.Mods.empty()) ||
              (I.Op == Opcode::Bar && I.Mods.size() == 1 && I.has(Mod::Cta));
  if (!Sync && !Form.Arrive)
    return std::nullopt;
  // bar.red's destination and predicate around the id and count.
  size_t First = Form.Red ? 1 : 0, Others = Form.Red ? 2 : 0;
  if (I.Operands.size() < Others + 1 || I.Operands.size() > Others + 2)
    return std::nullopt;
  size_t Operands = I.Operands.size() - Others;
  Form.Id = &I.Operands[First];
  if (Operands == 2)
    Form.Count = &I.Operands[First + 1];
  return Form;
}

/// Whether every thread of the block takes part: no count, or `.reqntid`'s block size.
bool wholeBlock(const ir::Function &F, const BarrierForm &Form) {
  if (!Form.Count)
    return true;
  uint64_t Block = 1;
  for (uint32_t X : F.ReqNTid)
    Block *= std::max(1u, X);
  return Form.Count->K == Operand::Imm && !F.ReqNTid.empty() &&
         uint64_t(Form.Count->Offset) == Block;
}

uint16_t idBits(const Operand &Id) {
  return Id.K == Operand::Imm ? uint16_t(1u << (Id.Offset & 15)) : uint16_t(0xffff);
}

/// Whether a barrier takes the LDS barrier: s_barrier is one barrier for the whole block, so an
/// id that some barrier uses for part of the block (or with bar.arrive) never uses it.
bool takesLdsBarrier(const ModuleState &S, const ir::Function &F, const BarrierForm &Form) {
  return Form.Arrive || !wholeBlock(F, Form) || (S.LdsBarrierIds & idBits(*Form.Id));
}

// The LDS barrier. No supported target (gfx90a to gfx950, gfx1030 to gfx1201) has named
// hardware barriers: s_barrier, and gfx12's split s_barrier_signal/s_barrier_wait, are the one
// barrier of the workgroup, for every wave. So barriers for part of a block and bar.arrive count
// arrivals in LDS: one 64-bit word per barrier id holds the arrived threads, the votes so far
// (bar.red), the generation, and the totals of the last two generations. Each warp adds 32 (PTX
// counts warps, not their active threads) in a compare-and-swap; the one that reaches the count
// starts the next generation in the same swap (an arrival for the next generation cannot be
// counted in this one), releasing the waiters, which spin on the word with s_sleep.
constexpr unsigned BarrierIds = 16;
constexpr unsigned ArrivalBits = 12, CountBits = 11, GenBits = 9;
constexpr unsigned VotesShift = ArrivalBits, GenShift = VotesShift + CountBits, ResultShift = 32;
static_assert(GenShift + GenBits == 32 && ResultShift + 2 * CountBits <= 64);
constexpr const char *BarrierStateName = "__ptx2amd_barrier_state";

GlobalVariable *barrierState(Module &M) {
  auto *Ty = ArrayType::get(Type::getInt64Ty(M.getContext()), BarrierIds);
  return cast<GlobalVariable>(M.getOrInsertGlobal(BarrierStateName, Ty, [&] {
    auto *G = new GlobalVariable(M, Ty, false, GlobalValue::InternalLinkage, UndefValue::get(Ty),
                                 BarrierStateName, nullptr, GlobalValue::NotThreadLocal, ASLDS);
    G->setAlignment(Align(8));
    return G;
  }));
}

} // namespace

void planBarriers(ModuleState &S) {
  for (const auto &F : S.PTX.Functions)
    for (const ir::Block &BB : F->Blocks)
      for (const ir::Instruction &I : BB.Insts)
        if ((I.Op == Opcode::Bar || I.Op == Opcode::Barrier) && !I.has(Mod::Warp))
          if (std::optional<BarrierForm> Form = barrierForm(I))
            if (Form->Arrive || !wholeBlock(*F, *Form))
              S.LdsBarrierIds |= idBits(*Form->Id);
}

void initBarrierState(ModuleState &S) {
  // LDS starts undefined: each kernel that reaches an LDS barrier clears the words first.
  GlobalVariable *Words = S.M.getNamedGlobal(BarrierStateName);
  if (!Words)
    return;
  SmallPtrSet<llvm::Function *, 16> Reach;
  SmallVector<llvm::Function *, 16> Work;
  bool AddressTaken = false;
  SmallVector<User *, 16> Users{Words};
  while (!Users.empty()) {
    User *U = Users.pop_back_val();
    for (User *V : U->users()) {
      if (auto *I = dyn_cast<Instruction>(V)) {
        if (Reach.insert(I->getFunction()).second)
          Work.push_back(I->getFunction());
      } else {
        Users.push_back(V);
      }
    }
  }
  while (!Work.empty()) {
    llvm::Function *Callee = Work.pop_back_val();
    for (User *U : Callee->users()) {
      auto *Call = dyn_cast<CallBase>(U);
      if (!Call || Call->getCalledOperand() != Callee) {
        AddressTaken = true; // reachable through indirect calls: every kernel clears
        continue;
      }
      if (Reach.insert(Call->getFunction()).second)
        Work.push_back(Call->getFunction());
    }
  }
  IRBuilder<> B(S.Ctx);
  auto WG = S.Ctx.getOrInsertSyncScopeID("workgroup");
  for (llvm::Function &K : S.M) {
    if (K.isDeclaration() || K.getCallingConv() != CallingConv::AMDGPU_KERNEL ||
        (!AddressTaken && !Reach.contains(&K)))
      continue;
    BasicBlock &Entry = K.getEntryBlock();
    BasicBlock *Body = Entry.splitBasicBlock(Entry.getFirstNonPHIOrDbgOrAlloca(), "body");
    BasicBlock *Clear = BasicBlock::Create(S.Ctx, "barrier.clear", &K, Body);
    BasicBlock *Cleared = BasicBlock::Create(S.Ctx, "barrier.cleared", &K, Body);
    Entry.getTerminator()->eraseFromParent();
    B.SetInsertPoint(&Entry);
    Value *Id = B.CreateIntrinsic(Intrinsic::amdgcn_workitem_id_x, {});
    Id = B.CreateOr(Id, B.CreateIntrinsic(Intrinsic::amdgcn_workitem_id_y, {}));
    Id = B.CreateOr(Id, B.CreateIntrinsic(Intrinsic::amdgcn_workitem_id_z, {}));
    B.CreateCondBr(B.CreateICmpEQ(Id, B.getInt32(0)), Clear, Cleared);
    B.SetInsertPoint(Clear);
    B.CreateMemSet(Words, B.getInt8(0), S.M.getDataLayout().getTypeAllocSize(Words->getValueType()),
                   Align(8));
    B.CreateBr(Cleared);
    B.SetInsertPoint(Cleared);
    B.CreateFence(AtomicOrdering::Release, WG);
    B.CreateIntrinsic(Intrinsic::amdgcn_s_barrier, {});
    B.CreateFence(AtomicOrdering::Acquire, WG);
    B.CreateBr(Body);
  }
}

void FunctionLowerer::barrier(const ir::Instruction &I) {
  // bar{.cta}.sync / barrier{.cta}.sync / bar.red: the workgroup barrier, with the memory
  // ordering __syncthreads promises, when the whole block takes part and no barrier of the
  // module uses the id for part of it; the LDS barrier otherwise.
  std::optional<BarrierForm> Form = barrierForm(I);
  if (!Form)
    unsupported();
  if (Form->Arrive && !Form->Count)
    fail(fmt::format("'{}' needs a thread count", ir::instructionName(I)));
  if (Form->Red && !I.has(Mod::Popc) && !I.has(Mod::And) && !I.has(Mod::Or))
    unsupported();
  // .and counts the threads whose predicate is false, .or and .popc those where it is true.
  Value *Vote = nullptr;
  if (Form->Red) {
    Value *P = get(I.Operands.back(), ir::Type::Pred);
    Vote = I.has(Mod::And) ? B.CreateNot(P) : P;
  }
  Value *Total;
  if (!takesLdsBarrier(S, F, *Form)) {
    if (!Vote) {
      workgroupBarrier();
      return;
    }
    Total = workgroupReduction(Vote);
  } else {
    Value *Id = B.CreateAnd(get(*Form->Id, ir::Type::U32), BarrierIds - 1);
    Value *Count;
    if (Form->Count) {
      Count = get(*Form->Count, ir::Type::U32);
    } else {
      // Every warp of the block, the last one counted whole.
      Value *Threads = B.CreateMul(B.CreateMul(localSize(0), localSize(1)), localSize(2));
      Count = B.CreateAnd(B.CreateAdd(Threads, B.getInt32(31)), B.getInt32(~31u));
    }
    Total = ldsBarrier(Id, Count, !Form->Arrive, Vote);
    if (!Vote)
      return;
  }
  Value *R = I.has(Mod::Popc)  ? Total
             : I.has(Mod::And) ? B.CreateICmpEQ(Total, B.getInt32(0))
                               : B.CreateICmpNE(Total, B.getInt32(0));
  def(I.Operands[0], R);
}

Value *FunctionLowerer::workgroupReduction(Value *Vote) {
  // The first barrier lets every thread finish reading the previous reduction before thread 0
  // clears the word; one atomic add per wave.
  auto *I32 = B.getInt32Ty();
  auto *Word = cast<GlobalVariable>(S.M.getOrInsertGlobal("__ptx2amd_barrier_reduction", I32, [&] {
    auto *G = new GlobalVariable(S.M, I32, false, GlobalValue::InternalLinkage,
                                 UndefValue::get(I32), "__ptx2amd_barrier_reduction", nullptr,
                                 GlobalValue::NotThreadLocal, ASLDS);
    G->setAlignment(Align(4));
    return G;
  }));
  workgroupBarrier();
  Value *X = intrinsic(Intrinsic::amdgcn_workitem_id_x);
  Value *Y = intrinsic(Intrinsic::amdgcn_workitem_id_y);
  Value *Z = intrinsic(Intrinsic::amdgcn_workitem_id_z);
  Value *First = B.CreateICmpEQ(B.CreateOr(B.CreateOr(X, Y), Z), B.getInt32(0));
  BasicBlock *Clear = BasicBlock::Create(S.Ctx, "bar.red.clear", &LF);
  BasicBlock *Cleared = BasicBlock::Create(S.Ctx, "bar.red.cleared", &LF);
  B.CreateCondBr(First, Clear, Cleared);
  B.SetInsertPoint(Clear);
  B.CreateAlignedStore(B.getInt32(0), Word, Align(4));
  B.CreateBr(Cleared);
  B.SetInsertPoint(Cleared);
  workgroupBarrier();
  llvm::Type *MaskTy = B.getIntNTy(S.Target.WaveSize);
  Value *Votes = intrinsic(Intrinsic::amdgcn_ballot, {MaskTy}, {Vote});
  Value *Live = intrinsic(Intrinsic::amdgcn_ballot, {MaskTy}, {B.getTrue()});
  Value *Leader = B.CreateTrunc(intrinsic(Intrinsic::cttz, {MaskTy}, {Live, B.getTrue()}), I32);
  Value *Count = B.CreateTrunc(intrinsic(Intrinsic::ctpop, {MaskTy}, {Votes}), I32);
  BasicBlock *Add = BasicBlock::Create(S.Ctx, "bar.red.add", &LF);
  BasicBlock *Added = BasicBlock::Create(S.Ctx, "bar.red.added", &LF);
  B.CreateCondBr(B.CreateICmpEQ(laneInWave(), Leader), Add, Added);
  B.SetInsertPoint(Add);
  B.CreateAtomicRMW(AtomicRMWInst::Add, Word, Count, Align(4), AtomicOrdering::Monotonic,
                    S.Ctx.getOrInsertSyncScopeID("workgroup"));
  B.CreateBr(Added);
  B.SetInsertPoint(Added);
  workgroupBarrier();
  return B.CreateAlignedLoad(I32, Word, Align(4));
}

Value *FunctionLowerer::ldsBarrier(Value *Id, Value *Count, bool Wait, Value *Vote) {
  auto WG = S.Ctx.getOrInsertSyncScopeID("workgroup");
  auto *I32 = B.getInt32Ty();
  auto *I64 = B.getInt64Ty();
  const unsigned WS = S.Target.WaveSize;
  llvm::Type *MaskTy = B.getIntNTy(WS);
  GlobalVariable *State = barrierState(S.M);
  auto Field = [&](Value *W, unsigned Shift, unsigned Bits) {
    return B.CreateAnd(Shift ? B.CreateLShr(W, Shift) : W, (uint64_t(1) << Bits) - 1);
  };
  // Bits 32 W and up of a mask (W: a warp of the wave).
  auto Warp = [&](Value *Mask, unsigned W) {
    return B.CreateTrunc(W ? B.CreateLShr(Mask, 32 * W) : Mask, I32);
  };
  // The wave's fence orders the accesses of all its lanes before the leader's arrival.
  B.CreateFence(AtomicOrdering::Release, WG);
  Value *Live = intrinsic(Intrinsic::amdgcn_ballot, {MaskTy}, {B.getTrue()});
  Value *Votes = Vote ? intrinsic(Intrinsic::amdgcn_ballot, {MaskTy}, {Vote}) : nullptr;
  Value *Leader = B.CreateTrunc(intrinsic(Intrinsic::cttz, {MaskTy}, {Live, B.getTrue()}), I32);
  // Each warp's lanes, barrier and count (warps of one wave may name different barriers), read
  // while every lane is active.
  struct WarpArrival {
    Value *Present, *Barrier, *Count;
  };
  SmallVector<WarpArrival, 2> Warps;
  for (unsigned W = 0; W < WS / 32; ++W) {
    Value *Lanes = Warp(Live, W);
    Value *Present = B.CreateICmpNE(Lanes, B.getInt32(0));
    Value *First = intrinsic(Intrinsic::cttz, {I32}, {Lanes, B.getTrue()});
    if (W)
      First = B.CreateAdd(First, B.getInt32(32 * W));
    First = B.CreateSelect(Present, First, Leader);
    Warps.push_back({Present, intrinsic(Intrinsic::amdgcn_readlane, {I32}, {Id, First}),
                     intrinsic(Intrinsic::amdgcn_readlane, {I32}, {Count, First})});
  }
  BasicBlock *From = B.GetInsertBlock();
  BasicBlock *Arrive = BasicBlock::Create(S.Ctx, "bar.arrive", &LF);
  BasicBlock *Arrived = BasicBlock::Create(S.Ctx, "bar.arrived", &LF);
  B.CreateCondBr(B.CreateICmpEQ(laneInWave(), Leader), Arrive, Arrived);
  B.SetInsertPoint(Arrive);
  // The leader arrives for each warp with lanes here, in order (on wave64 the second warp may
  // complete the barrier after the first, or arrive in its next generation), each time in one
  // compare-and-swap that adds the warp and its votes or completes the generation. Per warp it
  // learns the generation to wait for, whether it completed it and the total there.
  Value *Info = nullptr;
  for (unsigned W = 0; W < Warps.size(); ++W) {
    const WarpArrival &A = Warps[W];
    Value *Word = B.CreateInBoundsGEP(I64, State, A.Barrier);
    Value *Mine =
        Vote ? B.CreateZExt(intrinsic(Intrinsic::ctpop, {I32}, {Warp(Votes, W)}), I64) : nullptr;
    BasicBlock *Before = B.GetInsertBlock();
    BasicBlock *Cas = BasicBlock::Create(S.Ctx, "bar.cas", &LF);
    BasicBlock *Done = BasicBlock::Create(S.Ctx, "bar.counted", &LF);
    Value *Need = B.CreateZExt(A.Count, I64);
    LoadInst *First = B.CreateAlignedLoad(I64, Word, Align(8));
    First->setAtomic(AtomicOrdering::Monotonic, WG);
    B.CreateCondBr(A.Present, Cas, Done);
    B.SetInsertPoint(Cas);
    PHINode *Old = B.CreatePHI(I64, 2);
    Old->addIncoming(First, Before);
    Value *Gen = Field(Old, GenShift, GenBits);
    Value *Total = Field(Old, VotesShift, CountBits);
    if (Vote)
      Total = B.CreateAdd(Total, Mine);
    Value *Arrivals = B.CreateAdd(Field(Old, 0, ArrivalBits), B.getInt64(32));
    Value *Last = B.CreateICmpUGE(Arrivals, Need);
    Value *Next = B.CreateOr(
        {B.CreateShl(B.CreateAnd(B.CreateAdd(Gen, B.getInt64(1)), (1u << GenBits) - 1), GenShift),
         B.CreateShl(Total, ResultShift),
         B.CreateShl(Field(Old, ResultShift, CountBits), ResultShift + CountBits)});
    Value *Added = B.CreateAdd(Old, B.getInt64(32));
    if (Vote)
      Added = B.CreateAdd(Added, B.CreateShl(Mine, VotesShift));
    Value *Pair =
        B.CreateAtomicCmpXchg(Word, Old, B.CreateSelect(Last, Next, Added), Align(8),
                              AtomicOrdering::AcquireRelease, AtomicOrdering::Monotonic, WG);
    Old->addIncoming(B.CreateExtractValue(Pair, 0), Cas);
    Value *Learnt = Wait ? B.CreateOr({Gen, B.CreateShl(B.CreateZExt(Last, I64), GenBits),
                                       B.CreateShl(Total, GenBits + 1)})
                         : nullptr;
    B.CreateCondBr(B.CreateExtractValue(Pair, 1), Done, Cas);
    B.SetInsertPoint(Done);
    if (!Wait)
      continue;
    PHINode *Got = B.CreatePHI(I64, 2);
    Got->addIncoming(B.getInt64(0), Before);
    Got->addIncoming(Learnt, Cas);
    Info = W ? B.CreateOr(Info, B.CreateShl(Got, 32 * W)) : Got;
  }
  BasicBlock *Leaders = B.GetInsertBlock();
  B.CreateBr(Arrived);
  B.SetInsertPoint(Arrived);
  if (!Wait)
    return nullptr;
  PHINode *Phi = B.CreatePHI(I64, 2);
  Phi->addIncoming(B.getInt64(0), From);
  Phi->addIncoming(Info, Leaders);
  // The leader is the first active lane.
  Info = intrinsic(Intrinsic::amdgcn_readfirstlane, {I64}, {Phi});
  // Each lane waits for its own warp's generation of its own barrier.
  if (WS == 64)
    Info = B.CreateLShr(Info, B.CreateSelect(B.CreateICmpUGE(laneInWave(), B.getInt32(32)),
                                             B.getInt64(32), B.getInt64(0)));
  Value *WaitGen = Field(Info, 0, GenBits);
  Value *Completed = B.CreateTrunc(B.CreateLShr(Info, GenBits), B.getInt1Ty());
  Value *Word = B.CreateInBoundsGEP(I64, State, Id);
  BasicBlock *Spin = BasicBlock::Create(S.Ctx, "bar.wait", &LF);
  BasicBlock *Sleep = BasicBlock::Create(S.Ctx, "bar.sleep", &LF);
  BasicBlock *Passed = BasicBlock::Create(S.Ctx, "bar.passed", &LF);
  B.CreateBr(Spin);
  B.SetInsertPoint(Spin);
  LoadInst *Now = B.CreateAlignedLoad(I64, Word, Align(8));
  Now->setAtomic(AtomicOrdering::Monotonic, WG);
  Value *Behind =
      B.CreateAnd(B.CreateSub(Field(Now, GenShift, GenBits), WaitGen), (1u << GenBits) - 1);
  Value *Pending = B.CreateNot(Completed);
  B.CreateCondBr(B.CreateAnd(Pending, B.CreateICmpEQ(Behind, B.getInt64(0))), Sleep, Passed);
  B.SetInsertPoint(Sleep);
  intrinsic(Intrinsic::amdgcn_s_sleep, {}, {B.getInt32(1)});
  B.CreateBr(Spin);
  B.SetInsertPoint(Passed);
  B.CreateFence(AtomicOrdering::Acquire, WG);
  if (!Vote)
    return nullptr;
  // The completing warp knows the total; a waiter finds it among the last two generations'.
  Value *Latest = Field(Now, ResultShift, CountBits);
  Value *Earlier = Field(Now, ResultShift + CountBits, CountBits);
  Value *Result = B.CreateSelect(B.CreateICmpEQ(Behind, B.getInt64(1)), Latest, Earlier);
  Value *Own = Field(Info, GenBits + 1, CountBits);
  Result = B.CreateSelect(Completed, Own, Result);
  return B.CreateTrunc(Result, I32);
}

void FunctionLowerer::call(const ir::Instruction &I) {
  // call{.uni} (ret...), f, (args...)
  size_t K = 0;
  const Operand *Rets = nullptr;
  if (K < I.Operands.size() && I.Operands[K].K == Operand::List)
    Rets = &I.Operands[K++];
  if (K >= I.Operands.size())
    fail("a call needs a callee");
  const Operand &CalleeOp = I.Operands[K++];
  FunctionType *FT;
  Value *CalleeV;
  size_t NumParams, NumReturns;
  if (CalleeOp.K == Operand::Symbol && CalleeOp.Sym.K == ir::SymbolRef::Function) {
    const ir::Function &CF = *S.PTX.Functions[CalleeOp.Sym.Index];
    llvm::Function *LCF = S.Functions[CalleeOp.Sym.Index];
    FT = LCF->getFunctionType();
    CalleeV = LCF;
    NumParams = CF.Params.size();
    NumReturns = CF.Returns.size();
  } else if (CalleeOp.K == Operand::Value) {
    // Indirect: `call (ret), %rd, (args), prototype;` with the function's address in %rd.
    const Operand &Last = I.Operands.back();
    if (Last.K != Operand::Symbol || Last.Sym.K != ir::SymbolRef::Prototype)
      fail("an indirect call needs a .callprototype (.calltargets lists are not supported yet)");
    const ir::CallPrototype &P = F.Prototypes[Last.Sym.Index];
    FT = deviceFunctionType(S.Ctx, P.Returns, P.Params);
    CalleeV = B.CreateIntToPtr(value(CalleeOp.V), PointerType::get(S.Ctx, ASFlat));
    NumParams = P.Params.size();
    NumReturns = P.Returns.size();
  } else {
    fail("unsupported callee");
  }
  SmallVector<Value *, 8> Args;
  if (K < I.Operands.size() && I.Operands[K].K == Operand::List) {
    const Operand &ArgList = I.Operands[K];
    if (ArgList.Elements.size() != NumParams)
      fail("argument count does not match the callee");
    for (size_t J = 0; J < ArgList.Elements.size(); ++J) {
      const Operand &A = ArgList.Elements[J];
      llvm::Type *PT = FT->getParamType(J);
      if (A.K == Operand::Symbol && A.Sym.K == ir::SymbolRef::Local)
        Args.push_back(B.CreateLoad(PT, LocalPtr[A.Sym.Index]));
      else if (A.K == Operand::Value)
        Args.push_back(convert(value(A.V), PT));
      else
        fail("unsupported call argument");
    }
  }
  if (Args.size() != NumParams)
    fail("argument count does not match the callee");
  Value *R = B.CreateCall(FT, CalleeV, Args);
  if (!Rets)
    return;
  if (Rets->Elements.size() != NumReturns)
    fail("return value count does not match the callee");
  for (size_t J = 0; J < Rets->Elements.size(); ++J) {
    Value *RV = NumReturns == 1 ? R : B.CreateExtractValue(R, J);
    const Operand &D = Rets->Elements[J];
    if (D.K == Operand::Symbol && D.Sym.K == ir::SymbolRef::Local)
      B.CreateStore(RV, LocalPtr[D.Sym.Index]);
    else if (D.K == Operand::Value)
      def(D, RV);
    else
      fail("unsupported call return operand");
  }
}

} // namespace ptx2amd::lowering
