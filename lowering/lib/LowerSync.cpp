// Barriers and calls.
#include "FunctionLowerer.h"

#include "ptx2amd/ptx-ir/Printer.h"

#include <fmt/format.h>

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

void FunctionLowerer::barrier(const ir::Instruction &I) {
  // bar{.cta}.sync / barrier{.cta}.sync / bar.red: the workgroup barrier, with the memory
  // ordering __syncthreads promises. AMDGPU has one barrier per workgroup: any barrier id works
  // when the whole block takes part, which is what a missing thread count means.
  bool Red = I.has(Mod::Red);
  bool Sync = Red || I.has(Mod::Sync) || (I.Op == Opcode::Bar && I.Mods.empty()) ||
              (I.Op == Opcode::Bar && I.Mods.size() == 1 && I.has(Mod::Cta));
  if (I.has(Mod::Arrive))
    fail(fmt::format("'{}' (arrive without waiting) is not supported yet: AMDGPU's workgroup "
                     "barrier always waits",
                     ir::instructionName(I)));
  if (!Sync)
    unsupported();
  size_t Id = Red ? 1 : 0;
  size_t Operands = I.Operands.size() - Id - (Red ? 1 : 0); // id and an optional count
  if (Operands == 2) {
    const Operand &Count = I.Operands[Id + 1];
    uint64_t Block = 1;
    for (uint32_t X : F.ReqNTid)
      Block *= std::max(1u, X);
    if (Count.K != Operand::Imm || F.ReqNTid.empty() || uint64_t(Count.Offset) != Block)
      fail(fmt::format("'{}' with a thread count that may be below the block size (a named "
                       "barrier for part of the block) is not supported yet",
                       ir::instructionName(I)));
  } else if (Operands != 1) {
    unsupported();
  }
  if (!Red) {
    workgroupBarrier();
    return;
  }
  // bar.red: count the block's votes in one LDS word. The first barrier lets every thread finish
  // reading the previous reduction before thread 0 clears the word; one atomic add per wave.
  Value *P = get(I.Operands.back(), ir::Type::Pred);
  bool Popc = I.has(Mod::Popc);
  if (!Popc && !I.has(Mod::And) && !I.has(Mod::Or))
    unsupported();
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
  // .and counts the threads whose predicate is false, .or and .popc those where it is true.
  Value *Vote = I.has(Mod::And) ? B.CreateNot(P) : P;
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
  Value *Total = B.CreateAlignedLoad(I32, Word, Align(4));
  Value *R = Popc              ? Total
             : I.has(Mod::And) ? B.CreateICmpEQ(Total, B.getInt32(0))
                               : B.CreateICmpNE(Total, B.getInt32(0));
  def(I.Operands[0], R);
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
