// mbarrier objects and the bulk asynchronous copies that complete on them.
//
// An mbarrier is a 64-bit word in shared memory. The PTX ISA leaves its layout opaque; ours:
//   bits  0-19  pending arrivals of the current phase
//   bits 20-39  expected arrivals (the count each phase starts with; arrive_drop lowers it)
//   bits 40-60  transaction count, 21-bit two's complement (the ISA's range is +-(2^20 - 1))
//   bit  63     phase parity
// Every update is one compare-and-swap that also completes the phase when both the pending
// arrivals and the transaction count reach zero: the parity flips, the pending arrivals start
// again from the expected ones and the transaction count from zero. The state an arrive returns
// is the word before its arrival; a wait on it, or on a parity, compares parities.
//
// A cluster is one block here, so `.shared::cluster` is the block's own shared memory and the
// `.cluster` scope orders the same threads as `.cta`. Bulk copies run at issue time in the
// issuing thread, before the transaction count they complete is released: the ISA lets an
// asynchronous operation finish at any point before its completion is observed.
#include "FunctionLowerer.h"

#include <fmt/format.h>

#include <algorithm>

using namespace llvm;

namespace ptx2amd::lowering {
using ir::Mod;
using ir::Opcode;
using ir::Operand;

namespace {

constexpr unsigned ExpectedShift = 20, TxShift = 40, PhaseShift = 63;
constexpr uint64_t CountMask = (uint64_t(1) << 20) - 1, TxMask = (uint64_t(1) << 21) - 1;
static_assert(TxShift + 21 <= PhaseShift);

bool hasExtra(const ir::Instruction &I, std::string_view Spelling) {
  return std::any_of(I.Mods.begin(), I.Mods.end(), [&](const ir::Modifier &M) {
    return M.Id == Mod::Extra && ir::modifierSpelling(M) == Spelling;
  });
}

/// The address spaces an instruction names, in order (a bulk copy's destination first).
SmallVector<unsigned, 2> spaces(const ir::Instruction &I) {
  SmallVector<unsigned, 2> R;
  for (const ir::Modifier &M : I.Mods) {
    if (M.Id == Mod::Global)
      R.push_back(ASGlobal);
    else if (M.Id == Mod::Shared || M.Id == Mod::SharedCta || M.Id == Mod::SharedCluster)
      R.push_back(ASLDS);
  }
  return R;
}

} // namespace

Value *FunctionLowerer::mbarrierUpdate(Value *Word, Value *Arrivals, Value *Drop, Value *Tx,
                                       AtomicOrdering O, SyncScope::ID Scope) {
  auto *I64 = B.getInt64Ty();
  auto Field = [&](Value *W, unsigned Shift, uint64_t Mask) {
    return B.CreateAnd(Shift ? B.CreateLShr(W, Shift) : W, Mask);
  };
  BasicBlock *Before = B.GetInsertBlock();
  BasicBlock *Cas = BasicBlock::Create(S.Ctx, "mbarrier.cas", &LF);
  BasicBlock *Done = BasicBlock::Create(S.Ctx, "mbarrier.updated", &LF);
  LoadInst *First = B.CreateAlignedLoad(I64, Word, Align(8));
  First->setAtomic(AtomicOrdering::Monotonic, Scope);
  B.CreateBr(Cas);
  B.SetInsertPoint(Cas);
  PHINode *Old = B.CreatePHI(I64, 2);
  Old->addIncoming(First, Before);
  Value *Pending = B.CreateAnd(B.CreateSub(B.CreateAnd(Old, CountMask), Arrivals), CountMask);
  Value *Expected = B.CreateAnd(B.CreateSub(Field(Old, ExpectedShift, CountMask), Drop), CountMask);
  Value *Count = B.CreateAnd(B.CreateAdd(Field(Old, TxShift, TxMask), Tx), TxMask);
  Value *Complete = B.CreateICmpEQ(B.CreateOr(Pending, Count), B.getInt64(0));
  Value *Phase = B.CreateAnd(Old, uint64_t(1) << PhaseShift);
  Value *Next = B.CreateOr({B.CreateXor(Phase, uint64_t(1) << PhaseShift), Expected,
                            B.CreateShl(Expected, ExpectedShift)});
  Value *Same = B.CreateOr(
      {Phase, Pending, B.CreateShl(Expected, ExpectedShift), B.CreateShl(Count, TxShift)});
  Value *Pair = B.CreateAtomicCmpXchg(Word, Old, B.CreateSelect(Complete, Next, Same), Align(8), O,
                                      AtomicOrdering::Monotonic, Scope);
  Old->addIncoming(B.CreateExtractValue(Pair, 0), Cas);
  B.CreateCondBr(B.CreateExtractValue(Pair, 1), Done, Cas);
  B.SetInsertPoint(Done);
  return Old;
}

/// mbarrier.init / inval / arrive{.expect_tx} / arrive_drop{.expect_tx} / expect_tx /
/// complete_tx / test_wait{.parity} / try_wait{.parity} / pending_count.
void FunctionLowerer::mbarrier(const ir::Instruction &I) {
  auto *I64 = B.getInt64Ty();
  if (I.has(Mod::Pending_count)) {
    if (I.Operands.size() != 2)
      unsupported();
    Value *State = get(I.Operands[1], ir::Type::B64);
    def(I.Operands[0], B.CreateTrunc(B.CreateAnd(State, CountMask), B.getInt32Ty()));
    return;
  }
  if (I.has(Mod::Inval))
    return; // the word keeps no state outside itself: the memory may be reused as it is
  bool Drop = hasExtra(I, "arrive_drop");
  bool Arrive = I.has(Mod::Arrive) || Drop;
  bool Wait = I.has(Mod::Test_wait) || I.has(Mod::Try_wait);
  // The operand of the mbarrier: after the state or predicate written, if any.
  size_t At = Arrive || Wait ? 1 : 0;
  if (I.Operands.size() <= At || I.Operands[At].K != Operand::Address)
    unsupported();
  SmallVector<unsigned, 2> Sp = spaces(I);
  if (Sp.size() > 1 || (Sp.size() == 1 && Sp[0] != ASLDS))
    fail("an mbarrier lives in shared memory");
  Value *Word = address(I.Operands[At], Sp.empty() ? ASFlat : ASLDS);
  SyncScope::ID Scope = S.Ctx.getOrInsertSyncScopeID("workgroup");
  auto Operand32 = [&](size_t K) { return B.CreateZExt(get(I.Operands[K], ir::Type::U32), I64); };

  if (I.has(Mod::Init)) {
    if (I.Operands.size() != 2)
      unsupported();
    Value *Count = B.CreateAnd(Operand32(1), CountMask);
    StoreInst *St =
        B.CreateAlignedStore(B.CreateOr(Count, B.CreateShl(Count, ExpectedShift)), Word, Align(8));
    St->setAtomic(AtomicOrdering::Monotonic, Scope);
    return;
  }
  if (Wait) {
    // [addr], state | phaseParity {, suspendTimeHint}: the phase completed when the parity
    // moved on from the state's (or from the given parity).
    if (I.Operands.size() < 3 || I.Operands.size() > 4)
      unsupported();
    Value *Parity = I.has(Mod::Parity)
                        ? B.CreateAnd(Operand32(2), 1)
                        : B.CreateLShr(get(I.Operands[2], ir::Type::B64), PhaseShift);
    AtomicOrdering O = I.has(Mod::Relaxed) ? AtomicOrdering::Monotonic : AtomicOrdering::Acquire;
    auto Passed = [&] {
      LoadInst *Now = B.CreateAlignedLoad(I64, Word, Align(8));
      Now->setAtomic(O, Scope);
      return B.CreateICmpNE(B.CreateLShr(Now, PhaseShift), Parity);
    };
    Value *Done = Passed();
    if (I.has(Mod::Try_wait)) {
      // A bounded wait: one sleep (on the host device, the other work-items run) and a second
      // look. Callers loop until it succeeds.
      BasicBlock *Before = B.GetInsertBlock();
      BasicBlock *Sleep = BasicBlock::Create(S.Ctx, "mbarrier.sleep", &LF);
      BasicBlock *Waited = BasicBlock::Create(S.Ctx, "mbarrier.waited", &LF);
      B.CreateCondBr(Done, Waited, Sleep);
      B.SetInsertPoint(Sleep);
      intrinsic(Intrinsic::amdgcn_s_sleep, {}, {B.getInt32(1)});
      Value *Again = Passed();
      BasicBlock *Slept = B.GetInsertBlock();
      B.CreateBr(Waited);
      B.SetInsertPoint(Waited);
      PHINode *R = B.CreatePHI(B.getInt1Ty(), 2);
      R->addIncoming(Done, Before);
      R->addIncoming(Again, Slept);
      Done = R;
    }
    def(I.Operands[0], Done);
    return;
  }
  Value *Zero = B.getInt64(0), *One = B.getInt64(1);
  if (Arrive) {
    // state, [addr] {, count}; with .expect_tx: state, [addr], txCount (one arrival).
    if (I.Operands.size() > 3)
      unsupported();
    bool Tx = I.has(Mod::Expect_tx);
    if (Tx && I.Operands.size() != 3)
      fail("'mbarrier.arrive.expect_tx' needs a transaction count");
    Value *Count = !Tx && I.Operands.size() == 3 ? B.CreateAnd(Operand32(2), CountMask) : One;
    Value *Bytes = Tx ? Operand32(2) : Zero;
    AtomicOrdering O = I.has(Mod::Relaxed) ? AtomicOrdering::Monotonic : AtomicOrdering::Release;
    Value *Old = mbarrierUpdate(Word, Count, Drop ? Count : Zero, Bytes, O, Scope);
    def(I.Operands[0], Old);
    return;
  }
  if (I.has(Mod::Expect_tx) || I.has(Mod::Complete_tx)) {
    // [addr], txCount: relaxed updates of the transaction count (complete_tx may end the phase).
    if (I.Operands.size() != 2)
      unsupported();
    Value *Bytes = Operand32(1);
    if (I.has(Mod::Complete_tx))
      Bytes = B.CreateNeg(Bytes);
    mbarrierUpdate(Word, Zero, Zero, Bytes, AtomicOrdering::Monotonic, Scope);
    return;
  }
  unsupported();
}

void FunctionLowerer::bulkLoop(Value *Size, unsigned Step, function_ref<void(Value *Offset)> Body) {
  auto *I64 = B.getInt64Ty();
  BasicBlock *Before = B.GetInsertBlock();
  BasicBlock *Loop = BasicBlock::Create(S.Ctx, "bulk.loop", &LF);
  BasicBlock *Done = BasicBlock::Create(S.Ctx, "bulk.done", &LF);
  B.CreateCondBr(B.CreateICmpUGE(Size, B.getInt64(Step)), Loop, Done);
  B.SetInsertPoint(Loop);
  PHINode *Offset = B.CreatePHI(I64, 2);
  Offset->addIncoming(B.getInt64(0), Before);
  Body(Offset);
  Value *Next = B.CreateAdd(Offset, B.getInt64(Step));
  Offset->addIncoming(Next, B.GetInsertBlock());
  B.CreateCondBr(B.CreateICmpULE(B.CreateAdd(Next, B.getInt64(Step)), Size), Loop, Done);
  B.SetInsertPoint(Done);
}

/// cp.async.bulk, cp.reduce.async.bulk, cp.async.bulk.prefetch, the bulk groups and
/// cp.async.mbarrier.arrive: all complete at issue time.
void FunctionLowerer::asyncBulk(const ir::Instruction &I) {
  if (I.has(Mod::Tensor) || I.has(Mod::Multicast_cluster) || hasExtra(I, "cp_mask"))
    unsupported();
  if (I.has(Mod::Commit_group) || I.has(Mod::Wait_group) || hasExtra(I, "prefetch"))
    return; // the copies of a group are done when issued; a prefetch is a hint
  if (I.has(Mod::Mbarrier) && I.has(Mod::Arrive)) {
    // cp.async.mbarrier.arrive{.noinc}: this thread's cp.async copies are done, so the arrival
    // they trigger happens now. Without .noinc it comes with an increment of the pending count
    // that cancels it.
    if (I.Operands.size() != 1)
      unsupported();
    if (!I.has(Mod::Noinc))
      return;
    SmallVector<unsigned, 2> Sp = spaces(I);
    Value *Word = address(I.Operands[0], Sp.empty() ? ASFlat : ASLDS);
    mbarrierUpdate(Word, B.getInt64(1), B.getInt64(0), B.getInt64(0), AtomicOrdering::Release,
                   S.Ctx.getOrInsertSyncScopeID("workgroup"));
    return;
  }
  // [dst], [src], size {, [mbar]} {, cache-policy}
  SmallVector<unsigned, 2> Sp = spaces(I);
  bool Reduce = hasExtra(I, "reduce");
  bool ToBarrier = I.has(Mod::Complete_tx_bytes);
  if (Sp.size() != 2 || (Sp[1] != ASLDS && !(Sp[0] == ASLDS && Sp[1] == ASGlobal)) ||
      ToBarrier == (Sp[0] == ASGlobal) || (!ToBarrier && !I.has(Mod::Bulk_group)))
    unsupported();
  size_t Needed = ToBarrier ? 4 : 3;
  if (I.Operands.size() != Needed + (I.has(Mod::L2CacheHint) ? 1 : 0))
    unsupported();
  Value *Dst = address(I.Operands[0], Sp[0]);
  Value *Src = address(I.Operands[1], Sp[1]);
  Value *Size = B.CreateZExt(get(I.Operands[2], ir::Type::U32), B.getInt64Ty());
  SyncScope::ID WG = S.Ctx.getOrInsertSyncScopeID("workgroup");
  if (!Reduce) {
    auto *Chunk = FixedVectorType::get(B.getInt32Ty(), 4);
    bulkLoop(Size, 16, [&](Value *Offset) {
      Value *From = B.CreateInBoundsGEP(B.getInt8Ty(), Src, Offset);
      Value *To = B.CreateInBoundsGEP(B.getInt8Ty(), Dst, Offset);
      B.CreateAlignedStore(B.CreateAlignedLoad(Chunk, From, Align(16)), To, Align(16));
    });
  } else {
    // One atomic per element, as the ISA performs them.
    ir::Type T = type0(I);
    AtomicRMWInst::BinOp Op = AtomicRMWInst::BAD_BINOP;
    bool Float = isFloat(T), Signed = isSigned(T);
    if (I.has(Mod::Add))
      Op = Float ? AtomicRMWInst::FAdd : AtomicRMWInst::Add;
    else if (I.has(Mod::Min))
      Op = Float ? AtomicRMWInst::FMin : Signed ? AtomicRMWInst::Min : AtomicRMWInst::UMin;
    else if (I.has(Mod::Max))
      Op = Float ? AtomicRMWInst::FMax : Signed ? AtomicRMWInst::Max : AtomicRMWInst::UMax;
    else if (I.has(Mod::Inc) && T == ir::Type::U32)
      Op = AtomicRMWInst::UIncWrap;
    else if (I.has(Mod::Dec) && T == ir::Type::U32)
      Op = AtomicRMWInst::UDecWrap;
    else if (!Float && I.has(Mod::And))
      Op = AtomicRMWInst::And;
    else if (!Float && I.has(Mod::Or))
      Op = AtomicRMWInst::Or;
    else if (!Float && I.has(Mod::Xor))
      Op = AtomicRMWInst::Xor;
    unsigned Bits = ir::typeBits(T);
    bool Half = T == ir::Type::F16 || T == ir::Type::BF16;
    if (Op == AtomicRMWInst::BAD_BINOP || (Bits != 32 && Bits != 64 && !Half) ||
        (Half && Op == AtomicRMWInst::FAdd && !I.has(Mod::Noftz)))
      unsupported();
    llvm::Type *ET = valueType(S.Ctx, T);
    SyncScope::ID Scope = Sp[0] == ASLDS ? WG : S.Ctx.getOrInsertSyncScopeID("agent");
    bulkLoop(Size, Bits / 8, [&](Value *Offset) {
      Value *From = B.CreateInBoundsGEP(B.getInt8Ty(), Src, Offset);
      Value *To = B.CreateInBoundsGEP(B.getInt8Ty(), Dst, Offset);
      Value *V = B.CreateAlignedLoad(ET, From, Align(Bits / 8));
      B.CreateAtomicRMW(Op, To, V, Align(Bits / 8), AtomicOrdering::Monotonic, Scope);
    });
  }
  if (ToBarrier) {
    Value *Word = address(I.Operands[3], ASLDS);
    mbarrierUpdate(Word, B.getInt64(0), B.getInt64(0), B.CreateNeg(Size), AtomicOrdering::Release,
                   WG);
  }
}

} // namespace ptx2amd::lowering
